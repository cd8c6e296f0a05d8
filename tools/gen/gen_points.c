/*
 * tools/gen/gen_points.c: the generator's steps on elliptic-curve points (gen.h), drawn by
 * gen.c's point steps from a stream of their own, in programs whose type is a curve's
 * scalar field (bn254_sf, bls12_381_sf and their _mont twins): points as parameters
 * (random valid points), constants "k" (k G), scalar multiples of them by the program's
 * values, sums and differences of every allowed kind pair, negation, converts between
 * kinds and forms, compare EQ/NE and select, and reduce by add (jacobian or xyzz). Once
 * points are in the pool, the layout steps of gen_ops.c and gen_index.c (slice, reshape,
 * broadcast, concatenate, transpose, dynamic slices, select) move them as any value.
 *
 * Which result kinds are valid is fields/point.h's (the verifier's rules), asked here
 * rather than restated. G2 points (coordinates in an extension) compile for minutes on
 * Rusticl: cheap programs keep to G1.
 */
#include <stdio.h>
#include <string.h>

#include "gen_impl.h"
#include "point.h"

static bool is_point(ffu_type t)
{
	return fld(t)->kind == FFU_ELEM_POINT;
}

static bool ok_point(const gen *g, const val *x)
{
	(void)g;
	return is_point(x->type);
}

/* A point type of this program: its type's curve (any, by chance), kind and form. */
static bool usable(const gen *g, ffu_type t)
{
	const ffu_field *f = fld(t);
	return f && f->kind == FFU_ELEM_POINT && f->curve->scalar == fld(g->t)->base &&
	       (!g->cheap || f->coef->kind != FFU_ELEM_EXT);
}

bool ffu__gen_points_apply(const gen *g)
{
	for (int t = 0; t < FFU_ELEM_COUNT; t++)
		if (usable(g, (ffu_type)t))
			return true;
	return false;
}

/* The point type of curve c in form (mont or not) with coordinate kind k. */
static ffu_type type_of(const ffu_curve *c, bool mont, ffu_point_form k)
{
	const ffu_field *f = ffu__point_type_of(c, k, mont);
	return f ? (ffu_type)f->id : FFU_TYPE_INVALID;
}

static ffu_type random_type(gen *g)
{
	ffu_type ts[FFU_ELEM_COUNT];
	int n = 0;
	for (int t = 0; t < FFU_ELEM_COUNT; t++)
		if (usable(g, (ffu_type)t))
			ts[n++] = (ffu_type)t;
	return n ? ts[pick(g, (unsigned)n)] : FFU_TYPE_INVALID;
}

/* "k": the point k G, often the point at infinity (0) or G itself. */
static int point_constant(gen *g, ffu_type t)
{
	static const unsigned ks[] = {0, 1, 2, 7};
	unsigned k = chance(g, 2) ? ks[pick(g, 4)] : 1 + pick(g, 1000000);
	int i = ffu__gen_begin(g, t, 0, NULL);
	if (i >= 0)
		ffu__sb_printf(g->sb, "constant(\"%u\")\n", k);
	return i;
}

int ffu__gen_point_make(gen *g, ffu_type t, int rank, const int64_t *dims)
{
	if (!chance(g, 3))
		return ffu__gen_parameter(g, t, rank, dims);
	int s = point_constant(g, t);
	return rank ? ffu__gen_broadcast_scalar(g, s, rank, dims) : s;
}

/* A point value: from the pool (3 in 4), else a new one of a random type, the base shape. */
static int point_value(gen *g)
{
	int a = chance(g, 4) ? -1 : ffu__gen_any(g, ok_point);
	if (a >= 0)
		return a;
	ffu_type t = random_type(g);
	return t == FFU_TYPE_INVALID ? -1 : ffu__gen_point_make(g, t, g->rank, g->dims);
}

/* multiply(scalar, point): the program's values (its type is the scalar field) times points. */
static int op_mul(gen *g)
{
	int p = point_value(g);
	if (p < 0)
		return -1;
	val x = g->v[p];
	const ffu_field *f = fld(x.type);
	int k = ffu__gen_operand(g, g->t, x.rank, x.dims);
	ffu_point_form to = f->form != FFU_POINT_AFFINE ? f->form : chance(g, 2) ? FFU_POINT_JACOBIAN : FFU_POINT_XYZZ;
	ffu_type rt = type_of(f->curve, ffu__field_is_mont(f), to);
	if (k < 0 || rt == FFU_TYPE_INVALID || !ffu__point_mul_ok(fld(rt), f))
		return -1;
	int i = ffu__gen_begin(g, rt, x.rank, x.dims);
	if (i >= 0)
		ffu__sb_printf(g->sb, "multiply(%%%s, %%%s)\n", g->v[k].name, g->v[p].name);
	return i;
}

/* add or subtract: a second operand of the same curve and form, an allowed kind pair. */
static int op_add(gen *g)
{
	int a = point_value(g);
	if (a < 0)
		return -1;
	val x = g->v[a];
	const ffu_field *fa = fld(x.type);
	const bool mont = ffu__field_is_mont(fa);
	/* the other operand: affine, or the first one's kind when that is not affine */
	ffu_point_form kb = fa->form == FFU_POINT_AFFINE ? (ffu_point_form)pick(g, 3) : chance(g, 2) ? FFU_POINT_AFFINE : fa->form;
	ffu_type tb = type_of(fa->curve, mont, kb);
	ffu_point_form k = fa->form != FFU_POINT_AFFINE ? fa->form : kb != FFU_POINT_AFFINE ? kb
					     : chance(g, 2) ? FFU_POINT_JACOBIAN : FFU_POINT_XYZZ;
	ffu_type rt = type_of(fa->curve, mont, k);
	int b = tb == FFU_TYPE_INVALID ? -1 : chance(g, 6) && tb == x.type ? a : ffu__gen_operand(g, tb, x.rank, x.dims);
	if (b < 0 || rt == FFU_TYPE_INVALID || !ffu__point_add_ok(fld(rt), fa, fld(tb)))
		return -1;
	int i = ffu__gen_begin(g, rt, x.rank, x.dims);
	if (i >= 0)
		ffu__sb_printf(g->sb, "%s(%%%s, %%%s)\n", chance(g, 3) ? "subtract" : "add", g->v[a].name, g->v[b].name);
	return i;
}

/* A new value of type rt and a's shape, op(a); its index, or -1. */
static int unary(gen *g, const char *op, int a, ffu_type rt)
{
	int i = ffu__gen_begin(g, rt, g->v[a].rank, g->v[a].dims);
	if (i >= 0)
		ffu__sb_printf(g->sb, "%s(%%%s)\n", op, g->v[a].name);
	return i;
}

static int op_negate(gen *g)
{
	int a = point_value(g);
	return a < 0 ? -1 : unary(g, "negate", a, g->v[a].type);
}

/* convert to another kind or form of the same curve. */
static int op_convert(gen *g)
{
	int a = point_value(g);
	if (a < 0)
		return -1;
	const ffu_field *f = fld(g->v[a].type);
	ffu_type rt = type_of(f->curve, chance(g, 3) ? !ffu__field_is_mont(f) : ffu__field_is_mont(f),
			      (ffu_point_form)pick(g, 3));
	if (rt == FFU_TYPE_INVALID || rt == g->v[a].type || !ffu__fp_convert_ok(fld(rt), f))
		return -1;
	return unary(g, "convert", a, rt);
}

/* select(compare(a, b) EQ or NE, a, c): points equal as group elements, whatever their coordinates. */
static int op_select(gen *g)
{
	int a = point_value(g);
	if (a < 0)
		return -1;
	val x = g->v[a];
	int b = chance(g, 3) ? a : ffu__gen_operand(g, x.type, x.rank, x.dims);
	int c = ffu__gen_operand(g, x.type, x.rank, x.dims);
	if (b < 0 || c < 0)
		return -1;
	int p = ffu__gen_begin(g, FFU_TYPE_PRED, x.rank, x.dims);
	if (p < 0)
		return -1;
	ffu__sb_printf(g->sb, "compare(%%%s, %%%s), direction=%s\n", g->v[a].name, g->v[b].name, chance(g, 2) ? "EQ" : "NE");
	int i = ffu__gen_begin(g, x.type, x.rank, x.dims);
	if (i >= 0)
		ffu__sb_printf(g->sb, "select(%%%s, %%%s, %%%s)\n", g->v[p].name, g->v[a].name, g->v[c].name);
	return i;
}

static bool ok_point_sum(const gen *g, const val *x)
{
	return ok_point(g, x) && x->rank > 0 && fld(x->type)->form != FFU_POINT_AFFINE;
}

/* reduce by add over some dimensions, from infinity or a constant point. */
static int op_reduce(gen *g)
{
	int a = ffu__gen_any(g, ok_point_sum);
	if (a < 0)
		return -1;
	val x = g->v[a];
	int64_t dims[FFU_MAX_RANK], kept[FFU_MAX_RANK];
	int nd = 0, nk = 0;
	for (int d = 0; d < x.rank; d++) {
		if (chance(g, 2) || (d == x.rank - 1 && nd == 0))
			dims[nd++] = d;
		else
			kept[nk++] = x.dims[d];
	}
	int z = point_constant(g, x.type);
	if (z < 0)
		return -1;
	char attr[64];
	ffu__gen_dims_attr(attr, sizeof attr, dims, nd);
	g->red->need[x.type][0] = true;
	int i = ffu__gen_begin(g, x.type, nk, kept);
	if (i >= 0)
		ffu__sb_printf(g->sb, "reduce(%%%s, %%%s), dimensions=%s, to_apply=%%sum.%s\n", g->v[a].name, g->v[z].name, attr,
			       ffu__type_name(x.type));
	return i;
}

int ffu__gen_op_point(gen *g)
{
	static int (*const ops[])(gen *) = {op_mul, op_mul, op_add, op_add, op_negate, op_convert, op_select, op_reduce};
	return ops[pick(g, sizeof ops / sizeof ops[0])](g);
}
