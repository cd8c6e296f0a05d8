/*
 * bench/baseline_256.c: the `c_baseline` mode's 256-bit workloads (see baseline.c): the BN254
 * and BLS12-381 scalar fields on 4 x 64-bit limbs, little-endian (the value layout: 32 bytes
 * per element), with one Montgomery product (R = 2^256, CIOS with unsigned __int128) that
 * takes the field's constants. The constants were derived with python3 (pow(p, -1, 2**64),
 * pow(2**256, k, p)) and are checked by bench's byte-for-byte comparison with the device.
 */
#include <stdint.h>
#include <string.h>

#include "bench/baseline.h"
#include "ir/value.h"

typedef unsigned __int128 u128;

typedef struct mont256 {
	uint64_t p[4];
	uint64_t npinv; /* -p^-1 mod 2^64 */
	uint64_t r2[4]; /* R^2 mod p: mont(a, r2) = a R */
	uint64_t r9[4]; /* R^9 mod p: undoes the R^-8 of 8 Montgomery products */
} mont256;

/* BN254 Fr: p = 0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001 */
static const mont256 BN254 = {
	.p = {0x43e1f593f0000001ull, 0x2833e84879b97091ull, 0xb85045b68181585dull, 0x30644e72e131a029ull},
	.npinv = 0xc2e1f593efffffffull,
	.r2 = {0x1bb8e645ae216da7ull, 0x53fe3ab1e35c59e3ull, 0x8c49833d53bb8085ull, 0x0216d0b17f4e44a5ull},
	.r9 = {0x6076bbac6cc03ad1ull, 0xec62eabbc23b487dull, 0x8cf33bb03c1fd0e7ull, 0x176353440f59b7dcull},
};

/* BLS12-381 Fr: p = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001 */
static const mont256 BLS12_381 = {
	.p = {0xffffffff00000001ull, 0x53bda402fffe5bfeull, 0x3339d80809a1d805ull, 0x73eda753299d7d48ull},
	.npinv = 0xfffffffeffffffffull,
	.r2 = {0xc999e990f3f29c6dull, 0x2b6cedcb87925c23ull, 0x05d314967254398full, 0x0748d9d99f59ff11ull},
	.r9 = {0xbf8efcdf12f7c321ull, 0xd51028eb4483e719ull, 0x7d82e3e71d48cb65ull, 0x6d928e13fe443e95ull},
};

/* t + a b + *carry (at most 2^128 - 1); the high word goes to *carry */
FFU_BASE_INLINE uint64_t mac(uint64_t t, uint64_t a, uint64_t b, uint64_t *carry)
{
	u128 r = (u128)a * b + t + *carry;
	*carry = (uint64_t)(r >> 64);
	return (uint64_t)r;
}

/*
 * r = a b / R mod p for a, b < p; r may alias a or b. CIOS: each row adds a b[i] and a
 * multiple m p of the modulus that clears the low limb, then shifts one limb down. Both
 * moduli have a top limb below 2^63 - 1, so each row's two carry chains (A for a b[i], C
 * for m p) fit in a word each and the running sum in 4 limbs: no fifth and sixth limb. The
 * sum ends below 2p; one conditional subtraction makes it canonical. The limbs are scalars,
 * not an array, so that GCC keeps them in registers (with arrays, seed_bn254 took 48 ms at
 * 2^20 instead of 25).
 */
FFU_BASE_INLINE void mont_mul(uint64_t r[4], const uint64_t a[4], const uint64_t b[4], const mont256 *f)
{
	uint64_t a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
	uint64_t t0 = 0, t1 = 0, t2 = 0, t3 = 0;
	for (int i = 0; i < 4; i++) {
		uint64_t bi = b[i], A = 0, C = 0;
		t0 = mac(t0, a0, bi, &A);
		uint64_t m = t0 * f->npinv;
		(void)mac(t0, m, f->p[0], &C); /* low word 0 */
		t1 = mac(t1, a1, bi, &A);
		t0 = mac(t1, m, f->p[1], &C);
		t2 = mac(t2, a2, bi, &A);
		t1 = mac(t2, m, f->p[2], &C);
		t3 = mac(t3, a3, bi, &A);
		t2 = mac(t3, m, f->p[3], &C);
		t3 = A + C;
	}
	/* d = t - p; keep t if that borrowed */
	uint64_t d[4], t[4] = {t0, t1, t2, t3}, borrow = 0;
	for (int j = 0; j < 4; j++) {
		u128 w = (u128)t[j] - f->p[j] - borrow;
		d[j] = (uint64_t)w;
		borrow = (uint64_t)(w >> 127);
	}
	for (int j = 0; j < 4; j++)
		r[j] = borrow ? t[j] : d[j];
}

FFU_BASE_INLINE void mont_sub(uint64_t r[4], const uint64_t a[4], const uint64_t b[4], const mont256 *f)
{
	uint64_t borrow = 0, c = 0;
	for (int j = 0; j < 4; j++) {
		u128 w = (u128)a[j] - b[j] - borrow;
		r[j] = (uint64_t)w;
		borrow = (uint64_t)(w >> 127);
	}
	uint64_t mask = 0 - borrow;
	for (int j = 0; j < 4; j++) {
		u128 w = (u128)r[j] + (f->p[j] & mask) + c;
		r[j] = (uint64_t)w;
		c = (uint64_t)(w >> 64);
	}
}

/* out = x*x - x over the BN254 scalar field: one conversion and one product, as fused */
FFU_BASE_CLONES static void seed_bn254(const ffu_value *in, ffu_value *out, int64_t lo, int64_t hi)
{
	const unsigned char *x = in[0].data;
	unsigned char *o = out[0].data;
	for (int64_t i = lo; i < hi; i++) {
		uint64_t a[4], am[4], sq[4], r[4];
		memcpy(a, x + 32 * i, 32);
		mont_mul(am, a, BN254.r2, &BN254);
		mont_mul(sq, am, a, &BN254);
		mont_sub(r, sq, a, &BN254);
		memcpy(o + 32 * i, r, 32);
	}
}

/* x*y*y*y*y*y*y*y*x on canonical values: x^2 y^7 / R^8 after 8 products, times R^9 / R */
FFU_BASE_INLINE void fieldops(const ffu_value *in, ffu_value *out, int64_t lo, int64_t hi, const mont256 *f)
{
	const unsigned char *x = in[0].data, *y = in[1].data;
	unsigned char *o = out[0].data;
	for (int64_t i = lo; i < hi; i++) {
		uint64_t a[4], b[4], v[4];
		memcpy(a, x + 32 * i, 32);
		memcpy(b, y + 32 * i, 32);
		mont_mul(v, a, b, f);
		for (int j = 0; j < 6; j++)
			mont_mul(v, v, b, f);
		mont_mul(v, v, a, f);
		mont_mul(v, v, f->r9, f);
		memcpy(o + 32 * i, v, 32);
	}
}

FFU_BASE_CLONES static void fieldops_bn254_sf(const ffu_value *in, ffu_value *out, int64_t lo, int64_t hi)
{
	fieldops(in, out, lo, hi, &BN254);
}

FFU_BASE_CLONES static void fieldops_bls12_381_sf(const ffu_value *in, ffu_value *out, int64_t lo, int64_t hi)
{
	fieldops(in, out, lo, hi, &BLS12_381);
}

/* The entry points are plain functions: clang 14 names a non-static clone set's symbol
 * differently (name.ifunc), so the clones stay static. */
void ffu__bench_seed_bn254(const ffu_value *in, ffu_value *out, int64_t lo, int64_t hi)
{
	seed_bn254(in, out, lo, hi);
}

void ffu__bench_fieldops_bn254_sf(const ffu_value *in, ffu_value *out, int64_t lo, int64_t hi)
{
	fieldops_bn254_sf(in, out, lo, hi);
}

void ffu__bench_fieldops_bls12_381_sf(const ffu_value *in, ffu_value *out, int64_t lo, int64_t hi)
{
	fieldops_bls12_381_sf(in, out, lo, hi);
}
