/*
 * tests/test_ints.c: the integer types s8 s16 s32 s64 u8 u16 (FFU_INT rows of
 * fields/fields.def), ZKX's integer converts, and dynamic-slice / dynamic-update-slice.
 *
 *  - text: every type's bounds and messages, two's complement storage and the decimal
 *    text of random values, against C's own fixed-width integers;
 *  - convert on the host: integer -> integer against C casts, integer -> field against GMP
 *    (the zero-extended bit pattern mod p), which pairs exist (ZKX's width rule);
 *  - HLO text: negative literals print and parse back;
 *  - the interpreter against windows written out by hand: in-range, clamped and negative
 *    starts, signed and unsigned start types;
 *  - the device against the interpreter on PoCL and Rusticl, fused and unfused and with the
 *    whole pipeline, over several fields and start types, starts in range, past the end
 *    and negative; integer loads, stores and converts in kernels.
 */
#include <criterion/criterion.h>
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fieldfuse/builder.h"
#include "hlo/hlo.h"
#include "interp/interp.h"
#include "ir/value.h"
#include "passes/passes.h"
#include "runtime/cl.h"
#include "runtime/exec.h"
#include "support.h"
#include "util/strbuf.h"

static const ffu_type new_ints[] = {FFU_TYPE_S8, FFU_TYPE_S16, FFU_TYPE_S32, FFU_TYPE_S64, FFU_TYPE_U8, FFU_TYPE_U16};
enum { N_NEW = sizeof new_ints / sizeof new_ints[0] };
/* every integer type: the new ones and u32, u64 */
static const ffu_type all_ints[] = {FFU_TYPE_S8,  FFU_TYPE_S16, FFU_TYPE_S32, FFU_TYPE_S64,
				    FFU_TYPE_U8,  FFU_TYPE_U16, FFU_TYPE_U32, FFU_TYPE_U64};
enum { N_ALL = sizeof all_ints / sizeof all_ints[0] };

static const ffu_field *fld(ffu_type t)
{
	return ffu__field_get((ffu_field_id)t);
}

/* The value of bit pattern v as C's integer type of f's width and signedness. */
static long long c_value(const ffu_field *f, uint64_t v)
{
	switch (f->bits) {
	case 8:
		return f->is_signed ? (long long)(int8_t)(uint8_t)v : (long long)(uint8_t)v;
	case 16:
		return f->is_signed ? (long long)(int16_t)(uint16_t)v : (long long)(uint16_t)v;
	case 32:
		return f->is_signed ? (long long)(int32_t)(uint32_t)v : (long long)(uint32_t)v;
	default:
		return (long long)v; /* s64; a u64 is compared as its bit pattern by the callers */
	}
}

/* C's conversion of a `from` value (bit pattern v) to `to`, as its bit pattern in 64 bits. */
static uint64_t c_convert(const ffu_field *from, const ffu_field *to, uint64_t v)
{
	long long x = from->bits == 64 ? (long long)v : c_value(from, v); /* extends by the source */
	switch (to->bits) {
	case 8:
		return (uint8_t)x;
	case 16:
		return (uint16_t)x;
	case 32:
		return (uint32_t)x;
	default:
		return (uint64_t)x;
	}
}

static uint64_t edge_or_random(int i, uint64_t *state)
{
	static const uint64_t edges[] = {0, 1, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x7fffffff, 0x80000000,
					 0xffffffff, 0x7fffffffffffffffull, 0x8000000000000000ull, ~0ull};
	if (i < (int)(sizeof edges / sizeof edges[0]))
		return edges[i];
	return ffu__rand_next(state) >> (i % 64);
}

Test(ints, parse_bounds_and_messages)
{
	static const struct {
		ffu_type t;
		const char *min, *max, *below, *above, *why;
	} rows[] = {
		{FFU_TYPE_S8, "-128", "127", "-129", "128", "value does not fit s8 (-128..127)"},
		{FFU_TYPE_S16, "-32768", "32767", "-32769", "32768", "value does not fit s16 (-32768..32767)"},
		{FFU_TYPE_S32, "-2147483648", "2147483647", "-2147483649", "2147483648",
		 "value does not fit s32 (-2147483648..2147483647)"},
		{FFU_TYPE_S64, "-9223372036854775808", "9223372036854775807", "-9223372036854775809", "9223372036854775808",
		 "value does not fit s64 (-9223372036854775808..9223372036854775807)"},
		{FFU_TYPE_U8, "0", "255", NULL, "256", "value does not fit u8 (0..255)"},
		{FFU_TYPE_U16, "0", "65535", NULL, "65536", "value does not fit u16 (0..65535)"},
	};
	for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
		const ffu_field *f = fld(rows[k].t);
		unsigned char x[8];
		char buf[FFU_FIELD_TEXT_MAX];
		const char *why = NULL;
		cr_assert_eq(f->kind, FFU_ELEM_UINT);
		cr_assert_eq(f->storage_bytes, (size_t)f->bits / 8);
		for (int side = 0; side < 2; side++) {
			const char *s = side ? rows[k].max : rows[k].min;
			cr_assert_eq(ffu__fp_parse(f, x, s, strlen(s), &why), FFU_STATUS_OK, "%s %s: %s", f->name, s, why);
			cr_assert_str_eq(ffu__fp_format(f, buf, x), s, "%s", f->name);
			cr_assert(ffu__fp_canonical(f, x));
		}
		cr_assert_eq(ffu__fp_parse(f, x, rows[k].above, strlen(rows[k].above), &why), FFU_STATUS_EPARSE);
		cr_assert_str_eq(why, rows[k].why);
		if (rows[k].below) {
			cr_assert_eq(ffu__fp_parse(f, x, rows[k].below, strlen(rows[k].below), &why), FFU_STATUS_EPARSE);
			cr_assert_str_eq(why, rows[k].why);
			cr_assert_eq(ffu__fp_parse(f, x, "-0x10", 5, &why), FFU_STATUS_OK, "%s", f->name);
			cr_assert_eq(ffu__fp_get_i64(f, x), -16);
		} else {
			cr_assert_eq(ffu__fp_parse(f, x, "-1", 2, &why), FFU_STATUS_EPARSE, "%s", f->name);
			cr_assert_str_eq(why, "not a number");
		}
		cr_assert_eq(ffu__fp_parse(f, x, "-", 1, &why), FFU_STATUS_EPARSE);
		cr_assert_eq(ffu__fp_parse(f, x, "1-", 2, &why), FFU_STATUS_EPARSE);
		cr_assert_eq(ffu__fp_parse(f, x, "", 0, &why), FFU_STATUS_EPARSE);
	}
	/* u32 and u64 keep their messages */
	unsigned char x[8];
	const char *why;
	cr_assert_eq(ffu__fp_parse(fld(FFU_TYPE_U32), x, "4294967296", 10, &why), FFU_STATUS_EPARSE);
	cr_assert_str_eq(why, "value does not fit u32");
}

/* Storage is the little-endian two's complement pattern; text is C's decimal of the value. */
Test(ints, storage_and_text_against_c)
{
	uint64_t state = 18;
	for (int t = 0; t < N_NEW; t++) {
		const ffu_field *f = fld(new_ints[t]);
		for (int i = 0; i < 4000; i++) {
			uint64_t v = edge_or_random(i, &state);
			unsigned char x[8], y[8], le[8];
			char buf[FFU_FIELD_TEXT_MAX], want[32];
			ffu__fp_set_u64(f, x, v); /* v mod 2^bits */
			for (int b = 0; b < 8; b++)
				le[b] = (unsigned char)(v >> (8 * b));
			cr_assert_eq(memcmp(x, le, f->storage_bytes), 0, "%s storage of 0x%llx", f->name, (unsigned long long)v);
			snprintf(want, sizeof want, "%lld", c_value(f, v));
			cr_assert_str_eq(ffu__fp_format(f, buf, x), want, "%s 0x%llx", f->name, (unsigned long long)v);
			cr_assert_str_eq(ffu__fp_format_literal(f, buf, x), want);
			cr_assert_eq(ffu__fp_get_i64(f, x), c_value(f, v));
			const char *why = NULL;
			cr_assert_eq(ffu__fp_parse(f, y, want, strlen(want), &why), FFU_STATUS_OK, "%s %s: %s", f->name, want, why);
			cr_assert_eq(memcmp(x, y, f->storage_bytes), 0, "%s %s", f->name, want);
		}
	}
}

Test(ints, convert_integer_to_integer_against_c_casts)
{
	uint64_t state = 77;
	for (int a = 0; a < N_ALL; a++)
		for (int b = 0; b < N_ALL; b++) {
			const ffu_field *from = fld(all_ints[a]), *to = fld(all_ints[b]);
			cr_assert(ffu__fp_convert_ok(to, from), "%s -> %s", from->name, to->name);
			for (int i = 0; i < 600; i++) {
				uint64_t v = edge_or_random(i, &state);
				unsigned char x[8], o[8];
				ffu__fp_set_u64(from, x, v);
				uint64_t bits = from->bits == 64 ? v : v & ((UINT64_C(1) << from->bits) - 1);
				cr_assert(ffu__fp_convert(to, o, from, x));
				cr_assert_eq(ffu__fp_get_u64(to, o), c_convert(from, to, bits), "%s 0x%llx -> %s", from->name,
					     (unsigned long long)bits, to->name);
			}
		}
}

static void to_mpz(const ffu_field *f, mpz_t z, const void *bytes)
{
	mpz_import(z, f->storage_bytes, -1, 1, 0, 0, bytes);
}

/*
 * integer -> prime field or _mont: the source's bit pattern, zero-extended (also for a
 * signed source: s32 -1 is 2^32 - 1), mod p; only where the integer is no wider than the
 * field's storage. No new integer type converts into an extension or from a field.
 */
Test(ints, convert_integer_to_field_against_gmp)
{
	mpz_t p, want, got;
	mpz_inits(p, want, got, NULL);
	uint64_t state = 5;
	for (int t = 0; t < N_NEW; t++) {
		const ffu_field *from = fld(new_ints[t]);
		for (int id = 0; id < 2 * FFU_FIELD_COUNT; id++) {
			const ffu_field *to = ffu__field_get((ffu_field_id)id);
			bool fits = (size_t)from->bits <= 8 * to->storage_bytes;
			cr_assert_eq(ffu__fp_convert_ok(to, from), fits, "%s -> %s", from->name, to->name);
			cr_assert(!ffu__fp_convert_ok(from, to), "%s -> %s", to->name, from->name);
			if (!fits)
				continue;
			mpz_import(p, to->nlimbs, -1, 8, 0, 0, to->p);
			for (int i = 0; i < 300; i++) {
				uint64_t v = edge_or_random(i, &state);
				unsigned char x[8], o[FFU_FIELD_MAX_BYTES], c[FFU_FIELD_MAX_BYTES];
				ffu__fp_set_u64(from, x, v);
				cr_assert(ffu__fp_convert(to, o, from, x));
				cr_assert(ffu__fp_canonical(to, o));
				/* a _mont result back to its field, to compare values */
				cr_assert(ffu__fp_convert(to->base, c, to, o));
				to_mpz(to, got, c);
				mpz_import(want, from->storage_bytes, -1, 1, 0, 0, x);
				mpz_mod(want, want, p);
				cr_assert(mpz_cmp(got, want) == 0, "%s 0x%llx -> %s", from->name, (unsigned long long)v, to->name);
			}
		}
		for (int id = FFU_FIELD_EXT_FIRST; id < FFU_FIELD_EXT_END; id++) {
			cr_assert(!ffu__fp_convert_ok(ffu__field_get((ffu_field_id)id), from));
			cr_assert(!ffu__fp_convert_ok(from, ffu__field_get((ffu_field_id)id)));
		}
		cr_assert(!ffu__fp_convert_ok(fld(FFU_TYPE_PRED), from) && !ffu__fp_convert_ok(from, fld(FFU_TYPE_PRED)));
	}
	mpz_clears(p, want, got, NULL);
}

static ffu_module *parse_ok(const char *text)
{
	ffu_module *m = NULL;
	ffu_error e = {0};
	cr_assert_eq(ffu__hlo_parse(&m, text, strlen(text), "t.hlo", &e), FFU_STATUS_OK, "%s\n%s", e.message, text);
	return m;
}

static char *print_ok(const ffu_module *m)
{
	ffu_strbuf sb = {0};
	ffu_error e = {0};
	cr_assert_eq(ffu__hlo_print(&sb, m, &e), FFU_STATUS_OK, "%s", e.message);
	char *s = strdup(ffu__sb_cstr(&sb));
	ffu__sb_free(&sb);
	return s;
}

Test(ints, literals_and_dynamic_slice_print_and_parse_back)
{
	const char *text = "HloModule t\n"
			   "ENTRY %main {\n"
			   "  %x = goldilocks[4,6] parameter(0)\n"
			   "  %u = goldilocks[2,2] parameter(1)\n"
			   "  %a = s8[3] constant({-128, 0, 127})\n"
			   "  %b = s64[] constant(-9223372036854775808)\n"
			   "  %c = u16[2] constant({65535, 0x10})\n"
			   "  %i = s16[] constant(-3)\n"
			   "  %j = s16[] constant(2)\n"
			   "  %s = goldilocks[2,3] dynamic-slice(%x, %i, %j), dynamic_slice_sizes={2,3}\n"
			   "  %d = goldilocks[4,6] dynamic-update-slice(%x, %u, %j, %i)\n"
			   "  ROOT %t = (goldilocks[2,3], goldilocks[4,6], s8[3], s64[], u16[2]) tuple(%s, %d, %a, %b, %c)\n"
			   "}\n";
	ffu_module *m = parse_ok(text);
	char *p1 = print_ok(m);
	cr_assert(strstr(p1, "s8[3] constant({-128, 0, 127})"), "%s", p1);
	cr_assert(strstr(p1, "s64[] constant(-9223372036854775808)"), "%s", p1);
	cr_assert(strstr(p1, "u16[2] constant({65535, 16})"), "%s", p1);
	cr_assert(strstr(p1, "dynamic-slice(%x, %i, %j), dynamic_slice_sizes={2,3}"), "%s", p1);
	cr_assert(strstr(p1, "dynamic-update-slice(%x, %u, %j, %i)\n"), "%s", p1);
	ffu_module *m2 = parse_ok(p1);
	char *p2 = print_ok(m2);
	cr_assert_str_eq(p1, p2);
	free(p1);
	free(p2);
	ffu__module_free(m);
	ffu__module_free(m2);
}

/* The builder: the same instructions as the text, and the verifier's messages. */
Test(ints, builder_dynamic_slices)
{
	ffu_builder *b = NULL;
	ffu_error e = {0};
	cr_assert_eq(ffu_builder_create(&b, "dyn", &e), FFU_STATUS_OK);
	ffu_node x = ffu_build_parameter(b, "x", "babybear", 2, (int64_t[]){4, 6});
	ffu_node u = ffu_build_parameter(b, "u", "babybear", 2, (int64_t[]){2, 2});
	ffu_node i = ffu_build_parameter(b, "i", "s32", 0, NULL);
	ffu_node j = ffu_build_constant_u64(b, "s32", 0xfffffffdu); /* -3 */
	ffu_node s = ffu_build_dynamic_slice(b, x, (ffu_node[]){i, j}, (int64_t[]){3, 2});
	ffu_node d = ffu_build_dynamic_update_slice(b, x, u, (ffu_node[]){j, i});
	ffu_node t = ffu_build_tuple(b, (ffu_node[]){s, d}, 2);
	ffu_program *p = NULL;
	cr_assert_eq(ffu_builder_finish(b, t, &p, &e), FFU_STATUS_OK, "%s", e.message);
	char *text = NULL;
	cr_assert_eq(ffu_program_print(&text, p, &e), FFU_STATUS_OK);
	cr_assert(strstr(text, "babybear[3,2] dynamic-slice(%x, %i, %constant.0), dynamic_slice_sizes={3,2}"), "%s", text);
	cr_assert(strstr(text, "babybear[4,6] dynamic-update-slice(%x, %u, %constant.0, %i)"), "%s", text);
	cr_assert(strstr(text, "s32[] constant(-3)"), "%s", text);
	free(text);
	ffu_program_destroy(&p);
	ffu_builder_destroy(&b);

	/* a start of the wrong type, a missing start, a window too large */
	cr_assert_eq(ffu_builder_create(&b, "bad", &e), FFU_STATUS_OK);
	x = ffu_build_parameter(b, "x", "babybear", 1, (int64_t[]){8});
	ffu_node f = ffu_build_parameter(b, "f", "babybear", 0, NULL);
	cr_assert_eq(ffu_build_dynamic_slice(b, x, &f, (int64_t[]){2}), FFU_NODE_INVALID);
	cr_assert_eq(ffu_builder_status(b, &e), FFU_STATUS_EVERIFY);
	cr_assert(strstr(e.message, "ffu_build_dynamic_slice") && strstr(e.message, "start indices are scalar integers"),
		  "%s", e.message);
	ffu_builder_destroy(&b);
	cr_assert_eq(ffu_builder_create(&b, "bad", &e), FFU_STATUS_OK);
	x = ffu_build_parameter(b, "x", "babybear", 1, (int64_t[]){8});
	i = ffu_build_parameter(b, "i", "u8", 0, NULL);
	cr_assert_eq(ffu_build_dynamic_slice(b, x, &i, (int64_t[]){9}), FFU_NODE_INVALID);
	cr_assert_eq(ffu_builder_status(b, &e), FFU_STATUS_EVERIFY);
	cr_assert(strstr(e.message, "larger than the operand"), "%s", e.message);
	ffu_builder_destroy(&b);
	cr_assert_eq(ffu_builder_create(&b, "bad", &e), FFU_STATUS_OK);
	x = ffu_build_parameter(b, "x", "babybear", 1, (int64_t[]){8});
	cr_assert_eq(ffu_build_dynamic_update_slice(b, x, x, NULL), FFU_NODE_INVALID);
	cr_assert_eq(ffu_builder_status(b, &e), FFU_STATUS_EINVAL);
	cr_assert(strstr(e.message, "starts needs one entry per dimension"), "%s", e.message);
	ffu_builder_destroy(&b);
	ffu_error_clear(&e);
}

/*
 * The simplifier's identities: a window as large as the operand is the operand, an update
 * as large as it is the update, an empty update leaves it; the code generator refuses the
 * empty update (its padded buffer would be read) when simplify is off.
 */
Test(ints, simplify_identities_and_empty_update)
{
	const char *text = "HloModule t\nENTRY %main {\n  %x = babybear[4,3] parameter(0)\n  %u = babybear[4,3] parameter(1)\n"
			   "  %e = babybear[0,3] parameter(2)\n  %i = s32[] parameter(3)\n"
			   "  %s = babybear[4,3] dynamic-slice(%x, %i, %i), dynamic_slice_sizes={4,3}\n"
			   "  %d = babybear[4,3] dynamic-update-slice(%s, %u, %i, %i)\n"
			   "  %k = babybear[4,3] dynamic-update-slice(%x, %e, %i, %i)\n"
			   "  ROOT %t = (babybear[4,3], babybear[4,3]) tuple(%d, %k)\n}\n";
	ffu_module *m = parse_ok(text);
	ffu_error e = {0};
	ffu_pass_opts po = {.fuse = false};
	cr_assert_eq(ffu__passes_run(m, &po, &e), FFU_STATUS_OK, "%s", e.message);
	char *p = print_ok(m);
	cr_assert_null(strstr(p, "dynamic-"), "%s", p);
	cr_assert(strstr(p, "tuple(%u, %x)"), "%s", p);
	free(p);
	ffu__module_free(m);

	m = parse_ok(text);
	po = (ffu_pass_opts){.fuse = true, .disable = "simplify"};
	cr_assert_eq(ffu__passes_run(m, &po, &e), FFU_STATUS_OK, "%s", e.message);
	ffu_cl cl = {0};
	ffu_test_open_device(&cl, ffu_test_devices[0]);
	ffu_exec *x = NULL;
	cr_assert_eq(ffu__exec_create(&x, &cl, m, &e), FFU_STATUS_EUNSUPPORTED, "%s", e.message);
	cr_assert(strstr(e.message, "empty update"), "%s", e.message);
	ffu__cl_close(&cl);
	ffu__module_free(m);
	ffu_error_clear(&e);
}

/* ---- the interpreter against windows written out by hand ---- */

/* Runs text on the interpreter with inputs in[]; returns the outputs. */
static ffu_value *interp(const char *text, ffu_value *in, int n_in, int *n_out)
{
	ffu_module *m = parse_ok(text);
	ffu_value *out = NULL;
	ffu_error e = {0};
	cr_assert_eq(ffu__interp_run(m, in, n_in, &out, n_out, &e), FFU_STATUS_OK, "%s", e.message);
	ffu__module_free(m);
	return out;
}

static void value_of(ffu_value *v, ffu_type t, int rank, const int64_t *dims)
{
	ffu_shape s = {.type = t, .rank = rank};
	for (int d = 0; d < rank; d++)
		s.dims[d] = dims[d];
	cr_assert_eq(ffu__value_alloc(v, &s, NULL), FFU_STATUS_OK);
}

/* element k of v (a field or integer type) set to the small integer x */
static void put(ffu_value *v, int64_t k, uint64_t x)
{
	const ffu_field *f = ffu__shape_field(&v->shape);
	ffu__fp_set_u64(f, v->data + (size_t)k * f->storage_bytes, x);
}

static uint64_t get(const ffu_value *v, int64_t k)
{
	const ffu_field *f = ffu__shape_field(&v->shape);
	unsigned char c[FFU_FIELD_MAX_BYTES];
	char buf[FFU_FIELD_TEXT_MAX];
	memcpy(c, v->data + (size_t)k * f->storage_bytes, f->storage_bytes);
	return strtoull(ffu__fp_format(f, buf, c), NULL, 10);
}

Test(ints, interpreter_dynamic_slice_by_hand)
{
	/* x = 100 + k, k = 0..9; windows of 4 */
	static const struct {
		ffu_type t;
		uint64_t start; /* bit pattern */
		int first;      /* the window's first element, written out */
	} cases[] = {
		{FFU_TYPE_S32, 2, 2},        {FFU_TYPE_S32, 6, 6},          {FFU_TYPE_S32, 7, 6},
		{FFU_TYPE_S32, 1000, 6},     {FFU_TYPE_S32, (uint64_t)-3, 0}, {FFU_TYPE_S8, 0x80, 0}, /* -128 */
		{FFU_TYPE_S8, 0x7f, 6},      {FFU_TYPE_U8, 0xff, 6},        {FFU_TYPE_U32, 0x80000000, 6},
		{FFU_TYPE_U64, ~0ull, 6},    {FFU_TYPE_S64, ~0ull, 0},      {FFU_TYPE_U16, 3, 3},
		{FFU_TYPE_S16, 0x8000, 0},
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		char text[512];
		const char *tn = ffu__type_name(cases[c].t);
		snprintf(text, sizeof text,
			 "HloModule t\nENTRY %%main {\n  %%x = babybear[10] parameter(0)\n  %%i = %s[] parameter(1)\n"
			 "  ROOT %%s = babybear[4] dynamic-slice(%%x, %%i), dynamic_slice_sizes={4}\n}\n",
			 tn);
		ffu_value in[2];
		value_of(&in[0], FFU_TYPE_BABYBEAR, 1, (int64_t[]){10});
		value_of(&in[1], cases[c].t, 0, NULL);
		for (int k = 0; k < 10; k++)
			put(&in[0], k, 100 + (uint64_t)k);
		put(&in[1], 0, cases[c].start);
		int n_out = 0;
		ffu_value *out = interp(text, in, 2, &n_out);
		for (int k = 0; k < 4; k++)
			cr_assert_eq(get(&out[0], k), 100 + (uint64_t)(cases[c].first + k), "%s start 0x%llx: element %d", tn,
				     (unsigned long long)cases[c].start, k);
		ffu__values_free(out, n_out);
		ffu__value_free(&in[0]);
		ffu__value_free(&in[1]);
	}
}

Test(ints, interpreter_rank2_windows_by_hand)
{
	/* x[r][c] = 10 r + c on [4,5]; slice {2,3} at (1, 4): column clamped to 2 */
	const char *ds = "HloModule t\nENTRY %main {\n  %x = goldilocks[4,5] parameter(0)\n  %i = s32[] parameter(1)\n"
			 "  %j = s32[] parameter(2)\n"
			 "  ROOT %s = goldilocks[2,3] dynamic-slice(%x, %i, %j), dynamic_slice_sizes={2,3}\n}\n";
	ffu_value in[4];
	value_of(&in[0], FFU_TYPE_GOLDILOCKS, 2, (int64_t[]){4, 5});
	value_of(&in[1], FFU_TYPE_S32, 0, NULL);
	value_of(&in[2], FFU_TYPE_S32, 0, NULL);
	for (int r = 0; r < 4; r++)
		for (int c = 0; c < 5; c++)
			put(&in[0], 5 * r + c, 10 * (uint64_t)r + (uint64_t)c);
	put(&in[1], 0, 1);
	put(&in[2], 0, 4);
	int n_out = 0;
	ffu_value *out = interp(ds, in, 3, &n_out);
	static const uint64_t want_ds[6] = {12, 13, 14, 22, 23, 24};
	for (int k = 0; k < 6; k++)
		cr_assert_eq(get(&out[0], k), want_ds[k], "element %d", k);
	ffu__values_free(out, n_out);

	/* update {2,2} = 900 + k at (-1, 3) -> (0, 3) into x[r][c] = 10 r + c on [3,5] */
	const char *dus = "HloModule t\nENTRY %main {\n  %x = goldilocks[3,5] parameter(0)\n"
			  "  %u = goldilocks[2,2] parameter(1)\n  %i = s32[] parameter(2)\n  %j = s32[] parameter(3)\n"
			  "  ROOT %d = goldilocks[3,5] dynamic-update-slice(%x, %u, %i, %j)\n}\n";
	ffu__value_free(&in[0]);
	value_of(&in[0], FFU_TYPE_GOLDILOCKS, 2, (int64_t[]){3, 5});
	value_of(&in[3], FFU_TYPE_S32, 0, NULL);
	ffu_value u;
	value_of(&u, FFU_TYPE_GOLDILOCKS, 2, (int64_t[]){2, 2});
	for (int r = 0; r < 3; r++)
		for (int c = 0; c < 5; c++)
			put(&in[0], 5 * r + c, 10 * (uint64_t)r + (uint64_t)c);
	for (int k = 0; k < 4; k++)
		put(&u, k, 900 + (uint64_t)k);
	ffu_value args[4] = {in[0], u, in[1], in[3]};
	put(&args[2], 0, (uint64_t)-1);
	put(&args[3], 0, 3);
	out = interp(dus, args, 4, &n_out);
	static const uint64_t want_dus[15] = {0, 1, 2, 900, 901, 10, 11, 12, 902, 903, 20, 21, 22, 23, 24};
	for (int k = 0; k < 15; k++)
		cr_assert_eq(get(&out[0], k), want_dus[k], "element %d", k);
	ffu__values_free(out, n_out);
	ffu__value_free(&in[0]);
	ffu__value_free(&in[1]);
	ffu__value_free(&in[2]);
	ffu__value_free(&in[3]);
	ffu__value_free(&u);
}

/* ---- the device against the interpreter ---- */

/*
 * One program on one device, fused, unfused and with all passes, for each of n_sets input
 * sets (in[k * n_in ...]): one build per way, every set's outputs equal to the interpreter's.
 */
static void device_matches(ffu_cl *cl, const char *text, const ffu_value *in, int n_in, int n_sets)
{
	ffu_error e = {0};
	ffu_module *m = parse_ok(text);
	ffu_value **ref = calloc((size_t)n_sets, sizeof *ref);
	int n_ref = 0;
	cr_assert(ref);
	for (int k = 0; k < n_sets; k++)
		cr_assert_eq(ffu__interp_run(m, in + k * n_in, n_in, &ref[k], &n_ref, &e), FFU_STATUS_OK, "%s", e.message);
	ffu__module_free(m);
	for (int run = 0; run < 3; run++) {
		ffu_pass_opts po = {.fuse = run != 1, .disable = run == 2 ? NULL : "simplify"};
		m = parse_ok(text);
		cr_assert_eq(ffu__passes_run(m, &po, &e), FFU_STATUS_OK, "%s", e.message);
		ffu_exec *x = NULL;
		cr_assert_eq(ffu__exec_create(&x, cl, m, &e), FFU_STATUS_OK, "%s\n%s\n%s", e.message,
			     e.build_log ? e.build_log : "", text);
		for (int k = 0; k < n_sets; k++) {
			ffu_value *out = NULL;
			int n_out = 0;
			cr_assert_eq(ffu__exec_upload(x, in + k * n_in, n_in, &e), FFU_STATUS_OK, "%s", e.message);
			cr_assert_eq(ffu__exec_run(x, NULL, NULL, &e), FFU_STATUS_OK, "%s", e.message);
			cr_assert_eq(ffu__exec_download(x, &out, &n_out, &e), FFU_STATUS_OK, "%s", e.message);
			cr_assert_eq(n_out, n_ref);
			for (int o = 0; o < n_out; o++) {
				size_t eb = ffu__shape_elem_bytes(&ref[k][o].shape);
				cr_assert_eq(out[o].bytes, ref[k][o].bytes);
				for (size_t i = 0; i < ref[k][o].bytes; i += eb)
					cr_assert(memcmp(out[o].data + i, ref[k][o].data + i, eb) == 0,
						  "on %s (%s), input set %d: output %d element %zu differs from the interpreter\n%s",
						  cl->dev.name, run == 1 ? "unfused" : run == 0 ? "fused" : "all passes", k, o,
						  i / eb, text);
			}
			ffu__values_free(out, n_out);
		}
		ffu__exec_destroy(&x);
		ffu__module_free(m);
	}
	for (int k = 0; k < n_sets; k++)
		ffu__values_free(ref[k], n_ref);
	free(ref);
	ffu_error_clear(&e);
}

/* n_sets random input sets for text's parameters (in one array, set after set); the
   scalar integer ones (starts) of set k from starts[k * n_starts ...]. */
static ffu_value *inputs_for(const char *text, const uint64_t *starts, int n_starts, int n_sets, int *n, uint64_t seed)
{
	ffu_module *m = parse_ok(text);
	*n = m->entry->n_params;
	ffu_value *in = calloc((size_t)(*n * n_sets), sizeof *in);
	cr_assert(in);
	for (int k = 0; k < n_sets; k++) {
		int q = 0;
		for (int p = 0; p < *n; p++) {
			ffu_value *v = &in[k * *n + p];
			const ffu_shape *s = &m->entry->params[p]->shape;
			cr_assert_eq(ffu__value_alloc(v, s, NULL), FFU_STATUS_OK);
			ffu__value_random(v, &seed);
			if (s->rank == 0 && ffu__shape_field(s)->kind == FFU_ELEM_UINT && q < n_starts)
				put(v, 0, starts[k * n_starts + q++]);
		}
	}
	ffu__module_free(m);
	return in;
}

static const char *const dev_fields[] = {"babybear", "goldilocks", "bn254_sf", "babybearx4", "koalabear_mont",
					 "mersenne31"};

/*
 * A window of x^2 plus y (the slice fuses with both neighbours) and an update of -x,
 * times x (fuses with its operand's producer and its consumer), rank 2, for each field and
 * each start type at starts in range, at and past the end, and negative or huge.
 */
static void run_windows(const char *device)
{
	static const char *const start_types[] = {"s32", "u64", "s8", "u16"};
	ffu_cl cl = {0};
	ffu_test_open_device(&cl, device);
	for (size_t fi = 0; fi < sizeof dev_fields / sizeof dev_fields[0]; fi++)
		for (size_t ti = 0; ti < sizeof start_types / sizeof start_types[0]; ti++) {
			const char *F = dev_fields[fi], *T = start_types[ti];
			bool is_signed = T[0] == 's';
			/* the window's starts: in range, clamped at the end, past it, below 0 / huge */
			const uint64_t starts[][2] = {
				{1, 2}, {4, 5}, {5, 100}, {is_signed ? (uint64_t)-1 : 0x7f, is_signed ? (uint64_t)-7 : ~0ull}};
			char text[1024];
			snprintf(text, sizeof text,
				 "HloModule w\nENTRY %%main {\n"
				 "  %%x = %s[6,9] parameter(0)\n  %%y = %s[2,4] parameter(1)\n  %%u = %s[3,2] parameter(2)\n"
				 "  %%i = %s[] parameter(3)\n  %%j = %s[] parameter(4)\n"
				 "  %%sq = %s[6,9] multiply(%%x, %%x)\n"
				 "  %%s = %s[2,4] dynamic-slice(%%sq, %%i, %%j), dynamic_slice_sizes={2,4}\n"
				 "  %%a = %s[2,4] add(%%s, %%y)\n"
				 "  %%n = %s[6,9] negate(%%x)\n"
				 "  %%d = %s[6,9] dynamic-update-slice(%%n, %%u, %%j, %%i)\n"
				 "  %%p = %s[6,9] multiply(%%d, %%x)\n"
				 "  ROOT %%t = (%s[2,4], %s[6,9]) tuple(%%a, %%p)\n}\n",
				 F, F, F, T, T, F, F, F, F, F, F, F, F);
			int n = 0, sets = (int)(sizeof starts / sizeof starts[0]);
			ffu_value *in = inputs_for(text, &starts[0][0], 2, sets, &n, 40 + 7 * fi + ti);
			device_matches(&cl, text, in, n, sets);
			ffu__values_free(in, n * sets);
		}
	ffu__cl_close(&cl);
}

/* Windows read by reductions: the slice fuses into the reduction kernels (input fusion). */
static void run_reductions(const char *device)
{
	static const char *const fields[] = {"goldilocks", "babybear", "bn254_sf"};
	ffu_cl cl = {0};
	ffu_test_open_device(&cl, device);
	for (size_t fi = 0; fi < sizeof fields / sizeof fields[0]; fi++) {
		const char *F = fields[fi];
		char text[1536];
		snprintf(text, sizeof text,
			 "HloModule r\n%%sum (a: %s[], b: %s[]) -> %s[] {\n  %%a = %s[] parameter(0)\n  %%b = %s[] parameter(1)\n"
			 "  ROOT %%s = %s[] add(%%a, %%b)\n}\n"
			 "ENTRY %%main {\n  %%x = %s[64,9] parameter(0)\n  %%u = %s[3,4] parameter(1)\n"
			 "  %%i = s32[] parameter(2)\n  %%j = s32[] parameter(3)\n  %%z = %s[] constant(0)\n"
			 "  %%sq = %s[64,9] multiply(%%x, %%x)\n"
			 "  %%s = %s[40,5] dynamic-slice(%%sq, %%i, %%j), dynamic_slice_sizes={40,5}\n"
			 "  %%r1 = %s[5] reduce(%%s, %%z), dimensions={0}, to_apply=%%sum\n"
			 "  %%d = %s[64,9] dynamic-update-slice(%%x, %%u, %%j, %%i)\n"
			 "  %%r2 = %s[] reduce(%%d, %%z), dimensions={0,1}, to_apply=%%sum\n"
			 "  ROOT %%t = (%s[5], %s[]) tuple(%%r1, %%r2)\n}\n",
			 F, F, F, F, F, F, F, F, F, F, F, F, F, F, F, F);
		const uint64_t starts[] = {3, 2, 30, 7, (uint64_t)-4, 1, 5, (uint64_t)-9};
		int n = 0, sets = 4;
		ffu_value *in = inputs_for(text, starts, 2, sets, &n, 70 + fi);
		device_matches(&cl, text, in, n, sets);
		ffu__values_free(in, n * sets);
	}
	ffu__cl_close(&cl);
}

/*
 * maximum, minimum and clamp of every integer type with constant bounds, scalar and
 * array, on the device against the interpreter. Mesa 22's llvmpipe crashed (SIGSEGV in
 * LLVM 15's code generation) on an s8 clamp written as compares and selects of char; the
 * kernels now call OpenCL's integer min and max (codegen/kgen_special.c: emit_minmax).
 */
static void run_int_order(const char *device)
{
	static const char *const types[] = {"s8", "s16", "s32", "s64", "u8", "u16"};
	ffu_cl cl = {0};
	ffu_test_open_device(&cl, device);
	for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
		const char *T = types[ti], *lo = T[0] == 's' ? "-2" : "1";
		char text[1536];
		snprintf(text, sizeof text,
			 "HloModule o\nENTRY %%main {\n  %%x = %s[16] parameter(0)\n  %%s = %s[] parameter(1)\n"
			 "  %%lo = %s[] constant(%s)\n  %%hi = %s[] constant(5)\n  %%c = %s[] clamp(%%lo, %%s, %%hi)\n"
			 "  %%bl = %s[16] broadcast(%%lo), dimensions={}\n  %%bh = %s[16] broadcast(%%hi), dimensions={}\n"
			 "  %%m = %s[16] maximum(%%x, %%bl)\n  %%n = %s[16] minimum(%%m, %%bh)\n"
			 "  %%k = %s[16] clamp(%%bh, %%x, %%bl)\n"
			 "  ROOT %%t = (%s[], %s[16], %s[16]) tuple(%%c, %%n, %%k)\n}\n",
			 T, T, T, lo, T, T, T, T, T, T, T, T, T, T);
		int n = 0, sets = 3;
		ffu_value *in = inputs_for(text, NULL, 0, sets, &n, 90 + ti);
		device_matches(&cl, text, in, n, sets);
		ffu__values_free(in, n * sets);
	}
	ffu__cl_close(&cl);
}

Test(ints, device_order_pocl, .timeout = 600)
{
	run_int_order(ffu_test_devices[0]);
}

Test(ints, device_order_rusticl, .timeout = 600)
{
	run_int_order(ffu_test_devices[1]);
}

Test(ints, device_reductions_pocl, .timeout = 600)
{
	run_reductions(ffu_test_devices[0]);
}

Test(ints, device_reductions_rusticl, .timeout = 600)
{
	run_reductions(ffu_test_devices[1]);
}

Test(ints, device_windows_pocl, .timeout = 600)
{
	run_windows(ffu_test_devices[0]);
}

Test(ints, device_windows_rusticl, .timeout = 600)
{
	run_windows(ffu_test_devices[1]);
}

/*
 * Integer data in kernels: slices of integer arrays at a constant start (folded on the
 * host) and a computed one (a convert, kept out of the slice's kernel by the fusion pass),
 * every integer -> integer convert of the new types, integer -> field converts (negative
 * values: the zero-extended pattern), iota of integers (wrapping), power by u8 and u16
 * exponents; random full-range integers, 1000 elements.
 */
static void run_integers(const char *device)
{
	ffu_cl cl = {0};
	ffu_test_open_device(&cl, device);
	for (int a = 0; a < N_NEW; a++) {
		const char *A = ffu__type_name(new_ints[a]);
		char text[4096];
		int len = snprintf(text, sizeof text,
				   "HloModule k\nENTRY %%main {\n  %%x = %s[1000] parameter(0)\n  %%w = u32[] parameter(1)\n"
				   "  %%c = %s[] constant(%s)\n  %%k = %s[] convert(%%w)\n"
				   "  %%s1 = %s[5] dynamic-slice(%%x, %%c), dynamic_slice_sizes={5}\n"
				   "  %%s2 = %s[7] dynamic-slice(%%x, %%k), dynamic_slice_sizes={7}\n",
				   A, A, fld(new_ints[a])->is_signed ? "-2" : "3", A, A, A);
		char root[1024] = "(";
		char types[1024] = "";
		int nr = 0;
		for (int b = 0; b < N_ALL; b++) {
			const char *B = ffu__type_name(all_ints[b]);
			len += snprintf(text + len, sizeof text - (size_t)len, "  %%c%d = %s[1000] convert(%%x)\n", b, B);
			nr += snprintf(root + strlen(root), sizeof root - strlen(root), "%s%%c%d", nr ? ", " : "", b);
			snprintf(types + strlen(types), sizeof types - strlen(types), "%s%s[1000]", b ? ", " : "", B);
		}
		static const char *const targets[] = {"goldilocks", "goldilocks_mont", "bn254_sf", "babybear", "mersenne31_mont"};
		char fields_part[512] = "";
		for (size_t t = 0; t < sizeof targets / sizeof targets[0]; t++) {
			if (fld(new_ints[a])->bits > 32 && t >= 3)
				continue; /* wider than the 31-bit fields' storage: ZKX refuses */
			len += snprintf(text + len, sizeof text - (size_t)len, "  %%f%zu = %s[1000] convert(%%x)\n", t, targets[t]);
			snprintf(root + strlen(root), sizeof root - strlen(root), ", %%f%zu", t);
			snprintf(fields_part + strlen(fields_part), sizeof fields_part - strlen(fields_part), ", %s[1000]",
				 targets[t]);
		}
		/* iota past the type's range wraps (s8: 127, -128, ...) */
		len += snprintf(text + len, sizeof text - (size_t)len, "  %%io = %s[1000] iota(), iota_dimension=0\n", A);
		snprintf(root + strlen(root), sizeof root - strlen(root), ", %%io");
		snprintf(fields_part + strlen(fields_part), sizeof fields_part - strlen(fields_part), ", %s[1000]", A);
		if (!fld(new_ints[a])->is_signed && fld(new_ints[a])->bits < 32) { /* u8, u16 exponents */
			len += snprintf(text + len, sizeof text - (size_t)len,
					"  %%b = babybear[1000] convert(%%x)\n  %%pw = babybear[1000] power(%%b, %%x)\n");
			snprintf(root + strlen(root), sizeof root - strlen(root), ", %%pw");
			snprintf(fields_part + strlen(fields_part), sizeof fields_part - strlen(fields_part), ", babybear[1000]");
		}
		snprintf(text + len, sizeof text - (size_t)len, "  ROOT %%t = (%s[5], %s[7], %s%s) tuple(%%s1, %%s2, %s)\n}\n", A,
			 A, types, fields_part, root + 1);
		const uint64_t starts[] = {995, (uint64_t)-1, 4};
		int n = 0, sets = (int)(sizeof starts / sizeof starts[0]);
		ffu_value *in = inputs_for(text, starts, 1, sets, &n, 900 + (uint64_t)a);
		/* the edges of the source type first */
		static const uint64_t edges[] = {0, 1, ~0ull, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x7fffffff, 0x80000000};
		for (int k = 0; k < sets; k++)
			for (size_t q = 0; q < sizeof edges / sizeof edges[0]; q++)
				put(&in[k * n], (int64_t)q, edges[q]);
		device_matches(&cl, text, in, n, sets);
		ffu__values_free(in, n * sets);
	}
	ffu__cl_close(&cl);
}

Test(ints, device_integers_pocl, .timeout = 600)
{
	run_integers(ffu_test_devices[0]);
}

Test(ints, device_integers_rusticl, .timeout = 600)
{
	run_integers(ffu_test_devices[1]);
}
