#!/usr/bin/env python3
"""The interpreter's elliptic-curve points against an independent oracle.

usage: tests/points_oracle.py --fieldfuse BUILD/tools/fieldfuse [--curve bn254_g1|bn254_g2|bls12_381_g1|bls12_381_g2]
                               [--large N] [--device SEL]

The oracle is written here from the textbook affine group law with Python's integers
(nothing of fieldfuse's jacobian formulas, bucket method or field code): y^2 = x^3 + b over
the curve's coordinate field with its generator and group order r (CURVES: BN254 G1, b = 3,
generator (1, 2), as Ethereum's alt_bn128; BN254 G2, the twist over Fq2 = Fq[u]/(u^2 + 1)
with b = 3 / (9 + u), the generator of EIP-197 and zk_dtypes bn254/g2.h, its Fq2 arithmetic
a few lines here (u^2 = -1, the inverse as conjugate over norm); BLS12-381 G1, b = 4, the
generator of the IETF pairing-friendly curves draft and of blst/arkworks). The constants are
checked first: G on the curve, (r - 1) G = -G and r G = infinity, b and G equal to py_ecc's
where py_ecc is importable (bench/peers/.venv has it; never a test dependency). Each case
writes an HLO program and value files, runs `fieldfuse run --interp`, and compares every
output point, read back as affine coordinates, with the oracle's; one program of the
element-wise point ops (add, subtract, negate, multiply, convert, compare over the add
block's special cases) and the reduce by add run on the device (`--device`, default pocl)
the same way. Covered: add and subtract
over every pair of coordinate systems ZKX allows (P + Q, P + P, P + (-P), infinity on either
side), negate, multiply(scalar, point) with 0, 1, r - 1 and random scalars, convert between
every pair of kinds and forms (canonical <-> _mont coordinates), compare EQ/NE across
representatives, select, reduce by add, msm for n = 1, 2, 3, 31, 1000 and a large n with
zero scalars, infinity bases, repeated bases and several window widths; and the errors: a
point off the curve in a value file (exit 2 naming file and line), a result kind ZKX does
not define (exit 2).

The large msm is 2^16 + 1 points over a prime field, but 2^12 + 1 for BN254 G2 and 2^10 + 1
for BLS12-381 G2 (81 s here with every other case): the interpreter's
plain bucket method over Fq2 through the generic field entry points took more than the
600 s a program may take at 2^16 + 1 (on the shared 2-core machine), and the device tests
(tests/test_msm_device.c) cover G2's large sizes against the interpreter. --large N caps that
size (the sanitizer build passes 4097: the same code paths, without an hour of instrumented
bucket arithmetic)."""

import argparse
import os
import random
import subprocess
import sys
import tempfile

INF = None
# name: q (coordinates' prime), r (group order = scalar field), the coordinate field's degree
# (1: Fq, 2: Fq2 = Fq[u]/(u^2 + 1)), b as (num, den) with b = num / den (each a coefficient
# list), the generator (each coordinate a coefficient list), the _mont radix bits of the
# coordinates' prime and of the scalar field, the scalar type, py_ecc's (module, point)
# holding the same curve, compared where py_ecc is importable (never a test dependency), and
# the size of the large msm case (the module docstring says why G2's is smaller)
CURVES = {
    "bn254_g1": dict(
        q=21888242871839275222246405745257275088696311157297823662689037894645226208583,
        r=21888242871839275222246405745257275088548364400416034343698204186575808495617, deg=1,
        b=((3,), (1,)), g=((1,), (2,)), cbits=256, sbits=256, scalar="bn254_sf", py_ecc=("bn128", "G1"), large=65537),
    # the sextic twist: b2 = 3 / (9 + u); zk_dtypes bn254/g2.h's generator (EIP-197's)
    "bn254_g2": dict(
        q=21888242871839275222246405745257275088696311157297823662689037894645226208583,
        r=21888242871839275222246405745257275088548364400416034343698204186575808495617, deg=2,
        b=((3, 0), (9, 1)),
        g=((10857046999023057135944570762232829481370756359578518086990519993285655852781,
            11559732032986387107991004021392285783925812861821192530917403151452391805634),
           (8495653923123431417604973247489272438418190587263600148770280649306958101930,
            4082367875863433681332203403145435568316851327593401208105741076214120093531)),
        cbits=256, sbits=256, scalar="bn254_sf", py_ecc=("bn128", "G2"), large=4097),
    "bls12_381_g1": dict(
        q=0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab,
        r=0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001, deg=1, b=((4,), (1,)),
        g=((0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb,),
           (0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1,)),
        cbits=384, sbits=256, scalar="bls12_381_sf", py_ecc=("bls12_381", "G1"), large=65537),
    # the twist over Fq2 = Fq[u]/(u^2 + 1): b2 = 4 (1 + u); the generator of the IETF draft,
    # blst, arkworks and py_ecc
    "bls12_381_g2": dict(
        q=0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab,
        r=0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001, deg=2, b=((4, 4), (1, 0)),
        g=((0x024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8,
            0x13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e),
           (0x0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801,
            0x0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be)),
        cbits=384, sbits=256, scalar="bls12_381_sf", py_ecc=("bls12_381", "G2"), large=1025),
}
Q = R = D = B = G = MONT = SMONT = NAME = SCALAR = PY_ECC = LARGE = None


# ---- the coordinate field: tuples of D coefficients over Fq (D = 2: u^2 = -1) ----

def fadd(a, b):
    return tuple((x + y) % Q for x, y in zip(a, b))


def fsub(a, b):
    return tuple((x - y) % Q for x, y in zip(a, b))


def fmul(a, b):
    if D == 1:
        return (a[0] * b[0] % Q,)
    return ((a[0] * b[0] - a[1] * b[1]) % Q, (a[0] * b[1] + a[1] * b[0]) % Q)


def finv(a):
    """a^-1 (a != 0); Fq2: the conjugate over the norm a0^2 + a1^2, an element of Fq."""
    if D == 1:
        return (pow(a[0], -1, Q),)
    ni = pow((a[0] * a[0] + a[1] * a[1]) % Q, -1, Q)
    return (a[0] * ni % Q, -a[1] * ni % Q)


def fconst(v):
    return (v % Q,) + (0,) * (D - 1)


def fpow(a, e):
    r = fconst(1)
    for _ in range(e):
        r = fmul(r, a)
    return r


def use_curve(name, large=None):
    """Sets the module's constants to curve `name`'s (one curve per run); large, where given,
    caps the curve's large msm size."""
    global Q, R, D, B, G, MONT, SMONT, NAME, SCALAR, PY_ECC, LARGE
    c = CURVES[name]
    Q, R, D, SCALAR, PY_ECC, LARGE = c["q"], c["r"], c["deg"], c["scalar"], c["py_ecc"], min(large or c["large"], c["large"])
    B = fmul(tuple(c["b"][0]), finv(tuple(c["b"][1])))
    G = tuple(tuple(v) for v in c["g"])
    MONT, SMONT, NAME = pow(2, c["cbits"], Q), pow(2, c["sbits"], R), name


def on_curve(p):
    return p is INF or fsub(fmul(p[1], p[1]), fadd(fpow(p[0], 3), B)) == fconst(0)


def add(p, q):
    if p is INF:
        return q
    if q is INF:
        return p
    if p[0] == q[0]:
        if fadd(p[1], q[1]) == fconst(0):
            return INF
        lam = fmul(fmul(fconst(3), fmul(p[0], p[0])), finv(fadd(p[1], p[1])))
    else:
        lam = fmul(fsub(q[1], p[1]), finv(fsub(q[0], p[0])))
    x = fsub(fsub(fmul(lam, lam), p[0]), q[0])
    return (x, fsub(fmul(lam, fsub(p[0], x)), p[1]))


def neg(p):
    return INF if p is INF else (p[0], fsub(fconst(0), p[1]))


def mul(k, p):
    acc, k = INF, k % R
    while k:
        if k & 1:
            acc = add(acc, p)
        p, k = add(p, p), k >> 1
    return acc


def check_py_ecc():
    """The curve's b and generator against py_ecc's, where py_ecc is importable (the
    bench/peers venv has it); None when it is not, else whether they agree."""
    try:
        mod = __import__("py_ecc." + PY_ECC[0], fromlist=[PY_ECC[1]])
    except ImportError:
        return None
    gen = getattr(mod, PY_ECC[1])
    coeffs = lambda e: tuple(int(c) for c in e.coeffs) if hasattr(e, "coeffs") else (int(e.n),)
    their_b = mod.b2 if PY_ECC[1] == "G2" else mod.b
    return (coeffs(gen[0]), coeffs(gen[1])) == G and coeffs(their_b) == B


# ---- storage text of each coordinate system, canonical or _mont (ZKX.md section 2) ----

def coords(p, kind, mont, rnd):
    """A representative of p in `kind` (a random one for jacobian/xyzz), as coordinates."""
    one, zero = fconst(1), fconst(0)
    if kind == "affine":
        c = (zero, zero) if p is INF else p
    elif p is INF:
        c = (one, one, zero) if kind == "jacobian" else (one, one, zero, zero)
    else:
        z = tuple(rnd.randrange(Q) for _ in range(D))
        if z == zero:
            z = one
        z2 = fmul(z, z)
        z3 = fmul(z2, z)
        c = (fmul(p[0], z2), fmul(p[1], z3), z) if kind == "jacobian" else (fmul(p[0], z2), fmul(p[1], z3), z2, z3)
    return [tuple(v * MONT % Q for v in x) if mont else x for x in c]


def decode(words, kind, mont):
    v = [int(w) for w in words]
    if mont:
        inv = pow(MONT, -1, Q)
        v = [x * inv % Q for x in v]
    v = [tuple(v[i:i + D]) for i in range(0, len(v), D)]
    zero = fconst(0)
    if kind == "affine":
        return INF if v == [zero, zero] else (v[0], v[1])
    if v[2] == zero:
        return INF
    if kind == "jacobian":
        zi = finv(v[2])
        zi2 = fmul(zi, zi)
        return (fmul(v[0], zi2), fmul(v[1], fmul(zi2, zi)))
    return (fmul(v[0], finv(v[2])), fmul(v[1], finv(v[3])))


def tname(kind, mont):
    return NAME + "_" + kind + ("_mont" if mont else "")


class Runner:
    def __init__(self, ff, tmp):
        self.ff, self.tmp, self.n, self.failures = ff, tmp, 0, 0

    def run(self, hlo, inputs, expect_rc=0, device=None):
        """Runs hlo with inputs [(lines)] in the interpreter or on `device`; returns the
        completed process (returncode, stdout, stderr)."""
        self.n += 1
        prog = os.path.join(self.tmp, "p%d.hlo" % self.n)
        with open(prog, "w") as f:
            f.write(hlo)
        args = [self.ff, "run", prog] + (["--device", device] if device else ["--interp"])
        for i, lines in enumerate(inputs):
            path = os.path.join(self.tmp, "p%d_in%d.txt" % (self.n, i))
            with open(path, "w") as f:
                f.write("\n".join(lines) + "\n")
            args += ["--input", "%d=%s" % (i, path)]
        r = subprocess.run(args, capture_output=True, text=True, timeout=600)
        if r.returncode != expect_rc:
            self.fail("exit %d, expected %d\n%s%s" % (r.returncode, expect_rc, hlo, r.stderr))
        return r

    def fail(self, msg):
        self.failures += 1
        print("FAIL:", msg, file=sys.stderr)

    def outputs(self, text):
        """The output files' element lines, per output."""
        outs, cur = [], None
        for line in text.splitlines():
            if line.startswith("# output") or (line.startswith("# ") and cur is None and "[" in line):
                cur = []
                outs.append(cur)
            elif line.startswith("#"):
                continue
            elif line.strip():
                cur.append(line.split())
        return outs

    def check_points(self, what, got_lines, kind, mont, want):
        if len(got_lines) != len(want):
            self.fail("%s: %d points, expected %d" % (what, len(got_lines), len(want)))
            return
        for i, (w, e) in enumerate(zip(got_lines, want)):
            g = decode(w, kind, mont)
            if g != e:
                self.fail("%s: element %d is %s, expected %s" % (what, i, g, e))
                return


def text(coordinates):
    return " ".join(str(v) for x in coordinates for v in x)


def literal(coordinates):
    """The HLO literal of a point: "(x, y, ...)", an Fq2 coordinate "(c0, c1)"."""
    coef = lambda x: str(x[0]) if D == 1 else "(%s)" % ", ".join(str(v) for v in x)
    return "(%s)" % ", ".join(coef(x) for x in coordinates)


def pts_lines(ps, kind, mont, rnd):
    return [text(coords(p, kind, mont, rnd)) for p in ps]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fieldfuse", required=True)
    ap.add_argument("--seed", type=int, default=20261127)
    ap.add_argument("--curve", choices=sorted(CURVES), default="bn254_g1")
    ap.add_argument("--device", default="pocl", help="the device of the element-wise point program (default pocl)")
    ap.add_argument("--large", type=int, help="at most this many points in the large msm case (default: the curve's size)")
    a = ap.parse_args()
    if a.large is not None and a.large < 1001:
        ap.error("--large must be above the 1000 points of the case before it")
    use_curve(a.curve, a.large)
    rnd = random.Random(a.seed)
    # the constants themselves: G on the curve, of order r (so (r - 1) * P = -P below)
    if not on_curve(G) or mul(R - 1, G) != neg(G) or add(mul(R - 1, G), G) is not INF:
        print("FAIL: the oracle's %s constants" % NAME, file=sys.stderr)
        return 1
    agree = check_py_ecc()
    if agree is False:
        print("FAIL: %s's b or generator differs from py_ecc's" % NAME, file=sys.stderr)
        return 1
    print("points_oracle: %s: G on the curve, r G = infinity; py_ecc %s" % (
        NAME, "not importable" if agree is None else "agrees"))
    with tempfile.TemporaryDirectory() as tmp:
        t = Runner(a.fieldfuse, tmp)
        rand_pt = lambda: mul(rnd.randrange(1, R), G)
        base = [rand_pt() for _ in range(4)]
        # operands: P + Q, P + P, P + (-P), inf + P, P + inf, inf + inf
        left = [base[0], base[1], base[2], INF, base[3], INF]
        right = [base[1], base[1], neg(base[2]), base[0], INF, INF]
        n = len(left)
        kinds = ["affine", "jacobian", "xyzz"]
        for mont in (False, True):
            for ka in kinds:
                for kb in kinds:
                    outs = [k for k in ("jacobian", "xyzz")] if ka == kb == "affine" else \
                        [kb if ka == "affine" else ka] if (ka == kb or "affine" in (ka, kb)) else []
                    for ko in outs:
                        for op, fn in (("add", add), ("subtract", lambda p, q: add(p, neg(q)))):
                            hlo = ("ENTRY %%m {\n %%a = %s[%d] parameter(0)\n %%b = %s[%d] parameter(1)\n"
                                   " ROOT %%c = %s[%d] %s(%%a, %%b)\n}\n") % (
                                tname(ka, mont), n, tname(kb, mont), n, tname(ko, mont), n, op)
                            r = t.run(hlo, [pts_lines(left, ka, mont, rnd), pts_lines(right, kb, mont, rnd)])
                            got = t.outputs(r.stdout)
                            t.check_points("%s %s %s -> %s" % (op, tname(ka, mont), tname(kb, mont), ko),
                                           got[0] if got else [], ko, mont, [fn(p, q) for p, q in zip(left, right)])
        # negate, multiply, convert, compare, select: one program per kind and form
        scalars = [0, 1, 2, R - 1, rnd.randrange(R), rnd.randrange(R)]
        pts = [base[0], base[1], INF, base[2], base[3], G]
        for mont in (False, True):
            sm = SCALAR + "_mont" if mont else SCALAR
            skeys = [str(s * SMONT % R) if mont else str(s) for s in scalars]
            for k in kinds:
                mk = "jacobian" if k == "affine" else k
                hlo = ("ENTRY %%m {\n %%s = %s[6] parameter(0)\n %%p = %s[6] parameter(1)\n"
                       " %%n = %s[6] negate(%%p)\n %%q = %s[6] multiply(%%s, %%p)\n"
                       " %%e = pred[6] compare(%%q, %%n), direction=EQ\n %%d = pred[6] compare(%%q, %%n), direction=NE\n"
                       " %%x = %s[6] select(%%e, %%n, %%q)\n"
                       " ROOT %%t = (%s[6], %s[6], pred[6], pred[6], %s[6]) tuple(%%n, %%q, %%e, %%d, %%x)\n}\n") % (
                    sm, tname(k, mont), tname(k, mont), tname(mk, mont), tname(mk, mont),
                    tname(k, mont), tname(mk, mont), tname(mk, mont))
                # %q == %n compares points of different types: the verifier refuses; compare q with itself
                hlo = hlo.replace("compare(%q, %n)", "compare(%q, %q)").replace("select(%e, %n, %q)", "select(%e, %q, %q)")
                r = t.run(hlo, [skeys, pts_lines(pts, k, mont, rnd)])
                got = t.outputs(r.stdout)
                if len(got) == 5:
                    t.check_points("negate " + tname(k, mont), got[0], k, mont, [neg(p) for p in pts])
                    t.check_points("multiply " + tname(k, mont), got[1], mk, mont,
                                   [mul(s, p) for s, p in zip(scalars, pts)])
                    if [w[0] for w in got[2]] != ["1"] * 6 or [w[0] for w in got[3]] != ["0"] * 6:
                        t.fail("compare %s with itself: %s %s" % (tname(mk, mont), got[2], got[3]))
                    t.check_points("select " + tname(mk, mont), got[4], mk, mont,
                                   [mul(s, p) for s, p in zip(scalars, pts)])
                else:
                    t.fail("negate/multiply %s: %d outputs" % (tname(k, mont), len(got)))
        # EQ/NE across representatives: the same points, fresh random Z, and other points
        for k in ("jacobian", "xyzz"):
            a_pts = [base[0], INF, base[1], base[2]]
            b_pts = [base[0], INF, base[2], INF]
            hlo = ("ENTRY %%m {\n %%a = %s[4] parameter(0)\n %%b = %s[4] parameter(1)\n"
                   " ROOT %%e = pred[4] compare(%%a, %%b), direction=EQ\n}\n") % (tname(k, False), tname(k, False))
            r = t.run(hlo, [pts_lines(a_pts, k, False, rnd), pts_lines(b_pts, k, False, rnd)])
            got = [w[0] for w in (t.outputs(r.stdout) or [[]])[0]]
            if got != ["1", "1", "0", "0"]:
                t.fail("EQ on %s representatives: %s" % (k, got))
        # convert between every pair of kinds and forms
        cpts = [base[0], INF, base[1]]
        for ka in kinds:
            for ma in (False, True):
                for kb in kinds:
                    for mb in (False, True):
                        hlo = ("ENTRY %%m {\n %%a = %s[3] parameter(0)\n ROOT %%b = %s[3] convert(%%a)\n}\n") % (
                            tname(ka, ma), tname(kb, mb))
                        r = t.run(hlo, [pts_lines(cpts, ka, ma, rnd)])
                        got = t.outputs(r.stdout)
                        t.check_points("convert %s -> %s" % (tname(ka, ma), tname(kb, mb)), got[0] if got else [],
                                       kb, mb, cpts)
        # reduce by add (jacobian: affine + affine is not affine)
        rpts = [rand_pt() for _ in range(5)] + [INF]
        hlo = ("%add {\n %x = JAC[] parameter(0)\n %y = JAC[] parameter(1)\n"
               " ROOT %s = JAC[] add(%x, %y)\n}\n"
               "ENTRY %m {\n %p = JAC[6] parameter(0)\n %z = JAC[] constant(ZERO)\n"
               " ROOT %r = JAC[] reduce(%p, %z), dimensions={0}, to_apply=%add\n}\n").replace(
            "JAC", tname("jacobian", False)).replace("ZERO", literal(coords(INF, "jacobian", False, rnd)))
        reduce_hlo = hlo
        r = t.run(hlo, [pts_lines(rpts, "jacobian", False, rnd)])
        reduce_want = INF
        for p in rpts:
            reduce_want = add(reduce_want, p)
        t.check_points("reduce by add", (t.outputs(r.stdout) or [[]])[0], "jacobian", False, [reduce_want])
        # msm: random bases for small n, bases i * G (i = 1..n) for the large ones, where the
        # oracle is (sum_i s_i * i) * G
        for n_pts, kind, out_kind, windows in ((1, "affine", "jacobian", [0, 1]), (2, "jacobian", "xyzz", [0, 3]),
                                                (3, "xyzz", "xyzz", [0, 2]), (31, "affine", "affine", [0, 4, 16]),
                                                (1000, "affine", "xyzz", [0, 7]), (LARGE, "affine", "xyzz", [0, 11])):
            if n_pts <= 31:
                ps = [rand_pt() for _ in range(n_pts)]
                if n_pts >= 3:
                    ps[1] = INF  # an infinity base
                    ps[2] = ps[0]  # a repeated base
                ss = [rnd.randrange(R) for _ in range(n_pts)]
                if n_pts >= 2:
                    ss[-1] = 0
                want = INF
                for s, p in zip(ss, ps):
                    want = add(want, mul(s, p))
            else:
                ps, acc = [], INF
                for i in range(n_pts):
                    acc = add(acc, G)
                    ps.append(acc)
                ss = [rnd.randrange(R) if i % 17 else 0 for i in range(n_pts)]
                want = mul(sum(s * (i + 1) for i, s in enumerate(ss)) % R, G)
            lines_s = [str(s) for s in ss]
            lines_p = pts_lines(ps, kind, False, rnd)
            for w in windows:
                hlo = ("ENTRY %%m {\n %%s = %s[%d] parameter(0)\n %%p = %s[%d] parameter(1)\n"
                       " ROOT %%r = %s[] msm(%%s, %%p)%s\n}\n") % (
                    SCALAR, n_pts, tname(kind, False), n_pts, tname(out_kind, False), ", window_bits=%d" % w if w else "")
                r = t.run(hlo, [lines_s, lines_p])
                t.check_points("msm n=%d %s window %d" % (n_pts, kind, w), (t.outputs(r.stdout) or [[]])[0],
                               out_kind, False, [want])
        # errors: a point off the curve (file and line), an undefined result kind, a device run
        hlo = "ENTRY %m {\n %a = AFF[2] parameter(0)\n ROOT %n = AFF[2] negate(%a)\n}\n".replace(
            "AFF", tname("affine", False))
        g_line, off_line = text(G), text((G[0], fadd(G[1], fconst(1))))  # the second is off the curve
        r = t.run(hlo, [[g_line, off_line]], expect_rc=2)
        if ":2:" not in r.stderr or "not on the curve" not in r.stderr:
            t.fail("a point off the curve: %r" % r.stderr)
        hlo = ("ENTRY %m {\n %a = AFF[1] parameter(0)\n"
               " ROOT %c = AFF[1] add(%a, %a)\n}\n").replace("AFF", tname("affine", False))
        r = t.run(hlo, [[g_line]], expect_rc=2)
        if "affine with affine gives jacobian or xyzz" not in r.stderr:
            t.fail("affine + affine -> affine: %r" % r.stderr)
        # the device's element-wise point kernels (codegen/kgen_point.c) against the oracle:
        # one program, the cases of the add/subtract block above with every result kind
        hlo = ("ENTRY %m {\n %a = AFF[6] parameter(0)\n %b = AFF[6] parameter(1)\n %s = SC[6] parameter(2)\n"
               " %n = AFF[6] negate(%a)\n %c = JAC[6] add(%a, %b)\n %d = XYZZ[6] subtract(%a, %b)\n"
               " %q = JAC[6] multiply(%s, %a)\n %f = AFF[6] convert(%c)\n"
               " %nb = AFF[6] negate(%b)\n %g = JAC[6] subtract(%a, %nb)\n"
               " %e = pred[6] compare(%c, %g), direction=EQ\n"
               " ROOT %t = (AFF[6], JAC[6], XYZZ[6], JAC[6], AFF[6], pred[6]) tuple(%n, %c, %d, %q, %f, %e)\n}\n").replace(
            "AFF", tname("affine", False)).replace("XYZZ", tname("xyzz", False)).replace(
            "JAC", tname("jacobian", False)).replace("SC", SCALAR)
        dscalars = [0, 1, R - 1, rnd.randrange(R), rnd.randrange(R), 2]
        r = t.run(hlo, [pts_lines(left, "affine", False, rnd), pts_lines(right, "affine", False, rnd),
                        [str(v) for v in dscalars]], device=a.device)
        got = t.outputs(r.stdout)
        if len(got) == 6:
            sums = [add(p, q) for p, q in zip(left, right)]
            t.check_points("device negate", got[0], "affine", False, [neg(p) for p in left])
            t.check_points("device add", got[1], "jacobian", False, sums)
            t.check_points("device subtract", got[2], "xyzz", False, [add(p, neg(q)) for p, q in zip(left, right)])
            t.check_points("device multiply", got[3], "jacobian", False, [mul(k, p) for k, p in zip(dscalars, left)])
            t.check_points("device convert", got[4], "affine", False, sums)
            if [w[0] for w in got[5]] != ["1"] * 6:
                t.fail("device compare of P + Q with P - (-Q): %s" % got[5])
        else:
            t.fail("the device program: %d outputs" % len(got))
        # and a sum of points, the reduce block's program, on the device
        r = t.run(reduce_hlo, [pts_lines(rpts, "jacobian", False, rnd)], device=a.device)
        t.check_points("device reduce by add", (t.outputs(r.stdout) or [[]])[0], "jacobian", False, [reduce_want])
        print("points_oracle: %d programs, %d failures" % (t.n, t.failures))
        return 1 if t.failures else 0


if __name__ == "__main__":
    sys.exit(main())
