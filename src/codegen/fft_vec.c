/*
 * codegen/fft_vec.c: an NTT pass of one radix stage in registers, computed in the prime
 * field's vector instance (field_cl.h: <prime>_v<vw>): work-item I of a row holds its
 * columns i = vw I .. vw I + vw - 1, each of its R values a vector of their vw elements.
 * The stage is fft_pass.c's (fft.c's file comment has the formulas); only the addressing
 * differs. The plan's vw (fft.c) says which transforms have such passes: the prime's own
 * elements (or its _mont twin's) where the target asks for them (device/target.h
 * fft_vector) and the field's template has a vector instance.
 *
 * Why: PoCL vectorises the scalar passes across work-items, except where LLVM's SLP
 * vectoriser has already packed some of a pass's values into vectors, which PoCL's
 * work-group vectoriser refuses ("instruction return type cannot be vectorized"). With
 * 8 ulong lanes (AVX-512) it packs the 64-bit products of every Goldilocks pass, so the
 * passes ran one column at a time: ntt_goldilocks 2^20 on PoCL 3.1, 2-core AMD EPYC,
 * radix 16 / 8: 42 / 14 ms against the C baseline's 6.7 (device/target.c). Written in
 * vectors, nothing is left for either vectoriser to decide: one radix-16 pass at p = 16
 * took 0.49 ms in ulong8 against 9.6 ms scalar, with the same output. The 31-bit fields'
 * scalar passes do vectorise, but in uint16 their product takes a third fewer
 * instructions (cl/mont31.cl), for 10% of lde_babybear (device/target.c).
 *
 * Which passes: the vw columns must meet consecutive addresses. The loads at i + t T do
 * wherever T >= vw. The stage twiddles and the stores at kk + t p do where p >= vw (kk =
 * i mod p, a multiple of vw), and where p = 1 (the first stage) the stores are transposed:
 * lane j's R values go to elements (i + j) R .. (i + j) R + R - 1, so the work-item's vw R
 * values fill consecutive elements and go out as R vectors assembled lane by lane. Passes
 * with 1 < p < vw (after a first stage of radix 2 or 4) or T < vw stay scalar
 * (fft_pass.c), as do tile passes, and the first and last passes where the target keeps
 * them scalar (fft_vector_ends: the 31-bit fields), except a last pass without consumers
 * (the plan's direct_out), which stores whole vectors to the output. The producers fused
 * in front (ffu_k<k>_x) and the consumers behind (ffu_k<k>_y) are scalar helpers, called
 * once per lane. Between passes, and to a direct output, the stores of a batch beyond the
 * target's fft_stream_bytes bypass the caches (store_at_nt).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "codegen/fft_impl.h"

static int log2_int(int x)
{
	int l = 0;
	while ((1 << l) < x)
		l++;
	return l;
}

bool ffu__fft_vector_pass(const fft_plan *pl, int g)
{
	const bool last = g == pl->npass - 1;
	if (pl->vw <= 1 || pl->pass_stages[g] != 1 || (!pl->vw_ends && (g == 0 || (last && !pl->direct_out))))
		return false;
	const int q = pl->pass_first[g], lp = ffu__fft_stage_lp(pl, q), lt = pl->k - pl->lr[q], lv = log2_int(pl->vw);
	return lt >= lv && (lp == 0 || lp >= lv);
}

/* The plan as the pass's arithmetic sees it: the vector instance's types and functions. */
static void vector_plan(fft_plan *v, const fft_plan *pl)
{
	*v = *pl;
	snprintf(v->fn, sizeof v->fn, "%s_v%d", pl->f->base->name, pl->vw);
	snprintf(v->pn, sizeof v->pn, "%s_v%d", pl->p->name, pl->vw);
	snprintf(v->ft, sizeof v->ft, "%s_v%d_t", pl->f->base->name, pl->vw);
	snprintf(v->pt, sizeof v->pt, "%s_v%d_t", pl->p->name, pl->vw);
}

/* Stage q's values u<t> of the work-item's columns i .. i + vw - 1, times the twiddles. */
static void stage_in(ffu_strbuf *sb, const fft_plan *pl, const fft_plan *vp, int k, int q, bool first)
{
	const int r = pl->lr[q];
	for (int t = 0; t < 1 << r; t++) {
		const unsigned long long col = (unsigned long long)t << (pl->k - r);
		if (first && pl->cols && pl->slot[t] < 0)
			continue;
		ffu__sb_printf(sb, "\t%s u%d = ", vp->ft, t);
		if (!first) {
			ffu__sb_printf(sb, "%s_load_at(src, base + i + %lluUL);\n", vp->fn, col);
			continue;
		}
		ffu__sb_printf(sb, "(%s)(", vp->ft);
		for (int j = 0; j < pl->vw; j++) {
			char ix[96];
			snprintf(ix, sizeof ix, "i + %lluUL", col + (unsigned long long)j);
			ffu__sb_append(sb, j ? ",\n\t\t" : "");
			ffu__fft_load_x(sb, pl, k, t, ix);
		}
		ffu__sb_append(sb, ");\n");
	}
	ffu__fft_twiddle_products(sb, vp, q, "load_at"); /* kk .. kk + vw - 1: one vector */
	/* the DFT's constants, the same in every lane */
	for (int j = 1; j < (1 << r) / 2; j++)
		ffu__sb_printf(sb, "\tconst %s w%d = (%s)(%s_load(tw, %lluUL));\n", vp->pt, j, vp->pt, pl->pn,
			       (unsigned long long)j << (pl->k - r));
}

/* The stage's outputs cur[t]: to dst, or to the consumers lane by lane (the last pass). */
static void stores(ffu_strbuf *sb, const fft_plan *pl, const fft_plan *vp, int k, int q, bool last, char (*cur)[16])
{
	const int r = pl->lr[q], R = 1 << r, lp = ffu__fft_stage_lp(pl, q), vw = pl->vw;
	const char *store = pl->nt ? "store_at_nt" : "store_at"; /* whole aligned lines either way */
	ffu__sb_printf(sb, "\tconst ulong o = (blk << %d) + kk;\n", r);
	if (!last && lp > 0) {
		for (int t = 0; t < R; t++)
			ffu__sb_printf(sb, "\t%s_%s(dst, base + o + %lluUL, %s);\n", vp->fn, store,
				       (unsigned long long)t << lp, cur[t]);
		return;
	}
	if (!last) { /* p = 1: element m of the work-item's vw R is lane m / R of value m mod R */
		for (int c = 0; c < R; c++) {
			ffu__sb_printf(sb, "\t%s_%s(dst, base + o + %dUL, (%s)(", vp->fn, store, c * vw, vp->ft);
			for (int e = 0; e < vw; e++) {
				const int m = c * vw + e;
				ffu__sb_printf(sb, "%s%s.s%x", e ? ", " : "", cur[m % R], (unsigned)(m / R));
			}
			ffu__sb_append(sb, "));\n");
		}
		return;
	}
	/* the IFFT's 1/n in vectors, then each lane's element to the consumers */
	const bool scale = pl->fft->fft.inverse && pl->n > 1;
	ffu__fft_ninv(sb, vp, true);
	for (int t = 0; t < R && scale; t++) {
		ffu__sb_printf(sb, "\tconst %s s%d = ", vp->ft, t);
		ffu__fft_mulw(sb, vp, cur[t], "ninv");
		ffu__sb_append(sb, ";\n");
	}
	/* p >= vw here: a pass with p = 1 is last only in a one-pass transform, whose T = 1 < vw */
	if (pl->direct_out) { /* no consumers: the output is the transform, element o + tp */
		for (int t = 0; t < R; t++) {
			char v[32];
			if (scale)
				snprintf(v, sizeof v, "s%d", t);
			else
				snprintf(v, sizeof v, "%s", cur[t]);
			ffu__sb_printf(sb, "\t%s_%s(out0, base + o + %lluUL, %s);\n", vp->fn, store,
				       (unsigned long long)t << lp, v);
		}
		return;
	}
	for (int t = 0; t < R; t++)
		for (int j = 0; j < vw; j++) {
			char ix[64], v[32];
			snprintf(ix, sizeof ix, "o + %lluUL", ((unsigned long long)t << lp) + (unsigned long long)j);
			if (scale)
				snprintf(v, sizeof v, "s%d.s%x", t, (unsigned)j);
			else
				snprintf(v, sizeof v, "%s.s%x", cur[t], (unsigned)j);
			ffu__fft_store_y(sb, pl, k, ix, v);
		}
}

bool ffu__fft_emit_vector_pass(ffu_strbuf *sb, ffu_fusion_kernels *fk, const fft_plan *pl, int k, int g)
{
	const int q = pl->pass_first[g], r = pl->lr[q], last = g == pl->npass - 1, first = g == 0;
	const int lp = ffu__fft_stage_lp(pl, q), lt = pl->k - r, lv = log2_int(pl->vw);
	fft_plan vp;
	vector_plan(&vp, pl);
	ffu_kernel_desc *d = ffu__fft_pass_desc(fk, pl, k, g);
	if (!d)
		return false;
	const size_t items_row = (size_t)1 << (lt - lv); /* T / vw */
	d->items = (size_t)pl->rows * items_row;
	d->wg = items_row < pl->wg ? items_row : pl->wg;
	ffu__sb_printf(sb, "/* pass %d of %d: radix %d, sub-transforms of %lld so far, %d columns a work-item */\n", g + 1,
		       pl->npass, 1 << r, (long long)1 << lp, pl->vw);
	ffu__kernel_print_signature(sb, d);
	ffu__sb_printf(sb, "\tconst ulong I = get_global_id(0) * %dUL, i = I & %lluUL, base = (I >> %d) << %d;\n", pl->vw,
		       (unsigned long long)((UINT64_C(1) << lt) - 1), lt, pl->k);
	ffu__fft_kk(sb, "i", NULL, lp, lt, SIZE_MAX); /* kk = i mod p, never "uniform + lane" */
	stage_in(sb, pl, &vp, k, q, first);
	char (*cur)[16];
	bool *zero;
	if (!ffu__fft_names(pl, q, first, &cur, &zero))
		return false;
	int v = 0;
	ffu__fft_dft(sb, &vp, r, cur, zero, "w", &v);
	stores(sb, pl, &vp, k, q, last, cur);
	free(cur);
	free(zero);
	ffu__sb_append(sb, "}\n\n");
	return true;
}
