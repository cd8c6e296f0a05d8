/*
 * tests/test_caps.c: the device-capability layer without the hardware and with it.
 *
 * Without: capability fixtures (the JSON files in tests/fixtures/caps) go through the same
 * table as a live device. Recorded: NVIDIA GeForce RTX 3090, AMD Radeon RX 7900 XTX and Radeon
 * VII, and Intel Iris Xe Graphics (NEO), transcribed from clinfo output others published (each
 * file's "fixture" field names the source), and PoCL and Rusticl, recorded on the build machine.
 * Hand-written, because no citable recorded dump was found: NVIDIA H200 and Intel Data Center
 * GPU Max 1550.
 * Vendor class, architecture, warp width, profile and launch plan are checked per fixture,
 * and the launch plan's constraints as properties over many kernel limits, sizes, tuning
 * entries and overrides.
 * Also the fixture reader's errors, extension parsing, classification order, the profile
 * table's specificity, the tuning database and the cache folder.
 *
 * With: the real PoCL and Rusticl devices classify correctly, launches cover exactly
 * [offset, offset + n) whatever chose the size, a tuning-database entry is picked up and
 * FIELDFUSE_WG_SIZE and the override beat it, and the program cache (memory and disk, with
 * corrupt entries) works. A missing device is a failure, never a skip.
 *
 * Ownership: each test owns its temporary folder (FIELDFUSE_CACHE_DIR points into it) and
 * every OpenCL object it creates; Criterion forks per test, so environment changes stay
 * in the test.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "device/caps.h"
#include "device/launch.h"
#include "device/profile.h"
#include "device/target.h"
#include "device/tuning_db.h"
#include "runtime/cache.h"
#include "util/cachedir.h"
#include "runtime/cl.h"
#include "support.h"

#define FIXTURES "tests/fixtures/caps"

/* ---- helpers ------------------------------------------------------------------------- */

static char tmpdir[64];

/* A fresh cache folder for the test, and no overrides from the caller's environment. */
static void setup(void)
{
	strcpy(tmpdir, "/tmp/ffu_caps_XXXXXX");
	cr_assert_not_null(mkdtemp(tmpdir));
	setenv("FIELDFUSE_CACHE_DIR", tmpdir, 1);
	setenv("RUSTICL_ENABLE", "llvmpipe", 1);
	unsetenv("FIELDFUSE_WG_SIZE");
	unsetenv("FIELDFUSE_DEVICE");
	unsetenv("FIELDFUSE_PROGRAM_CACHE");
}

static void teardown(void)
{
	ffu_test_remove_tree(tmpdir);
}

TestSuite(caps, .init = setup, .fini = teardown, .timeout = 300);

static void load_fixture(const char *file, ffu_device_info *d, ffu_kernel_limits *k)
{
	char rel[256];
	snprintf(rel, sizeof rel, FIXTURES "/%s", file);
	char *path = ffu_test_path(rel);
	size_t len = 0;
	char *text = ffu_test_read_file(path, &len);
	cr_assert_not_null(text, "cannot read %s", path);
	ffu_error e = {0};
	ffu_status st = ffu__caps_from_json(d, k, text, len, path, &e);
	cr_assert_eq(st, FFU_STATUS_OK, "%s: %s", path, e.message);
	free(text);
	free(path);
}

/* ---- fixtures ------------------------------------------------------------------------ */

static const struct expect {
	const char *file;
	ffu_vendor cls;
	cl_device_type type;
	const char *arch;
	unsigned warp;
	bool int64, fp64;
	ffu_params prof;    /* the built-in profile */
	const char *label;  /* the most specific table row that applied */
	size_t local;       /* work-group size of a 2^24-item element-wise launch */
} expects[] = {
	{"nvidia_h200.json", FFU_VENDOR_NVIDIA, CL_DEVICE_TYPE_GPU, "sm_90", 32, true, true, {256, 1, 4, 32}, "hopper sm_90", 256},
	/* Ampere has no row of its own: the vendor row applies */
	{"nvidia_rtx3090.json", FFU_VENDOR_NVIDIA, CL_DEVICE_TYPE_GPU, "sm_86", 32, true, true, {256, 1, 4, 32}, "nvidia", 256},
	/* GCN 5 (Vega 20) shares gfx9 and wave64 with CDNA */
	{"amd_radeon_vii.json", FFU_VENDOR_AMD, CL_DEVICE_TYPE_GPU, "gfx906", 64, true, true, {256, 1, 4, 32}, "cdna wave64",
	 256},
	{"amd_rx7900xtx.json", FFU_VENDOR_AMD, CL_DEVICE_TYPE_GPU, "gfx1100", 32, true, true, {256, 1, 4, 32}, "rdna wave32",
	 256},
	/* Xe-LP (Raptor Lake-P iGPU): IP 12.3, no fp64, 512 work-items per group */
	{"intel_iris_xe.json", FFU_VENDOR_INTEL, CL_DEVICE_TYPE_GPU, "intel-12.3", 0, true, false, {256, 1, 4, 32}, "intel",
	 256},
	{"intel_max1550.json", FFU_VENDOR_INTEL, CL_DEVICE_TYPE_GPU, "intel-12.60", 0, true, true, {256, 1, 4, 32}, "intel",
	 256},
	{"pocl_cpu.json", FFU_VENDOR_POCL, CL_DEVICE_TYPE_CPU, "", 0, true, true, {256, 4, 1, 32}, "pocl cpu", 256},
	/* llvmpipe kernels allow 32 work-items per group whatever the device says */
	{"rusticl_llvmpipe.json", FFU_VENDOR_RUSTICL, CL_DEVICE_TYPE_CPU, "", 0, true, false, {256, 4, 1, 32},
	 "rusticl llvmpipe", 32},
};
#define N_EXPECTS (sizeof expects / sizeof expects[0])

/* The fusion budget from CL_DEVICE_MAX_PARAMETER_SIZE: pointers after 64 bytes of scalars. */
Test(caps, kernel_args_budget)
{
	cr_expect_eq(ffu__caps_kernel_args(1024, 64), 64);   /* full profile: (1024-64)/8 = 120, capped */
	cr_expect_eq(ffu__caps_kernel_args(4352, 64), 64);   /* NVIDIA */
	cr_expect_eq(ffu__caps_kernel_args(256, 64), 24);    /* embedded profile minimum */
	cr_expect_eq(ffu__caps_kernel_args(256, 32), 48);
	cr_expect_eq(ffu__caps_kernel_args(96, 64), 4);      /* never below a binary op's 3 + 1 */
	cr_expect_eq(ffu__caps_kernel_args(0, 64), 64);      /* not reported: the guaranteed 1024 */
}

Test(caps, fixtures_classify_and_profile)
{
	for (size_t i = 0; i < N_EXPECTS; i++) {
		const struct expect *x = &expects[i];
		ffu_device_info d;
		ffu_kernel_limits k;
		load_fixture(x->file, &d, &k);
		cr_expect_eq(d.vendor_class, x->cls, "%s: class %s", x->file, ffu__vendor_str(d.vendor_class));
		cr_expect(d.type & x->type, "%s", x->file);
		cr_expect_str_eq(d.arch, x->arch, "%s", x->file);
		cr_expect_eq(d.warp_width, x->warp, "%s: warp %u", x->file, d.warp_width);
		cr_expect_eq(d.int64, x->int64, "%s", x->file);
		cr_expect_eq((d.ext & FFU_EXT(FP64)) != 0, x->fp64, "%s", x->file);
		cr_expect(d.name[0] && d.driver[0] && d.platform_version[0] && d.max_wg && d.global_mem && d.compute_units,
			  "%s", x->file);
		cr_expect(k.max_wg > 0, "%s: kernel rows read", x->file);
		/* every fixture reports at least the full profile's 1024 parameter bytes */
		cr_expect(d.max_param_size >= 1024 && d.max_kernel_args == 64, "%s: %zu bytes -> %d kernel args", x->file,
			  d.max_param_size, d.max_kernel_args);

		ffu_profile p;
		ffu__profile_for(&p, &d);
		cr_expect_eq(p.wg, x->prof.wg, "%s: wg %zu", x->file, p.wg);
		cr_expect_eq(p.lanes, x->prof.lanes, "%s: lanes %d", x->file, p.lanes);
		cr_expect_eq(p.vector_width, x->prof.vector_width, "%s", x->file);
		cr_expect_eq(p.limb_bits, x->prof.limb_bits, "%s", x->file);
		const char *last = strrchr(p.source, '>');
		cr_expect(last && strcmp(last + 2, x->label) == 0, "%s: profile from '%s', expected '%s' last", x->file,
			  p.source, x->label);

		ffu_launch_request r = {.n = (size_t)1 << 24};
		ffu_launch_plan plan;
		ffu_error e = {0};
		cr_assert_eq(ffu__launch_plan(&plan, &d, &k, &p, &r, &e), FFU_STATUS_OK, "%s: %s", x->file, e.message);
		cr_expect_eq(plan.local, x->local, "%s: local %zu", x->file, plan.local);
		cr_expect_eq(plan.whole + plan.tail, r.n);
		if (d.warp_width)
			cr_expect_eq(plan.local % d.warp_width, 0, "%s: %zu is no multiple of the warp", x->file, plan.local);
	}
}

Test(caps, fixture_specifics)
{
	ffu_device_info d;
	ffu_kernel_limits k;
	load_fixture("nvidia_h200.json", &d, &k);
	cr_expect_eq(d.nv_cc_major, 9);
	cr_expect_eq(d.nv_cc_minor, 0);
	cr_expect_eq(d.vendor_id, 0x10de);
	cr_expect_eq(d.max_work_item_sizes[2], 64);
	cr_expect_str_eq(d.opencl_c_version, "OpenCL C 1.2", "trimmed: '%s'", d.opencl_c_version);
	load_fixture("nvidia_rtx3090.json", &d, &k);
	cr_expect_eq(d.nv_cc_major, 8);
	cr_expect_eq(d.nv_cc_minor, 6);
	cr_expect_eq(d.preferred_wg_multiple, 32);
	cr_expect_eq(d.max_param_size, 32764, "driver 550 reports 32764 parameter bytes");
	cr_expect_eq(d.max_kernel_args, 64);
	load_fixture("amd_radeon_vii.json", &d, &k);
	cr_expect_str_eq(d.board_name, "Vega 20 [Radeon VII]");
	cr_expect_str_eq(d.version, "OpenCL 2.0", "trimmed: '%s'", d.version);
	cr_expect_eq(d.amd_wavefront, 64);
	cr_expect_eq(d.preferred_wg_multiple, 0, "a 2.0 device has no device-level multiple");
	cr_expect_eq(k.preferred_multiple, 64);
	load_fixture("amd_rx7900xtx.json", &d, &k);
	cr_expect_str_eq(d.board_name, "AMD Radeon RX 7900 XTX");
	cr_expect_eq(d.amd_wavefront, 32);
	cr_expect_eq(d.compute_units, 48, "ROCm counts work-group processors, not CUs");
	cr_expect_eq(k.preferred_multiple, 32);
	load_fixture("intel_iris_xe.json", &d, &k);
	cr_expect_eq(d.intel_subgroup_sizes[0], 8);
	cr_expect_eq(d.intel_subgroup_sizes[1], 16);
	cr_expect_eq(d.intel_subgroup_sizes[2], 32);
	cr_expect_eq(d.intel_subgroup_sizes[3], 0);
	/* clinfo prints this word as "0x300c000 (12.12.0)", a cl_version reading; Intel's layout is 12.3.0 */
	cr_expect_eq(d.intel_ip_version, 0x300c000);
	cr_expect_str_eq(d.arch, "intel-12.3");
	cr_expect_str_eq(d.version, "OpenCL 3.0 NEO", "trimmed: '%s'", d.version);
	cr_expect_eq(d.max_wg, 512);
	cr_expect_eq(d.preferred_wg_multiple, 64);
	cr_expect_eq(d.max_param_size, 2048);
	cr_expect_eq(k.preferred_multiple, 64);
	load_fixture("pocl_cpu.json", &d, &k);
	/* PoCL's device says AuthenticAMD and vendor id 0x8086: neither may decide the class */
	cr_expect_str_eq(d.vendor, "AuthenticAMD");
	cr_expect_eq(d.vendor_id, 0x8086);
	cr_expect_eq(d.vendor_class, FFU_VENDOR_POCL);
	load_fixture("rusticl_llvmpipe.json", &d, &k);
	cr_expect_str_eq(d.version, "OpenCL 3.0", "padding trimmed");
	cr_expect(d.int64, "FULL_PROFILE has 64-bit integers without an extension");
}

/* Every fixture file has an expectation row: a new fixture cannot go untested. */
Test(caps, every_fixture_is_checked)
{
	char *dir = ffu_test_path(FIXTURES);
	DIR *dp = opendir(dir);
	cr_assert_not_null(dp, "%s", dir);
	struct dirent *de;
	int files = 0;
	while ((de = readdir(dp))) {
		size_t n = strlen(de->d_name);
		if (n < 6 || strcmp(de->d_name + n - 5, ".json") != 0)
			continue;
		files++;
		bool listed = false;
		for (size_t i = 0; i < N_EXPECTS; i++)
			listed |= strcmp(expects[i].file, de->d_name) == 0;
		cr_expect(listed, "%s has no row in expects[]", de->d_name);
	}
	closedir(dp);
	free(dir);
	cr_expect_eq(files, (int)N_EXPECTS);
}

static ffu_status parse_text(const char *text, ffu_device_info *d, ffu_error *e)
{
	return ffu__caps_from_json(d, NULL, text, strlen(text), "t.json", e);
}

/* A minimal valid fixture with one replacement: "%s" is spliced into the device object. */
static char *minimal(const char *extra_device, const char *platform_name)
{
	static const char fmt[] =
		"{\"platform\": {\"CL_PLATFORM_NAME\": \"%s\", \"CL_PLATFORM_VENDOR\": \"v\","
		" \"CL_PLATFORM_VERSION\": \"OpenCL 3.0\", \"CL_PLATFORM_EXTENSIONS\": \"\"},"
		" \"device\": {%s \"CL_DEVICE_NAME\": \"d\", \"CL_DEVICE_VENDOR\": \"v\", \"CL_DEVICE_VERSION\": \"OpenCL 3.0\","
		" \"CL_DRIVER_VERSION\": \"1\", \"CL_DEVICE_PROFILE\": \"FULL_PROFILE\", \"CL_DEVICE_TYPE\": \"CL_DEVICE_TYPE_GPU\","
		" \"CL_DEVICE_VENDOR_ID\": 0, \"CL_DEVICE_MAX_COMPUTE_UNITS\": 1, \"CL_DEVICE_MAX_WORK_GROUP_SIZE\": 64,"
		" \"CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS\": 3, \"CL_DEVICE_MAX_WORK_ITEM_SIZES\": [64, 64, 64],"
		" \"CL_DEVICE_GLOBAL_MEM_SIZE\": 1024, \"CL_DEVICE_MAX_MEM_ALLOC_SIZE\": 256, \"CL_DEVICE_LOCAL_MEM_SIZE\": 0,"
		" \"CL_DEVICE_MAX_PARAMETER_SIZE\": 256, \"CL_DEVICE_ADDRESS_BITS\": 32, \"CL_DEVICE_EXTENSIONS\": \"\"}}";
	size_t n = sizeof fmt + strlen(extra_device) + strlen(platform_name);
	char *s = malloc(n);
	cr_assert_not_null(s);
	snprintf(s, n, fmt, platform_name, extra_device);
	return s;
}

Test(caps, fixture_errors)
{
	ffu_device_info d;
	ffu_error e = {0};
	char *t = minimal("", "Other");
	cr_assert_eq(parse_text(t, &d, &e), FFU_STATUS_OK, "%s", e.message);
	cr_expect_eq(d.vendor_class, FFU_VENDOR_OTHER);
	cr_expect_eq(d.warp_width, 0);
	free(t);

	/* a misspelt key is an error, not a silently missing value */
	t = minimal("\"CL_DEVICE_WARP_SIZE\": 32,", "Other");
	cr_expect_eq(parse_text(t, &d, &e), FFU_STATUS_EPARSE);
	cr_expect(strstr(e.message, "CL_DEVICE_WARP_SIZE") && strstr(e.file, "t.json"), "%s", e.message);
	free(t);
	/* a kernel row in the device section is misplaced */
	t = minimal("\"CL_KERNEL_WORK_GROUP_SIZE\": 32,", "Other");
	cr_expect_eq(parse_text(t, &d, &e), FFU_STATUS_EPARSE);
	free(t);
	/* wrong types */
	t = minimal("\"CL_DEVICE_MAX_CLOCK_FREQUENCY\": \"fast\",", "Other");
	cr_expect_eq(parse_text(t, &d, &e), FFU_STATUS_EPARSE);
	cr_expect(strstr(e.message, "CL_DEVICE_MAX_CLOCK_FREQUENCY"), "%s", e.message);
	free(t);
	t = minimal("\"CL_DEVICE_MAX_CLOCK_FREQUENCY\": 4294967296,", "Other");
	cr_expect_eq(parse_text(t, &d, &e), FFU_STATUS_EPARSE, "a cl_uint holds no 2^32");
	free(t);
	t = minimal("\"CL_DEVICE_MAX_CLOCK_FREQUENCY\": -1,", "Other");
	cr_expect_eq(parse_text(t, &d, &e), FFU_STATUS_EPARSE);
	free(t);
	/* a vendor row whose extension is not listed is not read (as a live query would not ask) */
	t = minimal("\"CL_DEVICE_WARP_SIZE_NV\": 32,", "NVIDIA CUDA");
	cr_assert_eq(parse_text(t, &d, &e), FFU_STATUS_OK, "%s", e.message);
	cr_expect_eq(d.nv_warp, 0);
	cr_expect_eq(d.vendor_class, FFU_VENDOR_NVIDIA);
	cr_expect_eq(d.warp_width, 32, "every NVIDIA GPU has warps of 32");
	free(t);
	/* missing required rows, broken JSON, wrong top level */
	cr_expect_eq(parse_text("{\"platform\": {}, \"device\": {}}", &d, &e), FFU_STATUS_EPARSE);
	cr_expect(strstr(e.message, "CL_PLATFORM_NAME") && strstr(e.message, "missing"), "%s", e.message);
	cr_expect_eq(parse_text("{\"platform\": ", &d, &e), FFU_STATUS_EPARSE);
	cr_expect_str_eq(e.file, "t.json");
	cr_expect_gt(e.line, 0);
	cr_expect_eq(parse_text("[]", &d, &e), FFU_STATUS_EPARSE);
	cr_expect_eq(parse_text("{\"platform\": 1, \"device\": {}}", &d, &e), FFU_STATUS_EPARSE);
	ffu_error_clear(&e);
}

/* ---- extensions and classification --------------------------------------------------- */

Test(caps, extension_bits)
{
	cr_expect_eq(ffu__caps_ext_bits(NULL), 0);
	cr_expect_eq(ffu__caps_ext_bits(""), 0);
	cr_expect_eq(ffu__caps_ext_bits("cl_khr_fp64"), FFU_EXT(FP64));
	/* whole tokens only: a longer name is another extension */
	cr_expect_eq(ffu__caps_ext_bits("cl_khr_fp64_extra cl_khr_fp6"), 0);
	cr_expect_eq(ffu__caps_ext_bits("  cl_khr_icd\tcl_khr_fp64  "), FFU_EXT(FP64));
	cr_expect_eq(ffu__caps_ext_bits("cl_nv_device_attribute_query"), FFU_EXT(NV_ATTRIBUTES) | FFU_EXT(FAMILY_NV));
	cr_expect_eq(ffu__caps_ext_bits("cl_amd_media_ops"), FFU_EXT(FAMILY_AMD));
	cr_expect_eq(ffu__caps_ext_bits("cl_pocl_content_size"), FFU_EXT(FAMILY_POCL));
	cr_expect_eq(ffu__caps_ext_bits("cl_apple_gl_sharing"), FFU_EXT(FAMILY_APPLE));
	cr_expect_eq(ffu__caps_ext_bits("cl_APPLE_SetMemObjectDestructor"), FFU_EXT(FAMILY_APPLE));
	cr_expect_eq(ffu__caps_ext_bits("cles_khr_int64"), FFU_EXT(INT64_EMBEDDED));
	cr_expect_eq(ffu__caps_ext_bits("xcl_nv_thing"), 0);
}

Test(caps, classification_order)
{
	/* the platform name wins over everything the device says */
	cr_expect_eq(ffu__caps_classify("Portable Computing Language", 0, 0x8086, 0), FFU_VENDOR_POCL);
	cr_expect_eq(ffu__caps_classify("Portable Computing Language", 0, 0x10de, FFU_EXT(NV_ATTRIBUTES)), FFU_VENDOR_POCL);
	cr_expect_eq(ffu__caps_classify("rusticl", 0, 0x1002, 0), FFU_VENDOR_RUSTICL);
	cr_expect_eq(ffu__caps_classify("NVIDIA CUDA", 0, 0, 0), FFU_VENDOR_NVIDIA);
	cr_expect_eq(ffu__caps_classify("AMD Accelerated Parallel Processing", 0, 0, 0), FFU_VENDOR_AMD);
	cr_expect_eq(ffu__caps_classify("Intel(R) OpenCL Graphics", 0, 0, 0), FFU_VENDOR_INTEL);
	cr_expect_eq(ffu__caps_classify("Apple", 0, 0, 0), FFU_VENDOR_APPLE);
	/* a renamed platform: its extension family, then the PCI vendor id, then device extensions */
	cr_expect_eq(ffu__caps_classify("Renamed", FFU_EXT(FAMILY_POCL), 0x8086, 0), FFU_VENDOR_POCL);
	cr_expect_eq(ffu__caps_classify("Renamed", FFU_EXT(FAMILY_AMD), 0x10de, 0), FFU_VENDOR_AMD);
	cr_expect_eq(ffu__caps_classify("Renamed", 0, 0x10de, 0), FFU_VENDOR_NVIDIA);
	cr_expect_eq(ffu__caps_classify("Renamed", 0, 0x1002, 0), FFU_VENDOR_AMD);
	cr_expect_eq(ffu__caps_classify("Renamed", 0, 0x8086, 0), FFU_VENDOR_INTEL);
	cr_expect_eq(ffu__caps_classify("Renamed", 0, 0x1027f00, 0), FFU_VENDOR_APPLE);
	cr_expect_eq(ffu__caps_classify("Renamed", 0, 0, FFU_EXT(AMD_ATTRIBUTES)), FFU_VENDOR_AMD);
	cr_expect_eq(ffu__caps_classify("Renamed", 0, 0, FFU_EXT(INTEL_SUBGROUPS)), FFU_VENDOR_INTEL);
	cr_expect_eq(ffu__caps_classify("Clover", 0, 0x10005, 0), FFU_VENDOR_OTHER);
	cr_expect_eq(ffu__caps_classify(NULL, 0, 0, 0), FFU_VENDOR_OTHER);
	cr_expect_str_eq(ffu__vendor_str(FFU_VENDOR_COUNT), "other");
	cr_expect_str_eq(ffu__vendor_str((ffu_vendor)-1), "other");
}

Test(caps, amd_wave_width_without_the_query)
{
	ffu_device_info d;
	memset(&d, 0, sizeof d);
	strcpy(d.platform_name, "AMD Accelerated Parallel Processing");
	d.type = CL_DEVICE_TYPE_GPU;
	strcpy(d.name, "gfx90a:sramecc+:xnack-");
	ffu__caps_derive(&d);
	cr_expect_str_eq(d.arch, "gfx90a");
	cr_expect_eq(d.warp_width, 64);
	strcpy(d.name, "gfx1201");
	ffu__caps_derive(&d);
	cr_expect_str_eq(d.arch, "gfx1201");
	cr_expect_eq(d.warp_width, 32);
	/* ROCm 2.x-3.x joined the feature flag with '+' (recorded in ROCm/ROCm#808) */
	strcpy(d.name, "gfx906+sram-ecc");
	ffu__caps_derive(&d);
	cr_expect_str_eq(d.arch, "gfx906");
	cr_expect_eq(d.warp_width, 64);
	strcpy(d.name, "Radeon something");
	ffu__caps_derive(&d);
	cr_expect_str_eq(d.arch, "");
	cr_expect_eq(d.warp_width, 0);
}

/* ---- the profile table --------------------------------------------------------------- */

Test(caps, profile_layers)
{
	ffu_device_info d;
	ffu_kernel_limits k;
	ffu_profile p;
	load_fixture("nvidia_h200.json", &d, &k);
	ffu__profile_for(&p, &d);
	/* least to most specific: default, gpu, nvidia, hopper */
	cr_expect_str_eq(p.source, "table: default > gpu > nvidia > hopper sm_90");
	cr_expect_not(p.wg_tuned);

	d.tuned = (ffu_params){.wg = 128, .lanes = 2};
	ffu__profile_for(&p, &d);
	cr_expect_eq(p.wg, 128);
	cr_expect_eq(p.lanes, 2);
	cr_expect_eq(p.vector_width, 4, "not in the entry: from the table");
	cr_expect(p.wg_tuned);
	cr_expect(strstr(p.source, "; tuned"), "%s", p.source);

	d.override = (ffu_params){.lanes = 8};
	ffu__profile_for(&p, &d);
	cr_expect_eq(p.wg, 128);
	cr_expect_eq(p.lanes, 8);
	cr_expect(strstr(p.source, "; override"), "%s", p.source);

	ffu_profile b;
	ffu__profile_builtin(&b, &d);
	cr_expect_eq(b.wg, 256, "the built-in profile ignores the entry and the override");
	cr_expect_eq(b.lanes, 1);

	/* an unknown vendor's GPU and CPU get the generic rows */
	memset(&d, 0, sizeof d);
	d.type = CL_DEVICE_TYPE_CPU;
	ffu__profile_for(&p, &d);
	cr_expect_str_eq(p.source, "table: default > cpu");
	cr_expect_eq(p.lanes, 4);
	cr_expect_eq(p.wg, 256);
}

/* The NVIDIA architecture rows, on the recorded RTX 3090 with the compute capability of each
   generation that has a row (no Hopper or Blackwell dump with a citable source was found). */
Test(caps, nvidia_arch_rows)
{
	static const struct {
		cl_uint major, minor;
		const char *arch, *label;
	} gens[] = {{8, 6, "sm_86", "nvidia"},
		    {9, 0, "sm_90", "hopper sm_90"},
		    {10, 0, "sm_100", "blackwell sm_100"},
		    {12, 0, "sm_120", "blackwell sm_120"}};
	for (size_t i = 0; i < sizeof gens / sizeof gens[0]; i++) {
		ffu_device_info d;
		ffu_kernel_limits k;
		ffu_profile p;
		load_fixture("nvidia_rtx3090.json", &d, &k);
		d.nv_cc_major = gens[i].major;
		d.nv_cc_minor = gens[i].minor;
		ffu__caps_derive(&d);
		cr_expect_str_eq(d.arch, gens[i].arch);
		cr_expect_eq(d.warp_width, 32);
		ffu__profile_for(&p, &d);
		const char *last = strrchr(p.source, '>');
		cr_expect(last && strcmp(last + 2, gens[i].label) == 0, "%s: profile from '%s'", gens[i].arch, p.source);
		cr_expect_eq(p.wg, 256);
	}
}

/* Every row is reachable and consistent: limb 32 or 64, sizes multiples of 64 (any warp). */
Test(caps, profile_rows_sane)
{
	for (size_t i = 0; i < ffu__profile_n_rows; i++) {
		const ffu_profile_row *r = &ffu__profile_rows[i];
		cr_expect(r->label && r->label[0]);
		cr_expect(ffu__tuning_valid(&r->p), "row %s", r->label);
		cr_expect(r->p.wg % 64 == 0, "row %s: %zu", r->label, r->p.wg);
	}
}

Test(caps, profile_build_options)
{
	ffu_profile p = {.limb_bits = 32, .vector_width = 1};
	char buf[96];
	ffu__profile_build_options(&p, buf, sizeof buf);
	cr_expect_str_eq(buf, "");
	p.limb_bits = 64;
	ffu__profile_build_options(&p, buf, sizeof buf);
	cr_expect_str_eq(buf, "-DFFU_MONT256_LIMB64");
	p.vector_width = 4;
	ffu__profile_build_options(&p, buf, sizeof buf);
	cr_expect_str_eq(buf, "-DFFU_MONT256_LIMB64 -DFFU_VECTOR_LOADS");
	p.limb_bits = 32;
	ffu__profile_build_options(&p, buf, sizeof buf);
	cr_expect_str_eq(buf, "-DFFU_VECTOR_LOADS");
	p.no_ptx = true;
	ffu__profile_build_options(&p, buf, sizeof buf);
	cr_expect_str_eq(buf, "-DFFU_VECTOR_LOADS -DFFU_NO_PTX");
	p.vector_width = 1;
	ffu__profile_build_options(&p, buf, sizeof buf);
	cr_expect_str_eq(buf, "-DFFU_NO_PTX");
	/* a buffer too small for every define: cut, still terminated */
	p.limb_bits = 64;
	ffu__profile_build_options(&p, buf, 8);
	cr_expect_str_eq(buf, "-DFFU_M");
	p.no_ptx = false;
	p.limb_bits = 32;
	/* GPUs get vector loads from the table, CPUs nothing */
	ffu_device_info d;
	ffu_kernel_limits k;
	load_fixture("amd_radeon_vii.json", &d, &k);
	ffu__profile_for(&p, &d);
	ffu__profile_build_options(&p, buf, sizeof buf);
	cr_expect_str_eq(buf, "-DFFU_VECTOR_LOADS");
	load_fixture("pocl_cpu.json", &d, &k);
	ffu__profile_for(&p, &d);
	ffu__profile_build_options(&p, buf, sizeof buf);
	cr_expect_str_eq(buf, "");
}

/* Which carries the 256-bit code uses, as `fieldfuse devices` lists it. */
Test(caps, profile_carries)
{
	static const struct {
		const char *fixture, *builtin;
	} cases[] = {{"nvidia_h200.json", "ptx"}, {"amd_radeon_vii.json", "portable"}, {"pocl_cpu.json", "portable"}};
	ffu_device_info d;
	ffu_kernel_limits k;
	ffu_profile p;
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		load_fixture(cases[c].fixture, &d, &k);
		ffu__profile_for(&p, &d);
		cr_expect_str_eq(ffu__profile_carries(&p, &d), cases[c].builtin, "%s", cases[c].fixture);
	}
	/* on the NVIDIA device: FIELDFUSE_NO_PTX, then 64-bit limbs */
	load_fixture("nvidia_h200.json", &d, &k);
	ffu__profile_for(&p, &d);
	p.no_ptx = true;
	cr_expect_str_eq(ffu__profile_carries(&p, &d), "portable");
	p.no_ptx = false;
	p.limb_bits = 64;
	cr_expect_str_eq(ffu__profile_carries(&p, &d), "none");
}

/* ---- resolved targets ---------------------------------------------------------------- */

/* Every fixture's target: the class decides the fold and the containers, the profile the rest. */
Test(caps, target_from_fixtures)
{
	static const struct {
		const char *fixture, *carries, *options;
		ffu_device_class cls;
		int lanes;
	} cases[] = {
		{"pocl_cpu.json", "portable", "", FFU_DEVICE_CLASS_CPU, 4},
		{"rusticl_llvmpipe.json", "portable", "", FFU_DEVICE_CLASS_CPU, 4},
		{"nvidia_h200.json", "ptx", "-DFFU_VECTOR_LOADS", FFU_DEVICE_CLASS_GPU, 1},
		{"nvidia_rtx3090.json", "ptx", "-DFFU_VECTOR_LOADS", FFU_DEVICE_CLASS_GPU, 1},
		{"amd_radeon_vii.json", "portable", "-DFFU_VECTOR_LOADS", FFU_DEVICE_CLASS_GPU, 1},
		{"amd_rx7900xtx.json", "portable", "-DFFU_VECTOR_LOADS", FFU_DEVICE_CLASS_GPU, 1},
		{"intel_iris_xe.json", "portable", "-DFFU_VECTOR_LOADS", FFU_DEVICE_CLASS_GPU, 1},
		{"intel_max1550.json", "portable", "-DFFU_VECTOR_LOADS", FFU_DEVICE_CLASS_GPU, 1},
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		char rel[256];
		size_t len = 0;
		ffu_error e = {0};
		ffu_target t;
		ffu_device_info d;
		snprintf(rel, sizeof rel, FIXTURES "/%s", cases[c].fixture);
		char *path = ffu_test_path(rel);
		char *text = ffu_test_read_file(path, &len);
		cr_assert(text, "%s", path);
		cr_assert_eq(ffu__target_from_json(&t, &d, text, len, path, &e), FFU_STATUS_OK, "%s", e.message);
		bool cpu = cases[c].cls == FFU_DEVICE_CLASS_CPU;
		cr_expect_eq(t.cls, cases[c].cls, "%s", cases[c].fixture);
		cr_expect_eq(t.fold, cpu ? FFU_FOLD_SERIAL : FFU_FOLD_TREE, "%s", cases[c].fixture);
		cr_expect_eq(t.ext_w64, cpu, "%s", cases[c].fixture);
		cr_expect_eq(t.profile.lanes, cases[c].lanes, "%s", cases[c].fixture);
		cr_expect_eq(t.profile.wg, 256, "%s", cases[c].fixture);
		cr_expect_str_eq(t.carries, cases[c].carries, "%s", cases[c].fixture);
		cr_expect_str_eq(t.build_options, cases[c].options, "%s", cases[c].fixture);
		cr_expect(d.name[0], "%s: the device record comes back", cases[c].fixture);
		free(text);
		free(path);
	}
	/* a fixture that is not one: the parser's error, no target */
	ffu_error e = {0};
	ffu_target t;
	cr_expect_eq(ffu__target_from_json(&t, NULL, "{}", 2, "empty.json", &e), FFU_STATUS_EPARSE);
}

/*
 * Lanes change only lanes: a CPU with one lane (FIELDFUSE_LANES=1, `tune --lanes 1`, the
 * override) keeps the CPU's fold and containers, a GPU with four lanes the GPU's.
 */
Test(caps, target_lanes_keep_class)
{
	ffu_device_info d;
	ffu_kernel_limits k;
	ffu_target t;
	load_fixture("pocl_cpu.json", &d, &k);
	d.override = (ffu_params){.lanes = 1, .limb_bits = 64};
	ffu__target_resolve(&t, &d);
	cr_expect_eq(t.profile.lanes, 1);
	cr_expect_eq(t.cls, FFU_DEVICE_CLASS_CPU);
	cr_expect_eq(t.fold, FFU_FOLD_SERIAL);
	cr_expect(t.ext_w64);
	cr_expect_str_eq(t.build_options, "-DFFU_MONT256_LIMB64");
	cr_expect_str_eq(t.carries, "none");
	load_fixture("amd_radeon_vii.json", &d, &k);
	d.tuned = (ffu_params){.lanes = 4, .wg = 128};
	ffu__target_resolve(&t, &d);
	cr_expect_eq(t.profile.lanes, 4);
	cr_expect_eq(t.profile.wg, 128);
	cr_expect(t.profile.wg_tuned);
	cr_expect_eq(t.cls, FFU_DEVICE_CLASS_GPU);
	cr_expect_eq(t.fold, FFU_FOLD_TREE);
	cr_expect_not(t.ext_w64);
	/* device-less targets, as `compile --emit cl` makes them */
	ffu__target_generic(&t, FFU_DEVICE_CLASS_CPU, 1);
	cr_expect_eq(t.profile.lanes, 1);
	cr_expect_eq(t.fold, FFU_FOLD_SERIAL);
	cr_expect_str_eq(ffu__device_class_str(t.cls), "cpu");
	ffu__target_generic(&t, FFU_DEVICE_CLASS_GPU, 8);
	cr_expect_eq(t.profile.lanes, 8);
	cr_expect_eq(t.fold, FFU_FOLD_TREE);
	cr_expect_str_eq(t.build_options, "-DFFU_VECTOR_LOADS");
	cr_expect_str_eq(ffu__device_class_str(t.cls), "gpu");
}

/*
 * The NTT's vector passes (codegen/fft_vec.c): PoCL on a CPU with 8 ulong lanes (AVX-512)
 * computes 8-byte fields' passes in their vector instance, whose scalar passes would run
 * one column at a time there, every pass; with 16 uint lanes, 4-byte fields' interior
 * passes (device/target.c). With 4 / 8 lanes (AVX2) and on Rusticl it keeps the scalar
 * passes. The radices stay the CPU's either way.
 */
Test(caps, target_fft_vector_64bit_lanes)
{
	ffu_device_info d;
	ffu_kernel_limits k;
	ffu_target t;
	load_fixture("pocl_cpu.json", &d, &k);
	d.native_vector_long = 4;
	d.native_vector_int = 8;
	ffu__target_resolve(&t, &d);
	cr_expect_not(t.fft_vector[1]);
	cr_expect_not(t.fft_vector[0]);
	cr_expect_eq(t.fft_log_radix[1], 4);
	d.native_vector_long = 8;
	d.native_vector_int = 16;
	ffu__target_resolve(&t, &d);
	cr_expect(t.fft_vector[1]);
	cr_expect(t.fft_vector_ends[1], "Goldilocks: every pass");
	cr_expect(t.fft_vector[0]);
	cr_expect_not(t.fft_vector_ends[0], "31-bit fields: interior passes only");
	cr_expect_not(t.fft_vector[2]);
	cr_expect_eq(t.fft_stream_bytes, (size_t)32 << 20, "their stores streamed beyond 32 MiB");
	cr_expect_eq(t.fft_log_radix[0], 5);
	cr_expect_eq(t.fft_log_radix[1], 4);
	cr_expect_eq(t.fft_log_radix_big[1], 4);
	load_fixture("rusticl_llvmpipe.json", &d, &k);
	d.native_vector_long = 8;
	d.native_vector_int = 16;
	ffu__target_resolve(&t, &d);
	cr_expect_not(t.fft_vector[1], "measured on PoCL only");
	cr_expect_not(t.fft_vector[0], "measured on PoCL only");
}

/* The NTT's first-pass radix and small-p work-groups: CPUs (device/target.c), not GPUs. */
Test(caps, target_fft_first_pass)
{
	ffu_device_info d;
	ffu_kernel_limits k;
	ffu_target t;
	load_fixture("pocl_cpu.json", &d, &k);
	ffu__target_resolve(&t, &d);
	for (int i = 0; i < 3; i++)
		cr_expect_eq(t.fft_log_radix_first[i], 3, "class %d", i);
	cr_expect(t.fft_wg_p);
	load_fixture("nvidia_h200.json", &d, &k);
	ffu__target_resolve(&t, &d);
	for (int i = 0; i < 3; i++)
		cr_expect_eq(t.fft_log_radix_first[i], 0, "class %d", i);
	cr_expect_not(t.fft_wg_p);
	cr_expect_eq(t.fft_stream_bytes, 0, "GPUs take no vector passes, nor streamed stores");
}

/* ---- launch plans -------------------------------------------------------------------- */

/* The properties every automatic plan has; returns its local size. */
static size_t check_auto(const ffu_device_info *d, const ffu_kernel_limits *k, const ffu_profile *p, size_t n,
			 size_t offset)
{
	ffu_launch_request r = {.n = n, .offset = offset};
	ffu_launch_plan plan;
	ffu_error e = {0};
	ffu_status st = ffu__launch_plan(&plan, d, k, p, &r, &e);
	cr_assert_eq(st, FFU_STATUS_OK, "n=%zu: %s", n, e.message);
	size_t l = plan.local;
	cr_assert(l >= 1 && l <= n, "n=%zu -> %zu", n, l);
	cr_assert(!k->max_wg || l <= k->max_wg, "n=%zu kmax=%zu -> %zu", n, k->max_wg, l);
	cr_assert(!d->max_wg || l <= d->max_wg, "n=%zu dmax=%zu -> %zu", n, d->max_wg, l);
	cr_assert(!d->max_work_item_sizes[0] || l <= d->max_work_item_sizes[0]);
	/* exactly [offset, offset + n): whole groups then single work-items */
	cr_assert_eq(plan.whole % l, 0);
	cr_assert_eq(plan.whole + plan.tail, n);
	cr_assert(plan.tail < l || l == 1, "tail %zu with groups of %zu", plan.tail, l);
	cr_assert_str_eq(plan.origin, p->wg_tuned ? "tuned" : "profile");
	return l;
}

Test(caps, launch_plan_properties, .timeout = 600)
{
	static const char *const files[] = {"nvidia_rtx3090.json", "amd_radeon_vii.json", "intel_iris_xe.json",
					    "pocl_cpu.json", "rusticl_llvmpipe.json"};
	const size_t kmaxes[] = {0, 1, 3, 7, 64, 100, 256, 1000, 4096};
	const size_t prefs[] = {0, 1, 3, 8, 32, 64, 300};
	const size_t tuned[] = {0, 1, 3, 64, 100, 256, 1024, 5000};
	for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
		ffu_device_info d;
		ffu_kernel_limits k0;
		load_fixture(files[f], &d, &k0);
		for (size_t a = 0; a < sizeof kmaxes / sizeof kmaxes[0]; a++)
		for (size_t b = 0; b < sizeof prefs / sizeof prefs[0]; b++)
		for (size_t c = 0; c < sizeof tuned / sizeof tuned[0]; c++) {
			ffu_kernel_limits k = {kmaxes[a], prefs[b]};
			d.tuned = (ffu_params){.wg = tuned[c]};
			ffu_profile p;
			ffu__profile_for(&p, &d);
			size_t limit = p.wg;
			if (k.max_wg && k.max_wg < limit)
				limit = k.max_wg;
			if (d.max_wg < limit)
				limit = d.max_wg;
			if (d.max_work_item_sizes[0] && d.max_work_item_sizes[0] < limit)
				limit = d.max_work_item_sizes[0];
			size_t pm = k.preferred_multiple ? k.preferred_multiple : d.preferred_wg_multiple;
			pm = pm ? pm : 1;
			size_t full = check_auto(&d, &k, &p, (size_t)1 << 30, 0);
			/* the full size is the largest multiple of the preferred size within the limits */
			if (pm <= limit)
				cr_assert(full % pm == 0 && full > limit - pm && full <= limit, "%s: limit %zu pm %zu full %zu",
					  files[f], limit, pm, full);
			else
				cr_assert_eq(full, limit);
			for (size_t n = 1; n <= 3000000; n += n < 700 ? 1 : 99991) {
				size_t l = check_auto(&d, &k, &p, n, n % 3 ? 0 : 77);
				cr_assert(l <= full, "n=%zu: %zu above the large-n size %zu", n, l, full);
				if (n >= full)
					cr_assert_eq(l, full, "n=%zu", n);
				else if (p.small_in_ones)
					cr_assert_eq(l, 1, "%s n=%zu: groups of one below a whole group", files[f], n);
				else if (pm <= limit)
					cr_assert((l & (l - 1)) == 0 && l * 2 > n, "n=%zu -> %zu", n, l);
			}
		}
	}
}

Test(caps, launch_plan_requests)
{
	ffu_device_info d;
	ffu_kernel_limits k;
	ffu_profile p;
	ffu_launch_plan plan;
	ffu_error e = {0};
	load_fixture("amd_radeon_vii.json", &d, &k); /* 256 per group at most */
	d.tuned = (ffu_params){.wg = 128};
	ffu__profile_for(&p, &d);

	ffu_launch_request r = {.n = 1000};
	cr_assert_eq(ffu__launch_plan(&plan, &d, &k, &p, &r, &e), FFU_STATUS_OK);
	cr_expect_eq(plan.local, 128);
	cr_expect_str_eq(plan.origin, "tuned");
	/* FIELDFUSE_WG_SIZE beats the tuning entry, the override beats both, the caller beats all */
	r.env_wg = 64;
	cr_assert_eq(ffu__launch_plan(&plan, &d, &k, &p, &r, &e), FFU_STATUS_OK);
	cr_expect_eq(plan.local, 64);
	cr_expect_str_eq(plan.origin, "FIELDFUSE_WG_SIZE");
	d.override.wg = 32;
	cr_assert_eq(ffu__launch_plan(&plan, &d, &k, &p, &r, &e), FFU_STATUS_OK);
	cr_expect_eq(plan.local, 32);
	cr_expect_str_eq(plan.origin, "override");
	r.wg = 3; /* explicit sizes need not be multiples of anything */
	cr_assert_eq(ffu__launch_plan(&plan, &d, &k, &p, &r, &e), FFU_STATUS_OK);
	cr_expect_eq(plan.local, 3);
	cr_expect_eq(plan.whole, 999);
	cr_expect_eq(plan.tail, 1);
	cr_expect_str_eq(plan.origin, "explicit");

	/* requested sizes are refused beyond a limit, never silently lowered */
	r.wg = 512;
	cr_expect_eq(ffu__launch_plan(&plan, &d, &k, &p, &r, &e), FFU_STATUS_ELIMIT);
	cr_expect(strstr(e.message, "explicit") && strstr(e.message, "512"), "%s", e.message);
	r.wg = 0;
	d.override.wg = 1024;
	cr_expect_eq(ffu__launch_plan(&plan, &d, &k, &p, &r, &e), FFU_STATUS_ELIMIT);
	cr_expect(strstr(e.message, "override"), "%s", e.message);
	d.override.wg = 0;
	r.env_wg = 4096;
	cr_expect_eq(ffu__launch_plan(&plan, &d, &k, &p, &r, &e), FFU_STATUS_ELIMIT);
	cr_expect(strstr(e.message, "FIELDFUSE_WG_SIZE"), "%s", e.message);
	/* ... but a tuned size beyond the limits is lowered: it was measured elsewhere */
	r.env_wg = 0;
	d.tuned.wg = 4096;
	ffu__profile_for(&p, &d);
	cr_assert_eq(ffu__launch_plan(&plan, &d, &k, &p, &r, &e), FFU_STATUS_OK);
	cr_expect_eq(plan.local, 256);

	/* requests above n: explicit is an error, the others become a power of two below n */
	r.n = 5;
	r.wg = 8;
	cr_expect_eq(ffu__launch_plan(&plan, &d, &k, &p, &r, &e), FFU_STATUS_EINVAL);
	r.wg = 0;
	r.env_wg = 64;
	cr_assert_eq(ffu__launch_plan(&plan, &d, &k, &p, &r, &e), FFU_STATUS_OK);
	cr_expect_eq(plan.local, 4);
	cr_expect_eq(plan.tail, 1);
	/* n = 0, and ids beyond a 32-bit device */
	r.n = 0;
	cr_expect_eq(ffu__launch_plan(&plan, &d, &k, &p, &r, &e), FFU_STATUS_EINVAL);
	d.address_bits = 32;
	r.n = 100;
	r.offset = 0xffffffffull - 50;
	cr_expect_eq(ffu__launch_plan(&plan, &d, &k, &p, &r, &e), FFU_STATUS_ELIMIT);
	r.offset = 0xffffffffull - 100;
	cr_expect_eq(ffu__launch_plan(&plan, &d, &k, &p, &r, &e), FFU_STATUS_OK, "%s", e.message);
	ffu_error_clear(&e);
}

Test(caps, parse_wg)
{
	size_t v;
	ffu_error e = {0};
	cr_expect_eq(ffu__launch_parse_wg(NULL, &v, &e), FFU_STATUS_OK);
	cr_expect_eq(v, 0);
	cr_expect_eq(ffu__launch_parse_wg("", &v, &e), FFU_STATUS_OK);
	cr_expect_eq(ffu__launch_parse_wg("128", &v, &e), FFU_STATUS_OK);
	cr_expect_eq(v, 128);
	const char *bad[] = {"0", "-1", "+1", " 1", "1 ", "0x10", "abc", "99999999999999999999999"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		cr_expect_eq(ffu__launch_parse_wg(bad[i], &v, &e), FFU_STATUS_EINVAL, "'%s'", bad[i]);
}

/* ---- tuning database and cache folder ------------------------------------------------ */

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	fclose(f);
}

Test(caps, tuning_db)
{
	ffu_device_info a, b;
	ffu_kernel_limits k;
	ffu_params p;
	ffu_error e = {0};
	bool found = true;
	char path[256];
	load_fixture("pocl_cpu.json", &a, &k);
	load_fixture("nvidia_h200.json", &b, &k);
	snprintf(path, sizeof path, "%s/tuning.json", tmpdir);

	cr_assert_eq(ffu__tuning_lookup(&p, &found, &a, &e), FFU_STATUS_OK, "no file is no error: %s", e.message);
	cr_expect_not(found);

	ffu_params pa = {.wg = 64, .lanes = 2}, pb = {.wg = 512, .limb_bits = 64};
	cr_assert_eq(ffu__tuning_store(&a, &pa, NULL, &e), FFU_STATUS_OK, "%s", e.message);
	json_t *tune = json_pack("{s:f}", "gain", 1.5);
	cr_assert_eq(ffu__tuning_store(&b, &pb, tune, &e), FFU_STATUS_OK, "%s", e.message);
	json_decref(tune); /* borrowed by the store */
	cr_assert_eq(ffu__tuning_lookup(&p, &found, &a, &e), FFU_STATUS_OK, "%s", e.message);
	cr_expect(found);
	cr_expect_eq(p.wg, 64);
	cr_expect_eq(p.lanes, 2);
	cr_expect_eq(p.limb_bits, 0);
	cr_assert_eq(ffu__tuning_lookup(&p, &found, &b, &e), FFU_STATUS_OK);
	cr_expect(found && p.wg == 512 && p.limb_bits == 64 && p.lanes == 0);

	/* replacing keeps one entry per device */
	pa.wg = 32;
	cr_assert_eq(ffu__tuning_store(&a, &pa, NULL, &e), FFU_STATUS_OK);
	json_error_t je;
	json_t *root = json_load_file(path, 0, &je);
	cr_assert_not_null(root, "%s", je.text);
	cr_expect_eq(json_array_size(json_object_get(root, "entries")), 2);
	json_decref(root);
	cr_assert_eq(ffu__tuning_lookup(&p, &found, &a, &e), FFU_STATUS_OK);
	cr_expect_eq(p.wg, 32);

	/* another driver version: the entry is stale, so not found */
	strcpy(a.driver, "3.2");
	cr_assert_eq(ffu__tuning_lookup(&p, &found, &a, &e), FFU_STATUS_OK);
	cr_expect_not(found);
	strcpy(a.driver, "3.1+debian");

	/* out-of-bounds values are refused on store and on lookup */
	ffu_params bad = {.limb_bits = 48};
	cr_expect_eq(ffu__tuning_store(&a, &bad, NULL, &e), FFU_STATUS_EINVAL);
	write_file(path, "{\"format\": \"fieldfuse-tuning\", \"version\": 1, \"entries\": [{\"platform\": "
			 "\"Portable Computing Language\", \"device\": \"pthread-skylake-avx512-AMD EPYC\", \"driver\": "
			 "\"3.1+debian\", \"params\": {\"wg\": 0}}]}");
	cr_expect_eq(ffu__tuning_lookup(&p, &found, &a, &e), FFU_STATUS_EPARSE);
	cr_expect_not(found);

	/* a corrupt file: lookup says so (opening a device ignores it), store replaces it */
	write_file(path, "{\"format\": \"fieldfuse-tuning\", \"entr");
	cr_expect_eq(ffu__tuning_lookup(&p, &found, &a, &e), FFU_STATUS_EPARSE);
	cr_expect(strstr(e.file, "tuning.json"), "%s", e.file);
	write_file(path, "[1, 2, 3]");
	cr_expect_eq(ffu__tuning_lookup(&p, &found, &a, &e), FFU_STATUS_EPARSE);
	cr_assert_eq(ffu__tuning_store(&a, &pa, NULL, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu__tuning_lookup(&p, &found, &a, &e), FFU_STATUS_OK, "%s", e.message);
	cr_expect(found && p.wg == 32);
	ffu_error_clear(&e);
}

Test(caps, cache_folder)
{
	char *dir = NULL;
	ffu_error e = {0};
	setenv("FIELDFUSE_CACHE_DIR", "/a/b", 1);
	setenv("XDG_CACHE_HOME", "/x", 1);
	setenv("HOME", "/h", 1);
	cr_assert_eq(ffu__cache_dir(&dir, &e), FFU_STATUS_OK);
	cr_expect_str_eq(dir, "/a/b");
	free(dir);
	unsetenv("FIELDFUSE_CACHE_DIR");
	cr_assert_eq(ffu__cache_dir(&dir, &e), FFU_STATUS_OK);
	cr_expect_str_eq(dir, "/x/fieldfuse");
	free(dir);
	setenv("XDG_CACHE_HOME", "relative", 1); /* the XDG spec says to ignore it */
	cr_assert_eq(ffu__cache_dir(&dir, &e), FFU_STATUS_OK);
	cr_expect_str_eq(dir, "/h/.cache/fieldfuse");
	free(dir);
	unsetenv("XDG_CACHE_HOME");
	unsetenv("HOME");
	cr_expect_eq(ffu__cache_dir(&dir, &e), FFU_STATUS_EIO);
	cr_expect_null(dir);
	cr_expect(strstr(e.message, "FIELDFUSE_CACHE_DIR"), "%s", e.message);

	/* mkdir -p, and a clear error where a file is in the way */
	char deep[256], blocker[256];
	snprintf(deep, sizeof deep, "%s/x/y/z", tmpdir);
	cr_expect_eq(ffu__cache_mkdir(deep, &e), FFU_STATUS_OK, "%s", e.message);
	cr_expect_eq(ffu__cache_mkdir(deep, &e), FFU_STATUS_OK, "again");
	snprintf(blocker, sizeof blocker, "%s/file", tmpdir);
	write_file(blocker, "x");
	snprintf(deep, sizeof deep, "%s/file/sub", tmpdir);
	cr_expect_eq(ffu__cache_mkdir(deep, &e), FFU_STATUS_EIO);
	ffu_error_clear(&e);
}

/* ---- real devices -------------------------------------------------------------------- */

#define ON_BOTH(name)                                                     \
	static void name##_on(const char *sel);                           \
	Test(caps, name##_pocl)                                            \
	{                                                                  \
		name##_on(ffu_test_devices[0]);                            \
	}                                                                  \
	Test(caps, name##_rusticl)                                         \
	{                                                                  \
		name##_on(ffu_test_devices[1]);                            \
	}                                                                  \
	static void name##_on(const char *sel)

static void open_dev(ffu_cl *cl, const char *sel)
{
	ffu_error e = {0};
	ffu_device_info d;
	cr_assert_eq(ffu__cl_select(&d, sel, &e), FFU_STATUS_OK, "device '%s' missing: %s", sel, e.message);
	cr_assert_eq(ffu__cl_open(cl, &d, &e), FFU_STATUS_OK, "open '%s': %s", sel, e.message);
}

ON_BOTH(real_device_classifies)
{
	ffu_device_info d;
	ffu_error e = {0};
	bool pocl = strcmp(sel, "pocl") == 0;
	cr_assert_eq(ffu__cl_select(&d, sel, &e), FFU_STATUS_OK, "device '%s' missing: %s", sel, e.message);
	cr_expect_eq(d.vendor_class, pocl ? FFU_VENDOR_POCL : FFU_VENDOR_RUSTICL);
	cr_expect(d.type & CL_DEVICE_TYPE_CPU);
	cr_expect(d.int64);
	cr_expect_str_eq(d.profile, "FULL_PROFILE");
	cr_expect_str_eq(d.arch, "");
	cr_expect_eq(d.warp_width, 0);
	cr_expect(d.max_work_item_dims >= 3 && d.max_work_item_sizes[0] >= 1);
	cr_expect(d.preferred_wg_multiple >= 1, "OpenCL 3.0 platforms answer the device-level multiple");
	cr_expect(d.platform_vendor[0] && d.platform_version[0] && d.opencl_c_version[0]);
	cr_expect_eq(d.ext & (FFU_EXT(NV_ATTRIBUTES) | FFU_EXT(AMD_ATTRIBUTES)), 0);
	if (pocl)
		cr_expect(d.platform_ext & FFU_EXT(FAMILY_POCL), "PoCL's platform lists cl_pocl_content_size");
	ffu_profile p;
	ffu__profile_for(&p, &d);
	cr_expect_eq(p.lanes, 4);
	cr_expect_eq(p.vector_width, 1);
	cr_expect(strstr(p.source, pocl ? "pocl cpu" : "rusticl llvmpipe"), "%s", p.source);
	/* the JSON view carries every row */
	json_t *o = ffu__caps_to_json(&d);
	cr_assert_not_null(o);
	cr_expect_str_eq(json_string_value(json_object_get(o, "class")), sel);
	for (size_t i = 0; i < ffu__cap_n_rows; i++)
		if (ffu__cap_rows[i].scope != FFU_CAP_KERNEL)
			cr_expect_not_null(json_object_get(o, ffu__cap_rows[i].key), "%s", ffu__cap_rows[i].key);
	json_decref(o);
}

static const char *const mark_src =
	"__kernel void mark(__global uint *count, __global uint *lsz)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	atomic_inc(&count[i]);\n"
	"	lsz[i] = (uint)get_local_size(0);\n"
	"}\n";

typedef struct marker {
	cl_program prog;
	cl_kernel k;
	cl_mem count, lsz;
	size_t cap;
} marker;

static void marker_open(ffu_cl *cl, marker *m, size_t cap)
{
	ffu_error e = {0};
	memset(m, 0, sizeof *m);
	m->cap = cap;
	cr_assert_eq(ffu__cl_build(cl, &m->prog, mark_src, NULL, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu__cl_kernel(m->prog, &m->k, "mark", &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu__cl_buffer(cl, &m->count, cap * 4, &e), FFU_STATUS_OK);
	cr_assert_eq(ffu__cl_buffer(cl, &m->lsz, cap * 4, &e), FFU_STATUS_OK);
	cr_assert_eq(ffu__cl_set_arg(m->k, 0, sizeof m->count, &m->count, &e), FFU_STATUS_OK);
	cr_assert_eq(ffu__cl_set_arg(m->k, 1, sizeof m->lsz, &m->lsz, &e), FFU_STATUS_OK);
}

static void marker_close(marker *m)
{
	ffu__cl_buffer_release(&m->count);
	ffu__cl_buffer_release(&m->lsz);
	ffu__cl_kernel_release(&m->k);
	ffu__cl_program_release(&m->prog);
}

/*
 * Launches [offset, offset + n) with explicit size wg (0: automatic), checks every id ran
 * exactly once and nothing else ran; returns the local size of the first work-item.
 */
static unsigned mark_run(ffu_cl *cl, marker *m, size_t offset, size_t n, size_t wg)
{
	ffu_error e = {0};
	uint32_t *count = calloc(m->cap, 4), *lsz = calloc(m->cap, 4);
	cr_assert(count && lsz && offset + n <= m->cap);
	cr_assert_eq(ffu__cl_write(cl, m->count, count, m->cap * 4, &e), FFU_STATUS_OK);
	ffu_status st = ffu__cl_launch_at(cl, m->k, offset, n, wg, NULL, &e);
	cr_assert_eq(st, FFU_STATUS_OK, "offset %zu n %zu wg %zu: %s", offset, n, wg, e.message);
	cr_assert_eq(ffu__cl_read(cl, m->count, count, m->cap * 4, &e), FFU_STATUS_OK);
	cr_assert_eq(ffu__cl_read(cl, m->lsz, lsz, m->cap * 4, &e), FFU_STATUS_OK);
	for (size_t i = 0; i < m->cap; i++) {
		uint32_t want = i >= offset && i < offset + n;
		if (count[i] != want)
			cr_assert_fail("offset %zu n %zu wg %zu: id %zu ran %u times", offset, n, wg, i, count[i]);
	}
	unsigned local = lsz[offset];
	free(count);
	free(lsz);
	return local;
}

ON_BOTH(launches_cover_exactly)
{
	ffu_cl cl;
	marker m;
	open_dev(&cl, sel);
	marker_open(&cl, &m, 5000);
	const size_t ns[] = {1, 2, 7, 63, 64, 65, 255, 256, 257, 1000, 4093};
	const size_t offsets[] = {0, 1, 77};
	for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
		for (size_t b = 0; b < sizeof offsets / sizeof offsets[0]; b++)
			mark_run(&cl, &m, offsets[b], ns[a], 0);
	/* and with every way of choosing the size (requested ones within the kernel's limit) */
	ffu_kernel_limits lim;
	ffu_error e = {0};
	cr_assert_eq(ffu__cl_kernel_limits(&cl, m.k, &lim, &e), FFU_STATUS_OK, "%s", e.message);
	const size_t sizes[] = {1, 3, 8, 24, 32, 100, 128};
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
		cl.dev.tuned = (ffu_params){.wg = sizes[s]};
		ffu__cl_retarget(&cl);
		mark_run(&cl, &m, 5, 999, 0);
		cl.dev.tuned = (ffu_params){0};
		ffu__cl_retarget(&cl);
		if (sizes[s] > lim.max_wg)
			continue;
		ffu__cl_set_override(&cl, &(ffu_params){.wg = sizes[s]});
		mark_run(&cl, &m, 5, 999, 0);
		mark_run(&cl, &m, 0, 2, 0); /* an override above n */
		ffu__cl_set_override(&cl, NULL);
		char v[32];
		snprintf(v, sizeof v, "%zu", sizes[s]);
		setenv("FIELDFUSE_WG_SIZE", v, 1); /* read when the target is resolved */
		ffu__cl_retarget(&cl);
		mark_run(&cl, &m, 5, 999, 0);
		unsetenv("FIELDFUSE_WG_SIZE");
		ffu__cl_retarget(&cl);
		mark_run(&cl, &m, 11, 1000, sizes[s]);
	}
	marker_close(&m);
	ffu__cl_close(&cl);
}

ON_BOTH(tuned_entry_and_overrides)
{
	ffu_cl cl;
	marker m;
	ffu_error e = {0};
	ffu_device_info d;
	/* an entry for this device in the test's database: a context opened now uses it */
	cr_assert_eq(ffu__cl_select(&d, sel, &e), FFU_STATUS_OK, "device '%s' missing: %s", sel, e.message);
	/* sizes within Rusticl's 32 per kernel; 16 is no multiple of its preferred 32, yet fits */
	cr_assert_eq(ffu__tuning_store(&d, &(ffu_params){.wg = 16, .lanes = 2}, NULL, &e), FFU_STATUS_OK, "%s", e.message);
	open_dev(&cl, sel);
	cr_expect_eq(cl.dev.tuned.wg, 16);
	ffu_profile p;
	ffu__profile_for(&p, &cl.dev);
	cr_expect_eq(p.lanes, 2, "code generation sees the tuned lanes");
	marker_open(&cl, &m, 4096);
	cr_expect_eq(mark_run(&cl, &m, 0, 4096, 0), 16, "the tuned size");
	setenv("FIELDFUSE_WG_SIZE", "8", 1);
	cr_expect_eq(mark_run(&cl, &m, 0, 4096, 0), 16, "FIELDFUSE_WG_SIZE is read when the target is resolved");
	ffu__cl_retarget(&cl);
	cr_expect_eq(mark_run(&cl, &m, 0, 4096, 0), 8, "FIELDFUSE_WG_SIZE beats the tuning entry");
	ffu__cl_set_override(&cl, &(ffu_params){.wg = 4, .lanes = 8});
	cr_expect_eq(mark_run(&cl, &m, 0, 4096, 0), 4, "the override beats FIELDFUSE_WG_SIZE");
	ffu__profile_for(&p, &cl.dev);
	cr_expect_eq(p.lanes, 8);
	cr_expect_eq(mark_run(&cl, &m, 0, 4096, 2), 2, "an explicit size beats everything");
	unsetenv("FIELDFUSE_WG_SIZE");
	ffu__cl_set_override(&cl, NULL); /* resolves the target again: no FIELDFUSE_WG_SIZE now */
	cr_expect_eq(mark_run(&cl, &m, 0, 4096, 0), 16);
	/* a value that is no size: every automatic launch says so; an explicit size still runs */
	setenv("FIELDFUSE_WG_SIZE", "16k", 1);
	ffu__cl_retarget(&cl);
	unsetenv("FIELDFUSE_WG_SIZE");
	cr_expect_eq(ffu__cl_launch_at(&cl, m.k, 0, 4096, 0, NULL, &e), FFU_STATUS_EINVAL);
	cr_expect(strstr(e.message, "FIELDFUSE_WG_SIZE") && strstr(e.message, "16k"), "%s", e.message);
	ffu_error_clear(&e);
	cr_expect_eq(mark_run(&cl, &m, 0, 4096, 4), 4);
	ffu__cl_retarget(&cl);
	cr_expect_eq(mark_run(&cl, &m, 0, 4096, 0), 16);
	marker_close(&m);
	ffu__cl_close(&cl);

	/* a corrupt database is ignored when opening: the built-in profile applies */
	char path[256];
	snprintf(path, sizeof path, "%s/tuning.json", tmpdir);
	write_file(path, "not json");
	open_dev(&cl, sel);
	cr_expect_eq(cl.dev.tuned.wg, 0);
	marker_open(&cl, &m, 4096);
	ffu_kernel_limits lim;
	cr_assert_eq(ffu__cl_kernel_limits(&cl, m.k, &lim, &e), FFU_STATUS_OK, "%s", e.message);
	unsigned l = mark_run(&cl, &m, 0, 4096, 0);
	cr_expect_eq(l, lim.max_wg < 256 ? lim.max_wg : 256, "the built-in size");
	marker_close(&m);
	ffu__cl_close(&cl);
	ffu_error_clear(&e);
}

/* ---- program cache ------------------------------------------------------------------- */

static const char *const tiny_src = "__kernel void tiny(__global uint *x) { x[get_global_id(0)] += 3u; }\n";
/*
 * The same kernel for the tests that load program binaries: PoCL 3.1 unpacks a binary into
 * its kernel cache in place, under the source's hash, and a process building the same text
 * at that moment (the suite's tests run in parallel) can load a half-written file and crash
 * (seen once with cold caches: pocl/pocl#586 and #1480 are reports of that cache's races).
 * No other test builds this text.
 */
static const char *const disk_src = "/* disk cache tests */\n"
				    "__kernel void tiny(__global uint *x) { x[get_global_id(0)] += 3u; }\n";

static void build_ok(ffu_cl *cl, const char *src, const char *opts)
{
	ffu_error e = {0};
	cl_program p = NULL;
	cl_kernel k = NULL;
	cr_assert_eq(ffu__cl_build(cl, &p, src, opts, &e), FFU_STATUS_OK, "%s\n%s", e.message,
		     e.build_log ? e.build_log : "");
	/* a usable program whichever way it came: it has its kernel */
	cr_assert_eq(ffu__cl_kernel(p, &k, "tiny", &e), FFU_STATUS_OK, "%s", e.message);
	ffu__cl_kernel_release(&k);
	ffu__cl_program_release(&p);
}

ON_BOTH(memory_cache)
{
	ffu_cl cl;
	open_dev(&cl, sel);
	ffu__cl_set_disk_cache(&cl, false);
	build_ok(&cl, tiny_src, NULL);
	build_ok(&cl, tiny_src, NULL);
	build_ok(&cl, tiny_src, "");
	cr_expect_eq(cl.cache_stats.source_builds, 1);
	cr_expect_eq(cl.cache_stats.memory_hits, 2, "NULL and \"\" options are the same build");
	build_ok(&cl, tiny_src, "-cl-std=CL1.2");
	cr_expect_eq(cl.cache_stats.source_builds, 2, "other options: another build");
	/* more programs than the cache holds: still correct, oldest evicted */
	for (int i = 0; i < 20; i++) {
		char src[160];
		snprintf(src, sizeof src, "__kernel void tiny(__global uint *x) { x[get_global_id(0)] += %du; }\n", i + 100);
		build_ok(&cl, src, NULL);
	}
	cr_expect_eq(cl.cache_stats.source_builds, 22);
	build_ok(&cl, tiny_src, NULL);
	cr_expect_eq(cl.cache_stats.source_builds, 23, "evicted, rebuilt");
	/* a failed build is not cached */
	ffu_error e = {0};
	cl_program p = NULL;
	cr_expect_eq(ffu__cl_build(&cl, &p, "__kernel void broken( {", NULL, &e), FFU_STATUS_EBUILD);
	cr_expect_eq(ffu__cl_build(&cl, &p, "__kernel void broken( {", NULL, &e), FFU_STATUS_EBUILD);
	ffu_error_clear(&e);
	ffu__cl_close(&cl);
}

/* Builds src (a tiny kernel) on cl through the caches and checks that it adds 3 to 1000 words. */
static void run_tiny(ffu_cl *cl, const char *src)
{
	ffu_error e = {0};
	cl_program p = NULL;
	cl_kernel k = NULL;
	cl_mem m = NULL;
	uint32_t v[1000];
	for (uint32_t i = 0; i < 1000; i++)
		v[i] = i * 7u;
	cr_assert_eq(ffu__cl_build(cl, &p, src, NULL, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu__cl_kernel(p, &k, "tiny", &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu__cl_buffer(cl, &m, sizeof v, &e), FFU_STATUS_OK);
	cr_assert_eq(ffu__cl_write(cl, m, v, sizeof v, &e), FFU_STATUS_OK);
	cr_assert_eq(ffu__cl_set_arg(k, 0, sizeof m, &m, &e), FFU_STATUS_OK);
	cr_assert_eq(ffu__cl_launch(cl, k, 1000, 0, NULL, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu__cl_read(cl, m, v, sizeof v, &e), FFU_STATUS_OK);
	for (uint32_t i = 0; i < 1000; i++)
		cr_assert_eq(v[i], i * 7u + 3u, "word %u", i);
	ffu__cl_buffer_release(&m);
	ffu__cl_kernel_release(&k);
	ffu__cl_program_release(&p);
}

static size_t file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (size_t)st.st_size : 0;
}

ON_BOTH(disk_cache)
{
	ffu_cl a, b;
	ffu_error e = {0};
	char *path = NULL;
	open_dev(&a, sel);
	ffu__cl_set_disk_cache(&a, true);
	build_ok(&a, disk_src, NULL);
	cr_expect_eq(a.cache_stats.source_builds, 1);
	cr_expect_eq(a.cache_stats.disk_writes, 1);
	cr_assert_eq(ffu__progcache_path(&path, &a, disk_src, NULL, &e), FFU_STATUS_OK);
	cr_assert(strncmp(path, tmpdir, strlen(tmpdir)) == 0, "%s under %s", path, tmpdir);
	size_t size = file_size(path);
	cr_assert_gt(size, 48, "entry %s", path);

	/* a second context (a second process, as far as the cache knows) loads it, and it runs */
	open_dev(&b, sel);
	ffu__cl_set_disk_cache(&b, true);
	run_tiny(&b, disk_src);
	cr_expect_eq(b.cache_stats.disk_hits, 1);
	cr_expect_eq(b.cache_stats.source_builds, 0);
	ffu__cl_close(&b);

	/* the key covers options, device and driver: other ones do not find this entry */
	char *other = NULL;
	cr_assert_eq(ffu__progcache_path(&other, &a, disk_src, "-cl-std=CL1.2", &e), FFU_STATUS_OK);
	cr_expect_str_neq(other, path);
	free(other);
	strcpy(a.dev.driver, "another driver");
	cr_assert_eq(ffu__progcache_path(&other, &a, disk_src, NULL, &e), FFU_STATUS_OK);
	cr_expect_str_neq(other, path, "a driver update makes entries stale");
	free(other);
	ffu__cl_close(&a);

	/* corrupt entries: flipped binary byte, truncated, foreign header, garbage: rebuilt */
	for (int how = 0; how < 4; how++) {
		FILE *f = fopen(path, "r+b");
		cr_assert_not_null(f);
		if (how == 0) {
			fseek(f, (long)size - 1, SEEK_SET);
			int c = fgetc(f);
			fseek(f, (long)size - 1, SEEK_SET);
			fputc(c ^ 0x5a, f);
		} else if (how == 1) {
			cr_assert_eq(ftruncate(fileno(f), (off_t)(size / 2)), 0);
		} else if (how == 2) {
			fputs("NOTPROG\n", f);
		} else {
			cr_assert_eq(ftruncate(fileno(f), 0), 0);
			fputs("garbage", f);
		}
		fclose(f);
		open_dev(&b, sel);
		ffu__cl_set_disk_cache(&b, true);
		build_ok(&b, disk_src, NULL);
		cr_expect_eq(b.cache_stats.disk_hits, 0, "corruption %d trusted", how);
		cr_expect_eq(b.cache_stats.disk_rejects, 1, "corruption %d", how);
		cr_expect_eq(b.cache_stats.source_builds, 1);
		cr_expect_eq(b.cache_stats.disk_writes, 1, "rewritten");
		ffu__cl_close(&b);
		/* the rewritten entry is whole again: the next context loads it and it runs */
		open_dev(&b, sel);
		ffu__cl_set_disk_cache(&b, true);
		run_tiny(&b, disk_src);
		cr_expect_eq(b.cache_stats.disk_hits, 1, "after corruption %d", how);
		ffu__cl_close(&b);
		size = file_size(path);
	}
	/* an entry that cannot be written costs speed, not the build */
	unlink(path);
	char programs[256];
	snprintf(programs, sizeof programs, "%s/programs", tmpdir);
	cr_assert_eq(rmdir(programs), 0);
	write_file(programs, "a file where the folder should be");
	open_dev(&b, sel);
	ffu__cl_set_disk_cache(&b, true);
	build_ok(&b, disk_src, NULL);
	cr_expect_eq(b.cache_stats.source_builds, 1);
	cr_expect_eq(b.cache_stats.disk_writes, 0);
	ffu__cl_close(&b);
	free(path);
	ffu_error_clear(&e);
}

/* The profile's limb width reaches the device templates as a define, and keys the cache. */
ON_BOTH(profile_defines_reach_builds)
{
	static const char *const needs64 =
		"#ifndef FFU_MONT256_LIMB64\n#error built without the 64-bit limb define\n#endif\n"
		"__kernel void tiny(__global uint *x) { x[get_global_id(0)] += 3u; }\n";
	ffu_cl cl;
	ffu_error e = {0};
	cl_program p = NULL;
	open_dev(&cl, sel);
	ffu__cl_set_disk_cache(&cl, false);
	cr_expect_eq(ffu__cl_build(&cl, &p, needs64, NULL, &e), FFU_STATUS_EBUILD, "built without the define?");
	ffu__cl_set_override(&cl, &(ffu_params){.limb_bits = 64});
	cr_assert_eq(ffu__cl_build(&cl, &p, needs64, NULL, &e), FFU_STATUS_OK, "%s\n%s", e.message,
		     e.build_log ? e.build_log : "");
	ffu__cl_program_release(&p);
	/* caller options still apply, after the profile's */
	cr_assert_eq(ffu__cl_build(&cl, &p, needs64, "-DEXTRA=1", &e), FFU_STATUS_OK, "%s", e.message);
	ffu__cl_program_release(&p);
	unsigned builds = cl.cache_stats.source_builds;
	ffu__cl_set_override(&cl, NULL);
	cr_expect_eq(ffu__cl_build(&cl, &p, needs64, NULL, &e), FFU_STATUS_EBUILD, "a cached limb-64 build was reused");
	cr_expect_eq(cl.cache_stats.source_builds, builds);
	ffu_error_clear(&e);
	ffu__cl_close(&cl);
}

/* FIELDFUSE_PROGRAM_CACHE decides at open; unset, the vendor's default applies. */
ON_BOTH(disk_cache_switch)
{
	ffu_cl cl;
	open_dev(&cl, sel);
	cr_expect_eq(cl.disk_cache, ffu__progcache_disk_default(cl.dev.vendor_class, cl.dev.type));
	ffu__cl_close(&cl);
	setenv("FIELDFUSE_PROGRAM_CACHE", "0", 1);
	open_dev(&cl, sel);
	cr_expect_not(cl.disk_cache);
	ffu__cl_close(&cl);
	setenv("FIELDFUSE_PROGRAM_CACHE", "1", 1);
	open_dev(&cl, sel);
	cr_expect(cl.disk_cache);
	ffu__cl_close(&cl);
	/* no cache folder can be named at all: builds still work, from source */
	unsetenv("FIELDFUSE_CACHE_DIR");
	unsetenv("XDG_CACHE_HOME");
	unsetenv("HOME");
	open_dev(&cl, sel);
	cr_expect(cl.disk_cache);
	run_tiny(&cl, tiny_src); /* no binary is loaded here */
	cr_expect_eq(cl.cache_stats.source_builds, 1);
	cr_expect_eq(cl.cache_stats.disk_writes, 0);
	ffu__cl_close(&cl);
}

/* ---- the command line: tune and devices ---------------------------------------------- */

/* Runs the built `fieldfuse` with args under sh, output to tmpdir/out; returns the exit status. */
static int cli(const char *args)
{
	const char *build = getenv("FFU_BUILD_ROOT");
	char cmd[1024];
	cr_assert_not_null(build, "FFU_BUILD_ROOT is set by meson");
	snprintf(cmd, sizeof cmd, "'%s/tools/fieldfuse' %s > '%s/out' 2>&1", build, args, tmpdir);
	int rc = system(cmd);
	return rc != -1 && WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static char *cli_out(void)
{
	char path[256];
	snprintf(path, sizeof path, "%s/out", tmpdir);
	char *s = ffu_test_read_file(path, NULL);
	cr_assert_not_null(s);
	return s;
}

static json_t *device_json(json_t *arr, const char *cls)
{
	size_t i;
	json_t *d;
	json_array_foreach(arr, i, d) {
		if (strcmp(json_string_value(json_object_get(d, "class")), cls) == 0)
			return d;
	}
	cr_assert_fail("no %s device in the listing", cls);
	return NULL;
}

Test(caps, tune_writes_what_runs_use, .timeout = 600)
{
	char path[256], *out;
	snprintf(path, sizeof path, "%s/tuning.json", tmpdir);

	/* a small search, so the test stays short; every candidate is checked against the interpreter */
	int rc = cli("tune --device pocl --k 12 --runs 1 --wg 8,64 --lanes 1,4 --limbs 32,64 --no-write");
	out = cli_out();
	cr_assert_eq(rc, 0, "%s", out);
	cr_expect(strstr(out, "wg     8 lanes  1 vector 1 limb 32") && strstr(out, "wg    64 lanes  4 vector 4 limb 64") &&
			  strstr(out, "best: wg"),
		  "%s", out);
	cr_expect_eq(access(path, F_OK), -1, "--no-write wrote %s", path);
	free(out);

	/* a candidate that builds and launches the built-in's code is noise, never the winner */
	rc = cli("tune --device pocl --k 12 --runs 1 --wg 256 --lanes 4 --vector 1 --limbs 32 --no-write");
	out = cli_out();
	cr_assert_eq(rc, 0, "%s", out);
	cr_expect(strstr(out, "wg   256 lanes  4 vector 1 limb 32:") && strstr(out, "(the built-in's code: noise)") &&
			  strstr(out, "best: the built-in profile (no candidate that ran differs from it)"),
		  "%s", out);
	free(out);

	rc = cli("tune --device pocl --k 12 --runs 1 --wg 8,64 --lanes 1,4 --vector 1,4 --limbs 64");
	out = cli_out();
	cr_assert_eq(rc, 0, "%s", out);
	cr_expect(strstr(out, "written to"), "%s", out);
	free(out);
	json_error_t je;
	json_t *db = json_load_file(path, 0, &je);
	cr_assert_not_null(db, "%s: %s", path, je.text);
	json_t *entry = json_array_get(json_object_get(db, "entries"), 0);
	cr_assert_not_null(entry);
	cr_expect_str_eq(json_string_value(json_object_get(entry, "platform")), "Portable Computing Language");
	cr_expect_str_eq(json_string_value(json_object_get(entry, "class")), "pocl");
	json_int_t wg = json_integer_value(json_object_get(json_object_get(entry, "params"), "wg"));
	cr_expect(wg == 8 || wg == 64 || wg == 256, "wg %lld", (long long)wg);
	json_t *tune = json_object_get(entry, "tune");
	cr_expect_eq(json_array_size(json_object_get(tune, "candidates")), 8); /* 2 sizes x 2 lanes x 2 vectors */
	json_int_t vec = json_integer_value(json_object_get(json_object_get(entry, "params"), "vector_width"));
	cr_expect(vec == 1 || vec == 4, "vector_width %lld", (long long)vec);
	json_int_t limb = json_integer_value(json_object_get(json_object_get(entry, "params"), "limb_bits"));
	cr_expect(limb == 32 || limb == 64, "limb %lld", (long long)limb);
	cr_expect(json_is_real(json_object_get(tune, "confirmed_gain")));
	json_decref(db);

	/* the next process opening the device uses the entry */
	rc = cli("devices --json");
	out = cli_out();
	cr_assert_eq(rc, 0, "%s", out);
	json_t *arr = json_loads(out, 0, &je);
	cr_assert_not_null(arr, "%s", je.text);
	json_t *pocl = device_json(arr, "pocl"), *rusticl = device_json(arr, "rusticl");
	cr_expect(json_is_true(json_object_get(json_object_get(pocl, "tuning"), "found")));
	cr_expect(strstr(json_string_value(json_object_get(json_object_get(pocl, "profile"), "source")), "tuned"));
	cr_expect_eq(json_integer_value(json_object_get(pocl, "work_group_size")), wg);
	cr_expect_str_eq(json_string_value(json_object_get(pocl, "work_group_size_from")), "tuned");
	cr_expect_not(json_is_true(json_object_get(json_object_get(rusticl, "tuning"), "found")));
	/* Rusticl's kernels allow 32 work-items per group: the listing says what launches get */
	cr_expect_eq(json_integer_value(json_object_get(rusticl, "kernel_work_group_size")), 32);
	cr_expect_eq(json_integer_value(json_object_get(rusticl, "work_group_size")), 32);
	cr_expect(json_is_true(json_object_get(rusticl, "disk_program_cache")));
	cr_expect(json_is_false(json_object_get(pocl, "disk_program_cache")));
	json_decref(arr);
	free(out);

	/* FIELDFUSE_WG_SIZE wins over the entry, in the listing as in launches */
	setenv("FIELDFUSE_WG_SIZE", "16", 1);
	rc = cli("devices --json");
	unsetenv("FIELDFUSE_WG_SIZE");
	out = cli_out();
	cr_assert_eq(rc, 0, "%s", out);
	arr = json_loads(out, 0, &je);
	cr_assert_not_null(arr, "%s", je.text);
	cr_expect_eq(json_integer_value(json_object_get(device_json(arr, "pocl"), "work_group_size")), 16);
	cr_expect_str_eq(json_string_value(json_object_get(device_json(arr, "pocl"), "work_group_size_from")),
			 "FIELDFUSE_WG_SIZE");
	json_decref(arr);
	free(out);
}

Test(caps, tune_usage_errors)
{
	const char *usage[] = {"tune --wg 0", "tune --wg 8,,16", "tune --lanes 17", "tune --vector 2", "tune --vector 1,4,1", "tune --k 99", "tune --runs 0",
			       "tune --limbs 48", "tune --limbs 32,64,32",
			       "tune no_such_workload", "tune --frob", "tune --device"};
	for (size_t i = 0; i < sizeof usage / sizeof usage[0]; i++) {
		int rc = cli(usage[i]);
		char *out = cli_out();
		cr_expect_eq(rc, 2, "%s: exit %d: %s", usage[i], rc, out);
		cr_expect(strstr(out, "error"), "%s: %s", usage[i], out);
		free(out);
	}
	int rc = cli("tune --device no-such-device --k 12");
	char *out = cli_out();
	cr_expect_eq(rc, 1, "%s", out);
	cr_expect(strstr(out, "no-such-device"), "%s", out);
	free(out);
}
