/*
 * src/hlo/lexer.c: splits HLO text into tokens (see lexer.h). Owned by the HLO front end.
 * Comments and whitespace are skipped here so the parser never sees them; an unterminated
 * block comment or string is an error token at its start, which is where a user looks.
 */
#include "hlo/lexer.h"

#include <string.h>

void ffu__lex_init(ffu_lexer *lx, const char *src, size_t len)
{
	lx->src = src;
	lx->len = src ? len : 0;
	lx->pos = 0;
	lx->line = 1;
	lx->col = 1;
}

static void bump(ffu_lexer *lx)
{
	if (lx->src[lx->pos] == '\n') {
		lx->line++;
		lx->col = 1;
	} else {
		lx->col++;
	}
	lx->pos++;
}

static bool is_word_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == '-';
}

static ffu_token make(const ffu_lexer *lx, ffu_tok_kind k, size_t start, int line, int col)
{
	ffu_token t = {0};
	t.kind = k;
	t.text = lx->src + start;
	t.len = lx->pos - start;
	t.line = line;
	t.col = col;
	return t;
}

static ffu_token error_at(const ffu_lexer *lx, size_t start, size_t len, int line, int col,
			  const char *msg)
{
	ffu_token t = {0};
	t.kind = FFU_TOK_ERROR;
	t.text = lx->src + start;
	t.len = len;
	t.line = line;
	t.col = col;
	t.msg = msg;
	return t;
}

/* Skips whitespace and comments; returns false (and fills *err) on an unterminated comment. */
static bool skip_space(ffu_lexer *lx, ffu_token *err)
{
	while (lx->pos < lx->len) {
		char c = lx->src[lx->pos];
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
			bump(lx);
		} else if (c == '/' && lx->pos + 1 < lx->len && lx->src[lx->pos + 1] == '/') {
			while (lx->pos < lx->len && lx->src[lx->pos] != '\n')
				bump(lx);
		} else if (c == '/' && lx->pos + 1 < lx->len && lx->src[lx->pos + 1] == '*') {
			size_t start = lx->pos;
			int line = lx->line, col = lx->col;
			bump(lx);
			bump(lx);
			for (;;) {
				if (lx->pos + 1 >= lx->len) {
					while (lx->pos < lx->len)
						bump(lx);
					*err = error_at(lx, start, 2, line, col, "unterminated block comment");
					return false;
				}
				if (lx->src[lx->pos] == '*' && lx->src[lx->pos + 1] == '/') {
					bump(lx);
					bump(lx);
					break;
				}
				bump(lx);
			}
		} else {
			break;
		}
	}
	return true;
}

ffu_token ffu__lex_next(ffu_lexer *lx)
{
	ffu_token err;
	if (!skip_space(lx, &err))
		return err;
	size_t start = lx->pos;
	int line = lx->line, col = lx->col;
	if (lx->pos >= lx->len)
		return make(lx, FFU_TOK_EOF, start, line, col);

	unsigned char c = (unsigned char)lx->src[lx->pos];
	static const struct {
		char c;
		ffu_tok_kind k;
	} punct[] = {
		{'(', FFU_TOK_LPAREN},   {')', FFU_TOK_RPAREN},   {'{', FFU_TOK_LBRACE},
		{'}', FFU_TOK_RBRACE},   {'[', FFU_TOK_LBRACKET}, {']', FFU_TOK_RBRACKET},
		{',', FFU_TOK_COMMA},    {'=', FFU_TOK_EQUAL},    {':', FFU_TOK_COLON},
	};
	for (size_t i = 0; i < sizeof punct / sizeof punct[0]; i++) {
		if (c == (unsigned char)punct[i].c) {
			bump(lx);
			return make(lx, punct[i].k, start, line, col);
		}
	}
	/* '-' is a word character (get-tuple-element, -1 as a bad literal), except in "->". */
	if (c == '-' && lx->pos + 1 < lx->len && lx->src[lx->pos + 1] == '>') {
		bump(lx);
		bump(lx);
		return make(lx, FFU_TOK_ARROW, start, line, col);
	}
	if (c == '<' && lx->pos + 1 < lx->len && lx->src[lx->pos + 1] == '=') {
		bump(lx);
		bump(lx);
		return make(lx, FFU_TOK_IOTA, start, line, col);
	}
	if (c == '%' || is_word_char(c)) {
		bool percent = c == '%';
		if (percent)
			bump(lx);
		size_t wstart = lx->pos;
		while (lx->pos < lx->len && is_word_char((unsigned char)lx->src[lx->pos])) {
			/* `(a: babybear[])->x` never occurs in words, but `name->` must still split. */
			if (lx->src[lx->pos] == '-' && lx->pos + 1 < lx->len && lx->src[lx->pos + 1] == '>')
				break;
			bump(lx);
		}
		if (lx->pos == wstart)
			return error_at(lx, start, 1, line, col, "expected a name after '%'");
		ffu_token t = make(lx, FFU_TOK_WORD, wstart, line, col);
		t.percent = percent;
		return t;
	}
	if (c == '"') {
		bump(lx);
		while (lx->pos < lx->len && lx->src[lx->pos] != '"') {
			if (lx->src[lx->pos] == '\\' && lx->pos + 1 < lx->len)
				bump(lx);
			bump(lx);
		}
		if (lx->pos >= lx->len)
			return error_at(lx, start, 1, line, col, "unterminated string");
		bump(lx);
		return make(lx, FFU_TOK_STRING, start, line, col);
	}
	/* Do not consume it: the parser reports here and stops. */
	if (c < 0x20 || c >= 0x7f)
		return error_at(lx, start, 1, line, col, "unexpected byte in input");
	return error_at(lx, start, 1, line, col, "unexpected character");
}

void ffu__lex_skip_line(ffu_lexer *lx)
{
	while (lx->pos < lx->len && lx->src[lx->pos] != '\n')
		bump(lx);
}

const char *ffu__tok_kind_name(ffu_tok_kind k)
{
	switch (k) {
	case FFU_TOK_EOF: return "end of input";
	case FFU_TOK_ERROR: return "an invalid token";
	case FFU_TOK_WORD: return "a name";
	case FFU_TOK_STRING: return "a string";
	case FFU_TOK_LPAREN: return "'('";
	case FFU_TOK_RPAREN: return "')'";
	case FFU_TOK_LBRACE: return "'{'";
	case FFU_TOK_RBRACE: return "'}'";
	case FFU_TOK_LBRACKET: return "'['";
	case FFU_TOK_RBRACKET: return "']'";
	case FFU_TOK_COMMA: return "','";
	case FFU_TOK_EQUAL: return "'='";
	case FFU_TOK_COLON: return "':'";
	case FFU_TOK_ARROW: return "'->'";
	case FFU_TOK_IOTA: return "'<='";
	}
	return "a token";
}

bool ffu__tok_is(const ffu_token *t, const char *word)
{
	size_t n = strlen(word);
	return t->kind == FFU_TOK_WORD && !t->percent && t->len == n && memcmp(t->text, word, n) == 0;
}
