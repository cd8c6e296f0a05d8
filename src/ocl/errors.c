/*
 * ocl/errors.c: names of OpenCL error codes, and the errors of failed OpenCL calls, for
 * messages such as "clBuildProgram failed: CL_BUILD_PROGRAM_FAILURE: ...".
 *
 * Ownership: the table is static and read-only; the text for an unknown code lives in a
 * thread-local buffer, valid until the same thread asks for another unknown code.
 */
#include "ocl/ocl.h"

#include <CL/cl_ext.h>
#include <stdio.h>
#include <string.h>

/*
 * Older headers lack the newest codes; the values are fixed by the specification, so define
 * them here rather than lose the names when building against an OpenCL 1.2 or 2.0 header.
 */
#ifndef CL_INVALID_PIPE_SIZE
#define CL_INVALID_PIPE_SIZE -69
#endif
#ifndef CL_INVALID_DEVICE_QUEUE
#define CL_INVALID_DEVICE_QUEUE -70
#endif
#ifndef CL_INVALID_SPEC_ID
#define CL_INVALID_SPEC_ID -71
#endif
#ifndef CL_MAX_SIZE_RESTRICTION_EXCEEDED
#define CL_MAX_SIZE_RESTRICTION_EXCEEDED -72
#endif
#ifndef CL_PLATFORM_NOT_FOUND_KHR
#define CL_PLATFORM_NOT_FOUND_KHR -1001
#endif

/* X(name): one row per code; the name is stringised, so it cannot drift from the value. */
#define FFU_CL_ERRORS(X)                               \
	X(CL_SUCCESS)                                  \
	X(CL_DEVICE_NOT_FOUND)                         \
	X(CL_DEVICE_NOT_AVAILABLE)                     \
	X(CL_COMPILER_NOT_AVAILABLE)                   \
	X(CL_MEM_OBJECT_ALLOCATION_FAILURE)            \
	X(CL_OUT_OF_RESOURCES)                         \
	X(CL_OUT_OF_HOST_MEMORY)                       \
	X(CL_PROFILING_INFO_NOT_AVAILABLE)             \
	X(CL_MEM_COPY_OVERLAP)                         \
	X(CL_IMAGE_FORMAT_MISMATCH)                    \
	X(CL_IMAGE_FORMAT_NOT_SUPPORTED)               \
	X(CL_BUILD_PROGRAM_FAILURE)                    \
	X(CL_MAP_FAILURE)                              \
	X(CL_MISALIGNED_SUB_BUFFER_OFFSET)             \
	X(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST) \
	X(CL_COMPILE_PROGRAM_FAILURE)                  \
	X(CL_LINKER_NOT_AVAILABLE)                     \
	X(CL_LINK_PROGRAM_FAILURE)                     \
	X(CL_DEVICE_PARTITION_FAILED)                  \
	X(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)            \
	X(CL_INVALID_VALUE)                            \
	X(CL_INVALID_DEVICE_TYPE)                      \
	X(CL_INVALID_PLATFORM)                         \
	X(CL_INVALID_DEVICE)                           \
	X(CL_INVALID_CONTEXT)                          \
	X(CL_INVALID_QUEUE_PROPERTIES)                 \
	X(CL_INVALID_COMMAND_QUEUE)                    \
	X(CL_INVALID_HOST_PTR)                         \
	X(CL_INVALID_MEM_OBJECT)                       \
	X(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)          \
	X(CL_INVALID_IMAGE_SIZE)                       \
	X(CL_INVALID_SAMPLER)                          \
	X(CL_INVALID_BINARY)                           \
	X(CL_INVALID_BUILD_OPTIONS)                    \
	X(CL_INVALID_PROGRAM)                          \
	X(CL_INVALID_PROGRAM_EXECUTABLE)               \
	X(CL_INVALID_KERNEL_NAME)                      \
	X(CL_INVALID_KERNEL_DEFINITION)                \
	X(CL_INVALID_KERNEL)                           \
	X(CL_INVALID_ARG_INDEX)                        \
	X(CL_INVALID_ARG_VALUE)                        \
	X(CL_INVALID_ARG_SIZE)                         \
	X(CL_INVALID_KERNEL_ARGS)                      \
	X(CL_INVALID_WORK_DIMENSION)                   \
	X(CL_INVALID_WORK_GROUP_SIZE)                  \
	X(CL_INVALID_WORK_ITEM_SIZE)                   \
	X(CL_INVALID_GLOBAL_OFFSET)                    \
	X(CL_INVALID_EVENT_WAIT_LIST)                  \
	X(CL_INVALID_EVENT)                            \
	X(CL_INVALID_OPERATION)                        \
	X(CL_INVALID_GL_OBJECT)                        \
	X(CL_INVALID_BUFFER_SIZE)                      \
	X(CL_INVALID_MIP_LEVEL)                        \
	X(CL_INVALID_GLOBAL_WORK_SIZE)                 \
	X(CL_INVALID_PROPERTY)                         \
	X(CL_INVALID_IMAGE_DESCRIPTOR)                 \
	X(CL_INVALID_COMPILER_OPTIONS)                 \
	X(CL_INVALID_LINKER_OPTIONS)                   \
	X(CL_INVALID_DEVICE_PARTITION_COUNT)           \
	X(CL_INVALID_PIPE_SIZE)                        \
	X(CL_INVALID_DEVICE_QUEUE)                     \
	X(CL_INVALID_SPEC_ID)                          \
	X(CL_MAX_SIZE_RESTRICTION_EXCEEDED)            \
	X(CL_PLATFORM_NOT_FOUND_KHR)

static const struct {
	int code;
	const char *name;
} cl_error_table[] = {
#define FFU_CL_ERROR_ROW_(name) {name, #name},
	FFU_CL_ERRORS(FFU_CL_ERROR_ROW_)
#undef FFU_CL_ERROR_ROW_
};

const char *ffu_cl_error_name(int code)
{
	/* Thread-local so that two threads formatting unknown codes do not race. */
	static _Thread_local char unknown[40];

	for (size_t i = 0; i < sizeof cl_error_table / sizeof cl_error_table[0]; i++)
		if (cl_error_table[i].code == code)
			return cl_error_table[i].name;
	snprintf(unknown, sizeof unknown, "CL_UNKNOWN_ERROR(%d)", code);
	return unknown;
}

/* The reverse lookup, for FIELDFUSE_FAULT=clCreateBuffer:CL_MEM_OBJECT_ALLOCATION_FAILURE. */
bool ffu__cl_error_code(const char *name, size_t len, cl_int *code)
{
	for (size_t i = 0; i < sizeof cl_error_table / sizeof cl_error_table[0]; i++) {
		if (strlen(cl_error_table[i].name) == len && memcmp(cl_error_table[i].name, name, len) == 0) {
			*code = cl_error_table[i].code;
			return true;
		}
	}
	return false;
}

ffu_status ffu__err_cl(ffu_error *e, const char *call, int code, const char *fmt, ...)
{
	if (!e)
		return FFU_STATUS_ECL;
	snprintf(e->cl_call, sizeof e->cl_call, "%s", call);
	e->cl_code = code;
	char prefix[160];
	snprintf(prefix, sizeof prefix, "%s failed: %s: ", call, ffu_cl_error_name(code));
	va_list ap;
	va_start(ap, fmt);
	ffu_status st = ffu__err_v(e, FFU_STATUS_ECL, prefix, fmt, ap);
	va_end(ap);
	return st;
}
