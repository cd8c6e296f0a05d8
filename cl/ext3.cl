/*
 * cl/ext3.cl: device arithmetic template for cubic extensions F_p[u]/(u^3 - W)
 * (goldilocksx3 with W = 7). Owned by the fields engineer; instantiated by
 * src/codegen/field_cl.c after the prime field's own template, with the same macros and
 * generated helpers as cl/ext2.cl (FP, FB, FX_W, FX_BWORDS, FFU_FN(mulw_), FFU_FN(addw_),
 * FFU_FN(subw_)), which it #undefs after this text.
 *
 * An element is c0 + c1 u + c2 u^2, each coefficient in the prime field's device form; the
 * form rules of cl/ext2.cl hold here too (mul(m, c) = c, mul(m, m) = m, sqr(m) = m,
 * inv(m) = m; a multiply by W is adds only). No data-dependent branches.
 */

#define FP_t FFU_FN(t)
#define FB_t FFU_BFN(t)

typedef struct {
	FB_t c0, c1, c2;
} FP_t;

/*
 * Element i is the prime field's elements 3i .. 3i + 2 of the same buffer; the stores
 * address coefficient k through k * z, z = 1 unknown to the compiler, for the reason
 * cl/ext2.cl gives (adjacent stores seed the SLP vectorizer, which then defeats PoCL's
 * work-group vectorization).
 */
FFU_INLINE FP_t FFU_FN(load)(__global const uint *buf, size_t i)
{
	FP_t r;
	r.c0 = FFU_BFN(load)(buf, 3 * i);
	r.c1 = FFU_BFN(load)(buf, 3 * i + 1);
	r.c2 = FFU_BFN(load)(buf, 3 * i + 2);
	return r;
}

FFU_INLINE void FFU_FN(store)(__global uint *buf, size_t i, FP_t v)
{
	size_t z = get_global_size(0) != 0;
	FFU_BFN(store)(buf, 3 * i, v.c0);
	FFU_BFN(store)(buf, 3 * i + z, v.c1);
	FFU_BFN(store)(buf, 3 * i + 2 * z, v.c2);
}

FFU_INLINE FP_t FFU_FN(of_)(FB_t c0, FB_t c1, FB_t c2)
{
	FP_t r;
	r.c0 = c0;
	r.c1 = c1;
	r.c2 = c2;
	return r;
}

/* The storage words, least significant first (ffu__cl_emit_const). */
#if FX_BWORDS == 1
FFU_INLINE FP_t FFU_FN(make)(uint w0, uint w1, uint w2)
{
	return FFU_FN(of_)(FFU_BFN(make)(w0), FFU_BFN(make)(w1), FFU_BFN(make)(w2));
}
#else
FFU_INLINE FP_t FFU_FN(make)(uint w0, uint w1, uint w2, uint w3, uint w4, uint w5)
{
	return FFU_FN(of_)(FFU_BFN(make)(w0, w1), FFU_BFN(make)(w2, w3), FFU_BFN(make)(w4, w5));
}
#endif

FFU_INLINE FP_t FFU_FN(add)(FP_t a, FP_t b)
{
	return FFU_FN(of_)(FFU_BFN(add)(a.c0, b.c0), FFU_BFN(add)(a.c1, b.c1), FFU_BFN(add)(a.c2, b.c2));
}

FFU_INLINE FP_t FFU_FN(sub)(FP_t a, FP_t b)
{
	return FFU_FN(of_)(FFU_BFN(sub)(a.c0, b.c0), FFU_BFN(sub)(a.c1, b.c1), FFU_BFN(sub)(a.c2, b.c2));
}

FFU_INLINE FP_t FFU_FN(neg)(FP_t a)
{
	return FFU_FN(of_)(FFU_BFN(neg)(a.c0), FFU_BFN(neg)(a.c1), FFU_BFN(neg)(a.c2));
}

/*
 * Schoolbook with W folded into b: u^3 = W turns a_i b_j with i + j >= 3 into
 * W a_i b_j u^(i+j-3), so with bw_k = W b_k
 *   c0 = a0 b0 + a1 bw2 + a2 bw1    c1 = a0 b1 + a1 b0 + a2 bw2    c2 = a0 b2 + a1 b1 + a2 b0
 * 9 prime products, 6 adds, 2 multiplies by W (adds).
 */
FFU_INLINE FP_t FFU_FN(mul)(FP_t a, FP_t b)
{
	FB_t bw1 = FFU_FN(mulw_)(b.c1), bw2 = FFU_FN(mulw_)(b.c2);
	FB_t c0 = FFU_BFN(add)(FFU_BFN(mul)(a.c0, b.c0), FFU_BFN(add)(FFU_BFN(mul)(a.c1, bw2), FFU_BFN(mul)(a.c2, bw1)));
	FB_t c1 = FFU_BFN(add)(FFU_BFN(mul)(a.c0, b.c1), FFU_BFN(add)(FFU_BFN(mul)(a.c1, b.c0), FFU_BFN(mul)(a.c2, bw2)));
	FB_t c2 = FFU_BFN(add)(FFU_BFN(mul)(a.c0, b.c2), FFU_BFN(add)(FFU_BFN(mul)(a.c1, b.c1), FFU_BFN(mul)(a.c2, b.c0)));
	return FFU_FN(of_)(c0, c1, c2);
}

/*
 * 6 prime products (3 squares, 3 cross products taken once with one factor doubled):
 *   c0 = a0^2 + W (2 a1 a2)    c1 = 2 a0 a1 + W a2^2    c2 = a1^2 + 2 a0 a2
 */
FFU_INLINE FP_t FFU_FN(sqr)(FP_t a)
{
	FB_t d0 = FFU_BFN(add)(a.c0, a.c0), d1 = FFU_BFN(add)(a.c1, a.c1);
	FB_t c0 = FFU_FN(addw_)(FFU_BFN(sqr)(a.c0), FFU_BFN(mul)(d1, a.c2));
	FB_t c1 = FFU_FN(addw_)(FFU_BFN(mul)(d0, a.c1), FFU_BFN(sqr)(a.c2));
	FB_t c2 = FFU_BFN(add)(FFU_BFN(sqr)(a.c1), FFU_BFN(mul)(d0, a.c2));
	return FFU_FN(of_)(c0, c1, c2);
}

/*
 * As fields/ext.c: a (t0 + t1 u + t2 u^2) = N with t0 = a0^2 - W a1 a2,
 * t1 = W a2^2 - a0 a1, t2 = a1^2 - a0 a2 and the norm N = a0 t0 + W (a1 t2 + a2 t1) in the
 * prime field; W is not a cube, so N = 0 only for a = 0 (then inv(0) = 0 gives 0).
 * 12 prime products and one prime inversion; Montgomery form in and out.
 */
FFU_INLINE FP_t FFU_FN(inv)(FP_t a)
{
	FB_t t0 = FFU_FN(subw_)(FFU_BFN(sqr)(a.c0), FFU_BFN(mul)(a.c1, a.c2));
	FB_t t1 = FFU_BFN(sub)(FFU_FN(mulw_)(FFU_BFN(sqr)(a.c2)), FFU_BFN(mul)(a.c0, a.c1));
	FB_t t2 = FFU_BFN(sub)(FFU_BFN(sqr)(a.c1), FFU_BFN(mul)(a.c0, a.c2));
	FB_t n = FFU_FN(addw_)(FFU_BFN(mul)(a.c0, t0), FFU_BFN(add)(FFU_BFN(mul)(a.c1, t2), FFU_BFN(mul)(a.c2, t1)));
	FB_t ni = FFU_BFN(inv)(n);
	return FFU_FN(of_)(FFU_BFN(mul)(t0, ni), FFU_BFN(mul)(t1, ni), FFU_BFN(mul)(t2, ni));
}

/*
 * a times c's constant coefficient, c = (k, 0, ...): 3 prime products instead of a full
 * product's. What a `_mont` twin over a canonical prime template (Mersenne31, Goldilocks)
 * multiplies by at load (k = R^-1) and store (k = R) (src/codegen/kgen.c); c is an extension
 * constant so that it is built in the extension's own containers (FB).
 */
FFU_INLINE FP_t FFU_FN(scale_)(FP_t a, FP_t c)
{
	return FFU_FN(of_)(FFU_BFN(mul)(a.c0, c.c0), FFU_BFN(mul)(a.c1, c.c0), FFU_BFN(mul)(a.c2, c.c0));
}

FFU_INLINE FP_t FFU_FN(to_mont)(FP_t a)
{
	return FFU_FN(of_)(FFU_BFN(to_mont)(a.c0), FFU_BFN(to_mont)(a.c1), FFU_BFN(to_mont)(a.c2));
}

FFU_INLINE FP_t FFU_FN(from_mont)(FP_t a)
{
	return FFU_FN(of_)(FFU_BFN(from_mont)(a.c0), FFU_BFN(from_mont)(a.c1), FFU_BFN(from_mont)(a.c2));
}

/* The prime field's element as the constant coefficient: keeps its form (linear). */
FFU_INLINE FP_t FFU_FN(from_base)(FB_t c)
{
	FB_t z = FFU_BFN(from_u32)(0u);
	return FFU_FN(of_)(c, z, z);
}

/* Canonical elements of integers (convert from u32 / u64): the constant coefficient. */
FFU_INLINE FP_t FFU_FN(from_u32)(uint x)
{
	return FFU_FN(from_base)(FFU_BFN(from_u32)(x));
}

FFU_INLINE FP_t FFU_FN(from_u64)(ulong x)
{
	return FFU_FN(from_base)(FFU_BFN(from_u64)(x));
}

FFU_INLINE int FFU_FN(eq)(FP_t a, FP_t b)
{
	return FFU_BFN(eq)(a.c0, b.c0) & FFU_BFN(eq)(a.c1, b.c1) & FFU_BFN(eq)(a.c2, b.c2);
}

#undef FB_t
#undef FP_t
