/*
 * cl/carry.cl: carry-chain instructions for multi-word arithmetic, emitted once after
 * cl/common.cl (src/codegen/field_cl.c: ffu__cl_emit_common). Owned by the fields engineer;
 * used by cl/montn.cl.
 *
 * On NVIDIA's OpenCL compiler (__NV_CL_C_VERSION) each macro is one inline PTX instruction
 * and the carry flag CC.CF links consecutive ones: a limb product costs one mad.lo.cc or
 * madc.hi.cc instead of a 64-bit multiply-add and a split. Clang-based compilers (PoCL,
 * Rusticl, AMD) reject inline asm, so everywhere else the templates keep their portable
 * code; FFU_CARRY_EMULATE (a build option, for tests) instead defines the same macros in
 * plain C with the flag in a variable, so that the chained algorithms are checked against
 * GMP on PoCL and Rusticl and only the one-line instruction mappings below are left to a
 * GPU. FFU_NO_PTX turns the PTX path off on NVIDIA (for comparing the two).
 *
 * Names are the PTX mnemonics, `_CC` where the instruction writes the flag; a chain starts
 * with an instruction that does not read the flag (ADD_CC, SUB_CC, MADLO_CC, MADHI_CC) and
 * every macro that reads it follows one that wrote it, with no other chain in between.
 * PTX semantics (u32): add.cc d = a + b; addc d = a + b + CF; sub.cc d = a - b;
 * subc d = a - (b + CF), CF then being the borrow; mad.lo d = lo(a*b) + c; mad.hi
 * d = hi(a*b) + c; madc adds CF too. FFU_CARRY_DECL declares the emulated flag (nothing
 * on NVIDIA) at the top of each function that uses chains.
 */

#if defined(__NV_CL_C_VERSION) && !defined(FFU_NO_PTX)
#define FFU_CARRY_CHAINS 1
#define FFU_CARRY_DECL
#define FFU_PTX3_(op, d, a, b) asm volatile(op " %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
#define FFU_PTX4_(op, d, a, b, c) asm volatile(op " %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
#define FFU_ADD_CC(d, a, b) FFU_PTX3_("add.cc.u32", d, a, b)
#define FFU_ADDC_CC(d, a, b) FFU_PTX3_("addc.cc.u32", d, a, b)
#define FFU_ADDC(d, a, b) FFU_PTX3_("addc.u32", d, a, b)
#define FFU_SUB_CC(d, a, b) FFU_PTX3_("sub.cc.u32", d, a, b)
#define FFU_SUBC_CC(d, a, b) FFU_PTX3_("subc.cc.u32", d, a, b)
#define FFU_SUBC(d, a, b) FFU_PTX3_("subc.u32", d, a, b)
#define FFU_MADLO_CC(d, a, b, c) FFU_PTX4_("mad.lo.cc.u32", d, a, b, c)
#define FFU_MADCLO_CC(d, a, b, c) FFU_PTX4_("madc.lo.cc.u32", d, a, b, c)
#define FFU_MADHI_CC(d, a, b, c) FFU_PTX4_("mad.hi.cc.u32", d, a, b, c)
#define FFU_MADCHI_CC(d, a, b, c) FFU_PTX4_("madc.hi.cc.u32", d, a, b, c)
#define FFU_MADCHI(d, a, b, c) FFU_PTX4_("madc.hi.u32", d, a, b, c)
#elif defined(FFU_CARRY_EMULATE)
#define FFU_CARRY_CHAINS 1
#define FFU_CARRY_DECL uint cf_ = 0;
/* w_ is the full result before it is split, so d may name an input. */
#define FFU_CARRY_SET_(d, expr) \
	{ \
		ulong w_ = (expr); \
		(d) = (uint)w_; \
		cf_ = (uint)(w_ >> 32) & 1u; \
	}
#define FFU_ADD_CC(d, a, b) FFU_CARRY_SET_(d, (ulong)(uint)(a) + (uint)(b))
#define FFU_ADDC_CC(d, a, b) FFU_CARRY_SET_(d, (ulong)(uint)(a) + (uint)(b) + cf_)
#define FFU_ADDC(d, a, b) { (d) = (uint)(a) + (uint)(b) + cf_; }
/* a - b wraps below zero to >= 2^63: bit 32 of the 64-bit difference is then set too */
#define FFU_SUB_CC(d, a, b) FFU_CARRY_SET_(d, (ulong)(uint)(a) - (uint)(b))
#define FFU_SUBC_CC(d, a, b) FFU_CARRY_SET_(d, (ulong)(uint)(a) - (uint)(b) - cf_)
#define FFU_SUBC(d, a, b) { (d) = (uint)(a) - (uint)(b) - cf_; }
#define FFU_MADLO_CC(d, a, b, c) FFU_CARRY_SET_(d, (ulong)((uint)(a) * (uint)(b)) + (uint)(c))
#define FFU_MADCLO_CC(d, a, b, c) FFU_CARRY_SET_(d, (ulong)((uint)(a) * (uint)(b)) + (uint)(c) + cf_)
#define FFU_MADHI_CC(d, a, b, c) FFU_CARRY_SET_(d, (ulong)mul_hi((uint)(a), (uint)(b)) + (uint)(c))
#define FFU_MADCHI_CC(d, a, b, c) FFU_CARRY_SET_(d, (ulong)mul_hi((uint)(a), (uint)(b)) + (uint)(c) + cf_)
#define FFU_MADCHI(d, a, b, c) { (d) = mul_hi((uint)(a), (uint)(b)) + (uint)(c) + cf_; }
#endif
