/*
 * interp/points.c: the interpreter's ops on elliptic-curve points whose operand types
 * differ from the result's (affine + affine -> jacobian, scalar * point, msm), each a call
 * into the host reference of fields/point.h per element. Negate, select, convert, compare
 * and reduce by add go through the generic element paths of interp.c like any type.
 */
#include "interp/interp_impl.h"
#include "point.h"

ffu_status ffu__interp_points(const ffu_inst *in, const unsigned char *a, const unsigned char *b, ffu_value *o)
{
	const ffu_field *f = ffu__shape_field(&in->shape);
	const ffu_field *fa = ffu__shape_field(&in->operands[0]->shape);
	const ffu_field *fb = ffu__shape_field(&in->operands[1]->shape);
	size_t eb = f->storage_bytes, ea = fa->storage_bytes, ebb = fb->storage_bytes;
	int64_t n = ffu__shape_count(&in->shape);
	for (int64_t i = 0; i < n; i++) {
		unsigned char *out = o->data + i * eb;
		const unsigned char *x = a + i * ea, *y = b + i * ebb;
		if (in->op == FFU_OP_ADD)
			ffu__point_add(f, out, fa, x, fb, y);
		else if (in->op == FFU_OP_SUBTRACT)
			ffu__point_sub(f, out, fa, x, fb, y);
		else /* multiply (the verifier admits nothing else) */
			ffu__point_mul(f, out, fa, x, fb, y);
	}
	return FFU_STATUS_OK;
}

ffu_status ffu__interp_msm(const ffu_inst *in, const ffu_value *k, const ffu_value *p, ffu_value *o)
{
	ffu__point_msm(ffu__shape_field(&in->shape), o->data, ffu__shape_field(&k->shape), k->data,
		       ffu__shape_field(&p->shape), p->data, ffu__shape_count(&p->shape), in->window_bits);
	return FFU_STATUS_OK;
}
