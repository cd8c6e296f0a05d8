/* tests/support.c: see support.h. */
#include "support.h"

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
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t cap = 0, n = 0;
	for (;;) {
		if (n + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 8192;
			char *p = realloc(buf, cap);
			if (!p) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = p;
		}
		size_t k = fread(buf + n, 1, 4096, f);
		n += k;
		if (k < 4096)
			break;
	}
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}
