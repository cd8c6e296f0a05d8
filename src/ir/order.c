/*
 * src/ir/order.c: the ordered ops (ir.h): compare's LT/LE/GT/GE, maximum, minimum, clamp,
 * and the two permutations reverse and bit-reverse: their host semantics (shared by the
 * interpreter and the simplifier's constant folding, so the two cannot drift) and their
 * verifier rules (called from verify.c).
 *
 * Order is ZKX's (docs/hlo.md, "Ordered ops"): a prime field's elements compare by their
 * canonical integer value in [0, p), also for the `_mont` twin, whose storage x * R mod p
 * is converted back first (ZKX's prime-ir compares "on the standard domain", and its tests
 * expect zk_dtypes' operator<, MontReduce() < MontReduce()); the unsigned integers compare
 * as unsigned ones, s8 ... s64 as signed ones. Extension fields and pred have no order:
 * ZKX's IsComparableType is false for extensions and its emitter has no ordered compare
 * for them, so fieldfuse refuses them in the verifier rather than invent one.
 */
#include <stdio.h>
#include <string.h>

#include "ir/ir.h"

static const char *const dir_names[FFU_CMP_COUNT] = {"EQ", "NE", "LT", "LE", "GT", "GE"};

const char *ffu__cmp_dir_name(ffu_compare_dir d)
{
	return d >= 0 && d < FFU_CMP_COUNT ? dir_names[d] : NULL;
}

ffu_compare_dir ffu__cmp_dir_by_name(const char *s, size_t len)
{
	for (int d = 0; d < FFU_CMP_COUNT; d++)
		if (strlen(dir_names[d]) == len && memcmp(dir_names[d], s, len) == 0)
			return (ffu_compare_dir)d;
	return FFU_CMP_COUNT;
}

bool ffu__type_ordered(ffu_type t)
{
	const ffu_field *f = t >= 0 && t < FFU_TYPE_TUPLE ? ffu__field_get((ffu_field_id)t) : NULL;
	return f && (f->kind == FFU_ELEM_PRIME || f->kind == FFU_ELEM_MONT || f->kind == FFU_ELEM_UINT);
}

int ffu__order_cmp(const ffu_field *f, const void *a, const void *b)
{
	unsigned char ca[FFU_FIELD_MAX_BYTES], cb[FFU_FIELD_MAX_BYTES];
	const unsigned char *x = a, *y = b;
	if (f->kind == FFU_ELEM_MONT) { /* x * R mod p -> x: the canonical value orders */
		ffu__fp_convert(f->prime, ca, f, a);
		ffu__fp_convert(f->prime, cb, f, b);
		x = ca;
		y = cb;
	}
	/* two's complement (s8 ... s64): a set sign bit is the smaller value whatever follows,
	   as ZKX and XLA (and OpenCL's char ... long, which the device compares in) order them */
	if (f->is_signed) {
		unsigned char sx = x[f->storage_bytes - 1] & 0x80, sy = y[f->storage_bytes - 1] & 0x80;
		if (sx != sy)
			return sx ? -1 : 1;
	}
	/* canonical storage is a little-endian integer: compare from the top byte down (for two
	   signed values of one sign, their bit patterns order as the values do) */
	for (size_t k = f->storage_bytes; k-- > 0;)
		if (x[k] != y[k])
			return x[k] < y[k] ? -1 : 1;
	return 0;
}

bool ffu__order_compare(const ffu_inst *in, const void *a, const void *b)
{
	const ffu_field *f = ffu__shape_field(&in->operands[0]->shape);
	if (in->direction == FFU_CMP_EQ || in->direction == FFU_CMP_NE) {
		/* storage is unique per value (also in _mont form): equal bytes, equal values */
		bool eq = ffu__fp_eq(f, a, b);
		return in->direction == FFU_CMP_EQ ? eq : !eq;
	}
	int c = ffu__order_cmp(f, a, b);
	switch (in->direction) {
	case FFU_CMP_LT: return c < 0;
	case FFU_CMP_LE: return c <= 0;
	case FFU_CMP_GT: return c > 0;
	default: return c >= 0; /* GE; the verifier admits nothing else */
	}
}

/*
 * ZKX (cpu_kernel_emitter.cc): maximum = select(a >= b, a, b), minimum = select(a <= b, a, b),
 * clamp(lo, x, hi) = minimum(maximum(lo, x), hi), so lo > hi gives hi. Equal values have
 * equal storage, so which operand a tie picks does not show.
 */
void ffu__order_eval(const ffu_inst *in, void *out, const unsigned char *const *args)
{
	const ffu_field *f = ffu__shape_field(&in->shape);
	const unsigned char *r;
	switch (in->op) {
	case FFU_OP_MAXIMUM:
		r = ffu__order_cmp(f, args[0], args[1]) >= 0 ? args[0] : args[1];
		break;
	case FFU_OP_MINIMUM:
		r = ffu__order_cmp(f, args[0], args[1]) <= 0 ? args[0] : args[1];
		break;
	default: /* FFU_OP_CLAMP */
		r = ffu__order_cmp(f, args[0], args[1]) >= 0 ? args[0] : args[1];
		r = ffu__order_cmp(f, r, args[2]) <= 0 ? r : args[2];
		break;
	}
	memmove(out, r, f->storage_bytes);
}

int64_t ffu__order_perm_coord(const ffu_inst *in, int d, int64_t c)
{
	int64_t n = in->shape.dims[d];
	for (int k = 0; k < in->n_dims; k++) {
		if (in->dims[k] != d)
			continue;
		return in->op == FFU_OP_REVERSE ? n - 1 - c : (int64_t)ffu__bitrev((uint64_t)c, n > 1 ? ffu__log2_pow2(n) : 0);
	}
	return c;
}

/* ---- verifier rules ---- */

/* Why type t has no order, for the messages below. */
static const char *unordered_why(ffu_type t)
{
	const ffu_field *f = t >= 0 && t < FFU_TYPE_TUPLE ? ffu__field_get((ffu_field_id)t) : NULL;
	if (f && f->kind == FFU_ELEM_EXT)
		return "an extension field has no order (ZKX: only EQ and NE compare extension elements)";
	if (f && f->kind == FFU_ELEM_PRED)
		return "pred has no order here";
	return "not an ordered type";
}

static ffu_status verify_compare(const ffu_inst *in, const char *file, ffu_error *e)
{
	const ffu_shape *x = &in->operands[0]->shape;
	const char *name = ffu__cmp_dir_name(in->direction);
	if (!name)
		return ffu__verify_err(e, file, in, "invalid compare direction %d (EQ, NE, LT, LE, GT or GE)", (int)in->direction);
	if (in->direction != FFU_CMP_EQ && in->direction != FFU_CMP_NE && !ffu__type_ordered(x->type))
		return ffu__verify_err(e, file, in,
			    "direction=%s needs ordered operands (a prime field, its _mont twin, u32 or u64), not %s: %s",
			    name, ffu__type_name(x->type), unordered_why(x->type));
	return FFU_STATUS_OK;
}

/* maximum(a, b), minimum(a, b), clamp(lo, x, hi): XLA's shapes (clamp's bounds may be scalars). */
static ffu_status verify_minmax(const ffu_inst *in, const char *file, ffu_error *e)
{
	char a[160], b[160];
	const ffu_shape *s = &in->shape;
	int main_op = in->op == FFU_OP_CLAMP ? 1 : 0;
	if (!ffu__shape_is_array(s))
		return ffu__verify_err(e, file, in, "result must be an array");
	if (!ffu__type_ordered(s->type))
		return ffu__verify_err(e, file, in, "%s needs an ordered element type (a prime field, its _mont twin, u32 or u64), not %s: %s",
			    ffu__ops[in->op].keyword, ffu__type_name(s->type), unordered_why(s->type));
	for (int j = 0; j < in->n_operands; j++) {
		const ffu_shape *o = &in->operands[j]->shape;
		bool scalar_bound = j != main_op && in->op == FFU_OP_CLAMP && ffu__shape_is_array(o) && o->rank == 0 &&
				    o->type == s->type;
		if (ffu__shape_eq(o, s) || scalar_bound)
			continue;
		ffu__shape_format(o, a, sizeof a);
		ffu__shape_format(s, b, sizeof b);
		return ffu__verify_err(e, file, in, "operand %d ('%%%s') has shape %s, expected %s%s", j, in->operands[j]->name, a, b,
			    in->op == FFU_OP_CLAMP ? " (clamp's bounds: the operand's shape, or a scalar of its type)"
						   : " (operands and result must have identical shapes)");
	}
	return FFU_STATUS_OK;
}

/* reverse / bit-reverse(x), dimensions={...}: ZKX's InferReverseShape / InferBitReverseShape. */
static ffu_status verify_perm(const ffu_inst *in, const char *file, ffu_error *e)
{
	char a[160], b[160];
	const ffu_shape *s = &in->shape, *x = &in->operands[0]->shape;
	const char *kw = ffu__ops[in->op].keyword;
	if (!ffu__shape_is_array(x))
		return ffu__verify_err(e, file, in, "operand ('%%%s') must be an array", in->operands[0]->name);
	if (!ffu__shape_eq(s, x)) {
		ffu__shape_format(s, a, sizeof a);
		ffu__shape_format(x, b, sizeof b);
		return ffu__verify_err(e, file, in, "result %s must have the operand's shape %s", a, b);
	}
	if (in->n_dims < 0 || (in->n_dims > 0 && !in->dims))
		return ffu__verify_err(e, file, in, "malformed dimensions list");
	bool seen[FFU_MAX_RANK] = {false};
	for (int k = 0; k < in->n_dims; k++) {
		int64_t d = in->dims[k];
		ffu__shape_format(x, a, sizeof a);
		if (d < 0 || d >= x->rank)
			return ffu__verify_err(e, file, in, "dimensions[%d] = %lld is out of range for the operand %s (0..%d)", k,
				    (long long)d, a, x->rank - 1);
		if (seen[d])
			return ffu__verify_err(e, file, in, "dimension %lld is listed twice in dimensions", (long long)d);
		seen[d] = true;
		int64_t n = x->dims[d];
		if (in->op == FFU_OP_BIT_REVERSE && (n <= 0 || (n & (n - 1)) != 0))
			return ffu__verify_err(e, file, in, "%s dimension %lld has size %lld, which is not a power of two (%s)", kw,
				    (long long)d, (long long)n, a);
	}
	return FFU_STATUS_OK;
}

ffu_status ffu__order_verify(const ffu_inst *in, const char *file, ffu_error *e)
{
	switch (in->op) {
	case FFU_OP_COMPARE:
		return verify_compare(in, file, e);
	case FFU_OP_MAXIMUM:
	case FFU_OP_MINIMUM:
	case FFU_OP_CLAMP:
		return verify_minmax(in, file, e);
	case FFU_OP_REVERSE:
	case FFU_OP_BIT_REVERSE:
		return verify_perm(in, file, e);
	default:
		return FFU_STATUS_OK;
	}
}
