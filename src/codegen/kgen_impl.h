/*
 * codegen/kgen_impl.h: private to the kernel value generator (codegen/kgen.c, the plan and
 * the emission framework; codegen/kgen_form.c, forms, loads and stores;
 * codegen/kgen_special.c, the special element-wise ops; codegen/kgen_point.c, points); no
 * other file includes it. Small accessors of a kgen's values, shared so these files read
 * them the same way; the kgen and its arrays stay owned by kgen.c (ffu__kgen_init/free).
 */
#ifndef FFU_CODEGEN_KGEN_IMPL_H
#define FFU_CODEGEN_KGEN_IMPL_H

#include <stdbool.h>

#include "codegen/kgen.h"

static inline const ffu_inst *inst_of(const kgen *g, int vn)
{
	return g->fc->insts[g->v[vn].inst];
}

static inline const ffu_field *field_of(const kgen *g, int vn)
{
	return ffu__shape_field(&inst_of(g, vn)->shape);
}

static inline bool is_int(const ffu_field *f)
{
	return f->kind == FFU_ELEM_UINT || f->kind == FFU_ELEM_PRED;
}

static inline bool is_point(const ffu_field *f)
{
	return f && f->kind == FFU_ELEM_POINT;
}

/* The OpenCL C integer type of an integer type's width: "uchar" ... "ulong", "char" ... "long". */
static inline const char *cl_int_type(const ffu_field *f, bool is_signed)
{
	static const char *const u[] = {"uchar", "ushort", "uint", "ulong"}, *const s[] = {"char", "short", "int", "long"};
	int k = f->bits <= 8 ? 0 : f->bits <= 16 ? 1 : f->bits <= 32 ? 2 : 3;
	return is_signed ? s[k] : u[k];
}

/* The value operand j of value vn reads (planned by ffu__kgen_plan). */
static inline int opval(const kgen *g, int vn, int j)
{
	return g->opv[g->v[vn].ops + j];
}

/* The second operand of a binary op's value vn, or its only one for a unary op: square(x),
   the unary BILINEAR op, is x * x (ir/ops.def); negate's is its own. */
static inline int opval_b(const kgen *g, int vn)
{
	return inst_of(g, vn)->n_operands > 1 ? opval(g, vn, 1) : opval(g, vn, 0);
}

/*
 * The form in which operands first..first+n-1 of vn are all available (c preferred),
 * converting what lacks it. Integer and pred values only ever have c, so they get c.
 */
char ffu__kgen_common_form(kgen *g, int vn, int first, int n);

/* Loads parameter (or fft or dot result) vn's instruction at the value's index into its
   c and/or m form (codegen/kgen_form.c). */
void ffu__kgen_emit_load(kgen *g, int vn);

/* Emits value vn of an op of form FFU_FORM_SPECIAL (codegen/kgen_special.c). */
void ffu__kgen_emit_special(kgen *g, int vn);

/* Point values (codegen/kgen_point.c): held as <curve>_xyzz in form m only. */
void ffu__kgen_point_const(kgen *g, int vn);
void ffu__kgen_point_load(kgen *g, int vn);
void ffu__kgen_point_store(kgen *g, const ffu_field *f, int o, int vn);
/* Emits vn if it is an element-wise op on points (a point result, or a compare of points);
   whether it was. */
bool ffu__kgen_emit_point(kgen *g, int vn);

#endif
