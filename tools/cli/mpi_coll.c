/*
 * tools/cli/mpi_coll.c: the transport of an SPMD program's collectives over MPI, one rank
 * per process (docs/hlo.md "Collectives"; api/tool.h's ffu_tool_transport, which
 * ffu_tool_spmd_run calls at each collective with the data packed). Each collective runs
 * as MPI's own operation on a communicator of its group (made once per collective, before
 * any device work, by ffu_cli_mpi_prepare, from the groups the library resolves, so MPI
 * and the interpreter's simulation agree on who talks to whom):
 *
 *   all-reduce          MPI_Iallreduce with a user-defined op: ffu_tool_combine (the field's
 *                       add or multiply, or the point add) over elements of the value's size
 *   reduce-scatter      MPI_Ireduce_scatter_block (the library packs the pieces)
 *   all-gather          MPI_Iallgather (the library places the members' blocks)
 *   all-to-all          MPI_Ialltoall
 *   collective-permute  MPI_Isend to each target, MPI_Irecv from the source
 *   replica-id, ...     no communication (the library's own)
 *
 * Every call is nonblocking and waited for with the time limit (mpi.c), each exchange
 * inside a synchronisation point. --check compares the results with the interpreter's
 * simulation of every rank, the independent definition.
 */
#include <stdint.h>
#include <stdlib.h>

#include "mpi_impl.h"

/* Each exchanging collective's communicator, by its id: its group's (ordered as the group
   lists its members), MPI_COMM_WORLD when that is every rank in order, MPI_COMM_NULL for
   collective-permute (which addresses ranks in MPI_COMM_WORLD). */
static MPI_Comm *comms;
static int n_comms;
static int my_rank;
static MPI_Op combine_op = MPI_OP_NULL;
/* What combine() combines: MPI's user functions take no context, and one reduction runs at a time. */
static const ffu_tool_collective *op_coll;

/* MPI's user-function signature: inout[i] = in[i] op inout[i] (the ops commute). */
static void combine(void *in, void *inout, int *len, MPI_Datatype *type)
{
	(void)type; /* contiguous: one element of op_coll's type */
	ffu_tool_combine(op_coll, inout, in, (size_t)*len);
}

void ffu_cli_mpi_release(void)
{
	for (int i = 0; i < n_comms; i++)
		if (comms[i] != MPI_COMM_WORLD && comms[i] != MPI_COMM_NULL)
			MPI_Comm_free(&comms[i]);
	free(comms);
	comms = NULL;
	n_comms = 0;
	if (combine_op != MPI_OP_NULL)
		MPI_Op_free(&combine_op);
}

ffu_status ffu_cli_mpi_prepare(const ffu_program *p, int rank, ffu_error *e)
{
	ffu_tool_collective *cs = NULL;
	int n = 0;
	ffu_status st = ffu_cli_mpi_point(0, e); /* the splits below are blocking: agree first */
	if (st)
		return st;
	int rc = MPI_Op_create(combine, 1, &combine_op);
	if (rc != MPI_SUCCESS)
		return ffu_cli_mpi_err(e, "MPI_Op_create", rc);
	if ((st = ffu_tool_spmd_collectives(p, rank, &cs, &n, e)))
		return st;
	my_rank = rank;
	if (!(comms = calloc((size_t)n + 1, sizeof *comms)))
		st = ffu_tool_error(e, FFU_STATUS_ENOMEM, "out of memory");
	/* every rank lists the collectives in one order, so the splits pair up */
	for (int k = 0; k < n && st == FFU_STATUS_OK; k++) {
		comms[n_comms++] = MPI_COMM_NULL;
		if (cs[k].op == FFU_TOOL_COLLECTIVE_PERMUTE)
			continue;
		if (cs[k].in_order) {
			comms[k] = MPI_COMM_WORLD;
			continue;
		}
		/* this rank at its position in its group */
		if ((rc = MPI_Comm_split(MPI_COMM_WORLD, cs[k].group, cs[k].position, &comms[k])) != MPI_SUCCESS)
			st = ffu_cli_mpi_err(e, "MPI_Comm_split", rc);
	}
	ffu_tool_spmd_collectives_free(cs, n);
	if (st == FFU_STATUS_OK)
		ffu_cli_mpi_point_end();
	return st;
}

static ffu_status count_ok(const ffu_tool_collective *c, size_t n, ffu_error *e)
{
	if (n > (size_t)INT32_MAX)
		return ffu_tool_error(e, FFU_STATUS_ELIMIT, "'%%%s': %zu per rank; MPI counts are ints", c->name, n);
	return FFU_STATUS_OK;
}

/* all-reduce, and reduce-scatter (send packed piece by piece): MPI combines count elements
   with the collective's op. */
static ffu_status reduce(const ffu_tool_collective *c, const void *send, void *recv, size_t count, ffu_error *e)
{
	const bool all = c->op == FFU_TOOL_ALL_REDUCE;
	const char *call = all ? "MPI_Iallreduce" : "MPI_Ireduce_scatter_block";
	ffu_status st = count_ok(c, all ? count : count * (size_t)c->group_size, e);
	MPI_Datatype elem = MPI_DATATYPE_NULL;
	MPI_Request req;
	int rc = st ? MPI_SUCCESS : MPI_Type_contiguous((int)c->elem_bytes, MPI_BYTE, &elem);
	if (st == FFU_STATUS_OK && rc == MPI_SUCCESS)
		rc = MPI_Type_commit(&elem);
	if (st == FFU_STATUS_OK && rc != MPI_SUCCESS)
		st = ffu_cli_mpi_err(e, "MPI_Type_contiguous", rc);
	if (st == FFU_STATUS_OK) {
		op_coll = c;
		rc = all ? MPI_Iallreduce(send, recv, (int)count, elem, combine_op, comms[c->id], &req)
			 : MPI_Ireduce_scatter_block(send, recv, (int)count, elem, combine_op, comms[c->id], &req);
		st = ffu_cli_mpi_wait(rc, &req, call, e);
	}
	if (elem != MPI_DATATYPE_NULL)
		MPI_Type_free(&elem);
	return st;
}

/* all-gather and all-to-all: MPI moves blocks of count bytes between the group's members. */
static ffu_status move_blocks(const ffu_tool_collective *c, const void *send, void *recv, size_t count, ffu_error *e)
{
	const bool gather = c->op == FFU_TOOL_ALL_GATHER;
	ffu_status st = count_ok(c, count, e);
	if (st)
		return st;
	MPI_Request req;
	const int n = (int)count;
	int rc = gather ? MPI_Iallgather(send, n, MPI_BYTE, recv, n, MPI_BYTE, comms[c->id], &req)
			: MPI_Ialltoall(send, n, MPI_BYTE, recv, n, MPI_BYTE, comms[c->id], &req);
	return ffu_cli_mpi_wait(rc, &req, gather ? "MPI_Iallgather" : "MPI_Ialltoall", e);
}

static ffu_status permute(const ffu_tool_collective *c, const void *send, void *recv, size_t count, ffu_error *e)
{
	const int R = c->n_ranks, *src = c->sources;
	MPI_Request *req = malloc(sizeof *req * ((size_t)R + 1));
	ffu_status st = req ? count_ok(c, count, e) : ffu_tool_error(e, FFU_STATUS_ENOMEM, "out of memory");
	int n = 0;
	/* one tag: the steps run one at a time, each finished before the next */
	for (int t = 0; t < R && st == FFU_STATUS_OK; t++) {
		int rc = src[t] == my_rank ? MPI_Isend(send, (int)count, MPI_BYTE, t, 0, MPI_COMM_WORLD, &req[n++])
					   : MPI_SUCCESS;
		if (rc != MPI_SUCCESS)
			st = ffu_cli_mpi_err(e, "MPI_Isend", rc);
	}
	/* no source: nothing comes (the library fills the type's zero) */
	if (st == FFU_STATUS_OK && src[my_rank] >= 0) {
		int rc = MPI_Irecv(recv, (int)count, MPI_BYTE, src[my_rank], 0, MPI_COMM_WORLD, &req[n++]);
		if (rc != MPI_SUCCESS)
			st = ffu_cli_mpi_err(e, "MPI_Irecv", rc);
	}
	for (int i = 0; i < n && st == FFU_STATUS_OK; i++)
		st = ffu_cli_mpi_wait(MPI_SUCCESS, &req[i], "collective-permute's MPI_Isend/MPI_Irecv", e);
	free(req);
	return st;
}

static ffu_status exchange(void *ctx, const ffu_tool_collective *c, const void *send, void *recv, size_t count,
			   ffu_error *e)
{
	(void)ctx;
	if (c->id < 0 || c->id >= n_comms)
		return ffu_tool_error(e, FFU_STATUS_EINVAL, "'%%%s': not prepared (ffu_cli_mpi_prepare was not called)",
				      c->name);
	ffu_status st = ffu_cli_mpi_point(0, e); /* a rank that failed since the last point says so here */
	if (st)
		return st;
	st = c->op == FFU_TOOL_COLLECTIVE_PERMUTE			   ? permute(c, send, recv, count, e)
	     : c->op == FFU_TOOL_ALL_REDUCE || c->op == FFU_TOOL_REDUCE_SCATTER ? reduce(c, send, recv, count, e)
										: move_blocks(c, send, recv, count, e);
	if (st == FFU_STATUS_OK)
		ffu_cli_mpi_point_end();
	return st;
}

ffu_tool_transport ffu_cli_mpi_transport(int rank)
{
	return (ffu_tool_transport){NULL, rank, exchange};
}
