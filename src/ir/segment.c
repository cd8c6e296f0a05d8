/*
 * ir/segment.c: an SPMD program cut at its collectives (see ir.h, "SPMD plans"). Every
 * rank runs the same steps: a segment, the ENTRY's instructions between two collectives,
 * becomes a module of its own that compiles like any single-device program (its element-
 * wise work fused as usual, so fusion stops only at the cut); a collective step exchanges
 * host values between the ranks. The runtime runs the plan (runtime/spmd.c).
 *
 * A segment's module is a copy of the source module whose ENTRY keeps the segment's
 * instructions, reads what they take from outside through new parameters (named as the
 * values they stand for) and returns, as a tuple, every value of the segment used outside
 * it. Entry parameters and collectives belong to no segment; a ROOT tuple neither (the
 * program's outputs are its operands).
 */
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"

void ffu__spmd_plan_free(ffu_spmd_plan *p)
{
	for (int s = 0; s < p->n_steps; s++) {
		ffu__module_free(p->steps[s].seg);
		free(p->steps[s].in);
		free(p->steps[s].out);
	}
	free(p->steps);
	free(p->outputs);
	memset(p, 0, sizeof *p);
}

static bool is_coll(const ffu_inst *in)
{
	return ffu__ops[in->op].kind == FFU_KIND_COLLECTIVE;
}

/* The module of segment s: members seg_of[i] == s, inputs step->in, outputs step->out. */
static ffu_status build_segment(const ffu_module *m, const int *seg_of, int s, ffu_spmd_step *st, ffu_error *e)
{
	const ffu_computation *src = m->entry;
	ffu_module *c = ffu__module_clone(m);
	ffu_inst **list = NULL, **param_of = NULL, **elems = NULL;
	ffu_status status = FFU_STATUS_ENOMEM;
	if (!c)
		goto out;
	ffu_computation *ce = c->entry;
	c->replica_count = c->num_partitions = 1;
	const int n = src->n_insts;
	list = calloc((size_t)n + st->n_in + 2, sizeof *list);
	param_of = calloc((size_t)n + 1, sizeof *param_of);
	elems = calloc((size_t)st->n_out + 1, sizeof *elems);
	ffu_inst **params = ffu__arena_alloc(&c->arena, sizeof *params * (size_t)(st->n_in + 1));
	if (!list || !param_of || !elems || !params)
		goto out;
	int k = 0;
	for (int j = 0; j < st->n_in; j++) {
		const ffu_inst *v = src->insts[st->in[j]];
		ffu_inst *p = ffu__inst_alloc(ce, FFU_OP_PARAMETER, v->name, &v->shape, NULL, 0);
		if (!p)
			goto out;
		p->index = j;
		p->line = v->line;
		p->col = v->col;
		params[j] = param_of[st->in[j]] = list[k++] = p;
	}
	for (int i = 0; i < n; i++) {
		if (seg_of[i] != s)
			continue;
		ffu_inst *in = ce->insts[i]; /* the clone keeps the order */
		in->sharding = NULL;         /* the program's layout over its partitions: a segment is one rank's */
		for (int j = 0; j < in->n_operands; j++) {
			int id = src->insts[i]->operands[j]->id;
			if (seg_of[id] != s)
				in->operands[j] = param_of[id];
		}
		list[k++] = in;
	}
	ffu_shape ts = {.type = FFU_TYPE_TUPLE, .n_elems = st->n_out};
	ffu_shape *es = calloc((size_t)st->n_out + 1, sizeof *es);
	if (!es)
		goto out;
	for (int j = 0; j < st->n_out; j++) {
		elems[j] = ce->insts[st->out[j]];
		es[j] = elems[j]->shape;
	}
	ts.elems = es;
	ffu_inst *root = ffu__inst_alloc(ce, FFU_OP_TUPLE, ffu__module_unique_name(c, "segment.out"), &ts, elems,
					 st->n_out);
	free(es);
	if (!root)
		goto out;
	list[k++] = root;
	if (!ffu__comp_set_insts(ce, list, k))
		goto out;
	ce->root = root;
	ce->params = params;
	ce->n_params = st->n_in;
	ffu_error ve = {0};
	if (ffu__module_verify(c, m->name, &ve)) {
		status = ffu__err(e, FFU_STATUS_EVERIFY, "%s: segment %d of the SPMD plan does not verify: %s", m->name, s,
				  ve.message);
		ffu_error_clear(&ve);
		goto out;
	}
	st->seg = c;
	c = NULL;
	status = FFU_STATUS_OK;
out:
	if (status == FFU_STATUS_ENOMEM)
		ffu__err(e, status, "out of memory cutting %s at its collectives", m->name);
	ffu__module_free(c);
	free(list);
	free(param_of);
	free(elems);
	return status;
}

/* Appends id to a list of at most cap entries unless it is there. */
static void add_once(int *list, int *n, int id)
{
	for (int k = 0; k < *n; k++)
		if (list[k] == id)
			return;
	list[(*n)++] = id;
}

ffu_status ffu__spmd_plan(const ffu_module *m, ffu_spmd_plan *p, ffu_error *e)
{
	memset(p, 0, sizeof *p);
	const ffu_computation *E = m->entry;
	const int n = E->n_insts;
	const ffu_inst *root = E->root;
	const bool root_tuple = root->op == FFU_OP_TUPLE;
	/* seg_of: the segment of each instruction, -1 for parameters, collectives, a ROOT tuple */
	int *seg_of = malloc(sizeof *seg_of * ((size_t)n + 1));
	bool open = false;
	p->steps = calloc((size_t)2 * n + 1, sizeof *p->steps);
	p->outputs = malloc(sizeof *p->outputs * ((size_t)(root_tuple ? root->n_operands : 1) + 1));
	if (!seg_of || !p->steps || !p->outputs) {
		free(seg_of);
		ffu__spmd_plan_free(p);
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory cutting %s at its collectives", m->name);
	}
	for (int i = 0; i < n; i++) {
		const ffu_inst *in = E->insts[i];
		seg_of[i] = -1;
		if (in->op == FFU_OP_PARAMETER || (root_tuple && in == root))
			continue;
		if (is_coll(in)) {
			open = false;
			p->steps[p->n_steps++].coll = in;
			continue;
		}
		if (!open) {
			open = true;
			p->steps[p->n_steps++].coll = NULL;
		}
		seg_of[i] = p->n_steps - 1; /* a segment is named by its step */
	}
	p->n_outputs = root_tuple ? root->n_operands : 1;
	for (int j = 0; j < p->n_outputs; j++)
		p->outputs[j] = root_tuple ? root->operands[j]->id : root->id;
	/* each step's inputs and outputs */
	ffu_status st = FFU_STATUS_OK;
	for (int s = 0; s < p->n_steps && st == FFU_STATUS_OK; s++) {
		ffu_spmd_step *sp = &p->steps[s];
		sp->in = malloc(sizeof *sp->in * ((size_t)n + 1));
		sp->out = malloc(sizeof *sp->out * ((size_t)n + 1));
		if (!sp->in || !sp->out) {
			st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory cutting %s at its collectives", m->name);
			break;
		}
		if (sp->coll) {
			if (sp->coll->n_operands)
				sp->in[sp->n_in++] = sp->coll->operands[0]->id;
			sp->out[sp->n_out++] = sp->coll->id;
			continue;
		}
		for (int i = 0; i < n; i++) {
			const ffu_inst *in = E->insts[i];
			if (seg_of[i] == s) {
				for (int j = 0; j < in->n_operands; j++)
					if (seg_of[in->operands[j]->id] != s)
						add_once(sp->in, &sp->n_in, in->operands[j]->id);
				continue;
			}
			if (in == root && !root_tuple)
				continue;
			for (int j = 0; j < in->n_operands; j++) /* a later use, or the ROOT tuple's */
				if (seg_of[in->operands[j]->id] == s)
					add_once(sp->out, &sp->n_out, in->operands[j]->id);
		}
		if (!root_tuple && seg_of[root->id] == s)
			add_once(sp->out, &sp->n_out, root->id);
		for (int j = 0; j < sp->n_out && st == FFU_STATUS_OK; j++) {
			const ffu_inst *v = E->insts[sp->out[j]];
			if (!ffu__shape_is_array(&v->shape))
				st = ffu__err_at(e, FFU_STATUS_EUNSUPPORTED, m->name, v->line, v->col,
						 "'%%%s': a tuple value crosses a collective (the steps of an SPMD program pass arrays)",
						 v->name);
		}
		if (st == FFU_STATUS_OK)
			st = build_segment(m, seg_of, s, sp, e);
	}
	free(seg_of);
	if (st)
		ffu__spmd_plan_free(p);
	return st;
}
