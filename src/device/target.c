/* device/target.c: resolving a context's target (see target.h). */
#include "device/target.h"

#include "util/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/caps.h"
#include "device/launch.h"
#include "device/profile.h"

enum { MSM_AFFINE_CPU = 1024 }; /* buckets per work-item of the msm's batch-affine step on CPUs */

void ffu__target_set_class(ffu_target *t, ffu_device_class cls)
{
	t->cls = cls;
	/*
	 * CPUs: a serial fold, since each of a tree's log2(wg) barriers costs PoCL a pass over
	 * the work-group (sumcheck at 2^22: 1.7 ms serial, 8.7 ms tree); 64-bit containers,
	 * since SIMD lanes are 64 bits wide either way (cl/word31.cl has the measurement). GPUs
	 * run a tree's steps in parallel, and a 64-bit integer is two 32-bit registers there.
	 */
	t->fold = t->cls == FFU_DEVICE_CLASS_CPU ? FFU_FOLD_SERIAL : FFU_FOLD_TREE;
	t->ext_w64 = t->cls == FFU_DEVICE_CLASS_CPU;
	/*
	 * The NTT (codegen/fft.c): each pass over memory is one radix-2^r step per work-item
	 * in registers, so a larger radix means fewer passes but more registers and code per
	 * work-item. CPUs (PoCL vectorises across work-items; registers spill to L1 cheaply):
	 * radix 32 for 31-bit fields (a 2^20 transform in 4 passes), 16 for Goldilocks, 8 for
	 * 256-bit fields and extensions (whose straight-line products also cost build time).
	 * GPUs: radix 16 / 8 / 4, to keep a work-item's values in registers.
	 */
	static const int cpu[3] = {5, 4, 3}, gpu[3] = {4, 3, 2};
	/* CPUs: one vector of work-items per group (16 lanes of 32 bits in AVX-512); GPUs: two warps */
	t->fft_wg = t->cls == FFU_DEVICE_CLASS_CPU ? 16 : 64;
	/*
	 * CPUs, 31-bit fields beyond 1 MiB (past the L2): radix 16. Radix 32's passes at large p
	 * cost more than the extra pass saves: ntt_babybear on PoCL, quiet, radix 32 / 16:
	 * 2^18 0.71 / 0.91 ms, 2^19 1.52 / 1.54, 2^20 4.99 / 2.63, 2^21 8.7 / 6.9, 2^22 16.2 / 15.6.
	 */
	static const int cpu_big[3] = {4, 4, 3};
	t->fft_big_bytes = t->cls == FFU_DEVICE_CLASS_CPU ? (size_t)1 << 20 : 0;
	/*
	 * CPUs, batches beyond 32 MiB (a whole L3 of the AMD EPYC measured; the next pass finds
	 * nothing of them in cache anyway): the vector passes store past the caches. Their
	 * stores at kk + tp are whole lines, but R streams of them at a power-of-two stride
	 * land in one cache set; streamed, the lines are neither read for ownership nor evict
	 * what the loads prefetched. PoCL 3.1, 2-core AMD EPYC, alternating: lde_babybear 2^20
	 * fused 74.3-82.7 -> 63.6-67.0 ms (the radix-16 pass at p = 8192 10.4 -> 6.6 ms),
	 * ntt_babybear 2^24 32.6-35.3 -> 27.0-28.9; 2^22 (16 MiB) and 2^20 equal within noise.
	 * GPUs take no vector passes.
	 */
	t->fft_stream_bytes = t->cls == FFU_DEVICE_CLASS_CPU ? (size_t)32 << 20 : 0;
	/*
	 * CPUs: the scalar passes' addresses must be uniform + local id for PoCL's work-group
	 * vectoriser (LLVM's loop vectoriser) to load and store whole vectors. Two cases are not:
	 * - the first pass (p = 1), whose work-item stores R consecutive elements: LLVM packs
	 *   such strided stores of all lanes into shuffles and vector stores only for groups of
	 *   at most 8 (its interleave-group limit), and scatters above. So radix 8 first: 16
	 *   BabyBear rows of 2^20, that pass 12.5 ms at radix 16 against about 5 at radix 8;
	 * - a pass with 1 < p < wg (after such a first pass), whose lanes straddle sub-transform
	 *   blocks (kk = i mod p): gathered twiddles and scattered stores. In work-groups of p
	 *   they are uniform + local id again: the second pass of 16 BabyBear rows of 2^21,
	 *   p = 8, 19.8 against 12.0 ms (docs/tuning.md has the whole transforms).
	 * GPUs: no limit (their passes run one lane a work-item, not vectorised by a compiler).
	 */
	static const int cpu_first[3] = {3, 3, 3};
	t->fft_wg_p = t->cls == FFU_DEVICE_CLASS_CPU;
	for (int i = 0; i < 3; i++) {
		int forced = ffu__config()->fft_log_radix;
		t->fft_log_radix[i] = forced ? forced : t->cls == FFU_DEVICE_CLASS_CPU ? cpu[i] : gpu[i];
		t->fft_log_radix_big[i] = forced ? forced : t->cls == FFU_DEVICE_CLASS_CPU ? cpu_big[i] : gpu[i];
		t->fft_log_radix_first[i] = forced || t->cls != FFU_DEVICE_CLASS_CPU ? 0 : cpu_first[i];
	}
	/*
	 * Tile passes (codegen/fft_tile.c): two stages per pass through local memory, so a
	 * transform reads and writes the array fewer times. GPUs: 16 columns of 4 work-items
	 * each (64, two warps), tiles up to 2^8 / 2^6 / 2^4 by storage class (two of their
	 * one-stage radices) in 32 KiB, within the 48 KiB a work-group may take on any of them:
	 * not yet measured on a GPU. CPUs: none. PoCL runs a tile pass (one work-item per
	 * column, both stages unrolled, vectorised across columns) slower than the one-stage
	 * passes it replaces: ntt_babybear 2^16 0.48 against 0.34 ms, 2^20 65 against 6.3 ms
	 * (2^10 tiles; docs/tuning.md). FIELDFUSE_FFT_TILE=b sets b for every class, 0 none.
	 */
	static const int gpu_tile[3] = {8, 6, 4};
	int tile = ffu__config()->fft_log_tile;
	for (int i = 0; i < 3; i++)
		t->fft_log_tile[i] = tile >= 0 ? tile : t->cls == FFU_DEVICE_CLASS_CPU ? 0 : gpu_tile[i];
	t->fft_tile_bytes = t->cls == FFU_DEVICE_CLASS_CPU ? (size_t)128 << 10 : (size_t)32 << 10;
	t->fft_tile_w = 16;
	t->fft_tile_sub = t->cls == FFU_DEVICE_CLASS_CPU ? 1 : 4;
	/* vector passes (codegen/fft_vec.c): where derive() finds the device wants them, or forced */
	for (int i = 0; i < 3; i++)
		t->fft_vector[i] = t->fft_vector_ends[i] = ffu__config()->fft_vector > 0;
	/*
	 * Long dots with few results (passes/dot_reduce.c) as reductions, split over
	 * work-groups: a GPU below about 4096 result elements has lanes idle with one work-item
	 * each. A CPU only below 4 (one work-item a core, or fewer): past that, the dot's own
	 * loop won: PoCL, 2 cores, reduce / dot: a 2^20 BabyBear vector product 1.17 / 2.09
	 * ms, Goldilocks 8 x 2048 . 2048 x 4 0.56 / 0.21, BN254 16 x 16384 . v 26 / 8.3 (the
	 * dot's loop takes 64-bit limbs, docs/architecture.md "dot").
	 */
	t->dot_reduce_results = t->cls == FFU_DEVICE_CLASS_CPU ? 4 : 4096;
	/*
	 * msm (codegen/msm.c): work-items its bucket reduction is split into, all windows
	 * together. A CPU needs a few per core and SIMD lane (each runs hundreds of point
	 * additions in a loop); a GPU needs thousands in flight.
	 */
	t->msm_reduce_items = t->cls == FFU_DEVICE_CLASS_CPU ? 256 : 16384;
	/*
	 * Its bucket step on CPUs: batch-affine additions, MSM_AFFINE_CPU buckets per work-item
	 * sharing each round's inversion (docs/tuning.md has the measurements). GPUs keep one
	 * work-item per bucket in xyzz: chunks of buckets would leave all but TB / k of their
	 * thousands of lanes idle, and a batch across work-items needs local memory this step
	 * does not use yet.
	 */
	int forced = ffu__config()->msm_affine;
	t->msm_affine_buckets = forced >= 0 ? forced : t->cls == FFU_DEVICE_CLASS_CPU ? MSM_AFFINE_CPU : 0;
	/*
	 * Its steps with a few long work-items (the batch-affine buckets, the running sums, the
	 * scans): on a CPU one work-item a work-group, so that every core gets some. With the
	 * work-group size left to PoCL, 272 such items (BN254 G1, 2^18 points, 15-bit windows)
	 * ran at one core's speed: the bucket step 2190 ms against 1048 ms in groups of one
	 * on 2 cores (the whole msm 2450 against 1500 ms). A GPU keeps the driver's choice.
	 */
	t->msm_loop_wg = t->cls == FFU_DEVICE_CLASS_CPU ? 1 : 0;
}

/* Everything but the profile, which the caller has filled. */
static void derive(ffu_target *t, const ffu_device_info *dev)
{
	ffu__target_set_class(t, (dev->type & CL_DEVICE_TYPE_CPU) ? FFU_DEVICE_CLASS_CPU : FFU_DEVICE_CLASS_GPU);
	t->carries = ffu__profile_carries(&t->profile, dev);
	if (dev->local_mem && t->fft_tile_bytes > dev->local_mem / 2) /* half: the driver's own use */
		t->fft_tile_bytes = (size_t)(dev->local_mem / 2);
	/*
	 * PoCL on a CPU with 8 ulong lanes (AVX-512): LLVM's SLP vectoriser packs the 64-bit
	 * products of a Goldilocks pass (its cost model prices vector 64-bit multiplies cheaply
	 * there), and PoCL's work-group vectoriser then refuses the vector-typed body
	 * ("instruction return type cannot be vectorized"): every scalar pass runs one column
	 * at a time, at any radix. So the passes compute in the prime's vector instance, 8
	 * columns a work-item (codegen/fft_vec.c has the measurements). With AVX2 (4 lanes) the
	 * scalar passes vectorise (docs/tuning.md). llvmpipe (Rusticl) vectorises the scalar
	 * passes across work-items itself and ran the vector passes slower: ntt_goldilocks on
	 * the same host, host-timed, 2^16 / 2^18: 11.9 / 22.4 ms against 3.0 / 7.8 scalar.
	 */
	const bool pocl_cpu = dev->vendor_class == FFU_VENDOR_POCL && (dev->type & CL_DEVICE_TYPE_CPU) &&
			      ffu__config()->fft_vector < 0;
	if (pocl_cpu && dev->native_vector_long >= 8)
		t->fft_vector[1] = t->fft_vector_ends[1] = true;
	/*
	 * The 31-bit fields' passes do vectorise across work-items there, but each product is
	 * widened to 64-bit lanes, its q computed by a 64-bit vpmullq and narrowed back; the
	 * vector instance (uint16, cl/mont31.cl) multiplies in even/odd lane pairs, a third
	 * fewer instructions per element. Interior passes only (and a last pass without
	 * consumers, which stores whole vectors: codegen/fft_vec.c): the vector first pass,
	 * which transposes its stores, and last pass, which hands each lane to the consumers,
	 * ran slower than the scalar ones. lde_babybear 2^20 on PoCL 3.1, 2-core AMD EPYC
	 * (AVX-512), alternating: fused 77.0-78.0 ms scalar against 69.6-70.7 with vector
	 * interior passes, 84.1-84.4 with every pass in vectors; in the host's slower-memory
	 * state (its copy 8-9.5 ms instead of 4.7-5.0) equal within noise, 84.4-86.8 against
	 * 80.7-92.2.
	 */
	if (pocl_cpu && dev->native_vector_int >= 16)
		t->fft_vector[0] = true;

	/*
	 * llvmpipe (Mesa's CPU driver, under Rusticl) counts the iterations of an outermost loop
	 * and of every loop nested in it, calls inlined, and silently leaves the loop after
	 * 65535 of them (gallivm's loop limiter): found as wrong values, not errors (cl/montn.cl,
	 * codegen/wide.c). Kernels whose loops the data lengthens keep within it (codegen/msm.c).
	 */
	if (dev->vendor_class == FFU_VENDOR_RUSTICL && (dev->type & CL_DEVICE_TYPE_CPU)) {
		t->loop_limit = 65535;
		if (ffu__config()->msm_affine < 0)
			t->msm_affine_buckets = 0; /* its rounds' loops nest: no bound */
	}
	/*
	 * Mesa's NIR (Rusticl, any Mesa driver) inlines every call into the kernel, and its
	 * build time grows faster than the code: a BN254 G1 chain of 8 / 16 / 64 / 128
	 * products built in 0.6 / 1.1 / 11 / 60 s on llvmpipe, and a BN254 G2 msm program with
	 * a point addition in each of its steps never finished (stopped after 20 minutes). So
	 * there the msm's additions run in one kernel with one call site (codegen/msm_one_add.c).
	 */
	t->msm_one_add = dev->vendor_class == FFU_VENDOR_RUSTICL;
	if (ffu__config()->msm_one_add >= 0)
		t->msm_one_add = ffu__config()->msm_one_add > 0;
	ffu__profile_build_options(&t->profile, t->build_options, sizeof t->build_options);
}

void ffu__target_resolve(ffu_target *t, const ffu_device_info *dev)
{
	memset(t, 0, sizeof *t);
	ffu__profile_for(&t->profile, dev);
	derive(t, dev);
	/* read here, once per context (and per ffu__cl_retarget), not at every launch */
	ffu_error e = {0};
	if (ffu__launch_parse_wg(getenv("FIELDFUSE_WG_SIZE"), &t->wg_env, &e) != FFU_STATUS_OK)
		memcpy(t->wg_env_error, e.message, strnlen(e.message, sizeof t->wg_env_error - 1));
	ffu_error_clear(&e);
}

void ffu__target_generic(ffu_target *t, ffu_device_class cls, int lanes)
{
	ffu_device_info dev;
	memset(&dev, 0, sizeof dev);
	memset(t, 0, sizeof *t);
	dev.type = cls == FFU_DEVICE_CLASS_CPU ? CL_DEVICE_TYPE_CPU : CL_DEVICE_TYPE_GPU;
	ffu__profile_builtin(&t->profile, &dev);
	t->profile.lanes = lanes;
	derive(t, &dev);
}

ffu_status ffu__target_from_json(ffu_target *t, ffu_device_info *dev, const char *text, size_t len, const char *file,
				 ffu_error *e)
{
	ffu_device_info d;
	ffu_status st = ffu__caps_from_json(&d, NULL, text, len, file, e);
	if (st)
		return st;
	ffu__target_resolve(t, &d);
	if (dev)
		*dev = d;
	return FFU_STATUS_OK;
}

const char *ffu__device_class_str(ffu_device_class c)
{
	return c == FFU_DEVICE_CLASS_CPU ? "cpu" : "gpu";
}
