/*
 * src/hlo/parse_collective.c: the collectives' attributes (docs/hlo.md "Collectives") and
 * the module header's replica_count= and num_partitions=. Owned by the HLO front end;
 * parser.c's attribute table and parse_module call these. What the ids mean and whether
 * they partition the ranks is the verifier's (ir/collective.c), so built modules obey the
 * same rules.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hlo/parse.h"

/* XLA's iota form `[G,S]<=[...]`: G groups of S ids (parse_sharding.c reads the list). */
static ffu_status iota_rows(parser *p, const char *what, int *n_rows, int *len, int64_t **out)
{
	ffu_token open = p->tok;
	int64_t gs[2];
	ffu__hp_advance(p);
	for (int k = 0; k < 2; k++) {
		if (k)
			TRY(ffu__hp_expect(p, FFU_TOK_COMMA, "',' and the group size"));
		TRY(ffu__hp_int(p, k ? "a group size" : "a group count", &gs[k]));
	}
	TRY(ffu__hp_expect(p, FFU_TOK_RBRACKET, "']' after [groups,size]"));
	if (gs[0] < 1 || gs[1] < 1 || gs[0] > FFU_MAX_RANKS || gs[1] > FFU_MAX_RANKS || gs[0] * gs[1] > FFU_MAX_RANKS)
		return PERR(&open, "%s: [%lld,%lld] must hold 1 to %d ids", what, (long long)gs[0], (long long)gs[1],
			    FFU_MAX_RANKS);
	if (p->tok.kind != FFU_TOK_IOTA)
		return ffu__hp_unexpected(p, "'<=' (an iota list)");
	if (!(*out = ffu__arena_alloc(&p->m->arena, sizeof **out * (size_t)(gs[0] * gs[1]))))
		return ffu__hp_oom(p);
	*n_rows = (int)gs[0];
	*len = (int)gs[1];
	return ffu__hp_iota_list(p, gs[0] * gs[1], *out);
}

/* `{{a, b, ...}, ...}`: rows of ids into an arena array; every row as long as the first. */
static ffu_status id_rows(parser *p, const char *what, int row_len, int *n_rows, int *len, int64_t **out)
{
	int64_t *ids = NULL;
	size_t n = 0, cap = 0;
	*n_rows = 0;
	*len = row_len;
	if (p->tok.kind == FFU_TOK_LBRACKET && row_len < 0) /* replica_groups only */
		return iota_rows(p, what, n_rows, len, out);
	ffu_status st = ffu__hp_expect(p, FFU_TOK_LBRACE, "'{'");
	while (st == FFU_STATUS_OK && p->tok.kind != FFU_TOK_RBRACE) {
		if (*n_rows > 0 && (st = ffu__hp_expect(p, FFU_TOK_COMMA, "',' or '}'")))
			break;
		ffu_token row = p->tok;
		if ((st = ffu__hp_expect(p, FFU_TOK_LBRACE, "'{' (a group)")))
			break;
		int k = 0;
		while (st == FFU_STATUS_OK && p->tok.kind != FFU_TOK_RBRACE) {
			if (k > 0 && (st = ffu__hp_expect(p, FFU_TOK_COMMA, "',' or '}'")))
				break;
			if (!ffu__hp_grow((void **)&ids, &cap, n + 1, sizeof *ids)) {
				st = ffu__hp_oom(p);
				break;
			}
			if ((st = ffu__hp_int(p, "an id", &ids[n])))
				break;
			if (ids[n] > INT32_MAX) {
				st = PERR(&row, "%s: id %lld is too large", what, (long long)ids[n]);
				break;
			}
			n++;
			k++;
		}
		if (st)
			break;
		ffu__hp_advance(p);
		if (*len < 0)
			*len = k;
		if (k != *len || k == 0) {
			st = k == 0 ? PERR(&row, "%s: an empty group", what)
				    : PERR(&row, "%s: this group has %d id%s, the first %d (groups of one size are supported)",
					   what, k, k == 1 ? "" : "s", *len);
			break;
		}
		++*n_rows;
	}
	if (st == FFU_STATUS_OK) {
		ffu__hp_advance(p);
		*out = NULL;
		if (n && !(*out = ffu__arena_alloc(&p->m->arena, sizeof *ids * n)))
			st = ffu__hp_oom(p);
		else if (n)
			memcpy(*out, ids, sizeof *ids * n);
	}
	free(ids);
	if (*len < 0)
		*len = 0;
	return st;
}

ffu_status ffu__hp_attr_replica_groups(parser *p, ffu_inst *in)
{
	return id_rows(p, "replica_groups", -1, &in->coll.n_groups, &in->coll.group_size, &in->coll.groups);
}

ffu_status ffu__hp_attr_source_target_pairs(parser *p, ffu_inst *in)
{
	int len;
	return id_rows(p, "source_target_pairs", 2, &in->coll.n_pairs, &len, &in->coll.pairs);
}

ffu_status ffu__hp_attr_channel_id(parser *p, ffu_inst *in)
{
	ffu_token t = p->tok;
	TRY(ffu__hp_int(p, "a channel id", &in->coll.channel_id));
	if (in->coll.channel_id < 1)
		return PERR(&t, "channel_id must be positive");
	return FFU_STATUS_OK;
}

ffu_status ffu__hp_attr_global_ids(parser *p, ffu_inst *in)
{
	ffu_token t = p->tok;
	if (ffu__tok_is(&t, "true") || ffu__tok_is(&t, "false")) {
		in->coll.has_global_ids = true;
		in->coll.global_ids = ffu__tok_is(&t, "true");
		ffu__hp_advance(p);
		return FFU_STATUS_OK;
	}
	return PERR(&t, "use_global_device_ids is true or false, not '" TOKFMT "'", TOKARG(&t));
}

/*
 * The rest of the `HloModule NAME` line, raw (its other attributes, such as
 * entry_computation_layout, are not read: docs/hlo.md): replica_count=N and
 * num_partitions=N, positive integers, each at most once.
 */
ffu_status ffu__hp_module_attrs(parser *p)
{
	const ffu_lexer *lx = &p->lx;
	size_t end = lx->pos;
	while (end < lx->len && lx->src[end] != '\n')
		end++;
	static const char *const keys[2] = {"replica_count=", "num_partitions="};
	int64_t *vals[2] = {&p->m->replica_count, &p->m->num_partitions};
	for (int k = 0; k < 2; k++) {
		size_t kl = strlen(keys[k]);
		bool seen = false;
		for (size_t i = lx->pos; i + kl <= end; i++) {
			if (memcmp(lx->src + i, keys[k], kl) != 0 || (i > lx->pos && lx->src[i - 1] != ',' && lx->src[i - 1] != ' '))
				continue;
			int col = lx->col + (int)(i - lx->pos);
			if (seen)
				return ffu__hp_err_at(p, FFU_STATUS_EPARSE, lx->line, col, "%.*s given twice", (int)kl - 1, keys[k]);
			seen = true;
			int64_t v = 0;
			size_t j = i + kl;
			while (j < end && lx->src[j] >= '0' && lx->src[j] <= '9' && v < 1000000)
				v = v * 10 + (lx->src[j++] - '0');
			if (j == i + kl || v < 1 || v >= 1000000 || (j < end && lx->src[j] != ',' && lx->src[j] != ' ' && lx->src[j] != '\r'))
				return ffu__hp_err_at(p, FFU_STATUS_EPARSE, lx->line, col, "%.*s must be a positive integer",
						      (int)kl - 1, keys[k]);
			*vals[k] = v;
		}
	}
	return FFU_STATUS_OK;
}
