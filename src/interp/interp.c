/*
 * interp/interp.c: reference interpreter (see interp.h). Deliberately simple: every
 * instruction's result is materialised as a whole array; fusion instructions run their
 * callee recursively; ops that move elements compute each result element's source from its
 * row-major multi-index. Speed is not a goal, obviousness is. It runs verified modules
 * only: shapes and attributes are trusted here.
 */
#include "interp/interp_impl.h"

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

static ffu_status run_comp(const ffu_computation *c, const ffu_value *const *args, int n_args, int n_ranks,
			   slot *results, ffu_error *e);

/* The operand's value (one array: the verifier rules out tuples everywhere but tuple ops). */
static const ffu_value *arg(const ffu_inst *in, const slot *slots, int j)
{
	return &slots[in->operands[j]->id].v[0];
}

/* --- element-wise --- */

static ffu_status eval_elementwise(const ffu_inst *in, const slot *slots, ffu_value *o, ffu_error *e)
{
	const ffu_op_info *info = &ffu__ops[in->op];
	const ffu_field *f = ffu__shape_field(&in->shape);
	size_t eb = f->storage_bytes;
	int64_t n = ffu__shape_count(&in->shape);
	const unsigned char *a = arg(in, slots, 0)->data;
	const unsigned char *b = in->n_operands > 1 ? arg(in, slots, 1)->data : a;
	/* the last operand's type: power's exponent, convert's source, compare's operands */
	const ffu_field *f1 = ffu__shape_field(&in->operands[in->n_operands - 1]->shape);
	size_t eb1 = f1->storage_bytes;
	switch (in->op) {
	case FFU_OP_POWER:
		for (int64_t i = 0; i < n; i++)
			ffu__fp_pow(f, o->data + i * eb, a + i * eb, ffu__fp_get_u64(f1, b + i * eb1));
		return FFU_STATUS_OK;
	case FFU_OP_CONVERT:
		for (int64_t i = 0; i < n; i++)
			if (!ffu__fp_convert(f, o->data + i * eb, f1, a + i * eb1))
				return ffu__err(e, FFU_STATUS_EUNSUPPORTED, "interpreter: convert %s -> %s", f1->name,
						f->name);
		return FFU_STATUS_OK;
	case FFU_OP_COMPARE:
		/* EQ/NE on storage, the ordered four on canonical values (ir/order.c) */
		for (int64_t i = 0; i < n; i++)
			o->data[i] = ffu__order_compare(in, a + i * eb1, b + i * eb1);
		return FFU_STATUS_OK;
	case FFU_OP_MAXIMUM:
	case FFU_OP_MINIMUM:
	case FFU_OP_CLAMP:
		/* clamp's bounds may be scalars: those are read at element 0 */
		for (int64_t i = 0; i < n; i++) {
			const unsigned char *args[3];
			for (int j = 0; j < in->n_operands; j++) {
				const ffu_value *x = arg(in, slots, j);
				args[j] = x->data + (x->shape.rank == 0 ? 0 : i * eb);
			}
			ffu__order_eval(in, o->data + i * eb, args);
		}
		return FFU_STATUS_OK;
	case FFU_OP_SELECT: {
		const ffu_value *p = arg(in, slots, 0);
		const unsigned char *t = arg(in, slots, 1)->data, *fl = arg(in, slots, 2)->data;
		bool scalar = p->shape.rank == 0;
		for (int64_t i = 0; i < n; i++) {
			bool pick = p->data[scalar ? 0 : i] != 0;
			memcpy(o->data + i * eb, (pick ? t : fl) + i * eb, eb);
		}
		return FFU_STATUS_OK;
	}
	default:
		break;
	}
	if (f->kind == FFU_ELEM_POINT && in->op != FFU_OP_NEGATE)
		return ffu__interp_points(in, a, b, o);
	if (!info->host_fn)
		return ffu__err(e, FFU_STATUS_EUNSUPPORTED, "interpreter: opcode %s", info->keyword);
	for (int64_t i = 0; i < n; i++)
		info->host_fn(f, o->data + i * eb, a + i * eb, b + i * eb);
	return FFU_STATUS_OK;
}

/* --- moving elements: every result element is fetched from its source index --- */

static void eval_iota(const ffu_inst *in, ffu_value *o)
{
	const ffu_field *f = ffu__shape_field(&in->shape);
	int64_t n = ffu__shape_count(&in->shape), idx[FFU_MAX_RANK];
	for (int64_t i = 0; i < n; i++) {
		ffu__shape_unravel(&in->shape, i, idx);
		ffu__fp_set_u64(f, o->data + i * f->storage_bytes, (uint64_t)idx[in->index]);
	}
}

/* Start index value v (an integer of type f) clamped into [0, hi], as XLA clamps. */
static int64_t clamp_start(const ffu_field *f, const unsigned char *v, int64_t hi)
{
	if (f->is_signed) {
		int64_t x = ffu__fp_get_i64(f, v);
		return x < 0 ? 0 : x > hi ? hi : x;
	}
	uint64_t u = ffu__fp_get_u64(f, v); /* a u64 above INT64_MAX is past any end */
	return u > (uint64_t)hi ? hi : (int64_t)u;
}

/*
 * dynamic-slice / dynamic-update-slice: the window (the result, or the update) starts at
 * the operands' start indices, each clamped so the window lies inside the operand.
 */
static void eval_dynamic_slice(const ffu_inst *in, const slot *slots, ffu_value *o)
{
	bool update = in->op == FFU_OP_DYNAMIC_UPDATE_SLICE;
	const ffu_value *x = arg(in, slots, 0), *w = update ? arg(in, slots, 1) : o;
	size_t eb = ffu__shape_elem_bytes(&in->shape);
	int64_t start[FFU_MAX_RANK] = {0}, idx[FFU_MAX_RANK];
	for (int d = 0; d < x->shape.rank; d++) {
		const ffu_value *i = arg(in, slots, (update ? 2 : 1) + d);
		start[d] = clamp_start(ffu__shape_field(&i->shape), i->data, x->shape.dims[d] - w->shape.dims[d]);
	}
	if (update)
		memcpy(o->data, x->data, o->bytes);
	int64_t n = ffu__shape_count(&w->shape);
	for (int64_t k = 0; k < n; k++) {
		ffu__shape_unravel(&w->shape, k, idx);
		for (int d = 0; d < x->shape.rank; d++)
			idx[d] += start[d];
		int64_t at = ffu__shape_ravel(&x->shape, idx);
		if (update)
			memcpy(o->data + at * eb, w->data + k * eb, eb);
		else
			memcpy(o->data + k * eb, x->data + at * eb, eb);
	}
}

static void eval_index(const ffu_inst *in, const slot *slots, ffu_value *o)
{
	const ffu_shape *s = &in->shape;
	size_t eb = ffu__shape_elem_bytes(s);
	int64_t n = ffu__shape_count(s), idx[FFU_MAX_RANK], src[FFU_MAX_RANK] = {0};
	if (in->op == FFU_OP_DYNAMIC_SLICE || in->op == FFU_OP_DYNAMIC_UPDATE_SLICE) {
		eval_dynamic_slice(in, slots, o);
		return;
	}
	if (in->op == FFU_OP_CONCATENATE) {
		/* each operand's elements go to its own offset along the joined dimension */
		int64_t cd = in->dims[0], offset = 0;
		for (int j = 0; j < in->n_operands; j++) {
			const ffu_value *x = arg(in, slots, j);
			int64_t m = ffu__shape_count(&x->shape);
			for (int64_t i = 0; i < m; i++) {
				ffu__shape_unravel(&x->shape, i, idx);
				idx[cd] += offset;
				memcpy(o->data + ffu__shape_ravel(s, idx) * eb, x->data + i * eb, eb);
			}
			offset += x->shape.dims[cd];
		}
		return;
	}
	const ffu_value *x = arg(in, slots, 0);
	if (in->op == FFU_OP_RESHAPE) {
		memcpy(o->data, x->data, o->bytes);
		return;
	}
	for (int64_t i = 0; i < n; i++) {
		ffu__shape_unravel(s, i, idx);
		if (in->op == FFU_OP_BROADCAST) {
			/* operand dimension k is result dimension dims[k]; the others replicate */
			for (int k = 0; k < in->n_dims; k++)
				src[k] = idx[in->dims[k]];
		} else if (in->op == FFU_OP_REVERSE || in->op == FFU_OP_BIT_REVERSE) {
			for (int d = 0; d < s->rank; d++)
				src[d] = ffu__order_perm_coord(in, d, idx[d]);
		} else { /* FFU_OP_SLICE */
			for (int d = 0; d < s->rank; d++)
				src[d] = in->slice_start[d] + idx[d] * in->slice_stride[d];
		}
		memcpy(o->data + i * eb, x->data + ffu__shape_ravel(&x->shape, src) * eb, eb);
	}
}

/*
 * reduce: every result element starts as init; each operand element is folded into the
 * result element its kept dimensions name. Sum and product are associative and
 * commutative, so this order gives the same value as any other.
 */
static void eval_reduce(const ffu_inst *in, const slot *slots, ffu_value *o)
{
	const ffu_value *x = arg(in, slots, 0), *init = arg(in, slots, 1);
	const ffu_field *f = ffu__shape_field(&in->shape);
	ffu_field_fn fn = in->reduce_fn == FFU_OP_MULTIPLY ? ffu__fp_mul : ffu__fp_add;
	size_t eb = f->storage_bytes;
	bool folded[FFU_MAX_RANK] = {false};
	for (int k = 0; k < in->n_dims; k++)
		folded[in->dims[k]] = true;
	int64_t n = ffu__shape_count(&in->shape), m = ffu__shape_count(&x->shape);
	int64_t idx[FFU_MAX_RANK], kept[FFU_MAX_RANK];
	for (int64_t i = 0; i < n; i++)
		memcpy(o->data + i * eb, init->data, eb);
	for (int64_t i = 0; i < m; i++) {
		ffu__shape_unravel(&x->shape, i, idx);
		int r = 0;
		for (int d = 0; d < x->shape.rank; d++)
			if (!folded[d])
				kept[r++] = idx[d];
		unsigned char *acc = o->data + ffu__shape_ravel(&in->shape, kept) * eb;
		fn(f, acc, acc, x->data + i * eb);
	}
}

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
			char why[320]; /* a CSR matrix's row pointers and columns are read as indices */
			if (a->shape.csr && !ffu__csr_check(&a->shape, a->data, a->bytes, why, sizeof why))
				return ffu__err(e, FFU_STATUS_EINVAL, "input %lld (%s) is not a CSR matrix as ZKX stores it: %s",
						(long long)in->index, in->name, why);
			out->n = 1;
			out->v = (ffu_value *)a;
			out->borrowed = true;
			return FFU_STATUS_OK;
		}
		if ((st = slot_alloc(out, &in->shape, e)))
			return st;
		if (in->op == FFU_OP_IOTA)
			eval_iota(in, &out->v[0]);
		else if (out->v[0].bytes)
			memcpy(out->v[0].data, in->literal, out->v[0].bytes);
		return FFU_STATUS_OK;
	case FFU_KIND_ELEMENTWISE:
		if ((st = slot_alloc(out, &in->shape, e)))
			return st;
		return eval_elementwise(in, slots, &out->v[0], e);
	case FFU_KIND_INDEX:
		if ((st = slot_alloc(out, &in->shape, e)))
			return st;
		eval_index(in, slots, &out->v[0]);
		return FFU_STATUS_OK;
	case FFU_KIND_REDUCE:
		if ((st = slot_alloc(out, &in->shape, e)))
			return st;
		eval_reduce(in, slots, &out->v[0]);
		return FFU_STATUS_OK;
	case FFU_KIND_TRANSFORM:
		if ((st = slot_alloc(out, &in->shape, e)))
			return st;
		return ffu__interp_fft(in, arg(in, slots, 0), in->n_operands > 1 ? arg(in, slots, 1) : NULL, &out->v[0], e);
	case FFU_KIND_MSM:
		if ((st = slot_alloc(out, &in->shape, e)))
			return st;
		return ffu__interp_msm(in, arg(in, slots, 0), arg(in, slots, 1), &out->v[0]);
	case FFU_KIND_CONTRACT:
		if ((st = slot_alloc(out, &in->shape, e)))
			return st;
		ffu__interp_dot(in, arg(in, slots, 0), arg(in, slots, 1), &out->v[0]);
		return FFU_STATUS_OK;
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
		const ffu_value *one = cargs;
		st = run_comp(in->callee, &one, in->n_operands, 1, out, e);
		free(cargs);
		return st;
	}
	case FFU_KIND_COLLECTIVE: /* run_comp hands these all ranks at once */
		break;
	}
	return ffu__err(e, FFU_STATUS_EUNSUPPORTED, "interpreter: opcode %s", info->keyword);
}

/* Collective `in`, the i-th of a computation of n instructions, on every rank's slots
   (rank r's at slots + r n). */
static ffu_status eval_collective(const ffu_inst *in, int i, slot *slots, int n, int n_ranks, ffu_error *e)
{
	const ffu_value **x = calloc((size_t)n_ranks, sizeof *x);
	ffu_value **o = calloc((size_t)n_ranks, sizeof *o);
	ffu_status st = x && o ? FFU_STATUS_OK : ffu__err(e, FFU_STATUS_ENOMEM, "out of memory in the interpreter");
	for (int r = 0; r < n_ranks && st == FFU_STATUS_OK; r++) {
		slot *mine = slots + (size_t)r * n;
		if (in->n_operands)
			x[r] = &mine[in->operands[0]->id].v[0];
		if ((st = slot_alloc(&mine[i], &in->shape, e)) == FFU_STATUS_OK)
			o[r] = &mine[i].v[0];
	}
	if (st == FFU_STATUS_OK)
		st = ffu__interp_collective(in, in->parent->module, n_ranks, x, o, e);
	free(x);
	free(o);
	return st;
}

/*
 * Runs c on n_ranks ranks in lockstep, one instruction on every rank before the next:
 * args[r] are rank r's arguments, results[r] receives its root's value. Only the ENTRY
 * holds collectives (the verifier), so every other computation runs as one rank.
 */
static ffu_status run_comp(const ffu_computation *c, const ffu_value *const *args, int n_args, int n_ranks,
			   slot *results, ffu_error *e)
{
	ffu_status st = FFU_STATUS_OK;
	const int n = c->n_insts;
	slot *slots = calloc((size_t)n * (size_t)n_ranks + 1, sizeof *slots);
	if (!slots)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory in the interpreter");
	for (int i = 0; i < n && st == FFU_STATUS_OK; i++) {
		if (ffu__ops[c->insts[i]->op].kind == FFU_KIND_COLLECTIVE) {
			st = eval_collective(c->insts[i], i, slots, n, n_ranks, e);
			continue;
		}
		for (int r = 0; r < n_ranks && st == FFU_STATUS_OK; r++) {
			slot *mine = slots + (size_t)r * n;
			st = eval(c->insts[i], mine, args[r], n_args, &mine[i], e);
		}
	}
	for (int r = 0; r < n_ranks && st == FFU_STATUS_OK; r++) {
		/* hand the root's result over; copy it if it is a borrowed input */
		slot *rs = &slots[(size_t)r * n + c->root->id], *result = &results[r];
		if (rs->borrowed) {
			result->v = calloc(1, sizeof *result->v);
			result->n = 1;
			st = result->v ? copy_value(&result->v[0], &rs->v[0], e)
				       : ffu__err(e, FFU_STATUS_ENOMEM, "out of memory in the interpreter");
		} else {
			*result = *rs;
			memset(rs, 0, sizeof *rs);
		}
	}
	for (size_t i = 0; i < (size_t)n * (size_t)n_ranks; i++)
		slot_free(&slots[i]);
	free(slots);
	return st;
}

ffu_status ffu__interp_run_ranks(const ffu_module *m, const ffu_value *const *inputs, int n_inputs, int n_ranks,
				 ffu_value **outputs, int *n_outputs, ffu_error *e)
{
	for (int r = 0; r < n_ranks; r++) {
		outputs[r] = NULL;
		n_outputs[r] = 0;
	}
	if (n_inputs != m->entry->n_params)
		return ffu__err(e, FFU_STATUS_EINVAL, "program takes %d inputs, %d given", m->entry->n_params,
				n_inputs);
	if (n_ranks != ffu__module_ranks(m))
		return ffu__err(e, FFU_STATUS_EINVAL, "program runs on %lld ranks (replica_count=%lld x num_partitions=%lld), %d given",
				(long long)ffu__module_ranks(m), (long long)m->replica_count, (long long)m->num_partitions,
				n_ranks);
	slot *r = calloc((size_t)n_ranks, sizeof *r);
	if (!r)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory in the interpreter");
	ffu_status st = run_comp(m->entry, inputs, n_inputs, n_ranks, r, e);
	for (int k = 0; k < n_ranks; k++) {
		if (st) {
			slot_free(&r[k]);
			continue;
		}
		outputs[k] = r[k].v;
		n_outputs[k] = r[k].n;
	}
	free(r);
	return st;
}

ffu_status ffu__interp_run(const ffu_module *m, const ffu_value *inputs, int n_inputs,
			   ffu_value **outputs, int *n_outputs, ffu_error *e)
{
	*outputs = NULL;
	*n_outputs = 0;
	const int64_t n_ranks = ffu__module_ranks(m); /* 1..FFU_MAX_RANKS: the module is verified */
	/* every rank the same inputs; rank 0's outputs kept */
	const ffu_value **in = malloc(sizeof *in * (size_t)n_ranks);
	ffu_value **outs = calloc((size_t)n_ranks, sizeof *outs);
	int *n_outs = calloc((size_t)n_ranks, sizeof *n_outs);
	ffu_status st = in && outs && n_outs ? FFU_STATUS_OK
					     : ffu__err(e, FFU_STATUS_ENOMEM, "out of memory in the interpreter");
	for (int64_t r = 0; r < n_ranks && in; r++)
		in[r] = inputs;
	if (st == FFU_STATUS_OK)
		st = ffu__interp_run_ranks(m, in, n_inputs, (int)n_ranks, outs, n_outs, e);
	if (st == FFU_STATUS_OK) {
		*outputs = outs[0];
		*n_outputs = n_outs[0];
		for (int64_t r = 1; r < n_ranks; r++)
			ffu__values_free(outs[r], n_outs[r]);
	}
	free(in);
	free(outs);
	free(n_outs);
	return st;
}
