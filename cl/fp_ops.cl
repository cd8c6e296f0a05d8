/*
 * cl/fp_ops.cl: field operations built only on a template's API (mul, sqr, to_mont,
 * from_u32), emitted by src/codegen/field_cl.c right after each field's template, with
 * FP, FP_WORDS (32-bit words per element) and, for a prime field, FP_PM2 (the words of
 * p - 2, least significant first, comma-separated) defined; also emitted after each
 * extension template (FP the extension, no FP_PM2). Owned by the fields engineer.
 *
 * Every function here takes and returns values in the template's Montgomery form (for
 * the canonical templates that form is the value itself): mul(xR, yR) = xyR keeps
 * products of Montgomery values in Montgomery form, so powers need no conversions.
 */

#define FP_t FFU_FN(t)

/*
 * mulc(a, b): the canonical product of two canonical values, for every field. A template
 * with a cheaper one of its own (cl/mont31.cl: Barrett) defines FP_HAS_MULC; the rest
 * convert one operand (for the canonical templates to_mont is the identity).
 */
#ifndef FP_HAS_MULC
FFU_INLINE FP_t FFU_FN(mulc)(FP_t a, FP_t b)
{
	return FFU_FN(mul)(FFU_FN(to_mont)(a), b);
}
#endif
#undef FP_HAS_MULC

FFU_INLINE FP_t FFU_FN(one_m)(void)
{
	return FFU_FN(to_mont)(FFU_FN(from_u32)(1u));
}

/*
 * x^e for a run-time exponent: left-to-right square and multiply, the multiply always
 * computed and kept by a select, so work-items with different exponents do not diverge.
 * x^0 = 1, also for x = 0.
 */
FFU_INLINE FP_t FFU_FN(pow_bits_)(FP_t x, ulong e, int bits)
{
	FP_t acc = FFU_FN(one_m)();
	for (int i = bits - 1; i >= 0; i--) {
		acc = FFU_FN(sqr)(acc);
		FP_t t = FFU_FN(mul)(acc, x);
		acc = ((e >> i) & 1UL) ? t : acc;
	}
	return acc;
}

/* a u32 exponent needs only its 32 bits of squarings */
FFU_INLINE FP_t FFU_FN(pow_u32)(FP_t x, uint e)
{
	return FFU_FN(pow_bits_)(x, e, 32);
}

FFU_INLINE FP_t FFU_FN(pow_u64)(FP_t x, ulong e)
{
	return FFU_FN(pow_bits_)(x, e, 64);
}

/*
 * x^-1 = x^(p - 2) (Fermat); 0^(p-2) = 0 gives inverse(0) = 0 as ZKX defines it. The
 * exponent is the same for every work-item, so its bit test is a uniform branch.
 * Prime fields only (FP_PM2 defined): an extension template has its own inv (through
 * the norm, cl/ext2.cl, cl/ext4.cl).
 */
#ifdef FP_PM2
FFU_INLINE FP_t FFU_FN(inv)(FP_t x)
{
	const uint e[FP_WORDS] = {FP_PM2};
	FP_t acc = FFU_FN(one_m)();
	for (int k = FP_WORDS - 1; k >= 0; k--) {
		for (int i = 31; i >= 0; i--) {
			acc = FFU_FN(sqr)(acc);
			if ((e[k] >> i) & 1u)
				acc = FFU_FN(mul)(acc, x);
		}
	}
	return acc;
}
#endif

#undef FP_t
