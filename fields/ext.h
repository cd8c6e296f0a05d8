/*
 * fields/ext.h: internal to fields/: the host reference arithmetic of the extension fields
 * (FFU_EXT rows of fields.def), implemented in fields/ext.c on top of the prime field's
 * entry points of field.h. fields/field.c's generic entry points call these for
 * descriptors of kind FFU_ELEM_EXT; nothing outside fields/ includes this header.
 * Same conventions as field.h: canonical storage bytes, out may alias a or b.
 */
#ifndef FFU_FIELDS_EXT_H
#define FFU_FIELDS_EXT_H

#include "field.h"

/* Derives the extension's constants (W as a prime-field element); called once at init. */
void ffu__ext_init(const ffu_field *x);

void ffu__ext_add(const ffu_field *x, void *out, const void *a, const void *b);
void ffu__ext_sub(const ffu_field *x, void *out, const void *a, const void *b);
void ffu__ext_neg(const ffu_field *x, void *out, const void *a);
void ffu__ext_mul(const ffu_field *x, void *out, const void *a, const void *b);
void ffu__ext_sqr(const ffu_field *x, void *out, const void *a);
void ffu__ext_inv(const ffu_field *x, void *out, const void *a);
void ffu__ext_pow(const ffu_field *x, void *out, const void *a, uint64_t e);
/* coefficient-wise x * R_dev and x / R_dev */
void ffu__ext_to_dev_mont(const ffu_field *x, void *out, const void *a);
void ffu__ext_from_dev_mont(const ffu_field *x, void *out, const void *a);
/* c0 = v mod p, the other coefficients 0 */
void ffu__ext_set_u64(const ffu_field *x, void *out, uint64_t v);
/* c0 = the canonical value of c (a value of x->prime or its _mont twin), the others 0 */
void ffu__ext_embed(const ffu_field *x, void *out, const ffu_field *from, const void *c);
bool ffu__ext_is_zero(const ffu_field *x, const void *a);
bool ffu__ext_canonical(const ffu_field *x, const void *a);
void ffu__ext_random(const ffu_field *x, void *out, uint64_t *state);
ffu_status ffu__ext_parse(const ffu_field *x, void *out, const char *s, size_t len, const char **why);
/* "c0 c1 ..." (literal = false) or "(c0, c1, ...)" (literal = true) */
char *ffu__ext_format(const ffu_field *x, char *buf, const void *a, bool literal);

#endif
