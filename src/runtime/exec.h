/*
 * runtime/exec.h: a compiled program on one device. Created from a fused module (the
 * output of the pass pipeline): generates and builds its OpenCL program once, plans its
 * device memory, and can then be run many times.
 *
 * Memory plan: every array value of the entry has a home. Parameters live in the input
 * buffers and program outputs in the output buffers that each run binds (the caller's, or
 * the exec's own for the upload/run/download path below). Array constants get their own
 * buffer, written once at create. Every other value that must live in global memory (an
 * output of one kernel read by a later one, a reduction's partial sums) is an
 * intermediate: intermediates share a pool of buffers by liveness (a buffer is reused once
 * the last kernel reading its value has run), so the exec holds what the program needs at
 * its peak, not the sum of every intermediate. ffu__exec_memory reports the plan.
 *
 * Two ways to run: ffu__exec_enqueue binds the caller's cl_mem objects for inputs and
 * outputs and enqueues on a given queue (the embedding API); ffu__exec_upload / _run /
 * _download use buffers the exec allocates itself on first use (the CLI, the benchmark,
 * one-shot ffu_program_run).
 *
 * Ownership: the exec borrows the module and the ffu_cl (both must outlive it) and owns
 * its program, kernels and buffers; ffu__exec_destroy releases them and NULLs the handle.
 * It is used by one thread at a time (kernel arguments are set on its kernel objects).
 */
#ifndef FFU_RUNTIME_EXEC_H
#define FFU_RUNTIME_EXEC_H

#include "ir/value.h"
#include "runtime/cl.h"

typedef struct ffu_exec ffu_exec;

typedef struct ffu_exec_opts {
	bool no_sharing; /* every intermediate its own buffer (the plan's baseline, for comparison) */
} ffu_exec_opts;

/* Same as ffu__exec_create_opts with default options (intermediates shared). */
ffu_status ffu__exec_create(ffu_exec **out, ffu_cl *cl, const ffu_module *m, ffu_error *e);
/*
 * Builds m's kernels for cl's device and plans its memory. ELIMIT (before any buffer is
 * created) when one value exceeds the device's largest allocation or the plan's peak its
 * global memory. o may be NULL.
 */
ffu_status ffu__exec_create_opts(ffu_exec **out, ffu_cl *cl, const ffu_module *m, const ffu_exec_opts *o,
				 ffu_error *e);
void ffu__exec_destroy(ffu_exec **x);

/* The signature of the fused entry: parameter i, output o (a tuple ROOT's element o). */
int ffu__exec_num_inputs(const ffu_exec *x);
int ffu__exec_num_outputs(const ffu_exec *x);
const ffu_shape *ffu__exec_input_shape(const ffu_exec *x, int i);
const ffu_shape *ffu__exec_output_shape(const ffu_exec *x, int o);

/* The memory plan (bytes); see the public ffu_memory_plan for the meaning of each field. */
typedef struct ffu_exec_memory {
	size_t io_bytes, constant_bytes, shared_bytes, unshared_bytes, live_bytes, peak_bytes;
	int intermediates, buffers;
} ffu_exec_memory;
void ffu__exec_memory(const ffu_exec *x, ffu_exec_memory *out);

/*
 * Enqueues one run on queue q (NULL: cl's queue; q must be in-order, on cl's context and
 * device) with in[i] bound to parameter i and out[o] to output o (each of at least the
 * value's size; outputs distinct from each other and from the inputs: not checked here).
 * ev (optional) receives the launches' events, two entries per kernel, for
 * ffu__exec_kernel_ms. Returns after enqueueing, without waiting; on failure it waits for
 * what was enqueued (nothing is left half in flight) and ev's entries are released.
 */
ffu_status ffu__exec_enqueue(ffu_exec *x, cl_command_queue q, const cl_mem *in, const cl_mem *out,
			     ffu_launch_events *ev, ffu_error *e);
/* How a run was timed. */
typedef enum { FFU_TIMER_EVENTS, FFU_TIMER_HOST } ffu_timer;
/*
 * The device time of a completed run from ev (2 * kernel count entries, as filled by
 * ffu__exec_enqueue): first kernel start to last kernel end; where the driver's timestamps
 * are placeholders (Mesa 22 Rusticl answers START 2, END 3), host_ms instead, and *timer
 * (optional) says which. Releases the events.
 */
ffu_status ffu__exec_kernel_ms(const ffu_exec *x, ffu_launch_events *ev, double host_ms, double *kernel_ms,
			       ffu_timer *timer, ffu_error *e);

/* Copies inputs (canonical values, in parameter order) to the exec's own input buffers. */
ffu_status ffu__exec_upload(ffu_exec *x, const ffu_value *inputs, int n_inputs, ffu_error *e);
/*
 * Runs on the exec's own buffers (every kernel in order) and waits. *kernel_ms (optional)
 * receives the device time (ffu__exec_kernel_ms), *timer (optional) how it was measured.
 */
ffu_status ffu__exec_run(ffu_exec *x, double *kernel_ms, ffu_timer *timer, ffu_error *e);
/* Reads the outputs back from the exec's own buffers (caller frees each value and the array). */
ffu_status ffu__exec_download(ffu_exec *x, ffu_value **outputs, int *n_outputs, ffu_error *e);

/* Output k's bytes (ffu__shape_bytes of its shape) into dst, after ffu__exec_run: an SPMD
   run downloads into its staging memory this way. */
ffu_status ffu__exec_download_to(ffu_exec *x, int k, void *dst, size_t bytes, ffu_error *e);
int ffu__exec_kernel_count(const ffu_exec *x);
const char *ffu__exec_source(const ffu_exec *x); /* the generated OpenCL C */
/* Bytes of device memory held by the exec's buffers (constants, intermediates, own io). */
size_t ffu__exec_device_bytes(const ffu_exec *x);

#endif
