/*
 * interp/interp.c: reference interpreter (see interp.h). Deliberately simple: every
 * instruction's result is materialised as a whole array; fusion instructions run their
 * callee recursively. Speed is not a goal, obviousness is.
 */
#include "interp/interp.h"

#include <stdlib.h>
#include <string.h>

/* The value(s) an instruction produced: one array, or one per tuple element. */
typedef struct slot {
	int n;
	ffu_value *v;
	bool borrowed; /* v points at caller-owned inputs */
} slot;

static void slot_free(slot *s)
{
	if (!s->borrowed) {
		for (int i = 0; i < s->n; i++)
			ffu__value_free(&s->v[i]);
		free(s->v);
	}
	memset(s, 0, sizeof *s);
}

static ffu_status slot_alloc(slot *s, const ffu_shape *shape, ffu_error *e)
{
	int n = shape->type == FFU_TYPE_TUPLE ? shape->n_elems : 1;
	s->v = calloc((size_t)(n ? n : 1), sizeof *s->v);
	if (!s->v)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory in the interpreter");
	s->n = n;
	for (int i = 0; i < n; i++) {
		const ffu_shape *es = shape->type == FFU_TYPE_TUPLE ? &shape->elems[i] : shape;
		ffu_status st = ffu__value_alloc(&s->v[i], es, e);
		if (st)
			return st;
	}
	return FFU_STATUS_OK;
}

static ffu_status copy_value(ffu_value *dst, const ffu_value *src, ffu_error *e)
{
	ffu_status st = ffu__value_alloc(dst, &src->shape, e);
	if (st == FFU_STATUS_OK && src->bytes)
		memcpy(dst->data, src->data, src->bytes);
	return st;
}

static ffu_status run_comp(const ffu_computation *c, const ffu_value *args, int n_args, slot *result,
			   ffu_error *e);

static ffu_status eval(const ffu_inst *in, slot *slots, const ffu_value *args, int n_args, slot *out,
		       ffu_error *e)
{
	const ffu_op_info *info = &ffu__ops[in->op];
	ffu_status st = FFU_STATUS_OK;

	switch (info->kind) {
	case FFU_KIND_SOURCE:
		if (in->op == FFU_OP_PARAMETER) {
			if (in->index < 0 || in->index >= n_args)
				return ffu__err(e, FFU_STATUS_EINVAL, "parameter(%lld) of %s has no input",
						(long long)in->index, in->parent->name);
			const ffu_value *a = &args[in->index];
			if (!ffu__shape_eq(&a->shape, &in->shape)) {
				char want[128], got[128];
				ffu__shape_format(&in->shape, want, sizeof want);
				ffu__shape_format(&a->shape, got, sizeof got);
				return ffu__err(e, FFU_STATUS_EINVAL, "input %lld (%s): expected %s, got %s",
						(long long)in->index, in->name, want, got);
			}
			out->n = 1;
			out->v = (ffu_value *)a;
			out->borrowed = true;
			return FFU_STATUS_OK;
		}
		if ((st = slot_alloc(out, &in->shape, e)))
			return st;
		memcpy(out->v[0].data, in->literal, out->v[0].bytes);
		return FFU_STATUS_OK;
	case FFU_KIND_ELEMENTWISE: {
		if ((st = slot_alloc(out, &in->shape, e)))
			return st;
		const ffu_field *f = ffu__shape_field(&in->shape);
		size_t eb = f->storage_bytes;
		int64_t n = ffu__shape_count(&in->shape);
		const unsigned char *a = slots[in->operands[0]->id].v[0].data;
		const unsigned char *b = in->n_operands > 1 ? slots[in->operands[1]->id].v[0].data : a;
		unsigned char *o = out->v[0].data;
		/* power and convert have operands of another type (element size): strides differ */
		const ffu_field *f1 = ffu__shape_field(&in->operands[in->n_operands - 1]->shape);
		size_t eb1 = f1->storage_bytes;
		if (in->op == FFU_OP_POWER) {
			for (int64_t i = 0; i < n; i++)
				ffu__fp_pow(f, o + i * eb, a + i * eb, ffu__fp_get_u64(f1, b + i * eb1));
			return FFU_STATUS_OK;
		}
		if (in->op == FFU_OP_CONVERT) {
			for (int64_t i = 0; i < n; i++)
				if (!ffu__fp_convert(f, o + i * eb, f1, a + i * eb1))
					return ffu__err(e, FFU_STATUS_EUNSUPPORTED, "interpreter: convert %s -> %s",
							f1->name, f->name);
			return FFU_STATUS_OK;
		}
		for (int64_t i = 0; i < n; i++)
			info->host_fn(f, o + i * eb, a + i * eb, b + i * eb);
		return FFU_STATUS_OK;
	}
	case FFU_KIND_INDEX: {
		/* broadcast: a scalar replicated over the result (the only form verified today) */
		if ((st = slot_alloc(out, &in->shape, e)))
			return st;
		const ffu_value *src = &slots[in->operands[0]->id].v[0];
		size_t eb = ffu__shape_elem_bytes(&in->shape);
		int64_t n = ffu__shape_count(&in->shape);
		for (int64_t i = 0; i < n; i++)
			memcpy(out->v[0].data + i * eb, src->data, eb);
		return FFU_STATUS_OK;
	}
	case FFU_KIND_TUPLE:
		if (in->op == FFU_OP_TUPLE) {
			out->v = calloc((size_t)(in->n_operands ? in->n_operands : 1), sizeof *out->v);
			if (!out->v)
				return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory in the interpreter");
			out->n = in->n_operands;
			for (int i = 0; i < in->n_operands; i++)
				if ((st = copy_value(&out->v[i], &slots[in->operands[i]->id].v[0], e)))
					return st;
			return FFU_STATUS_OK;
		}
		out->v = calloc(1, sizeof *out->v);
		if (!out->v)
			return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory in the interpreter");
		out->n = 1;
		return copy_value(&out->v[0], &slots[in->operands[0]->id].v[in->index], e);
	case FFU_KIND_CALL: {
		ffu_value *cargs = calloc((size_t)in->n_operands + 1, sizeof *cargs);
		if (!cargs)
			return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory in the interpreter");
		for (int i = 0; i < in->n_operands; i++)
			cargs[i] = slots[in->operands[i]->id].v[0];
		st = run_comp(in->callee, cargs, in->n_operands, out, e);
		free(cargs);
		return st;
	}
	}
	return ffu__err(e, FFU_STATUS_EUNSUPPORTED, "interpreter: opcode %s", info->keyword);
}

static ffu_status run_comp(const ffu_computation *c, const ffu_value *args, int n_args, slot *result,
			   ffu_error *e)
{
	ffu_status st = FFU_STATUS_OK;
	slot *slots = calloc((size_t)c->n_insts + 1, sizeof *slots);
	if (!slots)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory in the interpreter");
	for (int i = 0; i < c->n_insts && st == FFU_STATUS_OK; i++)
		st = eval(c->insts[i], slots, args, n_args, &slots[i], e);
	if (st == FFU_STATUS_OK) {
		/* hand the root's result over; copy it if it is a borrowed input */
		slot *r = &slots[c->root->id];
		if (r->borrowed) {
			result->v = calloc(1, sizeof *result->v);
			result->n = 1;
			st = result->v ? copy_value(&result->v[0], &r->v[0], e)
				       : ffu__err(e, FFU_STATUS_ENOMEM, "out of memory in the interpreter");
		} else {
			*result = *r;
			memset(r, 0, sizeof *r);
		}
	}
	for (int i = 0; i < c->n_insts; i++)
		slot_free(&slots[i]);
	free(slots);
	return st;
}

ffu_status ffu__interp_run(const ffu_module *m, const ffu_value *inputs, int n_inputs,
			   ffu_value **outputs, int *n_outputs, ffu_error *e)
{
	*outputs = NULL;
	*n_outputs = 0;
	if (n_inputs != m->entry->n_params)
		return ffu__err(e, FFU_STATUS_EINVAL, "program takes %d inputs, %d given", m->entry->n_params,
				n_inputs);
	slot r = {0};
	ffu_status st = run_comp(m->entry, inputs, n_inputs, &r, e);
	if (st) {
		slot_free(&r);
		return st;
	}
	*outputs = r.v;
	*n_outputs = r.n;
	return FFU_STATUS_OK;
}
