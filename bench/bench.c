/* bench/bench.c: the benchmark driver (see bench.h). */
#include "bench/bench.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>
#include <xxhash.h>

#include "api/tool.h"

const char *const ffu__bench_mode_names[FFU_BENCH_MODE_COUNT] = {"fused", "unfused", "c_baseline", "copy"};

/* The workload files are written at this size; bench substitutes 2^k for it. */
#define WORKLOAD_SIZE "[1048576]"

static const char *const default_workloads[] = {"seed_bb", "seed_bn254"};

/* Workload groups: a group name stands for every embedded workload named "<group>_...", in
 * the order bench/meson.build embeds them. */
const char *const ffu__bench_group_names[] = {"fieldops", NULL};

int ffu__bench_expand(const char *name, const char **out, int cap)
{
	for (int w = 0; ffu__bench_workload_names[w]; w++)
		if (strcmp(ffu__bench_workload_names[w], name) == 0) {
			if (cap > 0)
				out[0] = ffu__bench_workload_names[w];
			return 1;
		}
	int n = 0;
	size_t len = strlen(name);
	for (int g = 0; ffu__bench_group_names[g]; g++) {
		if (strcmp(name, ffu__bench_group_names[g]) != 0)
			continue;
		for (int w = 0; ffu__bench_workload_names[w]; w++) {
			const char *wn = ffu__bench_workload_names[w];
			if (strncmp(wn, name, len) == 0 && wn[len] == '_') {
				if (n < cap)
					out[n] = wn;
				n++;
			}
		}
	}
	return n;
}

static ffu_status add_result(ffu_bench_report *rep, const ffu_bench_result *r, ffu_error *e)
{
	if (rep->n_results == rep->cap_results) {
		int cap = rep->cap_results ? rep->cap_results * 2 : 32;
		ffu_bench_result *p = realloc(rep->results, sizeof *p * (size_t)cap);
		if (!p)
			return ffu_tool_error(e, FFU_STATUS_ENOMEM, "out of memory");
		rep->results = p;
		rep->cap_results = cap;
	}
	rep->results[rep->n_results++] = *r;
	return FFU_STATUS_OK;
}

/*
 * The workload's text at 2^k: every number 1048576 (the size the files are written at,
 * in shapes and slice bounds) becomes 2^k, every 524288 (half of it: the even/odd halves
 * of sumcheck and fold) 2^(k-1), and every 2097152 (twice it: a low-degree extension's
 * result) 2^(k+1). Only whole numbers are replaced. malloc'd.
 */
static char *sized_text(const char *text, int k)
{
	static const char *const pats[3] = {"1048576", "524288", "2097152"};
	static const int shift[3] = {0, 1, -1};
	size_t len = strlen(text);
	char *out = malloc(len * 3 + 64); /* a 6-7 digit number grows to at most 20 digits */
	if (!out)
		return NULL;
	char *w = out;
	for (const char *r = text; *r;) {
		int hit = -1;
		if (isdigit((unsigned char)*r) && (r == text || !isalnum((unsigned char)r[-1])))
			for (int q = 0; q < 3 && hit < 0; q++) {
				size_t n = strlen(pats[q]);
				if (strncmp(r, pats[q], n) == 0 && !isalnum((unsigned char)r[n]))
					hit = q;
			}
		if (hit < 0) {
			*w++ = *r++;
			continue;
		}
		w += sprintf(w, "%llu", 1ull << (k - shift[hit]));
		r += strlen(pats[hit]);
	}
	*w = '\0';
	return out;
}

/* ---------------------------------------------------------------- host arrays */

/* One side's host arrays of a program, each its ffu_array_info.bytes (at least 1 allocated). */
typedef struct arrays {
	void **data; /* ffu_tool_arrays_alloc's */
	int n;
} arrays;

static void arrays_free(arrays *a)
{
	ffu_tool_arrays_free(a->data);
	a->data = NULL;
	a->n = 0;
}

/* Input or output i of p described (EINVAL when there is none). */
static ffu_status array_info(const ffu_program *p, ffu_tool_side side, int i, ffu_array_info *info, ffu_error *e)
{
	bool in = side == FFU_TOOL_INPUTS;
	ffu_status st = in ? ffu_program_input(p, i, info) : ffu_program_output(p, i, info);
	return st ? ffu_tool_error(e, st, "%s has no %s %d", ffu_program_name(p), in ? "input" : "output", i) : st;
}

/* Allocates p's input or output arrays (zeroed: a baseline that leaves a byte unwritten
   must not hash garbage); *bytes (may be NULL) grows by their sizes. */
static ffu_status arrays_alloc(arrays *a, const ffu_program *p, ffu_tool_side side, size_t *bytes, ffu_error *e)
{
	a->n = side == FFU_TOOL_INPUTS ? ffu_program_num_inputs(p) : ffu_program_num_outputs(p);
	ffu_status st = ffu_tool_arrays_alloc(&a->data, p, side, e);
	for (int i = 0; i < a->n && st == FFU_STATUS_OK && bytes; i++) {
		ffu_array_info info;
		if ((st = array_info(p, side, i, &info, e)) == FFU_STATUS_OK)
			*bytes += info.bytes;
	}
	return st;
}

/* The workload's program at 2^k and its inputs: random, seeded by k, the same for every mode
 * and device (`fieldfuse run --random`'s draws). *bytes grows by the inputs' sizes. */
static ffu_status make_inputs(ffu_program **p, arrays *inputs, size_t *bytes, const char *wname, int k, ffu_error *e)
{
	char *text = sized_text(ffu__bench_workload(wname), k);
	ffu_status st = text ? ffu_program_parse(p, text, strlen(text), wname, e)
			     : ffu_tool_error(e, FFU_STATUS_ENOMEM, "out of memory");
	if (st == FFU_STATUS_OK)
		st = arrays_alloc(inputs, *p, FFU_TOOL_INPUTS, bytes, e);
	uint64_t seed = 0x5eed0000u + (uint64_t)k;
	for (int i = 0; i < inputs->n && st == FFU_STATUS_OK; i++) {
		ffu_array_info info;
		st = array_info(*p, FFU_TOOL_INPUTS, i, &info, e);
		if (st == FFU_STATUS_OK) /* point arrays: (a + i d) G, fields/point_random.c */
			st = ffu_tool_random_input(*p, i, &seed, inputs->data[i], info.bytes, e);
	}
	free(text);
	return st;
}

/* --save-values: a workload's inputs and outputs at 2^k written to dir as value files (.bin,
 * the storage bytes): WORKLOAD.kK.inP.bin for each parameter P, WORKLOAD.kK.outI.bin for
 * each output I (the fused mode's, which every mode matched; with --baseline-only the
 * c_baseline's), for bench/peers/, which run other libraries on them. */
static ffu_status save_values(const char *dir, const char *workload, int k, const ffu_program *p,
			      const arrays *inputs, const arrays *outs, ffu_error *e)
{
	ffu_status st = FFU_STATUS_OK;
	char path[4096];
	for (int i = 0; i < inputs->n + outs->n && st == FFU_STATUS_OK; i++) {
		bool in = i < inputs->n;
		int at = in ? i : i - inputs->n;
		const void *data = in ? inputs->data[at] : outs->data[at];
		snprintf(path, sizeof path, "%s/%s.k%d.%s%d.bin", dir, workload, k, in ? "in" : "out", at);
		st = ffu_tool_write_values(path, p, in ? FFU_TOOL_INPUTS : FFU_TOOL_OUTPUTS, at, 1, &data, e);
	}
	return st;
}

/* ---------------------------------------------------------------- timing on a device */

typedef struct timed {
	double ms, min_ms, max_ms;
	bool host_timer;
	int kernels;
	arrays outs;
} timed;

static void summarise(timed *t, double *ms, int runs)
{
	t->ms = ffu__bench_median(ms, runs); /* sorts */
	t->min_ms = ms[0];
	t->max_ms = ms[runs - 1];
}

static uint64_t outputs_hash(const timed *t, const ffu_program *p)
{
	uint64_t h = 0;
	for (int i = 0; i < t->outs.n; i++) {
		ffu_array_info info;
		if (array_info(p, FFU_TOOL_OUTPUTS, i, &info, NULL) == FFU_STATUS_OK)
			h = XXH64(t->outs.data[i], info.bytes, h);
	}
	return h;
}

/* One run: kernels only, or (end_to_end) upload + kernels + download on the host clock. */
static ffu_status run_once(ffu_executable *x, ffu_tool_buffers *b, const arrays *inputs, const ffu_bench_opts *o,
			   double *ms, timed *t, ffu_error *e)
{
	if (o->timing == FFU_TIMING_KERNEL) {
		ffu_run_stats stats = {0};
		ffu_status st = ffu_tool_buffers_run(x, b, &stats, e);
		*ms = stats.kernel_ms;
		t->host_timer = stats.host_timed != 0;
		return st;
	}
	double start = ffu_tool_now_ms();
	ffu_status st = ffu_tool_buffers_upload(b, (const void *const *)inputs->data, e);
	if (st == FFU_STATUS_OK)
		st = ffu_tool_buffers_run(x, b, NULL, e);
	if (st == FFU_STATUS_OK)
		st = ffu_tool_buffers_download(b, t->outs.data, e);
	*ms = ffu_tool_now_ms() - start;
	t->host_timer = true;
	return st;
}

/* Compiles p for d (fused or not) and times it; t->outs gets its outputs. */
static ffu_status time_mode(ffu_device *d, const ffu_program *p, const char *name, bool fuse, const arrays *inputs,
			    const ffu_bench_opts *o, timed *t, ffu_error *e)
{
	ffu_executable *x = NULL;
	ffu_tool_buffers b = {0};
	ffu_tool_exec_opts xo = {.no_fuse = !fuse, .fusion_as_asked = 1, .file = name};
	double *ms = calloc((size_t)o->runs + 1, sizeof *ms);
	ffu_status st = ms ? FFU_STATUS_OK : ffu_tool_error(e, FFU_STATUS_ENOMEM, "out of memory");
	if (st == FFU_STATUS_OK && (st = ffu_tool_executable_create(&x, d, p, &xo, e)) == FFU_STATUS_OK &&
	    (st = ffu_tool_buffers_make(&b, x, e)) == FFU_STATUS_OK &&
	    (st = arrays_alloc(&t->outs, p, FFU_TOOL_OUTPUTS, NULL, e)) == FFU_STATUS_OK)
		st = ffu_tool_buffers_upload(&b, (const void *const *)inputs->data, e);
	for (int r = 0; r < o->warmup + o->runs && st == FFU_STATUS_OK; r++) {
		double k = 0;
		st = run_once(x, &b, inputs, o, &k, t, e);
		if (r >= o->warmup)
			ms[r - o->warmup] = k;
	}
	if (st == FFU_STATUS_OK)
		st = ffu_tool_buffers_download(&b, t->outs.data, e);
	if (st == FFU_STATUS_OK) {
		t->kernels = ffu_executable_kernel_count(x);
		summarise(t, ms, o->runs);
	}
	ffu_tool_buffers_free(&b);
	ffu_executable_destroy(&x);
	free(ms);
	return st;
}

/* ---------------------------------------------------------------- the C baseline */

/* A C baseline measurement: its times and the hash of its outputs. */
typedef struct baseline {
	const char *workload;
	const char *field;  /* the first parameter's element type, as bench_one reports it */
	int k;
	timed t;
	uint64_t hash;
	size_t bytes;       /* inputs + outputs */
	int64_t muls, points;
} baseline;

/* The baselines' view of one side's arrays: data and shape (the data stay the caller's). */
static ffu_status bench_arrays(ffu_bench_array **out, const ffu_program *p, ffu_tool_side side, const arrays *a,
			       ffu_error *e)
{
	*out = calloc((size_t)a->n + 1, sizeof **out);
	if (!*out)
		return ffu_tool_error(e, FFU_STATUS_ENOMEM, "out of memory");
	for (int i = 0; i < a->n; i++) {
		ffu_array_info info;
		ffu_status st = array_info(p, side, i, &info, e);
		if (st)
			return st;
		ffu_bench_array *b = &(*out)[i];
		*b = (ffu_bench_array){.data = a->data[i], .bytes = info.bytes, .count = (int64_t)info.count,
				       .rank = info.rank};
		memcpy(b->dims, info.dims, sizeof b->dims);
	}
	return FFU_STATUS_OK;
}

/*
 * The hand-written C version of a workload at 2^k, timed on the host from the moment all
 * its OpenMP threads run (ffu__bench_baseline). Run before any OpenCL call: the drivers'
 * idle worker threads spin and take the 2 cores from OpenMP (measured at 2^22: 2.7 ms
 * alone, 8.0 ms once PoCL had run; Rusticl's 8 workers worse).
 */
static ffu_status time_baseline(baseline *b, const char *wname, int k, const ffu_bench_opts *o, ffu_error *e)
{
	ffu_program *p = NULL;
	arrays inputs = {0};
	ffu_bench_array *bin = NULL, *bout = NULL;
	size_t bytes = 0;
	timed *t = &b->t;
	double *ms = calloc((size_t)o->runs + 1, sizeof *ms);
	ffu_status st = ms ? make_inputs(&p, &inputs, &bytes, wname, k, e)
			   : ffu_tool_error(e, FFU_STATUS_ENOMEM, "out of memory");
	if (st == FFU_STATUS_OK)
		st = arrays_alloc(&t->outs, p, FFU_TOOL_OUTPUTS, &bytes, e);
	if (st == FFU_STATUS_OK)
		st = bench_arrays(&bin, p, FFU_TOOL_INPUTS, &inputs, e);
	if (st == FFU_STATUS_OK)
		st = bench_arrays(&bout, p, FFU_TOOL_OUTPUTS, &t->outs, e);
	int64_t n = st == FFU_STATUS_OK && t->outs.n ? bout[0].count : 0;
	for (int r = 0; r < o->warmup + o->runs && st == FFU_STATUS_OK; r++) {
		double run_ms = ffu__bench_baseline(wname, bin, bout, n);
		if (run_ms < 0) /* an NTT baseline's tables did not fit */
			st = ffu_tool_error(e, FFU_STATUS_ENOMEM, "out of memory (%s's c_baseline at 2^%d)", wname, k);
		if (r >= o->warmup)
			ms[r - o->warmup] = run_ms;
	}
	if (st == FFU_STATUS_OK && o->save_dir && o->baseline_only)
		st = save_values(o->save_dir, wname, k, p, &inputs, &t->outs, e);
	ffu_array_info first;
	if (st == FFU_STATUS_OK)
		st = array_info(p, FFU_TOOL_INPUTS, 0, &first, e);
	if (st == FFU_STATUS_OK) {
		ffu_tool_work work;
		ffu_tool_program_work(p, &work);
		b->workload = wname;
		b->field = first.type; /* static */
		b->k = k;
		b->bytes = bytes;
		b->muls = work.products;
		b->points = work.points;
		b->hash = outputs_hash(t, p);
		t->kernels = 0;
		t->host_timer = true;
		summarise(t, ms, o->runs);
	}
	arrays_free(&t->outs);
	arrays_free(&inputs);
	free(bin);
	free(bout);
	ffu_program_destroy(&p);
	free(ms);
	return st;
}

/* ---------------------------------------------------------------- one workload on one device */

static ffu_status same_outputs(const timed *a, const timed *ref, const ffu_program *p, const char *what,
			       const char *wname, int k, const char *dev, ffu_error *e)
{
	bool same = a->outs.n == ref->outs.n;
	for (int i = 0; same && i < a->outs.n; i++) {
		ffu_array_info info;
		same = array_info(p, FFU_TOOL_OUTPUTS, i, &info, NULL) == FFU_STATUS_OK &&
		       memcmp(a->outs.data[i], ref->outs.data[i], info.bytes) == 0;
	}
	return same ? FFU_STATUS_OK
		    : ffu_tool_error(e, FFU_STATUS_EMISMATCH, "%s at 2^%d on %s: %s and fused outputs differ", wname, k,
				     dev, what);
}

static ffu_status record(ffu_bench_report *rep, ffu_bench_result r, const timed *t, size_t bytes, int64_t muls,
			 int64_t points, ffu_error *e)
{
	r.kernels = t->kernels;
	r.ms = t->ms;
	r.min_ms = t->min_ms;
	r.max_ms = t->max_ms;
	r.gbps = (double)bytes / (r.ms * 1e6);
	r.mul_per_s = (double)muls / (r.ms * 1e-3);
	r.points_per_s = (double)points / (r.ms * 1e-3);
	r.host_timer = t->host_timer;
	return add_result(rep, &r, e);
}

/* The device being benchmarked: its handle, its copy kernel, whether it is a CPU. */
typedef struct bench_device {
	ffu_device *d;
	ffu_bench_copier *copier;
	bool is_cpu;
	const char *name;   /* the report's copy */
} bench_device;

static ffu_status bench_one(ffu_bench_report *rep, int dev, const bench_device *bd, const char *wname, int k,
			    const baseline *base, const ffu_bench_opts *o, ffu_error *e)
{
	ffu_program *p = NULL;
	arrays inputs = {0};
	size_t bytes = 0;
	timed fused = {0}, unfused = {0}, copy = {0};
	ffu_status st = make_inputs(&p, &inputs, &bytes, wname, k, e);
	if (st == FFU_STATUS_OK)
		st = time_mode(bd->d, p, wname, true, &inputs, o, &fused, e);
	/* the C baseline was timed before any OpenCL call (see ffu__bench_run); its outputs
	 * are known by their hash */
	bool with_base = base && bd->is_cpu;
	if (st == FFU_STATUS_OK && with_base && outputs_hash(&fused, p) != base->hash)
		st = ffu_tool_error(e, FFU_STATUS_EMISMATCH, "%s at 2^%d on %s: c_baseline and fused outputs differ",
				    wname, k, bd->name);
	if (st == FFU_STATUS_OK)
		st = time_mode(bd->d, p, wname, false, &inputs, o, &unfused, e);
	if (st == FFU_STATUS_OK)
		st = same_outputs(&unfused, &fused, p, "unfused", wname, k, bd->name, e);
	for (int i = 0; i < fused.outs.n && st == FFU_STATUS_OK; i++) {
		ffu_array_info info;
		st = array_info(p, FFU_TOOL_OUTPUTS, i, &info, e);
		bytes += info.bytes;
	}
	if (st == FFU_STATUS_OK && o->save_dir)
		st = save_values(o->save_dir, wname, k, p, &inputs, &fused.outs, e);

	ffu_array_info in0;
	if (st == FFU_STATUS_OK)
		st = array_info(p, FFU_TOOL_INPUTS, 0, &in0, e);
	/* the same traffic as the fused program, so the same working set (see copy.c) */
	size_t copy_bytes = bytes < 8 ? 8 : bytes / 8 * 8;
	if (st == FFU_STATUS_OK)
		st = ffu__bench_copy(bd->copier, copy_bytes / 2, o->warmup, o->runs, &copy.ms, &copy.min_ms,
				     &copy.max_ms, &copy.host_timer, e);
	if (st == FFU_STATUS_OK) {
		ffu_bench_result r = {.device = dev, .workload = wname, .field = in0.type, .k = k, .runs = o->runs};
		ffu_tool_work work;
		ffu_tool_program_work(p, &work);
		copy.kernels = 1;
		r.mode = FFU_BENCH_FUSED;
		st = record(rep, r, &fused, bytes, work.products, work.points, e);
		r.mode = FFU_BENCH_UNFUSED;
		if (st == FFU_STATUS_OK)
			st = record(rep, r, &unfused, bytes, work.products, work.points, e);
		r.mode = FFU_BENCH_C_BASELINE;
		if (st == FFU_STATUS_OK && with_base)
			st = record(rep, r, &base->t, bytes, work.products, work.points, e);
		r.mode = FFU_BENCH_COPY;
		if (st == FFU_STATUS_OK)
			st = record(rep, r, &copy, copy_bytes, 0, 0, e);
		/* the device's roof: the largest copy, the one least helped by caches */
		if (copy_bytes >= rep->copy_bytes[dev]) {
			rep->copy_bytes[dev] = copy_bytes;
			rep->copy_gbps[dev] = (double)copy_bytes / (copy.ms * 1e6);
		}
		if (st == FFU_STATUS_OK && o->progress) {
			char bl[48] = "";
			if (with_base)
				snprintf(bl, sizeof bl, ", c_baseline %.3f ms", base->t.ms);
			fprintf(o->progress, "bench: %s %s 2^%d: fused %.3f ms, unfused %.3f ms%s, copy %.3f ms\n",
				rep->devices[dev].id, wname, k, fused.ms, unfused.ms, bl, copy.ms);
		}
	}
	arrays_free(&fused.outs);
	arrays_free(&unfused.outs);
	arrays_free(&inputs);
	ffu_program_destroy(&p);
	return st;
}

/* ---------------------------------------------------------------- the run */

/* --baseline-only: the c_baseline rows on one device entry, "host", that stands for the
 * CPU OpenMP runs on (no OpenCL call is made) */
static ffu_status record_baselines(ffu_bench_report *rep, const baseline *bases, int n, const ffu_bench_opts *o,
				   ffu_error *e)
{
	rep->baseline_only = true;
	rep->devices = calloc(1, sizeof *rep->devices);
	rep->copy_gbps = calloc(1, sizeof *rep->copy_gbps);
	rep->copy_bytes = calloc(1, sizeof *rep->copy_bytes);
	if (!rep->devices || !rep->copy_gbps || !rep->copy_bytes)
		return ffu_tool_error(e, FFU_STATUS_ENOMEM, "out of memory");
	rep->n_devices = 1;
	ffu_bench_device *d = &rep->devices[0];
	snprintf(d->id, sizeof d->id, "host");
	snprintf(d->name, sizeof d->name, "host CPU");
	snprintf(d->platform_name, sizeof d->platform_name, "OpenMP, %d threads (c_baseline only)",
		 omp_get_max_threads());
	FILE *cpu = fopen("/proc/cpuinfo", "r");
	char line[512];
	while (cpu && fgets(line, sizeof line, cpu))
		if (strncmp(line, "model name", 10) == 0 && strchr(line, ':')) {
			snprintf(d->name, sizeof d->name, "%s", strchr(line, ':') + 2);
			d->name[strcspn(d->name, "\n")] = '\0';
			break;
		}
	if (cpu)
		fclose(cpu);
	ffu_status st = FFU_STATUS_OK;
	for (int i = 0; i < n && st == FFU_STATUS_OK; i++) {
		const baseline *b = &bases[i];
		if (!b->workload)
			continue;
		ffu_bench_result r = {.device = 0, .workload = b->workload, .field = b->field, .k = b->k,
				      .runs = o->runs, .mode = FFU_BENCH_C_BASELINE};
		st = record(rep, r, &b->t, b->bytes, b->muls, b->points, e);
		if (st == FFU_STATUS_OK && o->progress)
			fprintf(o->progress, "bench: host %s 2^%d: c_baseline %.3f ms (not checked by a device)\n",
				b->workload, b->k, b->t.ms);
	}
	return st;
}

/* Opens device id, copies what the report says about it and builds its copy kernel. */
static ffu_status open_device(bench_device *bd, ffu_bench_device *out, const char *id, ffu_error *e)
{
	ffu_status st = ffu_device_open(&bd->d, id, e);
	if (st == FFU_STATUS_OK) {
		ffu_tool_device_facts f;
		ffu_tool_device_facts_get(bd->d, &f);
		snprintf(out->id, sizeof out->id, "%s", f.id);
		snprintf(out->name, sizeof out->name, "%s", f.name);
		snprintf(out->vendor, sizeof out->vendor, "%s", f.device_vendor);
		snprintf(out->platform_name, sizeof out->platform_name, "%s", f.platform);
		snprintf(out->driver, sizeof out->driver, "%s", f.driver);
		bd->is_cpu = f.is_cpu != 0;
		bd->name = out->name;
		st = ffu__bench_copier_create(&bd->copier, bd->d, e);
	}
	return st;
}

static void close_device(bench_device *bd)
{
	ffu__bench_copier_destroy(&bd->copier);
	ffu_device_close(&bd->d);
}

/* The workloads given, groups expanded, each once in the order given: *names malloc'd. */
static ffu_status workload_names(const char ***names, int *n_names, const ffu_bench_opts *o, ffu_error *e)
{
	const char *const *given = o->n_workloads ? o->workloads : default_workloads;
	int n_given = o->n_workloads ? o->n_workloads : 2;
	int cap = 0;
	for (int w = 0; w < n_given; w++) {
		int n = ffu__bench_expand(given[w], NULL, 0);
		if (n == 0)
			return ffu_tool_error(e, FFU_STATUS_EINVAL, "unknown workload '%s'", given[w]);
		cap += n;
	}
	const char **one = calloc((size_t)cap, sizeof *one);
	*names = calloc((size_t)cap, sizeof **names);
	*n_names = 0;
	if (!*names || !one) {
		free(one);
		return ffu_tool_error(e, FFU_STATUS_ENOMEM, "out of memory");
	}
	for (int w = 0; w < n_given; w++) {
		int n = ffu__bench_expand(given[w], one, cap);
		for (int i = 0; i < n; i++) {
			int seen = 0;
			while (seen < *n_names && strcmp((*names)[seen], one[i]) != 0)
				seen++;
			if (seen == *n_names)
				(*names)[(*n_names)++] = one[i];
		}
	}
	free(one);
	return FFU_STATUS_OK;
}

ffu_status ffu__bench_run(ffu_bench_report *rep, const ffu_bench_opts *o, ffu_error *e)
{
	memset(rep, 0, sizeof *rep);
	rep->timing = o->timing;
	if (o->k_min < 0 || o->k_max > 40 || o->k_min > o->k_max)
		return ffu_tool_error(e, FFU_STATUS_EINVAL, "--k range %d..%d is not within 0..40", o->k_min, o->k_max);
	if (o->runs < 1 || o->warmup < 0)
		return ffu_tool_error(e, FFU_STATUS_EINVAL, "runs must be at least 1");
	const char **names = NULL;
	int n_names = 0, n_k = o->k_max - o->k_min + 1, n_ids = 0;
	baseline *bases = NULL;
	ffu_tool_device_id *ids = NULL;
	ffu_status st = workload_names(&names, &n_names, o, e);
	if (st == FFU_STATUS_OK && !(bases = calloc((size_t)(n_names * n_k) + 1, sizeof *bases)))
		st = ffu_tool_error(e, FFU_STATUS_ENOMEM, "out of memory");
	for (int w = 0; w < n_names && st == FFU_STATUS_OK && o->baseline_only; w++)
		if (!ffu__bench_has_baseline(names[w]))
			st = ffu_tool_error(e, FFU_STATUS_EINVAL, "--baseline-only: workload '%s' has no c_baseline",
					    names[w]);
	/* baselines first, before any OpenCL call starts driver threads (see time_baseline) */
	for (int w = 0; w < n_names && st == FFU_STATUS_OK; w++)
		for (int k = o->k_min; k <= o->k_max && st == FFU_STATUS_OK && ffu__bench_has_baseline(names[w]); k++)
			st = time_baseline(&bases[w * n_k + k - o->k_min], names[w], k, o, e);
	if (st == FFU_STATUS_OK && o->baseline_only) {
		st = record_baselines(rep, bases, n_names * n_k, o, e);
		goto out;
	}
	if (st == FFU_STATUS_OK)
		st = ffu_tool_device_ids(o->device, &ids, &n_ids, e);
	if (st == FFU_STATUS_OK) {
		rep->devices = calloc((size_t)n_ids + 1, sizeof *rep->devices);
		rep->copy_gbps = calloc((size_t)n_ids + 1, sizeof *rep->copy_gbps);
		rep->copy_bytes = calloc((size_t)n_ids + 1, sizeof *rep->copy_bytes);
		if (!rep->devices || !rep->copy_gbps || !rep->copy_bytes)
			st = ffu_tool_error(e, FFU_STATUS_ENOMEM, "out of memory");
		else
			rep->n_devices = n_ids;
	}
	for (int d = 0; d < rep->n_devices && st == FFU_STATUS_OK; d++) {
		bench_device bd = {0};
		st = open_device(&bd, &rep->devices[d], ids[d].id, e);
		for (int w = 0; w < n_names && st == FFU_STATUS_OK; w++)
			for (int k = o->k_min; k <= o->k_max && st == FFU_STATUS_OK; k++) {
				const baseline *b = &bases[w * n_k + k - o->k_min];
				st = bench_one(rep, d, &bd, names[w], k, b->workload ? b : NULL, o, e);
			}
		close_device(&bd);
	}
out:
	free(ids);
	free(bases);
	free(names);
	return st;
}

void ffu__bench_report_free(ffu_bench_report *rep)
{
	free(rep->devices);
	free(rep->copy_gbps);
	free(rep->copy_bytes);
	free(rep->results);
	memset(rep, 0, sizeof *rep);
}
