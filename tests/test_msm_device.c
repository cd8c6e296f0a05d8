/*
 * tests/test_msm_device.c: msm on PoCL and Rusticl (codegen/msm.c, msm_one_add.c), against
 * the reference interpreter (fields/point.c's bucket method in jacobian coordinates, itself
 * checked against an independent Python group law by tests/points_oracle.py). A device result is
 * the group element the interpreter computes (ffu__point_eq: a jacobian or xyzz result has
 * many representatives), and since the device normalises its point, the same bytes fused
 * and unfused and for every window width. Inputs: n = 1, 2, 3, 17, 31, 1000, 4097, with zero
 * scalars, bases at infinity, repeated bases, P next to -P under the same scalar, all
 * scalars zero (the empty sum), scalars p - 1 (every window's digit negative), every base
 * kind (affine, jacobian, xyzz) and form (canonical, _mont), every result kind, and a
 * convert of the msm's point done by its last step, over BN254 G1 and BLS12-381 G1; scalars
 * computed by producers fused into the msm; then 2^13 + 1 points (2^16 + 1 in the full
 * mode) on PoCL. BN254 G2 and BLS12-381 G2 (Fq2 coordinates) the same way: n = 1, 2, 3,
 * 31, 1000 with the same special values, in four combinations of types on PoCL, and three
 * cases on Rusticl. Rusticl runs the one-addition kernels (codegen/msm_one_add.c, its
 * target's choice), PoCL msm.c's and, forced, the one-addition ones with every variant.
 * A missing device fails, never skips.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hlo/hlo.h"
#include "interp/interp.h"
#include "passes/passes.h"
#include "point.h"
#include "runtime/exec.h"
#include "support.h"

typedef struct msm_case {
	int64_t n;
	const char *scalar, *base, *msm_type, *root_type; /* root_type NULL: the msm is the root */
	int window_bits;                                   /* 0: the plan's choice */
	unsigned special;                                  /* edits of the random inputs (below) */
	int rusticl;                                       /* also on Rusticl: ON_RUSTICL (see cases) */
} msm_case;

enum { POCL_ONLY = 0, ON_RUSTICL = 1 };

enum {
	ZEROS = 1,      /* some scalars 0, some bases at infinity */
	REPEATS = 2,    /* bases repeated; P and -P under one scalar */
	ALL_ZERO = 4,   /* every scalar 0 */
	MINUS_ONE = 8,  /* every scalar p - 1 */
};

/*
 * One program per combination of types (the sizes and window widths are launch arguments:
 * codegen/msm.c), and Rusticl builds each cold (Mesa inlines every call; msm.c's kernels of
 * BN254 G1 took 80 s of CPU, the one-addition ones less: docs/architecture.md), so Rusticl
 * runs three BN254 G1 combinations, which between them hold every step's variants: both
 * scalar forms, the bases' three kinds and two forms (an affine _mont base is read as
 * stored, the others converted once), and results stored canonical and _mont, through a
 * convert and without; one BLS12-381 G1 combination and one of each G2 curve. PoCL runs all
 * of them, and BN254 G2 in three more. The BLS12-381 rows run in the deep run (deep_case).
 */
static const msm_case cases[] = {
	/* A: ZKX's own test program (17 points into jacobian) and its relatives */
	{1, "bn254_sf", "bn254_g1_affine", "bn254_g1_jacobian", NULL, 0, 0, ON_RUSTICL},
	{17, "bn254_sf", "bn254_g1_affine", "bn254_g1_jacobian", NULL, 0, 0, ON_RUSTICL},
	{31, "bn254_sf", "bn254_g1_affine", "bn254_g1_jacobian", NULL, 0, ALL_ZERO, ON_RUSTICL},
	{31, "bn254_sf", "bn254_g1_affine", "bn254_g1_jacobian", NULL, 1, MINUS_ONE, ON_RUSTICL},
	{4097, "bn254_sf", "bn254_g1_affine", "bn254_g1_jacobian", NULL, 16, ZEROS, ON_RUSTICL},
	/* B: Montgomery forms throughout */
	{2, "bn254_sf_mont", "bn254_g1_affine_mont", "bn254_g1_xyzz_mont", "bn254_g1_affine_mont", 0, REPEATS, ON_RUSTICL},
	{3, "bn254_sf_mont", "bn254_g1_affine_mont", "bn254_g1_xyzz_mont", "bn254_g1_affine_mont", 0, ZEROS, ON_RUSTICL},
	{1000, "bn254_sf_mont", "bn254_g1_affine_mont", "bn254_g1_xyzz_mont", "bn254_g1_affine_mont", 7, REPEATS, ON_RUSTICL},
	/* C: jacobian bases */
	{31, "bn254_sf", "bn254_g1_jacobian", "bn254_g1_xyzz", "bn254_g1_affine", 3, ZEROS, ON_RUSTICL},
	{1000, "bn254_sf", "bn254_g1_jacobian", "bn254_g1_xyzz", "bn254_g1_affine", 0, ZEROS | REPEATS, ON_RUSTICL},
	/* D: BLS12-381 G1 (381-bit coordinates, 6 x 64 / 12 x 32-bit limbs) */
	{3, "bls12_381_sf", "bls12_381_g1_affine", "bls12_381_g1_xyzz", "bls12_381_g1_affine", 0, ZEROS, ON_RUSTICL},
	{31, "bls12_381_sf", "bls12_381_g1_affine", "bls12_381_g1_xyzz", "bls12_381_g1_affine", 2, MINUS_ONE, ON_RUSTICL},
	{1000, "bls12_381_sf", "bls12_381_g1_affine", "bls12_381_g1_xyzz", "bls12_381_g1_affine", 0, ZEROS | REPEATS,
	 ON_RUSTICL},
	/* PoCL only */
	{31, "bls12_381_sf_mont", "bls12_381_g1_jacobian_mont", "bls12_381_g1_jacobian_mont", NULL, 0, ZEROS | REPEATS,
	 POCL_ONLY},
	{31, "bn254_sf", "bn254_g1_affine", "bn254_g1_xyzz", "bn254_g1_affine", 0, ZEROS | REPEATS, POCL_ONLY},
	{31, "bn254_sf_mont", "bn254_g1_xyzz_mont", "bn254_g1_xyzz_mont", "bn254_g1_jacobian", 0, ZEROS, POCL_ONLY},
	{31, "bn254_sf", "bn254_g1_affine", "bn254_g1_affine", NULL, 0, ZEROS, POCL_ONLY},
	{31, "bn254_sf", "bn254_g1_affine", "bn254_g1_jacobian", "bn254_g1_xyzz_mont", 2, MINUS_ONE, POCL_ONLY},
	/* E: BN254 G2, coordinates in Fq2 (cl/point.cl over cl/ext2.cl): the bench workload's
	   program (msm_bn254_g2.hlo). On Rusticl the one-addition kernels (codegen/msm_one_add.c,
	   the target's choice there; msm.c's nine kernels never finished building there within
	   20 minutes of CPU): two cases, as each case's kernels are built anew there (Rusticl
	   compiles per cl_kernel), 45 s each cold; pocl_one_add runs every case of them. */
	{1, "bn254_sf", "bn254_g2_affine", "bn254_g2_xyzz", "bn254_g2_affine", 0, 0, POCL_ONLY},
	{2, "bn254_sf", "bn254_g2_affine", "bn254_g2_xyzz", "bn254_g2_affine", 0, REPEATS, POCL_ONLY},
	{3, "bn254_sf", "bn254_g2_affine", "bn254_g2_xyzz", "bn254_g2_affine", 0, ZEROS, POCL_ONLY},
	{31, "bn254_sf", "bn254_g2_affine", "bn254_g2_xyzz", "bn254_g2_affine", 3, ZEROS | REPEATS, ON_RUSTICL},
	{31, "bn254_sf", "bn254_g2_affine", "bn254_g2_xyzz", "bn254_g2_affine", 0, ALL_ZERO, POCL_ONLY},
	{1000, "bn254_sf", "bn254_g2_affine", "bn254_g2_xyzz", "bn254_g2_affine", 7, ZEROS | REPEATS, ON_RUSTICL},
	/* G2, PoCL only: Montgomery forms, jacobian and xyzz bases, every digit negative */
	{31, "bn254_sf_mont", "bn254_g2_jacobian_mont", "bn254_g2_xyzz_mont", "bn254_g2_jacobian", 0, ZEROS | REPEATS,
	 POCL_ONLY},
	{1000, "bn254_sf_mont", "bn254_g2_jacobian_mont", "bn254_g2_xyzz_mont", "bn254_g2_jacobian", 0, ZEROS, POCL_ONLY},
	{31, "bn254_sf", "bn254_g2_xyzz", "bn254_g2_xyzz", NULL, 5, MINUS_ONE, POCL_ONLY},
	/* F: BLS12-381 G2, coordinates in its Fq2 (381-bit, cl/ext2.cl over cl/montn*.cl): one
	   program (about 2.5 minutes of PoCL's CPU cold), one case on Rusticl (90 s cold) */
	{3, "bls12_381_sf", "bls12_381_g2_affine", "bls12_381_g2_xyzz", "bls12_381_g2_affine", 0, ZEROS, POCL_ONLY},
	{31, "bls12_381_sf", "bls12_381_g2_affine", "bls12_381_g2_xyzz", "bls12_381_g2_affine", 3, ZEROS | REPEATS,
	 ON_RUSTICL},
	{1000, "bls12_381_sf", "bls12_381_g2_affine", "bls12_381_g2_xyzz", "bls12_381_g2_affine", 0, ZEROS | REPEATS,
	 POCL_ONLY},
};

static char *program(const msm_case *c, int64_t n, int window_bits)
{
	char wb[32] = "", *text = malloc(1024);
	cr_assert(text);
	if (window_bits)
		snprintf(wb, sizeof wb, ", window_bits=%d", window_bits);
	if (c->root_type)
		snprintf(text, 1024,
			 "HloModule msm\nENTRY %%main {\n  %%s = %s[%lld] parameter(0)\n  %%b = %s[%lld] parameter(1)\n"
			 "  %%r = %s[] msm(%%s, %%b)%s\n  ROOT %%c = %s[] convert(%%r)\n}\n",
			 c->scalar, (long long)n, c->base, (long long)n, c->msm_type, wb, c->root_type);
	else
		snprintf(text, 1024,
			 "HloModule msm\nENTRY %%main {\n  %%s = %s[%lld] parameter(0)\n  %%b = %s[%lld] parameter(1)\n"
			 "  ROOT %%r = %s[] msm(%%s, %%b)%s\n}\n",
			 c->scalar, (long long)n, c->base, (long long)n, c->msm_type, wb);
	return text;
}

/* Values for m's parameters, the first n_random of them random (points: k G). */
static void alloc_inputs(const ffu_module *m, ffu_value *in, int n_random, uint64_t seed)
{
	ffu_error e = {0};
	for (int i = 0; i < m->entry->n_params; i++) {
		cr_assert_eq(ffu__value_alloc(&in[i], &m->entry->params[i]->shape, &e), FFU_STATUS_OK, "%s", e.message);
		if (i < n_random)
			ffu__value_random(&in[i], &seed);
	}
}

/* Random scalars and bases, then the case's special values. */
static void make_inputs(const ffu_module *m, ffu_value in[2], unsigned special, uint64_t seed)
{
	alloc_inputs(m, in, 2, seed);
	const ffu_field *fs = ffu__shape_field(&in[0].shape), *fb = ffu__shape_field(&in[1].shape);
	size_t ss = fs->storage_bytes, bs = fb->storage_bytes;
	int64_t n = in[0].shape.dims[0];
	unsigned char zero[FFU_FIELD_MAX_BYTES] = {0}, inf[FFU_FIELD_MAX_BYTES], pm1[FFU_FIELD_MAX_BYTES];
	const ffu_field *aff = ffu__point_type_of(fb->curve, FFU_POINT_AFFINE, ffu__field_is_mont(fb->coef));
	cr_assert(ffu__fp_convert(fb, inf, aff, zero)); /* infinity in the bases' encoding */
	ffu__fp_set_u64(fs, pm1, 1);
	ffu__fp_neg(fs, pm1, pm1, NULL);
	for (int64_t i = 0; i < n; i++) {
		unsigned char *s = in[0].data + i * ss, *b = in[1].data + i * bs;
		if ((special & ZEROS) && i % 5 == 1)
			memset(s, 0, ss);
		if ((special & ZEROS) && i % 7 == 2)
			memcpy(b, inf, bs);
		if ((special & REPEATS) && i % 4 == 3 && i >= 3)
			memcpy(b, in[1].data + (i - 3) * bs, bs); /* the same base again */
		if ((special & REPEATS) && i % 6 == 5) {        /* -P_(i-1) under s_(i-1) */
			ffu__fp_neg(fb, b, in[1].data + (i - 1) * bs, NULL);
			memcpy(s, in[0].data + (i - 1) * ss, ss);
		}
		if (special & ALL_ZERO)
			memset(s, 0, ss);
		if (special & MINUS_ONE)
			memcpy(s, pm1, ss);
	}
}

static ffu_module *parse(const char *text)
{
	ffu_error e = {0};
	ffu_module *m = NULL;
	cr_assert_eq(ffu__hlo_parse(&m, text, strlen(text), "msm", &e), FFU_STATUS_OK, "%s\n%s", e.message, text);
	return m;
}

/* The program on the device, fused or not; its one output value into *out. */
static void run_device_n(ffu_cl *cl, const char *text, const ffu_value *in, int n_in, bool fuse, int kernels,
			 ffu_value **out)
{
	int n_out = 0, k = ffu_test_run_device(cl, text, in, n_in, fuse, out, &n_out);
	cr_expect_eq(k, kernels, "%s %s: %d fusions", text, fuse ? "fused" : "unfused", k);
	cr_assert_eq(n_out, 1);
}

/* the msm and a convert of its point are one kernel plan, fused or not (passes/fusion.c) */
static void run_device(ffu_cl *cl, const char *text, const ffu_value in[2], bool fuse, ffu_value **out)
{
	run_device_n(cl, text, in, 2, fuse, 1, out);
}

/*
 * The case fused against the interpreter; with variants, also unfused and at another window
 * width, which must give the same bytes. The variants check the code generator, not the
 * driver, so Rusticl runs the fused program only: each variant is one more cold build,
 * about 80 s of CPU there, and with them test_msm_device took 25 minutes of a
 * clean-machine CI run.
 */
static void run_case(ffu_cl *cl, const msm_case *c, int64_t n, uint64_t seed, bool variants)
{
	ffu_error e = {0};
	char *text = program(c, n, c->window_bits);
	ffu_module *m0 = parse(text);
	ffu_value in[2], *ref = NULL, *dev = NULL, *other = NULL;
	int n_ref = 0;
	make_inputs(m0, in, c->special, seed);
	cr_assert_eq(ffu__interp_run(m0, in, 2, &ref, &n_ref, &e), FFU_STATUS_OK, "%s", e.message);
	ffu__module_free(m0);
	const ffu_field *f = ffu__shape_field(&ref[0].shape);
	char a[FFU_FIELD_TEXT_MAX], b[FFU_FIELD_TEXT_MAX];
	run_device(cl, text, in, true, &dev);
	cr_assert(ffu__point_eq(f, dev[0].data, f, ref[0].data), "%s on %s: device %s, interpreter %s", text,
		  cl->dev.name, ffu__fp_format(f, a, dev[0].data), ffu__fp_format(f, b, ref[0].data));
	if (c->special & ALL_ZERO)
		cr_assert(ffu__fp_is_zero(f, dev[0].data), "%s: the empty sum is not infinity", text);
	if (variants) {
		/* unfused, and with another window width: the same normalised bytes */
		run_device(cl, text, in, false, &other);
		cr_assert(memcmp(other[0].data, dev[0].data, f->storage_bytes) == 0, "%s on %s: unfused differs", text,
			  cl->dev.name);
		ffu__values_free(other, 1);
		char *text2 = program(c, n, c->window_bits == 5 ? 9 : 5);
		run_device(cl, text2, in, true, &other);
		cr_assert(memcmp(other[0].data, dev[0].data, f->storage_bytes) == 0,
			  "%s on %s: window width 5 or 9 gives other bytes: %s vs %s", text, cl->dev.name,
			  ffu__fp_format(f, a, other[0].data), ffu__fp_format(f, b, dev[0].data));
		ffu__values_free(other, 1);
		free(text2);
	}
	ffu__values_free(dev, 1);
	ffu__values_free(ref, n_ref);
	ffu__value_free(&in[0]);
	ffu__value_free(&in[1]);
	free(text);
	ffu_error_clear(&e);
}

/*
 * The default run (README's test command) takes the BN254 rows, G1 and G2: every step and
 * variant of both kernel sets over a prime field and over its Fq2. The BLS12-381 rows are
 * the same kernels over wider fields and cost the most to build cold (BLS12-381 G2 about
 * 2.5 minutes of PoCL's CPU): they run in the deep run's deep_* tests (tests/meson.build).
 */
/* PoCL or Rusticl: the devices whose target choices these tests pin down */
static bool cpu_driver(const ffu_cl *cl)
{
	return cl->dev.vendor_class == FFU_VENDOR_POCL || cl->dev.vendor_class == FFU_VENDOR_RUSTICL;
}

static bool deep_case(const msm_case *c)
{
	return strncmp(c->scalar, "bls12_381", 9) == 0;
}

static void devices_run(const char *device, bool rusticl, bool deep)
{
	ffu_cl cl = {0};
	ffu_test_open_device(&cl, device);
	/* what each device is here to test: PoCL msm.c's kernels, Rusticl the one-addition ones;
	   another device (FIELDFUSE_TEST_DEVICE, a GPU in both slots) what its target chose */
	if (cpu_driver(&cl))
		cr_assert_eq(cl.target.msm_one_add, rusticl, "%s: the target's msm kernels changed", cl.dev.name);
	int runs = 0;
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
		if ((!rusticl || cases[k].rusticl == ON_RUSTICL) && deep_case(&cases[k]) == deep) {
			run_case(&cl, &cases[k], cases[k].n, 70 + k, !rusticl);
			runs++;
		}
	cr_assert_geq(runs, 2);
	ffu__cl_close(&cl);
}

Test(msm_device, pocl, .timeout = 1200)
{
	devices_run(ffu_test_devices[0], false, false);
}

Test(msm_device, deep_pocl, .timeout = 1200)
{
	devices_run(ffu_test_devices[0], false, true);
}

/*
 * The one-addition kernels (codegen/msm_one_add.c) on PoCL, every case with the variants
 * Rusticl leaves out (unfused, another window width: the same bytes); window widths 1, 2,
 * 3, 5, 7, 9 and 16 among them, so the phases run with one segment per window and with
 * several.
 */
static void one_add_run(bool deep)
{
	ffu_cl cl = {0};
	ffu_test_open_device(&cl, ffu_test_devices[0]);
	cl.target.msm_one_add = true;
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
		if (deep_case(&cases[k]) == deep)
			run_case(&cl, &cases[k], cases[k].n, 270 + k, true);
	ffu__cl_close(&cl);
}

Test(msm_device, pocl_one_add, .timeout = 1800)
{
	one_add_run(false);
}

Test(msm_device, deep_pocl_one_add, .timeout = 1800)
{
	one_add_run(true);
}

Test(msm_device, rusticl, .timeout = 2400)
{
	devices_run(ffu_test_devices[1], true, false);
}

Test(msm_device, deep_rusticl, .timeout = 2400)
{
	devices_run(ffu_test_devices[1], true, true);
}

/*
 * The bucket step's other variant (codegen/msm.c), on group B's cases (Montgomery forms;
 * repeated bases, so doublings and P + (-P) inside a bucket): xyzz buckets on PoCL, whose
 * target takes batch-affine ones, and batch-affine ones on Rusticl, whose target leaves them
 * out (llvmpipe's loop limit, device/target.c), 256 buckets a work-item: at these sizes
 * within that limit.
 */
static void other_bucket_step(const char *device, bool rusticl)
{
	ffu_cl cl = {0};
	ffu_test_open_device(&cl, device);
	if (cpu_driver(&cl))
		cr_assert_eq(cl.target.msm_affine_buckets, rusticl ? 0 : 1024, "%s: the target's bucket step changed",
			     cl.dev.name);
	cl.target.msm_affine_buckets = rusticl ? 256 : 0;
	cl.target.msm_one_add = false; /* msm.c's bucket steps (Rusticl: its one program of them here) */
	int runs = 0;
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
		if (strcmp(cases[k].msm_type, "bn254_g1_xyzz_mont") == 0 && strcmp(cases[k].base, "bn254_g1_affine_mont") == 0) {
			run_case(&cl, &cases[k], cases[k].n, 170 + k, !rusticl);
			runs++;
		}
	cr_assert_eq(runs, 3);
	ffu__cl_close(&cl);
}

Test(msm_device, pocl_xyzz_buckets, .timeout = 600)
{
	other_bucket_step(ffu_test_devices[0], false);
}

Test(msm_device, rusticl_affine_buckets, .timeout = 1200)
{
	other_bucket_step(ffu_test_devices[1], true);
}

/*
 * llvmpipe's loop limit (device/target.c): an msm of more points than a loop may run there
 * is refused before anything is built, with ELIMIT naming the limit. Another device in the
 * slot (a GPU) has no such limit.
 */
Test(msm_device, rusticl_loop_limit, .timeout = 120)
{
	ffu_cl cl = {0};
	ffu_test_open_device(&cl, ffu_test_devices[1]);
	if (cl.dev.vendor_class != FFU_VENDOR_RUSTICL) {
		cr_assert_eq(cl.target.loop_limit, 0u, "%s: a loop limit in the target", cl.dev.name);
		ffu__cl_close(&cl);
		return;
	}
	cr_assert_eq(cl.target.loop_limit, 65535u, "%s: llvmpipe's loop limit not in the target", cl.dev.name);
	const msm_case c = {65536, "bn254_sf", "bn254_g1_affine", "bn254_g1_xyzz", "bn254_g1_affine", 0, 0};
	char *text = program(&c, c.n, 0);
	ffu_module *m = parse(text);
	ffu_error e = {0};
	ffu_pass_opts po = {.fuse = true};
	cr_assert_eq(ffu__passes_run(m, &po, &e), FFU_STATUS_OK, "%s", e.message);
	ffu_exec *x = NULL;
	cr_assert_eq(ffu__exec_create(&x, &cl, m, &e), FFU_STATUS_ELIMIT, "%s", e.message);
	cr_assert(strstr(e.message, "msm of 65536 points") && strstr(e.message, "65535 iterations"), "%s", e.message);
	cr_assert_null(x);
	ffu__module_free(m);
	free(text);
	ffu_error_clear(&e);
	ffu__cl_close(&cl);
}

/*
 * Scalars computed by element-wise producers fused into the msm's digits step (a random
 * linear combination a r + c; a Montgomery convert and a square): one kernel plan fused,
 * the producers' own kernels unfused (on PoCL; Rusticl fused only, as run_case).
 */
static const struct {
	const char *text;
	int fused, unfused;
	bool rusticl;
} producer_cases[] = {
	{"HloModule f\nENTRY %main {\n  %a = bn254_sf[1000] parameter(0)\n  %r = bn254_sf[] parameter(1)\n"
	 "  %c = bn254_sf[1000] parameter(2)\n  %b = bn254_g1_affine[1000] parameter(3)\n"
	 "  %rb = bn254_sf[1000] broadcast(%r), dimensions={}\n  %m = bn254_sf[1000] multiply(%a, %rb)\n"
	 "  %s = bn254_sf[1000] add(%m, %c)\n  %x = bn254_g1_xyzz[] msm(%s, %b)\n"
	 "  ROOT %y = bn254_g1_affine[] convert(%x)\n}\n",
	 1, 4, true},
	{"HloModule g\nENTRY %main {\n  %a = bn254_sf[31] parameter(0)\n  %b = bn254_g1_affine_mont[31] parameter(1)\n"
	 "  %s = bn254_sf_mont[31] convert(%a)\n  %t = bn254_sf_mont[31] multiply(%s, %s)\n"
	 "  ROOT %x = bn254_g1_jacobian_mont[] msm(%t, %b)\n}\n",
	 1, 3, false},
};

static void producers_run(const char *device, bool rusticl)
{
	ffu_cl cl = {0};
	ffu_error e = {0};
	ffu_test_open_device(&cl, device);
	for (size_t k = 0; k < sizeof producer_cases / sizeof producer_cases[0]; k++) {
		if (rusticl && !producer_cases[k].rusticl)
			continue;
		const char *text = producer_cases[k].text;
		ffu_module *m = parse(text);
		int n_in = m->entry->n_params, n_ref = 0;
		ffu_value in[4], *ref = NULL, *dev = NULL;
		alloc_inputs(m, in, n_in, 500 + k);
		cr_assert_eq(ffu__interp_run(m, in, n_in, &ref, &n_ref, &e), FFU_STATUS_OK, "%s", e.message);
		const ffu_field *f = ffu__shape_field(&ref[0].shape);
		for (int fuse = rusticl; fuse < 2; fuse++) {
			run_device_n(&cl, text, in, n_in, fuse, fuse ? producer_cases[k].fused : producer_cases[k].unfused, &dev);
			cr_assert(ffu__point_eq(f, dev[0].data, f, ref[0].data), "%s on %s (%s): not the interpreter's point",
				  text, cl.dev.name, fuse ? "fused" : "unfused");
			ffu__values_free(dev, 1);
		}
		ffu__values_free(ref, n_ref);
		for (int i = 0; i < n_in; i++)
			ffu__value_free(&in[i]);
		ffu__module_free(m);
	}
	ffu__cl_close(&cl);
	ffu_error_clear(&e);
}

Test(msm_device, producers_pocl, .timeout = 600)
{
	producers_run(ffu_test_devices[0], false);
}

Test(msm_device, producers_rusticl, .timeout = 1200)
{
	producers_run(ffu_test_devices[1], true);
}

/* 2^16 + 1 points in the full mode (the size), 2^13 + 1 in the default one: jacobian
   bases (i + 1) G, made by additions (random multiples of G cost a minute of host time at
   this size), random scalars with zeros. */
Test(msm_device, pocl_large, .timeout = 1200)
{
	ffu_cl cl = {0};
	ffu_test_open_device(&cl, ffu_test_devices[0]);
	const msm_case c = {ffu_test_full() ? 65537 : 8193, "bn254_sf", "bn254_g1_jacobian", "bn254_g1_xyzz",
			    "bn254_g1_affine", 0, 0};
	char *text = program(&c, c.n, 0);
	ffu_module *m = parse(text);
	ffu_value in[2], *ref = NULL, *dev = NULL;
	int n_ref = 0;
	ffu_error e = {0};
	alloc_inputs(m, in, 1, 99); /* the scalars; the bases below */
	const ffu_field *jac = ffu__shape_field(&in[1].shape);
	const ffu_field *aff = ffu__point_type_of(jac->curve, FFU_POINT_AFFINE, false);
	size_t bs = jac->storage_bytes;
	cr_assert(ffu__fp_convert(jac, in[1].data, aff, jac->curve->gen[0]));
	for (int64_t i = 1; i < c.n; i++)
		ffu__point_add(jac, in[1].data + i * bs, jac, in[1].data + (i - 1) * bs, aff, jac->curve->gen[0]);
	for (int64_t i = 0; i < c.n; i += 97)
		memset(in[0].data + i * 32, 0, 32);
	cr_assert_eq(ffu__interp_run(m, in, 2, &ref, &n_ref, &e), FFU_STATUS_OK, "%s", e.message);
	run_device(&cl, text, in, true, &dev);
	cr_assert(memcmp(dev[0].data, ref[0].data, ref[0].bytes) == 0, "2^16 + 1 points: the affine results differ");
	ffu__values_free(dev, 1);
	ffu__values_free(ref, n_ref);
	ffu__value_free(&in[0]);
	ffu__value_free(&in[1]);
	ffu__module_free(m);
	free(text);
	ffu__cl_close(&cl);
}
