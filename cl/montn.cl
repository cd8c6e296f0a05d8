/*
 * cl/montn.cl: device arithmetic template for the multi-word Montgomery fields, FP_NW
 * 32-bit limbs little-endian and radix R = 2^(32 FP_NW): 8 limbs for the 254- to 256-bit
 * fields (BN254, BLS12-381 Fr, ..., R = 2^256), 12 for BLS12-381's base field (R = 2^384).
 * Owned by the fields engineer; instantiated by src/codegen/field_cl.c, which defines
 * before this text
 *   FP          field name (bn254_sf)
 *   FP_NW       32-bit words per element (its storage bytes / 4; a multiple of 4)
 *   FP_PS       p's words, least significant first, as a comma-separated uint list
 *   FP_R2S      R^2 mod p, the same way
 *   FP_PINV     -p^-1 mod 2^32 (FP_PINV64: -p^-1 mod 2^64, for cl/montn_64.cl)
 *   FP_WPARAMS  make's parameter list, "uint w0, ..., uint w<FP_NW - 1>"; FP_WARGS its names
 * and #undefs them after it. cl/montn_ops.cl follows (make, neg, the conversions, eq, lt:
 * what does not depend on the limbs); cl/montn_64.cl replaces this file where
 * FFU_MONT256_LIMB64 is defined, cl/montn_full.cl follows for a modulus without a spare bit.
 *
 * Requires p < 2^(32 FP_NW - 1) (a spare top bit; cl/montn_full.cl lifts it): then a + b
 * never carries out of the top word, every CIOS row fits FP_NW + 1 words
 * (t + a*b_i + m*p < 2^33 p < 2^(32 FP_NW + 32)) and the value after each row is
 * < 2p < R. All functions are correct for any inputs < p, canonical or Montgomery.
 *
 * One text for every limb count: the limbs are private arrays of constant size and every
 * loop over them has constant bounds and `#pragma unroll`, so the compiler unrolls each
 * loop and keeps every limb in a scalar register (the work-item loop then still vectorises
 * on PoCL). Every bound is a constant, also in the squarings' triangles (a guard `if (j > i)`
 * instead of `j = i + 1`): Mesa's NIR unrolls an inner loop only when its trip count is
 * known before the outer one is unrolled, and a loop left in the code is fatal on llvmpipe
 * (Rusticl), which silently leaves any loop after 65535 iterations counted over all entries
 * of it: a square inside a work-item's loop of 256 elements (the wide kernels' batch
 * inversions) gave wrong values there. This replaced an 8-limb template written out by hand (cl/mont256.cl, until
 * issue 20) whose statements, in the same order, are what the unrolled loops are: fieldops_bn254_sf and
 * fieldops_bls12_381_sf on PoCL measured the same with both (docs/architecture.md).
 * Portable OpenCL C 1.2: no inline asm (PoCL, Rusticl reject it), constants only as literal
 * macros and private arrays of them (no __constant arrays: AMD rejects them). Limb products
 * use 32x32->64 multiplies: a*b + t + c <= 2^64 - 1, so one ulong holds a
 * multiply-accumulate with both carries. Conditional corrections are masks, never
 * divergent branches.
 *
 * Under FFU_CARRY_CHAINS (cl/carry.cl: NVIDIA's compiler, or the C emulation the tests
 * build) csub_, add, sub, mul and sqr are instead written as carry chains, one instruction
 * per limb product half; the rest of the file is shared.
 */

#if FP_NW % 4 != 0
#error "cl/montn.cl: FP_NW must be a multiple of 4"
#endif

#define FP_t FFU_FN(t)

typedef struct {
	uint v[FP_NW];
} FP_t;

/* lo, c = t + a * b + c */
#define FFU_MN_MAC(lo, c, a, b, t) \
	{ \
		ulong w_ = (ulong)(a) * (b) + (t) + (c); \
		(lo) = (uint)w_; \
		(c) = (uint)(w_ >> 32); \
	}
/* r, c = x + y + c */
#define FFU_MN_ADC(r, c, x, y) \
	{ \
		ulong w_ = (ulong)(x) + (y) + (c); \
		(r) = (uint)w_; \
		(c) = (uint)(w_ >> 32); \
	}
/* r, br = x - y - br; a negative difference wraps to >= 2^63, so bit 63 is the borrow. */
#define FFU_MN_SBB(r, br, x, y) \
	{ \
		ulong w_ = (ulong)(x) - (y) - (br); \
		(r) = (uint)w_; \
		(br) = (uint)(w_ >> 63); \
	}
/* p's words as a private array: constants once the loops are unrolled */
#define FFU_MN_P const uint p_[FP_NW] = {FP_PS}

/*
 * Element i is words FP_NW i .. FP_NW i + FP_NW - 1. Wide accesses (128 bits, vload4)
 * suit GPUs, but LLVM's loop vectorizer, which is how PoCL and llvmpipe run work-items in
 * SIMD lanes, gives up on vector-typed values: measured on PoCL, x*x - x over BN254 ran
 * 4x slower with vector loads. So scalar word accesses unless the code generator asks for
 * wide ones (FFU_VECTOR_LOADS, meant for GPUs) or the compiler is NVIDIA's;
 * FFU_SCALAR_LOADS forces scalar everywhere (for measuring).
 */
#if !defined(FFU_SCALAR_LOADS) && (defined(FFU_VECTOR_LOADS) || defined(__NV_CL_C_VERSION))
FFU_INLINE FP_t FFU_FN(load)(__global const uint *buf, size_t i)
{
	FP_t r;
	#pragma unroll
	for (int q = 0; q < FP_NW / 4; q++) {
		uint4 w = vload4(i * (FP_NW / 4) + q, buf);
		r.v[4 * q] = w.s0;
		r.v[4 * q + 1] = w.s1;
		r.v[4 * q + 2] = w.s2;
		r.v[4 * q + 3] = w.s3;
	}
	return r;
}

FFU_INLINE void FFU_FN(store)(__global uint *buf, size_t i, FP_t v)
{
	#pragma unroll
	for (int q = 0; q < FP_NW / 4; q++)
		vstore4((uint4)(v.v[4 * q], v.v[4 * q + 1], v.v[4 * q + 2], v.v[4 * q + 3]), i * (FP_NW / 4) + q, buf);
}
#else
FFU_INLINE FP_t FFU_FN(load)(__global const uint *buf, size_t i)
{
	__global const uint *p = buf + FP_NW * i;
	FP_t r;
	#pragma unroll
	for (int k = 0; k < FP_NW; k++)
		r.v[k] = p[k];
	return r;
}

FFU_INLINE void FFU_FN(store)(__global uint *buf, size_t i, FP_t v)
{
	__global uint *p = buf + FP_NW * i;
	#pragma unroll
	for (int k = 0; k < FP_NW; k++)
		p[k] = v.v[k];
}
#endif

/* The element of these FP_NW storage words (make, cl/montn_ops.cl). */
FFU_INLINE FP_t FFU_FN(of_words_)(const uint *w)
{
	FP_t r;
	#pragma unroll
	for (int k = 0; k < FP_NW; k++)
		r.v[k] = w[k];
	return r;
}

/* The element hi * 2^32 + lo (integers, 0 and 1). */
FFU_INLINE FP_t FFU_FN(small_)(uint lo, uint hi)
{
	FP_t r;
	r.v[0] = lo;
	r.v[1] = hi;
	#pragma unroll
	for (int k = 2; k < FP_NW; k++)
		r.v[k] = 0u;
	return r;
}

/* t where keep is all ones, else r: the conditional subtraction's choice, a mask */
FFU_INLINE FP_t FFU_FN(keep_)(const uint *t, const uint *r, uint keep)
{
	FP_t o;
	#pragma unroll
	for (int k = 0; k < FP_NW; k++)
		o.v[k] = (t[k] & keep) | (r[k] & ~keep);
	return o;
}

#ifdef FFU_CARRY_CHAINS
/*
 * The same functions with carry chains (cl/carry.cl: PTX on NVIDIA). A chain starts with
 * an instruction that does not read the flag, so each loop's first limb is written out
 * before it. A row's limb products go in two passes, low halves into words j and high
 * halves into words j + 1, so that every product is one chained instruction; the bounds at
 * the top of this file show that no pass carries out of the words it names (every partial
 * sum is at most the row's total).
 */

/* t - p if t >= p, else t; for t < 2p. The final subc turns the borrow into the mask. */
FFU_INLINE FP_t FFU_FN(csub_)(const uint *t)
{
	FFU_CARRY_DECL
	FFU_MN_P;
	uint r[FP_NW], keep;
	FFU_SUB_CC(r[0], t[0], p_[0])
	#pragma unroll
	for (int k = 1; k < FP_NW; k++)
		FFU_SUBC_CC(r[k], t[k], p_[k])
	/* keep = all ones when t < p (the subtraction borrowed) */
	FFU_SUBC(keep, 0u, 0u)
	return FFU_FN(keep_)(t, r, keep);
}

FFU_INLINE FP_t FFU_FN(add)(FP_t a, FP_t b)
{
	FFU_CARRY_DECL
	uint s[FP_NW];
	FFU_ADD_CC(s[0], a.v[0], b.v[0])
	#pragma unroll
	for (int k = 1; k < FP_NW - 1; k++)
		FFU_ADDC_CC(s[k], a.v[k], b.v[k])
	FFU_ADDC(s[FP_NW - 1], a.v[FP_NW - 1], b.v[FP_NW - 1])
	return FFU_FN(csub_)(s);
}

FFU_INLINE FP_t FFU_FN(sub)(FP_t a, FP_t b)
{
	FFU_CARRY_DECL
	FFU_MN_P;
	uint d[FP_NW], mask;
	FFU_SUB_CC(d[0], a.v[0], b.v[0])
	#pragma unroll
	for (int k = 1; k < FP_NW; k++)
		FFU_SUBC_CC(d[k], a.v[k], b.v[k])
	/* add p back, masked to zero unless the difference went negative */
	FFU_SUBC(mask, 0u, 0u)
	FP_t r;
	FFU_ADD_CC(r.v[0], d[0], p_[0] & mask)
	#pragma unroll
	for (int k = 1; k < FP_NW - 1; k++)
		FFU_ADDC_CC(r.v[k], d[k], p_[k] & mask)
	FFU_ADDC(r.v[FP_NW - 1], d[FP_NW - 1], p_[FP_NW - 1] & mask)
	return r;
}

/*
 * One Montgomery reduction step on t[0 .. FP_NW] (t + m p < 2^(32 FP_NW + 32) by the
 * bounds above): m = t0 * -p^-1; t += m * p, low halves then high halves, the high halves
 * written one word down, which is the shift by one word (the low word is zero by the
 * choice of m). Its chains start and end here, so it is a function of its own.
 */
FFU_INLINE void FFU_FN(redc_step_)(uint *t)
{
	FFU_CARRY_DECL
	FFU_MN_P;
	uint m = t[0] * FP_PINV;
	FFU_MADLO_CC(t[0], m, p_[0], t[0])
	#pragma unroll
	for (int j = 1; j < FP_NW; j++)
		FFU_MADCLO_CC(t[j], m, p_[j], t[j])
	FFU_ADDC(t[FP_NW], t[FP_NW], 0u)
	FFU_MADHI_CC(t[0], m, p_[0], t[1])
	#pragma unroll
	for (int j = 1; j < FP_NW - 1; j++)
		FFU_MADCHI_CC(t[j], m, p_[j], t[j + 1])
	FFU_MADCHI(t[FP_NW - 1], m, p_[FP_NW - 1], t[FP_NW])
}

/* Montgomery product a * b / R mod p: per limb of b, t += a * b_i (low halves, then high
   halves), then a reduction step. */
FFU_INLINE FP_t FFU_FN(mul)(FP_t a, FP_t b)
{
	FFU_CARRY_DECL
	uint t[FP_NW + 1] = {0};
	#pragma unroll
	for (int i = 0; i < FP_NW; i++) {
		uint bi = b.v[i];
		FFU_MADLO_CC(t[0], a.v[0], bi, t[0])
		#pragma unroll
		for (int j = 1; j < FP_NW; j++)
			FFU_MADCLO_CC(t[j], a.v[j], bi, t[j])
		FFU_ADDC(t[FP_NW], 0u, 0u)
		FFU_MADHI_CC(t[1], a.v[0], bi, t[1])
		#pragma unroll
		for (int j = 1; j < FP_NW - 1; j++)
			FFU_MADCHI_CC(t[j + 1], a.v[j], bi, t[j + 1])
		FFU_MADCHI(t[FP_NW], a.v[FP_NW - 1], bi, t[FP_NW])
		FFU_FN(redc_step_)(t);
	}
	return FFU_FN(csub_)(t);
}

/*
 * Dedicated squaring: the cross products once (row i: a_i * a_(i+1 ..), whose sum so far
 * fits words 0 .. i + FP_NW), doubled by an add chain, plus the squares, into the low half
 * t and the high half T. Then the low half is reduced by FP_NW steps on its own,
 * u = (T_lo + M p) / R <= p, and the high half added: u + T_hi < p + p^2 / R < 2p.
 */
FFU_INLINE FP_t FFU_FN(sqr)(FP_t a)
{
	FFU_CARRY_DECL
	/* w[0 .. FP_NW - 1] is the low half, w[FP_NW ..] the high half T */
	uint w[2 * FP_NW] = {0};
	/* cross products: row i adds a_i * a_j at word i + j, j > i, then carries into i + FP_NW */
	#pragma unroll
	for (int i = 0; i < FP_NW - 1; i++) {
		FFU_MADLO_CC(w[2 * i + 1], a.v[i], a.v[i + 1], w[2 * i + 1])
		#pragma unroll
		for (int j = 2; j < FP_NW; j++)
			if (j >= i + 2)
				FFU_MADCLO_CC(w[i + j], a.v[i], a.v[j], w[i + j])
		FFU_ADDC(w[i + FP_NW], 0u, 0u)
		FFU_MADHI_CC(w[2 * i + 2], a.v[i], a.v[i + 1], w[2 * i + 2])
		#pragma unroll
		for (int j = 2; j < FP_NW - 1; j++)
			if (j >= i + 2)
				FFU_MADCHI_CC(w[i + j + 1], a.v[i], a.v[j], w[i + j + 1])
		if (i + 1 < FP_NW - 1)
			FFU_MADCHI(w[i + FP_NW], a.v[i], a.v[FP_NW - 1], w[i + FP_NW])
	}
	/* double (w[0] and w[2 FP_NW - 1] are still zero) */
	FFU_ADD_CC(w[1], w[1], w[1])
	#pragma unroll
	for (int k = 2; k < 2 * FP_NW - 1; k++)
		FFU_ADDC_CC(w[k], w[k], w[k])
	FFU_ADDC(w[2 * FP_NW - 1], 0u, 0u)
	/* the squares a_i^2 at word 2i */
	FFU_MADLO_CC(w[0], a.v[0], a.v[0], w[0])
	FFU_MADCHI_CC(w[1], a.v[0], a.v[0], w[1])
	#pragma unroll
	for (int i = 1; i < FP_NW - 1; i++) {
		FFU_MADCLO_CC(w[2 * i], a.v[i], a.v[i], w[2 * i])
		FFU_MADCHI_CC(w[2 * i + 1], a.v[i], a.v[i], w[2 * i + 1])
	}
	FFU_MADCLO_CC(w[2 * FP_NW - 2], a.v[FP_NW - 1], a.v[FP_NW - 1], w[2 * FP_NW - 2])
	FFU_MADCHI(w[2 * FP_NW - 1], a.v[FP_NW - 1], a.v[FP_NW - 1], w[2 * FP_NW - 1])
	/* reduce the low half: each step starts with a zero extra word (t < R) */
	uint t[FP_NW + 1];
	#pragma unroll
	for (int k = 0; k < FP_NW; k++)
		t[k] = w[k];
	#pragma unroll
	for (int i = 0; i < FP_NW; i++) {
		t[FP_NW] = 0u;
		FFU_FN(redc_step_)(t);
	}
	/* + T_hi */
	FFU_ADD_CC(t[0], t[0], w[FP_NW])
	#pragma unroll
	for (int k = 1; k < FP_NW - 1; k++)
		FFU_ADDC_CC(t[k], t[k], w[FP_NW + k])
	FFU_ADDC(t[FP_NW - 1], t[FP_NW - 1], w[2 * FP_NW - 1])
	return FFU_FN(csub_)(t);
}
#else
/* t - p if t >= p, else t; for t < 2p (the result of add and of the Montgomery rows). */
FFU_INLINE FP_t FFU_FN(csub_)(const uint *t)
{
	FFU_MN_P;
	uint r[FP_NW], br = 0;
	#pragma unroll
	for (int k = 0; k < FP_NW; k++)
		FFU_MN_SBB(r[k], br, t[k], p_[k])
	/* keep = all ones when t < p (the subtraction borrowed) */
	return FFU_FN(keep_)(t, r, 0u - br);
}

FFU_INLINE FP_t FFU_FN(add)(FP_t a, FP_t b)
{
	uint s[FP_NW], c = 0;
	#pragma unroll
	for (int k = 0; k < FP_NW; k++)
		FFU_MN_ADC(s[k], c, a.v[k], b.v[k])
	return FFU_FN(csub_)(s);
}

FFU_INLINE FP_t FFU_FN(sub)(FP_t a, FP_t b)
{
	FFU_MN_P;
	uint d[FP_NW], br = 0;
	#pragma unroll
	for (int k = 0; k < FP_NW; k++)
		FFU_MN_SBB(d[k], br, a.v[k], b.v[k])
	/* add p back, masked to zero unless the difference went negative */
	uint mask = 0u - br, c = 0;
	FP_t r;
	#pragma unroll
	for (int k = 0; k < FP_NW; k++)
		FFU_MN_ADC(r.v[k], c, d[k], p_[k] & mask)
	return r;
}

/*
 * Montgomery product a * b / R mod p by CIOS. Per limb of b: t += a * b_i (the carry
 * becomes t[FP_NW]: t < R before the row), then m = t0 * -p^-1 makes t + m*p divisible
 * by 2^32, and the shift by one word is folded into the accumulation. t[FP_NW] + c cannot
 * carry out (see the bound at the top).
 */
FFU_INLINE FP_t FFU_FN(mul)(FP_t a, FP_t b)
{
	FFU_MN_P;
	uint t[FP_NW + 1] = {0};
	#pragma unroll
	for (int i = 0; i < FP_NW; i++) {
		uint bi = b.v[i], c = 0, m;
		#pragma unroll
		for (int j = 0; j < FP_NW; j++)
			FFU_MN_MAC(t[j], c, a.v[j], bi, t[j])
		t[FP_NW] = c;
		m = t[0] * FP_PINV;
		c = (uint)(((ulong)m * p_[0] + t[0]) >> 32);
		#pragma unroll
		for (int j = 1; j < FP_NW; j++)
			FFU_MN_MAC(t[j - 1], c, m, p_[j], t[j])
		t[FP_NW - 1] = t[FP_NW] + c;
	}
	return FFU_FN(csub_)(t);
}

/*
 * Dedicated squaring (SOS): the FP_NW (FP_NW - 1) / 2 cross products a_i*a_j (i < j) once,
 * doubled, plus the FP_NW squares, then FP_NW separate Montgomery reduction rows (8 limbs:
 * 100 limb multiplies instead of 128). The reduction rows carry into T[i + FP_NW] through
 * hc; T + sum m_i p 2^(32i) < p^2 + R p, so after the shift the value is < 2p and the final
 * hc is zero.
 */
FFU_INLINE FP_t FFU_FN(sqr)(FP_t a)
{
	FFU_MN_P;
	uint T[2 * FP_NW] = {0};
	uint c, m, hc;
	/* cross products, row i covers a_i * a_(i+1 ..) */
	#pragma unroll
	for (int i = 0; i < FP_NW - 1; i++) {
		c = 0;
		/* constant bounds and a guard, not j = i + 1 (see the top of this file) */
		#pragma unroll
		for (int j = 1; j < FP_NW; j++)
			if (j > i)
				FFU_MN_MAC(T[i + j], c, a.v[i], a.v[j], T[i + j])
		T[i + FP_NW] = c;
	}
	/* double: shift the 2 FP_NW words left by one bit (the top word is still zero) */
	#pragma unroll
	for (int k = 2 * FP_NW - 1; k > 0; k--)
		T[k] = (T[k] << 1) | (T[k - 1] >> 31);
	T[0] = T[0] << 1;
	/* add the squares a_i^2 at word 2i */
	c = 0;
	#pragma unroll
	for (int i = 0; i < FP_NW; i++) {
		ulong sq = (ulong)a.v[i] * a.v[i];
		FFU_MN_ADC(T[2 * i], c, T[2 * i], (uint)sq)
		FFU_MN_ADC(T[2 * i + 1], c, T[2 * i + 1], (uint)(sq >> 32))
	}
	/* Montgomery reduction, one row per low word */
	hc = 0;
	#pragma unroll
	for (int i = 0; i < FP_NW; i++) {
		m = T[i] * FP_PINV;
		c = (uint)(((ulong)m * p_[0] + T[i]) >> 32);
		#pragma unroll
		for (int j = 1; j < FP_NW; j++)
			FFU_MN_MAC(T[i + j], c, m, p_[j], T[i + j])
		ulong w_ = (ulong)T[i + FP_NW] + c + hc;
		T[i + FP_NW] = (uint)w_;
		hc = (uint)(w_ >> 32);
	}
	return FFU_FN(csub_)(T + FP_NW);
}
#endif

#undef FFU_MN_P
#undef FFU_MN_SBB
#undef FFU_MN_ADC
#undef FFU_MN_MAC
#undef FP_t
