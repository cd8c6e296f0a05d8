/*
 * tools/gen/soak.c: `fieldfuse-soak`, the random differential test behind tools/soak.sh
 * and the suite's fixed-seed soak run. Each generated program (gen.h) runs fused and
 * unfused on every selected device and every output element is compared with the
 * reference interpreter; counts of programs, elements, mismatches and errors are printed,
 * and any mismatch or error makes the exit status non-zero.
 *
 *   fieldfuse-soak [--count N | --minutes M] [--seed S] [--device SEL|all]...
 *   fieldfuse-soak --print S          the program of seed S (to reproduce a failure)
 *
 * Ownership: one context per device for the whole run; everything per program is freed
 * before the next.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "interp/interp.h"
#include "passes/passes.h"
#include "runtime/exec.h"
#include "hlo/hlo.h"

enum { MAX_DEVICES = 16, MAX_SHOWN = 20 };

typedef struct totals {
	long long programs, runs, elements, mismatches, errors;
	int shown; /* failure reports printed so far */
} totals;

static void report(totals *t, uint64_t seed, const char *what)
{
	if (t->shown++ < MAX_SHOWN)
		fprintf(stderr, "soak: seed %llu: %s (reproduce: fieldfuse-soak --print %llu)\n",
			(unsigned long long)seed, what, (unsigned long long)seed);
}

/* text fused or not on cl, compared with ref. */
static void run_on(totals *t, ffu_cl *cl, const char *text, uint64_t seed, const ffu_value *in, int np,
		   const ffu_value *ref, int n_ref, bool fuse)
{
	ffu_error e = {0};
	ffu_module *m = NULL;
	ffu_exec *x = NULL;
	ffu_value *out = NULL;
	int n_out = 0;
	char what[1400];
	ffu_pass_opts po = {.fuse = fuse};

	t->runs++;
	if (ffu__hlo_parse(&m, text, strlen(text), "soak.hlo", &e) || ffu__passes_run(m, &po, &e) ||
	    ffu__exec_create(&x, cl, m, &e) || ffu__exec_upload(x, in, np, &e) || ffu__exec_run(x, NULL, NULL, &e) ||
	    ffu__exec_download(x, &out, &n_out, &e)) {
		t->errors++;
		snprintf(what, sizeof what, "%s on %s: %s", fuse ? "fused" : "unfused", cl->dev.name, e.message);
		report(t, seed, what);
		goto out;
	}
	for (int o = 0; o < n_ref && o < n_out; o++) {
		size_t eb = ffu__shape_elem_bytes(&ref[o].shape);
		long long bad = 0, first = -1;
		for (size_t i = 0; i < ref[o].bytes; i += eb) {
			if (memcmp(out[o].data + i, ref[o].data + i, eb) != 0) {
				if (first < 0)
					first = (long long)(i / eb);
				bad++;
			}
		}
		t->elements += (long long)(ref[o].bytes / eb);
		if (bad) {
			t->mismatches += bad;
			snprintf(what, sizeof what, "%s on %s: output %d: %lld elements differ from the interpreter, first %lld",
				 fuse ? "fused" : "unfused", cl->dev.name, o, bad, first);
			report(t, seed, what);
		}
	}
	if (n_out != n_ref) {
		t->errors++;
		report(t, seed, "output count differs from the interpreter");
	}
out:
	ffu__exec_destroy(&x);
	ffu__values_free(out, n_out);
	ffu__module_free(m);
	ffu_error_clear(&e);
}

/* One program on every device; generation or interpreter failures count as errors. */
static void soak_one(totals *t, ffu_cl *cls, int n_cls, uint64_t seed)
{
	ffu_error e = {0};
	ffu_strbuf sb = {0};
	ffu_module *m = NULL;
	ffu_value *in = NULL, *ref = NULL;
	int np = 0, n_ref = 0;
	uint64_t rng = seed ^ 0x5bd1e995u;

	t->programs++;
	if (ffu_gen_program(&sb, seed, &e) || ffu__hlo_parse(&m, sb.data, sb.len, "soak.hlo", &e)) {
		t->errors++;
		report(t, seed, e.message);
		goto out;
	}
	np = m->entry->n_params;
	in = calloc((size_t)np + 1, sizeof *in);
	for (int p = 0; in && p < np; p++) {
		if (ffu__value_alloc(&in[p], &m->entry->params[p]->shape, &e))
			break;
		ffu__value_random(&in[p], &rng);
	}
	if (!in || e.status || ffu__interp_run(m, in, np, &ref, &n_ref, &e)) {
		t->errors++;
		report(t, seed, e.message[0] ? e.message : "out of memory");
		goto out;
	}
	for (int d = 0; d < n_cls; d++)
		for (int fuse = 1; fuse >= 0; fuse--)
			run_on(t, &cls[d], ffu__sb_cstr(&sb), seed, in, np, ref, n_ref, fuse);
out:
	ffu__values_free(in, np);
	ffu__values_free(ref, n_ref);
	ffu__module_free(m);
	ffu__sb_free(&sb);
	ffu_error_clear(&e);
}

static int usage(void)
{
	fprintf(stderr, "usage: fieldfuse-soak [--count N | --minutes M] [--seed S] [--device SEL|all]...\n"
			"       fieldfuse-soak --print SEED\n");
	return 2;
}

static bool number(const char *s, unsigned long long *out)
{
	char *end;
	if (!s || !*s)
		return false;
	*out = strtoull(s, &end, 0);
	return *end == '\0';
}

int main(int argc, char **argv)
{
	unsigned long long count = 0, minutes = 0, seed = 1, v;
	const char *devices[MAX_DEVICES];
	int n_sel = 0, rc = 0, n_cls = 0;
	ffu_cl cls[MAX_DEVICES];
	totals t = {0};
	ffu_error e = {0};

	memset(cls, 0, sizeof cls);
	for (int i = 1; i < argc; i++) {
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(argv[i], "--print") == 0 && number(val, &v)) {
			ffu_strbuf sb = {0};
			rc = ffu_gen_program(&sb, v, &e) ? 1 : 0;
			fputs(ffu__sb_cstr(&sb), stdout);
			ffu__sb_free(&sb);
			return rc;
		} else if (strcmp(argv[i], "--count") == 0 && number(val, &count)) {
			i++;
		} else if (strcmp(argv[i], "--minutes") == 0 && number(val, &minutes)) {
			i++;
		} else if (strcmp(argv[i], "--seed") == 0 && number(val, &seed)) {
			i++;
		} else if (strcmp(argv[i], "--device") == 0 && val && n_sel < MAX_DEVICES) {
			devices[n_sel++] = argv[++i];
		} else {
			return usage();
		}
	}
	if (!count && !minutes)
		return usage();
	if (!n_sel)
		devices[n_sel++] = "all";

	for (int s = 0; s < n_sel; s++) {
		ffu_device_info *list = NULL;
		int n = 0;
		if (ffu__cl_select_all(&list, &n, devices[s], &e)) {
			ffu_error_print(stderr, &e);
			rc = 1;
			goto out;
		}
		for (int d = 0; d < n && n_cls < MAX_DEVICES; d++) {
			if (ffu__cl_open(&cls[n_cls], &list[d], &e)) {
				ffu_error_print(stderr, &e);
				free(list);
				rc = 1;
				goto out;
			}
			fprintf(stderr, "soak: device %s %s (%s)\n", list[d].id, list[d].name, list[d].platform_name);
			n_cls++;
		}
		free(list);
	}
	double deadline = ffu__now_ms() + (double)minutes * 60e3;
	for (unsigned long long i = 0; count ? i < count : ffu__now_ms() < deadline; i++)
		soak_one(&t, cls, n_cls, seed + i);
	printf("soak: %lld programs, %lld runs on %d devices, %lld elements compared, %lld mismatches, %lld errors\n",
	       t.programs, t.runs, n_cls, t.elements, t.mismatches, t.errors);
	rc = t.mismatches || t.errors || t.programs == 0 ? 1 : 0;
out:
	for (int d = 0; d < n_cls; d++)
		ffu__cl_close(&cls[d]);
	ffu_error_clear(&e);
	return rc;
}
