/*
 * codegen/kgen.h: the value generator of one kernel, shared by the kernel emitters
 * (codegen.c: loop kernels, reduce.c: reductions) and private to codegen/. It plans which
 * value of which instruction each value reads (values are instructions at an index
 * variable), tracks the forms each value exists in (c canonical, m Montgomery) and emits
 * the body (codegen/body.h), converting only where a use needs it; kgen.c says how.
 *
 * Ownership: a kgen owns its values, index variables and body; ffu__kgen_free releases them.
 */
#ifndef FFU_CODEGEN_KGEN_H
#define FFU_CODEGEN_KGEN_H

#include <stdbool.h>

#include "codegen/body.h"
#include "codegen/kernel.h"
#include "ir/ir.h"
#include "util/strbuf.h"

typedef struct ffu_target ffu_target; /* device/target.h */

enum { IX_MAIN = 0, IX_ZERO = 1 }; /* index variables every kernel has: i, and 0 for scalars */

typedef struct val {
	int inst;         /* instruction id in the fused computation */
	int ix;           /* index variable */
	int next;         /* next value of the same instruction, -1 */
	int ops;          /* first entry of this value's operand values in kgen.opv */
	int alias;        /* index ops, field <-> _mont converts: the value this one is; -1 */
	bool has_c, has_m;
	bool z1;          /* a point with ZZ = ZZZ = 1 or at infinity (read from an affine type):
			     its additions take the mixed formula (codegen/kgen_point.c) */
	const unsigned char *literal; /* scalar constant: both forms are free */
} val;

/* An index variable: its expression (scalar names) as the interning key, and what it is
   printed from: operand j of `in` read at index variable `base` (x1 is the literal 0); or,
   in a kernel with columns (ffu__kgen_columns), a column variable: rows of col_n elements,
   the column the kernel's `col` less col_shift (printed as (rb / n) * col_n + col - shift). */
typedef struct ixvar {
	char *key;
	const ffu_inst *in;
	int j, base;
	bool col;
	int64_t col_n, col_shift;
} ixvar;

typedef struct kgen {
	ffu_body body;    /* the planned body (codegen/body.h) */
	ffu_body *b;      /* &body */
	const ffu_computation *fc;
	val *v;
	int nv, capv;
	int *first;       /* per instruction: its first value, -1 */
	int *opv;         /* operand values, n_operands per value */
	int nopv, capopv;
	ixvar *ix;        /* index variables; ix[IX_MAIN].key names the kernel's index */
	int nix, capix;
	int *uses;        /* uses of each instruction in the fused computation */
	int *mul_uses;    /* of those, how many are multiply operands (x * x once) */
	char fv_form;     /* the form ('c', 'm') of fv, a dot's sum handed to ffu_k<k>_y (dot.c) */
	/* columns (ffu__kgen_columns): the main index is rb + col, rb a multiple of n and
	   col in [lo, hi); picks: each concatenate met at a column variable, the operand
	   chosen (-1: the column range spans several, read clamped and selected) */
	struct {
		bool on;
		int64_t n, lo, hi;
		int *picks;
		int npicks, cappicks;
	} cols;
	bool oom;
} kgen;

/* main_ix names the kernel's index variable ("i"; "o" in a reduction's final kernel). */
ffu_status ffu__kgen_init(kgen *g, const ffu_computation *fc, const char *main_ix, ffu_error *e);
void ffu__kgen_free(kgen *g);
/*
 * Columns (codegen/fft.c's first pass): the main index is split as rb + col, where the
 * caller's rb (a multiple of n, the row length of the main index's shape) and col (known
 * to lie in [lo, hi)) are variables in scope; `i` must be defined as rb + col before the
 * body. A concatenate along the last dimension read at a column whose range lies inside
 * one operand then reads that operand directly, at rb / n * n_j + col - offset, with no
 * clamp and no select, and a scalar constant operand makes the value that constant (a
 * zero folds the products it feeds: ffu__kgen_zero). Call before any value is requested.
 */
void ffu__kgen_columns(kgen *g, int64_t n, int64_t lo, int64_t hi);
/* The value of instruction id at index variable ix (created, operands not yet planned). */
int ffu__kgen_value_at(kgen *g, int id, int ix);
/* Plans, backwards, the operand values of every value requested so far. */
void ffu__kgen_plan(kgen *g);
/* Emits the index variables and every planned value, in definition order. */
ffu_status ffu__kgen_emit_body(kgen *g, ffu_error *e);
/* Makes value vn available in form 'c' or 'm' (a conversion if needed); whether it is. */
void ffu__kgen_need(kgen *g, int vn, char form);
bool ffu__kgen_has(const kgen *g, int vn, char form);
/* Is value vn (once emitted) the constant zero, known at compile time? */
bool ffu__kgen_zero(const kgen *g, int vn);
/* Opens value vn's definition in form 'c' or 'm' (the statement's header and " = "): by
   its instruction's own code (ffu__kgen_decl: a constant, a load, its op), or computing sop
   (ffu__kgen_def: a conversion). Then, once defined, ffu__kgen_set_form records the form. */
void ffu__kgen_decl(kgen *g, int vn, char form);
void ffu__kgen_def(kgen *g, int vn, char form, ffu_stmt_op sop);
void ffu__kgen_set_form(kgen *g, int vn, char form);
/* The value an alias (index op, field <-> _mont convert) stands for. */
int ffu__kgen_resolve(const kgen *g, int vn);
/* Stores value vn as output o (of type f) at the kernel's index, converting as f needs. */
void ffu__kgen_emit_store(kgen *g, const ffu_field *f, int o, int vn);
/* "return <vn in f's storage form>;": what a load of type f would have read (codegen/fft.c). */
void ffu__kgen_emit_return(kgen *g, const ffu_field *f, int vn);
/* "return <vn in a form it has>;" in the base field's type: canonical where that exists,
   else Montgomery; which one it returned ('c' or 'm': codegen/dot.c's products). */
char ffu__kgen_emit_return_any(kgen *g, int vn);
/* Does the _mont type f store exactly the device's Montgomery form (loaded and stored as it is)? */
bool ffu__kgen_mont_is_dev(const ffu_field *f);
/* The OpenCL type of values of f ("babybear_t", "u32_t"), into buf. */
const char *ffu__kgen_cl_type(const ffu_field *f, char buf[64]);
/* A fusion's outputs: the root's tuple operands, or the root; their count. */
int ffu__kgen_outputs(const ffu_computation *fc, const ffu_inst *const **outs);

/* reduce.c: a reduction fusion's three kernels (their descriptors into fk; keep: its stage
   1 and stage 2 statement lists too). */
ffu_status ffu__codegen_emit_reduction(ffu_strbuf *sb, ffu_fusion_kernels *fk, const ffu_inst *fusion, int k,
				       bool serial_fold, bool keep, ffu_error *e);

/* fft.c: an NTT fusion's kernels (kind kFft): its twiddle kernel and passes, for target t. */
ffu_status ffu__codegen_emit_fft(ffu_strbuf *sb, ffu_fusion_kernels *fk, const ffu_inst *fusion, int k,
				 const ffu_target *t, ffu_error *e);
/* fft.c: the prime field whose vector instance (field_cl.h) some pass of this NTT fusion
   computes in on target t, or NULL (codegen/fft_vec.c). */
const ffu_field *ffu__codegen_fft_vector_field(const ffu_inst *fusion, const ffu_target *t);
/* msm.c: an msm fusion's kernels (kind kMsm): the steps of its bucket method, for target t. */
ffu_status ffu__codegen_emit_msm(ffu_strbuf *sb, ffu_fusion_kernels *fk, const ffu_inst *fusion, int k,
				 const ffu_target *t, ffu_error *e);
/* dot.c: the element type of this fusion's dot (kind kDot) where its kernel sums in a loop,
   which runs scalar on a CPU (a CSR row, a contraction too long to unroll); else NULL. */
const ffu_field *ffu__codegen_dot_loop_field(const ffu_inst *fusion);
/* dot.c: a dot fusion's kernel (kind kDot): one result element per work-item. */
ffu_status ffu__codegen_emit_dot(ffu_strbuf *sb, ffu_fusion_kernels *fk, const ffu_inst *fusion, int k,
				 ffu_error *e);
#endif
