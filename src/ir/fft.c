/*
 * ir/fft.c: what an `fft` instruction means, shared by the verifier, the interpreter, the
 * builder and the code generator: which types transform, the transform's length and batch,
 * and the type of a twiddles operand.
 *
 * ZKX transforms rank-1 arrays of its two-adic prime fields. fieldfuse transforms the last
 * dimension of a rank-1..4 array (each row one polynomial: a trace matrix, columns to
 * extend), of any prime field, its _mont twin or an extension over it, with the roots of
 * the prime field (an extension's column is transformed coefficient-wise, as STARK provers
 * transform columns of extension elements). Length 2^k with k <= the prime's two-adicity.
 */
#include "ir/ir.h"

const ffu_field *ffu__fft_prime(ffu_type t)
{
	if (t < 0 || t >= FFU_TYPE_TUPLE)
		return NULL;
	const ffu_field *f = ffu__field_get((ffu_field_id)t);
	return f && f->kind != FFU_ELEM_UINT && f->kind != FFU_ELEM_PRED ? f->prime : NULL;
}

ffu_type ffu__fft_twiddle_type(ffu_type t)
{
	const ffu_field *f = t >= 0 && t < FFU_TYPE_TUPLE ? ffu__field_get((ffu_field_id)t) : NULL;
	if (!f || !ffu__fft_prime(t))
		return FFU_TYPE_INVALID;
	/* an extension's coefficients' type: the prime, or its _mont for a _mont twin */
	return f->kind == FFU_ELEM_EXT ? (ffu_type)(f->coef ? f->coef : f->prime)->id : t;
}

int64_t ffu__fft_rows(const ffu_shape *s)
{
	int64_t n = s->rank > 0 ? s->dims[s->rank - 1] : 0;
	return n > 0 ? ffu__shape_count(s) / n : 0;
}
