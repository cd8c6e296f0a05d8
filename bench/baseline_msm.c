/*
 * bench/baseline_msm.c: the `c_baseline` mode of the msm workloads (see baseline.c): the
 * sum of s_i P_i by Pippenger's bucket method in plain C with OpenMP, as a careful C
 * programmer would write it for the host CPU, over each curve of the table at the end:
 * msm_bn254_g1 (y^2 = x^3 + 3 over Fq), msm_bn254_g2 (y^2 = x^3 + 3/(9 + u) over
 * Fq2 = Fq[u]/(u^2 + 1)), msm_bls12_381_g1 (y^2 = x^3 + 4 over BLS12-381's 381-bit Fq)
 * and msm_bls12_381_g2 (y^2 = x^3 + 4(1 + u) over its Fq2 = Fq[u]/(u^2 + 1)).
 * The algorithm is bench/msm_pippenger.h, one text instantiated per curve over the
 * coordinate field's arithmetic defined here (the quadratic extensions: bench/fq2_tmpl.h).
 *
 * Inputs as the workload's parameters hold them: scalars bn254_sf[n] or bls12_381_sf[n]
 * (32 canonical little-endian bytes each, < r), bases <curve>_affine[n] (x then y, each
 * coordinate's canonical bytes: 32 for BN254's Fq, 64 for its Fq2 (c0 then c1), 48 for
 * BLS12-381's Fq, 96 for its Fq2; the point at infinity is all zeros). Output: the sum as a canonical
 * affine point, zeros for infinity: the bytes `fieldfuse run --interp` gives, which bench
 * compares.
 *
 * BN254's Fq is on 4 x 64-bit limbs in Montgomery form (bench/mont256.h); an Fq2 element
 * is two of them, the product by Karatsuba (3 Fq products), the inverse through the norm
 * a0^2 + a1^2 (one Fq inversion, Fermat). BLS12-381's Fq is on 6 limbs (bench/mont384.h),
 * its Fq2 the same construction.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "bench/baseline.h"
#include "bench/mont256.h"
#include "bench/mont384.h"

/* BN254 Fq: p = 0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47;
 * constants derived with python3 (pow(p, -1, 2**64), pow(2, 512, p)). r9 is not used. */
static const mont256 FQ = {
	.p = {0x3c208c16d87cfd47ull, 0x97816a916871ca8dull, 0xb85045b68181585dull, 0x30644e72e131a029ull},
	.npinv = 0x87d20782e4866389ull,
	.r2 = {0xf32cfc5b538afa89ull, 0xb5e71911d44501fbull, 0x47ab1eff0a417ff6ull, 0x06d89f71cab8351full},
};

/* ---- Fq, in Montgomery form ---- */

typedef struct fq {
	uint64_t v[4];
} fq;
/* R mod p: 1 in Montgomery form (an initializer too: Fq2's one is (it, 0)) */
#define FQ_ONE_INIT {{0xd35d438dc58f0d9dull, 0x0a78eb28f5c70b3dull, 0x666ea36f7879462cull, 0x0e0a77c19a07df2full}}
static const fq FQ_ONE = FQ_ONE_INIT;

FFU_BASE_INLINE void fq_mul(fq *r, const fq *a, const fq *b)
{
	mont_mul(r->v, a->v, b->v, &FQ);
}

FFU_BASE_INLINE void fq_add(fq *r, const fq *a, const fq *b)
{
	mont_add(r->v, a->v, b->v, &FQ);
}

FFU_BASE_INLINE void fq_sub(fq *r, const fq *a, const fq *b)
{
	mont_sub(r->v, a->v, b->v, &FQ);
}

FFU_BASE_INLINE bool fq_is_zero(const fq *a)
{
	return (a->v[0] | a->v[1] | a->v[2] | a->v[3]) == 0;
}

FFU_BASE_INLINE void fq_load(fq *r, const unsigned char *s)
{
	fq raw;
	memcpy(raw.v, s, 32);
	mont_mul(r->v, raw.v, FQ.r2, &FQ);
}

FFU_BASE_INLINE void fq_store(unsigned char *s, const fq *a)
{
	static const uint64_t one[4] = {1, 0, 0, 0};
	fq t;
	mont_mul(t.v, a->v, one, &FQ); /* out of Montgomery form */
	memcpy(s, t.v, 32);
}

/* a^(p-2) (Fermat); a != 0 */
FFU_BASE_INLINE void fq_inv(fq *r, const fq *a)
{
	uint64_t e[4];
	memcpy(e, FQ.p, 32);
	e[0] -= 2; /* p - 2: p's low limb is odd and > 2 */
	mont_pow(r->v, a->v, e, &FQ);
}

/* ---- Fq2 = Fq[u]/(u^2 + 1) (bench/fq2_tmpl.h) ---- */

#define E2 fq2
#define B fq
#define B_BYTES 32
#include "bench/fq2_tmpl.h"
#undef E2
#undef B
#undef B_BYTES
static const fq2 FQ2_ONE = {FQ_ONE_INIT, {{0}}};

/*
 * The window width for n points: the cost is about (254 / c) (n mixed additions + 2^c
 * bucket additions), least near c = log2(n) - 3 by that count, but a thread's buckets
 * (2^(c-1) of bucket_bytes) must stay in its L2: measured for G1 (128-byte buckets) at 2^20
 * on the 2-core EPYC VM (1 MiB L2 a core), medians of 2 runs, 2 threads: c = 12: 6.27 s,
 * 13: 6.14 s, 15: 6.72 s, 16: 11.0 s, 17: 11.8 s, 18: 12.5 s. So c = log2(n) - 3, with at
 * most 512 KiB of buckets: c <= 13 for BN254 G1, c <= 12 for G2's 256-byte buckets and
 * BLS12-381 G1's 192-byte ones. At 2^16
 * (c = 13) G1's widths 10 to 15 were within the noise (345-440 ms).
 */
int ffu__bench_msm_window(int64_t n, size_t bucket_bytes)
{
	int lg = 0;
	while (lg < 62 && (INT64_C(1) << (lg + 1)) <= n)
		lg++;
	int c = lg - 3;
	while (c > 2 && ((size_t)1 << (c - 1)) * bucket_bytes > ((size_t)512 << 10))
		c--;
	return c < 2 ? 2 : c;
}

/* The signed digits of scalar s (canonical little-endian bytes) for windows of c bits,
 * nw windows, into d[w * stride] */
FFU_BASE_INLINE void signed_digits(int32_t *d, int64_t stride, const unsigned char *s, int c, int nw)
{
	uint64_t k[4];
	memcpy(k, s, 32);
	int32_t carry = 0, half = INT32_C(1) << (c - 1);
	for (int w = 0; w < nw; w++) {
		int bit = w * c, limb = bit / 64, sh = bit % 64;
		uint64_t v = limb < 4 ? k[limb] >> sh : 0;
		if (sh + c > 64 && limb + 1 < 4)
			v |= k[limb + 1] << (64 - sh);
		int32_t raw = (int32_t)(v & ((UINT64_C(1) << c) - 1)) + carry;
		carry = raw > half;
		d[w * stride] = carry ? raw - 2 * half : raw;
	}
}


/* ---- BLS12-381's Fq, in Montgomery form (6 limbs) ---- */

/* p = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab;
 * constants derived with python3 (pow(p, -1, 2**64), pow(2, 768, p), pow(2, 384, p)) */
static const mont384 BF = {
	.p = {0xb9feffffffffaaabull, 0x1eabfffeb153ffffull, 0x6730d2a0f6b0f624ull, 0x64774b84f38512bfull,
	      0x4b1ba7b6434bacd7ull, 0x1a0111ea397fe69aull},
	.npinv = 0x89f3fffcfffcfffdull,
	.r2 = {0xf4df1f341c341746ull, 0x0a76e6a609d104f1ull, 0x8de5476c4c95b6d5ull, 0x67eb88a9939d83c0ull,
	       0x9a793e85b519952dull, 0x11988fe592cae3aaull},
};

typedef struct bf {
	uint64_t v[6];
} bf;
/* R mod p (an initializer too: Fq2's one is (it, 0)) */
#define BF_ONE_INIT                                                                                     \
	{{0x760900000002fffdull, 0xebf4000bc40c0002ull, 0x5f48985753c758baull, 0x77ce585370525745ull,     \
	  0x5c071a97a256ec6dull, 0x15f65ec3fa80e493ull}}
static const bf BF_ONE = BF_ONE_INIT;

FFU_BASE_INLINE void bf_mul(bf *r, const bf *a, const bf *b)
{
	mont384_mul(r->v, a->v, b->v, &BF);
}

FFU_BASE_INLINE void bf_add(bf *r, const bf *a, const bf *b)
{
	mont384_add(r->v, a->v, b->v, &BF);
}

FFU_BASE_INLINE void bf_sub(bf *r, const bf *a, const bf *b)
{
	mont384_sub(r->v, a->v, b->v, &BF);
}

FFU_BASE_INLINE bool bf_is_zero(const bf *a)
{
	return (a->v[0] | a->v[1] | a->v[2] | a->v[3] | a->v[4] | a->v[5]) == 0;
}

FFU_BASE_INLINE void bf_load(bf *r, const unsigned char *s)
{
	bf raw;
	memcpy(raw.v, s, 48);
	mont384_mul(r->v, raw.v, BF.r2, &BF);
}

FFU_BASE_INLINE void bf_store(unsigned char *s, const bf *a)
{
	static const uint64_t one[6] = {1, 0, 0, 0, 0, 0};
	bf t;
	mont384_mul(t.v, a->v, one, &BF); /* out of Montgomery form */
	memcpy(s, t.v, 48);
}

FFU_BASE_INLINE void bf_inv(bf *r, const bf *a)
{
	mont384_inv(r->v, a->v, BF_ONE.v, &BF);
}

/* ---- its Fq2 = Fq[u]/(u^2 + 1), G2's coordinates (bench/fq2_tmpl.h) ---- */

#define E2 bf2
#define B bf
#define B_BYTES 48
#include "bench/fq2_tmpl.h"
#undef E2
#undef B
#undef B_BYTES
static const bf2 BF2_ONE = {BF_ONE_INIT, {{0}}};

/* ---- the instances: one per curve ---- */

/* FE_ names the coordinate field's functions above (fq_mul, fq2_mul, ...) */
#define CAT2_(a, b) a##b
#define CAT_(a, b) CAT2_(a, b)
#define FE_MUL(r, a, b) CAT_(FE_, _mul)(r, a, b)
#define FE_ADD(r, a, b) CAT_(FE_, _add)(r, a, b)
#define FE_SUB(r, a, b) CAT_(FE_, _sub)(r, a, b)
#define FE_IS_ZERO(a) CAT_(FE_, _is_zero)(a)
#define FE_LOAD(r, s) CAT_(FE_, _load)(r, s)
#define FE_STORE(s, a) CAT_(FE_, _store)(s, a)
#define FE_INV(r, a) CAT_(FE_, _inv)(r, a)

/* BN254 G1 over Fq; BN254's r < 2^254 */
#define P(name) g1_##name
#define FE fq
#define FE_ fq
#define FE_ONE FQ_ONE
#define SCALAR_BITS 254
#include "bench/msm_pippenger.h"
#undef P
#undef FE
#undef FE_
#undef FE_ONE

/* BN254 G2 over Fq2 */
#define P(name) g2_##name
#define FE fq2
#define FE_ fq2
#define FE_ONE FQ2_ONE
#include "bench/msm_pippenger.h"
#undef P
#undef FE
#undef FE_
#undef FE_ONE
#undef SCALAR_BITS

/* BLS12-381 G1 over its Fq; BLS12-381's r < 2^255 */
#define P(name) bls_g1_##name
#define FE bf
#define FE_ bf
#define FE_ONE BF_ONE
#define SCALAR_BITS 255
#include "bench/msm_pippenger.h"
#undef P
#undef FE
#undef FE_
#undef FE_ONE

/* BLS12-381 G2 over its Fq2 */
#define P(name) bls_g2_##name
#define FE bf2
#define FE_ bf2
#define FE_ONE BF2_ONE
#include "bench/msm_pippenger.h"
#undef P
#undef FE
#undef FE_
#undef FE_ONE
#undef SCALAR_BITS

/* The workloads and their instances: `fieldfuse bench`'s baselines and test_bench_msm */
static const struct {
	const char *workload;
	double (*run)(const ffu_bench_array *in, ffu_bench_array *out, int c);
} curves[] = {
	{"msm_bn254_g1", g1_run},
	{"msm_bn254_g2", g2_run},
	{"msm_bls12_381_g1", bls_g1_run},
	{"msm_bls12_381_g2", bls_g2_run},
};

double ffu__bench_msm(const char *workload, const ffu_bench_array *in, ffu_bench_array *out, int c)
{
	for (size_t i = 0; i < sizeof curves / sizeof curves[0]; i++)
		if (strcmp(curves[i].workload, workload) == 0)
			return curves[i].run(in, out, c);
	return -1;
}

bool ffu__bench_msm_has(const char *workload)
{
	for (size_t i = 0; i < sizeof curves / sizeof curves[0]; i++)
		if (strcmp(curves[i].workload, workload) == 0)
			return true;
	return false;
}
