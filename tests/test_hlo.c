/*
 * tests/test_hlo.c: the HLO front end (src/hlo, src/ir/verify.c): round trips, the
 * malformed-input corpus tests/bad/NAME.hlo, hostile input (NUL bytes, deep nesting, every
 * truncation of a valid module), the verifier on modules built through the API, and the
 * reference interpreter on every opcode against answers worked out by hand.
 * Owned by the HLO front end.
 *
 * Each tests/bad/NAME.hlo starts with `// expect: LINE:COL: SUBSTRING`: parsing it must fail
 * with EPARSE, EVERIFY or EUNSUPPORTED at exactly LINE:COL with SUBSTRING in the message.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hlo/hlo.h"
#include "interp/interp.h"
#include "hlo_check.h"
#include "support.h"

/* HLO.md section 2 with a broadcast instead of its reduce (the reduce form: hlo_md_example). */
static const char *const seed_module =
	"HloModule seed_fusion\n"
	"\n"
	"%sum (a: babybear[], b: babybear[]) -> babybear[] {\n"
	"  %a = babybear[] parameter(0)\n"
	"  %b = babybear[] parameter(1)\n"
	"  ROOT %c = babybear[] add(%a, %b)\n"
	"}\n"
	"\n"
	"ENTRY %main (x: babybear[1048576], y: babybear[1048576]) -> (babybear[1048576], babybear[1048576]) {\n"
	"  %x = babybear[1048576]{0} parameter(0)\n"
	"  %y = babybear[1048576] parameter(1)\n"
	"  %s = babybear[1048576] add(babybear[1048576] %x, %y)\n"
	"  %m = babybear[1048576] multiply(%s, %x)\n"
	"  %zero = babybear[] constant(0)\n"
	"  %z = babybear[1048576] broadcast(%zero), dimensions={}\n"
	"  %t = babybear[1048576] subtract(%m, %z)\n"
	"  ROOT %r = (babybear[1048576], babybear[1048576]) tuple(%m, %t)\n"
	"}\n";

Test(hlo, seed_module_round_trip_is_canonical)
{
	char *t = round_trip(seed_module);
	/* The canonical form drops the layout and the operand shape, nothing else. */
	const char *want =
		"HloModule seed_fusion\n"
		"\n"
		"%sum (a: babybear[], b: babybear[]) -> babybear[] {\n"
		"  %a = babybear[] parameter(0)\n"
		"  %b = babybear[] parameter(1)\n"
		"  ROOT %c = babybear[] add(%a, %b)\n"
		"}\n"
		"\n"
		"ENTRY %main (x: babybear[1048576], y: babybear[1048576]) -> (babybear[1048576], babybear[1048576]) {\n"
		"  %x = babybear[1048576] parameter(0)\n"
		"  %y = babybear[1048576] parameter(1)\n"
		"  %s = babybear[1048576] add(%x, %y)\n"
		"  %m = babybear[1048576] multiply(%s, %x)\n"
		"  %zero = babybear[] constant(0)\n"
		"  %z = babybear[1048576] broadcast(%zero), dimensions={}\n"
		"  %t = babybear[1048576] subtract(%m, %z)\n"
		"  ROOT %r = (babybear[1048576], babybear[1048576]) tuple(%m, %t)\n"
		"}\n";
	cr_assert_str_eq(t, want);
	free(t);
}

Test(hlo, module_structure)
{
	ffu_module *m = parse_ok(seed_module);
	cr_assert_eq(m->n_comps, 2);
	cr_assert_eq(m->entry, m->comps[1]);
	cr_assert(m->entry->is_entry);
	cr_assert_not(m->comps[0]->is_entry);
	cr_assert_eq(m->entry->n_params, 2);
	cr_assert_str_eq(m->entry->params[1]->name, "y");
	cr_assert_str_eq(m->entry->root->name, "r");
	const ffu_inst *s = m->entry->insts[2];
	cr_assert_eq(s->op, FFU_OP_ADD);
	cr_assert_eq(s->operands[0], m->entry->params[0]);
	cr_assert_eq(s->line, 12);
	cr_assert_eq(s->col, 3);
	cr_assert_eq(m->entry->root->shape.type, FFU_TYPE_TUPLE);
	cr_assert_eq(m->entry->root->shape.n_elems, 2);
	ffu__module_free(m);
}

Test(hlo, comments_optional_percent_no_signature_implicit_root)
{
	const char *text =
		"// leading comment\n"
		"HloModule  no_sigils, entry_computation_layout={(babybear[4]{0})->babybear[4]{0}}\n"
		"/* block\n comment { ( */\n"
		"ENTRY main {\n"
		"  x = babybear[4]{0} parameter(0) // trailing\n"
		"  n.1 = babybear[4] negate(x)\n"
		"  add-2 = babybear[4] /* inline */ add(n.1, babybear[4]{0} x)\n"
		"  0 = babybear[4] multiply(add-2, add-2)\n"
		"}\n";
	ffu_module *m = parse_ok(text);
	cr_assert_str_eq(m->name, "no_sigils");
	cr_assert_str_eq(m->entry->root->name, "0");
	ffu__module_free(m);
	char *t = round_trip(text);
	cr_assert(strstr(t, "ROOT %0 = babybear[4] multiply(%add-2, %add-2)\n"), "%s", t);
	cr_assert(strstr(t, "ENTRY %main (x: babybear[4]) -> babybear[4] {\n"), "%s", t);
	free(t);
}

Test(hlo, constants_scalar_array_hex_and_bn254)
{
	const char *text =
		"HloModule consts\n"
		"ENTRY %main {\n"
		"  %a = babybear[] constant(0x77ffffff)\n"
		"  %b = babybear[3] constant({0, 1, 2013265920})\n"
		"  %e = babybear[0] constant({})\n"
		"  %c = bn254_sf[2] constant({0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000000, 12345678901234567890123456789})\n"
		"  ROOT %t = (babybear[], babybear[3], babybear[0], bn254_sf[2]) tuple(%a, %b, %e, %c)\n"
		"}\n";
	char *t = round_trip(text);
	cr_assert(strstr(t, "%a = babybear[] constant(2013265919)\n"), "%s", t);
	cr_assert(strstr(t, "%b = babybear[3] constant({0, 1, 2013265920})\n"), "%s", t);
	cr_assert(strstr(t, "%e = babybear[0] constant({})\n"), "%s", t);
	cr_assert(strstr(t, "constant({21888242871839275222246405745257275088548364400416034343698204186575808495616, "
			    "12345678901234567890123456789})"), "%s", t);
	free(t);
}

Test(hlo, fusion_tuple_and_get_tuple_element)
{
	const char *text =
		"HloModule fused\n"
		"\n"
		"%fused.0 (p0: bn254_sf[8], p1: bn254_sf[8]) -> (bn254_sf[8], bn254_sf[8]) {\n"
		"  %p0 = bn254_sf[8] parameter(0)\n"
		"  %p1 = bn254_sf[8] parameter(1)\n"
		"  %sq = bn254_sf[8] multiply(%p0, %p0)\n"
		"  %d = bn254_sf[8] subtract(%sq, %p1)\n"
		"  ROOT %t = (bn254_sf[8], bn254_sf[8]) tuple(%sq, %d)\n"
		"}\n"
		"\n"
		"%fused.1 (q: bn254_sf[8]) -> bn254_sf[8] {\n"
		"  ROOT %nq = bn254_sf[8] negate(%q)\n"
		"  %q = bn254_sf[8] parameter(0)\n"
		"}\n";
	/* ROOT need not be last, but operands must come first: this one is invalid. */
	ffu_error e = {0};
	cr_assert_eq(parse_err(text, strlen(text), &e), FFU_STATUS_EPARSE);
	cr_assert(strstr(e.message, "before its definition"), "%s", e.message);

	const char *good =
		"HloModule fused\n"
		"%fused.0 (p0: bn254_sf[8], p1: bn254_sf[8]) -> (bn254_sf[8], bn254_sf[8]) {\n"
		"  %p1 = bn254_sf[8] parameter(1)\n"
		"  %p0 = bn254_sf[8] parameter(0)\n"
		"  %sq = bn254_sf[8] multiply(%p0, %p0)\n"
		"  %d = bn254_sf[8] subtract(%sq, %p1)\n"
		"  ROOT %t = (bn254_sf[8], bn254_sf[8]) tuple(%sq, %d)\n"
		"}\n"
		"%fused.1 (q: bn254_sf[8]) -> bn254_sf[8] {\n"
		"  %q = bn254_sf[8] parameter(0)\n"
		"  ROOT %nq = bn254_sf[8] negate(%q)\n"
		"}\n"
		"ENTRY %main (x: bn254_sf[8], y: bn254_sf[8]) -> (bn254_sf[8], bn254_sf[8]) {\n"
		"  %x = bn254_sf[8] parameter(0)\n"
		"  %y = bn254_sf[8] parameter(1)\n"
		"  %f = (bn254_sf[8], bn254_sf[8]) fusion(%x, %y), kind=kLoop, calls=%fused.0, metadata={op_name=\"f}\" x={1}}\n"
		"  %g0 = bn254_sf[8] get-tuple-element(%f), index=0\n"
		"  %g1 = bn254_sf[8] get-tuple-element((bn254_sf[8], bn254_sf[8]) %f), index=1, backend_config=\"{}\"\n"
		"  %h = bn254_sf[8] fusion(%g1), calls=fused.1, kind=kInput, sharding={replicated}\n"
		"  ROOT %out = (bn254_sf[8], bn254_sf[8]) tuple(%g0, %h)\n"
		"}\n";
	ffu_module *m = parse_ok(good);
	cr_assert(m->comps[0]->is_fused);
	cr_assert(m->comps[1]->is_fused);
	cr_assert_not(m->entry->is_fused);
	/* parameter(1) defined first still lands in slot 1. */
	cr_assert_str_eq(m->comps[0]->params[0]->name, "p0");
	cr_assert_eq(m->entry->insts[5]->fusion_kind, FFU_FUSION_INPUT);
	cr_assert_eq(m->entry->insts[5]->callee, m->comps[1]);
	ffu__module_free(m);
	char *t = round_trip(good);
	cr_assert(strstr(t, "  %f = (bn254_sf[8], bn254_sf[8]) fusion(%x, %y), kind=kLoop, calls=%fused.0\n"), "%s", t);
	cr_assert(strstr(t, "  %g1 = bn254_sf[8] get-tuple-element(%f), index=1\n"), "%s", t);
	/* sharding is kept (docs/hlo.md "Sharding"); metadata and backend_config are not */
	cr_assert(strstr(t, "  %h = bn254_sf[8] fusion(%g1), kind=kInput, calls=%fused.1, sharding={replicated}\n"), "%s", t);
	cr_assert(strstr(t, "%fused.0 (p0: bn254_sf[8], p1: bn254_sf[8]) -> (bn254_sf[8], bn254_sf[8]) {\n"), "%s", t);
	free(t);
}

Test(hlo, signature_layouts_and_empty_tuple)
{
	const char *text =
		"HloModule lay\n"
		"ENTRY %main (x: babybear[4]{0}) -> babybear[4]{0} {\n"
		"  %x = babybear[4]{0} parameter(0)\n"
		"  %e = () tuple()\n"
		"  ROOT %n = babybear[4]{0} negate(babybear[4]{0} %x)\n"
		"}\n";
	char *t = round_trip(text);
	cr_assert(strstr(t, "  %e = () tuple()\n"), "%s", t);
	free(t);
	/* No spaces around "->", and an XLA-style signature with layouts. */
	const char *text3 = "HloModule l3\nENTRY %main.5 (Arg_0.1:babybear[4]{0})->babybear[4]{0}{\n"
			    "  %Arg_0.1 = babybear[4]{0} parameter(0)\n  ROOT %negate.2 = babybear[4]{0} negate(%Arg_0.1)\n}\n";
	free(round_trip(text3));
	/* `-> shape {}` : an empty layout followed by the body, which must not be taken as a layout. */
	const char *text2 = "HloModule l2\nENTRY %main () -> babybear[] {} {\n ROOT %c = babybear[] constant(7)\n}\n";
	free(round_trip(text2));
}

/* --- the malformed-input corpus --- */

static void check_bad_file(const char *dir, const char *name)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	size_t len = 0;
	char *text = ffu_test_read_file(path, &len);
	cr_assert_not_null(text, "cannot read %s", path);
	int line = 0, col = 0, off = 0;
	int k = sscanf(text, "// expect: %d:%d: %n", &line, &col, &off);
	cr_assert(k == 2 && off > 0, "%s: first line must be `// expect: LINE:COL: message`", name);
	const char *msg = text + off;
	size_t mlen = strcspn(msg, "\n");
	char want[512];
	snprintf(want, sizeof want, "%.*s", (int)mlen, msg);

	ffu_error e = {0};
	ffu_status st = parse_err(text, len, &e);
	cr_expect(st == FFU_STATUS_EPARSE || st == FFU_STATUS_EVERIFY || st == FFU_STATUS_EUNSUPPORTED,
		  "%s: status %d (%s), message: %s", name, st, ffu_status_str(st), e.message);
	cr_expect(e.line == line && e.col == col && strstr(e.message, want),
		  "%s: got %d:%d: %s (status %s); expected %d:%d: %s", name, e.line, e.col, e.message,
		  ffu_status_str(st), line, col, want);
	cr_expect_str_eq(e.file, "bad.hlo");
	free(text);
}

Test(hlo, bad_corpus)
{
	char *dir = ffu_test_path("tests/bad");
	DIR *d = opendir(dir);
	cr_assert_not_null(d, "cannot open %s", dir);
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (l > 4 && strcmp(de->d_name + l - 4, ".hlo") == 0) {
			check_bad_file(dir, de->d_name);
			n++;
		}
	}
	closedir(d);
	free(dir);
	cr_assert_geq(n, 25, "only %d files in tests/bad", n);
}

/* --- hostile input --- */

Test(hlo, binary_junk_with_nul_bytes)
{
	const char junk[] = "HloModule m\nENTRY %main {\n  %x = babybear[4] parameter(0)\0\xff\x01 junk\n}\n";
	ffu_error e = {0};
	cr_assert_eq(parse_err(junk, sizeof junk - 1, &e), FFU_STATUS_EPARSE);
	cr_assert_eq(e.line, 3);
	cr_assert_eq(e.col, 32);
	cr_assert(strstr(e.message, "unexpected byte"), "%s", e.message);

	/* The length is authoritative: text after len must never be looked at. */
	const char *ok = "HloModule m\nENTRY %main {\n %x = babybear[4] parameter(0)\n}\nGARBAGE(";
	ffu_module *m = NULL;
	cr_assert_eq(ffu__hlo_parse(&m, ok, strlen(ok) - 9, "x", &e), FFU_STATUS_OK, "%s", e.message);
	ffu__module_free(m);
}

Test(hlo, random_bytes_never_crash)
{
	uint64_t state = 42;
	char buf[512];
	for (int iter = 0; iter < 2000; iter++) {
		size_t len = ffu__rand_next(&state) % sizeof buf;
		for (size_t i = 0; i < len; i++) {
			/* Mostly HLO-ish bytes so the parser gets past the first token now and then. */
			static const char alphabet[] = "HloModule ENTRY ROOT %x=babybear[4]{}(),:->add parameter0\n/*\"";
			uint64_t r = ffu__rand_next(&state);
			buf[i] = r % 8 == 0 ? (char)(r >> 8) : alphabet[(r >> 8) % (sizeof alphabet - 1)];
		}
		ffu_error e = {0};
		ffu_module *m = NULL;
		if (ffu__hlo_parse(&m, buf, len, "fuzz", &e) == FFU_STATUS_OK)
			ffu__module_free(m);
	}
}

/* Mutated valid modules: never crash; whatever still parses must round-trip. */
Test(hlo, mutations_parse_or_fail_cleanly)
{
	size_t n = strlen(seed_module);
	char *buf = malloc(n + 16);
	cr_assert_not_null(buf);
	uint64_t state = 7;
	int parsed = 0;
	static const char pool[] = "(){}[],=:%-.0123456789x\"/*\n \0\xff";
	for (int iter = 0; iter < 3000; iter++) {
		memcpy(buf, seed_module, n);
		size_t len = n;
		for (int k = 0; k < 1 + (int)(ffu__rand_next(&state) % 3); k++) {
			size_t at = ffu__rand_next(&state) % len;
			uint64_t r = ffu__rand_next(&state);
			if (r % 3 == 0 && len > 1) { /* delete */
				memmove(buf + at, buf + at + 1, len - at - 1);
				len--;
			} else if (r % 3 == 1) { /* replace */
				buf[at] = pool[(r >> 8) % (sizeof pool - 1)];
			} else if (len < n + 16) { /* insert */
				memmove(buf + at + 1, buf + at, len - at);
				buf[at] = pool[(r >> 8) % (sizeof pool - 1)];
				len++;
			}
		}
		ffu_error e = {0};
		ffu_module *m = NULL;
		if (ffu__hlo_parse(&m, buf, len, "mut", &e) != FFU_STATUS_OK) {
			cr_assert_null(m);
			cr_assert(e.message[0], "error without a message");
			continue;
		}
		parsed++;
		free(reprint(m));
		ffu__module_free(m);
	}
	free(buf);
	cr_assert_gt(parsed, 0);
}

/*
 * A truncated module fails, except where the prefix ends with a whole computation before the
 * ENTRY one: without ENTRY the last computation is the entry (ZKX's rule), so that prefix is
 * a module of its own.
 */
static void assert_truncation_result(const char *text, size_t len, ffu_status st, const ffu_module *m)
{
	size_t end = len;
	while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == ' '))
		end--;
	const char *entry = strstr(text, "ENTRY");
	bool whole_callee = end > 0 && text[end - 1] == '}' && (!entry || (size_t)(entry - text) >= len);
	if (!whole_callee) {
		cr_assert_neq(st, FFU_STATUS_OK, "prefix of %zu bytes parsed", len);
		return;
	}
	if (st == FFU_STATUS_OK) {
		cr_assert_not_null(m);
		cr_assert_eq(m->entry, m->comps[m->n_comps - 1], "prefix of %zu bytes: entry is not the last computation", len);
		cr_assert(m->entry->is_entry);
	}
}

Test(hlo, every_truncation_fails_cleanly)
{
	size_t n = strlen(seed_module);
	for (size_t len = 0; len < n; len++) {
		ffu_error e = {0};
		ffu_module *m = NULL;
		/* A prefix ending right after the last '}' (before "\n") is the whole module. */
		ffu_status st = ffu__hlo_parse(&m, seed_module, len, "t", &e);
		if (len == n - 1)
			cr_assert_eq(st, FFU_STATUS_OK);
		else
			assert_truncation_result(seed_module, len, st, m);
		ffu__module_free(m);
	}
}

static char *nested(const char *head, char open, size_t depth, const char *tail)
{
	size_t h = strlen(head);
	char *s = malloc(h + depth + strlen(tail) + 1);
	cr_assert_not_null(s);
	memcpy(s, head, h);
	memset(s + h, open, depth);
	strcpy(s + h + depth, tail);
	return s;
}

Test(hlo, deep_nesting_is_an_error_not_a_crash)
{
	const char *head = "HloModule m\nENTRY %main {\n  %x = ";
	char *s = nested(head, '(', 10000, "babybear[] parameter(0)\n}\n");
	ffu_error e = {0};
	cr_assert_eq(parse_err(s, strlen(s), &e), FFU_STATUS_EPARSE);
	cr_assert_eq(e.line, 3, "%d:%d: %s", e.line, e.col, e.message);
	cr_assert_eq(e.col, 8 + FFU_HLO_MAX_NESTING);
	cr_assert(strstr(e.message, "nested"), "%s", e.message);
	free(s);

	/* Operand annotations are shapes too. */
	s = nested("HloModule m\nENTRY %main {\n  %x = babybear[] parameter(0)\n  %y = babybear[] negate(", '(',
		   10000, "\n}\n");
	e = (ffu_error){0};
	cr_assert_eq(parse_err(s, strlen(s), &e), FFU_STATUS_EPARSE);
	cr_assert(strstr(e.message, "nested"), "%s", e.message);
	free(s);

	/* Ignored attribute values are skipped without recursion: deep but balanced is fine. */
	size_t depth = 100000;
	char *meta = malloc(2 * depth + 200);
	char *p = meta + sprintf(meta, "HloModule m\nENTRY %%main {\n  %%x = babybear[] parameter(0), metadata=");
	memset(p, '{', depth);
	memset(p + depth, '}', depth);
	strcpy(p + 2 * depth, "\n}\n");
	ffu_module *m = parse_ok(meta);
	ffu__module_free(m);
	/* Unbalanced by two (the body's '}' closes one): reported at the outermost '{'. */
	p[2 * depth - 1] = ' ';
	p[2 * depth - 2] = ' ';
	e = (ffu_error){0};
	cr_assert_eq(parse_err(meta, strlen(meta), &e), FFU_STATUS_EPARSE);
	cr_assert_eq(e.line, 3, "%d:%d: %s", e.line, e.col, e.message);
	cr_assert(strstr(e.message, "missing '}'"), "%s", e.message);
	cr_assert_eq(e.col, (int)strlen("  %x = babybear[] parameter(0), metadata=") + 1);
	free(meta);
}

Test(hlo, null_and_empty_input)
{
	ffu_error e = {0};
	cr_assert_eq(parse_err("", 0, &e), FFU_STATUS_EPARSE);
	cr_assert_eq(e.line, 1);
	cr_assert_eq(e.col, 1);
	ffu_module *m = (ffu_module *)1;
	cr_assert_eq(ffu__hlo_parse(&m, NULL, 0, NULL, NULL), FFU_STATUS_EPARSE);
	cr_assert_null(m);
	cr_assert_eq(ffu__hlo_parse(NULL, "x", 1, NULL, NULL), FFU_STATUS_EINVAL);
}

/* --- the verifier on built modules --- */

static ffu_shape arr(ffu_type t, int64_t n)
{
	ffu_shape s = {0};
	s.type = t;
	s.rank = n < 0 ? 0 : 1;
	s.dims[0] = n < 0 ? 0 : n;
	return s;
}

static ffu_inst *param(ffu_computation *c, const char *name, ffu_shape s, int k)
{
	ffu_inst *in = ffu__inst_new(c, FFU_OP_PARAMETER, name, &s, NULL, 0);
	cr_assert_not_null(in);
	in->index = k;
	c->params = ffu__arena_alloc(&c->module->arena, sizeof *c->params * 4);
	return in;
}

Test(verify, built_module_checks_and_prints)
{
	ffu_module *m = ffu__module_new("built");
	ffu_computation *c = ffu__comp_new(m, "main");
	c->is_entry = true;
	m->entry = c;
	ffu_shape s4 = arr(FFU_TYPE_BABYBEAR, 4), s8 = arr(FFU_TYPE_BABYBEAR, 8);
	ffu_inst *x = param(c, "x", s4, 0);
	ffu_inst *y = ffu__inst_new(c, FFU_OP_PARAMETER, "y", &s8, NULL, 0);
	y->index = 1;
	c->params[0] = x;
	c->params[1] = y;
	c->n_params = 2;
	ffu_inst *ops[2] = {x, y};
	ffu_inst *a = ffu__inst_new(c, FFU_OP_ADD, "a", &s4, ops, 2);
	c->root = a;
	ffu_error e = {0};
	cr_assert_eq(ffu__module_verify(m, "api", &e), FFU_STATUS_EVERIFY);
	cr_assert_eq(e.line, 0);
	cr_assert(strstr(e.message, "'%a' (add): operand 1 ('%y') has shape babybear[8], expected babybear[4]"), "%s",
		  e.message);

	/* Fix it, and check the printed form parses back to the same module. */
	y->shape = s4;
	cr_assert_eq(ffu__module_verify(m, "api", &e), FFU_STATUS_OK, "%s", e.message);
	char *t = print_ok(m);
	ffu_module *m2 = parse_ok(t);
	assert_same_module(m, m2);
	ffu__module_free(m2);
	free(t);

	/* Wrong arity from the op table. */
	a->n_operands = 1;
	cr_assert_eq(ffu__module_verify(m, "api", &e), FFU_STATUS_EVERIFY);
	cr_assert(strstr(e.message, "takes 2 operands, has 1"), "%s", e.message);
	a->n_operands = 2;

	/* Element-wise ops keep their operands' shape: a rank-2 negate of a babybear[4] is wrong. */
	ffu_shape r2 = {.type = FFU_TYPE_BABYBEAR, .rank = 2, .dims = {2, 2}};
	ffu_inst *ops1[1] = {a};
	ffu_inst *n = ffu__inst_new(c, FFU_OP_NEGATE, "n", &r2, ops1, 1);
	c->root = n;
	cr_assert_eq(ffu__module_verify(m, "api", &e), FFU_STATUS_EVERIFY);
	cr_assert(strstr(e.message, "'%n' (negate): operand 0 ('%a') has shape babybear[4], expected babybear[2,2]"), "%s",
		  e.message);
	/* A shape whose element count overflows is refused before anything multiplies it out. */
	n->shape = (ffu_shape){.type = FFU_TYPE_BABYBEAR, .rank = 4, .dims = {1 << 20, 1 << 20, 1 << 20, 1 << 20}};
	cr_assert_eq(ffu__module_verify(m, "api", &e), FFU_STATUS_EVERIFY);
	cr_assert(strstr(e.message, "more than 2^63 elements"), "%s", e.message);
	n->shape = s4;
	cr_assert_eq(ffu__module_verify(m, "api", &e), FFU_STATUS_OK, "%s", e.message);

	/* A callee must come before its caller in m->comps. */
	ffu_computation *f = ffu__comp_new(m, "late");
	ffu_inst *fp = param(f, "fp", s4, 0);
	f->params[0] = fp;
	f->n_params = 1;
	f->root = fp;
	ffu_inst *ops2[1] = {n};
	ffu_inst *call = ffu__inst_new(c, FFU_OP_FUSION, "call", &s4, ops2, 1);
	call->callee = f;
	c->root = call;
	cr_assert_eq(ffu__module_verify(m, "api", &e), FFU_STATUS_EVERIFY);
	cr_assert(strstr(e.message, "must come before its caller"), "%s", e.message);
	/* The printer still orders callees first. */
	t = print_ok(m);
	cr_assert(strstr(t, "%late") < strstr(t, "ENTRY %main"), "%s", t);
	free(t);

	/* Names that cannot be read back are refused by the printer. */
	x->name = "has space";
	ffu_strbuf sb = {0};
	cr_assert_eq(ffu__hlo_print(&sb, m, &e), FFU_STATUS_EINVAL);
	ffu__sb_free(&sb);
	ffu__module_free(m);
}

Test(verify, constant_literal_must_be_canonical)
{
	ffu_module *m = parse_ok("HloModule k\nENTRY %e {\n  ROOT %c = babybear[2] constant({1, 2})\n}\n");
	ffu_inst *c = m->entry->root;
	c->literal[4] = 0x01;
	c->literal[7] = 0x78; /* 0x78000001 = p */
	ffu_error e = {0};
	cr_assert_eq(ffu__module_verify(m, "k", &e), FFU_STATUS_EVERIFY);
	cr_assert_eq(e.line, 3);
	cr_assert_eq(e.col, 8);
	cr_assert(strstr(e.message, "literal element 1 is not less than"), "%s", e.message);
	ffu__module_free(m);
}

/* --- the contract's opcodes: round trips --- */

/* HLO.md section 2, verbatim: reduce with to_apply, a tuple of a vector and a scalar. */
static const char *const hlo_md_example =
	"HloModule seed_fusion\n"
	"\n"
	"%sum (a: babybear[], b: babybear[]) -> babybear[] {\n"
	"  %a = babybear[] parameter(0)\n"
	"  %b = babybear[] parameter(1)\n"
	"  ROOT %c = babybear[] add(%a, %b)\n"
	"}\n"
	"\n"
	"ENTRY %main (x: babybear[1048576], y: babybear[1048576]) -> (babybear[1048576], babybear[]) {\n"
	"  %x = babybear[1048576]{0} parameter(0)\n"
	"  %y = babybear[1048576] parameter(1)\n"
	"  %s = babybear[1048576] add(babybear[1048576] %x, %y)\n"
	"  %m = babybear[1048576] multiply(%s, %x)\n"
	"  %zero = babybear[] constant(0)\n"
	"  %t = babybear[] reduce(%m, %zero), dimensions={0}, to_apply=%sum\n"
	"  ROOT %r = (babybear[1048576], babybear[]) tuple(%m, %t)\n"
	"}\n";

Test(hlo, hlo_md_example_with_reduce)
{
	ffu_module *m = parse_ok(hlo_md_example);
	const ffu_inst *t = m->entry->insts[5];
	cr_assert_eq(t->op, FFU_OP_REDUCE);
	cr_assert_eq(t->callee, m->comps[0]);
	cr_assert_eq(t->reduce_fn, FFU_OP_ADD);
	cr_assert_eq(t->n_dims, 1);
	cr_assert_eq(t->dims[0], 0);
	/* a reduce's to_apply is not a fusion body */
	cr_assert_not(m->comps[0]->is_fused);
	ffu__module_free(m);
	char *text = round_trip(hlo_md_example);
	cr_assert(strstr(text, "  %t = babybear[] reduce(%m, %zero), dimensions={0}, to_apply=%sum\n"), "%s", text);
	free(text);
}

/* One of every opcode of the contract, with every attribute form; the canonical lines. */
static const char *const all_ops_module =
	"HloModule all_ops\n"
	"%prod (a: goldilocks[], b: goldilocks[]) -> goldilocks[] {\n"
	"  %a = goldilocks[] parameter(0)\n"
	"  %b = goldilocks[] parameter(1)\n"
	"  ROOT %c = goldilocks[] multiply(%b, %a)\n"
	"}\n"
	"%fused (p: goldilocks[2,3], q: pred[2,3]) -> goldilocks[2,3] {\n"
	"  %p = goldilocks[2,3] parameter(0)\n"
	"  %q = pred[2,3] parameter(1)\n"
	"  %n = goldilocks[2,3] negate(%p)\n"
	"  %sq = goldilocks[2,3] square(%n)\n"
	"  ROOT %s = goldilocks[2,3] select(%q, %p, %sq)\n"
	"}\n"
	"ENTRY %main (x: goldilocks[2,3], k: pred[], e: u32[2,3]) -> (goldilocks[2,3], goldilocks[3], pred[2,3]) {\n"
	"  %x = goldilocks[2,3]{1,0} parameter(0)\n"
	"  %k = pred[] parameter(1)\n"
	"  %e = u32[2,3] parameter(2)\n"
	"  %i = goldilocks[2,3] iota(), iota_dimension=1\n"
	"  %iu = u64[4] iota(), iota_dimension=0\n"
	"  %v = goldilocks[3] constant({1, 2, 3})\n"
	"  %bv = goldilocks[2,3] broadcast(goldilocks[3] %v), dimensions={1}\n"
	"  %w = goldilocks[3,2] reshape(%bv)\n"
	"  %sl = goldilocks[2,2] slice(%w), slice={[1:3], [0:2:1]}\n"
	"  %sl2 = goldilocks[2,2] slice(%x), slice={[0:2:1], [0:3:2]}\n"
	"  %cc = goldilocks[2,7] concatenate(%x, %sl, %sl2), dimensions={1}\n"
	"  %eq = pred[2,3] compare(%x, %i), direction=EQ\n"
	"  %ne = pred[2,3] compare(%e, %e), direction=NE\n"
	"  %t = pred[2,3] constant({{true, false, 1}, {0, true, false}})\n"
	"  %sel = goldilocks[2,3] select(%eq, %x, %i)\n"
	"  %sk = goldilocks[2,3] select(%k, %sel, %x)\n"
	"  %pw = goldilocks[2,3] power(%sk, %e)\n"
	"  %one = goldilocks[] constant(1)\n"
	"  %r = goldilocks[3] reduce(%pw, %one), dimensions={0}, to_apply=%prod\n"
	"  %r2 = goldilocks[] reduce(%cc, %one), dimensions={1,0}, to_apply=%prod\n"
	"  %f = goldilocks[2,3] fusion(%x, %t), kind=kLoop, calls=%fused\n"
	"  ROOT %out = (goldilocks[2,3], goldilocks[3], pred[2,3]) tuple(%f, %r, %ne)\n"
	"}\n";

Test(hlo, every_opcode_round_trips)
{
	char *t = round_trip(all_ops_module);
	static const char *const want[] = {
		"  %i = goldilocks[2,3] iota(), iota_dimension=1\n",
		"  %iu = u64[4] iota(), iota_dimension=0\n",
		"  %bv = goldilocks[2,3] broadcast(%v), dimensions={1}\n",
		"  %w = goldilocks[3,2] reshape(%bv)\n",
		/* stride 1 is not printed, as XLA prints slices */
		"  %sl = goldilocks[2,2] slice(%w), slice={[1:3], [0:2]}\n",
		"  %sl2 = goldilocks[2,2] slice(%x), slice={[0:2], [0:3:2]}\n",
		"  %cc = goldilocks[2,7] concatenate(%x, %sl, %sl2), dimensions={1}\n",
		"  %eq = pred[2,3] compare(%x, %i), direction=EQ\n",
		"  %ne = pred[2,3] compare(%e, %e), direction=NE\n",
		"  %t = pred[2,3] constant({{true, false, true}, {false, true, false}})\n",
		"  %sel = goldilocks[2,3] select(%eq, %x, %i)\n",
		"  %sk = goldilocks[2,3] select(%k, %sel, %x)\n",
		"  %r = goldilocks[3] reduce(%pw, %one), dimensions={0}, to_apply=%prod\n",
		"  %r2 = goldilocks[] reduce(%cc, %one), dimensions={1,0}, to_apply=%prod\n",
		"  %f = goldilocks[2,3] fusion(%x, %t), kind=kLoop, calls=%fused\n",
		"  %sq = goldilocks[2,3] square(%n)\n",
		"ENTRY %main (x: goldilocks[2,3], k: pred[], e: u32[2,3]) -> (goldilocks[2,3], goldilocks[3], pred[2,3]) {\n",
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		cr_expect(strstr(t, want[i]), "missing: %s in\n%s", want[i], t);
	free(t);
	ffu_module *m = parse_ok(all_ops_module);
	cr_assert_eq(m->comps[0]->insts[2]->op, FFU_OP_MULTIPLY);
	cr_assert_eq(m->entry->insts[18]->reduce_fn, FFU_OP_MULTIPLY);
	cr_assert_eq(m->entry->insts[12]->direction, FFU_CMP_NE);
	ffu__module_free(m);
}

/* The kept fuzz corpus (every opcode in small programs): each round-trips exactly. */
Test(hlo, corpus_programs_round_trip)
{
	char *dir = ffu_test_path("tests/fuzz/corpus/hlo");
	DIR *d = opendir(dir);
	cr_assert_not_null(d, "cannot open %s", dir);
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (l <= 4 || strcmp(de->d_name + l - 4, ".hlo") != 0)
			continue;
		char path[1024];
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		char *text = ffu_test_read_file(path, NULL);
		cr_assert_not_null(text, "cannot read %s", path);
		free(round_trip(text));
		free(text);
		n++;
	}
	closedir(d);
	free(dir);
	cr_assert_geq(n, 20);
}

/* The removed "not supported yet" cases are valid programs now. */
Test(hlo, rank2_and_general_broadcast_are_valid)
{
	free(round_trip("HloModule m\n"
			"ENTRY %main {\n"
			"  %x = babybear[2,3]{1,0} parameter(0)\n"
			"  ROOT %n = babybear[2,3] negate(%x)\n"
			"}\n"));
	free(round_trip("HloModule m\n"
			"ENTRY %main {\n"
			"  %x = babybear[4] parameter(0)\n"
			"  ROOT %b = babybear[4] broadcast(%x), dimensions={0}\n"
			"}\n"));
	free(round_trip("HloModule m\n"
			"ENTRY %main {\n"
			"  %x = bn254_sf[2,3] parameter(0)\n"
			"  ROOT %b = bn254_sf[2,5,3,1] broadcast(%x), dimensions={0,2}\n"
			"}\n"));
	/* zero-sized dimensions are valid everywhere */
	free(round_trip("HloModule m\n"
			"%s (a: babybear[], b: babybear[]) -> babybear[] {\n"
			"  %a = babybear[] parameter(0)\n  %b = babybear[] parameter(1)\n"
			"  ROOT %add = babybear[] add(%a, %b)\n}\n"
			"ENTRY %main {\n"
			"  %x = babybear[0,3] parameter(0)\n"
			"  %i = babybear[0,3] iota(), iota_dimension=0\n"
			"  %y = babybear[0,3] add(%x, %i)\n"
			"  %z = babybear[] constant(0)\n"
			"  %r = babybear[3] reduce(%y, %z), dimensions={0}, to_apply=%s\n"
			"  %bb = babybear[0,3] broadcast(%r), dimensions={1}\n"
			"  %sl = babybear[0,0] slice(%bb), slice={[0:0], [3:3]}\n"
			"  %c = babybear[0,6] concatenate(%bb, %y), dimensions={1}\n"
			"  %rs = babybear[0] reshape(%c)\n"
			"  %k = babybear[2,0] constant({{}, {}})\n"
			"  ROOT %t = (babybear[0,0], babybear[0], babybear[2,0]) tuple(%sl, %rs, %k)\n"
			"}\n"));
}

/* Attribute syntax errors the corpus does not cover, and where each is reported. */
Test(hlo, attribute_syntax_errors)
{
	static const struct {
		const char *inst;
		int col;
		const char *msg;
	} cases[] = {
		{"ROOT %s = babybear[2] slice(%x), slice={[0:2:]}", 46, "expected a slice stride, found ']'"},
		{"ROOT %s = babybear[2] slice(%x), slice={0:2}", 41, "expected '[' to start a slice range"},
		{"ROOT %s = babybear[2] slice(%x), slice={[0,2]}", 43, "expected ':' after the slice start"},
		{"ROOT %s = babybear[2] slice(%x), slice={[0:2:1:1]}", 47, "expected ']' to end the slice range"},
		{"ROOT %s = babybear[2] slice(%x), slice={[0:2][0:2]}", 46, "expected ',' or '}'"},
		{"ROOT %s = babybear[2] slice(%x), slice={[0:2], [0:2], [0:2], [0:2], [0:2]}", 69, "more than 4 slice ranges"},
		{"ROOT %s = babybear[2] slice(%x)", 23, "slice needs the attribute slice="},
		{"ROOT %i = babybear[2] iota()", 23, "iota needs the attribute iota_dimension="},
		{"ROOT %i = babybear[2] iota(), iota_dimension=x", 46, "expected a dimension number, found 'x'"},
		{"ROOT %c = pred[4] compare(%x, %x)", 19, "compare needs the attribute direction="},
		{"ROOT %c = pred[4] compare(%x, %x), direction={EQ}", 46, "expected a compare direction (EQ, NE, LT, LE, GT or GE)"},
		{"ROOT %c = babybear[4] concatenate(%x), dimensions={0,1,2,3,4}", 60, "more than 4 dimensions"},
		{"ROOT %n = babybear[4] negate(%x), direction=EQ", 35, "attribute 'direction' does not apply to negate"},
		{"ROOT %n = babybear[4] negate(%x), to_apply=%main", 35, "attribute 'to_apply' does not apply to negate"},
		{"ROOT %r = babybear[] reduce(%x, %x), dimensions={0}, to_apply=%main", 63, "computation '%main' calls itself"},
		{"ROOT %c = babybear[4] concatenate(%x)", 23, "concatenate needs the attribute dimensions="},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char text[512];
		snprintf(text, sizeof text, "HloModule m\nENTRY %%main {\n  %%x = babybear[4] parameter(0)\n  %s\n}\n",
			 cases[i].inst);
		ffu_error e = {0};
		cr_expect_eq(parse_err(text, strlen(text), &e), FFU_STATUS_EPARSE, "%s: %s", cases[i].inst, e.message);
		cr_expect(e.line == 4 && e.col == cases[i].col + 2 && strstr(e.message, cases[i].msg),
			  "%s: got %d:%d: %s; want 4:%d: %s", cases[i].inst, e.line, e.col, e.message, cases[i].col + 2,
			  cases[i].msg);
	}
}

/* --- the reference interpreter, against hand-computed answers --- */

/* Runs text's ENTRY; inputs[i] holds the integer values of parameter i (small, < p). */
static ffu_value *interp(const char *text, const uint64_t *const *inputs, int *n_out)
{
	ffu_module *m = parse_ok(text);
	int n_in = m->entry->n_params;
	ffu_value in[8] = {0};
	cr_assert_leq(n_in, 8);
	ffu_error e = {0};
	for (int i = 0; i < n_in; i++) {
		cr_assert_eq(ffu__value_alloc(&in[i], &m->entry->params[i]->shape, &e), FFU_STATUS_OK, "%s", e.message);
		const ffu_field *f = ffu__shape_field(&in[i].shape);
		for (int64_t k = 0; k < ffu__shape_count(&in[i].shape); k++)
			ffu__fp_set_u64(f, in[i].data + (size_t)k * f->storage_bytes, inputs[i][k]);
	}
	ffu_value *out = NULL;
	ffu_status st = ffu__interp_run(m, in, n_in, &out, n_out, &e);
	cr_assert_eq(st, FFU_STATUS_OK, "interpreter: %s\n%s", e.message, text);
	for (int i = 0; i < n_in; i++)
		ffu__value_free(&in[i]);
	ffu__module_free(m);
	return out;
}

/* Output o has shape `shape` (as printed) and these values. */
static void expect_values(const ffu_value *outs, int o, const char *shape, const uint64_t *want, int n)
{
	const ffu_value *v = &outs[o];
	char buf[160];
	ffu__shape_format(&v->shape, buf, sizeof buf);
	cr_expect_str_eq(buf, shape, "output %d", o);
	cr_assert_eq(ffu__shape_count(&v->shape), n, "output %d (%s) has %lld elements, want %d", o, buf,
		     (long long)ffu__shape_count(&v->shape), n);
	const ffu_field *f = ffu__shape_field(&v->shape);
	for (int i = 0; i < n; i++) {
		uint64_t got = ffu__fp_get_u64(f, v->data + (size_t)i * f->storage_bytes);
		cr_expect_eq(got, want[i], "output %d (%s) element %d: got %llu, want %llu", o, buf, i,
			     (unsigned long long)got, (unsigned long long)want[i]);
	}
}

#define VALS(...) ((const uint64_t[]){__VA_ARGS__}), (int)(sizeof((const uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t))

/* The two scalar computations every reduce below uses. */
#define SUM_PROD                                                                                  \
	"%sum (a: babybear[], b: babybear[]) -> babybear[] {\n"                                   \
	"  %a = babybear[] parameter(0)\n  %b = babybear[] parameter(1)\n"                       \
	"  ROOT %c = babybear[] add(%a, %b)\n}\n"                                                 \
	"%prod (a2: babybear[], b2: babybear[]) -> babybear[] {\n"                                \
	"  %a2 = babybear[] parameter(0)\n  %b2 = babybear[] parameter(1)\n"                     \
	"  ROOT %c2 = babybear[] multiply(%b2, %a2)\n}\n"

/* x = {{1, 2, 3}, {4, 5, 6}} throughout */
#define X23 "  %x = babybear[2,3] constant({{1, 2, 3}, {4, 5, 6}})\n"

Test(interp, reduce_sum_and_product_over_each_set_of_dims)
{
	int n = 0;
	ffu_value *o = interp("HloModule r\n" SUM_PROD
			      "ENTRY %main {\n" X23
			      "  %z = babybear[] constant(10)\n"
			      "  %one = babybear[] constant(1)\n"
			      "  %two = babybear[] constant(2)\n"
			      "  %s0 = babybear[3] reduce(%x, %z), dimensions={0}, to_apply=%sum\n"
			      "  %s1 = babybear[2] reduce(%x, %z), dimensions={1}, to_apply=%sum\n"
			      "  %s01 = babybear[] reduce(%x, %z), dimensions={0,1}, to_apply=%sum\n"
			      "  %p0 = babybear[3] reduce(%x, %one), dimensions={0}, to_apply=%prod\n"
			      "  %p1 = babybear[2] reduce(%x, %one), dimensions={1}, to_apply=%prod\n"
			      "  %p10 = babybear[] reduce(%x, %two), dimensions={1,0}, to_apply=%prod\n"
			      "  %none = babybear[2,3] reduce(%x, %z), dimensions={}, to_apply=%sum\n"
			      "  ROOT %t = (babybear[3], babybear[2], babybear[], babybear[3], babybear[2], babybear[], babybear[2,3])"
			      " tuple(%s0, %s1, %s01, %p0, %p1, %p10, %none)\n}\n",
			      NULL, &n);
	cr_assert_eq(n, 7);
	expect_values(o, 0, "babybear[3]", VALS(15, 17, 19));   /* 10 + column sums */
	expect_values(o, 1, "babybear[2]", VALS(16, 25));       /* 10 + row sums */
	expect_values(o, 2, "babybear[]", VALS(31));            /* 10 + 21 */
	expect_values(o, 3, "babybear[3]", VALS(4, 10, 18));
	expect_values(o, 4, "babybear[2]", VALS(6, 120));
	expect_values(o, 5, "babybear[]", VALS(1440));          /* 2 * 720 */
	expect_values(o, 6, "babybear[2,3]", VALS(11, 12, 13, 14, 15, 16));
	ffu__values_free(o, n);
}

Test(interp, reduce_rank4_wraps_mod_p_and_zero_size)
{
	int n = 0;
	/* iota along dim 3 of [2,1,2,3] is 0,1,2 repeated; summing over {0,3} gives 2 * 3 = 6 */
	ffu_value *o = interp("HloModule r\n" SUM_PROD
			      "ENTRY %main {\n"
			      "  %i = babybear[2,1,2,3] iota(), iota_dimension=3\n"
			      "  %z = babybear[] constant(0)\n"
			      "  %r = babybear[1,2] reduce(%i, %z), dimensions={0,3}, to_apply=%sum\n"
			      "  %big = babybear[2] constant({2013265920, 2013265919})\n"
			      "  %rb = babybear[] reduce(%big, %z), dimensions={0}, to_apply=%sum\n"
			      "  %e = babybear[0,3] constant({})\n"
			      "  %seven = babybear[] constant(7)\n"
			      "  %r0 = babybear[3] reduce(%e, %seven), dimensions={0}, to_apply=%prod\n"
			      "  %r1 = babybear[0] reduce(%e, %seven), dimensions={1}, to_apply=%prod\n"
			      "  ROOT %t = (babybear[1,2], babybear[], babybear[3], babybear[0]) tuple(%r, %rb, %r0, %r1)\n}\n",
			      NULL, &n);
	expect_values(o, 0, "babybear[1,2]", VALS(6, 6));
	expect_values(o, 1, "babybear[]", VALS(2013265918)); /* (p - 1) + (p - 2) = p - 3 */
	expect_values(o, 2, "babybear[3]", VALS(7, 7, 7));  /* an empty product is init */
	cr_assert_eq(o[3].bytes, 0);
	ffu__values_free(o, n);
}

Test(interp, slice_concatenate_reshape)
{
	int n = 0;
	ffu_value *o = interp("HloModule s\n"
			      "ENTRY %main {\n" X23
			      "  %i = babybear[10] iota(), iota_dimension=0\n"
			      "  %s = babybear[5] slice(%i), slice={[1:10:2]}\n"
			      "  %s3 = babybear[3] slice(%i), slice={[2:9:3]}\n"
			      "  %c2 = babybear[2,2] slice(%x), slice={[0:2], [0:3:2]}\n"
			      "  %r1 = babybear[1,2] slice(%x), slice={[1:2], [1:3]}\n"
			      "  %y = babybear[2,1] constant({{7}, {8}})\n"
			      "  %cat1 = babybear[2,4] concatenate(%x, %y), dimensions={1}\n"
			      "  %e = babybear[0,3] constant({})\n"
			      "  %w = babybear[1,3] constant({{9, 9, 9}})\n"
			      "  %cat0 = babybear[3,3] concatenate(%e, %x, %e, %w), dimensions={0}\n"
			      "  %rs = babybear[3,2] reshape(%x)\n"
			      "  %rc = babybear[2,1] slice(%rs), slice={[1:3], [1:2]}\n"
			      "  ROOT %t = (babybear[5], babybear[3], babybear[2,2], babybear[1,2], babybear[2,4], babybear[3,3], babybear[2,1])"
			      " tuple(%s, %s3, %c2, %r1, %cat1, %cat0, %rc)\n}\n",
			      NULL, &n);
	expect_values(o, 0, "babybear[5]", VALS(1, 3, 5, 7, 9));
	expect_values(o, 1, "babybear[3]", VALS(2, 5, 8));
	expect_values(o, 2, "babybear[2,2]", VALS(1, 3, 4, 6));
	expect_values(o, 3, "babybear[1,2]", VALS(5, 6));
	expect_values(o, 4, "babybear[2,4]", VALS(1, 2, 3, 7, 4, 5, 6, 8));
	expect_values(o, 5, "babybear[3,3]", VALS(1, 2, 3, 4, 5, 6, 9, 9, 9));
	/* reshape to {{1, 2}, {3, 4}, {5, 6}}, then rows 1..2 of column 1 */
	expect_values(o, 6, "babybear[2,1]", VALS(4, 6));
	ffu__values_free(o, n);
}

Test(interp, broadcast_and_iota)
{
	int n = 0;
	ffu_value *o = interp("HloModule b\n"
			      "ENTRY %main {\n" X23
			      "  %v = babybear[3] constant({7, 8, 9})\n"
			      "  %w = babybear[2] constant({5, 6})\n"
			      "  %s = babybear[] constant(4)\n"
			      "  %bv = babybear[2,3] broadcast(%v), dimensions={1}\n"
			      "  %bw = babybear[2,3] broadcast(%w), dimensions={0}\n"
			      "  %bs = babybear[2] broadcast(%s), dimensions={}\n"
			      "  %bx = babybear[2,2,3] broadcast(%x), dimensions={0,2}\n"
			      "  %same = babybear[2,3] broadcast(%x), dimensions={0,1}\n"
			      "  %i1 = babybear[2,3] iota(), iota_dimension=1\n"
			      "  %i0 = u32[2,3] iota(), iota_dimension=0\n"
			      "  %im = babybear_mont[3] iota(), iota_dimension=0\n"
			      "  %imc = babybear[3] convert(%im)\n"
			      "  ROOT %t = (babybear[2,3], babybear[2,3], babybear[2], babybear[2,2,3], babybear[2,3], babybear[2,3], u32[2,3], babybear[3])"
			      " tuple(%bv, %bw, %bs, %bx, %same, %i1, %i0, %imc)\n}\n",
			      NULL, &n);
	expect_values(o, 0, "babybear[2,3]", VALS(7, 8, 9, 7, 8, 9));
	expect_values(o, 1, "babybear[2,3]", VALS(5, 5, 5, 6, 6, 6));
	expect_values(o, 2, "babybear[2]", VALS(4, 4));
	expect_values(o, 3, "babybear[2,2,3]", VALS(1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6));
	expect_values(o, 4, "babybear[2,3]", VALS(1, 2, 3, 4, 5, 6));
	expect_values(o, 5, "babybear[2,3]", VALS(0, 1, 2, 0, 1, 2));
	expect_values(o, 6, "u32[2,3]", VALS(0, 0, 0, 1, 1, 1));
	/* an iota of a _mont type holds the field elements 0, 1, 2 (in Montgomery form) */
	expect_values(o, 7, "babybear[3]", VALS(0, 1, 2));
	ffu__values_free(o, n);
}

Test(interp, compare_and_select)
{
	int n = 0;
	const uint64_t y[] = {1, 9, 3, 9, 5, 9}, p[] = {0}, q[] = {1, 0, 0, 1};
	ffu_value *o = interp("HloModule c\n"
			      "ENTRY %main (y: babybear[2,3], p: pred[], q: pred[4]) -> (pred[2,3], pred[2,3], babybear[2,3], babybear[2,3], babybear[2,3], pred[4], pred[4]) {\n"
			      X23
			      "  %y = babybear[2,3] parameter(0)\n"
			      "  %p = pred[] parameter(1)\n"
			      "  %q = pred[4] parameter(2)\n"
			      "  %eq = pred[2,3] compare(%x, %y), direction=EQ\n"
			      "  %ne = pred[2,3] compare(%x, %y), direction=NE\n"
			      "  %sel = babybear[2,3] select(%eq, %y, %x)\n"
			      "  %scalar_f = babybear[2,3] select(%p, %x, %y)\n"
			      "  %t = pred[] constant(true)\n"
			      "  %scalar_t = babybear[2,3] select(%t, %x, %y)\n"
			      "  %k = pred[4] constant({false, true, 1, 0})\n"
			      "  %sq = pred[4] select(%q, %k, %q)\n"
			      "  %u = u64[4] constant({3, 18446744073709551615, 0, 5})\n"
			      "  %v = u64[4] constant({3, 18446744073709551614, 0, 6})\n"
			      "  %cu = pred[4] compare(%u, %v), direction=EQ\n"
			      "  ROOT %r = (pred[2,3], pred[2,3], babybear[2,3], babybear[2,3], babybear[2,3], pred[4], pred[4])"
			      " tuple(%eq, %ne, %sel, %scalar_f, %scalar_t, %sq, %cu)\n}\n",
			      (const uint64_t *const[]){y, p, q}, &n);
	expect_values(o, 0, "pred[2,3]", VALS(1, 0, 1, 0, 1, 0));
	expect_values(o, 1, "pred[2,3]", VALS(0, 1, 0, 1, 0, 1));
	expect_values(o, 2, "babybear[2,3]", VALS(1, 2, 3, 4, 5, 6));
	expect_values(o, 3, "babybear[2,3]", VALS(1, 9, 3, 9, 5, 9));
	expect_values(o, 4, "babybear[2,3]", VALS(1, 2, 3, 4, 5, 6));
	expect_values(o, 5, "pred[4]", VALS(0, 0, 0, 0)); /* q ? k : q = {k0, q1, q2, k3} */
	expect_values(o, 6, "pred[4]", VALS(1, 0, 1, 0));
	cr_assert_eq(o[0].bytes, 6, "pred is one byte per element");
	ffu__values_free(o, n);
}

/* square(x) = x * x, worked out by hand: BabyBear p = 15 * 2^27 + 1, so (p - 1)^2 = 1 and
   (2^16)^2 = 2^32 - 2p = 268435454; a _mont operand squares in its own form */
Test(interp, square)
{
	int n = 0;
	const uint64_t x[] = {0, 1, 2, 2013265920, 65536, 44};
	ffu_value *o = interp("HloModule s\n"
			      "ENTRY %main (x: babybear[6]) -> (babybear[6], babybear[6]) {\n"
			      "  %x = babybear[6] parameter(0)\n"
			      "  %s = babybear[6] square(%x)\n"
			      "  %m = babybear_mont[6] convert(%x)\n"
			      "  %sm = babybear_mont[6] square(%m)\n"
			      "  %back = babybear[6] convert(%sm)\n"
			      "  ROOT %r = (babybear[6], babybear[6]) tuple(%s, %back)\n}\n",
			      (const uint64_t *const[]){x}, &n);
	expect_values(o, 0, "babybear[6]", VALS(0, 1, 4, 1, 268435454, 1936));
	expect_values(o, 1, "babybear[6]", VALS(0, 1, 4, 1, 268435454, 1936));
	ffu__values_free(o, n);
}

Test(interp, fusion_calls_tuple_and_get_tuple_element)
{
	int n = 0;
	ffu_value *o = interp("HloModule f\n" SUM_PROD
			      "%fused (a3: babybear[2,3], b3: babybear[]) -> (babybear[2], babybear[2,3]) {\n"
			      "  %a3 = babybear[2,3] parameter(0)\n"
			      "  %b3 = babybear[] parameter(1)\n"
			      "  %r = babybear[2] reduce(%a3, %b3), dimensions={1}, to_apply=%sum\n"
			      "  %bb = babybear[2,3] broadcast(%r), dimensions={0}\n"
			      "  %m = babybear[2,3] multiply(%bb, %a3)\n"
			      "  ROOT %t3 = (babybear[2], babybear[2,3]) tuple(%r, %m)\n}\n"
			      "ENTRY %main {\n" X23
			      "  %z = babybear[] constant(0)\n"
			      "  %f = (babybear[2], babybear[2,3]) fusion(%x, %z), kind=kInput, calls=%fused\n"
			      "  %g0 = babybear[2] get-tuple-element(%f), index=0\n"
			      "  %g1 = babybear[2,3] get-tuple-element(%f), index=1\n"
			      "  ROOT %t = (babybear[2,3], babybear[2]) tuple(%g1, %g0)\n}\n",
			      NULL, &n);
	expect_values(o, 0, "babybear[2,3]", VALS(6, 12, 18, 60, 75, 90));
	expect_values(o, 1, "babybear[2]", VALS(6, 15));
	ffu__values_free(o, n);
}

/* --- hostile input for the new syntax --- */

Test(hlo, deep_literal_and_attribute_nesting)
{
	/* literal nesting is bounded by the rank: the first '{' too many is the error */
	char *s = nested("HloModule m\nENTRY %main {\n  ROOT %c = babybear[2,2] constant(", '{', 10000, "\n}\n");
	ffu_error e = {0};
	cr_assert_eq(parse_err(s, strlen(s), &e), FFU_STATUS_EPARSE);
	cr_assert_eq(e.line, 3);
	cr_assert_eq(e.col, (int)strlen("  ROOT %c = babybear[2,2] constant(") + 3, "%d: %s", e.col, e.message);
	cr_assert(strstr(e.message, "expected a number, found '{'"), "%s", e.message);
	free(s);
	/* '(' where an element belongs (extension literals will start so) */
	s = nested("HloModule m\nENTRY %main {\n  ROOT %c = babybear[2] constant({", '(', 10000, "\n}\n");
	e = (ffu_error){0};
	cr_assert_eq(parse_err(s, strlen(s), &e), FFU_STATUS_EPARSE);
	free(s);
	static const char *const heads[] = {
		"HloModule m\nENTRY %main {\n  %x = babybear[4] parameter(0)\n  ROOT %b = babybear[4] broadcast(%x), dimensions=",
		"HloModule m\nENTRY %main {\n  %x = babybear[4] parameter(0)\n  ROOT %s = babybear[4] slice(%x), slice={",
		"HloModule m\nENTRY %main {\n  %x = babybear[4] parameter(0)\n  ROOT %c = pred[4] compare(%x, %x), direction=",
		"HloModule m\nENTRY %main {\n  %x = babybear[4] parameter(0)\n  ROOT %i = babybear[4] iota(), iota_dimension=",
	};
	for (size_t h = 0; h < sizeof heads / sizeof heads[0]; h++) {
		for (int k = 0; k < 2; k++) {
			s = nested(heads[h], k ? '[' : '{', 10000, "\n}\n");
			e = (ffu_error){0};
			cr_assert_eq(parse_err(s, strlen(s), &e), FFU_STATUS_EPARSE, "%s", heads[h]);
			cr_assert_eq(e.line, 4);
			free(s);
		}
	}
}

/* Mutations of the every-opcode module: never crash, and what parses must round-trip. */
Test(hlo, mutations_of_every_opcode_module)
{
	size_t n = strlen(all_ops_module);
	char *buf = malloc(n + 16);
	cr_assert_not_null(buf);
	uint64_t state = 11;
	int parsed = 0;
	static const char pool[] = "(){}[],=:%-.0123456789x\"/*\n \0\xfftrue";
	for (int iter = 0; iter < 3000; iter++) {
		memcpy(buf, all_ops_module, n);
		size_t len = n;
		for (int k = 0; k < 1 + (int)(ffu__rand_next(&state) % 3); k++) {
			size_t at = ffu__rand_next(&state) % len;
			uint64_t r = ffu__rand_next(&state);
			if (r % 3 == 0 && len > 1) {
				memmove(buf + at, buf + at + 1, len - at - 1);
				len--;
			} else if (r % 3 == 1) {
				buf[at] = pool[(r >> 8) % (sizeof pool - 1)];
			} else if (len < n + 16) {
				memmove(buf + at + 1, buf + at, len - at);
				buf[at] = pool[(r >> 8) % (sizeof pool - 1)];
				len++;
			}
		}
		ffu_error e = {0};
		ffu_module *m = NULL;
		if (ffu__hlo_parse(&m, buf, len, "mut", &e) != FFU_STATUS_OK) {
			cr_assert_null(m);
			cr_assert(e.message[0], "error without a message");
			continue;
		}
		parsed++;
		free(reprint(m));
		ffu__module_free(m);
	}
	free(buf);
	cr_assert_gt(parsed, 0);
}

Test(hlo, every_truncation_of_every_opcode_module_fails_cleanly)
{
	size_t n = strlen(all_ops_module);
	for (size_t len = 0; len + 1 < n; len++) {
		ffu_error e = {0};
		ffu_module *m = NULL;
		ffu_status st = ffu__hlo_parse(&m, all_ops_module, len, "t", &e);
		assert_truncation_result(all_ops_module, len, st, m);
		ffu__module_free(m);
	}
}

/* --- the verifier on built modules with the new ops --- */

Test(verify, built_reduce_needs_reduce_fn_and_a_sum_or_product)
{
	ffu_module *m = parse_ok("HloModule r\n" SUM_PROD
				 "ENTRY %main {\n" X23
				 "  %z = babybear[] constant(0)\n"
				 "  ROOT %r = babybear[3] reduce(%x, %z), dimensions={0}, to_apply=%prod\n}\n");
	ffu_inst *r = m->entry->root;
	ffu_error e = {0};
	cr_assert_eq(r->reduce_fn, FFU_OP_MULTIPLY);
	/* a builder that forgets reduce_fn (zero: parameter) hears about it */
	r->reduce_fn = FFU_OP_PARAMETER;
	cr_assert_eq(ffu__module_verify(m, "api", &e), FFU_STATUS_EVERIFY);
	cr_assert(strstr(e.message, "reduce_fn (parameter) does not match the ROOT of '%prod' (multiply)"), "%s", e.message);
	r->reduce_fn = FFU_OP_MULTIPLY;
	cr_assert_eq(ffu__module_verify(m, "api", &e), FFU_STATUS_OK, "%s", e.message);
	/* to_apply must come before its caller and must not be ENTRY */
	r->callee = m->entry;
	cr_assert_eq(ffu__module_verify(m, "api", &e), FFU_STATUS_EVERIFY);
	cr_assert(strstr(e.message, "cannot call the ENTRY computation"), "%s", e.message);
	r->callee = NULL;
	cr_assert_eq(ffu__module_verify(m, "api", &e), FFU_STATUS_EVERIFY);
	cr_assert(strstr(e.message, "to_apply= names no computation"), "%s", e.message);
	ffu__module_free(m);

	/* compare's direction and slice ranges are checked for built modules too */
	m = parse_ok("HloModule c\nENTRY %main {\n" X23
		     "  %s = babybear[1,3] slice(%x), slice={[1:2], [0:3]}\n"
		     "  ROOT %c = pred[2,3] compare(%x, %x), direction=NE\n}\n");
	m->entry->root->direction = (ffu_compare_dir)7;
	cr_assert_eq(ffu__module_verify(m, "api", &e), FFU_STATUS_EVERIFY);
	cr_assert(strstr(e.message, "invalid compare direction 7"), "%s", e.message);
	m->entry->root->direction = FFU_CMP_EQ;
	ffu_inst *s = m->entry->insts[1];
	s->slice_stride[1] = -1;
	cr_assert_eq(ffu__module_verify(m, "api", &e), FFU_STATUS_EVERIFY);
	cr_assert(strstr(e.message, "slice stride -1 in dimension 1 must be at least 1"), "%s", e.message);
	s->slice_stride[1] = INT64_MAX; /* ceil(3 / huge) = 1, not an overflow */
	cr_assert_eq(ffu__module_verify(m, "api", &e), FFU_STATUS_EVERIFY);
	cr_assert(strstr(e.message, "result dimension 1 is 3 but slice [0:3:9223372036854775807] gives 1 elements"), "%s",
		  e.message);
	s->slice_stride[1] = 1;
	cr_assert_eq(ffu__module_verify(m, "api", &e), FFU_STATUS_OK, "%s", e.message);
	ffu__module_free(m);
}

/* Literals of the pairing base fields: 48-byte values (115 digits) and Fq2 pairs, parsed in
   decimal and hex and printed back in decimal (the printer's element buffer). */
Test(hlo, pairing_base_field_literals_round_trip)
{
	const char *text =
		"HloModule pairing\n"
		"ENTRY %main {\n"
		"  %a = bls12_381_bf[2] constant({0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaaa, 7})\n"
		"  %b = bls12_381_bfx2[] constant((4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272559786, "
		"4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272559786))\n"
		"  %c = bn254_bfx2[2] constant({(0, 1), (0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd46, 2)})\n"
		"  %d = bls12_381_bf_mont[] constant(1)\n"
		"  ROOT %t = (bls12_381_bf[2], bls12_381_bfx2[], bn254_bfx2[2], bls12_381_bf_mont[]) tuple(%a, %b, %c, %d)\n"
		"}\n";
	char *t = round_trip(text);
	cr_assert(strstr(t, "%a = bls12_381_bf[2] constant({4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272559786, 7})\n"), "%s", t);
	cr_assert(strstr(t, "%b = bls12_381_bfx2[] constant((4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272559786, "
			    "4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272559786))\n"), "%s", t);
	cr_assert(strstr(t, "%c = bn254_bfx2[2] constant({(0, 1), (21888242871839275222246405745257275088696311157297823662689037894645226208582, 2)})\n"), "%s", t);
	cr_assert(strstr(t, "%d = bls12_381_bf_mont[] constant(1)\n"), "%s", t);
	free(t);
}
