/* tests/support.c: see support.h. */
#include "support.h"

#include "util/file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const ffu_test_devices[2] = {"pocl", "rusticl"};

char *ffu_test_path(const char *rel)
{
	const char *root = getenv("FFU_SOURCE_ROOT");
	if (!root)
		root = ".";
	size_t n = strlen(root) + strlen(rel) + 2;
	char *p = malloc(n);
	if (p)
		snprintf(p, n, "%s/%s", root, rel);
	return p;
}

char *ffu_test_read_file(const char *path, size_t *len)
{
	char *text = NULL;
	return ffu__file_read(path, &text, len, NULL) == FFU_STATUS_OK ? text : NULL;
}
