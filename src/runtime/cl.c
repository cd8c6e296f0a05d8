/*
 * runtime/cl.c: the OpenCL layer (see cl.h): device listing (the capability table of
 * device/caps.c) and selection by the selector grammar of HLO.md section 5, context +
 * profiling queue, buffers, builds with their logs through the program cache
 * (runtime/cache.c), 1-D launches planned by device/launch.c, event timing.
 *
 * Ownership: ffu__cl_list_devices / ffu__cl_select_all hand back malloc'd arrays the caller
 * frees; ffu_cl owns its context, queue and program cache; programs, kernels, buffers and
 * events belong to whoever created them. Nothing here prints or aborts: every failure is a status plus an
 * ffu_error naming the OpenCL call and its CL_... code.
 *
 * Every OpenCL call that can fail goes through FFU_CL / FFU_CL_NEW (cl_fault.h), so tests
 * and FIELDFUSE_FAULT can make it fail; release calls are not hooked, since their failure
 * cannot be reported and changes nothing the caller could test.
 */
/* clCreateCommandQueue is deprecated from 2.0 but is the only queue call 1.x platforms have. */
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include "runtime/cl.h"
#include "util/text.h"

#include <CL/cl_ext.h>
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "device/launch.h"
#include "device/profile.h"
#include "device/tuning_db.h"
#include "runtime/cache.h"
#include "runtime/cl_fault.h"
#include "util/strbuf.h"

#ifndef CL_PLATFORM_NOT_FOUND_KHR
#define CL_PLATFORM_NOT_FOUND_KHR -1001
#endif

/* clCreateBuffer rejects size 0; an empty tensor still needs a valid cl_mem to bind. */
#define FFU_EMPTY_BUFFER_BYTES 16

/* ---- small string helpers ------------------------------------------------------------ */

/* A whole decimal number of 1+ digits in [s, s+len) that fits an int; no signs or blanks. */
static bool parse_index(const char *s, size_t len, int *out)
{
	long v = 0;
	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (s[i] - '0');
		if (v > INT_MAX)
			return false;
	}
	*out = (int)v;
	return true;
}

/*
 * A string parameter of a platform (device == NULL) or device, malloc'd and NUL-terminated.
 * Asks for the size first: a fixed buffer would fail with CL_INVALID_VALUE on long strings.
 */
static ffu_status query_str(cl_platform_id platform, cl_device_id device, cl_uint param, char **out,
			    ffu_error *e)
{
	ffu_status st = FFU_STATUS_OK;
	const char *call = device ? "clGetDeviceInfo" : "clGetPlatformInfo";
	size_t size = 0;
	char *s = NULL;
	cl_int err;

	*out = NULL;
	err = device ? FFU_CL(clGetDeviceInfo, device, param, 0, NULL, &size)
		     : FFU_CL(clGetPlatformInfo, platform, param, 0, NULL, &size);
	if (err != CL_SUCCESS) {
		st = ffu__err_cl(e, call, err, "querying parameter 0x%x", (unsigned)param);
		goto out;
	}
	s = malloc(size + 1);
	if (!s) {
		st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory reading an OpenCL string (%zu bytes)", size);
		goto out;
	}
	err = device ? FFU_CL(clGetDeviceInfo, device, param, size, s, NULL)
		     : FFU_CL(clGetPlatformInfo, platform, param, size, s, NULL);
	if (err != CL_SUCCESS) {
		st = ffu__err_cl(e, call, err, "querying parameter 0x%x", (unsigned)param);
		goto out;
	}
	s[size] = '\0';
	*out = s;
	s = NULL;
out:
	free(s);
	return st;
}

/* ---- vendor classes ------------------------------------------------------------------ */

ffu_vendor ffu__cl_classify(const char *platform_name, const char *platform_extensions)
{
	return ffu__caps_classify(platform_name, ffu__caps_ext_bits(platform_extensions), 0, 0);
}

const char *ffu__cl_vendor_str(ffu_vendor v)
{
	return ffu__vendor_str(v);
}

/* ---- listing ------------------------------------------------------------------------- */

static ffu_status fill_device(ffu_device_info *d, cl_platform_id platform, int pi, cl_device_id device,
			      int di, ffu_error *e)
{
	memset(d, 0, sizeof *d);
	d->platform = platform;
	d->device = device;
	d->platform_index = pi;
	d->device_index = di;
	if (snprintf(d->id, sizeof d->id, "%d:%d", pi, di) >= (int)sizeof d->id)
		return ffu__err(e, FFU_STATUS_ELIMIT, "device index %d:%d is too large", pi, di);
	return ffu__caps_query(d, e);
}

ffu_status ffu__cl_list_devices(ffu_device_info **out, int *n, ffu_error *e)
{
	ffu_status st = FFU_STATUS_OK;
	cl_platform_id *platforms = NULL;
	cl_device_id *devices = NULL;
	ffu_device_info *list = NULL;
	char *pname = NULL;
	cl_uint np = 0;
	int count = 0;
	cl_int err;

	*out = NULL;
	*n = 0;
	/* Every device use starts here, so a malformed FIELDFUSE_FAULT is reported here. */
	st = ffu__cl_fault_env_status(e);
	if (st)
		goto out;
	/* The ICD loader answers CL_PLATFORM_NOT_FOUND_KHR when no ICD is installed at all. */
	err = FFU_CL(clGetPlatformIDs, 0, NULL, &np);
	if (err == CL_PLATFORM_NOT_FOUND_KHR || (err == CL_SUCCESS && np == 0)) {
		st = ffu__err(e, FFU_STATUS_ENODEV,
			      "no OpenCL platform was found: install an OpenCL driver (ICD); for CPUs, "
			      "install pocl-opencl-icd");
		goto out;
	}
	if (err != CL_SUCCESS) {
		st = ffu__err_cl(e, "clGetPlatformIDs", err, "counting OpenCL platforms");
		goto out;
	}
	platforms = calloc(np, sizeof *platforms);
	if (!platforms) {
		st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory listing %u OpenCL platforms", np);
		goto out;
	}
	err = FFU_CL(clGetPlatformIDs, np, platforms, NULL);
	if (err != CL_SUCCESS) {
		st = ffu__err_cl(e, "clGetPlatformIDs", err, "listing %u OpenCL platforms", np);
		goto out;
	}

	for (cl_uint p = 0; p < np; p++) {
		cl_uint nd = 0;

		free(pname);
		pname = NULL;
		if ((st = query_str(platforms[p], NULL, CL_PLATFORM_NAME, &pname, e)))
			goto out;
		/* Platforms without devices (Clover, Rusticl without RUSTICL_ENABLE) say so this way. */
		err = FFU_CL(clGetDeviceIDs, platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd);
		if (err == CL_DEVICE_NOT_FOUND || (err == CL_SUCCESS && nd == 0))
			continue;
		if (err != CL_SUCCESS) {
			st = ffu__err_cl(e, "clGetDeviceIDs", err, "counting the devices of platform %u (%s)", p, pname);
			goto out;
		}
		free(devices);
		devices = calloc(nd, sizeof *devices);
		ffu_device_info *grown = realloc(list, ((size_t)count + nd) * sizeof *list);
		if (!devices || !grown) {
			if (grown)
				list = grown;
			st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory listing OpenCL devices");
			goto out;
		}
		list = grown;
		err = FFU_CL(clGetDeviceIDs, platforms[p], CL_DEVICE_TYPE_ALL, nd, devices, NULL);
		if (err != CL_SUCCESS) {
			st = ffu__err_cl(e, "clGetDeviceIDs", err, "listing the devices of platform %u (%s)", p, pname);
			goto out;
		}
		for (cl_uint d = 0; d < nd; d++) {
			st = fill_device(&list[count], platforms[p], (int)p, devices[d], (int)d, e);
			if (st)
				goto out;
			count++;
		}
	}
	if (count == 0) {
		st = ffu__err(e, FFU_STATUS_ENODEV,
			      "%u OpenCL platform(s) found but no device: install a driver with a device "
			      "(pocl-opencl-icd for CPUs), or for Mesa Rusticl set RUSTICL_ENABLE (e.g. "
			      "RUSTICL_ENABLE=llvmpipe)", np);
		goto out;
	}
	*out = list;
	*n = count;
	list = NULL;
out:
	free(list);
	free(devices);
	free(platforms);
	free(pname);
	return st;
}

/* ---- selection ----------------------------------------------------------------------- */

typedef enum { SEL_ALL, SEL_VENDOR, SEL_TYPE, SEL_FLAT, SEL_PAIR, SEL_NAME } sel_kind;

typedef struct {
	sel_kind kind;
	ffu_vendor vendor;
	cl_device_type type;
	int a, b; /* SEL_FLAT: a; SEL_PAIR: a:b */
	const char *text;
} sel_spec;

/* Keywords win over name substrings, so "amd" means the AMD platform, not "...AMD EPYC". */
static void parse_selector(const char *s, bool allow_all, sel_spec *sp)
{
	static const struct {
		const char *word;
		ffu_vendor v;
	} vendors[] = {
		{"pocl", FFU_VENDOR_POCL},   {"rusticl", FFU_VENDOR_RUSTICL}, {"nvidia", FFU_VENDOR_NVIDIA},
		{"amd", FFU_VENDOR_AMD},     {"intel", FFU_VENDOR_INTEL},     {"apple", FFU_VENDOR_APPLE},
	};
	const char *colon = strchr(s, ':');

	memset(sp, 0, sizeof *sp);
	sp->text = s;
	sp->kind = SEL_NAME;
	if (allow_all && ffu__str_iequal(s, "all")) {
		sp->kind = SEL_ALL;
		return;
	}
	for (size_t i = 0; i < sizeof vendors / sizeof vendors[0]; i++) {
		if (ffu__str_iequal(s, vendors[i].word)) {
			sp->kind = SEL_VENDOR;
			sp->vendor = vendors[i].v;
			return;
		}
	}
	if (ffu__str_iequal(s, "cpu") || ffu__str_iequal(s, "gpu")) {
		sp->kind = SEL_TYPE;
		sp->type = ffu__str_iequal(s, "cpu") ? CL_DEVICE_TYPE_CPU : CL_DEVICE_TYPE_GPU;
		return;
	}
	if (!colon && parse_index(s, strlen(s), &sp->a)) {
		sp->kind = SEL_FLAT;
		return;
	}
	if (colon && parse_index(s, (size_t)(colon - s), &sp->a) &&
	    parse_index(colon + 1, strlen(colon + 1), &sp->b))
		sp->kind = SEL_PAIR;
}

static bool sel_match(const sel_spec *sp, const ffu_device_info *d, int flat)
{
	switch (sp->kind) {
	case SEL_ALL:
		return true;
	case SEL_VENDOR:
		return d->vendor_class == sp->vendor;
	case SEL_TYPE:
		return (d->type & sp->type) != 0;
	case SEL_FLAT:
		return flat == sp->a;
	case SEL_PAIR:
		return d->platform_index == sp->a && d->device_index == sp->b;
	case SEL_NAME:
		return ffu__str_icontains(d->name, sp->text);
	}
	return false;
}

/* Default device: the first GPU, else the first CPU, else the first device listed. */
static int default_device(const ffu_device_info *list, int n)
{
	for (int i = 0; i < n; i++)
		if (list[i].type & CL_DEVICE_TYPE_GPU)
			return i;
	for (int i = 0; i < n; i++)
		if (list[i].type & CL_DEVICE_TYPE_CPU)
			return i;
	return 0;
}

static ffu_status no_match(ffu_error *e, const char *sel, bool from_env, const ffu_device_info *list, int n)
{
	ffu_strbuf sb = {0};
	const char *rusticl_env = getenv("RUSTICL_ENABLE");

	ffu__sb_printf(&sb, "no OpenCL device matches '%s'%s; available devices:", sel,
		       from_env ? " (from FIELDFUSE_DEVICE)" : "");
	for (int i = 0; i < n; i++)
		ffu__sb_printf(&sb, "%s %s %s (%s)", i ? "," : "", list[i].id, list[i].name, list[i].platform_name);
	if (ffu__str_icontains(sel, "rusticl") && (!rusticl_env || !*rusticl_env))
		ffu__sb_append(&sb, "; Mesa Rusticl shows no device unless RUSTICL_ENABLE is set "
				    "(e.g. RUSTICL_ENABLE=llvmpipe)");
	ffu_status st = ffu__err(e, FFU_STATUS_ENODEV, "%s", ffu__sb_cstr(&sb));
	ffu__sb_free(&sb);
	return st;
}

/* Shared by select / select_all: the matches of `selector`, in listing order (one if !all). */
static ffu_status select_impl(ffu_device_info **out, int *n, const char *selector, bool all, ffu_error *e)
{
	ffu_status st = FFU_STATUS_OK;
	ffu_device_info *list = NULL;
	int count = 0, kept = 0;
	bool from_env = false;
	sel_spec sp;

	*out = NULL;
	*n = 0;
	st = ffu__cl_list_devices(&list, &count, e);
	if (st)
		goto out;
	if (!selector || !*selector) {
		const char *env = getenv("FIELDFUSE_DEVICE");
		if (env && *env) {
			selector = env;
			from_env = true;
		}
	}
	if (!selector || !*selector) {
		int i = default_device(list, count);
		if (i != 0)
			list[0] = list[i];
		kept = 1;
	} else {
		parse_selector(selector, all, &sp);
		for (int i = 0; i < count; i++) {
			if (!sel_match(&sp, &list[i], i))
				continue;
			if (kept != i)
				list[kept] = list[i];
			kept++;
			if (!all)
				break;
		}
		if (kept == 0) {
			st = no_match(e, selector, from_env, list, count);
			goto out;
		}
	}
	*out = list;
	*n = kept;
	list = NULL;
out:
	free(list);
	return st;
}

ffu_status ffu__cl_select(ffu_device_info *out, const char *selector, ffu_error *e)
{
	ffu_device_info *list = NULL;
	int n = 0;
	ffu_status st = select_impl(&list, &n, selector, false, e);
	if (st == FFU_STATUS_OK)
		*out = list[0];
	free(list);
	return st;
}

ffu_status ffu__cl_select_all(ffu_device_info **out, int *n, const char *selector, ffu_error *e)
{
	return select_impl(out, n, selector, true, e);
}

/* ---- context and queue --------------------------------------------------------------- */

/* Major version from "OpenCL <major>.<minor> <vendor text>"; 1 when it cannot be read. */
static int platform_major(const char *version)
{
	int major = 0, minor = 0;
	if (!version || sscanf(version, "OpenCL %d.%d", &major, &minor) != 2 || major < 1)
		return 1;
	return major;
}

ffu_status ffu__cl_attach(ffu_cl *cl, ffu_error *e)
{
	cl_int err = CL_SUCCESS;
	const ffu_device_info *dev = &cl->dev;
	/* 2.0+ platforms deprecate clCreateCommandQueue; 1.x ones lack the replacement. */
	if (platform_major(dev->platform_version) >= 2) {
		cl_queue_properties qprops[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
		cl->queue = FFU_CL_NEW(clCreateCommandQueueWithProperties, &err, cl->ctx, dev->device, qprops, &err);
		if (!cl->queue || err != CL_SUCCESS)
			return ffu__err_cl(e, "clCreateCommandQueueWithProperties", err, "on %s", dev->name);
	} else {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
		cl->queue = FFU_CL_NEW(clCreateCommandQueue, &err, cl->ctx, dev->device, CL_QUEUE_PROFILING_ENABLE, &err);
#pragma GCC diagnostic pop
		if (!cl->queue || err != CL_SUCCESS)
			return ffu__err_cl(e, "clCreateCommandQueue", err, "on %s", dev->name);
	}
	/* tuning and the disk cache are optimisations: a broken cache file never fails an open */
	bool found = false;
	if (ffu__tuning_lookup(&cl->dev.tuned, &found, &cl->dev, NULL) != FFU_STATUS_OK || !found)
		memset(&cl->dev.tuned, 0, sizeof cl->dev.tuned);
	memset(&cl->dev.override, 0, sizeof cl->dev.override);
	ffu__cl_retarget(cl);
	const char *disk = getenv("FIELDFUSE_PROGRAM_CACHE");
	cl->disk_cache = disk && *disk ? strcmp(disk, "0") != 0 : ffu__progcache_disk_default(dev->vendor_class, dev->type);
	return FFU_STATUS_OK;
}

ffu_status ffu__cl_open(ffu_cl *cl, const ffu_device_info *dev, ffu_error *e)
{
	ffu_status st = FFU_STATUS_OK;
	cl_int err = CL_SUCCESS;

	memset(cl, 0, sizeof *cl);
	cl->dev = *dev;
	cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)dev->platform, 0};
	cl->ctx = FFU_CL_NEW(clCreateContext, &err, props, 1, &dev->device, NULL, NULL, &err);
	if (!cl->ctx || err != CL_SUCCESS)
		st = ffu__err_cl(e, "clCreateContext", err, "on %s (%s)", dev->name, dev->platform_name);
	else
		st = ffu__cl_attach(cl, e);
	if (st)
		ffu__cl_close(cl);
	return st;
}

void ffu__cl_set_override(ffu_cl *cl, const ffu_params *p)
{
	if (p)
		cl->dev.override = *p;
	else
		memset(&cl->dev.override, 0, sizeof cl->dev.override);
	ffu__cl_retarget(cl);
}

void ffu__cl_retarget(ffu_cl *cl)
{
	ffu__target_resolve(&cl->target, &cl->dev);
}

void ffu__cl_set_disk_cache(ffu_cl *cl, bool on)
{
	cl->disk_cache = on;
}

void ffu__cl_forget_programs(ffu_cl *cl)
{
	ffu__progcache_free(cl);
}

void ffu__cl_close(ffu_cl *cl)
{
	if (!cl)
		return;
	/* Releasing an in-order queue flushes it; finishing first keeps buffers valid until then. */
	if (cl->queue) {
		clFinish(cl->queue);
		clReleaseCommandQueue(cl->queue);
	}
	ffu__progcache_free(cl);
	if (cl->ctx)
		clReleaseContext(cl->ctx);
	memset(cl, 0, sizeof *cl);
}

/* ---- buffers ------------------------------------------------------------------------- */

ffu_status ffu__cl_buffer(ffu_cl *cl, cl_mem *out, size_t bytes, ffu_error *e)
{
	ffu_status st = FFU_STATUS_OK;
	cl_int err = CL_SUCCESS;
	size_t alloc = bytes ? bytes : FFU_EMPTY_BUFFER_BYTES;

	*out = NULL;
	/* Checked here because some drivers (PoCL) defer allocation and fail only at first use. */
	if (cl->dev.max_alloc && (cl_ulong)bytes > cl->dev.max_alloc) {
		st = ffu__err(e, FFU_STATUS_ELIMIT,
			      "a buffer of %zu bytes exceeds the largest single allocation of %s "
			      "(CL_DEVICE_MAX_MEM_ALLOC_SIZE = %llu bytes)",
			      bytes, cl->dev.name, (unsigned long long)cl->dev.max_alloc);
		goto out;
	}
	cl_mem m = FFU_CL_NEW(clCreateBuffer, &err, cl->ctx, CL_MEM_READ_WRITE, alloc, NULL, &err);
	if (!m || err != CL_SUCCESS) {
		st = ffu__err_cl(e, "clCreateBuffer", err, "allocating %zu bytes on %s", alloc, cl->dev.name);
		goto out;
	}
	*out = m;
out:
	return st;
}

ffu_status ffu__cl_write(ffu_cl *cl, cl_mem buf, const void *src, size_t bytes, ffu_error *e)
{
	/* A zero-byte transfer is CL_INVALID_VALUE to OpenCL but a no-op to us. */
	if (bytes == 0)
		return FFU_STATUS_OK;
	cl_int err = FFU_CL(clEnqueueWriteBuffer, cl->queue, buf, CL_TRUE, 0, bytes, src, 0, NULL, NULL);
	if (err != CL_SUCCESS)
		return ffu__err_cl(e, "clEnqueueWriteBuffer", err, "writing %zu bytes to %s", bytes, cl->dev.name);
	return FFU_STATUS_OK;
}

ffu_status ffu__cl_read(ffu_cl *cl, cl_mem buf, void *dst, size_t bytes, ffu_error *e)
{
	if (bytes == 0)
		return FFU_STATUS_OK;
	cl_int err = FFU_CL(clEnqueueReadBuffer, cl->queue, buf, CL_TRUE, 0, bytes, dst, 0, NULL, NULL);
	if (err != CL_SUCCESS)
		return ffu__err_cl(e, "clEnqueueReadBuffer", err, "reading %zu bytes from %s", bytes, cl->dev.name);
	return FFU_STATUS_OK;
}

void ffu__cl_buffer_release(cl_mem *buf)
{
	if (buf && *buf) {
		clReleaseMemObject(*buf);
		*buf = NULL;
	}
}

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
	err = FFU_CL(clBuildProgram, prog, 1, &cl->dev.device, options, NULL, NULL);
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
	cl_kernel k = FFU_CL_NEW(clCreateKernel, &err, prog, name, &err);
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

/* ---- launches ------------------------------------------------------------------------ */

ffu_status ffu__cl_kernel_limits(ffu_cl *cl, cl_kernel k, ffu_kernel_limits *out, ffu_error *e)
{
	ffu_status st = ffu__caps_kernel(out, k, cl->dev.device, e);
	if (st && e && !strstr(e->message, cl->dev.name)) {
		size_t n = strlen(e->message);
		snprintf(e->message + n, sizeof e->message - n, " on %s", cl->dev.name);
	}
	return st;
}

size_t ffu__cl_pick_wg(size_t n, size_t kernel_max, size_t device_max, size_t preferred)
{
	size_t limit = !kernel_max ? device_max : !device_max ? kernel_max : kernel_max < device_max ? kernel_max : device_max;
	return ffu__launch_pick(n, FFU_WG_DEFAULT, limit, preferred);
}

ffu_status ffu__cl_launch(ffu_cl *cl, cl_kernel k, size_t n, size_t wg, ffu_launch_events *ev, ffu_error *e)
{
	return ffu__cl_launch_at(cl, k, 0, n, wg, ev, e);
}

ffu_status ffu__cl_launch_at(ffu_cl *cl, cl_kernel k, size_t offset, size_t n, size_t wg, ffu_launch_events *ev,
			     ffu_error *e)
{
	ffu_kernel_limits lim;
	ffu_status st;

	if (ev)
		memset(ev, 0, sizeof *ev);
	if ((st = ffu__cl_kernel_limits(cl, k, &lim, e)))
		return st;
	return ffu__cl_launch_limited(cl, k, &lim, offset, n, wg, ev, e);
}

ffu_status ffu__cl_launch_limited(ffu_cl *cl, cl_kernel k, const ffu_kernel_limits *lim, size_t offset, size_t n,
				  size_t wg, ffu_launch_events *ev, ffu_error *e)
{
	ffu_status st = FFU_STATUS_OK;
	ffu_launch_plan plan;
	ffu_launch_request req = {.offset = offset, .n = n, .wg = wg};
	cl_int err;

	if (ev)
		memset(ev, 0, sizeof *ev);
	if (n == 0) {
		st = ffu__err(e, FFU_STATUS_EINVAL, "a launch needs at least one work-item");
		goto out;
	}
	/* read at every launch: tests and users change it between runs of one process */
	if (!wg && (st = ffu__launch_parse_wg(getenv("FIELDFUSE_WG_SIZE"), &req.env_wg, e)))
		goto out;
	if ((st = ffu__launch_plan(&plan, &cl->dev, lim, &cl->target.profile, &req, e)))
		goto out;
	if (plan.whole > 0) {
		err = FFU_CL(clEnqueueNDRangeKernel, cl->queue, k, 1, &offset, &plan.whole, &plan.local, 0, NULL,
			     ev ? &ev->ev[0] : NULL);
		if (err != CL_SUCCESS) {
			st = ffu__err_cl(e, "clEnqueueNDRangeKernel", err, "%zu work-items in groups of %zu on %s",
					 plan.whole, plan.local, cl->dev.name);
			goto out;
		}
		if (ev)
			ev->n = 1;
	}
	if (plan.tail > 0) { /* the tail, as groups of one: one extra work-group compile at most */
		size_t at = offset + plan.whole, one = 1;
		err = FFU_CL(clEnqueueNDRangeKernel, cl->queue, k, 1, &at, &plan.tail, &one, 0, NULL,
			     ev ? &ev->ev[ev->n] : NULL);
		if (err != CL_SUCCESS) {
			st = ffu__err_cl(e, "clEnqueueNDRangeKernel", err, "tail of %zu work-items at offset %zu on %s",
					 plan.tail, at, cl->dev.name);
			goto out;
		}
		if (ev)
			ev->n++;
	}
out:
	return st;
}

void ffu__cl_launch_events_release(ffu_launch_events *ev)
{
	for (int i = 0; ev && i < ev->n; i++)
		if (ev->ev[i])
			clReleaseEvent(ev->ev[i]);
	if (ev)
		memset(ev, 0, sizeof *ev);
}

ffu_status ffu__cl_finish(ffu_cl *cl, ffu_error *e)
{
	cl_int err = FFU_CL(clFinish, cl->queue);
	if (err != CL_SUCCESS)
		return ffu__err_cl(e, "clFinish", err, "on %s", cl->dev.name);
	return FFU_STATUS_OK;
}

ffu_status ffu__cl_event_times(cl_event ev, cl_ulong *start, cl_ulong *end, ffu_error *e)
{
	ffu_status st = FFU_STATUS_OK;
	cl_int err;

	*start = *end = 0;
	if (!ev) {
		st = ffu__err(e, FFU_STATUS_EINVAL, "no event to time");
		goto out;
	}
	/* Profiling data exists only once the command completes; waiting is free if it has. */
	err = FFU_CL(clWaitForEvents, 1, &ev);
	if (err != CL_SUCCESS) {
		st = ffu__err_cl(e, "clWaitForEvents", err, "waiting for a timed command");
		goto out;
	}
	err = FFU_CL(clGetEventProfilingInfo, ev, CL_PROFILING_COMMAND_START, sizeof *start, start, NULL);
	if (err == CL_SUCCESS)
		err = FFU_CL(clGetEventProfilingInfo, ev, CL_PROFILING_COMMAND_END, sizeof *end, end, NULL);
	if (err != CL_SUCCESS) {
		st = ffu__err_cl(e, "clGetEventProfilingInfo", err, "reading START/END");
		goto out;
	}
out:
	return st;
}

/*
 * Real device timers count from boot or the epoch, so a start within the first millisecond
 * is a driver's stand-in value, not a measurement.
 */
bool ffu__cl_times_real(cl_ulong start, cl_ulong end)
{
	return start >= 1000000u && end >= start;
}

double ffu__now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}
