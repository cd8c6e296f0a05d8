/*
 * device/launch.h: the launch configuration of a 1-D kernel, as a pure function of the
 * device's capabilities, the kernel's limits, the launch's size, the profile (built-in
 * table or tuning database) and the overrides, so its constraints can be tested as
 * properties on recorded capabilities (tests/test_caps.c) without the hardware.
 *
 * Exactness: kernels carry no bounds check (a guard stops PoCL vectorising the work-group
 * loop: measured 5-10x slower), so a plan covers exactly [offset, offset + n): `whole`
 * work-items in groups of `local` from offset, then `tail` = n - whole work-items in
 * groups of one from offset + whole (one extra work-group compile at most on PoCL).
 *
 * Which size, first that applies:
 *   1. the caller's explicit size (ffu__cl_launch's wg argument): must fit the limits and n;
 *   2. the API-level override (ffu__cl_set_override, dev->override.wg): must fit the limits;
 *   3. FIELDFUSE_WG_SIZE: must fit the limits;
 *   4. the profile's size (tuning database entry, else the built-in table): a soft cap,
 *      lowered to the limits and to a multiple of the preferred multiple;
 * for 2-4, a size above n becomes the largest power of two not above n (small launches
 * then use few distinct sizes); for 4 on a profile with small_in_ones (PoCL, which
 * compiles a work-group function per local size, seconds for a 256-bit kernel), a launch
 * smaller than the full size runs as groups of one, the size the tails already built.
 * Limits are the kernel's CL_KERNEL_WORK_GROUP_SIZE, the device's maximum work-group size
 * and its first maximum work-item size (0 = unknown).
 */
#ifndef FFU_DEVICE_LAUNCH_H
#define FFU_DEVICE_LAUNCH_H

#include "device/caps.h"
#include "device/profile.h"

/* The largest automatic work-group size when no profile says otherwise. */
#define FFU_WG_DEFAULT 256

typedef struct ffu_launch_request {
	size_t offset, n;  /* work-item ids offset .. offset + n - 1; n >= 1 */
	size_t wg;         /* the caller's explicit size; 0 = choose */
	size_t env_wg;     /* FIELDFUSE_WG_SIZE as parsed; 0 = unset */
} ffu_launch_request;

typedef struct ffu_launch_plan {
	size_t local;       /* work-group size of the whole groups (>= 1) */
	size_t whole;       /* work-items run in whole groups: a multiple of local */
	size_t tail;        /* the rest, run as groups of one */
	const char *origin; /* "explicit", "override", "FIELDFUSE_WG_SIZE", "tuned" or "profile" */
} ffu_launch_plan;

/*
 * The plan for request r of a kernel with limits k on device d with profile prof (whose wg
 * may be 0: FFU_WG_DEFAULT). EINVAL for n = 0 or an explicit size above n; ELIMIT for a
 * requested size beyond a limit or ids the device cannot address. Never reads the
 * environment or the device: everything it depends on is an argument.
 */
ffu_status ffu__launch_plan(ffu_launch_plan *out, const ffu_device_info *d, const ffu_kernel_limits *k,
			    const ffu_profile *prof, const ffu_launch_request *r, ffu_error *e);

/*
 * The automatic size: min(cap, limit) (0 = no limit) rounded down to a multiple of
 * `preferred` where one fits (else that size, or n if smaller); for n below it, the largest
 * power of two not above n. Always >= 1, <= max(n, 1) and <= a non-zero limit.
 */
size_t ffu__launch_pick(size_t n, size_t cap, size_t limit, size_t preferred);

/* Parses FIELDFUSE_WG_SIZE's value (NULL or "" = unset: 0). EINVAL unless a positive decimal. */
ffu_status ffu__launch_parse_wg(const char *s, size_t *out, ffu_error *e);

#endif
