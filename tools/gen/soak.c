/*
 * tools/gen/soak.c: `fieldfuse-soak`, the random differential test behind tools/soak.sh
 * and the suite's fixed-seed soak run. Generated programs (gen.h) are checked against the
 * reference interpreter run on the program as generated:
 *  - on the host, after each pass of the pipeline in turn (the interpreter runs fused
 *    modules too), so a pass that changes a value is named;
 *  - on every selected device, fused (and with --unfused also one kernel per op), every
 *    output element compared.
 * With --batch B, B programs share one module (gen.h: ffu_gen_batch), so one OpenCL build
 * serves B programs; a mismatch is traced to its program through the output index, and a
 * failing build or run is retried program by program to find the culprit. Every failure
 * prints the program's seed and its HLO text (fieldfuse-soak --print SEED gives it again);
 * counts of programs, runs, elements, mismatches and errors and the time per device end
 * the run; any mismatch or error makes the exit status 1.
 *
 *   fieldfuse-soak [--count N | --minutes M] [--seed S] [--device SEL|all]... [--batch B]
 *                  [--unfused] [--host-only] [--cheap] [--types T,...] [--max-elems N] [--max-steps N]
 *                  [--index-one-in N] [--points-one-in N]
 *   fieldfuse-soak --print SEED [--batch B] [--types ...]   the program of SEED (to reproduce
 *                  a failure), or with --batch the module of seeds SEED .. SEED + B - 1
 * --index-one-in N: an integer or index step (dynamic-slice, ...) after one step in N
 * (default 4; 1: after every step). --points-one-in N: a point step (gen_points.c) after one
 * step in N, in programs over a curve's scalar field (default none); point outputs compare
 * as group elements (a jacobian or xyzz point has many coordinate representations).
 *
 * Ownership: one device handle per device for the whole run; everything per batch (its
 * program, the host arrays of its inputs and reference outputs) is freed before the next.
 *
 * On the public API (fieldfuse.h) and api/tool.h: the batch's text is parsed into an
 * ffu_program, its inputs are the generator's (gen.h: ffu_gen_inputs) in host arrays,
 * ffu_program_interpret gives the reference, ffu_tool_program_after_pass the program after
 * each pass, and executables run on device buffers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fieldfuse/fieldfuse.h"
#include "api/tool.h"
#include "gen.h"

enum { MAX_DEVICES = 16, MAX_SHOWN = 10, MAX_BATCH = 256, MAX_PASSES = 32, PASS_NAME = 32 };

typedef struct soak {
	ffu_gen_opts gen;
	int batch;
	bool unfused, host_only;
	ffu_device *devs[MAX_DEVICES];
	double device_ms[MAX_DEVICES];
	int n_devs;
	char passes[MAX_PASSES][PASS_NAME]; /* the pipeline's, in order (ffu_tool_pass_names) */
	int n_passes;
	long long programs, runs, elements, mismatches, errors;
	int shown; /* failure reports printed in full so far */
	uint64_t bad[MAX_BATCH]; /* seeds of the current batch that failed on the host */
	int n_bad;
} soak;

/* A batch as prepared: its programs' seeds, the module, its inputs and the interpreter's
   outputs (host arrays, info.bytes each), and where each program's outputs start. */
typedef struct batch {
	const uint64_t *seeds;
	int n;
	int out_first[MAX_BATCH + 1];
	ffu_program *p;
	void **in, **ref;
} batch;

/* A program failed the host check: it stays out of the batch's device runs. */
static void mark_bad(soak *s, uint64_t seed)
{
	for (int i = 0; i < s->n_bad; i++)
		if (s->bad[i] == seed)
			return;
	if (s->n_bad < MAX_BATCH)
		s->bad[s->n_bad++] = seed;
}

static bool is_bad(const soak *s, uint64_t seed)
{
	for (int i = 0; i < s->n_bad; i++)
		if (s->bad[i] == seed)
			return true;
	return false;
}

/* One failure: the seed, what happened, and (for the first few) the program's text. */
static void report(soak *s, uint64_t seed, const char *what)
{
	if (s->shown >= MAX_SHOWN) {
		fprintf(stderr, "soak: seed %llu: %s\n", (unsigned long long)seed, what);
		return;
	}
	s->shown++;
	ffu_strbuf sb = {0};
	ffu_error e = {0};
	char opts[160] = "";
	ffu_gen_program(&sb, seed, &s->gen, &e);
	if (s->gen.max_elems)
		snprintf(opts, sizeof opts, " --max-elems %d", s->gen.max_elems);
	if (s->gen.cheap)
		snprintf(opts + strlen(opts), sizeof opts - strlen(opts), " --cheap");
	if (s->gen.max_steps)
		snprintf(opts + strlen(opts), sizeof opts - strlen(opts), " --max-steps %d", s->gen.max_steps);
	if (s->gen.index_one_in)
		snprintf(opts + strlen(opts), sizeof opts - strlen(opts), " --index-one-in %d", s->gen.index_one_in);
	if (s->gen.points_one_in)
		snprintf(opts + strlen(opts), sizeof opts - strlen(opts), " --points-one-in %d", s->gen.points_one_in);
	fprintf(stderr,
		"soak: seed %llu: %s\n"
		"soak: replay: fieldfuse-soak --print %llu%s%s%s > p.hlo && fieldfuse run p.hlo --random 1 --check\n"
		"---- seed %llu ----\n%s---- end of seed %llu ----\n",
		(unsigned long long)seed, what, (unsigned long long)seed, s->gen.types ? " --types " : "",
		s->gen.types ? s->gen.types : "", opts, (unsigned long long)seed, ffu__sb_cstr(&sb),
		(unsigned long long)seed);
	ffu__sb_free(&sb);
	ffu_error_clear(&e);
}

/* The program an output of a batch belongs to. */
static int program_of(const int *out_first, int n, int o)
{
	int i = 0;
	while (i + 1 < n && out_first[i + 1] <= o)
		i++;
	return i;
}

static ffu_array_info array_info(const ffu_program *p, bool output, int i)
{
	ffu_array_info info = {0};
	if (output)
		ffu_program_output(p, i, &info);
	else
		ffu_program_input(p, i, &info);
	return info;
}

static bool same_array(const ffu_array_info *a, const ffu_array_info *b)
{
	if (strcmp(a->type, b->type) != 0 || a->rank != b->rank || a->bytes != b->bytes || a->nnz != b->nnz)
		return false;
	for (int d = 0; d < a->rank; d++)
		if (a->dims[d] != b->dims[d])
			return false;
	return true;
}

/*
 * Compares outputs (got: the outputs of gp, the batch's program itself or it after a pass)
 * with the reference; each differing output is reported against its program.
 */
static void compare(soak *s, const batch *b, const ffu_program *gp, void *const *got, const char *where)
{
	char what[512];
	const int n_out = ffu_program_num_outputs(gp), n_ref = ffu_program_num_outputs(b->p);
	if (n_out != n_ref) {
		s->errors++;
		snprintf(what, sizeof what, "%s: %d outputs, the interpreter has %d (batch of %d from seed %llu)", where,
			 n_out, n_ref, b->n, (unsigned long long)b->seeds[0]);
		report(s, b->seeds[0], what);
		return;
	}
	bool same = true;
	for (int o = 0; o < n_ref && same; o++) {
		ffu_array_info gi = array_info(gp, true, o), ri = array_info(b->p, true, o);
		same = same_array(&gi, &ri);
	}
	/* the whole batch at once; only a difference needs each output alone */
	if (same) {
		long long elements = 0;
		long long bad = ffu_tool_compare(b->p, (const void *const *)got, (const void *const *)b->ref, NULL,
						 &elements);
		s->elements += elements;
		if (!bad)
			return;
	}
	for (int o = 0; o < n_ref; o++) {
		ffu_array_info gi = array_info(gp, true, o), ri = array_info(b->p, true, o);
		long long bad = 1, first = 0;
		/* a value too long for what[] is cut there anyway */
		char got_text[sizeof what] = "?", want_text[sizeof what] = "?";
		if (!same)
			s->elements += (long long)ri.count;
		if (same_array(&gi, &ri))
			bad = ffu_tool_compare_output(b->p, o, got[o], b->ref[o], &first, got_text, want_text,
						      sizeof got_text);
		if (!bad)
			continue;
		s->mismatches += bad;
		int p = program_of(b->out_first, b->n, o);
		snprintf(what, sizeof what,
			 "%s: output %d of the program: %lld elements differ from the interpreter, first %lld (got %s, expected %s)",
			 where, o - b->out_first[p], bad, first, got_text, want_text);
		report(s, b->seeds[p], what);
		if (strncmp(where, "host", 4) == 0)
			mark_bad(s, b->seeds[p]);
	}
}

static void retry_alone(soak *s, int d, const uint64_t *seeds, int n, bool fuse, const ffu_error *batch_err);

/*
 * Host check: the interpreter after each pass against the interpreter before any, each
 * pass run on the previous one's result. A pass that fails outright in a batch is retried
 * program by program to name the culprit.
 */
static void check_passes(soak *s, const batch *b)
{
	ffu_error e = {0};
	ffu_program *after = NULL;
	void **out = NULL;
	char where[160] = "";
	for (int k = 0; k < s->n_passes; k++) {
		ffu_program *next = NULL;
		ffu_status st = ffu_tool_program_after_pass(&next, after ? after : b->p, s->passes[k], &e);
		ffu_program_destroy(&after);
		after = next;
		if (st == FFU_STATUS_OK)
			st = ffu_tool_arrays_alloc(&out, after, FFU_TOOL_OUTPUTS, &e);
		if (st == FFU_STATUS_OK)
			st = ffu_program_interpret(after, (const void *const *)b->in, out, &e);
		if (st) {
			snprintf(where, sizeof where, "host, after pass %s", s->passes[k]);
			goto fail;
		}
		snprintf(where, sizeof where, "host, interpreter after pass %s", s->passes[k]);
		compare(s, b, after, out, where);
		ffu_tool_arrays_free(out);
		out = NULL;
	}
	ffu_program_destroy(&after);
	return;
fail:
	ffu_tool_arrays_free(out);
	ffu_program_destroy(&after);
	if (b->n > 1) {
		retry_alone(s, -1, b->seeds, b->n, true, &e);
	} else {
		char what[1400];
		s->errors++;
		snprintf(what, sizeof what, "%s: %s", where, e.message);
		report(s, b->seeds[0], what);
		mark_bad(s, b->seeds[0]);
	}
	ffu_error_clear(&e);
}

/*
 * The batch (fused or not) on device d against its reference: 0 when it ran and matched,
 * 1 on a mismatch, -1 when it did not run (*e says why). Mismatches are reported here.
 */
static int device_run(soak *s, int d, const batch *b, bool fuse, ffu_error *e)
{
	ffu_executable *x = NULL;
	ffu_tool_buffers bufs = {0};
	void **out = NULL;
	int rc = -1;
	char where[300];
	/* FIELDFUSE_DISABLE_PASSES applies, for bisecting */
	ffu_tool_exec_opts co = {.no_fuse = !fuse, .fusion_as_asked = 1, .file = "soak.hlo"};
	s->runs++;
	/* values in their storage form: copied as they are, as the interpreter reads them */
	if (ffu_tool_arrays_alloc(&out, b->p, FFU_TOOL_OUTPUTS, e) || ffu_tool_executable_create(&x, s->devs[d], b->p, &co, e) || ffu_tool_buffers_make(&bufs, x, e) ||
	    ffu_tool_buffers_upload(&bufs, (const void *const *)b->in, e) || ffu_tool_buffers_run(x, &bufs, NULL, e) ||
	    ffu_tool_buffers_download(&bufs, out, e))
		goto out;
	long long before = s->mismatches + s->errors;
	snprintf(where, sizeof where, "%s on %s", fuse ? "fused" : "unfused", ffu_device_name(s->devs[d]));
	compare(s, b, b->p, out, where);
	rc = s->mismatches + s->errors != before;
out:
	ffu_tool_buffers_free(&bufs);
	ffu_executable_destroy(&x);
	ffu_tool_arrays_free(out);
	return rc;
}

/* Frees what prepare made (b->seeds and b->n stay). */
static void batch_free(batch *b)
{
	ffu_program_destroy(&b->p);
	ffu_tool_arrays_free(b->in);
	ffu_tool_arrays_free(b->ref);
	b->in = b->ref = NULL;
}

/*
 * Generates and parses the batch of seeds[0..n) into *b (every check compiles or copies its
 * program, never changes it), makes its inputs and runs the interpreter; failures are
 * reported.
 */
static ffu_status prepare(soak *s, const uint64_t *seeds, int n, batch *b)
{
	ffu_strbuf sb = {0};
	ffu_error e = {0};
	b->seeds = seeds;
	b->n = n;
	ffu_status st = ffu_gen_batch(&sb, seeds, n, &s->gen, b->out_first, &e);
	if (st == FFU_STATUS_OK)
		st = ffu_program_parse(&b->p, ffu__sb_cstr(&sb), sb.len, "soak.hlo", &e);
	if (st == FFU_STATUS_OK && (st = ffu_tool_arrays_alloc(&b->in, b->p, FFU_TOOL_INPUTS, &e)) == FFU_STATUS_OK)
		st = ffu_tool_arrays_alloc(&b->ref, b->p, FFU_TOOL_OUTPUTS, &e);
	if (st == FFU_STATUS_OK)
		st = ffu_gen_inputs(b->p, seeds[0], b->in, &e);
	if (st == FFU_STATUS_OK)
		st = ffu_program_interpret(b->p, (const void *const *)b->in, b->ref, &e);
	if (st) {
		char what[1200];
		s->errors++;
		snprintf(what, sizeof what, "generated program does not %s: %s",
			 b->p ? "run in the interpreter" : "parse", e.message);
		for (int i = 0; i < n; i++) /* which one: each alone */
			report(s, seeds[i], what);
		batch_free(b);
	}
	ffu__sb_free(&sb);
	ffu_error_clear(&e);
	return st;
}

/*
 * A batch that failed on device d (-1: in the host check of the passes): each program
 * alone, to name the culprits; errors are reported and counted here.
 */
static void retry_alone(soak *s, int d, const uint64_t *seeds, int n, bool fuse, const ffu_error *batch_err)
{
	char what[1400];
	long long before = s->errors + s->mismatches;
	const char *dev = d < 0 ? "" : ffu_device_name(s->devs[d]);
	if (n == 1) { /* nothing to narrow down */
		s->errors++;
		snprintf(what, sizeof what, "%s on %s: %s%s%.600s", fuse ? "fused" : "unfused", dev, batch_err->message,
			 batch_err->build_log ? "\nbuild log:\n" : "", batch_err->build_log ? batch_err->build_log : "");
		report(s, seeds[0], what);
		return;
	}
	for (int i = 0; i < n; i++) {
		batch b = {0};
		ffu_error e = {0};
		if (prepare(s, &seeds[i], 1, &b) == FFU_STATUS_OK) {
			if (d < 0) {
				check_passes(s, &b);
			} else if (device_run(s, d, &b, fuse, &e) < 0) {
				s->errors++;
				snprintf(what, sizeof what, "%s on %s: %s%s%.600s", fuse ? "fused" : "unfused", dev, e.message,
					 e.build_log ? "\nbuild log:\n" : "", e.build_log ? e.build_log : "");
				report(s, seeds[i], what);
			}
		}
		batch_free(&b);
		ffu_error_clear(&e);
	}
	if (s->errors + s->mismatches == before) {
		s->errors++;
		snprintf(what, sizeof what, "%s%s%s, batch of %d programs from this seed (each alone runs): %s%s%.600s",
			 d < 0 ? "host pass check" : fuse ? "fused" : "unfused", d < 0 ? "" : " on ", dev, n,
			 batch_err->message, batch_err->build_log ? "\nbuild log:\n" : "",
			 batch_err->build_log ? batch_err->build_log : "");
		report(s, seeds[0], what);
	}
}

/*
 * One batch of programs: the host check of the passes, then every device. Programs that
 * fail on the host are reported there and left out of the device runs (a module the
 * passes cannot handle would fail every device run of its batch, and each retry alone
 * costs an OpenCL build).
 */
static void soak_one(soak *s, const uint64_t *seeds, int n)
{
	batch b = {0};
	uint64_t good[MAX_BATCH];
	s->programs += n;
	s->n_bad = 0;
	if (prepare(s, seeds, n, &b))
		goto out;
	check_passes(s, &b);
	int n_good = 0;
	for (int i = 0; i < n; i++)
		if (!is_bad(s, seeds[i]))
			good[n_good++] = seeds[i];
	if (n_good < n) {
		batch_free(&b);
		if (!n_good || prepare(s, good, n_good, &b))
			goto out;
	}
	for (int d = 0; d < s->n_devs && !s->host_only; d++) {
		double t0 = ffu_tool_now_ms();
		for (int fuse = 1; fuse >= (s->unfused ? 0 : 1); fuse--) {
			ffu_error e = {0};
			if (device_run(s, d, &b, fuse, &e) < 0)
				retry_alone(s, d, b.seeds, b.n, fuse, &e);
			ffu_error_clear(&e);
		}
		s->device_ms[d] += ffu_tool_now_ms() - t0;
	}
out:
	batch_free(&b);
}
static int usage(void)
{
	fprintf(stderr,
		"usage: fieldfuse-soak [--count N | --minutes M] [--seed S] [--device SEL|all]... [--batch B]\n"
		"                      [--unfused] [--host-only] [--cheap] [--types T,...] [--max-elems N] [--max-steps N]\n"
		"                      [--index-one-in N] [--points-one-in N]\n"
		"       fieldfuse-soak --print SEED [--batch B] [--cheap] [--types T,...] [--max-elems N] [--max-steps N]\n"
		"                      [--index-one-in N] [--points-one-in N]\n"
		"--index-one-in N: an integer or index step (dynamic-slice, ...) after one step in N (default 4, 1: every step)\n"
		"--points-one-in N: a point step after one step in N in programs over bn254_sf or bls12_381_sf (default: none)\n");
	return 2;
}

static bool number(const char *s, unsigned long long *out)
{
	char *end;
	if (!s || !*s || *s == '-')
		return false;
	*out = strtoull(s, &end, 0);
	return *end == '\0';
}

static int open_devices(soak *s, const char *const *sel, int n_sel)
{
	ffu_error e = {0};
	int rc = 0;
	for (int k = 0; k < n_sel && !rc; k++) {
		ffu_tool_device_id *ids = NULL;
		int n = 0;
		rc = ffu_tool_device_ids(sel[k], &ids, &n, &e) != FFU_STATUS_OK;
		for (int d = 0; !rc && d < n && s->n_devs < MAX_DEVICES; d++) {
			ffu_tool_device_facts f;
			if ((rc = ffu_device_open(&s->devs[s->n_devs], ids[d].id, &e) != FFU_STATUS_OK))
				break;
			ffu_tool_device_facts_get(s->devs[s->n_devs], &f);
			fprintf(stderr, "soak: device %s %s (%s)\n", f.id, f.name, f.platform);
			s->n_devs++;
		}
		free(ids);
	}
	if (rc)
		ffu_error_print(stderr, &e);
	ffu_error_clear(&e);
	return rc;
}

/* The pipeline's pass names, in order, from ffu_tool_pass_names ("a, b, c"). */
static void pass_list(soak *s)
{
	for (const char *p = ffu_tool_pass_names(); *p && s->n_passes < MAX_PASSES;) {
		p += strspn(p, ", ");
		size_t len = strcspn(p, ", ");
		if (len)
			snprintf(s->passes[s->n_passes++], PASS_NAME, "%.*s", (int)len, p);
		p += len;
	}
}

int main(int argc, char **argv)
{
	unsigned long long count = 0, minutes = 0, seed = 1, v, print = 0;
	bool do_print = false;
	const char *sel[MAX_DEVICES];
	int n_sel = 0, rc = 0;
	static soak s;

	s.batch = 1;
	for (int i = 1; i < argc; i++) {
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
		const char *a = argv[i];
		if (strcmp(a, "--print") == 0 && number(val, &print)) {
			do_print = true;
			i++;
		} else if (strcmp(a, "--count") == 0 && number(val, &count)) {
			i++;
		} else if (strcmp(a, "--minutes") == 0 && number(val, &minutes)) {
			i++;
		} else if (strcmp(a, "--seed") == 0 && number(val, &seed)) {
			i++;
		} else if (strcmp(a, "--batch") == 0 && number(val, &v) && v >= 1 && v <= MAX_BATCH) {
			s.batch = (int)v;
			i++;
		} else if (strcmp(a, "--max-elems") == 0 && number(val, &v) && v >= 1 && v <= 1u << 24) {
			s.gen.max_elems = (int)v;
			i++;
		} else if (strcmp(a, "--max-steps") == 0 && number(val, &v) && v >= 1 && v <= 64) {
			s.gen.max_steps = (int)v;
			i++;
		} else if (strcmp(a, "--index-one-in") == 0 && number(val, &v) && v >= 1 && v <= 1000) {
			s.gen.index_one_in = (int)v;
			i++;
		} else if (strcmp(a, "--points-one-in") == 0 && number(val, &v) && v >= 1 && v <= 1000) {
			s.gen.points_one_in = (int)v;
			i++;
		} else if (strcmp(a, "--types") == 0 && val && ffu_gen_types_valid(val)) {
			s.gen.types = argv[++i];
		} else if (strcmp(a, "--device") == 0 && val && n_sel < MAX_DEVICES) {
			sel[n_sel++] = argv[++i];
		} else if (strcmp(a, "--unfused") == 0) {
			s.unfused = true;
		} else if (strcmp(a, "--cheap") == 0) {
			s.gen.cheap = true;
		} else if (strcmp(a, "--host-only") == 0) {
			s.host_only = true;
		} else {
			return usage();
		}
	}
	if (do_print) { /* with --batch B: the module of seeds SEED .. SEED + B - 1 as the soak runs it */
		ffu_strbuf sb = {0};
		ffu_error e = {0};
		uint64_t seeds[MAX_BATCH];
		int out_first[MAX_BATCH + 1];
		for (int i = 0; i < s.batch; i++)
			seeds[i] = print + (uint64_t)i;
		rc = ffu_gen_batch(&sb, seeds, s.batch, &s.gen, out_first, &e) ? 1 : 0;
		fputs(ffu__sb_cstr(&sb), stdout);
		ffu__sb_free(&sb);
		return rc;
	}
	if (!count && !minutes)
		return usage();
	if (!n_sel)
		sel[n_sel++] = "all";
	if (!s.host_only && (rc = open_devices(&s, sel, n_sel)))
		goto out;
	pass_list(&s);

	double t0 = ffu_tool_now_ms(), deadline = t0 + (double)minutes * 60e3;
	uint64_t seeds[MAX_BATCH];
	for (unsigned long long i = 0; count ? i < count : ffu_tool_now_ms() < deadline;) {
		int n = 0;
		while (n < s.batch && (!count || i < count))
			seeds[n++] = seed + i++;
		soak_one(&s, seeds, n);
	}
	printf("soak: %lld programs from seed %llu, %lld device runs on %d devices, %lld elements compared, %lld mismatches, %lld errors, %.1f s\n",
	       s.programs, seed, s.runs, s.n_devs, s.elements, s.mismatches, s.errors, (ffu_tool_now_ms() - t0) / 1e3);
	for (int d = 0; d < s.n_devs; d++)
		printf("soak: %s: %.1f s\n", ffu_device_name(s.devs[d]), s.device_ms[d] / 1e3);
	rc = s.mismatches || s.errors || s.programs == 0 ? 1 : 0;
out:
	for (int d = 0; d < s.n_devs; d++)
		ffu_device_close(&s.devs[d]);
	return rc;
}
