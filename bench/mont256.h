/*
 * bench/mont256.h: the 256-bit Montgomery arithmetic (4 x 64-bit limbs, little-endian,
 * R = 2^256, CIOS with unsigned __int128) that the 256-bit C baselines share:
 * baseline_256.c (the BN254 and BLS12-381 scalar fields) and baseline_msm.c (BN254's base
 * field Fq, under the MSM). Each field is a mont256 of constants; every modulus here has a
 * top limb below 2^63 - 1 (see mont_mul). Include after bench/baseline.h.
 */
#ifndef FFU_BENCH_MONT256_H
#define FFU_BENCH_MONT256_H

#include <stdint.h>
#include <string.h>

#include "bench/baseline.h"

typedef unsigned __int128 u128;

typedef struct mont256 {
	uint64_t p[4];
	uint64_t npinv; /* -p^-1 mod 2^64 */
	uint64_t r2[4]; /* R^2 mod p: mont(a, r2) = a R */
	uint64_t r9[4]; /* R^9 mod p: undoes the R^-8 of 8 Montgomery products (fieldops) */
} mont256;

/* r = t mod p for t < 2p: d = t - p, and t kept if that borrowed */
FFU_BASE_INLINE void mont_reduce_once(uint64_t r[4], const uint64_t t[4], const mont256 *f)
{
	uint64_t d[4], borrow = 0;
	for (int j = 0; j < 4; j++) {
		u128 w = (u128)t[j] - f->p[j] - borrow;
		d[j] = (uint64_t)w;
		borrow = (uint64_t)(w >> 127);
	}
	for (int j = 0; j < 4; j++)
		r[j] = borrow ? t[j] : d[j];
}

/* t + a b + *carry (at most 2^128 - 1); the high word goes to *carry */
FFU_BASE_INLINE uint64_t mac(uint64_t t, uint64_t a, uint64_t b, uint64_t *carry)
{
	u128 r = (u128)a * b + t + *carry;
	*carry = (uint64_t)(r >> 64);
	return (uint64_t)r;
}

/*
 * r = a b / R mod p for a, b < p; r may alias a or b. CIOS: each row adds a b[i] and a
 * multiple m p of the modulus that clears the low limb, then shifts one limb down. The
 * moduli have a top limb below 2^63 - 1, so each row's two carry chains (A for a b[i], C
 * for m p) fit in a word each and the running sum in 4 limbs: no fifth and sixth limb. The
 * sum ends below 2p; one conditional subtraction makes it canonical. The limbs are scalars,
 * not an array, so that GCC keeps them in registers (with arrays, seed_bn254 took 48 ms at
 * 2^20 instead of 25).
 */
FFU_BASE_INLINE void mont_mul(uint64_t r[4], const uint64_t a[4], const uint64_t b[4], const mont256 *f)
{
	uint64_t a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
	uint64_t t0 = 0, t1 = 0, t2 = 0, t3 = 0;
	for (int i = 0; i < 4; i++) {
		uint64_t bi = b[i], A = 0, C = 0;
		t0 = mac(t0, a0, bi, &A);
		uint64_t m = t0 * f->npinv;
		(void)mac(t0, m, f->p[0], &C); /* low word 0 */
		t1 = mac(t1, a1, bi, &A);
		t0 = mac(t1, m, f->p[1], &C);
		t2 = mac(t2, a2, bi, &A);
		t1 = mac(t2, m, f->p[2], &C);
		t3 = mac(t3, a3, bi, &A);
		t2 = mac(t3, m, f->p[3], &C);
		t3 = A + C;
	}
	uint64_t t[4] = {t0, t1, t2, t3};
	mont_reduce_once(r, t, f);
}

FFU_BASE_INLINE void mont_sub(uint64_t r[4], const uint64_t a[4], const uint64_t b[4], const mont256 *f)
{
	uint64_t borrow = 0, c = 0;
	for (int j = 0; j < 4; j++) {
		u128 w = (u128)a[j] - b[j] - borrow;
		r[j] = (uint64_t)w;
		borrow = (uint64_t)(w >> 127);
	}
	uint64_t mask = 0 - borrow;
	for (int j = 0; j < 4; j++) {
		u128 w = (u128)r[j] + (f->p[j] & mask) + c;
		r[j] = (uint64_t)w;
		c = (uint64_t)(w >> 64);
	}
}

/* a + b mod p for a, b < p: every modulus here is below 2^255, so a + b < 2p fits 256 bits;
 * subtract p unless that borrows. r may alias a or b. */
FFU_BASE_INLINE void mont_add(uint64_t r[4], const uint64_t a[4], const uint64_t b[4], const mont256 *f)
{
	uint64_t s[4], c = 0;
	for (int j = 0; j < 4; j++) {
		u128 w = (u128)a[j] + b[j] + c;
		s[j] = (uint64_t)w;
		c = (uint64_t)(w >> 64);
	}
	mont_reduce_once(r, s, f);
}

/*
 * a^e in the Montgomery domain (a stands for a/R; the result for (a/R)^e, times R), with
 * fixed 4-bit windows: 14 products for the table, then 4 squarings and at most one product
 * per window (about 330 products for a 254-bit e, where bit by bit takes about 380). e > 0.
 */
FFU_BASE_INLINE void mont_pow(uint64_t r[4], const uint64_t a[4], const uint64_t e[4], const mont256 *f)
{
	uint64_t t[16][4];
	memcpy(t[1], a, 32);
	for (int j = 2; j < 16; j++)
		mont_mul(t[j], t[j - 1], a, f);
#define WINDOW(w) ((unsigned)(e[(w) / 16] >> (4 * ((w) % 16))) & 15)
	int w = 63;
	while (w > 0 && WINDOW(w) == 0)
		w--;
	memcpy(r, t[WINDOW(w)], 32); /* the top window, not 0 for e > 0 */
	while (--w >= 0) {
		for (int s = 0; s < 4; s++)
			mont_mul(r, r, r, f);
		if (WINDOW(w))
			mont_mul(r, r, t[WINDOW(w)], f);
	}
#undef WINDOW
}

#endif
