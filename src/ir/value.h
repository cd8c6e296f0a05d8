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

#endif
