#!/usr/bin/env python3
"""
bench/peers/msm_peers.py: an MSM of `fieldfuse bench` next to libraries a Python user can
call, in one run, on the same inputs. Not part of the build or of CI. --workload picks the
curve: msm_bn254_g1 (default), msm_bn254_g2, msm_bls12_381_g1 or msm_bls12_381_g2; WORKLOADS
below holds one row per workload (coordinate size, peers, oracle, the peers that cannot run
it and why).

fieldfuse: `fieldfuse bench WORKLOAD --k A..B --save-values DIR --json FILE` runs first;
--save-values writes each size's inputs (scalars in0.bin, 32 bytes each; affine bases in1.bin,
x then y, canonical little-endian, 32 (BN254) or 48 (BLS12-381) bytes a coordinate, twice
that over Fq2 (G2: c0 then c1), infinity all zero) and its result (out0.bin, the affine sum,
same form). bench times the fused mode on
--device and, for workloads that have one, the c_baseline (bench/baseline_msm.c, OpenMP, all
cores), checked against the fused result by bench itself; --baseline-only times the
c_baseline alone, without a device (BN254 only: msm_bls12_381_g1 has no c_baseline yet).

Peers, each on the inputs bench saved, each timed on its msm call alone (median of --runs;
column "cpu": the median CPU time of this process over the same calls, all threads, which a
shared host's contention stretches far less than the wall time); converting bench's inputs
into the peer's objects is timed apart (column "in", wall time, once):
- mcl (the `mclbn256` wheel), BN254: the wheel's Python class has no mulVec, but its bundled
  shared library exports mclBnG1_mulVec, called through ctypes after mclBn_init(MCL_BN_SNARK1)
  (the wheel initialises mcl's other BN254, CurveFp254BNb; SNARK1 is the curve ZKX uses,
  p = 0x30644e72...fd47). For msm_bn254_g2, mclBnG2_mulVec the same way (G2 points set
  from "1 x.a x.b y.a y.b", Fp2 = a + b u, which is ZKX's Fq2 = Fq[u]/(u^2 + 1)). One thread. Not for BLS12-381: the wheel is built with 4-limb
  (256-bit) fields, and mclBn_init(MCL_BLS12_381, ...) returns -1.
- arkworks (the `ark-algebra-py` wheel, 0.2.1), BLS12-381: G1.msm(points, scalars) over
  lists of G1 and Scalar objects. Its points load only from the 48-byte compressed form
  (G1.from_compressed_bytes, which checks the curve and the subgroup), so the script
  compresses bench's points itself (ZCash/IETF encoding: big-endian x, top bits 0x80
  compressed, 0x40 infinity, 0x20 y is the larger of y and p - y), and decompresses the
  result (y = sqrt(x^3 + 4), p = 3 mod 4). Scalars load by Scalar.from_le_bytes. Threads:
  Rust rayon's global pool, which takes RAYON_NUM_THREADS or every CPU; the script counts the
  threads the pool added to this process (/proc/self/task) and prints them; --ark-threads N
  sets RAYON_NUM_THREADS before the first msm. Its G1 is BLS12-381's only (no BN254). For
  msm_bls12_381_g2, G2.msm the same way: G2 points compress to 96 bytes (x.c1 then x.c0;
  the 0x20 flag: y is the larger of y and -y comparing c1 first, c0 where c1 = 0), and the
  result decompresses with a square root in Fq2 (p = 3 mod 4; Adj and Rodriguez-Henriquez,
  algorithm 9).
- blst, BLS12-381: PyPI has no `blst` or `py-blst` distribution (pip index versions: no
  matching distribution). `pyblst` 0.3.15 (Rust bindings) exposes only single-point
  scalar_mul, compress and uncompress, no MSM. Chia's `blspy` 2.0.3 wheel bundles blst and
  its shared library exports the C API, blst_p1s_mult_pippenger included: the script loads
  that library with ctypes (as for mcl) and calls blst_p1_deserialize (96-byte uncompressed,
  big-endian), blst_p1s_mult_pippenger (one pointer per point and per 32-byte little-endian
  scalar, 255 bits, scratch of blst_p1s_mult_pippenger_scratch_sizeof bytes) and
  blst_p1_serialize; for msm_bls12_381_g2 the blst_p2 functions (192-byte uncompressed
  points, each coordinate c1 then c0). blst's C pippenger is single-threaded (the library has no thread
  calls; threading is in its Rust binding): one thread. blst has no BN254. Caveat found
  while writing this script: this blst, for at most 64 points, takes a precomputed-window
  path that reads an infinity input (all-zero affine) as the finite point (0, 0, 1), so its
  sum is wrong there (n = 2..64 with one infinity base: wrong against py_ecc; n = 65, 100:
  right). bench's bases are (a + i d) G, with no infinity, so the checks below do not meet it.
- py_ecc (optimized_bn128, optimized_bls12_381) is the correctness oracle, at --oracle-n
  points (a prefix of the smallest 2^k inputs): each peer's result there must equal the
  plain sum of py_ecc multiplications.

Checks (exit 1 on any difference): at every k bench ran, each peer's msm over all 2^k inputs
must equal bench's result byte for byte; at the smallest k, each peer over the first
--oracle-n points must equal py_ecc's sum. The table gives medians of --runs repetitions and
the ratios peer / c_baseline and peer / fused, measured in the same run.

Install (Debian 12, Python 3.11; bench/peers/.venv is gitignored):
    python3 -m venv bench/peers/.venv
    bench/peers/.venv/bin/pip install mclbn256 py_ecc ark-algebra-py blspy
    bench/peers/.venv/bin/python bench/peers/msm_peers.py --k 16..16
    bench/peers/.venv/bin/python bench/peers/msm_peers.py --workload msm_bls12_381_g1 --k 16..16
    bench/peers/.venv/bin/python bench/peers/msm_peers.py --workload msm_bls12_381_g2 --k 16..16
    (ulimit -s unlimited; bench/peers/.venv/bin/python bench/peers/msm_peers.py --k 10..20)
The last form for 2^18 points and more: mcl's mulVec died with SIGSEGV there under the
default 8 MiB stack and ran with an unlimited one.

Usage: msm_peers.py [--workload W] [--k A..B] [--peer-k K,...] [--runs N] [--oracle-n N]
                    [--ark-threads N] [--baseline-only] [--device SEL] [--fieldfuse PATH]
                    [--json FILE]
"""
import argparse
import collections
import ctypes
import importlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

BN254_P = 0x30644E72E131A029B85045B68181585D97816A916871CA8D3C208C16D87CFD47
BLS12_381_P = int("1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab", 16)
MCL_BN_SNARK1 = 4
SCALAR_BYTES = 32

INSTALL = """msm_peers.py needs the peers' wheels (PyPI):
    python3 -m venv bench/peers/.venv
    bench/peers/.venv/bin/pip install mclbn256 py_ecc ark-algebra-py blspy"""


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


def point_ints(p, deg=1):
    """(x, y) of an affine point as bench writes it (x then y, little-endian); None for the
    all-zero infinity. deg 2 (a G2 point over Fq2 = Fq[u]/(u^2 + 1)): each coordinate is
    the pair (c0, c1), c0 + c1 u, c0 first in bench's bytes"""
    if not any(p):
        return None
    cb = len(p) // 2
    if deg == 1:
        return le(p[:cb]), le(p[cb:])
    h = cb // 2
    return (le(p[:h]), le(p[h:cb])), (le(p[cb:cb + h]), le(p[cb + h:]))


def affine_le(xy, cb, deg=1):
    """(x, y) or None (infinity) in bench's form"""
    if xy is None:
        return bytes(2 * cb)
    if deg == 1:
        return xy[0].to_bytes(cb, "little") + xy[1].to_bytes(cb, "little")
    return b"".join(c.to_bytes(cb // 2, "little") for coord in xy for c in coord)


def process_threads():
    """this process's threads (Linux); None elsewhere"""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return None


# ---------------------------------------------------------------- ZCash/IETF point bytes

FLAG_COMPRESSED, FLAG_INFINITY, FLAG_LARGEST = 0x80, 0x40, 0x20


def bls_compress(xy):
    """48-byte compressed BLS12-381 G1 point: big-endian x, flags in the top byte's 3 bits"""
    if xy is None:
        return bytes([FLAG_COMPRESSED | FLAG_INFINITY]) + bytes(47)
    x, y = xy
    b = bytearray(x.to_bytes(48, "big"))
    b[0] |= FLAG_COMPRESSED | (FLAG_LARGEST if y > BLS12_381_P - y else 0)
    return bytes(b)


def bls_decompress(b):
    """(x, y) or None from 48 compressed bytes; y from the curve y^2 = x^3 + 4"""
    if len(b) != 48 or not b[0] & FLAG_COMPRESSED:
        sys.exit(f"msm_peers: not a compressed BLS12-381 G1 point: {b.hex()}")
    if b[0] & FLAG_INFINITY:
        return None
    p = BLS12_381_P
    x = int.from_bytes(bytes([b[0] & 0x1F]) + b[1:], "big")
    rhs = (x * x * x + 4) % p
    y = pow(rhs, (p + 1) // 4, p)  # p = 3 mod 4
    if y * y % p != rhs:
        sys.exit(f"msm_peers: compressed x {x:#x} is not on BLS12-381 G1")
    if (y > p - y) != bool(b[0] & FLAG_LARGEST):
        y = p - y
    return x, y


def bls_serialize(xy, deg=1):
    """uncompressed BLS12-381 point: big-endian coordinates, x then y; infinity is the flag
    0x40. G2 (deg 2, 192 bytes): each coordinate c0 + c1 u as c1 then c0"""
    if xy is None:
        return bytes([FLAG_INFINITY]) + bytes(96 * deg - 1)
    return b"".join(c.to_bytes(48, "big") for c in fq2_words(xy, deg))


def bls_deserialize(b, deg=1):
    if b[0] & FLAG_INFINITY:
        return None
    w = [int.from_bytes(b[i:i + 48], "big") for i in range(0, 96 * deg, 48)]
    w[0] &= (1 << 381) - 1
    return (w[0], w[1]) if deg == 1 else ((w[1], w[0]), (w[3], w[2]))


def fq2_words(xy, deg):
    """the coordinates' numbers in ZCash order: x, y (G1); x.c1, x.c0, y.c1, y.c0 (G2)"""
    return xy if deg == 1 else (xy[0][1], xy[0][0], xy[1][1], xy[1][0])


# Fq2 = Fq[u]/(u^2 + 1) over BLS12-381's p, for G2's compressed form: (c0, c1) pairs


def fq2_mul(a, b):
    p = BLS12_381_P
    return (a[0] * b[0] - a[1] * b[1]) % p, (a[0] * b[1] + a[1] * b[0]) % p


def fq2_pow(a, e):
    r = (1, 0)
    while e:
        if e & 1:
            r = fq2_mul(r, a)
        a, e = fq2_mul(a, a), e >> 1
    return r


def fq2_sqrt(a):
    """a square root in Fq2 (p = 3 mod 4: Adj and Rodriguez-Henriquez, algorithm 9), or None"""
    p = BLS12_381_P
    a1 = fq2_pow(a, (p - 3) // 4)
    alpha = fq2_mul(fq2_mul(a1, a1), a)
    x0 = fq2_mul(a1, a)
    if alpha == (p - 1, 0):
        x = fq2_mul((0, 1), x0)
    else:
        x = fq2_mul(fq2_pow(((1 + alpha[0]) % p, alpha[1]), (p - 1) // 2), x0)
    return x if fq2_mul(x, x) == (a[0] % p, a[1] % p) else None


def fq2_largest(y):
    """ZCash's sign bit of a G2 y: y > -y comparing c1 first, c0 where c1 = 0"""
    p = BLS12_381_P
    return y[1] > p - y[1] if y[1] else y[0] > p - y[0]


def bls_compress_g2(xy):
    """96-byte compressed BLS12-381 G2 point: x.c1 then x.c0 big-endian, flags as G1's"""
    if xy is None:
        return bytes([FLAG_COMPRESSED | FLAG_INFINITY]) + bytes(95)
    (x0, x1), y = xy
    b = bytearray(x1.to_bytes(48, "big") + x0.to_bytes(48, "big"))
    b[0] |= FLAG_COMPRESSED | (FLAG_LARGEST if fq2_largest(y) else 0)
    return bytes(b)


def bls_decompress_g2(b):
    """((x0, x1), (y0, y1)) or None from 96 compressed bytes; y from y^2 = x^3 + 4(1 + u)"""
    if len(b) != 96 or not b[0] & FLAG_COMPRESSED:
        sys.exit(f"msm_peers: not a compressed BLS12-381 G2 point: {b.hex()}")
    if b[0] & FLAG_INFINITY:
        return None
    p = BLS12_381_P
    x = (int.from_bytes(b[48:], "big"), int.from_bytes(bytes([b[0] & 0x1F]) + b[1:48], "big"))
    x3 = fq2_mul(fq2_mul(x, x), x)
    y = fq2_sqrt(((x3[0] + 4) % p, (x3[1] + 4) % p))
    if y is None:
        sys.exit(f"msm_peers: compressed x {x} is not on BLS12-381 G2")
    if fq2_largest(y) != bool(b[0] & FLAG_LARGEST):
        y = ((p - y[0]) % p, (p - y[1]) % p)
    return x, y


# ---------------------------------------------------------------- peers
# Each: name, threads (text for the table), load(scalars, bases) -> its objects,
# msm(loaded) -> its result, affine(result) -> (x, y) or None.


class Mcl:
    """mcl's C API from the mclbn256 wheel's bundled library, on BN_SNARK1: G1, or G2 (BN254's
    twist over Fq2, as ZKX's bn254_g2; mcl's Fp2 = a + b u with u^2 = -1, as ZKX's)"""

    name = "mcl"
    FP = 4 * 8  # MCLBN_FP_UNIT_SIZE = 4 limbs
    group, deg = "G1", 1

    def __init__(self):
        import mclbn256

        self.lib = mclbn256.mclbn256.lib
        if self.lib.mclBn_init(MCL_BN_SNARK1, mclbn256.mclbn256.MCLBN_COMPILED_TIME_VAR) != 0:
            sys.exit("msm_peers: mclBn_init(MCL_BN_SNARK1) failed")
        self.point = ctypes.c_ubyte * (3 * self.deg * self.FP)  # X, Y, Z
        self.Fr = ctypes.c_ubyte * 32
        self.threads = f"mclBn{self.group}_mulVec, one thread"

    def fn(self, what):
        return getattr(self.lib, f"mclBn{self.group}_{what}")

    def load(self, scalars, bases):
        """the inputs as mcl arrays (affine points set from their decimal text: "1 x y", a G2
        coordinate as its two numbers a b)"""
        n = len(scalars)
        xs, ys = (self.point * n)(), (self.Fr * n)()
        for i in range(n):
            p = point_ints(bases[i], self.deg)
            nums = [] if p is None else [c for coord in p for c in (coord if self.deg > 1 else (coord,))]
            text = b"0" if p is None else ("1 " + " ".join(map(str, nums))).encode()
            if self.fn("setStr")(ctypes.byref(xs[i]), text, len(text), 10) != 0:
                sys.exit(f"msm_peers: mcl rejects {self.group} point {i}: {text[:80]!r}")
            if self.lib.mclBnFr_setLittleEndian(ctypes.byref(ys[i]), scalars[i], 32) != 0:
                sys.exit(f"msm_peers: mcl rejects scalar {i}")
        return xs, ys, n

    def msm(self, loaded):
        xs, ys, n = loaded
        z = self.point()
        self.fn("mulVec")(ctypes.byref(z), xs, ys, ctypes.c_size_t(n))
        return z

    def affine(self, z):
        buf = ctypes.create_string_buffer(2048)
        n = self.fn("getStr")(buf, len(buf), ctypes.byref(z), 10)
        parts = buf.value[:n].split()
        if parts == [b"0"]:
            return None
        if len(parts) != 1 + 2 * self.deg or parts[0] != b"1":
            sys.exit(f"msm_peers: mcl's {self.group} result text {buf.value[:n]!r}")
        v = [int(x) for x in parts[1:]]
        return (v[0], v[1]) if self.deg == 1 else ((v[0], v[1]), (v[2], v[3]))


class McLG2(Mcl):
    group, deg = "G2", 2


class Arkworks:
    """ark-algebra-py's G1.msm or G2.msm (BLS12-381), multi-threaded through rayon"""

    name = "ark"
    group, deg = "G1", 1

    def __init__(self):
        import ark_algebra_py

        self.G, self.Scalar = getattr(ark_algebra_py, self.group), ark_algebra_py.Scalar
        self.threads_before = process_threads()
        self.pool = None  # threads rayon added, counted after the first msm

    @property
    def threads(self):
        env = os.environ.get("RAYON_NUM_THREADS")
        src = f"RAYON_NUM_THREADS={env}" if env else "RAYON_NUM_THREADS unset"
        seen = "?" if self.pool is None else str(self.pool)
        return f"{self.group}.msm, rayon pool of {seen} threads ({src}, {os.cpu_count()} CPUs)"

    def load(self, scalars, bases):
        G, Scalar = self.G, self.Scalar
        compress = bls_compress if self.deg == 1 else bls_compress_g2
        pts = [G.from_compressed_bytes(compress(point_ints(b, self.deg))) for b in bases]
        return pts, [Scalar.from_le_bytes(s) for s in scalars]

    def msm(self, loaded):
        r = self.G.msm(*loaded)
        if self.pool is None and self.threads_before is not None:
            self.pool = process_threads() - self.threads_before
        return r

    def affine(self, r):
        b = bytes(r.to_compressed_bytes())
        return bls_decompress(b) if self.deg == 1 else bls_decompress_g2(b)


class ArkworksG2(Arkworks):
    group, deg = "G2", 2


class Blst:
    """blst's C API (blst_p1s_mult_pippenger, or p2s for G2) from the library bundled in the
    blspy wheel"""

    name = "blst"
    pn, deg = "p1", 1  # blst's name of the group, the coordinates' degree
    NBITS = 255  # r < 2^255

    def __init__(self):
        import blspy

        lib = ctypes.CDLL(blspy.__file__)
        self.affine_size, self.jacobian_size = 96 * self.deg, 144 * self.deg  # sizeof(blst_pX_affine), (blst_pX)
        self.threads = f"blst_{self.pn}s_mult_pippenger, one thread"
        self.deserialize = self.fn(lib, "_deserialize", ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p])
        self.scratch_sizeof = self.fn(lib, "s_mult_pippenger_scratch_sizeof", ctypes.c_size_t, [ctypes.c_size_t])
        self.pippenger = self.fn(lib, "s_mult_pippenger", None, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t,
                                                                  ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p])
        self.serialize = self.fn(lib, "_serialize", None, [ctypes.c_void_p, ctypes.c_void_p])

    def fn(self, lib, suffix, restype, argtypes):
        """blst_p1<suffix> (or p2): the group's C function, typed"""
        f = getattr(lib, f"blst_{self.pn}{suffix}")
        f.restype, f.argtypes = restype, argtypes
        return f

    def load(self, scalars, bases):
        n, size = len(scalars), self.affine_size
        pts = (ctypes.c_ubyte * (size * n))()
        base = ctypes.addressof(pts)
        for i, b in enumerate(bases):
            rc = self.deserialize(base + size * i, bls_serialize(point_ints(b, self.deg), self.deg))
            if rc != 0:
                sys.exit(f"msm_peers: blst_{self.pn}_deserialize rejects point {i} (BLST_ERROR {rc})")
        sc = ctypes.create_string_buffer(b"".join(scalars), SCALAR_BYTES * n)
        pp = (ctypes.c_void_p * n)(*(base + size * i for i in range(n)))
        sp = (ctypes.c_void_p * n)(*(ctypes.addressof(sc) + SCALAR_BYTES * i for i in range(n)))
        scratch = (ctypes.c_uint64 * ((self.scratch_sizeof(n) + 7) // 8))()
        return pts, sc, pp, sp, scratch, n  # pts and sc keep pp's and sp's targets alive

    def msm(self, loaded):
        _, _, pp, sp, scratch, n = loaded
        r = (ctypes.c_ubyte * self.jacobian_size)()
        self.pippenger(r, pp, n, sp, self.NBITS, scratch)
        return r

    def affine(self, r):
        out = (ctypes.c_ubyte * self.affine_size)()
        self.serialize(out, r)
        return bls_deserialize(bytes(out), self.deg)


class BlstG2(Blst):
    pn, deg = "p2", 2


# ---------------------------------------------------------------- py_ecc (oracle)


def py_ecc_sum(module, scalars, bases, deg=1):
    """sum of s_i P_i in py_ecc's optimized (jacobian) arithmetic, affine (x, y) or None;
    deg 2: G2, coordinates in FQ2 (py_ecc's i^2 = -1 is fieldfuse's u^2 = -1)"""
    m = importlib.import_module(module)
    F = m.FQ if deg == 1 else m.FQ2
    acc = m.Z1 if deg == 1 else m.Z2
    for s, b in zip(scalars, bases):
        p = point_ints(b, deg)
        if p is not None and le(s) != 0:
            x, y = (F(p[0]), F(p[1])) if deg == 1 else (F(list(p[0])), F(list(p[1])))
            acc = m.add(acc, m.multiply((x, y, F.one()), le(s)))
    if m.is_inf(acc):
        return None
    x, y = m.normalize(acc)
    if deg == 1:
        return int(x), int(y)
    return tuple(int(c) for c in x.coeffs), tuple(int(c) for c in y.coeffs)


# ---------------------------------------------------------------- workloads


def ark_bn254_note():
    try:
        from ark_algebra_py import G1
    except ImportError:
        return "arkworks: ark-algebra-py not installed"
    size = len(bytes(G1().to_compressed_bytes()))
    curve = "BLS12-381" if size == 48 else f"a curve with {size}-byte compressed points"
    return f"arkworks: not run: ark-algebra-py's G1 is {curve}, and it exposes no BN254"


# coord: bytes of one affine coordinate in bench's files; deg: its field's degree over Fq
Workload = collections.namedtuple("Workload", "title coord deg peers oracle absent")

WORKLOADS = {
    "msm_bn254_g1": Workload("BN254 G1", 32, 1, (Mcl,), "py_ecc.optimized_bn128",
                             (ark_bn254_note, lambda: "blst: not run: blst has BLS12-381 only")),
    "msm_bn254_g2": Workload("BN254 G2", 64, 2, (McLG2,), "py_ecc.optimized_bn128",
                             (lambda: "arkworks: not run: ark-algebra-py exposes no BN254",
                              lambda: "blst: not run: blst has BLS12-381 only")),
    "msm_bls12_381_g1": Workload("BLS12-381 G1", 48, 1, (Arkworks, Blst), "py_ecc.optimized_bls12_381",
                                 (lambda: "mcl: not run: the mclbn256 wheel has 256-bit fields only "
                                          "(mclBn_init(MCL_BLS12_381) fails)",)),
    "msm_bls12_381_g2": Workload("BLS12-381 G2", 96, 2, (ArkworksG2, BlstG2), "py_ecc.optimized_bls12_381",
                                 (lambda: "mcl: not run: the mclbn256 wheel has 256-bit fields only "
                                          "(mclBn_init(MCL_BLS12_381) fails)",)),
}


# ---------------------------------------------------------------- fieldfuse bench


def fieldfuse_bench(a, k0, k1, tmp):
    path = os.path.join(tmp, "bench.json")
    cmd = [a.fieldfuse, "bench", a.workload, "--k", f"{k0}..{k1}", "--runs", str(a.runs),
           "--save-values", tmp, "--json", path]
    cmd += ["--baseline-only"] if a.baseline_only else ["--device", a.device]
    print("$", " ".join(cmd), flush=True)
    rc = subprocess.run(cmd, stdout=subprocess.DEVNULL).returncode
    if rc != 0:
        sys.exit(f"msm_peers: fieldfuse bench exited {rc}")
    with open(path) as f:
        rep = json.load(f)
    out = {(r["k"], r["mode"]): r["ms"] for r in rep["results"] if r["workload"] == a.workload}
    return out, rep["devices"][0]["name"] if rep["devices"] else "?"


def median_ms(fn, runs):
    """medians of wall time and of this process's CPU time (all its threads), in ms: on a
    shared host, contention stretches the wall time but hardly the CPU time"""
    wall, cpu = [], []
    for _ in range(runs):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall.append((time.perf_counter() - t0) * 1e3)
        cpu.append((time.process_time() - c0) * 1e3)
    return statistics.median(wall), statistics.median(cpu)


def check_oracle(w, peers, scalars, bases, m, k):
    """each peer on the first m points = py_ecc's sum"""
    want = py_ecc_sum(w.oracle, scalars[:m], bases[:m], w.deg)
    for p in peers:
        got = p.affine(p.msm(p.load(scalars[:m], bases[:m])))
        if got != want:
            sys.exit(f"msm_peers: {p.name} and py_ecc differ on the first {m} points of 2^{k}:\n"
                     f"  {p.name} {got}\n  py_ecc {want}")
        print(f"check: {p.name} = {w.oracle} on the first {m} points of 2^{k}")


def print_table(a, w, peers, rows, dev):
    def f(v):
        return f"{v:.1f}" if v is not None else "-"

    def ratio(x, y):
        return f"{x / y:.2f}x" if x is not None and y else "-"

    def mpts(k, ms):
        return f"{(1 << k) / (ms * 1e3):.3f}" if ms else "-"

    has_base = any(r["c_baseline_ms"] is not None for r in rows)
    print(f"\nMSM over {w.title}, 2^k points, medians of {a.runs} runs (ms); fieldfuse: {dev}")
    if a.baseline_only:
        print("fieldfuse: c_baseline only (--baseline-only): no device")
    print(f"c_baseline: OpenMP, {os.cpu_count()} CPUs" if has_base else
          "c_baseline: none for this workload (bench times the fused mode only)")
    for p in peers:
        print(f"{p.name}: {p.threads}")
    for note in w.absent:
        print(note())
    # the c_baseline's columns only where bench timed one
    cols = ["c_base", "fused"] if has_base else ["fused"]
    for p in peers:
        cols += [p.name, f"{p.name} cpu", f"{p.name} in"] + ([f"{p.name}/c_base"] if has_base else []) + [f"{p.name}/fused"]
    cols += ["Mpts/s c_base", "Mpts/s fused"] if has_base else ["Mpts/s fused"]
    print(" k" + "".join(f"{c:>14}" for c in cols))
    for r in rows:
        cb, fu = r["c_baseline_ms"], r["fused_ms"]
        vals = [f(cb), f(fu)] if has_base else [f(fu)]
        for p in peers:
            ms = r[f"{p.name}_ms"]
            vals += [f(ms), f(r[f"{p.name}_cpu_ms"]), f(r[f"{p.name}_in_ms"])] + ([ratio(ms, cb)] if has_base else []) + [ratio(ms, fu)]
        vals += [mpts(r["k"], cb), mpts(r["k"], fu)] if has_base else [mpts(r["k"], fu)]
        print(f"{r['k']:2d}" + "".join(f"{v:>14}" for v in vals))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workload", default="msm_bn254_g1", choices=sorted(WORKLOADS))
    ap.add_argument("--k", default="16..16", help="sizes bench runs (every one is checked against the peers)")
    ap.add_argument("--peer-k", help="sizes the peers are timed at (default: all of --k)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--oracle-n", type=int, default=32)
    ap.add_argument("--ark-threads", type=int, help="RAYON_NUM_THREADS for arkworks (default: rayon's, all CPUs)")
    ap.add_argument("--baseline-only", action="store_true", help="time the c_baseline alone, no OpenCL device")
    ap.add_argument("--device", default="pocl")
    ap.add_argument("--fieldfuse", default=os.path.join(os.path.dirname(__file__), "../../build/tools/fieldfuse"))
    ap.add_argument("--json", help="write the table's numbers here")
    a = ap.parse_args()
    if a.ark_threads:  # read by rayon when its pool starts, at the first msm
        os.environ["RAYON_NUM_THREADS"] = str(a.ark_threads)
    w = WORKLOADS[a.workload]
    try:
        importlib.import_module(w.oracle)
        peers = [cls() for cls in w.peers]
    except ImportError as exc:
        print(f"msm_peers: {exc}\n{INSTALL}", file=sys.stderr)
        return 2
    k0, k1 = parse_k(a.k)
    peer_ks = [int(x) for x in a.peer_k.split(",")] if a.peer_k else list(range(k0, k1 + 1))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        ff, dev = fieldfuse_bench(a, k0, k1, tmp)
        for k in range(k0, k1 + 1):
            stem = os.path.join(tmp, f"{a.workload}.k{k}")
            scalars = read_bin(stem + ".in0.bin", SCALAR_BYTES)
            bases = read_bin(stem + ".in1.bin", 2 * w.coord)
            want = read_bin(stem + ".out0.bin", 2 * w.coord)[0]
            if len(scalars) != 1 << k or len(bases) != 1 << k:
                sys.exit(f"msm_peers: {stem}: {len(scalars)} scalars, {len(bases)} bases, not 2^{k}")
            if k == k0:
                check_oracle(w, peers, scalars, bases, min(a.oracle_n, len(scalars)), k)
            row = {"k": k, "c_baseline_ms": ff.get((k, "c_baseline")), "fused_ms": ff.get((k, "fused"))}
            for p in peers:
                print(f"{p.name} 2^{k} ...", file=sys.stderr, flush=True)
                t0 = time.perf_counter()
                loaded = p.load(scalars, bases)
                row[f"{p.name}_in_ms"] = (time.perf_counter() - t0) * 1e3
                got = affine_le(p.affine(p.msm(loaded)), w.coord, w.deg)
                if got != want:
                    sys.exit(f"msm_peers: {p.name} and fieldfuse bench differ at 2^{k}:\n"
                             f"  {p.name:9} {point_ints(got, w.deg)}\n  fieldfuse {point_ints(want, w.deg)}")
                print(f"check 2^{k}: {p.name}'s msm = fieldfuse bench's result")
                timed = median_ms(lambda: p.msm(loaded), a.runs) if k in peer_ks else (None, None)
                row[f"{p.name}_ms"], row[f"{p.name}_cpu_ms"] = timed
                del loaded
            rows.append(row)
    print_table(a, w, peers, rows, dev)
    if a.json:
        with open(a.json, "w") as fp:
            json.dump({"workload": a.workload, "device": dev, "runs": a.runs, "baseline_only": a.baseline_only,
                       "peers": {p.name: p.threads for p in peers}, "not_run": [n() for n in w.absent],
                       "rows": rows}, fp, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
