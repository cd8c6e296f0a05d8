/*
 * runtime/exec.c: running a fused module on a device (see exec.h). Every array value of
 * the entry (a parameter, a constant, each output of a fusion, each reduction's partial
 * sums) is one `xval` with a home: an input or output binding, a constant buffer, or a
 * buffer of the shared pool; entry instructions map to the values they produce
 * (get-tuple-element and tuple alias them).
 *
 * The pool is planned once at create by a linear scan over the kernels in launch order
 * (an interval-graph colouring, as register allocators do): a value is live from the kernel
 * that writes it to the last kernel that reads it; before kernel k the buffers whose value
 * died before k are free again, and each value written by k takes the smallest free buffer
 * big enough, else grows the largest free one, else a new one. A buffer read by kernel k is
 * never one that k writes (it is still live at k), so no kernel reads and writes one buffer.
 */
#include "runtime/exec_impl.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/target.h"
#include "ocl/ocl.h"

/* ---------------------------------------------------------------- kernels */

static size_t pow2_floor(size_t v)
{
	size_t p = 1;
	while (p <= v / 2)
		p *= 2;
	return p;
}

/* Fusion k's kernel of this role (the code generator gives a reduction all three). */
static xkernel *xkernel_of(ffu_exec *x, int k, ffu_kernel_role role)
{
	for (int i = 0; i < x->pk.fusions[k].n_kernels; i++)
		if (x->xk[FFU_MAX_FUSION_KERNELS * k + i].d->role == role)
			return &x->xk[FFU_MAX_FUSION_KERNELS * k + i];
	return NULL;
}

/*
 * Work distribution of reduction k (codegen/reduce.c: emit_stage1): a power-of-two work-group
 * (the tree halves it), no larger than the kernel, the device, local memory or the
 * reduced extent allow; the main kernel over the whole chunks of wg * L elements of each
 * output element, the tail kernel over the rest. Stage 2 folds G partials per output in
 * one work-item: G = R / (wg L) stays small next to R. The partial sums are intermediates
 * of the memory plan, live during this kernel only.
 */
static ffu_status plan_reduction(ffu_exec *x, int k, ffu_error *e)
{
	const ffu_inst *fu = x->pk.fusions[k].fusion;
	const ffu_computation *fc = fu->callee;
	const ffu_inst *root = fc->root;
	const ffu_inst *const *outs = root->op == FFU_OP_TUPLE ? (const ffu_inst *const *)root->operands
							       : (const ffu_inst *const *)&fc->root;
	red_plan *rp = &x->red[k];
	rp->n_out = root->op == FFU_OP_TUPLE ? root->n_operands : 1;
	rp->O = (size_t)ffu__shape_count(&outs[0]->shape);
	rp->R = rp->O ? (size_t)ffu__shape_count(&outs[0]->operands[0]->shape) / rp->O : 0;
	xkernel *main = xkernel_of(x, k, FFU_KERNEL_STAGE1), *tail = xkernel_of(x, k, FFU_KERNEL_TAIL),
		*final = xkernel_of(x, k, FFU_KERNEL_FINAL);
	rp->L = (size_t)main->d->lanes;
	rp->partials = calloc((size_t)rp->n_out, sizeof *rp->partials);
	rp->lm_bytes = calloc((size_t)rp->n_out, sizeof *rp->lm_bytes);
	if (!rp->partials || !rp->lm_bytes)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	/* the profile's size (tuning entry and override included), within both kernels' limits */
	const ffu_kernel_limits lk = main->lim, lt = tail->lim;
	/* values in local memory take their device type's size (the program's field options) */
	size_t lm_per_item = 0;
	for (int o = 0; o < rp->n_out; o++)
		lm_per_item += ffu__cl_value_bytes(ffu__shape_field(&outs[o]->shape)->base, &x->field_opts);
	size_t wg = x->cl->target.profile.wg ? x->cl->target.profile.wg : 256;
	if (lk.max_wg && wg > lk.max_wg)
		wg = lk.max_wg;
	if (lt.max_wg && wg > lt.max_wg)
		wg = lt.max_wg;
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
		size_t eb = ffu__cl_partial_bytes(ffu__shape_field(&outs[o]->shape));
		rp->lm_bytes[o] = wg * ffu__cl_value_bytes(ffu__shape_field(&outs[o]->shape)->base, &x->field_opts);
		if ((rp->partials[o] = ffu__exec_new_val(x, fu->name, rp->O * rp->G * eb, HOME_POOL, -1, k)) < 0)
			return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	}
	/* the launches: whole chunks, the rest (its events not kept when both run), stage 2 */
	if (rp->O > 0 && rp->Gf > 0)
		*main = (xkernel){main->d, main->k, main->lim, 0, rp->O * rp->Gf * rp->wg, rp->wg, 0, 0};
	if (rp->O > 0 && rp->G > rp->Gf)
		*tail = (xkernel){tail->d, tail->k, tail->lim, 0, rp->O * rp->wg, rp->wg, 0, rp->Gf > 0 ? -1 : 0};
	if (rp->O > 0)
		*final = (xkernel){final->d, final->k, final->lim, 0, rp->O, 0, 0, 1};
	return FFU_STATUS_OK;
}

/*
 * Loop fusion k over its n elements: the wide variant (when there is one) over n / lanes
 * work-items (stride n / lanes), then the loop kernel over the n % lanes elements left, at
 * their offset. Their work-group size is decided here, once, as device/launch.c decides a
 * launch's (the override, FIELDFUSE_WG_SIZE as the target read it, the tuned or profile
 * size, within the kernel's limits), so the executable's runs launch as it was made: an
 * override set only while it was created (api/tool.c, `fieldfuse tune`'s candidates) still
 * holds after, and a size beyond a kernel's limit is refused here, with the launch's
 * message.
 */
static ffu_status plan_loop(ffu_exec *x, int k, ffu_error *e)
{
	const ffu_fusion_kernels *fk = &x->pk.fusions[k];
	const ffu_computation *fc = fk->fusion->callee;
	const ffu_inst *first_out = fc->root->op == FFU_OP_TUPLE ? fc->root->operands[0] : fc->root;
	size_t n = (size_t)ffu__shape_count(&first_out->shape), done = 0;
	for (int i = 0; i < fk->n_kernels; i++) {
		xkernel *xk = &x->xk[FFU_MAX_FUSION_KERNELS * k + i];
		if (xk->d->role == FFU_KERNEL_WIDE) {
			size_t items = n / (size_t)xk->d->lanes;
			xk->n = xk->stride = items;
			done = items * (size_t)xk->d->lanes;
		} else {
			xk->offset = done;
			xk->n = n - done;
			xk->ev_slot = 1;
		}
	}
	for (int i = 0; i < fk->n_kernels; i++) {
		xkernel *xk = &x->xk[FFU_MAX_FUSION_KERNELS * k + i];
		ffu_launch_plan plan;
		if (xk->n == 0)
			continue;
		ffu_status st = ffu__cl_launch_plan(x->cl, &xk->lim, xk->offset, xk->n, 0, &plan, e);
		if (st)
			return st;
		xk->wg = plan.local;
	}
	return FFU_STATUS_OK;
}

/*
 * NTT fusion k (codegen/fft.c), or msm fusion k (codegen/msm.c: its steps, planned the
 * same way, with one scratch buffer): its scratch buffers are intermediates live during its
 * passes only; its twiddle table is a constant when the kernel filling it runs once (the
 * roots), else an intermediate of this fusion filled every run (from the twiddles operand).
 * Each kernel runs over the work-items its descriptor fixed; the first launched reports to
 * event slot 0, the last to slot 1.
 */
static ffu_status plan_fft(ffu_exec *x, int k, ffu_error *e)
{
	const ffu_fusion_kernels *fk = &x->pk.fusions[k];
	fft_xplan *fp = &x->fft[k];
	int passes = 0, first = -1, last = -1;
	fp->scratch[0] = fp->scratch[1] = fp->table = -1;
	for (int i = 0; i < fk->n_kernels; i++) {
		xkernel *xk = &x->xk[FFU_MAX_FUSION_KERNELS * k + i];
		passes += xk->d->role == FFU_KERNEL_FFT_PASS || xk->d->role == FFU_KERNEL_MSM_STEP;
		xk->n = xk->d->once ? 0 : xk->d->items; /* a once kernel runs at create (make_buffers) */
		xk->wg = xk->d->wg;
		/* the kernel's and the device's limits, the lower (0: none known) */
		size_t limit = x->cl->dev.max_wg;
		if (xk->lim.max_wg && (!limit || xk->lim.max_wg < limit))
			limit = xk->lim.max_wg;
		/* a tile pass takes fewer work-items per column where the limit is lower (llvmpipe
		   allows 32 for some): decided here, once, from the built kernel */
		while (limit && xk->d->wg_unit && xk->wg / 2 >= xk->d->wg_unit && xk->wg > limit) {
			xk->wg /= 2;
			xk->n /= 2;
		}
		/* a pass's index arithmetic assumes its work-group size: refuse rather than run wrong */
		if (limit && xk->wg > limit)
			return ffu__err(e, FFU_STATUS_ELIMIT, "%s: kernel %s needs work-groups of %zu; %s allows %zu",
					fk->fusion->name, xk->d->name, xk->wg, x->cl->dev.name, limit);
		xk->ev_slot = -1;
		if (xk->n > 0) {
			first = first < 0 ? i : first;
			last = i;
		}
	}
	if (first >= 0) {
		x->xk[FFU_MAX_FUSION_KERNELS * k + first].ev_slot = 0;
		x->xk[FFU_MAX_FUSION_KERNELS * k + last].ev_slot = first == last ? 0 : 1;
	}
	/* an NTT ping-pongs between two (one pass needs none), an msm works in one */
	int n_scratch = fk->msm ? (fk->scratch_bytes > 0) : passes - 1;
	for (int s = 0; s < 2 && s < n_scratch; s++)
		if ((fp->scratch[s] = ffu__exec_new_val(x, fk->fusion->name, fk->scratch_bytes, HOME_POOL, -1, k)) < 0)
			goto oom;
	if (fk->twiddle_bytes > 0) {
		bool once = fk->n_kernels > 0 && fk->kernels[0].once;
		fp->table = ffu__exec_new_val(x, fk->fusion->name, fk->twiddle_bytes, once ? HOME_CONST : HOME_POOL,
					      once ? x->n_consts++ : -1, once ? -1 : k);
		if (fp->table < 0)
			goto oom;
	}
	return FFU_STATUS_OK;
oom:
	return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
}

static ffu_status bind(ffu_exec *x, const bindings *bd, const xkernel *xk, int k, ffu_error *e);

/* Fills the NTT root tables (the kernels that run once) after make_buffers created them. */
static ffu_status fill_root_tables(ffu_exec *x, ffu_error *e)
{
	ffu_status st = FFU_STATUS_OK;
	bool any = false;
	bindings none = {NULL, NULL};
	for (int k = 0; k < x->n_kernels && st == FFU_STATUS_OK; k++)
		for (int i = 0; i < x->pk.fusions[k].n_kernels && st == FFU_STATUS_OK; i++) {
			const xkernel *xk = &x->xk[FFU_MAX_FUSION_KERNELS * k + i];
			if (!xk->d->once || xk->d->items == 0)
				continue;
			st = bind(x, &none, xk, k, e);
			if (st == FFU_STATUS_OK)
				st = ffu__cl_launch_limited(x->cl, xk->k, &xk->lim, 0, xk->d->items, 0, NULL, e);
			any = true;
		}
	if (st == FFU_STATUS_OK && any)
		st = ffu__cl_finish(x->cl, e);
	return st;
}

/* Creates the constant and pool buffers of the plan and writes the constants. */
static ffu_status make_buffers(ffu_exec *x, ffu_error *e)
{
	const ffu_computation *c = x->m->entry;
	ffu_status st = FFU_STATUS_OK;
	x->consts = calloc((size_t)x->n_consts + 1, sizeof *x->consts);
	x->pool = calloc((size_t)x->n_pool + 1, sizeof *x->pool);
	if (!x->consts || !x->pool)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	for (int i = 0; i < c->n_insts && st == FFU_STATUS_OK; i++) {
		const ffu_inst *in = c->insts[i];
		if (in->op != FFU_OP_CONSTANT)
			continue;
		const xval *v = &x->vals[x->slots[i].v[0]];
		st = ffu__cl_buffer(x->cl, &x->consts[v->idx], v->bytes, e);
		if (st == FFU_STATUS_OK)
			st = ffu__cl_write(x->cl, x->consts[v->idx], in->literal, v->bytes, e);
		x->device_bytes += v->bytes;
	}
	for (int k = 0; k < x->n_kernels && st == FFU_STATUS_OK; k++) {
		const xval *v = x->fft[k].table >= 0 ? &x->vals[x->fft[k].table] : NULL;
		if (v && v->home == HOME_CONST) {
			st = ffu__cl_buffer(x->cl, &x->consts[v->idx], v->bytes, e);
			x->device_bytes += v->bytes;
		}
	}
	for (int b = 0; b < x->n_pool && st == FFU_STATUS_OK; b++) {
		st = ffu__cl_buffer(x->cl, &x->pool[b], x->pool_bytes[b], e);
		x->device_bytes += x->pool_bytes[b];
	}
	return st;
}

ffu_status ffu__exec_create(ffu_exec **out, ffu_cl *cl, const ffu_module *m, ffu_error *e)
{
	return ffu__exec_create_opts(out, cl, m, NULL, e);
}

ffu_status ffu__exec_create_opts(ffu_exec **out, ffu_cl *cl, const ffu_module *m, const ffu_exec_opts *o,
				 ffu_error *e)
{
	ffu_status st = FFU_STATUS_ENOMEM;
	const ffu_computation *c = m->entry;
	*out = NULL;
	ffu_exec *x = calloc(1, sizeof *x);
	if (!x)
		return ffu__err(e, st, "out of memory");
	x->cl = cl;
	x->m = m;
	x->share = !(o && o->no_sharing);
	x->slots = calloc((size_t)c->n_insts + 1, sizeof *x->slots);
	x->xk = calloc(FFU_MAX_FUSION_KERNELS * (size_t)c->n_insts + 1, sizeof *x->xk);
	x->fft = calloc((size_t)c->n_insts + 1, sizeof *x->fft);
	x->red = calloc((size_t)c->n_insts + 1, sizeof *x->red);
	if (!x->slots || !x->xk || !x->red || !x->fft) {
		st = ffu__err(e, st, "out of memory");
		goto fail;
	}
	/* the plan without the (small) reduction partials, to refuse before building anything */
	if ((st = ffu__exec_plan_values(x, e)) || (st = ffu__exec_assign_pool(x, e)) || (st = ffu__exec_check_memory(x, e)))
		goto fail;

	x->field_opts = ffu__codegen_field_opts(m, &cl->target);
	if ((st = ffu__codegen_program_kernels(&x->source, m, &cl->target, &x->pk, e)))
		goto fail;
	if (x->pk.n > 0) {
		if ((st = ffu__cl_build(cl, &x->program, ffu__sb_cstr(&x->source), NULL, e)))
			goto fail;
	}
	/*
	 * every kernel by its descriptor's name, its limits once, then its launches. Descriptors
	 * that launch one kernel with other arguments (an msm's one-addition phases) share one
	 * cl_kernel: the arguments are bound before each launch, and a driver that builds a
	 * kernel's code per cl_kernel (llvmpipe, at the first launch) builds it once.
	 */
	for (int k = 0; k < x->pk.n; k++) {
		const ffu_fusion_kernels *fk = &x->pk.fusions[k];
		x->n_kernels++;
		for (int i = 0; i < fk->n_kernels && st == FFU_STATUS_OK; i++) {
			xkernel *xk = &x->xk[FFU_MAX_FUSION_KERNELS * k + i];
			xk->d = &fk->kernels[i];
			const xkernel *same = NULL;
			for (int j = 0; j < i && !same; j++)
				if (strcmp(fk->kernels[j].name, xk->d->name) == 0)
					same = &x->xk[FFU_MAX_FUSION_KERNELS * k + j];
			if (same) {
				cl_int err = FFU_CL(clRetainKernel, same->k);
				if (err != CL_SUCCESS)
					st = ffu__err_cl(e, "clRetainKernel", err, "kernel '%s'", xk->d->name);
				else {
					xk->k = same->k;
					xk->lim = same->lim;
				}
				continue;
			}
			st = ffu__cl_kernel(x->program, &xk->k, xk->d->name, e);
			if (st == FFU_STATUS_OK)
				st = ffu__cl_kernel_limits(cl, xk->k, &xk->lim, e);
		}
		if (st == FFU_STATUS_OK && fk->reduction)
			st = plan_reduction(x, k, e);
		else if (st == FFU_STATUS_OK && (fk->fft || fk->msm))
			st = plan_fft(x, k, e);
		else if (st == FFU_STATUS_OK)
			st = plan_loop(x, k, e);
		if (st)
			goto fail;
	}
	/* the final plan, partial sums included */
	if ((st = ffu__exec_assign_pool(x, e)) || (st = ffu__exec_check_memory(x, e)) || (st = make_buffers(x, e)) ||
	    (st = fill_root_tables(x, e)))
		goto fail;
	*out = x;
	return FFU_STATUS_OK;
fail:
	ffu__exec_destroy(&x);
	return st;
}

static void release_all(cl_mem *mems, int n)
{
	for (int i = 0; mems && i < n; i++)
		ffu__cl_buffer_release(&mems[i]);
	free(mems);
}

void ffu__exec_destroy(ffu_exec **xp)
{
	ffu_exec *x = *xp;
	if (!x)
		return;
	for (int i = 0; x->slots && i < x->m->entry->n_insts; i++)
		free(x->slots[i].v);
	for (int i = 0; x->xk && i < FFU_MAX_FUSION_KERNELS * x->n_kernels; i++)
		ffu__cl_kernel_release(&x->xk[i].k);
	for (int k = 0; x->red && k < x->n_kernels; k++) {
		red_plan *rp = &x->red[k];
		free(rp->partials);
		free(rp->lm_bytes);
	}
	release_all(x->consts, x->n_consts);
	release_all(x->pool, x->n_pool);
	release_all(x->own_in, x->n_in);
	release_all(x->own_out, x->n_out);
	free(x->red);
	free(x->fft);
	ffu__cl_program_release(&x->program);
	ffu__sb_free(&x->source);
	free(x->slots);
	free(x->vals);
	free(x->out_val);
	free(x->copies);
	free(x->pool_bytes);
	free(x->xk);
	ffu__program_kernels_free(&x->pk);
	free(x);
	*xp = NULL;
}

/* ---------------------------------------------------------------- queries */

int ffu__exec_num_inputs(const ffu_exec *x)
{
	return x->n_in;
}

int ffu__exec_num_outputs(const ffu_exec *x)
{
	return x->n_out;
}

const ffu_shape *ffu__exec_input_shape(const ffu_exec *x, int i)
{
	return &x->m->entry->params[i]->shape;
}

const ffu_shape *ffu__exec_output_shape(const ffu_exec *x, int o)
{
	const ffu_inst *root = x->m->entry->root;
	return root->shape.type == FFU_TYPE_TUPLE ? &root->shape.elems[o] : &root->shape;
}

void ffu__exec_memory(const ffu_exec *x, ffu_exec_memory *out)
{
	*out = x->mem;
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

/* ---------------------------------------------------------------- launches */

static cl_mem mem_of(const ffu_exec *x, const bindings *bd, int v)
{
	const xval *xv = &x->vals[v];
	switch (xv->home) {
	case HOME_INPUT:
		return bd->in[xv->idx];
	case HOME_CONST:
		return x->consts[xv->idx];
	case HOME_POOL:
		return x->pool[xv->idx];
	case HOME_OUTPUT:
		return bd->out[xv->idx];
	}
	return NULL;
}

static ffu_status set_mem(cl_kernel k, cl_uint arg, cl_mem m, ffu_error *e)
{
	return ffu__cl_set_arg(k, arg, sizeof m, &m, e);
}

/* Binds every argument slot of kernel xk (of fusion k) from what this run holds. */
static ffu_status bind(ffu_exec *x, const bindings *bd, const xkernel *xk, int k, ffu_error *e)
{
	const ffu_inst *fu = x->pk.fusions[k].fusion;
	const red_plan *rp = &x->red[k];
	const fft_xplan *fp = &x->fft[k];
	ffu_status st = FFU_STATUS_OK;
	for (int i = 0; i < xk->d->n_args && st == FFU_STATUS_OK; i++) {
		const ffu_kernel_arg *a = &xk->d->args[i];
		cl_uint arg = (cl_uint)i;
		cl_ulong scalar = 0;
		switch (a->kind) {
		case FFU_ARG_INPUT:
			st = set_mem(xk->k, arg, mem_of(x, bd, x->slots[fu->operands[a->index]->id].v[0]), e);
			continue;
		case FFU_ARG_OUTPUT:
			st = set_mem(xk->k, arg, mem_of(x, bd, x->slots[fu->id].v[a->index]), e);
			continue;
		case FFU_ARG_PARTIAL_OUT:
		case FFU_ARG_PARTIAL_IN:
			st = set_mem(xk->k, arg, mem_of(x, bd, rp->partials[a->index]), e);
			continue;
		case FFU_ARG_LOCAL:
			st = ffu__cl_set_arg(xk->k, arg, rp->lm_bytes[a->index], NULL, e);
			continue;
		case FFU_ARG_SCRATCH_IN:
		case FFU_ARG_SCRATCH_OUT:
		case FFU_ARG_SCRATCH:
			st = set_mem(xk->k, arg, mem_of(x, bd, fp->scratch[a->index]), e);
			continue;
		case FFU_ARG_TWIDDLES:
		case FFU_ARG_TWIDDLES_OUT:
			st = set_mem(xk->k, arg, mem_of(x, bd, fp->table), e);
			continue;
		case FFU_ARG_STRIDE:
			scalar = xk->stride;
			break;
		case FFU_ARG_R:
			scalar = rp->R;
			break;
		case FFU_ARG_GF:
			scalar = rp->Gf;
			break;
		case FFU_ARG_G:
			scalar = rp->G;
			break;
		case FFU_ARG_VALUE:
			scalar = a->value;
			break;
		}
		st = ffu__cl_set_arg(xk->k, arg, sizeof scalar, &scalar, e);
	}
	return st;
}

/*
 * Fusion k's kernels in order, each bound and launched as planned at create. ev (optional)
 * holds two launches' events: a reduction's tail, when its main kernel also runs, keeps
 * none (an in-order queue: first start and last end are what count).
 */
static ffu_status launch_fusion(ffu_exec *x, ffu_cl *cl, const bindings *bd, int k, ffu_launch_events *ev,
				ffu_error *e)
{
	const ffu_fusion_kernels *fk = &x->pk.fusions[k];
	ffu_status st = FFU_STATUS_OK;
	for (int i = 0; i < fk->n_kernels && st == FFU_STATUS_OK; i++) {
		const xkernel *xk = &x->xk[FFU_MAX_FUSION_KERNELS * k + i];
		ffu_launch_events tev = {0};
		if (xk->n == 0)
			continue;
		st = bind(x, bd, xk, k, e);
		if (st == FFU_STATUS_OK)
			st = ffu__cl_launch_limited(cl, xk->k, &xk->lim, xk->offset, xk->n, xk->wg,
						    !ev ? NULL : xk->ev_slot < 0 ? &tev : &ev[xk->ev_slot], e);
		ffu__cl_launch_events_release(&tev);
	}
	return st;
}

ffu_status ffu__exec_enqueue(ffu_exec *x, cl_command_queue q, const cl_mem *in, const cl_mem *out,
			     ffu_launch_events *ev, ffu_error *e)
{
	/* a launch goes to cl->queue: a shallow copy with the caller's queue (nothing of it is released) */
	ffu_cl local, *cl = x->cl;
	if (q && q != x->cl->queue) {
		local = *x->cl;
		local.queue = q;
		cl = &local;
	}
	bindings bd = {in, out};
	ffu_status st = FFU_STATUS_OK;
	for (int k = 0; k < x->n_kernels && st == FFU_STATUS_OK; k++)
		st = launch_fusion(x, cl, &bd, k, ev ? &ev[2 * k] : NULL, e);
	for (int i = 0; i < x->n_copies && st == FFU_STATUS_OK; i++) {
		const out_copy *cp = &x->copies[i];
		size_t bytes = x->vals[cp->src].bytes;
		if (bytes == 0)
			continue;
		cl_int err = FFU_CL(clEnqueueCopyBuffer, cl->queue, mem_of(x, &bd, cp->src), out[cp->dst], 0, 0, bytes, 0,
				    NULL, NULL);
		if (err != CL_SUCCESS)
			st = ffu__err_cl(e, "clEnqueueCopyBuffer", err, "%zu bytes of %s to output %d on %s", bytes,
					 x->vals[cp->src].name, cp->dst, cl->dev.name);
	}
	if (st != FFU_STATUS_OK) {
		/*
		 * Drain what went in before the failure (a kernel whose tail launch failed, earlier
		 * kernels): otherwise it is still queued when the caller destroys the exec, and its
		 * buffers and kernels stay alive until some later flush. The first error stands.
		 */
		(void)ffu__cl_finish(cl, NULL);
		for (int k = 0; ev && k < 2 * x->n_kernels; k++)
			ffu__cl_launch_events_release(&ev[k]);
	}
	return st;
}

ffu_status ffu__exec_kernel_ms(const ffu_exec *x, ffu_launch_events *ev, double host_ms, double *kernel_ms,
			       ffu_timer *timer, ffu_error *e)
{
	ffu_status st = FFU_STATUS_OK;
	int n_events = 2 * x->n_kernels;
	/* in-order queue: from the first command's start to the last one's end */
	cl_ulong first = 0, last = 0;
	bool any = false;
	for (int k = 0; k < n_events && st == FFU_STATUS_OK; k++) {
		for (int i = 0; i < ev[k].n && st == FFU_STATUS_OK; i++) {
			cl_ulong s, t;
			st = ffu__cl_event_times(ev[k].ev[i], &s, &t, e);
			if (!any || s < first)
				first = s;
			if (!any || t > last)
				last = t;
			any = true;
		}
	}
	if (timer)
		*timer = FFU_TIMER_EVENTS;
	if (st == FFU_STATUS_OK) {
		*kernel_ms = any ? (double)(last - first) * 1e-6 : 0.0;
		if (any && !ffu__cl_times_real(first, last)) {
			*kernel_ms = host_ms;
			if (timer)
				*timer = FFU_TIMER_HOST;
		}
	}
	for (int k = 0; k < n_events; k++)
		ffu__cl_launch_events_release(&ev[k]);
	return st;
}

/* ---------------------------------------------------------------- the exec's own buffers */

/* Allocates the exec's own input and output buffers on first use (the CLI/bench path). */
static ffu_status own_io(ffu_exec *x, ffu_error *e)
{
	if (x->own_in && x->own_out)
		return FFU_STATUS_OK;
	ffu_status st = FFU_STATUS_OK;
	cl_mem *in = calloc((size_t)x->n_in + 1, sizeof *in), *out = calloc((size_t)x->n_out + 1, sizeof *out);
	if (!in || !out) {
		free(in);
		free(out);
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	}
	size_t bytes = 0;
	for (int i = 0; i < x->n_in && st == FFU_STATUS_OK; i++) {
		size_t b = ffu__exec_value_bytes(ffu__exec_input_shape(x, i));
		st = ffu__cl_buffer(x->cl, &in[i], b, e);
		bytes += b;
	}
	for (int o = 0; o < x->n_out && st == FFU_STATUS_OK; o++) {
		size_t b = ffu__exec_value_bytes(ffu__exec_output_shape(x, o));
		st = ffu__cl_buffer(x->cl, &out[o], b, e);
		bytes += b;
	}
	if (st) {
		release_all(in, x->n_in);
		release_all(out, x->n_out);
		return st;
	}
	x->own_in = in;
	x->own_out = out;
	x->device_bytes += bytes;
	return FFU_STATUS_OK;
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
	}
	ffu_status st = own_io(x, e);
	for (int p = 0; p < c->n_params && st == FFU_STATUS_OK; p++)
		st = ffu__cl_write(x->cl, x->own_in[p], inputs[p].data, inputs[p].bytes, e);
	return st;
}

ffu_status ffu__exec_run(ffu_exec *x, double *kernel_ms, ffu_timer *timer, ffu_error *e)
{
	double host_start = ffu__now_ms();
	ffu_launch_events *events = NULL;
	if (timer)
		*timer = FFU_TIMER_EVENTS;
	if (kernel_ms && !(events = calloc((size_t)2 * x->n_kernels + 1, sizeof *events)))
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	ffu_status st = own_io(x, e);
	if (st == FFU_STATUS_OK)
		st = ffu__exec_enqueue(x, NULL, x->own_in, x->own_out, events, e);
	if (st == FFU_STATUS_OK)
		st = ffu__cl_finish(x->cl, e);
	double host_ms = ffu__now_ms() - host_start;
	if (st == FFU_STATUS_OK && kernel_ms)
		st = ffu__exec_kernel_ms(x, events, host_ms, kernel_ms, timer, e);
	for (int k = 0; events && k < 2 * x->n_kernels; k++)
		ffu__cl_launch_events_release(&events[k]);
	free(events);
	return st;
}

ffu_status ffu__exec_download_to(ffu_exec *x, int k, void *dst, size_t bytes, ffu_error *e)
{
	if (k < 0 || k >= x->n_out)
		return ffu__err(e, FFU_STATUS_EINVAL, "output %d of %d", k, x->n_out);
	const size_t want = ffu__shape_bytes(ffu__exec_output_shape(x, k));
	if (bytes != want)
		return ffu__err(e, FFU_STATUS_EINVAL, "output %d has %zu bytes, %zu given", k, want, bytes);
	ffu_status st = own_io(x, e);
	return st ? st : ffu__cl_read(x->cl, x->own_out[k], dst, bytes, e);
}

ffu_status ffu__exec_download(ffu_exec *x, ffu_value **outputs, int *n_outputs, ffu_error *e)
{
	int n = x->n_out;
	*outputs = NULL;
	*n_outputs = 0;
	ffu_status st = own_io(x, e);
	if (st)
		return st;
	ffu_value *outs = calloc((size_t)n + 1, sizeof *outs);
	if (!outs)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	for (int k = 0; k < n && st == FFU_STATUS_OK; k++) {
		st = ffu__value_alloc(&outs[k], ffu__exec_output_shape(x, k), e);
		if (st == FFU_STATUS_OK && outs[k].bytes)
			st = ffu__cl_read(x->cl, x->own_out[k], outs[k].data, outs[k].bytes, e);
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
