/*
 * cl/mont256.cl: device arithmetic template for 254/255-bit Montgomery fields (BN254 Fr now,
 * BLS12-381 Fr later), radix R = 2^256, 8 x 32-bit limbs little-endian. Owned by the fields
 * engineer; instantiated by src/codegen/field_cl.c, which defines before this text
 *   FP              field name (bn254_sf)
 *   FP_P0 .. FP_P7  p as uint literals, least significant first
 *   FP_PINV         -p^-1 mod 2^32
 *   FP_R2_0 .. 7    R^2 mod p
 * and #undefs them after it.
 *
 * Requires p < 2^255 (a spare top bit; true of both target fields, not of Goldilocks, which
 * has its own template): then a + b < 2^256 never carries out, every CIOS row fits nine
 * words (t + a*b_i + m*p < 2^33 p < 2^288) and the value after each row is < 2p < 2^256.
 * All functions are correct for any inputs < p, canonical or Montgomery.
 *
 * Portable OpenCL C 1.2: no inline asm (PoCL, Rusticl reject it), constants only as literal
 * macros (no __constant arrays, no compound literals: AMD rejects them), loops unrolled by
 * hand so every limb is a scalar register. Limb products use 32x32->64 multiplies:
 * a*b + t + c <= 2^64 - 1, so one ulong holds a multiply-accumulate with both carries.
 * Conditional corrections are masks, never divergent branches.
 *
 * Under FFU_CARRY_CHAINS (cl/carry.cl: NVIDIA's compiler, or the C emulation the tests
 * build) csub_, add, sub, mul and sqr are instead written as carry chains, one instruction
 * per limb product half; the rest of the file is shared.
 */

#define FP_t FFU_FN(t)

typedef struct {
	uint v[8];
} FP_t;

/* lo, c = t + a * b + c */
#define FFU_M256_MAC(lo, c, a, b, t) \
	{ \
		ulong w_ = (ulong)(a) * (b) + (t) + (c); \
		(lo) = (uint)w_; \
		(c) = (uint)(w_ >> 32); \
	}
/* r, c = x + y + c */
#define FFU_M256_ADC(r, c, x, y) \
	{ \
		ulong w_ = (ulong)(x) + (y) + (c); \
		(r) = (uint)w_; \
		(c) = (uint)(w_ >> 32); \
	}
/* r, br = x - y - br; a negative difference wraps to >= 2^63, so bit 63 is the borrow. */
#define FFU_M256_SBB(r, br, x, y) \
	{ \
		ulong w_ = (ulong)(x) - (y) - (br); \
		(r) = (uint)w_; \
		(br) = (uint)(w_ >> 63); \
	}

/*
 * Element i is words 8i .. 8i+7. Wide vload8/vstore8 suit GPUs (two 128-bit accesses per
 * work-item), but LLVM's loop vectorizer, which is how PoCL and llvmpipe run work-items
 * in SIMD lanes, gives up on vector-typed values: measured on PoCL, x*x - x over BN254
 * ran 4x slower with vload8. So scalar word accesses unless the code generator asks for
 * wide ones (FFU_VECTOR_LOADS, meant for GPUs) or the compiler is NVIDIA's;
 * FFU_SCALAR_LOADS forces scalar everywhere (for measuring).
 */
#if !defined(FFU_SCALAR_LOADS) && (defined(FFU_VECTOR_LOADS) || defined(__NV_CL_C_VERSION))
FFU_INLINE FP_t FFU_FN(load)(__global const uint *buf, size_t i)
{
	uint8 w = vload8(i, buf);
	FP_t r;
	r.v[0] = w.s0;
	r.v[1] = w.s1;
	r.v[2] = w.s2;
	r.v[3] = w.s3;
	r.v[4] = w.s4;
	r.v[5] = w.s5;
	r.v[6] = w.s6;
	r.v[7] = w.s7;
	return r;
}

FFU_INLINE void FFU_FN(store)(__global uint *buf, size_t i, FP_t v)
{
	vstore8((uint8)(v.v[0], v.v[1], v.v[2], v.v[3], v.v[4], v.v[5], v.v[6], v.v[7]), i, buf);
}
#else
FFU_INLINE FP_t FFU_FN(load)(__global const uint *buf, size_t i)
{
	__global const uint *p = buf + 8 * i;
	FP_t r;
	r.v[0] = p[0];
	r.v[1] = p[1];
	r.v[2] = p[2];
	r.v[3] = p[3];
	r.v[4] = p[4];
	r.v[5] = p[5];
	r.v[6] = p[6];
	r.v[7] = p[7];
	return r;
}

FFU_INLINE void FFU_FN(store)(__global uint *buf, size_t i, FP_t v)
{
	__global uint *p = buf + 8 * i;
	p[0] = v.v[0];
	p[1] = v.v[1];
	p[2] = v.v[2];
	p[3] = v.v[3];
	p[4] = v.v[4];
	p[5] = v.v[5];
	p[6] = v.v[6];
	p[7] = v.v[7];
}
#endif

FFU_INLINE FP_t FFU_FN(make)(uint w0, uint w1, uint w2, uint w3, uint w4, uint w5, uint w6, uint w7)
{
	FP_t r;
	r.v[0] = w0;
	r.v[1] = w1;
	r.v[2] = w2;
	r.v[3] = w3;
	r.v[4] = w4;
	r.v[5] = w5;
	r.v[6] = w6;
	r.v[7] = w7;
	return r;
}

#ifdef FFU_CARRY_CHAINS
/*
 * The same functions with carry chains (cl/carry.cl: PTX on NVIDIA). A row's limb products
 * go in two passes, low halves into words j and high halves into words j + 1, so that
 * every product is one chained instruction; the bounds at the top of this file show that
 * no pass carries out of the words it names (every partial sum is at most the row's total).
 */

/* t - p if t >= p, else t; for t < 2p. The final subc turns the borrow into the mask. */
FFU_INLINE FP_t FFU_FN(csub_)(uint t0, uint t1, uint t2, uint t3, uint t4, uint t5, uint t6, uint t7)
{
	FFU_CARRY_DECL
	uint r0, r1, r2, r3, r4, r5, r6, r7, keep;
	FFU_SUB_CC(r0, t0, FP_P0)
	FFU_SUBC_CC(r1, t1, FP_P1)
	FFU_SUBC_CC(r2, t2, FP_P2)
	FFU_SUBC_CC(r3, t3, FP_P3)
	FFU_SUBC_CC(r4, t4, FP_P4)
	FFU_SUBC_CC(r5, t5, FP_P5)
	FFU_SUBC_CC(r6, t6, FP_P6)
	FFU_SUBC_CC(r7, t7, FP_P7)
	/* keep = all ones when t < p (the subtraction borrowed) */
	FFU_SUBC(keep, 0u, 0u)
	FP_t r;
	r.v[0] = (t0 & keep) | (r0 & ~keep);
	r.v[1] = (t1 & keep) | (r1 & ~keep);
	r.v[2] = (t2 & keep) | (r2 & ~keep);
	r.v[3] = (t3 & keep) | (r3 & ~keep);
	r.v[4] = (t4 & keep) | (r4 & ~keep);
	r.v[5] = (t5 & keep) | (r5 & ~keep);
	r.v[6] = (t6 & keep) | (r6 & ~keep);
	r.v[7] = (t7 & keep) | (r7 & ~keep);
	return r;
}

FFU_INLINE FP_t FFU_FN(add)(FP_t a, FP_t b)
{
	FFU_CARRY_DECL
	uint s0, s1, s2, s3, s4, s5, s6, s7;
	FFU_ADD_CC(s0, a.v[0], b.v[0])
	FFU_ADDC_CC(s1, a.v[1], b.v[1])
	FFU_ADDC_CC(s2, a.v[2], b.v[2])
	FFU_ADDC_CC(s3, a.v[3], b.v[3])
	FFU_ADDC_CC(s4, a.v[4], b.v[4])
	FFU_ADDC_CC(s5, a.v[5], b.v[5])
	FFU_ADDC_CC(s6, a.v[6], b.v[6])
	FFU_ADDC(s7, a.v[7], b.v[7])
	return FFU_FN(csub_)(s0, s1, s2, s3, s4, s5, s6, s7);
}

FFU_INLINE FP_t FFU_FN(sub)(FP_t a, FP_t b)
{
	FFU_CARRY_DECL
	uint d0, d1, d2, d3, d4, d5, d6, d7, mask;
	FFU_SUB_CC(d0, a.v[0], b.v[0])
	FFU_SUBC_CC(d1, a.v[1], b.v[1])
	FFU_SUBC_CC(d2, a.v[2], b.v[2])
	FFU_SUBC_CC(d3, a.v[3], b.v[3])
	FFU_SUBC_CC(d4, a.v[4], b.v[4])
	FFU_SUBC_CC(d5, a.v[5], b.v[5])
	FFU_SUBC_CC(d6, a.v[6], b.v[6])
	FFU_SUBC_CC(d7, a.v[7], b.v[7])
	/* add p back, masked to zero unless the difference went negative */
	FFU_SUBC(mask, 0u, 0u)
	FP_t r;
	FFU_ADD_CC(r.v[0], d0, FP_P0 & mask)
	FFU_ADDC_CC(r.v[1], d1, FP_P1 & mask)
	FFU_ADDC_CC(r.v[2], d2, FP_P2 & mask)
	FFU_ADDC_CC(r.v[3], d3, FP_P3 & mask)
	FFU_ADDC_CC(r.v[4], d4, FP_P4 & mask)
	FFU_ADDC_CC(r.v[5], d5, FP_P5 & mask)
	FFU_ADDC_CC(r.v[6], d6, FP_P6 & mask)
	FFU_ADDC(r.v[7], d7, FP_P7 & mask)
	return r;
}

/*
 * One Montgomery reduction step on t0..t8 (t < 2^288, t + m p < 2^288 by the bounds above):
 * m = t0 * -p^-1; t += m * p, low halves then high halves, the high halves written one word
 * down, which is the shift by one word (the low word is zero by the choice of m).
 */
#define FFU_M256_REDC_STEP() \
	{ \
		uint m = t0 * FP_PINV; \
		FFU_MADLO_CC(t0, m, FP_P0, t0) \
		FFU_MADCLO_CC(t1, m, FP_P1, t1) \
		FFU_MADCLO_CC(t2, m, FP_P2, t2) \
		FFU_MADCLO_CC(t3, m, FP_P3, t3) \
		FFU_MADCLO_CC(t4, m, FP_P4, t4) \
		FFU_MADCLO_CC(t5, m, FP_P5, t5) \
		FFU_MADCLO_CC(t6, m, FP_P6, t6) \
		FFU_MADCLO_CC(t7, m, FP_P7, t7) \
		FFU_ADDC(t8, t8, 0u) \
		FFU_MADHI_CC(t0, m, FP_P0, t1) \
		FFU_MADCHI_CC(t1, m, FP_P1, t2) \
		FFU_MADCHI_CC(t2, m, FP_P2, t3) \
		FFU_MADCHI_CC(t3, m, FP_P3, t4) \
		FFU_MADCHI_CC(t4, m, FP_P4, t5) \
		FFU_MADCHI_CC(t5, m, FP_P5, t6) \
		FFU_MADCHI_CC(t6, m, FP_P6, t7) \
		FFU_MADCHI(t7, m, FP_P7, t8) \
	}

/* One CIOS row, t0..t8 (t < 2^256 before it): t += a * bi, low halves then high halves; then a reduction step. */
#define FFU_M256_ROW(bi) \
	{ \
		FFU_MADLO_CC(t0, a.v[0], (bi), t0) \
		FFU_MADCLO_CC(t1, a.v[1], (bi), t1) \
		FFU_MADCLO_CC(t2, a.v[2], (bi), t2) \
		FFU_MADCLO_CC(t3, a.v[3], (bi), t3) \
		FFU_MADCLO_CC(t4, a.v[4], (bi), t4) \
		FFU_MADCLO_CC(t5, a.v[5], (bi), t5) \
		FFU_MADCLO_CC(t6, a.v[6], (bi), t6) \
		FFU_MADCLO_CC(t7, a.v[7], (bi), t7) \
		FFU_ADDC(t8, 0u, 0u) \
		FFU_MADHI_CC(t1, a.v[0], (bi), t1) \
		FFU_MADCHI_CC(t2, a.v[1], (bi), t2) \
		FFU_MADCHI_CC(t3, a.v[2], (bi), t3) \
		FFU_MADCHI_CC(t4, a.v[3], (bi), t4) \
		FFU_MADCHI_CC(t5, a.v[4], (bi), t5) \
		FFU_MADCHI_CC(t6, a.v[5], (bi), t6) \
		FFU_MADCHI_CC(t7, a.v[6], (bi), t7) \
		FFU_MADCHI(t8, a.v[7], (bi), t8) \
		FFU_M256_REDC_STEP() \
	}

/* Montgomery product a * b * 2^-256 mod p. */
FFU_INLINE FP_t FFU_FN(mul)(FP_t a, FP_t b)
{
	FFU_CARRY_DECL
	uint t0 = 0, t1 = 0, t2 = 0, t3 = 0, t4 = 0, t5 = 0, t6 = 0, t7 = 0, t8;
	FFU_M256_ROW(b.v[0])
	FFU_M256_ROW(b.v[1])
	FFU_M256_ROW(b.v[2])
	FFU_M256_ROW(b.v[3])
	FFU_M256_ROW(b.v[4])
	FFU_M256_ROW(b.v[5])
	FFU_M256_ROW(b.v[6])
	FFU_M256_ROW(b.v[7])
	return FFU_FN(csub_)(t0, t1, t2, t3, t4, t5, t6, t7);
}

/*
 * Dedicated squaring: the 28 cross products once (row i: a_i * a_(i+1..7), whose sum so far
 * fits words 0 .. i+8), doubled by an add chain, plus the 8 squares, into the low half
 * t0..t7 and the high half T8..T15. Then the low half is reduced by eight steps on its own,
 * u = (T_lo + M p) / 2^256 <= p, and the high half added: u + T_hi < p + p^2 / 2^256 < 2p.
 */
FFU_INLINE FP_t FFU_FN(sqr)(FP_t a)
{
	FFU_CARRY_DECL
	uint t0 = 0, t1 = 0, t2 = 0, t3 = 0, t4 = 0, t5 = 0, t6 = 0, t7 = 0, t8;
	uint T8 = 0, T9 = 0, T10 = 0, T11 = 0, T12 = 0, T13 = 0, T14 = 0, T15 = 0;
	/* cross products: row i adds a_i * a_j at word i + j, j > i, then carries into i + 8 */
	FFU_MADLO_CC(t1, a.v[0], a.v[1], t1)
	FFU_MADCLO_CC(t2, a.v[0], a.v[2], t2)
	FFU_MADCLO_CC(t3, a.v[0], a.v[3], t3)
	FFU_MADCLO_CC(t4, a.v[0], a.v[4], t4)
	FFU_MADCLO_CC(t5, a.v[0], a.v[5], t5)
	FFU_MADCLO_CC(t6, a.v[0], a.v[6], t6)
	FFU_MADCLO_CC(t7, a.v[0], a.v[7], t7)
	FFU_ADDC(T8, 0u, 0u)
	FFU_MADHI_CC(t2, a.v[0], a.v[1], t2)
	FFU_MADCHI_CC(t3, a.v[0], a.v[2], t3)
	FFU_MADCHI_CC(t4, a.v[0], a.v[3], t4)
	FFU_MADCHI_CC(t5, a.v[0], a.v[4], t5)
	FFU_MADCHI_CC(t6, a.v[0], a.v[5], t6)
	FFU_MADCHI_CC(t7, a.v[0], a.v[6], t7)
	FFU_MADCHI(T8, a.v[0], a.v[7], T8)
	FFU_MADLO_CC(t3, a.v[1], a.v[2], t3)
	FFU_MADCLO_CC(t4, a.v[1], a.v[3], t4)
	FFU_MADCLO_CC(t5, a.v[1], a.v[4], t5)
	FFU_MADCLO_CC(t6, a.v[1], a.v[5], t6)
	FFU_MADCLO_CC(t7, a.v[1], a.v[6], t7)
	FFU_MADCLO_CC(T8, a.v[1], a.v[7], T8)
	FFU_ADDC(T9, 0u, 0u)
	FFU_MADHI_CC(t4, a.v[1], a.v[2], t4)
	FFU_MADCHI_CC(t5, a.v[1], a.v[3], t5)
	FFU_MADCHI_CC(t6, a.v[1], a.v[4], t6)
	FFU_MADCHI_CC(t7, a.v[1], a.v[5], t7)
	FFU_MADCHI_CC(T8, a.v[1], a.v[6], T8)
	FFU_MADCHI(T9, a.v[1], a.v[7], T9)
	FFU_MADLO_CC(t5, a.v[2], a.v[3], t5)
	FFU_MADCLO_CC(t6, a.v[2], a.v[4], t6)
	FFU_MADCLO_CC(t7, a.v[2], a.v[5], t7)
	FFU_MADCLO_CC(T8, a.v[2], a.v[6], T8)
	FFU_MADCLO_CC(T9, a.v[2], a.v[7], T9)
	FFU_ADDC(T10, 0u, 0u)
	FFU_MADHI_CC(t6, a.v[2], a.v[3], t6)
	FFU_MADCHI_CC(t7, a.v[2], a.v[4], t7)
	FFU_MADCHI_CC(T8, a.v[2], a.v[5], T8)
	FFU_MADCHI_CC(T9, a.v[2], a.v[6], T9)
	FFU_MADCHI(T10, a.v[2], a.v[7], T10)
	FFU_MADLO_CC(t7, a.v[3], a.v[4], t7)
	FFU_MADCLO_CC(T8, a.v[3], a.v[5], T8)
	FFU_MADCLO_CC(T9, a.v[3], a.v[6], T9)
	FFU_MADCLO_CC(T10, a.v[3], a.v[7], T10)
	FFU_ADDC(T11, 0u, 0u)
	FFU_MADHI_CC(T8, a.v[3], a.v[4], T8)
	FFU_MADCHI_CC(T9, a.v[3], a.v[5], T9)
	FFU_MADCHI_CC(T10, a.v[3], a.v[6], T10)
	FFU_MADCHI(T11, a.v[3], a.v[7], T11)
	FFU_MADLO_CC(T9, a.v[4], a.v[5], T9)
	FFU_MADCLO_CC(T10, a.v[4], a.v[6], T10)
	FFU_MADCLO_CC(T11, a.v[4], a.v[7], T11)
	FFU_ADDC(T12, 0u, 0u)
	FFU_MADHI_CC(T10, a.v[4], a.v[5], T10)
	FFU_MADCHI_CC(T11, a.v[4], a.v[6], T11)
	FFU_MADCHI(T12, a.v[4], a.v[7], T12)
	FFU_MADLO_CC(T11, a.v[5], a.v[6], T11)
	FFU_MADCLO_CC(T12, a.v[5], a.v[7], T12)
	FFU_ADDC(T13, 0u, 0u)
	FFU_MADHI_CC(T12, a.v[5], a.v[6], T12)
	FFU_MADCHI(T13, a.v[5], a.v[7], T13)
	FFU_MADLO_CC(T13, a.v[6], a.v[7], T13)
	FFU_ADDC(T14, 0u, 0u)
	FFU_MADHI_CC(T14, a.v[6], a.v[7], T14)
	/* double (t0 and T15 are still zero) */
	FFU_ADD_CC(t1, t1, t1)
	FFU_ADDC_CC(t2, t2, t2)
	FFU_ADDC_CC(t3, t3, t3)
	FFU_ADDC_CC(t4, t4, t4)
	FFU_ADDC_CC(t5, t5, t5)
	FFU_ADDC_CC(t6, t6, t6)
	FFU_ADDC_CC(t7, t7, t7)
	FFU_ADDC_CC(T8, T8, T8)
	FFU_ADDC_CC(T9, T9, T9)
	FFU_ADDC_CC(T10, T10, T10)
	FFU_ADDC_CC(T11, T11, T11)
	FFU_ADDC_CC(T12, T12, T12)
	FFU_ADDC_CC(T13, T13, T13)
	FFU_ADDC_CC(T14, T14, T14)
	FFU_ADDC(T15, 0u, 0u)
	/* the squares a_i^2 at word 2i */
	FFU_MADLO_CC(t0, a.v[0], a.v[0], t0)
	FFU_MADCHI_CC(t1, a.v[0], a.v[0], t1)
	FFU_MADCLO_CC(t2, a.v[1], a.v[1], t2)
	FFU_MADCHI_CC(t3, a.v[1], a.v[1], t3)
	FFU_MADCLO_CC(t4, a.v[2], a.v[2], t4)
	FFU_MADCHI_CC(t5, a.v[2], a.v[2], t5)
	FFU_MADCLO_CC(t6, a.v[3], a.v[3], t6)
	FFU_MADCHI_CC(t7, a.v[3], a.v[3], t7)
	FFU_MADCLO_CC(T8, a.v[4], a.v[4], T8)
	FFU_MADCHI_CC(T9, a.v[4], a.v[4], T9)
	FFU_MADCLO_CC(T10, a.v[5], a.v[5], T10)
	FFU_MADCHI_CC(T11, a.v[5], a.v[5], T11)
	FFU_MADCLO_CC(T12, a.v[6], a.v[6], T12)
	FFU_MADCHI_CC(T13, a.v[6], a.v[6], T13)
	FFU_MADCLO_CC(T14, a.v[7], a.v[7], T14)
	FFU_MADCHI(T15, a.v[7], a.v[7], T15)
	/* reduce the low half: each step starts with a zero ninth word (t < 2^256) */
	t8 = 0;
	FFU_M256_REDC_STEP()
	t8 = 0;
	FFU_M256_REDC_STEP()
	t8 = 0;
	FFU_M256_REDC_STEP()
	t8 = 0;
	FFU_M256_REDC_STEP()
	t8 = 0;
	FFU_M256_REDC_STEP()
	t8 = 0;
	FFU_M256_REDC_STEP()
	t8 = 0;
	FFU_M256_REDC_STEP()
	t8 = 0;
	FFU_M256_REDC_STEP()
	/* + T_hi */
	FFU_ADD_CC(t0, t0, T8)
	FFU_ADDC_CC(t1, t1, T9)
	FFU_ADDC_CC(t2, t2, T10)
	FFU_ADDC_CC(t3, t3, T11)
	FFU_ADDC_CC(t4, t4, T12)
	FFU_ADDC_CC(t5, t5, T13)
	FFU_ADDC_CC(t6, t6, T14)
	FFU_ADDC(t7, t7, T15)
	return FFU_FN(csub_)(t0, t1, t2, t3, t4, t5, t6, t7);
}
#else
/* t - p if t >= p, else t; for t < 2p (the result of add and of the Montgomery rows). */
FFU_INLINE FP_t FFU_FN(csub_)(uint t0, uint t1, uint t2, uint t3, uint t4, uint t5, uint t6, uint t7)
{
	uint r0, r1, r2, r3, r4, r5, r6, r7, br = 0;
	FFU_M256_SBB(r0, br, t0, FP_P0)
	FFU_M256_SBB(r1, br, t1, FP_P1)
	FFU_M256_SBB(r2, br, t2, FP_P2)
	FFU_M256_SBB(r3, br, t3, FP_P3)
	FFU_M256_SBB(r4, br, t4, FP_P4)
	FFU_M256_SBB(r5, br, t5, FP_P5)
	FFU_M256_SBB(r6, br, t6, FP_P6)
	FFU_M256_SBB(r7, br, t7, FP_P7)
	/* keep = all ones when t < p (the subtraction borrowed) */
	uint keep = 0u - br;
	FP_t r;
	r.v[0] = (t0 & keep) | (r0 & ~keep);
	r.v[1] = (t1 & keep) | (r1 & ~keep);
	r.v[2] = (t2 & keep) | (r2 & ~keep);
	r.v[3] = (t3 & keep) | (r3 & ~keep);
	r.v[4] = (t4 & keep) | (r4 & ~keep);
	r.v[5] = (t5 & keep) | (r5 & ~keep);
	r.v[6] = (t6 & keep) | (r6 & ~keep);
	r.v[7] = (t7 & keep) | (r7 & ~keep);
	return r;
}

FFU_INLINE FP_t FFU_FN(add)(FP_t a, FP_t b)
{
	uint s0, s1, s2, s3, s4, s5, s6, s7, c = 0;
	FFU_M256_ADC(s0, c, a.v[0], b.v[0])
	FFU_M256_ADC(s1, c, a.v[1], b.v[1])
	FFU_M256_ADC(s2, c, a.v[2], b.v[2])
	FFU_M256_ADC(s3, c, a.v[3], b.v[3])
	FFU_M256_ADC(s4, c, a.v[4], b.v[4])
	FFU_M256_ADC(s5, c, a.v[5], b.v[5])
	FFU_M256_ADC(s6, c, a.v[6], b.v[6])
	FFU_M256_ADC(s7, c, a.v[7], b.v[7])
	return FFU_FN(csub_)(s0, s1, s2, s3, s4, s5, s6, s7);
}

FFU_INLINE FP_t FFU_FN(sub)(FP_t a, FP_t b)
{
	uint d0, d1, d2, d3, d4, d5, d6, d7, br = 0;
	FFU_M256_SBB(d0, br, a.v[0], b.v[0])
	FFU_M256_SBB(d1, br, a.v[1], b.v[1])
	FFU_M256_SBB(d2, br, a.v[2], b.v[2])
	FFU_M256_SBB(d3, br, a.v[3], b.v[3])
	FFU_M256_SBB(d4, br, a.v[4], b.v[4])
	FFU_M256_SBB(d5, br, a.v[5], b.v[5])
	FFU_M256_SBB(d6, br, a.v[6], b.v[6])
	FFU_M256_SBB(d7, br, a.v[7], b.v[7])
	/* add p back, masked to zero unless the difference went negative */
	uint mask = 0u - br, c = 0;
	FP_t r;
	FFU_M256_ADC(r.v[0], c, d0, FP_P0 & mask)
	FFU_M256_ADC(r.v[1], c, d1, FP_P1 & mask)
	FFU_M256_ADC(r.v[2], c, d2, FP_P2 & mask)
	FFU_M256_ADC(r.v[3], c, d3, FP_P3 & mask)
	FFU_M256_ADC(r.v[4], c, d4, FP_P4 & mask)
	FFU_M256_ADC(r.v[5], c, d5, FP_P5 & mask)
	FFU_M256_ADC(r.v[6], c, d6, FP_P6 & mask)
	FFU_M256_ADC(r.v[7], c, d7, FP_P7 & mask)
	return r;
}

/*
 * One CIOS row: t += a * bi (the carry becomes t8: t < 2^256 before the row), then
 * m = t0 * -p^-1 makes t + m*p divisible by 2^32, and the shift by one word is folded
 * into the accumulation. t8 + c cannot carry out (see the bound at the top).
 */
#define FFU_M256_ROW(bi) \
	{ \
		uint c = 0, m; \
		FFU_M256_MAC(t0, c, a.v[0], (bi), t0) \
		FFU_M256_MAC(t1, c, a.v[1], (bi), t1) \
		FFU_M256_MAC(t2, c, a.v[2], (bi), t2) \
		FFU_M256_MAC(t3, c, a.v[3], (bi), t3) \
		FFU_M256_MAC(t4, c, a.v[4], (bi), t4) \
		FFU_M256_MAC(t5, c, a.v[5], (bi), t5) \
		FFU_M256_MAC(t6, c, a.v[6], (bi), t6) \
		FFU_M256_MAC(t7, c, a.v[7], (bi), t7) \
		t8 = c; \
		m = t0 * FP_PINV; \
		c = (uint)(((ulong)m * FP_P0 + t0) >> 32); \
		FFU_M256_MAC(t0, c, m, FP_P1, t1) \
		FFU_M256_MAC(t1, c, m, FP_P2, t2) \
		FFU_M256_MAC(t2, c, m, FP_P3, t3) \
		FFU_M256_MAC(t3, c, m, FP_P4, t4) \
		FFU_M256_MAC(t4, c, m, FP_P5, t5) \
		FFU_M256_MAC(t5, c, m, FP_P6, t6) \
		FFU_M256_MAC(t6, c, m, FP_P7, t7) \
		t7 = t8 + c; \
	}

/* Montgomery product a * b * 2^-256 mod p. */
FFU_INLINE FP_t FFU_FN(mul)(FP_t a, FP_t b)
{
	uint t0 = 0, t1 = 0, t2 = 0, t3 = 0, t4 = 0, t5 = 0, t6 = 0, t7 = 0, t8;
	FFU_M256_ROW(b.v[0])
	FFU_M256_ROW(b.v[1])
	FFU_M256_ROW(b.v[2])
	FFU_M256_ROW(b.v[3])
	FFU_M256_ROW(b.v[4])
	FFU_M256_ROW(b.v[5])
	FFU_M256_ROW(b.v[6])
	FFU_M256_ROW(b.v[7])
	return FFU_FN(csub_)(t0, t1, t2, t3, t4, t5, t6, t7);
}

/*
 * Dedicated squaring (SOS): the 28 cross products a_i*a_j (i < j) once, doubled, plus the
 * 8 squares, then eight separate Montgomery reduction rows: 100 limb multiplies instead
 * of 128. The reduction rows carry into T[i+8] through hc; T + sum m_i p 2^(32i) <
 * p^2 + 2^256 p, so after the shift the value is < 2p and the final hc is zero.
 */
FFU_INLINE FP_t FFU_FN(sqr)(FP_t a)
{
	uint T0 = 0, T1 = 0, T2 = 0, T3 = 0, T4 = 0, T5 = 0, T6 = 0, T7 = 0, T8 = 0, T9 = 0, T10 = 0, T11 = 0, T12 = 0, T13 = 0, T14 = 0, T15 = 0;
	uint c, m, hc;
	/* cross products, row i covers a_i * a_(i+1..7) */
	c = 0;
	FFU_M256_MAC(T1, c, a.v[0], a.v[1], T1)
	FFU_M256_MAC(T2, c, a.v[0], a.v[2], T2)
	FFU_M256_MAC(T3, c, a.v[0], a.v[3], T3)
	FFU_M256_MAC(T4, c, a.v[0], a.v[4], T4)
	FFU_M256_MAC(T5, c, a.v[0], a.v[5], T5)
	FFU_M256_MAC(T6, c, a.v[0], a.v[6], T6)
	FFU_M256_MAC(T7, c, a.v[0], a.v[7], T7)
	T8 = c;
	c = 0;
	FFU_M256_MAC(T3, c, a.v[1], a.v[2], T3)
	FFU_M256_MAC(T4, c, a.v[1], a.v[3], T4)
	FFU_M256_MAC(T5, c, a.v[1], a.v[4], T5)
	FFU_M256_MAC(T6, c, a.v[1], a.v[5], T6)
	FFU_M256_MAC(T7, c, a.v[1], a.v[6], T7)
	FFU_M256_MAC(T8, c, a.v[1], a.v[7], T8)
	T9 = c;
	c = 0;
	FFU_M256_MAC(T5, c, a.v[2], a.v[3], T5)
	FFU_M256_MAC(T6, c, a.v[2], a.v[4], T6)
	FFU_M256_MAC(T7, c, a.v[2], a.v[5], T7)
	FFU_M256_MAC(T8, c, a.v[2], a.v[6], T8)
	FFU_M256_MAC(T9, c, a.v[2], a.v[7], T9)
	T10 = c;
	c = 0;
	FFU_M256_MAC(T7, c, a.v[3], a.v[4], T7)
	FFU_M256_MAC(T8, c, a.v[3], a.v[5], T8)
	FFU_M256_MAC(T9, c, a.v[3], a.v[6], T9)
	FFU_M256_MAC(T10, c, a.v[3], a.v[7], T10)
	T11 = c;
	c = 0;
	FFU_M256_MAC(T9, c, a.v[4], a.v[5], T9)
	FFU_M256_MAC(T10, c, a.v[4], a.v[6], T10)
	FFU_M256_MAC(T11, c, a.v[4], a.v[7], T11)
	T12 = c;
	c = 0;
	FFU_M256_MAC(T11, c, a.v[5], a.v[6], T11)
	FFU_M256_MAC(T12, c, a.v[5], a.v[7], T12)
	T13 = c;
	c = 0;
	FFU_M256_MAC(T13, c, a.v[6], a.v[7], T13)
	T14 = c;
	/* double: shift the 16 words left by one bit (T15 is still zero) */
	T15 = (T15 << 1) | (T14 >> 31);
	T14 = (T14 << 1) | (T13 >> 31);
	T13 = (T13 << 1) | (T12 >> 31);
	T12 = (T12 << 1) | (T11 >> 31);
	T11 = (T11 << 1) | (T10 >> 31);
	T10 = (T10 << 1) | (T9 >> 31);
	T9 = (T9 << 1) | (T8 >> 31);
	T8 = (T8 << 1) | (T7 >> 31);
	T7 = (T7 << 1) | (T6 >> 31);
	T6 = (T6 << 1) | (T5 >> 31);
	T5 = (T5 << 1) | (T4 >> 31);
	T4 = (T4 << 1) | (T3 >> 31);
	T3 = (T3 << 1) | (T2 >> 31);
	T2 = (T2 << 1) | (T1 >> 31);
	T1 = (T1 << 1) | (T0 >> 31);
	T0 = T0 << 1;
	/* add the squares a_i^2 at word 2i */
	c = 0;
	{
		ulong sq = (ulong)a.v[0] * a.v[0];
		FFU_M256_ADC(T0, c, T0, (uint)sq)
		FFU_M256_ADC(T1, c, T1, (uint)(sq >> 32))
	}
	{
		ulong sq = (ulong)a.v[1] * a.v[1];
		FFU_M256_ADC(T2, c, T2, (uint)sq)
		FFU_M256_ADC(T3, c, T3, (uint)(sq >> 32))
	}
	{
		ulong sq = (ulong)a.v[2] * a.v[2];
		FFU_M256_ADC(T4, c, T4, (uint)sq)
		FFU_M256_ADC(T5, c, T5, (uint)(sq >> 32))
	}
	{
		ulong sq = (ulong)a.v[3] * a.v[3];
		FFU_M256_ADC(T6, c, T6, (uint)sq)
		FFU_M256_ADC(T7, c, T7, (uint)(sq >> 32))
	}
	{
		ulong sq = (ulong)a.v[4] * a.v[4];
		FFU_M256_ADC(T8, c, T8, (uint)sq)
		FFU_M256_ADC(T9, c, T9, (uint)(sq >> 32))
	}
	{
		ulong sq = (ulong)a.v[5] * a.v[5];
		FFU_M256_ADC(T10, c, T10, (uint)sq)
		FFU_M256_ADC(T11, c, T11, (uint)(sq >> 32))
	}
	{
		ulong sq = (ulong)a.v[6] * a.v[6];
		FFU_M256_ADC(T12, c, T12, (uint)sq)
		FFU_M256_ADC(T13, c, T13, (uint)(sq >> 32))
	}
	{
		ulong sq = (ulong)a.v[7] * a.v[7];
		FFU_M256_ADC(T14, c, T14, (uint)sq)
		FFU_M256_ADC(T15, c, T15, (uint)(sq >> 32))
	}
	/* Montgomery reduction, one row per low word */
	hc = 0;
	m = T0 * FP_PINV;
	c = (uint)(((ulong)m * FP_P0 + T0) >> 32);
	FFU_M256_MAC(T1, c, m, FP_P1, T1)
	FFU_M256_MAC(T2, c, m, FP_P2, T2)
	FFU_M256_MAC(T3, c, m, FP_P3, T3)
	FFU_M256_MAC(T4, c, m, FP_P4, T4)
	FFU_M256_MAC(T5, c, m, FP_P5, T5)
	FFU_M256_MAC(T6, c, m, FP_P6, T6)
	FFU_M256_MAC(T7, c, m, FP_P7, T7)
	{
		ulong w_ = (ulong)T8 + c + hc;
		T8 = (uint)w_;
		hc = (uint)(w_ >> 32);
	}
	m = T1 * FP_PINV;
	c = (uint)(((ulong)m * FP_P0 + T1) >> 32);
	FFU_M256_MAC(T2, c, m, FP_P1, T2)
	FFU_M256_MAC(T3, c, m, FP_P2, T3)
	FFU_M256_MAC(T4, c, m, FP_P3, T4)
	FFU_M256_MAC(T5, c, m, FP_P4, T5)
	FFU_M256_MAC(T6, c, m, FP_P5, T6)
	FFU_M256_MAC(T7, c, m, FP_P6, T7)
	FFU_M256_MAC(T8, c, m, FP_P7, T8)
	{
		ulong w_ = (ulong)T9 + c + hc;
		T9 = (uint)w_;
		hc = (uint)(w_ >> 32);
	}
	m = T2 * FP_PINV;
	c = (uint)(((ulong)m * FP_P0 + T2) >> 32);
	FFU_M256_MAC(T3, c, m, FP_P1, T3)
	FFU_M256_MAC(T4, c, m, FP_P2, T4)
	FFU_M256_MAC(T5, c, m, FP_P3, T5)
	FFU_M256_MAC(T6, c, m, FP_P4, T6)
	FFU_M256_MAC(T7, c, m, FP_P5, T7)
	FFU_M256_MAC(T8, c, m, FP_P6, T8)
	FFU_M256_MAC(T9, c, m, FP_P7, T9)
	{
		ulong w_ = (ulong)T10 + c + hc;
		T10 = (uint)w_;
		hc = (uint)(w_ >> 32);
	}
	m = T3 * FP_PINV;
	c = (uint)(((ulong)m * FP_P0 + T3) >> 32);
	FFU_M256_MAC(T4, c, m, FP_P1, T4)
	FFU_M256_MAC(T5, c, m, FP_P2, T5)
	FFU_M256_MAC(T6, c, m, FP_P3, T6)
	FFU_M256_MAC(T7, c, m, FP_P4, T7)
	FFU_M256_MAC(T8, c, m, FP_P5, T8)
	FFU_M256_MAC(T9, c, m, FP_P6, T9)
	FFU_M256_MAC(T10, c, m, FP_P7, T10)
	{
		ulong w_ = (ulong)T11 + c + hc;
		T11 = (uint)w_;
		hc = (uint)(w_ >> 32);
	}
	m = T4 * FP_PINV;
	c = (uint)(((ulong)m * FP_P0 + T4) >> 32);
	FFU_M256_MAC(T5, c, m, FP_P1, T5)
	FFU_M256_MAC(T6, c, m, FP_P2, T6)
	FFU_M256_MAC(T7, c, m, FP_P3, T7)
	FFU_M256_MAC(T8, c, m, FP_P4, T8)
	FFU_M256_MAC(T9, c, m, FP_P5, T9)
	FFU_M256_MAC(T10, c, m, FP_P6, T10)
	FFU_M256_MAC(T11, c, m, FP_P7, T11)
	{
		ulong w_ = (ulong)T12 + c + hc;
		T12 = (uint)w_;
		hc = (uint)(w_ >> 32);
	}
	m = T5 * FP_PINV;
	c = (uint)(((ulong)m * FP_P0 + T5) >> 32);
	FFU_M256_MAC(T6, c, m, FP_P1, T6)
	FFU_M256_MAC(T7, c, m, FP_P2, T7)
	FFU_M256_MAC(T8, c, m, FP_P3, T8)
	FFU_M256_MAC(T9, c, m, FP_P4, T9)
	FFU_M256_MAC(T10, c, m, FP_P5, T10)
	FFU_M256_MAC(T11, c, m, FP_P6, T11)
	FFU_M256_MAC(T12, c, m, FP_P7, T12)
	{
		ulong w_ = (ulong)T13 + c + hc;
		T13 = (uint)w_;
		hc = (uint)(w_ >> 32);
	}
	m = T6 * FP_PINV;
	c = (uint)(((ulong)m * FP_P0 + T6) >> 32);
	FFU_M256_MAC(T7, c, m, FP_P1, T7)
	FFU_M256_MAC(T8, c, m, FP_P2, T8)
	FFU_M256_MAC(T9, c, m, FP_P3, T9)
	FFU_M256_MAC(T10, c, m, FP_P4, T10)
	FFU_M256_MAC(T11, c, m, FP_P5, T11)
	FFU_M256_MAC(T12, c, m, FP_P6, T12)
	FFU_M256_MAC(T13, c, m, FP_P7, T13)
	{
		ulong w_ = (ulong)T14 + c + hc;
		T14 = (uint)w_;
		hc = (uint)(w_ >> 32);
	}
	m = T7 * FP_PINV;
	c = (uint)(((ulong)m * FP_P0 + T7) >> 32);
	FFU_M256_MAC(T8, c, m, FP_P1, T8)
	FFU_M256_MAC(T9, c, m, FP_P2, T9)
	FFU_M256_MAC(T10, c, m, FP_P3, T10)
	FFU_M256_MAC(T11, c, m, FP_P4, T11)
	FFU_M256_MAC(T12, c, m, FP_P5, T12)
	FFU_M256_MAC(T13, c, m, FP_P6, T13)
	FFU_M256_MAC(T14, c, m, FP_P7, T14)
	{
		ulong w_ = (ulong)T15 + c + hc;
		T15 = (uint)w_;
		hc = (uint)(w_ >> 32);
	}
	return FFU_FN(csub_)(T8, T9, T10, T11, T12, T13, T14, T15);
}
#endif

FFU_INLINE FP_t FFU_FN(neg)(FP_t a)
{
	FP_t z = FFU_FN(make)(0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u);
	return FFU_FN(sub)(z, a);
}

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
	uint d = (a.v[0] ^ b.v[0]) | (a.v[1] ^ b.v[1]) | (a.v[2] ^ b.v[2]) | (a.v[3] ^ b.v[3]) | (a.v[4] ^ b.v[4]) | (a.v[5] ^ b.v[5]) | (a.v[6] ^ b.v[6]) | (a.v[7] ^ b.v[7]);
	return d == 0;
}

/*
 * a < b on canonical values (every value this template holds is fully reduced, so its
 * words, least significant first, are the canonical integer's): ordered compares, maximum,
 * minimum and clamp (ir/order.c, src/codegen/kgen.c). Added by the ordered-ops work, not
 * the fields engineer.
 */
FFU_INLINE int FFU_FN(lt)(FP_t a, FP_t b)
{
	int lt = 0;
	for (int k = 0; k < 8; k++) /* least significant word first: a higher word decides */
		lt = (a.v[k] < b.v[k]) | ((a.v[k] == b.v[k]) & lt);
	return lt;
}

#undef FFU_M256_ROW
#undef FFU_M256_REDC_STEP
#undef FFU_M256_SBB
#undef FFU_M256_ADC
#undef FFU_M256_MAC
#undef FP_t
