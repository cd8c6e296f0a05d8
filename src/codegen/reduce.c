/*
 * codegen/reduce.c: the kernels of a reduction fusion (root: reduce, or a tuple of
 * reduces over one operand shape and the same dimensions), over the value generator
 * (kgen.h). How the work is spread is at emit_stage1 and ffu__codegen_emit_reduction.
 */
#include <stdio.h>
#include <stdlib.h>

#include "codegen/field_cl.h"
#include "codegen/index.h"
#include "codegen/kgen.h"

/*
 * The accumulator form of a reduction: products accumulate in Montgomery form (mR * mR / R
 * stays mR, so neither the loop nor the tree converts); sums in whichever form the value
 * already has (addition is the same in both).
 */
static char reduce_form(const kgen *g, const ffu_inst *r, int vn)
{
	return r->reduce_fn == FFU_OP_MULTIPLY || !ffu__kgen_has(g, vn, 'c') ? 'm' : 'c';
}

/*
 * The accumulator's functions are <acc>_add (or _mul), _store and _load: acc is the
 * output's base field, or <curve>_xyzz for a sum of points (cl/point.cl: the partials are
 * stored canonical by xyzz_store and read back by xyzz_load; the identity is infinity).
 */
static const char *acc_name(const ffu_inst *r, char buf[64])
{
	const ffu_field *f = ffu__shape_field(&r->shape);
	if (f->kind == FFU_ELEM_POINT) /* its type's name is its functions' prefix */
		return ffu__cl_type_name(f, buf);
	snprintf(buf, 64, "%s", f->base->name);
	return buf;
}

static void emit_identity(ffu_strbuf *sb, const ffu_inst *r)
{
	const ffu_field *f = ffu__shape_field(&r->shape)->base;
	char an[64];
	if (f->kind == FFU_ELEM_POINT) {
		ffu__sb_printf(sb, "%s_zero()", acc_name(r, an));
	} else if (r->reduce_fn == FFU_OP_MULTIPLY) {
		ffu__sb_printf(sb, "%s_one_m()", f->name);
	} else {
		unsigned char zero[FFU_FIELD_MAX_BYTES] = {0};
		ffu__cl_emit_const(sb, f, zero);
	}
}

static const char *combine_fn(const ffu_inst *r)
{
	return r->reduce_fn == FFU_OP_MULTIPLY ? "mul" : "add";
}

/* Appends the operand's linear index for output element `o` and reduced element `r`. */
static void put_reduce_index(ffu_strbuf *sb, const ffu_inst *red)
{
	const ffu_shape *t = &red->operands[0]->shape;
	bool reduced[FFU_MAX_RANK] = {0};
	for (int k = 0; k < red->n_dims; k++)
		reduced[red->dims[k]] = true;
	int64_t kd[FFU_MAX_RANK], rd[FFU_MAX_RANK];
	int nk = 0, nr = 0;
	for (int d = 0; d < t->rank; d++) {
		if (reduced[d])
			rd[nr++] = t->dims[d];
		else
			kd[nk++] = t->dims[d];
	}
	int ik = 0, ir = 0;
	ffu__sb_append(sb, "0UL");
	for (int d = 0; d < t->rank; d++) {
		ffu__sb_append(sb, " + ");
		if (reduced[d])
			ffu__index_coord(sb, "r", rd, nr, ir++);
		else
			ffu__index_coord(sb, "o", kd, nk, ik++);
		ffu__sb_printf(sb, " * %lluUL", (unsigned long long)ffu__shape_stride(t, d));
	}
}

/*
 * Elements each work-item of a reduction's main stage-1 kernel folds, as straight-line
 * copies of the body (like a loop fusion's lanes): PoCL runs a work-group's work-items
 * side by side in SIMD lanes only when the kernel body has no loop of its own, and a
 * per-work-item loop here kept sumcheck scalar (measured on PoCL at 2^22: 8.7 ms with a
 * loop, against 1.3 ms for the same products written out by a loop fusion).
 */
static int reduce_unroll(const ffu_inst *fusion)
{
	const ffu_inst *r = fusion->callee->root;
	if (r->op == FFU_OP_TUPLE)
		r = r->operands[0];
	return ffu__shape_field(&r->shape)->storage_bytes > 8 ? 2 : 8;
}

/*
 * Stage 1 of a reduction. The main kernel ffu_k<k>: group grp = o * Gf + gi folds the
 * elements (gi * L + l) * wg + lid (l < L) of output element o, no loop and no bound: the
 * runtime launches it only over whole chunks (Gf = R / (wg L) per output). The tail kernel
 * ffu_k<k>_tail: group o folds the rest, from Gf * wg * L, in a bounded loop. Both then
 * combine the work-group's accumulators by a tree in local memory and write partial
 * o * G + gi (the tail's gi is Gf). Arguments: inputs, partials, __local scratch per
 * output, ulong R, ulong Gf, ulong G.
 */
static void emit_stage1(ffu_strbuf *sb, const ffu_fusion_kernels *fk, const ffu_inst *const *outs, int n_out,
			ffu_strbuf *body, bool tail, bool serial_fold)
{
	char tn[64];
	const ffu_kernel_desc *d = ffu__fusion_kernel(fk, tail ? FFU_KERNEL_TAIL : FFU_KERNEL_STAGE1);
	ffu__kernel_print_signature(sb, d);
	ffu__sb_append(sb, "\tconst ulong lid = get_local_id(0), wg = get_local_size(0), grp = get_group_id(0);\n");
	if (tail)
		ffu__sb_append(sb, "\tconst ulong o = grp, gi = Gf;\n");
	else
		ffu__sb_append(sb, "\tconst ulong o = grp / Gf, gi = grp % Gf;\n");
	for (int o = 0; o < n_out; o++) {
		ffu__sb_printf(sb, "\t%s a%d = ", ffu__kgen_cl_type(ffu__shape_field(&outs[o]->shape), tn), o);
		emit_identity(sb, outs[o]);
		ffu__sb_append(sb, ";\n");
	}
	int L = ffu__fusion_kernel(fk, FFU_KERNEL_STAGE1)->lanes;
	for (int l = 0; l < (tail ? 1 : L); l++) {
		if (tail)
			ffu__sb_printf(sb, "\tfor (ulong r = Gf * %dUL * wg + lid; r < R; r += wg) {\n", L);
		else
			ffu__sb_printf(sb, "\t{\n\tconst ulong r = (gi * %dUL + %dUL) * wg + lid;\n", L, l);
		ffu__sb_append(sb, "\tconst ulong i = ");
		put_reduce_index(sb, outs[0]);
		ffu__sb_append(sb, ";\n");
		ffu__sb_append(sb, ffu__sb_cstr(body));
		ffu__sb_append(sb, "\t}\n");
	}
	/*
	 * The work-group's accumulators: on CPU devices (serial_fold) work-item 0 folds them in
	 * order; elsewhere a tree in local memory. Measured on PoCL, sumcheck at 2^22: 1.7 ms
	 * serial, 8.7 ms with the tree, whose log2(wg) barriers each cost a pass over the
	 * work-group. GPUs run the tree's steps in parallel, and one thread's 255 dependent
	 * steps would idle the rest of the group.
	 */
	for (int o = 0; o < n_out; o++)
		ffu__sb_printf(sb, "\tlm%d[lid] = a%d;\n", o, o);
	if (serial_fold) {
		ffu__sb_append(sb, "\tbarrier(CLK_LOCAL_MEM_FENCE);\n\tif (lid == 0) {\n");
		for (int o = 0; o < n_out; o++) {
			const char *fn = acc_name(outs[o], tn);
			ffu__sb_printf(sb, "\t\tfor (ulong s = 1; s < wg; s++)\n\t\t\ta%d = %s_%s(a%d, lm%d[s]);\n", o, fn,
				       combine_fn(outs[o]), o, o);
			ffu__sb_printf(sb, "\t\t%s_store(part%d, o * G + gi, a%d);\n", fn, o, o);
		}
		ffu__sb_append(sb, "\t}\n}\n\n");
		return;
	}
	ffu__sb_append(sb, "\tbarrier(CLK_LOCAL_MEM_FENCE);\n\tfor (ulong s = wg / 2; s > 0; s >>= 1) {\n"
			   "\t\tif (lid < s) {\n");
	for (int o = 0; o < n_out; o++)
		ffu__sb_printf(sb, "\t\t\tlm%d[lid] = %s_%s(lm%d[lid], lm%d[lid + s]);\n", o, acc_name(outs[o], tn),
			       combine_fn(outs[o]), o, o);
	ffu__sb_append(sb, "\t\t}\n\t\tbarrier(CLK_LOCAL_MEM_FENCE);\n\t}\n\tif (lid == 0) {\n");
	for (int o = 0; o < n_out; o++)
		ffu__sb_printf(sb, "\t\t%s_store(part%d, o * G + gi, lm%d[0]);\n", acc_name(outs[o], tn), o, o);
	ffu__sb_append(sb, "\t}\n}\n\n");
}

/*
 * A reduction fusion (root: reduce, or a tuple of reduces over one operand shape and the
 * same dimensions) becomes three kernels:
 *   ffu_k<k> and ffu_k<k>_tail (emit_stage1): G partial results per output element, kept
 *     in accumulator form; consecutive work-items read consecutive elements;
 *   ffu_k<k>_final(inputs, partials, outputs, ulong G): work-item o folds its G partials
 *     and the init value, converts and stores.
 * Element-wise and index producers are fused into stage 1's body (reduction input fusion).
 * For power-of-two sizes the tail has nothing to do and is not launched: two launches.
 */
ffu_status ffu__codegen_emit_reduction(ffu_strbuf *sb, ffu_fusion_kernels *fk, const ffu_inst *fusion, int k,
				       bool serial_fold, bool keep, ffu_error *e)
{
	const ffu_computation *fc = fusion->callee;
	const ffu_inst *const *outs;
	int n_out = ffu__kgen_outputs(fc, &outs);
	ffu_strbuf body = {0}, ident = {0};
	kgen g, h;
	ffu_status st = ffu__kgen_init(&g, fc, "i", e);
	ffu_status st2 = ffu__kgen_init(&h, fc, "o", e);
	int *ov = calloc((size_t)n_out + 1, sizeof *ov), *iv = calloc((size_t)n_out + 1, sizeof *iv);
	char *form = calloc((size_t)n_out + 1, 1);
	if (st == FFU_STATUS_OK)
		st = st2;
	if (st == FFU_STATUS_OK && (!ov || !iv || !form))
		st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory generating kernels");
	for (int o = 0; o < n_out && st == FFU_STATUS_OK; o++) {
		if (outs[o]->op != FFU_OP_REDUCE)
			st = ffu__err(e, FFU_STATUS_EUNSUPPORTED, "codegen: a reduction fusion's outputs must all be reduces");
		else {
			ov[o] = ffu__kgen_value_at(&g, outs[o]->operands[0]->id, IX_MAIN);
			iv[o] = ffu__kgen_value_at(&h, outs[o]->operands[1]->id, IX_ZERO);
		}
	}
	if (st == FFU_STATUS_OK && !ffu__kernels_reduction(fk, fusion, k, outs, n_out, reduce_unroll(fusion)))
		st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory generating kernels");
	if (st == FFU_STATUS_OK) {
		ffu__kgen_plan(&g);
		ffu__kgen_plan(&h);
		st = ffu__kgen_emit_body(&g, e);
	}
	if (st == FFU_STATUS_OK)
		st = ffu__kgen_emit_body(&h, e);
	/* the body's conversions for the accumulators go to the body buffer */
	for (int o = 0; o < n_out && st == FFU_STATUS_OK; o++) {
		form[o] = reduce_form(&g, outs[o], ov[o]);
		ffu__kgen_need(&g, ov[o], form[o]);
	}
	char an[64];
	for (int o = 0; o < n_out && st == FFU_STATUS_OK; o++) {
		ffu__body_stmt(g.b, FFU_STMT_ACCUM, o, FFU_VF_C);
		ffu__body_printf(g.b, "\ta%d = %s_%s(a%d, %L);\n", o, acc_name(outs[o], an), combine_fn(outs[o]), o,
				 form[o], ffu__kgen_resolve(&g, ov[o]));
	}
	if (st)
		goto out;
	ffu__body_print(&body, g.b, &ffu__body_scalar);
	ffu__sb_printf(sb, "/* %s: %s, stage 1 */\n", fusion->name, fc->name);
	emit_stage1(sb, fk, outs, n_out, &body, false, serial_fold);
	emit_stage1(sb, fk, outs, n_out, &body, true, serial_fold);

	/* stage 2: fold the partials and the init value, convert, store */
	ffu__sb_printf(sb, "/* %s: %s, stage 2 */\n", fusion->name, fc->name);
	ffu__kernel_print_signature(sb, ffu__fusion_kernel(fk, FFU_KERNEL_FINAL));
	ffu__sb_append(sb, "\tconst ulong o = get_global_id(0);\n");
	for (int o = 0; o < n_out && st == FFU_STATUS_OK; o++) {
		/* the folded partials become a value of h, so emit_store converts as for any value */
		int acc = ffu__kgen_value_at(&h, outs[o]->id, IX_MAIN);
		if (acc < 0) {
			st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory generating kernels");
			break;
		}
		const char *fb = acc_name(outs[o], an);
		const char *fn = combine_fn(outs[o]);
		char f = form[o];
		ffu__kgen_need(&h, iv[o], f);
		ffu__kgen_decl(&h, acc, f);
		ident.len = 0;
		emit_identity(&ident, outs[o]);
		ffu__body_printf(h.b, "%s;\n\tfor (ulong gi = 0; gi < G; gi++)\n", ffu__sb_cstr(&ident));
		ffu__body_stmt(h.b, FFU_STMT_STEP, acc, (ffu_vform)f);
		ffu__body_printf(h.b, "\t\t%L = %s_%s(%L, %s_load(part%d, o * G + gi));\n", f, acc, fb, fn, f, acc, fb, o);
		ffu__body_stmt(h.b, FFU_STMT_STEP, acc, (ffu_vform)f);
		ffu__body_printf(h.b, "\t%L = %s_%s(%L, %L);\n", f, acc, fb, fn, f, acc, f, ffu__kgen_resolve(&h, iv[o]));
		ffu__kgen_set_form(&h, acc, f);
		ffu__kgen_emit_store(&h, ffu__shape_field(&outs[o]->shape), o, acc);
	}
	ffu__body_print(sb, h.b, &ffu__body_scalar);
	ffu__sb_append(sb, "}\n\n");
	if (st == FFU_STATUS_OK)
		st = ffu__sb_status(&body, e);
	if (st == FFU_STATUS_OK)
		st = ffu__sb_status(&ident, e);
	if (st == FFU_STATUS_OK)
		st = ffu__body_status(g.b, e);
	if (st == FFU_STATUS_OK)
		st = ffu__body_status(h.b, e);
	if (st == FFU_STATUS_OK && keep && (!ffu__fusion_keep_body(fk, g.b) || !ffu__fusion_keep_body(fk, h.b)))
		st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory generating kernels");
out:
	ffu__sb_free(&body);
	ffu__sb_free(&ident);
	free(ov);
	free(iv);
	free(form);
	ffu__kgen_free(&g);
	ffu__kgen_free(&h);
	return st;
}
