/*
 * ocl/ocl.h: the OpenCL-call layer, the floor under everything that calls OpenCL (device/
 * queries capabilities, runtime/ builds and launches, api/ does interop). It holds what every
 * OpenCL call needs and nothing about devices or programs: the CL headers at one target
 * version, the FFU_CL gate with its fault injection, error names (ffu_cl_error_name is
 * public, in fieldfuse/status.h) and the error record of a failed call. It includes only
 * util/ and the OpenCL headers.
 *
 * Fault injection: tests (and users, via FIELDFUSE_FAULT) can make any OpenCL call fail with
 * a chosen CL_... code and check that the failure comes back as a status and a message
 * naming the call and the code, with nothing leaked and nothing aborted.
 *
 * Every OpenCL call in device/ and runtime/ goes through FFU_CL (calls returning cl_int) or
 * FFU_CL_NEW (calls returning an object with an errcode_ret). Both are always compiled in:
 * a separate test build would test a different binary from the one users run, and the CLI
 * must honour FIELDFUSE_FAULT in the installed tool. When nothing is armed the cost is one
 * relaxed atomic load and one well-predicted branch per OpenCL call, which costs
 * microseconds anyway.
 *
 * Ownership: the fault table is process-wide and owned by fault.c. FIELDFUSE_FAULT is
 * parsed once (on the first hooked call) into it; tests add and clear entries through
 * ffu__cl_fault_set / ffu__cl_fault_clear. A fault fires for every call of that name after
 * the first `after` successful ones (a lost device or exhausted memory stays that way).
 */
#ifndef FFU_OCL_OCL_H
#define FFU_OCL_OCL_H

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "util/error.h"

enum { FFU_CL_FAULT_MAX = 16 };

/* 0: FIELDFUSE_FAULT not read yet; 1: nothing armed; 2: some fault armed. */
extern atomic_int ffu__cl_fault_state;

/* The slow path: reads FIELDFUSE_FAULT once, then counts the call against the table. */
cl_int ffu__cl_fault_check(const char *call);

static inline cl_int ffu__cl_fault(const char *call)
{
	if (__builtin_expect(atomic_load_explicit(&ffu__cl_fault_state, memory_order_relaxed) == 1, 1))
		return CL_SUCCESS;
	return ffu__cl_fault_check(call);
}

/* err = FFU_CL(clFinish, queue): the injected code, or the real call's result. */
#define FFU_CL(fn, ...)                                                          \
	__extension__({                                                          \
		cl_int ffu_fault_ = ffu__cl_fault(#fn);                          \
		ffu_fault_ != CL_SUCCESS ? ffu_fault_ : fn(__VA_ARGS__);         \
	})

/* obj = FFU_CL_NEW(clCreateBuffer, &err, ctx, ...): NULL with *errp set when injected. */
#define FFU_CL_NEW(fn, errp, ...)                                                \
	__extension__({                                                          \
		cl_int ffu_fault_ = ffu__cl_fault(#fn);                          \
		if (ffu_fault_ != CL_SUCCESS)                                    \
			*(errp) = ffu_fault_;                                    \
		ffu_fault_ != CL_SUCCESS ? NULL : fn(__VA_ARGS__);               \
	})

/*
 * Arms a fault: calls named `call` (e.g. "clBuildProgram") fail with `code` (non-zero)
 * after `after` successful ones. EINVAL for a malformed name or code 0, ELIMIT when the
 * table is full.
 */
ffu_status ffu__cl_fault_set(const char *call, cl_int code, unsigned after, ffu_error *e);
/* Disarms everything, including faults from FIELDFUSE_FAULT. */
void ffu__cl_fault_clear(void);
/* How many calls have been failed on purpose since the last clear: tests check it is > 0. */
unsigned ffu__cl_fault_hits(void);
/*
 * The FIELDFUSE_FAULT parse result: OK, or EINVAL with a message. Device listing reports it,
 * so a typo in the variable is an error rather than a silently healthy run.
 */
ffu_status ffu__cl_fault_env_status(ffu_error *e);

/* CL_... name -> code (errors.c reads its own table); false if unknown. */
bool ffu__cl_error_code(const char *name, size_t len, cl_int *code);

/* A failed OpenCL call (errors.c): status ECL, e->cl_call and e->cl_code set, message
   "<call> failed: CL_...: <fmt>". */
ffu_status ffu__err_cl(ffu_error *e, const char *call, int code, const char *fmt, ...) FFU_PRINTF(4, 5);

#endif
