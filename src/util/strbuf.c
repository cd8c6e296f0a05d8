/* util/strbuf.c: growable string (see strbuf.h). */
#include "util/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool reserve(ffu_strbuf *sb, size_t extra)
{
	if (sb->oom)
		return false;
	if (sb->len + extra + 1 <= sb->cap)
		return true;
	size_t cap = sb->cap ? sb->cap : 256;
	while (cap < sb->len + extra + 1)
		cap *= 2;
	char *p = realloc(sb->data, cap);
	if (!p) {
		sb->oom = true;
		return false;
	}
	sb->data = p;
	sb->cap = cap;
	return true;
}

void ffu__sb_appendn(ffu_strbuf *sb, const char *s, size_t n)
{
	if (!reserve(sb, n))
		return;
	memcpy(sb->data + sb->len, s, n);
	sb->len += n;
	sb->data[sb->len] = '\0';
}

void ffu__sb_append(ffu_strbuf *sb, const char *s)
{
	ffu__sb_appendn(sb, s, strlen(s));
}

void ffu__sb_printf(ffu_strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !reserve(sb, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}

const char *ffu__sb_cstr(ffu_strbuf *sb)
{
	return sb->data && !sb->oom ? sb->data : "";
}

ffu_status ffu__sb_status(const ffu_strbuf *sb, ffu_error *e)
{
	return sb->oom ? ffu__err(e, FFU_STATUS_ENOMEM, "out of memory building text") : FFU_STATUS_OK;
}

void ffu__sb_free(ffu_strbuf *sb)
{
	free(sb->data);
	memset(sb, 0, sizeof *sb);
}
