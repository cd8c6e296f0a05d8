/*
 * passes/dce.c: dead code elimination (see passes.h).
 *
 * In every computation an instruction stays if the ROOT depends on it, or if it is a
 * parameter: parameters are the computation's signature (the program's inputs, or a fused
 * computation's operands), so they stay even when nothing reads them. Then computations
 * that no remaining instruction calls (fusion calls=, reduce to_apply=) and that are not
 * the entry are dropped from the module; a folded-away reduce leaves its to_apply behind.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "passes/passes.h"

/* Keeps the live instructions of c, in order. */
static ffu_status dce_comp(ffu_computation *c, ffu_error *e)
{
	int n = c->n_insts;
	ffu_status st = FFU_STATUS_ENOMEM;
	char *live = calloc((size_t)n + 1, 1);
	ffu_inst **keep = malloc(sizeof(ffu_inst *) * (size_t)(n + 1));
	if (!live || !keep)
		goto out;
	ffu__comp_renumber(c);
	if (c->root)
		live[c->root->id] = 1;
	/* operands come first, so one backward sweep sees every user before its operands */
	for (int i = n - 1; i >= 0; i--) {
		const ffu_inst *in = c->insts[i];
		if (in->op == FFU_OP_PARAMETER)
			live[i] = 1;
		if (!live[i])
			continue;
		for (int j = 0; j < in->n_operands; j++)
			live[in->operands[j]->id] = 1;
	}
	int k = 0;
	for (int i = 0; i < n; i++)
		if (live[i])
			keep[k++] = c->insts[i];
	if (k != n && !ffu__comp_set_insts(c, keep, k))
		goto out;
	st = FFU_STATUS_OK;
out:
	free(live);
	free(keep);
	return st == FFU_STATUS_ENOMEM ? ffu__err(e, st, "out of memory in the dce pass") : st;
}

/*
 * Marks the entry and every computation it reaches through calls. A callee comes before
 * its callers in m->comps (the verifier's rule), so one backward sweep sees every caller
 * of a computation before the computation itself.
 */
static bool mark_called(const ffu_module *m, char *used)
{
	ffu_comp_pos *pos = ffu__comp_pos_build(m);
	if (!pos)
		return false;
	for (int i = m->n_comps - 1; i >= 0; i--) {
		const ffu_computation *c = m->comps[i];
		if (c == m->entry)
			used[i] = 1;
		if (!used[i])
			continue;
		for (int j = 0; j < c->n_insts; j++) {
			int k = ffu__comp_pos_find(pos, m->n_comps, c->insts[j]->callee);
			if (k >= 0)
				used[k] = 1;
		}
	}
	free(pos);
	return true;
}

ffu_status ffu__pass_dce(ffu_module *m, const ffu_pass_opts *o, ffu_error *e)
{
	(void)o;
	ffu_status st;
	for (int i = 0; i < m->n_comps; i++)
		if ((st = dce_comp(m->comps[i], e)))
			return st;
	char *used = calloc((size_t)m->n_comps + 1, 1);
	if (!used || !mark_called(m, used)) {
		free(used);
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory in the dce pass");
	}
	int k = 0;
	for (int i = 0; i < m->n_comps; i++)
		if (used[i])
			m->comps[k++] = m->comps[i];
	m->n_comps = k;
	free(used);
	return FFU_STATUS_OK;
}
