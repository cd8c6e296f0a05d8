/*
 * tests/hlo_check.c: HLO front-end assertions shared by the HLO suites (test_hlo.c,
 * test_hlo_zkx.c): parse or fail, print, structural module equality, round trips.
 */
#include "hlo_check.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

ffu_module *parse_ok(const char *text)
{
	ffu_error e = {0};
	ffu_module *m = NULL;
	ffu_status st = ffu__hlo_parse(&m, text, strlen(text), "test.hlo", &e);
	cr_assert_eq(st, FFU_STATUS_OK, "parse failed: %s:%d:%d: %s\n%s", e.file, e.line, e.col, e.message, text);
	cr_assert_not_null(m);
	return m;
}

char *print_ok(const ffu_module *m)
{
	ffu_strbuf sb = {0};
	ffu_error e = {0};
	ffu_status st = ffu__hlo_print(&sb, m, &e);
	cr_assert_eq(st, FFU_STATUS_OK, "print failed: %s", e.message);
	char *s = strdup(ffu__sb_cstr(&sb));
	ffu__sb_free(&sb);
	return s;
}

ffu_status parse_err(const char *text, size_t len, ffu_error *e)
{
	ffu_module *m = NULL;
	ffu_status st = ffu__hlo_parse(&m, text, len, "bad.hlo", e);
	if (st == FFU_STATUS_OK)
		ffu__module_free(m);
	else
		cr_assert_null(m);
	return st;
}

/* Structural equality: same computations, instructions, operands (by position), attributes. */
void assert_same_module(const ffu_module *a, const ffu_module *b)
{
	cr_assert_str_eq(a->name, b->name);
	cr_assert_eq(a->replica_count, b->replica_count);
	cr_assert_eq(a->num_partitions, b->num_partitions);
	cr_assert_eq(a->n_comps, b->n_comps);
	for (int i = 0; i < a->n_comps; i++) {
		const ffu_computation *ca = a->comps[i], *cb = b->comps[i];
		cr_assert_str_eq(ca->name, cb->name);
		cr_assert_eq(ca->is_entry, cb->is_entry);
		cr_assert_eq(ca->is_fused, cb->is_fused);
		cr_assert_eq(ca == a->entry, cb == b->entry);
		cr_assert_eq(ca->n_insts, cb->n_insts);
		cr_assert_eq(ca->n_params, cb->n_params);
		cr_assert_eq(ca->root->id, cb->root->id);
		for (int k = 0; k < ca->n_params; k++)
			cr_assert_eq(ca->params[k]->id, cb->params[k]->id);
		for (int j = 0; j < ca->n_insts; j++) {
			const ffu_inst *x = ca->insts[j], *y = cb->insts[j];
			cr_assert_eq(x->op, y->op);
			cr_assert_str_eq(x->name, y->name);
			cr_assert(ffu__shape_eq(&x->shape, &y->shape), "shape of %s", x->name);
			cr_assert_eq(x->n_operands, y->n_operands);
			for (int k = 0; k < x->n_operands; k++)
				cr_assert_eq(x->operands[k]->id, y->operands[k]->id);
			if (x->op == FFU_OP_PARAMETER || x->op == FFU_OP_GET_TUPLE_ELEMENT)
				cr_assert_eq(x->index, y->index);
			if (x->op == FFU_OP_CONSTANT) {
				size_t n = (size_t)ffu__shape_count(&x->shape) * ffu__shape_elem_bytes(&x->shape);
				cr_assert(n == 0 || memcmp(x->literal, y->literal, n) == 0, "literal of %s", x->name);
			}
			cr_assert_eq(x->n_dims, y->n_dims);
			for (int k = 0; k < x->n_dims; k++)
				cr_assert_eq(x->dims[k], y->dims[k]);
			if (x->op == FFU_OP_IOTA)
				cr_assert_eq(x->index, y->index);
			if (x->op == FFU_OP_SLICE)
				for (int d = 0; d < x->shape.rank; d++) {
					cr_assert_eq(x->slice_start[d], y->slice_start[d], "slice of %s", x->name);
					cr_assert_eq(x->slice_limit[d], y->slice_limit[d], "slice of %s", x->name);
					cr_assert_eq(x->slice_stride[d], y->slice_stride[d], "slice of %s", x->name);
				}
			if (x->op == FFU_OP_COMPARE)
				cr_assert_eq(x->direction, y->direction);
			if (x->op == FFU_OP_REDUCE || x->op == FFU_OP_ALL_REDUCE || x->op == FFU_OP_REDUCE_SCATTER)
				cr_assert_eq(x->reduce_fn, y->reduce_fn);
			const ffu_collective_attrs *u = &x->coll, *w = &y->coll;
			cr_assert(u->n_groups == w->n_groups && u->group_size == w->group_size && u->n_pairs == w->n_pairs &&
					  u->channel_id == w->channel_id && u->has_global_ids == w->has_global_ids &&
					  u->global_ids == w->global_ids,
				  "collective attributes of %s", x->name);
			for (int k = 0; k < u->n_groups * u->group_size; k++)
				cr_assert_eq(u->groups[k], w->groups[k], "replica_groups of %s", x->name);
			for (int k = 0; k < 2 * u->n_pairs; k++)
				cr_assert_eq(u->pairs[k], w->pairs[k], "source_target_pairs of %s", x->name);
			cr_assert(ffu__sharding_eq(x->sharding, y->sharding), "sharding of %s", x->name);
			if (x->op == FFU_OP_DOT)
				cr_assert(memcmp(&x->dot, &y->dot, sizeof x->dot) == 0, "dimension numbers of %s", x->name);
			cr_assert_eq(!!x->callee, !!y->callee);
			if (x->callee) {
				cr_assert_str_eq(x->callee->name, y->callee->name);
				if (x->op == FFU_OP_FUSION)
					cr_assert_eq(x->fusion_kind, y->fusion_kind);
			}
		}
	}
}

char *reprint(const ffu_module *m)
{
	char *t1 = print_ok(m);
	ffu_module *m2 = parse_ok(t1);
	char *t2 = print_ok(m2);
	cr_assert_str_eq(t1, t2);
	assert_same_module(m, m2);
	ffu__module_free(m2);
	free(t2);
	return t1;
}

char *round_trip(const char *text)
{
	ffu_module *m = parse_ok(text);
	char *t = reprint(m);
	ffu__module_free(m);
	return t;
}
