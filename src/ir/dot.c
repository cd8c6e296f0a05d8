/*
 * src/ir/dot.c: what `dot` means (docs/hlo.md "dot"): XLA's dot_general over one field or
 * extension field. result[b..., i..., j...] = sum over the contracted coordinates k... of
 * lhs[b, i, k] * rhs[b, j, k], where b runs over the batch dimensions (paired in list
 * order), i over lhs's free dimensions and j over rhs's (each in increasing order), which
 * is also the result's dimension order. No contracting dimensions is an outer product, as
 * in XLA; an empty contracted range sums to 0. A CSR lhs (ZKX's sparse dot, ir/csr.c) is
 * the same sum over its stored entries: it contracts its columns (dimension 1) with one
 * rhs dimension and has no batch dimensions.
 *
 * Shared by the verifier, the builder (which infers the result shape), the interpreter,
 * the fusion pass (which producers fuse) and the code generator.
 */
#include <stdio.h>
#include <string.h>

#include "ir/ir.h"

void ffu__dot_free_dims(const ffu_inst *in, ffu_dot_dims *out)
{
	const ffu_dot_attrs *a = &in->dot;
	memset(out, 0, sizeof *out);
	for (int side = 0; side < 2; side++) {
		const ffu_shape *x = &in->operands[side]->shape;
		const int64_t *batch = side ? a->rhs_batch : a->lhs_batch, *con = side ? a->rhs_contract : a->lhs_contract;
		for (int d = 0; d < x->rank; d++) {
			bool used = false;
			for (int k = 0; k < a->n_batch; k++)
				used |= batch[k] == d;
			for (int k = 0; k < a->n_contract; k++)
				used |= con[k] == d;
			if (used)
				continue;
			if (side)
				out->rfree[out->n_rfree++] = d;
			else
				out->lfree[out->n_lfree++] = d;
		}
	}
}

/* The entries of one list against its operand: in range, and none used twice by that operand. */
static bool check_list(const int64_t *list, int n, const char *what, const ffu_shape *x, bool *used, char *why,
		       size_t why_size)
{
	for (int k = 0; k < n; k++) {
		int64_t d = list[k];
		if (d < 0 || d >= x->rank) {
			snprintf(why, why_size, "%s[%d] = %lld is out of range for an operand of rank %d", what, k, (long long)d,
				 x->rank);
			return false;
		}
		if (used[d]) {
			snprintf(why, why_size, "%s names dimension %lld, which the operand's other dimension numbers already use",
				 what, (long long)d);
			return false;
		}
		used[d] = true;
	}
	return true;
}

bool ffu__dot_result_shape(const ffu_inst *in, ffu_shape *out, char *why, size_t why_size)
{
	const ffu_dot_attrs *a = &in->dot;
	const ffu_shape *x = &in->operands[0]->shape, *y = &in->operands[1]->shape;
	memset(out, 0, sizeof *out);
	out->type = x->type;
	if (a->n_batch < 0 || a->n_batch > FFU_MAX_RANK || a->n_contract < 0 || a->n_contract > FFU_MAX_RANK) {
		snprintf(why, why_size, "malformed dimension numbers");
		return false;
	}
	bool lused[FFU_MAX_RANK] = {false}, rused[FFU_MAX_RANK] = {false};
	if (!check_list(a->lhs_batch, a->n_batch, "lhs_batch_dims", x, lused, why, why_size) ||
	    !check_list(a->rhs_batch, a->n_batch, "rhs_batch_dims", y, rused, why, why_size) ||
	    !check_list(a->lhs_contract, a->n_contract, "lhs_contracting_dims", x, lused, why, why_size) ||
	    !check_list(a->rhs_contract, a->n_contract, "rhs_contracting_dims", y, rused, why, why_size))
		return false;
	for (int pass = 0; pass < 2; pass++) {
		const int64_t *l = pass ? a->lhs_contract : a->lhs_batch, *r = pass ? a->rhs_contract : a->rhs_batch;
		for (int k = 0; k < (pass ? a->n_contract : a->n_batch); k++)
			if (x->dims[l[k]] != y->dims[r[k]]) {
				snprintf(why, why_size, "%s dimension pair %d: lhs dimension %lld has size %lld, rhs dimension %lld has size %lld",
					 pass ? "contracting" : "batch", k, (long long)l[k], (long long)x->dims[l[k]], (long long)r[k],
					 (long long)y->dims[r[k]]);
				return false;
			}
	}
	ffu_dot_dims fd;
	ffu__dot_free_dims(in, &fd);
	int rank = a->n_batch + fd.n_lfree + fd.n_rfree;
	if (rank > FFU_MAX_RANK) {
		snprintf(why, why_size, "the result would have rank %d; arrays have at most %d dimensions", rank, FFU_MAX_RANK);
		return false;
	}
	for (int k = 0; k < a->n_batch; k++)
		out->dims[out->rank++] = x->dims[a->lhs_batch[k]];
	for (int k = 0; k < fd.n_lfree; k++)
		out->dims[out->rank++] = x->dims[fd.lfree[k]];
	for (int k = 0; k < fd.n_rfree; k++)
		out->dims[out->rank++] = y->dims[fd.rfree[k]];
	return true;
}

int64_t ffu__dot_operand_reuse(const ffu_inst *in, int j)
{
	ffu_dot_dims fd;
	ffu__dot_free_dims(in, &fd);
	const ffu_shape *other = &in->operands[1 - j]->shape;
	int64_t n = 1;
	for (int k = 0; k < (j ? fd.n_lfree : fd.n_rfree); k++)
		n *= other->dims[j ? fd.lfree[k] : fd.rfree[k]];
	return n;
}

ffu_status ffu__dot_verify(const ffu_inst *in, const char *file, ffu_error *e)
{
	char a[160], b[160], w[160], why[320];
	for (int j = 0; j < 2; j++)
		if (!ffu__shape_is_array(&in->operands[j]->shape))
			return ffu__verify_err(e, file, in, "operand %d ('%%%s') must be an array", j, in->operands[j]->name);
	const ffu_shape *x = &in->operands[0]->shape, *y = &in->operands[1]->shape, *s = &in->shape;
	ffu__shape_format(x, a, sizeof a);
	ffu__shape_format(y, b, sizeof b);
	if (x->type != y->type)
		return ffu__verify_err(e, file, in, "operands '%%%s' (%s) and '%%%s' (%s) must have one element type",
			    in->operands[0]->name, a, in->operands[1]->name, b);
	ffu_elem_kind k = ffu__shape_field(x)->kind;
	if (k != FFU_ELEM_PRIME && k != FFU_ELEM_MONT && k != FFU_ELEM_EXT)
		return ffu__verify_err(e, file, in, "dot multiplies field elements; %s is %s type", ffu__type_name(x->type),
			    k == FFU_ELEM_PRED ? "a boolean" : "an integer");
	if (x->csr && (in->dot.n_batch != 0 || in->dot.n_contract != 1 || in->dot.lhs_contract[0] != 1))
		return ffu__verify_err(e, file, in, "the CSR lhs '%%%s' (%s) contracts its columns: lhs_contracting_dims={1}, one rhs "
			    "dimension in rhs_contracting_dims, no batch dimensions", in->operands[0]->name, a);
	ffu_shape want;
	if (!ffu__dot_result_shape(in, &want, why, sizeof why))
		return ffu__verify_err(e, file, in, "%s (lhs %s, rhs %s)", why, a, b);
	if (!ffu__shape_eq(s, &want)) {
		ffu__shape_format(s, w, sizeof w);
		ffu__shape_format(&want, why, sizeof why);
		return ffu__verify_err(e, file, in, "result is %s; dot of %s and %s with these dimension numbers gives %s%s", w, a, b, why,
			    in->dot.n_contract == 0 ? " (no contracting dimensions: an outer product, as in XLA; name them with "
						      "lhs_contracting_dims={...}, rhs_contracting_dims={...})"
						    : "");
	}
	return FFU_STATUS_OK;
}
