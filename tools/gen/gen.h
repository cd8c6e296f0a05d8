/*
 * tools/gen/gen.h: the random program generator of the soak test (tools/soak.sh) and of
 * the test suite's fixed-seed soak run. One seed gives one HLO module: element-wise chains
 * over babybear or bn254_sf with shared subexpressions, broadcast scalar constants and
 * scalar parameters, scalar-only subchains, and one output or a tuple of several (a
 * parameter or the same value twice among them). The same seed always gives the same text.
 *
 * Ownership: the caller owns the strbuf the text is appended to.
 */
#ifndef FFU_TOOLS_GEN_H
#define FFU_TOOLS_GEN_H

#include <stdint.h>

#include "util/strbuf.h"

/* Appends the module for seed; ENOMEM only. */
ffu_status ffu_gen_program(ffu_strbuf *sb, uint64_t seed, ffu_error *e);

#endif
