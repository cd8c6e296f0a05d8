/*
 * tools/cli/cli.h: pieces shared by the `fieldfuse` subcommands: exit codes (HLO.md
 * section 5), reporting an ffu_error, loading a program, and small argument helpers. On the
 * public headers only.
 */
#ifndef FFU_CLI_H
#define FFU_CLI_H

#include <stdbool.h>

#include "fieldfuse/fieldfuse.h"

#if defined(__GNUC__)
#define CLI_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define CLI_PRINTF(fmt, args)
#endif

enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

/* Prints the error to stderr and returns the exit code for its status. */
int cli_fail(const ffu_error *e);
/* "fieldfuse: error: <msg>" for usage errors; returns CLI_USAGE. */
int cli_usage(const char *fmt, ...) CLI_PRINTF(1, 2);
/*
 * Reads, parses (in dialect, docs/hlo.md "Dialects") and verifies an HLO file into a
 * program. When FFU_DIALECT_AUTO picks zkx-2026.01, says so on stderr with the position
 * that decided it.
 */
ffu_status cli_load_program(const char *path, ffu_dialect dialect, ffu_program **out, ffu_error *e);
/* `--dialect VALUE` of subcommand cmd into *out; a usage error (CLI_USAGE) for an unknown value. */
int cli_dialect(const char *cmd, const char *value, ffu_dialect *out);
/* If argv[*i] is `--name VALUE` or `--name=VALUE`, stores VALUE and advances; -1 when VALUE is missing. */
int cli_opt(int argc, char **argv, int *i, const char *name, const char **value);

int cmd_devices(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_compile(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_tune(int argc, char **argv);

#endif
