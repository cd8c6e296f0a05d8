/*
 * codegen/codegen.h: fused module -> one OpenCL C program. Every fusion instruction of the
 * entry computation becomes kernels named by its position k among the entry's fusions:
 *  - a loop fusion: ffu_k<k> (inputs in operand order, then outputs in tuple order;
 *    work-item i computes element i of every output, and the runtime launches exactly as
 *    many work-items as there are elements: kernels carry no bounds check), plus maybe a
 *    wide variant (below);
 *  - a reduction fusion (ffu__codegen_is_reduction): ffu_k<k>, ffu_k<k>_tail and
 *    ffu_k<k>_final, described at emit_stage1 and ffu__codegen_emit_reduction in reduce.c.
 * Each kernel's name, role and argument slots are its descriptor (codegen/kernel.h): the
 * signatures are printed from it and the runtime binds by it.
 * Buffers are `__global uint *` holding canonical little-endian values (words per element
 * from the field; pred one byte); values are converted to and from Montgomery form inside
 * the kernel only where a product needs it. Index ops (broadcast, slice, reshape,
 * concatenate, iota) are index arithmetic inside the kernel, never copies.
 */
#ifndef FFU_CODEGEN_CODEGEN_H
#define FFU_CODEGEN_CODEGEN_H

#include "codegen/field_cl.h"
#include "codegen/kernel.h"
#include "ir/ir.h"
#include "util/strbuf.h"

typedef struct ffu_target ffu_target; /* device/target.h: the context's resolved choices */

/*
 * Appends the program for every fusion of m's entry for target t; *n_kernels receives their
 * count. t->profile.lanes (elements per work-item, 1 = none) adds a wide variant of each
 * kernel that allows it (ffu__codegen_kernel_lanes): ffu_k<k>_wide takes one more argument,
 * `ulong stride`, and work-item g computes elements g, g + stride, ..., g + (lanes-1) stride;
 * or, where the fusion computes in a field's vector instance (codegen.c: vector_field),
 * elements lanes g .. lanes g + lanes - 1 (stride unused). Either way the wide kernel over
 * n / lanes work-items covers elements 0 .. (n / lanes) lanes - 1, and ffu_k<k> the rest.
 * t->fold decides how reductions combine a work-group's accumulators, t->ext_w64 the
 * extensions' containers.
 */
ffu_status ffu__codegen_program(ffu_strbuf *sb, const ffu_module *m, const ffu_target *t, int *n_kernels,
				ffu_error *e);
/* The same, and every fusion's kernel descriptors (kernel.h: names, roles, argument slots)
   into *pk, which the caller frees with ffu__program_kernels_free (nothing to free on
   error); with pk->keep_bodies set on entry, also the statement lists of loop fusions and
   reductions (ffu_fusion_kernels.bodies). */
ffu_status ffu__codegen_program_kernels(ffu_strbuf *sb, const ffu_module *m, const ffu_target *t,
					ffu_program_kernels *pk, ffu_error *e);
/* Lanes the wide kernel of this fusion has for target t (1: no wide kernel; 0 < lanes <= 256):
   given the target's lanes, the count this fusion gets (256-bit fields none, unless they
   invert; long chains of prime-field products at least 8; vector instances their width). */
int ffu__codegen_kernel_lanes(const ffu_inst *fusion, const ffu_target *t);
/* The field code choices of program m generated for t (field_cl.h): the target's extension
   containers, and 64-bit limbs where a 256-bit kernel runs in loops. The runtime asks the
   same for what it sizes by the device's value types (ffu__cl_value_bytes). */
ffu_cl_field_opts ffu__codegen_field_opts(const ffu_module *m, const ffu_target *t);
/* The kernel plans of every fusion of m's entry for target t as text (codegen/plan_print.c:
   `fieldfuse compile --emit plan`): descriptors, and the statement lists of loop fusions. */
ffu_status ffu__codegen_print_plans(ffu_strbuf *sb, const ffu_module *m, const ffu_target *t, ffu_error *e);
/* Is this fusion a reduction (root: reduce, or a tuple of reduces)? */
bool ffu__codegen_is_reduction(const ffu_inst *fusion);

#endif
