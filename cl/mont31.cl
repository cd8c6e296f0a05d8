/*
 * cl/mont31.cl: device arithmetic template for 31-bit Montgomery fields (BabyBear now,
 * KoalaBear later), radix R = 2^32. Owned by the fields engineer; instantiated by
 * src/codegen/field_cl.c, which defines before this text
 *   FP       field name (babybear)       FP_P     p as a uint literal (p < 2^31)
 *   FP_PINV  -p^-1 mod 2^32              FP_R2    R^2 mod p
 *   FP_MU    floor(2^62 / p) (Barrett, mulc)
 * and #undefs them after it; cl/word31.cl, emitted just before, holds the representation
 * and add, sub, neg. Every function is correct for any inputs < p, canonical or
 * Montgomery (the code generator relies on mul(a_mont, b) = a * b). No divergent branches:
 * every conditional correction is a min() or a select. FP_t is a uint, or a ulong in the
 * FFU_W64 instance (cl/word31.cl); every function is written for both. The vector
 * instance (FFU_VW = 16, uint16: the NTT's vector passes) has its own mul, and no mulc or
 * dot4_ (cl/fp_ops.cl's generic mulc serves it).
 */

/*
 * Montgomery product a * b / 2^32 mod p. With q = lo(ab) * (-p^-1) mod 2^32, ab + qp has a
 * zero low word, and (ab + qp) / 2^32 < (p^2 + 2^32 p) / 2^32 < 2p (p < 2^31), so one
 * wrapped-subtract correction as in add; ab + qp < 2^62 + 2^63 cannot overflow.
 * Written with 64-bit products rather than mul_hi: LLVM vectorises those to vpmuludq,
 * while vector mul_hi(uint) costs shuffles. Measured on PoCL (AVX-512), (x + y) * x at
 * 2^24: 3.7 ms (as fast as a plain x + y) vs 5.9 ms with the mul_hi form.
 */
/* The low word of x, as a value of FP_t (cl/word31.cl: a uint, or a ulong under FFU_W64). */
#ifdef FFU_W64
#define FFU_M31_LO(x) ((x) & 0xffffffffUL)
#else
#define FFU_M31_LO(x) ((uint)(x))
#endif

#ifdef FFU_VW
/*
 * The vector instance's product: the same reduction, lanes in even/odd pairs. FP_t viewed
 * as FFU_VW / 2 ulongs holds the even lanes in the low words and the odd lanes in the high
 * ones; x & lo and x >> 32 are 32-bit values in 64-bit lanes, whose products LLVM makes
 * vpmuludq, and the results' high words are put back in place with one shift and one
 * permute. q is a 32-bit lane product (vpmulld) of the uint16 view: written as
 * ((ab & lo) * PINV) & lo, LLVM drops the inner mask (only the low word is used) and
 * multiplies all 64 bits (vpmullq). Written per element, PoCL widens each product to
 * 64-bit lanes, takes that vpmullq and narrows again (objdump of its binary of a radix-16
 * pass: 32 vpmullq, 47 vpmovzxdq and 32 vpmovqd per 8 columns, 561 instructions; in
 * uint16, 744 per 16 columns).
 */
#if FFU_VW != 16
#error "cl/mont31.cl: the vector instance is written for 16 lanes"
#endif
FFU_INLINE FP_t FFU_FN(mul)(FP_t a, FP_t b)
{
	const ulong8 lo = (ulong8)0xffffffffUL, a2 = as_ulong8(a), b2 = as_ulong8(b);
	ulong8 ab0 = (a2 & lo) * (b2 & lo), ab1 = (a2 >> 32) * (b2 >> 32);
	ulong8 q0 = as_ulong8(as_uint16(ab0) * FP_PINV), q1 = as_ulong8(as_uint16(ab1) * FP_PINV);
	ulong8 t0 = ab0 + (q0 & lo) * FP_P, t1 = ab1 + (q1 & lo) * FP_P;
	FP_t t = as_uint16((t0 >> 32) | (t1 & ~lo));
	return min(t, t - FP_P);
}
#else
FFU_INLINE FP_t FFU_FN(mul)(FP_t a, FP_t b)
{
	ulong ab = (ulong)a * b;
	FP_t q = FFU_M31_LO(FFU_M31_LO(ab) * FP_PINV);
	FP_t t = (FP_t)((ab + (ulong)q * FP_P) >> 32);
	return min(t, t - FP_P);
}
#endif

FFU_INLINE FP_t FFU_FN(sqr)(FP_t a)
{
	return FFU_FN(mul)(a, a);
}
/*
 * Canonical product a * b mod p of two canonical values, by Barrett reduction: three 32x32
 * products, where the Montgomery way needs six (to_mont of one operand, then mul). The code
 * generator calls it for products whose operands it holds in canonical form only
 * (src/codegen/field_cl.c: traits; other templates get cl/fp_ops.cl's generic one). With
 * t = ab < p^2 < 2^62 and mu = floor(2^62 / p) < 2^32 (p > 2^30),
 * q = floor(floor(t / 2^30) mu / 2^32) is below t / p by less than 1 + (t / 2^30 + 2^62 / p) / 2^32 < 1 + (p^2 / 2^30 + 2^62 / p) / 2^32,
 * which is < 3 for 2^30 < p < 2^31 (1.41 + 1 for BabyBear, 1.49 + 1 for KoalaBear), so
 * q >= floor(t / p) - 2 and r = t - qp < 3p < 2^33: one 64-bit correction, then one
 * 32-bit one. The casts to uint are exact (t >> 30 < 2^32) and let LLVM use 32x32 -> 64
 * products (vpmuludq) instead of full 64-bit ones. Measured on PoCL (AVX-512) for
 * (x + y) * x at 2^20: see docs/fields.md.
 */
#ifndef FFU_VW /* mulc and dot4_: the scalar instances only (fp_ops.cl has a generic mulc) */
#if FP_P <= 0x40000000u
#error "cl/mont31.cl: mulc needs 2^30 < p < 2^31"
#endif
#define FP_HAS_MULC /* cl/fp_ops.cl: no generic mulc */
FFU_INLINE FP_t FFU_FN(mulc)(FP_t a, FP_t b)
{
	ulong t = (ulong)a * b;
	ulong q = ((ulong)(uint)(t >> 30) * FP_MU) >> 32;
	ulong r = t - (ulong)(uint)q * FP_P;
	r = min(r, r - FP_P);
	FP_t s = (FP_t)r;
	return min(s, s - FP_P);
}

/*
 * Lazy reduction for the extension templates (cl/ext4.cl, with FX_DOT4): a0 b0 + a1 b1 +
 * a2 b2 + a3 b3 / 2^32 mod p with one Montgomery reduction instead of four. Each product
 * is below p^2 < 2^62, so the sum t < 4 p^2 < 2^64. With t = h 2^32 + l, the reduction of
 * l alone, u = (l + q p) / 2^32 with q = l (-p^-1) mod 2^32, is exact and u <= p; then
 * (t + q p) / 2^32 = h + u, and h < 4 p^2 / 2^32 < 2 p (p < 2^31). One correction brings h
 * below p, so h + u < 2 p < 2^32 and one more makes it canonical. Same form rules as a
 * sum of mul(a_i, b_i).
 */
FFU_INLINE FP_t FFU_FN(dot4_)(FP_t a0, FP_t b0, FP_t a1, FP_t b1, FP_t a2, FP_t b2, FP_t a3, FP_t b3)
{
	ulong t = (ulong)a0 * b0 + (ulong)a1 * b1 + (ulong)a2 * b2 + (ulong)a3 * b3;
	FP_t l = FFU_M31_LO(t), h = (FP_t)(t >> 32);
	FP_t q = FFU_M31_LO(l * FP_PINV);
	FP_t u = (FP_t)(((ulong)l + (ulong)q * FP_P) >> 32);
	h = min(h, h - FP_P);
	FP_t r = h + u;
	return min(r, r - FP_P);
}
#endif

FFU_INLINE FP_t FFU_FN(to_mont)(FP_t a)
{
	return FFU_FN(mul)(a, (FP_t)FP_R2);
}

FFU_INLINE FP_t FFU_FN(from_mont)(FP_t a)
{
	return FFU_FN(mul)(a, (FP_t)1u);
}

/*
 * Canonical field element of an integer (the code generator's convert from u32/u64).
 * x < 2^32 < 3p for every 31-bit field of the table, so two corrections reduce it.
 */
FFU_INLINE FP_t FFU_FN(from_u32)(uint x)
{
	uint t = min(x, x - FP_P);
	return (FP_t)min(t, t - FP_P);
}

/* x = hi * 2^32 + lo, and hi * 2^32 = hi * R is exactly to_mont(hi). */
FFU_INLINE FP_t FFU_FN(from_u64)(ulong x)
{
	return FFU_FN(add)(FFU_FN(to_mont)(FFU_FN(from_u32)((uint)(x >> 32))), FFU_FN(from_u32)((uint)x));
}

FFU_INLINE int FFU_FN(eq)(FP_t a, FP_t b)
{
#ifdef FFU_VW
	return all(a == b);
#else
	return a == b;
#endif
}

#undef FFU_M31_LO
#undef FP_t
