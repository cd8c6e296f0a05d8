/*
 * tools/cli/cmd_run.c: `fieldfuse run`: inputs from value files or --random, the program
 * fused (or not) on one device, outputs to a value file or stdout, and with --check every
 * output element compared with the reference interpreter; with --interp the reference
 * interpreter alone runs it (no device). An SPMD program (ranks, collectives) goes to
 * tools/cli/run_spmd.c, under mpirun too; the pieces both use are declared in run.h.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_mpi.h"
#include "interp/interp.h"
#include "ir/value.h"
#include "passes/passes.h"
#include "run.h"

enum { MAX_MISMATCHES_SHOWN = 5 };

/* --disable-pass NAME[,NAME...] (repeatable): checked here, before any work. */
static int add_disabled(run_args *a, const char *names)
{
	ffu_error e = {0};
	size_t n = strlen(a->disabled);
	if (ffu__pass_check_list(names, "--disable-pass", &e))
		return cli_usage("run: %s", e.message);
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

/* Index of the parameter an --input spec names ("N=FILE" or "NAME=FILE"), or -1. */
static int spec_param(const ffu_computation *entry, const char *spec, const char **file)
{
	const char *eq = strchr(spec, '=');
	if (!eq || eq == spec || !eq[1])
		return -2;
	*file = eq + 1;
	size_t len = (size_t)(eq - spec);
	char *end;
	long n = strtol(spec, &end, 10);
	if (end == eq)
		return n >= 0 && n < entry->n_params ? (int)n : -1;
	for (int p = 0; p < entry->n_params; p++) {
		const char *name = entry->params[p]->name;
		if (strlen(name) == len && strncmp(name, spec, len) == 0)
			return p;
	}
	return -1;
}

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

static ffu_status match_inputs(const run_args *a, const ffu_computation *entry, const char **given, ffu_error *e);

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
static ffu_status load_inputs(const run_args *a, const ffu_module *m, int rank, ffu_value *in, ffu_error *e)
{
	const ffu_computation *entry = m->entry;
	const char **given = calloc((size_t)entry->n_params + 1, sizeof *given);
	ffu_status st = given ? FFU_STATUS_OK : ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	if (st == FFU_STATUS_OK)
		st = match_inputs(a, entry, given, e);
	uint64_t state = 0;
	if (st == FFU_STATUS_OK && a->seed) {
		char *end;
		state = strtoull(a->seed, &end, 0);
		if (!a->seed[0] || *end)
			st = ffu__err(e, FFU_STATUS_EINVAL, "--random '%s': not a number", a->seed);
	}
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

/* Fills given[p] with the file each --input names for parameter p. */
static ffu_status match_inputs(const run_args *a, const ffu_computation *entry, const char **given, ffu_error *e)
{
	for (int s = 0; s < a->n_inputs; s++) {
		const char *file = NULL;
		int p = spec_param(entry, a->inputs[s], &file);
		if (p == -2)
			return ffu__err(e, FFU_STATUS_EINVAL, "--input '%s': expected N=FILE or NAME=FILE", a->inputs[s]);
		if (p < 0)
			return ffu__err(e, FFU_STATUS_EINVAL, "--input '%s': the program has no such parameter", a->inputs[s]);
		if (given[p])
			return ffu__err(e, FFU_STATUS_EINVAL, "--input: parameter %d (%s) given twice", p, entry->params[p]->name);
		given[p] = file;
	}
	return FFU_STATUS_OK;
}

/* Compares device outputs with the interpreter's; prints the first mismatches. */
ffu_status run_check(const ffu_value *dev, const ffu_value *ref, int n, long long *elements, ffu_error *e)
{
	long long bad = 0, total = 0;
	for (int o = 0; o < n; o++) {
		const ffu_field *f = ffu__shape_field(&ref[o].shape);
		size_t eb = f->storage_bytes;
		int64_t count = ffu__shape_count(&ref[o].shape);
		total += count;
		for (int64_t i = 0; i < count; i++) {
			/* points compare as group elements: a jacobian or xyzz result has many representatives */
			if (f->kind == FFU_ELEM_POINT ? ffu__fp_eq(f, dev[o].data + i * eb, ref[o].data + i * eb)
						      : memcmp(dev[o].data + i * eb, ref[o].data + i * eb, eb) == 0)
				continue;
			if (bad++ < MAX_MISMATCHES_SHOWN) {
				char a[FFU_FIELD_TEXT_MAX], b[FFU_FIELD_TEXT_MAX];
				fprintf(stderr, "check: output %d element %lld: device %s, interpreter %s\n", o, (long long)i,
					ffu__fp_format(f, a, dev[o].data + i * eb), ffu__fp_format(f, b, ref[o].data + i * eb));
			}
		}
	}
	*elements = total;
	if (bad)
		return ffu__err(e, FFU_STATUS_EMISMATCH, "check: %lld of %lld elements differ from the interpreter", bad, total);
	return FFU_STATUS_OK;
}

/*
 * --device SEL, or SEL@rank: among the devices SEL matches (in listing order), the one at
 * the node-local rank modulo their count (docs/hlo.md "Collectives": one rank per GPU of a
 * node with gpu@rank). Outside mpirun the local rank is 0.
 */
static ffu_status select_device(const char *sel, int local_rank, ffu_device_info *dev, ffu_error *e)
{
	static const char suffix[] = "@rank";
	const size_t n = sel ? strlen(sel) : 0, k = sizeof suffix - 1;
	if (n < k || strcmp(sel + n - k, suffix) != 0)
		return ffu__cl_select(dev, sel, e);
	if (n - k >= 256) /* parse_args refused an empty SEL */
		return ffu__err(e, FFU_STATUS_EINVAL, "--device '%s': the selector is too long", sel);
	char base[256];
	memcpy(base, sel, n - k);
	base[n - k] = '\0';
	ffu_device_info *list = NULL;
	int count = 0;
	ffu_status st = ffu__cl_select_all(&list, &count, base, e);
	if (st == FFU_STATUS_OK)
		*dev = list[local_rank % count];
	free(list);
	return st;
}

/* The device first: inputs it cannot hold are refused before they are read or made. */
ffu_status run_open_and_load(const run_args *a, const ffu_module *m, int local_rank, int rank, ffu_device_info *dev,
			     ffu_cl *cl, ffu_value *in, ffu_error *e)
{
	ffu_status st;
	if ((st = select_device(a->device, local_rank, dev, e)) || (st = ffu__cl_open(cl, dev, e)) ||
	    (st = check_inputs_fit(m->entry, dev, e)))
		return st;
	return load_inputs(a, m, rank, in, e);
}

ffu_compile_opts run_compile_opts(const run_args *a)
{
	return (ffu_compile_opts){.no_fuse = a->no_fuse, .verified = true, .disable = a->disabled, .file = a->path};
}

/* The outputs, as run writes them: to -o or stdout (unless --json alone). */
ffu_status run_write_outputs(const run_args *a, const ffu_value *outs, int n_outs, ffu_status st, ffu_error *e)
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

/* spmd (optional): an SPMD run's extras, in the JSON as segments_ms, exchange_ms, rank_devices */
void run_report(const run_args *a, const ffu_device_info *dev, int kernels, double ms, const spmd_report *spmd,
		   ffu_status st, long long elements)
{
	FILE *info = a->out || a->json ? stdout : stderr;
	if (a->json) {
		json_t *j = json_pack("{s:s, s:s, s:i, s:f, s:s}", "device", dev->id, "device_name", dev->name, "kernels",
				      kernels, "kernel_ms", ms, "check",
				      !a->check ? "skipped" : st == FFU_STATUS_OK ? "ok" : "mismatch");
		if (j && spmd) {
			json_object_set_new(j, "segments_ms", json_real(spmd->stats->segment_ms));
			json_object_set_new(j, "exchange_ms", json_real(spmd->stats->exchange_ms));
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

int cmd_run(int argc, char **argv)
{
	run_args a = {.mpi_timeout = FFU_CLI_MPI_TIMEOUT_DEFAULT};
	int rc = parse_args(&a, argc, argv);
	if (rc)
		return rc;

	ffu_error e = {0};
	ffu_module *m = NULL;
	ffu_value *in = NULL, *outs = NULL, *ref = NULL;
	int n_outs = 0, n_ref = 0, n_params = 0;
	ffu_cl cl = {0};
	ffu_device_info dev;
	ffu_exec *x = NULL;
	double ms = 0;
	long long elements = 0;

	ffu_status st = cli_load(a.path, a.dialect, &m, &e);
	if (st)
		goto out;
#ifdef FFU_HAVE_MPI
	if (!a.interp && ffu_cli_mpi_launched()) {
		rc = run_spmd_mpi(&a, m, &e);
		ffu__module_free(m);
		ffu_error_clear(&e);
		return rc;
	}
#endif
	n_params = m->entry->n_params;
	in = calloc((size_t)n_params + 1, sizeof *in);
	if (!in) {
		st = ffu__err(&e, FFU_STATUS_ENOMEM, "out of memory");
		goto out;
	}
	if (a.interp) {
		if ((st = load_inputs(&a, m, -1, in, &e)))
			goto out;
		if (ffu__module_is_spmd(m)) {
			st = run_spmd_interp(&a, m, in, &e);
			goto out;
		}
		if ((st = ffu__interp_run(m, in, n_params, &outs, &n_outs, &e)))
			goto out;
		st = ffu__values_write(a.out ? a.out : "-", outs, n_outs, &e);
		goto out;
	}
	if ((st = run_open_and_load(&a, m, 0, -1, &dev, &cl, in, &e)))
		goto out;
	ffu_compile_opts co = run_compile_opts(&a);
	if (ffu__module_is_spmd(m)) {
		st = run_spmd_here(&a, &cl, &dev, m, in, &co, &e);
		goto out;
	}
	/* the oracle runs the program as written, before any pass touches it */
	if (a.check && (st = ffu__interp_run(m, in, n_params, &ref, &n_ref, &e)))
		goto out;
	if ((st = ffu__compile(&x, &cl, m, &co, &e)) ||
	    (st = ffu__exec_upload(x, in, n_params, &e)) || (st = ffu__exec_run(x, &ms, NULL, &e)) ||
	    (st = ffu__exec_download(x, &outs, &n_outs, &e)))
		goto out;
	if (a.check)
		st = run_check(outs, ref, n_outs, &elements, &e);
	/* outputs are written even when the check fails: they are what the device computed */
	st = run_write_outputs(&a, outs, n_outs, st, &e);
	run_report(&a, &dev, ffu__exec_kernel_count(x), ms, NULL, st, elements);
out:
	rc = st ? cli_fail(&e) : CLI_OK;
	ffu__exec_destroy(&x);
	ffu__cl_close(&cl);
	ffu__values_free(outs, n_outs);
	ffu__values_free(ref, n_ref);
	ffu__values_free(in, n_params);
	ffu__module_free(m);
	ffu_error_clear(&e);
	return rc;
}
