/*
 * codegen/kgen_form.c: the forms of a kernel's values (see kgen.h): each value's
 * definition statement, the forms it has, the conversions between them, constants folded
 * into a form, and the boundary with storage: loads of parameters (and of an fft's or a
 * dot's result) and stores and returns of outputs.
 *
 * Montgomery bookkeeping: each value may exist in canonical form (c<v>) and/or Montgomery
 * form (m<v>); conversions are emitted on demand and at most once per value. A product of
 * a Montgomery and a canonical operand is canonical (a R * b / R = a b), so `x*x - x` costs
 * one conversion and one product (none where the field multiplies canonical values: mulc;
 * test_pipeline's statement_plan reads both from the plan), and linear ops (add, sub,
 * negate, select) work on either form. Constants are folded on the host into whichever
 * form a use wants, for free.
 *
 * A `<field>_mont` value is held as its base field's value (c or m form) and computes with
 * the base field's functions: where the user radix equals the device radix (31-bit
 * Montgomery and 256-bit fields) a loaded _mont value simply is the m form, and storing one
 * stores the m form; the canonical templates (Mersenne31, Goldilocks) convert at load and
 * store with one product by a constant. convert between a field and its _mont twin is
 * therefore free (an alias). An extension's _mont twin (coefficients in the prime's _mont
 * form) follows the same rules with the extension's functions: over mont31 its load is
 * the m form; over Mersenne31 and Goldilocks each coefficient is multiplied by R_mont^-1
 * or R_mont (the extension's scale_ by the constant (R_mont^+-1, 0, ...): d products, not
 * a full product's d^2). u32/u64/pred values exist only in c form (the integer).
 *
 */
#include "codegen/kgen.h"
#include "codegen/kgen_impl.h"

#include <string.h>

#include "codegen/field_cl.h"

bool ffu__kgen_mont_is_dev(const ffu_field *f)
{
	return f->mont_radix_bits == f->base->dev_radix_bits;
}

/* The field whose <name>_t types values of f: the base field's, or u32/u64/pred's own. */
static const ffu_field *type_field(const ffu_field *f)
{
	return is_int(f) ? f : f->base;
}

void ffu__kgen_def(kgen *g, int vn, char form, ffu_stmt_op sop)
{
	const ffu_field *f = field_of(g, vn);
	ffu__body_def(g->b, is_point(f) ? f : type_field(f), (ffu_vform)form, vn, sop, inst_of(g, vn)->op);
	ffu__body_printf(g->b, " = ");
}

/* A value defined by its instruction's own code: a constant, a load (a parameter's
   element, an fft's or a dot's result handed in), or its op. */
void ffu__kgen_decl(kgen *g, int vn, char form)
{
	const ffu_inst *in = inst_of(g, vn);
	const ffu_op_kind kind = ffu__ops[in->op].kind;
	ffu_stmt_op sop = FFU_SOP_OP;
	if (g->v[vn].literal)
		sop = FFU_SOP_CONST;
	else if (in->op == FFU_OP_PARAMETER || kind == FFU_KIND_TRANSFORM || kind == FFU_KIND_CONTRACT)
		sop = FFU_SOP_LOAD;
	ffu__kgen_def(g, vn, form, sop);
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

void ffu__kgen_set_form(kgen *g, int vn, char form)
{
	if (form == 'c')
		g->v[vn].has_c = true;
	else
		g->v[vn].has_m = true;
}

/* Makes value vn available in form 'c' or 'm' (emitting a conversion if needed). */
void ffu__kgen_need(kgen *g, int vn, char form)
{
	vn = ffu__kgen_resolve(g, vn);
	val *v = &g->v[vn];
	if ((form == 'c' && v->has_c) || (form == 'm' && v->has_m))
		return;
	const ffu_field *f = field_of(g, vn);
	if (is_point(f)) { /* form m only; every other point value has it */
		if (v->literal)
			ffu__kgen_point_const(g, vn);
		return;
	}
	ffu__kgen_def(g, vn, form, v->literal ? FFU_SOP_CONST : form == 'm' ? FFU_SOP_TO_MONT : FFU_SOP_FROM_MONT);
	if (v->literal && f->is_signed) { /* its bits as a long (as_long: no out-of-range cast) */
		ffu__body_printf(g->b, "(%F)as_long(0x%llxUL)", f, "t",
				 (unsigned long long)ffu__fp_get_i64(f, v->literal));
	} else if (v->literal && is_int(f)) {
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
	ffu__kgen_set_form(g, vn, form);
}

bool ffu__kgen_has(const kgen *g, int vn, char form)
{
	const val *v = &g->v[ffu__kgen_resolve(g, vn)];
	if (is_point(field_of(g, vn)))
		return form == 'm' && (v->literal || v->has_m);
	return v->literal || (form == 'c' ? v->has_c : v->has_m);
}

/*
 * The form in which operands first..first+n-1 of vn are all available (c preferred),
 * converting what lacks it. Integer and pred values only ever have c, so they get c.
 */
char ffu__kgen_common_form(kgen *g, int vn, int first, int n)
{
	bool all_c = true;
	for (int j = first; j < first + n; j++)
		all_c &= ffu__kgen_has(g, opval(g, vn, j), 'c');
	char form = all_c ? 'c' : 'm';
	for (int j = first; j < first + n; j++)
		ffu__kgen_need(g, opval(g, vn, j), form);
	return form;
}

/*
 * The stored value read by a load: parameter `in` at the value's index, or an fft's result,
 * which the last NTT pass hands its store function as `fv` (codegen/fft.c), in storage form.
 * A CSR matrix parameter (ir/csr.c) is read at its stored entry: the value's words one by
 * one, since ZKX's layout puts the values at a word offset that a wider load (a 64-bit
 * field's ulong) may not be aligned for (codegen/dot.c).
 */
static void print_src(kgen *g, int vn, const ffu_field *ft)
{
	const ffu_inst *in = inst_of(g, vn);
	if (in->op == FFU_OP_FFT) {
		ffu__body_printf(g->b, "fv");
	} else if (in->shape.csr) {
		size_t w = ffu__cl_words(ft), off = ffu__csr_values_offset(&in->shape) / 4;
		ffu__body_printf(g->b, "%F(", ft, "make");
		for (size_t k = 0; k < w; k++)
			ffu__body_printf(g->b, "%sin%lld[%zuUL + %I * %zuUL]", k ? ", " : "", (long long)in->index, off + k,
					 g->v[vn].ix, w);
		ffu__body_printf(g->b, ")");
	} else {
		ffu__body_printf(g->b, "%F(in%lld, %I)", ft, "load", (long long)in->index, g->v[vn].ix);
	}
}

/* Loads parameter (or fft result) `in` at the value's index into c and/or m form. */
void ffu__kgen_emit_load(kgen *g, int vn)
{
	const ffu_inst *in = inst_of(g, vn);
	const ffu_field *f = ffu__shape_field(&in->shape);
	if (is_point(f)) {
		ffu__kgen_point_load(g, vn);
		return;
	}
	if (is_int(f)) {
		ffu__kgen_decl(g, vn, 'c');
		print_src(g, vn, f);
		ffu__body_printf(g->b, ";\n");
		ffu__kgen_set_form(g, vn, 'c');
		return;
	}
	if (ffu__field_is_mont(f) && ffu__kgen_mont_is_dev(f)) {
		ffu__kgen_decl(g, vn, 'm');
		print_src(g, vn, f->base);
		ffu__body_printf(g->b, ";\n");
		ffu__kgen_set_form(g, vn, 'm');
		return;
	}
	ffu__kgen_decl(g, vn, 'c');
	if (ffu__field_is_mont(f)) {
		/* canonical template (R_dev = 1): x = stored * R_mont^-1, one canonical product */
		unsigned char one[FFU_FIELD_MAX_BYTES], rinv[FFU_FIELD_MAX_BYTES];
		ffu__fp_set_u64(f->base, one, 1);
		ffu__fp_convert(f->base, rinv, f, one);
		/* an extension's twin: (R^-1, 0, ...), coefficient-wise (scale_, cl/ext2.cl) */
		ffu__body_printf(g->b, "%F(", f->base, f->kind == FFU_ELEM_EXT ? "scale_" : "mul");
		print_src(g, vn, f->base);
		ffu__body_printf(g->b, ", ");
		emit_const(g, f->base, rinv);
		ffu__body_printf(g->b, ");\n");
	} else {
		print_src(g, vn, f);
		ffu__body_printf(g->b, ";\n");
	}
	ffu__kgen_set_form(g, vn, 'c');
}

/* Prints value vn in the storage form of type f (what `<base>_store` writes for f): the
   m form of a _mont type stored as the device's Montgomery form, else the canonical value
   (times R_mont for the other _mont types). */
static void emit_storage_value(kgen *g, const ffu_field *f, int vn)
{
	const ffu_field *fs = type_field(f);
	if (ffu__field_is_mont(f) && ffu__kgen_mont_is_dev(f)) {
		ffu__kgen_need(g, vn, 'm');
		ffu__body_printf(g->b, "%L", 'm', vn);
		return;
	}
	ffu__kgen_need(g, vn, 'c');
	if (ffu__field_is_mont(f)) {
		unsigned char r[FFU_FIELD_MAX_BYTES];
		ffu__fp_set_u64(f, r, 1); /* 1 as a _mont value: R_mont mod p */
		ffu__body_printf(g->b, "%F(%L, ", fs, f->kind == FFU_ELEM_EXT ? "scale_" : "mul", 'c', vn);
		emit_const(g, f->base, r);
		ffu__body_printf(g->b, ")");
		return;
	}
	ffu__body_printf(g->b, "%L", 'c', vn);
}

/* Stores value vn as output o (of type f, the output instruction's type) at the kernel's index. */
void ffu__kgen_emit_store(kgen *g, const ffu_field *f, int o, int vn)
{
	if (is_point(f)) {
		ffu__kgen_point_store(g, f, o, vn);
		return;
	}
	vn = ffu__kgen_resolve(g, vn);
	/* conversions first, on lines of their own */
	ffu__kgen_need(g, vn, ffu__field_is_mont(f) && ffu__kgen_mont_is_dev(f) ? 'm' : 'c');
	ffu__body_stmt(g->b, FFU_STMT_STORE, o, FFU_VF_C);
	ffu__body_printf(g->b, "\t%F(out%d, %I, ", type_field(f), "store", o, IX_MAIN);
	emit_storage_value(g, f, vn);
	ffu__body_printf(g->b, ");\n");
}

char ffu__kgen_emit_return_any(kgen *g, int vn)
{
	vn = ffu__kgen_resolve(g, vn);
	char form = ffu__kgen_has(g, vn, 'c') ? 'c' : 'm';
	ffu__kgen_need(g, vn, form);
	ffu__body_stmt(g->b, FFU_STMT_RETURN, -1, FFU_VF_C);
	ffu__body_printf(g->b, "\treturn %L;\n", form, vn);
	return form;
}

void ffu__kgen_emit_return(kgen *g, const ffu_field *f, int vn)
{
	vn = ffu__kgen_resolve(g, vn);
	ffu__kgen_need(g, vn, ffu__field_is_mont(f) && ffu__kgen_mont_is_dev(f) ? 'm' : 'c');
	ffu__body_stmt(g->b, FFU_STMT_RETURN, -1, FFU_VF_C);
	ffu__body_printf(g->b, "\treturn ");
	emit_storage_value(g, f, vn);
	ffu__body_printf(g->b, ";\n");
}
