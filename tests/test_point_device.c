/*
 * tests/test_point_device.c: the device point arithmetic of cl/point.cl (xyzz doubling,
 * addition of an affine point, addition; the msm kernels' blocks) on PoCL and Rusticl,
 * against the host reference of fields/point.c, which computes in jacobian coordinates
 * with other formulas: results are compared as group elements (ffu__point_eq) and must be
 * valid xyzz points (on the curve, ZZ^3 = ZZZ^2). Inputs: random points of several
 * representatives and the special cases the formulas leave out (an operand at infinity,
 * P + P through each addition, P + (-P)), for every curve of fields/curves.def (the G2
 * curves' coordinates are Fq2: the same text over cl/ext2.cl; BLS12-381 G2 on PoCL only,
 * below). A missing device fails, never skips.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/field_cl.h"
#include "point.h"
#include "runtime/cl.h"
#include "support.h"
#include "util/strbuf.h"

/* The four blocks of curve C (its cl/point.cl prefix, the %s) as kernels. */
static const char kernels_fmt[] =
	"__kernel void k_dbl(__global const uint *p, __global const uint *q, __global uint *o)\n"
	"{\n\tsize_t i = get_global_id(0);\n"
	"\t%1$s_xyzz_store(o, i, %1$s_xyzz_dbl(%1$s_xyzz_load(p, i)));\n}\n"
	"__kernel void k_madd(__global const uint *p, __global const uint *q, __global uint *o)\n"
	"{\n\tsize_t i = get_global_id(0);\n"
	"\t%1$s_xyzz_store(o, i, %1$s_xyzz_madd(%1$s_xyzz_load(p, i), %1$s_aff_load(q, i)));\n}\n"
	"__kernel void k_add(__global const uint *p, __global const uint *q, __global uint *o)\n"
	"{\n\tsize_t i = get_global_id(0);\n"
	"\t%1$s_xyzz_store(o, i, %1$s_xyzz_add(%1$s_xyzz_load(p, i), %1$s_xyzz_load(q, i)));\n}\n"
	"__kernel void k_neg(__global const uint *p, __global const uint *q, __global uint *o)\n"
	"{\n\tsize_t i = get_global_id(0);\n"
	"\t%1$s_xyzz_store(o, i, %1$s_xyzz_neg(%1$s_xyzz_load(p, i)));\n}\n";

enum { N = 200 };

typedef struct inputs {
	const ffu_field *xyzz, *aff;
	unsigned char *p, *q_aff, *q_xyzz; /* N points each */
} inputs;

/* Special cases first, then random points; q_xyzz is q_aff in xyzz coordinates with a
   representative of its own (through jacobian, fields/point.c: Z' = ZZ * ZZZ). */
static void make_inputs(inputs *in)
{
	const ffu_field *xyzz = in->xyzz, *aff = in->aff;
	size_t bx = xyzz->storage_bytes, ba = aff->storage_bytes;
	uint64_t state = 0x9e3779b97f4a7c15ull;
	unsigned char zero_x[FFU_FIELD_MAX_BYTES], zero_a[FFU_FIELD_MAX_BYTES] = {0}, t[FFU_FIELD_MAX_BYTES];
	cr_assert(ffu__fp_convert(xyzz, zero_x, aff, zero_a)); /* (1, 1, 0, 0) */
	for (int i = 0; i < N; i++) {
		unsigned char *p = in->p + i * bx, *qa = in->q_aff + i * ba, *qx = in->q_xyzz + i * bx;
		ffu__fp_random(aff, qa, &state);
		switch (i) {
		case 0: /* infinity + Q */
			memcpy(p, zero_x, bx);
			break;
		case 1: /* P + infinity */
			ffu__fp_random(xyzz, p, &state);
			memset(qa, 0, ba);
			break;
		case 2: /* P + P, P in (x, y, 1, 1) */
			cr_assert(ffu__fp_convert(xyzz, p, aff, qa));
			break;
		case 3: /* P + P, P in another representative */
			cr_assert(ffu__fp_convert(xyzz, t, aff, qa));
			cr_assert(ffu__fp_convert(xyzz, p, xyzz, t));
			ffu__fp_convert(xyzz, t, xyzz, p);
			memcpy(p, t, bx);
			break;
		case 4: /* P + (-P) */
			cr_assert(ffu__fp_convert(xyzz, t, aff, qa));
			ffu__fp_neg(xyzz, p, t, NULL);
			break;
		case 5: /* infinity + infinity */
			memcpy(p, zero_x, bx);
			memset(qa, 0, ba);
			break;
		default:
			ffu__fp_random(xyzz, p, &state);
		}
		cr_assert(ffu__fp_convert(xyzz, t, aff, qa));
		cr_assert(ffu__fp_convert(xyzz, qx, xyzz, t)); /* a representative with Z != 1 */
		cr_assert(ffu__fp_canonical(xyzz, p) && ffu__fp_canonical(aff, qa) && ffu__fp_canonical(xyzz, qx));
	}
}

/* Curve c's blocks on the device: one program. */
static void run_point_kernels(const char *device, const ffu_curve *c)
{
	inputs in = {.xyzz = ffu__point_type_of(c, FFU_POINT_XYZZ, false),
		     .aff = ffu__point_type_of(c, FFU_POINT_AFFINE, false)};
	size_t bx = in.xyzz->storage_bytes, ba = in.aff->storage_bytes;
	in.p = calloc(N, bx);
	in.q_aff = calloc(N, ba);
	in.q_xyzz = calloc(N, bx);
	unsigned char *out = calloc(N, bx);
	cr_assert(in.p && in.q_aff && in.q_xyzz && out);
	make_inputs(&in);

	ffu_cl cl = {0};
	ffu_test_open_device(&cl, device);
	ffu_strbuf sb = {0};
	ffu_error e = {0};
	ffu__cl_emit_common(&sb);
	ffu__cl_emit_curve(&sb, c);
	ffu__sb_printf(&sb, kernels_fmt, c->name);
	cr_assert_eq(ffu__sb_status(&sb, &e), FFU_STATUS_OK);
	cl_program prog = NULL;
	cr_assert_eq(ffu__cl_build(&cl, &prog, ffu__sb_cstr(&sb), NULL, &e), FFU_STATUS_OK, "%s: build on %s: %s\n%s",
		     c->name, device, e.message, e.build_log ? e.build_log : "");
	cl_mem dp = NULL, dq = NULL, dqx = NULL, dout = NULL;
	cr_assert_eq(ffu__cl_buffer(&cl, &dp, N * bx, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu__cl_buffer(&cl, &dq, N * ba, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu__cl_buffer(&cl, &dqx, N * bx, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu__cl_buffer(&cl, &dout, N * bx, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu__cl_write(&cl, dp, in.p, N * bx, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu__cl_write(&cl, dq, in.q_aff, N * ba, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu__cl_write(&cl, dqx, in.q_xyzz, N * bx, &e), FFU_STATUS_OK, "%s", e.message);

	static const char *const names[] = {"k_dbl", "k_madd", "k_add", "k_neg"};
	for (int k = 0; k < 4; k++) {
		cl_kernel kern = NULL;
		cl_mem q = k == 1 ? dq : dqx;
		cr_assert_eq(ffu__cl_kernel(prog, &kern, names[k], &e), FFU_STATUS_OK, "%s", e.message);
		cr_assert_eq(ffu__cl_set_arg(kern, 0, sizeof dp, &dp, &e), FFU_STATUS_OK, "%s", e.message);
		cr_assert_eq(ffu__cl_set_arg(kern, 1, sizeof q, &q, &e), FFU_STATUS_OK, "%s", e.message);
		cr_assert_eq(ffu__cl_set_arg(kern, 2, sizeof dout, &dout, &e), FFU_STATUS_OK, "%s", e.message);
		memset(out, 0xa5, N * bx); /* nothing left over from the last kernel */
		cr_assert_eq(ffu__cl_write(&cl, dout, out, N * bx, &e), FFU_STATUS_OK, "%s", e.message);
		cr_assert_eq(ffu__cl_launch(&cl, kern, N, 0, NULL, &e), FFU_STATUS_OK, "%s: %s", names[k], e.message);
		cr_assert_eq(ffu__cl_read(&cl, dout, out, N * bx, &e), FFU_STATUS_OK, "%s", e.message);
		ffu__cl_kernel_release(&kern);
		int infinities = 0;
		for (int i = 0; i < N; i++) {
			unsigned char want[FFU_FIELD_MAX_BYTES];
			const unsigned char *p = in.p + i * bx, *got = out + i * bx;
			if (k == 0)
				ffu__point_add(in.xyzz, want, in.xyzz, p, in.xyzz, p);
			else if (k == 1)
				ffu__point_add(in.xyzz, want, in.xyzz, p, in.aff, in.q_aff + i * ba);
			else if (k == 2)
				ffu__point_add(in.xyzz, want, in.xyzz, p, in.xyzz, in.q_xyzz + i * bx);
			else
				ffu__fp_neg(in.xyzz, want, p, NULL);
			cr_assert(ffu__fp_canonical(in.xyzz, got), "%s %s on %s: element %d is not a valid xyzz point",
				  c->name, names[k], device, i);
			cr_assert(ffu__point_eq(in.xyzz, got, in.xyzz, want), "%s %s on %s: element %d differs from the host's",
				  c->name, names[k], device, i);
			infinities += ffu__fp_is_zero(in.xyzz, got);
		}
		/* the special cases reached the device: infinity + infinity everywhere, P + (-P)
		   for the additions */
		cr_assert(infinities >= (k == 1 || k == 2 ? 2 : 1), "%s %s: %d infinities", c->name, names[k], infinities);
	}
	ffu__cl_buffer_release(&dp);
	ffu__cl_buffer_release(&dq);
	ffu__cl_buffer_release(&dqx);
	ffu__cl_buffer_release(&dout);
	ffu__cl_program_release(&prog);
	ffu__sb_free(&sb);
	ffu__cl_close(&cl);
	free(in.p);
	free(in.q_aff);
	free(in.q_xyzz);
	free(out);
}

/* The rows of fields/curves.def that `which` takes: G1 over a prime field, G2 over its Fq2
   (the same cl/point.cl text over cl/ext2.cl); *ran and *g2 count them. */
typedef enum { BN254_CURVES, OTHER_CURVES, OTHER_CURVES_NO_WIDE_G2 } curve_set;

static void run_curves(const char *device, curve_set which, int *ran, int *g2)
{
	*ran = *g2 = 0;
	for (int id = FFU_FIELD_POINT_FIRST; id < FFU_ELEM_COUNT; id += 6) {
		const ffu_curve *c = ffu__field_get((ffu_field_id)id)->curve;
		bool bn254 = strncmp(c->name, "bn254", 5) == 0;
		if ((which == BN254_CURVES) != bn254)
			continue;
		if (which == OTHER_CURVES_NO_WIDE_G2 && c->coord->degree > 1 && c->coord->prime->bits > 256)
			continue;
		run_point_kernels(device, c);
		(*ran)++;
		*g2 += c->coord->degree > 1;
	}
}

/*
 * The default run takes BN254's G1 and G2 on each device: every block over a prime field and
 * over its Fq2. The other rows (BLS12-381 G1 and G2) are the same kernels over wider fields
 * and the slowest to build cold: the deep run's deep_* tests (tests/meson.build).
 */
static void run_bn254(const char *device)
{
	int n, g2;
	run_curves(device, BN254_CURVES, &n, &g2);
	cr_assert_eq(n, 2, "BN254's curves in curves.def: %d", n);
	cr_assert_eq(g2, 1, "BN254 G2 did not run");
}

/* 977 s with the whole suite beside it (2026-11-27), every curve; past 1200 s once, cold,
   with a build and MPI runs beside the suite (2026-11-28): the limit leaves room,
   tests/meson.build's 2700 s stays above it */
Test(point_device, pocl, .timeout = 2400)
{
	run_bn254(ffu_test_devices[0]);
}

Test(point_device, deep_pocl_other_curves, .timeout = 2400)
{
	int n, g2;
	run_curves(ffu_test_devices[0], OTHER_CURVES, &n, &g2);
	cr_assert_geq(n, 2, "the other curves of curves.def: %d", n);
	cr_assert_geq(g2, 1, "no other G2 curve ran");
}

/*
 * Rusticl: the G1 curves and BN254 G2. Over Fq2, Mesa inlines every Fq2 product into each
 * block: a cold build of BN254 G2's four kernels ran past 13 minutes of CPU in a
 * clean-machine CI run while the additions called the doubling; since they fold it into
 * their own products (cl/point.cl sum_) both G2 curves took 381 s together, cold, and
 * BLS12-381 G2 (381-bit coordinates, beyond ZKX) is left to PoCL here; its msm runs on
 * Rusticl in test_msm_device.
 */
Test(point_device, rusticl, .timeout = 1800)
{
	run_bn254(ffu_test_devices[1]);
}

Test(point_device, deep_rusticl_other_curves, .timeout = 1800)
{
	int n, g2;
	run_curves(ffu_test_devices[1], OTHER_CURVES_NO_WIDE_G2, &n, &g2);
	cr_assert_geq(n, 1, "the other curves of curves.def: %d", n);
}
