#!/usr/bin/env python3
"""Says where two code-generator snapshots (tools/codegen_snapshot.sh) differ.

usage: tools/codegen_snapshot_diff.py BEFORE/cl AFTER/cl

For a change to the field templates, where `diff -r` lists every program: the files that
are identical; those that differ only in text the C preprocessor drops (cpp -P: comments,
dead #if branches); and for the rest, whether the code after the field code (kernels,
helpers: everything after the last #undef of a field macro) is identical, and which
templates' field sections differ after preprocessing (a section runs from
src/codegen/field_cl.c's '/* field NAME: cl/TEMPLATE.cl */' line to the next; sections are
paired by field, so a renamed template still pairs). Compare snapshots of the same
programs: run the second build over the first snapshot's programs/ folder when the change
adds types (the soak generator's programs change with the type table). Exit status 0: it
reports, it does not judge.
"""
import collections
import os
import re
import subprocess
import sys

FIELD_UNDEF = re.compile(r'^#undef (FP|FB|FX_|FFU_VW|FFU_W64)', re.M)


def template(marker):
    m = re.search(r'cl/(\w+)\.cl', marker)
    return m.group(1) if m else marker


def preprocessed(text):
    return subprocess.run(['cpp', '-P', '-w'], input=text, capture_output=True, text=True, check=False).stdout


def sections(text):
    """({field: (template, its text)}, the code after the field code)"""
    last = None
    for last in FIELD_UNDEF.finditer(text):
        pass
    cut = text.index('\n', last.end()) + 1 if last else 0
    parts = re.split(r'(?m)^(?=/\* field )', text[:cut])
    secs = {'(common)': ('common', parts[0])}
    for p in parts[1:]:
        first = p.split('\n', 1)[0]
        key = first.split(':')[0]
        secs[key] = (template(first), secs.get(key, ('', ''))[1] + p)
    return secs, text[cut:]


def main():
    before, after = sys.argv[1], sys.argv[2]
    same = pp_same = 0
    rest_differs, by_templates = [], collections.Counter()
    for f in sorted(os.listdir(before)):
        pa, pb = os.path.join(before, f), os.path.join(after, f)
        if not os.path.exists(pb):
            print('only in %s: %s' % (before, f))
            continue
        ta, tb = open(pa).read(), open(pb).read()
        if ta == tb:
            same += 1
            continue
        if preprocessed(ta) == preprocessed(tb):
            pp_same += 1
            continue
        (sa, ra), (sb, rb) = sections(ta), sections(tb)
        if ra != rb:
            rest_differs.append(f)
        changed = sorted({(sb.get(k) or sa.get(k))[0] for k in set(sa) | set(sb)
                          if preprocessed((sa.get(k) or ('', ''))[1]) != preprocessed((sb.get(k) or ('', ''))[1])})
        by_templates[', '.join(changed)] += 1
    print('%d files identical; %d differ only in what the preprocessor drops' % (same, pp_same))
    for t, n in sorted(by_templates.items()):
        print('%d files differ after preprocessing, in the field sections of: %s' % (n, t or '(none)'))
    print('%d files differ outside the field code' % len(rest_differs))
    for f in rest_differs[:20]:
        print('  %s' % f)


if __name__ == '__main__':
    main()
