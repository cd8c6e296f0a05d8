/*
 * src/hlo/parse_dot.c: dot's attributes (docs/hlo.md "dot"): its four dimension lists and
 * the rule that pairs them up, with ZKX's reading of a sparse dot written without them.
 * Owned by the HLO front end; parser.c's attribute table calls these.
 */
#include "hlo/parse.h"

/*
 * dot's dimension lists `{d, ...}` (XLA's dot_dimension_numbers): read into the IR's lists,
 * their counts kept in the parser until ffu__hp_dot_finish pairs them up.
 */
static ffu_status dot_list(parser *p, ffu_inst *in, int which)
{
	int64_t *list = which == 0 ? in->dot.lhs_batch : which == 1 ? in->dot.rhs_batch
					   : which == 2 ? in->dot.lhs_contract : in->dot.rhs_contract;
	p->dot_tok[which] = p->tok;
	return ffu__hp_dim_list(p, list, &p->dot_n[which]);
}

ffu_status ffu__hp_attr_lhs_batch(parser *p, ffu_inst *in)
{
	return dot_list(p, in, 0);
}

ffu_status ffu__hp_attr_rhs_batch(parser *p, ffu_inst *in)
{
	return dot_list(p, in, 1);
}

ffu_status ffu__hp_attr_lhs_contract(parser *p, ffu_inst *in)
{
	return dot_list(p, in, 2);
}

ffu_status ffu__hp_attr_rhs_contract(parser *p, ffu_inst *in)
{
	return dot_list(p, in, 3);
}

/*
 * The lists pair up (lhs with rhs), an absent one being empty. Without any of them a dot
 * contracts nothing (XLA: an outer product), except ZKX's sparse dot: a CSR matrix times a
 * vector written without dimension numbers, which ZKX's emitter computes as the product
 * of the matrix's columns with the vector (ZKX.md 4.9), so it reads as
 * lhs_contracting_dims={1}, rhs_contracting_dims={0}.
 */
ffu_status ffu__hp_dot_finish(parser *p, ffu_inst *in)
{
	static const char *const names[4] = {"lhs_batch_dims", "rhs_batch_dims", "lhs_contracting_dims",
					     "rhs_contracting_dims"};
	int n[4];
	bool any = false;
	for (int k = 0; k < 4; k++) {
		n[k] = p->dot_n[k] < 0 ? 0 : p->dot_n[k];
		any |= p->dot_n[k] >= 0;
	}
	for (int k = 0; k < 4; k += 2)
		if (n[k] != n[k + 1]) {
			const ffu_token *t = p->dot_n[k + 1] >= 0 ? &p->dot_tok[k + 1] : &p->dot_tok[k];
			return PERR(t, "%s has %d entr%s but %s has %d: they pair up, lhs with rhs", names[k], n[k],
				    n[k] == 1 ? "y" : "ies", names[k + 1], n[k + 1]);
		}
	in->dot.n_batch = n[0];
	in->dot.n_contract = n[2];
	const ffu_shape *x = &in->operands[0]->shape, *y = &in->operands[1]->shape;
	if (!any && ffu__shape_is_array(x) && ffu__shape_is_array(y) && x->csr && x->rank == 2 && y->rank == 1) {
		in->dot.n_contract = 1;
		in->dot.lhs_contract[0] = 1;
		in->dot.rhs_contract[0] = 0;
	}
	return FFU_STATUS_OK;
}
