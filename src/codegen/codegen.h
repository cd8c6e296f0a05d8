/*
 * codegen/codegen.h: fused module -> one OpenCL C program. Every fusion instruction of the
 * entry computation becomes one kernel, named by its position among the entry's fusions
 * (ffu__codegen_kernel_name), taking its inputs in operand order, then its outputs in
 * tuple order; work-item i computes element i, and the runtime launches exactly as many
 * work-items as the fusion has elements (kernels carry no bounds check). Buffers are `__global uint *` holding
 * canonical little-endian values (words per element from the field); values are converted
 * to and from Montgomery form inside the kernel only where a product needs it.
 */
#ifndef FFU_CODEGEN_CODEGEN_H
#define FFU_CODEGEN_CODEGEN_H

#include "ir/ir.h"
#include "util/strbuf.h"

/* Appends the program for every fusion of m's entry; *n_kernels receives their count. */
ffu_status ffu__codegen_program(ffu_strbuf *sb, const ffu_module *m, int *n_kernels, ffu_error *e);
/* "ffu_k<k>" into buf (32 bytes). */
void ffu__codegen_kernel_name(char *buf, int k);

#endif
