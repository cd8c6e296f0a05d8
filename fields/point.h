/*
 * fields/point.h: elliptic-curve point types (the rows of fields/curves.def) and their host
 * reference arithmetic: the interpreter's oracle for every point op and for msm, the
 * parser's and value files' validation of points. Written plainly (jacobian formulas with
 * every special case spelled out, double-and-add, a textbook bucket method for msm): speed
 * matters only as far as the tests' 2^16-point inputs need.
 *
 * A point type is an element type like any other (fields/field.h: kind FFU_ELEM_POINT,
 * ids from FFU_FIELD_POINT_FIRST): the generic entry points (ffu__fp_parse, _format,
 * _canonical, _random, _add, _sub, _neg, _convert, _is_zero) work on it through
 * ffu__point_ops, with operands and result of one type. The ops whose types differ (an
 * affine + affine sum declared jacobian, a scalar times a point, msm) are the functions
 * below. Coordinates are held in the point type's coordinate type f->coef (canonical or
 * _mont), and every computation is done in that type, so the _mont twins need no second
 * path.
 */
#ifndef FFU_FIELDS_POINT_H
#define FFU_FIELDS_POINT_H

#include "field.h"

struct ffu_curve {
	const char *name;       /* "bn254_g1" */
	const ffu_field *coord; /* the coordinate field, canonical form (bn254_bf) */
	const ffu_field *scalar; /* the scalar field, canonical form (bn254_sf) */
	int scalar_bits;        /* bits of the scalar field's modulus: the double-and-add length */
	/* b and the affine generator, [0] in canonical coordinates, [1] in the _mont form */
	unsigned char b[2][FFU_FIELD_MAX_COORD_BYTES];
	unsigned char gen[2][2 * FFU_FIELD_MAX_COORD_BYTES];
};

/* The descriptor of point type id (FFU_FIELD_POINT_FIRST <= id < FFU_ELEM_COUNT); called by
   ffu__field_get, which is how everyone else reaches it. */
const ffu_field *ffu__point_type(ffu_field_id id);
/* The point type of curve c with the given coordinate system and form. */
const ffu_field *ffu__point_type_of(const ffu_curve *c, ffu_point_form form, bool mont);
/* A point type's form name, "affine", "jacobian" or "xyzz". */
const char *ffu__point_form_name(ffu_point_form form);

/* convert: between any two point types of one curve (kinds and forms; ZKX.md 4.5). */
bool ffu__point_convert_ok(const ffu_field *to, const ffu_field *from);

/* The result kinds ZKX allows (ZKX.md 4.6, 4.7), operands already of one curve and form:
   add/subtract: affine + affine -> jacobian or xyzz; jacobian or xyzz + affine or the same
   kind -> that kind. multiply(s, P): affine -> jacobian or xyzz, else P's kind. msm:
   affine -> any, jacobian -> jacobian or xyzz, xyzz -> xyzz. */
bool ffu__point_add_ok(const ffu_field *to, const ffu_field *a, const ffu_field *b);
bool ffu__point_mul_ok(const ffu_field *to, const ffu_field *p);
bool ffu__point_msm_ok(const ffu_field *to, const ffu_field *p);

/* out (type to) = a + b (sub: a - b); a, b, out points of one curve and form. */
void ffu__point_add(const ffu_field *to, void *out, const ffu_field *fa, const void *a, const ffu_field *fb,
		    const void *b);
void ffu__point_sub(const ffu_field *to, void *out, const ffu_field *fa, const void *a, const ffu_field *fb,
		    const void *b);
/* out (type to) = s * P, s of the curve's scalar field (either form), its canonical value. */
void ffu__point_mul(const ffu_field *to, void *out, const ffu_field *fs, const void *s, const ffu_field *fp,
		    const void *p);
/* The group elements are equal (projective equality for jacobian and xyzz; both infinity). */
bool ffu__point_eq(const ffu_field *fa, const void *a, const ffu_field *fb, const void *b);
/* out (type to) = sum of s_i * P_i, i < n, by windows of window_bits (0: chosen from n);
   every window width gives the same group element. */
void ffu__point_msm(const ffu_field *to, void *out, const ffu_field *fs, const unsigned char *scalars,
		    const ffu_field *fp, const unsigned char *bases, int64_t n, int window_bits);
/* The window width msm uses for n points when none is given. */
int ffu__point_msm_window(int64_t n);
/* n random points of type t into out: (a + i d) G for random a, d (fields/point_random.c:
   why not independent draws); what ffu__value_random gives a point array. */
void ffu__point_random_array(const ffu_field *t, unsigned char *out, int64_t n, uint64_t *seed);
/* k * G, the curve's generator, as a point of type to (the HLO literal "k"). */
void ffu__point_gen_mul(const ffu_field *to, void *out, const ffu_field *fs, const void *k);

#endif
