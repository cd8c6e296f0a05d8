/* passes/passes.c: the pass manager (see passes.h). */
#include "passes/passes.h"

#include <string.h>

#include "hlo/hlo.h"
#include "util/config.h"
#include "util/strbuf.h"

static const struct {
	const char *name;
	ffu_pass_fn fn;
} pipeline[] = {
#define PASS_ROW(n) {#n, ffu__pass_##n},
	FFU_PASSES(PASS_ROW)
#undef PASS_ROW
};

enum { N_PASSES = sizeof pipeline / sizeof pipeline[0] };

static int pass_index(const char *name, size_t len)
{
	for (int i = 0; i < N_PASSES; i++)
		if (strlen(pipeline[i].name) == len && strncmp(pipeline[i].name, name, len) == 0)
			return i;
	return -1;
}

static ffu_status dump(const ffu_module *m, const char *pass, bool skipped, FILE *to, ffu_error *e)
{
	ffu_strbuf sb = {0};
	ffu_status st = ffu__hlo_print(&sb, m, e);
	if (st == FFU_STATUS_OK) {
		fprintf(to, "// ---- after pass %s%s ----\n%s", pass, skipped ? " (disabled)" : "", ffu__sb_cstr(&sb));
		st = ffu__sb_status(&sb, e);
	}
	ffu__sb_free(&sb);
	return st;
}

bool ffu__pass_known(const char *name)
{
	return strcmp(name, "all") == 0 || pass_index(name, strlen(name)) >= 0;
}

const char *ffu__pass_names(void)
{
#define PASS_NAME(n) ", " #n
	static const char names[] = FFU_PASSES(PASS_NAME);
#undef PASS_NAME
	return names + 2; /* past the first ", " */
}

int ffu__pass_count(void)
{
	return N_PASSES;
}

const char *ffu__pass_name(int i)
{
	return pipeline[i].name;
}

/*
 * Marks the passes a list names in off[]; EINVAL at the first unknown one. Entries are
 * separated by commas (spaces around them are allowed: "simplify, cse" from a shell).
 */
static ffu_status parse_list(const char *list, const char *what, bool off[N_PASSES], ffu_error *e)
{
	for (const char *p = list; p && *p;) {
		p += strspn(p, " \t");
		size_t len = strcspn(p, ",");
		size_t trim = len;
		while (trim && (p[trim - 1] == ' ' || p[trim - 1] == '\t'))
			trim--;
		if (trim) {
			int k = pass_index(p, trim);
			if (k < 0)
				return ffu__err(e, FFU_STATUS_EINVAL, "%s: no pass named '%.*s' (passes: %s)", what,
						(int)(trim > 64 ? 64 : trim), p, ffu__pass_names());
			off[k] = true;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return FFU_STATUS_OK;
}

ffu_status ffu__pass_check_list(const char *list, const char *what, ffu_error *e)
{
	bool off[N_PASSES] = {false};
	return parse_list(list, what, off, e);
}

static ffu_status run_pass(ffu_module *m, int k, const ffu_pass_opts *o, ffu_error *e)
{
	ffu_status st = pipeline[k].fn(m, o, e);
	/* a pass that leaves a module the verifier rejects is a bug in the pass: say which */
	if (st == FFU_STATUS_OK && (st = ffu__module_verify(m, "", e)) && e) {
		char msg[sizeof e->message];
		memcpy(msg, e->message, sizeof msg);
		ffu__err(e, st, "after pass %s: %s", pipeline[k].name, msg);
	}
	return st;
}

ffu_status ffu__passes_run(ffu_module *m, const ffu_pass_opts *o, ffu_error *e)
{
	bool off[N_PASSES] = {false};
	ffu_status st;
	if ((st = parse_list(o->disable, "disabled passes", off, e)) ||
	    (st = parse_list(ffu__config()->disable_passes, "FIELDFUSE_DISABLE_PASSES", off, e)))
		return st;
	for (int i = 0; i < N_PASSES; i++) {
		ffu_pass_opts po = *o;
		bool skip = off[i];
		if (skip && pipeline[i].fn == ffu__pass_fusion) {
			/* the device runs fusions only: disabled fusion is one kernel per op */
			po.fuse = false;
			skip = false;
		}
		if (!skip && (st = run_pass(m, i, &po, e)))
			return st;
		if (o->dump_after && o->dump_to &&
		    (strcmp(o->dump_after, "all") == 0 || strcmp(o->dump_after, pipeline[i].name) == 0) &&
		    (st = dump(m, pipeline[i].name, off[i], o->dump_to, e)))
			return st;
	}
	return FFU_STATUS_OK;
}

ffu_status ffu__pass_run_one(ffu_module *m, const char *name, const ffu_pass_opts *o, ffu_error *e)
{
	int k = pass_index(name, strlen(name));
	if (k < 0)
		return ffu__err(e, FFU_STATUS_EINVAL, "no pass named '%s' (passes: %s)", name, ffu__pass_names());
	return run_pass(m, k, o, e);
}
