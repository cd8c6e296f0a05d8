/*
 * util/config.h: the environment switches that hold for a whole process, parsed once
 * (thread-safe) into one record instead of getenv calls scattered through the code.
 * FIELDFUSE_DEVICE and FIELDFUSE_WG_SIZE stay with the device layer (src/runtime/cl_list.c, cl_launch.c),
 * read per selection or launch: they are per-call overrides, and tests vary them in-process.
 * FIELDFUSE_FAULT is parsed once by src/ocl/fault.c.
 */
#ifndef FFU_UTIL_CONFIG_H
#define FFU_UTIL_CONFIG_H

#include <stdbool.h>

typedef struct ffu_config {
	bool disable_fusion; /* FIELDFUSE_DISABLE_FUSION set, non-empty and not "0" */
	int lanes;           /* FIELDFUSE_LANES in 1..16; 0 when unset or invalid */
	int fft_log_radix;   /* FIELDFUSE_FFT_RADIX=r in 1..6: every NTT pass of radix 2^r (the
	                        target's choice otherwise, device/target.c); 0 when unset or invalid */
	int fft_log_tile;    /* FIELDFUSE_FFT_TILE=b in 2..12: NTT passes of up to 2^b through local
	                        memory, 0 none (one stage per pass); -1 when unset or invalid (the
	                        target's choice, device/target.c), for comparing */
	int fft_vector;      /* FIELDFUSE_FFT_VECTOR=1: NTT passes in the prime's vector instance
	                        wherever it has one, 0 never; -1 when unset or invalid (the
	                        target's choice, device/target.c), for comparing */
	int msm_affine;      /* FIELDFUSE_MSM_AFFINE=k: k buckets per work-item of the msm's
	                        batch-affine bucket step, 0 none (xyzz buckets); -1 when unset or
	                        invalid (the target's choice, device/target.c), for comparing */
	int msm_one_add;     /* FIELDFUSE_MSM_ONE_ADD=1: the msm's point additions in one kernel
	                        that calls the addition from one place, 0 never; -1 when unset or
	                        invalid (the target's choice, device/target.c), for testing */
	bool profile;        /* FIELDFUSE_PROFILE set, non-empty and not "0": every kernel launch
	                        waits for its kernel and prints its time to stderr (runtime/cl_launch.c) */
	bool no_ptx;         /* FIELDFUSE_NO_PTX set, non-empty and not "0": NVIDIA builds leave
	                        out the inline-PTX carry chains (cl/carry.cl), for comparing */
	const char *build_log; /* FIELDFUSE_BUILD_LOG: the file of the build-cost log
	                          (runtime/buildlog.h), NULL when unset or empty */
	const char *disable_passes; /* FIELDFUSE_DISABLE_PASSES ("simplify,cse"), NULL when unset;
	                               checked by the pass manager, which reports unknown names */
} ffu_config;

const ffu_config *ffu__config(void);

#endif
