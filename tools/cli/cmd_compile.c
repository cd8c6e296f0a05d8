/*
 * tools/cli/cmd_compile.c: `fieldfuse compile`: the fused module as HLO, or its OpenCL C.
 * --dump-after PASS|all prints the module after a pass (or every pass) to stderr;
 * --disable-pass NAME skips a pass (see passes.h), for bisecting a wrong result.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "codegen/codegen.h"
#include "device/target.h"
#include "hlo/hlo.h"
#include "passes/passes.h"
#include "runtime/compile.h"
#include "util/file.h"
#include "util/strbuf.h"

static ffu_status write_text(FILE *f, void *arg, ffu_error *e)
{
	const ffu_strbuf *sb = arg;
	if (sb->len && fwrite(sb->data, 1, sb->len, f) != sb->len)
		return ffu__err(e, FFU_STATUS_EIO, "write failed");
	return FFU_STATUS_OK;
}

/*
 * --disable-pass NAME[,NAME...] (repeatable) joined into one list for the pass manager;
 * an unknown name is a usage error here, before any work.
 */
static int add_disabled(char *list, size_t size, const char *names)
{
	ffu_error e = {0};
	size_t n = strlen(list);
	if (ffu__pass_check_list(names, "--disable-pass", &e))
		return cli_usage("compile: %s", e.message);
	if ((size_t)snprintf(list + n, size - n, "%s%s", n ? "," : "", names) >= size - n)
		return cli_usage("compile: --disable-pass: list too long");
	return CLI_OK;
}

int cmd_compile(int argc, char **argv)
{
	const char *path = NULL, *emit = "hlo", *out = "-", *dump = NULL, *lanes_arg = NULL, *dis = NULL, *dia = NULL;
	ffu_dialect dialect = FFU_DIALECT_AUTO;
	char disabled[256] = "";
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
		    (r = cli_opt(argc, argv, &i, "--dump-after", &dump)) || (r = cli_opt(argc, argv, &i, "--lanes", &lanes_arg))) {
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
	if (strcmp(emit, "hlo") != 0 && strcmp(emit, "cl") != 0)
		return cli_usage("compile: --emit takes hlo or cl, not '%s'", emit);
	/* --emit cl shows one element per work-item unless asked: CPU devices run 4 lanes */
	int lanes = 1;
	if (lanes_arg) {
		char *end;
		long v = strtol(lanes_arg, &end, 10);
		if (!*lanes_arg || *end || v < 1 || v > 16)
			return cli_usage("compile: --lanes takes 1..16, not '%s'", lanes_arg);
		lanes = (int)v;
	}
	if (dump && !ffu__pass_known(dump))
		return cli_usage("compile: --dump-after: no pass named '%s' (passes: %s; or all)", dump, ffu__pass_names());

	ffu_error e = {0};
	ffu_module *m = NULL;
	ffu_strbuf sb = {0};
	int rc = CLI_OK, n_kernels = 0;
	ffu_compile_opts co = {.no_fuse = no_fuse, .verified = true, .disable = disabled, .dump_after = dump,
			       .dump_to = stderr};
	ffu_status st = cli_load(path, dialect, &m, &e);
	if (st == FFU_STATUS_OK)
		st = ffu__compile_module(m, NULL, &co, &e);
	/* --lanes above 1 shows a CPU device's program (as it always has), 1 a GPU's */
	ffu_target t;
	ffu__target_generic(&t, lanes > 1 ? FFU_DEVICE_CLASS_CPU : FFU_DEVICE_CLASS_GPU, lanes);
	if (st == FFU_STATUS_OK)
		st = strcmp(emit, "hlo") == 0 ? ffu__hlo_print(&sb, m, &e) : ffu__codegen_program(&sb, m, &t, &n_kernels, &e);
	if (st == FFU_STATUS_OK)
		st = ffu__file_write_atomic(out, write_text, &sb, &e);
	if (st)
		rc = cli_fail(&e);
	ffu__sb_free(&sb);
	ffu__module_free(m);
	ffu_error_clear(&e);
	return rc;
}
