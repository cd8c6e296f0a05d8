/*
 * src/hlo/printer.c: module -> canonical HLO text (docs/hlo.md section "Canonical form").
 * Owned by the HLO front end. Used by `fieldfuse compile --emit hlo`, pass dumps and the
 * round-trip tests, so the output is fully determined by the module: parse(print(m)) equals
 * m and printing it again gives the same bytes.
 *
 * Opcode keywords come from the op table; only the per-op parenthesised part and the
 * attributes are spelled out here, mirroring the parser's operand_form and attr_defs.
 */
#include "hlo/hlo.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static bool is_word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
	       c == '.' || c == '-';
}

/* Names built through the API must still read back as one word. */
static bool printable_name(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (!is_word_char(*s))
			return false;
	return true;
}

static ffu_status put_shape(ffu_strbuf *sb, const ffu_shape *s, int depth, ffu_error *e)
{
	if (depth > FFU_HLO_MAX_NESTING)
		return ffu__err(e, FFU_STATUS_EINVAL, "cannot print: tuple shape nested too deeply");
	if (s->type == FFU_TYPE_TUPLE) {
		ffu__sb_append(sb, "(");
		for (int i = 0; i < s->n_elems; i++) {
			if (i)
				ffu__sb_append(sb, ", ");
			ffu_status st = put_shape(sb, &s->elems[i], depth + 1, e);
			if (st)
				return st;
		}
		ffu__sb_append(sb, ")");
		return FFU_STATUS_OK;
	}
	if (s->type < 0 || s->type >= FFU_TYPE_TUPLE || s->rank < 0 || s->rank > FFU_MAX_RANK)
		return ffu__err(e, FFU_STATUS_EINVAL, "cannot print: invalid shape");
	ffu__sb_printf(sb, "%s[", ffu__type_name(s->type));
	for (int i = 0; i < s->rank; i++)
		ffu__sb_printf(sb, i ? ",%lld" : "%lld", (long long)s->dims[i]);
	ffu__sb_append(sb, "]");
	if (s->csr) /* the layout that makes it a CSR matrix (ir/csr.c) */
		ffu__sb_printf(sb, "{1,0:D(D, C) NNZ(%lld)}", (long long)s->nnz);
	return FFU_STATUS_OK;
}

/* One element as the parser reads it back: pred as true/false (XLA's spelling), else decimal. */
static void put_elem(ffu_strbuf *sb, const ffu_field *f, const unsigned char *x)
{
	char buf[FFU_FIELD_TEXT_MAX];
	if (f->kind == FFU_ELEM_PRED)
		ffu__sb_append(sb, *x ? "true" : "false");
	else
		ffu__sb_append(sb, ffu__fp_format_literal(f, buf, x));
}

/* One {...} level per dimension, row-major; *k walks the elements. */
static void put_array(ffu_strbuf *sb, const ffu_field *f, const unsigned char *lit, const ffu_shape *s,
		      int d, int64_t *k)
{
	if (d >= FFU_MAX_RANK)
		return;
	ffu__sb_append(sb, "{");
	for (int64_t i = 0; i < s->dims[d]; i++) {
		if (i)
			ffu__sb_append(sb, ", ");
		if (d == s->rank - 1) {
			put_elem(sb, f, lit + (size_t)*k * f->storage_bytes);
			++*k;
		} else {
			put_array(sb, f, lit, s, d + 1, k);
		}
	}
	ffu__sb_append(sb, "}");
}

static ffu_status put_literal(ffu_strbuf *sb, const ffu_inst *in, ffu_error *e)
{
	const ffu_field *f = ffu__shape_field(&in->shape);
	if (!f || (!in->literal && ffu__shape_count(&in->shape) > 0))
		return ffu__err(e, FFU_STATUS_EINVAL, "cannot print constant '%%%s': no literal", in->name);
	if (in->shape.rank == 0) {
		put_elem(sb, f, in->literal);
		return FFU_STATUS_OK;
	}
	int64_t k = 0;
	put_array(sb, f, in->literal, &in->shape, 0, &k);
	return FFU_STATUS_OK;
}

static void put_dims(ffu_strbuf *sb, const ffu_inst *in)
{
	ffu__sb_append(sb, ", dimensions={");
	for (int j = 0; j < in->n_dims && in->dims; j++)
		ffu__sb_printf(sb, "%s%lld", j ? "," : "", (long long)in->dims[j]);
	ffu__sb_append(sb, "}");
}

/* sharding={...} as XLA prints it: the tile assignment's ids written out (never the iota form). */
static void put_sharding(ffu_strbuf *sb, const ffu_sharding *s)
{
	switch (s->kind) {
	case FFU_SHARD_REPLICATED:
		ffu__sb_append(sb, "{replicated}");
		return;
	case FFU_SHARD_MAXIMAL:
		ffu__sb_printf(sb, "{maximal device=%lld}", (long long)s->device);
		return;
	case FFU_SHARD_TUPLE:
		ffu__sb_append(sb, "{");
		for (int i = 0; i < s->n_elems; i++) {
			if (i)
				ffu__sb_append(sb, ", ");
			put_sharding(sb, &s->elems[i]);
		}
		ffu__sb_append(sb, "}");
		return;
	case FFU_SHARD_TILED: {
		int64_t n = 1;
		ffu__sb_append(sb, "{devices=[");
		for (int d = 0; d < s->n_dims; d++) {
			ffu__sb_printf(sb, "%s%lld", d ? "," : "", (long long)s->dims[d]);
			n *= s->dims[d];
		}
		ffu__sb_append(sb, "]");
		for (int64_t k = 0; k < n; k++)
			ffu__sb_printf(sb, "%s%lld", k ? "," : "", (long long)s->devices[k]);
		ffu__sb_append(sb, s->last_replicate ? " last_tile_dim_replicate}" : "}");
		return;
	}
	}
}

/* The collectives' attributes in XLA's order: channel_id, replica_groups, dimensions,
   use_global_device_ids, to_apply (source_target_pairs for collective-permute). */
static ffu_status put_collective(ffu_strbuf *sb, const ffu_inst *in, ffu_error *e)
{
	const ffu_collective_attrs *ca = &in->coll;
	if (ca->channel_id > 0)
		ffu__sb_printf(sb, ", channel_id=%lld", (long long)ca->channel_id);
	if (in->op == FFU_OP_COLLECTIVE_PERMUTE) {
		ffu__sb_append(sb, ", source_target_pairs={");
		for (int i = 0; i < ca->n_pairs; i++)
			ffu__sb_printf(sb, "%s{%lld,%lld}", i ? "," : "", (long long)ca->pairs[2 * i],
				       (long long)ca->pairs[2 * i + 1]);
		ffu__sb_append(sb, "}");
		return FFU_STATUS_OK;
	}
	ffu__sb_append(sb, ", replica_groups={");
	for (int g = 0; g < ca->n_groups; g++) {
		ffu__sb_append(sb, g ? ",{" : "{");
		for (int k = 0; k < ca->group_size; k++)
			ffu__sb_printf(sb, "%s%lld", k ? "," : "", (long long)ca->groups[(size_t)g * ca->group_size + k]);
		ffu__sb_append(sb, "}");
	}
	ffu__sb_append(sb, "}");
	if (in->op != FFU_OP_ALL_REDUCE)
		put_dims(sb, in);
	if (ca->has_global_ids)
		ffu__sb_printf(sb, ", use_global_device_ids=%s", ca->global_ids ? "true" : "false");
	if (in->op == FFU_OP_ALL_REDUCE || in->op == FFU_OP_REDUCE_SCATTER) {
		if (!in->callee || !printable_name(in->callee->name))
			return ffu__err(e, FFU_STATUS_EINVAL, "cannot print %s '%%%s': no to_apply", ffu__ops[in->op].keyword,
					in->name);
		ffu__sb_printf(sb, ", to_apply=%%%s", in->callee->name);
	}
	return FFU_STATUS_OK;
}

/* One range per operand dimension; the stride only when it is not 1, as XLA prints it. */
static void put_slice(ffu_strbuf *sb, const ffu_inst *in)
{
	const ffu_shape *x = in->n_operands == 1 && in->operands[0] ? &in->operands[0]->shape : &in->shape;
	int rank = ffu__shape_is_array(x) && x->rank >= 0 && x->rank <= FFU_MAX_RANK ? x->rank : 0;
	ffu__sb_append(sb, ", slice={");
	for (int d = 0; d < rank; d++) {
		ffu__sb_printf(sb, "%s[%lld:%lld", d ? ", " : "", (long long)in->slice_start[d],
			       (long long)in->slice_limit[d]);
		if (in->slice_stride[d] != 1)
			ffu__sb_printf(sb, ":%lld", (long long)in->slice_stride[d]);
		ffu__sb_append(sb, "]");
	}
	ffu__sb_append(sb, "}");
}

/* dot's lists that are not empty, as XLA prints them; the contracting ones always, so that
   the text never relies on the parser's default for ZKX's sparse dot. */
static void put_dot(ffu_strbuf *sb, const ffu_inst *in)
{
	const ffu_dot_attrs *a = &in->dot;
	const struct {
		const char *name;
		const int64_t *list;
		int n;
	} lists[] = {{"lhs_batch_dims", a->lhs_batch, a->n_batch},
		     {"rhs_batch_dims", a->rhs_batch, a->n_batch},
		     {"lhs_contracting_dims", a->lhs_contract, a->n_contract},
		     {"rhs_contracting_dims", a->rhs_contract, a->n_contract}};
	for (int k = 0; k < 4; k++) {
		if (k < 2 && lists[k].n == 0)
			continue;
		ffu__sb_printf(sb, ", %s={", lists[k].name);
		for (int j = 0; j < lists[k].n && j < FFU_MAX_RANK; j++)
			ffu__sb_printf(sb, j ? ",%lld" : "%lld", (long long)lists[k].list[j]);
		ffu__sb_append(sb, "}");
	}
}

static ffu_status put_inst(ffu_strbuf *sb, const ffu_computation *c, const ffu_inst *in, ffu_error *e)
{
	if (!printable_name(in->name))
		return ffu__err(e, FFU_STATUS_EINVAL, "cannot print instruction name '%s' as HLO",
				in->name ? in->name : "(null)");
	if (in->op < 0 || in->op >= FFU_OP_COUNT)
		return ffu__err(e, FFU_STATUS_EINVAL, "cannot print '%%%s': invalid opcode", in->name);
	ffu__sb_printf(sb, "  %s%%%s = ", in == c->root ? "ROOT " : "", in->name);
	ffu_status st = put_shape(sb, &in->shape, 0, e);
	if (st)
		return st;
	ffu__sb_printf(sb, " %s(", ffu__ops[in->op].keyword);
	switch (in->op) {
	case FFU_OP_PARAMETER:
		ffu__sb_printf(sb, "%lld", (long long)in->index);
		break;
	case FFU_OP_CONSTANT:
		if ((st = put_literal(sb, in, e)))
			return st;
		break;
	default:
		for (int j = 0; j < in->n_operands; j++) {
			if (!in->operands[j] || !printable_name(in->operands[j]->name))
				return ffu__err(e, FFU_STATUS_EINVAL, "cannot print an operand of '%%%s'", in->name);
			ffu__sb_printf(sb, "%s%%%s", j ? ", " : "", in->operands[j]->name);
		}
		break;
	}
	ffu__sb_append(sb, ")");
	switch (in->op) {
	case FFU_OP_IOTA:
		ffu__sb_printf(sb, ", iota_dimension=%lld", (long long)in->index);
		break;
	case FFU_OP_BROADCAST:
	case FFU_OP_CONCATENATE:
	case FFU_OP_REVERSE:
	case FFU_OP_BIT_REVERSE:
		put_dims(sb, in);
		break;
	case FFU_OP_SLICE:
		put_slice(sb, in);
		break;
	case FFU_OP_DYNAMIC_SLICE: /* the sizes are the result's dimensions */
		ffu__sb_append(sb, ", dynamic_slice_sizes={");
		for (int d = 0; d < in->shape.rank; d++)
			ffu__sb_printf(sb, d ? ",%lld" : "%lld", (long long)in->shape.dims[d]);
		ffu__sb_append(sb, "}");
		break;
	case FFU_OP_COMPARE:
		if (!ffu__cmp_dir_name(in->direction))
			return ffu__err(e, FFU_STATUS_EINVAL, "cannot print compare '%%%s': invalid direction %d", in->name,
					(int)in->direction);
		ffu__sb_printf(sb, ", direction=%s", ffu__cmp_dir_name(in->direction));
		break;
	case FFU_OP_REDUCE:
		if (!in->callee || !printable_name(in->callee->name))
			return ffu__err(e, FFU_STATUS_EINVAL, "cannot print reduce '%%%s': no to_apply", in->name);
		put_dims(sb, in);
		ffu__sb_printf(sb, ", to_apply=%%%s", in->callee->name);
		break;
	case FFU_OP_GET_TUPLE_ELEMENT:
		ffu__sb_printf(sb, ", index=%lld", (long long)in->index);
		break;
	case FFU_OP_FUSION:
		if (!in->callee || !printable_name(in->callee->name))
			return ffu__err(e, FFU_STATUS_EINVAL, "cannot print fusion '%%%s': no callee", in->name);
		ffu__sb_printf(sb, ", kind=%s, calls=%%%s", ffu__fusion_kind_names[in->fusion_kind], in->callee->name);
		break;
	case FFU_OP_MSM:
		if (in->window_bits)
			ffu__sb_printf(sb, ", window_bits=%d", in->window_bits);
		break;
	case FFU_OP_DOT:
		put_dot(sb, in);
		break;
	case FFU_OP_FFT:
		ffu__sb_printf(sb, ", fft_type=%s, fft_length=%lld", in->fft.inverse ? "IFFT" : "FFT",
			       (long long)in->fft.length);
		if (!in->fft.bit_reverse)
			ffu__sb_append(sb, ", fft_do_bit_reverse=false");
		break;
	default: /* the collectives with an operand: their groups or pairs */
		if (ffu__ops[in->op].kind == FFU_KIND_COLLECTIVE && in->n_operands && (st = put_collective(sb, in, e)))
			return st;
		break;
	}
	if (in->sharding) {
		ffu__sb_append(sb, ", sharding=");
		put_sharding(sb, in->sharding);
	}
	ffu__sb_append(sb, "\n");
	return FFU_STATUS_OK;
}

static ffu_status put_comp(ffu_strbuf *sb, const ffu_computation *c, ffu_error *e)
{
	if (!printable_name(c->name))
		return ffu__err(e, FFU_STATUS_EINVAL, "cannot print computation name '%s' as HLO",
				c->name ? c->name : "(null)");
	if (!c->root)
		return ffu__err(e, FFU_STATUS_EINVAL, "cannot print computation '%%%s': no ROOT", c->name);
	ffu__sb_printf(sb, "\n%s%%%s (", c->is_entry ? "ENTRY " : "", c->name);
	for (int i = 0; i < c->n_params; i++) {
		const ffu_inst *p = c->params ? c->params[i] : NULL;
		if (!p || !printable_name(p->name))
			return ffu__err(e, FFU_STATUS_EINVAL, "cannot print computation '%%%s': parameter %d missing",
					c->name, i);
		ffu__sb_printf(sb, "%s%s: ", i ? ", " : "", p->name);
		ffu_status st = put_shape(sb, &p->shape, 0, e);
		if (st)
			return st;
	}
	ffu__sb_append(sb, ") -> ");
	ffu_status st = put_shape(sb, &c->root->shape, 0, e);
	if (st)
		return st;
	ffu__sb_append(sb, " {\n");
	for (int i = 0; i < c->n_insts; i++)
		if ((st = put_inst(sb, c, c->insts[i], e)))
			return st;
	ffu__sb_append(sb, "}\n");
	return FFU_STATUS_OK;
}

static bool callees_done(const ffu_module *m, const ffu_comp_pos *pos, const ffu_computation *c, const bool *done)
{
	for (int i = 0; i < c->n_insts; i++) {
		/* fusion calls=, the to_apply= of reduce and the reducing collectives */
		if (!c->insts[i]->callee)
			continue;
		int k = ffu__comp_pos_find(pos, m->n_comps, c->insts[i]->callee);
		if (k >= 0 && !done[k])
			return false;
	}
	return true;
}

ffu_status ffu__hlo_print(ffu_strbuf *sb, const ffu_module *m, ffu_error *e)
{
	if (!sb || !m)
		return ffu__err(e, FFU_STATUS_EINVAL, "ffu__hlo_print: NULL argument");
	if (!printable_name(m->name))
		return ffu__err(e, FFU_STATUS_EINVAL, "cannot print module name '%s' as HLO",
				m->name ? m->name : "(null)");
	ffu__sb_printf(sb, "HloModule %s", m->name);
	if (m->replica_count != 1)
		ffu__sb_printf(sb, ", replica_count=%lld", (long long)m->replica_count);
	if (m->num_partitions != 1)
		ffu__sb_printf(sb, ", num_partitions=%lld", (long long)m->num_partitions);
	ffu__sb_append(sb, "\n");
	bool *done = calloc((size_t)m->n_comps + 1, sizeof *done);
	ffu_comp_pos *pos = ffu__comp_pos_build(m);
	if (!done || !pos) {
		free(done);
		free(pos);
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory printing HLO");
	}
	/* Definition order, except that a callee always precedes its callers (the parser needs
	   that); a cycle, which the verifier rejects, is printed in plain order. */
	ffu_status st = FFU_STATUS_OK;
	int left = m->n_comps;
	while (left > 0 && st == FFU_STATUS_OK) {
		int k = 0;
		while (k < m->n_comps && (done[k] || !callees_done(m, pos, m->comps[k], done)))
			k++;
		if (k == m->n_comps)
			for (k = 0; done[k]; k++)
				;
		st = put_comp(sb, m->comps[k], e);
		done[k] = true;
		left--;
	}
	free(done);
	free(pos);
	if (st)
		return st;
	return ffu__sb_status(sb, e);
}
