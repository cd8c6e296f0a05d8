/*
 * cl/ext4.cl: device arithmetic template for quartic extensions F_p[u]/(u^4 - W)
 * (babybearx4 with W = 11, koalabearx4 with W = 3). Owned by the fields engineer;
 * instantiated by src/codegen/field_cl.c after the prime field's own template, with the
 * same macros and generated helpers as cl/ext2.cl (FP, FB, FX_W, FX_BWORDS, FFU_FN(mulw_),
 * FFU_FN(addw_), FFU_FN(subw_)), which it #undefs after this text.
 *
 * An element is c0 + c1 u + c2 u^2 + c3 u^3, each coefficient in the prime field's device
 * form; the form rules of cl/ext2.cl hold here too (mul(m, c) = c, mul(m, m) = m,
 * sqr(m) = m, inv(m) = m; a multiply by W is adds only). No data-dependent branches.
 */

#define FP_t FFU_FN(t)
#define FB_t FFU_BFN(t)

typedef struct {
	FB_t c0, c1, c2, c3;
} FP_t;

/*
 * Element i is the prime field's elements 4i .. 4i + 3 of the same buffer. On CPU
 * devices (PoCL, llvmpipe) the stores address coefficient k through k * z, z = 1 that the
 * compiler cannot prove constant (get_global_size(0) != 0): 4 provably adjacent stores
 * seed LLVM's SLP vectorizer, which packs the 4 coefficient computations of one work-item
 * into vector instructions before PoCL builds its work-group loop, and the loop vectorizer
 * then gives up on the vector-typed body ("instruction return type cannot be vectorized").
 * Loads stay adjacent (the loop vectorizer turns them into interleaved loads). Measured on
 * PoCL at 2^20, babybearx4: one product 3.0-3.9 ms (10-12 ms with adjacent stores), 8
 * chained products 17-25 ms (85 ms; 32 ms with loads through z too), an add 1.5-1.8 ms
 * (3.7 ms with loads through z). GPUs get one wide access per element instead
 * (FFU_VECTOR_LOADS, as cl/montn.cl, or NVIDIA's compiler).
 */
#if !defined(FFU_SCALAR_LOADS) && (defined(FFU_VECTOR_LOADS) || defined(__NV_CL_C_VERSION)) && FX_BWORDS == 1
FFU_INLINE FP_t FFU_FN(load)(__global const uint *buf, size_t i)
{
	uint4 w = vload4(i, buf);
	FP_t r;
	r.c0 = FFU_BFN(make)(w.s0);
	r.c1 = FFU_BFN(make)(w.s1);
	r.c2 = FFU_BFN(make)(w.s2);
	r.c3 = FFU_BFN(make)(w.s3);
	return r;
}

FFU_INLINE void FFU_FN(store)(__global uint *buf, size_t i, FP_t v)
{
	vstore4((uint4)((uint)v.c0, (uint)v.c1, (uint)v.c2, (uint)v.c3), i, buf);
}
#else
FFU_INLINE FP_t FFU_FN(load)(__global const uint *buf, size_t i)
{
	FP_t r;
	r.c0 = FFU_BFN(load)(buf, 4 * i);
	r.c1 = FFU_BFN(load)(buf, 4 * i + 1);
	r.c2 = FFU_BFN(load)(buf, 4 * i + 2);
	r.c3 = FFU_BFN(load)(buf, 4 * i + 3);
	return r;
}

FFU_INLINE void FFU_FN(store)(__global uint *buf, size_t i, FP_t v)
{
	size_t z = get_global_size(0) != 0;
	FFU_BFN(store)(buf, 4 * i, v.c0);
	FFU_BFN(store)(buf, 4 * i + z, v.c1);
	FFU_BFN(store)(buf, 4 * i + 2 * z, v.c2);
	FFU_BFN(store)(buf, 4 * i + 3 * z, v.c3);
}
#endif

FFU_INLINE FP_t FFU_FN(of_)(FB_t c0, FB_t c1, FB_t c2, FB_t c3)
{
	FP_t r;
	r.c0 = c0;
	r.c1 = c1;
	r.c2 = c2;
	r.c3 = c3;
	return r;
}

/* The storage words, least significant first (ffu__cl_emit_const). */
#if FX_BWORDS == 1
FFU_INLINE FP_t FFU_FN(make)(uint w0, uint w1, uint w2, uint w3)
{
	return FFU_FN(of_)(FFU_BFN(make)(w0), FFU_BFN(make)(w1), FFU_BFN(make)(w2), FFU_BFN(make)(w3));
}
#else
FFU_INLINE FP_t FFU_FN(make)(uint w0, uint w1, uint w2, uint w3, uint w4, uint w5, uint w6, uint w7)
{
	return FFU_FN(of_)(FFU_BFN(make)(w0, w1), FFU_BFN(make)(w2, w3), FFU_BFN(make)(w4, w5),
			   FFU_BFN(make)(w6, w7));
}
#endif

FFU_INLINE FP_t FFU_FN(add)(FP_t a, FP_t b)
{
	return FFU_FN(of_)(FFU_BFN(add)(a.c0, b.c0), FFU_BFN(add)(a.c1, b.c1), FFU_BFN(add)(a.c2, b.c2),
			   FFU_BFN(add)(a.c3, b.c3));
}

FFU_INLINE FP_t FFU_FN(sub)(FP_t a, FP_t b)
{
	return FFU_FN(of_)(FFU_BFN(sub)(a.c0, b.c0), FFU_BFN(sub)(a.c1, b.c1), FFU_BFN(sub)(a.c2, b.c2),
			   FFU_BFN(sub)(a.c3, b.c3));
}

FFU_INLINE FP_t FFU_FN(neg)(FP_t a)
{
	return FFU_FN(of_)(FFU_BFN(neg)(a.c0), FFU_BFN(neg)(a.c1), FFU_BFN(neg)(a.c2), FFU_BFN(neg)(a.c3));
}

/*
 * Schoolbook with W folded into b: u^4 = W turns a_i b_j with i + j >= 4 into
 * W a_i b_j u^(i+j-4), so with bw_k = W b_k
 *   c0 = a0 b0 + a1 bw3 + a2 bw2 + a3 bw1     c1 = a0 b1 + a1 b0 + a2 bw3 + a3 bw2
 *   c2 = a0 b2 + a1 b1 + a2 b0 + a3 bw3       c3 = a0 b3 + a1 b2 + a2 b1 + a3 b0
 * 16 prime products, 12 adds, 3 multiplies by W (adds). Karatsuba's 9 products would cost
 * about 40 more adds: for the 31-bit fields, where a product costs about two adds, no gain is
 * expected (not measured). With FX_DOT4 (31-bit Montgomery primes) each coefficient is
 * one dot4_: its 4 products summed in 64 bits, one reduction (4 reductions, not 16). PoCL at
 * 2^20, 8 chained babybearx4 products: 11.6 ms -> 8.3 ms; sumcheck_bbx4 12.2 -> 9.0 ms.
 */
FFU_INLINE FP_t FFU_FN(mul)(FP_t a, FP_t b)
{
	FB_t bw1 = FFU_FN(mulw_)(b.c1), bw2 = FFU_FN(mulw_)(b.c2), bw3 = FFU_FN(mulw_)(b.c3);
#ifdef FX_DOT4
	/* one reduction per coefficient (the prime template's dot4_) */
	return FFU_FN(of_)(FFU_BFN(dot4_)(a.c0, b.c0, a.c1, bw3, a.c2, bw2, a.c3, bw1),
			   FFU_BFN(dot4_)(a.c0, b.c1, a.c1, b.c0, a.c2, bw3, a.c3, bw2),
			   FFU_BFN(dot4_)(a.c0, b.c2, a.c1, b.c1, a.c2, b.c0, a.c3, bw3),
			   FFU_BFN(dot4_)(a.c0, b.c3, a.c1, b.c2, a.c2, b.c1, a.c3, b.c0));
#else
	FB_t c0 = FFU_BFN(add)(FFU_BFN(add)(FFU_BFN(mul)(a.c0, b.c0), FFU_BFN(mul)(a.c1, bw3)),
			       FFU_BFN(add)(FFU_BFN(mul)(a.c2, bw2), FFU_BFN(mul)(a.c3, bw1)));
	FB_t c1 = FFU_BFN(add)(FFU_BFN(add)(FFU_BFN(mul)(a.c0, b.c1), FFU_BFN(mul)(a.c1, b.c0)),
			       FFU_BFN(add)(FFU_BFN(mul)(a.c2, bw3), FFU_BFN(mul)(a.c3, bw2)));
	FB_t c2 = FFU_BFN(add)(FFU_BFN(add)(FFU_BFN(mul)(a.c0, b.c2), FFU_BFN(mul)(a.c1, b.c1)),
			       FFU_BFN(add)(FFU_BFN(mul)(a.c2, b.c0), FFU_BFN(mul)(a.c3, bw3)));
	FB_t c3 = FFU_BFN(add)(FFU_BFN(add)(FFU_BFN(mul)(a.c0, b.c3), FFU_BFN(mul)(a.c1, b.c2)),
			       FFU_BFN(add)(FFU_BFN(mul)(a.c2, b.c1), FFU_BFN(mul)(a.c3, b.c0)));
	return FFU_FN(of_)(c0, c1, c2, c3);
#endif
}

/*
 * 10 prime products (4 squares, 6 cross products taken once with one factor doubled):
 *   c0 = a0^2 + W (2 a1 a3 + a2^2)     c1 = 2 a0 a1 + W (2 a2 a3)
 *   c2 = a1^2 + 2 a0 a2 + W a3^2       c3 = 2 a0 a3 + 2 a1 a2
 */
FFU_INLINE FP_t FFU_FN(sqr)(FP_t a)
{
	FB_t d0 = FFU_BFN(add)(a.c0, a.c0), d1 = FFU_BFN(add)(a.c1, a.c1), d2 = FFU_BFN(add)(a.c2, a.c2);
#ifdef FX_DOT4
	FB_t aw2 = FFU_FN(mulw_)(a.c2), aw3 = FFU_FN(mulw_)(a.c3), z = FFU_BFN(from_u32)(0u);
	return FFU_FN(of_)(FFU_BFN(dot4_)(a.c0, a.c0, d1, aw3, a.c2, aw2, z, z),
			   FFU_BFN(dot4_)(d0, a.c1, d2, aw3, z, z, z, z),
			   FFU_BFN(dot4_)(a.c1, a.c1, d0, a.c2, a.c3, aw3, z, z),
			   FFU_BFN(dot4_)(d0, a.c3, d1, a.c2, z, z, z, z));
#else
	FB_t c0 = FFU_FN(addw_)(FFU_BFN(sqr)(a.c0),
				FFU_BFN(add)(FFU_BFN(mul)(d1, a.c3), FFU_BFN(sqr)(a.c2)));
	FB_t c1 = FFU_FN(addw_)(FFU_BFN(mul)(d0, a.c1), FFU_BFN(mul)(d2, a.c3));
	FB_t c2 = FFU_FN(addw_)(FFU_BFN(add)(FFU_BFN(sqr)(a.c1), FFU_BFN(mul)(d0, a.c2)),
				FFU_BFN(sqr)(a.c3));
	FB_t c3 = FFU_BFN(add)(FFU_BFN(mul)(d0, a.c3), FFU_BFN(mul)(d1, a.c2));
	return FFU_FN(of_)(c0, c1, c2, c3);
#endif
}

/*
 * Inverse through the norm (as fields/ext.c): a = e + o u with e = c0 + c2 v,
 * o = c1 + c3 v in L = F_p[v]/(v^2 - W), v = u^2. u -> -u is an automorphism fixing L,
 * so y = a (e - o u) = e^2 - v o^2 lies in L and is 0 only for a = 0; then
 * a^-1 = (e - o u) y^-1, with y^-1 = (y0 - y1 v) / (y0^2 - W y1^2) as in cl/ext2.cl.
 * 18 prime products and one prime inversion; inverse(0) = 0. Montgomery form in and out.
 */
FFU_INLINE FP_t FFU_FN(inv)(FP_t a)
{
	/* e^2 and o^2 in L: (x0 + x1 v)^2 = x0^2 + W x1^2 + 2 x0 x1 v */
	FB_t eo = FFU_BFN(mul)(a.c0, a.c2), oo = FFU_BFN(mul)(a.c1, a.c3);
	FB_t e0 = FFU_FN(addw_)(FFU_BFN(sqr)(a.c0), FFU_BFN(sqr)(a.c2)), e1 = FFU_BFN(add)(eo, eo);
	FB_t o0 = FFU_FN(addw_)(FFU_BFN(sqr)(a.c1), FFU_BFN(sqr)(a.c3)), o1 = FFU_BFN(add)(oo, oo);
	/* y = e^2 - v o^2, v (o0 + o1 v) = W o1 + o0 v */
	FB_t y0 = FFU_FN(subw_)(e0, o1), y1 = FFU_BFN(sub)(e1, o0);
	FB_t ni = FFU_BFN(inv)(FFU_FN(subw_)(FFU_BFN(sqr)(y0), FFU_BFN(sqr)(y1)));
	FB_t z0 = FFU_BFN(mul)(y0, ni), z1 = FFU_BFN(neg)(FFU_BFN(mul)(y1, ni));
	/* (c0 + c2 v) z and (c1 + c3 v) z in L, the odd part negated */
	FB_t r0 = FFU_FN(addw_)(FFU_BFN(mul)(a.c0, z0), FFU_BFN(mul)(a.c2, z1));
	FB_t r2 = FFU_BFN(add)(FFU_BFN(mul)(a.c0, z1), FFU_BFN(mul)(a.c2, z0));
	FB_t r1 = FFU_FN(addw_)(FFU_BFN(mul)(a.c1, z0), FFU_BFN(mul)(a.c3, z1));
	FB_t r3 = FFU_BFN(add)(FFU_BFN(mul)(a.c1, z1), FFU_BFN(mul)(a.c3, z0));
	return FFU_FN(of_)(r0, FFU_BFN(neg)(r1), r2, FFU_BFN(neg)(r3));
}

/*
 * a times c's constant coefficient, c = (k, 0, ...): 4 prime products instead of a full
 * product's. What a `_mont` twin over a canonical prime template (Mersenne31, Goldilocks)
 * multiplies by at load (k = R^-1) and store (k = R) (src/codegen/kgen.c); c is an extension
 * constant so that it is built in the extension's own containers (FB).
 */
FFU_INLINE FP_t FFU_FN(scale_)(FP_t a, FP_t c)
{
	return FFU_FN(of_)(FFU_BFN(mul)(a.c0, c.c0), FFU_BFN(mul)(a.c1, c.c0), FFU_BFN(mul)(a.c2, c.c0), FFU_BFN(mul)(a.c3, c.c0));
}

FFU_INLINE FP_t FFU_FN(to_mont)(FP_t a)
{
	return FFU_FN(of_)(FFU_BFN(to_mont)(a.c0), FFU_BFN(to_mont)(a.c1), FFU_BFN(to_mont)(a.c2),
			   FFU_BFN(to_mont)(a.c3));
}

FFU_INLINE FP_t FFU_FN(from_mont)(FP_t a)
{
	return FFU_FN(of_)(FFU_BFN(from_mont)(a.c0), FFU_BFN(from_mont)(a.c1), FFU_BFN(from_mont)(a.c2),
			   FFU_BFN(from_mont)(a.c3));
}

/* The prime field's element as the constant coefficient: keeps its form (linear). */
FFU_INLINE FP_t FFU_FN(from_base)(FB_t c)
{
	FB_t z = FFU_BFN(from_u32)(0u);
	return FFU_FN(of_)(c, z, z, z);
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
	return FFU_BFN(eq)(a.c0, b.c0) & FFU_BFN(eq)(a.c1, b.c1) & FFU_BFN(eq)(a.c2, b.c2) &
	       FFU_BFN(eq)(a.c3, b.c3);
}

#undef FB_t
#undef FP_t
