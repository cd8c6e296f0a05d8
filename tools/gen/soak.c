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
 * Ownership: one context per device for the whole run; everything per batch is freed
 * before the next.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "point.h"
#include "hlo/hlo.h"
#include "interp/interp.h"
#include "passes/passes.h"
#include "runtime/compile.h"

enum { MAX_DEVICES = 16, MAX_SHOWN = 10, MAX_BATCH = 256 };


typedef struct soak {
	ffu_gen_opts gen;
	int batch;
	bool unfused, host_only;
	ffu_cl cls[MAX_DEVICES];
	double device_ms[MAX_DEVICES];
	int n_cls;
	long long programs, runs, elements, mismatches, errors;
	int shown; /* failure reports printed in full so far */
	uint64_t bad[MAX_BATCH]; /* seeds of the current batch that failed on the host */
	int n_bad;
} soak;

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

/*
 * A scalar integer parameter (a dynamic-slice's start, most often) from its own draw, so
 * the other parameters' values stay as they were: 0 (the edge) 1 in 4, any value of the
 * type 1 in 4 (clamped to an end, if a start), else a small one about the dimensions'
 * range (negative too, for a signed type), where windows start inside, at and past the end.
 */
static void scalar_int_input(const ffu_field *f, unsigned char *d, uint64_t seed, int p)
{
	uint64_t h = seed ^ (0x632be59bd9b4e019ull * (uint64_t)(p + 1)), r = ffu__rand_next(&h);
	switch (r % 4) {
	case 0:
		ffu__fp_set_u64(f, d, 0);
		break;
	case 1:
		ffu__fp_random(f, d, &h);
		break;
	default: /* the bit pattern of a small value; ffu__fp_set_u64 keeps the type's low bits */
		ffu__fp_set_u64(f, d, f->is_signed ? (uint64_t)((int64_t)(r >> 8) % 72 - 8) : (r >> 8) % 72);
		break;
	}
}

/* Random inputs whose first elements are the edges 0, 1, -1 (fields) or 0, 1, max (integers);
   a scalar integer from scalar_int_input. */
/* A point array's first elements: infinity, G and -G (the edge cases of the formulas). */
static void point_edges(const ffu_field *f, unsigned char *first, int64_t n)
{
	const ffu_field *fs = f->curve->scalar;
	unsigned char k[FFU_FIELD_MAX_BYTES];
	for (int64_t i = 0; i < n && i < 3; i++) {
		ffu__fp_set_u64(fs, k, i == 2 ? 1 : (uint64_t)i);
		if (i == 2)
			ffu__fp_neg(fs, k, k, NULL);
		ffu__point_gen_mul(f, first + (size_t)i * f->storage_bytes, fs, k);
	}
}

static ffu_status make_inputs(const ffu_computation *entry, ffu_value *in, uint64_t seed, ffu_error *e)
{
	uint64_t rng = seed ^ 0x5bd1e995u;
	for (int p = 0; p < entry->n_params; p++) {
		ffu_status st = ffu__value_alloc(&in[p], &entry->params[p]->shape, e);
		if (st)
			return st;
		ffu__value_random(&in[p], &rng);
		const ffu_field *f = ffu__shape_field(&in[p].shape);
		const ffu_shape *s = &in[p].shape; /* a CSR matrix: its first stored values (ir/csr.c) */
		int64_t n = s->csr ? s->nnz : ffu__shape_count(s);
		unsigned char *first = in[p].data + (s->csr ? ffu__csr_values_offset(s) : 0);
		if (f->kind == FFU_ELEM_POINT) {
			point_edges(f, first, n);
			continue;
		}
		for (int64_t i = 0; i < n && i < 3 && f->kind != FFU_ELEM_PRED; i++) {
			unsigned char *d = first + (size_t)i * f->storage_bytes;
			ffu__fp_set_u64(f, d, i == 2 ? 1 : (uint64_t)i);
			if (i == 2 && f->kind == FFU_ELEM_UINT)
				memset(d, 0xff, f->storage_bytes);
			else if (i == 2)
				ffu__fp_neg(f, d, d, NULL);
		}
		if (n == 1 && !s->csr && f->kind == FFU_ELEM_UINT)
			scalar_int_input(f, first, seed, p);
	}
	return FFU_STATUS_OK;
}

static void retry_alone(soak *s, int d, const uint64_t *seeds, int n, bool fuse, const ffu_error *batch_err);
static ffu_status prepare(soak *s, const uint64_t *seeds, int n, ffu_strbuf *sb, ffu_module **mod, int *out_first,
			  ffu_value **in, int *np, ffu_value **ref, int *n_ref);

/* Compares outputs with the reference; each differing output is reported against its program. */
static void compare(soak *s, const uint64_t *seeds, const int *out_first, int n, const ffu_value *out, int n_out,
		    const ffu_value *ref, int n_ref, const char *where)
{
	char what[512];
	if (n_out != n_ref) {
		s->errors++;
		snprintf(what, sizeof what, "%s: %d outputs, the interpreter has %d (batch of %d from seed %llu)", where,
			 n_out, n_ref, n, (unsigned long long)seeds[0]);
		report(s, seeds[0], what);
		return;
	}
	for (int o = 0; o < n_ref; o++) {
		size_t eb = ffu__shape_elem_bytes(&ref[o].shape);
		long long bad = 0, first = -1;
		if (!ffu__shape_eq(&out[o].shape, &ref[o].shape) || out[o].bytes != ref[o].bytes) {
			bad = 1;
			first = 0;
		}
		const ffu_field *fo = ffu__shape_field(&ref[o].shape);
		const bool points = fo && fo->kind == FFU_ELEM_POINT;
		for (size_t i = 0; !bad && eb && i < ref[o].bytes; i += eb)
			if ((points ? !ffu__fp_eq(fo, out[o].data + i, ref[o].data + i)
				    : memcmp(out[o].data + i, ref[o].data + i, eb) != 0) &&
			    bad++ == 0)
				first = (long long)(i / eb);
		s->elements += eb ? (long long)(ref[o].bytes / eb) : 0;
		if (!bad)
			continue;
		s->mismatches += bad;
		int p = program_of(out_first, n, o);
		char got[FFU_FIELD_TEXT_MAX] = "?", want[FFU_FIELD_TEXT_MAX] = "?";
		const ffu_field *f = ffu__shape_field(&ref[o].shape);
		if (first >= 0 && out[o].bytes == ref[o].bytes && f) {
			ffu__fp_format(f, got, out[o].data + (size_t)first * eb);
			ffu__fp_format(f, want, ref[o].data + (size_t)first * eb);
		}
		snprintf(what, sizeof what,
			 "%s: output %d of the program: %lld elements differ from the interpreter, first %lld (got %s, expected %s)",
			 where, o - out_first[p], bad, first, got, want);
		report(s, seeds[p], what);
		if (strncmp(where, "host", 4) == 0)
			mark_bad(s, seeds[p]);
	}
}

/*
 * Host check: the interpreter after each pass against the interpreter before any. A pass
 * that fails outright in a batch is retried program by program to name the culprit.
 */
static void check_passes(soak *s, const ffu_module *src, const uint64_t *seeds, const int *out_first, int n,
			 const ffu_value *in, int np, const ffu_value *ref, int n_ref)
{
	ffu_error e = {0};
	ffu_module *m = NULL;
	ffu_value *out = NULL;
	int n_out = 0;
	char where[160] = "copy";
	if (!(m = ffu__module_clone(src))) {
		ffu__err(&e, FFU_STATUS_ENOMEM, "out of memory");
		goto fail;
	}
	for (int k = 0; k < ffu__pass_count(); k++) {
		ffu_pass_opts po = {.fuse = true};
		if (ffu__pass_run_one(m, ffu__pass_name(k), &po, &e) || ffu__interp_run(m, in, np, &out, &n_out, &e)) {
			snprintf(where, sizeof where, "host, after pass %s", ffu__pass_name(k));
			goto fail;
		}
		snprintf(where, sizeof where, "host, interpreter after pass %s", ffu__pass_name(k));
		compare(s, seeds, out_first, n, out, n_out, ref, n_ref, where);
		ffu__values_free(out, n_out);
		out = NULL;
		n_out = 0;
	}
	ffu__module_free(m);
	return;
fail:
	ffu__values_free(out, n_out);
	ffu__module_free(m);
	if (n > 1) {
		retry_alone(s, -1, seeds, n, true, &e);
	} else {
		char what[1400];
		s->errors++;
		snprintf(what, sizeof what, "%s: %s", where, e.message);
		report(s, seeds[0], what);
		mark_bad(s, seeds[0]);
	}
	ffu_error_clear(&e);
}

/*
 * text (fused or not) on cl against ref: 0 when it ran and matched, 1 on a mismatch, -1 when
 * it did not run (*e says why). Mismatches are reported here.
 */
static int device_run(soak *s, ffu_cl *cl, const ffu_module *src, const uint64_t *seeds, const int *out_first, int n,
		      const ffu_value *in, int np, const ffu_value *ref, int n_ref, bool fuse, ffu_error *e)
{
	ffu_module *m = NULL;
	ffu_exec *x = NULL;
	ffu_value *out = NULL;
	int n_out = 0, rc = -1;
	char where[300];
	/* FIELDFUSE_DISABLE_PASSES applies, for bisecting */
	ffu_compile_opts co = {.no_fuse = !fuse, .fusion_as_asked = true, .file = "soak.hlo"};
	s->runs++;
	if ((!(m = ffu__module_clone(src)) && ffu__err(e, FFU_STATUS_ENOMEM, "out of memory")) ||
	    ffu__compile(&x, cl, m, &co, e) ||
	    ffu__exec_upload(x, in, np, e) || ffu__exec_run(x, NULL, NULL, e) ||
	    ffu__exec_download(x, &out, &n_out, e))
		goto out;
	long long before = s->mismatches + s->errors;
	snprintf(where, sizeof where, "%s on %s", fuse ? "fused" : "unfused", cl->dev.name);
	compare(s, seeds, out_first, n, out, n_out, ref, n_ref, where);
	rc = s->mismatches + s->errors != before;
out:
	ffu__exec_destroy(&x);
	ffu__values_free(out, n_out);
	ffu__module_free(m);
	return rc;
}

/*
 * Generates and parses a batch into *mod (the caller's; every check compiles a copy of it),
 * makes its inputs and runs the interpreter; failures are reported.
 */
static ffu_status prepare(soak *s, const uint64_t *seeds, int n, ffu_strbuf *sb, ffu_module **mod, int *out_first,
			  ffu_value **in, int *np, ffu_value **ref, int *n_ref)
{
	ffu_error e = {0};
	ffu_module *m = NULL;
	ffu_status st = ffu_gen_batch(sb, seeds, n, &s->gen, out_first, &e);
	if (st == FFU_STATUS_OK)
		st = ffu__hlo_parse(&m, sb->data, sb->len, "soak.hlo", &e);
	if (st == FFU_STATUS_OK) {
		*np = m->entry->n_params;
		*in = calloc((size_t)*np + 1, sizeof **in);
		st = *in ? make_inputs(m->entry, *in, seeds[0], &e) : ffu__err(&e, FFU_STATUS_ENOMEM, "out of memory");
	}
	if (st == FFU_STATUS_OK)
		st = ffu__interp_run(m, *in, *np, ref, n_ref, &e);
	if (st) {
		char what[1200];
		s->errors++;
		snprintf(what, sizeof what, "generated program does not %s: %s", m ? "run in the interpreter" : "parse",
			 e.message);
		for (int i = 0; i < n; i++) /* which one: each alone */
			report(s, seeds[i], what);
		ffu__module_free(m);
		m = NULL;
	}
	*mod = m;
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
	if (n == 1) { /* nothing to narrow down */
		s->errors++;
		snprintf(what, sizeof what, "%s on %s: %s%s%.600s", fuse ? "fused" : "unfused", s->cls[d].dev.name,
			 batch_err->message, batch_err->build_log ? "\nbuild log:\n" : "",
			 batch_err->build_log ? batch_err->build_log : "");
		report(s, seeds[0], what);
		return;
	}
	for (int i = 0; i < n; i++) {
		ffu_strbuf sb = {0};
		ffu_module *m = NULL;
		ffu_value *in = NULL, *ref = NULL;
		int np = 0, n_ref = 0, out_first[2];
		ffu_error e = {0};
		if (prepare(s, &seeds[i], 1, &sb, &m, out_first, &in, &np, &ref, &n_ref) == FFU_STATUS_OK) {
			if (d < 0) {
				check_passes(s, m, &seeds[i], out_first, 1, in, np, ref, n_ref);
			} else if (device_run(s, &s->cls[d], m, &seeds[i], out_first, 1, in, np, ref, n_ref, fuse, &e) < 0) {
				s->errors++;
				snprintf(what, sizeof what, "%s on %s: %s%s%.600s", fuse ? "fused" : "unfused",
					 s->cls[d].dev.name, e.message, e.build_log ? "\nbuild log:\n" : "",
					 e.build_log ? e.build_log : "");
				report(s, seeds[i], what);
			}
		}
		ffu__module_free(m);
		ffu__values_free(in, np);
		ffu__values_free(ref, n_ref);
		ffu__sb_free(&sb);
		ffu_error_clear(&e);
	}
	if (s->errors + s->mismatches == before) {
		s->errors++;
		snprintf(what, sizeof what, "%s%s%s, batch of %d programs from this seed (each alone runs): %s%s%.600s",
			 d < 0 ? "host pass check" : fuse ? "fused" : "unfused", d < 0 ? "" : " on ",
			 d < 0 ? "" : s->cls[d].dev.name, n, batch_err->message, batch_err->build_log ? "\nbuild log:\n" : "",
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
	ffu_strbuf sb = {0};
	ffu_module *m = NULL;
	ffu_value *in = NULL, *ref = NULL;
	int np = 0, n_ref = 0, out_first[MAX_BATCH + 1];
	uint64_t good[MAX_BATCH];
	s->programs += n;
	s->n_bad = 0;
	if (prepare(s, seeds, n, &sb, &m, out_first, &in, &np, &ref, &n_ref))
		goto out;
	check_passes(s, m, seeds, out_first, n, in, np, ref, n_ref);
	int n_good = 0;
	for (int i = 0; i < n; i++)
		if (!is_bad(s, seeds[i]))
			good[n_good++] = seeds[i];
	if (n_good < n) {
		ffu__values_free(in, np);
		ffu__values_free(ref, n_ref);
		ffu__sb_free(&sb);
		ffu__module_free(m);
		m = NULL;
		in = ref = NULL;
		np = n_ref = 0;
		if (!n_good || prepare(s, good, n_good, &sb, &m, out_first, &in, &np, &ref, &n_ref))
			goto out;
	}
	for (int d = 0; d < s->n_cls && !s->host_only; d++) {
		double t0 = ffu__now_ms();
		for (int fuse = 1; fuse >= (s->unfused ? 0 : 1); fuse--) {
			ffu_error e = {0};
			if (device_run(s, &s->cls[d], m, good, out_first, n_good, in, np, ref, n_ref, fuse, &e) < 0)
				retry_alone(s, d, good, n_good, fuse, &e);
			ffu_error_clear(&e);
		}
		s->device_ms[d] += ffu__now_ms() - t0;
	}
out:
	ffu__module_free(m);
	ffu__values_free(in, np);
	ffu__values_free(ref, n_ref);
	ffu__sb_free(&sb);
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
	for (int k = 0; k < n_sel; k++) {
		ffu_device_info *list = NULL;
		int n = 0;
		if (ffu__cl_select_all(&list, &n, sel[k], &e)) {
			ffu_error_print(stderr, &e);
			ffu_error_clear(&e);
			return 1;
		}
		for (int d = 0; d < n && s->n_cls < MAX_DEVICES; d++) {
			if (ffu__cl_open(&s->cls[s->n_cls], &list[d], &e)) {
				ffu_error_print(stderr, &e);
				ffu_error_clear(&e);
				free(list);
				return 1;
			}
			fprintf(stderr, "soak: device %s %s (%s)\n", list[d].id, list[d].name, list[d].platform_name);
			s->n_cls++;
		}
		free(list);
	}
	return 0;
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

	double t0 = ffu__now_ms(), deadline = t0 + (double)minutes * 60e3;
	uint64_t seeds[MAX_BATCH];
	for (unsigned long long i = 0; count ? i < count : ffu__now_ms() < deadline;) {
		int n = 0;
		while (n < s.batch && (!count || i < count))
			seeds[n++] = seed + i++;
		soak_one(&s, seeds, n);
	}
	printf("soak: %lld programs from seed %llu, %lld device runs on %d devices, %lld elements compared, %lld mismatches, %lld errors, %.1f s\n",
	       s.programs, seed, s.runs, s.n_cls, s.elements, s.mismatches, s.errors, (ffu__now_ms() - t0) / 1e3);
	for (int d = 0; d < s.n_cls; d++)
		printf("soak: %s: %.1f s\n", s.cls[d].dev.name, s.device_ms[d] / 1e3);
	rc = s.mismatches || s.errors || s.programs == 0 ? 1 : 0;
out:
	for (int d = 0; d < s.n_cls; d++)
		ffu__cl_close(&s.cls[d]);
	return rc;
}
