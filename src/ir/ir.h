/*
 * src/ir/ir.h: the graph IR. A module owns one arena holding its computations,
 * instructions, shapes, names and literals; ffu__module_free releases all of it.
 * Computations list instructions in definition order (operands always come first), which
 * is a topological order every pass keeps. Instructions are never freed one by one: passes
 * build new instruction lists and leave dead nodes in the arena.
 */
#ifndef FFU_IR_IR_H
#define FFU_IR_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fields/field.h"
#include "util/arena.h"
#include "util/symtab.h"
#include "util/error.h"

enum { FFU_MAX_RANK = 4 };

/*
 * Element types: one per element descriptor of fields/field.h (every prime field of
 * fields.def, then its _mont twin, then the extension fields and their _mont twins, then
 * u32, u64 and pred, then the FFU_INT integers, then the point types of curves.def), then
 * the tuple marker.
 */
typedef enum ffu_type {
	FFU_TYPE_INVALID = -1,
#define FFU_FIELD(ID, ...) FFU_TYPE_##ID = FFU_FIELD_##ID, FFU_TYPE_##ID##_MONT = FFU_FIELD_##ID##_MONT,
#include "fields.def"
#undef FFU_FIELD
#define FFU_EXT(ID, ...) FFU_TYPE_##ID = FFU_FIELD_##ID, FFU_TYPE_##ID##_MONT = FFU_FIELD_##ID##_MONT,
#include "fields.def"
#undef FFU_EXT
	FFU_TYPE_U32 = FFU_FIELD_U32,
	FFU_TYPE_U64 = FFU_FIELD_U64,
	FFU_TYPE_PRED = FFU_FIELD_PRED,
#define FFU_INT(ID, ...) FFU_TYPE_##ID = FFU_FIELD_##ID,
#include "fields.def"
#undef FFU_INT
#define FFU_CURVE(ID, ...)                                                                                 \
	FFU_TYPE_##ID##_AFFINE = FFU_FIELD_##ID##_AFFINE, FFU_TYPE_##ID##_JACOBIAN = FFU_FIELD_##ID##_JACOBIAN,    \
	FFU_TYPE_##ID##_XYZZ = FFU_FIELD_##ID##_XYZZ, FFU_TYPE_##ID##_AFFINE_MONT = FFU_FIELD_##ID##_AFFINE_MONT, \
	FFU_TYPE_##ID##_JACOBIAN_MONT = FFU_FIELD_##ID##_JACOBIAN_MONT,                                         \
	FFU_TYPE_##ID##_XYZZ_MONT = FFU_FIELD_##ID##_XYZZ_MONT,
#include "curves.def"
#undef FFU_CURVE
	FFU_TYPE_TUPLE = FFU_ELEM_COUNT,
	FFU_TYPE_COUNT
} ffu_type;

typedef enum ffu_op {
#define FFU_OP(ID, kw, arity, kind, fn, cost, form) FFU_OP_##ID,
#include "ir/ops.def"
#undef FFU_OP
	FFU_OP_COUNT
} ffu_op;

typedef enum {
	FFU_KIND_SOURCE, FFU_KIND_ELEMENTWISE, FFU_KIND_INDEX, FFU_KIND_REDUCE, FFU_KIND_TRANSFORM, FFU_KIND_MSM,
	FFU_KIND_CONTRACT,
	FFU_KIND_TUPLE, FFU_KIND_CALL, FFU_KIND_COLLECTIVE
} ffu_op_kind;
typedef enum { FFU_COST_CHEAP, FFU_COST_EXPENSIVE } ffu_op_cost;
typedef enum { FFU_FORM_NA, FFU_FORM_LINEAR, FFU_FORM_BILINEAR, FFU_FORM_SPECIAL } ffu_op_form;

typedef struct ffu_op_info {
	const char *keyword;
	int arity;
	ffu_op_kind kind;
	ffu_op_cost cost;
	ffu_op_form form;
	const char *field_fn;  /* "add"; "none" for ops that are not field operations */
	ffu_field_fn host_fn;  /* ffu__fp_<field_fn>, or NULL */
} ffu_op_info;

extern const ffu_op_info ffu__ops[FFU_OP_COUNT];
/* Op for an HLO keyword of length len, or -1. */
int ffu__op_by_keyword(const char *kw, size_t len);

typedef struct ffu_shape ffu_shape;
struct ffu_shape {
	ffu_type type;
	int rank;                 /* arrays: 0..FFU_MAX_RANK */
	int64_t dims[FFU_MAX_RANK];
	/* A CSR sparse matrix (layout {1,0:D(D, C) NNZ(n)}: ir/csr.c): rank 2, nnz stored
	   entries; its values are ZKX's CSR bytes. Only a parameter has one, only dot's lhs
	   reads one (the verifier). false: dense row-major, nnz 0. */
	bool csr;
	int64_t nnz;
	int n_elems;              /* tuples: element count */
	ffu_shape *elems;         /* tuples: element shapes (arena) */
};

/* kLoop, kInput (reductions) as XLA names them; kFft: a fusion around one fft (codegen/fft.c);
   kDot: a fusion around one dot (codegen/dot.c); kMsm: a fusion around one msm (codegen/msm.c). */
typedef enum {
	FFU_FUSION_LOOP, FFU_FUSION_INPUT, FFU_FUSION_FFT, FFU_FUSION_DOT, FFU_FUSION_MSM, FFU_FUSION_KIND_COUNT
} ffu_fusion_kind;
/* The kinds' names in HLO text ("kLoop", ...), indexed by ffu_fusion_kind (ir/ops.c). */
extern const char *const ffu__fusion_kind_names[FFU_FUSION_KIND_COUNT];

/* fft's attributes (ZKX: fft_type=FFT|IFFT, fft_length=N, fft_do_bit_reverse, default true). */
typedef struct ffu_fft_attrs {
	bool inverse;             /* IFFT */
	bool bit_reverse;         /* natural order in and out (false: FFT input / IFFT output bit-reversed) */
	int64_t length;           /* fft_length: the transform length, the operand's last dimension */
} ffu_fft_attrs;
/*
 * dot's dimension numbers (XLA's dot_general: lhs_batch_dims, rhs_batch_dims,
 * lhs_contracting_dims, rhs_contracting_dims): lists of equal length per pair, each entry a
 * dimension of its operand (ir/dot.c).
 */
typedef struct ffu_dot_attrs {
	int n_batch, n_contract;
	int64_t lhs_batch[FFU_MAX_RANK], rhs_batch[FFU_MAX_RANK];
	int64_t lhs_contract[FFU_MAX_RANK], rhs_contract[FFU_MAX_RANK];
} ffu_dot_attrs;
/* compare direction=: the ordered four compare canonical values (src/ir/order.c) */
typedef enum { FFU_CMP_EQ, FFU_CMP_NE, FFU_CMP_LT, FFU_CMP_LE, FFU_CMP_GT, FFU_CMP_GE, FFU_CMP_COUNT } ffu_compare_dir;

/*
 * A collective's groups and pairs as written (ir/collective.c turns them into groups of
 * ranks): replica_groups={{0,1},{2,3}} (n_groups x group_size ids, row-major; no groups:
 * every id in one group), source_target_pairs={{0,1},...} (collective-permute), channel_id
 * (0: none) and use_global_device_ids, which together choose what the ids name (XLA's
 * CollectiveOpGroupMode).
 */
typedef struct ffu_collective_attrs {
	int n_groups, group_size;
	int64_t *groups;          /* arena */
	int n_pairs;
	int64_t *pairs;           /* arena: source, target per pair */
	int64_t channel_id;       /* > 0 when given */
	bool has_global_ids;      /* use_global_device_ids given, */
	bool global_ids;          /* and its value */
} ffu_collective_attrs;

/*
 * XLA's HloSharding as written on an instruction (sharding={...}: docs/hlo.md "Sharding";
 * ir/sharding.c). fieldfuse runs programs after SPMD partitioning: an instruction's shape
 * is one partition's piece, and the sharding says how the pieces make the whole value.
 * fieldfuse run reads it on the ENTRY's parameters (a value file holds the whole array,
 * each rank gets its tile) and ROOT (the pieces joined into the output); on any other
 * instruction it is kept, verified and printed, and changes nothing.
 */
typedef enum {
	FFU_SHARD_REPLICATED, /* {replicated}: every partition holds the whole value */
	FFU_SHARD_MAXIMAL,    /* {maximal device=D}: partition D holds it */
	FFU_SHARD_TILED,      /* {devices=[t0,...]ids}: partition ids[k] holds tile k (row-major) */
	FFU_SHARD_TUPLE,      /* {{...}, {...}}: one sharding per leaf of a tuple shape */
} ffu_shard_kind;
typedef struct ffu_sharding ffu_sharding;
struct ffu_sharding {
	ffu_shard_kind kind;
	int n_dims;               /* tiled: tile-assignment dimensions: the rank, +1 with last_replicate */
	int64_t dims[FFU_MAX_RANK + 1];
	bool last_replicate;      /* last_tile_dim_replicate: the last dimension lists copies of one tile */
	int64_t device;           /* maximal */
	int64_t *devices;         /* tiled: the dims' product of partition ids (arena) */
	int n_elems;              /* tuple */
	ffu_sharding *elems;      /* tuple: one per leaf (arena) */
};

typedef struct ffu_computation ffu_computation;
typedef struct ffu_module ffu_module;
typedef struct ffu_inst ffu_inst;

struct ffu_inst {
	ffu_op op;
	const char *name;         /* without '%', unique in its module */
	ffu_shape shape;
	int n_operands;
	ffu_inst **operands;
	/* attributes, by op */
	int64_t index;            /* parameter(N); get-tuple-element index=N; iota_dimension=D */
	unsigned char *literal;   /* constant: row-major canonical storage bytes (arena) */
	int n_dims;               /* dimensions={...}: broadcast (operand dim -> result dim), */
	int64_t *dims;            /* concatenate (one: the joined dim), reduce (dims folded) */
	int64_t slice_start[FFU_MAX_RANK], slice_limit[FFU_MAX_RANK], slice_stride[FFU_MAX_RANK];
	ffu_compare_dir direction; /* compare direction= */
	ffu_computation *callee;  /* fusion calls=; reduce to_apply= */
	ffu_op reduce_fn;         /* reduce: FFU_OP_ADD (sum) or FFU_OP_MULTIPLY (product), from to_apply's root */
	ffu_fusion_kind fusion_kind;
	ffu_fft_attrs fft;        /* fft */
	int window_bits;          /* msm: bits per window, 0 = chosen from the size (any gives one result) */
	ffu_dot_attrs dot;        /* dot */
	ffu_collective_attrs coll; /* the collectives (reduce_fn, callee and dims as reduce's) */
	const ffu_sharding *sharding; /* sharding={...} as written (arena), NULL: none */
	/* bookkeeping */
	ffu_computation *parent;
	int line, col;            /* source position; 0 if built through the API */
	int id;                   /* index in parent->insts, maintained by ffu__comp_renumber */
};

struct ffu_computation {
	const char *name;
	ffu_inst **insts;         /* definition order */
	int n_insts, cap_insts;
	ffu_inst *root;
	ffu_inst **params;        /* by parameter number; n_params entries */
	int n_params;
	bool is_entry;
	bool is_fused;            /* body of a fusion instruction */
	ffu_module *module;
	int line, col;
};

struct ffu_module {
	ffu_arena arena;
	const char *name;
	ffu_computation **comps;  /* definition order: callees before callers */
	int n_comps, cap_comps;
	ffu_computation *entry;
	/* HloModule's replica_count= and num_partitions= (1 when not given): an SPMD program
	   runs on replica_count x num_partitions ranks, rank = replica x num_partitions +
	   partition (XLA's flattened id) */
	int64_t replica_count, num_partitions;
	unsigned name_counter;    /* for ffu__module_unique_name */
	ffu_symtab names;         /* every name in use, built on first ffu__module_unique_name */
	bool names_built;
};

/* --- shapes (ir/shape.c) --- */
int64_t ffu__shape_count(const ffu_shape *s);   /* elements of an array shape; 1 for scalars */
bool ffu__shape_eq(const ffu_shape *a, const ffu_shape *b);
/* Same rank and dimensions (element types may differ); false for tuples. */
bool ffu__shape_same_dims(const ffu_shape *a, const ffu_shape *b);
/* Row-major index arithmetic on array shapes: the stride of dimension d (elements), the
   multi-index of linear position i (idx[0] the slowest dimension), and back. */
int64_t ffu__shape_stride(const ffu_shape *s, int d);
void ffu__shape_unravel(const ffu_shape *s, int64_t i, int64_t idx[FFU_MAX_RANK]);
int64_t ffu__shape_ravel(const ffu_shape *s, const int64_t idx[FFU_MAX_RANK]);
bool ffu__shape_is_array(const ffu_shape *s);
/* log2(n) for a power of two n >= 1, else -1. */
int ffu__log2_pow2(int64_t n);
/* i with its low `bits` bits in reverse order (the others dropped): bit-reverse, fft. */
uint64_t ffu__bitrev(uint64_t i, int bits);
const ffu_field *ffu__shape_field(const ffu_shape *s); /* NULL for tuples */
size_t ffu__shape_elem_bytes(const ffu_shape *s);
/* Appends "babybear[4]" / "(babybear[4], bn254_sf[])" to buf (NUL-terminated, truncated). */
void ffu__shape_format(const ffu_shape *s, char *buf, size_t size);
const char *ffu__type_name(ffu_type t);
ffu_type ffu__type_by_name(const char *s, size_t len); /* FFU_TYPE_INVALID if unknown */

/* --- fft (ir/fft.c) --- */
/* The prime field whose roots transform values of type t (itself, a _mont's prime, an
   extension's coefficient field); NULL for integer, pred and tuple types. */
const ffu_field *ffu__fft_prime(ffu_type t);
/* The type of a twiddles operand for values of type t: t for a prime field or its _mont,
   the stored coefficients' type for an extension (its prime, or the prime's _mont for a
   _mont twin); FFU_TYPE_INVALID where t does not transform. */
ffu_type ffu__fft_twiddle_type(ffu_type t);
/* Transforms in an array of shape s: the product of every dimension but the last. */
int64_t ffu__fft_rows(const ffu_shape *s);

/* --- dot (ir/dot.c): XLA's dot_general over fields, a CSR lhs as ZKX's sparse dot --- */
/* What a dot reads: its operands' free dimensions (neither batch nor contracting), in order. */
typedef struct ffu_dot_dims {
	int n_lfree, n_rfree;
	int64_t lfree[FFU_MAX_RANK], rfree[FFU_MAX_RANK];
} ffu_dot_dims;
void ffu__dot_free_dims(const ffu_inst *in, ffu_dot_dims *out);
/* The result shape of dot `in` (XLA's order: batch, lhs free, rhs free dimensions); false
   with a reason in why[] if the dimension numbers do not fit the operands. */
bool ffu__dot_result_shape(const ffu_inst *in, ffu_shape *out, char *why, size_t why_size);
/* Result elements that read each element of operand j: the other operand's free dimensions'
   product (1: a producer of operand j is computed once per use, so it fuses: passes/fusion.c). */
int64_t ffu__dot_operand_reuse(const ffu_inst *in, int j);
/* dot's verifier rule (docs/hlo.md "dot"); errors name file:line:col of in. */
ffu_status ffu__dot_verify(const ffu_inst *in, const char *file, ffu_error *e);

/*
 * --- CSR sparse matrices (ir/csr.c): ZKX's bytes, little-endian, no padding: row_ptrs
 * u32[M+1], col_indices u32[NNZ], values T[NNZ] (T's storage) ---
 */
/* Bytes of a CSR value of shape s (SIZE_MAX when it does not fit a size_t). */
size_t ffu__csr_bytes(const ffu_shape *s);
/* Offsets of col_indices and values in those bytes. */
size_t ffu__csr_cols_offset(const ffu_shape *s);
size_t ffu__csr_values_offset(const ffu_shape *s);
/* Is data (bytes of it) a valid CSR value of s: row_ptrs[0] = 0, non-decreasing, row_ptrs[M]
   = NNZ, every column < the column count, every value valid for the type? If not, why[]
   says where (sized why_size). */
bool ffu__csr_check(const ffu_shape *s, const unsigned char *data, size_t bytes, char *why, size_t why_size);
/* Fills out (ffu__csr_bytes(s)) with a random valid CSR matrix of s: NNZ distinct
   positions, as ZKX's SparseMatrix::Random draws them, values uniform. */
void ffu__csr_random(const ffu_shape *s, unsigned char *out, uint64_t *state);
/* Bytes of one value of array shape s (CSR or dense), SIZE_MAX when it overflows. */
size_t ffu__shape_bytes(const ffu_shape *s);

/*
 * --- collectives (ir/collective.c): which ranks take part together, as XLA decides it
 * (CollectiveOpGroupMode from channel_id and use_global_device_ids; its
 * GetParticipatingDevicesGroups). A rank is replica x num_partitions + partition. ---
 */
typedef enum {
	FFU_COLL_CROSS_REPLICA,       /* no channel_id: ids are replicas, one group per partition */
	FFU_COLL_CROSS_PARTITION,     /* channel_id: ids are partitions, one group per replica */
	FFU_COLL_CROSS_REPLICA_PART,  /* channel_id, use_global_device_ids=false: replicas, every partition */
	FFU_COLL_FLATTENED,           /* channel_id, use_global_device_ids=true: ids are ranks */
} ffu_coll_mode;
typedef struct ffu_coll_groups {
	int n_groups, size;
	int *ranks;                   /* malloc'd: n_groups x size ranks, each group in its order */
} ffu_coll_groups;
/* The most ranks a program may have: what the interpreter simulates and a run starts. */
enum { FFU_MAX_RANKS = 4096 };
/* Ranks of module m: replica_count x num_partitions. */
int64_t ffu__module_ranks(const ffu_module *m);
/* The ENTRY's first collective (only the ENTRY holds them), or NULL. */
const ffu_inst *ffu__module_first_collective(const ffu_module *m);
/* More than one rank, or a collective in the ENTRY: what one executable cannot run
   (runtime/spmd.h runs it). */
bool ffu__module_is_spmd(const ffu_module *m);
ffu_coll_mode ffu__coll_mode(const ffu_inst *in);
/* How many ids the mode's ids range over for m (replicas, partitions or ranks). */
int64_t ffu__coll_id_count(const ffu_inst *in, const ffu_module *m);
/* The groups of in (not collective-permute, replica-id, partition-id) over m's ranks;
   false with why[] when the attributes do not describe a partition of the ids, or out of
   memory (why says so). Free with ffu__coll_groups_free. */
bool ffu__coll_groups(const ffu_inst *in, const ffu_module *m, ffu_coll_groups *out, char *why, size_t why_size);
void ffu__coll_groups_free(ffu_coll_groups *g);
/* collective-permute: src[r] = the rank rank r receives from, -1 for none (src holds
   ffu__module_ranks(m) entries); false with why[] for pairs out of range or repeated. */
bool ffu__coll_sources(const ffu_inst *in, const ffu_module *m, int *src, char *why, size_t why_size);

/*
 * --- sharding (ir/sharding.c): what a sharding={...} means for a value of shape local,
 * one partition's piece (docs/hlo.md "Sharding"). ---
 */
/* Leaf i's sharding: a tuple sharding's element i; any other sharding (or NULL) itself. */
const ffu_sharding *ffu__sharding_leaf(const ffu_sharding *s, int i);
/* True when s splits the value (tiled, more than one tile). */
bool ffu__sharding_splits(const ffu_sharding *s);
/* The whole array of which local (an array shape) is one tile under s (non-tuple). */
void ffu__sharding_whole_shape(const ffu_sharding *s, const ffu_shape *local, ffu_shape *whole);
/* Partition p's tile under tiled s: its index along each array dimension; false when p
   holds no tile, or when p holds a copy of a tile an earlier id already holds and
   first_only is set (last_tile_dim_replicate: the copy the joined value is read from). */
bool ffu__sharding_tile_of(const ffu_sharding *s, int64_t p, bool first_only, int64_t *tile);
/* s against the value's shape and m's partitions; false with why[]. */
bool ffu__sharding_check(const ffu_sharding *s, const ffu_shape *shape, const ffu_module *m, char *why, size_t n);
bool ffu__sharding_eq(const ffu_sharding *a, const ffu_sharding *b);
/* A deep copy of s into m's arena; NULL when out of memory. */
ffu_sharding *ffu__sharding_copy(ffu_module *m, const ffu_sharding *s);

/*
 * --- SPMD plans (ir/segment.c): the ENTRY cut at its collectives into steps every rank
 * runs in order. A segment step is a module of its own (no collective, one rank): entry
 * parameters in[0..n_in) (source ENTRY instruction ids), a tuple ROOT of out[0..n_out);
 * a collective step names the collective (in: its operand, if any; out: itself). ---
 */
typedef struct ffu_spmd_step {
	ffu_module *seg;          /* a segment's module (owned), or NULL */
	const ffu_inst *coll;     /* a collective of the source module, or NULL */
	int *in, n_in;
	int *out, n_out;
} ffu_spmd_step;
typedef struct ffu_spmd_plan {
	ffu_spmd_step *steps;
	int n_steps;
	int *outputs, n_outputs;  /* source ids of the program's outputs (a ROOT tuple's operands, or the ROOT) */
} ffu_spmd_plan;
/* The plan of verified module m (m is only read; the plan's modules are copies). */
ffu_status ffu__spmd_plan(const ffu_module *m, ffu_spmd_plan *p, ffu_error *e);
void ffu__spmd_plan_free(ffu_spmd_plan *p);

/* --- module building (ir/module.c) --- */
ffu_module *ffu__module_new(const char *name);
void ffu__module_free(ffu_module *m);
/* A deep copy of src in a new arena (ir/clone.c): same names, order, attributes, source
   positions and name counter; src is only read. NULL on out of memory. */
ffu_module *ffu__module_clone(const ffu_module *src);
ffu_computation *ffu__comp_new(ffu_module *m, const char *name); /* appended to m->comps */
/* A reducer `name` (px: t, py: t) -> pr = op(px, py), placed just before the entry
   (callees come first); NULL when out of memory or a name is NULL. */
ffu_computation *ffu__comp_new_reducer(ffu_module *m, const char *name, const char *px, const char *py,
				       const char *pr, ffu_type t, ffu_op op);
/* Appends a new instruction; operands copied into the arena. NULL on out of memory. */
ffu_inst *ffu__inst_new(ffu_computation *c, ffu_op op, const char *name, const ffu_shape *shape,
			ffu_inst *const *operands, int n_operands);
/* Same, but not placed in any instruction list yet (id = -1); see ffu__comp_set_insts. */
ffu_inst *ffu__inst_alloc(ffu_computation *c, ffu_op op, const char *name, const ffu_shape *shape,
			  ffu_inst *const *operands, int n_operands);
/* Replaces c's instruction list (copied into the arena) and renumbers; false on out of memory. */
bool ffu__comp_set_insts(ffu_computation *c, ffu_inst *const *insts, int n);
/* Copies src's attributes (everything but op, name, shape, operands, bookkeeping) to dst. */
void ffu__inst_copy_attrs(ffu_inst *dst, const ffu_inst *src);
/* Copies a shape (deep for tuples) into m's arena. */
bool ffu__shape_copy(ffu_module *m, ffu_shape *dst, const ffu_shape *src);
/* A name not used yet in m, built from base ("fusion" -> "fusion.3"). */
const char *ffu__module_unique_name(ffu_module *m, const char *base);
ffu_computation *ffu__module_find_comp(const ffu_module *m, const char *name);
/*
 * Computation -> its index in m->comps in O(log n) (modules may hold thousands): the
 * verifier, printer and DCE look callees up through it. Build is malloc'd (m->n_comps
 * entries sorted by pointer; NULL on out of memory); find returns -1 for c not in m or NULL.
 */
typedef struct ffu_comp_pos {
	const ffu_computation *c;
	int index;
} ffu_comp_pos;
ffu_comp_pos *ffu__comp_pos_build(const ffu_module *m);
int ffu__comp_pos_find(const ffu_comp_pos *pos, int n, const ffu_computation *c);
void ffu__comp_renumber(ffu_computation *c);
/* Number of uses of each instruction of c (array of c->n_insts, malloc'd; ROOT counts as a use). */
int *ffu__comp_use_counts(const ffu_computation *c);

/* --- verifier (ir/verify.c) --- */
ffu_status ffu__module_verify(const ffu_module *m, const char *file, ffu_error *e);
/* EVERIFY at in's source position, "'%name' (opcode): " and the message: the form of every
   verifier error, for the rules kept with their ops (ir/order.c, ir/dot.c). */
ffu_status ffu__verify_err(ffu_error *e, const char *file, const ffu_inst *in, const char *fmt, ...) FFU_PRINTF(4, 5);

/*
 * --- ordered ops (ir/order.c): compare LT/LE/GT/GE, maximum, minimum, clamp, and the
 * permutations reverse and bit-reverse. Order is ZKX's: prime fields (and their _mont
 * twins) by canonical value, u32/u64 as unsigned integers; extensions and pred have none.
 */
/* "EQ", "LT", ...; NULL for an invalid direction. */
const char *ffu__cmp_dir_name(ffu_compare_dir d);
/* The direction named by s[0..len), or FFU_CMP_COUNT. */
ffu_compare_dir ffu__cmp_dir_by_name(const char *s, size_t len);
/* Is elements' order defined for type t (ordered compare, maximum, minimum, clamp)? */
bool ffu__type_ordered(ffu_type t);
/* -1, 0, 1: a against b, by canonical value (f ordered: ffu__type_ordered). */
int ffu__order_cmp(const ffu_field *f, const void *a, const void *b);
/* compare in's direction on one pair (any comparable type; EQ/NE on storage). */
bool ffu__order_compare(const ffu_inst *in, const void *a, const void *b);
/* One element of maximum / minimum / clamp: out = op(args...), in the operands' storage. */
void ffu__order_eval(const ffu_inst *in, void *out, const unsigned char *const *args);
/* The source coordinate of reverse / bit-reverse along dimension d of coordinate c. */
int64_t ffu__order_perm_coord(const ffu_inst *in, int d, int64_t c);
/* Verifier rules of the ops above (everything but compare's EQ/NE, which verify.c owns);
   FFU_STATUS_OK for other ops. Errors name file:line:col of in. */
ffu_status ffu__order_verify(const ffu_inst *in, const char *file, ffu_error *e);

#endif
