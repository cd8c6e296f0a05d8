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

static bool is_point_array(const ffu_shape *s)
{
	const ffu_field *f = s->type == FFU_TYPE_TUPLE ? NULL : ffu__shape_field(s);
	return f && f->kind == FFU_ELEM_POINT;
}

/* The one reader of entry value v that is not a tuple, or NULL (none, or several). */
static const ffu_inst *only_reader(const ffu_computation *c, const ffu_inst *v)
{
	const ffu_inst *r = NULL;
	for (int i = 0; i < c->n_insts; i++)
		for (int j = 0; j < c->insts[i]->n_operands; j++)
			if (c->insts[i]->operands[j] == v) {
				if (r)
					return NULL;
				r = c->insts[i];
			}
	return r;
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
			if (!ok && comp == m->entry) {
				switch (in->op) {
				case FFU_OP_PARAMETER: /* bases: read by msm kernels only */
				case FFU_OP_TUPLE:
				case FFU_OP_GET_TUPLE_ELEMENT:
					ok = is_point_array(&in->shape) || in->op != FFU_OP_PARAMETER;
					for (int u = 0; ok && in->op == FFU_OP_PARAMETER && u < comp->n_insts; u++)
						for (int j = 0; j < comp->insts[u]->n_operands; j++)
							ok = ok && (comp->insts[u]->operands[j] != in ||
								    comp->insts[u]->op == FFU_OP_MSM);
					break;
				case FFU_OP_MSM:
					ok = true;
					break;
				case FFU_OP_CONVERT:
					ok = in->operands[0]->op == FFU_OP_MSM && only_reader(comp, in->operands[0]) == in;
					break;
				default:
					break;
				}
			}
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
