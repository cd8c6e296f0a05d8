#!/usr/bin/env python3
"""Regenerates the field tables of docs/fields.md from fields/fields.def.

usage: tools/fields_doc.py [docs/fields.md]
Rewrites the text between the '<!-- fields.def table -->' markers (the prime fields, then
the extension fields); the rest of the page is prose kept by hand. Derived columns
(-p^-1 mod 2^32, the two-adicity of p^d - 1) are computed here the same way fields/field.c
derives them, so the page shows what the code uses.
"""
import re
import sys

ROW = re.compile(r'FFU_FIELD\(\s*(\w+),\s*(\w+),\s*(\d+),\s*(\d+),\s*"([0-9a-f]+)",\s*(\d+),\s*(\d+),'
                 r'\s*(\d+),\s*(\d+),\s*(\w+)\)', re.S)
EXT = re.compile(r'FFU_EXT\(\s*(\w+),\s*(\w+),\s*(\w+),\s*(\d+),\s*(-?\d+)\)', re.S)


def source(path):
    text = open(path).read()
    return re.sub(r'/\*.*?\*/', '', text, flags=re.S)


def rows(path):
    for m in ROW.finditer(source(path)):
        ident, name, bits, sbytes, mod, gen, two, devr, montr, tmpl = m.groups()
        yield dict(ident=ident, name=name, bits=int(bits), sbytes=int(sbytes), p=int(mod, 16),
                   gen=int(gen), two=int(two), devr=int(devr), montr=int(montr), tmpl=tmpl)


def ext_rows(path):
    for m in EXT.finditer(source(path)):
        ident, name, base, degree, w = m.groups()
        yield dict(ident=ident, name=name, base=base, d=int(degree), w=int(w))


def two_adicity(n):
    return (n & -n).bit_length() - 1


def table(path):
    out = ['| type | p | bits | storage | generator | 2-adicity | device template | device R | `_mont` R | -p^-1 mod 2^32 |',
           '|---|---|---|---|---|---|---|---|---|---|']
    primes = {}
    for r in rows(path):
        primes[r['ident']] = r
        p = r['p']
        pinv = (-pow(p, -1, 2**32)) % 2**32
        dev = '2^%d' % r['devr'] if r['devr'] else '1 (canonical)'
        tmpl = '`cl/%s.cl`' % r['tmpl']
        if r['tmpl'] == 'montn':  # the multi-word template: its word count (src/codegen/field_cl.c)
            tmpl += ' (%d x 32-bit limbs)' % (r['sbytes'] // 4)
            if r['bits'] == 8 * r['sbytes']:
                tmpl += ' + `cl/montn_full.cl`'  # no spare top bit
        out.append('| `%s` | 0x%x | %d | %d B | %d | %d | %s | %s | 2^%d | 0x%08x |' % (
            r['name'], p, r['bits'], r['sbytes'], r['gen'], r['two'], tmpl, dev, r['montr'], pinv))
    out += ['', '| type | field | degree | W (u^d = W) | storage | 2-adicity of p^d - 1 | device template | `_mont` twin (coefficients x R) |',
            '|---|---|---|---|---|---|---|---|']
    for x in ext_rows(path):
        b = primes[x['base']]
        poly = 'u^%d %s %d' % (x['d'], '+' if x['w'] < 0 else '-', abs(x['w']))
        out.append('| `%s` | %s[u]/(%s) | %d | %d | %d B (%d x %d) | %d | `cl/ext%d.cl` over `cl/%s.cl` | `%s_mont` (R = 2^%d) |' % (
            x['name'], b['name'], poly, x['d'], x['w'], x['d'] * b['sbytes'], x['d'], b['sbytes'],
            two_adicity(b['p'] ** x['d'] - 1), x['d'], b['tmpl'], x['name'], b['montr']))
    return '\n'.join(out)


def main():
    doc = sys.argv[1] if len(sys.argv) > 1 else 'docs/fields.md'
    text = open(doc).read()
    begin, end = '<!-- fields.def table -->', '<!-- end of fields.def table -->'
    i, j = text.index(begin) + len(begin), text.index(end)
    text = text[:i] + '\n' + table('fields/fields.def') + '\n' + text[j:]
    open(doc, 'w').write(text)


if __name__ == '__main__':
    main()
