/*
 * codegen/fft_tile.c: an NTT pass of two radix stages that meet in local memory, so that a
 * transform reads and writes the array fewer times (codegen/fft.c: plan_passes decides
 * where; its file comment says what one stage computes).
 *
 * Stages a and b (radices Ra, Rb; p before a; R = Ra Rb, T = n / R) taken as one radix-R
 * pass: column c < T of a row (kk = c mod p) owns the Ra Rb values that stage a's
 * work-items c + sT (s < Rb) read and stage b's work-items (c - kk) Ra + kk + t p (t < Ra)
 * write, and no other column touches them:
 *     stage a, for each s < Rb: u[t] = src[c + sT + t T Rb], t < Ra; u[t] *= w_a(kk, t);
 *         u = DFT_Ra(u); tile[s][t] = u[t];
 *     stage b, for each t < Ra: v[s] = tile[s][t], s < Rb; v[s] *= w_b(kk + t p, s);
 *         v = DFT_Rb(v); dst[(c - kk) R + kk + t p + s p Ra] = v[s].
 * which is stage a's and stage b's formulas with i = c + sT and i = (c - kk) Ra + kk + t p.
 *
 * A work-group holds W consecutive columns (tile_w, at most T) and S work-items per column
 * (tile_s): local id l = column + W * sub-item, its tile [s][t][column] in local memory, W
 * values per (s, t) side by side. S is the launch's (local size / W): a device whose limit
 * for the kernel is below W S runs it with fewer (runtime/exec.c, wg_unit). On a CPU S = 1: a work-item runs both stages of its
 * column and every address is uniform + l, which PoCL's work-group vectoriser turns into
 * vector loads and stores (fft_pass.c says why that matters); the tile then is what keeps
 * a column's R values in L1 between the stages. On a GPU S > 1 work-items share a column's
 * DFTs, and the barrier between the stages is what lets them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/fft_impl.h"
#include "codegen/field_cl.h"

/* cur[j] = "<prefix>bitrev(j)" for a DFT of 2^r on the values named <prefix>t. */
static void names(char (*cur)[16], int r, const char *prefix)
{
	for (int j = 0; j < 1 << r; j++)
		snprintf(cur[j], 16, "%s%u", prefix, (unsigned)ffu__bitrev((uint64_t)j, r));
}

bool ffu__fft_emit_tile_pass(ffu_strbuf *sb, ffu_fusion_kernels *fk, const fft_plan *pl, int k, int g)
{
	const int qa = pl->pass_first[g], qb = qa + 1, ra = pl->lr[qa], rb = pl->lr[qb];
	const int Ra = 1 << ra, Rb = 1 << rb, r = ra + rb, lt = pl->k - r, lp = ffu__fft_stage_lp(pl, qa);
	const bool first = g == 0, last = g == pl->npass - 1;
	const uint64_t T = UINT64_C(1) << lt, p = UINT64_C(1) << lp;
	const size_t W = pl->tile_w < T ? pl->tile_w : (size_t)T;
	size_t S = pl->tile_s < (size_t)(Ra < Rb ? Ra : Rb) ? pl->tile_s : (size_t)(Ra < Rb ? Ra : Rb);
	int lw = 0;
	while (((size_t)1 << lw) < W)
		lw++;
	ffu_kernel_desc *d = ffu__fft_pass_desc(fk, pl, k, g);
	if (!d)
		return false;
	d->items = (size_t)pl->rows * (size_t)T * S;
	d->wg = W * S;
	d->wg_unit = W; /* fewer work-items per column where a device allows less (runtime/exec.c) */
	ffu__sb_printf(sb, "/* pass %d of %d: radix %d x %d through local memory, sub-transforms of %llu so far */\n",
		       g + 1, pl->npass, Ra, Rb, (unsigned long long)p);
	ffu__kernel_print_signature(sb, d);
	ffu__sb_printf(sb, "\t__local %s tile[%zu];\n", pl->ft, W << r);
	ffu__sb_printf(sb, "\tconst ulong g0 = get_group_id(0) * %zuUL, l = get_local_id(0);\n", W);
	if (S == 1)
		ffu__sb_append(sb, "\tconst ulong cl = l;\n\tconst uint s0 = 0;\n");
	else
		ffu__sb_printf(sb, "\tconst ulong cl = l & %zuUL;\n\tconst uint s0 = (uint)(l >> %d), S = (uint)(get_local_size(0) >> %d);\n",
			       W - 1, lw, lw);
	ffu__sb_printf(sb, "\tconst ulong c = (g0 & %lluUL) + cl, base = (g0 >> %d) << %d;\n",
		       (unsigned long long)(T - 1), lt, pl->k);
	ffu__fft_kk(sb, "c", "cl", lp, lt, W);
	ffu__fft_dft_consts(sb, pl, ra, "wa");
	if (rb != ra)
		ffu__fft_dft_consts(sb, pl, rb, "wb");
	const char *wb = rb != ra ? "wb" : "wa";
	char(*cur)[16] = calloc((size_t)(Ra > Rb ? Ra : Rb), sizeof *cur);
	bool *zero = calloc((size_t)Ra, sizeof *zero);
	if (!cur || !zero) {
		free(cur);
		free(zero);
		return false;
	}
	int v = 0;
	/* stage a: Rb DFTs of Ra per column, into the tile */
	/* a CPU's loops are unrolled: PoCL vectorises a work-item loop only without an inner loop */
	const char *unroll = S == 1 ? "\t#pragma unroll\n" : "";
	ffu__sb_printf(sb, S == 1 ? "%s\tfor (uint s = s0; s < %du; s += 1u) {\n" : "%s\tfor (uint s = s0; s < %du; s += S) {\n", unroll, Rb);
	char col[64];
	snprintf(col, sizeof col, "c + s * %lluUL", (unsigned long long)T);
	ffu__fft_stage_in(sb, pl, k, qa, first, col);
	names(cur, ra, "u");
	for (int j = 0; j < Ra; j++)
		zero[j] = first && pl->cols && pl->slot[ffu__bitrev((uint64_t)j, ra)] < 0;
	ffu__fft_dft(sb, pl, ra, cur, zero, "wa", &v);
	/* no output is the constant zero: the columns are used only where some slot is not
	   (fft.c: emit_x_columns), and a DFT's every output reads every input */
	for (int t = 0; t < Ra; t++)
		ffu__sb_printf(sb, "\ttile[(s * %du + %du) * %zuu + cl] = %s;\n", Ra, t, W, cur[t]);
	/* with one work-item per column it reads back only what it wrote: no barrier, which
	   would also split the kernel where PoCL vectorises it */
	ffu__sb_append(sb, S == 1 ? "\t}\n" : "\t}\n\tbarrier(CLK_LOCAL_MEM_FENCE);\n");
	/* stage b: Ra DFTs of Rb per column, out of the tile */
	ffu__fft_ninv(sb, pl, last);
	/* p = 1 on a CPU: the stores are consecutive, hidden behind `one` as in a one-stage
	   pass (fft_pass.c says why) */
	const bool hide = lp == 0 && pl->cpu && !(last && pl->fft->fft.inverse && !pl->fft->fft.bit_reverse);
	ffu__sb_printf(sb, "\tconst ulong o = (blk << %d) + kk;\n", r);
	if (hide)
		ffu__sb_append(sb, "\tconst ulong one = get_local_size(0) != 0;\n");
	ffu__sb_printf(sb, S == 1 ? "%s\tfor (uint t = s0; t < %du; t += 1u) {\n" : "%s\tfor (uint t = s0; t < %du; t += S) {\n", unroll, Ra);
	for (int s = 0; s < Rb; s++)
		ffu__sb_printf(sb, "\t%s u%d = tile[(%du * %du + t) * %zuu + cl];\n", pl->ft, s, s, Ra, W);
	for (int s = 1; s < Rb; s++) {
		char w[128], a[16];
		snprintf(w, sizeof w, "%s_load(tw, %lluUL + kk + t * %lluUL)", pl->p->name,
			 (unsigned long long)(pl->off[qb] + ((int64_t)(s - 1) << (lp + ra))), (unsigned long long)p);
		snprintf(a, sizeof a, "u%d", s);
		ffu__sb_printf(sb, "\tu%d = ", s);
		ffu__fft_mulw(sb, pl, a, w);
		ffu__sb_append(sb, ";\n");
	}
	names(cur, rb, "u");
	ffu__fft_dft(sb, pl, rb, cur, NULL, wb, &v);
	for (int s = 0; s < Rb; s++) {
		char ix[96];
		if (hide)
			snprintf(ix, sizeof ix, "o + (t + %du) * one", s * Ra);
		else
			snprintf(ix, sizeof ix, "o + t * %lluUL + %lluUL", (unsigned long long)p,
				 (unsigned long long)((uint64_t)s << (lp + ra)));
		ffu__fft_store(sb, pl, k, last, ix, cur[s]);
	}
	ffu__sb_append(sb, "\t}\n}\n\n");
	free(cur);
	free(zero);
	return true;
}
