/*
 * passes/dot_reduce.c: a dense dot with few result elements and a long contraction becomes
 * a reduce of products, reduce(multiply(broadcast(lhs), broadcast(rhs))), over the
 * contracted dimension (the pass "dot_reduce", first in the pipeline).
 *
 * Why: a kDot fusion (codegen/dot.c) sums each result element on one work-item, so a vector
 * product runs on one work-item and a matrix-vector product with few rows on few: a GPU
 * idles and a CPU uses one core. A reduction splits each sum over work-groups
 * (codegen/reduce.c: partials, then a final fold), and the broadcasts and the multiply fuse
 * into its loads, so nothing new is stored. XLA's algebraic simplifier turns small dots into
 * the same form. Measured (PoCL, 2 cores) in docs/architecture.md "dot".
 *
 * Which dots: dense (a CSR lhs keeps ZKX's row loop), no batch dimensions, one contracted
 * dimension that is the lhs's last and the rhs's first (vector . vector, matrix . vector,
 * vector . matrix, matrix . matrix: the broadcasts then keep their dimensions in order),
 * one element type, a contraction of at least MIN_K and at most the target's
 * dot_reduce_results result elements (device/target.c: past them the dot's own work-items
 * fill the device; 0 with no target).
 *
 * The products of the intermediate [lhs free, K, rhs free] are formed where the reduction
 * reads them; the dot instruction itself becomes the reduce, so its name and uses stay.
 */
#include "passes/passes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "field.h"

enum { MIN_K = 1024 };

static bool candidate(const ffu_inst *in, int64_t max_result)
{
	if (in->op != FFU_OP_DOT || in->dot.n_batch != 0 || in->dot.n_contract != 1)
		return false;
	const ffu_inst *x = in->operands[0], *y = in->operands[1];
	if (x->shape.csr || y->shape.csr || x->shape.type != y->shape.type || x->shape.type != in->shape.type)
		return false;
	if (x->shape.rank < 1 || x->shape.rank > 2 || y->shape.rank < 1 || y->shape.rank > 2)
		return false;
	if (in->dot.lhs_contract[0] != x->shape.rank - 1 || in->dot.rhs_contract[0] != 0)
		return false;
	return x->shape.dims[x->shape.rank - 1] >= MIN_K && ffu__shape_count(&in->shape) <= max_result;
}

static int64_t *dims_of(ffu_module *m, int n, int64_t first)
{
	int64_t *d = ffu__arena_alloc(&m->arena, sizeof *d * (size_t)(n ? n : 1));
	for (int i = 0; d && i < n; i++)
		d[i] = first + i;
	return d;
}

/* A new instruction named after base, appended to out[]. */
static ffu_inst *add(ffu_computation *c, ffu_inst **out, int *n, ffu_op op, const char *base, const ffu_shape *sh,
		     ffu_inst *const *ops, int n_ops)
{
	ffu_inst *in = ffu__inst_alloc(c, op, ffu__module_unique_name(c->module, base), sh, ops, n_ops);
	if (in)
		out[(*n)++] = in;
	return in;
}

/* Appends the instructions that replace dot `in` to out[] and turns `in` into the reduce. */
static bool rewrite(ffu_module *m, ffu_computation *c, ffu_inst *in, ffu_computation **sum, ffu_inst **out, int *n)
{
	ffu_inst *x = in->operands[0], *y = in->operands[1];
	const int lf = x->shape.rank - 1, rf = y->shape.rank - 1;
	ffu_shape t = {.type = in->shape.type, .rank = lf + 1 + rf};
	for (int d = 0; d < lf; d++)
		t.dims[d] = x->shape.dims[d];
	t.dims[lf] = x->shape.dims[lf];
	for (int d = 0; d < rf; d++)
		t.dims[lf + 1 + d] = y->shape.dims[1 + d];
	ffu_inst *bx = add(c, out, n, FFU_OP_BROADCAST, "broadcast", &t, &x, 1);
	ffu_inst *by = bx ? add(c, out, n, FFU_OP_BROADCAST, "broadcast", &t, &y, 1) : NULL;
	ffu_inst *p = by ? add(c, out, n, FFU_OP_MULTIPLY, "multiply", &t, (ffu_inst *[]){bx, by}, 2) : NULL;
	ffu_shape sc = {.type = in->shape.type};
	ffu_inst *z = p ? add(c, out, n, FFU_OP_CONSTANT, "constant", &sc, NULL, 0) : NULL;
	if (!z || !(bx->dims = dims_of(m, x->shape.rank, 0)) || !(by->dims = dims_of(m, y->shape.rank, lf)) ||
	    !(z->literal = ffu__arena_alloc(&m->arena, ffu__shape_elem_bytes(&sc))) ||
	    !(in->operands = ffu__arena_alloc(&m->arena, 2 * sizeof *in->operands)) || !(in->dims = dims_of(m, 1, lf)))
		return false;
	bx->n_dims = x->shape.rank;
	by->n_dims = y->shape.rank;
	memset(z->literal, 0, ffu__shape_elem_bytes(&sc)); /* zero: all-zero bytes in either form */
	if (!*sum && !(*sum = ffu__comp_new_reducer(m, ffu__module_unique_name(m, "sum"), ffu__module_unique_name(m, "sum.x"),
						    ffu__module_unique_name(m, "sum.y"), ffu__module_unique_name(m, "sum.r"),
						    in->shape.type, FFU_OP_ADD)))
		return false;
	in->op = FFU_OP_REDUCE;
	memset(&in->dot, 0, sizeof in->dot);
	in->operands[0] = p;
	in->operands[1] = z;
	in->n_operands = 2;
	in->n_dims = 1;
	in->callee = *sum;
	in->reduce_fn = FFU_OP_ADD;
	return true;
}

ffu_status ffu__pass_dot_reduce(ffu_module *m, const ffu_pass_opts *o, ffu_error *e)
{
	ffu_computation *c = m->entry;
	int hits = 0;
	for (int i = 0; i < c->n_insts; i++)
		hits += candidate(c->insts[i], o->dot_reduce_results);
	if (!hits)
		return FFU_STATUS_OK;
	/* one sum computation per element type the rewritten dots have */
	ffu_computation *sums[FFU_ELEM_COUNT] = {0};
	ffu_inst **out = malloc(sizeof *out * (size_t)(c->n_insts + 4 * hits));
	int n = 0;
	bool ok = out != NULL;
	for (int i = 0; ok && i < c->n_insts; i++) {
		ffu_inst *in = c->insts[i];
		if (candidate(in, o->dot_reduce_results))
			ok = rewrite(m, c, in, &sums[in->shape.type], out, &n);
		out[n++] = in;
	}
	ok = ok && ffu__comp_set_insts(c, out, n);
	free(out);
	return ok ? FFU_STATUS_OK : ffu__err(e, FFU_STATUS_ENOMEM, "out of memory in the dot_reduce pass");
}
