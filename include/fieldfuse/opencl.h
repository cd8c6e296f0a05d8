/*
 * fieldfuse/opencl.h: OpenCL interoperation for programs that already use OpenCL. It lets
 * fieldfuse work inside the caller's context (ffu_device_adopt), on the caller's memory
 * (ffu_buffer_wrap_cl: zero copy) and queue (ffu_executable_enqueue_cl), and hands out the
 * OpenCL objects behind fieldfuse's own handles. Owned by the API layer (src/api/).
 * Include it after defining CL_TARGET_OPENCL_VERSION if you need a particular one (it
 * defaults to 300 here); link with -lOpenCL (pkg-config's fieldfuse.pc requires it).
 *
 * Ownership: fieldfuse retains what it keeps (clRetain*) and releases it on its own destroy;
 * the caller's references stay the caller's. Getters return fieldfuse's object without a new
 * reference: valid while the handle lives; retain it to keep it longer. An event returned
 * through `cl_event *` is a new reference the caller releases (clReleaseEvent).
 *
 * Threads: as executable.h. OpenCL objects are thread-safe in themselves, but a fieldfuse
 * handle that holds them is used by one thread at a time.
 */
#ifndef FIELDFUSE_OPENCL_H
#define FIELDFUSE_OPENCL_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include <CL/cl.h>

#include "fieldfuse/executable.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A device handle on the caller's context: ctx must contain device. Buffers created by
 * fieldfuse then live in ctx, the caller's cl_mem objects of ctx can be wrapped, and the
 * caller's queues on (ctx, device) can run executables. fieldfuse creates its own in-order
 * profiling queue for uploads, downloads and ffu_executable_run. ctx is retained and
 * released by ffu_device_close. ENODEV when device is not an OpenCL device fieldfuse
 * lists (ffu_device_open's list), EINVAL when ctx does not contain it.
 */
FFU_API ffu_status ffu_device_adopt(ffu_device **out, cl_context ctx, cl_device_id device, ffu_error *e);
/* The device's context, device and in-order queue (no new reference; NULL for NULL). */
FFU_API cl_context ffu_device_cl_context(const ffu_device *d);
FFU_API cl_device_id ffu_device_cl_device(const ffu_device *d);
FFU_API cl_command_queue ffu_device_cl_queue(const ffu_device *d);

/*
 * A buffer over the caller's memory object, without a copy: mem must belong to d's context
 * and hold at least the shape's bytes (extra bytes after them are left alone). fieldfuse
 * retains mem and releases it at ffu_buffer_destroy. The values in it must be valid values
 * of the type (canonical, or Montgomery for a _mont type): they are not checked here.
 */
FFU_API ffu_status ffu_buffer_wrap_cl(ffu_buffer **out, ffu_device *d, cl_mem mem, const char *type, int rank,
				      const int64_t *dims, ffu_error *e);
/* The buffer's memory object (no new reference; NULL for NULL). */
FFU_API cl_mem ffu_buffer_cl_mem(const ffu_buffer *b);

/*
 * ffu_executable_enqueue on the caller's queue q (NULL: the device's queue): q must be an
 * in-order queue on the executable's context and device (an out-of-order queue would let
 * the run's kernels overlap: FFU_STATUS_EINVAL). Returns once everything is enqueued; with
 * done not NULL, *done is a new event (the caller releases it) that completes with the run.
 * Commands the caller enqueues on q before and after are ordered with the run by q itself.
 */
FFU_API ffu_status ffu_executable_enqueue_cl(ffu_executable *x, cl_command_queue q, const ffu_buffer *const *inputs,
					     int n_inputs, ffu_buffer *const *outputs, int n_outputs, cl_event *done,
					     ffu_error *e);
/* The OpenCL event behind an ffu_event (no new reference). */
FFU_API cl_event ffu_event_cl(const ffu_event *ev);

#ifdef __cplusplus
}
#endif
#endif
