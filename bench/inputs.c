/*
 * bench/inputs.c: a workload's random inputs at 2^k (see bench.h), and --save-values, which
 * writes them and the outputs out (for bench/peers/, which run other libraries on them). Field elements come
 * from ffu__value_random, seeded by k. Points do not: ffu__value_random draws each as k_i G
 * by double-and-add in the reference arithmetic, about 1 ms a point here (2^16 points in
 * 60 s of CPU, 2^20 in some 16 minutes), which would make a bench run at 2^20 wait far
 * longer for its inputs than for its results. So a point parameter of n elements holds
 * P_i = (a + i d) G for random a and d: P_0 = a G and D = d G by double-and-add, then one
 * jacobian addition a point, then one batched inversion (Montgomery's trick) for the
 * affine coordinates: about 20 products a point, all in the reference arithmetic
 * (fields/point.c), so the points are on the curve by the same code that checks value
 * files. They are distinct and none is infinity unless a + i d = 0 mod r (then that one
 * is infinity, which every mode must handle anyway); for an MSM their coordinates are as
 * good as independent draws: no special case is any likelier.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "fields/field.h"
#include "fields/point.h"

/* n affine points (a + i d) G, i < n, into out (canonical or _mont coordinates as af) */
static ffu_status affine_progression(const ffu_field *af, unsigned char *out, int64_t n, uint64_t *seed,
				     ffu_error *e)
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
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory (%lld random points)", (long long)n);
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
	return FFU_STATUS_OK;
}

ffu_status ffu__bench_random_input(ffu_value *v, uint64_t *seed, ffu_error *e)
{
	const ffu_field *f = ffu__field_get((ffu_field_id)v->shape.type);
	if (!f || f->kind != FFU_ELEM_POINT || v->shape.csr) {
		ffu__value_random(v, seed);
		return FFU_STATUS_OK;
	}
	int64_t n = ffu__shape_count(&v->shape);
	if (n == 0)
		return FFU_STATUS_OK;
	const ffu_field *af = ffu__point_type_of(f->curve, FFU_POINT_AFFINE, ffu__field_is_mont(f->coef));
	if (af == f)
		return affine_progression(af, v->data, n, seed, e);
	/* another kind: the affine points converted one by one (ZKX.md 4.5) */
	unsigned char *tmp = malloc(af->storage_bytes * (size_t)n);
	if (!tmp)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory (%lld random points)", (long long)n);
	ffu_status st = affine_progression(af, tmp, n, seed, e);
	for (int64_t i = 0; i < n && st == FFU_STATUS_OK; i++)
		ffu__fp_convert(f, v->data + f->storage_bytes * (size_t)i, af, tmp + af->storage_bytes * (size_t)i);
	free(tmp);
	return st;
}

ffu_status ffu__bench_save(const char *dir, const char *workload, int k, const ffu_value *inputs, int n_inputs,
			   const ffu_value *outs, int n_outs, ffu_error *e)
{
	ffu_status st = FFU_STATUS_OK;
	char path[4096];
	for (int i = 0; i < n_inputs + n_outs && st == FFU_STATUS_OK; i++) {
		bool in = i < n_inputs;
		snprintf(path, sizeof path, "%s/%s.k%d.%s%d.bin", dir, workload, k, in ? "in" : "out",
			 in ? i : i - n_inputs);
		st = ffu__values_write(path, in ? &inputs[i] : &outs[i - n_inputs], 1, e);
	}
	return st;
}
