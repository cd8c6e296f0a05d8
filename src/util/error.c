/* util/error.c: filling and printing ffu_error records. */
#include "util/error.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	ffu_status s;
	const char *desc;
} status_table[] = {
#define FFU_STATUS_ROW_(name, value, desc) {FFU_STATUS_##name, desc},
	FFU_STATUS_MAP(FFU_STATUS_ROW_)
#undef FFU_STATUS_ROW_
};

const char *ffu_status_str(ffu_status s)
{
	for (size_t i = 0; i < sizeof status_table / sizeof status_table[0]; i++)
		if (status_table[i].s == s)
			return status_table[i].desc;
	return "unknown status";
}

void ffu_error_clear(ffu_error *e)
{
	if (!e)
		return;
	free(e->build_log);
	memset(e, 0, sizeof *e);
}

static void set_message(ffu_error *e, const char *prefix, const char *fmt, va_list ap)
{
	size_t n = 0;
	if (prefix)
		n = (size_t)snprintf(e->message, sizeof e->message, "%s", prefix);
	if (n < sizeof e->message)
		vsnprintf(e->message + n, sizeof e->message - n, fmt, ap);
}

ffu_status ffu__err(ffu_error *e, ffu_status s, const char *fmt, ...)
{
	if (!e)
		return s;
	e->status = s;
	va_list ap;
	va_start(ap, fmt);
	set_message(e, NULL, fmt, ap);
	va_end(ap);
	return s;
}

ffu_status ffu__err_at(ffu_error *e, ffu_status s, const char *file, int line, int col,
		       const char *fmt, ...)
{
	if (!e)
		return s;
	e->status = s;
	snprintf(e->file, sizeof e->file, "%s", file ? file : "");
	e->line = line;
	e->col = col;
	va_list ap;
	va_start(ap, fmt);
	set_message(e, NULL, fmt, ap);
	va_end(ap);
	return s;
}

ffu_status ffu__err_v(ffu_error *e, ffu_status s, const char *prefix, const char *fmt, va_list ap)
{
	if (!e)
		return s;
	e->status = s;
	set_message(e, prefix, fmt, ap);
	return s;
}

void ffu_error_print(FILE *out, const ffu_error *e)
{
	if (e->file[0] && e->line > 0 && e->col > 0)
		fprintf(out, "%s:%d:%d: ", e->file, e->line, e->col);
	else if (e->file[0] && e->line > 0)
		fprintf(out, "%s:%d: ", e->file, e->line);
	else if (e->file[0])
		fprintf(out, "%s: ", e->file);
	fprintf(out, "error: %s\n", e->message[0] ? e->message : ffu_status_str(e->status));
	if (e->build_log && e->build_log[0])
		fprintf(out, "build log:\n%s\n", e->build_log);
}
