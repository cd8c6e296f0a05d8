/*
 * tests/test_fields_ext_mont.c (part of test_fields): the extensions' `_mont` twins
 * (babybearx4_mont, ..., goldilocksx3_mont) and the cubic goldilocksx3, against GMP.
 *
 * A _mont twin stores each coefficient c as c R mod p (R = 2^mont_radix_bits of the prime,
 * as ZKX/zk_dtypes store them). GMP reads a stored element by dividing each raw
 * coefficient by R, computes in F_p[u]/(u^d - W) on polynomials of its own (written here,
 * independently of fields/ext.c and of test_fields.c's copy), and writes the expected
 * element back multiplied by R; the twin's result bytes must equal that exactly. The
 * canonical extensions, goldilocksx3 among them, are checked by test_fields.c's loops over
 * every FFU_EXT row.
 */
#include <criterion/criterion.h>
#include <gmp.h>
#include <stdio.h>
#include <string.h>

#include "field.h"
#include "support.h"

#define PAIRS ((int)ffu_test_count(3000, 30000))
enum { MAXD = FFU_FIELD_MAX_DEGREE, MAXB = FFU_FIELD_MAX_BYTES };

#define CHECK(cond, ...)                                                           \
	do {                                                                       \
		if (!(cond))                                                       \
			cr_assert_fail(__VA_ARGS__);                               \
	} while (0)

/* GMP's side: p, W, R and R^-1 mod p, d; elements as d mpz coefficients, canonical. */
typedef struct gx {
	const ffu_field *m; /* the _mont twin */
	int d;
	size_t cb;          /* bytes per coefficient */
	mpz_t p, w, r, rinv, t[2 * MAXD - 1];
} gx;

static void gx_init(gx *g, const ffu_field *m)
{
	g->m = m;
	g->d = m->degree;
	g->cb = m->prime->storage_bytes;
	mpz_inits(g->p, g->w, g->r, g->rinv, NULL);
	mpz_set_str(g->p, m->prime->modulus_hex, 16);
	mpz_set_si(g->w, (long)m->nonresidue);
	mpz_mod(g->w, g->w, g->p);
	mpz_set_ui(g->r, 1);
	mpz_mul_2exp(g->r, g->r, (mp_bitcnt_t)m->prime->mont_radix_bits);
	mpz_mod(g->r, g->r, g->p);
	mpz_invert(g->rinv, g->r, g->p);
	for (int k = 0; k < 2 * MAXD - 1; k++)
		mpz_init(g->t[k]);
}

static void gx_clear(gx *g)
{
	mpz_clears(g->p, g->w, g->r, g->rinv, NULL);
	for (int k = 0; k < 2 * MAXD - 1; k++)
		mpz_clear(g->t[k]);
}

/* raw coefficient bytes -> value: mont ? raw R^-1 : raw */
static void gx_get(gx *g, mpz_t *c, const unsigned char *bytes, bool mont)
{
	for (int k = 0; k < g->d; k++) {
		mpz_import(c[k], g->cb, -1, 1, 0, 0, bytes + (size_t)k * g->cb);
		if (mont) {
			mpz_mul(c[k], c[k], g->rinv);
			mpz_mod(c[k], c[k], g->p);
		}
	}
}

static void gx_put(gx *g, unsigned char *bytes, mpz_t *c, bool mont)
{
	memset(bytes, 0, MAXB);
	mpz_t v;
	mpz_init(v);
	for (int k = 0; k < g->d; k++) {
		mpz_mod(v, c[k], g->p);
		if (mont) {
			mpz_mul(v, v, g->r);
			mpz_mod(v, v, g->p);
		}
		mpz_export(bytes + (size_t)k * g->cb, NULL, -1, 1, 0, 0, v);
	}
	mpz_clear(v);
}

/* r = a b mod (u^d - W, p); r may alias a or b */
static void gx_mul(gx *g, mpz_t *r, mpz_t *a, mpz_t *b)
{
	int d = g->d;
	for (int k = 0; k < 2 * d - 1; k++)
		mpz_set_ui(g->t[k], 0);
	for (int i = 0; i < d; i++)
		for (int j = 0; j < d; j++)
			mpz_addmul(g->t[i + j], a[i], b[j]);
	for (int k = 2 * d - 2; k >= d; k--)
		mpz_addmul(g->t[k - d], g->t[k], g->w);
	for (int k = 0; k < d; k++)
		mpz_mod(r[k], g->t[k], g->p);
}

static void gx_pow(gx *g, mpz_t *r, mpz_t *a, uint64_t e)
{
	mpz_t acc[MAXD], base[MAXD];
	for (int k = 0; k < g->d; k++) {
		mpz_init_set_ui(acc[k], k == 0);
		mpz_init_set(base[k], a[k]);
	}
	for (; e; e >>= 1) {
		if (e & 1)
			gx_mul(g, acc, acc, base);
		gx_mul(g, base, base, base);
	}
	for (int k = 0; k < g->d; k++) {
		mpz_set(r[k], acc[k]);
		mpz_clears(acc[k], base[k], NULL);
	}
}

static bool gx_is_zero(gx *g, mpz_t *a)
{
	bool z = true;
	for (int k = 0; k < g->d; k++)
		z &= mpz_sgn(a[k]) == 0;
	return z;
}

static const ffu_field *twin_of(int i)
{
	return ffu__field_get((ffu_field_id)(FFU_FIELD_EXT_MONT_FIRST + i));
}

static char *txt(const ffu_field *f, const unsigned char *a)
{
	static char buf[4][FFU_FIELD_TEXT_MAX];
	static int k;
	k = (k + 1) % 4;
	return ffu__fp_format_literal(f, buf[k], a);
}

Test(fields, ext_mont_table)
{
	cr_assert_eq(FFU_FIELD_EXT_COUNT, 7);
	cr_assert_eq(FFU_FIELD_EXT_MONT_FIRST, FFU_FIELD_EXT_END);
	cr_assert_eq(FFU_FIELD_U32, FFU_FIELD_EXT_MONT_END);
	for (int i = 0; i < FFU_FIELD_EXT_COUNT; i++) {
		const ffu_field *x = ffu__field_get((ffu_field_id)(FFU_FIELD_EXT_FIRST + i)), *m = twin_of(i);
		const ffu_field *pm = ffu__field_get((ffu_field_id)(FFU_FIELD_COUNT + x->prime->id));
		char want[64];
		snprintf(want, sizeof want, "%s_mont", x->name);
		cr_assert_str_eq(m->name, want);
		cr_assert_eq(m->kind, FFU_ELEM_EXT);
		cr_assert(ffu__field_is_mont(m) && !ffu__field_is_mont(x), "%s", m->name);
		cr_assert_eq(m->base, x, "%s computes as %s on the device", m->name, x->name);
		cr_assert_eq(m->prime, x->prime);
		cr_assert_eq(m->coef, pm, "%s coefficients are %s", m->name, pm->name);
		cr_assert_eq(x->coef, x->prime);
		cr_assert(m->twin == x && x->twin == m);
		cr_assert(pm->twin == x->prime && x->prime->twin == pm);
		cr_assert_eq(m->mont_radix_bits, x->prime->mont_radix_bits);
		cr_assert_eq(x->mont_radix_bits, 0);
		cr_assert_eq(m->degree, x->degree);
		cr_assert_eq(m->nonresidue, x->nonresidue);
		cr_assert_eq(m->storage_bytes, x->storage_bytes);
		cr_assert_eq(m->dev_radix_bits, x->dev_radix_bits);
		cr_assert_str_eq(m->cl_template, x->cl_template);
		/* the conversions: between the twins both ways, into the twin from the prime
		   field, its _mont and the integers, out of it into nothing else */
		cr_assert(ffu__fp_convert_ok(m, x) && ffu__fp_convert_ok(x, m) && ffu__fp_convert_ok(m, m));
		cr_assert(ffu__fp_convert_ok(m, x->prime) && ffu__fp_convert_ok(m, pm));
		cr_assert(ffu__fp_convert_ok(m, ffu__field_get(FFU_FIELD_U32)));
		cr_assert(!ffu__fp_convert_ok(x->prime, m) && !ffu__fp_convert_ok(pm, m));
		cr_assert(!ffu__fp_convert_ok(ffu__field_get(FFU_FIELD_U64), m));
		for (int j = 0; j < FFU_FIELD_EXT_COUNT; j++)
			if (j != i) {
				cr_assert(!ffu__fp_convert_ok(m, twin_of(j)));
				cr_assert(!ffu__fp_convert_ok(m, ffu__field_get((ffu_field_id)(FFU_FIELD_EXT_FIRST + j))));
			}
	}
	for (int i = 0; i < FFU_FIELD_COUNT; i++) {
		const ffu_field *f = ffu__field_get((ffu_field_id)i);
		cr_assert(!ffu__field_is_mont(f) && ffu__field_is_mont(f->twin));
	}
	/* goldilocksx3: ZKX's (its pinned zk_dtypes: GoldilocksX3, Goldilocks, 3, 7) */
	const ffu_field *g3 = ffu__field_get(FFU_FIELD_GOLDILOCKSX3);
	cr_assert_str_eq(g3->name, "goldilocksx3");
	cr_assert_eq(g3->prime, ffu__field_get(FFU_FIELD_GOLDILOCKS));
	cr_assert_eq(g3->degree, 3);
	cr_assert_eq(g3->nonresidue, 7);
	cr_assert_str_eq(g3->cl_template, "ext3");
	cr_assert_eq(g3->storage_bytes, 24);
	cr_assert_eq(g3->two_adicity, 32); /* v2(p^3 - 1) = v2(p - 1): p^2 + p + 1 is odd */
}

/*
 * Every cubic row: u^3 - W is irreducible iff W has no cube root in F_p; with p = 1 mod 3
 * that is W^((p-1)/3) != 1 (for p = 2 mod 3 every element is a cube, so no such W exists).
 */
Test(fields, ext_cubic_irreducible)
{
	int cubics = 0;
	mpz_t p, w, e, t;
	mpz_inits(p, w, e, t, NULL);
	for (int i = 0; i < FFU_FIELD_EXT_COUNT; i++) {
		const ffu_field *x = ffu__field_get((ffu_field_id)(FFU_FIELD_EXT_FIRST + i));
		if (x->degree != 3)
			continue;
		cubics++;
		mpz_set_str(p, x->prime->modulus_hex, 16);
		cr_assert_eq(mpz_fdiv_ui(p, 3), 1, "%s: p = 1 mod 3", x->name);
		mpz_set_si(w, (long)x->nonresidue);
		mpz_mod(w, w, p);
		mpz_sub_ui(e, p, 1);
		mpz_divexact_ui(e, e, 3);
		mpz_powm(t, w, e, p);
		cr_assert(mpz_cmp_ui(t, 1) != 0, "%s: W = %lld is a cube mod p", x->name, (long long)x->nonresidue);
	}
	cr_assert_eq(cubics, 1);
	mpz_clears(p, w, e, t, NULL);
}

enum { OP_ADD, OP_SUB, OP_MUL, OP_NEG, OP_SQR, OP_INV, OP_DIV, OP_POW, OP_TO_STD, OP_FROM_STD, OP_COUNT };
static const char *const op_names[OP_COUNT] = {"add", "sub", "mul", "neg", "sqr", "inverse", "divide", "power",
					       "convert to canonical", "convert from canonical"};

/* One op of the twin m on raw a, b (e for power) against GMP; false on a mismatch. */
static bool check_op(gx *g, int op, const unsigned char *a, const unsigned char *b, uint64_t e)
{
	const ffu_field *m = g->m, *x = m->twin;
	unsigned char o[MAXB] = {0}, want[MAXB] = {0};
	mpz_t za[MAXD], zb[MAXD], zr[MAXD];
	for (int k = 0; k < MAXD; k++)
		mpz_inits(za[k], zb[k], zr[k], NULL);
	bool from_std = op == OP_FROM_STD;
	gx_get(g, za, a, !from_std);
	gx_get(g, zb, b, true);
	bool out_mont = op != OP_TO_STD;
	switch (op) {
	case OP_ADD: ffu__fp_add(m, o, a, b); break;
	case OP_SUB: ffu__fp_sub(m, o, a, b); break;
	case OP_MUL: ffu__fp_mul(m, o, a, b); break;
	case OP_NEG: ffu__fp_neg(m, o, a, NULL); break;
	case OP_SQR: ffu__fp_sqr(m, o, a, NULL); break;
	case OP_INV: ffu__fp_inverse(m, o, a, NULL); break;
	case OP_DIV: ffu__fp_divide(m, o, a, b); break;
	case OP_POW: ffu__fp_pow(m, o, a, e); break;
	case OP_TO_STD: cr_assert(ffu__fp_convert(x, o, m, a)); break;
	case OP_FROM_STD: cr_assert(ffu__fp_convert(m, o, x, a)); break;
	default: break;
	}
	switch (op) {
	case OP_ADD:
	case OP_SUB:
		for (int k = 0; k < g->d; k++)
			(op == OP_ADD ? mpz_add : mpz_sub)(zr[k], za[k], zb[k]);
		break;
	case OP_NEG:
		for (int k = 0; k < g->d; k++)
			mpz_neg(zr[k], za[k]);
		break;
	case OP_MUL: gx_mul(g, zr, za, zb); break;
	case OP_SQR: gx_mul(g, zr, za, za); break;
	case OP_POW: gx_pow(g, zr, za, e); break;
	case OP_INV:
	case OP_DIV: {
		/* the defining equations (one solution each): o a = 1 and o b = a, or 0 for 0 */
		mpz_t *den = op == OP_INV ? za : zb;
		gx_get(g, zr, o, true);
		if (gx_is_zero(g, den)) {
			for (int k = 0; k < g->d; k++)
				mpz_set_ui(zr[k], 0);
			break;
		}
		mpz_t q[MAXD];
		for (int k = 0; k < MAXD; k++)
			mpz_init(q[k]);
		gx_mul(g, q, zr, den);
		/* the target: 1 for inverse, a for divide (za is a; den is no longer needed) */
		if (op == OP_INV)
			for (int k = 0; k < g->d; k++)
				mpz_set_ui(za[k], k == 0);
		bool ok = true;
		for (int k = 0; k < g->d; k++)
			ok &= mpz_cmp(q[k], za[k]) == 0;
		for (int k = 0; k < MAXD; k++)
			mpz_clear(q[k]);
		if (!ok) /* no solution: make the comparison below fail */
			mpz_add_ui(zr[0], zr[0], 1);
		break;
	}
	default: /* the conversions: the same value in the other form */
		for (int k = 0; k < g->d; k++)
			mpz_set(zr[k], za[k]);
		break;
	}
	gx_put(g, want, zr, out_mont);
	bool ok = memcmp(o, want, m->storage_bytes) == 0;
	if (!ok)
		cr_log_error("%s %s(%s, %s; e = %llu) = %s, GMP %s", m->name, op_names[op], txt(m, a), txt(m, b),
			     (unsigned long long)e, txt(m, o), txt(m, want));
	for (int k = 0; k < MAXD; k++)
		mpz_clears(za[k], zb[k], zr[k], NULL);
	return ok;
}

/* Every op of every twin on edge elements (0, 1, u, all-(p - 1), ...) and random pairs. */
Test(fields, ext_mont_ops_against_gmp, .timeout = 200)
{
	for (int i = 0; i < FFU_FIELD_EXT_COUNT; i++) {
		const ffu_field *m = twin_of(i);
		gx g;
		gx_init(&g, m);
		/* edges as raw words: 0, 1, R (the element 1), p - 1, p - R, and u^k of them */
		unsigned char edges[32][MAXB];
		int ne = 0;
		mpz_t v[5];
		for (int k = 0; k < 5; k++)
			mpz_init(v[k]);
		mpz_set_ui(v[1], 1);
		mpz_set(v[2], g.r);
		mpz_sub_ui(v[3], g.p, 1);
		mpz_sub(v[4], g.p, g.r);
		for (int k = 0; k < 5; k++)
			for (int pos = -1; pos < g.d && ne < 32; pos++, ne++) {
				memset(edges[ne], 0, MAXB);
				for (int c = 0; c < g.d; c++)
					if (pos < 0 || c == pos)
						mpz_export(edges[ne] + (size_t)c * g.cb, NULL, -1, 1, 0, 0, v[k]);
			}
		for (int k = 0; k < 5; k++)
			mpz_clear(v[k]);
		uint64_t state = 0x3011 + (uint64_t)i;
		int bad = 0;
		for (int op = 0; op < OP_COUNT; op++) {
			for (int a = 0; a < ne; a++)
				for (int b = 0; b < ne; b++)
					bad += !check_op(&g, op, edges[a], edges[b], (uint64_t)b * 7);
			unsigned char a[MAXB], b[MAXB];
			for (int k = 0; k < PAIRS && bad < 10; k++) {
				ffu__fp_random(m, a, &state);
				ffu__fp_random(m, b, &state);
				uint64_t e = ffu__rand_next(&state) >> (ffu__rand_next(&state) % 64);
				bad += !check_op(&g, op, a, b, e);
			}
		}
		cr_expect_eq(bad, 0, "%s: %d mismatches", m->name, bad);
		gx_clear(&g);
	}
}

/* Constants and embeddings: set_u64, u64 / prime / prime _mont -> twin, text round trips. */
Test(fields, ext_mont_set_embed_text)
{
	for (int i = 0; i < FFU_FIELD_EXT_COUNT; i++) {
		const ffu_field *m = twin_of(i), *pf = m->prime, *pm = m->coef;
		gx g;
		gx_init(&g, m);
		mpz_t zr[MAXD], c;
		for (int k = 0; k < MAXD; k++)
			mpz_init(zr[k]);
		mpz_init(c);
		uint64_t state = 0x7e1 + (uint64_t)i;
		unsigned char o[MAXB], want[MAXB], in[MAXB], in2[MAXB], back[MAXB];
		for (int n = 0; n < 2000; n++) {
			uint64_t v = n < 3 ? (uint64_t)n : ffu__rand_next(&state) >> (n % 64);
			for (int k = 0; k < g.d; k++)
				mpz_set_ui(zr[k], 0);
			mpz_import(zr[0], 1, -1, sizeof v, 0, 0, &v);
			gx_put(&g, want, zr, true);
			memset(o, 0, sizeof o);
			ffu__fp_set_u64(m, o, v);
			CHECK(memcmp(o, want, m->storage_bytes) == 0, "%s set_u64(%llu) = %s", m->name,
			      (unsigned long long)v, txt(m, o));
			cr_assert(ffu__fp_convert(m, o, ffu__field_get(FFU_FIELD_U64), &v));
			CHECK(memcmp(o, want, m->storage_bytes) == 0, "%s convert u64 %llu", m->name, (unsigned long long)v);
			/* the prime field's canonical c and its _mont c R both embed as (c, 0, ...) */
			ffu__fp_random(pf, in, &state);
			mpz_import(c, pf->storage_bytes, -1, 1, 0, 0, in);
			for (int k = 0; k < g.d; k++)
				mpz_set_ui(zr[k], 0);
			mpz_set(zr[0], c);
			gx_put(&g, want, zr, true);
			cr_assert(ffu__fp_convert(m, o, pf, in));
			CHECK(memcmp(o, want, m->storage_bytes) == 0, "%s from %s", m->name, pf->name);
			cr_assert(ffu__fp_convert(pm, in2, pf, in));
			cr_assert(ffu__fp_convert(m, o, pm, in2));
			CHECK(memcmp(o, want, m->storage_bytes) == 0, "%s from %s", m->name, pm->name);
			/* text: the raw coefficients, as a value file holds them; round trip */
			char buf[FFU_FIELD_TEXT_MAX];
			ffu__fp_random(m, in, &state);
			ffu__fp_format(m, buf, in);
			const char *why = NULL;
			CHECK(ffu__fp_parse(m, back, buf, strlen(buf), &why) == FFU_STATUS_OK, "%s parse '%s'", m->name, buf);
			CHECK(memcmp(back, in, m->storage_bytes) == 0, "%s round trip '%s'", m->name, buf);
			mpz_import(c, g.cb, -1, 1, 0, 0, in);
			char first[FFU_FIELD_TEXT_MAX];
			gmp_snprintf(first, sizeof first, "%Zd", c);
			CHECK(strncmp(buf, first, strlen(first)) == 0 && buf[strlen(first)] == ' ',
			      "%s text '%s' starts with the raw coefficient %s", m->name, buf, first);
		}
		for (int k = 0; k < MAXD; k++)
			mpz_clear(zr[k]);
		mpz_clear(c);
		gx_clear(&g);
	}
}
