/*
 * codegen/codegen.c: OpenCL C for fusions (see codegen.h).
 *
 * Montgomery bookkeeping: each value may exist in canonical form (c<id>) and/or Montgomery
 * form (m<id>); conversions are emitted on demand and at most once per value. A product of
 * a Montgomery and a canonical operand is canonical (a R * b / R = a b), so `x*x - x` costs
 * one conversion and one product, and linear ops (add, sub, negate) work on either form.
 * Constants are folded on the host into whichever form a use wants, for free.
 *
 * A `<field>_mont` value is held as its base field's value (c or m form) and computes with
 * the base field's functions: where the user radix equals the device radix (31-bit
 * Montgomery and 256-bit fields) a loaded _mont value simply is the m form, and storing one
 * stores the m form; the canonical templates (Mersenne31, Goldilocks) convert at load and
 * store with one product by a constant. convert between a field and its _mont twin is
 * therefore free (an alias). u32/u64 values exist only in c form (the integer).
 */
#include "codegen/codegen.h"

#include <ctype.h>
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
	int *uses;        /* uses of each value in the fused computation */
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

/* The field whose device functions compute on values of type f (NULL for u32/u64). */
static const ffu_field *cl_field(const ffu_field *f)
{
	return f->kind == FFU_ELEM_UINT ? NULL : f->base;
}

/* OpenCL type of values of f: the base field's, or u32_t / u64_t (cl/common.cl). */
static const char *cl_type(const ffu_field *f, char buf[64])
{
	return f->kind == FFU_ELEM_UINT ? (snprintf(buf, 64, "%s_t", f->name), buf) : ffu__cl_type_name(f->base, buf);
}

static void decl(kgen *g, int id, char form)
{
	char tn[64];
	ffu__sb_printf(g->sb, "\t%s %c%d = ", cl_type(field_of(g, id), tn), form, id);
}

/* Does the _mont type f store exactly the device's Montgomery form? */
static bool mont_is_dev(const ffu_field *f)
{
	return f->mont_radix_bits == f->base->dev_radix_bits;
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
	if (v->literal && f->kind == FFU_ELEM_UINT) {
		ffu__sb_printf(g->sb, "(%s_t)0x%llxUL", f->name, (unsigned long long)ffu__fp_get_u64(f, v->literal));
	} else if (v->literal) {
		/* a _mont literal is x * R_mont: fold it to the base field's canonical x first */
		unsigned char x[FFU_FIELD_MAX_BYTES], buf[FFU_FIELD_MAX_BYTES];
		ffu__fp_convert(f->base, x, f, v->literal);
		if (form == 'm')
			ffu__fp_to_dev_mont(f->base, buf, x);
		else
			memcpy(buf, x, f->storage_bytes);
		ffu__cl_emit_const(g->sb, f->base, buf);
	} else {
		ffu__sb_printf(g->sb, "%s_%s(%c%d)", f->base->name, form == 'm' ? "to_mont" : "from_mont",
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
	/* canonical if every operand has it, else Montgomery (converting what lacks it) */
	bool all_c = true;
	for (int j = 0; j < in->n_operands; j++)
		all_c &= has(g, in->operands[j]->id, 'c');
	char form = all_c ? 'c' : 'm';
	for (int j = 0; j < in->n_operands; j++)
		need(g, in->operands[j]->id, form);
	decl(g, in->id, form);
	ffu__sb_printf(g->sb, "%s_%s(", f->base->name, ffu__ops[in->op].field_fn);
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
			ffu__sb_printf(g->sb, "%s_sqr(m%d);\n", f->base->name, a);
			r->has_m = true;
		} else { /* aR * a / R = a^2 */
			need(g, a, 'm');
			decl(g, in->id, 'c');
			ffu__sb_printf(g->sb, "%s_mul(m%d, c%d);\n", f->base->name, a, a);
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
	} else if (g->uses[b] > g->uses[a]) { /* both canonical only: convert the more used one */
		fa = 'c', fb = 'm', fr = 'c'; /* (x * y * y * y: y once, not every partial product) */
	} else {
		fa = 'm', fb = 'c', fr = 'c';
	}
	need(g, a, fa);
	need(g, b, fb);
	decl(g, in->id, fr);
	ffu__sb_printf(g->sb, "%s_mul(%c%d, %c%d);\n", f->base->name, fa, a, fb, b);
	if (fr == 'c')
		r->has_c = true;
	else
		r->has_m = true;
}

static void set_form(kgen *g, int id, char form)
{
	if (form == 'c')
		g->vals[id].has_c = true;
	else
		g->vals[id].has_m = true;
}

/*
 * power by a constant exponent: an unrolled left-to-right square-and-multiply chain on the
 * Montgomery form (the addition chain of the exponent's binary expansion); no loop, no
 * select. Exponent 0 gives one (also for x = 0).
 */
static void emit_pow_const(kgen *g, const ffu_inst *in, int x, uint64_t ev)
{
	const char *fn = field_of(g, in->id)->base->name;
	char tn[64];
	need(g, x, 'm');
	ffu__sb_printf(g->sb, "\t%s m%d;\n", cl_type(field_of(g, in->id), tn), in->id);
	if (ev == 0) {
		ffu__sb_printf(g->sb, "\tm%d = %s_one_m();\n", in->id, fn);
	} else {
		int top = 63;
		while (!((ev >> top) & 1))
			top--;
		ffu__sb_printf(g->sb, "\t{\n\t\t%s t_ = m%d;\n", tn, x);
		for (int b = top - 1; b >= 0; b--) {
			ffu__sb_printf(g->sb, "\t\tt_ = %s_sqr(t_);\n", fn);
			if ((ev >> b) & 1)
				ffu__sb_printf(g->sb, "\t\tt_ = %s_mul(t_, m%d);\n", fn, x);
		}
		ffu__sb_printf(g->sb, "\t\tm%d = t_;\n\t}\n", in->id);
	}
	g->vals[in->id].has_m = true;
}

static void emit_special(kgen *g, const ffu_inst *in)
{
	const ffu_field *f = field_of(g, in->id);
	int x = resolve(g, in->operands[0]->id);
	switch (in->op) {
	case FFU_OP_INVERSE:
		need(g, x, 'm');
		decl(g, in->id, 'm');
		ffu__sb_printf(g->sb, "%s_inv(m%d);\n", f->base->name, x);
		set_form(g, in->id, 'm');
		return;
	case FFU_OP_DIVIDE: {
		/* a * (b^-1 in m form): m form when a is, canonical when a is */
		int b = resolve(g, in->operands[1]->id);
		char fa = has(g, x, 'm') && !has(g, x, 'c') ? 'm' : 'c';
		need(g, b, 'm');
		need(g, x, fa);
		decl(g, in->id, fa);
		ffu__sb_printf(g->sb, "%s_mul(%c%d, %s_inv(m%d));\n", f->base->name, fa, x, f->base->name, b);
		set_form(g, in->id, fa);
		return;
	}
	case FFU_OP_POWER: {
		int e = resolve(g, in->operands[1]->id);
		const ffu_field *fe = field_of(g, e);
		if (g->vals[e].literal) {
			emit_pow_const(g, in, x, ffu__fp_get_u64(fe, g->vals[e].literal));
			return;
		}
		need(g, x, 'm');
		need(g, e, 'c');
		decl(g, in->id, 'm');
		ffu__sb_printf(g->sb, "%s_pow_%s(m%d, c%d);\n", f->base->name, fe->name, x, e);
		set_form(g, in->id, 'm');
		return;
	}
	case FFU_OP_CONVERT: {
		const ffu_field *fx = field_of(g, x);
		if (f->kind != FFU_ELEM_UINT && fx->kind != FFU_ELEM_UINT) {
			/* field <-> _mont: the same base value; loads and stores apply the radix */
			g->vals[in->id].alias = x;
			return;
		}
		need(g, x, 'c');
		decl(g, in->id, 'c');
		if (f->kind == FFU_ELEM_UINT)
			ffu__sb_printf(g->sb, "(%s_t)c%d;\n", f->name, x);
		else
			ffu__sb_printf(g->sb, "%s_from_%s(c%d);\n", f->base->name, fx->name, x);
		set_form(g, in->id, 'c');
		return;
	}
	default:
		return;
	}
}

/* Loads parameter `in` (instruction i) of the kernel into c and/or m form. */
static void emit_load(kgen *g, const ffu_inst *in, int i)
{
	const ffu_field *f = ffu__shape_field(&in->shape);
	const char *idx = ffu__shape_count(&in->shape) == g->n ? "i" : "0";
	if (f->kind == FFU_ELEM_UINT) {
		decl(g, i, 'c');
		ffu__sb_printf(g->sb, "%s_load(in%lld, %s);\n", f->name, (long long)in->index, idx);
		set_form(g, i, 'c');
		return;
	}
	if (f->kind == FFU_ELEM_MONT && mont_is_dev(f)) {
		decl(g, i, 'm');
		ffu__sb_printf(g->sb, "%s_load(in%lld, %s);\n", f->base->name, (long long)in->index, idx);
		set_form(g, i, 'm');
		return;
	}
	decl(g, i, 'c');
	if (f->kind == FFU_ELEM_MONT) {
		/* canonical template (R_dev = 1): x = stored * R_mont^-1, one canonical product */
		unsigned char one[FFU_FIELD_MAX_BYTES], rinv[FFU_FIELD_MAX_BYTES];
		ffu__fp_set_u64(f->base, one, 1);
		ffu__fp_convert(f->base, rinv, f, one);
		ffu__sb_printf(g->sb, "%s_mul(%s_load(in%lld, %s), ", f->base->name, f->base->name,
			       (long long)in->index, idx);
		ffu__cl_emit_const(g->sb, f->base, rinv);
		ffu__sb_append(g->sb, ");\n");
	} else {
		ffu__sb_printf(g->sb, "%s_load(in%lld, %s);\n", f->name, (long long)in->index, idx);
	}
	set_form(g, i, 'c');
}

/* Stores value id as output o of type f (the output instruction's type). */
static void emit_store(kgen *g, const ffu_field *f, int o, int id)
{
	const char *fn = f->kind == FFU_ELEM_UINT ? f->name : f->base->name;
	if (f->kind == FFU_ELEM_MONT && mont_is_dev(f)) {
		need(g, id, 'm');
		ffu__sb_printf(g->sb, "\t%s_store(out%d, i, m%d);\n", fn, o, id);
		return;
	}
	need(g, id, 'c');
	if (f->kind == FFU_ELEM_MONT) {
		unsigned char r[FFU_FIELD_MAX_BYTES];
		ffu__fp_set_u64(f, r, 1); /* 1 as a _mont value: R_mont mod p */
		ffu__sb_printf(g->sb, "\t%s_store(out%d, i, %s_mul(c%d, ", fn, o, fn, id);
		ffu__cl_emit_const(g->sb, f->base, r);
		ffu__sb_append(g->sb, "));\n");
		return;
	}
	ffu__sb_printf(g->sb, "\t%s_store(out%d, i, c%d);\n", fn, o, id);
}

/*
 * Appends one line of a kernel body for lane `lane`: every kernel-local name (c<id>,
 * m<id>, the index i, the temporary t_) gets the suffix _<lane>. Names of functions and
 * types (babybear_mul, bn254_sf_t) and numbers (0x5UL) pass through untouched.
 */
static void append_lane(ffu_strbuf *sb, const char *line, size_t len, int lane)
{
	size_t i = 0;
	while (i < len) {
		size_t j = i;
		if (isalpha((unsigned char)line[i]) || line[i] == '_' || isdigit((unsigned char)line[i])) {
			while (j < len && (isalnum((unsigned char)line[j]) || line[j] == '_'))
				j++;
			ffu__sb_appendn(sb, line + i, j - i);
			const char *w = line + i;
			size_t n = j - i;
			bool local = (n == 1 && w[0] == 'i') || (n == 2 && w[0] == 't' && w[1] == '_');
			if (!local && n > 1 && (w[0] == 'c' || w[0] == 'm')) {
				local = true;
				for (size_t q = 1; q < n; q++)
					local &= isdigit((unsigned char)w[q]) != 0;
			}
			if (local)
				ffu__sb_printf(sb, "_%d", lane);
		} else {
			ffu__sb_appendn(sb, line + i, 1);
			j = i + 1;
		}
		i = j;
	}
}

/*
 * Measured on PoCL at 2^20: lanes pay where a kernel has work to interleave (seed_bb fused
 * 0.285 -> 0.157 ms, 8 chained BabyBear products 2.97 -> 1.76 ms) but not for a kernel of
 * one element-wise op (BabyBear multiply 2.23 -> 2.51 ms, Goldilocks 5.6 -> 40 ms) nor for
 * 256-bit fields, whose product already has ample independent work (and 4x the code).
 */
int ffu__codegen_kernel_lanes(const ffu_inst *fusion, int lanes)
{
	const ffu_computation *fc = fusion->callee;
	int ops = 0;
	for (int i = 0; i < fc->n_insts && lanes > 1; i++) {
		const ffu_field *f = ffu__shape_field(&fc->insts[i]->shape);
		if (f && f->storage_bytes > 8)
			return 1;
		ops += ffu__ops[fc->insts[i]->op].kind == FFU_KIND_ELEMENTWISE;
	}
	return lanes > 1 && ops >= 2 ? lanes : 1;
}

static void emit_signature(ffu_strbuf *sb, const char *name, const ffu_computation *fc, int n_out, bool wide)
{
	ffu__sb_printf(sb, "__kernel void %s(", name);
	for (int p = 0; p < fc->n_params; p++)
		ffu__sb_printf(sb, "%s__global const uint *restrict in%d", p ? ", " : "", p);
	for (int o = 0; o < n_out; o++)
		ffu__sb_printf(sb, "%s__global uint *restrict out%d", fc->n_params + o ? ", " : "", o);
	ffu__sb_append(sb, wide ? ", const ulong stride)\n{\n" : ")\n{\n");
}

/*
 * Each fusion becomes kernel ffu_k<k>, one element per work-item, and where lanes > 1 also
 * ffu_k<k>_wide: `lanes` elements per work-item (i, i + stride, ...), the body repeated
 * statement by statement in lockstep. Why: on CPU devices a long chain of dependent
 * products is latency-bound, and the out-of-order window only overlaps independent chains
 * that are interleaved in the instruction stream (PoCL, 16 chained BabyBear products at
 * 2^20: 6.7 ms one lane, 3.4 ms four interleaved lanes, the same as 16 independent ones).
 *
 * No bounds check: the runtime launches exactly as many work-items as there are elements
 * (ffu__cl_launch). On PoCL any guard or index clamp stops the work-group loop from being
 * vectorised: measured 0.96 ms unguarded vs 5-10 ms guarded for (x + y) * x at 2^22.
 */
static ffu_status emit_kernel(ffu_strbuf *sb, const ffu_inst *fusion, int k, int lanes, ffu_error *e)
{
	const ffu_computation *fc = fusion->callee;
	const ffu_inst *root = fc->root;
	int n_out = root->op == FFU_OP_TUPLE ? root->n_operands : 1;
	const ffu_inst *const *outs = root->op == FFU_OP_TUPLE ? (const ffu_inst *const *)root->operands : &root;
	ffu_strbuf body = {0};
	kgen g = {.sb = &body, .fc = fc};
	g.n = ffu__shape_count(&outs[0]->shape);
	g.vals = calloc((size_t)fc->n_insts, sizeof *g.vals);
	g.uses = ffu__comp_use_counts(fc);
	if (!g.vals || !g.uses) {
		free(g.vals);
		free(g.uses);
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory generating kernels");
	}
	for (int i = 0; i < fc->n_insts; i++)
		g.vals[i].alias = -1;

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
			emit_load(&g, in, i);
			break;
		case FFU_KIND_INDEX: /* broadcast of a scalar: the same value at every index */
			g.vals[i].alias = in->operands[0]->id;
			break;
		case FFU_KIND_ELEMENTWISE:
			if (ffu__ops[in->op].form == FFU_FORM_BILINEAR)
				emit_product(&g, in);
			else if (ffu__ops[in->op].form == FFU_FORM_SPECIAL)
				emit_special(&g, in);
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
		emit_store(&g, ffu__shape_field(&outs[o]->shape), o, resolve(&g, outs[o]->id));
	}
	char name[40];
	ffu__codegen_kernel_name(name, k);
	ffu__sb_printf(sb, "/* %s: %s */\n", fusion->name, fc->name);
	emit_signature(sb, name, fc, n_out, false);
	ffu__sb_append(sb, "\tconst size_t i = get_global_id(0);\n");
	ffu__sb_append(sb, ffu__sb_cstr(&body));
	ffu__sb_append(sb, "}\n\n");
	lanes = ffu__codegen_kernel_lanes(fusion, lanes);
	if (lanes > 1 && st == FFU_STATUS_OK) {
		strcat(name, "_wide");
		emit_signature(sb, name, fc, n_out, true);
		ffu__sb_append(sb, "\tconst size_t g = get_global_id(0);\n");
		for (int r = 0; r < lanes; r++)
			ffu__sb_printf(sb, "\tconst size_t i_%d = g + %d * stride;\n", r, r);
		const char *b = ffu__sb_cstr(&body);
		while (*b) {
			const char *nl = strchr(b, '\n');
			size_t len = nl ? (size_t)(nl - b + 1) : strlen(b);
			for (int r = 0; r < lanes; r++)
				append_lane(sb, b, len, r);
			b += len;
		}
		ffu__sb_append(sb, "}\n\n");
	}
	if (st == FFU_STATUS_OK)
		st = ffu__sb_status(&body, e);
	ffu__sb_free(&body);
	free(g.vals);
	free(g.uses);
	return st;
}

void ffu__codegen_kernel_name(char *buf, int k)
{
	snprintf(buf, 32, "ffu_k%d", k);
}

void ffu__codegen_wide_kernel_name(char *buf, int k)
{
	snprintf(buf, 40, "ffu_k%d_wide", k);
}

ffu_status ffu__codegen_program(ffu_strbuf *sb, const ffu_module *m, int lanes, int *n_kernels, ffu_error *e)
{
	bool used[FFU_FIELD_COUNT] = {0};
	*n_kernels = 0;
	for (int c = 0; c < m->n_comps; c++) {
		if (!m->comps[c]->is_fused)
			continue;
		for (int i = 0; i < m->comps[c]->n_insts; i++) {
			const ffu_field *f = ffu__shape_field(&m->comps[c]->insts[i]->shape);
			if (f && cl_field(f))
				used[cl_field(f)->id] = true;
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
		ffu_status st = emit_kernel(sb, entry->insts[i], (*n_kernels)++, lanes, e);
		if (st)
			return st;
	}
	return ffu__sb_status(sb, e);
}
