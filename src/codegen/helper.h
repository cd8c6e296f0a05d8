/*
 * codegen/helper.h: the helper functions of the kernel plans that are not loop kernels
 * (codegen/fft.c, codegen/dot.c): the producers fused in front of the plan's op and the
 * consumers fused behind it, each printed as a static inline function over the fusion's
 * buffers (in0.., out0..) at index i. Private to codegen/.
 */
#ifndef FFU_CODEGEN_HELPER_H
#define FFU_CODEGEN_HELPER_H

#include "ir/ir.h"
#include "util/strbuf.h"

/* "__global const uint *restrict in0, ..., __global uint *restrict out0, ..., " and the
   matching "in0, ..., out0, ..., " of a call. */
void ffu__helper_io_params(ffu_strbuf *sb, int n_in, int n_out);
void ffu__helper_io_args(ffu_strbuf *sb, int n_in, int n_out);
/*
 * `static inline T name(inputs, const ulong i)`: instruction id of fusion's computation at
 * element i, computed from the inputs. f given: returned in f's storage form (what a load
 * of type f reads); f NULL: in a form the value has (the base field's canonical where it
 * has one, else Montgomery), which *form receives ('c' or 'm').
 */
ffu_status ffu__helper_value(ffu_strbuf *sb, const ffu_inst *fusion, const char *name, int id, const ffu_field *f,
			     char *form, ffu_error *e);
/* `static inline void name(inputs, outputs, const ulong i, const fv_type fv)`: the fusion's
   outputs at element i, the plan's op reading fv there (kgen.c: an fft's value in its
   storage form; a dot's in form fv_form, 'c' or 'm'). */
ffu_status ffu__helper_outputs(ffu_strbuf *sb, const ffu_inst *fusion, const char *name, const char *fv_type,
			       char fv_form, ffu_error *e);

#endif
