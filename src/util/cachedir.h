/*
 * util/cachedir.h: the user's fieldfuse cache folder, shared by the program cache
 * (runtime/cache.c: programs/) and the tuning database (device/tuning_db.c: tuning.json).
 * It lives in util/ because both floors need it and neither may include the other's
 * headers.
 *
 * The folder: FIELDFUSE_CACHE_DIR, else $XDG_CACHE_HOME/fieldfuse, else
 * $HOME/.cache/fieldfuse, read at each use (tests point it at a temporary folder); the XDG
 * rule of ignoring relative values holds for all three. Strings returned are malloc'd and
 * owned by the caller.
 */
#ifndef FFU_UTIL_CACHEDIR_H
#define FFU_UTIL_CACHEDIR_H

#include "util/error.h"

/* The cache folder (malloc'd, not created); EIO when no folder can be named. */
ffu_status ffu__cache_dir(char **out, ffu_error *e);
/* mkdir -p of dir (mode 0755); EIO naming the folder that could not be made. */
ffu_status ffu__cache_mkdir(const char *dir, ffu_error *e);
/* "a/b" (malloc'd), or NULL on out of memory. */
char *ffu__path_join(const char *a, const char *b);

#endif
