/*
 * tools/cli/run_spmd.c: `fieldfuse run` of an SPMD program (docs/hlo.md "Collectives",
 * "Sharding"): every rank's inputs cut from the whole value files by the parameters'
 * shardings, the ranks run by the interpreter's simulation (--interp), one after another
 * on one device (runtime/spmd.h), or one per process under mpirun (tools/cli/mpi*.c), the
 * outputs joined by the ROOT's sharding and written by rank 0; --check compares every rank
 * with the simulation.
 *
 * The one file of the tools still on the library's internal headers (with mpi*.c): the
 * runner hands the MPI exchange (runtime/spmd.h's ffu_spmd_exchange) the collectives'
 * instructions and values, which api/tool.h has no handle-level form of yet. It takes the
 * program's module from the program's canonical text (ffu_program_print: parsing it gives
 * an equal program), so cmd_run.c hands it an ffu_program like any other run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "api/tool.h"
#include "cli.h"
#include "cli_mpi.h"
#include "hlo/hlo.h"
#include "interp/interp.h"
#include "ir/value.h"
#include "run.h"
#include "runtime/spmd.h"
#include "util/strbuf.h"

/* ---------------------------------------------------------------- inputs and device */

/* The parameters' buffers against the device's limits (exec.c checks the whole plan later). */
static ffu_status check_inputs_fit(const ffu_computation *entry, const ffu_device_info *dev, ffu_error *e)
{
	unsigned long long total = 0;
	for (int p = 0; p < entry->n_params; p++) {
		const ffu_inst *in = entry->params[p];
		const ffu_field *f = ffu__shape_field(&in->shape);
		if (!f)
			continue; /* a tuple parameter: exec.c's plan checks it */
		unsigned long long bytes = ffu__shape_bytes(&in->shape); /* a CSR matrix: its CSR bytes */
		if (bytes > dev->max_alloc)
			return ffu__err(e, FFU_STATUS_ELIMIT, "parameter %d (%s) needs %llu bytes; %s allows at most %llu per buffer",
					p, in->name, bytes, dev->name, (unsigned long long)dev->max_alloc);
		total += bytes;
	}
	if (total > dev->global_mem)
		return ffu__err(e, FFU_STATUS_ELIMIT, "the parameters need %llu bytes; %s has %llu", total, dev->name,
				(unsigned long long)dev->global_mem);
	return FFU_STATUS_OK;
}

/* Parameter p drawn from the --random stream (whole, so every rank draws the same), then,
   for rank >= 0, cut to that rank's part. */
static ffu_status random_input(const ffu_module *m, int p, int rank, uint64_t *state, ffu_value *out, ffu_error *e)
{
	ffu_shape whole;
	ffu__param_whole_shape(m, p, &whole);
	ffu_value w;
	ffu_status st = ffu__value_alloc(&w, &whole, e);
	if (st)
		return st;
	ffu__value_random(&w, state);
	if (rank < 0) {
		*out = w;
		return FFU_STATUS_OK;
	}
	return ffu__param_take_rank(m, p, &w, rank, out, e);
}

/*
 * The parameters' values: rank < 0, the whole ones (a sharded parameter's file holds every
 * rank's tiles); rank >= 0, that rank's own (a tile of a .bin file read alone:
 * ffu__param_read_rank).
 */
static ffu_status load_inputs(const run_args *a, const ffu_program *prog, const ffu_module *m, int rank,
			      ffu_value *in, ffu_error *e)
{
	const ffu_computation *entry = m->entry;
	const char **given = calloc((size_t)entry->n_params + 1, sizeof *given);
	ffu_status st = given ? FFU_STATUS_OK : ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	uint64_t state = 0;
	if (st == FFU_STATUS_OK && (st = run_match_inputs(a, prog, given, e)) == FFU_STATUS_OK)
		st = run_seed(a, &state, e);
	for (int p = 0; p < entry->n_params && st == FFU_STATUS_OK; p++) {
		ffu_shape whole;
		ffu__param_whole_shape(m, p, &whole);
		if (given[p]) {
			st = rank < 0 ? ffu__values_read(&in[p], given[p], &whole, e)
				      : ffu__param_read_rank(m, p, given[p], rank, &in[p], e);
		} else if (a->seed) {
			st = random_input(m, p, rank, &state, &in[p], e);
		} else {
			st = ffu__err(e, FFU_STATUS_EINVAL, "parameter %d (%s) has no input: give --input %d=FILE or --random SEED",
				      p, entry->params[p]->name, p);
		}
	}
	free(given);
	return st;
}

/*
 * --device SEL, or SEL@rank: among the devices SEL matches (in listing order), the one at
 * the node-local rank modulo their count (docs/hlo.md "Collectives": one rank per GPU of a
 * node with gpu@rank). Outside mpirun the local rank is 0.
 */
static ffu_status select_device(const char *sel, int local_rank, ffu_device_info *dev, ffu_error *e)
{
	char base[256];
	int r = run_rank_selector(sel, base, sizeof base);
	if (r < 0) /* parse_args refused an empty SEL */
		return ffu__err(e, FFU_STATUS_EINVAL, "--device '%s': the selector is too long", sel);
	if (r == 0)
		return ffu__cl_select(dev, sel, e);
	ffu_device_info *list = NULL;
	int count = 0;
	ffu_status st = ffu__cl_select_all(&list, &count, base, e);
	if (st == FFU_STATUS_OK)
		*dev = list[local_rank % count];
	free(list);
	return st;
}

/* The device first: inputs it cannot hold are refused before they are read or made. */
static ffu_status open_and_load(const run_args *a, const ffu_program *prog, const ffu_module *m, int local_rank,
				int rank, ffu_device_info *dev, ffu_cl *cl, ffu_value *in, ffu_error *e)
{
	ffu_status st;
	if ((st = select_device(a->device, local_rank, dev, e)) || (st = ffu__cl_open(cl, dev, e)) ||
	    (st = check_inputs_fit(m->entry, dev, e)))
		return st;
	return load_inputs(a, prog, m, rank, in, e);
}

static ffu_compile_opts compile_opts(const run_args *a)
{
	return (ffu_compile_opts){.no_fuse = a->no_fuse, .verified = true, .disable = a->disabled, .file = a->path};
}

/* Compares one rank's device outputs with the simulation's (the program's outputs are a
   rank's), printing the first mismatches. */
static ffu_status check_rank(const ffu_program *prog, const ffu_value *dev, const ffu_value *ref, int n,
			     long long *elements, ffu_error *e)
{
	const void **got = calloc((size_t)n + 1, sizeof *got), **want = calloc((size_t)n + 1, sizeof *want);
	ffu_status st = got && want ? FFU_STATUS_OK : ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	for (int o = 0; o < n && st == FFU_STATUS_OK; o++) {
		got[o] = dev[o].data;
		want[o] = ref[o].data;
	}
	const ffu_tool_compare_opts co = {stderr, RUN_MISMATCHES_SHOWN, "check", "device", "interpreter"};
	long long bad = st == FFU_STATUS_OK ? ffu_tool_compare(prog, got, want, &co, elements) : 0;
	if (bad)
		st = ffu__err(e, FFU_STATUS_EMISMATCH, "check: %lld of %lld elements differ from the interpreter", bad,
			      *elements);
	free(got);
	free(want);
	return st;
}

/* The outputs, as run writes them: to -o or stdout (unless --json alone). */
static ffu_status write_outputs(const run_args *a, const ffu_value *outs, int n_outs, ffu_status st, ffu_error *e)
{
	if (a->out || !a->json) {
		ffu_error we = {0};
		ffu_status wst = ffu__values_write(a->out ? a->out : "-", outs, n_outs, &we);
		if (wst && st == FFU_STATUS_OK) {
			st = wst;
			*e = we;
		}
	}
	return st;
}

/* The program's module, from its canonical text (the printer's dialect, read as such). */
static ffu_status program_module(const ffu_program *prog, const char *path, ffu_module **m, ffu_error *e)
{
	char *text = NULL;
	ffu_parse_options po = {.dialect = FFU_DIALECT_FIELDFUSE};
	ffu_status st = ffu_program_print(&text, prog, e);
	if (st == FFU_STATUS_OK)
		st = ffu__hlo_parse_with(m, text, strlen(text), path, &po, e);
	if (st == FFU_STATUS_OK)
		st = ffu__module_verify(*m, path, e);
	free(text);
	return st;
}

/*
 * Every rank's inputs from the whole ones: ins[r] is rank r's n_params values, a sharded
 * parameter's tile (ir/value_shard.c) or, unsplit, the whole value (borrowed). (Under
 * mpirun without --check, only the process's own rank's: rank_inputs_one.)
 */
typedef struct rank_inputs {
	int n_ranks, n_params;
	ffu_value *v;           /* [r * n_params + p] */
	bool *owned;
	const ffu_value **ins;  /* [r]: &v[r * n_params] */
} rank_inputs;

static void rank_inputs_free(rank_inputs *ri)
{
	for (size_t k = 0; ri->v && ri->owned && k < (size_t)ri->n_ranks * (size_t)ri->n_params; k++)
		if (ri->owned[k])
			ffu__value_free(&ri->v[k]);
	free(ri->v);
	free(ri->owned);
	free(ri->ins);
}

static ffu_status rank_inputs_make(const ffu_module *m, const ffu_value *whole, rank_inputs *ri, ffu_error *e)
{
	const int R = (int)ffu__module_ranks(m), n = m->entry->n_params;
	const size_t cells = (size_t)R * (size_t)n + 1;
	*ri = (rank_inputs){R, n, calloc(cells, sizeof *ri->v), calloc(cells, sizeof *ri->owned),
			    calloc((size_t)R, sizeof *ri->ins)};
	ffu_status st = ri->v && ri->owned && ri->ins ? FFU_STATUS_OK : ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	for (int r = 0; r < R && st == FFU_STATUS_OK; r++) {
		ri->ins[r] = &ri->v[(size_t)r * n];
		for (int p = 0; p < n && st == FFU_STATUS_OK; p++)
			st = ffu__param_rank_value(m, p, &whole[p], r, &ri->v[(size_t)r * n + p], &ri->owned[(size_t)r * n + p], e);
	}
	return st;
}

/* Every rank's outputs: v[r], n[r] (what ffu__interp_run_ranks and ffu__spmd_run fill). */
typedef struct rank_outputs {
	int n_ranks;
	ffu_value **v;
	int *n;
} rank_outputs;

static ffu_status rank_outputs_make(int R, rank_outputs *ro, ffu_error *e)
{
	*ro = (rank_outputs){R, calloc((size_t)R, sizeof *ro->v), calloc((size_t)R, sizeof *ro->n)};
	return ro->v && ro->n ? FFU_STATUS_OK : ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
}

static void rank_outputs_free(rank_outputs *ro)
{
	for (int r = 0; r < ro->n_ranks && ro->v && ro->n; r++)
		ffu__values_free(ro->v[r], ro->n[r]);
	free(ro->v);
	free(ro->n);
}

/* The program's outputs from every rank's (a sharded ROOT's tiles joined: ir/value_shard.c),
   written as run_write_outputs writes them; st: the run's status so far. */
static ffu_status write_joined(const run_args *a, const ffu_module *m, ffu_value *const *outs, int n, ffu_status st,
			       ffu_error *e)
{
	ffu_value *whole = NULL;
	ffu_error je = {0};
	ffu_status jst = ffu__outputs_join(m, outs, n, &whole, &je);
	if (jst) {
		if (st == FFU_STATUS_OK)
			*e = je;
		return st ? st : jst;
	}
	st = write_outputs(a, whole, n, st, e);
	ffu__values_free(whole, n);
	return st;
}

/* An SPMD program under --interp: the simulation of every rank, each with its inputs. */
static ffu_status spmd_interp(const run_args *a, const ffu_module *m, const ffu_value *in, ffu_error *e)
{
	rank_inputs ri;
	rank_outputs ro = {0};
	const int R = (int)ffu__module_ranks(m);
	ffu_status st = rank_inputs_make(m, in, &ri, e);
	if (st == FFU_STATUS_OK)
		st = rank_outputs_make(R, &ro, e);
	if (st == FFU_STATUS_OK && (st = ffu__interp_run_ranks(m, ri.ins, ri.n_params, R, ro.v, ro.n, e)) == FFU_STATUS_OK)
		st = write_joined(a, m, ro.v, ro.n[0], st, e);
	rank_outputs_free(&ro);
	rank_inputs_free(&ri);
	return st;
}

/*
 * An SPMD program (docs/hlo.md "Collectives") on this device: the ranks ex holds (NULL:
 * every rank, in this process), each with its inputs (ri); outs[l], n_outs[l]: local rank
 * l's outputs (arrays of R the caller provides and frees). --check compares each held
 * rank's outputs with the interpreter's simulation of every rank.
 */
static ffu_status run_spmd(const run_args *a, const ffu_program *prog, ffu_cl *cl, const ffu_module *m, const rank_inputs *ri,
			   const ffu_compile_opts *co, const ffu_spmd_exchange *ex, ffu_value **outs, int *n_outs,
			   ffu_spmd_stats *stats, long long *elements, ffu_error *e)
{
	const int R = ri->n_ranks, first = ex ? ex->first : 0, L = ex ? ex->n_local : R;
	rank_outputs ref = {0};
	ffu_status st = rank_outputs_make(R, &ref, e);
	if (st == FFU_STATUS_OK && a->check)
		st = ffu__interp_run_ranks(m, ri->ins, ri->n_params, R, ref.v, ref.n, e);
	if (st == FFU_STATUS_OK)
		st = ffu__spmd_run(cl, m, co, ex, ri->ins + first, ri->n_params, outs, n_outs, stats, e);
	for (int l = 0; l < L && st == FFU_STATUS_OK && a->check; l++) {
		long long k = 0;
		st = check_rank(prog, outs[l], ref.v[first + l], n_outs[l], &k, e);
		if (st) {
			char msg[sizeof e->message];
			snprintf(msg, sizeof msg, "%s", e->message);
			ffu__err(e, st, "rank %d: %s", first + l, msg);
		}
		*elements += k;
	}
	rank_outputs_free(&ref);
	return st;
}

/* Every rank in this process, one after another on this device; the outputs joined. */
static ffu_status spmd_here(const run_args *a, const ffu_program *prog, ffu_cl *cl, const ffu_device_info *dev,
			    const ffu_module *m, const ffu_value *in, const ffu_compile_opts *co, ffu_error *e)
{
	rank_inputs ri;
	rank_outputs ro = {0};
	const int R = (int)ffu__module_ranks(m);
	ffu_spmd_stats stats = {0};
	long long elements = 0;
	ffu_status st = rank_inputs_make(m, in, &ri, e);
	if (st == FFU_STATUS_OK && (st = rank_outputs_make(R, &ro, e)) == FFU_STATUS_OK)
		st = run_spmd(a, prog, cl, m, &ri, co, NULL, ro.v, ro.n, &stats, &elements, e);
	/* outputs are written even when the check fails: they are what the device computed */
	if (ro.v && ro.v[R - 1])
		st = write_joined(a, m, ro.v, ro.n[0], st, e);
	if (st == FFU_STATUS_OK || st == FFU_STATUS_EMISMATCH) /* a run to report */
		run_report(a, dev->id, dev->name, stats.kernels, stats.kernel_ms,
			   &(spmd_report){stats.segment_ms, stats.exchange_ms, NULL, R}, st, elements);
	rank_outputs_free(&ro);
	rank_inputs_free(&ri);
	return st;
}

#ifdef FFU_HAVE_MPI
/* Only rank's inputs, in (borrowed): the other ranks' entries stay NULL. */
static ffu_status rank_inputs_one(const ffu_module *m, int rank, const ffu_value *in, rank_inputs *ri, ffu_error *e)
{
	const int R = (int)ffu__module_ranks(m);
	*ri = (rank_inputs){R, m->entry->n_params, NULL, NULL, calloc((size_t)R, sizeof *ri->ins)};
	if (!ri->ins)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	ri->ins[rank] = in;
	return FFU_STATUS_OK;
}

/*
 * Every rank must run one program: ranks given different files (MPMD syntax makes that
 * easy) would wait for each other at collectives that are not there. The canonical text's
 * hash is compared; *mismatch set, with why in e, when a rank differs.
 */
static ffu_status same_program(const run_args *a, const ffu_module *m, int size, bool *mismatch, ffu_error *e)
{
	ffu_strbuf sb = {0};
	ffu_status st = ffu__hlo_print(&sb, m, e);
	if (st == FFU_STATUS_OK)
		st = ffu__sb_status(&sb, e);
	int differs = -1;
	if (st == FFU_STATUS_OK)
		st = ffu_cli_mpi_same_program(XXH3_64bits(sb.data, sb.len), size, &differs, e);
	ffu__sb_free(&sb);
	if (st == FFU_STATUS_OK && (*mismatch = differs >= 0))
		ffu__err(e, FFU_STATUS_EINVAL, "rank %d runs another program than rank 0 (%s): every rank must run the same one",
			 differs, a->path);
	return st;
}

/*
 * This rank's run failed (st, e) or another rank's did: the exit code, every rank's the
 * failing rank's. Another rank's failure was agreed at a synchronisation point (it printed
 * why); this rank's own is printed, naming the rank, and told to the others at their next
 * point, unless it came inside a point (the others are in its data exchange) or from MPI
 * itself (a time limit, an MPI error): then *abort (MPI_Abort stops every rank).
 */
static int mpi_failure(int rank, int size, ffu_status st, bool *abort, ffu_error *e)
{
	int who = -1, code = ffu_cli_mpi_agreed_failure(&who);
	if (code && who != rank)
		return code;
	char msg[sizeof e->message];
	snprintf(msg, sizeof msg, "%s", e->message);
	ffu__err(e, st, "rank %d of %d: %s", rank, size, msg);
	const int rc = cli_fail(e);
	if (!code) {
		ffu_error pe = {0};
		*abort = st == FFU_STATUS_ECOMM || ffu_cli_mpi_in_point() ||
			 (ffu_cli_mpi_point(rc, &pe) && !ffu_cli_mpi_agreed_failure(&who));
		ffu_error_clear(&pe);
	}
	return rc;
}

/*
 * Under mpirun: this process is one rank of the program (the world's size must be its
 * ranks). Every rank opens the selected device (several may share a CPU device), reads its
 * inputs; rank 0 gathers the outputs the ROOT's sharding joins and writes them. A failure
 * on any rank stops all of them with its exit code (mpi_failure), naming the rank.
 */
static int spmd_mpi(const run_args *a, const ffu_program *prog, ffu_module *m, ffu_error *e)
{
	int rank = 0, size = 0, local_rank = 0, rc = CLI_OK;
	ffu_cl cl = {0};
	ffu_device_info dev;
	const int n_params = m->entry->n_params;
	ffu_value *in = calloc((size_t)n_params + 1, sizeof *in), *mine = NULL, **all = NULL;
	int n_mine = 0;
	char (*ids)[sizeof dev.id] = NULL; /* each rank's device, on rank 0 */
	rank_inputs ri = {0};
	ffu_spmd_stats stats = {0};
	long long elements = 0;
	ffu_cli_mpi_set_timeout(a->mpi_timeout);
	ffu_status st = in ? ffu_cli_mpi_init(&rank, &size, &local_rank, e) : ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	if (st == FFU_STATUS_OK && size != ffu__module_ranks(m)) {
		/* every rank sees this alike: rank 0 says it and all finish cleanly (ranks that
		   MPI_Abort together have crashed Open MPI's teardown: exit 139 now and then) */
		if (rank == 0) {
			ffu__err(e, FFU_STATUS_EINVAL, "%s runs on %lld ranks (replica_count=%lld x num_partitions=%lld); mpirun started %d",
				 a->path, (long long)ffu__module_ranks(m), (long long)m->replica_count,
				 (long long)m->num_partitions, size);
			cli_fail(e);
		}
		free(in);
		ffu_cli_mpi_finalize();
		return CLI_USAGE;
	}
	bool mismatch = false;
	if (st == FFU_STATUS_OK && (st = same_program(a, m, size, &mismatch, e)) == FFU_STATUS_OK && mismatch) {
		/* every rank sees the same hashes: rank 0 says it and all finish cleanly, as above */
		if (rank == 0)
			cli_fail(e);
		free(in);
		ffu_cli_mpi_finalize();
		return CLI_USAGE;
	}
	/* --check simulates every rank, so it needs every rank's inputs; without it this rank
	   reads only its own (a .bin tile alone: no rank reads the whole file) */
	const int load_rank = a->check ? -1 : rank;
	if (st == FFU_STATUS_OK && (st = ffu_cli_mpi_prepare(m, rank, e)) == FFU_STATUS_OK &&
	    (st = open_and_load(a, prog, m, local_rank, load_rank, &dev, &cl, in, e)) == FFU_STATUS_OK &&
	    (st = a->check ? rank_inputs_make(m, in, &ri, e) : rank_inputs_one(m, rank, in, &ri, e)) == FFU_STATUS_OK) {
		ffu_compile_opts co = compile_opts(a);
		ffu_spmd_exchange ex = ffu_cli_mpi_exchange(rank);
		st = run_spmd(a, prog, &cl, m, &ri, &co, &ex, &mine, &n_mine, &stats, &elements, e);
	}
	if (st == FFU_STATUS_OK && (st = ffu_cli_mpi_gather(m, rank, size, mine, n_mine, &all, e)) == FFU_STATUS_OK &&
	    !(ids = calloc((size_t)size, sizeof *ids)))
		st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	if (st == FFU_STATUS_OK)
		st = ffu_cli_mpi_gather_bytes(dev.id, sizeof dev.id, ids, e);
	if (st == FFU_STATUS_OK && rank == 0) {
		all[0] = mine;
		st = write_joined(a, m, all, n_mine, st, e);
		all[0] = NULL;
		run_report(a, dev.id, dev.name, stats.kernels, stats.kernel_ms,
			   &(spmd_report){stats.segment_ms, stats.exchange_ms, (const char(*)[16])ids, size}, st, elements);
	}
	/* the finish: every rank's final status (rank 0's writing included), agreed */
	if (st == FFU_STATUS_OK && (st = ffu_cli_mpi_point(0, e)) == FFU_STATUS_OK)
		ffu_cli_mpi_point_end();
	bool abort = false;
	if (st)
		rc = mpi_failure(rank, size, st, &abort, e);
	for (int r = 0; all && r < size; r++)
		ffu__values_free(all[r], n_mine);
	free(all);
	free(ids);
	ffu__values_free(mine, n_mine);
	rank_inputs_free(&ri);
	ffu__cl_close(&cl);
	ffu__values_free(in, n_params);
	if (abort)
		ffu_cli_mpi_abort(rc);
	ffu_cli_mpi_finalize();
	return rc;
}
#endif

/* ---------------------------------------------------------------- the entry */

int run_spmd_main(const run_args *a, const ffu_program *prog)
{
	ffu_error e = {0};
	ffu_module *m = NULL;
	ffu_value *in = NULL;
	ffu_cl cl = {0};
	ffu_device_info dev;
	int n_params = 0, rc;
	ffu_status st = program_module(prog, a->path, &m, &e);
	if (st)
		goto out;
#ifdef FFU_HAVE_MPI
	if (!a->interp && ffu_cli_mpi_launched()) {
		rc = spmd_mpi(a, prog, m, &e);
		ffu__module_free(m);
		ffu_error_clear(&e);
		return rc;
	}
#endif
	n_params = m->entry->n_params;
	if (!(in = calloc((size_t)n_params + 1, sizeof *in))) {
		st = ffu__err(&e, FFU_STATUS_ENOMEM, "out of memory");
		goto out;
	}
	if (a->interp) {
		if ((st = load_inputs(a, prog, m, -1, in, &e)) == FFU_STATUS_OK)
			st = spmd_interp(a, m, in, &e);
		goto out;
	}
	if ((st = open_and_load(a, prog, m, 0, -1, &dev, &cl, in, &e)))
		goto out;
	ffu_compile_opts co = compile_opts(a);
	st = spmd_here(a, prog, &cl, &dev, m, in, &co, &e);
out:
	rc = st ? cli_fail(&e) : CLI_OK;
	ffu__cl_close(&cl);
	ffu__values_free(in, n_params);
	ffu__module_free(m);
	ffu_error_clear(&e);
	return rc;
}
