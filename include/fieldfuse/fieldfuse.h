/*
 * fieldfuse/fieldfuse.h: the public API of libfieldfuse (first version): parse an HLO
 * module (docs/hlo.md, HLO.md sections 2-3), ask for its inputs and outputs, run it on an
 * OpenCL device (fused, or one kernel per op) or on the host reference interpreter.
 * Owned by the API layer (src/api/). This header also includes the graph builder
 * (fieldfuse/builder.h) and the embedding API of executables compiled once and run many
 * times on device-resident buffers (fieldfuse/executable.h); OpenCL interoperation is in
 * fieldfuse/opencl.h, which needs the OpenCL headers and is not included here.
 *
 * Ownership
 *   - ffu_program_parse / ffu_device_open create a handle that the caller owns and releases
 *     with ffu_program_destroy / ffu_device_close. Those take the address of the handle,
 *     release it and set it to NULL; NULL and a pointer to NULL are accepted (no-op).
 *   - Strings returned as const char * (ffu_version, ffu_device_name, the names in
 *     ffu_array_info) belong to the library or to the handle they came from and stay valid
 *     until that handle is destroyed. ffu_program_print returns malloc'd text: free() it.
 *   - Input and output buffers are the caller's; the library reads inputs and writes
 *     outputs during the call and keeps no pointer to either afterwards.
 *   - ffu_error (status.h) is the caller's. Every fallible call here clears it on entry
 *     (ffu_error_clear, so a build log from an earlier failure is freed) and fills it on
 *     failure; pass NULL when the status alone is enough. Zero-initialise it once.
 *
 * Threads
 *   - A program is immutable after ffu_program_parse: any number of threads may use one
 *     program at once through the calls that take a const ffu_program * (the queries,
 *     print, run, interpret), as long as none destroys it meanwhile. ffu_program_run
 *     compiles a private copy of the module, so runs never modify the program.
 *   - A device handle (its OpenCL context and in-order queue) is used by one thread at a
 *     time; give each thread its own ffu_device, or serialise. Different devices may be
 *     used from different threads at the same time.
 *   - ffu_version, ffu_status_str and ffu_cl_error_name may be called from any thread.
 *
 * Values at the boundary are canonical (HLO.md section 4, .bin layout): each element is the
 * integer in [0, p), little-endian, in the element type's storage size (4 bytes for the
 * 31-bit fields, 32 for bn254_sf), row-major. How a device stores them is not the caller's
 * concern. An input element that is not < p is rejected (FFU_STATUS_EINVAL), never reduced.
 * For a `_mont` type (which is what ZKX's plain names become in FFU_DIALECT_ZKX_2026_01,
 * see ffu_parse_options) the element is the raw Montgomery integer x * R mod p.
 *
 * Environment: FIELDFUSE_DISABLE_FUSION=1 makes ffu_program_run behave as if no_fuse were
 * set (a kill switch for bisecting, read once per process); FIELDFUSE_DEVICE is the default
 * device selector; FIELDFUSE_WG_SIZE overrides the work-group size;
 * FIELDFUSE_DISABLE_PASSES=a,b turns passes off; FIELDFUSE_PROGRAM_CACHE=0|1 turns the
 * on-disk program cache off or on (default per vendor, docs/tuning.md) and
 * FIELDFUSE_CACHE_DIR moves it and the tuning database (default $XDG_CACHE_HOME/fieldfuse).
 */
#ifndef FIELDFUSE_FIELDFUSE_H
#define FIELDFUSE_FIELDFUSE_H

#include <stddef.h>
#include <stdint.h>

#include "fieldfuse/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Public entry points are exported even if the library is one day built hidden by default. */
#if defined(__GNUC__)
#define FFU_API __attribute__((visibility("default")))
#else
#define FFU_API
#endif

/* The library's version, "MAJOR.MINOR.PATCH" (the Meson project version). */
FFU_API const char *ffu_version(void);

/* ---------------------------------------------------------------- programs */

/* A parsed and verified HLO module: its entry computation is what runs. */
typedef struct ffu_program ffu_program;

enum { FFU_ARRAY_MAX_RANK = 4 };

/* One input (entry parameter) or output (entry ROOT, or one element of a tuple ROOT). */
typedef struct ffu_array_info {
	const char *name;        /* parameter name / output instruction name, no '%' (program-owned) */
	const char *type;        /* element type keyword, "babybear" (static) */
	int rank;                /* 0 for a scalar */
	int64_t dims[FFU_ARRAY_MAX_RANK];
	size_t count;            /* elements (1 for a scalar; 0 if a dimension is 0) */
	size_t elem_bytes;       /* canonical storage bytes per element */
	size_t bytes;            /* count * elem_bytes: the buffer size run and interpret use */
	/* -1 for a dense array. A CSR sparse matrix input (a dot's lhs, layout D(D, C), rank 2):
	   its stored entries, and `bytes` is ZKX's CSR layout instead, little-endian, no
	   padding: row_ptrs u32[dims[0] + 1], col_indices u32[nnz], values[nnz] of elem_bytes
	   each (docs/hlo.md "dot"); `count` is still dims[0] * dims[1]. */
	int64_t nnz;
} ffu_array_info;

/*
 * Parses and verifies len bytes of HLO text (need not be NUL-terminated: nothing past
 * len is read). name is the file name that errors cite (NULL: "<input>"): on
 * FFU_STATUS_EPARSE / EVERIFY / EUNSUPPORTED, e holds FILE:LINE:COL and the message, which
 * ffu_error_print shows as `name:LINE:COL: error: ...`. *out is NULL on failure.
 */
FFU_API ffu_status ffu_program_parse(ffu_program **out, const char *text, size_t len, const char *name,
				     ffu_error *e);
/*
 * Which form a plain field type name (`babybear`) means (docs/hlo.md "Dialects"). The
 * explicit spellings mean the same in every dialect: `_mont` Montgomery, `_std` canonical,
 * a layout's MONT(true) / MONT(false) Montgomery / canonical.
 *   FIELDFUSE      plain = canonical (today's zk_dtypes, fieldfuse's printer).
 *   ZKX_2026_01    plain = Montgomery, as ZKX up to 2026-01; constants are canonical numbers
 *                  converted to the type's form, as ZKX's parser does.
 *   AUTO           ZKX_2026_01 if the text names a `_std` type or a MONT(...) layout
 *                  (both exist only in that era of ZKX), else FIELDFUSE.
 * Programs print in the FIELDFUSE dialect (`babybear_mont` for a ZKX plain `babybear`).
 */
typedef enum ffu_dialect {
	FFU_DIALECT_AUTO = 0,
	FFU_DIALECT_FIELDFUSE = 1,
	FFU_DIALECT_ZKX_2026_01 = 2,
} ffu_dialect;

/* "auto", "fieldfuse", "zkx-2026.01" (the CLI's --dialect values); NULL if out of range. */
FFU_API const char *ffu_dialect_name(ffu_dialect d);

typedef struct ffu_parse_options {
	ffu_dialect dialect;      /* in: FFU_DIALECT_AUTO (zero) by default */
	ffu_dialect dialect_used; /* out: what the text was read as (never AUTO) */
	/* out: where AUTO found the `_std` name or MONT(...) that chose ZKX_2026_01; 0 if it did not */
	int auto_line, auto_col;
} ffu_parse_options;

/*
 * ffu_program_parse with options (NULL: the defaults, which is what ffu_program_parse
 * uses). The library prints nothing: a caller that wants to tell its user that AUTO chose
 * ZKX_2026_01 reads dialect_used and auto_line / auto_col (the CLI prints a note).
 */
FFU_API ffu_status ffu_program_parse_with(ffu_program **out, const char *text, size_t len, const char *name,
					  ffu_parse_options *o, ffu_error *e);
/* The module in canonical text form (parsing it gives an equal program). *out_text malloc'd: free(). */
FFU_API ffu_status ffu_program_print(char **out_text, const ffu_program *p, ffu_error *e);
FFU_API void ffu_program_destroy(ffu_program **p);

/* The module's name (`HloModule NAME`); "" for NULL. */
FFU_API const char *ffu_program_name(const ffu_program *p);
/* Counts of inputs and outputs; 0 for NULL. */
FFU_API int ffu_program_num_inputs(const ffu_program *p);
FFU_API int ffu_program_num_outputs(const ffu_program *p);
/* Describes input / output i (0-based); FFU_STATUS_EINVAL when i is out of range. */
FFU_API ffu_status ffu_program_input(const ffu_program *p, int i, ffu_array_info *info);
FFU_API ffu_status ffu_program_output(const ffu_program *p, int i, ffu_array_info *info);

/* ---------------------------------------------------------------- devices */

/* One OpenCL device with its own context and in-order queue. */
typedef struct ffu_device ffu_device;

/*
 * Opens the device a selector names (HLO.md section 5, as `fieldfuse --device`): "pocl",
 * "rusticl", "nvidia", "amd", "intel", "cpu", "gpu", an index "0" or "P:D" as listed by
 * `fieldfuse devices`, or part of the device name. NULL or "" means $FIELDFUSE_DEVICE, else
 * the first GPU, else the first CPU. FFU_STATUS_ENODEV (with the devices present in the
 * message) when nothing matches; FFU_STATUS_ECL when OpenCL fails.
 */
FFU_API ffu_status ffu_device_open(ffu_device **out, const char *selector, ffu_error *e);
/* The device's name (CL_DEVICE_NAME) and id "P:D"; "" for NULL. Valid until close. */
FFU_API const char *ffu_device_name(const ffu_device *d);
FFU_API const char *ffu_device_id(const ffu_device *d);
FFU_API void ffu_device_close(ffu_device **d);

/* ---------------------------------------------------------------- running */

typedef struct ffu_run_options {
	int no_fuse;      /* in: nonzero = one kernel per operation (the unfused baseline) */
	double kernel_ms; /* out: device time from the first kernel's start to the last one's end */
	int kernels;      /* out: kernels launched */
} ffu_run_options;

/*
 * Compiles the program for d (fused unless o->no_fuse or FIELDFUSE_DISABLE_FUSION=1),
 * uploads the inputs, runs, and downloads the outputs. inputs[i] points at
 * ffu_program_input(p, i).bytes of canonical values, outputs[i] at
 * ffu_program_output(p, i).bytes of writable memory (an array with a NULL entry is only
 * allowed where that size is 0). o may be NULL; its out fields are written on success.
 * Each call generates the kernels again; the device handle keeps built programs, so a
 * repeated run skips the OpenCL build. The program is not modified (compile it once with
 * executable.h to skip generation too).
 * An input value >= p: FFU_STATUS_EINVAL naming the input and element. On failure the
 * contents of the output buffers are unspecified.
 */
FFU_API ffu_status ffu_program_run(ffu_device *d, const ffu_program *p, ffu_run_options *o,
				   const void *const *inputs, void *const *outputs, ffu_error *e);
/*
 * Runs the program as written (unfused) on the host reference interpreter: the oracle that
 * device results are checked against. Same buffers and input checks as ffu_program_run.
 */
FFU_API ffu_status ffu_program_interpret(const ffu_program *p, const void *const *inputs, void *const *outputs,
					 ffu_error *e);

#ifdef __cplusplus
}
#endif

/* After the declarations above, which they build on. */
#include "fieldfuse/builder.h"
#include "fieldfuse/executable.h"

#endif
