#!/usr/bin/env python3
"""Run ZKX's own test programs (tests/zkx/programs, from regen.py) through `fieldfuse run`.

usage: run_corpus.py --fieldfuse BUILD/tools/fieldfuse [--programs DIR] [--jobs N]
                     [--rusticl-every K] [--update] [NAME ...]

Every program in MANIFEST.tsv is run verbatim as
    fieldfuse run PROG.hlo --random 1 --check --device D --dialect zkx-2026.01
(the programs are ZKX text of 2026-01, where a plain field name means Montgomery form:
docs/hlo.md section 7; `auto` would read the ones without a `_std` type as canonical), and
checked against its manifest row:

* status `run`: exit 0 and "check: ok" (the device result equals the reference
  interpreter's) on PoCL, and on Rusticl for one `run` row in K of each element type,
  staggered across types (--rusticl-every, default RUSTICL_EVERY; 1 = all), BN254 G2's
  types left out but for their msm programs (RUSTICL_SKIP_TYPES says why). Every row on
  both would not fit ~90 s on 2 cores with cold caches: each Rusticl process spends ~0.5 s
  starting llvmpipe, and each new kernel is a Rusticl build on top of the PoCL one.
* status `unsupported: TEXT` / `rejected: TEXT`: exit 2 and a `FILE:LINE:COL: error: `
  line containing TEXT on stderr, on PoCL (the error comes from the parser, before any
  device work).
* expected `error` (ZKX's test expects its compiler to fail): exit 2 whatever the status;
  a `run` status on such a row is itself a failure.
* status `new` (regen.py added the row): a failure until a status is recorded.

Any mismatch fails the test naming the program. At the end it prints the counts: total,
parsed (`fieldfuse compile` exits 0), run + check on each device, unsupported by reason,
expected-error rows. --update runs every row on both devices and rewrites the status
column with what it saw (rows that neither pass nor fail cleanly are reported and left).
Each device run loads only that device's OpenCL ICD (OCL_ICD_VENDORS) where the vendor
files are in /etc/OpenCL/vendors, so a PoCL run does not also start llvmpipe.
"""

import argparse
import collections
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile
import time

RUSTICL_EVERY = 3
# element types whose rows Rusticl's share leaves out: BN254 G2's point kernels, which
# Rusticl builds with every Fq2 product inlined into every point addition (one G2 add
# program: 188 s of CPU). Their msm programs do run there, every one: since the msm's
# one-addition kernels (codegen/msm_one_add.c) one builds in about 45 s. Every row of these
# types runs on PoCL.
RUSTICL_SKIP_TYPES = {"bn254_g2_affine", "bn254_g2"}
# seconds a program may take: a cold BN254 G2 msm build (about a minute of PoCL CPU) took
# more than 240 s of wall time on the 2 shared cores under a load of 10
RUN_TIMEOUT = 480
DIALECT = "zkx-2026.01"
ICD_DIR = "/etc/OpenCL/vendors"
ICD = {"pocl": "pocl.icd", "rusticl": "rusticl.icd"}
ERROR_LINE = re.compile(r"^\S+\.hlo:\d+:\d+: error: (.*)$", re.M)


def read_manifest(path):
    head, rows = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or line.startswith("name\t"):
                head.append(line)
            elif line.strip():
                name, source, expected, status = line.rstrip("\n").split("\t")
                rows.append(dict(name=name, source=source, expected=expected, status=status))
    return head, rows


def device_env(dev):
    env = dict(os.environ)
    icd = os.path.join(ICD_DIR, ICD[dev])
    if "OCL_ICD_VENDORS" not in os.environ and os.path.isfile(icd):
        env["OCL_ICD_VENDORS"] = icd
    if dev == "rusticl":
        env.setdefault("RUSTICL_ENABLE", "llvmpipe")
    return env


# fft with a twiddles operand: ZKX's tests pass the powers of the root (ComputeTwiddles),
# which random inputs are not. Computed here with Python integers, independently of
# fieldfuse's fields/roots.c: modulus, generator (ZKX.md 4.8) and the Montgomery radix
# bits of the 2026-01 dialect's plain (Montgomery-form) storage.
FFT_FIELDS = {
    "babybear": (0x78000001, 31, 32),
    "koalabear": (0x7F000001, 3, 32),
    "goldilocks": (0xFFFFFFFF00000001, 7, 64),
    "bn254_sf": (0x30644E72E131A029B85045B68181585D2833E84879B9709143E1F593F0000001, 5, 256),
}
FFT_CALL = re.compile(r"= (\w+)\[(\d+)\] fft\(%\w+, %\w+\), fft_type=(I?FFT)")


def twiddle_inputs(prog, tmpdir):
    """['--input', '1=FILE'] holding ZKX's twiddle table for an fft(x, twiddles) program, else []."""
    with open(prog, encoding="utf-8") as f:
        m = FFT_CALL.search(f.read())
    if not m or m.group(1) not in FFT_FIELDS:
        return []
    p, g, rbits = FFT_FIELDS[m.group(1)]
    n = int(m.group(2))
    w = pow(g, (p - 1) // n, p)
    if m.group(3) == "IFFT":
        w = pow(w, p - 2, p)
    path = os.path.join(tmpdir, os.path.basename(prog) + ".twiddles.txt")
    with open(path, "w", encoding="utf-8") as f:
        for i in range(n):
            f.write(f"{pow(w, i, p) * pow(2, rbits, p) % p}\n")
    return ["--input", "1=" + path]


def run(ff, prog, dev):
    """Runs prog on dev with --check."""
    t = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        p = subprocess.run([ff, "run", prog, "--random", "1", "--dialect", DIALECT, "--check", "--device", dev]
                           + twiddle_inputs(prog, tmp), env=device_env(dev),
                           capture_output=True, text=True, timeout=RUN_TIMEOUT)
    return dict(dev=dev, rc=p.returncode, out=p.stdout, err=p.stderr, secs=time.monotonic() - t)


def parses(ff, prog):
    p = subprocess.run([ff, "compile", prog, "--dialect", DIALECT, "-o", os.devnull],
                       capture_output=True, text=True, timeout=60)
    return p.returncode == 0


def judge(row, r):
    """'' if the device run r matches the row, else what is wrong."""
    st, exp = row["status"], row["expected"]
    errors = ERROR_LINE.findall(r["err"])
    if exp == "error" and r["rc"] != 2:
        return f"ZKX expects an error, fieldfuse exited {r['rc']}"
    if st == "run":
        if exp == "error":
            return "status run on a row ZKX expects to fail"
        if r["rc"] != 0 or "check: ok" not in r["err"] + r["out"]:
            return f"expected exit 0 with check: ok, got exit {r['rc']}"
        return ""
    m = re.match(r"(unsupported|rejected): (.+)", st)
    if not m:
        return f"no status recorded ('{st}'): run run_corpus.py --update and review the row"
    if r["rc"] != 2:
        return f"expected exit 2 ({st}), got exit {r['rc']}"
    if not any(m.group(2) in e for e in errors):
        return f"expected a FILE:LINE:COL: error: containing '{m.group(2)}'"
    return ""


def observed_status(row, results):
    """The status --update records from a row's device runs, or None if they disagree/crash."""
    if all(r["rc"] == 0 and "check: ok" in r["err"] + r["out"] for r in results):
        return "run"
    msgs = {tuple(ERROR_LINE.findall(r["err"]))[:1] for r in results}
    if all(r["rc"] == 2 for r in results) and len(msgs) == 1 and msgs != {()}:
        msg = next(iter(msgs))[0]
        kind = "unsupported" if (row["expected"] != "error" or re.search(
            r"not supported|unsupported|unknown opcode", msg)) else "rejected"
        return f"{kind}: {msg}"
    return None


def tail(s, n=6):
    return "\n".join("      " + l for l in s.strip().splitlines()[-n:])


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fieldfuse", required=True)
    ap.add_argument("--programs", default=os.path.join(here, "programs"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--rusticl-every", type=int, default=RUSTICL_EVERY)
    ap.add_argument("--update", action="store_true")
    ap.add_argument("names", nargs="*", help="only these programs")
    a = ap.parse_args()
    start = time.monotonic()
    manifest = os.path.join(a.programs, "MANIFEST.tsv")
    head, rows = read_manifest(manifest)
    listed = {r["name"] for r in rows}
    on_disk = {f[:-4] for f in os.listdir(a.programs) if f.endswith(".hlo")}
    problems = [f"{n}: .hlo file not in MANIFEST.tsv" for n in sorted(on_disk - listed)]
    problems += [f"{n}: in MANIFEST.tsv, no .hlo file" for n in sorted(listed - on_disk)]
    sel = [r for r in rows if not a.names or r["name"] in a.names]
    if a.names and len(sel) != len(set(a.names)):
        sys.exit(f"run_corpus.py: unknown program(s): {sorted(set(a.names) - listed)}")

    # Rusticl's share of the run rows: every K-th row of each element type, the types
    # staggered (type number t starts at row t mod K), so each type, and within a suite
    # different tests for different types, run there.
    plan = []  # (row, device)
    per_type, type_no = collections.Counter(), {}
    for r in sel:
        if a.update:
            plan += [(r, "pocl"), (r, "rusticl")]
        elif r["status"] == "run":
            plan.append((r, "pocl"))
            t = r["name"].rsplit("__", 1)[-1]
            type_no.setdefault(t, len(type_no))
            if t not in RUSTICL_SKIP_TYPES and (per_type[t] + type_no[t]) % max(a.rusticl_every, 1) == 0:
                plan.append((r, "rusticl"))
            elif t in RUSTICL_SKIP_TYPES and "_msm__" in r["name"]:
                plan.append((r, "rusticl"))  # the msm programs build there: RUSTICL_SKIP_TYPES
            per_type[t] += 1
        else:
            plan.append((r, "pocl"))

    results = collections.defaultdict(list)
    parsed = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(a.jobs, 1)) as pool:
        futs = {pool.submit(run, a.fieldfuse, os.path.join(a.programs, r["name"] + ".hlo"), d): r["name"]
                for r, d in plan}
        pfuts = {pool.submit(parses, a.fieldfuse, os.path.join(a.programs, r["name"] + ".hlo")): r["name"]
                 for r in sel}
        for f, n in futs.items():
            results[n].append(f.result())
        for f, n in pfuts.items():
            parsed[n] = f.result()

    if a.update:
        changed = 0
        for r in sel:
            st = observed_status(r, results[r["name"]])
            if st is None:
                problems.append(f"{r['name']}: devices disagree or no clean result; left '{r['status']}'\n" +
                                "\n".join(f"    {x['dev']}: exit {x['rc']}\n{tail(x['err'])}" for x in results[r["name"]]))
            elif st != r["status"]:
                print(f"{r['name']}: {r['status']} -> {st}")
                r["status"], changed = st, changed + 1
        with open(manifest, "w", encoding="utf-8") as f:
            f.writelines(head)
            for r in rows:
                f.write(f"{r['name']}\t{r['source']}\t{r['expected']}\t{r['status']}\n")
        print(f"run_corpus.py --update: {changed} status(es) changed")

    for r in sel:
        for x in results[r["name"]]:
            why = judge(r, x)
            if why:
                problems.append(f"{r['name']} on {x['dev']}: {why}\n{tail(x['err'])}")

    # counts
    n_run = {d: sum(1 for r in sel for x in results[r["name"]] if x["dev"] == d and x["rc"] == 0
                    and "check: ok" in x["err"] + x["out"]) for d in ICD}
    run_rows = [r for r in sel if r["status"] == "run"]
    reasons = collections.Counter(r["status"] for r in sel if r["status"] != "run")
    experr = [r for r in sel if r["expected"] == "error"]
    print(f"ZKX corpus: {len(sel)} programs ({manifest})")
    print(f"  parse (fieldfuse compile exits 0): {sum(parsed.values())}")
    print(f"  status run: {len(run_rows)}; run + check ok on PoCL: {n_run['pocl']}, on Rusticl: {n_run['rusticl']}"
          + ("" if a.update or a.rusticl_every <= 1 else f" (1 in {a.rusticl_every} run rows of each type)"))
    print(f"  not run: {sum(reasons.values())}, by recorded reason:")
    for why, n in sorted(reasons.items(), key=lambda x: (-x[1], x[0])):
        print(f"    {n:4d}  {why}")
    print(f"  ZKX expects an error: {len(experr)} ({sum(1 for r in experr if all(x['rc'] == 2 for x in results[r['name']]))} exit 2)")
    times = sorted(((x["secs"], r["name"], x["dev"]) for r in sel for x in results[r["name"]]), reverse=True)
    print(f"  {len(plan)} fieldfuse runs, {a.jobs} at a time, {time.monotonic() - start:.1f} s wall; slowest: " +
          ", ".join(f"{n} on {d} {s:.1f} s" for s, n, d in times[:3]))
    if problems:
        print(f"\n{len(problems)} problem(s):")
        for p in problems:
            print("  " + p)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
