/* codegen/kernel.c: kernel descriptors (see kernel.h). */
#include "codegen/kernel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/field_cl.h"

void ffu__program_kernels_free(ffu_program_kernels *p)
{
	for (int i = 0; p && i < p->n; i++) {
		for (int k = 0; k < p->fusions[i].n_kernels; k++)
			free(p->fusions[i].kernels[k].args);
		for (int k = 0; k < p->fusions[i].n_bodies; k++)
			ffu__body_free(&p->fusions[i].bodies[k]);
		free(p->fusions[i].bodies);
	}
	if (p) {
		free(p->fusions);
		p->fusions = NULL;
		p->n = 0;
	}
}

bool ffu__fusion_keep_body(ffu_fusion_kernels *fk, ffu_body *b)
{
	ffu_body *nb = realloc(fk->bodies, sizeof *nb * (size_t)(fk->n_bodies + 1));
	if (!nb)
		return false;
	fk->bodies = nb;
	nb[fk->n_bodies++] = *b;
	ffu__body_init(b, b->main_ix);
	return true;
}

const ffu_kernel_desc *ffu__fusion_kernel(const ffu_fusion_kernels *f, ffu_kernel_role role)
{
	for (int k = 0; k < f->n_kernels; k++)
		if (f->kernels[k].role == role)
			return &f->kernels[k];
	return NULL;
}

ffu_kernel_desc *ffu__kernel_add(ffu_fusion_kernels *fk, ffu_kernel_role role, int k, const char *suffix, int lanes,
			    int n_args)
{
	if (fk->n_kernels == FFU_MAX_FUSION_KERNELS)
		return NULL;
	ffu_kernel_desc *d = &fk->kernels[fk->n_kernels];
	memset(d, 0, sizeof *d);
	if (!(d->args = calloc((size_t)n_args + 1, sizeof *d->args)))
		return NULL;
	fk->n_kernels++;
	snprintf(d->name, sizeof d->name, "ffu_k%d%s", k, suffix);
	d->role = role;
	d->lanes = lanes;
	return d;
}

void ffu__kernel_slot(ffu_kernel_desc *d, ffu_arg_kind kind, int index, const ffu_field *f)
{
	d->args[d->n_args++] = (ffu_kernel_arg){kind, index, f, NULL, 0};
}

void ffu__kernel_value(ffu_kernel_desc *d, const char *name, uint64_t value)
{
	d->args[d->n_args++] = (ffu_kernel_arg){FFU_ARG_VALUE, 0, NULL, name, value};
}

/* Slots kind 0 .. n - 1. */
static void slots(ffu_kernel_desc *d, ffu_arg_kind kind, int n)
{
	for (int i = 0; i < n; i++)
		ffu__kernel_slot(d, kind, i, NULL);
}

bool ffu__kernels_loop(ffu_fusion_kernels *fk, const ffu_inst *fusion, int k, int n_out, ffu_kernel_variant wide,
			int wide_lanes)
{
	int n_in = fusion->callee->n_params;
	memset(fk, 0, sizeof *fk);
	fk->fusion = fusion;
	ffu_kernel_desc *d;
	if (wide != FFU_VARIANT_SCALAR) {
		if (!(d = ffu__kernel_add(fk, FFU_KERNEL_WIDE, k, "_wide", wide_lanes, n_in + n_out + 1)))
			return false;
		d->variant = wide;
		slots(d, FFU_ARG_INPUT, n_in);
		slots(d, FFU_ARG_OUTPUT, n_out);
		ffu__kernel_slot(d, FFU_ARG_STRIDE, 0, NULL);
	}
	if (!(d = ffu__kernel_add(fk, FFU_KERNEL_LOOP, k, "", 1, n_in + n_out)))
		return false;
	slots(d, FFU_ARG_INPUT, n_in);
	slots(d, FFU_ARG_OUTPUT, n_out);
	return true;
}

bool ffu__kernels_reduction(ffu_fusion_kernels *fk, const ffu_inst *fusion, int k, const ffu_inst *const *outs,
			    int n_out, int unroll)
{
	int n_in = fusion->callee->n_params;
	memset(fk, 0, sizeof *fk);
	fk->fusion = fusion;
	fk->reduction = true;
	for (int t = 0; t < 2; t++) {
		ffu_kernel_desc *d = ffu__kernel_add(fk, t ? FFU_KERNEL_TAIL : FFU_KERNEL_STAGE1, k, t ? "_tail" : "", t ? 1 : unroll,
					 n_in + 2 * n_out + 3);
		if (!d)
			return false;
		slots(d, FFU_ARG_INPUT, n_in);
		slots(d, FFU_ARG_PARTIAL_OUT, n_out);
		for (int o = 0; o < n_out; o++)
			ffu__kernel_slot(d, FFU_ARG_LOCAL, o, ffu__shape_field(&outs[o]->shape));
		ffu__kernel_slot(d, FFU_ARG_R, 0, NULL);
		ffu__kernel_slot(d, FFU_ARG_GF, 0, NULL);
		ffu__kernel_slot(d, FFU_ARG_G, 0, NULL);
	}
	ffu_kernel_desc *d = ffu__kernel_add(fk, FFU_KERNEL_FINAL, k, "_final", 1, n_in + 2 * n_out + 1);
	if (!d)
		return false;
	slots(d, FFU_ARG_INPUT, n_in);
	slots(d, FFU_ARG_PARTIAL_IN, n_out);
	slots(d, FFU_ARG_OUTPUT, n_out);
	ffu__kernel_slot(d, FFU_ARG_G, 0, NULL);
	return true;
}

void ffu__kernel_print_signature(ffu_strbuf *sb, const ffu_kernel_desc *d)
{
	ffu__sb_printf(sb, "__kernel void %s(", d->name);
	ffu__kernel_print_args(sb, d, false);
	ffu__sb_append(sb, ")\n{\n");
}

/* How each slot kind is declared and named in a kernel: its declaration's type, its name,
   and whether the slot's index follows the name (in0, out1, part2, lm0). FFU_ARG_VALUE is
   named by the slot, FFU_ARG_LOCAL typed by its value type. */
static const struct {
	const char *decl, *name;
	bool indexed;
} slot_text[] = {
#define RO "__global const uint *restrict "
#define RW "__global uint *restrict "
	[FFU_ARG_INPUT] = {RO, "in", true},        [FFU_ARG_OUTPUT] = {RW, "out", true},
	[FFU_ARG_PARTIAL_OUT] = {RW, "part", true}, [FFU_ARG_PARTIAL_IN] = {RO, "part", true},
	[FFU_ARG_LOCAL] = {NULL, "lm", true},      [FFU_ARG_STRIDE] = {"const ulong ", "stride", false},
	[FFU_ARG_R] = {"const ulong ", "R", false}, [FFU_ARG_GF] = {"const ulong ", "Gf", false},
	[FFU_ARG_G] = {"const ulong ", "G", false}, [FFU_ARG_SCRATCH_IN] = {RO, "src", false},
	[FFU_ARG_SCRATCH_OUT] = {RW, "dst", false}, [FFU_ARG_TWIDDLES] = {RO, "tw", false},
	[FFU_ARG_TWIDDLES_OUT] = {RW, "tw", false}, [FFU_ARG_SCRATCH] = {RW, "scr", false},
	[FFU_ARG_VALUE] = {"const ulong ", NULL, false},
#undef RO
#undef RW
};

void ffu__kernel_print_args(ffu_strbuf *sb, const ffu_kernel_desc *d, bool names_only)
{
	for (int i = 0; i < d->n_args; i++) {
		const ffu_kernel_arg *a = &d->args[i];
		ffu__sb_append(sb, i ? ", " : "");
		if (!names_only && a->kind == FFU_ARG_LOCAL) {
			/* values in their device type: u32/u64/pred their own, fields their base's */
			char tn[64];
			if (a->f->kind == FFU_ELEM_UINT || a->f->kind == FFU_ELEM_PRED)
				snprintf(tn, sizeof tn, "%s_t", a->f->name);
			else
				ffu__cl_type_name(a->f->base, tn);
			ffu__sb_printf(sb, "__local %s *restrict ", tn);
		} else if (!names_only) {
			ffu__sb_append(sb, slot_text[a->kind].decl);
		}
		if (a->kind == FFU_ARG_VALUE && names_only) /* bound at launch: the plan shows its value */
			ffu__sb_printf(sb, "%s=%llu", a->name, (unsigned long long)a->value);
		else if (a->kind == FFU_ARG_VALUE)
			ffu__sb_append(sb, a->name);
		else if (slot_text[a->kind].indexed)
			ffu__sb_printf(sb, "%s%d", slot_text[a->kind].name, a->index);
		else
			ffu__sb_append(sb, slot_text[a->kind].name);
	}
}
