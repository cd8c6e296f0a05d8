/*
 * codegen/addchain.h: addition chains for power by a constant exponent. The code
 * generator unrolls power(x, e) with a literal e into one kernel-local product per step of
 * a chain for e (kgen_special.c: emit_pow_const); a shorter chain is fewer field products per
 * element, and marking the doublings lets it call the field's dedicated squaring. Pure
 * integer code: no field, no IR; owned by codegen.
 *
 * A chain for e is a list of steps; element 0 is x, step s appends element s + 1, either
 * the square of an earlier element or the product of two different earlier elements, and
 * the last element is x^e. How the chain is found:
 *  - e < FFU_ADDCHAIN_OPTIMAL_BELOW: a shortest chain, by iterative-deepening depth-first
 *    search over star (Brauer) chains, each element the sum of the previous element and
 *    any earlier one. Some shortest chain is a star chain for every e below 12509 (OEIS
 *    A086833), so the length is l(e), OEIS A003313. Among the shortest, one with the fewest products
 *    that are not squares.
 *  - larger e: left-to-right sliding windows of width w over odd window values: a table,
 *    then squares and one product per window. The table is x, x^2, x^3, x^5, ... up to
 *    the largest window value used, or when shorter a shortest star chain to it that holds
 *    every window value used (2^64 - 1 in windows of 5 needs x^31 and x^15: 7 steps, not
 *    16). Every w from 1 (the binary method) to max_window is tried and the shortest chain
 *    kept, so a chain is never longer than the binary method's.
 * Equal lengths are broken by fewer non-square products. Building a chain takes under a
 * millisecond for any e (the worst, e = 607, about 0.7 ms on one 2.6 GHz EPYC core).
 */
#ifndef FFU_CODEGEN_ADDCHAIN_H
#define FFU_CODEGEN_ADDCHAIN_H

#include <stdint.h>

#include "fieldfuse/status.h"

/* Longest chain: the binary method's for 2^64 - 1 (63 squares, 63 products). */
#define FFU_ADDCHAIN_MAX_STEPS 126
/* Exponents below this get a shortest chain (the search stays under a millisecond). */
#define FFU_ADDCHAIN_OPTIMAL_BELOW (1u << 10)
/* Largest max_window accepted: a table of 2^(w-1) odd powers. */
#define FFU_ADDCHAIN_MAX_WINDOW 6

typedef enum ffu_addchain_op {
	FFU_ADDCHAIN_SQR, /* element a squared (b == a) */
	FFU_ADDCHAIN_MUL, /* elements a and b multiplied, a != b */
} ffu_addchain_op;

typedef struct ffu_addchain_step {
	uint8_t op;   /* ffu_addchain_op */
	uint8_t a, b; /* earlier elements: a, b <= the step's own index */
} ffu_addchain_step;

/*
 * Writes a chain for x^e into steps and its length into *n_steps (0 for e = 1: x itself).
 * max_window (1..FFU_ADDCHAIN_MAX_WINDOW) caps the sliding window, which costs
 * 2^(max_window-1) live table entries (registers on a device); 1 gives the binary method
 * above FFU_ADDCHAIN_OPTIMAL_BELOW. EINVAL for e = 0 (no chain: x^0 = 1) or a bad
 * max_window, with *n_steps = 0.
 */
ffu_status ffu__addchain_build(ffu_addchain_step steps[FFU_ADDCHAIN_MAX_STEPS], int *n_steps, uint64_t e,
			       int max_window);

/* Steps of the binary method (left-to-right square and multiply) for e >= 1. */
int ffu__addchain_binary_len(uint64_t e);

#endif
