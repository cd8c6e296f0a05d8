/*
 * src/ir/verify_impl.h: private to the module verifier (ir/verify.c, the framework, and
 * ir/verify_ops.c, the layout/index ops' and fft's rules, ir/verify_points.c, the ops on
 * points, ir/verify_collective.c, the collectives); no other file includes it.
 * The context lives in ffu__module_verify's frame; the rules only read it.
 */
#ifndef FFU_IR_VERIFY_IMPL_H
#define FFU_IR_VERIFY_IMPL_H

#include <stddef.h>

#include "ir/ir.h"

typedef struct vctx {
	const ffu_module *m;
	const char *file;
	ffu_error *e;
	ffu_comp_pos *pos; /* ffu__comp_pos_build (fusion checks) */
} vctx;

/* An error at the instruction's source position, naming it and its opcode. */
#define IERR(st, in, ...) ffu__verify_inst_err(v, st, in, __VA_ARGS__)

ffu_status ffu__verify_inst_err(const vctx *v, ffu_status st, const ffu_inst *in, const char *fmt, ...)
	FFU_PRINTF(4, 5);

static inline const char *fmt_shape(const ffu_shape *s, char *buf, size_t n)
{
	ffu__shape_format(s, buf, n);
	return buf;
}

static inline bool is_array(const ffu_shape *s)
{
	return s->type >= 0 && s->type < FFU_TYPE_TUPLE;
}

static inline ffu_elem_kind elem_kind(const ffu_shape *s)
{
	return ffu__shape_field(s)->kind;
}

/* Operand j must be an array; most ops check this first. */
ffu_status ffu__verify_need_array(const vctx *v, const ffu_inst *in, int j);

/* The rules of ir/verify_ops.c, one per op family (check_inst dispatches on the opcode). */
ffu_status ffu__verify_iota(const vctx *v, const ffu_inst *in);
ffu_status ffu__verify_broadcast(const vctx *v, const ffu_inst *in);
ffu_status ffu__verify_slice(const vctx *v, const ffu_inst *in);
ffu_status ffu__verify_concatenate(const vctx *v, const ffu_inst *in);
ffu_status ffu__verify_dynamic_slice(const vctx *v, const ffu_inst *in);
ffu_status ffu__verify_reshape(const vctx *v, const ffu_inst *in);
ffu_status ffu__verify_fft(const vctx *v, const ffu_inst *in);
/* ir/verify_points.c: the ops on points */
bool ffu__verify_touches_points(const ffu_inst *in);
ffu_status ffu__verify_points(const vctx *v, const ffu_inst *in);
ffu_status ffu__verify_msm(const vctx *v, const ffu_inst *in);
/* ir/verify.c: to_apply of in (reduce, all-reduce, reduce-scatter) over type t */
ffu_status ffu__verify_combiner(const vctx *v, const ffu_computation *c, const ffu_inst *in, ffu_type t);
/* ir/verify_collective.c: the collectives, replica-id and partition-id */
ffu_status ffu__verify_collective(const vctx *v, const ffu_computation *c, const ffu_inst *in);

#endif
