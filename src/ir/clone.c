/*
 * ir/clone.c: deep copies of modules. A copy lives wholly in its own arena (names, shapes,
 * literals, dimension lists, instruction and computation lists), so either module can be
 * mutated by passes or freed without touching the other; the source is only read, which
 * is what lets threads compile copies of one shared program at the same time.
 */
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"

/* Source instruction -> its copy, sorted by source address for bsearch. */
typedef struct inst_map {
	const ffu_inst *from;
	ffu_inst *to;
} inst_map;

static int cmp_map(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const inst_map *)a)->from, y = (uintptr_t)((const inst_map *)b)->from;
	return x < y ? -1 : x > y;
}

static ffu_inst *map_find(const inst_map *map, size_t n, const ffu_inst *from)
{
	inst_map key = {from, NULL};
	const inst_map *hit = bsearch(&key, map, n, sizeof key, cmp_map);
	return hit ? hit->to : NULL;
}

static void *arena_dup(ffu_arena *a, const void *src, size_t bytes)
{
	void *p = ffu__arena_alloc(a, bytes ? bytes : 1);
	if (p && bytes)
		memcpy(p, src, bytes);
	return p;
}

/* Copies one instruction's attributes into dst's module; the callee is mapped by the caller. */
static bool copy_attrs(ffu_module *m, ffu_inst *dst, const ffu_inst *src)
{
	ffu__inst_copy_attrs(dst, src);
	dst->line = src->line;
	dst->col = src->col;
	dst->literal = NULL; /* never shared: the source's arena may die first */
	dst->dims = NULL;
	dst->coll.groups = dst->coll.pairs = NULL;
	const ffu_collective_attrs *ca = &src->coll;
	size_t ng = (size_t)ca->n_groups * (size_t)ca->group_size, np = 2 * (size_t)ca->n_pairs;
	if ((ng && !(dst->coll.groups = arena_dup(&m->arena, ca->groups, sizeof *ca->groups * ng))) ||
	    (np && !(dst->coll.pairs = arena_dup(&m->arena, ca->pairs, sizeof *ca->pairs * np))))
		return false;
	if (src->sharding && !(dst->sharding = ffu__sharding_copy(m, src->sharding)))
		return false;
	if (src->literal && ffu__shape_is_array(&src->shape)) {
		size_t bytes = (size_t)ffu__shape_count(&src->shape) * ffu__shape_elem_bytes(&src->shape);
		if (!(dst->literal = arena_dup(&m->arena, src->literal, bytes)))
			return false;
	}
	if (src->dims && src->n_dims > 0 &&
	    !(dst->dims = arena_dup(&m->arena, src->dims, sizeof *src->dims * (size_t)src->n_dims)))
		return false;
	return true;
}

/*
 * Copies every computation in order, then every instruction list with operands remapped.
 * Instructions are found through a map rather than by id, since a pass may leave ids stale
 * and a computation's lists (params, root) may hold instructions its list no longer has.
 */
ffu_module *ffu__module_clone(const ffu_module *src)
{
	ffu_module *m = NULL;
	inst_map *map = NULL;
	ffu_comp_pos *pos = NULL;
	bool ok = false;
	size_t n_map = 0;
	if (!src || !(m = ffu__module_new(src->name)))
		goto out;
	m->name_counter = src->name_counter;
	m->replica_count = src->replica_count;
	m->num_partitions = src->num_partitions;
	for (int i = 0; i < src->n_comps; i++)
		n_map += (size_t)src->comps[i]->n_insts;
	if (!(map = malloc(sizeof *map * (n_map + 1))) || !(pos = ffu__comp_pos_build(src)))
		goto out;
	n_map = 0;
	for (int i = 0; i < src->n_comps; i++) {
		const ffu_computation *sc = src->comps[i];
		ffu_computation *c = ffu__comp_new(m, sc->name);
		if (!c)
			goto out;
		c->is_entry = sc->is_entry;
		c->is_fused = sc->is_fused;
		c->line = sc->line;
		c->col = sc->col;
		if (sc == src->entry)
			m->entry = c;
		for (int j = 0; j < sc->n_insts; j++) {
			const ffu_inst *si = sc->insts[j];
			ffu_inst *in = ffu__inst_new(c, si->op, si->name, &si->shape, NULL, 0);
			if (!in || !copy_attrs(m, in, si))
				goto out;
			int k = ffu__comp_pos_find(pos, src->n_comps, si->callee);
			in->callee = k >= 0 ? m->comps[k] : NULL; /* callees come first: already copied */
			map[n_map++] = (inst_map){si, in};
		}
	}
	qsort(map, n_map, sizeof *map, cmp_map);
	for (int i = 0; i < src->n_comps; i++) {
		const ffu_computation *sc = src->comps[i];
		ffu_computation *c = m->comps[i];
		for (int j = 0; j < sc->n_insts; j++) {
			const ffu_inst *si = sc->insts[j];
			ffu_inst *in = c->insts[j];
			if (si->n_operands == 0)
				continue;
			if (!(in->operands = ffu__arena_alloc(&m->arena, sizeof *in->operands * (size_t)si->n_operands)))
				goto out;
			in->n_operands = si->n_operands;
			for (int k = 0; k < si->n_operands; k++)
				if (!(in->operands[k] = map_find(map, n_map, si->operands[k])))
					goto out;
		}
		c->root = sc->root ? map_find(map, n_map, sc->root) : NULL;
		if (sc->n_params > 0 &&
		    !(c->params = ffu__arena_alloc(&m->arena, sizeof *c->params * (size_t)sc->n_params)))
			goto out;
		c->n_params = sc->n_params;
		for (int k = 0; k < sc->n_params; k++)
			if (sc->params[k] && !(c->params[k] = map_find(map, n_map, sc->params[k])))
				goto out;
		if (sc->root && !c->root)
			goto out;
	}
	ok = true;
out:
	free(pos);
	free(map);
	if (!ok) {
		ffu__module_free(m);
		m = NULL;
	}
	return m;
}
