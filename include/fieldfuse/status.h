/*
 * fieldfuse/status.h: status codes and error details shared by every public call.
 *
 * Every fallible call returns an ffu_status (0 = success, negative = error) and, where the
 * caller passes one, fills an ffu_error with a human-readable message, the source position
 * for bad input, and the failing OpenCL call with its CL_... code. The caller owns the
 * ffu_error; ffu_error_clear() frees what it holds (a build log). Nothing in the library
 * aborts or prints on a user or driver error.
 */
#ifndef FIELDFUSE_STATUS_H
#define FIELDFUSE_STATUS_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* X(NAME, value, description): one row per status; ffu_status_str reads the same table. */
#define FFU_STATUS_MAP(X)                                                          \
	X(OK, 0, "success")                                                        \
	X(EINVAL, -1, "invalid argument")                                          \
	X(EPARSE, -2, "malformed input")                                           \
	X(EVERIFY, -3, "invalid program")                                          \
	X(ENOMEM, -4, "out of host memory")                                        \
	X(EIO, -5, "file I/O failed")                                              \
	X(ENODEV, -6, "no matching OpenCL device")                                 \
	X(ECL, -7, "OpenCL call failed")                                           \
	X(EBUILD, -8, "OpenCL program build failed")                               \
	X(EUNSUPPORTED, -9, "not supported")                                       \
	X(ELIMIT, -10, "exceeds a device or program limit")                        \
	X(EMISMATCH, -11, "device result differs from the reference interpreter")     \
	X(ESIGNATURE, -12, "argument does not match the program's signature")      \
	X(ECOMM, -13, "exchange between ranks failed")

typedef enum ffu_status {
#define FFU_STATUS_ENUM_(name, value, desc) FFU_STATUS_##name = value,
	FFU_STATUS_MAP(FFU_STATUS_ENUM_)
#undef FFU_STATUS_ENUM_
} ffu_status;

/* Detail of the last failure. Zero-initialise before first use. */
typedef struct ffu_error {
	ffu_status status;
	char file[256];     /* input file for bad input, "" otherwise */
	int line, col;      /* 1-based position in file; 0 when unknown / not applicable */
	char cl_call[64];   /* failing OpenCL entry point, "" if none */
	int cl_code;        /* its cl_int result */
	char message[1024];
	char *build_log;    /* OpenCL build log (owned; freed by ffu_error_clear) */
} ffu_error;

const char *ffu_status_str(ffu_status s);
/* Name of an OpenCL error code ("CL_OUT_OF_RESOURCES"), or "CL_UNKNOWN_ERROR(<n>)" in a static buffer. */
const char *ffu_cl_error_name(int code);
void ffu_error_clear(ffu_error *e);
/* Prints "FILE:LINE:COL: error: msg" (or the parts that apply) plus the build log. */
void ffu_error_print(FILE *out, const ffu_error *e);

#ifdef __cplusplus
}
#endif
#endif
