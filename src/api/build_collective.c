/*
 * src/api/build_collective.c: the builder's collectives (include/fieldfuse/builder.h,
 * docs/hlo.md "Collectives"): the program's ranks, the grouped collectives,
 * collective-permute, replica-id and partition-id. Like build_ops.c, each call checks its
 * public arguments, builds the result shape and attributes and adds the instruction through
 * ffu__bld_add, whose verification (ir/verify_collective.c) names anything else wrong.
 */
#include <string.h>

#include "api/builder_impl.h"

ffu_status ffu_builder_set_ranks(ffu_builder *b, int64_t replicas, int64_t partitions, ffu_error *e)
{
	const char *call = "ffu_builder_set_ranks";
	if (!ffu__bld_usable(b, call))
		return ffu_builder_status(b, e);
	if (b->n_nodes > 0)
		ffu__bld_fail(b, FFU_STATUS_EINVAL, call, "the ranks are set before the first node (%d added)", b->n_nodes);
	else if (replicas < 1 || partitions < 1 || replicas > FFU_MAX_RANKS || partitions > FFU_MAX_RANKS ||
		 replicas * partitions > FFU_MAX_RANKS)
		ffu__bld_fail(b, FFU_STATUS_EINVAL, call, "%lld replicas x %lld partitions: 1 to %d ranks are supported",
			      (long long)replicas, (long long)partitions, FFU_MAX_RANKS);
	else {
		b->m->replica_count = replicas;
		b->m->num_partitions = partitions;
	}
	return ffu_builder_status(b, e);
}

typedef struct coll_arg {
	ffu_collective_attrs attrs;
	int64_t dim;              /* dimensions={dim}, */
	ffu__bld_dims dims;       /* as a list of one (none where n is 0) */
	ffu_computation *callee;
	ffu_op fn;
} coll_arg;

static void set_coll(ffu_inst *in, const void *arg)
{
	const coll_arg *a = arg;
	in->coll = a->attrs;
	ffu__bld_set_dims(in, &a->dims);
	in->callee = a->callee;
	in->reduce_fn = a->fn;
}

/* The ids copied into the module's arena (the caller's array may go away). */
static bool copy_ids(ffu_builder *b, int64_t **out, const int64_t *ids, size_t n)
{
	*out = NULL;
	if (!n)
		return true;
	if (!(*out = ffu__arena_alloc(&b->m->arena, sizeof **out * n)))
		return false;
	memcpy(*out, ids, sizeof **out * n);
	return true;
}

ffu_node ffu_build_collective(ffu_builder *b, ffu_collective_op op, ffu_node x, const ffu_collective_groups *g,
			      int64_t dim, ffu_reduce_kind kind)
{
	const char *call = "ffu_build_collective";
	static const ffu_op ops_of[] = {FFU_OP_ALL_REDUCE, FFU_OP_ALL_GATHER, FFU_OP_REDUCE_SCATTER, FFU_OP_ALL_TO_ALL};
	if (!ffu__bld_usable(b, call))
		return FFU_NODE_INVALID;
	ffu_inst *xi = ffu__bld_operand(b, call, 0, x);
	if (!xi)
		return FFU_NODE_INVALID;
	if ((unsigned)op >= sizeof ops_of / sizeof ops_of[0])
		return ffu__bld_fail(b, FFU_STATUS_EINVAL, call, "op %d is no ffu_collective_op", (int)op);
	const bool reduces = op == FFU_COLLECTIVE_ALL_REDUCE || op == FFU_COLLECTIVE_REDUCE_SCATTER;
	if (reduces && kind != FFU_REDUCE_SUM && kind != FFU_REDUCE_PRODUCT)
		return ffu__bld_fail(b, FFU_STATUS_EINVAL, call, "kind %d is neither FFU_REDUCE_SUM nor FFU_REDUCE_PRODUCT",
				     (int)kind);
	static const ffu_collective_groups every = {NULL, 0, 0, 0, -1};
	if (!g)
		g = &every;
	if (g->n_groups < 0 || (g->n_groups > 0 && (g->group_size < 1 || !g->ids)) || g->use_global_device_ids < -1 ||
	    g->use_global_device_ids > 1)
		return ffu__bld_fail(b, FFU_STATUS_EINVAL, call,
				     "groups: %d groups of %d ids%s, use_global_device_ids %d (-1, 0 or 1)", g->n_groups,
				     g->group_size, g->n_groups > 0 && !g->ids ? ", ids NULL" : "", g->use_global_device_ids);
	coll_arg a = {.dim = dim};
	a.dims = (ffu__bld_dims){&a.dim, op == FFU_COLLECTIVE_ALL_REDUCE ? 0 : 1, &b->m->arena};
	a.attrs = (ffu_collective_attrs){.n_groups = g->n_groups, .group_size = g->n_groups ? g->group_size : 0,
					 .channel_id = g->channel_id, .has_global_ids = g->use_global_device_ids >= 0,
					 .global_ids = g->use_global_device_ids == 1};
	if (!copy_ids(b, &a.attrs.groups, g->ids, (size_t)a.attrs.n_groups * (size_t)a.attrs.group_size))
		return ffu__bld_fail(b, FFU_STATUS_ENOMEM, call, "out of memory");
	ffu_shape s = xi->shape;
	if (ffu__shape_is_array(&s) && a.dims.n && dim >= 0 && dim < s.rank) {
		/* the group's size: as written, or every id of the mode's range */
		ffu_inst probe = {.coll = a.attrs};
		int64_t size = g->n_groups ? g->group_size : ffu__coll_id_count(&probe, b->m);
		if (op == FFU_COLLECTIVE_ALL_GATHER)
			s.dims[dim] *= size;
		else if (op == FFU_COLLECTIVE_REDUCE_SCATTER && size > 0)
			s.dims[dim] /= size; /* a remainder is the verifier's to name */
	}
	if (reduces) {
		if (!ffu__bld_to_apply(b, call, s.type, kind, &a.callee))
			return FFU_NODE_INVALID;
		a.fn = kind == FFU_REDUCE_SUM ? FFU_OP_ADD : FFU_OP_MULTIPLY;
	}
	return ffu__bld_add(b, call, ops_of[op], NULL, &s, &xi, 1, set_coll, &a);
}

ffu_node ffu_build_collective_permute(ffu_builder *b, ffu_node x, const int64_t *pairs, int n_pairs,
				      int64_t channel_id)
{
	const char *call = "ffu_build_collective_permute";
	if (!ffu__bld_usable(b, call))
		return FFU_NODE_INVALID;
	ffu_inst *xi = ffu__bld_operand(b, call, 0, x);
	if (!xi)
		return FFU_NODE_INVALID;
	if (n_pairs < 0 || (n_pairs > 0 && !pairs))
		return ffu__bld_fail(b, FFU_STATUS_EINVAL, call, "n_pairs = %d%s", n_pairs,
				     n_pairs > 0 && !pairs ? ", pairs NULL" : "");
	coll_arg a = {.attrs = {.n_pairs = n_pairs, .channel_id = channel_id}};
	if (!copy_ids(b, &a.attrs.pairs, pairs, 2 * (size_t)n_pairs))
		return ffu__bld_fail(b, FFU_STATUS_ENOMEM, call, "out of memory");
	return ffu__bld_add(b, call, FFU_OP_COLLECTIVE_PERMUTE, NULL, &xi->shape, &xi, 1, set_coll, &a);
}

static ffu_node rank_number(ffu_builder *b, const char *call, ffu_op op)
{
	if (!ffu__bld_usable(b, call))
		return FFU_NODE_INVALID;
	ffu_shape s = {.type = FFU_TYPE_U32};
	coll_arg a = {0};
	return ffu__bld_add(b, call, op, NULL, &s, NULL, 0, set_coll, &a);
}

ffu_node ffu_build_replica_id(ffu_builder *b)
{
	return rank_number(b, "ffu_build_replica_id", FFU_OP_REPLICA_ID);
}

ffu_node ffu_build_partition_id(ffu_builder *b)
{
	return rank_number(b, "ffu_build_partition_id", FFU_OP_PARTITION_ID);
}
