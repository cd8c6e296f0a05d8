/*
 * interp/collective.c: the collectives, replica-id and partition-id across the simulated
 * ranks of one interpreter run (interp.c runs every rank's ENTRY in lockstep and hands each
 * collective all ranks' operands at once). The groups and sources are ir/collective.c's,
 * the ones the MPI runtime will use, so the oracle and the runtime cannot disagree on who
 * talks to whom; the data movement here is written plainly, element by element.
 */
#include <stdlib.h>
#include <string.h>

#include "interp/interp_impl.h"

/* The element of x at multi-index idx, with idx[d] replaced by c. */
static const unsigned char *at(const ffu_value *x, const int64_t *idx, int d, int64_t c, size_t eb)
{
	int64_t k[FFU_MAX_RANK];
	memcpy(k, idx, sizeof k);
	k[d] = c;
	return x->data + (size_t)ffu__shape_ravel(&x->shape, k) * eb;
}

/* acc = the group's operands combined by in's to_apply (same shape as each operand). */
static void combine(const ffu_inst *in, const ffu_coll_groups *g, int grp, const ffu_value *const *x,
		    unsigned char *acc)
{
	const ffu_field *f = ffu__shape_field(&x[0]->shape);
	ffu_field_fn fn = in->reduce_fn == FFU_OP_MULTIPLY ? ffu__fp_mul : ffu__fp_add;
	const int *ranks = g->ranks + (size_t)grp * g->size;
	const size_t eb = f->storage_bytes, bytes = x[ranks[0]]->bytes;
	memcpy(acc, x[ranks[0]]->data, bytes);
	for (int j = 1; j < g->size; j++)
		for (size_t k = 0; k < bytes; k += eb)
			fn(f, acc + k, acc + k, x[ranks[j]]->data + k);
}

static ffu_status grouped(const ffu_inst *in, const ffu_module *m, const ffu_value *const *x, ffu_value *const *o,
			  ffu_error *e)
{
	char why[256];
	ffu_coll_groups g;
	if (!ffu__coll_groups(in, m, &g, why, sizeof why))
		return ffu__err(e, FFU_STATUS_EINVAL, "%s '%%%s': %s", ffu__ops[in->op].keyword, in->name, why);
	const size_t eb = ffu__shape_elem_bytes(&in->shape);
	const int d = in->n_dims ? (int)in->dims[0] : 0;
	unsigned char *acc = NULL;
	ffu_status st = FFU_STATUS_OK;
	if ((in->op == FFU_OP_ALL_REDUCE || in->op == FFU_OP_REDUCE_SCATTER) && !(acc = malloc(x[0]->bytes + 1)))
		st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory in the interpreter");
	for (int grp = 0; grp < g.n_groups && st == FFU_STATUS_OK; grp++) {
		const int *ranks = g.ranks + (size_t)grp * g.size;
		if (acc)
			combine(in, &g, grp, x, acc);
		ffu_value whole = {.shape = x[0]->shape, .data = acc, .bytes = x[0]->bytes};
		for (int p = 0; p < g.size; p++) {
			ffu_value *out = o[ranks[p]];
			const ffu_value *mine = x[ranks[p]];
			int64_t idx[FFU_MAX_RANK], n = ffu__shape_count(&out->shape);
			const int64_t xd = in->n_dims ? mine->shape.dims[d] : 0, od = in->n_dims ? out->shape.dims[d] : 0;
			if (in->op == FFU_OP_ALL_REDUCE) {
				memcpy(out->data, acc, out->bytes);
				continue;
			}
			for (int64_t i = 0; i < n; i++) {
				ffu__shape_unravel(&out->shape, i, idx);
				const unsigned char *src;
				if (in->op == FFU_OP_ALL_GATHER) /* member idx/xd's operand, at idx mod xd */
					src = at(x[ranks[idx[d] / xd]], idx, d, idx[d] % xd, eb);
				else if (in->op == FFU_OP_REDUCE_SCATTER) /* piece p of the reduction */
					src = at(&whole, idx, d, (int64_t)p * od + idx[d], eb);
				else { /* all-to-all: piece p of member j's operand, j = idx / piece */
					const int64_t piece = xd / g.size;
					src = at(x[ranks[idx[d] / piece]], idx, d, (int64_t)p * piece + idx[d] % piece, eb);
				}
				memcpy(out->data + (size_t)i * eb, src, eb);
			}
		}
	}
	free(acc);
	ffu__coll_groups_free(&g);
	return st;
}

ffu_status ffu__interp_collective(const ffu_inst *in, const ffu_module *m, int n_ranks, const ffu_value *const *x,
				  ffu_value *const *o, ffu_error *e)
{
	const int64_t P = m->num_partitions;
	switch (in->op) {
	case FFU_OP_REPLICA_ID:
	case FFU_OP_PARTITION_ID:
		for (int r = 0; r < n_ranks; r++) {
			uint32_t id = (uint32_t)(in->op == FFU_OP_REPLICA_ID ? r / P : r % P);
			memcpy(o[r]->data, &id, sizeof id); /* u32 storage: little-endian, as the host */
		}
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
