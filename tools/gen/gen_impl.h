/*
 * tools/gen/gen_impl.h: private to the random program generator (gen.c, which draws a
 * program and writes its module, gen_ops.c, its values and operations, and gen_index.c,
 * the integer and dynamic-slice operations, and gen_points.c, the point steps); no other file
 * includes it. The generator's
 * state g lives in one ffu_gen_batch / ffu_gen_program call (gen.c); the functions here
 * write into g->sb and g's value pool, and keep nothing.
 */
#ifndef FFU_TOOLS_GEN_IMPL_H
#define FFU_TOOLS_GEN_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "gen.h"

#include "fields/field.h"
#include "ir/ir.h"

enum {
	MAX_VALS = 160,
	NAME_LEN = 24,
	MAX_OUTS = 5,
	MAX_TYPES = 64,
	DEFAULT_ELEMS = 1024,
	DEFAULT_STEPS = 16,
	DEFAULT_INDEX_ONE_IN = 4
};

typedef struct val {
	char name[NAME_LEN];
	ffu_type type;
	int rank;
	int64_t dims[FFU_MAX_RANK];
	bool param;
} val;

/* Reduce bodies a module needs: one per element type and sum/product. */
typedef struct reducers {
	bool need[FFU_TYPE_COUNT][2];
} reducers;

typedef struct gen {
	ffu_strbuf *sb;
	uint64_t rng;
	uint64_t rng_more;  /* the stream of the steps gen_index.c adds (gen.c: more_step) */
	int more_one_in;    /* gen.h: ffu_gen_opts.index_one_in */
	uint64_t rng_points; /* the stream of the point steps (gen.c: point_step, gen_points.c) */
	int points_one_in;  /* gen.h: ffu_gen_opts.points_one_in (0: none) */
	const char *prefix; /* "" alone, "g3_" in a batch */
	int param_base, n_params;
	ffu_type t, twin;   /* the program's type; its _mont twin (or the prime field), or INVALID */
	int max_elems, max_steps;
	bool cheap;         /* gen.h: ffu_gen_opts.cheap */
	int rank;           /* the base shape, where most values live */
	int64_t dims[FFU_MAX_RANK];
	val v[MAX_VALS];
	int n, counter;
	reducers *red;
	int outs[MAX_OUTS], n_outs;
} gen;

static inline unsigned pick(gen *g, unsigned n)
{
	return n ? (unsigned)(ffu__rand_next(&g->rng) % n) : 0;
}

static inline bool chance(gen *g, unsigned one_in)
{
	return pick(g, one_in) == 0;
}

static inline const ffu_field *fld(ffu_type t)
{
	return ffu__field_get((ffu_field_id)t);
}

static inline bool is_arith(ffu_type t)
{
	ffu_elem_kind k = fld(t)->kind;
	return k == FFU_ELEM_PRIME || k == FFU_ELEM_MONT || k == FFU_ELEM_EXT;
}

static inline bool is_int(ffu_type t)
{
	return fld(t)->kind == FFU_ELEM_UINT;
}

/* Slow to compile on CPU OpenCL (a 256-bit Fermat inversion): left out of cheap programs. */
/* Pool filters for ffu__gen_any: arithmetic values, arrays, anything. */
static inline bool ok_arith(const gen *g, const val *x)
{
	(void)g;
	return is_arith(x->type);
}

static inline bool ok_array(const gen *g, const val *x)
{
	(void)g;
	return x->rank > 0;
}

static inline bool ok_any(const gen *g, const val *x)
{
	(void)g;
	(void)x;
	return true;
}

static inline bool slow_op(const gen *g, ffu_type t)
{
	return g->cheap && fld(t)->prime && fld(t)->prime->nlimbs > 1;
}

static inline int64_t count(int rank, const int64_t *dims)
{
	int64_t n = 1;
	for (int d = 0; d < rank; d++)
		n *= dims[d];
	return n;
}


/* "TYPE[d0,d1,...]": a value's shape as HLO text. */
void ffu__gen_shape_text(char *buf, size_t size, ffu_type t, int rank, const int64_t *dims);

/*
 * Values and look-ups (gen_ops.c). Each returns the value's index in the pool, -1 when the
 * pool is full (or, for the look-ups, nothing fits).
 */
/* "{a,b,...}": a dimension list attribute. */
void ffu__gen_dims_attr(char *buf, size_t size, const int64_t *list, int n);
/* A new value: "  %name = SHAPE " written, for the caller to finish with the opcode. */
int ffu__gen_begin(gen *g, ffu_type t, int rank, const int64_t *dims);
/* A new parameter of type t and these dimensions. */
int ffu__gen_parameter(gen *g, ffu_type t, int rank, const int64_t *dims);
/* A scalar constant of type t (often 0, 1 or -1; small for the integers). */
int ffu__gen_scalar_constant(gen *g, ffu_type t);
/* iota of type t along a random dimension (rank >= 1). */
int ffu__gen_iota(gen *g, ffu_type t, int rank, const int64_t *dims);
/* Scalar value s broadcast into dims. */
int ffu__gen_broadcast_scalar(gen *g, int s, int rank, const int64_t *dims);
/* A pool value of type t and these dimensions, newest half the time. */
int ffu__gen_find(gen *g, ffu_type t, int rank, const int64_t *dims);
/* A pool value passing ok(), newest half the time. */
int ffu__gen_any(gen *g, bool (*ok)(const gen *, const val *));
/* An operand of type t and these dimensions: from the pool (3 in 4), else made. */
int ffu__gen_operand(gen *g, ffu_type t, int rank, const int64_t *dims);

/*
 * The operations a program step picks from (gen_ops.c): each appends its value (and any
 * operands it had to make) to the pool and returns the value's index, or -1 when it found
 * nothing to apply to or the pool is full.
 */
int ffu__gen_op_binary(gen *g);
int ffu__gen_op_unary(gen *g);
int ffu__gen_op_convert(gen *g);
int ffu__gen_op_select(gen *g);
int ffu__gen_op_order(gen *g);
int ffu__gen_op_permute(gen *g);
int ffu__gen_op_slice(gen *g);
int ffu__gen_op_reshape(gen *g);
int ffu__gen_op_broadcast(gen *g);
int ffu__gen_op_iota(gen *g);
int ffu__gen_op_concatenate(gen *g);
int ffu__gen_op_reduce(gen *g);
int ffu__gen_op_fft(gen *g);
int ffu__gen_op_dot(gen *g);

/*
 * The integer and index operations (gen_index.c), drawn by gen.c's added steps from their
 * own stream: converts into, between and out of the integer types, compare, order and
 * select on integers, power by u8/u16 exponents, dynamic-slice and dynamic-update-slice.
 */
int ffu__gen_op_int_convert(gen *g);
int ffu__gen_op_int_order(gen *g);
int ffu__gen_op_int_power(gen *g);
int ffu__gen_op_dynamic_slice(gen *g);
int ffu__gen_op_dynamic_update_slice(gen *g);

/*
 * The point steps (gen_points.c), drawn by gen.c from their own stream in programs whose
 * type is a curve's scalar field: multiply, add/subtract, negate, convert, compare-select
 * and reduce on points. point_make is make()'s way to a fresh point value (a parameter or
 * a constant "k"); points_apply says whether this program has point types to use.
 */
int ffu__gen_op_point(gen *g);
int ffu__gen_point_make(gen *g, ffu_type t, int rank, const int64_t *dims);
bool ffu__gen_points_apply(const gen *g);

#endif
