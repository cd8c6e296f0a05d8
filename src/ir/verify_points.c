/*
 * src/ir/verify_points.c: the rules of the ops on elliptic-curve points (ZKX.md 4.6, 4.7),
 * shared with the verifier through ir/verify_impl.h. Which result kinds an op may declare
 * is fields/point.h's (ffu__point_add_ok, _mul_ok, _msm_ok): the interpreter and these rules
 * read one definition. convert, select and compare EQ/NE on points follow their ops' own
 * rules in ir/verify.c (a conversion between point types is fields/field.c's
 * ffu__fp_convert_ok; points are not ordered, ir/order.c).
 */
#include "ir/verify_impl.h"
#include "point.h"

static bool is_point(const ffu_shape *s)
{
	return is_array(s) && elem_kind(s) == FFU_ELEM_POINT;
}

bool ffu__verify_touches_points(const ffu_inst *in)
{
	if (is_point(&in->shape))
		return true;
	for (int j = 0; j < in->n_operands; j++)
		if (is_point(&in->operands[j]->shape))
			return true;
	return false;
}

/* Operand j: a point array with the result's dimensions. */
static ffu_status need_point(const vctx *v, const ffu_inst *in, int j)
{
	char a[160], b[160];
	const ffu_shape *x = &in->operands[j]->shape, *s = &in->shape;
	if (!is_point(x) || !ffu__shape_same_dims(x, s))
		return IERR(FFU_STATUS_EVERIFY, in, "operand %d ('%%%s') is %s; it must be a point array with the dimensions of %s",
			    j, in->operands[j]->name, fmt_shape(x, a, sizeof a), fmt_shape(s, b, sizeof b));
	return FFU_STATUS_OK;
}

/* add, subtract, negate, multiply(scalar, point); every other element-wise op is refused. */
ffu_status ffu__verify_points(const vctx *v, const ffu_inst *in)
{
	char a[160];
	const ffu_shape *s = &in->shape;
	const ffu_field *ft = ffu__shape_field(s);
	ffu_status st;
	if (!is_point(s))
		return IERR(FFU_STATUS_EVERIFY, in, "result is %s; %s of points gives points",
			    fmt_shape(s, a, sizeof a), ffu__ops[in->op].keyword);
	switch (in->op) {
	case FFU_OP_ADD:
	case FFU_OP_SUBTRACT: {
		if ((st = need_point(v, in, 0)) || (st = need_point(v, in, 1)))
			return st;
		const ffu_field *fa = ffu__shape_field(&in->operands[0]->shape);
		const ffu_field *fb = ffu__shape_field(&in->operands[1]->shape);
		if (!ffu__point_add_ok(ft, fa, fb))
			return IERR(FFU_STATUS_EVERIFY, in,
				    "%s, %s -> %s: operands and result must be points of one curve and form; affine with affine gives jacobian or xyzz, jacobian or xyzz with affine or the same kind gives that kind (as ZKX)",
				    fa->name, fb->name, ft->name);
		return FFU_STATUS_OK;
	}
	case FFU_OP_NEGATE:
		if ((st = need_point(v, in, 0)))
			return st;
		if (in->operands[0]->shape.type != s->type)
			return IERR(FFU_STATUS_EVERIFY, in, "negate keeps the point type: operand is %s, result %s",
				    ffu__type_name(in->operands[0]->shape.type), ft->name);
		return FFU_STATUS_OK;
	case FFU_OP_MULTIPLY: {
		const ffu_shape *k = &in->operands[0]->shape;
		const ffu_field *fk = is_array(k) ? ffu__shape_field(k) : NULL;
		if (!fk || fk->base != ft->curve->scalar || !ffu__shape_same_dims(k, s))
			return IERR(FFU_STATUS_EVERIFY, in,
				    "operand 0 ('%%%s') is %s; multiply of a point takes the scalar first: %s or %s_mont with the dimensions of the result",
				    in->operands[0]->name, fmt_shape(k, a, sizeof a), ft->curve->scalar->name,
				    ft->curve->scalar->name);
		if ((st = need_point(v, in, 1)))
			return st;
		const ffu_field *fp = ffu__shape_field(&in->operands[1]->shape);
		if (!ffu__point_mul_ok(ft, fp))
			return IERR(FFU_STATUS_EVERIFY, in,
				    "scalar * %s -> %s: the result is a point of the same curve and form, jacobian or xyzz for an affine point, else the point's own kind (as ZKX)",
				    fp->name, ft->name);
		return FFU_STATUS_OK;
	}
	default:
		return IERR(FFU_STATUS_EVERIFY, in,
			    "%s is not defined on points (points take add, subtract, negate, multiply(scalar, point), convert, compare EQ/NE, select, reduce by add, msm)",
			    ffu__ops[in->op].keyword);
	}
}

/* msm(scalars, bases): scalars[n] of the curve's scalar field, bases[n] points, n > 0, the
   result one point (ZKX.md 4.7). */
ffu_status ffu__verify_msm(const vctx *v, const ffu_inst *in)
{
	char a[160], b[160];
	const ffu_shape *s = &in->shape, *k = &in->operands[0]->shape, *p = &in->operands[1]->shape;
	if (!is_point(p) || p->rank != 1 || p->dims[0] < 1)
		return IERR(FFU_STATUS_EVERIFY, in, "bases ('%%%s') are %s; msm takes a non-empty rank-1 array of points",
			    in->operands[1]->name, fmt_shape(p, a, sizeof a));
	const ffu_field *fp = ffu__shape_field(p);
	const ffu_field *fk = is_array(k) ? ffu__shape_field(k) : NULL;
	if (!fk || fk->base != fp->curve->scalar || k->rank != 1 || k->dims[0] != p->dims[0])
		return IERR(FFU_STATUS_EVERIFY, in, "scalars ('%%%s') are %s; they must be %s[%lld] or %s_mont[%lld], one per base",
			    in->operands[0]->name, fmt_shape(k, a, sizeof a), fp->curve->scalar->name,
			    (long long)p->dims[0], fp->curve->scalar->name, (long long)p->dims[0]);
	if (!is_point(s) || s->rank != 0 || !ffu__point_msm_ok(ffu__shape_field(s), fp))
		return IERR(FFU_STATUS_EVERIFY, in,
			    "result is %s; msm of %s bases gives one point of their curve and form (%s)",
			    fmt_shape(s, b, sizeof b), fp->name,
			    fp->form == FFU_POINT_AFFINE	? "affine, jacobian or xyzz"
			    : fp->form == FFU_POINT_JACOBIAN ? "jacobian or xyzz"
							     : "xyzz");
	return FFU_STATUS_OK;
}
