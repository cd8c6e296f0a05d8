/*
 * device/profile.h: per-device code-generation and launch choices, so vendor differences
 * live here and not as `if (nvidia)` in the code generator or the runtime.
 *
 * A profile is looked up the way CLBlast's tuning database is organised (vendor -> device
 * type -> architecture -> device name, with defaults at every level): the built-in table in
 * profile.c is overlaid from the least to the most specific matching row, then the tuning
 * database entry found for the device (`fieldfuse tune`, kept in dev->tuned), then
 * FIELDFUSE_LANES, then the API-level override (dev->override). docs/tuning.md gives the
 * reason for every row.
 *
 * Ownership: plain data; the strings are static or inside the record.
 */
#ifndef FFU_DEVICE_PROFILE_H
#define FFU_DEVICE_PROFILE_H

#include "device/caps.h"
#include "device/target.h"

/* ffu_profile (the merged layers) is defined in device/target.h, which holds one. */

void ffu__profile_for(ffu_profile *p, const ffu_device_info *dev);
/*
 * The build options that carry the profile's code choices into the device templates
 * (cl/montn*.cl): "-DFFU_MONT256_LIMB64" for 64-bit limbs, "-DFFU_VECTOR_LOADS" for
 * vector loads of 256-bit values, "-DFFU_NO_PTX" without carry chains (cl/carry.cl),
 * space-separated; "" when the defaults apply. ffu__cl_build prepends them
 * to every build, so they are part of the program cache's key.
 */
void ffu__profile_build_options(const ffu_profile *p, char *buf, size_t cap);
/*
 * How the 256-bit fields' 32-bit template carries on this device: "ptx" (NVIDIA: inline-PTX
 * carry chains, cl/carry.cl), "portable" (every other compiler, or FIELDFUSE_NO_PTX), or
 * "none" with 64-bit limbs (cl/montn_64.cl has no chains). For listings.
 */
const char *ffu__profile_carries(const ffu_profile *p, const ffu_device_info *dev);
/* The built-in table alone (no tuning entry, environment or override): what `tune` compares with. */
void ffu__profile_builtin(ffu_profile *p, const ffu_device_info *dev);

/* One row of the built-in table: a key (NULL / 0 / FFU_VENDOR_COUNT = any) and the values it sets. */
typedef struct ffu_profile_row {
	ffu_vendor vendor;    /* FFU_VENDOR_COUNT: any vendor */
	cl_device_type type;  /* 0: any type */
	const char *arch;     /* prefix of dev->arch ("sm_9", "gfx1"); NULL: any */
	const char *name;     /* case-insensitive substring of the device name; NULL: any */
	ffu_params p;         /* 0 fields are inherited from less specific rows */
	const char *label;    /* short name of the row, for `fieldfuse devices` */
	/*
	 * true: launches smaller than one work-group run as groups of one, for drivers that
	 * compile a kernel once per local size (false is inherited, not a reset)
	 */
	bool small_in_ones;
} ffu_profile_row;

extern const ffu_profile_row ffu__profile_rows[];
extern const size_t ffu__profile_n_rows;

#endif
