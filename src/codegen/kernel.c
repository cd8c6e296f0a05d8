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

void ffu__kernel_print_args(ffu_strbuf *sb, const ffu_kernel_desc *d, bool names_only)
{
	static const char *const scalar[] = {[FFU_ARG_STRIDE] = "stride", [FFU_ARG_R] = "R", [FFU_ARG_GF] = "Gf",
					     [FFU_ARG_G] = "G"};
	for (int i = 0; i < d->n_args; i++) {
		const ffu_kernel_arg *a = &d->args[i];
		char tn[64], decl[96], name[64];
		const char *buf = "__global const uint *restrict ", *wbuf = "__global uint *restrict ";
		switch (a->kind) {
		case FFU_ARG_INPUT:
			snprintf(decl, sizeof decl, "%s", buf), snprintf(name, sizeof name, "in%d", a->index);
			break;
		case FFU_ARG_OUTPUT:
			snprintf(decl, sizeof decl, "%s", wbuf), snprintf(name, sizeof name, "out%d", a->index);
			break;
		case FFU_ARG_PARTIAL_OUT:
			snprintf(decl, sizeof decl, "%s", wbuf), snprintf(name, sizeof name, "part%d", a->index);
			break;
		case FFU_ARG_PARTIAL_IN:
			snprintf(decl, sizeof decl, "%s", buf), snprintf(name, sizeof name, "part%d", a->index);
			break;
		case FFU_ARG_SCRATCH_IN:
			snprintf(decl, sizeof decl, "%s", buf), snprintf(name, sizeof name, "src");
			break;
		case FFU_ARG_SCRATCH_OUT:
			snprintf(decl, sizeof decl, "%s", wbuf), snprintf(name, sizeof name, "dst");
			break;
		case FFU_ARG_TWIDDLES:
			snprintf(decl, sizeof decl, "%s", buf), snprintf(name, sizeof name, "tw");
			break;
		case FFU_ARG_TWIDDLES_OUT:
			snprintf(decl, sizeof decl, "%s", wbuf), snprintf(name, sizeof name, "tw");
			break;
		case FFU_ARG_SCRATCH:
			snprintf(decl, sizeof decl, "%s", wbuf), snprintf(name, sizeof name, "scr");
			break;
		case FFU_ARG_VALUE: /* its value is bound at launch; the plan shows it */
			snprintf(decl, sizeof decl, "const ulong "), snprintf(name, sizeof name, "%s", a->name);
			if (names_only)
				snprintf(name, sizeof name, "%s=%llu", a->name, (unsigned long long)a->value);
			break;
		case FFU_ARG_LOCAL:
			/* values in their device type: u32/u64/pred their own, fields their base's */
			if (a->f->kind == FFU_ELEM_UINT || a->f->kind == FFU_ELEM_PRED)
				snprintf(tn, sizeof tn, "%s_t", a->f->name);
			else
				ffu__cl_type_name(a->f->base, tn);
			snprintf(decl, sizeof decl, "__local %s *restrict ", tn), snprintf(name, sizeof name, "lm%d", a->index);
			break;
		default:
			snprintf(decl, sizeof decl, "const ulong "), snprintf(name, sizeof name, "%s", scalar[a->kind]);
			break;
		}
		ffu__sb_printf(sb, "%s%s%s", i ? ", " : "", names_only ? "" : decl, name);
	}
}
