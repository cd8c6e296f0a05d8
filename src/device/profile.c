/* device/profile.c: see profile.h. */
#include "device/profile.h"

#include "util/config.h"

void ffu__profile_for(ffu_profile *p, const ffu_device_info *dev)
{
	/*
	 * CPU devices (PoCL, Rusticl on llvmpipe) run a work-group as a loop vectorised across
	 * work-items, then rely on out-of-order execution; a long chain of dependent products
	 * is then latency-bound unless several independent elements are interleaved: 4 lanes
	 * halve a 16-product BabyBear chain on PoCL (6.7 -> 3.4 ms at 2^20). GPUs hide latency
	 * with other warps and keep one element per work-item.
	 */
	p->lanes = dev->type & CL_DEVICE_TYPE_CPU ? 4 : 1;
	/* FIELDFUSE_LANES=N (1..16) overrides, for tuning and bisecting */
	if (ffu__config()->lanes)
		p->lanes = ffu__config()->lanes;
}
