/*
 * runtime/spmd.h: an SPMD program (several ranks, collectives: docs/hlo.md "Collectives")
 * on one device: every rank's segments run as kernels on the device, one rank after
 * another, and each collective exchanges the ranks' values on the host (ir/segment.c cuts
 * the program; interp/collective.c is the exchange). The step towards one rank per device
 * over MPI: the same plan, with the exchange between processes.
 *
 * Ownership: m is only read; inputs are borrowed; outputs[r] (arrays of n_outputs[r]
 * values) are the caller's, freed with ffu__values_free.
 */
#ifndef FFU_RUNTIME_SPMD_H
#define FFU_RUNTIME_SPMD_H

#include "runtime/compile.h"

typedef struct ffu_spmd_stats {
	int segments;      /* segment steps of the plan */
	int collectives;   /* collective steps */
	int kernels;       /* kernels of every segment, once (every rank runs them) */
	double kernel_ms;  /* device time, summed over ranks and segments */
} ffu_spmd_stats;

/* Runs m's ffu__module_ranks(m) ranks, rank r on inputs[r], on cl's device; stats optional. */
ffu_status ffu__spmd_run(ffu_cl *cl, const ffu_module *m, const ffu_compile_opts *o, const ffu_value *const *inputs,
			 int n_inputs, ffu_value **outputs, int *n_outputs, ffu_spmd_stats *stats, ffu_error *e);

#endif
