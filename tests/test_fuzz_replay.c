/*
 * tests/test_fuzz_replay.c: replays the fuzz targets' kept inputs without libFuzzer, in
 * every build (plain, ASan+UBSan, valgrind): the seed corpus, the bad-input corpus, the
 * benchmark workloads and every reproducer of a bug the fuzzers found
 * (tests/fuzz/regressions/<target>/). A crash, sanitizer report or leak on any of them
 * fails the suite; a missing directory fails it too, so the replay cannot silently shrink.
 * The regression directories may be empty (a .gitkeep keeps them): the corpus ones may not.
 *
 * Ownership: each file is read, handed to the target and freed here.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"
#include "support.h"

typedef int (*target_fn)(const uint8_t *data, size_t size);

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs fn on every regular file of source-relative dir (sorted); returns how many. */
static int replay_dir(target_fn fn, const char *rel, const char *suffix)
{
	char *path = ffu_test_path(rel);
	cr_assert(path);
	DIR *d = opendir(path);
	cr_assert(d, "cannot open %s", path);
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		size_t len = strlen(de->d_name), sl = suffix ? strlen(suffix) : 0;
		if (de->d_name[0] == '.' || (suffix && (len < sl || strcmp(de->d_name + len - sl, suffix) != 0)))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			names = realloc(names, cap * sizeof *names);
			cr_assert(names);
		}
		names[n++] = strdup(de->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof *names, by_name);
	for (size_t i = 0; i < n; i++) {
		size_t fl = strlen(path) + strlen(names[i]) + 2, len = 0;
		char *file = malloc(fl);
		cr_assert(file);
		snprintf(file, fl, "%s/%s", path, names[i]);
		char *data = ffu_test_read_file(file, &len);
		cr_assert(data, "cannot read %s", file);
		/* named on stderr first, so a crash report says which input it was */
		if (getenv("FFU_FUZZ_REPLAY_VERBOSE"))
			fprintf(stderr, "replay %s\n", file);
		fn((const uint8_t *)data, len);
		free(data);
		free(file);
		free(names[i]);
	}
	free(names);
	free(path);
	return (int)n;
}

Test(fuzz_replay, hlo_corpus)
{
	cr_expect_gt(replay_dir(ffu_fuzz_hlo, "tests/fuzz/corpus/hlo", NULL), 0);
}

Test(fuzz_replay, hlo_bad_inputs)
{
	cr_expect_gt(replay_dir(ffu_fuzz_hlo, "tests/bad", ".hlo"), 0);
}

Test(fuzz_replay, hlo_workloads)
{
	cr_expect_gt(replay_dir(ffu_fuzz_hlo, "bench/workloads", ".hlo"), 0);
}

Test(fuzz_replay, hlo_regressions)
{
	replay_dir(ffu_fuzz_hlo, "tests/fuzz/regressions/hlo", NULL);
}

Test(fuzz_replay, values_corpus)
{
	cr_expect_gt(replay_dir(ffu_fuzz_values, "tests/fuzz/corpus/values", NULL), 0);
}

Test(fuzz_replay, values_regressions)
{
	replay_dir(ffu_fuzz_values, "tests/fuzz/regressions/values", NULL);
}
