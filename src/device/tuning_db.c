/* device/tuning_db.c: see tuning_db.h. */
#include "device/tuning_db.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/cachedir.h"
#include "util/file.h"

ffu_status ffu__tuning_path(char **out, ffu_error *e)
{
	char *dir = NULL;
	ffu_status st = ffu__cache_dir(&dir, e);
	*out = NULL;
	if (st)
		return st;
	*out = ffu__path_join(dir, "tuning.json");
	free(dir);
	return *out ? FFU_STATUS_OK : ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
}

bool ffu__tuning_valid(const ffu_params *p)
{
	return p->wg <= 65536 && p->lanes >= 0 && p->lanes <= 16 &&
	       (p->vector_width == 0 || p->vector_width == 1 || p->vector_width == 2 || p->vector_width == 4 ||
		p->vector_width == 8 || p->vector_width == 16) &&
	       (p->limb_bits == 0 || p->limb_bits == 32 || p->limb_bits == 64);
}

static bool str_is(const json_t *o, const char *key, const char *want)
{
	const json_t *v = json_object_get(o, key);
	return json_is_string(v) && strcmp(json_string_value(v), want) == 0;
}

static bool is_db(const json_t *root)
{
	return json_is_object(root) && str_is(root, "format", FFU_TUNING_FORMAT) &&
	       json_integer_value(json_object_get(root, "version")) == FFU_TUNING_VERSION &&
	       json_is_array(json_object_get(root, "entries"));
}

static bool entry_is(const json_t *entry, const ffu_device_info *d)
{
	return str_is(entry, "platform", d->platform_name) && str_is(entry, "device", d->name) &&
	       str_is(entry, "driver", d->driver);
}

/* The database as parsed (new reference), NULL with *st OK when there is no file. */
static json_t *load(const char *path, ffu_status *st, ffu_error *e)
{
	json_error_t je;
	*st = FFU_STATUS_OK;
	if (access(path, F_OK) != 0)
		return NULL;
	json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
	if (!root) {
		*st = ffu__err_at(e, access(path, R_OK) != 0 ? FFU_STATUS_EIO : FFU_STATUS_EPARSE, path, je.line,
				  je.column, "tuning database: %s", je.text);
		return NULL;
	}
	if (!is_db(root)) {
		json_decref(root);
		*st = ffu__err_at(e, FFU_STATUS_EPARSE, path, 0, 0,
				  "not a tuning database (expected format \"%s\", version %d, entries)", FFU_TUNING_FORMAT,
				  FFU_TUNING_VERSION);
		return NULL;
	}
	return root;
}

static bool get_int(const json_t *o, const char *key, long long lo, long long hi, long long *out)
{
	const json_t *v = json_object_get(o, key);
	*out = 0;
	if (!v)
		return true;
	if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
		return false;
	*out = json_integer_value(v);
	return true;
}

ffu_status ffu__tuning_lookup(ffu_params *out, bool *found, const ffu_device_info *d, ffu_error *e)
{
	char *path = NULL;
	json_t *root = NULL, *entry;
	ffu_status st;
	size_t i;

	memset(out, 0, sizeof *out);
	*found = false;
	if ((st = ffu__tuning_path(&path, e)))
		goto out;
	root = load(path, &st, e);
	if (!root)
		goto out;
	json_array_foreach(json_object_get(root, "entries"), i, entry) {
		if (!entry_is(entry, d))
			continue;
		const json_t *p = json_object_get(entry, "params");
		long long wg, lanes, vw, limb;
		if (!json_is_object(p) || !get_int(p, "wg", 1, 65536, &wg) || !get_int(p, "lanes", 1, 16, &lanes) ||
		    !get_int(p, "vector_width", 1, 16, &vw) || !get_int(p, "limb_bits", 32, 64, &limb)) {
			st = ffu__err_at(e, FFU_STATUS_EPARSE, path, 0, 0, "tuning entry %zu for %s: invalid params", i,
					 d->name);
			goto out;
		}
		ffu_params q = {(size_t)wg, (int)lanes, (int)vw, (int)limb};
		if (!ffu__tuning_valid(&q)) {
			st = ffu__err_at(e, FFU_STATUS_EPARSE, path, 0, 0, "tuning entry %zu for %s: invalid params", i,
					 d->name);
			goto out;
		}
		*out = q;
		*found = true;
		break;
	}
out:
	json_decref(root);
	free(path);
	return st;
}

static ffu_status dump(FILE *f, void *arg, ffu_error *e)
{
	if (json_dumpf(arg, f, JSON_INDENT(2) | JSON_REAL_PRECISION(6)) != 0 || fputc('\n', f) == EOF)
		return ffu__err(e, FFU_STATUS_EIO, "writing the tuning database failed");
	return FFU_STATUS_OK;
}

ffu_status ffu__tuning_store(const ffu_device_info *d, const ffu_params *p, json_t *tune, ffu_error *e)
{
	char *path = NULL, *dir = NULL;
	json_t *root = NULL, *entry = NULL, *params = NULL, *entries, *old;
	ffu_status st;
	size_t i;

	if (!ffu__tuning_valid(p))
		return ffu__err(e, FFU_STATUS_EINVAL, "tuning values out of bounds for %s", d->name);
	if ((st = ffu__tuning_path(&path, e)))
		goto out;
	/* a file that is not a database (or unreadable JSON) is replaced, not merged */
	root = load(path, &st, NULL);
	st = FFU_STATUS_OK;
	if (!root)
		root = json_pack("{s:s, s:i, s:[]}", "format", FFU_TUNING_FORMAT, "version", FFU_TUNING_VERSION, "entries");
	params = json_object();
	entry = json_pack("{s:s, s:s, s:s, s:s}", "platform", d->platform_name, "device", d->name, "driver", d->driver,
			  "class", ffu__vendor_str(d->vendor_class));
	if (!root || !params || !entry) {
		st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
		goto out;
	}
	if (p->wg)
		json_object_set_new(params, "wg", json_integer((json_int_t)p->wg));
	if (p->lanes)
		json_object_set_new(params, "lanes", json_integer(p->lanes));
	if (p->vector_width)
		json_object_set_new(params, "vector_width", json_integer(p->vector_width));
	if (p->limb_bits)
		json_object_set_new(params, "limb_bits", json_integer(p->limb_bits));
	json_object_set(entry, "params", params);
	if (tune)
		json_object_set(entry, "tune", tune);
	entries = json_object_get(root, "entries");
	json_array_foreach(entries, i, old) {
		if (entry_is(old, d))
			break;
	}
	if (i < json_array_size(entries))
		json_array_set(entries, i, entry);
	else
		json_array_append(entries, entry);
	dir = strdup(path);
	if (!dir) {
		st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
		goto out;
	}
	*strrchr(dir, '/') = '\0';
	if ((st = ffu__cache_mkdir(dir, e)) == FFU_STATUS_OK)
		st = ffu__file_write_atomic(path, dump, root, e);
out:
	json_decref(params);
	json_decref(entry);
	json_decref(root);
	free(dir);
	free(path);
	return st;
}
