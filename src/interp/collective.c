/*
 * interp/collective.c: the collectives, replica-id and partition-id across the simulated
 * ranks of one interpreter run (interp.c runs every rank's ENTRY in lockstep and hands each
 * collective all ranks' operands at once). The groups and sources are ir/collective.c's,
 * the ones the MPI runtime will use, so the oracle and the runtime cannot disagree on who
 * talks to whom; the data moves in blocks of whole steps along the collective's dimension
 * (ir/value.h's ffu__copy_rows), the sums and products element by element.
 */
#include <stdlib.h>
#include <string.h>

#include "interp/interp_impl.h"
#include "ir/value.h"

/* acc = the group's operands combined by in's to_apply (same shape as each operand). */
static void combine(const ffu_inst *in, const ffu_coll_groups *g, int grp, const ffu_value *const *x,
		    unsigned char *acc)
{
	const ffu_field *f = ffu__shape_field(&x[0]->shape);
	ffu_field_fn fn = in->reduce_fn == FFU_OP_MULTIPLY ? ffu__fp_mul : ffu__fp_add;
	const int *ranks = g->ranks + (size_t)grp * g->size;
	const size_t bytes = x[ranks[0]]->bytes;
	memcpy(acc, x[ranks[0]]->data, bytes);
	for (int j = 1; j < g->size; j++)
		ffu__fp_combine_n(f, fn, acc, acc, x[ranks[j]]->data, bytes / f->storage_bytes);
}

static ffu_status grouped(const ffu_inst *in, const ffu_module *m, const ffu_value *const *x, ffu_value *const *o,
			  ffu_error *e)
{
	char why[256];
	ffu_coll_groups g;
	if (!ffu__coll_groups(in, m, &g, why, sizeof why))
		return ffu__err(e, FFU_STATUS_EINVAL, "%s '%%%s': %s", ffu__ops[in->op].keyword, in->name, why);
	const int d = in->n_dims ? (int)in->dims[0] : 0;
	unsigned char *acc = NULL;
	ffu_status st = FFU_STATUS_OK;
	if ((in->op == FFU_OP_ALL_REDUCE || in->op == FFU_OP_REDUCE_SCATTER) && !(acc = malloc(x[0]->bytes + 1)))
		st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory in the interpreter");
	for (int grp = 0; grp < g.n_groups && st == FFU_STATUS_OK; grp++) {
		const int *ranks = g.ranks + (size_t)grp * g.size;
		if (acc)
			combine(in, &g, grp, x, acc);
		/* dimension d as [outer][extent][step]: the pieces move as blocks of whole steps */
		int64_t outer = 1, xd = 1;
		size_t step = 0;
		if (in->n_dims)
			ffu__shape_split_at(&x[0]->shape, d, &outer, &xd, &step);
		for (int p = 0; p < g.size; p++) {
			ffu_value *out = o[ranks[p]];
			if (in->op == FFU_OP_ALL_REDUCE) {
				memcpy(out->data, acc, out->bytes);
				continue;
			}
			const size_t S = (size_t)g.size;
			if (in->op == FFU_OP_ALL_GATHER) { /* member j's operand is piece j of the result */
				const size_t run = (size_t)xd * step;
				for (int j = 0; j < g.size; j++)
					ffu__copy_rows(out->data + j * run, S * run, x[ranks[j]]->data, run, outer, run);
			} else if (in->op == FFU_OP_REDUCE_SCATTER) { /* piece p of the reduction */
				const size_t run = (size_t)xd / S * step;
				ffu__copy_rows(out->data, run, acc + p * run, S * run, outer, run);
			} else { /* all-to-all: piece p of member j's operand becomes piece j */
				const size_t run = (size_t)xd / S * step;
				for (int j = 0; j < g.size; j++)
					ffu__copy_rows(out->data + j * run, S * run, x[ranks[j]]->data + p * run, S * run, outer,
						       run);
			}
		}
	}
	free(acc);
	ffu__coll_groups_free(&g);
	return st;
}

ffu_status ffu__interp_collective_rank(const ffu_inst *in, const ffu_module *m, int rank, ffu_value *o, ffu_error *e)
{
	if (in->op != FFU_OP_REPLICA_ID && in->op != FFU_OP_PARTITION_ID)
		return ffu__err(e, FFU_STATUS_EINVAL, "'%%%s' is not replica-id or partition-id", in->name);
	const int64_t P = m->num_partitions; /* rank = replica x P + partition */
	const uint32_t id = (uint32_t)(in->op == FFU_OP_REPLICA_ID ? rank / P : rank % P);
	memcpy(o->data, &id, sizeof id); /* u32 storage: little-endian, as the host */
	return FFU_STATUS_OK;
}

ffu_status ffu__interp_collective(const ffu_inst *in, const ffu_module *m, int n_ranks, const ffu_value *const *x,
				  ffu_value *const *o, ffu_error *e)
{
	switch (in->op) {
	case FFU_OP_REPLICA_ID:
	case FFU_OP_PARTITION_ID:
		for (int r = 0; r < n_ranks; r++)
			ffu__interp_collective_rank(in, m, r, o[r], e);
		return FFU_STATUS_OK;
	case FFU_OP_COLLECTIVE_PERMUTE: {
		char why[256];
		int *src = malloc(sizeof *src * (size_t)n_ranks);
		if (!src)
			return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory in the interpreter");
		if (!ffu__coll_sources(in, m, src, why, sizeof why)) {
			free(src);
			return ffu__err(e, FFU_STATUS_EINVAL, "collective-permute '%%%s': %s", in->name, why);
		}
		const ffu_field *f = ffu__shape_field(&in->shape);
		for (int r = 0; r < n_ranks; r++) {
			if (src[r] >= 0) {
				memcpy(o[r]->data, x[src[r]]->data, o[r]->bytes);
				continue;
			}
			/* no source: the type's zero (x - x: 0, or the point at infinity in its kind's encoding) */
			for (size_t k = 0; k < o[r]->bytes; k += f->storage_bytes)
				ffu__fp_sub(f, o[r]->data + k, x[r]->data + k, x[r]->data + k);
		}
		free(src);
		return FFU_STATUS_OK;
	}
	default:
		return grouped(in, m, x, o, e);
	}
}
