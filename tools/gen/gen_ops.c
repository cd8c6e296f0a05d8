/*
 * tools/gen/gen_ops.c: the random program generator's values and operations (see gen.c for
 * how a program is drawn): sources (constants, parameters, iotas, broadcast scalars), the
 * pool look-ups that find or make an operand of a given type and dimensions, and one
 * generator per operation (ffu__gen_op_*), each keeping to the verifier's rules. Each
 * writes its instruction into g->sb and records the value in g's pool; gen.c owns g.
 * The sources and look-ups named ffu__gen_* serve gen_index.c's operations too.
 */
#include "gen_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fields/field.h"
#include "hlo/hlo.h"
#include "ir/ir.h"

void ffu__gen_dims_attr(char *buf, size_t size, const int64_t *list, int n)
{
	int k = snprintf(buf, size, "{");
	for (int i = 0; i < n && k > 0 && (size_t)k < size; i++)
		k += snprintf(buf + k, size - (size_t)k, i ? ",%lld" : "%lld", (long long)list[i]);
	if (k > 0 && (size_t)k < size)
		snprintf(buf + k, size - (size_t)k, "}");
}

/*
 * Starts a new value: names it, records it in the pool and writes "  %name = SHAPE " for
 * the caller to finish with the opcode. -1 when the pool is full (nothing written).
 */
int ffu__gen_begin(gen *g, ffu_type t, int rank, const int64_t *dims)
{
	if (g->n == MAX_VALS)
		return -1;
	val *x = &g->v[g->n];
	snprintf(x->name, sizeof x->name, "%sv%d", g->prefix, g->counter++);
	x->type = t;
	x->param = false;
	x->rank = rank;
	if (rank)
		memcpy(x->dims, dims, sizeof(int64_t) * (size_t)rank);
	char sh[96];
	ffu__gen_shape_text(sh, sizeof sh, t, rank, dims);
	ffu__sb_printf(g->sb, "  %%%s = %s ", x->name, sh);
	return g->n++;
}

/* ---- sources ---- */

/* A constant of type t: 0, 1 and -1 often (simplify's identities, reductions' edges). */
static void constant_text(gen *g, ffu_type t, char *buf)
{
	const ffu_field *f = fld(t);
	unsigned char v[FFU_FIELD_MAX_BYTES], one[FFU_FIELD_MAX_BYTES];
	if (f->kind == FFU_ELEM_UINT) { /* exponents: small, where power is cheap and interesting */
		static const uint64_t small[] = {0, 1, 2, 3, 5, 7, 16, 255};
		ffu__fp_set_u64(f, v, small[pick(g, sizeof small / sizeof small[0])]);
		ffu__fp_format_literal(f, buf, v);
		return;
	}
	if (f->kind == FFU_ELEM_PRED) {
		strcpy(buf, chance(g, 2) ? "true" : "false");
		return;
	}
	ffu__fp_set_u64(f, one, 1);
	switch (pick(g, 5)) {
	case 0:
		ffu__fp_set_u64(f, v, 0);
		break;
	case 1:
		memcpy(v, one, sizeof v);
		break;
	case 2:
		ffu__fp_neg(f, v, one, NULL);
		break;
	default:
		ffu__fp_random(f, v, &g->rng);
		break;
	}
	ffu__fp_format_literal(f, buf, v);
}

int ffu__gen_scalar_constant(gen *g, ffu_type t)
{
	char num[FFU_FIELD_TEXT_MAX * 2];
	constant_text(g, t, num);
	int i = ffu__gen_begin(g, t, 0, NULL);
	if (i >= 0)
		ffu__sb_printf(g->sb, "constant(%s)\n", num);
	return i;
}

int ffu__gen_parameter(gen *g, ffu_type t, int rank, const int64_t *dims)
{
	int i = ffu__gen_begin(g, t, rank, dims);
	if (i >= 0) {
		ffu__sb_printf(g->sb, "parameter(%d)\n", g->param_base + g->n_params++);
		g->v[i].param = true;
	}
	return i;
}

int ffu__gen_iota(gen *g, ffu_type t, int rank, const int64_t *dims)
{
	int d = (int)pick(g, (unsigned)rank);
	int i = ffu__gen_begin(g, t, rank, dims);
	if (i >= 0)
		ffu__sb_printf(g->sb, "iota(), iota_dimension=%d\n", d);
	return i;
}

/* broadcast of scalar value s into dims. */
int ffu__gen_broadcast_scalar(gen *g, int s, int rank, const int64_t *dims)
{
	if (s < 0)
		return -1;
	int i = ffu__gen_begin(g, g->v[s].type, rank, dims);
	if (i >= 0)
		ffu__sb_printf(g->sb, "broadcast(%%%s), dimensions={}\n", g->v[s].name);
	return i;
}

/* A value of type t with these dimensions from the pool, newest first half the time; -1 if none. */
int ffu__gen_find(gen *g, ffu_type t, int rank, const int64_t *dims)
{
	int hits[MAX_VALS], n = 0;
	for (int i = 0; i < g->n; i++)
		if (g->v[i].type == t && g->v[i].rank == rank &&
		    (rank == 0 || memcmp(g->v[i].dims, dims, sizeof(int64_t) * (size_t)rank) == 0))
			hits[n++] = i;
	if (!n)
		return -1;
	return chance(g, 2) ? hits[n - 1] : hits[pick(g, (unsigned)n)];
}

static int compare_of(gen *g, ffu_type t, int rank, const int64_t *dims);

/* Has t an order (compare LT..GE, maximum, minimum, clamp: ir/order.c)? */
static bool ordered(ffu_type t)
{
	const ffu_elem_kind k = fld(t)->kind;
	return k != FFU_ELEM_EXT && k != FFU_ELEM_PRED && k != FFU_ELEM_POINT;
}

/* A fresh value of type t and these dimensions that needs nothing from the pool. */
static int make(gen *g, ffu_type t, int rank, const int64_t *dims)
{
	if (t == FFU_TYPE_PRED)
		return compare_of(g, g->t, rank, dims);
	if (fld(t)->kind == FFU_ELEM_POINT) /* no iota, no numeric constant */
		return ffu__gen_point_make(g, t, rank, dims);
	bool can_iota = rank > 0 && fld(t)->kind != FFU_ELEM_EXT;
	switch (pick(g, 5)) {
	case 0:
	case 1: {
		if (rank == 0)
			return ffu__gen_scalar_constant(g, t);
		/* a scalar from the pool, or a new constant or scalar parameter, broadcast */
		int s = chance(g, 3) ? ffu__gen_find(g, t, 0, NULL) : -1;
		if (s < 0)
			s = chance(g, 4) ? ffu__gen_parameter(g, t, 0, NULL) : ffu__gen_scalar_constant(g, t);
		return ffu__gen_broadcast_scalar(g, s, rank, dims);
	}
	case 2:
		if (can_iota)
			return ffu__gen_iota(g, t, rank, dims);
		return ffu__gen_parameter(g, t, rank, dims);
	default:
		return ffu__gen_parameter(g, t, rank, dims);
	}
}

/* An operand of type t with these dimensions: from the pool (3 in 4), else made. */
int ffu__gen_operand(gen *g, ffu_type t, int rank, const int64_t *dims)
{
	int i = chance(g, 4) ? -1 : ffu__gen_find(g, t, rank, dims);
	return i >= 0 ? i : make(g, t, rank, dims);
}

/* compare(a, b) of type-t values: often iota against a constant, where some elements match. */
static int compare_of(gen *g, ffu_type t, int rank, const int64_t *dims)
{
	int a, b;
	if (rank > 0 && fld(t)->kind != FFU_ELEM_EXT && chance(g, 2)) {
		a = ffu__gen_iota(g, t, rank, dims);
		/* an index that occurs along the iota's dimension, as a value of type t */
		unsigned char k[FFU_FIELD_MAX_BYTES];
		char num[FFU_FIELD_TEXT_MAX];
		ffu__fp_set_u64(fld(t), k, pick(g, (unsigned)dims[0] + 1));
		ffu__fp_format_literal(fld(t), num, k);
		b = ffu__gen_begin(g, t, 0, NULL);
		if (b >= 0)
			ffu__sb_printf(g->sb, "constant(%s)\n", num);
		b = ffu__gen_broadcast_scalar(g, b, rank, dims);
	} else {
		a = ffu__gen_operand(g, t, rank, dims);
		b = chance(g, 3) ? a : ffu__gen_operand(g, t, rank, dims);
	}
	if (a < 0 || b < 0)
		return -1;
	static const char *const dirs[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
	int i = ffu__gen_begin(g, FFU_TYPE_PRED, rank, dims);
	if (i >= 0)
		ffu__sb_printf(g->sb, "compare(%%%s, %%%s), direction=%s\n", g->v[a].name, g->v[b].name,
			       dirs[pick(g, ordered(t) ? 6 : 2)]);
	return i;
}

/* ---- operations ---- */

/* A random pool value passing ok(), newest half the time; -1 if none. */
int ffu__gen_any(gen *g, bool (*ok)(const gen *, const val *))
{
	int hits[MAX_VALS], n = 0;
	for (int i = 0; i < g->n; i++)
		if (ok(g, &g->v[i]))
			hits[n++] = i;
	if (!n)
		return -1;
	return chance(g, 2) ? hits[n - 1] : hits[pick(g, (unsigned)n)];
}

static bool ok_arith_array(const gen *g, const val *x)
{
	return ok_arith(g, x) && x->rank > 0;
}

/* An arithmetic value from the pool, or a new one of the program's type and base shape. */
static int arith_value(gen *g)
{
	int a = ffu__gen_any(g, ok_arith);
	return a >= 0 && !chance(g, 8) ? a : ffu__gen_operand(g, g->t, g->rank, g->dims);
}

int ffu__gen_op_binary(gen *g)
{
	static const char *const ops[] = {"add", "subtract", "multiply", "multiply", "add", "subtract", "multiply", "divide"};
	int a = arith_value(g);
	if (a < 0)
		return -1;
	val x = g->v[a];
	int b = chance(g, 6) ? a : ffu__gen_operand(g, x.type, x.rank, x.dims);
	if (b < 0)
		return -1;
	const char *o = ops[pick(g, sizeof ops / sizeof ops[0])];
	if (slow_op(g, x.type) && strcmp(o, "divide") == 0)
		o = "multiply";
	int i = -1;
	/* now and then the same instruction twice: common subexpressions for cse */
	for (int rep = chance(g, 8) ? 2 : 1; rep > 0; rep--) {
		if ((i = ffu__gen_begin(g, x.type, x.rank, x.dims)) >= 0)
			ffu__sb_printf(g->sb, "%s(%%%s, %%%s)\n", o, g->v[a].name, g->v[b].name);
	}
	return i;
}

int ffu__gen_op_unary(gen *g)
{
	int a = arith_value(g);
	if (a < 0)
		return -1;
	val x = g->v[a];
	unsigned what = pick(g, 8);
	if (what < 4) { /* negate (simplify drops two) or square, sometimes twice; the same draws either way */
		const char *op = what == 3 ? "square" : "negate";
		int i = -1;
		for (int rep = chance(g, 3) ? 2 : 1; rep > 0; rep--, a = i)
			if ((i = ffu__gen_begin(g, x.type, x.rank, x.dims)) >= 0)
				ffu__sb_printf(g->sb, "%s(%%%s)\n", op, g->v[a].name);
		return i;
	}
	if (what == 4 && !slow_op(g, x.type)) {
		int i = ffu__gen_begin(g, x.type, x.rank, x.dims);
		if (i >= 0)
			ffu__sb_printf(g->sb, "inverse(%%%s)\n", g->v[a].name);
		return i;
	}
	/* power: a constant exponent (unrolled; 0, 1, 2 simplified away), or one per element */
	ffu_type et = chance(g, 2) ? FFU_TYPE_U32 : FFU_TYPE_U64;
	int e;
	if (x.rank > 0 && chance(g, 3) && !slow_op(g, x.type))
		e = chance(g, 2) ? ffu__gen_iota(g, et, x.rank, x.dims) : ffu__gen_parameter(g, et, x.rank, x.dims);
	else if (x.rank == 0)
		e = ffu__gen_scalar_constant(g, et);
	else
		e = ffu__gen_broadcast_scalar(g, ffu__gen_scalar_constant(g, et), x.rank, x.dims);
	if (e < 0)
		return -1;
	int i = ffu__gen_begin(g, x.type, x.rank, x.dims);
	if (i >= 0)
		ffu__sb_printf(g->sb, "power(%%%s, %%%s)\n", g->v[a].name, g->v[e].name);
	return i;
}

/* convert between the program's type, its twin and u32/u64; often straight back again. */
int ffu__gen_op_convert(gen *g)
{
	ffu_type to[4];
	int n_to = 0, a = ffu__gen_any(g, ok_any);
	if (a < 0 || g->v[a].type == FFU_TYPE_PRED)
		return -1;
	val x = g->v[a];
	const ffu_type cand[] = {g->t, g->twin, FFU_TYPE_U32, FFU_TYPE_U64};
	for (int k = 0; k < 4; k++)
		if (cand[k] != FFU_TYPE_INVALID && cand[k] != x.type && ffu__fp_convert_ok(fld(cand[k]), fld(x.type)) &&
		    (is_arith(cand[k]) || is_arith(x.type)))
			to[n_to++] = cand[k];
	/* an extension's own prime field converts into it: start from a parameter of that type */
	if (!n_to && fld(g->t)->kind == FFU_ELEM_EXT) {
		x.type = (ffu_type)fld(g->t)->prime->id;
		if ((a = ffu__gen_parameter(g, x.type, x.rank, x.dims)) < 0)
			return -1;
		to[n_to++] = g->t;
	}
	if (!n_to)
		return -1;
	ffu_type t = to[pick(g, (unsigned)n_to)];
	int i = ffu__gen_begin(g, t, x.rank, x.dims);
	if (i < 0)
		return -1;
	ffu__sb_printf(g->sb, "convert(%%%s)\n", g->v[a].name);
	if (chance(g, 2) && ffu__fp_convert_ok(fld(x.type), fld(t))) {
		int j = ffu__gen_begin(g, x.type, x.rank, x.dims);
		if (j >= 0)
			ffu__sb_printf(g->sb, "convert(%%%s)\n", g->v[i].name);
		return j;
	}
	return i;
}

int ffu__gen_op_select(gen *g)
{
	int x = ffu__gen_any(g, ok_any);
	if (x < 0)
		return -1;
	val v = g->v[x];
	int y = ffu__gen_operand(g, v.type, v.rank, v.dims);
	/* a scalar selector picks one array whole */
	int p = v.rank > 0 && chance(g, 5) ? compare_of(g, g->t, 0, NULL) : compare_of(g, g->t, v.rank, v.dims);
	if (y < 0 || p < 0)
		return -1;
	int i = ffu__gen_begin(g, v.type, v.rank, v.dims);
	if (i >= 0)
		ffu__sb_printf(g->sb, "select(%%%s, %%%s, %%%s)\n", g->v[p].name, g->v[x].name, g->v[y].name);
	return i;
}

static bool ok_ordered(const gen *g, const val *x)
{
	(void)g;
	return ordered(x->type);
}

/* maximum / minimum / clamp (its bounds arrays, or scalars now and then) of ordered values. */
int ffu__gen_op_order(gen *g)
{
	int a = ffu__gen_any(g, ok_ordered);
	if (a < 0 || chance(g, 8))
		a = ordered(g->t) ? ffu__gen_operand(g, g->t, g->rank, g->dims) : -1;
	if (a < 0)
		return -1;
	val x = g->v[a];
	int b = chance(g, 6) ? a : ffu__gen_operand(g, x.type, x.rank, x.dims);
	unsigned what = pick(g, 3);
	int c = -1;
	if (what == 2) { /* clamp(b, a, c) */
		bool scalar = chance(g, 3);
		if (scalar && (b = ffu__gen_find(g, x.type, 0, NULL)) < 0)
			b = ffu__gen_scalar_constant(g, x.type);
		c = scalar && chance(g, 2) ? ffu__gen_scalar_constant(g, x.type) : ffu__gen_operand(g, x.type, x.rank, x.dims);
	}
	if (b < 0 || (what == 2 && c < 0))
		return -1;
	int i = ffu__gen_begin(g, x.type, x.rank, x.dims);
	if (i >= 0 && what == 2)
		ffu__sb_printf(g->sb, "clamp(%%%s, %%%s, %%%s)\n", g->v[b].name, g->v[a].name, g->v[c].name);
	else if (i >= 0)
		ffu__sb_printf(g->sb, "%s(%%%s, %%%s)\n", what ? "minimum" : "maximum", g->v[a].name, g->v[b].name);
	return i;
}

/* reverse of some dimensions, or bit-reverse of some power-of-two ones (else a reverse). */
int ffu__gen_op_permute(gen *g)
{
	int a = ffu__gen_any(g, ok_array);
	if (a < 0)
		return -1;
	val x = g->v[a];
	bool bits = chance(g, 2);
	int64_t list[FFU_MAX_RANK];
	int n = 0;
	for (int d = 0; d < x.rank; d++)
		if ((!bits || (x.dims[d] > 0 && (x.dims[d] & (x.dims[d] - 1)) == 0)) && !chance(g, 3))
			list[n++] = d;
	if (bits && n == 0)
		bits = false;
	int i = ffu__gen_begin(g, x.type, x.rank, x.dims);
	if (i < 0)
		return -1;
	char attr[64];
	ffu__gen_dims_attr(attr, sizeof attr, list, n);
	ffu__sb_printf(g->sb, "%s(%%%s), dimensions=%s\n", bits ? "bit-reverse" : "reverse", g->v[a].name, attr);
	return i;
}

int ffu__gen_op_slice(gen *g)
{
	int a = ffu__gen_any(g, ok_array);
	if (a < 0)
		return -1;
	val x = g->v[a];
	int64_t st[FFU_MAX_RANK], li[FFU_MAX_RANK], sd[FFU_MAX_RANK], out[FFU_MAX_RANK];
	for (int d = 0; d < x.rank; d++) {
		int64_t n = x.dims[d];
		st[d] = n && !chance(g, 2) ? (int64_t)pick(g, (unsigned)n) : 0;
		li[d] = n ? st[d] + 1 + (int64_t)pick(g, (unsigned)(n - st[d])) : 0;
		if (chance(g, 3))
			li[d] = n; /* to the end */
		if (chance(g, 30))
			li[d] = st[d]; /* empty */
		sd[d] = chance(g, 2) ? 1 : 2 + (int64_t)pick(g, 3);
		out[d] = (li[d] - st[d] + sd[d] - 1) / sd[d];
	}
	int i = ffu__gen_begin(g, x.type, x.rank, out);
	if (i < 0)
		return -1;
	ffu__sb_printf(g->sb, "slice(%%%s), slice={", g->v[a].name);
	for (int d = 0; d < x.rank; d++) {
		if (sd[d] == 1)
			ffu__sb_printf(g->sb, "%s[%lld:%lld]", d ? ", " : "", (long long)st[d], (long long)li[d]);
		else
			ffu__sb_printf(g->sb, "%s[%lld:%lld:%lld]", d ? ", " : "", (long long)st[d], (long long)li[d],
				       (long long)sd[d]);
	}
	ffu__sb_append(g->sb, "}\n");
	return i;
}

/* n split into rank factors, at random (row-major reshape keeps the element order). */
static void factor(gen *g, int64_t n, int rank, int64_t *dims)
{
	for (int d = 0; d < rank; d++)
		dims[d] = 1;
	if (rank == 0)
		return;
	if (n == 0) {
		dims[pick(g, (unsigned)rank)] = 0;
		return;
	}
	for (int64_t p = 2; n > 1;) {
		if (n % p == 0) {
			dims[pick(g, (unsigned)rank)] *= p;
			n /= p;
		} else {
			p = p * p > n ? n : p + 1;
		}
	}
}

int ffu__gen_op_reshape(gen *g)
{
	int a = ffu__gen_any(g, ok_any);
	if (a < 0)
		return -1;
	val x = g->v[a];
	int64_t n = count(x.rank, x.dims), dims[FFU_MAX_RANK];
	int rank = n == 1 && chance(g, 3) ? 0 : 1 + (int)pick(g, FFU_MAX_RANK);
	factor(g, n, rank, dims);
	int i = ffu__gen_begin(g, x.type, rank, dims);
	if (i >= 0)
		ffu__sb_printf(g->sb, "reshape(%%%s)\n", g->v[a].name);
	return i;
}

static bool ok_low_rank(const gen *g, const val *x)
{
	(void)g;
	return x->rank < FFU_MAX_RANK;
}

/*
 * broadcast of a lower-rank value: into the base shape when its dimensions are a
 * subsequence of the base's (a reduction's result goes back where it came from), else into
 * a shape with new dimensions inserted around its own.
 */
int ffu__gen_op_broadcast(gen *g)
{
	int a = ffu__gen_any(g, ok_low_rank);
	if (a < 0)
		return -1;
	val x = g->v[a];
	int64_t map[FFU_MAX_RANK], dims[FFU_MAX_RANK];
	int rank = -1;
	if (x.rank < g->rank) { /* greedy subsequence match against the base shape */
		int k = 0;
		for (int d = 0; d < g->rank && k < x.rank; d++)
			if (g->dims[d] == x.dims[k])
				map[k++] = d;
		if (k == x.rank) {
			rank = g->rank;
			memcpy(dims, g->dims, sizeof dims);
		}
	}
	if (rank < 0) {
		rank = x.rank + 1 + (int)pick(g, (unsigned)(FFU_MAX_RANK - x.rank));
		int64_t budget = g->max_elems / (count(x.rank, x.dims) ? count(x.rank, x.dims) : 1);
		/* choose which result dimensions are the operand's, in increasing order */
		int k = 0;
		for (int d = 0; d < rank; d++) {
			bool mine = k < x.rank && (rank - d == x.rank - k || chance(g, 2));
			if (mine) {
				map[k] = d;
				dims[d] = x.dims[k++];
			} else {
				dims[d] = 1 + (int64_t)pick(g, 5);
				if (dims[d] > budget)
					dims[d] = 1;
				budget /= dims[d];
			}
		}
	}
	int i = ffu__gen_begin(g, x.type, rank, dims);
	if (i < 0)
		return -1;
	char attr[64];
	ffu__gen_dims_attr(attr, sizeof attr, map, x.rank);
	ffu__sb_printf(g->sb, "broadcast(%%%s), dimensions=%s\n", g->v[a].name, attr);
	return i;
}

int ffu__gen_op_iota(gen *g)
{
	if (g->rank == 0)
		return -1;
	ffu_type t = fld(g->t)->kind == FFU_ELEM_EXT || chance(g, 3) ? FFU_TYPE_U32 : g->t;
	return ffu__gen_iota(g, t, g->rank, g->dims);
}

int ffu__gen_op_concatenate(gen *g)
{
	int a = ffu__gen_any(g, ok_array);
	if (a < 0)
		return -1;
	val x = g->v[a];
	int d = (int)pick(g, (unsigned)x.rank), parts[3] = {a, -1, -1}, n = 2 + (int)chance(g, 3);
	int64_t dims[FFU_MAX_RANK];
	memcpy(dims, x.dims, sizeof dims);
	for (int k = 1; k < n; k++) {
		int64_t pd[FFU_MAX_RANK];
		memcpy(pd, x.dims, sizeof pd);
		pd[d] = chance(g, 2) ? x.dims[d] : (int64_t)pick(g, 4) + (chance(g, 8) ? 0 : 1);
		if ((parts[k] = ffu__gen_operand(g, x.type, x.rank, pd)) < 0)
			return -1;
		dims[d] += pd[d];
	}
	int i = ffu__gen_begin(g, x.type, x.rank, dims);
	if (i < 0)
		return -1;
	ffu__sb_append(g->sb, "concatenate(");
	for (int k = 0; k < n; k++)
		ffu__sb_printf(g->sb, "%s%%%s", k ? ", " : "", g->v[parts[k]].name);
	ffu__sb_printf(g->sb, "), dimensions={%d}\n", d);
	return i;
}

int ffu__gen_op_reduce(gen *g)
{
	int a = ffu__gen_any(g, ok_arith_array);
	if (a < 0 && (a = ffu__gen_operand(g, g->t, g->rank, g->dims)) < 0)
		return -1;
	val x = g->v[a];
	if (x.rank == 0)
		return -1;
	int64_t folded[FFU_MAX_RANK], kept[FFU_MAX_RANK];
	int nf = 0, nk = 0;
	for (int d = 0; d < x.rank; d++) {
		if (chance(g, 2))
			folded[nf++] = d;
		else
			kept[nk++] = x.dims[d];
	}
	if (nf == 0 && !chance(g, 10)) { /* {} folds nothing: rare */
		nk = 0;
		for (int d = 0; d < x.rank; d++)
			folded[nf++] = d;
	}
	bool product = chance(g, 3);
	int init = ffu__gen_scalar_constant(g, x.type);
	if (init < 0)
		return -1;
	g->red->need[x.type][product] = true;
	int i = ffu__gen_begin(g, x.type, nk, kept);
	if (i < 0)
		return -1;
	char attr[64];
	ffu__gen_dims_attr(attr, sizeof attr, folded, nf);
	ffu__sb_printf(g->sb, "reduce(%%%s, %%%s), dimensions=%s, to_apply=%%%s.%s\n", g->v[a].name, g->v[init].name, attr,
		       product ? "product" : "sum", ffu__type_name(x.type));
	return i;
}

/*
 * fft over the last dimension of a value of a transformable type (a power-of-two length
 * within the prime field's 2-adicity), either direction and bit order; now and then with
 * a twiddles operand computed as power(broadcast(w), iota): the root's powers, so the
 * result is the same transform (the interpreter and the device read the table as given).
 */
int ffu__gen_op_fft(gen *g)
{
	int a = ffu__gen_any(g, ok_arith_array);
	if (a < 0)
		return -1;
	val x = g->v[a];
	const ffu_field *p = ffu__fft_prime(x.type);
	int64_t n = x.rank ? x.dims[x.rank - 1] : 0;
	int k = ffu__log2_pow2(n);
	if (!p || k < 0 || k > p->two_adicity)
		return -1;
	bool inverse = chance(g, 2), br = !chance(g, 3);
	int tw = -1;
	ffu_type tt = ffu__fft_twiddle_type(x.type);
	if (chance(g, 3) && !slow_op(g, tt)) {
		unsigned char w[FFU_FIELD_MAX_BYTES], wt[FFU_FIELD_MAX_BYTES];
		char num[FFU_FIELD_TEXT_MAX * 2];
		ffu__fp_root_of_unity(p, k, w);
		if (inverse)
			ffu__fp_inv(p, w, w);
		ffu__fp_convert(fld(tt), wt, p, w);
		ffu__fp_format_literal(fld(tt), num, wt);
		int c = ffu__gen_begin(g, tt, 0, NULL);
		if (c < 0)
			return -1;
		ffu__sb_printf(g->sb, "constant(%s)\n", num);
		int b = ffu__gen_broadcast_scalar(g, c, 1, &n), e = ffu__gen_iota(g, FFU_TYPE_U64, 1, &n);
		if (b < 0 || e < 0 || (tw = ffu__gen_begin(g, tt, 1, &n)) < 0)
			return -1;
		ffu__sb_printf(g->sb, "power(%%%s, %%%s)\n", g->v[b].name, g->v[e].name);
	}
	int i = ffu__gen_begin(g, x.type, x.rank, x.dims);
	if (i >= 0)
		ffu__sb_printf(g->sb, "fft(%%%s%s%s), fft_type=%s, fft_length=%lld%s\n", x.name, tw >= 0 ? ", %" : "",
			       tw >= 0 ? g->v[tw].name : "", inverse ? "IFFT" : "FFT", (long long)n,
			       br ? "" : ", fft_do_bit_reverse=false");
	return i;
}

/* " NAME={a,b}" for a dot's dimension list, or nothing for an empty batch list. */
static void dot_list(gen *g, const char *name, const int64_t *list, int n, bool always)
{
	char attr[64];
	if (!n && !always)
		return;
	ffu__gen_dims_attr(attr, sizeof attr, list, n);
	ffu__sb_printf(g->sb, ", %s=%s", name, attr);
}

/*
 * dot: lhs a pool value x; most often dense, x's contracting dimensions (none now and then:
 * an outer product) and maybe a batch dimension paired with a made or found rhs whose
 * other dimensions are small; sometimes a new CSR parameter times x (the rhs), contracting
 * the matrix's columns with one dimension of x. The result stays within a few times the
 * program's element budget in products.
 */
int ffu__gen_op_dot(gen *g)
{
	int a = ffu__gen_any(g, ok_arith_array);
	if (a < 0)
		return -1;
	val x = g->v[a];
	int64_t rd[FFU_MAX_RANK], lc[FFU_MAX_RANK], rc[FFU_MAX_RANK], lb[1], rb[1];
	if (chance(g, 4)) { /* CSR [m, k] times x, x's dimension c contracted */
		int c = (int)pick(g, (unsigned)x.rank), rank = 1;
		int64_t m = 1 + pick(g, 6), k = x.dims[c], nnz = (int64_t)pick(g, (unsigned)(m * k + 1));
		rd[0] = m;
		for (int d = 0; d < x.rank; d++)
			if (d != c)
				rd[rank++] = x.dims[d];
		if (k > 64 || count(rank, rd) > g->max_elems)
			return -1;
		char name[NAME_LEN];
		snprintf(name, sizeof name, "%sv%d", g->prefix, g->counter++);
		ffu__sb_printf(g->sb, "  %%%s = %s[%lld,%lld]{1,0:D(D, C) NNZ(%lld)} parameter(%d)\n", name,
			       ffu__type_name(x.type), (long long)m, (long long)k, (long long)nnz,
			       g->param_base + g->n_params++);
		int i = ffu__gen_begin(g, x.type, rank, rd);
		if (i >= 0)
			ffu__sb_printf(g->sb, "dot(%%%s, %%%s), lhs_contracting_dims={1}, rhs_contracting_dims={%d}\n", name,
				       x.name, c);
		return i;
	}
	/* x's dimensions: each contracted (1 in 2), one of the others maybe a batch dimension */
	int nc = 0, nb = 0, nfree = 0, rrank = 0;
	int64_t rdims[FFU_MAX_RANK], free_sizes = 1, k = 1;
	for (int d = 0; d < x.rank; d++) {
		if (chance(g, 2) && !chance(g, 8)) {
			lc[nc++] = d;
			k *= x.dims[d];
		} else if (nb == 0 && chance(g, 4)) {
			lb[nb++] = d;
		} else {
			nfree++;
			free_sizes *= x.dims[d];
		}
	}
	/* rhs: the batch dimension, the contracted ones, and up to two free ones, in that order */
	for (int t = 0; t < nb; t++) {
		rb[t] = rrank;
		rdims[rrank++] = x.dims[lb[t]];
	}
	for (int t = 0; t < nc; t++) {
		rc[t] = rrank;
		rdims[rrank++] = x.dims[lc[t]];
	}
	int rfree = (int)pick(g, 3);
	while (rfree > 0 && (nb + nfree + rfree > FFU_MAX_RANK || rrank + rfree > FFU_MAX_RANK))
		rfree--;
	for (int t = 0; t < rfree; t++) {
		static const int64_t sizes[] = {1, 2, 3, 4, 7};
		rdims[rrank++] = sizes[pick(g, 5)];
		free_sizes *= rdims[rrank - 1];
	}
	int n_res = nb + nfree + rfree;
	if (n_res > FFU_MAX_RANK || (nb && free_sizes * x.dims[lb[0]] > g->max_elems) || free_sizes > g->max_elems ||
	    free_sizes * k > 16 * (int64_t)g->max_elems)
		return -1;
	int b = ffu__gen_operand(g, x.type, rrank, rdims);
	if (b < 0)
		return -1;
	/* the result: batch, x's free dimensions, rhs's free ones (ir/dot.c) */
	int r = 0;
	for (int t = 0; t < nb; t++)
		rd[r++] = x.dims[lb[t]];
	for (int d = 0; d < x.rank; d++) {
		bool used = nb && lb[0] == d;
		for (int t = 0; t < nc; t++)
			used |= lc[t] == d;
		if (!used)
			rd[r++] = x.dims[d];
	}
	for (int t = nb + nc; t < rrank; t++)
		rd[r++] = rdims[t];
	int i = ffu__gen_begin(g, x.type, r, rd);
	if (i < 0)
		return -1;
	ffu__sb_printf(g->sb, "dot(%%%s, %%%s)", x.name, g->v[b].name);
	dot_list(g, "lhs_batch_dims", lb, nb, false);
	dot_list(g, "rhs_batch_dims", rb, nb, false);
	dot_list(g, "lhs_contracting_dims", lc, nc, true);
	dot_list(g, "rhs_contracting_dims", rc, nc, true);
	ffu__sb_append(g->sb, "\n");
	return i;
}
