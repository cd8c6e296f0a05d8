/*
 * codegen/field_cl.h: emits the device field arithmetic into generated OpenCL programs:
 * cl/common.cl once per program, then one instantiation of the field's template
 * (cl/<cl_template>.cl) per field the program uses, with the FP_* constants derived from
 * fields/fields.def. Owned by the fields engineer; called by codegen/codegen.c.
 *
 * After ffu__cl_emit_field(f) the program has, for name = f->name:
 *   type <name>_t; <name>_load(buf, i), <name>_store(buf, i, v), <name>_make(w0[, w1, ...]),
 *   <name>_add, _sub, _neg, _mul (Montgomery, R = 2^dev_radix_bits; the canonical product
 *   where dev_radix_bits = 0), _sqr, _to_mont, _from_mont, _eq, _from_u32, _from_u64, and
 *   from cl/fp_ops.cl _one_m, _pow_u32, _pow_u64, _inv (Montgomery form in and out).
 *   The multi-word fields' template (cl/montn.cl, any number of 32-bit words: the 256-bit
 *   fields and bls12_381_bf) has a 64-bit-limb variant (cl/montn_64.cl, chosen by
 *   FFU_MONT256_LIMB64 / ffu__cl_emit_fields_opts) with the same functions and results.
 *   Both need p < R / 2; for a modulus without a spare bit (secp256k1/r1) cl/montn_full.cl follows
 *   the template and replaces its add, mul and sqr (same API).
 *   Buffers are `__global uint *`, ffu__cl_words(f) words per element. Prime fields and
 *   extensions are instantiated: a _mont type (of a prime or of an extension) computes with
 *   its base field's functions.
 * An extension (cl/ext2.cl, cl/ext3.cl, cl/ext4.cl; f->base is the extension itself) has the same
 *   list under its own name (babybearx4_t, babybearx4_mul, ...; _make takes the storage
 *   words, lowest coefficient first) plus <name>_from_base(<prime>_t c), the embedding of
 *   its prime field (constant coefficient; keeps c's form, so it serves c and m forms). Its
 *   coefficients are in the prime's device form: mul(m, c) = c, mul(m, m) = m, sqr(m) = m,
 *   inv(m) = m, as for a prime field.
 * Errors (no template, out of memory) latch in the strbuf / surface as a build error.
 */
#ifndef FFU_CODEGEN_FIELD_CL_H
#define FFU_CODEGEN_FIELD_CL_H

#include <stdbool.h>
#include <stddef.h>

#include "field.h"
#include "point.h"
#include "util/strbuf.h"

void ffu__cl_emit_common(ffu_strbuf *sb);
/* One field: a prime field (f->base for a _mont type), or an extension preceded by its
   prime field. A program that uses both an extension and its prime field must not call
   this for both (the prime would be defined twice): use ffu__cl_emit_fields. */
void ffu__cl_emit_field(ffu_strbuf *sb, const ffu_field *f);
/* The coordinate and scalar fields of curve c (ffu__cl_emit_field) and cl/point.cl over
   them: types <curve>_aff and <curve>_xyzz, their loads and stores (canonical; _m: the
   device form as it is), xyzz_zero, _is_zero, _from_aff, _from_jac, _neg, _dbl, _madd
   (+ affine), _add, _mul (scalar times point), _eq, and the element-wise kernels' jac_load
   and out_aff, _jac, _xyzz (fields/curves.def rows; the msm kernels' blocks). */
void ffu__cl_emit_curve(ffu_strbuf *sb, const ffu_curve *c);
/* cl/point.cl alone, for a program that has emitted the coordinate and scalar fields
   already (with ffu__cl_emit_fields: codegen.c, for every fusion with point values). */
void ffu__cl_emit_curve_ops(ffu_strbuf *sb, const ffu_curve *c);
/* Every field a program uses, each once: used[id] for any id of a prime, _mont or extension
   type (integer ids are ignored); prime fields first (in id order), then extensions. */
void ffu__cl_emit_fields(ffu_strbuf *sb, const bool used[FFU_ELEM_COUNT]);

/*
 * Device-dependent choices in the emitted field code (passed by the code generator:
 * ffu__codegen_field_opts). limb_bits: 32 (default, also for 0) or 64, the limb width of the
 * multi-word fields' Montgomery arithmetic (cl/montn.cl or cl/montn_64.cl; same values
 * either way); at build time also -DFFU_MONT256_LIMB64. ext_w64: the extensions over the
 * 31-bit fields compute over their prime's 64-bit-container instance (cl/word31.cl:
 * FFU_W64); at build time also -DFFU_EXT_W64. Each emits its #define, guarded, before the
 * fields.
 */
typedef struct ffu_cl_field_opts {
	int limb_bits;
	bool ext_w64;
} ffu_cl_field_opts;
/* ffu__cl_emit_fields with options (o may be NULL: the defaults). */
void ffu__cl_emit_fields_opts(ffu_strbuf *sb, const bool used[FFU_ELEM_COUNT], const ffu_cl_field_opts *o);
/* Whether f's template has <name>_mulc(a, b): the product of two canonical values, in
   canonical form, cheaper than converting one of them (f is a base field, f->base). */
bool ffu__cl_has_mulc(const ffu_field *f);
/*
 * Vector instances for CPU wide kernels (codegen.c) and NTT passes (codegen/fft_vec.c): an
 * extension f with ffu__cl_vector_lanes(f) = vw > 0, or a prime field p with
 * ffu__cl_prime_vector_lanes(p) = vw > 0, can also be instantiated over vectors of vw
 * elements, named <name>_v<vw> (an extension's with its prime field <prime>_v<vw>): the
 * same functions, each value vw consecutive elements (load/store index i: elements vw i ..
 * vw i + vw - 1; the prime's load_at / store_at take the first element's index e, any e).
 * ffu__cl_emit_vector_fields emits those of the used extensions and prime fields (after
 * ffu__cl_emit_fields), each once.
 */
int ffu__cl_vector_lanes(const ffu_field *f);
int ffu__cl_prime_vector_lanes(const ffu_field *p);
void ffu__cl_emit_vector_fields(ffu_strbuf *sb, const bool used[FFU_ELEM_COUNT]);
/* Bytes of one <name>_t value (sizeof on the device) in a program emitted with options o
   (NULL: the defaults): the storage bytes, but twice those for an extension computed in
   64-bit containers (o->ext_w64); a point type's four coordinates (<curve>_xyzz). For
   local memory holding values. */
size_t ffu__cl_value_bytes(const ffu_field *f, const ffu_cl_field_opts *o);
/* Bytes of one partial result of a reduction to type f in memory (codegen/reduce.c): f's
   storage, or for a point type its curve's xyzz storage (the accumulator's). */
size_t ffu__cl_partial_bytes(const ffu_field *f);
/* An expression of type <name>_t holding these raw storage bytes, e.g. babybear_make(0x5u). */
void ffu__cl_emit_const(ffu_strbuf *sb, const ffu_field *f, const void *storage_bytes);
/* Its arguments alone, "(0x5u)": for a caller that names <name>_make itself (codegen/body.h). */
void ffu__cl_emit_const_args(ffu_strbuf *sb, const ffu_field *f, const void *storage_bytes);
/* The OpenCL type of values of f: <name>_t, or <curve>_xyzz for every point type. */
const char *ffu__cl_type_name(const ffu_field *f, char buf[64]);
size_t ffu__cl_words(const ffu_field *f);

#endif
