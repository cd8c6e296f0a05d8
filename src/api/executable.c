/*
 * src/api/executable.c: compiled executables of the embedding API (executable.h,
 * opencl.h): compiling a program once for a device, checking run arguments against the
 * signature, synchronous and asynchronous runs, and events. Owned by the API layer.
 *
 * Ownership: an ffu_executable owns its fused module (the exec borrows it), its ffu_exec,
 * copies of its input and output descriptions (names strdup'd: the program may go first),
 * and the scratch arrays a run binds; it borrows its ffu_device. An ffu_event owns one
 * reference to a marker event.
 *
 * The per-run path allocates nothing: binding fills arrays made at create, and only a run
 * with statistics asks for (and releases) profiling events.
 */
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "runtime/compile.h"
#include "ocl/ocl.h"

struct ffu_executable {
	ffu_device *dev;
	ffu_module *m;             /* fused: the exec's module */
	ffu_exec *x;
	ffu_array_info *inputs, *outputs;
	int n_in, n_out;
	cl_mem *bind_in, *bind_out; /* one run's buffers (scratch) */
	ffu_launch_events *events;  /* 2 per kernel, for runs with statistics */
};

/* ---------------------------------------------------------------- compiling */

/* Copies a program's description table, names included. */
static ffu_status copy_infos(ffu_array_info **out, const ffu_array_info *src, int n, ffu_error *e)
{
	*out = calloc((size_t)n + 1, sizeof **out);
	if (!*out)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	for (int i = 0; i < n; i++) {
		(*out)[i] = src[i];
		if (!((*out)[i].name = strdup(src[i].name)))
			return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	}
	return FFU_STATUS_OK;
}

static void free_infos(ffu_array_info *infos, int n)
{
	for (int i = 0; infos && i < n; i++)
		free((char *)infos[i].name);
	free(infos);
}

ffu_status ffu_executable_create(ffu_executable **out, ffu_device *d, const ffu_program *p,
				 const ffu_compile_options *o, ffu_error *e)
{
	ffu_error_clear(e);
	ffu_compile_opts co = {.no_fuse = o && o->no_fuse, .verified = true, .no_buffer_reuse = o && o->no_buffer_reuse};
	return ffu__executable_create(out, d, p, &co, "ffu_executable_create", e);
}

ffu_status ffu__executable_create(ffu_executable **out, ffu_device *d, const ffu_program *p,
				  const ffu_compile_opts *co, const char *call, ffu_error *e)
{
	if (!out)
		return ffu__err(e, FFU_STATUS_EINVAL, "%s: out is NULL", call);
	*out = NULL;
	if (!d || !p)
		return ffu__err(e, FFU_STATUS_EINVAL, "%s: %s is NULL", call, !d ? "device" : "program");
	ffu_status st = FFU_STATUS_OK;
	ffu_executable *x = calloc(1, sizeof *x);
	if (!x)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	x->dev = d;
	x->n_in = p->n_inputs;
	x->n_out = p->n_outputs;
	/* a private copy: the program itself is never modified */
	if (!(x->m = ffu__module_clone(p->m))) {
		st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
		goto out;
	}
	if ((st = ffu__compile(&x->x, &d->cl, x->m, co, e)) ||
	    (st = copy_infos(&x->inputs, p->inputs, p->n_inputs, e)) ||
	    (st = copy_infos(&x->outputs, p->outputs, p->n_outputs, e)))
		goto out;
	if (ffu__exec_num_inputs(x->x) != x->n_in || ffu__exec_num_outputs(x->x) != x->n_out) {
		st = ffu__err(e, FFU_STATUS_EUNSUPPORTED, "internal: the fused program has %d inputs and %d outputs, not %d and %d",
			      ffu__exec_num_inputs(x->x), ffu__exec_num_outputs(x->x), x->n_in, x->n_out);
		goto out;
	}
	x->bind_in = calloc((size_t)x->n_in + 1, sizeof *x->bind_in);
	x->bind_out = calloc((size_t)x->n_out + 1, sizeof *x->bind_out);
	x->events = calloc((size_t)2 * ffu__exec_kernel_count(x->x) + 1, sizeof *x->events);
	if (!x->bind_in || !x->bind_out || !x->events) {
		st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
		goto out;
	}
	*out = x;
	x = NULL;
out:
	ffu_executable_destroy(&x);
	return st;
}

void ffu_executable_destroy(ffu_executable **xp)
{
	if (!xp || !*xp)
		return;
	ffu_executable *x = *xp;
	ffu__exec_destroy(&x->x);
	ffu__module_free(x->m);
	free_infos(x->inputs, x->n_in);
	free_infos(x->outputs, x->n_out);
	free(x->bind_in);
	free(x->bind_out);
	free(x->events);
	free(x);
	*xp = NULL;
}

int ffu_executable_num_inputs(const ffu_executable *x)
{
	return x ? x->n_in : 0;
}

int ffu_executable_num_outputs(const ffu_executable *x)
{
	return x ? x->n_out : 0;
}

ffu_status ffu_executable_input(const ffu_executable *x, int i, ffu_array_info *info)
{
	if (!x || !info || i < 0 || i >= x->n_in)
		return FFU_STATUS_EINVAL;
	*info = x->inputs[i];
	return FFU_STATUS_OK;
}

ffu_status ffu_executable_output(const ffu_executable *x, int i, ffu_array_info *info)
{
	if (!x || !info || i < 0 || i >= x->n_out)
		return FFU_STATUS_EINVAL;
	*info = x->outputs[i];
	return FFU_STATUS_OK;
}

int ffu_executable_kernel_count(const ffu_executable *x)
{
	return x ? ffu__exec_kernel_count(x->x) : 0;
}

ffu_status ffu_executable_memory(const ffu_executable *x, ffu_memory_plan *plan)
{
	if (!x || !plan)
		return FFU_STATUS_EINVAL;
	ffu_exec_memory m;
	ffu__exec_memory(x->x, &m);
	*plan = (ffu_memory_plan){
		.peak_bytes = m.peak_bytes,
		.io_bytes = m.io_bytes,
		.constant_bytes = m.constant_bytes,
		.shared_bytes = m.shared_bytes,
		.unshared_bytes = m.unshared_bytes,
		.live_bytes = m.live_bytes,
		.intermediates = m.intermediates,
		.buffers = m.buffers,
	};
	return FFU_STATUS_OK;
}

size_t ffu_executable_peak_bytes(const ffu_executable *x)
{
	ffu_memory_plan plan;
	return ffu_executable_memory(x, &plan) == FFU_STATUS_OK ? plan.peak_bytes : 0;
}

ffu_status ffu_buffer_create_input(ffu_buffer **out, const ffu_executable *x, int i, ffu_error *e)
{
	ffu_error_clear(e);
	if (!x || i < 0 || i >= x->n_in) {
		if (out)
			*out = NULL;
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu_buffer_create_input: %s", !x ? "executable is NULL" : "no such input");
	}
	return ffu__buffer_create_shape(out, x->dev, ffu__exec_input_shape(x->x, i), e);
}

ffu_status ffu_buffer_create_output(ffu_buffer **out, const ffu_executable *x, int i, ffu_error *e)
{
	ffu_error_clear(e);
	if (!x || i < 0 || i >= x->n_out) {
		if (out)
			*out = NULL;
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu_buffer_create_output: %s", !x ? "executable is NULL" : "no such output");
	}
	return ffu__buffer_create_shape(out, x->dev, ffu__exec_output_shape(x->x, i), e);
}

/* ---------------------------------------------------------------- arguments */

/* One argument against the signature: present, on this device's context, of the right shape. */
static ffu_status check_arg(const ffu_executable *x, const ffu_buffer *b, const char *what, int i,
			    const ffu_array_info *info, const ffu_shape *want, ffu_error *e)
{
	if (!b)
		return ffu__err(e, FFU_STATUS_EINVAL, "%s %d (%s) is NULL", what, i, info->name);
	if (b->dev->cl.ctx != x->dev->cl.ctx)
		return ffu__err(e, FFU_STATUS_EINVAL, "%s %d (%s) is a buffer of another OpenCL context (device %s) than the executable's (%s)",
				what, i, info->name, b->dev->cl.dev.name, x->dev->cl.dev.name);
	if (!ffu__shape_eq(&b->shape, want)) {
		char w[160], g[160];
		ffu__shape_format(want, w, sizeof w);
		ffu__shape_format(&b->shape, g, sizeof g);
		return ffu__err(e, FFU_STATUS_ESIGNATURE, "%s %d (%s): expected %s, got %s", what, i, info->name, w, g);
	}
	return FFU_STATUS_OK;
}

/* Checks a run's arguments and fills the bindings; nothing is enqueued on failure. */
static ffu_status bind_args(ffu_executable *x, const ffu_buffer *const *in, int n_in, ffu_buffer *const *out,
			    int n_out, ffu_error *e)
{
	ffu_status st;
	if (n_in != x->n_in || n_out != x->n_out)
		return ffu__err(e, FFU_STATUS_ESIGNATURE, "the program takes %d input%s and %d output%s; %d and %d given",
				x->n_in, x->n_in == 1 ? "" : "s", x->n_out, x->n_out == 1 ? "" : "s", n_in, n_out);
	if ((x->n_in && !in) || (x->n_out && !out))
		return ffu__err(e, FFU_STATUS_EINVAL, "%s array is NULL", x->n_in && !in ? "the inputs" : "the outputs");
	for (int i = 0; i < x->n_in; i++) {
		if ((st = check_arg(x, in[i], "input", i, &x->inputs[i], ffu__exec_input_shape(x->x, i), e)))
			return st;
		x->bind_in[i] = in[i]->mem;
	}
	for (int o = 0; o < x->n_out; o++) {
		if ((st = check_arg(x, out[o], "output", o, &x->outputs[o], ffu__exec_output_shape(x->x, o), e)))
			return st;
		x->bind_out[o] = out[o]->mem;
		/* a kernel reading and writing one buffer would race (slices read other elements) */
		for (int i = 0; i < x->n_in; i++)
			if (x->bind_in[i] == x->bind_out[o])
				return ffu__err(e, FFU_STATUS_EINVAL, "output %d (%s) is the same buffer as input %d (%s): outputs must be distinct buffers",
						o, x->outputs[o].name, i, x->inputs[i].name);
		for (int p = 0; p < o; p++)
			if (x->bind_out[p] == x->bind_out[o])
				return ffu__err(e, FFU_STATUS_EINVAL, "outputs %d (%s) and %d (%s) are the same buffer", p,
						x->outputs[p].name, o, x->outputs[o].name);
	}
	return FFU_STATUS_OK;
}

/* A caller's queue must be in-order and on the executable's context and device. */
static ffu_status check_queue(ffu_executable *x, cl_command_queue q, ffu_error *e)
{
	/* asked every time (three cheap queries): a remembered handle could be a released queue's */
	if (q == x->dev->cl.queue)
		return FFU_STATUS_OK;
	cl_context ctx = NULL;
	cl_device_id dev = NULL;
	cl_command_queue_properties props = 0;
	cl_int err = FFU_CL(clGetCommandQueueInfo, q, CL_QUEUE_CONTEXT, sizeof ctx, &ctx, NULL);
	if (err == CL_SUCCESS)
		err = FFU_CL(clGetCommandQueueInfo, q, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL);
	if (err == CL_SUCCESS)
		err = FFU_CL(clGetCommandQueueInfo, q, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL);
	if (err != CL_SUCCESS)
		return ffu__err_cl(e, "clGetCommandQueueInfo", err, "the caller's queue");
	if (ctx != x->dev->cl.ctx || dev != x->dev->cl.dev.device)
		return ffu__err(e, FFU_STATUS_EINVAL, "the queue is not on the executable's %s (%s)",
				ctx != x->dev->cl.ctx ? "context" : "device", x->dev->cl.dev.name);
	if (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
		return ffu__err(e, FFU_STATUS_EINVAL, "the queue is out-of-order: a run's kernels must run in order");
	return FFU_STATUS_OK;
}

/* ---------------------------------------------------------------- runs */

ffu_status ffu_executable_run(ffu_executable *x, const ffu_buffer *const *inputs, int n_inputs,
			      ffu_buffer *const *outputs, int n_outputs, ffu_run_stats *stats, ffu_error *e)
{
	ffu_error_clear(e);
	if (!x)
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu_executable_run: executable is NULL");
	double t0 = ffu__now_ms();
	ffu_launch_events *ev = stats ? x->events : NULL;
	ffu_status st = bind_args(x, inputs, n_inputs, outputs, n_outputs, e);
	if (st == FFU_STATUS_OK)
		st = ffu__exec_enqueue(x->x, NULL, x->bind_in, x->bind_out, ev, e);
	if (st == FFU_STATUS_OK)
		st = ffu__cl_finish(&x->dev->cl, e);
	double host_ms = ffu__now_ms() - t0;
	if (st == FFU_STATUS_OK && stats) {
		ffu_timer timer = FFU_TIMER_EVENTS;
		memset(stats, 0, sizeof *stats);
		st = ffu__exec_kernel_ms(x->x, ev, host_ms, &stats->kernel_ms, &timer, e);
		stats->host_ms = host_ms;
		stats->host_timed = timer == FFU_TIMER_HOST;
		stats->kernels = ffu__exec_kernel_count(x->x);
	}
	for (int k = 0; ev && k < 2 * ffu__exec_kernel_count(x->x); k++)
		ffu__cl_launch_events_release(&ev[k]);
	return st;
}

ffu_status ffu_executable_enqueue_cl(ffu_executable *x, cl_command_queue q, const ffu_buffer *const *inputs,
				     int n_inputs, ffu_buffer *const *outputs, int n_outputs, cl_event *done,
				     ffu_error *e)
{
	ffu_error_clear(e);
	if (done)
		*done = NULL;
	if (!x)
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu_executable_enqueue: executable is NULL");
	if (!q)
		q = x->dev->cl.queue;
	ffu_status st = check_queue(x, q, e);
	if (st == FFU_STATUS_OK)
		st = bind_args(x, inputs, n_inputs, outputs, n_outputs, e);
	if (st == FFU_STATUS_OK)
		st = ffu__exec_enqueue(x->x, q, x->bind_in, x->bind_out, NULL, e);
	if (st)
		return st;
	cl_int err = CL_SUCCESS;
	/* a marker completes when everything before it on the in-order queue has */
	if (done)
		err = FFU_CL(clEnqueueMarkerWithWaitList, q, 0, NULL, done);
	/* submit now: an unflushed queue may hold the work until someone waits */
	if (err == CL_SUCCESS)
		err = FFU_CL(clFlush, q);
	if (err != CL_SUCCESS) {
		st = ffu__err_cl(e, done && !*done ? "clEnqueueMarkerWithWaitList" : "clFlush", err, "after a run on %s",
				 x->dev->cl.dev.name);
		(void)FFU_CL(clFinish, q);
		if (done && *done) {
			clReleaseEvent(*done);
			*done = NULL;
		}
	}
	return st;
}

ffu_status ffu_executable_enqueue(ffu_executable *x, const ffu_buffer *const *inputs, int n_inputs,
				  ffu_buffer *const *outputs, int n_outputs, ffu_event **done, ffu_error *e)
{
	if (done)
		*done = NULL;
	ffu_event *ev = NULL;
	if (done && !(ev = calloc(1, sizeof *ev))) {
		ffu_error_clear(e);
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	}
	ffu_status st = ffu_executable_enqueue_cl(x, NULL, inputs, n_inputs, outputs, n_outputs, ev ? &ev->ev : NULL, e);
	if (st) {
		free(ev);
		return st;
	}
	if (done)
		*done = ev;
	return FFU_STATUS_OK;
}

/* ---------------------------------------------------------------- events */

static ffu_status event_state(const ffu_event *ev, cl_int *state, ffu_error *e)
{
	cl_int err = FFU_CL(clGetEventInfo, ev->ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof *state, state, NULL);
	if (err != CL_SUCCESS)
		return ffu__err_cl(e, "clGetEventInfo", err, "CL_EVENT_COMMAND_EXECUTION_STATUS of a run");
	if (*state < 0)
		return ffu__err_cl(e, "a run's commands", *state, "the run failed on the device");
	return FFU_STATUS_OK;
}

ffu_status ffu_event_wait(ffu_event *ev, ffu_error *e)
{
	ffu_error_clear(e);
	if (!ev)
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu_event_wait: event is NULL");
	cl_int err = FFU_CL(clWaitForEvents, 1, &ev->ev);
	cl_int state = CL_COMPLETE;
	ffu_status st = event_state(ev, &state, e);
	if (st == FFU_STATUS_OK && err != CL_SUCCESS)
		st = ffu__err_cl(e, "clWaitForEvents", err, "waiting for a run");
	return st;
}

ffu_status ffu_event_status(const ffu_event *ev, int *complete, ffu_error *e)
{
	ffu_error_clear(e);
	if (!ev || !complete)
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu_event_status: %s is NULL", !ev ? "event" : "complete");
	cl_int state = CL_QUEUED;
	ffu_status st = event_state(ev, &state, e);
	*complete = st == FFU_STATUS_OK && state == CL_COMPLETE;
	return st;
}

cl_event ffu_event_cl(const ffu_event *ev)
{
	return ev ? ev->ev : NULL;
}

void ffu_event_destroy(ffu_event **evp)
{
	if (!evp || !*evp)
		return;
	if ((*evp)->ev)
		clReleaseEvent((*evp)->ev);
	free(*evp);
	*evp = NULL;
}
