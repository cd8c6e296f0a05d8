/*
 * tests/programs.h: the programs that the pipeline and fusion suites run, written once.
 * Each text uses N for the vector length (substituted by the suite) and states how many
 * kernels it must compile to, fused and unfused.
 */
#ifndef FFU_TESTS_PROGRAMS_H
#define FFU_TESTS_PROGRAMS_H

typedef struct test_program {
	const char *name;
	const char *text;      /* "N" is replaced by the length */
	int fused_kernels, unfused_kernels;
} test_program;

extern const test_program ffu_test_programs[];
extern const int ffu_test_n_programs;

/* Largest length a program runs at (costly ones: inversions, powers), 0 = no limit. */
long long ffu_test_program_max_n(const test_program *p);

/* text with every standalone N replaced by n (malloc'd). */
char *ffu_test_program_text(const test_program *p, long long n);

#endif
