/*
 * device/caps.c: the capability table (see caps.h), its two fillers (a live device, a JSON
 * fixture), the derived facts, and the JSON view `fieldfuse devices --json` prints.
 *
 * Adding a property: a field in ffu_device_info and one row below; both fillers, the JSON
 * output and the fixture reader follow from the row.
 */
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include "device/caps.h"
#include "util/text.h"

#include <CL/cl_ext.h>
#include <ctype.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocl/ocl.h"

#define DEV(field) offsetof(ffu_device_info, field), sizeof(((ffu_device_info *)0)->field)
#define KER(field) offsetof(ffu_kernel_limits, field), sizeof(((ffu_kernel_limits *)0)->field)
#define ROW(scope, kind, param, key, field, needs, req) \
	{FFU_CAP_##scope, FFU_CAP_##kind, param, #param, key, field, needs, req}

/*
 * Device extensions come first among the device rows: the vendor rows are asked for only
 * when their extension is listed (asking a driver for an unknown parameter is an error,
 * and some drivers log it).
 */
const ffu_cap_row ffu__cap_rows[] = {
	ROW(PLATFORM, STR, CL_PLATFORM_NAME, "platform", DEV(platform_name), 0, true),
	ROW(PLATFORM, STR, CL_PLATFORM_VENDOR, "platform_vendor", DEV(platform_vendor), 0, true),
	ROW(PLATFORM, STR, CL_PLATFORM_VERSION, "platform_version", DEV(platform_version), 0, true),
	ROW(PLATFORM, EXTS, CL_PLATFORM_EXTENSIONS, "platform_known_extensions", DEV(platform_ext), 0, true),

	ROW(DEVICE, EXTS, CL_DEVICE_EXTENSIONS, "known_extensions", DEV(ext), 0, true),
	ROW(DEVICE, STR, CL_DEVICE_NAME, "name", DEV(name), 0, true),
	ROW(DEVICE, STR, CL_DEVICE_VENDOR, "vendor", DEV(vendor), 0, true),
	ROW(DEVICE, STR, CL_DEVICE_VERSION, "version", DEV(version), 0, true),
	ROW(DEVICE, STR, CL_DRIVER_VERSION, "driver", DEV(driver), 0, true),
	ROW(DEVICE, STR, CL_DEVICE_OPENCL_C_VERSION, "opencl_c_version", DEV(opencl_c_version), 0, false),
	ROW(DEVICE, STR, CL_DEVICE_PROFILE, "cl_profile", DEV(profile), 0, true),
	ROW(DEVICE, TYPE, CL_DEVICE_TYPE, "type", DEV(type), 0, true),
	ROW(DEVICE, UINT, CL_DEVICE_VENDOR_ID, "vendor_id", DEV(vendor_id), 0, true),
	ROW(DEVICE, UINT, CL_DEVICE_MAX_COMPUTE_UNITS, "compute_units", DEV(compute_units), 0, true),
	ROW(DEVICE, UINT, CL_DEVICE_MAX_CLOCK_FREQUENCY, "max_clock_mhz", DEV(max_clock_mhz), 0, false),
	ROW(DEVICE, SIZE, CL_DEVICE_MAX_WORK_GROUP_SIZE, "max_work_group_size", DEV(max_wg), 0, true),
	ROW(DEVICE, UINT, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, "max_work_item_dimensions", DEV(max_work_item_dims), 0, true),
	ROW(DEVICE, SIZES, CL_DEVICE_MAX_WORK_ITEM_SIZES, "max_work_item_sizes", DEV(max_work_item_sizes), 0, true),
	ROW(DEVICE, SIZE, CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, "preferred_work_group_multiple",
	    DEV(preferred_wg_multiple), 0, false),
	ROW(DEVICE, ULONG, CL_DEVICE_GLOBAL_MEM_SIZE, "global_mem_bytes", DEV(global_mem), 0, true),
	ROW(DEVICE, ULONG, CL_DEVICE_MAX_MEM_ALLOC_SIZE, "max_alloc_bytes", DEV(max_alloc), 0, true),
	ROW(DEVICE, ULONG, CL_DEVICE_LOCAL_MEM_SIZE, "local_mem_bytes", DEV(local_mem), 0, true),
	ROW(DEVICE, ULONG, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, "global_mem_cache_bytes", DEV(global_cache), 0, false),
	ROW(DEVICE, SIZE, CL_DEVICE_MAX_PARAMETER_SIZE, "max_parameter_bytes", DEV(max_param_size), 0, true),
	ROW(DEVICE, UINT, CL_DEVICE_ADDRESS_BITS, "address_bits", DEV(address_bits), 0, true),
	ROW(DEVICE, UINT, CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT, "preferred_vector_width_int", DEV(pref_vector_int), 0,
	    false),
	ROW(DEVICE, UINT, CL_DEVICE_NATIVE_VECTOR_WIDTH_INT, "native_vector_width_int", DEV(native_vector_int), 0, false),
	ROW(DEVICE, UINT, CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG, "native_vector_width_long", DEV(native_vector_long), 0,
	    false),
	ROW(DEVICE, UINT, CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, "nv_compute_capability_major", DEV(nv_cc_major),
	    FFU_EXT(NV_ATTRIBUTES), false),
	ROW(DEVICE, UINT, CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV, "nv_compute_capability_minor", DEV(nv_cc_minor),
	    FFU_EXT(NV_ATTRIBUTES), false),
	ROW(DEVICE, UINT, CL_DEVICE_WARP_SIZE_NV, "nv_warp_size", DEV(nv_warp), FFU_EXT(NV_ATTRIBUTES), false),
	ROW(DEVICE, STR, CL_DEVICE_BOARD_NAME_AMD, "amd_board_name", DEV(board_name), FFU_EXT(AMD_ATTRIBUTES), false),
	ROW(DEVICE, UINT, CL_DEVICE_WAVEFRONT_WIDTH_AMD, "amd_wavefront_width", DEV(amd_wavefront),
	    FFU_EXT(AMD_ATTRIBUTES), false),
	ROW(DEVICE, UINT, CL_DEVICE_IP_VERSION_INTEL, "intel_ip_version", DEV(intel_ip_version),
	    FFU_EXT(INTEL_ATTRIBUTES), false),
	ROW(DEVICE, SIZES, CL_DEVICE_SUB_GROUP_SIZES_INTEL, "intel_sub_group_sizes", DEV(intel_subgroup_sizes),
	    FFU_EXT(INTEL_REQD_SUBGROUP), false),

	ROW(KERNEL, SIZE, CL_KERNEL_WORK_GROUP_SIZE, "kernel_work_group_size", KER(max_wg), 0, true),
	ROW(KERNEL, SIZE, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, "kernel_preferred_multiple",
	    KER(preferred_multiple), 0, false),
};
const size_t ffu__cap_n_rows = sizeof ffu__cap_rows / sizeof ffu__cap_rows[0];

const char *const ffu__caps_ext_names[FFU_EXT_COUNT] = {
#define FFU_CAPS_EXT_NAME_(id, name) [FFU_EXT_BIT_##id] = name,
	FFU_CAPS_EXTS(FFU_CAPS_EXT_NAME_)
#undef FFU_CAPS_EXT_NAME_
};

/* ---- extensions ---------------------------------------------------------------------- */

/* Does the space-separated list contain the token (exactly, or as a prefix for "x_*")? */
static bool has_ext(const char *list, const char *pattern)
{
	size_t plen = strlen(pattern);
	bool prefix = plen > 0 && pattern[plen - 1] == '*';
	if (prefix)
		plen--;
	for (const char *p = list; *p;) {
		while (*p && isspace((unsigned char)*p))
			p++;
		const char *end = p;
		while (*end && !isspace((unsigned char)*end))
			end++;
		size_t len = (size_t)(end - p);
		if (len > 0 && (prefix ? len >= plen : len == plen) && strncmp(p, pattern, plen) == 0)
			return true;
		/* Apple spells its prefix in both cases over the years */
		if (prefix && len >= plen && strcmp(pattern, "cl_APPLE_*") == 0 && strncmp(p, "cl_apple_", plen) == 0)
			return true;
		p = end;
	}
	return false;
}

unsigned ffu__caps_ext_bits(const char *extensions)
{
	unsigned bits = 0;
	if (!extensions)
		return 0;
	for (int i = 0; i < FFU_EXT_COUNT; i++)
		if (has_ext(extensions, ffu__caps_ext_names[i]))
			bits |= 1u << i;
	return bits;
}

/* ---- classification and derived facts ------------------------------------------------ */

ffu_vendor ffu__caps_classify(const char *platform_name, unsigned platform_ext, cl_uint vendor_id, unsigned device_ext)
{
	const char *n = platform_name ? platform_name : "";

	/* PoCL first: its device vendor is the CPU's, and it can drive NVIDIA GPUs too. */
	if (strstr(n, "Portable Computing Language") || ffu__str_icontains(n, "pocl"))
		return FFU_VENDOR_POCL;
	if (ffu__str_icontains(n, "rusticl"))
		return FFU_VENDOR_RUSTICL;
	if (ffu__str_icontains(n, "NVIDIA"))
		return FFU_VENDOR_NVIDIA;
	/* Case-sensitive: "amd" in lower case is too common inside other words. */
	if (strstr(n, "AMD") || strstr(n, "Advanced Micro Devices"))
		return FFU_VENDOR_AMD;
	if (ffu__str_icontains(n, "Intel"))
		return FFU_VENDOR_INTEL;
	if (ffu__str_icontains(n, "Apple"))
		return FFU_VENDOR_APPLE;
	/* Renamed or white-labelled platforms still carry their vendor's extension prefix. */
	if (platform_ext & FFU_EXT(FAMILY_POCL))
		return FFU_VENDOR_POCL;
	if (platform_ext & FFU_EXT(FAMILY_NV))
		return FFU_VENDOR_NVIDIA;
	if (platform_ext & FFU_EXT(FAMILY_AMD))
		return FFU_VENDOR_AMD;
	if (platform_ext & FFU_EXT(FAMILY_INTEL))
		return FFU_VENDOR_INTEL;
	if (platform_ext & FFU_EXT(FAMILY_APPLE))
		return FFU_VENDOR_APPLE;
	/* Then the PCI vendor id: only for vendors' own drivers, which are the ones left here. */
	switch (vendor_id) {
	case 0x10de:
		return FFU_VENDOR_NVIDIA;
	case 0x1002:
	case 0x1022:
		return FFU_VENDOR_AMD;
	case 0x8086:
		return FFU_VENDOR_INTEL;
	case 0x1027f00:
		return FFU_VENDOR_APPLE;
	default:
		break;
	}
	if (device_ext & FFU_EXT(NV_ATTRIBUTES))
		return FFU_VENDOR_NVIDIA;
	if (device_ext & FFU_EXT(AMD_ATTRIBUTES))
		return FFU_VENDOR_AMD;
	if (device_ext & (FFU_EXT(INTEL_ATTRIBUTES) | FFU_EXT(INTEL_SUBGROUPS)))
		return FFU_VENDOR_INTEL;
	return FFU_VENDOR_OTHER;
}

static const char *const vendor_names[FFU_VENDOR_COUNT] = {
	[FFU_VENDOR_OTHER] = "other",   [FFU_VENDOR_POCL] = "pocl", [FFU_VENDOR_RUSTICL] = "rusticl",
	[FFU_VENDOR_NVIDIA] = "nvidia", [FFU_VENDOR_AMD] = "amd",   [FFU_VENDOR_INTEL] = "intel",
	[FFU_VENDOR_APPLE] = "apple",
};

const char *ffu__vendor_str(ffu_vendor v)
{
	if ((unsigned)v < FFU_VENDOR_COUNT && vendor_names[v])
		return vendor_names[v];
	return "other";
}

const char *ffu__device_type_str(cl_device_type t)
{
	return t & CL_DEVICE_TYPE_GPU ? "gpu" : t & CL_DEVICE_TYPE_CPU ? "cpu" : t & CL_DEVICE_TYPE_ACCELERATOR ? "accelerator" : "other";
}

int ffu__caps_kernel_args(size_t max_param_size, cl_uint address_bits)
{
	/* OpenCL guarantees 1024 bytes (256 on embedded profiles). A kernel's scalar
	   arguments (sizes, offsets: a few ulongs) take at most 64 bytes; every buffer is one
	   pointer. 64 arguments is the fusion pass's own cap: beyond that a kernel gains
	   nothing and the compilers' register allocation suffers. */
	size_t ptr = address_bits == 32 ? 4 : 8;
	size_t room = max_param_size > 64 ? (max_param_size - 64) / ptr : 0;
	if (!max_param_size)
		room = 1024 / 8; /* not reported (fixtures): assume the guaranteed minimum */
	return room < 4 ? 4 : room > 64 ? 64 : (int)room;
}

void ffu__caps_derive(ffu_device_info *d)
{
	d->vendor_class = ffu__caps_classify(d->platform_name, d->platform_ext, d->vendor_id, d->ext);
	d->int64 = strcmp(d->profile, "FULL_PROFILE") == 0 || (d->ext & FFU_EXT(INT64_EMBEDDED));
	d->max_kernel_args = ffu__caps_kernel_args(d->max_param_size, d->address_bits);
	d->arch[0] = '\0';
	d->warp_width = 0;
	bool gpu = (d->type & CL_DEVICE_TYPE_GPU) != 0;
	switch (d->vendor_class) {
	case FFU_VENDOR_NVIDIA:
		if (d->nv_cc_major)
			snprintf(d->arch, sizeof d->arch, "sm_%u%u", d->nv_cc_major, d->nv_cc_minor);
		/* every NVIDIA GPU so far schedules warps of 32; the query only confirms it */
		d->warp_width = d->nv_warp ? d->nv_warp : gpu ? 32 : 0;
		break;
	case FFU_VENDOR_AMD: {
		/* ROCm names the device by its gfx target and feature flags: "gfx942:sramecc+:xnack-"
		   today, "gfx906+sram-ecc" in ROCm 2.x-3.x (recorded in ROCm/ROCm#808) */
		if (strncmp(d->name, "gfx", 3) == 0) {
			size_t n = strcspn(d->name, ":+ ");
			if (n >= sizeof d->arch)
				n = sizeof d->arch - 1;
			memcpy(d->arch, d->name, n);
			d->arch[n] = '\0';
		}
		/* GCN and CDNA (gfx6..gfx9) run wave64; RDNA (gfx10+) wave32 under OpenCL */
		if (d->amd_wavefront)
			d->warp_width = d->amd_wavefront;
		else if (d->arch[0] && gpu)
			d->warp_width = strlen(d->arch) >= 7 ? 32 : 64; /* gfx1xxx: four digits */
		break;
	}
	case FFU_VENDOR_INTEL:
		if (d->intel_ip_version)
			snprintf(d->arch, sizeof d->arch, "intel-%u.%u", d->intel_ip_version >> 22,
				 (d->intel_ip_version >> 14) & 0xff);
		break;
	default:
		break;
	}
}

/* ---- live queries -------------------------------------------------------------------- */

static const char *scope_call(ffu_cap_scope s)
{
	return s == FFU_CAP_PLATFORM ? "clGetPlatformInfo" : s == FFU_CAP_DEVICE ? "clGetDeviceInfo" : "clGetKernelWorkGroupInfo";
}

typedef struct live {
	cl_platform_id platform;
	cl_device_id device;
	cl_kernel kernel;
} live;

static cl_int live_get(const live *l, const ffu_cap_row *r, size_t size, void *dst, size_t *ret)
{
	switch (r->scope) {
	case FFU_CAP_PLATFORM:
		return FFU_CL(clGetPlatformInfo, l->platform, r->param, size, dst, ret);
	case FFU_CAP_DEVICE:
		return FFU_CL(clGetDeviceInfo, l->device, r->param, size, dst, ret);
	case FFU_CAP_KERNEL:
		return FFU_CL(clGetKernelWorkGroupInfo, l->kernel, l->device, r->param, size, dst, ret);
	}
	return CL_INVALID_VALUE;
}

/* Variable-length rows: the size first, then the value (a fixed buffer fails on long strings). */
static ffu_status live_var(const live *l, const ffu_cap_row *r, void **out, size_t *len, ffu_error *e)
{
	size_t size = 0;
	char *buf = NULL;
	*out = NULL;
	cl_int err = live_get(l, r, 0, NULL, &size);
	if (err == CL_SUCCESS) {
		buf = malloc(size + 1);
		if (!buf)
			return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory reading %s (%zu bytes)", r->name, size);
		err = live_get(l, r, size, buf, NULL);
	}
	if (err != CL_SUCCESS) {
		free(buf);
		return ffu__err_cl(e, scope_call(r->scope), err, "querying %s", r->name);
	}
	buf[size] = '\0';
	*out = buf;
	*len = size;
	return FFU_STATUS_OK;
}

static ffu_status live_row(const live *l, const ffu_cap_row *r, unsigned char *base, ffu_error *e)
{
	void *field = base + r->offset;
	void *buf = NULL;
	size_t len = 0;
	ffu_status st = FFU_STATUS_OK;

	switch (r->kind) {
	case FFU_CAP_STR:
	case FFU_CAP_EXTS:
		if ((st = live_var(l, r, &buf, &len, e)))
			break;
		if (r->kind == FFU_CAP_STR)
			ffu__str_copy_trimmed(field, r->size, buf);
		else
			*(unsigned *)field = ffu__caps_ext_bits(buf);
		break;
	case FFU_CAP_SIZES:
		if ((st = live_var(l, r, &buf, &len, e)))
			break;
		memset(field, 0, r->size);
		memcpy(field, buf, len < r->size ? len - len % sizeof(size_t) : r->size);
		break;
	default: {
		cl_int err = live_get(l, r, r->size, field, NULL);
		if (err != CL_SUCCESS)
			st = ffu__err_cl(e, scope_call(r->scope), err, "querying %s", r->name);
		break;
	}
	}
	free(buf);
	return st;
}

/* Whether row r is read for this scope, clearing its field first: rows of other scopes are
   not; a vendor row only when its extension is listed (ext NULL: none are). Shared by the
   live queries and the fixtures, so both fill the record alike. */
static bool row_wanted(const ffu_cap_row *r, ffu_cap_scope scope, unsigned char *base, const unsigned *ext)
{
	if (r->scope != scope)
		return false;
	memset(base + r->offset, 0, r->size);
	return !r->needs_ext || (ext && (*ext & r->needs_ext) == r->needs_ext);
}

/* The rows of one scope; optional rows that fail (or are not asked) leave their field zero. */
static ffu_status live_rows(const live *l, ffu_cap_scope scope, unsigned char *base, const unsigned *ext,
			    ffu_error *e)
{
	for (size_t i = 0; i < ffu__cap_n_rows; i++) {
		const ffu_cap_row *r = &ffu__cap_rows[i];
		if (!row_wanted(r, scope, base, ext))
			continue;
		ffu_status st = live_row(l, r, base, r->required ? e : NULL);
		if (st && (r->required || st == FFU_STATUS_ENOMEM))
			return r->required ? st : ffu__err(e, st, "out of memory reading %s", r->name);
		if (st)
			memset(base + r->offset, 0, r->size);
	}
	return FFU_STATUS_OK;
}

ffu_status ffu__caps_query(ffu_device_info *d, ffu_error *e)
{
	live l = {d->platform, d->device, NULL};
	ffu_status st = live_rows(&l, FFU_CAP_PLATFORM, (unsigned char *)d, NULL, e);
	if (st == FFU_STATUS_OK)
		st = live_rows(&l, FFU_CAP_DEVICE, (unsigned char *)d, &d->ext, e);
	if (st == FFU_STATUS_OK)
		ffu__caps_derive(d);
	return st;
}

ffu_status ffu__caps_kernel(ffu_kernel_limits *out, cl_kernel k, cl_device_id device, ffu_error *e)
{
	live l = {NULL, device, k};
	return live_rows(&l, FFU_CAP_KERNEL, (unsigned char *)out, NULL, e);
}

/* ---- fixtures ------------------------------------------------------------------------ */

static ffu_status fixture_err(ffu_error *e, const char *file, const char *key, const char *what)
{
	return ffu__err_at(e, FFU_STATUS_EPARSE, file, 0, 0, "%s: %s", key, what);
}

/* An unsigned integer: a JSON integer >= 0 or a "0x..." / decimal string. */
static bool json_unsigned(const json_t *v, unsigned long long *out)
{
	if (json_is_integer(v) && json_integer_value(v) >= 0) {
		*out = (unsigned long long)json_integer_value(v);
		return true;
	}
	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		char *end;
		if (!*s || *s == '-' || isspace((unsigned char)*s))
			return false;
		*out = strtoull(s, &end, 0);
		return *end == '\0';
	}
	return false;
}

static bool store_unsigned(void *field, size_t size, unsigned long long v)
{
	switch (size) {
	case 4:
		if (v > UINT32_MAX)
			return false;
		*(uint32_t *)field = (uint32_t)v;
		return true;
	case 8:
		*(uint64_t *)field = (uint64_t)v;
		return true;
	default:
		return false;
	}
}

static ffu_status fixture_row(const ffu_cap_row *r, const json_t *v, unsigned char *base, const char *file,
			      ffu_error *e)
{
	void *field = base + r->offset;
	unsigned long long u = 0;

	switch (r->kind) {
	case FFU_CAP_STR:
	case FFU_CAP_EXTS:
		if (!json_is_string(v))
			return fixture_err(e, file, r->name, "expected a string");
		if (r->kind == FFU_CAP_STR)
			ffu__str_copy_trimmed(field, r->size, json_string_value(v));
		else
			*(unsigned *)field = ffu__caps_ext_bits(json_string_value(v));
		return FFU_STATUS_OK;
	case FFU_CAP_TYPE: {
		static const struct {
			const char *name;
			cl_device_type t;
		} types[] = {{"CL_DEVICE_TYPE_GPU", CL_DEVICE_TYPE_GPU}, {"CL_DEVICE_TYPE_CPU", CL_DEVICE_TYPE_CPU},
			     {"CL_DEVICE_TYPE_ACCELERATOR", CL_DEVICE_TYPE_ACCELERATOR},
			     {"CL_DEVICE_TYPE_CUSTOM", CL_DEVICE_TYPE_CUSTOM}};
		for (size_t i = 0; json_is_string(v) && i < sizeof types / sizeof types[0]; i++) {
			if (strcmp(json_string_value(v), types[i].name) == 0) {
				*(cl_device_type *)field = types[i].t;
				return FFU_STATUS_OK;
			}
		}
		return fixture_err(e, file, r->name, "expected CL_DEVICE_TYPE_GPU, _CPU, _ACCELERATOR or _CUSTOM");
	}
	case FFU_CAP_SIZES: {
		size_t n = r->size / sizeof(size_t), i;
		const json_t *item;
		if (!json_is_array(v))
			return fixture_err(e, file, r->name, "expected an array of sizes");
		memset(field, 0, r->size);
		json_array_foreach(v, i, item) {
			if (!json_unsigned(item, &u))
				return fixture_err(e, file, r->name, "expected an array of unsigned integers");
			if (i < n)
				((size_t *)field)[i] = (size_t)u;
		}
		return FFU_STATUS_OK;
	}
	default:
		if (!json_unsigned(v, &u) || !store_unsigned(field, r->size, u))
			return fixture_err(e, file, r->name, "expected an unsigned integer that fits the parameter's type");
		return FFU_STATUS_OK;
	}
}

static ffu_status fixture_scope(const json_t *obj, ffu_cap_scope scope, unsigned char *base, const unsigned *ext,
				const char *file, const char *what, ffu_error *e)
{
	const char *key;
	json_t *v;
	if (!json_is_object(obj))
		return fixture_err(e, file, what, "expected an object of CL_... keys");
	/* every key must be a row of this scope: a misspelt key would otherwise test nothing */
	json_object_foreach((json_t *)obj, key, v) {
		bool known = false;
		for (size_t i = 0; i < ffu__cap_n_rows && !known; i++)
			known = ffu__cap_rows[i].scope == scope && strcmp(ffu__cap_rows[i].name, key) == 0;
		if (!known)
			return fixture_err(e, file, key, "not a row of this section in the capability table");
	}
	for (size_t i = 0; i < ffu__cap_n_rows; i++) {
		const ffu_cap_row *r = &ffu__cap_rows[i];
		if (!row_wanted(r, scope, base, ext)) /* as on a live device */
			continue;
		const json_t *val = json_object_get(obj, r->name);
		if (!val) {
			if (r->required)
				return fixture_err(e, file, r->name, "missing (a required row)");
			continue;
		}
		ffu_status st = fixture_row(r, val, base, file, e);
		if (st)
			return st;
	}
	return FFU_STATUS_OK;
}

ffu_status ffu__caps_from_json(ffu_device_info *d, ffu_kernel_limits *kernel, const char *text, size_t len,
			       const char *file, ffu_error *e)
{
	json_error_t je;
	ffu_status st = FFU_STATUS_OK;
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);

	memset(d, 0, sizeof *d);
	if (kernel)
		memset(kernel, 0, sizeof *kernel);
	if (!root)
		return ffu__err_at(e, FFU_STATUS_EPARSE, file, je.line, je.column, "%s", je.text);
	if (!json_is_object(root)) {
		st = fixture_err(e, file, "(top level)", "expected an object");
		goto out;
	}
	if ((st = fixture_scope(json_object_get(root, "platform"), FFU_CAP_PLATFORM, (unsigned char *)d, NULL, file,
				"platform", e)) ||
	    (st = fixture_scope(json_object_get(root, "device"), FFU_CAP_DEVICE, (unsigned char *)d, &d->ext, file,
				"device", e)))
		goto out;
	if (kernel && json_object_get(root, "kernel") &&
	    (st = fixture_scope(json_object_get(root, "kernel"), FFU_CAP_KERNEL, (unsigned char *)kernel, NULL, file,
				"kernel", e)))
		goto out;
	snprintf(d->id, sizeof d->id, "0:0");
	ffu__caps_derive(d);
out:
	json_decref(root);
	return st;
}

/* ---- JSON view ----------------------------------------------------------------------- */

static json_t *ext_array(unsigned bits)
{
	json_t *a = json_array();
	for (int i = 0; a && i < FFU_EXT_COUNT; i++)
		if (bits & (1u << i))
			json_array_append_new(a, json_string(ffu__caps_ext_names[i]));
	return a;
}

json_t *ffu__caps_to_json(const ffu_device_info *d)
{
	json_t *o = json_object();
	const unsigned char *base = (const unsigned char *)d;
	for (size_t i = 0; o && i < ffu__cap_n_rows; i++) {
		const ffu_cap_row *r = &ffu__cap_rows[i];
		const void *field = base + r->offset;
		json_t *v = NULL;
		if (r->scope == FFU_CAP_KERNEL)
			continue;
		switch (r->kind) {
		case FFU_CAP_STR:
			v = json_string(field);
			break;
		case FFU_CAP_EXTS:
			v = ext_array(*(const unsigned *)field);
			break;
		case FFU_CAP_TYPE:
			v = json_string(ffu__device_type_str(*(const cl_device_type *)field));
			break;
		case FFU_CAP_SIZES:
			v = json_array();
			for (size_t k = 0; v && k < r->size / sizeof(size_t); k++)
				if (((const size_t *)field)[k])
					json_array_append_new(v, json_integer((json_int_t)((const size_t *)field)[k]));
			break;
		default:
			v = json_integer(r->size == 4 ? (json_int_t) * (const uint32_t *)field
						      : (json_int_t) * (const uint64_t *)field);
			break;
		}
		json_object_set_new(o, r->key, v);
	}
	if (o) {
		json_object_set_new(o, "id", json_string(d->id));
		json_object_set_new(o, "class", json_string(ffu__vendor_str(d->vendor_class)));
		json_object_set_new(o, "arch", json_string(d->arch));
		json_object_set_new(o, "warp_width", json_integer(d->warp_width));
		json_object_set_new(o, "int64", json_boolean(d->int64));
	}
	return o;
}
