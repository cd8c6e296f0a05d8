/*
 * codegen/msm_impl.h: the plan of an msm fusion's kernels, shared by its two emitters and
 * private to them: codegen/msm.c (the plan; the steps before and after the additions; the
 * additions in a kernel each, as GPUs and PoCL run them) and codegen/msm_one_add.c (every
 * addition in one kernel that calls it from one place, for drivers that inline every
 * call: device/target.h msm_one_add). msm.c's file comment says what the steps compute.
 *
 * Ownership: plain data; instruction, field and curve pointers belong to the fused
 * computation and the field tables.
 */
#ifndef FFU_CODEGEN_MSM_IMPL_H
#define FFU_CODEGEN_MSM_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "codegen/kernel.h"
#include "field.h"
#include "ir/ir.h"
#include "point.h"
#include "util/strbuf.h"

enum { ALL_INPUTS = -2 }; /* ffu__msm_step(): every input of the fusion (the scalars' producers read them) */

typedef struct msm_plan {
	const ffu_inst *msm;     /* in the fused computation */
	const ffu_field *fs;     /* scalars' type */
	const ffu_field *fb;     /* bases' point type */
	const ffu_field *fo;     /* the fusion's result: a point type of the same curve */
	const ffu_curve *cv;
	int in_s, in_b;          /* the fusion's inputs holding scalars (-1: computed) and bases */
	int n_in;                /* the fusion's inputs */
	int64_t n;
	int c, w, log_s, log_l;  /* window bits, windows, log2 of segments per window and of their length */
	int64_t nb, tb;          /* buckets per window, in all */
	int64_t kb;              /* buckets per work-item of the batch-affine bucket step; 0: xyzz */
	int64_t amin;            /* the fewest additions a batch-affine round inverts for */
	bool one_add;            /* every addition in one kernel (msm_one_add.c) */
	int sw, cw;              /* 32-bit words of a scalar, of a coordinate */
	bool scalar_mont, base_mont; /* stored in the device's Montgomery form (read as they are) */
	/* regions of the scratch buffer, in words (tmp, fin: msm_one_add.c's) */
	uint64_t cnt, off, pos, dig, idx, scl, bas, bkt, acc, prd, seg, win, tmp, fin, words;
	size_t loop_wg;          /* work-group size of the steps whose work-items loop long (target) */
	char P[64], B[64], S[64]; /* the curve's prefix, the coordinate and scalar fields' */
} msm_plan;

/*
 * A step's descriptor: items work-items; the fusion's input `in` (or ALL_INPUTS, or -1:
 * none), the scratch buffer, the output where `out`, then the plan's numbers as `const
 * ulong` arguments (msm.c lists them; `phase` and `nadd`, a work-item's additions in that
 * phase, are the ones that differ between launches of one kernel). ffu__msm_step also
 * prints the kernel's comment and signature.
 */
ffu_kernel_desc *ffu__msm_desc(ffu_fusion_kernels *fk, const msm_plan *pl, int k, const char *suffix, uint64_t items,
			       int in, bool out, uint64_t phase, uint64_t nadd);
ffu_kernel_desc *ffu__msm_step(ffu_strbuf *sb, ffu_fusion_kernels *fk, const msm_plan *pl, int k, const char *suffix,
			       uint64_t items, int in, bool out, const char *what);
/* Entry e's base (e in scope) as an affine point in the device form, negated where e's
   sign bit says (affine bases only): `aff var`, at the given indent. */
void ffu__msm_signed_base(ffu_strbuf *sb, const msm_plan *pl, const char *var, const char *indent);
/* Base i's load: the device-form affine or xyzz point, from BAS or as stored. */
void ffu__msm_base_load(ffu_strbuf *sb, const msm_plan *pl, const char *var, const char *ix);
/* msm_one_add.c: the bucket sums, the running sums, the windows and their combination in
   one kernel launched once per phase; the result's point in FIN for _final. */
bool ffu__msm_emit_one_add(ffu_strbuf *sb, ffu_fusion_kernels *fk, const msm_plan *pl, int k);
/* The additions a work-item of its segment, window and combination phases runs in its one
   loop (the plan keeps each within the target's loop limit; a bucket's: its points). */
void ffu__msm_one_add_steps(const msm_plan *pl, uint64_t steps[3]);

#endif
