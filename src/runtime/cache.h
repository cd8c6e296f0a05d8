/*
 * runtime/cache.h: the program cache behind ffu__cl_build, and the user's cache folder.
 *
 * In memory, per context: a built cl_program is kept (retained) under its exact source and
 * options, so a second compile of the same program on the same ffu_cl costs no driver call
 * at all. On disk, per user: the program's binary under a key hashed (XXH3-128) from the
 * cache format, platform name and version, device name and version, driver version, vendor
 * id, options and source, in <cache folder>/programs/<key>.bin with a header that repeats
 * the key and checksums the binary. A short, corrupt, mismatched or rejected entry is
 * removed and rebuilt from source, never trusted; writes are atomic (temporary file and
 * rename), so concurrent processes see the old entry or the whole new one.
 *
 * Whether the disk cache is used depends on the vendor class (ffu__progcache_disk_default:
 * where the driver already caches source builds, as PoCL does, asking for binaries costs
 * an extra compile and the cache loses), FIELDFUSE_PROGRAM_CACHE=0|1 overrides at context
 * open, ffu__cl_set_disk_cache per context. docs/tuning.md has the measurements.
 *
 * The cache folder (FIELDFUSE_CACHE_DIR, XDG_CACHE_HOME or HOME) is named by util/cachedir.h.
 *
 * Ownership: the memory cache belongs to its ffu_cl and holds one reference to each program;
 * ffu__progcache_free releases them. Disk entries belong to nobody: any process may replace
 * or remove them.
 */
#ifndef FFU_RUNTIME_CACHE_H
#define FFU_RUNTIME_CACHE_H

#include <stdbool.h>

#include "runtime/cl.h"

/* On-disk format version: part of every key, so a format change orphans old entries. */
#define FFU_PROGCACHE_FORMAT 1


/* ---- memory ---- */

/* A retained program for (source, options) on this context, or NULL. */
cl_program ffu__progcache_find(ffu_cl *cl, const char *source, const char *options);
/* Keeps prog (retaining it) under (source, options); evicts the least recently used entry when full. */
ffu_status ffu__progcache_add(ffu_cl *cl, const char *source, const char *options, cl_program prog, ffu_error *e);
void ffu__progcache_free(ffu_cl *cl);

/* ---- disk ---- */

/* Whether a vendor class's devices use the disk cache unless told otherwise. */
bool ffu__progcache_disk_default(ffu_vendor v, cl_device_type type);
/* The entry's path for (source, options) on cl's device (malloc'd). */
ffu_status ffu__progcache_path(char **out, const ffu_cl *cl, const char *source, const char *options, ffu_error *e);
/*
 * A program built from the disk entry, or *out = NULL when there is none or it was rejected
 * (then the entry is removed). Only out-of-memory is an error: everything else falls back
 * to building from source.
 */
ffu_status ffu__progcache_load(ffu_cl *cl, cl_program *out, const char *source, const char *options, ffu_error *e);
/* Writes prog's binary as the entry. Failures are returned but a caller may ignore them. */
ffu_status ffu__progcache_store(ffu_cl *cl, cl_program prog, const char *source, const char *options, ffu_error *e);

#endif
