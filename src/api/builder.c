/*
 * src/api/builder.c: the graph builder of include/fieldfuse/builder.h. Owned by the API
 * layer.
 *
 * A builder owns one module under construction (entry `%main`, plus the sum/product
 * computations reduces call), a node table (node -> instruction), a name table and the
 * first error. ffu_builder_finish hands the module to an ffu_program.
 *
 * Checking: every instruction is verified by ffu__module_verify as it is added, so its
 * error names the builder call that made it. Verifying the whole module on each call would
 * cost O(n) per call (quadratic in all), so the new instruction is verified alone: a scratch
 * module holds a copy of it whose operands are placeholders of the same shapes (parameters;
 * a tuple of placeholders for a tuple operand) and a copy of its to_apply computation. The
 * verifier's rules for one instruction read only its operands' shapes, its attributes and
 * its callee, all of which the copy has. The whole module is verified once more at finish.
 * The ffu_build_* constructors are in build_ops.c; the record and shared helpers in
 * builder_impl.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/builder_impl.h"
#include "util/grow.h"

/* ---------------------------------------------------------------- errors */

/* Records the first error ("CALL: message") and returns FFU_NODE_INVALID. */
ffu_node ffu__bld_fail(ffu_builder *b, ffu_status st, const char *call, const char *fmt, ...)
{
	if (b->err.status != FFU_STATUS_OK)
		return FFU_NODE_INVALID;
	char msg[sizeof b->err.message];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	ffu__err(&b->err, st, "%s: %s", call, msg);
	return FFU_NODE_INVALID;
}

/* The first error again into e (a builder error has no build log to share). */
static ffu_status report(const ffu_builder *b, ffu_error *e)
{
	if (e) {
		ffu_error_clear(e);
		*e = b->err;
		e->build_log = NULL;
	}
	return b->err.status;
}

/* A call may add an instruction: the builder is live and has no error yet. */
bool ffu__bld_usable(ffu_builder *b, const char *call)
{
	if (!b)
		return false;
	if (b->err.status != FFU_STATUS_OK)
		return false;
	if (!b->m) {
		ffu__bld_fail(b, FFU_STATUS_EINVAL, call, "the builder is finished (ffu_builder_finish was called)");
		return false;
	}
	return true;
}

static ffu_inst *node_inst(const ffu_builder *b, ffu_node n)
{
	return b && n >= 0 && n < b->n_nodes ? b->nodes[n] : NULL;
}

/* Operand j of `call`: a node of this builder, or a recorded error naming it. */
ffu_inst *ffu__bld_operand(ffu_builder *b, const char *call, int j, ffu_node n)
{
	ffu_inst *in = node_inst(b, n);
	if (!in)
		ffu__bld_fail(b, FFU_STATUS_EINVAL, call, "operand %d is %s", j,
		     n == FFU_NODE_INVALID ? "FFU_NODE_INVALID (from a call that failed)" : "not a node of this builder");
	return in;
}

/* ---------------------------------------------------------------- names */

bool ffu__bld_hlo_name(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++) {
		char c = *s;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
		      c == '-'))
			return false;
	}
	return true;
}

bool ffu__bld_name_taken(const ffu_builder *b, const char *name)
{
	return ffu__sym_get(&b->names, name, strlen(name)) != NULL;
}

bool ffu__bld_comp_name_taken(const ffu_builder *b, const char *name)
{
	return ffu__module_find_comp(b->m, name) != NULL;
}

/* "<base>.<n>", the first not in use (for instructions or, with comp, computations). */
void ffu__bld_fresh_name(ffu_builder *b, char *buf, size_t size, const char *base, bool comp)
{
	do
		snprintf(buf, size, "%s.%u", base, b->counter++);
	while (comp ? ffu__bld_comp_name_taken(b, buf) : ffu__bld_name_taken(b, buf));
}

static bool rebuild_names(ffu_builder *b)
{
	ffu__sym_free(&b->names);
	for (int i = 0; i < b->m->n_comps; i++) {
		const ffu_computation *c = b->m->comps[i];
		for (int j = 0; j < c->n_insts; j++)
			if (!ffu__sym_put(&b->names, c->insts[j]->name, c->insts[j]))
				return false;
	}
	return true;
}

/* ---------------------------------------------------------------- verifying one instruction */

/* A stand-in for an operand in the scratch module: a parameter, or a tuple of stand-ins. */
static ffu_inst *placeholder(ffu_computation *c, const ffu_shape *s, const char *name, int depth)
{
	if (s->type != FFU_TYPE_TUPLE || depth > 64) {
		ffu_inst *p = ffu__inst_new(c, FFU_OP_PARAMETER, name, s, NULL, 0);
		if (p)
			p->index = c->n_params++;
		return p;
	}
	ffu_inst **elems = calloc((size_t)s->n_elems + 1, sizeof *elems);
	ffu_inst *t = NULL;
	bool ok = elems != NULL;
	for (int k = 0; ok && k < s->n_elems; k++) {
		/* '/' is no HLO name character: these names cannot meet a real one */
		char sub[300];
		snprintf(sub, sizeof sub, "%.200s/%d", name, k);
		ok = (elems[k] = placeholder(c, &s->elems[k], sub, depth + 1)) != NULL;
	}
	if (ok)
		t = ffu__inst_new(c, FFU_OP_TUPLE, name, s, elems, s->n_elems);
	free(elems);
	return t;
}

/* A copy of computation f (parameters and instructions in order) at the end of module s. */
static ffu_computation *copy_comp(ffu_module *s, const ffu_computation *f)
{
	ffu_computation *c = ffu__comp_new(s, f->name);
	ffu_inst **map = calloc((size_t)f->n_insts + 1, sizeof *map), **ops = NULL;
	bool ok = c && map;
	if (ok && f->n_params > 0)
		ok = (c->params = ffu__arena_alloc(&s->arena, sizeof *c->params * (size_t)f->n_params)) != NULL;
	if (ok)
		c->n_params = f->n_params;
	for (int i = 0; ok && i < f->n_insts; i++) {
		const ffu_inst *in = f->insts[i];
		free(ops);
		ok = (ops = calloc((size_t)in->n_operands + 1, sizeof *ops)) != NULL;
		for (int j = 0; ok && j < in->n_operands; j++)
			ops[j] = map[in->operands[j]->id];
		if (ok)
			ok = (map[i] = ffu__inst_new(c, in->op, in->name, &in->shape, ops, in->n_operands)) != NULL;
		if (ok) {
			ffu__inst_copy_attrs(map[i], in);
			if (in->op == FFU_OP_PARAMETER && in->index >= 0 && in->index < c->n_params)
				c->params[in->index] = map[i];
			if (in == f->root)
				c->root = map[i];
		}
	}
	free(ops);
	free(map);
	return ok ? c : NULL;
}

/* Runs the verifier on `in` alone (see the file comment). */
static ffu_status verify_one(ffu_builder *b, const ffu_inst *in, ffu_error *e)
{
	ffu_status st = FFU_STATUS_OK;
	ffu_module *s = ffu__module_new(b->m->name);
	ffu_inst **ops = calloc((size_t)in->n_operands + 1, sizeof *ops);
	ffu_computation *callee = NULL, *c = NULL;
	if (!s || !ops)
		goto oom;
	if (in->callee && !(callee = copy_comp(s, in->callee)))
		goto oom;
	if (!(c = ffu__comp_new(s, b->entry->name)))
		goto oom;
	c->is_entry = true;
	s->entry = c;
	s->replica_count = b->m->replica_count; /* a collective's groups are checked against them */
	s->num_partitions = b->m->num_partitions;
	for (int j = 0; j < in->n_operands; j++) {
		const ffu_inst *op = in->operands[j];
		for (int k = 0; k < j && !ops[j]; k++)
			if (in->operands[k] == op)
				ops[j] = ops[k];
		if (!ops[j] && !(ops[j] = placeholder(c, &op->shape, op->name, 0)))
			goto oom;
	}
	ffu_inst *copy = ffu__inst_new(c, in->op, in->name, &in->shape, ops, in->n_operands);
	if (!copy)
		goto oom;
	ffu__inst_copy_attrs(copy, in);
	copy->callee = callee;
	if (in->op == FFU_OP_PARAMETER)
		copy->index = c->n_params++; /* its own number is the real entry's business */
	c->root = copy;
	/* A CSR parameter (a dot's lhs) may not be a result: read it as a dot's lhs here, after
	   the parameter's own checks, so that the ROOT rule is the finished module's business. */
	if (copy->op == FFU_OP_PARAMETER && copy->shape.csr && copy->shape.rank == 2) {
		ffu_shape vs = {.type = copy->shape.type, .rank = 1, .dims = {copy->shape.dims[1]}};
		ffu_shape rs = {.type = copy->shape.type, .rank = 1, .dims = {copy->shape.dims[0]}};
		ffu_inst *dv[2] = {copy, placeholder(c, &vs, "dot/rhs", 0)};
		if (!dv[1] || !(c->root = ffu__inst_new(c, FFU_OP_DOT, "dot/lhs", &rs, dv, 2)))
			goto oom;
		c->root->dot = (ffu_dot_attrs){.n_contract = 1, .lhs_contract = {1}};
	}
	if (c->n_params > 0) {
		if (!(c->params = ffu__arena_alloc(&s->arena, sizeof *c->params * (size_t)c->n_params)))
			goto oom;
		for (int i = 0; i < c->n_insts; i++)
			if (c->insts[i]->op == FFU_OP_PARAMETER)
				c->params[c->insts[i]->index] = c->insts[i];
	}
	st = ffu__module_verify(s, "", e);
	goto out;
oom:
	st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
out:
	free(ops);
	ffu__module_free(s);
	return st;
}

/*
 * Adds an instruction to the entry, verifies it and names it; the node, or
 * FFU_NODE_INVALID with the error recorded (the instruction taken back out of the entry).
 * set_attrs (optional) fills the attributes before verification.
 */

ffu_node ffu__bld_add(ffu_builder *b, const char *call, ffu_op op, const char *name, const ffu_shape *shape,
		    ffu_inst *const *ops, int n, attr_fn set_attrs, const void *arg)
{
	char auto_name[64];
	if (!name) {
		ffu__bld_fresh_name(b, auto_name, sizeof auto_name, ffu__ops[op].keyword, false);
		name = auto_name;
	}
	if (!ffu__grow((void **)&b->nodes, &b->cap_nodes, b->n_nodes + 1, sizeof *b->nodes))
		return ffu__bld_fail(b, FFU_STATUS_ENOMEM, call, "out of memory");
	ffu_inst *in = ffu__inst_new(b->entry, op, name, shape, ops, n);
	if (!in)
		return ffu__bld_fail(b, FFU_STATUS_ENOMEM, call, "out of memory");
	/* a shape inferred from a CSR operand is dense: only a parameter is sparse, and the
	   verifier then names the sparse operand rather than a sparse result */
	if (op != FFU_OP_PARAMETER && in->shape.type != FFU_TYPE_TUPLE) {
		in->shape.csr = false;
		in->shape.nnz = 0;
	}
	if (set_attrs)
		set_attrs(in, arg);
	ffu_error e = {0};
	ffu_status st = verify_one(b, in, &e);
	if (st) {
		b->entry->n_insts--; /* the instruction was the last one; its arena bytes stay unused */
		return ffu__bld_fail(b, st, call, "%s", e.message);
	}
	if (!ffu__sym_put(&b->names, in->name, in)) {
		b->entry->n_insts--;
		return ffu__bld_fail(b, FFU_STATUS_ENOMEM, call, "out of memory");
	}
	b->nodes[b->n_nodes] = in;
	return b->n_nodes++;
}

/* ---------------------------------------------------------------- the builder */

ffu_status ffu_builder_create(ffu_builder **out, const char *module_name, ffu_error *e)
{
	ffu_error_clear(e);
	if (!out)
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu_builder_create: out is NULL");
	*out = NULL;
	const char *mname = module_name ? module_name : "module";
	if (!ffu__bld_hlo_name(mname))
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu_builder_create: module name '%s' is not an HLO name ([A-Za-z0-9_.-]+)",
				mname);
	ffu_builder *b = calloc(1, sizeof *b);
	if (!b || !(b->m = ffu__module_new(mname)) || !(b->entry = ffu__comp_new(b->m, "main"))) {
		ffu_builder_destroy(&b);
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	}
	b->entry->is_entry = true;
	b->m->entry = b->entry;
	*out = b;
	return FFU_STATUS_OK;
}

void ffu_builder_destroy(ffu_builder **bp)
{
	if (!bp || !*bp)
		return;
	ffu_builder *b = *bp;
	ffu__module_free(b->m);
	ffu__sym_free(&b->names);
	free(b->nodes);
	free(b->params);
	ffu_error_clear(&b->err);
	free(b);
	*bp = NULL;
}

ffu_status ffu_builder_status(const ffu_builder *b, ffu_error *e)
{
	if (!b) {
		ffu_error_clear(e);
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu_builder_status: builder is NULL");
	}
	return report(b, e);
}

ffu_status ffu_builder_finish(ffu_builder *b, ffu_node root, ffu_program **out, ffu_error *e)
{
	const char *call = "ffu_builder_finish";
	if (out)
		*out = NULL;
	if (!b || !out) {
		ffu_error_clear(e);
		return ffu__err(e, FFU_STATUS_EINVAL, "%s: %s is NULL", call, !b ? "builder" : "out");
	}
	if (!ffu__bld_usable(b, call))
		return report(b, e);
	ffu_inst *r = ffu__bld_operand(b, call, 0, root);
	if (!r)
		return report(b, e);
	ffu_computation *c = b->entry;
	c->root = r;
	c->n_params = b->n_params;
	if (b->n_params > 0) {
		c->params = ffu__arena_alloc(&b->m->arena, sizeof *c->params * (size_t)b->n_params);
		if (!c->params) {
			ffu__bld_fail(b, FFU_STATUS_ENOMEM, call, "out of memory");
			return report(b, e);
		}
		memcpy(c->params, b->params, sizeof *c->params * (size_t)b->n_params);
	}
	ffu_error ve = {0};
	ffu_status st = ffu__module_verify(b->m, "", &ve);
	if (st) {
		ffu__bld_fail(b, st, call, "%s", ve.message);
		return report(b, e);
	}
	/* the program owns the module from here, whatever happens */
	ffu_module *m = b->m;
	b->m = NULL;
	ffu_error_clear(e);
	return ffu__program_from_module(out, m, "", e);
}

ffu_status ffu_builder_set_name(ffu_builder *b, ffu_node n, const char *name)
{
	const char *call = "ffu_builder_set_name";
	if (!ffu__bld_usable(b, call))
		return b ? b->err.status : FFU_STATUS_EINVAL;
	ffu_inst *in = ffu__bld_operand(b, call, 0, n);
	if (!in)
		return b->err.status;
	if (!ffu__bld_hlo_name(name)) {
		ffu__bld_fail(b, FFU_STATUS_EINVAL, call, "'%s' is not an HLO name ([A-Za-z0-9_.-]+)", name ? name : "(null)");
		return b->err.status;
	}
	if (strcmp(in->name, name) == 0)
		return FFU_STATUS_OK;
	if (ffu__bld_name_taken(b, name)) {
		ffu__bld_fail(b, FFU_STATUS_EINVAL, call, "name '%s' is already used in the module", name);
		return b->err.status;
	}
	const char *copy = ffu__arena_strdup(&b->m->arena, name);
	if (!copy) {
		ffu__bld_fail(b, FFU_STATUS_ENOMEM, call, "out of memory");
		return b->err.status;
	}
	in->name = copy;
	/* the table has no delete: renames are rare, so rebuild it and keep it exact */
	if (!rebuild_names(b)) {
		ffu__bld_fail(b, FFU_STATUS_ENOMEM, call, "out of memory");
		return b->err.status;
	}
	return FFU_STATUS_OK;
}

const char *ffu_builder_name(const ffu_builder *b, ffu_node n)
{
	const ffu_inst *in = node_inst(b, n);
	return in ? in->name : "";
}

ffu_status ffu_builder_shape(const ffu_builder *b, ffu_node n, ffu_array_info *info)
{
	const ffu_inst *in = node_inst(b, n);
	if (!in || !info || !ffu__shape_is_array(&in->shape))
		return FFU_STATUS_EINVAL;
	return ffu__api_describe(info, "", &in->shape, "node", n, NULL);
}
