/* tools/cli/common.c: see cli.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/tool.h"
#include "cli.h"

int cli_fail(const ffu_error *e)
{
	/* errors about no file say which program complains, as usage errors do */
	if (!e->file[0])
		fputs("fieldfuse: ", stderr);
	ffu_error_print(stderr, e);
	switch (e->status) {
	case FFU_STATUS_EPARSE:
	case FFU_STATUS_EVERIFY:
	case FFU_STATUS_EUNSUPPORTED:
	case FFU_STATUS_EINVAL:
	case FFU_STATUS_EIO:
		return CLI_USAGE;
	default:
		return CLI_FAIL;
	}
}

int cli_usage(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "fieldfuse: error: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	return CLI_USAGE;
}

/* When FFU_DIALECT_AUTO picked zkx-2026.01: says so, with the position that decided it. */
static void dialect_note(const char *path, const ffu_parse_options *po)
{
	fprintf(stderr,
		"%s:%d:%d: note: a `_std` type or MONT(...) layout selects dialect zkx-2026.01: plain field "
		"names mean Montgomery form (--dialect fieldfuse reads them as canonical)\n",
		path, po->auto_line, po->auto_col);
}

ffu_status cli_load_program(const char *path, ffu_dialect dialect, ffu_program **out, ffu_error *e)
{
	char *text = NULL;
	size_t len = 0;
	*out = NULL;
	ffu_parse_options po = {.dialect = dialect};
	ffu_status st = ffu_tool_read_file(path, &text, &len, e);
	if (st == FFU_STATUS_OK)
		st = ffu_program_parse_with(out, text, len, path, &po, e);
	if (st == FFU_STATUS_OK && po.auto_line)
		dialect_note(path, &po);
	free(text);
	return st;
}

int cli_dialect(const char *cmd, const char *value, ffu_dialect *out)
{
	for (int d = FFU_DIALECT_AUTO; ffu_dialect_name((ffu_dialect)d); d++) {
		if (strcmp(value, ffu_dialect_name((ffu_dialect)d)) == 0) {
			*out = (ffu_dialect)d;
			return CLI_OK;
		}
	}
	return cli_usage("%s: --dialect takes auto, fieldfuse or zkx-2026.01, not '%s'", cmd, value);
}

int cli_opt(int argc, char **argv, int *i, const char *name, const char **value)
{
	size_t n = strlen(name);
	if (strncmp(argv[*i], name, n) != 0)
		return 0;
	if (argv[*i][n] == '=') {
		*value = argv[*i] + n + 1;
		return 1;
	}
	if (argv[*i][n] != '\0')
		return 0;
	if (*i + 1 >= argc)
		return -1;
	*value = argv[++*i];
	return 1;
}
