/*
 * util/file.h: whole-file reads and atomic writes. Every file fieldfuse writes (outputs,
 * JSON, CSV, plots) goes through ffu__file_write_atomic: a temporary file beside the
 * target, then rename(), so a failure never leaves a partial file under the final name.
 */
#ifndef FFU_UTIL_FILE_H
#define FFU_UTIL_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "util/error.h"

/* Reads all of path ("-" = stdin) into *out (malloc'd, NUL-terminated; *len excludes the NUL). */
ffu_status ffu__file_read(const char *path, char **out, size_t *len, ffu_error *e);

/*
 * Calls write(f, arg) on a temporary file next to path, then renames it over path.
 * write returns a status; any failure (its own, a short write, fclose) removes the
 * temporary file. path "-" writes straight to stdout.
 */
typedef ffu_status (*ffu_file_writer)(FILE *f, void *arg, ffu_error *e);
ffu_status ffu__file_write_atomic(const char *path, ffu_file_writer write, void *arg, ffu_error *e);

#endif
