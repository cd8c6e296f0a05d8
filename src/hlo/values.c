/*
 * src/hlo/values.c: value files (docs/hlo.md section "Value files"; API in ir/value.h).
 * Owned by the HLO front end; the CLI reads --input files and writes -o files through it.
 *
 * Text input rules, as implemented: one element per line (decimal or 0x hex, < p; a pred
 * is 0 or 1, one byte per element in .bin files, as for any type of the field table);
 * surrounding spaces/tabs and a trailing \r are ignored; blank lines are ignored; lines
 * starting with '#' are comments (so the header lines and `# output I:` lines are optional
 * and never checked). Errors are FILE:LINE with column 0. A CSR sparse matrix (ir/csr.c)
 * is its dense elements in text (read_csr: at most NNZ of them non-zero) and ZKX's CSR
 * bytes in a .bin file.
 *
 * Files are read line by line (getline), never whole, since a 2^24-element bn254 input is
 * over a gigabyte of text. One rank's tile of a sharded parameter's .bin file is read alone,
 * row by row at its offsets (ffu__param_read_rank), so no rank of an SPMD run reads the
 * whole file. Writing goes to a mkstemp() file next to the target and is
 * renamed over it only once complete, so readers never see a partial file.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "ir/value.h"
#include "util/file.h"

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Quotes a value for a message when it is plain text, so junk bytes never reach stderr. */
static const char *quote(char *buf, size_t size, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f)
			return "value";
	if (n > 40)
		snprintf(buf, size, "'%.40s...'", s);
	else
		snprintf(buf, size, "'%.*s'", (int)n, s);
	return buf;
}

/* What a non-canonical element is not, for messages: "less than the babybear modulus". */
static const char *not_a_value(const ffu_field *f, char *buf, size_t size)
{
	if (f->kind == FFU_ELEM_PRED)
		return "0 or 1 (pred)";
	snprintf(buf, size, "less than the %s modulus", f->name);
	return buf;
}

/* max_nonzero >= 0: a CSR matrix's dense text holds at most that many non-zero elements. */
static ffu_status read_text(ffu_value *v, FILE *fp, const char *path, const ffu_field *f, int64_t max_nonzero,
			    ffu_error *e)
{
	int64_t nonzero = 0;
	size_t eb = f->storage_bytes, count = v->bytes / eb, got = 0;
	char *line = NULL, qbuf[96];
	size_t cap = 0;
	int lineno = 0;
	ffu_status st = FFU_STATUS_OK;
	ssize_t len;
	while ((len = getline(&line, &cap, fp)) >= 0) {
		lineno++;
		const char *s = line;
		size_t n = (size_t)len;
		while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
			n--;
		while (n > 0 && (*s == ' ' || *s == '\t')) {
			s++;
			n--;
		}
		if (n == 0 || *s == '#')
			continue;
		if (got == count) {
			st = ffu__err_at(e, FFU_STATUS_EPARSE, path, lineno, 0, "too many values: %s[%zu] holds %zu",
					 f->name, count, count);
			goto out;
		}
		if (*s == '-' && !f->is_signed) {
			st = ffu__err_at(e, FFU_STATUS_EPARSE, path, lineno, 0, "negative %s: %s %s",
					 quote(qbuf, sizeof qbuf, s, n), f->name,
					 f->kind == FFU_ELEM_PRED ? "is 0 or 1"
					 : f->kind == FFU_ELEM_UINT ? "is unsigned" : "elements are 0..p-1");
			goto out;
		}
		const char *why = "not a number";
		/* ffu__fp_parse stops at a NUL byte; a NUL inside a line is junk, not an end. */
		if (memchr(s, '\0', n) || ffu__fp_parse(f, v->data + got * eb, s, n, &why) != FFU_STATUS_OK) {
			st = ffu__err_at(e, FFU_STATUS_EPARSE, path, lineno, 0, "bad %s %s: %s", f->name,
					 quote(qbuf, sizeof qbuf, s, n), why ? why : "invalid");
			goto out;
		}
		if (max_nonzero >= 0 && !ffu__fp_is_zero(f, v->data + got * eb) && ++nonzero > max_nonzero) {
			st = ffu__err_at(e, FFU_STATUS_EPARSE, path, lineno, 0,
					 "the sparse matrix has more non-zero elements than its layout's NNZ(%lld): the "
					 "%lldth is this one, row %zu, column %zu", (long long)max_nonzero, (long long)nonzero,
					 got / (size_t)v->shape.dims[1], got % (size_t)v->shape.dims[1]);
			goto out;
		}
		got++;
	}
	if (ferror(fp)) {
		st = ffu__err_at(e, FFU_STATUS_EIO, path, 0, 0, "read failed: %s", strerror(errno));
		goto out;
	}
	if (got < count)
		st = ffu__err_at(e, FFU_STATUS_EPARSE, path, lineno > 0 ? lineno : 1, 0,
				 "too few values: file ends after %zu of %zu", got, count);
out:
	free(line);
	return st;
}

/* A .bin file must be exactly the bytes of one value of shape s (bytes of them). */
static ffu_status check_size(FILE *fp, const char *path, const ffu_shape *s, size_t bytes, ffu_error *e)
{
	struct stat sbuf;
	char sh[160];
	if (fstat(fileno(fp), &sbuf) != 0)
		return ffu__err_at(e, FFU_STATUS_EIO, path, 0, 0, "stat failed: %s", strerror(errno));
	if (S_ISREG(sbuf.st_mode) && (uint64_t)sbuf.st_size == (uint64_t)bytes)
		return FFU_STATUS_OK;
	const ffu_field *f = ffu__shape_field(s);
	ffu__shape_format(s, sh, sizeof sh);
	if (s->csr)
		return ffu__err_at(e, FFU_STATUS_EPARSE, path, 0, 0,
				   "size is %lld bytes, expected %zu (%s: row_ptrs u32[%lld], col_indices u32[%lld], values of %zu bytes)",
				   (long long)sbuf.st_size, bytes, sh, (long long)s->dims[0] + 1, (long long)s->nnz,
				   f->storage_bytes);
	return ffu__err_at(e, FFU_STATUS_EPARSE, path, 0, 0, "size is %lld bytes, expected %zu (%zu %s elements of %zu bytes)",
			   (long long)sbuf.st_size, bytes, bytes / f->storage_bytes, f->name, f->storage_bytes);
}

/* The file's bytes into v, which must be exactly v->bytes long. */
static ffu_status read_raw(ffu_value *v, FILE *fp, const char *path, ffu_error *e)
{
	ffu_status st = check_size(fp, path, &v->shape, v->bytes, e);
	if (st)
		return st;
	if (v->bytes && fread(v->data, 1, v->bytes, fp) != v->bytes)
		return ffu__err_at(e, FFU_STATUS_EIO, path, 0, 0, "short read");
	return FFU_STATUS_OK;
}

static ffu_status read_bin(ffu_value *v, FILE *fp, const char *path, const ffu_field *f, ffu_error *e)
{
	char why[96];
	ffu_status st = read_raw(v, fp, path, e);
	if (st)
		return st;
	for (size_t off = 0; off < v->bytes; off += f->storage_bytes)
		if (!ffu__fp_canonical(f, v->data + off))
			return ffu__err_at(e, FFU_STATUS_EPARSE, path, 0, 0, "element %zu is not %s", off / f->storage_bytes,
					   not_a_value(f, why, sizeof why));
	return FFU_STATUS_OK;
}

/*
 * A CSR matrix's dense text (its M x N elements, row-major, zeros included) as ZKX's CSR
 * bytes: the non-zero elements row by row, and where there are fewer than NNZ of them, the
 * first zero elements in row-major order stored too (the matrix is the same; the layout
 * says how many entries its buffers hold). More non-zeros than NNZ is an error at the line
 * of the first one too many (read_text).
 */
static void put_u32(unsigned char *p, uint32_t v)
{
	for (int b = 0; b < 4; b++)
		p[b] = (unsigned char)(v >> (8 * b));
}

static void dense_to_csr(ffu_value *out, const ffu_value *dense)
{
	const ffu_shape *s = &out->shape;
	const ffu_field *f = ffu__shape_field(s);
	size_t eb = f->storage_bytes, m = (size_t)s->dims[0], n = (size_t)s->dims[1];
	int64_t nonzero = 0;
	for (size_t k = 0; k < m * n; k++)
		nonzero += !ffu__fp_is_zero(f, dense->data + k * eb);
	int64_t zeros_stored = s->nnz - nonzero; /* >= 0: read_text refused more non-zeros */
	unsigned char *cols = out->data + ffu__csr_cols_offset(s), *vals = out->data + ffu__csr_values_offset(s);
	uint32_t e = 0;
	for (size_t r = 0; r < m; r++) {
		for (size_t c = 0; c < n; c++) {
			const unsigned char *x = dense->data + (r * n + c) * eb;
			if (ffu__fp_is_zero(f, x)) {
				if (zeros_stored == 0)
					continue;
				zeros_stored--;
			}
			put_u32(cols + 4 * (size_t)e, (uint32_t)c);
			memcpy(vals + (size_t)e * eb, x, eb);
			e++;
		}
		put_u32(out->data + 4 * (r + 1), e); /* row_ptrs[0] stays 0 */
	}
}

/* A CSR matrix parameter: dense text converted (dense_to_csr), or .bin CSR bytes checked. */
static ffu_status read_csr(ffu_value *out, FILE *fp, const char *path, const ffu_field *f, ffu_error *e)
{
	char why[320];
	if (ends_with(path, ".bin")) {
		ffu_status st = read_raw(out, fp, path, e);
		if (st == FFU_STATUS_OK && !ffu__csr_check(&out->shape, out->data, out->bytes, why, sizeof why))
			st = ffu__err_at(e, FFU_STATUS_EPARSE, path, 0, 0, "not a CSR matrix as ZKX stores it: %s", why);
		return st;
	}
	ffu_shape ds = out->shape;
	ds.csr = false;
	ds.nnz = 0;
	ffu_value dense;
	ffu_status st = ffu__value_alloc(&dense, &ds, e);
	if (st)
		return st;
	if ((st = read_text(&dense, fp, path, f, out->shape.nnz, e)) == FFU_STATUS_OK)
		dense_to_csr(out, &dense);
	ffu__value_free(&dense);
	return st;
}

/* Rank rank's tile of a sharded .bin file: its rows read at their offsets, each element checked. */
static ffu_status read_bin_tile(ffu_value *out, FILE *fp, const char *path, const ffu_shape *whole, const ffu_sharding *sh,
				const int64_t *tile, ffu_error *e)
{
	const ffu_field *f = ffu__shape_field(whole);
	const size_t eb = f->storage_bytes;
	char why[96];
	ffu_status st = check_size(fp, path, whole, ffu__shape_bytes(whole), e);
	if (st)
		return st;
	int64_t row;
	const int64_t rows = ffu__tile_rows(&out->shape, &row);
	for (int64_t k = 0; k < rows; k++) {
		const int64_t at = ffu__tile_row_offset(&out->shape, sh->dims, tile, k);
		unsigned char *dst = out->data + (size_t)(k * row) * eb;
		if (fseeko(fp, (off_t)at * (off_t)eb, SEEK_SET) != 0 || fread(dst, eb, (size_t)row, fp) != (size_t)row)
			return ffu__err_at(e, FFU_STATUS_EIO, path, 0, 0, "short read at element %lld", (long long)at);
		for (int64_t i = 0; i < row; i++)
			if (!ffu__fp_canonical(f, dst + (size_t)i * eb))
				return ffu__err_at(e, FFU_STATUS_EPARSE, path, 0, 0, "element %lld is not %s", (long long)(at + i),
						   not_a_value(f, why, sizeof why));
	}
	return FFU_STATUS_OK;
}

ffu_status ffu__param_read_rank(const ffu_module *m, int p, const char *path, int rank, ffu_value *out, ffu_error *e)
{
	const ffu_inst *in = m->entry->params[p];
	ffu_shape whole;
	ffu__param_whole_shape(m, p, &whole);
	int64_t tile[FFU_MAX_RANK + 1];
	if (!ffu__sharding_splits(in->sharding) || in->shape.csr || !ends_with(path, ".bin") ||
	    !ffu__sharding_tile_of(in->sharding, rank % m->num_partitions, false, tile)) {
		/* text (or unsplit): read whole, then this rank's part */
		ffu_value w;
		ffu_status st = ffu__values_read(&w, path, &whole, e);
		return st ? st : ffu__param_take_rank(m, p, &w, rank, out, e);
	}
	memset(out, 0, sizeof *out);
	ffu_status st = ffu__value_alloc(out, &in->shape, e);
	if (st)
		return st;
	FILE *fp = fopen(path, "rb");
	if (!fp)
		st = ffu__err_at(e, FFU_STATUS_EIO, path, 0, 0, "cannot open: %s", strerror(errno));
	else {
		st = read_bin_tile(out, fp, path, &whole, in->sharding, tile, e);
		fclose(fp);
	}
	if (st)
		ffu__value_free(out);
	return st;
}

ffu_status ffu__values_read(ffu_value *out, const char *path, const ffu_shape *expect, ffu_error *e)
{
	if (!out || !path || !expect)
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu__values_read: NULL argument");
	memset(out, 0, sizeof *out);
	const ffu_field *f = ffu__shape_field(expect);
	if (!f)
		return ffu__err(e, FFU_STATUS_EINVAL, "value files hold arrays of field elements");
	ffu_status st = ffu__value_alloc(out, expect, e);
	if (st)
		return st;
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		st = ffu__err_at(e, FFU_STATUS_EIO, path, 0, 0, "cannot open: %s", strerror(errno));
		goto out;
	}
	st = expect->csr		 ? read_csr(out, fp, path, f, e)
	     : ends_with(path, ".bin") ? read_bin(out, fp, path, f, e)
					 : read_text(out, fp, path, f, -1, e);
	fclose(fp);
out:
	if (st)
		ffu__value_free(out);
	return st;
}

typedef struct write_job {
	const ffu_value *outs;
	int n;
	const char *path;
	bool bin;
} write_job;

static uint32_t get_u32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A CSR matrix's dense elements (the text form read_csr reads back): its stored entries at
   their columns, zero elsewhere. csr was checked (ffu__csr_check). */
static void csr_to_dense(ffu_value *dense, const ffu_value *csr)
{
	const ffu_shape *s = &csr->shape;
	const size_t eb = ffu__shape_field(s)->storage_bytes, n = (size_t)s->dims[1];
	const unsigned char *cols = csr->data + ffu__csr_cols_offset(s), *vals = csr->data + ffu__csr_values_offset(s);
	for (size_t r = 0; r < (size_t)s->dims[0]; r++)
		for (uint32_t k = get_u32(csr->data + 4 * r); k < get_u32(csr->data + 4 * (r + 1)); k++)
			memcpy(dense->data + (r * n + get_u32(cols + 4 * (size_t)k)) * eb, vals + (size_t)k * eb, eb);
}

/* Values are checked while writing, so a bad value mid-file exercises the cleanup path too. */
static ffu_status write_values(FILE *fp, void *arg, ffu_error *e)
{
	const write_job *w = arg;
	char sh[160], num[FFU_FIELD_TEXT_MAX], why[96];
	if (!w->bin)
		fputs("# fieldfuse values v1\n", fp);
	for (int i = 0; i < w->n; i++) {
		const ffu_value *v = &w->outs[i];
		const ffu_field *f = ffu__shape_field(&v->shape);
		if (!w->bin) {
			ffu__shape_format(&v->shape, sh, sizeof sh);
			if (w->n == 1)
				fprintf(fp, "# %s\n", sh);
			else
				fprintf(fp, "# output %d: %s\n", i, sh);
		}
		/* a CSR matrix (checked whole, values too, by ffu__values_write): its CSR bytes in a
		   .bin file, dense elements in text */
		ffu_value dense = {0};
		if (v->shape.csr && w->bin) {
			fwrite(v->data, 1, v->bytes, fp);
			continue;
		}
		if (v->shape.csr) {
			ffu_shape ds = v->shape;
			ds.csr = false;
			ds.nnz = 0;
			ffu_status st = ffu__value_alloc(&dense, &ds, e);
			if (st)
				return st;
			csr_to_dense(&dense, v);
			v = &dense;
		}
		for (size_t off = 0; off < v->bytes; off += f->storage_bytes) {
			if (!ffu__fp_canonical(f, v->data + off)) {
				ffu__value_free(&dense);
				return ffu__err_at(e, FFU_STATUS_EINVAL, w->path, 0, 0, "output %d element %zu is not %s", i,
						   off / f->storage_bytes, not_a_value(f, why, sizeof why));
			}
			if (w->bin) {
				fwrite(v->data + off, 1, f->storage_bytes, fp);
			} else {
				fputs(ffu__fp_format(f, num, v->data + off), fp);
				fputc('\n', fp);
			}
		}
		ffu__value_free(&dense);
	}
	return FFU_STATUS_OK;
}

ffu_status ffu__values_write(const char *path, const ffu_value *outs, int n, ffu_error *e)
{
	if (!path || !*path || !outs || n < 1)
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu__values_write: nothing to write");
	write_job w = {.outs = outs, .n = n, .path = path, .bin = ends_with(path, ".bin")};
	if (w.bin && n != 1)
		return ffu__err_at(e, FFU_STATUS_EINVAL, path, 0, 0,
				   "a .bin file holds one output, the program has %d: write text instead", n);
	for (int i = 0; i < n; i++) {
		const ffu_value *v = &outs[i];
		const ffu_field *f = ffu__shape_field(&v->shape);
		char why[320];
		if (f && v->shape.csr && (v->data || !v->bytes) && !ffu__csr_check(&v->shape, v->data, v->bytes, why, sizeof why))
			return ffu__err_at(e, FFU_STATUS_EINVAL, path, 0, 0, "output %d is not a CSR matrix as ZKX stores it: %s",
					   i, why);
		if (!f || !ffu__shape_is_array(&v->shape) || (v->bytes && !v->data) ||
		    (!v->shape.csr && v->bytes != (size_t)ffu__shape_count(&v->shape) * f->storage_bytes))
			return ffu__err_at(e, FFU_STATUS_EINVAL, path, 0, 0, "output %d is not a valid value array", i);
	}
	return ffu__file_write_atomic(path, write_values, &w, e);
}
