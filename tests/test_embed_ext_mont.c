/*
 * tests/test_embed_ext_mont.c (part of test_embed): the extensions' `_mont` twins through
 * the public API, on PoCL and Rusticl: ZKX text (dialect zkx-2026.01, plain names =
 * Montgomery) run on ZKX-form buffers gives ZKX's bytes, computed here with plain 64-bit
 * and 128-bit integer arithmetic (no fieldfuse code in the expectation); buffer transfers
 * convert each coefficient between the forms.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "fieldfuse/executable.h"
#include "support.h"

enum { N = 100 };

static uint64_t mulmod(uint64_t a, uint64_t b, uint64_t p)
{
	return (uint64_t)((unsigned __int128)a * b % p);
}

/* a + b mod p without overflow (Goldilocks' p is close to 2^64) */
static uint64_t addmod(uint64_t a, uint64_t b, uint64_t p)
{
	return (uint64_t)(((unsigned __int128)a + b) % p);
}

/* x * 2^k mod p by k doublings (independent of fieldfuse's Montgomery code) */
static uint64_t times_2k(uint64_t x, int k, uint64_t p)
{
	for (int i = 0; i < k; i++)
		x = (uint64_t)(((unsigned __int128)x * 2) % p);
	return x;
}

static uint64_t next(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s ^ (*s >> 29);
}

static ffu_executable *compile_text(ffu_device *d, const char *text)
{
	ffu_error e = {0};
	ffu_program *p = NULL;
	ffu_parse_options o = {.dialect = FFU_DIALECT_ZKX_2026_01};
	cr_assert_eq(ffu_program_parse_with(&p, text, strlen(text), "ext_mont", &o, &e), FFU_STATUS_OK, "%s",
		     e.message);
	ffu_executable *x = NULL;
	cr_assert_eq(ffu_executable_create(&x, d, p, NULL, &e), FFU_STATUS_OK, "%s\n%s", e.message,
		     e.build_log ? e.build_log : "");
	ffu_program_destroy(&p);
	ffu_error_clear(&e);
	return x;
}

/*
 * mersenne31x2 (u^2 = -1, R = 2^32) and goldilocksx3 (u^3 = 7, R = 2^64), both plain ZKX
 * names: r = x * y + x, each element's coefficients uploaded as raw Montgomery words (the
 * buffers' own form) and the result compared raw.
 */
static void zkx_bytes(const char *sel)
{
	ffu_error e = {0};
	ffu_device *d = NULL;
	cr_assert_eq(ffu_device_open(&d, sel, &e), FFU_STATUS_OK, "device '%s' must be present: %s", sel, e.message);
	static const struct {
		const char *type;
		int deg, w, rbits;
		uint64_t p;
		size_t cb;
	} fs[] = {{"mersenne31x2", 2, -1, 32, 0x7fffffffu, 4}, {"goldilocksx3", 3, 7, 64, 0xffffffff00000001ull, 8},
		  {"babybearx4", 4, 11, 32, 0x78000001u, 4}};
	for (size_t f = 0; f < sizeof fs / sizeof fs[0]; f++) {
		char text[512];
		snprintf(text, sizeof text,
			 "ENTRY %%main {\n  %%x = %s[%d] parameter(0)\n  %%y = %s[%d] parameter(1)\n"
			 "  %%m = %s[%d] multiply(%%x, %%y)\n  ROOT %%r = %s[%d] add(%%m, %%x)\n}\n",
			 fs[f].type, N, fs[f].type, N, fs[f].type, N, fs[f].type, N);
		ffu_executable *x = compile_text(d, text);
		int deg = fs[f].deg;
		uint64_t p = fs[f].p, w = fs[f].w < 0 ? p - (uint64_t)-fs[f].w : (uint64_t)fs[f].w;
		size_t cb = fs[f].cb, eb = cb * (size_t)deg;
		unsigned char in_x[N * 32], in_y[N * 32], out[N * 32], want[N * 32];
		uint64_t s = 0xe47 + f;
		for (int i = 0; i < N; i++) {
			uint64_t a[4], b[4], t[7] = {0}, r[4];
			for (int k = 0; k < deg; k++) {
				a[k] = i == 0 ? 0 : i == 1 ? (uint64_t)k + 1 : i == 2 ? p - 1 : next(&s) % p;
				b[k] = i < 3 ? (uint64_t)(i == 0 ? 5 : k) : next(&s) % p;
			}
			/* the product mod u^deg - W, then + a */
			for (int k = 0; k < deg; k++)
				for (int l = 0; l < deg; l++)
					t[k + l] = addmod(t[k + l], mulmod(a[k], b[l], p), p);
			for (int k = 2 * deg - 2; k >= deg; k--)
				t[k - deg] = addmod(t[k - deg], mulmod(t[k], w, p), p);
			for (int k = 0; k < deg; k++)
				r[k] = addmod(t[k], a[k], p);
			for (int k = 0; k < deg; k++) {
				uint64_t ra = times_2k(a[k], fs[f].rbits, p), rb = times_2k(b[k], fs[f].rbits, p);
				uint64_t rr = times_2k(r[k], fs[f].rbits, p);
				memcpy(in_x + (size_t)i * eb + (size_t)k * cb, &ra, cb); /* little-endian host */
				memcpy(in_y + (size_t)i * eb + (size_t)k * cb, &rb, cb);
				memcpy(want + (size_t)i * eb + (size_t)k * cb, &rr, cb);
			}
		}
		int64_t n[] = {N};
		ffu_buffer *bx = NULL, *by = NULL, *bo = NULL;
		char mont_type[64];
		snprintf(mont_type, sizeof mont_type, "%s_mont", fs[f].type);
		cr_assert_eq(ffu_buffer_create(&bx, d, mont_type, 1, n, &e), FFU_STATUS_OK, "%s", e.message);
		cr_assert_eq(ffu_buffer_create(&by, d, mont_type, 1, n, &e), FFU_STATUS_OK, "%s", e.message);
		cr_assert_eq(ffu_buffer_create(&bo, d, mont_type, 1, n, &e), FFU_STATUS_OK, "%s", e.message);
		cr_assert_eq(ffu_buffer_upload(bx, in_x, N * eb, FFU_FORM_MONTGOMERY, &e), FFU_STATUS_OK, "%s", e.message);
		cr_assert_eq(ffu_buffer_upload(by, in_y, N * eb, FFU_FORM_MONTGOMERY, &e), FFU_STATUS_OK, "%s", e.message);
		const ffu_buffer *ins[] = {bx, by};
		ffu_buffer *outs[] = {bo};
		cr_assert_eq(ffu_executable_run(x, ins, 2, outs, 1, NULL, &e), FFU_STATUS_OK, "%s", e.message);
		cr_assert_eq(ffu_buffer_download(bo, out, N * eb, FFU_FORM_MONTGOMERY, &e), FFU_STATUS_OK, "%s", e.message);
		int bad = 0;
		for (int i = 0; i < N; i++)
			if (memcmp(out + (size_t)i * eb, want + (size_t)i * eb, eb) != 0 && bad++ < 3)
				cr_log_error("%s %s element %d differs from ZKX's bytes", sel, fs[f].type, i);
		cr_expect_eq(bad, 0, "%s %s: %d of %d elements", sel, fs[f].type, bad, N);
		/* the same buffer downloaded canonical: each coefficient / R */
		cr_assert_eq(ffu_buffer_download(bo, out, N * eb, FFU_FORM_CANONICAL, &e), FFU_STATUS_OK, "%s", e.message);
		for (int i = 0; i < N && bad == 0; i++)
			for (int k = 0; k < deg; k++) {
				uint64_t c = 0, m = 0;
				memcpy(&c, out + (size_t)i * eb + (size_t)k * cb, cb);
				memcpy(&m, want + (size_t)i * eb + (size_t)k * cb, cb);
				cr_assert_eq(times_2k(c, fs[f].rbits, p), m, "%s %s canonical download, element %d", sel,
					     fs[f].type, i);
			}
		ffu_buffer_destroy(&bx);
		ffu_buffer_destroy(&by);
		ffu_buffer_destroy(&bo);
		ffu_executable_destroy(&x);
	}
	ffu_device_close(&d);
	ffu_error_clear(&e);
}

Test(ext_mont, zkx_bytes_pocl, .timeout = 120)
{
	zkx_bytes(ffu_test_devices[0]);
}

Test(ext_mont, zkx_bytes_rusticl, .timeout = 120)
{
	zkx_bytes(ffu_test_devices[1]);
}
