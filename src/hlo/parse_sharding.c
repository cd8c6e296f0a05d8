/*
 * src/hlo/parse_sharding.c: XLA's sharding={...} attribute (docs/hlo.md "Sharding") and
 * the iota lists XLA writes for long id lists ([4]<=[2,2]T(1,0)), which replica_groups
 * also takes (parse_collective.c). Owned by the HLO front end; what a sharding means and
 * whether it fits its value is the IR's (ir/sharding.c), so built modules obey the same
 * rules.
 *
 * Read: {replicated}, {maximal device=D}, {devices=[t0,t1,...]id,id,...} or with the ids
 * as an iota list, optionally followed by last_tile_dim_replicate or
 * last_tile_dims={replicated}, and tuples of these {{...}, {...}}; a trailing metadata={...}
 * is skipped as the instruction's metadata is. {manual} and manual subgroups are refused as
 * unsupported: they say each device holds data of its own, which fieldfuse run cannot cut
 * from one value file.
 */
#include <stdlib.h>
#include <string.h>

#include "hlo/parse.h"

enum { MAX_TILE_DIMS = FFU_MAX_RANK + 1 };

/* `[a, b, ...]` (or with parens: `(a, b)`): at most max non-negative integers. */
static ffu_status int_list(parser *p, ffu_tok_kind open, ffu_tok_kind close, int max, const char *what, int64_t *out,
			   int *n)
{
	ffu_token at = p->tok;
	*n = 0;
	TRY(ffu__hp_expect(p, open, open == FFU_TOK_LBRACKET ? "'['" : "'('"));
	while (p->tok.kind != close) {
		if (*n > 0)
			TRY(ffu__hp_expect(p, FFU_TOK_COMMA, close == FFU_TOK_RBRACKET ? "',' or ']'" : "',' or ')'"));
		if (*n == max)
			return PERR(&at, "%s: more than %d entries", what, max);
		TRY(ffu__hp_int(p, what, &out[(*n)++]));
	}
	ffu__hp_advance(p);
	if (*n == 0)
		return PERR(&at, "%s: an empty list", what);
	return FFU_STATUS_OK;
}

/*
 * `<=[r0, r1, ...]` optionally followed by `T(perm)`: the numbers 0..n-1 laid out as an
 * array of dims r, transposed by perm, read in row-major order (XLA's
 * IotaTileAssignment). The current token is `<=`; n is how many the list must hold.
 */
ffu_status ffu__hp_iota_list(parser *p, int64_t n, int64_t *out)
{
	ffu_token at = p->tok;
	int64_t r[MAX_TILE_DIMS], perm[MAX_TILE_DIMS];
	int nr = 0, np = 0;
	TRY(ffu__hp_expect(p, FFU_TOK_IOTA, "'<='"));
	TRY(int_list(p, FFU_TOK_LBRACKET, FFU_TOK_RBRACKET, MAX_TILE_DIMS, "an iota list's dimension", r, &nr));
	int64_t total = 1;
	for (int k = 0; k < nr; k++)
		total = r[k] > 0 && total <= n ? total * r[k] : n + 1;
	if (total != n)
		return PERR(&at, "the iota list's dimensions hold %s ids; %lld are needed", total > n ? "more" : "fewer",
			    (long long)n);
	for (int k = 0; k < nr; k++)
		perm[k] = k;
	if (ffu__tok_is(&p->tok, "T")) {
		ffu__hp_advance(p);
		ffu_token pt = p->tok;
		TRY(int_list(p, FFU_TOK_LPAREN, FFU_TOK_RPAREN, MAX_TILE_DIMS, "a transpose's dimension", perm, &np));
		bool seen[MAX_TILE_DIMS] = {false};
		for (int k = 0; k < np; k++) {
			if (np != nr || perm[k] >= nr || seen[perm[k]])
				return PERR(&pt, "T(...) must list each of the %d iota dimensions once", nr);
			seen[perm[k]] = true;
		}
	}
	/* position i of the transposed array, as an index into the iota array, is its value */
	int64_t stride[MAX_TILE_DIMS], idx[MAX_TILE_DIMS] = {0};
	int64_t step = 1;
	for (int k = nr - 1; k >= 0; step *= r[k], k--)
		stride[k] = step;
	for (int64_t i = 0; i < n; i++) {
		int64_t v = 0;
		for (int k = 0; k < nr; k++)
			v += idx[k] * stride[perm[k]];
		out[i] = v;
		for (int k = nr - 1; k >= 0 && ++idx[k] == r[perm[k]]; k--)
			idx[k] = 0;
	}
	return FFU_STATUS_OK;
}

/* `devices=[t...]ids` after `devices`, and what may follow the ids. */
static ffu_status tiled(parser *p, ffu_sharding *s)
{
	ffu_token at = p->tok;
	TRY(ffu__hp_expect(p, FFU_TOK_EQUAL, "'=' after devices"));
	TRY(int_list(p, FFU_TOK_LBRACKET, FFU_TOK_RBRACKET, MAX_TILE_DIMS, "a tile count", s->dims, &s->n_dims));
	int64_t n = 1;
	for (int d = 0; d < s->n_dims; d++) {
		if (s->dims[d] < 1 || s->dims[d] > FFU_MAX_RANKS || (n *= s->dims[d]) > FFU_MAX_RANKS)
			return PERR(&at, "the tile assignment [...] must hold 1 to %d devices, each count positive", FFU_MAX_RANKS);
	}
	s->kind = FFU_SHARD_TILED;
	if (!(s->devices = ffu__arena_alloc(&p->m->arena, sizeof *s->devices * (size_t)n)))
		return ffu__hp_oom(p);
	if (p->tok.kind == FFU_TOK_IOTA) {
		TRY(ffu__hp_iota_list(p, n, s->devices));
	} else {
		for (int64_t k = 0; k < n; k++) {
			if (k > 0)
				TRY(ffu__hp_expect(p, FFU_TOK_COMMA, "',' and the next device id"));
			TRY(ffu__hp_int(p, "a device id", &s->devices[k]));
		}
		if (p->tok.kind == FFU_TOK_COMMA)
			return PERR(&p->tok, "more device ids than the tile assignment's %lld", (long long)n);
	}
	if (ffu__tok_is(&p->tok, "last_tile_dim_replicate")) {
		s->last_replicate = true;
		ffu__hp_advance(p);
	} else if (ffu__tok_is(&p->tok, "last_tile_dims")) {
		ffu_token lt = p->tok;
		ffu__hp_advance(p);
		TRY(ffu__hp_expect(p, FFU_TOK_EQUAL, "'='"));
		TRY(ffu__hp_expect(p, FFU_TOK_LBRACE, "'{'"));
		if (!ffu__tok_is(&p->tok, "replicated"))
			return UNSUPPORTED(&lt, "last_tile_dims other than {replicated} (manual subgroups) are not supported");
		ffu__hp_advance(p);
		TRY(ffu__hp_expect(p, FFU_TOK_RBRACE, "'}' (one replicated subgroup)"));
		s->last_replicate = true;
	}
	if (s->last_replicate && s->n_dims < 2)
		return PERR(&at, "last_tile_dim_replicate needs a tile assignment of at least 2 dimensions");
	return FFU_STATUS_OK;
}

/* One sharding after its `{`, up to and including its `}`. */
static ffu_status one(parser *p, ffu_sharding *s, int depth)
{
	ffu_token at = p->tok;
	if (p->tok.kind == FFU_TOK_LBRACE) { /* a tuple: {{...}, {...}} */
		if (depth > 0)
			return PERR(&at, "a tuple sharding inside a tuple sharding (XLA lists the leaves flat)");
		ffu_sharding *el = NULL;
		size_t cap = 0;
		int n = 0;
		ffu_status st = FFU_STATUS_OK;
		while (st == FFU_STATUS_OK && p->tok.kind != FFU_TOK_RBRACE) {
			if (n > 0 && (st = ffu__hp_expect(p, FFU_TOK_COMMA, "',' or '}'")))
				break;
			if (!ffu__hp_grow((void **)&el, &cap, (size_t)n + 1, sizeof *el)) {
				st = ffu__hp_oom(p);
				break;
			}
			memset(&el[n], 0, sizeof el[n]);
			if ((st = ffu__hp_expect(p, FFU_TOK_LBRACE, "'{' (an element's sharding)")) == FFU_STATUS_OK)
				st = one(p, &el[n++], depth + 1);
		}
		if (st == FFU_STATUS_OK) {
			ffu__hp_advance(p);
			s->kind = FFU_SHARD_TUPLE;
			s->n_elems = n;
			if (!(s->elems = ffu__arena_alloc(&p->m->arena, sizeof *el * (size_t)n)))
				st = ffu__hp_oom(p);
			else
				memcpy(s->elems, el, sizeof *el * (size_t)n);
		}
		free(el);
		return st;
	}
	if (ffu__tok_is(&at, "replicated")) {
		s->kind = FFU_SHARD_REPLICATED;
		ffu__hp_advance(p);
	} else if (ffu__tok_is(&at, "maximal")) {
		ffu__hp_advance(p);
		if (!ffu__tok_is(&p->tok, "device"))
			return ffu__hp_unexpected(p, "device=D after maximal");
		ffu__hp_advance(p);
		TRY(ffu__hp_expect(p, FFU_TOK_EQUAL, "'=' after device"));
		s->kind = FFU_SHARD_MAXIMAL;
		TRY(ffu__hp_int(p, "a device id", &s->device));
	} else if (ffu__tok_is(&at, "devices")) {
		ffu__hp_advance(p);
		TRY(tiled(p, s));
	} else if (ffu__tok_is(&at, "manual") || ffu__tok_is(&at, "unknown")) {
		return UNSUPPORTED(&at, "sharding={" TOKFMT "} is not supported: fieldfuse run splits a value by its tiles "
				   "({devices=[...]...}) or hands every rank all of it ({replicated})", TOKARG(&at));
	} else {
		return ffu__hp_unexpected(p, "replicated, maximal, devices or a tuple of shardings");
	}
	if (ffu__tok_is(&p->tok, "metadata")) { /* the sharding's origin, as the instruction's metadata: skipped */
		ffu__hp_advance(p);
		TRY(ffu__hp_expect(p, FFU_TOK_EQUAL, "'=' after metadata"));
		TRY(ffu__hp_skip_braces(p));
	}
	return ffu__hp_expect(p, FFU_TOK_RBRACE, "'}' (the end of the sharding)");
}

ffu_status ffu__hp_attr_sharding(parser *p, ffu_inst *in)
{
	ffu_sharding *s = ffu__arena_alloc(&p->m->arena, sizeof *s);
	if (!s)
		return ffu__hp_oom(p);
	memset(s, 0, sizeof *s);
	TRY(ffu__hp_expect(p, FFU_TOK_LBRACE, "'{' (a sharding)"));
	TRY(one(p, s, 0));
	in->sharding = s;
	return FFU_STATUS_OK;
}
