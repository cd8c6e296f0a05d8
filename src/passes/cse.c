/*
 * passes/cse.c: common subexpression elimination (see passes.h).
 *
 * One forward sweep over the entry computation with a hash table of the instructions kept
 * so far: an instruction whose opcode, shape, attributes and (already deduplicated)
 * operands equal a kept one's is replaced by it in every later operand list and at the
 * ROOT. Operands are compared by identity, so after the sweep every value is computed by
 * one instruction. add, multiply and compare (EQ and NE are symmetric) match with their
 * operands in either order. Parameters never merge (each is its own input); constants
 * merge when their literal bytes are equal, which for canonical storage means equal values.
 * A replaced instruction has no reader left once the sweep is past it, so it leaves the
 * list at once (its node stays in the arena, as every dropped node does).
 *
 * Only the entry: before fusion the other computations are reduce bodies, whose shape the
 * verifier fixes; after it, fused computations were built without duplicates.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "passes/passes.h"

typedef struct table {
	ffu_inst **slot;
	size_t mask;
} table;

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

static bool commutative(const ffu_inst *in)
{
	/* compare only where the direction is symmetric: x < y is not y < x */
	bool cmp = in->op == FFU_OP_COMPARE && (in->direction == FFU_CMP_EQ || in->direction == FFU_CMP_NE);
	return (in->op == FFU_OP_ADD || in->op == FFU_OP_MULTIPLY || in->op == FFU_OP_MAXIMUM || in->op == FFU_OP_MINIMUM ||
		cmp) && in->n_operands == 2;
}

static uint64_t hash_shape(uint64_t h, const ffu_shape *s)
{
	h = mix(h, (uint64_t)s->type);
	if (s->type == FFU_TYPE_TUPLE) {
		for (int i = 0; i < s->n_elems; i++)
			h = hash_shape(h, &s->elems[i]);
		return h;
	}
	for (int i = 0; i < s->rank; i++)
		h = mix(h, (uint64_t)s->dims[i]);
	return h;
}

static size_t literal_bytes(const ffu_inst *in)
{
	return (size_t)ffu__shape_count(&in->shape) * ffu__shape_elem_bytes(&in->shape);
}

static uint64_t hash_inst(const ffu_inst *in)
{
	uint64_t h = hash_shape(mix(0, (uint64_t)in->op), &in->shape);
	if (commutative(in)) {
		/* order-independent: the sum of the operands' hashes */
		h = mix(h, (uint64_t)(uintptr_t)in->operands[0] + (uint64_t)(uintptr_t)in->operands[1]);
	} else {
		for (int j = 0; j < in->n_operands; j++)
			h = mix(h, (uint64_t)(uintptr_t)in->operands[j]);
	}
	if (in->op == FFU_OP_CONSTANT && in->literal) {
		/* enough of the literal to spread constants; equality compares all of it */
		size_t n = literal_bytes(in);
		for (size_t i = 0; i < n && i < 256; i++)
			h = mix(h, in->literal[i]);
	}
	return mix(h, (uint64_t)in->index);
}

static bool same_dims_attr(const ffu_inst *a, const ffu_inst *b)
{
	return a->n_dims == b->n_dims && (a->n_dims == 0 || memcmp(a->dims, b->dims, sizeof(int64_t) * (size_t)a->n_dims) == 0);
}

/* Do a and b compute the same value? Operands are already unique instructions. */
static bool same(const ffu_inst *a, const ffu_inst *b)
{
	if (a->op != b->op || a->n_operands != b->n_operands || !ffu__shape_eq(&a->shape, &b->shape))
		return false;
	bool ops_equal = true;
	for (int j = 0; j < a->n_operands && ops_equal; j++)
		ops_equal = a->operands[j] == b->operands[j];
	if (!ops_equal && !(commutative(a) && a->operands[0] == b->operands[1] && a->operands[1] == b->operands[0]))
		return false;
	/* a collective with an operand is one exchange between the ranks: kept as written
	   (replica-id and partition-id are plain values of the rank and merge) */
	if (ffu__ops[a->op].kind == FFU_KIND_COLLECTIVE && a->n_operands)
		return false;
	switch (a->op) {
	case FFU_OP_PARAMETER:
		return false;
	case FFU_OP_CONSTANT:
		return a->literal && b->literal && memcmp(a->literal, b->literal, literal_bytes(a)) == 0;
	case FFU_OP_IOTA:
	case FFU_OP_GET_TUPLE_ELEMENT:
		return a->index == b->index;
	case FFU_OP_BROADCAST:
	case FFU_OP_CONCATENATE:
	case FFU_OP_REVERSE:
	case FFU_OP_BIT_REVERSE:
		return same_dims_attr(a, b);
	case FFU_OP_REDUCE:
		/* the to_apply computations may differ by name; what they compute is reduce_fn */
		return same_dims_attr(a, b) && a->reduce_fn == b->reduce_fn;
	case FFU_OP_SLICE: {
		int r = a->operands[0]->shape.rank;
		size_t sz = sizeof(int64_t) * (size_t)r;
		return memcmp(a->slice_start, b->slice_start, sz) == 0 && memcmp(a->slice_limit, b->slice_limit, sz) == 0 &&
		       memcmp(a->slice_stride, b->slice_stride, sz) == 0;
	}
	case FFU_OP_COMPARE:
		return a->direction == b->direction;
	case FFU_OP_FFT:
		return a->fft.inverse == b->fft.inverse && a->fft.length == b->fft.length &&
		       a->fft.bit_reverse == b->fft.bit_reverse;
	case FFU_OP_DOT: /* unused entries are zero (parser, builder): the whole struct compares */
		return memcmp(&a->dot, &b->dot, sizeof a->dot) == 0;
	case FFU_OP_FUSION:
		return a->callee == b->callee && a->fusion_kind == b->fusion_kind;
	case FFU_OP_MSM: /* every window width gives the same point: kept apart all the same */
		return a->window_bits == b->window_bits;
	default:
		return true;
	}
}

/* The kept instruction equal to in, or in itself after adding it. */
static ffu_inst *lookup_or_add(table *t, ffu_inst *in)
{
	size_t i = (size_t)hash_inst(in) & t->mask;
	while (t->slot[i]) {
		if (same(t->slot[i], in))
			return t->slot[i];
		i = (i + 1) & t->mask;
	}
	t->slot[i] = in;
	return in;
}

ffu_status ffu__pass_cse(ffu_module *m, const ffu_pass_opts *o, ffu_error *e)
{
	(void)o;
	ffu_computation *c = m->entry;
	int n = c->n_insts;
	ffu_status st = FFU_STATUS_ENOMEM;
	table t = {0};
	size_t cap = 16;
	while (cap < (size_t)n * 2)
		cap *= 2;
	t.mask = cap - 1;
	t.slot = calloc(cap, sizeof *t.slot);
	ffu_inst **map = malloc(sizeof *map * (size_t)(n + 1));
	ffu_inst **keep = malloc(sizeof *keep * (size_t)(n + 1));
	if (!t.slot || !map || !keep)
		goto out;
	ffu__comp_renumber(c);
	int k = 0;
	for (int i = 0; i < n; i++) {
		ffu_inst *in = c->insts[i];
		for (int j = 0; j < in->n_operands; j++)
			in->operands[j] = map[in->operands[j]->id];
		map[i] = lookup_or_add(&t, in);
		if (map[i] == in)
			keep[k++] = in;
	}
	ffu_inst *root = map[c->root->id];
	if (k != n && !ffu__comp_set_insts(c, keep, k))
		goto out;
	c->root = root;
	st = FFU_STATUS_OK;
out:
	free(t.slot);
	free(map);
	free(keep);
	return st == FFU_STATUS_ENOMEM ? ffu__err(e, st, "out of memory in the cse pass") : st;
}
