/*
 * tools/latency/latency.c: `fieldfuse-latency`, compile latency from HLO text to the first
 * result, phase by phase, for the seed programs or any .hlo file:
 *
 *   fieldfuse-latency [--device SEL] [--runs N] [--n N] FILE.hlo...
 *
 * For each file, N times in one process on one context: parse + verify + passes, exec
 * create (code generation + program build, through the program cache), upload, first run
 * (which includes a driver's first-enqueue work: PoCL compiles a work-group function per
 * local size), download. Run 1 is what the process found in the drivers' and fieldfuse's
 * disk caches (cold when those are empty: POCL_CACHE_DIR and FIELDFUSE_CACHE_DIR pointed
 * at fresh folders); runs 2.. are warm (the context's memory cache). Not installed: a
 * development tool, documented in docs/tuning.md with the numbers it measured.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hlo/hlo.h"
#include "ir/value.h"
#include "runtime/cl.h"
#include "runtime/compile.h"
#include "util/file.h"

#define SIZE_PATTERN "[1048576]"

static int fail(const ffu_error *e)
{
	fprintf(stderr, "fieldfuse-latency: ");
	ffu_error_print(stderr, e);
	return 1;
}

/* text with every "[1048576]" replaced by "[n]" (malloc'd) */
static char *resize(const char *text, unsigned long long n)
{
	char dim[32];
	size_t pat = strlen(SIZE_PATTERN), count = 0;
	snprintf(dim, sizeof dim, "[%llu]", n);
	for (const char *p = strstr(text, SIZE_PATTERN); p; p = strstr(p + pat, SIZE_PATTERN))
		count++;
	char *out = malloc(strlen(text) + count * strlen(dim) + 1), *w = out;
	if (!out)
		return NULL;
	for (const char *r = text, *p; (p = strstr(r, SIZE_PATTERN)) || (strcpy(w, r), 0); r = p + pat) {
		memcpy(w, r, (size_t)(p - r));
		w += p - r;
		w += sprintf(w, "%s", dim);
	}
	return out;
}

typedef struct phases {
	double parse, create, upload, run, download, total;
} phases;

static ffu_status once(ffu_cl *cl, const char *text, const char *name, phases *ph, ffu_error *e)
{
	ffu_module *m = NULL;
	ffu_exec *x = NULL;
	ffu_value *in = NULL, *out = NULL;
	int n_in = 0, n_out = 0;
	uint64_t seed = 1;
	ffu_compile_opts co = {.file = name};
	double t0 = ffu__now_ms(), t;
	ffu_status st = ffu__hlo_parse(&m, text, strlen(text), name, e);
	if (st == FFU_STATUS_OK)
		st = ffu__compile_module(m, cl, &co, e);
	t = ffu__now_ms();
	ph->parse = t - t0;
	if (st == FFU_STATUS_OK)
		st = ffu__exec_create(&x, cl, m, e);
	ph->create = ffu__now_ms() - t;
	t = ffu__now_ms();
	if (st == FFU_STATUS_OK) {
		n_in = m->entry->n_params;
		in = calloc((size_t)n_in + 1, sizeof *in);
		for (int p = 0; in && p < n_in && st == FFU_STATUS_OK; p++) {
			st = ffu__value_alloc(&in[p], &m->entry->params[p]->shape, e);
			if (st == FFU_STATUS_OK)
				ffu__value_random(&in[p], &seed);
		}
		if (!in)
			st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	}
	double gen = ffu__now_ms() - t; /* input generation is not part of the latency */
	t = ffu__now_ms();
	if (st == FFU_STATUS_OK)
		st = ffu__exec_upload(x, in, n_in, e);
	ph->upload = ffu__now_ms() - t;
	t = ffu__now_ms();
	if (st == FFU_STATUS_OK)
		st = ffu__exec_run(x, NULL, NULL, e);
	ph->run = ffu__now_ms() - t;
	t = ffu__now_ms();
	if (st == FFU_STATUS_OK)
		st = ffu__exec_download(x, &out, &n_out, e);
	ph->download = ffu__now_ms() - t;
	ph->total = ffu__now_ms() - t0 - gen;
	ffu__values_free(out, n_out);
	for (int p = 0; in && p < n_in; p++)
		ffu__value_free(&in[p]);
	free(in);
	ffu__exec_destroy(&x);
	ffu__module_free(m);
	return st;
}

int main(int argc, char **argv)
{
	const char *device = NULL;
	int runs = 3;
	unsigned long long n = 0;
	int first = 1;
	for (; first < argc && argv[first][0] == '-'; first++) {
		if (strcmp(argv[first], "--device") == 0 && first + 1 < argc)
			device = argv[++first];
		else if (strcmp(argv[first], "--runs") == 0 && first + 1 < argc)
			runs = atoi(argv[++first]);
		else if (strcmp(argv[first], "--n") == 0 && first + 1 < argc)
			n = strtoull(argv[++first], NULL, 10);
		else {
			fprintf(stderr, "usage: fieldfuse-latency [--device SEL] [--runs N] [--n N] FILE.hlo...\n");
			return 2;
		}
	}
	if (first >= argc || runs < 1) {
		fprintf(stderr, "usage: fieldfuse-latency [--device SEL] [--runs N] [--n N] FILE.hlo...\n");
		return 2;
	}
	setenv("POCL_AFFINITY", "1", 0); /* as the CLI does (tools/cli/main.c) */
	ffu_error e = {0};
	ffu_device_info dev;
	ffu_cl cl = {0};
	double t = ffu__now_ms();
	if (ffu__cl_select(&dev, device, &e) || ffu__cl_open(&cl, &dev, &e))
		return fail(&e);
	printf("device %s (%s): open %.1f ms, disk cache %s\n", cl.dev.name, cl.dev.platform_name, ffu__now_ms() - t,
	       cl.disk_cache ? "on" : "off");
	int rc = 0;
	for (int f = first; f < argc && rc == 0; f++) {
		char *raw = NULL, *text = NULL;
		if (ffu__file_read(argv[f], &raw, NULL, &e)) {
			rc = fail(&e);
			break;
		}
		text = n ? resize(raw, n) : raw;
		for (int r = 0; r < runs && text; r++) {
			phases ph = {0};
			unsigned builds = cl.cache_stats.source_builds, disk = cl.cache_stats.disk_hits,
				 mem = cl.cache_stats.memory_hits;
			if (once(&cl, text, argv[f], &ph, &e)) {
				rc = fail(&e);
				break;
			}
			const char *how = cl.cache_stats.memory_hits > mem ? "memory" : cl.cache_stats.disk_hits > disk ? "disk"
									       : cl.cache_stats.source_builds > builds ? "source" : "?";
			printf("%s run %d (%s): total %.1f ms = parse+passes %.1f, create %.1f, upload %.1f, first run %.1f, "
			       "download %.1f\n",
			       argv[f], r + 1, how, ph.total, ph.parse, ph.create, ph.upload, ph.run, ph.download);
		}
		if (text != raw)
			free(text);
		free(raw);
	}
	ffu__cl_close(&cl);
	ffu_error_clear(&e);
	return rc;
}
