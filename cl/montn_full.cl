/*
 * cl/montn_full.cl: Montgomery arithmetic (R = 2^(32 FP_NW)) for moduli whose top bit is
 * set, 2^(32 FP_NW - 1) <= p < R (secp256k1 and secp256r1, base and scalar fields). Owned
 * by the fields engineer. src/codegen/field_cl.c emits it right after cl/montn.cl (or
 * cl/montn_64.cl) for such a field, having renamed that template's add, mul and sqr out of
 * the way (#define <name>_add <name>_hadd_, ...: the names FFU_FN pastes are rescanned, so
 * the template's definitions take the hidden names); this file defines the public ones
 * again, and cl/montn_ops.cl follows it, so its to_mont and from_mont multiply with the
 * product here. Everything else (the type, load/store, of_words_, small_, sub) is the
 * template's own: those never assume a spare bit (sub adds p back modulo R, which is exact
 * for any p < R).
 *
 * Why the templates' versions are wrong here: they need p < R / 2. With p >= R / 2,
 * a + b < 2p can reach 2R - 2 and carry out of the top word (the carry decides the
 * reduction, not the comparison with p); a CIOS row's value t < 2p after the shift can
 * exceed R, so the running value needs an extra word carried into the next row (the
 * templates drop it: t < R before a row is their invariant); and the squaring's
 * u + T_hi < 2p, as well as the final value of every product, can be >= R with the
 * carry again deciding the subtraction. Here every such carry is kept: add keeps the
 * carry out of the top word, the product is CIOS with FP_NW + 2 words of t
 * (t[FP_NW] <= 1 after each row since t < 2p, t[FP_NW + 1] takes the carry out of
 * t[FP_NW] within a row: t + a b_i + m p < (2^33 + 2) p < 2^34 R), and csubf_ subtracts p
 * when the carry word is set or t >= p. The squaring is the product (no dedicated SOS here).
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
#define FFU_MNF_WORD(a, k) ((uint)((a).v[(k) >> 1] >> (((k) & 1) * 32)))
#else
#define FFU_MNF_WORD(a, k) ((a).v[k])
#endif
/* p's words as a private array: constants after unrolling (no __constant arrays: AMD) */
#define FFU_MNF_P const uint p_[FP_NW] = {FP_PS}

/* hi * R + t - p if that is >= p, else t; for hi * R + t < 2p, hi the carry word. */
FFU_INLINE FP_t FFU_FN(csubf_)(uint hi, const uint *t)
{
	FFU_MNF_P;
	uint r[FP_NW], br = 0;
	#pragma unroll
	for (int k = 0; k < FP_NW; k++) {
		ulong w = (ulong)t[k] - p_[k] - br;
		r[k] = (uint)w;
		br = (uint)(w >> 63);
	}
	/* With hi set, t - p wraps to the right value (below p) and borrows: keep only t < p. */
	uint keep = 0u - (br & (hi ^ 1u));
	#pragma unroll
	for (int k = 0; k < FP_NW; k++)
		r[k] = (t[k] & keep) | (r[k] & ~keep);
	return FFU_FN(of_words_)(r);
}

FFU_INLINE FP_t FFU_FN(add)(FP_t a, FP_t b)
{
	uint s[FP_NW], c = 0;
	#pragma unroll
	for (int k = 0; k < FP_NW; k++) {
		ulong w = (ulong)FFU_MNF_WORD(a, k) + FFU_MNF_WORD(b, k) + c;
		s[k] = (uint)w;
		c = (uint)(w >> 32);
	}
	return FFU_FN(csubf_)(c, s);
}

/* Montgomery product a * b / R mod p by CIOS with the two extra words kept. */
FFU_INLINE FP_t FFU_FN(mul)(FP_t a, FP_t b)
{
	FFU_MNF_P;
	uint x[FP_NW], t[FP_NW + 2] = {0};
	#pragma unroll
	for (int k = 0; k < FP_NW; k++)
		x[k] = FFU_MNF_WORD(a, k);
	#pragma unroll
	for (int i = 0; i < FP_NW; i++) {
		uint bi = FFU_MNF_WORD(b, i), c = 0;
		ulong w;
		#pragma unroll
		for (int j = 0; j < FP_NW; j++) {
			w = (ulong)x[j] * bi + t[j] + c;
			t[j] = (uint)w;
			c = (uint)(w >> 32);
		}
		w = (ulong)t[FP_NW] + c;
		t[FP_NW] = (uint)w;
		t[FP_NW + 1] = (uint)(w >> 32);
		/* m makes t + m p divisible by 2^32; the shift by one word is folded in */
		uint m = t[0] * FP_PINV;
		c = (uint)(((ulong)m * p_[0] + t[0]) >> 32);
		#pragma unroll
		for (int j = 1; j < FP_NW; j++) {
			w = (ulong)m * p_[j] + t[j] + c;
			t[j - 1] = (uint)w;
			c = (uint)(w >> 32);
		}
		w = (ulong)t[FP_NW] + c;
		t[FP_NW - 1] = (uint)w;
		t[FP_NW] = t[FP_NW + 1] + (uint)(w >> 32);
	}
	return FFU_FN(csubf_)(t[FP_NW], t);
}

FFU_INLINE FP_t FFU_FN(sqr)(FP_t a)
{
	return FFU_FN(mul)(a, a);
}

#undef FFU_MNF_P
#undef FFU_MNF_WORD
#undef FP_t
