#!/usr/bin/env python3
"""tools/test_cost.py: what the test suite pays for OpenCL compiles, per test.

    tools/test_cost.py run [--cold] [--log FILE] [--top N] [-- TEST.SH ARGS...]
    tools/test_cost.py report LOG [--build DIR] [--top N]

`run` runs ./tools/test.sh (its arguments after `--`) with FIELDFUSE_BUILD_LOG set
(src/runtime/buildlog.h: one line per program build, slow kernel creation and slow
enqueue, tagged with the Criterion test that paid for it), then prints the report.
--cold points every OpenCL cache at an empty folder first (XDG_CACHE_HOME, which PoCL's
kernel cache and Mesa's shader cache live under, POCL_CACHE_DIR, MESA_SHADER_CACHE_DIR,
and fieldfuse's own test program cache build/test-cache): what a fresh machine pays.
Without it the caches are whatever this machine has (on a fresh machine: cold, and
warmed by the run for the next).

The report: per test (Criterion's suite/name; other tests by executable and parent),
its wall time (Criterion's XML, meson's log for the others), the seconds spent in driver
compiles, how many programs it built from source, how many distinct, and how many of
those another test had built before (the same options and source text, on the same
device): the builds a shared program cache would save. Then the totals and the programs
built most often. docs/reliability.md keeps the table.
"""
import argparse
import collections
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

Line = collections.namedtuple('Line', 'ms_at pid ppid exe parent tag device event key source_bytes ms name')


def read_log(path):
    out = []
    for raw in open(path, errors='replace'):
        f = raw.rstrip('\n').split('\t')
        if len(f) != 13 or f[0] != 'build':
            continue
        out.append(Line(int(f[1]), int(f[2]), int(f[3]), f[4], f[5], f[6], f[7], f[8], f[9], int(f[10]),
                        float(f[11]), f[12]))
    out.sort(key=lambda l: l.ms_at)
    return out


def who(line):
    """The test a line belongs to: the Criterion test, else the program and who ran it."""
    if line.tag != '-':
        return line.tag
    return '%s<%s' % (line.exe, line.parent)


def wall_times(build):
    """Criterion test times (suite/name -> s) and meson test durations (name -> s)."""
    tests = {}
    for path in glob.glob(os.path.join(build, 'meson-logs', 'criterion-*.xml')):
        text = open(path, errors='replace').read()
        for m in re.finditer(r'<testsuite name="([^"]+)"(.*?)</testsuite>', text, re.S):
            for t in re.finditer(r'<testcase name="([^"]+)"[^>]*time="([0-9.]+)"', m.group(2)):
                tests['%s/%s' % (m.group(1), t.group(1))] = float(t.group(2))
    suites = {}
    for path in glob.glob(os.path.join(build, 'meson-logs', 'testlog*.json')):
        for raw in open(path, errors='replace'):
            try:
                t = json.loads(raw)
            except ValueError:
                continue
            suites[t['name']] = max(suites.get(t['name'], 0.0), float(t.get('duration', 0.0)))
    return tests, suites


def report(log, build, top):
    lines = read_log(log)
    tests, suites = wall_times(build)
    per = collections.OrderedDict()
    first_builder = {}  # (device, key) -> who built it from source first
    built_count = collections.Counter()
    key_ms = collections.Counter()
    for l in lines:
        w = who(l)
        r = per.setdefault(w, {'compile_s': 0.0, 'builds': 0, 'distinct': set(), 'again': 0, 'again_s': 0.0,
                               'devices': set()})
        r['compile_s'] += l.ms / 1000.0
        if l.device != '-':
            r['devices'].add(l.device)
        if l.event not in ('source', 'binary'):
            continue
        k = (l.device, l.key)
        r['builds'] += 1
        r['distinct'].add(k)
        built_count[k] += 1
        key_ms[k] += l.ms / 1000.0
        if k in first_builder and first_builder[k] != w:
            r['again'] += 1
            r['again_s'] += l.ms / 1000.0
        first_builder.setdefault(k, w)

    rows = []
    for w, r in per.items():
        wall = tests.get(w)
        if wall is None:  # a non-Criterion test: meson's duration of the test its parent ran
            wall = suites.get(w.split('<')[-1])
        rows.append((r['compile_s'], w, wall, r))
    rows.sort(key=lambda x: -x[0])
    total_compile = sum(x[0] for x in rows)
    print('build-cost log %s: %d lines, %d tests that compiled' % (log, len(lines), len(rows)))
    print('%-58s %8s %9s %6s %8s %6s %8s  %s' % ('test', 'wall s', 'compile s', 'builds', 'distinct', 'again',
                                                  'again s', 'devices'))
    for compile_s, w, wall, r in rows[:top]:
        print('%-58s %8s %9.1f %6d %8d %6d %8.1f  %s' % (w[:58], '%.1f' % wall if wall is not None else '-',
                                                         compile_s, r['builds'], len(r['distinct']), r['again'],
                                                         r['again_s'], ','.join(sorted(r['devices']))))
    distinct = len(built_count)
    again = sum(r['again'] for _, _, _, r in rows)
    again_s = sum(r['again_s'] for _, _, _, r in rows)
    builds = sum(built_count.values())
    print('total: %.1f s of compiles; %d program builds, %d distinct programs; %d builds (%.1f s) of a program '
          'another test built before' % (total_compile, builds, distinct, again, again_s))
    by_event = collections.Counter()
    for l in lines:
        by_event[(l.device, l.event)] += l.ms / 1000.0
    print('by device and event: ' + ', '.join('%s %s %.1f s' % (d, e, s) for (d, e), s in sorted(by_event.items())))
    print('programs built most often (device, key, builds, seconds in all, first built by):')
    for k, n in built_count.most_common(8):
        if n < 2:
            break
        print('  %-8s %s %3d %8.1f  %s' % (k[0], k[1], n, key_ms[k], first_builder[k]))
    if suites:
        print('meson tests by duration (s):')
        for name, d in sorted(suites.items(), key=lambda x: -x[1])[:top]:
            print('  %8.1f  %s' % (d, name))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    sub = ap.add_subparsers(dest='cmd', required=True)
    run = sub.add_parser('run')
    run.add_argument('--cold', action='store_true')
    run.add_argument('--log', default=None)
    run.add_argument('--top', type=int, default=25)
    run.add_argument('rest', nargs=argparse.REMAINDER)
    rep = sub.add_parser('report')
    rep.add_argument('log')
    rep.add_argument('--build', default=os.environ.get('FIELDFUSE_BUILD_DIR', os.path.join(ROOT, 'build')))
    rep.add_argument('--top', type=int, default=25)
    a = ap.parse_args()
    if a.cmd == 'report':
        report(a.log, a.build, a.top)
        return 0
    build = os.environ.get('FIELDFUSE_BUILD_DIR', os.path.join(ROOT, 'build'))
    log = os.path.abspath(a.log or os.path.join(build, 'meson-logs', 'build-cost.tsv'))
    os.makedirs(os.path.dirname(log), exist_ok=True)
    if os.path.exists(log):
        os.unlink(log)
    env = dict(os.environ, FIELDFUSE_BUILD_LOG=log)
    if a.cold:
        cache = tempfile.mkdtemp(prefix='fieldfuse-cold-')
        env.update(XDG_CACHE_HOME=cache, POCL_CACHE_DIR=os.path.join(cache, 'pocl'),
                   MESA_SHADER_CACHE_DIR=os.path.join(cache, 'mesa'))
        subprocess.run(['rm', '-rf', os.path.join(build, 'test-cache')], check=True)
        print('test_cost: cold caches under %s' % cache, file=sys.stderr)
    rest = a.rest[1:] if a.rest[:1] == ['--'] else a.rest
    rc = subprocess.run([os.path.join(ROOT, 'tools', 'test.sh')] + rest, env=env).returncode
    report(log, build, a.top)
    return rc


if __name__ == '__main__':
    sys.exit(main())
