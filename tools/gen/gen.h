/*
 * tools/gen/gen.h: the random program generator behind fieldfuse-soak (tools/soak.sh),
 * the suite's fixed-seed soak run and tests/test_passes.c. One seed gives one valid HLO
 * module, always the same text:
 *  - one element type per program: every prime field of fields.def, its _mont twin, and
 *    the extension fields (babybearx4, ...) whose type names exist, plus the u32/u64
 *    exponents and sources, the twin reached by convert, and pred from compare;
 *  - arrays of rank 0 to 4 (small: at most gen_opts.max_elems elements);
 *  - element-wise chains with shared subexpressions and exact duplicates (for cse),
 *    constants 0, 1 and -1 in the program's type (for simplify's identities), divide,
 *    inverse, power by constant, iota or parameter exponents, convert round trips;
 *  - strided slices, general broadcasts (dimensions={...}), iota, reshape, concatenate,
 *    compare (EQ/NE) and select (array or scalar selector);
 *  - values of the integer types s8 ... s64, u8 ... u64 (convert into, between and out of
 *    them, compare in every direction, maximum/minimum/clamp, select, power by u8/u16,
 *    and every layout op), and dynamic-slice / dynamic-update-slice of any type with start
 *    indices of any integer type, in range, past the end and negative, constant, parameter
 *    or computed (gen_index.c; opts.index_one_in says how often);
 *  - reductions, sum and product, over any subset of the dimensions of ranks 1..4, whose
 *    results are broadcast back and combined;
 *  - one output or a tuple of several (parameters, repeats, scalars, preds among them);
 *  - with opts.points_one_in, in programs over a curve's scalar field: points (parameters,
 *    constants "k"), scalar multiples, sums and differences of every allowed kind pair,
 *    negation, converts between kinds and forms, compare EQ/NE and select, reduce by add,
 *    and the layout ops on them (gen_points.c).
 *
 * A batch puts several programs side by side in one module (names prefixed g<i>_,
 * parameters renumbered, all outputs in one ROOT tuple): the same values as the programs
 * one by one, for one OpenCL build instead of many. Nothing connects the programs of a
 * batch, so fusion forms the same kernels as for each alone.
 *
 * Ownership: the caller owns the strbuf the text is appended to, and the host arrays
 * ffu_gen_inputs fills; nothing is kept between calls.
 */
#ifndef FFU_TOOLS_GEN_H
#define FFU_TOOLS_GEN_H

#include <stdbool.h>
#include <stdint.h>

#include "fieldfuse/fieldfuse.h"
#include "util/strbuf.h"

typedef struct ffu_gen_opts {
	int max_elems;     /* largest array, in elements; 0 = 1024 */
	int max_steps;     /* operations per program, at most; 0 = 16 */
	const char *types; /* comma-separated element types to draw from ("babybear,goldilocks_mont");
	                      NULL = every field, _mont and extension type that exists */
	bool cheap;        /* for the suite's run: what compiles slowly on CPU OpenCL (divide,
	                      inverse and per-element power on 256-bit and wider values) is left
	                      out, and 256-bit programs are rarer */
	int index_one_in;  /* an integer or index step (gen_index.c) after one step in N;
	                      0 = 4, 1 = after every step */
	int points_one_in; /* a point step (gen_points.c) after one step in N, in programs whose
	                      type is a curve's scalar field (bn254_sf, bls12_381_sf, _mont);
	                      0 = none (points compile slowly: soaks ask for them) */
} ffu_gen_opts;

/* Appends the module for seed (o may be NULL); ENOMEM only. */
ffu_status ffu_gen_program(ffu_strbuf *sb, uint64_t seed, const ffu_gen_opts *o, ffu_error *e);

/*
 * Appends one module holding the programs of seeds[0..n): program i's outputs are the ROOT
 * tuple's elements out_first[i] .. out_first[i + 1] - 1 (out_first has n + 1 entries).
 */
ffu_status ffu_gen_batch(ffu_strbuf *sb, const uint64_t *seeds, int n, const ffu_gen_opts *o, int *out_first,
			 ffu_error *e);

/*
 * Fills the inputs of p (a generated program or batch, parsed) for seed: inputs[i] is input
 * i's host array, ffu_program_input's info.bytes, the caller's. Random values of each type
 * in its storage form, whose first elements are the edge cases (0, 1, -1 in a field; 0, 1,
 * all ones in an integer type; infinity, G, -G for points), a scalar integer (a start
 * index) drawn alone: 0, anything, or a small value about the dimensions (gen_inputs.c).
 * The same seed gives the same bytes. EUNSUPPORTED for an input it has no shape for.
 */
ffu_status ffu_gen_inputs(const ffu_program *p, uint64_t seed, void *const *inputs, ffu_error *e);

/* Is every name of a comma-separated type list a field, _mont or extension type?
   (For --types: u32, u64 and pred are not program types.) */
bool ffu_gen_types_valid(const char *types);

#endif
