/* runtime/compile.c: the one compile path (see compile.h). */
#include "runtime/compile.h"

#include "passes/passes.h"
#include "util/config.h"

/* The only place pass options are made from compile options. */
static ffu_pass_opts pass_opts(const ffu_cl *cl, const ffu_compile_opts *o)
{
	bool fuse = !o->no_fuse && (o->fusion_as_asked || !ffu__config()->disable_fusion);
	return (ffu_pass_opts){.fuse = fuse,
			       .max_params = cl ? cl->dev.max_kernel_args : o->max_params,
			       .dot_reduce_results = cl ? cl->target.dot_reduce_results : o->dot_reduce_results,
			       .dump_after = o->dump_after,
			       .dump_to = o->dump_to,
			       .disable = o->disable && o->disable[0] ? o->disable : NULL};
}

ffu_status ffu__compile_module(ffu_module *m, const ffu_cl *cl, const ffu_compile_opts *o, ffu_error *e)
{
	static const ffu_compile_opts defaults = {0};
	if (!m)
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu__compile_module: module is NULL");
	if (!o)
		o = &defaults;
	ffu_status st = FFU_STATUS_OK;
	if (!o->verified && (st = ffu__module_verify(m, o->file ? o->file : m->name, e)))
		return st;
	ffu_pass_opts po = pass_opts(cl, o);
	return ffu__passes_run(m, &po, e);
}

/*
 * A program of several ranks, or with a collective, is not one executable: it is cut at its
 * collectives and run by runtime/spmd.c (fieldfuse run does); refused here, before any
 * kernel is built, with where it can run instead.
 */
static ffu_status refuse_spmd(const ffu_module *m, const char *file, ffu_error *e)
{
	const ffu_inst *in = ffu__module_first_collective(m);
	if (in)
		return ffu__err_at(e, FFU_STATUS_EUNSUPPORTED, file, in->line, in->col,
				   "'%%%s' (%s): a program with collectives is not one executable (the embedding API "
				   "runs none yet; `fieldfuse run` runs its ranks: docs/hlo.md \"Collectives\")",
				   in->name, ffu__ops[in->op].keyword);
	if (ffu__module_ranks(m) != 1)
		return ffu__err(e, FFU_STATUS_EUNSUPPORTED,
				"%s: replica_count=%lld x num_partitions=%lld ranks: not one executable (the embedding API "
				"runs none yet; `fieldfuse run` runs its ranks)",
				m->name, (long long)m->replica_count, (long long)m->num_partitions);
	return FFU_STATUS_OK;
}

ffu_status ffu__compile(ffu_exec **out, ffu_cl *cl, ffu_module *m, const ffu_compile_opts *o, ffu_error *e)
{
	if (!out || !cl)
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu__compile: %s is NULL", !out ? "out" : "context");
	*out = NULL;
	ffu_status st = m ? refuse_spmd(m, o && o->file ? o->file : m->name, e) : FFU_STATUS_OK;
	if (st)
		return st;
	st = ffu__compile_module(m, cl, o, e);
	if (st)
		return st;
	ffu_exec_opts eo = {.no_sharing = o && o->no_buffer_reuse};
	return ffu__exec_create_opts(out, cl, m, &eo, e);
}
