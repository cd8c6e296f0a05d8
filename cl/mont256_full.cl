/*
 * cl/mont256_full.cl: Montgomery arithmetic (R = 2^256) for 256-bit moduli whose top bit is
 * set, 2^255 <= p < 2^256 (secp256k1 and secp256r1, base and scalar fields). Owned by the
 * fields engineer. src/codegen/field_cl.c emits it right after cl/mont256.cl (or
 * cl/mont256_64.cl) for such a field, having renamed that template's csub_, add, mul, sqr,
 * to_mont and from_mont out of the way (#define <name>_add <name>_hadd_, ...: the names
 * FFU_FN pastes are rescanned, so the template's definitions take the hidden names); this
 * file defines the public ones again. Everything else (the type, load/store, make, sub,
 * neg, eq, from_u32/u64) is the template's own: those never assume a spare bit (sub adds p
 * back modulo 2^256, which is exact for any p < 2^256). cl/mont256.cl's text is left as it
 * is, so the 254/255-bit fields' generated code is unchanged byte for byte.
 *
 * Why the templates' versions are wrong here: they need p < 2^255. With p >= 2^255,
 * a + b < 2p can reach 2^257 - 2 and carry out of the top word (the carry decides the
 * reduction, not the comparison with p); a CIOS row's value t < 2p after the shift can
 * exceed 2^256, so the running value needs a ninth word carried into the next row (the
 * templates drop it: t < 2^256 before a row is their invariant); and the squaring's
 * u + T_hi < 2p, as well as the final value of every product, can be >= 2^256 with the
 * carry again deciding the subtraction. Here every such carry is kept: add keeps the
 * carry out of the top word, the product is CIOS with a ten-word t (t[8] <= 1 after each
 * row since t < 2p, t[9] takes the carry out of t[8] within a row: t + a b_i + m p
 * < (2^33 + 2) p < 2^290), and csubf_ subtracts p when the carry word is set or t >= p.
 * The squaring is the product (no dedicated SOS here).
 *
 * 32-bit words in loops over private arrays with constant bounds, unrolled by
 * `#pragma unroll` so that the words stay scalar registers and the work-item loop still
 * vectorises: x*x - x over secp256k1_sf at 2^20 on PoCL took 178 ms without the pragmas,
 * 27-36 ms with them (bn254_sf: 27-29 ms); on Rusticl 68-70 ms against bn254_sf's 33 ms.
 * Under FFU_MONT256_LIMB64 the words are read from and written into that template's
 * 64-bit limbs: this one code serves every variant (32/64-bit limbs, carry chains).
 */

#define FP_t FFU_FN(t)

#ifdef FFU_MONT256_LIMB64
#define FFU_M256F_WORD(a, k) ((uint)((a).v[(k) >> 1] >> (((k) & 1) * 32)))
#else
#define FFU_M256F_WORD(a, k) ((a).v[k])
#endif
/* p's words as a private array: constants after unrolling (no __constant arrays: AMD) */
#define FFU_M256F_P const uint p_[8] = {FP_P0, FP_P1, FP_P2, FP_P3, FP_P4, FP_P5, FP_P6, FP_P7}

/* hi * 2^256 + t - p if that is >= p, else t; for hi * 2^256 + t < 2p, hi the carry word. */
FFU_INLINE FP_t FFU_FN(csubf_)(uint hi, const uint *t)
{
	FFU_M256F_P;
	uint r[8], br = 0;
	#pragma unroll
	for (int k = 0; k < 8; k++) {
		ulong w = (ulong)t[k] - p_[k] - br;
		r[k] = (uint)w;
		br = (uint)(w >> 63);
	}
	/* With hi set, t - p wraps to the right value (below p) and borrows: keep only t < p. */
	uint keep = 0u - (br & (hi ^ 1u));
	#pragma unroll
	for (int k = 0; k < 8; k++)
		r[k] = (t[k] & keep) | (r[k] & ~keep);
	return FFU_FN(make)(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]);
}

FFU_INLINE FP_t FFU_FN(add)(FP_t a, FP_t b)
{
	uint s[8], c = 0;
	#pragma unroll
	for (int k = 0; k < 8; k++) {
		ulong w = (ulong)FFU_M256F_WORD(a, k) + FFU_M256F_WORD(b, k) + c;
		s[k] = (uint)w;
		c = (uint)(w >> 32);
	}
	return FFU_FN(csubf_)(c, s);
}

/* Montgomery product a * b * 2^-256 mod p by CIOS with the ninth and tenth words kept. */
FFU_INLINE FP_t FFU_FN(mul)(FP_t a, FP_t b)
{
	FFU_M256F_P;
	uint x[8], t[10];
	#pragma unroll
	for (int k = 0; k < 8; k++)
		x[k] = FFU_M256F_WORD(a, k);
	#pragma unroll
	for (int k = 0; k < 10; k++)
		t[k] = 0;
	#pragma unroll
	for (int i = 0; i < 8; i++) {
		uint bi = FFU_M256F_WORD(b, i), c = 0;
		ulong w;
		#pragma unroll
		for (int j = 0; j < 8; j++) {
			w = (ulong)x[j] * bi + t[j] + c;
			t[j] = (uint)w;
			c = (uint)(w >> 32);
		}
		w = (ulong)t[8] + c;
		t[8] = (uint)w;
		t[9] = (uint)(w >> 32);
		/* m makes t + m p divisible by 2^32; the shift by one word is folded in */
		uint m = t[0] * FP_PINV;
		c = (uint)(((ulong)m * p_[0] + t[0]) >> 32);
		#pragma unroll
		for (int j = 1; j < 8; j++) {
			w = (ulong)m * p_[j] + t[j] + c;
			t[j - 1] = (uint)w;
			c = (uint)(w >> 32);
		}
		w = (ulong)t[8] + c;
		t[7] = (uint)w;
		t[8] = t[9] + (uint)(w >> 32);
	}
	return FFU_FN(csubf_)(t[8], t);
}

FFU_INLINE FP_t FFU_FN(sqr)(FP_t a)
{
	return FFU_FN(mul)(a, a);
}

FFU_INLINE FP_t FFU_FN(to_mont)(FP_t a)
{
	return FFU_FN(mul)(a, FFU_FN(make)(FP_R2_0, FP_R2_1, FP_R2_2, FP_R2_3, FP_R2_4, FP_R2_5, FP_R2_6, FP_R2_7));
}

FFU_INLINE FP_t FFU_FN(from_mont)(FP_t a)
{
	return FFU_FN(mul)(a, FFU_FN(make)(1u, 0u, 0u, 0u, 0u, 0u, 0u, 0u));
}

#undef FFU_M256F_P
#undef FFU_M256F_WORD
#undef FP_t
