/*
 * tests/test_bench_msm.c: the C baselines of the msm bench workloads (msm_bn254_g1,
 * msm_bn254_g2, msm_bls12_381_g1, msm_bls12_381_g2: bench/baseline_msm.c) against the reference interpreter (`fieldfuse run
 * --interp`'s msm and convert, fields/point.c) on the same inputs, byte for byte: n = 1, 2,
 * 3, 31, 1000 with zero scalars, infinity bases, repeated bases and P + (-P), at the window
 * width the baseline picks and at others, for each curve of the table below. `fieldfuse
 * bench` also compares them with the device's msm (tests/meson.build: bench_msm). The
 * interpreter itself is checked against Python integers by tests/points_oracle.py.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/baseline.h"
#include "bench/bench.h"
#include "fields/field.h"
#include "fields/point.h"
#include "hlo/hlo.h"
#include "interp/interp.h"
#include "ir/value.h"
#include "support.h"

enum { SB = 32 }; /* bytes of a scalar */

/* The workloads with a baseline: the curve's name stem, its scalar field, its workload */
static const struct {
	const char *curve, *scalar, *workload;
} curves[] = {{"bn254_g1", "bn254_sf", "msm_bn254_g1"},
	      {"bn254_g2", "bn254_sf", "msm_bn254_g2"},
	      {"bls12_381_g1", "bls12_381_sf", "msm_bls12_381_g1"},
	      {"bls12_381_g2", "bls12_381_sf", "msm_bls12_381_g2"}};
static size_t cur; /* the curve every helper below works on */

/* What to put at each index besides random values */
typedef enum { PLAIN, ZERO_SCALAR, INF_BASE, REPEAT, NEGATE, REPEAT_SAME } special;

typedef struct msm_case {
	ffu_module *m;
	ffu_value in[2];
} msm_case;

static const ffu_field *sf(void)
{
	return ffu_test_field(curves[cur].scalar);
}

static const ffu_field *affine(void)
{
	char name[64];
	snprintf(name, sizeof name, "%s_affine", curves[cur].curve);
	return ffu_test_field(name);
}

/* bytes of an affine point */
static size_t pb(void)
{
	return affine()->storage_bytes;
}

/* The workload's program (bench/workloads/msm_<curve>.hlo) at n points */
static void case_init(msm_case *c, int64_t n)
{
	char text[1024];
	const char *cv = curves[cur].curve, *st = curves[cur].scalar;
	snprintf(text, sizeof text,
		 "HloModule msm\n"
		 "ENTRY %%main (s: %s[%lld], b: %s_affine[%lld]) -> %s_affine[] {\n"
		 "  %%s = %s[%lld] parameter(0)\n"
		 "  %%b = %s_affine[%lld] parameter(1)\n"
		 "  %%r = %s_xyzz[] msm(%%s, %%b)\n"
		 "  ROOT %%a = %s_affine[] convert(%%r)\n}\n",
		 st, (long long)n, cv, (long long)n, cv, st, (long long)n, cv, (long long)n, cv, cv);
	ffu_error e = {0};
	memset(c, 0, sizeof *c);
	cr_assert_eq(ffu__hlo_parse(&c->m, text, strlen(text), "msm.hlo", &e), FFU_STATUS_OK, "%s", e.message);
	for (int p = 0; p < 2; p++)
		cr_assert_eq(ffu__value_alloc(&c->in[p], &c->m->entry->params[p]->shape, &e), FFU_STATUS_OK);
}

static void case_free(msm_case *c)
{
	ffu__value_free(&c->in[0]);
	ffu__value_free(&c->in[1]);
	ffu__module_free(c->m);
}

/* Index i: a random scalar and a random point k G, or what kinds[i % nk] asks for
 * (REPEAT and NEGATE take the base of index i - 1; REPEAT_SAME its scalar too) */
static void fill(msm_case *c, int64_t n, const special *kinds, int nk, uint64_t seed)
{
	unsigned char *s = c->in[0].data, *b = c->in[1].data;
	const size_t PB = pb(), CB = PB / 2; /* a point, a coordinate */
	for (int64_t i = 0; i < n; i++) {
		special k = kinds ? kinds[i % nk] : PLAIN;
		if (i == 0 && (k == REPEAT || k == NEGATE || k == REPEAT_SAME))
			k = PLAIN;
		ffu__fp_random(sf(), s + SB * i, &seed);
		unsigned char kk[SB];
		ffu__fp_random(sf(), kk, &seed);
		switch (k) {
		case ZERO_SCALAR:
			memset(s + SB * i, 0, SB);
			ffu__point_gen_mul(affine(), b + PB * i, sf(), kk);
			break;
		case INF_BASE:
			memset(b + PB * i, 0, PB);
			break;
		case REPEAT_SAME:
			memcpy(s + SB * i, s + SB * (i - 1), SB);
			/* fall through */
		case REPEAT:
			memcpy(b + PB * i, b + PB * (i - 1), PB);
			break;
		case NEGATE: /* (x, -y), with the same scalar: the pair cancels in every window */
			memcpy(s + SB * i, s + SB * (i - 1), SB);
			memcpy(b + PB * i, b + PB * (i - 1), CB);
			ffu__fp_neg(affine()->coef, b + PB * i + CB, b + PB * (i - 1) + CB, NULL);
			break;
		case PLAIN:
			ffu__point_gen_mul(affine(), b + PB * i, sf(), kk);
			break;
		}
	}
}

/* The interpreter's result, an affine point's bytes into want */
static void interp(const msm_case *c, unsigned char *want)
{
	ffu_value *outs = NULL;
	int n_outs = 0;
	ffu_error e = {0};
	cr_assert_eq(ffu__interp_run(c->m, c->in, 2, &outs, &n_outs, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(n_outs, 1);
	cr_assert_eq(outs[0].bytes, pb());
	memcpy(want, outs[0].data, pb());
	ffu__values_free(outs, n_outs);
}

/* A value as the baselines take it: its bytes (borrowed) and shape */
static ffu_bench_array as_array(const ffu_value *v)
{
	ffu_bench_array a = {.data = v->data, .bytes = v->bytes, .count = ffu__shape_count(&v->shape),
			     .rank = v->shape.rank};
	for (int d = 0; d < v->shape.rank; d++)
		a.dims[d] = v->shape.dims[d];
	return a;
}

/* The baseline at window width w (0: its own choice) equals want */
static void expect_baseline(const msm_case *c, const unsigned char *want, int w, const char *what)
{
	ffu_value out = {0};
	ffu_error e = {0};
	cr_assert_eq(ffu__value_alloc(&out, &c->m->entry->root->shape, &e), FFU_STATUS_OK);
	memset(out.data, 0xa5, out.bytes); /* no stale zeros pass for infinity */
	ffu_bench_array in[2] = {as_array(&c->in[0]), as_array(&c->in[1])}, res = as_array(&out);
	double ms = ffu__bench_msm(curves[cur].workload, in, &res, w);
	cr_assert_geq(ms, 0, "%s: %s: no baseline, or it ran out of memory", curves[cur].workload, what);
	cr_expect_arr_eq(out.data, want, pb(), "%s: %s, window %d: the baseline differs from the interpreter",
			 curves[cur].workload, what, w);
	ffu__value_free(&out);
}

static void check(int64_t n, const special *kinds, int nk, uint64_t seed, const int *widths, int n_widths,
		  const char *what)
{
	msm_case c;
	unsigned char want[FFU_FIELD_MAX_BYTES];
	case_init(&c, n);
	fill(&c, n, kinds, nk, seed);
	interp(&c, want);
	expect_baseline(&c, want, 0, what);
	for (int i = 0; i < n_widths; i++)
		expect_baseline(&c, want, widths[i], what);
	case_free(&c);
}

static const special mixed[] = {PLAIN, ZERO_SCALAR, PLAIN, INF_BASE, PLAIN, REPEAT, PLAIN, NEGATE, REPEAT_SAME};
static const int widths[] = {1, 2, 3, 5, 8, 13, 16};

/* Each test runs for every curve of the table (the helpers read `cur`) */
#define EVERY_CURVE for (cur = 0; cur < sizeof curves / sizeof curves[0]; cur++)

Test(bench_msm, random_small_sizes)
{
	EVERY_CURVE {
		for (int64_t n = 1; n <= 3; n++)
			check(n, NULL, 0, 100 + (uint64_t)n, widths, 7, "random points");
		check(31, NULL, 0, 131, widths, 7, "31 random points");
	}
}

Test(bench_msm, special_cases_31_and_1000)
{
	EVERY_CURVE {
		check(31, mixed, 9, 7, widths, 7, "31 points with zero scalars, infinity, repeats, P + (-P)");
		static const int w1000[] = {4, 7, 10};
		check(1000, mixed, 9, 8, w1000, 3, "1000 points with zero scalars, infinity, repeats, P + (-P)");
		check(1000, NULL, 0, 9, NULL, 0, "1000 random points");
	}
}

Test(bench_msm, results_at_infinity)
{
	static const special zeros[] = {ZERO_SCALAR}, infs[] = {INF_BASE}, pairs[] = {PLAIN, NEGATE};
	EVERY_CURVE {
		check(1, zeros, 1, 1, widths, 7, "a zero scalar");
		check(31, zeros, 1, 2, NULL, 0, "31 zero scalars");
		check(3, infs, 1, 3, widths, 7, "3 infinity bases");
		check(2, pairs, 2, 4, widths, 7, "P and -P, one scalar");
		check(30, pairs, 2, 5, NULL, 0, "15 pairs P, -P");
		/* the interpreter's infinity is all zeros, and so is the baseline's */
		msm_case c;
		unsigned char want[FFU_FIELD_MAX_BYTES], zero[FFU_FIELD_MAX_BYTES] = {0};
		case_init(&c, 2);
		fill(&c, 2, pairs, 2, 6);
		interp(&c, want);
		cr_assert_arr_eq(want, zero, pb(), "%s: the interpreter's affine infinity is not (0, 0)", curves[cur].curve);
		case_free(&c);
	}
}

/* An oracle that is not an msm: s_1 G + s_2 G + s_3 G = (s_1 + s_2 + s_3) G */
Test(bench_msm, multiples_of_the_generator)
{
	EVERY_CURVE {
		msm_case c;
		case_init(&c, 3);
		unsigned char one[SB] = {1}, sum[SB] = {0}, want[FFU_FIELD_MAX_BYTES];
		uint64_t seed = 42;
		for (int i = 0; i < 3; i++) {
			ffu__fp_random(sf(), c.in[0].data + SB * i, &seed);
			ffu__fp_add(sf(), sum, sum, c.in[0].data + SB * i);
			ffu__point_gen_mul(affine(), c.in[1].data + pb() * i, sf(), one);
		}
		ffu__point_gen_mul(affine(), want, sf(), sum);
		expect_baseline(&c, want, 0, "3 multiples of G");
		expect_baseline(&c, want, 1, "3 multiples of G");
		case_free(&c);
	}
}

/* The workloads have no baseline beyond the table's, and the table's are what bench runs */
Test(bench_msm, every_curve_has_its_baseline)
{
	EVERY_CURVE cr_expect(ffu__bench_has_baseline(curves[cur].workload), "%s", curves[cur].workload);
	cr_expect_lt(ffu__bench_msm("msm_nothing", NULL, NULL, 0), 0);
}
