/*
 * src/api/builder_impl.h: private to src/api/builder*.c: the builder's record and the
 * helpers its two files share. builder.c holds the builder itself (errors, names, adding
 * one verified instruction, create/finish/rename); build_ops.c the ffu_build_* constructors
 * of each op, which all go through ffu__bld_add; build_dot.c and build_collective.c those
 * of dot and of the collectives. Ownership as in builder.c's header.
 */
#ifndef FFU_API_BUILDER_IMPL_H
#define FFU_API_BUILDER_IMPL_H

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

/* Records the first error (under the builder call's name) and returns FFU_NODE_INVALID. */
ffu_node ffu__bld_fail(ffu_builder *b, ffu_status st, const char *call, const char *fmt, ...) FFU_PRINTF(4, 5);
/* false (with the error recorded) for a NULL, finished or failed builder */
bool ffu__bld_usable(ffu_builder *b, const char *call);
/* Operand j of a call: node n's instruction, or NULL with the error recorded. */
ffu_inst *ffu__bld_operand(ffu_builder *b, const char *call, int j, ffu_node n);
/* An HLO identifier; a name in use by an instruction or a computation; a fresh name from base. */
bool ffu__bld_hlo_name(const char *s);
bool ffu__bld_name_taken(const ffu_builder *b, const char *name);
bool ffu__bld_comp_name_taken(const ffu_builder *b, const char *name);
void ffu__bld_fresh_name(ffu_builder *b, char *buf, size_t size, const char *base, bool comp);

/* Sets an instruction's attributes from arg before it is verified. */
typedef void (*attr_fn)(ffu_inst *in, const void *arg);
/* A dimensions={...} list (broadcast, concatenate, reduce, reverse, bit-reverse), copied
   into the arena by ffu__bld_set_dims, an attr_fn. */
typedef struct ffu__bld_dims {
	const int64_t *dims;
	int n;
	ffu_arena *arena;
} ffu__bld_dims;
void ffu__bld_set_dims(ffu_inst *in, const void *arg);
/* Appends one instruction to the entry (named name, or <opcode>.<n> when NULL), verified
   alone; its node, or FFU_NODE_INVALID with the error recorded under call. */
ffu_node ffu__bld_add(ffu_builder *b, const char *call, ffu_op op, const char *name, const ffu_shape *shape,
		      ffu_inst *const *ops, int n, attr_fn set_attrs, const void *arg);

/* *out = the to_apply computation of a sum or product over type (build_ops.c: made once per
   type and kind; NULL for an integer or pred type, whose error is the verifier's); false
   with the error recorded under call when it cannot be made. */
bool ffu__bld_to_apply(ffu_builder *b, const char *call, ffu_type type, ffu_reduce_kind kind, ffu_computation **out);

#endif
