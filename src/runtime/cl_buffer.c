/* runtime/cl_buffer.c: device buffers, writes and reads on an ffu_cl's queue, and mapped
   staging memory (see cl.h). */
#include "runtime/cl.h"

#include "ocl/ocl.h"

/* clCreateBuffer rejects size 0; an empty tensor still needs a valid cl_mem to bind. */
#define FFU_EMPTY_BUFFER_BYTES 16

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

ffu_status ffu__cl_pinned_alloc(ffu_cl *cl, size_t bytes, ffu_cl_pinned *out, ffu_error *e)
{
	cl_int err = CL_SUCCESS;
	const size_t alloc = bytes ? bytes : FFU_EMPTY_BUFFER_BYTES;
	*out = (ffu_cl_pinned){0};
	if (cl->dev.max_alloc && (cl_ulong)alloc > cl->dev.max_alloc)
		return ffu__err(e, FFU_STATUS_ELIMIT, "a staging buffer of %zu bytes exceeds the largest single allocation of %s",
				bytes, cl->dev.name);
	cl_mem m = FFU_CL_NEW(clCreateBuffer, &err, cl->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, alloc, NULL, &err);
	if (!m || err != CL_SUCCESS)
		return ffu__err_cl(e, "clCreateBuffer", err, "allocating %zu bytes of staging memory for %s", alloc, cl->dev.name);
	void *ptr = FFU_CL_NEW(clEnqueueMapBuffer, &err, cl->queue, m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, alloc, 0,
			       NULL, NULL, &err);
	if (!ptr || err != CL_SUCCESS) {
		clReleaseMemObject(m);
		return ffu__err_cl(e, "clEnqueueMapBuffer", err, "mapping %zu bytes of staging memory for %s", alloc,
				   cl->dev.name);
	}
	*out = (ffu_cl_pinned){m, ptr, bytes};
	return FFU_STATUS_OK;
}

void ffu__cl_pinned_free(ffu_cl *cl, ffu_cl_pinned *p)
{
	if (p->mem) {
		/* unmapping is queued; finishing keeps the memory alive until the driver lets go */
		if (p->ptr && clEnqueueUnmapMemObject(cl->queue, p->mem, p->ptr, 0, NULL, NULL) == CL_SUCCESS)
			clFinish(cl->queue);
		clReleaseMemObject(p->mem);
	}
	*p = (ffu_cl_pinned){0};
}

void ffu__cl_buffer_release(cl_mem *buf)
{
	if (buf && *buf) {
		clReleaseMemObject(*buf);
		*buf = NULL;
	}
}
