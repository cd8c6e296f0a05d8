/*
 * src/api/tool_soak.c: what fieldfuse-soak (tools/gen/soak.c) needs beyond the public API
 * and the rest of tool.h: the program after one pass of the pipeline, which it interprets
 * to name a pass that changes a value (one output's differences, which it reports against
 * the program of a batch that output belongs to, are tool_values.c's). Owned by the API
 * layer.
 *
 * Ownership: a program made here is the caller's (ffu_program_destroy), like a parsed one;
 * the program it was made from is only read.
 */
#include "api/tool.h"

#include "api/api.h"
#include "passes/passes.h"

ffu_status ffu_tool_program_after_pass(ffu_program **out, const ffu_program *p, const char *pass, ffu_error *e)
{
	ffu_error_clear(e);
	if (!out)
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu_tool_program_after_pass: out is NULL");
	*out = NULL;
	if (!p || !pass)
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu_tool_program_after_pass: %s is NULL", !p ? "program" : "pass");
	/* the pass works in place: on a copy, so p stays as it was */
	ffu_module *m = ffu__module_clone(p->m);
	if (!m)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	/* fusion as the host check has always asked for it: on, the kill switch not read */
	ffu_pass_opts po = {.fuse = true};
	ffu_status st = ffu__pass_run_one(m, pass, &po, e);
	if (st) {
		ffu__module_free(m);
		return st;
	}
	return ffu__program_from_module(out, m, "", e); /* which owns m from here, also on failure */
}
