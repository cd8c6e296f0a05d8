/*
 * tests/test_faults.c: driver failure paths and device limits. OpenCL calls are made to
 * fail through the fault layer (ocl/ocl.h), in the library and through the CLI
 * (FIELDFUSE_FAULT): every failure must come back as a status plus a message naming the
 * call and the CL_... code, with no abort, no leak (the ASan and valgrind runs of the suite
 * check that) and no output file left behind. Buffers beyond the device's limits must be
 * refused, with the sizes named, before any buffer is created or kernel enqueued.
 *
 * Ownership: each test arms its own faults (Criterion forks per test, so the process-wide
 * table starts empty) and releases every object it creates. Runs on PoCL; the limits also
 * on Rusticl. A missing device is a failure.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hlo/hlo.h"
#include "ir/value.h"
#include "passes/passes.h"
#include "ocl/ocl.h"
#include "runtime/exec.h"
#include "support.h"

/* 1100 is no multiple of any work-group size and more than one group, with 4 lanes too (275
   work-items): every launch has whole groups and a tail. */
static const char *const program =
	"HloModule faults\n"
	"ENTRY %main (x: babybear[1100], y: babybear[1100]) -> (babybear[1100], babybear[1100]) {\n"
	"  %x = babybear[1100] parameter(0)\n"
	"  %y = babybear[1100] parameter(1)\n"
	"  %c = babybear[] constant(7)\n"
	"  %bc = babybear[1100] broadcast(%c), dimensions={}\n"
	"  %s = babybear[1100] add(%x, %y)\n"
	"  %m = babybear[1100] multiply(%s, %bc)\n"
	"  ROOT %r = (babybear[1100], babybear[1100]) tuple(%s, %m)\n"
	"}\n";

static void prepare(void)
{
	setenv("RUSTICL_ENABLE", "llvmpipe", 1);
	unsetenv("FIELDFUSE_DEVICE");
	unsetenv("FIELDFUSE_WG_SIZE");
	unsetenv("FIELDFUSE_FAULT");
}

/*
 * The whole library path (select, open, compile, upload, timed run, download) with `call`
 * failing with `code` after `after` good calls; returns the first failure's status (OK if
 * the fault never fired) with *e filled. Everything is released whatever happens.
 */
static ffu_status run_program(const char *device, const char *call, cl_int code, unsigned after, bool fuse,
			      ffu_error *e)
{
	ffu_module *m = NULL;
	ffu_device_info dev;
	ffu_cl cl = {0};
	ffu_exec *x = NULL;
	ffu_value in[2], *out = NULL;
	int n_out = 0;
	uint64_t seed = 5;
	double ms = 0;

	memset(in, 0, sizeof in);

	ffu__cl_fault_clear();
	if (call)
		cr_assert_eq(ffu__cl_fault_set(call, code, after, e), FFU_STATUS_OK, "%s", e->message);
	cr_assert_eq(ffu__hlo_parse(&m, program, strlen(program), "faults.hlo", e), FFU_STATUS_OK, "%s", e->message);
	ffu_pass_opts po = {.fuse = fuse};
	cr_assert_eq(ffu__passes_run(m, &po, e), FFU_STATUS_OK, "%s", e->message);
	for (int p = 0; p < 2; p++) {
		cr_assert_eq(ffu__value_alloc(&in[p], &m->entry->params[p]->shape, e), FFU_STATUS_OK);
		ffu__value_random(&in[p], &seed);
	}
	ffu_status st;
	cl_uint refs_open = 0, refs_after = 0;
	if ((st = ffu__cl_select(&dev, device, e)) == FFU_STATUS_OK && (st = ffu__cl_open(&cl, &dev, e)) == FFU_STATUS_OK) {
		cr_assert_eq(clGetContextInfo(cl.ctx, CL_CONTEXT_REFERENCE_COUNT, sizeof refs_open, &refs_open, NULL),
			     CL_SUCCESS);
		if ((st = ffu__exec_create(&x, &cl, m, e)) == FFU_STATUS_OK &&
		    (st = ffu__exec_upload(x, in, 2, e)) == FFU_STATUS_OK && (st = ffu__exec_run(x, &ms, NULL, e)) == FFU_STATUS_OK)
			st = ffu__exec_download(x, &out, &n_out, e);
	}
	if (st)
		cr_assert_null(out);
	ffu__exec_destroy(&x);
	cr_assert_null(x);
	ffu__cl_forget_programs(&cl); /* the context's program cache holds one reference by design */
	/*
	 * Buffers, programs and kernels hold their context (PoCL counts them), so the count is
	 * back where it was after open only if every OpenCL object of the run was released: the
	 * sanitizer runs cannot see a leaked driver object behind the drivers' suppressions.
	 * The queue is drained first (directly, not through the fault layer): with clFinish
	 * itself failing, commands of the failed run may still hold their objects. PoCL's
	 * worker threads drop a finished command's references shortly after clFinish returns,
	 * so the count is given up to a second to settle.
	 */
	if (cl.ctx) {
		cr_assert_eq(clFinish(cl.queue), CL_SUCCESS);
		for (int i = 0; i < 100; i++) {
			cr_assert_eq(clGetContextInfo(cl.ctx, CL_CONTEXT_REFERENCE_COUNT, sizeof refs_after, &refs_after,
						      NULL),
				     CL_SUCCESS);
			if (refs_after == refs_open)
				break;
			usleep(10000);
		}
		cr_assert_eq(refs_after, refs_open, "%s failing after %u: context references %u after the run, %u before",
			     call ? call : "nothing", after, refs_after, refs_open);
	}
	ffu__cl_close(&cl);
	for (int o = 0; o < n_out; o++)
		ffu__value_free(&out[o]);
	free(out);
	ffu__value_free(&in[0]);
	ffu__value_free(&in[1]);
	ffu__module_free(m);
	ffu__cl_fault_clear();
	return st;
}

/* The failure is the injected one, reported by name. */
static void expect_fault(ffu_status st, const ffu_error *e, ffu_status want, const char *call, cl_int code)
{
	const char *name = ffu_cl_error_name(code);
	cr_assert_eq(st, want, "%s -> %s: status %d (%s): %s", call, name, st, ffu_status_str(st), e->message);
	cr_assert_eq(e->status, want);
	cr_assert_str_eq(e->cl_call, call);
	cr_assert_eq(e->cl_code, code);
	cr_assert(strstr(e->message, call), "message does not name %s: %s", call, e->message);
	cr_assert(strstr(e->message, name), "message does not name %s: %s", name, e->message);
}

static void one_fault(const char *call, cl_int code, unsigned after, ffu_status want)
{
	ffu_error e = {0};
	prepare();
	ffu_status st = run_program("pocl", call, code, after, true, &e);
	expect_fault(st, &e, want, call, code);
	ffu_error_clear(&e);
}

Test(faults, build_failure)
{
	ffu_error e = {0};
	prepare();
	ffu_status st = run_program("pocl", "clBuildProgram", CL_BUILD_PROGRAM_FAILURE, 0, true, &e);
	expect_fault(st, &e, FFU_STATUS_EBUILD, "clBuildProgram", CL_BUILD_PROGRAM_FAILURE);
	cr_assert_not_null(e.build_log, "a build failure carries the build log (or why there is none)");
	ffu_error_clear(&e);
}

Test(faults, build_out_of_resources)
{
	/* not the program's fault: an OpenCL failure, not a build failure */
	one_fault("clBuildProgram", CL_OUT_OF_RESOURCES, 0, FFU_STATUS_ECL);
}

Test(faults, launch_out_of_resources)
{
	one_fault("clEnqueueNDRangeKernel", CL_OUT_OF_RESOURCES, 0, FFU_STATUS_ECL);
}

Test(faults, launch_tail_out_of_resources)
{
	/* the whole groups went in, their tail did not: the first event must still be released */
	one_fault("clEnqueueNDRangeKernel", CL_OUT_OF_RESOURCES, 1, FFU_STATUS_ECL);
}

Test(faults, enqueue_invalid_work_group_size)
{
	one_fault("clEnqueueNDRangeKernel", CL_INVALID_WORK_GROUP_SIZE, 0, FFU_STATUS_ECL);
}

Test(faults, buffer_allocation_failure)
{
	one_fault("clCreateBuffer", CL_MEM_OBJECT_ALLOCATION_FAILURE, 0, FFU_STATUS_ECL);
}

Test(faults, buffer_allocation_failure_midway)
{
	/* parameters and the constant have buffers by then, the fusion output does not */
	one_fault("clCreateBuffer", CL_MEM_OBJECT_ALLOCATION_FAILURE, 3, FFU_STATUS_ECL);
}

Test(faults, device_not_available)
{
	ffu_error e = {0};
	ffu_device_info dev;
	ffu_cl cl;
	prepare();
	cr_assert_eq(ffu__cl_select(&dev, "pocl", &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu__cl_fault_set("clCreateContext", CL_DEVICE_NOT_AVAILABLE, 0, &e), FFU_STATUS_OK);
	ffu_status st = ffu__cl_open(&cl, &dev, &e);
	expect_fault(st, &e, FFU_STATUS_ECL, "clCreateContext", CL_DEVICE_NOT_AVAILABLE);
	cr_assert_null(cl.ctx);
	cr_assert_null(cl.queue);
	cr_assert(strstr(e.message, dev.name), "message does not name the device: %s", e.message);
	ffu__cl_close(&cl); /* harmless on what a failed open leaves */
	ffu_error_clear(&e);
}

Test(faults, queue_failure_releases_context)
{
	one_fault("clCreateCommandQueueWithProperties", CL_OUT_OF_HOST_MEMORY, 0, FFU_STATUS_ECL);
}

/*
 * Every hooked call, failing at its first, second, third and fourth use, fused and
 * unfused: each either never fires (the path makes fewer calls) or fails with that call
 * named. This walks every cleanup path of runtime/cl_*.c and exec.c once.
 */
Test(faults, every_call_every_position, .timeout = 300)
{
	static const char *const calls[] = {
		"clGetPlatformIDs", "clGetPlatformInfo", "clGetDeviceIDs", "clGetDeviceInfo",
		"clCreateContext", "clCreateCommandQueueWithProperties", "clCreateBuffer",
		"clEnqueueWriteBuffer", "clEnqueueReadBuffer", "clCreateProgramWithSource",
		"clBuildProgram", "clGetProgramBuildInfo", "clCreateKernel", "clSetKernelArg",
		"clGetKernelWorkGroupInfo", "clEnqueueNDRangeKernel", "clFinish", "clWaitForEvents",
		"clGetEventProfilingInfo",
	};
	prepare();
	int fired = 0;
	for (size_t c = 0; c < sizeof calls / sizeof calls[0]; c++) {
		for (unsigned after = 0; after < 4; after++) {
			for (int fuse = 0; fuse < 2; fuse++) {
				ffu_error e = {0};
				ffu_status st = run_program("pocl", calls[c], CL_OUT_OF_RESOURCES, after, fuse, &e);
				if (st == FFU_STATUS_OK) {
					/* only asked for after a failed build */
					cr_assert(after > 0 || strcmp(calls[c], "clGetProgramBuildInfo") == 0,
						  "%s never failed at its first call", calls[c]);
				} else if (strcmp(calls[c], "clGetProgramBuildInfo") != 0) {
					expect_fault(st, &e, FFU_STATUS_ECL, calls[c], CL_OUT_OF_RESOURCES);
					fired++;
				}
				ffu_error_clear(&e);
			}
		}
	}
	cr_assert_gt(fired, 40);
}

Test(faults, build_log_query_fails)
{
	/* both the build and the log query fail: the log says why there is none */
	ffu_error e = {0};
	prepare();
	cr_assert_eq(ffu__cl_fault_set("clGetProgramBuildInfo", CL_INVALID_PROGRAM, 0, &e), FFU_STATUS_OK);
	ffu_status st = run_program("pocl", "clBuildProgram", CL_BUILD_PROGRAM_FAILURE, 0, true, &e);
	cr_assert_eq(st, FFU_STATUS_EBUILD, "%s", e.message);
	ffu_error_clear(&e);
}

Test(faults, set_rejects_bad_names)
{
	ffu_error e = {0};
	cr_assert_eq(ffu__cl_fault_set("CreateBuffer", CL_OUT_OF_RESOURCES, 0, &e), FFU_STATUS_EINVAL);
	cr_assert_eq(ffu__cl_fault_set("clCreate Buffer", CL_OUT_OF_RESOURCES, 0, &e), FFU_STATUS_EINVAL);
	cr_assert_eq(ffu__cl_fault_set("clFinish", CL_SUCCESS, 0, &e), FFU_STATUS_EINVAL);
	cr_assert_eq(ffu__cl_fault_set(NULL, CL_OUT_OF_RESOURCES, 0, &e), FFU_STATUS_EINVAL);
	for (int i = 0; i < FFU_CL_FAULT_MAX; i++)
		cr_assert_eq(ffu__cl_fault_set("clFinish", CL_OUT_OF_RESOURCES, 100, &e), FFU_STATUS_OK);
	cr_assert_eq(ffu__cl_fault_set("clFinish", CL_OUT_OF_RESOURCES, 0, &e), FFU_STATUS_ELIMIT);
	ffu__cl_fault_clear();
	cr_assert_eq(ffu__cl_fault_hits(), 0);
}

/* ---- FIELDFUSE_FAULT and the CLI ----------------------------------------------------- */

/* Runs `sh -c cmd`; returns its exit status (-1 if it did not exit normally). */
static int run_shell(const char *cmd)
{
	int rc = system(cmd);
	return rc != -1 && WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static char *tmp_dir(void)
{
	char *d = strdup("/tmp/ffu-faults.XXXXXX");
	cr_assert(d && mkdtemp(d), "mkdtemp");
	return d;
}

/* The names in dir other than keep (NULL: none), joined by spaces; "" when none. */
static void stray_files(const char *dir, const char *keep, char *buf, size_t size)
{
	DIR *d = opendir(dir);
	cr_assert(d);
	buf[0] = '\0';
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || (keep && strcmp(de->d_name, keep) == 0))
			continue;
		strncat(buf, de->d_name, size - strlen(buf) - 2);
		strcat(buf, " ");
	}
	closedir(d);
}

static void remove_tree(const char *dir)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	cr_assert_eq(run_shell(cmd), 0);
}

/*
 * `fieldfuse run` with FIELDFUSE_FAULT=fault writing -o DIR/out.txt: exit 1, stderr names
 * the call and the code, no new file in DIR, and an existing out.txt is left untouched.
 */
static void cli_fault(const char *fault, const char *call, const char *code_name, bool existing)
{
	prepare();
	char *dir = tmp_dir(), *prog = ffu_test_path("bench/workloads/seed_bb.hlo");
	const char *build = getenv("FFU_BUILD_ROOT");
	cr_assert(build, "FFU_BUILD_ROOT is not set (meson sets it)");
	char out[512], err[512], cmd[2048], stray[1024];
	snprintf(out, sizeof out, "%s/out.txt", dir);
	snprintf(err, sizeof err, "%s/../ffu-faults-stderr.%d", dir, (int)getpid());
	if (existing) {
		FILE *f = fopen(out, "w");
		cr_assert(f);
		fputs("previous\n", f);
		fclose(f);
	}
	snprintf(cmd, sizeof cmd,
		 "FIELDFUSE_FAULT='%s' '%s/tools/fieldfuse' run '%s' --random 1 --device pocl -o '%s' 2>'%s'", fault,
		 build, prog, out, err);
	int rc = run_shell(cmd);
	char *msg = ffu_test_read_file(err, NULL);
	cr_assert(msg);
	cr_assert_eq(rc, 1, "exit %d for %s: %s", rc, fault, msg);
	cr_assert(strstr(msg, call) && strstr(msg, code_name), "stderr does not name %s and %s: %s", call, code_name,
		  msg);
	cr_assert_null(strstr(msg, "Assertion"), "%s", msg);
	stray_files(dir, existing ? "out.txt" : NULL, stray, sizeof stray);
	cr_assert_str_eq(stray, "", "files left behind after %s: %s", fault, stray);
	if (existing) {
		char *old = ffu_test_read_file(out, NULL);
		cr_assert(old);
		cr_assert_str_eq(old, "previous\n", "a failed run changed the existing output");
		free(old);
	}
	unlink(err);
	free(msg);
	remove_tree(dir);
	free(dir);
	free(prog);
}

Test(faults_cli, buffer_allocation_failure, .timeout = 120)
{
	cli_fault("clCreateBuffer:CL_MEM_OBJECT_ALLOCATION_FAILURE:0", "clCreateBuffer",
		  "CL_MEM_OBJECT_ALLOCATION_FAILURE", false);
}

Test(faults_cli, build_failure, .timeout = 120)
{
	cli_fault("clBuildProgram:CL_BUILD_PROGRAM_FAILURE", "clBuildProgram", "CL_BUILD_PROGRAM_FAILURE", false);
}

Test(faults_cli, launch_out_of_resources, .timeout = 120)
{
	cli_fault("clEnqueueNDRangeKernel:CL_OUT_OF_RESOURCES:0", "clEnqueueNDRangeKernel", "CL_OUT_OF_RESOURCES", true);
}

Test(faults_cli, invalid_work_group_size, .timeout = 120)
{
	cli_fault("clEnqueueNDRangeKernel:-54", "clEnqueueNDRangeKernel", "CL_INVALID_WORK_GROUP_SIZE", false);
}

Test(faults_cli, read_back_failure_keeps_old_output, .timeout = 120)
{
	/* the last step before writing: the output file must not be touched */
	cli_fault("clEnqueueReadBuffer:CL_OUT_OF_RESOURCES", "clEnqueueReadBuffer", "CL_OUT_OF_RESOURCES", true);
}

Test(faults_cli, device_not_available, .timeout = 120)
{
	cli_fault("clCreateContext:CL_DEVICE_NOT_AVAILABLE", "clCreateContext", "CL_DEVICE_NOT_AVAILABLE", false);
}

Test(faults_cli, several_faults_second_fires, .timeout = 120)
{
	cli_fault("clFinish:CL_OUT_OF_RESOURCES:1000,clSetKernelArg:CL_INVALID_ARG_SIZE:1", "clSetKernelArg",
		  "CL_INVALID_ARG_SIZE", false);
}

Test(faults_cli, malformed_variable_is_usage_error, .timeout = 120)
{
	static const char *const bad[] = {"clFinish", "clFinish:", "clFinish:CL_NOPE", "clFinish:-5:x",
					  "Finish:-5", "clFinish:CL_SUCCESS", "clFinish:-5:"};
	prepare();
	char *prog = ffu_test_path("bench/workloads/seed_bb.hlo");
	const char *build = getenv("FFU_BUILD_ROOT");
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char cmd[2048];
		snprintf(cmd, sizeof cmd,
			 "FIELDFUSE_FAULT='%s' '%s/tools/fieldfuse' run '%s' --random 1 --device pocl -o /dev/null "
			 "2>&1 | grep -q 'FIELDFUSE_FAULT'",
			 bad[i], build, prog);
		cr_expect_eq(run_shell(cmd), 0, "FIELDFUSE_FAULT='%s' was not reported", bad[i]);
	}
	free(prog);
}

/* ---- limits: refused before any buffer exists ---------------------------------------- */

/* Compiles text for device and expects exec_create to refuse it with ELIMIT and no clCreateBuffer. */
static void expect_refused(const char *device, const char *text, const char *const *needles, int n_needles)
{
	ffu_error e = {0};
	ffu_module *m = NULL;
	ffu_device_info dev;
	ffu_cl cl = {0};
	ffu_exec *x = NULL;

	prepare();
	cr_assert_eq(ffu__hlo_parse(&m, text, strlen(text), "limits.hlo", &e), FFU_STATUS_OK, "%s", e.message);
	ffu_pass_opts po = {.fuse = true};
	cr_assert_eq(ffu__passes_run(m, &po, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu__cl_select(&dev, device, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu__cl_open(&cl, &dev, &e), FFU_STATUS_OK, "%s", e.message);
	/* a tripwire: any buffer creation or launch would fail loudly with a different status */
	cr_assert_eq(ffu__cl_fault_set("clCreateBuffer", CL_INVALID_VALUE, 0, &e), FFU_STATUS_OK);
	cr_assert_eq(ffu__cl_fault_set("clEnqueueNDRangeKernel", CL_INVALID_VALUE, 0, &e), FFU_STATUS_OK);
	ffu_status st = ffu__exec_create(&x, &cl, m, &e);
	cr_assert_eq(st, FFU_STATUS_ELIMIT, "%s: status %d: %s", device, st, e.message);
	cr_assert_null(x);
	cr_assert_eq(ffu__cl_fault_hits(), 0, "a buffer was created before the limit check");
	cr_assert(strstr(e.message, dev.name), "message does not name the device: %s", e.message);
	for (int i = 0; i < n_needles; i++)
		cr_assert(strstr(e.message, needles[i]), "'%s' missing from: %s", needles[i], e.message);
	ffu__cl_fault_clear();
	ffu__cl_close(&cl);
	ffu__module_free(m);
	ffu_error_clear(&e);
}

static void over_max_alloc(const char *device)
{
	/* 2^40 babybear elements: 4 TiB, beyond any single allocation */
	const char *text = "HloModule huge\n"
			   "ENTRY %main (x: babybear[1099511627776]) -> babybear[1099511627776] {\n"
			   "  %x = babybear[1099511627776] parameter(0)\n"
			   "  ROOT %n = babybear[1099511627776] negate(%x)\n}\n";
	ffu_error e = {0};
	ffu_device_info dev;
	prepare();
	cr_assert_eq(ffu__cl_select(&dev, device, &e), FFU_STATUS_OK, "%s", e.message);
	char max[32];
	snprintf(max, sizeof max, "%llu", (unsigned long long)dev.max_alloc);
	const char *needles[] = {"4398046511104 bytes", max};
	expect_refused(device, text, needles, 2);
}

Test(limits, over_max_alloc_pocl)
{
	over_max_alloc("pocl");
}

Test(limits, over_max_alloc_rusticl)
{
	over_max_alloc("rusticl");
}

/* Byte counts that wrap 2^64 (2^59 bn254 elements = 2^64 bytes) must not pass as small. */
Test(limits, byte_count_wraps)
{
	const char *text = "HloModule wrap\n"
			   "ENTRY %main () -> bn254_sf[576460752303423488] {\n"
			   "  %c = bn254_sf[] constant(1)\n"
			   "  %b = bn254_sf[576460752303423488] broadcast(%c), dimensions={}\n"
			   "  ROOT %n = bn254_sf[576460752303423488] negate(%b)\n}\n";
	const char *needles[] = {"more than"};
	expect_refused("pocl", text, needles, 1);
}

/* Each buffer fits on its own, together they exceed global memory. */
static void over_global_mem(const char *device)
{
	ffu_error e = {0};
	ffu_device_info dev;
	prepare();
	cr_assert_eq(ffu__cl_select(&dev, device, &e), FFU_STATUS_OK, "%s", e.message);
	unsigned long long n = dev.max_alloc / 4; /* babybear: 4 bytes each, one max-size buffer */
	int k = (int)(dev.global_mem / dev.max_alloc) + 1;
	char text[4096], *w = text;
	w += sprintf(w, "HloModule big\nENTRY %%main {\n");
	for (int p = 0; p < k; p++)
		w += sprintf(w, "  %%p%d = babybear[%llu] parameter(%d)\n", p, n, p);
	w += sprintf(w, "  %%s0 = babybear[%llu] negate(%%p0)\n", n);
	for (int p = 1; p < k; p++)
		w += sprintf(w, "  %%s%d = babybear[%llu] add(%%s%d, %%p%d)\n", p, n, p - 1, p);
	sprintf(w, "}\n");
	char gm[32];
	snprintf(gm, sizeof gm, "%llu", (unsigned long long)dev.global_mem);
	const char *needles[] = {"of device memory", gm};
	expect_refused(device, text, needles, 2);
}

Test(limits, over_global_mem_pocl)
{
	over_global_mem("pocl");
}

Test(limits, over_global_mem_rusticl)
{
	over_global_mem("rusticl");
}

Test(limits, single_buffer_over_max_alloc)
{
	ffu_error e = {0};
	ffu_device_info dev;
	ffu_cl cl = {0};
	cl_mem m = NULL;
	prepare();
	cr_assert_eq(ffu__cl_select(&dev, "pocl", &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu__cl_open(&cl, &dev, &e), FFU_STATUS_OK, "%s", e.message);
	size_t bytes = (size_t)dev.max_alloc + 1;
	cr_assert_eq(ffu__cl_buffer(&cl, &m, bytes, &e), FFU_STATUS_ELIMIT, "%s", e.message);
	cr_assert_null(m);
	char want[64];
	snprintf(want, sizeof want, "%zu bytes", bytes);
	cr_assert(strstr(e.message, want), "%s", e.message);
	snprintf(want, sizeof want, "%llu", (unsigned long long)dev.max_alloc);
	cr_assert(strstr(e.message, want), "%s", e.message);
	cr_assert(strstr(e.message, "CL_DEVICE_MAX_MEM_ALLOC_SIZE"), "%s", e.message);
	ffu__cl_close(&cl);
	ffu_error_clear(&e);
}
