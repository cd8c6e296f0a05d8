/*
 * util/strbuf.h: growable string for generated source and printed HLO. Appends never fail
 * loudly: on allocation failure the buffer latches `oom` and later appends are no-ops, so
 * emitters check once at the end (ffu__sb_status).
 */
#ifndef FFU_UTIL_STRBUF_H
#define FFU_UTIL_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

#include "util/error.h"

typedef struct ffu_strbuf {
	char *data; /* NUL-terminated when len > 0 or after ffu__sb_cstr */
	size_t len, cap;
	bool oom;
} ffu_strbuf;

void ffu__sb_append(ffu_strbuf *sb, const char *s);
void ffu__sb_appendn(ffu_strbuf *sb, const char *s, size_t n);
void ffu__sb_printf(ffu_strbuf *sb, const char *fmt, ...) FFU_PRINTF(2, 3);
const char *ffu__sb_cstr(ffu_strbuf *sb); /* "" if empty */
ffu_status ffu__sb_status(const ffu_strbuf *sb, ffu_error *e);
void ffu__sb_free(ffu_strbuf *sb);

#endif
