/*
 * tools/gen/gen_index.c: the random program generator's integer and index operations (see
 * gen.c for how a program is drawn, gen_ops.c for the values they draw on): values of the
 * integer types (s8 ... s64, u8 ... u64: ZKX's start indices, exponents and convert
 * sources), and dynamic-slice and dynamic-update-slice with start indices in range, past
 * the end and negative, so that XLA's clamping is exercised on every path the compiler
 * has for a start: a constant (folded), a parameter (a kernel argument) and a computed
 * scalar (a kernel of its own feeding the window's kernel).
 *
 * gen.c runs these as steps of their own, drawn from a stream of their own, so the other
 * steps of a seed draw what they drew before these existed (gen.c: more_step). Each keeps
 * to the verifier's rules (docs/hlo.md section 3): integers convert (ZKX's rules,
 * ffu__fp_convert_ok), compare in every direction, order (maximum, minimum, clamp), select
 * and move (slice, reshape, broadcast, dynamic-slice, ...), but take no field arithmetic.
 */
#include "gen_impl.h"

#include <stdio.h>
#include <string.h>

#include "fields/field.h"
#include "ir/ir.h"

static const ffu_type int_types[] = {FFU_TYPE_S8, FFU_TYPE_S16, FFU_TYPE_S32, FFU_TYPE_S64,
				     FFU_TYPE_U8, FFU_TYPE_U16, FFU_TYPE_U32, FFU_TYPE_U64};
enum { N_INTS = sizeof int_types / sizeof int_types[0] };

static ffu_type any_int(gen *g)
{
	return int_types[pick(g, N_INTS)];
}

static bool ok_int(const gen *g, const val *x)
{
	(void)g;
	return is_int(x->type);
}

static bool ok_int_array(const gen *g, const val *x)
{
	return ok_int(g, x) && x->rank > 0 && count(x->rank, x->dims) > 0;
}

/* ---- integer constants ---- */

/* The range of integer type t, as int64 (u64's top half is int_edge's). */
static void int_range(ffu_type t, int64_t *lo, int64_t *hi)
{
	const ffu_field *f = fld(t);
	if (f->is_signed) {
		*lo = f->bits == 64 ? INT64_MIN : -((int64_t)1 << (f->bits - 1));
		*hi = f->bits == 64 ? INT64_MAX : ((int64_t)1 << (f->bits - 1)) - 1;
	} else {
		*lo = 0;
		*hi = f->bits >= 63 ? INT64_MAX : ((int64_t)1 << f->bits) - 1;
	}
}

/* A scalar constant of integer type t: v, or the nearest value t holds (a literal must fit). */
static int int_constant(gen *g, ffu_type t, int64_t v)
{
	int64_t lo, hi;
	int_range(t, &lo, &hi);
	v = v < lo ? lo : v > hi ? hi : v;
	int i = ffu__gen_begin(g, t, 0, NULL);
	if (i >= 0)
		ffu__sb_printf(g->sb, "constant(%lld)\n", (long long)v);
	return i;
}

/* The largest or smallest value of t as a scalar constant (2^64 - 1 for u64, -2^63 for s64). */
static int int_edge(gen *g, ffu_type t, bool max)
{
	const ffu_field *f = fld(t);
	unsigned char v[8] = {0};
	char num[FFU_FIELD_TEXT_MAX];
	if (max)
		memset(v, 0xff, f->storage_bytes);
	if (f->is_signed)
		v[f->storage_bytes - 1] = max ? 0x7f : 0x80;
	ffu__fp_format_literal(f, num, v);
	int i = ffu__gen_begin(g, t, 0, NULL);
	if (i >= 0)
		ffu__sb_printf(g->sb, "constant(%s)\n", num);
	return i;
}

/* An interesting integer constant of t: 0, 1, -1 (or the largest), the extremes, a small one. */
static int int_interesting(gen *g, ffu_type t)
{
	switch (pick(g, 5)) {
	case 0:
		return int_constant(g, t, 0);
	case 1:
		return int_constant(g, t, 1);
	case 2:
		return fld(t)->is_signed ? int_constant(g, t, -1) : int_edge(g, t, true);
	case 3:
		return int_edge(g, t, chance(g, 2));
	default:
		return int_constant(g, t, (int64_t)pick(g, 40) - (fld(t)->is_signed ? 8 : 0));
	}
}

/* An operand of integer type t and these dimensions, a broadcast interesting constant now and then. */
static int int_operand(gen *g, ffu_type t, int rank, const int64_t *dims)
{
	if (!chance(g, 4))
		return ffu__gen_operand(g, t, rank, dims);
	int c = int_interesting(g, t);
	return rank == 0 || c < 0 ? c : ffu__gen_broadcast_scalar(g, c, rank, dims);
}

/* ---- converts ---- */

/* convert(value a) into t, which the caller has checked (ffu__fp_convert_ok). */
static int convert_to(gen *g, int a, ffu_type t)
{
	if (a < 0)
		return -1;
	val x = g->v[a];
	int i = ffu__gen_begin(g, t, x.rank, x.dims);
	if (i >= 0)
		ffu__sb_printf(g->sb, "convert(%%%s)\n", x.name);
	return i;
}

/* The types value type `from` converts into: the integers, and from an integer also the
   program's type and its twin (gen_ops.c converts between those two). */
static int convert_targets(const gen *g, ffu_type from, ffu_type *to)
{
	int n = 0;
	const ffu_type extra[] = {g->t, g->twin};
	for (int k = 0; k < N_INTS + (is_int(from) ? 2 : 0); k++) {
		ffu_type t = k < N_INTS ? int_types[k] : extra[k - N_INTS];
		if (t != FFU_TYPE_INVALID && t != from && ffu__fp_convert_ok(fld(t), fld(from)))
			to[n++] = t;
	}
	return n;
}

/*
 * convert into an integer type, between two of them, or out of one into the program's type
 * (or its twin), ZKX's rules: any integer into any integer (narrowing wraps, widening
 * extends by the source's sign), an integer no wider than a prime field's storage into it
 * (its bit pattern, zero-extended, so a negative s8 is not -1 mod p), a 31-bit field into
 * u32 and Goldilocks into u64. Often a second convert follows: s8 -> u64 -> goldilocks.
 */
int ffu__gen_op_int_convert(gen *g)
{
	ffu_type to[N_INTS + 2];
	int a = ffu__gen_any(g, chance(g, 3) ? ok_arith : ok_int), n_to = 0;
	if (a >= 0)
		n_to = convert_targets(g, g->v[a].type, to);
	if (n_to == 0) { /* a new integer value of the base shape (an iota of s8 wraps) */
		a = int_operand(g, any_int(g), g->rank, g->dims);
		if (a < 0)
			return -1;
		n_to = convert_targets(g, g->v[a].type, to);
	}
	int i = convert_to(g, a, to[pick(g, (unsigned)n_to)]);
	if (i >= 0 && chance(g, 2) && (n_to = convert_targets(g, g->v[i].type, to)) > 0)
		i = convert_to(g, i, to[pick(g, (unsigned)n_to)]);
	return i;
}

/* ---- order, compare, select, power ---- */

/*
 * compare of two integer values in any direction (the integers are ordered, s8 ... s64 as
 * signed), half the time selecting between two values of the program's type by it; or
 * maximum, minimum or clamp of integers (clamp's bounds scalars now and then). The other
 * operand is often an extreme or a small constant, where wrapping and signedness show.
 */
int ffu__gen_op_int_order(gen *g)
{
	int a = ffu__gen_any(g, ok_int);
	if (a < 0 || chance(g, 6))
		a = int_operand(g, any_int(g), g->rank, g->dims);
	if (a < 0)
		return -1;
	val x = g->v[a];
	int b = chance(g, 6) ? a : int_operand(g, x.type, x.rank, x.dims), i;
	if (b < 0)
		return -1;
	if (chance(g, 2)) {
		static const char *const dirs[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
		if ((i = ffu__gen_begin(g, FFU_TYPE_PRED, x.rank, x.dims)) < 0)
			return -1;
		ffu__sb_printf(g->sb, "compare(%%%s, %%%s), direction=%s\n", x.name, g->v[b].name, dirs[pick(g, 6)]);
		if (chance(g, 2))
			return i;
		int y = ffu__gen_operand(g, g->t, x.rank, x.dims), z = ffu__gen_operand(g, g->t, x.rank, x.dims), s;
		if (y < 0 || z < 0 || (s = ffu__gen_begin(g, g->t, x.rank, x.dims)) < 0)
			return -1;
		ffu__sb_printf(g->sb, "select(%%%s, %%%s, %%%s)\n", g->v[i].name, g->v[y].name, g->v[z].name);
		return s;
	}
	unsigned what = pick(g, 3);
	int c = -1;
	if (what == 2) { /* clamp(b, a, c), the bounds scalars 1 in 3 */
		bool scalar = chance(g, 3);
		if (scalar && (b = int_interesting(g, x.type)) < 0)
			return -1;
		c = scalar ? int_interesting(g, x.type) : int_operand(g, x.type, x.rank, x.dims);
		if (c < 0)
			return -1;
	}
	if ((i = ffu__gen_begin(g, x.type, x.rank, x.dims)) < 0)
		return -1;
	if (what == 2)
		ffu__sb_printf(g->sb, "clamp(%%%s, %%%s, %%%s)\n", g->v[b].name, x.name, g->v[c].name);
	else
		ffu__sb_printf(g->sb, "%s(%%%s, %%%s)\n", what ? "minimum" : "maximum", x.name, g->v[b].name);
	return i;
}

/* An integer value of these dimensions from the pool (any integer type); -1 if none. */
static int int_of_dims(gen *g, int rank, const int64_t *dims)
{
	int hits[MAX_VALS], n = 0;
	for (int i = 0; i < g->n; i++)
		if (is_int(g->v[i].type) && g->v[i].rank == rank &&
		    (rank == 0 || memcmp(g->v[i].dims, dims, sizeof(int64_t) * (size_t)rank) == 0))
			hits[n++] = i;
	return n ? hits[pick(g, (unsigned)n)] : -1;
}

/*
 * power of a field value by a u8 or u16 exponent (gen_ops.c's power takes u32 and u64):
 * per element (an iota, a parameter, or another integer of the pool converted, so a
 * negative s8 is a large exponent) or one constant. Per-element exponents of 256-bit
 * values stay out of cheap programs, as in gen_ops.c.
 */
int ffu__gen_op_int_power(gen *g)
{
	int a = ffu__gen_any(g, ok_arith);
	if (a < 0 || chance(g, 8))
		a = ffu__gen_operand(g, g->t, g->rank, g->dims);
	if (a < 0)
		return -1;
	val x = g->v[a];
	ffu_type et = chance(g, 2) ? FFU_TYPE_U8 : FFU_TYPE_U16;
	int e;
	if (x.rank > 0 && !slow_op(g, x.type) && !chance(g, 3)) {
		int src = chance(g, 2) ? int_of_dims(g, x.rank, x.dims) : -1;
		if (src >= 0)
			e = g->v[src].type == et ? src : convert_to(g, src, et);
		else
			e = chance(g, 2) ? ffu__gen_iota(g, et, x.rank, x.dims) : ffu__gen_parameter(g, et, x.rank, x.dims);
	} else {
		static const int64_t small[] = {0, 1, 2, 3, 5, 7, 16, 255, 256, 65535};
		e = int_constant(g, et, small[pick(g, sizeof small / sizeof small[0])]);
		if (x.rank > 0)
			e = ffu__gen_broadcast_scalar(g, e, x.rank, x.dims);
	}
	int i = e < 0 ? -1 : ffu__gen_begin(g, x.type, x.rank, x.dims);
	if (i >= 0)
		ffu__sb_printf(g->sb, "power(%%%s, %%%s)\n", x.name, g->v[e].name);
	return i;
}

/* ---- dynamic-slice, dynamic-update-slice ---- */

/*
 * A start index computed from other values (the device computes it in a kernel of its own
 * and passes it on): a parameter clamped to about [0, hi] (clamp(lo, p, hi + k)); another
 * integer (or the program's field value, through u32/u64) converted, wrapping or
 * extending; or one element of an integer array of the pool (an iota's elements are in
 * range), sliced out and reshaped to a scalar.
 */
static int computed_start(gen *g, ffu_type t, int64_t hi)
{
	unsigned what = pick(g, 3);
	if (what == 0) {
		int x = chance(g, 2) ? ffu__gen_find(g, t, 0, NULL) : -1;
		if (x < 0)
			x = ffu__gen_parameter(g, t, 0, NULL);
		int lo = int_constant(g, t, fld(t)->is_signed && chance(g, 2) ? -2 : 0);
		int up = int_constant(g, t, hi + (int64_t)pick(g, 3));
		int i = x < 0 || lo < 0 || up < 0 ? -1 : ffu__gen_begin(g, t, 0, NULL);
		if (i >= 0)
			ffu__sb_printf(g->sb, "clamp(%%%s, %%%s, %%%s)\n", g->v[lo].name, g->v[x].name, g->v[up].name);
		return i;
	}
	if (what == 1) {
		int x = -1;
		/* a scalar of the program: a 31-bit field converts to u32, Goldilocks to u64 */
		for (int k = 0; k < 2 && chance(g, 2); k++) {
			ffu_type u = k ? FFU_TYPE_U64 : FFU_TYPE_U32;
			int s = ffu__fp_convert_ok(fld(u), fld(g->t)) ? ffu__gen_find(g, g->t, 0, NULL) : -1;
			if (s >= 0) {
				x = convert_to(g, s, u);
				break;
			}
		}
		if (x < 0) {
			ffu_type from = any_int(g);
			x = ffu__gen_find(g, from, 0, NULL);
			if (x < 0)
				x = chance(g, 2) ? ffu__gen_parameter(g, from, 0, NULL) : int_interesting(g, from);
		}
		return x < 0 || g->v[x].type == t ? x : convert_to(g, x, t);
	}
	int a = ffu__gen_any(g, ok_int_array);
	if (a < 0 && g->rank > 0 && count(g->rank, g->dims) > 0)
		a = ffu__gen_iota(g, t, g->rank, g->dims);
	if (a < 0)
		return ffu__gen_parameter(g, t, 0, NULL);
	val x = g->v[a];
	int64_t one[FFU_MAX_RANK];
	for (int d = 0; d < x.rank; d++)
		one[d] = 1;
	int s = ffu__gen_begin(g, x.type, x.rank, one);
	if (s < 0)
		return -1;
	ffu__sb_printf(g->sb, "slice(%%%s), slice={", x.name);
	for (int d = 0; d < x.rank; d++) {
		int64_t k = (int64_t)pick(g, (unsigned)x.dims[d]);
		ffu__sb_printf(g->sb, "%s[%lld:%lld]", d ? ", " : "", (long long)k, (long long)k + 1);
	}
	ffu__sb_append(g->sb, "}\n");
	int r = ffu__gen_begin(g, x.type, 0, NULL);
	if (r < 0)
		return -1;
	ffu__sb_printf(g->sb, "reshape(%%%s)\n", g->v[s].name);
	return x.type == t ? r : convert_to(g, r, t);
}

/*
 * A start index of type t for a window that fits when it starts at 0 .. hi (the dimension
 * less the window; XLA clamps any other start into that range). Now and then a scalar of
 * t from the pool (windows sharing a start); else a constant in range (most often), just
 * past hi, negative (or, unsigned, the largest value) or an extreme of the type, a scalar
 * parameter (tools/gen/soak.c draws those small, about the dimensions' range), or a
 * computed scalar.
 */
static int start_index(gen *g, ffu_type t, int64_t hi)
{
	int s = chance(g, 5) ? ffu__gen_find(g, t, 0, NULL) : -1;
	if (s >= 0)
		return s;
	switch (pick(g, 10)) {
	case 0:
	case 1:
	case 2:
		return int_constant(g, t, (int64_t)pick(g, (unsigned)hi + 1));
	case 3:
		return int_constant(g, t, hi + 1 + (int64_t)pick(g, 3));
	case 4:
		return fld(t)->is_signed ? int_constant(g, t, -1 - (int64_t)pick(g, 4)) : int_edge(g, t, true);
	case 5:
		return int_edge(g, t, chance(g, 2));
	case 6:
	case 7:
		return ffu__gen_parameter(g, t, 0, NULL);
	default:
		return computed_start(g, t, hi);
	}
}

/* A window of x's rank: per dimension 1 .. its size, all of it 1 in 6, empty now and then. */
static void window(gen *g, const val *x, int64_t *size)
{
	for (int d = 0; d < x->rank; d++) {
		int64_t n = x->dims[d];
		size[d] = n == 0 || chance(g, 40) ? 0 : chance(g, 6) ? n : 1 + (int64_t)pick(g, (unsigned)n);
	}
}

/* The starts of a window of size in x, all of one integer type (the verifier's rule). */
static bool starts(gen *g, const val *x, const int64_t *size, int *st)
{
	ffu_type t = any_int(g);
	for (int d = 0; d < x->rank; d++)
		if ((st[d] = start_index(g, t, x->dims[d] - size[d])) < 0)
			return false;
	return true;
}

static void starts_text(gen *g, const int *st, int rank)
{
	for (int d = 0; d < rank; d++)
		ffu__sb_printf(g->sb, ", %%%s", g->v[st[d]].name);
}

/* dynamic-slice(x, starts...) of a window of size; -1 when the pool is full. */
static int dynamic_slice(gen *g, const val *x, const int64_t *size, const int *st)
{
	char attr[96];
	int i = ffu__gen_begin(g, x->type, x->rank, size);
	if (i < 0)
		return -1;
	ffu__sb_printf(g->sb, "dynamic-slice(%%%s", x->name);
	starts_text(g, st, x->rank);
	ffu__gen_dims_attr(attr, sizeof attr, size, x->rank);
	ffu__sb_printf(g->sb, "), dynamic_slice_sizes=%s\n", attr);
	return i;
}

/*
 * dynamic-slice of a pool value of any type (an array most often; a scalar's window is
 * itself, with no starts).
 */
/* A pool value x (an array 11 times in 12), a window of it and its starts; false when none. */
static bool pick_window(gen *g, val *x, int64_t *size, int *st)
{
	int a = ffu__gen_any(g, chance(g, 12) ? ok_any : ok_array);
	if (a < 0)
		return false;
	*x = g->v[a];
	window(g, x, size);
	return starts(g, x, size, st);
}

int ffu__gen_op_dynamic_slice(gen *g)
{
	val x;
	int64_t size[FFU_MAX_RANK];
	int st[FFU_MAX_RANK];
	return pick_window(g, &x, size, st) ? dynamic_slice(g, &x, size, st) : -1;
}

/*
 * A new value from window w (of x's type): for a field, its negation or its sum or product
 * with another value; for an integer, its maximum with another; otherwise (pred) reversed.
 */
static int modify(gen *g, int w)
{
	if (w < 0)
		return -1;
	val x = g->v[w];
	int b = 0, i;
	unsigned what = pick(g, 3);
	if (is_int(x.type))
		b = int_operand(g, x.type, x.rank, x.dims);
	else if (is_arith(x.type) && what > 0)
		b = ffu__gen_operand(g, x.type, x.rank, x.dims);
	if (b < 0 || (i = ffu__gen_begin(g, x.type, x.rank, x.dims)) < 0)
		return -1;
	if (is_int(x.type)) {
		ffu__sb_printf(g->sb, "maximum(%%%s, %%%s)\n", x.name, g->v[b].name);
	} else if (is_arith(x.type)) {
		if (what == 0)
			ffu__sb_printf(g->sb, "negate(%%%s)\n", x.name);
		else
			ffu__sb_printf(g->sb, "%s(%%%s, %%%s)\n", what == 1 ? "add" : "multiply", x.name, g->v[b].name);
	} else {
		int64_t all[FFU_MAX_RANK];
		char attr[64];
		for (int d = 0; d < x.rank; d++)
			all[d] = d;
		ffu__gen_dims_attr(attr, sizeof attr, all, x.rank);
		ffu__sb_printf(g->sb, "reverse(%%%s), dimensions=%s\n", x.name, attr);
	}
	return i;
}

/*
 * dynamic-update-slice of a pool value: the update a value of the window's shape, or 1 in 3
 * the window read at the same starts and changed (read, modify, write back: the update's
 * producer reads the operand the update goes into).
 */
int ffu__gen_op_dynamic_update_slice(gen *g)
{
	val x;
	int64_t size[FFU_MAX_RANK];
	int st[FFU_MAX_RANK];
	if (!pick_window(g, &x, size, st))
		return -1;
	int u;
	if (chance(g, 3))
		u = modify(g, dynamic_slice(g, &x, size, st));
	else
		u = is_int(x.type) ? int_operand(g, x.type, x.rank, size) : ffu__gen_operand(g, x.type, x.rank, size);
	int i = u < 0 ? -1 : ffu__gen_begin(g, x.type, x.rank, x.dims);
	if (i < 0)
		return -1;
	ffu__sb_printf(g->sb, "dynamic-update-slice(%%%s, %%%s", x.name, g->v[u].name);
	starts_text(g, st, x.rank);
	ffu__sb_append(g->sb, ")\n");
	return i;
}
