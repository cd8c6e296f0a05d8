/*
 * codegen/index.h: index arithmetic of fused index ops (index-map fusion): a broadcast,
 * slice, reshape, concatenate or dynamic-(update-)slice does not move data, its consumer
 * reads the operand at an index computed from its own by integer arithmetic. These write that arithmetic as
 * OpenCL C over a named index variable (`var`); the code generator calls them when it
 * interns an index variable and the body printers when they print one (codegen/body.h),
 * each with the variable's name in its kernel variant.
 */
#ifndef FFU_CODEGEN_INDEX_H
#define FFU_CODEGEN_INDEX_H

#include <stdint.h>

#include "ir/ir.h"
#include "util/strbuf.h"

/* The coordinate along dimension d of row-major linear index `var` into dims[rank]. */
void ffu__index_coord(ffu_strbuf *o, const char *var, const int64_t *dims, int rank, int d);
/* Dynamic-(update-)slice `in` (of a fused computation): its start along dimension d,
   clamped into range, as a ulong expression: a literal, or a read of the kernel argument
   in<N> of its start parameter N (a start computed in the kernel is not supported: the
   fusion pass keeps their producers outside, ffu__index_dyn_start_ok tells). */
void ffu__index_dyn_start(ffu_strbuf *o, const ffu_inst *in, int d);
bool ffu__index_dyn_start_ok(const ffu_inst *in);
/* Operand j's own row-major linear index read by index op `in` at linear index `var`. */
void ffu__index_expr(ffu_strbuf *o, const ffu_inst *in, int j, const char *var);

#endif
