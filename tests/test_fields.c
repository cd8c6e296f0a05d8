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

#define RANDOM_PAIRS 100000

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
	const int ks[] = {16, 27, 30, 31, 32, 63, 64, 96, 128, 160, 192, 224, 253, 254, 255, 256, 512};
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
	cr_assert_str_eq(bn->cl_template, "mont256");
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
	mpz_t vals[64];
	for (int i = 0; i < 64; i++)
		mpz_init(vals[i]);
	for (int id = 0; id < FFU_FIELD_COUNT; id++) {
		const ffu_field *f = ffu__field_get((ffu_field_id)id);
		int n = edge_values(f, vals, 64);
		cr_assert(n >= 9);
		for (int op = 0; op < OP_COUNT; op++)
			for (int i = 0; i < n; i++)
				for (int j = 0; j < n; j++)
					check_pair(f, (enum op)op, vals[i], vals[j]);
	}
	for (int i = 0; i < 64; i++)
		mpz_clear(vals[i]);
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
	char buf[80], text[300];
	mpz_t vals[64];
	for (int i = 0; i < 64; i++)
		mpz_init(vals[i]);
	for (int id = 0; id < FFU_FIELD_COUNT; id++) {
		const ffu_field *f = ffu__field_get((ffu_field_id)id);
		uint64_t state = 99;
		unsigned char x[FFU_FIELD_MAX_BYTES], y[FFU_FIELD_MAX_BYTES];
		int nedge = edge_values(f, vals, 64);
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
	for (int i = 0; i < 64; i++)
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

		/* p, p + 1, 2p, 2^256, 2^512 in decimal and hex */
		for (int k = 0; k < 5; k++) {
			switch (k) {
			case 0: mpz_set(t, p); break;
			case 1: mpz_add_ui(t, p, 1); break;
			case 2: mpz_mul_2exp(t, p, 1); break;
			case 3: mpz_ui_pow_ui(t, 2, 256); break;
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
 * and convert, against GMP: edge values plus 10^5 random values per op and field.
 */
Test(fields, divide_inverse_mont_convert, .timeout = 120)
{
	mpz_t p, za, zb, want, got, r, rinv;
	mpz_inits(p, za, zb, want, got, r, rinv, NULL);
	mpz_t edges[64];
	for (int i = 0; i < 64; i++)
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
		int ne = edge_values(f, edges, 64);
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
		cr_assert(!ffu__fp_convert_ok(u32, u64));
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
	for (int i = 0; i < 64; i++)
		mpz_clear(edges[i]);
	mpz_clears(p, za, zb, want, got, r, rinv, NULL);
}
