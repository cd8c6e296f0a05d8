/*
 * tests/fuzz/fuzz_main.c: the libFuzzer entry point of one target, picked at compile time
 * (-DFFU_FUZZ_TARGET=ffu_fuzz_hlo), so each target is its own binary with its own corpus
 * and the targets themselves stay plain functions the replay suite can call.
 */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return FFU_FUZZ_TARGET(data, size);
}
