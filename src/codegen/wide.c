/* codegen/wide.c: the wide kernels' bodies (see wide.h). */
#include "codegen/wide.h"

#include <stdio.h>

/*
 * The batches take the operand in whichever form the inversion names, c<v> when there is
 * one. On a canonical operand d the Montgomery products treat d as d / R: the batch then
 * yields R^2 / d, and one product by 1 on the running inverse (a_ /= R, which every
 * inverse taken off it inherits) makes each R / d, the Montgomery form of d^-1. That one
 * product per batch replaces a conversion per element (BabyBear: 3 of the 32x32
 * products). Emits that fix-up where the operand is canonical.
 */
static void batch_fixup(ffu_strbuf *sb, const char *indent, const ffu_inv_stmt *s)
{
	if (s->src_form == 'c')
		ffu__sb_printf(sb, "%sa_ = %s_from_mont(a_);\n", indent, s->f->name);
}

/*
 * A wide kernel's inversion, all lanes at once (Montgomery's trick): with y_r the operand
 * of lane r (1 where it is 0) and p_r = y_0 ... y_r, one inversion of p_(L-1) and
 * 3 (L - 1) products give every y_r^-1; lanes whose operand was 0 get 0 (inverse(0) = 0).
 * Fermat costs about log2 p products per inversion (~380 for BN254), so this is what makes
 * divide cheap on CPU devices: see codegen.c's plan_wide for the measurement.
 */
static void print_inv_batch(ffu_strbuf *sb, const ffu_inv_stmt *s, int lanes)
{
	const char *fn = s->f->name;
	char dst[32], src[32];
	ffu__body_local_name(dst, s->dst_form, s->dst, &ffu__body_scalar);
	ffu__body_local_name(src, s->src_form, s->src, &ffu__body_scalar);
	ffu__sb_printf(sb, "\t/* %s = %s^-1 in %d lanes: one inversion */\n", dst, src, lanes);
	for (int r = 0; r < lanes; r++)
		ffu__sb_printf(sb, "\t%s_t %s_%d;\n", fn, dst, r);
	ffu__sb_printf(sb, "\t{\n\t\tconst %s_t o_ = %s_one_m(), z_ = %s_sub(o_, o_);\n", fn, fn, fn);
	ffu__sb_printf(sb, "\t\t%s_t y_[%d], p_[%d], a_;\n\t\tint z[%d];\n", fn, lanes, lanes, lanes);
	for (int r = 0; r < lanes; r++)
		ffu__sb_printf(sb, "\t\tz[%d] = %s_eq(%s_%d, z_);\n\t\ty_[%d] = z[%d] ? o_ : %s_%d;\n", r, fn, src, r, r,
			       r, src, r);
	/* loops, not unrolled: a product of a 256-bit field is hundreds of instructions */
	ffu__sb_printf(sb,
		       "\t\tp_[0] = y_[0];\n"
		       "\t\t#pragma unroll 1\n"
		       "\t\tfor (int r = 1; r < %d; r++)\n"
		       "\t\t\tp_[r] = %s_mul(p_[r - 1], y_[r]);\n"
		       "\t\ta_ = %s_inv(p_[%d]);\n",
		       lanes, fn, fn, lanes - 1);
	batch_fixup(sb, "\t\t", s);
	ffu__sb_printf(sb,
		       "\t\t#pragma unroll 1\n"
		       "\t\tfor (int r = %d; r > 0; r--) {\n"
		       "\t\t\tp_[r] = %s_mul(a_, p_[r - 1]);\n"
		       "\t\t\ta_ = %s_mul(a_, y_[r]);\n"
		       "\t\t}\n"
		       "\t\tp_[0] = a_;\n",
		       lanes - 1, fn, fn);
	for (int r = 0; r < lanes; r++)
		ffu__sb_printf(sb, "\t\t%s_%d = z[%d] ? z_ : p_[%d];\n", dst, r, r, r);
	ffu__sb_append(sb, "\t}\n");
}

void ffu__wide_print_lanes(ffu_strbuf *sb, const ffu_body *b, int lanes)
{
	for (int r = 0; r < lanes; r++)
		ffu__sb_printf(sb, "\tconst ulong i_%d = g + %d * stride;\n", r, r);
	for (int k = 0; k < b->nstmt; k++) {
		if (b->stmt[k].kind == FFU_STMT_INV) {
			print_inv_batch(sb, &b->inv[b->stmt[k].inv], lanes);
			continue;
		}
		for (int r = 0; r < lanes; r++)
			ffu__body_print_stmt(sb, b, k, &(ffu_body_style){r, NULL, 0});
	}
}

void ffu__wide_print_vector(ffu_strbuf *sb, const ffu_body *b, const ffu_field *vx, int vw)
{
	ffu__body_print(sb, b, &(ffu_body_style){-1, vx, vw});
}

/* The body's statements [from, to), inversion k (k < n_before) read from d<k>_[r] instead. */
static void print_stmts(ffu_strbuf *sb, const ffu_body *b, int from, int to)
{
	for (int k = from; k < to; k++) {
		const ffu_stmt *l = &b->stmt[k];
		if (l->kind != FFU_STMT_INV) {
			ffu__body_print_stmt(sb, b, k, &ffu__body_scalar);
			continue;
		}
		const ffu_inv_stmt *s = &b->inv[l->inv];
		char dst[32];
		ffu__sb_printf(sb, "\t%s_t %s = d%d_[r];\n", s->f->name,
			       ffu__body_local_name(dst, s->dst_form, s->dst, &ffu__body_scalar), l->inv);
	}
}

/*
 * The wide kernel of a 256-bit fusion that inverts: each work-item takes `lanes` elements
 * (g, g + stride, ...) in loops, as a prover batches inversions. For the k-th inversion of
 * the body: a loop runs the body up to it and keeps the running product of its operands
 * (a zero as 1); one inversion of the product; a loop going down runs the body again and
 * takes each inverse off the running inverse with two products. The last inversion's down
 * loop also finishes the body; earlier ones keep their inverses in d<k>_[], which later
 * loops read in place of the inversion. The body before an inversion is recomputed, not
 * stored (for the workloads here: loads and subtractions). Per element: 3 products plus
 * 1 / lanes of an inversion, for each inversion. Loops, not lanes in lockstep: each lane's
 * code would be built again (see plan_wide in codegen.c), and PoCL does not vectorise
 * 256-bit products across work-items profitably anyway. No loop runs more than `lanes`
 * times around an inversion: llvmpipe (Rusticl) silently leaves a loop after 65535
 * iterations, which per-element Fermat inside a loop of 256 exceeded.
 */
void ffu__wide_print_inv_loops(ffu_strbuf *sb, const ffu_body *b, int lanes)
{
	int at = 0; /* the statement of the inversion before k */
	for (int k = 0; k < b->ninv; k++) {
		const ffu_inv_stmt *s = &b->inv[k];
		const char *fn = s->f->name;
		char dst[32], src[32];
		ffu__body_local_name(dst, s->dst_form, s->dst, &ffu__body_scalar);
		ffu__body_local_name(src, s->src_form, s->src, &ffu__body_scalar);
		while (b->stmt[at].inv != k)
			at++;
		bool last = k == b->ninv - 1;
		if (k == 0)
			ffu__sb_printf(sb, "\tconst %s_t o_ = %s_one_m(), z_ = %s_sub(o_, o_);\n\t%s_t p_[%d], a_;\n", fn, fn,
				       fn, fn, lanes);
		if (!last)
			ffu__sb_printf(sb, "\t%s_t d%d_[%d];\n", fn, k, lanes);
		ffu__sb_printf(sb, "\ta_ = o_;\n\tfor (int r = 0; r < %d; r++) {\n\t\tconst ulong i = g + r * stride;\n", lanes);
		print_stmts(sb, b, 0, at);
		ffu__sb_printf(sb, "\t\ta_ = %s_mul(a_, %s_eq(%s, z_) ? o_ : %s);\n\t\tp_[r] = a_;\n\t}\n", fn, fn, src, src);
		ffu__sb_printf(sb, "\ta_ = %s_inv(a_);\n", fn);
		batch_fixup(sb, "\t", s);
		ffu__sb_printf(sb, "\tfor (int r = %d; r >= 0; r--) {\n\t\tconst ulong i = g + r * stride;\n", lanes - 1);
		print_stmts(sb, b, 0, at);
		ffu__sb_printf(sb,
			       "\t\tconst int z = %s_eq(%s, z_);\n"
			       "\t\t%s_t %s = r ? %s_mul(a_, p_[r - 1]) : a_;\n"
			       "\t\ta_ = %s_mul(a_, z ? o_ : %s);\n"
			       "\t\t%s = z ? z_ : %s;\n",
			       fn, src, fn, dst, fn, fn, src, dst, dst);
		if (last)
			print_stmts(sb, b, at + 1, b->nstmt);
		else
			ffu__sb_printf(sb, "\t\td%d_[r] = %s;\n", k, dst);
		ffu__sb_append(sb, "\t}\n");
	}
}
