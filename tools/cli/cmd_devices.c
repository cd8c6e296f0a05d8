/* tools/cli/cmd_devices.c: `fieldfuse devices [--json]`: every OpenCL platform and device. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "runtime/cl.h"

static const char *type_name(cl_device_type t)
{
	return t & CL_DEVICE_TYPE_GPU ? "gpu" : t & CL_DEVICE_TYPE_CPU ? "cpu" : t & CL_DEVICE_TYPE_ACCELERATOR ? "accelerator" : "other";
}

int cmd_devices(int argc, char **argv)
{
	bool json = false;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0)
			json = true;
		else
			return cli_usage("devices: unknown argument '%s'", argv[i]);
	}
	ffu_error e = {0};
	ffu_device_info *devs = NULL;
	int n = 0;
	ffu_status st = ffu__cl_list_devices(&devs, &n, &e);
	if (st)
		return cli_fail(&e);
	if (json) {
		json_t *arr = json_array();
		for (int i = 0; i < n; i++) {
			const ffu_device_info *d = &devs[i];
			json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:I, s:I, s:I, s:I}",
				"id", d->id, "name", d->name, "vendor", d->vendor, "platform", d->platform_name,
				"class", ffu__cl_vendor_str(d->vendor_class), "type", type_name(d->type),
				"version", d->version, "driver", d->driver, "compute_units", (int)d->compute_units,
				"max_work_group_size", (json_int_t)d->max_wg, "global_mem_bytes", (json_int_t)d->global_mem,
				"max_alloc_bytes", (json_int_t)d->max_alloc, "local_mem_bytes", (json_int_t)d->local_mem));
		}
		json_dumpf(arr, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
		json_decref(arr);
	} else {
		for (int i = 0; i < n; i++) {
			const ffu_device_info *d = &devs[i];
			printf("%-5s %-40s %-28s %-8s %3u CUs  %6.1f GiB  max wg %zu\n", d->id, d->name, d->platform_name,
			       ffu__cl_vendor_str(d->vendor_class), d->compute_units, (double)d->global_mem / (1u << 30),
			       d->max_wg);
		}
	}
	free(devs);
	return CLI_OK;
}
