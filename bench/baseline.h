/*
 * bench/baseline.h: what the hand-written C baselines (bench/baseline*.c) share and nothing
 * else needs: the chunked OpenMP driver, per-ISA clones of loop bodies, the extension
 * fields' block layout, and the workloads each file defines. Owned by the bench harness;
 * bench.c sees only ffu__bench_has_baseline / ffu__bench_baseline (bench.h).
 */
#ifndef FFU_BENCH_BASELINE_H
#define FFU_BENCH_BASELINE_H

#include <stdbool.h>
#include <stdint.h>

#include "bench/bench.h"

/* Inside the baselines (baseline*.c): one workload over elements [lo, hi). The chunks of
 * 0..n go to the OpenMP threads through ffu__bench_over_threads, which returns the ms. */
typedef void ffu__bench_chunk_fn(const ffu_bench_array *in, ffu_bench_array *out, int64_t lo, int64_t hi);
double ffu__bench_over_threads(ffu__bench_chunk_fn *fn, const ffu_bench_array *in, ffu_bench_array *out, int64_t n);
/* A workload whose elements are not independent (an NTT): runs its own OpenMP parallel
 * region over the whole input and returns the ms from the moment all threads run, as
 * ffu__bench_over_threads; -1 when out of memory. */
typedef double ffu__bench_whole_fn(const ffu_bench_array *in, ffu_bench_array *out);
/* A loop body compiled for x86-64-v4 (AVX-512), v3 (AVX2) and the baseline ISA, the best
 * one the CPU has picked at load time (an ifunc), as PoCL compiles for the host CPU.
 * -DFFU_BASE_NO_CLONES builds one body for the compiler's target (to test the others). */
#if defined(__x86_64__) && defined(__linux__) && defined(__has_attribute) && !defined(FFU_BASE_NO_CLONES)
#if __has_attribute(target_clones)
#define FFU_BASE_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
/* A body only for x86-64-v4, called when ffu__bench_has_avx512() */
#define FFU_BASE_AVX512 __attribute__((target("arch=x86-64-v4")))
static inline bool ffu__bench_has_avx512(void)
{
	return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
	       __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw") &&
	       __builtin_cpu_supports("avx512cd");
}
#endif
#endif
#ifndef FFU_BASE_CLONES
#define FFU_BASE_CLONES
#endif
/* Arithmetic inlined into each clone: a helper left out of line is compiled for the
 * baseline ISA only (seen: the 256-bit product without mulx in every clone). */
#if defined(__GNUC__)
#define FFU_BASE_INLINE static inline __attribute__((always_inline))
#else
#define FFU_BASE_INLINE static inline
#endif
/* GCC expands a product by a constant into shifts and adds, which in vectors costs more than
 * the multiply it replaces (8 BabyBear products at 2^20 on AVX-512, 2 cores: 1.85 ms with
 * constants, 1.40 ms with opaque ones). FFU_BASE_OPAQUE(v) hides v's value from the optimiser. */
#if defined(__GNUC__)
#define FFU_BASE_OPAQUE(v) __asm__("" : "+r"(v))
#else
#define FFU_BASE_OPAQUE(v) ((void)0)
#endif
/*
 * Extension elements are stored coefficient after coefficient (an array of structures), a
 * layout in which GCC does not vectorise the products. So the extension baselines work
 * through blocks of FFU_EXT_BLOCK elements: copied into one array per coefficient, computed
 * by a loop over the block that vectorises, copied back; the copies cost little next to the
 * products. (GCC 12 left the element-by-element loop scalar: "not profitable".)
 * FFU_EXT_SPLIT copies the n elements (d coefficients each) from element i0 of src into
 * s[d][FFU_EXT_BLOCK]; FFU_EXT_JOIN copies them back to dst.
 */
#define FFU_EXT_BLOCK 64
#define FFU_EXT_SPLIT(s, src, d, i0, n)                                                                   \
	for (int l_ = 0; l_ < (n); l_++)                                                                  \
		for (int k_ = 0; k_ < (d); k_++)                                                          \
			(s)[k_][l_] = (src)[(d) * ((i0) + l_) + k_]
#define FFU_EXT_JOIN(dst, s, d, i0, n)                                                                    \
	for (int l_ = 0; l_ < (n); l_++)                                                                  \
		for (int k_ = 0; k_ < (d); k_++)                                                          \
			(dst)[(d) * ((i0) + l_) + k_] = (s)[k_][l_]
/* baseline_64.c: Goldilocks and its quadratic extension */
ffu__bench_chunk_fn ffu__bench_fieldops_goldilocks, ffu__bench_fieldops_goldilocksx2;
/* baseline_256.c: the 256-bit workloads (4 x 64-bit limbs, CIOS Montgomery) */
ffu__bench_chunk_fn ffu__bench_seed_bn254, ffu__bench_fieldops_bn254_sf, ffu__bench_fieldops_bls12_381_sf,
	ffu__bench_quotient_bn254;
/* The NTTs of the other fields (bench/baseline_ntt.h instantiated in baseline_64.c and
 * baseline_256.c); BabyBear's stay in baseline.c */
ffu__bench_whole_fn ffu__bench_ntt_goldilocks, ffu__bench_lde_goldilocks, ffu__bench_ntt_bn254_sf,
	ffu__bench_ntt_bls12_381_sf;
/* baseline_msm.c: Pippenger over each curve of its table (msm_bn254_g1, msm_bn254_g2,
   msm_bls12_381_g1, msm_bls12_381_g2): is workload one of them? */
bool ffu__bench_msm_has(const char *workload);
/* The msm workload's baseline with windows of c bits (0: chosen from n and the curve's
 * bucket size by ffu__bench_msm_window; every width gives the same point; tests pass
 * others); -1 for a workload without one or out of memory */
double ffu__bench_msm(const char *workload, const ffu_bench_array *in, ffu_bench_array *out, int c);
int ffu__bench_msm_window(int64_t n, size_t bucket_bytes);

#endif
