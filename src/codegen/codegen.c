/*
 * codegen/codegen.c: OpenCL C for fusions (see codegen.h).
 *
 * Montgomery bookkeeping: each value may exist in canonical form (c<id>) and/or Montgomery
 * form (m<id>); conversions are emitted on demand and at most once per value. A product of
 * a Montgomery and a canonical operand is canonical (a R * b / R = a b), so `x*x - x` costs
 * one conversion and one product, and linear ops (add, sub, negate) work on either form.
 * Constants are folded on the host into whichever form a use wants, for free.
 */
#include "codegen/codegen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/field_cl.h"

typedef struct val {
	int alias;        /* broadcast: the id whose value this is; -1 otherwise */
	bool has_c, has_m;
	const unsigned char *literal; /* scalar constant: both forms are free */
} val;

typedef struct kgen {
	ffu_strbuf *sb;
	const ffu_computation *fc;
	val *vals;
	int64_t n;
} kgen;

static int resolve(const kgen *g, int id)
{
	while (g->vals[id].alias >= 0)
		id = g->vals[id].alias;
	return id;
}

static const ffu_field *field_of(const kgen *g, int id)
{
	return ffu__shape_field(&g->fc->insts[id]->shape);
}

static void decl(kgen *g, int id, char form)
{
	char tn[64];
	ffu__sb_printf(g->sb, "\t%s %c%d = ", ffu__cl_type_name(field_of(g, id), tn), form, id);
}

/* Makes the value id available in form 'c' or 'm' (emitting a conversion if needed). */
static void need(kgen *g, int id, char form)
{
	id = resolve(g, id);
	val *v = &g->vals[id];
	if ((form == 'c' && v->has_c) || (form == 'm' && v->has_m))
		return;
	const ffu_field *f = field_of(g, id);
	decl(g, id, form);
	if (v->literal) {
		unsigned char buf[FFU_FIELD_MAX_BYTES];
		if (form == 'm')
			ffu__fp_to_dev_mont(f, buf, v->literal);
		else
			memcpy(buf, v->literal, f->storage_bytes);
		ffu__cl_emit_const(g->sb, f, buf);
	} else {
		ffu__sb_printf(g->sb, "%s_%s(%c%d)", f->name, form == 'm' ? "to_mont" : "from_mont",
			       form == 'm' ? 'c' : 'm', id);
	}
	ffu__sb_append(g->sb, ";\n");
	if (form == 'c')
		v->has_c = true;
	else
		v->has_m = true;
}

static bool has(const kgen *g, int id, char form)
{
	const val *v = &g->vals[resolve(g, id)];
	return v->literal || (form == 'c' ? v->has_c : v->has_m);
}

static void emit_linear(kgen *g, const ffu_inst *in)
{
	const ffu_field *f = field_of(g, in->id);
	bool all_c = true, all_m = true;
	for (int j = 0; j < in->n_operands; j++) {
		all_c &= has(g, in->operands[j]->id, 'c');
		all_m &= has(g, in->operands[j]->id, 'm');
	}
	char form = all_c ? 'c' : 'm';
	(void)all_m;
	for (int j = 0; j < in->n_operands; j++)
		need(g, in->operands[j]->id, form);
	decl(g, in->id, form);
	ffu__sb_printf(g->sb, "%s_%s(", f->name, ffu__ops[in->op].field_fn);
	for (int j = 0; j < in->n_operands; j++)
		ffu__sb_printf(g->sb, "%s%c%d", j ? ", " : "", form, resolve(g, in->operands[j]->id));
	ffu__sb_append(g->sb, ");\n");
	if (form == 'c')
		g->vals[in->id].has_c = true;
	else
		g->vals[in->id].has_m = true;
}

static void emit_product(kgen *g, const ffu_inst *in)
{
	const ffu_field *f = field_of(g, in->id);
	int a = resolve(g, in->operands[0]->id), b = resolve(g, in->operands[1]->id);
	val *r = &g->vals[in->id];
	if (a == b) {
		if (has(g, a, 'm')) { /* (aR)^2 / R = a^2 R */
			need(g, a, 'm');
			decl(g, in->id, 'm');
			ffu__sb_printf(g->sb, "%s_sqr(m%d);\n", f->name, a);
			r->has_m = true;
		} else { /* aR * a / R = a^2 */
			need(g, a, 'm');
			decl(g, in->id, 'c');
			ffu__sb_printf(g->sb, "%s_mul(m%d, c%d);\n", f->name, a, a);
			r->has_c = true;
		}
		return;
	}
	char fa, fb, fr;
	if (has(g, a, 'm') && has(g, b, 'c')) {
		fa = 'm', fb = 'c', fr = 'c';
	} else if (has(g, a, 'c') && has(g, b, 'm')) {
		fa = 'c', fb = 'm', fr = 'c';
	} else if (has(g, a, 'm') && has(g, b, 'm')) {
		fa = 'm', fb = 'm', fr = 'm';
	} else { /* both canonical only: convert one */
		fa = 'm', fb = 'c', fr = 'c';
	}
	need(g, a, fa);
	need(g, b, fb);
	decl(g, in->id, fr);
	ffu__sb_printf(g->sb, "%s_mul(%c%d, %c%d);\n", f->name, fa, a, fb, b);
	if (fr == 'c')
		r->has_c = true;
	else
		r->has_m = true;
}

static ffu_status emit_kernel(ffu_strbuf *sb, const ffu_inst *fusion, int k, ffu_error *e)
{
	const ffu_computation *fc = fusion->callee;
	const ffu_inst *root = fc->root;
	int n_out = root->op == FFU_OP_TUPLE ? root->n_operands : 1;
	const ffu_inst *const *outs = root->op == FFU_OP_TUPLE ? (const ffu_inst *const *)root->operands : &root;
	kgen g = {.sb = sb, .fc = fc};
	g.n = ffu__shape_count(&outs[0]->shape);
	g.vals = calloc((size_t)fc->n_insts, sizeof *g.vals);
	if (!g.vals)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory generating kernels");
	for (int i = 0; i < fc->n_insts; i++)
		g.vals[i].alias = -1;

	char name[32];
	ffu__codegen_kernel_name(name, k);
	ffu__sb_printf(sb, "/* %s: %s */\n__kernel void %s(", fusion->name, fc->name, name);
	for (int p = 0; p < fc->n_params; p++)
		ffu__sb_printf(sb, "%s__global const uint *restrict in%d", p ? ", " : "", p);
	for (int o = 0; o < n_out; o++)
		ffu__sb_printf(sb, "%s__global uint *restrict out%d", fc->n_params + o ? ", " : "", o);
	/*
	 * No bounds check: the runtime launches exactly n work-items (ffu__cl_launch). On PoCL
	 * any guard or index clamp stops the work-group loop from being vectorised: measured
	 * 0.96 ms unguarded vs 5-10 ms guarded for (x + y) * x at 2^22.
	 */
	ffu__sb_append(sb, ")\n{\n\tconst size_t i = get_global_id(0);\n");

	ffu_status st = FFU_STATUS_OK;
	for (int i = 0; i < fc->n_insts && st == FFU_STATUS_OK; i++) {
		const ffu_inst *in = fc->insts[i];
		switch (ffu__ops[in->op].kind) {
		case FFU_KIND_SOURCE:
			if (in->op == FFU_OP_CONSTANT) {
				if (in->shape.rank != 0)
					st = ffu__err(e, FFU_STATUS_EUNSUPPORTED, "array constant inside a fusion");
				g.vals[i].literal = in->literal;
				break;
			}
			decl(&g, i, 'c');
			ffu__sb_printf(sb, "%s_load(in%lld, %s);\n", ffu__shape_field(&in->shape)->name,
				       (long long)in->index, ffu__shape_count(&in->shape) == g.n ? "i" : "0");
			g.vals[i].has_c = true;
			break;
		case FFU_KIND_INDEX: /* broadcast of a scalar: the same value at every index */
			g.vals[i].alias = in->operands[0]->id;
			break;
		case FFU_KIND_ELEMENTWISE:
			if (ffu__ops[in->op].form == FFU_FORM_BILINEAR)
				emit_product(&g, in);
			else
				emit_linear(&g, in);
			break;
		default:
			if (in != root || in->op != FFU_OP_TUPLE)
				st = ffu__err(e, FFU_STATUS_EUNSUPPORTED, "codegen: %s inside a fusion",
					      ffu__ops[in->op].keyword);
			break;
		}
	}
	for (int o = 0; o < n_out && st == FFU_STATUS_OK; o++) {
		int id = resolve(&g, outs[o]->id);
		need(&g, id, 'c');
		ffu__sb_printf(sb, "\t%s_store(out%d, i, c%d);\n", field_of(&g, id)->name, o, id);
	}
	ffu__sb_append(sb, "}\n\n");
	free(g.vals);
	return st;
}

void ffu__codegen_kernel_name(char *buf, int k)
{
	snprintf(buf, 32, "ffu_k%d", k);
}

ffu_status ffu__codegen_program(ffu_strbuf *sb, const ffu_module *m, int *n_kernels, ffu_error *e)
{
	bool used[FFU_FIELD_COUNT] = {0};
	*n_kernels = 0;
	for (int c = 0; c < m->n_comps; c++) {
		if (!m->comps[c]->is_fused)
			continue;
		for (int i = 0; i < m->comps[c]->n_insts; i++) {
			const ffu_field *f = ffu__shape_field(&m->comps[c]->insts[i]->shape);
			if (f)
				used[f->id] = true;
		}
	}
	ffu__cl_emit_common(sb);
	for (int f = 0; f < FFU_FIELD_COUNT; f++)
		if (used[f])
			ffu__cl_emit_field(sb, ffu__field_get((ffu_field_id)f));
	const ffu_computation *entry = m->entry;
	for (int i = 0; i < entry->n_insts; i++) {
		if (entry->insts[i]->op != FFU_OP_FUSION)
			continue;
		ffu_status st = emit_kernel(sb, entry->insts[i], (*n_kernels)++, e);
		if (st)
			return st;
	}
	return ffu__sb_status(sb, e);
}
