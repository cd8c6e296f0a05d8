/*
 * tests/test_hlo_ext_mont.c (part of test_hlo): the extensions' `_mont` twins and
 * goldilocksx3 in HLO text (docs/hlo.md section 7): which type each spelling means in each
 * dialect, literals (ZKX's canonical numbers stored in Montgomery form; fieldfuse's raw
 * _mont words), printing and reading back.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hlo_check.h"

static ffu_module *parse_in(const char *text, ffu_dialect d)
{
	ffu_parse_options o = {.dialect = d};
	ffu_error e = {0};
	ffu_module *m = NULL;
	ffu_status st = ffu__hlo_parse_with(&m, text, strlen(text), "test.hlo", &o, &e);
	cr_assert_eq(st, FFU_STATUS_OK, "parse failed: %d:%d: %s\n%s", e.line, e.col, e.message, text);
	return m;
}

static const ffu_inst *inst_named(const ffu_computation *c, const char *name)
{
	for (int i = 0; i < c->n_insts; i++)
		if (strcmp(c->insts[i]->name, name) == 0)
			return c->insts[i];
	cr_assert_fail("no instruction '%s'", name);
	return NULL;
}

static uint64_t word_at(const unsigned char *b, size_t bytes)
{
	uint64_t v = 0;
	for (size_t i = 0; i < bytes; i++)
		v |= (uint64_t)b[i] << (8 * i);
	return v;
}

/* Every spelling of every extension, in both dialects. */
Test(hlo_ext_mont, type_names_per_dialect)
{
	static const struct {
		const char *word;
		ffu_type fieldfuse, zkx; /* the type in dialect fieldfuse / zkx-2026.01 */
	} rows[] = {
		{"babybearx4", FFU_TYPE_BABYBEARX4, FFU_TYPE_BABYBEARX4_MONT},
		{"babybearx4_std", FFU_TYPE_BABYBEARX4, FFU_TYPE_BABYBEARX4},
		{"babybearx4_mont", FFU_TYPE_BABYBEARX4_MONT, FFU_TYPE_BABYBEARX4_MONT},
		{"babybear4", FFU_TYPE_BABYBEARX4, FFU_TYPE_BABYBEARX4_MONT},
		{"koalabearx4", FFU_TYPE_KOALABEARX4, FFU_TYPE_KOALABEARX4_MONT},
		{"koalabear4_mont", FFU_TYPE_KOALABEARX4_MONT, FFU_TYPE_KOALABEARX4_MONT},
		{"mersenne31x2", FFU_TYPE_MERSENNE31X2, FFU_TYPE_MERSENNE31X2_MONT},
		{"mersenne312_std", FFU_TYPE_MERSENNE31X2, FFU_TYPE_MERSENNE31X2},
		{"goldilocksx2_mont", FFU_TYPE_GOLDILOCKSX2_MONT, FFU_TYPE_GOLDILOCKSX2_MONT},
		{"goldilocksx3", FFU_TYPE_GOLDILOCKSX3, FFU_TYPE_GOLDILOCKSX3_MONT},
		{"goldilocksx3_std", FFU_TYPE_GOLDILOCKSX3, FFU_TYPE_GOLDILOCKSX3},
		{"goldilocksx3_mont", FFU_TYPE_GOLDILOCKSX3_MONT, FFU_TYPE_GOLDILOCKSX3_MONT},
		{"goldilocks3", FFU_TYPE_GOLDILOCKSX3, FFU_TYPE_GOLDILOCKSX3_MONT},
		{"babybearx4[4]{0:MONT(true)", FFU_TYPE_BABYBEARX4_MONT, FFU_TYPE_BABYBEARX4_MONT},
		{"goldilocksx3[4]{0:MONT(false)", FFU_TYPE_GOLDILOCKSX3, FFU_TYPE_GOLDILOCKSX3},
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		char text[200];
		bool layout = strchr(rows[i].word, '{') != NULL;
		snprintf(text, sizeof text, "HloModule m\nENTRY %%e {\n  ROOT %%x = %s%s parameter(0)\n}\n", rows[i].word,
			 layout ? "}" : "[4]");
		for (int z = 0; z < 2; z++) {
			ffu_module *m = parse_in(text, z ? FFU_DIALECT_ZKX_2026_01 : FFU_DIALECT_FIELDFUSE);
			ffu_type want = z ? rows[i].zkx : rows[i].fieldfuse;
			cr_expect_eq(m->entry->root->shape.type, want, "%s in %s: %s, want %s", rows[i].word,
				     z ? "zkx-2026.01" : "fieldfuse", ffu__type_name(m->entry->root->shape.type),
				     ffu__type_name(want));
			ffu__module_free(m);
		}
	}
	/* The type names print and read back as themselves (the fieldfuse dialect's spelling). */
	for (int t = FFU_FIELD_EXT_FIRST; t < FFU_FIELD_EXT_MONT_END; t++) {
		const char *name = ffu__type_name((ffu_type)t);
		cr_assert_eq(ffu__type_by_name(name, strlen(name)), (ffu_type)t, "%s", name);
	}
}

/*
 * Literals: ZKX writes canonical numbers and stores them in the type's form, so a plain
 * babybearx4 constant (1, 2, 3, 4) in zkx-2026.01 holds (R, 2R, 3R, 4R) mod p, R = 2^32;
 * an explicit _mont literal in the fieldfuse dialect is the raw words. The printed module
 * says babybearx4_mont with the raw words, and reads back in either dialect.
 */
Test(hlo_ext_mont, literals_and_printing)
{
	const char *text = "HloModule m\nENTRY %e {\n"
			   "  %c = babybearx4[] constant((1, 2, 3, 4))\n"
			   "  %g = goldilocksx3[2] constant({(1, 0, 0), (0, 1, \"18446744069414584320\")})\n"
			   "  ROOT %t = (babybearx4[], goldilocksx3[2]) tuple(%c, %g)\n}\n";
	ffu_module *m = parse_in(text, FFU_DIALECT_ZKX_2026_01);
	const ffu_inst *c = inst_named(m->entry, "c"), *g = inst_named(m->entry, "g");
	cr_assert_eq(c->shape.type, FFU_TYPE_BABYBEARX4_MONT);
	cr_assert_eq(g->shape.type, FFU_TYPE_GOLDILOCKSX3_MONT);
	const uint64_t bb = 2013265921, gl = 18446744069414584321ull;
	for (int k = 0; k < 4; k++)
		cr_expect_eq(word_at(c->literal + 4 * k, 4), (uint64_t)(k + 1) * 268435454 % bb, "coefficient %d", k);
	/* goldilocks: R = 2^64, R mod p = 2^32 - 1; (p - 1) R = -R = p - (2^32 - 1) */
	const uint64_t want_g[6] = {4294967295u, 0, 0, 0, 4294967295u, gl - 4294967295u};
	for (int k = 0; k < 6; k++)
		cr_expect_eq(word_at(g->literal + 8 * k, 8), want_g[k], "goldilocksx3 word %d", k);
	char *printed = reprint(m);
	cr_assert(strstr(printed, "babybearx4_mont[] constant((268435454, 536870908, 805306362, 1073741816))"), "%s",
		  printed);
	cr_assert(strstr(printed, "goldilocksx3_mont[2] constant({(4294967295, 0, 0), (0, 4294967295, "
				  "18446744065119617026)})"),
		  "%s", printed);
	/* the printed (fieldfuse-dialect) text holds the same bytes */
	ffu_module *back = parse_in(printed, FFU_DIALECT_FIELDFUSE);
	cr_assert_eq(memcmp(inst_named(back->entry, "c")->literal, c->literal, 16), 0);
	cr_assert_eq(memcmp(inst_named(back->entry, "g")->literal, g->literal, 48), 0);
	ffu__module_free(back);
	free(printed);
	ffu__module_free(m);
	/* fieldfuse: an explicit _mont literal is the raw words, and must be < p */
	m = parse_in("HloModule m\nENTRY %e {\n  ROOT %c = mersenne31x2_mont[] constant((5, 2147483646))\n}\n",
		     FFU_DIALECT_FIELDFUSE);
	cr_assert_eq(word_at(m->entry->root->literal, 4), 5);
	cr_assert_eq(word_at(m->entry->root->literal + 4, 4), 2147483646);
	ffu__module_free(m);
	ffu_error e = {0};
	const char *big = "HloModule m\nENTRY %e {\n  ROOT %c = mersenne31x2_mont[] constant((5, 2147483647))\n}\n";
	cr_assert_eq(parse_err(big, strlen(big), &e), FFU_STATUS_EPARSE);
	cr_assert(e.line == 3 && e.col == 46 && strstr(e.message, "not less than the field modulus"), "%d:%d: %s",
		  e.line, e.col, e.message);
}

/* convert between an extension and its _mont twin type-checks both ways; not across fields. */
Test(hlo_ext_mont, convert_rules)
{
	const char *ok = "HloModule m\nENTRY %e {\n  %x = koalabearx4_std[8] parameter(0)\n"
			 "  %m = koalabearx4[8] convert(%x)\n  %b = koalabear[8] parameter(1)\n"
			 "  %y = koalabearx4[8] convert(%b)\n  %s = koalabearx4[8] add(%m, %y)\n"
			 "  ROOT %r = koalabearx4_std[8] convert(%s)\n}\n";
	ffu_module *m = parse_in(ok, FFU_DIALECT_AUTO);
	cr_assert_eq(inst_named(m->entry, "m")->shape.type, FFU_TYPE_KOALABEARX4_MONT);
	cr_assert_eq(inst_named(m->entry, "y")->shape.type, FFU_TYPE_KOALABEARX4_MONT);
	cr_assert_eq(m->entry->root->shape.type, FFU_TYPE_KOALABEARX4);
	ffu__module_free(m);
	const char *bad = "HloModule m\nENTRY %e {\n  %x = goldilocksx3_mont[8] parameter(0)\n"
			  "  ROOT %r = goldilocksx2_mont[8] convert(%x)\n}\n";
	ffu_error e = {0};
	cr_assert_neq(parse_err(bad, strlen(bad), &e), FFU_STATUS_OK);
	cr_assert_eq(e.line, 4, "%d:%d: %s", e.line, e.col, e.message);
}
