/*
 * tests/fuzz/fuzz_hlo.c: fuzz target for the HLO front end and everything after it that
 * needs no device: parse (which verifies), verify again, the pass pipeline fused and
 * unfused, print, re-parse, print again (must be identical: the printer's contract in
 * hlo.h), and code generation. Any input may be rejected, but only with a status and a
 * message; everything accepted must survive the whole chain. The text is also read in
 * dialect zkx-2026.01 (plain names Montgomery), which must agree with auto where auto
 * chose that dialect.
 *
 * Ownership: every module, buffer and error record is freed before returning.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen.h"
#include "device/target.h"
#include "fuzz.h"
#include "hlo/hlo.h"
#include "interp/interp.h"
#include "passes/passes.h"

enum { SMALL = 4096 };

/* Test code: a broken invariant is a crash on purpose, so the fuzzer keeps the input. */
#define CHECK(cond, ...)                                           \
	do {                                                       \
		if (!(cond)) {                                     \
			fprintf(stderr, "fuzz_hlo: " __VA_ARGS__); \
			fputc('\n', stderr);                       \
			abort();                                   \
		}                                                  \
	} while (0)

/* A rejection must say what went wrong. */
static void check_error(ffu_status st, const ffu_error *e, const char *stage)
{
	CHECK(st < 0, "%s: status %d is not an error", stage, (int)st);
	CHECK(e->status == st, "%s: status %d but error record says %d", stage, (int)st, (int)e->status);
	CHECK(e->message[0], "%s: failed (%s) without a message", stage, ffu_status_str(st));
	CHECK(memchr(e->message, '\0', sizeof e->message), "%s: message not terminated", stage);
}

/* print -> parse -> print gives the same text. */
static void check_print_roundtrip(const ffu_module *m, const char *stage)
{
	ffu_error e = {0};
	ffu_strbuf a = {0}, b = {0};
	ffu_module *m2 = NULL;
	ffu_status st = ffu__hlo_print(&a, m, &e);

	if (st) {
		/* only names that are not HLO words may refuse to print */
		check_error(st, &e, stage);
		CHECK(st == FFU_STATUS_EINVAL, "%s: print failed: %s", stage, e.message);
		goto out;
	}
	st = ffu__hlo_parse(&m2, a.data, a.len, "printed.hlo", &e);
	CHECK(st == FFU_STATUS_OK, "%s: printed module does not parse: %s:%d:%d: %s\n%s", stage, e.file, e.line,
	      e.col, e.message, ffu__sb_cstr(&a));
	st = ffu__hlo_print(&b, m2, &e);
	CHECK(st == FFU_STATUS_OK, "%s: re-parsed module does not print: %s", stage, e.message);
	CHECK(a.len == b.len && memcmp(a.data, b.data, a.len) == 0, "%s: print is not a fixed point:\n%s\n---\n%s",
	      stage, ffu__sb_cstr(&a), ffu__sb_cstr(&b));
out:
	ffu__module_free(m2);
	ffu__sb_free(&a);
	ffu__sb_free(&b);
	ffu_error_clear(&e);
}

static bool small_shape(const ffu_shape *s)
{
	if (s->type == FFU_TYPE_TUPLE) {
		for (int i = 0; i < s->n_elems; i++)
			if (!small_shape(&s->elems[i]))
				return false;
		return true;
	}
	for (int i = 0, n = 1; i < s->rank; i++) {
		if (s->dims[i] > SMALL || (n *= (int)s->dims[i]) > SMALL)
			return false;
	}
	return true;
}

/* Every value of every computation has at most SMALL elements: cheap to interpret. */
static bool small_module(const ffu_module *m)
{
	for (int c = 0; c < m->n_comps; c++)
		for (int i = 0; i < m->comps[c]->n_insts; i++)
			if (!small_shape(&m->comps[c]->insts[i]->shape))
				return false;
	return true;
}

typedef struct values {
	ffu_value *v;
	int n;
} values;

static void values_free(values *vs)
{
	for (int i = 0; vs->v && i < vs->n; i++)
		ffu__value_free(&vs->v[i]);
	free(vs->v);
	vs->v = NULL;
	vs->n = 0;
}

/* Random inputs for m's parameters, seeded by the input bytes; false if none can be made. */
static bool make_inputs(const ffu_module *m, values *in, const uint8_t *data, size_t size)
{
	uint64_t seed = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < size; i++)
		seed = (seed ^ data[i]) * 0x100000001b3ull;
	in->n = m->entry->n_params;
	in->v = calloc((size_t)in->n + 1, sizeof *in->v);
	for (int p = 0; in->v && p < in->n; p++) {
		if (ffu__value_alloc(&in->v[p], &m->entry->params[p]->shape, NULL))
			return false;
		ffu__value_random(&in->v[p], &seed);
	}
	return in->v != NULL;
}

static void check_same_values(const values *a, const values *b, const char *stage)
{
	CHECK(a->n == b->n, "%s: %d outputs before the passes, %d after", stage, a->n, b->n);
	for (int o = 0; o < a->n; o++)
		CHECK(a->v[o].bytes == b->v[o].bytes && memcmp(a->v[o].data, b->v[o].data, a->v[o].bytes) == 0,
		      "%s: output %d changed by the passes", stage, o);
}

/* ref (may be NULL): the interpreter's outputs on in before the passes. */
static void run_pipeline(const uint8_t *data, size_t size, bool fuse, const values *in, const values *ref)
{
	ffu_error e = {0};
	ffu_module *m = NULL;
	ffu_strbuf src = {0};
	int n_kernels = -1;
	const char *stage = fuse ? "fused" : "unfused";
	ffu_status st = ffu__hlo_parse(&m, (const char *)data, size, "fuzz.hlo", &e);

	CHECK(st == FFU_STATUS_OK, "second parse of the same text failed: %s", e.message);
	ffu_pass_opts po = {.fuse = fuse};
	st = ffu__passes_run(m, &po, &e);
	if (st) {
		check_error(st, &e, stage);
		goto out;
	}
	st = ffu__module_verify(m, "fuzz.hlo", &e);
	CHECK(st == FFU_STATUS_OK, "%s: module after passes does not verify: %s", stage, e.message);
	check_print_roundtrip(m, stage);
	if (ref) {
		values got = {0};
		st = ffu__interp_run(m, in->v, in->n, &got.v, &got.n, &e);
		CHECK(st == FFU_STATUS_OK, "%s: the interpreter ran the module before the passes, not after: %s", stage,
		      e.message);
		check_same_values(ref, &got, stage);
		values_free(&got);
	}
	ffu_target t;
	ffu__target_generic(&t, FFU_DEVICE_CLASS_CPU, 4);
	st = ffu__codegen_program(&src, m, &t, &n_kernels, &e);
	if (st)
		check_error(st, &e, stage);
	else
		CHECK(n_kernels >= 0 && (n_kernels == 0 || src.len > 0), "%s: %d kernels, %zu bytes of source", stage,
		      n_kernels, src.len);
out:
	ffu__sb_free(&src);
	ffu__module_free(m);
	ffu_error_clear(&e);
}

/*
 * The same text read in dialect zkx-2026.01 explicitly: accepted or rejected with a message
 * like any input; where AUTO (auto_m, read with auto_o) already chose that dialect, the
 * explicit reading must give the same module.
 */
static void check_zkx_dialect(const uint8_t *data, size_t size, const ffu_module *auto_m,
			      const ffu_parse_options *auto_o)
{
	ffu_error e = {0};
	ffu_module *m = NULL;
	ffu_strbuf a = {0}, b = {0};
	bool same_dialect = auto_m && auto_o->dialect_used == FFU_DIALECT_ZKX_2026_01;
	ffu_parse_options o = {.dialect = FFU_DIALECT_ZKX_2026_01};
	ffu_status st = ffu__hlo_parse_with(&m, (const char *)data, size, "fuzz.hlo", &o, &e);

	if (st) {
		check_error(st, &e, "parse as zkx-2026.01");
		CHECK(!same_dialect, "zkx-2026.01 rejects what auto read as zkx-2026.01: %s", e.message);
		goto out;
	}
	CHECK(o.dialect_used == FFU_DIALECT_ZKX_2026_01 && o.auto_line == 0, "explicit dialect not kept");
	check_print_roundtrip(m, "zkx-2026.01");
	if (same_dialect && ffu__hlo_print(&a, auto_m, &e) == FFU_STATUS_OK && ffu__hlo_print(&b, m, &e) == FFU_STATUS_OK)
		CHECK(a.len == b.len && memcmp(a.data, b.data, a.len) == 0, "auto and explicit zkx-2026.01 differ:\n%s\n---\n%s",
		      ffu__sb_cstr(&a), ffu__sb_cstr(&b));
out:
	ffu__sb_free(&a);
	ffu__sb_free(&b);
	ffu__module_free(m);
	ffu_error_clear(&e);
}

int ffu_fuzz_hlo(const uint8_t *data, size_t size)
{
	ffu_error e = {0};
	ffu_module *m = NULL;
	values in = {0}, ref = {0};
	bool have_ref = false;
	ffu_parse_options po = {0};
	ffu_status st = ffu__hlo_parse_with(&m, (const char *)data, size, "fuzz.hlo", &po, &e);

	check_zkx_dialect(data, size, st ? NULL : m, &po);
	if (st) {
		check_error(st, &e, "parse");
		CHECK(m == NULL, "parse failed but returned a module");
		goto out;
	}
	st = ffu__module_verify(m, "fuzz.hlo", &e);
	CHECK(st == FFU_STATUS_OK, "parsed module does not verify: %s", e.message);
	check_print_roundtrip(m, "parsed");
	/* the interpreter may refuse a program (an op it lacks): then there is nothing to compare */
	if (small_module(m) && make_inputs(m, &in, data, size))
		have_ref = ffu__interp_run(m, in.v, in.n, &ref.v, &ref.n, &e) == FFU_STATUS_OK;
	run_pipeline(data, size, true, &in, have_ref ? &ref : NULL);
	run_pipeline(data, size, false, &in, have_ref ? &ref : NULL);
out:
	values_free(&in);
	values_free(&ref);
	ffu__module_free(m);
	ffu_error_clear(&e);
	return 0;
}
