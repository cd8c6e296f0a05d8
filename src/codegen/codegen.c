/*
 * codegen/codegen.c: the program and its kernels (see codegen.h): which kernels each fusion
 * gets (plan_wide: the wide variant's kind and lanes), their descriptors (kernel.h), the
 * loop kernels printed from the value generator's body (kgen.h, body.h, wide.c), the
 * reductions (reduce.c), and the field code in front (field_cl.h).
 */
#include "codegen/codegen.h"

#include <stdlib.h>
#include <string.h>

#include "codegen/field_cl.h"
#include "codegen/kgen.h"
#include "codegen/wide.h"
#include "device/target.h"

#define INV_LOCKSTEP_BYTES 16 /* fields up to this size invert in lanes in lockstep, larger in loops */
#define INV_LOOP_LANES 256    /* elements per work-item of the inversion loops (wide.c) */
#define INV_LOOP_MAX_INVS 4   /* inverting instructions it takes; more: no wide kernel */
#define DEEP_CHAIN_PRODUCTS 4 /* dependent products from which a kernel gets DEEP_CHAIN_LANES */
#define DEEP_CHAIN_LANES 8

/* ---- kernels ---- */

/* The field whose device functions compute on values of type f (NULL for u32/u64/pred). */
static const ffu_field *cl_field(const ffu_field *f)
{
	if (f->kind == FFU_ELEM_POINT) /* computed in its coordinate field (cl/point.cl) */
		return f->curve->coord->base;
	return f->kind == FFU_ELEM_UINT || f->kind == FFU_ELEM_PRED ? NULL : f->base;
}

static bool is_msm(const ffu_inst *in)
{
	return in->op == FFU_OP_FUSION && in->fusion_kind == FFU_FUSION_MSM;
}

bool ffu__codegen_is_reduction(const ffu_inst *fusion)
{
	const ffu_inst *r = fusion->callee->root;
	if (r->op == FFU_OP_TUPLE)
		r = r->n_operands > 0 ? r->operands[0] : r;
	return r->op == FFU_OP_REDUCE;
}

/* Does fc hold a value of an elliptic-curve point type (codegen/kgen_point.c)? */
static bool has_points(const ffu_computation *fc)
{
	for (int i = 0; i < fc->n_insts; i++) {
		const ffu_field *f = ffu__shape_field(&fc->insts[i]->shape);
		if (f && f->kind == FFU_ELEM_POINT)
			return true;
	}
	return false;
}

/* The widest field a fusion inverts in bytes, 0 if none; *count gets how many of its
   instructions invert. The inverting ops are those emit_special (kgen_special.c) sends to
   emit_inv. */
static size_t inverted_bytes(const ffu_computation *fc, int *count)
{
	size_t bytes = 0;
	int n = 0;
	for (int i = 0; i < fc->n_insts; i++) {
		const ffu_field *f = ffu__shape_field(&fc->insts[i]->shape);
		if (!f || (fc->insts[i]->op != FFU_OP_INVERSE && fc->insts[i]->op != FFU_OP_DIVIDE))
			continue;
		n++;
		bytes = f->storage_bytes > bytes ? f->storage_bytes : bytes;
	}
	*count = n;
	return bytes;
}

/*
 * The extension whose vector instance (field_cl.h: ffu__cl_vector_lanes) a CPU wide kernel
 * of this fusion computes in, or NULL: every value of the fusion is of that extension or
 * its prime field, and every op is add, subtract, negate or multiply of values read at the
 * fusion's own index (parameters, a tuple of outputs) or scalar constants, broadcast or
 * not. Other ops (index arithmetic, conversions, powers, inversions) keep the lanes of
 * the lanes in lockstep.
 */
static const ffu_field *vector_field(const ffu_computation *fc)
{
	const ffu_field *x = NULL;
	for (int i = 0; i < fc->n_insts; i++) {
		const ffu_inst *in = fc->insts[i];
		if (in->op == FFU_OP_TUPLE && in == fc->root)
			continue;
		/* the op table's linear and bilinear element-wise ops: add, subtract, negate, multiply */
		const ffu_op_info *op = &ffu__ops[in->op];
		bool ok = in->op == FFU_OP_PARAMETER ||
			  (op->kind == FFU_KIND_ELEMENTWISE && op->form != FFU_FORM_SPECIAL) ||
			  (in->op == FFU_OP_CONSTANT && in->shape.rank == 0) ||
			  (in->op == FFU_OP_BROADCAST && in->operands[0]->op == FFU_OP_CONSTANT);
		const ffu_field *f = ffu__shape_field(&in->shape);
		if (!ok || !f)
			return NULL;
		if (!x && ffu__cl_vector_lanes(f) > 0)
			x = f;
	}
	for (int i = 0; i < fc->n_insts && x; i++) {
		const ffu_inst *in = fc->insts[i];
		const ffu_field *f = ffu__shape_field(&in->shape);
		if (!(in->op == FFU_OP_TUPLE && in == fc->root) && f != x && f != x->prime)
			return NULL;
	}
	return x;
}

/* The most products on one path of dependent values of fc (x * y * y: 2). */
static int product_depth(const ffu_computation *fc)
{
	int stack[256], *d = fc->n_insts <= 256 ? stack : malloc(sizeof(int) * (size_t)fc->n_insts);
	if (!d)
		return 0; /* out of memory: the profile's lanes, as for a shallow kernel */
	int best = 0;
	for (int i = 0; i < fc->n_insts; i++) {
		const ffu_inst *in = fc->insts[i];
		int m = 0;
		for (int j = 0; j < in->n_operands; j++) {
			const ffu_inst *o = in->operands[j];
			if (o->parent == fc && o->id < i && d[o->id] > m)
				m = d[o->id];
		}
		d[i] = m + (ffu__ops[in->op].form == FFU_FORM_BILINEAR); /* multiply, square */
		best = d[i] > best ? d[i] : best;
	}
	if (d != stack)
		free(d);
	return best;
}

/*
 * A kernel that inverts gets lanes for one batch inversion per work-item. Fields up to 16
 * bytes: 16 lanes in lockstep (wide.c: print_inv_batch), which PoCL vectorises across work-items.
 * 256-bit fields: INV_LOOP_LANES elements in loops (ffu__wide_print_inv_loops), because lanes
 * in lockstep cost compile time (PoCL builds each lane's products: a kernel with two BN254
 * divides took 2.2 s to build with one lane, 6.0 s with 4, 11.4 s with 8). PoCL, quotient
 * (BN254, (f - v) / (x - z)): at 2^18, 2.33 s with one Fermat inversion per element, 0.54 s
 * with 4 lanes in lockstep, 0.29 s with 8; at 2^20, 2.27 s per element, 0.26 s in loops of
 * 64, 0.17 s in loops of 256 (the prefix products, 8 KiB, stay in L1), 0.12 s with the
 * canonical operand (wide.c: batch_fixup).
 * Otherwise, measured on PoCL at 2^20: lanes pay where a kernel has work to interleave (seed_bb fused
 * 0.285 -> 0.157 ms, 8 chained BabyBear products 2.97 -> 1.76 ms) but not for a kernel of
 * one element-wise op (BabyBear multiply 2.23 -> 2.51 ms, Goldilocks 5.6 -> 40 ms) nor for
 * 256-bit fields, whose product already has ample independent work (and 4x the code).
 * Prime-field kernels with DEEP_CHAIN_PRODUCTS dependent products or more get at least
 * DEEP_CHAIN_LANES: each lane's chain is latency-bound, and more lanes fill the out-of-order
 * window. PoCL at 2^21, 4 / 8 / 16 lanes (ms): 8 chained BabyBear products 1.68 / 1.13 /
 * 1.10, Mersenne31 1.19 / 0.85 / 0.87, Goldilocks 5.5 / 4.45 / 5.1, the 6-deep chain
 * workload 1.66 / 1.27 / 1.37; shallow kernels do not gain (seed_bb 0.24 / 0.25 / 0.35,
 * sumcheck, fold level at 4 and 8), nor do extensions, whose products have independent
 * work of their own (mersenne31x2 chain at 2^20: 2.04 ms with 4, 2.45 with 8).
 * Reductions have their own work distribution (a loop per work-item).
 */
typedef struct wide_plan {
	ffu_kernel_variant kind; /* the wide kernel's (kernel.h); SCALAR: none */
	int lanes;               /* its elements per work-item; 1 for none */
	const ffu_field *vx;     /* VECTOR: the extension */
} wide_plan;

/* The one decision of a fusion's wide kernel: the kernel emitter, the lane count and the
   program's field options all read it. */
static wide_plan plan_wide(const ffu_inst *fusion, int lanes)
{
	const wide_plan none = {FFU_VARIANT_SCALAR, 1, NULL};
	const ffu_computation *fc = fusion->callee;
	if (lanes <= 1 || ffu__codegen_is_reduction(fusion) || fusion->fusion_kind == FFU_FUSION_FFT ||
	    fusion->fusion_kind == FFU_FUSION_DOT || fusion->fusion_kind == FFU_FUSION_MSM)
		return none;
	/* a point op is a few dozen products with branches of its own (cl/point.cl): one
	   element per work-item, its additions called, not repeated per lane */
	if (has_points(fc))
		return none;
	const ffu_field *vx = vector_field(fc);
	if (vx)
		return (wide_plan){FFU_VARIANT_VECTOR, ffu__cl_vector_lanes(vx), vx};
	int invs = 0;
	size_t inv_bytes = inverted_bytes(fc, &invs);
	if (inv_bytes && inv_bytes <= INV_LOCKSTEP_BYTES)
		return (wide_plan){FFU_VARIANT_LANES, 16, NULL};
	if (inv_bytes)
		return invs <= INV_LOOP_MAX_INVS ? (wide_plan){FFU_VARIANT_INV_LOOPS, INV_LOOP_LANES, NULL} : none;
	int ops = 0;
	bool ext = false;
	for (int i = 0; i < fc->n_insts; i++) {
		const ffu_field *f = ffu__shape_field(&fc->insts[i]->shape);
		if (f && f->storage_bytes > 8)
			return none;
		ext |= f && f->kind == FFU_ELEM_EXT;
		ops += ffu__ops[fc->insts[i]->op].kind == FFU_KIND_ELEMENTWISE;
	}
	if (ops < 2)
		return none;
	bool deep = !ext && lanes < DEEP_CHAIN_LANES && product_depth(fc) >= DEEP_CHAIN_PRODUCTS;
	return (wide_plan){FFU_VARIANT_LANES, deep ? DEEP_CHAIN_LANES : lanes, NULL};
}

int ffu__codegen_kernel_lanes(const ffu_inst *fusion, const ffu_target *t)
{
	return plan_wide(fusion, t->profile.lanes).lanes;
}

/*
 * A loop fusion becomes kernel ffu_k<k>, one element per work-item, and where lanes > 1
 * also ffu_k<k>_wide: `lanes` elements per work-item (i, i + stride, ...), the body
 * repeated statement by statement in lockstep. Why: on CPU devices a long chain of
 * dependent products is latency-bound, and the out-of-order window only overlaps
 * independent chains that are interleaved in the instruction stream (PoCL, 16 chained
 * BabyBear products at 2^20: 6.7 ms one lane, 3.4 ms four interleaved lanes).
 *
 * No bounds check: the runtime launches exactly as many work-items as there are elements
 * (ffu__cl_launch). On PoCL any guard or index clamp stops the work-group loop from being
 * vectorised: measured 0.96 ms unguarded vs 5-10 ms guarded for (x + y) * x at 2^22.
 */
/* Plans and emits the body of a loop fusion's kernels into g: every output's value at the
   kernel's index, then their stores. */
static ffu_status plan_loop_body(kgen *g, const ffu_computation *fc, ffu_error *e)
{
	const ffu_inst *const *outs;
	int n_out = ffu__kgen_outputs(fc, &outs);
	ffu_status st = ffu__kgen_init(g, fc, "i", e);
	if (st)
		return st;
	int *ov = calloc((size_t)n_out + 1, sizeof *ov);
	if (!ov)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory generating kernels");
	for (int o = 0; o < n_out; o++)
		ov[o] = ffu__kgen_value_at(g, outs[o]->id, IX_MAIN);
	ffu__kgen_plan(g);
	st = ffu__kgen_emit_body(g, e);
	for (int o = 0; o < n_out && st == FFU_STATUS_OK; o++)
		ffu__kgen_emit_store(g, ffu__shape_field(&outs[o]->shape), o, ov[o]);
	free(ov);
	return st ? st : ffu__body_status(g->b, e);
}

/* keep: the body moves into fk (ffu_program_kernels.keep_bodies). */
static ffu_status emit_loop_kernel(ffu_strbuf *sb, ffu_fusion_kernels *fk, const ffu_inst *fusion, int k, int lanes,
				   bool keep, ffu_error *e)
{
	const ffu_computation *fc = fusion->callee;
	const ffu_inst *const *outs;
	int n_out = ffu__kgen_outputs(fc, &outs);
	const wide_plan wp = plan_wide(fusion, lanes);
	kgen g;
	ffu_status st = plan_loop_body(&g, fc, e);
	if (st == FFU_STATUS_OK && !ffu__kernels_loop(fk, fusion, k, n_out, wp.kind, wp.lanes))
		st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory generating kernels");
	if (st)
		goto out;
	ffu__sb_printf(sb, "/* %s: %s */\n", fusion->name, fc->name);
	ffu__kernel_print_signature(sb, ffu__fusion_kernel(fk, FFU_KERNEL_LOOP));
	ffu__sb_append(sb, "\tconst ulong i = get_global_id(0);\n");
	ffu__body_print(sb, g.b, &ffu__body_scalar);
	ffu__sb_append(sb, "}\n\n");
	const ffu_kernel_desc *wide = ffu__fusion_kernel(fk, FFU_KERNEL_WIDE);
	lanes = wp.lanes;
	if (wide)
		ffu__kernel_print_signature(sb, wide);
	if (wp.kind == FFU_VARIANT_VECTOR) {
		ffu__sb_printf(sb, "\t/* %d elements per work-item: i .. i + %d in vectors */\n", lanes, lanes - 1);
		ffu__sb_append(sb, "\tconst ulong i = get_global_id(0);\n");
		ffu__wide_print_vector(sb, g.b, wp.vx, lanes);
		ffu__sb_append(sb, "}\n\n");
	} else if (wp.kind == FFU_VARIANT_INV_LOOPS) {
		ffu__sb_append(sb, "\tconst ulong g = get_global_id(0);\n");
		ffu__wide_print_inv_loops(sb, g.b, lanes);
		ffu__sb_append(sb, "}\n\n");
	} else if (wp.kind == FFU_VARIANT_LANES) {
		ffu__sb_append(sb, "\tconst ulong g = get_global_id(0);\n");
		ffu__wide_print_lanes(sb, g.b, lanes);
		ffu__sb_append(sb, "}\n\n");
	}
	st = ffu__body_status(g.b, e);
	if (st == FFU_STATUS_OK && keep && !ffu__fusion_keep_body(fk, g.b))
		st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory generating kernels");
out:
	ffu__kgen_free(&g);
	return st;
}

/*
 * 64-bit containers pay on CPUs, where SIMD lanes are 64 bits wide either way (cl/word31.cl
 * has the measurement); on GPUs a 64-bit integer is two 32-bit registers.
 * 64-bit limbs for a program with a 256-bit kernel that runs in loops (ffu__wide_print_inv_loops,
 * CPUs only): a loop kernel is not vectorised across work-items, and one scalar 64-bit limb
 * product (x86-64's 64x64 -> 128 multiply, cl/montn_64.cl) is a quarter of the 32-bit
 * ones. PoCL, quotient at 2^18: 31 ms with 32-bit limbs, 16.5 ms with 64-bit (the C baseline
 * 16.4 ms). The program's other 256-bit kernels pay for it (element-wise ones run 1.8x
 * slower with 64-bit limbs, vectorised), but next to a batch inversion they are small.
 */
ffu_cl_field_opts ffu__codegen_field_opts(const ffu_module *m, const ffu_target *t)
{
	ffu_cl_field_opts fo = {.ext_w64 = t->ext_w64};
	for (int i = 0; m && i < m->entry->n_insts; i++) {
		const ffu_inst *in = m->entry->insts[i];
		if (in->op == FFU_OP_FUSION && plan_wide(in, t->profile.lanes).kind == FFU_VARIANT_INV_LOOPS)
			fo.limb_bits = 64;
		/* an NTT's passes on a CPU run a work-item's 256-bit values in scalar code too */
		const ffu_field *f = in->op == FFU_OP_FUSION && in->fusion_kind == FFU_FUSION_FFT
					     ? ffu__shape_field(in->shape.type == FFU_TYPE_TUPLE ? &in->shape.elems[0] : &in->shape)
					     : NULL;
		if (f && t->cls == FFU_DEVICE_CLASS_CPU && f->storage_bytes >= 32)
			fo.limb_bits = 64;
		/* so do an msm's point additions (codegen/msm.c: loops over buckets): msm_bn254_g1 at
		   2^16 on PoCL, 2 cores, 450 ms with 64-bit limbs, 1130-1350 ms with 32-bit ones */
		if (is_msm(in) && t->cls == FFU_DEVICE_CLASS_CPU)
			fo.limb_bits = 64;
		/* and so do the element-wise point kernels (no wide variant: plan_wide) */
		if (in->op == FFU_OP_FUSION && has_points(in->callee) && t->cls == FFU_DEVICE_CLASS_CPU)
			fo.limb_bits = 64;
		/* so does a dot's sum in a loop (codegen/dot.c) */
		f = in->op == FFU_OP_FUSION ? ffu__codegen_dot_loop_field(in) : NULL;
		if (f && t->cls == FFU_DEVICE_CLASS_CPU && f->storage_bytes >= 32)
			fo.limb_bits = 64;
	}
	return fo;
}

ffu_status ffu__codegen_program(ffu_strbuf *sb, const ffu_module *m, const ffu_target *t, int *n_kernels,
				ffu_error *e)
{
	ffu_program_kernels pk = {0};
	ffu_status st = ffu__codegen_program_kernels(sb, m, t, &pk, e);
	*n_kernels = pk.n;
	ffu__program_kernels_free(&pk);
	return st;
}

ffu_status ffu__codegen_program_kernels(ffu_strbuf *sb, const ffu_module *m, const ffu_target *t,
					ffu_program_kernels *pk, ffu_error *e)
{
	const int lanes = t->profile.lanes;
	bool used[FFU_ELEM_COUNT] = {0}, curve_used[FFU_ELEM_COUNT - FFU_FIELD_POINT_FIRST] = {0};
	const bool keep = pk->keep_bodies;
	memset(pk, 0, sizeof *pk);
	pk->keep_bodies = keep;
	if (!(pk->fusions = calloc((size_t)m->entry->n_insts + 1, sizeof *pk->fusions)))
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory generating kernels");
	for (int c = 0; c < m->n_comps; c++) {
		if (!m->comps[c]->is_fused)
			continue;
		for (int i = 0; i < m->comps[c]->n_insts; i++) {
			const ffu_field *f = ffu__shape_field(&m->comps[c]->insts[i]->shape);
			if (f && cl_field(f))
				used[cl_field(f)->id] = true;
			if (f && f->kind == FFU_ELEM_POINT) /* a curve's text needs its scalars' field too */
				used[f->curve->scalar->id] =
					curve_used[ffu__point_type_of(f->curve, FFU_POINT_AFFINE, false)->id - FFU_FIELD_POINT_FIRST] = true;
		}
	}
	/* the vector instances the wide kernels and NTT passes of some fusions compute in */
	bool used_vec[FFU_ELEM_COUNT] = {0};
	for (int i = 0; i < m->entry->n_insts; i++) {
		const ffu_inst *in = m->entry->insts[i];
		const ffu_field *vx = in->op != FFU_OP_FUSION		   ? NULL
				      : in->fusion_kind == FFU_FUSION_FFT ? ffu__codegen_fft_vector_field(in, t)
									  : plan_wide(in, lanes).vx;
		if (vx)
			used_vec[vx->id] = true;
	}
	ffu__cl_emit_common(sb);
	ffu_cl_field_opts fo = ffu__codegen_field_opts(m, t);
	ffu__cl_emit_fields_opts(sb, used, &fo);
	ffu__cl_emit_vector_fields(sb, used_vec);
	const ffu_computation *entry = m->entry;
	/* the point arithmetic of every curve a fusion's values use, once each (curve_used is
	   marked at each curve's first type: affine, canonical coordinates) */
	for (int id = FFU_FIELD_POINT_FIRST; id < FFU_ELEM_COUNT; id++)
		if (curve_used[id - FFU_FIELD_POINT_FIRST])
			ffu__cl_emit_curve_ops(sb, ffu__field_get((ffu_field_id)id)->curve);
	for (int i = 0; i < entry->n_insts; i++) {
		const ffu_inst *in = entry->insts[i];
		if (in->op != FFU_OP_FUSION)
			continue;
		int k = pk->n++;
		ffu_fusion_kernels *fk = &pk->fusions[k];
		ffu_status st = in->fusion_kind == FFU_FUSION_FFT   ? ffu__codegen_emit_fft(sb, fk, in, k, t, e)
				: in->fusion_kind == FFU_FUSION_DOT ? ffu__codegen_emit_dot(sb, fk, in, k, e)
				: in->fusion_kind == FFU_FUSION_MSM ? ffu__codegen_emit_msm(sb, fk, in, k, t, e)
				: ffu__codegen_is_reduction(in)
					? ffu__codegen_emit_reduction(sb, fk, in, k, t->fold == FFU_FOLD_SERIAL, keep, e)
					: emit_loop_kernel(sb, fk, in, k, lanes, keep, e);
		if (st) {
			ffu__program_kernels_free(pk);
			return st;
		}
	}
	return ffu__sb_status(sb, e);
}
