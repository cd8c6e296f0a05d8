/*
 * fields/point_random.c: random arrays of points, for `fieldfuse run --random`, bench, the
 * soak and the tests (through ffu__value_random).
 *
 * Drawing each point as k_i G by double-and-add in the reference arithmetic costs about
 * 1 ms a point here (2^18 points took 4 minutes of `run --random`). So an array of n points
 * holds P_i = (a + i d) G for random a and d: P_0 = a G and D = d G by double-and-add, then
 * one jacobian addition a point, then one batched inversion (Montgomery's trick) for the
 * affine coordinates: about 20 products a point, all in this floor's arithmetic, so the
 * points are on the curve by the same code that checks value files. They are distinct and
 * none is infinity unless a + i d = 0 mod r (then that one is infinity, which every
 * consumer must handle anyway); for an msm their coordinates are as good as independent
 * draws: no special case is any likelier. Other kinds than affine are the affine points
 * converted (ZKX.md 4.5).
 */
#include <stdlib.h>
#include <string.h>

#include "field.h"
#include "point.h"

/* n affine points (a + i d) G, i < n, into out (canonical or _mont coordinates as af);
   false when out of memory */
static bool affine_progression(const ffu_field *af, unsigned char *out, int64_t n, uint64_t *seed)
{
	const ffu_curve *cv = af->curve;
	const ffu_field *F = af->coef, *jt = ffu__point_type_of(cv, FFU_POINT_JACOBIAN, ffu__field_is_mont(F));
	size_t cb = F->storage_bytes, jb = jt->storage_bytes, ab = af->storage_bytes;
	unsigned char a[FFU_FIELD_MAX_BYTES], d[FFU_FIELD_MAX_BYTES], step[FFU_FIELD_MAX_BYTES],
		cur[FFU_FIELD_MAX_BYTES];
	unsigned char *jac = malloc(jb * (size_t)n), *pre = malloc(cb * (size_t)n);
	if (!jac || !pre) {
		free(jac);
		free(pre);
		return false;
	}
	ffu__fp_random(cv->scalar, a, seed);
	ffu__fp_random(cv->scalar, d, seed);
	ffu__point_gen_mul(jt, cur, cv->scalar, a);
	ffu__point_gen_mul(af, step, cv->scalar, d);
	/* jacobian P_i, and pre[i] = the product of the non-zero Z_0 .. Z_i */
	unsigned char acc[FFU_FIELD_MAX_BYTES];
	ffu__fp_set_u64(F, acc, 1);
	for (int64_t i = 0; i < n; i++) {
		unsigned char *p = jac + jb * (size_t)i;
		memcpy(p, cur, jb);
		const unsigned char *z = p + 2 * cb;
		if (!ffu__fp_is_zero(F, z))
			ffu__fp_mul(F, acc, acc, z);
		memcpy(pre + cb * (size_t)i, acc, cb);
		ffu__point_add(jt, cur, jt, cur, af, step);
	}
	/* inv = 1 / pre[n-1]; walking down, 1 / Z_i = inv pre[i-1], then inv *= Z_i */
	unsigned char inv[FFU_FIELD_MAX_BYTES], zi[FFU_FIELD_MAX_BYTES], zi2[FFU_FIELD_MAX_BYTES],
		zi3[FFU_FIELD_MAX_BYTES];
	ffu__fp_inv(F, inv, acc);
	for (int64_t i = n - 1; i >= 0; i--) {
		const unsigned char *p = jac + jb * (size_t)i, *z = p + 2 * cb;
		unsigned char *o = out + ab * (size_t)i;
		if (ffu__fp_is_zero(F, z)) { /* infinity: the affine (0, 0) */
			memset(o, 0, ab);
			continue;
		}
		if (i > 0)
			ffu__fp_mul(F, zi, inv, pre + cb * (size_t)(i - 1));
		else
			memcpy(zi, inv, cb);
		ffu__fp_mul(F, inv, inv, z);
		ffu__fp_sqr(F, zi2, zi, NULL);
		ffu__fp_mul(F, zi3, zi2, zi);
		ffu__fp_mul(F, o, p, zi2);          /* x = X / Z^2 */
		ffu__fp_mul(F, o + cb, p + cb, zi3); /* y = Y / Z^3 */
	}
	free(jac);
	free(pre);
	return true;
}

void ffu__point_random_array(const ffu_field *t, unsigned char *out, int64_t n, uint64_t *seed)
{
	if (n <= 0)
		return;
	const ffu_field *af = ffu__point_type_of(t->curve, FFU_POINT_AFFINE, ffu__field_is_mont(t->coef));
	unsigned char *tmp = af == t ? out : malloc(af->storage_bytes * (size_t)n);
	if (tmp && affine_progression(af, tmp, n, seed)) {
		for (int64_t i = 0; af != t && i < n; i++)
			ffu__fp_convert(t, out + t->storage_bytes * (size_t)i, af, tmp + af->storage_bytes * (size_t)i);
	} else { /* out of memory: independent draws, slowly */
		for (int64_t i = 0; i < n; i++)
			ffu__fp_random(t, out + t->storage_bytes * (size_t)i, seed);
	}
	if (tmp != out)
		free(tmp);
}
