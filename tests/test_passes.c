/*
 * tests/test_passes.c: the passes before fusion (simplify, cse, dce) and the pass manager.
 *  - rules: for each rule a small input, exactly one pass, and the entry computation as
 *    the printer writes it afterwards, compared line by line; every case's result must
 *    also give the interpreter's values of the input on random inputs;
 *  - semantics: each pass alone, and the pipeline prefix by prefix, on generated programs
 *    (tools/gen) of every field type: the interpreter's outputs before and after agree;
 *  - the pass manager: pass names, disabling (options, FIELDFUSE_DISABLE_PASSES through the
 *    CLI), dumps, and the CLI's --disable-pass.
 * Host only: no device is needed (the soak test runs generated programs on the devices).
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hlo/hlo.h"
#include "interp/interp.h"
#include "passes/passes.h"
#include "programs.h"
#include "support.h"
#include "tools/gen/gen.h"

extern char **environ;

/* ---- helpers ---- */

static ffu_module *parse(const char *text)
{
	ffu_module *m = NULL;
	ffu_error e = {0};
	cr_assert_eq(ffu__hlo_parse(&m, text, strlen(text), "case.hlo", &e), FFU_STATUS_OK, "%s\n%s", e.message, text);
	return m;
}

static char *print(const ffu_module *m)
{
	ffu_strbuf sb = {0};
	ffu_error e = {0};
	cr_assert_eq(ffu__hlo_print(&sb, m, &e), FFU_STATUS_OK, "%s", e.message);
	char *text = strdup(ffu__sb_cstr(&sb));
	ffu__sb_free(&sb);
	return text;
}

/* The instruction lines of the printed ENTRY computation (malloc'd). */
static char *entry_body(const char *printed)
{
	const char *p = strstr(printed, "\nENTRY ");
	cr_assert(p, "no ENTRY in\n%s", printed);
	p = strchr(p, '{');
	cr_assert(p);
	p += 2; /* "{\n" */
	const char *end = strstr(p, "\n}");
	cr_assert(end);
	size_t n = (size_t)(end - p) + 1;
	char *body = malloc(n + 1);
	memcpy(body, p, n);
	body[n] = '\0';
	return body;
}

/* Inputs for every parameter: random, with 0, 1 and -1 first (u32/u64: 0, 1, 2). */
static ffu_value *inputs(const ffu_module *m, uint64_t seed)
{
	const ffu_computation *c = m->entry;
	ffu_value *in = calloc((size_t)c->n_params + 1, sizeof *in);
	for (int p = 0; p < c->n_params; p++) {
		ffu_error e = {0};
		cr_assert_eq(ffu__value_alloc(&in[p], &c->params[p]->shape, &e), FFU_STATUS_OK, "%s", e.message);
		ffu__value_random(&in[p], &seed);
		const ffu_field *f = ffu__shape_field(&in[p].shape);
		const ffu_shape *s = &in[p].shape; /* a CSR matrix: its first stored values (ir/csr.c) */
		int64_t n = s->csr ? s->nnz : ffu__shape_count(s);
		unsigned char *first = in[p].data + (s->csr ? ffu__csr_values_offset(s) : 0);
		for (int64_t i = 0; i < n && i < 3 && f->kind != FFU_ELEM_PRED; i++) {
			unsigned char *d = first + (size_t)i * f->storage_bytes;
			ffu__fp_set_u64(f, d, (uint64_t)(i == 2 && f->kind != FFU_ELEM_UINT ? 1 : i));
			if (i == 2 && f->kind != FFU_ELEM_UINT)
				ffu__fp_neg(f, d, d, NULL);
		}
	}
	return in;
}

static void expect_same_values(const ffu_value *a, int na, const ffu_value *b, int nb, const char *what)
{
	cr_assert_eq(na, nb, "%s: %d outputs, expected %d", what, nb, na);
	for (int o = 0; o < na; o++) {
		cr_assert(ffu__shape_eq(&a[o].shape, &b[o].shape), "%s: output %d changed its shape", what, o);
		cr_assert_eq(a[o].bytes, b[o].bytes, "%s: output %d", what, o);
		size_t eb = ffu__shape_elem_bytes(&a[o].shape);
		for (size_t i = 0; i < a[o].bytes; i += eb)
			cr_assert(memcmp(a[o].data + i, b[o].data + i, eb) == 0,
				  "%s: output %d element %zu differs from the interpreter's before the pass", what, o, i / eb);
	}
}

/*
 * Runs the passes of the comma-separated list `passes` (each with ffu__pass_run_one, which
 * verifies) on text and checks the interpreter gives the same outputs before and after, on
 * inputs from two seeds. Returns the module after the passes.
 */
static ffu_module *check_semantics_opts(const char *text, const char *passes, const ffu_pass_opts *po,
					const char *what)
{
	ffu_module *before = parse(text), *m = parse(text);
	ffu_value *ref[2] = {NULL}, *out = NULL, *in[2];
	int n_ref[2] = {0}, n_out = 0;
	ffu_error e = {0};
	for (int s = 0; s < 2; s++) {
		in[s] = inputs(before, 7 + (uint64_t)s);
		cr_assert_eq(ffu__interp_run(before, in[s], before->entry->n_params, &ref[s], &n_ref[s], &e), FFU_STATUS_OK,
			     "%s: %s", what, e.message);
	}
	char list[128];
	snprintf(list, sizeof list, "%s", passes);
	for (char *save = NULL, *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save))
		cr_assert_eq(ffu__pass_run_one(m, name, po, &e), FFU_STATUS_OK, "%s: pass %s: %s\n%s", what, name,
			     e.message, text);
	cr_assert_eq(m->entry->n_params, before->entry->n_params, "%s: parameters changed", what);
	for (int s = 0; s < 2; s++) {
		cr_assert_eq(ffu__interp_run(m, in[s], m->entry->n_params, &out, &n_out, &e), FFU_STATUS_OK, "%s: %s", what,
			     e.message);
		char w[256];
		snprintf(w, sizeof w, "%s after %s", what, passes);
		expect_same_values(ref[s], n_ref[s], out, n_out, w);
		ffu__values_free(out, n_out);
		ffu__values_free(ref[s], n_ref[s]);
		ffu__values_free(in[s], before->entry->n_params);
	}
	ffu__module_free(before);
	ffu_error_clear(&e);
	return m;
}

static ffu_module *check_semantics(const char *text, const char *passes, bool fuse, const char *what)
{
	return check_semantics_opts(text, passes, &(ffu_pass_opts){.fuse = fuse}, what);
}

/* ---- rules: input, one pass, expected entry ---- */

typedef struct pass_case {
	const char *name;
	const char *pass;
	const char *comps;  /* computations before the entry ("" if none) */
	const char *input;  /* the entry's instructions */
	const char *expect; /* the entry's instructions as printed after the pass */
} pass_case;

#define SUM_BB "%sum (sa: babybear[], sb: babybear[]) -> babybear[] {\n  %sa = babybear[] parameter(0)\n" \
	       "  %sb = babybear[] parameter(1)\n  ROOT %sc = babybear[] add(%sa, %sb)\n}\n"
#define PROD_BB "%prod (pa: babybear[], pb: babybear[]) -> babybear[] {\n  %pa = babybear[] parameter(0)\n" \
		"  %pb = babybear[] parameter(1)\n  ROOT %pc = babybear[] multiply(%pa, %pb)\n}\n"

static const pass_case cases[] = {
	/* ---- simplify: identities ---- */
	{"add_zero", "simplify", "",
	 "%x = babybear[4] parameter(0)\n%z = babybear[] constant(0)\n%bz = babybear[4] broadcast(%z), dimensions={}\n"
	 "ROOT %a = babybear[4] add(%x, %bz)\n",
	 "ROOT %x = babybear[4] parameter(0)\n%z = babybear[] constant(0)\n%bz = babybear[4] broadcast(%z), dimensions={}\n"},
	{"zero_add", "simplify", "",
	 "%x = babybear[4] parameter(0)\n%z = babybear[4] constant({0, 0, 0, 0})\n%s = babybear[4] negate(%x)\n"
	 "ROOT %a = babybear[4] add(%z, %s)\n",
	 "%x = babybear[4] parameter(0)\n%z = babybear[4] constant({0, 0, 0, 0})\nROOT %s = babybear[4] negate(%x)\n"},
	{"add_nonzero_kept", "simplify", "",
	 "%x = babybear[4] parameter(0)\n%z = babybear[4] constant({0, 0, 1, 0})\nROOT %a = babybear[4] add(%x, %z)\n",
	 "%x = babybear[4] parameter(0)\n%z = babybear[4] constant({0, 0, 1, 0})\nROOT %a = babybear[4] add(%x, %z)\n"},
	{"sub_zero", "simplify", "",
	 "%x = goldilocks[3] parameter(0)\n%z = goldilocks[] constant(0)\n%bz = goldilocks[3] broadcast(%z), dimensions={}\n"
	 "%s = goldilocks[3] subtract(%x, %bz)\nROOT %n = goldilocks[3] negate(%s)\n",
	 "%x = goldilocks[3] parameter(0)\n%z = goldilocks[] constant(0)\n%bz = goldilocks[3] broadcast(%z), dimensions={}\n"
	 "ROOT %n = goldilocks[3] negate(%x)\n"},
	{"zero_sub", "simplify", "",
	 "%x = goldilocks[3] parameter(0)\n%z = goldilocks[] constant(0)\n%bz = goldilocks[3] broadcast(%z), dimensions={}\n"
	 "ROOT %s = goldilocks[3] subtract(%bz, %x)\n",
	 "%x = goldilocks[3] parameter(0)\n%z = goldilocks[] constant(0)\n%bz = goldilocks[3] broadcast(%z), dimensions={}\n"
	 "ROOT %s = goldilocks[3] negate(%x)\n"},
	{"sub_self", "simplify", "",
	 "%x = mersenne31[2,3] parameter(0)\nROOT %s = mersenne31[2,3] subtract(%x, %x)\n",
	 "%x = mersenne31[2,3] parameter(0)\n%constant.0 = mersenne31[] constant(0)\n"
	 "ROOT %s = mersenne31[2,3] broadcast(%constant.0), dimensions={}\n"},
	{"sub_self_scalar", "simplify", "",
	 "%x = mersenne31[] parameter(0)\nROOT %s = mersenne31[] subtract(%x, %x)\n",
	 "%x = mersenne31[] parameter(0)\nROOT %s = mersenne31[] constant(0)\n"},
	{"mul_one", "simplify", "",
	 "%x = koalabear[4] parameter(0)\n%o = koalabear[] constant(1)\n%bo = koalabear[4] broadcast(%o), dimensions={}\n"
	 "%m = koalabear[4] multiply(%bo, %x)\nROOT %n = koalabear[4] negate(%m)\n",
	 "%x = koalabear[4] parameter(0)\n%o = koalabear[] constant(1)\n%bo = koalabear[4] broadcast(%o), dimensions={}\n"
	 "ROOT %n = koalabear[4] negate(%x)\n"},
	/* babybear_mont holds x * 2^32 mod p: its one is 268435454; the literal 1 is not one */
	{"mul_one_mont", "simplify", "",
	 "%x = babybear_mont[4] parameter(0)\n%o = babybear_mont[] constant(268435454)\n"
	 "%bo = babybear_mont[4] broadcast(%o), dimensions={}\nROOT %m = babybear_mont[4] multiply(%x, %bo)\n",
	 "ROOT %x = babybear_mont[4] parameter(0)\n%o = babybear_mont[] constant(268435454)\n"
	 "%bo = babybear_mont[4] broadcast(%o), dimensions={}\n"},
	{"mul_literal_one_mont_kept", "simplify", "",
	 "%x = babybear_mont[4] parameter(0)\n%o = babybear_mont[] constant(1)\n"
	 "%bo = babybear_mont[4] broadcast(%o), dimensions={}\nROOT %m = babybear_mont[4] multiply(%x, %bo)\n",
	 "%x = babybear_mont[4] parameter(0)\n%o = babybear_mont[] constant(1)\n"
	 "%bo = babybear_mont[4] broadcast(%o), dimensions={}\nROOT %m = babybear_mont[4] multiply(%x, %bo)\n"},
	{"mul_zero", "simplify", "",
	 "%x = bn254_sf[4] parameter(0)\n%z = bn254_sf[] constant(0)\n%bz = bn254_sf[4] broadcast(%z), dimensions={}\n"
	 "ROOT %m = bn254_sf[4] multiply(%x, %bz)\n",
	 "%x = bn254_sf[4] parameter(0)\n%z = bn254_sf[] constant(0)\nROOT %bz = bn254_sf[4] broadcast(%z), dimensions={}\n"},
	/* -1 in bls12_381_sf_mont is p - R mod p */
	{"mul_minus_one_mont", "simplify", "",
	 "%x = goldilocks_mont[4] parameter(0)\n%c = goldilocks_mont[] constant(18446744065119617026)\n"
	 "%bc = goldilocks_mont[4] broadcast(%c), dimensions={}\nROOT %m = goldilocks_mont[4] multiply(%bc, %x)\n",
	 "%x = goldilocks_mont[4] parameter(0)\n%c = goldilocks_mont[] constant(18446744065119617026)\n"
	 "%bc = goldilocks_mont[4] broadcast(%c), dimensions={}\nROOT %m = goldilocks_mont[4] negate(%x)\n"},
	{"neg_neg", "simplify", "",
	 "%x = babybear[4] parameter(0)\n%a = babybear[4] negate(%x)\n%b = babybear[4] negate(%a)\n"
	 "ROOT %m = babybear[4] multiply(%b, %a)\n",
	 "%x = babybear[4] parameter(0)\n%a = babybear[4] negate(%x)\nROOT %m = babybear[4] multiply(%x, %a)\n"},
	{"inv_inv", "simplify", "",
	 "%x = koalabear[4] parameter(0)\n%a = koalabear[4] inverse(%x)\nROOT %b = koalabear[4] inverse(%a)\n",
	 "ROOT %x = koalabear[4] parameter(0)\n%a = koalabear[4] inverse(%x)\n"},
	/* 1/2 in babybear is (p + 1) / 2 */
	{"div_const", "simplify", "",
	 "%x = babybear[4] parameter(0)\n%c = babybear[] constant(2)\n%bc = babybear[4] broadcast(%c), dimensions={}\n"
	 "ROOT %d = babybear[4] divide(%x, %bc)\n",
	 "%x = babybear[4] parameter(0)\n%c = babybear[] constant(2)\n%bc = babybear[4] broadcast(%c), dimensions={}\n"
	 "%constant.0 = babybear[] constant(1006632961)\n%broadcast.1 = babybear[4] broadcast(%constant.0), dimensions={}\n"
	 "ROOT %d = babybear[4] multiply(%x, %broadcast.1)\n"},
	{"div_const_scalar", "simplify", "",
	 "%x = babybear[] parameter(0)\n%c = babybear[] constant(2)\nROOT %d = babybear[] divide(%x, %c)\n",
	 "%x = babybear[] parameter(0)\n%c = babybear[] constant(2)\n%constant.0 = babybear[] constant(1006632961)\n"
	 "ROOT %d = babybear[] multiply(%x, %constant.0)\n"},
	{"div_one", "simplify", "",
	 "%x = babybear[4] parameter(0)\n%c = babybear[] constant(1)\n%bc = babybear[4] broadcast(%c), dimensions={}\n"
	 "%d = babybear[4] divide(%x, %bc)\nROOT %n = babybear[4] negate(%d)\n",
	 "%x = babybear[4] parameter(0)\n%c = babybear[] constant(1)\n%bc = babybear[4] broadcast(%c), dimensions={}\n"
	 "%constant.0 = babybear[] constant(1)\n%broadcast.1 = babybear[4] broadcast(%constant.0), dimensions={}\n"
	 "ROOT %n = babybear[4] negate(%x)\n"},
	/* x / 0 = 0 (ZKX): x * inverse(0) = x * 0 = 0 */
	{"div_zero", "simplify", "",
	 "%x = babybear[4] parameter(0)\n%c = babybear[] constant(0)\n%bc = babybear[4] broadcast(%c), dimensions={}\n"
	 "ROOT %d = babybear[4] divide(%x, %bc)\n",
	 "%x = babybear[4] parameter(0)\n%c = babybear[] constant(0)\n%bc = babybear[4] broadcast(%c), dimensions={}\n"
	 "%constant.0 = babybear[] constant(0)\nROOT %broadcast.1 = babybear[4] broadcast(%constant.0), dimensions={}\n"},
	{"zero_div", "simplify", "",
	 "%x = babybear[4] parameter(0)\n%c = babybear[] constant(0)\n%bc = babybear[4] broadcast(%c), dimensions={}\n"
	 "ROOT %d = babybear[4] divide(%bc, %x)\n",
	 "%x = babybear[4] parameter(0)\n%c = babybear[] constant(0)\nROOT %bc = babybear[4] broadcast(%c), dimensions={}\n"},
	{"div_by_value_kept", "simplify", "",
	 "%x = babybear[4] parameter(0)\nROOT %d = babybear[4] divide(%x, %x)\n",
	 "%x = babybear[4] parameter(0)\nROOT %d = babybear[4] divide(%x, %x)\n"},
	{"power_0_1_2_3", "simplify", "",
	 "%x = mersenne31[4] parameter(0)\n%e0 = u32[] constant(0)\n%e1 = u64[] constant(1)\n%e2 = u32[] constant(2)\n"
	 "%e3 = u32[] constant(3)\n%b0 = u32[4] broadcast(%e0), dimensions={}\n%b1 = u64[4] broadcast(%e1), dimensions={}\n"
	 "%b2 = u32[4] broadcast(%e2), dimensions={}\n%b3 = u32[4] broadcast(%e3), dimensions={}\n"
	 "%p0 = mersenne31[4] power(%x, %b0)\n%p1 = mersenne31[4] power(%x, %b1)\n%p2 = mersenne31[4] power(%x, %b2)\n"
	 "%p3 = mersenne31[4] power(%x, %b3)\n"
	 "ROOT %t = (mersenne31[4], mersenne31[4], mersenne31[4], mersenne31[4]) tuple(%p0, %p1, %p2, %p3)\n",
	 "%x = mersenne31[4] parameter(0)\n%e0 = u32[] constant(0)\n%e1 = u64[] constant(1)\n%e2 = u32[] constant(2)\n"
	 "%e3 = u32[] constant(3)\n%b0 = u32[4] broadcast(%e0), dimensions={}\n%b1 = u64[4] broadcast(%e1), dimensions={}\n"
	 "%b2 = u32[4] broadcast(%e2), dimensions={}\n%b3 = u32[4] broadcast(%e3), dimensions={}\n"
	 "%constant.0 = mersenne31[] constant(1)\n%p0 = mersenne31[4] broadcast(%constant.0), dimensions={}\n"
	 "%p2 = mersenne31[4] square(%x)\n%p3 = mersenne31[4] power(%x, %b3)\n"
	 "ROOT %t = (mersenne31[4], mersenne31[4], mersenne31[4], mersenne31[4]) tuple(%p0, %x, %p2, %p3)\n"},
	/* x * x has one spelling, so cse meets square(x) written either way once */
	{"multiply_same_is_square", "simplify,cse", "",
	 "%x = goldilocksx2[4] parameter(0)\n%a = goldilocksx2[4] multiply(%x, %x)\n%b = goldilocksx2[4] square(%x)\n"
	 "ROOT %s = goldilocksx2[4] add(%a, %b)\n",
	 "%x = goldilocksx2[4] parameter(0)\n%a = goldilocksx2[4] square(%x)\n"
	 "ROOT %s = goldilocksx2[4] add(%a, %a)\n"},
	{"power_0_mont", "simplify", "",
	 "%x = koalabear_mont[] parameter(0)\n%e = u32[] constant(0)\nROOT %p = koalabear_mont[] power(%x, %e)\n",
	 "%x = koalabear_mont[] parameter(0)\n%e = u32[] constant(0)\nROOT %p = koalabear_mont[] constant(33554430)\n"},
	{"power_by_value_kept", "simplify", "",
	 "%x = babybear[4] parameter(0)\n%e = u32[4] parameter(1)\nROOT %p = babybear[4] power(%x, %e)\n",
	 "%x = babybear[4] parameter(0)\n%e = u32[4] parameter(1)\nROOT %p = babybear[4] power(%x, %e)\n"},
	{"convert_round_trip", "simplify", "",
	 "%x = babybear[4] parameter(0)\n%m = babybear_mont[4] convert(%x)\n%y = babybear[4] convert(%m)\n"
	 "%u = u32[4] convert(%y)\n%z = babybear[4] convert(%u)\nROOT %n = babybear[4] negate(%z)\n",
	 "%x = babybear[4] parameter(0)\n%m = babybear_mont[4] convert(%x)\n%u = u32[4] convert(%x)\n"
	 "ROOT %n = babybear[4] negate(%x)\n"},
	/* u32 -> babybear reduces mod p: the way back is not the identity */
	{"convert_u32_round_trip_kept", "simplify", "",
	 "%u = u32[4] parameter(0)\n%x = babybear[4] convert(%u)\nROOT %v = u32[4] convert(%x)\n",
	 "%u = u32[4] parameter(0)\n%x = babybear[4] convert(%u)\nROOT %v = u32[4] convert(%x)\n"},
	{"compare_self", "simplify", "",
	 "%x = babybear[4] parameter(0)\n%e = pred[4] compare(%x, %x), direction=EQ\n"
	 "%n = pred[4] compare(%x, %x), direction=NE\nROOT %t = (pred[4], pred[4]) tuple(%e, %n)\n",
	 "%x = babybear[4] parameter(0)\n%constant.0 = pred[] constant(true)\n%e = pred[4] broadcast(%constant.0), dimensions={}\n"
	 "%constant.1 = pred[] constant(false)\n%n = pred[4] broadcast(%constant.1), dimensions={}\n"
	 "ROOT %t = (pred[4], pred[4]) tuple(%e, %n)\n"},
	{"select_rules", "simplify", "",
	 "%x = babybear[4] parameter(0)\n%y = babybear[4] parameter(1)\n%p = pred[4] parameter(2)\n"
	 "%t = pred[] constant(true)\n%s1 = babybear[4] select(%p, %x, %x)\n%s2 = babybear[4] select(%t, %x, %y)\n"
	 "%s3 = babybear[4] select(%p, %x, %y)\nROOT %r = (babybear[4], babybear[4], babybear[4]) tuple(%s1, %s2, %s3)\n",
	 "%x = babybear[4] parameter(0)\n%y = babybear[4] parameter(1)\n%p = pred[4] parameter(2)\n"
	 "%t = pred[] constant(true)\n%s3 = babybear[4] select(%p, %x, %y)\n"
	 "ROOT %r = (babybear[4], babybear[4], babybear[4]) tuple(%x, %x, %s3)\n"},
	{"reshape_rules", "simplify", "",
	 "%x = babybear[2,6] parameter(0)\n%a = babybear[2,6] reshape(%x)\n%b = babybear[3,4] reshape(%a)\n"
	 "%c = babybear[12] reshape(%b)\nROOT %n = babybear[12] negate(%c)\n",
	 "%x = babybear[2,6] parameter(0)\n%b = babybear[3,4] reshape(%x)\n%c = babybear[12] reshape(%x)\n"
	 "ROOT %n = babybear[12] negate(%c)\n"},
	{"slice_rules", "simplify", "",
	 "%x = babybear[20,5] parameter(0)\n%w = babybear[20,5] slice(%x), slice={[0:20], [0:5]}\n"
	 "%a = babybear[9,5] slice(%w), slice={[2:19:2], [0:5]}\n%b = babybear[3,2] slice(%a), slice={[1:9:3], [1:5:3]}\n"
	 "ROOT %n = babybear[3,2] negate(%b)\n",
	 "%x = babybear[20,5] parameter(0)\n%a = babybear[9,5] slice(%x), slice={[2:19:2], [0:5]}\n"
	 "%b = babybear[3,2] slice(%x), slice={[4:17:6], [1:5:3]}\nROOT %n = babybear[3,2] negate(%b)\n"},
	{"broadcast_rules", "simplify", "",
	 "%x = babybear[3] parameter(0)\n%i = babybear[3] broadcast(%x), dimensions={0}\n"
	 "%a = babybear[3,4] broadcast(%i), dimensions={0}\n%b = babybear[2,3,5,4] broadcast(%a), dimensions={1,3}\n"
	 "ROOT %n = babybear[2,3,5,4] negate(%b)\n",
	 "%x = babybear[3] parameter(0)\n%a = babybear[3,4] broadcast(%x), dimensions={0}\n"
	 "%b = babybear[2,3,5,4] broadcast(%x), dimensions={1}\nROOT %n = babybear[2,3,5,4] negate(%b)\n"},
	{"concatenate_one", "simplify", "",
	 "%x = babybear[3] parameter(0)\n%c = babybear[3] concatenate(%x), dimensions={0}\nROOT %n = babybear[3] negate(%c)\n",
	 "%x = babybear[3] parameter(0)\nROOT %n = babybear[3] negate(%x)\n"},
	{"get_tuple_element_of_tuple", "simplify", "",
	 "%x = babybear[3] parameter(0)\n%y = babybear[3] parameter(1)\n%t = (babybear[3], babybear[3]) tuple(%x, %y)\n"
	 "%g = babybear[3] get-tuple-element(%t), index=1\nROOT %n = babybear[3] negate(%g)\n",
	 "%x = babybear[3] parameter(0)\n%y = babybear[3] parameter(1)\n%t = (babybear[3], babybear[3]) tuple(%x, %y)\n"
	 "ROOT %n = babybear[3] negate(%y)\n"},
	/* ---- simplify: folding ---- */
	{"fold_scalars", "simplify", "",
	 "%a = babybear[] constant(2)\n%b = babybear[] constant(3)\n%m = babybear[] multiply(%a, %b)\n"
	 "%n = babybear[] negate(%m)\nROOT %i = babybear[] inverse(%n)\n",
	 "%a = babybear[] constant(2)\n%b = babybear[] constant(3)\n%m = babybear[] constant(6)\n"
	 "%n = babybear[] constant(2013265915)\nROOT %i = babybear[] constant(335544320)\n"},
	{"fold_splats", "simplify", "",
	 "%x = babybear[5] parameter(0)\n%a = babybear[] constant(2)\n%b = babybear[] constant(3)\n"
	 "%ba = babybear[5] broadcast(%a), dimensions={}\n%bb = babybear[5] broadcast(%b), dimensions={}\n"
	 "%m = babybear[5] add(%ba, %bb)\nROOT %r = babybear[5] multiply(%x, %m)\n",
	 "%x = babybear[5] parameter(0)\n%a = babybear[] constant(2)\n%b = babybear[] constant(3)\n"
	 "%ba = babybear[5] broadcast(%a), dimensions={}\n%bb = babybear[5] broadcast(%b), dimensions={}\n"
	 "%constant.0 = babybear[] constant(5)\n%m = babybear[5] broadcast(%constant.0), dimensions={}\n"
	 "ROOT %r = babybear[5] multiply(%x, %m)\n"},
	{"fold_arrays", "simplify", "",
	 "%a = koalabear[2,2] constant({{1, 2}, {3, 4}})\n%o = koalabear[] constant(10)\n"
	 "%bo = koalabear[2,2] broadcast(%o), dimensions={}\n%s = koalabear[2,2] multiply(%a, %bo)\n"
	 "ROOT %e = pred[2,2] compare(%s, %bo), direction=EQ\n",
	 "%a = koalabear[2,2] constant({{1, 2}, {3, 4}})\n%o = koalabear[] constant(10)\n"
	 "%bo = koalabear[2,2] broadcast(%o), dimensions={}\n%s = koalabear[2,2] constant({{10, 20}, {30, 40}})\n"
	 "ROOT %e = pred[2,2] constant({{true, false}, {false, false}})\n"},
	{"fold_convert_power_select", "simplify", "",
	 "%u = u32[3] constant({0, 5, 4294967295})\n%x = babybear[3] convert(%u)\n%e = u32[] constant(3)\n"
	 "%be = u32[3] broadcast(%e), dimensions={}\n%p = babybear[3] power(%x, %be)\n"
	 "%c = pred[3] constant({true, false, true})\n%s = babybear[3] select(%c, %p, %x)\n"
	 "ROOT %m = babybear_mont[3] convert(%s)\n",
	 "%u = u32[3] constant({0, 5, 4294967295})\n%x = babybear[3] constant({0, 5, 268435453})\n%e = u32[] constant(3)\n"
	 "%be = u32[3] broadcast(%e), dimensions={}\n%p = babybear[3] constant({0, 125, 1633280589})\n"
	 "%c = pred[3] constant({true, false, true})\n%s = babybear[3] constant({0, 5, 1633280589})\n"
	 "ROOT %m = babybear_mont[3] constant({0, 1342177270, 944853103})\n"},
	{"fold_index_ops", "simplify", "",
	 "%a = babybear[2,3] constant({{1, 2, 3}, {4, 5, 6}})\n%s = babybear[2,2] slice(%a), slice={[0:2], [0:3:2]}\n"
	 "%r = babybear[4] reshape(%s)\n%b = babybear[2,4] broadcast(%r), dimensions={1}\n"
	 "%r2 = babybear[1,4] reshape(%r)\nROOT %c = babybear[3,4] concatenate(%b, %r2), dimensions={0}\n",
	 "%a = babybear[2,3] constant({{1, 2, 3}, {4, 5, 6}})\n%s = babybear[2,2] constant({{1, 3}, {4, 6}})\n"
	 "%r = babybear[4] constant({1, 3, 4, 6})\n%b = babybear[2,4] constant({{1, 3, 4, 6}, {1, 3, 4, 6}})\n"
	 "%r2 = babybear[1,4] constant({{1, 3, 4, 6}})\n"
	 "ROOT %c = babybear[3,4] constant({{1, 3, 4, 6}, {1, 3, 4, 6}, {1, 3, 4, 6}})\n"},
	{"fold_reduce_splat", "simplify", SUM_BB PROD_BB,
	 "%t = babybear[] constant(2)\n%o = babybear[] constant(1)\n%bt = babybear[4,3] broadcast(%t), dimensions={}\n"
	 "%s = babybear[4] reduce(%bt, %o), dimensions={1}, to_apply=%sum\n"
	 "%p = babybear[] reduce(%bt, %o), dimensions={0,1}, to_apply=%prod\n"
	 "ROOT %r = (babybear[4], babybear[]) tuple(%s, %p)\n",
	 "%t = babybear[] constant(2)\n%o = babybear[] constant(1)\n%bt = babybear[4,3] broadcast(%t), dimensions={}\n"
	 "%constant.0 = babybear[] constant(7)\n%s = babybear[4] broadcast(%constant.0), dimensions={}\n"
	 "%p = babybear[] constant(4096)\nROOT %r = (babybear[4], babybear[]) tuple(%s, %p)\n"},
	{"fold_reduce_array", "simplify", SUM_BB,
	 "%a = babybear[2,3] constant({{1, 2, 3}, {4, 5, 6}})\n%z = babybear[] constant(10)\n"
	 "ROOT %s = babybear[3] reduce(%a, %z), dimensions={0}, to_apply=%sum\n",
	 "%a = babybear[2,3] constant({{1, 2, 3}, {4, 5, 6}})\n%z = babybear[] constant(10)\n"
	 "ROOT %s = babybear[3] constant({15, 17, 19})\n"},
	/* ---- cse ---- */
	{"cse_commutative", "cse", "",
	 "%x = babybear[4] parameter(0)\n%y = babybear[4] parameter(1)\n%a = babybear[4] add(%x, %y)\n"
	 "%b = babybear[4] add(%y, %x)\n%c = babybear[4] subtract(%x, %y)\n%d = babybear[4] subtract(%y, %x)\n"
	 "%m = babybear[4] multiply(%a, %c)\n%n = babybear[4] multiply(%b, %d)\n"
	 "ROOT %t = (babybear[4], babybear[4]) tuple(%m, %n)\n",
	 "%x = babybear[4] parameter(0)\n%y = babybear[4] parameter(1)\n%a = babybear[4] add(%x, %y)\n"
	 "%c = babybear[4] subtract(%x, %y)\n%d = babybear[4] subtract(%y, %x)\n"
	 "%m = babybear[4] multiply(%a, %c)\n%n = babybear[4] multiply(%a, %d)\n"
	 "ROOT %t = (babybear[4], babybear[4]) tuple(%m, %n)\n"},
	{"cse_chain_and_constants", "cse", "",
	 "%x = babybear[4] parameter(0)\n%x2 = babybear[4] parameter(1)\n%c1 = babybear[] constant(5)\n"
	 "%c2 = babybear[] constant(5)\n%c3 = babybear[] constant(6)\n%b1 = babybear[4] broadcast(%c1), dimensions={}\n"
	 "%b2 = babybear[4] broadcast(%c2), dimensions={}\n%b3 = babybear[4] broadcast(%c3), dimensions={}\n"
	 "%m1 = babybear[4] multiply(%x, %b1)\n%m2 = babybear[4] multiply(%x, %b2)\n%m3 = babybear[4] multiply(%x, %b3)\n"
	 "%m4 = babybear[4] multiply(%x2, %b1)\nROOT %t = (babybear[4], babybear[4], babybear[4], babybear[4]) tuple(%m1, %m2, %m3, %m4)\n",
	 "%x = babybear[4] parameter(0)\n%x2 = babybear[4] parameter(1)\n%c1 = babybear[] constant(5)\n"
	 "%c3 = babybear[] constant(6)\n%b1 = babybear[4] broadcast(%c1), dimensions={}\n"
	 "%b3 = babybear[4] broadcast(%c3), dimensions={}\n%m1 = babybear[4] multiply(%x, %b1)\n"
	 "%m3 = babybear[4] multiply(%x, %b3)\n%m4 = babybear[4] multiply(%x2, %b1)\n"
	 "ROOT %t = (babybear[4], babybear[4], babybear[4], babybear[4]) tuple(%m1, %m1, %m3, %m4)\n"},
	{"cse_attributes", "cse", SUM_BB "%sum2 (q: babybear[], r: babybear[]) -> babybear[] {\n  %q = babybear[] parameter(0)\n"
	 "  %r = babybear[] parameter(1)\n  ROOT %qr = babybear[] add(%r, %q)\n}\n",
	 "%x = babybear[6,4] parameter(0)\n%s1 = babybear[3,4] slice(%x), slice={[0:6:2], [0:4]}\n"
	 "%s2 = babybear[3,4] slice(%x), slice={[1:6:2], [0:4]}\n%s3 = babybear[3,4] slice(%x), slice={[0:6:2], [0:4]}\n"
	 "%e = pred[3,4] compare(%s1, %s2), direction=EQ\n%n = pred[3,4] compare(%s2, %s3), direction=NE\n"
	 "%e2 = pred[3,4] compare(%s2, %s3), direction=EQ\n%z = babybear[] constant(0)\n"
	 "%r1 = babybear[4] reduce(%x, %z), dimensions={0}, to_apply=%sum\n"
	 "%r2 = babybear[4] reduce(%x, %z), dimensions={0}, to_apply=%sum2\n"
	 "%i1 = u32[3,4] iota(), iota_dimension=0\n%i2 = u32[3,4] iota(), iota_dimension=1\n%i3 = u32[3,4] iota(), iota_dimension=0\n"
	 "ROOT %t = (pred[3,4], pred[3,4], pred[3,4], babybear[4], babybear[4], u32[3,4], u32[3,4], u32[3,4]) "
	 "tuple(%e, %n, %e2, %r1, %r2, %i1, %i2, %i3)\n",
	 "%x = babybear[6,4] parameter(0)\n%s1 = babybear[3,4] slice(%x), slice={[0:6:2], [0:4]}\n"
	 "%s2 = babybear[3,4] slice(%x), slice={[1:6:2], [0:4]}\n%e = pred[3,4] compare(%s1, %s2), direction=EQ\n"
	 "%n = pred[3,4] compare(%s2, %s1), direction=NE\n%z = babybear[] constant(0)\n"
	 "%r1 = babybear[4] reduce(%x, %z), dimensions={0}, to_apply=%sum\n"
	 "%i1 = u32[3,4] iota(), iota_dimension=0\n%i2 = u32[3,4] iota(), iota_dimension=1\n"
	 "ROOT %t = (pred[3,4], pred[3,4], pred[3,4], babybear[4], babybear[4], u32[3,4], u32[3,4], u32[3,4]) "
	 "tuple(%e, %n, %e, %r1, %r1, %i1, %i2, %i1)\n"},
	/* ---- dce ---- */
	{"dce_unused", "dce", SUM_BB PROD_BB,
	 "%x = babybear[4] parameter(0)\n%unused = babybear[4] parameter(1)\n%ad = babybear[4] add(%x, %x)\n"
	 "%dead = babybear[4] multiply(%ad, %ad)\n%z = babybear[] constant(1)\n"
	 "%r = babybear[] reduce(%dead, %z), dimensions={0}, to_apply=%prod\nROOT %n = babybear[4] negate(%ad)\n",
	 "%x = babybear[4] parameter(0)\n%unused = babybear[4] parameter(1)\n%ad = babybear[4] add(%x, %x)\n"
	 "ROOT %n = babybear[4] negate(%ad)\n"},
	{"dce_keeps_tuple_outputs", "dce", "",
	 "%x = babybear[4] parameter(0)\n%a = babybear[4] add(%x, %x)\n%b = babybear[4] negate(%x)\n"
	 "ROOT %t = (babybear[4], babybear[4], babybear[4]) tuple(%x, %a, %a)\n",
	 "%x = babybear[4] parameter(0)\n%a = babybear[4] add(%x, %x)\n"
	 "ROOT %t = (babybear[4], babybear[4], babybear[4]) tuple(%x, %a, %a)\n"},
};

static char *case_text(const pass_case *c)
{
	size_t n = strlen(c->comps) + strlen(c->input) * 2 + 64;
	char *text = malloc(n), *p = text;
	p += sprintf(p, "HloModule %s\n\n%s%sENTRY %%main {\n", c->name, c->comps, c->comps[0] ? "\n" : "");
	for (const char *l = c->input; *l;) { /* indent each line */
		const char *nl = strchr(l, '\n');
		p += sprintf(p, "  %.*s\n", (int)(nl - l), l);
		l = nl + 1;
	}
	strcpy(p, "}\n");
	return text;
}

static char *indent(const char *lines)
{
	char *out = malloc(strlen(lines) * 2 + 1), *p = out;
	for (const char *l = lines; *l;) {
		const char *nl = strchr(l, '\n');
		p += sprintf(p, "  %.*s\n", (int)(nl - l), l);
		l = nl + 1;
	}
	*p = '\0';
	return out;
}

static void run_case(const pass_case *c)
{
	char *text = case_text(c);
	ffu_module *m = check_semantics(text, c->pass, true, c->name);
	char *printed = print(m), *body = entry_body(printed);
	if (c->expect) {
		char *want = indent(c->expect);
		cr_expect_str_eq(body, want, "%s: after %s\n%s\nexpected\n%s", c->name, c->pass, body, want);
		free(want);
	}
	free(body);
	free(printed);
	ffu__module_free(m);
	free(text);
}

Test(passes, rules)
{
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		run_case(&cases[i]);
}

/* dce also drops the computations that only a removed reduce called */
Test(passes, dce_drops_computations)
{
	char *text = case_text(&cases[sizeof cases / sizeof cases[0] - 2]);
	ffu_module *m = check_semantics(text, "dce", true, "dce_drops_computations");
	char *printed = print(m);
	cr_expect(strstr(printed, "%sum") == NULL && strstr(printed, "%prod") == NULL, "%s", printed);
	cr_expect_eq(m->n_comps, 1);
	free(printed);
	ffu__module_free(m);
	free(text);
}

/* Folding makes no array constant over 4096 elements, and reads none. */
Test(passes, fold_size_cap)
{
	for (int n = 4096; n <= 4097; n++) {
		ffu_strbuf sb = {0};
		ffu__sb_printf(&sb, "HloModule cap\nENTRY %%main {\n  %%a = babybear[%d] constant({", n);
		for (int i = 0; i < n; i++)
			ffu__sb_printf(&sb, "%s%d", i ? ", " : "", i);
		ffu__sb_printf(&sb, "})\n  %%o = babybear[] constant(1)\n  %%bo = babybear[%d] broadcast(%%o), dimensions={}\n"
				    "  ROOT %%s = babybear[%d] add(%%a, %%bo)\n}\n", n, n);
		ffu_module *m = check_semantics(ffu__sb_cstr(&sb), "simplify", true, "fold_size_cap");
		cr_expect_eq(m->entry->root->op, n <= 4096 ? FFU_OP_CONSTANT : FFU_OP_ADD, "n = %d", n);
		ffu__module_free(m);
		ffu__sb_free(&sb);
	}
}

/* A constant ROOT, a parameter ROOT, and every output a parameter or constant: nothing breaks. */
Test(passes, trivial_programs)
{
	static const char *const texts[] = {
		"HloModule t\nENTRY %m {\n  %x = babybear[3] parameter(0)\n  %z = babybear[] constant(0)\n"
		"  %bz = babybear[3] broadcast(%z), dimensions={}\n  ROOT %r = babybear[3] multiply(%x, %bz)\n}\n",
		"HloModule t\nENTRY %m {\n  %x = babybear[] parameter(0)\n  %z = babybear[] constant(0)\n"
		"  ROOT %r = babybear[] multiply(%z, %x)\n}\n",
		"HloModule t\nENTRY %m {\n  %x = babybear[0,3] parameter(0)\n  %y = babybear[0,3] negate(%x)\n"
		"  ROOT %r = babybear[0,3] negate(%y)\n}\n",
		"HloModule t\nENTRY %m {\n  %x = babybear[2] parameter(0)\n  ROOT %t = (babybear[2], babybear[2]) tuple(%x, %x)\n}\n",
	};
	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		ffu_module *m = check_semantics(texts[i], "simplify,cse,dce,fusion", true, texts[i]);
		ffu__module_free(m);
	}
}

/* ---- semantics on generated programs ---- */

enum { N_GEN = 200 };

static char *generated(uint64_t seed)
{
	ffu_strbuf sb = {0};
	ffu_error e = {0};
	ffu_gen_opts o = {.max_elems = 256};
	cr_assert_eq(ffu_gen_program(&sb, seed, &o, &e), FFU_STATUS_OK);
	char *text = strdup(ffu__sb_cstr(&sb));
	ffu__sb_free(&sb);
	return text;
}

static void each_generated(const char *passes, bool fuse)
{
	for (uint64_t seed = 1; seed <= N_GEN; seed++) {
		char *text = generated(seed);
		char what[64];
		snprintf(what, sizeof what, "generated program of seed %llu", (unsigned long long)seed);
		ffu_module *m = check_semantics(text, passes, fuse, what);
		ffu__module_free(m);
		free(text);
	}
}

Test(semantics, simplify)
{
	each_generated("simplify", true);
}

Test(semantics, cse)
{
	each_generated("cse", true);
}

Test(semantics, dce)
{
	each_generated("dce", true);
}

Test(semantics, pipeline_prefixes)
{
	each_generated("simplify,cse", true);
	each_generated("simplify,cse,dce", true);
}

/* fusion is the lead's (fusion.c), but "every pass keeps the values" covers it too */
Test(semantics, fusion)
{
	each_generated("fusion", true);
	each_generated("fusion", false);
}

Test(semantics, pipeline)
{
	each_generated("simplify,cse,dce,fusion", true);
}

/* The pipeline twice over: a second round finds nothing wrong in the first one's output. */
Test(semantics, twice)
{
	each_generated("simplify,cse,dce,simplify,cse,dce", true);
}

/*
 * Each kind of type the generator draws from comes up within the seeds above, and so do
 * the integer types and the index ops of tools/gen/gen_index.c (the first N_GEN seeds,
 * the ones the semantics tests run, hold each of those too).
 */
/* More seeds than N_GEN: the 26 256-bit types share about an eighth of the programs (tools/gen: pick_type). */
enum { N_COVER = 4000 };
Test(semantics, generator_covers_types)
{
	bool seen[FFU_TYPE_COUNT] = {false}, seen_gen[FFU_TYPE_COUNT] = {false}, op_gen[FFU_OP_COUNT] = {false};
	bool signed_order = false;
	for (uint64_t seed = 1; seed <= N_COVER; seed++) {
		char *text = generated(seed);
		ffu_module *m = parse(text);
		for (int i = 0; i < m->entry->n_insts; i++) {
			const ffu_inst *in = m->entry->insts[i];
			if (ffu__shape_is_array(&in->shape)) {
				seen[in->shape.type] = true;
				seen_gen[in->shape.type] |= seed <= N_GEN;
			}
			op_gen[in->op] |= seed <= N_GEN;
			/* an ordered compare or maximum/minimum/clamp of signed integers */
			const ffu_shape *a = in->n_operands ? &in->operands[0]->shape : NULL;
			bool ordered = (in->op == FFU_OP_COMPARE && in->direction != FFU_CMP_EQ && in->direction != FFU_CMP_NE) ||
				       in->op == FFU_OP_MAXIMUM || in->op == FFU_OP_MINIMUM || in->op == FFU_OP_CLAMP;
			signed_order |= ordered && ffu__shape_is_array(a) && ffu__shape_field(a)->is_signed;
		}
		ffu__module_free(m);
		free(text);
	}
	for (int t = 0; t < FFU_FIELD_COUNT; t++) {
		cr_expect(seen[t], "no program of type %s", ffu__type_name((ffu_type)t));
		cr_expect(seen[t + FFU_FIELD_COUNT], "no program of type %s", ffu__type_name((ffu_type)(t + FFU_FIELD_COUNT)));
	}
	cr_expect(seen[FFU_TYPE_PRED] && seen[FFU_TYPE_U32] && seen[FFU_TYPE_U64]);
	static const ffu_type ints[] = {FFU_TYPE_S8, FFU_TYPE_S16, FFU_TYPE_S32, FFU_TYPE_S64,
					FFU_TYPE_U8, FFU_TYPE_U16, FFU_TYPE_U32, FFU_TYPE_U64};
	for (size_t k = 0; k < sizeof ints / sizeof ints[0]; k++)
		cr_expect(seen_gen[ints[k]], "no value of type %s in seeds 1..%d", ffu__type_name(ints[k]), N_GEN);
	static const ffu_op ops[] = {FFU_OP_DYNAMIC_SLICE, FFU_OP_DYNAMIC_UPDATE_SLICE, FFU_OP_CONVERT, FFU_OP_CLAMP,
				     FFU_OP_SQUARE};
	for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
		cr_expect(op_gen[ops[k]], "no %s in seeds 1..%d", ffu__ops[ops[k]].keyword, N_GEN);
	cr_expect(signed_order, "no ordered op on signed integers");
}

/* The same seed gives the same text; a batch holds its programs' outputs in order. */
Test(semantics, generator_deterministic_and_batches)
{
	char *a = generated(42), *b = generated(42);
	cr_expect_str_eq(a, b);
	free(a);
	free(b);
	uint64_t seeds[3] = {5, 6, 7};
	int first[4];
	ffu_strbuf sb = {0};
	ffu_error e = {0};
	cr_assert_eq(ffu_gen_batch(&sb, seeds, 3, NULL, first, &e), FFU_STATUS_OK);
	ffu_module *m = parse(ffu__sb_cstr(&sb));
	cr_expect_eq(first[0], 0);
	cr_expect(first[1] > 0 && first[2] > first[1] && first[3] > first[2]);
	cr_expect_eq(m->entry->root->shape.n_elems, first[3]);
	ffu__module_free(m);
	ffu__sb_free(&sb);
}

/* ---- the pass manager ---- */

static const char *const small =
	"HloModule small\nENTRY %main {\n  %x = babybear[4] parameter(0)\n  %o = babybear[] constant(1)\n"
	"  %bo = babybear[4] broadcast(%o), dimensions={}\n  %m = babybear[4] multiply(%x, %bo)\n"
	"  %a = babybear[4] add(%m, %x)\n  %b = babybear[4] add(%x, %m)\n  ROOT %r = babybear[4] multiply(%a, %b)\n}\n";

static int count_op(const ffu_module *m, ffu_op op)
{
	int n = 0;
	for (int i = 0; i < m->entry->n_insts; i++)
		n += m->entry->insts[i]->op == op;
	return n;
}

Test(manager, names_and_lists)
{
	ffu_error e = {0};
	cr_expect(ffu__pass_known("simplify") && ffu__pass_known("cse") && ffu__pass_known("dce") &&
		  ffu__pass_known("fusion") && ffu__pass_known("all"));
	cr_expect(!ffu__pass_known("verify") && !ffu__pass_known("") && !ffu__pass_known("simplif"));
	cr_expect_eq(ffu__pass_check_list("simplify, cse,,dce ", "x", &e), FFU_STATUS_OK, "%s", e.message);
	cr_expect_eq(ffu__pass_check_list("cse,nope", "--disable-pass", &e), FFU_STATUS_EINVAL);
	cr_expect(strstr(e.message, "--disable-pass: no pass named 'nope'"), "%s", e.message);
	ffu_module *m = parse(small);
	cr_expect_eq(ffu__pass_run_one(m, "nope", &(ffu_pass_opts){.fuse = true}, &e), FFU_STATUS_EINVAL);
	ffu__module_free(m);
}

Test(manager, disable)
{
	ffu_error e = {0};
	/* everything on: x*1 goes, the two adds become one, one kernel */
	ffu_module *m = parse(small);
	cr_assert_eq(ffu__passes_run(m, &(ffu_pass_opts){.fuse = true}, &e), FFU_STATUS_OK, "%s", e.message);
	cr_expect_eq(count_op(m, FFU_OP_FUSION), 1);
	cr_expect_eq(m->entry->root->callee->n_insts, 3, "x, a = x + x, r = a * a, and nothing else");
	ffu__module_free(m);
	/* simplify and cse off: all five ops stay in the kernel */
	m = parse(small);
	cr_assert_eq(ffu__passes_run(m, &(ffu_pass_opts){.fuse = true, .disable = "simplify,cse"}, &e), FFU_STATUS_OK);
	cr_expect_eq(m->entry->root->callee->n_insts, 7);
	ffu__module_free(m);
	/* fusion off = one kernel per op (simplify and cse leave two: add, multiply) */
	m = parse(small);
	cr_assert_eq(ffu__passes_run(m, &(ffu_pass_opts){.fuse = true, .disable = "fusion"}, &e), FFU_STATUS_OK);
	cr_expect_eq(count_op(m, FFU_OP_FUSION), 2);
	ffu__module_free(m);
	m = parse(small);
	cr_expect_eq(ffu__passes_run(m, &(ffu_pass_opts){.fuse = true, .disable = "bogus"}, &e), FFU_STATUS_EINVAL);
	cr_expect(strstr(e.message, "no pass named 'bogus'"), "%s", e.message);
	ffu__module_free(m);
}

/* The device's parameter budget (ffu__caps_kernel_args) splits a kernel that would exceed it. */
Test(manager, kernel_arg_budget)
{
	/* a sum of 9 inputs: one kernel of 10 arguments unless the budget says otherwise */
	ffu_strbuf sb = {0};
	ffu__sb_append(&sb, "HloModule wide\nENTRY %main {\n");
	for (int p = 0; p < 9; p++)
		ffu__sb_printf(&sb, "  %%p%d = goldilocks[64] parameter(%d)\n", p, p);
	for (int p = 1; p < 9; p++)
		ffu__sb_printf(&sb, "  %s%%s%d = goldilocks[64] add(%%%s%d, %%p%d)\n", p == 8 ? "ROOT " : "", p,
			       p == 1 ? "p" : "s", p - 1, p);
	ffu__sb_append(&sb, "}\n");
	const int budgets[] = {0, 10, 6, 4};
	const int kernels[] = {1, 1, 2, 4};
	for (int b = 0; b < 4; b++) {
		char what[32];
		snprintf(what, sizeof what, "max_params %d", budgets[b]);
		ffu_module *m = check_semantics_opts(ffu__sb_cstr(&sb), "fusion",
						     &(ffu_pass_opts){.fuse = true, .max_params = budgets[b]}, what);
		cr_expect_eq(count_op(m, FFU_OP_FUSION), kernels[b], "%s: %d kernels", what, count_op(m, FFU_OP_FUSION));
		for (int i = 0; i < m->entry->n_insts; i++) {
			const ffu_inst *in = m->entry->insts[i];
			int outs = in->shape.n_elems ? in->shape.n_elems : 1;
			if (in->op == FFU_OP_FUSION && budgets[b])
				cr_expect(in->n_operands + outs <= budgets[b], "%s: a kernel of %d arguments", what,
					  in->n_operands + outs);
		}
		ffu__module_free(m);
	}
	ffu__sb_free(&sb);
}

Test(manager, dump_after)
{
	ffu_error e = {0};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ffu_module *m = parse(small);
	ffu_pass_opts po = {.fuse = true, .dump_after = "all", .dump_to = f, .disable = "cse"};
	cr_assert_eq(ffu__passes_run(m, &po, &e), FFU_STATUS_OK, "%s", e.message);
	fclose(f);
	const char *heads[] = {"// ---- after pass simplify ----\nHloModule small\n",
			       "// ---- after pass cse (disabled) ----\n", "// ---- after pass dce ----\n",
			       "// ---- after pass fusion ----\n"};
	const char *at = buf;
	for (int i = 0; i < 4; i++) {
		const char *h = strstr(at, heads[i]);
		cr_expect(h, "no '%s' in order in\n%s", heads[i], buf);
		at = h ? h : at;
	}
	free(buf);
	ffu__module_free(m);
	buf = NULL;
	f = open_memstream(&buf, &len);
	m = parse(small);
	po = (ffu_pass_opts){.fuse = true, .dump_after = "dce", .dump_to = f};
	cr_assert_eq(ffu__passes_run(m, &po, &e), FFU_STATUS_OK, "%s", e.message);
	fclose(f);
	cr_expect(strstr(buf, "after pass dce") && !strstr(buf, "after pass simplify") && !strstr(buf, "fusion("),
		  "%s", buf);
	free(buf);
	ffu__module_free(m);
}

/* ---- the CLI: --disable-pass and FIELDFUSE_DISABLE_PASSES ---- */

typedef struct cli_result {
	int status;
	char *out, *err;
} cli_result;

/* Runs $FFU_BUILD_ROOT/tools/fieldfuse with args (NULL-terminated) and, if env_add, one
   more environment entry; captures stdout and stderr. */
static cli_result cli(const char *env_add, const char *const *args)
{
	char exe[1024], dir[] = "/tmp/ffu_passes_XXXXXX", out[64], err[64];
	const char *build = getenv("FFU_BUILD_ROOT");
	cr_assert(build);
	snprintf(exe, sizeof exe, "%s/tools/fieldfuse", build);
	cr_assert(mkdtemp(dir));
	snprintf(out, sizeof out, "%s/out", dir);
	snprintf(err, sizeof err, "%s/err", dir);
	const char *argv[16] = {exe};
	int n = 1;
	for (; args[n - 1]; n++)
		argv[n] = args[n - 1];
	argv[n] = NULL;
	int n_env = 0;
	while (environ[n_env])
		n_env++;
	char **env = calloc((size_t)n_env + 2, sizeof *env);
	int k = 0;
	for (int i = 0; i < n_env; i++)
		if (strncmp(environ[i], "FIELDFUSE_DISABLE_PASSES=", 25) != 0)
			env[k++] = environ[i];
	if (env_add)
		env[k++] = (char *)env_add;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_addopen(&fa, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	pid_t pid;
	cr_assert_eq(posix_spawn(&pid, exe, &fa, NULL, (char *const *)argv, env), 0);
	int status = 0;
	waitpid(pid, &status, 0);
	posix_spawn_file_actions_destroy(&fa);
	cli_result r = {WIFEXITED(status) ? WEXITSTATUS(status) : -1, ffu_test_read_file(out, NULL),
			ffu_test_read_file(err, NULL)};
	unlink(out);
	unlink(err);
	rmdir(dir);
	free(env);
	return r;
}

static void cli_free(cli_result *r)
{
	free(r->out);
	free(r->err);
}

Test(manager, cli_disable_pass)
{
	char path[] = "/tmp/ffu_small_XXXXXX.hlo";
	int fd = mkstemps(path, 4);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, small, strlen(small)), (ssize_t)strlen(small));
	close(fd);

	cli_result r = cli(NULL, (const char *[]){"compile", path, "--dump-after", "simplify", "--disable-pass", "simplify", NULL});
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.err, "after pass simplify (disabled)") && strstr(r.err, "multiply(%x, %bo)"), "%s", r.err);
	cli_free(&r);

	r = cli(NULL, (const char *[]){"compile", path, "--disable-pass", "cse,dce", "--disable-pass", "fusion", NULL});
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(r.out && strstr(r.out, "add(") && strstr(r.out, "fused_computation"), "%s", r.out);
	cli_free(&r);

	r = cli(NULL, (const char *[]){"compile", path, "--disable-pass", "fuse", NULL});
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "no pass named 'fuse'"), "%s", r.err);
	cli_free(&r);

	r = cli(NULL, (const char *[]){"run", path, "--random", "1", "--disable-pass", "fuse", NULL});
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "no pass named 'fuse'"), "%s", r.err);
	cli_free(&r);

	r = cli("FIELDFUSE_DISABLE_PASSES=simplify,cse", (const char *[]){"compile", path, "--dump-after", "all", NULL});
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.err, "after pass simplify (disabled)") && strstr(r.err, "after pass cse (disabled)") &&
		  strstr(r.err, "after pass dce ----"), "%s", r.err);
	cli_free(&r);

	r = cli("FIELDFUSE_DISABLE_PASSES=nope", (const char *[]){"compile", path, NULL});
	cr_expect_neq(r.status, 0);
	cr_expect(strstr(r.err, "FIELDFUSE_DISABLE_PASSES: no pass named 'nope'"), "%s", r.err);
	cli_free(&r);
	unlink(path);
}

/* ---- module copies (ir/clone.c) ---- */

/* A copy prints as its source, verifies on its own, and outlives it; passes on the copy
   leave the source as it was (which is what lets runs share one program's module). */
static void check_clone(const char *text, const char *what)
{
	ffu_error e = {0};
	ffu_module *m = parse(text);
	char *before = print(m);
	ffu_module *c = ffu__module_clone(m);
	cr_assert(c, "%s: clone failed", what);
	char *copied = print(c);
	cr_assert_str_eq(copied, before, "%s: the copy prints differently", what);
	ffu_pass_opts po = {.fuse = true};
	cr_assert_eq(ffu__passes_run(c, &po, &e), FFU_STATUS_OK, "%s: %s", what, e.message);
	char *fused = print(c);
	char *after = print(m);
	cr_assert_str_eq(after, before, "%s: passes on the copy changed the source", what);
	/* a copy of the fused module (fusion computations, callees) outlives its source */
	ffu_module *c2 = ffu__module_clone(c);
	cr_assert(c2, "%s: clone of the fused module failed", what);
	ffu__module_free(c);
	ffu__module_free(m);
	char *fused2 = print(c2);
	cr_assert_str_eq(fused2, fused, "%s: the fused copy prints differently", what);
	cr_assert_eq(ffu__module_verify(c2, what, &e), FFU_STATUS_OK, "%s: %s", what, e.message);
	ffu__module_free(c2);
	free(before);
	free(copied);
	free(fused);
	free(after);
	free(fused2);
}

Test(clone, prints_identically_and_is_independent)
{
	for (uint64_t seed = 1; seed <= N_GEN; seed++) {
		char *text = generated(seed);
		char what[64];
		snprintf(what, sizeof what, "generated program of seed %llu", (unsigned long long)seed);
		check_clone(text, what);
		free(text);
	}
	for (int i = 0; i < ffu_test_n_programs; i++) {
		char *text = ffu_test_program_text(&ffu_test_programs[i], 1000);
		check_clone(text, ffu_test_programs[i].name);
		free(text);
	}
	cr_assert_null(ffu__module_clone(NULL));
}
