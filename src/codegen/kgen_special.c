/*
 * codegen/kgen_special.c: emission of the special element-wise ops of a kernel's values
 * (see kgen.c for the plan and the Montgomery bookkeeping these follow): inverse and divide
 * (as the body's inversion statements), power (by a constant along an addition chain, or by
 * a run-time exponent), convert, compare (equality and the ordered directions), select, and
 * maximum/minimum/clamp. kgen.c's emit_value calls ffu__kgen_emit_special for every op of
 * form FFU_FORM_SPECIAL; the helpers both share are in codegen/kgen_impl.h.
 */
#include "codegen/kgen.h"
#include "codegen/kgen_impl.h"

#include <stdint.h>

#include "codegen/addchain.h"
#include "codegen/field_cl.h"

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
	ffu__kgen_need(g, x, 'm');
	/* declared, then defined in steps */
	ffu__body_def(g->b, fb, FFU_VF_M, vn, FFU_SOP_OP, inst_of(g, vn)->op);
	ffu__body_printf(g->b, ";\n");
	if (ev == 0) {
		ffu__body_stmt(g->b, FFU_STMT_STEP, vn, FFU_VF_M);
		ffu__body_printf(g->b, "\t%L = %F();\n", 'm', vn, fb, "one_m");
		ffu__kgen_set_form(g, vn, 'm');
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
		ffu__body_stmt(g->b, FFU_STMT_STEP, vn, FFU_VF_M);
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
	else if (n == 0) {
		ffu__body_stmt(g->b, FFU_STMT_STEP, vn, FFU_VF_M);
		ffu__body_printf(g->b, "\t%L = %L;\n", 'm', vn, 'm', x);
	}
	ffu__kgen_set_form(g, vn, 'm');
}

static void emit_compare_ordered(kgen *g, int vn, int a, int b);

static void emit_compare(kgen *g, int vn)
{
	const ffu_inst *in = inst_of(g, vn);
	int a = ffu__kgen_resolve(g, opval(g, vn, 0)), b = ffu__kgen_resolve(g, opval(g, vn, 1));
	const ffu_field *fa = field_of(g, a);
	const char *neg = in->direction == FFU_CMP_NE ? "!" : "";
	if (in->direction != FFU_CMP_EQ && in->direction != FFU_CMP_NE) {
		emit_compare_ordered(g, vn, a, b);
		return;
	}
	/* equal in one form iff equal in the other: compare where both already are */
	char form = ffu__kgen_common_form(g, vn, 0, 2);
	ffu__kgen_decl(g, vn, 'c');
	if (is_int(fa))
		ffu__body_printf(g->b, "(pred_t)%s(%L == %L);\n", neg, 'c', a, 'c', b);
	else
		ffu__body_printf(g->b, "(pred_t)%s%F(%L, %L);\n", neg, fa->base, "eq", form, a, form, b);
	ffu__kgen_set_form(g, vn, 'c');
}

/*
 * Ordered ops (ir/order.c): on canonical values, so both operands in c form (a _mont
 * operand pays its conversion); <field>_lt is each template's compare of canonical values,
 * u32/u64 compare as integers. Prints "a < b" for resolved values a and b.
 */
static void emit_lt(kgen *g, const ffu_field *f, int a, int b)
{
	if (is_int(f))
		ffu__body_printf(g->b, "(%L < %L)", 'c', a, 'c', b);
	else
		ffu__body_printf(g->b, "%F(%L, %L)", f->base, "lt", 'c', a, 'c', b);
}

/* compare LT/LE/GT/GE: a > b is b < a, a <= b is !(b < a), a >= b is !(a < b). */
static void emit_compare_ordered(kgen *g, int vn, int a, int b)
{
	const ffu_compare_dir d = inst_of(g, vn)->direction;
	ffu__kgen_need(g, a, 'c');
	ffu__kgen_need(g, b, 'c');
	ffu__kgen_decl(g, vn, 'c');
	ffu__body_printf(g->b, "(pred_t)%s", d == FFU_CMP_LE || d == FFU_CMP_GE ? "!" : "");
	bool swap = d == FFU_CMP_GT || d == FFU_CMP_LE;
	emit_lt(g, field_of(g, a), swap ? b : a, swap ? a : b);
	ffu__body_printf(g->b, ";\n");
	ffu__kgen_set_form(g, vn, 'c');
}

/*
 * maximum(a, b) = a >= b ? a : b, minimum(a, b) = a <= b ? a : b, clamp(lo, x, hi) =
 * minimum(maximum(lo, x), hi), as ZKX computes them; the result is canonical.
 */
static void emit_minmax(kgen *g, int vn)
{
	const ffu_inst *in = inst_of(g, vn);
	const ffu_field *f = field_of(g, vn);
	int o[3];
	for (int j = 0; j < in->n_operands; j++) {
		o[j] = ffu__kgen_resolve(g, opval(g, vn, j));
		ffu__kgen_need(g, o[j], 'c');
	}
	ffu__kgen_decl(g, vn, 'c');
	bool is_min = in->op == FFU_OP_MINIMUM;
	if (is_int(f)) {
		/*
		 * OpenCL's integer min and max (clamp's bounds may cross: XLA's clamp is min(max(x,
		 * lo), hi), OpenCL's clamp undefined then), 8- and 16-bit values widened to int (exact).
		 * Not `a < b ? b : a` on char: Mesa 22's llvmpipe (LLVM 15) crashed in LLVM's type
		 * legalization on that 8-bit select pair by two constants, an s8 clamp (the soak, seed 9).
		 */
		const char *w = f->bits < 32 ? "(int)" : "";
		ffu__body_printf(g->b, "(%F)", f, "t");
		if (in->op == FFU_OP_CLAMP)
			ffu__body_printf(g->b, "min(max(%s%L, %s%L), %s%L);\n", w, 'c', o[1], w, 'c', o[0], w, 'c', o[2]);
		else
			ffu__body_printf(g->b, "%s(%s%L, %s%L);\n", is_min ? "min" : "max", w, 'c', o[0], w, 'c', o[1]);
		ffu__kgen_set_form(g, vn, 'c');
		return;
	}
	/* maximum: b if a < b; minimum: b if b < a */
	emit_lt(g, f, is_min ? o[1] : o[0], is_min ? o[0] : o[1]);
	ffu__body_printf(g->b, " ? %L : %L;\n", 'c', o[1], 'c', o[0]);
	if (in->op == FFU_OP_CLAMP) { /* then the minimum with hi, in place */
		ffu__body_stmt(g->b, FFU_STMT_STEP, vn, FFU_VF_C);
		ffu__body_printf(g->b, "\t%L = ", 'c', vn);
		emit_lt(g, f, o[2], vn);
		ffu__body_printf(g->b, " ? %L : %L;\n", 'c', o[2], 'c', vn);
	}
	ffu__kgen_set_form(g, vn, 'c');
}

static void emit_select(kgen *g, int vn)
{
	int p = ffu__kgen_resolve(g, opval(g, vn, 0));
	ffu__kgen_need(g, p, 'c');
	char form = ffu__kgen_common_form(g, vn, 1, 2);
	ffu__kgen_decl(g, vn, form);
	ffu__body_printf(g->b, "%L ? %L : %L;\n", 'c', p, form, ffu__kgen_resolve(g, opval(g, vn, 1)), form,
			 ffu__kgen_resolve(g, opval(g, vn, 2)));
	ffu__kgen_set_form(g, vn, form);
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

void ffu__kgen_emit_special(kgen *g, int vn)
{
	const ffu_inst *in = inst_of(g, vn);
	const ffu_field *f = field_of(g, vn);
	int x = ffu__kgen_resolve(g, opval(g, vn, 0));
	switch (in->op) {
	case FFU_OP_INVERSE:
		ffu__kgen_need(g, x, 'm');
		emit_inv(g, f, 'm', vn, x);
		ffu__kgen_set_form(g, vn, 'm');
		return;
	case FFU_OP_DIVIDE: {
		/* a * (b^-1 in m form, w<vn>): m form when a is, canonical when a is */
		int b = ffu__kgen_resolve(g, opval(g, vn, 1));
		char fa = ffu__kgen_has(g, x, 'm') && !ffu__kgen_has(g, x, 'c') ? 'm' : 'c';
		ffu__kgen_need(g, b, 'm');
		ffu__kgen_need(g, x, fa);
		emit_inv(g, f, 'w', vn, b);
		ffu__kgen_decl(g, vn, fa);
		ffu__body_printf(g->b, "%F(%L, %L);\n", f->base, "mul", fa, x, 'w', vn);
		ffu__kgen_set_form(g, vn, fa);
		return;
	}
	case FFU_OP_POWER: {
		int ex = ffu__kgen_resolve(g, opval(g, vn, 1));
		const ffu_field *fe = field_of(g, ex);
		if (g->v[ex].literal) {
			emit_pow_const(g, vn, x, ffu__fp_get_u64(fe, g->v[ex].literal));
			return;
		}
		ffu__kgen_need(g, x, 'm');
		ffu__kgen_need(g, ex, 'c');
		ffu__kgen_decl(g, vn, 'm');
		if (fe->bits < 32) /* u8, u16: the u32 power of the widened exponent */
			ffu__body_printf(g->b, "%F_%s(%L, (uint)%L);\n", f->base, "pow", "u32", 'm', x, 'c', ex);
		else
			ffu__body_printf(g->b, "%F_%s(%L, %L);\n", f->base, "pow", fe->name, 'm', x, 'c', ex);
		ffu__kgen_set_form(g, vn, 'm');
		return;
	}
	case FFU_OP_CONVERT: {
		const ffu_field *fx = field_of(g, x);
		if (f->kind == FFU_ELEM_EXT && fx->kind != FFU_ELEM_EXT && !is_int(fx)) {
			/* prime field (or its _mont) into an extension: the constant coefficient, in
			   whichever form the value has (the embedding is linear) */
			char form = ffu__kgen_has(g, x, 'c') ? 'c' : 'm';
			ffu__kgen_need(g, x, form);
			ffu__kgen_decl(g, vn, form);
			ffu__body_printf(g->b, "%F(%L);\n", f->base, "from_base", form, x);
			ffu__kgen_set_form(g, vn, form);
			return;
		}
		if (!is_int(f) && !is_int(fx)) {
			/* field <-> _mont: the same base value; loads and stores apply the radix */
			g->v[vn].alias = x;
			return;
		}
		ffu__kgen_need(g, x, 'c');
		ffu__kgen_decl(g, vn, 'c');
		if (is_int(f) && is_int(fx) && f->is_signed) /* truncate or extend, then reinterpret */
			ffu__body_printf(g->b, "as_%s((%s)%L);\n", cl_int_type(f, true), cl_int_type(f, false), 'c', x);
		else if (is_int(f)) /* C's conversion: sign- or zero-extends by the source, truncates */
			ffu__body_printf(g->b, "(%F)%L;\n", f, "t", 'c', x);
		else if (fx->bits == 64) /* the integer's bit pattern (zero-extended), mod p */
			ffu__body_printf(g->b, "%F_%s((ulong)%L);\n", f->base, "from", "u64", 'c', x);
		else
			ffu__body_printf(g->b, "%F_%s((uint)(%s)%L);\n", f->base, "from", "u32", cl_int_type(fx, false), 'c', x);
		ffu__kgen_set_form(g, vn, 'c');
		return;
	}
	case FFU_OP_COMPARE:
		emit_compare(g, vn);
		return;
	case FFU_OP_SELECT:
		emit_select(g, vn);
		return;
	case FFU_OP_MAXIMUM:
	case FFU_OP_MINIMUM:
	case FFU_OP_CLAMP:
		emit_minmax(g, vn);
		return;
	default:
		return;
	}
}
