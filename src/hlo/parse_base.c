/*
 * src/hlo/parse_base.c: the parser's error reporting and token helpers (see parse.h).
 * Owned by the HLO front end.
 */
#include "hlo/parse.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ffu_status ffu__hp_err_at(parser *p, ffu_status s, int line, int col, const char *fmt, ...)
{
	char msg[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return ffu__err_at(p->e, s, p->file, line, col, "%s", msg);
}

ffu_status ffu__hp_oom(parser *p)
{
	return ffu__err(p->e, FFU_STATUS_ENOMEM, "out of memory parsing %s", p->file);
}

ffu_status ffu__hp_unexpected(parser *p, const char *what)
{
	const ffu_token *t = &p->tok;
	if (t->kind == FFU_TOK_ERROR) {
		unsigned char c = t->len ? (unsigned char)t->text[0] : 0;
		if (strcmp(t->msg, "unexpected character") != 0 && strcmp(t->msg, "unexpected byte in input") != 0)
			return PERR(t, "%s", t->msg);
		if (c >= 0x20 && c < 0x7f)
			return PERR(t, "%s '%c'", t->msg, c);
		return PERR(t, "%s (0x%02x)", t->msg, c);
	}
	if (t->kind == FFU_TOK_WORD)
		return PERR(t, "expected %s, found '%s" TOKFMT "'", what, t->percent ? "%" : "", TOKARG(t));
	return PERR(t, "expected %s, found %s", what, ffu__tok_kind_name(t->kind));
}

ffu_status ffu__hp_expect(parser *p, ffu_tok_kind k, const char *what)
{
	if (p->tok.kind != k)
		return ffu__hp_unexpected(p, what);
	ffu__hp_advance(p);
	return FFU_STATUS_OK;
}

char *ffu__hp_strdup(parser *p, const ffu_token *t)
{
	return ffu__arena_strndup(&p->m->arena, t->text, t->len);
}

bool ffu__hp_grow(void **buf, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return true;
	size_t ncap = *cap ? *cap : 16;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2 / elem)
			return false;
		ncap *= 2;
	}
	void *nb = realloc(*buf, ncap * elem);
	if (!nb)
		return false;
	*buf = nb;
	*cap = ncap;
	return true;
}

ffu_status ffu__hp_int(parser *p, const char *what, int64_t *out)
{
	const ffu_token *t = &p->tok;
	if (t->kind != FFU_TOK_WORD || t->percent)
		return ffu__hp_unexpected(p, what);
	int64_t v = 0;
	for (size_t i = 0; i < t->len; i++) {
		char c = t->text[i];
		if (c < '0' || c > '9')
			return PERR(t, "expected %s, found '" TOKFMT "'", what, TOKARG(t));
		if (v > (INT64_MAX - (c - '0')) / 10)
			return PERR(t, "%s '" TOKFMT "' overflows int64", what, TOKARG(t));
		v = v * 10 + (c - '0');
	}
	*out = v;
	ffu__hp_advance(p);
	return FFU_STATUS_OK;
}

/* --- shapes --- */

ffu_status ffu__hp_skip_braces(parser *p)
{
	ffu_token open = p->tok;
	size_t depth = 0;
	do {
		if (p->tok.kind == FFU_TOK_LBRACE)
			depth++;
		else if (p->tok.kind == FFU_TOK_RBRACE)
			depth--;
		else if (p->tok.kind == FFU_TOK_EOF)
			return PERR(&open, "missing '}' for this '{'");
		else if (p->tok.kind == FFU_TOK_ERROR)
			return ffu__hp_unexpected(p, "'}'");
		ffu__hp_advance(p);
	} while (depth > 0);
	return FFU_STATUS_OK;
}

ffu_status ffu__hp_dim_list(parser *p, int64_t dims[FFU_MAX_RANK], int *n)
{
	*n = 0;
	TRY(ffu__hp_expect(p, FFU_TOK_LBRACE, "'{'"));
	while (p->tok.kind != FFU_TOK_RBRACE) {
		if (*n > 0)
			TRY(ffu__hp_expect(p, FFU_TOK_COMMA, "',' or '}'"));
		if (*n == FFU_MAX_RANK)
			return PERR(&p->tok, "more than %d dimensions", FFU_MAX_RANK);
		TRY(ffu__hp_int(p, "a dimension number", &dims[*n]));
		++*n;
	}
	ffu__hp_advance(p);
	return FFU_STATUS_OK;
}
