/*
 * src/api/build_dot.c: the builder's dot (include/fieldfuse/builder.h): XLA's dot_general
 * with its four dimension lists, the result shape inferred as ir/dot.c defines it. Like
 * build_ops.c, it checks its public arguments, builds the result shape and attributes and
 * adds the instruction through ffu__bld_add, whose verification (ir/dot.c) names anything
 * else wrong. The CSR parameter a sparse dot reads is ffu_build_parameter_csr (build_ops.c).
 */
#include <string.h>

#include "api/builder_impl.h"

static void set_dot(ffu_inst *in, const void *arg)
{
	in->dot = *(const ffu_dot_attrs *)arg;
}

/* A list argument: n entries (0..FFU_MAX_RANK) of a non-NULL array, copied into out. */
static bool list_arg(ffu_builder *b, const char *call, const char *what, const int64_t *list, int n, int64_t *out)
{
	if (n < 0 || n > FFU_MAX_RANK || (n > 0 && !list)) {
		ffu__bld_fail(b, FFU_STATUS_EINVAL, call, "%s must list 0..%d dimensions (n = %d%s)", what, FFU_MAX_RANK, n,
			      n > 0 && !list ? ", list NULL" : "");
		return false;
	}
	if (n > 0)
		memcpy(out, list, sizeof *out * (size_t)n);
	return true;
}

ffu_node ffu_build_dot(ffu_builder *b, ffu_node lhs, ffu_node rhs, const int64_t *lhs_contracting,
		       const int64_t *rhs_contracting, int n_contracting, const int64_t *lhs_batch,
		       const int64_t *rhs_batch, int n_batch)
{
	const char *call = "ffu_build_dot";
	if (!ffu__bld_usable(b, call))
		return FFU_NODE_INVALID;
	ffu_inst *ops[2];
	if (!(ops[0] = ffu__bld_operand(b, call, 0, lhs)) || !(ops[1] = ffu__bld_operand(b, call, 1, rhs)))
		return FFU_NODE_INVALID;
	ffu_dot_attrs a = {.n_batch = n_batch, .n_contract = n_contracting};
	if (!list_arg(b, call, "lhs_contracting", lhs_contracting, n_contracting, a.lhs_contract) ||
	    !list_arg(b, call, "rhs_contracting", rhs_contracting, n_contracting, a.rhs_contract) ||
	    !list_arg(b, call, "lhs_batch", lhs_batch, n_batch, a.lhs_batch) ||
	    !list_arg(b, call, "rhs_batch", rhs_batch, n_batch, a.rhs_batch))
		return FFU_NODE_INVALID;
	/* the result shape the lists give; where they do not fit, the verifier says why */
	ffu_inst probe = {.op = FFU_OP_DOT, .n_operands = 2, .operands = ops, .dot = a};
	ffu_shape s;
	char why[320];
	if (!ffu__shape_is_array(&ops[0]->shape) || !ffu__shape_is_array(&ops[1]->shape) ||
	    !ffu__dot_result_shape(&probe, &s, why, sizeof why))
		s = (ffu_shape){.type = ops[0]->shape.type};
	return ffu__bld_add(b, call, FFU_OP_DOT, NULL, &s, ops, 2, set_dot, &a);
}
