/*
 * fields/dispatch.c: the generic element entry points of field.h, each a call through the
 * descriptor's ops table (fields/ops.h). What does not depend on the kind (the checks of
 * ffu__fp_parse, integer sources of a conversion, divide and inverse in terms of the
 * others) is done here once.
 */
#include "ops.h"

#include <string.h>

void ffu__fp_add(const ffu_field *f, void *out, const void *a, const void *b)
{
	f->ops->add(f, out, a, b);
}

void ffu__fp_combine_n(const ffu_field *f, ffu_field_fn fn, void *out, const void *a, const void *b, size_t n)
{
	unsigned char *o = out;
	const unsigned char *x = a, *y = b;
	const size_t eb = f->storage_bytes;
	/* a one-word prime field's sum inline: canonical operands (< p) sum below 2p, one
	   conditional subtraction; a 64-bit word's carry out means the sum is past p too */
	if (fn == ffu__fp_add && (f->kind == FFU_ELEM_PRIME || f->kind == FFU_ELEM_MONT) && f->nlimbs == 1 &&
	    (eb == 4 || eb == 8)) {
		const uint64_t p = f->p[0];
		for (size_t i = 0; i < n; i++) {
			uint64_t u = 0, v = 0, s;
			memcpy(&u, x + i * eb, eb);
			memcpy(&v, y + i * eb, eb);
			s = u + v;
			if (s < u || s >= p)
				s -= p;
			memcpy(o + i * eb, &s, eb);
		}
		return;
	}
	for (size_t i = 0; i < n; i++)
		fn(f, o + i * eb, x + i * eb, y + i * eb);
}

void ffu__fp_sub(const ffu_field *f, void *out, const void *a, const void *b)
{
	f->ops->sub(f, out, a, b);
}

void ffu__fp_mul(const ffu_field *f, void *out, const void *a, const void *b)
{
	f->ops->mul(f, out, a, b);
}

void ffu__fp_neg(const ffu_field *f, void *out, const void *a, const void *b)
{
	(void)b;
	f->ops->neg(f, out, a);
}

void ffu__fp_sqr(const ffu_field *f, void *out, const void *a, const void *b)
{
	(void)b;
	f->ops->sqr(f, out, a);
}

void ffu__fp_to_dev_mont(const ffu_field *f, void *out, const void *a)
{
	f->ops->to_dev_mont(f, out, a);
}

void ffu__fp_from_dev_mont(const ffu_field *f, void *out, const void *a)
{
	f->ops->from_dev_mont(f, out, a);
}

bool ffu__fp_is_zero(const ffu_field *f, const void *a)
{
	return f->ops->is_zero(f, a);
}

void ffu__fp_set_u64(const ffu_field *f, void *out, uint64_t v)
{
	f->ops->set_u64(f, out, v);
}

bool ffu__fp_canonical(const ffu_field *f, const void *a)
{
	return f->ops->canonical(f, a);
}

bool ffu__fp_convert(const ffu_field *to, void *out, const ffu_field *from, const void *a)
{
	if (!ffu__fp_convert_ok(to, from))
		return false;
	/* integer -> integer: sign- or zero-extend by the source, truncate to the target
	   (set_u64 keeps the low bits); integer -> field: the zero-extended bit pattern mod p,
	   also for a signed source (ZKX: arith.extui, then the field's conversion) */
	if (from->kind == FFU_ELEM_UINT)
		ffu__fp_set_u64(to, out,
				to->kind == FFU_ELEM_UINT ? (uint64_t)ffu__fp_get_i64(from, a) : ffu__fp_get_u64(from, a));
	else
		to->ops->convert(to, out, from, a);
	return true;
}

void ffu__fp_pow(const ffu_field *f, void *out, const void *a, uint64_t e)
{
	f->ops->pow(f, out, a, e);
}

void ffu__fp_inv(const ffu_field *f, void *out, const void *a)
{
	f->ops->inv(f, out, a);
}

void ffu__fp_inverse(const ffu_field *f, void *out, const void *a, const void *b)
{
	(void)b;
	ffu__fp_inv(f, out, a);
}

void ffu__fp_divide(const ffu_field *f, void *out, const void *a, const void *b)
{
	unsigned char t[FFU_FIELD_MAX_BYTES];
	ffu__fp_inv(f, t, b);
	ffu__fp_mul(f, out, a, t);
}

void ffu__fp_random(const ffu_field *f, void *out, uint64_t *state)
{
	f->ops->random(f, out, state);
}

ffu_status ffu__fp_parse(const ffu_field *f, void *out, const char *s, size_t len, const char **why)
{
	if (why)
		*why = NULL;
	if (!f || !s) {
		if (why)
			*why = "not a number";
		return FFU_STATUS_EPARSE;
	}
	return f->ops->parse(f, out, s, len, why);
}

char *ffu__fp_format(const ffu_field *f, char *buf, const void *a)
{
	return f->ops->format(f, buf, a, false);
}

char *ffu__fp_format_literal(const ffu_field *f, char *buf, const void *a)
{
	return f->ops->format(f, buf, a, true);
}
