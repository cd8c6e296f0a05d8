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
	double segment_ms; /* host wall time of the segments: uploads, runs, downloads (this process) */
	double exchange_ms;/* host wall time of the collective steps (with MPI: waiting for the others too) */
} ffu_spmd_stats;

/*
 * How a collective step reaches the other ranks. The process holds ranks first ..
 * first + n_local - 1; x[l] is local rank l's operand (NULL for replica-id, partition-id),
 * o[l] its result, allocated with the collective's shape. ffu__spmd_local exchanges among
 * the process's own ranks (all of them: the interpreter's exchange); between processes,
 * api/tool_spmd.c's exchange packs and places the pieces and a tool's transport moves the
 * bytes (MPI's: tools/cli/mpi_coll.c).
 */
typedef struct ffu_spmd_exchange {
	ffu_status (*run)(void *ctx, const ffu_inst *coll, const ffu_module *m, int first, int n_local,
			  const ffu_value *const *x, ffu_value *const *o, ffu_error *e);
	void *ctx;
	int first, n_local;       /* the process's ranks; ffu__spmd_local: n_local -1, every rank */
} ffu_spmd_exchange;
/* Every rank in this process. */
extern const ffu_spmd_exchange ffu__spmd_local;

/*
 * Runs the process's ranks of m (ex NULL: ffu__spmd_local, every rank), local rank l on
 * inputs[l], on cl's device; outputs[l] its outputs; stats optional.
 */
ffu_status ffu__spmd_run(ffu_cl *cl, const ffu_module *m, const ffu_compile_opts *o, const ffu_spmd_exchange *ex,
			 const ffu_value *const *inputs, int n_inputs, ffu_value **outputs, int *n_outputs,
			 ffu_spmd_stats *stats, ffu_error *e);

#endif
