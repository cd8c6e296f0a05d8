/* util/file.c: see file.h. */
#include "util/file.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
	size_t plen = strlen(path);
	char *tmp = malloc(plen + sizeof ".tmp.XXXXXX");
	if (!tmp)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	memcpy(tmp, path, plen);
	memcpy(tmp + plen, ".tmp.XXXXXX", sizeof ".tmp.XXXXXX");
	ffu_status st = FFU_STATUS_OK;
	FILE *f = NULL;
	int fd = mkstemp(tmp);
	if (fd < 0) {
		st = ffu__err_at(e, FFU_STATUS_EIO, path, 0, 0, "cannot create a temporary file next to it: %s",
				 strerror(errno));
		free(tmp);
		return st;
	}
	/* mkstemp makes 0600; an output is an ordinary file */
	(void)fchmod(fd, 0644);
	f = fdopen(fd, "wb");
	if (!f) {
		st = ffu__err_at(e, FFU_STATUS_EIO, path, 0, 0, "fdopen failed: %s", strerror(errno));
		close(fd);
		goto out;
	}
	if ((st = write(f, arg, e)))
		goto out;
	/* fsync before rename: after a crash the name holds the old file or the whole new one */
	if (ferror(f) || fflush(f) != 0 || fsync(fileno(f)) != 0) {
		st = ffu__err_at(e, FFU_STATUS_EIO, path, 0, 0, "write failed: %s", strerror(errno));
		goto out;
	}
	int rc = fclose(f);
	f = NULL;
	if (rc != 0) {
		st = ffu__err_at(e, FFU_STATUS_EIO, path, 0, 0, "write failed: %s", strerror(errno));
		goto out;
	}
	if (rename(tmp, path) != 0)
		st = ffu__err_at(e, FFU_STATUS_EIO, path, 0, 0, "cannot rename the temporary file into place: %s",
				 strerror(errno));
out:
	if (f)
		fclose(f);
	if (st)
		unlink(tmp);
	free(tmp);
	return st;
}
