/*
 * src/api/tool_values.c: the tools' host values (see tool.h): a program's inputs read from
 * value files or drawn at random, its inputs and outputs written to value files, an
 * executable's buffers filled from and read into host arrays, outputs compared as `--check`
 * and bench compare them, and the work a program asks for (bench's rates). The tools hold
 * plain host arrays sized by ffu_array_info; the shapes behind them (a CSR matrix's, a
 * point type's) are the program's, looked up here. Owned by the API layer.
 */
#include "api/tool.h"

#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "fields/field.h"
#include "ir/value.h"

/* Input i's or output i's shape; NULL when i is out of range. */
static const ffu_shape *array_shape(const ffu_program *p, ffu_tool_side side, int i)
{
	return ffu__program_shape(p, side == FFU_TOOL_INPUTS, i);
}

ffu_status ffu_tool_arrays_alloc(void ***data, const ffu_program *p, ffu_tool_side side, ffu_error *e)
{
	ffu_error_clear(e);
	const bool in = side == FFU_TOOL_INPUTS;
	const int n = in ? ffu_program_num_inputs(p) : ffu_program_num_outputs(p);
	if (!(*data = calloc((size_t)n + 1, sizeof **data)))
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	for (int i = 0; i < n; i++) {
		const size_t bytes = (in ? p->inputs : p->outputs)[i].bytes;
		/* zeroed: a baseline or a run that leaves a byte unwritten must not show garbage */
		if (!((*data)[i] = calloc(1, bytes ? bytes : 1)))
			return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory (%zu bytes for %s %d)", bytes,
					in ? "input" : "output", i);
	}
	return FFU_STATUS_OK;
}

void ffu_tool_arrays_free(void **data)
{
	for (int i = 0; data && data[i]; i++)
		free(data[i]);
	free(data);
}

/*
 * Input i's whole shape (what its value file holds: an SPMD program's parameter is one
 * rank's tile of it) into *s, after checking the caller's array is that many bytes; call
 * names the entry point in errors.
 */
static ffu_status whole_input(const ffu_program *p, int i, const void *host, size_t bytes, const char *call,
			      ffu_shape *s, ffu_error *e)
{
	if (!p || !host || !array_shape(p, FFU_TOOL_INPUTS, i))
		return ffu__err(e, FFU_STATUS_EINVAL, "%s: no input %d", call, i);
	ffu_array_info whole;
	ffu_status st = ffu_tool_spmd_input(p, i, &whole, e);
	if (st)
		return st;
	if (bytes != whole.bytes)
		return ffu__err(e, FFU_STATUS_EINVAL, "%s: input %d is %zu bytes, not %zu", call, i, whole.bytes, bytes);
	ffu__param_whole_shape(p->m, i, s);
	return FFU_STATUS_OK;
}

/*
 * An fft's twiddles operand is defined only as the powers of a primitive root (docs/hlo.md):
 * drawn at random it made every transform's result meaningless, and --check report every
 * element. Where input i is one (the second operand of an fft of the entry), *v becomes
 * ZKX's table instead, w^j for FFT or w^-j for IFFT, j < n, in its type's form.
 */
static void twiddles_table(const ffu_program *p, int i, ffu_value *v)
{
	const ffu_computation *c = p->m->entry;
	if (i >= c->n_params)
		return;
	const ffu_inst *par = c->params[i];
	for (int j = 0; j < c->n_insts; j++) {
		const ffu_inst *in = c->insts[j];
		if (in->op != FFU_OP_FFT || in->n_operands < 2 || in->operands[1] != par)
			continue;
		/* the verifier has checked: a T[n] of the fft's field, n its power-of-two length */
		ffu__fp_root_powers(ffu__shape_field(&par->shape), ffu__log2_pow2(in->fft.length), in->fft.inverse,
				    v->data, in->fft.length);
		return;
	}
}

ffu_status ffu_tool_random_input(const ffu_program *p, int i, uint64_t *seed, void *host, size_t bytes,
				 ffu_error *e)
{
	ffu_error_clear(e);
	ffu_shape s;
	ffu_value v = {0};
	ffu_status st = seed ? whole_input(p, i, host, bytes, "ffu_tool_random_input", &s, e)
			     : ffu__err(e, FFU_STATUS_EINVAL, "ffu_tool_random_input: seed is NULL");
	if (st || (st = ffu__value_alloc(&v, &s, e)))
		return st;
	/* every rank of an SPMD program draws the same whole stream, then takes its part */
	ffu__value_random(&v, seed);
	twiddles_table(p, i, &v);
	memcpy(host, v.data, bytes);
	ffu__value_free(&v);
	return FFU_STATUS_OK;
}

ffu_status ffu_tool_read_input(const ffu_program *p, int i, const char *path, void *host, size_t bytes,
			       ffu_error *e)
{
	ffu_error_clear(e);
	ffu_shape s;
	ffu_value v = {0};
	ffu_status st = path ? whole_input(p, i, host, bytes, "ffu_tool_read_input", &s, e)
			     : ffu__err(e, FFU_STATUS_EINVAL, "ffu_tool_read_input: path is NULL");
	if (st || (st = ffu__values_read(&v, path, &s, e)))
		return st;
	if (v.bytes != bytes)
		st = ffu__err(e, FFU_STATUS_EINVAL, "%s: %zu bytes read, input %d takes %zu", path, v.bytes, i, bytes);
	else if (bytes)
		memcpy(host, v.data, bytes);
	ffu__value_free(&v);
	return st;
}

ffu_status ffu_tool_write_values(const char *path, const ffu_program *p, ffu_tool_side side, int first, int n,
				 const void *const *data, ffu_error *e)
{
	ffu_error_clear(e);
	if (!path || !p || n < 0 || (n && !data))
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu_tool_write_values: %s", !path ? "no path" : "no values");
	ffu_value *vals = calloc((size_t)n + 1, sizeof *vals);
	if (!vals)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	ffu_status st = ffu__program_wrap(p, side == FFU_TOOL_INPUTS, first, n, data, vals, e);
	if (st == FFU_STATUS_OK)
		st = ffu__values_write(path, vals, n, e);
	free(vals); /* the data is the caller's */
	return st;
}

/* ---------------------------------------------------------------- an executable's buffers */

void ffu_tool_buffers_free(ffu_tool_buffers *b)
{
	for (int i = 0; b->in && i < b->n_in; i++)
		ffu_buffer_destroy(&b->in[i]);
	for (int o = 0; b->out && o < b->n_out; o++)
		ffu_buffer_destroy(&b->out[o]);
	free(b->in);
	free(b->out);
	*b = (ffu_tool_buffers){0};
}

ffu_status ffu_tool_buffers_make(ffu_tool_buffers *b, const ffu_executable *x, ffu_error *e)
{
	ffu_error_clear(e);
	*b = (ffu_tool_buffers){NULL, NULL, ffu_executable_num_inputs(x), ffu_executable_num_outputs(x)};
	b->in = calloc((size_t)b->n_in + 1, sizeof *b->in);
	b->out = calloc((size_t)b->n_out + 1, sizeof *b->out);
	ffu_status st = b->in && b->out ? FFU_STATUS_OK : ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	for (int i = 0; i < b->n_in && st == FFU_STATUS_OK; i++)
		st = ffu_buffer_create_input(&b->in[i], x, i, e);
	for (int o = 0; o < b->n_out && st == FFU_STATUS_OK; o++)
		st = ffu_buffer_create_output(&b->out[o], x, o, e);
	return st;
}

/* Host arrays to buffers (upload) or back, each in its type's storage form. */
static ffu_status transfer(ffu_buffer **bufs, int n, void *const *host, bool upload, ffu_error *e)
{
	ffu_status st = FFU_STATUS_OK;
	ffu_error_clear(e);
	for (int i = 0; i < n && st == FFU_STATUS_OK; i++) {
		ffu_array_info info;
		if ((st = ffu_buffer_info(bufs[i], &info)) != FFU_STATUS_OK)
			break;
		const ffu_form form = ffu_tool_storage_form(info.type);
		st = upload ? ffu_buffer_upload(bufs[i], host[i], info.bytes, form, e)
			    : ffu_buffer_download(bufs[i], host[i], info.bytes, form, e);
	}
	return st;
}

ffu_status ffu_tool_buffers_upload(ffu_tool_buffers *b, const void *const *inputs, ffu_error *e)
{
	return transfer(b->in, b->n_in, (void *const *)inputs, true, e); /* only read */
}

ffu_status ffu_tool_buffers_run(ffu_executable *x, ffu_tool_buffers *b, ffu_run_stats *stats, ffu_error *e)
{
	return ffu_executable_run(x, (const ffu_buffer *const *)b->in, b->n_in, b->out, b->n_out, stats, e);
}

ffu_status ffu_tool_buffers_download(const ffu_tool_buffers *b, void *const *outputs, ffu_error *e)
{
	return transfer(b->out, b->n_out, outputs, false, e);
}

/* Output k's elements that differ (equal storage, or for points the same group element:
   ffu__fp_eq), the first `show - shown` of them printed as o says; *first the index of the
   first (-1 for none). */
static long long output_diff(const ffu_program *p, int k, const unsigned char *a, const unsigned char *b,
			     const ffu_tool_compare_opts *o, long long shown, long long *first)
{
	const ffu_field *f = ffu__shape_field(array_shape(p, FFU_TOOL_OUTPUTS, k));
	const size_t eb = p->outputs[k].elem_bytes;
	long long bad = 0;
	*first = -1;
	for (long long i = 0; i < (long long)p->outputs[k].count; i++) {
		if (ffu__fp_eq(f, a + i * eb, b + i * eb))
			continue;
		if (bad == 0)
			*first = i;
		if (o && o->report && shown + bad < o->show) {
			char ta[FFU_FIELD_TEXT_MAX], tb[FFU_FIELD_TEXT_MAX];
			fprintf(o->report, "%s: output %d element %lld: %s %s, %s %s\n", o->what, k, i, o->got_name,
				ffu__fp_format(f, ta, a + i * eb), o->want_name, ffu__fp_format(f, tb, b + i * eb));
		}
		bad++;
	}
	return bad;
}

long long ffu_tool_compare(const ffu_program *p, const void *const *got, const void *const *want,
			   const ffu_tool_compare_opts *o, long long *elements)
{
	long long bad = 0, total = 0, first;
	for (int k = 0; p && k < p->n_outputs; k++) {
		total += (long long)p->outputs[k].count;
		bad += output_diff(p, k, got[k], want[k], o, bad, &first);
	}
	if (elements)
		*elements = total;
	return bad;
}

long long ffu_tool_compare_output(const ffu_program *p, int o, const void *got, const void *want, long long *first,
				  char *got_text, char *want_text, size_t cap)
{
	long long bad = 0, at = -1;
	if (p && o >= 0 && o < p->n_outputs)
		bad = output_diff(p, o, got, want, NULL, 0, &at);
	if (first)
		*first = at;
	char text[FFU_FIELD_TEXT_MAX];
	const ffu_field *f = at < 0 ? NULL : ffu__shape_field(array_shape(p, FFU_TOOL_OUTPUTS, o));
	const size_t off = at < 0 ? 0 : (size_t)at * p->outputs[o].elem_bytes;
	if (got_text && cap)
		snprintf(got_text, cap, "%s", f ? ffu__fp_format(f, text, (const unsigned char *)got + off) : "?");
	if (want_text && cap)
		snprintf(want_text, cap, "%s", f ? ffu__fp_format(f, text, (const unsigned char *)want + off) : "?");
	return bad;
}

void ffu_tool_program_work(const ffu_program *p, ffu_tool_work *w)
{
	memset(w, 0, sizeof *w);
	const ffu_computation *entry = p ? p->m->entry : NULL;
	for (int i = 0; entry && i < entry->n_insts; i++) {
		const ffu_inst *in = entry->insts[i];
		if (ffu__ops[in->op].form == FFU_FORM_BILINEAR) /* multiply, square */
			w->products += ffu__shape_count(&in->shape);
		if (in->op == FFU_OP_FFT)
			w->products += ffu__fft_rows(&in->shape) * ffu__log2_pow2(in->fft.length) * (in->fft.length / 2);
		if (in->op == FFU_OP_DOT) { /* a product per stored entry and result column, or per term */
			const ffu_shape *x = &in->operands[0]->shape;
			int64_t k = 1;
			for (int t = 0; t < in->dot.n_contract; t++)
				k *= x->dims[in->dot.lhs_contract[t]];
			w->products += x->csr ? x->nnz * (ffu__shape_count(&in->shape) / (x->dims[0] ? x->dims[0] : 1))
					      : ffu__shape_count(&in->shape) * k;
		}
		if (in->op == FFU_OP_MSM) /* n points: its scalars' element count */
			w->points += ffu__shape_count(&in->operands[0]->shape);
	}
}
