/* ir/shape.c: shapes and element types. */
#include <stdio.h>
#include <string.h>

#include "ir/ir.h"

static const char *const type_names[FFU_TYPE_COUNT] = {
#define FFU_FIELD(ID, name, ...) [FFU_TYPE_##ID] = #name, [FFU_TYPE_##ID##_MONT] = #name "_mont",
#include "fields.def"
#undef FFU_FIELD
#define FFU_EXT(ID, name, ...) [FFU_TYPE_##ID] = #name, [FFU_TYPE_##ID##_MONT] = #name "_mont",
#include "fields.def"
#undef FFU_EXT
	[FFU_TYPE_U32] = "u32",
	[FFU_TYPE_U64] = "u64",
	[FFU_TYPE_PRED] = "pred",
#define FFU_INT(ID, name, ...) [FFU_TYPE_##ID] = #name,
#include "fields.def"
#undef FFU_INT
#define FFU_CURVE(ID, name, ...)                                                                        \
	[FFU_TYPE_##ID##_AFFINE] = #name "_affine", [FFU_TYPE_##ID##_JACOBIAN] = #name "_jacobian",          \
	[FFU_TYPE_##ID##_XYZZ] = #name "_xyzz", [FFU_TYPE_##ID##_AFFINE_MONT] = #name "_affine_mont",        \
	[FFU_TYPE_##ID##_JACOBIAN_MONT] = #name "_jacobian_mont", [FFU_TYPE_##ID##_XYZZ_MONT] = #name "_xyzz_mont",
#include "curves.def"
#undef FFU_CURVE
	[FFU_TYPE_TUPLE] = "tuple",
};

const char *ffu__type_name(ffu_type t)
{
	return t >= 0 && t < FFU_TYPE_COUNT ? type_names[t] : "invalid";
}

ffu_type ffu__type_by_name(const char *s, size_t len)
{
	for (int t = 0; t < FFU_ELEM_COUNT; t++)
		if (strlen(type_names[t]) == len && memcmp(type_names[t], s, len) == 0)
			return (ffu_type)t;
	return FFU_TYPE_INVALID;
}

bool ffu__shape_is_array(const ffu_shape *s)
{
	return s->type != FFU_TYPE_TUPLE && s->type != FFU_TYPE_INVALID;
}

int64_t ffu__shape_count(const ffu_shape *s)
{
	int64_t n = 1;
	for (int i = 0; i < s->rank; i++)
		n *= s->dims[i];
	return n;
}

bool ffu__shape_eq(const ffu_shape *a, const ffu_shape *b)
{
	if (a->type != b->type)
		return false;
	if (a->type == FFU_TYPE_TUPLE) {
		if (a->n_elems != b->n_elems)
			return false;
		for (int i = 0; i < a->n_elems; i++)
			if (!ffu__shape_eq(&a->elems[i], &b->elems[i]))
				return false;
		return true;
	}
	return ffu__shape_same_dims(a, b) && a->csr == b->csr && (!a->csr || a->nnz == b->nnz);
}

bool ffu__shape_same_dims(const ffu_shape *a, const ffu_shape *b)
{
	if (a->type == FFU_TYPE_TUPLE || b->type == FFU_TYPE_TUPLE || a->rank != b->rank)
		return false;
	for (int i = 0; i < a->rank; i++)
		if (a->dims[i] != b->dims[i])
			return false;
	return true;
}

int64_t ffu__shape_stride(const ffu_shape *s, int d)
{
	int64_t st = 1;
	for (int k = d + 1; k < s->rank; k++)
		st *= s->dims[k];
	return st;
}

void ffu__shape_unravel(const ffu_shape *s, int64_t i, int64_t idx[FFU_MAX_RANK])
{
	for (int d = s->rank - 1; d >= 0; d--) {
		idx[d] = s->dims[d] ? i % s->dims[d] : 0;
		i = s->dims[d] ? i / s->dims[d] : 0;
	}
}

int64_t ffu__shape_ravel(const ffu_shape *s, const int64_t idx[FFU_MAX_RANK])
{
	int64_t i = 0;
	for (int d = 0; d < s->rank; d++)
		i = i * s->dims[d] + idx[d];
	return i;
}

const ffu_field *ffu__shape_field(const ffu_shape *s)
{
	return s->type >= 0 && (int)s->type < (int)FFU_ELEM_COUNT ? ffu__field_get((ffu_field_id)s->type) : NULL;
}

size_t ffu__shape_elem_bytes(const ffu_shape *s)
{
	const ffu_field *f = ffu__shape_field(s);
	return f ? f->storage_bytes : 0;
}

size_t ffu__shape_bytes(const ffu_shape *s)
{
	if (s->csr)
		return ffu__csr_bytes(s);
	uint64_t n = (uint64_t)ffu__shape_count(s), eb = ffu__shape_elem_bytes(s);
	return eb && n > SIZE_MAX / eb ? SIZE_MAX : (size_t)(n * eb);
}

static size_t format_into(const ffu_shape *s, char *buf, size_t size)
{
	size_t n = 0;
#define PUT(...)                                                                          \
	do {                                                                               \
		int k_ = snprintf(buf + n, n < size ? size - n : 0, __VA_ARGS__);          \
		n += k_ > 0 ? (size_t)k_ : 0;                                              \
	} while (0)
	if (s->type == FFU_TYPE_TUPLE) {
		PUT("(");
		for (int i = 0; i < s->n_elems; i++) {
			if (i)
				PUT(", ");
			n += format_into(&s->elems[i], n < size ? buf + n : buf + size, n < size ? size - n : 0);
		}
		PUT(")");
		return n;
	}
	PUT("%s[", ffu__type_name(s->type));
	for (int i = 0; i < s->rank; i++)
		PUT(i ? ",%lld" : "%lld", (long long)s->dims[i]);
	PUT("]");
	if (s->csr) /* the layout that makes it one: how the text writes it back */
		PUT("{1,0:D(D, C) NNZ(%lld)}", (long long)s->nnz);
#undef PUT
	return n;
}

void ffu__shape_format(const ffu_shape *s, char *buf, size_t size)
{
	if (size == 0)
		return;
	buf[0] = '\0';
	format_into(s, buf, size);
	buf[size - 1] = buf[size - 1] ? '\0' : buf[size - 1];
}

int ffu__log2_pow2(int64_t n)
{
	if (n < 1 || (n & (n - 1)))
		return -1;
	int k = 0;
	while ((INT64_C(1) << k) < n)
		k++;
	return k;
}

uint64_t ffu__bitrev(uint64_t i, int bits)
{
	uint64_t r = 0;
	for (int b = 0; b < bits; b++, i >>= 1)
		r = r << 1 | (i & 1);
	return r;
}
