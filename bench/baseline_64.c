/*
 * bench/baseline_64.c: the `c_baseline` mode's Goldilocks workloads (see baseline.c):
 * p = 2^64 - 2^32 + 1, one uint64 per canonical value (an x2 element is two, lowest degree
 * first). A product is 128 bits folded with 2^64 = 2^32 - 1 and 2^96 = -1 mod p.
 *
 * Two forms of the product: one 64 x 64 -> 128-bit multiply (unsigned __int128: mul or mulx),
 * and four 32 x 32 -> 64-bit ones, which vectorise. With AVX-512 the vectorised one wins (8
 * products at 2^20, 2 cores: 5.8 ms vs 9.0 ms); with AVX2 or less the 128-bit one does (14.1
 * and 17.9 ms vs 9.3 and 9.1 ms), so each workload has both and picks at run time.
 */
#include <stdint.h>

#include "bench/baseline.h"

#define GL_P 0xffffffff00000001ull
#define GL_EPS 0xffffffffull /* 2^64 mod p = 2^32 - 1 */
#define GL_W 7u              /* goldilocksx2: u^2 = 7 */

/* lo + 2^64 hi mod p, with hi = hh 2^32 + hl: lo - hh + hl (2^32 - 1). Branch-free: on
 * random inputs a branch on a carry mispredicts (measured 2.5x slower). */
FFU_BASE_INLINE uint64_t gl_reduce(uint64_t lo, uint64_t hi)
{
	uint64_t hh = hi >> 32, hl = hi & GL_EPS;
	uint64_t s = lo - hh;
	/* wrapped: the true value s - 2^64 = s - eps; s >= 2^64 - 2^32 does not underflow */
	s -= GL_EPS & (0 - (uint64_t)(lo < hh));
	uint64_t u = hl * GL_EPS, r = s + u; /* u < 2^64 */
	/* carried: r + 2^64 = r + eps; r < u <= 2^64 - 2^33 + 1 does not carry again */
	r += GL_EPS & (0 - (uint64_t)(r < u));
	uint64_t d = r - GL_P;
	return r >= GL_P ? d : r;
}

/* a*b mod p through one 64 x 64 -> 128-bit product */
FFU_BASE_INLINE uint64_t gl_mul_128(uint64_t a, uint64_t b)
{
	unsigned __int128 t = (unsigned __int128)a * b;
	return gl_reduce((uint64_t)t, (uint64_t)(t >> 64));
}

/* The same from 32-bit halves a = a1 2^32 + a0, b likewise; the sum of the two middle
 * products may carry out of 64 bits. */
FFU_BASE_INLINE uint64_t gl_mul_vec(uint64_t a, uint64_t b)
{
	uint64_t a0 = a & GL_EPS, a1 = a >> 32, b0 = b & GL_EPS, b1 = b >> 32;
	uint64_t ll = a0 * b0, lh = a0 * b1, hl = a1 * b0, hh = a1 * b1;
	uint64_t mid = lh + hl, c1 = mid < lh;
	uint64_t lo = ll + (mid << 32), c2 = lo < ll;
	return gl_reduce(lo, hh + (mid >> 32) + (c1 << 32) + c2);
}

/* a + b mod p: a carry out of 64 bits is worth eps; a + b - 2^64 + eps < 2^64 */
FFU_BASE_INLINE uint64_t gl_add(uint64_t a, uint64_t b)
{
	uint64_t s = a + b;
	s += GL_EPS & (0 - (uint64_t)(s < a));
	uint64_t d = s - GL_P;
	return s >= GL_P ? d : s;
}

/* x*y*y*y*y*y*y*y*x with MUL as the product */
#define GL_FIELDOPS(name, attr, MUL)                                                                      \
	attr static void name(const ffu_bench_array *in, ffu_bench_array *out, int64_t lo, int64_t hi)    \
	{                                                                                                 \
		const uint64_t *restrict x = (const uint64_t *)in[0].data;                                \
		const uint64_t *restrict y = (const uint64_t *)in[1].data;                                \
		uint64_t *restrict o = (uint64_t *)out[0].data;                                           \
		_Pragma("omp simd") for (int64_t i = lo; i < hi; i++)                                     \
		{                                                                                         \
			uint64_t a = x[i], b = y[i], v = MUL(a, b);                                       \
			for (int j = 0; j < 6; j++)                                                       \
				v = MUL(v, b);                                                            \
			o[i] = MUL(v, a);                                                                 \
		}                                                                                         \
	}

/* The same over F_p[u]/(u^2 - 7): (a0 + a1 u)(b0 + b1 u) = a0 b0 + a1 (7 b1) + (a0 b1 + a1 b0) u,
 * with 7 x1 and 7 y1 computed once per element */
#define GL_X2_MUL(MUL, c0, c1, a0, a1, b0, b1, b1w)                                                       \
	do {                                                                                              \
		uint64_t t0_ = gl_add(MUL(a0, b0), MUL(a1, b1w));                                         \
		c1 = gl_add(MUL(a0, b1), MUL(a1, b0));                                                    \
		c0 = t0_;                                                                                 \
	} while (0)
#define GL_X2_FIELDOPS(name, attr, MUL)                                                                   \
	attr static void name(const ffu_bench_array *in, ffu_bench_array *out, int64_t lo, int64_t hi)    \
	{                                                                                                 \
		const uint64_t *x = (const uint64_t *)in[0].data, *y = (const uint64_t *)in[1].data;      \
		uint64_t *o = (uint64_t *)out[0].data;                                                    \
		uint64_t xs[2][FFU_EXT_BLOCK] = {{0}}, ys[2][FFU_EXT_BLOCK] = {{0}}, os[2][FFU_EXT_BLOCK]; \
		for (int64_t i0 = lo; i0 < hi; i0 += FFU_EXT_BLOCK) { /* see bench.h */                   \
			int n = hi - i0 < FFU_EXT_BLOCK ? (int)(hi - i0) : FFU_EXT_BLOCK;                 \
			FFU_EXT_SPLIT(xs, x, 2, i0, n);                                                   \
			FFU_EXT_SPLIT(ys, y, 2, i0, n);                                                   \
			_Pragma("omp simd") for (int l = 0; l < FFU_EXT_BLOCK; l++)                       \
			{                                                                                 \
				uint64_t a0 = xs[0][l], a1 = xs[1][l], b0 = ys[0][l], b1 = ys[1][l];      \
				uint64_t a1w = MUL(a1, GL_W), b1w = MUL(b1, GL_W), v0, v1;                \
				GL_X2_MUL(MUL, v0, v1, a0, a1, b0, b1, b1w);                              \
				_Pragma("GCC unroll 6") for (int j = 0; j < 6; j++)                       \
					GL_X2_MUL(MUL, v0, v1, v0, v1, b0, b1, b1w);                      \
				GL_X2_MUL(MUL, os[0][l], os[1][l], v0, v1, a0, a1, a1w);                  \
			}                                                                                 \
			FFU_EXT_JOIN(o, os, 2, i0, n);                                                    \
		}                                                                                         \
	}

GL_FIELDOPS(fieldops_128, FFU_BASE_CLONES, gl_mul_128)
GL_X2_FIELDOPS(fieldops_x2_128, FFU_BASE_CLONES, gl_mul_128)
#ifdef FFU_BASE_AVX512
GL_FIELDOPS(fieldops_vec, FFU_BASE_AVX512, gl_mul_vec)
GL_X2_FIELDOPS(fieldops_x2_vec, FFU_BASE_AVX512, gl_mul_vec)
#endif

/* The entry points: the vectorised body where the CPU has AVX-512, else the 128-bit one. */
#ifdef FFU_BASE_AVX512
#define GL_PICK(vec, wide) (ffu__bench_has_avx512() ? vec : wide)
#else
#define GL_PICK(vec, wide) (wide)
#endif
#define GL_ENTRY(entry, vec, wide)                                                                        \
	void entry(const ffu_bench_array *in, ffu_bench_array *out, int64_t lo, int64_t hi)               \
	{                                                                                                 \
		GL_PICK(vec, wide)(in, out, lo, hi);                                                      \
	}
GL_ENTRY(ffu__bench_fieldops_goldilocks, fieldops_vec, fieldops_128)
GL_ENTRY(ffu__bench_fieldops_goldilocksx2, fieldops_x2_vec, fieldops_x2_128)

/* ---------------------------------------------------------------- ntt_goldilocks */

/* a - b mod p: a borrow out of 64 bits wraps to a - b + 2^64, and a - b + p is that minus
 * eps (no second borrow: it is at least 2^64 - p + 1 > eps) */
FFU_BASE_INLINE uint64_t gl_sub(uint64_t a, uint64_t b)
{
	uint64_t r = a - b;
	return r - (GL_EPS & (0 - (uint64_t)(a < b)));
}

/* bench/baseline_ntt.h, once per product form as above. Goldilocks computes on canonical
 * values, R = 1; g = 7, two-adicity 32. */
#define NTT_T uint64_t
#define NTT_LOCALS ((void)0)
#define NTT_ADD(a, b) gl_add(a, b)
#define NTT_SUB(a, b) gl_sub(a, b)
#define NTT_ONE_R 1u
#define NTT_HALF_R 0x7fffffff80000001ull
#define NTT_R2 1u
#define NTT_ROOT_R 0x185629dcda58878cull /* 7^((p - 1) / 2^32) */
#define NTT_S 32
#define NTT_WITH_LDE
#define NTT_PREFIX gl_ntt_128_
#define NTT_ATTR FFU_BASE_CLONES
#define NTT_MUL(a, b) gl_mul_128(a, b)
#include "bench/baseline_ntt.h"
#undef NTT_PREFIX
#undef NTT_ATTR
#undef NTT_MUL
#ifdef FFU_BASE_AVX512
#define NTT_PREFIX gl_ntt_vec_
#define NTT_ATTR FFU_BASE_AVX512
#define NTT_MUL(a, b) gl_mul_vec(a, b)
#include "bench/baseline_ntt.h"
#endif

double ffu__bench_ntt_goldilocks(const ffu_bench_array *in, ffu_bench_array *out)
{
	return GL_PICK(gl_ntt_vec_run, gl_ntt_128_run)(in, out);
}

double ffu__bench_lde_goldilocks(const ffu_bench_array *in, ffu_bench_array *out)
{
	return GL_PICK(gl_ntt_vec_lde, gl_ntt_128_lde)(in, out);
}
