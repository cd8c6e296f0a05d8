/*
 * runtime/cl_context.c: an ffu_cl's context and profiling queue, its resolved target and
 * tuning entry, its disk-cache policy and overrides (see cl.h).
 */
/*
 * Ownership and failures (all runtime/cl_*.c files): ffu_cl owns its context, queue and
 * program cache; programs, kernels, buffers and events belong to whoever created them.
 * Nothing here prints or aborts: every failure is a status plus an ffu_error naming the
 * OpenCL call and its CL_... code. Every OpenCL call that can fail goes through FFU_CL /
 * FFU_CL_NEW (ocl/ocl.h), so tests and FIELDFUSE_FAULT can make it fail; release calls are
 * not hooked, since their failure cannot be reported and changes nothing the caller could test.
 */
/* clCreateCommandQueue is deprecated from 2.0 but is the only queue call 1.x platforms have. */
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include "runtime/cl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/profile.h"
#include "device/tuning_db.h"
#include "ocl/ocl.h"
#include "runtime/cache.h"

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
