/*
 * device/profile.c: the built-in profile table and the lookup (see profile.h). Every row's
 * reason is in docs/tuning.md; the short ones are here.
 */
#include "device/profile.h"
#include "util/text.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "util/config.h"

#define ANY FFU_VENDOR_COUNT
#define CPU CL_DEVICE_TYPE_CPU
#define GPU CL_DEVICE_TYPE_GPU

const ffu_profile_row ffu__profile_rows[] = {
	/*
	 * 256 work-items: a multiple of every warp and wavefront width (32, 64) and of PoCL's
	 * and Rusticl's preferred multiples (8, 32); saturates GPUs for memory-bound kernels;
	 * on PoCL 64..256 is the plateau and 1024 is slower (NOTES.md). 32-bit limbs: no target
	 * has a native 64x64->128 multiply that OpenCL C exposes cheaply (see docs/tuning.md).
	 */
	{ANY, 0, NULL, NULL, {.wg = 256, .lanes = 1, .vector_width = 1, .limb_bits = 32}, "default", false},
	/* CPUs: a chain of dependent products is latency-bound; 4 interleaved elements halve it */
	{ANY, CPU, NULL, NULL, {.lanes = 4}, "cpu", false},
	/* GPUs: 128-bit loads of 256-bit values coalesce; CPUs' vectorisers stop at vector types */
	{ANY, GPU, NULL, NULL, {.vector_width = 4}, "gpu", false},

	/*
	 * PoCL compiles a kernel once per local size (seconds for a 256-bit kernel): a small
	 * launch as groups of one reuses the size-1 build every launch's tail has, where a
	 * power of two below 256 cost one more build per size (docs/tuning.md)
	 */
	{FFU_VENDOR_POCL, CPU, NULL, NULL, {.wg = 256, .vector_width = 1}, "pocl cpu", true},
	{FFU_VENDOR_RUSTICL, CPU, NULL, NULL, {.wg = 256, .vector_width = 1}, "rusticl llvmpipe", false},

	{FFU_VENDOR_NVIDIA, GPU, NULL, NULL, {.wg = 256, .vector_width = 4, .limb_bits = 32}, "nvidia", false},
	/* Hopper: 2048 threads and 32 blocks per SM; 256 leaves room for 8 groups */
	{FFU_VENDOR_NVIDIA, GPU, "sm_90", NULL, {.wg = 256}, "hopper sm_90", false},
	/* Blackwell data centre (B200): as Hopper, 2048 threads per SM */
	{FFU_VENDOR_NVIDIA, GPU, "sm_10", NULL, {.wg = 256}, "blackwell sm_100", false},
	/* Blackwell consumer (RTX 50xx): 1536 threads per SM; 1024 would leave a third idle */
	{FFU_VENDOR_NVIDIA, GPU, "sm_12", NULL, {.wg = 256}, "blackwell sm_120", false},

	{FFU_VENDOR_AMD, GPU, NULL, NULL, {.wg = 256, .vector_width = 4, .limb_bits = 32}, "amd", false},
	/* GCN and CDNA (gfx9: MI100..MI300X): wave64, 256 = 4 waves, ROCm's default maximum */
	{FFU_VENDOR_AMD, GPU, "gfx9", NULL, {.wg = 256}, "cdna wave64", false},
	/* RDNA (gfx10..gfx12): wave32, 256 = 8 waves over a WGP's two CUs */
	{FFU_VENDOR_AMD, GPU, "gfx1", NULL, {.wg = 256}, "rdna wave32", false},

	/* Intel Xe: no 64-bit integer multiplier on Xe-LP/HPG, so 32-bit limbs */
	{FFU_VENDOR_INTEL, GPU, NULL, NULL, {.wg = 256, .vector_width = 4, .limb_bits = 32}, "intel", false},
	{FFU_VENDOR_APPLE, GPU, NULL, NULL, {.wg = 256, .vector_width = 4, .limb_bits = 32}, "apple", false},
};
const size_t ffu__profile_n_rows = sizeof ffu__profile_rows / sizeof ffu__profile_rows[0];

static bool row_matches(const ffu_profile_row *r, const ffu_device_info *d)
{
	return (r->vendor == ANY || r->vendor == d->vendor_class) && (!r->type || (r->type & d->type)) &&
	       (!r->arch || strncmp(d->arch, r->arch, strlen(r->arch)) == 0) && (!r->name || ffu__str_icontains(d->name, r->name));
}

/* Specificity: the deepest level the row names (vendor < type < arch < name), vendor rows after generic ones. */
static int row_level(const ffu_profile_row *r)
{
	int level = r->name ? 4 : r->arch ? 3 : r->type ? 2 : r->vendor != ANY ? 1 : 0;
	return level * 2 + (r->vendor != ANY);
}

static void overlay(ffu_profile *p, const ffu_params *q)
{
	if (q->wg)
		p->wg = q->wg;
	if (q->lanes)
		p->lanes = q->lanes;
	if (q->vector_width)
		p->vector_width = q->vector_width;
	if (q->limb_bits)
		p->limb_bits = q->limb_bits;
}

static void note(ffu_profile *p, const char *fmt, const char *arg)
{
	size_t n = strlen(p->source);
	if (n < sizeof p->source)
		snprintf(p->source + n, sizeof p->source - n, fmt, arg);
}

void ffu__profile_builtin(ffu_profile *p, const ffu_device_info *dev)
{
	memset(p, 0, sizeof *p);
	strcpy(p->source, "table:");
	for (int level = 0; level <= 9; level++) {
		for (size_t i = 0; i < ffu__profile_n_rows; i++) {
			const ffu_profile_row *r = &ffu__profile_rows[i];
			if (row_level(r) != level || !row_matches(r, dev))
				continue;
			overlay(p, &r->p);
			p->small_in_ones |= r->small_in_ones;
			note(p, level ? " > %s" : " %s", r->label);
		}
	}
}

void ffu__profile_for(ffu_profile *p, const ffu_device_info *dev)
{
	ffu__profile_builtin(p, dev);
	if (dev->tuned.wg || dev->tuned.lanes || dev->tuned.vector_width || dev->tuned.limb_bits) {
		overlay(p, &dev->tuned);
		p->wg_tuned |= dev->tuned.wg != 0;
		note(p, "; %s", "tuned");
	}
	/* FIELDFUSE_LANES=N (1..16) overrides, for tuning and bisecting */
	if (ffu__config()->lanes) {
		p->lanes = ffu__config()->lanes;
		note(p, "; %s", "FIELDFUSE_LANES");
	}
	/* FIELDFUSE_NO_PTX: the portable 256-bit code on NVIDIA too, to compare with the chains */
	if (ffu__config()->no_ptx) {
		p->no_ptx = true;
		note(p, "; %s", "FIELDFUSE_NO_PTX");
	}
	if (dev->override.wg || dev->override.lanes || dev->override.vector_width || dev->override.limb_bits) {
		overlay(p, &dev->override);
		p->wg_tuned |= dev->override.wg != 0;
		note(p, "; %s", "override");
	}
}

const char *ffu__profile_carries(const ffu_profile *p, const ffu_device_info *dev)
{
	if (p->limb_bits == 64)
		return "none";
	return dev->vendor_class == FFU_VENDOR_NVIDIA && !p->no_ptx ? "ptx" : "portable";
}

void ffu__profile_build_options(const ffu_profile *p, char *buf, size_t cap)
{
	const char *defs[] = {p->limb_bits == 64 ? "-DFFU_MONT256_LIMB64" : NULL,
			      p->vector_width >= 4 ? "-DFFU_VECTOR_LOADS" : NULL, p->no_ptx ? "-DFFU_NO_PTX" : NULL};
	size_t n = 0;
	if (cap)
		buf[0] = '\0';
	for (size_t i = 0; i < sizeof defs / sizeof defs[0]; i++)
		if (defs[i] && n < cap)
			n += (size_t)snprintf(buf + n, cap - n, "%s%s", n ? " " : "", defs[i]);
}
