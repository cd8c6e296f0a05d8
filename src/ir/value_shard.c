/*
 * src/ir/value_shard.c: values cut into and joined from the partitions' tiles of a
 * sharding (ir.h, docs/hlo.md "Sharding"), and what that means for a program's inputs and
 * outputs: the shape a parameter's value file holds, each rank's value of a parameter, the
 * program's outputs from every rank's; and the strided block copy the collectives move pieces
 * of a dimension with (interp/collective.c, the transport exchange of api/tool_spmd.c).
 * Owned by the IR's host values; fieldfuse run (its interpreter, one-process and MPI paths,
 * through api/tool_spmd.c) is the user, so the three agree by construction.
 */
#include <stdlib.h>
#include <string.h>

#include "ir/value.h"

int64_t ffu__tile_rows(const ffu_shape *local, int64_t *row)
{
	*row = local->rank ? local->dims[local->rank - 1] : 1;
	return *row ? ffu__shape_count(local) / *row : 0;
}

int64_t ffu__tile_row_offset(const ffu_shape *local, const int64_t *tiles, const int64_t *tile, int64_t k)
{
	const int r = local->rank;
	if (r == 0)
		return 0;
	int64_t off = tile[r - 1] * local->dims[r - 1], stride = local->dims[r - 1] * tiles[r - 1];
	for (int d = r - 2; d >= 0; d--) { /* k's index along d, within the tile; the whole array's stride */
		const int64_t i = k % local->dims[d];
		k /= local->dims[d];
		off += (tile[d] * local->dims[d] + i) * stride;
		stride *= local->dims[d] * tiles[d];
	}
	return off;
}

/* Copies tile `tile` (its index along each dimension; tiles[d] of them along d, each of
   local's shape) between the whole array and the piece, either way. */
static void copy_tile(unsigned char *whole, unsigned char *piece, const ffu_shape *local, const int64_t *tiles,
		      const int64_t *tile, size_t eb, bool to_piece)
{
	int64_t row;
	const int64_t rows = ffu__tile_rows(local, &row);
	for (int64_t k = 0; k < rows; k++) {
		unsigned char *w = whole + (size_t)ffu__tile_row_offset(local, tiles, tile, k) * eb;
		unsigned char *p = piece + (size_t)(k * row) * eb;
		memcpy(to_piece ? p : w, to_piece ? w : p, (size_t)row * eb);
	}
}

ffu_status ffu__value_tile(const ffu_value *whole, const ffu_sharding *s, int64_t p, const ffu_shape *local,
			   ffu_value *out, ffu_error *e)
{
	int64_t tile[FFU_MAX_RANK + 1];
	if (!ffu__sharding_tile_of(s, p, false, tile))
		return ffu__err(e, FFU_STATUS_EINVAL, "partition %lld holds no tile of the sharding", (long long)p);
	ffu_status st = ffu__value_alloc(out, local, e);
	if (st)
		return st;
	copy_tile(whole->data, out->data, local, s->dims, tile, ffu__shape_elem_bytes(local), true);
	return FFU_STATUS_OK;
}

ffu_status ffu__value_untile(const ffu_value *const *pieces, int64_t n_parts, const ffu_sharding *s, ffu_value *whole,
			     ffu_error *e)
{
	const ffu_shape *local = &pieces[0]->shape;
	ffu_shape ws;
	int64_t tile[FFU_MAX_RANK + 1];
	ffu__sharding_whole_shape(s, local, &ws);
	ffu_status st = ffu__value_alloc(whole, &ws, e);
	if (st)
		return st;
	for (int64_t p = 0; p < n_parts; p++)
		if (ffu__sharding_tile_of(s, p, true, tile)) /* one copy of each tile is read */
			copy_tile(whole->data, pieces[p]->data, local, s->dims, tile, ffu__shape_elem_bytes(local), false);
	return FFU_STATUS_OK;
}

void ffu__shape_split_at(const ffu_shape *s, int d, int64_t *outer, int64_t *extent, size_t *step)
{
	*outer = 1;
	*step = ffu__shape_elem_bytes(s);
	for (int k = 0; k < s->rank; k++) {
		if (k < d)
			*outer *= s->dims[k];
		else if (k > d)
			*step *= (size_t)s->dims[k];
	}
	*extent = s->rank ? s->dims[d] : 1;
}

void ffu__copy_rows(unsigned char *dst, size_t dst_stride, const unsigned char *src, size_t src_stride, int64_t rows,
		    size_t row_bytes)
{
	for (int64_t r = 0; r < rows; r++)
		memcpy(dst + (size_t)r * dst_stride, src + (size_t)r * src_stride, row_bytes);
}

void ffu__param_whole_shape(const ffu_module *m, int p, ffu_shape *out)
{
	const ffu_inst *in = m->entry->params[p];
	ffu__sharding_whole_shape(in->sharding, &in->shape, out);
}

ffu_status ffu__param_rank_value(const ffu_module *m, int p, const ffu_value *whole, int rank, ffu_value *out,
				 bool *owned, ffu_error *e)
{
	const ffu_inst *in = m->entry->params[p];
	*owned = ffu__sharding_splits(in->sharding);
	if (!*owned) {
		*out = *whole; /* every rank reads the whole value: borrowed */
		return FFU_STATUS_OK;
	}
	return ffu__value_tile(whole, in->sharding, rank % m->num_partitions, &in->shape, out, e);
}

ffu_status ffu__param_take_rank(const ffu_module *m, int p, ffu_value *whole, int rank, ffu_value *out, ffu_error *e)
{
	bool owned = false;
	ffu_status st = ffu__param_rank_value(m, p, whole, rank, out, &owned, e);
	if (st == FFU_STATUS_OK && !owned) {
		*out = *whole; /* unsplit: the whole value is the rank's */
		return FFU_STATUS_OK;
	}
	ffu__value_free(whole);
	return st;
}

/* Output o's sharding: the ROOT's, or its element o's when the ROOT is a tuple. */
static const ffu_sharding *output_sharding(const ffu_module *m, int o)
{
	const ffu_inst *root = m->entry->root;
	return root->shape.type == FFU_TYPE_TUPLE ? ffu__sharding_leaf(root->sharding, o) : root->sharding;
}

/* The rank whose output o is the program's, when it is not joined from tiles. */
static int output_rank(const ffu_sharding *s)
{
	return s && s->kind == FFU_SHARD_MAXIMAL ? (int)s->device : 0; /* replica 0's partition D is rank D */
}

bool ffu__outputs_need_rank(const ffu_module *m, int rank, int n_outputs)
{
	for (int o = 0; o < n_outputs; o++) {
		const ffu_sharding *s = output_sharding(m, o);
		if (ffu__sharding_splits(s) ? rank < m->num_partitions : rank == output_rank(s))
			return true;
	}
	return false;
}

ffu_status ffu__outputs_join(const ffu_module *m, ffu_value *const *outs, int n, ffu_value **whole, ffu_error *e)
{
	const int64_t P = m->num_partitions;
	const ffu_value **pieces = calloc((size_t)P, sizeof *pieces);
	ffu_value *w = calloc((size_t)n + 1, sizeof *w);
	ffu_status st = pieces && w ? FFU_STATUS_OK : ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	for (int o = 0; o < n && st == FFU_STATUS_OK; o++) {
		const ffu_sharding *s = output_sharding(m, o);
		if (ffu__sharding_splits(s)) {
			for (int64_t p = 0; p < P; p++)
				pieces[p] = &outs[p][o]; /* replica 0: ranks 0 .. P-1 */
			st = ffu__value_untile(pieces, P, s, &w[o], e);
			continue;
		}
		const ffu_value *src = &outs[output_rank(s)][o];
		if ((st = ffu__value_alloc(&w[o], &src->shape, e)) == FFU_STATUS_OK)
			memcpy(w[o].data, src->data, src->bytes);
	}
	free(pieces);
	if (st) {
		ffu__values_free(w, n);
		w = NULL;
	}
	*whole = w;
	return st;
}
