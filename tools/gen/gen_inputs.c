/*
 * tools/gen/gen_inputs.c: the inputs fieldfuse-soak feeds a generated program (gen.h:
 * ffu_gen_inputs). Random values of each parameter's type, from one stream for the whole
 * module, whose first elements are the edge cases of the arithmetic: 0, 1 and -1 in a
 * field, 0, 1 and the all-ones pattern in an integer type, infinity, G and -G in a point
 * type; a scalar integer parameter (a dynamic-slice's start, most often) from a draw of its
 * own. One seed gives the same bytes every time: a failure's seed is its reproduction.
 *
 * The arrays are the caller's host bytes (ffu_program_input's info.bytes each, in the
 * type's storage form); the shape behind each is rebuilt here from its ffu_array_info (a
 * CSR matrix's too), and the values are drawn with the fields' own arithmetic.
 */
#include "gen.h"

#include <string.h>

#include "fields/field.h"
#include "fields/point.h"
#include "ir/ir.h"
#include "ir/value.h"

/*
 * A scalar integer parameter from its own draw, so the other parameters' values stay as
 * they were: 0 (the edge) 1 in 4, any value of the type 1 in 4 (clamped to an end, if a
 * start), else a small one about the dimensions' range (negative too, for a signed type),
 * where windows start inside, at and past the end.
 */
static void scalar_int_input(const ffu_field *f, unsigned char *d, uint64_t seed, int p)
{
	uint64_t h = seed ^ (0x632be59bd9b4e019ull * (uint64_t)(p + 1)), r = ffu__rand_next(&h);
	switch (r % 4) {
	case 0:
		ffu__fp_set_u64(f, d, 0);
		break;
	case 1:
		ffu__fp_random(f, d, &h);
		break;
	default: /* the bit pattern of a small value; ffu__fp_set_u64 keeps the type's low bits */
		ffu__fp_set_u64(f, d, f->is_signed ? (uint64_t)((int64_t)(r >> 8) % 72 - 8) : (r >> 8) % 72);
		break;
	}
}

/* A point array's first elements: infinity, G and -G (the edge cases of the formulas). */
static void point_edges(const ffu_field *f, unsigned char *first, int64_t n)
{
	const ffu_field *fs = f->curve->scalar;
	unsigned char k[FFU_FIELD_MAX_BYTES];
	for (int64_t i = 0; i < n && i < 3; i++) {
		ffu__fp_set_u64(fs, k, i == 2 ? 1 : (uint64_t)i);
		if (i == 2)
			ffu__fp_neg(fs, k, k, NULL);
		ffu__point_gen_mul(f, first + (size_t)i * f->storage_bytes, fs, k);
	}
}

/* The array shape an input's description stands for (dense, or a CSR matrix's). */
static ffu_status input_shape(ffu_shape *s, const ffu_array_info *info, int i, ffu_error *e)
{
	memset(s, 0, sizeof *s);
	s->type = ffu__type_by_name(info->type, strlen(info->type));
	s->rank = info->rank;
	for (int d = 0; d < info->rank; d++)
		s->dims[d] = info->dims[d];
	s->csr = info->nnz >= 0;
	s->nnz = s->csr ? info->nnz : 0;
	const ffu_field *f = s->type == FFU_TYPE_INVALID ? NULL : ffu__shape_field(s);
	size_t bytes = !f ? 0 : s->csr ? ffu__csr_bytes(s) : (size_t)ffu__shape_count(s) * f->storage_bytes;
	if (!f || strcmp(f->name, info->type) != 0 || bytes != info->bytes)
		return ffu__err(e, FFU_STATUS_EUNSUPPORTED, "ffu_gen_inputs: input %d (%s): no shape of type %s", i,
				info->name, info->type);
	return FFU_STATUS_OK;
}

ffu_status ffu_gen_inputs(const ffu_program *p, uint64_t seed, void *const *inputs, ffu_error *e)
{
	uint64_t rng = seed ^ 0x5bd1e995u;
	for (int i = 0; i < ffu_program_num_inputs(p); i++) {
		ffu_array_info info;
		ffu_shape s;
		ffu_status st = ffu_program_input(p, i, &info);
		if (st)
			return ffu__err(e, st, "ffu_gen_inputs: no input %d", i);
		if ((st = input_shape(&s, &info, i, e)))
			return st;
		/* drawn in place, from zeroed bytes as a fresh value's; an empty array is drawn too
		   (a draw may take from the stream before its first element) */
		unsigned char none[1];
		ffu_value v = {.shape = s, .data = info.bytes ? inputs[i] : none, .bytes = info.bytes};
		memset(v.data, 0, v.bytes);
		ffu__value_random(&v, &rng);
		const ffu_field *f = ffu__shape_field(&s);
		int64_t n = s.csr ? s.nnz : ffu__shape_count(&s); /* a CSR matrix: its first stored values */
		unsigned char *first = v.data + (s.csr ? ffu__csr_values_offset(&s) : 0);
		if (f->kind == FFU_ELEM_POINT) {
			point_edges(f, first, n);
			continue;
		}
		for (int64_t k = 0; k < n && k < 3 && f->kind != FFU_ELEM_PRED; k++) {
			unsigned char *d = first + (size_t)k * f->storage_bytes;
			ffu__fp_set_u64(f, d, k == 2 ? 1 : (uint64_t)k);
			if (k == 2 && f->kind == FFU_ELEM_UINT)
				memset(d, 0xff, f->storage_bytes);
			else if (k == 2)
				ffu__fp_neg(f, d, d, NULL);
		}
		if (n == 1 && !s.csr && f->kind == FFU_ELEM_UINT)
			scalar_int_input(f, first, seed, i);
	}
	return FFU_STATUS_OK;
}
