#!/usr/bin/env python3
"""
bench/peers/msm_peers.py: the BN254 G1 MSM next to libraries a Python user can call, in one
run with `fieldfuse bench msm_bn254_g1`, on the same inputs. Not part of the build or of CI.

fieldfuse: `fieldfuse bench msm_bn254_g1 --k A..B --save-values DIR --json FILE` runs first;
--save-values writes each size's inputs (scalars in0.bin, affine bases in1.bin, canonical
little-endian, 32 bytes a coordinate, infinity (0, 0)) and its result (out0.bin, the affine
sum). bench times the fused mode on --device and the c_baseline (bench/baseline_msm.c,
OpenMP, all cores), each checked against the fused result by bench itself; --baseline-only
times the c_baseline alone, without a device.

Peers, each on the inputs bench saved:
- mcl (the `mclbn256` wheel): the wheel's Python class has no mulVec, but its bundled shared
  library exports mclBnG1_mulVec, called here through ctypes after mclBn_init(MCL_BN_SNARK1)
  (the wheel initialises mcl's other BN254, CurveFp254BNb; SNARK1 is the curve ZKX uses,
  p = 0x30644e72...fd47). One thread. Timed: the mulVec call alone; the conversion of the
  inputs into mcl's structures is timed apart ("in").
- arkworks (the `ark-algebra-py` wheel): its G1 is BLS12-381's (48-byte compressed points)
  and it exposes no other curve, so it cannot run this workload; the script says so.
- blst: no wheel on PyPI (pip finds no version) and its Python binding needs SWIG and a
  build from source; not run.
- py_ecc (bn128): a correctness oracle only, at --oracle-n points (a prefix of the 2^k
  inputs): mcl's result there must equal the plain sum of py_ecc multiplications.

Checks (exit 1 on any difference): at every k bench ran, mcl's mulVec over all 2^k inputs
must equal bench's result byte for byte; at the smallest k, mcl over the first --oracle-n
points must equal py_ecc's sum. The table gives medians of --runs repetitions and the
ratios peer / c_baseline and peer / fused, measured in the same run.

Install (Debian 12, Python 3.11; bench/peers/.venv is gitignored):
    python3 -m venv bench/peers/.venv
    bench/peers/.venv/bin/pip install mclbn256 py_ecc ark-algebra-py
    bench/peers/.venv/bin/python bench/peers/msm_peers.py --k 16..16

Usage: msm_peers.py [--k A..B] [--peer-k K,...] [--runs N] [--oracle-n N] [--baseline-only]
                    [--device SEL] [--fieldfuse PATH] [--json FILE]
"""
import argparse
import ctypes
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

FQ = 0x30644E72E131A029B85045B68181585D97816A916871CA8D3C208C16D87CFD47
MCL_BN_SNARK1 = 4

INSTALL = """msm_peers.py needs mclbn256 and py_ecc (PyPI):
    python3 -m venv bench/peers/.venv
    bench/peers/.venv/bin/pip install mclbn256 py_ecc ark-algebra-py"""


def parse_k(text):
    a, _, b = text.partition("..")
    return int(a), int(b or a)


def read_bin(path, size):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) % size:
        sys.exit(f"msm_peers: {path}: {len(data)} bytes, not a multiple of {size}")
    return [data[i:i + size] for i in range(0, len(data), size)]


def le(b):
    return int.from_bytes(b, "little")


def point_ints(p64):
    """(x, y) of a 64-byte affine point; None for infinity (0, 0)"""
    x, y = le(p64[:32]), le(p64[32:])
    return None if x == 0 and y == 0 else (x, y)


# ---------------------------------------------------------------- mcl


class Mcl:
    """mcl's C API from the mclbn256 wheel's bundled library, on BN_SNARK1"""

    FP = 4 * 8  # MCLBN_FP_UNIT_SIZE = 4 limbs

    def __init__(self):
        import mclbn256

        self.lib = mclbn256.mclbn256.lib
        if self.lib.mclBn_init(MCL_BN_SNARK1, mclbn256.mclbn256.MCLBN_COMPILED_TIME_VAR) != 0:
            sys.exit("msm_peers: mclBn_init(MCL_BN_SNARK1) failed")
        self.G1 = ctypes.c_ubyte * (3 * self.FP)
        self.Fr = ctypes.c_ubyte * 32

    def load(self, scalars, bases):
        """the inputs as mcl arrays (affine points set from their decimal text)"""
        n = len(scalars)
        xs, ys = (self.G1 * n)(), (self.Fr * n)()
        for i in range(n):
            p = point_ints(bases[i])
            text = b"0" if p is None else f"1 {p[0]} {p[1]}".encode()
            if self.lib.mclBnG1_setStr(ctypes.byref(xs[i]), text, len(text), 10) != 0:
                sys.exit(f"msm_peers: mcl rejects point {i}: {text[:80]!r}")
            if self.lib.mclBnFr_setLittleEndian(ctypes.byref(ys[i]), scalars[i], 32) != 0:
                sys.exit(f"msm_peers: mcl rejects scalar {i}")
        return xs, ys, n

    def msm(self, loaded):
        xs, ys, n = loaded
        z = self.G1()
        self.lib.mclBnG1_mulVec(ctypes.byref(z), xs, ys, ctypes.c_size_t(n))
        return z

    def affine_bytes(self, z):
        """the result as fieldfuse writes it: x, y canonical little-endian; infinity (0, 0)"""
        buf = ctypes.create_string_buffer(1024)
        n = self.lib.mclBnG1_getStr(buf, len(buf), ctypes.byref(z), 10)
        parts = buf.value[:n].split()
        if parts == [b"0"]:
            return bytes(64)
        if len(parts) != 3 or parts[0] != b"1":
            sys.exit(f"msm_peers: mcl's result text {buf.value[:n]!r}")
        return int(parts[1]).to_bytes(32, "little") + int(parts[2]).to_bytes(32, "little")


# ---------------------------------------------------------------- py_ecc (oracle)


def py_ecc_sum(scalars, bases):
    from py_ecc.bn128 import FQ as PFQ, add, multiply

    acc = None
    for s, b in zip(scalars, bases):
        p = point_ints(b)
        if p is None or le(s) == 0:
            continue
        acc = add(acc, multiply((PFQ(p[0]), PFQ(p[1])), le(s)))
    if acc is None:
        return bytes(64)
    return int(acc[0]).to_bytes(32, "little") + int(acc[1]).to_bytes(32, "little")


def ark_note():
    try:
        from ark_algebra_py import G1
    except ImportError:
        return "ark-algebra-py not installed"
    size = len(bytes(G1().to_compressed_bytes()))
    curve = "BLS12-381" if size == 48 else f"a curve with {size}-byte compressed points"
    return f"not run: ark-algebra-py's G1 is {curve}, and it exposes no BN254"


# ---------------------------------------------------------------- fieldfuse bench


def fieldfuse_bench(a, k0, k1, tmp):
    path = os.path.join(tmp, "bench.json")
    cmd = [a.fieldfuse, "bench", "msm_bn254_g1", "--k", f"{k0}..{k1}", "--runs", str(a.runs),
           "--save-values", tmp, "--json", path]
    cmd += ["--baseline-only"] if a.baseline_only else ["--device", a.device]
    print("$", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(path) as f:
        rep = json.load(f)
    out = {(r["k"], r["mode"]): r["ms"] for r in rep["results"] if r["workload"] == "msm_bn254_g1"}
    return out, rep["devices"][0]["name"] if rep["devices"] else "?"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--k", default="16..16", help="sizes bench runs (every one is checked against mcl)")
    ap.add_argument("--peer-k", help="sizes the peers are timed at (default: all of --k)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--oracle-n", type=int, default=32)
    ap.add_argument("--baseline-only", action="store_true", help="time the c_baseline alone, no OpenCL device")
    ap.add_argument("--device", default="pocl")
    ap.add_argument("--fieldfuse", default=os.path.join(os.path.dirname(__file__), "../../build/tools/fieldfuse"))
    ap.add_argument("--json", help="write the table's numbers here")
    a = ap.parse_args()
    try:
        import mclbn256  # noqa: F401
        import py_ecc  # noqa: F401
    except ImportError as exc:
        print(f"msm_peers: {exc}\n{INSTALL}", file=sys.stderr)
        return 2
    k0, k1 = parse_k(a.k)
    peer_ks = [int(x) for x in a.peer_k.split(",")] if a.peer_k else list(range(k0, k1 + 1))
    mcl = Mcl()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        ff, dev = fieldfuse_bench(a, k0, k1, tmp)
        for k in range(k0, k1 + 1):
            stem = os.path.join(tmp, f"msm_bn254_g1.k{k}")
            scalars, bases = read_bin(stem + ".in0.bin", 32), read_bin(stem + ".in1.bin", 64)
            want = read_bin(stem + ".out0.bin", 64)[0]
            if k == k0:  # the oracle: mcl = py_ecc on a prefix
                m = min(a.oracle_n, len(scalars))
                got = mcl.affine_bytes(mcl.msm(mcl.load(scalars[:m], bases[:m])))
                if got != py_ecc_sum(scalars[:m], bases[:m]):
                    sys.exit(f"msm_peers: mcl and py_ecc differ on the first {m} points of 2^{k}")
                print(f"check: mcl = py_ecc on the first {m} points of 2^{k}")
            print(f"peers 2^{k} ...", file=sys.stderr, flush=True)
            t0 = time.perf_counter()
            loaded = mcl.load(scalars, bases)
            conv = (time.perf_counter() - t0) * 1e3
            got = mcl.affine_bytes(mcl.msm(loaded))
            if got != want:
                sys.exit(f"msm_peers: mcl's mulVec and fieldfuse bench differ at 2^{k}:\n"
                         f"  mcl       {point_ints(got)}\n  fieldfuse {point_ints(want)}")
            print(f"check 2^{k}: mcl's mulVec = fieldfuse bench's result")
            row = {"k": k, "c_baseline_ms": ff.get((k, "c_baseline")), "fused_ms": ff.get((k, "fused")),
                   "mcl_ms": None, "mcl_in_ms": conv}
            if k in peer_ks:
                times = []
                for _ in range(a.runs):
                    t0 = time.perf_counter()
                    mcl.msm(loaded)
                    times.append((time.perf_counter() - t0) * 1e3)
                row["mcl_ms"] = statistics.median(times)
            rows.append(row)

    def f(v):
        return f"{v:.1f}" if v is not None else "-"

    def ratio(x, y):
        return f"{x / y:.2f}x" if x is not None and y else "-"

    ncpu = os.cpu_count()
    print(f"\nMSM over BN254 G1, 2^k points, medians of {a.runs} runs (ms); fieldfuse: {dev}")
    if a.baseline_only:
        print("fieldfuse: c_baseline only (--baseline-only): no device")
    print(f"c_baseline: OpenMP, {ncpu} CPUs; mcl mulVec: one thread; arkworks: {ark_note()}; "
          "blst: not run (no wheel)")
    cols = ["c_base", "fused", "mcl", "mcl in", "mcl/c_base", "mcl/fused", "Mpts/s c_base"]
    print(" k" + "".join(f"{c:>14}" for c in cols))
    for r in rows:
        cb, fu, mc = r["c_baseline_ms"], r["fused_ms"], r["mcl_ms"]
        mpts = f"{(1 << r['k']) / (cb * 1e3):.3f}" if cb else "-"
        print(f"{r['k']:2d}" + "".join(f"{v:>14}" for v in (f(cb), f(fu), f(mc), f(r["mcl_in_ms"]), ratio(mc, cb),
                                                          ratio(mc, fu), mpts)))
    if a.json:
        with open(a.json, "w") as fp:
            json.dump({"device": dev, "runs": a.runs, "baseline_only": a.baseline_only, "arkworks": ark_note(),
                       "rows": rows}, fp, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
