/*
 * fields/roots.c: roots of unity of the two-adic prime fields, for the NTT (the `fft` op):
 * the interpreter's reference, the device's twiddle tables and the tests all take the root
 * from here, so host and device cannot disagree on which n-th root a transform uses.
 *
 * The root is ZKX's (zk_dtypes GetRootOfUnity, docs/hlo.md "fft"): w_n = g^((p - 1) / n)
 * with g the field's generator of fields.def, n = 2^log_n <= 2^two_adicity. Every
 * power-of-two order root is a power of the same two-adic root g^((p - 1) / 2^S), so
 * w_n^(n/2) = -1 and w_2n^2 = w_n: the radix decompositions rely on both.
 */
#include <string.h>

#include "field.h"

bool ffu__fp_root_of_unity(const ffu_field *f, int log_n, void *out)
{
	const ffu_field *p = f ? f->prime : NULL;
	if (!p || log_n < 0 || log_n > p->two_adicity || log_n >= 64 * p->nlimbs)
		return false;
	/* e = (p - 1) >> log_n over the modulus's 64-bit limbs (p is odd: p - 1 only clears bit 0) */
	uint64_t e[FFU_FIELD_MAX_LIMBS] = {0};
	memcpy(e, p->p, sizeof e[0] * (size_t)p->nlimbs);
	e[0] -= 1;
	for (int s = log_n; s > 0;) {
		int k = s > 63 ? 63 : s;
		for (int i = 0; i < p->nlimbs; i++)
			e[i] = (e[i] >> k) | (i + 1 < p->nlimbs ? e[i + 1] << (64 - k) : 0);
		s -= k;
	}
	/* g^e, square and multiply from the top bit, in the prime field's canonical values */
	unsigned char g[FFU_FIELD_MAX_BYTES], acc[FFU_FIELD_MAX_BYTES];
	ffu__fp_set_u64(p, g, p->generator);
	ffu__fp_set_u64(p, acc, 1);
	for (int i = p->nlimbs - 1; i >= 0; i--)
		for (int b = 63; b >= 0; b--) {
			ffu__fp_mul(p, acc, acc, acc);
			if ((e[i] >> b) & 1)
				ffu__fp_mul(p, acc, acc, g);
		}
	memcpy(out, acc, p->storage_bytes);
	return true;
}

bool ffu__fp_root_powers(const ffu_field *f, int log_n, bool inverse, void *out, int64_t count)
{
	const ffu_field *p = f ? f->prime : NULL;
	unsigned char w[FFU_FIELD_MAX_BYTES], wf[FFU_FIELD_MAX_BYTES];
	if (!ffu__fp_root_of_unity(p, log_n, w))
		return false;
	if (inverse)
		ffu__fp_inv(p, w, w);
	ffu__fp_convert(f, wf, p, w);
	const size_t eb = f->storage_bytes;
	unsigned char *r = out;
	for (int64_t i = 0; i < count; i++, r += eb)
		if (i == 0)
			ffu__fp_set_u64(f, r, 1);
		else
			ffu__fp_mul(f, r, r - eb, wf);
	return true;
}
