/*
 * tests/hlo_check.h: HLO front-end assertions shared by the HLO suites. Every failure
 * fails the calling Criterion test.
 */
#ifndef FFU_TESTS_HLO_CHECK_H
#define FFU_TESTS_HLO_CHECK_H

#include "hlo/hlo.h"

/* Parses text (file "test.hlo"); the test fails unless it parses. */
ffu_module *parse_ok(const char *text);
/* Canonical text of m, malloc'd. */
char *print_ok(const ffu_module *m);
/* Parses len bytes as "bad.hlo": the status (e filled); on failure no module is left. */
ffu_status parse_err(const char *text, size_t len, ffu_error *e);
/* Structural equality: same computations, instructions, operands (by position), attributes. */
void assert_same_module(const ffu_module *a, const ffu_module *b);
/* print -> parse -> print of m: the same text twice, equal modules; returns the text (malloc'd). */
char *reprint(const ffu_module *m);
/* parse_ok, then reprint. */
char *round_trip(const char *text);

#endif
