/*
 * bench/baseline_ntt.h: the `c_baseline` mode's NTT (the `fft` op, docs/hlo.md "fft"), one
 * body for every field: a template that baseline.c (BabyBear), baseline_64.c (Goldilocks)
 * and baseline_256.c (the 256-bit fields) include after their own arithmetic, so the
 * butterflies inline that arithmetic and vectorise where it does. The first part (guarded)
 * is shared; the second is instantiated once per #include, with these macros defined:
 *
 *   NTT_PREFIX      name prefix of the generated functions (NTT_PREFIX##run, ...)
 *   NTT_T           the element type, a canonical value in [0, p)
 *   NTT_ATTR        the attribute of the hot functions (FFU_BASE_CLONES or FFU_BASE_AVX512)
 *   NTT_LOCALS      declarations that NTT_MUL/ADD/SUB use (the field's constants, opaque)
 *   NTT_MUL(a, b)   a b / R (Montgomery; R = 1 for Goldilocks), NTT_ADD, NTT_SUB mod p
 *   NTT_ONE_R, NTT_HALF_R, NTT_R2: R, R/2 and R^2 mod p as NTT_T
 *   NTT_ROOT_R      g^((p - 1) / 2^NTT_S) R, the 2^S-th root that ZKX's roots are powers of
 *   NTT_S           the field's two-adicity
 *   NTT_WITH_LDE    defined: also generate NTT_PREFIX##lde (lde_babybear, lde_goldilocks)
 *   NTT_NO_SIMD     defined: no `omp simd` on the butterfly loops (the 256-bit fields:
 *                   GCC then keeps their limbs on the stack; a butterfly took 73 ns, 2.2x
 *                   the scalar loop's)
 *
 * The data stay canonical throughout and the twiddles are stored times R: NTT_MUL(x, w R) =
 * x w is canonical again, so the transform takes no conversion into or out of Montgomery
 * form. The transform is the textbook iterative radix-2 one (decimation in time): a
 * bit-reversed gather, then log n stages of butterflies a, b -> a + w b, a - w b, with a
 * twiddle table per stage (tw[h + j] = w_(2h)^j, contiguous, so that a stage's loop over j
 * is a plain vector loop). Its order of operations differs from ZKX's (interp/fft.c), but
 * field arithmetic is exact, so the outputs are the same bytes: bench compares them.
 *
 * Cache and threads: two passes over memory. The first stages (those within a block of
 * NTT_BLOCK_BYTES) run block by block, each block gathered and taken through all of them by
 * one thread while it stays in that core's cache. The later stages pair only elements in
 * the same column of the blocks (indices equal mod the block length): a thread takes a few
 * columns (whole cache lines of every block) through all of them at once. One barrier
 * between the two; the units go to the threads as they come free. A batch of rows
 * (lde_babybear's 16) goes one row per thread instead.
 */
#ifndef FFU_BENCH_BASELINE_NTT_H
#define FFU_BENCH_BASELINE_NTT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "bench/baseline.h"

/* Elements per early-stage block: 64 KiB of them, half an L2 of the smallest CPUs in use
 * (and the data of a 2^k transform, k <= 14 for BabyBear, in one block). */
#define NTT_BLOCK_BYTES 65536
/* The gather's tiles are 2^NTT_TILE x 2^NTT_TILE elements: a 64-byte line per row of a
 * tile for the 31-bit fields and Goldilocks, two for the 256-bit ones */
#define NTT_TILE (sizeof(NTT_T) <= 4 ? 4 : 3)
/* The fewest columns a unit of the late stages takes: at least a 64-byte line of each row */
#define NTT_MIN_COLS ((int64_t)(64 / sizeof(NTT_T) ? 64 / sizeof(NTT_T) : 1))

/* i's low k bits reversed (k >= 1) */
FFU_BASE_INLINE uint64_t ffu__ntt_bitrev(uint64_t i, int k)
{
	i = __builtin_bswap64(i);
	i = ((i >> 4) & 0x0f0f0f0f0f0f0f0full) | ((i & 0x0f0f0f0f0f0f0f0full) << 4);
	i = ((i >> 2) & 0x3333333333333333ull) | ((i & 0x3333333333333333ull) << 2);
	i = ((i >> 1) & 0x5555555555555555ull) | ((i & 0x5555555555555555ull) << 1);
	return i >> (64 - k);
}

/* The row length of a transform over x's last dimension and its log2 (the workloads' n is a
 * power of two); the row count. */
static inline int ffu__ntt_shape(const ffu_bench_array *x, int64_t *n, int64_t *rows)
{
	*n = x->dims[x->rank - 1];
	*rows = *n ? x->count / *n : 0;
	int k = 0;
	while ((INT64_C(1) << k) < *n)
		k++;
	return k;
}

#endif

/* ---------------------------------------------------------------- the template */

#define NTT_CAT2(a, b) a##b
#define NTT_CAT(a, b) NTT_CAT2(a, b)
#define NTT_FN(x) NTT_CAT(NTT_PREFIX, x)
#define NTT_BLOCK ((int64_t)(NTT_BLOCK_BYTES / sizeof(NTT_T)))
#ifdef NTT_NO_SIMD
#define NTT_SIMD
#else
#define NTT_SIMD _Pragma("omp simd")
#endif

/*
 * tw[h + j] = w_(2h)^j R for each stage's half-size h = 1, 2, .., n/2 and j < h (tw[0]
 * unused), w_n = g^((p - 1) / n) as ZKX takes it, or its inverse for an inverse transform.
 * Not timed: the device caches its table with the executable.
 */
static void NTT_FN(twiddles)(NTT_T *tw, int k, bool inverse)
{
	NTT_LOCALS;
	int64_t h = (INT64_C(1) << k) / 2;
	if (h == 0)
		return;
	NTT_T w = NTT_ROOT_R;
	for (int s = k; s < NTT_S; s++)
		w = NTT_MUL(w, w);
	tw[h] = NTT_ONE_R;
	for (int64_t j = 1; j < h; j++)
		tw[h + j] = NTT_MUL(tw[h + j - 1], w);
	/* w^-j = w^(n - j) = -w^(n/2 - j), as w^(n/2) = -1 */
	NTT_T zero = NTT_SUB(NTT_ONE_R, NTT_ONE_R);
	for (int64_t j = 1; inverse && 2 * j <= h; j++) {
		NTT_T a = tw[h + j], b = tw[2 * h - j];
		tw[h + j] = NTT_SUB(zero, b);
		tw[2 * h - j] = NTT_SUB(zero, a);
	}
	for (int64_t hh = h / 2; hh >= 1; hh /= 2)
		for (int64_t j = 0; j < hh; j++)
			tw[hh + j] = tw[2 * hh + 2 * j]; /* w_(2hh)^j = w_(4hh)^(2j) */
}

/* The early stages of a block of len elements (h = 1 .. len/2) in place; h = 1 has
 * twiddle 1. */
NTT_ATTR static void NTT_FN(early)(NTT_T *a, int64_t len, const NTT_T *restrict tw)
{
	NTT_LOCALS;
	for (int64_t b = 0; b + 1 < len; b += 2) {
		NTT_T x = a[b], y = a[b + 1];
		a[b] = NTT_ADD(x, y);
		a[b + 1] = NTT_SUB(x, y);
	}
	for (int64_t h = 2; h < len; h *= 2)
		for (int64_t b = 0; b < len; b += 2 * h) {
			NTT_T *restrict lo = a + b, *restrict hi = a + b + h;
			const NTT_T *restrict w = tw + h;
NTT_SIMD
			for (int64_t j = 0; j < h; j++) {
				NTT_T t = NTT_MUL(hi[j], w[j]);
				hi[j] = NTT_SUB(lo[j], t);
				lo[j] = NTT_ADD(lo[j], t);
			}
		}
}

/* cnt butterflies of a late stage: lo[j], hi[j] with twiddle w[j] */
NTT_ATTR static void NTT_FN(span)(NTT_T *restrict lo, NTT_T *restrict hi, const NTT_T *restrict w, int64_t cnt)
{
	NTT_LOCALS;
NTT_SIMD
	for (int64_t j = 0; j < cnt; j++) {
		NTT_T t = NTT_MUL(hi[j], w[j]);
		hi[j] = NTT_SUB(lo[j], t);
		lo[j] = NTT_ADD(lo[j], t);
	}
}

/* What a transform's bit-reversed gather reads: a row (src), or for the LDE's second
 * transform the IFFT's unscaled output c (n = len/2 values, the rest zero padding) times
 * 1/n and the shift powers sh: scale = R^2 / n, so MUL(MUL(c, scale), sh) = c sh / n. */
typedef struct NTT_FN(source) {
	const NTT_T *src;
	const NTT_T *c, *sh;
	NTT_T scale;
} NTT_FN(source);

NTT_ATTR static void NTT_FN(gather)(NTT_T *restrict a, const NTT_FN(source) *s, int64_t i0, int64_t len, int k)
{
	NTT_LOCALS;
	if (s->src) {
		for (int64_t i = 0; i < len; i++)
			a[i] = s->src[ffu__ntt_bitrev((uint64_t)(i0 + i), k)];
		return;
	}
	/* odd positions reverse to indices >= n/2 of the padded row: zeros */
	NTT_T zero = NTT_SUB(NTT_ONE_R, NTT_ONE_R);
	for (int64_t i = 0; i < len; i += 2) {
		uint64_t j = ffu__ntt_bitrev((uint64_t)(i0 + i), k);
		a[i] = NTT_MUL(NTT_MUL(s->c[j], s->scale), s->sh[j]);
		a[i + 1] = zero;
	}
}

/*
 * The same gather for the whole row, tile by tile: with i = (a, m, c), a and c of NTT_TILE
 * bits each, bitrev(i) = (rev c, rev m, rev a), so for one m the 2^NTT_TILE rows of src
 * (a, m, .) go to the rows (., rev m, rev a) of dst: whole cache lines read and written
 * (the element-wise gather reads one element per line, measured 41% of a BabyBear 2^20
 * transform). Tiles m0 .. m1 - 1; k >= 2 NTT_TILE.
 */
NTT_ATTR static void NTT_FN(tiles)(NTT_T *restrict dst, const NTT_FN(source) *s, int k, int64_t m0, int64_t m1)
{
	NTT_LOCALS;
	const int q = NTT_TILE, mb = k - 2 * NTT_TILE;
	const int64_t side = INT64_C(1) << q;
	NTT_T zero = NTT_SUB(NTT_ONE_R, NTT_ONE_R), line[INT64_C(1) << NTT_TILE];
	int64_t rev[INT64_C(1) << NTT_TILE]; /* rev c, shifted to the top */
	for (int64_t c = 0; c < side; c++)
		rev[c] = (int64_t)ffu__ntt_bitrev((uint64_t)c, q) << (k - q);
	for (int64_t m = m0; m < m1; m++) {
		int64_t rm = mb ? (int64_t)ffu__ntt_bitrev((uint64_t)m, mb) : 0;
		for (int64_t a = 0; a < side; a++) {
			int64_t from = (a << (k - q)) | (m << q), to = (rm << q) | (int64_t)ffu__ntt_bitrev((uint64_t)a, q);
			if (s->src) {
				for (int64_t c = 0; c < side; c++)
					line[c] = s->src[from + c];
			} else if (2 * a < side) { /* the LDE's padded row: values below n/2 */
NTT_SIMD
				for (int64_t c = 0; c < side; c++)
					line[c] = NTT_MUL(NTT_MUL(s->c[from + c], s->scale), s->sh[from + c]);
			} else {
				for (int64_t c = 0; c < side; c++)
					line[c] = zero;
			}
			for (int64_t c = 0; c < side; c++)
				dst[rev[c] | to] = line[c];
		}
	}
}

/* The stages h = blk .. n/2 of columns c0 .. c0 + cw - 1 (see row) */
static void NTT_FN(columns)(NTT_T *a, int64_t n, int64_t blk, int64_t c0, int64_t cw, const NTT_T *tw)
{
	for (int64_t h = blk; h < n; h *= 2)
		for (int64_t b = 0; b < n; b += 2 * h)
			for (int64_t r = 0; r < h; r += blk)
				NTT_FN(span)(a + b + r + c0, a + b + r + c0 + h, tw + h + r + c0, cw);
}

/*
 * dst = the natural-order transform of the source's 2^k values (k >= 1), tw the table for
 * 2^k. par: inside a parallel region, the whole team shares the work (worksharing loops,
 * each ending in a barrier); else the calling thread does it all.
 */
static void NTT_FN(row)(NTT_T *dst, const NTT_FN(source) *s, int k, const NTT_T *tw, bool par)
{
	int64_t n = INT64_C(1) << k, blk = n < NTT_BLOCK ? n : NTT_BLOCK, nb = n / blk;
	if (k < 2 * NTT_TILE) { /* a few lines: gather and transform at once */
		if (par) {
#pragma omp single
			for (int64_t b = 0; b < nb; b++) {
				NTT_FN(gather)(dst + b * blk, s, b * blk, blk, k);
				NTT_FN(early)(dst + b * blk, blk, tw);
			}
		} else {
			for (int64_t b = 0; b < nb; b++) {
				NTT_FN(gather)(dst + b * blk, s, b * blk, blk, k);
				NTT_FN(early)(dst + b * blk, blk, tw);
			}
		}
		return;
	}
	int64_t tiles = INT64_C(1) << (k - 2 * NTT_TILE), per = tiles < 64 ? tiles : 64;
	if (par) {
#pragma omp for schedule(dynamic)
		for (int64_t t = 0; t < tiles; t += per)
			NTT_FN(tiles)(dst, s, k, t, t + per);
#pragma omp for schedule(dynamic)
		for (int64_t b = 0; b < nb; b++)
			NTT_FN(early)(dst + b * blk, blk, tw);
	} else {
		NTT_FN(tiles)(dst, s, k, 0, tiles);
		for (int64_t b = 0; b < nb; b++)
			NTT_FN(early)(dst + b * blk, blk, tw);
	}
	/* The later stages (h >= blk) pair only elements whose indices agree mod blk: blk
	 * independent transforms of n / blk elements, each over a column of the n / blk rows of
	 * blk elements. A unit takes cw neighbouring columns (whole cache lines) through all
	 * those stages while they stay in cache: one more pass over memory, not one a stage. */
	int64_t rows = n / blk, cw = NTT_BLOCK / rows;
	cw = cw < NTT_MIN_COLS ? NTT_MIN_COLS : cw;
	cw = cw > blk ? blk : cw;
	if (rows == 1)
		return;
	if (par) {
#pragma omp for schedule(dynamic)
		for (int64_t q = 0; q < blk / cw; q++)
			NTT_FN(columns)(dst, n, blk, q * cw, cw, tw);
	} else {
		for (int64_t q = 0; q < blk / cw; q++)
			NTT_FN(columns)(dst, n, blk, q * cw, cw, tw);
	}
}

/* A forward transform of each row of in[0] (ntt_<field>: one row); returns the ms from the
 * moment all threads run to the end (as ffu__bench_over_threads times), or -1 when out
 * of memory. */
static double NTT_FN(run)(const ffu_bench_array *in, ffu_bench_array *out)
{
	int64_t n, rows;
	int k = ffu__ntt_shape(&in[0], &n, &rows);
	if (n <= 1) {
		memcpy(out[0].data, in[0].data, out[0].bytes);
		return 0;
	}
	NTT_T *tw = malloc(sizeof *tw * (size_t)n);
	if (!tw)
		return -1;
	NTT_FN(twiddles)(tw, k, false);
	double start = 0, end = 0;
#pragma omp parallel
	{
#pragma omp single
		start = omp_get_wtime();
		for (int64_t r = 0; r < rows; r++) {
			NTT_FN(source) s = {.src = (const NTT_T *)in[0].data + r * n};
			NTT_FN(row)((NTT_T *)out[0].data + r * n, &s, k, tw, true);
		}
#pragma omp barrier
#pragma omp master
		end = omp_get_wtime();
	}
	free(tw);
	return (end - start) * 1e3;
}

#ifdef NTT_WITH_LDE
/*
 * lde_<field>: per row, c = IFFT_n(e) unscaled (the forward transform with the inverse
 * table), then FFT_2n of (c / n, zero-padded) times sh, the scaling and the shift taken in
 * the second transform's gather. One row per thread: the rows are independent and each
 * fits a thread's share of the cache better than a stage split across threads would.
 */
static double NTT_FN(lde)(const ffu_bench_array *in, ffu_bench_array *out)
{
	NTT_LOCALS;
	int64_t n, rows;
	int k = ffu__ntt_shape(&in[0], &n, &rows);
	if (k < 1)
		return -1; /* not a workload size */
	int threads = omp_get_max_threads();
	NTT_T *twi = malloc(sizeof *twi * (size_t)n), *twf = malloc(sizeof *twf * (size_t)(2 * n));
	NTT_T *scratch = malloc(sizeof *scratch * (size_t)(n * threads));
	double start = 0, end = 0;
	if (!twi || !twf || !scratch) {
		free(twi);
		free(twf);
		free(scratch);
		return -1;
	}
	NTT_FN(twiddles)(twi, k, true);
	NTT_FN(twiddles)(twf, k + 1, false);
	NTT_T scale = NTT_R2; /* R^2 / n: R^2 times (1/2) k times */
	for (int i = 0; i < k; i++)
		scale = NTT_MUL(scale, NTT_HALF_R);
	const NTT_T *e = (const NTT_T *)in[0].data, *sh = (const NTT_T *)in[1].data;
	NTT_T *y = (NTT_T *)out[0].data;
#pragma omp parallel
	{
#pragma omp single
		start = omp_get_wtime();
		NTT_T *c = scratch + n * omp_get_thread_num();
#pragma omp for schedule(dynamic)
		for (int64_t r = 0; r < rows; r++) {
			NTT_FN(source) s = {.src = e + r * n};
			NTT_FN(row)(c, &s, k, twi, false);
			NTT_FN(source) padded = {.c = c, .sh = sh + r * 2 * n, .scale = scale};
			NTT_FN(row)(y + r * 2 * n, &padded, k + 1, twf, false);
		}
#pragma omp master
		end = omp_get_wtime();
	}
	free(twi);
	free(twf);
	free(scratch);
	return (end - start) * 1e3;
}
#endif

#undef NTT_BLOCK
#undef NTT_SIMD
#undef NTT_FN
#undef NTT_CAT
#undef NTT_CAT2
