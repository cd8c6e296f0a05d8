/*
 * src/ir/value.c: host value arrays (see value.h). Owned by the HLO front end; value files
 * are in src/hlo/values.c. A value owns its malloc'd data and nothing else: its shape is an
 * array shape, which holds no pointers.
 */
#include "ir/value.h"

#include "point.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

ffu_status ffu__value_alloc(ffu_value *v, const ffu_shape *shape, ffu_error *e)
{
	if (!v || !shape)
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu__value_alloc: NULL argument");
	memset(v, 0, sizeof *v);
	if (!ffu__shape_is_array(shape) || shape->rank < 0 || shape->rank > FFU_MAX_RANK)
		return ffu__err(e, FFU_STATUS_EINVAL, "values need an array shape");
	size_t eb = ffu__shape_elem_bytes(shape);
	if (eb == 0)
		return ffu__err(e, FFU_STATUS_EUNSUPPORTED, "values of type %s are not supported",
				ffu__type_name(shape->type));
	/* Overflow-checked count * bytes: shapes come from user text. A zero dimension makes
	   the count 0 whatever follows (so it never divides the bound below). */
	size_t count = 1;
	for (int i = 0; i < shape->rank; i++) {
		int64_t d = shape->dims[i];
		if (d < 0)
			return ffu__err(e, FFU_STATUS_EINVAL, "values need dimensions >= 0");
		if (d > 0 && count > 0 && (uint64_t)d > SIZE_MAX / eb / count)
			return ffu__err(e, FFU_STATUS_ENOMEM, "value of shape too large for host memory");
		count *= (size_t)d;
	}
	size_t bytes = shape->csr ? ffu__csr_bytes(shape) : count * eb; /* CSR: ZKX's bytes (ir/csr.c) */
	if (bytes == SIZE_MAX)
		return ffu__err(e, FFU_STATUS_ENOMEM, "value of shape too large for host memory");
	v->shape = *shape;
	v->shape.elems = NULL;
	v->shape.n_elems = 0;
	v->bytes = bytes;
	v->data = calloc(v->bytes ? v->bytes : 1, 1);
	if (!v->data) {
		v->bytes = 0;
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory allocating %zu bytes of values", bytes);
	}
	return FFU_STATUS_OK;
}

void ffu__value_free(ffu_value *v)
{
	if (!v)
		return;
	free(v->data);
	memset(v, 0, sizeof *v);
}

void ffu__value_random(ffu_value *v, uint64_t *state)
{
	const ffu_field *f = v ? ffu__shape_field(&v->shape) : NULL;
	if (!f || !v->data)
		return;
	if (v->shape.csr) {
		ffu__csr_random(&v->shape, v->data, state);
		return;
	}
	if (f->kind == FFU_ELEM_POINT) { /* on the curve, and fast: fields/point_random.c */
		ffu__point_random_array(f, v->data, (int64_t)(v->bytes / f->storage_bytes), state);
		return;
	}
	for (size_t off = 0; off + f->storage_bytes <= v->bytes; off += f->storage_bytes)
		ffu__fp_random(f, v->data + off, state);
}

void ffu__values_free(ffu_value *v, int n)
{
	for (int i = 0; v && i < n; i++)
		ffu__value_free(&v[i]);
	free(v);
}
