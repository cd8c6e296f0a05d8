/*
 * device/profile.h: per-device code-generation and launch choices, so vendor differences
 * live here and not as `if (nvidia)` in the code generator. A first, small profile: the
 * device-capability layer (queries, tuning database) grows from it.
 */
#ifndef FFU_DEVICE_PROFILE_H
#define FFU_DEVICE_PROFILE_H

#include "runtime/cl.h"

typedef struct ffu_profile {
	int lanes; /* elements per work-item in wide kernels (codegen.h); 1 = none */
} ffu_profile;

void ffu__profile_for(ffu_profile *p, const ffu_device_info *dev);

#endif
