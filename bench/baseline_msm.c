/*
 * bench/baseline_msm.c: the `c_baseline` mode of msm_bn254_g1 (see baseline.c): the sum of
 * s_i P_i over BN254 G1 (y^2 = x^3 + 3 over Fq) by Pippenger's bucket method, in plain C with
 * OpenMP, as a careful C programmer would write it for the host CPU.
 *
 * Inputs as the workload's parameters hold them: scalars bn254_sf[n] (32 canonical
 * little-endian bytes each, < r), bases bn254_g1_affine[n] (x then y, 32 canonical bytes
 * each; the point at infinity is (0, 0)). Output: the sum as a canonical affine point,
 * (0, 0) for infinity: the bytes `fieldfuse run --interp` gives, which bench compares.
 *
 * Fq is BN254's base field on 4 x 64-bit limbs in Montgomery form (bench/mont256.h). The
 * algorithm:
 * - Signed-digit windows of c bits: s = sum_j d_j 2^(cj) with d_j in (-2^(c-1), 2^(c-1)]
 *   (a digit above 2^(c-1) becomes d - 2^c and carries one into the next window), so a
 *   window needs 2^(c-1) buckets, not 2^c - 1: a negative digit adds -P = (x, -y) to
 *   bucket |d|. With floor(254 / c) + 1 windows the top one never carries out (r < 2^254).
 * - Buckets in XYZZ coordinates (x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2), the affine bases added
 *   with mixed additions (EFD madd-2008-s); ZZ = 0 is the point at infinity.
 * - Per window, the running-sum reduction: walking the buckets from the top, running +=
 *   B_b, sum += running gives sum_b b B_b (EFD add-2008-s).
 * - The windows combined from the top by c doublings (EFD dbl-2008-s-1) and an addition.
 * - One inversion (Fermat) for the affine result.
 * The special cases of the xyzz formulas are decided first: an empty bucket takes the
 * base as (x, y, 1, 1); U2 = U1 with S2 = S1 is a doubling, with S2 != S1 (P + (-P)) the
 * point at infinity; infinity bases and zero digits add nothing.
 *
 * Threads: the windows are independent, so they go to the OpenMP threads as they come
 * free (dynamic schedule), each thread with its own buckets; the digits and the bases'
 * Montgomery form are computed first, shared by the threads. The window count is 254/c + 1
 * (17 to 26 here), so two threads stay busy to within one window. The time runs from the
 * moment every thread runs to the end, as ffu__bench_over_threads times.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "bench/baseline.h"
#include "bench/mont256.h"
#include "ir/value.h"

/* BN254 Fq: p = 0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47;
 * constants derived with python3 (pow(p, -1, 2**64), pow(2, 512, p)). r9 is not used. */
static const mont256 FQ = {
	.p = {0x3c208c16d87cfd47ull, 0x97816a916871ca8dull, 0xb85045b68181585dull, 0x30644e72e131a029ull},
	.npinv = 0x87d20782e4866389ull,
	.r2 = {0xf32cfc5b538afa89ull, 0xb5e71911d44501fbull, 0x47ab1eff0a417ff6ull, 0x06d89f71cab8351full},
};
/* R mod p: 1 in Montgomery form */
static const uint64_t FQ_ONE[4] = {0xd35d438dc58f0d9dull, 0x0a78eb28f5c70b3dull, 0x666ea36f7879462cull,
				   0x0e0a77c19a07df2full};
#define SCALAR_BITS 254 /* r < 2^254 */

typedef struct affine {
	uint64_t x[4], y[4];
} affine;
typedef struct xyzz {
	uint64_t x[4], y[4], zz[4], zzz[4];
} xyzz;

#define MUL(r, a, b) mont_mul(r, a, b, &FQ)
#define ADD(r, a, b) mont_add(r, a, b, &FQ)
#define SUB(r, a, b) mont_sub(r, a, b, &FQ)

FFU_BASE_INLINE bool fq_is_zero(const uint64_t a[4])
{
	return (a[0] | a[1] | a[2] | a[3]) == 0;
}

FFU_BASE_INLINE bool fq_eq(const uint64_t a[4], const uint64_t b[4])
{
	return ((a[0] ^ b[0]) | (a[1] ^ b[1]) | (a[2] ^ b[2]) | (a[3] ^ b[3])) == 0;
}

FFU_BASE_INLINE void xyzz_set_inf(xyzz *r)
{
	memset(r, 0, sizeof *r);
}

FFU_BASE_INLINE bool xyzz_is_inf(const xyzz *p)
{
	return fq_is_zero(p->zz);
}

/*
 * The point operations are functions of their own, each compiled per ISA (FFU_BASE_CLONES),
 * the field arithmetic inlined into them: inlined all into the bucket loop, they made one
 * function with a 45 KiB stack frame that spilled everything (2^12 points: 212 ms on one
 * thread; out of line: see docs/benchmarks.md).
 */

/* r = 2 (x, y), an affine point not at infinity (EFD mdbl-2008-s-1, a = 0) */
FFU_BASE_CLONES static void xyzz_double_affine(xyzz *r, const uint64_t x[4], const uint64_t y[4])
{
	uint64_t u[4], v[4], w[4], s[4], m[4], t[4];
	ADD(u, y, y);  /* U = 2Y */
	MUL(v, u, u);  /* V = U^2 */
	MUL(w, u, v);  /* W = U V */
	MUL(s, x, v);  /* S = X V */
	MUL(m, x, x);
	ADD(t, m, m);
	ADD(m, t, m);  /* M = 3 X^2 */
	MUL(t, m, m);
	SUB(t, t, s);
	SUB(r->x, t, s); /* X3 = M^2 - 2S */
	SUB(t, s, r->x);
	MUL(t, m, t);
	MUL(u, w, y);
	SUB(r->y, t, u); /* Y3 = M (S - X3) - W Y */
	memcpy(r->zz, v, sizeof v);
	memcpy(r->zzz, w, sizeof w);
}

/* r = 2p in place (EFD dbl-2008-s-1, a = 0); infinity stays infinity (ZZ3 = V ZZ1 = 0) */
FFU_BASE_CLONES static void xyzz_double(xyzz *p)
{
	uint64_t u[4], v[4], w[4], s[4], m[4], t[4];
	ADD(u, p->y, p->y);
	MUL(v, u, u);
	MUL(w, u, v);
	MUL(s, p->x, v);
	MUL(m, p->x, p->x);
	ADD(t, m, m);
	ADD(m, t, m);
	MUL(t, m, m);
	SUB(t, t, s);
	uint64_t x3[4];
	SUB(x3, t, s);
	SUB(t, s, x3);
	MUL(t, m, t);
	MUL(u, w, p->y);
	SUB(p->y, t, u);
	memcpy(p->x, x3, sizeof x3);
	MUL(p->zz, p->zz, v);
	MUL(p->zzz, p->zzz, w);
}

/* The x and y of a sum, shared by madd-2008-s and add-2008-s: X3 = R^2 - PPP - 2Q,
 * Y3 = R (Q - X3) - S1 PPP (S1 = Y1 for madd); s1 may be a->y */
FFU_BASE_INLINE void xyzz_sum_xy(xyzz *a, const uint64_t r[4], const uint64_t ppp[4], const uint64_t q[4],
				 const uint64_t s1[4])
{
	uint64_t x3[4], t[4], u[4];
	MUL(t, r, r);
	SUB(t, t, ppp);
	SUB(t, t, q);
	SUB(x3, t, q);
	SUB(t, q, x3);
	MUL(t, r, t);
	MUL(u, s1, ppp);
	SUB(a->y, t, u);
	memcpy(a->x, x3, sizeof x3);
}

/* b += (x, y), an affine point not at infinity (EFD madd-2008-s) */
FFU_BASE_CLONES static void xyzz_add_affine(xyzz *b, const uint64_t x[4], const uint64_t y[4])
{
	if (xyzz_is_inf(b)) {
		memcpy(b->x, x, 32);
		memcpy(b->y, y, 32);
		memcpy(b->zz, FQ_ONE, 32);
		memcpy(b->zzz, FQ_ONE, 32);
		return;
	}
	uint64_t p[4], r[4], pp[4], ppp[4], q[4];
	MUL(p, x, b->zz);
	SUB(p, p, b->x); /* P = X2 ZZ1 - X1 */
	MUL(r, y, b->zzz);
	SUB(r, r, b->y); /* R = Y2 ZZZ1 - Y1 */
	if (fq_is_zero(p)) {
		if (fq_is_zero(r))
			xyzz_double_affine(b, x, y); /* the same point */
		else
			xyzz_set_inf(b); /* its negation */
		return;
	}
	MUL(pp, p, p);
	MUL(ppp, p, pp);
	MUL(q, b->x, pp);
	xyzz_sum_xy(b, r, ppp, q, b->y);
	MUL(b->zz, b->zz, pp);
	MUL(b->zzz, b->zzz, ppp);
}

/* a += b, both xyzz (EFD add-2008-s) */
FFU_BASE_CLONES static void xyzz_add(xyzz *a, const xyzz *b)
{
	if (xyzz_is_inf(b))
		return;
	if (xyzz_is_inf(a)) {
		*a = *b;
		return;
	}
	uint64_t u1[4], s1[4], p[4], r[4], pp[4], ppp[4], q[4];
	MUL(u1, a->x, b->zz);
	MUL(p, b->x, a->zz);
	SUB(p, p, u1); /* P = U2 - U1 */
	MUL(s1, a->y, b->zzz);
	MUL(r, b->y, a->zzz);
	SUB(r, r, s1); /* R = S2 - S1 */
	if (fq_is_zero(p)) {
		if (fq_is_zero(r))
			xyzz_double(a);
		else
			xyzz_set_inf(a);
		return;
	}
	MUL(pp, p, p);
	MUL(ppp, p, pp);
	MUL(q, u1, pp);
	xyzz_sum_xy(a, r, ppp, q, s1);
	MUL(a->zz, a->zz, b->zz);
	MUL(a->zz, a->zz, pp);
	MUL(a->zzz, a->zzz, b->zzz);
	MUL(a->zzz, a->zzz, ppp);
}

/*
 * The window width for n points: the cost is about (254 / c) (n mixed additions + 2^c
 * bucket additions), least near c = log2(n) - 3 by that count, but a thread's buckets
 * (2^(c-1) of 128 bytes) must stay in its L2: measured at 2^20 on the 2-core EPYC VM (1 MiB
 * L2 a core), medians of 2 runs, 2 threads: c = 12: 6.27 s, 13: 6.14 s, 15: 6.72 s, 16:
 * 11.0 s, 17: 11.8 s, 18: 12.5 s. So c = log2(n) - 3, at most 13 (512 KiB of buckets). At
 * 2^16 (c = 13) widths 10 to 15 were within the noise (345-440 ms).
 */
int ffu__bench_msm_window(int64_t n)
{
	int lg = 0;
	while (lg < 62 && (INT64_C(1) << (lg + 1)) <= n)
		lg++;
	int c = lg - 3;
	return c < 2 ? 2 : c > 13 ? 13 : c;
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

/* One window's sum_d d (sum of the points whose digit is +-d), buckets[0 .. 2^(c-1)) */
FFU_BASE_CLONES static void msm_window(xyzz *sum, xyzz *buckets, const int32_t *digits, const affine *bases,
				       int64_t n, int c)
{
	static const uint64_t zero[4] = {0, 0, 0, 0};
	int32_t nb = INT32_C(1) << (c - 1);
	for (int32_t b = 0; b < nb; b++)
		xyzz_set_inf(&buckets[b]);
	for (int64_t i = 0; i < n; i++) {
		int32_t d = digits[i];
		if (d == 0)
			continue;
		const affine *p = &bases[i];
		if (fq_is_zero(p->x) && fq_is_zero(p->y))
			continue; /* infinity */
		if (d > 0) {
			xyzz_add_affine(&buckets[d - 1], p->x, p->y);
		} else {
			uint64_t ny[4];
			SUB(ny, zero, p->y);
			xyzz_add_affine(&buckets[-d - 1], p->x, ny);
		}
	}
	xyzz run;
	xyzz_set_inf(&run);
	xyzz_set_inf(sum);
	for (int32_t b = nb - 1; b >= 0; b--) {
		xyzz_add(&run, &buckets[b]);
		xyzz_add(sum, &run);
	}
}

/* The bases in Montgomery form, points [lo, hi); infinity (0, 0) stays (0, 0) */
FFU_BASE_CLONES static void to_mont(affine *dst, const unsigned char *src, int64_t lo, int64_t hi)
{
	for (int64_t i = lo; i < hi; i++) {
		uint64_t x[4], y[4];
		memcpy(x, src + 64 * i, 32);
		memcpy(y, src + 64 * i + 32, 32);
		MUL(dst[i].x, x, FQ.r2);
		MUL(dst[i].y, y, FQ.r2);
	}
}

/* The windows' sums combined from the top (c doublings and an addition each), then the
 * affine point in canonical bytes: x = X / ZZ, y = Y / ZZZ with one inversion of ZZ ZZZ. */
FFU_BASE_CLONES static void finish(unsigned char *out, const xyzz *win, int nw, int c)
{
	xyzz acc = win[nw - 1];
	for (int w = nw - 2; w >= 0; w--) {
		for (int j = 0; j < c; j++)
			xyzz_double(&acc);
		xyzz_add(&acc, &win[w]);
	}
	if (xyzz_is_inf(&acc)) {
		memset(out, 0, 64);
		return;
	}
	uint64_t e[4], t[4], inv[4], izz[4], izzz[4], x[4], y[4];
	static const uint64_t one[4] = {1, 0, 0, 0};
	memcpy(e, FQ.p, 32);
	e[0] -= 2; /* p - 2: p's low limb is odd and > 2 */
	MUL(t, acc.zz, acc.zzz);
	mont_pow(inv, t, e, &FQ); /* 1 / (ZZ ZZZ) */
	MUL(izz, inv, acc.zzz);
	MUL(izzz, inv, acc.zz);
	MUL(x, acc.x, izz);
	MUL(y, acc.y, izzz);
	MUL(x, x, one); /* out of Montgomery form */
	MUL(y, y, one);
	memcpy(out, x, 32);
	memcpy(out + 32, y, 32);
}

double ffu__bench_msm_bn254_g1_window(const ffu_value *in, ffu_value *out, int c)
{
	int64_t n = ffu__shape_count(&in[0].shape);
	if (c <= 0)
		c = ffu__bench_msm_window(n);
	int nw = SCALAR_BITS / c + 1;
	const unsigned char *scalars = in[0].data, *bases = in[1].data;
	affine *mb = malloc(sizeof *mb * (size_t)(n ? n : 1));
	int32_t *digits = malloc(sizeof *digits * (size_t)(n ? n : 1) * (size_t)nw);
	xyzz *win = malloc(sizeof *win * (size_t)nw);
	int threads = omp_get_max_threads();
	xyzz *buckets = malloc(sizeof *buckets * ((size_t)1 << (c - 1)) * (size_t)threads);
	double start = 0, end = 0;
	bool ok = mb && digits && win && buckets;
	if (ok) {
#pragma omp parallel
		{
#pragma omp single
			start = omp_get_wtime();
#pragma omp for schedule(static)
			for (int64_t i = 0; i < n; i++)
				signed_digits(digits + i, n, scalars + 32 * i, c, nw);
#pragma omp for schedule(dynamic)
			for (int64_t b = 0; b < (n + 1023) / 1024; b++)
				to_mont(mb, bases, b * 1024, (b + 1) * 1024 < n ? (b + 1) * 1024 : n);
			xyzz *own = buckets + ((size_t)1 << (c - 1)) * (size_t)omp_get_thread_num();
#pragma omp for schedule(dynamic, 1)
			for (int w = 0; w < nw; w++)
				msm_window(&win[w], own, digits + (int64_t)w * n, mb, n, c);
#pragma omp master
			{
				finish(out[0].data, win, nw, c);
				end = omp_get_wtime();
			}
		}
	}
	free(mb);
	free(digits);
	free(win);
	free(buckets);
	return ok ? (end - start) * 1e3 : -1;
}

double ffu__bench_msm_bn254_g1(const ffu_value *in, ffu_value *out)
{
	return ffu__bench_msm_bn254_g1_window(in, out, 0);
}
