/*
 * interp/dot.c: the reference `dot` (ir/dot.c says what it means), one result element at a
 * time: its coordinates name the batch and free coordinates of both operands, and the sum
 * runs over every contracted coordinate (an odometer over the contracting dimensions), or
 * for a CSR lhs over the stored entries of its row, each entry's column being the rhs's
 * contracted coordinate. Obvious rather than fast, like the rest of the interpreter.
 */
#include "interp/interp_impl.h"

#include <string.h>

static uint32_t get_u32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void ffu__interp_dot(const ffu_inst *in, const ffu_value *x, const ffu_value *y, ffu_value *o)
{
	const ffu_dot_attrs *a = &in->dot;
	const ffu_shape *xs = &x->shape, *ys = &y->shape;
	const ffu_field *f = ffu__shape_field(&in->shape);
	size_t eb = f->storage_bytes;
	ffu_dot_dims fd;
	ffu__dot_free_dims(in, &fd);
	int64_t n = ffu__shape_count(&in->shape), ksize = 1;
	for (int k = 0; k < a->n_contract; k++)
		ksize *= xs->dims[a->lhs_contract[k]];
	unsigned char prod[FFU_FIELD_MAX_BYTES];
	for (int64_t i = 0; i < n; i++) {
		int64_t rc[FFU_MAX_RANK], xc[FFU_MAX_RANK] = {0}, yc[FFU_MAX_RANK] = {0};
		ffu__shape_unravel(&in->shape, i, rc);
		int r = 0;
		for (int k = 0; k < a->n_batch; k++, r++)
			xc[a->lhs_batch[k]] = yc[a->rhs_batch[k]] = rc[r];
		for (int k = 0; k < fd.n_lfree; k++, r++)
			xc[fd.lfree[k]] = rc[r];
		for (int k = 0; k < fd.n_rfree; k++, r++)
			yc[fd.rfree[k]] = rc[r];
		unsigned char *acc = o->data + (size_t)i * eb;
		memset(acc, 0, eb); /* zero is all-zero storage in every form */
		if (xs->csr) {
			const unsigned char *vals = x->data + ffu__csr_values_offset(xs);
			const unsigned char *cols = x->data + ffu__csr_cols_offset(xs);
			uint32_t lo = get_u32(x->data + 4 * xc[0]), hi = get_u32(x->data + 4 * (xc[0] + 1));
			for (uint32_t e = lo; e < hi; e++) {
				yc[a->rhs_contract[0]] = get_u32(cols + 4 * (size_t)e);
				ffu__fp_mul(f, prod, vals + (size_t)e * eb, y->data + (size_t)ffu__shape_ravel(ys, yc) * eb);
				ffu__fp_add(f, acc, acc, prod);
			}
			continue;
		}
		for (int64_t k = 0; k < ksize; k++) {
			/* k's digits, the last contracting dimension fastest */
			int64_t rest = k;
			for (int c = a->n_contract - 1; c >= 0; c--) {
				int64_t size = xs->dims[a->lhs_contract[c]];
				xc[a->lhs_contract[c]] = yc[a->rhs_contract[c]] = rest % size;
				rest /= size;
			}
			ffu__fp_mul(f, prod, x->data + (size_t)ffu__shape_ravel(xs, xc) * eb,
				    y->data + (size_t)ffu__shape_ravel(ys, yc) * eb);
			ffu__fp_add(f, acc, acc, prod);
		}
	}
}
