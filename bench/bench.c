/* bench/bench.c: the benchmark driver (see bench.h). */
#include "bench/bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hlo/hlo.h"
#include "interp/interp.h"
#include "ir/value.h"
#include "passes/passes.h"
#include "runtime/exec.h"

const char *const ffu__bench_mode_names[FFU_BENCH_MODE_COUNT] = {"fused", "unfused", "copy"};

/* The workload files are written at this size; bench substitutes 2^k for it. */
#define WORKLOAD_SIZE "[1048576]"

static const char *const default_workloads[] = {"seed_bb", "seed_bn254"};

static ffu_status add_result(ffu_bench_report *rep, const ffu_bench_result *r, ffu_error *e)
{
	if (rep->n_results == rep->cap_results) {
		int cap = rep->cap_results ? rep->cap_results * 2 : 32;
		ffu_bench_result *p = realloc(rep->results, sizeof *p * (size_t)cap);
		if (!p)
			return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
		rep->results = p;
		rep->cap_results = cap;
	}
	rep->results[rep->n_results++] = *r;
	return FFU_STATUS_OK;
}

/* The workload's text with every "[1048576]" replaced by "[2^k]" (malloc'd). */
static char *sized_text(const char *text, int k)
{
	char dim[32];
	snprintf(dim, sizeof dim, "[%llu]", 1ull << k);
	size_t n = 0, pat = strlen(WORKLOAD_SIZE);
	for (const char *p = strstr(text, WORKLOAD_SIZE); p; p = strstr(p + pat, WORKLOAD_SIZE))
		n++;
	char *out = malloc(strlen(text) + n * strlen(dim) + 1);
	if (!out)
		return NULL;
	char *w = out;
	const char *r = text;
	for (const char *p = strstr(r, WORKLOAD_SIZE); p; p = strstr(r, WORKLOAD_SIZE)) {
		memcpy(w, r, (size_t)(p - r));
		w += p - r;
		w += sprintf(w, "%s", dim);
		r = p + pat;
	}
	strcpy(w, r);
	return out;
}

static ffu_status compile(ffu_module **m, const char *text, const char *name, bool fuse, ffu_error *e)
{
	ffu_status st = ffu__hlo_parse(m, text, strlen(text), name, e);
	if (st == FFU_STATUS_OK)
		st = ffu__module_verify(*m, name, e);
	ffu_pass_opts po = {.fuse = fuse};
	if (st == FFU_STATUS_OK)
		st = ffu__passes_run(*m, &po, e);
	return st;
}

typedef struct timed {
	double ms, min_ms, max_ms;
	ffu_timer timer;
	int kernels;
	ffu_value *outs;
	int n_outs;
} timed;

static ffu_status time_mode(ffu_cl *cl, const char *text, const char *name, bool fuse,
			    const ffu_value *inputs, const ffu_bench_opts *o, timed *t, ffu_error *e)
{
	ffu_module *m = NULL;
	ffu_exec *x = NULL;
	double *ms = calloc((size_t)o->runs + 1, sizeof *ms);
	ffu_status st = ms ? compile(&m, text, name, fuse, e) : ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	if (st == FFU_STATUS_OK)
		st = ffu__exec_create(&x, cl, m, e);
	if (st == FFU_STATUS_OK)
		st = ffu__exec_upload(x, inputs, m->entry->n_params, e);
	for (int r = 0; r < o->warmup + o->runs && st == FFU_STATUS_OK; r++) {
		double k = 0;
		st = ffu__exec_run(x, &k, &t->timer, e);
		if (r >= o->warmup)
			ms[r - o->warmup] = k;
	}
	if (st == FFU_STATUS_OK)
		st = ffu__exec_download(x, &t->outs, &t->n_outs, e);
	if (st == FFU_STATUS_OK) {
		t->kernels = ffu__exec_kernel_count(x);
		t->ms = ffu__bench_median(ms, o->runs);
		t->min_ms = ms[0];
		t->max_ms = ms[o->runs - 1];
	}
	ffu__exec_destroy(&x);
	ffu__module_free(m);
	free(ms);
	return st;
}

static void free_outputs(ffu_value *v, int n)
{
	for (int i = 0; i < n; i++)
		ffu__value_free(&v[i]);
	free(v);
}

static ffu_status bench_one(ffu_bench_report *rep, int dev, ffu_cl *cl, const char *wname, int k,
			    const ffu_bench_opts *o, ffu_error *e)
{
	ffu_status st;
	const char *base = ffu__bench_workload(wname);
	char *text = sized_text(base, k);
	ffu_module *shape_src = NULL;
	ffu_value *inputs = NULL;
	int n_inputs = 0;
	timed fused = {0}, unfused = {0};
	if (!text)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	/* inputs from the unfused module's parameters, same for every mode */
	st = ffu__hlo_parse(&shape_src, text, strlen(text), wname, e);
	if (st == FFU_STATUS_OK) {
		n_inputs = shape_src->entry->n_params;
		inputs = calloc((size_t)n_inputs + 1, sizeof *inputs);
		if (!inputs)
			st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	}
	uint64_t seed = 0x5eed0000u + (uint64_t)k;
	size_t bytes = 0;
	for (int p = 0; p < n_inputs && st == FFU_STATUS_OK; p++) {
		st = ffu__value_alloc(&inputs[p], &shape_src->entry->params[p]->shape, e);
		if (st == FFU_STATUS_OK)
			ffu__value_random(&inputs[p], &seed);
		bytes += inputs[p].bytes;
	}
	if (st == FFU_STATUS_OK)
		st = time_mode(cl, text, wname, false, inputs, o, &unfused, e);
	if (st == FFU_STATUS_OK)
		st = time_mode(cl, text, wname, true, inputs, o, &fused, e);
	for (int i = 0; i < fused.n_outs && st == FFU_STATUS_OK; i++) {
		bytes += fused.outs[i].bytes;
		if (unfused.n_outs != fused.n_outs || fused.outs[i].bytes != unfused.outs[i].bytes ||
		    memcmp(fused.outs[i].data, unfused.outs[i].data, fused.outs[i].bytes) != 0)
			st = ffu__err(e, FFU_STATUS_EMISMATCH, "%s at 2^%d on %s: fused and unfused outputs differ",
				      wname, k, cl->dev.name);
	}
	const ffu_shape *s0 = st == FFU_STATUS_OK ? &shape_src->entry->params[0]->shape : NULL;
	const char *field = s0 ? ffu__type_name(s0->type) : "";
	double copy_ms = 0, cmin = 0, cmax = 0;
	bool copy_host = false;
	if (st == FFU_STATUS_OK)
		st = ffu__bench_copy(cl, (size_t)ffu__shape_count(s0), ffu__shape_elem_bytes(s0), o->warmup,
				     o->runs, &copy_ms, &cmin, &cmax, &copy_host, e);
	if (st == FFU_STATUS_OK) {
		size_t copy_bytes = 2 * (size_t)ffu__shape_count(s0) * ffu__shape_elem_bytes(s0);
		ffu_bench_result r = {.device = dev, .workload = wname, .field = field, .k = k, .runs = o->runs};
		const timed *modes[2] = {&fused, &unfused};
		for (int i = 0; i < 2 && st == FFU_STATUS_OK; i++) {
			r.mode = i == 0 ? FFU_BENCH_FUSED : FFU_BENCH_UNFUSED;
			r.kernels = modes[i]->kernels;
			r.ms = modes[i]->ms;
			r.min_ms = modes[i]->min_ms;
			r.max_ms = modes[i]->max_ms;
			r.gbps = (double)bytes / (r.ms * 1e6);
			r.host_timer = modes[i]->timer == FFU_TIMER_HOST;
			st = add_result(rep, &r, e);
		}
		r.mode = FFU_BENCH_COPY;
		r.kernels = 1;
		r.host_timer = copy_host;
		r.ms = copy_ms;
		r.min_ms = cmin;
		r.max_ms = cmax;
		r.gbps = (double)copy_bytes / (copy_ms * 1e6);
		if (r.gbps > rep->copy_gbps[dev])
			rep->copy_gbps[dev] = r.gbps;
		if (st == FFU_STATUS_OK)
			st = add_result(rep, &r, e);
		if (st == FFU_STATUS_OK && o->progress)
			fprintf(o->progress, "bench: %s %s 2^%d: fused %.3f ms, unfused %.3f ms, copy %.3f ms\n",
				rep->devices[dev].id, wname, k, fused.ms, unfused.ms, copy_ms);
	}
	free_outputs(fused.outs, fused.n_outs);
	free_outputs(unfused.outs, unfused.n_outs);
	for (int p = 0; p < n_inputs; p++)
		ffu__value_free(&inputs[p]);
	free(inputs);
	ffu__module_free(shape_src);
	free(text);
	return st;
}

ffu_status ffu__bench_run(ffu_bench_report *rep, const ffu_bench_opts *o, ffu_error *e)
{
	memset(rep, 0, sizeof *rep);
	const char *const *names = o->n_workloads ? o->workloads : default_workloads;
	int n_names = o->n_workloads ? o->n_workloads : 2;
	for (int w = 0; w < n_names; w++)
		if (!ffu__bench_workload(names[w]))
			return ffu__err(e, FFU_STATUS_EINVAL, "unknown workload '%s'", names[w]);
	if (o->k_min < 0 || o->k_max > 40 || o->k_min > o->k_max)
		return ffu__err(e, FFU_STATUS_EINVAL, "--k range %d..%d is not within 0..40", o->k_min, o->k_max);
	if (o->runs < 1 || o->warmup < 0)
		return ffu__err(e, FFU_STATUS_EINVAL, "runs must be at least 1");
	ffu_status st = ffu__cl_select_all(&rep->devices, &rep->n_devices, o->device, e);
	if (st)
		return st;
	rep->copy_gbps = calloc((size_t)rep->n_devices, sizeof *rep->copy_gbps);
	if (!rep->copy_gbps)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	for (int d = 0; d < rep->n_devices && st == FFU_STATUS_OK; d++) {
		ffu_cl cl = {0};
		st = ffu__cl_open(&cl, &rep->devices[d], e);
		for (int w = 0; w < n_names && st == FFU_STATUS_OK; w++)
			for (int k = o->k_min; k <= o->k_max && st == FFU_STATUS_OK; k++)
				st = bench_one(rep, d, &cl, names[w], k, o, e);
		ffu__cl_close(&cl);
	}
	return st;
}

void ffu__bench_report_free(ffu_bench_report *rep)
{
	free(rep->devices);
	free(rep->copy_gbps);
	free(rep->results);
	memset(rep, 0, sizeof *rep);
}
