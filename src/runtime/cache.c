/* runtime/cache.c: see cache.h. */
#include "runtime/cache.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Inline mode: xxHash as a header, so the installed library needs no extra shared object. */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "ocl/ocl.h"
#include "runtime/buildlog.h"
#include "util/cachedir.h"
#include "util/file.h"

/* Programs kept per context: a run compiles one program; more are a sweep (tune, tests). */
#define MEM_ENTRIES 16

typedef struct mem_entry {
	char *source, *options; /* exact copies: a hash collision must not return the wrong program */
	XXH64_hash_t hash;
	cl_program prog;
	unsigned long long used; /* recency stamp for eviction */
} mem_entry;

struct ffu_prog_cache {
	mem_entry e[MEM_ENTRIES];
	int n;
	unsigned long long clock;
};

/* ---- memory -------------------------------------------------------------------------- */

static XXH64_hash_t mem_hash(const char *source, const char *options)
{
	XXH64_hash_t h = XXH3_64bits(source, strlen(source));
	return XXH3_64bits_withSeed(options, strlen(options), h);
}

cl_program ffu__progcache_find(ffu_cl *cl, const char *source, const char *options)
{
	struct ffu_prog_cache *c = cl->programs;
	if (!c)
		return NULL;
	options = options ? options : "";
	XXH64_hash_t h = mem_hash(source, options);
	for (int i = 0; i < c->n; i++) {
		mem_entry *m = &c->e[i];
		if (m->hash == h && strcmp(m->source, source) == 0 && strcmp(m->options, options) == 0) {
			/* a release hook cannot fail in a way the caller could act on; retain is the same */
			if (clRetainProgram(m->prog) != CL_SUCCESS)
				return NULL;
			m->used = ++c->clock;
			return m->prog;
		}
	}
	return NULL;
}

static void entry_free(mem_entry *m)
{
	if (m->prog)
		clReleaseProgram(m->prog);
	free(m->source);
	free(m->options);
	memset(m, 0, sizeof *m);
}

ffu_status ffu__progcache_add(ffu_cl *cl, const char *source, const char *options, cl_program prog, ffu_error *e)
{
	struct ffu_prog_cache *c = cl->programs;
	options = options ? options : "";
	if (!c) {
		c = cl->programs = calloc(1, sizeof *c);
		if (!c)
			return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	}
	int slot = c->n;
	if (c->n == MEM_ENTRIES) {
		slot = 0;
		for (int i = 1; i < c->n; i++)
			if (c->e[i].used < c->e[slot].used)
				slot = i;
		entry_free(&c->e[slot]);
	}
	mem_entry m = {.source = strdup(source), .options = strdup(options), .hash = mem_hash(source, options),
		       .prog = prog, .used = ++c->clock};
	if (!m.source || !m.options) {
		free(m.source);
		free(m.options);
		if (slot != c->n) /* the evicted slot is empty now: close the gap */
			c->e[slot] = c->e[--c->n];
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	}
	if (clRetainProgram(prog) != CL_SUCCESS) {
		m.prog = NULL;
		entry_free(&m);
		if (slot != c->n)
			c->e[slot] = c->e[--c->n];
		return FFU_STATUS_OK; /* not kept; the program itself is fine */
	}
	c->e[slot] = m;
	if (slot == c->n)
		c->n++;
	return FFU_STATUS_OK;
}

void ffu__progcache_free(ffu_cl *cl)
{
	struct ffu_prog_cache *c = cl->programs;
	if (!c)
		return;
	for (int i = 0; i < c->n; i++)
		entry_free(&c->e[i]);
	free(c);
	cl->programs = NULL;
}

/* ---- disk ---------------------------------------------------------------------------- */

/*
 * Measured on this project's CPU devices (docs/tuning.md, tools/latency): on Rusticl
 * (Mesa 22.3) storing costs nothing and a hit saves 5-80 ms per program and process, so it
 * is on. On PoCL a hit saves ~25 ms over PoCL's own warm source cache, but asking for the
 * binary costs one more compile when storing (+0.12 s for seed_bb, +0.96 s for seed_bn254):
 * it pays only after 5-40 reuses of a program, so it is off. Elsewhere it is off until
 * measured: NVIDIA's driver caches source builds itself (~/.nv/ComputeCache), and AMD's
 * and Intel's runtimes have not been measured here. FIELDFUSE_PROGRAM_CACHE=1 turns it on.
 */
bool ffu__progcache_disk_default(ffu_vendor v, cl_device_type type)
{
	(void)type;
	return v == FFU_VENDOR_RUSTICL;
}

typedef struct disk_header {
	char magic[8];              /* "FFUPROG\n" */
	uint32_t format;            /* FFU_PROGCACHE_FORMAT */
	uint32_t reserved;          /* 0 */
	uint64_t key_hi, key_lo;    /* the key the file name was made from */
	uint64_t binary_bytes;
	uint64_t binary_hash;       /* XXH3-64 of the binary */
} disk_header;

static const char disk_magic[8] = {'F', 'F', 'U', 'P', 'R', 'O', 'G', '\n'};

static void hash_str(XXH3_state_t *s, const char *str)
{
	/* the NUL separates fields, so ("ab", "c") and ("a", "bc") differ */
	XXH3_128bits_update(s, str ? str : "", strlen(str ? str : "") + 1);
}

static ffu_status disk_key(XXH128_hash_t *out, const ffu_cl *cl, const char *source, const char *options, ffu_error *e)
{
	XXH3_state_t *s = XXH3_createState();
	if (!s)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	const ffu_device_info *d = &cl->dev;
	uint32_t fmt = FFU_PROGCACHE_FORMAT, vid = d->vendor_id;
	XXH3_128bits_reset(s);
	XXH3_128bits_update(s, "fieldfuse program", 18);
	XXH3_128bits_update(s, &fmt, sizeof fmt);
	hash_str(s, d->platform_name);
	hash_str(s, d->platform_version);
	hash_str(s, d->name);
	hash_str(s, d->version);
	hash_str(s, d->driver);
	XXH3_128bits_update(s, &vid, sizeof vid);
	hash_str(s, options);
	hash_str(s, source);
	*out = XXH3_128bits_digest(s);
	XXH3_freeState(s);
	return FFU_STATUS_OK;
}

static ffu_status entry_path(char **out, XXH128_hash_t key, ffu_error *e)
{
	char *dir = NULL, name[64];
	ffu_status st = ffu__cache_dir(&dir, e);
	*out = NULL;
	if (st)
		return st;
	snprintf(name, sizeof name, "programs/%016llx%016llx.bin", (unsigned long long)key.high64,
		 (unsigned long long)key.low64);
	*out = ffu__path_join(dir, name);
	free(dir);
	return *out ? FFU_STATUS_OK : ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
}

ffu_status ffu__progcache_path(char **out, const ffu_cl *cl, const char *source, const char *options, ffu_error *e)
{
	XXH128_hash_t key;
	ffu_status st = disk_key(&key, cl, source, options, e);
	*out = NULL;
	return st ? st : entry_path(out, key, e);
}

/* The binary of a valid entry (malloc'd), or NULL: missing, short, or not what the key says. */
static unsigned char *read_entry(const char *path, XXH128_hash_t key, size_t *bytes, bool *bad)
{
	char *data = NULL;
	size_t len = 0;
	disk_header h;
	*bad = false;
	if (access(path, F_OK) != 0 || ffu__file_read(path, &data, &len, NULL) != FFU_STATUS_OK)
		return NULL;
	*bad = true;
	if (len < sizeof h)
		goto reject;
	memcpy(&h, data, sizeof h);
	if (memcmp(h.magic, disk_magic, sizeof disk_magic) != 0 || h.format != FFU_PROGCACHE_FORMAT ||
	    h.key_hi != key.high64 || h.key_lo != key.low64 || h.binary_bytes == 0 ||
	    h.binary_bytes != len - sizeof h || XXH3_64bits(data + sizeof h, (size_t)h.binary_bytes) != h.binary_hash)
		goto reject;
	*bad = false;
	*bytes = (size_t)h.binary_bytes;
	memmove(data, data + sizeof h, *bytes);
	return (unsigned char *)data;
reject:
	free(data);
	return NULL;
}

ffu_status ffu__progcache_load(ffu_cl *cl, cl_program *out, const char *source, const char *options, ffu_error *e)
{
	XXH128_hash_t key;
	char *path = NULL;
	unsigned char *bin = NULL;
	size_t bytes = 0;
	bool bad = false;
	cl_int err = CL_SUCCESS, bin_status = CL_SUCCESS;
	cl_program prog = NULL;
	ffu_status st;

	*out = NULL;
	if ((st = disk_key(&key, cl, source, options, e)))
		goto out;
	if (entry_path(&path, key, NULL) != FFU_STATUS_OK)
		goto out; /* no cache folder can be named: build from source */
	bin = read_entry(path, key, &bytes, &bad);
	if (!bin)
		goto out;
	const unsigned char *bins[1] = {bin};
	prog = FFU_CL_NEW(clCreateProgramWithBinary, &err, cl->ctx, 1, &cl->dev.device, &bytes, bins, &bin_status, &err);
	if (!prog || err != CL_SUCCESS || bin_status != CL_SUCCESS) {
		bad = true;
		goto out;
	}
	/* a binary still has to be built (linked for the device); a driver may refuse it here */
	const double t0 = ffu__buildlog_on() ? ffu__now_ms() : 0;
	err = FFU_CL(clBuildProgram, prog, 1, &cl->dev.device, options, NULL, NULL);
	if (t0)
		ffu__buildlog(cl, "binary", source, options, NULL, ffu__now_ms() - t0);
	if (err != CL_SUCCESS) {
		bad = true;
		goto out;
	}
	*out = prog;
	prog = NULL;
	cl->cache_stats.disk_hits++;
out:
	if (bad && path) {
		/* never trusted twice: the caller rebuilds from source and writes a fresh entry */
		unlink(path);
		cl->cache_stats.disk_rejects++;
	}
	if (prog)
		clReleaseProgram(prog);
	free(bin);
	free(path);
	return st;
}

typedef struct entry_writer {
	const disk_header *h;
	const unsigned char *bin;
} entry_writer;

static ffu_status write_entry(FILE *f, void *arg, ffu_error *e)
{
	const entry_writer *w = arg;
	if (fwrite(w->h, sizeof *w->h, 1, f) != 1 || fwrite(w->bin, 1, (size_t)w->h->binary_bytes, f) != w->h->binary_bytes)
		return ffu__err(e, FFU_STATUS_EIO, "short write of a program cache entry");
	return FFU_STATUS_OK;
}

ffu_status ffu__progcache_store(ffu_cl *cl, cl_program prog, const char *source, const char *options, ffu_error *e)
{
	XXH128_hash_t key;
	char *path = NULL, *dir = NULL;
	unsigned char *bin = NULL;
	size_t bytes = 0;
	cl_int err;
	ffu_status st;

	if ((st = disk_key(&key, cl, source, options, e)) || (st = entry_path(&path, key, e)))
		goto out;
	/* one device per program here, so one size and one binary */
	err = FFU_CL(clGetProgramInfo, prog, CL_PROGRAM_BINARY_SIZES, sizeof bytes, &bytes, NULL);
	if (err != CL_SUCCESS) {
		st = ffu__err_cl(e, "clGetProgramInfo", err, "CL_PROGRAM_BINARY_SIZES on %s", cl->dev.name);
		goto out;
	}
	if (bytes == 0) { /* the driver has no binary to give: nothing to cache */
		st = ffu__err(e, FFU_STATUS_EUNSUPPORTED, "%s returns no program binary", cl->dev.name);
		goto out;
	}
	bin = malloc(bytes);
	if (!bin) {
		st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory (a %zu-byte program binary)", bytes);
		goto out;
	}
	unsigned char *bins[1] = {bin};
	err = FFU_CL(clGetProgramInfo, prog, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL);
	if (err != CL_SUCCESS) {
		st = ffu__err_cl(e, "clGetProgramInfo", err, "CL_PROGRAM_BINARIES on %s", cl->dev.name);
		goto out;
	}
	disk_header h = {.format = FFU_PROGCACHE_FORMAT, .key_hi = key.high64, .key_lo = key.low64,
			 .binary_bytes = bytes, .binary_hash = XXH3_64bits(bin, bytes)};
	memcpy(h.magic, disk_magic, sizeof disk_magic);
	dir = strdup(path);
	if (!dir) {
		st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
		goto out;
	}
	*strrchr(dir, '/') = '\0';
	if ((st = ffu__cache_mkdir(dir, e)))
		goto out;
	entry_writer w = {&h, bin};
	if ((st = ffu__file_write_atomic(path, write_entry, &w, e)) == FFU_STATUS_OK)
		cl->cache_stats.disk_writes++;
out:
	free(bin);
	free(dir);
	free(path);
	return st;
}
