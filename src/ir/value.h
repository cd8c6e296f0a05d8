/*
 * src/ir/value.h: host-side arrays of values: program inputs and outputs, interpreter
 * temporaries. Data is canonical little-endian storage bytes, row-major, exactly as value
 * files' .bin form and device buffers hold it; a CSR sparse matrix holds ZKX's CSR bytes
 * (ir/csr.c). The owner frees data with ffu__value_free.
 */
#ifndef FFU_IR_VALUE_H
#define FFU_IR_VALUE_H

#include "ir/ir.h"

typedef struct ffu_value {
	ffu_shape shape;      /* array shape (tuples are lists of ffu_value) */
	unsigned char *data;  /* malloc'd, ffu__shape_count * elem bytes (CSR: ffu__csr_bytes) */
	size_t bytes;
} ffu_value;

/* Allocates zeroed data for an array shape (shape copied shallowly: arrays own no pointers). */
ffu_status ffu__value_alloc(ffu_value *v, const ffu_shape *shape, ffu_error *e);
void ffu__value_free(ffu_value *v);
/* Frees n values and the array holding them (what the interpreter and exec return). NULL-safe. */
void ffu__values_free(ffu_value *v, int n);
/* Fills with uniform random field elements from *state (a CSR matrix: random positions too). */
void ffu__value_random(ffu_value *v, uint64_t *state);

/*
 * Value files (HLO.md section 4). Read: text or .bin by extension; the element count and
 * type come from `expect` (an array shape); errors name FILE:LINE. Write: text unless the
 * path ends in .bin (one output only); written to a temporary file and renamed, so a
 * failure never leaves a partial file under the final name.
 */
ffu_status ffu__values_read(ffu_value *out, const char *path, const ffu_shape *expect, ffu_error *e);
ffu_status ffu__values_write(const char *path, const ffu_value *outs, int n, ffu_error *e);

/*
 * --- sharded values (ir/value_shard.c; docs/hlo.md "Sharding") ---
 * A tiled sharding's partition p holds tile p of the whole value: tile cuts it (out: a new
 * value of shape local), untile joins the partitions' pieces[0 .. n_parts) (one copy of
 * each tile is read).
 */
ffu_status ffu__value_tile(const ffu_value *whole, const ffu_sharding *s, int64_t p, const ffu_shape *local,
			   ffu_value *out, ffu_error *e);
ffu_status ffu__value_untile(const ffu_value *const *pieces, int64_t n_parts, const ffu_sharding *s, ffu_value *whole,
			     ffu_error *e);
/* A tile of local's shape, tile[d] along each dimension of a whole array of tiles[d] tiles
   per dimension, is rows of contiguous elements: tile_rows gives their count and *row their
   length; row k starts at element tile_row_offset of the whole array (row-major). */
int64_t ffu__tile_rows(const ffu_shape *local, int64_t *row);
int64_t ffu__tile_row_offset(const ffu_shape *local, const int64_t *tiles, const int64_t *tile, int64_t k);
/* Rank rank's value of parameter p read from its value file: a tile of a .bin file read
   alone (its rows, at their offsets: no rank reads the whole file), anything else read whole
   and cut (ffu__param_rank_value). hlo/values.c. */
ffu_status ffu__param_read_rank(const ffu_module *m, int p, const char *path, int rank, ffu_value *out, ffu_error *e);
/* Array shape s around dimension d: the blocks before it (outer), its extent, and the bytes
   of one step along it (the elements after d); a value is [outer][extent][step]. */
void ffu__shape_split_at(const ffu_shape *s, int d, int64_t *outer, int64_t *extent, size_t *step);
/* rows runs of row_bytes, from src every src_stride bytes to dst every dst_stride bytes: the
   block copy the collectives move pieces of a dimension with. */
void ffu__copy_rows(unsigned char *dst, size_t dst_stride, const unsigned char *src, size_t src_stride, int64_t rows,
		    size_t row_bytes);
/* The shape parameter p's value file holds: the whole value its sharding cuts. */
void ffu__param_whole_shape(const ffu_module *m, int p, ffu_shape *out);
/* Rank rank's value of parameter p from the whole one: its tile (*owned: a new value the
   caller frees) or, unsplit, whole itself (borrowed: the same data). */
ffu_status ffu__param_rank_value(const ffu_module *m, int p, const ffu_value *whole, int rank, ffu_value *out,
				 bool *owned, ffu_error *e);
/* The same, taking whole: out is its tile (whole freed) or, unsplit, whole itself (moved);
   on failure whole is freed. */
ffu_status ffu__param_take_rank(const ffu_module *m, int p, ffu_value *whole, int rank, ffu_value *out, ffu_error *e);
/* The program's outputs from every rank's (outs[r]: rank r's n outputs): an output the
   ROOT's sharding tiles joined from replica 0's partitions, one with {maximal device=D}
   rank D's, any other rank 0's. *whole: n new values (ffu__values_free). */
ffu_status ffu__outputs_join(const ffu_module *m, ffu_value *const *outs, int n, ffu_value **whole, ffu_error *e);
/* Whether ffu__outputs_join reads rank's outputs (what an MPI run gathers). */
bool ffu__outputs_need_rank(const ffu_module *m, int rank, int n_outputs);

#endif
