/*
 * device/caps.h: the device-capability record and the table that fills it. Every property
 * fieldfuse reads from a platform, a device or a kernel is one row of one table (caps.c):
 * its OpenCL parameter, its C type, the field it lands in, whether it is required, and the
 * extension that must be present before it is asked for (the vendor attribute queries).
 * The same rows fill a record from a live device (clGetPlatformInfo / clGetDeviceInfo /
 * clGetKernelWorkGroupInfo) or from a recorded JSON fixture (tests/fixtures/caps/) whose
 * keys are the CL_... names, so profile selection and launch planning are tested without
 * the hardware. Derived facts (vendor class, architecture, int64) are computed from the
 * rows by one function, the same for both sources.
 *
 * Ownership: the record is plain data (fixed-size strings, no pointers to free), copied by
 * value. The OpenCL ids in it are the driver's and need no release.
 */
#ifndef FFU_DEVICE_CAPS_H
#define FFU_DEVICE_CAPS_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include <CL/cl.h>
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/error.h"

/* Vendor classes: the implementation, which is what decides code generation and tuning. */
typedef enum {
	FFU_VENDOR_OTHER,
	FFU_VENDOR_POCL,
	FFU_VENDOR_RUSTICL,
	FFU_VENDOR_NVIDIA,
	FFU_VENDOR_AMD,
	FFU_VENDOR_INTEL,
	FFU_VENDOR_APPLE,
	FFU_VENDOR_COUNT
} ffu_vendor;

/* Extensions (and extension families) the device layer looks for: bits of ffu_device_info.ext. */
#define FFU_CAPS_EXTS(X)                                                     \
	X(FP64, "cl_khr_fp64")                                               \
	X(INT64_EMBEDDED, "cles_khr_int64")                                  \
	X(SUBGROUPS, "cl_khr_subgroups")                                     \
	X(IL_PROGRAM, "cl_khr_il_program")                                   \
	X(NV_ATTRIBUTES, "cl_nv_device_attribute_query")                     \
	X(AMD_ATTRIBUTES, "cl_amd_device_attribute_query")                   \
	X(INTEL_ATTRIBUTES, "cl_intel_device_attribute_query")               \
	X(INTEL_SUBGROUPS, "cl_intel_subgroups")                             \
	X(INTEL_REQD_SUBGROUP, "cl_intel_required_subgroup_size")            \
	X(FAMILY_POCL, "cl_pocl_*")                                          \
	X(FAMILY_NV, "cl_nv_*")                                              \
	X(FAMILY_AMD, "cl_amd_*")                                            \
	X(FAMILY_INTEL, "cl_intel_*")                                        \
	X(FAMILY_APPLE, "cl_APPLE_*")

enum {
#define FFU_CAPS_EXT_BIT_(id, name) FFU_EXT_BIT_##id,
	FFU_CAPS_EXTS(FFU_CAPS_EXT_BIT_)
#undef FFU_CAPS_EXT_BIT_
	FFU_EXT_COUNT
};
#define FFU_EXT(id) (1u << FFU_EXT_BIT_##id)

/*
 * Launch and code-generation parameters of a device. Used three ways: the built-in
 * profile table (profile.c), a tuning-database entry (tuning_db.c), and the API-level
 * override; 0 in a field means "not set here", so layers can be overlaid.
 */
typedef struct ffu_params {
	size_t wg;        /* work-group size of element-wise kernels */
	int lanes;        /* elements per work-item in wide kernels (1 = none) */
	int vector_width; /* uint words per load in 256-bit kernels (1 = scalar, 4 = uint4) */
	int limb_bits;    /* limb width of 256-bit fields: 32 or 64 */
} ffu_params;

enum { FFU_CAPS_STR = 256, FFU_CAPS_SHORT = 64, FFU_CAPS_SUBGROUPS = 4 };

typedef struct ffu_device_info {
	cl_platform_id platform;
	cl_device_id device;
	int platform_index, device_index;  /* as listed by `fieldfuse devices` */
	char id[16];                        /* "P:D" */

	/* ---- queried: one row each in caps.c ---- */
	char platform_name[FFU_CAPS_STR], platform_vendor[FFU_CAPS_STR], platform_version[FFU_CAPS_STR];
	char name[FFU_CAPS_STR], vendor[FFU_CAPS_STR], version[FFU_CAPS_STR], driver[FFU_CAPS_STR];
	char opencl_c_version[FFU_CAPS_STR], profile[FFU_CAPS_SHORT];
	char board_name[FFU_CAPS_STR];      /* AMD CL_DEVICE_BOARD_NAME_AMD ("AMD Instinct MI300X") */
	cl_device_type type;
	cl_uint vendor_id;                  /* PCI vendor (0x10de, 0x1002, 0x8086); PoCL CPUs report 0x8086 */
	cl_uint compute_units;
	cl_uint max_clock_mhz;
	size_t max_wg;
	cl_uint max_work_item_dims;
	size_t max_work_item_sizes[3];      /* first three dimensions; 0 where not reported */
	size_t preferred_wg_multiple;       /* CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE (3.0); 0 unknown */
	cl_ulong global_mem, max_alloc, local_mem;
	cl_ulong global_cache;              /* CL_DEVICE_GLOBAL_MEM_CACHE_SIZE (a CPU's L3); 0 unknown */
	size_t max_param_size;
	cl_uint address_bits;               /* CL_DEVICE_ADDRESS_BITS: work-item ids must fit */
	cl_uint pref_vector_int, native_vector_int; /* preferred / native vector width of uint */
	cl_uint native_vector_long;         /* native vector width of ulong (PoCL: 8 with AVX-512, 4 with AVX2) */
	cl_uint nv_cc_major, nv_cc_minor;   /* NVIDIA compute capability (9.0 Hopper, 12.0 RTX 5090) */
	cl_uint nv_warp;                    /* CL_DEVICE_WARP_SIZE_NV */
	cl_uint amd_wavefront;              /* CL_DEVICE_WAVEFRONT_WIDTH_AMD: 64 GCN/CDNA, 32 RDNA */
	cl_uint intel_ip_version;           /* CL_DEVICE_IP_VERSION_INTEL (major<<22 | minor<<14 | rev) */
	size_t intel_subgroup_sizes[FFU_CAPS_SUBGROUPS]; /* CL_DEVICE_SUB_GROUP_SIZES_INTEL */
	unsigned platform_ext, ext;         /* FFU_EXT bits of the platform's and the device's extensions */

	/* ---- derived (ffu__caps_derive) ---- */
	ffu_vendor vendor_class;            /* platform name, extensions, vendor id: never the device vendor alone */
	char arch[FFU_CAPS_SHORT];          /* "sm_90", "sm_120", "gfx942", "intel-12.55"; "" when unknown */
	cl_uint warp_width;                 /* SIMD width the hardware schedules (warp, wavefront); 0 unknown */
	bool int64;                         /* 64-bit integers in kernels (FULL_PROFILE or cles_khr_int64) */
	int max_kernel_args;                /* buffer arguments one kernel may take within max_param_size
	                                       (room kept for the scalar arguments); the fusion budget */

	/* ---- per context, not per device: zero in listings ---- */
	ffu_params tuned;                   /* the tuning-database entry found when the context opened */
	ffu_params override;                /* API-level override (ffu__cl_set_override) */
} ffu_device_info;

/* A kernel's limits on one device (clGetKernelWorkGroupInfo rows). */
typedef struct ffu_kernel_limits {
	size_t max_wg;             /* CL_KERNEL_WORK_GROUP_SIZE; 0 unknown */
	size_t preferred_multiple; /* CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE; 0 unknown */
} ffu_kernel_limits;

/* ---- the table ---- */

typedef enum { FFU_CAP_PLATFORM, FFU_CAP_DEVICE, FFU_CAP_KERNEL } ffu_cap_scope;
typedef enum {
	FFU_CAP_STR,   /* char[size], trimmed */
	FFU_CAP_EXTS,  /* extension string -> unsigned FFU_EXT bits */
	FFU_CAP_TYPE,  /* cl_device_type */
	FFU_CAP_UINT,  /* cl_uint */
	FFU_CAP_ULONG, /* cl_ulong */
	FFU_CAP_SIZE,  /* size_t */
	FFU_CAP_SIZES, /* size_t[], as many as fit */
} ffu_cap_kind;

typedef struct ffu_cap_row {
	ffu_cap_scope scope;
	ffu_cap_kind kind;
	cl_uint param;
	const char *name;     /* "CL_DEVICE_NAME": messages and fixture keys */
	const char *key;      /* "name": the key in `fieldfuse devices --json` */
	size_t offset, size;  /* the field in ffu_device_info (scope kernel: ffu_kernel_limits) */
	unsigned needs_ext;   /* FFU_EXT bits that must all be present before asking (0: always ask) */
	bool required;        /* a failure is an error; otherwise the field stays zero */
} ffu_cap_row;

extern const ffu_cap_row ffu__cap_rows[];
extern const size_t ffu__cap_n_rows;

/* Names of the FFU_EXT bits ("cl_khr_fp64", "cl_nv_*"), indexed by bit number. */
extern const char *const ffu__caps_ext_names[FFU_EXT_COUNT];
/* FFU_EXT bits of an extension string (either may be NULL / empty). */
unsigned ffu__caps_ext_bits(const char *extensions);

/*
 * Fills every platform and device row of d from a live device (d->platform, d->device and
 * the indices must be set) and derives the rest. A required row that fails is an error
 * naming the call, the parameter and the CL_... code; an optional one leaves its field 0.
 */
ffu_status ffu__caps_query(ffu_device_info *d, ffu_error *e);
/* The kernel rows for kernel k on device. */
ffu_status ffu__caps_kernel(ffu_kernel_limits *out, cl_kernel k, cl_device_id device, ffu_error *e);

/*
 * The same from a recorded fixture: a JSON object with "platform", "device" and (optional)
 * "kernel" objects keyed by the CL_... names. Numbers are JSON integers or "0x..." strings,
 * CL_DEVICE_TYPE a name ("CL_DEVICE_TYPE_GPU"), sizes arrays. A missing required row or a
 * value of the wrong type is FFU_STATUS_EPARSE naming file and key. kernel may be NULL.
 */
ffu_status ffu__caps_from_json(ffu_device_info *d, ffu_kernel_limits *kernel, const char *text, size_t len,
			       const char *file, ffu_error *e);

/* Vendor class, arch, warp width and int64 from the rows (called by both fillers). */
void ffu__caps_derive(ffu_device_info *d);
/* Buffer arguments a kernel may take on a device with this CL_DEVICE_MAX_PARAMETER_SIZE
   (0: unknown) and address width: 4..64. Sets the fusion pass's max_params. */
int ffu__caps_kernel_args(size_t max_param_size, cl_uint address_bits);
/*
 * The vendor class: the platform name first (PoCL and Rusticl name themselves; PoCL's
 * device vendor is the CPU maker's and its vendor id 0x8086 even on AMD CPUs), then the
 * platform's vendor extension families, then the device's PCI vendor id, then the
 * device's vendor extensions.
 */
ffu_vendor ffu__caps_classify(const char *platform_name, unsigned platform_ext, cl_uint vendor_id, unsigned device_ext);
/* Lower-case name of a vendor class as selectors spell it: "pocl", "rusticl", ..., "other". */
const char *ffu__vendor_str(ffu_vendor v);
/* "gpu", "cpu", "accelerator" or "other". */
const char *ffu__device_type_str(cl_device_type t);

/* The rows and derived facts as a JSON object (new reference; NULL when out of memory). */
json_t *ffu__caps_to_json(const ffu_device_info *d);

#endif
