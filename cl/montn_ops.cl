/*
 * cl/montn_ops.cl: the functions of the multi-word Montgomery fields that do not depend on
 * the limb width, emitted by src/codegen/field_cl.c right after cl/montn.cl or
 * cl/montn_64.cl (whichever the program builds) and, for a modulus without a spare bit,
 * cl/montn_full.cl, with the same macros defined. Owned by the fields engineer. Each is
 * written on the template's of_words_, small_, sub and mul (cl/montn_full.cl's mul where
 * it replaces the template's), so both limb widths and both kinds of modulus share one
 * text.
 */

#define FP_t FFU_FN(t)

/* The storage words, least significant first (ffu__cl_emit_const). */
FFU_INLINE FP_t FFU_FN(make)(FP_WPARAMS)
{
	const uint w[FP_NW] = {FP_WARGS};
	return FFU_FN(of_words_)(w);
}

FFU_INLINE FP_t FFU_FN(neg)(FP_t a)
{
	return FFU_FN(sub)(FFU_FN(small_)(0u, 0u), a);
}

FFU_INLINE FP_t FFU_FN(to_mont)(FP_t a)
{
	const uint r2[FP_NW] = {FP_R2S};
	return FFU_FN(mul)(a, FFU_FN(of_words_)(r2));
}

FFU_INLINE FP_t FFU_FN(from_mont)(FP_t a)
{
	return FFU_FN(mul)(a, FFU_FN(small_)(1u, 0u));
}

/* Integers are below p already: just the words. */
FFU_INLINE FP_t FFU_FN(from_u32)(uint x)
{
	return FFU_FN(small_)(x, 0u);
}

FFU_INLINE FP_t FFU_FN(from_u64)(ulong x)
{
	return FFU_FN(small_)((uint)x, (uint)(x >> 32));
}

/* Every value this template holds is fully reduced, so equal values have equal limbs. */
FFU_INLINE int FFU_FN(eq)(FP_t a, FP_t b)
{
	int ne = 0;
	#pragma unroll
	for (int k = 0; k < (int)(sizeof a.v / sizeof a.v[0]); k++)
		ne |= a.v[k] != b.v[k];
	return !ne;
}

/* Bit k of a's limbs (k < 32 FP_NW), whichever limb width the program builds: on a
   canonical value, bit k of the integer (cl/point.cl: a scalar multiplication's bits). */
FFU_INLINE uint FFU_FN(bit)(FP_t a, uint k)
{
	const uint lb = 8u * (uint)sizeof a.v[0];
	return (uint)(a.v[k / lb] >> (k % lb)) & 1u;
}

/*
 * a < b on canonical values (every value this template holds is fully reduced, so its
 * limbs, least significant first, are the canonical integer's): ordered compares, maximum,
 * minimum and clamp (ir/order.c, src/codegen/kgen.c). Added by the ordered-ops work, not
 * the fields engineer.
 */
FFU_INLINE int FFU_FN(lt)(FP_t a, FP_t b)
{
	int lt = 0;
	for (int k = 0; k < (int)(sizeof a.v / sizeof a.v[0]); k++) /* a higher limb decides */
		lt = (a.v[k] < b.v[k]) | ((a.v[k] == b.v[k]) & lt);
	return lt;
}

#undef FP_t
