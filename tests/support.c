/* tests/support.c: see support.h. */
#include "support.h"

#include "codegen/codegen.h"
#include "device/target.h"
#include "hlo/hlo.h"
#include "passes/passes.h"
#include "runtime/buildlog.h"
#include "runtime/cl.h"
#include "runtime/exec.h"
#include "util/file.h"

#include <criterion/criterion.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *ffu_test_devices[2] = {"pocl", "rusticl"};

/* FIELDFUSE_TEST_DEVICE=SEL puts SEL in both slots: how the device suites run on a GPU
   machine (tools/gpu/h200.sh). CI leaves it unset, so every device test runs on both
   PoCL and Rusticl there. */
__attribute__((constructor)) static void pick_test_devices(void)
{
	const char *sel = getenv("FIELDFUSE_TEST_DEVICE");
	if (sel && *sel)
		ffu_test_devices[0] = ffu_test_devices[1] = sel;
}

/* The running test's "suite/name" for the build-cost log (runtime/buildlog.h,
   tools/test_cost.py): which test paid for each kernel compile. */
static const char *current_test_name(void)
{
	static char name[256];
	const struct criterion_test *t = criterion_current_test;
	if (!t || !t->category || !t->name)
		return NULL;
	snprintf(name, sizeof name, "%s/%s", t->category, t->name);
	return name;
}

__attribute__((constructor)) static void tag_build_log(void)
{
	ffu__buildlog_set_tagger(current_test_name);
}

bool ffu_test_full(void)
{
	/* read once: the counts are macros that loops re-evaluate every iteration */
	static int full = -1;
	if (full < 0) {
		const char *v = getenv("FFU_TEST_FULL");
		full = v && strcmp(v, "1") == 0;
	}
	return full;
}

const ffu_field *ffu_test_field(const char *name)
{
	ffu_type t = ffu__type_by_name(name, strlen(name));
	if (t == FFU_TYPE_INVALID || t == FFU_TYPE_TUPLE)
		cr_assert_fail("no element type %s", name);
	return ffu__field_get((ffu_field_id)t);
}

size_t ffu_test_count(size_t quick, size_t full)
{
	return ffu_test_full() ? full : quick;
}

char *ffu_test_path(const char *rel)
{
	const char *root = getenv("FFU_SOURCE_ROOT");
	if (!root)
		root = ".";
	size_t n = strlen(root) + strlen(rel) + 2;
	char *p = malloc(n);
	if (p)
		snprintf(p, n, "%s/%s", root, rel);
	return p;
}

char *ffu_test_read_file(const char *path, size_t *len)
{
	char *text = NULL;
	return ffu__file_read(path, &text, len, NULL) == FFU_STATUS_OK ? text : NULL;
}

void ffu_test_remove_tree(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	char p[512];
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
		struct stat st;
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
			ffu_test_remove_tree(p);
		else
			unlink(p);
	}
	closedir(d);
	rmdir(dir);
}

void ffu_test_open_device(ffu_cl *cl, const char *device)
{
	setenv("RUSTICL_ENABLE", "llvmpipe", 0);
	ffu_error e = {0};
	ffu_device_info dev;
	cr_assert_eq(ffu__cl_select(&dev, device, &e), FFU_STATUS_OK, "no %s device: %s", device, e.message);
	cr_assert_eq(ffu__cl_open(cl, &dev, &e), FFU_STATUS_OK, "%s", e.message);
	ffu_error_clear(&e);
}

char *ffu_test_generate(const char *text, int lanes, int *fusion0_lanes)
{
	ffu_target t;
	ffu__target_generic(&t, lanes > 1 ? FFU_DEVICE_CLASS_CPU : FFU_DEVICE_CLASS_GPU, lanes);
	return ffu_test_generate_for(text, &t, fusion0_lanes, NULL);
}

char *ffu_test_generate_for(const char *text, const ffu_target *t, int *fusion0_lanes, ffu_program_kernels *pk)
{
	ffu_error e = {0};
	ffu_module *m = NULL;
	cr_assert_eq(ffu__hlo_parse(&m, text, strlen(text), "t", &e), FFU_STATUS_OK, "%s", e.message);
	ffu_pass_opts po = {.fuse = true};
	cr_assert_eq(ffu__passes_run(m, &po, &e), FFU_STATUS_OK, "%s", e.message);
	ffu_strbuf sb = {0};
	ffu_program_kernels own = {0}, *k = pk ? pk : &own;
	cr_assert_eq(ffu__codegen_program_kernels(&sb, m, t, k, &e), FFU_STATUS_OK, "%s", e.message);
	for (int i = 0; i < k->n; i++)
		k->fusions[i].fusion = NULL; /* the module goes below */
	ffu__program_kernels_free(&own);
	for (int i = 0; i < m->entry->n_insts && fusion0_lanes; i++)
		if (m->entry->insts[i]->op == FFU_OP_FUSION) {
			*fusion0_lanes = ffu__codegen_kernel_lanes(m->entry->insts[i], t);
			break;
		}
	char *s = strdup(ffu__sb_cstr(&sb));
	cr_assert(s);
	ffu__sb_free(&sb);
	ffu__module_free(m);
	ffu_error_clear(&e);
	return s;
}

void ffu_test_expect_in(const char *text, const char *const *want, size_t n)
{
	for (size_t i = 0; i < n; i++)
		cr_expect(strstr(text, want[i]), "missing %s in\n%s", want[i], text);
}

int ffu_test_run_device(ffu_cl *cl, const char *text, const ffu_value *in, int n_in, bool fuse, ffu_value **out,
			int *n_out)
{
	ffu_error e = {0};
	ffu_module *m = NULL;
	cr_assert_eq(ffu__hlo_parse(&m, text, strlen(text), "test.hlo", &e), FFU_STATUS_OK, "%s\n%s", e.message, text);
	ffu_pass_opts po = {.fuse = fuse};
	cr_assert_eq(ffu__passes_run(m, &po, &e), FFU_STATUS_OK, "%s", e.message);
	ffu_exec *x = NULL;
	cr_assert_eq(ffu__exec_create(&x, cl, m, &e), FFU_STATUS_OK, "%s on %s: %s\n%s", text, cl->dev.name, e.message,
		     e.build_log ? e.build_log : "");
	int kernels = ffu__exec_kernel_count(x);
	cr_assert_eq(ffu__exec_upload(x, in, n_in, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu__exec_run(x, NULL, NULL, &e), FFU_STATUS_OK, "%s", e.message);
	cr_assert_eq(ffu__exec_download(x, out, n_out, &e), FFU_STATUS_OK, "%s", e.message);
	ffu__exec_destroy(&x);
	ffu__module_free(m);
	ffu_error_clear(&e);
	return kernels;
}
