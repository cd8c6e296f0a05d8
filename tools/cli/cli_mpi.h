/*
 * tools/cli/cli_mpi.h: `mpirun -np N fieldfuse run PROG.hlo ...`: one rank per process, the
 * collectives exchanged over MPI (docs/hlo.md "Collectives"). Built where Meson finds an
 * MPI (Open MPI from Debian: -Dmpi=auto); without one, ffu_cli_mpi_launched is false and
 * the rest is absent.
 */
#ifndef FFU_CLI_MPI_H
#define FFU_CLI_MPI_H

#include <stdbool.h>
#include <stdint.h>

#include "run.h"
#include "runtime/spmd.h"

/* ffu_cli_mpi_launched and the --mpi-timeout default: run.h (cmd_run.c asks, on the public API) */

#ifdef FFU_HAVE_MPI
/* --mpi-timeout SECONDS (0: wait as long as it takes). */
void ffu_cli_mpi_set_timeout(double seconds);
/* Whether every rank runs the same program: hash is this rank's (of its canonical text);
   *differs the first rank whose hash is not rank 0's, -1 when all agree. */
ffu_status ffu_cli_mpi_same_program(uint64_t hash, int size, int *differs, ffu_error *e);
/* MPI_Init, errors returned (not fatal); this process's rank, the world's size and the
   process's rank among those on its node (MPI_COMM_TYPE_SHARED). */
ffu_status ffu_cli_mpi_init(int *rank, int *size, int *local_rank, ffu_error *e);
/* Each collective's communicator (its group, MPI_Comm_split) and the reduction op, made
   once by every rank before any device work (mpi_coll.c); ffu_cli_mpi_finalize frees them. */
ffu_status ffu_cli_mpi_prepare(const ffu_module *m, int rank, ffu_error *e);
/* The exchange of this process's one rank with the others (runtime/spmd.h): each
   collective as MPI's own operation on its group's communicator (mpi_coll.c). */
ffu_spmd_exchange ffu_cli_mpi_exchange(int rank);
/*
 * The outputs rank 0 joins (ir/value_shard.c: a sharded ROOT's tiles, {maximal device=D}'s
 * rank) gathered there: every rank passes its n outputs (mine); *all holds size entries,
 * on rank 0 all[r] (r > 0) rank r's outputs where the join reads them (else NULL), all[0]
 * NULL. Free each all[r] with ffu__values_free(all[r], n), then *all.
 */
ffu_status ffu_cli_mpi_gather(const ffu_module *m, int rank, int size, const ffu_value *mine, int n, ffu_value ***all,
			      ffu_error *e);
/*
 * Synchronisation points (mpi.c): each begins with every rank's status word (0, or the exit
 * code of its failure since the last point). point() returns FFU_STATUS_ECOMM when a rank
 * reported a failure (agreed_failure then names it and its code: every rank finishes with
 * that code, cleanly), and marks this rank inside the point until point_end. A rank whose
 * failure came between points calls point(code) once, to tell the others at their next.
 */
ffu_status ffu_cli_mpi_point(int code, ffu_error *e);
void ffu_cli_mpi_point_end(void);
int ffu_cli_mpi_agreed_failure(int *rank);
bool ffu_cli_mpi_in_point(void);
/* A few bytes of every rank (bytes each, at most INT_MAX) into all on rank 0, in rank order. */
ffu_status ffu_cli_mpi_gather_bytes(const void *mine, size_t bytes, void *all, ffu_error *e);
/* A failed rank stops every rank: MPI_Abort with the exit code (mpirun exits with it). */
_Noreturn void ffu_cli_mpi_abort(int code);
void ffu_cli_mpi_finalize(void);
#endif

#endif
