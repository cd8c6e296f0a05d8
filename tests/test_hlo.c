/*
 * tests/test_hlo.c: the HLO front end (src/hlo, src/ir/verify.c): round trips, the
 * malformed-input corpus tests/bad/NAME.hlo, hostile input (NUL bytes, deep nesting, every
 * truncation of a valid module) and the verifier on modules built through the API.
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
#include "support.h"

static ffu_module *parse_ok(const char *text)
{
	ffu_error e = {0};
	ffu_module *m = NULL;
	ffu_status st = ffu__hlo_parse(&m, text, strlen(text), "test.hlo", &e);
	cr_assert_eq(st, FFU_STATUS_OK, "parse failed: %s:%d:%d: %s\n%s", e.file, e.line, e.col, e.message, text);
	cr_assert_not_null(m);
	return m;
}

static char *print_ok(const ffu_module *m)
{
	ffu_strbuf sb = {0};
	ffu_error e = {0};
	ffu_status st = ffu__hlo_print(&sb, m, &e);
	cr_assert_eq(st, FFU_STATUS_OK, "print failed: %s", e.message);
	char *s = strdup(ffu__sb_cstr(&sb));
	ffu__sb_free(&sb);
	return s;
}

static ffu_status parse_err(const char *text, size_t len, ffu_error *e)
{
	ffu_module *m = NULL;
	ffu_status st = ffu__hlo_parse(&m, text, len, "bad.hlo", e);
	if (st == FFU_STATUS_OK)
		ffu__module_free(m);
	else
		cr_assert_null(m);
	return st;
}

/* Structural equality: same computations, instructions, operands (by position), attributes. */
static void assert_same_module(const ffu_module *a, const ffu_module *b)
{
	cr_assert_str_eq(a->name, b->name);
	cr_assert_eq(a->n_comps, b->n_comps);
	for (int i = 0; i < a->n_comps; i++) {
		const ffu_computation *ca = a->comps[i], *cb = b->comps[i];
		cr_assert_str_eq(ca->name, cb->name);
		cr_assert_eq(ca->is_entry, cb->is_entry);
		cr_assert_eq(ca->is_fused, cb->is_fused);
		cr_assert_eq(ca == a->entry, cb == b->entry);
		cr_assert_eq(ca->n_insts, cb->n_insts);
		cr_assert_eq(ca->n_params, cb->n_params);
		cr_assert_eq(ca->root->id, cb->root->id);
		for (int k = 0; k < ca->n_params; k++)
			cr_assert_eq(ca->params[k]->id, cb->params[k]->id);
		for (int j = 0; j < ca->n_insts; j++) {
			const ffu_inst *x = ca->insts[j], *y = cb->insts[j];
			cr_assert_eq(x->op, y->op);
			cr_assert_str_eq(x->name, y->name);
			cr_assert(ffu__shape_eq(&x->shape, &y->shape), "shape of %s", x->name);
			cr_assert_eq(x->n_operands, y->n_operands);
			for (int k = 0; k < x->n_operands; k++)
				cr_assert_eq(x->operands[k]->id, y->operands[k]->id);
			if (x->op == FFU_OP_PARAMETER || x->op == FFU_OP_GET_TUPLE_ELEMENT)
				cr_assert_eq(x->index, y->index);
			if (x->op == FFU_OP_CONSTANT) {
				size_t n = (size_t)ffu__shape_count(&x->shape) * ffu__shape_elem_bytes(&x->shape);
				cr_assert(n == 0 || memcmp(x->literal, y->literal, n) == 0, "literal of %s", x->name);
			}
			cr_assert_eq(x->n_dims, y->n_dims);
			for (int k = 0; k < x->n_dims; k++)
				cr_assert_eq(x->dims[k], y->dims[k]);
			cr_assert_eq(!!x->callee, !!y->callee);
			if (x->callee) {
				cr_assert_str_eq(x->callee->name, y->callee->name);
				cr_assert_eq(x->fusion_kind, y->fusion_kind);
			}
		}
	}
}

/* parse -> print -> parse -> print: same text twice, equal modules; returns the text. */
static char *round_trip(const char *text)
{
	ffu_module *m1 = parse_ok(text);
	char *t1 = print_ok(m1);
	ffu_module *m2 = parse_ok(t1);
	char *t2 = print_ok(m2);
	cr_assert_str_eq(t1, t2);
	assert_same_module(m1, m2);
	ffu__module_free(m1);
	ffu__module_free(m2);
	free(t2);
	return t1;
}

/* HLO.md section 2 without reduce (not in the op table yet; see tests/bad/reduce_not_supported.hlo). */
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
	cr_assert(strstr(t, "  %h = bn254_sf[8] fusion(%g1), kind=kInput, calls=%fused.1\n"), "%s", t);
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
		char *t1 = print_ok(m);
		ffu_module *m2 = parse_ok(t1);
		char *t2 = print_ok(m2);
		cr_assert_str_eq(t1, t2);
		assert_same_module(m, m2);
		free(t1);
		free(t2);
		ffu__module_free(m);
		ffu__module_free(m2);
	}
	free(buf);
	cr_assert_gt(parsed, 0);
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
			cr_assert_neq(st, FFU_STATUS_OK, "prefix of %zu bytes parsed", len);
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

	/* Rank 2 is parsed into the IR but not supported yet. */
	ffu_shape r2 = {.type = FFU_TYPE_BABYBEAR, .rank = 2, .dims = {2, 2}};
	ffu_inst *ops1[1] = {a};
	ffu_inst *n = ffu__inst_new(c, FFU_OP_NEGATE, "n", &r2, ops1, 1);
	c->root = n;
	cr_assert_eq(ffu__module_verify(m, "api", &e), FFU_STATUS_EUNSUPPORTED);
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
