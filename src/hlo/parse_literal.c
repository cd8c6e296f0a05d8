/*
 * src/hlo/parse_literal.c: the literal of `constant(...)` (docs/hlo.md "Literals"). Owned by
 * the HLO front end.
 */
#include "hlo/parse.h"

#include <string.h>

#include "point.h"

/* --- literals --- */

/*
 * One element of a constant, stored at position index of the literal scratch buffer: the
 * only place that knows how an element is spelled, so a new element syntax (extension-field
 * coefficient lists) is added here and nowhere else. Integers are decimal or 0x hex and
 * canonical (< p); a pred is also `true`/`false`, as XLA prints them.
 */
/*
 * One number of prime field (or integer type) f into out: a word, or a string holding one
 * (`"21888..."`), as ZKX spells big field constants. It is f's storage integer (raw
 * Montgomery for a _mont type), except in dialect zkx-2026.01, where it is canonical.
 */
static ffu_status parse_coeff(parser *p, const ffu_field *f, unsigned char *out)
{
	const ffu_token *t = &p->tok;
	const char *text = t->text;
	size_t len = t->len;
	if (t->kind == FFU_TOK_STRING && len >= 2) {
		text++;
		len -= 2;
	} else if (t->kind != FFU_TOK_WORD || t->percent) {
		return ffu__hp_unexpected(p, "a number");
	}
	if (len && text[0] == '-' && !f->is_signed)
		return PERR(t, "negative literal '" TOKFMT "': %s %s", TOKARG(t), f->name,
			    f->kind == FFU_ELEM_UINT ? "is unsigned" : "elements are 0..p-1");
	const char *why = "not a number";
	/* ZKX reads every literal as a canonical number and stores it in the type's form. */
	bool convert = p->plain_is_mont && f->kind == FFU_ELEM_MONT;
	if (ffu__fp_parse(convert ? f->prime : f, out, text, len, &why) != FFU_STATUS_OK)
		return PERR(t, "bad %s literal '" TOKFMT "': %s", f->name, TOKARG(t), why ? why : "invalid");
	if (convert)
		ffu__fp_convert(f, out, f->prime, out);
	ffu__hp_advance(p);
	return FFU_STATUS_OK;
}

/* An extension element: `(c0, c1, ...)`, exactly degree coefficients, lowest degree first. */
static ffu_status parse_ext_elem(parser *p, const ffu_field *f, unsigned char *out)
{
	ffu_token open = p->tok;
	ffu_status st = ffu__hp_expect(p, FFU_TOK_LPAREN, "'(' opening an extension element (c0, c1, ...)");
	for (int k = 0; st == FFU_STATUS_OK && k < f->degree; k++) {
		if (k)
			st = ffu__hp_expect(p, FFU_TOK_COMMA, "',' between the coefficients");
		if (st == FFU_STATUS_OK)
			st = parse_coeff(p, f->coef, out + (size_t)k * f->coef->storage_bytes);
	}
	if (st == FFU_STATUS_OK && p->tok.kind != FFU_TOK_RPAREN)
		return PERR(&open, "a %s element has exactly %d coefficients", f->name, f->degree);
	return st ? st : ffu__hp_expect(p, FFU_TOK_RPAREN, "')' closing the extension element");
}

/* A point: `(x, y)`, `(x, y, z)` or `(x, y, zz, zzz)`, each coordinate a number or, over
   Fq2, `(c0, c1)`; or a string `"k"`: k times the curve's generator, as ZKX writes them. */
static ffu_status parse_point_elem(parser *p, const ffu_field *f, unsigned char *out)
{
	ffu_token open = p->tok;
	const ffu_field *c = f->coef;
	if (open.kind == FFU_TOK_STRING) {
		const ffu_field *sf = f->curve->scalar;
		unsigned char k[FFU_FIELD_MAX_BYTES];
		const char *why = "not a number";
		if (open.len < 2 || ffu__fp_parse(sf, k, open.text + 1, open.len - 2, &why) != FFU_STATUS_OK)
			return PERR(&open, "bad %s literal " TOKFMT ": a string is k, the point k * G, with k a %s number (%s)",
				    f->name, TOKARG(&open), sf->name, why ? why : "invalid");
		ffu__point_gen_mul(f, out, sf, k);
		ffu__hp_advance(p);
		return FFU_STATUS_OK;
	}
	ffu_status st = ffu__hp_expect(p, FFU_TOK_LPAREN, "'(' opening a point (x, y, ...) or a string \"k\" (k * G)");
	for (int k = 0; st == FFU_STATUS_OK && k < f->ncoords; k++) {
		if (k)
			st = ffu__hp_expect(p, FFU_TOK_COMMA, "',' between the coordinates");
		if (st == FFU_STATUS_OK)
			st = c->kind == FFU_ELEM_EXT ? parse_ext_elem(p, c, out + (size_t)k * c->storage_bytes)
						     : parse_coeff(p, c, out + (size_t)k * c->storage_bytes);
	}
	if (st == FFU_STATUS_OK && p->tok.kind != FFU_TOK_RPAREN)
		return PERR(&open, "a %s point has exactly %d coordinates", f->name, f->ncoords);
	if (st == FFU_STATUS_OK && !ffu__fp_canonical(f, out))
		return PERR(&open, "the %s literal is not a point of the curve", f->name);
	return st ? st : ffu__hp_expect(p, FFU_TOK_RPAREN, "')' closing the point");
}

static ffu_status parse_elem(parser *p, const ffu_field *f, size_t index)
{
	const ffu_token *t = &p->tok;
	bool string_number = t->kind == FFU_TOK_STRING && f->kind != FFU_ELEM_PRED; /* parse_coeff's */
	if (f->kind != FFU_ELEM_EXT && f->kind != FFU_ELEM_POINT && !string_number &&
	    (t->kind != FFU_TOK_WORD || t->percent))
		return ffu__hp_unexpected(p, f->kind == FFU_ELEM_PRED ? "true, false, 0 or 1" : "a number");
	if (!ffu__hp_grow((void **)&p->lit, &p->lit_cap, (index + 1) * f->storage_bytes, 1))
		return ffu__hp_oom(p);
	unsigned char *out = p->lit + index * f->storage_bytes;
	if (f->kind == FFU_ELEM_PRED) {
		if (ffu__tok_is(t, "true") || ffu__tok_is(t, "false")) {
			*out = t->text[0] == 't';
			ffu__hp_advance(p);
			return FFU_STATUS_OK;
		}
		const char *why = NULL;
		if (ffu__fp_parse(f, out, t->text, t->len, &why) != FFU_STATUS_OK)
			return PERR(t, "bad pred literal '" TOKFMT "': a pred is true, false, 0 or 1", TOKARG(t));
		ffu__hp_advance(p);
		return FFU_STATUS_OK;
	}
	if (f->kind == FFU_ELEM_EXT)
		return parse_ext_elem(p, f, out);
	if (f->kind == FFU_ELEM_POINT)
		return parse_point_elem(p, f, out);
	return parse_coeff(p, f, out);
}

/*
 * A scalar, or `{...}` nested once per dimension, row-major. Iterative (the nesting depth is
 * the rank, at most FFU_MAX_RANK); each (sub)array must hold exactly its dimension's count.
 */
ffu_status ffu__hp_literal(parser *p, const ffu_shape *s, unsigned char **out)
{
	char sbuf[128];
	if (!ffu__shape_is_array(s))
		return PERR(&p->tok, "constant needs an array shape");
	const ffu_field *f = ffu__shape_field(s);
	if (!f)
		return PERR(&p->tok, "constants of type %s are not supported", ffu__type_name(s->type));
	size_t n = 0;
	if (s->rank == 0) {
		TRY(parse_elem(p, f, 0));
		n = 1;
	} else {
		int64_t cnt[FFU_MAX_RANK] = {0};
		int depth = 0;
		ffu__shape_format(s, sbuf, sizeof sbuf);
		if (p->tok.kind != FFU_TOK_LBRACE)
			return ffu__hp_unexpected(p, "'{' to start an array literal");
		for (;;) {
			if (p->tok.kind == FFU_TOK_LBRACE) {
				if (depth == s->rank)
					return ffu__hp_unexpected(p, "a number");
				if (depth > 0 && cnt[depth - 1] >= s->dims[depth - 1])
					return PERR(&p->tok, "array literal has more than %lld elements in dimension %d of %s",
						    (long long)s->dims[depth - 1], depth - 1, sbuf);
				cnt[depth++] = 0;
				ffu__hp_advance(p);
				continue;
			}
			if (p->tok.kind == FFU_TOK_RBRACE) {
				if (cnt[depth - 1] != s->dims[depth - 1])
					return PERR(&p->tok, "array literal has %lld elements in dimension %d, %s needs %lld",
						    (long long)cnt[depth - 1], depth - 1, sbuf,
						    (long long)s->dims[depth - 1]);
				ffu__hp_advance(p);
				if (--depth == 0)
					break;
				cnt[depth - 1]++;
			} else {
				if (depth != s->rank)
					return ffu__hp_unexpected(p, "'{'");
				if (cnt[depth - 1] >= s->dims[depth - 1])
					return PERR(&p->tok, "array literal has more than %lld elements in dimension %d of %s",
						    (long long)s->dims[depth - 1], depth - 1, sbuf);
				TRY(parse_elem(p, f, n));
				n++;
				cnt[depth - 1]++;
			}
			if (p->tok.kind == FFU_TOK_COMMA) {
				ffu__hp_advance(p);
				if (p->tok.kind == FFU_TOK_RBRACE)
					return ffu__hp_unexpected(p, "a value after ','");
			} else if (p->tok.kind != FFU_TOK_RBRACE) {
				return ffu__hp_unexpected(p, "',' or '}'");
			}
		}
	}
	size_t bytes = n * f->storage_bytes;
	*out = ffu__arena_alloc(&p->m->arena, bytes);
	if (!*out)
		return ffu__hp_oom(p);
	if (bytes)
		memcpy(*out, p->lit, bytes);
	return FFU_STATUS_OK;
}
