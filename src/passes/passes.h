/*
 * passes/passes.h: the optimisation pipeline. Every pass has the same signature and works
 * in place on a verified module; the pass manager (passes.c) runs them in order, verifies
 * after each, and can dump the module after any pass.
 */
#ifndef FFU_PASSES_PASSES_H
#define FFU_PASSES_PASSES_H

#include <stdbool.h>
#include <stdio.h>

#include "ir/ir.h"

typedef struct ffu_pass_opts {
	bool fuse;          /* false: one kernel per operation (--no-fuse, FIELDFUSE_DISABLE_FUSION=1) */
	int max_params;     /* kernel arguments (inputs + outputs) one fusion may take; 0 = default */
	const char *dump_after; /* pass name or "all": print the module after it to dump_to */
	FILE *dump_to;
} ffu_pass_opts;

typedef ffu_status (*ffu_pass_fn)(ffu_module *m, const ffu_pass_opts *o, ffu_error *e);

/*
 * Loop fusion: groups element-wise and index ops of one iteration shape into fusion
 * instructions (kind kLoop) calling new fused computations; a value used outside its group
 * becomes an output of the fusion (several outputs make a multi-output fusion, read with
 * get-tuple-element). Without o->fuse every such op becomes a fusion of its own.
 */
ffu_status ffu__pass_fusion(ffu_module *m, const ffu_pass_opts *o, ffu_error *e);

/* Is name a pass of the pipeline (or "all")? For --dump-after. */
bool ffu__pass_known(const char *name);

/* Runs the pipeline (today: fusion), verifying after each pass. */
ffu_status ffu__passes_run(ffu_module *m, const ffu_pass_opts *o, ffu_error *e);

#endif
