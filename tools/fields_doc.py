#!/usr/bin/env python3
"""Regenerates the field table of docs/fields.md from fields/fields.def.

usage: tools/fields_doc.py [docs/fields.md]
Rewrites the text between the '<!-- fields.def table -->' markers; the rest of the page is
prose kept by hand. Derived columns (-p^-1 mod 2^32, R^2) are computed here the same way
fields/field.c derives them, so the page shows what the code uses.
"""
import re
import sys

ROW = re.compile(r'FFU_FIELD\(\s*(\w+),\s*(\w+),\s*(\d+),\s*(\d+),\s*"([0-9a-f]+)",\s*(\d+),\s*(\d+),'
                 r'\s*(\d+),\s*(\d+),\s*(\w+)\)', re.S)


def rows(path):
    text = open(path).read()
    text = re.sub(r'/\*.*?\*/', '', text, flags=re.S)
    for m in ROW.finditer(text):
        ident, name, bits, sbytes, mod, gen, two, devr, montr, tmpl = m.groups()
        yield dict(name=name, bits=int(bits), sbytes=int(sbytes), p=int(mod, 16), gen=int(gen),
                   two=int(two), devr=int(devr), montr=int(montr), tmpl=tmpl)


def table(path):
    out = ['| type | p | bits | storage | generator | 2-adicity | device template | device R | `_mont` R | -p^-1 mod 2^32 |',
           '|---|---|---|---|---|---|---|---|---|---|']
    for r in rows(path):
        p = r['p']
        pinv = (-pow(p, -1, 2**32)) % 2**32
        dev = '2^%d' % r['devr'] if r['devr'] else '1 (canonical)'
        out.append('| `%s` | 0x%x | %d | %d B | %d | %d | `cl/%s.cl` | %s | 2^%d | 0x%08x |' % (
            r['name'], p, r['bits'], r['sbytes'], r['gen'], r['two'], r['tmpl'], dev, r['montr'], pinv))
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
