/*
 * src/ir/sharding.c: what XLA's sharding={...} means for one value (ir.h, docs/hlo.md
 * "Sharding"): its tiles, the whole shape, the rules a sharding obeys against its value's
 * shape and the module's partitions, equality and copies. Owned by the IR; the parser
 * builds shardings (hlo/parse_sharding.c), the printer writes them, ir/value_shard.c cuts
 * and joins values by them.
 *
 * The ids a sharding lists are partitions (XLA's: a sharding lays a value out over the
 * partitions of one replica; every replica holds the same layout).
 */
#include <stdio.h>
#include <string.h>

#include "ir/ir.h"

const ffu_sharding *ffu__sharding_leaf(const ffu_sharding *s, int i)
{
	return s && s->kind == FFU_SHARD_TUPLE ? (i >= 0 && i < s->n_elems ? &s->elems[i] : NULL) : s;
}

static int64_t n_devices(const ffu_sharding *s)
{
	int64_t n = 1;
	for (int d = 0; d < s->n_dims; d++)
		n *= s->dims[d];
	return n;
}

bool ffu__sharding_splits(const ffu_sharding *s)
{
	if (!s || s->kind != FFU_SHARD_TILED)
		return false;
	for (int d = 0; d < s->n_dims - (s->last_replicate ? 1 : 0); d++)
		if (s->dims[d] > 1)
			return true;
	return false;
}

void ffu__sharding_whole_shape(const ffu_sharding *s, const ffu_shape *local, ffu_shape *whole)
{
	*whole = *local;
	if (!s || s->kind != FFU_SHARD_TILED)
		return;
	for (int d = 0; d < local->rank; d++)
		whole->dims[d] *= s->dims[d];
}

bool ffu__sharding_tile_of(const ffu_sharding *s, int64_t p, bool first_only, int64_t *tile)
{
	const int64_t n = n_devices(s);
	const int64_t copies = s->last_replicate ? s->dims[s->n_dims - 1] : 1;
	for (int64_t k = 0; k < n; k++) {
		if (s->devices[k] != p)
			continue;
		if (first_only && k % copies)
			return false;
		int64_t rest = k / copies;
		for (int d = s->n_dims - (s->last_replicate ? 2 : 1); d >= 0; d--) {
			tile[d] = rest % s->dims[d];
			rest /= s->dims[d];
		}
		return true;
	}
	return false;
}

static int count_leaves(const ffu_shape *s)
{
	if (s->type != FFU_TYPE_TUPLE)
		return 1;
	int n = 0;
	for (int i = 0; i < s->n_elems; i++)
		n += count_leaves(&s->elems[i]);
	return n;
}

/* Leaf i of a tuple shape, depth first (XLA's flattened order of a tuple sharding). */
static const ffu_shape *nth_leaf(const ffu_shape *s, int *i)
{
	if (s->type != FFU_TYPE_TUPLE)
		return (*i)-- == 0 ? s : NULL;
	for (int k = 0; k < s->n_elems; k++) {
		const ffu_shape *hit = nth_leaf(&s->elems[k], i);
		if (hit)
			return hit;
	}
	return NULL;
}

static bool check_array(const ffu_sharding *s, const ffu_shape *shape, int64_t P, char *why, size_t n)
{
	if (s->kind == FFU_SHARD_REPLICATED)
		return true;
	if (s->kind == FFU_SHARD_MAXIMAL) {
		if (s->device < P)
			return true;
		snprintf(why, n, "sharding={maximal device=%lld}: the module has %lld partition%s", (long long)s->device,
			 (long long)P, P == 1 ? "" : "s");
		return false;
	}
	if (s->kind == FFU_SHARD_TUPLE) {
		snprintf(why, n, "a tuple sharding on an array value");
		return false;
	}
	if (shape->type == FFU_TYPE_TUPLE) {
		snprintf(why, n, "a tuple value takes one sharding per element: sharding={{...}, {...}}");
		return false;
	}
	const int want = shape->rank + (s->last_replicate ? 1 : 0);
	if (s->n_dims != want) {
		snprintf(why, n, "the sharding's tile assignment has %d dimension%s; the value's rank %d needs %d", s->n_dims,
			 s->n_dims == 1 ? "" : "s", shape->rank, want);
		return false;
	}
	if (shape->csr && ffu__sharding_splits(s)) {
		snprintf(why, n, "a CSR matrix cannot be split into tiles");
		return false;
	}
	const int64_t nd = n_devices(s);
	if (nd != P) {
		snprintf(why, n, "the sharding lists %lld device%s; the module has num_partitions=%lld (a sharding lays a value out over the partitions)",
			 (long long)nd, nd == 1 ? "" : "s", (long long)P);
		return false;
	}
	bool seen[FFU_MAX_RANKS] = {false};
	for (int64_t k = 0; k < nd; k++) {
		int64_t id = s->devices[k];
		if (id < 0 || id >= P || seen[id]) {
			snprintf(why, n, id < 0 || id >= P ? "the sharding names device %lld; the module has %lld partition%s"
							   : "the sharding names device %lld twice",
				 (long long)id, (long long)P, P == 1 ? "" : "s");
			return false;
		}
		seen[id] = true;
	}
	return true;
}

bool ffu__sharding_check(const ffu_sharding *s, const ffu_shape *shape, const ffu_module *m, char *why, size_t n)
{
	/* the module's ranks are within 1..FFU_MAX_RANKS: ffu__module_verify checked them first */
	const int64_t P = m->num_partitions;
	if (s->kind != FFU_SHARD_TUPLE || shape->type != FFU_TYPE_TUPLE)
		return check_array(s, shape, P, why, n);
	const int leaves = count_leaves(shape);
	if (s->n_elems != leaves) {
		snprintf(why, n, "the tuple sharding has %d element%s; the value has %d", s->n_elems, s->n_elems == 1 ? "" : "s",
			 leaves);
		return false;
	}
	for (int i = 0; i < leaves; i++) {
		int k = i;
		char inner[200];
		if (s->elems[i].kind == FFU_SHARD_TUPLE) {
			snprintf(why, n, "element %d of the tuple sharding is a tuple sharding", i);
			return false;
		}
		if (!check_array(&s->elems[i], nth_leaf(shape, &k), P, inner, sizeof inner)) {
			snprintf(why, n, "element %d of the tuple sharding: %s", i, inner);
			return false;
		}
	}
	return true;
}

bool ffu__sharding_eq(const ffu_sharding *a, const ffu_sharding *b)
{
	if (!a || !b)
		return a == b;
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case FFU_SHARD_REPLICATED:
		return true;
	case FFU_SHARD_MAXIMAL:
		return a->device == b->device;
	case FFU_SHARD_TILED:
		if (a->n_dims != b->n_dims || a->last_replicate != b->last_replicate ||
		    memcmp(a->dims, b->dims, sizeof a->dims[0] * (size_t)a->n_dims) != 0)
			return false;
		return memcmp(a->devices, b->devices, sizeof a->devices[0] * (size_t)n_devices(a)) == 0;
	case FFU_SHARD_TUPLE:
		if (a->n_elems != b->n_elems)
			return false;
		for (int i = 0; i < a->n_elems; i++)
			if (!ffu__sharding_eq(&a->elems[i], &b->elems[i]))
				return false;
		return true;
	}
	return false;
}

/* Copies s's arrays into m's arena (dst already holds s's scalars). */
static bool copy_into(ffu_module *m, ffu_sharding *dst, const ffu_sharding *s)
{
	*dst = *s;
	if (s->kind == FFU_SHARD_TILED) {
		size_t bytes = sizeof *s->devices * (size_t)n_devices(s);
		if (!(dst->devices = ffu__arena_alloc(&m->arena, bytes)))
			return false;
		memcpy(dst->devices, s->devices, bytes);
	} else if (s->kind == FFU_SHARD_TUPLE) {
		if (!(dst->elems = ffu__arena_alloc(&m->arena, sizeof *dst->elems * (size_t)(s->n_elems ? s->n_elems : 1))))
			return false;
		for (int i = 0; i < s->n_elems; i++)
			if (!copy_into(m, &dst->elems[i], &s->elems[i]))
				return false;
	}
	return true;
}

ffu_sharding *ffu__sharding_copy(ffu_module *m, const ffu_sharding *s)
{
	ffu_sharding *d = ffu__arena_alloc(&m->arena, sizeof *d);
	return d && copy_into(m, d, s) ? d : NULL;
}
