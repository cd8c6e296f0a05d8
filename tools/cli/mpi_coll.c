/*
 * tools/cli/mpi_coll.c: the collectives of an SPMD program over MPI, one rank per process
 * (docs/hlo.md "Collectives"; the exchange runtime/spmd.c calls at each collective step).
 * Each collective runs as MPI's own operation on a communicator of its group (made once per
 * collective, before any device work, by ffu_cli_mpi_prepare, from the groups
 * ir/collective.c resolves, so MPI and the interpreter's simulation agree on who talks to
 * whom):
 *
 *   all-reduce          MPI_Iallreduce with a user-defined op: the field's add or multiply,
 *                       or the point add (fields/field.h), over elements of the value's size
 *   reduce-scatter      MPI_Ireduce_scatter_block, the operand packed piece-major first
 *   all-gather          MPI_Iallgather, then the members' blocks placed along the dimension
 *   all-to-all          MPI_Ialltoall, packed and placed the same way
 *   collective-permute  MPI_Isend to each target, MPI_Irecv from the source (no source: zero)
 *   replica-id, ...     no communication
 *
 * Every call is nonblocking and waited for with the time limit (mpi.c). --check compares
 * the results with the interpreter's simulation of every rank, the independent definition.
 */
#include <stdlib.h>
#include <string.h>

#include "fields/field.h"
#include "interp/interp.h"
#include "ir/value.h"
#include "mpi_impl.h"

/* What a collective with an operand needs, resolved once: a grouped one's communicator (its
   group, ordered as the group lists its members), a collective-permute's sources. */
typedef struct coll_comm {
	const ffu_inst *in;
	MPI_Comm comm;     /* MPI_COMM_WORLD when the group is every rank in order; NULL for permute */
	int size;
	int *src;          /* collective-permute: the rank each rank receives from, -1 for none */
} coll_comm;

static coll_comm *comms;
static int n_comms;
static MPI_Op combine_op = MPI_OP_NULL;
/* What combine() combines: MPI's user functions take no context, and one reduction runs at a time. */
static const ffu_field *op_field;
static ffu_field_fn op_fn;

/* MPI's user-function signature: inout[i] = in[i] op inout[i] (the ops commute). */
static void combine(void *in, void *inout, int *len, MPI_Datatype *type)
{
	(void)type; /* contiguous: one element of op_field */
	ffu__fp_combine_n(op_field, op_fn, inout, inout, in, (size_t)*len);
}

/* A collective that exchanges an operand (replica-id and partition-id take none: the op
   table's arity says which). */
static bool exchanges(const ffu_inst *in)
{
	return ffu__ops[in->op].kind == FFU_KIND_COLLECTIVE && ffu__ops[in->op].arity > 0;
}

void ffu_cli_mpi_release(void)
{
	for (int i = 0; i < n_comms; i++) {
		if (comms[i].comm != MPI_COMM_WORLD && comms[i].comm != MPI_COMM_NULL)
			MPI_Comm_free(&comms[i].comm);
		free(comms[i].src);
	}
	free(comms);
	comms = NULL;
	n_comms = 0;
	if (combine_op != MPI_OP_NULL)
		MPI_Op_free(&combine_op);
}

/* What collective in needs: its sources (collective-permute), or its group's communicator,
   this rank at its position in the group. */
static ffu_status make_comm(const ffu_inst *in, const ffu_module *m, int rank, coll_comm *c, ffu_error *e)
{
	char why[256];
	if (in->op == FFU_OP_COLLECTIVE_PERMUTE) {
		*c = (coll_comm){in, MPI_COMM_NULL, 0, malloc(sizeof *c->src * (size_t)ffu__module_ranks(m))};
		if (!c->src)
			return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
		if (!ffu__coll_sources(in, m, c->src, why, sizeof why))
			return ffu__err(e, FFU_STATUS_EINVAL, "collective-permute '%%%s': %s", in->name, why);
		return FFU_STATUS_OK;
	}
	ffu_coll_groups g;
	if (!ffu__coll_groups(in, m, &g, why, sizeof why))
		return ffu__err(e, FFU_STATUS_EINVAL, "%s '%%%s': %s", ffu__ops[in->op].keyword, in->name, why);
	int grp = -1, pos = -1;
	bool in_order = g.n_groups == 1;
	for (int k = 0; k < g.n_groups * g.size; k++) {
		if (g.ranks[k] == rank) {
			grp = k / g.size;
			pos = k % g.size;
		}
		in_order = in_order && g.ranks[k] == k;
	}
	*c = (coll_comm){in, MPI_COMM_NULL, g.size, NULL};
	ffu__coll_groups_free(&g);
	if (grp < 0) /* the verifier checked that the groups cover every rank */
		return ffu__err(e, FFU_STATUS_EINVAL, "'%%%s': rank %d is in no group", in->name, rank);
	if (in_order) {
		c->comm = MPI_COMM_WORLD;
		return FFU_STATUS_OK;
	}
	int rc = MPI_Comm_split(MPI_COMM_WORLD, grp, pos, &c->comm);
	return rc == MPI_SUCCESS ? FFU_STATUS_OK : ffu_cli_mpi_err(e, "MPI_Comm_split", rc);
}

ffu_status ffu_cli_mpi_prepare(const ffu_module *m, int rank, ffu_error *e)
{
	const ffu_computation *E = m->entry;
	ffu_status pst = ffu_cli_mpi_point(0, e); /* the splits below are blocking: agree first */
	if (pst)
		return pst;
	int rc = MPI_Op_create(combine, 1, &combine_op);
	if (rc != MPI_SUCCESS)
		return ffu_cli_mpi_err(e, "MPI_Op_create", rc);
	if (!(comms = calloc((size_t)E->n_insts + 1, sizeof *comms)))
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	/* every rank walks the ENTRY in one order, so the splits pair up */
	for (int i = 0; i < E->n_insts; i++) {
		if (!exchanges(E->insts[i]))
			continue;
		ffu_status st = make_comm(E->insts[i], m, rank, &comms[n_comms++], e);
		if (st)
			return st;
	}
	ffu_cli_mpi_point_end();
	return FFU_STATUS_OK;
}

static const coll_comm *find_comm(const ffu_inst *in)
{
	for (int i = 0; i < n_comms; i++)
		if (comms[i].in == in)
			return &comms[i];
	return NULL;
}

/*
 * Between an array whose dimension d holds n pieces of `piece` steps ([outer][n * piece][step])
 * and the same pieces one after another ([n][outer][piece][step]): to_major packs, else
 * places.
 */
static void reorder(unsigned char *major, unsigned char *dim, int64_t outer, int n, int64_t piece, size_t step,
		    bool to_major)
{
	const size_t run = (size_t)piece * step;
	for (int p = 0; p < n; p++) {
		unsigned char *a = major + (size_t)p * (size_t)outer * run, *b = dim + (size_t)p * run;
		if (to_major)
			ffu__copy_rows(a, run, b, (size_t)n * run, outer, run);
		else
			ffu__copy_rows(b, (size_t)n * run, a, run, outer, run);
	}
}

static ffu_status count_ok(const ffu_inst *in, size_t n, ffu_error *e)
{
	if (n > (size_t)INT32_MAX)
		return ffu__err(e, FFU_STATUS_ELIMIT, "'%%%s': %zu per rank; MPI counts are ints", in->name, n);
	return FFU_STATUS_OK;
}

/* all-reduce, and reduce-scatter: member p gets piece p of dimension d, so the operand is
   packed piece by piece first; MPI combines with the field's (or the curve's) op. */
static ffu_status reduce(const ffu_inst *in, const coll_comm *c, const ffu_value *x, ffu_value *o, ffu_error *e)
{
	const ffu_field *f = ffu__shape_field(&x->shape);
	const bool all = in->op == FFU_OP_ALL_REDUCE;
	const size_t n = x->bytes / f->storage_bytes, count = all ? n : n / (size_t)c->size;
	const char *call = all ? "MPI_Iallreduce" : "MPI_Ireduce_scatter_block";
	unsigned char *packed = NULL;
	ffu_status st = count_ok(in, n, e);
	if (st == FFU_STATUS_OK && !all) {
		int64_t outer, extent;
		size_t step;
		ffu__shape_split_at(&x->shape, (int)in->dims[0], &outer, &extent, &step);
		if (!(packed = malloc(x->bytes + 1)))
			return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
		reorder(packed, x->data, outer, c->size, extent / c->size, step, true);
	}
	MPI_Datatype elem = MPI_DATATYPE_NULL;
	MPI_Request req;
	int rc = st ? MPI_SUCCESS : MPI_Type_contiguous((int)f->storage_bytes, MPI_BYTE, &elem);
	if (st == FFU_STATUS_OK && rc == MPI_SUCCESS)
		rc = MPI_Type_commit(&elem);
	if (st == FFU_STATUS_OK && rc != MPI_SUCCESS)
		st = ffu_cli_mpi_err(e, "MPI_Type_contiguous", rc);
	if (st == FFU_STATUS_OK) {
		op_field = f;
		op_fn = in->reduce_fn == FFU_OP_MULTIPLY ? ffu__fp_mul : ffu__fp_add;
		rc = all ? MPI_Iallreduce(x->data, o->data, (int)count, elem, combine_op, c->comm, &req)
			 : MPI_Ireduce_scatter_block(packed, o->data, (int)count, elem, combine_op, c->comm, &req);
		st = ffu_cli_mpi_wait(rc, &req, call, e);
	}
	if (elem != MPI_DATATYPE_NULL)
		MPI_Type_free(&elem);
	free(packed);
	return st;
}

/* all-gather and all-to-all: MPI moves blocks of the operand, placed along dimension d. */
static ffu_status move_blocks(const ffu_inst *in, const coll_comm *c, const ffu_value *x, ffu_value *o, ffu_error *e)
{
	const int d = (int)in->dims[0], S = c->size;
	const bool gather = in->op == FFU_OP_ALL_GATHER;
	int64_t outer, extent;
	size_t step;
	ffu__shape_split_at(&x->shape, d, &outer, &extent, &step);
	const size_t block = gather ? x->bytes : x->bytes / (size_t)S; /* what each member sends each member */
	ffu_status st = count_ok(in, block, e);
	unsigned char *send = gather ? NULL : malloc(x->bytes + 1), *recv = malloc(o->bytes + 1);
	if (st == FFU_STATUS_OK && (!recv || (!gather && !send)))
		st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	const char *call = gather ? "MPI_Iallgather" : "MPI_Ialltoall";
	if (st == FFU_STATUS_OK) {
		MPI_Request req;
		int rc;
		if (gather) {
			rc = MPI_Iallgather(x->data, (int)block, MPI_BYTE, recv, (int)block, MPI_BYTE, c->comm, &req);
		} else { /* piece j of dimension d goes to member j */
			reorder(send, x->data, outer, S, extent / S, step, true);
			rc = MPI_Ialltoall(send, (int)block, MPI_BYTE, recv, (int)block, MPI_BYTE, c->comm, &req);
		}
		st = ffu_cli_mpi_wait(rc, &req, call, e);
	}
	/* member j's block is piece j of the result's dimension d */
	if (st == FFU_STATUS_OK)
		reorder(recv, o->data, outer, S, gather ? extent : extent / S, step, false);
	free(send);
	free(recv);
	return st;
}

static ffu_status permute(const ffu_inst *in, const coll_comm *c, const ffu_module *m, int rank, const ffu_value *x,
			  ffu_value *o, ffu_error *e)
{
	const int R = (int)ffu__module_ranks(m);
	const int *src = c->src;
	MPI_Request *req = malloc(sizeof *req * ((size_t)R + 1));
	ffu_status st = req ? count_ok(in, x->bytes, e) : ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	int n = 0;
	/* one tag: the steps run one at a time, each finished before the next */
	for (int t = 0; t < R && st == FFU_STATUS_OK; t++) {
		int rc = src[t] == rank ? MPI_Isend(x->data, (int)x->bytes, MPI_BYTE, t, 0, MPI_COMM_WORLD, &req[n++])
					: MPI_SUCCESS;
		if (rc != MPI_SUCCESS)
			st = ffu_cli_mpi_err(e, "MPI_Isend", rc);
	}
	if (st == FFU_STATUS_OK && src[rank] >= 0) {
		int rc = MPI_Irecv(o->data, (int)o->bytes, MPI_BYTE, src[rank], 0, MPI_COMM_WORLD, &req[n++]);
		if (rc != MPI_SUCCESS)
			st = ffu_cli_mpi_err(e, "MPI_Irecv", rc);
	} else if (st == FFU_STATUS_OK) { /* no source: the type's zero (x - x; for points, infinity) */
		const ffu_field *f = ffu__shape_field(&in->shape);
		for (size_t k = 0; k < o->bytes; k += f->storage_bytes)
			ffu__fp_sub(f, o->data + k, x->data + k, x->data + k);
	}
	for (int i = 0; i < n && st == FFU_STATUS_OK; i++)
		st = ffu_cli_mpi_wait(MPI_SUCCESS, &req[i], "collective-permute's MPI_Isend/MPI_Irecv", e);
	free(req);
	return st;
}

static ffu_status exchange(void *ctx, const ffu_inst *in, const ffu_module *m, int first, int n_local,
			   const ffu_value *const *x, ffu_value *const *o, ffu_error *e)
{
	(void)ctx;
	(void)n_local; /* one: this process's rank, first */
	if (!exchanges(in)) /* replica-id, partition-id: this rank's own number */
		return ffu__interp_collective_rank(in, m, first, o[0], e);
	const coll_comm *c = find_comm(in);
	if (!c)
		return ffu__err(e, FFU_STATUS_EINVAL, "'%%%s': not prepared (ffu_cli_mpi_prepare was not called)", in->name);
	ffu_status st = ffu_cli_mpi_point(0, e); /* a rank that failed since the last point says so here */
	if (st)
		return st;
	st = in->op == FFU_OP_COLLECTIVE_PERMUTE ? permute(in, c, m, first, x[0], o[0], e)
	     : in->op == FFU_OP_ALL_REDUCE || in->op == FFU_OP_REDUCE_SCATTER ? reduce(in, c, x[0], o[0], e)
									       : move_blocks(in, c, x[0], o[0], e);
	if (st == FFU_STATUS_OK)
		ffu_cli_mpi_point_end();
	return st;
}

ffu_spmd_exchange ffu_cli_mpi_exchange(int rank)
{
	return (ffu_spmd_exchange){exchange, NULL, rank, 1};
}
