/*
 * src/api/build_ops.c: the ffu_build_* constructors of include/fieldfuse/builder.h, one per
 * op family (sources, element-wise, layout, reductions and tuples): each checks its public
 * arguments, builds the result shape and attributes, and adds the instruction through
 * ffu__bld_add (builder.c), which verifies it. Owned by the API layer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/builder_impl.h"
#include "util/grow.h"

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

/* The next entry parameter, named name, of shape s (the caller checked the builder). */
static ffu_node parameter(ffu_builder *b, const char *call, const char *name, const ffu_shape *s)
{
	if (!ffu__grow((void **)&b->params, &b->cap_params, b->n_params + 1, sizeof *b->params))
		return ffu__bld_fail(b, FFU_STATUS_ENOMEM, call, "out of memory");
	ffu_node n = ffu__bld_add(b, call, FFU_OP_PARAMETER, name, s, NULL, 0, NULL, NULL);
	if (n == FFU_NODE_INVALID)
		return n;
	b->nodes[n]->index = b->n_params;
	b->params[b->n_params++] = b->nodes[n];
	return n;
}

/* A usable builder and a new, valid parameter name; else the error recorded under call. */
static bool param_name_ok(ffu_builder *b, const char *call, const char *name)
{
	if (!ffu__bld_usable(b, call))
		return false;
	if (!ffu__bld_hlo_name(name)) {
		ffu__bld_fail(b, FFU_STATUS_EINVAL, call, "name '%s' is not an HLO name ([A-Za-z0-9_.-]+)",
			      name ? name : "(null)");
		return false;
	}
	if (ffu__bld_name_taken(b, name)) {
		ffu__bld_fail(b, FFU_STATUS_EINVAL, call, "name '%s' is already used in the module", name);
		return false;
	}
	return true;
}

ffu_node ffu_build_parameter(ffu_builder *b, const char *name, const char *type, int rank, const int64_t *dims)
{
	const char *call = "ffu_build_parameter";
	ffu_shape s;
	if (!param_name_ok(b, call, name) || !shape_arg(b, &s, type, rank, dims, call))
		return FFU_NODE_INVALID;
	return parameter(b, call, name, &s);
}

ffu_node ffu_build_parameter_csr(ffu_builder *b, const char *name, const char *type, int64_t rows, int64_t cols,
				 int64_t nnz)
{
	const char *call = "ffu_build_parameter_csr";
	ffu_shape s;
	if (!param_name_ok(b, call, name) || !shape_arg(b, &s, type, 2, (const int64_t[]){rows, cols}, call))
		return FFU_NODE_INVALID;
	s.csr = true; /* the verifier checks the type and nnz */
	s.nnz = nnz;
	return parameter(b, call, name, &s);
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
	if (!ffu__bld_usable(b, call) || !shape_arg(b, &s, type, rank, dims, call))
		return FFU_NODE_INVALID;
	uint64_t count = (uint64_t)ffu__shape_count(&s), eb = ffu__shape_elem_bytes(&s);
	if (eb && count > SIZE_MAX / eb)
		return ffu__bld_fail(b, FFU_STATUS_EINVAL, call, "the literal is too large for host memory");
	size_t want = (size_t)(count * eb);
	if (bytes != want)
		return ffu__bld_fail(b, FFU_STATUS_EINVAL, call, "%zu bytes given; %s needs %zu (%llu elements of %llu bytes)", bytes,
			    type, want, (unsigned long long)count, (unsigned long long)eb);
	if (want && !data)
		return ffu__bld_fail(b, FFU_STATUS_EINVAL, call, "data is NULL");
	unsigned char *lit = ffu__arena_alloc(&b->m->arena, want ? want : 1);
	if (!lit)
		return ffu__bld_fail(b, FFU_STATUS_ENOMEM, call, "out of memory");
	if (want)
		memcpy(lit, data, want);
	return ffu__bld_add(b, call, FFU_OP_CONSTANT, NULL, &s, NULL, 0, set_literal, lit);
}

ffu_node ffu_build_constant_u64(ffu_builder *b, const char *type, uint64_t value)
{
	const char *call = "ffu_build_constant_u64";
	ffu_shape s;
	if (!ffu__bld_usable(b, call) || !shape_arg(b, &s, type, 0, NULL, call))
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
			return ffu__bld_fail(b, FFU_STATUS_EINVAL, call, "%llu does not fit a %s element", (unsigned long long)value,
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
	if (!ffu__bld_usable(b, call) || !shape_arg(b, &s, type, rank, dims, call))
		return FFU_NODE_INVALID;
	int64_t d = dimension;
	return ffu__bld_add(b, call, FFU_OP_IOTA, NULL, &s, NULL, 0, set_index, &d);
}

/* ---------------------------------------------------------------- element-wise */

/* An element-wise op whose result has operand `like`'s shape (with `type` if not INVALID). */
static ffu_node elementwise(ffu_builder *b, const char *call, ffu_op op, const ffu_node *xs, int n, int like,
			    ffu_type type, attr_fn set_attrs, const void *arg)
{
	ffu_inst *ops[3];
	if (!ffu__bld_usable(b, call))
		return FFU_NODE_INVALID;
	for (int j = 0; j < n; j++)
		if (!(ops[j] = ffu__bld_operand(b, call, j, xs[j])))
			return FFU_NODE_INVALID;
	ffu_shape s = ops[like]->shape;
	if (type != FFU_TYPE_INVALID) {
		/* convert/compare: the operand's dimensions with another type (a non-array operand
		   keeps its shape, and the verifier names the problem) */
		if (ffu__shape_is_array(&s))
			s.type = type;
	}
	return ffu__bld_add(b, call, op, NULL, &s, ops, n, set_attrs, arg);
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

ffu_node ffu_build_square(ffu_builder *b, ffu_node x)
{
	return elementwise(b, "ffu_build_square", FFU_OP_SQUARE, &x, 1, 0, FFU_TYPE_INVALID, NULL, NULL);
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
	/* the public enum lists the directions in ffu_compare_dir's order */
	if ((int)dir < FFU_COMPARE_EQ || (int)dir > FFU_COMPARE_GE) {
		if (ffu__bld_usable(b, call))
			ffu__bld_fail(b, FFU_STATUS_EINVAL, call, "direction %d is not one of FFU_COMPARE_EQ .. FFU_COMPARE_GE", (int)dir);
		return FFU_NODE_INVALID;
	}
	ffu_compare_dir d = (ffu_compare_dir)((int)dir - FFU_COMPARE_EQ + FFU_CMP_EQ);
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
		if (ffu__bld_usable(b, call))
			ffu__bld_fail(b, FFU_STATUS_EINVAL, call, "unknown element type '%s'", type ? type : "(null)");
		return FFU_NODE_INVALID;
	}
	return elementwise(b, call, FFU_OP_CONVERT, &x, 1, 0, t, NULL, NULL);
}

/* ---------------------------------------------------------------- layout */

void ffu__bld_set_dims(ffu_inst *in, const void *arg)
{
	const ffu__bld_dims *a = arg;
	in->n_dims = a->n;
	if (a->n > 0 && (in->dims = ffu__arena_alloc(a->arena, sizeof *in->dims * (size_t)a->n)))
		memcpy(in->dims, a->dims, sizeof *in->dims * (size_t)a->n);
	else if (a->n > 0)
		in->n_dims = -1; /* out of memory: the verifier refuses a malformed list */
}

ffu_node ffu_build_broadcast(ffu_builder *b, ffu_node x, int rank, const int64_t *dims, const int64_t *map, int n_map)
{
	const char *call = "ffu_build_broadcast";
	if (!ffu__bld_usable(b, call))
		return FFU_NODE_INVALID;
	ffu_inst *in = ffu__bld_operand(b, call, 0, x);
	if (!in)
		return FFU_NODE_INVALID;
	if (n_map < 0 || n_map > FFU_MAX_RANK || (n_map > 0 && !map))
		return ffu__bld_fail(b, FFU_STATUS_EINVAL, call, "map must list 0..%d dimensions (n_map = %d%s)", FFU_MAX_RANK, n_map,
			    n_map > 0 && !map ? ", map NULL" : "");
	ffu_shape s;
	const char *type = ffu__shape_is_array(&in->shape) ? ffu__type_name(in->shape.type) : "(tuple)";
	if (!shape_arg(b, &s, type, rank, dims, call))
		return FFU_NODE_INVALID;
	ffu__bld_dims a = {map, n_map, &b->m->arena};
	return ffu__bld_add(b, call, FFU_OP_BROADCAST, NULL, &s, &in, 1, ffu__bld_set_dims, &a);
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
	if (!ffu__bld_usable(b, call))
		return FFU_NODE_INVALID;
	ffu_inst *in = ffu__bld_operand(b, call, 0, x);
	if (!in)
		return FFU_NODE_INVALID;
	ffu_shape s = in->shape;
	slice_arg a = {start, limit, stride, ffu__shape_is_array(&s) ? s.rank : 0};
	if (a.rank > 0 && (!start || !limit))
		return ffu__bld_fail(b, FFU_STATUS_EINVAL, call, "start and limit need one entry per dimension of '%%%s'", in->name);
	/* the result's extent per dimension; ranges out of bounds are the verifier's to name */
	for (int d = 0; d < a.rank; d++) {
		int64_t lo = start[d], hi = limit[d], step = stride ? stride[d] : 1;
		s.dims[d] = step >= 1 && lo >= 0 && hi >= lo ? (hi - lo) / step + ((hi - lo) % step != 0) : 0;
	}
	return ffu__bld_add(b, call, FFU_OP_SLICE, NULL, &s, &in, 1, set_slice, &a);
}

ffu_node ffu_build_concatenate(ffu_builder *b, const ffu_node *xs, int n, int dimension)
{
	const char *call = "ffu_build_concatenate";
	if (!ffu__bld_usable(b, call))
		return FFU_NODE_INVALID;
	if (n < 1 || !xs)
		return ffu__bld_fail(b, FFU_STATUS_EINVAL, call, "needs at least one operand (n = %d%s)", n, xs ? "" : ", xs NULL");
	ffu_inst **ops = calloc((size_t)n, sizeof *ops);
	if (!ops)
		return ffu__bld_fail(b, FFU_STATUS_ENOMEM, call, "out of memory");
	ffu_node r = FFU_NODE_INVALID;
	for (int j = 0; j < n; j++)
		if (!(ops[j] = ffu__bld_operand(b, call, j, xs[j])))
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
	ffu__bld_dims a = {&d, 1, &b->m->arena};
	r = ffu__bld_add(b, call, FFU_OP_CONCATENATE, NULL, &s, ops, n, ffu__bld_set_dims, &a);
out:
	free(ops);
	return r;
}

ffu_node ffu_build_reshape(ffu_builder *b, ffu_node x, int rank, const int64_t *dims)
{
	const char *call = "ffu_build_reshape";
	if (!ffu__bld_usable(b, call))
		return FFU_NODE_INVALID;
	ffu_inst *in = ffu__bld_operand(b, call, 0, x);
	if (!in)
		return FFU_NODE_INVALID;
	ffu_shape s;
	const char *type = ffu__shape_is_array(&in->shape) ? ffu__type_name(in->shape.type) : "(tuple)";
	if (!shape_arg(b, &s, type, rank, dims, call))
		return FFU_NODE_INVALID;
	return ffu__bld_add(b, call, FFU_OP_RESHAPE, NULL, &s, &in, 1, NULL, NULL);
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
	if (ffu__bld_comp_name_taken(b, base))
		ffu__bld_fresh_name(b, name, sizeof name, base, true);
	else
		snprintf(name, sizeof name, "%s", base);
	snprintf(px, sizeof px, "%s.x", name);
	snprintf(py, sizeof py, "%s.y", name);
	snprintf(pr, sizeof pr, "%s.r", name);
	if (ffu__bld_name_taken(b, px) || ffu__bld_name_taken(b, py) || ffu__bld_name_taken(b, pr))
		return NULL; /* the user took one: reported as a name clash by the caller */
	ffu_computation *c = ffu__comp_new_reducer(b->m, name, px, py, pr, type,
						   kind == FFU_REDUCE_SUM ? FFU_OP_ADD : FFU_OP_MULTIPLY);
	if (!c || !ffu__sym_put(&b->names, c->params[0]->name, c->params[0]) ||
	    !ffu__sym_put(&b->names, c->params[1]->name, c->params[1]) || !ffu__sym_put(&b->names, c->root->name, c->root))
		return NULL;
	*slot = c;
	return c;
}

bool ffu__bld_to_apply(ffu_builder *b, const char *call, ffu_type type, ffu_reduce_kind kind, ffu_computation **out)
{
	*out = NULL;
	/* only a field type gets one: for others the verifier reports the type */
	const ffu_field *f = type >= 0 && type < FFU_TYPE_TUPLE ? ffu__field_get((ffu_field_id)type) : NULL;
	if (!f || f->kind == FFU_ELEM_UINT || f->kind == FFU_ELEM_PRED)
		return true;
	if ((*out = reducer(b, type, kind)))
		return true;
	ffu__bld_fail(b, FFU_STATUS_ENOMEM, call, "cannot create the %s computation (out of memory, or its names are taken)",
		      kind == FFU_REDUCE_SUM ? "sum" : "product");
	return false;
}

typedef struct reduce_arg {
	ffu__bld_dims dims;
	ffu_computation *callee;
	ffu_op fn;
} reduce_arg;

static void set_reduce(ffu_inst *in, const void *arg)
{
	const reduce_arg *a = arg;
	ffu__bld_set_dims(in, &a->dims);
	in->callee = a->callee;
	in->reduce_fn = a->fn;
}

ffu_node ffu_build_reduce(ffu_builder *b, ffu_node x, ffu_node init, const int64_t *dims, int n_dims,
			  ffu_reduce_kind kind)
{
	const char *call = "ffu_build_reduce";
	if (!ffu__bld_usable(b, call))
		return FFU_NODE_INVALID;
	ffu_inst *ops[2];
	if (!(ops[0] = ffu__bld_operand(b, call, 0, x)) || !(ops[1] = ffu__bld_operand(b, call, 1, init)))
		return FFU_NODE_INVALID;
	if (kind != FFU_REDUCE_SUM && kind != FFU_REDUCE_PRODUCT)
		return ffu__bld_fail(b, FFU_STATUS_EINVAL, call, "kind %d is neither FFU_REDUCE_SUM nor FFU_REDUCE_PRODUCT", (int)kind);
	if (n_dims < 0 || n_dims > FFU_MAX_RANK || (n_dims > 0 && !dims))
		return ffu__bld_fail(b, FFU_STATUS_EINVAL, call, "dims must list 0..%d dimensions (n_dims = %d%s)", FFU_MAX_RANK,
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
		if (!ffu__bld_to_apply(b, call, xs->type, kind, &a.callee))
			return FFU_NODE_INVALID;
	} else {
		s = *xs;
	}
	return ffu__bld_add(b, call, FFU_OP_REDUCE, NULL, &s, ops, 2, set_reduce, &a);
}

static void set_fft(ffu_inst *in, const void *arg)
{
	in->fft = *(const ffu_fft_attrs *)arg;
}

ffu_node ffu_build_fft(ffu_builder *b, ffu_node x, const ffu_node *twiddles, ffu_fft_type type, bool bit_reverse)
{
	const char *call = "ffu_build_fft";
	if (!ffu__bld_usable(b, call))
		return FFU_NODE_INVALID;
	if (type != FFU_FFT_FORWARD && type != FFU_FFT_INVERSE)
		return ffu__bld_fail(b, FFU_STATUS_EINVAL, call, "type %d is neither FFU_FFT_FORWARD nor FFU_FFT_INVERSE",
				     (int)type);
	ffu_inst *ops[2];
	int n = twiddles ? 2 : 1;
	if (!(ops[0] = ffu__bld_operand(b, call, 0, x)) || (twiddles && !(ops[1] = ffu__bld_operand(b, call, 1, *twiddles))))
		return FFU_NODE_INVALID;
	const ffu_shape *s = &ops[0]->shape;
	/* fft_length is the last dimension; a shape without one is the verifier's to name */
	ffu_fft_attrs a = {type == FFU_FFT_INVERSE, bit_reverse,
			   ffu__shape_is_array(s) && s->rank > 0 ? s->dims[s->rank - 1] : 0};
	return ffu__bld_add(b, call, FFU_OP_FFT, NULL, s, ops, n, set_fft, &a);
}

ffu_node ffu_build_tuple(ffu_builder *b, const ffu_node *xs, int n)
{
	const char *call = "ffu_build_tuple";
	if (!ffu__bld_usable(b, call))
		return FFU_NODE_INVALID;
	if (n < 0 || (n > 0 && !xs))
		return ffu__bld_fail(b, FFU_STATUS_EINVAL, call, "n = %d%s", n, n > 0 && !xs ? " with xs NULL" : " is negative");
	ffu_inst **ops = calloc((size_t)n + 1, sizeof *ops);
	ffu_shape *elems = ops && n ? ffu__arena_alloc(&b->m->arena, sizeof *elems * (size_t)n) : NULL;
	ffu_node r = FFU_NODE_INVALID;
	if (!ops || (n && !elems)) {
		ffu__bld_fail(b, FFU_STATUS_ENOMEM, call, "out of memory");
		goto out;
	}
	for (int j = 0; j < n; j++) {
		if (!(ops[j] = ffu__bld_operand(b, call, j, xs[j])))
			goto out;
		elems[j] = ops[j]->shape; /* inst_new deep-copies the whole tuple shape */
	}
	ffu_shape s = {.type = FFU_TYPE_TUPLE, .n_elems = n, .elems = elems};
	r = ffu__bld_add(b, call, FFU_OP_TUPLE, NULL, &s, ops, n, NULL, NULL);
out:
	free(ops);
	return r;
}

ffu_node ffu_build_get_tuple_element(ffu_builder *b, ffu_node t, int index)
{
	const char *call = "ffu_build_get_tuple_element";
	if (!ffu__bld_usable(b, call))
		return FFU_NODE_INVALID;
	ffu_inst *in = ffu__bld_operand(b, call, 0, t);
	if (!in)
		return FFU_NODE_INVALID;
	const ffu_shape *ts = &in->shape;
	/* out of range or not a tuple: keep the operand's shape, the verifier names the problem */
	const ffu_shape *s = ts->type == FFU_TYPE_TUPLE && index >= 0 && index < ts->n_elems ? &ts->elems[index] : ts;
	int64_t i = index;
	return ffu__bld_add(b, call, FFU_OP_GET_TUPLE_ELEMENT, NULL, s, &in, 1, set_index, &i);
}

/*
 * dynamic-slice / dynamic-update-slice: x (or x and update) then one start node per
 * dimension of x; the verifier names a wrong count, type or size. The slice's result is
 * x's type with the sizes given (the HLO attribute dynamic_slice_sizes is that shape).
 */
static ffu_node dynamic_slice(ffu_builder *b, const char *call, ffu_node x, const ffu_node *update,
			      const ffu_node *starts, const int64_t *sizes)
{
	if (!ffu__bld_usable(b, call))
		return FFU_NODE_INVALID;
	ffu_inst *xi = ffu__bld_operand(b, call, 0, x);
	if (!xi)
		return FFU_NODE_INVALID;
	int rank = ffu__shape_is_array(&xi->shape) ? xi->shape.rank : 0, first = update ? 2 : 1;
	if (rank > 0 && (!starts || (!update && !sizes)))
		return ffu__bld_fail(b, FFU_STATUS_EINVAL, call, "%s need%s one entry per dimension of '%%%s'",
				     update ? "starts" : "starts and sizes", update ? "s" : "", xi->name);
	ffu_inst *ops[2 + FFU_MAX_RANK] = {xi};
	if (update && !(ops[1] = ffu__bld_operand(b, call, 1, *update)))
		return FFU_NODE_INVALID;
	for (int d = 0; d < rank; d++)
		if (!(ops[first + d] = ffu__bld_operand(b, call, first + d, starts[d])))
			return FFU_NODE_INVALID;
	ffu_shape s = xi->shape;
	for (int d = 0; !update && d < rank; d++)
		s.dims[d] = sizes[d];
	return ffu__bld_add(b, call, update ? FFU_OP_DYNAMIC_UPDATE_SLICE : FFU_OP_DYNAMIC_SLICE, NULL, &s, ops,
			    first + rank, NULL, NULL);
}

ffu_node ffu_build_dynamic_slice(ffu_builder *b, ffu_node x, const ffu_node *starts, const int64_t *sizes)
{
	return dynamic_slice(b, "ffu_build_dynamic_slice", x, NULL, starts, sizes);
}

ffu_node ffu_build_dynamic_update_slice(ffu_builder *b, ffu_node x, ffu_node update, const ffu_node *starts)
{
	return dynamic_slice(b, "ffu_build_dynamic_update_slice", x, &update, starts, NULL);
}
