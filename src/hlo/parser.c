/*
 * src/hlo/parser.c: HLO text -> module (docs/hlo.md). Owned by the HLO front end.
 *
 * Recursive descent over lexer tokens with one token of lookahead (plus a copied lexer
 * when a second is needed). The parser checks what only the text can tell (syntax, names,
 * where things are defined, literals against their shape, parameter numbering, the
 * optional signature); every rule about a built module is left to ffu__module_verify,
 * which runs last, so modules from the text and from the builder API obey the same rules.
 *
 * Opcodes come from the op table (ffu__op_by_keyword); per-op syntax beyond
 * `opcode(operands)` lives in two small tables below: how an op's parenthesised part is
 * read (operand_form) and which attributes exist and on which ops (attr_defs). A new
 * opcode with ordinary operands needs nothing here; a new attribute is one row and one
 * function.
 */
#include "hlo/hlo.h"
#include "util/symtab.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hlo/lexer.h"

_Static_assert(FFU_OP_COUNT <= 64, "attribute op masks are 64-bit");

/* --- parser state and error reporting --- */

typedef struct sig_param {
	ffu_token name;
	ffu_shape shape;
} sig_param;

typedef struct parser {
	ffu_lexer lx;   /* positioned just after tok */
	ffu_token tok;  /* current token */
	const char *file;
	ffu_error *e;
	ffu_module *m;
	ffu_computation *comp;
	ffu_symtab insts, comps;
	/* scratch reused across instructions (malloc'd) */
	ffu_inst **ops;
	size_t ops_cap;
	unsigned char *lit;
	size_t lit_cap;
	sig_param *sig;
	size_t sig_cap;
} parser;

#define TRY(x)                                  \
	do {                                    \
		ffu_status s_ = (x);            \
		if (s_ != FFU_STATUS_OK)        \
			return s_;              \
	} while (0)

/* Word tokens are bounded by the input; messages quote at most this much of one. */
#define TOKFMT "%.*s"
#define TOKARG(t) (int)((t)->len > 64 ? 64 : (t)->len), (t)->text

static ffu_status perr_at(parser *p, ffu_status s, int line, int col, const char *fmt, ...)
	FFU_PRINTF(5, 6);
static ffu_status perr_at(parser *p, ffu_status s, int line, int col, const char *fmt, ...)
{
	char msg[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return ffu__err_at(p->e, s, p->file, line, col, "%s", msg);
}

#define PERR(t, ...) perr_at(p, FFU_STATUS_EPARSE, (t)->line, (t)->col, __VA_ARGS__)

static ffu_status oom(parser *p)
{
	return ffu__err(p->e, FFU_STATUS_ENOMEM, "out of memory parsing %s", p->file);
}

/* "expected WHAT, found ..."; a lexer error token reports its own message instead. */
static ffu_status unexpected(parser *p, const char *what)
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

static void advance(parser *p)
{
	p->tok = ffu__lex_next(&p->lx);
}

/* The token after the current one, without consuming anything. */
static ffu_token peek2(const parser *p)
{
	ffu_lexer copy = p->lx;
	return ffu__lex_next(&copy);
}

static ffu_status expect(parser *p, ffu_tok_kind k, const char *what)
{
	if (p->tok.kind != k)
		return unexpected(p, what);
	advance(p);
	return FFU_STATUS_OK;
}

static char *tok_strdup(parser *p, const ffu_token *t)
{
	return ffu__arena_strndup(&p->m->arena, t->text, t->len);
}

static bool grow_buf(void **buf, size_t *cap, size_t need, size_t elem)
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

/* A non-negative decimal integer that fits int64 (dimensions, indices, parameter numbers). */
static ffu_status parse_int(parser *p, const char *what, int64_t *out)
{
	const ffu_token *t = &p->tok;
	if (t->kind != FFU_TOK_WORD || t->percent)
		return unexpected(p, what);
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
	advance(p);
	return FFU_STATUS_OK;
}

/* --- shapes --- */

/* Skips a balanced {...} group without recursing (layouts, ignored attribute values). */
static ffu_status skip_braces(parser *p)
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
			return unexpected(p, "'}'");
		advance(p);
	} while (depth > 0);
	return FFU_STATUS_OK;
}

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

static ffu_status parse_shape(parser *p, ffu_shape *s, int depth, bool body_may_follow)
{
	memset(s, 0, sizeof *s);
	ffu_token start = p->tok;
	if (p->tok.kind == FFU_TOK_LPAREN) {
		if (depth >= FFU_HLO_MAX_NESTING)
			return PERR(&start, "tuple shapes nested more than %d deep", FFU_HLO_MAX_NESTING);
		advance(p);
		s->type = FFU_TYPE_TUPLE;
		int cap = 0;
		while (p->tok.kind != FFU_TOK_RPAREN) {
			if (s->n_elems > 0)
				TRY(expect(p, FFU_TOK_COMMA, "',' or ')'"));
			if (s->n_elems == cap) {
				/* Arena growth: the old block is left behind (bounded 2x waste). */
				cap = cap ? 2 * cap : 4;
				ffu_shape *ne = ffu__arena_alloc(&p->m->arena, sizeof *ne * (size_t)cap);
				if (!ne)
					return oom(p);
				if (s->n_elems)
					memcpy(ne, s->elems, sizeof *ne * (size_t)s->n_elems);
				s->elems = ne;
			}
			TRY(parse_shape(p, &s->elems[s->n_elems], depth + 1, false));
			s->n_elems++;
		}
		advance(p);
		return FFU_STATUS_OK;
	}
	if (p->tok.kind != FFU_TOK_WORD || p->tok.percent)
		return unexpected(p, "a shape");
	s->type = ffu__type_by_name(p->tok.text, p->tok.len);
	if (s->type == FFU_TYPE_INVALID)
		return PERR(&start, "unknown type '" TOKFMT "'", TOKARG(&start));
	advance(p);
	TRY(expect(p, FFU_TOK_LBRACKET, "'[' after the element type"));
	int64_t count = 1;
	while (p->tok.kind != FFU_TOK_RBRACKET) {
		if (s->rank > 0)
			TRY(expect(p, FFU_TOK_COMMA, "',' or ']'"));
		if (s->rank == FFU_MAX_RANK)
			return PERR(&p->tok, "shapes have at most %d dimensions", FFU_MAX_RANK);
		ffu_token dt = p->tok;
		int64_t d;
		TRY(parse_int(p, "a dimension", &d));
		if (d > 0 && count > INT64_MAX / d)
			return PERR(&dt, "shape has more than 2^63 elements");
		count *= d;
		s->dims[s->rank++] = d;
	}
	advance(p);
	if (p->tok.kind == FFU_TOK_LBRACE && (!body_may_follow || layout_ahead(p)))
		TRY(skip_braces(p));
	return FFU_STATUS_OK;
}

/* --- literals --- */

/*
 * One element of a constant, stored at position index of the literal scratch buffer: the
 * only place that knows how an element is spelled, so a new element syntax (extension-field
 * coefficient lists) is added here and nowhere else. Integers are decimal or 0x hex and
 * canonical (< p); a pred is also `true`/`false`, as XLA prints them.
 */
/* One canonical number of prime field (or integer type) f into out. */
static ffu_status parse_coeff(parser *p, const ffu_field *f, unsigned char *out)
{
	const ffu_token *t = &p->tok;
	if (t->kind != FFU_TOK_WORD || t->percent)
		return unexpected(p, "a number");
	if (t->text[0] == '-')
		return PERR(t, "negative literal '" TOKFMT "': %s elements are 0..p-1", TOKARG(t), f->name);
	const char *why = "not a number";
	if (ffu__fp_parse(f, out, t->text, t->len, &why) != FFU_STATUS_OK)
		return PERR(t, "bad %s literal '" TOKFMT "': %s", f->name, TOKARG(t), why ? why : "invalid");
	advance(p);
	return FFU_STATUS_OK;
}

/* An extension element: `(c0, c1, ...)`, exactly degree coefficients, lowest degree first. */
static ffu_status parse_ext_elem(parser *p, const ffu_field *f, unsigned char *out)
{
	ffu_token open = p->tok;
	ffu_status st = expect(p, FFU_TOK_LPAREN, "'(' opening an extension element (c0, c1, ...)");
	for (int k = 0; st == FFU_STATUS_OK && k < f->degree; k++) {
		if (k)
			st = expect(p, FFU_TOK_COMMA, "',' between the coefficients");
		if (st == FFU_STATUS_OK)
			st = parse_coeff(p, f->prime, out + (size_t)k * f->prime->storage_bytes);
	}
	if (st == FFU_STATUS_OK && p->tok.kind != FFU_TOK_RPAREN)
		return PERR(&open, "a %s element has exactly %d coefficients", f->name, f->degree);
	return st ? st : expect(p, FFU_TOK_RPAREN, "')' closing the extension element");
}

static ffu_status parse_elem(parser *p, const ffu_field *f, size_t index)
{
	const ffu_token *t = &p->tok;
	if (f->kind != FFU_ELEM_EXT && (t->kind != FFU_TOK_WORD || t->percent))
		return unexpected(p, f->kind == FFU_ELEM_PRED ? "true, false, 0 or 1" : "a number");
	if (!grow_buf((void **)&p->lit, &p->lit_cap, (index + 1) * f->storage_bytes, 1))
		return oom(p);
	unsigned char *out = p->lit + index * f->storage_bytes;
	if (f->kind == FFU_ELEM_PRED) {
		if (ffu__tok_is(t, "true") || ffu__tok_is(t, "false")) {
			*out = t->text[0] == 't';
			advance(p);
			return FFU_STATUS_OK;
		}
		const char *why = NULL;
		if (ffu__fp_parse(f, out, t->text, t->len, &why) != FFU_STATUS_OK)
			return PERR(t, "bad pred literal '" TOKFMT "': a pred is true, false, 0 or 1", TOKARG(t));
		advance(p);
		return FFU_STATUS_OK;
	}
	if (f->kind == FFU_ELEM_EXT)
		return parse_ext_elem(p, f, out);
	return parse_coeff(p, f, out);
}

/*
 * A scalar, or `{...}` nested once per dimension, row-major. Iterative (the nesting depth is
 * the rank, at most FFU_MAX_RANK); each (sub)array must hold exactly its dimension's count.
 */
static ffu_status parse_literal(parser *p, const ffu_shape *s, unsigned char **out)
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
			return unexpected(p, "'{' to start an array literal");
		for (;;) {
			if (p->tok.kind == FFU_TOK_LBRACE) {
				if (depth == s->rank)
					return unexpected(p, "a number");
				if (depth > 0 && cnt[depth - 1] >= s->dims[depth - 1])
					return PERR(&p->tok, "array literal has more than %lld elements in dimension %d of %s",
						    (long long)s->dims[depth - 1], depth - 1, sbuf);
				cnt[depth++] = 0;
				advance(p);
				continue;
			}
			if (p->tok.kind == FFU_TOK_RBRACE) {
				if (cnt[depth - 1] != s->dims[depth - 1])
					return PERR(&p->tok, "array literal has %lld elements in dimension %d, %s needs %lld",
						    (long long)cnt[depth - 1], depth - 1, sbuf,
						    (long long)s->dims[depth - 1]);
				advance(p);
				if (--depth == 0)
					break;
				cnt[depth - 1]++;
			} else {
				if (depth != s->rank)
					return unexpected(p, "'{'");
				if (cnt[depth - 1] >= s->dims[depth - 1])
					return PERR(&p->tok, "array literal has more than %lld elements in dimension %d of %s",
						    (long long)s->dims[depth - 1], depth - 1, sbuf);
				TRY(parse_elem(p, f, n));
				n++;
				cnt[depth - 1]++;
			}
			if (p->tok.kind == FFU_TOK_COMMA) {
				advance(p);
				if (p->tok.kind == FFU_TOK_RBRACE)
					return unexpected(p, "a value after ','");
			} else if (p->tok.kind != FFU_TOK_RBRACE) {
				return unexpected(p, "',' or '}'");
			}
		}
	}
	size_t bytes = n * f->storage_bytes;
	*out = ffu__arena_alloc(&p->m->arena, bytes);
	if (!*out)
		return oom(p);
	if (bytes)
		memcpy(*out, p->lit, bytes);
	return FFU_STATUS_OK;
}

/* --- operands --- */

/* Line of a later `NAME =` for a better message than "undefined"; 0 if there is none. */
static int later_definition(const parser *p, const ffu_token *name)
{
	ffu_lexer lx = p->lx;
	ffu_token prev = {0};
	for (;;) {
		ffu_token t = ffu__lex_next(&lx);
		if (t.kind == FFU_TOK_EOF || t.kind == FFU_TOK_ERROR)
			return 0;
		if (t.kind == FFU_TOK_EQUAL && prev.kind == FFU_TOK_WORD && prev.len == name->len &&
		    memcmp(prev.text, name->text, name->len) == 0)
			return prev.line;
		prev = t;
	}
}

/* `[SHAPE] [%]name`: an instruction defined earlier in the current computation. */
static ffu_status parse_operand(parser *p, ffu_inst **out)
{
	ffu_shape ann;
	ffu_token ann_tok = p->tok;
	bool annotated = false;
	if (p->tok.kind == FFU_TOK_LPAREN ||
	    (p->tok.kind == FFU_TOK_WORD && !p->tok.percent && peek2(p).kind == FFU_TOK_LBRACKET)) {
		TRY(parse_shape(p, &ann, 0, false));
		annotated = true;
	}
	if (p->tok.kind != FFU_TOK_WORD)
		return unexpected(p, "an operand name");
	ffu_token nt = p->tok;
	ffu_inst *in = ffu__sym_get(&p->insts, nt.text, nt.len);
	if (!in) {
		int later = later_definition(p, &nt);
		if (later)
			return PERR(&nt, "operand '%%" TOKFMT "' is used before its definition (line %d)",
				    TOKARG(&nt), later);
		return PERR(&nt, "undefined operand '%%" TOKFMT "'", TOKARG(&nt));
	}
	if (in->parent != p->comp)
		return PERR(&nt, "operand '%%%s' belongs to computation '%%%s'", in->name, in->parent->name);
	if (annotated && !ffu__shape_eq(&ann, &in->shape)) {
		char a[128], b[128];
		ffu__shape_format(&ann, a, sizeof a);
		ffu__shape_format(&in->shape, b, sizeof b);
		return PERR(&ann_tok, "operand '%%%s' is annotated %s but its shape is %s", in->name, a, b);
	}
	advance(p);
	*out = in;
	return FFU_STATUS_OK;
}

/* --- attributes --- */

typedef ffu_status (*attr_fn)(parser *p, ffu_inst *in);

static ffu_status attr_dimensions(parser *p, ffu_inst *in)
{
	int64_t dims[FFU_MAX_RANK];
	int n = 0;
	TRY(expect(p, FFU_TOK_LBRACE, "'{'"));
	while (p->tok.kind != FFU_TOK_RBRACE) {
		if (n > 0)
			TRY(expect(p, FFU_TOK_COMMA, "',' or '}'"));
		if (n == FFU_MAX_RANK)
			return PERR(&p->tok, "more than %d dimensions", FFU_MAX_RANK);
		TRY(parse_int(p, "a dimension number", &dims[n]));
		n++;
	}
	advance(p);
	in->n_dims = n;
	if (n > 0) {
		in->dims = ffu__arena_alloc(&p->m->arena, sizeof *in->dims * (size_t)n);
		if (!in->dims)
			return oom(p);
		memcpy(in->dims, dims, sizeof *in->dims * (size_t)n);
	}
	return FFU_STATUS_OK;
}

static ffu_status attr_index(parser *p, ffu_inst *in)
{
	return parse_int(p, "a tuple index", &in->index);
}

static ffu_status attr_iota_dimension(parser *p, ffu_inst *in)
{
	return parse_int(p, "a dimension number", &in->index);
}

/*
 * `{[start:limit:stride], ...}`, stride optional (1). The IR keeps FFU_MAX_RANK ranges and
 * no count, so how many were written is known only here: it must be the operand's rank
 * (operands are read before attributes). The ranges' values are the verifier's business.
 */
static ffu_status attr_slice(parser *p, ffu_inst *in)
{
	ffu_token open = p->tok;
	int n = 0;
	TRY(expect(p, FFU_TOK_LBRACE, "'{'"));
	while (p->tok.kind != FFU_TOK_RBRACE) {
		if (n > 0)
			TRY(expect(p, FFU_TOK_COMMA, "',' or '}'"));
		if (n == FFU_MAX_RANK)
			return PERR(&p->tok, "more than %d slice ranges", FFU_MAX_RANK);
		TRY(expect(p, FFU_TOK_LBRACKET, "'[' to start a slice range [start:limit:stride]"));
		TRY(parse_int(p, "a slice start", &in->slice_start[n]));
		TRY(expect(p, FFU_TOK_COLON, "':' after the slice start"));
		TRY(parse_int(p, "a slice limit", &in->slice_limit[n]));
		in->slice_stride[n] = 1;
		if (p->tok.kind == FFU_TOK_COLON) {
			advance(p);
			TRY(parse_int(p, "a slice stride", &in->slice_stride[n]));
		}
		TRY(expect(p, FFU_TOK_RBRACKET, "']' to end the slice range"));
		n++;
	}
	if (in->n_operands == 1 && ffu__shape_is_array(&in->operands[0]->shape) &&
	    in->operands[0]->shape.rank != n)
		return PERR(&open, "slice has %d range%s but operand '%%%s' has rank %d (one range per dimension)", n,
			    n == 1 ? "" : "s", in->operands[0]->name, in->operands[0]->shape.rank);
	advance(p);
	return FFU_STATUS_OK;
}

static ffu_status attr_direction(parser *p, ffu_inst *in)
{
	static const char *const other[] = {"GT", "GE", "LT", "LE"};
	if (ffu__tok_is(&p->tok, "EQ")) {
		in->direction = FFU_CMP_EQ;
	} else if (ffu__tok_is(&p->tok, "NE")) {
		in->direction = FFU_CMP_NE;
	} else if (p->tok.kind == FFU_TOK_WORD && !p->tok.percent) {
		/* Field elements have no order; XLA's ordered directions get their own message. */
		for (size_t i = 0; i < sizeof other / sizeof other[0]; i++)
			if (ffu__tok_is(&p->tok, other[i]))
				return PERR(&p->tok, "unsupported compare direction %s: fieldfuse supports EQ and NE",
					    other[i]);
		return PERR(&p->tok, "unknown compare direction '" TOKFMT "' (EQ or NE)", TOKARG(&p->tok));
	} else {
		return unexpected(p, "a compare direction (EQ or NE)");
	}
	advance(p);
	return FFU_STATUS_OK;
}

static ffu_status attr_kind(parser *p, ffu_inst *in)
{
	if (ffu__tok_is(&p->tok, "kLoop"))
		in->fusion_kind = FFU_FUSION_LOOP;
	else if (ffu__tok_is(&p->tok, "kInput"))
		in->fusion_kind = FFU_FUSION_INPUT;
	else if (p->tok.kind == FFU_TOK_WORD)
		return PERR(&p->tok, "unsupported fusion kind '" TOKFMT "' (kLoop or kInput)", TOKARG(&p->tok));
	else
		return unexpected(p, "a fusion kind");
	advance(p);
	return FFU_STATUS_OK;
}

/* A computation defined earlier (callees before callers, as XLA prints them), not this one. */
static ffu_status callee_ref(parser *p, ffu_computation **out)
{
	ffu_token t = p->tok;
	if (t.kind != FFU_TOK_WORD)
		return unexpected(p, "a computation name");
	ffu_computation *c = ffu__sym_get(&p->comps, t.text, t.len);
	if (c == p->comp)
		return PERR(&t, "computation '%%%s' calls itself", c->name);
	if (!c)
		return PERR(&t, "undefined computation '%%" TOKFMT "' (define callees before their callers)",
			    TOKARG(&t));
	*out = c;
	advance(p);
	return FFU_STATUS_OK;
}

static ffu_status attr_calls(parser *p, ffu_inst *in)
{
	TRY(callee_ref(p, &in->callee));
	in->callee->is_fused = true;
	return FFU_STATUS_OK;
}

/*
 * reduce_fn is derived from the callee's root here, where the callee is complete; the
 * verifier checks that the callee really is a sum or product of its two parameters and
 * that reduce_fn agrees with it (so modules built through the API are checked too).
 */
static ffu_status attr_to_apply(parser *p, ffu_inst *in)
{
	TRY(callee_ref(p, &in->callee));
	const ffu_inst *r = in->callee->root;
	in->reduce_fn = r && (r->op == FFU_OP_ADD || r->op == FFU_OP_MULTIPLY) ? r->op : FFU_OP_COUNT;
	return FFU_STATUS_OK;
}

/* Accepted for compatibility with XLA dumps and dropped: a string, word or balanced {...}. */
static ffu_status attr_ignore(parser *p, ffu_inst *in)
{
	if (p->tok.kind == FFU_TOK_LBRACE)
		return skip_braces(p);
	if (p->tok.kind == FFU_TOK_STRING || p->tok.kind == FFU_TOK_WORD) {
		advance(p);
		return FFU_STATUS_OK;
	}
	return unexpected(p, "an attribute value");
}

#define OPBIT(ID) (UINT64_C(1) << FFU_OP_##ID)
#define ANY_OP UINT64_MAX
#define DIMS_OPS (OPBIT(BROADCAST) | OPBIT(CONCATENATE) | OPBIT(REDUCE))

static const struct attr_def {
	const char *name;
	attr_fn parse;
	uint64_t ops;   /* ops that take it */
	uint64_t needs; /* ops that must have it */
} attr_defs[] = {
	{"dimensions", attr_dimensions, DIMS_OPS, DIMS_OPS},
	{"index", attr_index, OPBIT(GET_TUPLE_ELEMENT), OPBIT(GET_TUPLE_ELEMENT)},
	{"iota_dimension", attr_iota_dimension, OPBIT(IOTA), OPBIT(IOTA)},
	{"slice", attr_slice, OPBIT(SLICE), OPBIT(SLICE)},
	{"direction", attr_direction, OPBIT(COMPARE), OPBIT(COMPARE)},
	{"to_apply", attr_to_apply, OPBIT(REDUCE), OPBIT(REDUCE)},
	{"kind", attr_kind, OPBIT(FUSION), 0},
	{"calls", attr_calls, OPBIT(FUSION), OPBIT(FUSION)},
	{"metadata", attr_ignore, ANY_OP, 0},
	{"backend_config", attr_ignore, ANY_OP, 0},
	{"frontend_attributes", attr_ignore, ANY_OP, 0},
	{"sharding", attr_ignore, ANY_OP, 0},
	{"statistics", attr_ignore, ANY_OP, 0},
};
enum { N_ATTRS = sizeof attr_defs / sizeof attr_defs[0] };
_Static_assert(N_ATTRS <= 32, "parse_attrs keeps the attributes seen in a 32-bit mask");

static ffu_status parse_attrs(parser *p, ffu_inst *in, const ffu_token *optok)
{
	uint32_t seen = 0;
	while (p->tok.kind == FFU_TOK_COMMA) {
		advance(p);
		ffu_token at = p->tok;
		if (at.kind != FFU_TOK_WORD || at.percent)
			return unexpected(p, "an attribute name");
		int k = -1;
		for (int i = 0; i < N_ATTRS && k < 0; i++)
			if (ffu__tok_is(&at, attr_defs[i].name))
				k = i;
		if (k < 0)
			return PERR(&at, "unknown attribute '" TOKFMT "'", TOKARG(&at));
		if (!(attr_defs[k].ops & (UINT64_C(1) << in->op)))
			return PERR(&at, "attribute '%s' does not apply to %s", attr_defs[k].name,
				    ffu__ops[in->op].keyword);
		if (seen & (1u << k))
			return PERR(&at, "duplicate attribute '%s'", attr_defs[k].name);
		seen |= 1u << k;
		advance(p);
		TRY(expect(p, FFU_TOK_EQUAL, "'=' after the attribute name"));
		TRY(attr_defs[k].parse(p, in));
	}
	for (int i = 0; i < N_ATTRS; i++)
		if ((attr_defs[i].needs & (UINT64_C(1) << in->op)) && !(seen & (1u << i)))
			return PERR(optok, "%s needs the attribute %s=", ffu__ops[in->op].keyword, attr_defs[i].name);
	return FFU_STATUS_OK;
}

/* --- instructions --- */

/* How the parenthesised part after an opcode is read; ordinary ops take operand names. */
typedef enum { FORM_OPERANDS, FORM_PARAMETER_NUMBER, FORM_LITERAL } operand_form;

static operand_form form_of(ffu_op op)
{
	switch (op) {
	case FFU_OP_PARAMETER: return FORM_PARAMETER_NUMBER;
	case FFU_OP_CONSTANT: return FORM_LITERAL;
	default: return FORM_OPERANDS;
	}
}

static ffu_status parse_instruction(parser *p, ffu_inst **root)
{
	ffu_computation *c = p->comp;
	ffu_token root_tok = p->tok;
	bool is_root = false;
	if (ffu__tok_is(&p->tok, "ROOT") && peek2(p).kind != FFU_TOK_EQUAL) {
		is_root = true;
		advance(p);
	}
	ffu_token nt = p->tok;
	if (nt.kind != FFU_TOK_WORD)
		return unexpected(p, "an instruction name or '}'");
	ffu_inst *prev = ffu__sym_get(&p->insts, nt.text, nt.len);
	if (prev)
		return PERR(&nt, "duplicate instruction name '%%%s' (first defined at %d:%d)", prev->name,
			    prev->line, prev->col);
	advance(p);
	TRY(expect(p, FFU_TOK_EQUAL, "'='"));
	ffu_shape shape;
	TRY(parse_shape(p, &shape, 0, false));
	ffu_token optok = p->tok;
	if (optok.kind != FFU_TOK_WORD || optok.percent)
		return unexpected(p, "an opcode");
	int op = ffu__op_by_keyword(optok.text, optok.len);
	if (op < 0)
		return PERR(&optok, "unknown opcode '" TOKFMT "'", TOKARG(&optok));
	advance(p);
	TRY(expect(p, FFU_TOK_LPAREN, "'(' after the opcode"));

	int64_t number = 0;
	unsigned char *literal = NULL;
	size_t n = 0;
	switch (form_of((ffu_op)op)) {
	case FORM_PARAMETER_NUMBER:
		TRY(parse_int(p, "a parameter number", &number));
		break;
	case FORM_LITERAL:
		TRY(parse_literal(p, &shape, &literal));
		break;
	case FORM_OPERANDS:
		while (p->tok.kind != FFU_TOK_RPAREN) {
			if (n > 0)
				TRY(expect(p, FFU_TOK_COMMA, "',' or ')'"));
			if (!grow_buf((void **)&p->ops, &p->ops_cap, n + 1, sizeof *p->ops))
				return oom(p);
			TRY(parse_operand(p, &p->ops[n]));
			n++;
		}
		break;
	}
	TRY(expect(p, FFU_TOK_RPAREN, "')'"));
	if (n > INT32_MAX)
		return PERR(&optok, "too many operands");

	ffu_inst *in = ffu__inst_new(c, (ffu_op)op, "", &shape, p->ops, (int)n);
	if (!in || !(in->name = tok_strdup(p, &nt)) || !ffu__sym_put(&p->insts, in->name, in))
		return oom(p);
	in->line = nt.line;
	in->col = nt.col;
	in->index = number;
	in->literal = literal;
	TRY(parse_attrs(p, in, &optok));
	if (is_root) {
		if (*root)
			return PERR(&root_tok, "second ROOT in computation '%%%s' (first: '%%%s')", c->name,
				    (*root)->name);
		*root = in;
	}
	return FFU_STATUS_OK;
}

/* --- computations --- */

/* Numbers parameters 0..n-1 (no gaps, no duplicates) and fills c->params. */
static ffu_status bind_params(parser *p, ffu_computation *c)
{
	int n = 0;
	for (int i = 0; i < c->n_insts; i++)
		n += c->insts[i]->op == FFU_OP_PARAMETER;
	c->n_params = n;
	if (n == 0)
		return FFU_STATUS_OK;
	c->params = ffu__arena_alloc(&p->m->arena, sizeof *c->params * (size_t)n);
	if (!c->params)
		return oom(p);
	for (int i = 0; i < c->n_insts; i++) {
		ffu_inst *in = c->insts[i];
		if (in->op != FFU_OP_PARAMETER)
			continue;
		if (in->index >= n)
			return perr_at(p, FFU_STATUS_EPARSE, in->line, in->col,
				       "parameter number %lld leaves a gap: computation '%%%s' has %d parameters, numbered 0..%d",
				       (long long)in->index, c->name, n, n - 1);
		ffu_inst *other = c->params[in->index];
		if (other)
			return perr_at(p, FFU_STATUS_EPARSE, in->line, in->col,
				       "duplicate parameter number %lld (also '%%%s')", (long long)in->index,
				       other->name);
		c->params[in->index] = in;
	}
	return FFU_STATUS_OK;
}

/* The optional `(a: shape, ...) -> shape` must agree with the body. */
static ffu_status check_signature(parser *p, ffu_computation *c, size_t n_sig, const ffu_token *sig_tok,
				  const ffu_shape *result, const ffu_token *result_tok)
{
	char a[128], b[128];
	if (n_sig != (size_t)c->n_params)
		return PERR(sig_tok, "signature has %zu parameters, computation '%%%s' has %d", n_sig, c->name,
			    c->n_params);
	for (size_t i = 0; i < n_sig; i++) {
		const sig_param *sp = &p->sig[i];
		if (!ffu__shape_eq(&sp->shape, &c->params[i]->shape)) {
			ffu__shape_format(&sp->shape, a, sizeof a);
			ffu__shape_format(&c->params[i]->shape, b, sizeof b);
			return PERR(&sp->name, "signature parameter %zu is %s but parameter(%zu) is %s", i, a, i, b);
		}
	}
	if (!ffu__shape_eq(result, &c->root->shape)) {
		ffu__shape_format(result, a, sizeof a);
		ffu__shape_format(&c->root->shape, b, sizeof b);
		return PERR(result_tok, "signature result is %s but ROOT '%%%s' is %s", a, c->root->name, b);
	}
	return FFU_STATUS_OK;
}

static ffu_status parse_computation(parser *p, const ffu_token *first_entry)
{
	ffu_token entry_tok = p->tok;
	bool is_entry = false;
	if (ffu__tok_is(&p->tok, "ENTRY")) {
		if (p->m->entry)
			return PERR(&entry_tok, "second ENTRY computation (first at %d:%d)", first_entry->line,
				    first_entry->col);
		is_entry = true;
		advance(p);
	}
	ffu_token nt = p->tok;
	if (nt.kind != FFU_TOK_WORD)
		return unexpected(p, "a computation name");
	ffu_computation *prev = ffu__sym_get(&p->comps, nt.text, nt.len);
	if (prev)
		return PERR(&nt, "duplicate computation name '%%%s' (first defined at %d:%d)", prev->name,
			    prev->line, prev->col);
	char *name = tok_strdup(p, &nt);
	ffu_computation *c = name ? ffu__comp_new(p->m, name) : NULL;
	if (!c || !ffu__sym_put(&p->comps, c->name, c))
		return oom(p);
	c->line = nt.line;
	c->col = nt.col;
	c->is_entry = is_entry;
	if (is_entry)
		p->m->entry = c;
	p->comp = c;
	advance(p);

	size_t n_sig = 0;
	bool has_sig = false;
	ffu_token sig_tok = p->tok, result_tok = p->tok;
	ffu_shape result = {0};
	if (p->tok.kind == FFU_TOK_LPAREN) {
		has_sig = true;
		advance(p);
		while (p->tok.kind != FFU_TOK_RPAREN) {
			if (n_sig > 0)
				TRY(expect(p, FFU_TOK_COMMA, "',' or ')'"));
			if (!grow_buf((void **)&p->sig, &p->sig_cap, n_sig + 1, sizeof *p->sig))
				return oom(p);
			sig_param *sp = &p->sig[n_sig];
			sp->name = p->tok;
			TRY(expect(p, FFU_TOK_WORD, "a parameter name"));
			TRY(expect(p, FFU_TOK_COLON, "':'"));
			TRY(parse_shape(p, &sp->shape, 0, false));
			n_sig++;
		}
		advance(p);
		TRY(expect(p, FFU_TOK_ARROW, "'->' and the result shape"));
		result_tok = p->tok;
		TRY(parse_shape(p, &result, 0, true));
	}
	ffu_token open = p->tok;
	TRY(expect(p, FFU_TOK_LBRACE, "'{' to open the computation body"));
	ffu_inst *root = NULL;
	while (p->tok.kind != FFU_TOK_RBRACE) {
		if (p->tok.kind == FFU_TOK_EOF)
			return PERR(&p->tok, "missing '}' to close computation '%%%s' (opened at %d:%d)", c->name,
				    open.line, open.col);
		TRY(parse_instruction(p, &root));
	}
	if (c->n_insts == 0)
		return PERR(&p->tok, "computation '%%%s' has no instructions", c->name);
	advance(p);
	/* XLA's rule: without a ROOT marker the last instruction is the result. */
	c->root = root ? root : c->insts[c->n_insts - 1];
	TRY(bind_params(p, c));
	if (has_sig)
		TRY(check_signature(p, c, n_sig, &sig_tok, &result, &result_tok));
	p->comp = NULL;
	return FFU_STATUS_OK;
}

static ffu_status parse_module(parser *p)
{
	if (!ffu__tok_is(&p->tok, "HloModule"))
		return unexpected(p, "'HloModule NAME'");
	advance(p);
	if (p->tok.kind != FFU_TOK_WORD)
		return unexpected(p, "a module name");
	p->m = ffu__module_new("");
	if (!p->m || !(p->m->name = tok_strdup(p, &p->tok)))
		return oom(p);
	/* Module attributes (entry_computation_layout=... etc.) are not needed: drop the line. */
	ffu__lex_skip_line(&p->lx);
	advance(p);
	ffu_token first_entry = {0};
	while (p->tok.kind != FFU_TOK_EOF) {
		if (!p->m->entry)
			first_entry = p->tok;
		TRY(parse_computation(p, &first_entry));
	}
	if (!p->m->entry)
		return PERR(&p->tok, "no ENTRY computation");
	return FFU_STATUS_OK;
}

ffu_status ffu__hlo_parse(ffu_module **out, const char *text, size_t len, const char *file, ffu_error *e)
{
	if (!out)
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu__hlo_parse: out is NULL");
	*out = NULL;
	if (!text && len > 0)
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu__hlo_parse: text is NULL");
	parser p = {0};
	p.file = file ? file : "<input>";
	p.e = e;
	ffu__lex_init(&p.lx, text, len);
	advance(&p);
	ffu_status st = parse_module(&p);
	if (st == FFU_STATUS_OK)
		st = ffu__module_verify(p.m, p.file, e);
	ffu__sym_free(&p.insts);
	ffu__sym_free(&p.comps);
	free(p.ops);
	free(p.lit);
	free(p.sig);
	if (st != FFU_STATUS_OK) {
		ffu__module_free(p.m);
		return st;
	}
	*out = p.m;
	return FFU_STATUS_OK;
}
