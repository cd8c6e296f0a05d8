/*
 * bench/baseline.c: the `c_baseline` mode: each workload that has one written by hand in C,
 * fused by hand, parallel with OpenMP, on the host CPU. It answers "is the OpenCL path on a
 * CPU device as fast as what a careful C programmer would write?". Its outputs are compared
 * with the device's, byte for byte, so a fast but wrong baseline cannot pass. This file holds
 * the table of baselines and the 31-bit fields and their extensions; baseline_64.c holds
 * Goldilocks, baseline_256.c the 256-bit fields, baseline_msm.c the MSM over BN254 G1 and G2.
 *
 * The arithmetic here is deliberately independent of fields/ and cl/, its constants written
 * out (derived with python3, and checked by the comparison):
 * - BabyBear, KoalaBear: 32-bit Montgomery (R = 2^32) on 64-bit products, branch-free so
 *   that GCC vectorises it; Mersenne31: shift-and-add (2^31 = 1).
 * - fieldops_<field> (8 chained products x*y*y*y*y*y*y*y*x, canonical in and out) takes no
 *   conversion into Montgomery form: the Montgomery fields run all 8 products on canonical
 *   values, which leaves x^2 y^7 R^-8, and one more product by the constant R^9 mod p makes
 *   it canonical (9 products, where converting x and y first would take 10).
 * - The extensions (x4: u^4 = W; mersenne31x2: i^2 = -1): schoolbook products with W folded
 *   into the second operand once per element, each coefficient a sum of 64-bit products
 *   reduced once.
 *
 * Every loop body is compiled for x86-64-v4 (AVX-512), v3 (AVX2) and the baseline ISA, one
 * picked at load time (ifunc): PoCL compiles kernels for the host CPU, so C built for SSE2
 * alone would flatter the OpenCL path (measured: 8 BabyBear products at 2^20, 7.8 ms SSE2,
 * 1.46 ms AVX-512 on 2 cores).
 */
#include <stdint.h>
#include <string.h>

#include <omp.h>

#include "bench/baseline.h"
#include "bench/bench.h"

/*
 * Runs fn over 0..n in chunks of CHUNK elements, handed out to the threads as they come
 * free (as PoCL hands out work-groups): with a static split, a thread that shares its
 * core with another process holds up the whole run. Timed from the moment every thread of
 * the team runs to the moment all have finished, as a kernel's profiling events time it
 * once it runs: waking OpenMP's sleeping threads took up to 8 ms in this VM
 * (fieldops_babybear at 2^16: 8.0 ms timed around the parallel region in most runs, 0.09
 * ms inside it).
 */
#define CHUNK 4096 /* a multiple of FFU_EXT_BLOCK */

double ffu__bench_over_threads(ffu__bench_chunk_fn *fn, const ffu_bench_array *in, ffu_bench_array *out, int64_t n)
{
	double start = 0, end = 0;
	int64_t chunks = (n + CHUNK - 1) / CHUNK;
#pragma omp parallel
	{
#pragma omp single
		start = omp_get_wtime(); /* the others wait at the end of single */
#pragma omp for schedule(dynamic) nowait
		for (int64_t c = 0; c < chunks; c++)
			fn(in, out, c * CHUNK, c == chunks - 1 ? n : (c + 1) * CHUNK);
#pragma omp barrier
#pragma omp master
		end = omp_get_wtime();
	}
	return (end - start) * 1e3;
}

/* ---------------------------------------------------------------- BabyBear, KoalaBear */

#define BB_P 0x78000001u
#define BB_NPINV 0x77ffffffu /* -p^-1 mod 2^32 */
#define BB_PINV 0x88000001u  /* p^-1 mod 2^32 */
#define BB_R2 0x45dddde3u    /* (2^32)^2 mod p */
#define BB_R9 0x6fa2bae8u    /* (2^32)^9 mod p */
#define BB_WR 0x37ffffe9u    /* W R mod p, W = 11: mont31(a, BB_WR) = 11 a */
#define KB_P 0x7f000001u
#define KB_NPINV 0x7effffffu
#define KB_PINV 0x81000001u
#define KB_R9 0x0f077438u
#define KB_WR 0x05fffffau /* W = 3 */

#define W64(a, b) ((uint64_t)(a) * (b)) /* 32 x 32 -> 64 bits */

/* a*b/2^32 mod p for a, b < 2^32 with a*b < p*2^32, in [0, p). p < 2^31: t + m*p < 2^64.
 * m, the low word of a*b*npinv, comes from 32-bit products, so that only two products are
 * widened to 64 bits: of the forms tried the fastest with GCC 12 (8 BabyBear products at
 * 2^20 on AVX-512, 2 cores: 1.40 ms; taking m from t's low word: 2.0-3.3 ms). */
FFU_BASE_INLINE uint32_t mont31(uint32_t a, uint32_t b, uint32_t p, uint32_t npinv)
{
	uint64_t t = (uint64_t)a * b;
	uint32_t m = a * b * npinv;
	uint32_t r = (uint32_t)((t + (uint64_t)m * p) >> 32); /* < 2p */
	uint32_t d = r - p;
	return d < r ? d : r; /* r >= p ? r - p : r, as one unsigned min */
}

/*
 * t/2^32 mod p for any t < 2p * 2^32 (a sum of up to 4 products of values < p), in [0, p).
 * With m = lo(t) p^-1, m p has the low word of t, so (t - m p) / 2^32 = hi(t) - hi(m p)
 * exactly, in (-p, 2p): add p if negative, subtract p if >= p.
 */
FFU_BASE_INLINE uint32_t mont31_reduce(uint64_t t, uint32_t p, uint32_t pinv)
{
	uint32_t m = (uint32_t)t * pinv, th = (uint32_t)(t >> 32);
	uint32_t h = (uint32_t)(((uint64_t)m * p) >> 32);
	uint32_t r = th - h;
	r = th < h ? r + p : r;
	uint32_t d = r - p;
	return d < r ? d : r;
}

/* out = (x + y) * x mod p over BabyBear, canonical in and out: (x + y) x / R, times R^2 / R.
 * (The compiler's remainder by the constant p, which this replaced, took 0.70-0.75 ms at
 * 2^20; fused on PoCL 0.17 ms.) */
FFU_BASE_CLONES static void seed_bb(const ffu_bench_array *in, ffu_bench_array *out, int64_t lo, int64_t hi)
{
	const uint32_t *restrict x = (const uint32_t *)in[0].data, *restrict y = (const uint32_t *)in[1].data;
	uint32_t *restrict o = (uint32_t *)out[0].data;
	uint32_t p = BB_P, npinv = BB_NPINV;
	FFU_BASE_OPAQUE(p);
	FFU_BASE_OPAQUE(npinv);
#pragma omp simd
	for (int64_t i = lo; i < hi; i++) {
		uint32_t s = x[i] + y[i], d = s - p;
		s = d < s ? d : s;
		o[i] = mont31(mont31(s, x[i], p, npinv), BB_R2, p, npinv);
	}
}

/* The 8-product chain, then the product by R^9 that leaves x^2 y^7 canonical. */
#define MONT31_FIELDOPS(name, P, NPINV, R9)                                                               \
	FFU_BASE_CLONES static void name(const ffu_bench_array *in, ffu_bench_array *out, int64_t lo,     \
					 int64_t hi)                                                      \
	{                                                                                                 \
		const uint32_t *restrict x = (const uint32_t *)in[0].data;                                \
		const uint32_t *restrict y = (const uint32_t *)in[1].data;                                \
		uint32_t *restrict o = (uint32_t *)out[0].data;                                           \
		uint32_t p = P, npinv = NPINV, r9 = R9;                                                   \
		FFU_BASE_OPAQUE(p);                                                                       \
		FFU_BASE_OPAQUE(npinv);                                                                   \
		_Pragma("omp simd") for (int64_t i = lo; i < hi; i++)                                     \
		{                                                                                         \
			uint32_t a = x[i], b = y[i], v = mont31(a, b, p, npinv);                          \
			for (int j = 0; j < 6; j++)                                                       \
				v = mont31(v, b, p, npinv);                                               \
			v = mont31(v, a, p, npinv); /* x^2 y^7 / R^8 */                                   \
			o[i] = mont31(v, r9, p, npinv);                                                   \
		}                                                                                         \
	}
MONT31_FIELDOPS(fieldops_babybear, BB_P, BB_NPINV, BB_R9)
MONT31_FIELDOPS(fieldops_koalabear, KB_P, KB_NPINV, KB_R9)

/*
 * c = a b / R in F_p[u]/(u^4 - W); bw_j = W b_j folds u^4 = W in:
 * c_k = sum over i+j = k of a_i b_j + sum over i+j = k+4 of a_i (W b_j). Each c_k is one sum
 * of 4 products (< 4 p^2 < 2p 2^32), reduced once. c may be a.
 */
#define X4_MUL(c, a, b, bw)                                                                               \
	do {                                                                                              \
		uint32_t a0_ = a[0], a1_ = a[1], a2_ = a[2], a3_ = a[3];                                  \
		uint64_t s0_ = W64(a0_, b[0]) + W64(a1_, bw[3]) + W64(a2_, bw[2]) + W64(a3_, bw[1]);      \
		uint64_t s1_ = W64(a0_, b[1]) + W64(a1_, b[0]) + W64(a2_, bw[3]) + W64(a3_, bw[2]);       \
		uint64_t s2_ = W64(a0_, b[2]) + W64(a1_, b[1]) + W64(a2_, b[0]) + W64(a3_, bw[3]);        \
		uint64_t s3_ = W64(a0_, b[3]) + W64(a1_, b[2]) + W64(a2_, b[1]) + W64(a3_, b[0]);         \
		c[0] = mont31_reduce(s0_, p, pinv);                                                       \
		c[1] = mont31_reduce(s1_, p, pinv);                                                       \
		c[2] = mont31_reduce(s2_, p, pinv);                                                       \
		c[3] = mont31_reduce(s3_, p, pinv);                                                       \
	} while (0)

/* The chain over the quartic extension: W x and W y once, 8 products that each leave a
 * factor 1/R, and the 4 coefficients times R^9 at the end. */
#define MONT31_X4_FIELDOPS(name, P, NPINV, PINV, R9, WR)                                                  \
	FFU_BASE_CLONES static void name(const ffu_bench_array *in, ffu_bench_array *out, int64_t lo,     \
					 int64_t hi)                                                      \
	{                                                                                                 \
		const uint32_t *x = (const uint32_t *)in[0].data, *y = (const uint32_t *)in[1].data;      \
		uint32_t *o = (uint32_t *)out[0].data;                                                    \
		uint32_t p = P, npinv = NPINV, pinv = PINV, r9 = R9, wr = WR;                             \
		FFU_BASE_OPAQUE(p);                                                                       \
		FFU_BASE_OPAQUE(npinv);                                                                   \
		FFU_BASE_OPAQUE(pinv);                                                                    \
		uint32_t xs[4][FFU_EXT_BLOCK] = {{0}}, ys[4][FFU_EXT_BLOCK] = {{0}}, os[4][FFU_EXT_BLOCK];            \
		for (int64_t i0 = lo; i0 < hi; i0 += FFU_EXT_BLOCK) {                                         \
			int n = hi - i0 < FFU_EXT_BLOCK ? (int)(hi - i0) : FFU_EXT_BLOCK;                         \
			FFU_EXT_SPLIT(xs, x, 4, i0, n);                                                       \
			FFU_EXT_SPLIT(ys, y, 4, i0, n);                                                       \
			_Pragma("omp simd") for (int l = 0; l < FFU_EXT_BLOCK; l++)                           \
			{                                                                                 \
				uint32_t a[4] = {xs[0][l], xs[1][l], xs[2][l], xs[3][l]};                 \
				uint32_t b[4] = {ys[0][l], ys[1][l], ys[2][l], ys[3][l]};                 \
				uint32_t aw[4] = {0, mont31(a[1], wr, p, npinv), mont31(a[2], wr, p, npinv), \
						  mont31(a[3], wr, p, npinv)};                            \
				uint32_t bw[4] = {0, mont31(b[1], wr, p, npinv), mont31(b[2], wr, p, npinv), \
						  mont31(b[3], wr, p, npinv)};                            \
				uint32_t v[4];                                                            \
				X4_MUL(v, a, b, bw);                                                      \
				_Pragma("GCC unroll 6") for (int j = 0; j < 6; j++) X4_MUL(v, v, b, bw);  \
				X4_MUL(v, v, a, aw);                                                      \
				os[0][l] = mont31(v[0], r9, p, npinv);                                    \
				os[1][l] = mont31(v[1], r9, p, npinv);                                    \
				os[2][l] = mont31(v[2], r9, p, npinv);                                    \
				os[3][l] = mont31(v[3], r9, p, npinv);                                    \
			}                                                                                 \
			FFU_EXT_JOIN(o, os, 4, i0, n);                                                        \
		}                                                                                         \
	}
MONT31_X4_FIELDOPS(fieldops_babybearx4, BB_P, BB_NPINV, BB_PINV, BB_R9, BB_WR)
MONT31_X4_FIELDOPS(fieldops_koalabearx4, KB_P, KB_NPINV, KB_PINV, KB_R9, KB_WR)

/* ---------------------------------------------------------------- Mersenne31 */

#define M31_P 0x7fffffffu

/* a*b mod 2^31 - 1: the product's high bits fold onto its low 31 (2^31 = 1) */
FFU_BASE_INLINE uint32_t m31_mul(uint32_t a, uint32_t b)
{
	uint64_t t = (uint64_t)a * b;                             /* < 2^62 */
	uint32_t r = (uint32_t)(t & M31_P) + (uint32_t)(t >> 31); /* < 2p */
	uint32_t d = r - M31_P;
	return d < r ? d : r;
}

/* t mod 2^31 - 1 for t < 2^63 (a sum of two products): two folds, then one subtraction */
FFU_BASE_INLINE uint32_t m31_reduce(uint64_t t)
{
	t = (t & M31_P) + (t >> 31);                              /* < 2^32 + 2^31 */
	uint32_t r = (uint32_t)(t & M31_P) + (uint32_t)(t >> 31); /* < 2^31 + 3 */
	uint32_t d = r - M31_P;
	return d < r ? d : r;
}

FFU_BASE_CLONES static void fieldops_mersenne31(const ffu_bench_array *in, ffu_bench_array *out, int64_t lo, int64_t hi)
{
	const uint32_t *restrict x = (const uint32_t *)in[0].data, *restrict y = (const uint32_t *)in[1].data;
	uint32_t *restrict o = (uint32_t *)out[0].data;
#pragma omp simd
	for (int64_t i = lo; i < hi; i++) {
		uint32_t a = x[i], b = y[i], v = m31_mul(a, b);
		for (int j = 0; j < 6; j++)
			v = m31_mul(v, b);
		o[i] = m31_mul(v, a);
	}
}

/* (a0 + a1 i)(b0 + b1 i) = a0 b0 - a1 b1 + (a0 b1 + a1 b0) i, with nb1 = p - b1 standing in
 * for -b1 (p itself when b1 = 0: still 0 mod p) */
FFU_BASE_INLINE void m31x2_mul(uint32_t *c0, uint32_t *c1, uint32_t a0, uint32_t a1, uint32_t b0, uint32_t b1,
			       uint32_t nb1)
{
	*c0 = m31_reduce(W64(a0, b0) + W64(a1, nb1));
	*c1 = m31_reduce(W64(a0, b1) + W64(a1, b0));
}

FFU_BASE_CLONES static void fieldops_mersenne31x2(const ffu_bench_array *in, ffu_bench_array *out, int64_t lo,
						  int64_t hi)
{
	const uint32_t *x = (const uint32_t *)in[0].data, *y = (const uint32_t *)in[1].data;
	uint32_t *o = (uint32_t *)out[0].data;
	uint32_t xs[2][FFU_EXT_BLOCK] = {{0}}, ys[2][FFU_EXT_BLOCK] = {{0}}, os[2][FFU_EXT_BLOCK];
	for (int64_t i0 = lo; i0 < hi; i0 += FFU_EXT_BLOCK) { /* see bench.h */
		int n = hi - i0 < FFU_EXT_BLOCK ? (int)(hi - i0) : FFU_EXT_BLOCK;
		FFU_EXT_SPLIT(xs, x, 2, i0, n);
		FFU_EXT_SPLIT(ys, y, 2, i0, n);
#pragma omp simd
		for (int l = 0; l < FFU_EXT_BLOCK; l++) {
			uint32_t a0 = xs[0][l], a1 = xs[1][l], b0 = ys[0][l], b1 = ys[1][l], v0, v1;
			uint32_t na1 = M31_P - a1, nb1 = M31_P - b1;
			m31x2_mul(&v0, &v1, a0, a1, b0, b1, nb1);
#pragma GCC unroll 6
			for (int j = 0; j < 6; j++)
				m31x2_mul(&v0, &v1, v0, v1, b0, b1, nb1);
			m31x2_mul(&os[0][l], &os[1][l], v0, v1, a0, a1, na1);
		}
		FFU_EXT_JOIN(o, os, 2, i0, n);
	}
}

/* ---------------------------------------------------------------- BabyBear's NTT */

/* a - b mod p for canonical a, b: the wrapped difference, or it plus p, whichever is the
 * smaller as an unsigned number (branch-free, as mont31) */
FFU_BASE_INLINE uint32_t bb_sub(uint32_t a, uint32_t b, uint32_t p)
{
	uint32_t r = a - b, q = r + p;
	return q < r ? q : r;
}

FFU_BASE_INLINE uint32_t bb_add(uint32_t a, uint32_t b, uint32_t p)
{
	uint32_t s = a + b, d = s - p;
	return d < s ? d : s;
}

/* ntt_babybear and lde_babybear (bench/baseline_ntt.h); constants times R = 2^32, derived
 * with python3: g = 31, two-adicity 27 */
#define NTT_PREFIX bb_ntt_
#define NTT_T uint32_t
#define NTT_ATTR FFU_BASE_CLONES
#define NTT_LOCALS                                                                                        \
	uint32_t p = BB_P, npinv = BB_NPINV;                                                              \
	FFU_BASE_OPAQUE(p);                                                                               \
	FFU_BASE_OPAQUE(npinv)
#define NTT_MUL(a, b) mont31(a, b, p, npinv)
#define NTT_ADD(a, b) bb_add(a, b, p)
#define NTT_SUB(a, b) bb_sub(a, b, p)
#define NTT_ONE_R 0x0ffffffeu
#define NTT_HALF_R 0x07ffffffu
#define NTT_R2 BB_R2
#define NTT_ROOT_R 0x57fab6eeu /* 31^((p - 1) / 2^27) R */
#define NTT_S 27
#define NTT_WITH_LDE
#include "bench/baseline_ntt.h"

/* ---------------------------------------------------------------- the table */

static const struct {
	const char *workload;
	ffu__bench_chunk_fn *fn;
} baselines[] = {
	{"seed_bb", seed_bb},
	{"seed_bn254", ffu__bench_seed_bn254},
	{"fieldops_babybear", fieldops_babybear},
	{"fieldops_koalabear", fieldops_koalabear},
	{"fieldops_mersenne31", fieldops_mersenne31},
	{"fieldops_goldilocks", ffu__bench_fieldops_goldilocks},
	{"fieldops_bn254_sf", ffu__bench_fieldops_bn254_sf},
	{"fieldops_bls12_381_sf", ffu__bench_fieldops_bls12_381_sf},
	{"fieldops_babybearx4", fieldops_babybearx4},
	{"fieldops_koalabearx4", fieldops_koalabearx4},
	{"fieldops_mersenne31x2", fieldops_mersenne31x2},
	{"fieldops_goldilocksx2", ffu__bench_fieldops_goldilocksx2},
	{"quotient", ffu__bench_quotient_bn254},
};

/* The NTTs and the MSMs, whose elements are not independent: each runs its own parallel
 * region and times it (ffu__bench_whole_fn; the MSMs' table is baseline_msm.c's curves[]) */
static const struct {
	const char *workload;
	ffu__bench_whole_fn *fn;
} whole_baselines[] = {
	{"ntt_babybear", bb_ntt_run},
	{"ntt_goldilocks", ffu__bench_ntt_goldilocks},
	{"ntt_bn254_sf", ffu__bench_ntt_bn254_sf},
	{"ntt_bls12_381_sf", ffu__bench_ntt_bls12_381_sf},
	{"lde_babybear", bb_ntt_lde},
	{"lde_goldilocks", ffu__bench_lde_goldilocks},
};

bool ffu__bench_has_baseline(const char *workload)
{
	for (size_t i = 0; i < sizeof baselines / sizeof baselines[0]; i++)
		if (strcmp(baselines[i].workload, workload) == 0)
			return true;
	for (size_t i = 0; i < sizeof whole_baselines / sizeof whole_baselines[0]; i++)
		if (strcmp(whole_baselines[i].workload, workload) == 0)
			return true;
	return ffu__bench_msm_has(workload);
}

double ffu__bench_baseline(const char *workload, const ffu_bench_array *in, ffu_bench_array *out, int64_t n)
{
	for (size_t i = 0; i < sizeof baselines / sizeof baselines[0]; i++)
		if (strcmp(baselines[i].workload, workload) == 0)
			return ffu__bench_over_threads(baselines[i].fn, in, out, n);
	for (size_t i = 0; i < sizeof whole_baselines / sizeof whole_baselines[0]; i++)
		if (strcmp(whole_baselines[i].workload, workload) == 0)
			return whole_baselines[i].fn(in, out);
	if (ffu__bench_msm_has(workload))
		return ffu__bench_msm(workload, in, out, 0);
	return 0;
}
