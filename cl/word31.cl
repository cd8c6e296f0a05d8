/*
 * cl/word31.cl: the representation every one-word field with p < 2^31 shares (BabyBear,
 * KoalaBear, Mersenne31): one uint per element, loads and stores, constants, and add, sub
 * and neg, which need no product. src/codegen/field_cl.c emits it before the field's own
 * template (cl/mont31.cl, cl/m31.cl), which adds the product and conversions. Same
 * instantiation macros as those templates (FP, FP_P); FP_t stays defined for them, and they
 * #undef it at their end.
 */

#define FP_t FFU_FN(t)

/*
 * FFU_W64 (field_cl.c; CPU devices, for the extensions over these fields): the same
 * values in 64-bit containers, every value below 2^32. The extensions' products are
 * 64-bit; held as uint, each product's operands are widened and each result narrowed
 * again in SIMD registers, a quarter of the instructions of babybearx4's product chain.
 * PoCL at 2^20, 8 chained products, fresh builds, alternating: babybearx4 7.4 -> 6.6 ms,
 * koalabearx4 7.0 -> 5.8 ms, mersenne31x2 2.14 -> 1.60 ms. Every operation here is exact
 * in either type: a wrapped a - p or a - b is at least 2^64 - p, above any value, so
 * min() picks as it does in 32 bits.
 */
#ifdef FFU_VW
/*
 * Vector instance (FFU_VW; field_cl.c, for the NTT's vector passes, codegen/fft_vec.c):
 * FP_t holds FFU_VW elements, and element i of the buffer is elements FFU_VW i ..
 * FFU_VW i + FFU_VW - 1 (load_at / store_at: from element e). add, sub and neg are the
 * same text; cl/mont31.cl has its own product for it.
 */
typedef FFU_CAT(uint, FFU_VW) FP_t;

FFU_INLINE FP_t FFU_FN(load)(__global const uint *buf, size_t i)
{
	return FFU_CAT(vload, FFU_VW)(i, buf);
}

FFU_INLINE void FFU_FN(store)(__global uint *buf, size_t i, FP_t v)
{
	FFU_CAT(vstore, FFU_VW)(v, i, buf);
}

FFU_INLINE FP_t FFU_FN(load_at)(__global const uint *buf, size_t e)
{
	return FFU_CAT(vload, FFU_VW)(0, buf + e);
}

FFU_INLINE void FFU_FN(store_at)(__global uint *buf, size_t e, FP_t v)
{
	FFU_CAT(vstore, FFU_VW)(v, 0, buf + e);
}

/*
 * The same store past the caches (a streaming store of whole lines, no read for
 * ownership): the NTT's vector passes over arrays far beyond the caches (device/target.h
 * fft_stream_bytes). e is a multiple of FFU_VW there, so the vector is one line, aligned
 * but in a caller's cl_mem on an unaligned host pointer (cl/common.cl FFU_STORE_NT).
 */
FFU_INLINE void FFU_FN(store_at_nt)(__global uint *buf, size_t e, FP_t v)
{
	FFU_STORE_NT(FP_t, buf + e, v);
}
#else
#ifdef FFU_W64
typedef ulong FP_t;
#else
typedef uint FP_t;
#endif

FFU_INLINE FP_t FFU_FN(load)(__global const uint *buf, size_t i)
{
	return buf[i];
}

FFU_INLINE void FFU_FN(store)(__global uint *buf, size_t i, FP_t v)
{
	buf[i] = v;
}
#endif

FFU_INLINE FP_t FFU_FN(make)(uint w0)
{
	return (FP_t)w0;
}

/*
 * a + b < 2p < 2^32. If s >= p, s - p < s; otherwise s - p wraps above s: min picks the
 * reduced value in one instruction.
 */
FFU_INLINE FP_t FFU_FN(add)(FP_t a, FP_t b)
{
	FP_t s = a + b;
	return min(s, s - FP_P);
}

/* a - b wraps when a < b; adding p then wraps back below it, and min picks that one. */
FFU_INLINE FP_t FFU_FN(sub)(FP_t a, FP_t b)
{
	FP_t d = a - b;
	return min(d, d + FP_P);
}

FFU_INLINE FP_t FFU_FN(neg)(FP_t a)
{
	FP_t d = (FP_t)0 - a;
	return min(d, d + FP_P);
}

/*
 * a < b on canonical values (every value this template holds is fully reduced, so its
 * integer is the canonical one): ordered compares, maximum, minimum and clamp (ir/order.c,
 * src/codegen/kgen.c). Added by the ordered-ops work, not the fields engineer.
 */
#ifndef FFU_VW /* scalar instances only: the vector one is for the NTT's passes */
FFU_INLINE int FFU_FN(lt)(FP_t a, FP_t b)
{
	return a < b;
}
#endif
