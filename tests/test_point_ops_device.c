/*
 * tests/test_point_ops_device.c: the element-wise ops on elliptic-curve points in loop
 * kernels (codegen/kgen_point.c over cl/point.cl) on PoCL and Rusticl, against the
 * reference interpreter (fields/point.c: jacobian formulas and right-to-left
 * double-and-add, where the device has xyzz formulas and left-to-right; the interpreter is
 * itself checked against a Python oracle by tests/points_oracle.py). Outputs are compared
 * element by element as group elements (ffu__fp_eq: a jacobian or xyzz result has many
 * representatives) and, for pred outputs, as bytes.
 *
 * Programs: every op and result kind ZKX defines in one fused kernel, with the special
 * cases made inside it (P + P, P + (-P), infinity on either side, scalars 0, 1 and r - 1),
 * per curve of fields/curves.def and coordinate form; the layout ops on points; an msm
 * between element-wise point kernels (bases computed, its point added to and converted);
 * and reduces of points (codegen/reduce.c with <curve>_xyzz accumulators).
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
#include "util/strbuf.h"

/*
 * Every point op in one program: A, J, X the curve's affine, jacobian and xyzz types in one
 * coordinate form, J2, X2 the other form's, S the scalars, N the length. %pm is P + (-P),
 * infinity, so %ip and %pi add infinity on either side, %affi writes it as affine. An
 * operand read from an affine type takes the mixed formula (kgen_point.c: z1) on either
 * side of add and subtract (%pq, %ja, %xb, %aj) and in multiply (%sa, %sg); the others
 * the general one (%jj, %xx, %sx).
 */
static const char ops_program[] =
	"HloModule point_ops\n"
	"ENTRY %main {\n"
	"  %a = A[N] parameter(0)\n  %b = A[N] parameter(1)\n  %j = J[N] parameter(2)\n"
	"  %x = X[N] parameter(3)\n  %s = S[N] parameter(4)\n  %p = pred[N] parameter(5)\n"
	"  %g = A[] constant(\"5\")\n  %gb = A[N] broadcast(%g), dimensions={}\n"
	"  %na = A[N] negate(%a)\n"
	"  %pq = J[N] add(%a, %b)\n  %pp = X[N] add(%a, %a)\n  %pm = J[N] add(%a, %na)\n"
	"  %ip = J[N] add(%pm, %j)\n  %pi = J[N] add(%j, %pm)\n  %ja = J[N] add(%j, %a)\n"
	"  %jj = J[N] add(%j, %j)\n  %jm = J[N] subtract(%j, %j)\n  %aj = J[N] subtract(%a, %j)\n"
	"  %xb = X[N] subtract(%x, %b)\n  %xx = X[N] add(%x, %x)\n  %xr = X[N] subtract(%xx, %x)\n"
	"  %sa = J[N] multiply(%s, %a)\n  %sx = X[N] multiply(%s, %x)\n  %sg = J[N] multiply(%s, %gb)\n"
	"  %e1 = pred[N] compare(%xr, %x), direction=EQ\n  %e2 = pred[N] compare(%pq, %ja), direction=NE\n"
	"  %sel = J[N] select(%p, %ip, %sa)\n"
	"  %aff = A[N] convert(%pq)\n  %affi = A[N] convert(%pm)\n"
	"  %tw = J2[N] convert(%sel)\n  %xj = X2[N] convert(%jj)\n"
	"  ROOT %t = (J[N], X[N], J[N], J[N], J[N], J[N], J[N], J[N], X[N], X[N], J[N], X[N], J[N], pred[N], pred[N],"
	" J[N], A[N], A[N], J2[N], X2[N], A[N], J[N]) tuple(%pq, %pp, %pm, %ip, %pi, %ja, %jj, %jm, %xb, %xr, %sa, %sx,"
	" %sg, %e1, %e2, %sel, %aff, %affi, %tw, %xj, %na, %aj)\n"
	"}\n";

/* The G2 ops Rusticl builds in seconds, not minutes: no addition formula (one such kernel
   takes Rusticl 71-85 s) and no affine result (an Fq2 inversion): negate, compare EQ/NE
   (projective equality), select, converts between jacobian and xyzz and across forms, and
   the layout ops. 2 kernels, 30 s cold. */
static const char cheap_program[] =
	"HloModule point_cheap\n"
	"ENTRY %main {\n"
	"  %j = J[N] parameter(0)\n  %k = J[N] parameter(1)\n  %a = A[N] parameter(2)\n"
	"  %n = J[N] negate(%j)\n  %e = pred[N] compare(%j, %k), direction=EQ\n"
	"  %f = pred[N] compare(%n, %j), direction=NE\n  %s = J[N] select(%e, %n, %k)\n"
	"  %x = X[N] convert(%s)\n  %x2 = X2[N] convert(%x)\n  %aj = J[N] convert(%a)\n"
	"  %r = J[N] reverse(%aj), dimensions={0}\n  %r1 = J[1,N] reshape(%r)\n  %n1 = J[1,N] reshape(%n)\n"
	"  %c = J[2,N] concatenate(%r1, %n1), dimensions={0}\n"
	"  ROOT %t = (pred[N], pred[N], X2[N], J[2,N]) tuple(%e, %f, %x2, %c)\n"
	"}\n";

/* One general addition (one call site: Rusticl inlines every call, and each costs it
   minutes of build, test_msm_device says why) over its four cases, made by slices: elements
   0-7 P + Q, 8-15 P + P (its doubling branch), 16-23 P + (-P) (infinity out), 24-31
   P + infinity. */
static const char add_program[] =
	"HloModule point_add\n"
	"ENTRY %main {\n"
	"  %j = J[32] parameter(0)\n  %k = J[32] parameter(1)\n  %n = J[32] negate(%j)\n"
	"  %k1 = J[8] slice(%k), slice={[0:8]}\n  %j1 = J[8] slice(%j), slice={[8:16]}\n"
	"  %n1 = J[8] slice(%n), slice={[16:24]}\n  %z = J[] constant(\"0\")\n"
	"  %z1 = J[8] broadcast(%z), dimensions={}\n"
	"  %o = J[32] concatenate(%k1, %j1, %n1, %z1), dimensions={0}\n"
	"  ROOT %s = J[32] add(%j, %o)\n"
	"}\n";

/* The formulas add_program leaves out, for G2 on Rusticl, in one kernel (its test's time):
   a scalar multiple of an affine point (xyzz_mul_z1: the doubling and the mixed addition in
   its loop), that point subtracted (the mixed addition again, its operand negated), written
   as affine (an Fq2 inversion). make_inputs' scalars 0, 1 and r - 1 give -P (from
   infinity), infinity (P - P) and -2P (-P - P: the mixed addition's doubling). */
static const char mul_program[] =
	"HloModule point_mul\n"
	"ENTRY %main {\n"
	"  %a = A[N] parameter(0)\n  %s = S[N] parameter(1)\n"
	"  %m = J[N] multiply(%s, %a)\n  %d = J[N] subtract(%m, %a)\n"
	"  ROOT %o = A[N] convert(%d)\n"
	"}\n";

/* The layout ops on points, and a sum of what they read (J: jacobian, A: affine). */
static const char layout_program[] =
	"HloModule point_layout\n"
	"ENTRY %main {\n"
	"  %a = J[16] parameter(0)\n  %b = A[8] parameter(1)\n"
	"  %r = J[4,4] reshape(%a)\n  %rv = J[16] reverse(%a), dimensions={0}\n"
	"  %sl = J[8] slice(%a), slice={[1:16:2]}\n  %bc = J[8] convert(%b)\n"
	"  %cat = J[16] concatenate(%sl, %bc), dimensions={0}\n  %sum = J[16] add(%cat, %rv)\n"
	"  %bb = A[2,8] broadcast(%b), dimensions={1}\n"
	"  ROOT %t = (J[16], J[4,4], A[2,8]) tuple(%sum, %r, %bb)\n"
	"}\n";

/* Sums of points: a fused reduction of scalar multiples (the naive msm) and a reduce of
   rows from a point constant, both with their partials and a tree or serial fold. */
static const char reduce_program[] =
	"HloModule point_reduce\n"
	"%add (x: J[], y: J[]) -> J[] {\n  %x = J[] parameter(0)\n  %y = J[] parameter(1)\n"
	"  ROOT %s = J[] add(%x, %y)\n}\n"
	"%addx (x: X[], y: X[]) -> X[] {\n  %x = X[] parameter(0)\n  %y = X[] parameter(1)\n"
	"  ROOT %s = X[] add(%x, %y)\n}\n"
	"ENTRY %main {\n"
	"  %p = A[N] parameter(0)\n  %s = S[N] parameter(1)\n  %q = X[4,N] parameter(2)\n"
	"  %m = J[N] multiply(%s, %p)\n  %z = J[] constant(\"0\")\n"
	"  %r = J[] reduce(%m, %z), dimensions={0}, to_apply=%add\n"
	"  %g = X[] constant(\"7\")\n  %r2 = X[4] reduce(%q, %g), dimensions={1}, to_apply=%addx\n"
	"  ROOT %t = (J[], X[4]) tuple(%r, %r2)\n"
	"}\n";

/* An msm between element-wise point kernels: its bases computed, its point added to. */
static const char msm_program[] =
	"HloModule point_msm\n"
	"ENTRY %main {\n"
	"  %a = A[N] parameter(0)\n  %b = A[N] parameter(1)\n  %s = S[N] parameter(2)\n  %q = J[] parameter(3)\n"
	"  %ab = J[N] subtract(%a, %b)\n  %r = J[] msm(%s, %ab)\n  %r2 = J[] add(%r, %q)\n"
	"  %ra = A[] convert(%r2)\n"
	"  ROOT %t = (A[], J[], J[N]) tuple(%ra, %r, %ab)\n"
	"}\n";

typedef struct curve_case {
	const char *curve, *scalar;
	bool mont;
	int n;
} curve_case;

/* The template with its type names and length filled in. */
static char *program(const char *tmpl, const curve_case *c)
{
	const char *m = c->mont ? "_mont" : "", *m2 = c->mont ? "" : "_mont";
	char a[64], j[64], x[64], j2[64], x2[64], s[64], n[16];
	snprintf(a, sizeof a, "%s_affine%s", c->curve, m);
	snprintf(j, sizeof j, "%s_jacobian%s", c->curve, m);
	snprintf(x, sizeof x, "%s_xyzz%s", c->curve, m);
	snprintf(j2, sizeof j2, "%s_jacobian%s", c->curve, m2);
	snprintf(x2, sizeof x2, "%s_xyzz%s", c->curve, m2);
	snprintf(s, sizeof s, "%s%s", c->scalar, m);
	snprintf(n, sizeof n, "%d", c->n);
	ffu_strbuf sb = {0};
	for (const char *p = tmpl; *p; p++) {
		/* the placeholders: J2 X2 before J X; A J X S N only as whole type names */
		const char *rep = NULL;
		int len = 1;
		if ((p[0] == 'J' || p[0] == 'X') && p[1] == '2') {
			rep = p[0] == 'J' ? j2 : x2;
			len = 2;
		} else if ((p[0] == 'A' || p[0] == 'J' || p[0] == 'X' || p[0] == 'S') && (p[1] == '[' || p[1] == ','))
			rep = p[0] == 'A' ? a : p[0] == 'J' ? j : p[0] == 'X' ? x : s;
		else if (p[0] == 'N' && (p[-1] == '[' || p[-1] == ','))
			rep = n;
		if (rep) {
			ffu__sb_append(&sb, rep);
			p += len - 1;
		} else {
			ffu__sb_printf(&sb, "%c", *p);
		}
	}
	cr_assert(!sb.oom);
	return sb.data;
}

static ffu_module *parse(const char *text)
{
	ffu_module *m = NULL;
	ffu_error e = {0};
	cr_assert_eq(ffu__hlo_parse(&m, text, strlen(text), "point_ops.hlo", &e), FFU_STATUS_OK, "%s\n%s", e.message,
		     text);
	ffu_error_clear(&e);
	return m;
}

/* Random inputs; a scalar parameter's first three are 0, 1 and r - 1. */
static void make_inputs(const ffu_module *m, ffu_value *in, uint64_t seed)
{
	ffu_error e = {0};
	for (int i = 0; i < m->entry->n_params; i++) {
		cr_assert_eq(ffu__value_alloc(&in[i], &m->entry->params[i]->shape, &e), FFU_STATUS_OK, "%s", e.message);
		ffu__value_random(&in[i], &seed);
		const ffu_field *f = ffu__shape_field(&in[i].shape);
		if (f->kind == FFU_ELEM_POINT || f->kind == FFU_ELEM_PRED || ffu__shape_count(&in[i].shape) < 3)
			continue;
		size_t eb = f->storage_bytes;
		ffu__fp_set_u64(f, in[i].data, 0);
		ffu__fp_set_u64(f, in[i].data + eb, 1);
		ffu__fp_set_u64(f, in[i].data + 2 * eb, 1);
		ffu__fp_neg(f, in[i].data + 2 * eb, in[i].data + 2 * eb, NULL);
	}
}

/* Runs text on the device and in the interpreter, compares every output; its kernel count. */
static int check(ffu_cl *cl, const char *text, bool fuse, uint64_t seed)
{
	ffu_error e = {0};
	ffu_module *m = parse(text);
	const int n_in = m->entry->n_params;
	ffu_value in[8], *ref = NULL, *dev = NULL;
	int n_ref = 0, n_dev = 0;
	cr_assert(n_in <= 8);
	make_inputs(m, in, seed);
	cr_assert_eq(ffu__interp_run(m, in, n_in, &ref, &n_ref, &e), FFU_STATUS_OK, "%s", e.message);
	ffu__module_free(m);
	int kernels = ffu_test_run_device(cl, text, in, n_in, fuse, &dev, &n_dev);
	cr_assert_eq(n_dev, n_ref);
	/* every output's first differing element, then one failure naming them all */
	ffu_strbuf bad = {0};
	for (int o = 0; o < n_ref; o++) {
		const ffu_field *f = ffu__shape_field(&ref[o].shape);
		const size_t eb = f->storage_bytes;
		const int64_t n = ffu__shape_count(&ref[o].shape);
		cr_assert(ffu__shape_eq(&dev[o].shape, &ref[o].shape), "output %d's shape", o);
		for (int64_t i = 0; i < n; i++) {
			const unsigned char *d = dev[o].data + (size_t)i * eb, *r = ref[o].data + (size_t)i * eb;
			char a[FFU_FIELD_TEXT_MAX], b[FFU_FIELD_TEXT_MAX];
			if (f->kind == FFU_ELEM_POINT ? ffu__fp_eq(f, d, r) : memcmp(d, r, eb) == 0)
				continue;
			ffu__sb_printf(&bad, "output %d (%s), element %lld: device %s, interpreter %s\n", o, f->name,
				       (long long)i, ffu__fp_format(f, a, d), ffu__fp_format(f, b, r));
			break;
		}
	}
	cr_assert(bad.len == 0, "%s on %s (%s):\n%s", text, cl->dev.name, fuse ? "fused" : "unfused", ffu__sb_cstr(&bad));
	ffu__sb_free(&bad);
	ffu__values_free(dev, n_dev);
	ffu__values_free(ref, n_ref);
	for (int i = 0; i < n_in; i++)
		ffu__value_free(&in[i]);
	ffu_error_clear(&e);
	return kernels;
}

/* The curves of fields/curves.def in a form each: G1 over both primes, G2 over BN254's Fq2.
   G2's program of every op runs on PoCL only: Rusticl inlines every Fq2 product into every
   call (test_msm_device says why), minutes per addition in a kernel, so there G2 runs
   cheap_program, add_program and mul_program, which between them reach every formula.
   BLS12-381 G2 is the same cl/point.cl text over another Fq2; its element-wise ops run on
   the device in tests/points_oracle.py (against the Python group law), its msm in
   test_msm_device: a program of every op here took PoCL about 2 minutes cold. */
static const curve_case curves[] = {
	{"bn254_g1", "bn254_sf", false, 32},
	{"bn254_g1", "bn254_sf", true, 32},
	{"bls12_381_g1", "bls12_381_sf", false, 16},
	{"bn254_g2", "bn254_sf", true, 8},
};

/* A chain of point ops is one kernel, as a chain of field ops is (passes/fusion.c); for a
   GPU's target and a CPU's (no wide variant: codegen.c plan_wide). */
Test(point_ops_device, chain_is_one_kernel)
{
	static const char chain[] = "HloModule chain\nENTRY %main {\n"
				    "  %a = A[N] parameter(0)\n  %b = A[N] parameter(1)\n  %s = S[N] parameter(2)\n"
				    "  %c = J[N] add(%a, %b)\n  %d = J[N] multiply(%s, %c)\n  %e = J[N] negate(%d)\n"
				    "  ROOT %f = A[N] convert(%e)\n}\n";
	char *text = program(chain, &curves[0]);
	for (int lanes = 1; lanes <= 4; lanes += 3) {
		char *cl = ffu_test_generate(text, lanes, NULL);
		int kernels = 0;
		for (const char *p = cl; (p = strstr(p, "__kernel void")); p++)
			kernels++;
		cr_assert_eq(kernels, 1, "lanes %d: %d kernels\n%s", lanes, kernels, cl);
		cr_assert(strstr(cl, "bn254_g1_xyzz_mul(") && strstr(cl, "bn254_g1_out_aff(out0, i, "), "%s", cl);
		free(cl);
	}
	free(text);
}

/* Template tmpl for curve c on device, checked (fused or not, inputs from seed): its kernels. */
static int run_on(const char *device, const char *tmpl, const curve_case *c, bool fuse, uint64_t seed)
{
	ffu_cl cl = {0};
	ffu_test_open_device(&cl, device);
	char *text = program(tmpl, c);
	int kernels = check(&cl, text, fuse, seed);
	free(text);
	ffu__cl_close(&cl);
	return kernels;
}

/* one Test per curve: each a cold PoCL build of its own (G2's about a minute), so each
   has its own time limit and Criterion runs them side by side. The default run takes
   BN254 G1 (canonical) and BN254 G2 (_mont): every op over a prime field and over its Fq2,
   in both forms. The other curves and forms, and BN254 G2's formulas on Rusticl (a minute
   or more of Mesa's CPU per kernel, cold), are the same code over other fields: the deep
   run's deep_* tests (tests/meson.build). */
static void every_op(size_t k)
{
	run_on(ffu_test_devices[0], ops_program, &curves[k], true, 10 + k);
}

Test(point_ops_device, pocl_bn254_g1, .timeout = 900)
{
	every_op(0);
}

Test(point_ops_device, deep_pocl_bn254_g1_mont, .timeout = 900)
{
	every_op(1);
}

Test(point_ops_device, deep_pocl_bls12_381_g1, .timeout = 900)
{
	every_op(2);
}

Test(point_ops_device, pocl_bn254_g2_mont, .timeout = 900)
{
	every_op(3);
}

/* Unfused, one kernel per op: every op's load and store of every kind on its own. */
Test(point_ops_device, pocl_unfused, .timeout = 600)
{
	cr_assert_gt(run_on(ffu_test_devices[0], ops_program, &curves[0], false, 20), 20);
}

static void layout_msm_reduce(const char *device)
{
	ffu_cl cl = {0};
	ffu_test_open_device(&cl, device);
	char *text = program(layout_program, &curves[0]);
	check(&cl, text, true, 30);
	free(text);
	const curve_case c = {"bn254_g1", "bn254_sf", false, 100};
	text = program(msm_program, &c);
	check(&cl, text, true, 31);
	free(text);
	const curve_case r = {"bn254_g1", "bn254_sf", false, 1000};
	text = program(reduce_program, &r);
	check(&cl, text, true, 32);
	free(text);
	ffu__cl_close(&cl);
}

Test(point_ops_device, pocl_layout_msm_reduce, .timeout = 900)
{
	layout_msm_reduce(ffu_test_devices[0]);
}

Test(point_ops_device, rusticl, .timeout = 1800)
{
	run_on(ffu_test_devices[1], ops_program, &curves[0], true, 40);
}

/* BN254 G2 on Rusticl: the ops of cheap_program (and of the two below; see curves[]). */
Test(point_ops_device, deep_rusticl_bn254_g2_cheap, .timeout = 900)
{
	run_on(ffu_test_devices[1], cheap_program, &curves[3], true, 41);
}

/* BN254 G2's general addition on Rusticl, its four cases in one kernel: 151 s cold on this
   2-core VM with the doubling folded into the addition's products (212 s while it was a
   second formula called from the addition; cl/point.cl sum_), so nothing else goes in
   this kernel. */
Test(point_ops_device, deep_rusticl_bn254_g2_add, .timeout = 900)
{
	run_on(ffu_test_devices[1], add_program, &curves[3], true, 42);
}

/* BN254 G2's doubling, mixed addition, scalar multiplication and affine output on Rusticl:
   164 s cold on the 2-core VM (an Intel AVX-512 host), under a second warm */
Test(point_ops_device, deep_rusticl_bn254_g2_mul, .timeout = 900)
{
	run_on(ffu_test_devices[1], mul_program, &curves[3], true, 43);
}

/* BLS12-381 G1's every op on Rusticl: every formula over the 381-bit coordinate field (12
   limbs), where before only its msm's general addition ran there. 288 s cold. */
Test(point_ops_device, deep_rusticl_bls12_381_g1, .timeout = 1800)
{
	run_on(ffu_test_devices[1], ops_program, &curves[2], true, 44);
}

Test(point_ops_device, rusticl_layout_msm_reduce, .timeout = 2400)
{
	layout_msm_reduce(ffu_test_devices[1]);
}
