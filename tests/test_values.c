/*
 * tests/test_values.c: value files (src/hlo/values.c) and host value arrays (src/ir/value.c):
 * text and .bin round trips, FILE:LINE errors, tuple output sections, the atomic write
 * (no file under the final name, and no temporary left behind, on any failure) and random
 * point arrays.
 * Owned by the HLO front end.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fields/field.h"
#include "fields/point.h"
#include "ir/value.h"
#include "support.h"

static char tmpdir[64];

static void make_dir(void)
{
	strcpy(tmpdir, "/tmp/ffu_values_XXXXXX");
	cr_assert_not_null(mkdtemp(tmpdir));
}

static void remove_dir(void)
{
	DIR *d = opendir(tmpdir);
	if (d) {
		struct dirent *de;
		char p[512];
		while ((de = readdir(d)))
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
				snprintf(p, sizeof p, "%s/%s", tmpdir, de->d_name);
				unlink(p);
			}
		closedir(d);
	}
	rmdir(tmpdir);
}

TestSuite(values, .init = make_dir, .fini = remove_dir);

static char *path_in(const char *name)
{
	static char p[256];
	snprintf(p, sizeof p, "%s/%s", tmpdir, name);
	return p;
}

static void write_file(const char *name, const char *data, size_t n)
{
	FILE *f = fopen(path_in(name), "wb");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(data, 1, n, f), n);
	fclose(f);
}

static int count_entries(void)
{
	int n = 0;
	DIR *d = opendir(tmpdir);
	cr_assert_not_null(d);
	struct dirent *de;
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return n;
}

static ffu_shape arr(ffu_type t, int64_t n)
{
	ffu_shape s = {0};
	s.type = t;
	s.rank = 1;
	s.dims[0] = n;
	return s;
}

static uint32_t u32_at(const ffu_value *v, size_t i)
{
	uint32_t x;
	memcpy(&x, v->data + 4 * i, 4);
	return x;
}

static void expect_read_error(const char *name, const char *text, ffu_shape s, int line, const char *msg)
{
	write_file(name, text, strlen(text));
	ffu_value v;
	ffu_error e = {0};
	ffu_status st = ffu__values_read(&v, path_in(name), &s, &e);
	cr_assert_eq(st, FFU_STATUS_EPARSE, "%s: status %d: %s", name, st, e.message);
	cr_assert_eq(e.line, line, "%s: line %d, want %d: %s", name, e.line, line, e.message);
	cr_assert_eq(e.col, 0);
	cr_assert_str_eq(e.file, path_in(name));
	cr_assert(strstr(e.message, msg), "%s: message '%s' lacks '%s'", name, e.message, msg);
	cr_assert_null(v.data);
}

Test(values, read_text_with_comments_blanks_crlf_and_hex)
{
	const char *text = "# fieldfuse values v1\n# babybear[4]\n1\n\n  2 \r\n# comment\n2013265920\n0x10\n";
	write_file("in.txt", text, strlen(text));
	ffu_value v;
	ffu_error e = {0};
	ffu_shape s = arr(FFU_TYPE_BABYBEAR, 4);
	cr_assert_eq(ffu__values_read(&v, path_in("in.txt"), &s, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(v.bytes, 16);
	cr_assert_eq(u32_at(&v, 0), 1);
	cr_assert_eq(u32_at(&v, 1), 2);
	cr_assert_eq(u32_at(&v, 2), 2013265920u);
	cr_assert_eq(u32_at(&v, 3), 16);
	ffu__value_free(&v);
	cr_assert_null(v.data);
}

Test(values, text_errors_name_the_line)
{
	ffu_shape s = arr(FFU_TYPE_BABYBEAR, 3);
	expect_read_error("bad_number.txt", "# h\n1\nabc\n3\n", s, 3, "not");
	expect_read_error("ge_p.txt", "1\n2\n2013265921\n", s, 3, "modulus");
	expect_read_error("negative.txt", "1\n-2\n3\n", s, 2, "negative");
	expect_read_error("too_many.txt", "1\n2\n3\n\n# fine\n4\n", s, 6, "too many values");
	expect_read_error("too_few.txt", "1\n\n2\n# end\n", s, 4, "too few values: file ends after 2 of 3");
	expect_read_error("empty.txt", "", s, 1, "too few values");
	expect_read_error("two_per_line.txt", "1 2\n3\n4\n", s, 1, "not");
}

Test(values, nul_byte_line_is_an_error)
{
	/* strlen() would stop at the NUL: write the bytes explicitly. */
	const char text[] = "1\n2\0\n3\n";
	write_file("nul2.txt", text, sizeof text - 1);
	ffu_value v;
	ffu_error e = {0};
	ffu_shape s = arr(FFU_TYPE_BABYBEAR, 3);
	cr_assert_eq(ffu__values_read(&v, path_in("nul2.txt"), &s, &e), FFU_STATUS_EPARSE);
	cr_assert_eq(e.line, 2);
	cr_assert(strstr(e.message, "bad babybear value"), "%s", e.message);
}

Test(values, write_text_then_read_back)
{
	ffu_shape s = arr(FFU_TYPE_BN254_SF, 3);
	ffu_value v;
	ffu_error e = {0};
	cr_assert_eq(ffu__value_alloc(&v, &s, &e), FFU_STATUS_OK);
	cr_assert_eq(v.bytes, 96);
	uint64_t state = 7;
	ffu__value_random(&v, &state);
	cr_assert_eq(ffu__values_write(path_in("out.txt"), &v, 1, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(count_entries(), 1);
	size_t n = 0;
	char *text = ffu_test_read_file(path_in("out.txt"), &n);
	cr_assert(strncmp(text, "# fieldfuse values v1\n# bn254_sf[3]\n", 36) == 0, "%s", text);
	free(text);
	ffu_value w;
	cr_assert_eq(ffu__values_read(&w, path_in("out.txt"), &s, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(memcmp(v.data, w.data, v.bytes), 0);
	ffu__value_free(&v);
	ffu__value_free(&w);
}

Test(values, write_exact_text)
{
	ffu_shape s = arr(FFU_TYPE_BABYBEAR, 2);
	ffu_value v;
	cr_assert_eq(ffu__value_alloc(&v, &s, NULL), FFU_STATUS_OK);
	uint32_t xs[2] = {5, 2013265920u};
	memcpy(v.data, xs, 8);
	cr_assert_eq(ffu__values_write(path_in("x.txt"), &v, 1, NULL), FFU_STATUS_OK);
	char *text = ffu_test_read_file(path_in("x.txt"), NULL);
	cr_assert_str_eq(text, "# fieldfuse values v1\n# babybear[2]\n5\n2013265920\n");
	free(text);
	ffu__value_free(&v);
}

Test(values, bin_round_trip_and_errors)
{
	ffu_shape s = arr(FFU_TYPE_BABYBEAR, 5);
	ffu_value v, w;
	ffu_error e = {0};
	cr_assert_eq(ffu__value_alloc(&v, &s, &e), FFU_STATUS_OK);
	uint64_t state = 1;
	ffu__value_random(&v, &state);
	cr_assert_eq(ffu__values_write(path_in("v.bin"), &v, 1, &e), FFU_STATUS_OK, "%s", e.message);
	size_t n = 0;
	char *raw = ffu_test_read_file(path_in("v.bin"), &n);
	cr_assert_eq(n, 20);
	cr_assert_eq(memcmp(raw, v.data, 20), 0);
	free(raw);
	cr_assert_eq(ffu__values_read(&w, path_in("v.bin"), &s, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(memcmp(v.data, w.data, 20), 0);
	ffu__value_free(&w);

	/* Wrong size: one element short. */
	ffu_shape s6 = arr(FFU_TYPE_BABYBEAR, 6);
	cr_assert_eq(ffu__values_read(&w, path_in("v.bin"), &s6, &e), FFU_STATUS_EPARSE);
	cr_assert(strstr(e.message, "size is 20 bytes, expected 24"), "%s", e.message);
	cr_assert_eq(e.line, 0);

	/* An element >= p. */
	unsigned char bad[8] = {1, 0, 0, 0, 0x01, 0, 0, 0x78};
	write_file("bad.bin", (const char *)bad, 8);
	ffu_shape s2 = arr(FFU_TYPE_BABYBEAR, 2);
	cr_assert_eq(ffu__values_read(&w, path_in("bad.bin"), &s2, &e), FFU_STATUS_EPARSE);
	cr_assert(strstr(e.message, "element 1 is not less than"), "%s", e.message);
	ffu__value_free(&v);
}

Test(values, tuple_outputs_as_sections)
{
	ffu_shape a = arr(FFU_TYPE_BABYBEAR, 2), b = {.type = FFU_TYPE_BABYBEAR, .rank = 0};
	ffu_value outs[2];
	cr_assert_eq(ffu__value_alloc(&outs[0], &a, NULL), FFU_STATUS_OK);
	cr_assert_eq(ffu__value_alloc(&outs[1], &b, NULL), FFU_STATUS_OK);
	outs[0].data[0] = 3;
	outs[1].data[0] = 9;
	ffu_error e = {0};
	cr_assert_eq(ffu__values_write(path_in("t.txt"), outs, 2, &e), FFU_STATUS_OK, "%s", e.message);
	char *text = ffu_test_read_file(path_in("t.txt"), NULL);
	cr_assert_str_eq(text, "# fieldfuse values v1\n# output 0: babybear[2]\n3\n0\n# output 1: babybear[]\n9\n");
	free(text);
	/* .bin holds one output only; nothing is created. */
	cr_assert_eq(ffu__values_write(path_in("t.bin"), outs, 2, &e), FFU_STATUS_EINVAL);
	cr_assert_eq(count_entries(), 1);
	ffu__value_free(&outs[0]);
	ffu__value_free(&outs[1]);
}

Test(values, atomic_write_leaves_nothing_on_failure)
{
	ffu_shape s = arr(FFU_TYPE_BABYBEAR, 3);
	ffu_value v;
	cr_assert_eq(ffu__value_alloc(&v, &s, NULL), FFU_STATUS_OK);
	ffu_error e = {0};
	/* Directory does not exist. */
	cr_assert_eq(ffu__values_write(path_in("nodir/out.txt"), &v, 1, &e), FFU_STATUS_EIO);
	cr_assert_eq(access(path_in("nodir/out.txt"), F_OK), -1);
	cr_assert_eq(count_entries(), 0);

	/* Failure in the middle of writing (an element >= p): no final file, no temporary. */
	uint32_t p = 0x78000001u;
	memcpy(v.data + 4, &p, 4);
	cr_assert_eq(ffu__values_write(path_in("out.txt"), &v, 1, &e), FFU_STATUS_EINVAL);
	cr_assert_eq(ffu__values_write(path_in("out.bin"), &v, 1, &e), FFU_STATUS_EINVAL);
	cr_assert_eq(count_entries(), 0);

	/* An existing file is replaced only by a complete one: a failed write keeps the old. */
	write_file("keep.txt", "old\n", 4);
	cr_assert_eq(ffu__values_write(path_in("keep.txt"), &v, 1, &e), FFU_STATUS_EINVAL);
	char *text = ffu_test_read_file(path_in("keep.txt"), NULL);
	cr_assert_str_eq(text, "old\n");
	free(text);
	cr_assert_eq(count_entries(), 1);

	/* The target is a directory: rename fails, the temporary is removed. */
	cr_assert_eq(mkdir(path_in("adir"), 0755), 0);
	memset(v.data, 0, v.bytes);
	cr_assert_eq(ffu__values_write(path_in("adir"), &v, 1, &e), FFU_STATUS_EIO);
	cr_assert_eq(count_entries(), 2);
	rmdir(path_in("adir"));
	ffu__value_free(&v);
}

Test(values, alloc_rejects_tuples_and_random_is_canonical)
{
	ffu_shape t = {.type = FFU_TYPE_TUPLE};
	ffu_value v;
	ffu_error e = {0};
	cr_assert_eq(ffu__value_alloc(&v, &t, &e), FFU_STATUS_EINVAL);
	ffu_shape huge = arr(FFU_TYPE_BN254_SF, INT64_MAX / 2);
	cr_assert_neq(ffu__value_alloc(&v, &huge, &e), FFU_STATUS_OK);
	cr_assert_null(v.data);

	ffu_shape s = arr(FFU_TYPE_BABYBEAR, 1000);
	cr_assert_eq(ffu__value_alloc(&v, &s, &e), FFU_STATUS_OK);
	uint64_t st = 99;
	ffu__value_random(&v, &st);
	int nonzero = 0;
	for (size_t i = 0; i < 1000; i++) {
		cr_assert_lt(u32_at(&v, i), 0x78000001u);
		nonzero += u32_at(&v, i) != 0;
	}
	cr_assert_gt(nonzero, 990);
	ffu__value_free(&v);
}

/* pred: 0/1 in text, one byte per element in .bin, in and out. */
Test(values, pred_text_and_bin)
{
	ffu_shape s = arr(FFU_TYPE_PRED, 5);
	const char *text = "# fieldfuse values v1\n# pred[5]\n0\n1\n 1\n0x0\n1\n";
	write_file("p.txt", text, strlen(text));
	ffu_value v;
	ffu_error e = {0};
	cr_assert_eq(ffu__values_read(&v, path_in("p.txt"), &s, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(v.bytes, 5);
	cr_assert_eq(memcmp(v.data, "\0\1\1\0\1", 5), 0);

	cr_assert_eq(ffu__values_write(path_in("p.bin"), &v, 1, &e), FFU_STATUS_OK, "%s", e.message);
	size_t n = 0;
	char *raw = ffu_test_read_file(path_in("p.bin"), &n);
	cr_assert_eq(n, 5);
	cr_assert_eq(memcmp(raw, "\0\1\1\0\1", 5), 0);
	free(raw);
	ffu_value w;
	cr_assert_eq(ffu__values_read(&w, path_in("p.bin"), &s, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(memcmp(w.data, v.data, 5), 0);
	ffu__value_free(&w);

	cr_assert_eq(ffu__values_write(path_in("p_out.txt"), &v, 1, &e), FFU_STATUS_OK, "%s", e.message);
	char *t = ffu_test_read_file(path_in("p_out.txt"), NULL);
	cr_assert_str_eq(t, "# fieldfuse values v1\n# pred[5]\n0\n1\n1\n0\n1\n");
	free(t);

	/* a byte other than 0 or 1 is refused when read and when written */
	write_file("bad_p.bin", "\1\0\2\0\0", 5);
	cr_assert_eq(ffu__values_read(&w, path_in("bad_p.bin"), &s, &e), FFU_STATUS_EPARSE);
	cr_assert(strstr(e.message, "element 2 is not 0 or 1 (pred)"), "%s", e.message);
	v.data[3] = 7;
	cr_assert_eq(ffu__values_write(path_in("bad_out.txt"), &v, 1, &e), FFU_STATUS_EINVAL);
	cr_assert(strstr(e.message, "output 0 element 3 is not 0 or 1 (pred)"), "%s", e.message);
	cr_assert_eq(access(path_in("bad_out.txt"), F_OK), -1);
	ffu__value_free(&v);

	ffu_shape s3 = arr(FFU_TYPE_PRED, 3);
	expect_read_error("p_two.txt", "0\n2\n1\n", s3, 2, "bad pred '2': a pred is 0 or 1");
	expect_read_error("p_true.txt", "true\n0\n1\n", s3, 1, "bad pred 'true'");
	expect_read_error("p_neg.txt", "0\n-1\n1\n", s3, 2, "negative");
}

/* A tuple ROOT mixing types: one section per output, each with its own shape line. */
Test(values, tuple_sections_mixed_types)
{
	ffu_shape a = {.type = FFU_TYPE_GOLDILOCKS, .rank = 2, .dims = {2, 1}}, b = arr(FFU_TYPE_PRED, 2);
	ffu_value outs[2];
	cr_assert_eq(ffu__value_alloc(&outs[0], &a, NULL), FFU_STATUS_OK);
	cr_assert_eq(ffu__value_alloc(&outs[1], &b, NULL), FFU_STATUS_OK);
	uint64_t g[2] = {18446744069414584320ull, 7};
	memcpy(outs[0].data, g, 16);
	outs[1].data[1] = 1;
	ffu_error e = {0};
	cr_assert_eq(ffu__values_write(path_in("mixed.txt"), outs, 2, &e), FFU_STATUS_OK, "%s", e.message);
	char *text = ffu_test_read_file(path_in("mixed.txt"), NULL);
	cr_assert_str_eq(text, "# fieldfuse values v1\n# output 0: goldilocks[2,1]\n18446744069414584320\n7\n"
			       "# output 1: pred[2]\n0\n1\n");
	free(text);
	/* zero-sized arrays are values too: a section with no lines */
	ffu_shape z = {.type = FFU_TYPE_BABYBEAR, .rank = 2, .dims = {0, 3}};
	ffu_value empty;
	cr_assert_eq(ffu__value_alloc(&empty, &z, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(empty.bytes, 0);
	cr_assert_eq(ffu__values_write(path_in("empty.txt"), &empty, 1, &e), FFU_STATUS_OK, "%s", e.message);
	ffu_value back;
	cr_assert_eq(ffu__values_read(&back, path_in("empty.txt"), &z, &e), FFU_STATUS_OK, "%s", e.message);
	ffu__value_free(&back);
	ffu__value_free(&empty);
	ffu__value_free(&outs[0]);
	ffu__value_free(&outs[1]);
}

/*
 * The integer types of the FFU_INT rows: decimal (or 0x hex) text, a leading '-' for the
 * signed ones, stored little-endian at their natural width in two's complement (the
 * bytes below written out by hand); out-of-range values name the line and the range.
 */
Test(values, integer_types_text_bin_and_range_errors)
{
	static const struct {
		ffu_type t;
		const char *text;
		size_t bytes;
		const char *want; /* storage, little-endian */
		const char *out;  /* what writing it back gives, after the two header lines */
	} cases[] = {
		{FFU_TYPE_S8, "-128\n127\n-1\n0x7f\n", 4, "\x80\x7f\xff\x7f", "-128\n127\n-1\n127\n"},
		{FFU_TYPE_U8, "0\n255\n0x80\n", 3, "\x00\xff\x80", "0\n255\n128\n"},
		{FFU_TYPE_S16, "-32768\n32767\n-2\n", 6, "\x00\x80\xff\x7f\xfe\xff", "-32768\n32767\n-2\n"},
		{FFU_TYPE_U16, "65535\n1\n", 4, "\xff\xff\x01\x00", "65535\n1\n"},
		{FFU_TYPE_S32, "-2147483648\n2147483647\n-3\n", 12, "\x00\x00\x00\x80\xff\xff\xff\x7f\xfd\xff\xff\xff",
		 "-2147483648\n2147483647\n-3\n"},
		{FFU_TYPE_S64, "-9223372036854775808\n9223372036854775807\n-1\n", 24,
		 "\x00\x00\x00\x00\x00\x00\x00\x80\xff\xff\xff\xff\xff\xff\xff\x7f\xff\xff\xff\xff\xff\xff\xff\xff",
		 "-9223372036854775808\n9223372036854775807\n-1\n"},
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		const ffu_field *f = ffu__field_get((ffu_field_id)cases[k].t);
		ffu_shape s = arr(cases[k].t, (int64_t)(cases[k].bytes / f->storage_bytes));
		write_file("i.txt", cases[k].text, strlen(cases[k].text));
		ffu_value v;
		ffu_error e = {0};
		cr_assert_eq(ffu__values_read(&v, path_in("i.txt"), &s, &e), FFU_STATUS_OK, "%s: %s", f->name, e.message);
		cr_assert_eq(v.bytes, cases[k].bytes, "%s", f->name);
		cr_assert_eq(memcmp(v.data, cases[k].want, cases[k].bytes), 0, "%s: storage bytes", f->name);
		cr_assert_eq(ffu__values_write(path_in("o.txt"), &v, 1, &e), FFU_STATUS_OK, "%s", e.message);
		char *text = ffu_test_read_file(path_in("o.txt"), NULL);
		const char *body = strchr(strchr(text, '\n') + 1, '\n') + 1;
		cr_assert_str_eq(body, cases[k].out, "%s", f->name);
		free(text);
		/* .bin: the same bytes */
		cr_assert_eq(ffu__values_write(path_in("o.bin"), &v, 1, &e), FFU_STATUS_OK, "%s", e.message);
		ffu_value w;
		cr_assert_eq(ffu__values_read(&w, path_in("o.bin"), &s, &e), FFU_STATUS_OK, "%s", e.message);
		cr_assert_eq(memcmp(w.data, cases[k].want, cases[k].bytes), 0);
		ffu__value_free(&v);
		ffu__value_free(&w);
	}
	expect_read_error("s8_high.txt", "1\n128\n", arr(FFU_TYPE_S8, 2), 2, "value does not fit s8 (-128..127)");
	expect_read_error("s8_low.txt", "-129\n1\n", arr(FFU_TYPE_S8, 2), 1, "value does not fit s8 (-128..127)");
	expect_read_error("s16_low.txt", "0\n0\n-32769\n", arr(FFU_TYPE_S16, 3), 3, "does not fit s16 (-32768..32767)");
	expect_read_error("s32_high.txt", "2147483648\n", arr(FFU_TYPE_S32, 1), 1, "does not fit s32");
	expect_read_error("s64_low.txt", "-9223372036854775809\n", arr(FFU_TYPE_S64, 1), 1, "does not fit s64");
	expect_read_error("s64_huge.txt", "99999999999999999999999\n", arr(FFU_TYPE_S64, 1), 1, "does not fit s64");
	expect_read_error("u8_high.txt", "256\n", arr(FFU_TYPE_U8, 1), 1, "value does not fit u8 (0..255)");
	expect_read_error("u16_neg.txt", "-1\n", arr(FFU_TYPE_U16, 1), 1, "negative");
	expect_read_error("s32_junk.txt", "--1\n", arr(FFU_TYPE_S32, 1), 1, "not a number");
	expect_read_error("s32_minus.txt", "-\n", arr(FFU_TYPE_S32, 1), 1, "not a number");
}

/*
 * The pairing curves' base fields beyond 32 bytes: bls12_381_bf (48-byte elements, 115-digit
 * decimals), its _mont twin, and the Fq2 bn254_bfx2 (2 x 32 bytes) and bls12_381_bfx2 (2 x 48
 * bytes, a line of two coefficients): text and .bin round trips with p - 1 in every
 * coefficient (the longest text), and the errors naming file and line or element.
 */
#define BLS_P "4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272559787"
#define BLS_PM1 "4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272559786"
#define BN_PM1 "21888242871839275222246405745257275088696311157297823662689037894645226208582"

Test(values, pairing_base_fields_text_bin_and_errors)
{
	static const struct {
		ffu_type t;
		size_t elem;      /* storage bytes */
		const char *text; /* three elements; read back, written out as `out` */
		const char *out;
	} cases[] = {
		{FFU_TYPE_BLS12_381_BF, 48, "0\n" BLS_PM1 "\n0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaaa\n",
		 "0\n" BLS_PM1 "\n" BLS_PM1 "\n"},
		{FFU_TYPE_BLS12_381_BF_MONT, 48, "1\n2\n" BLS_PM1 "\n", "1\n2\n" BLS_PM1 "\n"},
		{FFU_TYPE_BN254_BFX2, 64, "0 1\n" BN_PM1 "  \t" BN_PM1 "\n7 0\n", "0 1\n" BN_PM1 " " BN_PM1 "\n7 0\n"},
		{FFU_TYPE_BLS12_381_BFX2, 96, "1 0\n" BLS_PM1 " " BLS_PM1 "\n0 0x10\n", "1 0\n" BLS_PM1 " " BLS_PM1 "\n0 16\n"},
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		const ffu_field *f = ffu__field_get((ffu_field_id)cases[k].t);
		cr_assert_eq(f->storage_bytes, cases[k].elem, "%s", f->name);
		ffu_shape s = arr(cases[k].t, 3);
		write_file("p.txt", cases[k].text, strlen(cases[k].text));
		ffu_value v, w;
		ffu_error e = {0};
		cr_assert_eq(ffu__values_read(&v, path_in("p.txt"), &s, &e), FFU_STATUS_OK, "%s: %s", f->name, e.message);
		cr_assert_eq(v.bytes, 3 * cases[k].elem);
		cr_assert_eq(ffu__values_write(path_in("p_out.txt"), &v, 1, &e), FFU_STATUS_OK, "%s", e.message);
		char *text = ffu_test_read_file(path_in("p_out.txt"), NULL);
		char head[96];
		snprintf(head, sizeof head, "# fieldfuse values v1\n# %s[3]\n", f->name);
		cr_assert(strncmp(text, head, strlen(head)) == 0, "%s", text);
		cr_assert_str_eq(text + strlen(head), cases[k].out, "%s", f->name);
		free(text);
		cr_assert_eq(ffu__values_write(path_in("p.bin"), &v, 1, &e), FFU_STATUS_OK, "%s", e.message);
		size_t n = 0;
		char *raw = ffu_test_read_file(path_in("p.bin"), &n);
		cr_assert_eq(n, 3 * cases[k].elem);
		cr_assert_eq(memcmp(raw, v.data, n), 0);
		free(raw);
		cr_assert_eq(ffu__values_read(&w, path_in("p.bin"), &s, &e), FFU_STATUS_OK, "%s", e.message);
		cr_assert_eq(memcmp(v.data, w.data, v.bytes), 0);
		ffu__value_free(&w);
		/* one element short: the size names the element bytes */
		ffu_shape s4 = arr(cases[k].t, 4);
		char want[160];
		snprintf(want, sizeof want, "size is %zu bytes, expected %zu (4 %s elements of %zu bytes)", 3 * cases[k].elem,
			 4 * cases[k].elem, f->name, cases[k].elem);
		cr_assert_eq(ffu__values_read(&w, path_in("p.bin"), &s4, &e), FFU_STATUS_EPARSE);
		cr_assert(strstr(e.message, want), "%s", e.message);
		/* the last element's top word set to all ones: >= p (the last coefficient of an Fq2) */
		memset(v.data + v.bytes - 4, 0xff, 4);
		write_file("p_big.bin", (const char *)v.data, v.bytes);
		cr_assert_eq(ffu__values_read(&w, path_in("p_big.bin"), &s, &e), FFU_STATUS_EPARSE);
		cr_assert(strstr(e.message, "element 2 is not less than"), "%s: %s", f->name, e.message);
		ffu__value_free(&v);
	}
	expect_read_error("bf_p.txt", "1\n" BLS_P "\n", arr(FFU_TYPE_BLS12_381_BF, 2), 2,
			  "value is not less than the field modulus");
	expect_read_error("bfx2_p.txt", "1 2\n3 4\n5 " BLS_P "\n", arr(FFU_TYPE_BLS12_381_BFX2, 3), 3,
			  "value is not less than the field modulus");
	expect_read_error("bfx2_one.txt", "1 2\n" BN_PM1 "\n", arr(FFU_TYPE_BN254_BFX2, 2), 2,
			  "an element is 2 coefficients separated by spaces");
	expect_read_error("bfx2_three.txt", "1 2 3\n", arr(FFU_TYPE_BLS12_381_BFX2, 1), 1,
			  "an element is 2 coefficients separated by spaces");
}

/*
 * Random point arrays (fields/point_random.c): every point type's array holds points on the
 * curve (canonical is the curve check value files use), pairwise distinct, in the promised
 * progression (a + i d) G (P_(i+1) - P_i the same for every i), the same for the same seed,
 * and one seed gives the same group elements in every kind and form of a curve.
 */
Test(values, random_points_progression_on_curve)
{
	enum { N = 12 };
	for (int id = FFU_FIELD_POINT_FIRST; id < FFU_ELEM_COUNT; id++) {
		const ffu_field *t = ffu__field_get((ffu_field_id)id);
		const ffu_field *jt = ffu__point_type_of(t->curve, FFU_POINT_JACOBIAN, ffu__field_is_mont(t->coef));
		const ffu_field *af = ffu__point_type_of(t->curve, FFU_POINT_AFFINE, ffu__field_is_mont(t->coef));
		ffu_shape s = arr((ffu_type)id, N), sa = arr((ffu_type)af->id, N);
		ffu_value v, w, a;
		cr_assert_eq(ffu__value_alloc(&v, &s, NULL), FFU_STATUS_OK);
		cr_assert_eq(ffu__value_alloc(&w, &s, NULL), FFU_STATUS_OK);
		cr_assert_eq(ffu__value_alloc(&a, &sa, NULL), FFU_STATUS_OK);
		uint64_t s1 = 11, s2 = 11, s3 = 11;
		ffu__value_random(&v, &s1);
		ffu__value_random(&w, &s2);
		ffu__value_random(&a, &s3);
		cr_expect_eq(memcmp(v.data, w.data, v.bytes), 0, "%s: the same seed, other points", t->name);
		const size_t eb = t->storage_bytes;
		unsigned char d0[FFU_FIELD_MAX_BYTES], di[FFU_FIELD_MAX_BYTES];
		ffu__point_sub(jt, d0, t, v.data + eb, t, v.data);
		for (int i = 0; i < N; i++) {
			const unsigned char *p = v.data + (size_t)i * eb;
			cr_expect(ffu__fp_canonical(t, p), "%s: point %d is not on the curve", t->name, i);
			cr_expect(ffu__point_eq(t, p, af, a.data + (size_t)i * af->storage_bytes),
				  "%s: point %d is not the affine array's point %d of the same seed", t->name, i, i);
			for (int j = 0; j < i; j++)
				cr_expect(!ffu__point_eq(t, p, t, v.data + (size_t)j * eb), "%s: points %d and %d are equal",
					  t->name, j, i);
			if (i + 1 < N) {
				ffu__point_sub(jt, di, t, p + eb, t, p);
				cr_expect(ffu__point_eq(jt, di, jt, d0), "%s: P_%d - P_%d is not P_1 - P_0", t->name, i + 1, i);
			}
		}
		ffu__value_free(&v);
		ffu__value_free(&w);
		ffu__value_free(&a);
	}
}

/* A CSR matrix (a dot's sparse lhs) written as value files: its dense elements in text, its
   CSR bytes in .bin; both read back as the same matrix. bench --save-values writes its inputs so. */
Test(values, csr_matrix_text_and_bin_round_trip)
{
	ffu_shape s = {0};
	s.type = FFU_TYPE_BABYBEAR;
	s.rank = 2;
	s.dims[0] = 3;
	s.dims[1] = 4;
	s.csr = true;
	s.nnz = 4;
	ffu_value v, w;
	ffu_error e = {0};
	cr_assert_eq(ffu__value_alloc(&v, &s, &e), FFU_STATUS_OK, "%s", e.message);
	/* [[0 7 0 9] [0 0 0 0] [5 0 0 11]]: row_ptrs 0 2 2 4, columns 1 3 0 3 */
	const uint32_t words[] = {0, 2, 2, 4, 1, 3, 0, 3, 7, 9, 5, 11};
	cr_assert_eq(v.bytes, sizeof words);
	memcpy(v.data, words, sizeof words);
	cr_assert_eq(ffu__values_write(path_in("m.txt"), &v, 1, &e), FFU_STATUS_OK, "%s", e.message);
	char *text = ffu_test_read_file(path_in("m.txt"), NULL);
	cr_assert(strstr(text, "\n0\n7\n0\n9\n0\n0\n0\n0\n5\n0\n0\n11\n"), "%s", text);
	free(text);
	cr_assert_eq(ffu__values_read(&w, path_in("m.txt"), &s, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(memcmp(v.data, w.data, v.bytes), 0);
	ffu__value_free(&w);
	cr_assert_eq(ffu__values_write(path_in("m.bin"), &v, 1, &e), FFU_STATUS_OK, "%s", e.message);
	size_t n = 0;
	char *raw = ffu_test_read_file(path_in("m.bin"), &n);
	cr_assert_eq(n, sizeof words);
	cr_assert_eq(memcmp(raw, words, n), 0);
	free(raw);
	cr_assert_eq(ffu__values_read(&w, path_in("m.bin"), &s, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(memcmp(v.data, w.data, v.bytes), 0);
	ffu__value_free(&w);

	/* row pointers that go down are not a CSR matrix: nothing is written */
	((uint32_t *)v.data)[2] = 1;
	cr_assert_eq(ffu__values_write(path_in("bad.txt"), &v, 1, &e), FFU_STATUS_EINVAL);
	cr_assert(strstr(e.message, "output 0 is not a CSR matrix as ZKX stores it"), "%s", e.message);
	cr_assert_eq(access(path_in("bad.txt"), F_OK), -1);
	/* a value >= p in a .bin file: refused, nothing written */
	((uint32_t *)v.data)[2] = 2;
	((uint32_t *)v.data)[9] = 0x78000001u;
	cr_assert_eq(ffu__values_write(path_in("bad.bin"), &v, 1, &e), FFU_STATUS_EINVAL);
	cr_assert(strstr(e.message, "values[1] is not a valid babybear value"), "%s", e.message);
	cr_assert_eq(access(path_in("bad.bin"), F_OK), -1);
	ffu__value_free(&v);
}
