/*
 * src/ir/verify_collective.c: the rules of the collectives (all-reduce, all-gather,
 * reduce-scatter, all-to-all, collective-permute) and of replica-id and partition-id,
 * XLA's shape rules (docs/hlo.md "Collectives") over the groups ir/collective.c resolves.
 * Shared with the verifier through ir/verify_impl.h.
 *
 * Narrower than XLA, on purpose: collectives only in the ENTRY computation (every rank runs
 * it; fused and to_apply computations are one rank's kernels), one array operand, the
 * array forms of all-to-all (dimensions={d}: split and concat dimension d), groups of one
 * size that name every id once.
 */
#include <stdio.h>

#include "ir/verify_impl.h"

static bool is_value(const ffu_shape *s)
{
	return is_array(s) && elem_kind(s) != FFU_ELEM_UINT && elem_kind(s) != FFU_ELEM_PRED;
}

/* dimensions={d}: exactly one, inside the operand's rank. */
static ffu_status one_dim(const vctx *v, const ffu_inst *in, int64_t *d)
{
	const ffu_shape *x = &in->operands[0]->shape;
	if (in->n_dims != 1 || !in->dims)
		return IERR(FFU_STATUS_EVERIFY, in, "dimensions must name exactly one dimension, has %d", in->n_dims);
	*d = in->dims[0];
	if (*d < 0 || *d >= x->rank)
		return IERR(FFU_STATUS_EVERIFY, in, "dimensions={%lld} is out of range for the operand's rank %d",
			    (long long)*d, x->rank);
	return FFU_STATUS_OK;
}

static ffu_status need_shape(const vctx *v, const ffu_inst *in, const ffu_shape *want, const char *why)
{
	char a[160], b[160];
	if (!ffu__shape_eq(&in->shape, want))
		return IERR(FFU_STATUS_EVERIFY, in, "result is %s; %s gives %s", fmt_shape(&in->shape, a, sizeof a), why,
			    fmt_shape(want, b, sizeof b));
	return FFU_STATUS_OK;
}

/* The shape rule of a grouped collective, groups of `size` ranks. */
static ffu_status check_grouped(const vctx *v, const ffu_computation *c, const ffu_inst *in, int size)
{
	char a[160];
	const ffu_shape *x = &in->operands[0]->shape;
	ffu_shape want = *x;
	int64_t d = 0;
	ffu_status st = FFU_STATUS_OK;
	switch (in->op) {
	case FFU_OP_ALL_REDUCE:
		if ((st = need_shape(v, in, x, "reducing the operand over each group")))
			return st;
		return ffu__verify_combiner(v, c, in, x->type);
	case FFU_OP_ALL_GATHER:
		if ((st = one_dim(v, in, &d)))
			return st;
		want.dims[d] *= size;
		return need_shape(v, in, &want, "joining the group's operands along the dimension");
	case FFU_OP_REDUCE_SCATTER:
		if ((st = one_dim(v, in, &d)))
			return st;
		if (x->dims[d] % size)
			return IERR(FFU_STATUS_EVERIFY, in, "dimension %lld of the operand %s is not a multiple of the group size %d",
				    (long long)d, fmt_shape(x, a, sizeof a), size);
		want.dims[d] /= size;
		if ((st = need_shape(v, in, &want, "one group member's piece of the reduction")))
			return st;
		return ffu__verify_combiner(v, c, in, x->type);
	default: /* all-to-all */
		if ((st = one_dim(v, in, &d)))
			return st;
		if (x->dims[d] % size)
			return IERR(FFU_STATUS_EVERIFY, in, "dimension %lld of the operand %s is not a multiple of the group size %d",
				    (long long)d, fmt_shape(x, a, sizeof a), size);
		return need_shape(v, in, x, "exchanging equal pieces");
	}
}

ffu_status ffu__verify_collective(const vctx *v, const ffu_computation *c, const ffu_inst *in)
{
	char a[160], why[256];
	const ffu_module *m = v->m;
	if (!c->is_entry)
		return IERR(FFU_STATUS_EVERIFY, in,
			    "collectives run only in the ENTRY computation (a fused or to_apply computation is one rank's work)");
	/* the module's ranks are within 1..FFU_MAX_RANKS: ffu__module_verify checked them first */
	if (in->op == FFU_OP_REPLICA_ID || in->op == FFU_OP_PARTITION_ID) {
		ffu_shape u32 = {.type = FFU_TYPE_U32};
		return need_shape(v, in, &u32, in->op == FFU_OP_REPLICA_ID ? "the replica number" : "the partition number");
	}
	ffu_status st = ffu__verify_need_array(v, in, 0);
	if (st)
		return st;
	const ffu_shape *x = &in->operands[0]->shape;
	if (!is_value(x))
		return IERR(FFU_STATUS_EVERIFY, in, "operand '%%%s' is %s: collectives move field or point values",
			    in->operands[0]->name, fmt_shape(x, a, sizeof a));
	if (in->coll.has_global_ids && in->coll.global_ids && in->coll.channel_id <= 0)
		return IERR(FFU_STATUS_EVERIFY, in, "use_global_device_ids=true needs a channel_id (XLA's rule)");
	if (in->coll.channel_id < 0)
		return IERR(FFU_STATUS_EVERIFY, in, "channel_id=%lld must be positive", (long long)in->coll.channel_id);
	if (in->op == FFU_OP_COLLECTIVE_PERMUTE) {
		int src[FFU_MAX_RANKS];
		if (!ffu__coll_sources(in, m, src, why, sizeof why))
			return IERR(FFU_STATUS_EVERIFY, in, "%s", why);
		return need_shape(v, in, x, "receiving another rank's operand");
	}
	ffu_coll_groups g;
	if (!ffu__coll_groups(in, m, &g, why, sizeof why))
		return IERR(FFU_STATUS_EVERIFY, in, "%s", why);
	int size = g.size;
	ffu__coll_groups_free(&g);
	return check_grouped(v, c, in, size);
}
