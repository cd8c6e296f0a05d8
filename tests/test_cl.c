/*
 * tests/test_cl.c: the OpenCL layer (src/runtime/cl_*.c, src/ocl/errors.c) on both CPU
 * implementations, PoCL and Mesa Rusticl: listing, selectors, builds and their logs,
 * launches of awkward sizes, timing, limits, error names, and the work-group choice.
 *
 * Ownership: each test creates and releases its own OpenCL objects (Criterion forks per
 * test, and PoCL must not be initialised before the fork). A missing device is a failure.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/cl.h"
#include "support.h"

static const char *const kernel_src =
	"__kernel void axpb(__global const uint *in, __global uint *out, const uint n)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	if (i < n)\n"
	"		out[i] = in[i] * 3u + 1u;\n"
	"}\n";

/* Before any OpenCL call: Rusticl only shows llvmpipe when asked; tests pick devices themselves. */
static void prepare(void)
{
	setenv("RUSTICL_ENABLE", "llvmpipe", 1);
	unsetenv("FIELDFUSE_DEVICE");
	unsetenv("FIELDFUSE_WG_SIZE");
}

/* Each body runs once per implementation as <name>_pocl and <name>_rusticl. */
#define ON_BOTH(name)                                                     \
	static void name##_on(const char *sel);                           \
	Test(cl, name##_pocl)                                              \
	{                                                                  \
		prepare();                                                 \
		name##_on(ffu_test_devices[0]);                            \
	}                                                                  \
	Test(cl, name##_rusticl)                                           \
	{                                                                  \
		prepare();                                                 \
		name##_on(ffu_test_devices[1]);                            \
	}                                                                  \
	static void name##_on(const char *sel)

static void open_dev(ffu_cl *cl, const char *sel)
{
	ffu_error e = {0};
	ffu_device_info d;
	ffu_status st = ffu__cl_select(&d, sel, &e);
	cr_assert_eq(st, FFU_STATUS_OK, "select '%s': %s", sel, e.message);
	st = ffu__cl_open(cl, &d, &e);
	cr_assert_eq(st, FFU_STATUS_OK, "open '%s': %s", sel, e.message);
	ffu_error_clear(&e);
}

/* ---- listing and selection ----------------------------------------------------------- */

ON_BOTH(select_device)
{
	ffu_error e = {0};
	ffu_device_info d;
	ffu_status st = ffu__cl_select(&d, sel, &e);
	cr_assert_eq(st, FFU_STATUS_OK, "device '%s' missing: %s", sel, e.message);
	cr_assert_eq(d.vendor_class,
		     strcmp(sel, "pocl") == 0 ? FFU_VENDOR_POCL : FFU_VENDOR_RUSTICL);
	cr_assert_str_eq(ffu__cl_vendor_str(d.vendor_class), sel);
	cr_assert(d.type & CL_DEVICE_TYPE_CPU);
	cr_assert(d.name[0] && d.platform_name[0] && d.version[0] && d.driver[0]);
	cr_assert(strncmp(d.version, "OpenCL ", 7) == 0, "version '%s'", d.version);
	cr_assert(d.compute_units >= 1 && d.max_wg >= 1);
	cr_assert(d.max_alloc > 0 && d.max_alloc <= d.global_mem);
	cr_assert(d.local_mem > 0 && d.max_param_size >= 256);
	char id[16];
	snprintf(id, sizeof id, "%d:%d", d.platform_index, d.device_index);
	cr_assert_str_eq(d.id, id);
	/* No padding left over from the driver (Rusticl reports "OpenCL 3.0 "). */
	cr_assert_neq(d.version[strlen(d.version) - 1], ' ');
}

Test(cl, list_contains_both)
{
	prepare();
	ffu_error e = {0};
	ffu_device_info *list = NULL;
	int n = 0;
	cr_assert_eq(ffu__cl_list_devices(&list, &n, &e), FFU_STATUS_OK, "%s", e.message);
	bool pocl = false, rusticl = false;
	for (int i = 0; i < n; i++) {
		pocl |= list[i].vendor_class == FFU_VENDOR_POCL;
		rusticl |= list[i].vendor_class == FFU_VENDOR_RUSTICL;
		/* PoCL names the CPU maker as its vendor; the class must come from the platform. */
		if (list[i].vendor_class == FFU_VENDOR_POCL)
			cr_assert_str_eq(list[i].platform_name, "Portable Computing Language");
		for (int j = 0; j < i; j++)
			cr_assert_str_neq(list[i].id, list[j].id);
	}
	cr_assert(pocl, "PoCL device missing from the listing");
	cr_assert(rusticl, "Rusticl device missing from the listing (RUSTICL_ENABLE=llvmpipe set)");
	free(list);
}

Test(cl, classify_platforms)
{
	cr_assert_eq(ffu__cl_classify("Portable Computing Language", "cl_khr_icd"), FFU_VENDOR_POCL);
	cr_assert_eq(ffu__cl_classify("rusticl", "cl_khr_icd"), FFU_VENDOR_RUSTICL);
	cr_assert_eq(ffu__cl_classify("NVIDIA CUDA", ""), FFU_VENDOR_NVIDIA);
	cr_assert_eq(ffu__cl_classify("AMD Accelerated Parallel Processing", NULL), FFU_VENDOR_AMD);
	cr_assert_eq(ffu__cl_classify("Advanced Micro Devices, Inc.", NULL), FFU_VENDOR_AMD);
	cr_assert_eq(ffu__cl_classify("Intel(R) OpenCL Graphics", NULL), FFU_VENDOR_INTEL);
	cr_assert_eq(ffu__cl_classify("Apple", NULL), FFU_VENDOR_APPLE);
	cr_assert_eq(ffu__cl_classify("Clover", "cl_khr_icd"), FFU_VENDOR_OTHER);
	cr_assert_eq(ffu__cl_classify("Renamed", "cl_khr_icd cl_amd_event_callback"), FFU_VENDOR_AMD);
	cr_assert_eq(ffu__cl_classify(NULL, NULL), FFU_VENDOR_OTHER);
}

Test(cl, selectors)
{
	prepare();
	ffu_error e = {0};
	ffu_device_info *list = NULL, d, *many = NULL;
	int n = 0, m = 0;
	cr_assert_eq(ffu__cl_list_devices(&list, &n, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert(n >= 2);

	cr_assert_eq(ffu__cl_select(&d, "cpu", &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert(d.type & CL_DEVICE_TYPE_CPU);
	cr_assert_eq(ffu__cl_select(&d, "CPU", &e), FFU_STATUS_OK, "%s", e.message);

	cr_assert_eq(ffu__cl_select(&d, "0", &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_str_eq(d.id, list[0].id);
	cr_assert_eq(ffu__cl_select(&d, "1", &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_str_eq(d.id, list[1].id);

	cr_assert_eq(ffu__cl_select(&d, "0:0", &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(d.platform_index, 0);
	cr_assert_eq(d.device_index, 0);
	/* "P:D" addresses the platform as enumerated, even past platforms without devices. */
	char pd[16];
	snprintf(pd, sizeof pd, "%d:%d", list[n - 1].platform_index, list[n - 1].device_index);
	cr_assert_eq(ffu__cl_select(&d, pd, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(d.device, list[n - 1].device);

	/* Substring of a device name, in another case. */
	cr_assert_eq(ffu__cl_select(&d, "LLVMPIPE", &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(d.vendor_class, FFU_VENDOR_RUSTICL);
	cr_assert_eq(ffu__cl_select(&d, "pthread-", &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(d.vendor_class, FFU_VENDOR_POCL);

	/* Default: no GPU here, so the first CPU; then $FIELDFUSE_DEVICE. */
	cr_assert_eq(ffu__cl_select(&d, NULL, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_str_eq(d.id, list[0].id);
	setenv("FIELDFUSE_DEVICE", "rusticl", 1);
	cr_assert_eq(ffu__cl_select(&d, "", &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(d.vendor_class, FFU_VENDOR_RUSTICL);
	cr_assert_eq(ffu__cl_select(&d, "pocl", &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(d.vendor_class, FFU_VENDOR_POCL);
	setenv("FIELDFUSE_DEVICE", "no-such-thing", 1);
	cr_assert_eq(ffu__cl_select(&d, NULL, &e), FFU_STATUS_ENODEV);
	cr_assert(strstr(e.message, "FIELDFUSE_DEVICE"), "%s", e.message);
	unsetenv("FIELDFUSE_DEVICE");

	/* Unknown selectors: ENODEV, naming the selector and listing what exists. */
	const char *bad[] = {"no-such-device-xyz", "99", "0:99", "7:0", "nvidia", "gpu", "1:", ":0", "-1"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ffu_error_clear(&e);
		cr_assert_eq(ffu__cl_select(&d, bad[i], &e), FFU_STATUS_ENODEV, "selector '%s'", bad[i]);
		cr_assert_eq(e.status, FFU_STATUS_ENODEV);
		char quoted[64];
		snprintf(quoted, sizeof quoted, "'%s'", bad[i]);
		cr_assert(strstr(e.message, quoted), "%s", e.message);
		for (int j = 0; j < n; j++) {
			char entry[600];
			snprintf(entry, sizeof entry, "%s %s (%s)", list[j].id, list[j].name, list[j].platform_name);
			cr_assert(strstr(e.message, entry), "'%s' not in: %s", entry, e.message);
		}
	}

	/* select_all: "all", classes, and a single default. */
	cr_assert_eq(ffu__cl_select_all(&many, &m, "all", &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(m, n);
	free(many);
	cr_assert_eq(ffu__cl_select_all(&many, &m, "cpu", &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert(m >= 2);
	free(many);
	cr_assert_eq(ffu__cl_select_all(&many, &m, "rusticl", &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert(m >= 1 && many[0].vendor_class == FFU_VENDOR_RUSTICL);
	free(many);
	cr_assert_eq(ffu__cl_select_all(&many, &m, NULL, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(m, 1);
	free(many);
	many = (ffu_device_info *)&d; /* must be reset to NULL on failure */
	cr_assert_eq(ffu__cl_select_all(&many, &m, "no-such-device-xyz", &e), FFU_STATUS_ENODEV);
	cr_assert_null(many);
	cr_assert_eq(m, 0);

	ffu_error_clear(&e);
	free(list);
}

/* ---- builds -------------------------------------------------------------------------- */

ON_BOTH(build_failure)
{
	ffu_cl cl;
	ffu_error e = {0};
	cl_program prog = (cl_program)&cl;
	open_dev(&cl, sel);
	const char *broken = "__kernel void k(__global uint *x) { x[0] = undeclared_thing + ; }\n";
	ffu_status st = ffu__cl_build(&cl, &prog, broken, NULL, &e);
	cr_assert_eq(st, FFU_STATUS_EBUILD, "status %d: %s", st, e.message);
	cr_assert_eq(e.status, FFU_STATUS_EBUILD);
	cr_assert_null(prog);
	cr_assert_not_null(e.build_log);
	cr_assert(e.build_log[0], "empty build log");
	cr_assert(strstr(e.message, "clBuildProgram"), "%s", e.message);
	cr_assert(strstr(e.message, "CL_BUILD_PROGRAM_FAILURE"), "%s", e.message);
	cr_assert_str_eq(e.cl_call, "clBuildProgram");
	cr_assert_eq(e.cl_code, CL_BUILD_PROGRAM_FAILURE);

	/* A second failure replaces the log rather than leaking it. */
	st = ffu__cl_build(&cl, &prog, broken, "-cl-std=CL1.2", &e);
	cr_assert_eq(st, FFU_STATUS_EBUILD);
	cr_assert(strstr(e.message, "-cl-std=CL1.2"), "%s", e.message);
	ffu_error_clear(&e);
	cr_assert_null(e.build_log);

	/* A good program, then a kernel name that is not there. */
	st = ffu__cl_build(&cl, &prog, kernel_src, "-cl-std=CL1.2", &e);
	cr_assert_eq(st, FFU_STATUS_OK, "%s\n%s", e.message, e.build_log ? e.build_log : "");
	cl_kernel k = NULL;
	st = ffu__cl_kernel(prog, &k, "no_such_kernel", &e);
	cr_assert_eq(st, FFU_STATUS_ECL);
	cr_assert(strstr(e.message, "clCreateKernel failed: CL_INVALID_KERNEL_NAME"), "%s", e.message);
	cr_assert_null(k);
	cr_assert_eq(ffu__cl_kernel(prog, &k, "axpb", &e), FFU_STATUS_OK, "%s", e.message);
	st = ffu__cl_set_arg(k, 7, sizeof(cl_uint), &(cl_uint){1}, &e);
	cr_assert_eq(st, FFU_STATUS_ECL);
	cr_assert(strstr(e.message, "CL_INVALID_ARG_INDEX"), "%s", e.message);
	ffu__cl_kernel_release(&k);
	cr_assert_null(k);
	ffu__cl_kernel_release(&k);
	ffu__cl_program_release(&prog);
	cr_assert_null(prog);
	ffu__cl_close(&cl);
	ffu__cl_close(&cl); /* zeroed by the first close */
	ffu_error_clear(&e);
}

/* ---- launches ------------------------------------------------------------------------ */

static void run_axpb(ffu_cl *cl, cl_kernel k, size_t n, size_t wg)
{
	ffu_error e = {0};
	cl_mem in = NULL, out = NULL;
	ffu_launch_events ev = {0};
	uint32_t *h = malloc(n * sizeof *h), *r = malloc(n * sizeof *r);
	cr_assert(h && r);
	for (size_t i = 0; i < n; i++) {
		h[i] = (uint32_t)(i * 2654435761u); /* wraps, so the multiply wraps too */
		r[i] = 0xdeadbeef;
	}
	cr_assert_eq(ffu__cl_buffer(cl, &in, n * sizeof *h, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu__cl_buffer(cl, &out, n * sizeof *h, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu__cl_write(cl, in, h, n * sizeof *h, &e), FFU_STATUS_OK, "%s", e.message);
	cl_uint nn = (cl_uint)n;
	cr_assert_eq(ffu__cl_set_arg(k, 0, sizeof in, &in, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu__cl_set_arg(k, 1, sizeof out, &out, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu__cl_set_arg(k, 2, sizeof nn, &nn, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu__cl_launch(cl, k, n, wg, &ev, &e), FFU_STATUS_OK, "n=%zu: %s", n, e.message);
	/* whole groups, plus a tail launch exactly when the group size does not divide n */
	cr_assert((ev.n == 1 || ev.n == 2) && ev.ev[0] && (ev.n == 1 || ev.ev[1]), "n=%zu: %d events", n, ev.n);
	if (wg)
		cr_assert_eq(ev.n, n % wg ? 2 : 1, "n=%zu wg=%zu: %d events", n, wg, ev.n);
	cr_assert_eq(ffu__cl_read(cl, out, r, n * sizeof *r, &e), FFU_STATUS_OK, "%s", e.message);
	for (size_t i = 0; i < n; i++)
		if (r[i] != h[i] * 3u + 1u)
			cr_assert_fail("n=%zu wg=%zu: out[%zu] = %u, expected %u", n, wg, i, r[i], h[i] * 3u + 1u);

	cl_ulong t0 = 0, t1 = 0;
	cr_assert_eq(ffu__cl_event_times(ev.ev[0], &t0, &t1, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert(t0 > 0 && t1 >= t0, "start %llu end %llu", (unsigned long long)t0, (unsigned long long)t1);
	cr_assert(t1 - t0 < 60ull * 1000000000ull, "kernel took %llu ns", (unsigned long long)(t1 - t0));
	/* PoCL's timer is real; Mesa 22.3 Rusticl's is a stand-in (START 2, END 3). */
	if (cl->dev.vendor_class == FFU_VENDOR_POCL)
		cr_assert(ffu__cl_times_real(t0, t1), "start %llu end %llu", (unsigned long long)t0,
			  (unsigned long long)t1);
	cr_assert_eq(ffu__cl_finish(cl, &e), FFU_STATUS_OK, "%s", e.message);

	ffu__cl_launch_events_release(&ev);
	cr_assert_eq(ev.n, 0);
	ffu__cl_buffer_release(&in);
	ffu__cl_buffer_release(&out);
	cr_assert_null(in);
	free(h);
	free(r);
}

static void build_axpb(ffu_cl *cl, cl_program *prog, cl_kernel *k)
{
	ffu_error e = {0};
	ffu_status st = ffu__cl_build(cl, prog, kernel_src, NULL, &e);
	cr_assert_eq(st, FFU_STATUS_OK, "%s\n%s", e.message, e.build_log ? e.build_log : "");
	cr_assert_eq(ffu__cl_kernel(*prog, k, "axpb", &e), FFU_STATUS_OK, "%s", e.message);
}

ON_BOTH(launch_sizes)
{
	ffu_cl cl;
	cl_program prog = NULL;
	cl_kernel k = NULL;
	open_dev(&cl, sel);
	build_axpb(&cl, &prog, &k);
	const size_t sizes[] = {1, 7, 1000, 65539, (1u << 20) + 1};
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
		run_axpb(&cl, k, sizes[i], 0);
	/* Explicit sizes, including one that is no multiple of the preferred size. */
	run_axpb(&cl, k, 1000, 8);
	run_axpb(&cl, k, 1000, 3);
	ffu__cl_kernel_release(&k);
	ffu__cl_program_release(&prog);
	ffu__cl_close(&cl);
}

ON_BOTH(launch_wg_env)
{
	ffu_cl cl;
	ffu_error e = {0};
	cl_program prog = NULL;
	cl_kernel k = NULL;
	open_dev(&cl, sel);
	build_axpb(&cl, &prog, &k);

	/* the variable is read when the context's target is resolved: open, or a retarget */
	setenv("FIELDFUSE_WG_SIZE", "16", 1);
	ffu__cl_retarget(&cl);
	run_axpb(&cl, k, 1001, 0);
	setenv("FIELDFUSE_WG_SIZE", "", 1); /* empty = unset */
	ffu__cl_retarget(&cl);
	run_axpb(&cl, k, 33, 0);

	const char *bad[] = {"abc", "16x", "-16", "+16", " 16", "0", "0x10", "99999999999999999999999"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		setenv("FIELDFUSE_WG_SIZE", bad[i], 1);
		ffu__cl_retarget(&cl);
		cr_assert_eq(ffu__cl_launch(&cl, k, 100, 0, NULL, &e), FFU_STATUS_EINVAL, "'%s'", bad[i]);
		cr_assert(strstr(e.message, "FIELDFUSE_WG_SIZE"), "%s", e.message);
	}
	/* Valid syntax, but beyond what the device allows. */
	setenv("FIELDFUSE_WG_SIZE", "1000000", 1);
	ffu__cl_retarget(&cl);
	cr_assert_eq(ffu__cl_launch(&cl, k, 100, 0, NULL, &e), FFU_STATUS_ELIMIT, "%s", e.message);
	unsetenv("FIELDFUSE_WG_SIZE");
	ffu__cl_retarget(&cl);
	cr_assert_eq(ffu__cl_launch(&cl, k, 100, cl.dev.max_wg + 1, NULL, &e), FFU_STATUS_ELIMIT);
	cr_assert_eq(ffu__cl_launch(&cl, k, 0, 0, NULL, &e), FFU_STATUS_EINVAL);
	/* more work-items than the device can index: refused before anything is enqueued */
	if (cl.dev.address_bits < 64) {
		cr_assert_eq(ffu__cl_launch(&cl, k, SIZE_MAX, 8, NULL, &e), FFU_STATUS_ELIMIT, "%s", e.message);
		cr_assert(strstr(e.message, "exceed"), "%s", e.message);
	}
	/* a requested group size larger than the launch */
	cr_assert_eq(ffu__cl_launch(&cl, k, 4, 8, NULL, &e), FFU_STATUS_EINVAL, "%s", e.message);

	ffu__cl_kernel_release(&k);
	ffu__cl_program_release(&prog);
	ffu__cl_close(&cl);
	ffu_error_clear(&e);
}

/* ---- buffers ------------------------------------------------------------------------- */

ON_BOTH(buffer_limits)
{
	ffu_cl cl;
	ffu_error e = {0};
	cl_mem m = (cl_mem)&cl;
	open_dev(&cl, sel);

	size_t too_big = (size_t)cl.dev.max_alloc + 1;
	cr_assert_eq(ffu__cl_buffer(&cl, &m, too_big, &e), FFU_STATUS_ELIMIT, "%s", e.message);
	cr_assert_null(m);
	cr_assert_str_empty(e.cl_call, "refused before any OpenCL call, got %s", e.cl_call);
	char num[32];
	snprintf(num, sizeof num, "%zu", too_big);
	cr_assert(strstr(e.message, num), "%s", e.message);
	snprintf(num, sizeof num, "%llu", (unsigned long long)cl.dev.max_alloc);
	cr_assert(strstr(e.message, num), "%s", e.message);
	cr_assert_eq(ffu__cl_buffer(&cl, &m, SIZE_MAX, &e), FFU_STATUS_ELIMIT);

	/* Zero bytes: a real buffer, and zero-byte transfers are no-ops. */
	cr_assert_eq(ffu__cl_buffer(&cl, &m, 0, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_not_null(m);
	cr_assert_eq(ffu__cl_write(&cl, m, NULL, 0, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu__cl_read(&cl, m, NULL, 0, &e), FFU_STATUS_OK, "%s", e.message);
	ffu__cl_buffer_release(&m);
	cr_assert_null(m);
	ffu__cl_buffer_release(&m);
	ffu__cl_close(&cl);
}

Test(cl, close_zeroed)
{
	ffu_cl cl;
	memset(&cl, 0, sizeof cl);
	ffu__cl_close(&cl);
	ffu__cl_close(NULL);
	cl_program p = NULL;
	cl_kernel k = NULL;
	ffu__cl_program_release(&p);
	ffu__cl_kernel_release(&k);
	ffu__cl_buffer_release(NULL);
}

/* ---- error names --------------------------------------------------------------------- */

Test(cl, error_names)
{
	cr_assert_str_eq(ffu_cl_error_name(-5), "CL_OUT_OF_RESOURCES");
	cr_assert_str_eq(ffu_cl_error_name(0), "CL_SUCCESS");
	cr_assert_str_eq(ffu_cl_error_name(-1), "CL_DEVICE_NOT_FOUND");
	cr_assert_str_eq(ffu_cl_error_name(-11), "CL_BUILD_PROGRAM_FAILURE");
	cr_assert_str_eq(ffu_cl_error_name(-19), "CL_KERNEL_ARG_INFO_NOT_AVAILABLE");
	cr_assert_str_eq(ffu_cl_error_name(-30), "CL_INVALID_VALUE");
	cr_assert_str_eq(ffu_cl_error_name(-54), "CL_INVALID_WORK_GROUP_SIZE");
	cr_assert_str_eq(ffu_cl_error_name(-71), "CL_INVALID_SPEC_ID");
	cr_assert_str_eq(ffu_cl_error_name(-72), "CL_MAX_SIZE_RESTRICTION_EXCEEDED");
	cr_assert_str_eq(ffu_cl_error_name(-1001), "CL_PLATFORM_NOT_FOUND_KHR");
	cr_assert_str_eq(ffu_cl_error_name(-12345), "CL_UNKNOWN_ERROR(-12345)");
	cr_assert_str_eq(ffu_cl_error_name(-20), "CL_UNKNOWN_ERROR(-20)");
	cr_assert_str_eq(ffu_cl_error_name(7), "CL_UNKNOWN_ERROR(7)");
	cr_assert_str_eq(ffu_cl_error_name(INT32_MIN), "CL_UNKNOWN_ERROR(-2147483648)");
	/* Every code from -72 to 0 outside the two gaps has a real name. */
	for (int c = -72; c <= 0; c++) {
		bool gap = c <= -20 && c >= -29;
		cr_assert_eq(strncmp(ffu_cl_error_name(c), "CL_UNKNOWN", 10) == 0, gap, "code %d: %s", c,
			     ffu_cl_error_name(c));
	}
}

Test(cl, times_real)
{
	cr_assert_not(ffu__cl_times_real(2, 3));
	cr_assert_not(ffu__cl_times_real(0, 0));
	cr_assert_not(ffu__cl_times_real(5000000000ull, 4000000000ull));
	cr_assert(ffu__cl_times_real(1700000000000000000ull, 1700000000000450000ull));
	cr_assert(ffu__cl_times_real(123456789012ull, 123456789012ull));
}

/* ---- work-group choice --------------------------------------------------------------- */

Test(cl, pick_wg_examples)
{
	cr_assert_eq(ffu__cl_pick_wg(1000000, 4096, 4096, 8), 256);   /* PoCL */
	cr_assert_eq(ffu__cl_pick_wg(1000000, 1024, 1024, 32), 256);  /* Rusticl llvmpipe */
	cr_assert_eq(ffu__cl_pick_wg(1, 4096, 4096, 8), 1);
	cr_assert_eq(ffu__cl_pick_wg(7, 1024, 1024, 32), 4);
	cr_assert_eq(ffu__cl_pick_wg(100, 4096, 4096, 8), 64);
	cr_assert_eq(ffu__cl_pick_wg(1000000, 200, 4096, 32), 192);
	cr_assert_eq(ffu__cl_pick_wg(1000000, 16, 4096, 32), 16);    /* no multiple fits */
	cr_assert_eq(ffu__cl_pick_wg(5, 16, 4096, 32), 5);
	cr_assert_eq(ffu__cl_pick_wg(0, 0, 0, 0), 1);
	cr_assert_eq(ffu__cl_pick_wg(1000, 0, 0, 0), 256);
	cr_assert_eq(ffu__cl_pick_wg(1000, 1, 1, 64), 1);
}

Test(cl, pick_wg_properties)
{
	const size_t kmaxes[] = {0, 1, 3, 7, 16, 64, 100, 200, 256, 257, 1000, 1024, 4096, SIZE_MAX};
	const size_t dmaxes[] = {0, 1, 64, 128, 1024, 4096};
	const size_t prefs[] = {0, 1, 3, 8, 16, 32, 64, 128, 300};
	for (size_t a = 0; a < sizeof kmaxes / sizeof kmaxes[0]; a++)
	for (size_t b = 0; b < sizeof dmaxes / sizeof dmaxes[0]; b++)
	for (size_t c = 0; c < sizeof prefs / sizeof prefs[0]; c++) {
		size_t km = kmaxes[a], dm = dmaxes[b], pm = prefs[c] ? prefs[c] : 1;
		size_t cap = 256;
		if (km && km < cap)
			cap = km;
		if (dm && dm < cap)
			cap = dm;
		size_t full = ffu__cl_pick_wg(SIZE_MAX, km, dm, prefs[c]);
		for (size_t n = 1; n <= 1000000; n += n < 600 ? 1 : 9973) {
			size_t wg = ffu__cl_pick_wg(n, km, dm, prefs[c]);
			cr_assert(wg >= 1 && wg <= 256, "n=%zu -> %zu", n, wg);
			cr_assert(!km || wg <= km, "n=%zu kmax=%zu -> %zu", n, km, wg);
			cr_assert(!dm || wg <= dm, "n=%zu dmax=%zu -> %zu", n, dm, wg);
			cr_assert(wg <= full, "n=%zu: %zu above the large-n choice %zu", n, wg, full);
			if (pm <= cap && n >= full)
				cr_assert_eq(wg % pm, 0, "n=%zu pm=%zu -> %zu", n, pm, wg);
			/* Large n gets the full size; small n a power of two not above it (the rest is the tail). */
			cr_assert(wg <= n, "n=%zu -> %zu", n, wg);
			if (n >= full)
				cr_assert_eq(wg, full, "n=%zu", n);
			else if (pm <= cap)
				cr_assert((wg & (wg - 1)) == 0 && wg * 2 > n, "n=%zu pm=%zu -> %zu", n, pm, wg);
		}
		if (pm <= cap)
			cr_assert(full > cap - pm && full <= cap, "cap %zu pm %zu full %zu", cap, pm, full);
	}
}
