/*
 * cl/canonical.cl: what every template that computes on canonical values shares (fields
 * with dev_radix_bits = 0 in fields.def: Mersenne31, Goldilocks). Their Montgomery radix is 1,
 * so the conversions are identities and mul is the canonical product, which keeps the code
 * generator's form tracking valid unchanged. src/codegen/field_cl.c emits this right after
 * the field's template, which must define mul.
 */

FFU_INLINE FFU_FN(t) FFU_FN(sqr)(FFU_FN(t) a)
{
	return FFU_FN(mul)(a, a);
}

FFU_INLINE FFU_FN(t) FFU_FN(to_mont)(FFU_FN(t) a)
{
	return a;
}

FFU_INLINE FFU_FN(t) FFU_FN(from_mont)(FFU_FN(t) a)
{
	return a;
}
