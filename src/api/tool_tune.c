/*
 * src/api/tool_tune.c: what `fieldfuse tune` (tools/cli/cmd_tune.c) needs beyond the public
 * API and the rest of tool.h: the built-in profile it measures against, a device without
 * its earlier tuning entry, the code a candidate's params build (to tell candidates that
 * build the built-in's program apart), and storing the result in the tuning database
 * (device/tuning_db.h). Owned by the API layer.
 */
#include "api/tool.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "codegen/codegen.h"
#include "device/profile.h"
#include "device/tuning_db.h"
#include "util/strbuf.h"

void ffu_tool_tune_builtin(const ffu_device *d, ffu_tool_params *p, char *source, size_t cap)
{
	ffu_profile builtin;
	memset(p, 0, sizeof *p);
	if (source && cap)
		source[0] = '\0';
	if (!d)
		return;
	ffu__profile_builtin(&builtin, &d->cl.dev);
	*p = (ffu_tool_params){.wg = builtin.wg, .lanes = builtin.lanes, .vector_width = builtin.vector_width,
			       .limb_bits = builtin.limb_bits};
	if (source && cap)
		snprintf(source, cap, "%s", builtin.source);
}

void ffu_tool_tune_ignore_entry(ffu_device *d)
{
	if (!d)
		return;
	memset(&d->cl.dev.tuned, 0, sizeof d->cl.dev.tuned);
	ffu__cl_retarget(&d->cl);
}

ffu_status ffu_tool_tune_code(char **text, ffu_device *d, const ffu_program *p, const ffu_tool_params *params,
			      ffu_error *e)
{
	ffu_error_clear(e);
	if (!text || !d || !p)
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu_tool_tune_code: %s is NULL",
				!text ? "text" : !d ? "device" : "program");
	*text = NULL;
	/* the params decide the passes' budget, the generation and the build options, as they
	   do in ffu_tool_executable_create; the device's own choices are back afterwards */
	ffu_params saved = d->cl.dev.override;
	if (params) {
		ffu_params over = ffu__tool_params(params);
		ffu__cl_set_override(&d->cl, &over);
	}
	ffu_compile_opts co = {.fusion_as_asked = true, .verified = true};
	ffu_module *m = ffu__module_clone(p->m);
	ffu_strbuf sb = {0};
	int n_kernels = 0;
	ffu_status st = m ? FFU_STATUS_OK : ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	if (st == FFU_STATUS_OK)
		st = ffu__compile_module(m, &d->cl, &co, e);
	if (st == FFU_STATUS_OK) {
		ffu__sb_printf(&sb, "%s\n", d->cl.target.build_options);
		st = ffu__codegen_program(&sb, m, &d->cl.target, &n_kernels, e);
	}
	if (st == FFU_STATUS_OK)
		st = ffu__sb_status(&sb, e);
	if (st == FFU_STATUS_OK && !(*text = strdup(ffu__sb_cstr(&sb))))
		st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	if (params)
		ffu__cl_set_override(&d->cl, &saved);
	ffu__sb_free(&sb);
	ffu__module_free(m);
	return st;
}

ffu_status ffu_tool_tune_store(const ffu_device *d, const ffu_tool_params *p, const char *record, char **path,
			       ffu_error *e)
{
	ffu_error_clear(e);
	if (path)
		*path = NULL;
	if (!d || !p)
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu_tool_tune_store: %s is NULL", !d ? "device" : "params");
	json_t *tune = NULL;
	if (record) {
		json_error_t je;
		if (!(tune = json_loads(record, 0, &je)))
			return ffu__err(e, FFU_STATUS_EINVAL, "ffu_tool_tune_store: the record is no JSON (line %d: %s)",
					je.line, je.text);
		if (!json_is_object(tune)) {
			json_decref(tune);
			return ffu__err(e, FFU_STATUS_EINVAL, "ffu_tool_tune_store: the record is no JSON object");
		}
	}
	ffu_params params = ffu__tool_params(p);
	ffu_status st = ffu__tuning_store(&d->cl.dev, &params, tune, e);
	json_decref(tune);
	if (st == FFU_STATUS_OK && path)
		st = ffu__tuning_path(path, e);
	return st;
}
