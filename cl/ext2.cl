/*
 * cl/ext2.cl: device arithmetic template for quadratic extensions F_p[u]/(u^2 - W)
 * (mersenne31x2 with W = -1, goldilocksx2 with W = 7, the pairing curves' Fq2 bn254_bfx2
 * and bls12_381_bfx2 with W = -1). Owned by the fields engineer;
 * instantiated by src/codegen/field_cl.c after the prime field's own template, which
 * defines before this text
 *   FP          the extension's name (mersenne31x2): its functions are FFU_FN(add), ...
 *   FB          the prime field's name (mersenne31): its functions are FFU_BFN(mul), ...
 *   FX_W        W as a signed integer literal (for #if)
 *   FX_BWORDS   32-bit words per coefficient (1, 2, or more for cl/montn.cl's fields, which
 *               also get FX_WPARAMS, make's parameter list "uint w0, ..., uint w<2n-1>", and
 *               FX_C0_WORDS "w0, ..., w<n-1>", FX_C1_WORDS "w<n>, ..., w<2n-1>")
 * and the generated helpers FFU_FN(mulw_)(a) = W a, FFU_FN(addw_)(s, a) = s + W a,
 * FFU_FN(subw_)(s, a) = s - W a, and, unless W = -1, FFU_FN(mulw1_)(a) = (1 + W) a, each
 * an addition chain of the prime field's add (no product), and #undefs them after it.
 *
 * An element is c0 + c1 u, each coefficient in the prime field's device form (Montgomery
 * for mont31 and montn, canonical for m31 and goldilocks). Every function is linear in each operand
 * coefficient-wise or built from prime products, so the prime's form rules carry over:
 * mul(m, c) = c, mul(m, m) = m, sqr(m) = m, inv(m) = m, to_mont / from_mont coefficient-wise.
 * (A multiply by W is adds only, which keep any form.) No data-dependent branches.
 */

#define FP_t FFU_FN(t)
#define FB_t FFU_BFN(t)

typedef struct {
	FB_t c0, c1;
} FP_t;

/*
 * Element i is the prime field's elements 2i .. 2i + 1 of the same buffer. On CPU
 * devices (PoCL, llvmpipe) the stores address coefficient k through k * z, z = 1 that the
 * compiler cannot prove constant (get_global_size(0) != 0): 2 provably adjacent stores
 * seed LLVM's SLP vectorizer, which packs the 2 coefficient computations of one work-item
 * into vector instructions before PoCL builds its work-group loop, and the loop vectorizer
 * then gives up on the vector-typed body ("instruction return type cannot be vectorized").
 * Loads stay adjacent (the loop vectorizer turns them into interleaved loads). Measured on
 * PoCL at 2^20, babybearx4: one product 3.0-3.9 ms (10-12 ms with adjacent stores), 8
 * chained products 17-25 ms (85 ms; 32 ms with loads through z too), an add 1.5-1.8 ms
 * (3.7 ms with loads through z). GPUs get one wide access per element instead
 * (FFU_VECTOR_LOADS, as cl/montn.cl, or NVIDIA's compiler).
 */
#ifdef FFU_VW
/*
 * Vector instance (field_cl.c; FB is the prime's vector instance, cl/goldilocks.cl):
 * element i holds buffer elements 8 i .. 8 i + 7, whose interleaved coefficients one
 * 16-wide load splits into one vector per coefficient.
 */
#if FFU_VW != 8 || FX_BWORDS != 2
#error "cl/ext2.cl: vector instances take 8 lanes of 64-bit coefficients"
#endif
FFU_INLINE FP_t FFU_FN(load)(__global const uint *buf, size_t i)
{
	ulong16 w = vload16(i, (__global const ulong *)buf);
	FP_t r;
	r.c0 = w.even;
	r.c1 = w.odd;
	return r;
}

FFU_INLINE void FFU_FN(store)(__global uint *buf, size_t i, FP_t v)
{
	ulong8 a = v.c0, b = v.c1;
	vstore16((ulong16)(a.s0, b.s0, a.s1, b.s1, a.s2, b.s2, a.s3, b.s3, a.s4, b.s4, a.s5, b.s5, a.s6, b.s6, a.s7,
			   b.s7),
		 i, (__global ulong *)buf);
}
#elif !defined(FFU_SCALAR_LOADS) && (defined(FFU_VECTOR_LOADS) || defined(__NV_CL_C_VERSION)) && FX_BWORDS == 1
FFU_INLINE FP_t FFU_FN(load)(__global const uint *buf, size_t i)
{
	uint2 w = vload2(i, buf);
	FP_t r;
	r.c0 = FFU_BFN(make)(w.s0);
	r.c1 = FFU_BFN(make)(w.s1);
	return r;
}

FFU_INLINE void FFU_FN(store)(__global uint *buf, size_t i, FP_t v)
{
	vstore2((uint2)(v.c0, v.c1), i, buf);
}
#else
FFU_INLINE FP_t FFU_FN(load)(__global const uint *buf, size_t i)
{
	FP_t r;
	r.c0 = FFU_BFN(load)(buf, 2 * i);
	r.c1 = FFU_BFN(load)(buf, 2 * i + 1);
	return r;
}

FFU_INLINE void FFU_FN(store)(__global uint *buf, size_t i, FP_t v)
{
	size_t z = get_global_size(0) != 0;
	FFU_BFN(store)(buf, 2 * i, v.c0);
	FFU_BFN(store)(buf, 2 * i + z, v.c1);
}
#endif

FFU_INLINE FP_t FFU_FN(of_)(FB_t c0, FB_t c1)
{
	FP_t r;
	r.c0 = c0;
	r.c1 = c1;
	return r;
}

/* The storage words, least significant first (ffu__cl_emit_const). */
#if FX_BWORDS == 1
FFU_INLINE FP_t FFU_FN(make)(uint w0, uint w1)
{
	return FFU_FN(of_)(FFU_BFN(make)(w0), FFU_BFN(make)(w1));
}
#elif FX_BWORDS == 2
FFU_INLINE FP_t FFU_FN(make)(uint w0, uint w1, uint w2, uint w3)
{
	return FFU_FN(of_)(FFU_BFN(make)(w0, w1), FFU_BFN(make)(w2, w3));
}
#else
/* multi-word coefficients (cl/montn.cl): the word lists src/codegen/field_cl.c defines */
FFU_INLINE FP_t FFU_FN(make)(FX_WPARAMS)
{
	return FFU_FN(of_)(FFU_BFN(make)(FX_C0_WORDS), FFU_BFN(make)(FX_C1_WORDS));
}
#endif

FFU_INLINE FP_t FFU_FN(add)(FP_t a, FP_t b)
{
	return FFU_FN(of_)(FFU_BFN(add)(a.c0, b.c0), FFU_BFN(add)(a.c1, b.c1));
}

FFU_INLINE FP_t FFU_FN(sub)(FP_t a, FP_t b)
{
	return FFU_FN(of_)(FFU_BFN(sub)(a.c0, b.c0), FFU_BFN(sub)(a.c1, b.c1));
}

FFU_INLINE FP_t FFU_FN(neg)(FP_t a)
{
	return FFU_FN(of_)(FFU_BFN(neg)(a.c0), FFU_BFN(neg)(a.c1));
}

/*
 * Schoolbook with W folded into b: c0 = a0 b0 + a1 (W b1), c1 = a0 b1 + a1 b0: 4 prime
 * products, 2 adds, one multiply by W (adds). Karatsuba's 3 products measured slower on
 * PoCL, 8 chained products at 2^18 elements: goldilocksx2 57 ms vs 22 ms (its shared
 * subterms give LLVM's SLP vectorizer isomorphic 64-bit pairs to pack, and the packed body
 * then defeats PoCL's work-group vectorization), mersenne31x2 (at 2^20) 8.8-11 ms vs 7.2 ms.
 * With FX_DOT2 (Mersenne31) each coefficient is one dot2_, two products summed before one
 * reduction: 8 chained mersenne31x2 products at 2^20 on PoCL, 2.83-2.85 ms -> 2.55-2.58 ms.
 */
FFU_INLINE FP_t FFU_FN(mul)(FP_t a, FP_t b)
{
#if FX_BWORDS > 2
	/*
	 * Multi-word coefficients (cl/montn.cl: the pairing curves' Fq2): Karatsuba, 3 products,
	 * c1 = (a0 + a1)(b0 + b1) - a0 b0 - a1 b1. A 256- or 381-bit product is a work-item's
	 * scalar code (dozens of word products), so the product saved outweighs the 3 adds,
	 * whatever the vectorizers do; every term stays linear in each operand, so the form
	 * rules above hold.
	 */
	FB_t v0 = FFU_BFN(mul)(a.c0, b.c0), v1 = FFU_BFN(mul)(a.c1, b.c1);
	FB_t t = FFU_BFN(mul)(FFU_BFN(add)(a.c0, a.c1), FFU_BFN(add)(b.c0, b.c1));
	return FFU_FN(of_)(FFU_FN(addw_)(v0, v1), FFU_BFN(sub)(t, FFU_BFN(add)(v0, v1)));
#else
	FB_t bw = FFU_FN(mulw_)(b.c1);
#ifdef FX_DOT2
	/* one reduction per coefficient (the prime template's dot2_) */
	return FFU_FN(of_)(FFU_BFN(dot2_)(a.c0, b.c0, a.c1, bw), FFU_BFN(dot2_)(a.c0, b.c1, a.c1, b.c0));
#endif
	return FFU_FN(of_)(FFU_BFN(add)(FFU_BFN(mul)(a.c0, b.c0), FFU_BFN(mul)(a.c1, bw)),
			   FFU_BFN(add)(FFU_BFN(mul)(a.c0, b.c1), FFU_BFN(mul)(a.c1, b.c0)));
#endif
}

/*
 * 2 prime products: with v = a0 a1, (a0 + a1)(a0 + W a1) = a0^2 + W a1^2 + (1 + W) v, so
 * c0 = (a0 + a1)(a0 + W a1) - (1 + W) v and c1 = 2 v. For W = -1 (complex numbers) this
 * is c0 = (a0 + a1)(a0 - a1).
 */
FFU_INLINE FP_t FFU_FN(sqr)(FP_t a)
{
	FB_t v = FFU_BFN(mul)(a.c0, a.c1);
	FB_t t = FFU_BFN(mul)(FFU_BFN(add)(a.c0, a.c1), FFU_FN(addw_)(a.c0, a.c1));
#if FX_W == -1
	FB_t c0 = t;
#else
	FB_t c0 = FFU_BFN(sub)(t, FFU_FN(mulw1_)(v));
#endif
	return FFU_FN(of_)(c0, FFU_BFN(add)(v, v));
}

/*
 * (a0 + a1 u)^-1 = (a0 - a1 u) / N, N = a0^2 - W a1^2 in the prime field (W is not a
 * square, so N = 0 only for a = 0; the prime's inv(0) = 0 then gives inverse(0) = 0).
 * 4 prime products and one prime inversion (Fermat, cl/fp_ops.cl); Montgomery form in and
 * out like the prime's inv.
 */
FFU_INLINE FP_t FFU_FN(inv)(FP_t a)
{
	FB_t n = FFU_FN(subw_)(FFU_BFN(sqr)(a.c0), FFU_BFN(sqr)(a.c1));
	FB_t ni = FFU_BFN(inv)(n);
	return FFU_FN(of_)(FFU_BFN(mul)(a.c0, ni), FFU_BFN(neg)(FFU_BFN(mul)(a.c1, ni)));
}

/*
 * a times c's constant coefficient, c = (k, 0, ...): 2 prime products instead of a full
 * product's. What a `_mont` twin over a canonical prime template (Mersenne31, Goldilocks)
 * multiplies by at load (k = R^-1) and store (k = R) (src/codegen/kgen.c); c is an extension
 * constant so that it is built in the extension's own containers (FB).
 */
FFU_INLINE FP_t FFU_FN(scale_)(FP_t a, FP_t c)
{
	return FFU_FN(of_)(FFU_BFN(mul)(a.c0, c.c0), FFU_BFN(mul)(a.c1, c.c0));
}

FFU_INLINE FP_t FFU_FN(to_mont)(FP_t a)
{
	return FFU_FN(of_)(FFU_BFN(to_mont)(a.c0), FFU_BFN(to_mont)(a.c1));
}

FFU_INLINE FP_t FFU_FN(from_mont)(FP_t a)
{
	return FFU_FN(of_)(FFU_BFN(from_mont)(a.c0), FFU_BFN(from_mont)(a.c1));
}

/* The prime field's element as the constant coefficient: keeps its form (linear). */
FFU_INLINE FP_t FFU_FN(from_base)(FB_t c)
{
	return FFU_FN(of_)(c, FFU_BFN(from_u32)(0u));
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
	return FFU_BFN(eq)(a.c0, b.c0) & FFU_BFN(eq)(a.c1, b.c1);
}

#undef FB_t
#undef FP_t
