/*
 * src/ir/verify.c: the rules every module must satisfy, whether it came from HLO text or
 * from the builder API, checked before any pass, interpreter or code generator sees it.
 * Owned by the HLO front end; later ops add their rules in check_inst's switch.
 *
 * Violations are FFU_STATUS_EVERIFY; valid HLO that this version cannot run yet (rank > 1,
 * broadcast of a non-scalar) is FFU_STATUS_EUNSUPPORTED. Errors carry the instruction's
 * source position (0:0 for built modules) and name it, so API users can find it too.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"

/* Computation -> index in m->comps, by binary search over pointers (fusion checks). */
typedef struct comp_pos {
	const ffu_computation *c;
	int index;
} comp_pos;

typedef struct vctx {
	const ffu_module *m;
	const char *file;
	ffu_error *e;
	comp_pos *pos; /* m->n_comps entries sorted by pointer */
} vctx;

static int cmp_pos(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const comp_pos *)a)->c, y = (uintptr_t)((const comp_pos *)b)->c;
	return x < y ? -1 : x > y;
}

static int comp_index(const vctx *v, const ffu_computation *c)
{
	comp_pos key = {c, -1};
	const comp_pos *hit = bsearch(&key, v->pos, (size_t)v->m->n_comps, sizeof key, cmp_pos);
	return hit ? hit->index : -1;
}

#define IERR(st, in, ...) inst_err(v, st, in, __VA_ARGS__)

static ffu_status inst_err(const vctx *v, ffu_status st, const ffu_inst *in, const char *fmt, ...)
	FFU_PRINTF(4, 5);

static ffu_status inst_err(const vctx *v, ffu_status st, const ffu_inst *in, const char *fmt, ...)
{
	char msg[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return ffu__err_at(v->e, st, v->file, in->line, in->col, "'%%%s' (%s): %s", in->name ? in->name : "?",
			   ffu__ops[in->op].keyword, msg);
}

static const char *fmt_shape(const ffu_shape *s, char *buf, size_t n)
{
	ffu__shape_format(s, buf, n);
	return buf;
}

/* Structural validity of a shape; depth guards against a cyclic or corrupt elems chain. */
static ffu_status check_shape(const vctx *v, const ffu_inst *in, const ffu_shape *s, int depth)
{
	if (depth > 64)
		return IERR(FFU_STATUS_EVERIFY, in, "tuple shape nested too deeply");
	if (s->type == FFU_TYPE_TUPLE) {
		if (s->n_elems < 0 || (s->n_elems > 0 && !s->elems))
			return IERR(FFU_STATUS_EVERIFY, in, "malformed tuple shape");
		for (int i = 0; i < s->n_elems; i++) {
			ffu_status st = check_shape(v, in, &s->elems[i], depth + 1);
			if (st)
				return st;
		}
		return FFU_STATUS_OK;
	}
	if (s->type < 0 || s->type >= FFU_TYPE_TUPLE)
		return IERR(FFU_STATUS_EVERIFY, in, "invalid element type %d", (int)s->type);
	if (s->rank < 0 || s->rank > FFU_MAX_RANK)
		return IERR(FFU_STATUS_EVERIFY, in, "rank %d is outside 0..%d", s->rank, FFU_MAX_RANK);
	for (int i = 0; i < s->rank; i++)
		if (s->dims[i] < 0)
			return IERR(FFU_STATUS_EVERIFY, in, "negative dimension %lld", (long long)s->dims[i]);
	if (s->rank > 1)
		return IERR(FFU_STATUS_EUNSUPPORTED, in, "arrays of rank %d are not supported yet (rank 0 or 1 only)",
			    s->rank);
	return FFU_STATUS_OK;
}

static bool is_array(const ffu_shape *s)
{
	return s->type >= 0 && s->type < FFU_TYPE_TUPLE;
}

/* Canonical storage bytes are < p (little-endian bytes against p's 64-bit limbs). */
static bool elem_canonical(const ffu_field *f, const unsigned char *x)
{
	return ffu__fp_canonical(f, x); /* u32/u64: every bit pattern is a value */
}

/*
 * power(x, e): x a field array, e a u32/u64 array of x's dimensions, result = x's shape.
 * convert(x): same dimensions, and a conversion fields/field.c defines between the types.
 */
static ffu_status check_power_convert(const vctx *v, const ffu_inst *in)
{
	char a[160], b[160];
	const ffu_shape *s = &in->shape, *x = &in->operands[0]->shape;
	if (!is_array(x))
		return IERR(FFU_STATUS_EVERIFY, in, "operand 0 must be an array, not %s", fmt_shape(x, a, sizeof a));
	bool same_dims = x->rank == s->rank;
	for (int i = 0; same_dims && i < s->rank; i++)
		same_dims = x->dims[i] == s->dims[i];
	if (in->op == FFU_OP_CONVERT) {
		if (!same_dims)
			return IERR(FFU_STATUS_EVERIFY, in, "operand %s and result %s must have the same dimensions",
				    fmt_shape(x, a, sizeof a), fmt_shape(s, b, sizeof b));
		if (!ffu__fp_convert_ok(ffu__shape_field(s), ffu__shape_field(x)))
			return IERR(FFU_STATUS_EVERIFY, in,
				    "no conversion from %s to %s (u32/u64 -> field, field <-> field_mont, 31-bit field -> u32, goldilocks -> u64)",
				    ffu__type_name(x->type), ffu__type_name(s->type));
		return FFU_STATUS_OK;
	}
	const ffu_shape *e = &in->operands[1]->shape;
	if (!ffu__shape_eq(x, s))
		return IERR(FFU_STATUS_EVERIFY, in, "operand 0 ('%%%s') has shape %s, expected the result shape %s",
			    in->operands[0]->name, fmt_shape(x, a, sizeof a), fmt_shape(s, b, sizeof b));
	if (ffu__shape_field(s)->kind == FFU_ELEM_UINT)
		return IERR(FFU_STATUS_EVERIFY, in, "power needs a field base, not %s", ffu__type_name(s->type));
	bool e_dims = is_array(e) && e->rank == s->rank;
	for (int i = 0; e_dims && i < s->rank; i++)
		e_dims = e->dims[i] == s->dims[i];
	if (!e_dims || (e->type != FFU_TYPE_U32 && e->type != FFU_TYPE_U64))
		return IERR(FFU_STATUS_EVERIFY, in, "exponent ('%%%s') is %s; it must be u32 or u64 with the dimensions of %s",
			    in->operands[1]->name, fmt_shape(e, a, sizeof a), fmt_shape(s, b, sizeof b));
	return FFU_STATUS_OK;
}

/* Operand j of in is defined earlier in the same computation (ids may be stale: fall back). */
static bool defined_before(const ffu_computation *c, int pos, const ffu_inst *op)
{
	if (op->id >= 0 && op->id < pos && c->insts[op->id] == op)
		return true;
	for (int k = 0; k < pos; k++)
		if (c->insts[k] == op)
			return true;
	return false;
}

static ffu_status check_inst(const vctx *v, const ffu_computation *c, int pos)
{
	const ffu_inst *in = c->insts[pos];
	char a[160], b[160];
	if (!in)
		return ffu__err(v->e, FFU_STATUS_EVERIFY, "computation '%%%s' has a NULL instruction", c->name);
	if (in->op < 0 || in->op >= FFU_OP_COUNT)
		return ffu__err_at(v->e, FFU_STATUS_EVERIFY, v->file, in->line, in->col, "invalid opcode %d",
				   (int)in->op);
	if (!in->name || !in->name[0])
		return IERR(FFU_STATUS_EVERIFY, in, "instruction has no name");
	if (in->parent != c)
		return IERR(FFU_STATUS_EVERIFY, in, "parent is not computation '%%%s'", c->name);
	const ffu_op_info *oi = &ffu__ops[in->op];
	if (oi->arity >= 0 && in->n_operands != oi->arity)
		return IERR(FFU_STATUS_EVERIFY, in, "takes %d operand%s, has %d", oi->arity,
			    oi->arity == 1 ? "" : "s", in->n_operands);
	if (in->n_operands < 0 || (in->n_operands > 0 && !in->operands))
		return IERR(FFU_STATUS_EVERIFY, in, "malformed operand list");
	for (int j = 0; j < in->n_operands; j++) {
		const ffu_inst *op = in->operands[j];
		if (!op)
			return IERR(FFU_STATUS_EVERIFY, in, "operand %d is NULL", j);
		if (op->parent != c || !defined_before(c, pos, op))
			return IERR(FFU_STATUS_EVERIFY, in, "operand %d ('%%%s') is not defined earlier in computation '%%%s'",
				    j, op->name ? op->name : "?", c->name);
	}
	ffu_status st = check_shape(v, in, &in->shape, 0);
	if (st)
		return st;

	const ffu_shape *s = &in->shape;
	switch (oi->kind) {
	case FFU_KIND_ELEMENTWISE:
		if (!is_array(s))
			return IERR(FFU_STATUS_EVERIFY, in, "result must be an array, not %s", fmt_shape(s, a, sizeof a));
		if (in->op == FFU_OP_POWER || in->op == FFU_OP_CONVERT)
			return check_power_convert(v, in);
		if (ffu__shape_field(s)->kind == FFU_ELEM_UINT)
			return IERR(FFU_STATUS_EVERIFY, in, "%s is a field operation; %s is an integer type",
				    oi->keyword, ffu__type_name(s->type));
		for (int j = 0; j < in->n_operands; j++)
			if (!ffu__shape_eq(&in->operands[j]->shape, s))
				return IERR(FFU_STATUS_EVERIFY, in,
					    "operand %d ('%%%s') has shape %s, expected %s (element-wise operands and result must have identical shapes)",
					    j, in->operands[j]->name, fmt_shape(&in->operands[j]->shape, a, sizeof a),
					    fmt_shape(s, b, sizeof b));
		return FFU_STATUS_OK;
	default:
		break;
	}

	switch (in->op) {
	case FFU_OP_PARAMETER:
		if (!is_array(s))
			return IERR(FFU_STATUS_EVERIFY, in, "parameters must have an array shape, not %s",
				    fmt_shape(s, a, sizeof a));
		if (in->index < 0 || in->index >= c->n_params || !c->params || c->params[in->index] != in)
			return IERR(FFU_STATUS_EVERIFY, in, "parameter number %lld is not slot %lld of the %d parameters of '%%%s'",
				    (long long)in->index, (long long)in->index, c->n_params, c->name);
		return FFU_STATUS_OK;
	case FFU_OP_CONSTANT: {
		if (!is_array(s))
			return IERR(FFU_STATUS_EVERIFY, in, "constants must have an array shape, not %s",
				    fmt_shape(s, a, sizeof a));
		const ffu_field *f = ffu__shape_field(s);
		int64_t n = ffu__shape_count(s);
		if (n > 0 && !in->literal)
			return IERR(FFU_STATUS_EVERIFY, in, "constant has no literal");
		/* The literal holds count * storage_bytes bytes by construction; checking each
		   element is canonical also reads every one of them. */
		for (int64_t k = 0; f && k < n; k++)
			if (!elem_canonical(f, in->literal + (size_t)k * f->storage_bytes))
				return IERR(FFU_STATUS_EVERIFY, in, "literal element %lld is not less than the %s modulus",
					    (long long)k, f->name);
		return FFU_STATUS_OK;
	}
	case FFU_OP_BROADCAST: {
		const ffu_shape *x = &in->operands[0]->shape;
		if (!is_array(s) || !is_array(x))
			return IERR(FFU_STATUS_EVERIFY, in, "broadcast needs array operand and result");
		if (x->type != s->type)
			return IERR(FFU_STATUS_EVERIFY, in, "operand type %s differs from result type %s",
				    ffu__type_name(x->type), ffu__type_name(s->type));
		if (x->rank != 0)
			return IERR(FFU_STATUS_EUNSUPPORTED, in, "broadcast of a non-scalar operand (%s) is not supported yet",
				    fmt_shape(x, a, sizeof a));
		if (in->n_dims != 0)
			return IERR(FFU_STATUS_EVERIFY, in, "dimensions must have one entry per operand dimension: {} for a scalar");
		return FFU_STATUS_OK;
	}
	case FFU_OP_TUPLE:
		if (s->type != FFU_TYPE_TUPLE || s->n_elems != in->n_operands)
			return IERR(FFU_STATUS_EVERIFY, in, "result shape %s must be a tuple of the %d operand shapes",
				    fmt_shape(s, a, sizeof a), in->n_operands);
		for (int j = 0; j < in->n_operands; j++)
			if (!ffu__shape_eq(&s->elems[j], &in->operands[j]->shape))
				return IERR(FFU_STATUS_EVERIFY, in, "tuple element %d is %s but operand '%%%s' is %s", j,
					    fmt_shape(&s->elems[j], a, sizeof a), in->operands[j]->name,
					    fmt_shape(&in->operands[j]->shape, b, sizeof b));
		return FFU_STATUS_OK;
	case FFU_OP_GET_TUPLE_ELEMENT: {
		const ffu_shape *t = &in->operands[0]->shape;
		if (t->type != FFU_TYPE_TUPLE)
			return IERR(FFU_STATUS_EVERIFY, in, "operand '%%%s' is %s, not a tuple", in->operands[0]->name,
				    fmt_shape(t, a, sizeof a));
		if (in->index < 0 || in->index >= t->n_elems)
			return IERR(FFU_STATUS_EVERIFY, in, "tuple index %lld out of range: '%%%s' has %d elements",
				    (long long)in->index, in->operands[0]->name, t->n_elems);
		if (!ffu__shape_eq(s, &t->elems[in->index]))
			return IERR(FFU_STATUS_EVERIFY, in, "result shape %s differs from tuple element %lld (%s)",
				    fmt_shape(s, a, sizeof a), (long long)in->index,
				    fmt_shape(&t->elems[in->index], b, sizeof b));
		return FFU_STATUS_OK;
	}
	case FFU_OP_FUSION: {
		const ffu_computation *f = in->callee;
		int fi = f ? comp_index(v, f) : -1, ci = comp_index(v, c);
		if (!f || fi < 0)
			return IERR(FFU_STATUS_EVERIFY, in, "calls= names no computation of this module");
		if (f->is_entry)
			return IERR(FFU_STATUS_EVERIFY, in, "cannot call the ENTRY computation");
		/* Callees before callers (ir.h): this also rules out recursion. */
		if (fi >= ci)
			return IERR(FFU_STATUS_EVERIFY, in, "callee '%%%s' must come before its caller '%%%s' in the module",
				    f->name, c->name);
		if (in->fusion_kind != FFU_FUSION_LOOP && in->fusion_kind != FFU_FUSION_INPUT)
			return IERR(FFU_STATUS_EVERIFY, in, "invalid fusion kind %d", (int)in->fusion_kind);
		if (in->n_operands != f->n_params)
			return IERR(FFU_STATUS_EVERIFY, in, "has %d operands but '%%%s' takes %d parameters", in->n_operands,
				    f->name, f->n_params);
		for (int j = 0; j < in->n_operands; j++)
			if (!ffu__shape_eq(&in->operands[j]->shape, &f->params[j]->shape))
				return IERR(FFU_STATUS_EVERIFY, in, "operand %d ('%%%s') is %s but parameter %d of '%%%s' is %s", j,
					    in->operands[j]->name, fmt_shape(&in->operands[j]->shape, a, sizeof a), j,
					    f->name, fmt_shape(&f->params[j]->shape, b, sizeof b));
		if (!f->root || !ffu__shape_eq(s, &f->root->shape))
			return IERR(FFU_STATUS_EVERIFY, in, "result shape %s differs from the root of '%%%s' (%s)",
				    fmt_shape(s, a, sizeof a), f->name,
				    f->root ? fmt_shape(&f->root->shape, b, sizeof b) : "none");
		return FFU_STATUS_OK;
	}
	default:
		/* An op added to ops.def without a rule here is a programmer error worth hearing about. */
		return IERR(FFU_STATUS_EUNSUPPORTED, in, "the verifier has no rule for this opcode yet");
	}
}

static ffu_status check_comp(const vctx *v, const ffu_computation *c)
{
	const char *file = v->file;
	if (!c->name || !c->name[0])
		return ffu__err(v->e, FFU_STATUS_EVERIFY, "computation without a name");
	if (c->module != v->m)
		return ffu__err_at(v->e, FFU_STATUS_EVERIFY, file, c->line, c->col,
				   "computation '%%%s' belongs to another module", c->name);
	if (c->n_insts <= 0 || !c->insts)
		return ffu__err_at(v->e, FFU_STATUS_EVERIFY, file, c->line, c->col,
				   "computation '%%%s' has no instructions", c->name);
	if (!c->root)
		return ffu__err_at(v->e, FFU_STATUS_EVERIFY, file, c->line, c->col,
				   "computation '%%%s' has no ROOT", c->name);
	if (c->root->parent != c)
		return ffu__err_at(v->e, FFU_STATUS_EVERIFY, file, c->line, c->col,
				   "ROOT of computation '%%%s' is not one of its instructions", c->name);
	int n_params = 0;
	for (int i = 0; i < c->n_insts; i++) {
		ffu_status st = check_inst(v, c, i);
		if (st)
			return st;
		n_params += c->insts[i]->op == FFU_OP_PARAMETER;
	}
	/* Each parameter sits in its own slot (checked per instruction); the count closes the
	   loop, so params[] holds exactly the parameter instructions, numbered 0..n-1. */
	if (n_params != c->n_params)
		return ffu__err_at(v->e, FFU_STATUS_EVERIFY, file, c->line, c->col,
				   "computation '%%%s' has %d parameter instructions but n_params = %d", c->name,
				   n_params, c->n_params);
	return FFU_STATUS_OK;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Instruction names are unique in the module, computation names among computations. */
static ffu_status check_names(const vctx *v)
{
	size_t n = 0;
	for (int i = 0; i < v->m->n_comps; i++)
		n += (size_t)v->m->comps[i]->n_insts;
	const char **names = malloc((n ? n : 1) * sizeof *names);
	const char **cnames = malloc(((size_t)v->m->n_comps + 1) * sizeof *cnames);
	ffu_status st = FFU_STATUS_OK;
	if (!names || !cnames) {
		st = ffu__err(v->e, FFU_STATUS_ENOMEM, "out of memory verifying the module");
		goto out;
	}
	size_t k = 0;
	for (int i = 0; i < v->m->n_comps; i++) {
		cnames[i] = v->m->comps[i]->name;
		for (int j = 0; j < v->m->comps[i]->n_insts; j++)
			names[k++] = v->m->comps[i]->insts[j]->name;
	}
	qsort(names, n, sizeof *names, cmp_str);
	for (size_t i = 1; i < n; i++) {
		if (strcmp(names[i - 1], names[i]) == 0) {
			st = ffu__err(v->e, FFU_STATUS_EVERIFY, "instruction name '%%%s' is used twice", names[i]);
			goto out;
		}
	}
	qsort(cnames, (size_t)v->m->n_comps, sizeof *cnames, cmp_str);
	for (int i = 1; i < v->m->n_comps; i++) {
		if (strcmp(cnames[i - 1], cnames[i]) == 0) {
			st = ffu__err(v->e, FFU_STATUS_EVERIFY, "computation name '%%%s' is used twice", cnames[i]);
			goto out;
		}
	}
out:
	free(names);
	free(cnames);
	return st;
}

ffu_status ffu__module_verify(const ffu_module *m, const char *file, ffu_error *e)
{
	if (!m)
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu__module_verify: module is NULL");
	vctx v = {m, file ? file : "", e, NULL};
	if (m->n_comps <= 0 || !m->comps)
		return ffu__err_at(e, FFU_STATUS_EVERIFY, v.file, 0, 0, "module has no computations");
	int n_entry = 0;
	for (int i = 0; i < m->n_comps; i++) {
		if (!m->comps[i])
			return ffu__err(e, FFU_STATUS_EVERIFY, "module has a NULL computation");
		n_entry += m->comps[i]->is_entry;
	}
	if (!m->entry || n_entry != 1 || !m->entry->is_entry)
		return ffu__err_at(e, FFU_STATUS_EVERIFY, v.file, 0, 0,
				   "module must have exactly one ENTRY computation (m->entry, is_entry)");
	/* Names first: the per-instruction checks need every instruction to have one. */
	for (int i = 0; i < m->n_comps; i++)
		for (int j = 0; j < m->comps[i]->n_insts; j++)
			if (!m->comps[i]->insts || !m->comps[i]->insts[j] || !m->comps[i]->insts[j]->name)
				return ffu__err(e, FFU_STATUS_EVERIFY, "computation '%%%s' has an unnamed or NULL instruction",
						m->comps[i]->name ? m->comps[i]->name : "?");
	v.pos = malloc(sizeof *v.pos * (size_t)m->n_comps);
	if (!v.pos)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory verifying the module");
	for (int i = 0; i < m->n_comps; i++)
		v.pos[i] = (comp_pos){m->comps[i], i};
	qsort(v.pos, (size_t)m->n_comps, sizeof *v.pos, cmp_pos);
	ffu_status st = FFU_STATUS_OK;
	for (int i = 0; i < m->n_comps && st == FFU_STATUS_OK; i++)
		st = check_comp(&v, m->comps[i]);
	if (st == FFU_STATUS_OK)
		st = check_names(&v);
	free(v.pos);
	return st;
}
