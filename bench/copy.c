/*
 * bench/copy.c: the bandwidth roof. A kernel that copies 32-bit words from one buffer to
 * another, timed like the workloads, so `fused GB/s / copy GB/s` says how close a fused
 * kernel gets to what the device's memory can do. bench.c sizes it to move as many bytes
 * as the fused program (half read, half written), so both have the same working set: a
 * smaller copy stays in a cache the workload has outgrown (measured on the 2-core EPYC,
 * 32 MiB L3, PoCL: seed_bb at 2^22 moves 48 MiB; a copy of its 2^22 words, 32 MiB, took
 * 0.22-0.25 ms, a copy of 48 MiB 0.41-0.59 ms in the same session).
 */
#include <stdint.h>
#include <stdlib.h>

#include "bench/bench.h"

static const char copy_src[] =
	"__kernel void ffu_copy(__global const uint *restrict in, __global uint *restrict out)\n"
	"{\n"
	"\tconst size_t i = get_global_id(0);\n"
	"\tout[i] = in[i];\n"
	"}\n";

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static ffu_status fill(ffu_cl *cl, cl_mem buf, size_t bytes, ffu_error *e)
{
	uint32_t *h = malloc(bytes ? bytes : 1);
	if (!h)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	for (size_t i = 0; i < bytes / 4; i++)
		h[i] = (uint32_t)(i * 2654435761u);
	ffu_status st = ffu__cl_write(cl, buf, h, bytes, e);
	free(h);
	return st;
}

double ffu__bench_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

ffu_status ffu__bench_copy(ffu_cl *cl, size_t bytes, int warmup, int runs, double *ms, double *min_ms,
			   double *max_ms, bool *host_timer, ffu_error *e)
{
	*host_timer = false;
	cl_program prog = NULL;
	cl_kernel k = NULL;
	cl_mem in = NULL, out = NULL;
	double *t = calloc((size_t)runs + 1, sizeof *t);
	cl_ulong words = bytes / 4;
	ffu_status st = t ? FFU_STATUS_OK : ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	if (st == FFU_STATUS_OK)
		st = ffu__cl_build(cl, &prog, copy_src, NULL, e);
	if (st == FFU_STATUS_OK)
		st = ffu__cl_kernel(prog, &k, "ffu_copy", e);
	if (st == FFU_STATUS_OK)
		st = ffu__cl_buffer(cl, &in, bytes, e);
	if (st == FFU_STATUS_OK)
		st = ffu__cl_buffer(cl, &out, bytes, e);
	/*
	 * Real data in, and the output touched once: a buffer nobody wrote maps the zero page,
	 * whose reads hit the cache (measured: an "88 GB/s" copy on 2 cores at 2^24).
	 */
	if (st == FFU_STATUS_OK)
		st = fill(cl, in, bytes, e);
	if (st == FFU_STATUS_OK)
		st = fill(cl, out, bytes, e);
	if (st == FFU_STATUS_OK)
		st = ffu__cl_set_arg(k, 0, sizeof in, &in, e);
	if (st == FFU_STATUS_OK)
		st = ffu__cl_set_arg(k, 1, sizeof out, &out, e);
	for (int r = 0; r < warmup + runs && st == FFU_STATUS_OK; r++) {
		ffu_launch_events ev;
		cl_ulong s0 = 0, f0 = 0, s1 = 0, f1 = 0;
		double host_start = ffu__now_ms();
		st = ffu__cl_launch(cl, k, (size_t)words, 0, &ev, e);
		if (st == FFU_STATUS_OK)
			st = ffu__cl_finish(cl, e);
		double host_ms = ffu__now_ms() - host_start;
		if (st == FFU_STATUS_OK)
			st = ffu__cl_event_times(ev.ev[0], &s0, &f0, e);
		if (st == FFU_STATUS_OK)
			st = ffu__cl_event_times(ev.ev[ev.n - 1], &s1, &f1, e);
		ffu__cl_launch_events_release(&ev);
		if (st == FFU_STATUS_OK && r >= warmup) /* placeholder event times: see exec.h */
		{
			*host_timer = !ffu__cl_times_real(s0, f1);
			t[r - warmup] = *host_timer ? host_ms : (double)(f1 - s0) * 1e-6;
		}
	}
	if (st == FFU_STATUS_OK) {
		*ms = ffu__bench_median(t, runs);
		*min_ms = t[0];
		*max_ms = t[runs - 1];
	}
	ffu__cl_buffer_release(&in);
	ffu__cl_buffer_release(&out);
	ffu__cl_kernel_release(&k);
	ffu__cl_program_release(&prog);
	free(t);
	return st;
}
