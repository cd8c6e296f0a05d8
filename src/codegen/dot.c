/*
 * codegen/dot.c: the kernel of a dot fusion (kind kDot: one `dot` with the element-wise
 * work the fusion pass put around it; ir/dot.c says what dot computes).
 *
 * One kernel, launched as a loop kernel (one work-item per result element, exactly as many
 * as there are: codegen/kernel.h's FFU_KERNEL_LOOP), which computes its element's sum in a
 * register and hands it to ffu_k<k>_y, the consumers fused behind, which store the
 * fusion's outputs at that element. The operands' elements come from ffu_k<k>_a and
 * ffu_k<k>_b (codegen/helper.c): the producers fused in front (the fusion pass fuses them
 * only where each element is read once), or plain loads.
 *   dense: work-item i unravels its result coordinates into the operands' batch and free
 *     coordinates (their linear bases), then runs one loop per contracting dimension,
 *     the last innermost, each step adding one product: lhs[a + sum k_t sa_t] * rhs[b +
 *     sum k_t sb_t].
 *   CSR lhs (ir/csr.c): result coordinate 0 is the row, the rest the rhs's free
 *     coordinates; the loop runs over the row's stored entries e in [row_ptrs[row],
 *     row_ptrs[row + 1]), reading value e (ffu_k<k>_a at e) and rhs at column col[e] of
 *     its contracting dimension. One row per work-item, as ZKX's emitter loops. The row
 *     pointers and columns are checked on the host when they arrive (values files, the
 *     API's uploads); the kernel still clamps the end of a row to NNZ and a column to the
 *     last one, so a damaged matrix (a caller's own cl_mem) cannot make it read outside
 *     its buffers.
 *
 * Forms: each helper returns its element in a form it has, canonical (c) or Montgomery
 * (m). A product of the two is then m * c = c, m * m = m, or c * c = c / R (a Montgomery
 * product of canonical values), and every product of one kernel has the same form, so the
 * sum is fixed once at the end instead of converting an operand per product: to_mont (x R)
 * for c / R, from_mont for m. Templates computed canonically (R = 1) make all of these the
 * identity. Extensions multiply coefficient-wise by the same rules (kgen.c's products).
 *
 * No wide variant: the work-items of a dense dot already run independent loops, and a CSR
 * row's length varies. What is not built: tiles in local memory for matrix-matrix
 * products (each work-item reads its row of lhs and its column of rhs from memory), and
 * a row split across work-items for long CSR rows.
 */
#include <stdio.h>
#include <string.h>

#include "codegen/field_cl.h"
#include "codegen/helper.h"
#include "codegen/kgen.h"

typedef struct dot_plan {
	const ffu_inst *dot;        /* in the fused computation */
	const ffu_field *f;         /* element type */
	const ffu_field *b;         /* its base field: the functions and type computing on it */
	char ft[64];                /* the OpenCL type of values */
	char form[2];               /* what ffu_k<k>_a and ffu_k<k>_b return: 'c' or 'm' */
	int n_in, n_out;
	ffu_dot_dims fd;
} dot_plan;

/* "ffu_k<k>_<side>(in0, ..., INDEX)" */
static void helper_call(ffu_strbuf *sb, const dot_plan *pl, int k, char side, const char *index)
{
	ffu__sb_printf(sb, "ffu_k%d_%c(", k, side);
	ffu__helper_io_args(sb, pl->n_in, 0);
	ffu__sb_printf(sb, "%s)", index);
}

/* acc = add(acc, mul(a(li), b(ri))): one product of the sum. */
static void emit_step(ffu_strbuf *sb, const dot_plan *pl, int k, const char *li, const char *ri, const char *indent)
{
	ffu__sb_printf(sb, "%sacc = %s_add(acc, %s_mul(", indent, pl->b->name, pl->b->name);
	helper_call(sb, pl, k, 'a', li);
	ffu__sb_append(sb, ", ");
	helper_call(sb, pl, k, 'b', ri);
	ffu__sb_append(sb, "));\n");
}

/* " + c<r> * <stride>UL" for each coordinate of the result that names a dimension of operand x. */
static void emit_base(ffu_strbuf *sb, const dot_plan *pl, int side)
{
	const ffu_dot_attrs *a = &pl->dot->dot;
	const ffu_shape *x = &pl->dot->operands[side]->shape;
	int r = 0;
	ffu__sb_append(sb, "0UL");
	for (int k = 0; k < a->n_batch; k++, r++)
		ffu__sb_printf(sb, " + c%d * %lldUL", r,
			       (long long)ffu__shape_stride(x, (int)(side ? a->rhs_batch[k] : a->lhs_batch[k])));
	for (int k = 0; k < pl->fd.n_lfree; k++, r++)
		if (side == 0)
			ffu__sb_printf(sb, " + c%d * %lldUL", r, (long long)ffu__shape_stride(x, (int)pl->fd.lfree[k]));
	for (int k = 0; k < pl->fd.n_rfree; k++, r++)
		if (side == 1)
			ffu__sb_printf(sb, " + c%d * %lldUL", r, (long long)ffu__shape_stride(x, (int)pl->fd.rfree[k]));
}

/*
 * The dense sum: a loop per contracting dimension (none: one product, an outer product).
 * Unrolled: PoCL vectorises a kernel across work-items by LLVM's loop vectoriser, which
 * takes innermost loops only, so a loop left in the body keeps the work-items scalar.
 * Fully unrolled where the contraction is short (its products times the value's words at
 * most UNROLL_WORDS), else the innermost loop by UNROLL_WORDS / 4 / words (at least 1). PoCL,
 * one machine run (a load average of 13 on 2 cores, so only the ratios mean anything):
 * 65536 rows of 16 BabyBear products (dot_rows_babybear at 2^16) 20-25 ms with the loop,
 * 2.1-2.3 ms unrolled; 4096 rows of 300, 2.2-2.5 ms with the loop, 0.75-1.2 ms unrolled by
 * 16. BN254 runs scalar either way (1024 rows of 64: 22 ms looped, 32-36 ms unrolled), so
 * its unrolling only bounds the code.
 */
enum { UNROLL_WORDS = 64 };

/* The dot of a kDot fusion's computation, or NULL. */
static const ffu_inst *dot_of(const ffu_computation *fc)
{
	for (int i = 0; i < fc->n_insts; i++)
		if (fc->insts[i]->op == FFU_OP_DOT)
			return fc->insts[i];
	return NULL;
}

/* Is the dense sum of `dot` unrolled whole (no loop left)? */
static bool unrolled(const ffu_inst *dot)
{
	int64_t ksize = 1;
	for (int t = 0; t < dot->dot.n_contract; t++)
		ksize *= dot->operands[0]->shape.dims[dot->dot.lhs_contract[t]];
	return ksize * (int64_t)ffu__cl_words(ffu__shape_field(&dot->shape)) <= UNROLL_WORDS;
}

const ffu_field *ffu__codegen_dot_loop_field(const ffu_inst *fusion)
{
	const ffu_inst *dot = fusion->fusion_kind == FFU_FUSION_DOT ? dot_of(fusion->callee) : NULL;
	return dot && (dot->operands[0]->shape.csr || !unrolled(dot)) ? ffu__shape_field(&dot->shape) : NULL;
}

static void emit_dense(ffu_strbuf *sb, const dot_plan *pl, int k)
{
	const ffu_dot_attrs *a = &pl->dot->dot;
	const ffu_shape *x = &pl->dot->operands[0]->shape, *y = &pl->dot->operands[1]->shape;
	char indent[FFU_MAX_RANK + 2] = "\t", li[256], ri[256];
	int nl = snprintf(li, sizeof li, "la"), nr = snprintf(ri, sizeof ri, "rb");
	const int64_t words = (int64_t)ffu__cl_words(pl->f);
	const bool full = unrolled(pl->dot);
	const int64_t part = UNROLL_WORDS / 4 / words > 1 ? UNROLL_WORDS / 4 / words : 1;
	for (int t = 0; t < a->n_contract; t++) {
		if (full)
			ffu__sb_printf(sb, "%s#pragma unroll\n", indent);
		else if (t == a->n_contract - 1 && part > 1)
			ffu__sb_printf(sb, "%s#pragma unroll %lld\n", indent, (long long)part);
		ffu__sb_printf(sb, "%sfor (ulong k%d = 0; k%d < %lldUL; k%d++) {\n", indent, t, t,
			       (long long)x->dims[a->lhs_contract[t]], t);
		indent[t + 1] = '\t';
		nl += snprintf(li + nl, sizeof li - (size_t)nl, " + k%d * %lldUL", t,
			       (long long)ffu__shape_stride(x, (int)a->lhs_contract[t]));
		nr += snprintf(ri + nr, sizeof ri - (size_t)nr, " + k%d * %lldUL", t,
			       (long long)ffu__shape_stride(y, (int)a->rhs_contract[t]));
	}
	emit_step(sb, pl, k, li, ri, indent);
	for (int t = a->n_contract - 1; t >= 0; t--) { /* each loop braced: a pragma never stands as a body */
		indent[t + 1] = '\0';
		ffu__sb_printf(sb, "%s}\n", indent);
	}
}

/* The sum over a CSR row's stored entries (the file comment). */
static void emit_csr(ffu_strbuf *sb, const dot_plan *pl, int k)
{
	const ffu_dot_attrs *a = &pl->dot->dot;
	const ffu_inst *x = pl->dot->operands[0];
	const ffu_shape *xs = &x->shape, *y = &pl->dot->operands[1]->shape;
	int p = (int)x->index;
	if (xs->nnz == 0) /* no entries (and maybe no columns): every sum is 0 */
		return;
	ffu__sb_printf(sb, "\t/* row c0 of the CSR matrix in%d: row_ptrs at word 0, columns at word %lld */\n", p,
		       (long long)xs->dims[0] + 1);
	ffu__sb_printf(sb, "\tconst ulong e0 = in%d[c0], e1 = min((ulong)in%d[c0 + 1UL], %lldUL);\n", p, p,
		       (long long)xs->nnz);
	ffu__sb_printf(sb, "\tfor (ulong e = e0; e < e1; e++) {\n");
	ffu__sb_printf(sb, "\t\tconst ulong col = min((ulong)in%d[%lldUL + e], %lldUL);\n", p, (long long)xs->dims[0] + 1,
		       (long long)xs->dims[1] - 1);
	char ri[96];
	snprintf(ri, sizeof ri, "rb + col * %lldUL", (long long)ffu__shape_stride(y, (int)a->rhs_contract[0]));
	emit_step(sb, pl, k, "e", ri, "\t\t");
	ffu__sb_append(sb, "\t}\n");
}

static ffu_status plan(dot_plan *pl, const ffu_inst *fusion, ffu_error *e)
{
	const ffu_computation *fc = fusion->callee;
	const ffu_inst *const *outs;
	memset(pl, 0, sizeof *pl);
	int dots = 0;
	for (int i = 0; i < fc->n_insts; i++)
		dots += fc->insts[i]->op == FFU_OP_DOT;
	if (dots != 1)
		return ffu__err(e, FFU_STATUS_EUNSUPPORTED, "%s: a kDot fusion holds one dot, not %d", fusion->name, dots);
	pl->dot = dot_of(fc);
	if (pl->dot->operands[0]->shape.csr && pl->dot->operands[0]->op != FFU_OP_PARAMETER)
		return ffu__err(e, FFU_STATUS_EUNSUPPORTED, "%s: the CSR lhs of %s must be a parameter of the fusion",
				fusion->name, pl->dot->name);
	pl->f = ffu__shape_field(&pl->dot->shape);
	pl->b = pl->f->base;
	ffu__kgen_cl_type(pl->f, pl->ft);
	pl->n_in = fc->n_params;
	pl->n_out = ffu__kgen_outputs(fc, &outs);
	ffu__dot_free_dims(pl->dot, &pl->fd);
	return FFU_STATUS_OK;
}

ffu_status ffu__codegen_emit_dot(ffu_strbuf *sb, ffu_fusion_kernels *fk, const ffu_inst *fusion, int k,
				 ffu_error *e)
{
	dot_plan pl;
	ffu_status st = plan(&pl, fusion, e);
	if (st)
		return st;
	const ffu_shape *rs = &pl.dot->shape;
	char name[32], a[160], b[160];
	ffu__shape_format(&pl.dot->operands[0]->shape, a, sizeof a);
	ffu__shape_format(&pl.dot->operands[1]->shape, b, sizeof b);
	ffu__sb_printf(sb, "/* %s: %s: dot of %s and %s */\n", fusion->name, fusion->callee->name, a, b);
	for (int side = 0; side < 2 && st == FFU_STATUS_OK; side++) {
		snprintf(name, sizeof name, "ffu_k%d_%c", k, side ? 'b' : 'a');
		st = ffu__helper_value(sb, fusion, name, pl.dot->operands[side]->id, NULL, &pl.form[side], e);
	}
	/* every product m * c = c, c * c = c / R (to_mont fixes the sum once), m * m = m */
	const bool both_c = pl.form[0] == 'c' && pl.form[1] == 'c';
	const char sum_form = pl.form[0] == 'm' && pl.form[1] == 'm' ? 'm' : 'c';
	snprintf(name, sizeof name, "ffu_k%d_y", k);
	if (st || (st = ffu__helper_outputs(sb, fusion, name, pl.ft, sum_form, e)))
		return st;
	if (!ffu__kernels_loop(fk, fusion, k, pl.n_out, FFU_VARIANT_SCALAR, 1))
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory generating kernels");
	ffu__kernel_print_signature(sb, ffu__fusion_kernel(fk, FFU_KERNEL_LOOP));
	ffu__sb_append(sb, "\tconst ulong i = get_global_id(0);\n");
	/* the result coordinates c0 .. c<rank-1>, the last fastest */
	if (rs->rank > 0)
		ffu__sb_append(sb, "\tulong r = i;\n");
	for (int d = rs->rank - 1; d >= 0; d--) {
		ffu__sb_printf(sb, "\tconst ulong c%d = r %% %lldUL;\n", d, (long long)rs->dims[d]);
		if (d > 0)
			ffu__sb_printf(sb, "\tr /= %lldUL;\n", (long long)rs->dims[d]);
	}
	const bool csr = pl.dot->operands[0]->shape.csr;
	if (!csr) {
		ffu__sb_append(sb, "\tconst ulong la = ");
		emit_base(sb, &pl, 0);
		ffu__sb_append(sb, ";\n");
	}
	ffu__sb_append(sb, "\tconst ulong rb = ");
	emit_base(sb, &pl, 1);
	ffu__sb_printf(sb, ";\n\t%s acc = %s_make", pl.ft, pl.b->name);
	unsigned char zero[FFU_FIELD_MAX_BYTES] = {0};
	ffu__cl_emit_const_args(sb, pl.b, zero);
	ffu__sb_append(sb, ";\n");
	if (csr)
		emit_csr(sb, &pl, k);
	else
		emit_dense(sb, &pl, k);
	if (both_c)
		ffu__sb_printf(sb, "\tacc = %s_to_mont(acc);\n", pl.b->name);
	ffu__sb_printf(sb, "\tffu_k%d_y(", k);
	ffu__helper_io_args(sb, pl.n_in, pl.n_out);
	ffu__sb_append(sb, "i, acc);\n}\n\n");
	return ffu__sb_status(sb, e);
}
