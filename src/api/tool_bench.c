/*
 * src/api/tool_bench.c: what `fieldfuse bench` (bench/) needs beyond the public API and the
 * rest of tool.h: the work-group size its own copy kernel (bench/copy.c, the bandwidth
 * roof) is launched with, the one the library's element-wise launches would get on the
 * device, so that the roof is measured as the workloads' kernels run. Owned by the API layer.
 */
#include "api/tool.h"

#include "api/api.h"

ffu_status ffu_tool_launch_local(const ffu_device *d, size_t n, size_t kernel_max, size_t preferred, size_t *local,
				 ffu_error *e)
{
	ffu_error_clear(e);
	if (!d || !local)
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu_tool_launch_local: %s is NULL", !d ? "device" : "local");
	ffu_kernel_limits lim = {.max_wg = kernel_max, .preferred_multiple = preferred};
	ffu_launch_plan plan;
	ffu_status st = ffu__cl_launch_plan(&d->cl, &lim, 0, n, 0, &plan, e);
	if (st == FFU_STATUS_OK)
		*local = plan.local;
	return st;
}
