/*
 * tests/fuzz/fuzz.h: the fuzz targets' entry functions. Each takes one input and returns 0;
 * a broken invariant aborts (test code, so abort is the point: libFuzzer and the replay
 * suite both see it as a crash). libFuzzer binaries reach them via LLVMFuzzerTestOneInput
 * (fuzz_main.c); tests/test_fuzz_replay.c calls them directly on the kept corpus.
 *
 * Ownership: each call frees everything it allocated, so leaks show up in ASan/valgrind.
 */
#ifndef FFU_TESTS_FUZZ_H
#define FFU_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* HLO text -> parse -> verify -> passes (fused, unfused) -> print -> re-parse -> codegen. */
int ffu_fuzz_hlo(const uint8_t *data, size_t size);
/*
 * Value-file reader: byte 0 picks the field, byte 1 the element count (0..15), byte 2 text
 * or .bin; the rest is the file. What reads back writes and reads again to the same bytes.
 */
int ffu_fuzz_values(const uint8_t *data, size_t size);

#endif
