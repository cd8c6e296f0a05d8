/*
 * runtime/exec.h: a compiled program on one device. Created from a fused module (the
 * output of the pass pipeline): generates and builds its OpenCL program once, allocates a
 * device buffer for every parameter, array constant and fusion output, and can then be run
 * many times on the uploaded inputs (the benchmark does exactly that).
 *
 * Ownership: the exec borrows the module and the ffu_cl (both must outlive it) and owns
 * its program, kernels and buffers; ffu__exec_destroy releases them and NULLs the handle.
 */
#ifndef FFU_RUNTIME_EXEC_H
#define FFU_RUNTIME_EXEC_H

#include "ir/value.h"
#include "runtime/cl.h"

typedef struct ffu_exec ffu_exec;

ffu_status ffu__exec_create(ffu_exec **out, ffu_cl *cl, const ffu_module *m, ffu_error *e);
void ffu__exec_destroy(ffu_exec **x);
/* Copies inputs (canonical values, in parameter order) to the device. */
ffu_status ffu__exec_upload(ffu_exec *x, const ffu_value *inputs, int n_inputs, ffu_error *e);
/* How a run was timed. */
typedef enum { FFU_TIMER_EVENTS, FFU_TIMER_HOST } ffu_timer;

/*
 * Enqueues every kernel in order and waits. *kernel_ms (optional) receives the device time
 * from the first kernel's start to the last kernel's end (OpenCL profiling events); where
 * the driver's profiling timestamps are placeholders (Mesa 22 Rusticl answers START 2,
 * END 3), the host's monotonic clock from the first enqueue to clFinish instead, and
 * *timer (optional) says which.
 */
ffu_status ffu__exec_run(ffu_exec *x, double *kernel_ms, ffu_timer *timer, ffu_error *e);
/* Reads the outputs back (caller frees each value and the array). */
ffu_status ffu__exec_download(ffu_exec *x, ffu_value **outputs, int *n_outputs, ffu_error *e);
int ffu__exec_kernel_count(const ffu_exec *x);
const char *ffu__exec_source(const ffu_exec *x); /* the generated OpenCL C */
/* Bytes of device memory held by the exec's buffers. */
size_t ffu__exec_device_bytes(const ffu_exec *x);

#endif
