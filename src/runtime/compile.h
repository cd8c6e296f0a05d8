/*
 * runtime/compile.h: the one compile path, module -> verified -> passes -> executable. The
 * embedding API (executables, one-shot runs) and every tool (cmd_run, cmd_compile, tune,
 * latency, soak, bench) compile through here, so the pass options (fusion switch, kernel
 * argument budget, disabled passes, dumps) are built in exactly one place.
 *
 * Ownership: the module is the caller's and is compiled in place (it becomes the fused
 * module); the exec borrows it and the ffu_cl, so both must outlive the exec. A caller that
 * must keep its module unfused (a shared ffu_program) compiles a copy (ffu__module_clone).
 */
#ifndef FFU_RUNTIME_COMPILE_H
#define FFU_RUNTIME_COMPILE_H

#include <stdbool.h>
#include <stdio.h>

#include "runtime/exec.h"

typedef struct ffu_compile_opts {
	bool no_fuse;         /* one kernel per op (--no-fuse; FIELDFUSE_DISABLE_FUSION=1 too) */
	/* no_fuse alone decides, FIELDFUSE_DISABLE_FUSION is not read: bench and soak compile
	   both ways on purpose, tune measures fused kernels only */
	bool fusion_as_asked;
	bool verified;        /* the caller verified m already (programs are verified when made) */
	const char *file;     /* the name verifier errors carry; NULL: the module's name */
	const char *disable;  /* passes to skip, comma-separated (--disable-pass); NULL: none */
	const char *dump_after; /* pass name or "all": the module after it to dump_to */
	FILE *dump_to;
	bool no_buffer_reuse; /* every intermediate its own buffer (ffu_exec_opts.no_sharing) */
	int max_params;       /* with no cl: a recorded device's kernel argument budget (compile --target); 0: 64 */
	int64_t dot_reduce_results; /* with no cl: the target's (device/target.h); 0: no dot becomes a reduce */
} ffu_compile_opts;

/*
 * Verifies m (unless o->verified) and runs the pass pipeline on it in place; the kernel
 * argument budget is cl's device's, or with no device (cl NULL: `compile --emit`, which
 * stops at the fused module) o->max_params, else 64. o may be NULL (defaults).
 */
ffu_status ffu__compile_module(ffu_module *m, const ffu_cl *cl, const ffu_compile_opts *o, ffu_error *e);

/* ffu__compile_module, then the executable of the fused module on cl. */
ffu_status ffu__compile(ffu_exec **out, ffu_cl *cl, ffu_module *m, const ffu_compile_opts *o, ffu_error *e);

#endif
