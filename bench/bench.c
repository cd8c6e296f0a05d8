/* bench/bench.c: the benchmark driver (see bench.h). */
#include "bench/bench.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>
#include <xxhash.h>

#include "hlo/hlo.h"
#include "interp/interp.h"
#include "ir/value.h"
#include "runtime/compile.h"

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
			return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
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

typedef struct timed {
	double ms, min_ms, max_ms;
	bool host_timer;
	int kernels;
	ffu_value *outs;
	int n_outs;
} timed;

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

static void summarise(timed *t, double *ms, int runs)
{
	t->ms = ffu__bench_median(ms, runs); /* sorts */
	t->min_ms = ms[0];
	t->max_ms = ms[runs - 1];
}

/* One run: kernels only, or (end_to_end) upload + kernels + download on the host clock. */
static ffu_status run_once(ffu_exec *x, const ffu_value *inputs, int n_inputs, const ffu_bench_opts *o,
			   double *ms, timed *t, ffu_error *e)
{
	ffu_timer timer = FFU_TIMER_EVENTS;
	if (o->timing == FFU_TIMING_KERNEL) {
		ffu_status st = ffu__exec_run(x, ms, &timer, e);
		t->host_timer = timer == FFU_TIMER_HOST;
		return st;
	}
	ffu_value *outs = NULL;
	int n_outs = 0;
	double start = ffu__now_ms();
	ffu_status st = ffu__exec_upload(x, inputs, n_inputs, e);
	if (st == FFU_STATUS_OK)
		st = ffu__exec_run(x, NULL, NULL, e);
	if (st == FFU_STATUS_OK)
		st = ffu__exec_download(x, &outs, &n_outs, e);
	*ms = ffu__now_ms() - start;
	t->host_timer = true;
	ffu__values_free(outs, n_outs);
	return st;
}

/* Compiles a copy of src (fused or not) on cl and times it; src stays unfused for the other mode. */
static ffu_status time_mode(ffu_cl *cl, const ffu_module *src, const char *name, bool fuse,
			    const ffu_value *inputs, const ffu_bench_opts *o, timed *t, ffu_error *e)
{
	ffu_module *m = NULL;
	ffu_exec *x = NULL;
	double *ms = calloc((size_t)o->runs + 1, sizeof *ms);
	ffu_compile_opts co = {.no_fuse = !fuse, .fusion_as_asked = true, .file = name};
	ffu_status st = ms && (m = ffu__module_clone(src)) ? FFU_STATUS_OK : ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	if (st == FFU_STATUS_OK)
		st = ffu__compile(&x, cl, m, &co, e);
	if (st == FFU_STATUS_OK)
		st = ffu__exec_upload(x, inputs, m->entry->n_params, e);
	for (int r = 0; r < o->warmup + o->runs && st == FFU_STATUS_OK; r++) {
		double k = 0;
		st = run_once(x, inputs, m->entry->n_params, o, &k, t, e);
		if (r >= o->warmup)
			ms[r - o->warmup] = k;
	}
	if (st == FFU_STATUS_OK)
		st = ffu__exec_download(x, &t->outs, &t->n_outs, e);
	if (st == FFU_STATUS_OK) {
		t->kernels = ffu__exec_kernel_count(x);
		summarise(t, ms, o->runs);
	}
	ffu__exec_destroy(&x);
	ffu__module_free(m);
	free(ms);
	return st;
}

static uint64_t outputs_hash(const timed *t)
{
	uint64_t h = 0;
	for (int i = 0; i < t->n_outs; i++)
		h = XXH64(t->outs[i].data, t->outs[i].bytes, h);
	return h;
}

/* --save-values: a workload's inputs and outputs at 2^k written to dir as value files (.bin,
 * the canonical bytes): WORKLOAD.kK.inP.bin for each parameter P, WORKLOAD.kK.outI.bin for
 * each output I (the fused mode's, which every mode matched; with --baseline-only the
 * c_baseline's), for bench/peers/, which run other libraries on them. */
static ffu_status save_values(const char *dir, const char *workload, int k, const ffu_value *inputs, int n_inputs,
			      const ffu_value *outs, int n_outs, ffu_error *e)
{
	ffu_status st = FFU_STATUS_OK;
	char path[4096];
	for (int i = 0; i < n_inputs + n_outs && st == FFU_STATUS_OK; i++) {
		bool in = i < n_inputs;
		snprintf(path, sizeof path, "%s/%s.k%d.%s%d.bin", dir, workload, k, in ? "in" : "out",
			 in ? i : i - n_inputs);
		st = ffu__values_write(path, in ? &inputs[i] : &outs[i - n_inputs], 1, e);
	}
	return st;
}

/* The workload's inputs at 2^k: random, seeded by k, the same for every mode and device. */
static ffu_status make_inputs(ffu_module **shape_src, ffu_value **inputs, int *n_inputs, size_t *bytes,
			      const char *text, const char *wname, int k, ffu_error *e)
{
	ffu_status st = ffu__hlo_parse(shape_src, text, strlen(text), wname, e);
	if (st == FFU_STATUS_OK) {
		*n_inputs = (*shape_src)->entry->n_params;
		*inputs = calloc((size_t)*n_inputs + 1, sizeof **inputs);
		if (!*inputs)
			st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	}
	uint64_t seed = 0x5eed0000u + (uint64_t)k;
	for (int p = 0; p < *n_inputs && st == FFU_STATUS_OK; p++) {
		st = ffu__value_alloc(&(*inputs)[p], &(*shape_src)->entry->params[p]->shape, e);
		if (st == FFU_STATUS_OK) /* point arrays: (a + i d) G, fields/point_random.c */
			ffu__value_random(&(*inputs)[p], &seed);
		*bytes += (*inputs)[p].bytes;
	}
	return st;
}

/* Field multiplications the workload asks for: one per element of each multiply (or square) in the entry
 * computation (8 * 2^k for fieldops_*; a product of two halves counts 2^(k-1)), for an fft
 * its butterflies, log2(n) n/2 per row (the radix-2 count, whatever radix runs), and for a
 * dot its products. */
static int64_t count_muls(const ffu_module *m)
{
	int64_t n = 0;
	for (int i = 0; i < m->entry->n_insts; i++) {
		const ffu_inst *in = m->entry->insts[i];
		if (ffu__ops[in->op].form == FFU_FORM_BILINEAR) /* multiply, square */
			n += ffu__shape_count(&in->shape);
		if (in->op == FFU_OP_FFT)
			n += ffu__fft_rows(&in->shape) * ffu__log2_pow2(in->fft.length) * (in->fft.length / 2);
		if (in->op == FFU_OP_DOT) { /* a product per stored entry and result column, or per term */
			const ffu_shape *x = &in->operands[0]->shape;
			int64_t k = 1;
			for (int t = 0; t < in->dot.n_contract; t++)
				k *= x->dims[in->dot.lhs_contract[t]];
			n += x->csr ? x->nnz * (ffu__shape_count(&in->shape) / (x->dims[0] ? x->dims[0] : 1))
				    : ffu__shape_count(&in->shape) * k;
		}
	}
	return n;
}

/* Points the workload's msm instructions take: n per msm (its scalars' element count) */
static int64_t count_points(const ffu_module *m)
{
	int64_t n = 0;
	for (int i = 0; i < m->entry->n_insts; i++)
		if (m->entry->insts[i]->op == FFU_OP_MSM)
			n += ffu__shape_count(&m->entry->insts[i]->operands[0]->shape);
	return n;
}

/*
 * The hand-written C version of a workload at 2^k, timed on the host from the moment all
 * its OpenMP threads run (ffu__bench_baseline). Run before any OpenCL call: the drivers'
 * idle worker threads spin and take the 2 cores from OpenMP (measured at 2^22: 2.7 ms
 * alone, 8.0 ms once PoCL had run; Rusticl's 8 workers worse).
 */
static ffu_status time_baseline(baseline *b, const char *wname, int k, const ffu_bench_opts *o, ffu_error *e)
{
	char *text = sized_text(ffu__bench_workload(wname), k);
	ffu_module *m = NULL;
	ffu_value *inputs = NULL;
	int n_inputs = 0;
	size_t bytes = 0;
	timed *t = &b->t;
	double *ms = calloc((size_t)o->runs + 1, sizeof *ms);
	ffu_status st = text && ms ? make_inputs(&m, &inputs, &n_inputs, &bytes, text, wname, k, e)
				   : ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	const ffu_shape *root = st == FFU_STATUS_OK ? &m->entry->root->shape : NULL;
	t->n_outs = root && root->type == FFU_TYPE_TUPLE ? root->n_elems : 1;
	t->outs = st == FFU_STATUS_OK ? calloc((size_t)t->n_outs + 1, sizeof *t->outs) : NULL;
	if (st == FFU_STATUS_OK && !t->outs)
		st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	for (int i = 0; i < t->n_outs && st == FFU_STATUS_OK; i++)
		st = ffu__value_alloc(&t->outs[i], root->type == FFU_TYPE_TUPLE ? &root->elems[i] : root, e);
	int64_t n = st == FFU_STATUS_OK ? ffu__shape_count(&t->outs[0].shape) : 0;
	for (int r = 0; r < o->warmup + o->runs && st == FFU_STATUS_OK; r++) {
		double run_ms = ffu__bench_baseline(wname, inputs, t->outs, n);
		if (run_ms < 0) /* an NTT baseline's tables did not fit */
			st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory (%s's c_baseline at 2^%d)", wname, k);
		if (r >= o->warmup)
			ms[r - o->warmup] = run_ms;
	}
	for (int i = 0; i < t->n_outs && st == FFU_STATUS_OK; i++)
		bytes += t->outs[i].bytes;
	if (st == FFU_STATUS_OK && o->save_dir && o->baseline_only)
		st = save_values(o->save_dir, wname, k, inputs, n_inputs, t->outs, t->n_outs, e);
	if (st == FFU_STATUS_OK) {
		b->workload = wname;
		b->field = ffu__type_name(m->entry->params[0]->shape.type);
		b->k = k;
		b->bytes = bytes;
		b->muls = count_muls(m);
		b->points = count_points(m);
		b->hash = outputs_hash(t);
		t->kernels = 0;
		t->host_timer = true;
		summarise(t, ms, o->runs);
	}
	ffu__values_free(t->outs, t->n_outs);
	t->outs = NULL;
	t->n_outs = 0;
	for (int p = 0; p < n_inputs; p++)
		ffu__value_free(&inputs[p]);
	free(inputs);
	ffu__module_free(m);
	free(ms);
	free(text);
	return st;
}

static ffu_status same_outputs(const timed *a, const timed *ref, const char *what, const char *wname, int k,
			       const char *dev, ffu_error *e)
{
	bool same = a->n_outs == ref->n_outs;
	for (int i = 0; same && i < a->n_outs; i++)
		same = a->outs[i].bytes == ref->outs[i].bytes &&
		       memcmp(a->outs[i].data, ref->outs[i].data, a->outs[i].bytes) == 0;
	return same ? FFU_STATUS_OK
		    : ffu__err(e, FFU_STATUS_EMISMATCH, "%s at 2^%d on %s: %s and fused outputs differ", wname, k,
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

static ffu_status bench_one(ffu_bench_report *rep, int dev, ffu_cl *cl, const char *wname, int k,
			    const baseline *base, const ffu_bench_opts *o, ffu_error *e)
{
	ffu_status st;
	char *text = sized_text(ffu__bench_workload(wname), k);
	ffu_module *shape_src = NULL;
	ffu_value *inputs = NULL;
	int n_inputs = 0;
	size_t bytes = 0;
	timed fused = {0}, unfused = {0}, copy = {0};
	if (!text)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	st = make_inputs(&shape_src, &inputs, &n_inputs, &bytes, text, wname, k, e);
	if (st == FFU_STATUS_OK)
		st = time_mode(cl, shape_src, wname, true, inputs, o, &fused, e);
	/* the C baseline was timed before any OpenCL call (see ffu__bench_run); its outputs
	 * are known by their hash */
	bool with_base = base && (cl->dev.type & CL_DEVICE_TYPE_CPU);
	if (st == FFU_STATUS_OK && with_base && outputs_hash(&fused) != base->hash)
		st = ffu__err(e, FFU_STATUS_EMISMATCH, "%s at 2^%d on %s: c_baseline and fused outputs differ", wname,
			      k, cl->dev.name);
	if (st == FFU_STATUS_OK)
		st = time_mode(cl, shape_src, wname, false, inputs, o, &unfused, e);
	if (st == FFU_STATUS_OK)
		st = same_outputs(&unfused, &fused, "unfused", wname, k, cl->dev.name, e);
	for (int i = 0; i < fused.n_outs; i++)
		bytes += fused.outs[i].bytes;
	if (st == FFU_STATUS_OK && o->save_dir)
		st = save_values(o->save_dir, wname, k, inputs, n_inputs, fused.outs, fused.n_outs, e);

	const ffu_shape *s0 = st == FFU_STATUS_OK ? &shape_src->entry->params[0]->shape : NULL;
	/* the same traffic as the fused program, so the same working set (see copy.c) */
	size_t copy_bytes = bytes < 8 ? 8 : bytes / 8 * 8;
	if (st == FFU_STATUS_OK)
		st = ffu__bench_copy(cl, copy_bytes / 2, o->warmup, o->runs, &copy.ms, &copy.min_ms, &copy.max_ms,
				     &copy.host_timer, e);
	if (st == FFU_STATUS_OK) {
		ffu_bench_result r = {.device = dev, .workload = wname, .field = ffu__type_name(s0->type), .k = k,
				      .runs = o->runs};
		int64_t muls = count_muls(shape_src), points = count_points(shape_src);
		copy.kernels = 1;
		r.mode = FFU_BENCH_FUSED;
		st = record(rep, r, &fused, bytes, muls, points, e);
		r.mode = FFU_BENCH_UNFUSED;
		if (st == FFU_STATUS_OK)
			st = record(rep, r, &unfused, bytes, muls, points, e);
		r.mode = FFU_BENCH_C_BASELINE;
		if (st == FFU_STATUS_OK && with_base)
			st = record(rep, r, &base->t, bytes, muls, points, e);
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
	ffu__values_free(fused.outs, fused.n_outs);
	ffu__values_free(unfused.outs, unfused.n_outs);
	for (int p = 0; p < n_inputs; p++)
		ffu__value_free(&inputs[p]);
	free(inputs);
	ffu__module_free(shape_src);
	free(text);
	return st;
}

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
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	rep->n_devices = 1;
	ffu_device_info *d = &rep->devices[0];
	snprintf(d->id, sizeof d->id, "host");
	snprintf(d->name, sizeof d->name, "host CPU");
	snprintf(d->platform_name, sizeof d->platform_name, "OpenMP, %d threads (c_baseline only)",
		 omp_get_max_threads());
	d->type = CL_DEVICE_TYPE_CPU;
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

ffu_status ffu__bench_run(ffu_bench_report *rep, const ffu_bench_opts *o, ffu_error *e)
{
	memset(rep, 0, sizeof *rep);
	rep->timing = o->timing;
	const char *const *given = o->n_workloads ? o->workloads : default_workloads;
	int n_given = o->n_workloads ? o->n_workloads : 2;
	if (o->k_min < 0 || o->k_max > 40 || o->k_min > o->k_max)
		return ffu__err(e, FFU_STATUS_EINVAL, "--k range %d..%d is not within 0..40", o->k_min, o->k_max);
	if (o->runs < 1 || o->warmup < 0)
		return ffu__err(e, FFU_STATUS_EINVAL, "runs must be at least 1");
	/* groups expanded, each workload once, in the order given */
	int n_names = 0, cap_names = 0;
	for (int w = 0; w < n_given; w++) {
		int n = ffu__bench_expand(given[w], NULL, 0);
		if (n == 0)
			return ffu__err(e, FFU_STATUS_EINVAL, "unknown workload '%s'", given[w]);
		cap_names += n;
	}
	const char **names = calloc((size_t)cap_names, sizeof *names);
	const char **one = calloc((size_t)cap_names, sizeof *one);
	if (!names || !one) {
		free(names);
		free(one);
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	}
	for (int w = 0; w < n_given; w++) {
		int n = ffu__bench_expand(given[w], one, cap_names);
		for (int i = 0; i < n; i++) {
			int seen = 0;
			while (seen < n_names && strcmp(names[seen], one[i]) != 0)
				seen++;
			if (seen == n_names)
				names[n_names++] = one[i];
		}
	}
	free(one);
	int n_k = o->k_max - o->k_min + 1;
	baseline *bases = calloc((size_t)(n_names * n_k), sizeof *bases);
	if (!bases) {
		free(names);
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	}
	ffu_status st = FFU_STATUS_OK;
	for (int w = 0; w < n_names && st == FFU_STATUS_OK && o->baseline_only; w++)
		if (!ffu__bench_has_baseline(names[w]))
			st = ffu__err(e, FFU_STATUS_EINVAL, "--baseline-only: workload '%s' has no c_baseline", names[w]);
	/* baselines first, before any OpenCL call starts driver threads (see time_baseline) */
	for (int w = 0; w < n_names && st == FFU_STATUS_OK; w++)
		for (int k = o->k_min; k <= o->k_max && st == FFU_STATUS_OK && ffu__bench_has_baseline(names[w]); k++)
			st = time_baseline(&bases[w * n_k + k - o->k_min], names[w], k, o, e);
	if (st == FFU_STATUS_OK && o->baseline_only) {
		st = record_baselines(rep, bases, n_names * n_k, o, e);
		free(bases);
		free(names);
		return st;
	}
	if (st == FFU_STATUS_OK)
		st = ffu__cl_select_all(&rep->devices, &rep->n_devices, o->device, e);
	if (st == FFU_STATUS_OK) {
		rep->copy_gbps = calloc((size_t)rep->n_devices, sizeof *rep->copy_gbps);
		rep->copy_bytes = calloc((size_t)rep->n_devices, sizeof *rep->copy_bytes);
		if (!rep->copy_gbps || !rep->copy_bytes)
			st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	}
	for (int d = 0; d < rep->n_devices && st == FFU_STATUS_OK; d++) {
		ffu_cl cl = {0};
		st = ffu__cl_open(&cl, &rep->devices[d], e);
		for (int w = 0; w < n_names && st == FFU_STATUS_OK; w++)
			for (int k = o->k_min; k <= o->k_max && st == FFU_STATUS_OK; k++) {
				const baseline *b = &bases[w * n_k + k - o->k_min];
				st = bench_one(rep, d, &cl, names[w], k, b->workload ? b : NULL, o, e);
			}
		ffu__cl_close(&cl);
	}
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
