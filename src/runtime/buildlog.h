/*
 * runtime/buildlog.h: the build-cost log, one line per OpenCL compile a process pays for,
 * so that the cost of a test suite (or of a user's program) can be split into driver
 * compile time and everything else (tools/test_cost.py reads it; docs/reliability.md).
 *
 * FIELDFUSE_BUILD_LOG=path turns it on (util/config.h reads it once): every program build
 * (from source or from a cached binary), and every kernel creation and launch that took long
 * enough to hold a compile, appends one tab-separated line. PoCL compiles a
 * work-group function per local size on first use, in a worker thread, and Mesa its compute
 * state: so with the log on, each launch waits for its kernel (runtime/cl_launch.c), and the
 * wall time less the kernels' own is what the line counts. The log is for measuring.
 *
 *   build <wall ms> <pid> <ppid> <exe> <parent exe> <tag> <device> <event> <key> <source bytes> <ms> <name>
 *
 * event is `source` (clBuildProgram on source text), `binary` (a disk-cache hit still built
 * for the device), `kernel` (clCreateKernel) or `launch`; key is the XXH3-64 of the options
 * and source (the same key in two lines is the same program built twice); tag names who
 * built it (ffu__buildlog_set_tagger: the test suites set the running test's name, else
 * empty). Each line is one write(2) on an O_APPEND descriptor, so processes running side by
 * side share one file. Logging never fails a build: a log that cannot be opened is skipped.
 *
 * Ownership: the tagger is process-wide, set once before any build (a constructor); the
 * file is opened per line (builds are seconds apart; nothing to keep open or close).
 */
#ifndef FFU_RUNTIME_BUILDLOG_H
#define FFU_RUNTIME_BUILDLOG_H

#include <stddef.h>

struct ffu_cl;

/* Launches (wall minus the kernels' own time) and kernel creations faster than these hold
   no compile: not logged. */
#define FFU_BUILDLOG_LAUNCH_MS 20.0
#define FFU_BUILDLOG_KERNEL_MS 5.0

/* true when FIELDFUSE_BUILD_LOG is set: callers time their calls only then */
int ffu__buildlog_on(void);
/* One line; cl may be NULL (a kernel: device `-`), source and options NULL (a kernel or
   launch line: key from the name only). */
void ffu__buildlog(const struct ffu_cl *cl, const char *event, const char *source, const char *options,
		   const char *name, double ms);
/* Who is building (a test's "suite/name"); NULL or "" for none. Called per logged line. */
void ffu__buildlog_set_tagger(const char *(*tagger)(void));

#endif
