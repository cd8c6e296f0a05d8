/*
 * tools/latency/latency.c: `fieldfuse-latency`, compile latency from HLO text to the first
 * result, phase by phase, for the seed programs or any .hlo file:
 *
 *   fieldfuse-latency [--device SEL] [--runs N] [--n N] FILE.hlo...
 *
 * For each file, N times in one process on one device: parse + verify, executable create
 * (passes, code generation, program build through the program cache), upload, first run
 * (which includes a driver's first-enqueue work: PoCL compiles a work-group function per
 * local size), download. On the public API (fieldfuse.h) as an embedder sees it, plus the
 * tools' header for random inputs and the program cache's counters. Run 1 is what the process found in the drivers' and fieldfuse's
 * disk caches (cold when those are empty: POCL_CACHE_DIR and FIELDFUSE_CACHE_DIR pointed
 * at fresh folders); runs 2.. are warm (the context's memory cache). Not installed: a
 * development tool, documented in docs/tuning.md with the numbers it measured.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/tool.h"

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

/* The program's inputs drawn at random (not part of the latency). */
static ffu_status random_inputs(void ***host, const ffu_program *p, ffu_error *e)
{
	uint64_t seed = 1;
	ffu_status st = ffu_tool_arrays_alloc(host, p, FFU_TOOL_INPUTS, e);
	for (int i = 0; i < ffu_program_num_inputs(p) && st == FFU_STATUS_OK; i++) {
		ffu_array_info info;
		if ((st = ffu_program_input(p, i, &info)) == FFU_STATUS_OK)
			st = ffu_tool_random_input(p, i, &seed, (*host)[i], info.bytes, e);
	}
	return st;
}

static ffu_status once(ffu_device *d, const char *text, const char *name, phases *ph, ffu_error *e)
{
	ffu_program *p = NULL;
	ffu_executable *x = NULL;
	ffu_tool_buffers b = {0};
	void **in = NULL, **out = NULL;
	double t0 = ffu_tool_now_ms(), t, gen = 0;
	ffu_status st = ffu_program_parse(&p, text, strlen(text), name, e);
	t = ffu_tool_now_ms();
	ph->parse = t - t0;
	if (st == FFU_STATUS_OK)
		st = ffu_executable_create(&x, d, p, NULL, e);
	ph->create = ffu_tool_now_ms() - t;
	t = ffu_tool_now_ms();
	if (st == FFU_STATUS_OK && (st = random_inputs(&in, p, e)) == FFU_STATUS_OK)
		st = ffu_tool_arrays_alloc(&out, p, FFU_TOOL_OUTPUTS, e);
	gen = ffu_tool_now_ms() - t; /* input generation is not part of the latency */
	t = ffu_tool_now_ms();
	if (st == FFU_STATUS_OK && (st = ffu_tool_buffers_make(&b, x, e)) == FFU_STATUS_OK)
		st = ffu_tool_buffers_upload(&b, (const void *const *)in, e);
	ph->upload = ffu_tool_now_ms() - t;
	t = ffu_tool_now_ms();
	if (st == FFU_STATUS_OK)
		st = ffu_tool_buffers_run(x, &b, NULL, e);
	ph->run = ffu_tool_now_ms() - t;
	t = ffu_tool_now_ms();
	if (st == FFU_STATUS_OK)
		st = ffu_tool_buffers_download(&b, out, e);
	ph->download = ffu_tool_now_ms() - t;
	ph->total = ffu_tool_now_ms() - t0 - gen;
	ffu_tool_buffers_free(&b);
	ffu_tool_arrays_free(in);
	ffu_tool_arrays_free(out);
	ffu_executable_destroy(&x);
	ffu_program_destroy(&p);
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
	ffu_device *d = NULL;
	ffu_tool_cache_stats cs;
	double t = ffu_tool_now_ms();
	if (ffu_device_open(&d, device, &e))
		return fail(&e);
	ffu_tool_device_cache(d, &cs);
	printf("device %s (%s): open %.1f ms, disk cache %s\n", ffu_device_name(d), cs.platform, ffu_tool_now_ms() - t,
	       cs.disk_cache ? "on" : "off");
	int rc = 0;
	for (int f = first; f < argc && rc == 0; f++) {
		char *raw = NULL, *text = NULL;
		if (ffu_tool_read_file(argv[f], &raw, NULL, &e)) {
			rc = fail(&e);
			break;
		}
		text = n ? resize(raw, n) : raw;
		for (int r = 0; r < runs && text; r++) {
			phases ph = {0};
			ffu_tool_cache_stats before, after;
			ffu_tool_device_cache(d, &before);
			if (once(d, text, argv[f], &ph, &e)) {
				rc = fail(&e);
				break;
			}
			ffu_tool_device_cache(d, &after);
			const char *how = after.memory_hits > before.memory_hits ? "memory"
					  : after.disk_hits > before.disk_hits   ? "disk"
					  : after.source_builds > before.source_builds ? "source" : "?";
			printf("%s run %d (%s): total %.1f ms = parse %.1f, create %.1f, upload %.1f, first run %.1f, "
			       "download %.1f\n",
			       argv[f], r + 1, how, ph.total, ph.parse, ph.create, ph.upload, ph.run, ph.download);
		}
		if (text != raw)
			free(text);
		free(raw);
	}
	ffu_device_close(&d);
	ffu_error_clear(&e);
	return rc;
}
