/*
 * src/hlo/parse_shape.c: shapes: element types, layouts, tuples (docs/hlo.md "Shapes").
 * Owned by the HLO front end.
 */
#include "hlo/parse.h"

#include <string.h>

/*
 * After the result shape of a signature, `{` may open a layout (`-> babybear[4]{0} {`) or
 * the body. A layout never holds '='; an empty `{}` is a layout only if a body follows.
 */
static bool layout_ahead(const parser *p)
{
	ffu_lexer lx = p->lx;
	size_t depth = 1;
	bool empty = true;
	for (;;) {
		ffu_token t = ffu__lex_next(&lx);
		if (t.kind == FFU_TOK_EOF || t.kind == FFU_TOK_ERROR)
			return true; /* let skip_braces report it */
		if (t.kind == FFU_TOK_EQUAL)
			return false;
		if (t.kind == FFU_TOK_LBRACE)
			depth++;
		else if (t.kind == FFU_TOK_RBRACE && --depth == 0)
			break;
		empty = false;
	}
	return !empty || ffu__lex_next(&lx).kind == FFU_TOK_LBRACE;
}

ffu_status ffu__hp_shape(parser *p, ffu_shape *s, int depth, bool body_may_follow)
{
	memset(s, 0, sizeof *s);
	ffu_token start = p->tok;
	if (p->tok.kind == FFU_TOK_LPAREN) {
		if (depth >= FFU_HLO_MAX_NESTING)
			return PERR(&start, "tuple shapes nested more than %d deep", FFU_HLO_MAX_NESTING);
		ffu__hp_advance(p);
		s->type = FFU_TYPE_TUPLE;
		int cap = 0;
		while (p->tok.kind != FFU_TOK_RPAREN) {
			if (s->n_elems > 0)
				TRY(ffu__hp_expect(p, FFU_TOK_COMMA, "',' or ')'"));
			if (s->n_elems == cap) {
				/* Arena growth: the old block is left behind (bounded 2x waste). */
				cap = cap ? 2 * cap : 4;
				ffu_shape *ne = ffu__arena_alloc(&p->m->arena, sizeof *ne * (size_t)cap);
				if (!ne)
					return ffu__hp_oom(p);
				if (s->n_elems)
					memcpy(ne, s->elems, sizeof *ne * (size_t)s->n_elems);
				s->elems = ne;
			}
			TRY(ffu__hp_shape(p, &s->elems[s->n_elems], depth + 1, false));
			s->n_elems++;
		}
		ffu__hp_advance(p);
		return FFU_STATUS_OK;
	}
	if (p->tok.kind != FFU_TOK_WORD || p->tok.percent)
		return ffu__hp_unexpected(p, "a shape");
	s->type = ffu__type_by_name(p->tok.text, p->tok.len);
	if (s->type == FFU_TYPE_INVALID)
		return PERR(&start, "unknown type '" TOKFMT "'", TOKARG(&start));
	ffu__hp_advance(p);
	TRY(ffu__hp_expect(p, FFU_TOK_LBRACKET, "'[' after the element type"));
	int64_t count = 1;
	while (p->tok.kind != FFU_TOK_RBRACKET) {
		if (s->rank > 0)
			TRY(ffu__hp_expect(p, FFU_TOK_COMMA, "',' or ']'"));
		if (s->rank == FFU_MAX_RANK)
			return PERR(&p->tok, "shapes have at most %d dimensions", FFU_MAX_RANK);
		ffu_token dt = p->tok;
		int64_t d;
		TRY(ffu__hp_int(p, "a dimension", &d));
		if (d > 0 && count > INT64_MAX / d)
			return PERR(&dt, "shape has more than 2^63 elements");
		count *= d;
		s->dims[s->rank++] = d;
	}
	ffu__hp_advance(p);
	if (p->tok.kind == FFU_TOK_LBRACE && (!body_may_follow || layout_ahead(p)))
		TRY(ffu__hp_skip_braces(p));
	return FFU_STATUS_OK;
}
