/*
 * interp/fft.c: the interpreter's `fft`, written as ZKX's CPU lowering runs it (prime-ir
 * poly.ntt; docs/hlo.md "fft"), one row at a time, in the element type's own
 * representation (a _mont type computes on its stored values, an extension multiplies by
 * the prime field's roots embedded as constants):
 *   roots[i] = w^i (FFT) or w^-i (IFFT), i < n/2, or the twiddles operand's entries;
 *   FFT:  bit-reverse the input (fft_do_bit_reverse), then Cooley-Tukey stages m = 2 .. n:
 *         t = a[b+j+m/2] roots[j n/m]; a[b+j], a[b+j+m/2] = a[b+j] + t, a[b+j] - t;
 *   IFFT: Gentleman-Sande stages m = n .. 2: a[b+j], a[b+j+m/2] = u + v, (u - v) roots[j n/m];
 *         multiply by 1/n; bit-reverse the output (fft_do_bit_reverse).
 * Plain and O(n log n) per row; tests/test_fft.c checks it against the O(n^2) DFT.
 */
#include "interp/interp_impl.h"

#include <stdlib.h>
#include <string.h>

static void permute(unsigned char *a, unsigned char *tmp, int64_t n, int k, size_t eb)
{
	memcpy(tmp, a, (size_t)n * eb);
	for (int64_t i = 0; i < n; i++)
		memcpy(a + (size_t)i * eb, tmp + ffu__bitrev((uint64_t)i, k) * eb, eb);
}

/* The transform's roots in x's type (f): roots[i], i < n/2. */
static void fill_roots(const ffu_inst *in, const ffu_field *f, const ffu_value *tw, unsigned char *roots, int64_t n,
		       int k)
{
	const ffu_field *tf = tw ? ffu__shape_field(&tw->shape) : NULL;
	if (!tw) {
		ffu__fp_root_powers(f, k, in->fft.inverse, roots, n / 2);
		return;
	}
	for (int64_t i = 0; i < n / 2; i++)
		ffu__fp_convert(f, roots + (size_t)i * f->storage_bytes, tf, tw->data + (size_t)i * tf->storage_bytes);
}

ffu_status ffu__interp_fft(const ffu_inst *in, const ffu_value *x, const ffu_value *tw, ffu_value *o, ffu_error *e)
{
	const ffu_field *f = ffu__shape_field(&in->shape);
	const int64_t n = in->shape.dims[in->shape.rank - 1], rows = ffu__fft_rows(&in->shape);
	const int k = ffu__log2_pow2(n);
	const size_t eb = f->storage_bytes;
	if (o->bytes)
		memcpy(o->data, x->data, o->bytes);
	if (n <= 1 || rows == 0)
		return FFU_STATUS_OK;
	unsigned char *roots = malloc((size_t)(n / 2) * eb), *tmp = malloc((size_t)n * eb);
	if (!roots || !tmp) {
		free(roots);
		free(tmp);
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory in the interpreter (fft of %lld elements)", (long long)n);
	}
	fill_roots(in, f, tw, roots, n, k);
	unsigned char ninv[FFU_FIELD_MAX_BYTES], t[FFU_FIELD_MAX_BYTES], u[FFU_FIELD_MAX_BYTES];
	ffu__fp_set_u64(f, ninv, (uint64_t)n);
	ffu__fp_inv(f, ninv, ninv);
	for (int64_t row = 0; row < rows; row++) {
		unsigned char *a = o->data + (size_t)(row * n) * eb;
		if (!in->fft.inverse && in->fft.bit_reverse)
			permute(a, tmp, n, k, eb);
		for (int64_t step = 0; step < k; step++) {
			int64_t m = in->fft.inverse ? n >> step : INT64_C(2) << step, h = m / 2, r = n / m;
			for (int64_t b = 0; b < n; b += m)
				for (int64_t j = 0; j < h; j++) {
					unsigned char *lo = a + (size_t)(b + j) * eb, *hi = lo + (size_t)h * eb;
					const unsigned char *w = roots + (size_t)(j * r) * eb;
					if (!in->fft.inverse) {
						ffu__fp_mul(f, t, hi, w);
						ffu__fp_sub(f, hi, lo, t);
						ffu__fp_add(f, lo, lo, t);
					} else {
						memcpy(u, lo, eb);
						ffu__fp_add(f, lo, u, hi);
						ffu__fp_sub(f, t, u, hi);
						ffu__fp_mul(f, hi, t, w);
					}
				}
		}
		if (in->fft.inverse) {
			for (int64_t i = 0; i < n; i++)
				ffu__fp_mul(f, a + (size_t)i * eb, a + (size_t)i * eb, ninv);
			if (in->fft.bit_reverse)
				permute(a, tmp, n, k, eb);
		}
	}
	free(roots);
	free(tmp);
	return FFU_STATUS_OK;
}
