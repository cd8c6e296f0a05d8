/*
 * bench/bench.h: `fieldfuse bench`. Runs workloads (the .hlo files of bench/workloads, embedded) at
 * sizes 2^k on one or more devices in several modes, timing kernels with OpenCL profiling
 * events (median of `runs` timed runs after `warmup` untimed ones), and reports a table,
 * JSON (HLO.md section 6) and CSV.
 *
 * Modes: fused (the fusion pass on), unfused (one kernel per op, every intermediate in
 * device memory: how ICICLE's vec_ops run), c_baseline (hand-written, hand-fused C with
 * OpenMP on the host, reported for CPU devices), copy (a copy kernel over the same element
 * count and type: the device's bandwidth roof, always kernel-timed). Every mode's outputs
 * are compared byte for byte with the fused ones; a difference is an error, not a data point.
 *
 * On the public API (include/fieldfuse/) and src/api/tool.h only: programs, devices,
 * executables and buffers are the library's handles; values are plain host arrays of
 * storage bytes, sized by ffu_array_info.
 */
#ifndef FFU_BENCH_BENCH_H
#define FFU_BENCH_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fieldfuse/fieldfuse.h"

typedef enum { FFU_BENCH_FUSED, FFU_BENCH_UNFUSED, FFU_BENCH_C_BASELINE, FFU_BENCH_COPY, FFU_BENCH_MODE_COUNT } ffu_bench_mode;
/* kernel: OpenCL profiling events around the kernels; end_to_end: host clock around upload,
 * kernels and download (how the ZKX-vs-ICICLE article measured). */
typedef enum { FFU_TIMING_KERNEL, FFU_TIMING_END_TO_END } ffu_bench_timing;

typedef struct ffu_bench_opts {
	const char *const *workloads; /* workload or group names; NULL/0 = the seed pair */
	int n_workloads;
	const char *device;           /* selector, or "all" */
	int k_min, k_max;
	int runs, warmup;
	ffu_bench_timing timing;
	FILE *progress;               /* progress lines, or NULL */
	bool baseline_only;           /* time the c_baseline alone, on the host: no OpenCL device is
				       * opened, so no mode checks it (for a workload the device cannot
				       * run yet, msm_bn254_g1; its test checks it against the interpreter) */
	const char *save_dir;         /* or NULL: write each workload's inputs and outputs there (see
				       * save_values in bench.c) */
} ffu_bench_opts;

typedef struct ffu_bench_result {
	int device;                   /* index into the report's devices */
	const char *workload;         /* static (embedded name) */
	const char *field;            /* static (ffu_array_info.type) */
	int k;
	ffu_bench_mode mode;
	int kernels;
	double ms, min_ms, max_ms;    /* median, min, max over runs */
	double gbps;                  /* minimum traffic (inputs + outputs) / median time */
	double mul_per_s;             /* field multiplications (elements of the entry's multiplies) / median
				       * time; 0 for copy and for workloads without multiply */
	double points_per_s;          /* points of the entry's msm instructions (n each) / median time; 0
				       * for copy and for workloads without msm */
	bool host_timer;              /* timed on the host: the driver's event times are placeholders */
	int runs;
} ffu_bench_result;

/* What the report says about a device, copied when it was open (ffu_tool_device_facts'
 * strings live only as long as the device). */
enum { FFU_BENCH_STR = 256 };
typedef struct ffu_bench_device {
	char id[16];                  /* "P:D", or "host" (--baseline-only) */
	char name[FFU_BENCH_STR];
	char vendor[FFU_BENCH_STR];   /* CL_DEVICE_VENDOR */
	char platform_name[FFU_BENCH_STR];
	char driver[FFU_BENCH_STR];
} ffu_bench_device;

typedef struct ffu_bench_report {
	ffu_bench_device *devices;
	int n_devices;
	double *copy_gbps;            /* per device: the rate of its largest copy (least cache help) */
	size_t *copy_bytes;           /* the size of that copy */
	ffu_bench_result *results;
	int n_results, cap_results;
	ffu_bench_timing timing;
	bool baseline_only;           /* --baseline-only: c_baseline rows alone, on devices[0] = "host" */
} ffu_bench_report;

extern const char *const ffu__bench_mode_names[FFU_BENCH_MODE_COUNT];

/* Names of the embedded workloads (NULL-terminated) and their text. */
extern const char *const ffu__bench_workload_names[];
const char *ffu__bench_workload(const char *name);
/* Workload groups (NULL-terminated): "fieldops" is every embedded fieldops_* workload. */
extern const char *const ffu__bench_group_names[];
/* The workloads a name stands for: itself if it is a workload, else a group's members in
 * embedded order. Stores up to cap (static) names in out and returns how many there are;
 * 0 for an unknown name. */
int ffu__bench_expand(const char *name, const char **out, int cap);

ffu_status ffu__bench_run(ffu_bench_report *rep, const ffu_bench_opts *o, ffu_error *e);
void ffu__bench_report_free(ffu_bench_report *rep);

/* copy.c: the copy kernel built once on a device (its own context and queue), then timed
 * at any size: median, min and max ms of `runs` copies of `bytes` (a multiple of 4) from one
 * buffer to another after `warmup` untimed ones. Destroy before closing the device. */
typedef struct ffu_bench_copier ffu_bench_copier;
ffu_status ffu__bench_copier_create(ffu_bench_copier **out, ffu_device *d, ffu_error *e);
ffu_status ffu__bench_copy(ffu_bench_copier *c, size_t bytes, int warmup, int runs, double *ms, double *min_ms,
			   double *max_ms, bool *host_timer, ffu_error *e);
void ffu__bench_copier_destroy(ffu_bench_copier **c);
double ffu__bench_median(double *v, int n); /* sorts v */

/* One input or output array of a workload as the C baselines see it: its storage bytes on
 * the host (the caller's) and its shape. */
typedef struct ffu_bench_array {
	unsigned char *data;          /* bytes long */
	size_t bytes;
	int64_t count;                /* elements */
	int rank;
	int64_t dims[FFU_ARRAY_MAX_RANK];
} ffu_bench_array;

/* baseline.c: hand-written C for a workload, if there is one; in/out as the program's inputs
 * and outputs, n the first output's element count. ffu__bench_baseline returns the ms it
 * took once all its threads ran (see baseline.c), -1 when out of memory. */
bool ffu__bench_has_baseline(const char *workload);
double ffu__bench_baseline(const char *workload, const ffu_bench_array *in, ffu_bench_array *out, int64_t n);

/* report.c */
void ffu__bench_print_table(FILE *out, const ffu_bench_report *rep);
ffu_status ffu__bench_write_json(const char *path, const ffu_bench_report *rep, ffu_error *e);
ffu_status ffu__bench_write_csv(const char *path, const ffu_bench_report *rep, ffu_error *e);
/* PNG plots drawn by gnuplot: time vs k per mode and device, and fused time per device. */
ffu_status ffu__bench_write_plot(const char *path, const ffu_bench_report *rep, ffu_error *e);

#endif
