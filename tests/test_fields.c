/*
 * tests/test_fields.c: the host reference arithmetic (fields/field.c) against GMP: derived
 * constants, every element-wise op on edge values (all pairs) and on 10^5 random pairs per
 * op and field, known answers, parse/format. Owned by the fields engineer.
 *
 * Checks inside loops only call Criterion on failure (passing assertions are not free).
 */
#include <criterion/criterion.h>
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "field.h"
#include "support.h"

/*
 * Random pairs per field and op, on top of the edge values (0, 1, p-1, p-2, the 2^k
 * boundaries), which are where carry and reduction faults that few inputs trigger live.
 * A fault that fires on one random input in 1000 escapes 10^4 pairs with probability
 * e^-10; the deep run (tools/test.sh --full, which CI runs) takes 10^5 for rarer ones.
 */
#define RANDOM_PAIRS ((int)ffu_test_count(10000, 100000))

#define CHECK(cond, ...)                                                           \
	do {                                                                       \
		if (!(cond))                                                       \
			cr_assert_fail(__VA_ARGS__);                               \
	} while (0)

static void to_mpz(const ffu_field *f, mpz_t z, const void *bytes)
{
	mpz_import(z, f->storage_bytes, -1, 1, 0, 0, bytes);
}

/* z must be in [0, 2^(8*storage_bytes)). */
static void from_mpz(const ffu_field *f, void *bytes, const mpz_t z)
{
	memset(bytes, 0, f->storage_bytes);
	mpz_export(bytes, NULL, -1, 1, 0, 0, z);
}

static void modulus(const ffu_field *f, mpz_t p)
{
	mpz_set_str(p, f->modulus_hex, 16);
}

static char *zstr(const mpz_t z)
{
	static char buf[4][256];
	static int k;
	k = (k + 1) % 4;
	gmp_snprintf(buf[k], sizeof buf[k], "0x%Zx", z);
	return buf[k];
}

/* Room for the edge values of the widest field (81 for the 48-byte ones). */
#define EDGE_CAP 96

/* Edge values: small, near p, (p +- 1)/2, and 2^k, 2^k +- 1 (mod p) for k at word seams. */
static int edge_values(const ffu_field *f, mpz_t *out, int cap)
{
	mpz_t p, t;
	mpz_inits(p, t, NULL);
	modulus(f, p);
	int n = 0;
	const long small[] = {0, 1, 2, 3};
	for (size_t i = 0; i < 4; i++)
		mpz_set_si(out[n++], small[i]);
	for (long d = 1; d <= 3; d++)
		mpz_sub_ui(out[n++], p, (unsigned long)d);
	mpz_sub_ui(t, p, 1);
	mpz_fdiv_q_2exp(out[n++], t, 1);
	mpz_add_ui(t, p, 1);
	mpz_fdiv_q_2exp(out[n++], t, 1);
	const int ks[] = {16,  27,  30,  31,  32,  63,  64,  96,  128, 160, 192, 224,
			  253, 254, 255, 256, 288, 320, 352, 380, 381, 383, 384, 512};
	for (size_t i = 0; i < sizeof ks / sizeof ks[0] && n + 3 <= cap; i++) {
		if (ks[i] > 16 * (int)f->storage_bytes)
			continue;
		for (int d = -1; d <= 1; d++) {
			mpz_set_ui(t, 1);
			mpz_mul_2exp(t, t, (mp_bitcnt_t)ks[i]);
			if (d < 0)
				mpz_sub_ui(t, t, 1);
			else if (d > 0)
				mpz_add_ui(t, t, 1);
			mpz_mod(out[n++], t, p);
		}
	}
	mpz_clears(p, t, NULL);
	return n;
}

enum op { OP_ADD, OP_SUB, OP_MUL, OP_NEG, OP_TO_DEV, OP_FROM_DEV, OP_COUNT };
static const char *const op_names[OP_COUNT] = {"add", "sub", "mul", "neg", "to_dev_mont",
					       "from_dev_mont"};

/* The GMP answer for op on a, b. */
static void expect(const ffu_field *f, enum op op, mpz_t r, const mpz_t a, const mpz_t b)
{
	mpz_t p, rdev;
	mpz_inits(p, rdev, NULL);
	modulus(f, p);
	mpz_set_ui(rdev, 1);
	mpz_mul_2exp(rdev, rdev, (mp_bitcnt_t)f->dev_radix_bits);
	switch (op) {
	case OP_ADD:
		mpz_add(r, a, b);
		break;
	case OP_SUB:
		mpz_sub(r, a, b);
		break;
	case OP_MUL:
		mpz_mul(r, a, b);
		break;
	case OP_NEG:
		mpz_neg(r, a);
		break;
	case OP_TO_DEV:
		mpz_mul(r, a, rdev);
		break;
	case OP_FROM_DEV:
		mpz_invert(rdev, rdev, p);
		mpz_mul(r, a, rdev);
		break;
	default:
		break;
	}
	mpz_mod(r, r, p);
	mpz_clears(p, rdev, NULL);
}

static void run_op(const ffu_field *f, enum op op, unsigned char *out, const unsigned char *a,
		   const unsigned char *b)
{
	switch (op) {
	case OP_ADD:
		ffu__fp_add(f, out, a, b);
		break;
	case OP_SUB:
		ffu__fp_sub(f, out, a, b);
		break;
	case OP_MUL:
		ffu__fp_mul(f, out, a, b);
		break;
	case OP_NEG:
		ffu__fp_neg(f, out, a, b);
		break;
	case OP_TO_DEV:
		ffu__fp_to_dev_mont(f, out, a);
		break;
	case OP_FROM_DEV:
		ffu__fp_from_dev_mont(f, out, a);
		break;
	default:
		break;
	}
}

static void check_pair(const ffu_field *f, enum op op, const mpz_t za, const mpz_t zb)
{
	unsigned char a[FFU_FIELD_MAX_BYTES], b[FFU_FIELD_MAX_BYTES], out[FFU_FIELD_MAX_BYTES];
	mpz_t got, want;
	mpz_inits(got, want, NULL);
	from_mpz(f, a, za);
	from_mpz(f, b, zb);
	run_op(f, op, out, a, b);
	to_mpz(f, got, out);
	expect(f, op, want, za, zb);
	CHECK(mpz_cmp(got, want) == 0, "%s %s(%s, %s) = %s, GMP says %s", f->name, op_names[op],
	      zstr(za), zstr(zb), zstr(got), zstr(want));
	/* out may alias an input */
	memcpy(out, a, sizeof a);
	run_op(f, op, out, out, b);
	to_mpz(f, got, out);
	CHECK(mpz_cmp(got, want) == 0, "%s %s aliased differs", f->name, op_names[op]);
	mpz_clears(got, want, NULL);
}

Test(fields, table_and_lookup)
{
	cr_assert_eq(ffu__field_get(FFU_ELEM_COUNT), NULL);
	cr_assert_str_eq(ffu__field_get(FFU_FIELD_BABYBEAR_MONT)->name, "babybear_mont");
	cr_assert_eq(ffu__field_get((ffu_field_id)-1), NULL);
	cr_assert_eq(ffu__field_by_name("babybear", 8), ffu__field_get(FFU_FIELD_BABYBEAR));
	cr_assert_eq(ffu__field_by_name("bn254_sfx", 8), ffu__field_get(FFU_FIELD_BN254_SF));
	cr_assert_eq(ffu__field_by_name("babybea", 7), NULL);
	cr_assert_eq(ffu__field_by_name("babybear_mont", 13), NULL);
	cr_assert_eq(ffu__field_by_name(NULL, 0), NULL);
	const ffu_field *bb = ffu__field_get(FFU_FIELD_BABYBEAR);
	cr_assert_eq(bb->nlimbs, 1);
	cr_assert_eq(bb->storage_bytes, 4);
	cr_assert_str_eq(bb->cl_template, "mont31");
	const ffu_field *bn = ffu__field_get(FFU_FIELD_BN254_SF);
	cr_assert_eq(bn->nlimbs, 4);
	cr_assert_eq(bn->storage_bytes, 32);
	cr_assert_str_eq(bn->cl_template, "montn");
	cr_assert_eq(bb->pinv32, 0x77ffffffu); /* NOTES.md: p^-1 = 0x88000001 */
}

Test(fields, derived_constants_match_gmp)
{
	mpz_t p, t, r, m, got;
	mpz_inits(p, t, r, m, got, NULL);
	for (int id = 0; id < FFU_FIELD_COUNT; id++) {
		const ffu_field *f = ffu__field_get((ffu_field_id)id);
		modulus(f, p);
		cr_assert_eq((int)mpz_sizeinbase(p, 2), f->bits, "%s bits", f->name);
		cr_assert_eq(f->nlimbs, (f->bits + 63) / 64, "%s nlimbs", f->name);
		cr_assert(f->storage_bytes <= 8 * (size_t)f->nlimbs && f->storage_bytes % 4 == 0);
		cr_assert(8 * f->storage_bytes >= (size_t)f->bits);

		mpz_import(got, (size_t)f->nlimbs, -1, sizeof(uint64_t), 0, 0, f->p);
		cr_assert(mpz_cmp(got, p) == 0, "%s limbs of p", f->name);
		for (int i = f->nlimbs; i < FFU_FIELD_MAX_LIMBS; i++)
			cr_assert_eq(f->p[i], 0);

		/* -p^-1 mod 2^64 and mod 2^32 */
		mpz_ui_pow_ui(m, 2, 64);
		mpz_invert(t, p, m);
		mpz_sub(t, m, t);
		mpz_import(got, 1, -1, sizeof(uint64_t), 0, 0, &f->pinv64);
		cr_assert(mpz_cmp(got, t) == 0, "%s pinv64 %s vs %s", f->name, zstr(got), zstr(t));
		mpz_ui_pow_ui(m, 2, 32);
		mpz_invert(t, p, m);
		mpz_sub(t, m, t);
		cr_assert(mpz_cmp_ui(t, f->pinv32) == 0, "%s pinv32 0x%x vs %s", f->name, f->pinv32,
			  zstr(t));

		/* R_host^2 mod p */
		mpz_ui_pow_ui(t, 2, 128 * (unsigned long)f->nlimbs);
		mpz_mod(t, t, p);
		mpz_import(got, (size_t)f->nlimbs, -1, sizeof(uint64_t), 0, 0, f->r2_host);
		cr_assert(mpz_cmp(got, t) == 0, "%s r2_host %s vs %s", f->name, zstr(got), zstr(t));

		/* R_dev^2 mod p, R_dev = 2^dev_radix_bits (1 for canonical device templates) */
		mpz_ui_pow_ui(t, 2, 2 * (unsigned long)f->dev_radix_bits);
		mpz_mod(t, t, p);
		to_mpz(f, got, f->r2_dev);
		cr_assert(mpz_cmp(got, t) == 0, "%s r2_dev %s vs %s", f->name, zstr(got), zstr(t));
		for (size_t i = f->storage_bytes; i < FFU_FIELD_MAX_BYTES; i++)
			cr_assert_eq(f->r2_dev[i], 0);

		/* two-adicity exact; the generator is a non-residue (needed for roots of unity) */
		mpz_sub_ui(t, p, 1);
		cr_assert_eq((int)mpz_scan1(t, 0), f->two_adicity, "%s two-adicity", f->name);
		mpz_fdiv_q_2exp(m, t, 1);
		mpz_set_ui(r, f->generator);
		mpz_powm(r, r, m, p);
		cr_assert(mpz_cmp(r, t) == 0, "%s generator is a quadratic residue", f->name);
	}
	mpz_clears(p, t, r, m, got, NULL);
}

Test(fields, edge_values_all_pairs)
{
	mpz_t vals[EDGE_CAP];
	for (int i = 0; i < EDGE_CAP; i++)
		mpz_init(vals[i]);
	for (int id = 0; id < FFU_FIELD_COUNT; id++) {
		const ffu_field *f = ffu__field_get((ffu_field_id)id);
		int n = edge_values(f, vals, EDGE_CAP);
		cr_assert(n >= 9);
		for (int op = 0; op < OP_COUNT; op++)
			for (int i = 0; i < n; i++)
				for (int j = 0; j < n; j++)
					check_pair(f, (enum op)op, vals[i], vals[j]);
	}
	for (int i = 0; i < EDGE_CAP; i++)
		mpz_clear(vals[i]);
}

/* ffu__fp_combine_n's sums (inline for one-word fields, 64-bit carries included) and
   products (per element), on every pair of edge values as one run, against GMP. */
Test(fields, combine_n_runs)
{
	mpz_t vals[EDGE_CAP], p;
	for (int i = 0; i < EDGE_CAP; i++)
		mpz_init(vals[i]);
	mpz_init(p);
	for (int id = 0; id < FFU_FIELD_COUNT; id++) {
		const ffu_field *f = ffu__field_get((ffu_field_id)id);
		const size_t eb = f->storage_bytes;
		const int n = edge_values(f, vals, EDGE_CAP);
		modulus(f, p);
		unsigned char *a = malloc(eb * (size_t)(n * n)), *b = malloc(eb * (size_t)(n * n)),
			      *o = malloc(eb * (size_t)(n * n));
		cr_assert(a && b && o);
		for (int i = 0; i < n; i++)
			for (int j = 0; j < n; j++) {
				from_mpz(f, a + eb * (size_t)(i * n + j), vals[i]);
				from_mpz(f, b + eb * (size_t)(i * n + j), vals[j]);
			}
		for (int mul = 0; mul < 2; mul++) {
			ffu__fp_combine_n(f, mul ? ffu__fp_mul : ffu__fp_add, o, a, b, (size_t)(n * n));
			for (int k = 0; k < n * n; k++) {
				mpz_t got, want;
				mpz_inits(got, want, NULL);
				to_mpz(f, got, o + eb * (size_t)k);
				if (mul) { /* the per-element product, itself checked against GMP above */
					unsigned char one[FFU_FIELD_MAX_BYTES];
					ffu__fp_mul(f, one, a + eb * (size_t)k, b + eb * (size_t)k);
					to_mpz(f, want, one);
				} else {
					mpz_add(want, vals[k / n], vals[k % n]);
					mpz_mod(want, want, p);
				}
				CHECK(mpz_cmp(got, want) == 0, "%s combine_n %s pair %d", f->name, mul ? "mul" : "add", k);
				mpz_clears(got, want, NULL);
			}
		}
		free(a);
		free(b);
		free(o);
	}
	for (int i = 0; i < EDGE_CAP; i++)
		mpz_clear(vals[i]);
	mpz_clear(p);
}

Test(fields, random_pairs)
{
	mpz_t a, b, p;
	mpz_inits(a, b, p, NULL);
	for (int id = 0; id < FFU_FIELD_COUNT; id++) {
		const ffu_field *f = ffu__field_get((ffu_field_id)id);
		modulus(f, p);
		uint64_t state = 0x1234567 + (uint64_t)id;
		unsigned char x[FFU_FIELD_MAX_BYTES], y[FFU_FIELD_MAX_BYTES];
		for (int op = 0; op < OP_COUNT; op++) {
			for (int i = 0; i < RANDOM_PAIRS; i++) {
				ffu__fp_random(f, x, &state);
				ffu__fp_random(f, y, &state);
				to_mpz(f, a, x);
				to_mpz(f, b, y);
				CHECK(mpz_cmp(a, p) < 0 && mpz_cmp(b, p) < 0, "random not < p");
				check_pair(f, (enum op)op, a, b);
			}
		}
	}
	mpz_clears(a, b, p, NULL);
}

Test(fields, random_covers_the_range)
{
	/* A coarse sanity check of the sampler: both halves of [0, p) show up, no repeats. */
	mpz_t a, half;
	mpz_inits(a, half, NULL);
	for (int id = 0; id < FFU_FIELD_COUNT; id++) {
		const ffu_field *f = ffu__field_get((ffu_field_id)id);
		modulus(f, half);
		mpz_fdiv_q_2exp(half, half, 1);
		uint64_t state = 42;
		int low = 0, high = 0;
		unsigned char x[FFU_FIELD_MAX_BYTES], prev[FFU_FIELD_MAX_BYTES] = {0};
		for (int i = 0; i < 1000; i++) {
			ffu__fp_random(f, x, &state);
			cr_assert(!ffu__fp_eq(f, x, prev));
			memcpy(prev, x, sizeof x);
			to_mpz(f, a, x);
			if (mpz_cmp(a, half) < 0)
				low++;
			else
				high++;
		}
		cr_assert(low > 400 && high > 400, "%s: %d low, %d high", f->name, low, high);
	}
	mpz_clears(a, half, NULL);
}

/* Known answers from Plonky3's tests: the same inputs in the three 31-bit fields. */
Test(fields, plonky3_known_answers)
{
	static const struct {
		ffu_field_id id;
		uint32_t want;
	} cases[] = {
		{FFU_FIELD_BABYBEAR, 0x1b5c8046u},
		{FFU_FIELD_KOALABEAR, 0x54b46b81u},
		{FFU_FIELD_MERSENNE31, 0x5dbcb86au},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const ffu_field *f = ffu__field_get(cases[i].id);
		uint32_t a = 0x34167c58, b = 0x61f3207b, r = 0;
		ffu__fp_mul(f, &r, &a, &b); /* little-endian host: storage bytes are the uint32 */
		cr_assert_eq(r, cases[i].want, "%s: got 0x%08x", f->name, r);
	}
}

/*
 * zk_dtypes 0.0.17 (pip install zk_dtypes==0.0.17; numpy arrays of <name>_mont built from
 * the raw words p - 1 and p - 2) gives these products and sums of the stored words: the
 * `_mont` storage convention (x * 2^256 mod p) and arithmetic agree with ZKX's types,
 * including the full-width moduli (p - 1 + p - 2 carries out of 2^256 there).
 */
Test(fields, zk_dtypes_known_answers)
{
	static const struct {
		ffu_field_id id;
		const char *prod, *sum;
	} cases[] = {
		{FFU_FIELD_SECP256K1_SF_MONT, "0xb3d1121ac929df2712fe61824f9f56bbbcc8cbc65001783d4227e69a30f93eeb",
		 "0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd036413e"},
		{FFU_FIELD_SECP256R1_BF_MONT, "0xfffffffd00000006fffffffa0000000400000002fffffffc0000000600000001",
		 "0xffffffff00000001000000000000000000000000fffffffffffffffffffffffc"},
		{FFU_FIELD_PALLAS_SF_MONT, "0x3ef513ba2ec8f2a6af217cb180a1be278d1bc24f3b8c03d6c23347bb1c34defe",
		 "0x40000000000000000000000000000000224698fc0994a8dd8c46eb20fffffffe"},
		{FFU_FIELD_CURVE25519_BF_MONT, "0x2f286bca1af286bca1af286bca1af286bca1af286bca1af286bca1af286bca14",
		 "0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffea"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const ffu_field *f = ffu__field_get(cases[i].id);
		unsigned char a[32], b[32], r[32], want[32], one[32] = {1}, two[32] = {2};
		ffu__fp_neg(f->prime, a, one, NULL); /* the raw words p - 1 and p - 2 */
		ffu__fp_neg(f->prime, b, two, NULL);
		const char *why = NULL; /* the prime's parser: the raw words, not a canonical literal */
		ffu__fp_mul(f, r, a, b);
		cr_assert_eq(ffu__fp_parse(f->prime, want, cases[i].prod, strlen(cases[i].prod), &why), FFU_STATUS_OK);
		cr_assert(memcmp(r, want, 32) == 0, "%s product", f->name);
		ffu__fp_add(f, r, a, b);
		cr_assert_eq(ffu__fp_parse(f->prime, want, cases[i].sum, strlen(cases[i].sum), &why), FFU_STATUS_OK);
		cr_assert(memcmp(r, want, 32) == 0, "%s sum", f->name);
	}
}

/*
 * BLS12-381's base field against the constants arkworks (ark-bls12-381 Fq: R, R2) and blst
 * (BLS12_381_Rx, BLS12_381_RR) publish for their 6 x 64-bit Montgomery form: one in
 * bls12_381_bf_mont is R = 2^384 mod q, the device's R^2 is R2, and a _mont value converts
 * back to its canonical value.
 */
Test(fields, bls12_381_bf_known_answers)
{
	const ffu_field *fq = ffu__field_get(FFU_FIELD_BLS12_381_BF), *fm = ffu__field_get(FFU_FIELD_BLS12_381_BF_MONT);
	const char *r = "0x15f65ec3fa80e4935c071a97a256ec6d77ce5853705257455f48985753c758baebf4000bc40c0002760900000002fffd";
	const char *r2 = "0x11988fe592cae3aa9a793e85b519952d67eb88a9939d83c08de5476c4c95b6d50a76e6a609d104f1f4df1f341c341746";
	unsigned char one[48], want[48], back[48];
	const char *why = NULL;
	ffu__fp_set_u64(fm, one, 1);
	cr_assert_eq(ffu__fp_parse(fq, want, r, strlen(r), &why), FFU_STATUS_OK);
	cr_assert(memcmp(one, want, 48) == 0, "one in bls12_381_bf_mont is not arkworks' R");
	cr_assert_eq(ffu__fp_parse(fq, want, r2, strlen(r2), &why), FFU_STATUS_OK);
	cr_assert(memcmp(fq->r2_dev, want, 48) == 0, "the device's R^2 is not arkworks' R2");
	cr_assert(ffu__fp_convert(fq, back, fm, one));
	ffu__fp_set_u64(fq, want, 1);
	cr_assert(memcmp(back, want, 48) == 0, "R in _mont does not convert back to 1");
}

Test(fields, new_rows_shape)
{
	const ffu_field *kb = ffu__field_get(FFU_FIELD_KOALABEAR);
	cr_assert_str_eq(kb->cl_template, "mont31");
	cr_assert_eq(kb->pinv32, 0x7effffffu); /* NOTES.md: p^-1 = 0x81000001 */
	const ffu_field *m31 = ffu__field_get(FFU_FIELD_MERSENNE31);
	cr_assert_eq(m31->dev_radix_bits, 0);
	cr_assert_eq(m31->mont_radix_bits, 32);
	const ffu_field *gl = ffu__field_get(FFU_FIELD_GOLDILOCKS);
	cr_assert_eq(gl->nlimbs, 1);
	cr_assert_eq(gl->storage_bytes, 8);
	cr_assert_eq(gl->dev_radix_bits, 0);
	cr_assert_eq(gl->mont_radix_bits, 64);
	cr_assert_eq(gl->p[0], 0xffffffff00000001ull);
	const ffu_field *bls = ffu__field_get(FFU_FIELD_BLS12_381_SF);
	cr_assert_eq(bls->bits, 255);
	cr_assert_eq(bls->two_adicity, 32);
	cr_assert_eq(ffu__field_by_name("bls12_381_sf", 12), bls);
	/* BLS12-381's base field: 6 limbs, 48 bytes, R = 2^384 on the host, in _mont and on the
	   device (12 words of cl/montn.cl) */
	const ffu_field *fq = ffu__field_get(FFU_FIELD_BLS12_381_BF);
	cr_assert_str_eq(fq->name, "bls12_381_bf");
	cr_assert_eq(fq->bits, 381);
	cr_assert_eq(fq->nlimbs, 6);
	cr_assert_eq(fq->storage_bytes, 48);
	cr_assert_eq(fq->dev_radix_bits, 384);
	cr_assert_eq(fq->mont_radix_bits, 384);
	cr_assert_eq(fq->generator, 2);
	cr_assert_eq(fq->two_adicity, 1);
	cr_assert_str_eq(fq->cl_template, "montn");
	cr_assert_eq(fq->p[0], 0xb9feffffffffaaabull);
	cr_assert_eq(fq->p[5], 0x1a0111ea397fe69aull);
	cr_assert_eq(fq->pinv64, 0x89f3fffcfffcfffdull); /* arkworks / blst: INV = -p^-1 mod 2^64 */
	cr_assert_eq(ffu__field_by_name("bls12_381_bf", 12), fq);
	cr_assert_str_eq(ffu__field_get(FFU_FIELD_BLS12_381_BF_MONT)->name, "bls12_381_bf_mont");
}

Test(fields, pow_inv_set_u64_zero_eq)
{
	mpz_t za, zr, p, e;
	mpz_inits(za, zr, p, e, NULL);
	for (int id = 0; id < FFU_FIELD_COUNT; id++) {
		const ffu_field *f = ffu__field_get((ffu_field_id)id);
		modulus(f, p);
		uint64_t state = 7;
		unsigned char x[FFU_FIELD_MAX_BYTES], y[FFU_FIELD_MAX_BYTES], z[FFU_FIELD_MAX_BYTES];
		for (int i = 0; i < 200; i++) {
			ffu__fp_random(f, x, &state);
			to_mpz(f, za, x);
			uint64_t ex = i < 3 ? (uint64_t)i : ffu__rand_next(&state) >> (i % 64);
			ffu__fp_pow(f, y, x, ex);
			mpz_import(e, 1, -1, sizeof ex, 0, 0, &ex);
			mpz_powm(zr, za, e, p);
			to_mpz(f, za, y);
			CHECK(mpz_cmp(za, zr) == 0, "%s pow", f->name);
			ffu__fp_inv(f, y, x);
			ffu__fp_mul(f, z, x, y);
			to_mpz(f, za, z);
			CHECK(mpz_cmp_ui(za, 1) == 0, "%s inv", f->name);
		}
		memset(x, 0, sizeof x);
		ffu__fp_inv(f, y, x);
		cr_assert(ffu__fp_is_zero(f, y), "%s inv(0) = 0", f->name);
		ffu__fp_pow(f, y, x, 0);
		to_mpz(f, za, y);
		cr_assert(mpz_cmp_ui(za, 1) == 0, "%s 0^0 = 1", f->name);
		ffu__fp_pow(f, y, x, 5);
		cr_assert(ffu__fp_is_zero(f, y));

		const uint64_t us[] = {0, 1, 0x78000000, 0x78000001, 0x78000002, 0xffffffff,
				       0xffffffffffffffffull, 0x8000000000000000ull};
		for (size_t i = 0; i < sizeof us / sizeof us[0]; i++) {
			ffu__fp_set_u64(f, x, us[i]);
			mpz_import(za, 1, -1, sizeof us[i], 0, 0, &us[i]);
			mpz_mod(za, za, p);
			to_mpz(f, zr, x);
			cr_assert(mpz_cmp(za, zr) == 0, "%s set_u64(%llu)", f->name,
				  (unsigned long long)us[i]);
		}
		ffu__fp_set_u64(f, x, 0);
		cr_assert(ffu__fp_is_zero(f, x));
		ffu__fp_set_u64(f, y, 1);
		cr_assert(!ffu__fp_is_zero(f, y));
		cr_assert(!ffu__fp_eq(f, x, y));
		ffu__fp_set_u64(f, z, 1);
		cr_assert(ffu__fp_eq(f, z, y));
	}
	mpz_clears(za, zr, p, e, NULL);
}

static ffu_status parse_str(const ffu_field *f, void *out, const char *s, const char **why)
{
	return ffu__fp_parse(f, out, s, strlen(s), why);
}

Test(fields, parse_format_round_trip)
{
	mpz_t a, b;
	mpz_inits(a, b, NULL);
	char buf[FFU_FIELD_TEXT_MAX], text[300];
	mpz_t vals[EDGE_CAP];
	for (int i = 0; i < EDGE_CAP; i++)
		mpz_init(vals[i]);
	for (int id = 0; id < FFU_FIELD_COUNT; id++) {
		const ffu_field *f = ffu__field_get((ffu_field_id)id);
		uint64_t state = 99;
		unsigned char x[FFU_FIELD_MAX_BYTES], y[FFU_FIELD_MAX_BYTES];
		int nedge = edge_values(f, vals, EDGE_CAP);
		for (int i = 0; i < 2000 + nedge; i++) {
			if (i < nedge)
				from_mpz(f, x, vals[i]);
			else
				ffu__fp_random(f, x, &state);
			to_mpz(f, a, x);
			ffu__fp_format(f, buf, x);
			gmp_snprintf(text, sizeof text, "%Zd", a);
			CHECK(strcmp(buf, text) == 0, "%s format %s vs %s", f->name, buf, text);
			const char *why = "unset";
			memset(y, 0xee, sizeof y);
			CHECK(parse_str(f, y, buf, &why) == FFU_STATUS_OK && why == NULL, "parse %s",
			      buf);
			CHECK(ffu__fp_eq(f, x, y), "%s decimal round trip %s", f->name, buf);
			gmp_snprintf(text, sizeof text, i % 2 ? "0x%Zx" : "0X%ZX", a);
			CHECK(parse_str(f, y, text, &why) == FFU_STATUS_OK, "parse %s", text);
			to_mpz(f, b, y);
			CHECK(mpz_cmp(a, b) == 0, "%s hex round trip %s", f->name, text);
		}
		/* leading zeros of any length, and the length bound */
		memset(text, '0', 299);
		text[298] = '7';
		text[299] = '\0';
		cr_assert_eq(parse_str(f, y, text, NULL), FFU_STATUS_OK);
		to_mpz(f, a, y);
		cr_assert(mpz_cmp_ui(a, 7) == 0);
		cr_assert_eq(ffu__fp_parse(f, y, "123abc", 3, NULL), FFU_STATUS_OK);
		to_mpz(f, a, y);
		cr_assert(mpz_cmp_ui(a, 123) == 0);
		cr_assert_eq(ffu__fp_parse(f, y, "0x1fz", 4, NULL), FFU_STATUS_OK);
		to_mpz(f, a, y);
		cr_assert(mpz_cmp_ui(a, 0x1f) == 0);
		cr_assert_str_eq(ffu__fp_format(f, buf, (memset(y, 0, sizeof y), y)), "0");
	}
	for (int i = 0; i < EDGE_CAP; i++)
		mpz_clear(vals[i]);
	mpz_clears(a, b, NULL);
}

Test(fields, parse_rejects)
{
	mpz_t p, t;
	mpz_inits(p, t, NULL);
	char text[700];
	const char *too_big = "value is not less than the field modulus";
	for (int id = 0; id < FFU_FIELD_COUNT; id++) {
		const ffu_field *f = ffu__field_get((ffu_field_id)id);
		modulus(f, p);
		unsigned char y[FFU_FIELD_MAX_BYTES];
		const char *why;

		const char *bad[] = {"", "0x", "0X", "12a", "-1", "+1", " 1", "1 ", "x1", "0x-1",
				     "0xg", "1.0", "1e3", "0b1", "0x0x1"};
		for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
			why = NULL;
			cr_assert_eq(parse_str(f, y, bad[i], &why), FFU_STATUS_EPARSE, "%s \"%s\"",
				     f->name, bad[i]);
			cr_assert(why != NULL && strcmp(why, too_big) != 0, "why for \"%s\"", bad[i]);
		}
		cr_assert_eq(parse_str(f, y, "1", NULL), FFU_STATUS_OK); /* why may be NULL */
		cr_assert_eq(ffu__fp_parse(f, y, "12", 0, &why), FFU_STATUS_EPARSE);

		/* p, p + 1, 2p, 2^256 (2^384 for a 48-byte field), 2^512 in decimal and hex */
		for (int k = 0; k < 5; k++) {
			switch (k) {
			case 0: mpz_set(t, p); break;
			case 1: mpz_add_ui(t, p, 1); break;
			case 2: mpz_mul_2exp(t, p, 1); break;
			case 3: mpz_ui_pow_ui(t, 2, f->storage_bytes > 32 ? 8 * f->storage_bytes : 256); break;
			default: mpz_ui_pow_ui(t, 2, 512); break;
			}
			for (int hex = 0; hex < 2; hex++) {
				gmp_snprintf(text, sizeof text, hex ? "0x%Zx" : "%Zd", t);
				why = NULL;
				cr_assert_eq(parse_str(f, y, text, &why), FFU_STATUS_EPARSE, "%s %s",
					     f->name, text);
				cr_assert(why && strcmp(why, too_big) == 0);
			}
		}
		/* 600-digit numbers: all nines, a one and zeros, hex of 600 f's */
		memset(text, '9', 600);
		text[600] = '\0';
		cr_assert_eq(parse_str(f, y, text, &why), FFU_STATUS_EPARSE);
		cr_assert_str_eq(why, too_big);
		memset(text, '0', 600);
		text[0] = '1';
		cr_assert_eq(parse_str(f, y, text, &why), FFU_STATUS_EPARSE);
		cr_assert_str_eq(why, too_big);
		text[0] = '0';
		text[1] = 'x';
		memset(text + 2, 'f', 598);
		cr_assert_eq(parse_str(f, y, text, &why), FFU_STATUS_EPARSE);
		cr_assert_str_eq(why, too_big);
		/* a bad character after an overflowing prefix is still a parse error */
		memset(text, '9', 600);
		text[599] = 'z';
		cr_assert_eq(parse_str(f, y, text, &why), FFU_STATUS_EPARSE);

		/* p - 1 is accepted */
		mpz_sub_ui(t, p, 1);
		gmp_snprintf(text, sizeof text, "%Zd", t);
		cr_assert_eq(parse_str(f, y, text, &why), FFU_STATUS_OK);
	}
	mpz_clears(p, t, NULL);
}

/*
 * divide (x / 0 = 0), inverse (inverse(0) = 0), the _mont types (x * 2^mont_radix_bits)
 * and convert, against GMP: edge values plus 10^5 random values per op and field. Its full
 * mode (10^5) took 87 s alone on 2 cores with bn254_bf's host inversions, and passed 120 s
 * in CI's parallel run: hence the long timeout.
 */
Test(fields, divide_inverse_mont_convert, .timeout = 480)
{
	mpz_t p, za, zb, want, got, r, rinv;
	mpz_inits(p, za, zb, want, got, r, rinv, NULL);
	mpz_t edges[EDGE_CAP];
	for (int i = 0; i < EDGE_CAP; i++)
		mpz_init(edges[i]);
	const ffu_field *u32 = ffu__field_get(FFU_FIELD_U32), *u64 = ffu__field_get(FFU_FIELD_U64);
	for (int id = 0; id < FFU_FIELD_COUNT; id++) {
		const ffu_field *f = ffu__field_get((ffu_field_id)id);
		const ffu_field *fm = ffu__field_get((ffu_field_id)(FFU_FIELD_COUNT + id));
		cr_assert_eq(fm->kind, FFU_ELEM_MONT);
		cr_assert_eq(fm->base, f);
		modulus(f, p);
		mpz_set_ui(r, 1);
		mpz_mul_2exp(r, r, (mp_bitcnt_t)f->mont_radix_bits);
		mpz_mod(r, r, p);
		mpz_invert(rinv, r, p);
		int ne = edge_values(f, edges, EDGE_CAP);
		uint64_t state = 0xabc + (uint64_t)id;
		unsigned char a[FFU_FIELD_MAX_BYTES], b[FFU_FIELD_MAX_BYTES], o[FFU_FIELD_MAX_BYTES];
		for (int i = 0; i < RANDOM_PAIRS + ne; i++) {
			if (i < ne) {
				from_mpz(f, a, edges[i]);
				from_mpz(f, b, edges[(i * 7) % ne]);
			} else {
				ffu__fp_random(f, a, &state);
				ffu__fp_random(f, b, &state);
			}
			to_mpz(f, za, a);
			to_mpz(f, zb, b);
			/* divide */
			ffu__fp_divide(f, o, a, b);
			to_mpz(f, got, o);
			if (mpz_sgn(zb) == 0) {
				mpz_set_ui(want, 0);
			} else {
				mpz_invert(want, zb, p);
				mpz_mul(want, want, za);
				mpz_mod(want, want, p);
			}
			CHECK(mpz_cmp(got, want) == 0, "%s divide(%s, %s)", f->name, zstr(za), zstr(zb));
			/* inverse */
			ffu__fp_inverse(f, o, a, NULL);
			to_mpz(f, got, o);
			if (mpz_sgn(za) == 0)
				mpz_set_ui(want, 0);
			else
				mpz_invert(want, za, p);
			CHECK(mpz_cmp(got, want) == 0, "%s inverse(%s)", f->name, zstr(za));
			/* _mont: a and b as stored Montgomery values; the product stays in the form */
			ffu__fp_mul(fm, o, a, b);
			to_mpz(f, got, o);
			mpz_mul(want, za, zb);
			mpz_mul(want, want, rinv);
			mpz_mod(want, want, p);
			CHECK(mpz_cmp(got, want) == 0, "%s multiply(%s, %s)", fm->name, zstr(za), zstr(zb));
			/* convert field -> _mont -> field */
			cr_assert(ffu__fp_convert(fm, o, f, a));
			to_mpz(f, got, o);
			mpz_mul(want, za, r);
			mpz_mod(want, want, p);
			CHECK(mpz_cmp(got, want) == 0, "%s convert(%s)", fm->name, zstr(za));
			cr_assert(ffu__fp_convert(f, o, fm, o));
			CHECK(ffu__fp_eq(f, o, a), "%s round trip", fm->name);
			/* convert u64 -> field (mod p), and u32 */
			uint64_t v = i < 4 ? (uint64_t)0 - (uint64_t)i : ffu__rand_next(&state);
			cr_assert(ffu__fp_convert(f, o, u64, &v));
			to_mpz(f, got, o);
			mpz_import(want, 1, -1, sizeof v, 0, 0, &v);
			mpz_mod(want, want, p);
			CHECK(mpz_cmp(got, want) == 0, "%s convert(u64 %llu)", f->name, (unsigned long long)v);
			uint32_t w = (uint32_t)v;
			cr_assert(ffu__fp_convert(f, o, u32, &w));
			to_mpz(f, got, o);
			mpz_set_ui(want, w);
			mpz_mod(want, want, p);
			CHECK(mpz_cmp(got, want) == 0, "%s convert(u32 %u)", f->name, w);
		}
		/* field -> integer only where the canonical value fits */
		cr_assert_eq(ffu__fp_convert_ok(u32, f), f->storage_bytes == 4);
		cr_assert_eq(ffu__fp_convert_ok(u64, f), f->storage_bytes == 8);
		cr_assert(ffu__fp_convert_ok(u32, u64)); /* integer -> integer: truncates (ZKX) */
		cr_assert(!ffu__fp_convert_ok(f, ffu__field_get((ffu_field_id)((id + 1) % FFU_FIELD_COUNT))));
	}
	/* integer types: parse bounds, canonical is every pattern */
	unsigned char x[8];
	const char *why;
	cr_assert_eq(ffu__fp_parse(u32, x, "4294967295", 10, &why), FFU_STATUS_OK);
	cr_assert_eq(ffu__fp_parse(u32, x, "4294967296", 10, &why), FFU_STATUS_EPARSE);
	cr_assert_str_eq(why, "value does not fit u32");
	cr_assert_eq(ffu__fp_parse(u64, x, "0xffffffffffffffff", 18, &why), FFU_STATUS_OK);
	cr_assert_eq(ffu__fp_get_u64(u64, x), ~0ull);
	cr_assert(ffu__fp_canonical(u64, x));
	cr_assert_eq(ffu__fp_parse(u64, x, "18446744073709551616", 20, &why), FFU_STATUS_EPARSE);
	cr_assert_str_eq(why, "value does not fit u64");
	for (int i = 0; i < EDGE_CAP; i++)
		mpz_clear(edges[i]);
	mpz_clears(p, za, zb, want, got, r, rinv, NULL);
}

/* ---- extension fields (kind FFU_ELEM_EXT) against GMP polynomial arithmetic ---- */

/*
 * GMP's view of an extension element: d coefficients as mpz, arithmetic on polynomials in u
 * reduced by u^d = W and coefficient-wise mod p, written independently of fields/ext.c.
 */
typedef struct zx {
	const ffu_field *x, *p; /* the extension and its prime field */
	int d;
	mpz_t mod, w;           /* p and W (signed) */
	mpz_t t[2 * FFU_FIELD_MAX_DEGREE - 1], s;
} zx;

static void zx_init(zx *z, const ffu_field *x)
{
	z->x = x;
	z->p = x->prime;
	z->d = x->degree;
	mpz_inits(z->mod, z->w, z->s, NULL);
	modulus(x->prime, z->mod);
	mpz_set_si(z->w, (long)x->nonresidue);
	for (int k = 0; k < 2 * FFU_FIELD_MAX_DEGREE - 1; k++)
		mpz_init(z->t[k]);
}

static void zx_clear(zx *z)
{
	mpz_clears(z->mod, z->w, z->s, NULL);
	for (int k = 0; k < 2 * FFU_FIELD_MAX_DEGREE - 1; k++)
		mpz_clear(z->t[k]);
}

static void zx_get(const zx *z, mpz_t *c, const unsigned char *bytes)
{
	for (int k = 0; k < z->d; k++)
		to_mpz(z->p, c[k], bytes + (size_t)k * z->p->storage_bytes);
}

/* c must be reduced to [0, p) */
static void zx_put(const zx *z, unsigned char *bytes, mpz_t *c)
{
	for (int k = 0; k < z->d; k++)
		from_mpz(z->p, bytes + (size_t)k * z->p->storage_bytes, c[k]);
}

static void zx_mod(zx *z, mpz_t *c)
{
	for (int k = 0; k < z->d; k++)
		mpz_mod(c[k], c[k], z->mod);
}

/* r = a * b mod (u^d - W, p); r may alias a or b */
static void zx_mul(zx *z, mpz_t *r, mpz_t *a, mpz_t *b)
{
	int d = z->d;
	for (int k = 0; k < 2 * d - 1; k++)
		mpz_set_ui(z->t[k], 0);
	for (int i = 0; i < d; i++)
		for (int j = 0; j < d; j++)
			mpz_addmul(z->t[i + j], a[i], b[j]);
	for (int k = 2 * d - 2; k >= d; k--)
		mpz_addmul(z->t[k - d], z->t[k], z->w);
	for (int k = 0; k < d; k++)
		mpz_mod(r[k], z->t[k], z->mod);
}

/* r = a^e by binary powering with zx_mul */
static void zx_pow(zx *z, mpz_t *r, mpz_t *a, uint64_t e)
{
	mpz_t acc[FFU_FIELD_MAX_DEGREE], base[FFU_FIELD_MAX_DEGREE];
	for (int k = 0; k < z->d; k++) {
		mpz_init_set_ui(acc[k], k == 0);
		mpz_init_set(base[k], a[k]);
	}
	for (; e; e >>= 1) {
		if (e & 1)
			zx_mul(z, acc, acc, base);
		zx_mul(z, base, base, base);
	}
	for (int k = 0; k < z->d; k++) {
		mpz_set(r[k], acc[k]);
		mpz_clears(acc[k], base[k], NULL);
	}
}

static char *ext_str(const ffu_field *x, const unsigned char *a)
{
	static char buf[4][FFU_FIELD_TEXT_MAX];
	static int k;
	k = (k + 1) % 4;
	return ffu__fp_format_literal(x, buf[k], a);
}

static const ffu_field *ext_get(int i)
{
	return ffu__field_get((ffu_field_id)(FFU_FIELD_EXT_FIRST + i));
}

/*
 * Edge elements: 0, 1, u, u^(d-1), W's coefficient images, and elements whose coefficients
 * all are (or cycle through) the prime field's edge values 0, 1, p-1, p-2, (p-1)/2, (p+1)/2.
 */
static int ext_edges(const ffu_field *x, unsigned char (*out)[FFU_FIELD_MAX_BYTES], int cap)
{
	const ffu_field *p = x->prime;
	size_t cbytes = p->storage_bytes;
	mpz_t v[8], pm;
	mpz_init(pm);
	modulus(p, pm);
	for (int i = 0; i < 8; i++)
		mpz_init(v[i]);
	mpz_set_ui(v[0], 0);
	mpz_set_ui(v[1], 1);
	mpz_sub_ui(v[2], pm, 1);
	mpz_sub_ui(v[3], pm, 2);
	mpz_sub_ui(v[4], pm, 1);
	mpz_fdiv_q_2exp(v[4], v[4], 1);
	mpz_add_ui(v[5], pm, 1);
	mpz_fdiv_q_2exp(v[5], v[5], 1);
	mpz_set_ui(v[6], 2);
	mpz_set_si(v[7], (long)x->nonresidue);
	mpz_mod(v[7], v[7], pm);
	int n = 0;
	/* every coefficient the same edge value */
	for (int i = 0; i < 8 && n < cap; i++, n++) {
		memset(out[n], 0, FFU_FIELD_MAX_BYTES);
		for (int k = 0; k < x->degree; k++)
			from_mpz(p, out[n] + k * cbytes, v[i]);
	}
	/* one non-zero coefficient: the edge value at position k (1, u, u^2, ..., (p-1) u^k) */
	for (int i = 1; i < 8; i++)
		for (int k = 0; k < x->degree && n < cap; k++, n++) {
			memset(out[n], 0, FFU_FIELD_MAX_BYTES);
			from_mpz(p, out[n] + k * cbytes, v[i]);
		}
	/* coefficients cycling through the edge values */
	for (int s = 0; s < 8 && n < cap; s++, n++) {
		memset(out[n], 0, FFU_FIELD_MAX_BYTES);
		for (int k = 0; k < x->degree; k++)
			from_mpz(p, out[n] + k * cbytes, v[(s + 3 * k) % 8]);
	}
	for (int i = 0; i < 8; i++)
		mpz_clear(v[i]);
	mpz_clear(pm);
	return n;
}

Test(fields, ext_table)
{
	cr_assert_eq(FFU_FIELD_EXT_FIRST, 2 * FFU_FIELD_COUNT);
	cr_assert_eq(FFU_FIELD_U32, FFU_FIELD_EXT_MONT_END); /* the _mont twins: test_fields_ext_mont.c */
	cr_assert_eq(FFU_FIELD_EXT_COUNT, 7);
	cr_assert_eq(ffu__field_get(FFU_FIELD_BABYBEARX4)->prime, ffu__field_get(FFU_FIELD_BABYBEAR));
	cr_assert_eq(ffu__field_get(FFU_FIELD_KOALABEARX4)->prime, ffu__field_get(FFU_FIELD_KOALABEAR));
	cr_assert_eq(ffu__field_get(FFU_FIELD_MERSENNE31X2)->prime, ffu__field_get(FFU_FIELD_MERSENNE31));
	cr_assert_eq(ffu__field_get(FFU_FIELD_GOLDILOCKSX2)->prime, ffu__field_get(FFU_FIELD_GOLDILOCKS));
	cr_assert_eq(ffu__field_get(FFU_FIELD_BABYBEARX4)->nonresidue, 11);
	cr_assert_eq(ffu__field_get(FFU_FIELD_KOALABEARX4)->nonresidue, 3);
	cr_assert_eq(ffu__field_get(FFU_FIELD_MERSENNE31X2)->nonresidue, -1);
	cr_assert_eq(ffu__field_get(FFU_FIELD_GOLDILOCKSX2)->nonresidue, 7);
	cr_assert_eq(ffu__field_get(FFU_FIELD_BN254_BFX2)->prime, ffu__field_get(FFU_FIELD_BN254_BF));
	cr_assert_eq(ffu__field_get(FFU_FIELD_BLS12_381_BFX2)->prime, ffu__field_get(FFU_FIELD_BLS12_381_BF));
	cr_assert_eq(ffu__field_get(FFU_FIELD_BN254_BFX2)->nonresidue, -1);
	cr_assert_eq(ffu__field_get(FFU_FIELD_BLS12_381_BFX2)->nonresidue, -1);
	cr_assert_eq(ffu__field_get(FFU_FIELD_BLS12_381_BFX2)->storage_bytes, 96);
	cr_assert_eq(ffu__field_get(FFU_FIELD_BN254_BFX2)->storage_bytes, 64);
	cr_assert_eq(ffu__field_by_name("babybearx4", 10), NULL); /* prime fields only */
	for (int id = 0; id < FFU_ELEM_COUNT; id++) {
		const ffu_field *f = ffu__field_get((ffu_field_id)id);
		cr_assert_eq((int)f->id, id);
		if (f->kind == FFU_ELEM_UINT || f->kind == FFU_ELEM_PRED) {
			cr_assert_null(f->prime);
			cr_assert_eq(f->degree, 1);
		} else if (f->kind == FFU_ELEM_POINT) {
			/* a point type: its own base, its coordinates' prime, 2 to 4 coordinates */
			cr_assert_eq(f->base, f, "%s", f->name);
			cr_assert_eq(f->prime, f->coef->prime, "%s", f->name);
			cr_assert_eq(f->storage_bytes, (size_t)f->ncoords * f->coef->storage_bytes, "%s", f->name);
			cr_assert(f->storage_bytes <= FFU_FIELD_MAX_BYTES, "%s", f->name);
			cr_assert_eq(f->twin->twin, f, "%s", f->name);
		} else if (f->kind != FFU_ELEM_EXT) {
			cr_assert_eq(f->prime, f->base, "%s", f->name);
			cr_assert_eq(f->degree, 1);
			cr_assert_eq(f->nonresidue, 0);
		}
	}
	mpz_t p, t, e, w;
	mpz_inits(p, t, e, w, NULL);
	for (int i = 0; i < FFU_FIELD_EXT_COUNT; i++) {
		const ffu_field *x = ext_get(i), *pf = x->prime;
		cr_assert_eq(x->kind, FFU_ELEM_EXT);
		cr_assert_eq(x->base, x, "%s: base is the extension itself", x->name);
		cr_assert_eq(pf->kind, FFU_ELEM_PRIME);
		cr_assert(x->degree >= 2 && x->degree <= 4, "%s degree %d", x->name, x->degree);
		cr_assert_eq(x->storage_bytes, (size_t)x->degree * pf->storage_bytes);
		cr_assert(x->storage_bytes <= FFU_FIELD_MAX_BYTES);
		char want[64];
		snprintf(want, sizeof want, "%sx%d", pf->name, x->degree);
		cr_assert_str_eq(x->name, want);
		snprintf(want, sizeof want, "ext%d", x->degree);
		cr_assert_str_eq(x->cl_template, want);
		cr_assert_str_eq(x->modulus_hex, pf->modulus_hex);
		cr_assert_eq(x->dev_radix_bits, pf->dev_radix_bits);
		cr_assert_eq(x->mont_radix_bits, 0);
		cr_assert_eq(x->nlimbs, pf->nlimbs);
		cr_assert_eq(memcmp(x->p, pf->p, sizeof x->p), 0);
		cr_assert_eq(memcmp(x->r2_dev, pf->r2_dev, sizeof x->r2_dev), 0);
		cr_assert_eq(x->pinv32, pf->pinv32);
		/* u^d - W irreducible: W is not a square, and for d = 4 p = 1 mod 4 (then -4W is
		   no fourth power either: -1 is a square, W is not); d = 3 (W not a cube):
		   fields/ext_cubic_irreducible */
		modulus(pf, p);
		mpz_set_si(w, (long)x->nonresidue);
		mpz_mod(w, w, p);
		mpz_sub_ui(e, p, 1);
		mpz_fdiv_q_2exp(e, e, 1);
		mpz_powm(t, w, e, p);
		mpz_sub_ui(e, p, 1);
		cr_assert(x->degree == 3 || mpz_cmp(t, e) == 0, "%s: W = %lld is a square mod p", x->name,
			  (long long)x->nonresidue);
		if (x->degree == 4)
			cr_assert_eq(mpz_fdiv_ui(p, 4), 1);
		/* two-adicity of p^d - 1 */
		mpz_pow_ui(t, p, (unsigned long)x->degree);
		mpz_sub_ui(t, t, 1);
		cr_assert_eq((int)mpz_scan1(t, 0), x->two_adicity, "%s two-adicity", x->name);
		/* the longest text fits FFU_FIELD_TEXT_MAX: every coefficient p - 1 */
		unsigned char m1[FFU_FIELD_MAX_BYTES];
		mpz_sub_ui(t, p, 1);
		for (int k = 0; k < x->degree; k++)
			from_mpz(pf, m1 + k * pf->storage_bytes, t);
		char buf[FFU_FIELD_TEXT_MAX];
		size_t digits = mpz_sizeinbase(t, 10);
		cr_assert_eq(strlen(ffu__fp_format_literal(x, buf, m1)), (size_t)x->degree * (digits + 2));
		cr_assert(strlen(buf) < FFU_FIELD_TEXT_MAX);
	}
	mpz_clears(p, t, e, w, NULL);
}

enum xop { XOP_ADD, XOP_SUB, XOP_MUL, XOP_NEG, XOP_SQR, XOP_INV, XOP_DIV, XOP_TO_DEV, XOP_FROM_DEV,
	   XOP_COUNT };
static const char *const xop_names[XOP_COUNT] = {"add", "sub", "mul", "neg", "sqr", "inverse",
						 "divide", "to_dev_mont", "from_dev_mont"};

static void run_xop(const ffu_field *x, enum xop op, unsigned char *o, const unsigned char *a,
		    const unsigned char *b)
{
	switch (op) {
	case XOP_ADD: ffu__fp_add(x, o, a, b); break;
	case XOP_SUB: ffu__fp_sub(x, o, a, b); break;
	case XOP_MUL: ffu__fp_mul(x, o, a, b); break;
	case XOP_NEG: ffu__fp_neg(x, o, a, b); break;
	case XOP_SQR: ffu__fp_sqr(x, o, a, b); break;
	case XOP_INV: ffu__fp_inverse(x, o, a, b); break;
	case XOP_DIV: ffu__fp_divide(x, o, a, b); break;
	case XOP_TO_DEV: ffu__fp_to_dev_mont(x, o, a); break;
	case XOP_FROM_DEV: ffu__fp_from_dev_mont(x, o, a); break;
	default: break;
	}
}

/*
 * Checks op on (a, b) against GMP. inverse and divide are checked by their defining
 * equations (a * inverse(a) = 1, divide(a, b) * b = a), which have one solution, and
 * inverse(0) = 0, divide(a, 0) = 0. Returns false (after logging) on a mismatch.
 */
static bool check_xop(zx *z, enum xop op, const unsigned char *a, const unsigned char *b)
{
	const ffu_field *x = z->x;
	size_t sb = x->storage_bytes;
	unsigned char o[FFU_FIELD_MAX_BYTES] = {0}, want[FFU_FIELD_MAX_BYTES] = {0};
	unsigned char o2[FFU_FIELD_MAX_BYTES];
	mpz_t za[4], zb[4], zr[4], rdev;
	for (int k = 0; k < 4; k++)
		mpz_inits(za[k], zb[k], zr[k], NULL);
	mpz_init(rdev);
	zx_get(z, za, a);
	zx_get(z, zb, b);
	run_xop(x, op, o, a, b);
	/* out aliasing the first operand gives the same */
	memcpy(o2, a, sb);
	run_xop(x, op, o2, o2, b);
	bool ok = memcmp(o, o2, sb) == 0 && ffu__fp_canonical(x, o);
	bool a_zero = true, b_zero = true;
	for (int k = 0; k < z->d; k++) {
		a_zero &= mpz_sgn(za[k]) == 0;
		b_zero &= mpz_sgn(zb[k]) == 0;
	}
	switch (op) {
	case XOP_ADD:
	case XOP_SUB:
		for (int k = 0; k < z->d; k++)
			(op == XOP_ADD ? mpz_add : mpz_sub)(zr[k], za[k], zb[k]);
		zx_mod(z, zr);
		zx_put(z, want, zr);
		break;
	case XOP_NEG:
		for (int k = 0; k < z->d; k++)
			mpz_neg(zr[k], za[k]);
		zx_mod(z, zr);
		zx_put(z, want, zr);
		break;
	case XOP_MUL:
		zx_mul(z, zr, za, zb);
		zx_put(z, want, zr);
		break;
	case XOP_SQR:
		zx_mul(z, zr, za, za);
		zx_put(z, want, zr);
		break;
	case XOP_TO_DEV:
	case XOP_FROM_DEV:
		mpz_set_ui(rdev, 1);
		mpz_mul_2exp(rdev, rdev, (mp_bitcnt_t)x->dev_radix_bits);
		if (op == XOP_FROM_DEV)
			mpz_invert(rdev, rdev, z->mod);
		for (int k = 0; k < z->d; k++)
			mpz_mul(zr[k], za[k], rdev);
		zx_mod(z, zr);
		zx_put(z, want, zr);
		break;
	case XOP_INV:
		/* want: 1 (a != 0) or 0 (a = 0) as the value of a * o; o = 0 for a = 0 */
		zx_get(z, zr, o);
		zx_mul(z, zr, zr, za);
		memcpy(want, o, sb);
		if (!a_zero) {
			unsigned char prod[FFU_FIELD_MAX_BYTES] = {0}, one[FFU_FIELD_MAX_BYTES] = {0};
			zx_put(z, prod, zr);
			ffu__fp_set_u64(x, one, 1);
			ok &= memcmp(prod, one, sb) == 0;
		} else {
			memset(want, 0, sb);
		}
		break;
	case XOP_DIV:
		/* o * b = a for b != 0; o = 0 for b = 0 */
		memcpy(want, o, sb);
		if (!b_zero) {
			unsigned char prod[FFU_FIELD_MAX_BYTES] = {0};
			zx_get(z, zr, o);
			zx_mul(z, zr, zr, zb);
			zx_put(z, prod, zr);
			ok &= memcmp(prod, a, sb) == 0;
		} else {
			memset(want, 0, sb);
		}
		break;
	default:
		break;
	}
	ok &= memcmp(o, want, sb) == 0;
	if (!ok)
		cr_log_error("%s %s(%s, %s) = %s, GMP: %s", x->name, xop_names[op], ext_str(x, a),
			     ext_str(x, b), ext_str(x, o), ext_str(x, want));
	for (int k = 0; k < 4; k++)
		mpz_clears(za[k], zb[k], zr[k], NULL);
	mpz_clear(rdev);
	return ok;
}

/* Every op of every extension: all pairs of edge elements, then 10^5 random pairs per op. */
Test(fields, ext_ops_against_gmp, .timeout = 200)
{
	unsigned char edges[64][FFU_FIELD_MAX_BYTES];
	for (int i = 0; i < FFU_FIELD_EXT_COUNT; i++) {
		const ffu_field *x = ext_get(i);
		zx z;
		zx_init(&z, x);
		int ne = ext_edges(x, edges, 64);
		cr_assert(ne >= 20);
		for (int op = 0; op < XOP_COUNT; op++) {
			int bad = 0;
			for (int a = 0; a < ne; a++)
				for (int b = 0; b < ne; b++)
					bad += !check_xop(&z, (enum xop)op, edges[a], edges[b]);
			uint64_t state = 0x5eed + (uint64_t)(16 * i + op);
			unsigned char a[FFU_FIELD_MAX_BYTES], b[FFU_FIELD_MAX_BYTES];
			for (int k = 0; k < RANDOM_PAIRS && bad < 10; k++) {
				ffu__fp_random(x, a, &state);
				ffu__fp_random(x, b, &state);
				bad += !check_xop(&z, (enum xop)op, a, b);
			}
			cr_expect_eq(bad, 0, "%s %s: %d mismatches", x->name, xop_names[op], bad);
		}
		zx_clear(&z);
	}
}

/*
 * power by a u64 against GMP's binary powering: 10^5 random (element, exponent) pairs per
 * extension (exponents of every bit length), plus x^0 = 1 (also 0^0), 0^e = 0, u^d = W,
 * and the Frobenius x^p = sum c_k W^(k (p-1)/d) u^k (u^p = u * (u^d)^((p-1)/d)).
 */
Test(fields, ext_pow, .timeout = 200)
{
	mpz_t za[4], zr[4], t, pe;
	for (int k = 0; k < 4; k++)
		mpz_inits(za[k], zr[k], NULL);
	mpz_inits(t, pe, NULL);
	for (int i = 0; i < FFU_FIELD_EXT_COUNT; i++) {
		const ffu_field *x = ext_get(i);
		size_t cbytes = x->prime->storage_bytes;
		zx z;
		zx_init(&z, x);
		unsigned char a[FFU_FIELD_MAX_BYTES] = {0}, o[FFU_FIELD_MAX_BYTES] = {0};
		unsigned char want[FFU_FIELD_MAX_BYTES] = {0};
		uint64_t state = 0x90e + (uint64_t)i;
		int bad = 0;
		for (int k = 0; k < RANDOM_PAIRS && bad < 10; k++) {
			ffu__fp_random(x, a, &state);
			uint64_t e = ffu__rand_next(&state) >> (ffu__rand_next(&state) % 64);
			ffu__fp_pow(x, o, a, e);
			zx_get(&z, za, a);
			zx_pow(&z, zr, za, e);
			zx_put(&z, want, zr);
			if (memcmp(o, want, x->storage_bytes) != 0) {
				bad++;
				cr_log_error("%s pow(%s, %llu) = %s, GMP %s", x->name, ext_str(x, a),
					     (unsigned long long)e, ext_str(x, o), ext_str(x, want));
			}
		}
		cr_expect_eq(bad, 0, "%s pow: %d mismatches", x->name, bad);
		/* x^0 = 1 for x = 0 too; 0^5 = 0 */
		unsigned char one[FFU_FIELD_MAX_BYTES] = {0}, zero[FFU_FIELD_MAX_BYTES] = {0};
		ffu__fp_set_u64(x, one, 1);
		ffu__fp_pow(x, o, zero, 0);
		cr_assert_eq(memcmp(o, one, x->storage_bytes), 0, "%s 0^0", x->name);
		ffu__fp_pow(x, o, a, 0);
		cr_assert_eq(memcmp(o, one, x->storage_bytes), 0, "%s x^0", x->name);
		ffu__fp_pow(x, o, zero, 5);
		cr_assert(ffu__fp_is_zero(x, o));
		/* u^d = W */
		memset(a, 0, sizeof a);
		ffu__fp_set_u64(x->prime, a + cbytes, 1);
		ffu__fp_pow(x, o, a, (uint64_t)x->degree);
		memset(want, 0, sizeof want);
		mpz_set_si(t, (long)x->nonresidue);
		mpz_mod(t, t, z.mod);
		from_mpz(x->prime, want, t);
		cr_assert_eq(memcmp(o, want, x->storage_bytes), 0, "%s: u^%d = %s", x->name, x->degree,
			     ext_str(x, o));
		/* Frobenius on random elements: a^p, by the 32-bit chunks of p from the top (a
		   u64 exponent holds a whole p only below 2^64): o = o^(2^32) a^chunk */
		int chunks = 2 * x->prime->nlimbs;
		for (int k = 0; k < (x->prime->nlimbs > 1 ? 200 : 1000); k++) {
			ffu__fp_random(x, a, &state);
			memset(o, 0, sizeof o);
			ffu__fp_set_u64(x, o, 1);
			for (int c = chunks - 1; c >= 0; c--) {
				unsigned char ac[FFU_FIELD_MAX_BYTES];
				ffu__fp_pow(x, o, o, UINT64_C(1) << 32);
				ffu__fp_pow(x, ac, a, (x->prime->p[c / 2] >> (32 * (c % 2))) & 0xffffffffu);
				ffu__fp_mul(x, o, o, ac);
			}
			zx_get(&z, za, a);
			for (int c = 0; c < x->degree; c++) {
				mpz_sub_ui(pe, z.mod, 1);
				mpz_divexact_ui(pe, pe, (unsigned long)x->degree);
				mpz_mul_ui(pe, pe, (unsigned long)c);
				mpz_set_si(t, (long)x->nonresidue);
				mpz_mod(t, t, z.mod);
				mpz_powm(t, t, pe, z.mod);
				mpz_mul(zr[c], za[c], t);
				mpz_mod(zr[c], zr[c], z.mod);
			}
			zx_put(&z, want, zr);
			CHECK(memcmp(o, want, x->storage_bytes) == 0, "%s Frobenius of %s: %s, want %s",
			      x->name, ext_str(x, a), ext_str(x, o), ext_str(x, want));
		}
		zx_clear(&z);
	}
	for (int k = 0; k < 4; k++)
		mpz_clears(za[k], zr[k], NULL);
	mpz_clears(t, pe, NULL);
}

Test(fields, ext_set_convert_canonical)
{
	const ffu_field *u32 = ffu__field_get(FFU_FIELD_U32), *u64 = ffu__field_get(FFU_FIELD_U64);
	mpz_t p, t;
	mpz_inits(p, t, NULL);
	for (int i = 0; i < FFU_FIELD_EXT_COUNT; i++) {
		const ffu_field *x = ext_get(i), *pf = x->prime;
		const ffu_field *pm = ffu__field_get((ffu_field_id)(FFU_FIELD_COUNT + pf->id));
		size_t cbytes = pf->storage_bytes, sb = x->storage_bytes;
		modulus(pf, p);
		unsigned char a[FFU_FIELD_MAX_BYTES], o[FFU_FIELD_MAX_BYTES], c[FFU_FIELD_MAX_BYTES];
		unsigned char want[FFU_FIELD_MAX_BYTES];
		/* conversions that exist, and those that do not */
		cr_assert(ffu__fp_convert_ok(x, u32) && ffu__fp_convert_ok(x, u64));
		cr_assert(ffu__fp_convert_ok(x, pf) && ffu__fp_convert_ok(x, pm) && ffu__fp_convert_ok(x, x));
		cr_assert(!ffu__fp_convert_ok(pf, x) && !ffu__fp_convert_ok(pm, x));
		cr_assert(!ffu__fp_convert_ok(u32, x) && !ffu__fp_convert_ok(u64, x));
		cr_assert(!ffu__fp_convert_ok(ffu__field_get(FFU_FIELD_PRED), x));
		cr_assert(!ffu__fp_convert_ok(x, ffu__field_get(FFU_FIELD_PRED)));
		for (int j = 0; j < FFU_FIELD_EXT_COUNT; j++)
			cr_assert_eq(ffu__fp_convert_ok(x, ext_get(j)), i == j);
		for (int j = 0; j < FFU_FIELD_COUNT; j++) {
			cr_assert_eq(ffu__fp_convert_ok(x, ffu__field_get((ffu_field_id)j)), j == (int)pf->id);
			cr_assert(!ffu__fp_convert_ok(ffu__field_get((ffu_field_id)j), x));
		}
		uint64_t state = 0xc0 + (uint64_t)i;
		for (int k = 0; k < 20000; k++) {
			uint64_t v = k < 4 ? (uint64_t)0 - (uint64_t)k : ffu__rand_next(&state) >> (k % 64);
			memset(want, 0, sizeof want);
			mpz_import(t, 1, -1, sizeof v, 0, 0, &v);
			mpz_mod(t, t, p);
			from_mpz(pf, want, t);
			ffu__fp_set_u64(x, o, v);
			CHECK(memcmp(o, want, sb) == 0, "%s set_u64(%llu)", x->name, (unsigned long long)v);
			cr_assert(ffu__fp_convert(x, o, u64, &v));
			CHECK(memcmp(o, want, sb) == 0, "%s convert u64 %llu", x->name, (unsigned long long)v);
			uint32_t w = (uint32_t)v;
			mpz_set_ui(t, w);
			mpz_mod(t, t, p);
			memset(want, 0, sizeof want);
			from_mpz(pf, want, t);
			cr_assert(ffu__fp_convert(x, o, u32, &w));
			CHECK(memcmp(o, want, sb) == 0, "%s convert u32 %u", x->name, w);
			/* prime field -> extension, and its _mont twin (c = x R_mont) -> the same */
			ffu__fp_random(pf, c, &state);
			memset(want, 0, sizeof want);
			memcpy(want, c, cbytes);
			cr_assert(ffu__fp_convert(x, o, pf, c));
			CHECK(memcmp(o, want, sb) == 0, "%s convert from %s", x->name, pf->name);
			unsigned char cm[FFU_FIELD_MAX_BYTES];
			cr_assert(ffu__fp_convert(pm, cm, pf, c));
			cr_assert(ffu__fp_convert(x, o, pm, cm));
			CHECK(memcmp(o, want, sb) == 0, "%s convert from %s", x->name, pm->name);
			/* to itself: a copy (out may alias) */
			ffu__fp_random(x, a, &state);
			memcpy(o, a, sb);
			cr_assert(ffu__fp_convert(x, o, x, o));
			CHECK(memcmp(o, a, sb) == 0, "%s convert to itself", x->name);
		}
		/* canonical: every coefficient < p; each position at p and 2^bits - 1 is refused */
		ffu__fp_set_u64(x, a, 0);
		cr_assert(ffu__fp_canonical(x, a) && ffu__fp_is_zero(x, a));
		mpz_sub_ui(t, p, 1);
		for (int k = 0; k < x->degree; k++)
			from_mpz(pf, a + k * cbytes, t);
		cr_assert(ffu__fp_canonical(x, a));
		cr_assert(!ffu__fp_is_zero(x, a));
		for (int k = 0; k < x->degree; k++) {
			memcpy(o, a, sb);
			from_mpz(pf, o + k * cbytes, p);
			cr_assert(!ffu__fp_canonical(x, o), "%s coefficient %d = p", x->name, k);
			memset(o + k * cbytes, 0xff, cbytes);
			cr_assert(!ffu__fp_canonical(x, o), "%s coefficient %d all ones", x->name, k);
			/* zero test and equality see every coefficient */
			memset(o, 0, sb);
			o[k * cbytes] = 1;
			cr_assert(!ffu__fp_is_zero(x, o));
			memset(c, 0, sb);
			cr_assert(!ffu__fp_eq(x, o, c));
			c[k * cbytes] = 1;
			cr_assert(ffu__fp_eq(x, o, c));
		}
	}
	mpz_clears(p, t, NULL);
}

static ffu_status parse_ext(const ffu_field *x, void *out, const char *s, const char **why)
{
	return ffu__fp_parse(x, out, s, strlen(s), why);
}

Test(fields, ext_parse_format)
{
	unsigned char edges[64][FFU_FIELD_MAX_BYTES];
	mpz_t p, t;
	mpz_inits(p, t, NULL);
	for (int i = 0; i < FFU_FIELD_EXT_COUNT; i++) {
		const ffu_field *x = ext_get(i), *pf = x->prime;
		size_t sb = x->storage_bytes;
		modulus(pf, p);
		unsigned char a[FFU_FIELD_MAX_BYTES], y[FFU_FIELD_MAX_BYTES];
		char buf[FFU_FIELD_TEXT_MAX], lit[FFU_FIELD_TEXT_MAX], text[400];
		const char *why;
		int ne = ext_edges(x, edges, 64);
		uint64_t state = 0x7e47 + (uint64_t)i;
		for (int k = 0; k < ne + 3000; k++) {
			if (k < ne)
				memcpy(a, edges[k], sb);
			else
				ffu__fp_random(x, a, &state);
			ffu__fp_format(x, buf, a);
			ffu__fp_format_literal(x, lit, a);
			/* the expected texts, coefficient by coefficient with GMP */
			char want[FFU_FIELD_TEXT_MAX * 2] = "", wlit[FFU_FIELD_TEXT_MAX * 2] = "(";
			for (int c = 0; c < x->degree; c++) {
				to_mpz(pf, t, a + c * pf->storage_bytes);
				gmp_snprintf(want + strlen(want), sizeof want - strlen(want), "%s%Zd",
					     c ? " " : "", t);
				gmp_snprintf(wlit + strlen(wlit), sizeof wlit - strlen(wlit), "%s%Zd",
					     c ? ", " : "", t);
			}
			strcat(wlit, ")");
			CHECK(strcmp(buf, want) == 0, "%s format '%s', want '%s'", x->name, buf, want);
			CHECK(strcmp(lit, wlit) == 0, "%s literal '%s', want '%s'", x->name, lit, wlit);
			why = "unset";
			memset(y, 0xee, sizeof y);
			CHECK(parse_ext(x, y, buf, &why) == FFU_STATUS_OK && why == NULL, "parse '%s'", buf);
			CHECK(memcmp(a, y, sb) == 0, "%s round trip '%s'", x->name, buf);
			/* hex coefficients, tabs and runs of spaces between them */
			text[0] = '\0';
			for (int c = 0; c < x->degree; c++) {
				to_mpz(pf, t, a + c * pf->storage_bytes);
				gmp_snprintf(text + strlen(text), sizeof text - strlen(text), "%s0x%Zx",
					     c == 0 ? "" : (c % 2 ? " \t " : "  "), t);
			}
			memset(y, 0xee, sizeof y);
			CHECK(parse_ext(x, y, text, &why) == FFU_STATUS_OK, "parse '%s'", text);
			CHECK(memcmp(a, y, sb) == 0, "%s hex round trip '%s'", x->name, text);
		}
		/* the length bound: only the first len bytes count */
		/* by degree - 2: d = 2, 3, 4 */
		static const char *const ones_in[] = {"1 2 junk", "1 2 3 junk", "1 2 3 4 junk"};
		static const char *const ones_out[] = {"1 2", "1 2 3", "1 2 3 4"};
		static const char *const ones_lit[] = {"(1, 2)", "(1, 2, 3)", "(1, 2, 3, 4)"};
		int di = x->degree - 2;
		cr_assert_eq(ffu__fp_parse(x, y, ones_in[di], strlen(ones_out[di]), &why), FFU_STATUS_OK);
		ffu__fp_format(x, buf, y);
		cr_assert_str_eq(buf, ones_out[di]);
		cr_assert_str_eq(ffu__fp_format_literal(x, lit, y), ones_lit[di]);

		/* rejects: wrong count, separators other than blanks, blanks around, bad numbers */
		const char *bad2[] = {"", " ", "1", "1 2 3", " 1 2", "1 2 ", "1,2", "(1, 2)", "1 -2",
				      "1 x", "1 2x", "1\n2", "0x 1"};
		const char *bad3[] = {"", " ", "1", "1 2", "1 2 3 4", " 1 2 3", "1 2 3 ", "1,2,3",
				      "(1, 2, 3)", "1 2 -3", "1 2 x", "1 2 3x", "1\n2 3", "1 2 0x"};
		const char *bad4[] = {"", " ", "1", "1 2", "1 2 3", "1 2 3 4 5", " 1 2 3 4", "1 2 3 4 ",
				      "1,2,3,4", "(1, 2, 3, 4)", "1 2 3 -4", "1 2 3 x", "1 2 3 4x",
				      "1\n2 3 4", "1 2 3 0x"};
		const char *const *bad = x->degree == 2 ? bad2 : x->degree == 3 ? bad3 : bad4;
		size_t nbad = x->degree == 2   ? sizeof bad2 / sizeof *bad2
			      : x->degree == 3 ? sizeof bad3 / sizeof *bad3
					       : sizeof bad4 / sizeof *bad4;
		for (size_t k = 0; k < nbad; k++) {
			why = NULL;
			cr_assert_eq(parse_ext(x, y, bad[k], &why), FFU_STATUS_EPARSE, "%s '%s'", x->name,
				     bad[k]);
			cr_assert_not_null(why, "why for '%s'", bad[k]);
		}
		/* a coefficient = p at each position: the modulus message */
		for (int c = 0; c < x->degree; c++) {
			text[0] = '\0';
			for (int k = 0; k < x->degree; k++)
				gmp_snprintf(text + strlen(text), sizeof text - strlen(text), "%s%Zd",
					     k ? " " : "", k == c ? p : t);
			why = NULL;
			cr_assert_eq(parse_ext(x, y, text, &why), FFU_STATUS_EPARSE, "%s", text);
			cr_assert_str_eq(why, "value is not less than the field modulus");
		}
		why = NULL;
		static const char *const one_more[] = {"1 2 3", "1 2 3 4", "1 2 3 4 5"};
		static const char *const count_msg[] = {"an element is 2 coefficients separated by spaces",
							"an element is 3 coefficients separated by spaces",
							"an element is 4 coefficients separated by spaces"};
		cr_assert_eq(parse_ext(x, y, one_more[di], &why), FFU_STATUS_EPARSE);
		cr_assert_str_eq(why, count_msg[di]);
	}
	mpz_clears(p, t, NULL);
}
