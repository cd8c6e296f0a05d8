/* util/cachedir.c: see cachedir.h. */
#include "util/cachedir.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

char *ffu__path_join(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *s = malloc(la + lb + 2);
	if (s) {
		memcpy(s, a, la);
		s[la] = '/';
		memcpy(s + la + 1, b, lb + 1);
	}
	return s;
}

ffu_status ffu__cache_dir(char **out, ffu_error *e)
{
	const char *own = getenv("FIELDFUSE_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	*out = NULL;
	/* the XDG spec ignores relative values; so do we, for all three */
	if (own && own[0] == '/')
		*out = strdup(own);
	else if (xdg && xdg[0] == '/')
		*out = ffu__path_join(xdg, "fieldfuse");
	else if (home && home[0] == '/')
		*out = ffu__path_join(home, ".cache/fieldfuse");
	else
		return ffu__err(e, FFU_STATUS_EIO,
				"no cache folder: set FIELDFUSE_CACHE_DIR, XDG_CACHE_HOME or HOME to an absolute path");
	return *out ? FFU_STATUS_OK : ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
}

ffu_status ffu__cache_mkdir(const char *dir, ffu_error *e)
{
	char *p = strdup(dir);
	ffu_status st = FFU_STATUS_OK;
	if (!p)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	for (char *s = p + 1;; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(p, 0755) != 0 && errno != EEXIST) {
			st = ffu__err_at(e, FFU_STATUS_EIO, p, 0, 0, "cannot create the cache folder: %s", strerror(errno));
			break;
		}
		*s = c;
		if (c == '\0')
			break;
	}
	free(p);
	return st;
}
