/*
 * tests/support.h: helpers shared by the Criterion suites: the two OpenCL implementations
 * every device test runs on, and paths to the source tree.
 */
#ifndef FFU_TESTS_SUPPORT_H
#define FFU_TESTS_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>

/* Selectors of the OpenCL implementations every device test must pass on: "pocl" and
   "rusticl", or twice $FIELDFUSE_TEST_DEVICE where that is set (support.c). */
extern const char *ffu_test_devices[2];

/*
 * The deep run: FFU_TEST_FULL=1, which `tools/test.sh --full` and `meson test --setup full`
 * set (tests/meson.build). The default run keeps every test and every device but sizes
 * its random value counts to what finds bugs; the deep run takes the large counts.
 */
bool ffu_test_full(void);
/* `quick` in the default run, `full` in the deep one. */
size_t ffu_test_count(size_t quick, size_t full);
/* The element type named `name` (a field, _mont, extension or integer type); the test fails
   when there is none. */
const struct ffu_field *ffu_test_field(const char *name);

/* Expects each of want[0..n) in text (the printer's lines of a program), naming what is
   missing. */
void ffu_test_expect_in(const char *text, const char *const *want, size_t n);

/* $FFU_SOURCE_ROOT/rel (meson sets it); malloc'd. */
char *ffu_test_path(const char *rel);
/* Reads a whole file; NULL on failure. *len optional. malloc'd, NUL-terminated. */
char *ffu_test_read_file(const char *path, size_t *len);
/* Removes dir and everything under it (symbolic links are removed, not followed). */
void ffu_test_remove_tree(const char *dir);

/* The OpenCL program the code generator writes for HLO `text` (parsed, all passes with
   fusion) for target t; *fusion0_lanes (optional) receives the lanes of the first fusion's
   wide kernel, *pk (optional) the kernel descriptors (their fusion pointers NULL: the module
   is gone; free with ffu__program_kernels_free). malloc'd; failures fail the test. */
struct ffu_target;
struct ffu_program_kernels;
char *ffu_test_generate_for(const char *text, const struct ffu_target *t, int *fusion0_lanes,
			    struct ffu_program_kernels *pk);
/* The same for a device-less target with `lanes` (1: a GPU's, more: a CPU's, as
   `fieldfuse compile --lanes` shows them). */
char *ffu_test_generate(const char *text, int lanes, int *fusion0_lanes);

struct ffu_cl;
/* Opens a context on the device a selector names (RUSTICL_ENABLE=llvmpipe unless already
   set). No such device fails the calling test loudly: device tests never skip. */
void ffu_test_open_device(struct ffu_cl *cl, const char *device);

struct ffu_value;
/* HLO `text` parsed, every pass run (fusion as asked), built on cl and run on in[0..n_in):
   its outputs into *out and *n_out (free with ffu__values_free); returns its kernel count.
   Every failure fails the calling test, the build log included. */
int ffu_test_run_device(struct ffu_cl *cl, const char *text, const struct ffu_value *in, int n_in, bool fuse,
			struct ffu_value **out, int *n_out);

#endif
