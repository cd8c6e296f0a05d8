/*
 * tests/test_cli.c: the `fieldfuse` command line (HLO.md section 5) as a user drives it:
 * the built binary ($FFU_BUILD_ROOT/tools/fieldfuse) is spawned with its stdout and stderr
 * captured in files, and exit codes, messages, value files, JSON and CSV are checked.
 * Every numeric result is compared with values computed here in plain 64-bit arithmetic
 * (BabyBear, p = 0x78000001), not with the program's own interpreter. Device runs use PoCL
 * and Rusticl; a missing device fails the test.
 *
 * Each test owns a fresh temporary directory (suite init/fini) for its programs, value
 * files and captured output. Exit codes as implemented and checked here: 0 success; 1 a
 * runtime failure, which includes a --device selector that matches no device (the same
 * command can work on another machine, so it is not a usage error); 2 bad usage or bad
 * input, which includes an -o path that cannot be created.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <jansson.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fieldfuse/fieldfuse.h"
#include "support.h"

extern char **environ;

#define BB_P 0x78000001u
enum { N = 7, MAX_ARGS = 32, MAX_ENV = 512 };

static char tmpdir[64];

static void make_dir(void)
{
	strcpy(tmpdir, "/tmp/ffu_cli_XXXXXX");
	cr_assert_not_null(mkdtemp(tmpdir));
}

static void drop_dir(void)
{
	ffu_test_remove_tree(tmpdir);
}

TestSuite(cli, .init = make_dir, .fini = drop_dir, .timeout = 120);

/* tmpdir/name in a static ring, so a test can hold several paths at once. */
static const char *tpath(const char *name)
{
	static char ring[16][256];
	static int next;
	char *p = ring[next++ % 16];
	snprintf(p, 256, "%s/%s", tmpdir, name);
	return p;
}

static const char *write_file(const char *name, const void *data, size_t len)
{
	const char *p = tpath(name);
	FILE *f = fopen(p, "wb");
	cr_assert_not_null(f, "cannot create %s", p);
	cr_assert_eq(fwrite(data, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
	return p;
}

static const char *write_text(const char *name, const char *text)
{
	return write_file(name, text, strlen(text));
}

static bool exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* ---------------------------------------------------------------- running the binary */

typedef struct result {
	int code;      /* exit status */
	char *out;     /* captured stdout, NUL-terminated */
	char *err;     /* captured stderr */
} result;

static void result_free(result *r)
{
	free(r->out);
	free(r->err);
	memset(r, 0, sizeof *r);
}

/*
 * Runs fieldfuse with the NULL-terminated args and, on top of this process's environment
 * minus the variables that change its behaviour, the NULL-terminated "NAME=VALUE" extras.
 * The binary must exit normally: a signal is a test failure, whatever the expected code.
 */
static result cli_env(const char *const *extra_env, const char *const *args)
{
	const char *build = getenv("FFU_BUILD_ROOT");
	cr_assert_not_null(build, "FFU_BUILD_ROOT is not set (meson test sets it)");
	char exe[512], out_path[300], err_path[300];
	snprintf(exe, sizeof exe, "%s/tools/fieldfuse", build);
	snprintf(out_path, sizeof out_path, "%s/.stdout", tmpdir);
	snprintf(err_path, sizeof err_path, "%s/.stderr", tmpdir);

	char *argv[MAX_ARGS + 2];
	int argc = 0;
	argv[argc++] = exe;
	for (int i = 0; args[i]; i++) {
		cr_assert_lt(argc, MAX_ARGS);
		argv[argc++] = (char *)args[i];
	}
	argv[argc] = NULL;

	char *envp[MAX_ENV];
	int n = 0;
	for (char **e = environ; *e && n < MAX_ENV - 16; e++)
		if (strncmp(*e, "FIELDFUSE_DISABLE_FUSION=", 25) && strncmp(*e, "FIELDFUSE_DEVICE=", 17))
			envp[n++] = *e;
	for (int i = 0; extra_env && extra_env[i]; i++) {
		cr_assert_lt(n, MAX_ENV - 1);
		envp[n++] = (char *)extra_env[i];
	}
	envp[n] = NULL;

	posix_spawn_file_actions_t fa;
	cr_assert_eq(posix_spawn_file_actions_init(&fa), 0);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	pid_t pid;
	int rc = posix_spawn(&pid, exe, &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	cr_assert_eq(rc, 0, "cannot start %s: %s", exe, strerror(rc));
	int status;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status), "fieldfuse %s: killed by signal %d", args[0],
		  WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	result r = {.code = WEXITSTATUS(status)};
	r.out = ffu_test_read_file(out_path, NULL);
	r.err = ffu_test_read_file(err_path, NULL);
	cr_assert(r.out && r.err);
	unlink(out_path);
	unlink(err_path);
	return r;
}

#define CLI(...) cli_env(NULL, (const char *const[]){__VA_ARGS__, NULL})
#define CLI_ENV(env, ...) cli_env((const char *const[]){env, NULL}, (const char *const[]){__VA_ARGS__, NULL})

/* ---------------------------------------------------------------- programs and values */

static const char seed_hlo[] =
	"HloModule seed\n"
	"ENTRY %main (x: babybear[7], y: babybear[7]) -> babybear[7] {\n"
	"  %x = babybear[7] parameter(0)\n"
	"  %y = babybear[7] parameter(1)\n"
	"  %sum = babybear[7] add(%x, %y)\n"
	"  ROOT %prod = babybear[7] multiply(%sum, %x)\n"
	"}\n";

static const char tuple_hlo[] =
	"HloModule pair\n"
	"ENTRY %main (x: babybear[7], y: babybear[7]) -> (babybear[7], babybear[7]) {\n"
	"  %x = babybear[7] parameter(0)\n"
	"  %y = babybear[7] parameter(1)\n"
	"  %s = babybear[7] add(%x, %y)\n"
	"  %m = babybear[7] multiply(%s, %x)\n"
	"  ROOT %t = (babybear[7], babybear[7]) tuple(%s, %m)\n"
	"}\n";

/* 'frobnicate' is at line 4, column 20 */
static const char bad_hlo[] = "HloModule m\n"
			      "ENTRY %main {\n"
			      "  %x = babybear[4] parameter(0)\n"
			      "  %y = babybear[4] frobnicate(%x)\n"
			      "}\n";

static const uint32_t xs[N] = {0, 1, BB_P - 1, BB_P - 2, 16, 123456789, 2000000000};
static const uint32_t ys[N] = {BB_P - 1, BB_P - 1, BB_P - 1, 5, 0, 987654321, 1999999999};

static uint32_t seed_expect(int i)
{
	return (uint32_t)(((uint64_t)xs[i] + ys[i]) % BB_P * xs[i] % BB_P);
}

/* x as a text file (decimal and hex, header and comments), y as .bin. */
static void write_inputs(const char **x_txt, const char **y_bin)
{
	char text[512];
	int n = snprintf(text, sizeof text, "# fieldfuse values v1\n# babybear[7]\n");
	for (int i = 0; i < N; i++)
		n += snprintf(text + n, sizeof text - (size_t)n, i % 2 ? "0x%x\n" : "%u\n", xs[i]);
	*x_txt = write_text("x.txt", text);
	unsigned char bin[4 * N];
	for (int i = 0; i < N; i++)
		for (int b = 0; b < 4; b++)
			bin[4 * i + b] = (unsigned char)(ys[i] >> (8 * b));
	*y_bin = write_file("y.bin", bin, sizeof bin);
}

/* The values of a text value file (or of captured stdout): every non-comment line. */
static int parse_values(const char *text, uint32_t *v, int max)
{
	int n = 0;
	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		if (*line != '#' && *line != '\n') {
			cr_assert_lt(n, max, "more values than expected in:\n%s", text);
			char *end;
			unsigned long long x = strtoull(line, &end, 0);
			cr_assert(end != line && (*end == '\n' || *end == '\0'), "bad value line in:\n%s", text);
			v[n++] = (uint32_t)x;
		}
		line = nl ? nl + 1 : NULL;
	}
	return n;
}

static void expect_seed_values(const char *text, const char *what)
{
	uint32_t v[N + 1];
	cr_assert_eq(parse_values(text, v, N + 1), N, "%s: wrong count:\n%s", what, text);
	for (int i = 0; i < N; i++)
		cr_expect_eq(v[i], seed_expect(i), "%s element %d: got %u, want %u", what, i, v[i], seed_expect(i));
}

static char *slurp(const char *path)
{
	char *s = ffu_test_read_file(path, NULL);
	cr_assert_not_null(s, "cannot read %s", path);
	return s;
}

/* kernels from `run --json` output */
static int json_kernels(const char *out)
{
	json_error_t je;
	json_t *j = json_loads(out, 0, &je);
	cr_assert_not_null(j, "run --json output is not JSON (%s):\n%s", je.text, out);
	json_t *k = json_object_get(j, "kernels");
	cr_assert(json_is_integer(k), "%s", out);
	int n = (int)json_integer_value(k);
	json_decref(j);
	return n;
}

/* ---------------------------------------------------------------- run */

static void run_value_files(const char *dev)
{
	const char *x, *y;
	write_inputs(&x, &y);
	char in0[300], in1[300];
	snprintf(in0, sizeof in0, "0=%s", x);  /* by index */
	snprintf(in1, sizeof in1, "y=%s", y);  /* by name */
	const char *prog = write_text("seed.hlo", seed_hlo);

	/* text to a file: header lines, then the values; nothing on stdout */
	const char *out_txt = tpath("out.txt");
	result r = CLI("run", prog, "--input", in0, "--input", in1, "--device", dev, "-o", out_txt);
	cr_assert_eq(r.code, 0, "stderr:\n%s", r.err);
	cr_expect_str_eq(r.out, "");
	char *text = slurp(out_txt);
	cr_expect(strncmp(text, "# fieldfuse values v1\n# babybear[7]\n", 36) == 0, "%s", text);
	expect_seed_values(text, "text output");
	free(text);
	result_free(&r);

	/* .bin: raw little-endian */
	const char *out_bin = tpath("out.bin");
	r = CLI("run", prog, "--input", in0, "--input", in1, "--device", dev, "-o", out_bin);
	cr_assert_eq(r.code, 0, "stderr:\n%s", r.err);
	size_t len = 0;
	char *bin = ffu_test_read_file(out_bin, &len);
	cr_assert_not_null(bin);
	cr_assert_eq(len, 4 * N);
	for (int i = 0; i < N; i++) {
		const unsigned char *b = (const unsigned char *)bin + 4 * i;
		uint32_t v = b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24;
		cr_expect_eq(v, seed_expect(i), ".bin element %d: got %u", i, v);
	}
	free(bin);
	result_free(&r);

	/* no -o: values on stdout; --check's verdict then goes to stderr */
	r = CLI("run", prog, "--input", in0, "--input", in1, "--device", dev, "--check");
	cr_assert_eq(r.code, 0, "stderr:\n%s", r.err);
	expect_seed_values(r.out, "stdout");
	cr_expect_str_eq(r.err, "check: ok (7 elements)\n");
	result_free(&r);

	/* with -o the verdict is on stdout */
	r = CLI("run", prog, "--input", in0, "--input", in1, "--device", dev, "--check", "-o", out_txt);
	cr_assert_eq(r.code, 0, "stderr:\n%s", r.err);
	cr_expect_str_eq(r.out, "check: ok (7 elements)\n");
	cr_expect_str_eq(r.err, "");
	result_free(&r);

	/* --json: the device it ran on */
	r = CLI("run", prog, "--input", in0, "--input", in1, "--device", dev, "--json", "--check");
	cr_assert_eq(r.code, 0, "stderr:\n%s", r.err);
	json_t *j = json_loads(r.out, 0, NULL);
	cr_assert_not_null(j, "%s", r.out);
	cr_expect(json_is_string(json_object_get(j, "device")));
	cr_expect(json_is_string(json_object_get(j, "device_name")));
	cr_expect(json_is_number(json_object_get(j, "kernel_ms")));
	cr_expect_str_eq(json_string_value(json_object_get(j, "check")), "ok");
	const char *name = json_string_value(json_object_get(j, "device_name"));
	cr_expect(name && (strcmp(dev, "pocl") != 0 || strstr(name, "pthread") || strstr(name, "cpu")),
		  "pocl device name '%s'", name ? name : "");
	cr_expect(name && (strcmp(dev, "rusticl") != 0 || strstr(name, "llvmpipe")), "rusticl device name '%s'",
		  name ? name : "");
	json_decref(j);
	result_free(&r);
}

Test(cli, run_value_files_pocl)
{
	run_value_files("pocl");
}

Test(cli, run_value_files_rusticl)
{
	run_value_files("rusticl");
}

Test(cli, run_tuple_text_output)
{
	const char *x, *y;
	write_inputs(&x, &y);
	char in0[300], in1[300];
	snprintf(in0, sizeof in0, "x=%s", x);
	snprintf(in1, sizeof in1, "1=%s", y);
	const char *prog = write_text("pair.hlo", tuple_hlo), *out = tpath("pair.txt");
	result r = CLI("run", prog, "--input", in0, "--input", in1, "--device", "pocl", "--check", "-o", out);
	cr_assert_eq(r.code, 0, "stderr:\n%s", r.err);
	cr_expect_str_eq(r.out, "check: ok (14 elements)\n");
	char *text = slurp(out);
	cr_expect(strstr(text, "# output 0: babybear[7]\n"), "%s", text);
	cr_expect(strstr(text, "# output 1: babybear[7]\n"), "%s", text);
	uint32_t v[2 * N + 1];
	cr_assert_eq(parse_values(text, v, 2 * N + 1), 2 * N, "%s", text);
	for (int i = 0; i < N; i++) {
		cr_expect_eq(v[i], (uint32_t)(((uint64_t)xs[i] + ys[i]) % BB_P), "sum %d", i);
		cr_expect_eq(v[N + i], seed_expect(i), "product %d", i);
	}
	free(text);
	result_free(&r);

	/* a .bin holds one output: refused, and no file appears */
	const char *bin = tpath("pair.bin");
	r = CLI("run", prog, "--input", in0, "--input", in1, "--device", "pocl", "-o", bin);
	cr_expect_eq(r.code, 2);
	cr_expect(strstr(r.err, "one output"), "%s", r.err);
	cr_expect(!exists(bin));
	result_free(&r);
}

Test(cli, no_fuse_and_kill_switch)
{
	const char *prog = write_text("seed.hlo", seed_hlo);
	const char *a = tpath("fused.txt"), *b = tpath("unfused.txt"), *c = tpath("env.txt");
	result r = CLI("run", prog, "--random", "11", "--device", "pocl", "--json", "-o", a);
	cr_assert_eq(r.code, 0, "%s", r.err);
	cr_expect_eq(json_kernels(r.out), 1);
	result_free(&r);

	r = CLI("run", prog, "--random", "11", "--device", "pocl", "--json", "--no-fuse", "-o", b);
	cr_assert_eq(r.code, 0, "%s", r.err);
	cr_expect_eq(json_kernels(r.out), 2, "--no-fuse: one kernel per op");
	result_free(&r);

	r = CLI_ENV("FIELDFUSE_DISABLE_FUSION=1", "run", prog, "--random", "11", "--device", "pocl", "--json", "-o", c);
	cr_assert_eq(r.code, 0, "%s", r.err);
	cr_expect_eq(json_kernels(r.out), 2, "FIELDFUSE_DISABLE_FUSION=1 acts as --no-fuse");
	result_free(&r);

	r = CLI_ENV("FIELDFUSE_DISABLE_FUSION=0", "run", prog, "--random", "11", "--device", "pocl", "--json");
	cr_assert_eq(r.code, 0, "%s", r.err);
	cr_expect_eq(json_kernels(r.out), 1, "FIELDFUSE_DISABLE_FUSION=0 leaves fusion on");
	result_free(&r);

	char *ta = slurp(a), *tb = slurp(b), *tc = slurp(c);
	cr_expect_str_eq(ta, tb, "fused and unfused results differ");
	cr_expect_str_eq(ta, tc);
	free(ta);
	free(tb);
	free(tc);

	/* compile sees the same switch: two kernels in the OpenCL C */
	r = CLI_ENV("FIELDFUSE_DISABLE_FUSION=1", "compile", prog, "--emit", "hlo");
	cr_assert_eq(r.code, 0, "%s", r.err);
	int fusions = 0;
	for (const char *s = r.out; (s = strstr(s, " fusion(")); s++)
		fusions++;
	cr_expect_eq(fusions, 2, "%s", r.out);
	result_free(&r);
}

Test(cli, device_selection)
{
	const char *prog = write_text("seed.hlo", seed_hlo);
	/* a selector that matches nothing: exit 1 (runtime), the devices present are listed */
	const char *out = write_text("keep.txt", "old contents\n");
	result r = CLI("run", prog, "--random", "1", "--device", "no-such-device", "-o", out);
	cr_expect_eq(r.code, 1, "stderr:\n%s", r.err);
	cr_expect(strstr(r.err, "error: no OpenCL device matches 'no-such-device'"), "%s", r.err);
	cr_expect(strstr(r.err, "pocl") || strstr(r.err, "Portable Computing Language"), "%s", r.err);
	cr_expect_str_eq(r.out, "");
	/* the run failed: the old output is untouched, not truncated or half-written */
	char *text = slurp(out);
	cr_expect_str_eq(text, "old contents\n");
	free(text);
	result_free(&r);

	r = CLI("run", prog, "--random", "1", "--device", "9:9");
	cr_expect_eq(r.code, 1, "%s", r.err);
	result_free(&r);

	/* by index, as `devices` lists them */
	r = CLI("run", prog, "--random", "1", "--device", "0:0", "--json");
	cr_expect_eq(r.code, 0, "%s", r.err);
	json_t *j = json_loads(r.out, 0, NULL);
	cr_assert_not_null(j, "%s", r.out);
	cr_expect_str_eq(json_string_value(json_object_get(j, "device")), "0:0");
	json_decref(j);
	result_free(&r);

	/* --device with no value is a usage error */
	r = CLI("run", prog, "--random", "1", "--device");
	cr_expect_eq(r.code, 2);
	cr_expect(strstr(r.err, "--device needs a value"), "%s", r.err);
	result_free(&r);
}

Test(cli, random_is_deterministic)
{
	const char *prog = write_text("seed.hlo", seed_hlo);
	const char *a = tpath("a.txt"), *b = tpath("b.txt"), *c = tpath("c.txt"), *d = tpath("d.txt");
	result r = CLI("run", prog, "--random", "1234", "--device", "pocl", "-o", a);
	cr_assert_eq(r.code, 0, "%s", r.err);
	result_free(&r);
	r = CLI("run", prog, "--random", "1234", "--device", "pocl", "-o", b);
	cr_assert_eq(r.code, 0, "%s", r.err);
	result_free(&r);
	/* the inputs come from the seed, not from the device */
	r = CLI("run", prog, "--random", "1234", "--device", "rusticl", "--check", "-o", c);
	cr_assert_eq(r.code, 0, "%s", r.err);
	cr_expect_str_eq(r.out, "check: ok (7 elements)\n");
	result_free(&r);
	r = CLI("run", prog, "--random", "1235", "--device", "pocl", "-o", d);
	cr_assert_eq(r.code, 0, "%s", r.err);
	result_free(&r);

	char *ta = slurp(a), *tb = slurp(b), *tc = slurp(c), *td = slurp(d);
	cr_expect_str_eq(ta, tb, "same seed, different output");
	cr_expect_str_eq(ta, tc, "same seed on another device, different output");
	cr_expect_str_neq(ta, td, "different seeds gave identical outputs");
	uint32_t v[N];
	cr_expect_eq(parse_values(ta, v, N), N);
	for (int i = 0; i < N; i++)
		cr_expect_lt(v[i], BB_P);
	free(ta);
	free(tb);
	free(tc);
	free(td);

	r = CLI("run", prog, "--random", "abc", "--device", "pocl");
	cr_expect_eq(r.code, 2);
	cr_expect(strstr(r.err, "--random 'abc'"), "%s", r.err);
	result_free(&r);
}

/*
 * --random gives an fft's twiddles operand ZKX's table (the root's powers), for which alone
 * the transform is defined: random twiddles made --check report every element.
 */
Test(cli, random_twiddles_are_roots)
{
	const char *prog = write_text("tw.hlo", "HloModule tw\nENTRY %m {\n"
						 "  %x = goldilocks_mont[2,64] parameter(0)\n"
						 "  %w = goldilocks_mont[64] parameter(1)\n"
						 "  %y = goldilocks_mont[2,64] fft(%x, %w), fft_type=IFFT, fft_length=64\n"
						 "  %a = babybear[32] parameter(2)\n  %v = babybear[32] parameter(3)\n"
						 "  %b = babybear[32] fft(%a, %v), fft_type=FFT, fft_length=32\n"
						 "  ROOT %t = (goldilocks_mont[2,64], babybear[32]) tuple(%y, %b)\n}\n");
	for (int d = 0; d < 2; d++) {
		result r = CLI("run", prog, "--random", "5", "--device", d ? "rusticl" : "pocl", "--check", "-o",
			       tpath("tw.txt"));
		cr_assert_eq(r.code, 0, "%s", r.err);
		cr_expect_str_eq(r.out, "check: ok (160 elements)\n");
		result_free(&r);
	}
}

/* FIELDFUSE_PROFILE=1: one line per launch, every kernel of the plan once (util/config.h). */
Test(cli, profile_lines)
{
	const char *prog = write_text("prof.hlo", "HloModule prof\nENTRY %m {\n"
						   "  %a = babybear[4,1024] parameter(0)\n"
						   "  %b = babybear[4,1024] fft(%a), fft_type=IFFT, fft_length=1024\n"
						   "  ROOT %c = babybear[4,1024] multiply(%b, %b)\n}\n");
	for (int d = 0; d < 2; d++) {
		const char *dev = d ? "rusticl" : "pocl";
		char fixture[512];
		snprintf(fixture, sizeof fixture, "%s/tests/fixtures/caps/%s.json", getenv("FFU_SOURCE_ROOT"),
			 d ? "rusticl_llvmpipe" : "pocl_cpu");
		result plan = CLI("compile", prog, "--emit", "plan", "--target", fixture);
		cr_assert_eq(plan.code, 0, "%s", plan.err);
		int kernels = 0;
		for (const char *q = strstr(plan.out, "  kernel "); q; q = strstr(q + 1, "  kernel "))
			kernels++;
		cr_assert_geq(kernels, 5, "%s", plan.out);
		result r = CLI_ENV("FIELDFUSE_PROFILE=1", "run", prog, "--random", "3", "--device", dev, "--check");
		cr_assert_eq(r.code, 0, "%s", r.err);
		int lines = 0;
		for (const char *q = strstr(r.err, "profile: ffu_k"); q; q = strstr(q + 1, "profile: ffu_k"))
			lines++;
		cr_expect_eq(lines, kernels, "%s: %d lines for the plan's %d kernels\n%s", dev, lines, kernels, r.err);
		cr_expect(strstr(r.err, "profile: ffu_k0_p0: 512 work-items in groups of 16: "), "%s", r.err);
		cr_expect(strstr(r.err, "check: ok (4096 elements)"), "%s", r.err);
		result_free(&r);
		r = CLI_ENV("FIELDFUSE_PROFILE=0", "run", prog, "--random", "3", "--device", dev);
		cr_assert_eq(r.code, 0, "%s", r.err);
		cr_expect_null(strstr(r.err, "profile:"), "%s", r.err);
		result_free(&r);
		result_free(&plan);
	}
}

Test(cli, missing_and_unknown_inputs)
{
	const char *x, *y;
	write_inputs(&x, &y);
	char in0[300], bad[300];
	snprintf(in0, sizeof in0, "0=%s", x);
	snprintf(bad, sizeof bad, "zz=%s", x);
	const char *prog = write_text("seed.hlo", seed_hlo);

	result r = CLI("run", prog, "--input", in0, "--device", "pocl");
	cr_expect_eq(r.code, 2);
	cr_expect(strstr(r.err, "parameter 1 (y) has no input"), "%s", r.err);
	cr_expect_str_eq(r.out, "");
	result_free(&r);

	r = CLI("run", prog, "--input", in0, "--input", bad, "--device", "pocl");
	cr_expect_eq(r.code, 2);
	cr_expect(strstr(r.err, "'zz="), "%s", r.err);
	cr_expect(strstr(r.err, "no such parameter"), "%s", r.err);
	result_free(&r);

	r = CLI("run", prog, "--input", in0, "--input", in0, "--random", "1");
	cr_expect_eq(r.code, 2);
	cr_expect(strstr(r.err, "parameter 0 (x) given twice"), "%s", r.err);
	result_free(&r);

	r = CLI("run", prog, "--input", "0=", "--random", "1");
	cr_expect_eq(r.code, 2);
	cr_expect(strstr(r.err, "expected N=FILE or NAME=FILE"), "%s", r.err);
	result_free(&r);

	const char *missing = tpath("missing.txt");
	char in_missing[300];
	snprintf(in_missing, sizeof in_missing, "1=%s", missing);
	r = CLI("run", prog, "--input", in0, "--input", in_missing, "--device", "pocl");
	cr_expect_eq(r.code, 2);
	cr_expect(strncmp(r.err, missing, strlen(missing)) == 0 && strstr(r.err, ": error: cannot open"), "%s",
		  r.err);
	result_free(&r);
}

Test(cli, malformed_hlo_position)
{
	const char *prog = write_text("bad.hlo", bad_hlo);
	char want[400];
	snprintf(want, sizeof want, "%s:4:20: error: unknown opcode 'frobnicate'\n", prog);
	result r = CLI("run", prog, "--random", "1", "--device", "pocl");
	cr_expect_eq(r.code, 2);
	cr_expect_str_eq(r.err, want);
	cr_expect_str_eq(r.out, "");
	result_free(&r);
	r = CLI("compile", prog);
	cr_expect_eq(r.code, 2);
	cr_expect_str_eq(r.err, want);
	result_free(&r);

	/* a verifier error points at the offending instruction */
	const char *shape = write_text("shape.hlo", "HloModule m\n"
						    "ENTRY %main {\n"
						    "  %x = babybear[4] parameter(0)\n"
						    "  %y = babybear[8] parameter(1)\n"
						    "  ROOT %s = babybear[4] add(%x, %y)\n"
						    "}\n");
	r = CLI("compile", shape);
	cr_expect_eq(r.code, 2);
	char prefix[400];
	snprintf(prefix, sizeof prefix, "%s:5:8: error: ", shape);
	cr_expect(strncmp(r.err, prefix, strlen(prefix)) == 0, "%s", r.err);
	result_free(&r);

	const char *missing = tpath("nope.hlo");
	r = CLI("run", missing, "--random", "1");
	cr_expect_eq(r.code, 2);
	cr_expect(strstr(r.err, "nope.hlo: error: cannot open"), "%s", r.err);
	result_free(&r);
}

/*
 * --dialect (docs/hlo.md "Dialects"): ZKX up to 2026-01 reads a plain babybear as Montgomery
 * form, so value files hold raw Montgomery integers (x * 2^32 mod p) and constants are
 * canonical numbers; a `_std` name selects that dialect by itself, with a note on stderr.
 */
static const char zkx_hlo[] =
	"ENTRY %main {\n"
	"  %x = babybear[2] parameter(0)\n"
	"  %c = babybear[2] constant({1, 2})\n"
	"  ROOT %r = babybear[2] multiply(%x, %c)\n"
	"}\n";

Test(cli, dialect_zkx_2026_01)
{
	const char *prog = write_text("zkx.hlo", zkx_hlo);
	/* x = (3, 5) canonical, given as 3R, 5R mod p; x * (1, 2) = (3, 10) comes back as 3R, 10R. */
	const char *in = write_text("x.txt", "805306362\n1342177270\n");
	char spec[300];
	snprintf(spec, sizeof spec, "0=%s", in);
	result r = CLI("run", prog, "--dialect", "zkx-2026.01", "--input", spec, "--device", "pocl", "--check");
	cr_assert_eq(r.code, 0, "stderr:\n%s", r.err);
	cr_expect(strstr(r.out, "# babybear_mont[2]\n805306362\n671088619\n"), "%s", r.out);
	cr_expect_str_eq(r.err, "check: ok (2 elements)\n");
	result_free(&r);
	/* The fieldfuse dialect reads the same text and values as canonical. */
	const char *small = write_text("x2.txt", "3\n5\n");
	snprintf(spec, sizeof spec, "0=%s", small);
	r = CLI("run", prog, "--dialect", "fieldfuse", "--input", spec, "--device", "pocl");
	cr_assert_eq(r.code, 0, "stderr:\n%s", r.err);
	cr_expect(strstr(r.out, "# babybear[2]\n3\n10\n"), "%s", r.out);
	result_free(&r);
	/* The printed program is in the fieldfuse dialect: the constant as its raw Montgomery form. */
	r = CLI("compile", prog, "--dialect=zkx-2026.01", "--no-fuse");
	cr_assert_eq(r.code, 0, "stderr:\n%s", r.err);
	cr_expect(strstr(r.out, "%c = babybear_mont[2] constant({268435454, 536870908})\n"), "%s", r.out);
	cr_expect_str_eq(r.err, "");
	result_free(&r);

	/* A `_std` name chooses zkx-2026.01 and says where. */
	const char *std = write_text("std.hlo", "ENTRY %main {\n"
						"  %x = babybear[2] parameter(0)\n"
						"  ROOT %s = babybear_std[2] convert(%x)\n"
						"}\n");
	r = CLI("compile", std);
	cr_assert_eq(r.code, 0, "stderr:\n%s", r.err);
	char want[400];
	snprintf(want, sizeof want, "%s:3:13: note: a `_std` type or MONT(...) layout selects dialect zkx-2026.01", std);
	cr_expect(strncmp(r.err, want, strlen(want)) == 0, "%s", r.err);
	cr_expect(strstr(r.out, "%x = babybear_mont[2] parameter(0)\n"), "%s", r.out);
	cr_expect(strstr(r.out, "= babybear[2] convert(%param.1)\n"), "%s", r.out);
	result_free(&r);
	/* Explicit --dialect fieldfuse: no note, plain stays canonical. */
	r = CLI("compile", std, "--dialect", "fieldfuse");
	cr_assert_eq(r.code, 0, "stderr:\n%s", r.err);
	cr_expect_str_eq(r.err, "");
	cr_expect(strstr(r.out, "%x = babybear[2] parameter(0)\n"), "%s", r.out);
	result_free(&r);

	/* Bad values and bad layouts are usage errors (exit 2) with positions. */
	r = CLI("run", prog, "--dialect", "zkx", "--random", "1");
	cr_expect_eq(r.code, 2);
	cr_expect_str_eq(r.err, "fieldfuse: error: run: --dialect takes auto, fieldfuse or zkx-2026.01, not 'zkx'\n");
	result_free(&r);
	r = CLI("compile", prog, "--dialect");
	cr_expect_eq(r.code, 2);
	cr_expect(strstr(r.err, "--dialect needs a value"), "%s", r.err);
	result_free(&r);
	const char *tiled = write_text("tiled.hlo", "ENTRY %main {\n  %x = babybear[8]{0:T(8)} parameter(0)\n}\n");
	r = CLI("compile", tiled);
	cr_expect_eq(r.code, 2);
	snprintf(want, sizeof want, "%s:2:22: error: layout attribute 'T(...)' (tiling) is not supported\n", tiled);
	cr_expect_str_eq(r.err, want);
	result_free(&r);
}

/*
 * A plain ZKX extension name is Montgomery form in zkx-2026.01: the value file holds each
 * coefficient's raw Montgomery word (babybear R mod p = 268435454), and so does the output:
 * 1 * 1 = 1 and u * u = u^2. A coefficient >= p is refused with its position; the same
 * words read in the fieldfuse dialect are canonical numbers.
 */
Test(cli, ext_mont_value_files)
{
	const char *prog = write_text("x4.hlo", "ENTRY %main {\n  %x = babybearx4[2] parameter(0)\n"
						"  ROOT %m = babybearx4[2] multiply(%x, %x)\n}\n");
	const char *in = write_text("x4.txt", "268435454 0 0 0\n0 268435454 0 0\n");
	char spec[300];
	snprintf(spec, sizeof spec, "0=%s", in);
	result r = CLI("run", prog, "--dialect", "zkx-2026.01", "--input", spec, "--device", "pocl", "--check");
	cr_assert_eq(r.code, 0, "stderr:\n%s", r.err);
	cr_expect(strstr(r.out, "# babybearx4_mont[2]\n268435454 0 0 0\n0 0 268435454 0\n"), "%s", r.out);
	cr_expect_str_eq(r.err, "check: ok (2 elements)\n");
	result_free(&r);
	r = CLI("run", prog, "--dialect", "fieldfuse", "--input", spec, "--device", "pocl");
	cr_assert_eq(r.code, 0, "stderr:\n%s", r.err);
	/* canonical: 268435454^2 mod p = 1172168163 */
	cr_expect(strstr(r.out, "# babybearx4[2]\n1172168163 0 0 0\n0 0 1172168163 0\n"), "%s", r.out);
	result_free(&r);
	const char *big = write_text("x4big.txt", "1 2 3 4\n1 2 2013265921 4\n");
	snprintf(spec, sizeof spec, "0=%s", big);
	r = CLI("run", prog, "--dialect", "zkx-2026.01", "--input", spec, "--device", "pocl");
	cr_expect_eq(r.code, 2);
	cr_expect(strstr(r.err, "x4big.txt:2:"), "%s", r.err);
	cr_expect(strstr(r.err, "not less than the field modulus"), "%s", r.err);
	result_free(&r);
}

/*
 * BLS12-381's Fq2 end to end: a text value file of two-coefficient lines of 115-digit
 * numbers in, u^2 = -1 and (p - 1)^2 = 1 out (checked against the interpreter on PoCL), and
 * a coefficient equal to p rejected with its file and line (exit 2).
 */
Test(cli, pairing_base_value_files)
{
#define FQ_PM1 "4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272559786"
	const char *prog = write_text("fq2.hlo", "ENTRY %main {\n  %x = bls12_381_bfx2[3] parameter(0)\n"
						 "  ROOT %m = bls12_381_bfx2[3] multiply(%x, %x)\n}\n");
	const char *in = write_text("fq2.txt", "# u, -1, 2 + u\n0 1\n" FQ_PM1 " 0\n2 1\n");
	char spec[300];
	snprintf(spec, sizeof spec, "0=%s", in);
	result r = CLI("run", prog, "--input", spec, "--device", "pocl", "--check");
	cr_assert_eq(r.code, 0, "stderr:\n%s", r.err);
	/* (2 + u)^2 = 4 + 4u + u^2 = 3 + 4u */
	cr_expect(strstr(r.out, "# bls12_381_bfx2[3]\n" FQ_PM1 " 0\n1 0\n3 4\n"), "%s", r.out);
	cr_expect_str_eq(r.err, "check: ok (3 elements)\n");
	result_free(&r);
	const char *big = write_text("fq2big.txt", "0 1\n1 " FQ_PM1 "\n2 4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272559787\n");
	snprintf(spec, sizeof spec, "0=%s", big);
	r = CLI("run", prog, "--input", spec, "--device", "pocl");
	cr_expect_eq(r.code, 2);
	cr_expect(strstr(r.err, "fq2big.txt:3:"), "%s", r.err);
	cr_expect(strstr(r.err, "not less than the field modulus"), "%s", r.err);
	result_free(&r);
#undef FQ_PM1
}

Test(cli, value_not_below_p)
{
	const char *prog = write_text("seed.hlo", seed_hlo);
	/* line 4 holds p itself (line 1 is a comment) */
	const char *vals = write_text("big.txt", "# x\n1\n2\n2013265921\n4\n5\n6\n7\n");
	char spec[300], want[400];
	snprintf(spec, sizeof spec, "0=%s", vals);
	snprintf(want, sizeof want, "%s:4: error: ", vals);
	result r = CLI("run", prog, "--input", spec, "--random", "1", "--device", "pocl");
	cr_expect_eq(r.code, 2);
	cr_expect(strncmp(r.err, want, strlen(want)) == 0, "%s", r.err);
	cr_expect(strstr(r.err, "not less than the field modulus"), "%s", r.err);
	result_free(&r);

	/* the same in a .bin: the element is named (no lines in a binary file) */
	unsigned char bin[4 * N] = {0};
	bin[4 * 2 + 0] = 0x01;
	bin[4 * 2 + 3] = 0x78; /* element 2 = p */
	const char *b = write_file("big.bin", bin, sizeof bin);
	snprintf(spec, sizeof spec, "1=%s", b);
	r = CLI("run", prog, "--input", spec, "--random", "1", "--device", "pocl");
	cr_expect_eq(r.code, 2);
	cr_expect(strstr(r.err, "element 2 is not less than the babybear modulus"), "%s", r.err);
	result_free(&r);

	/* wrong count and junk are bad input too */
	const char *few = write_text("few.txt", "1\n2\n3\n");
	snprintf(spec, sizeof spec, "0=%s", few);
	r = CLI("run", prog, "--input", spec, "--random", "1", "--device", "pocl");
	cr_expect_eq(r.code, 2);
	cr_expect(strstr(r.err, "too few values"), "%s", r.err);
	result_free(&r);
	const char *junk = write_text("junk.txt", "1\n2\nabc\n4\n5\n6\n7\n");
	snprintf(spec, sizeof spec, "0=%s", junk);
	snprintf(want, sizeof want, "%s:3: error: ", junk);
	r = CLI("run", prog, "--input", spec, "--random", "1", "--device", "pocl");
	cr_expect_eq(r.code, 2);
	cr_expect(strncmp(r.err, want, strlen(want)) == 0, "%s", r.err);
	result_free(&r);
}

Test(cli, usage_errors)
{
	const char *prog = write_text("seed.hlo", seed_hlo);
	result r = CLI("frobnicate");
	cr_expect_eq(r.code, 2);
	cr_expect(strncmp(r.err, "fieldfuse: error: unknown command 'frobnicate'\n", 47) == 0, "%s", r.err);
	result_free(&r);

	r = cli_env(NULL, (const char *const[]){NULL});
	cr_expect_eq(r.code, 2);
	cr_expect(strstr(r.err, "usage:"), "%s", r.err);
	result_free(&r);

	r = CLI("--help");
	cr_expect_eq(r.code, 0);
	cr_expect(strstr(r.out, "usage:") && strstr(r.out, "fieldfuse run"), "%s", r.out);
	result_free(&r);

	static const char *const cases[][4] = {
		{"run", "PROG", "--frob", NULL},
		{"run", NULL},
		{"run", "PROG", "PROG", NULL},
		{"run", "PROG", "-o", NULL},
		{"run", "PROG", "--input", NULL},
		{"run", "PROG", "--mpi-timeout", "-1"},
		{"run", "PROG", "--mpi-timeout", "soon"},
		{"run", "PROG", "--device", "@rank"},
		{"compile", "PROG", "--frob", NULL},
		{"compile", "PROG", "--emit", "ptx"},
		{"compile", NULL},
		{"bench", "--frob", NULL},
		{"bench", "no_such_workload", NULL},
		{"bench", "--k", "x", NULL},
		{"bench", "--runs", "0", NULL},
		{"devices", "--frob", NULL},
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		const char *args[5] = {0};
		for (int i = 0; i < 4 && cases[c][i]; i++)
			args[i] = strcmp(cases[c][i], "PROG") == 0 ? prog : cases[c][i];
		r = cli_env(NULL, args);
		cr_expect_eq(r.code, 2, "case %zu (%s %s): exit %d, stderr:\n%s", c, args[0], args[1] ? args[1] : "",
			     r.code, r.err);
		cr_expect(strstr(r.err, "fieldfuse: error: "), "case %zu: %s", c, r.err);
		cr_expect_str_eq(r.out, "", "case %zu prints nothing on stdout", c);
		result_free(&r);
	}
}

/* ---------------------------------------------------------------- compile */

Test(cli, compile_hlo_round_trip)
{
	const char *x, *y;
	write_inputs(&x, &y);
	char in0[300], in1[300];
	snprintf(in0, sizeof in0, "0=%s", x);
	snprintf(in1, sizeof in1, "1=%s", y);
	const char *prog = write_text("seed.hlo", seed_hlo), *fused = tpath("fused.hlo");

	result r = CLI("compile", prog, "--emit", "hlo", "-o", fused);
	cr_assert_eq(r.code, 0, "%s", r.err);
	cr_expect_str_eq(r.out, "");
	result_free(&r);
	char *text = slurp(fused);
	cr_expect(strstr(text, "fusion(") && strstr(text, "kind=kLoop") && strstr(text, "calls=%"), "%s", text);
	free(text);

	/* the fused module is valid input: it runs, gives the same values, passes --check */
	const char *o1 = tpath("o1.txt"), *o2 = tpath("o2.txt");
	r = CLI("run", prog, "--input", in0, "--input", in1, "--device", "pocl", "-o", o1);
	cr_assert_eq(r.code, 0, "%s", r.err);
	result_free(&r);
	r = CLI("run", fused, "--input", in0, "--input", in1, "--device", "rusticl", "--check", "-o", o2);
	cr_assert_eq(r.code, 0, "%s", r.err);
	cr_expect_str_eq(r.out, "check: ok (7 elements)\n");
	result_free(&r);
	char *t1 = slurp(o1), *t2 = slurp(o2);
	cr_expect_str_eq(t1, t2);
	expect_seed_values(t2, "fused HLO run");
	free(t1);
	free(t2);

	/* compiling the fused module again changes nothing (stdout by default) */
	r = CLI("compile", fused);
	cr_assert_eq(r.code, 0, "%s", r.err);
	text = slurp(fused);
	cr_expect_str_eq(r.out, text);
	free(text);
	result_free(&r);
}

static int count(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *s = hay; (s = strstr(s, needle)); s += strlen(needle))
		n++;
	return n;
}

Test(cli, compile_cl_and_dumps)
{
	const char *prog = write_text("seed.hlo", seed_hlo);
	result r = CLI("compile", prog, "--emit", "cl");
	cr_assert_eq(r.code, 0, "%s", r.err);
	cr_expect_eq(count(r.out, "__kernel"), 1, "fused: one kernel");
	result_free(&r);
	r = CLI("compile", prog, "--emit", "cl", "--no-fuse");
	cr_assert_eq(r.code, 0, "%s", r.err);
	cr_expect_eq(count(r.out, "__kernel"), 2, "unfused: one kernel per op");
	result_free(&r);
	const char *cl = tpath("p.cl");
	r = CLI("compile", prog, "--emit=cl", "-o", cl);
	cr_assert_eq(r.code, 0, "%s", r.err);
	char *text = slurp(cl);
	cr_expect(strstr(text, "__kernel"));
	free(text);
	result_free(&r);

	/* dumps go to stderr, the result to stdout as usual */
	r = CLI("compile", prog, "--dump-after", "fusion");
	cr_assert_eq(r.code, 0, "%s", r.err);
	cr_expect(strstr(r.err, "// ---- after pass fusion ----\nHloModule seed\n"), "%s", r.err);
	cr_expect(strstr(r.err, "fusion("), "%s", r.err);
	cr_expect(strstr(r.out, "HloModule seed"), "%s", r.out);
	result_free(&r);
	r = CLI("compile", prog, "--dump-after=all", "--emit", "cl");
	cr_assert_eq(r.code, 0, "%s", r.err);
	cr_expect(strstr(r.err, "after pass fusion"), "%s", r.err);
	result_free(&r);
	r = CLI("compile", prog, "--dump-after", "no_such_pass");
	cr_expect_eq(r.code, 2);
	cr_expect(strstr(r.err, "no pass named 'no_such_pass'"), "%s", r.err);
	cr_expect_str_eq(r.out, "");
	result_free(&r);
}

/*
 * --emit plan: each fusion's kernels (descriptors) and, for a loop fusion, the statements
 * they are printed from, as the OpenCL C names them; --lanes picks the CPU's wide variant.
 */
Test(cli, compile_plan)
{
	const char *prog = write_text("seed.hlo", seed_hlo);
	result r = CLI("compile", prog, "--emit", "plan");
	cr_assert_eq(r.code, 0, "%s", r.err);
	cr_expect(strstr(r.out, "fusion 0: %"), "%s", r.out);
	cr_expect(strstr(r.out, "  kernel ffu_k0: loop\n    args in0, in1, out0\n  statements:\n"), "%s", r.out);
	cr_expect(strstr(r.out, "\n    store 0 ("), "%s", r.out);
	cr_expect_null(strstr(r.out, "ffu_k0_wide"), "one lane: no wide kernel\n%s", r.out);
	cr_expect_null(strstr(r.out, "__kernel"), "a plan, not the program\n%s", r.out);
	result_free(&r);
	r = CLI("compile", prog, "--emit", "plan", "--lanes", "4");
	cr_assert_eq(r.code, 0, "%s", r.err);
	cr_expect(strstr(r.out, "  kernel ffu_k0_wide: wide, lanes in lockstep, 4 elements per work-item\n"
				"    args in0, in1, out0, stride\n"), "%s", r.out);
	result_free(&r);
	r = CLI("compile", prog, "--emit", "plan", "--no-fuse");
	cr_assert_eq(r.code, 0, "%s", r.err);
	cr_expect(strstr(r.out, "fusion 1: %"), "unfused: one fusion per op\n%s", r.out);
	result_free(&r);
}

/*
 * --target: a fixture's device without the device. The build options lead the program (the
 * vendor checks read them back); the class, carries and lanes are the fixture's own.
 */
Test(cli, compile_for_a_fixture)
{
	const char *prog = write_text("seed.hlo", seed_hlo);
	result r = CLI("compile", prog, "--emit", "cl", "--target", "amd_radeon_vii");
	cr_assert_eq(r.code, 0, "%s", r.err);
	cr_expect_eq(strncmp(r.out, "// build options: -DFFU_VECTOR_LOADS\n// target: amd_radeon_vii: gfx906 (gpu, amd gfx906)", 88), 0,
		     "%s", r.out);
	cr_expect(strstr(r.out, "carries portable, lanes 1\n"), "%s", r.out);
	cr_expect_eq(count(r.out, "__kernel"), 1);
	result_free(&r);
	/* a path works as a name does; NVIDIA gets the carry chains */
	char fixture[512];
	snprintf(fixture, sizeof fixture, "%s/tests/fixtures/caps/nvidia_h200.json", getenv("FFU_SOURCE_ROOT"));
	r = CLI("compile", prog, "--emit", "cl", "--target", fixture);
	cr_assert_eq(r.code, 0, "%s", r.err);
	cr_expect(strstr(r.out, "(gpu, nvidia sm_90)"), "%s", r.out);
	cr_expect(strstr(r.out, "carries ptx, lanes 1\n"), "%s", r.out);
	result_free(&r);
	/* a CPU's 4 lanes, and --lanes overriding them as FIELDFUSE_LANES would: still a CPU */
	r = CLI("compile", prog, "--emit", "cl", "--target", "pocl_cpu");
	cr_assert_eq(r.code, 0, "%s", r.err);
	cr_expect_eq(strncmp(r.out, "// build options:\n", 18), 0, "%s", r.out);
	cr_expect(strstr(r.out, "(cpu, pocl), "), "%s", r.out);
	cr_expect(strstr(r.out, "lanes 4\n"), "%s", r.out);
	result_free(&r);
	r = CLI("compile", prog, "--emit", "cl", "--target", "pocl_cpu", "--lanes", "1");
	cr_assert_eq(r.code, 0, "%s", r.err);
	cr_expect(strstr(r.out, "(cpu, pocl), ") && strstr(r.out, "lanes 1\n"), "%s", r.out);
	result_free(&r);
	/* HLO output has no header: the target changes only the fusion budget there */
	r = CLI("compile", prog, "--target", "amd_radeon_vii");
	cr_assert_eq(r.code, 0, "%s", r.err);
	cr_expect_eq(strncmp(r.out, "HloModule", 9), 0, "%s", r.out);
	result_free(&r);

	/* a missing or malformed fixture is bad input, named */
	r = CLI("compile", prog, "--emit", "cl", "--target", "no_such_device");
	cr_expect_eq(r.code, 2);
	cr_expect(strstr(r.err, "tests/fixtures/caps/no_such_device.json: error: cannot open"), "%s", r.err);
	cr_expect_str_eq(r.out, "");
	result_free(&r);
	const char *bad = write_text("bad.json", "{\"device\": ");
	r = CLI("compile", prog, "--emit", "cl", "--target", bad);
	cr_expect_eq(r.code, 2);
	cr_expect(strstr(r.err, "bad.json:1:11: error: "), "%s", r.err);
	cr_expect_str_eq(r.out, "");
	result_free(&r);
}

/* ---------------------------------------------------------------- outputs are all or nothing */

static bool has_temp_files(void)
{
	DIR *d = opendir(tmpdir);
	cr_assert_not_null(d);
	bool found = false;
	struct dirent *de;
	while ((de = readdir(d)))
		if (strstr(de->d_name, ".tmp"))
			found = true;
	closedir(d);
	return found;
}

Test(cli, no_partial_outputs)
{
	const char *prog = write_text("seed.hlo", seed_hlo);
	const char *nodir = tpath("no_such_dir/out.txt");
	result r = CLI("run", prog, "--random", "1", "--device", "pocl", "-o", nodir);
	cr_expect_eq(r.code, 2, "an -o that cannot be created is bad usage: %s", r.err);
	cr_expect(strstr(r.err, "no_such_dir/out.txt: error: "), "%s", r.err);
	cr_expect(!exists(tpath("no_such_dir")));
	result_free(&r);

	r = CLI("compile", prog, "-o", tpath("no_such_dir/x.hlo"));
	cr_expect_eq(r.code, 2, "%s", r.err);
	result_free(&r);

	/* bad input: the existing file keeps its contents */
	const char *out = write_text("keep.txt", "old\n");
	const char *bad = write_text("bad.txt", "1\n");
	char spec[300];
	snprintf(spec, sizeof spec, "0=%s", bad);
	r = CLI("run", prog, "--input", spec, "--random", "1", "--device", "pocl", "-o", out);
	cr_expect_eq(r.code, 2);
	char *text = slurp(out);
	cr_expect_str_eq(text, "old\n");
	free(text);
	result_free(&r);

	r = CLI("bench", "seed_bb", "--device", "pocl", "--k", "8", "--runs", "1", "--warmup", "0", "--json",
		tpath("no_such_dir/b.json"));
	cr_expect_neq(r.code, 0);
	result_free(&r);
	cr_expect(!has_temp_files(), "a failed write left a temporary file behind");
}

/* ---------------------------------------------------------------- bench and devices */

static const char *str_of(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	cr_assert(json_is_string(v), "key '%s' is not a string", key);
	return json_string_value(v);
}

static double num_of(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	cr_assert(json_is_number(v), "key '%s' is not a number", key);
	return json_number_value(v);
}

static long long int_of(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	cr_assert(json_is_integer(v), "key '%s' is not an integer", key);
	return json_integer_value(v);
}

/* Fields of one CSV line, counting quoted commas as text (device names contain commas). */
static int csv_fields(const char *line, size_t len)
{
	int n = 1;
	bool quoted = false;
	for (size_t i = 0; i < len; i++) {
		if (line[i] == '"')
			quoted = !quoted;
		else if (line[i] == ',' && !quoted)
			n++;
	}
	return n;
}

Test(cli, bench_json_and_csv, .timeout = 300)
{
	const char *jpath = tpath("b.json"), *cpath = tpath("b.csv");
	result r = CLI("bench", "seed_bb", "--device", "pocl", "--k", "10", "--runs", "3", "--json", jpath, "--csv",
		       cpath);
	cr_assert_eq(r.code, 0, "stderr:\n%s", r.err);
	cr_expect(strstr(r.out, "seed_bb"), "the table names the workload:\n%s", r.out);
	result_free(&r);

	json_error_t je;
	json_t *root = json_load_file(jpath, 0, &je);
	cr_assert_not_null(root, "%s: %s (line %d)", jpath, je.text, je.line);
	cr_expect_str_eq(str_of(root, "tool"), "fieldfuse");
	cr_expect_str_eq(str_of(root, "version"), ffu_version(), "the CLI and the library agree on the version");
	const char *timing = str_of(root, "timing");
	cr_expect(!strcmp(timing, "kernel") || !strcmp(timing, "end_to_end"), "timing '%s'", timing);

	json_t *devs = json_object_get(root, "devices");
	cr_assert(json_is_array(devs) && json_array_size(devs) == 1);
	json_t *d = json_array_get(devs, 0);
	const char *dev_id = str_of(d, "id");
	str_of(d, "name");
	str_of(d, "vendor");
	cr_expect_str_eq(str_of(d, "platform"), "Portable Computing Language");
	cr_expect_gt(num_of(d, "copy_gbps"), 0.0);

	json_t *res = json_object_get(root, "results");
	cr_assert(json_is_array(res));
	bool seen[3] = {false};
	static const char *const modes[3] = {"fused", "unfused", "copy"};
	size_t i;
	json_t *row;
	json_array_foreach(res, i, row) {
		cr_expect_str_eq(str_of(row, "device"), dev_id);
		cr_expect_str_eq(str_of(row, "workload"), "seed_bb");
		cr_expect_str_eq(str_of(row, "field"), "babybear");
		cr_expect_eq(int_of(row, "k"), 10);
		cr_expect_eq(int_of(row, "runs"), 3);
		cr_expect_geq(num_of(row, "ms"), 0.0);
		cr_expect_geq(num_of(row, "gbps"), 0.0);
		long long kernels = int_of(row, "kernels");
		const char *mode = str_of(row, "mode");
		for (int m = 0; m < 3; m++)
			if (!strcmp(mode, modes[m]))
				seen[m] = true;
		if (!strcmp(mode, "fused"))
			cr_expect_eq(kernels, 1, "fused seed_bb is one kernel");
		else if (!strcmp(mode, "unfused"))
			cr_expect_eq(kernels, 2, "unfused seed_bb is add + multiply");
		else if (!strcmp(mode, "copy"))
			cr_expect_eq(kernels, 1);
	}
	for (int m = 0; m < 3; m++)
		cr_expect(seen[m], "no result with mode %s", modes[m]);
	size_t n_results = json_array_size(res);
	json_decref(root);

	/* CSV: a header, then one row per JSON result, every row as wide as the header */
	char *csv = slurp(cpath);
	const char *nl = strchr(csv, '\n');
	cr_assert_not_null(nl);
	size_t hlen = (size_t)(nl - csv);
	cr_expect(strncmp(csv, "device,", 7) == 0, "header: %.*s", (int)hlen, csv);
	char header[512];
	snprintf(header, sizeof header, "%.*s", (int)hlen, csv);
	cr_expect(strstr(header, ",workload,") && strstr(header, ",mode,") && strstr(header, ",kernels,") &&
			  strstr(header, ",ms,") && strstr(header, ",gbps,"),
		  "header: %s", header);
	int width = csv_fields(csv, hlen);
	size_t rows = 0;
	for (const char *line = nl + 1; *line;) {
		const char *end = strchr(line, '\n');
		cr_assert_not_null(end, "last CSV line has no newline");
		cr_expect_eq(csv_fields(line, (size_t)(end - line)), width, "row %zu: %.*s", rows, (int)(end - line),
			     line);
		rows++;
		line = end + 1;
	}
	cr_expect_eq(rows, n_results);
	free(csv);
}

Test(cli, devices_plain_and_json)
{
	result r = CLI("devices");
	cr_assert_eq(r.code, 0, "%s", r.err);
	cr_expect(strstr(r.out, "pocl") && strstr(r.out, "rusticl"), "%s", r.out);
	result_free(&r);

	r = CLI("devices", "--json");
	cr_assert_eq(r.code, 0, "%s", r.err);
	json_error_t je;
	json_t *arr = json_loads(r.out, 0, &je);
	cr_assert_not_null(arr, "%s:\n%s", je.text, r.out);
	cr_assert(json_is_array(arr) && json_array_size(arr) >= 2, "%s", r.out);
	bool pocl = false, rusticl = false;
	size_t i;
	json_t *d;
	json_array_foreach(arr, i, d) {
		const char *id = str_of(d, "id"), *cls = str_of(d, "class"), *type = str_of(d, "type");
		int pi, di;
		cr_expect_eq(sscanf(id, "%d:%d", &pi, &di), 2, "id '%s'", id);
		str_of(d, "name");
		str_of(d, "platform");
		cr_expect(!strcmp(type, "cpu") || !strcmp(type, "gpu") || !strcmp(type, "accelerator") ||
				  !strcmp(type, "other"),
			  "type '%s'", type);
		cr_expect_gt(int_of(d, "compute_units"), 0);
		cr_expect_gt(int_of(d, "max_work_group_size"), 0);
		cr_expect_gt(int_of(d, "global_mem_bytes"), 0);
		pocl |= !strcmp(cls, "pocl");
		rusticl |= !strcmp(cls, "rusticl");
	}
	cr_expect(pocl && rusticl, "both CPU implementations are listed:\n%s", r.out);
	json_decref(arr);
	result_free(&r);
}

/*
 * A program of two replicas (docs/hlo.md "Collectives"): --interp simulates both ranks with
 * the same inputs and writes rank 0's outputs: all-reduce of x + replica-id is 2x + 1. On
 * a device the same (both ranks' kernels on it, the all-reduce on the host), --check
 * comparing every rank with the simulation; the element-wise work on each side of the
 * collective fused (fewer kernels than --no-fuse).
 */
static void collectives_on(const char *dev)
{
	const char *prog = write_text("coll.hlo", "HloModule c, replica_count=2\n"
						  "%sum (a: babybear[], b: babybear[]) -> babybear[] {\n"
						  "  %a = babybear[] parameter(0)\n  %b = babybear[] parameter(1)\n"
						  "  ROOT %s = babybear[] add(%a, %b)\n}\n"
						  "ENTRY %main (x: babybear[2]) -> babybear[2] {\n"
						  "  %x = babybear[2] parameter(0)\n  %i = u32[] replica-id()\n"
						  "  %f = babybear[] convert(%i)\n  %b = babybear[2] broadcast(%f), dimensions={}\n"
						  "  %y = babybear[2] add(%x, %b)\n  %z = babybear[2] multiply(%y, %x)\n"
						  "  %r = babybear[2] all-reduce(%z), replica_groups={}, to_apply=%sum\n"
						  "  %s = babybear[2] subtract(%r, %x)\n"
						  "  ROOT %t = babybear[2] multiply(%s, %s)\n}\n");
	const char *x = write_text("coll_x.txt", "1\n2013265920\n");
	char in[400];
	snprintf(in, sizeof in, "0=%s", x);
	/* per element: r = (x + 0) x + (x + 1) x = 2x^2 + x; t = (r - x)^2 = 4x^4 */
	static const uint32_t xs2[2] = {1, BB_P - 1};
	uint32_t want[2];
	for (int k = 0; k < 2; k++) {
		uint64_t x2 = (uint64_t)xs2[k] * xs2[k] % BB_P;
		want[k] = (uint32_t)(4 * (x2 * x2 % BB_P) % BB_P);
	}
	const char *const modes[3][2] = {{"--interp", NULL}, {"--device", dev}, {"--device", dev}};
	int kernels[3] = {0};
	for (int mode = 0; mode < 3; mode++) {
		result r = mode == 0 ? CLI("run", prog, "--interp", "--input", in)
			   : mode == 1 ? CLI("run", prog, "--device", dev, "--input", in, "--check", "--json", "-o", tpath("o.txt"))
				       : CLI("run", prog, "--device", dev, "--input", in, "--check", "--json", "--no-fuse", "-o",
					     tpath("o.txt"));
		cr_expect_eq(r.code, 0, "%s %s: %s", modes[mode][0], dev, r.err);
		char *vals = mode == 0 ? strdup(r.out) : slurp(tpath("o.txt"));
		uint32_t v[2];
		cr_assert_eq(parse_values(vals, v, 2), 2, "%s", vals);
		for (int k = 0; k < 2; k++)
			cr_expect_eq(v[k], want[k], "mode %d element %d", mode, k);
		free(vals);
		if (mode) {
			cr_expect(strstr(r.out, "\"check\": \"ok\""), "%s", r.out);
			kernels[mode] = json_kernels(r.out);
		}
		result_free(&r);
	}
	cr_expect(kernels[1] > 0 && kernels[1] < kernels[2], "fused %d kernels, unfused %d", kernels[1], kernels[2]);
}

Test(cli, collectives_pocl)
{
	collectives_on("pocl");
}

/*
 * The values an SPMD run hands between its segments and collectives live in mapped staging
 * memory (runtime/cl.h). A driver that cannot give any (exhausted) leaves the run on plain
 * memory, same results; any other failure stops it, naming the OpenCL call and its code.
 */
Test(cli, spmd_staging_faults)
{
	const char *prog = write_text("st.hlo", "HloModule st, replica_count=2\n"
						"%sum (a: babybear[], b: babybear[]) -> babybear[] {\n"
						"  %a = babybear[] parameter(0)\n  %b = babybear[] parameter(1)\n"
						"  ROOT %s = babybear[] add(%a, %b)\n}\n"
						"ENTRY %main (x: babybear[8]) -> babybear[8] {\n"
						"  %x = babybear[8] parameter(0)\n  %y = babybear[8] multiply(%x, %x)\n"
						"  %r = babybear[8] all-reduce(%y), replica_groups={}, to_apply=%sum\n"
						"  ROOT %n = babybear[8] negate(%r)\n}\n");
	result r = CLI_ENV("FIELDFUSE_FAULT=clEnqueueMapBuffer:CL_OUT_OF_RESOURCES", "run", prog, "--device", "pocl",
			   "--random", "3", "--check");
	cr_expect_eq(r.code, 0, "exhausted staging memory falls back: %s", r.err);
	cr_expect(strstr(r.err, "check: ok (16 elements)"), "%s", r.err);
	result_free(&r);
	r = CLI_ENV("FIELDFUSE_FAULT=clEnqueueMapBuffer:CL_INVALID_OPERATION", "run", prog, "--device", "pocl", "--random",
		    "3");
	cr_expect_eq(r.code, 1, "%s", r.err);
	cr_expect(strstr(r.err, "clEnqueueMapBuffer") && strstr(r.err, "CL_INVALID_OPERATION"), "%s", r.err);
	cr_expect_str_eq(r.out, "", "no output written on failure");
	result_free(&r);
}

Test(cli, collectives_rusticl)
{
	collectives_on("rusticl");
}
