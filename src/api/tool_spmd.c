/*
 * src/api/tool_spmd.c: the tools' SPMD programs (see tool.h, "SPMD programs"; docs/hlo.md
 * "Collectives", "Sharding"): the whole inputs the value files hold and each rank's part
 * of them, the ranks run on one device (runtime/spmd.c) or this process's one rank with a
 * tool's transport, the interpreter's simulation of every rank, and the outputs joined by
 * the ROOT's sharding. The collectives' semantics stay here (groups and sources from
 * ir/collective.c, the packing of pieces, the reductions of fields/): a transport only
 * moves the bytes it is handed, so `fieldfuse run`'s MPI code needs no internal type.
 * Owned by the API layer.
 */
#include "api/tool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "fields/field.h"
#include "interp/interp.h"
#include "ir/value.h"
#include "runtime/spmd.h"

int ffu_tool_spmd_ranks(const ffu_program *p, int *replicas, int *partitions)
{
	if (replicas)
		*replicas = p ? (int)p->m->replica_count : 0;
	if (partitions)
		*partitions = p ? (int)p->m->num_partitions : 0;
	return p ? (int)ffu__module_ranks(p->m) : 0; /* at most FFU_MAX_RANKS: verified */
}

int ffu_tool_spmd_join_reads(const ffu_program *p, int rank)
{
	return p && ffu__outputs_need_rank(p->m, rank, p->n_outputs);
}

/* ---------------------------------------------------------------- inputs */

ffu_status ffu_tool_spmd_input(const ffu_program *p, int i, ffu_array_info *whole, ffu_error *e)
{
	ffu_error_clear(e);
	if (!p || !whole || i < 0 || i >= p->n_inputs)
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu_tool_spmd_input: no input %d", i);
	ffu_shape s;
	ffu__param_whole_shape(p->m, i, &s);
	return ffu__api_describe(whole, p->inputs[i].name, &s, "input", i, e);
}

/* The arguments of a call that fills rank's part of input i (bytes: ffu_program_input's). */
static ffu_status part_args(const ffu_program *p, int i, int rank, const void *host, size_t bytes, const char *call,
			    ffu_error *e)
{
	if (!p || i < 0 || i >= p->n_inputs)
		return ffu__err(e, FFU_STATUS_EINVAL, "%s: no input %d", call, i);
	if (rank < 0 || rank >= ffu__module_ranks(p->m))
		return ffu__err(e, FFU_STATUS_EINVAL, "%s: no rank %d", call, rank);
	if (bytes != p->inputs[i].bytes)
		return ffu__err(e, FFU_STATUS_EINVAL, "%s: input %d is %zu bytes, not %zu", call, i, p->inputs[i].bytes,
				bytes);
	if (bytes && !host)
		return ffu__err(e, FFU_STATUS_EINVAL, "%s: host is NULL", call);
	return FFU_STATUS_OK;
}

/* A rank's part of an input (a value of the parameter's shape) into the caller's array. */
static ffu_status copy_part(const ffu_value *part, void *host, size_t bytes, ffu_error *e)
{
	if (part->bytes != bytes)
		return ffu__err(e, FFU_STATUS_EINVAL, "internal: a rank's part is %zu bytes, not %zu", part->bytes, bytes);
	if (bytes)
		memcpy(host, part->data, bytes);
	return FFU_STATUS_OK;
}

ffu_status ffu_tool_spmd_cut(const ffu_program *p, int i, const void *whole_data, int rank, void *host, size_t bytes,
			     ffu_error *e)
{
	ffu_error_clear(e);
	ffu_status st = part_args(p, i, rank, host, bytes, "ffu_tool_spmd_cut", e);
	ffu_array_info info;
	if (st || (st = ffu_tool_spmd_input(p, i, &info, e)))
		return st;
	if (info.bytes && !whole_data)
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu_tool_spmd_cut: whole_data is NULL");
	ffu_value whole = {.data = (unsigned char *)whole_data, .bytes = info.bytes}, part = {0};
	ffu__param_whole_shape(p->m, i, &whole.shape);
	bool owned = false;
	if ((st = ffu__param_rank_value(p->m, i, &whole, rank, &part, &owned, e)))
		return st;
	st = copy_part(&part, host, bytes, e);
	if (owned)
		ffu__value_free(&part);
	return st;
}

ffu_status ffu_tool_spmd_read_rank(const ffu_program *p, int i, const char *path, int rank, void *host, size_t bytes,
				   ffu_error *e)
{
	ffu_error_clear(e);
	ffu_status st = part_args(p, i, rank, host, bytes, "ffu_tool_spmd_read_rank", e);
	if (st == FFU_STATUS_OK && !path)
		st = ffu__err(e, FFU_STATUS_EINVAL, "ffu_tool_spmd_read_rank: path is NULL");
	ffu_value part = {0};
	if (st || (st = ffu__param_read_rank(p->m, i, path, rank, &part, e)))
		return st;
	st = copy_part(&part, host, bytes, e);
	ffu__value_free(&part);
	return st;
}

/* ---------------------------------------------------------------- host arrays as values */

/*
 * Rank arrays: n_ranks rows of the program's inputs or outputs as values borrowing the
 * caller's host arrays (rows[r] NULL for a rank not given), what the runtime and the
 * interpreter take.
 */
typedef struct rank_values {
	int n_ranks, n;
	ffu_value *flat;  /* [r * n + k] */
	ffu_value **rows; /* [r]: &flat[r * n], or NULL */
} rank_values;

static void rank_values_free(rank_values *v)
{
	free(v->flat); /* the data is the caller's */
	free(v->rows);
	*v = (rank_values){0};
}

/* data[r][k] wrapped as rows[r][k]; outputs_may_skip: a rank's outputs may be NULL where the
   join does not read them. */
static ffu_status rank_values_wrap(const ffu_program *p, bool input, int n_ranks, const void *const *const *data,
				   bool outputs_may_skip, rank_values *v, ffu_error *e)
{
	const int n = input ? p->n_inputs : p->n_outputs;
	*v = (rank_values){n_ranks, n, calloc((size_t)n_ranks * (size_t)n + 1, sizeof *v->flat),
			   calloc((size_t)n_ranks + 1, sizeof *v->rows)};
	if (!v->flat || !v->rows)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	const char *what = input ? "input" : "output";
	for (int r = 0; r < n_ranks; r++) {
		if (!data[r]) {
			if (outputs_may_skip && !input && !ffu_tool_spmd_join_reads(p, r))
				continue;
			return ffu__err(e, FFU_STATUS_EINVAL, "rank %d's %ss are NULL", r, what);
		}
		v->rows[r] = &v->flat[(size_t)r * n];
		ffu_status st = ffu__program_wrap(p, input, 0, n, data[r], v->rows[r], e);
		if (st) {
			char msg[sizeof e->message];
			snprintf(msg, sizeof msg, "%s", e ? e->message : "");
			return ffu__err(e, st, "rank %d: %s", r, msg);
		}
	}
	return FFU_STATUS_OK;
}

/* The runtime's or the interpreter's outputs of n_ranks ranks (got[r], n_got[r] values)
   copied into the caller's arrays out[r][o], then freed. */
static ffu_status take_outputs(const ffu_program *p, int n_ranks, ffu_value **got, int *n_got, void *const *const *out,
			       ffu_status st, ffu_error *e)
{
	for (int r = 0; r < n_ranks && st == FFU_STATUS_OK; r++)
		st = ffu__program_copy_outputs(p, got[r], n_got[r], out[r], e);
	for (int r = 0; r < n_ranks; r++)
		ffu__values_free(got[r], n_got[r]);
	return st;
}

/* ---------------------------------------------------------------- collectives */

/* A collective that exchanges an operand (replica-id and partition-id take none: the op
   table's arity says which). */
static bool exchanges(const ffu_inst *in)
{
	return ffu__ops[in->op].kind == FFU_KIND_COLLECTIVE && ffu__ops[in->op].arity > 0;
}

static ffu_tool_coll_op coll_op(ffu_op op)
{
	switch (op) {
	case FFU_OP_ALL_REDUCE:
		return FFU_TOOL_ALL_REDUCE;
	case FFU_OP_REDUCE_SCATTER:
		return FFU_TOOL_REDUCE_SCATTER;
	case FFU_OP_ALL_GATHER:
		return FFU_TOOL_ALL_GATHER;
	case FFU_OP_ALL_TO_ALL:
		return FFU_TOOL_ALL_TO_ALL;
	default: /* exchanges() leaves only collective-permute */
		return FFU_TOOL_COLLECTIVE_PERMUTE;
	}
}

/* What collective in is for rank: its sources (collective-permute), or its groups: this
   rank's group and position, and whether the one group is every rank in order. */
static ffu_status describe_coll(const ffu_inst *in, const ffu_module *m, int rank, ffu_tool_collective *c,
				ffu_error *e)
{
	char why[256];
	const int R = (int)ffu__module_ranks(m);
	*c = (ffu_tool_collective){.name = in->name, .op = coll_op(in->op),
				   .elem_bytes = ffu__shape_elem_bytes(&in->operands[0]->shape), .n_ranks = R,
				   .group = -1, .position = -1, .impl = in};
	if (in->op == FFU_OP_COLLECTIVE_PERMUTE) {
		int *src = malloc(sizeof *src * (size_t)R);
		if (!src)
			return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
		c->sources = src;
		if (!ffu__coll_sources(in, m, src, why, sizeof why))
			return ffu__err(e, FFU_STATUS_EINVAL, "collective-permute '%%%s': %s", in->name, why);
		return FFU_STATUS_OK;
	}
	ffu_coll_groups g;
	if (!ffu__coll_groups(in, m, &g, why, sizeof why))
		return ffu__err(e, FFU_STATUS_EINVAL, "%s '%%%s': %s", ffu__ops[in->op].keyword, in->name, why);
	c->group_size = g.size;
	c->in_order = g.n_groups == 1;
	for (int k = 0; k < g.n_groups * g.size; k++) {
		if (g.ranks[k] == rank) {
			c->group = k / g.size;
			c->position = k % g.size;
		}
		c->in_order = c->in_order && g.ranks[k] == k;
	}
	ffu__coll_groups_free(&g);
	if (c->group < 0) /* the verifier checked that the groups cover every rank */
		return ffu__err(e, FFU_STATUS_EINVAL, "'%%%s': rank %d is in no group", in->name, rank);
	return FFU_STATUS_OK;
}

void ffu_tool_spmd_collectives_free(ffu_tool_collective *cs, int n)
{
	for (int k = 0; cs && k < n; k++)
		free((void *)cs[k].sources);
	free(cs);
}

ffu_status ffu_tool_spmd_collectives(const ffu_program *p, int rank, ffu_tool_collective **cs, int *n, ffu_error *e)
{
	ffu_error_clear(e);
	if (!cs || !n)
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu_tool_spmd_collectives: %s is NULL", !cs ? "cs" : "n");
	*cs = NULL;
	*n = 0;
	if (!p || rank < 0 || rank >= ffu__module_ranks(p->m))
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu_tool_spmd_collectives: %s",
				!p ? "program is NULL" : "no such rank");
	const ffu_computation *E = p->m->entry;
	ffu_tool_collective *list = calloc((size_t)E->n_insts + 1, sizeof *list);
	if (!list)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	/* the ENTRY in its order: every rank numbers the collectives alike */
	int count = 0;
	ffu_status st = FFU_STATUS_OK;
	for (int i = 0; i < E->n_insts && st == FFU_STATUS_OK; i++)
		if (exchanges(E->insts[i])) {
			st = describe_coll(E->insts[i], p->m, rank, &list[count], e);
			list[count].id = count;
			count++;
		}
	if (st) {
		ffu_tool_spmd_collectives_free(list, count);
		return st;
	}
	*cs = list;
	*n = count;
	return FFU_STATUS_OK;
}

void ffu_tool_combine(const ffu_tool_collective *c, void *inout, const void *in, size_t count)
{
	const ffu_inst *ins = c->impl;
	const ffu_field *f = ffu__shape_field(&ins->operands[0]->shape);
	ffu__fp_combine_n(f, ins->reduce_fn == FFU_OP_MULTIPLY ? ffu__fp_mul : ffu__fp_add, inout, inout, in, count);
}

/* The exchange ffu__spmd_run calls at each collective, over a tool's transport. */
typedef struct transport_ctx {
	const ffu_tool_transport *t;
	ffu_tool_collective *cs; /* the program's exchanging collectives as t's rank sees them */
	int n_cs;
} transport_ctx;

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

/* Grouped collectives other than all-reduce: member j's piece of dimension d is packed
   j-th for the transport (reduce-scatter, all-to-all), and what arrives from member j is
   placed as piece j of the result (all-gather, all-to-all). */
static ffu_status move_pieces(const transport_ctx *tc, const ffu_tool_collective *c, const ffu_inst *in,
			      const ffu_value *x, ffu_value *o, ffu_error *e)
{
	const int S = c->group_size;
	int64_t outer, extent;
	size_t step;
	ffu__shape_split_at(&x->shape, (int)in->dims[0], &outer, &extent, &step);
	const bool pack = c->op != FFU_TOOL_ALL_GATHER, place = c->op != FFU_TOOL_REDUCE_SCATTER;
	unsigned char *send = pack ? malloc(x->bytes + 1) : NULL, *recv = place ? malloc(o->bytes + 1) : NULL;
	ffu_status st = (pack && !send) || (place && !recv) ? ffu__err(e, FFU_STATUS_ENOMEM, "out of memory")
							     : FFU_STATUS_OK;
	if (st == FFU_STATUS_OK && pack)
		reorder(send, x->data, outer, S, extent / S, step, true);
	/* counts: reduce-scatter's in elements (what is combined), the others' in bytes */
	const size_t count = c->op == FFU_TOOL_REDUCE_SCATTER ? x->bytes / c->elem_bytes / (size_t)S
			     : c->op == FFU_TOOL_ALL_GATHER    ? x->bytes
							       : x->bytes / (size_t)S;
	if (st == FFU_STATUS_OK)
		st = tc->t->exchange(tc->t->ctx, c, pack ? send : x->data, place ? recv : o->data, count, e);
	if (st == FFU_STATUS_OK && place)
		reorder(recv, o->data, outer, S, c->op == FFU_TOOL_ALL_GATHER ? extent : extent / S, step, false);
	free(send);
	free(recv);
	return st;
}

static ffu_status transport_exchange(void *ctx, const ffu_inst *in, const ffu_module *m, int first, int n_local,
				     const ffu_value *const *x, ffu_value *const *o, ffu_error *e)
{
	const transport_ctx *tc = ctx;
	(void)n_local; /* one: the transport's rank, first */
	if (!exchanges(in)) /* replica-id, partition-id: this rank's own number */
		return ffu__interp_collective_rank(in, m, first, o[0], e);
	const ffu_tool_collective *c = NULL;
	for (int k = 0; k < tc->n_cs && !c; k++)
		if (tc->cs[k].impl == in)
			c = &tc->cs[k];
	if (!c)
		return ffu__err(e, FFU_STATUS_EINVAL, "internal: '%%%s' is not a collective of the program", in->name);
	if (c->op == FFU_TOOL_ALL_REDUCE)
		return tc->t->exchange(tc->t->ctx, c, x[0]->data, o[0]->data, x[0]->bytes / c->elem_bytes, e);
	if (c->op != FFU_TOOL_COLLECTIVE_PERMUTE)
		return move_pieces(tc, c, in, x[0], o[0], e);
	const bool has_source = c->sources[first] >= 0;
	ffu_status st = tc->t->exchange(tc->t->ctx, c, x[0]->data, has_source ? o[0]->data : NULL, x[0]->bytes, e);
	if (st == FFU_STATUS_OK && !has_source) { /* the type's zero (x - x; for points, infinity) */
		const ffu_field *f = ffu__shape_field(&in->shape);
		for (size_t k = 0; k < o[0]->bytes; k += f->storage_bytes)
			ffu__fp_sub(f, o[0]->data + k, x[0]->data + k, x[0]->data + k);
	}
	return st;
}

/* ---------------------------------------------------------------- runs */

ffu_status ffu_tool_spmd_run(ffu_device *d, const ffu_program *p, const ffu_tool_spmd_opts *o,
			     const void *const *const *in, void *const *const *out, ffu_tool_spmd_stats *stats,
			     ffu_error *e)
{
	static const ffu_tool_spmd_opts none = {0};
	ffu_error_clear(e);
	if (stats)
		memset(stats, 0, sizeof *stats);
	if (!d || !p || !in || !out)
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu_tool_spmd_run: %s is NULL",
				!d ? "device" : !p ? "program" : !in ? "in" : "out");
	o = o ? o : &none;
	const ffu_tool_transport *t = o->transport;
	const int R = (int)ffu__module_ranks(p->m), L = t ? 1 : R;
	if (o->exec.params)
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu_tool_spmd_run: params overrides are not supported");
	if (t && (t->rank < 0 || t->rank >= R || !t->exchange))
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu_tool_spmd_run: the transport's rank %d is not one of %d", t->rank,
				R);
	rank_values iv = {0};
	transport_ctx tc = {t, NULL, 0};
	ffu_value **got = calloc((size_t)L, sizeof *got);
	int *n_got = calloc((size_t)L, sizeof *n_got);
	ffu_spmd_stats s = {0};
	ffu_status st = got && n_got ? rank_values_wrap(p, true, L, in, false, &iv, e)
				     : ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	if (st == FFU_STATUS_OK && t)
		st = ffu_tool_spmd_collectives(p, t->rank, &tc.cs, &tc.n_cs, e);
	if (st == FFU_STATUS_OK) {
		const ffu_compile_opts co = {.no_fuse = o->exec.no_fuse, .fusion_as_asked = o->exec.fusion_as_asked,
					     .verified = true, .disable = o->exec.disable_passes, .file = o->exec.file};
		const ffu_spmd_exchange ex = {transport_exchange, &tc, t ? t->rank : 0, 1};
		st = ffu__spmd_run(&d->cl, p->m, &co, t ? &ex : NULL, (const ffu_value *const *)iv.rows, p->n_inputs, got,
				   n_got, &s, e);
		st = take_outputs(p, L, got, n_got, out, st, e);
	}
	if (stats)
		*stats = (ffu_tool_spmd_stats){s.kernels, s.kernel_ms, s.segment_ms, s.exchange_ms};
	ffu_tool_spmd_collectives_free(tc.cs, tc.n_cs);
	rank_values_free(&iv);
	free(got);
	free(n_got);
	return st;
}

ffu_status ffu_tool_spmd_interpret(const ffu_program *p, const void *const *const *in, void *const *const *out,
				   ffu_error *e)
{
	ffu_error_clear(e);
	if (!p || !in || !out)
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu_tool_spmd_interpret: %s is NULL",
				!p ? "program" : !in ? "in" : "out");
	const int R = (int)ffu__module_ranks(p->m);
	rank_values iv = {0};
	ffu_value **got = calloc((size_t)R, sizeof *got);
	int *n_got = calloc((size_t)R, sizeof *n_got);
	ffu_status st = got && n_got ? rank_values_wrap(p, true, R, in, false, &iv, e)
				     : ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	if (st == FFU_STATUS_OK) {
		st = ffu__interp_run_ranks(p->m, (const ffu_value *const *)iv.rows, p->n_inputs, R, got, n_got, e);
		st = take_outputs(p, R, got, n_got, out, st, e);
	}
	rank_values_free(&iv);
	free(got);
	free(n_got);
	return st;
}

/* ---------------------------------------------------------------- outputs */

ffu_status ffu_tool_spmd_write_joined(const char *path, const ffu_program *p, const void *const *const *outs,
				      ffu_error *e)
{
	ffu_error_clear(e);
	if (!path || !p || !outs)
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu_tool_spmd_write_joined: %s is NULL",
				!path ? "path" : !p ? "program" : "outs");
	rank_values ov = {0};
	ffu_value *whole = NULL;
	ffu_status st = rank_values_wrap(p, false, (int)ffu__module_ranks(p->m), outs, true, &ov, e);
	if (st == FFU_STATUS_OK && (st = ffu__outputs_join(p->m, ov.rows, p->n_outputs, &whole, e)) == FFU_STATUS_OK)
		st = ffu__values_write(path, whole, p->n_outputs, e);
	ffu__values_free(whole, p->n_outputs);
	rank_values_free(&ov);
	return st;
}
