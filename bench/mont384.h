/*
 * bench/mont384.h: 384-bit Montgomery arithmetic (6 x 64-bit limbs, little-endian,
 * R = 2^384, CIOS with unsigned __int128) for the C baselines over BLS12-381's base field
 * (baseline_msm.c, under the MSM). A field is a mont384 of constants; its modulus must have
 * a top limb below 2^63 - 1 and be below 2^383 (see mont384_mul, mont384_add). The 4-limb
 * twin is bench/mont256.h, whose product keeps its limbs in named scalars (GCC spilled its
 * arrays there); here the loops have constant bounds, which GCC unrolls at -O2 and above.
 * Include after bench/mont256.h (its mac and u128).
 */
#ifndef FFU_BENCH_MONT384_H
#define FFU_BENCH_MONT384_H

#include <stdint.h>

#include "bench/mont256.h"

typedef struct mont384 {
	uint64_t p[6];
	uint64_t npinv; /* -p^-1 mod 2^64 */
	uint64_t r2[6]; /* R^2 mod p: mont384_mul(a, r2) = a R */
} mont384;

/* r = t mod p for t < 2p */
FFU_BASE_INLINE void mont384_reduce_once(uint64_t r[6], const uint64_t t[6], const mont384 *f)
{
	uint64_t d[6], borrow = 0;
	for (int j = 0; j < 6; j++) {
		u128 w = (u128)t[j] - f->p[j] - borrow;
		d[j] = (uint64_t)w;
		borrow = (uint64_t)(w >> 127);
	}
	for (int j = 0; j < 6; j++)
		r[j] = borrow ? t[j] : d[j];
}

/*
 * r = a b / R mod p for a, b < p; r may alias a or b. CIOS as mont256.h's mont_mul: each
 * row adds a b[i] and m p (m clearing the low limb) and shifts one limb down; with a top
 * limb of p below 2^63 - 1 both carry chains fit a word and the sum stays in 6 limbs,
 * below 2p.
 */
FFU_BASE_INLINE void mont384_mul(uint64_t r[6], const uint64_t a[6], const uint64_t b[6], const mont384 *f)
{
	uint64_t t[6] = {0};
	for (int i = 0; i < 6; i++) {
		uint64_t bi = b[i], A = 0, C = 0;
		t[0] = mac(t[0], a[0], bi, &A);
		uint64_t m = t[0] * f->npinv;
		(void)mac(t[0], m, f->p[0], &C); /* low word 0 */
		for (int j = 1; j < 6; j++) {
			t[j] = mac(t[j], a[j], bi, &A);
			t[j - 1] = mac(t[j], m, f->p[j], &C);
		}
		t[5] = A + C;
	}
	mont384_reduce_once(r, t, f);
}

/* a + b mod p for a, b < p < 2^383: the sum fits 6 limbs */
FFU_BASE_INLINE void mont384_add(uint64_t r[6], const uint64_t a[6], const uint64_t b[6], const mont384 *f)
{
	uint64_t s[6], c = 0;
	for (int j = 0; j < 6; j++) {
		u128 w = (u128)a[j] + b[j] + c;
		s[j] = (uint64_t)w;
		c = (uint64_t)(w >> 64);
	}
	mont384_reduce_once(r, s, f);
}

/* a - b mod p: add p back where the difference borrowed */
FFU_BASE_INLINE void mont384_sub(uint64_t r[6], const uint64_t a[6], const uint64_t b[6], const mont384 *f)
{
	uint64_t borrow = 0, c = 0;
	for (int j = 0; j < 6; j++) {
		u128 w = (u128)a[j] - b[j] - borrow;
		r[j] = (uint64_t)w;
		borrow = (uint64_t)(w >> 127);
	}
	uint64_t mask = 0 - borrow;
	for (int j = 0; j < 6; j++) {
		u128 w = (u128)r[j] + (f->p[j] & mask) + c;
		r[j] = (uint64_t)w;
		c = (uint64_t)(w >> 64);
	}
}

/* a^(p-2) = a^-1 (Fermat) in the Montgomery domain, bit by bit from the top: one
 * inversion per msm (the affine result), so no window table */
FFU_BASE_INLINE void mont384_inv(uint64_t r[6], const uint64_t a[6], const uint64_t one[6], const mont384 *f)
{
	uint64_t e[6], acc[6];
	memcpy(e, f->p, sizeof e);
	e[0] -= 2; /* p's low limb is odd and above 2 */
	memcpy(acc, one, sizeof acc);
	for (int bit = 383; bit >= 0; bit--) {
		mont384_mul(acc, acc, acc, f);
		if ((e[bit / 64] >> (bit % 64)) & 1)
			mont384_mul(acc, acc, a, f);
	}
	memcpy(r, acc, sizeof acc);
}

#endif
