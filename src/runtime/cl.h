/*
 * src/runtime/cl.h: the thin layer over OpenCL that the rest of fieldfuse uses: device
 * discovery and selection, one context + profiling queue per ffu_cl, buffers, program
 * builds (with the build log), launches and event timing. Every failing OpenCL call
 * becomes an FFU_STATUS_ECL naming the call and the CL_... code (util/error.h).
 *
 * Ownership: ffu_cl owns its context, queue, and nothing else; callers release the
 * programs, kernels and buffers they create with the matching ffu__cl_*_release.
 */
#ifndef FFU_RUNTIME_CL_H
#define FFU_RUNTIME_CL_H

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

typedef enum { FFU_VENDOR_OTHER, FFU_VENDOR_POCL, FFU_VENDOR_RUSTICL, FFU_VENDOR_NVIDIA, FFU_VENDOR_AMD, FFU_VENDOR_INTEL, FFU_VENDOR_APPLE } ffu_vendor;

typedef struct ffu_device_info {
	cl_platform_id platform;
	cl_device_id device;
	int platform_index, device_index;  /* as listed by `fieldfuse devices` */
	char id[16];                        /* "P:D" */
	char name[256], vendor[256], platform_name[256], version[256], driver[256];
	ffu_vendor vendor_class;            /* from the platform name, not the device vendor */
	cl_device_type type;
	cl_uint compute_units;
	size_t max_wg;
	cl_ulong global_mem, max_alloc, local_mem;
	size_t max_param_size;
	cl_uint address_bits;               /* CL_DEVICE_ADDRESS_BITS: work-item ids must fit */
} ffu_device_info;

/* Every device of every platform (platforms without devices are skipped). *out malloc'd. */
ffu_status ffu__cl_list_devices(ffu_device_info **out, int *n, ffu_error *e);
/*
 * Picks one device by HLO.md section 5: `pocl`, `rusticl`, `nvidia`, `amd`, `intel`,
 * `cpu`, `gpu`, an index (`0`, or `P:D`), or a substring of the device name; NULL/"" means
 * $FIELDFUSE_DEVICE, else the first GPU, else the first CPU. FFU_STATUS_ENODEV with the
 * list of devices in the message when nothing matches.
 */
ffu_status ffu__cl_select(ffu_device_info *out, const char *selector, ffu_error *e);
/* All devices matching a selector ("all" matches all). *out malloc'd. */
ffu_status ffu__cl_select_all(ffu_device_info **out, int *n, const char *selector, ffu_error *e);

typedef struct ffu_cl {
	ffu_device_info dev;
	cl_context ctx;
	cl_command_queue queue;  /* in-order, profiling enabled */
} ffu_cl;

ffu_status ffu__cl_open(ffu_cl *cl, const ffu_device_info *dev, ffu_error *e);
void ffu__cl_close(ffu_cl *cl);  /* safe on a zeroed or half-opened ffu_cl */

ffu_status ffu__cl_buffer(ffu_cl *cl, cl_mem *out, size_t bytes, ffu_error *e);
ffu_status ffu__cl_write(ffu_cl *cl, cl_mem buf, const void *src, size_t bytes, ffu_error *e); /* blocking */
ffu_status ffu__cl_read(ffu_cl *cl, cl_mem buf, void *dst, size_t bytes, ffu_error *e);        /* blocking */
void ffu__cl_buffer_release(cl_mem *buf);  /* NULLs it */

/* Builds source; on failure FFU_STATUS_EBUILD with e->build_log set. */
ffu_status ffu__cl_build(ffu_cl *cl, cl_program *out, const char *source, const char *options, ffu_error *e);
ffu_status ffu__cl_kernel(cl_program prog, cl_kernel *out, const char *name, ffu_error *e);
void ffu__cl_program_release(cl_program *p);
void ffu__cl_kernel_release(cl_kernel *k);

ffu_status ffu__cl_set_arg(cl_kernel k, cl_uint idx, size_t size, const void *value, ffu_error *e);
/* The commands of one launch: the full work-groups, then (if any) the tail. */
typedef struct ffu_launch_events {
	cl_event ev[2];
	int n;
} ffu_launch_events;
void ffu__cl_launch_events_release(ffu_launch_events *ev);

/*
 * Enqueues a 1-D launch of exactly n work-items (n >= 1), ids 0 .. n-1: whole work-groups
 * of the chosen local size (wg = 0: FIELDFUSE_WG_SIZE, else ffu__cl_pick_wg; otherwise wg as
 * given), then the n % local left over as groups of one at a global offset. Kernels need no
 * bounds check, which matters: on PoCL any guard or index clamp stops the work-group loop
 * from being vectorised (measured 5-10x slower). ev (if not NULL) receives the launch's
 * events, released with ffu__cl_launch_events_release.
 */
ffu_status ffu__cl_launch(ffu_cl *cl, cl_kernel k, size_t n, size_t wg, ffu_launch_events *ev, ffu_error *e);
/* The same for work-item ids offset .. offset + n - 1. */
ffu_status ffu__cl_launch_at(ffu_cl *cl, cl_kernel k, size_t offset, size_t n, size_t wg, ffu_launch_events *ev,
			     ffu_error *e);
/*
 * The local size ffu__cl_launch picks when wg = 0 and FIELDFUSE_WG_SIZE is unset. Pure, so
 * tests and the tuner can call it: min(256, kernel_max, device_max) rounded down to a
 * multiple of `preferred` where at least one multiple fits; for n below that, the largest
 * power of two not above n (so small launches use few distinct sizes: PoCL compiles a
 * work-group function per size). A zero limit means "unknown". The result is always >= 1,
 * never above n (n >= 1), and never above a non-zero kernel_max or device_max.
 */
size_t ffu__cl_pick_wg(size_t n, size_t kernel_max, size_t device_max, size_t preferred);
/* Vendor class from a platform's name and extension string (either may be NULL). */
ffu_vendor ffu__cl_classify(const char *platform_name, const char *platform_extensions);
/* Lower-case name of a vendor class as selectors spell it: "pocl", "rusticl", ..., "other". */
const char *ffu__cl_vendor_str(ffu_vendor v);

ffu_status ffu__cl_finish(ffu_cl *cl, ffu_error *e);
/* Profiling START / END of a completed event, in ns. */
ffu_status ffu__cl_event_times(cl_event ev, cl_ulong *start, cl_ulong *end, ffu_error *e);
/*
 * False for placeholder timestamps: Mesa 22.3 Rusticl answers QUEUED 0, SUBMIT 1, START 2,
 * END 3 for every command, so its kernel times are meaningless; time such devices on the host.
 */
bool ffu__cl_times_real(cl_ulong start, cl_ulong end);
/* The host's monotonic clock in milliseconds, for drivers whose event times are placeholders. */
double ffu__now_ms(void);

#endif
