/*
 * src/api/program.c: programs in the public API (include/fieldfuse/fieldfuse.h): parsing,
 * printing, describing inputs and outputs, the one-shot ffu_program_run and the reference
 * interpreter. Owned by the API layer (see api.h for the other files).
 *
 * Ownership: an ffu_program owns its verified module (unfused, exactly as parsed or built),
 * the module's canonical text, and the ffu_array_info tables that describe its inputs and
 * outputs (names point into the module's arena). A run owns everything it creates (a
 * private module copy, the executor, the downloaded values) and frees it before returning.
 *
 * Nothing here mutates a program after it is made, which is what makes sharing one across
 * threads safe: runs and executables compile a copy (ffu__module_clone, which only reads the
 * source) instead of running the passes on the program's own module.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "hlo/hlo.h"
#include "interp/interp.h"
#include "ir/value.h"
#include "runtime/compile.h"
#include "util/strbuf.h"

#ifndef FFU_VERSION
#define FFU_VERSION "unknown"
#endif

_Static_assert((int)FFU_ARRAY_MAX_RANK == (int)FFU_MAX_RANK, "public rank limit must match the IR's");

const char *ffu_version(void)
{
	return FFU_VERSION;
}

/* ---------------------------------------------------------------- programs */

ffu_status ffu__api_describe(ffu_array_info *info, const char *name, const ffu_shape *s, const char *what, int i,
			     ffu_error *e)
{
	const ffu_field *f = ffu__shape_field(s);
	if (!f || !ffu__shape_is_array(s))
		return ffu__err(e, FFU_STATUS_EUNSUPPORTED, "%s %d (%s) is not an array of field elements", what, i,
				name);
	memset(info, 0, sizeof *info);
	info->name = name;
	info->type = f->name;
	info->rank = s->rank;
	size_t count = 1;
	for (int d = 0; d < s->rank; d++) {
		info->dims[d] = s->dims[d];
		/* the verifier bounds shapes, but the byte count must fit size_t on 32-bit hosts too
		   (after a zero dimension the count stays 0: nothing to bound, nothing to divide by) */
		if (s->dims[d] < 0 ||
		    (s->dims[d] > 0 && count > 0 && (uint64_t)s->dims[d] > SIZE_MAX / f->storage_bytes / count))
			return ffu__err(e, FFU_STATUS_ELIMIT, "%s %d (%s) is too large for host memory", what, i, name);
		count *= (size_t)s->dims[d];
	}
	info->count = count;
	info->elem_bytes = f->storage_bytes;
	info->bytes = count * f->storage_bytes;
	info->nnz = -1;
	if (s->csr) { /* ZKX's CSR bytes (ir/csr.c) */
		info->nnz = s->nnz;
		if ((info->bytes = ffu__csr_bytes(s)) == SIZE_MAX)
			return ffu__err(e, FFU_STATUS_ELIMIT, "%s %d (%s) is too large for host memory", what, i, name);
	}
	return FFU_STATUS_OK;
}

ffu_status ffu__api_shape(ffu_shape *out, const char *type, int rank, const int64_t *dims, const char *call,
			  ffu_error *e)
{
	memset(out, 0, sizeof *out);
	ffu_type t = type ? ffu__type_by_name(type, strlen(type)) : FFU_TYPE_INVALID;
	if (t == FFU_TYPE_INVALID)
		return ffu__err(e, FFU_STATUS_EINVAL, "%s: unknown element type '%s'", call, type ? type : "(null)");
	if (rank < 0 || rank > FFU_MAX_RANK)
		return ffu__err(e, FFU_STATUS_EINVAL, "%s: rank %d is outside 0..%d", call, rank, FFU_MAX_RANK);
	if (rank > 0 && !dims)
		return ffu__err(e, FFU_STATUS_EINVAL, "%s: dims is NULL for rank %d", call, rank);
	out->type = t;
	out->rank = rank;
	int64_t count = 1;
	for (int d = 0; d < rank; d++) {
		if (dims[d] < 0)
			return ffu__err(e, FFU_STATUS_EINVAL, "%s: dimension %d is negative (%lld)", call, d,
					(long long)dims[d]);
		if (dims[d] > 0 && count > INT64_MAX / dims[d])
			return ffu__err(e, FFU_STATUS_EINVAL, "%s: shape has more than 2^63 elements", call);
		count *= dims[d];
		out->dims[d] = dims[d];
	}
	return FFU_STATUS_OK;
}

const ffu_shape *ffu__program_shape(const ffu_program *p, bool input, int k)
{
	const ffu_computation *entry = p->m->entry;
	const ffu_shape *root = &entry->root->shape;
	if (input)
		return k >= 0 && k < entry->n_params ? &entry->params[k]->shape : NULL;
	if (root->type != FFU_TYPE_TUPLE)
		return k == 0 ? root : NULL;
	return k >= 0 && k < root->n_elems ? &root->elems[k] : NULL;
}

ffu_status ffu__program_wrap(const ffu_program *p, bool input, int first, int n, const void *const *data,
			     ffu_value *vals, ffu_error *e)
{
	const char *what = input ? "input" : "output";
	for (int k = 0; k < n; k++) {
		const ffu_shape *s = ffu__program_shape(p, input, first + k);
		if (!s)
			return ffu__err(e, FFU_STATUS_EINVAL, "no %s %d", what, first + k);
		const size_t bytes = (input ? p->inputs : p->outputs)[first + k].bytes;
		if (bytes && !data[k])
			return ffu__err(e, FFU_STATUS_EINVAL, "%s %d is NULL", what, first + k);
		vals[k] = (ffu_value){.shape = *s, .data = (unsigned char *)data[k], .bytes = bytes};
	}
	return FFU_STATUS_OK;
}

/* Fills the input and output tables from the entry computation's parameters and ROOT. */
static ffu_status describe_all(ffu_program *p, ffu_error *e)
{
	const ffu_computation *entry = p->m->entry;
	const ffu_inst *root = entry->root;
	bool tuple = root->shape.type == FFU_TYPE_TUPLE;
	p->n_inputs = entry->n_params;
	p->n_outputs = tuple ? root->shape.n_elems : 1;
	p->inputs = calloc((size_t)p->n_inputs + 1, sizeof *p->inputs);
	p->outputs = calloc((size_t)p->n_outputs + 1, sizeof *p->outputs);
	if (!p->inputs || !p->outputs)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	ffu_status st = FFU_STATUS_OK;
	for (int i = 0; i < p->n_inputs && st == FFU_STATUS_OK; i++)
		st = ffu__api_describe(&p->inputs[i], entry->params[i]->name, &entry->params[i]->shape, "input", i, e);
	for (int i = 0; i < p->n_outputs && st == FFU_STATUS_OK; i++) {
		/* a tuple ROOT's outputs are named after its operands, which is what users wrote */
		const char *name = !tuple ? root->name : root->op == FFU_OP_TUPLE ? root->operands[i]->name : root->name;
		st = ffu__api_describe(&p->outputs[i], name, tuple ? &root->shape.elems[i] : &root->shape, "output", i, e);
	}
	return st;
}

ffu_status ffu__program_from_module(ffu_program **out, ffu_module *m, const char *file, ffu_error *e)
{
	ffu_strbuf sb = {0};
	ffu_status st = FFU_STATUS_OK;
	*out = NULL;
	ffu_program *p = calloc(1, sizeof *p);
	if (!p) {
		ffu__module_free(m);
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	}
	p->m = m;
	if ((st = ffu__module_verify(p->m, file, e)) || (st = describe_all(p, e)) || (st = ffu__hlo_print(&sb, p->m, e)) ||
	    (st = ffu__sb_status(&sb, e)))
		goto out;
	p->text_len = sb.len;
	p->text = strdup(ffu__sb_cstr(&sb));
	if (!p->text) {
		st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
		goto out;
	}
	*out = p;
	p = NULL;
out:
	ffu__sb_free(&sb);
	ffu_program_destroy(&p);
	return st;
}

const char *ffu_dialect_name(ffu_dialect d)
{
	switch (d) {
	case FFU_DIALECT_AUTO: return "auto";
	case FFU_DIALECT_FIELDFUSE: return "fieldfuse";
	case FFU_DIALECT_ZKX_2026_01: return "zkx-2026.01";
	}
	return NULL;
}

ffu_status ffu_program_parse(ffu_program **out, const char *text, size_t len, const char *name, ffu_error *e)
{
	return ffu_program_parse_with(out, text, len, name, NULL, e);
}

ffu_status ffu_program_parse_with(ffu_program **out, const char *text, size_t len, const char *name,
				  ffu_parse_options *o, ffu_error *e)
{
	ffu_error_clear(e);
	if (!out)
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu_program_parse: out is NULL");
	*out = NULL;
	if (!text && len)
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu_program_parse: text is NULL");
	const char *file = name && name[0] ? name : "<input>";
	ffu_module *m = NULL;
	ffu_status st = ffu__hlo_parse_with(&m, text ? text : "", len, file, o, e);
	if (st)
		return st;
	return ffu__program_from_module(out, m, file, e);
}

ffu_status ffu_program_print(char **out_text, const ffu_program *p, ffu_error *e)
{
	ffu_error_clear(e);
	if (!out_text)
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu_program_print: out_text is NULL");
	*out_text = NULL;
	if (!p)
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu_program_print: program is NULL");
	*out_text = strdup(p->text);
	return *out_text ? FFU_STATUS_OK : ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
}

void ffu_program_destroy(ffu_program **pp)
{
	if (!pp || !*pp)
		return;
	ffu_program *p = *pp;
	ffu__module_free(p->m);
	free(p->text);
	free(p->inputs);
	free(p->outputs);
	free(p);
	*pp = NULL;
}

const char *ffu_program_name(const ffu_program *p)
{
	return p && p->m->name ? p->m->name : "";
}

int ffu_program_num_inputs(const ffu_program *p)
{
	return p ? p->n_inputs : 0;
}

int ffu_program_num_outputs(const ffu_program *p)
{
	return p ? p->n_outputs : 0;
}

ffu_status ffu_program_input(const ffu_program *p, int i, ffu_array_info *info)
{
	if (!p || !info || i < 0 || i >= p->n_inputs)
		return FFU_STATUS_EINVAL;
	*info = p->inputs[i];
	return FFU_STATUS_OK;
}

ffu_status ffu_program_output(const ffu_program *p, int i, ffu_array_info *info)
{
	if (!p || !info || i < 0 || i >= p->n_outputs)
		return FFU_STATUS_EINVAL;
	*info = p->outputs[i];
	return FFU_STATUS_OK;
}

/* ---------------------------------------------------------------- running */

/*
 * Wraps the caller's input buffers as values after checking every element is canonical
 * (a CSR matrix: its row pointers and columns too).
 * The values borrow the caller's memory rather than copying it (a 2^24-element bn254 input
 * is 512 MiB): the executor and the interpreter only read their inputs, so the const cast
 * is never written through. in[i].data must therefore not be freed.
 */
static ffu_status wrap_inputs(const ffu_program *p, const void *const *inputs, ffu_value *in, ffu_error *e)
{
	static unsigned char empty[1];
	if (p->n_inputs && !inputs)
		return ffu__err(e, FFU_STATUS_EINVAL, "inputs is NULL but the program has %d inputs", p->n_inputs);
	for (int i = 0; i < p->n_inputs; i++) {
		const ffu_array_info *info = &p->inputs[i];
		const ffu_shape *s = &p->m->entry->params[i]->shape;
		const ffu_field *f = ffu__shape_field(s); /* u32/u64 inputs: every bit pattern is canonical */
		if (!inputs[i] && info->bytes)
			return ffu__err(e, FFU_STATUS_EINVAL, "input %d (%s) is NULL", i, info->name);
		const unsigned char *data = inputs[i] ? inputs[i] : empty;
		char why[320];
		if (s->csr && !ffu__csr_check(s, data, info->bytes, why, sizeof why))
			return ffu__err(e, FFU_STATUS_EINVAL, "input %d (%s) is not a CSR matrix as ZKX stores it: %s", i,
					info->name, why);
		for (size_t k = 0; k < info->count && !s->csr; k++)
			if (!ffu__fp_canonical(f, data + k * info->elem_bytes))
				return ffu__err(e, FFU_STATUS_EINVAL,
						"input %d (%s) element %zu is not less than the %s modulus", i,
						info->name, k, info->type);
		in[i].shape = *s;
		in[i].data = (unsigned char *)data;
		in[i].bytes = info->bytes;
	}
	return FFU_STATUS_OK;
}

static ffu_status check_outputs(const ffu_program *p, void *const *outputs, ffu_error *e)
{
	if (p->n_outputs && !outputs)
		return ffu__err(e, FFU_STATUS_EINVAL, "outputs is NULL but the program has %d outputs", p->n_outputs);
	for (int i = 0; i < p->n_outputs; i++)
		if (!outputs[i] && p->outputs[i].bytes)
			return ffu__err(e, FFU_STATUS_EINVAL, "output %d (%s) is NULL", i, p->outputs[i].name);
	return FFU_STATUS_OK;
}

ffu_status ffu__program_copy_outputs(const ffu_program *p, const ffu_value *vals, int n, void *const *outputs,
				     ffu_error *e)
{
	if (n != p->n_outputs)
		return ffu__err(e, FFU_STATUS_EINVAL, "internal: %d outputs computed, program has %d", n, p->n_outputs);
	for (int i = 0; i < n; i++) {
		if (vals[i].bytes != p->outputs[i].bytes)
			return ffu__err(e, FFU_STATUS_EINVAL, "internal: output %d has %zu bytes, expected %zu", i,
					vals[i].bytes, p->outputs[i].bytes);
		if (vals[i].bytes)
			memcpy(outputs[i], vals[i].data, vals[i].bytes);
	}
	return FFU_STATUS_OK;
}

ffu_status ffu_program_run(ffu_device *d, const ffu_program *p, ffu_run_options *o, const void *const *inputs,
			   void *const *outputs, ffu_error *e)
{
	ffu_error_clear(e);
	if (!d || !p)
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu_program_run: %s is NULL", !d ? "device" : "program");
	ffu_module *m = NULL;
	ffu_exec *x = NULL;
	ffu_value *outs = NULL;
	int n_outs = 0;
	double ms = 0;
	ffu_status st = FFU_STATUS_OK;
	/* borrowed buffers: freed with free(), never ffu__value_free (see wrap_inputs) */
	ffu_value *in = calloc((size_t)p->n_inputs + 1, sizeof *in);
	if (!in) {
		st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
		goto out;
	}
	if ((st = wrap_inputs(p, inputs, in, e)) || (st = check_outputs(p, outputs, e)))
		goto out;
	ffu_compile_opts co = {.no_fuse = o && o->no_fuse, .verified = true};
	if (!(m = ffu__module_clone(p->m))) {
		st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
		goto out;
	}
	if ((st = ffu__compile(&x, &d->cl, m, &co, e)) ||
	    (st = ffu__exec_upload(x, in, p->n_inputs, e)) || (st = ffu__exec_run(x, &ms, NULL, e)) ||
	    (st = ffu__exec_download(x, &outs, &n_outs, e)) || (st = ffu__program_copy_outputs(p, outs, n_outs, outputs, e)))
		goto out;
	if (o) {
		o->kernel_ms = ms;
		o->kernels = ffu__exec_kernel_count(x);
	}
out:
	ffu__exec_destroy(&x);
	ffu__module_free(m);
	ffu__values_free(outs, n_outs);
	free(in);
	return st;
}

ffu_status ffu_program_interpret(const ffu_program *p, const void *const *inputs, void *const *outputs,
				 ffu_error *e)
{
	ffu_error_clear(e);
	if (!p)
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu_program_interpret: program is NULL");
	ffu_value *outs = NULL;
	int n_outs = 0;
	ffu_status st = FFU_STATUS_OK;
	ffu_value *in = calloc((size_t)p->n_inputs + 1, sizeof *in);
	if (!in) {
		st = ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
		goto out;
	}
	if ((st = wrap_inputs(p, inputs, in, e)) || (st = check_outputs(p, outputs, e)) ||
	    (st = ffu__interp_run(p->m, in, p->n_inputs, &outs, &n_outs, e)))
		goto out;
	st = ffu__program_copy_outputs(p, outs, n_outs, outputs, e);
out:
	ffu__values_free(outs, n_outs);
	free(in);
	return st;
}
