/*
 * tests/test_api.c: the public API (include/fieldfuse/fieldfuse.h) used only through its
 * public header, as a program outside the tree would: parse errors with positions, the
 * print round trip, input/output descriptions, runs on PoCL and on Rusticl compared with
 * the interpreter and with values computed here in plain 64-bit arithmetic, rejection of
 * non-canonical inputs (and u32 inputs, where every bit pattern is valid), NULL-safety,
 * device selection failures, and sharing one program between threads. A missing device
 * fails a test; nothing is skipped.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fieldfuse/fieldfuse.h"
#include "support.h"

#define BB_P 0x78000001u

enum { N = 1000 }; /* not a multiple of any work-group size: exercises the tail launch */

static const char seed_text[] =
	"// (x + y) * x, written with the optional pieces a user may paste: comments, layouts\n"
	"HloModule seed\n"
	"\n"
	"ENTRY %main (x: babybear[1000], y: babybear[1000]) -> babybear[1000] {\n"
	"  %x = babybear[1000]{0} parameter(0)\n"
	"  y = babybear[1000] parameter(1) /* no sigil */\n"
	"  %sum = babybear[1000] add(babybear[1000] %x, %y)\n"
	"  ROOT %prod = babybear[1000] multiply(%sum, %x)\n"
	"}\n";

/* Three outputs from one multi-output fusion: x + y, (x + y) * (x - y), x - y. */
static const char tuple_text[] =
	"HloModule tuple_out\n"
	"ENTRY %main (x: babybear[1000], y: babybear[1000]) -> (babybear[1000], babybear[1000], babybear[1000]) {\n"
	"  %x = babybear[1000] parameter(0)\n"
	"  %y = babybear[1000] parameter(1)\n"
	"  %s = babybear[1000] add(%x, %y)\n"
	"  %d = babybear[1000] subtract(%x, %y)\n"
	"  %m = babybear[1000] multiply(%s, %d)\n"
	"  ROOT %t = (babybear[1000], babybear[1000], babybear[1000]) tuple(%s, %m, %d)\n"
	"}\n";

/* Mixed element types and a scalar, for the descriptions. */
static const char mixed_text[] =
	"HloModule mixed\n"
	"ENTRY %main (a: babybear[5], b: bn254_sf[]) -> (babybear[5], bn254_sf[]) {\n"
	"  %a = babybear[5] parameter(0)\n"
	"  %b = bn254_sf[] parameter(1)\n"
	"  %na = babybear[5] negate(%a)\n"
	"  %bb = bn254_sf[] add(%b, %b)\n"
	"  ROOT %t = (babybear[5], bn254_sf[]) tuple(%na, %bb)\n"
	"}\n";

static ffu_program *parse_ok(const char *text)
{
	ffu_error e = {0};
	ffu_program *p = NULL;
	ffu_status st = ffu_program_parse(&p, text, strlen(text), "test.hlo", &e);
	cr_assert_eq(st, FFU_STATUS_OK, "parse: %s (%d:%d)", e.message, e.line, e.col);
	cr_assert_not_null(p);
	ffu_error_clear(&e);
	return p;
}

/* Edge values 0, 1, p-1, p-2 first, then a fixed-seed generator: plain values below p. */
static void make_inputs(uint32_t *x, uint32_t *y, size_t n, uint64_t seed)
{
	static const uint32_t edges[] = {0, 1, BB_P - 1, BB_P - 2};
	for (size_t i = 0; i < n; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		x[i] = i < 4 ? edges[i] : (uint32_t)((seed >> 33) % BB_P);
		y[i] = i < 4 ? edges[3 - i] : (uint32_t)((seed >> 7) % BB_P);
	}
}

static uint32_t bb_add(uint32_t a, uint32_t b)
{
	return (uint32_t)(((uint64_t)a + b) % BB_P);
}

static uint32_t bb_sub(uint32_t a, uint32_t b)
{
	return (uint32_t)(((uint64_t)a + BB_P - b) % BB_P);
}

static uint32_t bb_mul(uint32_t a, uint32_t b)
{
	return (uint32_t)((uint64_t)a * b % BB_P);
}

/* ---------------------------------------------------------------- parsing and printing */

Test(api, version)
{
	const char *v = ffu_version();
	cr_assert_not_null(v);
	int a, b, c;
	cr_expect_eq(sscanf(v, "%d.%d.%d", &a, &b, &c), 3, "version '%s'", v);
}

Test(api, parse_error_has_position)
{
	/* 'frobnicate' starts at line 5, column 20 */
	static const char text[] = "HloModule m\n"
				   "ENTRY %main {\n"
				   "  %x = babybear[4] parameter(0)\n"
				   "  // a comment line\n"
				   "  %y = babybear[4] frobnicate(%x)\n"
				   "}\n";
	ffu_error e = {0};
	ffu_program *p = (ffu_program *)1;
	ffu_status st = ffu_program_parse(&p, text, strlen(text), "prog.hlo", &e);
	cr_assert_eq(st, FFU_STATUS_EPARSE, "status %d: %s", st, e.message);
	cr_expect_null(p);
	cr_expect_eq(e.status, FFU_STATUS_EPARSE);
	cr_expect_str_eq(e.file, "prog.hlo");
	cr_expect_eq(e.line, 5);
	cr_expect_eq(e.col, 20);
	cr_expect(strstr(e.message, "unknown opcode 'frobnicate'"), "%s", e.message);

	/* what a tool prints: FILE:LINE:COL: error: ... */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cr_assert_not_null(f);
	ffu_error_print(f, &e);
	fclose(f);
	cr_expect_str_eq(buf, "prog.hlo:5:20: error: unknown opcode 'frobnicate'\n");
	free(buf);

	/* a verifier error also carries the position; without a name the file is "<input>" */
	static const char bad_shape[] = "HloModule m\n"
					"ENTRY %main {\n"
					"  %x = babybear[4] parameter(0)\n"
					"  %y = babybear[8] parameter(1)\n"
					"  ROOT %s = babybear[4] add(%x, %y)\n"
					"}\n";
	st = ffu_program_parse(&p, bad_shape, strlen(bad_shape), NULL, &e);
	cr_expect_eq(st, FFU_STATUS_EVERIFY, "status %d: %s", st, e.message);
	cr_expect_null(p);
	cr_expect_str_eq(e.file, "<input>");
	cr_expect_eq(e.line, 5);
	cr_expect_eq(e.col, 8);

	/* a later success clears the record */
	st = ffu_program_parse(&p, seed_text, strlen(seed_text), "x.hlo", &e);
	cr_expect_eq(st, FFU_STATUS_OK);
	cr_expect_eq(e.status, FFU_STATUS_OK);
	cr_expect_eq(e.line, 0);
	cr_expect_str_eq(e.message, "");
	ffu_program_destroy(&p);
	ffu_error_clear(&e);
}

Test(api, parse_reads_only_len_bytes)
{
	/* valid text followed by junk that must never be looked at (and no NUL terminator) */
	size_t n = strlen(seed_text);
	char *buf = malloc(n + 8);
	cr_assert_not_null(buf);
	memcpy(buf, seed_text, n);
	memcpy(buf + n, "%%%%%%%%", 8);
	ffu_error e = {0};
	ffu_program *p = NULL;
	cr_expect_eq(ffu_program_parse(&p, buf, n, "buf.hlo", &e), FFU_STATUS_OK, "%s", e.message);
	ffu_program_destroy(&p);
	/* a literal >= p is a parse error with its position */
	static const char big[] = "HloModule m\nENTRY %main {\n  ROOT %c = babybear[] constant(2013265921)\n}\n";
	cr_expect_eq(ffu_program_parse(&p, big, strlen(big), "big.hlo", &e), FFU_STATUS_EPARSE);
	cr_expect_eq(e.line, 3);
	cr_expect_eq(e.col, 33);
	/* empty text is an error, not a crash */
	cr_expect_lt(ffu_program_parse(&p, NULL, 0, NULL, &e), 0);
	cr_expect_null(p);
	free(buf);
	ffu_error_clear(&e);
}

Test(api, print_round_trip)
{
	ffu_program *p = parse_ok(seed_text);
	ffu_error e = {0};
	char *t1 = NULL, *t2 = NULL;
	cr_assert_eq(ffu_program_print(&t1, p, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_not_null(t1);
	cr_expect(strncmp(t1, "HloModule seed\n", 15) == 0, "%s", t1);
	cr_expect(strstr(t1, "multiply(%sum, %x)"), "%s", t1);
	cr_expect_null(strstr(t1, "//"), "comments are not printed: %s", t1);
	cr_expect_str_eq(ffu_program_name(p), "seed");

	ffu_program *q = parse_ok(t1);
	cr_assert_eq(ffu_program_print(&t2, q, &e), FFU_STATUS_OK, "%s", e.message);
	cr_expect_str_eq(t1, t2, "printing is a fixed point:\n%s\n---\n%s", t1, t2);
	cr_expect_eq(ffu_program_num_inputs(q), 2);
	cr_expect_eq(ffu_program_num_outputs(q), 1);
	free(t1);
	free(t2);

	/* the tuple program too */
	ffu_program *r = parse_ok(tuple_text);
	cr_assert_eq(ffu_program_print(&t1, r, &e), FFU_STATUS_OK, "%s", e.message);
	ffu_program *s = parse_ok(t1);
	cr_assert_eq(ffu_program_print(&t2, s, &e), FFU_STATUS_OK, "%s", e.message);
	cr_expect_str_eq(t1, t2);
	free(t1);
	free(t2);

	cr_expect_eq(ffu_program_print(NULL, p, &e), FFU_STATUS_EINVAL);
	t1 = (char *)1;
	cr_expect_eq(ffu_program_print(&t1, NULL, &e), FFU_STATUS_EINVAL);
	cr_expect_null(t1);
	ffu_program_destroy(&p);
	ffu_program_destroy(&q);
	ffu_program_destroy(&r);
	ffu_program_destroy(&s);
	ffu_error_clear(&e);
}

/* The dialect option (docs/api.md): ZKX's plain names are Montgomery, reported back. */
Test(api, parse_with_dialect)
{
	static const char zkx[] = "ENTRY %main {\n"
				  "  %x = babybear[2] parameter(0)\n"
				  "  %c = babybear[2] constant({1, 2})\n"
				  "  ROOT %r = babybear[2] multiply(%x, %c)\n"
				  "}\n";
	ffu_error e = {0};
	ffu_program *p = NULL;
	ffu_parse_options o = {.dialect = FFU_DIALECT_ZKX_2026_01};
	cr_assert_eq(ffu_program_parse_with(&p, zkx, strlen(zkx), "zkx.hlo", &o, &e), FFU_STATUS_OK, "%s", e.message);
	cr_expect_eq(o.dialect_used, FFU_DIALECT_ZKX_2026_01);
	cr_expect_str_eq(ffu_program_name(p), "module_main");
	ffu_array_info info;
	cr_assert_eq(ffu_program_input(p, 0, &info), FFU_STATUS_OK);
	cr_expect_str_eq(info.type, "babybear_mont");
	/* (3, 5) as 3R, 5R mod p times (1, 2): (3, 10) as 3R, 10R mod p. */
	uint32_t x[2] = {805306362u, 1342177270u}, r[2] = {0, 0};
	const void *in[] = {x};
	void *out[] = {r};
	cr_assert_eq(ffu_program_interpret(p, in, out, &e), FFU_STATUS_OK, "%s", e.message);
	cr_expect_eq(r[0], 805306362u);
	cr_expect_eq(r[1], 671088619u);
	ffu_program_destroy(&p);

	/* AUTO reports the `_std` name that chose zkx-2026.01; NULL options mean AUTO too. */
	static const char std[] = "ENTRY %main {\n  %x = babybear_std[2] parameter(0)\n}\n";
	o = (ffu_parse_options){0};
	cr_assert_eq(ffu_program_parse_with(&p, std, strlen(std), NULL, &o, &e), FFU_STATUS_OK, "%s", e.message);
	cr_expect_eq(o.dialect_used, FFU_DIALECT_ZKX_2026_01);
	cr_expect(o.auto_line == 2 && o.auto_col == 8, "%d:%d", o.auto_line, o.auto_col);
	ffu_program_destroy(&p);
	cr_assert_eq(ffu_program_parse_with(&p, std, strlen(std), NULL, NULL, &e), FFU_STATUS_OK, "%s", e.message);
	ffu_program_destroy(&p);
	cr_expect_str_eq(ffu_dialect_name(FFU_DIALECT_ZKX_2026_01), "zkx-2026.01");
	cr_expect_str_eq(ffu_dialect_name(FFU_DIALECT_FIELDFUSE), "fieldfuse");
	cr_expect_null(ffu_dialect_name((ffu_dialect)3));
	o = (ffu_parse_options){.dialect = (ffu_dialect)3};
	cr_expect_eq(ffu_program_parse_with(&p, std, strlen(std), NULL, &o, &e), FFU_STATUS_EINVAL);
	cr_expect_null(p);
	ffu_error_clear(&e);
}

Test(api, input_output_info)
{
	ffu_program *p = parse_ok(mixed_text);
	cr_assert_eq(ffu_program_num_inputs(p), 2);
	cr_assert_eq(ffu_program_num_outputs(p), 2);
	ffu_array_info a, b, na, bb;
	cr_assert_eq(ffu_program_input(p, 0, &a), FFU_STATUS_OK);
	cr_assert_eq(ffu_program_input(p, 1, &b), FFU_STATUS_OK);
	cr_assert_eq(ffu_program_output(p, 0, &na), FFU_STATUS_OK);
	cr_assert_eq(ffu_program_output(p, 1, &bb), FFU_STATUS_OK);

	cr_expect_str_eq(a.name, "a");
	cr_expect_str_eq(a.type, "babybear");
	cr_expect_eq(a.rank, 1);
	cr_expect_eq(a.dims[0], 5);
	cr_expect_eq(a.count, 5);
	cr_expect_eq(a.elem_bytes, 4);
	cr_expect_eq(a.bytes, 20);

	cr_expect_str_eq(b.name, "b");
	cr_expect_str_eq(b.type, "bn254_sf");
	cr_expect_eq(b.rank, 0);
	cr_expect_eq(b.count, 1);
	cr_expect_eq(b.elem_bytes, 32);
	cr_expect_eq(b.bytes, 32);

	cr_expect_str_eq(na.name, "na");
	cr_expect_str_eq(na.type, "babybear");
	cr_expect_eq(na.bytes, 20);
	cr_expect_str_eq(bb.name, "bb");
	cr_expect_str_eq(bb.type, "bn254_sf");
	cr_expect_eq(bb.bytes, 32);

	cr_expect_eq(ffu_program_input(p, 2, &a), FFU_STATUS_EINVAL);
	cr_expect_eq(ffu_program_input(p, -1, &a), FFU_STATUS_EINVAL);
	cr_expect_eq(ffu_program_output(p, 2, &a), FFU_STATUS_EINVAL);
	cr_expect_eq(ffu_program_input(p, 0, NULL), FFU_STATUS_EINVAL);

	/* a non-tuple ROOT is one output named after the ROOT */
	ffu_program *q = parse_ok(seed_text);
	cr_assert_eq(ffu_program_output(q, 0, &a), FFU_STATUS_OK);
	cr_expect_str_eq(a.name, "prod");
	cr_expect_eq(a.bytes, 4 * N);
	cr_assert_eq(ffu_program_input(q, 1, &a), FFU_STATUS_OK);
	cr_expect_str_eq(a.name, "y");

	/* interpreter on the mixed program: -a and 2b, checked by hand */
	uint32_t av[5] = {0, 1, 2, BB_P - 1, 12345}, nav[5];
	unsigned char bv[32] = {0}, bbv[32];
	bv[0] = 0xff;
	bv[1] = 0x01; /* b = 511 */
	const void *in[] = {av, bv};
	void *const out[] = {nav, bbv};
	ffu_error e = {0};
	cr_assert_eq(ffu_program_interpret(p, in, out, &e), FFU_STATUS_OK, "%s", e.message);
	for (int i = 0; i < 5; i++)
		cr_expect_eq(nav[i], av[i] ? BB_P - av[i] : 0, "element %d: %u", i, nav[i]);
	cr_expect_eq(bbv[0], 0xfe);
	cr_expect_eq(bbv[1], 0x03);
	for (int i = 2; i < 32; i++)
		cr_expect_eq(bbv[i], 0);
	ffu_program_destroy(&p);
	ffu_program_destroy(&q);
}

/* ---------------------------------------------------------------- running on devices */

static ffu_device *open_ok(const char *sel)
{
	ffu_error e = {0};
	ffu_device *d = NULL;
	ffu_status st = ffu_device_open(&d, sel, &e);
	cr_assert_eq(st, FFU_STATUS_OK, "device '%s' must be present: %s", sel, e.message);
	cr_assert_not_null(d);
	cr_assert(ffu_device_name(d)[0], "device has a name");
	ffu_error_clear(&e);
	return d;
}

static void run_seed(const char *sel)
{
	ffu_device *d = open_ok(sel);
	ffu_program *p = parse_ok(seed_text);
	char *before = NULL;
	cr_assert_eq(ffu_program_print(&before, p, NULL), FFU_STATUS_OK);

	uint32_t *x = malloc(N * 4), *y = malloc(N * 4), *dev = malloc(N * 4), *ref = malloc(N * 4);
	cr_assert(x && y && dev && ref);
	make_inputs(x, y, N, 42);
	const void *in[] = {x, y};
	ffu_error e = {0};
	cr_assert_eq(ffu_program_interpret(p, in, (void *const[]){ref}, &e), FFU_STATUS_OK, "%s", e.message);
	for (int fuse = 1; fuse >= 0; fuse--) {
		ffu_run_options o = {.no_fuse = !fuse, .kernel_ms = -1, .kernels = -1};
		memset(dev, 0xee, N * 4);
		ffu_status st = ffu_program_run(d, p, &o, in, (void *const[]){dev}, &e);
		cr_assert_eq(st, FFU_STATUS_OK, "%s on %s: %s\n%s", fuse ? "fused" : "unfused", ffu_device_name(d),
			     e.message, e.build_log ? e.build_log : "");
		cr_expect_eq(o.kernels, fuse ? 1 : 2, "%d kernels", o.kernels);
		cr_expect_geq(o.kernel_ms, 0.0);
		for (int i = 0; i < N; i++) {
			uint32_t want = bb_mul(bb_add(x[i], y[i]), x[i]);
			cr_assert_eq(ref[i], want, "interpreter element %d: x=%u y=%u got %u want %u", i, x[i], y[i],
				     ref[i], want);
			cr_assert_eq(dev[i], want, "%s %s element %d: x=%u y=%u got %u want %u", sel,
				     fuse ? "fused" : "unfused", i, x[i], y[i], dev[i], want);
		}
	}
	/* o may be NULL; the program is unchanged by runs */
	cr_assert_eq(ffu_program_run(d, p, NULL, in, (void *const[]){dev}, &e), FFU_STATUS_OK, "%s", e.message);
	char *after = NULL;
	cr_assert_eq(ffu_program_print(&after, p, NULL), FFU_STATUS_OK);
	cr_expect_str_eq(before, after);

	free(before);
	free(after);
	free(x);
	free(y);
	free(dev);
	free(ref);
	ffu_program_destroy(&p);
	ffu_device_close(&d);
	cr_expect_null(d);
	ffu_error_clear(&e);
}

static void run_tuple(const char *sel)
{
	ffu_device *d = open_ok(sel);
	ffu_program *p = parse_ok(tuple_text);
	cr_assert_eq(ffu_program_num_outputs(p), 3);
	ffu_array_info info;
	const char *names[] = {"s", "m", "d"};
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(ffu_program_output(p, i, &info), FFU_STATUS_OK);
		cr_expect_str_eq(info.name, names[i]);
		cr_expect_eq(info.bytes, 4 * N);
	}
	uint32_t x[N], y[N], dev[3][N], ref[3][N];
	make_inputs(x, y, N, 7);
	const void *in[] = {x, y};
	void *const dout[] = {dev[0], dev[1], dev[2]};
	void *const rout[] = {ref[0], ref[1], ref[2]};
	ffu_error e = {0};
	cr_assert_eq(ffu_program_interpret(p, in, rout, &e), FFU_STATUS_OK, "%s", e.message);
	for (int fuse = 1; fuse >= 0; fuse--) {
		ffu_run_options o = {.no_fuse = !fuse};
		memset(dev, 0xee, sizeof dev);
		ffu_status st = ffu_program_run(d, p, &o, in, dout, &e);
		cr_assert_eq(st, FFU_STATUS_OK, "%s: %s\n%s", sel, e.message, e.build_log ? e.build_log : "");
		if (fuse)
			cr_expect_eq(o.kernels, 1, "one multi-output fusion, got %d kernels", o.kernels);
		else
			cr_expect_eq(o.kernels, 3, "add, subtract, multiply, got %d kernels", o.kernels);
		for (int i = 0; i < N; i++) {
			/* (x + y)(x - y) computed another way: x^2 - y^2 */
			uint32_t want[3] = {bb_add(x[i], y[i]), bb_sub(bb_mul(x[i], x[i]), bb_mul(y[i], y[i])),
					    bb_sub(x[i], y[i])};
			for (int o2 = 0; o2 < 3; o2++) {
				cr_assert_eq(ref[o2][i], want[o2], "interpreter output %d element %d", o2, i);
				cr_assert_eq(dev[o2][i], want[o2], "%s %s output %d element %d: got %u want %u", sel,
					     fuse ? "fused" : "unfused", o2, i, dev[o2][i], want[o2]);
			}
		}
	}
	ffu_program_destroy(&p);
	ffu_device_close(&d);
	ffu_error_clear(&e);
}

/* out = a - k for a 32-byte little-endian a >= k, with the borrow carried. */
static void le_sub_small(unsigned char *out, const unsigned char *a, unsigned k)
{
	unsigned borrow = k;
	for (int i = 0; i < 32; i++) {
		unsigned v = a[i] - borrow;
		out[i] = (unsigned char)v;
		borrow = v > 0xff; /* wrapped below zero */
	}
}

/* The mixed program (scalar bn254 input, two element types) on a device. */
static void run_mixed(const char *sel)
{
	ffu_device *d = open_ok(sel);
	ffu_program *p = parse_ok(mixed_text);
	uint32_t av[5] = {0, 1, 2, BB_P - 1, 12345}, dev_a[5], ref_a[5];
	/* b = p - 1 of bn254: 2b = p - 2 */
	static const unsigned char bn_p_le[32] = {0x01, 0x00, 0x00, 0xf0, 0x93, 0xf5, 0xe1, 0x43, 0x91, 0x70, 0xb9,
						  0x79, 0x48, 0xe8, 0x33, 0x28, 0x5d, 0x58, 0x81, 0x81, 0xb6, 0x45,
						  0x50, 0xb8, 0x29, 0xa0, 0x31, 0xe1, 0x72, 0x4e, 0x64, 0x30};
	unsigned char bv[32], dev_b[32], ref_b[32], want_b[32];
	le_sub_small(bv, bn_p_le, 1);
	le_sub_small(want_b, bn_p_le, 2);
	const void *in[] = {av, bv};
	ffu_error e = {0};
	cr_assert_eq(ffu_program_interpret(p, in, (void *const[]){ref_a, ref_b}, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu_program_run(d, p, NULL, in, (void *const[]){dev_a, dev_b}, &e), FFU_STATUS_OK, "%s: %s\n%s",
		     sel, e.message, e.build_log ? e.build_log : "");
	for (int i = 0; i < 5; i++) {
		cr_expect_eq(ref_a[i], av[i] ? BB_P - av[i] : 0);
		cr_expect_eq(dev_a[i], ref_a[i], "%s element %d", sel, i);
	}
	cr_expect_eq(memcmp(ref_b, want_b, 32), 0, "interpreter: 2(p-1) = p-2");
	cr_expect_eq(memcmp(dev_b, want_b, 32), 0, "%s: 2(p-1) = p-2", sel);

	/* the bn254 modulus itself is not a canonical input */
	memcpy(bv, bn_p_le, 32);
	cr_expect_eq(ffu_program_run(d, p, NULL, in, (void *const[]){dev_a, dev_b}, &e), FFU_STATUS_EINVAL);
	cr_expect(strstr(e.message, "input 1 (b) element 0"), "%s", e.message);
	ffu_program_destroy(&p);
	ffu_device_close(&d);
	ffu_error_clear(&e);
}

/*
 * Empty arrays: a zero dimension before others made the size check divide by the running
 * count (0): ffu_program_parse died of SIGFPE on `u32[0,2]` (found by the soak's seed 102
 * through `fieldfuse compile`). Their count and bytes are 0.
 */
Test(api, empty_arrays_described)
{
	ffu_program *p = parse_ok("HloModule e\nENTRY %main {\n  %x = babybear[0,2,3] parameter(0)\n"
				  "  %y = bn254_sf[2,0] parameter(1)\n  ROOT %r = babybear[0,2,3] add(%x, %x)\n}\n");
	ffu_array_info a;
	cr_assert_eq(ffu_program_input(p, 0, &a), FFU_STATUS_OK);
	cr_expect(a.rank == 3 && a.dims[0] == 0 && a.dims[1] == 2 && a.dims[2] == 3 && a.count == 0 && a.bytes == 0);
	cr_assert_eq(ffu_program_input(p, 1, &a), FFU_STATUS_OK);
	cr_expect(a.rank == 2 && a.dims[0] == 2 && a.dims[1] == 0 && a.count == 0 && a.bytes == 0 && a.elem_bytes == 32);
	cr_assert_eq(ffu_program_output(p, 0, &a), FFU_STATUS_OK);
	cr_expect(a.count == 0 && a.bytes == 0);
	ffu_program_destroy(&p);
}

Test(api, run_seed_pocl, .timeout = 120)
{
	run_seed("pocl");
}

Test(api, run_seed_rusticl, .timeout = 120)
{
	run_seed("rusticl");
}

Test(api, run_tuple_pocl, .timeout = 120)
{
	run_tuple("pocl");
}

Test(api, run_tuple_rusticl, .timeout = 120)
{
	run_tuple("rusticl");
}

Test(api, run_mixed_pocl, .timeout = 120)
{
	run_mixed("pocl");
}

Test(api, run_mixed_rusticl, .timeout = 120)
{
	run_mixed("rusticl");
}

/* power(x, e) with a u32 exponent input: every u32 bit pattern is a valid input (not < p). */
static uint32_t bb_pow(uint32_t x, uint32_t e)
{
	uint64_t r = 1, b = x;
	for (; e; e >>= 1, b = b * b % BB_P)
		if (e & 1)
			r = r * b % BB_P;
	return (uint32_t)r;
}

Test(api, run_power_u32_input, .timeout = 120)
{
	static const char text[] = "HloModule pw\n"
				   "ENTRY %main (x: babybear[6], e: u32[6]) -> babybear[6] {\n"
				   "  %x = babybear[6] parameter(0)\n"
				   "  %e = u32[6] parameter(1)\n"
				   "  ROOT %p = babybear[6] power(%x, %e)\n"
				   "}\n";
	ffu_program *p = parse_ok(text);
	ffu_array_info info;
	cr_assert_eq(ffu_program_input(p, 1, &info), FFU_STATUS_OK);
	cr_expect_str_eq(info.type, "u32");
	cr_expect_eq(info.elem_bytes, 4);
	uint32_t x[6] = {2, 3, 0, 0, BB_P - 1, 123456}, ev[6] = {10, 0xffffffffu, 0, 7, BB_P, 0x80000001u};
	uint32_t ref[6], dev[6];
	const void *in[] = {x, ev};
	ffu_error e = {0};
	cr_assert_eq(ffu_program_interpret(p, in, (void *const[]){ref}, &e), FFU_STATUS_OK, "%s", e.message);
	for (int k = 0; k < 2; k++) {
		ffu_device *d = open_ok(ffu_test_devices[k]);
		cr_assert_eq(ffu_program_run(d, p, NULL, in, (void *const[]){dev}, &e), FFU_STATUS_OK, "%s: %s\n%s",
			     ffu_test_devices[k], e.message, e.build_log ? e.build_log : "");
		for (int i = 0; i < 6; i++) {
			cr_expect_eq(ref[i], bb_pow(x[i], ev[i]), "interpreter %u^%u", x[i], ev[i]);
			cr_expect_eq(dev[i], bb_pow(x[i], ev[i]), "%s %u^%u: got %u", ffu_test_devices[k], x[i], ev[i],
				     dev[i]);
		}
		ffu_device_close(&d);
	}
	ffu_program_destroy(&p);
	ffu_error_clear(&e);
}

Test(api, fusion_kill_switch, .timeout = 120)
{
	/* read once per process; Criterion runs each test in a fresh process */
	cr_assert_eq(setenv("FIELDFUSE_DISABLE_FUSION", "1", 1), 0);
	ffu_device *d = open_ok("pocl");
	ffu_program *p = parse_ok(seed_text);
	uint32_t x[N], y[N], out[N];
	make_inputs(x, y, N, 5);
	ffu_run_options o = {0};
	ffu_error e = {0};
	cr_assert_eq(ffu_program_run(d, p, &o, (const void *const[]){x, y}, (void *const[]){out}, &e), FFU_STATUS_OK,
		     "%s", e.message);
	cr_expect_eq(o.kernels, 2, "FIELDFUSE_DISABLE_FUSION=1 runs one kernel per op, got %d", o.kernels);
	for (int i = 0; i < N; i++)
		cr_assert_eq(out[i], bb_mul(bb_add(x[i], y[i]), x[i]), "element %d", i);
	ffu_program_destroy(&p);
	ffu_device_close(&d);
}

Test(api, inputs_not_below_p_rejected)
{
	ffu_program *p = parse_ok(seed_text);
	uint32_t x[N], y[N], out[N];
	make_inputs(x, y, N, 3);
	ffu_error e = {0};
	const void *in[] = {x, y};

	x[7] = BB_P;
	cr_expect_eq(ffu_program_interpret(p, in, (void *const[]){out}, &e), FFU_STATUS_EINVAL);
	cr_expect(strstr(e.message, "input 0 (x) element 7"), "%s", e.message);
	x[7] = 0;
	y[999] = 0xffffffffu;
	cr_expect_eq(ffu_program_interpret(p, in, (void *const[]){out}, &e), FFU_STATUS_EINVAL);
	cr_expect(strstr(e.message, "input 1 (y) element 999"), "%s", e.message);

	/* the device path checks before touching the device */
	ffu_device *d = open_ok("pocl");
	cr_expect_eq(ffu_program_run(d, p, NULL, in, (void *const[]){out}, &e), FFU_STATUS_EINVAL);
	cr_expect(strstr(e.message, "input 1 (y) element 999"), "%s", e.message);
	y[999] = BB_P - 1;
	cr_expect_eq(ffu_program_run(d, p, NULL, in, (void *const[]){out}, &e), FFU_STATUS_OK, "%s", e.message);

	/* missing buffers are argument errors, not crashes */
	cr_expect_eq(ffu_program_run(d, p, NULL, NULL, (void *const[]){out}, &e), FFU_STATUS_EINVAL);
	cr_expect_eq(ffu_program_run(d, p, NULL, in, NULL, &e), FFU_STATUS_EINVAL);
	cr_expect_eq(ffu_program_run(d, p, NULL, (const void *const[]){x, NULL}, (void *const[]){out}, &e),
		     FFU_STATUS_EINVAL);
	cr_expect_eq(ffu_program_run(d, p, NULL, in, (void *const[]){NULL}, &e), FFU_STATUS_EINVAL);
	cr_expect_eq(ffu_program_run(NULL, p, NULL, in, (void *const[]){out}, &e), FFU_STATUS_EINVAL);
	cr_expect_eq(ffu_program_run(d, NULL, NULL, in, (void *const[]){out}, NULL), FFU_STATUS_EINVAL);
	cr_expect_eq(ffu_program_interpret(NULL, in, (void *const[]){out}, NULL), FFU_STATUS_EINVAL);
	ffu_device_close(&d);
	ffu_program_destroy(&p);
	ffu_error_clear(&e);
}

Test(api, null_safety)
{
	ffu_program_destroy(NULL);
	ffu_device_close(NULL);
	ffu_program *p = NULL;
	ffu_device *d = NULL;
	ffu_program_destroy(&p);
	ffu_device_close(&d);
	cr_expect_eq(ffu_program_num_inputs(NULL), 0);
	cr_expect_eq(ffu_program_num_outputs(NULL), 0);
	cr_expect_str_eq(ffu_program_name(NULL), "");
	cr_expect_str_eq(ffu_device_name(NULL), "");
	cr_expect_str_eq(ffu_device_id(NULL), "");
	ffu_array_info info;
	cr_expect_eq(ffu_program_input(NULL, 0, &info), FFU_STATUS_EINVAL);
	cr_expect_eq(ffu_program_output(NULL, 0, &info), FFU_STATUS_EINVAL);
	cr_expect_eq(ffu_program_parse(NULL, "x", 1, NULL, NULL), FFU_STATUS_EINVAL);
	cr_expect_eq(ffu_device_open(NULL, NULL, NULL), FFU_STATUS_EINVAL);
	/* destroy NULLs the handle, so a second destroy is harmless */
	p = parse_ok(seed_text);
	ffu_program_destroy(&p);
	cr_expect_null(p);
	ffu_program_destroy(&p);
	d = open_ok("pocl");
	cr_expect_str_eq(ffu_device_id(d), "0:0");
	ffu_device_close(&d);
	cr_expect_null(d);
	ffu_device_close(&d);
}

Test(api, device_selector_matching_nothing)
{
	ffu_error e = {0};
	ffu_device *d = (ffu_device *)1;
	ffu_status st = ffu_device_open(&d, "no-such-device-anywhere", &e);
	cr_expect_eq(st, FFU_STATUS_ENODEV, "status %d: %s", st, e.message);
	cr_expect_null(d);
	cr_expect_eq(e.status, FFU_STATUS_ENODEV);
	cr_expect(strstr(e.message, "no-such-device-anywhere"), "message names the selector: %s", e.message);
	/* an index past the end is the same failure */
	cr_expect_eq(ffu_device_open(&d, "9:9", &e), FFU_STATUS_ENODEV, "%s", e.message);
	cr_expect_null(d);
	ffu_error_clear(&e);
}

/* ---------------------------------------------------------------- threads */

typedef struct worker {
	const ffu_program *p;
	const char *device; /* NULL: interpreter only */
	const uint32_t *x, *y;
	uint32_t out[N];
	ffu_status st;
	char message[sizeof ((ffu_error *)0)->message];
} worker;

static void *work(void *arg)
{
	worker *w = arg;
	ffu_error e = {0};
	ffu_device *d = NULL;
	const void *in[] = {w->x, w->y};
	w->st = FFU_STATUS_OK;
	if (w->device)
		w->st = ffu_device_open(&d, w->device, &e);
	for (int rep = 0; rep < 3 && w->st == FFU_STATUS_OK; rep++)
		w->st = d ? ffu_program_run(d, w->p, NULL, in, (void *const[]){w->out}, &e)
			  : ffu_program_interpret(w->p, in, (void *const[]){w->out}, &e);
	snprintf(w->message, sizeof w->message, "%s", e.message);
	ffu_device_close(&d);
	ffu_error_clear(&e);
	return NULL;
}

Test(api, one_program_many_threads, .timeout = 180)
{
	/* one read-only program; each thread with a device has its own handle (the thread rule) */
	ffu_program *p = parse_ok(seed_text);
	static uint32_t x[N], y[N];
	make_inputs(x, y, N, 99);
	const char *devs[] = {NULL, NULL, NULL, "pocl", "rusticl"};
	enum { T = sizeof devs / sizeof devs[0] };
	static worker w[T];
	pthread_t th[T];
	for (int i = 0; i < T; i++) {
		w[i] = (worker){.p = p, .device = devs[i], .x = x, .y = y};
		cr_assert_eq(pthread_create(&th[i], NULL, work, &w[i]), 0);
	}
	for (int i = 0; i < T; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < T; i++) {
		cr_assert_eq(w[i].st, FFU_STATUS_OK, "thread %d (%s): %s", i, devs[i] ? devs[i] : "interp",
			     w[i].message);
		for (int k = 0; k < N; k++)
			cr_assert_eq(w[i].out[k], bb_mul(bb_add(x[k], y[k]), x[k]), "thread %d element %d", i, k);
	}
	ffu_program_destroy(&p);
}

/* An SPMD program (docs/hlo.md "Collectives") is not one executable: the embedding API
   refuses it on a device, naming the collective, and writes nothing. */
Test(api, collectives_refused_on_a_device, .timeout = 120)
{
	ffu_device *d = open_ok("pocl");
	ffu_program *p = parse_ok("HloModule c, replica_count=2\n"
				  "ENTRY %main (x: babybear[4]) -> babybear[8] {\n"
				  "  %x = babybear[4] parameter(0)\n"
				  "  ROOT %g = babybear[8] all-gather(%x), replica_groups={}, dimensions={0}\n}\n");
	uint32_t x[4] = {1, 2, 3, 4}, out[8];
	memset(out, 0xee, sizeof out);
	ffu_error e = {0};
	cr_expect_eq(ffu_program_run(d, p, NULL, (const void *[]){x}, (void *const[]){out}, &e), FFU_STATUS_EUNSUPPORTED);
	cr_expect(strstr(e.message, "'%g' (all-gather): a program with collectives is not one executable"), "%s",
		  e.message);
	for (int i = 0; i < 8; i++)
		cr_expect_eq(out[i], 0xeeeeeeeeu);
	ffu_error_clear(&e);
	ffu_program_destroy(&p);
	ffu_device_close(&d);
}
