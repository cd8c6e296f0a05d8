/*
 * tests/test_field_device.c: the OpenCL field templates (cl/mont31.cl, cl/m31.cl,
 * cl/goldilocks.cl, the multi-word cl/montn.cl and its 64-bit-limb variant cl/montn_64.cl
 * with cl/montn_full.cl for the moduli >= 2^255, and the extensions' cl/ext2.cl, cl/ext4.cl,
 * as emitted by src/codegen/field_cl.c) against GMP, on both OpenCL implementations every
 * device test must pass on (PoCL and Rusticl). Owned by the fields engineer.
 *
 * One program per device holds every field of the table, prime and extension (so the
 * instantiations must coexist: the template's #undefs are tested too) and one kernel per
 * op for each field the test checks (field_set). Inputs:
 * the cross product of edge values plus random pairs, filled up to whole work-groups
 * (launch_count). A missing device fails, never skips. Criterion forks per test, so
 * each test creates its own OpenCL objects.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <gmp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codegen/field_cl.h"
#include "field.h"
#include "runtime/cl.h"
#include "support.h"
#include "util/strbuf.h"

/*
 * Random pairs per field and op, on top of the edge cross product, which is where the carry
 * and reduction faults that few inputs trigger live. A fault that fires on one random input
 * in 1000 escapes 10^4 pairs with probability e^-10; the deep run (tools/test.sh --full,
 * which CI runs) takes 10^5 for rarer ones.
 */
#define RANDOM_PAIRS ffu_test_count(10000, 100000)
/* The vector-load variants only change loads and stores: fewer pairs suffice there. */
#define RANDOM_PAIRS_VECTOR_LOADS ffu_test_count(3000, 3000)

/*
 * The element count of a launch: at least `want`, rounded up to whole work-groups of 256
 * (every device profile's size). PoCL compiles a kernel once per local size, and a tail
 * launched in groups of one would double every kernel's compile for no coverage: the
 * tails are tested by the launch tests (test_cl, test_caps) and by every pipeline length.
 */
static size_t launch_count(size_t want)
{
	return (want + 255) / 256 * 256;
}

/*
 * Device ops under test; expected value of each on (a, b) with the template's radix
 * R = 2^dev_radix_bits (R = 1 for the canonical templates, m31 and goldilocks).
 */
enum op {
	OP_ADD,   /* a + b */
	OP_SUB,   /* a - b */
	OP_NEG,   /* -a */
	OP_MUL,   /* a * b / R (raw Montgomery product) */
	OP_MULM,  /* from_mont(mul(to_mont(a), to_mont(b))) = a * b */
	OP_MIXED, /* mul(to_mont(a), b) = a * b */
	OP_MULC,  /* mulc(a, b) = a * b (Barrett for the 31-bit Montgomery fields) */
	OP_SQR,   /* a * a / R */
	OP_TOM,   /* a * R */
	OP_FROMM, /* a / R */
	OP_ADDC,  /* a + c, c an inlined constant from ffu__cl_emit_const */
	OP_EQ,    /* eq(a, b) | eq(a, a) << 1 | eq(b, b) << 2, one uint per element */
	OP_COUNT
};
static const char *const op_names[OP_COUNT] = {"add", "sub",  "neg",     "mul",  "mulm", "mixed",
					       "mulc", "sqr", "tomont", "frommont", "addc", "eq"};

/* Kernels for one field F, written against the template API the code generator uses. */
static const char kernels[] =
	"#define K2(F, NAME, EXPR) __kernel void F##_k_##NAME(__global const uint *a, "
	"__global const uint *b, __global uint *out, uint n) { size_t i = get_global_id(0); "
	"if (i >= n) return; F##_t x = F##_load(a, i); F##_t y = F##_load(b, i); "
	"F##_store(out, i, EXPR); }\n"
	"#define TEST_KERNELS(F, C) \\\n"
	" K2(F, add, F##_add(x, y)) \\\n"
	" K2(F, sub, F##_sub(x, y)) \\\n"
	" K2(F, neg, F##_neg(x)) \\\n"
	" K2(F, mul, F##_mul(x, y)) \\\n"
	" K2(F, mulm, F##_from_mont(F##_mul(F##_to_mont(x), F##_to_mont(y)))) \\\n"
	" K2(F, mixed, F##_mul(F##_to_mont(x), y)) \\\n"
	" K2(F, mulc, F##_mulc(x, y)) \\\n"
	" K2(F, sqr, F##_sqr(x)) \\\n"
	" K2(F, tomont, F##_to_mont(x)) \\\n"
	" K2(F, frommont, F##_from_mont(x)) \\\n"
	" K2(F, addc, F##_add(x, C)) \\\n"
	" __kernel void F##_k_eq(__global const uint *a, __global const uint *b, "
	"__global uint *out, uint n) { size_t i = get_global_id(0); if (i >= n) return; "
	"F##_t x = F##_load(a, i); F##_t y = F##_load(b, i); "
	"out[i] = (uint)F##_eq(x, y) | (uint)F##_eq(x, x) << 1 | (uint)F##_eq(y, y) << 2; }\n";

static void to_mpz(const ffu_field *f, mpz_t z, const void *bytes)
{
	mpz_import(z, f->storage_bytes, -1, 1, 0, 0, bytes);
}

static void from_mpz(const ffu_field *f, void *bytes, const mpz_t z)
{
	memset(bytes, 0, f->storage_bytes);
	mpz_export(bytes, NULL, -1, 1, 0, 0, z);
}

/* The constant each field's addc kernel adds: p - 12345, so the add wraps for most a. */
static void addc_constant(const ffu_field *f, mpz_t c)
{
	mpz_set_str(c, f->modulus_hex, 16);
	mpz_sub_ui(c, c, 12345);
}

/* Room for the edge values of the widest field (81 for the 48-byte ones). */
#define EDGE_CAP 96

/* Edge values: small, near p, (p +- 1)/2, 2^k and 2^k +- 1 mod p at word seams. */
static int edge_values(const ffu_field *f, mpz_t *out, int cap)
{
	mpz_t p, t;
	mpz_inits(p, t, NULL);
	mpz_set_str(p, f->modulus_hex, 16);
	int n = 0;
	for (unsigned long v = 0; v < 4; v++)
		mpz_set_ui(out[n++], v);
	for (unsigned long d = 1; d <= 3; d++)
		mpz_sub_ui(out[n++], p, d);
	mpz_sub_ui(t, p, 1);
	mpz_fdiv_q_2exp(out[n++], t, 1);
	mpz_add_ui(t, p, 1);
	mpz_fdiv_q_2exp(out[n++], t, 1);
	const int ks[] = {16,  27,  30,  31,  32,  63,  64,  96,  128, 160, 192, 224,
			  253, 254, 255, 256, 288, 320, 352, 380, 381, 383, 384, 512};
	for (size_t i = 0; i < sizeof ks / sizeof ks[0] && n + 3 <= cap; i++) {
		if (ks[i] > 16 * (int)f->storage_bytes)
			continue;
		for (int d = -1; d <= 1; d++) {
			mpz_set_ui(t, 1);
			mpz_mul_2exp(t, t, (mp_bitcnt_t)ks[i]);
			if (d < 0)
				mpz_sub_ui(t, t, 1);
			else if (d > 0)
				mpz_add_ui(t, t, 1);
			mpz_mod(out[n++], t, p);
		}
	}
	mpz_clears(p, t, NULL);
	return n;
}

/* GMP constants of one field, computed once: expect() runs for every element. */
typedef struct gmp_field {
	mpz_t p, r, rinv, c, x;
} gmp_field;

static void gmp_field_init(gmp_field *g, const ffu_field *f)
{
	mpz_inits(g->p, g->r, g->rinv, g->c, g->x, NULL);
	mpz_set_str(g->p, f->modulus_hex, 16);
	mpz_set_ui(g->r, 1);
	mpz_mul_2exp(g->r, g->r, (mp_bitcnt_t)f->dev_radix_bits);
	mpz_invert(g->rinv, g->r, g->p);
	addc_constant(f, g->c);
}

static void gmp_field_clear(gmp_field *g)
{
	mpz_clears(g->p, g->r, g->rinv, g->c, g->x, NULL);
}

/* Expected result of op on element (a, b), as a uint-word image of out[i]. */
static void expect(const ffu_field *f, gmp_field *g, enum op op, unsigned char *want, const mpz_t a,
		   const mpz_t b)
{
	mpz_ptr x = g->x;
	switch (op) {
	case OP_ADD: mpz_add(x, a, b); break;
	case OP_SUB: mpz_sub(x, a, b); break;
	case OP_NEG: mpz_neg(x, a); break;
	case OP_MUL: mpz_mul(x, a, b); mpz_mul(x, x, g->rinv); break;
	case OP_MULM: mpz_mul(x, a, b); break;
	case OP_MIXED: mpz_mul(x, a, b); break;
	case OP_MULC: mpz_mul(x, a, b); break;
	case OP_SQR: mpz_mul(x, a, a); mpz_mul(x, x, g->rinv); break;
	case OP_TOM: mpz_mul(x, a, g->r); break;
	case OP_FROMM: mpz_mul(x, a, g->rinv); break;
	case OP_ADDC: mpz_add(x, a, g->c); break;
	case OP_EQ: mpz_set_ui(x, (mpz_cmp(a, b) == 0) | 2u | 4u); break;
	default: break;
	}
	if (op != OP_EQ)
		mpz_mod(x, x, g->p);
	memset(want, 0, f->storage_bytes);
	mpz_export(want, NULL, -1, 1, 0, 0, x);
}

static char *hex_of(const ffu_field *f, const unsigned char *bytes, char *buf)
{
	mpz_t z;
	mpz_init(z);
	to_mpz(f, z, bytes);
	gmp_sprintf(buf, "0x%Zx", z);
	mpz_clear(z);
	return buf;
}

/* ---- extension fields: cl/ext2.cl and cl/ext4.cl against GMP polynomial arithmetic ---- */

/*
 * Device ops under test for an extension; R = 2^dev_radix_bits of the prime field applies
 * coefficient-wise (the raw products are the extension product divided by R). e is a
 * per-element u64 from the host (exponents, integers to convert).
 */
enum xop {
	XOP_ADD,      /* x + y */
	XOP_SUB,      /* x - y */
	XOP_NEG,      /* -x */
	XOP_MUL,      /* x * y / R (raw) */
	XOP_MULM,     /* from_mont(mul(to_mont(x), to_mont(y))) = x * y */
	XOP_MIXED,    /* mul(to_mont(x), y) = x * y */
	XOP_MIXED2,   /* mul(x, to_mont(y)) = x * y */
	XOP_SQR,      /* x^2 / R (raw) */
	XOP_SQRM,     /* from_mont(sqr(to_mont(x))) = x^2 */
	XOP_TOM,      /* x * R */
	XOP_FROMM,    /* x / R */
	XOP_ADDC,     /* x + C, C inlined by ffu__cl_emit_const */
	XOP_INV,      /* from_mont(inv(to_mont(x))): x * out = 1, inv(0) = 0 */
	XOP_DIV,      /* mul(x, inv(to_mont(y))) (codegen's divide): out * y = x, x / 0 = 0 */
	XOP_POW32,    /* from_mont(pow_u32(to_mont(x), (uint)e)) = x^(e mod 2^32) */
	XOP_POW64,    /* from_mont(pow_u64(to_mont(x), e)) = x^e */
	XOP_ONE,      /* from_mont(one_m()) = 1 */
	XOP_FROMU32,  /* from_u32((uint)e) = (e mod 2^32) mod p, constant coefficient */
	XOP_FROMU64,  /* from_u64(e) = e mod p */
	XOP_FROMBASE, /* from_base(x.c0) = x0 (canonical form in, canonical out) */
	XOP_FROMBASEM, /* from_mont(from_base(<prime>_to_mont(x.c0))) = x0 (Montgomery in and out) */
	XOP_EQ,       /* eq(x, y) | eq(x, x) << 1 | eq(y, y) << 2, one uint per element */
	XOP_COUNT
};
static const char *const xop_names[XOP_COUNT] = {
	"add", "sub", "neg", "mul", "mulm", "mixed", "mixed2", "sqr", "sqrm", "tomont", "frommont",
	"addc", "inv", "div", "pow32", "pow64", "one", "fromu32", "fromu64", "frombase", "frombasem",
	"eq"};

/* Kernels for extension F over prime field B, against the template API codegen uses. */
static const char ext_kernels[] =
	"#define XK(F, NAME, EXPR) __kernel void F##_x_##NAME(__global const uint *a, "
	"__global const uint *b, __global const ulong *e, __global uint *out, uint n) { "
	"size_t i = get_global_id(0); if (i >= n) return; F##_t x = F##_load(a, i); "
	"F##_t y = F##_load(b, i); ulong ev = e[i]; (void)ev; (void)y; F##_store(out, i, EXPR); }\n"
	"#define EXT_KERNELS(F, B, C) \\\n"
	" XK(F, add, F##_add(x, y)) \\\n"
	" XK(F, sub, F##_sub(x, y)) \\\n"
	" XK(F, neg, F##_neg(x)) \\\n"
	" XK(F, mul, F##_mul(x, y)) \\\n"
	" XK(F, mulm, F##_from_mont(F##_mul(F##_to_mont(x), F##_to_mont(y)))) \\\n"
	" XK(F, mixed, F##_mul(F##_to_mont(x), y)) \\\n"
	" XK(F, mixed2, F##_mul(x, F##_to_mont(y))) \\\n"
	" XK(F, sqr, F##_sqr(x)) \\\n"
	" XK(F, sqrm, F##_from_mont(F##_sqr(F##_to_mont(x)))) \\\n"
	" XK(F, tomont, F##_to_mont(x)) \\\n"
	" XK(F, frommont, F##_from_mont(x)) \\\n"
	" XK(F, addc, F##_add(x, C)) \\\n"
	" XK(F, inv, F##_from_mont(F##_inv(F##_to_mont(x)))) \\\n"
	" XK(F, div, F##_mul(x, F##_inv(F##_to_mont(y)))) \\\n"
	" XK(F, pow32, F##_from_mont(F##_pow_u32(F##_to_mont(x), (uint)ev))) \\\n"
	" XK(F, pow64, F##_from_mont(F##_pow_u64(F##_to_mont(x), ev))) \\\n"
	" XK(F, one, F##_from_mont(F##_one_m())) \\\n"
	" XK(F, fromu32, F##_from_u32((uint)ev)) \\\n"
	" XK(F, fromu64, F##_from_u64(ev)) \\\n"
	" XK(F, frombase, F##_from_base(x.c0)) \\\n"
	" XK(F, frombasem, F##_from_mont(F##_from_base(B##_to_mont(x.c0)))) \\\n"
	" __kernel void F##_x_eq(__global const uint *a, __global const uint *b, "
	"__global const ulong *e, __global uint *out, uint n) { size_t i = get_global_id(0); "
	"if (i >= n) return; F##_t x = F##_load(a, i); F##_t y = F##_load(b, i); "
	"out[i] = (uint)F##_eq(x, y) | (uint)F##_eq(x, x) << 1 | (uint)F##_eq(y, y) << 2; }\n";

/* The constant of an extension's addc kernel: (p - 12345, 7, p - 1, 12345) (first d). */
static void ext_addc_constant(const ffu_field *x, unsigned char *out)
{
	const ffu_field *p = x->prime;
	mpz_t m, t;
	mpz_inits(m, t, NULL);
	mpz_set_str(m, p->modulus_hex, 16);
	memset(out, 0, FFU_FIELD_MAX_BYTES);
	for (int k = 0; k < x->degree; k++) {
		switch (k) {
		case 0: mpz_sub_ui(t, m, 12345); break;
		case 1: mpz_set_ui(t, 7); break;
		case 2: mpz_sub_ui(t, m, 1); break;
		default: mpz_set_ui(t, 12345); break;
		}
		from_mpz(p, out + k * p->storage_bytes, t);
	}
	mpz_clears(m, t, NULL);
}

/*
 * Edge elements: every coefficient one of 0, 1, 2, p-1, p-2, (p-1)/2, (p+1)/2, W; a single
 * such coefficient at each position (1, u, u^2, ..., (p-1) u^k); coefficients cycling
 * through those values.
 */
static int ext_edges(const ffu_field *x, unsigned char (*out)[FFU_FIELD_MAX_BYTES], int cap)
{
	const ffu_field *p = x->prime;
	size_t cbytes = p->storage_bytes;
	mpz_t v[8], pm;
	mpz_init(pm);
	mpz_set_str(pm, p->modulus_hex, 16);
	for (int i = 0; i < 8; i++)
		mpz_init(v[i]);
	mpz_set_ui(v[0], 0);
	mpz_set_ui(v[1], 1);
	mpz_sub_ui(v[2], pm, 1);
	mpz_sub_ui(v[3], pm, 2);
	mpz_sub_ui(v[4], pm, 1);
	mpz_fdiv_q_2exp(v[4], v[4], 1);
	mpz_add_ui(v[5], pm, 1);
	mpz_fdiv_q_2exp(v[5], v[5], 1);
	mpz_set_ui(v[6], 2);
	mpz_set_si(v[7], (long)x->nonresidue);
	mpz_mod(v[7], v[7], pm);
	int n = 0;
	for (int i = 0; i < 8 && n < cap; i++, n++) {
		memset(out[n], 0, FFU_FIELD_MAX_BYTES);
		for (int k = 0; k < x->degree; k++)
			from_mpz(p, out[n] + k * cbytes, v[i]);
	}
	for (int i = 1; i < 8; i++)
		for (int k = 0; k < x->degree && n < cap; k++, n++) {
			memset(out[n], 0, FFU_FIELD_MAX_BYTES);
			from_mpz(p, out[n] + k * cbytes, v[i]);
		}
	for (int s = 0; s < 8 && n < cap; s++, n++) {
		memset(out[n], 0, FFU_FIELD_MAX_BYTES);
		for (int k = 0; k < x->degree; k++)
			from_mpz(p, out[n] + k * cbytes, v[(s + 3 * k) % 8]);
	}
	for (int i = 0; i < 8; i++)
		mpz_clear(v[i]);
	mpz_clear(pm);
	return n;
}

/* Exponent / integer edge values: 0, 1, 2, 3, 2^32 - 1, 2^32, 2^64 - 1, p - 1, p, p + 1, 2p. */
static uint64_t ext_edge_e(const ffu_field *x, size_t k)
{
	uint64_t p = x->prime->p[0];
	const uint64_t v[] = {0, 1, 2, 3, 0xffffffffull, 0x100000000ull, ~0ull, p - 1, p, p + 1, 2 * p};
	return v[k % (sizeof v / sizeof v[0])];
}

/* GMP's view of the extension: polynomials in u mod (u^d - W), coefficients mod p. */
typedef struct gmp_ext {
	const ffu_field *x, *p;
	int d;
	mpz_t mod, w, r, rinv, t[2 * FFU_FIELD_MAX_DEGREE - 1];
	mpz_t a[FFU_FIELD_MAX_DEGREE], b[FFU_FIELD_MAX_DEGREE], o[FFU_FIELD_MAX_DEGREE];
	mpz_t acc[FFU_FIELD_MAX_DEGREE], base[FFU_FIELD_MAX_DEGREE], c[FFU_FIELD_MAX_DEGREE];
} gmp_ext;

static void gmp_ext_init(gmp_ext *g, const ffu_field *x)
{
	g->x = x;
	g->p = x->prime;
	g->d = x->degree;
	mpz_inits(g->mod, g->w, g->r, g->rinv, NULL);
	mpz_set_str(g->mod, x->modulus_hex, 16);
	mpz_set_si(g->w, (long)x->nonresidue);
	mpz_set_ui(g->r, 1);
	mpz_mul_2exp(g->r, g->r, (mp_bitcnt_t)x->dev_radix_bits);
	mpz_invert(g->rinv, g->r, g->mod);
	for (int k = 0; k < 2 * FFU_FIELD_MAX_DEGREE - 1; k++)
		mpz_init(g->t[k]);
	for (int k = 0; k < FFU_FIELD_MAX_DEGREE; k++)
		mpz_inits(g->a[k], g->b[k], g->o[k], g->acc[k], g->base[k], g->c[k], NULL);
	unsigned char cbytes[FFU_FIELD_MAX_BYTES];
	ext_addc_constant(x, cbytes);
	for (int k = 0; k < g->d; k++)
		to_mpz(g->p, g->c[k], cbytes + k * g->p->storage_bytes);
}

static void gmp_ext_clear(gmp_ext *g)
{
	mpz_clears(g->mod, g->w, g->r, g->rinv, NULL);
	for (int k = 0; k < 2 * FFU_FIELD_MAX_DEGREE - 1; k++)
		mpz_clear(g->t[k]);
	for (int k = 0; k < FFU_FIELD_MAX_DEGREE; k++)
		mpz_clears(g->a[k], g->b[k], g->o[k], g->acc[k], g->base[k], g->c[k], NULL);
}

static void gx_get(gmp_ext *g, mpz_t *c, const unsigned char *bytes)
{
	for (int k = 0; k < g->d; k++)
		to_mpz(g->p, c[k], bytes + (size_t)k * g->p->storage_bytes);
}

/* r = a * b mod (u^d - W, p); r may alias a or b */
static void gx_mul(gmp_ext *g, mpz_t *r, mpz_t *a, mpz_t *b)
{
	int d = g->d;
	for (int k = 0; k < 2 * d - 1; k++)
		mpz_set_ui(g->t[k], 0);
	for (int i = 0; i < d; i++)
		for (int j = 0; j < d; j++)
			mpz_addmul(g->t[i + j], a[i], b[j]);
	for (int k = 2 * d - 2; k >= d; k--)
		mpz_addmul(g->t[k - d], g->t[k], g->w);
	for (int k = 0; k < d; k++)
		mpz_mod(r[k], g->t[k], g->mod);
}

static void gx_pow(gmp_ext *g, mpz_t *r, mpz_t *a, uint64_t e)
{
	for (int k = 0; k < g->d; k++) {
		mpz_set_ui(g->acc[k], k == 0);
		mpz_set(g->base[k], a[k]);
	}
	for (; e; e >>= 1) {
		if (e & 1)
			gx_mul(g, g->acc, g->acc, g->base);
		if (e > 1)
			gx_mul(g, g->base, g->base, g->base);
	}
	for (int k = 0; k < g->d; k++)
		mpz_set(r[k], g->acc[k]);
}

static bool gx_is_zero(const gmp_ext *g, mpz_t *c)
{
	for (int k = 0; k < g->d; k++)
		if (mpz_sgn(c[k]))
			return false;
	return true;
}

/* Is o (the device's output for element (a, b, e)) right? */
static bool ext_ok(gmp_ext *g, enum xop op, const unsigned char *a, const unsigned char *b, uint64_t e,
		   const unsigned char *o)
{
	int d = g->d;
	mpz_t *za = g->a, *zb = g->b, *zo = g->o;
	if (op == XOP_EQ) {
		uint32_t got;
		memcpy(&got, o, 4);
		return got == ((memcmp(a, b, g->x->storage_bytes) == 0) | 2u | 4u);
	}
	gx_get(g, za, a);
	gx_get(g, zb, b);
	/* every output coefficient must be canonical */
	gx_get(g, zo, o);
	for (int k = 0; k < d; k++)
		if (mpz_cmp(zo[k], g->mod) >= 0)
			return false;
	mpz_t *w = g->acc; /* the expected value */
	switch (op) {
	case XOP_ADD:
		for (int k = 0; k < d; k++)
			mpz_add(w[k], za[k], zb[k]);
		break;
	case XOP_SUB:
		for (int k = 0; k < d; k++)
			mpz_sub(w[k], za[k], zb[k]);
		break;
	case XOP_NEG:
		for (int k = 0; k < d; k++)
			mpz_neg(w[k], za[k]);
		break;
	case XOP_MUL:
	case XOP_SQR:
		gx_mul(g, w, za, op == XOP_MUL ? zb : za);
		for (int k = 0; k < d; k++)
			mpz_mul(w[k], w[k], g->rinv);
		break;
	case XOP_MULM:
	case XOP_MIXED:
	case XOP_MIXED2:
		gx_mul(g, w, za, zb);
		break;
	case XOP_SQRM:
		gx_mul(g, w, za, za);
		break;
	case XOP_TOM:
	case XOP_FROMM:
		for (int k = 0; k < d; k++)
			mpz_mul(w[k], za[k], op == XOP_TOM ? g->r : g->rinv);
		break;
	case XOP_ADDC:
		for (int k = 0; k < d; k++)
			mpz_add(w[k], za[k], g->c[k]);
		break;
	case XOP_INV:
		/* 0 for a = 0, else the one solution of a * o = 1 */
		if (gx_is_zero(g, za))
			return gx_is_zero(g, zo);
		gx_mul(g, w, za, zo);
		for (int k = 0; k < d; k++)
			mpz_set_ui(za[k], k == 0);
		break;
	case XOP_DIV:
		if (gx_is_zero(g, zb))
			return gx_is_zero(g, zo);
		gx_mul(g, w, zb, zo); /* o * b must be a: compare w with za below */
		for (int k = 0; k < d; k++)
			if (mpz_cmp(w[k], za[k]) != 0)
				return false;
		return true;
	case XOP_POW32:
	case XOP_POW64:
		gx_pow(g, w, za, op == XOP_POW32 ? (uint32_t)e : e);
		break;
	case XOP_ONE:
		for (int k = 0; k < d; k++)
			mpz_set_ui(w[k], k == 0);
		break;
	case XOP_FROMU32:
	case XOP_FROMU64: {
		uint64_t v = op == XOP_FROMU32 ? (uint32_t)e : e;
		mpz_import(w[0], 1, -1, sizeof v, 0, 0, &v);
		for (int k = 1; k < d; k++)
			mpz_set_ui(w[k], 0);
		break;
	}
	case XOP_FROMBASE:
	case XOP_FROMBASEM:
		mpz_set(w[0], za[0]);
		for (int k = 1; k < d; k++)
			mpz_set_ui(w[k], 0);
		break;
	default:
		return false;
	}
	if (op == XOP_INV) { /* w = a * o, must be 1 (za now holds 1) */
		for (int k = 0; k < d; k++)
			if (mpz_cmp(w[k], za[k]) != 0)
				return false;
		return true;
	}
	for (int k = 0; k < d; k++) {
		mpz_mod(w[k], w[k], g->mod);
		if (mpz_cmp(w[k], zo[k]) != 0)
			return false;
	}
	return true;
}

/* Runs every extension kernel of x on edge pairs plus random pairs and checks with GMP. */
static void check_ext(ffu_cl *cl, cl_program prog, const char *selector, const char *options,
		      const ffu_field *x, size_t random_pairs)
{
	ffu_error e = {0};
	size_t sbytes = x->storage_bytes;
	cr_assert_eq(ffu__cl_words(x) * 4, sbytes);
	unsigned char edges[64][FFU_FIELD_MAX_BYTES];
	int ne = ext_edges(x, edges, 64);
	size_t n = launch_count((size_t)ne * (size_t)ne + random_pairs);
	unsigned char *a = calloc(n, sbytes), *b = calloc(n, sbytes), *out = calloc(n, sbytes);
	uint64_t *ev = calloc(n, sizeof *ev);
	cr_assert(a && b && out && ev);
	size_t k = 0;
	for (int i = 0; i < ne; i++)
		for (int j = 0; j < ne; j++, k++) {
			memcpy(a + k * sbytes, edges[i], sbytes);
			memcpy(b + k * sbytes, edges[j], sbytes);
			ev[k] = ext_edge_e(x, k);
		}
	uint64_t state = 0xe47 + (uint64_t)x->id;
	for (; k < n; k++) {
		ffu__fp_random(x, a + k * sbytes, &state);
		if (k % 97 == 0)
			memcpy(b + k * sbytes, a + k * sbytes, sbytes);
		else
			ffu__fp_random(x, b + k * sbytes, &state);
		/* exponents and integers of every bit length */
		ev[k] = ffu__rand_next(&state) >> (ffu__rand_next(&state) % 64);
	}

	cl_mem da = NULL, db = NULL, de = NULL, dout = NULL;
	cr_assert_eq(ffu__cl_buffer(cl, &da, n * sbytes, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu__cl_buffer(cl, &db, n * sbytes, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu__cl_buffer(cl, &de, n * sizeof *ev, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu__cl_buffer(cl, &dout, n * sbytes, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu__cl_write(cl, da, a, n * sbytes, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu__cl_write(cl, db, b, n * sbytes, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu__cl_write(cl, de, ev, n * sizeof *ev, &e), FFU_STATUS_OK, "%s", e.message);

	gmp_ext g;
	gmp_ext_init(&g, x);
	for (int op = 0; op < XOP_COUNT; op++) {
		char name[128];
		snprintf(name, sizeof name, "%s_x_%s", x->name, xop_names[op]);
		cl_kernel kern = NULL;
		cr_assert_eq(ffu__cl_kernel(prog, &kern, name, &e), FFU_STATUS_OK, "%s", e.message);
		cl_uint nn = (cl_uint)n;
		cr_assert_eq(ffu__cl_set_arg(kern, 0, sizeof da, &da, &e), FFU_STATUS_OK);
		cr_assert_eq(ffu__cl_set_arg(kern, 1, sizeof db, &db, &e), FFU_STATUS_OK);
		cr_assert_eq(ffu__cl_set_arg(kern, 2, sizeof de, &de, &e), FFU_STATUS_OK);
		cr_assert_eq(ffu__cl_set_arg(kern, 3, sizeof dout, &dout, &e), FFU_STATUS_OK);
		cr_assert_eq(ffu__cl_set_arg(kern, 4, sizeof nn, &nn, &e), FFU_STATUS_OK);
		memset(out, 0xa5, n * sbytes);
		cr_assert_eq(ffu__cl_write(cl, dout, out, n * sbytes, &e), FFU_STATUS_OK);
		cr_assert_eq(ffu__cl_launch(cl, kern, n, 0, NULL, &e), FFU_STATUS_OK, "%s: %s", name,
			     e.message);
		cr_assert_eq(ffu__cl_read(cl, dout, out, n * sbytes, &e), FFU_STATUS_OK, "%s", e.message);
		ffu__cl_kernel_release(&kern);

		size_t osz = op == XOP_EQ ? 4 : sbytes, bad = 0;
		for (k = 0; k < n; k++) {
			if (ext_ok(&g, (enum xop)op, a + k * sbytes, b + k * sbytes, ev[k], out + k * osz))
				continue;
			if (bad++ < 5) {
				char h[3][FFU_FIELD_TEXT_MAX];
				cr_log_error("%s %s %s[%zu](%s, %s, e=%llu) = %s", selector, x->name,
					     xop_names[op], k, ffu__fp_format_literal(x, h[0], a + k * sbytes),
					     ffu__fp_format_literal(x, h[1], b + k * sbytes),
					     (unsigned long long)ev[k],
					     op == XOP_EQ ? "(eq bits)" : ffu__fp_format_literal(x, h[2], out + k * osz));
			}
		}
		cr_expect_eq(bad, 0, "%s%s%s: %s %s: %zu of %zu elements differ from GMP", selector,
			     options ? " " : "", options ? options : "", x->name, xop_names[op], bad, n);
	}
	gmp_ext_clear(&g);
	ffu__cl_buffer_release(&da);
	ffu__cl_buffer_release(&db);
	ffu__cl_buffer_release(&de);
	ffu__cl_buffer_release(&dout);
	free(a);
	free(b);
	free(out);
	free(ev);
	ffu_error_clear(&e);
}

/*
 * Which fields a run checks. Its program still instantiates every template (so the
 * instantiations must coexist and every template must build with the run's options); only
 * the test kernels, which are most of a cold build's time, are limited to these fields.
 *   BASE_FIELDS   every field but the multi-word Montgomery ones (cl/montn*.cl: the 256-
 *                 and 381-bit primes and the Fq2 over them) beyond one per path: bn254_sf
 *                 (8 words, p < 2^255), secp256k1_sf (p >= 2^255, cl/montn_full.cl) and
 *                 bls12_381_bf (12 words). For runs whose options do not change that
 *                 arithmetic (loads and stores, the extensions' containers); the Fq2 are
 *                 cl/ext2.cl on their prime's API, whose loads and stores these cover.
 *   MONTN         every multi-word Montgomery field and extension but bls12_381_bfx2
 *                 (below): runs that change its arithmetic
 *   MONTN_PATHS   the paths above: a multi-word variant's loads and stores
 *   MONTN_ALT     the alternative arithmetic (64-bit limbs, carry chains): the paths and
 *                 ZKX's bls12_381_sf. The other fields run the same template code with
 *                 other constants, which MONTN checks for every field; a cold PoCL build
 *                 of the emulated carry chains costs about 20 s of compile per 256-bit
 *                 field and minutes for the Fq2, which put one such test past its 600 s
 *                 (and the suite past meson's 2400 s) when the deep run took every field.
 *
 * The deep run (FFU_TEST_FULL) takes the same sets with ten times the random pairs: its
 * cost here is compile time, which the pairs do not add to.
 */
typedef enum { BASE_FIELDS, MONTN, MONTN_PATHS, MONTN_ALT } field_set;

static bool in_set(const ffu_field *f, field_set set)
{
	bool m256 = strcmp(f->prime->cl_template, "montn") == 0;
	bool path = f->id == FFU_FIELD_BN254_SF || f->id == FFU_FIELD_SECP256K1_SF || f->id == FFU_FIELD_BLS12_381_BF;
	switch (set) {
	case BASE_FIELDS:
		return !m256 || path;
	case MONTN:
		/* bls12_381_bfx2 is cl/ext2.cl over cl/montn.cl like bn254_bfx2, with 12 words
		   (bls12_381_bf's, checked here too): its 22 kernels cost PoCL about 5 minutes of
		   cold compile, past this test's budget; tests/programs.c's
		   inverse_divide_bls12_381_bfx2 checks it on both devices against the interpreter,
		   which test_fields checks against GMP */
		return m256 && f->id != FFU_FIELD_BLS12_381_BFX2;
	case MONTN_PATHS:
		return path;
	case MONTN_ALT:
		return path || f->id == FFU_FIELD_BLS12_381_SF;
	}
	return false;
}

/* The test program: every template, the per-op test kernels for the fields of `set`. */
static void program_source(ffu_strbuf *sb, field_set set)
{
	ffu__cl_emit_common(sb);
	bool used[FFU_ELEM_COUNT] = {0};
	for (int id = 0; id < FFU_ELEM_COUNT; id++)
		used[id] = true; /* _mont and integer ids must be harmless */
	ffu__cl_emit_fields(sb, used);
	ffu__sb_append(sb, kernels);
	ffu__sb_append(sb, ext_kernels);
	mpz_t c;
	mpz_init(c);
	for (int id = 0; id < FFU_FIELD_COUNT; id++) {
		const ffu_field *f = ffu__field_get((ffu_field_id)id);
		unsigned char cb[FFU_FIELD_MAX_BYTES];
		if (!in_set(f, set))
			continue;
		addc_constant(f, c);
		from_mpz(f, cb, c);
		ffu__sb_printf(sb, "TEST_KERNELS(%s, ", f->name);
		ffu__cl_emit_const(sb, f, cb);
		ffu__sb_append(sb, ")\n");
	}
	for (int i = 0; i < FFU_FIELD_EXT_COUNT; i++) {
		const ffu_field *x = ffu__field_get((ffu_field_id)(FFU_FIELD_EXT_FIRST + i));
		unsigned char cb[FFU_FIELD_MAX_BYTES];
		if (!in_set(x, set))
			continue;
		ext_addc_constant(x, cb);
		ffu__sb_printf(sb, "EXT_KERNELS(%s, %s, ", x->name, x->prime->name);
		ffu__cl_emit_const(sb, x, cb);
		ffu__sb_append(sb, ")\n");
	}
	mpz_clear(c);
}

/*
 * Builds the program (every template, the kernels of `set`) with build options `options`,
 * then checks every op of every field of `set` on `selector`.
 */
static void run_device_for(const char *selector, const char *options, size_t random_pairs, field_set set)
{
	ffu_error e = {0};
	ffu_device_info dev;
	ffu_status st = ffu__cl_select(&dev, selector, &e);
	cr_assert_eq(st, FFU_STATUS_OK, "device '%s' missing: %s", selector, e.message);
	ffu_cl cl = {0};
	st = ffu__cl_open(&cl, &dev, &e);
	cr_assert_eq(st, FFU_STATUS_OK, "open %s: %s", selector, e.message);

	ffu_strbuf sb = {0};
	program_source(&sb, set);
	cr_assert_eq(ffu__sb_status(&sb, &e), FFU_STATUS_OK);

	cl_program prog = NULL;
	st = ffu__cl_build(&cl, &prog, ffu__sb_cstr(&sb), options, &e);
	cr_assert_eq(st, FFU_STATUS_OK, "build on %s: %s\n%s", selector, e.message,
		     e.build_log ? e.build_log : "");

	for (int id = 0; id < FFU_FIELD_COUNT; id++) {
		const ffu_field *f = ffu__field_get((ffu_field_id)id);
		if (!in_set(f, set))
			continue;
		size_t sbytes = f->storage_bytes;
		cr_assert_eq(ffu__cl_words(f) * 4, sbytes);

		/* inputs: edge cross product, then random pairs */
		mpz_t edges[EDGE_CAP];
		for (int i = 0; i < EDGE_CAP; i++)
			mpz_init(edges[i]);
		int ne = edge_values(f, edges, EDGE_CAP);
		size_t n = launch_count((size_t)ne * (size_t)ne + random_pairs);
		unsigned char *a = calloc(n, sbytes), *b = calloc(n, sbytes);
		unsigned char *out = calloc(n, sbytes);
		cr_assert(a && b && out);
		size_t k = 0;
		for (int i = 0; i < ne; i++)
			for (int j = 0; j < ne; j++, k++) {
				from_mpz(f, a + k * sbytes, edges[i]);
				from_mpz(f, b + k * sbytes, edges[j]);
			}
		uint64_t state = 0xfeed + (uint64_t)id;
		for (; k < n; k++) {
			ffu__fp_random(f, a + k * sbytes, &state);
			/* some equal pairs for eq */
			if (k % 97 == 0)
				memcpy(b + k * sbytes, a + k * sbytes, sbytes);
			else
				ffu__fp_random(f, b + k * sbytes, &state);
		}
		for (int i = 0; i < EDGE_CAP; i++)
			mpz_clear(edges[i]);

		cl_mem da = NULL, db = NULL, dout = NULL;
		cr_assert_eq(ffu__cl_buffer(&cl, &da, n * sbytes, &e), FFU_STATUS_OK, "%s", e.message);
		cr_assert_eq(ffu__cl_buffer(&cl, &db, n * sbytes, &e), FFU_STATUS_OK, "%s", e.message);
		cr_assert_eq(ffu__cl_buffer(&cl, &dout, n * sbytes, &e), FFU_STATUS_OK, "%s", e.message);
		cr_assert_eq(ffu__cl_write(&cl, da, a, n * sbytes, &e), FFU_STATUS_OK, "%s", e.message);
		cr_assert_eq(ffu__cl_write(&cl, db, b, n * sbytes, &e), FFU_STATUS_OK, "%s", e.message);

		mpz_t za, zb;
		mpz_inits(za, zb, NULL);
		gmp_field gf;
		gmp_field_init(&gf, f);
		for (int op = 0; op < OP_COUNT; op++) {
			char name[128];
			snprintf(name, sizeof name, "%s_k_%s", f->name, op_names[op]);
			cl_kernel kern = NULL;
			cr_assert_eq(ffu__cl_kernel(prog, &kern, name, &e), FFU_STATUS_OK, "%s",
				     e.message);
			cl_uint nn = (cl_uint)n;
			cr_assert_eq(ffu__cl_set_arg(kern, 0, sizeof da, &da, &e), FFU_STATUS_OK);
			cr_assert_eq(ffu__cl_set_arg(kern, 1, sizeof db, &db, &e), FFU_STATUS_OK);
			cr_assert_eq(ffu__cl_set_arg(kern, 2, sizeof dout, &dout, &e), FFU_STATUS_OK);
			cr_assert_eq(ffu__cl_set_arg(kern, 3, sizeof nn, &nn, &e), FFU_STATUS_OK);
			memset(out, 0xa5, n * sbytes);
			cr_assert_eq(ffu__cl_write(&cl, dout, out, n * sbytes, &e), FFU_STATUS_OK);
			cr_assert_eq(ffu__cl_launch(&cl, kern, n, 0, NULL, &e), FFU_STATUS_OK, "%s: %s",
				     name, e.message);
			cr_assert_eq(ffu__cl_read(&cl, dout, out, n * sbytes, &e), FFU_STATUS_OK, "%s",
				     e.message);
			ffu__cl_kernel_release(&kern);

			size_t osz = op == OP_EQ ? 4 : sbytes;
			unsigned char want[FFU_FIELD_MAX_BYTES];
			size_t bad = 0;
			for (k = 0; k < n; k++) {
				to_mpz(f, za, a + k * sbytes);
				to_mpz(f, zb, b + k * sbytes);
				expect(f, &gf, (enum op)op, want, za, zb);
				if (memcmp(want, out + k * osz, osz) == 0)
					continue;
				if (bad++ < 5) {
					char h[4][160];
					cr_log_error("%s %s %s[%zu](%s, %s) = %s, GMP: %s", selector,
						     f->name, op_names[op], k,
						     hex_of(f, a + k * sbytes, h[0]),
						     hex_of(f, b + k * sbytes, h[1]),
						     op == OP_EQ ? "(eq bits)" : hex_of(f, out + k * osz, h[2]),
						     op == OP_EQ ? "(eq bits)" : hex_of(f, want, h[3]));
				}
			}
			cr_expect_eq(bad, 0, "%s%s%s: %s %s: %zu of %zu elements differ from GMP",
				     selector, options ? " " : "", options ? options : "", f->name,
				     op_names[op], bad, n);
		}
		mpz_clears(za, zb, NULL);
		gmp_field_clear(&gf);
		ffu__cl_buffer_release(&da);
		ffu__cl_buffer_release(&db);
		ffu__cl_buffer_release(&dout);
		free(a);
		free(b);
		free(out);
	}
	for (int i = 0; i < FFU_FIELD_EXT_COUNT; i++)
		if (in_set(ffu__field_get((ffu_field_id)(FFU_FIELD_EXT_FIRST + i)), set))
			check_ext(&cl, prog, selector, options,
				  ffu__field_get((ffu_field_id)(FFU_FIELD_EXT_FIRST + i)), random_pairs);
	ffu__cl_program_release(&prog);
	ffu__sb_free(&sb);
	ffu__cl_close(&cl);
	ffu_error_clear(&e);
}

static void run_device(const char *selector, const char *options, size_t random_pairs)
{
	run_device_for(selector, options, random_pairs, BASE_FIELDS);
}

Test(field_device, pocl, .timeout = 300)
{
	run_device(ffu_test_devices[0], NULL, RANDOM_PAIRS);
}

Test(field_device, rusticl, .timeout = 300)
{
	run_device(ffu_test_devices[1], NULL, RANDOM_PAIRS);
}

/*
 * Every multi-word field in the default build (the 32-bit limbs of cl/montn.cl and
 * cl/montn_full.cl: the 13 256-bit fields, BLS12-381's base field, the two Fq2 over them).
 * The runs over them get 600 s: cold on PoCL with the emulated carry chains, 3 minutes
 * alone on the 2-core CI machine for the 256-bit fields; 273 s (PoCL) and 105 s (Rusticl)
 * of a cold default run, for the same templates as the path fields of the pocl and rusticl
 * tests with other constants: the deep run's (tests/meson.build). The Fq2 over them run in
 * the default run's point tests (BN254 G2) and test_pipeline's pairing programs.
 */
Test(field_device, deep_pocl_montn, .timeout = 600)
{
	run_device_for(ffu_test_devices[0], NULL, RANDOM_PAIRS, MONTN);
}

Test(field_device, deep_rusticl_montn, .timeout = 600)
{
	run_device_for(ffu_test_devices[1], NULL, RANDOM_PAIRS, MONTN);
}

/* The wide (vload4/vstore4, vload2 of ulongs) element accesses the code generator may ask
   for on GPUs. */
Test(field_device, pocl_vector_loads, .timeout = 300)
{
	run_device(ffu_test_devices[0], "-DFFU_VECTOR_LOADS", RANDOM_PAIRS_VECTOR_LOADS);
}

Test(field_device, rusticl_vector_loads, .timeout = 300)
{
	run_device(ffu_test_devices[1], "-DFFU_VECTOR_LOADS", RANDOM_PAIRS_VECTOR_LOADS);
}

/*
 * The extensions over the 31-bit Montgomery fields in 64-bit containers, as the code
 * generator builds them for CPU devices (FFU_EXT_W64, cl/word31.cl): the whole program
 * again, every op of every field and extension against GMP.
 */
Test(field_device, pocl_ext_w64, .timeout = 300)
{
	run_device(ffu_test_devices[0], "-DFFU_EXT_W64", RANDOM_PAIRS);
}

Test(field_device, rusticl_ext_w64, .timeout = 300)
{
	run_device(ffu_test_devices[1], "-DFFU_EXT_W64", RANDOM_PAIRS);
}

/*
 * The 64-bit-limb variant of the multi-word fields (cl/montn_64.cl), chosen at build time:
 * the whole program again (every other template must build with the define), every op of
 * the multi-word fields of MONTN_ALT against GMP.
 */
Test(field_device, pocl_limb64, .timeout = 600)
{
	run_device_for(ffu_test_devices[0], "-DFFU_MONT256_LIMB64", RANDOM_PAIRS, MONTN_ALT);
}

Test(field_device, rusticl_limb64, .timeout = 600)
{
	run_device_for(ffu_test_devices[1], "-DFFU_MONT256_LIMB64", RANDOM_PAIRS, MONTN_ALT);
}

/* On x86-64 the 64-bit limbs carry through 128-bit integers; the compare-based carries GPUs use, here too */
Test(field_device, pocl_limb64_no_int128, .timeout = 600)
{
	run_device_for(ffu_test_devices[0], "-DFFU_MONT256_LIMB64 -DFFU_NO_INT128", RANDOM_PAIRS, MONTN_ALT);
}

Test(field_device, pocl_limb64_vector_loads, .timeout = 300)
{
	run_device_for(ffu_test_devices[0], "-DFFU_MONT256_LIMB64 -DFFU_VECTOR_LOADS", RANDOM_PAIRS_VECTOR_LOADS,
		       MONTN_PATHS);
}

/*
 * The carry-chain variant of the multi-word fields (cl/carry.cl, the PTX path NVIDIA's
 * compiler takes), with the chain instructions emulated in C: the chained add, sub,
 * product and squaring against GMP on two OpenCL implementations.
 */
Test(field_device, pocl_carry_chains, .timeout = 600)
{
	run_device_for(ffu_test_devices[0], "-DFFU_CARRY_EMULATE", RANDOM_PAIRS, MONTN_ALT);
}

Test(field_device, rusticl_carry_chains, .timeout = 600)
{
	run_device_for(ffu_test_devices[1], "-DFFU_CARRY_EMULATE", RANDOM_PAIRS, MONTN_ALT);
}

#ifdef FFU_PTX_CHECK
/*
 * The same program as NVIDIA's compiler sees it (__NV_CL_C_VERSION: the inline-PTX carry
 * chains, the vload8 paths), assembled by ptxas for Hopper and consumer Blackwell, with
 * and without FFU_NO_PTX (tools/gpu/ptx_check.sh). Built only where meson found clang,
 * libclc and ptxas (meson.build says so when it configures), and not in a sanitizer build
 * (the compilers are not ours). BASE_FIELDS: every template (the program instantiates them
 * all) and the test kernels of one multi-word field per path; with the test kernels of all
 * 15 multi-word fields the six clang and ptxas runs took 554 s on 2 busy cores.
 */
Test(field_device, nvptx_ptxas, .timeout = 600)
{
	ffu_strbuf sb = {0};
	ffu_error e = {0};
	program_source(&sb, BASE_FIELDS);
	cr_assert_eq(ffu__sb_status(&sb, &e), FFU_STATUS_OK);
	char path[] = "/tmp/ffu_ptx_XXXXXX.cl";
	int fd = mkstemps(path, 3);
	cr_assert(fd >= 0, "mkstemps: %s", strerror(errno));
	const char *src = ffu__sb_cstr(&sb);
	size_t n = strlen(src);
	ssize_t w = write(fd, src, n);
	close(fd);
	cr_assert_eq((size_t)w, n, "write %s", path);
	for (int a = 0; a < 2; a++) {
		char cmd[512];
		snprintf(cmd, sizeof cmd, "sh '%s' --arch %s '%s'", FFU_PTX_CHECK, a ? "sm_120" : "sm_90", path);
		int rc = system(cmd);
		cr_expect_eq(rc, 0, "%s: status %d", cmd, rc);
	}
	unlink(path);
	ffu__sb_free(&sb);
}
#endif

/* The emitter's small helpers, host only. */
Test(field_device, emitter_helpers)
{
	char buf[64];
	const ffu_field *bb = ffu__field_get(FFU_FIELD_BABYBEAR);
	const ffu_field *bn = ffu__field_get(FFU_FIELD_BN254_SF);
	cr_assert_str_eq(ffu__cl_type_name(bb, buf), "babybear_t");
	cr_assert_str_eq(ffu__cl_type_name(bn, buf), "bn254_sf_t");
	cr_assert_eq(ffu__cl_words(bb), 1);
	cr_assert_eq(ffu__cl_words(bn), 8);

	ffu_strbuf sb = {0};
	uint32_t v = 5;
	ffu__cl_emit_const(&sb, bb, &v);
	cr_assert_str_eq(ffu__sb_cstr(&sb), "babybear_make(0x5u)");
	ffu__sb_free(&sb);

	unsigned char w[32] = {0};
	w[0] = 0x01;
	w[4] = 0xef, w[5] = 0xbe, w[6] = 0xad, w[7] = 0xde;
	w[31] = 0x30;
	ffu_strbuf sb2 = {0};
	ffu__cl_emit_const(&sb2, bn, w);
	cr_assert_str_eq(ffu__sb_cstr(&sb2),
			 "bn254_sf_make(0x1u, 0xdeadbeefu, 0x0u, 0x0u, 0x0u, 0x0u, 0x0u, 0x30000000u)");
	ffu__sb_free(&sb2);

	ffu_strbuf sb3 = {0};
	ffu__cl_emit_field(&sb3, bb);
	const char *s = ffu__sb_cstr(&sb3);
	cr_assert(strstr(s, "#define FP babybear\n"));
	cr_assert(strstr(s, "#define FP_P 0x78000001u\n"));
	cr_assert(strstr(s, "#define FP_PINV 0x77ffffffu\n"));
	cr_assert(strstr(s, "#undef FP_R2\n"));
	cr_assert_null(strstr(s, "FFU_MONT256_LIMB64"));
	ffu__sb_free(&sb3);

	/* 256-bit fields carry both limb widths; the options pick 64 with a define */
	ffu_strbuf sb4 = {0};
	ffu__cl_emit_field(&sb4, bn);
	s = ffu__sb_cstr(&sb4);
	cr_assert(strstr(s, "#ifdef FFU_MONT256_LIMB64\n"));
	cr_assert(strstr(s, "#define FP_PINV64 0xc2e1f593efffffffUL\n"), "%s", strstr(s, "FP_PINV64"));
	/* p < 2^255: the templates as they are, nothing renamed */
	cr_assert_null(strstr(s, "cl/montn_full.cl: Montgomery arithmetic"));
	cr_assert_null(strstr(s, "bn254_sf_hmul_"));
	ffu__sb_free(&sb4);
	/* p >= 2^255: the template's carry-dropping functions hidden, cl/montn_full.cl after it */
	ffu__cl_emit_field(&sb4, ffu__field_get(FFU_FIELD_SECP256K1_SF));
	s = ffu__sb_cstr(&sb4);
	const char *hide = strstr(s, "#define secp256k1_sf_mul secp256k1_sf_hmul_\n");
	const char *tmpl = strstr(s, "cl/montn.cl: device arithmetic template");
	const char *unhide = strstr(s, "#undef secp256k1_sf_mul\n");
	const char *full = strstr(s, "cl/montn_full.cl: Montgomery arithmetic");
	cr_assert(hide && tmpl && unhide && full && hide < tmpl && tmpl < unhide && unhide < full);
	cr_assert(strstr(s, "#define secp256k1_sf_add secp256k1_sf_hadd_\n"));
	ffu__sb_free(&sb4);
	bool used[FFU_ELEM_COUNT] = {0};
	used[FFU_FIELD_BN254_SF] = true;
	ffu_cl_field_opts o64 = {.limb_bits = 64}, o32 = {.limb_bits = 32};
	ffu__cl_emit_fields_opts(&sb4, used, &o64);
	cr_assert(strstr(ffu__sb_cstr(&sb4), "#define FFU_MONT256_LIMB64 1\n"));
	ffu__sb_free(&sb4);
	ffu__cl_emit_fields_opts(&sb4, used, &o32);
	cr_assert_null(strstr(ffu__sb_cstr(&sb4), "#define FFU_MONT256_LIMB64"));
	ffu__sb_free(&sb4);
	ffu__cl_emit_fields_opts(&sb4, used, NULL);
	cr_assert_null(strstr(ffu__sb_cstr(&sb4), "#define FFU_MONT256_LIMB64"));
	ffu__sb_free(&sb4);
	/* 64-bit containers: defined only where an extension they change is used */
	ffu_cl_field_opts ow = {.ext_w64 = true};
	ffu__cl_emit_fields_opts(&sb4, used, &ow);
	cr_assert_null(strstr(ffu__sb_cstr(&sb4), "#define FFU_EXT_W64"));
	ffu__sb_free(&sb4);
	used[FFU_FIELD_GOLDILOCKSX2] = true; /* over goldilocks: no 64-bit-container instance */
	ffu__cl_emit_fields_opts(&sb4, used, &ow);
	cr_assert_null(strstr(ffu__sb_cstr(&sb4), "#define FFU_EXT_W64"));
	ffu__sb_free(&sb4);
	used[FFU_FIELD_BABYBEARX4] = true;
	ffu__cl_emit_fields_opts(&sb4, used, &ow);
	cr_assert(strstr(ffu__sb_cstr(&sb4), "#define FFU_EXT_W64 1\n"));
	ffu__sb_free(&sb4);
}

/* The multi-word template's instantiation for 12 words (BLS12-381's base field) and its Fq2,
   host only: word counts, constants, the generated lists (cl/montn.cl, cl/ext2.cl). */
Test(field_device, emitter_montn)
{
	const ffu_field *fq = ffu__field_get(FFU_FIELD_BLS12_381_BF);
	const ffu_field *fq2 = ffu__field_get(FFU_FIELD_BLS12_381_BFX2);
	cr_assert_eq(ffu__cl_words(fq), 12);
	cr_assert_eq(ffu__cl_words(fq2), 24);
	cr_assert_eq(ffu__cl_words(ffu__field_get(FFU_FIELD_BN254_BFX2)), 16);
	unsigned char w[48] = {0};
	w[0] = 0x07;
	w[44] = 0x9a, w[45] = 0xe6, w[46] = 0x7f, w[47] = 0x39;
	ffu_strbuf sb = {0};
	ffu__cl_emit_const(&sb, fq, w);
	cr_assert_str_eq(ffu__sb_cstr(&sb), "bls12_381_bf_make(0x7u, 0x0u, 0x0u, 0x0u, 0x0u, 0x0u, 0x0u, 0x0u, 0x0u, "
					    "0x0u, 0x0u, 0x397fe69au)");
	ffu__sb_free(&sb);

	ffu__cl_emit_field(&sb, fq2);
	const char *s = ffu__sb_cstr(&sb);
	cr_assert(strstr(s, "/* field bls12_381_bf: cl/montn.cl */\n#define FP bls12_381_bf\n#define FP_NW 12\n"));
	cr_assert(strstr(s, "#define FP_PS 0xffffaaabu, 0xb9feffffu, 0xb153ffffu, 0x1eabfffeu, 0xf6b0f624u, 0x6730d2a0u, "
			    "0xf38512bfu, 0x64774b84u, 0x434bacd7u, 0x4b1ba7b6u, 0x397fe69au, 0x1a0111eau\n"));
	cr_assert(strstr(s, "#define FP_PINV 0xfffcfffdu\n#define FP_PINV64 0x89f3fffcfffcfffdUL\n"));
	cr_assert(strstr(s, "#define FP_WPARAMS uint w0, uint w1, uint w2, uint w3, uint w4, uint w5, uint w6, uint w7, "
			    "uint w8, uint w9, uint w10, uint w11\n"));
	cr_assert(strstr(s, "#define FP_WARGS w0, w1, w2, w3, w4, w5, w6, w7, w8, w9, w10, w11\n"));
	/* 381 bits: a spare top bit, so no cl/montn_full.cl */
	cr_assert_null(strstr(s, "cl/montn_full.cl: Montgomery arithmetic"));
	cr_assert_null(strstr(s, "bls12_381_bf_hmul_"));
	/* the Fq2 over it: W = -1, make's 24 words in two coefficients of 12 */
	cr_assert(strstr(s, "#define FP bls12_381_bfx2\n#define FX_W (-1)\n#define FX_BWORDS 12\n"));
	cr_assert(strstr(s, "#define FX_C0_WORDS w0, w1, w2, w3, w4, w5, w6, w7, w8, w9, w10, w11\n"));
	cr_assert(strstr(s, "#define FX_C1_WORDS w12, w13, w14, w15, w16, w17, w18, w19, w20, w21, w22, w23\n"));
	cr_assert(strstr(s, ", uint w23\n"));
	cr_assert(strstr(s, "#undef FX_C1_WORDS\n"));
	/* the multiply by W = -1 is a negation, no product */
	cr_assert(strstr(s, "FFU_INLINE FFU_BFN(t) bls12_381_bfx2_mulw_(FFU_BFN(t) a)\n{\n\treturn "
			    "FFU_BFN(neg)(bls12_381_bfx2_wabs_(a));\n}\n"));
	ffu__sb_free(&sb);
}

/* The emitter on extensions, host only: names, words, constants, what is emitted once. */
Test(field_device, emitter_extensions)
{
	char buf[64];
	const ffu_field *bb4 = ffu__field_get(FFU_FIELD_BABYBEARX4);
	const ffu_field *gl2 = ffu__field_get(FFU_FIELD_GOLDILOCKSX2);
	cr_assert_str_eq(ffu__cl_type_name(bb4, buf), "babybearx4_t");
	cr_assert_str_eq(ffu__cl_type_name(gl2, buf), "goldilocksx2_t");
	cr_assert_eq(ffu__cl_words(bb4), 4);
	cr_assert_eq(ffu__cl_words(gl2), 4);
	cr_assert_eq(ffu__cl_words(ffu__field_get(FFU_FIELD_MERSENNE31X2)), 2);

	ffu_strbuf sb = {0};
	uint32_t v[4] = {1, 2, 3, 0x77ffffff};
	ffu__cl_emit_const(&sb, bb4, v);
	cr_assert_str_eq(ffu__sb_cstr(&sb), "babybearx4_make(0x1u, 0x2u, 0x3u, 0x77ffffffu)");
	ffu__sb_free(&sb);
	uint64_t g[2] = {0xfffffffe00000005ull, 7};
	ffu__cl_emit_const(&sb, gl2, g);
	cr_assert_str_eq(ffu__sb_cstr(&sb), "goldilocksx2_make(0x5u, 0xfffffffeu, 0x7u, 0x0u)");
	ffu__sb_free(&sb);

	/* emit_field(extension): its prime field first, then the extension */
	ffu__cl_emit_field(&sb, bb4);
	const char *s = ffu__sb_cstr(&sb);
	const char *prime = strstr(s, "#define FP babybear\n"), *ext = strstr(s, "#define FP babybearx4\n");
	cr_assert(prime && ext && prime < ext);
	cr_assert(strstr(s, "#define FB babybear\n"));
	cr_assert(strstr(s, "#define FX_W (11)\n"));
	cr_assert(strstr(s, "FFU_BFN(t) babybearx4_mulw_(FFU_BFN(t) a)"));
	/* and the prime's 64-bit-container instance, for programs that define FFU_EXT_W64 */
	cr_assert(strstr(s, "#ifdef FFU_EXT_W64\n#ifndef FFU_HAVE_babybear_w64\n"));
	cr_assert(strstr(s, "#define FP babybear_w64\n#define FFU_W64 1\n"));
	cr_assert(strstr(s, "#define FB babybear_w64\n#else\n#define FB babybear\n#endif\n"));
	ffu__sb_free(&sb);

	/* emit_fields: each prime once, though used directly, as _mont and under an extension */
	bool used[FFU_ELEM_COUNT] = {0};
	used[FFU_FIELD_BABYBEAR] = used[FFU_FIELD_BABYBEAR_MONT] = used[FFU_FIELD_BABYBEARX4] = true;
	used[FFU_FIELD_MERSENNE31X2] = used[FFU_FIELD_U32] = used[FFU_FIELD_PRED] = true;
	ffu__cl_emit_fields(&sb, used);
	s = ffu__sb_cstr(&sb);
	const char *defs[] = {"#define FP babybear\n", "#define FP mersenne31\n", "#define FP babybearx4\n",
			      "#define FP mersenne31x2\n"};
	const char *last = s;
	for (size_t i = 0; i < sizeof defs / sizeof defs[0]; i++) {
		const char *at = strstr(s, defs[i]);
		cr_assert(at && at >= last, "%s missing or out of order", defs[i]);
		cr_assert_null(strstr(at + 1, defs[i]), "%s twice", defs[i]);
		last = at;
	}
	cr_assert_null(strstr(s, "#define FP koalabear"));
	cr_assert_null(strstr(s, "#define FP goldilocks"));
	ffu__sb_free(&sb);
}

/* emit_field(extension) alone is a complete program (its prime field comes with it). */
static void build_each_extension_alone(const char *selector)
{
	ffu_error e = {0};
	ffu_device_info dev;
	cr_assert_eq(ffu__cl_select(&dev, selector, &e), FFU_STATUS_OK, "device '%s' missing: %s", selector,
		     e.message);
	ffu_cl cl = {0};
	cr_assert_eq(ffu__cl_open(&cl, &dev, &e), FFU_STATUS_OK, "open %s: %s", selector, e.message);
	for (int i = 0; i < FFU_FIELD_EXT_COUNT; i++) {
		const ffu_field *x = ffu__field_get((ffu_field_id)(FFU_FIELD_EXT_FIRST + i));
		ffu_strbuf sb = {0};
		ffu__cl_emit_common(&sb);
		ffu__cl_emit_field(&sb, x);
		ffu__sb_printf(&sb, "__kernel void k(__global const uint *a, __global uint *o) { size_t i = "
				    "get_global_id(0); %s_t x = %s_load(a, i); %s_store(o, i, %s_inv(%s_sqr(x))); }\n",
			       x->name, x->name, x->name, x->name, x->name);
		cl_program prog = NULL;
		cr_assert_eq(ffu__cl_build(&cl, &prog, ffu__sb_cstr(&sb), NULL, &e), FFU_STATUS_OK, "%s on %s: %s\n%s",
			     x->name, selector, e.message, e.build_log ? e.build_log : "");
		ffu__cl_program_release(&prog);
		ffu__sb_free(&sb);
	}
	ffu__cl_close(&cl);
	ffu_error_clear(&e);
}

Test(field_device, extension_alone_pocl, .timeout = 120)
{
	build_each_extension_alone(ffu_test_devices[0]);
}

Test(field_device, extension_alone_rusticl, .timeout = 120)
{
	build_each_extension_alone(ffu_test_devices[1]);
}
