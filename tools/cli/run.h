/*
 * tools/cli/run.h: what `fieldfuse run`'s files share: its arguments, matching --input
 * specs to inputs, the device (SEL@rank), the executable's options, --check, the report,
 * and the entry of an SPMD program (run_spmd.c: under --interp, on one device, or one rank
 * per process under mpirun with mpi*.c). Private to tools/cli/. On the public headers and
 * api/tool.h (docs/architecture.md "One compile path"); the SPMD runs through its "SPMD
 * programs" section.
 */
#ifndef FFU_CLI_RUN_H
#define FFU_CLI_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "api/tool.h"
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
/* --check: the device's outputs against the interpreter's (the program's, or one rank's:
   rank >= 0 names it in the error), the first differences shown; *elements += those
   compared. EMISMATCH when any differs. */
ffu_status run_check(const ffu_program *p, int rank, void *const *got, void *const *want, long long *elements,
		     ffu_error *e);
/* The run's status so far (st, e) and a later step's (later, later_e, e.g. writing the
   outputs, which a failed check still does): the first failure is reported, the other's
   error freed. */
ffu_status run_first_error(ffu_status st, ffu_status later, ffu_error *later_e, ffu_error *e);
/* The executable's options a run asks for (--no-fuse, --disable-pass, the file's name). */
ffu_tool_exec_opts run_exec_opts(const run_args *a);
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
