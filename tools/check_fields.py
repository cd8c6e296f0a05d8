#!/usr/bin/env python3
"""Checks the number theory of every FFU_FIELD row of fields/fields.def.

usage: tools/check_fields.py   (needs sympy; zk_dtypes optional, for its moduli)
For each prime-field row: p is prime and has `bits` bits, `two_adicity` is v2(p - 1), and
`generator` generates the whole multiplicative group: p - 1 is factored completely (each
factor proven prime by sympy) and g^((p-1)/f) != 1 for every prime f | p - 1. Where
sympy's own factoring is slow, the large prime factors below are given as hints; each is
checked (prime, divides p - 1), never trusted. Where zk_dtypes (pip install
zk_dtypes==0.0.17) is importable, its modulus for the same type name must equal the row's,
1 in `<name>_mont` must be stored as 2^256 mod p and -1 in `<name>` as p - 1 (the plain /
Montgomery storage convention fieldfuse follows). tests/test_fields.c checks the derived
Montgomery constants and the generator's non-residuosity with GMP at every build; this
script is the deeper, slower check, run by hand after adding or changing a row.
"""
import os
import sys

import sympy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fields_doc import rows  # noqa: E402

# Large prime factors of p - 1 that sympy.factorint takes minutes or more to find.
HINTS = [
    # pallas_sf = vesta_bf (q - 1 = 2^32 * 3 * 1709 * 24859 * these two; sympy's ecm)
    1690502597179744445941507,
    10427374428728808478656897599072717,
    # curve25519_sf (l - 1 = 2^2 * 3 * 11 * these two)
    198211423230930754013084525763697,
    276602624281642239937218680557139826668747,
    # bls12_381_bf (q - 1 = 2 * 3^2 * 11 * 23 * 47 * 10177 * 859267 * 52437899 * these two;
    # sympy's ecm(B1 = 10^6, B2 = 10^8) on the 305-bit cofactor, 47 minutes on one core)
    2584487767265781317813,
    15778400344354997994418419698270088123916926905054652752758194827714659,
]


def factor(n):
    """Prime factors of n (a set), with HINTS divided out first."""
    fs = set()
    for h in HINTS:
        if n % h == 0:
            assert sympy.isprime(h), h
            fs.add(h)
            while n % h == 0:
                n //= h
    fs |= set(sympy.factorint(n))
    assert all(sympy.isprime(f) for f in fs)
    return fs


def zk_check(name, p):
    try:
        import numpy as np
        import zk_dtypes
    except ImportError:
        return 'zk_dtypes not installed'
    if not hasattr(zk_dtypes, name):
        return 'not a zk_dtypes type'
    dt = np.dtype(getattr(zk_dtypes, name))
    assert zk_dtypes.pfinfo(dt).modulus == p, name
    minus1 = -np.array([1], dtype=dt)
    assert int.from_bytes(minus1.tobytes(), 'little') == p - 1, name
    if hasattr(zk_dtypes, name + '_mont'):
        one = np.array([1], dtype=np.dtype(getattr(zk_dtypes, name + '_mont')))
        radix = 8 * one.dtype.itemsize
        assert int.from_bytes(one.tobytes(), 'little') == pow(2, radix, p), name
    return 'matches zk_dtypes %s' % zk_dtypes.__version__


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else 'fields/fields.def'
    bad = 0
    for r in rows(path):
        p, g, name = r['p'], r['gen'], r['name']
        ok = sympy.isprime(p) and p.bit_length() == r['bits']
        ok = ok and ((p - 1) & -(p - 1)).bit_length() - 1 == r['two']
        fs = factor(p - 1)
        ok = ok and all(pow(g, (p - 1) // f, p) != 1 for f in fs)
        print('%-14s %s  generator %d, 2-adicity %d, p - 1 = %s; %s' % (
            name, 'ok ' if ok else 'BAD', g, r['two'], ' * '.join(str(f) for f in sorted(fs)),
            zk_check(name, p)))
        bad += not ok
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
