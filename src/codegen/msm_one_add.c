/*
 * codegen/msm_one_add.c: an msm's point additions in one kernel that calls the addition
 * from one place, for drivers that inline every call and whose build time grows faster
 * than the code (device/target.h msm_one_add: Mesa's NIR under Rusticl). msm.c's steps
 * put an addition in each of four kernels, eight call sites and two doublings in all; a
 * BN254 G2 program of them never finished building on llvmpipe, where a kernel of one
 * addition (cl/point.cl xyzz_add, the doubling folded into its products) builds in 40 s and
 * BLS12-381 G2's in 62 s (cold, 2 cores).
 *
 * The kernel _points runs once per phase (four descriptors of one kernel, `phase` the
 * argument that differs; the runtime makes one cl_kernel of them). Every phase is one loop
 * of "X = X + Y" over points in the scratch buffer, X an accumulator of the work-item and
 * Y a base, a bucket or another accumulator, so that the loop body holds the one call:
 *   0  bucket g (TB items): BKT[g] = the sum of its bases, each negated where its digit is
 *   1  segment g (W S items), as msm.c's _reduce: run = SEG[2g + 1] += B_b and
 *      sum = SEG[2g] += run, alternately, for b from the segment's top (2 L additions)
 *   2  window g (W items), as msm.c's _window: WIN[g] += sum_s, and for s > 0
 *      run += run_s, tot += run (TMP[2g], TMP[2g + 1]), from the top segment down; then
 *      log2 L doublings of tot (tot + tot) and WIN[g] += tot (3 S - 1 + log2 L additions)
 *   3  the combination (1 item): FIN = 2^c FIN + WIN[w] from the top window down, the
 *      doublings again as FIN + FIN (W (c + 1) additions)
 * _final then normalises FIN. The doublings and the bases' mixed additions take the
 * general formula (a bucket's affine base as xyzz with ZZ = ZZZ = 1): slower to run than
 * msm.c's dedicated formulas, which these drivers could not build. The plan keeps every
 * phase's additions within the target's loop limit (llvmpipe counts a kernel's loop
 * iterations, msm.c: plan).
 */
#include <stdio.h>

#include "codegen/msm_impl.h"

enum { PHASES = 4 };

void ffu__msm_one_add_steps(const msm_plan *pl, uint64_t steps[3])
{
	uint64_t s = (uint64_t)1 << pl->log_s;
	steps[0] = (uint64_t)2 << pl->log_l;
	steps[1] = 3 * s - 1 + (uint64_t)pl->log_l;
	steps[2] = (uint64_t)pl->w * ((uint64_t)pl->c + 1);
}

/* Each phase's accumulators (word offsets a0, a1, a2 into the scratch buffer), its
   additions `steps` (nadd, ffu__msm_one_add_steps; a bucket's size in phase 0) and what it
   reads from (first, b0). */
static void print_phase_setup(ffu_strbuf *sb, const msm_plan *pl)
{
	ffu__sb_printf(sb,
		       "\tconst size_t g = get_global_id(0);\n"
		       "\tconst ulong pw = %d, ns = 1UL << log_s;\n"
		       "\tulong a0, a1 = 0, a2 = 0, b0 = 0, steps = nadd, first = 0;\n"
		       "\tif (phase == 0) {\n"
		       "\t\ta0 = o_bkt + g * pw;\n\t\tfirst = scr[o_off + g];\n\t\tsteps = scr[o_cnt + g];\n"
		       "\t} else if (phase == 1) {\n"
		       "\t\ta0 = o_seg + 2 * g * pw;\n\t\ta1 = a0 + pw;\n"
		       "\t\tb0 = (g >> log_s) * nb + ((g & (ns - 1UL)) << log_l);\n"
		       "\t} else if (phase == 2) {\n"
		       "\t\ta0 = o_win + g * pw;\n\t\ta1 = o_tmp + 2 * g * pw;\n\t\ta2 = a1 + pw;\n"
		       "\t\tb0 = g << log_s;\n"
		       "\t} else {\n"
		       "\t\ta0 = o_fin;\n"
		       "\t}\n",
		       4 * pl->cw);
	ffu__sb_printf(sb,
		       "\tconst %s_xyzz zero = %s_xyzz_zero();\n"
		       "\t%s_xyzz_store_m(scr + a0, 0, zero);\n"
		       "\tif (phase == 1 || phase == 2)\n\t\t%s_xyzz_store_m(scr + a1, 0, zero);\n"
		       "\tif (phase == 2)\n\t\t%s_xyzz_store_m(scr + a2, 0, zero);\n",
		       pl->P, pl->P, pl->P, pl->P, pl->P);
}

/* Addition i's operands: X at word ra (also where the sum goes), Y at rb or, in phase 0,
   the base of entry e. */
static void print_operands(ffu_strbuf *sb)
{
	ffu__sb_append(sb, "\t\tulong ra = a0, rb = a0;\n"
			   "\t\tuint e = 0u;\n"
			   "\t\tif (phase == 0) {\n"
			   "\t\t\te = scr[o_idx + first + i];\n"
			   "\t\t} else if (phase == 1) {\n"
			   "\t\t\tif (i & 1UL) {\n\t\t\t\trb = a1;\n\t\t\t} else {\n"
			   "\t\t\t\tra = a1;\n\t\t\t\trb = o_bkt + (b0 + (1UL << log_l) - 1UL - (i >> 1)) * pw;\n"
			   "\t\t\t}\n"
			   "\t\t} else if (phase == 2) {\n"
			   "\t\t\tconst ulong top = 3 * ns - 2;\n"
			   "\t\t\tif (i < top) {\n"
			   "\t\t\t\tconst ulong s = ns - 1UL - i / 3, j = i % 3;\n"
			   "\t\t\t\tra = j == 0 ? a0 : j == 1 ? a1 : a2;\n"
			   "\t\t\t\trb = j == 0 ? o_seg + 2 * (b0 + s) * pw : j == 1 ? o_seg + (2 * (b0 + s) + 1) * pw : a1;\n"
			   "\t\t\t} else if (i < top + log_l) {\n"
			   "\t\t\t\tra = rb = a2;\n"
			   "\t\t\t} else {\n"
			   "\t\t\t\trb = a2;\n"
			   "\t\t\t}\n"
			   "\t\t} else if (i % (c + 1) == c) {\n"
			   "\t\t\trb = o_win + (nw - 1UL - i / (c + 1)) * pw;\n"
			   "\t\t}\n");
}

bool ffu__msm_emit_one_add(ffu_strbuf *sb, ffu_fusion_kernels *fk, const msm_plan *pl, int k)
{
	const char *P = pl->P;
	bool as_is = pl->fb->form == FFU_POINT_AFFINE && pl->base_mont;
	const uint64_t items[PHASES] = {(uint64_t)pl->tb, (uint64_t)pl->w << pl->log_s, (uint64_t)pl->w, 1};
	uint64_t nadd[PHASES] = {0}; /* phase 0's: each bucket's size, read on the device */
	ffu__msm_one_add_steps(pl, nadd + 1);
	for (int ph = 0; ph < PHASES; ph++) {
		ffu_kernel_desc *d = ffu__msm_desc(fk, pl, k, "_points", items[ph], as_is ? pl->in_b : -1, false,
						   (uint64_t)ph, nadd[ph]);
		if (!d)
			return false;
		/* the buckets' items are many and short; the others few and long (msm.c: loop_step) */
		d->wg = ph == 0 ? 0 : pl->loop_wg;
		if (ph == 0) {
			ffu__sb_append(sb, "/* every point addition of the msm, from one call site, by phase "
					   "(codegen/msm_one_add.c) */\n");
			ffu__kernel_print_signature(sb, d);
		}
	}
	print_phase_setup(sb, pl);
	ffu__sb_append(sb, "\tfor (ulong i = 0; i < steps; i++) {\n");
	print_operands(sb);
	ffu__sb_printf(sb, "\t\t%s_xyzz y;\n\t\tif (phase == 0) {\n", P);
	if (pl->fb->form == FFU_POINT_AFFINE) {
		ffu__msm_signed_base(sb, pl, "q", "\t\t\t");
		ffu__sb_printf(sb, "\t\t\ty = %s_xyzz_from_aff(q);\n", P);
	} else {
		ffu__sb_append(sb, "\t\t\t");
		ffu__msm_base_load(sb, pl, "q", "e >> 1");
		ffu__sb_printf(sb, "\t\t\ty = (e & 1u) ? %s_xyzz_neg(q) : q;\n", P);
	}
	ffu__sb_printf(sb,
		       "\t\t} else {\n\t\t\ty = %s_xyzz_load_m(scr + rb, 0);\n\t\t}\n"
		       "\t\t%s_xyzz_store_m(scr + ra, 0, %s_xyzz_add(%s_xyzz_load_m(scr + ra, 0), y));\n"
		       "\t}\n}\n\n",
		       P, P, P, P);
	return true;
}
