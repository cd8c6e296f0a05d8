/* runtime/spmd.c: an SPMD program's ranks on one device (see spmd.h); below, R is the
   number of ranks this process holds. */
#include "runtime/spmd.h"

#include <stdlib.h>
#include <string.h>

#include "interp/interp.h"

/*
 * Every rank's host value of each source ENTRY instruction that a step hands on. The values
 * a segment downloads and a collective produces live in the device's staging memory
 * (runtime/cl.h: page-locked on GPUs), so the copies to and from the device, and MPI's
 * reads and writes, run at the bus's rate; where the driver cannot give staging memory
 * (exhausted), plain memory serves.
 */
typedef struct values {
	int n_ranks, n;
	ffu_cl *cl;
	ffu_value *v;          /* [rank * n + id]; data NULL while unset */
	bool *borrowed;        /* the same index: an input's data, not ours */
	ffu_cl_pinned *pinned; /* the same index: the staging memory v's data is in, if any */
} values;

static ffu_value *val(values *t, int r, int id)
{
	return &t->v[(size_t)r * t->n + id];
}

static void values_free(values *t)
{
	for (size_t k = 0; t->v && k < (size_t)t->n_ranks * t->n; k++) {
		if (t->pinned[k].mem)
			ffu__cl_pinned_free(t->cl, &t->pinned[k]);
		else if (!t->borrowed[k])
			ffu__value_free(&t->v[k]);
	}
	free(t->v);
	free(t->borrowed);
	free(t->pinned);
}

/* Rank r's value of instruction id, of shape s, zeroed, in staging memory where there is some. */
static ffu_status stage(values *t, int r, int id, const ffu_shape *s, ffu_error *e)
{
	const size_t k = (size_t)r * t->n + id, bytes = ffu__shape_bytes(s);
	ffu_error pe = {0};
	ffu_status st = ffu__cl_pinned_alloc(t->cl, bytes, &t->pinned[k], &pe);
	const bool exhausted = st == FFU_STATUS_ELIMIT || pe.cl_code == CL_MEM_OBJECT_ALLOCATION_FAILURE ||
			       pe.cl_code == CL_OUT_OF_RESOURCES || pe.cl_code == CL_OUT_OF_HOST_MEMORY;
	if (st && !exhausted) {
		*e = pe; /* a real failure, with its OpenCL call */
		return st;
	}
	ffu_error_clear(&pe);
	if (st)
		return ffu__value_alloc(&t->v[k], s, e);
	memset(t->pinned[k].ptr, 0, bytes);
	t->v[k] = (ffu_value){.shape = *s, .data = t->pinned[k].ptr, .bytes = bytes};
	return FFU_STATUS_OK;
}

static ffu_status run_segment(ffu_exec *x, const ffu_spmd_step *sp, values *t, int r, double *ms, ffu_error *e)
{
	ffu_value *in = calloc((size_t)sp->n_in + 1, sizeof *in);
	if (!in)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	for (int j = 0; j < sp->n_in; j++)
		in[j] = *val(t, r, sp->in[j]); /* shallow: upload only reads */
	double one = 0;
	ffu_status st = ffu__exec_upload(x, in, sp->n_in, e);
	if (st == FFU_STATUS_OK && (st = ffu__exec_run(x, &one, NULL, e)) == FFU_STATUS_OK)
		*ms += one;
	for (int j = 0; j < sp->n_out && st == FFU_STATUS_OK; j++) {
		ffu_value *v = val(t, r, sp->out[j]);
		if ((st = stage(t, r, sp->out[j], ffu__exec_output_shape(x, j), e)) == FFU_STATUS_OK)
			st = ffu__exec_download_to(x, j, v->data, v->bytes, e);
	}
	free(in);
	return st;
}

static ffu_status local_exchange(void *ctx, const ffu_inst *coll, const ffu_module *m, int first, int n_local,
				 const ffu_value *const *x, ffu_value *const *o, ffu_error *e)
{
	(void)ctx;
	(void)first;
	return ffu__interp_collective(coll, m, n_local, x, o, e);
}

const ffu_spmd_exchange ffu__spmd_local = {local_exchange, NULL, 0, -1};

static ffu_status run_collective(const ffu_module *m, const ffu_spmd_exchange *ex, const ffu_spmd_step *sp,
				 values *t, ffu_error *e)
{
	const ffu_value **x = calloc((size_t)t->n_ranks, sizeof *x);
	ffu_value **o = calloc((size_t)t->n_ranks, sizeof *o);
	ffu_status st = x && o ? FFU_STATUS_OK : ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	for (int r = 0; r < t->n_ranks && st == FFU_STATUS_OK; r++) {
		if (sp->n_in)
			x[r] = val(t, r, sp->in[0]);
		o[r] = val(t, r, sp->out[0]);
		st = stage(t, r, sp->out[0], &sp->coll->shape, e);
	}
	if (st == FFU_STATUS_OK)
		st = ex->run(ex->ctx, sp->coll, m, ex->first, t->n_ranks, x, o, e);
	free(x);
	free(o);
	return st;
}

ffu_status ffu__spmd_run(ffu_cl *cl, const ffu_module *m, const ffu_compile_opts *o, const ffu_spmd_exchange *ex,
			 const ffu_value *const *inputs, int n_inputs, ffu_value **outputs, int *n_outputs,
			 ffu_spmd_stats *stats, ffu_error *e)
{
	ffu_spmd_exchange all = ffu__spmd_local;
	if (!ex || ex->n_local < 0) {
		all.n_local = (int)ffu__module_ranks(m);
		ex = &all;
	}
	const int R = ex->n_local, n = m->entry->n_insts;
	for (int r = 0; r < R; r++) {
		outputs[r] = NULL;
		n_outputs[r] = 0;
	}
	if (n_inputs != m->entry->n_params)
		return ffu__err(e, FFU_STATUS_EINVAL, "program takes %d inputs, %d given", m->entry->n_params, n_inputs);
	ffu_spmd_stats s = {0};
	ffu_spmd_plan plan;
	ffu_status st = ffu__spmd_plan(m, &plan, e);
	if (st)
		return st;
	ffu_exec **x = calloc((size_t)plan.n_steps + 1, sizeof *x);
	values t = {R, n, cl, calloc((size_t)R * n + 1, sizeof *t.v), calloc((size_t)R * n + 1, sizeof *t.borrowed),
		    calloc((size_t)R * n + 1, sizeof *t.pinned)};
	if (!x || !t.v || !t.borrowed || !t.pinned) {
		st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
		goto out;
	}
	for (int r = 0; r < R; r++)
		for (int i = 0; i < m->entry->n_params; i++) {
			*val(&t, r, m->entry->params[i]->id) = inputs[r][i];
			t.borrowed[(size_t)r * n + m->entry->params[i]->id] = true;
		}
	/* every segment compiled once, before anything runs (a build error stops it early) */
	ffu_compile_opts co = o ? *o : (ffu_compile_opts){0};
	co.verified = false;
	for (int k = 0; k < plan.n_steps && st == FFU_STATUS_OK; k++)
		if (plan.steps[k].seg && (st = ffu__compile(&x[k], cl, plan.steps[k].seg, &co, e)) == FFU_STATUS_OK) {
			s.segments++;
			s.kernels += ffu__exec_kernel_count(x[k]);
		}
	for (int k = 0; k < plan.n_steps && st == FFU_STATUS_OK; k++) {
		const ffu_spmd_step *sp = &plan.steps[k];
		const double t0 = ffu__now_ms();
		if (!sp->seg) {
			s.collectives++;
			st = run_collective(m, ex, sp, &t, e);
			s.exchange_ms += ffu__now_ms() - t0;
			continue;
		}
		for (int r = 0; r < R && st == FFU_STATUS_OK; r++)
			st = run_segment(x[k], sp, &t, r, &s.kernel_ms, e);
		s.segment_ms += ffu__now_ms() - t0;
	}
	/* each rank's outputs, copied (one value may be several outputs, or an input) */
	for (int r = 0; r < R && st == FFU_STATUS_OK; r++) {
		if (!(outputs[r] = calloc((size_t)plan.n_outputs + 1, sizeof *outputs[r]))) {
			st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
			break;
		}
		n_outputs[r] = plan.n_outputs;
		for (int j = 0; j < plan.n_outputs && st == FFU_STATUS_OK; j++) {
			const ffu_value *v = val(&t, r, plan.outputs[j]);
			if ((st = ffu__value_alloc(&outputs[r][j], &v->shape, e)) == FFU_STATUS_OK && v->bytes)
				memcpy(outputs[r][j].data, v->data, v->bytes);
		}
	}
	if (st)
		for (int r = 0; r < R; r++) {
			ffu__values_free(outputs[r], n_outputs[r]);
			outputs[r] = NULL;
			n_outputs[r] = 0;
		}
out:
	for (int k = 0; x && k < plan.n_steps; k++)
		ffu__exec_destroy(&x[k]);
	free(x);
	values_free(&t);
	ffu__spmd_plan_free(&plan);
	if (stats)
		*stats = s;
	return st;
}
