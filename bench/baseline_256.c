/*
 * bench/baseline_256.c: the `c_baseline` mode's 256-bit workloads (see baseline.c): the BN254
 * and BLS12-381 scalar fields on 4 x 64-bit limbs, little-endian (the value layout: 32 bytes
 * per element), with the Montgomery arithmetic of bench/mont256.h (R = 2^256, CIOS with
 * unsigned __int128), which takes the field's constants. The constants were derived with python3 (pow(p, -1, 2**64),
 * pow(2**256, k, p)) and are checked by bench's byte-for-byte comparison with the device.
 */
#include <stdint.h>
#include <string.h>

#include "bench/baseline.h"
#include "bench/mont256.h"

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

/* out = x*x - x over the BN254 scalar field: one conversion and one product, as fused */
FFU_BASE_CLONES static void seed_bn254(const ffu_bench_array *in, ffu_bench_array *out, int64_t lo, int64_t hi)
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
FFU_BASE_INLINE void fieldops(const ffu_bench_array *in, ffu_bench_array *out, int64_t lo, int64_t hi, const mont256 *f)
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

FFU_BASE_CLONES static void fieldops_bn254_sf(const ffu_bench_array *in, ffu_bench_array *out, int64_t lo, int64_t hi)
{
	fieldops(in, out, lo, hi, &BN254);
}

FFU_BASE_CLONES static void fieldops_bls12_381_sf(const ffu_bench_array *in, ffu_bench_array *out, int64_t lo,
						  int64_t hi)
{
	fieldops(in, out, lo, hi, &BLS12_381);
}

/*
 * q = (f - v) / (x - z) over the BN254 scalar field, with inverse(0) = 0, as a prover
 * computes it: Montgomery's batch inversion over blocks of QUOTIENT_BLOCK elements, one
 * Fermat inversion (x^(p-2)) per block instead of one per element. The block's prefix
 * products (8 KiB at 256 elements) stay in L1; the inversion, about 330 products, costs
 * about 1.3 products per element on top of the 4 below.
 *
 * All on canonical values with M(a, b) = a b / R, no conversions: with d_i = x_i - z and
 * c_i = M(c_(i-1), d_i) = d_0...d_i / R^i, the inversion gives R^2 / c_(n-1) and one product
 * by 1 makes it a_(n-1) = R / c_(n-1) = R^n / (d_0...d_(n-1)). Going down, a_i = R^(i+1) /
 * (d_0...d_i): t_i = M(a_i, c_(i-1)) = R / d_i, q_i = M(t_i, f_i - v) = (f_i - v) / d_i, and
 * a_(i-1) = M(a_i, d_i). Per element: 3 products for the inversion, 1 for the quotient.
 *
 * A zero d_i (x_i = z) enters the products as 1, so that it spoils neither the block's
 * product nor the others' inverses, and its numerator is taken as 0, so that q_i = 0 / 1 =
 * 0. Both branch-free, by a mask.
 */
#define QUOTIENT_BLOCK 256

/* d = x - z, or 1 where that is 0; returns the mask of that case (all ones), else 0. */
FFU_BASE_INLINE uint64_t quotient_denominator(uint64_t d[4], const unsigned char *x_bytes, const uint64_t z[4],
					      const mont256 *f)
{
	uint64_t x[4];
	memcpy(x, x_bytes, 32);
	mont_sub(d, x, z, f);
	uint64_t zero = 0 - (uint64_t)((d[0] | d[1] | d[2] | d[3]) == 0);
	d[0] |= zero & 1;
	return zero;
}

FFU_BASE_CLONES static void quotient_bn254(const ffu_bench_array *in, ffu_bench_array *out, int64_t lo, int64_t hi)
{
	const mont256 *f = &BN254;
	const unsigned char *fs = in[0].data, *xs = in[1].data;
	unsigned char *o = out[0].data;
	uint64_t v[4], z[4], e[4], c[QUOTIENT_BLOCK][4];
	static const uint64_t one[4] = {1, 0, 0, 0};
	memcpy(v, in[2].data, 32);
	memcpy(z, in[3].data, 32);
	memcpy(e, f->p, 32);
	e[0] -= 2; /* p - 2: p's low limb is odd and > 2 */
	for (int64_t i0 = lo; i0 < hi; i0 += QUOTIENT_BLOCK) {
		int n = hi - i0 < QUOTIENT_BLOCK ? (int)(hi - i0) : QUOTIENT_BLOCK;
		for (int l = 0; l < n; l++) {
			uint64_t d[4];
			quotient_denominator(d, xs + 32 * (i0 + l), z, f);
			if (l == 0)
				memcpy(c[0], d, 32);
			else
				mont_mul(c[l], c[l - 1], d, f);
		}
		uint64_t a[4];
		mont_pow(a, c[n - 1], e, f);
		mont_mul(a, a, one, f);
		for (int l = n - 1; l >= 0; l--) {
			uint64_t d[4], y[4], num[4], t[4], q[4];
			uint64_t zero = quotient_denominator(d, xs + 32 * (i0 + l), z, f);
			memcpy(y, fs + 32 * (i0 + l), 32);
			mont_sub(num, y, v, f);
			for (int j = 0; j < 4; j++)
				num[j] &= ~zero; /* 0 where d = 0 */
			if (l > 0) {
				mont_mul(t, a, c[l - 1], f);
				mont_mul(a, a, d, f);
			} else {
				memcpy(t, a, 32);
			}
			mont_mul(q, t, num, f);
			memcpy(o + 32 * (i0 + l), q, 32);
		}
	}
}

/* The entry points are plain functions: clang 14 names a non-static clone set's symbol
 * differently (name.ifunc), so the clones stay static. */
void ffu__bench_seed_bn254(const ffu_bench_array *in, ffu_bench_array *out, int64_t lo, int64_t hi)
{
	seed_bn254(in, out, lo, hi);
}

void ffu__bench_fieldops_bn254_sf(const ffu_bench_array *in, ffu_bench_array *out, int64_t lo, int64_t hi)
{
	fieldops_bn254_sf(in, out, lo, hi);
}

void ffu__bench_fieldops_bls12_381_sf(const ffu_bench_array *in, ffu_bench_array *out, int64_t lo, int64_t hi)
{
	fieldops_bls12_381_sf(in, out, lo, hi);
}

void ffu__bench_quotient_bn254(const ffu_bench_array *in, ffu_bench_array *out, int64_t lo, int64_t hi)
{
	quotient_bn254(in, out, lo, hi);
}

/* ---------------------------------------------------------------- ntt_bn254_sf, ntt_bls12_381_sf */

/* An element by value, so that the NTT template (bench/baseline_ntt.h) can assign it */
typedef struct fe256 {
	uint64_t l[4];
} fe256;

FFU_BASE_INLINE fe256 fe_mul(fe256 a, fe256 b, const mont256 *f)
{
	fe256 r;
	mont_mul(r.l, a.l, b.l, f);
	return r;
}

FFU_BASE_INLINE fe256 fe_sub(fe256 a, fe256 b, const mont256 *f)
{
	fe256 r;
	mont_sub(r.l, a.l, b.l, f);
	return r;
}

FFU_BASE_INLINE fe256 fe_add(fe256 a, fe256 b, const mont256 *f)
{
	fe256 r;
	mont_add(r.l, a.l, b.l, f);
	return r;
}

/* Constants times R = 2^256, derived with python3 */
#define NTT_T fe256
#define NTT_NO_SIMD
#define NTT_ATTR FFU_BASE_CLONES
#define NTT_LOCALS ((void)0)
#define NTT_MUL(a, b) fe_mul(a, b, NTT_FIELD)
#define NTT_ADD(a, b) fe_add(a, b, NTT_FIELD)
#define NTT_SUB(a, b) fe_sub(a, b, NTT_FIELD)
#define NTT_R2 ((fe256){{NTT_FIELD->r2[0], NTT_FIELD->r2[1], NTT_FIELD->r2[2], NTT_FIELD->r2[3]}})

#define NTT_PREFIX bn254_ntt_
#define NTT_FIELD (&BN254)
#define NTT_ONE_R ((fe256){{0xac96341c4ffffffbull, 0x36fc76959f60cd29ull, 0x666ea36f7879462eull, 0x0e0a77c19a07df2full}})
#define NTT_HALF_R ((fe256){{0x783c14d81ffffffeull, 0xaf982f6f0c8d1eddull, 0x8f5f7492fcfd4f45ull, 0x1f37631a3d9cbfacull}})
/* 5^((p - 1) / 2^28) R */
#define NTT_ROOT_R ((fe256){{0x636e735580d13d9cull, 0xa22bf3742445ffd6ull, 0x56452ac01eb203d8ull, 0x1860ef942963f9e7ull}})
#define NTT_S 28
#include "bench/baseline_ntt.h"
#undef NTT_PREFIX
#undef NTT_FIELD
#undef NTT_ONE_R
#undef NTT_HALF_R
#undef NTT_ROOT_R
#undef NTT_S

#define NTT_PREFIX bls_ntt_
#define NTT_FIELD (&BLS12_381)
#define NTT_ONE_R ((fe256){{0x00000001fffffffeull, 0x5884b7fa00034802ull, 0x998c4fefecbc4ff5ull, 0x1824b159acc5056full}})
#define NTT_HALF_R ((fe256){{0x00000000ffffffffull, 0xac425bfd0001a401ull, 0xccc627f7f65e27faull, 0x0c1258acd66282b7ull}})
/* 7^((p - 1) / 2^32) R */
#define NTT_ROOT_R ((fe256){{0xb9b58d8c5f0e466aull, 0x5b1b4c801819d7ecull, 0x0af53ae352a31e64ull, 0x5bf3adda19e9b27bull}})
#define NTT_S 32
#include "bench/baseline_ntt.h"

double ffu__bench_ntt_bn254_sf(const ffu_bench_array *in, ffu_bench_array *out)
{
	return bn254_ntt_run(in, out);
}

double ffu__bench_ntt_bls12_381_sf(const ffu_bench_array *in, ffu_bench_array *out)
{
	return bls_ntt_run(in, out);
}
