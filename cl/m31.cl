/*
 * cl/m31.cl: device arithmetic template for Mersenne31, p = 2^31 - 1, on canonical values
 * (no Montgomery form: 2^31 = 1 mod p makes the reduction of a 62-bit product two adds).
 * Owned by the fields engineer; instantiated by src/codegen/field_cl.c, which defines FP
 * (the field name) and FP_P before this text and #undefs them after it (FP_PINV and FP_R2
 * are defined too, as for every one-word field, and unused here).
 *
 * The field's descriptor has dev_radix_bits = 0: to_mont and from_mont are identities and
 * mul is the canonical product, so the code generator's form tracking (which relies on
 * mul(to_mont(a), b) = a * b) holds unchanged. No divergent branches: corrections are min().
 * FP_t is a uint, or a ulong in the FFU_W64 instance (cl/word31.cl); every function is
 * written for both.
 */

/*
 * ab = hi * 2^31 + lo with 2^31 = 1: ab = hi + lo mod p. For a, b < p, ab <= (p - 1)^2 so
 * hi < p - 1 and hi + lo < 2p: one min() correction. A 64-bit product (vpmuludq on x86)
 * vectorises where mul_hi would cost shuffles (see cl/mont31.cl).
 */
FFU_INLINE FP_t FFU_FN(mul)(FP_t a, FP_t b)
{
	ulong ab = (ulong)a * b;
	FP_t t = (FP_t)(ab & FP_P) + (FP_t)(ab >> 31);
	return min(t, t - FP_P);
}

/*
 * Lazy reduction for cl/ext2.cl (FX_DOT2): a0 b0 + a1 b1 mod p with one reduction. The sum
 * t < 2 p^2 < 2^63; with 2^31 = 1 mod p, folding at bit 31 gives s < 2^31 + 2^32, folding
 * s again gives r < 2^31 + 3 (s >> 31 <= 2), and one correction makes it canonical.
 */
FFU_INLINE FP_t FFU_FN(dot2_)(FP_t a0, FP_t b0, FP_t a1, FP_t b1)
{
	ulong t = (ulong)a0 * b0 + (ulong)a1 * b1;
	ulong s = (t & FP_P) + (t >> 31);
	FP_t r = (FP_t)(s & FP_P) + (FP_t)(s >> 31);
	return min(r, r - FP_P);
}

/* Canonical element of an integer: x < 2^32 = 2p + 2, so two corrections reduce it. */
FFU_INLINE FP_t FFU_FN(from_u32)(uint x)
{
	uint t = min(x, x - FP_P);
	return min(t, t - FP_P);
}

/* x = hi * 2^32 + lo and 2^32 = 2 mod p. */
FFU_INLINE FP_t FFU_FN(from_u64)(ulong x)
{
	FP_t h = FFU_FN(from_u32)((uint)(x >> 32));
	return FFU_FN(add)(FFU_FN(add)(h, h), FFU_FN(from_u32)((uint)x));
}

FFU_INLINE int FFU_FN(eq)(FP_t a, FP_t b)
{
	return a == b;
}

#undef FP_t
