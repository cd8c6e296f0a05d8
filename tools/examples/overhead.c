/*
 * tools/examples/overhead.c: the host cost of running an already compiled executable on
 * device-resident buffers: what the library adds to every call beyond the kernels. Built
 * like the examples, on the public API only:
 *
 *     overhead [DEVICE] [--n N] [--runs R]
 *
 * For each program (a one-kernel element-wise program and one sumcheck round, a reduction
 * of two launches), compiled once, on buffers uploaded once, it measures R runs after a
 * warm-up:
 *   - run+stats: ffu_executable_run with statistics: host wall time of the call minus the
 *     kernels' device time (first start to last end, from profiling events), median: the
 *     per-call overhead beyond the kernels themselves;
 *   - run: ffu_executable_run without statistics (no profiling events): median host time
 *     of the whole call, kernels included;
 *   - enqueue: R runs enqueued back to back with ffu_executable_enqueue and one wait:
 *     total host time / R, the rate a pipelined caller gets.
 * On drivers whose profiling timestamps are placeholders (Mesa 22 Rusticl) the kernel time
 * is the host's, so the first figure is not available there and is printed as "-".
 * Exit status 0 on success, 1 on any failure.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c99 */
#include <fieldfuse/fieldfuse.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return v[n / 2];
}

/* (x + y) * x over koalabear[n]: one fused kernel. */
static ffu_status build_elementwise(ffu_program **out, int64_t n, ffu_error *e)
{
	ffu_builder *b = NULL;
	ffu_status st = ffu_builder_create(&b, "elementwise", e);
	if (st)
		return st;
	ffu_node x = ffu_build_parameter(b, "x", "koalabear", 1, &n);
	ffu_node y = ffu_build_parameter(b, "y", "koalabear", 1, &n);
	st = ffu_builder_finish(b, ffu_build_multiply(b, ffu_build_add(b, x, y), x), out, e);
	ffu_builder_destroy(&b);
	return st;
}

/* sum f0 g0, sum f1 g1 over the even/odd halves of koalabear[n]: one reduction fusion. */
static ffu_status build_round(ffu_program **out, int64_t n, ffu_error *e)
{
	ffu_builder *b = NULL;
	ffu_status st = ffu_builder_create(&b, "round", e);
	if (st)
		return st;
	int64_t even = 0, odd = 1, two = 2, axis = 0;
	ffu_node f = ffu_build_parameter(b, "f", "koalabear", 1, &n);
	ffu_node g = ffu_build_parameter(b, "g", "koalabear", 1, &n);
	ffu_node zero = ffu_build_constant_u64(b, "koalabear", 0);
	ffu_node p0 = ffu_build_multiply(b, ffu_build_slice(b, f, &even, &n, &two), ffu_build_slice(b, g, &even, &n, &two));
	ffu_node p1 = ffu_build_multiply(b, ffu_build_slice(b, f, &odd, &n, &two), ffu_build_slice(b, g, &odd, &n, &two));
	ffu_node s[2] = {ffu_build_reduce(b, p0, zero, &axis, 1, FFU_REDUCE_SUM),
			 ffu_build_reduce(b, p1, zero, &axis, 1, FFU_REDUCE_SUM)};
	st = ffu_builder_finish(b, ffu_build_tuple(b, s, 2), out, e);
	ffu_builder_destroy(&b);
	return st;
}

static ffu_status measure(ffu_device *dev, const char *label, const ffu_program *prog, int runs, ffu_error *e)
{
	ffu_executable *x = NULL;
	ffu_buffer *in[4] = {NULL}, *out[4] = {NULL};
	double *over = calloc((size_t)runs, sizeof *over), *kern = calloc((size_t)runs, sizeof *kern);
	double *host = calloc((size_t)runs, sizeof *host);
	void *data = NULL;
	int n_in = ffu_program_num_inputs(prog), n_out = ffu_program_num_outputs(prog), host_timed = 0;
	ffu_status st = FFU_STATUS_OK;
	if (!over || !kern || !host || n_in > 4 || n_out > 4) {
		st = FFU_STATUS_ENOMEM;
		goto out;
	}
	if ((st = ffu_executable_create(&x, dev, prog, NULL, e)))
		goto out;
	for (int i = 0; i < n_in && st == FFU_STATUS_OK; i++) {
		ffu_array_info info;
		ffu_executable_input(x, i, &info);
		free(data);
		if (!(data = calloc(info.bytes ? info.bytes : 1, 1))) {
			st = FFU_STATUS_ENOMEM;
			break;
		}
		for (size_t k = 0; k < info.count; k++)
			((uint32_t *)data)[k] = (uint32_t)(k * 2654435761u % 0x7f000001u);
		if ((st = ffu_buffer_create_input(&in[i], x, i, e)) == FFU_STATUS_OK)
			st = ffu_buffer_upload(in[i], data, info.bytes, FFU_FORM_CANONICAL, e);
	}
	for (int o = 0; o < n_out && st == FFU_STATUS_OK; o++)
		st = ffu_buffer_create_output(&out[o], x, o, e);
	const ffu_buffer *const *cin = (const ffu_buffer *const *)in;
	/* warm-up: PoCL compiles a work-group function per local size at the first launch */
	for (int i = 0; i < 50 && st == FFU_STATUS_OK; i++)
		st = ffu_executable_run(x, cin, n_in, out, n_out, NULL, e);
	for (int i = 0; i < runs && st == FFU_STATUS_OK; i++) {
		ffu_run_stats stats;
		st = ffu_executable_run(x, cin, n_in, out, n_out, &stats, e);
		over[i] = (stats.host_ms - stats.kernel_ms) * 1e3;
		kern[i] = stats.kernel_ms * 1e3;
		host_timed |= stats.host_timed;
	}
	for (int i = 0; i < runs && st == FFU_STATUS_OK; i++) {
		double t0 = now_ms();
		st = ffu_executable_run(x, cin, n_in, out, n_out, NULL, e);
		host[i] = (now_ms() - t0) * 1e3;
	}
	double t0 = now_ms();
	for (int i = 0; i < runs && st == FFU_STATUS_OK; i++)
		st = ffu_executable_enqueue(x, cin, n_in, out, n_out, NULL, e);
	if (st == FFU_STATUS_OK)
		st = ffu_device_finish(dev, e);
	double pipelined = (now_ms() - t0) * 1e3 / runs;
	if (st)
		goto out;
	char over_s[32];
	if (host_timed)
		snprintf(over_s, sizeof over_s, "%10s", "-");
	else
		snprintf(over_s, sizeof over_s, "%10.1f", median(over, runs));
	printf("%-22s %7d %12.1f %s %12.1f %12.1f\n", label, ffu_executable_kernel_count(x),
	       host_timed ? 0.0 : median(kern, runs), over_s, median(host, runs), pipelined);
out:
	if (st == FFU_STATUS_ENOMEM && !e->message[0])
		fprintf(stderr, "overhead: out of memory\n");
	for (int i = 0; i < 4; i++) {
		ffu_buffer_destroy(&in[i]);
		ffu_buffer_destroy(&out[i]);
	}
	ffu_executable_destroy(&x);
	free(data);
	free(over);
	free(kern);
	free(host);
	return st;
}

int main(int argc, char **argv)
{
	const char *selector = NULL;
	int64_t n = 1024;
	int runs = 2000;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--n") == 0 && i + 1 < argc)
			n = atoll(argv[++i]);
		else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
			runs = atoi(argv[++i]);
		else if (argv[i][0] != '-' && !selector)
			selector = argv[i];
		else {
			fprintf(stderr, "usage: %s [DEVICE] [--n N] [--runs R]\n", argv[0]);
			return 2;
		}
	}
	if (n < 2 || n % 2 || runs < 1) {
		fprintf(stderr, "overhead: need an even n >= 2 and runs >= 1\n");
		return 2;
	}
	ffu_error e = {0};
	ffu_device *dev = NULL;
	ffu_program *ew = NULL, *round = NULL;
	int rc = 1;
	ffu_status st;
	if ((st = ffu_device_open(&dev, selector, &e)) || (st = build_elementwise(&ew, n, &e)) ||
	    (st = build_round(&round, n, &e)))
		goto out;
	printf("libfieldfuse %s on %s: %s; koalabear[%lld], %d runs, times in us (medians)\n", ffu_version(),
	       ffu_device_id(dev), ffu_device_name(dev), (long long)n, runs);
	printf("%-22s %7s %12s %10s %12s %12s\n", "program", "kernels", "kernel", "overhead", "run", "enqueue");
	if ((st = measure(dev, "elementwise (x+y)*x", ew, runs, &e)) || (st = measure(dev, "sumcheck round", round, runs, &e)))
		goto out;
	rc = 0;
out:
	if (st) {
		fprintf(stderr, "overhead: %s: ", ffu_status_str(st));
		ffu_error_print(stderr, &e);
	}
	ffu_program_destroy(&ew);
	ffu_program_destroy(&round);
	ffu_device_close(&dev);
	ffu_error_clear(&e);
	return rc;
}
