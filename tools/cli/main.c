/* tools/cli/main.c: `fieldfuse` entry point: one table of subcommands. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
} commands[] = {
	{"devices", cmd_devices, "devices [--json]"},
	{"run", cmd_run,
	 "run PROGRAM.hlo [--input N=FILE | NAME=FILE]... [--random SEED] [-o FILE]\n"
	 "                          [--device SEL] [--check] [--no-fuse] [--disable-pass NAME]... [--json]\n"
	 "                          [--dialect auto|fieldfuse|zkx-2026.01] [--mpi-timeout S]\n"
	 "                          | --interp (the reference interpreter, no device)"},
	{"compile", cmd_compile,
	 "compile PROGRAM.hlo [--emit hlo|cl|plan] [--target FIXTURE] [--lanes N] [--no-fuse] [--disable-pass NAME]...\n"
	 "                          [--dump-after PASS|all] [-o FILE] [--dialect auto|fieldfuse|zkx-2026.01]"},
	{"bench", cmd_bench,
	 "bench [WORKLOAD...] [--device SEL|all] [--k A..B] [--timing kernel|end_to_end] [--runs N]\n"
	 "                          [--warmup N] [--json FILE] [--csv FILE] [--plot FILE.png] [--baseline-only]\n"
	 "                          [--save-values DIR]"},
	{"tune", cmd_tune,
	 "tune [WORKLOAD...] [--device SEL|all] [--k K] [--runs N] [--wg LIST] [--lanes LIST]\n"
	 "                          [--vector 1,4] [--limbs 32,64] [--no-write]"},
};

static void usage(FILE *out)
{
	fprintf(out, "usage:\n");
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(out, "  fieldfuse %s\n", commands[i].usage);
	fprintf(out, "\nDevices (--device): pocl, rusticl, nvidia, amd, intel, cpu, gpu, an index (0 or 1:0),\n"
		     "or part of a device name; default $FIELDFUSE_DEVICE, else the first GPU, else the first CPU.\n"
		     "run also takes SEL@rank: the node-local MPI rank's device among SEL's matches (gpu@rank).\n"
		     "Exit codes: 0 success, 1 runtime failure, 2 bad usage or bad input.\n");
}

int main(int argc, char **argv)
{
	/*
	 * Pin PoCL's worker threads to cores unless the user chose otherwise. Unpinned, the
	 * workers of a 2-core VM sometimes shared one core for a whole process: seed_bb at 2^22
	 * ran fused in 0.77-0.92 ms in 5 of 5 runs pinned, but in 1.5 ms in 4 of 5 unpinned
	 * (fused/unfused 1.76-2.12x pinned, 1.12-2.89x unpinned). Other drivers ignore it. Set
	 * here, before any OpenCL call, and not in the library: the environment is the embedding
	 * program's to decide.
	 */
	setenv("POCL_AFFINITY", "1", 0);

	if (argc < 2)
		return usage(stderr), CLI_USAGE;
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0)
		return usage(stdout), CLI_OK;
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "fieldfuse: error: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return CLI_USAGE;
}
