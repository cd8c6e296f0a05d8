/*
 * tools/cli/cmd_compile.c: `fieldfuse compile`: the fused module as HLO, its kernel plans
 * (--emit plan: each fusion's kernels and the statements they are printed from), or its
 * OpenCL C.
 * --dump-after PASS|all prints the module after a pass (or every pass) to stderr;
 * --disable-pass NAME skips a pass (see passes.h), for bisecting a wrong result.
 * --target FIXTURE generates for a recorded device (tests/fixtures/caps/), with no device
 * here: its fusion budget, its kernels and, as the OpenCL C's first line, the build options
 * its driver would get; tools/gpu/amdgcn_check.sh and ptx_check.sh compile that.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/tool.h"
#include "cli.h"

/*
 * --disable-pass NAME[,NAME...] (repeatable) joined into one list for the pass manager;
 * an unknown name is a usage error here, before any work.
 */
static int add_disabled(char *list, size_t size, const char *names)
{
	ffu_error e = {0};
	size_t n = strlen(list);
	if (ffu_tool_passes_check(names, "--disable-pass", &e)) {
		int rc = cli_usage("compile: %s", e.message);
		ffu_error_clear(&e);
		return rc;
	}
	if ((size_t)snprintf(list + n, size - n, "%s%s", n ? "," : "", names) >= size - n)
		return cli_usage("compile: --disable-pass: list too long");
	return CLI_OK;
}

/*
 * --target NAME|PATH: a path (it has a '/' or ends in .json) as given, a bare name as
 * tests/fixtures/caps/NAME.json of the source tree this binary was built from
 * (FFU_CAPS_DIR), since the fixtures are not installed.
 */
static int target_path(char *path, size_t size, const char *arg)
{
	size_t n = strlen(arg);
	bool bare = !strchr(arg, '/') && !(n >= 5 && strcmp(arg + n - 5, ".json") == 0);
	if ((size_t)snprintf(path, size, bare ? "%s/%s.json" : "%.0s%s", FFU_CAPS_DIR, arg) >= size)
		return cli_usage("compile: --target: name too long");
	return CLI_OK;
}

int cmd_compile(int argc, char **argv)
{
	const char *path = NULL, *emit = "hlo", *out = "-", *dump = NULL, *lanes_arg = NULL, *dis = NULL, *dia = NULL,
		   *target = NULL;
	ffu_dialect dialect = FFU_DIALECT_AUTO;
	char disabled[256] = "", target_file[1024];
	bool no_fuse = false;
	for (int i = 1; i < argc; i++) {
		int r;
		if ((r = cli_opt(argc, argv, &i, "--disable-pass", &dis)) > 0) {
			if ((r = add_disabled(disabled, sizeof disabled, dis)))
				return r;
		} else if (!r && (r = cli_opt(argc, argv, &i, "--dialect", &dia)) > 0) {
			if ((r = cli_dialect("compile", dia, &dialect)))
				return r;
		} else if (r < 0) {
			return cli_usage("compile: %s needs a value", argv[i]);
		} else if ((r = cli_opt(argc, argv, &i, "--emit", &emit)) || (r = cli_opt(argc, argv, &i, "-o", &out)) ||
		    (r = cli_opt(argc, argv, &i, "--dump-after", &dump)) || (r = cli_opt(argc, argv, &i, "--lanes", &lanes_arg)) ||
		    (r = cli_opt(argc, argv, &i, "--target", &target))) {
			if (r < 0)
				return cli_usage("compile: %s needs a value", argv[i]);
		} else if (strcmp(argv[i], "--no-fuse") == 0) {
			no_fuse = true;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return cli_usage("compile: unknown option '%s'", argv[i]);
		} else if (!path) {
			path = argv[i];
		} else {
			return cli_usage("compile: more than one program given ('%s', '%s')", path, argv[i]);
		}
	}
	if (!path)
		return cli_usage("compile: no program given");
	static const char *const emits[] = {[FFU_TOOL_EMIT_HLO] = "hlo", [FFU_TOOL_EMIT_PLAN] = "plan",
					    [FFU_TOOL_EMIT_CL] = "cl"};
	int what = 0;
	while (what < 3 && strcmp(emit, emits[what]) != 0)
		what++;
	if (what == 3)
		return cli_usage("compile: --emit takes hlo, plan or cl, not '%s'", emit);
	/* --emit cl shows one element per work-item unless asked: CPU devices run 4 lanes
	   (--lanes above 1 shows a CPU device's program, as it always has, 1 a GPU's) */
	int lanes = 0;
	if (lanes_arg) {
		char *end;
		long v = strtol(lanes_arg, &end, 10);
		if (!*lanes_arg || *end || v < 1 || v > 16)
			return cli_usage("compile: --lanes takes 1..16, not '%s'", lanes_arg);
		lanes = (int)v;
	}
	if (dump && !ffu_tool_pass_known(dump))
		return cli_usage("compile: --dump-after: no pass named '%s' (passes: %s; or all)", dump,
				 ffu_tool_pass_names());
	int rc;
	if (target && (rc = target_path(target_file, sizeof target_file, target)))
		return rc;

	ffu_error e = {0};
	ffu_program *p = NULL;
	char *text = NULL;
	rc = CLI_OK;
	ffu_tool_compile_opts co = {.no_fuse = no_fuse, .disable_passes = disabled, .dump_after = dump,
				    .dump_to = stderr, .target = target ? target_file : NULL, .target_name = target,
				    .lanes = lanes};
	ffu_status st = cli_load_program(path, dialect, &p, &e);
	if (st == FFU_STATUS_OK)
		st = ffu_tool_emit_program(&text, p, (ffu_tool_emit)what, &co, &e);
	if (st == FFU_STATUS_OK)
		st = ffu_tool_write_file(out, text, strlen(text), &e);
	if (st)
		rc = cli_fail(&e);
	free(text);
	ffu_program_destroy(&p);
	ffu_error_clear(&e);
	return rc;
}
