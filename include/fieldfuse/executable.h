/*
 * fieldfuse/executable.h: the embedding API. A prover compiles each of its programs once
 * into an ffu_executable for one device, keeps its data on that device in ffu_buffer
 * objects, and runs the executables thousands of times on those buffers, passing the
 * outputs of one as inputs of the next without any host <-> device copy. Owned by the API
 * layer (src/api/executable.c, src/api/buffer.c); OpenCL interoperation (wrapping a cl_mem,
 * running on the caller's cl_command_queue, adopting the caller's cl_context) is in
 * fieldfuse/opencl.h.
 *
 * Executables
 *   ffu_executable_create compiles a program for a device: the passes (fusion unless
 *   no_fuse), code generation, the OpenCL build, launch configurations, and a memory plan.
 *   The plan gives every intermediate value that must live in global memory (an output of
 *   one kernel read by a later one) a buffer shared by liveness: values whose lifetimes do
 *   not overlap use the same buffer, so the executable holds what the program needs at its
 *   peak, not the sum of every intermediate (ffu_executable_memory). Inputs and outputs are
 *   never the executable's: they are the caller's buffers, bound at each run.
 *
 * Buffers
 *   An ffu_buffer is device memory holding an array of one element type and shape. Values
 *   in it are what the type says (HLO.md section 1): canonical integers in [0, p) for a field
 *   type, Montgomery form x * R mod p for a `_mont` type. A transfer's form says how the
 *   host data represents the field elements, whatever the buffer's type: FFU_FORM_CANONICAL
 *   on a field buffer and FFU_FORM_MONTGOMERY on a `_mont` buffer copy the bytes as they
 *   are; the other combinations convert on the host (R as the field's `_mont` type: 2^32
 *   for the 31-bit fields, 2^64 for goldilocks, 2^256 for the 256-bit fields; an extension
 *   element converts coefficient by coefficient). Uploads check every element is a valid
 *   value (FFU_STATUS_EINVAL naming the element), never reduce it.
 *
 * Runs
 *   ffu_executable_run binds the buffers, enqueues every kernel and waits; ffu_executable_enqueue
 *   returns at once with an ffu_event to wait on. Arguments are checked against the program's
 *   signature before anything is enqueued: FFU_STATUS_ESIGNATURE naming the argument, what
 *   the program expects and what was given ("input 1 (g): expected koalabear[1024], got
 *   koalabear[512]"); a buffer of another device's context, or an output that is also an
 *   input or another output, is FFU_STATUS_EINVAL.
 *   Everything one device's calls enqueue goes to its one in-order queue, in call order:
 *   ffu_buffer_upload, the kernels of each run and ffu_buffer_download are ordered, so a run
 *   enqueued after an upload sees the data and a download after a run sees its result,
 *   without waiting in between. (Runs on a caller's own queue, fieldfuse/opencl.h, are
 *   ordered on that queue only: wait for their event before touching their buffers here.)
 *
 * Ownership
 *   - Every create has its destroy, which takes the handle's address, releases it and NULLs
 *     it (NULL and a pointer to NULL are no-ops). The caller owns what it creates.
 *   - An executable and a buffer keep a pointer to their ffu_device: close the device last.
 *     An executable does not keep its ffu_program: the program may be destroyed after
 *     ffu_executable_create.
 *   - A run borrows its buffers until it completes (ffu_executable_run returns, or its event
 *     completes): do not destroy or upload into them before. Destroying an executable or a
 *     buffer with work still in flight is safe for the library (OpenCL keeps the memory
 *     until the commands finish) but the results of that work are lost.
 *   - An ffu_event is the caller's (ffu_event_destroy), independent of the executable.
 *
 * Threads
 *   - An ffu_device is used by one thread at a time (fieldfuse.h), and so are the
 *     executables and buffers created on it: uploads, downloads and runs enqueue on the
 *     device's queue. Give each thread its own device, or serialise.
 *   - An executable's intermediate buffers belong to it, so two runs of one executable must
 *     not overlap on different queues; on one in-order queue (the device's, or one caller
 *     queue) they may be enqueued back to back. Use one executable per concurrent stream.
 *   - ffu_event_wait / ffu_event_status / ffu_event_destroy may be called from any thread.
 */
#ifndef FIELDFUSE_EXECUTABLE_H
#define FIELDFUSE_EXECUTABLE_H

#include "fieldfuse/fieldfuse.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ffu_executable ffu_executable;
typedef struct ffu_buffer ffu_buffer;
typedef struct ffu_event ffu_event;

/* ---------------------------------------------------------------- compiling */

typedef struct ffu_compile_options {
	int no_fuse;         /* nonzero: one kernel per operation (the unfused baseline) */
	int no_buffer_reuse; /* nonzero: every intermediate its own buffer (to measure the plan) */
} ffu_compile_options;

/*
 * Compiles p for d (o may be NULL: fused, buffers shared). FIELDFUSE_DISABLE_FUSION=1 acts
 * as no_fuse. FFU_STATUS_EBUILD with the build log in e when the OpenCL build fails,
 * FFU_STATUS_ELIMIT when a buffer or the program's peak exceeds the device's memory.
 */
FFU_API ffu_status ffu_executable_create(ffu_executable **out, ffu_device *d, const ffu_program *p,
					 const ffu_compile_options *o, ffu_error *e);
FFU_API void ffu_executable_destroy(ffu_executable **x);

/* The signature: same descriptions as ffu_program_input / ffu_program_output (names owned by x). */
FFU_API int ffu_executable_num_inputs(const ffu_executable *x);
FFU_API int ffu_executable_num_outputs(const ffu_executable *x);
FFU_API ffu_status ffu_executable_input(const ffu_executable *x, int i, ffu_array_info *info);
FFU_API ffu_status ffu_executable_output(const ffu_executable *x, int i, ffu_array_info *info);
/* Kernels one run launches (a reduction counts once); 0 for NULL. */
FFU_API int ffu_executable_kernel_count(const ffu_executable *x);

/*
 * The memory plan, in bytes of device memory. peak_bytes is what one run needs at most:
 * the caller's inputs and outputs, the executable's constants and its shared intermediate
 * buffers (which include reductions' partial sums). unshared_bytes is what one buffer per
 * intermediate would take; live_bytes the largest total of intermediates alive at one
 * time, the least any plan can use (shared_bytes >= live_bytes).
 */
typedef struct ffu_memory_plan {
	size_t peak_bytes;      /* io_bytes + constant_bytes + shared_bytes */
	size_t io_bytes;        /* inputs and outputs: the caller's buffers */
	size_t constant_bytes;  /* array constants, uploaded once at create */
	size_t shared_bytes;    /* the intermediate buffers, as planned */
	size_t unshared_bytes;  /* the same values, one buffer each */
	size_t live_bytes;      /* the most intermediate bytes alive at once */
	int intermediates;      /* intermediate values (kernel outputs and partial sums) */
	int buffers;            /* the buffers they share */
} ffu_memory_plan;
FFU_API ffu_status ffu_executable_memory(const ffu_executable *x, ffu_memory_plan *plan);
/* plan.peak_bytes; 0 for NULL. */
FFU_API size_t ffu_executable_peak_bytes(const ffu_executable *x);

/* ---------------------------------------------------------------- buffers */

typedef enum ffu_form {
	FFU_FORM_CANONICAL,  /* integers in [0, p) */
	FFU_FORM_MONTGOMERY  /* x * R mod p (not for u32, u64, pred) */
} ffu_form;

/* Device memory for an array of `type` (HLO keyword) and shape (rank, dims); contents undefined. */
FFU_API ffu_status ffu_buffer_create(ffu_buffer **out, ffu_device *d, const char *type, int rank,
				     const int64_t *dims, ffu_error *e);
/* A buffer shaped like input / output i of x, on x's device (a CSR sparse input's holds its
   CSR bytes: ffu_array_info.nnz; the only way to make one). */
FFU_API ffu_status ffu_buffer_create_input(ffu_buffer **out, const ffu_executable *x, int i, ffu_error *e);
FFU_API ffu_status ffu_buffer_create_output(ffu_buffer **out, const ffu_executable *x, int i, ffu_error *e);
FFU_API void ffu_buffer_destroy(ffu_buffer **b);
/* Type and shape (name ""); FFU_STATUS_EINVAL for NULL. */
FFU_API ffu_status ffu_buffer_info(const ffu_buffer *b, ffu_array_info *info);
/*
 * Copies `bytes` (exactly the buffer's size: count * elem_bytes, or a CSR input's
 * ffu_array_info.bytes, whose row pointers and columns are checked and whose values alone
 * take the form) from host into b, given in `form`. Blocking: it is enqueued on the device's queue behind the work already there and
 * returns when the copy is done (the host memory may be reused at once).
 */
FFU_API ffu_status ffu_buffer_upload(ffu_buffer *b, const void *host, size_t bytes, ffu_form form, ffu_error *e);
/* Waits for the work enqueued before on the device's queue, then copies b to host in `form`. */
FFU_API ffu_status ffu_buffer_download(const ffu_buffer *b, void *host, size_t bytes, ffu_form form, ffu_error *e);

/* ---------------------------------------------------------------- running */

typedef struct ffu_run_stats {
	double kernel_ms; /* first kernel start to last kernel end (profiling events) */
	double host_ms;   /* host wall time of the whole call: binding, enqueue, wait */
	int host_timed;   /* 1 if kernel_ms is the host time (drivers with placeholder timestamps) */
	int kernels;      /* kernels launched */
} ffu_run_stats;

/*
 * Runs x on the buffers (inputs[i] for input i, outputs[o] for output o; n_inputs and
 * n_outputs must be the signature's counts) and waits for completion. stats (optional)
 * costs a profiling event per launch; without it the call only enqueues and waits.
 */
FFU_API ffu_status ffu_executable_run(ffu_executable *x, const ffu_buffer *const *inputs, int n_inputs,
				      ffu_buffer *const *outputs, int n_outputs, ffu_run_stats *stats,
				      ffu_error *e);
/*
 * The same, returning once everything is enqueued on the device's queue. *done (optional)
 * receives an event that completes with the run. A failure to enqueue returns the error
 * after waiting for whatever part of the run was enqueued (nothing is left half in flight).
 */
FFU_API ffu_status ffu_executable_enqueue(ffu_executable *x, const ffu_buffer *const *inputs, int n_inputs,
					  ffu_buffer *const *outputs, int n_outputs, ffu_event **done,
					  ffu_error *e);
/* Waits for everything enqueued on the device's queue so far. */
FFU_API ffu_status ffu_device_finish(ffu_device *d, ffu_error *e);

/* Blocks until the event's run has completed; FFU_STATUS_ECL if it failed on the device. */
FFU_API ffu_status ffu_event_wait(ffu_event *ev, ffu_error *e);
/* *complete = 1 once the run has completed, 0 while it is queued or running. */
FFU_API ffu_status ffu_event_status(const ffu_event *ev, int *complete, ffu_error *e);
FFU_API void ffu_event_destroy(ffu_event **ev);

#ifdef __cplusplus
}
#endif
#endif
