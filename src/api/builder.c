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
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "util/symtab.h"

struct ffu_builder {
	ffu_module *m;             /* NULL once finished */
	ffu_computation *entry;
	ffu_inst **nodes;          /* node -> instruction (malloc'd) */
	int n_nodes, cap_nodes;
	ffu_inst **params;         /* entry parameters in order (malloc'd; copied at finish) */
	int n_params, cap_params;
	ffu_symtab names;          /* instruction names in use -> instruction (exact: rebuilt on rename) */
	unsigned counter;          /* for <opcode>.<n> names */
	ffu_computation *reducers[FFU_TYPE_TUPLE][2]; /* to_apply per element type and kind */
	ffu_error err;             /* the first error; status OK while there is none */
};

/* ---------------------------------------------------------------- errors */

static ffu_node fail(ffu_builder *b, ffu_status st, const char *call, const char *fmt, ...) FFU_PRINTF(4, 5);

/* Records the first error ("CALL: message") and returns FFU_NODE_INVALID. */
static ffu_node fail(ffu_builder *b, ffu_status st, const char *call, const char *fmt, ...)
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
static bool usable(ffu_builder *b, const char *call)
{
	if (!b)
		return false;
	if (b->err.status != FFU_STATUS_OK)
		return false;
	if (!b->m) {
		fail(b, FFU_STATUS_EINVAL, call, "the builder is finished (ffu_builder_finish was called)");
		return false;
	}
	return true;
}

static ffu_inst *node_inst(const ffu_builder *b, ffu_node n)
{
	return b && n >= 0 && n < b->n_nodes ? b->nodes[n] : NULL;
}

/* Operand j of `call`: a node of this builder, or a recorded error naming it. */
static ffu_inst *operand(ffu_builder *b, const char *call, int j, ffu_node n)
{
	ffu_inst *in = node_inst(b, n);
	if (!in)
		fail(b, FFU_STATUS_EINVAL, call, "operand %d is %s", j,
		     n == FFU_NODE_INVALID ? "FFU_NODE_INVALID (from a call that failed)" : "not a node of this builder");
	return in;
}

/* ---------------------------------------------------------------- names */

static bool hlo_name(const char *s)
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

static bool name_taken(const ffu_builder *b, const char *name)
{
	return ffu__sym_get(&b->names, name, strlen(name)) != NULL;
}

static bool comp_name_taken(const ffu_builder *b, const char *name)
{
	return ffu__module_find_comp(b->m, name) != NULL;
}

/* "<base>.<n>", the first not in use (for instructions or, with comp, computations). */
static void fresh_name(ffu_builder *b, char *buf, size_t size, const char *base, bool comp)
{
	do
		snprintf(buf, size, "%s.%u", base, b->counter++);
	while (comp ? comp_name_taken(b, buf) : name_taken(b, buf));
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
typedef void (*attr_fn)(ffu_inst *in, const void *arg);

static ffu_node add(ffu_builder *b, const char *call, ffu_op op, const char *name, const ffu_shape *shape,
		    ffu_inst *const *ops, int n, attr_fn set_attrs, const void *arg)
{
	char auto_name[64];
	if (!name) {
		fresh_name(b, auto_name, sizeof auto_name, ffu__ops[op].keyword, false);
		name = auto_name;
	}
	if (b->n_nodes == b->cap_nodes) {
		int cap = b->cap_nodes ? 2 * b->cap_nodes : 64;
		ffu_inst **nn = realloc(b->nodes, sizeof *nn * (size_t)cap);
		if (!nn)
			return fail(b, FFU_STATUS_ENOMEM, call, "out of memory");
		b->nodes = nn;
		b->cap_nodes = cap;
	}
	ffu_inst *in = ffu__inst_new(b->entry, op, name, shape, ops, n);
	if (!in)
		return fail(b, FFU_STATUS_ENOMEM, call, "out of memory");
	if (set_attrs)
		set_attrs(in, arg);
	ffu_error e = {0};
	ffu_status st = verify_one(b, in, &e);
	if (st) {
		b->entry->n_insts--; /* the instruction was the last one; its arena bytes stay unused */
		return fail(b, st, call, "%s", e.message);
	}
	if (!ffu__sym_put(&b->names, in->name, in)) {
		b->entry->n_insts--;
		return fail(b, FFU_STATUS_ENOMEM, call, "out of memory");
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
	if (!hlo_name(mname))
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
	if (!usable(b, call))
		return report(b, e);
	ffu_inst *r = operand(b, call, 0, root);
	if (!r)
		return report(b, e);
	ffu_computation *c = b->entry;
	c->root = r;
	c->n_params = b->n_params;
	if (b->n_params > 0) {
		c->params = ffu__arena_alloc(&b->m->arena, sizeof *c->params * (size_t)b->n_params);
		if (!c->params) {
			fail(b, FFU_STATUS_ENOMEM, call, "out of memory");
			return report(b, e);
		}
		memcpy(c->params, b->params, sizeof *c->params * (size_t)b->n_params);
	}
	ffu_error ve = {0};
	ffu_status st = ffu__module_verify(b->m, "", &ve);
	if (st) {
		fail(b, st, call, "%s", ve.message);
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
	if (!usable(b, call))
		return b ? b->err.status : FFU_STATUS_EINVAL;
	ffu_inst *in = operand(b, call, 0, n);
	if (!in)
		return b->err.status;
	if (!hlo_name(name)) {
		fail(b, FFU_STATUS_EINVAL, call, "'%s' is not an HLO name ([A-Za-z0-9_.-]+)", name ? name : "(null)");
		return b->err.status;
	}
	if (strcmp(in->name, name) == 0)
		return FFU_STATUS_OK;
	if (name_taken(b, name)) {
		fail(b, FFU_STATUS_EINVAL, call, "name '%s' is already used in the module", name);
		return b->err.status;
	}
	const char *copy = ffu__arena_strdup(&b->m->arena, name);
	if (!copy) {
		fail(b, FFU_STATUS_ENOMEM, call, "out of memory");
		return b->err.status;
	}
	in->name = copy;
	/* the table has no delete: renames are rare, so rebuild it and keep it exact */
	if (!rebuild_names(b)) {
		fail(b, FFU_STATUS_ENOMEM, call, "out of memory");
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

/* ---------------------------------------------------------------- sources */

/* Shape from the public triple, or the error recorded under `call`. */
static bool shape_arg(ffu_builder *b, ffu_shape *s, const char *type, int rank, const int64_t *dims, const char *call)
{
	ffu_error se = {0};
	if (ffu__api_shape(s, type, rank, dims, call, &se) == FFU_STATUS_OK)
		return true;
	/* the helper's message already starts with "CALL: " */
	if (b->err.status == FFU_STATUS_OK)
		b->err = se;
	return false;
}

ffu_node ffu_build_parameter(ffu_builder *b, const char *name, const char *type, int rank, const int64_t *dims)
{
	const char *call = "ffu_build_parameter";
	if (!usable(b, call))
		return FFU_NODE_INVALID;
	if (!hlo_name(name))
		return fail(b, FFU_STATUS_EINVAL, call, "name '%s' is not an HLO name ([A-Za-z0-9_.-]+)",
			    name ? name : "(null)");
	if (name_taken(b, name))
		return fail(b, FFU_STATUS_EINVAL, call, "name '%s' is already used in the module", name);
	ffu_shape s;
	if (!shape_arg(b, &s, type, rank, dims, call))
		return FFU_NODE_INVALID;
	if (b->n_params == b->cap_params) {
		int cap = b->cap_params ? 2 * b->cap_params : 8;
		ffu_inst **np = realloc(b->params, sizeof *np * (size_t)cap);
		if (!np)
			return fail(b, FFU_STATUS_ENOMEM, call, "out of memory");
		b->params = np;
		b->cap_params = cap;
	}
	ffu_node n = add(b, call, FFU_OP_PARAMETER, name, &s, NULL, 0, NULL, NULL);
	if (n == FFU_NODE_INVALID)
		return n;
	b->nodes[n]->index = b->n_params;
	b->params[b->n_params++] = b->nodes[n];
	return n;
}

static void set_literal(ffu_inst *in, const void *arg)
{
	in->literal = (unsigned char *)arg;
}

ffu_node ffu_build_constant(ffu_builder *b, const char *type, int rank, const int64_t *dims, const void *data,
			    size_t bytes)
{
	const char *call = "ffu_build_constant";
	ffu_shape s;
	if (!usable(b, call) || !shape_arg(b, &s, type, rank, dims, call))
		return FFU_NODE_INVALID;
	uint64_t count = (uint64_t)ffu__shape_count(&s), eb = ffu__shape_elem_bytes(&s);
	if (eb && count > SIZE_MAX / eb)
		return fail(b, FFU_STATUS_EINVAL, call, "the literal is too large for host memory");
	size_t want = (size_t)(count * eb);
	if (bytes != want)
		return fail(b, FFU_STATUS_EINVAL, call, "%zu bytes given; %s needs %zu (%llu elements of %llu bytes)", bytes,
			    type, want, (unsigned long long)count, (unsigned long long)eb);
	if (want && !data)
		return fail(b, FFU_STATUS_EINVAL, call, "data is NULL");
	unsigned char *lit = ffu__arena_alloc(&b->m->arena, want ? want : 1);
	if (!lit)
		return fail(b, FFU_STATUS_ENOMEM, call, "out of memory");
	if (want)
		memcpy(lit, data, want);
	return add(b, call, FFU_OP_CONSTANT, NULL, &s, NULL, 0, set_literal, lit);
}

ffu_node ffu_build_constant_u64(ffu_builder *b, const char *type, uint64_t value)
{
	const char *call = "ffu_build_constant_u64";
	ffu_shape s;
	if (!usable(b, call) || !shape_arg(b, &s, type, 0, NULL, call))
		return FFU_NODE_INVALID;
	const ffu_field *f = ffu__shape_field(&s);
	/* an extension's value is its constant coefficient: the first coefficient's bytes */
	size_t cb = f->prime ? f->prime->storage_bytes : f->storage_bytes;
	unsigned char buf[FFU_FIELD_MAX_BYTES] = {0};
	for (size_t i = 0; i < 8; i++) {
		unsigned char byte = (unsigned char)(value >> (8 * i));
		if (i < cb)
			buf[i] = byte;
		else if (byte)
			return fail(b, FFU_STATUS_EINVAL, call, "%llu does not fit a %s element", (unsigned long long)value,
				    type);
	}
	return ffu_build_constant(b, type, 0, NULL, buf, f->storage_bytes);
}

static void set_index(ffu_inst *in, const void *arg)
{
	in->index = *(const int64_t *)arg;
}

ffu_node ffu_build_iota(ffu_builder *b, const char *type, int rank, const int64_t *dims, int dimension)
{
	const char *call = "ffu_build_iota";
	ffu_shape s;
	if (!usable(b, call) || !shape_arg(b, &s, type, rank, dims, call))
		return FFU_NODE_INVALID;
	int64_t d = dimension;
	return add(b, call, FFU_OP_IOTA, NULL, &s, NULL, 0, set_index, &d);
}

/* ---------------------------------------------------------------- element-wise */

/* An element-wise op whose result has operand `like`'s shape (with `type` if not INVALID). */
static ffu_node elementwise(ffu_builder *b, const char *call, ffu_op op, const ffu_node *xs, int n, int like,
			    ffu_type type, attr_fn set_attrs, const void *arg)
{
	ffu_inst *ops[3];
	if (!usable(b, call))
		return FFU_NODE_INVALID;
	for (int j = 0; j < n; j++)
		if (!(ops[j] = operand(b, call, j, xs[j])))
			return FFU_NODE_INVALID;
	ffu_shape s = ops[like]->shape;
	if (type != FFU_TYPE_INVALID) {
		/* convert/compare: the operand's dimensions with another type (a non-array operand
		   keeps its shape, and the verifier names the problem) */
		if (ffu__shape_is_array(&s))
			s.type = type;
	}
	return add(b, call, op, NULL, &s, ops, n, set_attrs, arg);
}

ffu_node ffu_build_add(ffu_builder *b, ffu_node x, ffu_node y)
{
	return elementwise(b, "ffu_build_add", FFU_OP_ADD, (ffu_node[]){x, y}, 2, 0, FFU_TYPE_INVALID, NULL, NULL);
}

ffu_node ffu_build_subtract(ffu_builder *b, ffu_node x, ffu_node y)
{
	return elementwise(b, "ffu_build_subtract", FFU_OP_SUBTRACT, (ffu_node[]){x, y}, 2, 0, FFU_TYPE_INVALID, NULL,
			   NULL);
}

ffu_node ffu_build_multiply(ffu_builder *b, ffu_node x, ffu_node y)
{
	return elementwise(b, "ffu_build_multiply", FFU_OP_MULTIPLY, (ffu_node[]){x, y}, 2, 0, FFU_TYPE_INVALID, NULL,
			   NULL);
}

ffu_node ffu_build_divide(ffu_builder *b, ffu_node x, ffu_node y)
{
	return elementwise(b, "ffu_build_divide", FFU_OP_DIVIDE, (ffu_node[]){x, y}, 2, 0, FFU_TYPE_INVALID, NULL, NULL);
}

ffu_node ffu_build_negate(ffu_builder *b, ffu_node x)
{
	return elementwise(b, "ffu_build_negate", FFU_OP_NEGATE, &x, 1, 0, FFU_TYPE_INVALID, NULL, NULL);
}

ffu_node ffu_build_inverse(ffu_builder *b, ffu_node x)
{
	return elementwise(b, "ffu_build_inverse", FFU_OP_INVERSE, &x, 1, 0, FFU_TYPE_INVALID, NULL, NULL);
}

ffu_node ffu_build_power(ffu_builder *b, ffu_node x, ffu_node e)
{
	return elementwise(b, "ffu_build_power", FFU_OP_POWER, (ffu_node[]){x, e}, 2, 0, FFU_TYPE_INVALID, NULL, NULL);
}

static void set_direction(ffu_inst *in, const void *arg)
{
	in->direction = *(const ffu_compare_dir *)arg;
}

ffu_node ffu_build_compare(ffu_builder *b, ffu_node x, ffu_node y, ffu_compare_direction dir)
{
	const char *call = "ffu_build_compare";
	if (dir != FFU_COMPARE_EQ && dir != FFU_COMPARE_NE) {
		if (usable(b, call))
			fail(b, FFU_STATUS_EINVAL, call, "direction %d is neither FFU_COMPARE_EQ nor FFU_COMPARE_NE", (int)dir);
		return FFU_NODE_INVALID;
	}
	ffu_compare_dir d = dir == FFU_COMPARE_EQ ? FFU_CMP_EQ : FFU_CMP_NE;
	return elementwise(b, call, FFU_OP_COMPARE, (ffu_node[]){x, y}, 2, 0, FFU_TYPE_PRED, set_direction, &d);
}

ffu_node ffu_build_select(ffu_builder *b, ffu_node p, ffu_node t, ffu_node f)
{
	return elementwise(b, "ffu_build_select", FFU_OP_SELECT, (ffu_node[]){p, t, f}, 3, 1, FFU_TYPE_INVALID, NULL,
			   NULL);
}

ffu_node ffu_build_convert(ffu_builder *b, ffu_node x, const char *type)
{
	const char *call = "ffu_build_convert";
	ffu_type t = type ? ffu__type_by_name(type, strlen(type)) : FFU_TYPE_INVALID;
	if (t == FFU_TYPE_INVALID) {
		if (usable(b, call))
			fail(b, FFU_STATUS_EINVAL, call, "unknown element type '%s'", type ? type : "(null)");
		return FFU_NODE_INVALID;
	}
	return elementwise(b, call, FFU_OP_CONVERT, &x, 1, 0, t, NULL, NULL);
}

/* ---------------------------------------------------------------- layout */

typedef struct dims_arg {
	const int64_t *dims;
	int n;
	ffu_arena *arena;
} dims_arg;

static void set_dims(ffu_inst *in, const void *arg)
{
	const dims_arg *a = arg;
	in->n_dims = a->n;
	if (a->n > 0 && (in->dims = ffu__arena_alloc(a->arena, sizeof *in->dims * (size_t)a->n)))
		memcpy(in->dims, a->dims, sizeof *in->dims * (size_t)a->n);
	else if (a->n > 0)
		in->n_dims = -1; /* out of memory: the verifier refuses a malformed list */
}

ffu_node ffu_build_broadcast(ffu_builder *b, ffu_node x, int rank, const int64_t *dims, const int64_t *map, int n_map)
{
	const char *call = "ffu_build_broadcast";
	if (!usable(b, call))
		return FFU_NODE_INVALID;
	ffu_inst *in = operand(b, call, 0, x);
	if (!in)
		return FFU_NODE_INVALID;
	if (n_map < 0 || n_map > FFU_MAX_RANK || (n_map > 0 && !map))
		return fail(b, FFU_STATUS_EINVAL, call, "map must list 0..%d dimensions (n_map = %d%s)", FFU_MAX_RANK, n_map,
			    n_map > 0 && !map ? ", map NULL" : "");
	ffu_shape s;
	const char *type = ffu__shape_is_array(&in->shape) ? ffu__type_name(in->shape.type) : "(tuple)";
	if (!shape_arg(b, &s, type, rank, dims, call))
		return FFU_NODE_INVALID;
	dims_arg a = {map, n_map, &b->m->arena};
	return add(b, call, FFU_OP_BROADCAST, NULL, &s, &in, 1, set_dims, &a);
}

typedef struct slice_arg {
	const int64_t *start, *limit, *stride;
	int rank;
} slice_arg;

static void set_slice(ffu_inst *in, const void *arg)
{
	const slice_arg *a = arg;
	for (int d = 0; d < a->rank; d++) {
		in->slice_start[d] = a->start[d];
		in->slice_limit[d] = a->limit[d];
		in->slice_stride[d] = a->stride ? a->stride[d] : 1;
	}
}

ffu_node ffu_build_slice(ffu_builder *b, ffu_node x, const int64_t *start, const int64_t *limit, const int64_t *stride)
{
	const char *call = "ffu_build_slice";
	if (!usable(b, call))
		return FFU_NODE_INVALID;
	ffu_inst *in = operand(b, call, 0, x);
	if (!in)
		return FFU_NODE_INVALID;
	ffu_shape s = in->shape;
	slice_arg a = {start, limit, stride, ffu__shape_is_array(&s) ? s.rank : 0};
	if (a.rank > 0 && (!start || !limit))
		return fail(b, FFU_STATUS_EINVAL, call, "start and limit need one entry per dimension of '%%%s'", in->name);
	/* the result's extent per dimension; ranges out of bounds are the verifier's to name */
	for (int d = 0; d < a.rank; d++) {
		int64_t lo = start[d], hi = limit[d], step = stride ? stride[d] : 1;
		s.dims[d] = step >= 1 && lo >= 0 && hi >= lo ? (hi - lo) / step + ((hi - lo) % step != 0) : 0;
	}
	return add(b, call, FFU_OP_SLICE, NULL, &s, &in, 1, set_slice, &a);
}

ffu_node ffu_build_concatenate(ffu_builder *b, const ffu_node *xs, int n, int dimension)
{
	const char *call = "ffu_build_concatenate";
	if (!usable(b, call))
		return FFU_NODE_INVALID;
	if (n < 1 || !xs)
		return fail(b, FFU_STATUS_EINVAL, call, "needs at least one operand (n = %d%s)", n, xs ? "" : ", xs NULL");
	ffu_inst **ops = calloc((size_t)n, sizeof *ops);
	if (!ops)
		return fail(b, FFU_STATUS_ENOMEM, call, "out of memory");
	ffu_node r = FFU_NODE_INVALID;
	for (int j = 0; j < n; j++)
		if (!(ops[j] = operand(b, call, j, xs[j])))
			goto out;
	ffu_shape s = ops[0]->shape;
	if (ffu__shape_is_array(&s) && dimension >= 0 && dimension < s.rank) {
		int64_t sum = 0;
		for (int j = 0; j < n; j++) {
			const ffu_shape *o = &ops[j]->shape;
			int64_t v = ffu__shape_is_array(o) && o->rank == s.rank ? o->dims[dimension] : 0;
			sum = v > INT64_MAX - sum ? INT64_MAX : sum + v;
		}
		s.dims[dimension] = sum;
	}
	int64_t d = dimension;
	dims_arg a = {&d, 1, &b->m->arena};
	r = add(b, call, FFU_OP_CONCATENATE, NULL, &s, ops, n, set_dims, &a);
out:
	free(ops);
	return r;
}

ffu_node ffu_build_reshape(ffu_builder *b, ffu_node x, int rank, const int64_t *dims)
{
	const char *call = "ffu_build_reshape";
	if (!usable(b, call))
		return FFU_NODE_INVALID;
	ffu_inst *in = operand(b, call, 0, x);
	if (!in)
		return FFU_NODE_INVALID;
	ffu_shape s;
	const char *type = ffu__shape_is_array(&in->shape) ? ffu__type_name(in->shape.type) : "(tuple)";
	if (!shape_arg(b, &s, type, rank, dims, call))
		return FFU_NODE_INVALID;
	return add(b, call, FFU_OP_RESHAPE, NULL, &s, &in, 1, NULL, NULL);
}

/* ---------------------------------------------------------------- reductions and tuples */

/*
 * The to_apply computation of a sum or product over `type`: `%sum` / `%product` (or
 * `.<n>` if taken) with parameters `<name>.x`, `<name>.y` and ROOT `<name>.r`, made once
 * per type and kind and placed before the entry (callees come first in a module).
 */
static ffu_computation *reducer(ffu_builder *b, ffu_type type, ffu_reduce_kind kind)
{
	ffu_computation **slot = &b->reducers[type][kind];
	if (*slot)
		return *slot;
	const char *base = kind == FFU_REDUCE_SUM ? "sum" : "product";
	char name[64], px[96], py[96], pr[96];
	if (comp_name_taken(b, base))
		fresh_name(b, name, sizeof name, base, true);
	else
		snprintf(name, sizeof name, "%s", base);
	snprintf(px, sizeof px, "%s.x", name);
	snprintf(py, sizeof py, "%s.y", name);
	snprintf(pr, sizeof pr, "%s.r", name);
	if (name_taken(b, px) || name_taken(b, py) || name_taken(b, pr))
		return NULL; /* the user took one: reported as a name clash by the caller */
	ffu_shape scalar = {.type = type};
	ffu_computation *c = ffu__comp_new(b->m, name);
	ffu_inst *x = c ? ffu__inst_new(c, FFU_OP_PARAMETER, px, &scalar, NULL, 0) : NULL;
	ffu_inst *y = x ? ffu__inst_new(c, FFU_OP_PARAMETER, py, &scalar, NULL, 0) : NULL;
	ffu_inst *r = y ? ffu__inst_new(c, kind == FFU_REDUCE_SUM ? FFU_OP_ADD : FFU_OP_MULTIPLY, pr, &scalar,
					(ffu_inst *[]){x, y}, 2)
			: NULL;
	if (!r || !(c->params = ffu__arena_alloc(&b->m->arena, 2 * sizeof *c->params)) ||
	    !ffu__sym_put(&b->names, x->name, x) || !ffu__sym_put(&b->names, y->name, y) ||
	    !ffu__sym_put(&b->names, r->name, r))
		return NULL;
	y->index = 1;
	c->params[0] = x;
	c->params[1] = y;
	c->n_params = 2;
	c->root = r;
	/* ffu__comp_new appended it after the entry: swap so the entry stays last */
	ffu_computation **comps = b->m->comps;
	int n = b->m->n_comps;
	comps[n - 1] = comps[n - 2];
	comps[n - 2] = c;
	*slot = c;
	return c;
}

typedef struct reduce_arg {
	dims_arg dims;
	ffu_computation *callee;
	ffu_op fn;
} reduce_arg;

static void set_reduce(ffu_inst *in, const void *arg)
{
	const reduce_arg *a = arg;
	set_dims(in, &a->dims);
	in->callee = a->callee;
	in->reduce_fn = a->fn;
}

ffu_node ffu_build_reduce(ffu_builder *b, ffu_node x, ffu_node init, const int64_t *dims, int n_dims,
			  ffu_reduce_kind kind)
{
	const char *call = "ffu_build_reduce";
	if (!usable(b, call))
		return FFU_NODE_INVALID;
	ffu_inst *ops[2];
	if (!(ops[0] = operand(b, call, 0, x)) || !(ops[1] = operand(b, call, 1, init)))
		return FFU_NODE_INVALID;
	if (kind != FFU_REDUCE_SUM && kind != FFU_REDUCE_PRODUCT)
		return fail(b, FFU_STATUS_EINVAL, call, "kind %d is neither FFU_REDUCE_SUM nor FFU_REDUCE_PRODUCT", (int)kind);
	if (n_dims < 0 || n_dims > FFU_MAX_RANK || (n_dims > 0 && !dims))
		return fail(b, FFU_STATUS_EINVAL, call, "dims must list 0..%d dimensions (n_dims = %d%s)", FFU_MAX_RANK,
			    n_dims, n_dims > 0 && !dims ? ", dims NULL" : "");
	const ffu_shape *xs = &ops[0]->shape;
	ffu_shape s = {.type = xs->type};
	reduce_arg a = {{dims, n_dims, &b->m->arena}, NULL, kind == FFU_REDUCE_SUM ? FFU_OP_ADD : FFU_OP_MULTIPLY};
	if (ffu__shape_is_array(xs)) {
		/* the dimensions not folded, in order; invalid entries are the verifier's to name */
		bool folded[FFU_MAX_RANK] = {false};
		for (int i = 0; i < n_dims; i++)
			if (dims[i] >= 0 && dims[i] < xs->rank)
				folded[dims[i]] = true;
		for (int d = 0; d < xs->rank; d++)
			if (!folded[d])
				s.dims[s.rank++] = xs->dims[d];
		/* only a field array gets a to_apply: for others the verifier reports the type */
		ffu_elem_kind k = ffu__shape_field(xs)->kind;
		if (k != FFU_ELEM_UINT && k != FFU_ELEM_PRED && !(a.callee = reducer(b, xs->type, kind)))
			return fail(b, FFU_STATUS_ENOMEM, call,
				    "cannot create the %s computation (out of memory, or its names are taken)",
				    kind == FFU_REDUCE_SUM ? "sum" : "product");
	} else {
		s = *xs;
	}
	return add(b, call, FFU_OP_REDUCE, NULL, &s, ops, 2, set_reduce, &a);
}

ffu_node ffu_build_tuple(ffu_builder *b, const ffu_node *xs, int n)
{
	const char *call = "ffu_build_tuple";
	if (!usable(b, call))
		return FFU_NODE_INVALID;
	if (n < 0 || (n > 0 && !xs))
		return fail(b, FFU_STATUS_EINVAL, call, "n = %d%s", n, n > 0 && !xs ? " with xs NULL" : " is negative");
	ffu_inst **ops = calloc((size_t)n + 1, sizeof *ops);
	ffu_shape *elems = ops && n ? ffu__arena_alloc(&b->m->arena, sizeof *elems * (size_t)n) : NULL;
	ffu_node r = FFU_NODE_INVALID;
	if (!ops || (n && !elems)) {
		fail(b, FFU_STATUS_ENOMEM, call, "out of memory");
		goto out;
	}
	for (int j = 0; j < n; j++) {
		if (!(ops[j] = operand(b, call, j, xs[j])))
			goto out;
		elems[j] = ops[j]->shape; /* inst_new deep-copies the whole tuple shape */
	}
	ffu_shape s = {.type = FFU_TYPE_TUPLE, .n_elems = n, .elems = elems};
	r = add(b, call, FFU_OP_TUPLE, NULL, &s, ops, n, NULL, NULL);
out:
	free(ops);
	return r;
}

ffu_node ffu_build_get_tuple_element(ffu_builder *b, ffu_node t, int index)
{
	const char *call = "ffu_build_get_tuple_element";
	if (!usable(b, call))
		return FFU_NODE_INVALID;
	ffu_inst *in = operand(b, call, 0, t);
	if (!in)
		return FFU_NODE_INVALID;
	const ffu_shape *ts = &in->shape;
	/* out of range or not a tuple: keep the operand's shape, the verifier names the problem */
	const ffu_shape *s = ts->type == FFU_TYPE_TUPLE && index >= 0 && index < ts->n_elems ? &ts->elems[index] : ts;
	int64_t i = index;
	return add(b, call, FFU_OP_GET_TUPLE_ELEMENT, NULL, s, &in, 1, set_index, &i);
}
