/*
 * runtime/exec.c: running a fused module on a device (see exec.h). Every entry
 * instruction maps to a slot of device buffers: parameters, array constants and fusion
 * outputs own theirs; get-tuple-element and tuple alias them.
 */
#include "runtime/exec.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen.h"
#include "codegen/field_cl.h"
#include "device/profile.h"
#include "runtime/cl_fault.h"
#include "util/strbuf.h"

/* How a reduction fusion is spread over the device (codegen.c: emit_reduce_kernels). */
typedef struct red_plan {
	size_t O, R;      /* output elements; reduced elements per output */
	size_t wg, L;     /* work-group size (a power of two); elements per work-item */
	size_t Gf, G;     /* whole chunks of wg * L per output; partials per output (Gf + tail) */
	cl_kernel tail;   /* stage 1 for the elements after the whole chunks */
	cl_kernel final;  /* stage 2 */
	cl_mem *partials; /* one buffer of O * G accumulators per output */
	size_t *lm_bytes; /* local scratch per output for a work-group */
	int n_out;
} red_plan;

typedef struct dslot {
	int n;
	cl_mem *mem;  /* n buffers */
	bool owned;
} dslot;

struct ffu_exec {
	ffu_cl *cl;
	const ffu_module *m;
	ffu_strbuf source;
	cl_program program;
	int n_kernels;
	cl_kernel *kernels;
	const ffu_inst **kernel_inst; /* the fusion instruction of each kernel */
	cl_kernel *wide;              /* its wide variant (codegen.h), or NULL */
	int *lanes;                   /* elements per work-item of the wide variant */
	red_plan *red;                /* reduction fusions' plans (n_out = 0 for loop fusions) */
	int profile_lanes;
	dslot *slots;                 /* per entry instruction */
	size_t device_bytes;
};

/*
 * Saturates at SIZE_MAX: shapes come from user text and may hold up to 2^63 elements, so
 * count * element bytes can wrap, and a wrapped size would pass the memory checks below
 * and launch a kernel over far more elements than its buffer holds.
 */
static size_t value_bytes(const ffu_shape *s)
{
	uint64_t n = (uint64_t)ffu__shape_count(s), eb = ffu__shape_elem_bytes(s);
	if (eb && n > SIZE_MAX / eb)
		return SIZE_MAX;
	return (size_t)(n * eb);
}

/* "123 bytes", or "more than 2^64 bytes" for a saturated size; buf of 48 bytes. */
static const char *bytes_str(char *buf, size_t b)
{
	if (b == SIZE_MAX)
		snprintf(buf, 48, "more than %zu bytes", b);
	else
		snprintf(buf, 48, "%zu bytes", b);
	return buf;
}

static ffu_status alloc_slot(ffu_exec *x, dslot *d, const ffu_shape *s, ffu_error *e)
{
	d->n = s->type == FFU_TYPE_TUPLE ? s->n_elems : 1;
	d->owned = true;
	d->mem = calloc((size_t)d->n + 1, sizeof *d->mem);
	if (!d->mem)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	for (int k = 0; k < d->n; k++) {
		const ffu_shape *es = s->type == FFU_TYPE_TUPLE ? &s->elems[k] : s;
		ffu_status st = ffu__cl_buffer(x->cl, &d->mem[k], value_bytes(es), e);
		if (st)
			return st;
		x->device_bytes += value_bytes(es);
	}
	return FFU_STATUS_OK;
}

static ffu_status alias_slot(dslot *d, const cl_mem *src, int n, ffu_error *e)
{
	d->n = n;
	d->owned = false;
	d->mem = calloc((size_t)n + 1, sizeof *d->mem);
	if (!d->mem)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	if (src)
		memcpy(d->mem, src, sizeof(cl_mem) * (size_t)n);
	return FFU_STATUS_OK;
}

/* Refuses programs whose buffers cannot all fit, before allocating anything. */
static ffu_status check_memory(const ffu_exec *x, ffu_error *e)
{
	const ffu_computation *c = x->m->entry;
	size_t total = 0;
	char b1[48];
	for (int i = 0; i < c->n_insts; i++) {
		const ffu_inst *in = c->insts[i];
		if (in->op != FFU_OP_PARAMETER && in->op != FFU_OP_CONSTANT && in->op != FFU_OP_FUSION)
			continue;
		int n = in->shape.type == FFU_TYPE_TUPLE ? in->shape.n_elems : 1;
		for (int k = 0; k < n; k++) {
			const ffu_shape *es = in->shape.type == FFU_TYPE_TUPLE ? &in->shape.elems[k] : &in->shape;
			size_t b = value_bytes(es);
			if (b > x->cl->dev.max_alloc)
				return ffu__err(e, FFU_STATUS_ELIMIT,
						"%s needs a buffer of %s; %s allows at most %llu per buffer",
						in->name, bytes_str(b1, b), x->cl->dev.name,
						(unsigned long long)x->cl->dev.max_alloc);
			total = b > SIZE_MAX - total ? SIZE_MAX : total + b;
		}
	}
	if (total > x->cl->dev.global_mem)
		return ffu__err(e, FFU_STATUS_ELIMIT, "program needs %s of device memory; %s has %llu",
				bytes_str(b1, total), x->cl->dev.name, (unsigned long long)x->cl->dev.global_mem);
	return FFU_STATUS_OK;
}

static size_t pow2_floor(size_t v)
{
	size_t p = 1;
	while (p <= v / 2)
		p *= 2;
	return p;
}

/*
 * Work distribution of reduction k (codegen.c: emit_stage1): a power-of-two work-group
 * (the tree halves it), no larger than the kernel, the device, local memory or the
 * reduced extent allow; the main kernel over the whole chunks of wg * L elements of each
 * output element, the tail kernel over the rest. Stage 2 folds G partials per output in
 * one work-item: G = R / (wg L) stays small next to R.
 */
static ffu_status plan_reduction(ffu_exec *x, int k, ffu_error *e)
{
	const ffu_inst *fu = x->kernel_inst[k];
	const ffu_computation *fc = fu->callee;
	const ffu_inst *root = fc->root;
	const ffu_inst *const *outs = root->op == FFU_OP_TUPLE ? (const ffu_inst *const *)root->operands
							       : (const ffu_inst *const *)&fc->root;
	red_plan *rp = &x->red[k];
	rp->n_out = root->op == FFU_OP_TUPLE ? root->n_operands : 1;
	rp->O = (size_t)ffu__shape_count(&outs[0]->shape);
	rp->R = rp->O ? (size_t)ffu__shape_count(&outs[0]->operands[0]->shape) / rp->O : 0;
	rp->L = (size_t)ffu__codegen_reduce_unroll(fu);
	rp->partials = calloc((size_t)rp->n_out, sizeof *rp->partials);
	rp->lm_bytes = calloc((size_t)rp->n_out, sizeof *rp->lm_bytes);
	if (!rp->partials || !rp->lm_bytes)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	char name[48];
	ffu__codegen_final_kernel_name(name, k);
	ffu_status st = ffu__cl_kernel(x->program, &rp->final, name, e);
	if (st == FFU_STATUS_OK) {
		ffu__codegen_tail_kernel_name(name, k);
		st = ffu__cl_kernel(x->program, &rp->tail, name, e);
	}
	if (st)
		return st;
	size_t kmax = 0, tmax = 0, lm_per_item = 0;
	cl_int err = FFU_CL(clGetKernelWorkGroupInfo, x->kernels[k], x->cl->dev.device, CL_KERNEL_WORK_GROUP_SIZE,
			    sizeof kmax, &kmax, NULL);
	if (err == CL_SUCCESS)
		err = FFU_CL(clGetKernelWorkGroupInfo, rp->tail, x->cl->dev.device, CL_KERNEL_WORK_GROUP_SIZE,
			     sizeof tmax, &tmax, NULL);
	if (err != CL_SUCCESS)
		return ffu__err_cl(e, "clGetKernelWorkGroupInfo", err, "CL_KERNEL_WORK_GROUP_SIZE of %s", name);
	for (int o = 0; o < rp->n_out; o++)
		lm_per_item += 4 * ffu__cl_words(ffu__shape_field(&outs[o]->shape)->base);
	size_t wg = 256;
	if (kmax && wg > kmax)
		wg = kmax;
	if (tmax && wg > tmax)
		wg = tmax;
	if (x->cl->dev.max_wg && wg > x->cl->dev.max_wg)
		wg = x->cl->dev.max_wg;
	while (wg > 1 && wg * lm_per_item > x->cl->dev.local_mem / 2)
		wg /= 2;
	wg = pow2_floor(wg);
	while (wg > 1 && wg / 2 >= rp->R)
		wg /= 2; /* a short row needs no more work-items than elements */
	rp->wg = wg;
	rp->Gf = rp->R / (wg * rp->L);
	rp->G = rp->Gf + (rp->R % (wg * rp->L) != 0 || rp->Gf == 0);
	for (int o = 0; o < rp->n_out; o++) {
		size_t eb = ffu__shape_elem_bytes(&outs[o]->shape);
		rp->lm_bytes[o] = wg * 4 * ffu__cl_words(ffu__shape_field(&outs[o]->shape)->base);
		if (rp->O == 0)
			continue;
		if ((st = ffu__cl_buffer(x->cl, &rp->partials[o], rp->O * rp->G * eb, e)))
			return st;
		x->device_bytes += rp->O * rp->G * eb;
	}
	return FFU_STATUS_OK;
}

ffu_status ffu__exec_create(ffu_exec **out, ffu_cl *cl, const ffu_module *m, ffu_error *e)
{
	ffu_status st = FFU_STATUS_ENOMEM;
	const ffu_computation *c = m->entry;
	*out = NULL;
	ffu_exec *x = calloc(1, sizeof *x);
	if (!x)
		return ffu__err(e, st, "out of memory");
	x->cl = cl;
	x->m = m;
	x->slots = calloc((size_t)c->n_insts + 1, sizeof *x->slots);
	x->kernels = calloc((size_t)c->n_insts + 1, sizeof *x->kernels);
	x->kernel_inst = calloc((size_t)c->n_insts + 1, sizeof *x->kernel_inst);
	x->wide = calloc((size_t)c->n_insts + 1, sizeof *x->wide);
	x->lanes = calloc((size_t)c->n_insts + 1, sizeof *x->lanes);
	x->red = calloc((size_t)c->n_insts + 1, sizeof *x->red);
	if (!x->slots || !x->kernels || !x->kernel_inst || !x->wide || !x->lanes || !x->red) {
		st = ffu__err(e, st, "out of memory");
		goto fail;
	}
	if ((st = check_memory(x, e)))
		goto fail;

	int n_kernels = 0;
	ffu_profile prof;
	ffu__profile_for(&prof, &cl->dev);
	x->profile_lanes = prof.lanes;
	if ((st = ffu__codegen_program(&x->source, m, prof.lanes, &n_kernels, e)))
		goto fail;
	if (n_kernels > 0) {
		if ((st = ffu__cl_build(cl, &x->program, ffu__sb_cstr(&x->source), NULL, e)))
			goto fail;
	}
	for (int i = 0; i < c->n_insts; i++) {
		const ffu_inst *in = c->insts[i];
		dslot *d = &x->slots[i];
		switch (in->op) {
		case FFU_OP_PARAMETER:
			st = alloc_slot(x, d, &in->shape, e);
			break;
		case FFU_OP_CONSTANT:
			st = alloc_slot(x, d, &in->shape, e);
			if (st == FFU_STATUS_OK)
				st = ffu__cl_write(cl, d->mem[0], in->literal, value_bytes(&in->shape), e);
			break;
		case FFU_OP_FUSION: {
			char name[32];
			int k = x->n_kernels++;
			ffu__codegen_kernel_name(name, k);
			x->kernel_inst[k] = in;
			x->lanes[k] = ffu__codegen_kernel_lanes(in, x->profile_lanes);
			st = ffu__cl_kernel(x->program, &x->kernels[k], name, e);
			if (st == FFU_STATUS_OK && ffu__codegen_is_reduction(in))
				st = plan_reduction(x, k, e);
			else if (st == FFU_STATUS_OK && x->lanes[k] > 1) {
				char wide[40];
				ffu__codegen_wide_kernel_name(wide, k);
				st = ffu__cl_kernel(x->program, &x->wide[k], wide, e);
			}
			if (st == FFU_STATUS_OK)
				st = alloc_slot(x, d, &in->shape, e);
			break;
		}
		case FFU_OP_GET_TUPLE_ELEMENT:
			st = alias_slot(d, &x->slots[in->operands[0]->id].mem[in->index], 1, e);
			break;
		case FFU_OP_TUPLE:
			st = alias_slot(d, NULL, in->n_operands, e);
			for (int k = 0; st == FFU_STATUS_OK && k < in->n_operands; k++)
				d->mem[k] = x->slots[in->operands[k]->id].mem[0];
			break;
		default:
			st = ffu__err(e, FFU_STATUS_EUNSUPPORTED,
				      "%s: %s outside a fusion cannot run on a device (run the fusion pass first)",
				      in->name, ffu__ops[in->op].keyword);
			break;
		}
		if (st)
			goto fail;
	}
	*out = x;
	return FFU_STATUS_OK;
fail:
	ffu__exec_destroy(&x);
	return st;
}

void ffu__exec_destroy(ffu_exec **xp)
{
	ffu_exec *x = *xp;
	if (!x)
		return;
	if (x->slots) {
		for (int i = 0; i < x->m->entry->n_insts; i++) {
			dslot *d = &x->slots[i];
			for (int k = 0; d->owned && k < d->n; k++)
				ffu__cl_buffer_release(&d->mem[k]);
			free(d->mem);
		}
	}
	for (int k = 0; x->kernels && k < x->n_kernels; k++) {
		ffu__cl_kernel_release(&x->kernels[k]);
		if (x->wide)
			ffu__cl_kernel_release(&x->wide[k]);
	}
	for (int k = 0; x->red && k < x->n_kernels; k++) {
		red_plan *rp = &x->red[k];
		ffu__cl_kernel_release(&rp->final);
		ffu__cl_kernel_release(&rp->tail);
		for (int o = 0; rp->partials && o < rp->n_out; o++)
			ffu__cl_buffer_release(&rp->partials[o]);
		free(rp->partials);
		free(rp->lm_bytes);
	}
	free(x->red);
	ffu__cl_program_release(&x->program);
	ffu__sb_free(&x->source);
	free(x->slots);
	free(x->kernels);
	free(x->kernel_inst);
	free(x->wide);
	free(x->lanes);
	free(x);
	*xp = NULL;
}

ffu_status ffu__exec_upload(ffu_exec *x, const ffu_value *inputs, int n_inputs, ffu_error *e)
{
	const ffu_computation *c = x->m->entry;
	if (n_inputs != c->n_params)
		return ffu__err(e, FFU_STATUS_EINVAL, "program takes %d inputs, %d given", c->n_params, n_inputs);
	for (int p = 0; p < c->n_params; p++) {
		const ffu_inst *in = c->params[p];
		if (!ffu__shape_eq(&inputs[p].shape, &in->shape)) {
			char want[128], got[128];
			ffu__shape_format(&in->shape, want, sizeof want);
			ffu__shape_format(&inputs[p].shape, got, sizeof got);
			return ffu__err(e, FFU_STATUS_EINVAL, "input %d (%s): expected %s, got %s", p, in->name,
					want, got);
		}
		ffu_status st = ffu__cl_write(x->cl, x->slots[in->id].mem[0], inputs[p].data, inputs[p].bytes, e);
		if (st)
			return st;
	}
	return FFU_STATUS_OK;
}

/* Binds a fusion's buffers (inputs, then outputs) to kernel k's first arguments. */
static ffu_status bind(ffu_exec *x, cl_kernel k, const ffu_inst *fu, cl_uint *arg, ffu_error *e)
{
	ffu_status st = FFU_STATUS_OK;
	const dslot *outs = &x->slots[fu->id];
	for (int j = 0; j < fu->n_operands && st == FFU_STATUS_OK; j++)
		st = ffu__cl_set_arg(k, (*arg)++, sizeof(cl_mem), &x->slots[fu->operands[j]->id].mem[0], e);
	for (int o = 0; o < outs->n && st == FFU_STATUS_OK; o++)
		st = ffu__cl_set_arg(k, (*arg)++, sizeof(cl_mem), &outs->mem[o], e);
	return st;
}

/*
 * Kernel k over n elements: the wide variant over n / lanes work-items (stride n / lanes),
 * then the narrow one over the n % lanes elements left, at their offset. ev holds both.
 */
static ffu_status launch(ffu_exec *x, int k, size_t n, ffu_launch_events ev[2], ffu_error *e)
{
	const ffu_inst *fu = x->kernel_inst[k];
	cl_uint arg = 0;
	size_t lanes = (size_t)x->lanes[k], items = lanes > 1 ? n / lanes : 0;
	ffu_status st = FFU_STATUS_OK;
	if (items > 0) {
		cl_ulong stride = items;
		st = bind(x, x->wide[k], fu, &arg, e);
		if (st == FFU_STATUS_OK)
			st = ffu__cl_set_arg(x->wide[k], arg, sizeof stride, &stride, e);
		if (st == FFU_STATUS_OK)
			st = ffu__cl_launch(x->cl, x->wide[k], items, 0, &ev[0], e);
	}
	size_t done = items * (lanes > 1 ? lanes : 1);
	arg = 0;
	if (st == FFU_STATUS_OK && done < n)
		st = bind(x, x->kernels[k], fu, &arg, e);
	if (st == FFU_STATUS_OK && done < n)
		st = ffu__cl_launch_at(x->cl, x->kernels[k], done, n - done, 0, &ev[1], e);
	return st;
}

/* Binds stage-1 kernel k1's arguments: inputs, partials, local scratch, R, Gf, G. */
static ffu_status bind_stage1(ffu_exec *x, const ffu_inst *fu, const red_plan *rp, cl_kernel k1, ffu_error *e)
{
	cl_ulong R = rp->R, Gf = rp->Gf, G = rp->G;
	cl_uint arg = 0;
	ffu_status st = FFU_STATUS_OK;
	for (int j = 0; j < fu->n_operands && st == FFU_STATUS_OK; j++)
		st = ffu__cl_set_arg(k1, arg++, sizeof(cl_mem), &x->slots[fu->operands[j]->id].mem[0], e);
	for (int o = 0; o < rp->n_out && st == FFU_STATUS_OK; o++)
		st = ffu__cl_set_arg(k1, arg++, sizeof(cl_mem), &rp->partials[o], e);
	for (int o = 0; o < rp->n_out && st == FFU_STATUS_OK; o++)
		st = ffu__cl_set_arg(k1, arg++, rp->lm_bytes[o], NULL, e);
	if (st == FFU_STATUS_OK)
		st = ffu__cl_set_arg(k1, arg++, sizeof R, &R, e);
	if (st == FFU_STATUS_OK)
		st = ffu__cl_set_arg(k1, arg++, sizeof Gf, &Gf, e);
	if (st == FFU_STATUS_OK)
		st = ffu__cl_set_arg(k1, arg++, sizeof G, &G, e);
	return st;
}

/*
 * Reduction k: the main stage-1 kernel over O * Gf work-groups, the tail over O (when
 * there is a rest), then stage 2 over O work-items. ev holds two launches: the tail's
 * events go with stage 2's (an in-order queue: first start and last end are what count).
 */
static ffu_status launch_reduction(ffu_exec *x, int k, ffu_launch_events ev[2], ffu_error *e)
{
	const ffu_inst *fu = x->kernel_inst[k];
	const red_plan *rp = &x->red[k];
	cl_kernel k2 = rp->final;
	cl_ulong G = rp->G;
	cl_uint arg = 0;
	ffu_status st = FFU_STATUS_OK;
	if (rp->O == 0)
		return FFU_STATUS_OK;
	if (rp->Gf > 0) {
		st = bind_stage1(x, fu, rp, x->kernels[k], e);
		if (st == FFU_STATUS_OK)
			st = ffu__cl_launch(x->cl, x->kernels[k], rp->O * rp->Gf * rp->wg, rp->wg, &ev[0], e);
	}
	if (st == FFU_STATUS_OK && rp->G > rp->Gf) {
		ffu_launch_events tev = {0};
		st = bind_stage1(x, fu, rp, rp->tail, e);
		if (st == FFU_STATUS_OK)
			st = ffu__cl_launch(x->cl, rp->tail, rp->O * rp->wg, rp->wg, rp->Gf > 0 ? &tev : &ev[0], e);
		ffu__cl_launch_events_release(&tev);
	}
	for (int j = 0; j < fu->n_operands && st == FFU_STATUS_OK; j++)
		st = ffu__cl_set_arg(k2, arg++, sizeof(cl_mem), &x->slots[fu->operands[j]->id].mem[0], e);
	for (int o = 0; o < rp->n_out && st == FFU_STATUS_OK; o++)
		st = ffu__cl_set_arg(k2, arg++, sizeof(cl_mem), &rp->partials[o], e);
	for (int o = 0; o < rp->n_out && st == FFU_STATUS_OK; o++)
		st = ffu__cl_set_arg(k2, arg++, sizeof(cl_mem), &x->slots[fu->id].mem[o], e);
	if (st == FFU_STATUS_OK)
		st = ffu__cl_set_arg(k2, arg++, sizeof G, &G, e);
	if (st == FFU_STATUS_OK)
		st = ffu__cl_launch(x->cl, k2, rp->O, 0, &ev[1], e);
	return st;
}

ffu_status ffu__exec_run(ffu_exec *x, double *kernel_ms, ffu_timer *timer, ffu_error *e)
{
	ffu_status st = FFU_STATUS_OK;
	double host_start = ffu__now_ms();
	int n_events = 2 * x->n_kernels;
	ffu_launch_events *events = calloc((size_t)n_events + 1, sizeof *events);
	if (!events)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	for (int k = 0; k < x->n_kernels && st == FFU_STATUS_OK; k++) {
		if (x->red[k].n_out > 0) {
			st = launch_reduction(x, k, &events[2 * k], e);
			continue;
		}
		const ffu_computation *fc = x->kernel_inst[k]->callee;
		const ffu_inst *first_out = fc->root->op == FFU_OP_TUPLE ? fc->root->operands[0] : fc->root;
		size_t n = (size_t)ffu__shape_count(&first_out->shape);
		if (n > 0)
			st = launch(x, k, n, &events[2 * k], e);
	}
	if (st == FFU_STATUS_OK)
		st = ffu__cl_finish(x->cl, e);
	else
		/*
		 * Drain what went in before the failure (a kernel whose tail launch failed, earlier
		 * kernels): otherwise it is still queued when the caller destroys the exec, and its
		 * buffers and kernels stay alive until some later flush. The first error stands.
		 */
		(void)ffu__cl_finish(x->cl, NULL);
	double host_ms = ffu__now_ms() - host_start;
	if (timer)
		*timer = FFU_TIMER_EVENTS;
	if (st == FFU_STATUS_OK && kernel_ms) {
		/* in-order queue: from the first command's start to the last one's end */
		cl_ulong first = 0, last = 0;
		bool any = false;
		for (int k = 0; k < n_events && st == FFU_STATUS_OK; k++) {
			for (int i = 0; i < events[k].n && st == FFU_STATUS_OK; i++) {
				cl_ulong s, t;
				st = ffu__cl_event_times(events[k].ev[i], &s, &t, e);
				if (!any || s < first)
					first = s;
				if (!any || t > last)
					last = t;
				any = true;
			}
		}
		*kernel_ms = any ? (double)(last - first) * 1e-6 : 0.0;
		if (any && !ffu__cl_times_real(first, last)) {
			*kernel_ms = host_ms;
			if (timer)
				*timer = FFU_TIMER_HOST;
		}
	}
	for (int k = 0; k < n_events; k++)
		ffu__cl_launch_events_release(&events[k]);
	free(events);
	return st;
}

ffu_status ffu__exec_download(ffu_exec *x, ffu_value **outputs, int *n_outputs, ffu_error *e)
{
	const ffu_computation *c = x->m->entry;
	const ffu_inst *root = c->root;
	int n = root->shape.type == FFU_TYPE_TUPLE ? root->shape.n_elems : 1;
	*outputs = NULL;
	*n_outputs = 0;
	ffu_value *outs = calloc((size_t)n + 1, sizeof *outs);
	if (!outs)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	ffu_status st = FFU_STATUS_OK;
	for (int k = 0; k < n && st == FFU_STATUS_OK; k++) {
		const ffu_shape *s = root->shape.type == FFU_TYPE_TUPLE ? &root->shape.elems[k] : &root->shape;
		st = ffu__value_alloc(&outs[k], s, e);
		if (st == FFU_STATUS_OK && outs[k].bytes)
			st = ffu__cl_read(x->cl, x->slots[root->id].mem[k], outs[k].data, outs[k].bytes, e);
	}
	if (st) {
		for (int k = 0; k < n; k++)
			ffu__value_free(&outs[k]);
		free(outs);
		return st;
	}
	*outputs = outs;
	*n_outputs = n;
	return FFU_STATUS_OK;
}

int ffu__exec_kernel_count(const ffu_exec *x)
{
	return x->n_kernels;
}

const char *ffu__exec_source(const ffu_exec *x)
{
	return x->source.data ? x->source.data : "";
}

size_t ffu__exec_device_bytes(const ffu_exec *x)
{
	return x->device_bytes;
}
