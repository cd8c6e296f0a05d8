/*
 * tools/cli/cmd_devices.c: `fieldfuse devices [--json]`: every OpenCL platform and device,
 * its capabilities, the profile fieldfuse would use and the work-group size an element-wise
 * launch would get (the report: src/api/tool_devices.c).
 */
#include <stdio.h>
#include <string.h>

#include "api/tool.h"
#include "cli.h"

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
	int rc = ffu_tool_devices_report(stdout, json, &e) ? cli_fail(&e) : CLI_OK;
	ffu_error_clear(&e);
	return rc;
}
