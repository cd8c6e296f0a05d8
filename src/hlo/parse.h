/*
 * src/hlo/parse.h: the HLO parser's shared state and helpers, internal to src/hlo/parse*.c
 * and parser.c. Owned by the HLO front end. The parser is split by concern: parse_base.c
 * (errors, tokens, integers, dimension lists), parse_shape.c (element types, their ZKX
 * spellings and dialects, layouts, shapes), parse_literal.c (constants), parse_dot.c (dot's
 * attributes), parse_collective.c (the collectives' attributes), parse_sharding.c (sharding=) and parser.c (instructions, computations, the module).
 */
#ifndef FFU_HLO_PARSE_H
#define FFU_HLO_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hlo/hlo.h"
#include "hlo/lexer.h"
#include "util/symtab.h"

typedef struct parser {
	ffu_lexer lx;   /* positioned just after tok */
	ffu_token tok;  /* current token */
	const char *file;
	ffu_error *e;
	ffu_module *m;
	ffu_computation *comp;
	ffu_symtab insts;      /* instructions of the current computation (names are scoped) */
	ffu_symtab all_insts;  /* first instruction of each name in the module, for messages */
	ffu_symtab comps;
	bool plain_is_mont;    /* dialect zkx-2026.01: a plain field name means Montgomery form */
	/* dot's four dimension lists of the instruction being read (lhs_batch_dims,
	   rhs_batch_dims, lhs_contracting_dims, rhs_contracting_dims): entries written, -1 if
	   absent, and where; the IR keeps one count per pair, settled after the attributes */
	int dot_n[4];
	ffu_token dot_tok[4];
	/* scratch reused across instructions (malloc'd) */
	ffu_inst **ops;
	size_t ops_cap;
	unsigned char *lit;
	size_t lit_cap;
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

ffu_status ffu__hp_err_at(parser *p, ffu_status s, int line, int col, const char *fmt, ...) FFU_PRINTF(5, 6);
#define PERR(t, ...) ffu__hp_err_at(p, FFU_STATUS_EPARSE, (t)->line, (t)->col, __VA_ARGS__)
/* Valid ZKX/XLA text that fieldfuse cannot run yet (a type, a layout it lacks). */
#define UNSUPPORTED(t, ...) ffu__hp_err_at(p, FFU_STATUS_EUNSUPPORTED, (t)->line, (t)->col, __VA_ARGS__)
ffu_status ffu__hp_oom(parser *p);
/* "expected WHAT, found ..."; a lexer error token reports its own message instead. */
ffu_status ffu__hp_unexpected(parser *p, const char *what);

static inline void ffu__hp_advance(parser *p)
{
	p->tok = ffu__lex_next(&p->lx);
}

/* The token after the current one, without consuming anything. */
static inline ffu_token ffu__hp_peek2(const parser *p)
{
	ffu_lexer copy = p->lx;
	return ffu__lex_next(&copy);
}

ffu_status ffu__hp_expect(parser *p, ffu_tok_kind k, const char *what);
char *ffu__hp_strdup(parser *p, const ffu_token *t);
/* Grows a malloc'd array to hold need elements of elem bytes; false on overflow or OOM. */
bool ffu__hp_grow(void **buf, size_t *cap, size_t need, size_t elem);
/* A non-negative decimal integer that fits int64 (dimensions, indices, parameter numbers). */
ffu_status ffu__hp_int(parser *p, const char *what, int64_t *out);
/* Skips a balanced {...} group without recursing (ignored attribute values). */
ffu_status ffu__hp_skip_braces(parser *p);
/* `{d, ...}`: at most FFU_MAX_RANK dimension numbers into dims, their count into *n. */
ffu_status ffu__hp_dim_list(parser *p, int64_t dims[FFU_MAX_RANK], int *n);

/* dot's attributes (parse_dot.c): each list into the instruction, then, after all of an
   instruction's attributes, the pairing of the lists and ZKX's default for a sparse dot. */
ffu_status ffu__hp_attr_lhs_batch(parser *p, ffu_inst *in);
ffu_status ffu__hp_attr_rhs_batch(parser *p, ffu_inst *in);
ffu_status ffu__hp_attr_lhs_contract(parser *p, ffu_inst *in);
ffu_status ffu__hp_attr_rhs_contract(parser *p, ffu_inst *in);
ffu_status ffu__hp_dot_finish(parser *p, ffu_inst *in);

/* the collectives' attributes and the module header's replica_count=, num_partitions=
   (parse_collective.c) */
ffu_status ffu__hp_attr_replica_groups(parser *p, ffu_inst *in);
ffu_status ffu__hp_attr_source_target_pairs(parser *p, ffu_inst *in);
ffu_status ffu__hp_attr_channel_id(parser *p, ffu_inst *in);
ffu_status ffu__hp_attr_global_ids(parser *p, ffu_inst *in);
ffu_status ffu__hp_module_attrs(parser *p);
/* sharding={...} (parse_sharding.c), and the iota id lists XLA writes (`<=[2,2]T(1,0)`,
   the current token `<=`): exactly n ids into out */
ffu_status ffu__hp_attr_sharding(parser *p, ffu_inst *in);
ffu_status ffu__hp_iota_list(parser *p, int64_t n, int64_t *out);

/*
 * Settles o->dialect_used (and, for AUTO, where its evidence is) by a first pass over the
 * tokens, before anything is parsed: a plain name early in the text means what a `_std`
 * name later in it implies. Sets p->plain_is_mont.
 */
void ffu__hp_choose_dialect(parser *p, const char *text, size_t len, ffu_parse_options *o);

/*
 * A shape with its optional layout (a `{` opens one only if an integer or `:` follows, so
 * `-> type[n] {` after a signature opens the body), its element type settled by the dialect.
 */
ffu_status ffu__hp_shape(parser *p, ffu_shape *s, int depth);
/* The literal of `constant(...)` for shape s, copied into the module's arena. */
ffu_status ffu__hp_literal(parser *p, const ffu_shape *s, unsigned char **out);

#endif
