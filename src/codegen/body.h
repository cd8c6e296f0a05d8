/*
 * codegen/body.h: a kernel body as the code generator plans it (codegen.c), before any
 * OpenCL C exists: a list of statements, one per line. A statement says what it is
 * without any text being read: its kind (a value's definition, a step of one, an index
 * variable, a store, a return, an inversion, or the generator's own line: a brace, a loop),
 * and for a definition its destination (the value and the form it is defined in), its type
 * and what it computes (an instruction's op, a load, a constant, a form conversion); its
 * operands are the values its right-hand side reads (ffu__body_stmt_operand). The rest of
 * the line is a list of segments, where every name a kernel variant may spell differently
 * is a typed hole, not text:
 *   a value's local in form c, m or w (c<v>, m<v>, w<v>), an index variable (i, x<k>), the
 *   power chains' temporary t_, a field's function or type (<field>_<suffix>), an index
 *   variable's defining expression or a coordinate of one (index arithmetic, index.h).
 * Literal text between the holes is the generator's own, split into statements at each
 * '\n' as it is appended.
 *
 * The printers render it per variant (ffu_body_style): one element per work-item as
 * written; lane r of a wide kernel, every local and index with the suffix _<r>; a vector
 * instance, every function and type of the vector field and its prime with _v<vw>. So a
 * variant is a way of printing the plan; nothing reads generated text back. The wide
 * kernels' printers are in codegen/wide.c.
 *
 * Ownership: a body owns its segments, statements and text; ffu__body_free releases them.
 * The field, shape and instruction pointers in holes belong to the module being generated.
 * Allocation failures latch (oom) and surface through ffu__body_status.
 */
#ifndef FFU_CODEGEN_BODY_H
#define FFU_CODEGEN_BODY_H

#include <stdbool.h>
#include <stdint.h>

#include "field.h"
#include "ir/ir.h"
#include "util/strbuf.h"

/* A value's form, spelled as the first letter of its local: canonical (c<v>), Montgomery
   (m<v>), or a divide's inverse of its divisor (w<v>, Montgomery; kgen_special.c). */
typedef enum ffu_vform {
	FFU_VF_C = 'c',
	FFU_VF_M = 'm',
	FFU_VF_W = 'w',
} ffu_vform;

typedef enum ffu_seg_kind {
	FFU_SEG_TEXT,   /* literal text: off, len into the body's text */
	FFU_SEG_LOCAL,  /* form c/m/w, value id */
	FFU_SEG_INDEX,  /* index variable id (0: the kernel's main index) */
	FFU_SEG_TEMP,   /* the power chains' temporary array t_ */
	FFU_SEG_FIELD,  /* field f's name, '_', the suffix (text off, len) */
	FFU_SEG_COORD,  /* coordinate d of index variable id in shape dims[rank] */
	FFU_SEG_IXEXPR, /* the expression of operand j's index of `in` read at index variable id */
} ffu_seg_kind;

typedef struct ffu_seg {
	ffu_seg_kind kind;
	ffu_vform form;              /* LOCAL */
	int id;
	int rank, d;                 /* COORD; IXEXPR: d = operand number */
	const int64_t *dims;         /* COORD */
	const ffu_inst *in;          /* IXEXPR */
	const ffu_field *f;          /* FIELD */
	size_t off, len;             /* TEXT, FIELD's suffix */
} ffu_seg;

/* An inversion: dst_form<dst> = inverse of src_form<src> (Montgomery form out; see
   kgen_special.c: emit_inv). */
typedef struct ffu_inv_stmt {
	const ffu_field *f;          /* the field whose functions compute it (the value's base field) */
	ffu_vform dst_form;          /* m (inverse) or w (a divide's inverse) */
	int dst;
	ffu_vform src_form;          /* c where the operand has a canonical form (cheaper for a batch), else m */
	int src;                     /* the operand's value; its m form always exists */
} ffu_inv_stmt;

typedef enum ffu_stmt_kind {
	FFU_STMT_TEXT,   /* the generator's own line: a block's brace, a temporary's declaration, a loop */
	FFU_STMT_DEF,    /* "\t<type> <form><dst>" then its segments: " = <rhs>;" (or ";": defined in steps) */
	FFU_STMT_STEP,   /* "<form><dst> = ..." or a power chain's temporary: a step of value dst's definition */
	FFU_STMT_INDEX,  /* "const ulong <index dst> = ...": an index variable */
	FFU_STMT_ACCUM,  /* a reduction's accumulator dst (output dst) takes in a value */
	FFU_STMT_STORE,  /* output dst (its number) is stored */
	FFU_STMT_RETURN, /* the value the segments name is returned (a load or a product handed on) */
	FFU_STMT_INV,    /* an inversion: the body's inv[inv] */
} ffu_stmt_kind;

/* What a definition computes. */
typedef enum ffu_stmt_op {
	FFU_SOP_NONE,      /* not a definition */
	FFU_SOP_OP,        /* its instruction's op (ffu_stmt.op) on the operands */
	FFU_SOP_LOAD,      /* an element of a parameter, an fft's or a dot's result */
	FFU_SOP_CONST,     /* a constant, folded on the host into the form */
	FFU_SOP_TO_MONT,   /* the value's canonical form into Montgomery form */
	FFU_SOP_FROM_MONT, /* its Montgomery form into canonical form */
} ffu_stmt_op;

typedef struct ffu_stmt {
	ffu_stmt_kind kind;
	ffu_stmt_op sop;             /* DEF: what it computes */
	ffu_op op;                   /* DEF of FFU_SOP_OP: the instruction's op */
	ffu_vform form;              /* DEF, STEP: the destination's form */
	int dst;                     /* DEF, STEP: the value; INDEX: the index variable; ACCUM, STORE: the output */
	const ffu_field *type;       /* DEF: the field whose <name>_t declares it (a point: its own type) */
	int first, n;                /* segments */
	int inv;                     /* INV: index into the body's inversions; else -1 */
} ffu_stmt;

typedef struct ffu_body {
	ffu_seg *seg;
	int nseg, capseg;
	ffu_stmt *stmt;
	int nstmt, capstmt;
	ffu_inv_stmt *inv;
	int ninv, capinv;
	ffu_strbuf text;
	const char *main_ix;         /* the name of index variable 0 ("i", "o") */
	bool open;                   /* the last statement takes more segments */
	bool oom;
} ffu_body;

/* How a body is printed: lane >= 0 suffixes locals and indices; vx (with vw) renames the
   vector field's and its prime's functions and types. {-1, NULL, 0}: as written. */
typedef struct ffu_body_style {
	int lane;
	const ffu_field *vx;
	int vw;
} ffu_body_style;

extern const ffu_body_style ffu__body_scalar;

void ffu__body_init(ffu_body *b, const char *main_ix);
void ffu__body_free(ffu_body *b);
/*
 * Appends to the body, printf-like; a '\n' ends a statement. Besides %d %c %s %u %x %lld %llu
 * %llx %zu (flags and widths as printf), the holes:
 *   %L (int form, int value)       a local          %I (int ix)   an index variable
 *   %T                             the temporary t_
 *   %F (const ffu_field *, const char *suffix)       <field>_<suffix>
 *   %C (int ix, const int64_t *dims, int rank, int d) coordinate d of ix (index.h)
 *   %E (const ffu_inst *in, int j, int ix)           operand j's index expression (index.h)
 */
void ffu__body_printf(ffu_body *b, const char *fmt, ...);
/*
 * Opens a statement of kind k (not INV, not DEF) for value, index variable or output dst
 * in form `form` (STEP): what ffu__body_printf appends up to the next '\n' is its text. A
 * '\n' not preceded by a statement's opening opens a TEXT statement.
 */
void ffu__body_stmt(ffu_body *b, ffu_stmt_kind k, int dst, ffu_vform form);
/* Opens the definition of value dst in form `form`, of type `type`'s <name>_t, computing
   sop (op: the instruction's op, for FFU_SOP_OP); its printer writes "\t<type> <local>",
   ffu__body_printf the rest (" = ...;\n"). */
void ffu__body_def(ffu_body *b, const ffu_field *type, ffu_vform form, int dst, ffu_stmt_op sop, ffu_op op);
/* Appends an inversion as its own statement. */
void ffu__body_inv(ffu_body *b, const ffu_inv_stmt *s);
/* Statement k's j-th operand: the j-th local its segments read other than its own
   destination (a DEF's or a STEP's); false past the last. */
bool ffu__body_stmt_operand(const ffu_body *b, int k, int j, ffu_vform *form, int *value);
/* Prints statement k, or every statement, in style st. An inversion prints as one scalar
   statement (its batch forms are codegen/wide.c's). */
void ffu__body_print_stmt(ffu_strbuf *sb, const ffu_body *b, int k, const ffu_body_style *st);
void ffu__body_print(ffu_strbuf *sb, const ffu_body *b, const ffu_body_style *st);
/* A local's or an index variable's name in style st, into buf (32 bytes). */
const char *ffu__body_local_name(char buf[32], ffu_vform form, int id, const ffu_body_style *st);
ffu_status ffu__body_status(const ffu_body *b, ffu_error *e);
/*
 * The statement list as text, one line per statement, each after `indent`: its kind, its
 * destination, what a definition computes, its operands in parentheses and the index
 * variables it reads at, by their names in the kernel: "def m2 to_mont (c2)",
 * "def c4 load @x1", "store 0 (c0) @i" (`fieldfuse compile --emit plan`).
 */
void ffu__body_print_plan(ffu_strbuf *sb, const ffu_body *b, const char *indent);

#endif
