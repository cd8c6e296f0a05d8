/*
 * tools/cli/run.h: what `fieldfuse run`'s files share: its arguments, matching --input
 * specs to inputs, the --device selector's @rank form, the report, and the two entries of
 * an SPMD program (run_spmd.c: under --interp, on one device, or one rank per process under
 * mpirun with mpi*.c). Private to tools/cli/. Only the public headers: cmd_run.c,
 * run_spmd.c and mpi*.c sit on them and api/tool.h (docs/architecture.md "One compile
 * path"), the SPMD runs through its "SPMD programs" section.
 */
#ifndef FFU_CLI_RUN_H
#define FFU_CLI_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fieldfuse/fieldfuse.h"

enum { MAX_INPUT_SPECS = 256, RUN_MISMATCHES_SHOWN = 5 };

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
	double segments_ms, exchange_ms;
	const char (*rank_devices)[16]; /* device ids by rank, or NULL */
	int n_ranks;
} spmd_report;

/* given[i] (n_inputs entries of p) := the file an --input spec ("N=FILE", "NAME=FILE")
   names for input i, NULL where none does. */
ffu_status run_match_inputs(const run_args *a, const ffu_program *p, const char **given, ffu_error *e);
/* --random SEED into *seed (0 when no --random). */
ffu_status run_seed(const run_args *a, uint64_t *seed, ffu_error *e);
/* --device SEL, or SEL@rank: among the devices SEL matches (in listing order), the one at
   the node-local rank modulo their count (docs/hlo.md "Collectives": one rank per GPU of a
   node with gpu@rank); outside mpirun the local rank is 0. */
ffu_status run_open_device(const char *sel, int local_rank, ffu_device **d, ffu_error *e);
/* The --json report, or the check line; spmd: an SPMD run's extras, or NULL. */
void run_report(const run_args *a, const char *device_id, const char *device_name, int kernels, double ms,
		const spmd_report *spmd, ffu_status st, long long elements);

/* run_spmd.c: an SPMD program (or any program under mpirun): its whole inputs read,
   every rank run, the outputs joined and written. Returns the exit code. */
int run_spmd_main(const run_args *a, const ffu_program *p);

/* mpi.c: started by mpirun (Open MPI's or a PMI launcher's variables), in a build with MPI. */
bool ffu_cli_mpi_launched(void);
/* The default of --mpi-timeout, seconds: a rank waits at most this long for the others at
   one exchange before it stops every rank (30 minutes: a cold build of a large program on
   a slow rank must not trip it). */
#define FFU_CLI_MPI_TIMEOUT_DEFAULT 1800.0

#endif
