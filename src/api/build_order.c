/*
 * src/api/build_order.c: the builder's ordered ops (include/fieldfuse/builder.h): maximum,
 * minimum, clamp, reverse and bit-reverse. Like build_ops.c, each checks its public
 * arguments, builds the result shape and attributes and adds the instruction through
 * ffu__bld_add, whose verification (ir/order.c) names anything else wrong.
 */
#include <string.h>

#include "api/builder_impl.h"

/* ffu_build_compare maps the public directions onto the IR's by offset. */
_Static_assert(FFU_COMPARE_LT - FFU_COMPARE_EQ == FFU_CMP_LT - FFU_CMP_EQ &&
		       FFU_COMPARE_GE - FFU_COMPARE_EQ == FFU_CMP_GE - FFU_CMP_EQ,
	       "ffu_compare_direction and ffu_compare_dir list the directions in one order");

/* maximum / minimum / clamp: the result has operand `main`'s shape (clamp's x). */
static ffu_node minmax(ffu_builder *b, const char *call, ffu_op op, const ffu_node *xs, int n, int main_op)
{
	ffu_inst *ops[3];
	if (!ffu__bld_usable(b, call))
		return FFU_NODE_INVALID;
	for (int j = 0; j < n; j++)
		if (!(ops[j] = ffu__bld_operand(b, call, j, xs[j])))
			return FFU_NODE_INVALID;
	ffu_shape s = ops[main_op]->shape;
	return ffu__bld_add(b, call, op, NULL, &s, ops, n, NULL, NULL);
}

ffu_node ffu_build_maximum(ffu_builder *b, ffu_node x, ffu_node y)
{
	return minmax(b, "ffu_build_maximum", FFU_OP_MAXIMUM, (ffu_node[]){x, y}, 2, 0);
}

ffu_node ffu_build_minimum(ffu_builder *b, ffu_node x, ffu_node y)
{
	return minmax(b, "ffu_build_minimum", FFU_OP_MINIMUM, (ffu_node[]){x, y}, 2, 0);
}

ffu_node ffu_build_clamp(ffu_builder *b, ffu_node lo, ffu_node x, ffu_node hi)
{
	return minmax(b, "ffu_build_clamp", FFU_OP_CLAMP, (ffu_node[]){lo, x, hi}, 3, 1);
}

/* reverse / bit-reverse: x's shape, the listed dimensions permuted. */
static ffu_node perm(ffu_builder *b, const char *call, ffu_op op, ffu_node x, const int64_t *dims, int n_dims)
{
	if (!ffu__bld_usable(b, call))
		return FFU_NODE_INVALID;
	ffu_inst *in = ffu__bld_operand(b, call, 0, x);
	if (!in)
		return FFU_NODE_INVALID;
	if (n_dims < 0 || n_dims > FFU_MAX_RANK || (n_dims > 0 && !dims))
		return ffu__bld_fail(b, FFU_STATUS_EINVAL, call, "dims must list 0..%d dimensions (n_dims = %d%s)",
				     FFU_MAX_RANK, n_dims, n_dims > 0 && !dims ? ", dims NULL" : "");
	ffu_shape s = in->shape;
	ffu__bld_dims a = {dims, n_dims, &b->m->arena};
	return ffu__bld_add(b, call, op, NULL, &s, &in, 1, ffu__bld_set_dims, &a);
}

ffu_node ffu_build_reverse(ffu_builder *b, ffu_node x, const int64_t *dims, int n_dims)
{
	return perm(b, "ffu_build_reverse", FFU_OP_REVERSE, x, dims, n_dims);
}

ffu_node ffu_build_bit_reverse(ffu_builder *b, ffu_node x, const int64_t *dims, int n_dims)
{
	return perm(b, "ffu_build_bit_reverse", FFU_OP_BIT_REVERSE, x, dims, n_dims);
}
