/*
 * tools/cli/cmd_tune.c: `fieldfuse tune [WORKLOAD...] [--device SEL|all] [--k K] [--runs N]
 * [--wg LIST] [--lanes LIST] [--vector LIST] [--limbs LIST] [--no-write]`.
 *
 * For each device: runs representative workloads (default the embedded seed_bb at 2^K and
 * seed_bn254 at 2^(K-2), about the same bytes; K from the device's cache size unless given,
 * see auto_k) under every candidate of work-group size x elements per work-item (lanes) x
 * vector width (1: element-wise loads; 4: one vload per extension element, -DFFU_VECTOR_LOADS) x
 * limb width of the multi-word fields (32 or 64: cl/montn.cl, cl/montn_64.cl), each an
 * executable made with the candidate as its params (ffu_tool_executable_create), so the
 * runs go through the same code generation and launches as any other run. Every
 * candidate's outputs are compared byte for byte (storage form) with the reference
 * interpreter's: a difference is an error (exit 1), never a data point. Each candidate
 * runs alternately with the built-in profile (kept compiled throughout), so load that
 * comes and goes during the search affects both alike; its score is its median time
 * relative to the built-in profile's, averaged over the workloads
 * (CLBlast's rule for defaults). The best one is then measured against the built-in profile
 * again with CONFIRM_ROUNDS times the runs, against freshly built runners of the built-in
 * profile: a winner picked from many noisy medians looks better than it is, and once a
 * built-in program instance ran 1.6x slower than the same kernel built again for the whole
 * search (docs/tuning.md). A candidate whose every program is the built-in's (same
 * generated source, same build options, same work-group size) cannot win: its score is the
 * noise of the measurement, printed as such.
 * The result goes to the tuning database (ffu_tool_tune_store) unless --no-write; runs pick
 * it up when they open the device. A confirmed gain under 5% keeps the built-in values (and
 * says so in the entry): identical configurations measured up to 3% apart on the shared
 * build machine.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/tool.h"
#include "bench/bench.h"
#include "cli.h"

enum { MAX_WORKLOADS = 8, MAX_LIST = 16, MAX_CANDIDATES = MAX_LIST * MAX_LIST * 2 * 2 + 1, CONFIRM_ROUNDS = 5 };
#define WORKLOAD_SIZE "[1048576]"
#define MIN_GAIN 1.05

typedef struct workload {
	const char *name;
	int k;
	char *text;         /* the workload at 2^k */
	ffu_program *p;
	void **in, **ref;   /* host arrays in storage form (info.bytes each): inputs, the interpreter's outputs */
	int n_in, n_ref;
	char *code;         /* what the built-in profile builds for it (ffu_tool_tune_code) */
} workload;

typedef struct candidate {
	ffu_tool_params p;
	double ms[MAX_WORKLOADS];
	double base_ms[MAX_WORKLOADS]; /* the built-in profile's, measured alongside */
	double score;       /* mean time relative to the built-in profile's */
	bool ok;
	bool same_code;     /* every workload's program and launch as the built-in profile's */
	char skipped[160];  /* why not, when !ok */
} candidate;

typedef struct tune_opts {
	const char *device;
	int k, runs, warmup;
	size_t wgs[MAX_LIST];
	int n_wgs;
	int lanes[MAX_LIST];
	int n_lanes;
	int limbs[2];       /* limb widths of 256-bit fields: 32, 64 */
	int n_limbs;
	int vectors[2];     /* vector widths: 1, 4 */
	int n_vectors;
	bool write;
} tune_opts;

static ffu_status oom(ffu_error *e)
{
	return ffu_tool_error(e, FFU_STATUS_ENOMEM, "out of memory");
}

/* ---- workloads ----------------------------------------------------------------------- */

static char *sized_text(const char *text, int k)
{
	char dim[32];
	size_t pat = strlen(WORKLOAD_SIZE), count = 0;
	snprintf(dim, sizeof dim, "[%llu]", 1ull << k);
	for (const char *p = strstr(text, WORKLOAD_SIZE); p; p = strstr(p + pat, WORKLOAD_SIZE))
		count++;
	char *out = malloc(strlen(text) + count * strlen(dim) + 1), *w = out;
	if (!out)
		return NULL;
	const char *r = text;
	for (const char *p; (p = strstr(r, WORKLOAD_SIZE)) != NULL; r = p + pat) {
		memcpy(w, r, (size_t)(p - r));
		w += p - r;
		w += sprintf(w, "%s", dim);
	}
	strcpy(w, r);
	return out;
}

static void workload_free(workload *w)
{
	free(w->text);
	free(w->code);
	ffu_tool_arrays_free(w->in);
	ffu_tool_arrays_free(w->ref);
	ffu_program_destroy(&w->p);
	memset(w, 0, sizeof *w);
}


/* Text, random inputs (seeded by k) and the interpreter's outputs for them. */
static ffu_status workload_load(workload *w, const char *name, int k, ffu_error *e)
{
	uint64_t seed = 0x7e5e0000u + (uint64_t)k;
	ffu_status st;
	memset(w, 0, sizeof *w);
	w->name = name;
	w->k = k;
	w->text = sized_text(ffu__bench_workload(name), k);
	if (!w->text)
		return oom(e);
	if ((st = ffu_program_parse(&w->p, w->text, strlen(w->text), name, e)))
		return st;
	w->n_in = ffu_program_num_inputs(w->p);
	w->n_ref = ffu_program_num_outputs(w->p);
	if ((st = ffu_tool_arrays_alloc(&w->in, w->p, FFU_TOOL_INPUTS, e)) ||
	    (st = ffu_tool_arrays_alloc(&w->ref, w->p, FFU_TOOL_OUTPUTS, e)))
		return st;
	for (int i = 0; i < w->n_in; i++) {
		ffu_array_info info;
		if ((st = ffu_program_input(w->p, i, &info)) ||
		    (st = ffu_tool_random_input(w->p, i, &seed, w->in[i], info.bytes, e)))
			return st;
	}
	return ffu_program_interpret(w->p, (const void *const *)w->in, w->ref, e);
}

/* ---- measuring ----------------------------------------------------------------------- */

/*
 * One workload compiled under params p on the device: an executable made with p as its
 * override (ffu_tool_executable_create: generation and launches alike, the work-group
 * size included), and its own input and output buffers, the inputs uploaded.
 */
typedef struct runner {
	ffu_tool_params p;
	ffu_executable *x;
	ffu_tool_buffers b;
} runner;

static void runner_close(runner *r)
{
	ffu_tool_buffers_free(&r->b);
	ffu_executable_destroy(&r->x);
	memset(r, 0, sizeof *r);
}

/* Compiles, uploads, runs once and compares every output with the interpreter's. */
static ffu_status runner_open(ffu_device *d, const workload *w, const ffu_tool_params *p, runner *r, ffu_error *e)
{
	ffu_tool_exec_opts xo = {.fusion_as_asked = 1, .params = p};
	void **got = NULL;
	ffu_status st;

	memset(r, 0, sizeof *r);
	r->p = *p;
	if ((st = ffu_tool_executable_create(&r->x, d, w->p, &xo, e)) || (st = ffu_tool_buffers_make(&r->b, r->x, e)) ||
	    (st = ffu_tool_buffers_upload(&r->b, (const void *const *)w->in, e)) ||
	    (st = ffu_tool_buffers_run(r->x, &r->b, NULL, e)) ||
	    (st = ffu_tool_arrays_alloc(&got, w->p, FFU_TOOL_OUTPUTS, e)) || (st = ffu_tool_buffers_download(&r->b, got, e)))
		goto out;
	for (int i = 0; i < w->n_ref && st == FFU_STATUS_OK; i++) {
		ffu_array_info ref;
		if (ffu_program_output(w->p, i, &ref) || memcmp(got[i], w->ref[i], ref.bytes))
			st = ffu_tool_error(e, FFU_STATUS_EMISMATCH,
					    "%s at 2^%d with work-group size %zu and %d lanes: output %d differs from the "
					    "reference interpreter on %s",
					    w->name, w->k, p->wg, p->lanes, i, ffu_device_name(d));
	}
out:
	ffu_tool_arrays_free(got);
	if (st)
		runner_close(r);
	return st;
}

static ffu_status runner_time(runner *r, double *ms, ffu_error *e)
{
	ffu_run_stats stats;
	ffu_status st = ffu_tool_buffers_run(r->x, &r->b, &stats, e);
	if (st == FFU_STATUS_OK)
		*ms = stats.kernel_ms;
	return st;
}

/*
 * Runs a and b alternately (after warm-up runs of both) and gives their median times:
 * measured side by side, so a machine that gets busier or quieter during the search
 * changes both alike (measured here: other jobs doubled seed_bn254's time mid-search).
 */
static ffu_status paired(runner *a, runner *b, int runs, int warmup, double *ms_a, double *ms_b, ffu_error *e)
{
	double *ta = calloc((size_t)runs, sizeof *ta), *tb = calloc((size_t)runs, sizeof *tb);
	ffu_status st = ta && tb ? FFU_STATUS_OK : oom(e);
	for (int r = 0; r < warmup + runs && st == FFU_STATUS_OK; r++) {
		double x = 0, y = 0;
		if ((st = runner_time(a, &x, e)) || (st = runner_time(b, &y, e)))
			break;
		if (r >= warmup)
			ta[r - warmup] = x, tb[r - warmup] = y;
	}
	if (st == FFU_STATUS_OK) {
		*ms_a = ffu__bench_median(ta, runs);
		*ms_b = ffu__bench_median(tb, runs);
	}
	free(ta);
	free(tb);
	return st;
}

/* Whether p builds for w what the built-in profile builds (same build options and OpenCL C;
   the work-group size is the caller's to compare). */
static ffu_status same_code(ffu_device *d, const workload *w, const ffu_tool_params *p, bool *same, ffu_error *e)
{
	char *code = NULL;
	ffu_status st = ffu_tool_tune_code(&code, d, w->p, p, e);
	if (st == FFU_STATUS_OK)
		*same = strcmp(code, w->code) == 0;
	free(code);
	return st;
}

/*
 * Candidate c against the built-in runners, workload by workload; a limit the candidate
 * exceeds marks it skipped, anything else (a wrong result included) fails the search.
 */
static ffu_status measure(ffu_device *d, const workload *ws, runner *base, int nw, candidate *c, int runs, int warmup,
			  ffu_error *e)
{
	c->ok = false;
	c->score = 0;
	c->same_code = true;
	for (int w = 0; w < nw; w++) {
		runner r;
		double mb = 0;
		ffu_status st = runner_open(d, &ws[w], &c->p, &r, e);
		if (st == FFU_STATUS_OK) {
			if (c->same_code)
				st = same_code(d, &ws[w], &c->p, &c->same_code, e);
			if (st == FFU_STATUS_OK)
				st = paired(&base[w], &r, runs, warmup, &mb, &c->ms[w], e);
			runner_close(&r);
		}
		if (st == FFU_STATUS_ELIMIT) {
			snprintf(c->skipped, sizeof c->skipped, "%.150s", e->message);
			ffu_error_clear(e);
			return FFU_STATUS_OK;
		}
		if (st)
			return st;
		c->base_ms[w] = mb;
		c->score += c->ms[w] / mb / nw;
	}
	c->ok = true;
	return FFU_STATUS_OK;
}

/* ---- one device ---------------------------------------------------------------------- */

/* The searched parameters in words, in one place: "wg 256, lanes 4, vector 1, limb 32", or in
   the candidate table's aligned columns (row). */
static const char *params_str(char buf[96], const ffu_tool_params *p, bool row)
{
	snprintf(buf, 96, row ? "wg %5zu lanes %2d vector %d limb %d" : "wg %zu, lanes %d, vector %d, limb %d", p->wg,
		 p->lanes, p->vector_width, p->limb_bits);
	return buf;
}

/* {"wg", "lanes", "ms": {workload: ms}, "builtin_ms": {...}} (builtin_ms only when given) */
static json_t *params_json(const ffu_tool_params *p, const double *ms, int nw, const workload *ws, const double *base_ms)
{
	json_t *o = json_pack("{s:I, s:i, s:i, s:i}", "wg", (json_int_t)p->wg, "lanes", p->lanes, "vector_width",
			      p->vector_width, "limb_bits", p->limb_bits);
	json_t *t = json_object(), *b = base_ms ? json_object() : NULL;
	for (int i = 0; o && t && i < nw; i++) {
		char key[64];
		snprintf(key, sizeof key, "%s@2^%d", ws[i].name, ws[i].k);
		json_object_set_new(t, key, json_real(ms[i]));
		if (b)
			json_object_set_new(b, key, json_real(base_ms[i]));
	}
	json_object_set_new(o, "ms", t);
	if (b)
		json_object_set_new(o, "builtin_ms", b);
	return o;
}

static ffu_status tune_device(ffu_device *d, workload *ws, int nw, const tune_opts *o, FILE *out, ffu_error *e)
{
	candidate *cands = calloc(MAX_CANDIDATES, sizeof *cands);
	candidate base = {0}, best, again;
	runner base_run[MAX_WORKLOADS];
	int n_base = 0;
	double gain_sum = 0;
	int nc = 0;
	json_t *tune = NULL, *all = NULL;
	char *record = NULL, source[160];
	ffu_tool_device_facts f;
	ffu_status st = FFU_STATUS_OK;

	if (!cands)
		return oom(e);
	/* the search compares with the built-in table, not with an earlier tuning entry */
	ffu_tool_tune_ignore_entry(d);
	ffu_tool_tune_builtin(d, &base.p, source, sizeof source);
	ffu_tool_device_facts_get(d, &f);
	char pbuf[96];
	fprintf(out, "%s %s (%s): built-in profile %s (%s); workloads", f.id, f.name, f.vendor,
		params_str(pbuf, &base.p, false), source);
	for (int w = 0; w < nw; w++)
		fprintf(out, " %s at 2^%d", ws[w].name, ws[w].k);
	fputc('\n', out);

	/* candidates: every listed size within the device's limits, and the built-in choice */
	size_t limit = f.max_wg;
	if (f.max_wi0 && f.max_wi0 < limit)
		limit = f.max_wi0;
	for (int a = 0; a < o->n_wgs; a++)
		for (int b = 0; b < o->n_lanes; b++)
			for (int c = 0; c < o->n_limbs; c++)
				for (int v = 0; v < o->n_vectors; v++)
					if (!limit || o->wgs[a] <= limit)
						cands[nc++].p = (ffu_tool_params){.wg = o->wgs[a], .lanes = o->lanes[b],
										  .vector_width = o->vectors[v],
										  .limb_bits = o->limbs[c]};
	/*
	 * The built-in profile runs as runs do: its lanes, and its size as the soft cap the
	 * launch plan lowers to each kernel's limits (Rusticl's kernels take 32 at most), so
	 * only the lanes go through the override. Candidates' sizes are requests: refused
	 * (skipped) beyond a limit.
	 */
	ffu_tool_params base_override = {.lanes = base.p.lanes, .limb_bits = base.p.limb_bits};
	for (int w = 0; w < nw; w++) {
		if ((st = ffu_tool_tune_code(&ws[w].code, d, ws[w].p, &base_override, e)) ||
		    (st = runner_open(d, &ws[w], &base_override, &base_run[w], e)))
			goto out;
		n_base++;
	}
	int best_i = -1, n_ran = 0;
	ffu_tool_params chosen;
	for (int i = 0; i < nc; i++) {
		candidate *c = &cands[i];
		if ((st = measure(d, ws, base_run, nw, c, o->runs, o->warmup, e)))
			goto out;
		if (!c->ok) {
			fprintf(out, "  %s: skipped (%s)\n", params_str(pbuf, &c->p, true), c->skipped);
			continue;
		}
		fprintf(out, "  %s:", params_str(pbuf, &c->p, true));
		for (int w = 0; w < nw; w++)
			fprintf(out, " %s %.3f ms (built-in %.3f)", ws[w].name, c->ms[w], c->base_ms[w]);
		c->same_code = c->same_code && c->p.wg == base.p.wg;
		fprintf(out, "  -> %.3f of built-in%s\n", c->score, c->same_code ? " (the built-in's code: noise)" : "");
		n_ran++;
		if (!c->same_code && (best_i < 0 || c->score < cands[best_i].score))
			best_i = i;
	}
	if (n_ran == 0) {
		st = ffu_tool_error(e, FFU_STATUS_ELIMIT, "no candidate runs on %s", f.name);
		goto out;
	}
	all = json_array();
	for (int i = 0; all && i < nc; i++)
		if (cands[i].ok)
			json_array_append_new(all, params_json(&cands[i].p, cands[i].ms, nw, ws, cands[i].base_ms));
	if (best_i < 0) {
		/* nothing to confirm: every candidate that ran builds and launches the built-in's code */
		fprintf(out, "  best: the built-in profile (no candidate that ran differs from it)\n");
		chosen = base.p;
		tune = json_pack("{s:o, s:n, s:n, s:b, s:i, s:o}", "builtin", params_json(&base.p, NULL, 0, ws, NULL), "best",
				 "confirmed_gain", "best_replaces_builtin", false, "runs", o->runs, "candidates", all);
		all = NULL;
		goto record;
	}
	best = cands[best_i];

	/* fresh runners for the built-in profile: a slow program instance must not confirm a gain */
	for (int w = 0; w < n_base; w++)
		runner_close(&base_run[w]);
	n_base = 0;
	for (int w = 0; w < nw; w++) {
		if ((st = runner_open(d, &ws[w], &base_override, &base_run[w], e)))
			goto out;
		n_base++;
	}

	/* confirm: the winner against the built-in profile again, with CONFIRM_ROUNDS x the runs */
	double median_ratio[MAX_WORKLOADS];
	again = best;
	if ((st = measure(d, ws, base_run, nw, &again, o->runs * CONFIRM_ROUNDS, o->warmup, e)))
		goto out;
	for (int w = 0; w < nw; w++) {
		median_ratio[w] = again.ok ? again.base_ms[w] / again.ms[w] : 0;
		gain_sum += median_ratio[w] / nw;
	}
	bool keep = gain_sum >= MIN_GAIN;
	chosen = keep ? best.p : base.p;
	fprintf(out, "  best: %s: %.2fx the built-in profile's speed (", params_str(pbuf, &best.p, false), gain_sum);
	for (int w = 0; w < nw; w++)
		fprintf(out, "%s%s %.2fx", w ? ", " : "", ws[w].name, median_ratio[w]);
	fprintf(out, "; confirmed over %d alternating runs)%s\n", o->runs * CONFIRM_ROUNDS,
		keep ? "" : "; under the 5% threshold: the built-in values are kept");

	json_t *ratios = json_object();
	for (int w = 0; ratios && w < nw; w++) {
		char key[64];
		snprintf(key, sizeof key, "%s@2^%d", ws[w].name, ws[w].k);
		json_object_set_new(ratios, key, json_real(median_ratio[w]));
	}
	tune = json_pack("{s:o, s:o, s:f, s:o, s:b, s:i, s:o}", "builtin", params_json(&base.p, again.base_ms, nw, ws, NULL), "best",
			 params_json(&best.p, again.ms, nw, ws, NULL), "confirmed_gain", gain_sum, "confirmed_speedup", ratios,
			 "best_replaces_builtin", keep, "runs", o->runs, "candidates", all);
	all = NULL;
record:
	/* the record as text (its reals to the last digit): the database keeps it as the entry's "tune" */
	if (!tune || !(record = json_dumps(tune, JSON_COMPACT))) {
		st = oom(e);
		goto out;
	}
	if (o->write) {
		char *path = NULL;
		if ((st = ffu_tool_tune_store(d, &chosen, record, &path, e)))
			goto out;
		fprintf(out, "  written to %s: %s\n", path, params_str(pbuf, &chosen, false));
		free(path);
	}
out:
	for (int w = 0; w < n_base; w++)
		runner_close(&base_run[w]);
	json_decref(all);
	json_decref(tune);
	free(record);
	free(cands);
	return st;
}

/*
 * The size to tune at when --k is not given: seed_bb moves 12 bytes per element, and the
 * data must not fit the device's cache (PoCL reports the CPU's L3: at 2^20 the 12 MB stay in
 * a 32 MB L3 and run at 90 GB/s, a figure that says nothing about real runs). So the
 * smallest k >= 22 that moves twice the reported cache, within a quarter of the largest
 * allocation.
 */
static int auto_k(const ffu_tool_device_facts *d)
{
	int k = 22;
	while (k < 28 && (12ull << k) < 2 * d->global_cache)
		k++;
	while (k > 12 && d->max_alloc && (4ull << k) > d->max_alloc / 4)
		k--;
	return k;
}

/* ---- arguments ----------------------------------------------------------------------- */

/* "8,16,64": positive integers up to max, at most MAX_LIST. */
static int parse_list(const char *s, size_t *out, size_t max)
{
	int n = 0;
	while (*s) {
		char *end;
		unsigned long long v = strtoull(s, &end, 10);
		if (end == s || v == 0 || v > max || n == MAX_LIST || (*end && *end != ','))
			return -1;
		out[n++] = (size_t)v;
		s = *end ? end + 1 : end;
	}
	return n;
}

/* A list of one or two values, each a or b (--limbs 32,64, --vector 1,4); the count, or
   -1 for anything else. */
static int parse_pair(const char *text, int a, int b, int out[2])
{
	size_t v[MAX_LIST];
	int n = parse_list(text, v, (size_t)(a > b ? a : b));
	if (n < 1 || n > 2)
		return -1;
	for (int i = 0; i < n; i++) {
		if (v[i] != (size_t)a && v[i] != (size_t)b)
			return -1;
		out[i] = (int)v[i];
	}
	return n;
}

int cmd_tune(int argc, char **argv)
{
	const char *names[MAX_WORKLOADS], *k = NULL, *runs = NULL, *wgs = NULL, *lanes = NULL, *limbs = NULL,
		   *vectors = NULL;
	int n_names = 0;
	tune_opts o = {.k = 0, .runs = 9, .warmup = 2, .write = true,
		       .wgs = {8, 16, 32, 64, 128, 256, 512, 1024}, .n_wgs = 8, .lanes = {1, 2, 4, 8}, .n_lanes = 4,
		       .limbs = {32, 64}, .n_limbs = 2, .vectors = {1, 4}, .n_vectors = 2};
	for (int i = 1; i < argc; i++) {
		int r;
		if ((r = cli_opt(argc, argv, &i, "--device", &o.device)) || (r = cli_opt(argc, argv, &i, "--k", &k)) ||
		    (r = cli_opt(argc, argv, &i, "--runs", &runs)) || (r = cli_opt(argc, argv, &i, "--wg", &wgs)) ||
		    (r = cli_opt(argc, argv, &i, "--lanes", &lanes)) || (r = cli_opt(argc, argv, &i, "--limbs", &limbs)) ||
		    (r = cli_opt(argc, argv, &i, "--vector", &vectors))) {
			if (r < 0)
				return cli_usage("tune: %s needs a value", argv[i]);
		} else if (strcmp(argv[i], "--no-write") == 0) {
			o.write = false;
		} else if (argv[i][0] == '-') {
			return cli_usage("tune: unknown option '%s'", argv[i]);
		} else if (!ffu__bench_workload(argv[i])) {
			return cli_usage("tune: unknown workload '%s' (see `fieldfuse bench`)", argv[i]);
		} else if (n_names == MAX_WORKLOADS) {
			return cli_usage("tune: more than %d workloads", MAX_WORKLOADS);
		} else {
			names[n_names++] = argv[i];
		}
	}
	size_t tmp[MAX_LIST];
	int n;
	if (k) {
		char *end;
		long v = strtol(k, &end, 10);
		if (*end || end == k || v < 4 || v > 28)
			return cli_usage("tune: --k takes a number from 4 to 28, not '%s'", k);
		o.k = (int)v;
	}
	if (runs) {
		char *end;
		long v = strtol(runs, &end, 10);
		if (*end || end == runs || v < 1 || v > 1000)
			return cli_usage("tune: --runs takes a number from 1 to 1000, not '%s'", runs);
		o.runs = (int)v;
		o.warmup = v < 3 ? 1 : 2;
	}
	if (wgs && (o.n_wgs = parse_list(wgs, o.wgs, 65536)) < 1)
		return cli_usage("tune: --wg takes up to %d sizes from 1 to 65536, like 64,128,256, not '%s'", MAX_LIST, wgs);
	if (lanes) {
		if ((n = parse_list(lanes, tmp, 16)) < 1)
			return cli_usage("tune: --lanes takes up to %d counts from 1 to 16, like 1,2,4, not '%s'", MAX_LIST,
					 lanes);
		for (int i = 0; i < n; i++)
			o.lanes[i] = (int)tmp[i];
		o.n_lanes = n;
	}
	if (limbs && (o.n_limbs = parse_pair(limbs, 32, 64, o.limbs)) < 1)
		return cli_usage("tune: --limbs takes 32, 64 or 32,64, not '%s'", limbs);
	if (vectors && (o.n_vectors = parse_pair(vectors, 1, 4, o.vectors)) < 1)
		return cli_usage("tune: --vector takes 1, 4 or 1,4, not '%s'", vectors);
	if (n_names == 0) {
		names[n_names++] = "seed_bb";
		names[n_names++] = "seed_bn254";
	}

	ffu_error e = {0};
	ffu_tool_device_id *ids = NULL;
	int n_devs = 1, rc = CLI_OK;
	ffu_status st = FFU_STATUS_OK;
	/* "all": each device in turn; any other selector (or none) picks one, as runs do */
	if (o.device && strcmp(o.device, "all") == 0)
		st = ffu_tool_device_ids(o.device, &ids, &n_devs, &e);
	for (int d = 0; d < n_devs && st == FFU_STATUS_OK; d++) {
		ffu_device *dev = NULL;
		ffu_tool_device_facts f;
		workload ws[MAX_WORKLOADS];
		int loaded = 0;
		memset(ws, 0, sizeof ws);
		if ((st = ffu_device_open(&dev, ids ? ids[d].id : o.device, &e)))
			break;
		ffu_tool_device_facts_get(dev, &f);
		int dk = o.k ? o.k : auto_k(&f);
		for (int i = 0; i < n_names && st == FFU_STATUS_OK; i++, loaded++) {
			/* 256-bit elements are 8 words: two sizes smaller keeps the bytes moved alike */
			int kk = strstr(names[i], "bn254") || strstr(names[i], "bls12") ? dk - 2 : dk;
			st = workload_load(&ws[i], names[i], kk < 1 ? 1 : kk, &e);
		}
		if (st == FFU_STATUS_OK)
			st = tune_device(dev, ws, n_names, &o, stdout, &e);
		for (int i = 0; i < loaded; i++)
			workload_free(&ws[i]);
		ffu_device_close(&dev);
	}
	if (st)
		rc = cli_fail(&e);
	free(ids);
	ffu_error_clear(&e);
	return rc;
}
