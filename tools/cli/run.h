/*
 * tools/cli/run.h: what `fieldfuse run`'s two files share: its arguments, and the pieces of
 * a run both the single-device path (cmd_run.c) and the SPMD paths (run_spmd.c) use.
 * Private to tools/cli/.
 */
#ifndef FFU_CLI_RUN_H
#define FFU_CLI_RUN_H

#include <stdbool.h>

#include "fieldfuse/fieldfuse.h"
#include "ir/value.h"
#include "runtime/compile.h"
#include "runtime/spmd.h"

enum { MAX_INPUT_SPECS = 256 };

typedef struct run_args {
	const char *path, *out, *device, *seed;
	double mpi_timeout;   /* --mpi-timeout, seconds (0: none) */
	const char *inputs[MAX_INPUT_SPECS];
	int n_inputs;
	bool check, no_fuse, json, interp;
	char disabled[256]; /* --disable-pass names, comma-separated */
	ffu_dialect dialect;
} run_args;

/* What an SPMD run adds to --json: its host times, and under mpirun each rank's device. */
typedef struct spmd_report {
	const ffu_spmd_stats *stats;
	const char (*rank_devices)[16]; /* ffu_device_info ids by rank, or NULL */
	int n_ranks;
} spmd_report;

/* Compares device outputs with the interpreter's, printing the first mismatches. */
ffu_status run_check(const ffu_value *dev, const ffu_value *ref, int n, long long *elements, ffu_error *e);
/* --device (SEL@rank: local_rank's), its context, then the inputs (refused first when the
   device cannot hold a rank's): rank < 0 the whole ones, else that rank's own. */
ffu_status run_open_and_load(const run_args *a, const ffu_module *m, int local_rank, int rank, ffu_device_info *dev,
			     ffu_cl *cl, ffu_value *in, ffu_error *e);
ffu_compile_opts run_compile_opts(const run_args *a);
/* The outputs to -o or stdout (unless --json alone); st: the run's status so far. */
ffu_status run_write_outputs(const run_args *a, const ffu_value *outs, int n_outs, ffu_status st, ffu_error *e);
/* The --json report or the check line; spmd: an SPMD run's extras, or NULL. */
void run_report(const run_args *a, const ffu_device_info *dev, int kernels, double ms, const spmd_report *spmd,
		ffu_status st, long long elements);

/* run_spmd.c: an SPMD program under --interp, on one device in this process, under mpirun
   (returns the exit code; every rank's error handled there). in: the whole inputs. */
ffu_status run_spmd_interp(const run_args *a, const ffu_module *m, const ffu_value *in, ffu_error *e);
ffu_status run_spmd_here(const run_args *a, ffu_cl *cl, const ffu_device_info *dev, const ffu_module *m,
			 const ffu_value *in, const ffu_compile_opts *co, ffu_error *e);
#ifdef FFU_HAVE_MPI
int run_spmd_mpi(const run_args *a, ffu_module *m, ffu_error *e);
#endif

#endif
