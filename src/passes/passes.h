/*
 * passes/passes.h: the optimisation pipeline. Every pass has the same signature and works
 * in place on a verified module; the pass manager (passes.c) runs them in order, verifies
 * after each, can dump the module after any pass, and can skip any pass for bisecting.
 *
 * Pipeline (docs/architecture.md, "The pass pipeline"):
 *   dot_reduce  long dots with few results -> reduce of products  (dot_reduce.c)
 *   simplify  constant folding in the field, algebraic identities   (simplify.c)
 *   cse       common subexpressions: one instruction per value       (cse.c)
 *   dce       unused instructions and computations                   (dce.c)
 *   fusion    kernels: loop, reduction-input, multi-output fusion    (fusion.c)
 *
 * Invariants every pass keeps: the entry's parameters (count, numbers, shapes) and its
 * ROOT's shape and values are those of the input program (the ROOT may become another
 * instruction computing the same values); instruction lists stay in definition order;
 * nothing is freed (dead instructions stay in the module's arena).
 */
#ifndef FFU_PASSES_PASSES_H
#define FFU_PASSES_PASSES_H

#include <stdbool.h>
#include <stdio.h>

#include "ir/ir.h"

typedef struct ffu_pass_opts {
	bool fuse;          /* false: one kernel per operation (--no-fuse, FIELDFUSE_DISABLE_FUSION=1) */
	int max_params;     /* kernel arguments (inputs + outputs) one fusion may take; 0 = 64. Every
	                       path that runs on a device passes its ffu_device_info.max_kernel_args
	                       (ffu__caps_kernel_args); `compile` has no device and uses 64 */
	/* dots with at most this many result elements (and a long contraction) become a reduce
	   of products (passes/dot_reduce.c); the device target's (device/target.h), 0: none */
	int64_t dot_reduce_results;
	const char *dump_after; /* pass name or "all": print the module after it to dump_to */
	FILE *dump_to;
	/*
	 * Passes to skip, comma-separated ("simplify,cse"); NULL = none. Joined with
	 * FIELDFUSE_DISABLE_PASSES. Disabling "fusion" is --no-fuse (the pass still wraps each
	 * op in a kernel of its own: nothing else can run on a device).
	 */
	const char *disable;
} ffu_pass_opts;

typedef ffu_status (*ffu_pass_fn)(ffu_module *m, const ffu_pass_opts *o, ffu_error *e);

/* The pipeline, in order: the one list of the passes (the pass manager's table, its names
   for messages and --dump-after, the soak's pass-by-pass check). */
#define FFU_PASSES(X) X(dot_reduce) X(simplify) X(cse) X(dce) X(fusion)
/* The pipeline's length, and pass i's name (i in 0 .. count - 1). */
int ffu__pass_count(void);
const char *ffu__pass_name(int i);

/*
 * Constant folding and algebraic identities on the entry computation (simplify.c has the
 * full rule list): operations on constants (scalars, splats of a scalar constant, small
 * arrays) are computed on the host with fields/ arithmetic; x+0, x*1, x*0, x-x, -(-x),
 * 1/(1/x), x/c -> x*(1/c), power(x, 0|1|2), identity reshapes, slices and broadcasts,
 * get-tuple-element of a tuple and similar are rewritten. Constants are compared as values
 * of their type, so the rules hold for _mont types (whose storage is x * R).
 */
ffu_status ffu__pass_simplify(ffu_module *m, const ffu_pass_opts *o, ffu_error *e);
/* A dense dot with few result elements and a long contraction becomes a reduce of products
   (passes/dot_reduce.c says which and why). */
ffu_status ffu__pass_dot_reduce(ffu_module *m, const ffu_pass_opts *o, ffu_error *e);

/* Common subexpression elimination on the entry: instructions with the same opcode,
   attributes, shape and operands (either order for add, multiply, compare) become one. */
ffu_status ffu__pass_cse(ffu_module *m, const ffu_pass_opts *o, ffu_error *e);

/* Dead code elimination: instructions the ROOT does not depend on (parameters always stay),
   then computations that nothing calls any more. */
ffu_status ffu__pass_dce(ffu_module *m, const ffu_pass_opts *o, ffu_error *e);

/*
 * Loop fusion: groups element-wise and index ops of one iteration shape into fusion
 * instructions (kind kLoop) calling new fused computations; a value used outside its group
 * becomes an output of the fusion (several outputs make a multi-output fusion, read with
 * get-tuple-element). Without o->fuse every such op becomes a fusion of its own.
 */
ffu_status ffu__pass_fusion(ffu_module *m, const ffu_pass_opts *o, ffu_error *e);

/* Is name a pass of the pipeline (or "all")? For --dump-after. */
bool ffu__pass_known(const char *name);

/* The pipeline's pass names, in order, separated by ", " (for usage messages). */
const char *ffu__pass_names(void);

/*
 * Checks a comma-separated list of pass names (--disable-pass, FIELDFUSE_DISABLE_PASSES):
 * EINVAL naming the first unknown entry; empty entries are ignored. `what` prefixes the
 * message ("--disable-pass").
 */
ffu_status ffu__pass_check_list(const char *list, const char *what, ffu_error *e);

/* Runs the pipeline, verifying after each pass; EINVAL if a disabled pass is unknown. */
ffu_status ffu__passes_run(ffu_module *m, const ffu_pass_opts *o, ffu_error *e);

/* Runs the one pass called name (disabling does not apply), then verifies: for tests and
   bisecting. EINVAL for an unknown name. */
ffu_status ffu__pass_run_one(ffu_module *m, const char *name, const ffu_pass_opts *o, ffu_error *e);

#endif
