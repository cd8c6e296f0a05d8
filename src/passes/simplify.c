/*
 * passes/simplify.c: constant folding and algebraic identities (see passes.h).
 *
 * One forward sweep over the entry computation. Each instruction first gets its operands'
 * replacements, then is rewritten until no rule applies (at most MAX_STEPS times): a rule
 * either names an existing instruction that computes the same value (x + 0 -> x), or
 * rewrites the instruction in place, keeping its name (x - x -> broadcast(0)); new helper
 * constants and broadcasts go into the list just before it. Replaced instructions leave the
 * list; whatever nothing reads any more is dce's to drop.
 *
 * A "splat" is a value whose elements all equal one constant: a scalar constant, an
 * array constant of equal elements, or a broadcast, reshape or slice of a splat. The
 * canonical splat of an array shape is broadcast(scalar constant), dimensions={}.
 *
 * Rules (x, y: any values; c, d: splats; K: a splat or a constant array of at most
 * FOLD_MAX_ELEMS elements):
 *   folding      an element-wise op whose operands are all splats -> the canonical splat
 *                of its value; with K operands and a result of at most FOLD_MAX_ELEMS
 *                elements -> an array constant; the same for reshape, slice, broadcast,
 *                concatenate; reduce(c, d) -> splat (init + n*c, or init * c^n); reduce
 *                of a small constant array -> constant
 *   add          x + 0, 0 + x -> x
 *   subtract     x - 0 -> x;  x - x -> 0;  0 - x -> negate(x)
 *   multiply     x * 1, 1 * x -> x;  x * 0, 0 * x -> 0;  x * -1, -1 * x -> negate(x);
 *                x * x -> square(x) (one spelling, so that cse meets it once)
 *   negate       negate(negate(x)) -> x
 *   inverse      inverse(inverse(x)) -> x  (inverse(0) = 0, so it is an involution)
 *   divide       0 / x -> 0 (also x = 0: x / 0 = 0);  x / c -> x * inverse(c), so x / 1 -> x
 *                and x / 0 -> x * 0 -> 0, as ZKX defines it.  x / x is not 1 (0 / 0 = 0).
 *   power        power(x, 0) -> 1 (also for x = 0);  power(x, 1) -> x;
 *                power(x, 2) -> square(x)
 *   convert      convert to the same type -> x;  convert(convert(x: A) -> B) -> A is x
 *                when A is a field or _mont type (every such conversion is injective;
 *                u32 -> field -> u32 is not: it reduces mod p)
 *   compare      compare(x, x) -> splat true (EQ) or false (NE)
 *   select       select(p, x, x) -> x;  select(c, x, y) -> x or y
 *   reshape      to its operand's shape -> x;  reshape(reshape(x)) -> reshape(x)
 *   slice        the whole operand, stride 1 -> x;  slice(slice(x)) -> one slice
 *   broadcast    to its operand's shape -> x;  broadcast(broadcast(x)) -> one broadcast
 *   concatenate  of one operand -> x
 *   get-tuple-element(tuple(..., x, ...)) -> x
 * Points (elliptic-curve types) are never folded: their ops' operand kinds differ from the
 * result's (affine + affine -> jacobian), which eval_elem does not know; the identities
 * above that need arithmetic are for field types only, and the structural ones (negate of
 * negate, convert of convert between twins, compare(x, x), select, the layout ops) hold
 * for points as they are.
 *
 * Values of one type are compared as storage bytes, which are unique per value (canonical
 * storage; for a _mont type x * R mod p). The constants a rule looks for are built with
 * ffu__fp_set_u64 in the instruction's own type, which gives 1 as R mod p for a _mont
 * type, so "x * 1" means the value one there, not the literal 1. Identities apply to field
 * types only (prime, _mont, extension): arithmetic on u32, u64 and pred does not verify.
 *
 * Only the entry is rewritten: a reduce's to_apply has a fixed form, and a fused
 * computation given as input is the user's kernel. The entry's parameters are never
 * touched; the ROOT may become another instruction with the same shape and values.
 */
#include <stdlib.h>
#include <string.h>

#include "passes/passes.h"

/* Largest array constant the pass creates or reads element by element. */
enum { FOLD_MAX_ELEMS = 4096, MAX_STEPS = 8, SPLAT_DEPTH = 16 };

typedef struct simp {
	ffu_module *m;
	ffu_computation *c;
	ffu_inst **orig; /* the entry's list before the pass */
	int n;
	ffu_inst **map;  /* original id -> the instruction now computing its value */
	ffu_inst **out;  /* the new list */
	int n_out, cap_out;
	bool oom;
} simp;

static const ffu_field *fld(const ffu_inst *in)
{
	return ffu__shape_field(&in->shape);
}

/* The types with field arithmetic: identities hold there. */
static bool is_arith(const ffu_field *f)
{
	return f && (f->kind == FFU_ELEM_PRIME || f->kind == FFU_ELEM_MONT || f->kind == FFU_ELEM_EXT);
}

static bool push(simp *s, ffu_inst *in)
{
	if (s->n_out == s->cap_out) {
		int cap = s->cap_out ? s->cap_out * 2 : 64;
		ffu_inst **p = realloc(s->out, sizeof *p * (size_t)cap);
		if (!p)
			return !(s->oom = true);
		s->out = p;
		s->cap_out = cap;
	}
	s->out[s->n_out++] = in;
	return true;
}

/* ---- splats and constants ---- */

/*
 * Are all elements of in one constant value? Gives it (storage bytes of in's type) and,
 * when the value comes from a scalar constant instruction, that instruction (so a folded
 * broadcast can reuse it).
 */
static bool splat(const ffu_inst *in, unsigned char *val, const ffu_inst **src, int depth)
{
	if (depth > SPLAT_DEPTH || !ffu__shape_is_array(&in->shape))
		return false;
	switch (in->op) {
	case FFU_OP_CONSTANT: {
		size_t eb = ffu__shape_elem_bytes(&in->shape);
		int64_t n = ffu__shape_count(&in->shape);
		if (!in->literal || n < 1 || n > FOLD_MAX_ELEMS)
			return false;
		for (int64_t i = 1; i < n; i++)
			if (memcmp(in->literal + (size_t)i * eb, in->literal, eb) != 0)
				return false;
		memcpy(val, in->literal, eb);
		if (src)
			*src = in->shape.rank == 0 ? in : NULL;
		return true;
	}
	case FFU_OP_BROADCAST:
	case FFU_OP_RESHAPE:
	case FFU_OP_SLICE:
	case FFU_OP_REVERSE:
	case FFU_OP_BIT_REVERSE:
		return splat(in->operands[0], val, src, depth + 1);
	default:
		return false;
	}
}

/* Is in a splat of the value k (0, 1 or -1) of its own type? */
static bool is_k(const ffu_inst *in, int k)
{
	const ffu_field *f = fld(in);
	unsigned char v[FFU_FIELD_MAX_BYTES], w[FFU_FIELD_MAX_BYTES];
	if (!is_arith(f) || !splat(in, v, NULL, 0))
		return false;
	ffu__fp_set_u64(f, w, k < 0 ? 1 : (uint64_t)k);
	if (k < 0)
		ffu__fp_neg(f, w, w, NULL);
	return ffu__fp_eq(f, v, w);
}

/* broadcast(scalar constant), dimensions={}: the form folding produces; nothing to fold. */
static bool is_canonical_splat(const ffu_inst *in)
{
	return in->op == FFU_OP_BROADCAST && in->operands[0]->op == FFU_OP_CONSTANT && in->operands[0]->shape.rank == 0;
}

static unsigned char *copy_bytes(simp *s, const void *src, size_t n)
{
	unsigned char *p = ffu__arena_alloc(&s->m->arena, n);
	if (!p)
		s->oom = true;
	else if (n)
		memcpy(p, src, n);
	return p;
}

/* A new instruction placed before the one being rewritten. */
static ffu_inst *new_inst(simp *s, ffu_op op, const char *base, const ffu_shape *shape, ffu_inst *const *ops, int n)
{
	ffu_inst *in = ffu__inst_alloc(s->c, op, ffu__module_unique_name(s->m, base), shape, ops, n);
	if (!in || !push(s, in)) {
		s->oom = true;
		return NULL;
	}
	return in;
}

static ffu_inst *new_scalar(simp *s, ffu_type t, const unsigned char *v)
{
	ffu_shape sh = {.type = t, .rank = 0};
	ffu_inst *k = new_inst(s, FFU_OP_CONSTANT, "constant", &sh, NULL, 0);
	if (k)
		k->literal = copy_bytes(s, v, ffu__shape_elem_bytes(&sh));
	return k && k->literal ? k : NULL;
}

/* ---- rewriting in place ---- */

static void clear_attrs(ffu_inst *in)
{
	in->index = 0;
	in->literal = NULL;
	in->n_dims = 0;
	in->dims = NULL;
	memset(in->slice_start, 0, sizeof in->slice_start);
	memset(in->slice_limit, 0, sizeof in->slice_limit);
	memset(in->slice_stride, 0, sizeof in->slice_stride);
	in->direction = FFU_CMP_EQ;
	in->callee = NULL;
	in->reduce_fn = FFU_OP_ADD;
	in->fusion_kind = FFU_FUSION_LOOP;
}

/* in becomes op(ops...), its attributes cleared; returns in (NULL on out of memory). */
static ffu_inst *become(simp *s, ffu_inst *in, ffu_op op, ffu_inst *const *ops, int n)
{
	ffu_inst **arr = NULL;
	if (n > 0) {
		arr = ffu__arena_alloc(&s->m->arena, sizeof *arr * (size_t)n);
		if (!arr) {
			s->oom = true;
			return NULL;
		}
		memcpy(arr, ops, sizeof *arr * (size_t)n);
	}
	clear_attrs(in);
	in->op = op;
	in->operands = arr;
	in->n_operands = n;
	return in;
}

static ffu_inst *become1(simp *s, ffu_inst *in, ffu_op op, ffu_inst *a)
{
	return become(s, in, op, &a, 1);
}

static ffu_inst *become2(simp *s, ffu_inst *in, ffu_op op, ffu_inst *a, ffu_inst *b)
{
	ffu_inst *ops[2] = {a, b};
	return become(s, in, op, ops, 2);
}

/* in becomes a constant holding lit (in's element count, storage bytes). */
static ffu_inst *become_constant(simp *s, ffu_inst *in, unsigned char *lit)
{
	if (!become(s, in, FFU_OP_CONSTANT, NULL, 0))
		return NULL;
	in->literal = lit;
	return in;
}

/* in becomes the canonical splat of v: a scalar constant, or broadcast(src or a new one). */
static ffu_inst *become_splat(simp *s, ffu_inst *in, const unsigned char *v, const ffu_inst *src)
{
	if (in->shape.rank == 0) {
		unsigned char *lit = copy_bytes(s, v, ffu__shape_elem_bytes(&in->shape));
		return lit ? become_constant(s, in, lit) : NULL;
	}
	ffu_inst *k = src ? (ffu_inst *)src : new_scalar(s, in->shape.type, v);
	return k ? become1(s, in, FFU_OP_BROADCAST, k) : NULL;
}

static ffu_inst *become_splat_k(simp *s, ffu_inst *in, uint64_t k)
{
	unsigned char v[FFU_FIELD_MAX_BYTES];
	ffu__fp_set_u64(fld(in), v, k);
	return become_splat(s, in, v, NULL);
}

/* ---- folding ---- */

/* A constant operand: a splat, or an array constant of at most FOLD_MAX_ELEMS elements. */
typedef struct cval {
	const unsigned char *lit; /* NULL for a splat */
	unsigned char val[FFU_FIELD_MAX_BYTES];
	const ffu_inst *src;      /* a splat's scalar constant, if any */
	size_t eb;
} cval;

static bool const_value(const ffu_inst *in, cval *cv)
{
	cv->eb = ffu__shape_elem_bytes(&in->shape);
	cv->lit = NULL;
	cv->src = NULL;
	if (splat(in, cv->val, &cv->src, 0))
		return true;
	if (in->op != FFU_OP_CONSTANT || !in->literal || ffu__shape_count(&in->shape) > FOLD_MAX_ELEMS)
		return false;
	cv->lit = in->literal;
	return true;
}

static const unsigned char *cv_at(const cval *cv, int64_t i)
{
	return cv->lit ? cv->lit + (size_t)i * cv->eb : cv->val;
}

/* One element of an element-wise op, as the interpreter computes it. */
static bool eval_elem(const ffu_inst *in, unsigned char *out, const unsigned char *const *a)
{
	const ffu_field *f = fld(in);
	switch (in->op) {
	case FFU_OP_POWER:
		ffu__fp_pow(f, out, a[0], ffu__fp_get_u64(fld(in->operands[1]), a[1]));
		return true;
	case FFU_OP_CONVERT:
		return ffu__fp_convert(f, out, fld(in->operands[0]), a[0]);
	case FFU_OP_COMPARE:
		out[0] = ffu__order_compare(in, a[0], a[1]);
		return true;
	case FFU_OP_MAXIMUM:
	case FFU_OP_MINIMUM:
	case FFU_OP_CLAMP:
		ffu__order_eval(in, out, a);
		return true;
	case FFU_OP_SELECT:
		memcpy(out, a[0][0] ? a[1] : a[2], f->storage_bytes);
		return true;
	default:
		if (!ffu__ops[in->op].host_fn)
			return false;
		ffu__ops[in->op].host_fn(f, out, a[0], in->n_operands > 1 ? a[1] : a[0]);
		return true;
	}
}

static ffu_inst *fold_elementwise(simp *s, ffu_inst *in, bool *changed)
{
	cval cv[3];
	const unsigned char *args[3];
	bool all_splat = true;
	if (in->n_operands > 3 || fld(in)->kind == FFU_ELEM_POINT)
		return in;
	for (int j = 0; j < in->n_operands; j++) {
		/* points: the operand kinds differ from the result's (fields/point.h), which the
		   element evaluator above does not know; the device computes them */
		if (fld(in->operands[j])->kind == FFU_ELEM_POINT || !const_value(in->operands[j], &cv[j]))
			return in;
		all_splat &= cv[j].lit == NULL;
	}
	size_t eb = ffu__shape_elem_bytes(&in->shape);
	int64_t n = ffu__shape_count(&in->shape);
	if (all_splat) {
		unsigned char r[FFU_FIELD_MAX_BYTES];
		for (int j = 0; j < in->n_operands; j++)
			args[j] = cv[j].val;
		if (!eval_elem(in, r, args))
			return in;
		*changed = true;
		return become_splat(s, in, r, NULL);
	}
	if (n < 1 || n > FOLD_MAX_ELEMS)
		return in;
	unsigned char *lit = ffu__arena_alloc(&s->m->arena, (size_t)n * eb);
	if (!lit) {
		s->oom = true;
		return NULL;
	}
	for (int64_t i = 0; i < n; i++) {
		for (int j = 0; j < in->n_operands; j++)
			args[j] = cv_at(&cv[j], i);
		if (!eval_elem(in, lit + (size_t)i * eb, args))
			return in;
	}
	*changed = true;
	return become_constant(s, in, lit);
}

/* Where element i of an index op comes from: operand *j, its element *src. */
static void index_source(const ffu_inst *in, int64_t i, int *j, int64_t *src)
{
	int64_t idx[FFU_MAX_RANK] = {0}, from[FFU_MAX_RANK] = {0};
	*j = 0;
	if (in->op == FFU_OP_RESHAPE) {
		*src = i;
		return;
	}
	ffu__shape_unravel(&in->shape, i, idx);
	switch (in->op) {
	case FFU_OP_BROADCAST:
		for (int k = 0; k < in->n_dims; k++)
			from[k] = idx[in->dims[k]];
		break;
	case FFU_OP_SLICE:
		for (int d = 0; d < in->shape.rank; d++)
			from[d] = in->slice_start[d] + idx[d] * in->slice_stride[d];
		break;
	case FFU_OP_REVERSE:
	case FFU_OP_BIT_REVERSE:
		for (int d = 0; d < in->shape.rank; d++)
			from[d] = ffu__order_perm_coord(in, d, idx[d]);
		break;
	default: /* FFU_OP_CONCATENATE: walk the operands along the joined dimension */
		memcpy(from, idx, sizeof from);
		while (*j < in->n_operands - 1 && from[in->dims[0]] >= in->operands[*j]->shape.dims[in->dims[0]])
			from[in->dims[0]] -= in->operands[(*j)++]->shape.dims[in->dims[0]];
		break;
	}
	*src = ffu__shape_ravel(&in->operands[*j]->shape, from);
}

static ffu_inst *fold_index(simp *s, ffu_inst *in, bool *changed)
{
	cval cv[8];
	bool all_splat = true;
	/* their operands are not all of one type (integer starts) and their sources depend
	   on the starts' values: index_source does not know them, nothing folds */
	if (in->n_operands > 8 || in->op == FFU_OP_DYNAMIC_SLICE || in->op == FFU_OP_DYNAMIC_UPDATE_SLICE)
		return in;
	for (int j = 0; j < in->n_operands; j++) {
		if (!const_value(in->operands[j], &cv[j]))
			return in;
		all_splat &= cv[j].lit == NULL;
	}
	for (int j = 1; j < in->n_operands && all_splat; j++) /* concatenate: one value throughout */
		all_splat = memcmp(cv[j].val, cv[0].val, cv[0].eb) == 0;
	if (all_splat) {
		if (is_canonical_splat(in))
			return in;
		*changed = true;
		return become_splat(s, in, cv[0].val, cv[0].src);
	}
	int64_t n = ffu__shape_count(&in->shape);
	if (n < 1 || n > FOLD_MAX_ELEMS)
		return in;
	size_t eb = cv[0].eb;
	unsigned char *lit;
	if (in->op == FFU_OP_RESHAPE && cv[0].lit) {
		lit = (unsigned char *)cv[0].lit; /* same bytes in the same order: share them */
	} else {
		if (!(lit = ffu__arena_alloc(&s->m->arena, (size_t)n * eb))) {
			s->oom = true;
			return NULL;
		}
		for (int64_t i = 0; i < n; i++) {
			int j;
			int64_t src;
			index_source(in, i, &j, &src);
			memcpy(lit + (size_t)i * eb, cv_at(&cv[j], src), eb);
		}
	}
	*changed = true;
	return become_constant(s, in, lit);
}

/* reduce of a constant: a splat operand in closed form, a small array element by element. */
static ffu_inst *fold_reduce(simp *s, ffu_inst *in, bool *changed)
{
	const ffu_inst *x = in->operands[0];
	const ffu_field *f = fld(in);
	cval cx;
	unsigned char init[FFU_FIELD_MAX_BYTES];
	if (!is_arith(f) || !const_value(x, &cx) || !splat(in->operands[1], init, NULL, 0))
		return in;
	bool product = in->reduce_fn == FFU_OP_MULTIPLY;
	size_t eb = f->storage_bytes;
	if (!cx.lit) {
		/* n copies of c folded into init: init + n*c, or init * c^n (n may be 0) */
		uint64_t count = 1;
		for (int k = 0; k < in->n_dims; k++)
			count *= (uint64_t)x->shape.dims[in->dims[k]];
		unsigned char t[FFU_FIELD_MAX_BYTES], r[FFU_FIELD_MAX_BYTES];
		if (product) {
			ffu__fp_pow(f, t, cx.val, count);
			ffu__fp_mul(f, r, init, t);
		} else {
			ffu__fp_set_u64(f, t, count);
			ffu__fp_mul(f, t, t, cx.val);
			ffu__fp_add(f, r, init, t);
		}
		*changed = true;
		return become_splat(s, in, r, NULL);
	}
	int64_t n = ffu__shape_count(&in->shape), nx = ffu__shape_count(&x->shape);
	if (n < 1)
		return in;
	unsigned char *lit = ffu__arena_alloc(&s->m->arena, (size_t)n * eb);
	if (!lit) {
		s->oom = true;
		return NULL;
	}
	bool folded[FFU_MAX_RANK] = {false};
	for (int k = 0; k < in->n_dims; k++)
		folded[in->dims[k]] = true;
	for (int64_t i = 0; i < n; i++)
		memcpy(lit + (size_t)i * eb, init, eb);
	for (int64_t i = 0; i < nx; i++) {
		int64_t idx[FFU_MAX_RANK], kept[FFU_MAX_RANK];
		ffu__shape_unravel(&x->shape, i, idx);
		int r = 0;
		for (int d = 0; d < x->shape.rank; d++)
			if (!folded[d])
				kept[r++] = idx[d];
		unsigned char *acc = lit + (size_t)ffu__shape_ravel(&in->shape, kept) * eb;
		(product ? ffu__fp_mul : ffu__fp_add)(f, acc, acc, cx.lit + (size_t)i * eb);
	}
	*changed = true;
	return become_constant(s, in, lit);
}

/* ---- identities ---- */

/* slice(slice(x)) as one slice of x (see the derivation at each line). */
static ffu_inst *compose_slices(simp *s, ffu_inst *in)
{
	ffu_inst *a = in->operands[0];
	int64_t st[FFU_MAX_RANK], li[FFU_MAX_RANK], sd[FFU_MAX_RANK];
	for (int d = 0; d < in->shape.rank; d++) {
		int64_t nz = in->shape.dims[d];
		if (nz == 0) { /* any empty range will do */
			st[d] = li[d] = 0;
			sd[d] = 1;
			continue;
		}
		/* element i is a's element s2 + i*k2, which is x's s1 + (s2 + i*k2)*k1 */
		st[d] = a->slice_start[d] + in->slice_start[d] * a->slice_stride[d];
		sd[d] = nz == 1 ? 1 : a->slice_stride[d] * in->slice_stride[d];
		li[d] = st[d] + (nz - 1) * sd[d] + 1;
	}
	if (!become1(s, in, FFU_OP_SLICE, a->operands[0]))
		return NULL;
	memcpy(in->slice_start, st, sizeof st);
	memcpy(in->slice_limit, li, sizeof li);
	memcpy(in->slice_stride, sd, sizeof sd);
	return in;
}

/* broadcast(broadcast(x, d1), d2) = broadcast(x, d2[d1[k]]): increasing stays increasing. */
static ffu_inst *compose_broadcasts(simp *s, ffu_inst *in)
{
	ffu_inst *a = in->operands[0];
	int n = a->n_dims;
	int64_t *dims = n ? ffu__arena_alloc(&s->m->arena, sizeof *dims * (size_t)n) : NULL;
	if (n && !dims) {
		s->oom = true;
		return NULL;
	}
	for (int k = 0; k < n; k++)
		dims[k] = in->dims[a->dims[k]];
	if (!become1(s, in, FFU_OP_BROADCAST, a->operands[0]))
		return NULL;
	in->n_dims = n;
	in->dims = dims;
	return in;
}

static bool whole_slice(const ffu_inst *in)
{
	const ffu_shape *x = &in->operands[0]->shape;
	for (int d = 0; d < x->rank; d++)
		if (in->slice_start[d] != 0 || in->slice_stride[d] != 1 || in->slice_limit[d] != x->dims[d])
			return false;
	return true;
}

/* x / c -> x * inverse(c), the inverse as a splat of x's shape. */
static ffu_inst *divide_by_constant(simp *s, ffu_inst *in, const unsigned char *c)
{
	unsigned char inv[FFU_FIELD_MAX_BYTES];
	ffu__fp_inverse(fld(in), inv, c, NULL);
	ffu_inst *k = new_scalar(s, in->shape.type, inv);
	if (k && in->shape.rank > 0)
		k = new_inst(s, FFU_OP_BROADCAST, "broadcast", &in->shape, &k, 1);
	return k ? become2(s, in, FFU_OP_MULTIPLY, in->operands[0], k) : NULL;
}

static ffu_inst *identities(simp *s, ffu_inst *in, bool *changed)
{
	ffu_inst *a = in->n_operands > 0 ? in->operands[0] : NULL;
	ffu_inst *b = in->n_operands > 1 ? in->operands[1] : NULL;
	bool arith = is_arith(fld(in));
	unsigned char v[FFU_FIELD_MAX_BYTES];
	*changed = true; /* unless we fall through to the end */
	switch (in->op) {
	case FFU_OP_ADD:
		if (arith && is_k(b, 0))
			return a;
		if (arith && is_k(a, 0))
			return b;
		break;
	case FFU_OP_SUBTRACT:
		if (!arith)
			break;
		if (is_k(b, 0))
			return a;
		if (a == b)
			return become_splat_k(s, in, 0);
		if (is_k(a, 0))
			return become1(s, in, FFU_OP_NEGATE, b);
		break;
	case FFU_OP_MULTIPLY:
		if (!arith)
			break;
		if (is_k(b, 1) || is_k(a, 0))
			return a;
		if (is_k(a, 1) || is_k(b, 0))
			return b;
		if (is_k(b, -1))
			return become1(s, in, FFU_OP_NEGATE, a);
		if (is_k(a, -1))
			return become1(s, in, FFU_OP_NEGATE, b);
		if (a == b) /* one spelling of x * x, so that cse meets it once */
			return become1(s, in, FFU_OP_SQUARE, a);
		break;
	case FFU_OP_NEGATE:
	case FFU_OP_INVERSE:
		if (a->op == in->op)
			return a->operands[0];
		break;
	case FFU_OP_DIVIDE:
		if (arith && is_k(a, 0))
			return a;
		if (arith && splat(b, v, NULL, 0))
			return divide_by_constant(s, in, v);
		break;
	case FFU_OP_POWER:
		if (!arith || !splat(b, v, NULL, 0))
			break;
		switch (ffu__fp_get_u64(fld(b), v)) {
		case 0:
			return become_splat_k(s, in, 1);
		case 1:
			return a;
		case 2:
			return become1(s, in, FFU_OP_SQUARE, a);
		default:
			break;
		}
		break;
	case FFU_OP_CONVERT:
		if (a->shape.type == in->shape.type)
			return a;
		if (a->op == FFU_OP_CONVERT && a->operands[0]->shape.type == in->shape.type &&
		    (fld(in)->kind == FFU_ELEM_PRIME || fld(in)->kind == FFU_ELEM_MONT ||
		     fld(a)->twin == fld(in)))
			return a->operands[0];
		break;
	case FFU_OP_COMPARE:
		if (a == b) /* x == x, x <= x and x >= x hold; x != x, x < x and x > x do not */
			return become_splat_k(s, in, in->direction == FFU_CMP_EQ || in->direction == FFU_CMP_LE ||
							     in->direction == FFU_CMP_GE);
		break;
	case FFU_OP_MAXIMUM:
	case FFU_OP_MINIMUM:
		if (a == b)
			return a;
		break;
	case FFU_OP_SELECT:
		if (in->operands[1] == in->operands[2])
			return in->operands[1];
		if (splat(a, v, NULL, 0))
			return v[0] ? in->operands[1] : in->operands[2];
		break;
	case FFU_OP_RESHAPE:
		if (ffu__shape_eq(&a->shape, &in->shape))
			return a;
		if (a->op == FFU_OP_RESHAPE)
			return become1(s, in, FFU_OP_RESHAPE, a->operands[0]);
		break;
	case FFU_OP_SLICE:
		if (whole_slice(in))
			return a;
		if (a->op == FFU_OP_SLICE)
			return compose_slices(s, in);
		break;
	case FFU_OP_BROADCAST:
		if (ffu__shape_eq(&a->shape, &in->shape))
			return a; /* same rank and increasing dimensions: the identity map */
		if (a->op == FFU_OP_BROADCAST)
			return compose_broadcasts(s, in);
		break;
	case FFU_OP_CONCATENATE:
		if (in->n_operands == 1)
			return a;
		break;
	case FFU_OP_DYNAMIC_SLICE: /* a window as large as x starts at 0 whatever the starts */
		if (ffu__shape_eq(&a->shape, &in->shape))
			return a;
		break;
	case FFU_OP_DYNAMIC_UPDATE_SLICE: /* an update as large as x replaces it; an empty one keeps it */
		if (ffu__shape_eq(&b->shape, &in->shape))
			return b;
		if (ffu__shape_count(&b->shape) == 0)
			return a;
		break;
	case FFU_OP_REVERSE:
	case FFU_OP_BIT_REVERSE:
		if (in->n_dims == 0) /* permutes no dimension */
			return a;
		break;
	default:
		break;
	}
	*changed = false;
	return in;
}

/* One rewrite: the instruction that computes in's value (in itself, *changed when it was
   rewritten in place), NULL on out of memory. */
static ffu_inst *step(simp *s, ffu_inst *in, bool *changed)
{
	*changed = false;
	if (in->op == FFU_OP_GET_TUPLE_ELEMENT && in->operands[0]->op == FFU_OP_TUPLE)
		return in->operands[0]->operands[in->index];
	if (!ffu__shape_is_array(&in->shape))
		return in;
	ffu_inst *r;
	switch (ffu__ops[in->op].kind) {
	case FFU_KIND_ELEMENTWISE:
		r = fold_elementwise(s, in, changed);
		break;
	case FFU_KIND_INDEX:
		r = fold_index(s, in, changed);
		break;
	case FFU_KIND_REDUCE:
		r = fold_reduce(s, in, changed);
		break;
	default:
		return in;
	}
	if (r != in || *changed)
		return r;
	return identities(s, in, changed);
}

ffu_status ffu__pass_simplify(ffu_module *m, const ffu_pass_opts *o, ffu_error *e)
{
	(void)o;
	ffu_computation *c = m->entry;
	simp s = {.m = m, .c = c, .orig = c->insts, .n = c->n_insts};
	ffu_status st = FFU_STATUS_ENOMEM;
	s.map = malloc(sizeof *s.map * (size_t)(s.n + 1));
	if (!s.map)
		goto out;
	ffu__comp_renumber(c);
	for (int i = 0; i < s.n; i++) {
		ffu_inst *in = s.orig[i], *cur = in;
		for (int j = 0; j < in->n_operands; j++) {
			const ffu_inst *p = in->operands[j];
			if (p->id >= 0 && p->id < s.n && s.orig[p->id] == p)
				in->operands[j] = s.map[p->id];
		}
		for (int k = 0; k < MAX_STEPS; k++) {
			bool changed;
			ffu_inst *r = step(&s, in, &changed);
			if (!r || s.oom)
				goto out;
			if (r != in) {
				cur = r;
				break;
			}
			if (!changed)
				break;
		}
		s.map[i] = cur;
		if (cur == in && !push(&s, in))
			goto out;
	}
	ffu_inst *root = s.map[c->root->id];
	if (!ffu__comp_set_insts(c, s.out, s.n_out))
		goto out;
	c->root = root;
	st = FFU_STATUS_OK;
out:
	free(s.map);
	free(s.out);
	return st == FFU_STATUS_ENOMEM ? ffu__err(e, st, "out of memory in the simplify pass") : st;
}
