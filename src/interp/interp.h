/*
 * interp/interp.h: the reference interpreter. It runs a module (fused or not) on the host
 * with the plain arithmetic of fields/, one instruction at a time, and is the oracle that
 * every device result is compared with (`fieldfuse run --check`, the tests).
 *
 * Inputs are borrowed; the caller owns the returned outputs (free each with
 * ffu__value_free, then the array with free).
 */
#ifndef FFU_INTERP_INTERP_H
#define FFU_INTERP_INTERP_H

#include "ir/value.h"

/*
 * Outputs: one per tuple element of the entry ROOT, or one for a non-tuple ROOT. A program
 * of several ranks (replica_count x num_partitions, ir/collective.c) runs every rank with
 * these inputs and gives rank 0's outputs.
 */
ffu_status ffu__interp_run(const ffu_module *m, const ffu_value *inputs, int n_inputs,
			   ffu_value **outputs, int *n_outputs, ffu_error *e);
/*
 * The SPMD simulation: n_ranks (= ffu__module_ranks(m)) ranks in lockstep, rank r's inputs
 * inputs[r] (n_inputs each), its outputs into outputs[r] and n_outputs[r] (arrays of
 * n_ranks the caller provides; each outputs[r] the caller frees as above).
 */
ffu_status ffu__interp_run_ranks(const ffu_module *m, const ffu_value *const *inputs, int n_inputs, int n_ranks,
				 ffu_value **outputs, int *n_outputs, ffu_error *e);

/*
 * Collective `in` of module m across all n_ranks ranks: x[r] rank r's operand (NULL
 * entries for replica-id and partition-id), o[r] its result, allocated with in's shape
 * (interp/collective.c). The interpreter's simulation uses it, and so does the runtime's
 * exchange between ranks run in one process (runtime/spmd.c).
 */
ffu_status ffu__interp_collective(const ffu_inst *in, const ffu_module *m, int n_ranks, const ffu_value *const *x,
				  ffu_value *const *o, ffu_error *e);
/* replica-id or partition-id of rank: its number into o (the MPI exchange's, one rank). */
ffu_status ffu__interp_collective_rank(const ffu_inst *in, const ffu_module *m, int rank, ffu_value *o, ffu_error *e);

#endif
