/*
 * device/target.h: the resolved target of a device context: every device-dependent choice
 * the code generator and the launches read, decided once from the capabilities, the profile
 * table, the tuning-database entry and the overrides (device/profile.h), so that nothing
 * downstream re-matches the profile or reads a decision out of another one (before: the
 * code generator took `int lanes` and read `lanes > 1` as "this is a CPU").
 *
 * Resolved by the runtime when a context opens and again when its override changes
 * (runtime/cl_context.c: cl->target); by the CLI and tests from a device class with no device
 * (ffu__target_generic), or from a recorded capability fixture (tests/fixtures/caps/).
 * The code generator takes `const ffu_target *` (codegen/codegen.h).
 *
 * What decides what:
 *   device class (CL_DEVICE_TYPE_CPU or not): the reductions' work-group fold (serial on a
 *     CPU, a tree elsewhere), the 64-bit containers of the extensions over the 31-bit
 *     fields (CPUs) and the NTT's radix per pass; FIELDFUSE_LANES, `tune --lanes` and the
 *     override change none of them;
 *   profile.lanes: elements per work-item of the wide kernels, 1 = none (codegen.h);
 *   profile.wg, wg_tuned: the automatic work-group size (device/launch.h);
 *   profile.vector_width, limb_bits, no_ptx: the build options and the carry chains.
 *
 * Ownership: plain data, copied by value; strings are static or inside the record.
 */
#ifndef FFU_DEVICE_TARGET_H
#define FFU_DEVICE_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

/* No OpenCL header here: the code generator includes this file (caps.h, profile.h do). */
typedef struct ffu_device_info ffu_device_info;

/* The profile layers merged (device/profile.h: ffu__profile_for); plain data. */
typedef struct ffu_profile {
	int lanes;           /* elements per work-item in wide kernels (codegen.h); 1 = none */
	size_t wg;           /* work-group size of element-wise kernels (launch.h caps it to the limits) */
	int vector_width;    /* uint words per load in 256-bit kernels: 1 scalar, 4 uint4 */
	int limb_bits;       /* limb width for 256-bit fields: 32 or 64 */
	bool wg_tuned;       /* wg came from the tuning database or the override, not the table */
	bool no_ptx;         /* leave out NVIDIA's inline-PTX carry chains (FIELDFUSE_NO_PTX) */
	bool small_in_ones;  /* a launch smaller than a work-group runs as groups of one (launch.h) */
	char source[160];    /* how it was found: "table: pocl > cpu; tuned: wg lanes" */
} ffu_profile;


typedef enum ffu_device_class {
	FFU_DEVICE_CLASS_GPU, /* GPUs, accelerators, anything that is not a CPU */
	FFU_DEVICE_CLASS_CPU, /* work-items in SIMD lanes of a core (PoCL, llvmpipe) */
} ffu_device_class;

/* How a reduction's stage 1 combines a work-group's accumulators (codegen: emit_stage1). */
typedef enum ffu_fold {
	FFU_FOLD_TREE,   /* a tree in local memory: log2(wg) barriers, the steps in parallel */
	FFU_FOLD_SERIAL, /* work-item 0 folds them in order: no barrier per step */
} ffu_fold;

typedef struct ffu_target {
	ffu_profile profile;      /* the merged layers: wg, lanes, vector width, limb bits, PTX, source */
	ffu_device_class cls;
	ffu_fold fold;
	bool ext_w64;             /* extensions over 31-bit fields in 64-bit containers (field_cl.h) */
	/* log2 of the NTT's radix per pass over memory (codegen/fft.c), by the element's storage:
	   [0] up to 4 bytes, [1] up to 8, [2] larger (256-bit fields, extensions) */
	int fft_log_radix[3];
	/* the same for transforms whose batch holds more than fft_big_bytes (0: none) */
	int fft_log_radix_big[3];
	size_t fft_big_bytes;
	size_t fft_wg;            /* the NTT passes' work-group size (codegen/fft_pass.c) */
	/* log2 of the first one-stage pass's largest radix by storage class as above, where it
	   is below the others' (0: the same as theirs), and whether a one-stage pass whose
	   sub-transforms so far are shorter than fft_wg (1 < p < fft_wg) runs in work-groups of
	   p instead (codegen/fft.c, fft_pass.c) */
	int fft_log_radix_first[3];
	bool fft_wg_p;
	/* NTT passes of two stages through local memory (codegen/fft_tile.c): log2 of such a
	   pass's largest radix by storage class as above (0: none), the local memory a tile may
	   take, its columns per work-group and work-items per column */
	int fft_log_tile[3];
	size_t fft_tile_bytes, fft_tile_w, fft_tile_sub;
	/* one-stage NTT passes computed in the prime field's vector instance, several columns a
	   work-item, where its template has one (codegen/fft_vec.c), by storage class as above;
	   fft_vector_ends: the first and last passes too (else they stay scalar: the first
	   would transpose its stores, the last hand its values to the consumers lane by lane) */
	bool fft_vector[3], fft_vector_ends[3];
	/* vector passes over transforms whose batch holds more than this store past the caches
	   (non-temporal stores of whole lines: cl/word31.cl store_at_nt); 0: never */
	size_t fft_stream_bytes;
	int64_t dot_reduce_results; /* a dot of at most this many result elements and a long
	                               contraction runs as a reduce of products (passes/dot_reduce.c) */
	int msm_reduce_items;     /* work-items of an msm's bucket reduction (codegen/msm.c) */
	int msm_affine_buckets;   /* buckets per work-item of its batch-affine bucket step; 0: none,
	                             each bucket one work-item summing in xyzz (codegen/msm.c) */
	int msm_loop_wg;          /* work-group size of its steps whose few work-items each loop over
	                             many points or buckets; 0: the driver's choice */
	bool msm_one_add;         /* its point additions in one kernel that calls the addition from
	                             one place (codegen/msm_one_add.c): for drivers that inline every
	                             call and build in time that grows faster than the code (Mesa) */
	unsigned loop_limit;      /* iterations of a kernel's outermost loop, those of the loops in it
	                             counted in, past which the driver silently leaves it (llvmpipe:
	                             65535; target.c); 0: no limit */
	/* FIELDFUSE_WG_SIZE as read when the target was resolved (device/launch.h's order: after
	   an explicit size and the override, before the tuned and table sizes); 0 unset. Where
	   its value is no positive integer, wg_env_error says so and automatic launches fail. */
	size_t wg_env;
	char wg_env_error[160];
	const char *carries;      /* "ptx", "portable" or "none" (ffu__profile_carries) */
	char build_options[96];   /* ffu__profile_build_options: prepended to every build */
} ffu_target;

/* The target of a context on dev (dev->tuned and dev->override included). */
void ffu__target_resolve(ffu_target *t, const ffu_device_info *dev);
/*
 * A device-less target: the built-in table's rows for an unknown vendor's device of class
 * cls, with `lanes` elements per work-item (1..256). What `fieldfuse compile --emit cl`
 * and the code-generation tests generate for.
 */
void ffu__target_generic(ffu_target *t, ffu_device_class cls, int lanes);
/* The target of a recorded capability fixture's device (caps.h: ffu__caps_from_json); dev
   (may be NULL) receives the device record. */
ffu_status ffu__target_from_json(ffu_target *t, ffu_device_info *dev, const char *text, size_t len, const char *file,
				 ffu_error *e);
/* Sets t's class and the decisions that follow from it alone (fold, extension containers):
   what resolving does; tests use it to run one class's code on a device of the other. */
void ffu__target_set_class(ffu_target *t, ffu_device_class cls);
/* "cpu" or "gpu". */
const char *ffu__device_class_str(ffu_device_class c);

#endif
