/*
 * src/hlo/parse_shape.c: shapes (docs/hlo.md "Shapes", "Layouts", "Dialects"): element type
 * names with ZKX's spellings, layouts in ZKX/XLA syntax, tuples. Owned by the HLO front end.
 *
 * A type name says a field and, through its spelling, the form of its values: `_mont`
 * Montgomery, `_std` canonical, a plain name whatever the dialect says (p->plain_is_mont).
 * A layout's MONT(b) says the form explicitly. The form is settled after the layout is
 * read, so every combination is decided in one place (settle_type).
 */
#include "hlo/parse.h"

#include <string.h>

/* --- element type names --- */

typedef enum { SPELL_PLAIN, SPELL_MONT, SPELL_STD } spelled_form;

typedef struct elem_name {
	ffu_type field;      /* the type of the canonical form (babybear for babybear_mont) */
	spelled_form form;
	ffu_token tok;
} elem_name;

/* A word of the text and what it stands for (the tables below). */
typedef struct word_pair {
	const char *word, *means;
} word_pair;

/* ZKX's older spellings (PR #166 and its benchmark generator) -> the names ZKX uses now. */
static const word_pair type_aliases[] = {
	{"babybear4", "babybearx4"},
	{"koalabear4", "koalabearx4"},
	{"mersenne312", "mersenne31x2"},
	{"goldilocks3", "goldilocksx3"},
};

/* ZKX element types that fieldfuse does not have: named as such rather than "unknown". */
static const char *const zkx_only_types[] = {
	"s1", "s2", "s4", "u1", "u2", "u4",
	/* zk_dtypes 0.0.17's other curves: their fields are rows of fields.def, the points are not */
	"pallas_g1_affine", "pallas_g1_jacobian", "pallas_g1_xyzz", "vesta_g1_affine", "vesta_g1_jacobian",
	"vesta_g1_xyzz", "secp256k1_g1_affine", "secp256k1_g1_jacobian", "secp256k1_g1_xyzz",
	"secp256r1_g1_affine", "secp256r1_g1_jacobian", "secp256r1_g1_xyzz", "ed25519_g1_affine",
	"ed25519_g1_extended",
};

/* A canonical type with a _mont twin: a prime field, an extension, a point type (whose
   coordinates take the form). */
static bool is_field_type(ffu_type t)
{
	const ffu_field *f = ffu__field_get((ffu_field_id)t);
	return f && (f->kind == FFU_ELEM_PRIME || f->kind == FFU_ELEM_EXT || f->kind == FFU_ELEM_POINT) &&
	       !ffu__field_is_mont(f);
}

static bool strip_suffix(char *buf, size_t *n, const char *suffix)
{
	size_t k = strlen(suffix);
	if (*n <= k || memcmp(buf + *n - k, suffix, k) != 0)
		return false;
	*n -= k;
	buf[*n] = '\0';
	return true;
}

/* The current word as an element type name; the form is settled later (settle_type). */
static ffu_status read_elem_name(parser *p, elem_name *out)
{
	const ffu_token *t = &p->tok;
	char buf[48];
	if (t->kind != FFU_TOK_WORD || t->percent)
		return ffu__hp_unexpected(p, "a shape");
	out->tok = *t;
	out->field = FFU_TYPE_INVALID;
	if (t->len < sizeof buf) {
		size_t n = t->len;
		memcpy(buf, t->text, n);
		buf[n] = '\0';
		out->form = strip_suffix(buf, &n, "_std") ? SPELL_STD
			    : strip_suffix(buf, &n, "_mont") ? SPELL_MONT : SPELL_PLAIN;
		if (strncmp(buf, "bn254.", 6) == 0)
			buf[5] = '_'; /* ZKX before 2025-12: bn254.sf, bn254.g1_affine, ... */
		const char *name = buf;
		for (size_t i = 0; i < sizeof type_aliases / sizeof type_aliases[0]; i++)
			if (strcmp(buf, type_aliases[i].word) == 0)
				name = type_aliases[i].means;
		ffu_type ty = ffu__type_by_name(name, strlen(name));
		const ffu_field *f = ffu__field_get((ffu_field_id)ty);
		bool ok = f && !ffu__field_is_mont(f) && (out->form == SPELL_PLAIN || is_field_type(ty));
		if (ok) {
			out->field = ty;
			ffu__hp_advance(p);
			return FFU_STATUS_OK;
		}
		for (size_t i = 0; i < sizeof zkx_only_types / sizeof zkx_only_types[0]; i++)
			if (strcmp(name, zkx_only_types[i]) == 0)
				return UNSUPPORTED(t, "type '" TOKFMT "' (ZKX's %s) is not supported yet by fieldfuse", TOKARG(t),
					    name);
	}
	return PERR(t, "unknown type '" TOKFMT "'", TOKARG(t));
}

static bool is_std_type(const ffu_token *t)
{
	return t->kind == FFU_TOK_WORD && !t->percent && t->len > 4 && memcmp(t->text + t->len - 4, "_std", 4) == 0;
}

void ffu__hp_choose_dialect(parser *p, const char *text, size_t len, ffu_parse_options *o)
{
	o->auto_line = o->auto_col = 0;
	o->dialect_used = o->dialect;
	if (o->dialect == FFU_DIALECT_AUTO) {
		o->dialect_used = FFU_DIALECT_FIELDFUSE;
		ffu_lexer lx;
		ffu__lex_init(&lx, text, len);
		/* A type is the word before '['; a layout attribute the word before '('. */
		ffu_token prev = ffu__lex_next(&lx);
		while (prev.kind != FFU_TOK_EOF && prev.kind != FFU_TOK_ERROR) {
			ffu_token t = ffu__lex_next(&lx);
			if ((t.kind == FFU_TOK_LBRACKET && is_std_type(&prev)) ||
			    (t.kind == FFU_TOK_LPAREN && ffu__tok_is(&prev, "MONT"))) {
				o->dialect_used = FFU_DIALECT_ZKX_2026_01;
				o->auto_line = prev.line;
				o->auto_col = prev.col;
				break;
			}
			prev = t;
		}
	}
	p->plain_is_mont = o->dialect_used == FFU_DIALECT_ZKX_2026_01;
}

/* --- layouts --- */

/*
 * `{minor_to_major[:attributes]}` as ZKX's ParseLayout reads it. Only what fieldfuse gives a
 * meaning is accepted (MONT, and D/NNZ for a CSR sparse matrix, dot's lhs); every other
 * attribute is an error naming it.
 */
typedef struct layout {
	ffu_token open;
	int n_order;                   /* minor_to_major entries written (0: default order) */
	int64_t order[FFU_MAX_RANK];
	ffu_token order_tok[FFU_MAX_RANK];
	int n_levels;                  /* D(...) entries; 0 without D */
	bool compressed[FFU_MAX_RANK]; /* C; false for D */
	ffu_token levels_tok;
	int64_t nnz;                   /* -1 without NNZ */
	ffu_token nnz_tok;
	int mont;                      /* -1 without MONT, else 0 or 1 */
	ffu_token mont_tok;
} layout;

/* XLA's layout attributes that fieldfuse does not implement, with what they mean. */
static const word_pair unsupported_attrs[] = {
	{"T", "tiling"},
	{"L", "tail padding alignment"},
	{"E", "element size in bits"},
	{"S", "memory space"},
	{"SC", "split configuration"},
	{"P", "physical shape"},
	{"M", "dynamic shape metadata bytes"},
};

/*
 * ZKX's rule: `{` after `type[dims]` opens a layout only if an integer or ':' follows. An
 * empty `{}` is also read as a (default) layout, as fieldfuse always has; where a body could
 * follow (`-> babybear[] {} {`), an empty body would be an error anyway.
 */
static bool layout_ahead(const parser *p)
{
	if (p->tok.kind != FFU_TOK_LBRACE)
		return false;
	ffu_lexer lx = p->lx;
	ffu_token t = ffu__lex_next(&lx);
	if (t.kind == FFU_TOK_COLON || t.kind == FFU_TOK_RBRACE)
		return true;
	if (t.kind != FFU_TOK_WORD || t.percent || t.text[0] < '0' || t.text[0] > '9')
		return false;
	/* `-> babybear[4] { 0 = ...`: a body whose first instruction is named 0. */
	return ffu__lex_next(&lx).kind != FFU_TOK_EQUAL;
}

/* D(level, ...): D dense or C compressed; ZKX's S, H and the +/~ properties are refused. */
static ffu_status parse_levels(parser *p, layout *lo)
{
	TRY(ffu__hp_expect(p, FFU_TOK_LPAREN, "'(' after D"));
	while (p->tok.kind != FFU_TOK_RPAREN) {
		if (lo->n_levels > 0)
			TRY(ffu__hp_expect(p, FFU_TOK_COMMA, "',' or ')'"));
		if (lo->n_levels == FFU_MAX_RANK)
			return PERR(&p->tok, "layout D(...) lists more than %d dimensions", FFU_MAX_RANK);
		const ffu_token *t = &p->tok;
		if (ffu__tok_is(t, "S") || ffu__tok_is(t, "H"))
			return UNSUPPORTED(t, "dimension level type '%c' (%s) is not supported: only D (dense) and C (compressed)",
				    t->text[0], t->text[0] == 'S' ? "singleton" : "loose compressed");
		if (!ffu__tok_is(t, "D") && !ffu__tok_is(t, "C"))
			return ffu__hp_unexpected(p, "a dimension level type (D or C)");
		lo->compressed[lo->n_levels++] = t->text[0] == 'C';
		ffu__hp_advance(p);
		/* The lexer has no token for ZKX's suffixes: they arrive as an unexpected character. */
		if (t->kind == FFU_TOK_ERROR && t->len && (t->text[0] == '+' || t->text[0] == '~'))
			return UNSUPPORTED(t, "dimension level property '%c' (%s) is not supported", t->text[0],
				    t->text[0] == '+' ? "non-unique" : "unordered");
	}
	ffu__hp_advance(p);
	return FFU_STATUS_OK;
}

static ffu_status parse_layout_attr(parser *p, layout *lo)
{
	ffu_token at = p->tok;
	if (at.kind == FFU_TOK_ERROR && at.len && (at.text[0] == '#' || at.text[0] == '*'))
		return UNSUPPORTED(&at, "layout attribute '%c(...)' (%s primitive type) is not supported", at.text[0],
			    at.text[0] == '#' ? "index" : "pointer");
	if (at.kind != FFU_TOK_WORD || at.percent)
		return ffu__hp_unexpected(p, "a layout attribute or '}'");
	for (size_t i = 0; i < sizeof unsupported_attrs / sizeof unsupported_attrs[0]; i++)
		if (ffu__tok_is(&at, unsupported_attrs[i].word))
			return UNSUPPORTED(&at, "layout attribute '%s(...)' (%s) is not supported", unsupported_attrs[i].word,
				    unsupported_attrs[i].means);
	bool d = ffu__tok_is(&at, "D"), nnz = ffu__tok_is(&at, "NNZ"), mont = ffu__tok_is(&at, "MONT");
	if (!d && !nnz && !mont)
		return PERR(&at, "unknown layout attribute '" TOKFMT "'", TOKARG(&at));
	if ((d && lo->n_levels) || (nnz && lo->nnz >= 0) || (mont && lo->mont >= 0))
		return PERR(&at, "duplicate layout attribute '" TOKFMT "'", TOKARG(&at));
	ffu__hp_advance(p);
	if (d) {
		lo->levels_tok = at;
		return parse_levels(p, lo);
	}
	TRY(ffu__hp_expect(p, FFU_TOK_LPAREN, "'('"));
	if (nnz) {
		lo->nnz_tok = at;
		TRY(ffu__hp_int(p, "a number of stored elements", &lo->nnz));
	} else {
		lo->mont_tok = at;
		if (!ffu__tok_is(&p->tok, "true") && !ffu__tok_is(&p->tok, "false"))
			return ffu__hp_unexpected(p, "true or false");
		lo->mont = p->tok.text[0] == 't';
		ffu__hp_advance(p);
	}
	return ffu__hp_expect(p, FFU_TOK_RPAREN, "')'");
}

static ffu_status parse_layout(parser *p, layout *lo)
{
	lo->open = p->tok;
	ffu__hp_advance(p);
	while (p->tok.kind != FFU_TOK_COLON && p->tok.kind != FFU_TOK_RBRACE) {
		if (lo->n_order > 0)
			TRY(ffu__hp_expect(p, FFU_TOK_COMMA, "',', ':' or '}'"));
		if (lo->n_order == FFU_MAX_RANK)
			return PERR(&p->tok, "layout lists more than %d dimensions", FFU_MAX_RANK);
		lo->order_tok[lo->n_order] = p->tok;
		TRY(ffu__hp_int(p, "a dimension number", &lo->order[lo->n_order]));
		lo->n_order++;
	}
	if (p->tok.kind == FFU_TOK_COLON) {
		ffu__hp_advance(p);
		while (p->tok.kind != FFU_TOK_RBRACE)
			TRY(parse_layout_attr(p, lo));
	}
	ffu__hp_advance(p);
	return FFU_STATUS_OK;
}

/* The layout against its array shape: a permutation of the dimensions; dense row-major or
   CSR, which marks the shape sparse (s->csr, s->nnz: ir/csr.c). */
static ffu_status check_layout(parser *p, const layout *lo, ffu_shape *s)
{
	char sb[128];
	ffu__shape_format(s, sb, sizeof sb);
	if (lo->n_order && lo->n_order != s->rank)
		return PERR(&lo->open, "layout lists %d dimension%s but %s has rank %d", lo->n_order,
			    lo->n_order == 1 ? "" : "s", sb, s->rank);
	bool row_major = true, seen[FFU_MAX_RANK] = {false};
	for (int i = 0; i < lo->n_order; i++) {
		int64_t d = lo->order[i];
		if (d >= s->rank)
			return PERR(&lo->order_tok[i], "layout dimension %lld is out of range for %s", (long long)d, sb);
		if (seen[d])
			return PERR(&lo->order_tok[i], "layout lists dimension %lld twice", (long long)d);
		seen[d] = true;
		row_major = row_major && d == s->rank - 1 - i;
	}
	if (lo->n_levels && lo->n_levels != s->rank)
		return PERR(&lo->levels_tok, "layout D(...) has %d entries but %s has rank %d", lo->n_levels, sb,
			    s->rank);
	bool sparse = false;
	for (int i = 0; i < lo->n_levels; i++)
		sparse = sparse || lo->compressed[i];
	if (lo->nnz >= 0 && !sparse)
		return PERR(&lo->nnz_tok, "NNZ(...) applies to sparse layouts (D(D, C)) only");
	if (lo->nnz > ffu__shape_count(s))
		return PERR(&lo->nnz_tok, "NNZ(%lld) exceeds the %lld elements of %s", (long long)lo->nnz,
			    (long long)ffu__shape_count(s), sb);
	if (sparse) {
		/* ZKX's LayoutUtil::IsCSR; CSC ({0,1}) and COO (D(C, S)) are its other two */
		bool csr = s->rank == 2 && !lo->compressed[0] && lo->compressed[1] && lo->n_order == 2 && row_major;
		if (!csr)
			return UNSUPPORTED(&lo->levels_tok, "sparse layout of %s is not supported: the only sparse layout is CSR "
				    "(D(D, C) on a rank-2 array, minor_to_major {1,0})", sb);
		if (lo->nnz < 0)
			return PERR(&lo->levels_tok, "CSR sparse array %s needs NNZ(n), its number of stored entries (ZKX: "
				    "the size of its column and value arrays)", sb);
		s->csr = true;
		s->nnz = lo->nnz;
		return FFU_STATUS_OK;
	}
	if (!row_major)
		return UNSUPPORTED(&lo->open, "layout of %s is not row-major: fieldfuse arrays are dense row-major "
			    "(minor_to_major {%s})", sb, s->rank == 2 ? "1,0" : s->rank == 3 ? "2,1,0" : "3,2,1,0");
	return FFU_STATUS_OK;
}

/* The element type from the spelled name, the dialect and the layout's MONT(b). */
static ffu_status settle_type(parser *p, const elem_name *en, const layout *lo, ffu_type *out)
{
	bool field = is_field_type(en->field);
	bool mont = en->form == SPELL_MONT || (en->form == SPELL_PLAIN && field && p->plain_is_mont);
	const char *fname = ffu__type_name(en->field);
	if (lo->mont >= 0) {
		if (!field)
			return PERR(&lo->mont_tok, "layout MONT(...) applies to field types, not %s", fname);
		if ((en->form == SPELL_STD && lo->mont) || (en->form == SPELL_MONT && !lo->mont))
			return PERR(&lo->mont_tok, "MONT(%s) contradicts the type name '" TOKFMT "'",
				    lo->mont ? "true" : "false", TOKARG(&en->tok));
		mont = lo->mont;
	}
	/* a field's (prime or extension) _mont twin (fields/field.h) */
	*out = mont ? (ffu_type)ffu__field_get((ffu_field_id)en->field)->twin->id : en->field;
	return FFU_STATUS_OK;
}

/* --- shapes --- */

static ffu_status parse_array_shape(parser *p, ffu_shape *s)
{
	elem_name en = {.field = FFU_TYPE_INVALID}; /* (read_elem_name sets it; for GCC's -Wmaybe-uninitialized) */
	TRY(read_elem_name(p, &en));
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
	s->type = en.field; /* for the layout's messages; settled below */
	layout lo = {.nnz = -1, .mont = -1};
	if (layout_ahead(p)) {
		TRY(parse_layout(p, &lo));
		TRY(check_layout(p, &lo, s));
	}
	return settle_type(p, &en, &lo, &s->type);
}

ffu_status ffu__hp_shape(parser *p, ffu_shape *s, int depth)
{
	memset(s, 0, sizeof *s);
	ffu_token start = p->tok;
	if (p->tok.kind != FFU_TOK_LPAREN)
		return parse_array_shape(p, s);
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
		TRY(ffu__hp_shape(p, &s->elems[s->n_elems], depth + 1));
		s->n_elems++;
	}
	ffu__hp_advance(p);
	return FFU_STATUS_OK;
}
