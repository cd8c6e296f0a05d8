/* src/api/tool.c: the tools' internal API (see tool.h), on top of the library's internals. */
#include "api/tool.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "codegen/codegen.h"
#include "device/caps.h"
#include "fields/field.h"
#include "device/target.h"
#include "hlo/hlo.h"
#include "ir/value.h"
#include "passes/passes.h"
#include "runtime/compile.h"
#include "util/file.h"
#include "util/strbuf.h"

ffu_status ffu_tool_error(ffu_error *e, ffu_status s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ffu__err_v(e, s, "", fmt, ap);
	va_end(ap);
	return s;
}

double ffu_tool_now_ms(void)
{
	return ffu__now_ms();
}

ffu_form ffu_tool_storage_form(const char *type)
{
	/* the field table says which types hold Montgomery values (_mont twins, their points) */
	const ffu_type t = type ? ffu__type_by_name(type, strlen(type)) : FFU_TYPE_INVALID;
	const ffu_field *f = t >= 0 && (int)t < (int)FFU_ELEM_COUNT ? ffu__field_get((ffu_field_id)t) : NULL;
	return f && ffu__field_is_mont(f) ? FFU_FORM_MONTGOMERY : FFU_FORM_CANONICAL;
}

void ffu_tool_device_cache(const ffu_device *d, ffu_tool_cache_stats *s)
{
	memset(s, 0, sizeof *s);
	s->platform = "";
	if (!d)
		return;
	s->source_builds = d->cl.cache_stats.source_builds;
	s->disk_hits = d->cl.cache_stats.disk_hits;
	s->memory_hits = d->cl.cache_stats.memory_hits;
	s->disk_cache = d->cl.disk_cache;
	s->platform = d->cl.dev.platform_name;
}

const char *ffu_tool_pass_names(void)
{
	return ffu__pass_names();
}

int ffu_tool_pass_known(const char *name)
{
	return ffu__pass_known(name);
}

ffu_status ffu_tool_passes_check(const char *list, const char *what, ffu_error *e)
{
	ffu_error_clear(e);
	return ffu__pass_check_list(list, what, e);
}

/*
 * A target's build options first, as a comment the vendor checkers read back
 * (tools/gpu/amdgcn_check.sh, ptx_check.sh), then what decided them: the program alone is
 * not what the device compiles.
 */
static void print_target_header(ffu_strbuf *sb, const ffu_target *t, const ffu_device_info *dev, const char *name)
{
	ffu__sb_printf(sb, "// build options:%s%s\n", t->build_options[0] ? " " : "", t->build_options);
	ffu__sb_printf(sb, "// target: %s: %s (%s, %s%s%s), profile %s; carries %s, lanes %d\n", name, dev->name,
		       ffu__device_class_str(t->cls), ffu__vendor_str(dev->vendor_class), dev->arch[0] ? " " : "",
		       dev->arch, t->profile.source, t->carries, t->profile.lanes);
}

static ffu_status load_target(ffu_target *t, ffu_device_info *dev, const char *path, ffu_error *e)
{
	char *text = NULL;
	size_t len = 0;
	ffu_status st = ffu__file_read(path, &text, &len, e);
	if (st == FFU_STATUS_OK)
		st = ffu__target_from_json(t, dev, text, len, path, e);
	free(text);
	return st;
}

ffu_status ffu_tool_emit_program(char **text, const ffu_program *p, ffu_tool_emit what,
				 const ffu_tool_compile_opts *o, ffu_error *e)
{
	static const ffu_tool_compile_opts none = {0};
	ffu_error_clear(e);
	if (!text || !p)
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu_tool_emit_program: %s is NULL", !text ? "text" : "program");
	*text = NULL;
	o = o ? o : &none;
	ffu_compile_opts co = {.no_fuse = o->no_fuse, .verified = true, .disable = o->disable_passes,
			       .dump_after = o->dump_after, .dump_to = o->dump_to};
	ffu_target t;
	ffu_device_info dev = {0};
	ffu_status st = FFU_STATUS_OK;
	if (o->target) {
		/* the device's fusion budget too: a fixture with a small parameter space splits fusions */
		if ((st = load_target(&t, &dev, o->target, e)) == FFU_STATUS_OK)
			co.max_params = dev.max_kernel_args;
		/* lanes override the device's as FIELDFUSE_LANES would; its class stays */
		if (o->lanes > 0)
			t.profile.lanes = o->lanes;
	} else {
		/* more than one lane: a CPU device's program, one: a GPU's */
		int lanes = o->lanes > 0 ? o->lanes : 1;
		ffu__target_generic(&t, lanes > 1 ? FFU_DEVICE_CLASS_CPU : FFU_DEVICE_CLASS_GPU, lanes);
	}
	co.dot_reduce_results = t.dot_reduce_results; /* the target's, as a context's compile takes */
	ffu_module *m = NULL;
	ffu_strbuf sb = {0};
	int n_kernels = 0;
	if (st == FFU_STATUS_OK && !(m = ffu__module_clone(p->m)))
		st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	if (st == FFU_STATUS_OK)
		st = ffu__compile_module(m, NULL, &co, e);
	if (st == FFU_STATUS_OK && o->target && what == FFU_TOOL_EMIT_CL)
		print_target_header(&sb, &t, &dev, o->target_name ? o->target_name : o->target);
	if (st == FFU_STATUS_OK && what == FFU_TOOL_EMIT_HLO)
		st = ffu__hlo_print(&sb, m, e);
	else if (st == FFU_STATUS_OK && what == FFU_TOOL_EMIT_PLAN)
		st = ffu__codegen_print_plans(&sb, m, &t, e);
	else if (st == FFU_STATUS_OK)
		st = ffu__codegen_program(&sb, m, &t, &n_kernels, e);
	if (st == FFU_STATUS_OK)
		st = ffu__sb_status(&sb, e);
	if (st == FFU_STATUS_OK && !(*text = strdup(ffu__sb_cstr(&sb))))
		st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	ffu__sb_free(&sb);
	ffu__module_free(m);
	return st;
}

ffu_params ffu__tool_params(const ffu_tool_params *p)
{
	return (ffu_params){.wg = p->wg, .lanes = p->lanes, .vector_width = p->vector_width, .limb_bits = p->limb_bits};
}

int ffu_tool_program_is_spmd(const ffu_program *p)
{
	return p && ffu__module_is_spmd(p->m);
}

ffu_status ffu_tool_executable_create(ffu_executable **x, ffu_device *d, const ffu_program *p,
				      const ffu_tool_exec_opts *o, ffu_error *e)
{
	static const ffu_tool_exec_opts none = {0};
	ffu_error_clear(e);
	o = o ? o : &none;
	ffu_compile_opts co = {.no_fuse = o->no_fuse, .fusion_as_asked = o->fusion_as_asked, .verified = true,
			       .disable = o->disable_passes, .file = o->file};
	if (!o->params || !d)
		return ffu__executable_create(x, d, p, &co, "ffu_tool_executable_create", e);
	/* the override decides generation and launch plans, both made at creation; the
	   device's own choices are back for whatever it runs next */
	ffu_params params = ffu__tool_params(o->params);
	ffu_params saved = d->cl.dev.override;
	ffu__cl_set_override(&d->cl, &params);
	ffu_status st = ffu__executable_create(x, d, p, &co, "ffu_tool_executable_create", e);
	ffu__cl_set_override(&d->cl, &saved);
	return st;
}

ffu_status ffu_tool_device_ids(const char *selector, ffu_tool_device_id **ids, int *n, ffu_error *e)
{
	ffu_error_clear(e);
	*ids = NULL;
	*n = 0;
	ffu_device_info *list = NULL;
	int count = 0;
	ffu_status st = ffu__cl_select_all(&list, &count, selector, e);
	if (st == FFU_STATUS_OK && !(*ids = calloc((size_t)count + 1, sizeof **ids)))
		st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	for (int i = 0; st == FFU_STATUS_OK && i < count; i++)
		snprintf((*ids)[i].id, sizeof (*ids)[i].id, "%s", list[i].id);
	if (st == FFU_STATUS_OK)
		*n = count;
	free(list);
	return st;
}

void ffu_tool_device_facts_get(const ffu_device *d, ffu_tool_device_facts *f)
{
	memset(f, 0, sizeof *f);
	f->id = f->name = f->platform = f->driver = f->vendor = f->device_vendor = "";
	if (!d)
		return;
	const ffu_device_info *dev = &d->cl.dev;
	f->id = dev->id;
	f->name = dev->name;
	f->platform = dev->platform_name;
	f->driver = dev->driver;
	f->vendor = ffu__vendor_str(dev->vendor_class);
	f->device_vendor = dev->vendor;
	f->is_cpu = (dev->type & CL_DEVICE_TYPE_CPU) != 0;
	f->global_mem = dev->global_mem;
	f->max_alloc = dev->max_alloc;
	f->global_cache = dev->global_cache;
	f->max_wg = dev->max_wg;
	f->max_wi0 = dev->max_work_item_sizes[0];
	f->tuned = dev->tuned.wg || dev->tuned.lanes || dev->tuned.vector_width || dev->tuned.limb_bits;
}

ffu_status ffu_tool_read_file(const char *path, char **data, size_t *len, ffu_error *e)
{
	ffu_error_clear(e);
	return ffu__file_read(path, data, len, e);
}

typedef struct bytes {
	const void *data;
	size_t len;
} bytes;

static ffu_status write_bytes(FILE *f, void *arg, ffu_error *e)
{
	const bytes *b = arg;
	if (b->len && fwrite(b->data, 1, b->len, f) != b->len)
		return ffu__err(e, FFU_STATUS_EIO, "write failed");
	return FFU_STATUS_OK;
}

ffu_status ffu_tool_write_file(const char *path, const void *data, size_t len, ffu_error *e)
{
	ffu_error_clear(e);
	bytes b = {data, len};
	return ffu__file_write_atomic(path, write_bytes, &b, e);
}
