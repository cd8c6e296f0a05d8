/*
 * codegen/wide.h: the bodies of the wide kernel variants (codegen.h: ffu_k<k>_wide),
 * printed from a planned body (codegen/body.h); called by codegen.c, which writes the
 * signatures and chooses the variant (plan_wide). Why each variant exists, with the
 * measurements, is at plan_wide in codegen.c.
 */
#ifndef FFU_CODEGEN_WIDE_H
#define FFU_CODEGEN_WIDE_H

#include "codegen/body.h"

/* Lanes in lockstep: work-item g computes elements g + r stride (r < lanes), every statement
   once per lane, every inversion as one batch over the lanes. */
void ffu__wide_print_lanes(ffu_strbuf *sb, const ffu_body *b, int lanes);
/* The vector instance of extension vx (vw elements per value): the body as written, with
   vx's and its prime's functions and types. */
void ffu__wide_print_vector(ffu_strbuf *sb, const ffu_body *b, const ffu_field *vx, int vw);
/* Inversion loops: `lanes` elements per work-item (g + r stride) in loops around each of
   the body's inversions (b has at least one). */
void ffu__wide_print_inv_loops(ffu_strbuf *sb, const ffu_body *b, int lanes);

#endif
