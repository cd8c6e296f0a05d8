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

/*
 * Field helpers are small and called in every element of every kernel: ask for inlining.
 * `static` keeps C99 inline semantics from leaving an undefined external symbol.
 */
#define FFU_INLINE static inline
