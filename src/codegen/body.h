/*
 * codegen/body.h: a kernel body as the code generator plans it (codegen.c), before any
 * OpenCL C exists: a list of lines, each a list of segments, where every name a kernel
 * variant may spell differently is a typed hole, not text:
 *   a value's local in form c, m or w (c<v>, m<v>, w<v>), an index variable (i, x<k>), the
 *   power chains' temporary t_, a field's function or type (<field>_<suffix>), an index
 *   variable's defining expression or a coordinate of one (index arithmetic, index.h);
 * plus one line kind for an inversion (destination, operand and their forms), which the
 * wide variants replace by batch inversions. Literal text between the holes is the
 * generator's own, split into lines as it is appended.
 *
 * The printers render it per variant (ffu_body_style): one element per work-item as
 * written; lane r of a wide kernel, every local and index with the suffix _<r>; a vector
 * instance, every function and type of the vector field and its prime with _v<vw>. So a
 * variant is a way of printing the plan; nothing reads generated text back. The wide
 * kernels' printers are in codegen/wide.c.
 *
 * Ownership: a body owns its segments, lines and text; ffu__body_free releases them. The
 * field, shape and instruction pointers in holes belong to the module being generated.
 * Allocation failures latch (oom) and surface through ffu__body_status.
 */
#ifndef FFU_CODEGEN_BODY_H
#define FFU_CODEGEN_BODY_H

#include <stdbool.h>
#include <stdint.h>

#include "field.h"
#include "ir/ir.h"
#include "util/strbuf.h"

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
	char form;
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
	char dst_form;               /* 'm' (inverse) or 'w' (a divide's inverse) */
	int dst;
	char src_form;               /* 'c' where the operand has a canonical form (cheaper for a batch), else 'm' */
	int src;                     /* the operand's value; its m form always exists */
} ffu_inv_stmt;

typedef struct ffu_line {
	int first, n;                /* segments */
	int inv;                     /* index into the body's inversions, or -1 */
} ffu_line;

typedef struct ffu_body {
	ffu_seg *seg;
	int nseg, capseg;
	ffu_line *line;
	int nline, capline;
	ffu_inv_stmt *inv;
	int ninv, capinv;
	ffu_strbuf text;
	const char *main_ix;         /* the name of index variable 0 ("i", "o") */
	bool open;                   /* the last line takes more segments */
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
 * Appends to the body, printf-like; a '\n' ends a line. Besides %d %c %s %u %x %lld %llu
 * %llx %zu (flags and widths as printf), the holes:
 *   %L (int form, int value)       a local          %I (int ix)   an index variable
 *   %T                             the temporary t_
 *   %F (const ffu_field *, const char *suffix)       <field>_<suffix>
 *   %C (int ix, const int64_t *dims, int rank, int d) coordinate d of ix (index.h)
 *   %E (const ffu_inst *in, int j, int ix)           operand j's index expression (index.h)
 */
void ffu__body_printf(ffu_body *b, const char *fmt, ...);
/* Appends an inversion as its own line. */
void ffu__body_inv(ffu_body *b, const ffu_inv_stmt *s);
/* Prints line k, or every line, in style st. An inversion line prints as one scalar
   statement (its batch forms are codegen/wide.c's). */
void ffu__body_print_line(ffu_strbuf *sb, const ffu_body *b, int k, const ffu_body_style *st);
void ffu__body_print(ffu_strbuf *sb, const ffu_body *b, const ffu_body_style *st);
/* A local's or an index variable's name in style st, into buf (32 bytes). */
const char *ffu__body_local_name(char buf[32], char form, int id, const ffu_body_style *st);
ffu_status ffu__body_status(const ffu_body *b, ffu_error *e);

#endif
