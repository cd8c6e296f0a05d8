/*
 * tests/test_dot_device.c: the `dot` op on PoCL and Rusticl (the host side and the GMP
 * oracle: test_dot.c). Every program runs fused and unfused against the interpreter, with
 * the kernel counts the fusion pass must reach (codegen/dot.c, passes/fusion.c): producers
 * of an operand read once per element fuse in front, element-wise consumers behind, an
 * operand read by several result elements keeps its producers apart. Types cover each
 * form path of the kernel's sum (canonical operands: one to_mont per element; Montgomery
 * ones: the sum stays Montgomery; the canonical templates; _mont twins converted at load),
 * 256-bit fields and extensions; CSR matrices with value offsets that are not 8-byte
 * aligned for the 64-bit fields (the values are read word by word), empty rows, NNZ 0 and
 * a full matrix. Then the API: ffu_program_run with a CSR input (and a damaged one
 * refused), an executable whose CSR input buffer is uploaded in the other form, and ZKX's
 * own CSR program given ZKX's bytes giving ZKX's bytes (GMP). A missing device fails,
 * never skips.
 */
#include <criterion/criterion.h>
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fieldfuse/executable.h"
#include "hlo/hlo.h"
#include "interp/interp.h"
#include "passes/passes.h"
#include "runtime/exec.h"
#include "support.h"

typedef struct dot_case {
	const char *name;
	const char *text;
	int fused_kernels, unfused_kernels; /* without passes/dot_reduce (its option 0) */
	bool reduces; /* passes/dot_reduce makes the dot a reduce when a target allows 4096 results */
} dot_case;

static const dot_case cases[] = {
	{"matvec_producer_consumer",
	 "HloModule a\nENTRY %m {\n %a = babybear[5,7] parameter(0)\n %b = babybear[5,7] parameter(1)\n"
	 " %v = babybear[7] parameter(2)\n %w = babybear[5] parameter(3)\n %x = babybear[5,7] multiply(%a, %b)\n"
	 " %d = babybear[5] dot(%x, %v), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
	 " ROOT %r = babybear[5] add(%d, %w)\n}\n",
	 1, 3},
	{"matvec_vector_producer_apart",
	 "HloModule b\nENTRY %m {\n %a = koalabear_mont[6,4] parameter(0)\n %v = koalabear_mont[4] parameter(1)\n"
	 " %s = koalabear_mont[4] multiply(%v, %v)\n"
	 " %d = koalabear_mont[6] dot(%a, %s), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
	 " ROOT %r = koalabear_mont[6] negate(%d)\n}\n",
	 2, 3},
	{"vecvec_both_fused_bn254",
	 "HloModule c\nENTRY %m {\n %x = bn254_sf[9] parameter(0)\n %y = bn254_sf[9] parameter(1)\n"
	 " %s = bn254_sf[9] subtract(%x, %y)\n %p = bn254_sf[9] multiply(%x, %y)\n"
	 " ROOT %d = bn254_sf[] dot(%s, %p), lhs_contracting_dims={0}, rhs_contracting_dims={0}\n}\n",
	 1, 3},
	{"matmat_mont_and_outputs",
	 "HloModule d\nENTRY %m {\n %x = babybear_mont[3,5] parameter(0)\n %y = babybear_mont[5,4] parameter(1)\n"
	 " %d = babybear_mont[3,4] dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
	 " %e = babybear_mont[3,4] multiply(%d, %d)\n"
	 " ROOT %t = (babybear_mont[3,4], babybear_mont[3,4]) tuple(%d, %e)\n}\n",
	 1, 2},
	/* long contractions, few results: passes/dot_reduce, where a target allows, makes them
	   reductions; the producers of both operands fuse into the reduction's loads */
	{"long_vecvec_producers",
	 "HloModule f\nENTRY %m {\n %x = babybear[5000] parameter(0)\n %y = babybear[5000] parameter(1)\n"
	 " %s = babybear[5000] subtract(%x, %y)\n"
	 " ROOT %d = babybear[] dot(%s, %y), lhs_contracting_dims={0}, rhs_contracting_dims={0}\n}\n",
	 1, 2, true},
	{"long_matvec_bn254",
	 "HloModule g\nENTRY %m {\n %a = bn254_sf[3,1500] parameter(0)\n %v = bn254_sf[1500] parameter(1)\n"
	 " %w = bn254_sf[1500] multiply(%v, %v)\n %c = bn254_sf[3] parameter(2)\n"
	 " %d = bn254_sf[3] dot(%a, %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
	 " ROOT %r = bn254_sf[3] add(%d, %c)\n}\n",
	 2, 3, true},
	{"long_matmat_goldilocks_mont",
	 "HloModule h\nENTRY %m {\n %x = goldilocks_mont[4,1024] parameter(0)\n %y = goldilocks_mont[1024,3] parameter(1)\n"
	 " ROOT %d = goldilocks_mont[4,3] dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n",
	 1, 1, true},
	/* long but contracted along the lhs's first dimension: stays a dot */
	{"long_transposed_stays",
	 "HloModule i\nENTRY %m {\n %x = koalabear[1100,2] parameter(0)\n %y = koalabear[1100] parameter(1)\n"
	 " ROOT %d = koalabear[2] dot(%x, %y), lhs_contracting_dims={0}, rhs_contracting_dims={0}\n}\n",
	 1, 1, false},
	{"batched_transposed_goldilocks_mont",
	 "HloModule e\nENTRY %m {\n %x = goldilocks_mont[4,2,3] parameter(0)\n %y = goldilocks_mont[2,5,4] parameter(1)\n"
	 " ROOT %d = goldilocks_mont[2,3,5] dot(%x, %y), lhs_batch_dims={1}, rhs_batch_dims={0}, "
	 "lhs_contracting_dims={0}, rhs_contracting_dims={2}\n}\n",
	 1, 1},
	{"two_contracting_mersenne31",
	 "HloModule f\nENTRY %m {\n %x = mersenne31[2,3,4] parameter(0)\n %y = mersenne31[4,3,2] parameter(1)\n"
	 " ROOT %d = mersenne31[2,2] dot(%x, %y), lhs_contracting_dims={1,2}, rhs_contracting_dims={1,0}\n}\n",
	 1, 1},
	{"outer_goldilocks",
	 "HloModule g\nENTRY %m {\n %x = goldilocks[5] parameter(0)\n %y = goldilocks[3] parameter(1)\n"
	 " ROOT %d = goldilocks[5,3] dot(%x, %y)\n}\n",
	 1, 1},
	{"scalar_babybearx4_mont",
	 "HloModule h\nENTRY %m {\n %x = babybearx4_mont[6] parameter(0)\n %y = babybearx4_mont[6] parameter(1)\n"
	 " %n = babybearx4_mont[6] negate(%x)\n"
	 " ROOT %d = babybearx4_mont[] dot(%n, %y), lhs_contracting_dims={0}, rhs_contracting_dims={0}\n}\n",
	 1, 2},
	{"matvec_goldilocksx3_empty_k",
	 "HloModule i\nENTRY %m {\n %x = goldilocksx3[4,0] parameter(0)\n %y = goldilocksx3[0] parameter(1)\n"
	 " %w = goldilocksx3[4] parameter(2)\n"
	 " %d = goldilocksx3[4] dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
	 " ROOT %r = goldilocksx3[4] add(%d, %w)\n}\n",
	 1, 2},
	{"matvec_large_babybear",
	 "HloModule j\nENTRY %m {\n %x = babybear[64,300] parameter(0)\n %y = babybear[300] parameter(1)\n"
	 " ROOT %d = babybear[64] dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n",
	 1, 1},
	/* ZKX's program; the values at word 5 + 8 */
	{"csr_zkx_babybear",
	 "HloModule k\nENTRY %main {\n  %x = babybear[4, 3]{1,0:D(D, C) NNZ(8)} parameter(0)\n"
	 "  %y = babybear[3] parameter(1)\n\n  ROOT %ret = babybear[4] dot(%x, %y)\n}\n",
	 1, 1},
	/* values at word 5 + 4 = 9: not 8-byte aligned for Goldilocks' ulong */
	{"csr_goldilocks_odd_offset_consumer",
	 "HloModule l\nENTRY %m {\n %x = goldilocks[4,3]{1,0:D(D, C) NNZ(4)} parameter(0)\n %y = goldilocks[3] parameter(1)\n"
	 " %w = goldilocks[4] parameter(2)\n %d = goldilocks[4] dot(%x, %y)\n"
	 " ROOT %r = goldilocks[4] multiply(%d, %w)\n}\n",
	 1, 2},
	{"csr_goldilocksx2_mont_matrix",
	 "HloModule n\nENTRY %m {\n %x = goldilocksx2_mont[6,5]{1,0:D(D, C) NNZ(7)} parameter(0)\n"
	 " %y = goldilocksx2_mont[3,5] parameter(1)\n"
	 " ROOT %d = goldilocksx2_mont[6,3] dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={1}\n}\n",
	 1, 1},
	{"csr_bn254_mont_full",
	 "HloModule o\nENTRY %m {\n %x = bn254_sf_mont[3,4]{1,0:D(D, C) NNZ(12)} parameter(0)\n"
	 " %y = bn254_sf_mont[4] parameter(1)\n ROOT %d = bn254_sf_mont[3] dot(%x, %y)\n}\n",
	 1, 1},
	{"csr_empty_mersenne31_mont",
	 "HloModule p\nENTRY %m {\n %x = mersenne31_mont[5,2]{1,0:D(D, C) NNZ(0)} parameter(0)\n"
	 " %y = mersenne31_mont[2] parameter(1)\n ROOT %d = mersenne31_mont[5] dot(%x, %y)\n}\n",
	 1, 1},
	{"csr_large_koalabearx4",
	 "HloModule q\nENTRY %m {\n %x = koalabearx4[200,300]{1,0:D(D, C) NNZ(3001)} parameter(0)\n"
	 " %y = koalabearx4[300] parameter(1)\n ROOT %d = koalabearx4[200] dot(%x, %y)\n}\n",
	 1, 1},
	/* the dot's result read by a reduce: that stays a kernel of its own */
	{"dot_then_reduce",
	 "HloModule r\n%sum (a: babybear[], b: babybear[]) -> babybear[] {\n %a = babybear[] parameter(0)\n"
	 " %b = babybear[] parameter(1)\n ROOT %s = babybear[] add(%a, %b)\n}\n"
	 "ENTRY %m {\n %x = babybear[8,16] parameter(0)\n %y = babybear[16,4] parameter(1)\n"
	 " %d = babybear[8,4] dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
	 " %z = babybear[] constant(0)\n ROOT %r = babybear[8] reduce(%d, %z), dimensions={1}, to_apply=%sum\n}\n",
	 2, 2},
};

static ffu_module *parse(const char *text)
{
	ffu_error e = {0};
	ffu_module *m = NULL;
	cr_assert_eq(ffu__hlo_parse(&m, text, strlen(text), "dot", &e), FFU_STATUS_OK, "%s\n%s", e.message, text);
	return m;
}

static void run_case(ffu_cl *cl, const dot_case *c, uint64_t seed)
{
	ffu_error e = {0};
	ffu_module *m0 = parse(c->text);
	int n_in = m0->entry->n_params, n_ref = 0;
	ffu_value *in = calloc((size_t)n_in + 1, sizeof *in), *ref = NULL;
	cr_assert(in);
	for (int i = 0; i < n_in; i++) {
		cr_assert_eq(ffu__value_alloc(&in[i], &m0->entry->params[i]->shape, &e), FFU_STATUS_OK, "%s", e.message);
		ffu__value_random(&in[i], &seed);
	}
	cr_assert_eq(ffu__interp_run(m0, in, n_in, &ref, &n_ref, &e), FFU_STATUS_OK, "%s", e.message);
	ffu__module_free(m0);
	/* fused and not, without and with passes/dot_reduce (a GPU target's 4096 results) */
	for (int v = 0; v < 4; v++) {
		const bool fuse = v & 1, dr = v >= 2;
		if (dr && !c->reduces && fuse == 0)
			continue; /* the same program as v = 0 */
		ffu_module *m = parse(c->text);
		ffu_pass_opts po = {.fuse = fuse, .dot_reduce_results = dr ? 4096 : 0};
		cr_assert_eq(ffu__passes_run(m, &po, &e), FFU_STATUS_OK, "%s", e.message);
		int dots = 0;
		for (int k = 0; k < m->n_comps; k++)
			for (int i = 0; i < m->comps[k]->n_insts; i++)
				dots += m->comps[k]->insts[i]->op == FFU_OP_DOT;
		cr_expect_eq(dots, dr && c->reduces ? 0 : 1, "%s: %d dots after the passes (dot_reduce %s)", c->name, dots,
			     dr ? "on" : "off");
		ffu_exec *x = NULL;
		cr_assert_eq(ffu__exec_create(&x, cl, m, &e), FFU_STATUS_OK, "%s on %s: %s\n%s", c->name, cl->dev.name,
			     e.message, e.build_log ? e.build_log : "");
		if (!dr)
			cr_expect_eq(ffu__exec_kernel_count(x), fuse ? c->fused_kernels : c->unfused_kernels,
				     "%s %s: %d kernels", c->name, fuse ? "fused" : "unfused", ffu__exec_kernel_count(x));
		ffu_value *out = NULL;
		int n_out = 0;
		cr_assert_eq(ffu__exec_upload(x, in, n_in, &e), FFU_STATUS_OK, "%s", e.message);
		cr_assert_eq(ffu__exec_run(x, NULL, NULL, &e), FFU_STATUS_OK, "%s", e.message);
		cr_assert_eq(ffu__exec_download(x, &out, &n_out, &e), FFU_STATUS_OK, "%s", e.message);
		cr_assert_eq(n_out, n_ref);
		for (int o = 0; o < n_out; o++) {
			size_t eb = ffu__shape_elem_bytes(&ref[o].shape);
			cr_assert_eq(out[o].bytes, ref[o].bytes);
			for (size_t i = 0; i < ref[o].bytes; i += eb)
				cr_assert(memcmp(out[o].data + i, ref[o].data + i, eb) == 0,
					  "%s %s%s on %s: output %d element %zu differs from the interpreter", c->name,
					  fuse ? "fused" : "unfused", dr ? ", dot_reduce" : "", cl->dev.name, o, i / eb);
		}
		ffu__values_free(out, n_out);
		ffu__exec_destroy(&x);
		ffu__module_free(m);
	}
	ffu__values_free(ref, n_ref);
	for (int i = 0; i < n_in; i++)
		ffu__value_free(&in[i]);
	free(in);
	ffu_error_clear(&e);
}

static void devices_run(const char *device)
{
	ffu_cl cl = {0};
	ffu_test_open_device(&cl, device);
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
		run_case(&cl, &cases[k], 40 + k);
	ffu__cl_close(&cl);
}

Test(dot_device, pocl, .timeout = 900)
{
	devices_run(ffu_test_devices[0]);
}

Test(dot_device, rusticl, .timeout = 900)
{
	devices_run(ffu_test_devices[1]);
}

/* ---- the API ---- */

static void put_u32(unsigned char *p, uint32_t v)
{
	for (int b = 0; b < 4; b++)
		p[b] = (unsigned char)(v >> (8 * b));
}

/*
 * babybear[3,4] NNZ(3) = [[0 2 0 3], [0 0 0 0], [5 0 0 0]] times y = (10, 11, 12, 13): 61, 0,
 * 50 by ffu_program_run and ffu_program_interpret; then damaged row pointers refused.
 */
static void program_run_csr(const char *device)
{
	static const char text[] = "ENTRY %m {\n %x = babybear[3,4]{1,0:D(D, C) NNZ(3)} parameter(0)\n"
				   " %y = babybear[4] parameter(1)\n ROOT %d = babybear[3] dot(%x, %y)\n}\n";
	ffu_program *p = NULL;
	ffu_device *d = NULL;
	ffu_error e = {0};
	cr_assert_eq(ffu_program_parse(&p, text, strlen(text), "csr.hlo", &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu_device_open(&d, device, &e), FFU_STATUS_OK, "%s", e.message);
	ffu_array_info info;
	cr_assert_eq(ffu_program_input(p, 0, &info), FFU_STATUS_OK);
	cr_assert_eq(info.nnz, 3);
	cr_assert_eq(info.bytes, 40u);
	static const uint32_t words[] = {0, 2, 2, 3, 3, 1, 0, 3, 2, 5}, ys[] = {10, 11, 12, 13};
	unsigned char x[40], y[16], out[12], ref[12];
	for (int k = 0; k < 10; k++)
		put_u32(x + 4 * k, words[k]);
	for (int k = 0; k < 4; k++)
		put_u32(y + 4 * k, ys[k]);
	const void *ins[2] = {x, y};
	void *outs[1] = {out}, *refs[1] = {ref};
	cr_assert_eq(ffu_program_run(d, p, NULL, ins, outs, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu_program_interpret(p, ins, refs, &e), FFU_STATUS_OK, "%s", e.message);
	static const uint32_t want[3] = {61, 0, 50};
	for (int k = 0; k < 3; k++) {
		unsigned char w[4];
		put_u32(w, want[k]);
		cr_expect(memcmp(out + 4 * k, w, 4) == 0 && memcmp(ref + 4 * k, w, 4) == 0, "row %d on %s", k, device);
	}
	put_u32(x + 8, 4); /* row_ptrs[2] = 4 > NNZ */
	cr_expect_eq(ffu_program_run(d, p, NULL, ins, outs, &e), FFU_STATUS_EINVAL);
	cr_expect(strstr(e.message, "input 0 (x) is not a CSR matrix as ZKX stores it: row_ptrs[2] is 4"), "%s", e.message);
	ffu_device_close(&d);
	ffu_program_destroy(&p);
	ffu_error_clear(&e);
}

/*
 * An executable's CSR input buffer (ffu_buffer_create_input) uploaded in Montgomery form:
 * the values are converted, the row pointers and columns copied; downloaded back in that
 * form, the same bytes; the run equals the interpreter's. Damaged columns are refused.
 */
static void executable_csr(const char *device)
{
	static const char text[] = "ENTRY %m {\n %x = goldilocks[5,3]{1,0:D(D, C) NNZ(6)} parameter(0)\n"
				   " %y = goldilocks[3] parameter(1)\n ROOT %d = goldilocks[5] dot(%x, %y)\n}\n";
	ffu_program *p = NULL;
	ffu_device *d = NULL;
	ffu_executable *xe = NULL;
	ffu_buffer *bx = NULL, *by = NULL, *bo = NULL;
	ffu_error e = {0};
	cr_assert_eq(ffu_program_parse(&p, text, strlen(text), "csr.hlo", &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu_device_open(&d, device, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu_executable_create(&xe, d, p, NULL, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu_buffer_create_input(&bx, xe, 0, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu_buffer_create_input(&by, xe, 1, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu_buffer_create_output(&bo, xe, 0, &e), FFU_STATUS_OK, "%s", e.message);
	/* canonical values by the interpreter's reading; the same matrix in Montgomery form */
	ffu_value in[2] = {0}, *ref = NULL;
	int n_ref = 0;
	uint64_t seed = 9;
	ffu_module *m = parse(text);
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(ffu__value_alloc(&in[i], &m->entry->params[i]->shape, &e), FFU_STATUS_OK);
		ffu__value_random(&in[i], &seed);
	}
	cr_assert_eq(ffu__interp_run(m, in, 2, &ref, &n_ref, &e), FFU_STATUS_OK, "%s", e.message);
	const ffu_field *f = ffu__shape_field(&in[0].shape), *fm = f->twin;
	size_t at = ffu__csr_values_offset(&in[0].shape);
	unsigned char *mont = malloc(in[0].bytes), *back = malloc(in[0].bytes), out[40];
	cr_assert(mont && back);
	memcpy(mont, in[0].data, at);
	for (int k = 0; k < 6; k++)
		ffu__fp_convert(fm, mont + at + 8 * k, f, in[0].data + at + 8 * k);
	cr_assert_eq(ffu_buffer_upload(bx, mont, in[0].bytes, FFU_FORM_MONTGOMERY, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu_buffer_upload(by, in[1].data, in[1].bytes, FFU_FORM_CANONICAL, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu_executable_run(xe, (const ffu_buffer *[]){bx, by}, 2, (ffu_buffer *[]){bo}, 1, NULL, &e),
		     FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu_buffer_download(bo, out, sizeof out, FFU_FORM_CANONICAL, &e), FFU_STATUS_OK, "%s", e.message);
	cr_expect(memcmp(out, ref[0].data, sizeof out) == 0, "the run on %s differs from the interpreter", device);
	cr_assert_eq(ffu_buffer_download(bx, back, in[0].bytes, FFU_FORM_MONTGOMERY, &e), FFU_STATUS_OK, "%s", e.message);
	cr_expect(memcmp(back, mont, in[0].bytes) == 0, "the CSR buffer read back in Montgomery form");
	cr_assert_eq(ffu_buffer_download(bx, back, in[0].bytes, FFU_FORM_CANONICAL, &e), FFU_STATUS_OK, "%s", e.message);
	cr_expect(memcmp(back, in[0].data, in[0].bytes) == 0, "the CSR buffer read back canonical");
	put_u32(mont + 4 * 6 + 4 * 2, 3); /* col_indices[2] = 3, the matrix has 3 columns */
	cr_expect_eq(ffu_buffer_upload(bx, mont, in[0].bytes, FFU_FORM_MONTGOMERY, &e), FFU_STATUS_EINVAL);
	cr_expect(strstr(e.message, "ffu_buffer_upload: not a CSR matrix as ZKX stores it: col_indices[2] is 3"), "%s",
		  e.message);
	free(mont);
	free(back);
	ffu__values_free(ref, n_ref);
	ffu__value_free(&in[0]);
	ffu__value_free(&in[1]);
	ffu__module_free(m);
	ffu_buffer_destroy(&bx);
	ffu_buffer_destroy(&by);
	ffu_buffer_destroy(&bo);
	ffu_executable_destroy(&xe);
	ffu_device_close(&d);
	ffu_program_destroy(&p);
	ffu_error_clear(&e);
}

/*
 * ZKX's own program (tests/zkx/programs: FieldTest.CSRMatrixVectorMultiplication over
 * bn254_sf) read as ZKX 2026-01 reads it, a plain name meaning Montgomery form, given
 * ZKX's bytes: CSR rows with Montgomery values (x 2^256 mod p) as SparseMatrix::ToCSRBuffer
 * writes them, y likewise; the output must be ZKX's bytes, the Montgomery form of each
 * row's sum, computed here with GMP.
 */
static void zkx_bytes(const char *device)
{
	char *path = ffu_test_path("tests/zkx/programs/cpu_field__FieldTest.CSRMatrixVectorMultiplication__bn254_sf.hlo");
	size_t len = 0;
	char *text = ffu_test_read_file(path, &len);
	cr_assert(text, "%s", path);
	ffu_program *p = NULL;
	ffu_device *d = NULL;
	ffu_error e = {0};
	ffu_parse_options po = {.dialect = FFU_DIALECT_ZKX_2026_01};
	cr_assert_eq(ffu_program_parse_with(&p, text, len, path, &po, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu_device_open(&d, device, &e), FFU_STATUS_OK, "%s", e.message);
	ffu_array_info xi, yi, oi;
	cr_assert_eq(ffu_program_input(p, 0, &xi), FFU_STATUS_OK);
	cr_assert_eq(ffu_program_input(p, 1, &yi), FFU_STATUS_OK);
	cr_assert_eq(ffu_program_output(p, 0, &oi), FFU_STATUS_OK);
	cr_assert_str_eq(xi.type, "bn254_sf_mont");
	cr_assert(xi.nnz == 8 && xi.dims[0] == 4 && xi.dims[1] == 3 && yi.count == 3 && oi.count == 4);
	/* the matrix: row 0 columns 2, 0; row 1 empty; row 2 columns 0, 1, 2; row 3 columns 1, 0, 2 */
	static const uint32_t rows[] = {0, 2, 2, 5, 8}, cols[] = {2, 0, 0, 1, 2, 1, 0, 2};
	mpz_t P, R, v[8], yv[3], acc, t;
	mpz_inits(P, R, acc, t, NULL);
	mpz_set_str(P, "30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001", 16);
	mpz_set_ui(R, 1);
	mpz_mul_2exp(R, R, 256);
	unsigned char *x = calloc(xi.bytes, 1), y[96], out[128], want[32];
	cr_assert(x && xi.bytes == 20 + 32 + 8 * 32);
	for (int k = 0; k < 5; k++)
		put_u32(x + 4 * k, rows[k]);
	for (int k = 0; k < 8; k++)
		put_u32(x + 20 + 4 * k, cols[k]);
	for (int k = 0; k < 8; k++) { /* values k^40 + 7 mod p: all 256 bits in use */
		mpz_init(v[k]);
		mpz_ui_pow_ui(v[k], (unsigned long)k + 2, 40);
		mpz_add_ui(v[k], v[k], 7);
		mpz_mod(v[k], v[k], P);
		mpz_mul(t, v[k], R);
		mpz_mod(t, t, P);
		mpz_export(x + 52 + 32 * k, NULL, -1, 1, 0, 0, t);
	}
	memset(y, 0, sizeof y);
	for (int k = 0; k < 3; k++) {
		mpz_init(yv[k]);
		mpz_sub_ui(yv[k], P, (unsigned long)(1000 + k)); /* -1000 - k */
		mpz_mul(t, yv[k], R);
		mpz_mod(t, t, P);
		mpz_export(y + 32 * k, NULL, -1, 1, 0, 0, t);
	}
	const void *ins[2] = {x, y};
	void *outs[1] = {out};
	cr_assert_eq(ffu_program_run(d, p, NULL, ins, outs, &e), FFU_STATUS_OK, "%s", e.message);
	for (int r = 0; r < 4; r++) {
		mpz_set_ui(acc, 0);
		for (uint32_t k = rows[r]; k < rows[r + 1]; k++)
			mpz_addmul(acc, v[k], yv[cols[k]]);
		mpz_mul(acc, acc, R);
		mpz_mod(acc, acc, P);
		memset(want, 0, sizeof want);
		mpz_export(want, NULL, -1, 1, 0, 0, acc);
		cr_expect(memcmp(out + 32 * r, want, 32) == 0, "row %d on %s: not ZKX's bytes", r, device);
	}
	for (int k = 0; k < 8; k++)
		mpz_clear(v[k]);
	for (int k = 0; k < 3; k++)
		mpz_clear(yv[k]);
	mpz_clears(P, R, acc, t, NULL);
	free(x);
	free(text);
	free(path);
	ffu_device_close(&d);
	ffu_program_destroy(&p);
	ffu_error_clear(&e);
}

Test(dot_device, api_pocl, .timeout = 300)
{
	program_run_csr(ffu_test_devices[0]);
	executable_csr(ffu_test_devices[0]);
	zkx_bytes(ffu_test_devices[0]);
}

Test(dot_device, api_rusticl, .timeout = 300)
{
	program_run_csr(ffu_test_devices[1]);
	executable_csr(ffu_test_devices[1]);
	zkx_bytes(ffu_test_devices[1]);
}
