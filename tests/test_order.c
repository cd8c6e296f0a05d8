/*
 * tests/test_order.c: the ordered ops (src/ir/order.c): compare LT/LE/GT/GE, maximum,
 * minimum, clamp, reverse and bit-reverse.
 *  - text: round trip through the printer; the builder API gives the same instructions
 *    and names its errors;
 *  - values: the interpreter against GMP, which orders the canonical integers itself
 *    (a _mont element's canonical value is stored * 2^-mont_radix_bits mod p, computed
 *    here with mpz_invert, not with the library's conversion); the permutations against
 *    index arithmetic written out here; the simplifier's folds and identities;
 *  - fusion: maximum(x * y, z) and reverse(x) + y are one kernel each;
 *  - devices: PoCL and Rusticl against the interpreter on 31-bit, Goldilocks, 256-bit
 *    (also secp256k1's full-width modulus), _mont and integer types (signed ones by their
 *    signed values), with ties placed in
 *    the inputs (the pipeline suite runs more programs: tests/programs.c, order_*).
 * The malformed-input cases are files in tests/bad (test_hlo's bad_corpus).
 */
#include <criterion/criterion.h>
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fieldfuse/builder.h"
#include "fieldfuse/fieldfuse.h"
#include "hlo/hlo.h"
#include "interp/interp.h"
#include "ir/value.h"
#include "passes/passes.h"
#include "runtime/cl.h"
#include "runtime/exec.h"
#include "support.h"
#include "util/strbuf.h"

enum { N = 67 }; /* elements per input: edge values, ties and random ones */

static ffu_module *parse(const char *text)
{
	ffu_error e = {0};
	ffu_module *m = NULL;
	cr_assert_eq(ffu__hlo_parse(&m, text, strlen(text), "order.hlo", &e), FFU_STATUS_OK, "%s\n%s", e.message, text);
	return m;
}

static char *print(const ffu_module *m)
{
	ffu_error e = {0};
	ffu_strbuf sb = {0};
	cr_assert_eq(ffu__hlo_print(&sb, m, &e), FFU_STATUS_OK, "%s", e.message);
	char *t = strdup(ffu__sb_cstr(&sb));
	ffu__sb_free(&sb);
	return t;
}

/* ---- text ---- */

static const char round_trip_text[] =
	"HloModule rt\n"
	"ENTRY %main {\n"
	"  %x = babybear[4,8] parameter(0)\n"
	"  %y = babybear[4,8] parameter(1)\n"
	"  %lo = babybear[] parameter(2)\n"
	"  %lt = pred[4,8] compare(%x, %y), direction=LT\n"
	"  %le = pred[4,8] compare(%x, %y), direction=LE\n"
	"  %gt = pred[4,8] compare(%x, %y), direction=GT\n"
	"  %ge = pred[4,8] compare(%x, %y), direction=GE\n"
	"  %mx = babybear[4,8] maximum(%x, %y)\n"
	"  %mn = babybear[4,8] minimum(%x, %y)\n"
	"  %c = babybear[4,8] clamp(%lo, %mx, %mn)\n"
	"  %r = babybear[4,8] reverse(%c), dimensions={0,1}\n"
	"  %r0 = babybear[4,8] reverse(%r), dimensions={}\n"
	"  %b = babybear[4,8] bit-reverse(%r0), dimensions={1,0}\n"
	"  ROOT %t = (pred[4,8], pred[4,8], pred[4,8], pred[4,8], babybear[4,8]) tuple(%lt, %le, %gt, %ge, %b)\n"
	"}\n";

Test(order, round_trip)
{
	ffu_module *m = parse(round_trip_text);
	char *t = print(m);
	static const char *const want[] = {
		"compare(%x, %y), direction=LT\n", "compare(%x, %y), direction=LE\n", "compare(%x, %y), direction=GT\n",
		"compare(%x, %y), direction=GE\n", "maximum(%x, %y)\n", "minimum(%x, %y)\n", "clamp(%lo, %mx, %mn)\n",
		"reverse(%c), dimensions={0,1}\n", "reverse(%r), dimensions={}\n", "bit-reverse(%r0), dimensions={1,0}\n",
	};
	ffu_test_expect_in(t, want, sizeof want / sizeof want[0]);
	ffu_module *m2 = parse(t);
	char *t2 = print(m2);
	cr_expect_str_eq(t2, t);
	free(t);
	free(t2);
	ffu__module_free(m);
	ffu__module_free(m2);
}

/* The builder's ordered ops print as the text above; its errors name the call. */
Test(order, builder)
{
	ffu_builder *b = NULL;
	ffu_error e = {0};
	cr_assert_eq(ffu_builder_create(&b, "built", &e), FFU_STATUS_OK);
	const int64_t dims[2] = {4, 8}, rd[2] = {0, 1}, bd[1] = {1};
	ffu_node x = ffu_build_parameter(b, "x", "goldilocks_mont", 2, dims);
	ffu_node y = ffu_build_parameter(b, "y", "goldilocks_mont", 2, dims);
	ffu_node lo = ffu_build_parameter(b, "lo", "goldilocks_mont", 0, NULL);
	ffu_node lt = ffu_build_compare(b, x, y, FFU_COMPARE_LT);
	ffu_node ge = ffu_build_compare(b, x, y, FFU_COMPARE_GE);
	ffu_node mx = ffu_build_maximum(b, x, y);
	ffu_node mn = ffu_build_minimum(b, x, y);
	ffu_node c = ffu_build_clamp(b, lo, mx, mn);
	ffu_node r = ffu_build_reverse(b, c, rd, 2);
	ffu_node br = ffu_build_bit_reverse(b, r, bd, 1);
	ffu_node t = ffu_build_tuple(b, (ffu_node[]){lt, ge, br}, 3);
	cr_assert_eq(ffu_builder_status(b, &e), FFU_STATUS_OK, "%s", e.message);
	ffu_program *p = NULL;
	cr_assert_eq(ffu_builder_finish(b, t, &p, &e), FFU_STATUS_OK, "%s", e.message);
	char *text = NULL;
	cr_assert_eq(ffu_program_print(&text, p, &e), FFU_STATUS_OK, "%s", e.message);
	static const char *const want[] = {
		"pred[4,8] compare(%x, %y), direction=LT\n", "pred[4,8] compare(%x, %y), direction=GE\n",
		"goldilocks_mont[4,8] maximum(%x, %y)\n", "goldilocks_mont[4,8] minimum(%x, %y)\n",
		"goldilocks_mont[4,8] clamp(%lo, %", "goldilocks_mont[4,8] reverse(%", "), dimensions={0,1}\n",
		"goldilocks_mont[4,8] bit-reverse(%", "), dimensions={1}\n",
	};
	ffu_test_expect_in(text, want, sizeof want / sizeof want[0]);
	free(text);
	ffu_program_destroy(&p);
	ffu_builder_destroy(&b);

	/* each failure in a builder of its own: the first error sticks */
	static const struct {
		int what;
		const char *msg;
	} bad[] = {
		{0, "direction 9 is not one of FFU_COMPARE_EQ .. FFU_COMPARE_GE"},
		{1, "maximum needs an ordered element type"},
		{2, "bit-reverse dimension 0 has size 6, which is not a power of two"},
		{3, "dimension 0 is listed twice"},
		{4, "dims must list 0..4 dimensions (n_dims = 1, dims NULL)"},
		{5, "direction=LE needs ordered operands"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cr_assert_eq(ffu_builder_create(&b, "bad", &e), FFU_STATUS_OK);
		const int64_t six = 6, d0[2] = {0, 0};
		ffu_node v = ffu_build_parameter(b, "v", bad[i].what == 1 || bad[i].what == 5 ? "babybearx4" : "babybear", 1, &six);
		switch (bad[i].what) {
		case 0: ffu_build_compare(b, v, v, (ffu_compare_direction)9); break;
		case 1: ffu_build_maximum(b, v, v); break;
		case 2: ffu_build_bit_reverse(b, v, d0, 1); break;
		case 3: ffu_build_reverse(b, v, d0, 2); break;
		case 4: ffu_build_reverse(b, v, NULL, 1); break;
		default: ffu_build_compare(b, v, v, FFU_COMPARE_LE); break;
		}
		ffu_status st = ffu_builder_status(b, &e);
		cr_expect(st != FFU_STATUS_OK && strstr(e.message, bad[i].msg), "case %zu: %s", i, e.message);
		ffu_builder_destroy(&b);
	}
	ffu_error_clear(&e);
}

/* ---- values against GMP ---- */

/* The canonical integer of element `a` of type f: its storage (a signed integer's value,
   negative too), or for a _mont type the storage times 2^-mont_radix_bits mod p. */
static void canonical(mpz_t out, const ffu_field *f, const unsigned char *a)
{
	mpz_import(out, f->storage_bytes, -1, 1, 0, 0, a);
	if (f->is_signed && (a[f->storage_bytes - 1] & 0x80)) { /* two's complement: the pattern - 2^bits */
		mpz_t w;
		mpz_init(w);
		mpz_ui_pow_ui(w, 2, (unsigned long)f->bits);
		mpz_sub(out, out, w);
		mpz_clear(w);
	}
	if (f->kind != FFU_ELEM_MONT)
		return;
	mpz_t p, r;
	mpz_inits(p, r, NULL);
	mpz_set_str(p, f->modulus_hex, 16);
	mpz_ui_pow_ui(r, 2, (unsigned long)f->mont_radix_bits);
	cr_assert(mpz_invert(r, r, p));
	mpz_mul(out, out, r);
	mpz_mod(out, out, p);
	mpz_clears(p, r, NULL);
}

/* Inputs x, y, z of N elements: 0, 1, p-1 against each other first, then ties and random. */
static void make_inputs(ffu_value *in, const ffu_shape *s, uint64_t seed)
{
	ffu_error e = {0};
	const ffu_field *f = ffu__shape_field(s);
	size_t eb = f->storage_bytes;
	for (int k = 0; k < 3; k++) {
		cr_assert_eq(ffu__value_alloc(&in[k], s, &e), FFU_STATUS_OK);
		ffu__value_random(&in[k], &seed);
	}
	unsigned char edge[3][FFU_FIELD_MAX_BYTES], one[FFU_FIELD_MAX_BYTES];
	ffu__fp_set_u64(f, edge[0], 0);
	ffu__fp_set_u64(f, edge[1], 1);
	ffu__fp_set_u64(f, one, 1);
	if (f->kind == FFU_ELEM_UINT)
		memset(edge[2], 0xff, eb); /* the largest integer */
	else
		ffu__fp_neg(f, edge[2], one, NULL);
	for (int i = 0; i < 27; i++) /* every triple of edge values */
		for (int k = 0; k < 3; k++)
			memcpy(in[k].data + (size_t)i * eb, edge[(i / (k == 0 ? 1 : k == 1 ? 3 : 9)) % 3], eb);
	for (int i = 27; i < N; i += 3) { /* ties: y = x, z = x, z = y */
		memcpy(in[1].data + (size_t)i * eb, in[0].data + (size_t)i * eb, eb);
		if (i + 1 < N)
			memcpy(in[2].data + (size_t)(i + 1) * eb, in[0].data + (size_t)(i + 1) * eb, eb);
		if (i + 2 < N)
			memcpy(in[2].data + (size_t)(i + 2) * eb, in[1].data + (size_t)(i + 2) * eb, eb);
	}
}

/* Every ordered element-wise op of type t on x, y, z (clamp also with a scalar bound). */
static char *order_program(const char *t)
{
	enum { SIZE = 4096 };
	char *s = malloc(SIZE);
	cr_assert(s);
	int k = snprintf(s, SIZE,
			 "HloModule ord\n"
			 "ENTRY %%main {\n"
			 "  %%x = %s[%d] parameter(0)\n  %%y = %s[%d] parameter(1)\n  %%z = %s[%d] parameter(2)\n"
			 "  %%lt = pred[%d] compare(%%x, %%y), direction=LT\n"
			 "  %%le = pred[%d] compare(%%x, %%y), direction=LE\n"
			 "  %%gt = pred[%d] compare(%%x, %%y), direction=GT\n"
			 "  %%ge = pred[%d] compare(%%x, %%y), direction=GE\n"
			 "  %%mx = %s[%d] maximum(%%x, %%y)\n"
			 "  %%mn = %s[%d] minimum(%%x, %%y)\n"
			 "  %%c = %s[%d] clamp(%%x, %%y, %%z)\n"
			 "  %%s = %s[1] slice(%%z), slice={[5:6]}\n"
			 "  %%s0 = %s[] reshape(%%s)\n"
			 "  %%cs = %s[%d] clamp(%%s0, %%y, %%z)\n"
			 "  ROOT %%t = (pred[%d], pred[%d], pred[%d], pred[%d], %s[%d], %s[%d], %s[%d], %s[%d]) "
			 "tuple(%%lt, %%le, %%gt, %%ge, %%mx, %%mn, %%c, %%cs)\n}\n",
			 t, N, t, N, t, N, N, N, N, N, t, N, t, N, t, N, t, t, t, N, N, N, N, N, t, N, t, N, t, N, t, N);
	cr_assert(k > 0 && k < SIZE);
	return s;
}

/* The ordered types of the checks: 31-bit, Goldilocks, 256-bit (spare bit or not), _mont, integers. */
static const char *const ordered_types[] = {
	"babybear", "babybear_mont", "koalabear_mont", "mersenne31", "mersenne31_mont", "goldilocks",
	"goldilocks_mont", "bn254_sf", "bn254_sf_mont", "bls12_381_sf_mont", "secp256k1_sf", "secp256k1_sf_mont",
	"u32", "u64", "s8", "s16", "s32", "s64", "u8", "u16",
};

/* Checks outputs (the tuple of order_program) element by element against GMP. */
static void check_against_gmp(const char *t, const ffu_value *in, const ffu_value *out)
{
	const ffu_field *f = ffu__shape_field(&in[0].shape);
	size_t eb = f->storage_bytes;
	mpz_t a, b, c, r, lo;
	mpz_inits(a, b, c, r, lo, NULL);
	for (int i = 0; i < N; i++) {
		canonical(a, f, in[0].data + (size_t)i * eb);
		canonical(b, f, in[1].data + (size_t)i * eb);
		canonical(c, f, in[2].data + (size_t)i * eb);
		int cmp = mpz_cmp(a, b);
		cr_assert_eq(out[0].data[i], cmp < 0, "%s LT element %d", t, i);
		cr_assert_eq(out[1].data[i], cmp <= 0, "%s LE element %d", t, i);
		cr_assert_eq(out[2].data[i], cmp > 0, "%s GT element %d", t, i);
		cr_assert_eq(out[3].data[i], cmp >= 0, "%s GE element %d", t, i);
		canonical(r, f, out[4].data + (size_t)i * eb);
		cr_assert(mpz_cmp(r, cmp >= 0 ? a : b) == 0, "%s maximum element %d", t, i);
		canonical(r, f, out[5].data + (size_t)i * eb);
		cr_assert(mpz_cmp(r, cmp <= 0 ? a : b) == 0, "%s minimum element %d", t, i);
		/* clamp(lo, x, hi) = min(max(lo, x), hi): lo > hi gives hi */
		for (int k = 0; k < 2; k++) {
			mpz_set(lo, a);
			if (k)
				canonical(lo, f, in[2].data + 5 * eb);
			const mpz_ptr m = mpz_cmp(lo, b) >= 0 ? lo : b;
			canonical(r, f, out[6 + k].data + (size_t)i * eb);
			cr_assert(mpz_cmp(r, mpz_cmp(m, c) <= 0 ? m : c) == 0, "%s clamp%s element %d", t, k ? " (scalar lo)" : "",
				  i);
		}
		/* a _mont result's storage is the canonical value's, so the bytes compare too */
		cr_assert(memcmp(out[4].data + (size_t)i * eb, in[cmp >= 0 ? 0 : 1].data + (size_t)i * eb, eb) == 0);
	}
	mpz_clears(a, b, c, r, lo, NULL);
}

Test(order, interpreter_matches_gmp)
{
	for (size_t ti = 0; ti < sizeof ordered_types / sizeof ordered_types[0]; ti++) {
		const char *t = ordered_types[ti];
		char *text = order_program(t);
		ffu_module *m = parse(text);
		ffu_value in[3], *out = NULL;
		int n_out = 0;
		ffu_error e = {0};
		make_inputs(in, &m->entry->params[0]->shape, 7 + ti);
		cr_assert_eq(ffu__interp_run(m, in, 3, &out, &n_out, &e), FFU_STATUS_OK, "%s: %s", t, e.message);
		cr_assert_eq(n_out, 8);
		check_against_gmp(t, in, out);
		ffu__values_free(out, n_out);
		for (int k = 0; k < 3; k++)
			ffu__value_free(&in[k]);
		ffu__module_free(m);
		free(text);
	}
}

/* The bits of c, `bits` of them, read backwards through a string. */
static int64_t bitrev_by_text(int64_t c, int bits)
{
	char s[64];
	for (int k = 0; k < bits; k++)
		s[k] = (char)('0' + ((c >> (bits - 1 - k)) & 1));
	int64_t r = 0;
	for (int k = bits - 1; k >= 0; k--)
		r = r * 2 + (s[k] - '0');
	return r;
}

/* reverse and bit-reverse of an array holding its own linear indices: each output element
   names the input element it came from. */
Test(order, permutations_by_index)
{
	static const char text[] = "HloModule perm\n"
				   "ENTRY %main {\n"
				   "  %x = u32[8,5,4] iota(), iota_dimension=0\n"
				   "  %y = u32[8,5,4] iota(), iota_dimension=1\n"
				   "  %z = u32[8,5,4] iota(), iota_dimension=2\n"
				   "  %r = u32[8,5,4] reverse(%x), dimensions={0,2}\n"
				   "  %ry = u32[8,5,4] reverse(%y), dimensions={0,2}\n"
				   "  %rz = u32[8,5,4] reverse(%z), dimensions={0,2}\n"
				   "  %b = u32[8,5,4] bit-reverse(%x), dimensions={2,0}\n"
				   "  %bz = u32[8,5,4] bit-reverse(%z), dimensions={2,0}\n"
				   "  %by = u32[8,5,4] bit-reverse(%y), dimensions={2,0}\n"
				   "  ROOT %t = (u32[8,5,4], u32[8,5,4], u32[8,5,4], u32[8,5,4], u32[8,5,4], u32[8,5,4]) "
				   "tuple(%r, %ry, %rz, %b, %by, %bz)\n}\n";
	ffu_module *m = parse(text);
	ffu_value *out = NULL;
	int n_out = 0;
	ffu_error e = {0};
	cr_assert_eq(ffu__interp_run(m, NULL, 0, &out, &n_out, &e), FFU_STATUS_OK, "%s", e.message);
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < 5; j++)
			for (int k = 0; k < 4; k++) {
				size_t at = (size_t)((i * 5 + j) * 4 + k) * 4;
				uint32_t got[6];
				for (int o = 0; o < 6; o++)
					memcpy(&got[o], out[o].data + at, 4);
				cr_assert(got[0] == (uint32_t)(7 - i) && got[1] == (uint32_t)j && got[2] == (uint32_t)(3 - k),
					  "reverse at %d,%d,%d", i, j, k);
				cr_assert(got[3] == (uint32_t)bitrev_by_text(i, 3) && got[4] == (uint32_t)j &&
						  got[5] == (uint32_t)bitrev_by_text(k, 2),
					  "bit-reverse at %d,%d,%d", i, j, k);
			}
	ffu__values_free(out, n_out);
	ffu__module_free(m);
}

/* The simplifier folds ordered ops of constants as the interpreter computes them, and
   compare(x, x) by its direction. */
Test(order, simplifier)
{
	static const char text[] = "HloModule s\n"
				   "ENTRY %main {\n"
				   "  %x = babybear_mont[3] parameter(0)\n"
				   "  %a = babybear_mont[3] constant({5, 2013265920, 7})\n"
				   "  %b = babybear_mont[3] constant({6, 1, 7})\n"
				   "  %lt = pred[3] compare(%a, %b), direction=LT\n"
				   "  %mx = babybear_mont[3] maximum(%a, %b)\n"
				   "  %ra = babybear_mont[3] reverse(%a), dimensions={0}\n"
				   "  %xx = pred[3] compare(%x, %x), direction=LE\n"
				   "  %xg = pred[3] compare(%x, %x), direction=GT\n"
				   "  %m2 = babybear_mont[3] minimum(%x, %x)\n"
				   "  ROOT %t = (pred[3], babybear_mont[3], babybear_mont[3], pred[3], pred[3], babybear_mont[3]) "
				   "tuple(%lt, %mx, %ra, %xx, %xg, %m2)\n}\n";
	ffu_module *m = parse(text), *ref = parse(text);
	ffu_error e = {0};
	ffu_pass_opts po = {.fuse = false};
	cr_assert_eq(ffu__pass_run_one(m, "simplify", &po, &e), FFU_STATUS_OK, "%s", e.message);
	const ffu_inst *root = m->entry->root;
	for (int j = 0; j < 5; j++)
		cr_expect(root->operands[j]->op == FFU_OP_CONSTANT || root->operands[j]->op == FFU_OP_BROADCAST,
			  "output %d is %s", j, ffu__ops[root->operands[j]->op].keyword);
	cr_expect(root->operands[5]->op == FFU_OP_PARAMETER, "minimum(x, x) is x");
	ffu_value in;
	cr_assert_eq(ffu__value_alloc(&in, &m->entry->params[0]->shape, &e), FFU_STATUS_OK);
	uint64_t seed = 3;
	ffu__value_random(&in, &seed);
	ffu_value *o1 = NULL, *o2 = NULL;
	int n1 = 0, n2 = 0;
	cr_assert_eq(ffu__interp_run(m, &in, 1, &o1, &n1, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu__interp_run(ref, &in, 1, &o2, &n2, &e), FFU_STATUS_OK, "%s", e.message);
	for (int k = 0; k < n1; k++)
		cr_expect(o1[k].bytes == o2[k].bytes && memcmp(o1[k].data, o2[k].data, o1[k].bytes) == 0, "output %d", k);
	/* the literals are Montgomery storage: 5 and 6 stand for 5 R^-1 and 6 R^-1, and
	   2013265920 = p - 1 for (p - 1) R^-1; the order is the canonical values' */
	mpz_t a, b;
	mpz_inits(a, b, NULL);
	const ffu_field *f = ffu__shape_field(&in.shape);
	for (int i = 0; i < 3; i++) {
		canonical(a, f, ref->entry->insts[1]->literal + 4 * i);
		canonical(b, f, ref->entry->insts[2]->literal + 4 * i);
		cr_expect_eq(o2[0].data[i], mpz_cmp(a, b) < 0, "LT element %d", i);
	}
	cr_expect(o2[3].data[0] && o2[3].data[1] && o2[3].data[2] && !o2[4].data[0] && !o2[4].data[1] && !o2[4].data[2]);
	mpz_clears(a, b, NULL);
	ffu__values_free(o1, n1);
	ffu__values_free(o2, n2);
	ffu__value_free(&in);
	ffu__module_free(m);
	ffu__module_free(ref);
}

/* ---- fusion ---- */

static int fusions_of(const char *text)
{
	ffu_module *m = parse(text);
	ffu_error e = {0};
	ffu_pass_opts po = {.fuse = true};
	cr_assert_eq(ffu__passes_run(m, &po, &e), FFU_STATUS_OK, "%s", e.message);
	int n = 0;
	for (int i = 0; i < m->entry->n_insts; i++)
		n += m->entry->insts[i]->op == FFU_OP_FUSION;
	ffu__module_free(m);
	return n;
}

Test(order, fuses_with_neighbours)
{
	cr_expect_eq(fusions_of("HloModule f1\nENTRY %main {\n  %x = bn254_sf[64] parameter(0)\n"
				"  %y = bn254_sf[64] parameter(1)\n  %z = bn254_sf[64] parameter(2)\n"
				"  %m = bn254_sf[64] multiply(%x, %y)\n  ROOT %r = bn254_sf[64] maximum(%m, %z)\n}\n"),
		     1, "maximum(x * y, z)");
	cr_expect_eq(fusions_of("HloModule f2\nENTRY %main {\n  %x = goldilocks[16,8] parameter(0)\n"
				"  %y = goldilocks[16,8] parameter(1)\n  %r = goldilocks[16,8] reverse(%x), dimensions={1}\n"
				"  ROOT %s = goldilocks[16,8] add(%r, %y)\n}\n"),
		     1, "reverse(x) + y");
	cr_expect_eq(fusions_of("HloModule f3\nENTRY %main {\n  %x = babybear[16,8] parameter(0)\n"
				"  %y = babybear[16,8] parameter(1)\n  %m = babybear[16,8] multiply(%x, %y)\n"
				"  %b = babybear[16,8] bit-reverse(%m), dimensions={0,1}\n"
				"  %c = pred[16,8] compare(%b, %x), direction=GE\n"
				"  ROOT %s = babybear[16,8] select(%c, %b, %y)\n}\n"),
		     1, "select(bit-reverse(x * y) >= x, ...)");
}

/* ---- devices ---- */

/* order_program of type t on the device against the interpreter, fused and unfused. */
static void device_matches_interpreter(ffu_cl *cl, const char *t, uint64_t seed)
{
	char *text = order_program(t);
	ffu_value in[3], *ref = NULL;
	int n_ref = 0;
	ffu_error e = {0};
	ffu_module *m0 = parse(text);
	make_inputs(in, &m0->entry->params[0]->shape, seed);
	cr_assert_eq(ffu__interp_run(m0, in, 3, &ref, &n_ref, &e), FFU_STATUS_OK, "%s", e.message);
	check_against_gmp(t, in, ref);
	ffu__module_free(m0);
	for (int fuse = 0; fuse < 2; fuse++) {
		ffu_module *m = parse(text);
		ffu_pass_opts po = {.fuse = fuse, .disable = "simplify"};
		cr_assert_eq(ffu__passes_run(m, &po, &e), FFU_STATUS_OK, "%s", e.message);
		ffu_exec *x = NULL;
		cr_assert_eq(ffu__exec_create(&x, cl, m, &e), FFU_STATUS_OK, "%s on %s: %s\n%s", t, cl->dev.name, e.message,
			     e.build_log ? e.build_log : "");
		ffu_value *out = NULL;
		int n_out = 0;
		cr_assert_eq(ffu__exec_upload(x, in, 3, &e), FFU_STATUS_OK, "%s", e.message);
		cr_assert_eq(ffu__exec_run(x, NULL, NULL, &e), FFU_STATUS_OK, "%s", e.message);
		cr_assert_eq(ffu__exec_download(x, &out, &n_out, &e), FFU_STATUS_OK, "%s", e.message);
		cr_assert_eq(n_out, n_ref);
		for (int o = 0; o < n_out; o++) {
			size_t eb = ffu__shape_elem_bytes(&ref[o].shape);
			for (size_t i = 0; i < ref[o].bytes; i += eb)
				cr_assert(memcmp(out[o].data + i, ref[o].data + i, eb) == 0,
					  "%s %s on %s: output %d element %zu differs from the interpreter", t,
					  fuse ? "fused" : "unfused", cl->dev.name, o, i / eb);
		}
		ffu__values_free(out, n_out);
		ffu__exec_destroy(&x);
		ffu__module_free(m);
	}
	ffu__values_free(ref, n_ref);
	for (int k = 0; k < 3; k++)
		ffu__value_free(&in[k]);
	free(text);
	ffu_error_clear(&e);
}

/* Each template's lt once (mont31, m31, goldilocks, montn with and without the spare top
   bit), canonical and _mont storage, the integers (signed ones order as signed: the
   interpreter once ordered their bit patterns while the device's char ... long did not):
   256-bit builds dominate the time. */
static const char *const device_types[] = {
	"babybear_mont", "koalabear", "mersenne31", "goldilocks", "goldilocks_mont", "bn254_sf_mont", "secp256k1_sf",
	"u32", "u64", "s8", "s16", "s32", "s64", "u8", "u16",
};

/*
 * A 256-bit kernel that divides runs its elements in loops and, on a CPU, with the 64-bit
 * limbs of cl/montn_64.cl (codegen.c: ffu__codegen_field_opts): its lt is that
 * template's. The quotient against x and y, for a spare-bit and a full-width modulus.
 */
static void divide_then_order(ffu_cl *cl, const char *t)
{
	char text[2048];
	snprintf(text, sizeof text,
		 "HloModule qo\nENTRY %%main {\n  %%x = %s[%d] parameter(0)\n  %%y = %s[%d] parameter(1)\n"
		 "  %%q = %s[%d] divide(%%x, %%y)\n  %%lt = pred[%d] compare(%%q, %%x), direction=LT\n"
		 "  %%ge = pred[%d] compare(%%q, %%y), direction=GE\n  %%m = %s[%d] maximum(%%q, %%x)\n"
		 "  %%c = %s[%d] clamp(%%y, %%q, %%x)\n"
		 "  ROOT %%t = (pred[%d], pred[%d], %s[%d], %s[%d]) tuple(%%lt, %%ge, %%m, %%c)\n}\n",
		 t, N, t, N, t, N, N, N, t, N, t, N, N, N, t, N, t, N);
	ffu_error e = {0};
	ffu_module *m = parse(text);
	ffu_value in[3], *ref = NULL, *out = NULL;
	int n_ref = 0, n_out = 0;
	make_inputs(in, &m->entry->params[0]->shape, 99);
	cr_assert_eq(ffu__interp_run(m, in, 2, &ref, &n_ref, &e), FFU_STATUS_OK, "%s", e.message);
	ffu_pass_opts po = {.fuse = true};
	cr_assert_eq(ffu__passes_run(m, &po, &e), FFU_STATUS_OK, "%s", e.message);
	ffu_exec *x = NULL;
	cr_assert_eq(ffu__exec_create(&x, cl, m, &e), FFU_STATUS_OK, "%s: %s\n%s", t, e.message,
		     e.build_log ? e.build_log : "");
	cr_assert_eq(ffu__exec_upload(x, in, 2, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu__exec_run(x, NULL, NULL, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu__exec_download(x, &out, &n_out, &e), FFU_STATUS_OK, "%s", e.message);
	for (int o = 0; o < n_out; o++)
		cr_assert(out[o].bytes == ref[o].bytes && memcmp(out[o].data, ref[o].data, ref[o].bytes) == 0,
			  "%s divide then order on %s: output %d differs from the interpreter", t, cl->dev.name, o);
	ffu__values_free(out, n_out);
	ffu__values_free(ref, n_ref);
	ffu__exec_destroy(&x);
	for (int k = 0; k < 3; k++)
		ffu__value_free(&in[k]);
	ffu__module_free(m);
}

static void devices_run(const char *device)
{
	ffu_cl cl = {0};
	ffu_test_open_device(&cl, device);
	for (size_t ti = 0; ti < sizeof device_types / sizeof device_types[0]; ti++)
		device_matches_interpreter(&cl, device_types[ti], 100 + ti);
	divide_then_order(&cl, "bn254_sf_mont");
	divide_then_order(&cl, "secp256k1_sf");
	ffu__cl_close(&cl);
}

Test(order, pocl, .timeout = 600)
{
	devices_run(ffu_test_devices[0]);
}

Test(order, rusticl, .timeout = 600)
{
	devices_run(ffu_test_devices[1]);
}
