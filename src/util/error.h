/*
 * util/error.h: internal helpers that fill an ffu_error and return its status, so error
 * paths read `return ffu__err(e, FFU_STATUS_EINVAL, "...")` or `st = ...; goto out;`.
 * Every helper accepts e == NULL (the caller did not ask for details).
 */
#ifndef FFU_UTIL_ERROR_H
#define FFU_UTIL_ERROR_H

#include <stdarg.h>

#include "fieldfuse/status.h"

#if defined(__GNUC__)
#define FFU_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define FFU_PRINTF(a, b)
#endif

ffu_status ffu__err(ffu_error *e, ffu_status s, const char *fmt, ...) FFU_PRINTF(3, 4);
/* Bad input at FILE:LINE:COL (col 0 = line only, as for value files). */
ffu_status ffu__err_at(ffu_error *e, ffu_status s, const char *file, int line, int col,
		       const char *fmt, ...) FFU_PRINTF(6, 7);
/* ffu__err with a va_list and a prefix put before the formatted text (the OpenCL-call layer's
   "<call> failed: CL_...: "); the message is cut to fit, prefix first. */
ffu_status ffu__err_v(ffu_error *e, ffu_status s, const char *prefix, const char *fmt, va_list ap);

#endif
