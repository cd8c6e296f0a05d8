/*
 * src/runtime/cl.h: the thin layer over OpenCL that the rest of fieldfuse uses: device
 * discovery and selection, one context + profiling queue per ffu_cl, buffers, program
 * builds (with the build log), launches and event timing. Every failing OpenCL call
 * becomes an FFU_STATUS_ECL naming the call and the CL_... code (ffu__err_cl, ocl/ocl.h).
 *
 * One file per concern: cl_list.c (listing, selection by device/selector.h), cl_context.c
 * (context, queue, target, tuning entry, disk-cache policy), cl_buffer.c, cl_build.c (builds
 * through runtime/cache.c, kernels), cl_launch.c (launches planned by device/launch.c),
 * cl_time.c (finish, event and host timing).
 *
 * Ownership: ffu_cl owns its context, queue and program cache (one reference to each cached
 * program); callers release the programs, kernels and buffers they create with the
 * matching ffu__cl_*_release. The capability record and its table live in device/caps.h.
 */
#ifndef FFU_RUNTIME_CL_H
#define FFU_RUNTIME_CL_H

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device/caps.h"
#include "device/launch.h"
#include "device/target.h"
#include "util/error.h"

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
	ffu_device_info dev;     /* dev.tuned: the tuning-database entry found at open; dev.override: set below */
	ffu_target target;       /* resolved from dev at open and on every override (device/target.h):
	                            what builds, code generation and launches read */
	cl_context ctx;
	cl_command_queue queue;  /* in-order, profiling enabled */
	struct ffu_prog_cache *programs; /* built programs by source and options (runtime/cache.h) */
	bool disk_cache;         /* build through the on-disk program cache (runtime/cache.h) */
	struct {
		unsigned memory_hits, disk_hits, disk_rejects, disk_writes, source_builds;
	} cache_stats;
} ffu_cl;

/*
 * Opens a context and queue on dev, looks up its tuning-database entry (a missing or
 * unreadable database is no error: the built-in profile applies) and decides whether
 * builds use the disk cache: the vendor class's default, or FIELDFUSE_PROGRAM_CACHE=0|1.
 */
ffu_status ffu__cl_open(ffu_cl *cl, const ffu_device_info *dev, ffu_error *e);
/*
 * The rest of an open once cl->dev and cl->ctx are set (ffu__cl_open's new context, or a
 * caller's context adopted through the API): the in-order profiling queue, the tuning
 * database entry and the disk-cache choice. On failure the caller closes cl.
 */
ffu_status ffu__cl_attach(ffu_cl *cl, ffu_error *e);
void ffu__cl_close(ffu_cl *cl);  /* safe on a zeroed or half-opened ffu_cl; releases cached programs */

/*
 * The API-level override of this context's launch and code-generation choices (NULL or all
 * zero: none): a non-zero wg wins over FIELDFUSE_WG_SIZE and the tuning database for every
 * automatic launch (device/launch.h), non-zero lanes over FIELDFUSE_LANES for programs
 * compiled afterwards (device/profile.h).
 */
void ffu__cl_set_override(ffu_cl *cl, const ffu_params *p);
/* Resolves cl->target again after cl->dev or the environment changed (its tuning entry,
   FIELDFUSE_WG_SIZE); open and ffu__cl_set_override do so themselves. */
void ffu__cl_retarget(ffu_cl *cl);
/* Turns this context's disk program cache on or off (tests, measurements). */
void ffu__cl_set_disk_cache(ffu_cl *cl, bool on);
/* Releases the programs the context's memory cache holds (each holds the context too). */
void ffu__cl_forget_programs(ffu_cl *cl);

ffu_status ffu__cl_buffer(ffu_cl *cl, cl_mem *out, size_t bytes, ffu_error *e);
ffu_status ffu__cl_write(ffu_cl *cl, cl_mem buf, const void *src, size_t bytes, ffu_error *e); /* blocking */
ffu_status ffu__cl_read(ffu_cl *cl, cl_mem buf, void *dst, size_t bytes, ffu_error *e);        /* blocking */
void ffu__cl_buffer_release(cl_mem *buf);  /* NULLs it */
/*
 * Host memory for staging values between the device and the host (an SPMD run's values at
 * collectives): a buffer the driver allocates (CL_MEM_ALLOC_HOST_PTR), mapped for the
 * run's lifetime. NVIDIA's and AMD's drivers page-lock it, so reads and writes through it
 * run at the bus's DMA rate instead of through a bounce buffer; on CPU devices it is
 * ordinary memory. ptr is valid until ffu__cl_pinned_free (which unmaps and releases;
 * safe on a zeroed one).
 */
typedef struct ffu_cl_pinned {
	cl_mem mem;
	void *ptr;
	size_t bytes;
} ffu_cl_pinned;
ffu_status ffu__cl_pinned_alloc(ffu_cl *cl, size_t bytes, ffu_cl_pinned *out, ffu_error *e);
void ffu__cl_pinned_free(ffu_cl *cl, ffu_cl_pinned *p);

/*
 * Builds source for cl's device; on failure FFU_STATUS_EBUILD with e->build_log set. The
 * device profile's defines (ffu__profile_build_options: limb width, vector loads) come
 * before options. Looks in the context's memory cache, then (where enabled) the disk cache,
 * before building from source (runtime/cache.h); *out is always the caller's reference.
 */
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
 * of the chosen local size, then the n % local left over as groups of one at a global
 * offset. The size is device/launch.h's plan: wg if non-zero, else the context's override,
 * else FIELDFUSE_WG_SIZE (as the target read it at open), else the context's target's (tuning database
 * or built-in table, resolved at open) within the kernel's and device's limits. Kernels need no bounds check,
 * which matters: on PoCL any guard or index clamp stops the work-group loop from being
 * vectorised (measured 5-10x slower). ev (if not NULL) receives the launch's events,
 * released with ffu__cl_launch_events_release.
 */
ffu_status ffu__cl_launch(ffu_cl *cl, cl_kernel k, size_t n, size_t wg, ffu_launch_events *ev, ffu_error *e);
/* The same for work-item ids offset .. offset + n - 1. */
ffu_status ffu__cl_launch_at(ffu_cl *cl, cl_kernel k, size_t offset, size_t n, size_t wg, ffu_launch_events *ev,
			     ffu_error *e);
/* The launch of n work-items from offset with the kernel's limits lim as those calls make it
   (device/launch.h: wg if non-zero, else the override, FIELDFUSE_WG_SIZE as the target read
   it, the tuned or profile size); EINVAL for a bad FIELDFUSE_WG_SIZE, ELIMIT beyond a limit.
   What an executable fixes at creation, and tools launching their own kernels ask. */
ffu_status ffu__cl_launch_plan(const ffu_cl *cl, const ffu_kernel_limits *lim, size_t offset, size_t n, size_t wg,
			       ffu_launch_plan *plan, ffu_error *e);
/* The same with the kernel's limits (ffu__cl_kernel_limits) given: an executable queries
   them once per kernel when it is created, not at every launch. */
ffu_status ffu__cl_launch_limited(ffu_cl *cl, cl_kernel k, const ffu_kernel_limits *lim, size_t offset, size_t n,
				  size_t wg, ffu_launch_events *ev, ffu_error *e);
/*
 * The local size the built-in default profile gives (device/launch.h's ffu__launch_pick with
 * a cap of 256). Pure: min(256, kernel_max, device_max) rounded down to a
 * multiple of `preferred` where at least one multiple fits; for n below that, the largest
 * power of two not above n (so small launches use few distinct sizes: PoCL compiles a
 * work-group function per size). A zero limit means "unknown". The result is always >= 1,
 * never above n (n >= 1), and never above a non-zero kernel_max or device_max.
 */
size_t ffu__cl_pick_wg(size_t n, size_t kernel_max, size_t device_max, size_t preferred);
/* Vendor class from a platform's name and extension string (either may be NULL); see ffu__caps_classify. */
ffu_vendor ffu__cl_classify(const char *platform_name, const char *platform_extensions);
/* Lower-case name of a vendor class as selectors spell it: "pocl", "rusticl", ..., "other". */
const char *ffu__cl_vendor_str(ffu_vendor v);
/* The kernel's limits on cl's device (CL_KERNEL_WORK_GROUP_SIZE, preferred multiple). */
ffu_status ffu__cl_kernel_limits(ffu_cl *cl, cl_kernel k, ffu_kernel_limits *out, ffu_error *e);

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
