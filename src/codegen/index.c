/* codegen/index.c: see index.h. */
#include "codegen/index.h"

void ffu__index_coord(ffu_strbuf *o, const char *var, const int64_t *dims, int rank, int d)
{
	int64_t st = 1;
	for (int k = d + 1; k < rank; k++)
		st *= dims[k];
	if (rank == 1)
		ffu__sb_printf(o, "%s", var);
	else if (d == 0)
		ffu__sb_printf(o, "(%s / %lluUL)", var, (unsigned long long)st);
	else if (st == 1)
		ffu__sb_printf(o, "(%s %% %lluUL)", var, (unsigned long long)dims[d]);
	else
		ffu__sb_printf(o, "((%s / %lluUL) %% %lluUL)", var, (unsigned long long)st, (unsigned long long)dims[d]);
}

bool ffu__index_dyn_start_ok(const ffu_inst *in)
{
	int first = in->op == FFU_OP_DYNAMIC_UPDATE_SLICE ? 2 : 1;
	for (int j = first; j < in->n_operands; j++) {
		const ffu_inst *i = in->operands[j];
		if (i->op != FFU_OP_PARAMETER && !(i->op == FFU_OP_CONSTANT && i->literal))
			return false;
	}
	return true;
}

void ffu__index_dyn_start(ffu_strbuf *o, const ffu_inst *in, int d)
{
	bool update = in->op == FFU_OP_DYNAMIC_UPDATE_SLICE;
	const ffu_inst *i = in->operands[(update ? 2 : 1) + d];
	const ffu_field *f = ffu__shape_field(&i->shape);
	const ffu_shape *w = update ? &in->operands[1]->shape : &in->shape;
	int64_t hi = in->operands[0]->shape.dims[d] - w->dims[d];
	if (hi == 0) { /* the window spans the dimension: the start is 0 whatever was asked */
		ffu__sb_append(o, "0UL");
	} else if (i->op == FFU_OP_CONSTANT) { /* clamped here */
		int64_t v = f->is_signed ? ffu__fp_get_i64(f, i->literal) : 0;
		uint64_t u = f->is_signed ? (uint64_t)(v < 0 ? 0 : v) : ffu__fp_get_u64(f, i->literal);
		ffu__sb_printf(o, "%lluUL", (unsigned long long)(u > (uint64_t)hi ? (uint64_t)hi : u));
	} else if (f->is_signed) { /* a kernel argument: <type>_load(in<N>, 0), cl/common.cl */
		ffu__sb_printf(o, "((ulong)clamp((long)%s_load(in%lld, 0), 0L, %lldL))", f->name, (long long)i->index,
			       (long long)hi);
	} else {
		ffu__sb_printf(o, "min((ulong)%s_load(in%lld, 0), %lluUL)", f->name, (long long)i->index,
			       (unsigned long long)hi);
	}
}

/*
 * reverse / bit-reverse: the operand's coordinate along dimension d (result and operand
 * have one shape): n - 1 - c where reversed, the low log2(n) bits of c in reverse order
 * where bit-reversed (ffu_bitrev, cl/common.cl; a size-1 dimension's only coordinate is 0).
 */
static void perm_coord(ffu_strbuf *e, const ffu_inst *in, int d, const char *var)
{
	const ffu_shape *s = &in->shape;
	bool listed = false;
	for (int k = 0; k < in->n_dims; k++)
		listed |= in->dims[k] == d;
	int bits = 0;
	while ((INT64_C(1) << bits) < s->dims[d])
		bits++;
	if (!listed || (in->op == FFU_OP_BIT_REVERSE && bits == 0)) {
		ffu__index_coord(e, var, s->dims, s->rank, d);
	} else if (in->op == FFU_OP_REVERSE) {
		ffu__sb_printf(e, "(%lluUL - ", (unsigned long long)(s->dims[d] - 1));
		ffu__index_coord(e, var, s->dims, s->rank, d);
		ffu__sb_append(e, ")");
	} else {
		ffu__sb_append(e, "ffu_bitrev(");
		ffu__index_coord(e, var, s->dims, s->rank, d);
		ffu__sb_printf(e, ", %du)", bits);
	}
}

void ffu__index_expr(ffu_strbuf *e, const ffu_inst *in, int j, const char *var)
{
	const ffu_shape *s = &in->shape, *t = &in->operands[j]->shape;
	ffu__sb_append(e, "(");
	for (int k = 0; k < t->rank; k++) {
		if (k)
			ffu__sb_append(e, " + ");
		int64_t ts = ffu__shape_stride(t, k);
		switch (in->op) {
		case FFU_OP_BROADCAST:
			ffu__index_coord(e, var, s->dims, s->rank, (int)in->dims[k]);
			break;
		case FFU_OP_REVERSE:
		case FFU_OP_BIT_REVERSE:
			perm_coord(e, in, k, var);
			break;
		case FFU_OP_SLICE:
			ffu__sb_printf(e, "(%lluUL + ", (unsigned long long)in->slice_start[k]);
			ffu__index_coord(e, var, s->dims, s->rank, k);
			ffu__sb_printf(e, " * %lluUL)", (unsigned long long)in->slice_stride[k]);
			break;
		case FFU_OP_DYNAMIC_SLICE: /* operand 0 at start + coordinate */
			ffu__sb_append(e, "(");
			ffu__index_dyn_start(e, in, k);
			ffu__sb_append(e, " + ");
			ffu__index_coord(e, var, s->dims, s->rank, k);
			ffu__sb_append(e, ")");
			break;
		case FFU_OP_DYNAMIC_UPDATE_SLICE: /* the update (j = 1) at coordinate - start, clamped
			into its range (wraps below 0: min picks its end); selected by the code
			generator only inside the window (kgen.c) */
			ffu__sb_append(e, "min(");
			ffu__index_coord(e, var, s->dims, s->rank, k);
			ffu__sb_append(e, " - ");
			ffu__index_dyn_start(e, in, k);
			ffu__sb_printf(e, ", %lluUL)", (unsigned long long)(t->dims[k] - 1));
			break;
		default: { /* concatenate: clamped into operand j's range, selected afterwards */
			int64_t off = 0;
			for (int q = 0; q < j; q++)
				off += in->operands[q]->shape.dims[in->dims[0]];
			if (k != in->dims[0]) {
				ffu__index_coord(e, var, s->dims, s->rank, k);
				break;
			}
			ffu__sb_append(e, "min(max(");
			ffu__index_coord(e, var, s->dims, s->rank, k);
			ffu__sb_printf(e, ", %lluUL) - %lluUL, %lluUL)", (unsigned long long)off,
				       (unsigned long long)off, (unsigned long long)(t->dims[k] - 1));
			break;
		}
		}
		if (ts != 1)
			ffu__sb_printf(e, " * %lluUL", (unsigned long long)ts);
	}
	ffu__sb_append(e, ")");
}
