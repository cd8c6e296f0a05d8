/*
 * codegen/fft_pass.c: an NTT pass of one radix stage in registers (codegen/fft.c's file
 * comment says what it computes), and the pieces a tile pass (codegen/fft_tile.c) shares
 * with it: the pass's descriptor, the first stage's loads, the radix-R DFT on named values,
 * the last stage's stores.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/fft_impl.h"
#include "codegen/field_cl.h"

ffu_kernel_desc *ffu__fft_pass_desc(ffu_fusion_kernels *fk, const fft_plan *pl, int k, int g)
{
	const bool first = g == 0, last = g == pl->npass - 1;
	char suffix[16];
	snprintf(suffix, sizeof suffix, "_p%d", g);
	int r = 0;
	for (int s = 0; s < pl->pass_stages[g]; s++)
		r += pl->lr[pl->pass_first[g] + s];
	ffu_kernel_desc *d = ffu__kernel_add(fk, FFU_KERNEL_FFT_PASS, k, suffix, 1 << r, pl->n_in + pl->n_out + 3);
	if (!d)
		return NULL;
	d->pass = g;
	if (first || last)
		for (int j = 0; j < pl->n_in; j++)
			ffu__kernel_slot(d, FFU_ARG_INPUT, j, NULL);
	if (!first)
		ffu__kernel_slot(d, FFU_ARG_SCRATCH_IN, (g - 1) % 2, NULL);
	if (!last)
		ffu__kernel_slot(d, FFU_ARG_SCRATCH_OUT, g % 2, NULL);
	for (int o = 0; last && o < pl->n_out; o++)
		ffu__kernel_slot(d, FFU_ARG_OUTPUT, o, NULL);
	if (pl->h > 0)
		ffu__kernel_slot(d, FFU_ARG_TWIDDLES, 0, NULL);
	return d;
}

void ffu__fft_load_x(ffu_strbuf *sb, const fft_plan *pl, int k, int t, const char *ix)
{
	if (pl->cols) {
		ffu__sb_printf(sb, "ffu_k%d_x%d(", k, pl->slot[t]);
		ffu__fft_io_args(sb, pl, false);
		ffu__sb_printf(sb, "base, %s)", ix);
		return;
	}
	ffu__sb_printf(sb, "ffu_k%d_x(", k);
	ffu__fft_io_args(sb, pl, false);
	if (pl->rev_in)
		ffu__sb_printf(sb, "base + ffu_bitrev(%s, %du))", ix, pl->k);
	else
		ffu__sb_printf(sb, "base + %s)", ix);
}

void ffu__fft_stage_in(ffu_strbuf *sb, const fft_plan *pl, int k, int q, bool first, const char *col)
{
	const int r = pl->lr[q];
	/* loads; a slot known to be zero is not loaded (fft.c's "Columns") */
	for (int t = 0; t < 1 << r; t++) {
		char ix[96];
		snprintf(ix, sizeof ix, "%s + %lluUL", col, (unsigned long long)t << (pl->k - r));
		if (first && pl->cols && pl->slot[t] < 0)
			continue;
		ffu__sb_printf(sb, "\t%s u%d = ", pl->ft, t);
		if (first)
			ffu__fft_load_x(sb, pl, k, t, ix);
		else
			ffu__sb_printf(sb, "%s_load(src, base + %s)", pl->fn, ix);
		ffu__sb_append(sb, ";\n");
	}
	ffu__fft_twiddle_products(sb, pl, q, "load");
}

void ffu__fft_twiddle_products(ffu_strbuf *sb, const fft_plan *pl, int q, const char *load)
{
	const int r = pl->lr[q], lp = ffu__fft_stage_lp(pl, q);
	/* twiddles between stages: u[t] *= w^(e t), e = (i mod p) n / (pR) */
	if (lp > 0)
		for (int t = 1; t < 1 << r; t++) {
			char w[96], a[16];
			snprintf(w, sizeof w, "%s_%s(tw, %lluUL + kk)", pl->pn, load,
				 (unsigned long long)(pl->off[q] + ((int64_t)(t - 1) << lp)));
			snprintf(a, sizeof a, "u%d", t);
			ffu__sb_printf(sb, "\tu%d = ", t);
			ffu__fft_mulw(sb, pl, a, w);
			ffu__sb_append(sb, ";\n");
		}
}

void ffu__fft_dft_consts(ffu_strbuf *sb, const fft_plan *pl, int r, const char *wp)
{
	for (int j = 1; j < (1 << r) / 2; j++)
		ffu__sb_printf(sb, "\tconst %s %s%d = %s_load(tw, %lluUL);\n", pl->pt, wp, j, pl->pn,
			       (unsigned long long)j << (pl->k - r));
}

/* DFT_R: radix-2 stages on bit-reversed names; w_m^j = table[j n / m] (fft_impl.h). */
void ffu__fft_dft(ffu_strbuf *sb, const fft_plan *pl, int r, char (*cur)[16], bool *zero, const char *wp, int *v)
{
	const int R = 1 << r;
	const char *b = pl->fn;
	for (int m = 2; m <= R; m *= 2)
		for (int s = 0; s < R; s += m)
			for (int j = 0; j < m / 2; j++) {
				char *lo = cur[s + j], *hi = cur[s + j + m / 2], tn[16];
				bool no = false, *zlo = zero ? &zero[s + j] : &no, *zhi = zero ? &zero[s + j + m / 2] : &no;
				if (j == 0 || *zhi) {
					snprintf(tn, sizeof tn, "%s", hi);
				} else {
					char w[16];
					snprintf(tn, sizeof tn, "a%d", (*v)++);
					snprintf(w, sizeof w, "%s%d", wp, j * (R / m));
					ffu__sb_printf(sb, "\tconst %s %s = ", pl->ft, tn);
					ffu__fft_mulw(sb, pl, hi, w);
					ffu__sb_append(sb, ";\n");
				}
				if (*zhi) { /* lo +- 0 */
					snprintf(hi, 16, "%s", lo);
					*zhi = *zlo;
				} else if (*zlo) { /* 0 +- tn */
					int y = (*v)++;
					ffu__sb_printf(sb, "\tconst %s a%d = %s_neg(%s);\n", pl->ft, y, b, tn);
					snprintf(lo, 16, "%s", tn);
					snprintf(hi, 16, "a%d", y);
					*zlo = false;
				} else {
					int x = (*v)++, y = (*v)++;
					ffu__sb_printf(sb, "\tconst %s a%d = %s_add(%s, %s), a%d = %s_sub(%s, %s);\n", pl->ft, x,
						       b, lo, tn, y, b, lo, tn);
					snprintf(lo, 16, "a%d", x);
					snprintf(hi, 16, "a%d", y);
				}
			}
}

void ffu__fft_store(ffu_strbuf *sb, const fft_plan *pl, int k, bool last, const char *ix, const char *vt)
{
	char v[96];
	if (last && pl->fft->fft.inverse && pl->n > 1) { /* times 1/n (the pass declares ninv) */
		ffu_strbuf tmp = {0};
		ffu__fft_mulw(&tmp, pl, vt, "ninv");
		snprintf(v, sizeof v, "%s", ffu__sb_cstr(&tmp));
		ffu__sb_free(&tmp);
	} else {
		snprintf(v, sizeof v, "%s", vt);
	}
	if (!last) {
		ffu__sb_printf(sb, "\t%s_store(dst, base + %s, %s);\n", pl->fn, ix, v);
		return;
	}
	ffu__fft_store_y(sb, pl, k, ix, v);
}

void ffu__fft_store_y(ffu_strbuf *sb, const fft_plan *pl, int k, const char *ix, const char *v)
{
	const bool rev_out = pl->fft->fft.inverse && !pl->fft->fft.bit_reverse && pl->k > 0;
	ffu__sb_printf(sb, "\tffu_k%d_y(", k);
	ffu__fft_io_args(sb, pl, true);
	if (rev_out)
		ffu__sb_printf(sb, "base + ffu_bitrev(%s, %du), %s);\n", ix, pl->k, v);
	else
		ffu__sb_printf(sb, "base + %s, %s);\n", ix, v);
}

/* "\tconst <pt> ninv = 1/n;" where the last pass of an IFFT scales. */
void ffu__fft_ninv(ffu_strbuf *sb, const fft_plan *pl, bool last)
{
	if (!last || !pl->fft->fft.inverse || pl->n <= 1)
		return;
	unsigned char ninv[FFU_FIELD_MAX_BYTES];
	ffu__fp_set_u64(pl->p, ninv, (uint64_t)pl->n);
	ffu__fp_inv(pl->p, ninv, ninv);
	ffu__sb_printf(sb, "\tconst %s ninv = ", pl->pt);
	ffu__fft_mont_const(sb, pl->p, pl->pn, ninv);
	ffu__sb_append(sb, ";\n");
}

bool ffu__fft_names(const fft_plan *pl, int q, bool first, char (**cur)[16], bool **zero)
{
	const int r = pl->lr[q], R = 1 << r;
	/* zero[j]: cur[j] is the constant zero, which folds (fft.c's "Columns") */
	*cur = calloc((size_t)R, sizeof **cur);
	*zero = calloc((size_t)R, sizeof **zero);
	if (!*cur || !*zero) {
		free(*cur);
		free(*zero);
		return false;
	}
	for (int j = 0; j < R; j++) {
		unsigned t = (unsigned)ffu__bitrev((uint64_t)j, r);
		snprintf((*cur)[j], sizeof (*cur)[j], "u%u", t);
		(*zero)[j] = first && pl->cols && pl->slot[t] < 0;
	}
	return true;
}

void ffu__fft_kk(ffu_strbuf *sb, const char *col, const char *lane, int lp, int lt, size_t w)
{
	const uint64_t p = UINT64_C(1) << lp, T = UINT64_C(1) << lt;
	if (lp == 0)
		ffu__sb_printf(sb, "\tconst ulong kk = 0, blk = %s;\n", col);
	else if (p >= w) /* kk = uniform + lane: the addresses stay affine */
		ffu__sb_printf(sb, "\tconst ulong kk = (g0 & %lluUL) + %s, blk = g0 & %lluUL;\n", (unsigned long long)(p - 1),
			       lane, (unsigned long long)((T - 1) & ~(p - 1)));
	else
		ffu__sb_printf(sb, "\tconst ulong kk = %s & %lluUL, blk = %s - kk;\n", col, (unsigned long long)(p - 1), col);
}

/* Pass g of one stage q (fft.c's file comment). */
bool ffu__fft_emit_pass(ffu_strbuf *sb, ffu_fusion_kernels *fk, const fft_plan *pl, int k, int g)
{
	const int q = pl->pass_first[g], r = pl->lr[q], R = 1 << r, last = g == pl->npass - 1, first = g == 0;
	const int lp = ffu__fft_stage_lp(pl, q);
	const int lt = pl->k - r; /* log2 T */
	ffu_kernel_desc *d = ffu__fft_pass_desc(fk, pl, k, g);
	if (!d)
		return false;
	d->items = (size_t)pl->rows << lt;
	d->wg = (size_t)1 << lt < pl->wg ? (size_t)1 << lt : pl->wg;
	if (pl->wg_p && lp > 0 && (size_t)1 << lp < d->wg) /* device/target.c says why */
		d->wg = (size_t)1 << lp;
	ffu__sb_printf(sb, "/* pass %d of %d: radix %d, sub-transforms of %lld so far */\n", g + 1, pl->npass, R,
		       (long long)1 << lp);
	ffu__kernel_print_signature(sb, d);
	/*
	 * Work-groups of wg (<= T) work-items, launched as exactly that: the group's first item
	 * g0 is uniform and the local id l runs 0 .. wg - 1, so where p >= wg every address
	 * below is uniform + l, which PoCL's work-group vectoriser turns into vector loads and
	 * stores (from get_global_id and masks it could not tell, and gathered: 380 gathers
	 * and scatters in a radix-32 pass at p = 32, 20 ms at 2^20 instead of 1). A CPU target
	 * runs a pass with 1 < p < wg in groups of p (wg_p), so that this holds there too.
	 */
	ffu__sb_printf(sb, "\tconst ulong g0 = get_group_id(0) * %zuUL, l = get_local_id(0);\n", d->wg);
	ffu__sb_printf(sb, "\tconst ulong i = (g0 & %lluUL) + l, base = (g0 >> %d) << %d;\n",
		       (unsigned long long)((UINT64_C(1) << lt) - 1), lt, pl->k);
	ffu__fft_kk(sb, "i", "l", lp, lt, d->wg);
	ffu__fft_stage_in(sb, pl, k, q, first, "i");
	ffu__fft_dft_consts(sb, pl, r, "w");
	char (*cur)[16];
	bool *zero;
	if (!ffu__fft_names(pl, q, first, &cur, &zero))
		return false;
	int v = 0;
	ffu__fft_dft(sb, pl, r, cur, zero, "w", &v);
	/* stores: dst[(i - kk) R + kk + t p] */
	const bool rev_out = last && pl->fft->fft.inverse && !pl->fft->fft.bit_reverse && pl->k > 0;
	ffu__fft_ninv(sb, pl, last);
	/*
	 * With p = 1 (the first pass) a work-item stores R consecutive elements. Written as
	 * o + t, LLVM's SLP vectoriser packs them into one vector store when PoCL builds the
	 * program, and PoCL's work-group vectoriser then refuses the vector-typed body
	 * ("instruction return type cannot be vectorized"): the whole pass ran scalar. So on
	 * a CPU the stride is `one`, a 1 that only the kernel's compile for its local size
	 * can fold: the work-items vectorise and the stores become interleaved vector stores
	 * (ntt_babybear 2^20 on PoCL: 8.7-10.0 -> 6.5-7.5 ms of CPU time; bench/results/lde-pocl-2core.txt).
	 */
	const bool hide = lp == 0 && pl->cpu && R > 1 && !rev_out; /* bit-reversed stores are not consecutive */
	ffu__sb_printf(sb, "\tconst ulong o = (blk << %d) + kk;\n", r);
	if (hide)
		ffu__sb_append(sb, "\tconst ulong one = get_local_size(0) != 0;\n");
	for (int t = 0; t < R; t++) {
		char ix[64];
		if (hide)
			snprintf(ix, sizeof ix, "o + %d * one", t);
		else
			snprintf(ix, sizeof ix, "o + %lluUL", (unsigned long long)t << lp);
		ffu__fft_store(sb, pl, k, last, ix, cur[t]);
	}
	free(cur);
	free(zero);
	ffu__sb_append(sb, "}\n\n");
	return true;
}
