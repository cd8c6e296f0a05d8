/*
 * tools/cli/run_spmd.c: `fieldfuse run` of an SPMD program (docs/hlo.md "Collectives",
 * "Sharding"): every rank's inputs cut from the whole value files by the parameters'
 * shardings, the ranks run by the interpreter's simulation (--interp), one after another
 * on one device, or one per process under mpirun (tools/cli/mpi*.c: MPI moves the bytes
 * the library packs), the outputs joined by the ROOT's sharding and written by rank 0;
 * --check compares every rank with the simulation. On the public API and api/tool.h's
 * "SPMD programs", like cmd_run.c: ranks' inputs and outputs are host arrays of the
 * program's (one rank's) shapes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "api/tool.h"
#include "cli.h"
#include "cli_mpi.h"
#include "run.h"

/* ---------------------------------------------------------------- inputs */

/*
 * The ranks' inputs: data[r][k] (info[k].bytes, at least one byte), data[r] NULL for a
 * rank this process does not hold. An input its sharding does not split is read once
 * (whole_data[k]) and every rank's entry points at it; a split one is each rank's own
 * array (owned[r * n + k]).
 */
typedef struct rank_inputs {
	int n_ranks, n;
	ffu_array_info *info, *whole; /* [k]: one rank's, and what the value files hold */
	void **whole_data;            /* [k] */
	void ***data;                 /* [r][k] */
	bool *owned;                  /* [r * n + k] */
} rank_inputs;

static void rank_inputs_free(rank_inputs *ri)
{
	for (int r = 0; ri->data && r < ri->n_ranks; r++) {
		for (int k = 0; ri->data[r] && k < ri->n; k++)
			if (ri->owned[(size_t)r * ri->n + k])
				free(ri->data[r][k]);
		free(ri->data[r]);
	}
	for (int k = 0; ri->whole_data && k < ri->n; k++)
		free(ri->whole_data[k]);
	free(ri->info);
	free(ri->whole);
	free(ri->whole_data);
	free(ri->data);
	free(ri->owned);
	*ri = (rank_inputs){0};
}

static ffu_status rank_inputs_make(const ffu_program *p, rank_inputs *ri, ffu_error *e)
{
	const int R = ffu_tool_spmd_ranks(p, NULL, NULL), n = ffu_program_num_inputs(p);
	*ri = (rank_inputs){R, n, calloc((size_t)n + 1, sizeof *ri->info), calloc((size_t)n + 1, sizeof *ri->whole),
			    calloc((size_t)n + 1, sizeof *ri->whole_data), calloc((size_t)R, sizeof *ri->data),
			    calloc((size_t)R * (size_t)n + 1, sizeof *ri->owned)};
	if (!ri->info || !ri->whole || !ri->whole_data || !ri->data || !ri->owned)
		return ffu_tool_error(e, FFU_STATUS_ENOMEM, "out of memory");
	for (int k = 0; k < n; k++) {
		ffu_status st = ffu_program_input(p, k, &ri->info[k]);
		if (st)
			return ffu_tool_error(e, st, "internal: no input %d", k);
		if ((st = ffu_tool_spmd_input(p, k, &ri->whole[k], e)))
			return st;
	}
	return FFU_STATUS_OK;
}

/* A host array of bytes (at least one, so an empty array has an address). */
static ffu_status host_array(void **data, size_t bytes, const char *name, ffu_error *e)
{
	if (!(*data = calloc(1, bytes ? bytes : 1)))
		return ffu_tool_error(e, FFU_STATUS_ENOMEM, "out of memory (%zu bytes for %s)", bytes, name);
	return FFU_STATUS_OK;
}

/* Rank arrays as the library takes them (C adds const only one level deep by itself). */
static const void *const *const *in_rows(void ***rows)
{
	return (const void *const *const *)rows;
}

static void *const *const *out_rows(void ***rows)
{
	return (void *const *const *)rows;
}

static bool splits(const rank_inputs *ri, int k)
{
	return ri->whole[k].bytes != ri->info[k].bytes; /* tool.h: ffu_tool_spmd_cut */
}

/* Input k's whole value: from its --input file, else drawn from the --random stream (whole,
   so every rank draws the same), into *data. */
static ffu_status whole_input(const run_args *a, const ffu_program *p, const rank_inputs *ri, int k, const char *given,
			      uint64_t *seed, void **data, ffu_error *e)
{
	if (!given && !a->seed)
		return ffu_tool_error(e, FFU_STATUS_EINVAL,
				      "parameter %d (%s) has no input: give --input %d=FILE or --random SEED", k,
				      ri->info[k].name, k);
	ffu_status st = host_array(data, ri->whole[k].bytes, ri->info[k].name, e);
	if (st == FFU_STATUS_OK)
		st = given ? ffu_tool_read_input(p, k, given, *data, ri->whole[k].bytes, e)
			   : ffu_tool_random_input(p, k, seed, *data, ri->whole[k].bytes, e);
	return st;
}

/* Rank r's part of input k from the whole one: its own cut, or, unsplit, the whole itself. */
static ffu_status cut_input(const ffu_program *p, rank_inputs *ri, int r, int k, void *whole, ffu_error *e)
{
	if (!splits(ri, k)) {
		ri->data[r][k] = whole;
		return FFU_STATUS_OK;
	}
	ri->owned[(size_t)r * ri->n + k] = true;
	ffu_status st = host_array(&ri->data[r][k], ri->info[k].bytes, ri->info[k].name, e);
	return st ? st : ffu_tool_spmd_cut(p, k, whole, r, ri->data[r][k], ri->info[k].bytes, e);
}

/*
 * The inputs: rank < 0, the whole ones, then every rank's part; rank >= 0 (under mpirun
 * without --check), that rank's own only: a tile of a .bin file read alone (no rank
 * reads the whole file), a drawn input drawn whole and cut.
 */
static ffu_status load_inputs(const run_args *a, const ffu_program *p, int rank, rank_inputs *ri, ffu_error *e)
{
	const char **given = calloc((size_t)ri->n + 1, sizeof *given);
	ffu_status st = given ? FFU_STATUS_OK : ffu_tool_error(e, FFU_STATUS_ENOMEM, "out of memory");
	uint64_t seed = 0;
	if (st == FFU_STATUS_OK && (st = run_match_inputs(a, p, given, e)) == FFU_STATUS_OK)
		st = run_seed(a, &seed, e);
	for (int r = 0; r < ri->n_ranks && st == FFU_STATUS_OK; r++)
		if ((rank < 0 || r == rank) && !(ri->data[r] = calloc((size_t)ri->n + 1, sizeof *ri->data[r])))
			st = ffu_tool_error(e, FFU_STATUS_ENOMEM, "out of memory");
	for (int k = 0; k < ri->n && st == FFU_STATUS_OK; k++) {
		if (rank < 0) {
			st = whole_input(a, p, ri, k, given[k], &seed, &ri->whole_data[k], e);
			for (int r = 0; r < ri->n_ranks && st == FFU_STATUS_OK; r++)
				st = cut_input(p, ri, r, k, ri->whole_data[k], e);
		} else if (given[k]) {
			ri->owned[(size_t)rank * ri->n + k] = true;
			if ((st = host_array(&ri->data[rank][k], ri->info[k].bytes, ri->info[k].name, e)) == FFU_STATUS_OK)
				st = ffu_tool_spmd_read_rank(p, k, given[k], rank, ri->data[rank][k], ri->info[k].bytes, e);
		} else {
			void *whole = NULL;
			if ((st = whole_input(a, p, ri, k, NULL, &seed, &whole, e)) == FFU_STATUS_OK &&
			    (st = cut_input(p, ri, rank, k, whole, e)) == FFU_STATUS_OK && !splits(ri, k)) {
				ri->owned[(size_t)rank * ri->n + k] = true; /* the whole is the rank's */
				whole = NULL;
			}
			free(whole);
		}
	}
	free(given);
	return st;
}

/* ---------------------------------------------------------------- device */

/* The inputs' buffers against the device's limits (the segments' plans are checked when
   they compile): refused before the inputs are read or made. */
static ffu_status check_inputs_fit(const ffu_program *p, const ffu_device *d, ffu_error *e)
{
	ffu_tool_device_facts f;
	ffu_tool_device_facts_get(d, &f);
	unsigned long long total = 0;
	for (int i = 0; i < ffu_program_num_inputs(p); i++) {
		ffu_array_info info;
		if (ffu_program_input(p, i, &info))
			continue;
		const unsigned long long bytes = info.bytes; /* a CSR matrix: its CSR bytes */
		if (bytes > f.max_alloc)
			return ffu_tool_error(e, FFU_STATUS_ELIMIT, "parameter %d (%s) needs %llu bytes; %s allows at most %llu per buffer",
					      i, info.name, bytes, f.name, (unsigned long long)f.max_alloc);
		total += bytes;
	}
	if (total > f.global_mem)
		return ffu_tool_error(e, FFU_STATUS_ELIMIT, "the parameters need %llu bytes; %s has %llu", total, f.name,
				      (unsigned long long)f.global_mem);
	return FFU_STATUS_OK;
}

/* The device (run_open_device), the inputs checked against it. */
static ffu_status open_device(const ffu_program *p, const char *sel, int local_rank, ffu_device **d, ffu_error *e)
{
	ffu_status st = run_open_device(sel, local_rank, d, e);
	return st ? st : check_inputs_fit(p, *d, e);
}

/* ---------------------------------------------------------------- outputs */

/* Host arrays of the program's outputs for n_ranks ranks: rows[r][o], rows[r] NULL for a
   rank not made. */
typedef struct rank_outputs {
	int n_ranks, n;
	void ***rows;
} rank_outputs;

static void rank_outputs_free(rank_outputs *ro)
{
	for (int r = 0; ro->rows && r < ro->n_ranks; r++) {
		for (int o = 0; ro->rows[r] && o < ro->n; o++)
			free(ro->rows[r][o]);
		free(ro->rows[r]);
	}
	free(ro->rows);
	*ro = (rank_outputs){0};
}

/* Rows for ranks first .. first + count - 1 of n_ranks. */
static ffu_status rank_outputs_make(const ffu_program *p, int n_ranks, int first, int count, rank_outputs *ro,
				    ffu_error *e)
{
	*ro = (rank_outputs){n_ranks, ffu_program_num_outputs(p), calloc((size_t)n_ranks, sizeof *ro->rows)};
	if (!ro->rows)
		return ffu_tool_error(e, FFU_STATUS_ENOMEM, "out of memory");
	for (int r = first; r < first + count; r++) {
		if (!(ro->rows[r] = calloc((size_t)ro->n + 1, sizeof *ro->rows[r])))
			return ffu_tool_error(e, FFU_STATUS_ENOMEM, "out of memory");
		for (int o = 0; o < ro->n; o++) {
			ffu_array_info info;
			ffu_status st = ffu_program_output(p, o, &info);
			if (st)
				return ffu_tool_error(e, st, "internal: no output %d", o);
			if ((st = host_array(&ro->rows[r][o], info.bytes, info.name, e)))
				return st;
		}
	}
	return FFU_STATUS_OK;
}

/* The program's outputs from every rank's (rows[r], NULL where the join does not read
   them), written as run writes them: to -o or stdout (unless --json alone); st: the run's
   status so far (a join or write error is reported only when the run itself succeeded). */
static ffu_status write_joined(const run_args *a, const ffu_program *p, void ***rows, ffu_status st,
			       ffu_error *e)
{
	if (!a->out && a->json)
		return st;
	ffu_error we = {0};
	ffu_status wst = ffu_tool_spmd_write_joined(a->out ? a->out : "-", p, in_rows(rows), &we);
	return run_first_error(st, wst, &we, e);
}

static ffu_tool_spmd_opts spmd_opts(const run_args *a, const ffu_tool_transport *t)
{
	return (ffu_tool_spmd_opts){run_exec_opts(a), t};
}

/* ---------------------------------------------------------------- one process */

/* An SPMD program under --interp: the simulation of every rank, the outputs joined. */
static ffu_status spmd_interp(const run_args *a, const ffu_program *p, ffu_error *e)
{
	rank_inputs ri = {0};
	rank_outputs ro = {0};
	const int R = ffu_tool_spmd_ranks(p, NULL, NULL);
	ffu_status st = rank_inputs_make(p, &ri, e);
	if (st == FFU_STATUS_OK && (st = load_inputs(a, p, -1, &ri, e)) == FFU_STATUS_OK &&
	    (st = rank_outputs_make(p, R, 0, R, &ro, e)) == FFU_STATUS_OK &&
	    (st = ffu_tool_spmd_interpret(p, in_rows(ri.data), out_rows(ro.rows), e)) == FFU_STATUS_OK)
		st = write_joined(a, p, ro.rows, st, e);
	rank_outputs_free(&ro);
	rank_inputs_free(&ri);
	return st;
}

/* Every rank in this process, one after another on the device; --check compares each
   with the simulation of every rank; the outputs joined (even when the check fails: they
   are what the device computed). */
static ffu_status spmd_here(const run_args *a, const ffu_program *p, ffu_error *e)
{
	ffu_device *d = NULL;
	rank_inputs ri = {0};
	rank_outputs ro = {0}, ref = {0};
	const int R = ffu_tool_spmd_ranks(p, NULL, NULL);
	ffu_tool_spmd_stats stats = {0};
	const ffu_tool_spmd_opts o = spmd_opts(a, NULL);
	long long elements = 0;
	ffu_status st = rank_inputs_make(p, &ri, e);
	if (st == FFU_STATUS_OK && (st = open_device(p, a->device, 0, &d, e)) == FFU_STATUS_OK &&
	    (st = load_inputs(a, p, -1, &ri, e)) == FFU_STATUS_OK)
		st = rank_outputs_make(p, R, 0, R, &ro, e);
	if (st == FFU_STATUS_OK && a->check && (st = rank_outputs_make(p, R, 0, R, &ref, e)) == FFU_STATUS_OK)
		st = ffu_tool_spmd_interpret(p, in_rows(ri.data), out_rows(ref.rows), e);
	const bool ran = st == FFU_STATUS_OK &&
			 (st = ffu_tool_spmd_run(d, p, &o, in_rows(ri.data), out_rows(ro.rows), &stats, e)) == FFU_STATUS_OK;
	for (int r = 0; r < R && st == FFU_STATUS_OK && a->check; r++)
		st = run_check(p, r, ro.rows[r], ref.rows[r], &elements, e);
	if (ran)
		st = write_joined(a, p, ro.rows, st, e);
	if (st == FFU_STATUS_OK || st == FFU_STATUS_EMISMATCH) /* a run to report */
		run_report(a, ffu_device_id(d), ffu_device_name(d), stats.kernels, stats.kernel_ms,
			   &(spmd_report){stats.segment_ms, stats.exchange_ms, NULL, R}, st, elements);
	rank_outputs_free(&ref);
	rank_outputs_free(&ro);
	rank_inputs_free(&ri);
	ffu_device_close(&d);
	return st;
}

/* ---------------------------------------------------------------- under mpirun */

#ifdef FFU_HAVE_MPI
/*
 * Every rank must run one program: ranks given different files (MPMD syntax makes that
 * easy) would wait for each other at collectives that are not there. The canonical text's
 * hash is compared; *mismatch set, with why in e, when a rank differs.
 */
static ffu_status same_program(const run_args *a, const ffu_program *p, int size, bool *mismatch, ffu_error *e)
{
	char *text = NULL;
	int differs = -1;
	ffu_status st = ffu_program_print(&text, p, e);
	if (st == FFU_STATUS_OK)
		st = ffu_cli_mpi_same_program(XXH3_64bits(text, strlen(text)), size, &differs, e);
	free(text);
	if (st == FFU_STATUS_OK && (*mismatch = differs >= 0))
		ffu_tool_error(e, FFU_STATUS_EINVAL,
			       "rank %d runs another program than rank 0 (%s): every rank must run the same one", differs,
			       a->path);
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
	ffu_tool_error(e, st, "rank %d of %d: %s", rank, size, msg);
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
 * This rank's run: its inputs (every rank's with --check, which simulates them all), the
 * device run exchanging through MPI, the check of this rank; *mine its outputs.
 */
static ffu_status mpi_run(const run_args *a, const ffu_program *p, int rank, ffu_device *d, rank_inputs *ri,
			  rank_outputs *mine, ffu_tool_spmd_stats *stats, long long *elements, ffu_error *e)
{
	const int R = ri->n_ranks;
	rank_outputs ref = {0};
	const ffu_tool_transport t = ffu_cli_mpi_transport(rank);
	const ffu_tool_spmd_opts o = spmd_opts(a, &t);
	/* --check simulates every rank, so it needs every rank's inputs; without it this rank
	   reads only its own */
	ffu_status st = load_inputs(a, p, a->check ? -1 : rank, ri, e);
	if (st == FFU_STATUS_OK)
		st = rank_outputs_make(p, R, rank, 1, mine, e);
	if (st == FFU_STATUS_OK && a->check && (st = rank_outputs_make(p, R, 0, R, &ref, e)) == FFU_STATUS_OK)
		st = ffu_tool_spmd_interpret(p, in_rows(ri->data), out_rows(ref.rows), e);
	if (st == FFU_STATUS_OK)
		st = ffu_tool_spmd_run(d, p, &o, in_rows(&ri->data[rank]), out_rows(&mine->rows[rank]), stats, e);
	if (st == FFU_STATUS_OK && a->check)
		st = run_check(p, rank, mine->rows[rank], ref.rows[rank], elements, e);
	rank_outputs_free(&ref);
	return st;
}

/* The world's size against the program's ranks: every rank sees a mismatch alike, so rank 0
   says it and all finish cleanly (ranks that MPI_Abort together have crashed Open MPI's
   teardown: exit 139 now and then). */
static bool wrong_size(const run_args *a, const ffu_program *p, int rank, int size, ffu_error *e)
{
	int replicas = 0, partitions = 0;
	const int R = ffu_tool_spmd_ranks(p, &replicas, &partitions);
	if (size == R)
		return false;
	if (rank == 0) {
		ffu_tool_error(e, FFU_STATUS_EINVAL, "%s runs on %lld ranks (replica_count=%lld x num_partitions=%lld); mpirun started %d",
			       a->path, (long long)R, (long long)replicas, (long long)partitions, size);
		cli_fail(e);
	}
	return true;
}

/*
 * Under mpirun: this process is one rank of the program (the world's size must be its
 * ranks). Every rank opens the selected device (several may share a CPU device), reads its
 * inputs; rank 0 gathers the outputs the ROOT's sharding joins and writes them. A failure
 * on any rank stops all of them with its exit code (mpi_failure), naming the rank.
 */
static int spmd_mpi(const run_args *a, const ffu_program *p, ffu_error *e)
{
	int rank = 0, size = 0, local_rank = 0, rc = CLI_OK;
	ffu_device *d = NULL;
	rank_inputs ri = {0};
	rank_outputs mine = {0};
	void ***all = NULL;                 /* each rank's outputs, on rank 0 */
	char id[16] = {0}, (*ids)[16] = NULL; /* each rank's device, on rank 0 */
	ffu_tool_spmd_stats stats = {0};
	long long elements = 0;
	bool mismatch = false;
	ffu_cli_mpi_set_timeout(a->mpi_timeout);
	ffu_status st = ffu_cli_mpi_init(&rank, &size, &local_rank, e);
	if (st == FFU_STATUS_OK && wrong_size(a, p, rank, size, e)) {
		ffu_cli_mpi_finalize();
		return CLI_USAGE;
	}
	if (st == FFU_STATUS_OK && (st = same_program(a, p, size, &mismatch, e)) == FFU_STATUS_OK && mismatch) {
		/* every rank sees the same hashes: rank 0 says it and all finish cleanly, as above */
		if (rank == 0)
			cli_fail(e);
		ffu_cli_mpi_finalize();
		return CLI_USAGE;
	}
	if (st == FFU_STATUS_OK && (st = ffu_cli_mpi_prepare(p, rank, e)) == FFU_STATUS_OK &&
	    (st = rank_inputs_make(p, &ri, e)) == FFU_STATUS_OK &&
	    (st = open_device(p, a->device, local_rank, &d, e)) == FFU_STATUS_OK)
		st = mpi_run(a, p, rank, d, &ri, &mine, &stats, &elements, e);
	if (st == FFU_STATUS_OK &&
	    (!(all = calloc((size_t)size, sizeof *all)) || !(ids = calloc((size_t)size, sizeof *ids))))
		st = ffu_tool_error(e, FFU_STATUS_ENOMEM, "out of memory");
	if (st == FFU_STATUS_OK && (st = ffu_cli_mpi_gather(p, rank, size, mine.rows[rank], all, e)) == FFU_STATUS_OK) {
		snprintf(id, sizeof id, "%s", ffu_device_id(d));
		st = ffu_cli_mpi_gather_bytes(id, sizeof id, ids, e);
	}
	if (st == FFU_STATUS_OK && rank == 0) {
		all[0] = mine.rows[0];
		st = write_joined(a, p, all, st, e);
		all[0] = NULL;
		run_report(a, ffu_device_id(d), ffu_device_name(d), stats.kernels, stats.kernel_ms,
			   &(spmd_report){stats.segment_ms, stats.exchange_ms, (const char(*)[16])ids, size}, st, elements);
	}
	/* the finish: every rank's final status (rank 0's writing included), agreed */
	if (st == FFU_STATUS_OK && (st = ffu_cli_mpi_point(0, e)) == FFU_STATUS_OK)
		ffu_cli_mpi_point_end();
	bool abort = false;
	if (st)
		rc = mpi_failure(rank, size, st, &abort, e);
	ffu_cli_mpi_gather_free(all, size, ffu_program_num_outputs(p));
	free(ids);
	rank_outputs_free(&mine);
	rank_inputs_free(&ri);
	ffu_device_close(&d);
	if (abort)
		ffu_cli_mpi_abort(rc);
	ffu_cli_mpi_finalize();
	return rc;
}
#endif

/* ---------------------------------------------------------------- the entry */

int run_spmd_main(const run_args *a, const ffu_program *p)
{
	ffu_error e = {0};
	int rc;
#ifdef FFU_HAVE_MPI
	if (!a->interp && ffu_cli_mpi_launched()) {
		rc = spmd_mpi(a, p, &e);
		ffu_error_clear(&e);
		return rc;
	}
#endif
	ffu_status st = a->interp ? spmd_interp(a, p, &e) : spmd_here(a, p, &e);
	rc = st ? cli_fail(&e) : CLI_OK;
	ffu_error_clear(&e);
	return rc;
}
