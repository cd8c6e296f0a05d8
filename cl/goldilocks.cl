/*
 * cl/goldilocks.cl: device arithmetic template for Goldilocks, p = 2^64 - 2^32 + 1, on
 * canonical values. Owned by the fields engineer; instantiated by src/codegen/field_cl.c,
 * which defines FP (the field name) and FP_P0, FP_P1 (the words of p) before this text and
 * #undefs them after it.
 *
 * p fills its 64 bits (no spare top bit), so Montgomery tricks that let sums run past p
 * do not apply; instead the reduction uses 2^64 = 2^32 - 1 (= EPS) and 2^96 = -1 mod p
 * on the 128-bit product from a * b and mul_hi(a, b). The descriptor has dev_radix_bits = 0:
 * to_mont / from_mont are identities and mul is the canonical product, which keeps the
 * code generator's form tracking valid. Overflows are detected by unsigned compares and
 * corrected with masks, never divergent branches.
 *
 * Vector instance: where FFU_VW is defined (field_cl.c, for CPU wide kernels and NTT
 * passes), FP_t is a vector of FFU_VW elements (ulong8) and element i of the buffer is
 * elements FFU_VW i .. FFU_VW i + FFU_VW - 1 (load_at / store_at: from element e). The arithmetic is the same text: only the overflow masks differ
 * (a vector compare gives -1, a scalar one 1) and eq compares all lanes.
 */

#define FP_t FFU_FN(t)
#define FFU_GL_P 0xffffffff00000001UL
#define FFU_GL_EPS 0xffffffffUL

#ifdef FFU_VW
typedef FFU_CAT(ulong, FFU_VW) FP_t;
#define FFU_GL_MASK(c) FFU_CAT(as_ulong, FFU_VW)(c)
#define FFU_GL_ALL(c) all(c)

FFU_INLINE FP_t FFU_FN(load)(__global const uint *buf, size_t i)
{
	return FFU_CAT(vload, FFU_VW)(i, (__global const ulong *)buf);
}

FFU_INLINE void FFU_FN(store)(__global uint *buf, size_t i, FP_t v)
{
	FFU_CAT(vstore, FFU_VW)(v, i, (__global ulong *)buf);
}

/* Elements e .. e + FFU_VW - 1, from any e (the NTT's vector passes: codegen/fft_vec.c). */
FFU_INLINE FP_t FFU_FN(load_at)(__global const uint *buf, size_t e)
{
	return FFU_CAT(vload, FFU_VW)(0, (__global const ulong *)buf + e);
}

FFU_INLINE void FFU_FN(store_at)(__global uint *buf, size_t e, FP_t v)
{
	FFU_CAT(vstore, FFU_VW)(v, 0, (__global ulong *)buf + e);
}

/* The same store past the caches (cl/word31.cl says when, cl/common.cl FFU_STORE_NT how). */
FFU_INLINE void FFU_FN(store_at_nt)(__global uint *buf, size_t e, FP_t v)
{
	FFU_STORE_NT(FP_t, (__global ulong *)buf + e, v);
}
#else
typedef ulong FP_t;
#define FFU_GL_MASK(c) (0UL - (ulong)(c))
#define FFU_GL_ALL(c) (c)

/* Buffers are word arrays (two uints per element); OpenCL buffers are aligned for ulong. */
FFU_INLINE FP_t FFU_FN(load)(__global const uint *buf, size_t i)
{
	return ((__global const ulong *)buf)[i];
}

FFU_INLINE void FFU_FN(store)(__global uint *buf, size_t i, FP_t v)
{
	((__global ulong *)buf)[i] = v;
}
#endif

#ifndef FFU_VW
/*
 * a < b on canonical values (every value this template holds is fully reduced, so its
 * integer is the canonical one): ordered compares, maximum, minimum and clamp (ir/order.c,
 * src/codegen/kgen.c). Added by the ordered-ops work, not the fields engineer.
 * Scalar instance only: the vector one is for add/sub/mul fusions (codegen.c).
 */
FFU_INLINE int FFU_FN(lt)(FP_t a, FP_t b)
{
	return a < b;
}
#endif

FFU_INLINE FP_t FFU_FN(make)(uint w0, uint w1)
{
	return (FP_t)((ulong)w1 << 32 | w0);
}

/* s < p, or s in [p, 2^64): s - p < s exactly when s >= p, so min() reduces. */
FFU_INLINE FP_t FFU_FN(reduce1_)(FP_t s)
{
	return min(s, s - FFU_GL_P);
}

/*
 * a + b may carry out of 64 bits: then the true sum is s + 2^64 = s + EPS mod p, and
 * s + EPS < 2^64 since s = a + b - 2^64 < p - 1.
 */
FFU_INLINE FP_t FFU_FN(add)(FP_t a, FP_t b)
{
	FP_t s = a + b;
	s += FFU_GL_EPS & FFU_GL_MASK(s < a);
	return FFU_FN(reduce1_)(s);
}

/* A borrow means d = a - b + 2^64; subtracting EPS gives a - b + p, which is in [0, p). */
FFU_INLINE FP_t FFU_FN(sub)(FP_t a, FP_t b)
{
	FP_t d = a - b;
	return d - (FFU_GL_EPS & FFU_GL_MASK(a < b));
}

FFU_INLINE FP_t FFU_FN(neg)(FP_t a)
{
	return FFU_FN(sub)((FP_t)0UL, a);
}

/*
 * x = hi * 2^64 + lo, hi = hh * 2^32 + hl: x = lo - hh + hl * EPS mod p.
 * lo - hh borrows: add 2^64 and subtract EPS (= add p); the result stays >= 0.
 * hl * EPS < 2^64. The sum may carry: add EPS (no second carry: the wrapped sum is
 * below hl * EPS <= 2^64 - 2^33 + 1). One final min() reduction.
 */
FFU_INLINE FP_t FFU_FN(mul)(FP_t a, FP_t b)
{
	FP_t lo = a * b, hi = mul_hi(a, b);
	FP_t hh = hi >> 32, hl = hi & FFU_GL_EPS;
	FP_t t0 = lo - hh;
	t0 -= FFU_GL_EPS & FFU_GL_MASK(lo < hh);
	FP_t t1 = (hl << 32) - hl;
	FP_t s = t0 + t1;
	s += FFU_GL_EPS & FFU_GL_MASK(s < t1);
	return FFU_FN(reduce1_)(s);
}

FFU_INLINE FP_t FFU_FN(from_u32)(uint x)
{
	return (FP_t)(ulong)x;
}

FFU_INLINE FP_t FFU_FN(from_u64)(ulong x)
{
	return FFU_FN(reduce1_)((FP_t)x);
}

FFU_INLINE int FFU_FN(eq)(FP_t a, FP_t b)
{
	return FFU_GL_ALL(a == b);
}

#undef FFU_GL_ALL
#undef FFU_GL_MASK
#undef FFU_GL_EPS
#undef FFU_GL_P
#undef FP_t
