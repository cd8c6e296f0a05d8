/*
 * device/tuning_db.h: the user's tuning database, written by `fieldfuse tune` and read when a
 * context opens (ffu__cl_open -> dev.tuned -> the profile). One JSON file,
 * <cache folder>/tuning.json (util/cachedir.h names the folder):
 *
 *   {"format": "fieldfuse-tuning", "version": 1,
 *    "entries": [{"platform": P, "device": D, "driver": V, "class": "pocl",
 *                 "params": {"wg": 128, "lanes": 4}, "tune": {...what was measured...}}]}
 *
 * An entry applies to the device whose platform name, device name and driver version are
 * all equal to its key: a driver update makes it stale (ignored) until tuned again. Values
 * outside sane bounds make an entry invalid (ignored). Writes are read-modify-write through
 * an atomic rename: concurrent tuners never leave a torn file (the last one wins).
 *
 * Ownership: the caller owns what it passes; lookup copies into *out.
 */
#ifndef FFU_DEVICE_TUNING_DB_H
#define FFU_DEVICE_TUNING_DB_H

#include <jansson.h>
#include <stdbool.h>

#include "device/caps.h"

#define FFU_TUNING_FORMAT "fieldfuse-tuning"
#define FFU_TUNING_VERSION 1

/* <cache folder>/tuning.json (malloc'd). */
ffu_status ffu__tuning_path(char **out, ffu_error *e);
/*
 * d's entry: *found false (OK) when the file or the entry does not exist; EPARSE naming the
 * file when it is not a tuning database or the entry is invalid; EIO when unreadable.
 */
ffu_status ffu__tuning_lookup(ffu_params *out, bool *found, const ffu_device_info *d, ffu_error *e);
/*
 * Adds or replaces d's entry with p (non-zero fields only) and `tune` (a JSON object of what
 * was measured, may be NULL; borrowed). A file that is not a valid database is replaced.
 */
ffu_status ffu__tuning_store(const ffu_device_info *d, const ffu_params *p, json_t *tune, ffu_error *e);
/* Whether p's non-zero fields are within the bounds an entry may have. */
bool ffu__tuning_valid(const ffu_params *p);

#endif
