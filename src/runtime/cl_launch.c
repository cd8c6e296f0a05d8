/*
 * runtime/cl_launch.c: 1-D launches, planned by device/launch.c from the kernel's limits,
 * the resolved profile and FIELDFUSE_WG_SIZE, and their events (see cl.h).
 */
#include "runtime/cl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/launch.h"
#include "ocl/ocl.h"
#include "runtime/buildlog.h"
#include "util/config.h"

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

ffu_status ffu__cl_launch_plan(const ffu_cl *cl, const ffu_kernel_limits *lim, size_t offset, size_t n, size_t wg,
			       ffu_launch_plan *plan, ffu_error *e)
{
	/* FIELDFUSE_WG_SIZE as the context's target read it (device/target.h) */
	if (!wg && cl->target.wg_env_error[0])
		return ffu__err(e, FFU_STATUS_EINVAL, "%s", cl->target.wg_env_error);
	ffu_launch_request req = {.offset = offset, .n = n, .wg = wg, .env_wg = wg ? 0 : cl->target.wg_env};
	return ffu__launch_plan(plan, &cl->dev, lim, &cl->target.profile, &req, e);
}

/*
 * FIELDFUSE_BUILD_LOG (runtime/buildlog.h): a launch whose wall time, enqueue to finish,
 * minus its kernels' own time is long enough to hold a compile. Drivers compile on first
 * use, away from clBuildProgram: PoCL its work-group function per local size in a worker
 * thread, Mesa its compute state. Waiting serialises the queue; the log is for measuring.
 */
static void log_launch(ffu_cl *cl, cl_kernel k, const ffu_launch_events *ev, double t0)
{
	char name[128] = "?";
	cl_ulong start, end;
	double run = 0;
	if (ffu__cl_finish(cl, NULL) != FFU_STATUS_OK)
		return;
	const double ms = ffu__now_ms() - t0;
	for (int i = 0; i < ev->n; i++)
		if (ffu__cl_event_times(ev->ev[i], &start, &end, NULL) == FFU_STATUS_OK && ffu__cl_times_real(start, end))
			run += (double)(end - start) * 1e-6;
	if (ms - run < FFU_BUILDLOG_LAUNCH_MS)
		return;
	(void)clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL);
	name[sizeof name - 1] = '\0';
	ffu__buildlog(cl, "launch", NULL, NULL, name, ms - run);
}

/*
 * FIELDFUSE_PROFILE (util/config.h): the launch's own time, one line on stderr per kernel,
 * from its events (the host clock around a wait where the driver's timestamps are
 * placeholders, as Mesa 22's: cl_time.c). Waiting serialises the queue: a diagnostic for
 * finding the slow kernel of a program (an NTT's passes), not a way to time the whole.
 */
static ffu_status profile_launch(ffu_cl *cl, cl_kernel k, const ffu_launch_plan *plan, const ffu_launch_events *ev,
				 double t0, ffu_error *e)
{
	char name[128] = "?";
	cl_ulong start, end;
	double ms = 0;
	bool host = false;
	for (int i = 0; i < ev->n; i++) {
		ffu_status st = ffu__cl_event_times(ev->ev[i], &start, &end, e);
		if (st)
			return st;
		host |= !ffu__cl_times_real(start, end);
		ms += (double)(end - start) * 1e-6;
	}
	if (host) {
		ffu_status st = ffu__cl_finish(cl, e);
		if (st)
			return st;
		ms = ffu__now_ms() - t0;
	}
	FFU_CL(clGetKernelInfo, k, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL);
	name[sizeof name - 1] = 0;
	fprintf(stderr, "profile: %s: %zu work-items in groups of %zu", name, plan->whole + plan->tail, plan->local);
	if (plan->tail)
		fprintf(stderr, " (the last %zu in ones)", plan->tail);
	fprintf(stderr, ": %.3f ms%s\n", ms, host ? " (host-timed)" : "");
	return FFU_STATUS_OK;
}

ffu_status ffu__cl_launch_limited(ffu_cl *cl, cl_kernel k, const ffu_kernel_limits *lim, size_t offset, size_t n,
				  size_t wg, ffu_launch_events *ev, ffu_error *e)
{
	ffu_status st = FFU_STATUS_OK;
	ffu_launch_plan plan;
	ffu_launch_events own;
	cl_int err;
	const bool profile = ffu__config()->profile;
	const bool logged = ffu__buildlog_on();
	const double t0 = profile || logged ? ffu__now_ms() : 0;

	if ((profile || logged) && !ev) /* the caller wants none: events of our own, released below */
		ev = &own;
	if (ev)
		memset(ev, 0, sizeof *ev);
	if (n == 0) {
		st = ffu__err(e, FFU_STATUS_EINVAL, "a launch needs at least one work-item");
		goto out;
	}
	if ((st = ffu__cl_launch_plan(cl, lim, offset, n, wg, &plan, e)))
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
	if (logged)
		log_launch(cl, k, ev, t0);
	if (profile)
		st = profile_launch(cl, k, &plan, ev, t0, e);
out:
	if (ev == &own)
		ffu__cl_launch_events_release(&own);
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
