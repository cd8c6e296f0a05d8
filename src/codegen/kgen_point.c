/*
 * codegen/kgen_point.c: elliptic-curve point values in the element-wise kernels (the value
 * generator of codegen/kgen.c; its private accessors are codegen/kgen_impl.h).
 *
 * Every point value of a kernel is one group element held as xyzz in the device's
 * Montgomery form (cl/point.cl: <curve>_xyzz), whatever kind the IR declares for it: the
 * kind only decides how the value is read from memory and written back. So a value has
 * one form, m; convert between point types is an alias; add, subtract, negate, multiply
 * (scalar, point), compare EQ/NE and select are calls into cl/point.cl; the layout ops
 * move values as for any type (codegen/kgen.c). Loads: affine (x, y) -> (x, y, 1, 1),
 * jacobian (X, Y, Z) -> (X, Y, Z^2, Z^3), xyzz as stored, coordinates of a `_mont` type read
 * as they are (their R is the device's, as for the msm's bases: codegen/msm.c), canonical
 * ones converted. Stores: cl/point.cl's out_aff (one inversion), out_jac, out_xyzz (none),
 * so a jacobian or xyzz result is one of its representatives (docs/hlo.md: compared as
 * group elements).
 *
 * Why xyzz: the msm's additions are written there already (mixed, general, doubling, each
 * with its special cases decided), and it converts from both other kinds without an
 * inversion. A value read from an affine type (or an affine literal, or a negation or
 * select of such) is marked z1 (ZZ = ZZZ = 1 or infinity): an addition with it, and a
 * scalar multiplication of it, take the mixed formula (cl/point.cl: xyzz_add_z1, _mul_z1).
 */
#include <stdio.h>
#include <string.h>

#include "codegen/field_cl.h"
#include "codegen/kgen_impl.h"
#include "point.h"

static const char *const kind_name[] = {[FFU_POINT_AFFINE] = "aff", [FFU_POINT_JACOBIAN] = "jac",
					[FFU_POINT_XYZZ] = "xyzz"};

/* A point literal: its xyzz coordinates (host conversion) in the device form, inlined. */
void ffu__kgen_point_const(kgen *g, int vn)
{
	const ffu_field *f = field_of(g, vn);
	const ffu_curve *cv = f->curve;
	const ffu_field *xt = ffu__point_type_of(cv, FFU_POINT_XYZZ, false);
	unsigned char xyzz[FFU_FIELD_MAX_BYTES], dev[FFU_FIELD_MAX_BYTES];
	if (!ffu__fp_convert(xt, xyzz, f, g->v[vn].literal)) {
		g->oom = true; /* not reached: the verifier admits point literals of valid points */
		return;
	}
	const size_t cb = cv->coord->storage_bytes;
	ffu__kgen_def(g, vn, 'm', FFU_SOP_CONST);
	ffu__body_printf(g->b, "%s_xyzz_of(", cv->name);
	for (int k = 0; k < 4; k++) {
		ffu_strbuf args = {0};
		ffu__fp_to_dev_mont(cv->coord->base, dev, xyzz + (size_t)k * cb);
		ffu__cl_emit_const_args(&args, cv->coord->base, dev);
		g->oom |= args.oom;
		ffu__body_printf(g->b, "%s%F%s", k ? ", " : "", cv->coord->base, "make", ffu__sb_cstr(&args));
		ffu__sb_free(&args);
	}
	ffu__body_printf(g->b, ");\n");
	ffu__kgen_set_form(g, vn, 'm');
	g->v[vn].z1 = f->form == FFU_POINT_AFFINE;
}

void ffu__kgen_point_load(kgen *g, int vn)
{
	const ffu_inst *in = inst_of(g, vn);
	const ffu_field *f = field_of(g, vn);
	const char *P = f->curve->name, *m = ffu__field_is_mont(f) ? "_m" : "";
	ffu__kgen_decl(g, vn, 'm');
	g->v[vn].z1 = f->form == FFU_POINT_AFFINE;
	if (f->form == FFU_POINT_AFFINE)
		ffu__body_printf(g->b, "%s_xyzz_from_aff(%s_aff_load%s(in%lld, %I));\n", P, P, m, (long long)in->index,
				 g->v[vn].ix);
	else
		ffu__body_printf(g->b, "%s_%s_load%s(in%lld, %I);\n", P, kind_name[f->form], m, (long long)in->index,
				 g->v[vn].ix);
	ffu__kgen_set_form(g, vn, 'm');
}

void ffu__kgen_point_store(kgen *g, const ffu_field *f, int o, int vn)
{
	vn = ffu__kgen_resolve(g, vn);
	ffu__kgen_need(g, vn, 'm');
	ffu__body_stmt(g->b, FFU_STMT_STORE, o, FFU_VF_M);
	ffu__body_printf(g->b, "\t%s_out_%s(out%d, %I, %L, %d);\n", f->curve->name, kind_name[f->form], o, IX_MAIN, 'm', vn,
			 ffu__field_is_mont(f) ? 1 : 0);
}

/* compare EQ/NE of two points: the same group element (cl/point.cl: xyzz_eq). */
static void emit_compare(kgen *g, int vn, int a, int b)
{
	const ffu_inst *in = inst_of(g, vn);
	ffu__kgen_need(g, a, 'm');
	ffu__kgen_need(g, b, 'm');
	ffu__kgen_decl(g, vn, 'c');
	ffu__body_printf(g->b, "(pred_t)%s%s_xyzz_eq(%L, %L);\n", in->direction == FFU_CMP_NE ? "!" : "",
			 field_of(g, a)->curve->name, 'm', a, 'm', b);
	ffu__kgen_set_form(g, vn, 'c');
}

bool ffu__kgen_emit_point(kgen *g, int vn)
{
	const ffu_inst *in = inst_of(g, vn);
	const ffu_field *f = field_of(g, vn);
	const int a = ffu__kgen_resolve(g, opval(g, vn, 0));
	const int b = ffu__kgen_resolve(g, opval_b(g, vn));
	if (in->op == FFU_OP_COMPARE && is_point(field_of(g, a))) {
		emit_compare(g, vn, a, b);
		return true;
	}
	if (!is_point(f))
		return false;
	const char *P = f->curve->name;
	if (in->op == FFU_OP_CONVERT) { /* one group element whatever its kind and form */
		g->v[vn].alias = a;
		return true;
	}
	if (in->op == FFU_OP_SELECT) {
		const int c = ffu__kgen_resolve(g, opval(g, vn, 2));
		ffu__kgen_need(g, a, 'c');
		ffu__kgen_need(g, b, 'm');
		ffu__kgen_need(g, c, 'm');
		ffu__kgen_decl(g, vn, 'm');
		ffu__body_printf(g->b, "%L ? %L : %L;\n", 'c', a, 'm', b, 'm', c);
		ffu__kgen_set_form(g, vn, 'm');
		g->v[vn].z1 = g->v[b].z1 && g->v[c].z1;
		return true;
	}
	/* multiply(scalar, point): the scalar's canonical value is what its bits are of */
	ffu__kgen_need(g, a, in->op == FFU_OP_MULTIPLY ? 'c' : 'm');
	ffu__kgen_need(g, b, 'm');
	ffu__kgen_decl(g, vn, 'm');
	/* an operand read from an affine type (z1) takes the mixed formula; a + b = b + a, and
	   a - b = -b + a */
	const bool za = in->op != FFU_OP_MULTIPLY && g->v[a].z1, zb = g->v[b].z1;
	switch (in->op) {
	case FFU_OP_ADD:
		ffu__body_printf(g->b, "%s_xyzz_add%s(%L, %L);\n", P, za || zb ? "_z1" : "", 'm', zb || !za ? a : b, 'm',
				 zb || !za ? b : a);
		break;
	case FFU_OP_SUBTRACT:
		if (!zb && za)
			ffu__body_printf(g->b, "%s_xyzz_add_z1(%s_xyzz_neg(%L), %L);\n", P, P, 'm', b, 'm', a);
		else
			ffu__body_printf(g->b, "%s_xyzz_add%s(%L, %s_xyzz_neg(%L));\n", P, zb ? "_z1" : "", 'm', a, P, 'm', b);
		break;
	case FFU_OP_NEGATE:
		ffu__body_printf(g->b, "%s_xyzz_neg(%L);\n", P, 'm', a);
		g->v[vn].z1 = g->v[a].z1;
		break;
	default: /* multiply: the verifier admits no other element-wise op on points */
		ffu__body_printf(g->b, "%s_xyzz_mul%s(%L, %L);\n", P, zb ? "_z1" : "", 'c', a, 'm', b);
		break;
	}
	ffu__kgen_set_form(g, vn, 'm');
	return true;
}
