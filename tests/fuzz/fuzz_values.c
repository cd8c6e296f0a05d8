/*
 * tests/fuzz/fuzz_values.c: fuzz target for the value-file reader (hlo/values.c). The first
 * three bytes choose what the file is read as: byte 0 the field, byte 1 the shape (low
 * nibble n = 0..15; high nibble mod 4: [n], [], [2,n] or a CSR matrix [2,n] whose NNZ is
 * byte 2's upper bits mod 2n + 1), byte 2 bit 0 text or .bin. The rest is written to a
 * file and read; a rejection needs a FILE:LINE message, and anything accepted is written
 * back (text and .bin) and must read back to the same bytes, a CSR matrix (which no output
 * is) must be a valid one.
 *
 * Ownership: the reader's API takes a path, so the input goes through files in one
 * temporary directory per process (tmpfs when there is one: the writer fsyncs), removed at
 * exit. Everything else is freed before returning.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "ir/value.h"

#define CHECK(cond, ...)                                              \
	do {                                                          \
		if (!(cond)) {                                        \
			fprintf(stderr, "fuzz_values: " __VA_ARGS__); \
			fputc('\n', stderr);                          \
			abort();                                      \
		}                                                     \
	} while (0)

static char dir[PATH_MAX];

static void remove_dir(void)
{
	static const char *const names[] = {"in.txt", "in.bin", "out.txt", "out.bin"};
	char p[PATH_MAX + 16];
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		snprintf(p, sizeof p, "%s/%s", dir, names[i]);
		unlink(p);
	}
	rmdir(dir);
}

static void make_dir(void)
{
	if (dir[0])
		return;
	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
	snprintf(dir, sizeof dir, "%s/ffu-fuzz-values.XXXXXX", base && *base ? base : "/tmp");
	CHECK(mkdtemp(dir), "cannot create a temporary directory %s", dir);
	atexit(remove_dir);
}

static void path_of(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", dir, name);
}

/* out = write(v) then read(out) must give v's bytes back. */
static void check_roundtrip(const ffu_value *v, const char *name)
{
	char p[PATH_MAX + 16];
	ffu_error e = {0};
	ffu_value back = {0};

	path_of(p, sizeof p, name);
	ffu_status st = ffu__values_write(p, v, 1, &e);
	CHECK(st == FFU_STATUS_OK, "writing %s: %s", name, e.message);
	st = ffu__values_read(&back, p, &v->shape, &e);
	CHECK(st == FFU_STATUS_OK, "reading back %s: %s", name, e.message);
	CHECK(back.bytes == v->bytes && (v->bytes == 0 || memcmp(back.data, v->data, v->bytes) == 0),
	      "%s does not read back to the same values", name);
	ffu__value_free(&back);
	ffu_error_clear(&e);
}

int ffu_fuzz_values(const uint8_t *data, size_t size)
{
	char p[PATH_MAX + 16];
	ffu_error e = {0};
	ffu_value v = {0};
	ffu_shape shape = {0};

	if (size < 3)
		return 0;
	make_dir();
	shape.type = (ffu_type)(data[0] % FFU_FIELD_COUNT);
	int64_t n = data[1] & 15;
	switch ((data[1] >> 4) % 4) {
	case 0:
		shape.rank = 1;
		shape.dims[0] = n;
		break;
	case 1:
		shape.rank = 0;
		break;
	case 2:
		shape.rank = 2;
		shape.dims[0] = 2;
		shape.dims[1] = n;
		break;
	default: /* a CSR matrix [2, n] with NNZ from byte 2 (ir/csr.c) */
		shape.rank = 2;
		shape.dims[0] = 2;
		shape.dims[1] = n;
		shape.csr = true;
		shape.nnz = (data[2] >> 1) % (2 * n + 1);
		break;
	}
	bool bin = data[2] & 1;
	path_of(p, sizeof p, bin ? "in.bin" : "in.txt");
	FILE *fp = fopen(p, "wb");
	CHECK(fp, "cannot create %s", p);
	CHECK(fwrite(data + 3, 1, size - 3, fp) == size - 3 && fclose(fp) == 0, "cannot write %s", p);

	ffu_status st = ffu__values_read(&v, p, &shape, &e);
	if (st) {
		CHECK(st < 0 && e.status == st && e.message[0], "rejected without a message (status %d)", (int)st);
		CHECK(strcmp(e.file, p) == 0, "error names '%s', not the file read", e.file);
		CHECK(v.data == NULL && v.bytes == 0, "rejected input left data behind");
		goto out;
	}
	const ffu_field *f = ffu__shape_field(&shape);
	if (shape.csr) { /* never written (no output is sparse): what was read is a valid matrix */
		char why[320];
		CHECK(v.bytes == ffu__csr_bytes(&shape), "read %zu bytes for a CSR matrix of %zu", v.bytes,
		      ffu__csr_bytes(&shape));
		CHECK(ffu__csr_check(&shape, v.data, v.bytes, why, sizeof why), "read an invalid CSR matrix: %s", why);
		goto out;
	}
	CHECK(v.bytes == (size_t)ffu__shape_count(&shape) * f->storage_bytes, "read %zu bytes for %lld elements",
	      v.bytes, (long long)ffu__shape_count(&shape));
	check_roundtrip(&v, "out.txt");
	check_roundtrip(&v, "out.bin");
out:
	ffu__value_free(&v);
	ffu_error_clear(&e);
	return 0;
}
