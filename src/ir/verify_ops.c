/*
 * src/ir/verify_ops.c: the verifier's rules for the layout and index ops and the transform
 * (iota, broadcast, slice, concatenate, dynamic-slice/dynamic-update-slice, reshape, fft),
 * called from check_inst's switch in ir/verify.c, whose context and error helpers they
 * share through ir/verify_impl.h. Owned by the HLO front end, like ir/verify.c.
 */
#include <stdint.h>
#include <stdio.h>

#include "ir/ir.h"
#include "ir/verify_impl.h"

/* iota: an array of rank >= 1 of a field or u32/u64; element = its index along dimension D. */
ffu_status ffu__verify_iota(const vctx *v, const ffu_inst *in)
{
	char a[160];
	const ffu_shape *s = &in->shape;
	if (!is_array(s) || s->rank < 1)
		return IERR(FFU_STATUS_EVERIFY, in, "result is %s; iota needs an array of rank 1 or more",
			    fmt_shape(s, a, sizeof a));
	if (s->type == FFU_TYPE_PRED)
		return IERR(FFU_STATUS_EVERIFY, in, "iota gives field or u32/u64 elements, not pred");
	if (in->index < 0 || in->index >= s->rank)
		return IERR(FFU_STATUS_EVERIFY, in, "iota_dimension=%lld is out of range for %s (0..%d)",
			    (long long)in->index, fmt_shape(s, a, sizeof a), s->rank - 1);
	return FFU_STATUS_OK;
}

/*
 * broadcast(x), dimensions={...}: XLA semantics: entry i maps operand dimension i to result
 * dimension dims[i], whose size must match; the other result dimensions replicate. XLA
 * allows any order; fieldfuse requires strictly increasing (no transposing broadcast).
 */
ffu_status ffu__verify_broadcast(const vctx *v, const ffu_inst *in)
{
	char a[160], b[160];
	const ffu_shape *s = &in->shape, *x = &in->operands[0]->shape;
	ffu_status st = ffu__verify_need_array(v, in, 0);
	if (st)
		return st;
	if (!is_array(s))
		return IERR(FFU_STATUS_EVERIFY, in, "result must be an array, not %s", fmt_shape(s, a, sizeof a));
	if (x->type != s->type)
		return IERR(FFU_STATUS_EVERIFY, in, "operand type %s differs from result type %s",
			    ffu__type_name(x->type), ffu__type_name(s->type));
	if (in->n_dims != x->rank || (in->n_dims > 0 && !in->dims))
		return IERR(FFU_STATUS_EVERIFY, in,
			    "dimensions has %d entr%s but operand '%%%s' (%s) has rank %d: one result dimension per operand dimension ({} for a scalar)",
			    in->n_dims, in->n_dims == 1 ? "y" : "ies", in->operands[0]->name, fmt_shape(x, a, sizeof a),
			    x->rank);
	for (int i = 0; i < in->n_dims; i++) {
		int64_t d = in->dims[i];
		if (d < 0 || d >= s->rank)
			return IERR(FFU_STATUS_EVERIFY, in, "dimensions[%d] = %lld is out of range for the result %s (0..%d)",
				    i, (long long)d, fmt_shape(s, a, sizeof a), s->rank - 1);
		if (i > 0 && d <= in->dims[i - 1])
			return IERR(FFU_STATUS_EVERIFY, in,
				    "dimensions must be strictly increasing (fieldfuse does not transpose in broadcast): %lld after %lld",
				    (long long)d, (long long)in->dims[i - 1]);
		if (s->dims[d] != x->dims[i])
			return IERR(FFU_STATUS_EVERIFY, in,
				    "operand dimension %d (size %lld) maps to result dimension %lld (size %lld): sizes must be equal (%s -> %s)",
				    i, (long long)x->dims[i], (long long)d, (long long)s->dims[d], fmt_shape(x, a, sizeof a),
				    fmt_shape(s, b, sizeof b));
	}
	return FFU_STATUS_OK;
}

/* slice(x): one range per dimension, 0 <= start <= limit <= size, stride >= 1. */
ffu_status ffu__verify_slice(const vctx *v, const ffu_inst *in)
{
	char a[160], b[160];
	const ffu_shape *s = &in->shape, *x = &in->operands[0]->shape;
	ffu_status st = ffu__verify_need_array(v, in, 0);
	if (st)
		return st;
	if (!is_array(s) || s->type != x->type || s->rank != x->rank)
		return IERR(FFU_STATUS_EVERIFY, in, "result %s must have the type and rank of the operand %s",
			    fmt_shape(s, a, sizeof a), fmt_shape(x, b, sizeof b));
	for (int d = 0; d < x->rank; d++) {
		int64_t lo = in->slice_start[d], hi = in->slice_limit[d], step = in->slice_stride[d];
		if (step < 1)
			return IERR(FFU_STATUS_EVERIFY, in, "slice stride %lld in dimension %d must be at least 1",
				    (long long)step, d);
		if (lo < 0 || lo > hi || hi > x->dims[d])
			return IERR(FFU_STATUS_EVERIFY, in,
				    "slice range [%lld:%lld] in dimension %d is out of range: need 0 <= start <= limit <= %lld (%s)",
				    (long long)lo, (long long)hi, d, (long long)x->dims[d], fmt_shape(x, a, sizeof a));
		/* ceil((hi - lo) / step) without overflow */
		int64_t n = (hi - lo) / step + ((hi - lo) % step != 0);
		if (s->dims[d] != n)
			return IERR(FFU_STATUS_EVERIFY, in,
				    "result dimension %d is %lld but slice [%lld:%lld:%lld] gives %lld elements", d,
				    (long long)s->dims[d], (long long)lo, (long long)hi, (long long)step, (long long)n);
	}
	return FFU_STATUS_OK;
}

/* concatenate(a, ...), dimensions={D}: same type and rank, equal sizes except D, which sums. */
ffu_status ffu__verify_concatenate(const vctx *v, const ffu_inst *in)
{
	char a[160], b[160];
	const ffu_shape *s = &in->shape;
	if (in->n_operands < 1)
		return IERR(FFU_STATUS_EVERIFY, in, "needs at least one operand");
	if (!is_array(s))
		return IERR(FFU_STATUS_EVERIFY, in, "result must be an array, not %s", fmt_shape(s, a, sizeof a));
	if (in->n_dims != 1 || !in->dims)
		return IERR(FFU_STATUS_EVERIFY, in, "dimensions must name exactly one dimension, has %d", in->n_dims);
	int64_t cd = in->dims[0];
	if (cd < 0 || cd >= s->rank)
		return IERR(FFU_STATUS_EVERIFY, in, "dimensions={%lld} is out of range for the result %s (0..%d)",
			    (long long)cd, fmt_shape(s, a, sizeof a), s->rank - 1);
	int64_t sum = 0;
	for (int j = 0; j < in->n_operands; j++) {
		ffu_status st = ffu__verify_need_array(v, in, j);
		if (st)
			return st;
		const ffu_shape *x = &in->operands[j]->shape;
		if (x->type != s->type || x->rank != s->rank)
			return IERR(FFU_STATUS_EVERIFY, in, "operand %d ('%%%s') is %s; operands need the type and rank of the result %s",
				    j, in->operands[j]->name, fmt_shape(x, a, sizeof a), fmt_shape(s, b, sizeof b));
		for (int d = 0; d < s->rank; d++)
			if (d != cd && x->dims[d] != s->dims[d])
				return IERR(FFU_STATUS_EVERIFY, in,
					    "operand %d ('%%%s') is %s: dimension %d must be %lld as in the result %s (only dimension %lld may differ)",
					    j, in->operands[j]->name, fmt_shape(x, a, sizeof a), d, (long long)s->dims[d],
					    fmt_shape(s, b, sizeof b), (long long)cd);
		if (x->dims[cd] > INT64_MAX - sum)
			return IERR(FFU_STATUS_EVERIFY, in, "concatenated dimension overflows int64");
		sum += x->dims[cd];
	}
	if (s->dims[cd] != sum)
		return IERR(FFU_STATUS_EVERIFY, in, "result dimension %lld is %lld but the operands' sizes there sum to %lld",
			    (long long)cd, (long long)s->dims[cd], (long long)sum);
	return FFU_STATUS_OK;
}

/*
 * dynamic-slice(x, i0, ...) and dynamic-update-slice(x, update, i0, ...) (XLA's shape
 * inference, zkx/service/shape_inference.cc): one start index per dimension of x, each a
 * scalar integer, all of one type; a window (dynamic-slice's result, or update) of x's
 * type and rank, no dimension larger than x's; dynamic-update-slice gives x's shape. The
 * starts are clamped at run time, so any values are valid.
 */
ffu_status ffu__verify_dynamic_slice(const vctx *v, const ffu_inst *in)
{
	char a[160], b[160];
	bool update = in->op == FFU_OP_DYNAMIC_UPDATE_SLICE;
	int first = update ? 2 : 1;
	for (int j = 0; j < in->n_operands; j++) {
		ffu_status st = ffu__verify_need_array(v, in, j);
		if (st)
			return st;
	}
	if (in->n_operands < first)
		return IERR(FFU_STATUS_EVERIFY, in, "takes %s", update ? "an operand, an update and one start index per dimension"
								: "an operand and one start index per dimension");
	const ffu_shape *s = &in->shape, *x = &in->operands[0]->shape;
	const ffu_shape *w = update ? &in->operands[1]->shape : s;
	if (!is_array(s))
		return IERR(FFU_STATUS_EVERIFY, in, "result must be an array, not %s", fmt_shape(s, a, sizeof a));
	if (in->n_operands - first != x->rank)
		return IERR(FFU_STATUS_EVERIFY, in, "has %d start ind%s but operand '%%%s' (%s) has rank %d: one per dimension",
			    in->n_operands - first, in->n_operands - first == 1 ? "ex" : "ices", in->operands[0]->name,
			    fmt_shape(x, a, sizeof a), x->rank);
	if (update && !ffu__shape_eq(s, x))
		return IERR(FFU_STATUS_EVERIFY, in, "result %s must have the shape of the operand %s", fmt_shape(s, a, sizeof a),
			    fmt_shape(x, b, sizeof b));
	if (w->type != x->type || w->rank != x->rank)
		return IERR(FFU_STATUS_EVERIFY, in, "%s %s must have the type and rank of the operand %s",
			    update ? "update" : "result", fmt_shape(w, a, sizeof a), fmt_shape(x, b, sizeof b));
	for (int d = 0; d < x->rank; d++)
		if (w->dims[d] > x->dims[d])
			return IERR(FFU_STATUS_EVERIFY, in, "%s %s is larger than the operand %s in dimension %d",
				    update ? "update" : "slice", fmt_shape(w, a, sizeof a), fmt_shape(x, b, sizeof b), d);
	for (int j = first; j < in->n_operands; j++) {
		const ffu_shape *i = &in->operands[j]->shape, *i0 = &in->operands[first]->shape;
		if (i->rank != 0 || elem_kind(i) != FFU_ELEM_UINT)
			return IERR(FFU_STATUS_EVERIFY, in, "start index %d ('%%%s') is %s; start indices are scalar integers",
				    j - first, in->operands[j]->name, fmt_shape(i, a, sizeof a));
		if (i->type != i0->type)
			return IERR(FFU_STATUS_EVERIFY, in, "start index %d ('%%%s') is %s but start index 0 is %s: all must have one type",
				    j - first, in->operands[j]->name, fmt_shape(i, a, sizeof a), fmt_shape(i0, b, sizeof b));
	}
	return FFU_STATUS_OK;
}

/* reshape(x): same type and element count (row-major reinterpretation). */
ffu_status ffu__verify_reshape(const vctx *v, const ffu_inst *in)
{
	char a[160], b[160];
	const ffu_shape *s = &in->shape, *x = &in->operands[0]->shape;
	ffu_status st = ffu__verify_need_array(v, in, 0);
	if (st)
		return st;
	if (!is_array(s) || s->type != x->type)
		return IERR(FFU_STATUS_EVERIFY, in, "result %s must have the element type of the operand %s",
			    fmt_shape(s, a, sizeof a), fmt_shape(x, b, sizeof b));
	if (ffu__shape_count(s) != ffu__shape_count(x))
		return IERR(FFU_STATUS_EVERIFY, in, "result %s has %lld elements but the operand %s has %lld",
			    fmt_shape(s, a, sizeof a), (long long)ffu__shape_count(s), fmt_shape(x, b, sizeof b),
			    (long long)ffu__shape_count(x));
	return FFU_STATUS_OK;
}

/*
 * fft(x [, twiddles]): x a field array of rank >= 1 transformed along its last dimension,
 * n = 2^k (n = fft_length) with k <= the prime's two-adicity; the result has x's shape;
 * twiddles a rank-1 array of n elements of ffu__fft_twiddle_type (ir/fft.c).
 */
ffu_status ffu__verify_fft(const vctx *v, const ffu_inst *in)
{
	char a[160], b[160];
	const ffu_shape *s = &in->shape, *x = &in->operands[0]->shape;
	if (in->n_operands != 1 && in->n_operands != 2)
		return IERR(FFU_STATUS_EVERIFY, in, "fft takes 1 or 2 operands (x, twiddles), has %d", in->n_operands);
	ffu_status st = ffu__verify_need_array(v, in, 0);
	if (st)
		return st;
	const ffu_field *p = ffu__fft_prime(x->type);
	if (!p)
		return IERR(FFU_STATUS_EVERIFY, in, "fft needs a field element type, not %s", ffu__type_name(x->type));
	if (x->rank < 1)
		return IERR(FFU_STATUS_EVERIFY, in, "fft needs an array of rank 1 to %d (it transforms the last dimension), not %s",
			    FFU_MAX_RANK, fmt_shape(x, a, sizeof a));
	if (!ffu__shape_eq(x, s))
		return IERR(FFU_STATUS_EVERIFY, in, "result is %s; fft keeps its operand's shape %s", fmt_shape(s, a, sizeof a),
			    fmt_shape(x, b, sizeof b));
	int64_t n = x->dims[x->rank - 1];
	int k = ffu__log2_pow2(n);
	if (k < 0)
		return IERR(FFU_STATUS_EVERIFY, in, "transform length %lld (the last dimension of %s) is not a power of two",
			    (long long)n, fmt_shape(x, a, sizeof a));
	if (in->fft.length != n)
		return IERR(FFU_STATUS_EVERIFY, in, "fft_length=%lld differs from the transform length %lld (the last dimension of %s)",
			    (long long)in->fft.length, (long long)n, fmt_shape(x, a, sizeof a));
	if (k > p->two_adicity)
		return IERR(FFU_STATUS_EVERIFY, in,
			    "no root of unity of order %lld in %s: its 2-adicity is %d, so transforms have at most 2^%d elements",
			    (long long)n, p->name, p->two_adicity, p->two_adicity);
	if (in->n_operands == 2) {
		if ((st = ffu__verify_need_array(v, in, 1)))
			return st;
		const ffu_shape *t = &in->operands[1]->shape;
		ffu_type tt = ffu__fft_twiddle_type(x->type);
		if (t->type != tt || t->rank != 1 || t->dims[0] != n)
			return IERR(FFU_STATUS_EVERIFY, in, "twiddles ('%%%s') are %s; a transform of %s takes %s[%lld]",
				    in->operands[1]->name, fmt_shape(t, a, sizeof a), fmt_shape(x, b, sizeof b),
				    ffu__type_name(tt), (long long)n);
	}
	return FFU_STATUS_OK;
}
