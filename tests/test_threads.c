/*
 * tests/test_threads.c: thread safety. Several threads at once, each with its own device
 * context (ffu__cl_open), compile and run programs on PoCL and Rusticl and compare every
 * element with the interpreter; other threads parse, print, run the passes and interpret
 * in parallel, all sharing the read-only op and field tables (the field table is built
 * under pthread_once by whichever thread asks first: Criterion forks per test, so each test
 * starts with it unbuilt and the threads race to build it).
 *
 * What is shared: the field and op tables, the fault table (unarmed), the OpenCL platform
 * and device ids. What is not: modules, contexts, queues, programs and buffers (one per
 * thread, by design: there is no program cache yet to share).
 *
 * Ownership: each thread frees what it creates and reports failure as text; only the main
 * thread asserts (Criterion's asserts must not run on other threads).
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hlo/hlo.h"
#include "interp/interp.h"
#include "passes/passes.h"
#include "programs.h"
#include "runtime/exec.h"
#include "support.h"

enum { N_THREADS = 4, ROUNDS = 3 };

typedef struct worker {
	int index;
	const char *device;
	pthread_barrier_t *start;
	long long elements; /* compared */
	char failure[1200]; /* "" when all went well */
} worker;

#define FAIL(w, ...)                                                          \
	do {                                                                  \
		if (!(w)->failure[0])                                         \
			snprintf((w)->failure, sizeof (w)->failure, __VA_ARGS__); \
	} while (0)

/* One program on one device, fused or not, against the interpreter; false on failure. */
static bool run_one(worker *w, ffu_cl *cl, const test_program *tp, long long n, bool fuse)
{
	ffu_error e = {0};
	ffu_module *m = NULL;
	ffu_exec *x = NULL;
	ffu_value *in = NULL, *ref = NULL, *out = NULL;
	int np = 0, n_ref = 0, n_out = 0;
	uint64_t seed = 77 + (uint64_t)n * 3 + (uint64_t)w->index;
	char *text = ffu_test_program_text(tp, n);
	bool ok = false;

	if (!text) {
		FAIL(w, "out of memory");
		goto out;
	}
	if (ffu__hlo_parse(&m, text, strlen(text), tp->name, &e)) {
		FAIL(w, "%s: parse: %s", tp->name, e.message);
		goto out;
	}
	np = m->entry->n_params;
	in = calloc((size_t)np + 1, sizeof *in);
	for (int p = 0; in && p < np; p++) {
		if (ffu__value_alloc(&in[p], &m->entry->params[p]->shape, &e)) {
			FAIL(w, "%s: %s", tp->name, e.message);
			goto out;
		}
		ffu__value_random(&in[p], &seed);
	}
	ffu_pass_opts po = {.fuse = fuse};
	if (!in || ffu__interp_run(m, in, np, &ref, &n_ref, &e) || ffu__passes_run(m, &po, &e) ||
	    ffu__exec_create(&x, cl, m, &e) || ffu__exec_upload(x, in, np, &e) || ffu__exec_run(x, NULL, NULL, &e) ||
	    ffu__exec_download(x, &out, &n_out, &e)) {
		FAIL(w, "%s n=%lld %s on %s: %s", tp->name, n, fuse ? "fused" : "unfused", w->device, e.message);
		goto out;
	}
	if (n_out != n_ref) {
		FAIL(w, "%s: %d outputs, interpreter %d", tp->name, n_out, n_ref);
		goto out;
	}
	for (int o = 0; o < n_out; o++) {
		if (out[o].bytes != ref[o].bytes || memcmp(out[o].data, ref[o].data, ref[o].bytes) != 0) {
			FAIL(w, "%s n=%lld %s on %s: output %d differs from the interpreter", tp->name, n,
			     fuse ? "fused" : "unfused", w->device, o);
			goto out;
		}
		w->elements += ffu__shape_count(&ref[o].shape);
	}
	ok = true;
out:
	ffu__exec_destroy(&x);
	ffu__values_free(in, np);
	ffu__values_free(ref, n_ref);
	ffu__values_free(out, n_out);
	ffu__module_free(m);
	free(text);
	ffu_error_clear(&e);
	return ok;
}

static void *device_worker(void *arg)
{
	worker *w = arg;
	ffu_error e = {0};
	ffu_device_info dev;
	ffu_cl cl = {0};

	pthread_barrier_wait(w->start);
	/* listing and opening race too: each thread does its own */
	if (ffu__cl_select(&dev, w->device, &e) || ffu__cl_open(&cl, &dev, &e)) {
		FAIL(w, "%s: %s", w->device, e.message);
		goto out;
	}
	for (int r = 0; r < ROUNDS; r++) {
		const test_program *tp = &ffu_test_programs[(w->index * 5 + r * 3) % ffu_test_n_programs];
		long long n = r == 0 ? 1 : r == 1 ? 1000 : 4099;
		if (!run_one(w, &cl, tp, n, (r + w->index) % 2 == 0))
			goto out;
	}
out:
	ffu__cl_close(&cl);
	ffu_error_clear(&e);
	return NULL;
}

/* Host only: parse, print, re-parse, passes, interpreter, over every test program. */
static void *host_worker(void *arg)
{
	worker *w = arg;
	pthread_barrier_wait(w->start);
	for (int p = 0; p < ffu_test_n_programs && !w->failure[0]; p++) {
		const test_program *tp = &ffu_test_programs[(p + w->index) % ffu_test_n_programs];
		ffu_error e = {0};
		ffu_module *m = NULL, *m2 = NULL;
		ffu_strbuf a = {0}, b = {0};
		ffu_value *in = NULL, *ref = NULL, *ref2 = NULL;
		int np = 0, n_ref = 0, n_ref2 = 0;
		uint64_t seed = (uint64_t)p + 1;
		char *text = ffu_test_program_text(tp, 257);
		ffu_pass_opts po = {.fuse = true};

		if (!text || ffu__hlo_parse(&m, text, strlen(text), tp->name, &e) || ffu__hlo_print(&a, m, &e)) {
			FAIL(w, "%s: %s", tp->name, e.message);
			goto next;
		}
		np = m->entry->n_params;
		in = calloc((size_t)np + 1, sizeof *in);
		for (int i = 0; in && i < np; i++) {
			if (ffu__value_alloc(&in[i], &m->entry->params[i]->shape, &e))
				break;
			ffu__value_random(&in[i], &seed);
		}
		if (!in || ffu__interp_run(m, in, np, &ref, &n_ref, &e) || ffu__passes_run(m, &po, &e) ||
		    ffu__hlo_print(&b, m, &e) || ffu__hlo_parse(&m2, b.data, b.len, "fused", &e) ||
		    ffu__interp_run(m2, in, np, &ref2, &n_ref2, &e)) {
			FAIL(w, "%s: %s", tp->name, e.message);
			goto next;
		}
		for (int o = 0; o < n_ref; o++)
			if (o >= n_ref2 || memcmp(ref[o].data, ref2[o].data, ref[o].bytes) != 0)
				FAIL(w, "%s: the fused module computes something else (output %d)", tp->name, o);
		w->elements += n_ref;
next:
		ffu__values_free(in, np);
		ffu__values_free(ref, n_ref);
		ffu__values_free(ref2, n_ref2);
		ffu__sb_free(&a);
		ffu__sb_free(&b);
		ffu__module_free(m);
		ffu__module_free(m2);
		free(text);
		ffu_error_clear(&e);
	}
	return NULL;
}

static void run_threads(void *(*fn)(void *), const char *const *devices, int n_devices)
{
	pthread_t th[N_THREADS];
	worker w[N_THREADS];
	pthread_barrier_t start;

	setenv("RUSTICL_ENABLE", "llvmpipe", 1);
	unsetenv("FIELDFUSE_DEVICE");
	unsetenv("FIELDFUSE_WG_SIZE");
	cr_assert_eq(pthread_barrier_init(&start, NULL, N_THREADS), 0);
	memset(w, 0, sizeof w);
	for (int i = 0; i < N_THREADS; i++) {
		w[i].index = i;
		w[i].device = n_devices ? devices[i % n_devices] : "host";
		w[i].start = &start;
		cr_assert_eq(pthread_create(&th[i], NULL, fn, &w[i]), 0);
	}
	for (int i = 0; i < N_THREADS; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&start);
	for (int i = 0; i < N_THREADS; i++) {
		cr_expect_str_empty(w[i].failure, "thread %d (%s): %s", i, w[i].device, w[i].failure);
		cr_expect_gt(w[i].elements, 0, "thread %d compared nothing", i);
	}
}

Test(threads, contexts_pocl, .timeout = 300)
{
	const char *const devices[] = {"pocl"};
	run_threads(device_worker, devices, 1);
}

Test(threads, contexts_rusticl, .timeout = 300)
{
	const char *const devices[] = {"rusticl"};
	run_threads(device_worker, devices, 1);
}

Test(threads, contexts_both_drivers, .timeout = 300)
{
	run_threads(device_worker, ffu_test_devices, 2);
}

Test(threads, parse_and_interpret, .timeout = 120)
{
	run_threads(host_worker, NULL, 0);
}
