/*
 * fields/field.c: the host reference arithmetic of every field in fields/fields.def (API in
 * fields/field.h). Owned by the fields engineer; the device counterparts are cl/mont*.cl.
 *
 * One generic implementation for all fields: elements are held in nlimbs 64-bit limbs
 * (nlimbs = ceil(bits / 64)) and multiplied with CIOS Montgomery using the host radix
 * R_host = 2^(64 * nlimbs). The CIOS keeps an extra carry word and reductions test the
 * carry explicitly, so nothing here assumes the modulus leaves a spare top bit (Goldilocks,
 * p = 2^64 - 2^32 + 1, will reuse this file unchanged). Plain and obviously correct before
 * fast: this is the oracle that device code is checked against.
 *
 * Every derived constant (-p^-1, R^2 mod p for both radices, ...) is computed from the
 * modulus hex string once, under pthread_once, so no hand-typed constant can drift.
 *
 * Elements cross the API as canonical little-endian storage bytes. Operations assume
 * canonical inputs (< p); non-canonical inputs give unspecified values, never a crash.
 * This file is the limb table of fields/ops.h (ffu__limb_ops: prime fields, _mont, u32, u64,
 * pred) and the descriptor table; the generic entry points (dispatch.c) call through each
 * descriptor's table, and extension types (kind FFU_ELEM_EXT) have ext.c's.
 */
#include "ops.h"
#include "point.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

enum { MAXL = FFU_FIELD_MAX_LIMBS };

#define FIELD_ROW(IDV, KIND, NAMESTR, BITS, BYTES, MOD, GEN, TWOADIC, DEVR, MONTR, TMPL)   \
	{.id = IDV,                                                                         \
	 .kind = KIND,                                                                      \
	 .name = NAMESTR,                                                                   \
	 .modulus_hex = MOD,                                                                \
	 .cl_template = #TMPL,                                                              \
	 .bits = BITS,                                                                      \
	 .nlimbs = ((BITS) + 63) / 64,                                                      \
	 .storage_bytes = BYTES,                                                            \
	 .generator = GEN,                                                                  \
	 .two_adicity = TWOADIC,                                                            \
	 .dev_radix_bits = DEVR,                                                            \
	 .mont_radix_bits = MONTR,                                                          \
	 .degree = 1,                                                                       \
	 .ops = &ffu__limb_ops},

/* every type but the points, which fields/point.c describes */
static ffu_field fields[FFU_FIELD_INT_END] = {
#define FFU_FIELD(ID, NAME, ...) FIELD_ROW(FFU_FIELD_##ID, FFU_ELEM_PRIME, #NAME, __VA_ARGS__)
#include "fields.def"
#undef FFU_FIELD
#define FFU_FIELD(ID, NAME, ...) FIELD_ROW(FFU_FIELD_##ID##_MONT, FFU_ELEM_MONT, #NAME "_mont", __VA_ARGS__)
#include "fields.def"
#undef FFU_FIELD
	/* the rest of an extension's descriptor is derived from its prime field in init_all */
#define FFU_EXT(ID, NAME, BASE, DEG, W) \
	{.id = FFU_FIELD_##ID, .kind = FFU_ELEM_EXT, .name = #NAME, .degree = DEG, .nonresidue = W, .ops = &ffu__ext_ops},
#include "fields.def"
#undef FFU_EXT
	/* an extension's _mont twin: copied from the extension in init_all */
#define FFU_EXT(ID, NAME, BASE, DEG, W) \
	{.id = FFU_FIELD_##ID##_MONT, .kind = FFU_ELEM_EXT, .name = #NAME "_mont", .degree = DEG, .nonresidue = W, \
	 .ops = &ffu__ext_ops},
#include "fields.def"
#undef FFU_EXT
	/* "p" = 2^32 and 2^64: the parser's, value files' and sampler's range checks then
	   accept exactly the integers of the type (u64 takes a second limb for its bound). */
	{.id = FFU_FIELD_U32, .kind = FFU_ELEM_UINT, .name = "u32", .modulus_hex = "100000000",
	 .cl_template = "none", .bits = 32, .nlimbs = 1, .storage_bytes = 4, .degree = 1,
	 .ops = &ffu__limb_ops},
	{.id = FFU_FIELD_U64, .kind = FFU_ELEM_UINT, .name = "u64", .modulus_hex = "10000000000000000",
	 .cl_template = "none", .bits = 64, .nlimbs = 2, .storage_bytes = 8, .degree = 1,
	 .ops = &ffu__limb_ops},
	{.id = FFU_FIELD_PRED, .kind = FFU_ELEM_PRED, .name = "pred", .modulus_hex = "2",
	 .cl_template = "none", .bits = 1, .nlimbs = 1, .storage_bytes = 1, .degree = 1,
	 .ops = &ffu__limb_ops},
	/* "p" = 2^bits as for u32/u64 (modulus_hex set in init_all); a 64-bit type takes a
	   second limb for its bound */
#define FFU_INT(ID, NAME, BITS, SIGNED)                                                              \
	{.id = FFU_FIELD_##ID, .kind = FFU_ELEM_UINT, .name = #NAME, .cl_template = "none", .bits = BITS, \
	 .nlimbs = (BITS) == 64 ? 2 : 1, .storage_bytes = (BITS) / 8, .degree = 1, .is_signed = SIGNED,   \
	 .ops = &ffu__limb_ops},
#include "fields.def"
#undef FFU_INT
};

/* Every row fits field.h's bounds (a wider field or a larger element raises them there), so
   the fixed-size buffers of every user of fields/ hold any element. */
#define FFU_FIELD(ID, NAME, BITS, BYTES, ...)                                                  \
	_Static_assert((BITS) <= 64 * FFU_FIELD_MAX_LIMBS && (BYTES) <= FFU_FIELD_MAX_BYTES && \
			       (BYTES) % 4 == 0,                                               \
		       #NAME ": more limbs or bytes than fields/field.h allows");
#include "fields.def"
#undef FFU_FIELD
enum {
#define FFU_FIELD(ID, NAME, BITS, BYTES, ...) ROW_BYTES_##ID = BYTES,
#include "fields.def"
#undef FFU_FIELD
};
#define FFU_EXT(ID, NAME, BASE, DEG, W)                                                          \
	_Static_assert((DEG) >= 2 && (DEG) <= FFU_FIELD_MAX_DEGREE && (DEG) * ROW_BYTES_##BASE <= FFU_FIELD_MAX_BYTES, \
		       #NAME ": a larger degree or element than fields/field.h allows");                  \
	_Static_assert((DEG) == 2 || ROW_BYTES_##BASE <= 8,                                        \
		       #NAME ": cl/ext3.cl and cl/ext4.cl take coefficients of 1 or 2 words (cl/ext2.cl any)");
#include "fields.def"
#undef FFU_EXT

/* 2^bits in hex for the FFU_INT rows: "1" and bits / 4 zeros. */
static const char *int_modulus_hex(int bits)
{
	static const char zeros[] = "10000000000000000";
	return bits == 8 ? "100" : bits == 16 ? "10000" : bits == 32 ? "100000000" : zeros;
}

/* The coefficient field of each extension row, by extension index. */
static const ffu_field_id ext_prime_ids[FFU_FIELD_EXT_COUNT] = {
#define FFU_EXT(ID, NAME, BASE, ...) FFU_FIELD_##BASE,
#include "fields.def"
#undef FFU_EXT
};

/*
 * Constants the public descriptor does not carry, kept beside it (indexed by the prime
 * field's id) so that field.h stays stable: the multipliers that turn a host Montgomery
 * product into the device-radix and the user-visible _mont conversions.
 */
typedef struct field_extra {
	uint64_t to_dev[MAXL];    /* R_dev * R_host mod p: mont(a, to_dev) = a * R_dev */
	uint64_t from_dev[MAXL];  /* R_host / R_dev mod p: mont(a, from_dev) = a / R_dev */
	uint64_t to_user[MAXL];   /* R_mont * R_host mod p */
	uint64_t from_user[MAXL]; /* R_host / R_mont mod p (R_mont <= R_host for every row) */
	uint64_t one_mont[MAXL];  /* R_host mod p: 1 in host Montgomery form */
} field_extra;

static field_extra extras[FFU_FIELD_COUNT];
static pthread_once_t fields_once = PTHREAD_ONCE_INIT;

/* ---- limb helpers (n limbs, little-endian) ---- */

static int cmp_n(const uint64_t *a, const uint64_t *b, int n)
{
	for (int i = n - 1; i >= 0; i--)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

/* r = a - b, returns the borrow. r may alias a or b. */
static uint64_t sub_n(uint64_t *r, const uint64_t *a, const uint64_t *b, int n)
{
	uint64_t borrow = 0;
	for (int i = 0; i < n; i++) {
		unsigned __int128 d = (unsigned __int128)a[i] - b[i] - borrow;
		r[i] = (uint64_t)d;
		borrow = (uint64_t)(d >> 64) & 1;
	}
	return borrow;
}

/* r = a + b, returns the carry. r may alias a or b. */
static uint64_t add_n(uint64_t *r, const uint64_t *a, const uint64_t *b, int n)
{
	uint64_t carry = 0;
	for (int i = 0; i < n; i++) {
		unsigned __int128 s = (unsigned __int128)a[i] + b[i] + carry;
		r[i] = (uint64_t)s;
		carry = (uint64_t)(s >> 64);
	}
	return carry;
}

static bool is_zero_n(const uint64_t *a, int n)
{
	uint64_t acc = 0;
	for (int i = 0; i < n; i++)
		acc |= a[i];
	return acc == 0;
}

/* ---- modular helpers on limbs ---- */

/* r = a + b mod p; the sum's carry word is tested, so p may use every bit of its limbs. */
static void mod_add(const ffu_field *f, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
	int n = f->nlimbs;
	uint64_t carry = add_n(r, a, b, n);
	if (carry || cmp_n(r, f->p, n) >= 0)
		sub_n(r, r, f->p, n);
}

static void mod_sub(const ffu_field *f, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
	int n = f->nlimbs;
	if (sub_n(r, a, b, n))
		add_n(r, r, f->p, n);
}

/*
 * Montgomery product a * b * R_host^-1 mod p by CIOS. t has n + 2 words: t[n] takes the
 * carry of each row and t[n + 1] the carry out of t[n], which is what lets p fill its top
 * limb. With a, b < p the result before the final subtraction is < 2p.
 */
static void mont_mul(const ffu_field *f, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
	int n = f->nlimbs;
	uint64_t t[MAXL + 2] = {0};
	for (int i = 0; i < n; i++) {
		unsigned __int128 acc;
		uint64_t c = 0;
		for (int j = 0; j < n; j++) {
			acc = (unsigned __int128)a[j] * b[i] + t[j] + c;
			t[j] = (uint64_t)acc;
			c = (uint64_t)(acc >> 64);
		}
		acc = (unsigned __int128)t[n] + c;
		t[n] = (uint64_t)acc;
		t[n + 1] = (uint64_t)(acc >> 64);

		uint64_t m = t[0] * f->pinv64;
		acc = (unsigned __int128)m * f->p[0] + t[0];
		c = (uint64_t)(acc >> 64);
		for (int j = 1; j < n; j++) {
			acc = (unsigned __int128)m * f->p[j] + t[j] + c;
			t[j - 1] = (uint64_t)acc;
			c = (uint64_t)(acc >> 64);
		}
		acc = (unsigned __int128)t[n] + c;
		t[n - 1] = (uint64_t)acc;
		t[n] = t[n + 1] + (uint64_t)(acc >> 64);
	}
	if (t[n] || cmp_n(t, f->p, n) >= 0)
		sub_n(t, t, f->p, n);
	memcpy(r, t, (size_t)n * sizeof(uint64_t));
}

/* Canonical product: mont(mont(a, b), R_host^2) = a * b. */
static void mod_mul(const ffu_field *f, uint64_t *r, const uint64_t *a, const uint64_t *b)
{
	uint64_t t[MAXL];
	mont_mul(f, t, a, b);
	mont_mul(f, r, t, f->r2_host);
}

/* ---- storage bytes <-> limbs ---- */

static void load(const ffu_field *f, uint64_t *r, const void *bytes)
{
	const unsigned char *b = bytes;
	memset(r, 0, MAXL * sizeof(uint64_t));
	for (size_t i = 0; i < f->storage_bytes; i++)
		r[i / 8] |= (uint64_t)b[i] << (8 * (i % 8));
}

static void store(const ffu_field *f, void *bytes, const uint64_t *a)
{
	unsigned char *b = bytes;
	for (size_t i = 0; i < f->storage_bytes; i++)
		b[i] = (unsigned char)(a[i / 8] >> (8 * (i % 8)));
}

/* ---- derivation of the constants ---- */

static int hex_digit(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* x = 2^k mod p, by k modular doublings of 1 (slow but plainly correct; run once). */
static void pow2_mod(const ffu_field *f, uint64_t *x, int k)
{
	memset(x, 0, MAXL * sizeof(uint64_t));
	x[0] = 1; /* < p: every modulus in the table is > 2 */
	for (int i = 0; i < k; i++)
		mod_add(f, x, x, x);
}

static void parse_modulus(ffu_field *f)
{
	/* The modulus from hex; the table is trusted (checked against GMP by the tests). */
	memset(f->p, 0, sizeof f->p);
	size_t len = strlen(f->modulus_hex);
	for (size_t i = 0; i < len; i++) {
		int d = hex_digit(f->modulus_hex[len - 1 - i]);
		if (d < 0 || i / 16 >= MAXL)
			break;
		f->p[i / 16] |= (uint64_t)d << (4 * (i % 16));
	}
}

static void init_field(ffu_field *f, field_extra *x)
{
	parse_modulus(f);

	/* Newton: inv = p0 is right mod 2^3 for odd p0; each step doubles the correct bits. */
	uint64_t inv = f->p[0];
	for (int i = 0; i < 5; i++)
		inv *= 2 - f->p[0] * inv;
	f->pinv64 = 0 - inv;
	uint32_t inv32 = (uint32_t)f->p[0];
	for (int i = 0; i < 4; i++)
		inv32 *= 2 - (uint32_t)f->p[0] * inv32;
	f->pinv32 = 0 - inv32;

	int host_bits = 64 * f->nlimbs;
	int dev_bits = f->dev_radix_bits;
	pow2_mod(f, f->r2_host, 2 * host_bits);
	uint64_t r2d[MAXL];
	pow2_mod(f, r2d, 2 * dev_bits);
	memset(f->r2_dev, 0, sizeof f->r2_dev);
	store(f, f->r2_dev, r2d);

	pow2_mod(f, x->to_dev, dev_bits + host_bits);
	pow2_mod(f, x->from_dev, host_bits - dev_bits);
	pow2_mod(f, x->to_user, f->mont_radix_bits + host_bits);
	pow2_mod(f, x->from_user, host_bits - f->mont_radix_bits);
	pow2_mod(f, x->one_mont, host_bits);
}

/* v2(p^d - 1) for d a power of two: p^d - 1 = (p - 1)(p + 1)(p^2 + 1)(p^4 + 1)...; for odd
   p every p^(2^k) + 1 with k >= 1 is 2 mod 4. Limb 0 decides both 2-adic valuations. For
   d = 3, p^3 - 1 = (p - 1)(p^2 + p + 1) with p^2 + p + 1 odd: v2(p - 1). */
static int ext_two_adicity(const ffu_field *p, int d)
{
	int v = p->two_adicity;
	if (d == 3)
		return v;
	uint64_t q = p->p[0] + 1; /* p odd: q even; q = 0 would mean 2^64 | p + 1 */
	if (d >= 2)
		v += q ? __builtin_ctzll(q) : 64;
	for (int k = 4; k <= d; k *= 2)
		v += 1;
	return v;
}

/* An extension's descriptor: its prime field's constants (coefficient-wise), see field.h. */
static void init_ext(ffu_field *x, const ffu_field *p)
{
	static const char *const templates[FFU_FIELD_MAX_DEGREE + 1] = {"none", "none", "ext2", "ext3", "ext4"};
	ffu_field keep = *x;
	*x = *p;
	x->id = keep.id;
	x->kind = FFU_ELEM_EXT;
	x->name = keep.name;
	x->degree = keep.degree;
	x->nonresidue = keep.nonresidue;
	x->ops = keep.ops;
	x->base = x;
	x->prime = p;
	x->cl_template = keep.degree >= 0 && keep.degree <= FFU_FIELD_MAX_DEGREE ? templates[keep.degree] : "none";
	x->storage_bytes = (size_t)keep.degree * p->storage_bytes;
	x->generator = 0;
	x->two_adicity = ext_two_adicity(p, keep.degree);
	x->mont_radix_bits = 0;
	x->coef = p;
	if (x->ops->init)
		x->ops->init(x);
}

/* An extension's _mont twin m: the extension x's descriptor with Montgomery coefficients
   (x->base stays the device functions' field: the _mont value computes as x's value). */
static void init_ext_mont(ffu_field *m, ffu_field *x)
{
	ffu_field keep = *m;
	*m = *x;
	m->id = keep.id;
	m->name = keep.name;
	m->base = x;
	m->coef = x->prime->twin; /* the prime's _mont (set before the extensions) */
	m->mont_radix_bits = x->prime->mont_radix_bits;
	m->twin = x;
	x->twin = m;
	if (m->ops->init)
		m->ops->init(m);
}

static void init_all(void)
{
	for (int i = 0; i < FFU_FIELD_COUNT; i++) {
		init_field(&fields[i], &extras[i]);
		fields[i].base = &fields[i];
		/* the _mont row: the same field's constants under its own id, kind and name */
		ffu_field *m = &fields[FFU_FIELD_COUNT + i];
		ffu_field keep = *m;
		*m = fields[i];
		m->id = keep.id;
		m->kind = keep.kind;
		m->name = keep.name;
		m->base = &fields[i];
		fields[i].prime = &fields[i];
		m->prime = &fields[i];
		fields[i].twin = m;
		m->twin = &fields[i];
	}
	for (int i = FFU_FIELD_EXT_FIRST; i < FFU_FIELD_EXT_END; i++) {
		init_ext(&fields[i], &fields[ext_prime_ids[i - FFU_FIELD_EXT_FIRST]]);
		init_ext_mont(&fields[FFU_FIELD_EXT_MONT_FIRST + (i - FFU_FIELD_EXT_FIRST)], &fields[i]);
	}
	parse_modulus(&fields[FFU_FIELD_U32]);
	parse_modulus(&fields[FFU_FIELD_U64]);
	parse_modulus(&fields[FFU_FIELD_PRED]);
	for (int i = FFU_FIELD_PRED + 1; i < FFU_FIELD_INT_END; i++) {
		fields[i].modulus_hex = int_modulus_hex(fields[i].bits);
		parse_modulus(&fields[i]);
	}
}

const ffu_field *ffu__field_get(ffu_field_id id)
{
	if ((int)id < 0 || id >= FFU_ELEM_COUNT)
		return NULL;
	pthread_once(&fields_once, init_all);
	return id >= FFU_FIELD_POINT_FIRST ? ffu__point_type(id) : &fields[id];
}

const ffu_field *ffu__field_by_name(const char *name, size_t len)
{
	if (!name)
		return NULL;
	for (int i = 0; i < FFU_FIELD_COUNT; i++)
		if (strlen(fields[i].name) == len && memcmp(fields[i].name, name, len) == 0)
			return ffu__field_get((ffu_field_id)i);
	return NULL;
}

/* ---- element-wise API ---- */

/* Canonical limbs of a value of type f: a _mont value x * R_mont is divided by R_mont. */
static void load_canon(const ffu_field *f, uint64_t *x, const void *bytes)
{
	load(f, x, bytes);
	if (f->kind == FFU_ELEM_MONT)
		mont_mul(f, x, x, extras[f->base->id].from_user);
}

/* Stores canonical limbs as a value of type f (x * R_mont for a _mont type). */
static void store_canon(const ffu_field *f, void *bytes, uint64_t *x)
{
	if (f->kind == FFU_ELEM_MONT)
		mont_mul(f, x, x, extras[f->base->id].to_user);
	store(f, bytes, x);
}

static void limb_add(const ffu_field *f, void *out, const void *a, const void *b)
{
	uint64_t x[MAXL], y[MAXL];
	load(f, x, a);
	load(f, y, b);
	mod_add(f, x, x, y);
	store(f, out, x);
}

static void limb_sub(const ffu_field *f, void *out, const void *a, const void *b)
{
	uint64_t x[MAXL], y[MAXL];
	load(f, x, a);
	load(f, y, b);
	mod_sub(f, x, x, y);
	store(f, out, x);
}

/* add, sub and neg are linear, so they are the same on canonical and _mont storage. */
static void limb_mul(const ffu_field *f, void *out, const void *a, const void *b)
{
	uint64_t x[MAXL], y[MAXL];
	load_canon(f, x, a);
	load_canon(f, y, b);
	mod_mul(f, x, x, y);
	store_canon(f, out, x);
}

static void limb_neg(const ffu_field *f, void *out, const void *a)
{
	uint64_t x[MAXL], zero[MAXL] = {0};
	load(f, x, a);
	mod_sub(f, x, zero, x);
	store(f, out, x);
}

static void limb_sqr(const ffu_field *f, void *out, const void *a)
{
	limb_mul(f, out, a, a);
}

static void limb_to_dev_mont(const ffu_field *f, void *out, const void *a)
{
	uint64_t x[MAXL];
	load(f, x, a);
	mont_mul(f, x, x, extras[f->base->id].to_dev);
	store(f, out, x);
}

static void limb_from_dev_mont(const ffu_field *f, void *out, const void *a)
{
	uint64_t x[MAXL];
	load(f, x, a);
	mont_mul(f, x, x, extras[f->base->id].from_dev);
	store(f, out, x);
}

static bool limb_is_zero(const ffu_field *f, const void *a)
{
	uint64_t x[MAXL];
	load(f, x, a);
	return is_zero_n(x, f->nlimbs);
}

bool ffu__fp_eq(const ffu_field *f, const void *a, const void *b)
{
	if (f->kind == FFU_ELEM_POINT) /* one group element has many jacobian/xyzz representatives */
		return ffu__point_eq(f, a, f, b);
	return memcmp(a, b, f->storage_bytes) == 0;
}

static void limb_set_u64(const ffu_field *f, void *out, uint64_t v)
{
	uint64_t x[MAXL] = {0};
	if (f->kind == FFU_ELEM_PRED) {
		x[0] = v != 0;
		store(f, out, x);
		return;
	}
	if (f->kind == FFU_ELEM_UINT) {
		x[0] = f->bits < 64 ? v & ((UINT64_C(1) << f->bits) - 1) : v; /* v mod 2^bits */
		store(f, out, x);
		return;
	}
	if (f->nlimbs == 1)
		x[0] = v % f->p[0];
	else
		x[0] = v; /* p > 2^64 > v */
	store_canon(f, out, x);
}

uint64_t ffu__fp_get_u64(const ffu_field *f, const void *a)
{
	uint64_t x[MAXL];
	load(f, x, a);
	return x[0];
}

int64_t ffu__fp_get_i64(const ffu_field *f, const void *a)
{
	uint64_t v = ffu__fp_get_u64(f, a);
	if (f->is_signed && f->bits < 64 && (v >> (f->bits - 1)) & 1)
		v |= ~UINT64_C(0) << f->bits; /* sign-extend */
	return (int64_t)v;
}

/* The FFU_INT rows (s8 ... u16), which convert by ZKX's rules (field.h), unlike u32/u64. */
static bool is_zkx_int(const ffu_field *f)
{
	return f->kind == FFU_ELEM_UINT && f->id > FFU_FIELD_PRED;
}

static bool limb_canonical(const ffu_field *f, const void *a)
{
	if (f->kind == FFU_ELEM_UINT)
		return true;
	if (f->kind == FFU_ELEM_PRED)
		return *(const unsigned char *)a <= 1;
	uint64_t x[MAXL];
	load(f, x, a);
	return cmp_n(x, f->p, f->nlimbs) < 0;
}

bool ffu__fp_convert_ok(const ffu_field *to, const ffu_field *from)
{
	if (!to || !from)
		return false;
	if (from->kind == FFU_ELEM_PRED || to->kind == FFU_ELEM_PRED)
		return false;
	if (from->kind == FFU_ELEM_POINT || to->kind == FFU_ELEM_POINT)
		return ffu__point_convert_ok(to, from);
	/* ZKX's integer rules (field.h) where either side is one of the FFU_INT rows */
	if (is_zkx_int(from) || is_zkx_int(to)) {
		if (from->kind == FFU_ELEM_UINT && to->kind == FFU_ELEM_UINT)
			return true;
		if (from->kind != FFU_ELEM_UINT || (to->kind != FFU_ELEM_PRIME && to->kind != FFU_ELEM_MONT))
			return false;
		return from->storage_bytes <= to->storage_bytes;
	}
	/* into an extension or its _mont twin: integers, its prime field or that field's _mont,
	   itself, its twin; out of one: only into its twin */
	if (to->kind == FFU_ELEM_EXT)
		return from == to || from == to->twin || from->kind == FFU_ELEM_UINT ||
		       ((from->kind == FFU_ELEM_PRIME || from->kind == FFU_ELEM_MONT) && from->base == to->prime);
	if (from->kind == FFU_ELEM_EXT)
		return false;
	if (from->kind == FFU_ELEM_UINT)
		return true; /* into a field mod p, or between u32 and u64 as ZKX converts integers */
	if (to->kind != FFU_ELEM_UINT)
		return to->base == from->base;
	/* field -> integer: the canonical value must fit: 31-bit -> u32, Goldilocks -> u64 */
	return from->base->storage_bytes == to->storage_bytes && from->nlimbs == 1;
}

/* from is a field type (prime or _mont) of to's prime field (ffu__fp_convert_ok) */
static void limb_convert(const ffu_field *to, void *out, const ffu_field *from, const void *a)
{
	uint64_t x[MAXL];
	load_canon(from, x, a);
	if (to->kind == FFU_ELEM_UINT)
		store(to, out, x);
	else
		store_canon(to, out, x);
}

static void limb_pow(const ffu_field *f, void *out, const void *a, uint64_t e)
{
	/* Left-to-right square and multiply in host Montgomery form; x^0 = 1 even for x = 0. */
	uint64_t base[MAXL], acc[MAXL];
	load_canon(f, base, a);
	mont_mul(f, base, base, f->r2_host);
	memcpy(acc, extras[f->base->id].one_mont, sizeof acc);
	for (int i = 63; i >= 0; i--) {
		mont_mul(f, acc, acc, acc);
		if ((e >> i) & 1)
			mont_mul(f, acc, acc, base);
	}
	uint64_t one[MAXL] = {1};
	mont_mul(f, acc, acc, one);
	store_canon(f, out, acc);
}

static void limb_inv(const ffu_field *f, void *out, const void *a)
{
	/* Fermat: a^(p-2), scanning the limbs of p - 2; inv(0) = 0 falls out (0^k = 0, k > 0). */
	int n = f->nlimbs;
	uint64_t base[MAXL], acc[MAXL], e[MAXL], two[MAXL] = {2};
	load_canon(f, base, a);
	mont_mul(f, base, base, f->r2_host);
	memcpy(acc, extras[f->base->id].one_mont, sizeof acc);
	sub_n(e, f->p, two, n);
	for (int i = 64 * n - 1; i >= 0; i--) {
		mont_mul(f, acc, acc, acc);
		if ((e[i / 64] >> (i % 64)) & 1)
			mont_mul(f, acc, acc, base);
	}
	uint64_t one[MAXL] = {1};
	mont_mul(f, acc, acc, one);
	store_canon(f, out, acc);
}

uint64_t ffu__rand_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void limb_random(const ffu_field *f, void *out, uint64_t *state)
{
	/* Rejection sampling on bits-wide words: uniform, and cheap since p > 2^(bits-1). */
	int n = f->nlimbs;
	int top_bits = f->bits - 64 * (n - 1);
	uint64_t mask = top_bits >= 64 ? ~0ull : (1ull << top_bits) - 1;
	uint64_t x[MAXL] = {0};
	do {
		for (int i = 0; i < n; i++)
			x[i] = ffu__rand_next(state);
		x[n - 1] &= mask;
	} while (cmp_n(x, f->p, n) >= 0);
	store(f, out, x);
}

/* ---- text ---- */

/* The range message of an FFU_INT row (u32/u64 keep their older, shorter wording). */
static const char *int_range_why(const ffu_field *f)
{
	if (!f->is_signed)
		return f->bits == 8 ? "value does not fit u8 (0..255)" : "value does not fit u16 (0..65535)";
	switch (f->bits) {
	case 8:
		return "value does not fit s8 (-128..127)";
	case 16:
		return "value does not fit s16 (-32768..32767)";
	case 32:
		return "value does not fit s32 (-2147483648..2147483647)";
	default:
		return "value does not fit s64 (-9223372036854775808..9223372036854775807)";
	}
}

static ffu_status limb_parse_digits(const ffu_field *f, void *out, const char *s, size_t len, const char **why);

/*
 * A signed type: an optional '-', then digits as for any type; the magnitude must be at
 * most 2^(bits-1) - 1, or 2^(bits-1) after '-', and is stored as two's complement.
 */
static ffu_status limb_parse(const ffu_field *f, void *out, const char *s, size_t len, const char **why)
{
	len = strnlen(s, len);
	if (!f->is_signed)
		return limb_parse_digits(f, out, s, len, why);
	bool neg = len > 0 && s[0] == '-';
	uint64_t v;
	unsigned char mag[8];
	ffu_status st = limb_parse_digits(f, mag, s + neg, len - neg, why); /* its range message is f's */
	if (st != FFU_STATUS_OK)
		return st;
	v = ffu__fp_get_u64(f, mag);
	uint64_t half = UINT64_C(1) << (f->bits - 1);
	if (v > half || (v == half && !neg)) {
		if (why)
			*why = int_range_why(f);
		return FFU_STATUS_EPARSE;
	}
	ffu__fp_set_u64(f, out, neg ? (uint64_t)0 - v : v);
	return FFU_STATUS_OK;
}

static ffu_status limb_parse_digits(const ffu_field *f, void *out, const char *s, size_t len, const char **why)
{
	static const char *const not_number = "not a number";
	unsigned base = 10;
	if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		len -= 2;
	}
	if (len == 0) {
		if (why)
			*why = not_number;
		return FFU_STATUS_EPARSE;
	}
	for (size_t i = 0; i < len; i++) {
		int d = hex_digit((unsigned char)s[i]);
		if (d < 0 || (unsigned)d >= base) {
			if (why)
				*why = not_number;
			return FFU_STATUS_EPARSE;
		}
	}

	/*
	 * x < p before each step, so x * base + d < 2^(64n + 4) fits n + 1 limbs; once x >= p
	 * it stays >= p whatever digits follow, so we stop there and any length is safe.
	 */
	int n = f->nlimbs;
	uint64_t x[MAXL + 1] = {0};
	for (size_t i = 0; i < len; i++) {
		uint64_t c = (uint64_t)hex_digit((unsigned char)s[i]);
		for (int j = 0; j <= n; j++) {
			unsigned __int128 v = (unsigned __int128)x[j] * base + c;
			x[j] = (uint64_t)v;
			c = (uint64_t)(v >> 64);
		}
		if (x[n] != 0 || cmp_n(x, f->p, n) >= 0) {
			if (why)
				*why = f->kind == FFU_ELEM_PRED ? "a pred is 0 or 1"
				       : f->kind != FFU_ELEM_UINT ? "value is not less than the field modulus"
				       : f->id > FFU_FIELD_PRED ? int_range_why(f)
				       : f->storage_bytes == 4 ? "value does not fit u32" : "value does not fit u64";
			return FFU_STATUS_EPARSE;
		}
	}
	store(f, out, x);
	return FFU_STATUS_OK;
}

static char *limb_format(const ffu_field *f, char *buf, const void *a, bool literal)
{
	/* Repeated division by 10^19 (the largest power of ten below 2^64), low chunk first. */
	static const uint64_t chunk = 10000000000000000000ull;
	(void)literal; /* one number either way */
	if (f->is_signed) { /* two's complement: at most 20 characters */
		snprintf(buf, FFU_FIELD_TEXT_MAX, "%lld", (long long)ffu__fp_get_i64(f, a));
		return buf;
	}
	int n = f->nlimbs;
	uint64_t x[MAXL];
	load(f, x, a);
	char tmp[FFU_FIELD_TEXT_MAX];
	int pos = (int)sizeof tmp;
	tmp[--pos] = '\0';
	do {
		unsigned __int128 rem = 0;
		for (int i = n - 1; i >= 0; i--) {
			unsigned __int128 cur = (rem << 64) | x[i];
			x[i] = (uint64_t)(cur / chunk);
			rem = cur % chunk;
		}
		uint64_t r = (uint64_t)rem;
		bool last = is_zero_n(x, n);
		for (int k = 0; k < 19 && pos > 0; k++) {
			tmp[--pos] = (char)('0' + r % 10);
			r /= 10;
			if (last && r == 0)
				break;
		}
	} while (!is_zero_n(x, n) && pos > 0);
	memcpy(buf, tmp + pos, sizeof tmp - (size_t)pos);
	return buf;
}

const ffu_field_ops ffu__limb_ops = {
	.add = limb_add,
	.sub = limb_sub,
	.mul = limb_mul,
	.neg = limb_neg,
	.sqr = limb_sqr,
	.to_dev_mont = limb_to_dev_mont,
	.from_dev_mont = limb_from_dev_mont,
	.is_zero = limb_is_zero,
	.set_u64 = limb_set_u64,
	.canonical = limb_canonical,
	.convert = limb_convert,
	.pow = limb_pow,
	.inv = limb_inv,
	.random = limb_random,
	.parse = limb_parse,
	.format = limb_format,
};
