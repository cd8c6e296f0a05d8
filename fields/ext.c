/*
 * fields/ext.c: the host reference arithmetic of the extension fields F_p[u]/(u^d - W)
 * (FFU_EXT rows of fields/fields.def; the ops table ffu__ext_ops of fields/ops.h, reached
 * through field.h's generic entry points). Owned by the fields engineer; the device counterparts are cl/ext2.cl and
 * cl/ext4.cl.
 *
 * Plain and obviously correct before fast, like fields/field.c: every coefficient
 * operation is a call of the coefficient type's own entry point on its storage bytes (the
 * prime field for an extension, the prime's _mont twin for the extension's _mont twin, so
 * one code serves both forms: x->coef, fields/field.h),
 * the product is the schoolbook one with the terms of degree >= d folded back by
 * u^d = W, and squaring is that product. Only the inverse needs an argument (below).
 */
#include "ops.h"

#include <string.h>

enum { MAXD = FFU_FIELD_MAX_DEGREE, MAXB = FFU_FIELD_MAX_BYTES };

/* An element as separate coefficients (each canonical storage bytes of the prime field). */
typedef struct elem {
	unsigned char c[MAXD][MAXB];
} elem;

/* W mod p as a coefficient (in the coefficient type's form), per extension and per _mont
   twin (filled once by ext_init). */
static unsigned char w_elem[2 * FFU_FIELD_EXT_COUNT][MAXB];

static int ext_index(const ffu_field *x)
{
	return x->id < FFU_FIELD_EXT_END ? (int)(x->id - FFU_FIELD_EXT_FIRST)
					 : FFU_FIELD_EXT_COUNT + (int)(x->id - FFU_FIELD_EXT_MONT_FIRST);
}

static const unsigned char *w_of(const ffu_field *x)
{
	return w_elem[ext_index(x)];
}

static void ext_init(const ffu_field *x)
{
	const ffu_field *p = x->coef;
	unsigned char *w = w_elem[ext_index(x)];
	int64_t nr = x->nonresidue;
	uint64_t mag = nr < 0 ? (uint64_t)0 - (uint64_t)nr : (uint64_t)nr;
	ffu__fp_set_u64(p, w, mag);
	if (nr < 0)
		ffu__fp_neg(p, w, w, NULL);
}

static size_t cb(const ffu_field *x)
{
	return x->coef->storage_bytes;
}

static void unpack(const ffu_field *x, elem *r, const void *bytes)
{
	memset(r, 0, sizeof *r);
	for (int k = 0; k < x->degree; k++)
		memcpy(r->c[k], (const unsigned char *)bytes + (size_t)k * cb(x), cb(x));
}

static void pack(const ffu_field *x, void *bytes, const elem *a)
{
	for (int k = 0; k < x->degree; k++)
		memcpy((unsigned char *)bytes + (size_t)k * cb(x), a->c[k], cb(x));
}

static void ext_add(const ffu_field *x, void *out, const void *a, const void *b)
{
	elem s, t;
	unpack(x, &s, a);
	unpack(x, &t, b);
	for (int k = 0; k < x->degree; k++)
		ffu__fp_add(x->coef, s.c[k], s.c[k], t.c[k]);
	pack(x, out, &s);
}

static void ext_sub(const ffu_field *x, void *out, const void *a, const void *b)
{
	elem s, t;
	unpack(x, &s, a);
	unpack(x, &t, b);
	for (int k = 0; k < x->degree; k++)
		ffu__fp_sub(x->coef, s.c[k], s.c[k], t.c[k]);
	pack(x, out, &s);
}

static void ext_neg(const ffu_field *x, void *out, const void *a)
{
	elem s;
	unpack(x, &s, a);
	for (int k = 0; k < x->degree; k++)
		ffu__fp_neg(x->coef, s.c[k], s.c[k], NULL);
	pack(x, out, &s);
}

/*
 * Schoolbook: t_k = sum over i + j = k of a_i b_j for k < 2d - 1, then each t_k with
 * k >= d is folded into t_(k-d) times W (u^k = W u^(k-d)), highest first so that a fold
 * landing at or above d is folded again (it cannot for k <= 2d - 2, but the order makes
 * that plain).
 */
static void mul_elem(const ffu_field *x, elem *r, const elem *a, const elem *b)
{
	const ffu_field *p = x->coef;
	int d = x->degree;
	unsigned char t[2 * MAXD - 1][MAXB], prod[MAXB];
	memset(t, 0, sizeof t); /* all-zero bytes are the element 0 */
	for (int i = 0; i < d; i++)
		for (int j = 0; j < d; j++) {
			ffu__fp_mul(p, prod, a->c[i], b->c[j]);
			ffu__fp_add(p, t[i + j], t[i + j], prod);
		}
	for (int k = 2 * d - 2; k >= d; k--) {
		ffu__fp_mul(p, prod, t[k], w_of(x));
		ffu__fp_add(p, t[k - d], t[k - d], prod);
	}
	memset(r, 0, sizeof *r);
	for (int k = 0; k < d; k++)
		memcpy(r->c[k], t[k], MAXB);
}

static void ext_mul(const ffu_field *x, void *out, const void *a, const void *b)
{
	elem s, t, r;
	unpack(x, &s, a);
	unpack(x, &t, b);
	mul_elem(x, &r, &s, &t);
	pack(x, out, &r);
}

static void ext_sqr(const ffu_field *x, void *out, const void *a)
{
	ext_mul(x, out, a, a);
}

/* ---- the quadratic extension F_p[v]/(v^2 - W): the helpers of the inverse ---- */

typedef struct quad {
	unsigned char c0[MAXB], c1[MAXB];
} quad;

/* (a0 + a1 v)(b0 + b1 v) = a0 b0 + W a1 b1 + (a0 b1 + a1 b0) v */
static void quad_mul(const ffu_field *x, quad *r, const quad *a, const quad *b)
{
	const ffu_field *p = x->coef;
	unsigned char t0[MAXB], t1[MAXB], s[MAXB];
	quad q;
	ffu__fp_mul(p, t0, a->c0, b->c0);
	ffu__fp_mul(p, t1, a->c1, b->c1);
	ffu__fp_mul(p, t1, t1, w_of(x));
	ffu__fp_add(p, q.c0, t0, t1);
	ffu__fp_mul(p, t0, a->c0, b->c1);
	ffu__fp_mul(p, s, a->c1, b->c0);
	ffu__fp_add(p, q.c1, t0, s);
	*r = q;
}

/*
 * (a0 + a1 v)^-1 = (a0 - a1 v) / N with N = (a0 + a1 v)(a0 - a1 v) = a0^2 - W a1^2 in F_p.
 * W is not a square (checked against GMP for every row), so N = 0 only for a = 0; then
 * the prime field's inverse(0) = 0 makes the result 0, as ZKX's inverse(0) = 0.
 */
static void quad_inv(const ffu_field *x, quad *r, const quad *a)
{
	const ffu_field *p = x->coef;
	unsigned char n[MAXB], t[MAXB];
	quad q;
	ffu__fp_mul(p, n, a->c0, a->c0);
	ffu__fp_mul(p, t, a->c1, a->c1);
	ffu__fp_mul(p, t, t, w_of(x));
	ffu__fp_sub(p, n, n, t);
	ffu__fp_inv(p, n, n);
	ffu__fp_mul(p, q.c0, a->c0, n);
	ffu__fp_mul(p, q.c1, a->c1, n);
	ffu__fp_neg(p, q.c1, q.c1, NULL);
	*r = q;
}

/*
 * The cubic F_p[u]/(u^3 - W): a (t0 + t1 u + t2 u^2) = N with
 *   t0 = a0^2 - W a1 a2,  t1 = W a2^2 - a0 a1,  t2 = a1^2 - a0 a2,
 *   N = a0 t0 + W (a1 t2 + a2 t1)  (the norm of a, in F_p)
 * (the u and u^2 coefficients of the product cancel term by term). W is not a cube
 * (checked against GMP), so u^3 - W is irreducible and N = 0 only for a = 0; then the
 * prime's inverse(0) = 0 makes the result 0.
 */
static void cubic_inv(const ffu_field *x, elem *r, const elem *a)
{
	const ffu_field *p = x->coef;
	const unsigned char *w = w_of(x);
	unsigned char t0[MAXB], t1[MAXB], t2[MAXB], n[MAXB], s[MAXB];
	ffu__fp_mul(p, t0, a->c[0], a->c[0]);
	ffu__fp_mul(p, s, a->c[1], a->c[2]);
	ffu__fp_mul(p, s, s, w);
	ffu__fp_sub(p, t0, t0, s);
	ffu__fp_mul(p, t1, a->c[2], a->c[2]);
	ffu__fp_mul(p, t1, t1, w);
	ffu__fp_mul(p, s, a->c[0], a->c[1]);
	ffu__fp_sub(p, t1, t1, s);
	ffu__fp_mul(p, t2, a->c[1], a->c[1]);
	ffu__fp_mul(p, s, a->c[0], a->c[2]);
	ffu__fp_sub(p, t2, t2, s);
	ffu__fp_mul(p, n, a->c[1], t2);
	ffu__fp_mul(p, s, a->c[2], t1);
	ffu__fp_add(p, n, n, s);
	ffu__fp_mul(p, n, n, w);
	ffu__fp_mul(p, s, a->c[0], t0);
	ffu__fp_add(p, n, n, s);
	ffu__fp_inv(p, n, n);
	memset(r, 0, sizeof *r);
	ffu__fp_mul(p, r->c[0], t0, n);
	ffu__fp_mul(p, r->c[1], t1, n);
	ffu__fp_mul(p, r->c[2], t2, n);
}

/*
 * Inverse through the norm to a subfield.
 * d = 2: the quadratic formula above, with v = u.
 * d = 3: cubic_inv above.
 * d = 4: write a = e + o u with e = a0 + a2 v, o = a1 + a3 v in L = F_p[v]/(v^2 - W),
 *   v = u^2. sigma: u -> -u maps the root u of u^4 - W to another root, so it is an
 *   automorphism of the field fixing L, and y = a sigma(a) = e^2 - v o^2 lies in L; y = 0
 *   only for a = 0 (a norm). Then a^-1 = sigma(a) y^-1 = e y^-1 - (o y^-1) u, where y^-1
 *   is L's quadratic inverse. For a = 0 everything is 0, so inverse(0) = 0.
 * tests/test_fields.c checks a * a^-1 = 1 with GMP's polynomial arithmetic.
 */
static void ext_inv(const ffu_field *x, void *out, const void *a)
{
	const ffu_field *p = x->coef;
	elem s, r;
	unpack(x, &s, a);
	memset(&r, 0, sizeof r);
	if (x->degree == 2) {
		quad q, z;
		memcpy(q.c0, s.c[0], MAXB);
		memcpy(q.c1, s.c[1], MAXB);
		quad_inv(x, &z, &q);
		memcpy(r.c[0], z.c0, MAXB);
		memcpy(r.c[1], z.c1, MAXB);
	} else if (x->degree == 3) {
		cubic_inv(x, &r, &s);
	} else { /* degree 4 (the only other degree fields.def may use) */
		quad e, o, e2, o2, y, z, ez, oz;
		memcpy(e.c0, s.c[0], MAXB);
		memcpy(e.c1, s.c[2], MAXB);
		memcpy(o.c0, s.c[1], MAXB);
		memcpy(o.c1, s.c[3], MAXB);
		quad_mul(x, &e2, &e, &e);
		quad_mul(x, &o2, &o, &o);
		/* y = e^2 - v o^2, v (c0 + c1 v) = W c1 + c0 v */
		unsigned char t[MAXB];
		ffu__fp_mul(p, t, o2.c1, w_of(x));
		ffu__fp_sub(p, y.c0, e2.c0, t);
		ffu__fp_sub(p, y.c1, e2.c1, o2.c0);
		quad_inv(x, &z, &y);
		quad_mul(x, &ez, &e, &z);
		quad_mul(x, &oz, &o, &z);
		memcpy(r.c[0], ez.c0, MAXB);
		memcpy(r.c[2], ez.c1, MAXB);
		ffu__fp_neg(p, r.c[1], oz.c0, NULL);
		ffu__fp_neg(p, r.c[3], oz.c1, NULL);
	}
	pack(x, out, &r);
}

static void ext_set_u64(const ffu_field *x, void *out, uint64_t v)
{
	elem r;
	memset(&r, 0, sizeof r);
	ffu__fp_set_u64(x->coef, r.c[0], v);
	pack(x, out, &r);
}

static void ext_embed(const ffu_field *x, void *out, const ffu_field *from, const void *c)
{
	elem r;
	memset(&r, 0, sizeof r);
	ffu__fp_convert(x->coef, r.c[0], from, c);
	pack(x, out, &r);
}

/* Left-to-right square and multiply; a^0 = 1, also for a = 0. */
static void ext_pow(const ffu_field *x, void *out, const void *a, uint64_t e)
{
	elem base, acc;
	unpack(x, &base, a);
	memset(&acc, 0, sizeof acc);
	ffu__fp_set_u64(x->coef, acc.c[0], 1);
	for (int i = 63; i >= 0; i--) {
		mul_elem(x, &acc, &acc, &acc);
		if ((e >> i) & 1)
			mul_elem(x, &acc, &acc, &base);
	}
	pack(x, out, &acc);
}

static void ext_to_dev_mont(const ffu_field *x, void *out, const void *a)
{
	elem s;
	unpack(x, &s, a);
	for (int k = 0; k < x->degree; k++)
		ffu__fp_to_dev_mont(x->coef, s.c[k], s.c[k]);
	pack(x, out, &s);
}

static void ext_from_dev_mont(const ffu_field *x, void *out, const void *a)
{
	elem s;
	unpack(x, &s, a);
	for (int k = 0; k < x->degree; k++)
		ffu__fp_from_dev_mont(x->coef, s.c[k], s.c[k]);
	pack(x, out, &s);
}

static bool ext_is_zero(const ffu_field *x, const void *a)
{
	elem s;
	unpack(x, &s, a);
	bool zero = true;
	for (int k = 0; k < x->degree; k++)
		zero &= ffu__fp_is_zero(x->coef, s.c[k]);
	return zero;
}

static bool ext_canonical(const ffu_field *x, const void *a)
{
	elem s;
	unpack(x, &s, a);
	bool ok = true;
	for (int k = 0; k < x->degree; k++)
		ok &= ffu__fp_canonical(x->coef, s.c[k]);
	return ok;
}

static void ext_random(const ffu_field *x, void *out, uint64_t *state)
{
	elem r;
	memset(&r, 0, sizeof r);
	for (int k = 0; k < x->degree; k++)
		ffu__fp_random(x->coef, r.c[k], state);
	pack(x, out, &r);
}

static bool is_space(char ch)
{
	return ch == ' ' || ch == '\t';
}

/* "1 2 3 4": exactly d coefficients, separated by runs of spaces or tabs, nothing around. */
static ffu_status ext_parse(const ffu_field *x, void *out, const char *s, size_t len, const char **why)
{
	static const char *const count_msg[MAXD + 1] = {
		NULL, NULL, "an element is 2 coefficients separated by spaces",
		"an element is 3 coefficients separated by spaces",
		"an element is 4 coefficients separated by spaces"};
	const char *const bad_count = x->degree <= MAXD && count_msg[x->degree]
					      ? count_msg[x->degree]
					      : "wrong number of coefficients";
	len = strnlen(s, len);
	elem r;
	memset(&r, 0, sizeof r);
	size_t i = 0;
	int k = 0;
	if (len == 0 || is_space(s[0]) || is_space(s[len - 1])) {
		if (why)
			*why = bad_count;
		return FFU_STATUS_EPARSE;
	}
	while (i < len) {
		size_t j = i;
		while (j < len && !is_space(s[j]))
			j++;
		if (k == x->degree) {
			if (why)
				*why = bad_count;
			return FFU_STATUS_EPARSE;
		}
		ffu_status st = ffu__fp_parse(x->coef, r.c[k], s + i, j - i, why);
		if (st != FFU_STATUS_OK)
			return st;
		k++;
		while (j < len && is_space(s[j]))
			j++;
		i = j;
	}
	if (k != x->degree) {
		if (why)
			*why = bad_count;
		return FFU_STATUS_EPARSE;
	}
	pack(x, out, &r);
	return FFU_STATUS_OK;
}

static char *ext_format(const ffu_field *x, char *buf, const void *a, bool literal)
{
	elem s;
	unpack(x, &s, a);
	size_t n = 0;
	if (literal)
		buf[n++] = '(';
	for (int k = 0; k < x->degree; k++) {
		char num[FFU_FIELD_TEXT_MAX];
		ffu__fp_format(x->coef, num, s.c[k]);
		if (k) {
			if (literal)
				buf[n++] = ',';
			buf[n++] = ' ';
		}
		size_t m = strlen(num);
		if (n + m + 2 >= FFU_FIELD_TEXT_MAX) /* no row of fields.def comes near: tested */
			break;
		memcpy(buf + n, num, m);
		n += m;
	}
	if (literal)
		buf[n++] = ')';
	buf[n] = '\0';
	return buf;
}

/* from is x itself, its twin (the other form: coefficient-wise), or its prime field or that
   field's _mont twin (ffu__fp_convert_ok). */
static void ext_convert(const ffu_field *x, void *out, const ffu_field *from, const void *c)
{
	if (from == x) {
		memmove(out, c, x->storage_bytes);
	} else if (from == x->twin) {
		elem s;
		unpack(x, &s, c);
		for (int k = 0; k < x->degree; k++)
			ffu__fp_convert(x->coef, s.c[k], from->coef, s.c[k]);
		pack(x, out, &s);
	} else {
		ext_embed(x, out, from, c);
	}
}

const ffu_field_ops ffu__ext_ops = {
	.init = ext_init,
	.add = ext_add,
	.sub = ext_sub,
	.mul = ext_mul,
	.neg = ext_neg,
	.sqr = ext_sqr,
	.to_dev_mont = ext_to_dev_mont,
	.from_dev_mont = ext_from_dev_mont,
	.is_zero = ext_is_zero,
	.set_u64 = ext_set_u64,
	.canonical = ext_canonical,
	.convert = ext_convert,
	.pow = ext_pow,
	.inv = ext_inv,
	.random = ext_random,
	.parse = ext_parse,
	.format = ext_format,
};
