/*
 * codegen/fft.c: the kernels of an NTT fusion (kind kFft: one `fft` with the element-wise
 * work the fusion pass put around it).
 *
 * Algorithm: Stockham autosort, radix R = 2^r per stage, natural order in and out, so no
 * bit-reversal pass. A transform of n = 2^k takes P = ceil(k / r_max) stages (r_max from
 * the target: device/target.h fft_log_radix), radices balanced, each one pass over memory
 * unless two share a tile (below). Stage q with
 * p = R_0 ... R_(q-1) (the length of the sub-transforms done so far) and T = n / R gives
 * work-item i < T of each row:
 *     u[t] = src[i + t T], t < R;  u[t] *= w^(n/(pR) * (i mod p) t);  u = DFT_R(u);
 *     dst[(i - i mod p) R + i mod p + t p] = u[t].
 * DFT_R runs in registers as radix-2 stages on bit-reversed names (the permutation is a
 * renaming, free), and skips the products by w^0. The first pass reads its input through
 * the producers fused in front (ffu_k<k>_x: element i of the fft's operand, computed from
 * the fusion's inputs); the last pass hands each result element to ffu_k<k>_y, which runs
 * the consumers fused behind and stores the fusion's outputs. Between passes the values
 * live in two scratch buffers, in the storage form of the fft's type: every step is
 * linear, so a _mont type transforms its stored values, and each product by a twiddle in
 * the device's Montgomery form keeps the other operand's form (a R b / R = a b).
 *
 * Twiddles: one table of w^e (or w^-e for IFFT), e < n/2, in the device's Montgomery form
 * of the prime field; w^e for e >= n/2 is -w^(e - n/2). Without a twiddles operand the
 * table holds ZKX's root's powers (fields/roots.c) and is filled once when the executable
 * is made (the descriptor's `once`); with one, every run fills it from the operand's first
 * n/2 entries (all that ZKX reads of it either). IFFT scales by 1/n in the last pass.
 * fft_do_bit_reverse=false: the FFT reads its input at bit-reversed indices, the IFFT
 * stores its output at bit-reversed indices (ZKX's meaning, docs/hlo.md).
 *
 * Columns of the first pass: its slot t reads columns tT .. tT + T - 1 of a row (T = n/R).
 * Where the fft's operand is (or is computed from) a concatenate along the last dimension,
 * such as the zero-padding of a low-degree extension, every slot whose columns lie inside
 * one operand of it reads that operand directly: the producers are generated once per slot
 * with their columns known (kgen.h: ffu__kgen_columns), so the concatenate picks its operand
 * at compile time, no index is clamped and nothing is selected (a clamped index made PoCL
 * gather every load). A slot that comes out as the constant zero (a zero operand, and the
 * products it feeds) is neither loaded nor computed, and the radix-2 stages fold it: x + 0
 * and x - 0 are x, 0 + y and 0 - y are y and -y, 0 * w is 0. Slots with the same picks
 * share one helper, ffu_k<k>_x<c>(inputs, rb, col) (rb = the row's first index). A slot
 * spanning two operands keeps the clamped reads for that concatenate; a program with no
 * such concatenate, or read at bit-reversed indices, gets the one helper ffu_k<k>_x(i).
 *
 * Registers or local memory: on a CPU (PoCL) a work-item's R values stay in vector
 * registers or L1 across its r stages and work-items vectorise, with no barrier; the
 * passes then cost bandwidth, P reads and writes of the array. Where the target allows
 * (device/target.h fft_log_tile: GPUs), a pass runs two stages that meet in local memory
 * (codegen/fft_tile.c), so a transform takes fewer passes; the stages are the same
 * formulas (fft_impl.h: a stage, a pass), and the passes of one stage are fft_pass.c's,
 * or fft_vec.c's where the target asks for the prime's vector instance (device/target.h
 * fft_vector: several columns a work-item, for a vectoriser that gives up on the scalar
 * passes).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/fft_impl.h"
#include "codegen/field_cl.h"
#include "codegen/helper.h"
#include "codegen/kgen.h"
#include "device/target.h"

/* b bits split over np parts as evenly as possible, the larger parts last. */
static int balanced(int b, int np, int g)
{
	return b / np + (g >= np - b % np);
}

/*
 * Stages and passes (fft_impl.h). Without tiles: ceil(k / rmax) passes of one stage each,
 * radices balanced; where the target caps the first pass's radix at 2^rfirst below that
 * (device/target.c says why: CPUs), the first pass takes rfirst bits and the rest are
 * balanced over ceil((k - rfirst) / rmax) passes. With tiles (the target's log_tile >
 * rmax) and where they save passes: ceil(k / log_tile) passes, balanced, a pass of more
 * than rtile bits running as two stages through a tile of tile_w columns x 2^bits
 * elements, which must fit tile_bytes (else one pass more is tried). rtile, the largest
 * stage in a tile, may exceed rmax: a CPU keeps large transforms to radix 16 for the
 * strides of the passes' late stages (device/target.c), which a tile's stages read from
 * local memory, not the array. Where tiles save nothing, the one-stage plan.
 */
static void plan_passes(fft_plan *pl, int log_tile, size_t tile_bytes, int rmax, int rtile, int rfirst)
{
	const int k = pl->k;
	const int np = k == 0 ? 1 : (k + rmax - 1) / rmax;
	/* a tile's values in their OpenCL type: an extension's may be in wider containers */
	const size_t eb = pl->f->storage_bytes * (pl->f->kind == FFU_ELEM_EXT ? 2 : 1);
	int npt = np;
	if (log_tile > 2 * rtile)
		log_tile = 2 * rtile;
	if (log_tile > rmax && k > rmax)
		for (npt = (k + log_tile - 1) / log_tile; npt < np; npt++) {
			const int b = (k + npt - 1) / npt;
			const uint64_t w = pl->tile_w < (UINT64_C(1) << (k - b)) ? pl->tile_w : UINT64_C(1) << (k - b);
			if ((w << b) * eb <= tile_bytes)
				break;
		}
	/* the first pass's cap: one-stage plans only (a tile's stages meet in local memory) */
	const int r0 = npt == np && rfirst > 0 && k > 0 && balanced(k, np, 0) > rfirst ? rfirst : 0;
	if (r0)
		npt = 1 + (k - r0 + rmax - 1) / rmax;
	pl->npass = npt;
	pl->nst = 0;
	for (int g = 0; g < npt && g < FFT_MAX_PASSES; g++) {
		const int b = k == 0 ? 0 : !r0 ? balanced(k, npt, g) : g == 0 ? r0 : balanced(k - r0, npt - 1, g - 1);
		pl->pass_first[g] = pl->nst;
		pl->pass_stages[g] = npt < np && b > rtile ? 2 : 1;
		if (pl->pass_stages[g] == 2) {
			pl->lr[pl->nst++] = (b + 1) / 2;
			pl->lr[pl->nst++] = b / 2;
		} else {
			pl->lr[pl->nst++] = b;
		}
	}
}

int ffu__fft_stage_lp(const fft_plan *pl, int s)
{
	int lp = 0;
	for (int i = 0; i < s; i++)
		lp += pl->lr[i];
	return lp;
}

static ffu_status plan(fft_plan *pl, const ffu_inst *fusion, const ffu_target *t, ffu_error *e)
{
	const ffu_computation *fc = fusion->callee;
	const ffu_inst *const *outs;
	memset(pl, 0, sizeof *pl);
	pl->tw_param = -1;
	for (int i = 0; i < fc->n_insts; i++)
		if (fc->insts[i]->op == FFU_OP_FFT) {
			if (pl->fft)
				return ffu__err(e, FFU_STATUS_EUNSUPPORTED, "%s: a kFft fusion holds one fft", fusion->name);
			pl->fft = fc->insts[i];
		}
	if (!pl->fft)
		return ffu__err(e, FFU_STATUS_EUNSUPPORTED, "%s: a kFft fusion without an fft", fusion->name);
	const ffu_inst *fft = pl->fft;
	if (fft->n_operands > 1) {
		if (fft->operands[1]->op != FFU_OP_PARAMETER)
			return ffu__err(e, FFU_STATUS_EUNSUPPORTED, "%s: the twiddles of %s must be a parameter of the fusion",
					fusion->name, fft->name);
		pl->tw_param = (int)fft->operands[1]->index;
		pl->tf = ffu__shape_field(&fft->operands[1]->shape);
	}
	pl->f = ffu__shape_field(&fft->shape);
	pl->p = pl->f->prime;
	pl->n = fft->shape.dims[fft->shape.rank - 1];
	pl->rows = ffu__fft_rows(&fft->shape);
	pl->k = ffu__log2_pow2(pl->n);
	pl->h = pl->n / 2;
	size_t sb = pl->f->storage_bytes;
	const int cls = sb <= 4 ? 0 : sb <= 8 ? 1 : 2;
	const uint64_t bytes = (uint64_t)(pl->rows * pl->n) * sb; /* the batch */
	const bool big = t->fft_big_bytes && bytes > t->fft_big_bytes;
	int rmax = big ? t->fft_log_radix_big[cls] : t->fft_log_radix[cls];
	rmax = rmax < 1 ? 1 : rmax;
	pl->wg = t->fft_wg > 0 ? t->fft_wg : 16;
	pl->tile_w = t->fft_tile_w > 0 ? t->fft_tile_w : pl->wg;
	pl->tile_s = t->fft_tile_sub > 0 ? t->fft_tile_sub : 1;
	/* vector passes: the prime's elements (or _mont twin's), where its template has an
	   instance; a vector first pass transposes its stores itself (fft_vec.c), uncapped */
	if (t->fft_vector[cls] && pl->f->base == pl->p) {
		pl->vw = ffu__cl_prime_vector_lanes(pl->p);
		pl->vw_ends = pl->vw > 0 && t->fft_vector_ends[cls];
		pl->nt = pl->vw > 0 && t->fft_stream_bytes && bytes > t->fft_stream_bytes;
	}
	plan_passes(pl, t->fft_log_tile[cls], t->fft_tile_bytes, rmax, t->fft_log_radix[cls] < 1 ? 1 : t->fft_log_radix[cls],
		    pl->vw_ends ? 0 : t->fft_log_radix_first[cls]);
	if (pl->npass > FFT_MAX_PASSES)
		return ffu__err(e, FFU_STATUS_EUNSUPPORTED, "%s: a transform of 2^%d needs %d passes of radix 2^%d (at most %d)",
				fusion->name, pl->k, pl->npass, rmax, FFT_MAX_PASSES);
	/* stage s > 0 multiplies u[t] (1 <= t < R) of work-item i by w^((i mod p) t n / (pR)):
	   (R - 1) p entries, t-major, so work-items i, i + 1, ... read consecutive ones */
	pl->table = pl->h;
	for (int s = 0, lp = 0; s < pl->nst; lp += pl->lr[s], s++) {
		pl->off[s] = pl->table;
		if (s > 0)
			pl->table += ((INT64_C(1) << pl->lr[s]) - 1) << lp;
	}
	pl->n_in = fc->n_params;
	pl->n_out = ffu__kgen_outputs(fc, &outs);
	pl->direct_out = pl->n_out == 1 && outs[0] == fft && !(fft->fft.inverse && !fft->fft.bit_reverse && pl->k > 0);
	ffu__kgen_cl_type(pl->f, pl->ft);
	ffu__cl_type_name(pl->p, pl->pt);
	snprintf(pl->fn, sizeof pl->fn, "%s", pl->f->base->name);
	snprintf(pl->pn, sizeof pl->pn, "%s", pl->p->name);
	pl->rev_in = !fft->fft.inverse && !fft->fft.bit_reverse && pl->k > 0;
	pl->cpu = t->cls == FFU_DEVICE_CLASS_CPU;
	pl->wg_p = t->fft_wg_p;
	return FFU_STATUS_OK;
}

void ffu__fft_mont_const(ffu_strbuf *sb, const ffu_field *p, const char *fn, const unsigned char *x)
{
	unsigned char m[FFU_FIELD_MAX_BYTES];
	ffu__fp_to_dev_mont(p, m, x);
	ffu__sb_printf(sb, "%s_make", fn);
	ffu__cl_emit_const_args(sb, p, m);
}

void ffu__fft_mulw(ffu_strbuf *sb, const fft_plan *pl, const char *a, const char *w)
{
	if (pl->f->kind == FFU_ELEM_EXT) /* each coefficient times w (cl/ext*.cl: scale_) */
		ffu__sb_printf(sb, "%s_scale_(%s, %s_from_base(%s))", pl->fn, a, pl->fn, w);
	else
		ffu__sb_printf(sb, "%s_mul(%s, %s)", pl->fn, a, w);
}

void ffu__fft_io_args(ffu_strbuf *sb, const fft_plan *pl, bool outputs)
{
	ffu__helper_io_args(sb, pl->n_in, outputs ? pl->n_out : 0);
}

/* The helper's parameters and first line: the linear index i, or the row's first index
   rb and the column col (class c >= 0). */
static void x_header(ffu_strbuf *sb, const fft_plan *pl, int k, int c)
{
	ffu__sb_printf(sb, "static inline %s ffu_k%d_x", pl->ft, k);
	if (c >= 0)
		ffu__sb_printf(sb, "%d", c);
	ffu__sb_append(sb, "(");
	ffu__helper_io_params(sb, pl->n_in, 0);
	if (c >= 0)
		ffu__sb_append(sb, "const ulong rb, const ulong col)\n{\n\tconst ulong i = rb + col;\n");
	else
		ffu__sb_append(sb, "const ulong i)\n{\n");
}

/*
 * The producers' body for the fft's operand at the kernel's index, in g: with columns
 * [lo, hi) where lo < hi (ffu__kgen_columns), else at any index. *zero: it is the constant
 * zero.
 */
static ffu_status x_body(kgen *g, const fft_plan *pl, const ffu_computation *fc, int64_t lo, int64_t hi, bool *zero,
			 ffu_error *e)
{
	ffu_status st = ffu__kgen_init(g, fc, "i", e);
	if (st)
		return st;
	if (lo < hi)
		ffu__kgen_columns(g, pl->n, lo, hi);
	int v = ffu__kgen_value_at(g, pl->fft->operands[0]->id, IX_MAIN);
	ffu__kgen_plan(g);
	if ((st = ffu__kgen_emit_body(g, e)))
		return st;
	*zero = ffu__kgen_zero(g, v);
	ffu__kgen_emit_return(g, pl->f, v);
	return ffu__body_status(g->b, e);
}

static bool same_picks(const kgen *a, const kgen *b)
{
	return a->cols.npicks == b->cols.npicks &&
	       (a->cols.npicks == 0 || memcmp(a->cols.picks, b->cols.picks, sizeof(int) * (size_t)a->cols.npicks) == 0);
}

/*
 * The first pass's slots (plan: cols, slot) and their helpers: one body per slot with its
 * columns, the slots with the same picks sharing a class. Used only where some
 * concatenate was picked and some slot is not zero; else *used stays false and nothing is
 * printed.
 */
static ffu_status emit_x_columns(ffu_strbuf *sb, fft_plan *pl, const ffu_computation *fc, int k, bool *used,
				 ffu_error *e)
{
	const int R = 1 << pl->lr[0];
	const int64_t T = pl->n / R;
	kgen *cls = calloc((size_t)R, sizeof *cls), g;
	if (!cls)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory generating kernels");
	int ncls = 0;
	bool picked = false, nonzero = false;
	ffu_status st = FFU_STATUS_OK;
	*used = false;
	for (int t = 0; t < R && st == FFU_STATUS_OK; t++) {
		bool zero = false;
		st = x_body(&g, pl, fc, t * T, (t + 1) * T, &zero, e);
		for (int j = 0; j < g.cols.npicks; j++)
			picked |= g.cols.picks[j] >= 0;
		int c = zero ? -1 : 0;
		while (c >= 0 && c < ncls && !same_picks(&cls[c], &g))
			c++;
		pl->slot[t] = c;
		if (st == FFU_STATUS_OK && c == ncls) {
			cls[ncls] = g; /* kept: its body is printed below */
			cls[ncls].b = &cls[ncls].body;
			ncls++;
			nonzero = true;
			continue;
		}
		ffu__kgen_free(&g);
	}
	if (st == FFU_STATUS_OK && picked && nonzero) {
		*used = true;
		for (int c = 0; c < ncls; c++) {
			x_header(sb, pl, k, c);
			ffu__body_print(sb, cls[c].b, &ffu__body_scalar);
			ffu__sb_append(sb, "}\n\n");
		}
	}
	for (int c = 0; c < ncls; c++)
		ffu__kgen_free(&cls[c]);
	free(cls);
	return st;
}

/*
 * ffu_k<k>_x(inputs, i): element i of the fft's operand in its storage form (the
 * producers fused in front; per class of the first pass's slots where columns are known:
 * emit_x_columns), and ffu_k<k>_y(inputs, outputs, i, fv): the fusion's outputs at element
 * i given the transform's element i, fv (the consumers fused behind): ffu_k<k>_x a kernel
 * body of the value generator (kgen.h) at index i, ffu_k<k>_y codegen/helper.c's.
 */
static ffu_status emit_helpers(ffu_strbuf *sb, fft_plan *pl, const ffu_inst *fusion, int k, ffu_error *e)
{
	const ffu_computation *fc = fusion->callee;
	kgen g;
	ffu_status st = FFU_STATUS_OK;
	if (!pl->rev_in && pl->fft->operands[0]->op != FFU_OP_PARAMETER)
		st = emit_x_columns(sb, pl, fc, k, &pl->cols, e);
	if (st)
		return st;
	if (!pl->cols) {
		bool zero = false;
		st = x_body(&g, pl, fc, 0, 0, &zero, e);
		if (st == FFU_STATUS_OK) {
			x_header(sb, pl, k, -1);
			ffu__body_print(sb, g.b, &ffu__body_scalar);
			ffu__sb_append(sb, "}\n\n");
		}
		ffu__kgen_free(&g);
		if (st)
			return st;
	}
	char name[32];
	snprintf(name, sizeof name, "ffu_k%d_y", k);
	return ffu__helper_outputs(sb, fusion, name, pl->ft, 'c', e);
}

/* The twiddle table's kernel: the roots' powers (once), or the operand's entries (per run). */
static bool emit_twiddles(ffu_strbuf *sb, ffu_fusion_kernels *fk, const fft_plan *pl, int k)
{
	const ffu_field *p = pl->p;
	bool gen = pl->tw_param < 0;
	ffu_kernel_desc *d = ffu__kernel_add(fk, FFU_KERNEL_FFT_TWIDDLES, k, "_tw", 1, 2);
	if (!d)
		return false;
	if (!gen)
		ffu__kernel_slot(d, FFU_ARG_INPUT, pl->tw_param, NULL);
	ffu__kernel_slot(d, FFU_ARG_TWIDDLES_OUT, 0, NULL);
	d->once = gen;
	d->items = gen ? (size_t)((pl->h + TW_BLOCK - 1) / TW_BLOCK) : (size_t)pl->h;
	ffu__kernel_print_signature(sb, d);
	if (gen) {
		unsigned char w[FFU_FIELD_MAX_BYTES];
		ffu__fp_root_of_unity(p, pl->k, w);
		if (pl->fft->fft.inverse)
			ffu__fp_inv(p, w, w);
		ffu__sb_printf(sb, "\t/* w = the %s root of unity of order %lld; entries e0 .. e0 + %d */\n",
			       pl->fft->fft.inverse ? "inverse of the" : "", (long long)pl->n, TW_BLOCK - 1);
		ffu__sb_printf(sb, "\tconst ulong e0 = get_global_id(0) * %dUL;\n\tconst %s w = ", TW_BLOCK, pl->pt);
		ffu__fft_mont_const(sb, p, p->name, w);
		ffu__sb_printf(sb, ";\n\t%s acc = %s_pow_u64(w, e0);\n", pl->pt, p->name);
		ffu__sb_printf(sb, "\tfor (uint j = 0; j < %d && e0 + j < %lluUL; j++) {\n", TW_BLOCK,
			       (unsigned long long)pl->h);
		ffu__sb_printf(sb, "\t\t%s_store(tw, e0 + j, acc);\n\t\tacc = %s_mul(acc, w);\n\t}\n}\n\n", p->name,
			       p->name);
		return true;
	}
	/* the operand's value as the prime field's Montgomery form (as kgen.c loads a _mont) */
	const ffu_field *tf = pl->tf;
	ffu__sb_printf(sb, "\tconst ulong e = get_global_id(0);\n\t%s_store(tw, e, ", p->name);
	if (tf->kind == FFU_ELEM_MONT && tf->mont_radix_bits == p->dev_radix_bits) {
		ffu__sb_printf(sb, "%s_load(in%d, e)", p->name, pl->tw_param);
	} else if (tf->kind == FFU_ELEM_MONT) {
		unsigned char one[FFU_FIELD_MAX_BYTES], rinv[FFU_FIELD_MAX_BYTES];
		ffu__fp_set_u64(p, one, 1);
		ffu__fp_convert(p, rinv, tf, one);
		ffu__sb_printf(sb, "%s_to_mont(%s_mul(%s_load(in%d, e), %s_make", p->name, p->name, p->name, pl->tw_param,
			       p->name);
		ffu__cl_emit_const_args(sb, p, rinv);
		ffu__sb_append(sb, "))");
	} else {
		ffu__sb_printf(sb, "%s_to_mont(%s_load(in%d, e))", p->name, p->name, pl->tw_param);
	}
	ffu__sb_append(sb, ");\n}\n\n");
	return true;
}

/*
 * The stages' own twiddles (plan: off, table), from the n/2 powers: entry j of stage q is
 * (t, kk) = (j / p + 1, j mod p), w^(kk t n / (pR)). Runs after emit_twiddles' kernel, with
 * it (once, or every run). kk t < pR <= n <= 2^32 (the largest 2-adicity is 32), so the
 * product is 32-bit: cheaper on GPUs, and clear of LLVM 15's gfx1100 bug in 64-bit
 * multiply-adds (llvm/llvm-project#59358, docs/tuning.md), which it hit as ulong.
 */
static bool emit_pass_twiddles(ffu_strbuf *sb, ffu_fusion_kernels *fk, const fft_plan *pl, int k)
{
	ffu_kernel_desc *d = ffu__kernel_add(fk, FFU_KERNEL_FFT_TWIDDLES, k, "_twp", 1, 1);
	if (!d)
		return false;
	ffu__kernel_slot(d, FFU_ARG_TWIDDLES_OUT, 0, NULL);
	d->once = pl->tw_param < 0;
	d->items = (size_t)(pl->table - pl->h);
	ffu__kernel_print_signature(sb, d);
	ffu__sb_printf(sb, "\tconst ulong j = get_global_id(0) + %lluUL;\n\tulong e;\n", (unsigned long long)pl->h);
	for (int q = pl->nst - 1, lp = pl->k - pl->lr[q]; q > 0; q--, lp -= pl->lr[q]) {
		ffu__sb_printf(sb, "\t%sif (j >= %lluUL) /* stage %d: p = 2^%d, R = 2^%d */\n", q == pl->nst - 1 ? "" : "else ",
			       (unsigned long long)pl->off[q], q, lp, pl->lr[q]);
		ffu__sb_printf(sb, "\t\te = (ulong)((uint)((j - %lluUL) & %lluUL) * (uint)(((j - %lluUL) >> %d) + 1UL)) << %d;\n",
			       (unsigned long long)pl->off[q], (unsigned long long)((UINT64_C(1) << lp) - 1),
			       (unsigned long long)pl->off[q], lp, pl->k - lp - pl->lr[q]);
	}
	ffu__sb_printf(sb, "\t%s_store(tw, j, ffu_k%d_w(tw, e));\n}\n\n", pl->p->name, k);
	return true;
}

const ffu_field *ffu__codegen_fft_vector_field(const ffu_inst *fusion, const ffu_target *t)
{
	fft_plan pl;
	ffu_error e = {0};
	const ffu_field *p = NULL;
	if (plan(&pl, fusion, t, &e) == FFU_STATUS_OK)
		for (int g = 0; g < pl.npass && !p; g++)
			p = ffu__fft_vector_pass(&pl, g) ? pl.p : NULL;
	ffu_error_clear(&e);
	return p;
}

ffu_status ffu__codegen_emit_fft(ffu_strbuf *sb, ffu_fusion_kernels *fk, const ffu_inst *fusion, int k,
				 const ffu_target *t, ffu_error *e)
{
	fft_plan pl;
	ffu_status st = plan(&pl, fusion, t, e);
	if (st)
		return st;
	memset(fk, 0, sizeof *fk);
	fk->fusion = fusion;
	fk->fft = true;
	fk->scratch_bytes = pl.npass > 1 ? (size_t)(pl.rows * pl.n) * pl.f->storage_bytes : 0;
	fk->twiddle_bytes = (size_t)pl.table * pl.p->storage_bytes;
	ffu__sb_printf(sb, "/* %s: %s: %s of %lld x %lld %s, %d pass%s */\n", fusion->name, fusion->callee->name,
		       pl.fft->fft.inverse ? "IFFT" : "FFT", (long long)pl.rows, (long long)pl.n, pl.f->name, pl.npass,
		       pl.npass == 1 ? "" : "es");
	if ((st = emit_helpers(sb, &pl, fusion, k, e)))
		return st;
	if (pl.h > 0)
		ffu__sb_printf(sb,
			       "/* w^e, e < %lld: the table holds e < %lld; w^(e + n/2) = -w^e */\n"
			       "static inline %s ffu_k%d_w(__global const uint *restrict tw, const ulong e)\n{\n"
			       "\tconst %s w = %s_load(tw, e & %lluUL);\n\treturn (e & %lluUL) ? %s_neg(w) : w;\n}\n\n",
			       (long long)pl.n, (long long)pl.h, pl.pt, k, pl.pt, pl.p->name,
			       (unsigned long long)(pl.h - 1), (unsigned long long)pl.h, pl.p->name);
	if (pl.h > 0 && !emit_twiddles(sb, fk, &pl, k))
		goto oom;
	if (pl.table > pl.h && !emit_pass_twiddles(sb, fk, &pl, k))
		goto oom;
	for (int g = 0; g < pl.npass; g++)
		if (!(pl.pass_stages[g] == 2      ? ffu__fft_emit_tile_pass(sb, fk, &pl, k, g)
		      : ffu__fft_vector_pass(&pl, g) ? ffu__fft_emit_vector_pass(sb, fk, &pl, k, g)
						     : ffu__fft_emit_pass(sb, fk, &pl, k, g)))
			goto oom;
	return ffu__sb_status(sb, e);
oom: /* the caller frees the descriptors made so far */
	return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory generating kernels");
}
