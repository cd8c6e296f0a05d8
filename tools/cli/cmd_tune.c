/*
 * tools/cli/cmd_tune.c: `fieldfuse tune [WORKLOAD...] [--device SEL|all] [--k K] [--runs N]
 * [--wg LIST] [--lanes LIST] [--vector LIST] [--limbs LIST] [--no-write]`.
 *
 * For each device: runs representative workloads (default the embedded seed_bb at 2^K and
 * seed_bn254 at 2^(K-2), about the same bytes; K from the device's cache size unless given,
 * see auto_k) under every candidate of work-group size x elements per work-item (lanes) x
 * vector width (1: element-wise loads; 4: one vload per extension element, -DFFU_VECTOR_LOADS) x
 * limb width of the multi-word fields (32 or 64: cl/montn.cl, cl/montn_64.cl),
 * through the API-level override of the context (ffu__cl_set_override), so the runs go
 * through the same code generation and launches as any other run. Every candidate's outputs
 * are compared with the reference interpreter: a difference is an error (exit 1), never a
 * data point. Each candidate runs alternately with the built-in profile (kept compiled
 * throughout), so load that comes and goes during the search affects both alike; its score
 * is its median time relative to the built-in profile's, averaged over the workloads
 * (CLBlast's rule for defaults). The best one is then measured against the built-in profile
 * again with CONFIRM_ROUNDS times the runs, against freshly built runners of the built-in
 * profile: a winner picked from many noisy medians looks better than it is, and once a
 * built-in program instance ran 1.6x slower than the same kernel built again for the whole
 * search (docs/tuning.md). A candidate whose every program is the built-in's (same
 * generated source, same build options, same work-group size) cannot win: its score is the
 * noise of the measurement, printed as such.
 * The result goes to the tuning database (device/tuning_db.h) unless --no-write; runs pick
 * it up when they open the device. A confirmed gain under 5% keeps the built-in values (and
 * says so in the entry): identical configurations measured up to 3% apart on the shared
 * build machine.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "cli.h"
#include "device/profile.h"
#include "device/tuning_db.h"
#include "hlo/hlo.h"
#include "interp/interp.h"
#include "ir/value.h"
#include "runtime/cl.h"
#include "runtime/compile.h"

enum { MAX_WORKLOADS = 8, MAX_LIST = 16, MAX_CANDIDATES = MAX_LIST * MAX_LIST * 2 * 2 + 1, CONFIRM_ROUNDS = 5 };
#define WORKLOAD_SIZE "[1048576]"
#define MIN_GAIN 1.05

typedef struct workload {
	const char *name;
	int k;
	char *text;         /* the workload at 2^k */
	ffu_module *m;      /* as written: the interpreter's input and the inputs' shapes */
	ffu_value *in, *ref;
	int n_in, n_ref;
} workload;

typedef struct candidate {
	ffu_params p;
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
	ffu__values_free(w->in, w->n_in);
	ffu__values_free(w->ref, w->n_ref);
	ffu__module_free(w->m);
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
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	if ((st = ffu__hlo_parse(&w->m, w->text, strlen(w->text), name, e)) || (st = ffu__module_verify(w->m, name, e)))
		return st;
	w->n_in = w->m->entry->n_params;
	w->in = calloc((size_t)w->n_in + 1, sizeof *w->in);
	if (!w->in)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	for (int p = 0; p < w->n_in; p++) {
		if ((st = ffu__value_alloc(&w->in[p], &w->m->entry->params[p]->shape, e)))
			return st;
		ffu__value_random(&w->in[p], &seed);
	}
	return ffu__interp_run(w->m, w->in, w->n_in, &w->ref, &w->n_ref, e);
}

/* ---- measuring ----------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/*
 * One workload compiled under params p on cl (lanes are fixed when the exec is created,
 * the work-group size is read at each launch: both come from the context's override, which
 * is set around every call and cleared after).
 */
typedef struct runner {
	ffu_params p;
	ffu_module *m;
	ffu_exec *x;
	char options[96];   /* the build options the profile under p adds (profile.h) */
} runner;

/* Same generated OpenCL C and build options (the work-group size is the caller's to compare). */
static bool runner_same_code(const runner *a, const runner *b)
{
	return strcmp(a->options, b->options) == 0 && strcmp(ffu__exec_source(a->x), ffu__exec_source(b->x)) == 0;
}

static void runner_close(runner *r)
{
	ffu__exec_destroy(&r->x);
	ffu__module_free(r->m);
	r->m = NULL;
}

/* Compiles, uploads, runs once and compares every output with the interpreter's. */
static ffu_status runner_open(ffu_cl *cl, const workload *w, const ffu_params *p, runner *r, ffu_error *e)
{
	ffu_value *out = NULL;
	int n_out = 0;
	ffu_compile_opts co = {.fusion_as_asked = true, .verified = true};
	ffu_status st = FFU_STATUS_OK;

	memset(r, 0, sizeof *r);
	r->p = *p;
	ffu__cl_set_override(cl, p);
	snprintf(r->options, sizeof r->options, "%s", cl->target.build_options);
	/* a copy of the workload's verified module: every runner fuses its own */
	if (!(r->m = ffu__module_clone(w->m)))
		st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	if (st || (st = ffu__compile(&r->x, cl, r->m, &co, e)) || (st = ffu__exec_upload(r->x, w->in, w->n_in, e)) ||
	    (st = ffu__exec_run(r->x, NULL, NULL, e)) || (st = ffu__exec_download(r->x, &out, &n_out, e)))
		goto out;
	for (int i = 0; i < n_out; i++) {
		if (i >= w->n_ref || out[i].bytes != w->ref[i].bytes || memcmp(out[i].data, w->ref[i].data, out[i].bytes)) {
			st = ffu__err(e, FFU_STATUS_EMISMATCH,
				      "%s at 2^%d with work-group size %zu and %d lanes: output %d differs from the "
				      "reference interpreter on %s",
				      w->name, w->k, p->wg, p->lanes, i, cl->dev.name);
			goto out;
		}
	}
out:
	ffu__cl_set_override(cl, NULL);
	ffu__values_free(out, n_out);
	if (st)
		runner_close(r);
	return st;
}

static ffu_status runner_time(ffu_cl *cl, runner *r, double *ms, ffu_error *e)
{
	ffu__cl_set_override(cl, &r->p);
	ffu_status st = ffu__exec_run(r->x, ms, NULL, e);
	ffu__cl_set_override(cl, NULL);
	return st;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * Runs a and b alternately (after warm-up runs of both) and gives their median times:
 * measured side by side, so a machine that gets busier or quieter during the search
 * changes both alike (measured here: other jobs doubled seed_bn254's time mid-search).
 */
static ffu_status paired(ffu_cl *cl, runner *a, runner *b, int runs, int warmup, double *ms_a, double *ms_b,
			 ffu_error *e)
{
	double *ta = calloc((size_t)runs, sizeof *ta), *tb = calloc((size_t)runs, sizeof *tb);
	ffu_status st = ta && tb ? FFU_STATUS_OK : ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	for (int r = 0; r < warmup + runs && st == FFU_STATUS_OK; r++) {
		double x = 0, y = 0;
		if ((st = runner_time(cl, a, &x, e)) || (st = runner_time(cl, b, &y, e)))
			break;
		if (r >= warmup)
			ta[r - warmup] = x, tb[r - warmup] = y;
	}
	if (st == FFU_STATUS_OK) {
		*ms_a = median(ta, runs);
		*ms_b = median(tb, runs);
	}
	free(ta);
	free(tb);
	return st;
}

/*
 * Candidate c against the built-in runners, workload by workload; a limit the candidate
 * exceeds marks it skipped, anything else (a wrong result included) fails the search.
 */
static ffu_status measure(ffu_cl *cl, const workload *ws, runner *base, int nw, candidate *c, int runs, int warmup,
			  ffu_error *e)
{
	c->ok = false;
	c->score = 0;
	c->same_code = true;
	for (int w = 0; w < nw; w++) {
		runner r;
		double mb = 0;
		ffu_status st = runner_open(cl, &ws[w], &c->p, &r, e);
		if (st == FFU_STATUS_OK) {
			c->same_code = c->same_code && runner_same_code(&base[w], &r);
			st = paired(cl, &base[w], &r, runs, warmup, &mb, &c->ms[w], e);
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
static const char *params_str(char buf[96], const ffu_params *p, bool row)
{
	snprintf(buf, 96, row ? "wg %5zu lanes %2d vector %d limb %d" : "wg %zu, lanes %d, vector %d, limb %d", p->wg,
		 p->lanes, p->vector_width, p->limb_bits);
	return buf;
}

/* {"wg", "lanes", "ms": {workload: ms}, "builtin_ms": {...}} (builtin_ms only when given) */
static json_t *params_json(const ffu_params *p, const double *ms, int nw, const workload *ws, const double *base_ms)
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

static ffu_status tune_device(const ffu_device_info *dev, const workload *ws, int nw, const tune_opts *o, FILE *out,
			      ffu_error *e)
{
	ffu_cl cl = {0};
	candidate *cands = calloc(MAX_CANDIDATES, sizeof *cands);
	candidate base = {0}, best, again;
	runner base_run[MAX_WORKLOADS];
	int n_base = 0;
	double gain_sum = 0;
	int nc = 0;
	json_t *tune = NULL, *all = NULL;
	ffu_profile builtin;
	ffu_status st;

	if (!cands)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	if ((st = ffu__cl_open(&cl, dev, e)))
		goto out;
	/* the search compares with the built-in table, not with an earlier tuning entry */
	memset(&cl.dev.tuned, 0, sizeof cl.dev.tuned);
	ffu__cl_retarget(&cl);
	ffu__profile_builtin(&builtin, &cl.dev);
	base.p = (ffu_params){.wg = builtin.wg, .lanes = builtin.lanes, .vector_width = builtin.vector_width,
			      .limb_bits = builtin.limb_bits};
	char pbuf[96];
	fprintf(out, "%s %s (%s): built-in profile %s (%s); workloads", cl.dev.id, cl.dev.name,
		ffu__vendor_str(cl.dev.vendor_class), params_str(pbuf, &base.p, false), builtin.source);
	for (int w = 0; w < nw; w++)
		fprintf(out, " %s at 2^%d", ws[w].name, ws[w].k);
	fputc('\n', out);

	/* candidates: every listed size within the device's limits, and the built-in choice */
	size_t limit = cl.dev.max_wg;
	if (cl.dev.max_work_item_sizes[0] && cl.dev.max_work_item_sizes[0] < limit)
		limit = cl.dev.max_work_item_sizes[0];
	for (int a = 0; a < o->n_wgs; a++)
		for (int b = 0; b < o->n_lanes; b++)
			for (int c = 0; c < o->n_limbs; c++)
				for (int d = 0; d < o->n_vectors; d++)
					if (!limit || o->wgs[a] <= limit)
						cands[nc++].p = (ffu_params){.wg = o->wgs[a], .lanes = o->lanes[b],
									     .vector_width = o->vectors[d],
									     .limb_bits = o->limbs[c]};
	/*
	 * The built-in profile runs as runs do: its lanes, and its size as the soft cap the
	 * launch plan lowers to each kernel's limits (Rusticl's kernels take 32 at most), so
	 * only the lanes go through the override. Candidates' sizes are requests: refused
	 * (skipped) beyond a limit.
	 */
	ffu_params base_override = {.lanes = base.p.lanes, .limb_bits = base.p.limb_bits};
	for (int w = 0; w < nw; w++) {
		if ((st = runner_open(&cl, &ws[w], &base_override, &base_run[w], e)))
			goto out;
		n_base++;
	}
	int best_i = -1, n_ran = 0;
	ffu_params chosen;
	for (int i = 0; i < nc; i++) {
		candidate *c = &cands[i];
		if ((st = measure(&cl, ws, base_run, nw, c, o->runs, o->warmup, e)))
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
		st = ffu__err(e, FFU_STATUS_ELIMIT, "no candidate runs on %s", cl.dev.name);
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
		if ((st = runner_open(&cl, &ws[w], &base_override, &base_run[w], e)))
			goto out;
		n_base++;
	}

	/* confirm: the winner against the built-in profile again, with CONFIRM_ROUNDS x the runs */
	double median_ratio[MAX_WORKLOADS];
	again = best;
	if ((st = measure(&cl, ws, base_run, nw, &again, o->runs * CONFIRM_ROUNDS, o->warmup, e)))
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
	if (!tune) {
		st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
		goto out;
	}
	if (o->write) {
		char *path = NULL;
		if ((st = ffu__tuning_store(&cl.dev, &chosen, tune, e)) || (st = ffu__tuning_path(&path, e)))
			goto out;
		fprintf(out, "  written to %s: %s\n", path, params_str(pbuf, &chosen, false));
		free(path);
	}
out:
	for (int w = 0; w < n_base; w++)
		runner_close(&base_run[w]);
	json_decref(all);
	json_decref(tune);
	ffu__cl_close(&cl);
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
static int auto_k(const ffu_device_info *d)
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
	ffu_device_info *devs = NULL;
	int n_devs = 0, rc = CLI_OK;
	ffu_status st = FFU_STATUS_OK;
	if (o.device && strcmp(o.device, "all") == 0)
		st = ffu__cl_select_all(&devs, &n_devs, o.device, &e);
	else if ((devs = calloc(1, sizeof *devs)) == NULL)
		st = ffu__err(&e, FFU_STATUS_ENOMEM, "out of memory");
	else if ((st = ffu__cl_select(devs, o.device, &e)) == FFU_STATUS_OK)
		n_devs = 1;
	for (int d = 0; d < n_devs && st == FFU_STATUS_OK; d++) {
		workload ws[MAX_WORKLOADS];
		int loaded = 0, dk = o.k ? o.k : auto_k(&devs[d]);
		memset(ws, 0, sizeof ws);
		for (int i = 0; i < n_names && st == FFU_STATUS_OK; i++, loaded++) {
			/* 256-bit elements are 8 words: two sizes smaller keeps the bytes moved alike */
			int kk = strstr(names[i], "bn254") || strstr(names[i], "bls12") ? dk - 2 : dk;
			st = workload_load(&ws[i], names[i], kk < 1 ? 1 : kk, &e);
		}
		if (st == FFU_STATUS_OK)
			st = tune_device(&devs[d], ws, n_names, &o, stdout, &e);
		for (int i = 0; i < loaded; i++)
			workload_free(&ws[i]);
	}
	if (st)
		rc = cli_fail(&e);
	free(devs);
	ffu_error_clear(&e);
	return rc;
}
