/*
 * src/api/buffer.c: device buffers of the embedding API (executable.h, opencl.h): creating
 * them, wrapping the caller's cl_mem, and uploads and downloads in canonical or Montgomery
 * form. Owned by the API layer.
 *
 * Ownership: an ffu_buffer holds one reference to its cl_mem (its own allocation, or a
 * retained reference to the caller's) and borrows its ffu_device. Transfers go through the
 * device's in-order queue, so they are ordered with the runs enqueued there.
 *
 * Forms: a buffer stores what its type says (a field type canonical integers, a _mont type
 * x * R mod p). Data given or wanted in the other form is converted on the host, element by
 * element (coefficient by coefficient for an extension), with the reference arithmetic of
 * fields/: a conversion is one Montgomery product per element, far cheaper than the copy.
 * A CSR matrix (an input shaped by ffu_buffer_create_input) holds ZKX's CSR bytes: forms
 * apply to its values only, and an upload checks its row pointers and columns too.
 */
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "ocl/ocl.h"

static ffu_status new_buffer(ffu_buffer **out, ffu_device *d, const ffu_shape *s, ffu_error *e)
{
	ffu_buffer *b = calloc(1, sizeof *b);
	if (!b)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory");
	b->dev = d;
	b->shape = *s;
	ffu_status st = ffu__api_describe(&b->info, "", s, "buffer", 0, e);
	if (st) {
		free(b);
		return st;
	}
	*out = b;
	return FFU_STATUS_OK;
}

ffu_status ffu_buffer_create(ffu_buffer **out, ffu_device *d, const char *type, int rank, const int64_t *dims,
			     ffu_error *e)
{
	const char *call = "ffu_buffer_create";
	ffu_error_clear(e);
	if (!out || !d)
		return ffu__err(e, FFU_STATUS_EINVAL, "%s: %s is NULL", call, !out ? "out" : "device");
	*out = NULL;
	ffu_shape s;
	ffu_status st = ffu__api_shape(&s, type, rank, dims, call, e);
	return st ? st : ffu__buffer_create_shape(out, d, &s, e);
}

ffu_status ffu__buffer_create_shape(ffu_buffer **out, ffu_device *d, const ffu_shape *s, ffu_error *e)
{
	ffu_buffer *b = NULL;
	ffu_status st;
	if (!out)
		return ffu__err(e, FFU_STATUS_EINVAL, "out is NULL");
	*out = NULL;
	if ((st = new_buffer(&b, d, s, e)))
		return st;
	if ((st = ffu__cl_buffer(&d->cl, &b->mem, b->info.bytes, e))) {
		ffu_buffer_destroy(&b);
		return st;
	}
	*out = b;
	return FFU_STATUS_OK;
}

ffu_status ffu_buffer_wrap_cl(ffu_buffer **out, ffu_device *d, cl_mem mem, const char *type, int rank,
			      const int64_t *dims, ffu_error *e)
{
	const char *call = "ffu_buffer_wrap_cl";
	ffu_error_clear(e);
	if (!out || !d || !mem)
		return ffu__err(e, FFU_STATUS_EINVAL, "%s: %s is NULL", call, !out ? "out" : !d ? "device" : "mem");
	*out = NULL;
	ffu_shape s;
	ffu_buffer *b = NULL;
	ffu_status st;
	if ((st = ffu__api_shape(&s, type, rank, dims, call, e)))
		return st;
	cl_context ctx = NULL;
	size_t size = 0;
	cl_int err = FFU_CL(clGetMemObjectInfo, mem, CL_MEM_CONTEXT, sizeof ctx, &ctx, NULL);
	if (err == CL_SUCCESS)
		err = FFU_CL(clGetMemObjectInfo, mem, CL_MEM_SIZE, sizeof size, &size, NULL);
	if (err != CL_SUCCESS)
		return ffu__err_cl(e, "clGetMemObjectInfo", err, "%s: the caller's memory object", call);
	if (ctx != d->cl.ctx)
		return ffu__err(e, FFU_STATUS_EINVAL,
				"%s: the memory object belongs to another OpenCL context than device %s (%s); "
				"create it in ffu_device_cl_context(d), or adopt its context with ffu_device_adopt",
				call, d->cl.dev.id, d->cl.dev.name);
	if ((st = new_buffer(&b, d, &s, e)))
		return st;
	if (size < b->info.bytes) {
		char want[160];
		ffu__shape_format(&s, want, sizeof want);
		st = ffu__err(e, FFU_STATUS_EINVAL, "%s: the memory object holds %zu bytes; %s needs %zu", call, size, want,
			      b->info.bytes);
		ffu_buffer_destroy(&b);
		return st;
	}
	err = FFU_CL(clRetainMemObject, mem);
	if (err != CL_SUCCESS) {
		ffu_buffer_destroy(&b);
		return ffu__err_cl(e, "clRetainMemObject", err, "%s", call);
	}
	b->mem = mem;
	*out = b;
	return FFU_STATUS_OK;
}

void ffu_buffer_destroy(ffu_buffer **bp)
{
	if (!bp || !*bp)
		return;
	ffu__cl_buffer_release(&(*bp)->mem);
	free(*bp);
	*bp = NULL;
}

ffu_status ffu_buffer_info(const ffu_buffer *b, ffu_array_info *info)
{
	if (!b || !info)
		return FFU_STATUS_EINVAL;
	*info = b->info;
	return FFU_STATUS_OK;
}

cl_mem ffu_buffer_cl_mem(const ffu_buffer *b)
{
	return b ? b->mem : NULL;
}

/* ---------------------------------------------------------------- forms */

/*
 * The descriptors of the two forms of a buffer's elements (for an extension: of one
 * coefficient) and how many such units an element has. *stored is the form the buffer
 * holds, *other the other one. EINVAL for integer and pred types (no Montgomery form),
 * EUNSUPPORTED for a field without a _mont twin.
 */
static ffu_status forms(const ffu_buffer *b, const char *call, const ffu_field **stored, const ffu_field **other,
			int *units, ffu_error *e)
{
	const ffu_field *f = ffu__shape_field(&b->shape);
	if (f->kind == FFU_ELEM_UINT || f->kind == FFU_ELEM_PRED)
		return ffu__err(e, FFU_STATUS_EINVAL, "%s: %s values have no Montgomery form", call, f->name);
	const ffu_field *prime = f->prime;
	const ffu_field *mont = ffu__field_get((ffu_field_id)(prime->id + FFU_FIELD_COUNT));
	if (!mont || mont->kind != FFU_ELEM_MONT || !ffu__fp_convert_ok(mont, prime) || !ffu__fp_convert_ok(prime, mont))
		return ffu__err(e, FFU_STATUS_EUNSUPPORTED, "%s: %s has no Montgomery form", call, f->name);
	bool is_mont = ffu__field_is_mont(f);
	*stored = is_mont ? mont : prime;
	*other = is_mont ? prime : mont;
	*units = f->kind == FFU_ELEM_EXT ? f->degree : 1;
	return FFU_STATUS_OK;
}

/* Is `form` the one b stores? (integer types store their only form) */
static bool stored_form(const ffu_buffer *b, ffu_form form)
{
	const ffu_field *f = ffu__shape_field(&b->shape);
	return form == (ffu__field_is_mont(f) ? FFU_FORM_MONTGOMERY : FFU_FORM_CANONICAL);
}

static ffu_status check_transfer(const ffu_buffer *b, const void *host, size_t bytes, ffu_form form,
				 const char *call, ffu_error *e)
{
	if (!b)
		return ffu__err(e, FFU_STATUS_EINVAL, "%s: buffer is NULL", call);
	if (form != FFU_FORM_CANONICAL && form != FFU_FORM_MONTGOMERY)
		return ffu__err(e, FFU_STATUS_EINVAL, "%s: form %d is neither FFU_FORM_CANONICAL nor FFU_FORM_MONTGOMERY",
				call, (int)form);
	if (bytes != b->info.bytes) {
		char s[160];
		ffu__shape_format(&b->shape, s, sizeof s);
		return ffu__err(e, FFU_STATUS_EINVAL, "%s: %zu bytes given; the buffer (%s) holds %zu", call, bytes, s,
				b->info.bytes);
	}
	if (!host && bytes)
		return ffu__err(e, FFU_STATUS_EINVAL, "%s: host pointer is NULL", call);
	return FFU_STATUS_OK;
}

/* Where b's field elements are and how many: all of it, or a CSR matrix's values (ir/csr.c),
   whose row pointers and columns no form changes. */
static size_t values_at(const ffu_buffer *b, size_t *count)
{
	*count = b->shape.csr ? (size_t)b->shape.nnz : b->info.count;
	return b->shape.csr ? ffu__csr_values_offset(&b->shape) : 0;
}

/* A CSR matrix's bytes in the form b stores, checked whole (EINVAL naming what is wrong). */
static ffu_status check_csr(const ffu_buffer *b, const unsigned char *data, const char *call, ffu_error *e)
{
	char why[320];
	if (!ffu__csr_check(&b->shape, data, b->info.bytes, why, sizeof why))
		return ffu__err(e, FFU_STATUS_EINVAL, "%s: not a CSR matrix as ZKX stores it: %s", call, why);
	return FFU_STATUS_OK;
}

ffu_status ffu_buffer_upload(ffu_buffer *b, const void *host, size_t bytes, ffu_form form, ffu_error *e)
{
	const char *call = "ffu_buffer_upload";
	ffu_error_clear(e);
	ffu_status st = check_transfer(b, host, bytes, form, call, e);
	if (st)
		return st;
	const ffu_field *f = ffu__shape_field(&b->shape);
	const unsigned char *src = host;
	size_t eb = b->info.elem_bytes, count, at = values_at(b, &count);
	if (stored_form(b, form)) {
		/* every element a valid value of the type: never reduced silently (HLO.md section 1) */
		if (b->shape.csr && (st = check_csr(b, src, call, e)))
			return st;
		for (size_t k = 0; k < count && !b->shape.csr; k++)
			if (!ffu__fp_canonical(f, src + k * eb))
				return ffu__err(e, FFU_STATUS_EINVAL, "%s: element %zu is not a valid %s value (not less than p)",
						call, k, f->name);
		return ffu__cl_write(&b->dev->cl, b->mem, host, bytes, e);
	}
	const ffu_field *stored, *given;
	int units;
	if ((st = forms(b, call, &stored, &given, &units, e)))
		return st;
	unsigned char *tmp = malloc(bytes ? bytes : 1);
	if (!tmp)
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory converting %zu bytes", bytes);
	memcpy(tmp, src, at); /* a CSR matrix's row pointers and columns */
	size_t cb = given->storage_bytes, n = count * (size_t)units;
	for (size_t k = 0; k < n && st == FFU_STATUS_OK; k++) {
		if (!ffu__fp_canonical(given, src + at + k * cb))
			st = ffu__err(e, FFU_STATUS_EINVAL, "%s: element %zu is not a valid %s value in %s form (not less than p)",
				      call, k / (size_t)units, f->name, form == FFU_FORM_MONTGOMERY ? "Montgomery" : "canonical");
		else
			ffu__fp_convert(stored, tmp + at + k * cb, given, src + at + k * cb);
	}
	if (st == FFU_STATUS_OK && b->shape.csr)
		st = check_csr(b, tmp, call, e);
	if (st == FFU_STATUS_OK)
		st = ffu__cl_write(&b->dev->cl, b->mem, tmp, bytes, e);
	free(tmp);
	return st;
}

ffu_status ffu_buffer_download(const ffu_buffer *b, void *host, size_t bytes, ffu_form form, ffu_error *e)
{
	const char *call = "ffu_buffer_download";
	ffu_error_clear(e);
	ffu_status st = check_transfer(b, host, bytes, form, call, e);
	if (st)
		return st;
	const ffu_field *stored = NULL, *wanted = NULL;
	int units = 1;
	/* refuse an impossible form before the read, not after it */
	if (!stored_form(b, form) && (st = forms(b, call, &stored, &wanted, &units, e)))
		return st;
	if ((st = ffu__cl_read(&b->dev->cl, b->mem, host, bytes, e)) || !wanted)
		return st;
	unsigned char one[FFU_FIELD_MAX_BYTES];
	size_t count, at = values_at(b, &count), cb = stored->storage_bytes, n = count * (size_t)units;
	unsigned char *p = (unsigned char *)host + at;
	for (size_t k = 0; k < n; k++) {
		ffu__fp_convert(wanted, one, stored, p + k * cb);
		memcpy(p + k * cb, one, cb);
	}
	return FFU_STATUS_OK;
}
