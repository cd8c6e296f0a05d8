/*
 * fields/field.h: the host reference arithmetic, plain and obviously correct, used by the
 * interpreter (the oracle of every device test), by the parser to validate literals, and
 * by the code generator to precompute device constants.
 *
 * Values cross this API as canonical little-endian storage bytes (f->storage_bytes each,
 * exactly the layout of value files' .bin form and of device buffers), so the interpreter
 * moves elements with memcpy. Internally the reference uses 64-bit limbs and
 * unsigned __int128 (Montgomery with R = 2^(64*nlimbs)).
 *
 * An extension element (kind FFU_ELEM_EXT, e.g. babybearx4) is its d coefficients, lowest
 * degree first, each the canonical storage bytes of the prime field f->prime: coefficient
 * k occupies bytes [k * cb, (k + 1) * cb) with cb = f->prime->storage_bytes. Every entry
 * point below dispatches on the descriptor, so callers (the interpreter, value files, the
 * parser) treat extension types like any field; fields/ext.c holds their arithmetic.
 *
 * Descriptors are immutable statics, initialised once (thread-safe) by ffu__field_get.
 */
#ifndef FFU_FIELDS_FIELD_H
#define FFU_FIELDS_FIELD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fieldfuse/status.h"

/* FFU_FIELD_MAX_BYTES bounds one element of any type, points included (a bls12_381_g2 xyzz
   point is 4 x 96 bytes); FFU_FIELD_MAX_COORD_BYTES one coordinate of a point. */
enum {
	FFU_FIELD_MAX_LIMBS = 6, /* 64-bit limbs of the widest prime (bls12_381_bf, 381 bits) */
	FFU_FIELD_MAX_COORD_BYTES = 96,
	FFU_FIELD_MAX_BYTES = 4 * FFU_FIELD_MAX_COORD_BYTES,
	FFU_FIELD_MAX_DEGREE = 4
};

/*
 * Every element type has a descriptor. The ids come in ranges, in this order:
 *   [0, FFU_FIELD_COUNT)                      the prime fields (FFU_FIELD rows of fields.def):
 *                                             loops over "every prime field" visit these
 *   [FFU_FIELD_COUNT, 2 * FFU_FIELD_COUNT)    one `<name>_mont` type per prime field, same
 *                                             order (same field, values held as
 *                                             x * 2^mont_radix_bits mod p)
 *   [FFU_FIELD_EXT_FIRST, FFU_FIELD_EXT_END)  the extension fields (FFU_EXT rows), kind
 *                                             FFU_ELEM_EXT
 *   [FFU_FIELD_EXT_MONT_FIRST, FFU_FIELD_EXT_MONT_END)  one `<name>_mont` type per
 *                                             extension, same order, also kind FFU_ELEM_EXT
 *                                             (ffu__field_is_mont tells them apart): each
 *                                             coefficient held in its prime's _mont form
 *   FFU_FIELD_U32, FFU_FIELD_U64, FFU_FIELD_PRED, then the FFU_INT rows of fields.def
 *   (s8 s16 s32 s64 u8 u16), up to FFU_FIELD_INT_END
 *   [FFU_FIELD_POINT_FIRST, FFU_ELEM_COUNT)   the point types, six per row of curves.def:
 *                                             affine, jacobian, xyzz, then the three
 *                                             _mont twins (kind FFU_ELEM_POINT,
 *                                             fields/point.h)
 * The integers (kind FFU_ELEM_UINT, signed ones too: is_signed tells them apart) are
 * exponents of power, sources and targets of convert and start indices of dynamic-slice;
 * pred (0 or 1, one byte) is the result of compare and the selector of select. Integer
 * descriptors reuse the field machinery with "p" = 2^bits (a signed value is stored as
 * its two's complement bit pattern, so every pattern is a value), or 2 for pred, so
 * parsing, formatting, value files and random inputs need no second code path;
 * arithmetic on them is refused by the verifier.
 */
typedef enum ffu_field_id {
#define FFU_FIELD(ID, ...) FFU_FIELD_##ID,
#include "fields.def"
#undef FFU_FIELD
	FFU_FIELD_COUNT,
	FFU_FIELD_MONT_ANCHOR_ = FFU_FIELD_COUNT - 1,
#define FFU_FIELD(ID, ...) FFU_FIELD_##ID##_MONT,
#include "fields.def"
#undef FFU_FIELD
	FFU_FIELD_EXT_FIRST,
	FFU_FIELD_EXT_ANCHOR_ = FFU_FIELD_EXT_FIRST - 1,
#define FFU_EXT(ID, ...) FFU_FIELD_##ID,
#include "fields.def"
#undef FFU_EXT
	FFU_FIELD_EXT_END,
	FFU_FIELD_EXT_MONT_FIRST = FFU_FIELD_EXT_END,
	FFU_FIELD_EXT_MONT_ANCHOR_ = FFU_FIELD_EXT_MONT_FIRST - 1,
#define FFU_EXT(ID, ...) FFU_FIELD_##ID##_MONT,
#include "fields.def"
#undef FFU_EXT
	FFU_FIELD_EXT_MONT_END,
	FFU_FIELD_U32 = FFU_FIELD_EXT_MONT_END,
	FFU_FIELD_U64,
	FFU_FIELD_PRED,
#define FFU_INT(ID, ...) FFU_FIELD_##ID,
#include "fields.def"
#undef FFU_INT
	FFU_FIELD_INT_END,
	FFU_FIELD_POINT_FIRST = FFU_FIELD_INT_END,
	FFU_FIELD_POINT_ANCHOR_ = FFU_FIELD_POINT_FIRST - 1,
#define FFU_CURVE(ID, ...)                                                                           \
	FFU_FIELD_##ID##_AFFINE, FFU_FIELD_##ID##_JACOBIAN, FFU_FIELD_##ID##_XYZZ, FFU_FIELD_##ID##_AFFINE_MONT, \
		FFU_FIELD_##ID##_JACOBIAN_MONT, FFU_FIELD_##ID##_XYZZ_MONT,
#include "curves.def"
#undef FFU_CURVE
	FFU_ELEM_COUNT
} ffu_field_id;

enum { FFU_FIELD_EXT_COUNT = FFU_FIELD_EXT_END - FFU_FIELD_EXT_FIRST };
_Static_assert(FFU_FIELD_EXT_MONT_END - FFU_FIELD_EXT_MONT_FIRST == FFU_FIELD_EXT_COUNT, "one _mont per extension");

/* PRED (`pred`, the result of compare) is an integer type whose "p" is 2: storage 1 byte.
   UINT is every integer type, unsigned or (ffu_field.is_signed) two's complement. */
typedef enum { FFU_ELEM_PRIME, FFU_ELEM_MONT, FFU_ELEM_UINT, FFU_ELEM_PRED, FFU_ELEM_EXT, FFU_ELEM_POINT } ffu_elem_kind;

/* A point type's coordinate system (fields/curves.def), in the id order of each curve. */
typedef enum { FFU_POINT_AFFINE, FFU_POINT_JACOBIAN, FFU_POINT_XYZZ } ffu_point_form;
typedef struct ffu_curve ffu_curve; /* fields/point.h */

/*
 * The two field pointers, by kind (NULL for u32, u64, pred):
 *             base: whose device functions     prime: the prime field the value's
 *             compute on values of the type    coefficients (or the value) lie in
 *   PRIME     itself                           itself
 *   MONT      its prime field                  its prime field
 *   EXT       itself (<name>_add, ...)         the coefficient field (babybear for babybearx4)
 *   EXT _mont the canonical extension          the coefficient field (babybear for
 *                                              babybearx4_mont)
 * So `f->base->name` names the device functions of every field type, and `f->prime` is the
 * field of the constants below. For an extension, the members from modulus_hex to r2_dev
 * are its coefficient field's (bits, nlimbs, p, pinv, r2, dev_radix_bits: the device
 * keeps each coefficient in the prime field's device form), except storage_bytes
 * (degree x the prime's), generator (0: not tabulated), two_adicity (of p^degree - 1) and
 * mont_radix_bits (0 for the canonical extension, the prime's for its _mont twin).
 * `coef` is the type of one stored coefficient: f->prime for a canonical extension, the
 * prime's _mont twin for an extension's _mont twin (NULL for the other kinds); the host
 * arithmetic of an extension (fields/ext.c) computes on coefficients of that type, and so
 * do the parser and the value files (a _mont coefficient is its raw Montgomery integer).
 * `twin` is the other form of the same field (babybear <-> babybear_mont, babybearx4 <->
 * babybearx4_mont); NULL for u32, u64 and pred.
 */
typedef struct ffu_field ffu_field;
typedef struct ffu_field_ops ffu_field_ops; /* the kind's arithmetic (fields/ops.h, internal) */
struct ffu_field {
	ffu_field_id id;
	ffu_elem_kind kind;
	const ffu_field *base;     /* see above: the device functions' field; NULL for integers */
	const ffu_field *prime;    /* see above: the coefficient field; NULL for integers */
	const char *name;          /* HLO type keyword */
	const char *modulus_hex;   /* p (of the coefficient field for an extension) */
	const char *cl_template;   /* "mont31", "m31", "goldilocks", "montn", "ext2", "ext3", "ext4" */
	int degree;                /* d for an extension (u^d = nonresidue); 1 for every other type */
	int64_t nonresidue;        /* extension: W in u^d - W (e.g. 11, -1); 0 for other types */
	int bits;
	int nlimbs;                /* 64-bit limbs of the host reference */
	size_t storage_bytes;
	uint32_t generator;
	int two_adicity;
	int dev_radix_bits;        /* device Montgomery radix 2^k; 0: the template is canonical */
	int mont_radix_bits;       /* radix of the user-visible <name>_mont form */
	uint64_t p[FFU_FIELD_MAX_LIMBS];       /* modulus, little-endian limbs */
	uint64_t pinv64;                       /* -p^-1 mod 2^64 */
	uint32_t pinv32;                       /* -p^-1 mod 2^32 (device CIOS / mont31) */
	uint64_t r2_host[FFU_FIELD_MAX_LIMBS]; /* (2^(64*nlimbs))^2 mod p */
	/* Device radix R_dev = 2^dev_radix_bits; R_dev^2 mod p, canonical storage bytes. */
	unsigned char r2_dev[FFU_FIELD_MAX_BYTES];
	const ffu_field_ops *ops;  /* limb arithmetic (field.c) or extension arithmetic (ext.c) */
	bool is_signed;            /* s8 ... s64: two's complement storage; false for every other type */
	const ffu_field *coef;     /* extensions: the stored coefficients' type (above); points:
				      the coordinates' type (bn254_bf or bn254_bf_mont) */
	const ffu_field *twin;     /* the other form (above); NULL for integers */
	/* points only (kind FFU_ELEM_POINT; base is the point type itself, prime the
	   coordinates' prime field): the curve, the coordinate system, the number of
	   coordinates (2, 3, 4) */
	const ffu_curve *curve;
	ffu_point_form form;
	int ncoords;
};

/* Values of f are held in Montgomery form: a prime's _mont twin, an extension's, a point
   type's. */
static inline bool ffu__field_is_mont(const ffu_field *f)
{
	if (f->kind == FFU_ELEM_POINT) /* a point type takes its coordinates' form */
		f = f->coef;
	return f->kind == FFU_ELEM_MONT || (f->kind == FFU_ELEM_EXT && f->base != f);
}

/* Any element type's descriptor (id < FFU_ELEM_COUNT); NULL if out of range. */
const ffu_field *ffu__field_get(ffu_field_id id);
/* A prime field of fields.def by name (not _mont, not u32/u64); NULL if unknown. */
const ffu_field *ffu__field_by_name(const char *name, size_t len);

/*
 * Element-wise operations on storage bytes. out may alias a or b. Unary ops ignore b.
 * For a _mont type the bytes hold x * R_mont mod p and results come back in that form.
 * Prime, _mont and extension descriptors may be passed to the arithmetic (not u32/u64/pred).
 */
typedef void (*ffu_field_fn)(const ffu_field *f, void *out, const void *a, const void *b);
void ffu__fp_add(const ffu_field *f, void *out, const void *a, const void *b);
void ffu__fp_sub(const ffu_field *f, void *out, const void *a, const void *b);
void ffu__fp_mul(const ffu_field *f, void *out, const void *a, const void *b);
void ffu__fp_neg(const ffu_field *f, void *out, const void *a, const void *b);
/* out[i] = fn(a[i], b[i]) over n elements (fn: ffu__fp_add or ffu__fp_mul): the runs the
   collectives' reductions combine (interp/collective.c, the CLI's MPI op). A one-word prime
   field's sum is done inline, at memory speed, rather than a call per element. */
void ffu__fp_combine_n(const ffu_field *f, ffu_field_fn fn, void *out, const void *a, const void *b, size_t n);
/* a * a (b ignored); an extension has a dedicated squaring. */
void ffu__fp_sqr(const ffu_field *f, void *out, const void *a, const void *b);

/* x * R_dev mod p: the device's Montgomery form of a canonical value (for inlined constants);
   coefficient-wise for an extension (its device form keeps each coefficient in the prime
   field's device form). */
void ffu__fp_to_dev_mont(const ffu_field *f, void *out, const void *a);
/* x * R_dev^-1 mod p (inverse of the above). */
void ffu__fp_from_dev_mont(const ffu_field *f, void *out, const void *a);

/* a / b = a * b^-1, with x / 0 = 0 as in ZKX (the op table's `divide`). */
void ffu__fp_divide(const ffu_field *f, void *out, const void *a, const void *b);
/* inverse(a), inverse(0) = 0 (the op table's `inverse`; b ignored). */
void ffu__fp_inverse(const ffu_field *f, void *out, const void *a, const void *b);
/* A value of type `from` as type `to` (the `convert` op): u32/u64 -> field (mod p; for an
   extension the constant coefficient, the others 0), field <-> _mont of the same field
   (an extension <-> its _mont twin coefficient-wise), prime field or its _mont -> an
   extension over it or its _mont twin (the constant coefficient), 31-bit field
   -> u32, goldilocks -> u64, a type to itself. Nothing converts out of an extension.
   The integer types of the FFU_INT rows follow ZKX (zkx/mlir/codegen_utils.cc): integer ->
   integer truncates, or sign-extends a signed source, zero-extends an unsigned one;
   integer -> prime field or _mont takes the zero-extended bit pattern mod p (s32 -1 is
   2^32 - 1) and needs the integer no wider than the field's storage (ZKX: "Cannot convert
   integer to prime field with smaller width"); they convert to no extension, and no field
   converts to them.
   Returns false for pairs that are not conversions (the verifier rejects those first). */
bool ffu__fp_convert(const ffu_field *to, void *out, const ffu_field *from, const void *a);
bool ffu__fp_convert_ok(const ffu_field *to, const ffu_field *from);
/* Storage bytes are a valid value of the type: < p for fields (every coefficient < p for
   an extension), anything for u32/u64, 0 or 1 for pred. */
bool ffu__fp_canonical(const ffu_field *f, const void *a);
/* An integer type's value as uint64 (its storage bytes, little-endian, zero-extended: the
   bit pattern for a signed type). */
uint64_t ffu__fp_get_u64(const ffu_field *f, const void *a);
/* An integer type's value: sign-extended for a signed type, as ffu__fp_get_u64 otherwise
   (a u64 above INT64_MAX wraps: callers that index with it clamp first). */
int64_t ffu__fp_get_i64(const ffu_field *f, const void *a);

/* a^e (a^0 = 1, also for a = 0), for the interpreter's power by a u32/u64 exponent. */
void ffu__fp_pow(const ffu_field *f, void *out, const void *a, uint64_t e);
/* a^-1 by Fermat (a^(p-2)) for a prime field, through the norm to the prime field for an
   extension (fields/ext.c); inverse(0) = 0 as in ZKX. */
void ffu__fp_inv(const ffu_field *f, void *out, const void *a);

/* The primitive 2^log_n-th root of unity of the prime field under f (f->prime) that ZKX
   uses, g^((p - 1) / 2^log_n), as canonical storage bytes of that prime field (fields/roots.c).
   False when log_n exceeds the prime's two-adicity or f is an integer type. */
bool ffu__fp_root_of_unity(const ffu_field *f, int log_n, void *out);
/* out[i] = w^i, or w^-i where inverse, for i < count, w that root of order 2^log_n, as
   storage bytes of f (a prime field, its _mont twin or an extension over it: the powers in
   its form, an extension's as constant coefficients): an fft's table (the interpreter's
   roots, a twiddles operand). False as ffu__fp_root_of_unity. */
bool ffu__fp_root_powers(const ffu_field *f, int log_n, bool inverse, void *out, int64_t count);
bool ffu__fp_is_zero(const ffu_field *f, const void *a);
/* Equal values: equal storage, except for points (the same group element: fields/point.h) */
bool ffu__fp_eq(const ffu_field *f, const void *a, const void *b);
/* v mod p (an extension: the constant coefficient, the others 0) */
void ffu__fp_set_u64(const ffu_field *f, void *out, uint64_t v);
/* Uniform random element in [0, p) (each coefficient, for an extension) from a caller-held
   xorshift/splitmix state. */
void ffu__fp_random(const ffu_field *f, void *out, uint64_t *state);

/*
 * Parses a decimal or 0x-hex literal (no sign, no spaces; digits only, up to len bytes).
 * An extension element is its d coefficients, each such a literal, lowest degree first,
 * separated by one or more spaces or tabs (the value-file form: "1 2 3 4"); nothing
 * before the first or after the last. Returns FFU_STATUS_OK, or FFU_STATUS_EPARSE with
 * *why set to a static message such as "not a number" or "value is not less than the
 * field modulus".
 */
ffu_status ffu__fp_parse(const ffu_field *f, void *out, const char *s, size_t len, const char **why);
/* Decimal text of a canonical element, an extension's coefficients separated by single
   spaces (the value-file form; a point's coordinates likewise); buf needs
   FFU_FIELD_TEXT_MAX bytes. Returns buf. */
char *ffu__fp_format(const ffu_field *f, char *buf, const void *a);
/* The HLO literal text: as ffu__fp_format, but an extension element as its parenthesised
   coefficient list "(1, 2, 3, 4)" (docs: HLO.md section 2), a point as "(x, y)". buf
   needs FFU_FIELD_TEXT_MAX bytes. */
char *ffu__fp_format_literal(const ffu_field *f, char *buf, const void *a);
/* a point's text: up to 8 numbers of 78 digits with separators */
enum { FFU_FIELD_TEXT_MAX = 1024 };

/* Simple deterministic PRNG used by tests, --random and benches (splitmix64). */
uint64_t ffu__rand_next(uint64_t *state);

#endif
