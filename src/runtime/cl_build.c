/*
 * runtime/cl_build.c: building programs (through the program cache of runtime/cache.c,
 * with the build log's first error line in the message), kernels and their arguments
 * (see cl.h).
 */
#include "runtime/cl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocl/ocl.h"
#include "runtime/buildlog.h"
#include "runtime/cache.h"
#include "util/text.h"

/* ---- programs and kernels ------------------------------------------------------------ */

/* The build log, malloc'd (never NULL unless out of memory): the driver's text or a note why not. */
static char *build_log(cl_program prog, cl_device_id device)
{
	size_t size = 0;
	char *log = NULL;
	cl_int err = FFU_CL(clGetProgramBuildInfo, prog, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size);
	if (err == CL_SUCCESS && (log = malloc(size + 1)) != NULL) {
		err = FFU_CL(clGetProgramBuildInfo, prog, device, CL_PROGRAM_BUILD_LOG, size, log, NULL);
		if (err == CL_SUCCESS) {
			log[size] = '\0';
			return log;
		}
		free(log);
	}
	const char *fmt = "(no build log: clGetProgramBuildInfo failed: %s)";
	size = strlen(fmt) + 64;
	log = malloc(size);
	if (log)
		snprintf(log, size, fmt, ffu_cl_error_name(err));
	return log;
}

/* First log line mentioning "error", so the one-line message says what broke. */
static void first_error_line(const char *log, char *dst, size_t cap)
{
	dst[0] = '\0';
	for (const char *line = log; line && *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char tmp[512];
		size_t k = len < sizeof tmp - 1 ? len : sizeof tmp - 1;
		memcpy(tmp, line, k);
		tmp[k] = '\0';
		if (ffu__str_icontains(tmp, "error")) {
			ffu__str_copy_trimmed(dst, cap, tmp);
			return;
		}
		line = end ? end + 1 : NULL;
	}
}

static ffu_status build_source(ffu_cl *cl, cl_program *out, const char *source, const char *options, ffu_error *e)
{
	ffu_status st = FFU_STATUS_OK;
	cl_program prog = NULL;
	char *log = NULL;
	char first[256];
	cl_int err = CL_SUCCESS;

	*out = NULL;
	prog = FFU_CL_NEW(clCreateProgramWithSource, &err, cl->ctx, 1, &source, NULL, &err);
	if (!prog || err != CL_SUCCESS) {
		st = ffu__err_cl(e, "clCreateProgramWithSource", err, "on %s", cl->dev.name);
		goto out;
	}
	/* Options pass through untouched: integer field code gains nothing from fast-math flags. */
	const double t0 = ffu__buildlog_on() ? ffu__now_ms() : 0;
	err = FFU_CL(clBuildProgram, prog, 1, &cl->dev.device, options, NULL, NULL);
	if (t0)
		ffu__buildlog(cl, "source", source, options, NULL, ffu__now_ms() - t0);
	if (err != CL_SUCCESS) {
		log = build_log(prog, cl->dev.device);
		first_error_line(log, first, sizeof first);
		st = ffu__err_cl(e, "clBuildProgram", err, "building for %s (%s)%s%s%s%s", cl->dev.name,
				 cl->dev.platform_name, options && *options ? " with options " : "",
				 options ? options : "", first[0] ? ": " : "", first);
		/*
		 * A rejected source or option is a build failure (EBUILD); anything else (out of
		 * resources, a lost device) is an OpenCL failure like any other call's.
		 */
		if (err == CL_BUILD_PROGRAM_FAILURE || err == CL_INVALID_BUILD_OPTIONS ||
		    err == CL_COMPILE_PROGRAM_FAILURE || err == CL_LINK_PROGRAM_FAILURE ||
		    err == CL_COMPILER_NOT_AVAILABLE)
			st = FFU_STATUS_EBUILD;
		if (e) {
			e->status = st;
			free(e->build_log);
			e->build_log = log;
			log = NULL;
		}
		goto out;
	}
	*out = prog;
	prog = NULL;
	cl->cache_stats.source_builds++;
out:
	free(log);
	if (prog)
		clReleaseProgram(prog);
	return st;
}

static ffu_status build_cached(ffu_cl *cl, cl_program *out, const char *source, const char *options, ffu_error *e);

ffu_status ffu__cl_build(ffu_cl *cl, cl_program *out, const char *source, const char *caller_options, ffu_error *e)
{
	ffu_status st;
	char *joined = NULL;
	const char *options = caller_options, *mine = cl->target.build_options;

	*out = NULL;
	/* the target's code choices reach the templates as defines (profile.h) */
	if (mine[0]) {
		size_t n = strlen(mine) + (caller_options ? strlen(caller_options) : 0) + 2;
		if (!(joined = malloc(n)))
			return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
		snprintf(joined, n, "%s%s%s", mine, caller_options && *caller_options ? " " : "",
			 caller_options ? caller_options : "");
		options = joined;
	}
	st = build_cached(cl, out, source, options, e);
	free(joined);
	return st;
}

/* ffu__cl_build with the options complete: memory cache, disk cache, source. */
static ffu_status build_cached(ffu_cl *cl, cl_program *out, const char *source, const char *options, ffu_error *e)
{
	ffu_status st;

	*out = ffu__progcache_find(cl, source, options);
	if (*out) {
		cl->cache_stats.memory_hits++;
		return FFU_STATUS_OK;
	}
	if (cl->disk_cache && (st = ffu__progcache_load(cl, out, source, options, e)))
		return st;
	if (!*out) {
		if ((st = build_source(cl, out, source, options, e)))
			return st;
		/* a cache that cannot be written (read-only home, full disk) costs speed, not the build */
		if (cl->disk_cache)
			(void)ffu__progcache_store(cl, *out, source, options, NULL);
	}
	(void)ffu__progcache_add(cl, source, options, *out, NULL);
	return FFU_STATUS_OK;
}

ffu_status ffu__cl_kernel(cl_program prog, cl_kernel *out, const char *name, ffu_error *e)
{
	cl_int err = CL_SUCCESS;

	*out = NULL;
	const double t0 = ffu__buildlog_on() ? ffu__now_ms() : 0;
	cl_kernel k = FFU_CL_NEW(clCreateKernel, &err, prog, name, &err);
	if (t0 && ffu__now_ms() - t0 >= FFU_BUILDLOG_KERNEL_MS)
		ffu__buildlog(NULL, "kernel", NULL, NULL, name, ffu__now_ms() - t0);
	if (!k || err != CL_SUCCESS)
		return ffu__err_cl(e, "clCreateKernel", err, "kernel '%s'", name);
	*out = k;
	return FFU_STATUS_OK;
}

void ffu__cl_program_release(cl_program *p)
{
	if (p && *p) {
		clReleaseProgram(*p);
		*p = NULL;
	}
}

void ffu__cl_kernel_release(cl_kernel *k)
{
	if (k && *k) {
		clReleaseKernel(*k);
		*k = NULL;
	}
}

ffu_status ffu__cl_set_arg(cl_kernel k, cl_uint idx, size_t size, const void *value, ffu_error *e)
{
	cl_int err = FFU_CL(clSetKernelArg, k, idx, size, value);
	if (err != CL_SUCCESS)
		return ffu__err_cl(e, "clSetKernelArg", err, "argument %u (%zu bytes)", idx, size);
	return FFU_STATUS_OK;
}
