/*
 * interp/interp_impl.h: internal to interp/: the ops the interpreter evaluates in files of
 * their own. Nothing outside interp/ includes this header.
 */
#ifndef FFU_INTERP_INTERP_IMPL_H
#define FFU_INTERP_INTERP_IMPL_H

#include "interp/interp.h"

/* fft `in` of x (twiddles tw, or NULL) into o, allocated with in's shape (interp/fft.c). */
ffu_status ffu__interp_fft(const ffu_inst *in, const ffu_value *x, const ffu_value *tw, ffu_value *o, ffu_error *e);
/* add, subtract or multiply(scalar, point) `in` with a point result, operands a and b
   (each element at its own type's stride), into o (interp/points.c). */
ffu_status ffu__interp_points(const ffu_inst *in, const unsigned char *a, const unsigned char *b, ffu_value *o);
/* msm `in` of scalars k and bases p into the scalar point o (interp/points.c). */
ffu_status ffu__interp_msm(const ffu_inst *in, const ffu_value *k, const ffu_value *p, ffu_value *o);

/* dot `in` of x and y (x may be a CSR matrix) into o, allocated with in's shape (interp/dot.c). */
void ffu__interp_dot(const ffu_inst *in, const ffu_value *x, const ffu_value *y, ffu_value *o);


#endif
