/*
 * codegen/codegen.c: OpenCL C for fusions (see codegen.h).
 *
 * Values are instructions at an index. A kernel iterates over one index space (its
 * outputs' elements, or for a reduction the reduced operand's elements); an index op
 * (broadcast, slice, reshape, concatenate) does not move data, it asks for its operand at
 * another index, computed from the consumer's index by integer arithmetic (index-map
 * fusion). So each instruction may be needed at several indices (slice even and odd of one
 * array: two loads), and a value is the pair (instruction, index variable). The plan runs
 * backwards from the outputs, recording which value of which operand each value reads;
 * emission then runs forwards in definition order. Both are iterative: a 20000-op chain
 * does not recurse. Emission writes a kernel body (codegen/body.h: lines whose locals,
 * indices, field names and inversions are typed holes), and each kernel variant prints
 * that body its own way (body.c, wide.c); nothing reads generated text back.
 *
 * Montgomery bookkeeping: each value may exist in canonical form (c<v>) and/or Montgomery
 * form (m<v>); conversions are emitted on demand and at most once per value. A product of
 * a Montgomery and a canonical operand is canonical (a R * b / R = a b), so `x*x - x` costs
 * one conversion and one product, and linear ops (add, sub, negate, select) work on either
 * form. Constants are folded on the host into whichever form a use wants, for free.
 *
 * A `<field>_mont` value is held as its base field's value (c or m form) and computes with
 * the base field's functions: where the user radix equals the device radix (31-bit
 * Montgomery and 256-bit fields) a loaded _mont value simply is the m form, and storing one
 * stores the m form; the canonical templates (Mersenne31, Goldilocks) convert at load and
 * store with one product by a constant. convert between a field and its _mont twin is
 * therefore free (an alias). u32/u64/pred values exist only in c form (the integer).
 */
#include "codegen/codegen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/addchain.h"
#include "codegen/body.h"
#include "codegen/field_cl.h"
#include "codegen/index.h"
#include "codegen/kernel.h"
#include "codegen/wide.h"
#include "device/target.h"
#include "util/grow.h"

enum { IX_MAIN = 0, IX_ZERO = 1 }; /* index variables every kernel has: i, and 0 for scalars */
#define INV_LOCKSTEP_BYTES 16 /* fields up to this size invert in lanes in lockstep, larger in loops */
#define INV_LOOP_LANES 256    /* elements per work-item of the inversion loops (wide.c) */
#define INV_LOOP_MAX_INVS 4   /* inverting instructions it takes; more: no wide kernel */
#define DEEP_CHAIN_PRODUCTS 4 /* dependent products from which a kernel gets DEEP_CHAIN_LANES */
#define DEEP_CHAIN_LANES 8

typedef struct val {
	int inst;         /* instruction id in the fused computation */
	int ix;           /* index variable */
	int next;         /* next value of the same instruction, -1 */
	int ops;          /* first entry of this value's operand values in kgen.opv */
	int alias;        /* index ops, field <-> _mont converts: the value this one is; -1 */
	bool has_c, has_m;
	const unsigned char *literal; /* scalar constant: both forms are free */
} val;

/* An index variable: its expression (scalar names) as the interning key, and what it is
   printed from: operand j of `in` read at index variable `base` (x1 is the literal 0). */
typedef struct ixvar {
	char *key;
	const ffu_inst *in;
	int j, base;
} ixvar;

typedef struct kgen {
	ffu_body body;    /* the planned body (codegen/body.h) */
	ffu_body *b;      /* &body */
	const ffu_computation *fc;
	val *v;
	int nv, capv;
	int *first;       /* per instruction: its first value, -1 */
	int *opv;         /* operand values, n_operands per value */
	int nopv, capopv;
	ixvar *ix;        /* index variables; ix[IX_MAIN].key names the kernel's index */
	int nix, capix;
	int *uses;        /* uses of each instruction in the fused computation */
	int *mul_uses;    /* of those, how many are multiply operands (x * x once) */
	bool oom;
} kgen;

static const ffu_inst *inst_of(const kgen *g, int vn)
{
	return g->fc->insts[g->v[vn].inst];
}

static const ffu_field *field_of(const kgen *g, int vn)
{
	return ffu__shape_field(&inst_of(g, vn)->shape);
}

static bool is_int(const ffu_field *f)
{
	return f->kind == FFU_ELEM_UINT || f->kind == FFU_ELEM_PRED;
}

/* The field whose device functions compute on values of type f (NULL for u32/u64/pred). */
static const ffu_field *cl_field(const ffu_field *f)
{
	return is_int(f) ? NULL : f->base;
}

/* OpenCL type of values of f: the base field's, or u32_t / u64_t / pred_t (cl/common.cl). */
static const char *cl_type(const ffu_field *f, char buf[64])
{
	return is_int(f) ? (snprintf(buf, 64, "%s_t", f->name), buf) : ffu__cl_type_name(f->base, buf);
}

/* Does the _mont type f store exactly the device's Montgomery form? */
static bool mont_is_dev(const ffu_field *f)
{
	return f->mont_radix_bits == f->base->dev_radix_bits;
}

/* ---- index variables ---- */

/* Interns an index expression (key: its text with scalar names); returns its variable. */
static int ix_intern(kgen *g, const char *key, const ffu_inst *in, int j, int base)
{
	for (int k = 0; k < g->nix; k++)
		if (strcmp(g->ix[k].key, key) == 0)
			return k;
	char *s = strdup(key);
	if (!s || !ffu__grow((void **)&g->ix, &g->capix, g->nix + 1, sizeof *g->ix)) {
		free(s);
		g->oom = true;
		return IX_ZERO;
	}
	g->ix[g->nix] = (ixvar){s, in, j, base};
	return g->nix++;
}

static void ix_name(const kgen *g, int ix, char buf[24])
{
	if (ix == IX_MAIN)
		snprintf(buf, 24, "%s", g->ix[IX_MAIN].key);
	else
		snprintf(buf, 24, "x%d", ix);
}

/*
 * The index of operand j of `in` read by `in` at index variable ix (the operand's own
 * row-major linear index). Scalars are read at IX_ZERO.
 */
static int operand_ix(kgen *g, const ffu_inst *in, int j, int ix)
{
	const ffu_inst *op = in->operands[j];
	if (op->shape.rank == 0)
		return IX_ZERO;
	if (ffu__ops[in->op].kind != FFU_KIND_INDEX || in->op == FFU_OP_RESHAPE)
		return ix;
	char var[24];
	ix_name(g, ix, var);
	ffu_strbuf e = {0};
	ffu__index_expr(&e, in, j, var);
	int r = e.oom ? (g->oom = true, IX_ZERO) : ix_intern(g, ffu__sb_cstr(&e), in, j, ix);
	ffu__sb_free(&e);
	return r;
}

/* ---- the plan ---- */

/* The value of instruction id at ix, created (with no operands planned yet) if new. */
static int value_at(kgen *g, int id, int ix)
{
	if (g->fc->insts[id]->shape.rank == 0)
		ix = IX_ZERO;
	for (int vn = g->first[id]; vn >= 0; vn = g->v[vn].next)
		if (g->v[vn].ix == ix)
			return vn;
	if (!ffu__grow((void **)&g->v, &g->capv, g->nv + 1, sizeof *g->v)) {
		g->oom = true;
		return -1;
	}
	val *v = &g->v[g->nv];
	memset(v, 0, sizeof *v);
	v->inst = id;
	v->ix = ix;
	v->alias = -1;
	v->ops = -1;
	v->next = g->first[id];
	g->first[id] = g->nv;
	return g->nv++;
}

/* Records, for every value requested so far, which operand values it reads (backwards). */
static void plan(kgen *g)
{
	for (int id = g->fc->n_insts - 1; id >= 0 && !g->oom; id--) {
		const ffu_inst *in = g->fc->insts[id];
		if (in->op == FFU_OP_TUPLE || in->op == FFU_OP_REDUCE)
			continue; /* outputs: their operands were requested by the caller */
		for (int vn = g->first[id]; vn >= 0 && !g->oom; vn = g->v[vn].next) {
			if (!ffu__grow((void **)&g->opv, &g->capopv, g->nopv + in->n_operands + 1, sizeof *g->opv)) {
				g->oom = true;
				return;
			}
			g->v[vn].ops = g->nopv;
			g->nopv += in->n_operands;
			for (int j = 0; j < in->n_operands; j++) {
				int oix = operand_ix(g, in, j, g->v[vn].ix);
				int ov = value_at(g, in->operands[j]->id, oix);
				if (ov < 0)
					return;
				g->opv[g->v[vn].ops + j] = ov;
			}
		}
	}
}

static int opval(const kgen *g, int vn, int j)
{
	return g->opv[g->v[vn].ops + j];
}

/* ---- emission ---- */

static int resolve(const kgen *g, int vn)
{
	while (g->v[vn].alias >= 0)
		vn = g->v[vn].alias;
	return vn;
}

/* The field whose <name>_t types values of f: the base field's, or u32/u64/pred's own. */
static const ffu_field *type_field(const ffu_field *f)
{
	return is_int(f) ? f : f->base;
}

static void decl(kgen *g, int vn, char form)
{
	ffu__body_printf(g->b, "\t%F %L = ", type_field(field_of(g, vn)), "t", form, vn);
}

/* <name>_make(words) of f holding these storage bytes (field_cl.h: ffu__cl_emit_const). */
static void emit_const(kgen *g, const ffu_field *f, const unsigned char *bytes)
{
	ffu_strbuf args = {0};
	ffu__cl_emit_const_args(&args, f, bytes);
	g->oom |= args.oom;
	ffu__body_printf(g->b, "%F%s", f, "make", ffu__sb_cstr(&args));
	ffu__sb_free(&args);
}

static void set_form(kgen *g, int vn, char form)
{
	if (form == 'c')
		g->v[vn].has_c = true;
	else
		g->v[vn].has_m = true;
}

/* Makes value vn available in form 'c' or 'm' (emitting a conversion if needed). */
static void need(kgen *g, int vn, char form)
{
	vn = resolve(g, vn);
	val *v = &g->v[vn];
	if ((form == 'c' && v->has_c) || (form == 'm' && v->has_m))
		return;
	const ffu_field *f = field_of(g, vn);
	decl(g, vn, form);
	if (v->literal && is_int(f)) {
		ffu__body_printf(g->b, "(%F)0x%llxUL", f, "t", (unsigned long long)ffu__fp_get_u64(f, v->literal));
	} else if (v->literal) {
		/* a _mont literal is x * R_mont: fold it to the base field's canonical x first */
		unsigned char x[FFU_FIELD_MAX_BYTES], buf[FFU_FIELD_MAX_BYTES];
		ffu__fp_convert(f->base, x, f, v->literal);
		if (form == 'm')
			ffu__fp_to_dev_mont(f->base, buf, x);
		else
			memcpy(buf, x, f->storage_bytes);
		emit_const(g, f->base, buf);
	} else {
		ffu__body_printf(g->b, "%F(%L)", f->base, form == 'm' ? "to_mont" : "from_mont", form == 'm' ? 'c' : 'm',
				 vn);
	}
	ffu__body_printf(g->b, ";\n");
	set_form(g, vn, form);
}

static bool has(const kgen *g, int vn, char form)
{
	const val *v = &g->v[resolve(g, vn)];
	return v->literal || (form == 'c' ? v->has_c : v->has_m);
}

/*
 * The form in which operands first..first+n-1 of vn are all available (c preferred),
 * converting what lacks it. Integer and pred values only ever have c, so they get c.
 */
static char common_form(kgen *g, int vn, int first, int n)
{
	bool all_c = true;
	for (int j = first; j < first + n; j++)
		all_c &= has(g, opval(g, vn, j), 'c');
	char form = all_c ? 'c' : 'm';
	for (int j = first; j < first + n; j++)
		need(g, opval(g, vn, j), form);
	return form;
}

static void emit_linear(kgen *g, int vn)
{
	const ffu_inst *in = inst_of(g, vn);
	const ffu_field *f = field_of(g, vn);
	char form = common_form(g, vn, 0, in->n_operands);
	decl(g, vn, form);
	ffu__body_printf(g->b, "%F(", f->base, ffu__ops[in->op].field_fn);
	for (int j = 0; j < in->n_operands; j++)
		ffu__body_printf(g->b, "%s%L", j ? ", " : "", form, resolve(g, opval(g, vn, j)));
	ffu__body_printf(g->b, ");\n");
	set_form(g, vn, form);
}

static void emit_product(kgen *g, int vn)
{
	const ffu_field *f = field_of(g, vn);
	int a = resolve(g, opval(g, vn, 0)), b = resolve(g, opval(g, vn, 1));
	/*
	 * Both canonical only, the template multiplies those without a conversion, and the
	 * operand Montgomery would convert (the more used one, below) is no other product's
	 * operand, so its conversion would not be shared. mulc costs the 3 products of a
	 * Montgomery product but a 64-bit correction more: 8 chained BabyBear products by one
	 * y (fieldops_babybear) at 2^20 on PoCL took 0.96 ms all through mulc, 0.88-0.89 ms
	 * converting y once.
	 */
	int conv = g->uses[g->v[b].inst] > g->uses[g->v[a].inst] ? b : a;
	const ffu_inst *conv_in = g->fc->insts[g->v[conv].inst];
	if (!has(g, a, 'm') && !has(g, b, 'm') && ffu__cl_has_mulc(f->base) && g->mul_uses[conv_in->id] <= 1) {
		need(g, a, 'c');
		need(g, b, 'c');
		decl(g, vn, 'c');
		ffu__body_printf(g->b, "%F(%L, %L);\n", f->base, "mulc", 'c', a, 'c', b);
		set_form(g, vn, 'c');
		return;
	}
	if (a == b) {
		need(g, a, 'm');
		if (!has(g, a, 'c')) { /* (aR)^2 / R = a^2 R */
			decl(g, vn, 'm');
			ffu__body_printf(g->b, "%F(%L);\n", f->base, "sqr", 'm', a);
			set_form(g, vn, 'm');
		} else { /* aR * a / R = a^2 */
			need(g, a, 'c'); /* a literal has both forms but neither is declared yet */
			decl(g, vn, 'c');
			ffu__body_printf(g->b, "%F(%L, %L);\n", f->base, "mul", 'm', a, 'c', a);
			set_form(g, vn, 'c');
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
	} else if (g->uses[g->v[b].inst] > g->uses[g->v[a].inst]) {
		/* both canonical only: convert the more used one (x * y * y * y: y once) */
		fa = 'c', fb = 'm', fr = 'c';
	} else {
		fa = 'm', fb = 'c', fr = 'c';
	}
	need(g, a, fa);
	need(g, b, fb);
	decl(g, vn, fr);
	ffu__body_printf(g->b, "%F(%L, %L);\n", f->base, "mul", fa, a, fb, b);
	set_form(g, vn, fr);
}

/*
 * power by a constant exponent, unrolled on the Montgomery form along an addition chain
 * (codegen/addchain.h): a shortest chain for small exponents, sliding windows for large
 * ones, never longer than square-and-multiply; no loop, no select. Doublings call the
 * field's dedicated squaring. Chain elements live in a block-local array t_ (constant
 * indices: registers after scalar replacement; one name, which the wide kernels' lane
 * renaming knows), an entry reused once the element it holds has had its last use; the
 * last step writes the result.
 * A window table costs registers, so values of 16 bytes or more (256-bit fields, quartic
 * extensions) get at most 8 table entries (w = 4), smaller ones 16 (w = 5). Exponent 0
 * gives one (also for x = 0).
 */
/* A power chain's element: temporary t_[slot], or (slot < 0) the value m<vn>. */
static void chain_element(kgen *g, int slot, int vn)
{
	if (slot >= 0)
		ffu__body_printf(g->b, "%T[%d]", slot);
	else
		ffu__body_printf(g->b, "%L", 'm', vn);
}

static void emit_pow_const(kgen *g, int vn, int x, uint64_t ev)
{
	const ffu_field *f = field_of(g, vn), *fb = f->base;
	need(g, x, 'm');
	ffu__body_printf(g->b, "\t%F %L;\n", fb, "t", 'm', vn);
	if (ev == 0) {
		ffu__body_printf(g->b, "\t%L = %F();\n", 'm', vn, fb, "one_m");
		set_form(g, vn, 'm');
		return;
	}
	ffu_addchain_step st[FFU_ADDCHAIN_MAX_STEPS];
	int n = 0;
	if (ffu__addchain_build(st, &n, ev, f->base->storage_bytes >= 16 ? 4 : 5) != FFU_STATUS_OK) {
		g->oom = true; /* cannot happen: ev >= 1 and the window is in range */
		return;
	}
	/* slot[i]: the temporary holding element i (element 0 is m<x>, the last is m<vn>) */
	int last[FFU_ADDCHAIN_MAX_STEPS + 1], slot[FFU_ADDCHAIN_MAX_STEPS + 1], nslots = 0;
	bool busy[FFU_ADDCHAIN_MAX_STEPS] = {0};
	for (int i = 0; i <= n; i++)
		last[i] = -1;
	for (int k = 0; k < n; k++)
		last[st[k].a] = last[st[k].b] = k;
	for (int k = 0; k + 1 < n; k++) {
		for (int q = 0; q < 2; q++) {
			int el = q ? st[k].b : st[k].a;
			if (el > 0 && last[el] == k)
				busy[slot[el]] = false;
		}
		int t = 0;
		while (busy[t])
			t++;
		busy[t] = true;
		slot[k + 1] = t;
		nslots = t + 1 > nslots ? t + 1 : nslots;
	}
	if (nslots)
		ffu__body_printf(g->b, "\t{\n\t\t%F %T[%d];\n", fb, "t", nslots);
	for (int k = 0; k < n; k++) {
		ffu__body_printf(g->b, nslots ? "\t\t" : "\t");
		chain_element(g, k + 1 == n ? -1 : slot[k + 1], vn);
		ffu__body_printf(g->b, " = %F(", fb, st[k].op == FFU_ADDCHAIN_SQR ? "sqr" : "mul");
		chain_element(g, st[k].a ? slot[st[k].a] : -1, x);
		if (st[k].op != FFU_ADDCHAIN_SQR) {
			ffu__body_printf(g->b, ", ");
			chain_element(g, st[k].b ? slot[st[k].b] : -1, x);
		}
		ffu__body_printf(g->b, ");\n");
	}
	if (nslots)
		ffu__body_printf(g->b, "\t}\n");
	else if (n == 0)
		ffu__body_printf(g->b, "\t%L = %L;\n", 'm', vn, 'm', x);
	set_form(g, vn, 'm');
}

static void emit_compare(kgen *g, int vn)
{
	const ffu_inst *in = inst_of(g, vn);
	int a = resolve(g, opval(g, vn, 0)), b = resolve(g, opval(g, vn, 1));
	const ffu_field *fa = field_of(g, a);
	const char *neg = in->direction == FFU_CMP_NE ? "!" : "";
	/* equal in one form iff equal in the other: compare where both already are */
	char form = common_form(g, vn, 0, 2);
	decl(g, vn, 'c');
	if (is_int(fa))
		ffu__body_printf(g->b, "(pred_t)%s(%L == %L);\n", neg, 'c', a, 'c', b);
	else
		ffu__body_printf(g->b, "(pred_t)%s%F(%L, %L);\n", neg, fa->base, "eq", form, a, form, b);
	set_form(g, vn, 'c');
}

static void emit_select(kgen *g, int vn)
{
	int p = resolve(g, opval(g, vn, 0));
	need(g, p, 'c');
	char form = common_form(g, vn, 1, 2);
	decl(g, vn, form);
	ffu__body_printf(g->b, "%L ? %L : %L;\n", 'c', p, form, resolve(g, opval(g, vn, 1)), form,
			 resolve(g, opval(g, vn, 2)));
	set_form(g, vn, form);
}

/*
 * dst<vn> = inverse of m<src> (Montgomery form in and out), as an inversion statement of
 * the body (body.h): a one-lane kernel prints it as one statement, a wide kernel as one
 * batch inversion over all its lanes (codegen/wide.c). It records c<src> where the operand
 * has a canonical form: a batch can run on that and spare every lane its conversion
 * (wide.c: batch_fixup). src is a resolved value.
 */
static void emit_inv(kgen *g, const ffu_field *f, char dst, int vn, int src)
{
	ffu__body_inv(g->b, &(ffu_inv_stmt){f->base, dst, vn, g->v[src].has_c ? 'c' : 'm', src});
}

static void emit_special(kgen *g, int vn)
{
	const ffu_inst *in = inst_of(g, vn);
	const ffu_field *f = field_of(g, vn);
	int x = resolve(g, opval(g, vn, 0));
	switch (in->op) {
	case FFU_OP_INVERSE:
		need(g, x, 'm');
		emit_inv(g, f, 'm', vn, x);
		set_form(g, vn, 'm');
		return;
	case FFU_OP_DIVIDE: {
		/* a * (b^-1 in m form, w<vn>): m form when a is, canonical when a is */
		int b = resolve(g, opval(g, vn, 1));
		char fa = has(g, x, 'm') && !has(g, x, 'c') ? 'm' : 'c';
		need(g, b, 'm');
		need(g, x, fa);
		emit_inv(g, f, 'w', vn, b);
		decl(g, vn, fa);
		ffu__body_printf(g->b, "%F(%L, %L);\n", f->base, "mul", fa, x, 'w', vn);
		set_form(g, vn, fa);
		return;
	}
	case FFU_OP_POWER: {
		int ex = resolve(g, opval(g, vn, 1));
		const ffu_field *fe = field_of(g, ex);
		if (g->v[ex].literal) {
			emit_pow_const(g, vn, x, ffu__fp_get_u64(fe, g->v[ex].literal));
			return;
		}
		need(g, x, 'm');
		need(g, ex, 'c');
		decl(g, vn, 'm');
		ffu__body_printf(g->b, "%F_%s(%L, %L);\n", f->base, "pow", fe->name, 'm', x, 'c', ex);
		set_form(g, vn, 'm');
		return;
	}
	case FFU_OP_CONVERT: {
		const ffu_field *fx = field_of(g, x);
		if (f->kind == FFU_ELEM_EXT && fx->kind != FFU_ELEM_EXT && !is_int(fx)) {
			/* prime field (or its _mont) into an extension: the constant coefficient, in
			   whichever form the value has (the embedding is linear) */
			char form = has(g, x, 'c') ? 'c' : 'm';
			need(g, x, form);
			decl(g, vn, form);
			ffu__body_printf(g->b, "%F(%L);\n", f, "from_base", form, x);
			set_form(g, vn, form);
			return;
		}
		if (!is_int(f) && !is_int(fx)) {
			/* field <-> _mont: the same base value; loads and stores apply the radix */
			g->v[vn].alias = x;
			return;
		}
		need(g, x, 'c');
		decl(g, vn, 'c');
		if (is_int(f))
			ffu__body_printf(g->b, "(%F)%L;\n", f, "t", 'c', x);
		else
			ffu__body_printf(g->b, "%F_%s(%L);\n", f->base, "from", fx->name, 'c', x);
		set_form(g, vn, 'c');
		return;
	}
	case FFU_OP_COMPARE:
		emit_compare(g, vn);
		return;
	case FFU_OP_SELECT:
		emit_select(g, vn);
		return;
	default:
		return;
	}
}

/* Loads parameter `in` at the value's index into c and/or m form. */
static void emit_load(kgen *g, int vn)
{
	const ffu_inst *in = inst_of(g, vn);
	const ffu_field *f = ffu__shape_field(&in->shape);
	const int ix = g->v[vn].ix;
	if (is_int(f)) {
		decl(g, vn, 'c');
		ffu__body_printf(g->b, "%F(in%lld, %I);\n", f, "load", (long long)in->index, ix);
		set_form(g, vn, 'c');
		return;
	}
	if (f->kind == FFU_ELEM_MONT && mont_is_dev(f)) {
		decl(g, vn, 'm');
		ffu__body_printf(g->b, "%F(in%lld, %I);\n", f->base, "load", (long long)in->index, ix);
		set_form(g, vn, 'm');
		return;
	}
	decl(g, vn, 'c');
	if (f->kind == FFU_ELEM_MONT) {
		/* canonical template (R_dev = 1): x = stored * R_mont^-1, one canonical product */
		unsigned char one[FFU_FIELD_MAX_BYTES], rinv[FFU_FIELD_MAX_BYTES];
		ffu__fp_set_u64(f->base, one, 1);
		ffu__fp_convert(f->base, rinv, f, one);
		ffu__body_printf(g->b, "%F(%F(in%lld, %I), ", f->base, "mul", f->base, "load", (long long)in->index, ix);
		emit_const(g, f->base, rinv);
		ffu__body_printf(g->b, ");\n");
	} else {
		ffu__body_printf(g->b, "%F(in%lld, %I);\n", f, "load", (long long)in->index, ix);
	}
	set_form(g, vn, 'c');
}

static void emit_iota(kgen *g, int vn)
{
	const ffu_inst *in = inst_of(g, vn);
	const ffu_field *f = field_of(g, vn);
	decl(g, vn, 'c');
	if (is_int(f))
		ffu__body_printf(g->b, "(%F)", f, "t");
	else
		ffu__body_printf(g->b, "%F((ulong)", f->base, "from_u64");
	ffu__body_printf(g->b, "%C%s", g->v[vn].ix, in->shape.dims, in->shape.rank, (int)in->index,
			 is_int(f) ? ";\n" : ");\n");
	set_form(g, vn, 'c');
}

/* concatenate: every operand was read at an index clamped into its range; pick the right one. */
static void emit_concatenate(kgen *g, int vn)
{
	const ffu_inst *in = inst_of(g, vn);
	int d = (int)in->dims[0];
	char form = common_form(g, vn, 0, in->n_operands);
	decl(g, vn, form);
	int64_t off = 0;
	for (int j = 0; j < in->n_operands - 1; j++) {
		off += in->operands[j]->shape.dims[d];
		ffu__body_printf(g->b, "(%C < %lluUL) ? %L : ", g->v[vn].ix, in->shape.dims, in->shape.rank, d,
				 (unsigned long long)off, form, resolve(g, opval(g, vn, j)));
	}
	ffu__body_printf(g->b, "%L;\n", form, resolve(g, opval(g, vn, in->n_operands - 1)));
	set_form(g, vn, form);
}

static ffu_status emit_value(kgen *g, int vn, ffu_error *e)
{
	const ffu_inst *in = inst_of(g, vn);
	switch (ffu__ops[in->op].kind) {
	case FFU_KIND_SOURCE:
		if (in->op == FFU_OP_CONSTANT) {
			if (in->shape.rank != 0)
				return ffu__err(e, FFU_STATUS_EUNSUPPORTED, "array constant inside a fusion");
			g->v[vn].literal = in->literal;
		} else if (in->op == FFU_OP_IOTA) {
			emit_iota(g, vn);
		} else {
			emit_load(g, vn);
		}
		return FFU_STATUS_OK;
	case FFU_KIND_INDEX:
		if (in->op == FFU_OP_CONCATENATE && in->n_operands > 1)
			emit_concatenate(g, vn);
		else /* the operand's value at the index this op computed: nothing to emit */
			g->v[vn].alias = opval(g, vn, 0);
		return FFU_STATUS_OK;
	case FFU_KIND_ELEMENTWISE:
		if (ffu__ops[in->op].form == FFU_FORM_BILINEAR)
			emit_product(g, vn);
		else if (ffu__ops[in->op].form == FFU_FORM_SPECIAL)
			emit_special(g, vn);
		else
			emit_linear(g, vn);
		return FFU_STATUS_OK;
	default:
		return ffu__err(e, FFU_STATUS_EUNSUPPORTED, "codegen: %s inside a fusion", ffu__ops[in->op].keyword);
	}
}

/* Emits the index variables (after the kernel's own) and every planned value, in order. */
static ffu_status emit_body(kgen *g, ffu_error *e)
{
	if (g->oom)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory generating kernels");
	ffu__body_printf(g->b, "\tconst ulong %I = 0;\n", IX_ZERO);
	for (int k = IX_ZERO + 1; k < g->nix; k++)
		ffu__body_printf(g->b, "\tconst ulong %I = %E;\n", k, g->ix[k].in, g->ix[k].j, g->ix[k].base);
	for (int id = 0; id < g->fc->n_insts; id++) {
		/* values were pushed at the head: emit oldest first for stable output */
		int n = 0, stack[64], *vs = stack;
		for (int vn = g->first[id]; vn >= 0; vn = g->v[vn].next)
			n++;
		if (n > 64 && !(vs = malloc(sizeof(int) * (size_t)n)))
			return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory generating kernels");
		int k = n;
		for (int vn = g->first[id]; vn >= 0; vn = g->v[vn].next)
			vs[--k] = vn;
		ffu_status st = FFU_STATUS_OK;
		for (k = 0; k < n && st == FFU_STATUS_OK; k++)
			st = emit_value(g, vs[k], e);
		if (vs != stack)
			free(vs);
		if (st)
			return st;
	}
	return FFU_STATUS_OK;
}

/* Stores value vn as output o (of type f, the output instruction's type) at the kernel's index. */
static void emit_store(kgen *g, const ffu_field *f, int o, int vn)
{
	vn = resolve(g, vn);
	const ffu_field *fs = type_field(f);
	if (f->kind == FFU_ELEM_MONT && mont_is_dev(f)) {
		need(g, vn, 'm');
		ffu__body_printf(g->b, "\t%F(out%d, %I, %L);\n", fs, "store", o, IX_MAIN, 'm', vn);
		return;
	}
	need(g, vn, 'c');
	if (f->kind == FFU_ELEM_MONT) {
		unsigned char r[FFU_FIELD_MAX_BYTES];
		ffu__fp_set_u64(f, r, 1); /* 1 as a _mont value: R_mont mod p */
		ffu__body_printf(g->b, "\t%F(out%d, %I, %F(%L, ", fs, "store", o, IX_MAIN, fs, "mul", 'c', vn);
		emit_const(g, f->base, r);
		ffu__body_printf(g->b, "));\n");
		return;
	}
	ffu__body_printf(g->b, "\t%F(out%d, %I, %L);\n", fs, "store", o, IX_MAIN, 'c', vn);
}

static ffu_status kgen_init(kgen *g, const ffu_computation *fc, const char *main_ix, ffu_error *e)
{
	memset(g, 0, sizeof *g);
	g->b = &g->body;
	ffu__body_init(g->b, main_ix);
	g->fc = fc;
	g->first = malloc(sizeof(int) * (size_t)(fc->n_insts + 1));
	g->uses = ffu__comp_use_counts(fc);
	g->mul_uses = calloc((size_t)fc->n_insts + 1, sizeof *g->mul_uses);
	for (int i = 0; g->mul_uses && i < fc->n_insts; i++) {
		const ffu_inst *in = fc->insts[i];
		if (in->op != FFU_OP_MULTIPLY)
			continue;
		g->mul_uses[in->operands[0]->id]++;
		if (in->operands[1] != in->operands[0])
			g->mul_uses[in->operands[1]->id]++;
	}
	if (g->first)
		for (int i = 0; i < fc->n_insts; i++)
			g->first[i] = -1;
	ix_intern(g, main_ix, NULL, 0, IX_MAIN);
	ix_intern(g, "0", NULL, 0, IX_ZERO);
	if (!g->first || !g->uses || !g->mul_uses || g->oom || g->nix != 2)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory generating kernels");
	return FFU_STATUS_OK;
}

static void kgen_free(kgen *g)
{
	for (int k = 0; k < g->nix; k++)
		free(g->ix[k].key);
	free(g->ix);
	ffu__body_free(&g->body);
	free(g->v);
	free(g->first);
	free(g->opv);
	free(g->uses);
	free(g->mul_uses);
}

/* ---- kernels ---- */

bool ffu__codegen_is_reduction(const ffu_inst *fusion)
{
	const ffu_inst *r = fusion->callee->root;
	if (r->op == FFU_OP_TUPLE)
		r = r->n_operands > 0 ? r->operands[0] : r;
	return r->op == FFU_OP_REDUCE;
}

/* The widest field a fusion inverts in bytes, 0 if none; *count gets how many of its
   instructions invert. The inverting ops are those emit_special sends to emit_inv. */
static size_t inverted_bytes(const ffu_computation *fc, int *count)
{
	size_t bytes = 0;
	int n = 0;
	for (int i = 0; i < fc->n_insts; i++) {
		const ffu_field *f = ffu__shape_field(&fc->insts[i]->shape);
		if (!f || (fc->insts[i]->op != FFU_OP_INVERSE && fc->insts[i]->op != FFU_OP_DIVIDE))
			continue;
		n++;
		bytes = f->storage_bytes > bytes ? f->storage_bytes : bytes;
	}
	*count = n;
	return bytes;
}

/*
 * The extension whose vector instance (field_cl.h: ffu__cl_vector_lanes) a CPU wide kernel
 * of this fusion computes in, or NULL: every value of the fusion is of that extension or
 * its prime field, and every op is add, subtract, negate or multiply of values read at the
 * fusion's own index (parameters, a tuple of outputs) or scalar constants, broadcast or
 * not. Other ops (index arithmetic, conversions, powers, inversions) keep the lanes of
 * the lanes in lockstep.
 */
static const ffu_field *vector_field(const ffu_computation *fc)
{
	const ffu_field *x = NULL;
	for (int i = 0; i < fc->n_insts; i++) {
		const ffu_inst *in = fc->insts[i];
		if (in->op == FFU_OP_TUPLE && in == fc->root)
			continue;
		/* the op table's linear and bilinear element-wise ops: add, subtract, negate, multiply */
		const ffu_op_info *op = &ffu__ops[in->op];
		bool ok = in->op == FFU_OP_PARAMETER ||
			  (op->kind == FFU_KIND_ELEMENTWISE && op->form != FFU_FORM_SPECIAL) ||
			  (in->op == FFU_OP_CONSTANT && in->shape.rank == 0) ||
			  (in->op == FFU_OP_BROADCAST && in->operands[0]->op == FFU_OP_CONSTANT);
		const ffu_field *f = ffu__shape_field(&in->shape);
		if (!ok || !f)
			return NULL;
		if (!x && ffu__cl_vector_lanes(f) > 0)
			x = f;
	}
	for (int i = 0; i < fc->n_insts && x; i++) {
		const ffu_inst *in = fc->insts[i];
		const ffu_field *f = ffu__shape_field(&in->shape);
		if (!(in->op == FFU_OP_TUPLE && in == fc->root) && f != x && f != x->prime)
			return NULL;
	}
	return x;
}

/* The most products on one path of dependent values of fc (x * y * y: 2). */
static int product_depth(const ffu_computation *fc)
{
	int stack[256], *d = fc->n_insts <= 256 ? stack : malloc(sizeof(int) * (size_t)fc->n_insts);
	if (!d)
		return 0; /* out of memory: the profile's lanes, as for a shallow kernel */
	int best = 0;
	for (int i = 0; i < fc->n_insts; i++) {
		const ffu_inst *in = fc->insts[i];
		int m = 0;
		for (int j = 0; j < in->n_operands; j++) {
			const ffu_inst *o = in->operands[j];
			if (o->parent == fc && o->id < i && d[o->id] > m)
				m = d[o->id];
		}
		d[i] = m + (in->op == FFU_OP_MULTIPLY);
		best = d[i] > best ? d[i] : best;
	}
	if (d != stack)
		free(d);
	return best;
}

/*
 * A kernel that inverts gets lanes for one batch inversion per work-item. Fields up to 16
 * bytes: 16 lanes in lockstep (wide.c: print_inv_batch), which PoCL vectorises across work-items.
 * 256-bit fields: INV_LOOP_LANES elements in loops (ffu__wide_print_inv_loops), because lanes
 * in lockstep cost compile time (PoCL builds each lane's products: a kernel with two BN254
 * divides took 2.2 s to build with one lane, 6.0 s with 4, 11.4 s with 8). PoCL, quotient
 * (BN254, (f - v) / (x - z)): at 2^18, 2.33 s with one Fermat inversion per element, 0.54 s
 * with 4 lanes in lockstep, 0.29 s with 8; at 2^20, 2.27 s per element, 0.26 s in loops of
 * 64, 0.17 s in loops of 256 (the prefix products, 8 KiB, stay in L1), 0.12 s with the
 * canonical operand (wide.c: batch_fixup).
 * Otherwise, measured on PoCL at 2^20: lanes pay where a kernel has work to interleave (seed_bb fused
 * 0.285 -> 0.157 ms, 8 chained BabyBear products 2.97 -> 1.76 ms) but not for a kernel of
 * one element-wise op (BabyBear multiply 2.23 -> 2.51 ms, Goldilocks 5.6 -> 40 ms) nor for
 * 256-bit fields, whose product already has ample independent work (and 4x the code).
 * Prime-field kernels with DEEP_CHAIN_PRODUCTS dependent products or more get at least
 * DEEP_CHAIN_LANES: each lane's chain is latency-bound, and more lanes fill the out-of-order
 * window. PoCL at 2^21, 4 / 8 / 16 lanes (ms): 8 chained BabyBear products 1.68 / 1.13 /
 * 1.10, Mersenne31 1.19 / 0.85 / 0.87, Goldilocks 5.5 / 4.45 / 5.1, the 6-deep chain
 * workload 1.66 / 1.27 / 1.37; shallow kernels do not gain (seed_bb 0.24 / 0.25 / 0.35,
 * sumcheck, fold level at 4 and 8), nor do extensions, whose products have independent
 * work of their own (mersenne31x2 chain at 2^20: 2.04 ms with 4, 2.45 with 8).
 * Reductions have their own work distribution (a loop per work-item).
 */
typedef enum wide_kind {
	WIDE_NONE,     /* no wide kernel */
	WIDE_LANES,    /* lanes in lockstep, inversions batched (ffu__wide_print_lanes) */
	WIDE_VECTOR,   /* the fusion's values in a vector instance (vector_field, ffu__wide_print_vector) */
	WIDE_INV_LOOP, /* INV_LOOP_LANES elements in loops (ffu__wide_print_inv_loops) */
} wide_kind;

typedef struct wide_plan {
	wide_kind kind;
	int lanes;             /* elements per work-item; 1 for WIDE_NONE */
	const ffu_field *vx;   /* WIDE_VECTOR: the extension */
} wide_plan;

/* The one decision of a fusion's wide kernel: the kernel emitter, the lane count and the
   program's field options all read it. */
static wide_plan plan_wide(const ffu_inst *fusion, int lanes)
{
	const wide_plan none = {WIDE_NONE, 1, NULL};
	const ffu_computation *fc = fusion->callee;
	if (lanes <= 1 || ffu__codegen_is_reduction(fusion))
		return none;
	const ffu_field *vx = vector_field(fc);
	if (vx)
		return (wide_plan){WIDE_VECTOR, ffu__cl_vector_lanes(vx), vx};
	int invs = 0;
	size_t inv_bytes = inverted_bytes(fc, &invs);
	if (inv_bytes && inv_bytes <= INV_LOCKSTEP_BYTES)
		return (wide_plan){WIDE_LANES, 16, NULL};
	if (inv_bytes)
		return invs <= INV_LOOP_MAX_INVS ? (wide_plan){WIDE_INV_LOOP, INV_LOOP_LANES, NULL} : none;
	int ops = 0;
	bool ext = false;
	for (int i = 0; i < fc->n_insts; i++) {
		const ffu_field *f = ffu__shape_field(&fc->insts[i]->shape);
		if (f && f->storage_bytes > 8)
			return none;
		ext |= f && f->kind == FFU_ELEM_EXT;
		ops += ffu__ops[fc->insts[i]->op].kind == FFU_KIND_ELEMENTWISE;
	}
	if (ops < 2)
		return none;
	bool deep = !ext && lanes < DEEP_CHAIN_LANES && product_depth(fc) >= DEEP_CHAIN_PRODUCTS;
	return (wide_plan){WIDE_LANES, deep ? DEEP_CHAIN_LANES : lanes, NULL};
}

int ffu__codegen_kernel_lanes(const ffu_inst *fusion, const ffu_target *t)
{
	return plan_wide(fusion, t->profile.lanes).lanes;
}

static int n_outputs(const ffu_computation *fc, const ffu_inst *const **outs)
{
	const ffu_inst *root = fc->root;
	*outs = root->op == FFU_OP_TUPLE ? (const ffu_inst *const *)root->operands : (const ffu_inst *const *)&fc->root;
	return root->op == FFU_OP_TUPLE ? root->n_operands : 1;
}

/*
 * A loop fusion becomes kernel ffu_k<k>, one element per work-item, and where lanes > 1
 * also ffu_k<k>_wide: `lanes` elements per work-item (i, i + stride, ...), the body
 * repeated statement by statement in lockstep. Why: on CPU devices a long chain of
 * dependent products is latency-bound, and the out-of-order window only overlaps
 * independent chains that are interleaved in the instruction stream (PoCL, 16 chained
 * BabyBear products at 2^20: 6.7 ms one lane, 3.4 ms four interleaved lanes).
 *
 * No bounds check: the runtime launches exactly as many work-items as there are elements
 * (ffu__cl_launch). On PoCL any guard or index clamp stops the work-group loop from being
 * vectorised: measured 0.96 ms unguarded vs 5-10 ms guarded for (x + y) * x at 2^22.
 */
static ffu_status emit_loop_kernel(ffu_strbuf *sb, ffu_fusion_kernels *fk, const ffu_inst *fusion, int k, int lanes,
				   ffu_error *e)
{
	const ffu_computation *fc = fusion->callee;
	const ffu_inst *const *outs;
	int n_out = n_outputs(fc, &outs);
	const wide_plan wp = plan_wide(fusion, lanes);
	kgen g;
	ffu_status st = kgen_init(&g, fc, "i", e);
	if (st == FFU_STATUS_OK && !ffu__kernels_loop(fk, fusion, k, n_out, wp.lanes))
		st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory generating kernels");
	int *ov = calloc((size_t)n_out + 1, sizeof *ov);
	if (st == FFU_STATUS_OK && !ov)
		st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory generating kernels");
	for (int o = 0; o < n_out && st == FFU_STATUS_OK; o++)
		ov[o] = value_at(&g, outs[o]->id, IX_MAIN);
	if (st == FFU_STATUS_OK)
		plan(&g);
	if (st == FFU_STATUS_OK)
		st = emit_body(&g, e);
	for (int o = 0; o < n_out && st == FFU_STATUS_OK; o++)
		emit_store(&g, ffu__shape_field(&outs[o]->shape), o, ov[o]);

	if (st)
		goto out;
	ffu__sb_printf(sb, "/* %s: %s */\n", fusion->name, fc->name);
	ffu__kernel_print_signature(sb, ffu__fusion_kernel(fk, FFU_KERNEL_LOOP));
	ffu__sb_append(sb, "\tconst ulong i = get_global_id(0);\n");
	ffu__body_print(sb, g.b, &ffu__body_scalar);
	ffu__sb_append(sb, "}\n\n");
	const ffu_kernel_desc *wide = ffu__fusion_kernel(fk, FFU_KERNEL_WIDE);
	lanes = wp.lanes;
	if (wide)
		ffu__kernel_print_signature(sb, wide);
	if (wp.kind == WIDE_VECTOR) {
		ffu__sb_printf(sb, "\t/* %d elements per work-item: i .. i + %d in vectors */\n", lanes, lanes - 1);
		ffu__sb_append(sb, "\tconst ulong i = get_global_id(0);\n");
		ffu__wide_print_vector(sb, g.b, wp.vx, lanes);
		ffu__sb_append(sb, "}\n\n");
	} else if (wp.kind == WIDE_INV_LOOP) {
		ffu__sb_append(sb, "\tconst ulong g = get_global_id(0);\n");
		ffu__wide_print_inv_loops(sb, g.b, lanes);
		ffu__sb_append(sb, "}\n\n");
	} else if (wp.kind == WIDE_LANES) {
		ffu__sb_append(sb, "\tconst ulong g = get_global_id(0);\n");
		ffu__wide_print_lanes(sb, g.b, lanes);
		ffu__sb_append(sb, "}\n\n");
	}
	st = ffu__body_status(g.b, e);
out:
	free(ov);
	kgen_free(&g);
	return st;
}

/*
 * The accumulator form of a reduction: products accumulate in Montgomery form (mR * mR / R
 * stays mR, so neither the loop nor the tree converts); sums in whichever form the value
 * already has (addition is the same in both).
 */
static char reduce_form(const kgen *g, const ffu_inst *r, int vn)
{
	return r->reduce_fn == FFU_OP_MULTIPLY || !has(g, vn, 'c') ? 'm' : 'c';
}

static void emit_identity(ffu_strbuf *sb, const ffu_inst *r)
{
	const ffu_field *f = ffu__shape_field(&r->shape)->base;
	if (r->reduce_fn == FFU_OP_MULTIPLY) {
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
		ffu__sb_printf(sb, "\t%s a%d = ", cl_type(ffu__shape_field(&outs[o]->shape), tn), o);
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
			const char *fn = ffu__shape_field(&outs[o]->shape)->base->name;
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
		ffu__sb_printf(sb, "\t\t\tlm%d[lid] = %s_%s(lm%d[lid], lm%d[lid + s]);\n", o,
			       ffu__shape_field(&outs[o]->shape)->base->name, combine_fn(outs[o]), o, o);
	ffu__sb_append(sb, "\t\t}\n\t\tbarrier(CLK_LOCAL_MEM_FENCE);\n\t}\n\tif (lid == 0) {\n");
	for (int o = 0; o < n_out; o++)
		ffu__sb_printf(sb, "\t\t%s_store(part%d, o * G + gi, lm%d[0]);\n",
			       ffu__shape_field(&outs[o]->shape)->base->name, o, o);
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
static ffu_status emit_reduce_kernels(ffu_strbuf *sb, ffu_fusion_kernels *fk, const ffu_inst *fusion, int k,
				      bool serial_fold, ffu_error *e)
{
	const ffu_computation *fc = fusion->callee;
	const ffu_inst *const *outs;
	int n_out = n_outputs(fc, &outs);
	ffu_strbuf body = {0}, ident = {0};
	kgen g, h;
	ffu_status st = kgen_init(&g, fc, "i", e);
	ffu_status st2 = kgen_init(&h, fc, "o", e);
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
			ov[o] = value_at(&g, outs[o]->operands[0]->id, IX_MAIN);
			iv[o] = value_at(&h, outs[o]->operands[1]->id, IX_ZERO);
		}
	}
	if (st == FFU_STATUS_OK && !ffu__kernels_reduction(fk, fusion, k, outs, n_out, reduce_unroll(fusion)))
		st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory generating kernels");
	if (st == FFU_STATUS_OK) {
		plan(&g);
		plan(&h);
		st = emit_body(&g, e);
	}
	if (st == FFU_STATUS_OK)
		st = emit_body(&h, e);
	/* the body's conversions for the accumulators go to the body buffer */
	for (int o = 0; o < n_out && st == FFU_STATUS_OK; o++) {
		form[o] = reduce_form(&g, outs[o], ov[o]);
		need(&g, ov[o], form[o]);
	}
	for (int o = 0; o < n_out && st == FFU_STATUS_OK; o++)
		ffu__body_printf(g.b, "\ta%d = %F(a%d, %L);\n", o, ffu__shape_field(&outs[o]->shape)->base,
				 combine_fn(outs[o]), o, form[o], resolve(&g, ov[o]));
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
		int acc = value_at(&h, outs[o]->id, IX_MAIN);
		if (acc < 0) {
			st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory generating kernels");
			break;
		}
		const ffu_field *fb = ffu__shape_field(&outs[o]->shape)->base;
		const char *fn = combine_fn(outs[o]);
		char f = form[o];
		need(&h, iv[o], f);
		decl(&h, acc, f);
		ident.len = 0;
		emit_identity(&ident, outs[o]);
		ffu__body_printf(h.b, "%s;\n\tfor (ulong gi = 0; gi < G; gi++)\n\t\t%L = %F(%L, %F(part%d, o * G + gi));\n",
				 ffu__sb_cstr(&ident), f, acc, fb, fn, f, acc, fb, "load", o);
		ffu__body_printf(h.b, "\t%L = %F(%L, %L);\n", f, acc, fb, fn, f, acc, f, resolve(&h, iv[o]));
		set_form(&h, acc, f);
		emit_store(&h, ffu__shape_field(&outs[o]->shape), o, acc);
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
out:
	ffu__sb_free(&body);
	ffu__sb_free(&ident);
	free(ov);
	free(iv);
	free(form);
	kgen_free(&g);
	kgen_free(&h);
	return st;
}

/*
 * 64-bit containers pay on CPUs, where SIMD lanes are 64 bits wide either way (cl/word31.cl
 * has the measurement); on GPUs a 64-bit integer is two 32-bit registers.
 * 64-bit limbs for a program with a 256-bit kernel that runs in loops (ffu__wide_print_inv_loops,
 * CPUs only): a loop kernel is not vectorised across work-items, and one scalar 64-bit limb
 * product (x86-64's 64x64 -> 128 multiply, cl/mont256_64.cl) is a quarter of the 32-bit
 * ones. PoCL, quotient at 2^18: 31 ms with 32-bit limbs, 16.5 ms with 64-bit (the C baseline
 * 16.4 ms). The program's other 256-bit kernels pay for it (element-wise ones run 1.8x
 * slower with 64-bit limbs, vectorised), but next to a batch inversion they are small.
 */
ffu_cl_field_opts ffu__codegen_field_opts(const ffu_module *m, const ffu_target *t)
{
	ffu_cl_field_opts fo = {.ext_w64 = t->ext_w64};
	for (int i = 0; m && i < m->entry->n_insts; i++) {
		const ffu_inst *in = m->entry->insts[i];
		if (in->op == FFU_OP_FUSION && plan_wide(in, t->profile.lanes).kind == WIDE_INV_LOOP)
			fo.limb_bits = 64;
	}
	return fo;
}

ffu_status ffu__codegen_program(ffu_strbuf *sb, const ffu_module *m, const ffu_target *t, int *n_kernels,
				ffu_error *e)
{
	ffu_program_kernels pk = {0};
	ffu_status st = ffu__codegen_program_kernels(sb, m, t, &pk, e);
	*n_kernels = pk.n;
	ffu__program_kernels_free(&pk);
	return st;
}

ffu_status ffu__codegen_program_kernels(ffu_strbuf *sb, const ffu_module *m, const ffu_target *t,
					ffu_program_kernels *pk, ffu_error *e)
{
	const int lanes = t->profile.lanes;
	bool used[FFU_ELEM_COUNT] = {0};
	memset(pk, 0, sizeof *pk);
	if (!(pk->fusions = calloc((size_t)m->entry->n_insts + 1, sizeof *pk->fusions)))
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory generating kernels");
	for (int c = 0; c < m->n_comps; c++) {
		if (!m->comps[c]->is_fused)
			continue;
		for (int i = 0; i < m->comps[c]->n_insts; i++) {
			const ffu_field *f = ffu__shape_field(&m->comps[c]->insts[i]->shape);
			if (f && cl_field(f))
				used[cl_field(f)->id] = true;
		}
	}
	/* the vector instances the wide kernels of some fusions compute in */
	bool used_vec[FFU_ELEM_COUNT] = {0};
	for (int i = 0; i < m->entry->n_insts; i++) {
		const ffu_inst *in = m->entry->insts[i];
		const ffu_field *vx = in->op == FFU_OP_FUSION ? plan_wide(in, lanes).vx : NULL;
		if (vx)
			used_vec[vx->id] = true;
	}
	ffu__cl_emit_common(sb);
	ffu_cl_field_opts fo = ffu__codegen_field_opts(m, t);
	ffu__cl_emit_fields_opts(sb, used, &fo);
	ffu__cl_emit_vector_fields(sb, used_vec);
	const ffu_computation *entry = m->entry;
	for (int i = 0; i < entry->n_insts; i++) {
		const ffu_inst *in = entry->insts[i];
		if (in->op != FFU_OP_FUSION)
			continue;
		int k = pk->n++;
		ffu_fusion_kernels *fk = &pk->fusions[k];
		ffu_status st = ffu__codegen_is_reduction(in)
					? emit_reduce_kernels(sb, fk, in, k, t->fold == FFU_FOLD_SERIAL, e)
					: emit_loop_kernel(sb, fk, in, k, lanes, e);
		if (st) {
			ffu__program_kernels_free(pk);
			return st;
		}
	}
	return ffu__sb_status(sb, e);
}
