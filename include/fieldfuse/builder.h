/*
 * fieldfuse/builder.h: building a program from C instead of HLO text. Every opcode of the
 * dialect (docs/hlo.md, HLO.md section 3) has one ffu_build_* call; the finished module is
 * an ffu_program exactly like one from ffu_program_parse (same verifier, same printer), so
 * `ffu_program_print` shows what was built and parsing that text gives the same program.
 * Owned by the API layer (src/api/builder.c).
 *
 * Nodes and errors (the XLA XlaBuilder model)
 *   - Each ffu_build_* call adds one instruction and returns its node: a small non-negative
 *     integer naming it in this builder. Result shapes are inferred where the operands
 *     determine them (element-wise ops, compare, convert, slice, concatenate, reduce, dot, tuple,
 *     get-tuple-element) and given by the caller where they do not (parameter, constant,
 *     iota, broadcast, reshape).
 *   - Every instruction is checked by the verifier as it is added, with the same rules and
 *     messages as parsed text. A failing call returns FFU_NODE_INVALID (-1) and records the
 *     error, naming the call and the instruction: "ffu_build_add: '%add.3' (add): operand 1
 *     ('%y') has shape babybear[8], expected babybear[4] ...". The first error sticks: every
 *     later call returns FFU_NODE_INVALID without adding anything, and ffu_builder_finish
 *     returns it. So a sequence of calls can be checked once, at the end; ffu_builder_status
 *     reports it at any time.
 *   - Names: parameters take the name given (it is the input's name in ffu_array_info);
 *     other instructions are named `<opcode>.<n>` (`add.3`), and ffu_builder_set_name renames
 *     any node ([A-Za-z0-9_.-]+, unique in the module). A reduce's to_apply computation is
 *     created by the builder: `%sum` / `%product` (`sum.<n>` if taken), one per element type
 *     and kind, shared by every reduce that needs it.
 *   - Parameters are numbered in the order they are added (parameter(0), parameter(1), ...).
 *
 * Element types are their HLO keywords ("babybear", "koalabear_mont", "bn254_sf",
 * "babybearx4", "u32", "u64", "s32", "u8", ... "pred"); shapes are a rank (0 for a scalar, at most
 * FFU_ARRAY_MAX_RANK) and that many dimensions.
 *
 * Ownership: ffu_builder_create makes a builder the caller releases with
 * ffu_builder_destroy (which takes its address, releases it and NULLs it; NULL and a pointer
 * to NULL are no-ops). ffu_builder_finish hands the module to a new ffu_program (the
 * caller's, released with ffu_program_destroy); the builder then accepts no more calls but
 * must still be destroyed. Array arguments (dims, data, node lists, names) are read during
 * the call only. Strings the builder returns are its own, valid until it is destroyed.
 *
 * Threads: a builder is used by one thread at a time. Different builders are independent.
 */
#ifndef FIELDFUSE_BUILDER_H
#define FIELDFUSE_BUILDER_H

#include <stdbool.h>

#include "fieldfuse/fieldfuse.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ffu_builder ffu_builder;
/* An instruction of one builder; FFU_NODE_INVALID after a failed call. */
typedef int32_t ffu_node;
#define FFU_NODE_INVALID ((ffu_node)-1)

/* LT, LE, GT and GE order canonical values: only prime fields (and _mont), u32 and u64. */
typedef enum ffu_compare_direction {
	FFU_COMPARE_EQ, FFU_COMPARE_NE, FFU_COMPARE_LT, FFU_COMPARE_LE, FFU_COMPARE_GT, FFU_COMPARE_GE
} ffu_compare_direction;
typedef enum ffu_reduce_kind { FFU_REDUCE_SUM, FFU_REDUCE_PRODUCT } ffu_reduce_kind;

/* A builder for module `module_name` (NULL: "module") whose entry computation is `%main`. */
FFU_API ffu_status ffu_builder_create(ffu_builder **out, const char *module_name, ffu_error *e);
FFU_API void ffu_builder_destroy(ffu_builder **b);
/* The first error of any call so far (FFU_STATUS_OK if none), copied into e. */
FFU_API ffu_status ffu_builder_status(const ffu_builder *b, ffu_error *e);
/*
 * Verifies the whole module with root as the entry's ROOT (a tuple node for several
 * outputs) and makes it a program. Returns the builder's first error if there was one.
 * On success the builder is spent (later calls fail with FFU_STATUS_EINVAL).
 */
FFU_API ffu_status ffu_builder_finish(ffu_builder *b, ffu_node root, ffu_program **out, ffu_error *e);
/* Renames node n. A failure is recorded like any other (and sticks). */
FFU_API ffu_status ffu_builder_set_name(ffu_builder *b, ffu_node n, const char *name);
/* Node n's name (no '%'), or "" for an invalid node. Valid until the builder is destroyed. */
FFU_API const char *ffu_builder_name(const ffu_builder *b, ffu_node n);
/* Node n's shape (name "", type static); FFU_STATUS_EINVAL for an invalid node or a tuple. */
FFU_API ffu_status ffu_builder_shape(const ffu_builder *b, ffu_node n, ffu_array_info *info);

/* ---- sources */

/* Entry parameter number <count of parameters so far>, named `name` (a valid HLO name). */
FFU_API ffu_node ffu_build_parameter(ffu_builder *b, const char *name, const char *type, int rank,
				     const int64_t *dims);
/*
 * A CSR sparse matrix parameter, `type[rows, cols]{1,0:D(D, C) NNZ(nnz)}` in HLO text: the
 * lhs of a dot, nothing else reads one. Its buffers hold ZKX's CSR bytes (ffu_array_info's
 * nnz says the layout); a field type, nnz at most rows * cols.
 */
FFU_API ffu_node ffu_build_parameter_csr(ffu_builder *b, const char *name, const char *type, int64_t rows,
					 int64_t cols, int64_t nnz);
/*
 * An array literal: `bytes` bytes of row-major storage values, exactly the element count
 * times the type's storage size (the .bin layout of HLO.md section 4), each a valid value
 * of the type (canonical, < p; for a _mont type the Montgomery form x * R mod p, as HLO
 * text writes it).
 */
FFU_API ffu_node ffu_build_constant(ffu_builder *b, const char *type, int rank, const int64_t *dims,
				    const void *data, size_t bytes);
/* A scalar constant of a value < 2^64, which must be a valid value of the type (< p). */
FFU_API ffu_node ffu_build_constant_u64(ffu_builder *b, const char *type, uint64_t value);
/* Element = its index along `dimension` (field or u32/u64 type, rank >= 1). */
FFU_API ffu_node ffu_build_iota(ffu_builder *b, const char *type, int rank, const int64_t *dims, int dimension);

/* ---- element-wise (operands of identical shape; the result has it) */

FFU_API ffu_node ffu_build_add(ffu_builder *b, ffu_node x, ffu_node y);
FFU_API ffu_node ffu_build_subtract(ffu_builder *b, ffu_node x, ffu_node y);
FFU_API ffu_node ffu_build_multiply(ffu_builder *b, ffu_node x, ffu_node y);
FFU_API ffu_node ffu_build_divide(ffu_builder *b, ffu_node x, ffu_node y);  /* x / 0 = 0 */
FFU_API ffu_node ffu_build_negate(ffu_builder *b, ffu_node x);
FFU_API ffu_node ffu_build_inverse(ffu_builder *b, ffu_node x);            /* inverse(0) = 0 */
FFU_API ffu_node ffu_build_square(ffu_builder *b, ffu_node x);             /* x * x */
/* x^e, e an unsigned integer (u8, u16, u32, u64) array of x's dimensions. */
FFU_API ffu_node ffu_build_power(ffu_builder *b, ffu_node x, ffu_node e);
/* pred array of x's dimensions. */
FFU_API ffu_node ffu_build_compare(ffu_builder *b, ffu_node x, ffu_node y, ffu_compare_direction dir);
/* p ? t : f element-wise; p a pred array of t's dimensions, or a scalar pred. */
FFU_API ffu_node ffu_build_select(ffu_builder *b, ffu_node p, ffu_node t, ffu_node f);
/* x as element type `type` (same dimensions): integer -> field, integer -> integer,
   field <-> field_mont, ... (docs/hlo.md, convert) */
FFU_API ffu_node ffu_build_convert(ffu_builder *b, ffu_node x, const char *type);
/*
 * Ordered element-wise ops, on canonical values as ZKX orders them (docs/hlo.md): x and y
 * of one shape of a prime field (or its _mont twin), u32 or u64. clamp(lo, x, hi) =
 * minimum(maximum(lo, x), hi) (XLA's operand order); lo and hi have x's shape or are scalars.
 */
FFU_API ffu_node ffu_build_maximum(ffu_builder *b, ffu_node x, ffu_node y);
FFU_API ffu_node ffu_build_minimum(ffu_builder *b, ffu_node x, ffu_node y);
FFU_API ffu_node ffu_build_clamp(ffu_builder *b, ffu_node lo, ffu_node x, ffu_node hi);

/* ---- layout */

/*
 * x (rank r) to the shape (rank, dims) of x's type: operand dimension i becomes result
 * dimension map[i] (n_map = r, strictly increasing; a scalar broadcasts with n_map = 0).
 */
FFU_API ffu_node ffu_build_broadcast(ffu_builder *b, ffu_node x, int rank, const int64_t *dims,
				     const int64_t *map, int n_map);
/* One range per dimension of x: [start, limit) every stride (NULL stride: all 1). */
FFU_API ffu_node ffu_build_slice(ffu_builder *b, ffu_node x, const int64_t *start, const int64_t *limit,
				 const int64_t *stride);
/* xs joined along `dimension` (n >= 1 arrays of one type and rank). */
FFU_API ffu_node ffu_build_concatenate(ffu_builder *b, const ffu_node *xs, int n, int dimension);
/*
 * XLA's dynamic-slice: the window of sizes[0..r) of x (rank r) starting at starts[0..r),
 * r scalar integer nodes of one type (s32, u32, ...), each start clamped at run time to
 * [0, dim - size] so that the window stays inside x. The result is x's type with the sizes.
 */
FFU_API ffu_node ffu_build_dynamic_slice(ffu_builder *b, ffu_node x, const ffu_node *starts, const int64_t *sizes);
/* XLA's dynamic-update-slice: x with update (x's type and rank, no dimension larger)
   written at starts[0..r), clamped likewise; the result has x's shape. */
FFU_API ffu_node ffu_build_dynamic_update_slice(ffu_builder *b, ffu_node x, ffu_node update, const ffu_node *starts);
/* x's elements, row-major, as the shape (rank, dims) of the same count. */
FFU_API ffu_node ffu_build_reshape(ffu_builder *b, ffu_node x, int rank, const int64_t *dims);
/* x with dimensions dims[0..n_dims) reversed (XLA reverse; n_dims = 0: x itself). */
FFU_API ffu_node ffu_build_reverse(ffu_builder *b, ffu_node x, const int64_t *dims, int n_dims);
/* x permuted by bit-reversing the index along each of dims[0..n_dims), whose sizes must be
   powers of two (ZKX bit-reverse). */
FFU_API ffu_node ffu_build_bit_reverse(ffu_builder *b, ffu_node x, const int64_t *dims, int n_dims);

/* ---- reductions and tuples */

/*
 * Folds the dimensions dims[0..n_dims) of x (a field array) by a sum or a product, starting
 * from init (a scalar of x's type); the result has x's other dimensions, in order.
 */
FFU_API ffu_node ffu_build_reduce(ffu_builder *b, ffu_node x, ffu_node init, const int64_t *dims, int n_dims,
				  ffu_reduce_kind kind);
/* ---- transforms */

typedef enum ffu_fft_type {
	FFU_FFT_FORWARD, /* fft_type=FFT:  y[k] = sum_j x[j] w^(jk) */
	FFU_FFT_INVERSE, /* fft_type=IFFT: y[j] = 1/n sum_k x[k] w^(-jk) */
} ffu_fft_type;
/*
 * The NTT of every row of x (its last dimension, n = 2^k) with ZKX's root w of order n
 * (docs/hlo.md "fft"), or with the powers given in twiddles (a node of n elements, NULL for
 * none). bit_reverse true: natural order in and out; false: the forward transform takes
 * its input bit-reversed, the inverse leaves its output bit-reversed (ZKX's
 * fft_do_bit_reverse). The result has x's shape.
 */
FFU_API ffu_node ffu_build_fft(ffu_builder *b, ffu_node x, const ffu_node *twiddles, ffu_fft_type type,
			       bool bit_reverse);

/* ---- dot */

/*
 * XLA's dot_general (docs/hlo.md "dot") of two arrays of one field or extension type:
 * lhs dimension lhs_contracting[t] contracts with rhs dimension rhs_contracting[t]
 * (n_contracting pairs, 0 for an outer product), lhs_batch[t] pairs with rhs_batch[t]
 * (n_batch pairs; NULL lists where n is 0). The result has the batch dimensions, then
 * lhs's other dimensions, then rhs's, each in order. lhs may be a CSR parameter
 * (ffu_build_parameter_csr), contracting its dimension 1 without batch dimensions.
 */
FFU_API ffu_node ffu_build_dot(ffu_builder *b, ffu_node lhs, ffu_node rhs, const int64_t *lhs_contracting,
			       const int64_t *rhs_contracting, int n_contracting, const int64_t *lhs_batch,
			       const int64_t *rhs_batch, int n_batch);

/* ---- collectives (docs/hlo.md "Collectives") */

/*
 * The ranks of an SPMD program: replicas x partitions (each >= 1; both 1 unless set),
 * rank = replica x partitions + partition. Set before the first node is added.
 */
FFU_API ffu_status ffu_builder_set_ranks(ffu_builder *b, int64_t replicas, int64_t partitions, ffu_error *e);
typedef enum ffu_collective_op {
	FFU_COLLECTIVE_ALL_REDUCE,     /* every member gets the group's x combined (kind) */
	FFU_COLLECTIVE_ALL_GATHER,     /* the group's x joined along dim, in group order */
	FFU_COLLECTIVE_REDUCE_SCATTER, /* the combined x split along dim; member i gets piece i */
	FFU_COLLECTIVE_ALL_TO_ALL,     /* piece j of x along dim to member j, joined in member order */
} ffu_collective_op;
/*
 * Who takes part, as XLA's attributes say it: ids, n_groups groups of group_size (row-major;
 * n_groups 0: every id in one group); channel_id 0 for none; use_global_device_ids -1 not
 * given, 0 false, 1 true. channel_id and use_global_device_ids decide whether the ids are
 * replicas, partitions or ranks (docs/hlo.md). NULL: every replica, no channel.
 */
typedef struct ffu_collective_groups {
	const int64_t *ids;
	int n_groups, group_size;
	int64_t channel_id;
	int use_global_device_ids;
} ffu_collective_groups;
/* A collective of x (a field or point array); dim: the split or joined dimension (not read
   for all-reduce); kind: the combiner of all-reduce and reduce-scatter. */
FFU_API ffu_node ffu_build_collective(ffu_builder *b, ffu_collective_op op, ffu_node x, const ffu_collective_groups *g,
				      int64_t dim, ffu_reduce_kind kind);
/* collective-permute: rank id pairs[2i + 1] receives pairs[2i]'s x (n_pairs pairs; ids as
   channel_id says); a rank no pair names as a target gets zeros. */
FFU_API ffu_node ffu_build_collective_permute(ffu_builder *b, ffu_node x, const int64_t *pairs, int n_pairs,
					      int64_t channel_id);
/* replica-id() and partition-id(): the rank's number, u32[]. */
FFU_API ffu_node ffu_build_replica_id(ffu_builder *b);
FFU_API ffu_node ffu_build_partition_id(ffu_builder *b);

/* A tuple of the nodes (a program with several outputs has a tuple ROOT). */
FFU_API ffu_node ffu_build_tuple(ffu_builder *b, const ffu_node *xs, int n);
FFU_API ffu_node ffu_build_get_tuple_element(ffu_builder *b, ffu_node t, int index);

#ifdef __cplusplus
}
#endif
#endif
