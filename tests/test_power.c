/*
 * tests/test_power.c: power by a constant exponent on the devices. The code generator
 * unrolls it along an addition chain (codegen/addchain.h, emit_pow_const in kgen_special.c);
 * here every field raises one vector to many constants (see exponents: p - 2, the inverse,
 * (p - 1) / 2, the Legendre symbol, S-box exponents, 2^32 - 1, 2^64 - 1, exponents of the
 * shortest-chain search and of the sliding windows), and x^(p-2) * x in a two-op kernel
 * that CPU devices also run in interleaved lanes, on PoCL and on Rusticl, with and without
 * simplify (which leaves x^0 and x^1 to the device). Every output element must equal the
 * interpreter's, and for the prime fields GMP's mpz_powm; x^(p-2) * x = 1 for x != 0. The
 * kernel source must hold exactly the chain's squarings and products, in every lane. A
 * missing device fails, never skips.
 */
#include <criterion/criterion.h>
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/addchain.h"
#include "codegen/codegen.h"
#include "hlo/hlo.h"
#include "interp/interp.h"
#include "passes/passes.h"
#include "runtime/exec.h"
#include "support.h"

enum { N = 1003, MAX_EXP = 24 }; /* N: not a multiple of any work-group size */

/*
 * The exponents a field is tested with. Compile time is the limit, not the device: PoCL
 * takes about a second per unrolled 256-bit product and a tenth of one per quartic
 * extension product, so those fields get short chains (the chains themselves are
 * checked for every exponent by tests/test_addchain.c). 31- and 64-bit fields get the
 * lot: p - 2, p - 1, (p - 1) / 2, S-boxes, 2^32 - 1, 2^64 - 1, chains from the
 * shortest-chain search (607, 1023) and from sliding windows.
 */
static int exponents(uint64_t *out, const ffu_field *f)
{
	static const uint64_t wide[] = {0, 1, 3, 5};
	static const uint64_t ext[] = {0, 1, 3, 7, 11, 0xffffffffull};
	static const uint64_t mont[] = {0, 1, 7, 11, 1023}; /* the _mont loads and stores are what is new */
	static const uint64_t full[] = {0,
					1,
					3,
					5,
					7,
					11,
					17,
					607,
					1023,
					65537,
					0xffffffffull,
					UINT64_MAX,
					0x123456789abcdefull,
					0xfedcba9876543210ull,
					10540996611094048183ull}; /* 1/7 mod Goldilocks p - 1: its inverse S-box */
	const uint64_t *list = full;
	size_t n = sizeof full / sizeof full[0];
	if (f->storage_bytes >= 32)
		list = wide, n = sizeof wide / sizeof wide[0];
	else if (f->kind == FFU_ELEM_EXT)
		list = ext, n = sizeof ext / sizeof ext[0];
	else if (f->kind == FFU_ELEM_MONT)
		list = mont, n = sizeof mont / sizeof mont[0];
	memcpy(out, list, n * sizeof *out);
	uint64_t p = f->prime->p[0];
	if (list == full || list == mont)
		out[n++] = p - 2; /* the inverse */
	if (list == full) {
		out[n++] = p - 1;
		out[n++] = (p - 1) / 2; /* the Legendre symbol */
	}
	return (int)n;
}

/*
 * Raises x to each exponent, one output per exponent; prod >= 0 adds a last output
 * x^exps[prod] * x. Sibling powers are separate kernels (fusion joins producers to
 * consumers), each a single element-wise op, which gets no wide variant; the product makes
 * its kernel two ops, so on CPU devices that chain also runs in the interleaved lanes
 * (codegen.c: emit_loop_kernel).
 */
static char *program(const char *field, const uint64_t *exps, int n_exps, int prod)
{
	enum { CAP = 65536 };
	char *buf = malloc(CAP);
	cr_assert(buf);
	int n_out = n_exps + (prod >= 0);
	int w = snprintf(buf, CAP, "HloModule power_%s\nENTRY %%main (x: %s[%d]) -> (", field, field, N);
	for (int i = 0; i < n_out; i++)
		w += snprintf(buf + w, CAP - (size_t)w, "%s%s[%d]", i ? ", " : "", field, N);
	w += snprintf(buf + w, CAP - (size_t)w, ") {\n  %%x = %s[%d] parameter(0)\n", field, N);
	for (int i = 0; i < n_exps; i++)
		w += snprintf(buf + w, CAP - (size_t)w,
			      "  %%c%d = u64[] constant(%llu)\n  %%b%d = u64[%d] broadcast(%%c%d), dimensions={}\n"
			      "  %%p%d = %s[%d] power(%%x, %%b%d)\n",
			      i, (unsigned long long)exps[i], i, N, i, i, field, N, i);
	if (prod >= 0)
		w += snprintf(buf + w, CAP - (size_t)w, "  %%q = %s[%d] multiply(%%p%d, %%x)\n", field, N, prod);
	w += snprintf(buf + w, CAP - (size_t)w, "  ROOT %%r = (");
	for (int i = 0; i < n_out; i++)
		w += snprintf(buf + w, CAP - (size_t)w, "%s%s[%d]", i ? ", " : "", field, N);
	w += snprintf(buf + w, CAP - (size_t)w, ") tuple(");
	for (int i = 0; i < n_exps; i++)
		w += snprintf(buf + w, CAP - (size_t)w, "%s%%p%d", i ? ", " : "", i);
	w += snprintf(buf + w, CAP - (size_t)w, "%s)\n}\n", prod >= 0 ? ", %q" : "");
	cr_assert_lt(w, CAP);
	return buf;
}

/* Random elements; the first ones 0, 1, 2, p-1, p-2. */
static void make_input(ffu_value *in, const ffu_module *m)
{
	ffu_error e = {0};
	cr_assert_eq(ffu__value_alloc(in, &m->entry->params[0]->shape, &e), FFU_STATUS_OK, "%s", e.message);
	uint64_t seed = 0x5eed;
	ffu__value_random(in, &seed);
	const ffu_field *f = ffu__shape_field(&in->shape);
	size_t eb = f->storage_bytes;
	unsigned char one[FFU_FIELD_MAX_BYTES], two[FFU_FIELD_MAX_BYTES];
	ffu__fp_set_u64(f, one, 1);
	ffu__fp_set_u64(f, two, 2);
	ffu__fp_set_u64(f, in->data, 0);
	memcpy(in->data + eb, one, eb);
	memcpy(in->data + 2 * eb, two, eb);
	ffu__fp_neg(f, in->data + 3 * eb, one, NULL);
	ffu__fp_neg(f, in->data + 4 * eb, two, NULL);
}

static void to_mpz(mpz_t z, const unsigned char *b, size_t n)
{
	mpz_import(z, n, -1, 1, 0, 0, b);
}

/* A prime field's outputs of program() against GMP; x^(p-2) x = 1 for x != 0. */
static void check_gmp(const ffu_field *f, const ffu_value *in, const ffu_value *out, const uint64_t *exps, int n_exps,
		      int prod)
{
	mpz_t p, x, e, want, got;
	mpz_inits(p, x, e, want, got, NULL);
	cr_assert_eq(mpz_set_str(p, f->modulus_hex, 16), 0);
	size_t eb = f->storage_bytes;
	for (int k = 0; k <= n_exps; k++) {
		if (k == n_exps && prod < 0)
			break;
		uint64_t ek = exps[k < n_exps ? k : prod];
		mpz_import(e, 1, -1, sizeof ek, 0, 0, &ek);
		bool inverse = f->bits <= 64 && ek == f->p[0] - 2;
		for (int i = 0; i < N; i++) {
			to_mpz(x, in->data + (size_t)i * eb, eb);
			to_mpz(got, out[k].data + (size_t)i * eb, eb);
			mpz_powm(want, x, e, p); /* 0^0 = 1, as power(x, 0) = 1 */
			if (k == n_exps) {
				mpz_mul(want, want, x);
				mpz_mod(want, want, p);
				if (inverse)
					cr_assert(mpz_cmp_ui(got, mpz_sgn(x) != 0) == 0, "%s: x^(p-2) x at %d", f->name, i);
			}
			cr_assert(mpz_cmp(want, got) == 0, "%s: x^%llu%s at %d differs from GMP", f->name,
				  (unsigned long long)ek, k == n_exps ? " * x" : "", i);
		}
	}
	mpz_clears(p, x, e, want, got, NULL);
}

static void run_field(ffu_cl *cl, const char *field, const char *disable)
{
	const ffu_field *f = ffu_test_field(field);
	uint64_t exps[MAX_EXP];
	bool prime = f->kind == FFU_ELEM_PRIME;
	/* the product: after the inverse where there is one (x^(p-2) * x = 1 on the device);
	   not for _mont types and 256-bit fields, to spare compile time */
	int n_exps = exponents(exps, f), prod = n_exps - 1;
	for (int k = 0; k < n_exps; k++)
		if (f->bits <= 64 && exps[k] == f->prime->p[0] - 2)
			prod = k;
	if (f->kind == FFU_ELEM_MONT || f->storage_bytes >= 32)
		prod = -1;
	char *text = program(field, exps, n_exps, prod);
	ffu_error e = {0};
	ffu_module *m = NULL;
	cr_assert_eq(ffu__hlo_parse(&m, text, strlen(text), field, &e), FFU_STATUS_OK, "%s: %s", field, e.message);
	ffu_value in = {0}, *ref = NULL, *out = NULL;
	int n_ref = 0, n_out = 0;
	make_input(&in, m);
	cr_assert_eq(ffu__interp_run(m, &in, 1, &ref, &n_ref, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(n_ref, n_exps + (prod >= 0));
	if (prime)
		check_gmp(f, &in, ref, exps, n_exps, prod);

	ffu_pass_opts po = {.fuse = true, .disable = disable};
	cr_assert_eq(ffu__passes_run(m, &po, &e), FFU_STATUS_OK, "%s: %s", field, e.message);
	ffu_exec *x = NULL;
	cr_assert_eq(ffu__exec_create(&x, cl, m, &e), FFU_STATUS_OK, "%s on %s: %s\n%s", field, cl->dev.name, e.message,
		     e.build_log ? e.build_log : "");
	cr_assert_eq(ffu__exec_upload(x, &in, 1, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu__exec_run(x, NULL, NULL, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu__exec_download(x, &out, &n_out, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(n_out, n_ref);
	size_t eb = f->storage_bytes;
	for (int k = 0; k < n_out; k++)
		for (int i = 0; i < N; i++)
			cr_assert(memcmp(out[k].data + (size_t)i * eb, ref[k].data + (size_t)i * eb, eb) == 0,
				  "%s on %s (%s): x^%llu%s at element %d differs from the interpreter", field,
				  cl->dev.name, disable ? "without simplify" : "all passes",
				  (unsigned long long)exps[k < n_exps ? k : prod], k < n_exps ? "" : " * x", i);
	if (prime)
		check_gmp(f, &in, out, exps, n_exps, prod);
	ffu__exec_destroy(&x);
	ffu__value_free(&in);
	ffu__values_free(ref, n_ref);
	ffu__values_free(out, n_out);
	ffu__module_free(m);
	free(text);
	ffu_error_clear(&e);
}

/* The default run: one field of each class (31-bit, 64-bit _mont, 256-bit, an extension and
   an extension's _mont twin); the deep run's deep_* tests (tests/meson.build) the others,
   the same addition chains over other arithmetic (207 s of a cold run on 2 cores, all
   eleven on both devices). */
static const char *const fields[] = {"babybear", "goldilocks_mont", "bn254_sf", "babybearx4", "mersenne31x2_mont"};
static const char *const deep_fields[] = {"koalabear", "mersenne31", "goldilocks", "babybear_mont", "goldilocksx2",
					  "goldilocksx3"};

static void run_device(const char *device, const char *const *list, size_t n)
{
	ffu_cl cl = {0};
	ffu_test_open_device(&cl, device);
	for (size_t i = 0; i < n; i++) {
		/* without simplify power(x, 0) and power(x, 1) reach the device too */
		run_field(&cl, list[i], "simplify");
		if (strcmp(list[i], "babybear") == 0)
			run_field(&cl, list[i], NULL);
	}
	ffu__cl_close(&cl);
}

#define N_OF(a) (sizeof(a) / sizeof(a)[0])

Test(power, pocl, .timeout = 600)
{
	run_device(ffu_test_devices[0], fields, N_OF(fields));
}

Test(power, rusticl, .timeout = 600)
{
	run_device(ffu_test_devices[1], fields, N_OF(fields));
}

Test(power, deep_pocl, .timeout = 600)
{
	run_device(ffu_test_devices[0], deep_fields, N_OF(deep_fields));
}

Test(power, deep_rusticl, .timeout = 600)
{
	run_device(ffu_test_devices[1], deep_fields, N_OF(deep_fields));
}

/* Counts `name(` in s. */
static int count(const char *s, const char *name)
{
	int n = 0;
	for (const char *p = strstr(s, name); p; p = strstr(p + 1, name))
		n++;
	return n;
}

/* The kernel holds the chain: one <f>_sqr per square and one <f>_mul per product, and
   the wide variant (lanes 4, with a product after the power) one per lane, plus that one. */
Test(power, kernel_follows_the_chain)
{
	static const struct {
		const char *field;
		uint64_t e;
		int window;
	} cases[] = {{"babybear", 0x78000001ull - 2, 5}, {"goldilocks", 0xffffffff00000001ull - 2, 5},
		     {"mersenne31", 7, 5},                 {"bn254_sf", UINT64_MAX, 4},
		     {"koalabear", 607, 5},                {"babybearx4", 0xffffffffull, 4}};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		ffu_addchain_step st[FFU_ADDCHAIN_MAX_STEPS];
		int n = 0, sqr = 0;
		cr_assert_eq(ffu__addchain_build(st, &n, cases[c].e, cases[c].window), FFU_STATUS_OK);
		for (int k = 0; k < n; k++)
			sqr += st[k].op == FFU_ADDCHAIN_SQR;
		for (int wide = 0; wide < 2; wide++) {
			char *text = program(cases[c].field, &cases[c].e, 1, wide ? 0 : -1);
			int lanes = wide ? 4 : 1;
			char *prog = ffu_test_generate(text, lanes, NULL);
			const char *kernel = strstr(prog, wide ? "__kernel void ffu_k0_wide(" : "__kernel void ffu_k0(");
			/* values wider than 8 bytes get no wide variant (ffu__codegen_kernel_lanes) */
			if (wide && ffu_test_field(cases[c].field)->storage_bytes > 8) {
				cr_assert_null(kernel, "%s: a wide kernel", cases[c].field);
			} else {
				cr_assert(kernel, "%s: no %s kernel", cases[c].field, wide ? "wide" : "plain");
				const char *end = strstr(kernel, "\n}\n");
				cr_assert(end);
				char *body = strndup(kernel, (size_t)(end - kernel));
				cr_assert(body);
				char name[64];
				snprintf(name, sizeof name, "%s_sqr(", cases[c].field);
				cr_assert_eq(count(body, name), lanes * sqr, "%s x^%llu: squarings", cases[c].field,
					     (unsigned long long)cases[c].e);
				snprintf(name, sizeof name, "%s_mul(", cases[c].field);
				cr_assert_eq(count(body, name), lanes * (n - sqr + wide), "%s x^%llu: products",
					     cases[c].field, (unsigned long long)cases[c].e);
				free(body);
			}
			free(prog);
			free(text);
		}
	}
}
