/*
 * tools/cli/mpi.c: the MPI side of `mpirun -np N fieldfuse run` (see cli_mpi.h) other than
 * the collectives themselves (tools/cli/mpi_coll.c): starting and stopping MPI, the node-
 * local rank, the agreement on failures at every synchronisation point, the program check,
 * the gathers to rank 0, and the time limit every wait obeys (MPI's blocking calls cannot
 * give up, so every exchange is a nonblocking call polled against --mpi-timeout).
 */
#include "cli_mpi.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

bool ffu_cli_mpi_launched(void)
{
#ifdef FFU_HAVE_MPI
	return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK");
#else
	return false;
#endif
}

#ifdef FFU_HAVE_MPI
#include <time.h>

#include "mpi_impl.h"

/* --mpi-timeout: the longest this rank waits for the others at one exchange (0: no limit). */
static double timeout_s = FFU_CLI_MPI_TIMEOUT_DEFAULT;

void ffu_cli_mpi_set_timeout(double seconds)
{
	timeout_s = seconds;
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

ffu_status ffu_cli_mpi_err(ffu_error *e, const char *call, int rc)
{
	char msg[MPI_MAX_ERROR_STRING];
	int len = 0;
	MPI_Error_string(rc, msg, &len);
	return ffu_tool_error(e, FFU_STATUS_ECOMM, "%s: %.*s", call, len, msg);
}

/*
 * Waits for a nonblocking collective, at most timeout_s: MPI's blocking calls cannot give up,
 * so a rank stuck before an exchange (a device hung in a kernel, an input that never comes)
 * would hold the others forever. Polls MPI_Test, sleeping 50 us between tries after the
 * first millisecond (an exchange's latency stays MPI's own for quick answers). rc is what
 * starting the call returned: an error there is reported instead.
 */
ffu_status ffu_cli_mpi_wait(int rc, MPI_Request *req, const char *call, ffu_error *e)
{
	if (rc != MPI_SUCCESS)
		return ffu_cli_mpi_err(e, call, rc);
	const double start = now_s();
	for (;;) {
		int done = 0, trc = MPI_Test(req, &done, MPI_STATUS_IGNORE);
		if (trc != MPI_SUCCESS)
			return ffu_cli_mpi_err(e, call, trc);
		if (done)
			return FFU_STATUS_OK;
		double waited = now_s() - start;
		if (timeout_s > 0 && waited > timeout_s)
			/* the request stays pending: the caller aborts every rank (MPI_Abort) */
			return ffu_tool_error(e, FFU_STATUS_ECOMM, "%s: the other ranks did not all arrive within %g s (--mpi-timeout); one of them stopped or is stuck",
					      call, timeout_s);
		if (waited > 1e-3)
			nanosleep(&(struct timespec){0, 50000}, NULL);
	}
}

/*
 * Agreement. Every synchronisation point (the program check, the communicators, each
 * collective, the gathers to rank 0, the finish) begins with an exchange of the ranks'
 * status words on a communicator of its own: 0, or the exit code of a rank that failed
 * since the last point. A rank that fails between points so tells every other at the next
 * point, and all finish cleanly with its code: no MPI_Abort, whose teardown in Open MPI
 * 4.1 has crashed now and then (mpirun exit 139). A failure inside a point, once the others
 * are in its data exchange, or in MPI itself (a time limit), still aborts.
 */
static MPI_Comm status_comm = MPI_COMM_NULL;
static bool in_point;
static int failed_rank = -1, failed_code;

ffu_status ffu_cli_mpi_point(int code, ffu_error *e)
{
	int size = 0;
	MPI_Comm_size(status_comm, &size);
	int *all = calloc((size_t)size + 1, sizeof *all);
	if (!all)
		return ffu_tool_error(e, FFU_STATUS_ENOMEM, "out of memory");
	MPI_Request req;
	ffu_status st = ffu_cli_mpi_wait(MPI_Iallgather(&code, 1, MPI_INT, all, 1, MPI_INT, status_comm, &req), &req,
					 "MPI_Iallgather (the ranks' status)", e);
	for (int r = 0; r < size && st == FFU_STATUS_OK && failed_rank < 0; r++)
		if (all[r]) {
			failed_rank = r;
			failed_code = all[r];
		}
	free(all);
	if (st == FFU_STATUS_OK && failed_rank >= 0)
		return ffu_tool_error(e, FFU_STATUS_ECOMM, "rank %d failed", failed_rank);
	in_point = st == FFU_STATUS_OK;
	return st;
}

void ffu_cli_mpi_point_end(void)
{
	in_point = false;
}

int ffu_cli_mpi_agreed_failure(int *rank)
{
	*rank = failed_rank;
	return failed_rank >= 0 ? failed_code : 0;
}

bool ffu_cli_mpi_in_point(void)
{
	return in_point;
}

ffu_status ffu_cli_mpi_init(int *rank, int *size, int *local_rank, ffu_error *e)
{
	MPI_Comm node = MPI_COMM_NULL;
	int rc = MPI_Init(NULL, NULL);
	if (rc != MPI_SUCCESS)
		return ffu_cli_mpi_err(e, "MPI_Init", rc);
	/* errors come back as codes, reported with the call's name, not MPI's own abort */
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	if ((rc = MPI_Comm_rank(MPI_COMM_WORLD, rank)) != MPI_SUCCESS)
		return ffu_cli_mpi_err(e, "MPI_Comm_rank", rc);
	if ((rc = MPI_Comm_size(MPI_COMM_WORLD, size)) != MPI_SUCCESS)
		return ffu_cli_mpi_err(e, "MPI_Comm_size", rc);
	/* the ranks sharing this node (memory), numbered from 0: what SEL@rank picks by */
	if ((rc = MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, *rank, MPI_INFO_NULL, &node)) != MPI_SUCCESS)
		return ffu_cli_mpi_err(e, "MPI_Comm_split_type", rc);
	rc = MPI_Comm_rank(node, local_rank);
	MPI_Comm_free(&node);
	if (rc != MPI_SUCCESS)
		return ffu_cli_mpi_err(e, "MPI_Comm_rank", rc);
	rc = MPI_Comm_dup(MPI_COMM_WORLD, &status_comm);
	return rc == MPI_SUCCESS ? FFU_STATUS_OK : ffu_cli_mpi_err(e, "MPI_Comm_dup", rc);
}

_Noreturn void ffu_cli_mpi_abort(int code)
{
	MPI_Abort(MPI_COMM_WORLD, code);
	exit(code); /* MPI_Abort does not return; this says so to the compiler */
}

void ffu_cli_mpi_finalize(void)
{
	ffu_cli_mpi_release();
	if (status_comm != MPI_COMM_NULL)
		MPI_Comm_free(&status_comm);
	MPI_Finalize();
}

/* bytes of every rank into buf on rank 0 (MPI_Igather, waited for with the time limit) */
static ffu_status gather(const void *mine, size_t bytes, void *buf, ffu_error *e)
{
	MPI_Request req;
	if (bytes > (size_t)INT32_MAX)
		return ffu_tool_error(e, FFU_STATUS_ELIMIT, "%zu bytes per rank; MPI counts are ints", bytes);
	int rc = MPI_Igather(mine, (int)bytes, MPI_BYTE, buf, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD, &req);
	return ffu_cli_mpi_wait(rc, &req, "MPI_Igather", e);
}

ffu_status ffu_cli_mpi_gather(const ffu_program *p, int rank, int size, void *const *mine, void ***all, ffu_error *e)
{
	const int n = ffu_program_num_outputs(p);
	bool need = false; /* every rank decides alike: the program is the same everywhere */
	for (int r = 1; r < size && !need; r++)
		need = ffu_tool_spmd_join_reads(p, r);
	if (!need)
		return FFU_STATUS_OK;
	ffu_status st = ffu_cli_mpi_point(0, e);
	for (int r = 1; rank == 0 && r < size && st == FFU_STATUS_OK; r++)
		if (!(all[r] = calloc((size_t)n + 1, sizeof *all[r])))
			st = ffu_tool_error(e, FFU_STATUS_ENOMEM, "out of memory");
	for (int o = 0; o < n && st == FFU_STATUS_OK; o++) {
		ffu_array_info info = {0};
		ffu_program_output(p, o, &info);
		const size_t bytes = info.bytes; /* every rank's output o has one shape */
		unsigned char *buf = rank == 0 ? malloc(bytes * (size_t)size + 1) : NULL;
		if (rank == 0 && !buf)
			st = ffu_tool_error(e, FFU_STATUS_ENOMEM, "out of memory");
		if (st == FFU_STATUS_OK)
			st = gather(mine[o], bytes, buf, e);
		for (int r = 1; rank == 0 && r < size && st == FFU_STATUS_OK; r++)
			if (!(all[r][o] = malloc(bytes + 1)))
				st = ffu_tool_error(e, FFU_STATUS_ENOMEM, "out of memory");
			else
				memcpy(all[r][o], buf + (size_t)r * bytes, bytes);
		free(buf);
	}
	if (st == FFU_STATUS_OK)
		ffu_cli_mpi_point_end();
	return st;
}

void ffu_cli_mpi_gather_free(void ***all, int size, int n)
{
	for (int r = 0; all && r < size; r++) {
		for (int o = 0; all[r] && o < n; o++)
			free(all[r][o]);
		free(all[r]);
	}
	free(all);
}

ffu_status ffu_cli_mpi_gather_bytes(const void *mine, size_t bytes, void *all, ffu_error *e)
{
	ffu_status st = ffu_cli_mpi_point(0, e);
	if (st == FFU_STATUS_OK && (st = gather(mine, bytes, all, e)) == FFU_STATUS_OK)
		ffu_cli_mpi_point_end();
	return st;
}

ffu_status ffu_cli_mpi_same_program(uint64_t hash, int size, int *differs, ffu_error *e)
{
	uint64_t *all = calloc((size_t)size, sizeof *all);
	MPI_Request req;
	ffu_status st = all ? ffu_cli_mpi_point(0, e) : ffu_tool_error(e, FFU_STATUS_ENOMEM, "out of memory");
	if (st == FFU_STATUS_OK)
		st = ffu_cli_mpi_wait(MPI_Iallgather(&hash, 8, MPI_BYTE, all, 8, MPI_BYTE, MPI_COMM_WORLD, &req), &req,
				      "MPI_Iallgather", e);
	*differs = -1;
	for (int r = 0; r < size && st == FFU_STATUS_OK && *differs < 0; r++)
		if (all[r] != all[0])
			*differs = r;
	if (st == FFU_STATUS_OK)
		ffu_cli_mpi_point_end();
	free(all);
	return st;
}

#endif
