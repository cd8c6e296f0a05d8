/*
 * tests/fuzz/fuzz_hlo.c: fuzz target for the HLO front end and everything after it that
 * needs no device: parse (which verifies), verify again, the pass pipeline fused and
 * unfused, print, re-parse, print again (must be identical: the printer's contract in
 * hlo.h), and code generation. Any input may be rejected, but only with a status and a
 * message; everything accepted must survive the whole chain.
 *
 * Ownership: every module, buffer and error record is freed before returning.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen.h"
#include "fuzz.h"
#include "hlo/hlo.h"
#include "passes/passes.h"

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

static void run_pipeline(const uint8_t *data, size_t size, bool fuse)
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
	st = ffu__codegen_program(&src, m, &n_kernels, &e);
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

int ffu_fuzz_hlo(const uint8_t *data, size_t size)
{
	ffu_error e = {0};
	ffu_module *m = NULL;
	ffu_status st = ffu__hlo_parse(&m, (const char *)data, size, "fuzz.hlo", &e);

	if (st) {
		check_error(st, &e, "parse");
		CHECK(m == NULL, "parse failed but returned a module");
		goto out;
	}
	st = ffu__module_verify(m, "fuzz.hlo", &e);
	CHECK(st == FFU_STATUS_OK, "parsed module does not verify: %s", e.message);
	check_print_roundtrip(m, "parsed");
	run_pipeline(data, size, true);
	run_pipeline(data, size, false);
out:
	ffu__module_free(m);
	ffu_error_clear(&e);
	return 0;
}
