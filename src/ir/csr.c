/*
 * src/ir/csr.c: CSR sparse matrices as ZKX stores them (ZKX.md section 3): the bytes of a
 * value of shape T[M, N]{1,0:D(D, C) NNZ(n)} are row_ptrs u32[M+1] at byte 0, col_indices
 * u32[n] at 4(M+1), values T[n] at 4(M+1+n), little-endian, no padding, each value in T's
 * storage form (ZKX's math::SparseMatrix::ToCSRBuffer). Row r's entries are e in
 * [row_ptrs[r], row_ptrs[r+1]); columns within a row need not be sorted, and a column may
 * repeat (its products add up, as ZKX's emitter sums them).
 *
 * Used by value files and the CLI (ir/value.c, hlo/values.c), the interpreter, the API's
 * input checks and uploads: one definition of the layout and of what a valid value is.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"

static uint32_t get_u32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_u32(unsigned char *p, uint32_t v)
{
	for (int k = 0; k < 4; k++)
		p[k] = (unsigned char)(v >> (8 * k));
}

size_t ffu__csr_cols_offset(const ffu_shape *s)
{
	return 4 * ((size_t)s->dims[0] + 1);
}

size_t ffu__csr_values_offset(const ffu_shape *s)
{
	return ffu__csr_cols_offset(s) + 4 * (size_t)s->nnz;
}

size_t ffu__csr_bytes(const ffu_shape *s)
{
	/* the verifier bounds M and NNZ below 2^32 (u32 row pointers), so only values can overflow */
	uint64_t eb = ffu__shape_elem_bytes(s), n = (uint64_t)s->nnz;
	if (s->dims[0] < 0 || s->nnz < 0 || s->dims[0] >= (int64_t)UINT32_MAX || s->nnz > (int64_t)UINT32_MAX ||
	    (eb && n > (SIZE_MAX - ffu__csr_values_offset(s)) / eb))
		return SIZE_MAX;
	return ffu__csr_values_offset(s) + (size_t)(n * eb);
}

bool ffu__csr_check(const ffu_shape *s, const unsigned char *data, size_t bytes, char *why, size_t why_size)
{
	const ffu_field *f = ffu__shape_field(s);
	size_t want = ffu__csr_bytes(s), eb = f ? f->storage_bytes : 0;
	int64_t m = s->dims[0], n = s->dims[1];
	if (!f || bytes != want) {
		snprintf(why, why_size, "%zu bytes; a CSR %s[%lld,%lld] with NNZ(%lld) takes %zu (row_ptrs u32[%lld], "
			 "col_indices u32[%lld], values of %zu bytes each)", bytes, f ? f->name : "?", (long long)m,
			 (long long)n, (long long)s->nnz, want, (long long)m + 1, (long long)s->nnz, eb);
		return false;
	}
	uint32_t prev = get_u32(data);
	if (prev != 0) {
		snprintf(why, why_size, "row_ptrs[0] is %u, not 0", prev);
		return false;
	}
	for (int64_t r = 1; r <= m; r++) {
		uint32_t p = get_u32(data + 4 * r);
		if (p < prev || p > (uint64_t)s->nnz) {
			snprintf(why, why_size, "row_ptrs[%lld] is %u: row pointers run from 0 up to NNZ (%lld) without going back "
				 "(row_ptrs[%lld] is %u)", (long long)r, p, (long long)s->nnz, (long long)r - 1, prev);
			return false;
		}
		prev = p;
	}
	if (prev != (uint64_t)s->nnz) {
		snprintf(why, why_size, "row_ptrs[%lld] is %u; the last row pointer is NNZ (%lld)", (long long)m, prev,
			 (long long)s->nnz);
		return false;
	}
	const unsigned char *cols = data + ffu__csr_cols_offset(s), *vals = data + ffu__csr_values_offset(s);
	for (int64_t e = 0; e < s->nnz; e++) {
		uint32_t c = get_u32(cols + 4 * e);
		if (c >= (uint64_t)n) {
			snprintf(why, why_size, "col_indices[%lld] is %u; the matrix has %lld columns", (long long)e, c, (long long)n);
			return false;
		}
		if (!ffu__fp_canonical(f, vals + (size_t)e * eb)) {
			snprintf(why, why_size, "values[%lld] is not a valid %s value (not less than p)", (long long)e, f->name);
			return false;
		}
	}
	return true;
}

/* A position of the matrix: 4-byte fields, so an array of them needs only the word
   alignment the CSR bytes give (ffu__csr_random sorts them in place there). */
typedef struct pos {
	uint32_t row, col;
} pos;

static int cmp_pos(const void *a, const void *b)
{
	const pos *x = a, *y = b;
	return x->row != y->row ? (x->row > y->row) - (x->row < y->row) : (x->col > y->col) - (x->col < y->col);
}

static uint64_t below(uint64_t *state, uint64_t n)
{
	return ffu__rand_next(state) % n;
}

/*
 * NNZ distinct positions of the M x N matrix, each set of them about equally likely (ZKX's
 * SparseMatrix::Random shuffles all positions and takes the first NNZ), stored row by row,
 * columns ascending; values uniform, zero included (as ZKX's Random may give). No memory
 * beyond the output: for NNZ <= M N / 2 the positions are drawn as (row, column) pairs into
 * the output's last 8 NNZ bytes (the columns and values regions hold at least that much,
 * every value having 4 bytes or more), sorted and drawn again where they repeat, then
 * written out as columns front to back, which never overtakes a pair not yet read; for
 * denser matrices selection sampling over every position (Knuth's algorithm S, time M N
 * < 2 NNZ).
 */
void ffu__csr_random(const ffu_shape *s, unsigned char *out, uint64_t *state)
{
	const ffu_field *f = ffu__shape_field(s);
	uint64_t m = (uint64_t)s->dims[0], n = (uint64_t)s->dims[1], nnz = (uint64_t)s->nnz;
	size_t eb = f->storage_bytes, bytes = ffu__csr_bytes(s);
	unsigned char *cols = out + ffu__csr_cols_offset(s), *vals = out + ffu__csr_values_offset(s);
	memset(out, 0, bytes);
	uint64_t e = 0;
	if (nnz * 2 > m * n) {
		uint64_t need = nnz, left = m * n;
		for (uint64_t r = 0; r < m; r++)
			for (uint64_t c = 0; c < n; c++, left--)
				if (below(state, left) < need) {
					need--;
					put_u32(cols + 4 * e++, (uint32_t)c);
					put_u32(out + 4 * (r + 1), get_u32(out + 4 * (r + 1)) + 1);
				}
	} else if (nnz > 0) {
		pos *p = (pos *)(out + bytes - 8 * nnz);
		uint64_t have = 0;
		while (have < nnz) {
			for (uint64_t k = have; k < nnz; k++)
				p[k] = (pos){(uint32_t)below(state, m), (uint32_t)below(state, n)};
			qsort(p, nnz, sizeof *p, cmp_pos);
			have = 1;
			for (uint64_t k = 1; k < nnz; k++)
				if (cmp_pos(&p[k], &p[have - 1]) != 0)
					p[have++] = p[k];
		}
		for (; e < nnz; e++) {
			pos q = p[e]; /* read before the column write below, which may reach its bytes */
			put_u32(cols + 4 * e, q.col);
			put_u32(out + 4 * ((uint64_t)q.row + 1), get_u32(out + 4 * ((uint64_t)q.row + 1)) + 1);
		}
	}
	for (uint64_t r = 1; r <= m; r++)
		put_u32(out + 4 * r, get_u32(out + 4 * r) + get_u32(out + 4 * (r - 1)));
	for (uint64_t k = 0; k < nnz; k++)
		ffu__fp_random(f, vals + k * eb, state);
}
