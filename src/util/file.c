/* util/file.c: see file.h. */
#include "util/file.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

ffu_status ffu__file_read(const char *path, char **out, size_t *len, ffu_error *e)
{
	bool is_stdin = strcmp(path, "-") == 0;
	FILE *f = is_stdin ? stdin : fopen(path, "rb");
	*out = NULL;
	if (len)
		*len = 0;
	if (!f)
		return ffu__err_at(e, FFU_STATUS_EIO, path, 0, 0, "cannot open: %s", strerror(errno));
	char *buf = NULL;
	size_t cap = 0, n = 0;
	ffu_status st = FFU_STATUS_OK;
	for (;;) {
		if (cap - n < 65536 + 1) {
			size_t ncap = cap ? cap * 2 : 65536 * 2;
			char *p = realloc(buf, ncap);
			if (!p) {
				st = ffu__err_at(e, FFU_STATUS_ENOMEM, path, 0, 0, "out of memory reading the file");
				break;
			}
			buf = p;
			cap = ncap;
		}
		size_t k = fread(buf + n, 1, cap - n - 1, f);
		n += k;
		if (k == 0) {
			if (ferror(f))
				st = ffu__err_at(e, FFU_STATUS_EIO, path, 0, 0, "read failed: %s", strerror(errno));
			break;
		}
	}
	if (!is_stdin)
		fclose(f);
	if (st) {
		free(buf);
		return st;
	}
	buf[n] = '\0';
	*out = buf;
	if (len)
		*len = n;
	return FFU_STATUS_OK;
}

ffu_status ffu__file_write_atomic(const char *path, ffu_file_writer write, void *arg, ffu_error *e)
{
	if (strcmp(path, "-") == 0) {
		ffu_status st = write(stdout, arg, e);
		if (st == FFU_STATUS_OK && fflush(stdout) != 0)
			st = ffu__err_at(e, FFU_STATUS_EIO, "<stdout>", 0, 0, "write failed: %s", strerror(errno));
		return st;
	}
	size_t n = strlen(path) + 32;
	char *tmp = malloc(n);
	if (!tmp)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
	ffu_status st = FFU_STATUS_OK;
	FILE *f = fopen(tmp, "wb");
	if (!f) {
		st = ffu__err_at(e, FFU_STATUS_EIO, path, 0, 0, "cannot write: %s", strerror(errno));
		goto out;
	}
	st = write(f, arg, e);
	if (st == FFU_STATUS_OK && ferror(f))
		st = ffu__err_at(e, FFU_STATUS_EIO, path, 0, 0, "write failed: %s", strerror(errno));
	if (fclose(f) != 0 && st == FFU_STATUS_OK)
		st = ffu__err_at(e, FFU_STATUS_EIO, path, 0, 0, "write failed: %s", strerror(errno));
	if (st == FFU_STATUS_OK && rename(tmp, path) != 0)
		st = ffu__err_at(e, FFU_STATUS_EIO, path, 0, 0, "cannot rename the finished file into place: %s",
				 strerror(errno));
	if (st)
		remove(tmp);
out:
	free(tmp);
	return st;
}
