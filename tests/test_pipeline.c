/*
 * tests/test_pipeline.c: the whole path, HLO text -> passes -> OpenCL C -> device, for
 * every test program, fused and unfused, at lengths that are not multiples of any
 * work-group size, on PoCL and on Rusticl; every output element compared with the
 * reference interpreter, and the kernel counts that fusion must reach checked.
 *
 * Those runs leave out the simplify pass: the programs put divide by zero, power(x, 0)
 * and the like on the device on purpose, which simplify would fold on the host. One more
 * fused run per program with the whole pipeline checks the values as users get them.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/body.h"
#include "codegen/codegen.h"
#include "codegen/kernel.h"
#include "codegen/wide.h"
#include "device/target.h"
#include "hlo/hlo.h"
#include "interp/interp.h"
#include "passes/passes.h"
#include "programs.h"
#include "runtime/cl.h"
#include "runtime/exec.h"
#include "support.h"

static const long long lengths[] = {1, 7, 1000, 65539};

/*
 * Random inputs whose first elements are the edge values 0, 1, p-1, p-2, with more zeros
 * scattered (every 61st element from the 64th on): wide kernels invert 4 or 16 elements
 * at once (codegen/wide.c: print_inv_batch), and a zero must come out as zero in any lane
 * without spoiling the other lanes of its batch.
 */
static void make_inputs(const ffu_computation *entry, ffu_value *in, uint64_t seed)
{
	for (int p = 0; p < entry->n_params; p++) {
		ffu_error e = {0};
		cr_assert_eq(ffu__value_alloc(&in[p], &entry->params[p]->shape, &e), FFU_STATUS_OK, "%s", e.message);
		ffu__value_random(&in[p], &seed);
		const ffu_field *f = ffu__shape_field(&in[p].shape);
		int64_t n = ffu__shape_count(&in[p].shape);
		if (f->kind == FFU_ELEM_UINT) { /* exponents, convert sources: 0, 1, 2^k - 1 first */
			for (int64_t i = 0; i < n && i < 4; i++)
				ffu__fp_set_u64(f, in[p].data + (size_t)i * f->storage_bytes,
						i < 2 ? (uint64_t)i : i == 2 ? ~0ull : 0x80000000ull);
			continue;
		}
		unsigned char one[FFU_FIELD_MAX_BYTES], two[FFU_FIELD_MAX_BYTES];
		ffu__fp_set_u64(f, one, 1);
		ffu__fp_set_u64(f, two, 2);
		for (int64_t i = 64; i < n; i += 61)
			ffu__fp_set_u64(f, in[p].data + (size_t)i * f->storage_bytes, 0);
		for (int64_t i = 0; i < n && i < 4; i++) {
			unsigned char *d = in[p].data + (size_t)i * f->storage_bytes;
			int which = (int)((i + p) % 4);
			if (which == 0)
				ffu__fp_set_u64(f, d, 0);
			else if (which == 1)
				memcpy(d, one, f->storage_bytes);
			else
				ffu__fp_neg(f, d, which == 2 ? one : two, NULL);
		}
	}
}

/* One program at one length: its inputs and the interpreter's outputs, shared by its runs. */
typedef struct reference {
	char *text;
	ffu_value *in, *out;
	int n_in, n_out;
} reference;

static void reference_make(reference *r, const test_program *tp, long long n)
{
	ffu_error e = {0};
	memset(r, 0, sizeof *r);
	r->text = ffu_test_program_text(tp, n);
	cr_assert(r->text);
	ffu_module *m = NULL;
	cr_assert_eq(ffu__hlo_parse(&m, r->text, strlen(r->text), tp->name, &e), FFU_STATUS_OK, "%s: %s", tp->name,
		     e.message);
	r->n_in = m->entry->n_params;
	r->in = calloc((size_t)r->n_in + 1, sizeof *r->in);
	cr_assert(r->in);
	make_inputs(m->entry, r->in, 1000 + (uint64_t)n);
	cr_assert_eq(ffu__interp_run(m, r->in, r->n_in, &r->out, &r->n_out, &e), FFU_STATUS_OK, "%s", e.message);
	ffu__module_free(m);
	ffu_error_clear(&e);
}

static void reference_free(reference *r)
{
	ffu__values_free(r->in, r->n_in);
	ffu__values_free(r->out, r->n_out);
	free(r->text);
}

/* disable: passes left out (see the header); kernel counts are checked only without simplify */
static void run_case(ffu_cl *cl, const test_program *tp, const reference *r, long long n, bool fuse,
		     const char *disable)
{
	ffu_error e = {0};
	ffu_module *m = NULL;
	cr_assert_eq(ffu__hlo_parse(&m, r->text, strlen(r->text), tp->name, &e), FFU_STATUS_OK, "%s: %s", tp->name,
		     e.message);
	ffu_value *out = NULL;
	int n_out = 0;
	ffu_pass_opts po = {.fuse = fuse, .disable = disable};
	cr_assert_eq(ffu__passes_run(m, &po, &e), FFU_STATUS_OK, "%s: %s", tp->name, e.message);
	ffu_exec *x = NULL;
	ffu_status st = ffu__exec_create(&x, cl, m, &e);
	cr_assert_eq(st, FFU_STATUS_OK, "%s n=%lld on %s: %s\n%s", tp->name, n, cl->dev.name, e.message,
		     e.build_log ? e.build_log : "");
	if (disable)
		cr_expect_eq(ffu__exec_kernel_count(x), fuse ? tp->fused_kernels : tp->unfused_kernels,
			     "%s %s: %d kernels", tp->name, fuse ? "fused" : "unfused", ffu__exec_kernel_count(x));
	cr_assert_eq(ffu__exec_upload(x, r->in, r->n_in, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu__exec_run(x, NULL, NULL, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu__exec_download(x, &out, &n_out, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(n_out, r->n_out);
	for (int o = 0; o < n_out; o++) {
		const ffu_value *ref = &r->out[o];
		cr_assert_eq(out[o].bytes, ref->bytes);
		size_t eb = ffu__shape_elem_bytes(&ref->shape);
		for (size_t i = 0; i < ref->bytes; i += eb)
			cr_assert(memcmp(out[o].data + i, ref->data + i, eb) == 0,
				  "%s %s n=%lld on %s: output %d element %zu differs from the interpreter", tp->name,
				  fuse ? "fused" : "unfused", n, cl->dev.name, o, i / eb);
	}
	ffu__exec_destroy(&x);
	ffu__values_free(out, n_out);
	ffu__module_free(m);
	ffu_error_clear(&e);
}

/*
 * Which programs a test runs: by name, or by their fields. The multi-word programs take most
 * of a cold PoCL build's time, so they are sets of their own (tests that the suite's
 * parallel jobs run side by side): over ZKX's bn254_sf / bls12_381_sf, over the other
 * 256-bit fields (pallas, vesta, curve25519, secp256k1/r1, bn254_bf), over the pairing
 * curves' base field beyond 256 bits and BN254's Fq2 (bls12_381_bf, bn254_bfx2), and over
 * BLS12-381's Fq2 (its 12-word products cost PoCL most per kernel: about 140 s of cold
 * compile for inverse_divide_bls12_381_bfx2 alone).
 */
typedef enum { ALL, SMALL_FIELDS, ZKX_256, OTHER_256, PAIRING_BASE, BLS12_381_FQ2 } program_set;

static program_set set_of(const test_program *tp)
{
	if (strstr(tp->text, "bls12_381_bfx2"))
		return BLS12_381_FQ2;
	if (strstr(tp->text, "bls12_381_bf") || strstr(tp->text, "_bfx2"))
		return PAIRING_BASE;
	if (strstr(tp->text, "bn254_sf") || strstr(tp->text, "bls12_381_sf"))
		return ZKX_256;
	for (int id = 0; id < FFU_FIELD_COUNT; id++) {
		const ffu_field *f = ffu__field_get((ffu_field_id)id);
		if (f->storage_bytes == 32 && strstr(tp->text, f->name))
			return OTHER_256;
	}
	return SMALL_FIELDS;
}

/*
 * Every program of `set` whose name contains name_part, fused at every length, unfused and
 * with the whole pipeline at 1000 elements (a partial work-group; every program runs at
 * that length); the interpreter runs once per program and length (it is the costly half on
 * the host: 256-bit inversions at 65539 elements). gpu_code: the context's target as a
 * GPU's (tree fold, 32-bit containers, one lane).
 *
 * Cold builds are the cost (CI's clean machine): PoCL compiles each kernel again per local
 * size, and the short lengths run in groups of one (docs/tuning.md: small_in_ones), so a
 * variant at every length is two builds of each kernel; unfused is the most kernels. With
 * every variant at every length, pocl_256bit took 599 s of its 600 in CI. The pairing sets
 * run fused only: each variant is one more cold build of 384-bit or Fq2 code (minutes of
 * CPU per device), and what unfused and the whole pipeline add, the kernel split and the
 * other passes, does not depend on the field; test_field_device runs every op of these
 * fields one kernel at a time.
 */
static void run_all_matching(const char *device, const char *name_part, program_set set, bool gpu_code)
{
	const bool fused_only = set == PAIRING_BASE || set == BLS12_381_FQ2;
	const long long all_variants_at = 1000; /* every program runs at this length */
	ffu_cl cl = {0};
	ffu_test_open_device(&cl, device);
	if (gpu_code) {
		ffu__target_set_class(&cl.target, FFU_DEVICE_CLASS_GPU);
		cl.target.profile.lanes = 1;
	}
	for (int p = 0; p < ffu_test_n_programs; p++) {
		const test_program *tp = &ffu_test_programs[p];
		if (!strstr(tp->name, name_part) || (set != ALL && set_of(tp) != set))
			continue;
		for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++) {
			if (ffu_test_program_max_n(tp) && lengths[l] > ffu_test_program_max_n(tp))
				continue;
			reference r;
			reference_make(&r, tp, lengths[l]);
			const bool all = lengths[l] == all_variants_at && !fused_only;
			if (all)
				run_case(&cl, tp, &r, lengths[l], false, "simplify");
			run_case(&cl, tp, &r, lengths[l], true, "simplify");
			if (all) /* the whole pipeline, once per program */
				run_case(&cl, tp, &r, lengths[l], true, NULL);
			reference_free(&r);
		}
	}
	ffu__cl_close(&cl);
}

/*
 * CPU devices fold a work-group's partial sums serially (codegen/reduce.c: emit_stage1); GPUs
 * use a tree in local memory. A CPU context whose target is set to a GPU's gets the GPU
 * code, so both paths run in CI on two OpenCL implementations. (FIELDFUSE_LANES=1 no
 * longer does that: lanes change only lanes, device/target.h.)
 */
Test(pipeline, reductions_gpu_path_pocl, .timeout = 1200)
{
	run_all_matching(ffu_test_devices[0], "reduce", ALL, true);
	run_all_matching(ffu_test_devices[0], "sumcheck", ALL, true);
}

Test(pipeline, reductions_gpu_path_rusticl, .timeout = 1200)
{
	run_all_matching(ffu_test_devices[1], "reduce", ALL, true);
	run_all_matching(ffu_test_devices[1], "sumcheck", ALL, true);
}

/*
 * Every program, in tests per device that the suite's parallel jobs can run side by side.
 * The default run takes the small fields and the two 256-bit fields ZKX uses on both
 * devices, and the pairing base fields' programs on Rusticl (seconds there); the deep run's
 * deep_* tests (tests/meson.build) the other 256-bit fields (the same template with other
 * constants) and the 381-bit and Fq2 programs on PoCL (283 s and 111 s of a cold run on 2
 * cores: PoCL compiles their work-group functions at length), and BLS12-381's Fq2 on
 * Rusticl (85 s). test_field_device runs every op of each of them one kernel at a time in
 * the default run's pocl and rusticl tests or the deep run's montn tests.
 */
Test(pipeline, pocl, .timeout = 1200)
{
	run_all_matching(ffu_test_devices[0], "", SMALL_FIELDS, false);
}

Test(pipeline, pocl_256bit, .timeout = 1200)
{
	run_all_matching(ffu_test_devices[0], "", ZKX_256, false);
}

Test(pipeline, deep_pocl_256bit_other, .timeout = 1200)
{
	run_all_matching(ffu_test_devices[0], "", OTHER_256, false);
}

Test(pipeline, deep_pocl_pairing_base, .timeout = 1500)
{
	run_all_matching(ffu_test_devices[0], "", PAIRING_BASE, false);
}

Test(pipeline, deep_pocl_bls12_381_fq2, .timeout = 1500)
{
	run_all_matching(ffu_test_devices[0], "", BLS12_381_FQ2, false);
}

Test(pipeline, rusticl, .timeout = 1200)
{
	run_all_matching(ffu_test_devices[1], "", SMALL_FIELDS, false);
}

Test(pipeline, rusticl_256bit, .timeout = 1200)
{
	run_all_matching(ffu_test_devices[1], "", ZKX_256, false);
}

Test(pipeline, rusticl_256bit_other, .timeout = 1200)
{
	run_all_matching(ffu_test_devices[1], "", OTHER_256, false);
}

Test(pipeline, rusticl_pairing_base, .timeout = 1500)
{
	run_all_matching(ffu_test_devices[1], "", PAIRING_BASE, false);
}

Test(pipeline, deep_rusticl_bls12_381_fq2, .timeout = 1500)
{
	run_all_matching(ffu_test_devices[1], "", BLS12_381_FQ2, false);
}

/* 64-bit limbs where a 256-bit kernel runs in loops on a CPU (ffu__codegen_field_opts), not elsewhere */
Test(pipeline, limb64_for_loop_kernels)
{
	static const char *const quotient =
		"HloModule t\nENTRY %main (x: bn254_sf[64], y: bn254_sf[64]) -> bn254_sf[64] {\n"
		"  %x = bn254_sf[64] parameter(0)\n  %y = bn254_sf[64] parameter(1)\n"
		"  ROOT %q = bn254_sf[64] divide(%x, %y)\n}\n";
	static const char *const product =
		"HloModule t\nENTRY %main (x: bn254_sf[64], y: bn254_sf[64]) -> bn254_sf[64] {\n"
		"  %x = bn254_sf[64] parameter(0)\n  %y = bn254_sf[64] parameter(1)\n"
		"  ROOT %q = bn254_sf[64] multiply(%x, %y)\n}\n";
	const char *def = "#define FFU_MONT256_LIMB64 1\n";
	int wl = 0;
	char *s = ffu_test_generate(quotient, 4, &wl);
	cr_expect_eq(wl, 256);
	cr_expect(strstr(s, def), "CPU divide without 64-bit limbs");
	free(s);
	s = ffu_test_generate(quotient, 1, &wl);
	cr_expect_null(strstr(s, def), "GPU divide with 64-bit limbs");
	free(s);
	s = ffu_test_generate(product, 4, &wl);
	cr_expect_null(strstr(s, def), "element-wise product with 64-bit limbs");
	free(s);
}

/* The text of tests/programs.c's program `name` at length n (malloc'd). */
static char *program_text(const char *name, long long n)
{
	for (int p = 0; p < ffu_test_n_programs; p++)
		if (strcmp(ffu_test_programs[p].name, name) == 0) {
			char *text = ffu_test_program_text(&ffu_test_programs[p], n);
			cr_assert(text);
			return text;
		}
	cr_assert_fail("no program %s", name);
	return NULL;
}

/*
 * The target's class, not its lanes, decides the reductions' fold and the extensions'
 * containers: a CPU with one lane keeps both, a GPU with four lanes gets neither.
 */
Test(pipeline, class_not_lanes_decides_fold_and_containers)
{
	char *text = program_text("sumcheck_rows_babybearx4", 1000);
	const char *serial = "if (lid == 0) {\n\t\tfor (ulong s = 1; s < wg; s++)";
	const char *w64 = "#define FFU_EXT_W64";
	ffu_target t;
	ffu__target_generic(&t, FFU_DEVICE_CLASS_CPU, 1);
	char *s = ffu_test_generate_for(text, &t, NULL, NULL);
	cr_expect(strstr(s, serial), "a CPU with one lane folds serially");
	cr_expect(strstr(s, w64), "a CPU with one lane keeps 64-bit containers");
	cr_expect_null(strstr(s, "_wide("), "one lane: no wide kernel");
	free(s);
	ffu__target_generic(&t, FFU_DEVICE_CLASS_GPU, 4);
	s = ffu_test_generate_for(text, &t, NULL, NULL);
	cr_expect_null(strstr(s, serial), "a GPU with four lanes folds by a tree");
	cr_expect(strstr(s, "for (ulong s = wg / 2; s > 0; s >>= 1)"), "a GPU with four lanes folds by a tree");
	cr_expect_null(strstr(s, w64), "a GPU with four lanes keeps 32-bit containers");
	free(s);
	free(text);
}

/*
 * goldilocksx2 fusions of add/sub/neg/multiply get a wide kernel in vectors of 8 on CPU
 * devices (codegen.c: vector_field), and only there: not on GPUs, not for fields that
 * vectorise without it, not for ops outside the list. The values are checked by the
 * device runs above (chain_goldilocksx2).
 */
Test(pipeline, vector_kernels_where_they_apply)
{
	char *text = program_text("chain_goldilocksx2", 1000);
	int wl = 0;
	char *cpu = ffu_test_generate(text, 4, &wl), *gpu = ffu_test_generate(text, 1, &wl);
	const char *wide = strstr(cpu, "__kernel void ffu_k0_wide(");
	cr_assert(wide, "no wide kernel:\n%s", cpu);
	cr_assert(strstr(wide, "goldilocksx2_v8_mul("), "%s", wide);
	cr_assert(strstr(wide, "goldilocksx2_v8_store(out0, i,"), "%s", wide);
	cr_assert_null(strstr(strstr(wide, "{"), "goldilocksx2_mul("), "scalar product in the vector kernel:\n%s", wide);
	cr_assert(strstr(cpu, "#define FP goldilocks_v8\n") && strstr(cpu, "#define FP goldilocksx2_v8\n"));
	cr_assert_null(strstr(gpu, "_v8"), "a vector instance on a GPU profile");
	cr_assert_null(strstr(gpu, "ffu_k0_wide"));
	free(cpu);
	free(gpu);
	free(text);

	static const char *const none[] = {
		/* babybearx4 vectorises across work-items as it is */
		"HloModule t\nENTRY %main (x: babybearx4[64], y: babybearx4[64]) -> babybearx4[64] {\n"
		"  %x = babybearx4[64] parameter(0)\n  %y = babybearx4[64] parameter(1)\n"
		"  ROOT %m = babybearx4[64] multiply(%x, %y)\n}\n",
		/* an inversion takes the batch lanes (codegen/wide.c) */
		"HloModule t\nENTRY %main (x: goldilocksx2[64], y: goldilocksx2[64]) -> goldilocksx2[64] {\n"
		"  %x = goldilocksx2[64] parameter(0)\n  %y = goldilocksx2[64] parameter(1)\n"
		"  %i = goldilocksx2[64] inverse(%x)\n  ROOT %m = goldilocksx2[64] multiply(%i, %y)\n}\n",
		/* a slice reads at another index */
		"HloModule t\nENTRY %main (x: goldilocksx2[64]) -> goldilocksx2[32] {\n"
		"  %x = goldilocksx2[64] parameter(0)\n"
		"  %s = goldilocksx2[32] slice(%x), slice={[0:32]}\n  ROOT %m = goldilocksx2[32] multiply(%s, %s)\n}\n"};
	for (size_t k = 0; k < sizeof none / sizeof none[0]; k++) {
		char *s = ffu_test_generate(none[k], 4, &wl);
		cr_assert_null(strstr(s, "_v8"), "case %zu: a vector instance:\n%s", k, s);
		cr_assert_neq(wl, 8, "case %zu", k);
		free(s);
	}
}

/*
 * A planned body (codegen/body.h) printed per variant: the names a variant spells
 * differently are holes, so lane r suffixes locals, indices and the temporary, a vector
 * instance renames its field's and its prime's functions and types, and an inversion is a
 * statement of its own that the lanes print as one batch.
 */
static const ffu_field *elem_named(const char *name)
{
	for (int id = 0; id < FFU_ELEM_COUNT; id++) {
		const ffu_field *f = ffu__field_get((ffu_field_id)id);
		if (f && strcmp(f->name, name) == 0)
			return f;
	}
	return NULL;
}

Test(pipeline, body_printer_styles)
{
	const ffu_field *gx2 = elem_named("goldilocksx2"), *bb = elem_named("babybear");
	cr_assert(gx2 && bb);
	ffu_body b;
	ffu__body_init(&b, "i");
	ffu__body_def(&b, gx2, FFU_VF_C, 3, FFU_SOP_LOAD, FFU_OP_PARAMETER);
	ffu__body_printf(&b, " = %F(in0, %I);\n", gx2, "load", 0);
	ffu__body_def(&b, gx2, FFU_VF_M, 4, FFU_SOP_OP, FFU_OP_MULTIPLY);
	ffu__body_printf(&b, " = %F(%L, %F(0x5u));\n\t%T[%d] = %L;\n", gx2, "mul", 'c', 3, gx2->prime, "make", 1, 'm', 4);
	cr_assert_eq(b.nstmt, 3, "a newline inside the text ends a statement");
	cr_expect_eq(b.stmt[1].kind, FFU_STMT_DEF);
	cr_expect_eq(b.stmt[2].kind, FFU_STMT_TEXT, "text after a newline is a statement of its own");
	ffu_vform vf;
	int v;
	cr_expect(ffu__body_stmt_operand(&b, 1, 0, &vf, &v) && vf == FFU_VF_C && v == 3, "the product reads c3");
	cr_expect_not(ffu__body_stmt_operand(&b, 1, 1, &vf, &v), "and nothing else");
	cr_expect(ffu__body_stmt_operand(&b, 2, 0, &vf, &v) && vf == FFU_VF_M && v == 4);
	ffu_strbuf sb = {0};
	ffu__body_print(&sb, &b, &ffu__body_scalar);
	cr_expect_str_eq(ffu__sb_cstr(&sb), "\tgoldilocksx2_t c3 = goldilocksx2_load(in0, i);\n"
					     "\tgoldilocksx2_t m4 = goldilocksx2_mul(c3, goldilocks_make(0x5u));\n"
					     "\tt_[1] = m4;\n");
	ffu__sb_free(&sb);
	ffu__body_print(&sb, &b, &(ffu_body_style){2, NULL, 0});
	cr_expect_str_eq(ffu__sb_cstr(&sb), "\tgoldilocksx2_t c3_2 = goldilocksx2_load(in0, i_2);\n"
					     "\tgoldilocksx2_t m4_2 = goldilocksx2_mul(c3_2, goldilocks_make(0x5u));\n"
					     "\tt__2[1] = m4_2;\n");
	ffu__sb_free(&sb);
	ffu__wide_print_vector(&sb, &b, gx2, 8);
	cr_expect_str_eq(ffu__sb_cstr(&sb), "\tgoldilocksx2_v8_t c3 = goldilocksx2_v8_load(in0, i);\n"
					     "\tgoldilocksx2_v8_t m4 = goldilocksx2_v8_mul(c3, goldilocks_v8_make(0x5u));\n"
					     "\tt_[1] = m4;\n");
	ffu__sb_free(&sb);
	ffu__body_free(&b);

	/* an inversion: one statement in one lane, a batch over the lanes, read from c5 */
	ffu__body_init(&b, "i");
	ffu__body_inv(&b, &(ffu_inv_stmt){bb, FFU_VF_W, 7, FFU_VF_C, 5});
	ffu__body_def(&b, bb, FFU_VF_C, 7, FFU_SOP_OP, FFU_OP_DIVIDE);
	ffu__body_printf(&b, " = %F(%L, %L);\n", bb, "mul", 'c', 6, 'w', 7);
	cr_expect(b.stmt[0].kind == FFU_STMT_INV && ffu__body_stmt_operand(&b, 0, 0, &vf, &v) && vf == FFU_VF_C && v == 5,
		  "an inversion reads its operand");
	ffu__body_print(&sb, &b, &ffu__body_scalar);
	cr_expect_str_eq(ffu__sb_cstr(&sb), "\t/*ffu_inv babybear babybear_t w7 m5 c5*/ babybear_t w7 = babybear_inv(m5);\n"
					     "\tbabybear_t c7 = babybear_mul(c6, w7);\n");
	ffu__sb_free(&sb);
	ffu__wide_print_lanes(&sb, &b, 2);
	const char *t = ffu__sb_cstr(&sb);
	cr_expect(strstr(t, "\t/* w7 = c5^-1 in 2 lanes: one inversion */\n\tbabybear_t w7_0;\n\tbabybear_t w7_1;\n"), "%s", t);
	cr_expect(strstr(t, "a_ = babybear_from_mont(a_);"), "a canonical operand gets the fix-up: %s", t);
	cr_expect(strstr(t, "\tbabybear_t c7_0 = babybear_mul(c6_0, w7_0);\n\tbabybear_t c7_1 = babybear_mul(c6_1, w7_1);\n"),
		  "%s", t);
	ffu__sb_free(&sb);
	ffu__body_free(&b);
}

/*
 * The statement plan (codegen/body.h) of a loop fusion, as ffu__body_print_plan reads it
 * from the typed statements (no OpenCL text is involved): one line per statement,
 * "<kind> <destination> <what> (<operands>) @<index variables read at>", e.g.
 * "def m3 to_mont (c3)", "def c4 load @x1" (i is the kernel's own index).
 */
static char *plan_of(const char *text)
{
	ffu_error e = {0};
	ffu_module *m = NULL;
	cr_assert_eq(ffu__hlo_parse(&m, text, strlen(text), "t", &e), FFU_STATUS_OK, "%s", e.message);
	ffu_pass_opts po = {.fuse = true};
	cr_assert_eq(ffu__passes_run(m, &po, &e), FFU_STATUS_OK, "%s", e.message);
	ffu_target t;
	ffu__target_generic(&t, FFU_DEVICE_CLASS_GPU, 1);
	ffu_strbuf cl = {0}, sb = {0};
	ffu_program_kernels pk = {.keep_bodies = true};
	cr_assert_eq(ffu__codegen_program_kernels(&cl, m, &t, &pk, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert(pk.n >= 1 && pk.fusions[0].n_bodies == 1, "one loop fusion first");
	ffu__body_print_plan(&sb, &pk.fusions[0].bodies[0], "");
	char *out = strdup(ffu__sb_cstr(&sb));
	cr_assert(out);
	ffu__sb_free(&sb);
	ffu__sb_free(&cl);
	ffu__program_kernels_free(&pk);
	ffu__module_free(m);
	return out;
}

Test(pipeline, statement_plan)
{
	static const struct {
		const char *what, *program, *plan;
	} cases[] = {
		/* the simplify pass makes x * x a square; BabyBear's canonical product (mulc) takes
		   two canonical operands with no conversion when neither feeds another product (and
		   no scalar is read: no zero index x1) */
		{"x*x - x over BabyBear: mulc, no conversion",
		 "HloModule t\nENTRY %main {\n  %x = babybear[64] parameter(0)\n  %m = babybear[64] multiply(%x, %x)\n"
		 "  ROOT %r = babybear[64] subtract(%m, %x)\n}\n",
		 "def c2 load @i\ndef c1 square (c2 c2)\ndef c0 subtract (c1 c2)\nstore 0 (c0) @i\n"},
		/* a field without mulc: x R * x / R = x^2, canonical, so the subtraction takes it as it is */
		{"x*x - x over BN254: one conversion, one product",
		 "HloModule t\nENTRY %main {\n  %x = bn254_sf[64] parameter(0)\n  %m = bn254_sf[64] multiply(%x, %x)\n"
		 "  ROOT %r = bn254_sf[64] subtract(%m, %x)\n}\n",
		 "def c2 load @i\ndef m2 to_mont (c2)\ndef c1 square (m2 c2)\ndef c0 subtract (c1 c2)\nstore 0 (c0) @i\n"},
		{"x * y * y * y: y converted once, each product canonical",
		 "HloModule t\nENTRY %main {\n  %x = babybear[64] parameter(0)\n  %y = babybear[64] parameter(1)\n"
		 "  %a = babybear[64] multiply(%x, %y)\n  %b = babybear[64] multiply(%a, %y)\n"
		 "  ROOT %c = babybear[64] multiply(%b, %y)\n}\n",
		 "def c4 load @i\ndef c2 load @i\ndef m2 to_mont (c2)\ndef c3 multiply (c4 m2)\n"
		 "def c1 multiply (c3 m2)\ndef c0 multiply (c1 m2)\nstore 0 (c0) @i\n"},
		{"a _mont parameter is loaded in Montgomery form, squared and stored as it is",
		 "HloModule t\nENTRY %main {\n  %x = babybear_mont[64] parameter(0)\n"
		 "  ROOT %m = babybear_mont[64] multiply(%x, %x)\n}\n",
		 "def m1 load @i\ndef m0 square (m1)\nstore 0 (m0) @i\n"},
		/* the inversion names the canonical operand (a batch spares each lane its conversion)
		   and a Montgomery form exists for the one-lane statement */
		{"divide: an inversion of the divisor, then one product",
		 "HloModule t\nENTRY %main {\n  %a = bn254_sf[64] parameter(0)\n  %b = bn254_sf[64] parameter(1)\n"
		 "  ROOT %d = bn254_sf[64] divide(%a, %b)\n}\n",
		 "def c1 load @i\ndef c2 load @i\ndef m2 to_mont (c2)\ninv w0 (c2)\ndef c0 divide (c1 w0)\nstore 0 (c0) @i\n"},
		{"a broadcast scalar read at the zero index (x1), a slice at i + 32 (x2)",
		 "HloModule t\nENTRY %main {\n  %x = goldilocks[64] parameter(0)\n  %s = goldilocks[] parameter(1)\n"
		 "  %b = goldilocks[32] broadcast(%s), dimensions={}\n  %h = goldilocks[32] slice(%x), slice={[32:64]}\n"
		 "  ROOT %r = goldilocks[32] add(%h, %b)\n}\n",
		 "index x1\nindex x2\ndef c4 load @x1\ndef c3 load @x2\ndef c0 add (c3 c4)\nstore 0 (c0) @i\n"},
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		char *plan = plan_of(cases[k].program);
		cr_expect_str_eq(plan, cases[k].plan, "%s:\n%s", cases[k].what, plan);
		free(plan);
	}
}

/*
 * Invariants of every statement list of tests/programs.c (loop fusions' bodies, reductions'
 * stage 1 and stage 2, for a CPU target: with wide variants): each value is defined at most
 * once in each form, every local a statement reads was defined by an earlier statement (a
 * definition or an inversion), and the generator's own lines (TEXT) read no value: what
 * computes is typed.
 */
Test(pipeline, statement_plan_invariants)
{
	ffu_error e = {0};
	ffu_target t;
	ffu__target_generic(&t, FFU_DEVICE_CLASS_CPU, 4);
	int checked = 0, reductions = 0;
	for (int p = 0; p < ffu_test_n_programs; p++) {
		char *text = ffu_test_program_text(&ffu_test_programs[p], 1000);
		ffu_module *m = NULL;
		cr_assert_eq(ffu__hlo_parse(&m, text, strlen(text), "t", &e), FFU_STATUS_OK, "%s", e.message);
		ffu_pass_opts po = {.fuse = true};
		cr_assert_eq(ffu__passes_run(m, &po, &e), FFU_STATUS_OK, "%s", e.message);
		ffu_strbuf cl = {0};
		ffu_program_kernels pk = {.keep_bodies = true};
		cr_assert_eq(ffu__codegen_program_kernels(&cl, m, &t, &pk, &e), FFU_STATUS_OK, "%s", e.message);
		const char *name = ffu_test_programs[p].name;
		for (int f = 0; f < pk.n; f++) {
			const ffu_fusion_kernels *fk = &pk.fusions[f];
			cr_expect_eq(fk->n_bodies, fk->reduction ? 2 : fk->fft || fk->msm || fk->fusion->fusion_kind == FFU_FUSION_DOT ? 0 : 1,
				     "%s: fusion %d keeps %d bodies", name, f, fk->n_bodies);
			reductions += fk->reduction;
			for (int bi = 0; bi < fk->n_bodies; bi++, checked++) {
				const ffu_body *b = &fk->bodies[bi];
				/* defined[v]: the forms value v has so far (bit 0 c, 1 m, 2 w) */
				int nv = 0;
				for (int k = 0; k < b->nstmt; k++) {
					ffu_vform fm;
					int v;
					nv = b->stmt[k].dst >= nv ? b->stmt[k].dst + 1 : nv;
					for (int j = 0; ffu__body_stmt_operand(b, k, j, &fm, &v); j++)
						nv = v >= nv ? v + 1 : nv;
				}
				unsigned char *defined = calloc((size_t)nv + 1, 1);
				cr_assert(defined);
				for (int k = 0; k < b->nstmt; k++) {
					const ffu_stmt *st = &b->stmt[k];
					ffu_vform fm;
					int v;
					for (int j = 0; ffu__body_stmt_operand(b, k, j, &fm, &v); j++) {
						cr_expect_neq(st->kind, FFU_STMT_TEXT, "%s: statement %d reads %c%d", name, k, fm, v);
						int bit = fm == FFU_VF_C ? 1 : fm == FFU_VF_M ? 2 : 4;
						cr_expect(defined[v] & bit, "%s: statement %d reads %c%d before it is defined", name,
							  k, (char)fm, v);
					}
					if (st->kind == FFU_STMT_DEF || st->kind == FFU_STMT_INV) {
						int bit = st->form == FFU_VF_C ? 1 : st->form == FFU_VF_M ? 2 : 4;
						cr_expect_not(defined[st->dst] & bit, "%s: %c%d defined twice", name,
							      (char)st->form, st->dst);
						defined[st->dst] |= bit;
					}
				}
				free(defined);
			}
		}
		ffu__program_kernels_free(&pk);
		ffu__sb_free(&cl);
		ffu__module_free(m);
		free(text);
	}
	cr_expect_geq(checked, ffu_test_n_programs, "bodies checked: %d", checked);
	cr_expect_geq(reductions, 5, "reductions among them: %d", reductions);
	ffu_error_clear(&e);
}

/* The argument kinds of a descriptor, one letter each (kernel.h), e.g. "iio". */
static void arg_kinds(char *buf, const ffu_kernel_desc *d)
{
	static const char letter[] = {[FFU_ARG_INPUT] = 'i',  [FFU_ARG_OUTPUT] = 'o', [FFU_ARG_PARTIAL_OUT] = 'p',
				      [FFU_ARG_PARTIAL_IN] = 'q', [FFU_ARG_LOCAL] = 'l',  [FFU_ARG_STRIDE] = 's',
				      [FFU_ARG_R] = 'R',          [FFU_ARG_GF] = 'F',     [FFU_ARG_G] = 'G'};
	for (int i = 0; i < d->n_args; i++)
		buf[i] = letter[d->args[i].kind];
	buf[d->n_args] = '\0';
}

/*
 * Kernel descriptors: the kernels of loop fusions with each wide variant (lanes in
 * lockstep, a vector instance, inversion loops) and of a reduction, in launch order, with
 * their argument slots, and every signature in the program printed from them.
 */
Test(pipeline, kernel_descriptors)
{
	static const struct {
		const char *program;
		int n;
		const char *name[3], *args[3];
		ffu_kernel_role role[3];
		int lanes[3];
		ffu_kernel_variant variant[3];
	} cases[] = {
		{"shared_intermediate", 2, {"ffu_k0_wide", "ffu_k0"}, {"iios", "iio"},
		 {FFU_KERNEL_WIDE, FFU_KERNEL_LOOP}, {4, 1}, {FFU_VARIANT_LANES, FFU_VARIANT_SCALAR}},
		{"sumcheck_rows", 3, {"ffu_k0", "ffu_k0_tail", "ffu_k0_final"}, {"iiippplllRFG", "iiippplllRFG", "iiiqqqoooG"},
		 {FFU_KERNEL_STAGE1, FFU_KERNEL_TAIL, FFU_KERNEL_FINAL}, {8, 1, 1}},
		{"chain_goldilocksx2", 2, {"ffu_k0_wide", "ffu_k0"}, {"iios", "iio"},
		 {FFU_KERNEL_WIDE, FFU_KERNEL_LOOP}, {8, 1}, {FFU_VARIANT_VECTOR, FFU_VARIANT_SCALAR}},
		/* a program of tests/programs.c by name, or HLO text: a 256-bit divide inverts in loops */
		{"HloModule t\nENTRY %main {\n  %a = bn254_sf[64] parameter(0)\n  %b = bn254_sf[64] parameter(1)\n"
		 "  ROOT %d = bn254_sf[64] divide(%a, %b)\n}\n",
		 2, {"ffu_k0_wide", "ffu_k0"}, {"iios", "iio"},
		 {FFU_KERNEL_WIDE, FFU_KERNEL_LOOP}, {256, 1}, {FFU_VARIANT_INV_LOOPS, FFU_VARIANT_SCALAR}},
	};
	ffu_target t;
	ffu__target_generic(&t, FFU_DEVICE_CLASS_CPU, 4);
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		const bool hlo = strncmp(cases[c].program, "HloModule", 9) == 0;
		char *text = hlo ? strdup(cases[c].program) : program_text(cases[c].program, 1000);
		ffu_program_kernels pk = {0};
		char *src = ffu_test_generate_for(text, &t, NULL, &pk);
		cr_assert_geq(pk.n, 1, "%s", cases[c].program);
		const ffu_fusion_kernels *fk = &pk.fusions[0];
		cr_assert_eq(fk->n_kernels, cases[c].n, "%s", cases[c].program);
		for (int k = 0; k < fk->n_kernels; k++) {
			const ffu_kernel_desc *d = &fk->kernels[k];
			char kinds[64], sig[512];
			arg_kinds(kinds, d);
			cr_expect_str_eq(d->name, cases[c].name[k]);
			cr_expect_str_eq(kinds, cases[c].args[k], "%s", d->name);
			cr_expect_eq(d->role, cases[c].role[k], "%s", d->name);
			cr_expect_eq(d->lanes, cases[c].lanes[k], "%s", d->name);
			cr_expect_eq(d->variant, cases[c].variant[k], "%s", d->name);
			cr_expect_eq(ffu__fusion_kernel(fk, d->role), d);
			ffu_strbuf sb = {0};
			ffu__kernel_print_signature(&sb, d);
			snprintf(sig, sizeof sig, "%s", ffu__sb_cstr(&sb));
			ffu__sb_free(&sb);
			cr_expect(strstr(src, sig), "%s: the program has no signature\n%s", d->name, sig);
		}
		ffu__program_kernels_free(&pk);
		cr_expect_eq(pk.n, 0);
		free(src);
		free(text);
	}
}
