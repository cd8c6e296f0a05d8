/*
 * bench/copy.c: the bandwidth roof. A kernel that copies 32-bit words from one buffer to
 * another, timed like the workloads, so `fused GB/s / copy GB/s` says how close a fused
 * kernel gets to what the device's memory can do. bench.c sizes it to move as many bytes
 * as the fused program (half read, half written), so both have the same working set: a
 * smaller copy stays in a cache the workload has outgrown (measured on the 2-core EPYC,
 * 32 MiB L3, PoCL: seed_bb at 2^22 moves 48 MiB; a copy of its 2^22 words, 32 MiB, took
 * 0.22-0.25 ms, a copy of 48 MiB 0.41-0.59 ms in the same session).
 *
 * Plain OpenCL on the device's own context and in-order profiling queue (fieldfuse/opencl.h),
 * launched in the work-groups the library's own element-wise kernels get on the device
 * (ffu_tool_launch_local).
 */
#include <stdint.h>
#include <stdlib.h>

#include "fieldfuse/opencl.h"

#include "api/tool.h"
#include "bench/bench.h"

static const char copy_src[] =
	"__kernel void ffu_copy(__global const uint *restrict in, __global uint *restrict out)\n"
	"{\n"
	"\tconst size_t i = get_global_id(0);\n"
	"\tout[i] = in[i];\n"
	"}\n";

struct ffu_bench_copier {
	ffu_device *d;         /* borrowed */
	cl_program prog;
	cl_kernel k;
	size_t kernel_max;     /* CL_KERNEL_WORK_GROUP_SIZE; 0 unknown */
	size_t preferred;      /* CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE; 0 unknown */
};

/* An OpenCL call's failure as the library reports one: ECL naming the call and the code. */
static ffu_status cl_fail(ffu_error *e, const char *call, cl_int err, const char *what, const ffu_device *d)
{
	ffu_tool_error(e, FFU_STATUS_ECL, "%s failed: %s: %s on %s", call, ffu_cl_error_name(err), what,
		       ffu_device_name(d));
	if (e) {
		snprintf(e->cl_call, sizeof e->cl_call, "%s", call);
		e->cl_code = err;
	}
	return FFU_STATUS_ECL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double ffu__bench_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The build log of a failed build, kept in e (ffu_error_clear frees it). */
static void keep_build_log(ffu_error *e, cl_program prog, cl_device_id dev)
{
	size_t len = 0;
	if (!e || clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &len) != CL_SUCCESS || !len)
		return;
	char *log = malloc(len + 1);
	if (log && clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, len, log, NULL) == CL_SUCCESS) {
		log[len] = '\0';
		free(e->build_log);
		e->build_log = log;
		return;
	}
	free(log);
}

void ffu__bench_copier_destroy(ffu_bench_copier **c)
{
	if (!c || !*c)
		return;
	if ((*c)->k)
		clReleaseKernel((*c)->k);
	if ((*c)->prog)
		clReleaseProgram((*c)->prog);
	free(*c);
	*c = NULL;
}

ffu_status ffu__bench_copier_create(ffu_bench_copier **out, ffu_device *d, ffu_error *e)
{
	cl_context ctx = ffu_device_cl_context(d);
	cl_device_id dev = ffu_device_cl_device(d);
	const char *src = copy_src;
	cl_int err = CL_SUCCESS;
	ffu_status st = FFU_STATUS_OK;
	ffu_bench_copier *c = calloc(1, sizeof *c);
	*out = NULL;
	if (!c)
		return ffu_tool_error(e, FFU_STATUS_ENOMEM, "out of memory");
	c->d = d;
	c->prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
	if (!c->prog || err != CL_SUCCESS) {
		st = cl_fail(e, "clCreateProgramWithSource", err, "the copy kernel", d);
		goto out;
	}
	err = clBuildProgram(c->prog, 1, &dev, NULL, NULL, NULL);
	if (err != CL_SUCCESS) {
		st = cl_fail(e, "clBuildProgram", err, "the copy kernel", d);
		/* a rejected source is a build failure, as the library's own builds report one
		   (runtime/cl_build.c); anything else an OpenCL failure like any other call's */
		if (err == CL_BUILD_PROGRAM_FAILURE || err == CL_COMPILE_PROGRAM_FAILURE ||
		    err == CL_LINK_PROGRAM_FAILURE || err == CL_COMPILER_NOT_AVAILABLE)
			st = FFU_STATUS_EBUILD;
		if (e)
			e->status = st;
		keep_build_log(e, c->prog, dev);
		goto out;
	}
	c->k = clCreateKernel(c->prog, "ffu_copy", &err);
	if (!c->k || err != CL_SUCCESS) {
		st = cl_fail(e, "clCreateKernel", err, "ffu_copy", d);
		goto out;
	}
	err = clGetKernelWorkGroupInfo(c->k, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof c->kernel_max, &c->kernel_max,
				       NULL);
	if (err != CL_SUCCESS) {
		st = cl_fail(e, "clGetKernelWorkGroupInfo", err, "CL_KERNEL_WORK_GROUP_SIZE of ffu_copy", d);
		goto out;
	}
	/* optional, as for the library's kernels (device/caps.c): unknown is 0 */
	if (clGetKernelWorkGroupInfo(c->k, dev, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, sizeof c->preferred,
				     &c->preferred, NULL) != CL_SUCCESS)
		c->preferred = 0;
out:
	if (st == FFU_STATUS_OK)
		*out = c;
	else
		ffu__bench_copier_destroy(&c);
	return st;
}

/* A device buffer of `bytes` holding real data: a buffer nobody wrote maps the zero page,
 * whose reads hit the cache (measured: an "88 GB/s" copy on 2 cores at 2^24). */
static ffu_status filled_buffer(cl_mem *out, const ffu_bench_copier *c, size_t bytes, ffu_error *e)
{
	cl_int err = CL_SUCCESS;
	ffu_tool_device_facts f;
	ffu_tool_device_facts_get(c->d, &f);
	/* some drivers (PoCL) defer allocation and fail only at first use */
	if (f.max_alloc && (uint64_t)bytes > f.max_alloc)
		return ffu_tool_error(e, FFU_STATUS_ELIMIT,
				      "a buffer of %zu bytes exceeds the largest single allocation of %s "
				      "(CL_DEVICE_MAX_MEM_ALLOC_SIZE = %llu bytes)",
				      bytes, f.name, (unsigned long long)f.max_alloc);
	*out = clCreateBuffer(ffu_device_cl_context(c->d), CL_MEM_READ_WRITE, bytes, NULL, &err);
	if (!*out || err != CL_SUCCESS)
		return cl_fail(e, "clCreateBuffer", err, "the copy's buffer", c->d);
	uint32_t *h = malloc(bytes);
	if (!h)
		return ffu_tool_error(e, FFU_STATUS_ENOMEM, "out of memory");
	for (size_t i = 0; i < bytes / 4; i++)
		h[i] = (uint32_t)(i * 2654435761u);
	err = clEnqueueWriteBuffer(ffu_device_cl_queue(c->d), *out, CL_TRUE, 0, bytes, h, 0, NULL, NULL);
	free(h);
	return err == CL_SUCCESS ? FFU_STATUS_OK : cl_fail(e, "clEnqueueWriteBuffer", err, "the copy's buffer", c->d);
}

/* Profiling START / END of a completed event, in ns. */
static ffu_status event_times(const ffu_bench_copier *c, cl_event ev, cl_ulong *start, cl_ulong *end, ffu_error *e)
{
	cl_int err = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof *start, start, NULL);
	if (err == CL_SUCCESS)
		err = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof *end, end, NULL);
	return err == CL_SUCCESS ? FFU_STATUS_OK : cl_fail(e, "clGetEventProfilingInfo", err, "the copy", c->d);
}

/*
 * One copy of `words` words, in whole work-groups of `local` and then the rest in groups of
 * one (as the library launches: ffu_tool_launch_local), waited for. *ms: from the first
 * launch's start to the last one's end, or on the host clock (*host_timer) where the
 * driver's timestamps are placeholders: a start within the first millisecond (real device
 * timers count from boot or the epoch) or an end before it.
 */
static ffu_status copy_once(const ffu_bench_copier *c, size_t words, size_t local, double *ms, bool *host_timer,
			    ffu_error *e)
{
	cl_command_queue q = ffu_device_cl_queue(c->d);
	cl_event ev[2] = {NULL, NULL};
	size_t whole = words - words % local, tail = words - whole, one = 1;
	int n = 0;
	cl_int err = CL_SUCCESS;
	ffu_status st = FFU_STATUS_OK;
	double host_start = ffu_tool_now_ms();
	if (whole > 0) {
		size_t at = 0;
		err = clEnqueueNDRangeKernel(q, c->k, 1, &at, &whole, &local, 0, NULL, &ev[n]);
		if (err != CL_SUCCESS)
			st = cl_fail(e, "clEnqueueNDRangeKernel", err, "the copy", c->d);
		else
			n++;
	}
	if (st == FFU_STATUS_OK && tail > 0) {
		err = clEnqueueNDRangeKernel(q, c->k, 1, &whole, &tail, &one, 0, NULL, &ev[n]);
		if (err != CL_SUCCESS)
			st = cl_fail(e, "clEnqueueNDRangeKernel", err, "the copy's tail", c->d);
		else
			n++;
	}
	if ((err = clFinish(q)) != CL_SUCCESS && st == FFU_STATUS_OK)
		st = cl_fail(e, "clFinish", err, "after the copy", c->d);
	double host_ms = ffu_tool_now_ms() - host_start;
	cl_ulong s0 = 0, f0 = 0, s1 = 0, f1 = 0;
	if (st == FFU_STATUS_OK)
		st = event_times(c, ev[0], &s0, &f0, e);
	if (st == FFU_STATUS_OK)
		st = event_times(c, ev[n - 1], &s1, &f1, e);
	if (st == FFU_STATUS_OK) {
		*host_timer = !(s0 >= 1000000u && f1 >= s0);
		*ms = *host_timer ? host_ms : (double)(f1 - s0) * 1e-6;
	}
	for (int i = 0; i < n; i++)
		clReleaseEvent(ev[i]);
	return st;
}

ffu_status ffu__bench_copy(ffu_bench_copier *c, size_t bytes, int warmup, int runs, double *ms, double *min_ms,
			   double *max_ms, bool *host_timer, ffu_error *e)
{
	*host_timer = false;
	cl_mem in = NULL, out = NULL;
	double *t = calloc((size_t)runs + 1, sizeof *t);
	size_t words = bytes / 4, local = 1;
	ffu_status st = t ? FFU_STATUS_OK : ffu_tool_error(e, FFU_STATUS_ENOMEM, "out of memory");
	if (st == FFU_STATUS_OK)
		st = ffu_tool_launch_local(c->d, words, c->kernel_max, c->preferred, &local, e);
	if (st == FFU_STATUS_OK)
		st = filled_buffer(&in, c, bytes, e);
	if (st == FFU_STATUS_OK)
		st = filled_buffer(&out, c, bytes, e); /* the output touched once too */
	cl_int err = CL_SUCCESS;
	if (st == FFU_STATUS_OK && ((err = clSetKernelArg(c->k, 0, sizeof in, &in)) != CL_SUCCESS ||
				    (err = clSetKernelArg(c->k, 1, sizeof out, &out)) != CL_SUCCESS))
		st = cl_fail(e, "clSetKernelArg", err, "ffu_copy", c->d);
	for (int r = 0; r < warmup + runs && st == FFU_STATUS_OK; r++) {
		double run_ms = 0;
		bool host = false;
		st = copy_once(c, words, local, &run_ms, &host, e);
		if (st == FFU_STATUS_OK && r >= warmup) {
			*host_timer = host;
			t[r - warmup] = run_ms;
		}
	}
	if (st == FFU_STATUS_OK) {
		*ms = ffu__bench_median(t, runs);
		*min_ms = t[0];
		*max_ms = t[runs - 1];
	}
	if (in)
		clReleaseMemObject(in);
	if (out)
		clReleaseMemObject(out);
	free(t);
	return st;
}
