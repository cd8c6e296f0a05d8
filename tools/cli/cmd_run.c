/*
 * tools/cli/cmd_run.c: `fieldfuse run`: inputs from value files or --random, the program
 * fused (or not) on one device, outputs to a value file or stdout, and with --check every
 * output element compared with the reference interpreter; with --interp the reference
 * interpreter alone runs it (no device). On the public API (an executable, device buffers)
 * and api/tool.h (value files, --random, the comparison). An SPMD program (ranks,
 * collectives) goes to tools/cli/run_spmd.c, under mpirun too; the pieces both use are
 * declared in run.h.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/tool.h"
#include "cli.h"
#include "run.h"

/* --disable-pass NAME[,NAME...] (repeatable): checked here, before any work. */
static int add_disabled(run_args *a, const char *names)
{
	ffu_error e = {0};
	size_t n = strlen(a->disabled);
	if (ffu_tool_passes_check(names, "--disable-pass", &e)) {
		int rc = cli_usage("run: %s", e.message);
		ffu_error_clear(&e);
		return rc;
	}
	if ((size_t)snprintf(a->disabled + n, sizeof a->disabled - n, "%s%s", n ? "," : "", names) >= sizeof a->disabled - n)
		return cli_usage("run: --disable-pass: list too long");
	return CLI_OK;
}

static int parse_args(run_args *a, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *v = NULL;
		int r;
		if ((r = cli_opt(argc, argv, &i, "--input", &v)) > 0) {
			if (a->n_inputs == MAX_INPUT_SPECS)
				return cli_usage("run: more than %d --input options", MAX_INPUT_SPECS);
			a->inputs[a->n_inputs++] = v;
		} else if (!r && (r = cli_opt(argc, argv, &i, "--disable-pass", &v)) > 0) {
			if ((r = add_disabled(a, v)))
				return r;
		} else if (!r && (r = cli_opt(argc, argv, &i, "--dialect", &v)) > 0) {
			if ((r = cli_dialect("run", v, &a->dialect)))
				return r;
		} else if (!r && (r = cli_opt(argc, argv, &i, "--mpi-timeout", &v)) > 0) {
			char *end;
			a->mpi_timeout = strtod(v, &end);
			if (!*v || *end || !(a->mpi_timeout >= 0 && a->mpi_timeout <= 1e7))
				return cli_usage("run: --mpi-timeout '%s': seconds, 0 to 1e7 (0: no limit)", v);
		} else if (r < 0 || (r = cli_opt(argc, argv, &i, "-o", &a->out)) < 0 ||
			   (!r && (r = cli_opt(argc, argv, &i, "--device", &a->device)) < 0) ||
			   (!r && (r = cli_opt(argc, argv, &i, "--random", &a->seed)) < 0)) {
			return cli_usage("run: %s needs a value", argv[i]);
		} else if (r) {
			continue;
		} else if (strcmp(argv[i], "--check") == 0) {
			a->check = true;
		} else if (strcmp(argv[i], "--no-fuse") == 0) {
			a->no_fuse = true;
		} else if (strcmp(argv[i], "--json") == 0) {
			a->json = true;
		} else if (strcmp(argv[i], "--interp") == 0) {
			a->interp = true;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return cli_usage("run: unknown option '%s'", argv[i]);
		} else if (!a->path) {
			a->path = argv[i];
		} else {
			return cli_usage("run: more than one program given ('%s', '%s')", a->path, argv[i]);
		}
	}
	if (!a->path)
		return cli_usage("run: no program given");
	if (a->device && strcmp(a->device, "@rank") == 0)
		return cli_usage("run: --device @rank: name the devices before @rank (gpu@rank, pocl@rank, all@rank)");
	if (a->interp && (a->check || a->no_fuse || a->device || a->json || a->disabled[0]))
		return cli_usage("run: --interp runs the reference interpreter alone: it takes no %s",
				 a->check ? "--check" : a->no_fuse ? "--no-fuse" : a->device ? "--device" : a->json ? "--json" : "--disable-pass");
	return CLI_OK;
}

/* Index of the input an --input spec names ("N=FILE" or "NAME=FILE"): -1 none, -2 malformed. */
static int spec_input(const ffu_program *p, const char *spec, const char **file)
{
	const char *eq = strchr(spec, '=');
	if (!eq || eq == spec || !eq[1])
		return -2;
	*file = eq + 1;
	size_t len = (size_t)(eq - spec);
	const int n = ffu_program_num_inputs(p);
	char *end;
	long k = strtol(spec, &end, 10);
	if (end == eq)
		return k >= 0 && k < n ? (int)k : -1;
	for (int i = 0; i < n; i++) {
		ffu_array_info info;
		if (ffu_program_input(p, i, &info) == FFU_STATUS_OK && strlen(info.name) == len &&
		    strncmp(info.name, spec, len) == 0)
			return i;
	}
	return -1;
}

ffu_status run_match_inputs(const run_args *a, const ffu_program *p, const char **given, ffu_error *e)
{
	for (int s = 0; s < a->n_inputs; s++) {
		const char *file = NULL;
		int i = spec_input(p, a->inputs[s], &file);
		ffu_array_info info;
		if (i == -2)
			return ffu_tool_error(e, FFU_STATUS_EINVAL, "--input '%s': expected N=FILE or NAME=FILE", a->inputs[s]);
		if (i < 0)
			return ffu_tool_error(e, FFU_STATUS_EINVAL, "--input '%s': the program has no such parameter",
					     a->inputs[s]);
		if (given[i]) {
			ffu_program_input(p, i, &info);
			return ffu_tool_error(e, FFU_STATUS_EINVAL, "--input: parameter %d (%s) given twice", i, info.name);
		}
		given[i] = file;
	}
	return FFU_STATUS_OK;
}

ffu_status run_seed(const run_args *a, uint64_t *seed, ffu_error *e)
{
	*seed = 0;
	if (!a->seed)
		return FFU_STATUS_OK;
	char *end;
	*seed = strtoull(a->seed, &end, 0);
	if (!a->seed[0] || *end)
		return ffu_tool_error(e, FFU_STATUS_EINVAL, "--random '%s': not a number", a->seed);
	return FFU_STATUS_OK;
}

/* Host arrays of a program's inputs or outputs: data[i] holds info[i].bytes (at least one byte). */
typedef struct arrays {
	int n;
	ffu_array_info *info;
	void **data;
} arrays;

static void arrays_free(arrays *v)
{
	ffu_tool_arrays_free(v->data);
	free(v->info);
	*v = (arrays){0};
}

static ffu_status arrays_make(const ffu_program *p, ffu_tool_side side, arrays *v, ffu_error *e)
{
	v->n = side == FFU_TOOL_INPUTS ? ffu_program_num_inputs(p) : ffu_program_num_outputs(p);
	if (!(v->info = calloc((size_t)v->n + 1, sizeof *v->info)))
		return ffu_tool_error(e, FFU_STATUS_ENOMEM, "out of memory");
	for (int i = 0; i < v->n; i++)
		if (side == FFU_TOOL_INPUTS ? ffu_program_input(p, i, &v->info[i]) : ffu_program_output(p, i, &v->info[i]))
			return ffu_tool_error(e, FFU_STATUS_EINVAL, "internal: no %s %d",
					      side == FFU_TOOL_INPUTS ? "input" : "output", i);
	return ffu_tool_arrays_alloc(&v->data, p, side, e);
}

/* The inputs: each from its --input file, else drawn from the --random stream in order. */
static ffu_status load_inputs(const run_args *a, const ffu_program *p, arrays *in, ffu_error *e)
{
	ffu_status st = arrays_make(p, FFU_TOOL_INPUTS, in, e);
	const char **given = calloc((size_t)in->n + 1, sizeof *given);
	if (st == FFU_STATUS_OK && !given)
		st = ffu_tool_error(e, FFU_STATUS_ENOMEM, "out of memory");
	uint64_t seed = 0;
	if (st == FFU_STATUS_OK && (st = run_match_inputs(a, p, given, e)) == FFU_STATUS_OK)
		st = run_seed(a, &seed, e);
	for (int i = 0; i < in->n && st == FFU_STATUS_OK; i++) {
		if (given[i])
			st = ffu_tool_read_input(p, i, given[i], in->data[i], in->info[i].bytes, e);
		else if (a->seed)
			st = ffu_tool_random_input(p, i, &seed, in->data[i], in->info[i].bytes, e);
		else
			st = ffu_tool_error(e, FFU_STATUS_EINVAL,
					   "parameter %d (%s) has no input: give --input %d=FILE or --random SEED", i,
					   in->info[i].name, i);
	}
	free(given);
	return st;
}

ffu_status run_open_device(const char *sel, int local_rank, ffu_device **d, ffu_error *e)
{
	static const char suffix[] = "@rank";
	const size_t n = sel ? strlen(sel) : 0, k = sizeof suffix - 1;
	if (n < k || strcmp(sel + n - k, suffix) != 0)
		return ffu_device_open(d, sel, e);
	char base[256];
	if (n - k >= sizeof base) /* parse_args refused an empty SEL */
		return ffu_tool_error(e, FFU_STATUS_EINVAL, "--device '%s': the selector is too long", sel);
	memcpy(base, sel, n - k);
	base[n - k] = '\0';
	ffu_tool_device_id *ids = NULL;
	int count = 0;
	ffu_status st = ffu_tool_device_ids(base, &ids, &count, e);
	if (st == FFU_STATUS_OK)
		st = ffu_device_open(d, ids[local_rank % count].id, e);
	free(ids);
	return st;
}

/* The outputs, as run writes them: to -o or stdout (unless --json alone); st: the run's
   status so far (a write error is reported only when the run itself succeeded). */
static ffu_status write_outputs(const run_args *a, const ffu_program *p, const arrays *outs, ffu_status st,
				ffu_error *e)
{
	if (!a->out && a->json)
		return st;
	ffu_error we = {0};
	ffu_status wst = ffu_tool_write_values(a->out ? a->out : "-", p, FFU_TOOL_OUTPUTS, 0, outs->n,
					       (const void *const *)outs->data, &we);
	return run_first_error(st, wst, &we, e);
}

ffu_status run_first_error(ffu_status st, ffu_status later, ffu_error *later_e, ffu_error *e)
{
	if (later && st == FFU_STATUS_OK) {
		ffu_error_clear(e);
		*e = *later_e;
		return later;
	}
	ffu_error_clear(later_e);
	return st;
}

/* spmd (optional): an SPMD run's extras, in the JSON as segments_ms, exchange_ms, rank_devices */
void run_report(const run_args *a, const char *device_id, const char *device_name, int kernels, double ms,
		const spmd_report *spmd, ffu_status st, long long elements)
{
	FILE *info = a->out || a->json ? stdout : stderr;
	if (a->json) {
		json_t *j = json_pack("{s:s, s:s, s:i, s:f, s:s}", "device", device_id, "device_name", device_name,
				      "kernels", kernels, "kernel_ms", ms, "check",
				      !a->check ? "skipped" : st == FFU_STATUS_OK ? "ok" : "mismatch");
		if (j && spmd) {
			json_object_set_new(j, "segments_ms", json_real(spmd->segments_ms));
			json_object_set_new(j, "exchange_ms", json_real(spmd->exchange_ms));
		}
		if (j && spmd && spmd->rank_devices) {
			json_t *ids = json_array();
			for (int r = 0; r < spmd->n_ranks; r++)
				json_array_append_new(ids, json_string(spmd->rank_devices[r]));
			json_object_set_new(j, "rank_devices", ids);
		}
		json_dumpf(j, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
		json_decref(j);
	} else if (a->check && st == FFU_STATUS_OK) {
		fprintf(info, "check: ok (%lld elements)\n", elements);
	}
}

/* One run of x: the inputs uploaded in their storage form, one timed run, the outputs
   downloaded. */
static ffu_status device_run(ffu_executable *x, const arrays *in, arrays *outs, double *ms, ffu_error *e)
{
	ffu_tool_buffers b = {0};
	ffu_run_stats stats = {0};
	ffu_status st;
	if ((st = ffu_tool_buffers_make(&b, x, e)) == FFU_STATUS_OK &&
	    (st = ffu_tool_buffers_upload(&b, (const void *const *)in->data, e)) == FFU_STATUS_OK &&
	    (st = ffu_tool_buffers_run(x, &b, &stats, e)) == FFU_STATUS_OK)
		st = ffu_tool_buffers_download(&b, outs->data, e);
	*ms = stats.kernel_ms;
	ffu_tool_buffers_free(&b);
	return st;
}

ffu_status run_check(const ffu_program *p, int rank, void *const *got, void *const *want, long long *elements,
		     ffu_error *e)
{
	const ffu_tool_compare_opts co = {stderr, RUN_MISMATCHES_SHOWN, "check", "device", "interpreter"};
	long long n = 0;
	long long bad = ffu_tool_compare(p, (const void *const *)got, (const void *const *)want, &co, &n);
	*elements += n;
	if (bad && rank >= 0)
		return ffu_tool_error(e, FFU_STATUS_EMISMATCH,
				      "rank %d: check: %lld of %lld elements differ from the interpreter", rank, bad, n);
	if (bad)
		return ffu_tool_error(e, FFU_STATUS_EMISMATCH, "check: %lld of %lld elements differ from the interpreter",
				      bad, n);
	return FFU_STATUS_OK;
}

ffu_tool_exec_opts run_exec_opts(const run_args *a)
{
	return (ffu_tool_exec_opts){.no_fuse = a->no_fuse, .disable_passes = a->disabled[0] ? a->disabled : NULL,
				    .file = a->path};
}

int cmd_run(int argc, char **argv)
{
	run_args a = {.mpi_timeout = FFU_CLI_MPI_TIMEOUT_DEFAULT};
	int rc = parse_args(&a, argc, argv);
	if (rc)
		return rc;

	ffu_error e = {0};
	ffu_program *p = NULL;
	ffu_device *d = NULL;
	ffu_executable *x = NULL;
	arrays in = {0}, outs = {0}, ref = {0};
	double ms = 0;
	long long elements = 0;

	ffu_status st = cli_load_program(a.path, a.dialect, &p, &e);
	if (st)
		goto out;
	if (ffu_tool_program_is_spmd(p) || (!a.interp && ffu_cli_mpi_launched())) {
		rc = run_spmd_main(&a, p);
		ffu_program_destroy(&p);
		return rc;
	}
	if (a.interp) {
		if ((st = load_inputs(&a, p, &in, &e)) || (st = arrays_make(p, FFU_TOOL_OUTPUTS, &outs, &e)) ||
		    (st = ffu_program_interpret(p, (const void *const *)in.data, outs.data, &e)))
			goto out;
		st = ffu_tool_write_values(a.out ? a.out : "-", p, FFU_TOOL_OUTPUTS, 0, outs.n,
					   (const void *const *)outs.data, &e);
		goto out;
	}
	/* the executable first: a program the device cannot hold (its memory plan, inputs
	   included) is refused before inputs are read or made */
	const ffu_tool_exec_opts xo = run_exec_opts(&a);
	if ((st = run_open_device(a.device, 0, &d, &e)) || (st = ffu_tool_executable_create(&x, d, p, &xo, &e)) ||
	    (st = load_inputs(&a, p, &in, &e)) || (st = arrays_make(p, FFU_TOOL_OUTPUTS, &outs, &e)))
		goto out;
	/* the oracle runs the program as written: the program is never modified */
	if (a.check && ((st = arrays_make(p, FFU_TOOL_OUTPUTS, &ref, &e)) ||
			(st = ffu_program_interpret(p, (const void *const *)in.data, ref.data, &e))))
		goto out;
	if ((st = device_run(x, &in, &outs, &ms, &e)))
		goto out;
	if (a.check)
		st = run_check(p, -1, outs.data, ref.data, &elements, &e);
	/* outputs are written even when the check fails: they are what the device computed */
	st = write_outputs(&a, p, &outs, st, &e);
	run_report(&a, ffu_device_id(d), ffu_device_name(d), ffu_executable_kernel_count(x), ms, NULL, st, elements);
out:
	rc = st ? cli_fail(&e) : CLI_OK;
	arrays_free(&in);
	arrays_free(&outs);
	arrays_free(&ref);
	ffu_executable_destroy(&x);
	ffu_device_close(&d);
	ffu_program_destroy(&p);
	ffu_error_clear(&e);
	return rc;
}
