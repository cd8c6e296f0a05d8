/*
 * codegen/plan_print.c: a program's kernel plans as text (`fieldfuse compile --emit plan`):
 * for each fusion, its kernels' descriptors (kernel.h: name, role, wide variant, lanes,
 * launch shape, argument slots) and, for a loop fusion, the statement list its kernels are
 * printed from (body.h). What a reader checks before reading the OpenCL C: which kernels a
 * fusion became, which variant each wide kernel is, where conversions and products are.
 */
#include "codegen/codegen.h"

#include <stdlib.h>

#include "codegen/body.h"

static const char *const role_names[] = {
	[FFU_KERNEL_LOOP] = "loop",          [FFU_KERNEL_WIDE] = "wide",
	[FFU_KERNEL_STAGE1] = "stage 1",     [FFU_KERNEL_TAIL] = "stage 1 tail",
	[FFU_KERNEL_FINAL] = "stage 2",      [FFU_KERNEL_FFT_TWIDDLES] = "ntt twiddles",
	[FFU_KERNEL_FFT_PASS] = "ntt pass",  [FFU_KERNEL_MSM_STEP] = "msm step",
};

static const char *const variant_names[] = {
	[FFU_VARIANT_SCALAR] = "scalar",
	[FFU_VARIANT_LANES] = "lanes in lockstep",
	[FFU_VARIANT_VECTOR] = "vector instance",
	[FFU_VARIANT_INV_LOOPS] = "inversion loops",
};

static void print_kernel(ffu_strbuf *sb, const ffu_kernel_desc *d)
{
	ffu__sb_printf(sb, "  kernel %s: %s", d->name, role_names[d->role]);
	if (d->role == FFU_KERNEL_WIDE)
		ffu__sb_printf(sb, ", %s", variant_names[d->variant]);
	if (d->role == FFU_KERNEL_FFT_PASS)
		ffu__sb_printf(sb, ", radix %d", d->lanes);
	else if (d->lanes > 1)
		ffu__sb_printf(sb, ", %d elements per work-item", d->lanes);
	if (d->items)
		ffu__sb_printf(sb, ", %zu work-items", d->items);
	if (d->wg)
		ffu__sb_printf(sb, " in groups of %zu", d->wg);
	if (d->once)
		ffu__sb_append(sb, ", once per executable");
	ffu__sb_append(sb, "\n    args ");
	ffu__kernel_print_args(sb, d, true);
	ffu__sb_append(sb, "\n");
}

ffu_status ffu__codegen_print_plans(ffu_strbuf *sb, const ffu_module *m, const ffu_target *t, ffu_error *e)
{
	ffu_strbuf cl = {0}; /* the program's text, printed from the plans, is not shown */
	ffu_program_kernels pk = {.keep_bodies = true};
	ffu_status st = ffu__codegen_program_kernels(&cl, m, t, &pk, e);
	ffu__sb_free(&cl);
	for (int k = 0; k < pk.n && st == FFU_STATUS_OK; k++) {
		const ffu_fusion_kernels *fk = &pk.fusions[k];
		const ffu_inst *in = fk->fusion;
		const char *kind = fk->fft ? "ntt" : fk->msm ? "msm" : fk->reduction ? "reduction"
				   : in->fusion_kind == FFU_FUSION_DOT ? "dot" : "loop";
		ffu__sb_printf(sb, "fusion %d: %%%s (%s, %s)\n", k, in->name, kind, in->callee->name);
		if (fk->scratch_bytes)
			ffu__sb_printf(sb, "  scratch: %zu bytes\n", fk->scratch_bytes);
		if (fk->twiddle_bytes)
			ffu__sb_printf(sb, "  twiddles: %zu bytes\n", fk->twiddle_bytes);
		for (int j = 0; j < fk->n_kernels; j++)
			print_kernel(sb, &fk->kernels[j]);
		/* NTT, dot and msm kernels are printed from plan records of their own (fft_impl.h,
		   dot.c, msm.c), not statement lists */
		for (int j = 0; j < fk->n_bodies; j++) {
			ffu__sb_printf(sb, "  %s:\n", !fk->reduction ? "statements" : j ? "stage 2 statements" : "stage 1 statements");
			ffu__body_print_plan(sb, &fk->bodies[j], "    ");
		}
	}
	ffu__program_kernels_free(&pk);
	return st ? st : ffu__sb_status(sb, e);
}
