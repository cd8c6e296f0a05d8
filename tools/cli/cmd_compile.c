/*
 * tools/cli/cmd_compile.c: `fieldfuse compile`: the fused module as HLO, or its OpenCL C.
 * --dump-after PASS|all prints the module after a pass (or every pass) to stderr;
 * --disable-pass NAME skips a pass (see passes.h), for bisecting a wrong result.
 * --target FIXTURE generates for a recorded device (tests/fixtures/caps/), with no device
 * here: its fusion budget, its kernels and, as the OpenCL C's first line, the build options
 * its driver would get; tools/gpu/amdgcn_check.sh and ptx_check.sh compile that.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "codegen/codegen.h"
#include "device/caps.h"
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

/*
 * --target NAME|PATH: a path (it has a '/' or ends in .json) as given, a bare name as
 * tests/fixtures/caps/NAME.json of the source tree this binary was built from
 * (FFU_CAPS_DIR), since the fixtures are not installed.
 */
static ffu_status load_target(ffu_target *t, ffu_device_info *dev, const char *arg, ffu_error *e)
{
	char path[1024];
	size_t n = strlen(arg), len = 0;
	char *text = NULL;
	bool bare = !strchr(arg, '/') && !(n >= 5 && strcmp(arg + n - 5, ".json") == 0);
	if (bare && (size_t)snprintf(path, sizeof path, "%s/%s.json", FFU_CAPS_DIR, arg) >= sizeof path)
		return ffu__err(e, FFU_STATUS_EINVAL, "--target: name too long");
	ffu_status st = ffu__file_read(bare ? path : arg, &text, &len, e);
	if (st == FFU_STATUS_OK)
		st = ffu__target_from_json(t, dev, text, len, bare ? path : arg, e);
	free(text);
	return st;
}

/*
 * The build options first, as a comment the checkers read back (tools/gpu/amdgcn_check.sh,
 * ptx_check.sh), then what decided them: the program alone is not what the device compiles.
 */
static void print_target_header(ffu_strbuf *sb, const ffu_target *t, const ffu_device_info *dev, const char *arg)
{
	ffu__sb_printf(sb, "// build options:%s%s\n", t->build_options[0] ? " " : "", t->build_options);
	ffu__sb_printf(sb, "// target: %s: %s (%s, %s%s%s), profile %s; carries %s, lanes %d\n", arg, dev->name,
		       ffu__device_class_str(t->cls), ffu__vendor_str(dev->vendor_class), dev->arch[0] ? " " : "",
		       dev->arch, t->profile.source, t->carries, t->profile.lanes);
}

int cmd_compile(int argc, char **argv)
{
	const char *path = NULL, *emit = "hlo", *out = "-", *dump = NULL, *lanes_arg = NULL, *dis = NULL, *dia = NULL,
		   *target = NULL;
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
	ffu_target t;
	ffu_device_info dev = {0};
	ffu_status st = FFU_STATUS_OK;
	if (target) {
		/* the device's fusion budget too: a fixture with a small parameter space splits fusions */
		if ((st = load_target(&t, &dev, target, &e)) == FFU_STATUS_OK)
			co.max_params = dev.max_kernel_args;
		/* --lanes overrides the device's lanes as FIELDFUSE_LANES would; its class stays */
		if (lanes_arg)
			t.profile.lanes = lanes;
	} else {
		/* --lanes above 1 shows a CPU device's program (as it always has), 1 a GPU's */
		ffu__target_generic(&t, lanes > 1 ? FFU_DEVICE_CLASS_CPU : FFU_DEVICE_CLASS_GPU, lanes);
	}
	co.dot_reduce_results = t.dot_reduce_results; /* the target's, as a context's compile takes */
	if (st == FFU_STATUS_OK)
		st = cli_load(path, dialect, &m, &e);
	if (st == FFU_STATUS_OK)
		st = ffu__compile_module(m, NULL, &co, &e);
	if (st == FFU_STATUS_OK && target && strcmp(emit, "cl") == 0)
		print_target_header(&sb, &t, &dev, target);
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
