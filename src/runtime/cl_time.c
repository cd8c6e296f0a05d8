/*
 * runtime/cl_time.c: waiting for the queue and timing (profiling events, and the host
 * clock where a driver's timestamps are placeholders, see cl.h).
 */
#include "runtime/cl.h"

#include <time.h>

#include "ocl/ocl.h"

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
