/*
 * src/api/tool_devices.c: the device report of `fieldfuse devices [--json]` (api/tool.h):
 * every OpenCL platform and device, its capabilities (src/device/caps.c), the profile
 * fieldfuse would use (built-in table, tuning database, environment) and the work-group
 * size an element-wise launch would get (a probe kernel is built on each device for its
 * kernel limits: drivers lower them per kernel).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/tool.h"
#include "device/launch.h"
#include "device/profile.h"
#include "device/tuning_db.h"
#include "runtime/cache.h"
#include "runtime/cl.h"

/* A large element-wise launch: the size every full work-group of a run gets. */
#define PROBE_N ((size_t)1 << 24)

typedef struct view {
	ffu_profile prof;
	bool tuned_found;
	char tuning_error[1300]; /* room for ffu_error's file and message */
	size_t wg;           /* 0 when the plan fails (an invalid FIELDFUSE_WG_SIZE) */
	const char *wg_origin;
	char wg_error[1100];
	bool disk_cache;     /* builds would go through the disk program cache */
	ffu_kernel_limits kernel; /* of a probe kernel; 0 = unknown */
	char probe_error[1100];
} view;

/* An element-wise kernel like the ones fieldfuse generates, to ask for real kernel limits. */
static const char *const probe_src = "__kernel void ffu_probe(__global uint *x) { x[get_global_id(0)] += 1u; }\n";

/*
 * The kernel limits of a probe kernel on d: drivers lower them per kernel (Rusticl on
 * llvmpipe allows 32 work-items per group to every kernel, whatever the device says).
 * On failure the limits stay unknown (0) and *why says what failed.
 */
static void probe_kernel(const ffu_device_info *d, ffu_kernel_limits *k, char *why, size_t cap)
{
	ffu_cl cl = {0};
	cl_program prog = NULL;
	cl_kernel kern = NULL;
	ffu_error e = {0};
	memset(k, 0, sizeof *k);
	bool opened = ffu__cl_open(&cl, d, &e) == FFU_STATUS_OK;
	if (opened)
		ffu__cl_set_disk_cache(&cl, false); /* a listing writes nothing */
	if (!opened || ffu__cl_build(&cl, &prog, probe_src, NULL, &e) ||
	    ffu__cl_kernel(prog, &kern, "ffu_probe", &e) || ffu__cl_kernel_limits(&cl, kern, k, &e))
		snprintf(why, cap, "%s", e.message);
	ffu__cl_kernel_release(&kern);
	ffu__cl_program_release(&prog);
	ffu__cl_close(&cl);
	ffu_error_clear(&e);
}

/* What a context opened on d would choose: the tuning entry, the profile, the launch plan. */
static void resolve(view *v, ffu_device_info *d)
{
	ffu_error e = {0};
	memset(v, 0, sizeof *v);
	if (ffu__tuning_lookup(&d->tuned, &v->tuned_found, d, &e) != FFU_STATUS_OK)
		snprintf(v->tuning_error, sizeof v->tuning_error, "%s%s%s", e.file, e.file[0] ? ": " : "", e.message);
	ffu_error_clear(&e);
	ffu_target t; /* as a context resolves it: the profile, FIELDFUSE_WG_SIZE */
	ffu__target_resolve(&t, d);
	v->prof = t.profile;
	const char *disk = getenv("FIELDFUSE_PROGRAM_CACHE"); /* as ffu__cl_open decides */
	v->disk_cache = disk && *disk ? strcmp(disk, "0") != 0 : ffu__progcache_disk_default(d->vendor_class, d->type);
	probe_kernel(d, &v->kernel, v->probe_error, sizeof v->probe_error);
	ffu_launch_request r = {.n = PROBE_N};
	ffu_launch_plan plan;
	r.env_wg = t.wg_env;
	if (t.wg_env_error[0])
		snprintf(v->wg_error, sizeof v->wg_error, "%s", t.wg_env_error);
	else if (ffu__launch_plan(&plan, d, &v->kernel, &v->prof, &r, &e))
		snprintf(v->wg_error, sizeof v->wg_error, "%s", e.message);
	else
		v->wg = plan.local, v->wg_origin = plan.origin;
	ffu_error_clear(&e);
}

static json_t *view_json(const ffu_device_info *d, const view *v)
{
	json_t *o = ffu__caps_to_json(d);
	if (!o)
		return NULL;
	json_object_set_new(o, "profile",
			    json_pack("{s:I, s:i, s:i, s:i, s:s, s:s}", "wg", (json_int_t)v->prof.wg, "lanes", v->prof.lanes,
				      "vector_width", v->prof.vector_width, "limb_bits", v->prof.limb_bits, "carry_chains",
				      ffu__profile_carries(&v->prof, d), "source", v->prof.source));
	json_object_set_new(o, "tuning", json_pack("{s:b}", "found", v->tuned_found));
	json_object_set_new(o, "disk_program_cache", json_boolean(v->disk_cache));
	json_object_set_new(o, "fusion_max_kernel_args", json_integer(d->max_kernel_args));
	json_object_set_new(o, "kernel_work_group_size", json_integer((json_int_t)v->kernel.max_wg));
	json_object_set_new(o, "kernel_preferred_multiple", json_integer((json_int_t)v->kernel.preferred_multiple));
	if (v->probe_error[0])
		json_object_set_new(o, "kernel_probe_error", json_string(v->probe_error));
	if (v->tuning_error[0])
		json_object_set_new(json_object_get(o, "tuning"), "error", json_string(v->tuning_error));
	if (v->wg) {
		json_object_set_new(o, "work_group_size", json_integer((json_int_t)v->wg));
		json_object_set_new(o, "work_group_size_from", json_string(v->wg_origin));
	} else {
		json_object_set_new(o, "work_group_size", json_null());
		json_object_set_new(o, "work_group_size_error", json_string(v->wg_error));
	}
	return o;
}

static void print_text(FILE *out, const ffu_device_info *d, const view *v)
{
	fprintf(out, "%-5s %-40s %-28s %-8s %3u CUs  %6.1f GiB  max wg %zu\n", d->id, d->name, d->platform_name,
	       ffu__vendor_str(d->vendor_class), d->compute_units, (double)d->global_mem / (1u << 30), d->max_wg);
	fprintf(out, "      %s, %s, driver %s, %s\n", ffu__device_type_str(d->type), d->version, d->driver,
	       d->int64 ? "int64" : "no int64");
	fprintf(out, "      local %llu KiB, max alloc %.1f GiB, max args %zu B (kernels of up to %d buffers), work-items "
	       "%zux%zux%zu, preferred multiple %zu\n",
	       (unsigned long long)(d->local_mem >> 10), (double)d->max_alloc / (1u << 30), d->max_param_size, d->max_kernel_args,
	       d->max_work_item_sizes[0], d->max_work_item_sizes[1], d->max_work_item_sizes[2], d->preferred_wg_multiple);
	if (d->arch[0] || d->warp_width || d->board_name[0])
		fprintf(out, "      arch %s, warp %u%s%s\n", d->arch[0] ? d->arch : "?", d->warp_width,
		       d->board_name[0] ? ", board " : "", d->board_name);
	fprintf(out, "      profile: wg %zu, lanes %d, vector %d, limb %d bits, carry chains %s (%s)\n", v->prof.wg,
	       v->prof.lanes, v->prof.vector_width, v->prof.limb_bits, ffu__profile_carries(&v->prof, d), v->prof.source);
	if (v->tuning_error[0])
		fprintf(out, "      tuning database ignored: %s\n", v->tuning_error);
	if (v->probe_error[0])
		fprintf(out, "      kernel limits unknown: %s\n", v->probe_error);
	else
		fprintf(out, "      element-wise kernel: at most %zu work-items per group, preferred multiple %zu\n", v->kernel.max_wg,
		       v->kernel.preferred_multiple);
	if (v->wg)
		fprintf(out, "      element-wise launches: work-groups of %zu (%s); disk program cache %s\n", v->wg, v->wg_origin,
		       v->disk_cache ? "on" : "off");
	else
		fprintf(out, "      element-wise launches fail: %s\n", v->wg_error);
}

ffu_status ffu_tool_devices_report(FILE *out, int json, ffu_error *e)
{
	ffu_error_clear(e);
	ffu_device_info *devs = NULL;
	int n = 0;
	ffu_status st = ffu__cl_list_devices(&devs, &n, e);
	if (st)
		return st;
	json_t *arr = json ? json_array() : NULL;
	if (json && !arr)
		st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	for (int i = 0; i < n && st == FFU_STATUS_OK; i++) {
		view v;
		resolve(&v, &devs[i]);
		if (json)
			json_array_append_new(arr, view_json(&devs[i], &v));
		else
			print_text(out, &devs[i], &v);
	}
	if (st == FFU_STATUS_OK && json && (json_dumpf(arr, out, JSON_INDENT(2)) != 0 || fputc('\n', out) == EOF))
		st = ffu__err(e, FFU_STATUS_EIO, "writing the device list failed");
	json_decref(arr);
	free(devs);
	return st;
}
