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
			       .dump_after = o->dump_after,
			       .dump_to = o->dump_to,
			       .disable = o->disable && o->disable[0] ? o->disable : NULL};
}

static bool shape_has_points(const ffu_shape *s)
{
	if (s->type == FFU_TYPE_TUPLE) {
		for (int i = 0; i < s->n_elems; i++)
			if (shape_has_points(&s->elems[i]))
				return true;
		return false;
	}
	const ffu_field *f = ffu__shape_field(s);
	return f && f->kind == FFU_ELEM_POINT;
}

/* Points and msm run in the reference interpreter (fieldfuse run --interp); their device
   code is not written yet, and a module that needs it is refused here, before any pass,
   naming the first instruction that does. */
static ffu_status refuse_points(const ffu_module *m, const char *file, ffu_error *e)
{
	for (int c = 0; c < m->n_comps; c++)
		for (int i = 0; i < m->comps[c]->n_insts; i++) {
			const ffu_inst *in = m->comps[c]->insts[i];
			if (in->op == FFU_OP_MSM || shape_has_points(&in->shape))
				return ffu__err_at(e, FFU_STATUS_EUNSUPPORTED, file, in->line, in->col,
						   "'%%%s' (%s): elliptic-curve points run only in the reference interpreter so far (fieldfuse run --interp); no device code is generated for them yet",
						   in->name, ffu__ops[in->op].keyword);
		}
	return FFU_STATUS_OK;
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
	/* passes and code generator alike: no pass folds or fuses a point op */
	if ((st = refuse_points(m, o->file ? o->file : m->name, e)))
		return st;
	ffu_pass_opts po = pass_opts(cl, o);
	return ffu__passes_run(m, &po, e);
}

ffu_status ffu__compile(ffu_exec **out, ffu_cl *cl, ffu_module *m, const ffu_compile_opts *o, ffu_error *e)
{
	if (!out || !cl)
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu__compile: %s is NULL", !out ? "out" : "context");
	*out = NULL;
	ffu_status st = ffu__compile_module(m, cl, o, e);
	if (st)
		return st;
	ffu_exec_opts eo = {.no_sharing = o && o->no_buffer_reuse};
	return ffu__exec_create_opts(out, cl, m, &eo, e);
}
