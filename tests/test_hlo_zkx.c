/*
 * tests/test_hlo_zkx.c: text as ZKX and XLA write it (docs/hlo.md "ZKX and XLA text"):
 * optional HloModule, entry without ENTRY, names scoped per computation, signatures whose
 * parameter list is not compared, scalar broadcast without dimensions, big literals as
 * strings, ZKX's older type spellings, layouts. Owned by the HLO front end. Malformed
 * variants with their exact positions are in tests/bad/ (test_hlo.c reads them).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hlo_check.h"

static const ffu_inst *find_inst(const ffu_computation *c, const char *name)
{
	for (int i = 0; i < c->n_insts; i++)
		if (strcmp(c->insts[i]->name, name) == 0)
			return c->insts[i];
	cr_assert_fail("no instruction '%s' in '%s'", name, c->name);
	return NULL;
}

/* Every instruction name of m once (the IR's rule, whatever the text's scopes were). */
static void assert_unique_names(const ffu_module *m)
{
	for (int i = 0; i < m->n_comps; i++)
		for (int j = 0; j < m->comps[i]->n_insts; j++)
			for (int k = i; k < m->n_comps; k++)
				for (int l = k == i ? j + 1 : 0; l < m->comps[k]->n_insts; l++)
					cr_assert_str_neq(m->comps[i]->insts[j]->name, m->comps[k]->insts[l]->name);
}

/* ZKX test style: no header, no ENTRY, %x in both computations, a loose signature. */
static const char *const zkx_style =
	"%add (x: babybear[], y: babybear[]) -> babybear[] {\n"
	"  %x = babybear[] parameter(0)\n"
	"  %y = babybear[] parameter(1)\n"
	"  ROOT %s = babybear[] add(%x, %y)\n"
	"}\n"
	"\n"
	"%main (x: babybear[]) -> babybear[4] {\n"
	"  %x = babybear[4] parameter(0)\n"
	"  %y = babybear[4] parameter(1)\n"
	"  %zero = babybear[] constant(0)\n"
	"  %s = babybear[] reduce(%x, %zero), dimensions={0}, to_apply=%add\n"
	"  %b = babybear[4] broadcast(%s)\n"
	"  ROOT %r = babybear[4] add(%b, %y)\n"
	"}\n";

Test(hlo_zkx, no_header_no_entry_scoped_names)
{
	ffu_module *m = parse_ok(zkx_style);
	cr_assert_str_eq(m->name, "module_main");
	cr_assert_eq(m->n_comps, 2);
	cr_assert_eq(m->entry, m->comps[1]);
	cr_assert(m->entry->is_entry);
	cr_assert(!m->comps[0]->is_entry);
	/* The reducer keeps its names; ENTRY's clashing ones are renamed, its others kept. */
	const ffu_computation *add = m->comps[0], *main = m->entry;
	cr_assert_str_eq(add->params[0]->name, "x");
	cr_assert_str_eq(add->root->name, "s");
	cr_assert_str_neq(main->params[0]->name, "x");
	cr_assert_eq(strncmp(main->params[0]->name, "x.", 2), 0, "%s", main->params[0]->name);
	cr_assert_eq(strncmp(main->params[1]->name, "y.", 2), 0, "%s", main->params[1]->name);
	cr_assert_str_eq(main->root->name, "r");
	cr_assert_eq(find_inst(main, "zero")->op, FFU_OP_CONSTANT);
	/* The scalar broadcast without dimensions= is broadcast with dimensions={}. */
	const ffu_inst *b = find_inst(main, "b");
	cr_assert_eq(b->op, FFU_OP_BROADCAST);
	cr_assert_eq(b->n_dims, 0);
	cr_assert_eq(b->operands[0]->op, FFU_OP_REDUCE);
	cr_assert_eq(b->operands[0]->callee, add);
	assert_unique_names(m);
	ffu__module_free(m);

	/* Printed canonically: a header, ENTRY, unique names, dimensions={} spelled out. */
	char *t = round_trip(zkx_style);
	cr_assert(strncmp(t, "HloModule module_main\n", 22) == 0, "%s", t);
	cr_assert(strstr(t, "\nENTRY %main ("), "%s", t);
	cr_assert(strstr(t, "broadcast(%s.") && strstr(t, "), dimensions={}\n"), "%s", t);
	cr_assert(strstr(t, "ROOT %s = babybear[] add(%x, %y)\n"), "%s", t);
	free(t);
}

Test(hlo_zkx, entry_first_token_and_header_with_entry_not_last)
{
	/* ENTRY need not be last; names still scoped; the header names the module. */
	const char *text =
		"HloModule h, entry_computation_layout={(babybear[2]{0})->babybear[2]{0}}\n"
		"%f { %a = babybear[2] parameter(0)\n ROOT %n = babybear[2] negate(%a) }\n"
		"ENTRY %e { %a = babybear[2] parameter(0)\n ROOT %n = babybear[2] fusion(%a), kind=kLoop, calls=%f }\n";
	ffu_module *m = parse_ok(text);
	cr_assert_str_eq(m->name, "h");
	cr_assert_str_eq(m->entry->name, "e");
	cr_assert_str_eq(m->comps[0]->params[0]->name, "a");
	cr_assert_str_neq(m->entry->params[0]->name, "a");
	assert_unique_names(m);
	ffu__module_free(m);
	free(round_trip(text));
}

Test(hlo_zkx, renamed_names_never_take_a_name_of_the_text)
{
	/* %a in %f would become a.0; the entry already uses a.0, so it must get another. */
	const char *text =
		"%f { %a = babybear[2] parameter(0)\n ROOT %n = babybear[2] negate(%a) }\n"
		"%g { %a.0 = babybear[2] parameter(0)\n %a = babybear[2] negate(%a.0)\n"
		" ROOT %n = babybear[2] fusion(%a), calls=%f }\n";
	ffu_module *m = parse_ok(text);
	assert_unique_names(m);
	cr_assert_str_eq(m->entry->params[0]->name, "a.0");
	ffu__module_free(m);
	free(round_trip(text));

	/* A name too long for NAME.N in full still gets fresh names, once per clash. */
	char name[301], buf[1200];
	memset(name, 'a', 300);
	name[300] = '\0';
	snprintf(buf, sizeof buf, "%%f { %%%s = babybear[2] parameter(0) }\n%%g { %%%s = babybear[2] parameter(0) }\n"
		 "%%h { %%%s = babybear[2] parameter(0) }\n", name, name, name);
	m = parse_ok(buf);
	assert_unique_names(m);
	ffu__module_free(m);
}

Test(hlo_zkx, signature_parameter_list_is_not_compared)
{
	/* ZKX and XLA read the list and ignore it: count and shapes may differ from the body. */
	const char *text =
		"ENTRY %main (x: bn254.sf[], y: babybear[9], z: u32[]) -> babybear[4]{0} {\n"
		"  %x = babybear[4] parameter(0)\n"
		"  ROOT %n = babybear[4] negate(%x)\n"
		"}\n";
	ffu_module *m = parse_ok(text);
	cr_assert_eq(m->entry->n_params, 1);
	ffu__module_free(m);
	char *t = round_trip(text);
	cr_assert(strstr(t, "ENTRY %main (x: babybear[4]) -> babybear[4] {\n"), "%s", t);
	free(t);
}

Test(hlo_zkx, old_type_spellings_and_string_literals)
{
	const char *text =
		"ENTRY %main {\n"
		"  %a = bn254.sf[] constant(\"21888242871839275222246405745257275088548364400416034343698204186575808495616\")\n"
		"  %b = babybear4[] constant((1, \"2\", 3, 0x4))\n"
		"  %c = koalabear4[2] parameter(0)\n"
		"  %d = mersenne312[2] constant({(5, 6), (\"7\", 8)})\n"
		"  %e = babybear[2] constant({\"2013265920\", 1})\n"
		"  ROOT %t = (bn254_sf[], babybearx4[], koalabearx4[2], mersenne31x2[2], babybear[2]) tuple(%a, %b, %c, %d, %e)\n"
		"}\n";
	ffu_module *m = parse_ok(text);
	const ffu_shape *r = &m->entry->root->shape;
	cr_assert_eq(r->elems[0].type, FFU_TYPE_BN254_SF);
	cr_assert_eq(r->elems[1].type, FFU_TYPE_BABYBEARX4);
	cr_assert_eq(r->elems[2].type, FFU_TYPE_KOALABEARX4);
	cr_assert_eq(r->elems[3].type, FFU_TYPE_MERSENNE31X2);
	ffu__module_free(m);
	char *t = round_trip(text);
	cr_assert(strstr(t, "%a = bn254_sf[] constant(21888242871839275222246405745257275088548364400416034343698204186575808495616)\n"),
		  "%s", t);
	cr_assert(strstr(t, "%b = babybearx4[] constant((1, 2, 3, 4))\n"), "%s", t);
	cr_assert(strstr(t, "%d = mersenne31x2[2] constant({(5, 6), (7, 8)})\n"), "%s", t);
	cr_assert(strstr(t, "%e = babybear[2] constant({2013265920, 1})\n"), "%s", t);
	free(t);
}

/* Malformed ZKX-style text: the message and its exact position. */
static void expect_error(const char *text, int line, int col, const char *substring)
{
	ffu_error e = {0};
	cr_assert_neq(parse_err(text, strlen(text), &e), FFU_STATUS_OK, "parsed:\n%s", text);
	cr_assert(e.line == line && e.col == col && strstr(e.message, substring), "got %d:%d: %s; expected %d:%d: %s",
		  e.line, e.col, e.message, line, col, substring);
}

Test(hlo_zkx, scoped_name_errors)
{
	/* Still one definition per name inside a computation. */
	expect_error("%f { %a = babybear[2] parameter(0)\n %a = babybear[2] negate(%a) }\n", 2, 2,
		     "duplicate instruction name '%a'");
	/* Computation names stay module-unique. */
	expect_error("%f { %a = babybear[2] parameter(0) }\n%f { %a = babybear[2] parameter(0) }\n", 2, 1,
		     "duplicate computation name '%f'");
	/* A later computation's %b is not a later definition in this one. */
	expect_error("%f { ROOT %a = babybear[2] negate(%b) }\n%g { %b = babybear[2] parameter(0) }\n", 1, 35,
		     "undefined operand '%b'");
	/* Two ENTRY keywords, header or not. */
	expect_error("ENTRY %f { %a = babybear[2] parameter(0) }\nENTRY %g { %b = babybear[2] parameter(0) }\n", 2, 1,
		     "second ENTRY computation");
	expect_error("// nothing\n", 2, 1, "no computation in the module");
}

/* --- dialects: which form a plain name means --- */

static ffu_module *parse_dialect(const char *text, ffu_parse_options *o)
{
	ffu_error e = {0};
	ffu_module *m = NULL;
	ffu_status st = ffu__hlo_parse_with(&m, text, strlen(text), "test.hlo", o, &e);
	cr_assert_eq(st, FFU_STATUS_OK, "parse failed: %d:%d: %s\n%s", e.line, e.col, e.message, text);
	return m;
}

static uint32_t u32_at(const unsigned char *b)
{
	return b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24;
}

/* Parsed in AUTO, which must choose zkx-2026.01 because of the word at line:col. */
static ffu_module *parse_auto_zkx(const char *text, int line, int col)
{
	ffu_parse_options o = {0};
	ffu_module *m = parse_dialect(text, &o);
	cr_assert_eq(o.dialect_used, FFU_DIALECT_ZKX_2026_01);
	cr_assert(o.auto_line == line && o.auto_col == col, "chosen at %d:%d", o.auto_line, o.auto_col);
	return m;
}

/* babybear: R = 2^32, R mod p = 268435454; 2R mod p = 536870908. */
static const char *const plain_module =
	"ENTRY %main {\n"
	"  %x = babybear[2] parameter(0)\n"
	"  %c = babybear[2] constant({1, 2})\n"
	"  ROOT %r = babybear[2] multiply(%x, %c)\n"
	"}\n";

Test(hlo_zkx, dialect_plain_names)
{
	/* Default (AUTO without evidence) = fieldfuse: plain is canonical, literals as written. */
	ffu_parse_options o = {0};
	ffu_module *m = parse_dialect(plain_module, &o);
	cr_assert_eq(o.dialect_used, FFU_DIALECT_FIELDFUSE);
	cr_assert_eq(o.auto_line, 0);
	cr_assert_eq(m->entry->root->shape.type, FFU_TYPE_BABYBEAR);
	const ffu_inst *c = find_inst(m->entry, "c");
	cr_assert_eq(u32_at(c->literal), 1);
	ffu__module_free(m);

	/* zkx-2026.01: plain is Montgomery; constants are canonical numbers stored as x*R. */
	o = (ffu_parse_options){.dialect = FFU_DIALECT_ZKX_2026_01};
	m = parse_dialect(plain_module, &o);
	cr_assert_eq(o.dialect_used, FFU_DIALECT_ZKX_2026_01);
	cr_assert_eq(o.auto_line, 0);
	cr_assert_eq(m->entry->params[0]->shape.type, FFU_TYPE_BABYBEAR_MONT);
	c = find_inst(m->entry, "c");
	cr_assert_eq(c->shape.type, FFU_TYPE_BABYBEAR_MONT);
	cr_assert_eq(u32_at(c->literal), 268435454u);
	cr_assert_eq(u32_at(c->literal + 4), 536870908u);
	/* Printed in the fieldfuse dialect, it reads back as the same module. */
	char *t = reprint(m);
	cr_assert(strstr(t, "%c = babybear_mont[2] constant({268435454, 536870908})\n"), "%s", t);
	ffu__module_free(m);
	free(t);

	ffu_error e = {0};
	o = (ffu_parse_options){.dialect = (ffu_dialect)7};
	cr_assert_eq(ffu__hlo_parse_with(&m, plain_module, strlen(plain_module), "t", &o, &e), FFU_STATUS_EINVAL);
	cr_assert_null(m);
}

Test(hlo_zkx, dialect_auto_by_std_name)
{
	const char *text =
		"ENTRY %main {\n"
		"  %x = babybear[2] parameter(0)\n"
		"  %k = babybear_std[] constant(1)\n"
		"  %m = babybear_mont[] constant(1)\n"
		"  %s = babybear_std[2] convert(%x)\n"
		"  ROOT %t = (babybear_std[2], babybear_std[], babybear_mont[]) tuple(%s, %k, %m)\n"
		"}\n";
	ffu_module *m = parse_auto_zkx(text, 3, 8);
	/* The plain name before the `_std` one is Montgomery too: the dialect is the module's. */
	cr_assert_eq(m->entry->params[0]->shape.type, FFU_TYPE_BABYBEAR_MONT);
	cr_assert_eq(find_inst(m->entry, "s")->shape.type, FFU_TYPE_BABYBEAR);
	cr_assert_eq(u32_at(find_inst(m->entry, "k")->literal), 1);
	/* In this dialect a `_mont` literal is canonical too (ZKX reads every literal so). */
	cr_assert_eq(u32_at(find_inst(m->entry, "m")->literal), 268435454u);
	ffu__module_free(m);
	free(round_trip(text));

	/* An explicit fieldfuse dialect keeps plain canonical; `_std` is canonical in both. */
	ffu_parse_options o = {.dialect = FFU_DIALECT_FIELDFUSE};
	m = parse_dialect(text, &o);
	cr_assert_eq(o.dialect_used, FFU_DIALECT_FIELDFUSE);
	cr_assert_eq(o.auto_line, 0);
	cr_assert_eq(m->entry->params[0]->shape.type, FFU_TYPE_BABYBEAR);
	cr_assert_eq(u32_at(find_inst(m->entry, "m")->literal), 1);
	ffu__module_free(m);
}

/* The other zk_dtypes fields take the same three spellings (derived from fields.def). */
Test(hlo_zkx, dialect_names_of_the_new_fields)
{
	const char *text =
		"ENTRY %main {\n"
		"  %x = secp256k1_sf[2] parameter(0)\n"
		"  %s = secp256k1_sf_std[2] convert(%x)\n"
		"  %y = pallas_bf_std[] parameter(1)\n"
		"  %c = curve25519_sf_mont[] constant(1)\n"
		"  ROOT %t = (secp256k1_sf_std[2], pallas_bf_std[], curve25519_sf_mont[]) tuple(%s, %y, %c)\n"
		"}\n";
	ffu_module *m = parse_auto_zkx(text, 3, 8);
	cr_assert_eq(m->entry->params[0]->shape.type, FFU_TYPE_SECP256K1_SF_MONT);
	cr_assert_eq(find_inst(m->entry, "s")->shape.type, FFU_TYPE_SECP256K1_SF);
	cr_assert_eq(m->entry->params[1]->shape.type, FFU_TYPE_PALLAS_BF);
	cr_assert_eq(find_inst(m->entry, "c")->shape.type, FFU_TYPE_CURVE25519_SF_MONT);
	ffu__module_free(m);
	free(round_trip(text));
}

Test(hlo_zkx, dialect_auto_by_mont_layout)
{
	/* ZKX of 2025-08: `{:MONT(false)}` marks a standard-form buffer, plain is Montgomery. */
	const char *text =
		"ENTRY %main {\n"
		"  %x = babybear[2]{0} parameter(0)\n"
		"  %y = babybear[2]{:MONT(false)} parameter(1)\n"
		"  %z = koalabear[]{:MONT(true)} parameter(2)\n"
		"  %e = babybearx4[2]{0:MONT(false)} parameter(3)\n"
		"  ROOT %s = babybear[2]{0:MONT(false)} convert(%x)\n"
		"}\n";
	ffu_module *m = parse_auto_zkx(text, 3, 21);
	cr_assert_eq(m->entry->params[0]->shape.type, FFU_TYPE_BABYBEAR_MONT);
	cr_assert_eq(m->entry->params[1]->shape.type, FFU_TYPE_BABYBEAR);
	cr_assert_eq(m->entry->params[2]->shape.type, FFU_TYPE_KOALABEAR_MONT);
	cr_assert_eq(m->entry->params[3]->shape.type, FFU_TYPE_BABYBEARX4);
	cr_assert_eq(m->entry->root->shape.type, FFU_TYPE_BABYBEAR);
	ffu__module_free(m);
	free(round_trip(text));
}

Test(hlo_zkx, dialect_errors)
{
	/* A plain ZKX extension name is its _mont twin: not the _std type's shape. */
	expect_error("ENTRY %main {\n  %x = babybearx4[2] parameter(0)\n  %y = babybearx4_std[2] negate(%x)\n}\n", 3, 3,
		     "has shape babybearx4_mont[2], expected babybearx4[2]");
	expect_error("ENTRY %main {\n  %x = babybear_std[2]{0:MONT(true)} parameter(0)\n}\n", 2, 26,
		     "MONT(true) contradicts the type name 'babybear_std'");
	expect_error("ENTRY %main {\n  %x = u32_std[2] parameter(0)\n}\n", 2, 8, "unknown type 'u32_std'");
	expect_error("ENTRY %main {\n  %x = babybearx4_std_mont[2] parameter(0)\n}\n", 2, 8,
		     "unknown type 'babybearx4_std_mont'");
	expect_error("ENTRY %main {\n  %x = babybear_mont_std[2] parameter(0)\n}\n", 2, 8,
		     "unknown type 'babybear_mont_std'");
	/* A literal of a Montgomery type in zkx-2026.01 is canonical, so it must be < p. */
	expect_error("ENTRY %main {\n  %x = babybear_std[] parameter(0)\n  ROOT %c = babybear[] constant(2013265921)\n}\n",
		     3, 33, "bad babybear_mont literal '2013265921': value is not less than the field modulus");
}

/* Valid ZKX text that fieldfuse cannot run yet is EUNSUPPORTED; malformed text EPARSE. */
Test(hlo_zkx, unsupported_is_not_malformed)
{
	static const char *const unsupported[] = {
		"ENTRY %e {\n  %m = babybear[4,3]{0,1:D(D, C) NNZ(8)} parameter(0)\n}\n", /* CSC */
		"ENTRY %e {\n  %x = babybear[8]{0:T(8)} parameter(0)\n}\n",
		"ENTRY %e {\n  %x = babybear[4,2]{0,1} parameter(0)\n}\n",
		"ENTRY %e {\n  %x = secp256k1_g1_affine[4] parameter(0)\n}\n",
		/* ZKX's opcodes that fieldfuse lacks yet */
		"ENTRY %e {\n  %x = babybear[4] parameter(0)\n  ROOT %f = babybear[4] sort(%x), dimensions={0}\n}\n",
	};
	static const char *const malformed[] = {
		"ENTRY %e {\n  %x = babybear[4] parameter(0)\n  ROOT %m = babybear[4] maximun(%x, %x)\n}\n",
		"ENTRY %e {\n  %x = babybear[4,2]{1,2} parameter(0)\n}\n",
		"ENTRY %e {\n  %x = babybear[4]{0:NNZ(2)} parameter(0)\n}\n",
		"ENTRY %e {\n  %x = babybear[4]{0:FOO(1)} parameter(0)\n}\n",
	};
	ffu_error e = {0};
	for (size_t i = 0; i < sizeof unsupported / sizeof unsupported[0]; i++)
		cr_expect_eq(parse_err(unsupported[i], strlen(unsupported[i]), &e), FFU_STATUS_EUNSUPPORTED, "%s: %s",
			     unsupported[i], e.message);
	for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; i++)
		cr_expect_eq(parse_err(malformed[i], strlen(malformed[i]), &e), FFU_STATUS_EPARSE, "%s: %s", malformed[i],
			     e.message);
}
