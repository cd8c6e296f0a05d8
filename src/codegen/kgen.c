/*
 * codegen/kgen.c: the values of one kernel and their emission into its body (see kgen.h).
 *
 * Values are instructions at an index. A kernel iterates over one index space (its
 * outputs' elements, or for a reduction the reduced operand's elements); an index op
 * (broadcast, slice, reshape, concatenate) does not move data, it asks for its operand at
 * another index, computed from the consumer's index by integer arithmetic (index-map
 * fusion). So each instruction may be needed at several indices (slice even and odd of one
 * array: two loads), and a value is the pair (instruction, index variable). The plan runs
 * backwards from the outputs, recording which value of which operand each value reads;
 * emission then runs forwards in definition order. Both are iterative: a 20000-op chain
 * does not recurse. Emission writes a kernel body (codegen/body.h: typed statements whose
 * locals, indices and field names are typed holes), and each kernel variant prints
 * that body its own way (body.c, wide.c); nothing reads generated text back.
 *
 * Forms (canonical c<v>, Montgomery m<v>), the conversions between them, and the loads and
 * stores at the storage form's boundary are codegen/kgen_form.c's; the products and
 * linear ops here choose among the forms their operands have.
 *
 * Columns (ffu__kgen_columns, for the NTT's first pass, codegen/fft.c): where the caller
 * knows the range of the main index's last coordinate, index variables that only shift
 * that coordinate are column variables (row base + column - offset, no division), a
 * concatenate along it reads the one operand the range lies in, and a zero constant so
 * read folds what it feeds (fold_zero), so a slot of zero padding costs nothing.
 *
 * The special element-wise ops (inverse, divide, power, convert, compare, select and the
 * ordered ops) are emitted by codegen/kgen_special.c, through codegen/kgen_impl.h.
 */
#include "codegen/kgen.h"
#include "codegen/kgen_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/field_cl.h"
#include "codegen/index.h"
#include "util/grow.h"


/* OpenCL type of values of f: the base field's, or u32_t / u64_t / pred_t (cl/common.cl). */
const char *ffu__kgen_cl_type(const ffu_field *f, char buf[64])
{
	return is_int(f) ? (snprintf(buf, 64, "%s_t", f->name), buf) : ffu__cl_type_name(f->base, buf);
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
	g->ix[g->nix] = (ixvar){.key = s, .in = in, .j = j, .base = base};
	return g->nix++;
}

/* The column variable of rows of n elements at column col - shift (kgen.h: ixvar). */
static int col_intern(kgen *g, int64_t n, int64_t shift)
{
	char key[64];
	snprintf(key, sizeof key, "col %lld %lld", (long long)n, (long long)shift);
	int k = ix_intern(g, key, NULL, 0, IX_MAIN);
	if (!g->oom && k > IX_ZERO) {
		g->ix[k].col = true;
		g->ix[k].col_n = n;
		g->ix[k].col_shift = shift;
	}
	return k;
}

void ffu__kgen_columns(kgen *g, int64_t n, int64_t lo, int64_t hi)
{
	g->cols.on = true;
	g->cols.n = n;
	g->cols.lo = lo;
	g->cols.hi = hi;
	g->ix[IX_MAIN].col = true;
	g->ix[IX_MAIN].col_n = n;
	g->ix[IX_MAIN].col_shift = 0;
}

/* Is concatenate `in` read at ix along its columns: ix a column variable of rows as long
   as its last dimension, which it concatenates? */
static bool concat_at_column(const kgen *g, const ffu_inst *in, int ix)
{
	const int d = in->shape.rank - 1;
	return g->cols.on && g->ix[ix].col && d >= 0 && in->dims[0] == d && in->shape.dims[d] == g->ix[ix].col_n;
}

/*
 * Concatenate `in` read at index variable ix: the operand every column of ix lies in, or
 * -1 where it is not read along its columns or they span several operands (then it is
 * read as anywhere else: every operand clamped, one selected).
 */
static int concat_pick(const kgen *g, const ffu_inst *in, int ix)
{
	if (!concat_at_column(g, in, ix))
		return -1;
	const int d = in->shape.rank - 1;
	const int64_t lo = g->cols.lo - g->ix[ix].col_shift, hi = g->cols.hi - g->ix[ix].col_shift;
	int64_t off = 0;
	for (int j = 0; j < in->n_operands; j++) {
		int64_t nj = in->operands[j]->shape.dims[d];
		if (lo >= off && hi <= off + nj)
			return j;
		off += nj;
	}
	return -1;
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
	if (ffu__ops[in->op].kind != FFU_KIND_INDEX || in->op == FFU_OP_RESHAPE ||
	    (in->op == FFU_OP_DYNAMIC_UPDATE_SLICE && j == 0))
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
int ffu__kgen_value_at(kgen *g, int id, int ix)
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

/*
 * Concatenate value vn read at a column variable: logs concat_pick's answer (kgen.h:
 * cols.picks) and returns it. A picked operand is read at its own column variable (its
 * offset added to the shift), and every operand slot of vn holds that one value.
 */
static int plan_concat_column(kgen *g, int vn)
{
	const ffu_inst *in = inst_of(g, vn);
	const int ix = g->v[vn].ix, pick = concat_pick(g, in, ix), d = in->shape.rank - 1;
	if (!ffu__grow((void **)&g->cols.picks, &g->cols.cappicks, g->cols.npicks + 1, sizeof *g->cols.picks)) {
		g->oom = true;
		return -1;
	}
	g->cols.picks[g->cols.npicks++] = pick;
	if (pick < 0)
		return -1;
	int64_t off = 0;
	for (int j = 0; j < pick; j++)
		off += in->operands[j]->shape.dims[d];
	const ffu_inst *op = in->operands[pick];
	int ov = ffu__kgen_value_at(g, op->id, col_intern(g, op->shape.dims[d], g->ix[ix].col_shift + off));
	for (int j = 0; j < in->n_operands && ov >= 0; j++)
		g->opv[g->v[vn].ops + j] = ov;
	return pick;
}

/* Records, for every value requested so far, which operand values it reads (backwards). */
void ffu__kgen_plan(kgen *g)
{
	for (int id = g->fc->n_insts - 1; id >= 0 && !g->oom; id--) {
		const ffu_inst *in = g->fc->insts[id];
		if (in->op == FFU_OP_TUPLE || in->op == FFU_OP_REDUCE || in->op == FFU_OP_FFT || in->op == FFU_OP_DOT)
			continue; /* outputs: their operands were requested by the caller; an fft's
				     result is the last pass's value (codegen/fft.c), a dot's the sum its
				     kernel computed (codegen/dot.c) */
		for (int vn = g->first[id]; vn >= 0 && !g->oom; vn = g->v[vn].next) {
			if (!ffu__grow((void **)&g->opv, &g->capopv, g->nopv + in->n_operands + 1, sizeof *g->opv)) {
				g->oom = true;
				return;
			}
			g->v[vn].ops = g->nopv;
			g->nopv += in->n_operands;
			if (in->op == FFU_OP_CONCATENATE && concat_at_column(g, in, g->v[vn].ix) &&
			    plan_concat_column(g, vn) >= 0)
				continue;
			for (int j = 0; j < in->n_operands; j++) {
				int oix = operand_ix(g, in, j, g->v[vn].ix);
				int ov = ffu__kgen_value_at(g, in->operands[j]->id, oix);
				if (ov < 0)
					return;
				g->opv[g->v[vn].ops + j] = ov;
			}
		}
	}
}

/* ---- emission ---- */

int ffu__kgen_resolve(const kgen *g, int vn)
{
	while (g->v[vn].alias >= 0)
		vn = g->v[vn].alias;
	return vn;
}

static void emit_linear(kgen *g, int vn)
{
	const ffu_inst *in = inst_of(g, vn);
	const ffu_field *f = field_of(g, vn);
	char form = ffu__kgen_common_form(g, vn, 0, in->n_operands);
	ffu__kgen_decl(g, vn, form);
	ffu__body_printf(g->b, "%F(", f->base, ffu__ops[in->op].field_fn);
	for (int j = 0; j < in->n_operands; j++)
		ffu__body_printf(g->b, "%s%L", j ? ", " : "", form, ffu__kgen_resolve(g, opval(g, vn, j)));
	ffu__body_printf(g->b, ");\n");
	ffu__kgen_set_form(g, vn, form);
}

static void emit_product(kgen *g, int vn)
{
	const ffu_field *f = field_of(g, vn);
	/* square(x) is x * x: the same code as multiply(x, x) */
	int a = ffu__kgen_resolve(g, opval(g, vn, 0)), b = ffu__kgen_resolve(g, opval_b(g, vn));
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
	if (!ffu__kgen_has(g, a, 'm') && !ffu__kgen_has(g, b, 'm') && ffu__cl_has_mulc(f->base) && g->mul_uses[conv_in->id] <= 1) {
		ffu__kgen_need(g, a, 'c');
		ffu__kgen_need(g, b, 'c');
		ffu__kgen_decl(g, vn, 'c');
		ffu__body_printf(g->b, "%F(%L, %L);\n", f->base, "mulc", 'c', a, 'c', b);
		ffu__kgen_set_form(g, vn, 'c');
		return;
	}
	if (a == b) {
		ffu__kgen_need(g, a, 'm');
		if (!ffu__kgen_has(g, a, 'c')) { /* (aR)^2 / R = a^2 R */
			ffu__kgen_decl(g, vn, 'm');
			ffu__body_printf(g->b, "%F(%L);\n", f->base, "sqr", 'm', a);
			ffu__kgen_set_form(g, vn, 'm');
		} else { /* aR * a / R = a^2 */
			ffu__kgen_need(g, a, 'c'); /* a literal has both forms but neither is declared yet */
			ffu__kgen_decl(g, vn, 'c');
			ffu__body_printf(g->b, "%F(%L, %L);\n", f->base, "mul", 'm', a, 'c', a);
			ffu__kgen_set_form(g, vn, 'c');
		}
		return;
	}
	char fa, fb, fr;
	if (ffu__kgen_has(g, a, 'm') && ffu__kgen_has(g, b, 'c')) {
		fa = 'm', fb = 'c', fr = 'c';
	} else if (ffu__kgen_has(g, a, 'c') && ffu__kgen_has(g, b, 'm')) {
		fa = 'c', fb = 'm', fr = 'c';
	} else if (ffu__kgen_has(g, a, 'm') && ffu__kgen_has(g, b, 'm')) {
		fa = 'm', fb = 'm', fr = 'm';
	} else if (g->uses[g->v[b].inst] > g->uses[g->v[a].inst]) {
		/* both canonical only: convert the more used one (x * y * y * y: y once) */
		fa = 'c', fb = 'm', fr = 'c';
	} else {
		fa = 'm', fb = 'c', fr = 'c';
	}
	ffu__kgen_need(g, a, fa);
	ffu__kgen_need(g, b, fb);
	ffu__kgen_decl(g, vn, fr);
	ffu__body_printf(g->b, "%F(%L, %L);\n", f->base, "mul", fa, a, fb, b);
	ffu__kgen_set_form(g, vn, fr);
}

static void emit_iota(kgen *g, int vn)
{
	const ffu_inst *in = inst_of(g, vn);
	const ffu_field *f = field_of(g, vn);
	ffu__kgen_decl(g, vn, 'c');
	if (f->is_signed) /* the index mod 2^bits, as the interpreter's two's complement pattern */
		ffu__body_printf(g->b, "as_%s((%s)", cl_int_type(f, true), cl_int_type(f, false));
	else if (is_int(f))
		ffu__body_printf(g->b, "(%F)", f, "t");
	else
		ffu__body_printf(g->b, "%F((ulong)", f->base, "from_u64");
	ffu__body_printf(g->b, "%C%s", g->v[vn].ix, in->shape.dims, in->shape.rank, (int)in->index,
			 f->is_signed ? ");\n" : is_int(f) ? ";\n" : ");\n");
	ffu__kgen_set_form(g, vn, 'c');
}

/* concatenate: every operand was read at an index clamped into its range; pick the right one. */
static void emit_concatenate(kgen *g, int vn)
{
	const ffu_inst *in = inst_of(g, vn);
	int d = (int)in->dims[0];
	char form = ffu__kgen_common_form(g, vn, 0, in->n_operands);
	ffu__kgen_decl(g, vn, form);
	int64_t off = 0;
	for (int j = 0; j < in->n_operands - 1; j++) {
		off += in->operands[j]->shape.dims[d];
		ffu__body_printf(g->b, "(%C < %lluUL) ? %L : ", g->v[vn].ix, in->shape.dims, in->shape.rank, d,
				 (unsigned long long)off, form, ffu__kgen_resolve(g, opval(g, vn, j)));
	}
	ffu__body_printf(g->b, "%L;\n", form, ffu__kgen_resolve(g, opval(g, vn, in->n_operands - 1)));
	ffu__kgen_set_form(g, vn, form);
}

/*
 * dynamic-update-slice: the update was read at the clamped index (coordinate - start) and
 * the operand at the value's own; the update where every coordinate is inside the window
 * (coordinate - start < the update's size, in ulong: below the start wraps past it).
 */
static void emit_dynamic_update_slice(kgen *g, int vn)
{
	const ffu_inst *in = inst_of(g, vn);
	const ffu_shape *s = &in->shape, *u = &in->operands[1]->shape;
	char form = ffu__kgen_common_form(g, vn, 0, 2);
	ffu__kgen_decl(g, vn, form);
	ffu__body_printf(g->b, "(1");
	for (int d = 0; d < s->rank; d++) {
		ffu_strbuf st = {0};
		ffu__index_dyn_start(&st, in, d);
		g->oom |= st.oom;
		ffu__body_printf(g->b, " && %C - %s < %lluUL", g->v[vn].ix, s->dims, s->rank, d, ffu__sb_cstr(&st),
				 (unsigned long long)u->dims[d]);
		ffu__sb_free(&st);
	}
	ffu__body_printf(g->b, ") ? %L : %L;\n", form, ffu__kgen_resolve(g, opval(g, vn, 1)), form,
			 ffu__kgen_resolve(g, opval(g, vn, 0)));
	ffu__kgen_set_form(g, vn, form);
}

static const unsigned char zero_bytes[FFU_FIELD_MAX_BYTES];

bool ffu__kgen_zero(const kgen *g, int vn)
{
	const val *v = &g->v[ffu__kgen_resolve(g, vn)];
	return v->literal && memcmp(v->literal, zero_bytes, field_of(g, vn)->storage_bytes) == 0;
}

/*
 * Operands known to be zero: a constant 0 read through a concatenate that columns
 * resolved (ffu__kgen_columns; the simplify pass has folded every other x * 0 and x + 0
 * away). A product by one, a negation or a sum of them is zero, a sum with one or a
 * difference less one is the other operand: no code. Zero's storage is all zero bits in
 * every element type (0 R = 0 for _mont). Whether it folded vn.
 */
static bool fold_zero(kgen *g, int vn)
{
	const ffu_inst *in = inst_of(g, vn);
	const bool product = ffu__ops[in->op].form == FFU_FORM_BILINEAR; /* multiply, square */
	if (!product && in->op != FFU_OP_ADD && in->op != FFU_OP_SUBTRACT && in->op != FFU_OP_NEGATE)
		return false;
	const int a = opval(g, vn, 0), b = opval_b(g, vn);
	const bool za = ffu__kgen_zero(g, a), zb = ffu__kgen_zero(g, b);
	if ((za && zb) || (product && (za || zb)))
		g->v[vn].literal = zero_bytes;
	else if (zb && in->op != FFU_OP_NEGATE)
		g->v[vn].alias = ffu__kgen_resolve(g, a);
	else if (za && in->op == FFU_OP_ADD)
		g->v[vn].alias = ffu__kgen_resolve(g, b);
	else
		return false;
	return true;
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
			ffu__kgen_emit_load(g, vn);
		}
		return FFU_STATUS_OK;
	case FFU_KIND_INDEX:
		if ((in->op == FFU_OP_DYNAMIC_SLICE || in->op == FFU_OP_DYNAMIC_UPDATE_SLICE) &&
		    !ffu__index_dyn_start_ok(in))
			return ffu__err(e, FFU_STATUS_EUNSUPPORTED,
					"codegen: %s '%%%s' with a start index computed in the same fusion", ffu__ops[in->op].keyword,
					in->name);
		/* the kernel would read the empty update's (padded) buffer; it is the operand,
		   which the simplify pass substitutes */
		if (in->op == FFU_OP_DYNAMIC_UPDATE_SLICE && ffu__shape_count(&in->operands[1]->shape) == 0 &&
		    ffu__shape_count(&in->shape) > 0)
			return ffu__err(e, FFU_STATUS_EUNSUPPORTED,
					"codegen: dynamic-update-slice '%%%s' with an empty update and the simplify pass disabled",
					in->name);
		if (in->op == FFU_OP_CONCATENATE && in->n_operands > 1 && concat_pick(g, in, g->v[vn].ix) < 0)
			emit_concatenate(g, vn);
		else if (in->op == FFU_OP_DYNAMIC_UPDATE_SLICE)
			emit_dynamic_update_slice(g, vn);
		else /* the operand's value at the index this op computed: nothing to emit */
			g->v[vn].alias = opval(g, vn, 0);
		return FFU_STATUS_OK;
	case FFU_KIND_ELEMENTWISE:
		if (fold_zero(g, vn) || ffu__kgen_emit_point(g, vn))
			return FFU_STATUS_OK;
		if (ffu__ops[in->op].form == FFU_FORM_BILINEAR)
			emit_product(g, vn);
		else if (ffu__ops[in->op].form == FFU_FORM_SPECIAL)
			ffu__kgen_emit_special(g, vn);
		else
			emit_linear(g, vn);
		return FFU_STATUS_OK;
	case FFU_KIND_TRANSFORM:
	case FFU_KIND_CONTRACT:
		/* the fusion pass lets an fft's or a dot's result be read element-wise only */
		if (g->v[vn].ix != IX_MAIN && in->shape.rank != 0) /* a scalar's index is IX_ZERO */
			return ffu__err(e, FFU_STATUS_EUNSUPPORTED, "codegen: %s read at another index", in->name);
		if (in->op == FFU_OP_FFT) {
			ffu__kgen_emit_load(g, vn);
		} else { /* the dot kernel hands its sum to ffu_k<k>_y in form fv_form (codegen/dot.c) */
			ffu__kgen_decl(g, vn, g->fv_form);
			ffu__body_printf(g->b, "fv;\n");
			ffu__kgen_set_form(g, vn, g->fv_form);
		}
		return FFU_STATUS_OK;
	default:
		return ffu__err(e, FFU_STATUS_EUNSUPPORTED, "codegen: %s inside a fusion", ffu__ops[in->op].keyword);
	}
}

/* Column variable k: rb / n * col_n + col - col_shift (rb: a multiple of n). */
static void emit_column(kgen *g, int k)
{
	const ixvar *x = &g->ix[k];
	ffu__body_stmt(g->b, FFU_STMT_INDEX, k, FFU_VF_C);
	ffu__body_printf(g->b, "\tconst ulong %I = ", k);
	if (x->col_n == g->cols.n)
		ffu__body_printf(g->b, "rb");
	else
		ffu__body_printf(g->b, "rb / %lluUL * %lluUL", (unsigned long long)g->cols.n, (unsigned long long)x->col_n);
	ffu__body_printf(g->b, " + col");
	if (x->col_shift)
		ffu__body_printf(g->b, " - %lluUL", (unsigned long long)x->col_shift);
	ffu__body_printf(g->b, ";\n");
}

/* Emits the index variables (after the kernel's own) and every planned value, in order. */
ffu_status ffu__kgen_emit_body(kgen *g, ffu_error *e)
{
	if (g->oom)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory generating kernels");
	/* the scalars' index, where some value or index variable reads one */
	bool zero = false;
	for (int vn = 0; vn < g->nv && !zero; vn++)
		zero = g->v[vn].ix == IX_ZERO;
	for (int k = IX_ZERO + 1; k < g->nix && !zero; k++)
		zero = !g->ix[k].col && g->ix[k].base == IX_ZERO;
	if (zero) {
		ffu__body_stmt(g->b, FFU_STMT_INDEX, IX_ZERO, FFU_VF_C);
		ffu__body_printf(g->b, "\tconst ulong %I = 0;\n", IX_ZERO);
	}
	for (int k = IX_ZERO + 1; k < g->nix; k++) {
		if (g->ix[k].col) { /* rb and col: the caller's (ffu__kgen_columns); rb / n is uniform */
			emit_column(g, k);
			continue;
		}
		ffu__body_stmt(g->b, FFU_STMT_INDEX, k, FFU_VF_C);
		ffu__body_printf(g->b, "\tconst ulong %I = %E;\n", k, g->ix[k].in, g->ix[k].j, g->ix[k].base);
	}
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

ffu_status ffu__kgen_init(kgen *g, const ffu_computation *fc, const char *main_ix, ffu_error *e)
{
	memset(g, 0, sizeof *g);
	g->b = &g->body;
	g->fv_form = 'c';
	ffu__body_init(g->b, main_ix);
	g->fc = fc;
	g->first = malloc(sizeof(int) * (size_t)(fc->n_insts + 1));
	g->uses = ffu__comp_use_counts(fc);
	g->mul_uses = calloc((size_t)fc->n_insts + 1, sizeof *g->mul_uses);
	for (int i = 0; g->mul_uses && i < fc->n_insts; i++) {
		const ffu_inst *in = fc->insts[i];
		if (ffu__ops[in->op].form != FFU_FORM_BILINEAR) /* multiply, square */
			continue;
		g->mul_uses[in->operands[0]->id]++;
		if (in->n_operands > 1 && in->operands[1] != in->operands[0])
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

void ffu__kgen_free(kgen *g)
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
	free(g->cols.picks);
}

int ffu__kgen_outputs(const ffu_computation *fc, const ffu_inst *const **outs)
{
	const ffu_inst *root = fc->root;
	*outs = root->op == FFU_OP_TUPLE ? (const ffu_inst *const *)root->operands : (const ffu_inst *const *)&fc->root;
	return root->op == FFU_OP_TUPLE ? root->n_operands : 1;
}
