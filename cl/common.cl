/*
 * cl/common.cl: OpenCL C helpers shared by every generated program, emitted once at the top
 * of each program (src/codegen/field_cl.c: ffu__cl_emit_common) before any field template.
 * Owned by the fields engineer. Portable OpenCL C 1.2: no inline asm, no extensions.
 */

/* Token pasting through one level of expansion, so FFU_CAT(FP, _add) sees FP's value. */
#define FFU_CAT_(a, b) a##b
#define FFU_CAT(a, b) FFU_CAT_(a, b)
/* Name of a per-field function or type: with FP defined as babybear, FFU_FN(add) is babybear_add. */
#define FFU_FN(name) FFU_CAT(FFU_CAT(FP, _), name)
/* An extension template's (cl/ext2.cl, cl/ext4.cl) name of its prime field's function. */
#define FFU_BFN(name) FFU_CAT(FFU_CAT(FB, _), name)

/*
 * Field helpers are called in every element of every kernel and must be inlined: a call
 * left in the work-item loop stops PoCL's (LLVM's) loop vectorizer from running
 * work-items in SIMD lanes. `static inline` alone is a hint the inliner drops once a
 * 256-bit product has two call sites: measured on PoCL, x*x - x over BN254 at 2^20 took
 * 49 ms with two mul call sites and 9.3 ms with always_inline. `static` keeps C99 inline
 * semantics from leaving an undefined external symbol.
 */
#define FFU_INLINE static inline __attribute__((always_inline))

/*
 * The vector v of type T (FFU_VW lanes) stored at p past the caches (a streaming store of a
 * whole line, no read for ownership) where p is aligned to it, else a plain vector store:
 * a caller's cl_mem made on an unaligned host pointer (ffu_buffer_wrap_cl) would make the
 * aligned streaming store fault. Uniform across work-items, so the branch costs nothing
 * measurable. The vector templates' store_at_nt (cl/word31.cl, cl/goldilocks.cl).
 */
#define FFU_STORE_NT(T, p, v) \
	do { \
		if (((size_t)(p) & (sizeof(T) - 1)) == 0) \
			__builtin_nontemporal_store((v), (__global T *)(p)); \
		else \
			FFU_CAT(vstore, FFU_VW)((v), 0, (p)); \
	} while (0)

/*
 * Integer element types (u32: exponents and convert sources; u64 likewise). Buffers are
 * word arrays; a u64 element is two words, read as one ulong (buffers are ulong-aligned).
 */
typedef uint u32_t;
typedef ulong u64_t;

FFU_INLINE u32_t u32_load(__global const uint *buf, size_t i)
{
	return buf[i];
}

FFU_INLINE void u32_store(__global uint *buf, size_t i, u32_t v)
{
	buf[i] = v;
}

FFU_INLINE u64_t u64_load(__global const uint *buf, size_t i)
{
	return ((__global const ulong *)buf)[i];
}

FFU_INLINE void u64_store(__global uint *buf, size_t i, u64_t v)
{
	((__global ulong *)buf)[i] = v;
}

/*
 * The other integer types (fields/fields.def FFU_INT rows: start indices, exponents,
 * convert): each element its natural width, little-endian, two's complement for the
 * signed ones, as ZKX (XLA) stores them; a kernel holds one in the OpenCL type of that
 * width and signedness.
 */
#define FFU_INT_TYPE(NAME, T)                                           \
	typedef T NAME##_t;                                             \
	FFU_INLINE NAME##_t NAME##_load(__global const uint *buf, size_t i) \
	{                                                               \
		return ((__global const T *)buf)[i];                    \
	}                                                               \
	FFU_INLINE void NAME##_store(__global uint *buf, size_t i, NAME##_t v) \
	{                                                               \
		((__global T *)buf)[i] = v;                             \
	}
FFU_INT_TYPE(s8, char)
FFU_INT_TYPE(s16, short)
FFU_INT_TYPE(s32, int)
FFU_INT_TYPE(s64, long)
FFU_INT_TYPE(u8, uchar)
FFU_INT_TYPE(u16, ushort)
#undef FFU_INT_TYPE

/* pred (compare results, select selectors): one byte per element, 0 or 1. */
typedef uchar pred_t;

FFU_INLINE pred_t pred_load(__global const uint *buf, size_t i)
{
	return ((__global const uchar *)buf)[i];
}

FFU_INLINE void pred_store(__global uint *buf, size_t i, pred_t v)
{
	((__global uchar *)buf)[i] = v;
}

/*
 * The low `bits` bits of x in reverse order (1 <= bits <= 64): the index map of
 * bit-reverse (src/codegen/index.c), by swapping ever larger bit groups of the whole
 * word, then shifting the reversed low bits down.
 */
FFU_INLINE ulong ffu_bitrev(ulong x, uint bits)
{
	x = ((x >> 1) & 0x5555555555555555UL) | ((x & 0x5555555555555555UL) << 1);
	x = ((x >> 2) & 0x3333333333333333UL) | ((x & 0x3333333333333333UL) << 2);
	x = ((x >> 4) & 0x0f0f0f0f0f0f0f0fUL) | ((x & 0x0f0f0f0f0f0f0f0fUL) << 4);
	x = ((x >> 8) & 0x00ff00ff00ff00ffUL) | ((x & 0x00ff00ff00ff00ffUL) << 8);
	x = ((x >> 16) & 0x0000ffff0000ffffUL) | ((x & 0x0000ffff0000ffffUL) << 16);
	x = (x >> 32) | (x << 32);
	return x >> (64 - bits);
}
