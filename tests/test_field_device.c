/*
 * tests/test_field_device.c: the OpenCL field templates (cl/mont31.cl, cl/m31.cl,
 * cl/goldilocks.cl, cl/mont256.cl, as emitted by src/codegen/field_cl.c) against GMP, on both OpenCL implementations every
 * device test must pass on (PoCL and Rusticl). Owned by the fields engineer.
 *
 * One program per device holds every field of the table (so the instantiations must
 * coexist: the template's #undefs are tested too) and one kernel per op and field. Inputs:
 * the cross product of edge values plus random pairs; n is deliberately not a multiple of
 * any work-group size. A missing device fails, never skips. Criterion forks per test, so
 * each test creates its own OpenCL objects.
 */
#include <criterion/criterion.h>
#include <gmp.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/field_cl.h"
#include "field.h"
#include "runtime/cl.h"
#include "support.h"
#include "util/strbuf.h"

/* Random pairs per field and op, on top of the edge cross product (the issue asks >= 10^5). */
#define RANDOM_PAIRS 100003
/* The vector-load variants only change loads and stores: fewer pairs suffice there. */
#define RANDOM_PAIRS_VECTOR_LOADS 3001

/*
 * Device ops under test; expected value of each on (a, b) with the template's radix
 * R = 2^dev_radix_bits (R = 1 for the canonical templates, m31 and goldilocks).
 */
enum op {
	OP_ADD,   /* a + b */
	OP_SUB,   /* a - b */
	OP_NEG,   /* -a */
	OP_MUL,   /* a * b / R (raw Montgomery product) */
	OP_MULM,  /* from_mont(mul(to_mont(a), to_mont(b))) = a * b */
	OP_MIXED, /* mul(to_mont(a), b) = a * b */
	OP_SQR,   /* a * a / R */
	OP_TOM,   /* a * R */
	OP_FROMM, /* a / R */
	OP_ADDC,  /* a + c, c an inlined constant from ffu__cl_emit_const */
	OP_EQ,    /* eq(a, b) | eq(a, a) << 1 | eq(b, b) << 2, one uint per element */
	OP_COUNT
};
static const char *const op_names[OP_COUNT] = {"add", "sub",  "neg",     "mul",  "mulm", "mixed",
					       "sqr", "tomont", "frommont", "addc", "eq"};

/* Kernels for one field F, written against the template API the code generator uses. */
static const char kernels[] =
	"#define K2(F, NAME, EXPR) __kernel void F##_k_##NAME(__global const uint *a, "
	"__global const uint *b, __global uint *out, uint n) { size_t i = get_global_id(0); "
	"if (i >= n) return; F##_t x = F##_load(a, i); F##_t y = F##_load(b, i); "
	"F##_store(out, i, EXPR); }\n"
	"#define TEST_KERNELS(F, C) \\\n"
	" K2(F, add, F##_add(x, y)) \\\n"
	" K2(F, sub, F##_sub(x, y)) \\\n"
	" K2(F, neg, F##_neg(x)) \\\n"
	" K2(F, mul, F##_mul(x, y)) \\\n"
	" K2(F, mulm, F##_from_mont(F##_mul(F##_to_mont(x), F##_to_mont(y)))) \\\n"
	" K2(F, mixed, F##_mul(F##_to_mont(x), y)) \\\n"
	" K2(F, sqr, F##_sqr(x)) \\\n"
	" K2(F, tomont, F##_to_mont(x)) \\\n"
	" K2(F, frommont, F##_from_mont(x)) \\\n"
	" K2(F, addc, F##_add(x, C)) \\\n"
	" __kernel void F##_k_eq(__global const uint *a, __global const uint *b, "
	"__global uint *out, uint n) { size_t i = get_global_id(0); if (i >= n) return; "
	"F##_t x = F##_load(a, i); F##_t y = F##_load(b, i); "
	"out[i] = (uint)F##_eq(x, y) | (uint)F##_eq(x, x) << 1 | (uint)F##_eq(y, y) << 2; }\n";

static void to_mpz(const ffu_field *f, mpz_t z, const void *bytes)
{
	mpz_import(z, f->storage_bytes, -1, 1, 0, 0, bytes);
}

static void from_mpz(const ffu_field *f, void *bytes, const mpz_t z)
{
	memset(bytes, 0, f->storage_bytes);
	mpz_export(bytes, NULL, -1, 1, 0, 0, z);
}

/* The constant each field's addc kernel adds: p - 12345, so the add wraps for most a. */
static void addc_constant(const ffu_field *f, mpz_t c)
{
	mpz_set_str(c, f->modulus_hex, 16);
	mpz_sub_ui(c, c, 12345);
}

/* Edge values: small, near p, (p +- 1)/2, 2^k and 2^k +- 1 mod p at word seams. */
static int edge_values(const ffu_field *f, mpz_t *out, int cap)
{
	mpz_t p, t;
	mpz_inits(p, t, NULL);
	mpz_set_str(p, f->modulus_hex, 16);
	int n = 0;
	for (unsigned long v = 0; v < 4; v++)
		mpz_set_ui(out[n++], v);
	for (unsigned long d = 1; d <= 3; d++)
		mpz_sub_ui(out[n++], p, d);
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

/* GMP constants of one field, computed once: expect() runs for every element. */
typedef struct gmp_field {
	mpz_t p, r, rinv, c, x;
} gmp_field;

static void gmp_field_init(gmp_field *g, const ffu_field *f)
{
	mpz_inits(g->p, g->r, g->rinv, g->c, g->x, NULL);
	mpz_set_str(g->p, f->modulus_hex, 16);
	mpz_set_ui(g->r, 1);
	mpz_mul_2exp(g->r, g->r, (mp_bitcnt_t)f->dev_radix_bits);
	mpz_invert(g->rinv, g->r, g->p);
	addc_constant(f, g->c);
}

static void gmp_field_clear(gmp_field *g)
{
	mpz_clears(g->p, g->r, g->rinv, g->c, g->x, NULL);
}

/* Expected result of op on element (a, b), as a uint-word image of out[i]. */
static void expect(const ffu_field *f, gmp_field *g, enum op op, unsigned char *want, const mpz_t a,
		   const mpz_t b)
{
	mpz_ptr x = g->x;
	switch (op) {
	case OP_ADD: mpz_add(x, a, b); break;
	case OP_SUB: mpz_sub(x, a, b); break;
	case OP_NEG: mpz_neg(x, a); break;
	case OP_MUL: mpz_mul(x, a, b); mpz_mul(x, x, g->rinv); break;
	case OP_MULM: mpz_mul(x, a, b); break;
	case OP_MIXED: mpz_mul(x, a, b); break;
	case OP_SQR: mpz_mul(x, a, a); mpz_mul(x, x, g->rinv); break;
	case OP_TOM: mpz_mul(x, a, g->r); break;
	case OP_FROMM: mpz_mul(x, a, g->rinv); break;
	case OP_ADDC: mpz_add(x, a, g->c); break;
	case OP_EQ: mpz_set_ui(x, (mpz_cmp(a, b) == 0) | 2u | 4u); break;
	default: break;
	}
	if (op != OP_EQ)
		mpz_mod(x, x, g->p);
	memset(want, 0, f->storage_bytes);
	mpz_export(want, NULL, -1, 1, 0, 0, x);
}

static char *hex_of(const ffu_field *f, const unsigned char *bytes, char *buf)
{
	mpz_t z;
	mpz_init(z);
	to_mpz(f, z, bytes);
	gmp_sprintf(buf, "0x%Zx", z);
	mpz_clear(z);
	return buf;
}

/*
 * Builds the program for every field with build options `options`, then checks every op of
 * every field on `selector`.
 */
static void run_device(const char *selector, const char *options, size_t random_pairs)
{
	ffu_error e = {0};
	ffu_device_info dev;
	ffu_status st = ffu__cl_select(&dev, selector, &e);
	cr_assert_eq(st, FFU_STATUS_OK, "device '%s' missing: %s", selector, e.message);
	ffu_cl cl = {0};
	st = ffu__cl_open(&cl, &dev, &e);
	cr_assert_eq(st, FFU_STATUS_OK, "open %s: %s", selector, e.message);

	ffu_strbuf sb = {0};
	ffu__cl_emit_common(&sb);
	for (int id = 0; id < FFU_FIELD_COUNT; id++)
		ffu__cl_emit_field(&sb, ffu__field_get((ffu_field_id)id));
	ffu__sb_append(&sb, kernels);
	mpz_t c;
	mpz_init(c);
	for (int id = 0; id < FFU_FIELD_COUNT; id++) {
		const ffu_field *f = ffu__field_get((ffu_field_id)id);
		unsigned char cb[FFU_FIELD_MAX_BYTES];
		addc_constant(f, c);
		from_mpz(f, cb, c);
		ffu__sb_printf(&sb, "TEST_KERNELS(%s, ", f->name);
		ffu__cl_emit_const(&sb, f, cb);
		ffu__sb_append(&sb, ")\n");
	}
	mpz_clear(c);
	cr_assert_eq(ffu__sb_status(&sb, &e), FFU_STATUS_OK);

	cl_program prog = NULL;
	st = ffu__cl_build(&cl, &prog, ffu__sb_cstr(&sb), options, &e);
	cr_assert_eq(st, FFU_STATUS_OK, "build on %s: %s\n%s", selector, e.message,
		     e.build_log ? e.build_log : "");

	for (int id = 0; id < FFU_FIELD_COUNT; id++) {
		const ffu_field *f = ffu__field_get((ffu_field_id)id);
		size_t sbytes = f->storage_bytes;
		cr_assert_eq(ffu__cl_words(f) * 4, sbytes);

		/* inputs: edge cross product, then random pairs */
		mpz_t edges[64];
		for (int i = 0; i < 64; i++)
			mpz_init(edges[i]);
		int ne = edge_values(f, edges, 64);
		size_t n = (size_t)ne * (size_t)ne + random_pairs;
		unsigned char *a = calloc(n, sbytes), *b = calloc(n, sbytes);
		unsigned char *out = calloc(n, sbytes);
		cr_assert(a && b && out);
		size_t k = 0;
		for (int i = 0; i < ne; i++)
			for (int j = 0; j < ne; j++, k++) {
				from_mpz(f, a + k * sbytes, edges[i]);
				from_mpz(f, b + k * sbytes, edges[j]);
			}
		uint64_t state = 0xfeed + (uint64_t)id;
		for (; k < n; k++) {
			ffu__fp_random(f, a + k * sbytes, &state);
			/* some equal pairs for eq */
			if (k % 97 == 0)
				memcpy(b + k * sbytes, a + k * sbytes, sbytes);
			else
				ffu__fp_random(f, b + k * sbytes, &state);
		}
		for (int i = 0; i < 64; i++)
			mpz_clear(edges[i]);

		cl_mem da = NULL, db = NULL, dout = NULL;
		cr_assert_eq(ffu__cl_buffer(&cl, &da, n * sbytes, &e), FFU_STATUS_OK, "%s", e.message);
		cr_assert_eq(ffu__cl_buffer(&cl, &db, n * sbytes, &e), FFU_STATUS_OK, "%s", e.message);
		cr_assert_eq(ffu__cl_buffer(&cl, &dout, n * sbytes, &e), FFU_STATUS_OK, "%s", e.message);
		cr_assert_eq(ffu__cl_write(&cl, da, a, n * sbytes, &e), FFU_STATUS_OK, "%s", e.message);
		cr_assert_eq(ffu__cl_write(&cl, db, b, n * sbytes, &e), FFU_STATUS_OK, "%s", e.message);

		mpz_t za, zb;
		mpz_inits(za, zb, NULL);
		gmp_field gf;
		gmp_field_init(&gf, f);
		for (int op = 0; op < OP_COUNT; op++) {
			char name[128];
			snprintf(name, sizeof name, "%s_k_%s", f->name, op_names[op]);
			cl_kernel kern = NULL;
			cr_assert_eq(ffu__cl_kernel(prog, &kern, name, &e), FFU_STATUS_OK, "%s",
				     e.message);
			cl_uint nn = (cl_uint)n;
			cr_assert_eq(ffu__cl_set_arg(kern, 0, sizeof da, &da, &e), FFU_STATUS_OK);
			cr_assert_eq(ffu__cl_set_arg(kern, 1, sizeof db, &db, &e), FFU_STATUS_OK);
			cr_assert_eq(ffu__cl_set_arg(kern, 2, sizeof dout, &dout, &e), FFU_STATUS_OK);
			cr_assert_eq(ffu__cl_set_arg(kern, 3, sizeof nn, &nn, &e), FFU_STATUS_OK);
			memset(out, 0xa5, n * sbytes);
			cr_assert_eq(ffu__cl_write(&cl, dout, out, n * sbytes, &e), FFU_STATUS_OK);
			cr_assert_eq(ffu__cl_launch(&cl, kern, n, 0, NULL, &e), FFU_STATUS_OK, "%s: %s",
				     name, e.message);
			cr_assert_eq(ffu__cl_read(&cl, dout, out, n * sbytes, &e), FFU_STATUS_OK, "%s",
				     e.message);
			ffu__cl_kernel_release(&kern);

			size_t osz = op == OP_EQ ? 4 : sbytes;
			unsigned char want[FFU_FIELD_MAX_BYTES];
			size_t bad = 0;
			for (k = 0; k < n; k++) {
				to_mpz(f, za, a + k * sbytes);
				to_mpz(f, zb, b + k * sbytes);
				expect(f, &gf, (enum op)op, want, za, zb);
				if (memcmp(want, out + k * osz, osz) == 0)
					continue;
				if (bad++ < 5) {
					char h[4][160];
					cr_log_error("%s %s %s[%zu](%s, %s) = %s, GMP: %s", selector,
						     f->name, op_names[op], k,
						     hex_of(f, a + k * sbytes, h[0]),
						     hex_of(f, b + k * sbytes, h[1]),
						     op == OP_EQ ? "(eq bits)" : hex_of(f, out + k * osz, h[2]),
						     op == OP_EQ ? "(eq bits)" : hex_of(f, want, h[3]));
				}
			}
			cr_expect_eq(bad, 0, "%s%s%s: %s %s: %zu of %zu elements differ from GMP",
				     selector, options ? " " : "", options ? options : "", f->name,
				     op_names[op], bad, n);
		}
		mpz_clears(za, zb, NULL);
		gmp_field_clear(&gf);
		ffu__cl_buffer_release(&da);
		ffu__cl_buffer_release(&db);
		ffu__cl_buffer_release(&dout);
		free(a);
		free(b);
		free(out);
	}
	ffu__cl_program_release(&prog);
	ffu__sb_free(&sb);
	ffu__cl_close(&cl);
	ffu_error_clear(&e);
}

Test(field_device, pocl, .timeout = 300)
{
	run_device(ffu_test_devices[0], NULL, RANDOM_PAIRS);
}

Test(field_device, rusticl, .timeout = 300)
{
	run_device(ffu_test_devices[1], NULL, RANDOM_PAIRS);
}

/* The wide vload8/vstore8 element accesses the code generator may ask for on GPUs. */
Test(field_device, pocl_vector_loads, .timeout = 300)
{
	run_device(ffu_test_devices[0], "-DFFU_VECTOR_LOADS", RANDOM_PAIRS_VECTOR_LOADS);
}

Test(field_device, rusticl_vector_loads, .timeout = 300)
{
	run_device(ffu_test_devices[1], "-DFFU_VECTOR_LOADS", RANDOM_PAIRS_VECTOR_LOADS);
}

/* The emitter's small helpers, host only. */
Test(field_device, emitter_helpers)
{
	char buf[64];
	const ffu_field *bb = ffu__field_get(FFU_FIELD_BABYBEAR);
	const ffu_field *bn = ffu__field_get(FFU_FIELD_BN254_SF);
	cr_assert_str_eq(ffu__cl_type_name(bb, buf), "babybear_t");
	cr_assert_str_eq(ffu__cl_type_name(bn, buf), "bn254_sf_t");
	cr_assert_eq(ffu__cl_words(bb), 1);
	cr_assert_eq(ffu__cl_words(bn), 8);

	ffu_strbuf sb = {0};
	uint32_t v = 5;
	ffu__cl_emit_const(&sb, bb, &v);
	cr_assert_str_eq(ffu__sb_cstr(&sb), "babybear_make(0x5u)");
	ffu__sb_free(&sb);

	unsigned char w[32] = {0};
	w[0] = 0x01;
	w[4] = 0xef, w[5] = 0xbe, w[6] = 0xad, w[7] = 0xde;
	w[31] = 0x30;
	ffu_strbuf sb2 = {0};
	ffu__cl_emit_const(&sb2, bn, w);
	cr_assert_str_eq(ffu__sb_cstr(&sb2),
			 "bn254_sf_make(0x1u, 0xdeadbeefu, 0x0u, 0x0u, 0x0u, 0x0u, 0x0u, 0x30000000u)");
	ffu__sb_free(&sb2);

	ffu_strbuf sb3 = {0};
	ffu__cl_emit_field(&sb3, bb);
	const char *s = ffu__sb_cstr(&sb3);
	cr_assert(strstr(s, "#define FP babybear\n"));
	cr_assert(strstr(s, "#define FP_P 0x78000001u\n"));
	cr_assert(strstr(s, "#define FP_PINV 0x77ffffffu\n"));
	cr_assert(strstr(s, "#undef FP_R2\n"));
	ffu__sb_free(&sb3);
}
