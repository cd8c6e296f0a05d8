/* passes/passes.c: the pass manager (see passes.h). */
#include "passes/passes.h"

#include <string.h>

#include "hlo/hlo.h"
#include "util/strbuf.h"

static const struct {
	const char *name;
	ffu_pass_fn fn;
} pipeline[] = {
	{"fusion", ffu__pass_fusion},
};

static ffu_status dump(const ffu_module *m, const char *pass, FILE *to, ffu_error *e)
{
	ffu_strbuf sb = {0};
	ffu_status st = ffu__hlo_print(&sb, m, e);
	if (st == FFU_STATUS_OK) {
		fprintf(to, "// ---- after pass %s ----\n%s", pass, ffu__sb_cstr(&sb));
		st = ffu__sb_status(&sb, e);
	}
	ffu__sb_free(&sb);
	return st;
}

bool ffu__pass_known(const char *name)
{
	if (strcmp(name, "all") == 0)
		return true;
	for (size_t i = 0; i < sizeof pipeline / sizeof pipeline[0]; i++)
		if (strcmp(pipeline[i].name, name) == 0)
			return true;
	return false;
}

ffu_status ffu__passes_run(ffu_module *m, const ffu_pass_opts *o, ffu_error *e)
{
	for (size_t i = 0; i < sizeof pipeline / sizeof pipeline[0]; i++) {
		ffu_status st = pipeline[i].fn(m, o, e);
		if (st == FFU_STATUS_OK)
			st = ffu__module_verify(m, "", e);
		if (st == FFU_STATUS_OK && o->dump_after && o->dump_to &&
		    (strcmp(o->dump_after, "all") == 0 || strcmp(o->dump_after, pipeline[i].name) == 0))
			st = dump(m, pipeline[i].name, o->dump_to, e);
		if (st)
			return st;
	}
	return FFU_STATUS_OK;
}
