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
#include "hlo/parse.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(FFU_OP_COUNT <= 64, "attribute op masks are 64-bit");

/* --- operands --- */

/*
 * Line of a later `NAME =` in the current computation, for a better message than
 * "undefined"; 0 if there is none. Names are scoped, so the scan stops at the '}' that
 * closes the body (literals and attribute values only hold balanced braces).
 */
/*
 * ZKX's opcodes (zkx/hlo/ir/hlo_opcode.h at 70683706) that fieldfuse's op table lacks:
 * valid ZKX text that cannot run here yet is EUNSUPPORTED, told apart from a misspelt
 * opcode (EPARSE). Asked only for names the op table does not know, so an op that lands
 * in src/ir/ops.def needs no edit here.
 */
static bool zkx_opcode(const ffu_token *t)
{
	static const char *const names[] = {
		"abs", "add-dependency", "after-all", "all-gather", "all-gather-done", "all-gather-start",
		"all-reduce", "all-reduce-done", "all-reduce-start", "all-to-all", "and", "async-done",
		"async-start", "async-update", "bitcast", "bitcast-convert", "bit-reverse", "call", "clamp",
		"count-leading-zeros", "collective-broadcast", "collective-permute", "collective-permute-done",
		"collective-permute-start", "conditional", "copy", "copy-done", "copy-start", "custom-call",
		"domain", "dot", "dynamic-reshape", "dynamic-slice", "dynamic-update-slice", "gather",
		"get-dimension-size", "infeed", "map", "maximum", "minimum", "msm", "not", "opt-barrier", "or",
		"outfeed", "pad", "partition-id", "popcnt", "ragged-all-to-all", "ragged-dot", "recv",
		"recv-done", "remainder", "replica-id", "reduce-scatter", "reverse", "scatter", "send",
		"send-done", "set-dimension-size", "shift-left", "shift-right-arithmetic", "shift-right-logical",
		"sign", "sort", "transpose", "while", "xor"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (ffu__tok_is(t, names[i]))
			return true;
	return false;
}

static int later_definition(const parser *p, const ffu_token *name)
{
	ffu_lexer lx = p->lx;
	ffu_token prev = {0};
	long depth = 0;
	for (;;) {
		ffu_token t = ffu__lex_next(&lx);
		if (t.kind == FFU_TOK_EOF || t.kind == FFU_TOK_ERROR)
			return 0;
		if (t.kind == FFU_TOK_LBRACE)
			depth++;
		else if (t.kind == FFU_TOK_RBRACE && --depth < 0)
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
	    (p->tok.kind == FFU_TOK_WORD && !p->tok.percent && ffu__hp_peek2(p).kind == FFU_TOK_LBRACKET)) {
		TRY(ffu__hp_shape(p, &ann, 0));
		annotated = true;
	}
	if (p->tok.kind != FFU_TOK_WORD)
		return ffu__hp_unexpected(p, "an operand name");
	ffu_token nt = p->tok;
	ffu_inst *in = ffu__sym_get(&p->insts, nt.text, nt.len);
	if (!in) {
		int later = later_definition(p, &nt);
		if (later)
			return PERR(&nt, "operand '%%" TOKFMT "' is used before its definition (line %d)",
				    TOKARG(&nt), later);
		const ffu_inst *other = ffu__sym_get(&p->all_insts, nt.text, nt.len);
		if (other)
			return PERR(&nt, "undefined operand '%%" TOKFMT "' in computation '%%%s' (names are scoped "
				    "per computation; '%%" TOKFMT "' is defined in '%%%s')", TOKARG(&nt), p->comp->name,
				    TOKARG(&nt), other->parent->name);
		return PERR(&nt, "undefined operand '%%" TOKFMT "'", TOKARG(&nt));
	}
	if (annotated && !ffu__shape_eq(&ann, &in->shape)) {
		char a[128], b[128];
		ffu__shape_format(&ann, a, sizeof a);
		ffu__shape_format(&in->shape, b, sizeof b);
		return PERR(&ann_tok, "operand '%%%s' is annotated %s but its shape is %s", in->name, a, b);
	}
	ffu__hp_advance(p);
	*out = in;
	return FFU_STATUS_OK;
}

/* --- attributes --- */

typedef ffu_status (*attr_fn)(parser *p, ffu_inst *in);

static ffu_status attr_dimensions(parser *p, ffu_inst *in)
{
	int64_t dims[FFU_MAX_RANK];
	int n;
	TRY(ffu__hp_dim_list(p, dims, &n));
	in->n_dims = n;
	if (n > 0) {
		in->dims = ffu__arena_alloc(&p->m->arena, sizeof *in->dims * (size_t)n);
		if (!in->dims)
			return ffu__hp_oom(p);
		memcpy(in->dims, dims, sizeof *in->dims * (size_t)n);
	}
	return FFU_STATUS_OK;
}

static ffu_status attr_index(parser *p, ffu_inst *in)
{
	return ffu__hp_int(p, "a tuple index", &in->index);
}

static ffu_status attr_iota_dimension(parser *p, ffu_inst *in)
{
	return ffu__hp_int(p, "a dimension number", &in->index);
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
	TRY(ffu__hp_expect(p, FFU_TOK_LBRACE, "'{'"));
	while (p->tok.kind != FFU_TOK_RBRACE) {
		if (n > 0)
			TRY(ffu__hp_expect(p, FFU_TOK_COMMA, "',' or '}'"));
		if (n == FFU_MAX_RANK)
			return PERR(&p->tok, "more than %d slice ranges", FFU_MAX_RANK);
		TRY(ffu__hp_expect(p, FFU_TOK_LBRACKET, "'[' to start a slice range [start:limit:stride]"));
		TRY(ffu__hp_int(p, "a slice start", &in->slice_start[n]));
		TRY(ffu__hp_expect(p, FFU_TOK_COLON, "':' after the slice start"));
		TRY(ffu__hp_int(p, "a slice limit", &in->slice_limit[n]));
		in->slice_stride[n] = 1;
		if (p->tok.kind == FFU_TOK_COLON) {
			ffu__hp_advance(p);
			TRY(ffu__hp_int(p, "a slice stride", &in->slice_stride[n]));
		}
		TRY(ffu__hp_expect(p, FFU_TOK_RBRACKET, "']' to end the slice range"));
		n++;
	}
	if (in->n_operands == 1 && ffu__shape_is_array(&in->operands[0]->shape) &&
	    in->operands[0]->shape.rank != n)
		return PERR(&open, "slice has %d range%s but operand '%%%s' has rank %d (one range per dimension)", n,
			    n == 1 ? "" : "s", in->operands[0]->name, in->operands[0]->shape.rank);
	ffu__hp_advance(p);
	return FFU_STATUS_OK;
}

static ffu_status attr_direction(parser *p, ffu_inst *in)
{
	if (p->tok.kind != FFU_TOK_WORD || p->tok.percent)
		return ffu__hp_unexpected(p, "a compare direction (EQ, NE, LT, LE, GT or GE)");
	/* the ordered four need ordered operands: the verifier names the type (ir/order.c) */
	ffu_compare_dir d = ffu__cmp_dir_by_name(p->tok.text, p->tok.len);
	if (d == FFU_CMP_COUNT)
		return PERR(&p->tok, "unknown compare direction '" TOKFMT "' (EQ, NE, LT, LE, GT or GE)", TOKARG(&p->tok));
	in->direction = d;
	ffu__hp_advance(p);
	return FFU_STATUS_OK;
}

static ffu_status attr_kind(parser *p, ffu_inst *in)
{
	if (p->tok.kind != FFU_TOK_WORD)
		return ffu__hp_unexpected(p, "a fusion kind");
	int k = 0;
	while (k < FFU_FUSION_KIND_COUNT && !ffu__tok_is(&p->tok, ffu__fusion_kind_names[k]))
		k++;
	if (k == FFU_FUSION_KIND_COUNT) {
		char list[128] = "";
		for (int i = 0; i < FFU_FUSION_KIND_COUNT; i++)
			snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
				 i == 0 ? "" : i == FFU_FUSION_KIND_COUNT - 1 ? " or " : ", ", ffu__fusion_kind_names[i]);
		return PERR(&p->tok, "unsupported fusion kind '" TOKFMT "' (%s)", TOKARG(&p->tok), list);
	}
	in->fusion_kind = (ffu_fusion_kind)k;
	ffu__hp_advance(p);
	return FFU_STATUS_OK;
}

/* A computation defined earlier (callees before callers, as XLA prints them), not this one. */
static ffu_status callee_ref(parser *p, ffu_computation **out)
{
	ffu_token t = p->tok;
	if (t.kind != FFU_TOK_WORD)
		return ffu__hp_unexpected(p, "a computation name");
	ffu_computation *c = ffu__sym_get(&p->comps, t.text, t.len);
	if (c == p->comp)
		return PERR(&t, "computation '%%%s' calls itself", c->name);
	if (!c)
		return PERR(&t, "undefined computation '%%" TOKFMT "' (define callees before their callers)",
			    TOKARG(&t));
	*out = c;
	ffu__hp_advance(p);
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

/* fft_type=FFT|IFFT (ZKX's FftType has only these two). */
static ffu_status attr_fft_type(parser *p, ffu_inst *in)
{
	if (ffu__tok_is(&p->tok, "FFT"))
		in->fft.inverse = false;
	else if (ffu__tok_is(&p->tok, "IFFT"))
		in->fft.inverse = true;
	else if (p->tok.kind == FFU_TOK_WORD && !p->tok.percent)
		return PERR(&p->tok, "unknown fft_type '" TOKFMT "' (FFT or IFFT)", TOKARG(&p->tok));
	else
		return ffu__hp_unexpected(p, "an fft_type (FFT or IFFT)");
	ffu__hp_advance(p);
	return FFU_STATUS_OK;
}

static ffu_status attr_fft_length(parser *p, ffu_inst *in)
{
	return ffu__hp_int(p, "an fft_length", &in->fft.length);
}

static ffu_status attr_fft_bit_reverse(parser *p, ffu_inst *in)
{
	if (ffu__tok_is(&p->tok, "true"))
		in->fft.bit_reverse = true;
	else if (ffu__tok_is(&p->tok, "false"))
		in->fft.bit_reverse = false;
	else
		return ffu__hp_unexpected(p, "true or false");
	ffu__hp_advance(p);
	return FFU_STATUS_OK;
}

/* window_bits=N (ZKX's int32; 0 = chosen from the size): 0..31, the verifier narrows it. */
static ffu_status attr_window_bits(parser *p, ffu_inst *in)
{
	ffu_token at = p->tok;
	int64_t v;
	ffu_status st = ffu__hp_int(p, "window_bits", &v);
	if (st)
		return st;
	if (v < 0 || v > 31)
		return PERR(&at, "window_bits=%lld is outside 0..31", (long long)v);
	in->window_bits = (int)v;
	return FFU_STATUS_OK;
}

/* Accepted for compatibility with XLA dumps and dropped: a string, word or balanced {...}. */
static ffu_status attr_ignore(parser *p, ffu_inst *in)
{
	if (p->tok.kind == FFU_TOK_LBRACE)
		return ffu__hp_skip_braces(p);
	if (p->tok.kind == FFU_TOK_STRING || p->tok.kind == FFU_TOK_WORD) {
		ffu__hp_advance(p);
		return FFU_STATUS_OK;
	}
	return ffu__hp_unexpected(p, "an attribute value");
}

/*
 * dynamic-slice's `{s0, ...}`: the window's size per dimension, which is the result's shape,
 * so the IR keeps no copy: the sizes must be the declared result dimensions, one per
 * dimension (the printer writes them back from the shape).
 */
static ffu_status attr_dynamic_slice_sizes(parser *p, ffu_inst *in)
{
	ffu_token open = p->tok;
	int n = 0;
	TRY(ffu__hp_expect(p, FFU_TOK_LBRACE, "'{'"));
	while (p->tok.kind != FFU_TOK_RBRACE) {
		if (n > 0)
			TRY(ffu__hp_expect(p, FFU_TOK_COMMA, "',' or '}'"));
		ffu_token t = p->tok;
		int64_t size;
		TRY(ffu__hp_int(p, "a slice size", &size));
		if (n >= in->shape.rank || size != in->shape.dims[n]) {
			char sbuf[128];
			ffu__shape_format(&in->shape, sbuf, sizeof sbuf);
			return PERR(&t, "dynamic_slice_sizes entry %d is %lld but the result shape is %s (the sizes are the result's dimensions)",
				    n, (long long)size, sbuf);
		}
		n++;
	}
	if (n != in->shape.rank)
		return PERR(&open, "dynamic_slice_sizes has %d entr%s but the result has rank %d (one size per dimension)",
			    n, n == 1 ? "y" : "ies", in->shape.rank);
	ffu__hp_advance(p);
	return FFU_STATUS_OK;
}

#define OPBIT(ID) (UINT64_C(1) << FFU_OP_##ID)
#define ANY_OP UINT64_MAX
#define SPLIT_OPS (OPBIT(ALL_GATHER) | OPBIT(REDUCE_SCATTER) | OPBIT(ALL_TO_ALL))
#define DIMS_OPS (OPBIT(BROADCAST) | OPBIT(CONCATENATE) | OPBIT(REDUCE) | OPBIT(REVERSE) | OPBIT(BIT_REVERSE) | SPLIT_OPS)
#define GROUP_OPS (OPBIT(ALL_REDUCE) | SPLIT_OPS)
#define COMBINE_OPS (OPBIT(REDUCE) | OPBIT(ALL_REDUCE) | OPBIT(REDUCE_SCATTER))

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
	{"dynamic_slice_sizes", attr_dynamic_slice_sizes, OPBIT(DYNAMIC_SLICE), OPBIT(DYNAMIC_SLICE)},
	{"direction", attr_direction, OPBIT(COMPARE), OPBIT(COMPARE)},
	{"to_apply", attr_to_apply, COMBINE_OPS, COMBINE_OPS},
	{"replica_groups", ffu__hp_attr_replica_groups, GROUP_OPS, 0},
	{"source_target_pairs", ffu__hp_attr_source_target_pairs, OPBIT(COLLECTIVE_PERMUTE), OPBIT(COLLECTIVE_PERMUTE)},
	{"channel_id", ffu__hp_attr_channel_id, GROUP_OPS | OPBIT(COLLECTIVE_PERMUTE), 0},
	{"use_global_device_ids", ffu__hp_attr_global_ids, OPBIT(ALL_REDUCE) | OPBIT(ALL_GATHER) | OPBIT(REDUCE_SCATTER), 0},
	{"kind", attr_kind, OPBIT(FUSION), 0},
	{"fft_type", attr_fft_type, OPBIT(FFT), OPBIT(FFT)},
	{"fft_length", attr_fft_length, OPBIT(FFT), OPBIT(FFT)},
	{"fft_do_bit_reverse", attr_fft_bit_reverse, OPBIT(FFT), 0},
	{"window_bits", attr_window_bits, OPBIT(MSM), 0},
	{"calls", attr_calls, OPBIT(FUSION), OPBIT(FUSION)},
	{"lhs_batch_dims", ffu__hp_attr_lhs_batch, OPBIT(DOT), 0},
	{"rhs_batch_dims", ffu__hp_attr_rhs_batch, OPBIT(DOT), 0},
	{"lhs_contracting_dims", ffu__hp_attr_lhs_contract, OPBIT(DOT), 0},
	{"rhs_contracting_dims", ffu__hp_attr_rhs_contract, OPBIT(DOT), 0},
	{"metadata", attr_ignore, ANY_OP, 0},
	{"backend_config", attr_ignore, ANY_OP, 0},
	{"frontend_attributes", attr_ignore, ANY_OP, 0},
	{"sharding", ffu__hp_attr_sharding, ANY_OP, 0},
	{"statistics", attr_ignore, ANY_OP, 0},
};
enum { N_ATTRS = sizeof attr_defs / sizeof attr_defs[0] };
_Static_assert(N_ATTRS <= 32, "parse_attrs keeps the attributes seen in a 32-bit mask");

static ffu_status parse_attrs(parser *p, ffu_inst *in, const ffu_token *optok)
{
	uint32_t seen = 0;
	while (p->tok.kind == FFU_TOK_COMMA) {
		ffu__hp_advance(p);
		ffu_token at = p->tok;
		if (at.kind != FFU_TOK_WORD || at.percent)
			return ffu__hp_unexpected(p, "an attribute name");
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
		ffu__hp_advance(p);
		TRY(ffu__hp_expect(p, FFU_TOK_EQUAL, "'=' after the attribute name"));
		TRY(attr_defs[k].parse(p, in));
	}
	for (int i = 0; i < N_ATTRS; i++) {
		/* XLA and ZKX: broadcasting a scalar may leave out dimensions (= {}). */
		if (in->op == FFU_OP_BROADCAST && attr_defs[i].parse == attr_dimensions && in->n_operands == 1 &&
		    ffu__shape_is_array(&in->operands[0]->shape) && in->operands[0]->shape.rank == 0)
			continue;
		if ((attr_defs[i].needs & (UINT64_C(1) << in->op)) && !(seen & (1u << i)))
			return PERR(optok, "%s needs the attribute %s=", ffu__ops[in->op].keyword, attr_defs[i].name);
	}
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
	if (ffu__tok_is(&p->tok, "ROOT") && ffu__hp_peek2(p).kind != FFU_TOK_EQUAL) {
		is_root = true;
		ffu__hp_advance(p);
	}
	ffu_token nt = p->tok;
	if (nt.kind != FFU_TOK_WORD)
		return ffu__hp_unexpected(p, "an instruction name or '}'");
	ffu_inst *prev = ffu__sym_get(&p->insts, nt.text, nt.len);
	if (prev)
		return PERR(&nt, "duplicate instruction name '%%%s' (first defined at %d:%d)", prev->name,
			    prev->line, prev->col);
	ffu__hp_advance(p);
	TRY(ffu__hp_expect(p, FFU_TOK_EQUAL, "'='"));
	ffu_shape shape;
	TRY(ffu__hp_shape(p, &shape, 0));
	ffu_token optok = p->tok;
	if (optok.kind != FFU_TOK_WORD || optok.percent)
		return ffu__hp_unexpected(p, "an opcode");
	int op = ffu__op_by_keyword(optok.text, optok.len);
	if (op < 0 && zkx_opcode(&optok))
		return UNSUPPORTED(&optok, "opcode '" TOKFMT "' (ZKX/XLA) is not supported yet by fieldfuse", TOKARG(&optok));
	if (op < 0)
		return PERR(&optok, "unknown opcode '" TOKFMT "'", TOKARG(&optok));
	ffu__hp_advance(p);
	TRY(ffu__hp_expect(p, FFU_TOK_LPAREN, "'(' after the opcode"));

	int64_t number = 0;
	unsigned char *literal = NULL;
	size_t n = 0;
	switch (form_of((ffu_op)op)) {
	case FORM_PARAMETER_NUMBER:
		TRY(ffu__hp_int(p, "a parameter number", &number));
		break;
	case FORM_LITERAL:
		TRY(ffu__hp_literal(p, &shape, &literal));
		break;
	case FORM_OPERANDS:
		while (p->tok.kind != FFU_TOK_RPAREN) {
			if (n > 0)
				TRY(ffu__hp_expect(p, FFU_TOK_COMMA, "',' or ')'"));
			if (!ffu__hp_grow((void **)&p->ops, &p->ops_cap, n + 1, sizeof *p->ops))
				return ffu__hp_oom(p);
			TRY(parse_operand(p, &p->ops[n]));
			n++;
		}
		break;
	}
	TRY(ffu__hp_expect(p, FFU_TOK_RPAREN, "')'"));
	if (n > INT32_MAX)
		return PERR(&optok, "too many operands");

	ffu_inst *in = ffu__inst_new(c, (ffu_op)op, "", &shape, p->ops, (int)n);
	if (!in || !(in->name = ffu__hp_strdup(p, &nt)) || !ffu__sym_put(&p->insts, in->name, in) ||
	    (!ffu__sym_get(&p->all_insts, nt.text, nt.len) && !ffu__sym_put(&p->all_insts, in->name, in)))
		return ffu__hp_oom(p);
	in->line = nt.line;
	in->col = nt.col;
	in->index = number;
	in->literal = literal;
	in->fft.bit_reverse = true; /* fft_do_bit_reverse's default */
	for (int k = 0; k < 4; k++)
		p->dot_n[k] = -1;
	TRY(parse_attrs(p, in, &optok));
	if (in->op == FFU_OP_DOT && in->n_operands == 2)
		TRY(ffu__hp_dot_finish(p, in));
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
		return ffu__hp_oom(p);
	for (int i = 0; i < c->n_insts; i++) {
		ffu_inst *in = c->insts[i];
		if (in->op != FFU_OP_PARAMETER)
			continue;
		if (in->index >= n)
			return ffu__hp_err_at(p, FFU_STATUS_EPARSE, in->line, in->col,
				       "parameter number %lld leaves a gap: computation '%%%s' has %d parameters, numbered 0..%d",
				       (long long)in->index, c->name, n, n - 1);
		ffu_inst *other = c->params[in->index];
		if (other)
			return ffu__hp_err_at(p, FFU_STATUS_EPARSE, in->line, in->col,
				       "duplicate parameter number %lld (also '%%%s')", (long long)in->index,
				       other->name);
		c->params[in->index] = in;
	}
	return FFU_STATUS_OK;
}

/*
 * ZKX's and XLA's rule for the optional `(a: shape, ...) -> shape`: the parameter list is
 * read and not compared with the parameter instructions (ZKX's own tests rely on that);
 * the result shape must equal the ROOT's (element type and dimensions; layouts carry no
 * shape information here).
 */
static ffu_status check_signature(parser *p, const ffu_computation *c, const ffu_shape *result,
				  const ffu_token *result_tok)
{
	char a[128], b[128];
	if (!ffu__shape_eq(result, &c->root->shape)) {
		ffu__shape_format(result, a, sizeof a);
		ffu__shape_format(&c->root->shape, b, sizeof b);
		return PERR(result_tok, "signature result is %s but ROOT '%%%s' is %s", a, c->root->name, b);
	}
	return FFU_STATUS_OK;
}

/* `(name: shape, ...)`: read, shapes parsed (so they must be well formed), then dropped. */
static ffu_status parse_param_list(parser *p)
{
	ffu__hp_advance(p);
	for (size_t n = 0; p->tok.kind != FFU_TOK_RPAREN; n++) {
		if (n > 0)
			TRY(ffu__hp_expect(p, FFU_TOK_COMMA, "',' or ')'"));
		TRY(ffu__hp_expect(p, FFU_TOK_WORD, "a parameter name"));
		TRY(ffu__hp_expect(p, FFU_TOK_COLON, "':'"));
		ffu_shape ignored;
		TRY(ffu__hp_shape(p, &ignored, 0));
	}
	ffu__hp_advance(p);
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
		ffu__hp_advance(p);
	}
	ffu_token nt = p->tok;
	if (nt.kind != FFU_TOK_WORD)
		return ffu__hp_unexpected(p, "a computation name");
	ffu_computation *prev = ffu__sym_get(&p->comps, nt.text, nt.len);
	if (prev)
		return PERR(&nt, "duplicate computation name '%%%s' (first defined at %d:%d)", prev->name,
			    prev->line, prev->col);
	char *name = ffu__hp_strdup(p, &nt);
	ffu_computation *c = name ? ffu__comp_new(p->m, name) : NULL;
	if (!c || !ffu__sym_put(&p->comps, c->name, c))
		return ffu__hp_oom(p);
	c->line = nt.line;
	c->col = nt.col;
	c->is_entry = is_entry;
	if (is_entry)
		p->m->entry = c;
	p->comp = c;
	ffu__sym_free(&p->insts); /* instruction names are scoped per computation */
	ffu__hp_advance(p);

	bool has_sig = false;
	ffu_token result_tok = p->tok;
	ffu_shape result = {0};
	if (p->tok.kind == FFU_TOK_LPAREN) {
		has_sig = true;
		TRY(parse_param_list(p));
		TRY(ffu__hp_expect(p, FFU_TOK_ARROW, "'->' and the result shape"));
		result_tok = p->tok;
		TRY(ffu__hp_shape(p, &result, 0));
	}
	ffu_token open = p->tok;
	TRY(ffu__hp_expect(p, FFU_TOK_LBRACE, "'{' to open the computation body"));
	ffu_inst *root = NULL;
	while (p->tok.kind != FFU_TOK_RBRACE) {
		if (p->tok.kind == FFU_TOK_EOF)
			return PERR(&p->tok, "missing '}' to close computation '%%%s' (opened at %d:%d)", c->name,
				    open.line, open.col);
		TRY(parse_instruction(p, &root));
	}
	if (c->n_insts == 0)
		return PERR(&p->tok, "computation '%%%s' has no instructions", c->name);
	ffu__hp_advance(p);
	/* XLA's rule: without a ROOT marker the last instruction is the result. */
	c->root = root ? root : c->insts[c->n_insts - 1];
	TRY(bind_params(p, c));
	if (has_sig)
		TRY(check_signature(p, c, &result, &result_tok));
	p->comp = NULL;
	return FFU_STATUS_OK;
}

/*
 * Names are scoped per computation in the text but unique in the module (ir.h): a name that
 * an earlier computation already uses is given a fresh one (`x.N`, never a name of the
 * text), as XLA's and ZKX's modules uniquify them. The first user keeps the name.
 */
static ffu_status uniquify_names(parser *p)
{
	ffu_symtab first = {0};
	ffu_status st = FFU_STATUS_OK;
	for (int i = 0; i < p->m->n_comps && st == FFU_STATUS_OK; i++) {
		ffu_computation *c = p->m->comps[i];
		for (int j = 0; j < c->n_insts; j++) {
			ffu_inst *in = c->insts[j];
			const ffu_inst *owner = ffu__sym_get(&first, in->name, strlen(in->name));
			if (!owner) {
				if (!ffu__sym_put(&first, in->name, in))
					st = ffu__hp_oom(p);
			} else if (owner->parent != c) {
				const char *fresh = ffu__module_unique_name(p->m, in->name);
				if (!fresh || !ffu__sym_put(&p->m->names, fresh, in))
					st = ffu__hp_oom(p);
				else
					in->name = fresh;
			}
			if (st)
				break;
		}
	}
	ffu__sym_free(&first);
	return st;
}

/*
 * `HloModule NAME` is optional (ZKX and XLA): without it the module is named
 * `module_<entry>`, as ZKX's HloParserImpl::Run names it. Without an ENTRY keyword the last
 * computation is the entry (callees come before their callers).
 */
static ffu_status parse_module(parser *p)
{
	bool header = ffu__tok_is(&p->tok, "HloModule");
	p->m = ffu__module_new("");
	if (!p->m)
		return ffu__hp_oom(p);
	if (header) {
		ffu__hp_advance(p);
		if (p->tok.kind != FFU_TOK_WORD)
			return ffu__hp_unexpected(p, "a module name");
		if (!(p->m->name = ffu__hp_strdup(p, &p->tok)))
			return ffu__hp_oom(p);
		/* replica_count= and num_partitions= are read; the line's other attributes
		   (entry_computation_layout=... etc.) are not needed: the rest is dropped. */
		TRY(ffu__hp_module_attrs(p));
		ffu__lex_skip_line(&p->lx);
		ffu__hp_advance(p);
	}
	ffu_token first_entry = {0};
	if (p->tok.kind == FFU_TOK_EOF)
		return PERR(&p->tok, "no computation in the module");
	while (p->tok.kind != FFU_TOK_EOF) {
		if (!p->m->entry)
			first_entry = p->tok;
		TRY(parse_computation(p, &first_entry));
	}
	if (!p->m->entry) {
		p->m->entry = p->m->comps[p->m->n_comps - 1];
		p->m->entry->is_entry = true;
	}
	if (!header) {
		size_t n = strlen(p->m->entry->name) + sizeof "module_";
		char *name = ffu__arena_alloc(&p->m->arena, n);
		if (!name)
			return ffu__hp_oom(p);
		snprintf(name, n, "module_%s", p->m->entry->name);
		p->m->name = name;
	}
	return uniquify_names(p);
}

ffu_status ffu__hlo_parse(ffu_module **out, const char *text, size_t len, const char *file, ffu_error *e)
{
	return ffu__hlo_parse_with(out, text, len, file, NULL, e);
}

ffu_status ffu__hlo_parse_with(ffu_module **out, const char *text, size_t len, const char *file,
			       ffu_parse_options *o, ffu_error *e)
{
	if (!out)
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu__hlo_parse: out is NULL");
	*out = NULL;
	if (!text && len > 0)
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu__hlo_parse: text is NULL");
	ffu_parse_options defaults = {0};
	if (!o)
		o = &defaults;
	if (!ffu_dialect_name(o->dialect))
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu__hlo_parse: unknown dialect %d", (int)o->dialect);
	parser p = {0};
	p.file = file ? file : "<input>";
	p.e = e;
	ffu__hp_choose_dialect(&p, text, len, o);
	ffu__lex_init(&p.lx, text, len);
	ffu__hp_advance(&p);
	ffu_status st = parse_module(&p);
	if (st == FFU_STATUS_OK)
		st = ffu__module_verify(p.m, p.file, e);
	ffu__sym_free(&p.insts);
	ffu__sym_free(&p.all_insts);
	ffu__sym_free(&p.comps);
	free(p.ops);
	free(p.lit);
	if (st != FFU_STATUS_OK) {
		ffu__module_free(p.m);
		return st;
	}
	*out = p.m;
	return FFU_STATUS_OK;
}
