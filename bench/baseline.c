/*
 * bench/baseline.c: the `c_baseline` mode: each seed workload written by hand in C, fused
 * by hand, parallel with OpenMP, on the host CPU. It answers "is the OpenCL path on a CPU
 * device as fast as what a careful C programmer would write?". Its outputs are compared
 * with the device's, byte for byte, so a fast but wrong baseline cannot pass.
 *
 * The arithmetic here is deliberately independent of fields/ and cl/: 31-bit products with
 * the compiler's constant-divisor remainder, 256-bit Montgomery on 4 x 64-bit limbs with
 * unsigned __int128 (CIOS), its constants written out here (and checked by the comparison).
 */
#include <stdint.h>
#include <string.h>

#include "bench/bench.h"
#include "ir/value.h"

#define BB_P 0x78000001u

/* out = (x + y) * x mod p over BabyBear, canonical in and out */
static void seed_bb(const ffu_value *in, ffu_value *out, int64_t n)
{
	const uint32_t *x = (const uint32_t *)in[0].data, *y = (const uint32_t *)in[1].data;
	uint32_t *o = (uint32_t *)out[0].data;
#pragma omp parallel for simd schedule(static)
	for (int64_t i = 0; i < n; i++) {
		uint32_t s = x[i] + y[i];
		s = s >= BB_P ? s - BB_P : s;
		o[i] = (uint32_t)((uint64_t)s * x[i] % BB_P);
	}
}

/* BN254 Fr, 4 x 64-bit limbs, little-endian */
static const uint64_t BN_P[4] = {0x43e1f593f0000001ull, 0x2833e84879b97091ull, 0xb85045b68181585dull,
				 0x30644e72e131a029ull};
static const uint64_t BN_PINV = 0xc2e1f593efffffffull; /* -p^-1 mod 2^64 */
static const uint64_t BN_R2[4] = {0x1bb8e645ae216da7ull, 0x53fe3ab1e35c59e3ull, 0x8c49833d53bb8085ull,
				  0x0216d0b17f4e44a5ull}; /* (2^256)^2 mod p */

typedef unsigned __int128 u128;

static inline void bn_mul(uint64_t r[4], const uint64_t a[4], const uint64_t b[4])
{
	uint64_t t[6] = {0};
	for (int i = 0; i < 4; i++) {
		u128 c = 0;
		for (int j = 0; j < 4; j++) {
			c += (u128)a[j] * b[i] + t[j];
			t[j] = (uint64_t)c;
			c >>= 64;
		}
		c += t[4];
		t[4] = (uint64_t)c;
		t[5] = (uint64_t)(c >> 64);
		uint64_t m = t[0] * BN_PINV;
		c = ((u128)m * BN_P[0] + t[0]) >> 64;
		for (int j = 1; j < 4; j++) {
			c += (u128)m * BN_P[j] + t[j];
			t[j - 1] = (uint64_t)c;
			c >>= 64;
		}
		c += t[4];
		t[3] = (uint64_t)c;
		t[4] = t[5] + (uint64_t)(c >> 64);
	}
	/* t < 2p: subtract p once if needed */
	uint64_t d[4], br = 0;
	for (int j = 0; j < 4; j++) {
		u128 w = (u128)t[j] - BN_P[j] - br;
		d[j] = (uint64_t)w;
		br = (uint64_t)(w >> 127);
	}
	int keep = t[4] == 0 && br;
	for (int j = 0; j < 4; j++)
		r[j] = keep ? t[j] : d[j];
}

static inline void bn_sub(uint64_t r[4], const uint64_t a[4], const uint64_t b[4])
{
	uint64_t br = 0, c = 0;
	for (int j = 0; j < 4; j++) {
		u128 w = (u128)a[j] - b[j] - br;
		r[j] = (uint64_t)w;
		br = (uint64_t)(w >> 127);
	}
	uint64_t mask = 0 - br;
	for (int j = 0; j < 4; j++) {
		u128 w = (u128)r[j] + (BN_P[j] & mask) + c;
		r[j] = (uint64_t)w;
		c = (uint64_t)(w >> 64);
	}
}

/* out = x*x - x over the BN254 scalar field: one conversion and one product, as fused */
static void seed_bn254(const ffu_value *in, ffu_value *out, int64_t n)
{
	const unsigned char *x = in[0].data;
	unsigned char *o = out[0].data;
#pragma omp parallel for schedule(static)
	for (int64_t i = 0; i < n; i++) {
		uint64_t a[4], am[4], sq[4], r[4];
		memcpy(a, x + 32 * i, 32);
		bn_mul(am, a, BN_R2);
		bn_mul(sq, am, a);
		bn_sub(r, sq, a);
		memcpy(o + 32 * i, r, 32);
	}
}

static const struct {
	const char *workload;
	void (*fn)(const ffu_value *in, ffu_value *out, int64_t n);
} baselines[] = {
	{"seed_bb", seed_bb},
	{"seed_bn254", seed_bn254},
};

bool ffu__bench_has_baseline(const char *workload)
{
	for (size_t i = 0; i < sizeof baselines / sizeof baselines[0]; i++)
		if (strcmp(baselines[i].workload, workload) == 0)
			return true;
	return false;
}

void ffu__bench_baseline(const char *workload, const ffu_value *in, ffu_value *out, int64_t n)
{
	for (size_t i = 0; i < sizeof baselines / sizeof baselines[0]; i++)
		if (strcmp(baselines[i].workload, workload) == 0)
			baselines[i].fn(in, out, n);
}
