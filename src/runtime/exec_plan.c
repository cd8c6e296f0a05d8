/*
 * runtime/exec_plan.c: an executable's values and memory plan (see exec.c's header for the
 * pool's linear scan): every array value of the entry gets a home, intermediates share pool
 * buffers by liveness, and the plan is checked against the device's memory.
 */
#include "runtime/exec_impl.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Saturates at SIZE_MAX: shapes come from user text and may hold up to 2^63 elements, so
 * count * element bytes can wrap, and a wrapped size would pass the memory checks below
 * and launch a kernel over far more elements than its buffer holds.
 */
size_t ffu__exec_value_bytes(const ffu_shape *s)
{
	return ffu__shape_bytes(s); /* a CSR matrix: ZKX's bytes (ir/csr.c) */
}

static size_t sat_add(size_t a, size_t b)
{
	return b > SIZE_MAX - a ? SIZE_MAX : a + b;
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

/* ---------------------------------------------------------------- values and the plan */

int ffu__exec_new_val(ffu_exec *x, const char *name, size_t bytes, home_kind home, int idx, int def)
{
	if (x->n_vals == x->cap_vals) {
		int cap = x->cap_vals ? 2 * x->cap_vals : 64;
		xval *nv = realloc(x->vals, sizeof *nv * (size_t)cap);
		if (!nv)
			return -1;
		x->vals = nv;
		x->cap_vals = cap;
	}
	x->vals[x->n_vals] = (xval){name, bytes, home, idx, def, def};
	return x->n_vals++;
}

static bool set_slot(islot *s, int n)
{
	s->n = n;
	s->v = calloc((size_t)n + 1, sizeof *s->v);
	return s->v != NULL;
}

/*
 * The values of the entry, their homes (inputs, constants, outputs; the rest is left to
 * the pool) and lifetimes, and the copies outputs need. No OpenCL here.
 */
ffu_status ffu__exec_plan_values(ffu_exec *x, ffu_error *e)
{
	const ffu_computation *c = x->m->entry;
	int k = 0;
	for (int i = 0; i < c->n_insts; i++) {
		const ffu_inst *in = c->insts[i];
		islot *s = &x->slots[i];
		switch (in->op) {
		case FFU_OP_PARAMETER:
		case FFU_OP_CONSTANT:
			if (!set_slot(s, 1))
				goto oom;
			s->v[0] = ffu__exec_new_val(x, in->name, ffu__exec_value_bytes(&in->shape),
						    in->op == FFU_OP_PARAMETER ? HOME_INPUT : HOME_CONST,
						    in->op == FFU_OP_PARAMETER ? (int)in->index : x->n_consts++, -1);
			if (s->v[0] < 0)
				goto oom;
			break;
		case FFU_OP_FUSION: {
			bool tuple = in->shape.type == FFU_TYPE_TUPLE;
			if (!set_slot(s, tuple ? in->shape.n_elems : 1))
				goto oom;
			for (int o = 0; o < s->n; o++) {
				const ffu_shape *es = tuple ? &in->shape.elems[o] : &in->shape;
				if ((s->v[o] = ffu__exec_new_val(x, in->name, ffu__exec_value_bytes(es), HOME_POOL, -1, k)) < 0)
					goto oom;
			}
			/* operands are arrays (fused computations take array parameters) */
			for (int j = 0; j < in->n_operands; j++) {
				xval *v = &x->vals[x->slots[in->operands[j]->id].v[0]];
				if (v->last < k)
					v->last = k;
			}
			x->n_fusions = ++k;
			break;
		}
		case FFU_OP_GET_TUPLE_ELEMENT:
			if (!set_slot(s, 1))
				goto oom;
			s->v[0] = x->slots[in->operands[0]->id].v[in->index];
			break;
		case FFU_OP_TUPLE:
			if (!set_slot(s, in->n_operands))
				goto oom;
			for (int j = 0; j < in->n_operands; j++) {
				if (x->slots[in->operands[j]->id].n != 1 || !ffu__shape_is_array(&in->operands[j]->shape))
					return ffu__err(e, FFU_STATUS_EUNSUPPORTED, "%s: tuples of tuples cannot run on a device",
							in->name);
				s->v[j] = x->slots[in->operands[j]->id].v[0];
			}
			break;
		default:
			return ffu__err(e, FFU_STATUS_EUNSUPPORTED,
					"%s: %s outside a fusion cannot run on a device (run the fusion pass first)", in->name,
					ffu__ops[in->op].keyword);
		}
	}
	const islot *root = &x->slots[c->root->id];
	x->n_in = c->n_params;
	x->n_out = root->n;
	x->out_val = calloc((size_t)x->n_out + 1, sizeof *x->out_val);
	x->copies = calloc((size_t)x->n_out + 1, sizeof *x->copies);
	if (!x->out_val || !x->copies)
		goto oom;
	/* a kernel's output lands in the caller's buffer directly; anything else is copied there */
	for (int o = 0; o < x->n_out; o++) {
		int v = x->out_val[o] = root->v[o];
		if (x->vals[v].home == HOME_POOL) {
			x->vals[v].home = HOME_OUTPUT;
			x->vals[v].idx = o;
		} else {
			x->copies[x->n_copies++] = (out_copy){v, o};
		}
	}
	return FFU_STATUS_OK;
oom:
	return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
}

/*
 * Assigns every pool value a buffer (see the file comment) and fills x->mem. Values are
 * visited by the kernel that writes them (a counting sort: partial sums are appended
 * after every kernel output); live_bytes comes from a sweep over the kernels.
 */
ffu_status ffu__exec_assign_pool(ffu_exec *x, ffu_error *e)
{
	ffu_status st = FFU_STATUS_OK;
	int n = 0, K = x->n_fusions > 0 ? x->n_fusions : 1;
	for (int v = 0; v < x->n_vals; v++)
		n += x->vals[v].home == HOME_POOL;
	int *order = calloc((size_t)n + 1, sizeof *order), *start = calloc((size_t)K + 2, sizeof *start);
	size_t *size = calloc((size_t)n + 1, sizeof *size), *delta = calloc((size_t)K + 2, sizeof *delta);
	size_t *gone = calloc((size_t)K + 2, sizeof *gone);
	int *busy = calloc((size_t)n + 1, sizeof *busy); /* last kernel reading the buffer's value */
	if (!order || !start || !size || !delta || !gone || !busy) {
		st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
		goto out;
	}
	/* pool values are written by a kernel: 0 <= def < K */
	for (int v = 0; v < x->n_vals; v++)
		if (x->vals[v].home == HOME_POOL)
			start[x->vals[v].def + 1]++;
	for (int k = 0; k < K; k++)
		start[k + 1] += start[k];
	for (int v = 0; v < x->n_vals; v++)
		if (x->vals[v].home == HOME_POOL)
			order[start[x->vals[v].def]++] = v;
	int nb = 0;
	size_t unshared = 0;
	for (int i = 0; i < n; i++) {
		xval *v = &x->vals[order[i]];
		unshared = sat_add(unshared, v->bytes);
		delta[v->def] = sat_add(delta[v->def], v->bytes);
		gone[v->last + 1] = sat_add(gone[v->last + 1], v->bytes);
		if (!x->share) {
			size[nb] = v->bytes;
			v->idx = nb++;
			continue;
		}
		/* the smallest free buffer that fits, else the largest free one grown, else a new one */
		int best = -1, largest = -1;
		for (int b = 0; b < nb; b++) {
			if (busy[b] >= v->def)
				continue;
			if (size[b] >= v->bytes && (best < 0 || size[b] < size[best]))
				best = b;
			if (largest < 0 || size[b] > size[largest])
				largest = b;
		}
		if (best < 0 && largest >= 0) {
			best = largest;
			size[best] = v->bytes;
		}
		if (best < 0) {
			best = nb++;
			size[best] = v->bytes;
		}
		busy[best] = v->last;
		v->idx = best;
	}
	size_t live = 0, live_max = 0;
	for (int k = 0; k <= K; k++) {
		/* saturated sizes only occur in programs refused anyway: keep the sweep from wrapping */
		live = live >= gone[k] ? live - gone[k] : 0;
		live = sat_add(live, delta[k]);
		if (live > live_max)
			live_max = live;
	}
	free(x->pool_bytes);
	x->pool_bytes = size;
	size = NULL;
	x->n_pool = nb;
	ffu_exec_memory *m = &x->mem;
	memset(m, 0, sizeof *m);
	for (int v = 0; v < x->n_vals; v++)
		if (x->vals[v].home == HOME_CONST)
			m->constant_bytes = sat_add(m->constant_bytes, x->vals[v].bytes);
	for (int i = 0; i < x->n_in; i++)
		m->io_bytes = sat_add(m->io_bytes, x->vals[x->slots[x->m->entry->params[i]->id].v[0]].bytes);
	for (int o = 0; o < x->n_out; o++)
		m->io_bytes = sat_add(m->io_bytes, x->vals[x->out_val[o]].bytes);
	for (int b = 0; b < nb; b++)
		m->shared_bytes = sat_add(m->shared_bytes, x->pool_bytes[b]);
	m->unshared_bytes = unshared;
	m->live_bytes = live_max;
	m->intermediates = n;
	m->buffers = nb;
	m->peak_bytes = sat_add(sat_add(m->io_bytes, m->constant_bytes), m->shared_bytes);
out:
	free(order);
	free(start);
	free(size);
	free(delta);
	free(gone);
	free(busy);
	return st;
}

/* Refuses programs whose buffers cannot fit, before any buffer is created. */
ffu_status ffu__exec_check_memory(const ffu_exec *x, ffu_error *e)
{
	char b1[48];
	for (int v = 0; v < x->n_vals; v++) {
		const xval *xv = &x->vals[v];
		if (xv->bytes > x->cl->dev.max_alloc)
			return ffu__err(e, FFU_STATUS_ELIMIT, "%s needs a buffer of %s; %s allows at most %llu per buffer",
					xv->name, bytes_str(b1, xv->bytes), x->cl->dev.name,
					(unsigned long long)x->cl->dev.max_alloc);
	}
	if (x->mem.peak_bytes > x->cl->dev.global_mem)
		return ffu__err(e, FFU_STATUS_ELIMIT, "program needs %s of device memory at its peak; %s has %llu",
				bytes_str(b1, x->mem.peak_bytes), x->cl->dev.name, (unsigned long long)x->cl->dev.global_mem);
	return FFU_STATUS_OK;
}
