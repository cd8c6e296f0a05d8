/*
 * tests/test_embed.c: the embedding API (fieldfuse/builder.h, executable.h, opencl.h) used
 * through its public headers only: the builder against the parser for every opcode and its
 * error reporting; buffers (upload and download in canonical and Montgomery form, wrapping a
 * caller's cl_mem, adopting a caller's context); executables chained on the device, run
 * synchronously and asynchronously (also on the caller's queue), checked against the
 * reference interpreter; argument checking against the signature; and the memory plan.
 * Device tests run on PoCL and on Rusticl; a missing device fails, nothing is skipped.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fieldfuse/opencl.h"
#include "support.h"

#define BB_P 0x78000001u
#define KB_P 0x7f000001u

enum { N = 1000 }; /* not a multiple of any work-group size */

static ffu_program *parse_ok(const char *text)
{
	ffu_error e = {0};
	ffu_program *p = NULL;
	ffu_status st = ffu_program_parse(&p, text, strlen(text), "test.hlo", &e);
	cr_assert_eq(st, FFU_STATUS_OK, "parse: %s (%d:%d)", e.message, e.line, e.col);
	ffu_error_clear(&e);
	return p;
}

static ffu_device *open_ok(const char *sel)
{
	ffu_error e = {0};
	ffu_device *d = NULL;
	ffu_status st = ffu_device_open(&d, sel, &e);
	cr_assert_eq(st, FFU_STATUS_OK, "device '%s' must be present: %s", sel, e.message);
	ffu_error_clear(&e);
	return d;
}

static ffu_executable *compile_ok(ffu_device *d, const ffu_program *p, const ffu_compile_options *o)
{
	ffu_error e = {0};
	ffu_executable *x = NULL;
	ffu_status st = ffu_executable_create(&x, d, p, o, &e);
	cr_assert_eq(st, FFU_STATUS_OK, "compile on %s: %s\n%s", ffu_device_name(d), e.message,
		     e.build_log ? e.build_log : "");
	ffu_error_clear(&e);
	return x;
}

static ffu_buffer *buffer_ok(ffu_device *d, const char *type, int rank, const int64_t *dims)
{
	ffu_error e = {0};
	ffu_buffer *b = NULL;
	cr_assert_eq(ffu_buffer_create(&b, d, type, rank, dims, &e), FFU_STATUS_OK, "%s", e.message);
	return b;
}

static void upload_ok(ffu_buffer *b, const void *host, size_t bytes)
{
	ffu_error e = {0};
	cr_assert_eq(ffu_buffer_upload(b, host, bytes, FFU_FORM_CANONICAL, &e), FFU_STATUS_OK, "%s", e.message);
}

static void download_ok(const ffu_buffer *b, void *host, size_t bytes)
{
	ffu_error e = {0};
	cr_assert_eq(ffu_buffer_download(b, host, bytes, FFU_FORM_CANONICAL, &e), FFU_STATUS_OK, "%s", e.message);
}

static void fill(uint32_t *v, size_t n, uint32_t p, uint64_t seed)
{
	static const uint32_t edges[] = {0, 1, 2};
	for (size_t i = 0; i < n; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		v[i] = i < 3 ? edges[i] : i == 3 ? p - 1 : (uint32_t)((seed >> 33) % p);
	}
}

/* ---------------------------------------------------------------- builder vs parser */

static const char every_op_text[] =
	"HloModule every_op\n"
	"\n"
	"%sum (sum.x: babybear[], sum.y: babybear[]) -> babybear[] {\n"
	"  %sum.x = babybear[] parameter(0)\n"
	"  %sum.y = babybear[] parameter(1)\n"
	"  ROOT %sum.r = babybear[] add(%sum.x, %sum.y)\n"
	"}\n"
	"\n"
	"%product (product.x: babybear[], product.y: babybear[]) -> babybear[] {\n"
	"  %product.x = babybear[] parameter(0)\n"
	"  %product.y = babybear[] parameter(1)\n"
	"  ROOT %product.r = babybear[] multiply(%product.x, %product.y)\n"
	"}\n"
	"\n"
	"ENTRY %main (x: babybear[8], y: babybear[8], e: u32[8]) -> (babybear[2], babybear[], babybear_mont[8], pred[8], "
	"babybear[8], babybear[2,4]) {\n"
	"  %x = babybear[8] parameter(0)\n"
	"  %y = babybear[8] parameter(1)\n"
	"  %e = u32[8] parameter(2)\n"
	"  %k = babybear[8] constant({1, 2, 3, 4, 5, 6, 7, 2013265920})\n"
	"  %one = babybear[] constant(1)\n"
	"  %io = babybear[8] iota(), iota_dimension=0\n"
	"  %bc = babybear[8] broadcast(%one), dimensions={}\n"
	"  %a = babybear[8] add(%x, %y)\n"
	"  %s = babybear[8] subtract(%a, %k)\n"
	"  %m = babybear[8] multiply(%s, %io)\n"
	"  %d = babybear[8] divide(%m, %y)\n"
	"  %n = babybear[8] negate(%d)\n"
	"  %sq = babybear[8] square(%n)\n"
	"  %inv = babybear[8] inverse(%sq)\n"
	"  %p = babybear[8] power(%inv, %e)\n"
	"  %eq = pred[8] compare(%x, %y), direction=EQ\n"
	"  %ne = pred[8] compare(%x, %bc), direction=NE\n"
	"  %sel = babybear[8] select(%eq, %p, %bc)\n"
	"  %cm = babybear_mont[8] convert(%sel)\n"
	"  %cu = babybear[8] convert(%e)\n"
	"  %lo = babybear[4] slice(%sel), slice={[0:8:2]}\n"
	"  %hi = babybear[4] slice(%cu), slice={[1:8:2]}\n"
	"  %cat = babybear[8] concatenate(%lo, %hi), dimensions={0}\n"
	"  %r2 = babybear[2,4] reshape(%cat)\n"
	"  %zero = babybear[] constant(0)\n"
	"  %rs = babybear[2] reduce(%r2, %zero), dimensions={1}, to_apply=%sum\n"
	"  %rp = babybear[] reduce(%cat, %one), dimensions={0}, to_apply=%product\n"
	"  %t = (babybear[2], babybear[]) tuple(%rs, %rp)\n"
	"  %g0 = babybear[2] get-tuple-element(%t), index=0\n"
	"  %b2 = babybear[2,4] broadcast(%g0), dimensions={0}\n"
	"  ROOT %out = (babybear[2], babybear[], babybear_mont[8], pred[8], babybear[8], babybear[2,4]) tuple(%g0, %rp, "
	"%cm, %ne, %d, %b2)\n"
	"}\n";

/* Names a fresh node like the text does, and checks the call worked. */
static ffu_node named(ffu_builder *b, ffu_node n, const char *name)
{
	ffu_error e = {0};
	cr_assert_neq(n, FFU_NODE_INVALID, "building '%s': %s", name,
		      (ffu_builder_status(b, &e), e.message));
	cr_assert_eq(ffu_builder_set_name(b, n, name), FFU_STATUS_OK, "renaming to %s", name);
	cr_assert_str_eq(ffu_builder_name(b, n), name);
	return n;
}

/* every_op_text, built from C: one call per instruction, in the text's order. */
static ffu_program *build_every_op(void)
{
	ffu_builder *b = NULL;
	ffu_error e = {0};
	cr_assert_eq(ffu_builder_create(&b, "every_op", &e), FFU_STATUS_OK, "%s", e.message);
	int64_t v8[] = {8}, v24[] = {2, 4}, zero_dim[] = {0}, one_dim[] = {1};
	int64_t lo_start[] = {0}, hi_start[] = {1}, lim[] = {8}, two[] = {2};
	uint32_t k[8] = {1, 2, 3, 4, 5, 6, 7, BB_P - 1};
	ffu_node x = ffu_build_parameter(b, "x", "babybear", 1, v8);
	ffu_node y = ffu_build_parameter(b, "y", "babybear", 1, v8);
	ffu_node ex = ffu_build_parameter(b, "e", "u32", 1, v8);
	ffu_node kk = named(b, ffu_build_constant(b, "babybear", 1, v8, k, sizeof k), "k");
	ffu_node one = named(b, ffu_build_constant_u64(b, "babybear", 1), "one");
	ffu_node io = named(b, ffu_build_iota(b, "babybear", 1, v8, 0), "io");
	ffu_node bc = named(b, ffu_build_broadcast(b, one, 1, v8, NULL, 0), "bc");
	ffu_node a = named(b, ffu_build_add(b, x, y), "a");
	ffu_node s = named(b, ffu_build_subtract(b, a, kk), "s");
	ffu_node m = named(b, ffu_build_multiply(b, s, io), "m");
	ffu_node d = named(b, ffu_build_divide(b, m, y), "d");
	ffu_node n = named(b, ffu_build_negate(b, d), "n");
	ffu_node sq = named(b, ffu_build_square(b, n), "sq");
	ffu_node inv = named(b, ffu_build_inverse(b, sq), "inv");
	ffu_node p = named(b, ffu_build_power(b, inv, ex), "p");
	ffu_node eq = named(b, ffu_build_compare(b, x, y, FFU_COMPARE_EQ), "eq");
	ffu_node ne = named(b, ffu_build_compare(b, x, bc, FFU_COMPARE_NE), "ne");
	ffu_node sel = named(b, ffu_build_select(b, eq, p, bc), "sel");
	ffu_node cm = named(b, ffu_build_convert(b, sel, "babybear_mont"), "cm");
	ffu_node cu = named(b, ffu_build_convert(b, ex, "babybear"), "cu");
	ffu_node lo = named(b, ffu_build_slice(b, sel, lo_start, lim, two), "lo");
	ffu_node hi = named(b, ffu_build_slice(b, cu, hi_start, lim, two), "hi");
	ffu_node cat = named(b, ffu_build_concatenate(b, (ffu_node[]){lo, hi}, 2, 0), "cat");
	ffu_node r2 = named(b, ffu_build_reshape(b, cat, 2, v24), "r2");
	ffu_node zero = named(b, ffu_build_constant_u64(b, "babybear", 0), "zero");
	ffu_node rs = named(b, ffu_build_reduce(b, r2, zero, one_dim, 1, FFU_REDUCE_SUM), "rs");
	ffu_node rp = named(b, ffu_build_reduce(b, cat, one, zero_dim, 1, FFU_REDUCE_PRODUCT), "rp");
	ffu_node t = named(b, ffu_build_tuple(b, (ffu_node[]){rs, rp}, 2), "t");
	ffu_node g0 = named(b, ffu_build_get_tuple_element(b, t, 0), "g0");
	ffu_node b2 = named(b, ffu_build_broadcast(b, g0, 2, v24, zero_dim, 1), "b2");
	ffu_node out = named(b, ffu_build_tuple(b, (ffu_node[]){g0, rp, cm, ne, d, b2}, 6), "out");
	ffu_array_info info;
	cr_assert_eq(ffu_builder_shape(b, r2, &info), FFU_STATUS_OK);
	cr_expect_eq(info.rank, 2);
	cr_expect_eq(info.dims[1], 4);
	cr_expect_eq(ffu_builder_shape(b, t, &info), FFU_STATUS_EINVAL, "a tuple has no array shape");
	ffu_program *prog = NULL;
	cr_assert_eq(ffu_builder_finish(b, out, &prog, &e), FFU_STATUS_OK, "%s", e.message);
	/* spent: later calls fail, finishing twice too */
	cr_expect_eq(ffu_build_negate(b, x), FFU_NODE_INVALID);
	cr_expect_eq(ffu_builder_status(b, &e), FFU_STATUS_EINVAL);
	cr_expect(strstr(e.message, "finished"), "%s", e.message);
	ffu_builder_destroy(&b);
	cr_expect_null(b);
	ffu_error_clear(&e);
	return prog;
}

Test(builder, every_opcode_prints_as_parsed)
{
	ffu_program *parsed = parse_ok(every_op_text), *built = build_every_op();
	char *pt = NULL, *bt = NULL;
	cr_assert_eq(ffu_program_print(&pt, parsed, NULL), FFU_STATUS_OK);
	cr_assert_eq(ffu_program_print(&bt, built, NULL), FFU_STATUS_OK);
	cr_expect_str_eq(bt, pt, "built:\n%s\nparsed:\n%s", bt, pt);
	cr_expect_eq(ffu_program_num_inputs(built), 3);
	cr_expect_eq(ffu_program_num_outputs(built), 6);
	ffu_array_info info;
	cr_assert_eq(ffu_program_input(built, 2, &info), FFU_STATUS_OK);
	cr_expect_str_eq(info.name, "e");
	cr_expect_str_eq(info.type, "u32");
	free(pt);
	free(bt);
	ffu_program_destroy(&parsed);
	ffu_program_destroy(&built);
}

/* The built program runs on both devices like the parsed one: every output against the interpreter. */
static void run_every_op(const char *sel)
{
	ffu_program *prog = build_every_op();
	ffu_device *d = open_ok(sel);
	ffu_executable *x = compile_ok(d, prog, NULL);
	uint32_t xv[8], yv[8], ev[8] = {0, 1, 2, 3, 5, 7, 11, 0xffffffffu};
	fill(xv, 8, BB_P, 1);
	fill(yv, 8, BB_P, 2);
	yv[5] = xv[5]; /* one equal pair for compare */
	const void *hin[] = {xv, yv, ev};
	ffu_buffer *in[3], *out[6];
	unsigned char ref[6][64], dev[6][64];
	void *const rp[] = {ref[0], ref[1], ref[2], ref[3], ref[4], ref[5]};
	ffu_error e = {0};
	cr_assert_eq(ffu_program_interpret(prog, hin, rp, &e), FFU_STATUS_OK, "%s", e.message);
	for (int i = 0; i < 3; i++) {
		ffu_array_info info;
		cr_assert_eq(ffu_buffer_create_input(&in[i], x, i, &e), FFU_STATUS_OK, "%s", e.message);
		cr_assert_eq(ffu_buffer_info(in[i], &info), FFU_STATUS_OK);
		upload_ok(in[i], hin[i], info.bytes);
	}
	for (int o = 0; o < 6; o++)
		cr_assert_eq(ffu_buffer_create_output(&out[o], x, o, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu_executable_run(x, (const ffu_buffer *const *)in, 3, out, 6, NULL, &e), FFU_STATUS_OK,
		     "%s: %s\n%s", sel, e.message, e.build_log ? e.build_log : "");
	for (int o = 0; o < 6; o++) {
		ffu_array_info info;
		cr_assert_eq(ffu_executable_output(x, o, &info), FFU_STATUS_OK);
		/* the interpreter returns storage values: a _mont output's are in Montgomery form */
		ffu_form form = strstr(info.type, "_mont") ? FFU_FORM_MONTGOMERY : FFU_FORM_CANONICAL;
		cr_assert_eq(ffu_buffer_download(out[o], dev[o], info.bytes, form, &e), FFU_STATUS_OK, "%s", e.message);
		cr_expect_eq(memcmp(dev[o], ref[o], info.bytes), 0, "%s: output %d (%s) differs from the interpreter", sel, o,
			     info.name);
	}
	for (int i = 0; i < 3; i++)
		ffu_buffer_destroy(&in[i]);
	for (int o = 0; o < 6; o++)
		ffu_buffer_destroy(&out[o]);
	ffu_executable_destroy(&x);
	ffu_device_close(&d);
	ffu_program_destroy(&prog);
	ffu_error_clear(&e);
}

Test(builder, every_opcode_runs_pocl, .timeout = 300)
{
	run_every_op("pocl");
}

Test(builder, every_opcode_runs_rusticl, .timeout = 300)
{
	run_every_op("rusticl");
}

/* The builder reports the first error, naming the call and the instruction, and keeps it. */
Test(builder, errors_name_the_call)
{
	ffu_builder *b = NULL;
	ffu_error e = {0};
	cr_assert_eq(ffu_builder_create(&b, "bad", &e), FFU_STATUS_OK);
	int64_t d4[] = {4}, d8[] = {8};
	ffu_node x = ffu_build_parameter(b, "x", "babybear", 1, d4);
	ffu_node y = ffu_build_parameter(b, "y", "babybear", 1, d8);
	cr_assert(x >= 0 && y >= 0);
	cr_expect_eq(ffu_builder_status(b, &e), FFU_STATUS_OK);
	ffu_node s = ffu_build_add(b, x, y);
	cr_expect_eq(s, FFU_NODE_INVALID);
	cr_expect_eq(ffu_builder_status(b, &e), FFU_STATUS_EVERIFY);
	cr_expect(strstr(e.message, "ffu_build_add: '%add."), "%s", e.message);
	cr_expect(strstr(e.message, "operand 1 ('%y') has shape babybear[8], expected babybear[4]"), "%s", e.message);
	/* sticky: a valid call after the error adds nothing, and finish reports the first error */
	cr_expect_eq(ffu_build_negate(b, x), FFU_NODE_INVALID);
	ffu_program *p = (ffu_program *)1;
	cr_expect_eq(ffu_builder_finish(b, x, &p, &e), FFU_STATUS_EVERIFY);
	cr_expect_null(p);
	cr_expect(strstr(e.message, "ffu_build_add"), "%s", e.message);
	ffu_builder_destroy(&b);

	/* one builder per kind of mistake: each is the first error of its builder */
	struct {
		const char *want_call, *want_text;
		ffu_status want;
	} cases[] = {
		{"ffu_build_parameter", "unknown element type 'babybeer'", FFU_STATUS_EINVAL},
		{"ffu_build_parameter", "already used", FFU_STATUS_EINVAL},
		{"ffu_build_slice", "out of range", FFU_STATUS_EVERIFY},
		{"ffu_build_reduce", "reduce needs a field element type", FFU_STATUS_EVERIFY},
		{"ffu_build_constant", "not less than the babybear modulus", FFU_STATUS_EVERIFY},
		{"ffu_build_constant", "needs 16", FFU_STATUS_EINVAL},
		{"ffu_build_multiply", "operand 1 is FFU_NODE_INVALID", FFU_STATUS_EINVAL},
		{"ffu_build_parameter", "is not an HLO name", FFU_STATUS_EINVAL},
		{"ffu_build_convert", "no conversion from babybear to koalabear", FFU_STATUS_EVERIFY},
		{"ffu_build_broadcast", "sizes must be equal", FFU_STATUS_EVERIFY},
		{"ffu_builder_set_name", "already used", FFU_STATUS_EINVAL},
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		cr_assert_eq(ffu_builder_create(&b, NULL, &e), FFU_STATUS_OK);
		ffu_node u = ffu_build_parameter(b, "u", "u32", 1, d4);
		ffu_node v = ffu_build_parameter(b, "v", "babybear", 1, d4);
		cr_assert(u >= 0 && v >= 0);
		uint32_t lit[4] = {1, 2, BB_P, 3};
		int64_t start[] = {2}, limit[] = {9}, axis[] = {0};
		switch (c) {
		case 0: ffu_build_parameter(b, "w", "babybeer", 1, d4); break;
		case 1: ffu_build_parameter(b, "v", "babybear", 1, d4); break;
		case 2: ffu_build_slice(b, v, start, limit, NULL); break;
		case 3: ffu_build_reduce(b, u, u, axis, 1, FFU_REDUCE_SUM); break;
		case 4: ffu_build_constant(b, "babybear", 1, d4, lit, sizeof lit); break;
		case 5: ffu_build_constant(b, "babybear", 1, d4, lit, 12); break;
		case 6: ffu_build_multiply(b, v, FFU_NODE_INVALID); break;
		case 7: ffu_build_parameter(b, "a b", "babybear", 1, d4); break;
		case 8: ffu_build_convert(b, v, "koalabear"); break;
		case 9: ffu_build_broadcast(b, v, 1, d8, axis, 1); break;
		case 10: ffu_builder_set_name(b, v, "u"); break;
		}
		cr_expect_eq(ffu_builder_status(b, &e), cases[c].want, "case %zu: %d: %s", c, e.status, e.message);
		cr_expect(strncmp(e.message, cases[c].want_call, strlen(cases[c].want_call)) == 0, "case %zu: %s", c,
			  e.message);
		cr_expect(strstr(e.message, cases[c].want_text), "case %zu: '%s' missing from: %s", c, cases[c].want_text,
			  e.message);
		ffu_builder_destroy(&b);
	}
	/* NULL-safety */
	ffu_builder_destroy(NULL);
	ffu_builder_destroy(&b);
	cr_expect_eq(ffu_build_add(NULL, 0, 1), FFU_NODE_INVALID);
	cr_expect_str_eq(ffu_builder_name(NULL, 0), "");
	cr_expect_eq(ffu_builder_status(NULL, &e), FFU_STATUS_EINVAL);
	cr_expect_eq(ffu_builder_create(NULL, "m", &e), FFU_STATUS_EINVAL);
	ffu_error_clear(&e);
}

/* ---------------------------------------------------------------- buffers */

static void buffer_forms(const char *sel)
{
	ffu_device *d = open_ok(sel);
	ffu_error e = {0};
	int64_t n[] = {N};
	uint32_t v[N], back[N], mont[N];
	fill(v, N, KB_P, 3);

	/* koalabear: canonical both ways; Montgomery (x * 2^32 mod p) on the way out and in */
	ffu_buffer *b = buffer_ok(d, "koalabear", 1, n);
	upload_ok(b, v, sizeof v);
	download_ok(b, back, sizeof back);
	cr_expect_eq(memcmp(v, back, sizeof v), 0, "%s: canonical round trip", sel);
	cr_assert_eq(ffu_buffer_download(b, mont, sizeof mont, FFU_FORM_MONTGOMERY, &e), FFU_STATUS_OK, "%s", e.message);
	for (int i = 0; i < N; i++)
		cr_assert_eq(mont[i], (uint32_t)(((uint64_t)v[i] << 32) % KB_P), "%s: element %d in Montgomery form", sel, i);
	memset(back, 0, sizeof back);
	cr_assert_eq(ffu_buffer_upload(b, mont, sizeof mont, FFU_FORM_MONTGOMERY, &e), FFU_STATUS_OK, "%s", e.message);
	download_ok(b, back, sizeof back);
	cr_expect_eq(memcmp(v, back, sizeof v), 0, "%s: Montgomery upload stores the canonical values", sel);

	/*
	 * koalabear_mont stores Montgomery form; the form of a transfer is the host data's, so
	 * Montgomery in and out is a plain copy and canonical in and out converts
	 */
	ffu_buffer *bm = buffer_ok(d, "koalabear_mont", 1, n);
	cr_assert_eq(ffu_buffer_upload(bm, mont, sizeof mont, FFU_FORM_MONTGOMERY, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu_buffer_download(bm, back, sizeof back, FFU_FORM_MONTGOMERY, &e), FFU_STATUS_OK, "%s", e.message);
	cr_expect_eq(memcmp(mont, back, sizeof v), 0, "%s: a _mont buffer holds Montgomery values", sel);
	download_ok(bm, back, sizeof back);
	cr_expect_eq(memcmp(v, back, sizeof v), 0, "%s: a _mont buffer downloads canonical values on request", sel);
	upload_ok(bm, v, sizeof v);
	cr_assert_eq(ffu_buffer_download(bm, back, sizeof back, FFU_FORM_MONTGOMERY, &e), FFU_STATUS_OK, "%s", e.message);
	cr_expect_eq(memcmp(mont, back, sizeof v), 0, "%s: canonical upload into a _mont buffer converts", sel);

	/* rejects: a value >= p names the element; wrong sizes; u32 has no Montgomery form */
	v[17] = KB_P;
	cr_expect_eq(ffu_buffer_upload(b, v, sizeof v, FFU_FORM_CANONICAL, &e), FFU_STATUS_EINVAL);
	cr_expect(strstr(e.message, "element 17"), "%s", e.message);
	cr_expect_eq(ffu_buffer_upload(b, v, sizeof v, FFU_FORM_MONTGOMERY, &e), FFU_STATUS_EINVAL);
	cr_expect(strstr(e.message, "element 17"), "%s", e.message);
	cr_expect_eq(ffu_buffer_upload(b, v, sizeof v - 4, FFU_FORM_CANONICAL, &e), FFU_STATUS_EINVAL);
	cr_expect(strstr(e.message, "koalabear[1000]"), "%s", e.message);
	cr_expect_eq(ffu_buffer_download(b, back, sizeof back + 4, FFU_FORM_CANONICAL, &e), FFU_STATUS_EINVAL);
	ffu_buffer *bu = buffer_ok(d, "u32", 1, n);
	v[17] = 0xffffffffu; /* any u32 is a value */
	upload_ok(bu, v, sizeof v);
	cr_expect_eq(ffu_buffer_upload(bu, v, sizeof v, FFU_FORM_MONTGOMERY, &e), FFU_STATUS_EINVAL);
	cr_expect(strstr(e.message, "no Montgomery form"), "%s", e.message);
	ffu_buffer *none = (ffu_buffer *)1;
	cr_expect_eq(ffu_buffer_create(&none, d, "nosuch", 1, n, &e), FFU_STATUS_EINVAL);
	cr_expect_null(none);

	/* bn254: Montgomery form of 1 is R = 2^256 mod p */
	static const unsigned char r_mod_p[32] = {251, 255, 255, 79, 28, 52, 150, 172, 41, 205, 96, 159, 149, 118, 252, 54,
						  46, 70, 121, 120, 111, 163, 110, 102, 47, 223, 7, 154, 193, 119, 10, 14};
	unsigned char one[2][32] = {{1}, {2}}, got[2][32], canon[2][32];
	int64_t two[] = {2};
	ffu_buffer *bn = buffer_ok(d, "bn254_sf", 1, two);
	upload_ok(bn, one, sizeof one);
	cr_assert_eq(ffu_buffer_download(bn, got, sizeof got, FFU_FORM_MONTGOMERY, &e), FFU_STATUS_OK, "%s", e.message);
	cr_expect_eq(memcmp(got[0], r_mod_p, 32), 0, "%s: Montgomery form of 1 is R mod p", sel);
	cr_assert_eq(ffu_buffer_upload(bn, got, sizeof got, FFU_FORM_MONTGOMERY, &e), FFU_STATUS_OK, "%s", e.message);
	download_ok(bn, canon, sizeof canon);
	cr_expect_eq(memcmp(canon, one, sizeof one), 0, "%s: bn254 Montgomery round trip", sel);

	/* an extension converts coefficient by coefficient */
	int64_t one_elem[] = {1};
	uint32_t x4[4] = {5, 0, 1, BB_P - 1}, x4m[4], x4b[4];
	ffu_buffer *be = buffer_ok(d, "babybearx4", 1, one_elem);
	upload_ok(be, x4, sizeof x4);
	cr_assert_eq(ffu_buffer_download(be, x4m, sizeof x4m, FFU_FORM_MONTGOMERY, &e), FFU_STATUS_OK, "%s", e.message);
	for (int i = 0; i < 4; i++)
		cr_expect_eq(x4m[i], (uint32_t)(((uint64_t)x4[i] << 32) % BB_P), "coefficient %d", i);
	cr_assert_eq(ffu_buffer_upload(be, x4m, sizeof x4m, FFU_FORM_MONTGOMERY, &e), FFU_STATUS_OK, "%s", e.message);
	download_ok(be, x4b, sizeof x4b);
	cr_expect_eq(memcmp(x4, x4b, sizeof x4), 0);

	/* BLS12-381's Fq2, 96-byte elements: 1 in Montgomery form is arkworks' and blst's R =
	   2^384 mod q in each coefficient, and back; q itself in the last coefficient is refused */
	static const unsigned char r384[48] = {
		0xfd, 0xff, 0x02, 0x00, 0x00, 0x00, 0x09, 0x76, 0x02, 0x00, 0x0c, 0xc4, 0x0b, 0x00, 0xf4, 0xeb,
		0xba, 0x58, 0xc7, 0x53, 0x57, 0x98, 0x48, 0x5f, 0x45, 0x57, 0x52, 0x70, 0x53, 0x58, 0xce, 0x77,
		0x6d, 0xec, 0x56, 0xa2, 0x97, 0x1a, 0x07, 0x5c, 0x93, 0xe4, 0x80, 0xfa, 0xc3, 0x5e, 0xf6, 0x15};
	static const unsigned char q381[48] = {
		0xab, 0xaa, 0xff, 0xff, 0xff, 0xff, 0xfe, 0xb9, 0xff, 0xff, 0x53, 0xb1, 0xfe, 0xff, 0xab, 0x1e,
		0x24, 0xf6, 0xb0, 0xf6, 0xa0, 0xd2, 0x30, 0x67, 0xbf, 0x12, 0x85, 0xf3, 0x84, 0x4b, 0x77, 0x64,
		0xd7, 0xac, 0x4b, 0x43, 0xb6, 0xa7, 0x1b, 0x4b, 0x9a, 0xe6, 0x7f, 0x39, 0xea, 0x11, 0x01, 0x1a};
	unsigned char fq2[2][2][48] = {{{1}, {0}}, {{0}, {1}}}, fq2m[2][2][48], fq2b[2][2][48];
	ffu_buffer *bq = buffer_ok(d, "bls12_381_bfx2", 1, two);
	upload_ok(bq, fq2, sizeof fq2);
	cr_assert_eq(ffu_buffer_download(bq, fq2m, sizeof fq2m, FFU_FORM_MONTGOMERY, &e), FFU_STATUS_OK, "%s", e.message);
	cr_expect_eq(memcmp(fq2m[0][0], r384, 48), 0, "%s: 1 in Montgomery form is R = 2^384 mod q", sel);
	cr_expect_eq(memcmp(fq2m[1][1], r384, 48), 0, "%s: u's coefficient 1 is R", sel);
	cr_assert_eq(ffu_buffer_upload(bq, fq2m, sizeof fq2m, FFU_FORM_MONTGOMERY, &e), FFU_STATUS_OK, "%s", e.message);
	download_ok(bq, fq2b, sizeof fq2b);
	cr_expect_eq(memcmp(fq2, fq2b, sizeof fq2), 0, "%s: bls12_381_bfx2 Montgomery round trip", sel);
	memcpy(fq2[1][1], q381, 48);
	cr_expect_eq(ffu_buffer_upload(bq, fq2, sizeof fq2, FFU_FORM_CANONICAL, &e), FFU_STATUS_EINVAL);
	cr_expect(strstr(e.message, "element 1"), "%s", e.message);
	ffu_buffer_destroy(&bq);

	ffu_array_info info;
	cr_assert_eq(ffu_buffer_info(bn, &info), FFU_STATUS_OK);
	cr_expect_str_eq(info.type, "bn254_sf");
	cr_expect_eq(info.bytes, 64);
	cr_expect_eq(ffu_buffer_info(NULL, &info), FFU_STATUS_EINVAL);
	ffu_buffer_destroy(&b);
	ffu_buffer_destroy(&bm);
	ffu_buffer_destroy(&bu);
	ffu_buffer_destroy(&bn);
	ffu_buffer_destroy(&be);
	cr_expect_null(b);
	ffu_buffer_destroy(&b);
	ffu_device_close(&d);
	ffu_error_clear(&e);
}

Test(buffers, forms_pocl, .timeout = 120)
{
	buffer_forms("pocl");
}

Test(buffers, forms_rusticl, .timeout = 120)
{
	buffer_forms("rusticl");
}

/* ---------------------------------------------------------------- runs */

static const char seed_text[] = "HloModule seed\n"
				"ENTRY %main (x: babybear[1000], y: babybear[1000]) -> babybear[1000] {\n"
				"  %x = babybear[1000] parameter(0)\n"
				"  %y = babybear[1000] parameter(1)\n"
				"  %sum = babybear[1000] add(%x, %y)\n"
				"  ROOT %prod = babybear[1000] multiply(%sum, %x)\n"
				"}\n";

static uint32_t bb_seed(uint32_t x, uint32_t y)
{
	return (uint32_t)((((uint64_t)x + y) % BB_P) * x % BB_P);
}

/* The caller's cl_mem objects in the device's own context: wrapped, run on, read directly. */
static void wrap_caller_mem(const char *sel, const char *other)
{
	ffu_device *d = open_ok(sel);
	ffu_program *p = parse_ok(seed_text);
	ffu_executable *x = compile_ok(d, p, NULL);
	ffu_error e = {0};
	cl_int err;
	cl_context ctx = ffu_device_cl_context(d);
	cl_command_queue q = ffu_device_cl_queue(d);
	cr_assert(ctx && q && ffu_device_cl_device(d));
	uint32_t xv[N], yv[N], out[N];
	fill(xv, N, BB_P, 4);
	fill(yv, N, BB_P, 5);
	cl_mem mx = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof xv, NULL, &err);
	cl_mem my = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof yv, yv, &err);
	cl_mem mo = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof out + 64, NULL, &err); /* larger is fine */
	cl_mem small = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 16, NULL, &err);
	cr_assert(mx && my && mo && small);
	cr_assert_eq(clEnqueueWriteBuffer(q, mx, CL_TRUE, 0, sizeof xv, xv, 0, NULL, NULL), CL_SUCCESS);
	int64_t n[] = {N};
	ffu_buffer *bx = NULL, *by = NULL, *bo = NULL, *bad = NULL;
	cr_assert_eq(ffu_buffer_wrap_cl(&bx, d, mx, "babybear", 1, n, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu_buffer_wrap_cl(&by, d, my, "babybear", 1, n, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu_buffer_wrap_cl(&bo, d, mo, "babybear", 1, n, &e), FFU_STATUS_OK, "%s", e.message);
	cr_expect_eq(ffu_buffer_cl_mem(bx), mx, "zero copy: the wrapped object itself");
	/* the buffer holds its own reference: the caller may drop theirs */
	clReleaseMemObject(mx);
	cr_expect_eq(ffu_buffer_wrap_cl(&bad, d, small, "babybear", 1, n, &e), FFU_STATUS_EINVAL);
	cr_expect(strstr(e.message, "holds 16 bytes"), "%s", e.message);
	cr_expect_null(bad);

	const ffu_buffer *in[] = {bx, by};
	cr_assert_eq(ffu_executable_run(x, in, 2, &bo, 1, NULL, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(clEnqueueReadBuffer(q, mo, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL), CL_SUCCESS);
	for (int i = 0; i < N; i++)
		cr_assert_eq(out[i], bb_seed(xv[i], yv[i]), "%s element %d", sel, i);

	/* a cl_mem of another context is refused, naming the remedy */
	ffu_device *d2 = open_ok(other);
	cl_mem foreign = clCreateBuffer(ffu_device_cl_context(d2), CL_MEM_READ_WRITE, sizeof out, NULL, &err);
	cr_assert_not_null(foreign);
	cr_expect_eq(ffu_buffer_wrap_cl(&bad, d, foreign, "babybear", 1, n, &e), FFU_STATUS_EINVAL);
	cr_expect(strstr(e.message, "another OpenCL context"), "%s", e.message);
	clReleaseMemObject(foreign);
	ffu_device_close(&d2);

	ffu_buffer_destroy(&bx);
	ffu_buffer_destroy(&by);
	ffu_buffer_destroy(&bo);
	clReleaseMemObject(my);
	clReleaseMemObject(mo);
	clReleaseMemObject(small);
	ffu_executable_destroy(&x);
	ffu_program_destroy(&p);
	ffu_device_close(&d);
	ffu_error_clear(&e);
}

Test(runs, wrap_caller_mem_pocl, .timeout = 120)
{
	wrap_caller_mem("pocl", "rusticl");
}

Test(runs, wrap_caller_mem_rusticl, .timeout = 120)
{
	wrap_caller_mem("rusticl", "pocl");
}

/*
 * A caller's cl_mem on an unaligned host pointer (CL_MEM_USE_HOST_PTR, 4 bytes past an
 * aligned allocation) as the output of an NTT of 48 MiB: on PoCL with AVX-512 its last
 * pass streams whole vectors past the caches (device/target.c fft_stream_bytes), whose
 * aligned store would fault on this pointer (cl/word31.cl store_at_nt). Its output must
 * equal the same run's into a buffer fieldfuse allocated.
 */
static void unaligned_ntt_output(const char *sel)
{
	enum { ROWS = 3, LEN = 1 << 22 };
	const size_t count = (size_t)ROWS * LEN, bytes = count * sizeof(uint32_t);
	char text[256];
	snprintf(text, sizeof text,
		 "HloModule ntt\nENTRY %%main {\n  %%x = babybear[%d,%d] parameter(0)\n"
		 "  ROOT %%y = babybear[%d,%d] fft(%%x), fft_type=FFT, fft_length=%d\n}\n",
		 ROWS, LEN, ROWS, LEN, LEN);
	ffu_device *d = open_ok(sel);
	ffu_program *p = parse_ok(text);
	ffu_executable *x = compile_ok(d, p, NULL);
	ffu_error e = {0};
	const int64_t dims[] = {ROWS, LEN};
	uint32_t *xv = malloc(bytes), *want = malloc(bytes), *host = aligned_alloc(64, bytes + 64);
	cr_assert(xv && want && host);
	fill(xv, count, BB_P, 9);
	ffu_buffer *bx = buffer_ok(d, "babybear", 2, dims), *by = buffer_ok(d, "babybear", 2, dims), *bu = NULL;
	upload_ok(bx, xv, bytes);
	const ffu_buffer *in[] = {bx};
	cr_assert_eq(ffu_executable_run(x, in, 1, &by, 1, NULL, &e), FFU_STATUS_OK, "%s", e.message);
	download_ok(by, want, bytes);
	cl_int err;
	cl_mem mu = clCreateBuffer(ffu_device_cl_context(d), CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, host + 1,
				   &err);
	cr_assert_eq(err, CL_SUCCESS, "clCreateBuffer(CL_MEM_USE_HOST_PTR): %d", err);
	cr_assert_eq(ffu_buffer_wrap_cl(&bu, d, mu, "babybear", 2, dims, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu_executable_run(x, in, 1, &bu, 1, NULL, &e), FFU_STATUS_OK, "%s", e.message);
	memset(xv, 0, bytes);
	download_ok(bu, xv, bytes);
	cr_assert(memcmp(xv, want, bytes) == 0, "%s: the unaligned output differs", sel);
	ffu_buffer_destroy(&bu);
	clReleaseMemObject(mu);
	ffu_buffer_destroy(&bx);
	ffu_buffer_destroy(&by);
	free(xv);
	free(want);
	free(host);
	ffu_executable_destroy(&x);
	ffu_program_destroy(&p);
	ffu_device_close(&d);
	ffu_error_clear(&e);
}

Test(runs, unaligned_ntt_output_pocl, .timeout = 300)
{
	unaligned_ntt_output("pocl");
}

Test(runs, unaligned_ntt_output_rusticl, .timeout = 300)
{
	unaligned_ntt_output("rusticl");
}

/*
 * The caller's own context and in-order queue (no profiling): fieldfuse adopts the context,
 * runs on the caller's queue, and the caller reads the result on that queue after the event.
 */
static void adopt_caller_context(const char *sel, const char *other)
{
	ffu_device *probe = open_ok(sel), *probe2 = open_ok(other);
	cl_device_id dev = ffu_device_cl_device(probe);
	cl_int err;
	cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
	cr_assert_eq(err, CL_SUCCESS, "clCreateContext: %d", err);
	cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
	cr_assert_eq(err, CL_SUCCESS);
	ffu_error e = {0};
	ffu_device *d = NULL;
	cr_assert_eq(ffu_device_adopt(&d, ctx, dev, &e), FFU_STATUS_OK, "%s", e.message);
	cr_expect_eq(ffu_device_cl_context(d), ctx);
	cr_expect_str_eq(ffu_device_name(d), ffu_device_name(probe));
	/* a device the context does not hold */
	ffu_device *bad = (ffu_device *)1;
	cr_expect_eq(ffu_device_adopt(&bad, ctx, ffu_device_cl_device(probe2), &e), FFU_STATUS_EINVAL, "%s", e.message);
	cr_expect_null(bad);

	ffu_program *p = parse_ok(seed_text);
	ffu_executable *x = compile_ok(d, p, NULL);
	uint32_t xv[N], yv[N], out[N];
	fill(xv, N, BB_P, 6);
	fill(yv, N, BB_P, 7);
	cl_mem mx = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof xv, xv, &err);
	cl_mem my = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof yv, yv, &err);
	cl_mem mo = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof out, NULL, &err);
	int64_t n[] = {N};
	ffu_buffer *bx, *by, *bo;
	cr_assert_eq(ffu_buffer_wrap_cl(&bx, d, mx, "babybear", 1, n, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu_buffer_wrap_cl(&by, d, my, "babybear", 1, n, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu_buffer_wrap_cl(&bo, d, mo, "babybear", 1, n, &e), FFU_STATUS_OK, "%s", e.message);
	const ffu_buffer *in[] = {bx, by};
	cl_event done = NULL;
	cr_assert_eq(ffu_executable_enqueue_cl(x, q, in, 2, &bo, 1, &done, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_not_null(done);
	cr_assert_eq(clWaitForEvents(1, &done), CL_SUCCESS);
	clReleaseEvent(done);
	cr_assert_eq(clEnqueueReadBuffer(q, mo, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL), CL_SUCCESS);
	for (int i = 0; i < N; i++)
		cr_assert_eq(out[i], bb_seed(xv[i], yv[i]), "%s element %d", sel, i);
	/* without an event, ordered by the queue itself */
	memset(out, 0, sizeof out);
	cr_assert_eq(clEnqueueWriteBuffer(q, mo, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL), CL_SUCCESS);
	cr_assert_eq(ffu_executable_enqueue_cl(x, q, in, 2, &bo, 1, NULL, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(clEnqueueReadBuffer(q, mo, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL), CL_SUCCESS);
	cr_expect_eq(out[N - 1], bb_seed(xv[N - 1], yv[N - 1]));
	/* and the synchronous run on fieldfuse's own queue in the same context, with statistics */
	ffu_run_stats stats;
	cr_assert_eq(ffu_executable_run(x, in, 2, &bo, 1, &stats, &e), FFU_STATUS_OK, "%s", e.message);
	cr_expect_eq(stats.kernels, 1);
	cr_expect_geq(stats.host_ms, 0.0);

	ffu_buffer_destroy(&bx);
	ffu_buffer_destroy(&by);
	ffu_buffer_destroy(&bo);
	ffu_executable_destroy(&x);
	ffu_device_close(&d);
	/* everything of ours is gone; the caller's objects still work */
	cr_assert_eq(clEnqueueReadBuffer(q, mo, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL), CL_SUCCESS);
	clReleaseMemObject(mx);
	clReleaseMemObject(my);
	clReleaseMemObject(mo);
	clReleaseCommandQueue(q);
	clReleaseContext(ctx);
	ffu_program_destroy(&p);
	ffu_device_close(&probe);
	ffu_device_close(&probe2);
	ffu_error_clear(&e);
}

Test(runs, adopt_caller_context_pocl, .timeout = 120)
{
	adopt_caller_context("pocl", "rusticl");
}

Test(runs, adopt_caller_context_rusticl, .timeout = 120)
{
	adopt_caller_context("rusticl", "pocl");
}

/* Three executables chained on the device: y = x^2 - x, z = y + x (fused differently), s = sum z. */
static const char square_text[] = "HloModule square\n"
				  "ENTRY %main (x: koalabear[1000]) -> koalabear[1000] {\n"
				  "  %x = koalabear[1000] parameter(0)\n"
				  "  %xx = koalabear[1000] multiply(%x, %x)\n"
				  "  ROOT %y = koalabear[1000] subtract(%xx, %x)\n"
				  "}\n";
static const char add_text[] = "HloModule addx\n"
			       "ENTRY %main (y: koalabear[1000], x: koalabear[1000]) -> (koalabear[1000], koalabear[1000]) {\n"
			       "  %y = koalabear[1000] parameter(0)\n"
			       "  %x = koalabear[1000] parameter(1)\n"
			       "  %z = koalabear[1000] add(%y, %x)\n"
			       "  %w = koalabear[1000] multiply(%z, %z)\n"
			       "  ROOT %t = (koalabear[1000], koalabear[1000]) tuple(%z, %w)\n"
			       "}\n";
static const char sum_text[] = "HloModule total\n"
			       "%add (a: koalabear[], b: koalabear[]) -> koalabear[] {\n"
			       "  %a = koalabear[] parameter(0)\n"
			       "  %b = koalabear[] parameter(1)\n"
			       "  ROOT %c = koalabear[] add(%a, %b)\n"
			       "}\n"
			       "ENTRY %main (z: koalabear[1000], w: koalabear[1000]) -> (koalabear[], koalabear[]) {\n"
			       "  %z = koalabear[1000] parameter(0)\n"
			       "  %w = koalabear[1000] parameter(1)\n"
			       "  %zero = koalabear[] constant(0)\n"
			       "  %sz = koalabear[] reduce(%z, %zero), dimensions={0}, to_apply=%add\n"
			       "  %sw = koalabear[] reduce(%w, %zero), dimensions={0}, to_apply=%add\n"
			       "  ROOT %t = (koalabear[], koalabear[]) tuple(%sz, %sw)\n"
			       "}\n";

typedef struct chain {
	ffu_program *p[3];
	ffu_executable *x[3];
	ffu_buffer *bx, *by, *bz, *bw, *bs[2];
	uint32_t xv[N], want[2];
} chain;

static void chain_open(chain *c, ffu_device *d)
{
	memset(c, 0, sizeof *c);
	const char *texts[] = {square_text, add_text, sum_text};
	for (int i = 0; i < 3; i++) {
		c->p[i] = parse_ok(texts[i]);
		c->x[i] = compile_ok(d, c->p[i], NULL);
	}
	int64_t n[] = {N};
	c->bx = buffer_ok(d, "koalabear", 1, n);
	c->by = buffer_ok(d, "koalabear", 1, n);
	c->bz = buffer_ok(d, "koalabear", 1, n);
	c->bw = buffer_ok(d, "koalabear", 1, n);
	c->bs[0] = buffer_ok(d, "koalabear", 0, NULL);
	c->bs[1] = buffer_ok(d, "koalabear", 0, NULL);
	fill(c->xv, N, KB_P, 8);
	upload_ok(c->bx, c->xv, sizeof c->xv);
	/* the oracle: the same three programs on the interpreter, through host memory */
	uint32_t y[N], z[N], w[N];
	ffu_error e = {0};
	cr_assert_eq(ffu_program_interpret(c->p[0], (const void *const[]){c->xv}, (void *const[]){y}, &e), FFU_STATUS_OK);
	cr_assert_eq(ffu_program_interpret(c->p[1], (const void *const[]){y, c->xv}, (void *const[]){z, w}, &e),
		     FFU_STATUS_OK);
	cr_assert_eq(ffu_program_interpret(c->p[2], (const void *const[]){z, w}, (void *const[]){&c->want[0], &c->want[1]},
					   &e),
		     FFU_STATUS_OK);
}

static void chain_close(chain *c)
{
	ffu_buffer *bs[] = {c->bx, c->by, c->bz, c->bw, c->bs[0], c->bs[1]};
	for (int i = 0; i < 6; i++)
		ffu_buffer_destroy(&bs[i]);
	for (int i = 0; i < 3; i++) {
		ffu_executable_destroy(&c->x[i]);
		ffu_program_destroy(&c->p[i]);
	}
}

static void chain_on_device(const char *sel)
{
	ffu_device *d = open_ok(sel);
	chain c;
	chain_open(&c, d);
	ffu_error e = {0};
	for (int rep = 0; rep < 3; rep++) {
		/* nothing touches the host between the runs: outputs are the next inputs */
		cr_assert_eq(ffu_executable_run(c.x[0], (const ffu_buffer *[]){c.bx}, 1, &c.by, 1, NULL, &e), FFU_STATUS_OK,
			     "%s", e.message);
		cr_assert_eq(ffu_executable_run(c.x[1], (const ffu_buffer *[]){c.by, c.bx}, 2, (ffu_buffer *[]){c.bz, c.bw}, 2,
						NULL, &e),
			     FFU_STATUS_OK, "%s", e.message);
		cr_assert_eq(ffu_executable_run(c.x[2], (const ffu_buffer *[]){c.bz, c.bw}, 2, c.bs, 2, NULL, &e),
			     FFU_STATUS_OK, "%s", e.message);
		uint32_t s[2];
		download_ok(c.bs[0], &s[0], 4);
		download_ok(c.bs[1], &s[1], 4);
		cr_expect_eq(s[0], c.want[0], "%s: sum z: device %u, interpreter %u", sel, s[0], c.want[0]);
		cr_expect_eq(s[1], c.want[1], "%s: sum w: device %u, interpreter %u", sel, s[1], c.want[1]);
	}
	chain_close(&c);
	ffu_device_close(&d);
	ffu_error_clear(&e);
}

Test(runs, chain_on_device_pocl, .timeout = 120)
{
	chain_on_device("pocl");
}

Test(runs, chain_on_device_rusticl, .timeout = 120)
{
	chain_on_device("rusticl");
}

typedef struct waiter {
	ffu_event *ev;
	ffu_status st;
} waiter;

static void *wait_in_thread(void *arg)
{
	waiter *w = arg;
	w->st = ffu_event_wait(w->ev, NULL);
	return NULL;
}

/* The chain enqueued without waiting: events, their status, a wait from another thread. */
static void async_chain(const char *sel)
{
	ffu_device *d = open_ok(sel);
	chain c;
	chain_open(&c, d);
	ffu_error e = {0};
	ffu_event *ev[3] = {NULL};
	for (int rep = 0; rep < 2; rep++) {
		cr_assert_eq(ffu_executable_enqueue(c.x[0], (const ffu_buffer *[]){c.bx}, 1, &c.by, 1, &ev[0], &e),
			     FFU_STATUS_OK, "%s", e.message);
		cr_assert_eq(ffu_executable_enqueue(c.x[1], (const ffu_buffer *[]){c.by, c.bx}, 2, (ffu_buffer *[]){c.bz, c.bw},
						    2, &ev[1], &e),
			     FFU_STATUS_OK, "%s", e.message);
		/* no event wanted for the last one: the queue orders the download after it */
		cr_assert_eq(ffu_executable_enqueue(c.x[2], (const ffu_buffer *[]){c.bz, c.bw}, 2, c.bs, 2,
						    rep == 0 ? &ev[2] : NULL, &e),
			     FFU_STATUS_OK, "%s", e.message);
		if (rep == 0) {
			waiter w = {ev[2], FFU_STATUS_EINVAL};
			pthread_t th;
			cr_assert_eq(pthread_create(&th, NULL, wait_in_thread, &w), 0);
			pthread_join(th, NULL);
			cr_assert_eq(w.st, FFU_STATUS_OK);
			int complete = 0;
			for (int i = 0; i < 3; i++) {
				cr_assert_eq(ffu_event_status(ev[i], &complete, &e), FFU_STATUS_OK, "%s", e.message);
				cr_expect_eq(complete, 1, "run %d complete once the last one is (in-order queue)", i);
				cr_expect_not_null(ffu_event_cl(ev[i]));
			}
		} else {
			cr_assert_eq(ffu_event_wait(ev[1], &e), FFU_STATUS_OK, "%s", e.message);
		}
		uint32_t s[2];
		download_ok(c.bs[0], &s[0], 4);
		download_ok(c.bs[1], &s[1], 4);
		cr_expect_eq(s[0], c.want[0], "%s run %d: sum z", sel, rep);
		cr_expect_eq(s[1], c.want[1], "%s run %d: sum w", sel, rep);
		for (int i = 0; i < 3; i++)
			ffu_event_destroy(&ev[i]);
		cr_expect_null(ev[0]);
	}
	cr_assert_eq(ffu_device_finish(d, &e), FFU_STATUS_OK);
	chain_close(&c);
	ffu_device_close(&d);
	ffu_error_clear(&e);
}

Test(runs, async_chain_pocl, .timeout = 120)
{
	async_chain("pocl");
}

Test(runs, async_chain_rusticl, .timeout = 120)
{
	async_chain("rusticl");
}

/* ---------------------------------------------------------------- argument checks */

static void argument_mismatch(const char *sel, const char *other)
{
	ffu_device *d = open_ok(sel), *d2 = open_ok(other);
	ffu_program *p = parse_ok(seed_text);
	ffu_executable *x = compile_ok(d, p, NULL);
	ffu_error e = {0};
	int64_t n[] = {N}, short_n[] = {N - 1};
	ffu_buffer *bx = buffer_ok(d, "babybear", 1, n), *by = buffer_ok(d, "babybear", 1, n),
		   *bo = buffer_ok(d, "babybear", 1, n);
	ffu_buffer *b_short = buffer_ok(d, "babybear", 1, short_n), *b_kb = buffer_ok(d, "koalabear", 1, n),
		   *b_foreign = buffer_ok(d2, "babybear", 1, n);
	const ffu_buffer *in[] = {bx, by};

	cr_expect_eq(ffu_executable_num_inputs(x), 2);
	cr_expect_eq(ffu_executable_num_outputs(x), 1);
	ffu_array_info info;
	cr_assert_eq(ffu_executable_input(x, 1, &info), FFU_STATUS_OK);
	cr_expect_str_eq(info.name, "y");
	cr_assert_eq(ffu_executable_output(x, 0, &info), FFU_STATUS_OK);
	cr_expect_str_eq(info.name, "prod");
	cr_expect_eq(ffu_executable_input(x, 2, &info), FFU_STATUS_EINVAL);

	cr_expect_eq(ffu_executable_run(x, in, 1, &bo, 1, NULL, &e), FFU_STATUS_ESIGNATURE);
	cr_expect(strstr(e.message, "takes 2 inputs and 1 output; 1 and 1 given"), "%s", e.message);
	cr_expect_eq(ffu_executable_run(x, (const ffu_buffer *[]){bx, b_short}, 2, &bo, 1, NULL, &e),
		     FFU_STATUS_ESIGNATURE);
	cr_expect(strstr(e.message, "input 1 (y): expected babybear[1000], got babybear[999]"), "%s", e.message);
	cr_expect_eq(ffu_executable_run(x, (const ffu_buffer *[]){b_kb, by}, 2, &bo, 1, NULL, &e), FFU_STATUS_ESIGNATURE);
	cr_expect(strstr(e.message, "input 0 (x): expected babybear[1000], got koalabear[1000]"), "%s", e.message);
	cr_expect_eq(ffu_executable_run(x, in, 2, &b_short, 1, NULL, &e), FFU_STATUS_ESIGNATURE);
	cr_expect(strstr(e.message, "output 0 (prod)"), "%s", e.message);
	cr_expect_eq(ffu_executable_run(x, (const ffu_buffer *[]){bx, NULL}, 2, &bo, 1, NULL, &e), FFU_STATUS_EINVAL);
	cr_expect(strstr(e.message, "input 1 (y) is NULL"), "%s", e.message);
	cr_expect_eq(ffu_executable_run(x, in, 2, (ffu_buffer *[]){by}, 1, NULL, &e), FFU_STATUS_EINVAL);
	cr_expect(strstr(e.message, "same buffer as input 1"), "%s", e.message);
	cr_expect_eq(ffu_executable_run(x, (const ffu_buffer *[]){bx, b_foreign}, 2, &bo, 1, NULL, &e), FFU_STATUS_EINVAL);
	cr_expect(strstr(e.message, "another OpenCL context"), "%s", e.message);
	cr_expect_eq(ffu_executable_run(NULL, in, 2, &bo, 1, NULL, &e), FFU_STATUS_EINVAL);
	cr_expect_eq(ffu_executable_run(x, NULL, 2, &bo, 1, NULL, &e), FFU_STATUS_EINVAL);
	cr_expect_eq(ffu_executable_enqueue(x, in, 2, &b_short, 1, NULL, &e), FFU_STATUS_ESIGNATURE);

	/* the caller's queue must be on the executable's context and in order */
	cl_int err;
	cl_command_queue foreign_q = ffu_device_cl_queue(d2);
	cr_expect_eq(ffu_executable_enqueue_cl(x, foreign_q, in, 2, &bo, 1, NULL, &e), FFU_STATUS_EINVAL);
	cr_expect(strstr(e.message, "not on the executable's context"), "%s", e.message);
	cl_queue_properties ooo[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
	cl_command_queue oq = clCreateCommandQueueWithProperties(ffu_device_cl_context(d), ffu_device_cl_device(d), ooo,
								  &err);
	if (err == CL_SUCCESS) { /* a driver may not offer out-of-order queues at all */
		cr_expect_eq(ffu_executable_enqueue_cl(x, oq, in, 2, &bo, 1, NULL, &e), FFU_STATUS_EINVAL);
		cr_expect(strstr(e.message, "out-of-order"), "%s", e.message);
		clReleaseCommandQueue(oq);
	} else {
		cr_expect_eq(err, CL_INVALID_QUEUE_PROPERTIES, "creating an out-of-order queue: %d", err);
	}

	/* after all the refusals, a good run still works */
	uint32_t xv[N], yv[N], out[N];
	fill(xv, N, BB_P, 9);
	fill(yv, N, BB_P, 10);
	upload_ok(bx, xv, sizeof xv);
	upload_ok(by, yv, sizeof yv);
	cr_assert_eq(ffu_executable_run(x, in, 2, &bo, 1, NULL, &e), FFU_STATUS_OK, "%s", e.message);
	download_ok(bo, out, sizeof out);
	for (int i = 0; i < N; i++)
		cr_assert_eq(out[i], bb_seed(xv[i], yv[i]), "element %d", i);

	ffu_buffer *bs[] = {bx, by, bo, b_short, b_kb, b_foreign};
	for (int i = 0; i < 6; i++)
		ffu_buffer_destroy(&bs[i]);
	ffu_executable_destroy(&x);
	ffu_program_destroy(&p);
	ffu_device_close(&d);
	ffu_device_close(&d2);
	ffu_error_clear(&e);
}

Test(args, mismatch_pocl, .timeout = 120)
{
	argument_mismatch("pocl", "rusticl");
}

Test(args, mismatch_rusticl, .timeout = 120)
{
	argument_mismatch("rusticl", "pocl");
}

Test(args, null_safety)
{
	ffu_executable_destroy(NULL);
	ffu_buffer_destroy(NULL);
	ffu_event_destroy(NULL);
	ffu_executable *x = NULL;
	ffu_buffer *b = NULL;
	ffu_event *ev = NULL;
	ffu_executable_destroy(&x);
	ffu_buffer_destroy(&b);
	ffu_event_destroy(&ev);
	cr_expect_eq(ffu_executable_num_inputs(NULL), 0);
	cr_expect_eq(ffu_executable_num_outputs(NULL), 0);
	cr_expect_eq(ffu_executable_kernel_count(NULL), 0);
	cr_expect_eq(ffu_executable_peak_bytes(NULL), 0);
	ffu_memory_plan plan;
	cr_expect_eq(ffu_executable_memory(NULL, &plan), FFU_STATUS_EINVAL);
	cr_expect_null(ffu_buffer_cl_mem(NULL));
	cr_expect_null(ffu_device_cl_context(NULL));
	cr_expect_null(ffu_event_cl(NULL));
	cr_expect_eq(ffu_event_wait(NULL, NULL), FFU_STATUS_EINVAL);
	int complete;
	cr_expect_eq(ffu_event_status(NULL, &complete, NULL), FFU_STATUS_EINVAL);
	cr_expect_eq(ffu_executable_create(NULL, NULL, NULL, NULL, NULL), FFU_STATUS_EINVAL);
	cr_expect_eq(ffu_executable_create(&x, NULL, NULL, NULL, NULL), FFU_STATUS_EINVAL);
	cr_expect_null(x);
	int64_t n[] = {4};
	cr_expect_eq(ffu_buffer_create(&b, NULL, "babybear", 1, n, NULL), FFU_STATUS_EINVAL);
	cr_expect_eq(ffu_buffer_upload(NULL, n, 4, FFU_FORM_CANONICAL, NULL), FFU_STATUS_EINVAL);
	cr_expect_eq(ffu_device_finish(NULL, NULL), FFU_STATUS_EINVAL);
	cr_expect_eq(ffu_device_adopt(&((ffu_device *){NULL}), NULL, NULL, NULL), FFU_STATUS_EINVAL);
}

/* ---------------------------------------------------------------- the memory plan */

/* x -> six element-wise ops in a row, one kernel each (no_fuse): each intermediate dies after the next op. */
static ffu_program *build_chain(int64_t n)
{
	ffu_builder *b = NULL;
	cr_assert_eq(ffu_builder_create(&b, "chain", NULL), FFU_STATUS_OK);
	ffu_node x = ffu_build_parameter(b, "x", "babybear", 1, &n);
	ffu_node v = ffu_build_negate(b, x);
	v = ffu_build_add(b, v, x);
	v = ffu_build_multiply(b, v, v);
	v = ffu_build_subtract(b, v, x);
	v = ffu_build_multiply(b, v, x);
	v = ffu_build_add(b, v, v);
	ffu_program *p = NULL;
	ffu_error e = {0};
	cr_assert_eq(ffu_builder_finish(b, v, &p, &e), FFU_STATUS_OK, "%s", e.message);
	ffu_builder_destroy(&b);
	return p;
}

static void memory_plan(const char *sel)
{
	enum { M = 1 << 16 };
	const size_t B = (size_t)M * 4;
	ffu_device *d = open_ok(sel);
	ffu_program *p = build_chain(M);
	ffu_compile_options shared = {.no_fuse = 1}, unshared = {.no_fuse = 1, .no_buffer_reuse = 1};
	ffu_executable *xs = compile_ok(d, p, &shared), *xu = compile_ok(d, p, &unshared), *xf = compile_ok(d, p, NULL);
	ffu_memory_plan ps, pu, pf;
	cr_assert_eq(ffu_executable_memory(xs, &ps), FFU_STATUS_OK);
	cr_assert_eq(ffu_executable_memory(xu, &pu), FFU_STATUS_OK);
	cr_assert_eq(ffu_executable_memory(xf, &pf), FFU_STATUS_OK);
	cr_expect_eq(ffu_executable_kernel_count(xs), 6);
	/* five intermediates; at most two alive at once (the one read and the one written) */
	cr_expect_eq(ps.intermediates, 5);
	cr_expect_eq(ps.unshared_bytes, 5 * B);
	cr_expect_eq(ps.live_bytes, 2 * B);
	cr_expect_eq(ps.buffers, 2, "ping-pong: %d buffers", ps.buffers);
	cr_expect_eq(ps.shared_bytes, 2 * B);
	cr_expect_eq(ps.io_bytes, 2 * B);
	cr_expect_eq(ps.peak_bytes, 4 * B);
	cr_expect_eq(ffu_executable_peak_bytes(xs), 4 * B);
	cr_expect_eq(pu.buffers, 5);
	cr_expect_eq(pu.shared_bytes, 5 * B);
	cr_expect_eq(pu.peak_bytes, 7 * B);
	/* fused: one kernel, no intermediate in global memory at all */
	cr_expect_eq(ffu_executable_kernel_count(xf), 1);
	cr_expect_eq(pf.intermediates, 0);
	cr_expect_eq(pf.peak_bytes, 2 * B);

	/* all three compute the same as the interpreter */
	uint32_t *xv = malloc(B), *ref = malloc(B), *out = malloc(B);
	cr_assert(xv && ref && out);
	fill(xv, M, BB_P, 11);
	ffu_error e = {0};
	cr_assert_eq(ffu_program_interpret(p, (const void *const[]){xv}, (void *const[]){ref}, &e), FFU_STATUS_OK);
	ffu_executable *xx[] = {xs, xu, xf};
	for (int i = 0; i < 3; i++) {
		ffu_buffer *bi = NULL, *bo = NULL;
		cr_assert_eq(ffu_buffer_create_input(&bi, xx[i], 0, &e), FFU_STATUS_OK);
		cr_assert_eq(ffu_buffer_create_output(&bo, xx[i], 0, &e), FFU_STATUS_OK);
		upload_ok(bi, xv, B);
		memset(out, 0, B);
		for (int rep = 0; rep < 2; rep++)
			cr_assert_eq(ffu_executable_run(xx[i], (const ffu_buffer *[]){bi}, 1, &bo, 1, NULL, &e), FFU_STATUS_OK,
				     "%s", e.message);
		download_ok(bo, out, B);
		cr_expect_eq(memcmp(out, ref, B), 0, "%s: executable %d differs from the interpreter", sel, i);
		ffu_buffer_destroy(&bi);
		ffu_buffer_destroy(&bo);
		ffu_executable_destroy(&xx[i]);
	}
	free(xv);
	free(ref);
	free(out);
	ffu_program_destroy(&p);
	ffu_device_close(&d);
}

Test(plan, shared_buffers_pocl, .timeout = 120)
{
	memory_plan("pocl");
}

Test(plan, shared_buffers_rusticl, .timeout = 120)
{
	memory_plan("rusticl");
}

/* A program whose output is a parameter and a value returned twice: copies after the kernels. */
Test(plan, outputs_copied_where_needed, .timeout = 120)
{
	static const char text[] = "HloModule pass\n"
				   "ENTRY %main (x: babybear[1000]) -> (babybear[1000], babybear[1000], babybear[1000]) {\n"
				   "  %x = babybear[1000] parameter(0)\n"
				   "  %n = babybear[1000] negate(%x)\n"
				   "  ROOT %t = (babybear[1000], babybear[1000], babybear[1000]) tuple(%x, %n, %n)\n"
				   "}\n";
	for (int k = 0; k < 2; k++) {
		ffu_device *d = open_ok(ffu_test_devices[k]);
		ffu_program *p = parse_ok(text);
		ffu_executable *x = compile_ok(d, p, NULL);
		int64_t n[] = {N};
		ffu_buffer *bi = buffer_ok(d, "babybear", 1, n), *bo[3];
		for (int o = 0; o < 3; o++)
			bo[o] = buffer_ok(d, "babybear", 1, n);
		uint32_t xv[N], out[N];
		fill(xv, N, BB_P, 12);
		upload_ok(bi, xv, sizeof xv);
		ffu_error e = {0};
		cr_assert_eq(ffu_executable_run(x, (const ffu_buffer *[]){bi}, 1, bo, 3, NULL, &e), FFU_STATUS_OK, "%s",
			     e.message);
		for (int o = 0; o < 3; o++) {
			download_ok(bo[o], out, sizeof out);
			for (int i = 0; i < N; i++)
				cr_assert_eq(out[i], o == 0 ? xv[i] : xv[i] ? BB_P - xv[i] : 0, "%s output %d element %d",
					     ffu_test_devices[k], o, i);
		}
		ffu_buffer_destroy(&bi);
		for (int o = 0; o < 3; o++)
			ffu_buffer_destroy(&bo[o]);
		ffu_executable_destroy(&x);
		ffu_program_destroy(&p);
		ffu_device_close(&d);
	}
}

/* ---------------------------------------------------------------- driver failures */

/*
 * Failing OpenCL calls (FIELDFUSE_FAULT, read once per process: Criterion runs each test in
 * its own) come back as FFU_STATUS_ECL naming the call and the code; nothing is left half in
 * flight and everything is still released (the sanitizer run checks the leaks).
 */
Test(faults, launch_failure_mid_run, .timeout = 120)
{
	/* the third launch of the process fails, and every one after it */
	cr_assert_eq(setenv("FIELDFUSE_FAULT", "clEnqueueNDRangeKernel:CL_OUT_OF_RESOURCES:2", 1), 0);
	ffu_device *d = open_ok("pocl");
	chain c;
	chain_open(&c, d);
	ffu_error e = {0};
	ffu_status st = ffu_executable_run(c.x[0], (const ffu_buffer *[]){c.bx}, 1, &c.by, 1, NULL, &e);
	if (st == FFU_STATUS_OK)
		st = ffu_executable_run(c.x[1], (const ffu_buffer *[]){c.by, c.bx}, 2, (ffu_buffer *[]){c.bz, c.bw}, 2, NULL,
					&e);
	if (st == FFU_STATUS_OK)
		st = ffu_executable_run(c.x[2], (const ffu_buffer *[]){c.bz, c.bw}, 2, c.bs, 2, NULL, &e);
	cr_expect_eq(st, FFU_STATUS_ECL, "status %d: %s", st, e.message);
	cr_expect_str_eq(e.cl_call, "clEnqueueNDRangeKernel");
	cr_expect(strstr(e.message, "CL_OUT_OF_RESOURCES"), "%s", e.message);
	ffu_event *ev = (ffu_event *)1;
	cr_expect_eq(ffu_executable_enqueue(c.x[0], (const ffu_buffer *[]){c.bx}, 1, &c.by, 1, &ev, &e), FFU_STATUS_ECL);
	cr_expect_null(ev, "no event for a run that was not enqueued");
	cr_expect_eq(ffu_device_finish(d, &e), FFU_STATUS_OK, "%s", e.message);
	chain_close(&c);
	ffu_device_close(&d);
	ffu_error_clear(&e);
}

Test(faults, marker_wrap_and_buffer_failures, .timeout = 120)
{
	cr_assert_eq(setenv("FIELDFUSE_FAULT",
			    "clEnqueueMarkerWithWaitList:CL_OUT_OF_HOST_MEMORY,clRetainMemObject:CL_INVALID_MEM_OBJECT,"
			    "clCreateBuffer:CL_MEM_OBJECT_ALLOCATION_FAILURE:12",
			    1),
		     0);
	ffu_device *d = open_ok("pocl");
	ffu_program *p = parse_ok(seed_text);
	ffu_executable *x = compile_ok(d, p, NULL);
	ffu_error e = {0};
	int64_t n[] = {N};
	ffu_buffer *b[3] = {NULL};
	for (int i = 0; i < 3; i++)
		cr_assert_eq(ffu_buffer_create(&b[i], d, "babybear", 1, n, &e), FFU_STATUS_OK, "%s", e.message);
	/* the run is enqueued and then waited for; the marker for its event fails */
	ffu_event *ev = (ffu_event *)1;
	ffu_status st = ffu_executable_enqueue(x, (const ffu_buffer *[]){b[0], b[1]}, 2, &b[2], 1, &ev, &e);
	cr_expect_eq(st, FFU_STATUS_ECL, "%s", e.message);
	cr_expect_str_eq(e.cl_call, "clEnqueueMarkerWithWaitList");
	cr_expect_null(ev);
	/* wrapping: the retain fails */
	cl_int err;
	cl_mem m = clCreateBuffer(ffu_device_cl_context(d), CL_MEM_READ_WRITE, 4 * N, NULL, &err);
	ffu_buffer *w = (ffu_buffer *)1;
	cr_expect_eq(ffu_buffer_wrap_cl(&w, d, m, "babybear", 1, n, &e), FFU_STATUS_ECL);
	cr_expect_str_eq(e.cl_call, "clRetainMemObject");
	cr_expect_null(w);
	clReleaseMemObject(m);
	/* allocation: buffers until the injected failure */
	ffu_buffer *more[16] = {NULL};
	st = FFU_STATUS_OK;
	for (int i = 0; i < 16 && st == FFU_STATUS_OK; i++)
		st = ffu_buffer_create(&more[i], d, "babybear", 1, n, &e);
	cr_expect_eq(st, FFU_STATUS_ECL);
	cr_expect_str_eq(e.cl_call, "clCreateBuffer");
	for (int i = 0; i < 16; i++)
		ffu_buffer_destroy(&more[i]);
	for (int i = 0; i < 3; i++)
		ffu_buffer_destroy(&b[i]);
	ffu_executable_destroy(&x);
	ffu_program_destroy(&p);
	ffu_device_close(&d);
	ffu_error_clear(&e);
}
