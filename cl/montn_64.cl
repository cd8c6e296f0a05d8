/*
 * cl/montn_64.cl: the 64-bit-limb variant of cl/montn.cl: same fields, same Montgomery
 * radix R = 2^(32 FP_NW) and same element storage (FP_NW little-endian words), so values
 * and every function's result are identical; only the arithmetic inside differs: FP_NW / 2
 * 64-bit limbs, CIOS with 64x64->128 products. Owned by the fields engineer.
 * src/codegen/field_cl.c emits it instead of cl/montn.cl where FFU_MONT256_LIMB64 is
 * defined (a build option, or ffu__cl_emit_fields_opts with limb_bits = 64: the device
 * profile's choice), with the macros of cl/montn.cl (FP_PINV64 = -p^-1 mod 2^64 is the one
 * used here); cl/montn_ops.cl follows either.
 *
 * Bounds as in cl/montn.cl with 64-bit words: t + a * b_i + m * p < 2^65 p + 2p, so each
 * row's top word and the carry into it fit, the value after each row is < 2p < R, and one
 * conditional subtraction ends the product. A multiply-accumulate
 * a * b + t + c <= 2^128 - 1 fits lo:hi; carries come from 128-bit integers where the
 * compiler has them on a CPU, else from unsigned compares. Loops over the limbs have
 * constant bounds and `#pragma unroll`, as in cl/montn.cl.
 * Conditional corrections are masks, never divergent branches.
 */

#define FP_t FFU_FN(t)

typedef struct {
	ulong v[FP_NW / 2];
} FP_t;

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

/* Element i is words FP_NW i .. FP_NW i + FP_NW - 1, read as ulongs (OpenCL buffers are
   ulong-aligned); GPUs get 128-bit accesses (vload2), as cl/montn.cl says why. */
#if !defined(FFU_SCALAR_LOADS) && (defined(FFU_VECTOR_LOADS) || defined(__NV_CL_C_VERSION))
FFU_INLINE FP_t FFU_FN(load)(__global const uint *buf, size_t i)
{
	FP_t r;
	#pragma unroll
	for (int q = 0; q < FP_NW / 4; q++) {
		ulong2 w = vload2(i * (FP_NW / 4) + q, (__global const ulong *)buf);
		r.v[2 * q] = w.s0;
		r.v[2 * q + 1] = w.s1;
	}
	return r;
}

FFU_INLINE void FFU_FN(store)(__global uint *buf, size_t i, FP_t v)
{
	#pragma unroll
	for (int q = 0; q < FP_NW / 4; q++)
		vstore2((ulong2)(v.v[2 * q], v.v[2 * q + 1]), i * (FP_NW / 4) + q, (__global ulong *)buf);
}
#else
FFU_INLINE FP_t FFU_FN(load)(__global const uint *buf, size_t i)
{
	__global const ulong *p = (__global const ulong *)buf + (FP_NW / 2) * i;
	FP_t r;
	#pragma unroll
	for (int k = 0; k < FP_NW / 2; k++)
		r.v[k] = p[k];
	return r;
}

FFU_INLINE void FFU_FN(store)(__global uint *buf, size_t i, FP_t v)
{
	__global ulong *p = (__global ulong *)buf + (FP_NW / 2) * i;
	#pragma unroll
	for (int k = 0; k < FP_NW / 2; k++)
		p[k] = v.v[k];
}
#endif

/* The element of these FP_NW storage words (make, cl/montn_ops.cl). */
FFU_INLINE FP_t FFU_FN(of_words_)(const uint *w)
{
	FP_t r;
	#pragma unroll
	for (int k = 0; k < FP_NW / 2; k++)
		r.v[k] = (ulong)w[2 * k + 1] << 32 | (ulong)w[2 * k];
	return r;
}

/* The element hi * 2^32 + lo (integers, 0 and 1). */
FFU_INLINE FP_t FFU_FN(small_)(uint lo, uint hi)
{
	FP_t r;
	r.v[0] = (ulong)hi << 32 | (ulong)lo;
	#pragma unroll
	for (int k = 1; k < FP_NW / 2; k++)
		r.v[k] = 0UL;
	return r;
}

/* p's limbs, constants once inlined: P_.v[k] */
#define FFU_M64_P \
	const uint pw_[FP_NW] = {FP_PS}; \
	const FP_t P_ = FFU_FN(of_words_)(pw_)

/* t - p if t >= p, else t; for t < 2p. */
FFU_INLINE FP_t FFU_FN(csub_)(const ulong *t)
{
	FFU_M64_P;
	ulong r[FP_NW / 2], br = 0;
	#pragma unroll
	for (int k = 0; k < FP_NW / 2; k++)
		FFU_M64_SBB(r[k], br, t[k], P_.v[k])
	ulong keep = 0UL - br; /* all ones when t < p */
	FP_t o;
	#pragma unroll
	for (int k = 0; k < FP_NW / 2; k++)
		o.v[k] = (t[k] & keep) | (r[k] & ~keep);
	return o;
}

FFU_INLINE FP_t FFU_FN(add)(FP_t a, FP_t b)
{
	ulong s[FP_NW / 2], c = 0;
	#pragma unroll
	for (int k = 0; k < FP_NW / 2; k++)
		FFU_M64_ADC(s[k], c, a.v[k], b.v[k])
	return FFU_FN(csub_)(s);
}

FFU_INLINE FP_t FFU_FN(sub)(FP_t a, FP_t b)
{
	FFU_M64_P;
	ulong d[FP_NW / 2], br = 0;
	#pragma unroll
	for (int k = 0; k < FP_NW / 2; k++)
		FFU_M64_SBB(d[k], br, a.v[k], b.v[k])
	/* add p back, masked to zero unless the difference went negative */
	ulong mask = 0UL - br, c = 0;
	FP_t r;
	#pragma unroll
	for (int k = 0; k < FP_NW / 2; k++)
		FFU_M64_ADC(r.v[k], c, d[k], P_.v[k] & mask)
	return r;
}

/*
 * Montgomery product a * b / R mod p (8 words: 16 + 16 64-bit products). Per limb of b:
 * t += a * b_i (the carry becomes the top word), m = t0 * -p^-1 mod 2^64 makes t + m p
 * divisible by 2^64, and the shift by one word is folded into the accumulation.
 */
FFU_INLINE FP_t FFU_FN(mul)(FP_t a, FP_t b)
{
	FFU_M64_P;
	ulong t[FP_NW / 2 + 1] = {0};
	#pragma unroll
	for (int i = 0; i < FP_NW / 2; i++) {
		ulong bi = b.v[i], c = 0, m, l;
		#pragma unroll
		for (int j = 0; j < FP_NW / 2; j++)
			FFU_M64_MAC(t[j], c, a.v[j], bi, t[j])
		t[FP_NW / 2] = c;
		m = t[0] * FP_PINV64;
		c = 0;
		FFU_M64_MAC(l, c, m, P_.v[0], t[0]) /* l = 0: only the carry */
		#pragma unroll
		for (int j = 1; j < FP_NW / 2; j++)
			FFU_M64_MAC(t[j - 1], c, m, P_.v[j], t[j])
		t[FP_NW / 2 - 1] = t[FP_NW / 2] + c;
	}
	return FFU_FN(csub_)(t);
}

/*
 * Dedicated squaring (SOS, as cl/montn.cl's): the cross products once, doubled, plus the
 * squares, then one Montgomery reduction row per low limb carrying into the next word
 * through hc (8 words: 26 64-bit products instead of 32). Bounds as there: the final hc is
 * zero and the high half is < 2p.
 */
FFU_INLINE FP_t FFU_FN(sqr)(FP_t a)
{
	FFU_M64_P;
	ulong T[FP_NW] = {0}, c, k = 0, hc = 0;
	/* cross products, row i covers a_i * a_(i+1 ..) */
	#pragma unroll
	for (int i = 0; i < FP_NW / 2 - 1; i++) {
		c = 0;
		/* constant bounds and a guard, not j = i + 1 (cl/montn.cl says why) */
		#pragma unroll
		for (int j = 1; j < FP_NW / 2; j++)
			if (j > i)
				FFU_M64_MAC(T[i + j], c, a.v[i], a.v[j], T[i + j])
		T[i + FP_NW / 2] = c;
	}
	/* double: shift left by one bit (the top word is still zero) */
	#pragma unroll
	for (int q = FP_NW - 1; q > 0; q--)
		T[q] = (T[q] << 1) | (T[q - 1] >> 63);
	T[0] = T[0] << 1;
	/* T[2i], T[2i+1] += a_i^2, k the carry between them */
	#pragma unroll
	for (int i = 0; i < FP_NW / 2; i++) {
		ulong sl = 0, sh = 0;
		FFU_M64_MAC(sl, sh, a.v[i], a.v[i], 0UL)
		FFU_M64_ADC(T[2 * i], k, T[2 * i], sl)
		FFU_M64_ADC(T[2 * i + 1], k, T[2 * i + 1], sh)
	}
	#pragma unroll
	for (int i = 0; i < FP_NW / 2; i++) {
		ulong m = T[i] * FP_PINV64, z;
		c = 0;
		FFU_M64_MAC(z, c, m, P_.v[0], T[i]) /* z = 0: only the carry */
		#pragma unroll
		for (int j = 1; j < FP_NW / 2; j++)
			FFU_M64_MAC(T[i + j], c, m, P_.v[j], T[i + j])
		FFU_M64_ADC(T[i + FP_NW / 2], hc, T[i + FP_NW / 2], c)
	}
	return FFU_FN(csub_)(T + FP_NW / 2);
}

#undef FFU_M64_P
#undef FFU_M64_SBB
#undef FFU_M64_ADC
#undef FFU_M64_MAC
#undef FP_t
