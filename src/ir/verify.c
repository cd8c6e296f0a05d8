/*
 * src/ir/verify.c: the rules every module must satisfy, whether it came from HLO text or
 * from the builder API, checked before any pass, interpreter or code generator sees it.
 * Owned by the HLO front end; later ops add their rules in check_inst's switch.
 * This file is the framework (context and error helpers, check_inst's dispatch, element-wise
 * ops, constants, tuples, reduce and fusion callees, computations, names, where sparse
 * arrays may be); the rules of the layout/index ops and the fft live in ir/verify_ops.c,
 * sharing ir/verify_impl.h, dot's in ir/dot.c.
 *
 * The rules are XLA's shape rules for every opcode (docs/hlo.md section 3), narrowed where
 * fieldfuse is stricter on purpose (ordered ops only on ordered types: ir/order.c, broadcast
 * dimensions increasing, reduce only by a sum or product). Violations are FFU_STATUS_EVERIFY.
 * Errors carry the instruction's source position (0:0 for built modules) and name it, so
 * API users can find it too.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "ir/verify_impl.h"

static int comp_index(const vctx *v, const ffu_computation *c)
{
	return ffu__comp_pos_find(v->pos, v->m->n_comps, c);
}

static ffu_status inst_err_v(ffu_error *e, ffu_status st, const char *file, const ffu_inst *in, const char *fmt,
			     va_list ap)
{
	char msg[768];
	vsnprintf(msg, sizeof msg, fmt, ap);
	return ffu__err_at(e, st, file, in->line, in->col, "'%%%s' (%s): %s", in->name ? in->name : "?",
			   ffu__ops[in->op].keyword, msg);
}

ffu_status ffu__verify_inst_err(const vctx *v, ffu_status st, const ffu_inst *in, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ffu_status r = inst_err_v(v->e, st, v->file, in, fmt, ap);
	va_end(ap);
	return r;
}

ffu_status ffu__verify_err(ffu_error *e, const char *file, const ffu_inst *in, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ffu_status r = inst_err_v(e, FFU_STATUS_EVERIFY, file, in, fmt, ap);
	va_end(ap);
	return r;
}

/* Structural validity of a shape; depth guards against a cyclic or corrupt elems chain. */
static ffu_status check_shape(const vctx *v, const ffu_inst *in, const ffu_shape *s, int depth)
{
	if (depth > 64)
		return IERR(FFU_STATUS_EVERIFY, in, "tuple shape nested too deeply");
	if (s->type == FFU_TYPE_TUPLE) {
		if (s->n_elems < 0 || (s->n_elems > 0 && !s->elems))
			return IERR(FFU_STATUS_EVERIFY, in, "malformed tuple shape");
		for (int i = 0; i < s->n_elems; i++) {
			ffu_status st = check_shape(v, in, &s->elems[i], depth + 1);
			if (st)
				return st;
		}
		return FFU_STATUS_OK;
	}
	if (s->type < 0 || s->type >= FFU_TYPE_TUPLE)
		return IERR(FFU_STATUS_EVERIFY, in, "invalid element type %d", (int)s->type);
	if (s->rank < 0 || s->rank > FFU_MAX_RANK)
		return IERR(FFU_STATUS_EVERIFY, in, "rank %d is outside 0..%d", s->rank, FFU_MAX_RANK);
	/* Every later count (ffu__shape_count, byte sizes, index arithmetic) relies on this. */
	int64_t count = 1;
	for (int i = 0; i < s->rank; i++) {
		if (s->dims[i] < 0)
			return IERR(FFU_STATUS_EVERIFY, in, "negative dimension %lld", (long long)s->dims[i]);
		if (s->dims[i] > 0 && count > INT64_MAX / s->dims[i])
			return IERR(FFU_STATUS_EVERIFY, in, "shape has more than 2^63 elements");
		count *= s->dims[i];
	}
	return FFU_STATUS_OK;
}

/*
 * CSR sparse matrices (ir/csr.c): a rank-2 field array of at most 2^32 - 1 rows and stored
 * entries (u32 row pointers), NNZ within the element count. Only a parameter holds one
 * (a sparse result is ZKX's "Unhandled sparse array layout"), and only dot's lhs or a
 * fusion (whose parameter then is one) reads one.
 */
static ffu_status check_sparse(const vctx *v, const ffu_inst *in)
{
	char a[160];
	const ffu_shape *s = &in->shape;
	if (s->type != FFU_TYPE_TUPLE && s->csr) {
		fmt_shape(s, a, sizeof a);
		if (in->op != FFU_OP_PARAMETER)
			return IERR(FFU_STATUS_EVERIFY, in, "result %s is sparse: sparse results are not supported (only a "
				    "parameter may have a sparse layout, the lhs of a dot)", a);
		ffu_elem_kind k = ffu__shape_field(s)->kind;
		if (s->rank != 2 || (k != FFU_ELEM_PRIME && k != FFU_ELEM_MONT && k != FFU_ELEM_EXT))
			return IERR(FFU_STATUS_EVERIFY, in, "a CSR sparse array is a rank-2 array of a field type, not %s", a);
		if (s->nnz < 0 || s->nnz > ffu__shape_count(s) || s->dims[0] >= (int64_t)UINT32_MAX ||
		    s->nnz > (int64_t)UINT32_MAX)
			return IERR(FFU_STATUS_EVERIFY, in, "%s: NNZ must lie in 0..rows x columns, and rows and NNZ below 2^32 "
				    "(u32 row pointers and column indices)", a);
	}
	for (int j = 0; j < in->n_operands; j++) {
		const ffu_shape *o = &in->operands[j]->shape;
		if (o->type == FFU_TYPE_TUPLE || !o->csr || (in->op == FFU_OP_DOT && j == 0) || in->op == FFU_OP_FUSION)
			continue;
		return IERR(FFU_STATUS_EVERIFY, in, "operand %d ('%%%s') is the CSR sparse matrix %s: only the lhs of a dot "
			    "reads a sparse array", j, in->operands[j]->name, fmt_shape(o, a, sizeof a));
	}
	return FFU_STATUS_OK;
}

/* The types field arithmetic is defined on: every element type but the integers and pred. */
static bool is_field(const ffu_shape *s)
{
	return is_array(s) && elem_kind(s) != FFU_ELEM_UINT && elem_kind(s) != FFU_ELEM_PRED;
}

/* Canonical storage bytes are < p (little-endian bytes against p's 64-bit limbs). */
static bool elem_canonical(const ffu_field *f, const unsigned char *x)
{
	return ffu__fp_canonical(f, x); /* u32/u64: every bit pattern is a value */
}

/* Operand j must be an array; most ops check this first. */
ffu_status ffu__verify_need_array(const vctx *v, const ffu_inst *in, int j)
{
	char a[160];
	const ffu_shape *x = &in->operands[j]->shape;
	if (!is_array(x))
		return IERR(FFU_STATUS_EVERIFY, in, "operand %d ('%%%s') must be an array, not %s", j,
			    in->operands[j]->name, fmt_shape(x, a, sizeof a));
	return FFU_STATUS_OK;
}

/*
 * power(x, e): x a field array, e a u32/u64 array of x's dimensions, result = x's shape.
 * convert(x): same dimensions, and a conversion fields/field.c defines between the types.
 */
static ffu_status check_power_convert(const vctx *v, const ffu_inst *in)
{
	char a[160], b[160];
	const ffu_shape *s = &in->shape, *x = &in->operands[0]->shape;
	ffu_status st = ffu__verify_need_array(v, in, 0);
	if (st)
		return st;
	if (in->op == FFU_OP_CONVERT) {
		if (!ffu__shape_same_dims(x, s))
			return IERR(FFU_STATUS_EVERIFY, in, "operand %s and result %s must have the same dimensions",
				    fmt_shape(x, a, sizeof a), fmt_shape(s, b, sizeof b));
		if (x->type == FFU_TYPE_PRED || s->type == FFU_TYPE_PRED)
			return IERR(FFU_STATUS_EVERIFY, in, "no conversion from %s to %s: pred converts are not supported (use select)",
				    ffu__type_name(x->type), ffu__type_name(s->type));
		const ffu_field *ft = ffu__shape_field(s), *fx = ffu__shape_field(x);
		if (fx->kind == FFU_ELEM_UINT && (ft->kind == FFU_ELEM_PRIME || ft->kind == FFU_ELEM_MONT) &&
		    !ffu__fp_convert_ok(ft, fx))
			return IERR(FFU_STATUS_EVERIFY, in,
				    "cannot convert integer to prime field with smaller width (as ZKX): %s is %d bits, %s stores %zu",
				    fx->name, fx->bits, ft->name, 8 * ft->storage_bytes);
		if (!ffu__fp_convert_ok(ft, fx))
			return IERR(FFU_STATUS_EVERIFY, in,
				    "no conversion from %s to %s (integer -> integer, integer -> field, field <-> field_mont, 31-bit field -> u32, goldilocks -> u64)",
				    ffu__type_name(x->type), ffu__type_name(s->type));
		return FFU_STATUS_OK;
	}
	const ffu_shape *e = &in->operands[1]->shape;
	if (!ffu__shape_eq(x, s))
		return IERR(FFU_STATUS_EVERIFY, in, "operand 0 ('%%%s') has shape %s, expected the result shape %s",
			    in->operands[0]->name, fmt_shape(x, a, sizeof a), fmt_shape(s, b, sizeof b));
	if (!is_field(s))
		return IERR(FFU_STATUS_EVERIFY, in, "power needs a field base, not %s", ffu__type_name(s->type));
	/* ZKX refuses a signed exponent (cpu_kernel_emitter.cc EmitFieldBinaryOp: InvalidArgument) */
	if (is_array(e) && ffu__shape_field(e)->is_signed)
		return IERR(FFU_STATUS_EVERIFY, in,
			    "the exponent for a power operation on a field must be an unsigned integer: '%%%s' is %s (as ZKX)",
			    in->operands[1]->name, fmt_shape(e, a, sizeof a));
	if (!is_array(e) || !ffu__shape_same_dims(e, s) || elem_kind(e) != FFU_ELEM_UINT)
		return IERR(FFU_STATUS_EVERIFY, in, "exponent ('%%%s') is %s; it must be u8, u16, u32 or u64 with the dimensions of %s",
			    in->operands[1]->name, fmt_shape(e, a, sizeof a), fmt_shape(s, b, sizeof b));
	return FFU_STATUS_OK;
}

/* compare(a, b): a and b of one shape (any type but pred), result pred of their dimensions. */
static ffu_status check_compare(const vctx *v, const ffu_inst *in)
{
	char a[160], b[160];
	const ffu_shape *s = &in->shape, *x = &in->operands[0]->shape, *y = &in->operands[1]->shape;
	for (int j = 0; j < 2; j++) {
		ffu_status st = ffu__verify_need_array(v, in, j);
		if (st)
			return st;
	}
	if (!ffu__shape_eq(x, y))
		return IERR(FFU_STATUS_EVERIFY, in, "operands '%%%s' (%s) and '%%%s' (%s) must have the same shape",
			    in->operands[0]->name, fmt_shape(x, a, sizeof a), in->operands[1]->name,
			    fmt_shape(y, b, sizeof b));
	if (x->type == FFU_TYPE_PRED)
		return IERR(FFU_STATUS_EVERIFY, in, "compare operands must be field or integer arrays, not pred");
	if (s->type != FFU_TYPE_PRED || !ffu__shape_same_dims(s, x))
		return IERR(FFU_STATUS_EVERIFY, in, "result is %s; compare gives pred with the operands' dimensions",
			    fmt_shape(s, a, sizeof a));
	if (in->direction != FFU_CMP_EQ && in->direction != FFU_CMP_NE)
		return ffu__order_verify(in, v->file, v->e); /* ordered directions: ir/order.c */
	return FFU_STATUS_OK;
}

/* select(p, t, f): t, f and the result of one shape; p pred of their dimensions, or a scalar pred. */
static ffu_status check_select(const vctx *v, const ffu_inst *in)
{
	char a[160], b[160];
	const ffu_shape *s = &in->shape, *p = &in->operands[0]->shape;
	for (int j = 0; j < 3; j++) {
		ffu_status st = ffu__verify_need_array(v, in, j);
		if (st)
			return st;
	}
	if (p->type != FFU_TYPE_PRED || (p->rank != 0 && !ffu__shape_same_dims(p, s)))
		return IERR(FFU_STATUS_EVERIFY, in,
			    "selector ('%%%s') is %s; it must be pred with the dimensions of %s, or a scalar pred",
			    in->operands[0]->name, fmt_shape(p, a, sizeof a), fmt_shape(s, b, sizeof b));
	for (int j = 1; j < 3; j++)
		if (!ffu__shape_eq(&in->operands[j]->shape, s))
			return IERR(FFU_STATUS_EVERIFY, in, "operand %d ('%%%s') has shape %s, expected the result shape %s", j,
				    in->operands[j]->name, fmt_shape(&in->operands[j]->shape, a, sizeof a),
				    fmt_shape(s, b, sizeof b));
	return FFU_STATUS_OK;
}

/* Field ops (add ... inverse, and power/convert/compare/select by their own rules). */
static ffu_status check_elementwise(const vctx *v, const ffu_inst *in)
{
	char a[160], b[160];
	const ffu_shape *s = &in->shape;
	if (!is_array(s))
		return IERR(FFU_STATUS_EVERIFY, in, "result must be an array, not %s", fmt_shape(s, a, sizeof a));
	switch (in->op) {
	case FFU_OP_POWER:
	case FFU_OP_CONVERT:
		return check_power_convert(v, in);
	case FFU_OP_COMPARE:
		return check_compare(v, in);
	case FFU_OP_SELECT:
		return check_select(v, in);
	case FFU_OP_MAXIMUM:
	case FFU_OP_MINIMUM:
	case FFU_OP_CLAMP:
		return ffu__order_verify(in, v->file, v->e);
	default:
		break;
	}
	if (ffu__verify_touches_points(in))
		return ffu__verify_points(v, in);
	if (!is_field(s))
		return IERR(FFU_STATUS_EVERIFY, in, "%s is a field operation; %s is %s type", ffu__ops[in->op].keyword,
			    ffu__type_name(s->type), s->type == FFU_TYPE_PRED ? "a boolean" : "an integer");
	for (int j = 0; j < in->n_operands; j++)
		if (!ffu__shape_eq(&in->operands[j]->shape, s))
			return IERR(FFU_STATUS_EVERIFY, in,
				    "operand %d ('%%%s') has shape %s, expected %s (element-wise operands and result must have identical shapes)",
				    j, in->operands[j]->name, fmt_shape(&in->operands[j]->shape, a, sizeof a),
				    fmt_shape(s, b, sizeof b));
	return FFU_STATUS_OK;
}

/* The callee of a fusion or reduce: in this module, not ENTRY, before its caller. */
static ffu_status check_callee(const vctx *v, const ffu_computation *c, const ffu_inst *in, const char *attr)
{
	const ffu_computation *f = in->callee;
	int fi = f ? comp_index(v, f) : -1, ci = comp_index(v, c);
	if (!f || fi < 0)
		return IERR(FFU_STATUS_EVERIFY, in, "%s= names no computation of this module", attr);
	if (f->is_entry)
		return IERR(FFU_STATUS_EVERIFY, in, "cannot call the ENTRY computation");
	/* Callees before callers (ir.h): this also rules out recursion. */
	if (fi >= ci)
		return IERR(FFU_STATUS_EVERIFY, in, "callee '%%%s' must come before its caller '%%%s' in the module",
			    f->name, c->name);
	return FFU_STATUS_OK;
}

/*
 * to_apply of a reduce or a reducing collective: a computation before its caller, a sum or
 * product of its two scalar parameters of type t, which is what reduce_fn records.
 */
ffu_status ffu__verify_combiner(const vctx *v, const ffu_computation *c, const ffu_inst *in, ffu_type t)
{
	ffu_status st;
	if ((st = check_callee(v, c, in, "to_apply")))
		return st;
	const ffu_computation *f = in->callee;
	const ffu_inst *r = f->root;
	ffu_shape scalar = {.type = t};
	bool ok = f->n_params == 2 && f->params && f->params[0] && f->params[1] && r &&
		  ffu__shape_eq(&f->params[0]->shape, &scalar) && ffu__shape_eq(&f->params[1]->shape, &scalar) &&
		  (r->op == FFU_OP_ADD || r->op == FFU_OP_MULTIPLY) && r->n_operands == 2 &&
		  ffu__shape_eq(&r->shape, &scalar) &&
		  ((r->operands[0] == f->params[0] && r->operands[1] == f->params[1]) ||
		   (r->operands[0] == f->params[1] && r->operands[1] == f->params[0]));
	if (!ok)
		return IERR(FFU_STATUS_EVERIFY, in,
			    "to_apply must be a sum or product of its two parameters: '%%%s' must take two %s[] parameters and have ROOT add or multiply of exactly them",
			    f->name, ffu__type_name(t));
	if (in->reduce_fn != r->op)
		return IERR(FFU_STATUS_EVERIFY, in, "reduce_fn (%s) does not match the ROOT of '%%%s' (%s)",
			    in->reduce_fn >= 0 && in->reduce_fn < FFU_OP_COUNT ? ffu__ops[in->reduce_fn].keyword : "invalid",
			    f->name, ffu__ops[r->op].keyword);
	return FFU_STATUS_OK;
}

/*
 * reduce(x, init), dimensions={...}, to_apply=%f: init a scalar of x's field type, the
 * dimensions unique and < rank (any order), result = x's dimensions without them. %f must
 * be a sum or product of its two scalar parameters, which is all the device reduces.
 */
static ffu_status check_reduce(const vctx *v, const ffu_computation *c, const ffu_inst *in)
{
	char a[160], b[160], w[160];
	const ffu_shape *s = &in->shape, *x = &in->operands[0]->shape, *init = &in->operands[1]->shape;
	ffu_status st = ffu__verify_need_array(v, in, 0);
	if (st)
		return st;
	if (!is_field(x))
		return IERR(FFU_STATUS_EVERIFY, in, "reduce needs a field element type, not %s", ffu__type_name(x->type));
	if (!is_array(init) || init->type != x->type || init->rank != 0)
		return IERR(FFU_STATUS_EVERIFY, in, "init value ('%%%s') is %s; it must be a scalar %s[]",
			    in->operands[1]->name, fmt_shape(init, a, sizeof a), ffu__type_name(x->type));
	if (in->n_dims > 0 && !in->dims)
		return IERR(FFU_STATUS_EVERIFY, in, "malformed dimensions list");
	bool folded[FFU_MAX_RANK] = {false};
	for (int i = 0; i < in->n_dims; i++) {
		int64_t d = in->dims[i];
		if (d < 0 || d >= x->rank)
			return IERR(FFU_STATUS_EVERIFY, in, "dimensions[%d] = %lld is out of range for the operand %s (0..%d)", i,
				    (long long)d, fmt_shape(x, a, sizeof a), x->rank - 1);
		if (folded[d])
			return IERR(FFU_STATUS_EVERIFY, in, "dimension %lld is listed twice in dimensions", (long long)d);
		folded[d] = true;
	}
	ffu_shape want = {.type = x->type};
	for (int d = 0; d < x->rank; d++)
		if (!folded[d])
			want.dims[want.rank++] = x->dims[d];
	if (!ffu__shape_eq(s, &want))
		return IERR(FFU_STATUS_EVERIFY, in, "result is %s; reducing %s over the given dimensions gives %s",
			    fmt_shape(s, a, sizeof a), fmt_shape(x, b, sizeof b), fmt_shape(&want, w, sizeof w));
	return ffu__verify_combiner(v, c, in, x->type);
}

/* Operand j of in is defined earlier in the same computation (ids may be stale: fall back). */
static bool defined_before(const ffu_computation *c, int pos, const ffu_inst *op)
{
	if (op->id >= 0 && op->id < pos && c->insts[op->id] == op)
		return true;
	for (int k = 0; k < pos; k++)
		if (c->insts[k] == op)
			return true;
	return false;
}

static ffu_status check_inst(const vctx *v, const ffu_computation *c, int pos)
{
	const ffu_inst *in = c->insts[pos];
	char a[160], b[160];
	if (!in)
		return ffu__err(v->e, FFU_STATUS_EVERIFY, "computation '%%%s' has a NULL instruction", c->name);
	if (in->op < 0 || in->op >= FFU_OP_COUNT)
		return ffu__err_at(v->e, FFU_STATUS_EVERIFY, v->file, in->line, in->col, "invalid opcode %d",
				   (int)in->op);
	if (!in->name || !in->name[0])
		return IERR(FFU_STATUS_EVERIFY, in, "instruction has no name");
	if (in->parent != c)
		return IERR(FFU_STATUS_EVERIFY, in, "parent is not computation '%%%s'", c->name);
	const ffu_op_info *oi = &ffu__ops[in->op];
	if (oi->arity >= 0 && in->n_operands != oi->arity)
		return IERR(FFU_STATUS_EVERIFY, in, "takes %d operand%s, has %d", oi->arity,
			    oi->arity == 1 ? "" : "s", in->n_operands);
	if (in->n_operands < 0 || (in->n_operands > 0 && !in->operands))
		return IERR(FFU_STATUS_EVERIFY, in, "malformed operand list");
	for (int j = 0; j < in->n_operands; j++) {
		const ffu_inst *op = in->operands[j];
		if (!op)
			return IERR(FFU_STATUS_EVERIFY, in, "operand %d is NULL", j);
		if (op->parent != c || !defined_before(c, pos, op))
			return IERR(FFU_STATUS_EVERIFY, in, "operand %d ('%%%s') is not defined earlier in computation '%%%s'",
				    j, op->name ? op->name : "?", c->name);
	}
	ffu_status st = check_shape(v, in, &in->shape, 0);
	if (st || (st = check_sparse(v, in)))
		return st;
	char why[256];
	if (in->sharding && !ffu__sharding_check(in->sharding, &in->shape, v->m, why, sizeof why))
		return IERR(FFU_STATUS_EVERIFY, in, "%s", why);

	const ffu_shape *s = &in->shape;
	if (oi->kind == FFU_KIND_ELEMENTWISE)
		return check_elementwise(v, in);
	if (oi->kind == FFU_KIND_COLLECTIVE)
		return ffu__verify_collective(v, c, in);

	switch (in->op) {
	case FFU_OP_PARAMETER:
		if (!is_array(s))
			return IERR(FFU_STATUS_EVERIFY, in, "parameters must have an array shape, not %s",
				    fmt_shape(s, a, sizeof a));
		if (in->index < 0 || in->index >= c->n_params || !c->params || c->params[in->index] != in)
			return IERR(FFU_STATUS_EVERIFY, in, "parameter number %lld is not slot %lld of the %d parameters of '%%%s'",
				    (long long)in->index, (long long)in->index, c->n_params, c->name);
		return FFU_STATUS_OK;
	case FFU_OP_CONSTANT: {
		if (!is_array(s))
			return IERR(FFU_STATUS_EVERIFY, in, "constants must have an array shape, not %s",
				    fmt_shape(s, a, sizeof a));
		const ffu_field *f = ffu__shape_field(s);
		int64_t n = ffu__shape_count(s);
		if (n > 0 && !in->literal)
			return IERR(FFU_STATUS_EVERIFY, in, "constant has no literal");
		/* The literal holds count * storage_bytes bytes by construction; checking each
		   element is canonical also reads every one of them. */
		for (int64_t k = 0; f && k < n; k++) {
			if (elem_canonical(f, in->literal + (size_t)k * f->storage_bytes))
				continue;
			if (f->kind == FFU_ELEM_PRED)
				return IERR(FFU_STATUS_EVERIFY, in, "literal element %lld is not 0 or 1 (pred)", (long long)k);
			return IERR(FFU_STATUS_EVERIFY, in, "literal element %lld is not less than the %s modulus",
				    (long long)k, f->name);
		}
		return FFU_STATUS_OK;
	}
	case FFU_OP_IOTA:
		return ffu__verify_iota(v, in);
	case FFU_OP_BROADCAST:
		return ffu__verify_broadcast(v, in);
	case FFU_OP_SLICE:
		return ffu__verify_slice(v, in);
	case FFU_OP_CONCATENATE:
		return ffu__verify_concatenate(v, in);
	case FFU_OP_RESHAPE:
		return ffu__verify_reshape(v, in);
	case FFU_OP_DYNAMIC_SLICE:
	case FFU_OP_DYNAMIC_UPDATE_SLICE:
		return ffu__verify_dynamic_slice(v, in);
	case FFU_OP_REVERSE:
	case FFU_OP_BIT_REVERSE:
		return ffu__order_verify(in, v->file, v->e);
	case FFU_OP_REDUCE:
		return check_reduce(v, c, in);
	case FFU_OP_TUPLE:
		if (s->type != FFU_TYPE_TUPLE || s->n_elems != in->n_operands)
			return IERR(FFU_STATUS_EVERIFY, in, "result shape %s must be a tuple of the %d operand shapes",
				    fmt_shape(s, a, sizeof a), in->n_operands);
		for (int j = 0; j < in->n_operands; j++)
			if (!ffu__shape_eq(&s->elems[j], &in->operands[j]->shape))
				return IERR(FFU_STATUS_EVERIFY, in, "tuple element %d is %s but operand '%%%s' is %s", j,
					    fmt_shape(&s->elems[j], a, sizeof a), in->operands[j]->name,
					    fmt_shape(&in->operands[j]->shape, b, sizeof b));
		return FFU_STATUS_OK;
	case FFU_OP_GET_TUPLE_ELEMENT: {
		const ffu_shape *t = &in->operands[0]->shape;
		if (t->type != FFU_TYPE_TUPLE)
			return IERR(FFU_STATUS_EVERIFY, in, "operand '%%%s' is %s, not a tuple", in->operands[0]->name,
				    fmt_shape(t, a, sizeof a));
		if (in->index < 0 || in->index >= t->n_elems)
			return IERR(FFU_STATUS_EVERIFY, in, "tuple index %lld out of range: '%%%s' has %d elements",
				    (long long)in->index, in->operands[0]->name, t->n_elems);
		if (!ffu__shape_eq(s, &t->elems[in->index]))
			return IERR(FFU_STATUS_EVERIFY, in, "result shape %s differs from tuple element %lld (%s)",
				    fmt_shape(s, a, sizeof a), (long long)in->index,
				    fmt_shape(&t->elems[in->index], b, sizeof b));
		return FFU_STATUS_OK;
	}
	case FFU_OP_FFT:
		return ffu__verify_fft(v, in);
	case FFU_OP_MSM:
		return ffu__verify_msm(v, in);
	case FFU_OP_DOT:
		return ffu__dot_verify(in, v->file, v->e);
	case FFU_OP_FUSION: {
		if ((st = check_callee(v, c, in, "calls")))
			return st;
		const ffu_computation *f = in->callee;
		if ((unsigned)in->fusion_kind >= FFU_FUSION_KIND_COUNT)
			return IERR(FFU_STATUS_EVERIFY, in, "invalid fusion kind %d", (int)in->fusion_kind);
		if (in->n_operands != f->n_params)
			return IERR(FFU_STATUS_EVERIFY, in, "has %d operands but '%%%s' takes %d parameters", in->n_operands,
				    f->name, f->n_params);
		for (int j = 0; j < in->n_operands; j++)
			if (!ffu__shape_eq(&in->operands[j]->shape, &f->params[j]->shape))
				return IERR(FFU_STATUS_EVERIFY, in, "operand %d ('%%%s') is %s but parameter %d of '%%%s' is %s", j,
					    in->operands[j]->name, fmt_shape(&in->operands[j]->shape, a, sizeof a), j,
					    f->name, fmt_shape(&f->params[j]->shape, b, sizeof b));
		if (!f->root || !ffu__shape_eq(s, &f->root->shape))
			return IERR(FFU_STATUS_EVERIFY, in, "result shape %s differs from the root of '%%%s' (%s)",
				    fmt_shape(s, a, sizeof a), f->name,
				    f->root ? fmt_shape(&f->root->shape, b, sizeof b) : "none");
		return FFU_STATUS_OK;
	}
	default:
		/* An op added to ops.def without a rule here is a programmer error worth hearing about. */
		return IERR(FFU_STATUS_EUNSUPPORTED, in, "the verifier has no rule for this opcode yet");
	}
}

static ffu_status check_comp(const vctx *v, const ffu_computation *c)
{
	const char *file = v->file;
	if (!c->name || !c->name[0])
		return ffu__err(v->e, FFU_STATUS_EVERIFY, "computation without a name");
	if (c->module != v->m)
		return ffu__err_at(v->e, FFU_STATUS_EVERIFY, file, c->line, c->col,
				   "computation '%%%s' belongs to another module", c->name);
	if (c->n_insts <= 0 || !c->insts)
		return ffu__err_at(v->e, FFU_STATUS_EVERIFY, file, c->line, c->col,
				   "computation '%%%s' has no instructions", c->name);
	if (!c->root)
		return ffu__err_at(v->e, FFU_STATUS_EVERIFY, file, c->line, c->col,
				   "computation '%%%s' has no ROOT", c->name);
	if (c->root->parent != c)
		return ffu__err_at(v->e, FFU_STATUS_EVERIFY, file, c->line, c->col,
				   "ROOT of computation '%%%s' is not one of its instructions", c->name);
	if (c->root->shape.type != FFU_TYPE_TUPLE && c->root->shape.csr)
		return ffu__err_at(v->e, FFU_STATUS_EVERIFY, file, c->root->line, c->root->col,
				   "ROOT '%%%s' of '%%%s' is a CSR sparse matrix: sparse results are not supported "
				   "(ZKX: Unhandled sparse array layout)", c->root->name, c->name);
	int n_params = 0;
	for (int i = 0; i < c->n_insts; i++) {
		ffu_status st = check_inst(v, c, i);
		if (st)
			return st;
		n_params += c->insts[i]->op == FFU_OP_PARAMETER;
	}
	/* Each parameter sits in its own slot (checked per instruction); the count closes the
	   loop, so params[] holds exactly the parameter instructions, numbered 0..n-1. */
	if (n_params != c->n_params)
		return ffu__err_at(v->e, FFU_STATUS_EVERIFY, file, c->line, c->col,
				   "computation '%%%s' has %d parameter instructions but n_params = %d", c->name,
				   n_params, c->n_params);
	return FFU_STATUS_OK;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Instruction names are unique in the module, computation names among computations. */
static ffu_status check_names(const vctx *v)
{
	size_t n = 0;
	for (int i = 0; i < v->m->n_comps; i++)
		n += (size_t)v->m->comps[i]->n_insts;
	const char **names = malloc((n ? n : 1) * sizeof *names);
	const char **cnames = malloc(((size_t)v->m->n_comps + 1) * sizeof *cnames);
	ffu_status st = FFU_STATUS_OK;
	if (!names || !cnames) {
		st = ffu__err(v->e, FFU_STATUS_ENOMEM, "out of memory verifying the module");
		goto out;
	}
	size_t k = 0;
	for (int i = 0; i < v->m->n_comps; i++) {
		cnames[i] = v->m->comps[i]->name;
		for (int j = 0; j < v->m->comps[i]->n_insts; j++)
			names[k++] = v->m->comps[i]->insts[j]->name;
	}
	qsort(names, n, sizeof *names, cmp_str);
	for (size_t i = 1; i < n; i++) {
		if (strcmp(names[i - 1], names[i]) == 0) {
			st = ffu__err(v->e, FFU_STATUS_EVERIFY, "instruction name '%%%s' is used twice", names[i]);
			goto out;
		}
	}
	qsort(cnames, (size_t)v->m->n_comps, sizeof *cnames, cmp_str);
	for (int i = 1; i < v->m->n_comps; i++) {
		if (strcmp(cnames[i - 1], cnames[i]) == 0) {
			st = ffu__err(v->e, FFU_STATUS_EVERIFY, "computation name '%%%s' is used twice", cnames[i]);
			goto out;
		}
	}
out:
	free(names);
	free(cnames);
	return st;
}

ffu_status ffu__module_verify(const ffu_module *m, const char *file, ffu_error *e)
{
	if (!m)
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu__module_verify: module is NULL");
	vctx v = {m, file ? file : "", e, NULL};
	if (m->n_comps <= 0 || !m->comps)
		return ffu__err_at(e, FFU_STATUS_EVERIFY, v.file, 0, 0, "module has no computations");
	int n_entry = 0;
	for (int i = 0; i < m->n_comps; i++) {
		if (!m->comps[i])
			return ffu__err(e, FFU_STATUS_EVERIFY, "module has a NULL computation");
		n_entry += m->comps[i]->is_entry;
	}
	if (!m->entry || n_entry != 1 || !m->entry->is_entry)
		return ffu__err_at(e, FFU_STATUS_EVERIFY, v.file, 0, 0,
				   "module must have exactly one ENTRY computation (m->entry, is_entry)");
	if (m->replica_count < 1 || m->num_partitions < 1 || m->replica_count > FFU_MAX_RANKS ||
	    m->num_partitions > FFU_MAX_RANKS || ffu__module_ranks(m) > FFU_MAX_RANKS)
		return ffu__err_at(e, FFU_STATUS_EVERIFY, v.file, 0, 0,
				   "replica_count=%lld x num_partitions=%lld: 1 to %d ranks are supported",
				   (long long)m->replica_count, (long long)m->num_partitions, FFU_MAX_RANKS);
	/* Names first: the per-instruction checks need every instruction to have one. */
	for (int i = 0; i < m->n_comps; i++)
		for (int j = 0; j < m->comps[i]->n_insts; j++)
			if (!m->comps[i]->insts || !m->comps[i]->insts[j] || !m->comps[i]->insts[j]->name)
				return ffu__err(e, FFU_STATUS_EVERIFY, "computation '%%%s' has an unnamed or NULL instruction",
						m->comps[i]->name ? m->comps[i]->name : "?");
	v.pos = ffu__comp_pos_build(m);
	if (!v.pos)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory verifying the module");
	ffu_status st = FFU_STATUS_OK;
	for (int i = 0; i < m->n_comps && st == FFU_STATUS_OK; i++)
		st = check_comp(&v, m->comps[i]);
	if (st == FFU_STATUS_OK)
		st = check_names(&v);
	free(v.pos);
	return st;
}
