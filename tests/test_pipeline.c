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

#include "hlo/hlo.h"
#include "interp/interp.h"
#include "passes/passes.h"
#include "programs.h"
#include "runtime/exec.h"
#include "support.h"

static const long long lengths[] = {1, 7, 1000, 65539};

/*
 * Random inputs whose first elements are the edge values 0, 1, p-1, p-2, with more zeros
 * scattered (every 61st element from the 64th on): wide kernels invert 4 or 16 elements
 * at once (codegen.c: emit_inv_batch), and a zero must come out as zero in any lane
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
 * Which programs a test runs: by name, or by their fields. The 256-bit programs take most
 * of a cold PoCL build's time, so they are two sets of their own (tests that the suite's
 * parallel jobs run side by side): over ZKX's bn254_sf / bls12_381_sf, and over the other
 * 256-bit fields (pallas, vesta, curve25519, secp256k1/r1, bn254_bf).
 */
typedef enum { ALL, SMALL_FIELDS, ZKX_256, OTHER_256 } program_set;

static program_set set_of(const test_program *tp)
{
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
 * Every program of `set` whose name contains name_part, at every length, fused and
 * unfused, and once with the whole pipeline; the interpreter runs once per program and
 * length (it is the costly half on the host: 256-bit inversions at 65539 elements).
 */
static void run_all_matching(const char *device, const char *name_part, program_set set)
{
	ffu_cl cl = {0};
	ffu_test_open_device(&cl, device);
	for (int p = 0; p < ffu_test_n_programs; p++) {
		const test_program *tp = &ffu_test_programs[p];
		if (!strstr(tp->name, name_part) || (set != ALL && set_of(tp) != set))
			continue;
		for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++) {
			if (ffu_test_program_max_n(tp) && lengths[l] > ffu_test_program_max_n(tp))
				continue;
			reference r;
			reference_make(&r, tp, lengths[l]);
			for (int fuse = 0; fuse < 2; fuse++)
				run_case(&cl, tp, &r, lengths[l], fuse, "simplify");
			if (l == 1) /* the whole pipeline, once per program */
				run_case(&cl, tp, &r, lengths[l], true, NULL);
			reference_free(&r);
		}
	}
	ffu__cl_close(&cl);
}

/*
 * CPU devices fold a work-group's partial sums serially (codegen.c: emit_stage1); GPUs
 * use a tree in local memory. With one lane the CPU devices get the GPU code, so both
 * paths run in CI on two OpenCL implementations.
 */
Test(pipeline, reductions_gpu_path_pocl, .timeout = 600)
{
	setenv("FIELDFUSE_LANES", "1", 1);
	run_all_matching(ffu_test_devices[0], "reduce", ALL);
	run_all_matching(ffu_test_devices[0], "sumcheck", ALL);
}

Test(pipeline, reductions_gpu_path_rusticl, .timeout = 600)
{
	setenv("FIELDFUSE_LANES", "1", 1);
	run_all_matching(ffu_test_devices[1], "reduce", ALL);
	run_all_matching(ffu_test_devices[1], "sumcheck", ALL);
}

/* Every program, in two tests per device that the suite's parallel jobs can run side by side. */
Test(pipeline, pocl, .timeout = 600)
{
	run_all_matching(ffu_test_devices[0], "", SMALL_FIELDS);
}

Test(pipeline, pocl_256bit, .timeout = 600)
{
	run_all_matching(ffu_test_devices[0], "", ZKX_256);
}

Test(pipeline, pocl_256bit_other, .timeout = 600)
{
	run_all_matching(ffu_test_devices[0], "", OTHER_256);
}

Test(pipeline, rusticl, .timeout = 600)
{
	run_all_matching(ffu_test_devices[1], "", SMALL_FIELDS);
}

Test(pipeline, rusticl_256bit, .timeout = 600)
{
	run_all_matching(ffu_test_devices[1], "", ZKX_256);
}

Test(pipeline, rusticl_256bit_other, .timeout = 600)
{
	run_all_matching(ffu_test_devices[1], "", OTHER_256);
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

/*
 * goldilocksx2 fusions of add/sub/neg/multiply get a wide kernel in vectors of 8 on CPU
 * devices (codegen.c: vector_field), and only there: not on GPUs, not for fields that
 * vectorise without it, not for ops outside the list. The values are checked by the
 * device runs above (chain_goldilocksx2).
 */
Test(pipeline, vector_kernels_where_they_apply)
{
	const test_program *tp = NULL;
	for (int p = 0; p < ffu_test_n_programs; p++)
		if (strcmp(ffu_test_programs[p].name, "chain_goldilocksx2") == 0)
			tp = &ffu_test_programs[p];
	cr_assert(tp);
	char *text = ffu_test_program_text(tp, 1000);
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
		/* an inversion takes the batch lanes (emit_inv_batch) */
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
