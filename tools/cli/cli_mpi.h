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

#include "api/tool.h"
#include "run.h"

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
/* Each exchanging collective's communicator (its group, MPI_Comm_split, from
   ffu_tool_spmd_collectives) and the reduction op, made once by every rank before any
   device work (mpi_coll.c); ffu_cli_mpi_finalize frees them. */
ffu_status ffu_cli_mpi_prepare(const ffu_program *p, int rank, ffu_error *e);
/* The transport of this process's one rank (api/tool.h, ffu_tool_spmd_run): each
   collective as MPI's own operation on its group's communicator (mpi_coll.c). */
ffu_tool_transport ffu_cli_mpi_transport(int rank);
/*
 * The outputs rank 0 joins (ffu_tool_spmd_join_reads: a sharded ROOT's tiles, {maximal
 * device=D}'s rank) gathered there: every rank passes its outputs (mine[o], the program's
 * output infos' bytes each); all (size entries, NULL) gets on rank 0 all[r] (r > 0) rank
 * r's outputs, malloc'd, when the join reads any rank but 0. ffu_cli_mpi_gather_free frees
 * them.
 */
ffu_status ffu_cli_mpi_gather(const ffu_program *p, int rank, int size, void *const *mine, void ***all, ffu_error *e);
/* Frees what ffu_cli_mpi_gather put in all (n outputs per rank), and all; NULL-safe. */
void ffu_cli_mpi_gather_free(void ***all, int size, int n);
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
