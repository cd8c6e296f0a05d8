/* ir/module.c: creating modules, computations and instructions in the module's arena. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"

ffu_module *ffu__module_new(const char *name)
{
	ffu_module *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	m->replica_count = m->num_partitions = 1;
	m->name = ffu__arena_strdup(&m->arena, name ? name : "module");
	if (!m->name) {
		free(m);
		return NULL;
	}
	return m;
}

void ffu__module_free(ffu_module *m)
{
	if (!m)
		return;
	ffu__sym_free(&m->names);
	ffu__arena_free(&m->arena);
	free(m);
}

/* Grows an arena-held pointer array; the old block stays in the arena (bounded waste: 2x). */
static bool grow(ffu_arena *a, void ***items, int *cap, int need)
{
	if (need <= *cap)
		return true;
	int ncap = *cap ? *cap * 2 : 8;
	while (ncap < need)
		ncap *= 2;
	void **p = ffu__arena_alloc(a, sizeof(void *) * (size_t)ncap);
	if (!p)
		return false;
	if (*items)
		memcpy(p, *items, sizeof(void *) * (size_t)*cap);
	*items = p;
	*cap = ncap;
	return true;
}

ffu_computation *ffu__comp_new(ffu_module *m, const char *name)
{
	if (!name) /* a failed ffu__module_unique_name */
		return NULL;
	ffu_computation *c = ffu__arena_alloc(&m->arena, sizeof *c);
	if (!c || !grow(&m->arena, (void ***)&m->comps, &m->cap_comps, m->n_comps + 1))
		return NULL;
	c->name = ffu__arena_strdup(&m->arena, name);
	if (!c->name)
		return NULL;
	c->module = m;
	m->comps[m->n_comps++] = c;
	if (m->names_built && !ffu__sym_put(&m->names, c->name, c))
		return NULL;
	return c;
}

ffu_computation *ffu__comp_new_reducer(ffu_module *m, const char *name, const char *px, const char *py,
				       const char *pr, ffu_type t, ffu_op op)
{
	ffu_shape sc = {.type = t};
	ffu_computation *c = ffu__comp_new(m, name);
	ffu_inst *x = c && px ? ffu__inst_new(c, FFU_OP_PARAMETER, px, &sc, NULL, 0) : NULL;
	ffu_inst *y = x && py ? ffu__inst_new(c, FFU_OP_PARAMETER, py, &sc, NULL, 0) : NULL;
	ffu_inst *r = y && pr ? ffu__inst_new(c, op, pr, &sc, (ffu_inst *[]){x, y}, 2) : NULL;
	if (!r || !(c->params = ffu__arena_alloc(&m->arena, 2 * sizeof *c->params)))
		return NULL;
	y->index = 1;
	c->params[0] = x;
	c->params[1] = y;
	c->n_params = 2;
	c->root = r;
	for (int i = m->n_comps - 1; i > 0 && m->comps[i - 1]->is_entry; i--) { /* the entry stays last */
		m->comps[i] = m->comps[i - 1];
		m->comps[i - 1] = c;
	}
	return c;
}

bool ffu__shape_copy(ffu_module *m, ffu_shape *dst, const ffu_shape *src)
{
	*dst = *src;
	if (src->type != FFU_TYPE_TUPLE || src->n_elems == 0) {
		dst->elems = NULL;
		return true;
	}
	dst->elems = ffu__arena_alloc(&m->arena, sizeof(ffu_shape) * (size_t)src->n_elems);
	if (!dst->elems)
		return false;
	for (int i = 0; i < src->n_elems; i++)
		if (!ffu__shape_copy(m, &dst->elems[i], &src->elems[i]))
			return false;
	return true;
}

ffu_inst *ffu__inst_new(ffu_computation *c, ffu_op op, const char *name, const ffu_shape *shape,
			ffu_inst *const *operands, int n_operands)
{
	if (!grow(&c->module->arena, (void ***)&c->insts, &c->cap_insts, c->n_insts + 1))
		return NULL;
	ffu_inst *in = ffu__inst_alloc(c, op, name, shape, operands, n_operands);
	if (!in)
		return NULL;
	in->id = c->n_insts;
	c->insts[c->n_insts++] = in;
	return in;
}

ffu_inst *ffu__inst_alloc(ffu_computation *c, ffu_op op, const char *name, const ffu_shape *shape,
			  ffu_inst *const *operands, int n_operands)
{
	ffu_module *m = c->module;
	ffu_inst *in = name ? ffu__arena_alloc(&m->arena, sizeof *in) : NULL;
	if (!in)
		return NULL;
	in->op = op;
	in->name = ffu__arena_strdup(&m->arena, name);
	if (!in->name || !ffu__shape_copy(m, &in->shape, shape))
		return NULL;
	if (n_operands > 0) {
		in->operands = ffu__arena_alloc(&m->arena, sizeof(ffu_inst *) * (size_t)n_operands);
		if (!in->operands)
			return NULL;
		memcpy(in->operands, operands, sizeof(ffu_inst *) * (size_t)n_operands);
	}
	in->n_operands = n_operands;
	in->parent = c;
	in->id = -1;
	if (m->names_built && !ffu__sym_put(&m->names, in->name, in))
		return NULL;
	return in;
}

bool ffu__comp_set_insts(ffu_computation *c, ffu_inst *const *insts, int n)
{
	ffu_inst **list = ffu__arena_alloc(&c->module->arena, sizeof(ffu_inst *) * (size_t)(n ? n : 1));
	if (!list)
		return false;
	memcpy(list, insts, sizeof(ffu_inst *) * (size_t)n);
	c->insts = list;
	c->n_insts = c->cap_insts = n;
	for (int i = 0; i < n; i++) {
		list[i]->parent = c;
		list[i]->id = i;
	}
	return true;
}

/*
 * Names in use, as a table built on first need (after parsing, which names instructions
 * itself) and kept current by ffu__comp_new and ffu__inst_alloc: passes that create many
 * instructions would otherwise rescan the module for every new name.
 */
static bool build_names(ffu_module *m)
{
	for (int i = 0; i < m->n_comps; i++) {
		const ffu_computation *c = m->comps[i];
		if (!ffu__sym_put(&m->names, c->name, (void *)c))
			return false;
		for (int j = 0; j < c->n_insts; j++)
			if (!ffu__sym_put(&m->names, c->insts[j]->name, c->insts[j]))
				return false;
	}
	m->names_built = true;
	return true;
}

const char *ffu__module_unique_name(ffu_module *m, const char *base)
{
	char buf[256];
	if (!m->names_built && !build_names(m))
		return NULL;
	/* The base is cut so that the counter always fits: a long name from the text (the
	   parser renames scoped duplicates through here) must still give new names. */
	do
		snprintf(buf, sizeof buf, "%.200s.%u", base, m->name_counter++);
	while (ffu__sym_get(&m->names, buf, strlen(buf)));
	return ffu__arena_strdup(&m->arena, buf);
}

ffu_computation *ffu__module_find_comp(const ffu_module *m, const char *name)
{
	for (int i = 0; i < m->n_comps; i++)
		if (strcmp(m->comps[i]->name, name) == 0)
			return m->comps[i];
	return NULL;
}

void ffu__comp_renumber(ffu_computation *c)
{
	for (int i = 0; i < c->n_insts; i++)
		c->insts[i]->id = i;
}

int *ffu__comp_use_counts(const ffu_computation *c)
{
	int *uses = calloc((size_t)c->n_insts + 1, sizeof *uses);
	if (!uses)
		return NULL;
	for (int i = 0; i < c->n_insts; i++)
		for (int j = 0; j < c->insts[i]->n_operands; j++)
			uses[c->insts[i]->operands[j]->id]++;
	if (c->root)
		uses[c->root->id]++;
	return uses;
}

void ffu__inst_copy_attrs(ffu_inst *dst, const ffu_inst *src)
{
	/* arena-owned arrays (literal, dims) are immutable once built: sharing them is safe */
	dst->index = src->index;
	dst->literal = src->literal;
	dst->n_dims = src->n_dims;
	dst->dims = src->dims;
	memcpy(dst->slice_start, src->slice_start, sizeof dst->slice_start);
	memcpy(dst->slice_limit, src->slice_limit, sizeof dst->slice_limit);
	memcpy(dst->slice_stride, src->slice_stride, sizeof dst->slice_stride);
	dst->direction = src->direction;
	dst->callee = src->callee;
	dst->reduce_fn = src->reduce_fn;
	dst->fusion_kind = src->fusion_kind;
	dst->fft = src->fft;
	dst->dot = src->dot;
	dst->coll = src->coll;
	dst->sharding = src->sharding;
	dst->window_bits = src->window_bits;
}

static int cmp_comp_pos(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const ffu_comp_pos *)a)->c, y = (uintptr_t)((const ffu_comp_pos *)b)->c;
	return x < y ? -1 : x > y;
}

ffu_comp_pos *ffu__comp_pos_build(const ffu_module *m)
{
	ffu_comp_pos *pos = malloc(sizeof *pos * ((size_t)m->n_comps + 1));
	if (!pos)
		return NULL;
	for (int i = 0; i < m->n_comps; i++)
		pos[i] = (ffu_comp_pos){m->comps[i], i};
	qsort(pos, (size_t)m->n_comps, sizeof *pos, cmp_comp_pos);
	return pos;
}

int ffu__comp_pos_find(const ffu_comp_pos *pos, int n, const ffu_computation *c)
{
	if (!c)
		return -1;
	ffu_comp_pos key = {c, -1};
	const ffu_comp_pos *hit = bsearch(&key, pos, (size_t)n, sizeof key, cmp_comp_pos);
	return hit ? hit->index : -1;
}
