/*
 * tests/test_fft.c: the `fft` op (NTT). On the host: ZKX's roots of unity (fields/roots.c)
 * against ZKX's published values and GMP; the interpreter's radix-2 transform
 * (interp/fft.c) against the O(n^2) DFT computed with GMP, for both directions, with and
 * without bit reversal and twiddles, on prime, _mont and extension types (the transform
 * is linear, so it commutes with the Montgomery radix and acts coefficient-wise on an
 * extension: GMP transforms the stored integers); FFT then IFFT is the identity. On PoCL
 * and Rusticl: every transform length 1 .. 2^12 (and 2^16; 2^20 in the full mode) of
 * BabyBear, lengths on the other fields, batched rows, twiddles operands, fft_do_bit_reverse
 * =false (run_lengths says which in which mode), and the fused chains (producers in the first pass, consumers in the last, the
 * coset low-degree extension), each output equal to the interpreter's. A missing device
 * fails, never skips.
 */
#include <criterion/criterion.h>
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fieldfuse/builder.h"
#include "hlo/hlo.h"
#include "interp/interp.h"
#include "passes/passes.h"
#include "runtime/exec.h"
#include "support.h"

static void to_mpz(mpz_t z, const unsigned char *b, size_t n)
{
	mpz_import(z, n, -1, 1, 0, 0, b);
}

static void from_mpz(unsigned char *b, size_t n, const mpz_t z)
{
	size_t cnt = 0;
	memset(b, 0, n);
	mpz_export(b, &cnt, -1, 1, 0, 0, z);
}

/* ---- roots ---- */

Test(fft, roots_are_zkx)
{
	static const struct {
		const char *field, *w4;
	} known[] = {/* ZKX.md 4.8, from zk_dtypes GetRootOfUnity */
		     {"babybear", "1728404513"},
		     {"goldilocks", "281474976710656"},
		     {"bn254_sf", "21888242871839275217838484774961031246007050428528088939761107053157389710902"}};
	mpz_t w, want;
	mpz_inits(w, want, NULL);
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
		const ffu_field *f = ffu_test_field(known[i].field);
		unsigned char b[FFU_FIELD_MAX_BYTES];
		cr_assert(ffu__fp_root_of_unity(f, 2, b));
		to_mpz(w, b, f->storage_bytes);
		mpz_set_str(want, known[i].w4, 10);
		cr_expect(mpz_cmp(w, want) == 0, "%s: w_4 = %s, ZKX has %s", f->name, mpz_get_str(NULL, 10, w), known[i].w4);
	}
	mpz_clears(w, want, NULL);
}

/* Every prime field's 2^k-th root for every k <= its 2-adicity: order exactly 2^k (GMP). */
Test(fft, roots_have_their_order)
{
	mpz_t p, w, t;
	mpz_inits(p, w, t, NULL);
	for (int id = 0; id < FFU_FIELD_COUNT; id++) {
		const ffu_field *f = ffu__field_get((ffu_field_id)id);
		mpz_set_str(p, f->modulus_hex, 16);
		unsigned char b[FFU_FIELD_MAX_BYTES];
		for (int k = 0; k <= f->two_adicity; k++) {
			cr_assert(ffu__fp_root_of_unity(f, k, b), "%s 2^%d", f->name, k);
			to_mpz(w, b, f->storage_bytes);
			mpz_powm_ui(t, w, UINT64_C(1) << (k < 63 ? k : 62), p);
			if (k < 63) {
				mpz_powm_ui(t, w, UINT64_C(1) << k, p);
				cr_expect(mpz_cmp_ui(t, 1) == 0, "%s: w^(2^%d) != 1", f->name, k);
			}
			if (k > 0 && k < 64) {
				mpz_powm_ui(t, w, UINT64_C(1) << (k - 1), p);
				mpz_add_ui(t, t, 1);
				cr_expect(mpz_cmp(t, p) == 0, "%s: w^(2^%d) != -1", f->name, k - 1);
			}
		}
		cr_expect(!ffu__fp_root_of_unity(f, f->two_adicity + 1, b), "%s: no root of order 2^%d", f->name,
			  f->two_adicity + 1);
	}
	mpz_clears(p, w, t, NULL);
}

/* ---- programs ---- */

static ffu_module *parse(const char *text)
{
	ffu_error e = {0};
	ffu_module *m = NULL;
	cr_assert_eq(ffu__hlo_parse(&m, text, strlen(text), "fft", &e), FFU_STATUS_OK, "%s\n%s", e.message, text);
	return m;
}

static void random_inputs(ffu_value *in, const ffu_module *m, uint64_t seed)
{
	ffu_error e = {0};
	for (int i = 0; i < m->entry->n_params; i++) {
		cr_assert_eq(ffu__value_alloc(&in[i], &m->entry->params[i]->shape, &e), FFU_STATUS_OK, "%s", e.message);
		ffu__value_random(&in[i], &seed);
	}
}

static uint64_t bitrev(uint64_t i, int k)
{
	uint64_t r = 0;
	for (int b = 0; b < k; b++)
		r |= ((i >> b) & 1) << (k - 1 - b);
	return r;
}

/*
 * The DFT of each row of x (n a power of two) with GMP over the stored integers of each
 * coefficient, as ZKX defines fft (docs/hlo.md): root w (canonical), inverse scaled by 1/n,
 * bit reversal of the FFT's input / the IFFT's output when !bit_reverse.
 */
static void gmp_dft(const ffu_field *f, const unsigned char *x, unsigned char *y, int64_t rows, int64_t n, const mpz_t w,
		    bool inverse, bool bit_reverse)
{
	const ffu_field *p = f->prime;
	size_t cb = p->storage_bytes, eb = f->storage_bytes;
	int d = f->degree, k = 0;
	while ((INT64_C(1) << k) < n)
		k++;
	mpz_t P, acc, t, wj, ninv, wi;
	mpz_inits(P, acc, t, wj, ninv, wi, NULL);
	mpz_set_str(P, p->modulus_hex, 16);
	mpz_set(wi, w);
	if (inverse)
		mpz_invert(wi, w, P);
	mpz_set_si(ninv, n);
	mpz_invert(ninv, ninv, P);
	for (int64_t r = 0; r < rows; r++)
		for (int c = 0; c < d; c++)
			for (int64_t o = 0; o < n; o++) {
				mpz_set_ui(acc, 0);
				for (int64_t j = 0; j < n; j++) {
					int64_t src = !inverse && !bit_reverse ? (int64_t)bitrev((uint64_t)j, k) : j;
					to_mpz(t, x + (size_t)(r * n + src) * eb + (size_t)c * cb, cb);
					mpz_powm_ui(wj, wi, (unsigned long)((j * o) % n), P);
					mpz_addmul(acc, t, wj);
				}
				if (inverse)
					mpz_mul(acc, acc, ninv);
				mpz_mod(acc, acc, P);
				int64_t dst = inverse && !bit_reverse ? (int64_t)bitrev((uint64_t)o, k) : o;
				from_mpz(y + (size_t)(r * n + dst) * eb + (size_t)c * cb, cb, acc);
			}
	mpz_clears(P, acc, t, wj, ninv, wi, NULL);
}

/* The twiddle table w^i (i < n) of root w as a value of type tf (stored form). */
static void twiddle_table(ffu_value *v, const ffu_field *tf, int64_t n, const mpz_t w)
{
	const ffu_field *p = tf->prime;
	mpz_t P, t;
	mpz_inits(P, t, NULL);
	mpz_set_str(P, p->modulus_hex, 16);
	for (int64_t i = 0; i < n; i++) {
		unsigned char c[FFU_FIELD_MAX_BYTES];
		mpz_powm_ui(t, w, (unsigned long)i, P);
		from_mpz(c, p->storage_bytes, t);
		ffu__fp_convert(tf, v->data + (size_t)i * tf->storage_bytes, p, c);
	}
	mpz_clears(P, t, NULL);
}

/* One fft of `type`[rows?, n] as a program; tw: with a twiddles operand. */
static char *fft_program(const char *type, int64_t rows, int64_t n, bool inverse, bool bit_reverse, bool tw)
{
	const ffu_field *f = ffu_test_field(type);
	ffu_type tt = ffu__fft_twiddle_type((ffu_type)f->id);
	char shape[96], *buf = malloc(1024);
	cr_assert(buf);
	if (rows > 1)
		snprintf(shape, sizeof shape, "%s[%lld,%lld]", type, (long long)rows, (long long)n);
	else
		snprintf(shape, sizeof shape, "%s[%lld]", type, (long long)n);
	int w = snprintf(buf, 1024, "HloModule t\nENTRY %%main {\n  %%x = %s parameter(0)\n", shape);
	if (tw)
		w += snprintf(buf + w, 1024 - (size_t)w, "  %%w = %s[%lld] parameter(1)\n", ffu__type_name(tt), (long long)n);
	snprintf(buf + w, 1024 - (size_t)w, "  ROOT %%y = %s fft(%%x%s), fft_type=%s, fft_length=%lld%s\n}\n", shape,
		 tw ? ", %w" : "", inverse ? "IFFT" : "FFT", (long long)n, bit_reverse ? "" : ", fft_do_bit_reverse=false");
	return buf;
}

/* The interpreter against GMP's DFT for one configuration; root = ZKX's, or its cube via twiddles. */
static void interp_vs_dft(const char *type, int64_t rows, int64_t n, bool inverse, bool bit_reverse, bool tw)
{
	const ffu_field *f = ffu_test_field(type);
	char *text = fft_program(type, rows, n, inverse, bit_reverse, tw);
	ffu_module *m = parse(text);
	ffu_value in[2] = {0}, *out = NULL;
	int n_out = 0;
	ffu_error e = {0};
	random_inputs(in, m, 0xfeed + (uint64_t)n);
	int k = 0;
	while ((INT64_C(1) << k) < n)
		k++;
	unsigned char wb[FFU_FIELD_MAX_BYTES];
	cr_assert(ffu__fp_root_of_unity(f, k, wb));
	mpz_t w, P;
	mpz_inits(w, P, NULL);
	to_mpz(w, wb, f->prime->storage_bytes);
	if (tw) { /* another primitive n-th root: w^3 (3 is odd); the IFFT's table holds its inverse's powers */
		mpz_set_str(P, f->prime->modulus_hex, 16);
		mpz_powm_ui(w, w, 3, P);
		mpz_t wi;
		mpz_init(wi);
		mpz_invert(wi, w, P);
		twiddle_table(&in[1], ffu__shape_field(&in[1].shape), n, inverse ? wi : w);
		mpz_clear(wi);
	}
	cr_assert_eq(ffu__interp_run(m, in, m->entry->n_params, &out, &n_out, &e), FFU_STATUS_OK, "%s", e.message);
	unsigned char *want = malloc((size_t)(rows * n) * f->storage_bytes);
	cr_assert(want);
	gmp_dft(f, in[0].data, want, rows, n, w, inverse, bit_reverse);
	for (int64_t i = 0; i < rows * n; i++)
		cr_assert(memcmp(out[0].data + (size_t)i * f->storage_bytes, want + (size_t)i * f->storage_bytes,
				 f->storage_bytes) == 0,
			  "%s %s n=%lld rows=%lld%s%s: element %lld differs from the DFT", type, inverse ? "IFFT" : "FFT",
			  (long long)n, (long long)rows, bit_reverse ? "" : " no-bit-reverse", tw ? " twiddles" : "",
			  (long long)i);
	free(want);
	mpz_clears(w, P, NULL);
	ffu__values_free(out, n_out);
	for (int i = 0; i < m->entry->n_params; i++)
		ffu__value_free(&in[i]);
	ffu__module_free(m);
	free(text);
}

static const char *const host_types[] = {"babybear",     "koalabear",       "goldilocks",    "bn254_sf",
					 "bls12_381_sf", "mersenne31",      "babybear_mont", "goldilocks_mont",
					 "babybearx4",   "goldilocksx2",    "goldilocksx3",  "babybearx4_mont",
					 "goldilocksx2_mont"};

Test(fft, interpreter_is_the_dft)
{
	for (size_t t = 0; t < sizeof host_types / sizeof host_types[0]; t++) {
		const ffu_field *f = ffu_test_field(host_types[t]);
		int max_k = f->prime->two_adicity < 5 ? f->prime->two_adicity : 5;
		for (int k = 0; k <= max_k; k++)
			for (int mode = 0; mode < 8; mode++)
				interp_vs_dft(host_types[t], k == 3 ? 3 : 1, INT64_C(1) << k, mode & 1, !(mode & 2), mode & 4);
	}
}

/* FFT then IFFT is the identity (random rows of 2^10), both bit orders. */
Test(fft, inverse_undoes_forward)
{
	for (size_t t = 0; t < sizeof host_types / sizeof host_types[0]; t++) {
		const ffu_field *f = ffu_test_field(host_types[t]);
		int k = f->prime->two_adicity < 10 ? f->prime->two_adicity : 10;
		for (int br = 0; br < 2; br++) {
			char text[512];
			snprintf(text, sizeof text,
				 "HloModule t\nENTRY %%main {\n  %%x = %s[2,%d] parameter(0)\n"
				 "  %%y = %s[2,%d] fft(%%x), fft_type=FFT, fft_length=%d%s\n"
				 "  ROOT %%z = %s[2,%d] fft(%%y), fft_type=IFFT, fft_length=%d%s\n}\n",
				 host_types[t], 1 << k, host_types[t], 1 << k, 1 << k, br ? ", fft_do_bit_reverse=false" : "",
				 host_types[t], 1 << k, 1 << k, br ? ", fft_do_bit_reverse=false" : "");
			ffu_module *m = parse(text);
			ffu_value in = {0}, *out = NULL;
			int n_out = 0;
			ffu_error e = {0};
			random_inputs(&in, m, 77);
			cr_assert_eq(ffu__interp_run(m, &in, 1, &out, &n_out, &e), FFU_STATUS_OK, "%s", e.message);
			cr_expect(memcmp(out[0].data, in.data, in.bytes) == 0, "%s: IFFT(FFT(x)) != x", host_types[t]);
			ffu__values_free(out, n_out);
			ffu__value_free(&in);
			ffu__module_free(m);
		}
	}
}

Test(fft, verifier_rules)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{"ENTRY %m {\n %x = babybear[6] parameter(0)\n ROOT %y = babybear[6] fft(%x), fft_type=FFT, fft_length=6\n}\n",
		 "not a power of two"},
		{"ENTRY %m {\n %x = babybear[8] parameter(0)\n ROOT %y = babybear[8] fft(%x), fft_type=FFT, fft_length=4\n}\n",
		 "fft_length=4 differs"},
		{"ENTRY %m {\n %x = mersenne31[4] parameter(0)\n ROOT %y = mersenne31[4] fft(%x), fft_type=FFT, fft_length=4\n}\n",
		 "2-adicity is 1"},
		{"ENTRY %m {\n %x = babybear[4] parameter(0)\n %w = babybear[2] parameter(1)\n"
		 " ROOT %y = babybear[4] fft(%x, %w), fft_type=FFT, fft_length=4\n}\n",
		 "takes babybear[4]"},
		{"ENTRY %m {\n %x = babybearx4[4] parameter(0)\n %w = babybearx4[4] parameter(1)\n"
		 " ROOT %y = babybearx4[4] fft(%x, %w), fft_type=FFT, fft_length=4\n}\n",
		 "takes babybear[4]"},
		{"ENTRY %m {\n %x = u32[4] parameter(0)\n ROOT %y = u32[4] fft(%x), fft_type=FFT, fft_length=4\n}\n",
		 "needs a field"},
		{"ENTRY %m {\n %x = babybear[4] parameter(0)\n ROOT %y = babybear[4] fft(%x), fft_type=DFT, fft_length=4\n}\n",
		 "unknown fft_type 'DFT'"},
		{"ENTRY %m {\n %x = babybear[4] parameter(0)\n ROOT %y = babybear[4] fft(%x), fft_length=4\n}\n",
		 "needs the attribute fft_type="},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ffu_error e = {0};
		ffu_module *m = NULL;
		ffu_status st = ffu__hlo_parse(&m, bad[i].text, strlen(bad[i].text), "bad.hlo", &e);
		cr_expect(st == FFU_STATUS_EVERIFY || st == FFU_STATUS_EPARSE, "%s: status %d", bad[i].text, st);
		cr_expect(e.message && strstr(e.message, bad[i].msg), "%s: '%s' lacks '%s'", bad[i].text,
			  e.message ? e.message : "", bad[i].msg);
		ffu__module_free(m);
		ffu_error_clear(&e);
	}
}

/* ---- devices ---- */

/* Runs text on the device against the interpreter; returns the executable's kernel count. */
static int device_vs_interp(ffu_cl *cl, const char *text, bool fuse, uint64_t seed)
{
	ffu_module *m = parse(text);
	ffu_error e = {0};
	int n_in = m->entry->n_params, n_ref = 0, n_out = 0;
	ffu_value *in = calloc((size_t)n_in + 1, sizeof *in), *ref = NULL, *out = NULL;
	cr_assert(in);
	random_inputs(in, m, seed);
	/* twiddles operands (named %w*): ZKX's root's powers, so the result is the DFT */
	for (int i = 0; i < n_in; i++) {
		const ffu_inst *p = m->entry->params[i];
		if (p->name[0] != 'w')
			continue;
		const ffu_field *tf = ffu__shape_field(&p->shape);
		int64_t n = p->shape.dims[0];
		int k = 0;
		while ((INT64_C(1) << k) < n)
			k++;
		unsigned char wb[FFU_FIELD_MAX_BYTES];
		cr_assert(ffu__fp_root_of_unity(tf, k, wb));
		mpz_t w;
		mpz_init(w);
		to_mpz(w, wb, tf->prime->storage_bytes);
		twiddle_table(&in[i], tf, n, w);
		mpz_clear(w);
	}
	cr_assert_eq(ffu__interp_run(m, in, n_in, &ref, &n_ref, &e), FFU_STATUS_OK, "%s", e.message);
	ffu_pass_opts po = {.fuse = fuse};
	cr_assert_eq(ffu__passes_run(m, &po, &e), FFU_STATUS_OK, "%s", e.message);
	ffu_exec *x = NULL;
	cr_assert_eq(ffu__exec_create(&x, cl, m, &e), FFU_STATUS_OK, "on %s: %s\n%s\n%s", cl->dev.name, e.message,
		     e.build_log ? e.build_log : "", text);
	cr_assert_eq(ffu__exec_upload(x, in, n_in, &e), FFU_STATUS_OK, "%s", e.message);
	/* twice: a per-run twiddle table and the scratch buffers must not carry state */
	for (int run = 0; run < 2; run++) {
		cr_assert_eq(ffu__exec_run(x, NULL, NULL, &e), FFU_STATUS_OK, "%s", e.message);
		cr_assert_eq(ffu__exec_download(x, &out, &n_out, &e), FFU_STATUS_OK, "%s", e.message);
		cr_assert_eq(n_out, n_ref);
		for (int o = 0; o < n_out; o++) {
			size_t eb = ffu__shape_elem_bytes(&out[o].shape);
			for (size_t i = 0; i * eb < out[o].bytes; i++)
				cr_assert(memcmp(out[o].data + i * eb, ref[o].data + i * eb, eb) == 0,
					  "on %s (%s): output %d element %zu differs from the interpreter\n%s", cl->dev.name,
					  fuse ? "fused" : "unfused", o, i, text);
		}
		ffu__values_free(out, n_out);
	}
	int kernels = ffu__exec_kernel_count(x);
	ffu__exec_destroy(&x);
	for (int i = 0; i < n_in; i++)
		ffu__value_free(&in[i]);
	free(in);
	ffu__values_free(ref, n_ref);
	ffu__module_free(m);
	ffu_error_clear(&e);
	return kernels;
}

/* One program: an fft of every length 2^k, k in ks, in both directions (a tuple of results). */
static char *sizes_program(const char *type, const int *ks, int n_ks, bool variants)
{
	enum { CAP = 16384 };
	char *buf = malloc(CAP);
	cr_assert(buf);
	const ffu_field *f = ffu_test_field(type);
	const char *tt = ffu__type_name(ffu__fft_twiddle_type((ffu_type)f->id));
	int w = snprintf(buf, CAP, "HloModule sizes\nENTRY %%main {\n"), n_res = 0;
	char roots[4096] = "";
	int rw = 0;
	for (int i = 0; i < n_ks; i++) {
		long long n = 1LL << ks[i];
		w += snprintf(buf + w, CAP - (size_t)w, "  %%x%d = %s[%lld] parameter(%d)\n", i, type, n, i);
	}
	int np = n_ks;
	for (int i = 0; i < n_ks; i++) {
		long long n = 1LL << ks[i];
		for (int v = 0; v < (variants ? 4 : 2); v++) {
			bool inv = v & 1, br = v < 2, tw = v == 3 && n > 1;
			if (tw)
				w += snprintf(buf + w, CAP - (size_t)w, "  %%w%d = %s[%lld] parameter(%d)\n", i, tt, n, np++);
			w += snprintf(buf + w, CAP - (size_t)w, "  %%y%d_%d = %s[%lld] fft(%%x%d%s), fft_type=%s, fft_length=%lld%s\n",
				      i, v, type, n, i, tw ? (snprintf(roots, sizeof roots, ", %%w%d", i), roots) : "",
				      inv ? "IFFT" : "FFT", n, br ? "" : ", fft_do_bit_reverse=false");
			n_res++;
		}
	}
	(void)rw;
	w += snprintf(buf + w, CAP - (size_t)w, "  ROOT %%r = (");
	for (int i = 0, c = 0; i < n_ks; i++)
		for (int v = 0; v < (variants ? 4 : 2); v++, c++)
			w += snprintf(buf + w, CAP - (size_t)w, "%s%s[%lld]", c ? ", " : "", type, 1LL << ks[i]);
	w += snprintf(buf + w, CAP - (size_t)w, ") tuple(");
	for (int i = 0, c = 0; i < n_ks; i++)
		for (int v = 0; v < (variants ? 4 : 2); v++, c++)
			w += snprintf(buf + w, CAP - (size_t)w, "%s%%y%d_%d", c ? ", " : "", i, v);
	w += snprintf(buf + w, CAP - (size_t)w, ")\n}\n");
	cr_assert_lt(w, CAP);
	(void)n_res;
	return buf;
}

static void run_sizes(ffu_cl *cl, const char *type, const int *ks, int n_ks, bool variants)
{
	char *text = sizes_program(type, ks, n_ks, variants);
	device_vs_interp(cl, text, true, 11);
	free(text);
}

/*
 * Quick mode: every BabyBear length to 2^12 both ways, the four variants (bit orders,
 * twiddles) at five of them, 2^16; the other types at a few lengths. The full mode adds
 * 2^20, more lengths of the 64-bit fields, the variants over bn254_sf and four more types.
 * Compile time is the cost (each transform is several kernels, built cold by each device
 * in CI): every variant at every length and the extra types' variants took 470 s on
 * Rusticl alone, without a finding the variants at five lengths would miss.
 */
static void run_lengths(const char *device)
{
	ffu_cl cl = {0};
	ffu_test_open_device(&cl, device);
	const bool full = ffu_test_full();
	static const int some12[] = {2, 3, 5, 6, 7, 8, 10, 11}, var12[] = {0, 1, 4, 9, 12}, big[] = {16, 20};
	run_sizes(&cl, "babybear", var12, 5, true);
	run_sizes(&cl, "babybear", some12, 8, false);
	run_sizes(&cl, "babybear", big, full ? 2 : 1, false);
	static const int k64[] = {1, 7, 0, 3, 11}, k256[] = {2, 6, 0, 9}, kext[] = {1, 5, 0, 8}, km31[] = {0, 1};
	run_sizes(&cl, "goldilocks", k64, full ? 5 : 2, true);
	run_sizes(&cl, "koalabear", k64, full ? 5 : 2, false);
	run_sizes(&cl, "goldilocks_mont", k64, full ? 3 : 1, true);
	run_sizes(&cl, "babybear_mont", k64, full ? 3 : 1, true);
	run_sizes(&cl, "mersenne31", km31, 2, false);
	run_sizes(&cl, "bn254_sf", k256, 2, full);
	run_sizes(&cl, "babybearx4", kext, 2, false);
	run_sizes(&cl, "goldilocksx2_mont", kext, full ? 2 : 1, false);
	if (full) {
		run_sizes(&cl, "goldilocksx3", kext, 2, false);
		run_sizes(&cl, "babybearx4_mont", kext, 2, false);
		run_sizes(&cl, "bls12_381_sf", k256, 2, false);
		run_sizes(&cl, "goldilocksx2", kext, 2, false);
	}
	ffu__cl_close(&cl);
}

Test(fft, pocl_lengths, .timeout = 900)
{
	run_lengths(ffu_test_devices[0]);
}

Test(fft, rusticl_lengths, .timeout = 900)
{
	run_lengths(ffu_test_devices[1]);
}

/* Batched rows, and the fused chains (FUSED_* name the ones first_pass_columns reads). */
enum { FUSED_LDE = 5, FUSED_STRADDLE = 9, FUSED_BITREV = 12, FUSED_ROWS = 13 };
static const char *const programs[] = {
	/* rows of a trace matrix, both ranks */
	"ENTRY %m {\n %x = babybear[3,64] parameter(0)\n ROOT %y = babybear[3,64] fft(%x), fft_type=FFT, fft_length=64\n}\n",
	/* a batch over 1 MiB: the target's radix for big transforms (device/target.c) */
	"ENTRY %m {\n %x = babybear[16,32768] parameter(0)\n"
	" ROOT %y = babybear[16,32768] fft(%x), fft_type=IFFT, fft_length=32768\n}\n",
	"ENTRY %m {\n %x = goldilocks[2,3,16] parameter(0)\n"
	" ROOT %y = goldilocks[2,3,16] fft(%x), fft_type=IFFT, fft_length=16, fft_do_bit_reverse=false\n}\n",
	/* evaluate constraints, then interpolate: the products fuse into the first pass */
	"ENTRY %m {\n %a = babybear[1024] parameter(0)\n %b = babybear[1024] parameter(1)\n %c = babybear[1024] parameter(2)\n"
	" %ab = babybear[1024] multiply(%a, %b)\n %q = babybear[1024] subtract(%ab, %c)\n"
	" ROOT %y = babybear[1024] fft(%q), fft_type=IFFT, fft_length=1024\n}\n",
	/* consumers in the last pass, the transform also an output */
	"ENTRY %m {\n %x = bn254_sf[64] parameter(0)\n %s = bn254_sf[64] parameter(1)\n"
	" %y = bn254_sf[64] fft(%x), fft_type=FFT, fft_length=64\n %z = bn254_sf[64] multiply(%y, %s)\n"
	" %u = bn254_sf[64] add(%z, %x)\n ROOT %t = (bn254_sf[64], bn254_sf[64]) tuple(%u, %y)\n}\n",
	/* coset low-degree extension by 2 of 4 columns: ifft, zero-pad, shift, fft */
	"ENTRY %m {\n %e = babybear[4,256] parameter(0)\n %sh = babybear[4,512] parameter(1)\n"
	" %c = babybear[4,256] fft(%e), fft_type=IFFT, fft_length=256\n %z0 = babybear[] constant(0)\n"
	" %z = babybear[4,256] broadcast(%z0), dimensions={}\n"
	" %p = babybear[4,512] concatenate(%c, %z), dimensions={1}\n %s = babybear[4,512] multiply(%p, %sh)\n"
	" ROOT %y = babybear[4,512] fft(%s), fft_type=FFT, fft_length=512\n}\n",
	/* an extension column with the prime field's twiddles, then a consumer */
	"ENTRY %m {\n %x = babybearx4[128] parameter(0)\n %w = babybear[128] parameter(1)\n"
	" %y = babybearx4[128] fft(%x, %w), fft_type=FFT, fft_length=128\n"
	" ROOT %z = babybearx4[128] multiply(%y, %y)\n}\n",
	/*
	 * The first pass's columns (codegen/fft.c): each slot reads the concatenate's
	 * operand it lies in, zero slots fold. Zeros first, 3 Goldilocks columns, shift:
	 */
	"ENTRY %m {\n %e = goldilocks[3,128] parameter(0)\n %sh = goldilocks[3,256] parameter(1)\n"
	" %c = goldilocks[3,128] fft(%e), fft_type=IFFT, fft_length=128\n %z0 = goldilocks[] constant(0)\n"
	" %z = goldilocks[3,128] broadcast(%z0), dimensions={}\n"
	" %p = goldilocks[3,256] concatenate(%z, %c), dimensions={1}\n %s = goldilocks[3,256] multiply(%p, %sh)\n"
	" ROOT %y = goldilocks[3,256] fft(%s), fft_type=FFT, fft_length=256\n}\n",
	/* blowup 4 by nested concatenates, _mont, one row of shift powers for both columns */
	"ENTRY %m {\n %e = babybear_mont[2,256] parameter(0)\n %pw = babybear_mont[1024] parameter(1)\n"
	" %c = babybear_mont[2,256] fft(%e), fft_type=IFFT, fft_length=256\n %z0 = babybear_mont[] constant(0)\n"
	" %z1 = babybear_mont[2,256] broadcast(%z0), dimensions={}\n"
	" %z2 = babybear_mont[2,512] broadcast(%z0), dimensions={}\n"
	" %q = babybear_mont[2,512] concatenate(%c, %z1), dimensions={1}\n"
	" %p = babybear_mont[2,1024] concatenate(%q, %z2), dimensions={1}\n"
	" %sh = babybear_mont[2,1024] broadcast(%pw), dimensions={1}\n"
	" %s = babybear_mont[2,1024] multiply(%p, %sh)\n"
	" ROOT %y = babybear_mont[2,1024] fft(%s), fft_type=FFT, fft_length=1024\n}\n",
	/* an operand boundary inside a slot (272 = 8.5 x 32, 4.25 x 64): that slot clamps */
	"ENTRY %m {\n %a = babybear[4,272] parameter(0)\n %z0 = babybear[] constant(0)\n"
	" %z = babybear[4,240] broadcast(%z0), dimensions={}\n"
	" %p = babybear[4,512] concatenate(%a, %z), dimensions={1}\n"
	" ROOT %y = babybear[4,512] fft(%p), fft_type=IFFT, fft_length=512\n}\n",
	/* zeros in both halves: a - 0 is a, 0 - b is computed; then a negation */
	"ENTRY %m {\n %a = koalabear[256] parameter(0)\n %b = koalabear[256] parameter(1)\n"
	" %z0 = koalabear[] constant(0)\n %z = koalabear[256] broadcast(%z0), dimensions={}\n"
	" %p = koalabear[512] concatenate(%a, %z), dimensions={0}\n"
	" %q = koalabear[512] concatenate(%z, %b), dimensions={0}\n"
	" %d = koalabear[512] subtract(%p, %q)\n %n = koalabear[512] negate(%d)\n"
	" ROOT %y = koalabear[512] fft(%n), fft_type=IFFT, fft_length=512\n}\n",
	/* an extension column's LDE */
	"ENTRY %m {\n %e = babybearx4[64] parameter(0)\n %sh = babybearx4[128] parameter(1)\n"
	" %c = babybearx4[64] fft(%e), fft_type=IFFT, fft_length=64\n %z0 = babybearx4[] constant((0, 0, 0, 0))\n"
	" %z = babybearx4[64] broadcast(%z0), dimensions={}\n"
	" %p = babybearx4[128] concatenate(%c, %z), dimensions={0}\n %s = babybearx4[128] multiply(%p, %sh)\n"
	" ROOT %y = babybearx4[128] fft(%s), fft_type=FFT, fft_length=128\n}\n",
	/* read at bit-reversed indices, rows concatenated, all zero: the one helper */
	"ENTRY %m {\n %a = babybear[2,64] parameter(0)\n %z0 = babybear[] constant(0)\n"
	" %z = babybear[2,64] broadcast(%z0), dimensions={}\n"
	" %p = babybear[2,128] concatenate(%a, %z), dimensions={1}\n"
	" ROOT %y = babybear[2,128] fft(%p), fft_type=FFT, fft_length=128, fft_do_bit_reverse=false\n}\n",
	"ENTRY %m {\n %a = babybear[2,64] parameter(0)\n %b = babybear[2,64] parameter(1)\n"
	" %p = babybear[4,64] concatenate(%a, %b), dimensions={0}\n"
	" ROOT %y = babybear[4,64] fft(%p), fft_type=FFT, fft_length=64\n}\n",
	"ENTRY %m {\n %z0 = babybear[] constant(0)\n %z = babybear[2,64] broadcast(%z0), dimensions={}\n"
	" %p = babybear[2,128] concatenate(%z, %z), dimensions={1}\n"
	" ROOT %y = babybear[2,128] fft(%p), fft_type=FFT, fft_length=128\n}\n",
};
/* Each against the interpreter, fused and not. */
static void run_fused(const char *device)
{
	/* kernels (fusions) fused: the LDE is two transforms and nothing else */
	static const int fused_kernels[] = {1, 1, 1, 1, 1, 2, 1, 2, 2, 1, 1, 2, 1, 1, 1};
	cr_assert_eq(sizeof fused_kernels / sizeof fused_kernels[0], sizeof programs / sizeof programs[0]);
	ffu_cl cl = {0};
	ffu_test_open_device(&cl, device);
	for (size_t i = 0; i < sizeof programs / sizeof programs[0]; i++) {
		int kf = device_vs_interp(&cl, programs[i], true, 100 + i);
		cr_expect_eq(kf, fused_kernels[i], "program %zu: %d fusions fused, expected %d\n%s", i, kf, fused_kernels[i],
			     programs[i]);
		int ku = device_vs_interp(&cl, programs[i], false, 100 + i);
		cr_expect(ku >= kf, "program %zu: unfused %d < fused %d", i, ku, kf);
	}
	ffu__cl_close(&cl);
}

Test(fft, pocl_fused, .timeout = 600)
{
	run_fused(ffu_test_devices[0]);
}

Test(fft, rusticl_fused, .timeout = 600)
{
	run_fused(ffu_test_devices[1]);
}

/*
 * Tile passes (codegen/fft_tile.c), on this device against the interpreter: the code a GPU
 * gets (4 work-items per column, the barrier between the stages) and the form a CPU would
 * get (one work-item per column; no CPU target takes tiles by default, so it is forced
 * here). The lengths give one tile pass, two, stages of unequal radix and one-stage passes
 * beside tile passes; the variants put the IFFT's scaling and bit-reversed stores into a
 * tile's second stage and bit-reversed loads into its first; the programs put fused
 * producers (the LDE's columns, zero slots) in front and consumers behind. The source for
 * each target must hold tile passes, or this would test the one-stage passes again.
 */
static int count(const char *s, const char *what);

static void run_tiles(const char *device)
{
	static const int kbb[] = {5, 8, 9, 12, 14}, kcpu[] = {6, 9, 12}, k64[] = {4, 7, 10}, k256[] = {3, 6},
			 kext[] = {5, 7};
	static const int tiled[] = {FUSED_LDE, FUSED_STRADDLE, FUSED_ROWS};
	for (int gpu = 1; gpu >= 0; gpu--) {
		ffu_cl cl = {0};
		ffu_test_open_device(&cl, device);
		if (gpu) {
			ffu__target_set_class(&cl.target, FFU_DEVICE_CLASS_GPU);
			cl.target.profile.lanes = 1;
		} else {
			static const int cpu_tile[3] = {10, 8, 6};
			memcpy(cl.target.fft_log_tile, cpu_tile, sizeof cpu_tile);
		}
		char *text = gpu ? sizes_program("babybear", kbb, 5, true) : sizes_program("babybear", kcpu, 3, true);
		char *src = ffu_test_generate_for(text, &cl.target, NULL, NULL);
		cr_assert_geq(count(src, "through local memory"), 5, "%s code: no tile passes", gpu ? "GPU" : "CPU");
		free(src);
		device_vs_interp(&cl, text, true, 21);
		free(text);
		/* the CPU form's stages are unrolled, minutes of cold builds for the rest: once is enough */
		if (gpu) {
			run_sizes(&cl, "goldilocks", k64, 3, true);
			run_sizes(&cl, "bn254_sf", k256, 2, false);
			run_sizes(&cl, "babybearx4", kext, 2, false);
		}
		for (size_t i = 0; i < (gpu ? sizeof tiled / sizeof tiled[0] : 1); i++)
			device_vs_interp(&cl, programs[tiled[i]], true, 200 + i);
		ffu__cl_close(&cl);
	}
}

Test(fft, pocl_tiles, .timeout = 900)
{
	run_tiles(ffu_test_devices[0]);
}

Test(fft, rusticl_tiles, .timeout = 900)
{
	run_tiles(ffu_test_devices[1]);
}

/*
 * Vector passes (codegen/fft_vec.c): Goldilocks 8 columns a work-item, as PoCL on a CPU
 * with 8 ulong lanes gets them; forced here, so that every host runs them, and Rusticl
 * too. Lengths 2^3 (T < 8: scalar passes only), 2^5 (radix 4, then radix 8 at p = 4: a
 * scalar pass after a vector one), 2^6, 2^7, 2^11, 2^14 (vector passes at p = 1, 8, 16,
 * 64, ...), in the four variants (the IFFT's scaling, bit-reversed loads and stores
 * through the helpers, a twiddles operand); the _mont twin; a batch of rows; fused
 * producers (an LDE's columns, zero slots) and consumers, and an extension beside them
 * (scalar: only the prime has a vector instance); every store between passes streamed
 * past the caches (store_at_nt, as PoCL's target takes for batches over 32 MiB). Then (the _31 tests) the 31-bit
 * fields' instance (16 columns, cl/mont31.cl's even/odd product): lengths 2^4 (T < 16:
 * scalar only), 2^9 and 2^15, BabyBear with every pass as forced (the four variants; and
 * KoalaBear) and the _mont twin with the interior ones only, as PoCL with AVX-512 gets
 * them (device/target.c: the last pass too where the fusion's output is the transform
 * itself, stored as whole vectors), and the LDE of mont31_programs both ways; the stores
 * of the first shape streamed past the caches, the second's not. Mesa builds these
 * slowly: 364 s on Rusticl with 2^6 and 2^15 too and the variants both ways.
 */
static const char *const vector_programs[] = {
	"ENTRY %m {\n %x = goldilocks_mont[3,2,256] parameter(0)\n"
	" ROOT %y = goldilocks_mont[3,2,256] fft(%x), fft_type=IFFT, fft_length=256, fft_do_bit_reverse=false\n}\n",
	"ENTRY %m {\n %e = goldilocks[2,512] parameter(0)\n %sh = goldilocks[2,1024] parameter(1)\n"
	" %d = goldilocks[2,1024] parameter(2)\n"
	" %c = goldilocks[2,512] fft(%e), fft_type=IFFT, fft_length=512\n %z0 = goldilocks[] constant(0)\n"
	" %z = goldilocks[2,512] broadcast(%z0), dimensions={}\n"
	" %p = goldilocks[2,1024] concatenate(%c, %z), dimensions={1}\n %s = goldilocks[2,1024] multiply(%p, %sh)\n"
	" %y = goldilocks[2,1024] fft(%s), fft_type=FFT, fft_length=1024\n"
	" ROOT %u = goldilocks[2,1024] add(%y, %d)\n}\n",
	"ENTRY %m {\n %a = goldilocks[4096] parameter(0)\n %b = goldilocks[4096] parameter(1)\n"
	" %c = goldilocks[4096] parameter(2)\n %ab = goldilocks[4096] multiply(%a, %b)\n"
	" %q = goldilocks[4096] subtract(%ab, %c)\n"
	" %y = goldilocks[4096] fft(%q), fft_type=IFFT, fft_length=4096\n %z = goldilocks[4096] multiply(%y, %y)\n"
	" ROOT %t = (goldilocks[4096], goldilocks[4096]) tuple(%z, %y)\n}\n",
	"ENTRY %m {\n %x = goldilocksx2[256] parameter(0)\n %g = goldilocks[256] parameter(1)\n"
	" %y = goldilocksx2[256] fft(%x), fft_type=FFT, fft_length=256\n"
	" %h = goldilocks[256] fft(%g), fft_type=FFT, fft_length=256\n"
	" ROOT %t = (goldilocksx2[256], goldilocks[256]) tuple(%y, %h)\n}\n",
};

static const char *const mont31_programs[] = {
	"ENTRY %m {\n %e = babybear[2,2048] parameter(0)\n %sh = babybear[2,4096] parameter(1)\n"
	" %c = babybear[2,2048] fft(%e), fft_type=IFFT, fft_length=2048\n %z0 = babybear[] constant(0)\n"
	" %z = babybear[2,2048] broadcast(%z0), dimensions={}\n"
	" %p = babybear[2,4096] concatenate(%c, %z), dimensions={1}\n %s = babybear[2,4096] multiply(%p, %sh)\n"
	" %y = babybear[2,4096] fft(%s), fft_type=FFT, fft_length=4096\n"
	" ROOT %u = babybear[2,4096] multiply(%y, %y)\n}\n",
};

/* The 31-bit fields' vector passes, every pass (ends) or the interior ones only. */
static void run_vectors_mont31(ffu_cl *cl, bool ends)
{
	static const int k32[] = {4, 9, 15};
	for (int c = 0; c < 3; c++) {
		cl->target.fft_vector[c] = true;
		cl->target.fft_vector_ends[c] = ends;
	}
	cl->target.fft_stream_bytes = ends ? 1 : 0; /* streaming stores with the ends: both kinds of store */
	char *text = sizes_program(ends ? "babybear" : "babybear_mont", k32, 3, ends);
	char *src = ffu_test_generate_for(text, &cl->target, NULL, NULL);
	cr_assert(strstr(src, "16 columns a work-item"), "no vector passes (ends: %d)", ends);
	cr_assert(ends == (strstr(src, "_store_at_nt(dst") != NULL), "streaming stores (ends: %d)", ends);
	/* a forward transform whose output is the fusion's: its vector last pass stores whole vectors */
	cr_assert(ends || strstr(src, "babybear_v16_store_at(out0"), "no vector last pass");
	const int firsts = count(src, "sub-transforms of 1 so far, 16 columns a work-item");
	cr_assert(ends ? firsts > 0 : firsts == 0, "%d vector first passes", firsts);
	free(src);
	device_vs_interp(cl, text, true, 41 + ends);
	free(text);
	if (ends)
		run_sizes(cl, "koalabear", k32 + 2, 1, false);
	for (size_t i = 0; i < sizeof mont31_programs / sizeof mont31_programs[0]; i++)
		device_vs_interp(cl, mont31_programs[i], true, 400 + i + 10 * ends);
}

static void run_vectors_31(const char *device, bool ends)
{
	ffu_cl cl = {0};
	ffu_test_open_device(&cl, device);
	run_vectors_mont31(&cl, ends);
	ffu__cl_close(&cl);
}

static void run_vectors(const char *device)
{
	static const int k64[] = {3, 5, 6, 7, 11, 14};
	ffu_cl cl = {0};
	ffu_test_open_device(&cl, device);
	for (int c = 0; c < 3; c++)
		cl.target.fft_vector[c] = cl.target.fft_vector_ends[c] = true;
	cl.target.fft_stream_bytes = 1; /* every vector pass's stores streamed (device/target.h) */
	char *text = sizes_program("goldilocks", k64, 6, true);
	char *src = ffu_test_generate_for(text, &cl.target, NULL, NULL);
	cr_assert(strstr(src, "goldilocks_v8_store_at_nt(dst"), "no streaming stores");
	/* per variant, every pass of 2^6 .. 2^14 (2 + 2 + 3 + 4) and 2^5's first */
	cr_assert_eq(count(src, "columns a work-item"), 4 * 12, "vector passes");
	cr_assert(strstr(src, "sub-transforms of 4 so far */"), "2^5: its second pass should be scalar");
	free(src);
	device_vs_interp(&cl, text, true, 31);
	free(text);
	run_sizes(&cl, "goldilocks_mont", k64 + 2, 2, true);
	for (size_t i = 0; i < sizeof vector_programs / sizeof vector_programs[0]; i++) {
		src = ffu_test_generate_for(vector_programs[i], &cl.target, NULL, NULL);
		cr_assert(strstr(src, "columns a work-item"), "program %zu: no vector passes", i);
		free(src);
		device_vs_interp(&cl, vector_programs[i], true, 300 + i);
	}
	ffu__cl_close(&cl);
}

Test(fft, pocl_vectors, .timeout = 600)
{
	run_vectors(ffu_test_devices[0]);
}

Test(fft, rusticl_vectors, .timeout = 600)
{
	run_vectors(ffu_test_devices[1]);
}

/* every pass in vectors and the interior passes only, each its own test: the two in one
   ran past 600 s on Rusticl, cold and beside the suite's other Rusticl builds (a clean
   clone on a new machine, 2026-11-29; alone, cold, 114-218 s). Every pass in vectors on
   Rusticl took 952 s of a cold default run (2026-12-04, beside the other suites): the deep
   run's; the default run has the vector passes on Rusticl in the interior-passes test and
   every pass in vectors on PoCL. */
Test(fft, pocl_vectors_31, .timeout = 600)
{
	run_vectors_31(ffu_test_devices[0], true);
}

Test(fft, pocl_vectors_31_inner, .timeout = 600)
{
	run_vectors_31(ffu_test_devices[0], false);
}

Test(fft, deep_rusticl_vectors_31, .timeout = 1200)
{
	run_vectors_31(ffu_test_devices[1], true);
}

Test(fft, rusticl_vectors_31_inner, .timeout = 1200)
{
	run_vectors_31(ffu_test_devices[1], false);
}

/*
 * Random concatenates along the transformed dimension: 2 to 4 pieces, each a parameter or
 * zeros, cut at multiples of n/8 or anywhere (so some slots span two pieces), maybe
 * times a shift and plus a parameter, then FFT or IFFT; fused, against the interpreter.
 */
static uint64_t rnd(uint64_t *s) /* splitmix64 */
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static char *columns_program(uint64_t *rng)
{
	static const char *const types[] = {"babybear", "goldilocks", "koalabear_mont", "babybearx4"};
	enum { CAP = 4096 };
	char *buf = malloc(CAP);
	cr_assert(buf);
	const char *ty = types[rnd(rng) % 4];
	const bool ext = strcmp(ty, "babybearx4") == 0;
	const int k = 4 + (int)(rnd(rng) % 6), rows = 1 + (int)(rnd(rng) % 3), pieces = 2 + (int)(rnd(rng) % 3);
	const long long n = 1LL << k;
	long long cut[5] = {0};
	for (int j = 1; j < pieces; j++) /* increasing cuts in (0, n) */
		cut[j] = rnd(rng) % 2 ? (long long)(rnd(rng) % 7 + 1) * n / 8
						: (long long)(rnd(rng) % (uint64_t)(n - 1)) + 1;
	cut[pieces] = n;
	for (int a = 1; a < pieces; a++) /* sort, then drop repeated cuts */
		for (int b = a + 1; b < pieces; b++)
			if (cut[b] < cut[a]) {
				long long t = cut[a];
				cut[a] = cut[b];
				cut[b] = t;
			}
	int w = snprintf(buf, CAP, "ENTRY %%m {\n %%z0 = %s[] constant(%s)\n", ty, ext ? "(0, 0, 0, 0)" : "0");
	int np = 0, m = 0;
	char ops[256] = "";
	for (int j = 0; j < pieces; j++) {
		long long len = cut[j + 1] - cut[j];
		if (len == 0)
			continue;
		bool zero = rnd(rng) % 2;
		if (zero)
			w += snprintf(buf + w, CAP - (size_t)w, " %%q%d = %s[%d,%lld] broadcast(%%z0), dimensions={}\n", m, ty, rows, len);
		else
			w += snprintf(buf + w, CAP - (size_t)w, " %%q%d = %s[%d,%lld] parameter(%d)\n", m, ty, rows, len, np++);
		snprintf(ops + strlen(ops), sizeof ops - strlen(ops), "%s%%q%d", m ? ", " : "", m);
		m++;
	}
	w += snprintf(buf + w, CAP - (size_t)w, " %%p = %s[%d,%lld] concatenate(%s), dimensions={1}\n", ty, rows, n, ops);
	const char *x = "%p";
	if (rnd(rng) % 2) {
		w += snprintf(buf + w, CAP - (size_t)w, " %%sh = %s[%d,%lld] parameter(%d)\n %%s = %s[%d,%lld] multiply(%%p, %%sh)\n",
			      ty, rows, n, np++, ty, rows, n);
		x = "%s";
	}
	if (rnd(rng) % 3 == 0) {
		w += snprintf(buf + w, CAP - (size_t)w, " %%v = %s[%d,%lld] parameter(%d)\n %%t = %s[%d,%lld] add(%s, %%v)\n",
			      ty, rows, n, np++, ty, rows, n, x);
		x = "%t";
	}
	w += snprintf(buf + w, CAP - (size_t)w, " ROOT %%y = %s[%d,%lld] fft(%s), fft_type=%s, fft_length=%lld\n}\n", ty, rows, n,
		      x, rnd(rng) % 2 ? "FFT" : "IFFT", n);
	cr_assert_lt(w, CAP);
	return buf;
}

static void run_columns(const char *device)
{
	ffu_cl cl = {0};
	ffu_test_open_device(&cl, device);
	uint64_t rng = 0xc01;
	for (size_t i = 0; i < ffu_test_count(8, 40); i++) {
		char *text = columns_program(&rng);
		int kf = device_vs_interp(&cl, text, true, 300 + (uint64_t)i);
		cr_expect_eq(kf, 1, "%d fusions, expected one\n%s", kf, text);
		free(text);
	}
	ffu__cl_close(&cl);
}

Test(fft, pocl_columns, .timeout = 600)
{
	run_columns(ffu_test_devices[0]);
}

Test(fft, rusticl_columns, .timeout = 600)
{
	run_columns(ffu_test_devices[1]);
}

/*
 * The first pass of fusion k in the program generated for a CPU (lanes 4) or a GPU
 * (lanes 1): its radix, and how many of its slots call a helper per class of columns
 * (ffu_k<k>_x<c>) or the one helper at the linear index (ffu_k<k>_x).
 */
static void first_pass(const char *text, int k, int lanes, int *radix, int *per_class, int *one, char **cl)
{
	char *src = ffu_test_generate(text, lanes, NULL), name[64], call[64];
	snprintf(name, sizeof name, "__kernel void ffu_k%d_p0(", k);
	char *p = strstr(src, name);
	cr_assert(p, "no first pass of fusion %d\n%s", k, src);
	char *c = p;
	while (c > src && strncmp(c, "/* pass 1 of ", 13) != 0)
		c--;
	int np = 0;
	cr_assert_eq(sscanf(c, "/* pass 1 of %d: radix %d", &np, radix), 2, "%.80s", c);
	char *end = strstr(p, "\n}\n");
	cr_assert(end);
	*per_class = *one = 0;
	snprintf(call, sizeof call, "= ffu_k%d_x", k);
	for (char *q = strstr(p, call); q && q < end; q = strstr(q + 1, call))
		*(q[strlen(call)] == '(' ? one : per_class) += 1;
	*cl = src;
}

static int count(const char *s, const char *what)
{
	int n = 0;
	for (const char *q = strstr(s, what); q; q = strstr(q + 1, what))
		n++;
	return n;
}

/*
 * The LDE's second transform reads each slot of its first pass from the concatenate's
 * operand it lies in (codegen/fft.c, "Columns"): the zero half is not read, nothing is
 * clamped; an operand boundary inside a slot clamps in that slot only; bit-reversed reads
 * and a concatenate of rows keep the one helper. Device results: run_fused.
 */
Test(fft, first_pass_columns)
{
	for (int lanes = 1; lanes <= 4; lanes += 3) {
		int radix, cls, one;
		char *src;
		first_pass(programs[FUSED_LDE], 1, lanes, &radix, &cls, &one, &src);
		cr_expect(radix >= 2 && cls == radix / 2 && one == 0, "lanes %d: radix %d, %d + %d slots read", lanes, radix,
			  cls, one);
		cr_expect_eq(count(src, "min(max("), 0, "%s", src);
		cr_expect_eq(count(src, "static inline babybear_t ffu_k1_x0("), 1, "%s", src);
		free(src);
		/* columns 0 .. 271 of 512 from %a: slots below 272 / T, one across it */
		first_pass(programs[FUSED_STRADDLE], 0, lanes, &radix, &cls, &one, &src);
		int T = 512 / radix;
		cr_expect(cls == (272 + T - 1) / T && one == 0, "lanes %d: radix %d, %d + %d slots read", lanes, radix, cls,
			  one);
		cr_expect_eq(count(src, "min(max("), 2, "%s", src); /* both operands, in the one slot */
		free(src);
		first_pass(programs[FUSED_BITREV], 0, lanes, &radix, &cls, &one, &src);
		cr_expect(cls == 0 && one == radix, "lanes %d: %d + %d of %d", lanes, cls, one, radix);
		free(src);
		first_pass(programs[FUSED_ROWS], 0, lanes, &radix, &cls, &one, &src);
		cr_expect(cls == 0 && one == radix, "lanes %d: %d + %d of %d", lanes, cls, one, radix);
		free(src);
	}
}

/*
 * Pass shapes on a CPU (device/target.c says why): the first pass at radix 8 at most, the
 * other 17 bits in passes of radix 16 at most, and every later pass with addresses uniform
 * + local id, the one with p = 8 in work-groups of 8. A GPU keeps its tile passes, none in
 * groups of 8. Device results: run_lengths (2^20 and the short lengths).
 */
Test(fft, cpu_pass_shapes)
{
	static const char *const text[] = {
		"HloModule m\nENTRY %e (x: babybear[16,1048576]) -> babybear[16,1048576] {\n"
		"  %x = babybear[16,1048576] parameter(0)\n"
		"  ROOT %y = babybear[16,1048576] fft(%x), fft_type=IFFT, fft_length=1048576\n}\n",
		"HloModule m\nENTRY %e (x: babybear[1048576]) -> babybear[1048576] {\n"
		"  %x = babybear[1048576] parameter(0)\n"
		"  ROOT %y = babybear[1048576] fft(%x), fft_type=FFT, fft_length=1048576\n}\n",
	};
	for (int j = 0; j < 2; j++) {
		int radix, cls, one;
		char *src;
		first_pass(text[j], 0, 4, &radix, &cls, &one, &src);
		cr_expect_eq(radix, 8, "program %d: %s", j, src);
		cr_expect_eq(count(src, "/* pass 2 of 6: radix 8, sub-transforms of 8 so far */"), 1, "program %d", j);
		cr_expect_eq(count(src, "get_group_id(0) * 8UL"), 1, "program %d: the p = 8 pass", j);
		cr_expect_eq(count(src, "const ulong kk = i &"), 0, "program %d: masked lanes\n%s", j, src);
		free(src);
		/* a GPU: three passes of two stages through local memory, none in groups of 8 */
		first_pass(text[j], 0, 1, &radix, &cls, &one, &src);
		cr_expect_eq(count(src, "through local memory, sub-transforms of"), 3, "program %d on a GPU", j);
		cr_expect_eq(count(src, "get_group_id(0) * 8UL"), 0, "program %d on a GPU", j);
		free(src);
	}
}

/* ffu_build_fft makes what the parser makes; its errors name the call. */
Test(fft, builder)
{
	ffu_error e = {0};
	ffu_builder *b = NULL;
	cr_assert_eq(ffu_builder_create(&b, "t", &e), FFU_STATUS_OK, "%s", e.message);
	const int64_t dims[2] = {3, 8}, wd[1] = {8};
	ffu_node x = ffu_build_parameter(b, "x", "goldilocks", 2, dims);
	ffu_node w = ffu_build_parameter(b, "w", "goldilocks", 1, wd);
	ffu_node y = ffu_build_fft(b, x, &w, FFU_FFT_INVERSE, false);
	ffu_node z = ffu_build_fft(b, y, NULL, FFU_FFT_FORWARD, true);
	ffu_program *p = NULL;
	cr_assert_eq(ffu_builder_finish(b, z, &p, &e), FFU_STATUS_OK, "%s", e.message);
	char *text = NULL;
	cr_assert_eq(ffu_program_print(&text, p, &e), FFU_STATUS_OK, "%s", e.message);
	cr_expect(strstr(text, "goldilocks[3,8] fft(%x, %w), fft_type=IFFT, fft_length=8, fft_do_bit_reverse=false"),
		  "%s", text);
	cr_expect(strstr(text, "fft_type=FFT, fft_length=8\n"), "%s", text);
	/* the printed text parses back to the same text */
	ffu_program *q = NULL;
	char *again = NULL;
	cr_assert_eq(ffu_program_parse(&q, text, strlen(text), "printed", &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu_program_print(&again, q, &e), FFU_STATUS_OK, "%s", e.message);
	cr_expect_str_eq(again, text);
	free(text);
	free(again);
	ffu_program_destroy(&p);
	ffu_program_destroy(&q);
	ffu_builder_destroy(&b);
	/* a length that is not a power of two: the verifier's message under the call's name */
	cr_assert_eq(ffu_builder_create(&b, "t", &e), FFU_STATUS_OK, "%s", e.message);
	const int64_t six[1] = {6};
	ffu_node bad = ffu_build_fft(b, ffu_build_parameter(b, "x", "babybear", 1, six), NULL, FFU_FFT_FORWARD, true);
	cr_expect_eq(bad, FFU_NODE_INVALID);
	cr_expect_eq(ffu_builder_status(b, &e), FFU_STATUS_EVERIFY);
	cr_expect(strstr(e.message, "ffu_build_fft") && strstr(e.message, "not a power of two"), "%s", e.message);
	ffu_builder_destroy(&b);
	ffu_error_clear(&e);
}
