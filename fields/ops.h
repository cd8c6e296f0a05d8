/*
 * fields/ops.h: internal to fields/: the arithmetic of one kind of element type as a table
 * of functions. Each descriptor points at its kind's table (ffu_field.ops): the limb table
 * of field.c for prime fields, their _mont twins, u32, u64 and pred, the extension table of
 * ext.c for the FFU_EXT rows. The generic entry points of field.h (fields/dispatch.c) call
 * through the table, so field.c and ext.c never call each other: ext.c computes on its
 * coefficients through those entry points like any other user of a prime field.
 * Same conventions as field.h: canonical storage bytes, out may alias a or b. The tables
 * are static and read-only.
 */
#ifndef FFU_FIELDS_OPS_H
#define FFU_FIELDS_OPS_H

#include "field.h"

typedef void (*ffu_field_unary_fn)(const ffu_field *f, void *out, const void *a);

struct ffu_field_ops {
	void (*init)(const ffu_field *f); /* derived constants, once at start-up; NULL: none */
	ffu_field_fn add, sub, mul;
	ffu_field_unary_fn neg, sqr, to_dev_mont, from_dev_mont, inv;
	bool (*is_zero)(const ffu_field *f, const void *a);
	bool (*canonical)(const ffu_field *f, const void *a);
	void (*set_u64)(const ffu_field *f, void *out, uint64_t v);
	/* a value of `from` as `to` (a type of this kind); ffu__fp_convert_ok holds and `from`
	   is not an integer type (those go through set_u64) */
	void (*convert)(const ffu_field *to, void *out, const ffu_field *from, const void *a);
	void (*pow)(const ffu_field *f, void *out, const void *a, uint64_t e);
	void (*random)(const ffu_field *f, void *out, uint64_t *state);
	/* f and s are not NULL; *why is NULL on entry */
	ffu_status (*parse)(const ffu_field *f, void *out, const char *s, size_t len, const char **why);
	/* literal: the HLO literal form (an extension's "(c0, c1, ...)") */
	char *(*format)(const ffu_field *f, char *buf, const void *a, bool literal);
};

extern const ffu_field_ops ffu__limb_ops; /* field.c: 64-bit limbs, generic Montgomery */
extern const ffu_field_ops ffu__ext_ops;  /* ext.c: F_p[u]/(u^d - W) over the limb arithmetic */
extern const ffu_field_ops ffu__point_ops; /* point.c: curve points over any field's arithmetic */

#endif
