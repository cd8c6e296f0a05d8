/* ir/ops.c: the op table, instantiated from ops.def. */
#include <string.h>

#include "ir/ir.h"

/* Rows whose field_fn is `none` get a NULL host function. */
#define ffu__fp_none NULL

const ffu_op_info ffu__ops[FFU_OP_COUNT] = {
#define FFU_OP(ID, kw, ar, kind, fn, cost, form)                                          \
	[FFU_OP_##ID] = {kw, ar, FFU_KIND_##kind, FFU_COST_##cost, FFU_FORM_##form, #fn,   \
			 ffu__fp_##fn},
#include "ir/ops.def"
#undef FFU_OP
};

const char *const ffu__fusion_kind_names[FFU_FUSION_KIND_COUNT] = {
	[FFU_FUSION_LOOP] = "kLoop", [FFU_FUSION_INPUT] = "kInput", [FFU_FUSION_FFT] = "kFft",
	[FFU_FUSION_DOT] = "kDot",   [FFU_FUSION_MSM] = "kMsm",
};

int ffu__op_by_keyword(const char *kw, size_t len)
{
	for (int i = 0; i < FFU_OP_COUNT; i++)
		if (strlen(ffu__ops[i].keyword) == len && memcmp(ffu__ops[i].keyword, kw, len) == 0)
			return i;
	return -1;
}
