/*
 * tools/cli/mpi_impl.h: private to tools/cli/mpi.c (start, stop, gathers, the time limit)
 * and tools/cli/mpi_coll.c (the collectives over MPI); nothing else includes it. Only in a
 * build with MPI.
 */
#ifndef FFU_CLI_MPI_IMPL_H
#define FFU_CLI_MPI_IMPL_H

#include <mpi.h>

#include "cli_mpi.h"

/* An MPI error code as an ffu_error naming the call (FFU_STATUS_ECOMM). */
ffu_status ffu_cli_mpi_err(ffu_error *e, const char *call, int rc);
/* Waits for a nonblocking call's request, at most --mpi-timeout (mpi.c); rc: what starting
   the call returned (an error there is reported instead, naming call). */
ffu_status ffu_cli_mpi_wait(int rc, MPI_Request *req, const char *call, ffu_error *e);
/* Frees the communicators and the reduction op of ffu_cli_mpi_prepare (mpi_coll.c). */
void ffu_cli_mpi_release(void);

#endif
