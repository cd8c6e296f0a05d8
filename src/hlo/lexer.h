/*
 * src/hlo/lexer.h: tokens of the HLO text dialect (docs/hlo.md), internal to src/hlo/.
 * Owned by the HLO front end; the parser is its only user.
 *
 * The lexer works on (pointer, length), never on NUL-terminated text, so input may hold NUL
 * bytes and junk: anything it does not know becomes a TOK_ERROR token carrying a static
 * message, and the parser reports it where it meets it. Tokens point into the input; they
 * stay valid as long as the input does. Positions are 1-based; columns count bytes.
 */
#ifndef FFU_HLO_LEXER_H
#define FFU_HLO_LEXER_H

#include <stdbool.h>
#include <stddef.h>

typedef enum ffu_tok_kind {
	FFU_TOK_EOF,
	FFU_TOK_ERROR,    /* text/len: the offending bytes; msg: why */
	FFU_TOK_WORD,     /* [A-Za-z0-9_.-]+: names, keywords, numbers; percent: had a '%' sigil */
	FFU_TOK_STRING,   /* "..." with backslash escapes; text includes the quotes */
	FFU_TOK_LPAREN,
	FFU_TOK_RPAREN,
	FFU_TOK_LBRACE,
	FFU_TOK_RBRACE,
	FFU_TOK_LBRACKET,
	FFU_TOK_RBRACKET,
	FFU_TOK_COMMA,
	FFU_TOK_EQUAL,
	FFU_TOK_COLON,
	FFU_TOK_ARROW,    /* -> */
	FFU_TOK_IOTA,     /* <= (XLA's iota lists: [2,2]<=[4]) */
} ffu_tok_kind;

typedef struct ffu_token {
	ffu_tok_kind kind;
	const char *text; /* WORD: without the '%' */
	size_t len;
	bool percent;
	int line, col;    /* of the first byte (the '%' for sigiled words) */
	const char *msg;  /* FFU_TOK_ERROR only */
} ffu_token;

/* Plain value: copying it saves the position, which is how the parser looks ahead. */
typedef struct ffu_lexer {
	const char *src;
	size_t len, pos;
	int line, col;
} ffu_lexer;

void ffu__lex_init(ffu_lexer *lx, const char *src, size_t len);
ffu_token ffu__lex_next(ffu_lexer *lx);
/* Skips the raw bytes up to the end of the current line (for `HloModule NAME ...`). */
void ffu__lex_skip_line(ffu_lexer *lx);
/* "'('", "a name", ...: for "expected X, found Y" messages. */
const char *ffu__tok_kind_name(ffu_tok_kind k);
bool ffu__tok_is(const ffu_token *t, const char *word); /* plain (no '%') word equal to word */

#endif
