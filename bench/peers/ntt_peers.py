#!/usr/bin/env python3
"""
bench/peers/ntt_peers.py: the NTT next to two libraries a Python user can call, in one run
with `fieldfuse bench`. Not part of the build or of CI.

- arkworks (the Rust library; ark-poly's radix-2 FFT over the BLS12-381 scalar field) through
  the PyPI package ark-algebra-py: Polynomial(coeffs).evaluate_over_domain(Domain(n)) is a
  forward FFT of n coefficients. It returns a Python list of n Scalar objects, so the call
  includes building that list: the script times the call, and separately
  Polynomial.coefficients() on the same n (the same list of n Scalars out of Rust, no
  arithmetic), and reports compute = call - list as arkworks' FFT time. The conversion of
  the input (Python ints -> Scalar objects -> Polynomial) is timed on its own too.
- galois (NumPy + Numba): galois.ntt(x, modulus=p) over GF(BabyBear p), on a NumPy array
  (compute); the conversion of a Python list into that array and of the result back into a
  list (list) timed separately. The first call compiles galois' kernels; it is not timed.

fieldfuse: `fieldfuse bench ntt_bls12_381_sf ntt_babybear --k A..B --json FILE` (kernel
timing, fused mode and the C baseline), run by this script before the peers; the table gives
each peer's median over fieldfuse's fused median at the same k.

Same transform: before timing, a 2^check_k case (--check-k) is run through `fieldfuse run` on
a small fft program and through both peers on the same inputs, and all three are compared
with the O(n^2) DFT in Python integers (X_i = sum_j x_j w^(ij), w the peer's own root,
read off its transform of the unit vector e_1). The roots are printed with ZKX's, g^((p -
1) / n) with fields.def's generator; a peer whose root differs is compared with the DFT for
its root and the table says so.

Install (Debian 12, Python 3.11):
    python3 -m venv ~/.cache/fieldfuse-peers
    ~/.cache/fieldfuse-peers/bin/pip install ark-algebra-py galois
    ~/.cache/fieldfuse-peers/bin/python bench/peers/ntt_peers.py --k 16..20

Usage: ntt_peers.py [--k A..B] [--runs N] [--check-k K] [--fieldfuse PATH] [--device SEL]
                    [--json FILE]
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

BLS_P = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001
BLS_G = 7  # fields/fields.def: the generator ZKX's roots are powers of
BB_P = 0x78000001
BB_G = 31

INSTALL = """ntt_peers.py needs ark-algebra-py and galois (PyPI):
    python3 -m venv ~/.cache/fieldfuse-peers
    ~/.cache/fieldfuse-peers/bin/pip install ark-algebra-py galois
    ~/.cache/fieldfuse-peers/bin/python bench/peers/ntt_peers.py --k 16..20"""


def parse_k(text):
    a, _, b = text.partition("..")
    return int(a), int(b or a)


def median_ms(fn, runs):
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


# ---------------------------------------------------------------- the peers


def to_scalars(values):
    """Python ints (< p) as arkworks Scalars (Scalar(int) takes only a C long)"""
    from ark_algebra_py import Scalar

    return [Scalar.from_le_bytes(v.to_bytes(32, "little")) for v in values]


def ark_fft(values, n):
    """arkworks' forward FFT of values (ints < p) over a domain of n; returns ints."""
    from ark_algebra_py import Domain, Polynomial

    ev = Polynomial(to_scalars(values)).evaluate_over_domain(Domain(n))
    return [int.from_bytes(bytes(s.to_le_bytes()), "little") for s in ev]


def galois_ntt(values, p):
    import galois
    import numpy as np

    return [int(v) for v in galois.ntt(np.array(values, dtype=np.int64), modulus=p).tolist()]


def ark_times(k, runs):
    from ark_algebra_py import Domain, Polynomial

    n = 1 << k
    rng = random.Random(k)
    ints = [rng.randrange(BLS_P) for _ in range(n)]
    t0 = time.perf_counter()
    poly = Polynomial(to_scalars(ints))
    conv_in = (time.perf_counter() - t0) * 1e3
    dom = Domain(n)
    poly.evaluate_over_domain(dom)  # warm-up
    call = median_ms(lambda: poly.evaluate_over_domain(dom), runs)
    lst = median_ms(poly.coefficients, runs)
    return {"call_ms": call, "list_ms": lst, "compute_ms": call - lst, "in_ms": conv_in}


def galois_times(k, runs):
    import galois
    import numpy as np

    n = 1 << k
    rng = random.Random(k)
    ints = [rng.randrange(BB_P) for _ in range(n)]
    t0 = time.perf_counter()
    x = np.array(ints, dtype=np.int64)
    conv_in = (time.perf_counter() - t0) * 1e3
    galois.ntt(x, modulus=BB_P)  # warm-up (compiles at the first size)
    y = None

    def once():
        nonlocal y
        y = galois.ntt(x, modulus=BB_P)

    compute = median_ms(once, runs)
    t0 = time.perf_counter()
    y.tolist()
    conv_out = (time.perf_counter() - t0) * 1e3
    return {"compute_ms": compute, "list_ms": conv_in + conv_out}


# ---------------------------------------------------------------- the same transform?


def dft(x, w, p):
    n = len(x)
    return [sum(x[j] * pow(w, i * j, p) for j in range(n)) % p for i in range(n)]


def fieldfuse_fft(ff, device, field, p, x, tmp):
    n = len(x)
    prog = os.path.join(tmp, f"ntt_{field}.hlo")
    with open(prog, "w") as f:
        f.write(f"HloModule ntt_{field}\n\nENTRY %main (x: {field}[{n}]) -> {field}[{n}] {{\n"
                f"  %x = {field}[{n}] parameter(0)\n"
                f"  ROOT %y = {field}[{n}] fft(%x), fft_type=FFT, fft_length={n}\n}}\n")
    inp, out = os.path.join(tmp, f"in_{field}.txt"), os.path.join(tmp, f"out_{field}.txt")
    with open(inp, "w") as f:
        f.write("".join(f"{v}\n" for v in x))
    subprocess.run([ff, "run", prog, "--input", f"0={inp}", "-o", out, "--device", device],
                   check=True, stdout=subprocess.DEVNULL)
    with open(out) as f:
        vals = [int(line.split()[0], 0) for line in f if line.strip() and not line.startswith("#")]
    if len(vals) != n:
        sys.exit(f"ntt_peers: {out}: {len(vals)} values, expected {n}")
    return vals


def check(ff, device, k):
    """Runs the three on the same 2^k inputs; returns a note per peer for the table."""
    n = 1 << k
    notes = {}
    with tempfile.TemporaryDirectory() as tmp:
        for peer, field, p, g, run in (("arkworks", "bls12_381_sf", BLS_P, BLS_G, lambda x: ark_fft(x, n)),
                                       ("galois", "babybear", BB_P, BB_G, lambda x: galois_ntt(x, BB_P))):
            zkx_w = pow(g, (p - 1) // n, p)
            peer_w = run([0, 1] + [0] * (n - 2))[1]  # X_i = w^i for x = e_1
            rng = random.Random(1000 + k)
            x = [rng.randrange(p) for _ in range(n)]
            ours, theirs = fieldfuse_fft(ff, device, field, p, x, tmp), run(x)
            if ours != dft(x, zkx_w, p):
                sys.exit(f"ntt_peers: fieldfuse's {field} fft of 2^{k} differs from the DFT with ZKX's root")
            if theirs != dft(x, peer_w, p):
                sys.exit(f"ntt_peers: {peer}'s transform of 2^{k} is not the DFT with its root {peer_w:#x}")
            same = peer_w == zkx_w
            if same and theirs != ours:
                sys.exit(f"ntt_peers: {peer} and fieldfuse differ at 2^{k} with the same root")
            notes[peer] = "same root as ZKX, outputs equal" if same else f"own root {peer_w:#x} (checked with its DFT)"
            print(f"check 2^{k} {field}: ZKX's root {zkx_w:#x}, {peer}'s {peer_w:#x}: {notes[peer]}; "
                  f"fieldfuse = DFT, {peer} = DFT")
    return notes


# ---------------------------------------------------------------- fieldfuse bench


def fieldfuse_bench(ff, device, k0, k1, runs, tmp):
    path = os.path.join(tmp, "bench.json")
    cmd = [ff, "bench", "ntt_bls12_381_sf", "ntt_babybear", "--device", device, "--k", f"{k0}..{k1}",
           "--runs", str(runs), "--json", path]
    print("$", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(path) as f:
        rep = json.load(f)
    out = {}
    for r in rep["results"]:
        out[(r["workload"], r["k"], r["mode"])] = r["ms"]
    return out, rep["devices"][0]["name"] if rep["devices"] else "?"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--k", default="16..20")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--check-k", type=int, default=8)
    ap.add_argument("--fieldfuse", default=os.path.join(os.path.dirname(__file__), "../../build/tools/fieldfuse"))
    ap.add_argument("--device", default="pocl")
    ap.add_argument("--json", help="write the table's numbers here")
    a = ap.parse_args()
    try:
        import ark_algebra_py  # noqa: F401
        import galois  # noqa: F401
    except ImportError as exc:
        print(f"ntt_peers: {exc}\n{INSTALL}", file=sys.stderr)
        return 2
    k0, k1 = parse_k(a.k)
    notes = check(a.fieldfuse, a.device, a.check_k)
    with tempfile.TemporaryDirectory() as tmp:
        ff, dev = fieldfuse_bench(a.fieldfuse, a.device, k0, k1, a.runs, tmp)
    rows = []
    for k in range(k0, k1 + 1):
        print(f"peers 2^{k} ...", file=sys.stderr, flush=True)
        rows.append({"k": k, "ark": ark_times(k, a.runs), "galois": galois_times(k, a.runs),
                     "ff_bls": ff.get(("ntt_bls12_381_sf", k, "fused")),
                     "ff_bls_c": ff.get(("ntt_bls12_381_sf", k, "c_baseline")),
                     "ff_bb": ff.get(("ntt_babybear", k, "fused")),
                     "ff_bb_c": ff.get(("ntt_babybear", k, "c_baseline"))})

    def f(v):
        return f"{v:.3f}" if v is not None else "-"

    def ratio(a_, b_):
        return f"{a_ / b_:.2f}x" if a_ is not None and b_ else "-"

    print(f"\nNTT, one forward transform of 2^k elements, medians of {a.runs} runs (ms); fieldfuse: {dev}")
    print(f"arkworks: {notes['arkworks']}; galois: {notes['galois']}")
    def head(*cols):
        return " k" + "".join(f"{c:>13}" for c in cols)

    print("BLS12-381 Fr: arkworks (compute = call - list), fieldfuse fused and c_baseline")
    print(head("compute", "call", "list", "ints->Poly", "fused", "c_base", "ark/fused"))
    for r in rows:
        ak = r["ark"]
        print(f"{r['k']:2d}" + "".join(f"{f(v):>13}" for v in (ak["compute_ms"], ak["call_ms"], ak["list_ms"],
                                                              ak["in_ms"], r["ff_bls"], r["ff_bls_c"]))
              + f"{ratio(ak['compute_ms'], r['ff_bls']):>13}")
    print("BabyBear: galois.ntt (compute; list <-> NumPy apart), fieldfuse fused and c_baseline")
    print(head("compute", "list", "fused", "c_base", "galois/fused"))
    for r in rows:
        g = r["galois"]
        print(f"{r['k']:2d}" + "".join(f"{f(v):>13}" for v in (g["compute_ms"], g["list_ms"], r["ff_bb"], r["ff_bb_c"]))
              + f"{ratio(g['compute_ms'], r['ff_bb']):>13}")
    if a.json:
        with open(a.json, "w") as fp:
            json.dump({"device": dev, "runs": a.runs, "notes": notes, "rows": rows}, fp, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
