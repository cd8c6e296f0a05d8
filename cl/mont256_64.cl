/*
 * cl/mont256_64.cl: the 64-bit-limb variant of cl/mont256.cl: same fields (p < 2^255), same
 * Montgomery radix R = 2^256 and same element storage (8 little-endian words), so values
 * and every function's result are identical; only the arithmetic inside differs: 4 x 64-bit
 * limbs, CIOS with 64x64->128 products from `*` and mul_hi. Owned by the fields engineer.
 * src/codegen/field_cl.c emits it instead of cl/mont256.cl where FFU_MONT256_LIMB64 is
 * defined (a build option, or ffu__cl_emit_fields_opts with limb_bits = 64: the device
 * profile's choice), with the macros of cl/mont256.cl plus FP_PINV64 = -p^-1 mod 2^64.
 *
 * Bounds as in cl/mont256.cl with 64-bit words: t + a * b_i + m * p < 2^65 p + 2p, so each
 * row's top word t4 and the carry into it fit, the value after each row is < 2p < 2^256,
 * and one conditional subtraction ends the product. A multiply-accumulate
 * a * b + t + c <= 2^128 - 1 fits lo:hi; carries come from 128-bit integers where the
 * compiler has them on a CPU, else from unsigned compares.
 * Conditional corrections are masks, never divergent branches.
 */

#define FP_t FFU_FN(t)

typedef struct {
	ulong v[4];
} FP_t;

#define FFU_M64_W(lo, hi) ((ulong)(hi) << 32 | (ulong)(lo))
#define FFU_M64_P0 FFU_M64_W(FP_P0, FP_P1)
#define FFU_M64_P1 FFU_M64_W(FP_P2, FP_P3)
#define FFU_M64_P2 FFU_M64_W(FP_P4, FP_P5)
#define FFU_M64_P3 FFU_M64_W(FP_P6, FP_P7)

/*
 * Where the compiler has a 128-bit integer on a 64-bit CPU (PoCL and Rusticl on x86-64 or
 * AArch64: clang defines __SIZEOF_INT128__), the multiply-accumulate is one 64x64 -> 128
 * multiply and the carries are add-with-carry chains: PoCL, quotient (scalar loops) at 2^18,
 * 31.7 ms -> 16.5 ms. GPUs and other compilers keep the compare-based carries below;
 * FFU_NO_INT128 forces them (tests).
 */
#if defined(__SIZEOF_INT128__) && (defined(__x86_64__) || defined(__aarch64__)) && !defined(FFU_NO_INT128)
/* lo, c = t + a * b + c; r, c = x + y + c; r, br = x - y - br (the borrow is bit 127) */
#define FFU_M64_MAC(lo, c, a, b, t) \
	{ \
		unsigned __int128 w_ = (unsigned __int128)(ulong)(a) * (ulong)(b) + (ulong)(t) + (ulong)(c); \
		(lo) = (ulong)w_; \
		(c) = (ulong)(w_ >> 64); \
	}
#define FFU_M64_ADC(r, c, x, y) \
	{ \
		unsigned __int128 w_ = (unsigned __int128)(ulong)(x) + (ulong)(y) + (ulong)(c); \
		(r) = (ulong)w_; \
		(c) = (ulong)(w_ >> 64); \
	}
#define FFU_M64_SBB(r, br, x, y) \
	{ \
		unsigned __int128 w_ = (unsigned __int128)(ulong)(x) - (ulong)(y) - (ulong)(br); \
		(r) = (ulong)w_; \
		(br) = (ulong)(w_ >> 127); \
	}
#else
/* lo, c = t + a * b + c (t may be the same variable as lo: it is read before lo is set) */
#define FFU_M64_MAC(lo, c, a, b, t) \
	{ \
		ulong l_ = (a) * (b), h_ = mul_hi((ulong)(a), (ulong)(b)); \
		l_ += (t); \
		h_ += (ulong)(l_ < (t)); \
		l_ += (c); \
		h_ += (ulong)(l_ < (c)); \
		(lo) = l_; \
		(c) = h_; \
	}
/* r, c = x + y + c (c is 0 or 1) */
#define FFU_M64_ADC(r, c, x, y) \
	{ \
		ulong s_ = (x) + (y); \
		ulong k_ = (ulong)(s_ < (x)); \
		s_ += (c); \
		k_ += (ulong)(s_ < (c)); \
		(r) = s_; \
		(c) = k_; \
	}
/* r, br = x - y - br (br is 0 or 1) */
#define FFU_M64_SBB(r, br, x, y) \
	{ \
		ulong d_ = (x) - (y); \
		ulong k_ = (ulong)((x) < (y)); \
		k_ += (ulong)(d_ < (br)); \
		(r) = d_ - (br); \
		(br) = k_; \
	}
#endif

/* Element i is words 8i .. 8i+7, read as 4 ulongs (OpenCL buffers are ulong-aligned). */
#if !defined(FFU_SCALAR_LOADS) && (defined(FFU_VECTOR_LOADS) || defined(__NV_CL_C_VERSION))
FFU_INLINE FP_t FFU_FN(load)(__global const uint *buf, size_t i)
{
	ulong4 w = vload4(i, (__global const ulong *)buf);
	FP_t r;
	r.v[0] = w.s0;
	r.v[1] = w.s1;
	r.v[2] = w.s2;
	r.v[3] = w.s3;
	return r;
}

FFU_INLINE void FFU_FN(store)(__global uint *buf, size_t i, FP_t v)
{
	vstore4((ulong4)(v.v[0], v.v[1], v.v[2], v.v[3]), i, (__global ulong *)buf);
}
#else
FFU_INLINE FP_t FFU_FN(load)(__global const uint *buf, size_t i)
{
	__global const ulong *p = (__global const ulong *)buf + 4 * i;
	FP_t r;
	r.v[0] = p[0];
	r.v[1] = p[1];
	r.v[2] = p[2];
	r.v[3] = p[3];
	return r;
}

FFU_INLINE void FFU_FN(store)(__global uint *buf, size_t i, FP_t v)
{
	__global ulong *p = (__global ulong *)buf + 4 * i;
	p[0] = v.v[0];
	p[1] = v.v[1];
	p[2] = v.v[2];
	p[3] = v.v[3];
}
#endif

FFU_INLINE FP_t FFU_FN(make)(uint w0, uint w1, uint w2, uint w3, uint w4, uint w5, uint w6, uint w7)
{
	FP_t r;
	r.v[0] = FFU_M64_W(w0, w1);
	r.v[1] = FFU_M64_W(w2, w3);
	r.v[2] = FFU_M64_W(w4, w5);
	r.v[3] = FFU_M64_W(w6, w7);
	return r;
}

/* t - p if t >= p, else t; for t < 2p. */
FFU_INLINE FP_t FFU_FN(csub_)(ulong t0, ulong t1, ulong t2, ulong t3)
{
	ulong r0, r1, r2, r3, br = 0;
	FFU_M64_SBB(r0, br, t0, FFU_M64_P0)
	FFU_M64_SBB(r1, br, t1, FFU_M64_P1)
	FFU_M64_SBB(r2, br, t2, FFU_M64_P2)
	FFU_M64_SBB(r3, br, t3, FFU_M64_P3)
	ulong keep = 0UL - br; /* all ones when t < p */
	FP_t r;
	r.v[0] = (t0 & keep) | (r0 & ~keep);
	r.v[1] = (t1 & keep) | (r1 & ~keep);
	r.v[2] = (t2 & keep) | (r2 & ~keep);
	r.v[3] = (t3 & keep) | (r3 & ~keep);
	return r;
}

FFU_INLINE FP_t FFU_FN(add)(FP_t a, FP_t b)
{
	ulong s0, s1, s2, s3, c = 0;
	FFU_M64_ADC(s0, c, a.v[0], b.v[0])
	FFU_M64_ADC(s1, c, a.v[1], b.v[1])
	FFU_M64_ADC(s2, c, a.v[2], b.v[2])
	FFU_M64_ADC(s3, c, a.v[3], b.v[3])
	return FFU_FN(csub_)(s0, s1, s2, s3);
}

FFU_INLINE FP_t FFU_FN(sub)(FP_t a, FP_t b)
{
	ulong d0, d1, d2, d3, br = 0;
	FFU_M64_SBB(d0, br, a.v[0], b.v[0])
	FFU_M64_SBB(d1, br, a.v[1], b.v[1])
	FFU_M64_SBB(d2, br, a.v[2], b.v[2])
	FFU_M64_SBB(d3, br, a.v[3], b.v[3])
	/* add p back, masked to zero unless the difference went negative */
	ulong mask = 0UL - br, c = 0;
	FP_t r;
	FFU_M64_ADC(r.v[0], c, d0, FFU_M64_P0 & mask)
	FFU_M64_ADC(r.v[1], c, d1, FFU_M64_P1 & mask)
	FFU_M64_ADC(r.v[2], c, d2, FFU_M64_P2 & mask)
	FFU_M64_ADC(r.v[3], c, d3, FFU_M64_P3 & mask)
	return r;
}

FFU_INLINE FP_t FFU_FN(neg)(FP_t a)
{
	FP_t z = FFU_FN(make)(0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u);
	return FFU_FN(sub)(z, a);
}

/*
 * One CIOS row: t += a * bi (the carry becomes t4), m = t0 * -p^-1 mod 2^64 makes
 * t + m p divisible by 2^64, and the shift by one word is folded into the accumulation.
 */
#define FFU_M64_ROW(bi) \
	{ \
		ulong c = 0, m, l; \
		FFU_M64_MAC(t0, c, a.v[0], (bi), t0) \
		FFU_M64_MAC(t1, c, a.v[1], (bi), t1) \
		FFU_M64_MAC(t2, c, a.v[2], (bi), t2) \
		FFU_M64_MAC(t3, c, a.v[3], (bi), t3) \
		t4 = c; \
		m = t0 * FP_PINV64; \
		c = 0; \
		FFU_M64_MAC(l, c, m, FFU_M64_P0, t0) /* l = 0: only the carry */ \
		FFU_M64_MAC(t0, c, m, FFU_M64_P1, t1) \
		FFU_M64_MAC(t1, c, m, FFU_M64_P2, t2) \
		FFU_M64_MAC(t2, c, m, FFU_M64_P3, t3) \
		t3 = t4 + c; \
	}

/* Montgomery product a * b * 2^-256 mod p: 16 + 16 64-bit products (each `*` and mul_hi). */
FFU_INLINE FP_t FFU_FN(mul)(FP_t a, FP_t b)
{
	ulong t0 = 0, t1 = 0, t2 = 0, t3 = 0, t4;
	FFU_M64_ROW(b.v[0])
	FFU_M64_ROW(b.v[1])
	FFU_M64_ROW(b.v[2])
	FFU_M64_ROW(b.v[3])
	return FFU_FN(csub_)(t0, t1, t2, t3);
}

/*
 * Dedicated squaring (SOS, as cl/mont256.cl's): the 6 cross products once, doubled, plus the
 * 4 squares, then four Montgomery reduction rows carrying into the next word through hc:
 * 26 64-bit products instead of 32. Bounds as there: the final hc is zero and the result
 * T4..T7 < 2p.
 */
#define FFU_M64_SQR_REDC(w0, w1, w2, w3, w4) \
	{ \
		ulong m = (w0) * FP_PINV64, c = 0, z; \
		FFU_M64_MAC(z, c, m, FFU_M64_P0, w0) /* z = 0: only the carry */ \
		FFU_M64_MAC(w1, c, m, FFU_M64_P1, w1) \
		FFU_M64_MAC(w2, c, m, FFU_M64_P2, w2) \
		FFU_M64_MAC(w3, c, m, FFU_M64_P3, w3) \
		FFU_M64_ADC(w4, hc, w4, c) \
	}
/* T[2i], T[2i+1] += a_i^2, k the carry between them */
#define FFU_M64_SQR_ADD(lo, hi, x) \
	{ \
		ulong sl = 0, sh = 0; \
		FFU_M64_MAC(sl, sh, x, x, 0UL) \
		FFU_M64_ADC(lo, k, lo, sl) \
		FFU_M64_ADC(hi, k, hi, sh) \
	}

FFU_INLINE FP_t FFU_FN(sqr)(FP_t a)
{
	ulong T0 = 0, T1 = 0, T2 = 0, T3 = 0, T4 = 0, T5 = 0, T6 = 0, T7 = 0, c, k = 0, hc = 0;
	/* cross products, row i covers a_i * a_(i+1..3) */
	c = 0;
	FFU_M64_MAC(T1, c, a.v[0], a.v[1], T1)
	FFU_M64_MAC(T2, c, a.v[0], a.v[2], T2)
	FFU_M64_MAC(T3, c, a.v[0], a.v[3], T3)
	T4 = c;
	c = 0;
	FFU_M64_MAC(T3, c, a.v[1], a.v[2], T3)
	FFU_M64_MAC(T4, c, a.v[1], a.v[3], T4)
	T5 = c;
	c = 0;
	FFU_M64_MAC(T5, c, a.v[2], a.v[3], T5)
	T6 = c;
	/* double: shift left by one bit (T7 is still zero) */
	T7 = T6 >> 63;
	T6 = (T6 << 1) | (T5 >> 63);
	T5 = (T5 << 1) | (T4 >> 63);
	T4 = (T4 << 1) | (T3 >> 63);
	T3 = (T3 << 1) | (T2 >> 63);
	T2 = (T2 << 1) | (T1 >> 63);
	T1 = T1 << 1;
	FFU_M64_SQR_ADD(T0, T1, a.v[0])
	FFU_M64_SQR_ADD(T2, T3, a.v[1])
	FFU_M64_SQR_ADD(T4, T5, a.v[2])
	FFU_M64_SQR_ADD(T6, T7, a.v[3])
	FFU_M64_SQR_REDC(T0, T1, T2, T3, T4)
	FFU_M64_SQR_REDC(T1, T2, T3, T4, T5)
	FFU_M64_SQR_REDC(T2, T3, T4, T5, T6)
	FFU_M64_SQR_REDC(T3, T4, T5, T6, T7)
	return FFU_FN(csub_)(T4, T5, T6, T7);
}
#undef FFU_M64_SQR_ADD
#undef FFU_M64_SQR_REDC

FFU_INLINE FP_t FFU_FN(to_mont)(FP_t a)
{
	return FFU_FN(mul)(a, FFU_FN(make)(FP_R2_0, FP_R2_1, FP_R2_2, FP_R2_3, FP_R2_4, FP_R2_5, FP_R2_6, FP_R2_7));
}

FFU_INLINE FP_t FFU_FN(from_mont)(FP_t a)
{
	return FFU_FN(mul)(a, FFU_FN(make)(1u, 0u, 0u, 0u, 0u, 0u, 0u, 0u));
}

/* Integers are below p already: just the words. */
FFU_INLINE FP_t FFU_FN(from_u32)(uint x)
{
	return FFU_FN(make)(x, 0u, 0u, 0u, 0u, 0u, 0u, 0u);
}

FFU_INLINE FP_t FFU_FN(from_u64)(ulong x)
{
	return FFU_FN(make)((uint)x, (uint)(x >> 32), 0u, 0u, 0u, 0u, 0u, 0u);
}

FFU_INLINE int FFU_FN(eq)(FP_t a, FP_t b)
{
	ulong d = (a.v[0] ^ b.v[0]) | (a.v[1] ^ b.v[1]) | (a.v[2] ^ b.v[2]) | (a.v[3] ^ b.v[3]);
	return d == 0;
}

/*
 * a < b on canonical values (every value this template holds is fully reduced, so its
 * integer is the canonical one): ordered compares, maximum, minimum and clamp (ir/order.c,
 * src/codegen/kgen.c). Added by the ordered-ops work, not the fields engineer.
 */
FFU_INLINE int FFU_FN(lt)(FP_t a, FP_t b)
{
	int lt = 0;
	for (int k = 0; k < 4; k++) /* least significant limb first: a higher limb decides */
		lt = (a.v[k] < b.v[k]) | ((a.v[k] == b.v[k]) & lt);
	return lt;
}

#undef FFU_M64_ROW
#undef FFU_M64_SBB
#undef FFU_M64_ADC
#undef FFU_M64_MAC
#undef FFU_M64_P3
#undef FFU_M64_P2
#undef FFU_M64_P1
#undef FFU_M64_P0
#undef FFU_M64_W
#undef FP_t
