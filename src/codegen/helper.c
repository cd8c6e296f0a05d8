/*
 * codegen/helper.c: the helper functions through which a kernel plan of its own (an fft's
 * passes, codegen/fft.c; a dot's kernel, codegen/dot.c) computes what the fusion pass put
 * around its op: an operand's element from the fusion's inputs (the producers fused in
 * front) and the fusion's outputs from the op's result element (the consumers fused
 * behind). Each is a kernel body of the value generator (kgen.h) at index i, printed as a
 * static inline function the plan's kernels call, so the producers and consumers get the
 * same code, Montgomery bookkeeping included, as a loop kernel's values.
 */
#include <stdlib.h>

#include "codegen/helper.h"
#include "codegen/kgen.h"

void ffu__helper_io_params(ffu_strbuf *sb, int n_in, int n_out)
{
	for (int j = 0; j < n_in; j++)
		ffu__sb_printf(sb, "__global const uint *restrict in%d, ", j);
	for (int o = 0; o < n_out; o++)
		ffu__sb_printf(sb, "__global uint *restrict out%d, ", o);
}

void ffu__helper_io_args(ffu_strbuf *sb, int n_in, int n_out)
{
	for (int j = 0; j < n_in; j++)
		ffu__sb_printf(sb, "in%d, ", j);
	for (int o = 0; o < n_out; o++)
		ffu__sb_printf(sb, "out%d, ", o);
}

ffu_status ffu__helper_value(ffu_strbuf *sb, const ffu_inst *fusion, const char *name, int id, const ffu_field *f,
			     char *form, ffu_error *e)
{
	const ffu_computation *fc = fusion->callee;
	char ft[64];
	kgen g;
	ffu_status st = ffu__kgen_init(&g, fc, "i", e);
	if (st == FFU_STATUS_OK) {
		int v = ffu__kgen_value_at(&g, id, IX_MAIN);
		ffu__kgen_plan(&g);
		st = ffu__kgen_emit_body(&g, e);
		if (st == FFU_STATUS_OK && f)
			ffu__kgen_emit_return(&g, f, v);
		else if (st == FFU_STATUS_OK)
			*form = ffu__kgen_emit_return_any(&g, v);
		if (st == FFU_STATUS_OK && (st = ffu__body_status(g.b, e)) == FFU_STATUS_OK) {
			ffu__sb_printf(sb, "static inline %s %s(", ffu__kgen_cl_type(ffu__shape_field(&fc->insts[id]->shape), ft),
				       name);
			ffu__helper_io_params(sb, fc->n_params, 0);
			ffu__sb_append(sb, "const ulong i)\n{\n");
			ffu__body_print(sb, g.b, &ffu__body_scalar);
			ffu__sb_append(sb, "}\n\n");
		}
	}
	ffu__kgen_free(&g);
	return st;
}

ffu_status ffu__helper_outputs(ffu_strbuf *sb, const ffu_inst *fusion, const char *name, const char *fv_type,
			       char fv_form, ffu_error *e)
{
	const ffu_computation *fc = fusion->callee;
	const ffu_inst *const *outs;
	int n_out = ffu__kgen_outputs(fc, &outs);
	int *ov = calloc((size_t)n_out + 1, sizeof *ov);
	if (!ov)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory generating kernels");
	kgen g;
	ffu_status st = ffu__kgen_init(&g, fc, "i", e);
	g.fv_form = fv_form;
	if (st == FFU_STATUS_OK) {
		for (int o = 0; o < n_out; o++)
			ov[o] = ffu__kgen_value_at(&g, outs[o]->id, IX_MAIN);
		ffu__kgen_plan(&g);
		st = ffu__kgen_emit_body(&g, e);
		for (int o = 0; o < n_out && st == FFU_STATUS_OK; o++)
			ffu__kgen_emit_store(&g, ffu__shape_field(&outs[o]->shape), o, ov[o]);
		if (st == FFU_STATUS_OK && (st = ffu__body_status(g.b, e)) == FFU_STATUS_OK) {
			ffu__sb_printf(sb, "static inline void %s(", name);
			ffu__helper_io_params(sb, fc->n_params, n_out);
			ffu__sb_printf(sb, "const ulong i, const %s fv)\n{\n", fv_type);
			ffu__body_print(sb, g.b, &ffu__body_scalar);
			ffu__sb_append(sb, "}\n\n");
		}
	}
	ffu__kgen_free(&g);
	free(ov);
	return st;
}
