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

/* How many operands of c's instructions are v (msm: only those of an msm). */
static int reads(const ffu_computation *c, const ffu_inst *v, bool msm)
{
	int n = 0;
	for (int i = 0; i < c->n_insts; i++)
		for (int j = 0; j < c->insts[i]->n_operands; j++)
			n += c->insts[i]->operands[j] == v && (!msm || c->insts[i]->op == FFU_OP_MSM);
	return n;
}

/*
 * Points on the device so far: msm (codegen/msm.c) over point parameters, its point
 * written as it is or through one convert (which the msm's last step does: passes/fusion.c
 * attach_msm_converts). Every other point op runs in the reference interpreter only
 * (fieldfuse run --interp); a module that needs one on the device is refused here, before
 * any pass, naming the first instruction that does.
 */
static ffu_status refuse_points(const ffu_module *m, const char *file, ffu_error *e)
{
	for (int c = 0; c < m->n_comps; c++)
		for (int i = 0; i < m->comps[c]->n_insts; i++) {
			const ffu_computation *comp = m->comps[c];
			const ffu_inst *in = comp->insts[i];
			bool ok = !shape_has_points(&in->shape) && in->op != FFU_OP_MSM;
			if (!ok && comp == m->entry)
				ok = in->op == FFU_OP_MSM || in->op == FFU_OP_TUPLE || in->op == FFU_OP_GET_TUPLE_ELEMENT ||
				     /* bases: read by msm kernels only */
				     (in->op == FFU_OP_PARAMETER && reads(comp, in, true) == reads(comp, in, false)) ||
				     (in->op == FFU_OP_CONVERT && in->operands[0]->op == FFU_OP_MSM &&
				      reads(comp, in->operands[0], false) == 1);
			if (!ok)
				return ffu__err_at(e, FFU_STATUS_EUNSUPPORTED, file, in->line, in->col,
						   "'%%%s' (%s): of the ops on elliptic-curve points only msm (and a convert of its point) has device code so far; the others run in the reference interpreter (fieldfuse run --interp)",
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
