/*
 * codegen/msm.c: the kernels of an msm fusion (kind kMsm: one `msm`, the element-wise
 * producers of its scalars, maybe a `convert` of its point; passes/fusion.c), Pippenger's
 * bucket method in nine steps over memory. Fused scalars are computed where the digits step
 * reads scalar i (ffu_k<k>_s, codegen/helper.c), so a random linear combination or a
 * Montgomery conversion in front of an msm costs no pass over memory of its own.
 *
 * Windows: scalars (canonical, scalar_bits bits) are cut into W = bits / c + 1 windows of
 * c bits, read as signed digits d in [-2^(c-1), 2^(c-1)] (a window's value above 2^(c-1)
 * becomes value - 2^c and carries one into the next window; the top window never carries:
 * bits mod c <= c - 1 bits plus a carry is at most 2^(c-1)). Digit magnitude m >= 1 of window
 * w puts point +-P_i into bucket (w, m - 1): NB = 2^(c-1) buckets per window, half of what
 * unsigned digits need, and a negated affine point costs one subtraction.
 *
 * Steps (each a kernel, FFU_KERNEL_MSM_STEP, its work-items fixed by the shape):
 *   _zero     TB = W NB   bucket sizes CNT = 0
 *   _bases    n           canonical bases into the device's Montgomery form, once (BAS), so
 *                         that the W loads of each base convert nothing (skipped for an
 *                         affine _mont type, read as it is)
 *   _digits   n           every window's digit of scalar i into DIG, CNT counted with
 *                         atomic_inc (a counting sort's histogram)
 *   _scan     W           each window's exclusive prefix sum of CNT: OFF (first entry of a
 *                         bucket in IDX, window w's entries from w n) and the cursors POS
 *   _scatter  n           (i << 1 | sign) into IDX at atomic_inc(POS): the points grouped by
 *                         bucket, so no two work-items ever add into one bucket
 *   _bucket   TB          one work-item per bucket: its points added with mixed (madd)
 *                         additions into an xyzz sum, BKT; or, where the target asks
 *             TB / kb     (msm_affine_buckets: CPUs), kb buckets a work-item summed by
 *                         batch-affine additions (emit_buckets_affine), then BKT
 *   _reduce   W S         segments of L = NB / S buckets, each by running sums from its top:
 *                         sum = sum_b (b - s L + 1) B_b and run = sum_b B_b (SEG)
 *   _window   W           window sum = sum_s sum_s + L sum_s s run_s, the second term again by
 *                         running sums over the segments, then log2 L doublings (WIN)
 *   _final    1           acc = 2^c acc + WIN[w] from the top window down, then the result in
 *                         the root's point type, normalised (one inversion): affine (x, y),
 *                         jacobian (x, y, 1), xyzz (x, y, 1, 1); infinity as ZKX stores it
 * Where the target inlines every call (target.msm_one_add: Mesa), _bucket, _reduce,
 * _window and _final's combination are instead the four phases of one kernel that calls the
 * addition from one place (codegen/msm_one_add.c), and _final only normalises.
 * The order in which atomic_inc hands out places differs from run to run, which changes
 * only a bucket's representative, never its group element; the normalised result is
 * therefore the same bytes on every run and for every window width.
 *
 * All of it lives in one scratch buffer (fk->scratch_bytes), its regions at word offsets
 * fixed here and printed as constants. The window width c comes from the msm's window_bits
 * (1..MAX_WINDOW; the result is the same for any, so a width the plan cannot hold falls back
 * to its own choice) or from a cost model: W (n + 3 NB) additions (n mixed additions per
 * window, about two full ones per bucket in the reduction), c <= 16.
 */
#include <stdio.h>
#include <string.h>

#include "codegen/field_cl.h"
#include "codegen/helper.h"
#include "codegen/kgen.h"
#include "codegen/msm_impl.h"
#include "device/target.h"

enum { MAX_WINDOW = 20, AUTO_MAX_WINDOW = 16, ALIGN_WORDS = 16 };

static int64_t windows(int bits, int c)
{
	return bits / c + 1;
}

/* The window width for n points (module comment: the cost model). */
static int auto_window(int64_t n, int bits)
{
	int best = 1;
	double best_cost = 0;
	for (int c = 1; c <= AUTO_MAX_WINDOW; c++) {
		double cost = (double)windows(bits, c) * ((double)n + 3.0 * (double)((int64_t)1 << (c - 1)));
		if (c == 1 || cost < best_cost) {
			best = c;
			best_cost = cost;
		}
	}
	return best;
}

static uint64_t region(uint64_t *at, uint64_t words)
{
	uint64_t r = *at;
	*at += (words + ALIGN_WORDS - 1) / ALIGN_WORDS * ALIGN_WORDS;
	return r;
}

static ffu_status plan(msm_plan *pl, const ffu_inst *fusion, const ffu_target *t, ffu_error *e)
{
	const ffu_computation *fc = fusion->callee;
	memset(pl, 0, sizeof *pl);
	pl->loop_wg = t->msm_loop_wg > 0 ? (size_t)t->msm_loop_wg : 0;
	for (int i = 0; i < fc->n_insts; i++)
		if (fc->insts[i]->op == FFU_OP_MSM) {
			if (pl->msm)
				return ffu__err(e, FFU_STATUS_EUNSUPPORTED, "%s: a kMsm fusion holds one msm", fusion->name);
			pl->msm = fc->insts[i];
		}
	const ffu_inst *msm = pl->msm;
	if (!msm)
		return ffu__err(e, FFU_STATUS_EUNSUPPORTED, "%s: a kMsm fusion without an msm", fusion->name);
	if (fc->root != msm && !(fc->root->op == FFU_OP_CONVERT && fc->root->operands[0] == msm))
		return ffu__err(e, FFU_STATUS_EUNSUPPORTED, "%s: a kMsm fusion's root is its msm or a convert of it",
				fusion->name);
	if (msm->operands[1]->op != FFU_OP_PARAMETER)
		return ffu__err(e, FFU_STATUS_EUNSUPPORTED, "%s: the bases of %s must be a parameter of the fusion",
				fusion->name, msm->name);
	pl->n_in = fc->n_params;
	pl->in_s = msm->operands[0]->op == FFU_OP_PARAMETER ? (int)msm->operands[0]->index : -1;
	pl->in_b = (int)msm->operands[1]->index;
	pl->fs = ffu__shape_field(&msm->operands[0]->shape);
	pl->fb = ffu__shape_field(&msm->operands[1]->shape);
	pl->fo = ffu__shape_field(&fc->root->shape);
	pl->cv = pl->fb->curve;
	pl->n = msm->operands[1]->shape.dims[0];
	pl->scalar_mont = ffu__field_is_mont(pl->fs);
	pl->base_mont = ffu__field_is_mont(pl->fb->coef);
	const ffu_field *const forms[3] = {pl->fs, pl->fb->coef, pl->fo->coef};
	for (int i = 0; i < 3; i++)
		if (ffu__field_is_mont(forms[i]) && !ffu__kgen_mont_is_dev(forms[i]))
			return ffu__err(e, FFU_STATUS_EUNSUPPORTED,
					"%s: %s's Montgomery radix differs from the device's; the msm kernels read and write the device's form",
					fusion->name, forms[i]->name);
	int bits = pl->cv->scalar_bits;
	pl->c = msm->window_bits > 0 && msm->window_bits <= MAX_WINDOW ? msm->window_bits : auto_window(pl->n, bits);
	/* IDX holds W n entries of (i << 1 | sign) addressed by 32-bit positions */
	if ((uint64_t)windows(bits, pl->c) * (uint64_t)pl->n >= (UINT64_C(1) << 31))
		pl->c = auto_window(pl->n, bits);
	if ((uint64_t)windows(bits, pl->c) * (uint64_t)pl->n >= (UINT64_C(1) << 31))
		return ffu__err(e, FFU_STATUS_ELIMIT, "%s: msm of %lld points: at most 2^31 digit entries (%lld windows each)",
				fusion->name, (long long)pl->n, (long long)windows(bits, pl->c));
	/*
	 * A driver that leaves long loops (t->loop_limit, llvmpipe): every loop here runs at
	 * most n (a bucket's entries, all n when the scalars share a digit) or NB (the scan) or
	 * fewer times, so both stay within the limit; the batch-affine rounds nest loops without
	 * such a bound, and the target leaves them out there.
	 */
	if (t->loop_limit && (uint64_t)pl->n > t->loop_limit)
		return ffu__err(e, FFU_STATUS_ELIMIT,
				"%s: msm of %lld points: this driver silently leaves a loop after %u iterations, and one bucket "
				"may hold every point; at most %u points here (PoCL or a GPU take more)",
				fusion->name, (long long)pl->n, t->loop_limit, t->loop_limit);
	pl->one_add = t->msm_one_add;
	/* a window width whose loops all stay within the limit (one_add: its phases' additions) */
	for (;;) {
		pl->w = (int)windows(bits, pl->c);
		pl->nb = (int64_t)1 << (pl->c - 1);
		pl->tb = pl->w * pl->nb;
		/*
		 * Segments: about t->msm_reduce_items work-items over all windows, a power of two S
		 * per window, and at most sqrt(NB): a _reduce work-item adds 2 L points in a chain
		 * and a _window one 3 S, so S much above L would only move the serial work to
		 * fewer items.
		 */
		int64_t want = t->msm_reduce_items > 0 ? t->msm_reduce_items / pl->w : 1;
		pl->log_s = 0;
		while (((int64_t)2 << pl->log_s) <= want && ((int64_t)4 << (2 * pl->log_s)) <= pl->nb)
			pl->log_s++;
		pl->log_l = pl->c - 1 - pl->log_s;
		uint64_t longest = (uint64_t)pl->nb;
		if (pl->one_add) {
			uint64_t phases[3];
			ffu__msm_one_add_steps(pl, phases);
			for (int i = 0; i < 3; i++)
				longest = phases[i] > longest ? phases[i] : longest;
		}
		if (!t->loop_limit || pl->c == 1 || longest <= t->loop_limit)
			break;
		pl->c--;
	}
	pl->sw = (int)(pl->fs->storage_bytes / 4);
	pl->cw = (int)(pl->cv->coord->storage_bytes / 4);
	uint64_t at = 0, pt = 4 * (uint64_t)pl->cw;
	pl->cnt = region(&at, (uint64_t)pl->tb);
	pl->off = region(&at, (uint64_t)pl->tb);
	pl->pos = region(&at, (uint64_t)pl->tb);
	pl->dig = region(&at, (uint64_t)pl->w * (uint64_t)pl->n);
	pl->idx = region(&at, (uint64_t)pl->w * (uint64_t)pl->n);
	pl->scl = region(&at, pl->scalar_mont || pl->in_s < 0 ? (uint64_t)pl->n * (uint64_t)pl->sw : 0);
	bool bases_as_is = pl->fb->form == FFU_POINT_AFFINE && pl->base_mont;
	pl->bas = region(&at, bases_as_is ? 0 : (uint64_t)pl->n * (pl->fb->form == FFU_POINT_AFFINE ? pt / 2 : pt));
	pl->bkt = region(&at, (uint64_t)pl->tb * pt);
	/*
	 * Batch-affine buckets (emit_buckets_affine), for affine bases where the target asks:
	 * an affine sum and a prefix product per bucket. A round is worth its inversion (about
	 * 1.5 bits products by Fermat) when it saves that much over mixed xyzz additions
	 * (about 4 products each, 3 times more in Fq2): amin additions at least.
	 */
	if (pl->fb->form == FFU_POINT_AFFINE && t->msm_affine_buckets > 0 && !pl->one_add) {
		pl->kb = t->msm_affine_buckets < pl->tb ? t->msm_affine_buckets : pl->tb;
		pl->amin = 2 * pl->cv->coord->prime->bits / 5 / (pl->cv->coord->degree > 1 ? 3 : 1);
		pl->acc = region(&at, (uint64_t)pl->tb * pt / 2);
		pl->prd = region(&at, (uint64_t)pl->tb * (uint64_t)pl->cw);
	}
	pl->seg = region(&at, ((uint64_t)pl->w << pl->log_s) * 2 * pt);
	pl->win = region(&at, (uint64_t)pl->w * pt);
	if (pl->one_add) {
		pl->tmp = region(&at, 2 * (uint64_t)pl->w * pt);
		pl->fin = region(&at, pt);
	}
	pl->words = at;
	snprintf(pl->P, sizeof pl->P, "%s", pl->cv->name);
	snprintf(pl->B, sizeof pl->B, "%s", pl->cv->coord->name);
	snprintf(pl->S, sizeof pl->S, "%s", pl->fs->base->name);
	return FFU_STATUS_OK;
}

/*
 * A step's descriptor (msm_impl.h): the plan's numbers n, c, nw (windows), nb (buckets per
 * window), log_s, log_l, the regions' word offsets o_*, kb, amin, phase and nadd. The text names
 * them only, so msms of one type and any size or window width are one program, built once
 * (PoCL took 17 s and Rusticl 83 s to build one).
 */
ffu_kernel_desc *ffu__msm_desc(ffu_fusion_kernels *fk, const msm_plan *pl, int k, const char *suffix, uint64_t items,
			       int in, bool out, uint64_t phase, uint64_t nadd)
{
	const struct {
		const char *name;
		uint64_t v;
	} values[] = {
		{"n", (uint64_t)pl->n},   {"c", (uint64_t)pl->c},	  {"nw", (uint64_t)pl->w},
		{"nb", (uint64_t)pl->nb}, {"log_s", (uint64_t)pl->log_s}, {"log_l", (uint64_t)pl->log_l},
		{"o_cnt", pl->cnt},	  {"o_off", pl->off},		  {"o_pos", pl->pos},
		{"o_dig", pl->dig},	  {"o_idx", pl->idx},		  {"o_scl", pl->scl},
		{"o_bas", pl->bas},	  {"o_bkt", pl->bkt},		  {"o_seg", pl->seg},
		{"o_win", pl->win},	  {"kb", (uint64_t)pl->kb},	  {"amin", (uint64_t)pl->amin},
		{"o_acc", pl->acc},	  {"o_prd", pl->prd},		  {"o_tmp", pl->tmp},
		{"o_fin", pl->fin},	  {"phase", phase},		  {"nadd", nadd},
	};
	const int nv = (int)(sizeof values / sizeof values[0]);
	ffu_kernel_desc *d = ffu__kernel_add(fk, FFU_KERNEL_MSM_STEP, k, suffix, 1, pl->n_in + 2 + nv);
	if (!d)
		return NULL;
	d->items = items;
	for (int j = in == ALL_INPUTS ? 0 : in; j >= 0 && j < (in == ALL_INPUTS ? pl->n_in : in + 1); j++)
		ffu__kernel_slot(d, FFU_ARG_INPUT, j, NULL);
	ffu__kernel_slot(d, FFU_ARG_SCRATCH, 0, NULL);
	if (out)
		ffu__kernel_slot(d, FFU_ARG_OUTPUT, 0, NULL);
	for (int i = 0; i < nv; i++)
		ffu__kernel_value(d, values[i].name, values[i].v);
	return d;
}

ffu_kernel_desc *ffu__msm_step(ffu_strbuf *sb, ffu_fusion_kernels *fk, const msm_plan *pl, int k, const char *suffix,
			       uint64_t items, int in, bool out, const char *what)
{
	ffu_kernel_desc *d = ffu__msm_desc(fk, pl, k, suffix, items, in, out, 0, 0);
	if (!d)
		return NULL;
	ffu__sb_printf(sb, "/* %s */\n", what);
	ffu__kernel_print_signature(sb, d);
	return d;
}

/* A step whose few work-items each loop over many points or buckets: the target's
   work-group size for those (on CPUs one, so that every core gets some) */
static ffu_kernel_desc *loop_step(ffu_strbuf *sb, ffu_fusion_kernels *fk, const msm_plan *pl, int k,
				  const char *suffix, uint64_t items, int in, const char *what)
{
	ffu_kernel_desc *d = ffu__msm_step(sb, fk, pl, k, suffix, items, in, false, what);
	if (d)
		d->wg = pl->loop_wg;
	return d;
}

/* msm_impl.h */
void ffu__msm_base_load(ffu_strbuf *sb, const msm_plan *pl, const char *var, const char *ix)
{
	if (pl->fb->form != FFU_POINT_AFFINE)
		ffu__sb_printf(sb, "%s_xyzz %s = %s_xyzz_load_m(scr + o_bas, %s);\n", pl->P, var, pl->P, ix);
	else if (pl->base_mont)
		ffu__sb_printf(sb, "%s_aff %s = %s_aff_load_m(in%d, %s);\n", pl->P, var, pl->P, pl->in_b, ix);
	else
		ffu__sb_printf(sb, "%s_aff %s = %s_aff_load_m(scr + o_bas, %s);\n", pl->P, var, pl->P, ix);
}

static bool emit_zero(ffu_strbuf *sb, ffu_fusion_kernels *fk, const msm_plan *pl, int k)
{
	if (!ffu__msm_step(sb, fk, pl, k, "_zero", (uint64_t)pl->tb, -1, false, "bucket sizes to zero"))
		return false;
	ffu__sb_append(sb, "\tscr[o_cnt + get_global_id(0)] = 0u;\n}\n\n");
	return true;
}

static bool emit_bases(ffu_strbuf *sb, ffu_fusion_kernels *fk, const msm_plan *pl, int k)
{
	const char *P = pl->P, *B = pl->B;
	if (pl->fb->form == FFU_POINT_AFFINE && pl->base_mont)
		return true;
	if (!ffu__msm_step(sb, fk, pl, k, "_bases", (uint64_t)pl->n, pl->in_b, false, "the bases in the device's form, once"))
		return false;
	ffu__sb_append(sb, "\tconst size_t i = get_global_id(0);\n\t__global uint *bas = scr + o_bas;\n");
	int nc = pl->fb->ncoords;
	/* c<j> = [to_mont](load(coordinate j)) */
	for (int j = 0; j < nc; j++)
		ffu__sb_printf(sb, "\tconst %s_t c%d = %s%s(%s_load(in%d, %d * i + %d));\n", B, j, pl->base_mont ? "" : B,
			       pl->base_mont ? "" : "_to_mont", B, pl->in_b, nc, j);
	if (pl->fb->form == FFU_POINT_AFFINE)
		ffu__sb_printf(sb, "\t%s_store(bas, 2 * i, c0);\n\t%s_store(bas, 2 * i + 1, c1);\n", B, B);
	else if (pl->fb->form == FFU_POINT_JACOBIAN)
		ffu__sb_printf(sb, "\t%s_xyzz_store_m(bas, i, %s_xyzz_from_jac(c0, c1, c2));\n", P, P);
	else
		ffu__sb_printf(sb, "\t%s_xyzz p;\n\tp.x = c0;\n\tp.y = c1;\n\tp.zz = c2;\n\tp.zzz = c3;\n"
			       "\t%s_xyzz_store_m(bas, i, p);\n", P, P);
	ffu__sb_append(sb, "}\n\n");
	return true;
}

/* The digits (the module comment's windows): window w's c bits at bit w c, plus the carry. */
static bool emit_digits(ffu_strbuf *sb, ffu_fusion_kernels *fk, const msm_plan *pl, int k)
{
	if (!ffu__msm_step(sb, fk, pl, k, "_digits", (uint64_t)pl->n, pl->in_s < 0 ? ALL_INPUTS : pl->in_s, false,
		  "signed digits of scalar i in every window, the buckets' sizes counted"))
		return false;
	ffu__sb_append(sb, "\tconst size_t i = get_global_id(0);\n");
	if (pl->in_s < 0) {
		/* computed by the fused producers (ffu_k<k>_s, in the scalars' storage form), then
		   its canonical words kept where the windows read them */
		ffu__sb_printf(sb, "\t%s_store(scr + o_scl, i, %s%sffu_k%d_s(", pl->S, pl->scalar_mont ? pl->S : "",
			       pl->scalar_mont ? "_from_mont(" : "", k);
		ffu__helper_io_args(sb, pl->n_in, 0);
		ffu__sb_printf(sb, "i)%s);\n", pl->scalar_mont ? ")" : "");
		ffu__sb_printf(sb, "\t__global const uint *s = scr + o_scl + %d * i;\n", pl->sw);
	} else if (pl->scalar_mont) {
		ffu__sb_printf(sb, "\t%s_store(scr + o_scl, i, %s_from_mont(%s_load(in%d, i)));\n", pl->S, pl->S, pl->S,
			       pl->in_s);
		ffu__sb_printf(sb, "\t__global const uint *s = scr + o_scl + %d * i;\n", pl->sw);
	} else {
		ffu__sb_printf(sb, "\t__global const uint *s = in%d + %d * i;\n", pl->in_s, pl->sw);
	}
	ffu__sb_printf(sb,
		       "\tuint sw[%d];\n\tfor (int j = 0; j < %d; j++)\n\t\tsw[j] = s[j];\n"
		       "\tconst uint mask = (1u << c) - 1u;\n"
		       "\tuint carry = 0u;\n"
		       "\tfor (uint w = 0; w < nw; w++) {\n"
		       "\t\tconst uint q = (w * (uint)c) >> 5, sh = (w * (uint)c) & 31u;\n"
		       "\t\tulong v = q < %du ? (ulong)sw[q] : 0UL;\n"
		       "\t\tif (q + 1u < %du)\n\t\t\tv |= (ulong)sw[q + 1u] << 32;\n"
		       "\t\tconst uint d = ((uint)(v >> sh) & mask) + carry;\n"
		       "\t\tcarry = d > (uint)nb ? 1u : 0u;\n"
		       "\t\tconst uint m = carry ? (1u << c) - d : d;\n"
		       "\t\tscr[o_dig + w * n + i] = m ? (m << 1) | carry : 0u;\n"
		       "\t\tif (m)\n\t\t\tatomic_inc(scr + o_cnt + w * nb + (m - 1u));\n"
		       "\t}\n}\n\n",
		       pl->sw, pl->sw, pl->sw, pl->sw);
	return true;
}

static bool emit_sort(ffu_strbuf *sb, ffu_fusion_kernels *fk, const msm_plan *pl, int k)
{
	if (!loop_step(sb, fk, pl, k, "_scan", (uint64_t)pl->w, -1,
		  "window w's buckets: where each one's entries start (from w n), in order"))
		return false;
	ffu__sb_append(sb, "\tconst size_t w = get_global_id(0);\n\tuint at = (uint)(w * n);\n"
			   "\tfor (size_t j = w * nb; j < (w + 1) * nb; j++) {\n"
			   "\t\tscr[o_off + j] = at;\n\t\tscr[o_pos + j] = at;\n\t\tat += scr[o_cnt + j];\n\t}\n}\n\n");
	if (!ffu__msm_step(sb, fk, pl, k, "_scatter", (uint64_t)pl->n, -1, false, "point i's entry into each of its buckets"))
		return false;
	ffu__sb_append(sb, "\tconst size_t i = get_global_id(0);\n"
			   "\tfor (size_t w = 0; w < nw; w++) {\n"
			   "\t\tconst uint e = scr[o_dig + w * n + i];\n"
			   "\t\tif (e) {\n"
			   "\t\t\tconst uint at = atomic_inc(scr + o_pos + w * nb + ((e >> 1) - 1u));\n"
			   "\t\t\tscr[o_idx + at] = ((uint)i << 1) | (e & 1u);\n"
			   "\t\t}\n\t}\n}\n\n");
	return true;
}

/* msm_impl.h */
void ffu__msm_signed_base(ffu_strbuf *sb, const msm_plan *pl, const char *var, const char *indent)
{
	ffu__sb_append(sb, indent);
	ffu__msm_base_load(sb, pl, var, "e >> 1");
	ffu__sb_printf(sb, "%sif (e & 1u)\n%s\t%s.y = %s_neg(%s.y);\n", indent, indent, var, pl->B, var);
}

/*
 * "for (t = from; t < count; t++) acc += entry t's base, negated where its sign bit says",
 * at the given indent (first and count in scope): mixed additions for affine bases, xyzz
 * ones otherwise. Both bucket steps end their buckets with it.
 */
static void print_bucket_loop(ffu_strbuf *sb, const msm_plan *pl, const char *acc, const char *from, const char *in)
{
	char in2[16];
	snprintf(in2, sizeof in2, "%s\t", in);
	ffu__sb_printf(sb, "%sfor (uint t = %s; t < count; t++) {\n%sconst uint e = scr[o_idx + first + t];\n", in, from,
		       in2);
	if (pl->fb->form == FFU_POINT_AFFINE) {
		ffu__msm_signed_base(sb, pl, "q", in2);
		ffu__sb_printf(sb, "%s%s = %s_xyzz_madd(%s, q);\n", in2, acc, pl->P, acc);
	} else {
		ffu__sb_append(sb, in2);
		ffu__msm_base_load(sb, pl, "q", "e >> 1");
		ffu__sb_printf(sb, "%sif (e & 1u)\n%s\tq = %s_xyzz_neg(q);\n%s%s = %s_xyzz_add(%s, q);\n", in2, in2, pl->P,
			       in2, acc, pl->P, acc);
	}
	ffu__sb_printf(sb, "%s}\n", in);
}

static bool emit_buckets(ffu_strbuf *sb, ffu_fusion_kernels *fk, const msm_plan *pl, int k)
{
	const char *P = pl->P;
	bool as_is = pl->fb->form == FFU_POINT_AFFINE && pl->base_mont;
	if (!ffu__msm_step(sb, fk, pl, k, "_bucket", (uint64_t)pl->tb, as_is ? pl->in_b : -1, false,
		  "bucket j: the sum of its points, each negated where its digit is"))
		return false;
	ffu__sb_printf(sb,
		       "\tconst size_t j = get_global_id(0);\n"
		       "\tconst uint first = scr[o_off + j], count = scr[o_cnt + j];\n"
		       "\t%s_xyzz acc = %s_xyzz_zero();\n",
		       P, P);
	print_bucket_loop(sb, pl, "acc", "0", "\t");
	ffu__sb_printf(sb, "\t%s_xyzz_store_m(scr + o_bkt, j, acc);\n}\n\n", P);
	return true;
}

/*
 * The bucket step with batch-affine additions (plan: kb > 0; affine bases): work-item g
 * owns buckets [g kb, g kb + kb) and keeps each one's sum affine in ACC. Round 0 takes every
 * bucket's first point; round r adds every bucket's point r: a pass up classifies each
 * addition (cl/point.cl: aff_den) and keeps the running product of the denominators in PRD,
 * one inversion of the product, and a pass down takes each inverse off it with two
 * products and completes the addition (aff_fin). Nothing is written before the pass down,
 * so both passes see the same sums. When a round would invert for fewer than amin
 * additions (the buckets' sizes run out unevenly), the rest of every bucket is added in
 * xyzz with mixed additions, as emit_buckets does. The result is the same group element;
 * BKT gets it in xyzz for the reduction either way.
 */
static bool emit_buckets_affine(ffu_strbuf *sb, ffu_fusion_kernels *fk, const msm_plan *pl, int k)
{
	const char *P = pl->P, *B = pl->B;
	bool as_is = pl->base_mont;
	if (!loop_step(sb, fk, pl, k, "_bucket", (uint64_t)((pl->tb + pl->kb - 1) / pl->kb), as_is ? pl->in_b : -1,
		  "buckets [g kb, g kb + kb): their sums, affine additions sharing one inversion a round"))
		return false;
	ffu__sb_printf(sb,
		       "\tconst size_t j0 = get_global_id(0) * kb, tb = (size_t)nw * nb, j1 = j0 + kb < tb ? j0 + kb : tb;\n"
		       "\t__global uint *acc = scr + o_acc, *prd = scr + o_prd;\n"
		       "\tfor (size_t j = j0; j < j1; j++) {\n"
		       "\t\t%s_aff q;\n\t\tq.x = q.y = %s_from_u32(0u);\n"
		       "\t\tif (scr[o_cnt + j]) {\n"
		       "\t\t\tconst uint e = scr[o_idx + scr[o_off + j]];\n",
		       P, B);
	ffu__msm_signed_base(sb, pl, "b", "\t\t\t");
	ffu__sb_printf(sb,
		       "\t\t\tq = b;\n\t\t}\n\t\t%s_aff_store_m(acc, j, q);\n\t}\n"
		       "\tuint r = 1, more = 1;\n"
		       "\tfor (; more; r += more) {\n"
		       "\t\t%s_t prod = %s_one_m();\n\t\tuint nadd = 0;\n"
		       "\t\tfor (size_t j = j0; j < j1; j++) {\n"
		       "\t\t\tif (scr[o_cnt + j] > r) {\n"
		       "\t\t\t\tconst uint e = scr[o_idx + scr[o_off + j] + r];\n",
		       P, B, B);
	ffu__msm_signed_base(sb, pl, "q", "\t\t\t\t");
	ffu__sb_printf(sb,
		       "\t\t\t\tconst %s_aff_step st = %s_aff_den(%s_aff_load_m(acc, j), q);\n"
		       "\t\t\t\tif (st.kind >= FFU_AFF_ADD) {\n"
		       "\t\t\t\t\t%s_store(prd, j, prod);\n\t\t\t\t\tprod = %s_mul(prod, st.den);\n\t\t\t\t\tnadd++;\n"
		       "\t\t\t\t}\n\t\t\t}\n\t\t}\n"
		       "\t\tmore = nadd >= amin ? 1u : 0u;\n"
		       "\t\t%s_t inv = %s_inv(prod);\n"
		       "\t\tfor (size_t u = 0; more && u < j1 - j0; u++) {\n"
		       "\t\t\tconst size_t j = j1 - 1 - u;\n"
		       "\t\t\tif (scr[o_cnt + j] > r) {\n"
		       "\t\t\t\tconst uint e = scr[o_idx + scr[o_off + j] + r];\n",
		       P, P, P, B, B, B, B);
	ffu__msm_signed_base(sb, pl, "q", "\t\t\t\t");
	ffu__sb_printf(sb,
		       "\t\t\t\tconst %s_aff a = %s_aff_load_m(acc, j);\n"
		       "\t\t\t\tconst %s_aff_step st = %s_aff_den(a, q);\n"
		       "\t\t\t\t%s_t dinv = inv;\n"
		       "\t\t\t\tif (st.kind >= FFU_AFF_ADD) {\n"
		       "\t\t\t\t\tdinv = %s_mul(inv, %s_load(prd, j));\n\t\t\t\t\tinv = %s_mul(inv, st.den);\n\t\t\t\t}\n"
		       "\t\t\t\t%s_aff_store_m(acc, j, %s_aff_fin(a, q, st.kind, dinv));\n\t\t\t}\n\t\t}\n\t}\n"
		       "\tfor (size_t j = j0; j < j1; j++) {\n"
		       "\t\tconst uint first = scr[o_off + j], count = scr[o_cnt + j];\n"
		       "\t\t%s_xyzz s = %s_xyzz_from_aff(%s_aff_load_m(acc, j));\n",
		       P, P, P, P, B, B, B, B, P, P, P, P, P);
	print_bucket_loop(sb, pl, "s", "r", "\t\t");
	ffu__sb_printf(sb, "\t\t%s_xyzz_store_m(scr + o_bkt, j, s);\n\t}\n}\n\n", P);
	return true;
}

static bool emit_reduce(ffu_strbuf *sb, ffu_fusion_kernels *fk, const msm_plan *pl, int k)
{
	const char *P = pl->P;
	if (!loop_step(sb, fk, pl, k, "_reduce", (uint64_t)pl->w << pl->log_s, -1,
		  "a segment of a window's buckets by running sums: its weighted sum and its plain sum"))
		return false;
	ffu__sb_printf(sb,
		       "\tconst size_t g = get_global_id(0), w = g >> log_s, s = g & ((1UL << log_s) - 1UL);\n"
		       "\tconst size_t b0 = w * nb + (s << log_l);\n"
		       "\t%s_xyzz run = %s_xyzz_zero(), sum = run;\n"
		       "\tfor (size_t b = 1UL << log_l; b-- > 0;) {\n"
		       "\t\trun = %s_xyzz_add(run, %s_xyzz_load_m(scr + o_bkt, b0 + b));\n"
		       "\t\tsum = %s_xyzz_add(sum, run);\n\t}\n"
		       "\t%s_xyzz_store_m(scr + o_seg, 2 * g, sum);\n\t%s_xyzz_store_m(scr + o_seg, 2 * g + 1, run);\n}\n\n",
		       P, P, P, P, P, P, P);
	if (!loop_step(sb, fk, pl, k, "_window", (uint64_t)pl->w, -1,
		  "window w's sum: its segments' weighted sums, plus L times sum_s s run_s"))
		return false;
	ffu__sb_printf(sb,
		       "\tconst size_t w = get_global_id(0), g0 = w << log_s;\n"
		       "\t%s_xyzz acc = %s_xyzz_zero(), run = acc, tot = acc;\n"
		       "\tfor (size_t s = 1UL << log_s; s-- > 0;) {\n"
		       "\t\tacc = %s_xyzz_add(acc, %s_xyzz_load_m(scr + o_seg, 2 * (g0 + s)));\n"
		       "\t\tif (s > 0) {\n"
		       "\t\t\trun = %s_xyzz_add(run, %s_xyzz_load_m(scr + o_seg, 2 * (g0 + s) + 1));\n"
		       "\t\t\ttot = %s_xyzz_add(tot, run);\n\t\t}\n\t}\n"
		       "\tfor (ulong d = 0; d < log_l; d++)\n\t\ttot = %s_xyzz_dbl(tot);\n"
		       "\t%s_xyzz_store_m(scr + o_win, w, %s_xyzz_add(acc, tot));\n}\n\n",
		       P, P, P, P, P, P, P, P, P, P);
	return true;
}

/* The root's point type from acc, normalised (the module comment's _final). */
static bool emit_final(ffu_strbuf *sb, ffu_fusion_kernels *fk, const msm_plan *pl, int k)
{
	const char *P = pl->P, *B = pl->B;
	if (!ffu__msm_step(sb, fk, pl, k, "_final", 1, -1, true,
			   pl->one_add ? "the point, normalised" : "the windows combined from the top; the point, normalised"))
		return false;
	if (pl->one_add)
		ffu__sb_printf(sb, "\tconst %s_xyzz acc = %s_xyzz_load_m(scr + o_fin, 0);\n", P, P);
	else
		ffu__sb_printf(sb,
			       "\t%s_xyzz acc = %s_xyzz_zero();\n"
			       "\tfor (size_t w = nw; w-- > 0;) {\n"
			       "\t\tfor (ulong d = 0; d < c; d++)\n\t\t\tacc = %s_xyzz_dbl(acc);\n"
			       "\t\tacc = %s_xyzz_add(acc, %s_xyzz_load_m(scr + o_win, w));\n\t}\n",
			       P, P, P, P, P);
	/* coordinates in the device form: x, y, then 1s (jacobian Z; xyzz ZZ, ZZZ) */
	int nc = pl->fo->ncoords;
	ffu__sb_printf(sb,
		       "\t%s_t o[4];\n"
		       "\tconst %s_t zero = %s_from_u32(0u), one = %s_one_m();\n"
		       "\tif (%s_xyzz_is_zero(acc)) {\n"
		       "\t\to[0] = o[1] = %s;\n\t\to[2] = o[3] = zero;\n"
		       "\t} else {\n"
		       "\t\tconst %s_t t = %s_inv(%s_mul(acc.zz, acc.zzz));\n"
		       "\t\to[0] = %s_mul(acc.x, %s_mul(acc.zzz, t));\n"
		       "\t\to[1] = %s_mul(acc.y, %s_mul(acc.zz, t));\n"
		       "\t\to[2] = o[3] = one;\n\t}\n",
		       B, B, B, B, P, pl->fo->form == FFU_POINT_AFFINE ? "zero" : "one", B, B, B, B, B, B, B);
	bool mont = ffu__field_is_mont(pl->fo->coef);
	for (int j = 0; j < nc; j++)
		ffu__sb_printf(sb, "\t%s_store(out0, %d, %s%s(o[%d]));\n", B, j, mont ? "" : B, mont ? "" : "_from_mont", j);
	ffu__sb_append(sb, "}\n\n");
	return true;
}

ffu_status ffu__codegen_emit_msm(ffu_strbuf *sb, ffu_fusion_kernels *fk, const ffu_inst *fusion, int k,
				 const ffu_target *t, ffu_error *e)
{
	msm_plan pl;
	ffu_status st = plan(&pl, fusion, t, e);
	if (st)
		return st;
	memset(fk, 0, sizeof *fk);
	fk->fusion = fusion;
	fk->msm = true;
	fk->scratch_bytes = (size_t)pl.words * 4;
	/* the sizes go to the launches (step): a comment with them would make each size a program */
	ffu__sb_printf(sb, "/* %s: %s: msm of %s (scalars %s) into %s */\n", fusion->name, fusion->callee->name,
		       pl.fb->name, pl.fs->name, pl.fo->name);
	if (pl.in_s < 0) {
		char name[32];
		snprintf(name, sizeof name, "ffu_k%d_s", k);
		if ((st = ffu__helper_value(sb, fusion, name, pl.msm->operands[0]->id, pl.fs, NULL, e)))
			return st;
	}
	if (!emit_zero(sb, fk, &pl, k) || !emit_bases(sb, fk, &pl, k) || !emit_digits(sb, fk, &pl, k) ||
	    !emit_sort(sb, fk, &pl, k) ||
	    !(pl.one_add ? ffu__msm_emit_one_add(sb, fk, &pl, k)
			 : (pl.kb ? emit_buckets_affine(sb, fk, &pl, k) : emit_buckets(sb, fk, &pl, k)) &&
				   emit_reduce(sb, fk, &pl, k)) ||
	    !emit_final(sb, fk, &pl, k))
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory generating kernels");
	return ffu__sb_status(sb, e);
}
