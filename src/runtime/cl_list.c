/*
 * runtime/cl_list.c: listing the OpenCL devices (the capability table of device/caps.c)
 * and selecting among them by the selector grammar of device/selector.c (see cl.h).
 * ffu__cl_list_devices / ffu__cl_select_all hand back malloc'd arrays the caller frees.
 */
#include "runtime/cl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/selector.h"
#include "ocl/ocl.h"
#include "util/strbuf.h"
#include "util/text.h"

#ifndef CL_PLATFORM_NOT_FOUND_KHR
#define CL_PLATFORM_NOT_FOUND_KHR -1001
#endif

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
	ffu_selector sp;

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
		int i = ffu__selector_default(list, count);
		if (i != 0)
			list[0] = list[i];
		kept = 1;
	} else {
		ffu__selector_parse(&sp, selector, all);
		for (int i = 0; i < count; i++) {
			if (!ffu__selector_match(&sp, &list[i], i))
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
