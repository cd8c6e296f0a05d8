/* tests/support.c: see support.h. */
#include "support.h"

#include "runtime/cl.h"
#include "util/file.h"

#include <criterion/criterion.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *ffu_test_devices[2] = {"pocl", "rusticl"};

/* FIELDFUSE_TEST_DEVICE=SEL puts SEL in both slots: how the device suites run on a GPU
   machine (tools/gpu/h200.sh). CI leaves it unset, so every device test runs on both
   PoCL and Rusticl there. */
__attribute__((constructor)) static void pick_test_devices(void)
{
	const char *sel = getenv("FIELDFUSE_TEST_DEVICE");
	if (sel && *sel)
		ffu_test_devices[0] = ffu_test_devices[1] = sel;
}

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

void ffu_test_remove_tree(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	char p[512];
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
		struct stat st;
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
			ffu_test_remove_tree(p);
		else
			unlink(p);
	}
	closedir(d);
	rmdir(dir);
}

void ffu_test_open_device(ffu_cl *cl, const char *device)
{
	setenv("RUSTICL_ENABLE", "llvmpipe", 0);
	ffu_error e = {0};
	ffu_device_info dev;
	cr_assert_eq(ffu__cl_select(&dev, device, &e), FFU_STATUS_OK, "no %s device: %s", device, e.message);
	cr_assert_eq(ffu__cl_open(cl, &dev, &e), FFU_STATUS_OK, "%s", e.message);
	ffu_error_clear(&e);
}
