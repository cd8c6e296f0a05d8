/*
 * src/api/device.c: device handles in the public API: opening one by selector
 * (fieldfuse.h), adopting the caller's OpenCL context (opencl.h), the OpenCL objects
 * behind a handle, and waiting for a device's queue. Owned by the API layer.
 *
 * Ownership: an ffu_device owns one ffu_cl: its context reference (a retained one when
 * adopted), its in-order profiling queue and its program cache.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "device/tuning_db.h"
#include "runtime/cache.h"
#include "ocl/ocl.h"

ffu_status ffu_device_open(ffu_device **out, const char *selector, ffu_error *e)
{
	ffu_error_clear(e);
	if (!out)
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu_device_open: out is NULL");
	*out = NULL;
	ffu_device_info info;
	ffu_status st = FFU_STATUS_OK;
	ffu_device *d = calloc(1, sizeof *d);
	if (!d) {
		st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
		goto out;
	}
	if ((st = ffu__cl_select(&info, selector, e)) || (st = ffu__cl_open(&d->cl, &info, e)))
		goto out;
	*out = d;
	d = NULL;
out:
	ffu_device_close(&d);
	return st;
}

/* The listing entry of an OpenCL device id: what selection would have found for it. */
static ffu_status find_listed(ffu_device_info *out, cl_device_id device, ffu_error *e)
{
	ffu_device_info *list = NULL;
	int n = 0;
	ffu_status st = ffu__cl_list_devices(&list, &n, e);
	if (st)
		return st;
	int hit = -1;
	for (int i = 0; i < n && hit < 0; i++)
		if (list[i].device == device)
			hit = i;
	if (hit >= 0)
		*out = list[hit];
	else
		st = ffu__err(e, FFU_STATUS_ENODEV,
			      "ffu_device_adopt: the cl_device_id is none of the %d OpenCL devices listed "
			      "(a sub-device, or a platform the ICD loader does not show?)",
			      n);
	free(list);
	return st;
}

static ffu_status context_has(cl_context ctx, cl_device_id device, ffu_error *e)
{
	size_t size = 0;
	cl_int err = FFU_CL(clGetContextInfo, ctx, CL_CONTEXT_DEVICES, 0, NULL, &size);
	if (err != CL_SUCCESS)
		return ffu__err_cl(e, "clGetContextInfo", err, "CL_CONTEXT_DEVICES of the caller's context");
	cl_device_id *devs = malloc(size ? size : 1);
	if (!devs)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	err = FFU_CL(clGetContextInfo, ctx, CL_CONTEXT_DEVICES, size, devs, NULL);
	bool found = false;
	for (size_t i = 0; err == CL_SUCCESS && i < size / sizeof *devs; i++)
		found = found || devs[i] == device;
	free(devs);
	if (err != CL_SUCCESS)
		return ffu__err_cl(e, "clGetContextInfo", err, "CL_CONTEXT_DEVICES of the caller's context");
	return found ? FFU_STATUS_OK
		     : ffu__err(e, FFU_STATUS_EINVAL, "ffu_device_adopt: the context does not contain the device");
}

/*
 * As ffu__cl_open, but on the caller's context (retained) instead of a new one: our own
 * in-order profiling queue, the tuning-database entry and the disk-cache choice.
 */
ffu_status ffu_device_adopt(ffu_device **out, cl_context ctx, cl_device_id device, ffu_error *e)
{
	ffu_error_clear(e);
	if (!out)
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu_device_adopt: out is NULL");
	*out = NULL;
	if (!ctx || !device)
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu_device_adopt: %s is NULL", !ctx ? "context" : "device");
	ffu_device_info info;
	ffu_status st = FFU_STATUS_OK;
	cl_int err = CL_SUCCESS;
	ffu_device *d = NULL;
	if ((st = find_listed(&info, device, e)) || (st = context_has(ctx, device, e)))
		return st;
	if (!(d = calloc(1, sizeof *d)))
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	ffu_cl *cl = &d->cl;
	cl->dev = info;
	err = FFU_CL(clRetainContext, ctx);
	if (err != CL_SUCCESS) {
		st = ffu__err_cl(e, "clRetainContext", err, "the caller's context");
		goto out;
	}
	cl->ctx = ctx;
	if ((st = ffu__cl_attach(cl, e)))
		goto out;
	*out = d;
	d = NULL;
out:
	ffu_device_close(&d);
	return st;
}

const char *ffu_device_name(const ffu_device *d)
{
	return d ? d->cl.dev.name : "";
}

const char *ffu_device_id(const ffu_device *d)
{
	return d ? d->cl.dev.id : "";
}

cl_context ffu_device_cl_context(const ffu_device *d)
{
	return d ? d->cl.ctx : NULL;
}

cl_device_id ffu_device_cl_device(const ffu_device *d)
{
	return d ? d->cl.dev.device : NULL;
}

cl_command_queue ffu_device_cl_queue(const ffu_device *d)
{
	return d ? d->cl.queue : NULL;
}

ffu_status ffu_device_finish(ffu_device *d, ffu_error *e)
{
	ffu_error_clear(e);
	if (!d)
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu_device_finish: device is NULL");
	return ffu__cl_finish(&d->cl, e);
}

void ffu_device_close(ffu_device **dp)
{
	if (!dp || !*dp)
		return;
	ffu__cl_close(&(*dp)->cl);
	free(*dp);
	*dp = NULL;
}
