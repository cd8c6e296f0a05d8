/*
 * fields/point.c: the point types of fields/curves.def and their host arithmetic (see
 * point.h). Every computation runs on jacobian coordinates of the point type's coordinate
 * type (canonical or _mont) through the generic field entry points, so this file never
 * touches limbs: a new curve over any field of fields.def is one row of curves.def.
 *
 * Formulas (a = 0): doubling dbl-2009-l, addition add-2007-bl, from the Explicit-Formulas
 * Database (hyperelliptic.org/EFD, "g1p/auto-shortw-jacobian-0"), with the special cases
 * (an operand at infinity, P + P, P + (-P)) decided before the formula as the EFD's
 * formulas leave them out.
 */
#include "point.h"

#include "ops.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { CB = FFU_FIELD_MAX_COORD_BYTES, MAX_SCALAR_BITS = 256 };

enum {
	N_CURVES = 0
#define FFU_CURVE(ID, ...) +1
#include "curves.def"
#undef FFU_CURVE
};

static ffu_curve curves[N_CURVES] = {
#define FFU_CURVE(ID, NAME, ...) {.name = #NAME},
#include "curves.def"
#undef FFU_CURVE
};

static const struct {
	ffu_field_id coord, scalar;
	const char *b, *gx, *gy;
} curve_rows[N_CURVES] = {
#define FFU_CURVE(ID, NAME, COORD, SCALAR, B, GX, GY) {FFU_FIELD_##COORD, FFU_FIELD_##SCALAR, B, GX, GY},
#include "curves.def"
#undef FFU_CURVE
};

static const char *const type_names[FFU_ELEM_COUNT - FFU_FIELD_POINT_FIRST] = {
#define FFU_CURVE(ID, NAME, ...)                                                                        \
	#NAME "_affine", #NAME "_jacobian", #NAME "_xyzz", #NAME "_affine_mont", #NAME "_jacobian_mont", \
		#NAME "_xyzz_mont",
#include "curves.def"
#undef FFU_CURVE
};

static ffu_field types[FFU_ELEM_COUNT - FFU_FIELD_POINT_FIRST];
/* 2^i * G in jacobian canonical coordinates, i < scalar_bits: random points and k * G */
typedef struct jac {
	unsigned char x[CB], y[CB], z[CB];
} jac;
static jac *gen_pow2[N_CURVES];
static pthread_once_t points_once = PTHREAD_ONCE_INIT;

/* ---- coordinates: thin names over the generic field entry points ---- */

static void fadd(const ffu_field *F, void *r, const void *a, const void *b)
{
	ffu__fp_add(F, r, a, b);
}
static void fsub(const ffu_field *F, void *r, const void *a, const void *b)
{
	ffu__fp_sub(F, r, a, b);
}
static void fmul(const ffu_field *F, void *r, const void *a, const void *b)
{
	ffu__fp_mul(F, r, a, b);
}
static void fsqr(const ffu_field *F, void *r, const void *a)
{
	ffu__fp_sqr(F, r, a, NULL);
}
static bool fzero(const ffu_field *F, const void *a)
{
	return ffu__fp_is_zero(F, a);
}
static bool feq(const ffu_field *F, const void *a, const void *b)
{
	return memcmp(a, b, F->storage_bytes) == 0; /* canonical storage: equal values, equal bytes */
}
static void fone(const ffu_field *F, void *r)
{
	ffu__fp_set_u64(F, r, 1);
}
static const unsigned char *curve_b(const ffu_field *t)
{
	return t->curve->b[ffu__field_is_mont(t->coef)];
}

/* ---- jacobian arithmetic in coordinate type F ---- */

static void jac_infinity(const ffu_field *F, jac *r)
{
	fone(F, r->x);
	fone(F, r->y);
	memset(r->z, 0, sizeof r->z);
}

static bool jac_is_inf(const ffu_field *F, const jac *p)
{
	return fzero(F, p->z);
}

/* dbl-2009-l */
static void jac_double(const ffu_field *F, jac *r, const jac *p)
{
	if (jac_is_inf(F, p) || fzero(F, p->y)) { /* y = 0: a point of order 2 (none on these curves) */
		jac_infinity(F, r);
		return;
	}
	unsigned char a[CB], b[CB], c[CB], d[CB], e[CB], f[CB], t[CB], z3[CB];
	fsqr(F, a, p->x);
	fsqr(F, b, p->y);
	fsqr(F, c, b);
	fadd(F, t, p->x, b);
	fsqr(F, t, t);
	fsub(F, t, t, a);
	fsub(F, t, t, c);
	fadd(F, d, t, t);
	fadd(F, e, a, a);
	fadd(F, e, e, a);
	fsqr(F, f, e);
	fmul(F, z3, p->y, p->z);
	fadd(F, r->z, z3, z3);
	fsub(F, r->x, f, d);
	fsub(F, r->x, r->x, d);
	fsub(F, t, d, r->x);
	fmul(F, t, e, t);
	fadd(F, c, c, c); /* 8C */
	fadd(F, c, c, c);
	fadd(F, c, c, c);
	fsub(F, r->y, t, c);
}

/* add-2007-bl, r may alias p or q */
static void jac_add(const ffu_field *F, jac *r, const jac *p, const jac *q)
{
	if (jac_is_inf(F, p)) {
		*r = *q;
		return;
	}
	if (jac_is_inf(F, q)) {
		*r = *p;
		return;
	}
	unsigned char z1z1[CB], z2z2[CB], u1[CB], u2[CB], s1[CB], s2[CB], h[CB], i[CB], j[CB], rr[CB], v[CB], t[CB];
	fsqr(F, z1z1, p->z);
	fsqr(F, z2z2, q->z);
	fmul(F, u1, p->x, z2z2);
	fmul(F, u2, q->x, z1z1);
	fmul(F, s1, p->y, q->z);
	fmul(F, s1, s1, z2z2);
	fmul(F, s2, q->y, p->z);
	fmul(F, s2, s2, z1z1);
	if (feq(F, u1, u2)) {
		if (feq(F, s1, s2))
			jac_double(F, r, p); /* P + P */
		else
			jac_infinity(F, r); /* P + (-P) */
		return;
	}
	fsub(F, h, u2, u1);
	fadd(F, i, h, h);
	fsqr(F, i, i);
	fmul(F, j, h, i);
	fsub(F, rr, s2, s1);
	fadd(F, rr, rr, rr);
	fmul(F, v, u1, i);
	jac o;
	fadd(F, t, p->z, q->z);
	fsqr(F, t, t);
	fsub(F, t, t, z1z1);
	fsub(F, t, t, z2z2);
	fmul(F, o.z, t, h);
	fsqr(F, o.x, rr);
	fsub(F, o.x, o.x, j);
	fsub(F, o.x, o.x, v);
	fsub(F, o.x, o.x, v);
	fsub(F, t, v, o.x);
	fmul(F, o.y, rr, t);
	fmul(F, t, s1, j);
	fadd(F, t, t, t);
	fsub(F, o.y, o.y, t);
	*r = o;
}

static void jac_neg(const ffu_field *F, jac *r, const jac *p)
{
	*r = *p;
	ffu__fp_neg(F, r->y, p->y, NULL);
}

/* A stored point of type t as jacobian coordinates of t->coef. */
static void to_jac(const ffu_field *t, jac *r, const unsigned char *p)
{
	const ffu_field *F = t->coef;
	size_t c = F->storage_bytes;
	memset(r, 0, sizeof *r);
	switch (t->form) {
	case FFU_POINT_AFFINE:
		if (fzero(F, p) && fzero(F, p + c)) {
			jac_infinity(F, r);
			return;
		}
		memcpy(r->x, p, c);
		memcpy(r->y, p + c, c);
		fone(F, r->z);
		return;
	case FFU_POINT_JACOBIAN:
		memcpy(r->x, p, c);
		memcpy(r->y, p + c, c);
		memcpy(r->z, p + 2 * c, c);
		return;
	case FFU_POINT_XYZZ: {
		/* x = X/ZZ, y = Y/ZZZ; with Z' = ZZ * ZZZ: X' = X * ZZ * ZZZ^2, Y' = Y * ZZ^3 * ZZZ^2
		   (no inversion; valid as ZZ^3 = ZZZ^2 holds for every point on the curve) */
		const unsigned char *x = p, *y = p + c, *zz = p + 2 * c, *zzz = p + 3 * c;
		if (fzero(F, zz)) {
			jac_infinity(F, r);
			return;
		}
		unsigned char zzz2[CB], w[CB];
		fsqr(F, zzz2, zzz);
		fmul(F, r->z, zz, zzz);
		fmul(F, w, x, zz);
		fmul(F, r->x, w, zzz2);
		fsqr(F, w, zz);
		fmul(F, w, w, zz);
		fmul(F, w, w, zzz2);
		fmul(F, r->y, y, w);
		return;
	}
	}
}

/* Jacobian coordinates of t->coef stored as a point of type t; infinity as ZKX's Zero():
   affine (0, 0), jacobian (1, 1, 0), xyzz (1, 1, 0, 0). */
static void from_jac(const ffu_field *t, unsigned char *out, const jac *p)
{
	const ffu_field *F = t->coef;
	size_t c = F->storage_bytes;
	bool inf = jac_is_inf(F, p);
	switch (t->form) {
	case FFU_POINT_AFFINE: {
		if (inf) {
			memset(out, 0, 2 * c);
			return;
		}
		unsigned char zi[CB], zi2[CB], zi3[CB];
		ffu__fp_inv(F, zi, p->z);
		fsqr(F, zi2, zi);
		fmul(F, zi3, zi2, zi);
		fmul(F, out, p->x, zi2);
		fmul(F, out + c, p->y, zi3);
		return;
	}
	case FFU_POINT_JACOBIAN:
		if (inf) {
			fone(F, out);
			fone(F, out + c);
			memset(out + 2 * c, 0, c);
			return;
		}
		memcpy(out, p->x, c);
		memcpy(out + c, p->y, c);
		memcpy(out + 2 * c, p->z, c);
		return;
	case FFU_POINT_XYZZ:
		if (inf) {
			fone(F, out);
			fone(F, out + c);
			memset(out + 2 * c, 0, 2 * c);
			return;
		}
		memcpy(out, p->x, c);
		memcpy(out + c, p->y, c);
		fsqr(F, out + 2 * c, p->z);
		fmul(F, out + 3 * c, out + 2 * c, p->z);
		return;
	}
}

/* ---- descriptors ---- */

static void parse_coord(const ffu_field *F, unsigned char *out, const char *s)
{
	ffu_status st = ffu__fp_parse(F, out, s, strlen(s), NULL);
	(void)st; /* curves.def's constants, checked by tests/points_oracle.py (curves.def) */
}

static void init_points(void)
{
	for (int c = 0; c < N_CURVES; c++) {
		ffu_curve *cv = &curves[c];
		cv->coord = ffu__field_get(curve_rows[c].coord);
		cv->scalar = ffu__field_get(curve_rows[c].scalar);
		cv->scalar_bits = cv->scalar->bits;
		const ffu_field *F = cv->coord, *M = F->twin;
		size_t cb = F->storage_bytes;
		parse_coord(F, cv->b[0], curve_rows[c].b);
		parse_coord(F, cv->gen[0], curve_rows[c].gx);
		parse_coord(F, cv->gen[0] + cb, curve_rows[c].gy);
		ffu__fp_convert(M, cv->b[1], F, cv->b[0]);
		ffu__fp_convert(M, cv->gen[1], F, cv->gen[0]);
		ffu__fp_convert(M, cv->gen[1] + cb, F, cv->gen[0] + cb);
		for (int k = 0; k < 6; k++) {
			ffu_field *t = &types[6 * c + k];
			bool mont = k >= 3;
			t->id = (ffu_field_id)(FFU_FIELD_POINT_FIRST + 6 * c + k);
			t->kind = FFU_ELEM_POINT;
			t->name = type_names[6 * c + k];
			t->base = t;
			t->prime = F->prime;
			t->coef = mont ? M : F;
			t->curve = cv;
			t->form = (ffu_point_form)(k % 3);
			t->ncoords = 2 + k % 3;
			t->degree = 1;
			t->modulus_hex = F->modulus_hex;
			t->cl_template = "none";
			t->bits = F->bits;
			t->nlimbs = F->nlimbs;
			t->storage_bytes = (size_t)t->ncoords * cb;
			t->mont_radix_bits = mont ? F->prime->mont_radix_bits : 0;
			t->ops = &ffu__point_ops;
			t->twin = &types[6 * c + (k + 3) % 6];
		}
		/* 2^i * G, i < scalar_bits, for k * G by additions alone */
		jac *tab = calloc((size_t)cv->scalar_bits, sizeof *tab);
		if (tab) {
			to_jac(&types[6 * c], &tab[0], cv->gen[0]);
			for (int i = 1; i < cv->scalar_bits; i++)
				jac_double(F, &tab[i], &tab[i - 1]);
		}
		gen_pow2[c] = tab; /* NULL only out of memory: gen_mul then doubles as it goes */
	}
}

const ffu_field *ffu__point_type(ffu_field_id id)
{
	if ((int)id < FFU_FIELD_POINT_FIRST || id >= FFU_ELEM_COUNT)
		return NULL;
	pthread_once(&points_once, init_points);
	return &types[id - FFU_FIELD_POINT_FIRST];
}

const ffu_field *ffu__point_type_of(const ffu_curve *c, ffu_point_form form, bool mont)
{
	int ci = (int)(c - curves);
	return ffu__point_type((ffu_field_id)(FFU_FIELD_POINT_FIRST + 6 * ci + (mont ? 3 : 0) + (int)form));
}

const char *ffu__point_form_name(ffu_point_form form)
{
	return form == FFU_POINT_AFFINE ? "affine" : form == FFU_POINT_JACOBIAN ? "jacobian" : "xyzz";
}

/* ---- the typed operations of point.h ---- */

static bool same_group(const ffu_field *a, const ffu_field *b)
{
	return a->kind == FFU_ELEM_POINT && b->kind == FFU_ELEM_POINT && a->curve == b->curve;
}

static bool same_form(const ffu_field *a, const ffu_field *b)
{
	return same_group(a, b) && a->coef == b->coef;
}

bool ffu__point_convert_ok(const ffu_field *to, const ffu_field *from)
{
	return same_group(to, from);
}

bool ffu__point_add_ok(const ffu_field *to, const ffu_field *a, const ffu_field *b)
{
	if (!same_form(to, a) || !same_form(to, b))
		return false;
	if (a->form == FFU_POINT_AFFINE && b->form == FFU_POINT_AFFINE)
		return to->form != FFU_POINT_AFFINE;
	ffu_point_form k = a->form == FFU_POINT_AFFINE ? b->form : a->form;
	return to->form == k && (a->form == k || a->form == FFU_POINT_AFFINE) &&
	       (b->form == k || b->form == FFU_POINT_AFFINE);
}

bool ffu__point_mul_ok(const ffu_field *to, const ffu_field *p)
{
	if (!same_form(to, p))
		return false;
	return p->form == FFU_POINT_AFFINE ? to->form != FFU_POINT_AFFINE : to->form == p->form;
}

bool ffu__point_msm_ok(const ffu_field *to, const ffu_field *p)
{
	return same_form(to, p) && (p->form == FFU_POINT_AFFINE || to->form == p->form ||
				    (p->form == FFU_POINT_JACOBIAN && to->form == FFU_POINT_XYZZ));
}

void ffu__point_add(const ffu_field *to, void *out, const ffu_field *fa, const void *a, const ffu_field *fb,
		    const void *b)
{
	jac p, q;
	to_jac(fa, &p, a);
	to_jac(fb, &q, b);
	jac_add(to->coef, &p, &p, &q);
	from_jac(to, out, &p);
}

void ffu__point_sub(const ffu_field *to, void *out, const ffu_field *fa, const void *a, const ffu_field *fb,
		    const void *b)
{
	jac p, q;
	to_jac(fa, &p, a);
	to_jac(fb, &q, b);
	jac_neg(to->coef, &q, &q);
	jac_add(to->coef, &p, &p, &q);
	from_jac(to, out, &p);
}

/* The canonical little-endian bytes of scalar s of type fs. */
static void scalar_canon(const ffu_field *fs, unsigned char *out, const void *s)
{
	if (ffu__field_is_mont(fs))
		ffu__fp_convert(fs->twin, out, fs, s);
	else
		memcpy(out, s, fs->storage_bytes);
}

static int bit(const unsigned char *k, int i)
{
	return (k[i / 8] >> (i % 8)) & 1;
}

void ffu__point_mul(const ffu_field *to, void *out, const ffu_field *fs, const void *s, const ffu_field *fp,
		    const void *p)
{
	const ffu_field *F = to->coef;
	unsigned char k[CB] = {0};
	scalar_canon(fs, k, s);
	jac base, acc;
	to_jac(fp, &base, p);
	jac_infinity(F, &acc);
	/* right to left, as ZKX's ConvertScalarMul */
	for (int i = 0; i < fs->bits; i++) {
		if (bit(k, i))
			jac_add(F, &acc, &acc, &base);
		jac_double(F, &base, &base);
	}
	from_jac(to, out, &acc);
}

void ffu__point_gen_mul(const ffu_field *to, void *out, const ffu_field *fs, const void *kv)
{
	const ffu_field *canon = ffu__point_type_of(to->curve, to->form, false);
	const ffu_field *F = canon->coef;
	int c = (int)(to->curve - curves);
	unsigned char k[CB] = {0};
	scalar_canon(fs, k, kv);
	jac acc, g;
	jac_infinity(F, &acc);
	if (!gen_pow2[c])
		to_jac(ffu__point_type_of(to->curve, FFU_POINT_AFFINE, false), &g, to->curve->gen[0]);
	for (int i = 0; i < fs->bits; i++) {
		if (bit(k, i))
			jac_add(F, &acc, &acc, gen_pow2[c] ? &gen_pow2[c][i] : &g);
		if (!gen_pow2[c])
			jac_double(F, &g, &g);
	}
	unsigned char tmp[FFU_FIELD_MAX_BYTES];
	from_jac(canon, tmp, &acc);
	ffu__fp_convert(to, out, canon, tmp);
}

bool ffu__point_eq(const ffu_field *fa, const void *a, const ffu_field *fb, const void *b)
{
	/* compared as affine points: exact for every representative */
	const ffu_field *aff = ffu__point_type_of(fa->curve, FFU_POINT_AFFINE, ffu__field_is_mont(fa->coef));
	unsigned char x[FFU_FIELD_MAX_BYTES], y[FFU_FIELD_MAX_BYTES];
	jac p;
	to_jac(fa, &p, a);
	from_jac(aff, x, &p);
	to_jac(fb, &p, b);
	if (fb->coef != fa->coef) { /* the other form: its affine value, converted */
		const ffu_field *affb = ffu__point_type_of(fb->curve, FFU_POINT_AFFINE, ffu__field_is_mont(fb->coef));
		unsigned char t[FFU_FIELD_MAX_BYTES];
		from_jac(affb, t, &p);
		ffu__fp_convert(aff, y, affb, t);
	} else {
		from_jac(aff, y, &p);
	}
	return memcmp(x, y, aff->storage_bytes) == 0;
}

int ffu__point_msm_window(int64_t n)
{
	int c = 1;
	while (c < 16 && ((int64_t)1 << (c + 2)) < n)
		c++;
	return c;
}

void ffu__point_msm(const ffu_field *to, void *out, const ffu_field *fs, const unsigned char *scalars,
		    const ffu_field *fp, const unsigned char *bases, int64_t n, int window_bits)
{
	const ffu_field *F = to->coef;
	int c = window_bits > 0 ? window_bits : ffu__point_msm_window(n);
	int nb = (1 << c) - 1, bits = fs->bits;
	jac acc, *buckets = malloc((size_t)nb * sizeof *buckets), *base = malloc((size_t)(n ? n : 1) * sizeof *base);
	unsigned char(*k)[CB] = calloc((size_t)(n ? n : 1), CB);
	jac_infinity(F, &acc);
	if (!buckets || !base || !k) {
		/* the plain sum, one point at a time: slower, the same result */
		for (int64_t i = 0; i < n; i++) {
			unsigned char t[FFU_FIELD_MAX_BYTES];
			jac q;
			ffu__point_mul(ffu__point_type_of(to->curve, FFU_POINT_JACOBIAN, ffu__field_is_mont(F)), t, fs,
				       scalars + (size_t)i * fs->storage_bytes, fp, bases + (size_t)i * fp->storage_bytes);
			to_jac(ffu__point_type_of(to->curve, FFU_POINT_JACOBIAN, ffu__field_is_mont(F)), &q, t);
			jac_add(F, &acc, &acc, &q);
		}
		goto done;
	}
	for (int64_t i = 0; i < n; i++) {
		to_jac(fp, &base[i], bases + (size_t)i * fp->storage_bytes);
		scalar_canon(fs, k[i], scalars + (size_t)i * fs->storage_bytes);
	}
	/* windows from the top: acc = 2^c * acc + sum_d d * (sum of the points whose digit is d) */
	for (int w = (bits + c - 1) / c - 1; w >= 0; w--) {
		for (int d = 0; d < c; d++)
			jac_double(F, &acc, &acc);
		for (int d = 0; d < nb; d++)
			jac_infinity(F, &buckets[d]);
		for (int64_t i = 0; i < n; i++) {
			int digit = 0;
			for (int b = c - 1; b >= 0; b--)
				digit = 2 * digit + (w * c + b < bits ? bit(k[i], w * c + b) : 0);
			if (digit)
				jac_add(F, &buckets[digit - 1], &buckets[digit - 1], &base[i]);
		}
		jac run, sum;
		jac_infinity(F, &run);
		jac_infinity(F, &sum);
		for (int d = nb - 1; d >= 0; d--) {
			jac_add(F, &run, &run, &buckets[d]);
			jac_add(F, &sum, &sum, &run);
		}
		jac_add(F, &acc, &acc, &sum);
	}
done:
	free(buckets);
	free(base);
	free(k);
	from_jac(to, out, &acc);
}

/* ---- the ops table: operands and result of one type ---- */

static void pt_add(const ffu_field *t, void *out, const void *a, const void *b)
{
	ffu__point_add(t, out, t, a, t, b);
}

static void pt_sub(const ffu_field *t, void *out, const void *a, const void *b)
{
	ffu__point_sub(t, out, t, a, t, b);
}

static void pt_neg(const ffu_field *t, void *out, const void *a)
{
	size_t c = t->coef->storage_bytes;
	memmove(out, a, t->storage_bytes);
	if (!ffu__fp_is_zero(t, a)) /* infinity stays as it is: affine (0, 0) */
		ffu__fp_neg(t->coef, (unsigned char *)out + c, (const unsigned char *)a + c, NULL);
}

static bool pt_is_zero(const ffu_field *t, const void *a)
{
	const unsigned char *p = a;
	const ffu_field *F = t->coef;
	size_t c = F->storage_bytes;
	switch (t->form) {
	case FFU_POINT_AFFINE:
		return fzero(F, p) && fzero(F, p + c);
	case FFU_POINT_JACOBIAN:
	case FFU_POINT_XYZZ:
		return fzero(F, p + 2 * c);
	}
	return false;
}

/* Every coordinate canonical, and the point on the curve (ZKX.md section 2): affine
   y^2 = x^3 + b or (0, 0); jacobian Y^2 = X^3 + b Z^6 or Z = 0; xyzz ZZ^3 = ZZZ^2 and
   Y^2 = X^3 + b ZZ^3, or ZZ = 0. */
static bool pt_canonical(const ffu_field *t, const void *a)
{
	const unsigned char *p = a;
	const ffu_field *F = t->coef;
	size_t c = F->storage_bytes;
	for (int i = 0; i < t->ncoords; i++)
		if (!ffu__fp_canonical(F, p + i * c))
			return false;
	if (pt_is_zero(t, a))
		return true;
	unsigned char lhs[CB], rhs[CB], w[CB], t1[CB];
	memcpy(w, curve_b(t), c); /* b * Z^6 (jacobian), b * ZZ^3 (xyzz), b (affine) */
	if (t->form == FFU_POINT_JACOBIAN) {
		fsqr(F, t1, p + 2 * c);
		fmul(F, rhs, t1, p + 2 * c);
		fsqr(F, t1, rhs);
		fmul(F, w, w, t1);
	} else if (t->form == FFU_POINT_XYZZ) {
		fsqr(F, t1, p + 2 * c);
		fmul(F, t1, t1, p + 2 * c);
		fsqr(F, rhs, p + 3 * c);
		if (!feq(F, t1, rhs))
			return false;
		fmul(F, w, w, t1);
	}
	fsqr(F, lhs, p + c);
	fsqr(F, rhs, p);
	fmul(F, rhs, rhs, p);
	fadd(F, rhs, rhs, w);
	return feq(F, lhs, rhs);
}

static void pt_convert(const ffu_field *to, void *out, const ffu_field *from, const void *a)
{
	jac p;
	unsigned char t[FFU_FIELD_MAX_BYTES];
	if (to->coef == from->coef) {
		to_jac(from, &p, a);
		from_jac(to, t, &p);
		memcpy(out, t, to->storage_bytes);
		return;
	}
	/* the other form: coordinate by coordinate into a type of from's kind, then the kind
	   (ZKX.md 4.5 leaves plain <-> _std points open; fieldfuse converts the coordinates) */
	const ffu_field *mid = ffu__point_type_of(from->curve, from->form, ffu__field_is_mont(to->coef));
	size_t c = from->coef->storage_bytes;
	for (int i = 0; i < from->ncoords; i++)
		ffu__fp_convert(mid->coef, t + i * c, from->coef, (const unsigned char *)a + i * c);
	if (mid == to) {
		memcpy(out, t, to->storage_bytes);
		return;
	}
	to_jac(mid, &p, t);
	from_jac(to, out, &p);
}

static void pt_random(const ffu_field *t, void *out, uint64_t *state)
{
	unsigned char k[CB];
	ffu__fp_random(t->curve->scalar, k, state);
	ffu__point_gen_mul(t, out, t->curve->scalar, k);
}

static bool is_space(char ch)
{
	return ch == ' ' || ch == '\t';
}

/* The value-file form: the coordinates' numbers separated by spaces, each coordinate its
   coordinate type's numbers (two for an Fq2 coordinate), in storage order. */
static ffu_status pt_parse(const ffu_field *t, void *out, const char *s, size_t len, const char **why)
{
	const ffu_field *F = t->coef;
	int per = F->kind == FFU_ELEM_EXT ? F->degree : 1;
	unsigned char v[FFU_FIELD_MAX_BYTES];
	size_t i = 0;
	len = strnlen(s, len);
	for (int k = 0; k < t->ncoords; k++) {
		while (i < len && is_space(s[i]))
			i++;
		size_t start = i;
		for (int w = 0; w < per; w++) {
			while (i < len && is_space(s[i]))
				i++;
			if (i == len)
				goto count;
			while (i < len && !is_space(s[i]))
				i++;
		}
		ffu_status st = ffu__fp_parse(F, v + k * F->storage_bytes, s + start, i - start, why);
		if (st)
			return st;
	}
	while (i < len && is_space(s[i]))
		i++;
	if (i != len)
		goto count;
	if (!pt_canonical(t, v)) {
		if (why)
			*why = "the point is not on the curve";
		return FFU_STATUS_EPARSE;
	}
	memcpy(out, v, t->storage_bytes);
	return FFU_STATUS_OK;
count:
	if (why)
		*why = t->form == FFU_POINT_AFFINE	? "an affine point is its 2 coordinates separated by spaces"
		       : t->form == FFU_POINT_JACOBIAN ? "a jacobian point is its 3 coordinates separated by spaces"
						       : "an xyzz point is its 4 coordinates separated by spaces";
	return FFU_STATUS_EPARSE;
}

static char *pt_format(const ffu_field *t, char *buf, const void *a, bool literal)
{
	const ffu_field *F = t->coef;
	size_t n = 0;
	if (literal)
		buf[n++] = '(';
	for (int k = 0; k < t->ncoords; k++) {
		char num[FFU_FIELD_TEXT_MAX];
		const unsigned char *x = (const unsigned char *)a + k * F->storage_bytes;
		if (literal)
			ffu__fp_format_literal(F, num, x);
		else
			ffu__fp_format(F, num, x);
		if (k) {
			if (literal)
				buf[n++] = ',';
			buf[n++] = ' ';
		}
		size_t m = strlen(num);
		if (n + m + 2 >= FFU_FIELD_TEXT_MAX) /* 8 numbers of 78 digits fit: tested */
			break;
		memcpy(buf + n, num, m);
		n += m;
	}
	if (literal)
		buf[n++] = ')';
	buf[n] = '\0';
	return buf;
}

/* Arithmetic a point type does not have (multiply, square, inverse, power, a value from
   an integer) is refused by the verifier (ir/verify_points.c) before anything calls it;
   the table leaves those entries NULL. */
const ffu_field_ops ffu__point_ops = {
	.add = pt_add,
	.sub = pt_sub,
	.neg = pt_neg,
	.is_zero = pt_is_zero,
	.canonical = pt_canonical,
	.convert = pt_convert,
	.random = pt_random,
	.parse = pt_parse,
	.format = pt_format,
};
