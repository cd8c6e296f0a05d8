/*
 * tools/gen/gen.c: the random program generator (see gen.h). Only valid programs come out:
 * the point is differential testing of the passes, fusion and codegen against the
 * interpreter, not the parser's error paths (the fuzzers cover those).
 *
 * How: a pool of the values defined so far (name, type, dimensions). Each step picks an
 * operation and draws its operands from the pool, preferring the newest value half the
 * time (long chains) and any other value otherwise (shared subexpressions); when no value
 * of the needed type and dimensions exists, one is made: a broadcast scalar (often the
 * constant 0, 1 or -1), a new parameter, or an iota. Each operation keeps to the
 * verifier's rules (docs/hlo.md section 3), so every program parses and verifies.
 *
 * Ownership: the generator keeps nothing between calls; names live in fixed arrays here.
 *
 * This file draws a program's type and shape, runs its steps and writes the module text;
 * the values and the operations the steps pick are made in gen_ops.c (gen_impl.h).
 */
#include "gen.h"
#include "gen_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fields/field.h"
#include "hlo/hlo.h"
#include "ir/ir.h"

void ffu__gen_shape_text(char *buf, size_t size, ffu_type t, int rank, const int64_t *dims)
{
	int k = snprintf(buf, size, "%s[", ffu__type_name(t));
	for (int d = 0; d < rank && k > 0 && (size_t)k < size; d++)
		k += snprintf(buf + k, size - (size_t)k, d ? ",%lld" : "%lld", (long long)dims[d]);
	if (k > 0 && (size_t)k < size)
		snprintf(buf + k, size - (size_t)k, "]");
}

/* ---- programs ---- */

static void base_shape(gen *g)
{
	static const int64_t lengths[] = {1, 2, 3, 5, 7, 16, 33, 64, 100, 257, 1000, 4099};
	static const int64_t sizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 17};
	g->rank = chance(g, 16) ? 0 : 1 + (int)pick(g, FFU_MAX_RANK);
	if (g->rank == 1) {
		do
			g->dims[0] = lengths[pick(g, sizeof lengths / sizeof lengths[0])];
		while (g->dims[0] > g->max_elems);
		return;
	}
	for (int d = 0; d < g->rank; d++)
		g->dims[d] = sizes[pick(g, sizeof sizes / sizeof sizes[0])];
	for (int d = 0; count(g->rank, g->dims) > g->max_elems; d = (d + 1) % g->rank)
		g->dims[d] = (g->dims[d] + 1) / 2;
}

/*
 * Can programs of type t be written yet? Its name must be a type, and a scalar constant of
 * it must parse: the extension fields' types arrived before their literals (1, 2, 3, 4),
 * and they join the default mix as soon as both exist.
 */
static bool type_landed(ffu_type t)
{
	const char *name = ffu__type_name(t);
	if (ffu__type_by_name(name, strlen(name)) != t)
		return false;
	if (fld(t)->kind != FFU_ELEM_EXT)
		return true;
	unsigned char zero[FFU_FIELD_MAX_BYTES] = {0};
	char lit[FFU_FIELD_TEXT_MAX], text[FFU_FIELD_TEXT_MAX + 128];
	ffu__fp_format_literal(fld(t), lit, zero);
	snprintf(text, sizeof text, "HloModule probe\nENTRY %%m {\n  ROOT %%c = %s[] constant(%s)\n}\n", name, lit);
	ffu_module *m = NULL;
	bool ok = ffu__hlo_parse(&m, text, strlen(text), "probe", NULL) == FFU_STATUS_OK;
	ffu__module_free(m);
	return ok;
}

/* The element types a program may have: the fields, their _mont twins, the extensions. */
static int program_types(const ffu_gen_opts *o, ffu_type *types)
{
	int n = 0;
	if (o && o->types) {
		for (const char *p = o->types; *p && n < MAX_TYPES;) {
			size_t len = strcspn(p, ",");
			ffu_type t = ffu__type_by_name(p, len);
			if (t != FFU_TYPE_INVALID && is_arith(t))
				types[n++] = t;
			p += len + (p[len] == ',');
		}
		return n;
	}
	for (int t = 0; t < FFU_ELEM_COUNT && n < MAX_TYPES; t++)
		if (fld((ffu_type)t) && is_arith((ffu_type)t) && type_landed((ffu_type)t))
			types[n++] = (ffu_type)t;
	return n;
}

bool ffu_gen_types_valid(const char *types)
{
	for (const char *p = types; *p;) {
		size_t len = strcspn(p, ",");
		ffu_type t = ffu__type_by_name(p, len);
		if (t == FFU_TYPE_INVALID || !is_arith(t))
			return false;
		p += len + (p[len] == ',');
	}
	return true;
}

/* Does an operand list in the text so far name value i? (Operands print as %name, or %name).) */
static bool is_read(const gen *g, int i)
{
	char pat[NAME_LEN + 4];
	const char *text = g->sb->data ? g->sb->data : "";
	for (const char *end = ",)"; *end; end++) {
		snprintf(pat, sizeof pat, "%%%s%c", g->v[i].name, *end);
		if (strstr(text, pat))
			return true;
	}
	return false;
}

static bool wide(ffu_type t)
{
	return fld(t)->prime && fld(t)->prime->nlimbs == 4;
}

/*
 * The program's type, uniform over `types` unless grouped: then the 256-bit types together
 * weigh as much as WIDE_WEIGHT types (two fields and their _mont twins, the mix before the
 * other zk_dtypes fields came), so that more 256-bit fields spread the 256-bit programs
 * over more fields instead of making more of them (they dominate a soak's compile time).
 */
enum { WIDE_WEIGHT = 4 };
static ffu_type pick_type(gen *g, const ffu_type *types, int nt, bool grouped)
{
	int nwide = 0;
	for (int i = 0; i < nt; i++)
		nwide += wide(types[i]);
	if (!grouped || nwide == 0 || nwide == nt)
		return types[pick(g, (unsigned)nt)];
	unsigned r = pick(g, (unsigned)(nt - nwide + WIDE_WEIGHT));
	bool want_wide = r >= (unsigned)(nt - nwide);
	unsigned k = want_wide ? pick(g, (unsigned)nwide) : r;
	for (int i = 0; i < nt; i++)
		if (wide(types[i]) == want_wide && k-- == 0)
			return types[i];
	return types[0];
}

/*
 * The integer and index steps (gen_index.c): after each step of the program, one in
 * g->more_one_in times, drawn from a stream of their own (g->rng_more, swapped in for the
 * step). The other steps' draws stay what they were before these steps existed: a seed
 * that gets none of them gives the program it gave then, and one that does keeps its
 * other steps' choices but where the values these add to the pool are picked.
 */
static void more_step(gen *g)
{
	static int (*const more[])(gen *) = {
		ffu__gen_op_int_convert, ffu__gen_op_int_order, ffu__gen_op_int_power,
		ffu__gen_op_dynamic_slice, ffu__gen_op_dynamic_slice, ffu__gen_op_dynamic_update_slice,
		ffu__gen_op_dynamic_update_slice,
	};
	uint64_t main_rng = g->rng;
	g->rng = g->rng_more;
	if (chance(g, (unsigned)g->more_one_in))
		more[pick(g, sizeof more / sizeof more[0])](g);
	g->rng_more = g->rng;
	g->rng = main_rng;
}

/* The point steps (gen_points.c): the same scheme as more_step, with a stream of their own,
   so programs without them are what they were. */
static void point_step(gen *g)
{
	if (g->points_one_in <= 0 || !ffu__gen_points_apply(g))
		return;
	uint64_t main_rng = g->rng;
	g->rng = g->rng_points;
	if (chance(g, (unsigned)g->points_one_in))
		ffu__gen_op_point(g);
	g->rng_points = g->rng;
	g->rng = main_rng;
}

/* One program's instructions into g->sb; its outputs into g->outs. */
static void program(gen *g, const ffu_gen_opts *o, uint64_t seed)
{
	ffu_type types[MAX_TYPES];
	int nt = program_types(o, types);
	/* the seed hashed once: seeds s and s + 1 must not give one stream shifted by a draw;
	   its second hash seeds the integer and index steps' stream */
	uint64_t st = seed;
	g->rng = ffu__rand_next(&st);
	g->rng_more = ffu__rand_next(&st);
	g->rng_points = ffu__rand_next(&st);
	g->points_one_in = o ? o->points_one_in : 0;
	g->more_one_in = o && o->index_one_in > 0 ? o->index_one_in : DEFAULT_INDEX_ONE_IN;
	g->max_elems = o && o->max_elems > 0 ? o->max_elems : DEFAULT_ELEMS;
	g->max_steps = o && o->max_steps > 0 ? o->max_steps : DEFAULT_STEPS;
	g->cheap = o && o->cheap;
	g->t = nt ? pick_type(g, types, nt, !(o && o->types)) : FFU_TYPE_BABYBEAR;
	/* 256-bit programs compile several times slower: half of them (cheap: 7 in 8) become a
	   31-bit field */
	if (wide(g->t) && !(o && o->types) && !chance(g, g->cheap ? 8 : 2))
		g->t = fld(g->t)->kind == FFU_ELEM_MONT ? FFU_TYPE_BABYBEAR_MONT : FFU_TYPE_BABYBEAR;
	const ffu_field *f = fld(g->t);
	g->twin = f->twin ? (ffu_type)f->twin->id : FFU_TYPE_INVALID;
	base_shape(g);

	/* inputs of the base shape, maybe a scalar one */
	for (int k = 1 + (int)pick(g, 2); k > 0; k--)
		ffu__gen_parameter(g, g->t, g->rank, g->dims);
	if (chance(g, 3))
		ffu__gen_parameter(g, g->t, 0, NULL);

	static int (*const ops[])(gen *) = {
		ffu__gen_op_binary, ffu__gen_op_binary, ffu__gen_op_binary, ffu__gen_op_binary,
		ffu__gen_op_binary, ffu__gen_op_unary, ffu__gen_op_unary, ffu__gen_op_convert,
		ffu__gen_op_select, ffu__gen_op_slice, ffu__gen_op_slice, ffu__gen_op_reshape,
		ffu__gen_op_broadcast, ffu__gen_op_broadcast, ffu__gen_op_iota, ffu__gen_op_concatenate,
		ffu__gen_op_reduce, ffu__gen_op_reduce, ffu__gen_op_fft, ffu__gen_op_order,
		ffu__gen_op_permute, ffu__gen_op_dot,
	};
	for (int k = 2 + (int)pick(g, (unsigned)g->max_steps - 1); k > 0; k--) {
		ops[pick(g, sizeof ops / sizeof ops[0])](g);
		more_step(g);
		point_step(g);
	}

	/*
	 * outputs: the values nothing reads (newest first), so most of the program stays live;
	 * then maybe others (parameters, repeats, scalars, preds)
	 */
	g->n_outs = 0;
	for (int i = g->n - 1; i >= 0 && g->n_outs < MAX_OUTS - 2; i--)
		if (!g->v[i].param && !is_read(g, i))
			g->outs[g->n_outs++] = i;
	if (!g->n_outs)
		g->outs[g->n_outs++] = g->n - 1;
	for (int k = (int)pick(g, 3); k > 0; k--)
		g->outs[g->n_outs++] = (int)pick(g, (unsigned)g->n);
}

static void emit_reducers(ffu_strbuf *sb, const reducers *red)
{
	for (int t = 0; t < FFU_TYPE_COUNT; t++)
		for (int p = 0; p < 2; p++) {
			if (!red->need[t][p])
				continue;
			const char *tn = ffu__type_name((ffu_type)t), *fn = p ? "product" : "sum";
			ffu__sb_printf(sb,
				       "%%%s.%s (a: %s[], b: %s[]) -> %s[] {\n"
				       "  %%%s.%s.a = %s[] parameter(0)\n"
				       "  %%%s.%s.b = %s[] parameter(1)\n"
				       "  ROOT %%%s.%s.r = %s[] %s(%%%s.%s.a, %%%s.%s.b)\n}\n\n",
				       fn, tn, tn, tn, tn, fn, tn, tn, fn, tn, tn, fn, tn, tn, p ? "multiply" : "add", fn,
				       tn, fn, tn);
		}
}

static void output_shape(ffu_strbuf *sb, const val *x)
{
	char sh[96];
	ffu__gen_shape_text(sh, sizeof sh, x->type, x->rank, x->dims);
	ffu__sb_append(sb, sh);
}

ffu_status ffu_gen_batch(ffu_strbuf *sb, const uint64_t *seeds, int n, const ffu_gen_opts *o, int *out_first,
			 ffu_error *e)
{
	reducers red = {0};
	ffu_strbuf body = {0};
	gen *g = calloc((size_t)(n > 0 ? n : 1), sizeof *g);
	char (*prefix)[16] = calloc((size_t)(n > 0 ? n : 1), sizeof *prefix);
	if (!g || !prefix) {
		free(g);
		free(prefix);
		return ffu__err(e, FFU_STATUS_ENOMEM, "out of memory in the program generator");
	}
	int params = 0, outs = 0;
	for (int i = 0; i < n; i++) {
		if (n > 1)
			snprintf(prefix[i], sizeof prefix[i], "g%d_", i);
		g[i].sb = &body;
		g[i].prefix = prefix[i];
		g[i].param_base = params;
		g[i].red = &red;
		program(&g[i], o, seeds[i]);
		params += g[i].n_params;
		out_first[i] = outs;
		outs += g[i].n_outs;
	}
	out_first[n] = outs;

	if (n == 1)
		ffu__sb_printf(sb, "HloModule soak_%llu\n\n", (unsigned long long)seeds[0]);
	else
		ffu__sb_printf(sb, "HloModule soak_batch_%llu_%d\n\n", (unsigned long long)seeds[0], n);
	emit_reducers(sb, &red);
	ffu__sb_append(sb, "ENTRY %main {\n");
	ffu__sb_appendn(sb, body.data ? body.data : "", body.len);
	if (n == 1 && g[0].n_outs == 1) {
		/* one output, through an identity reshape: simplify makes the value itself the ROOT */
		const val *x = &g[0].v[g[0].outs[0]];
		ffu__sb_append(sb, "  ROOT %out = ");
		output_shape(sb, x);
		ffu__sb_printf(sb, " reshape(%%%s)\n}\n", x->name);
	} else {
		ffu__sb_append(sb, "  ROOT %out = (");
		for (int i = 0, k = 0; i < n; i++)
			for (int j = 0; j < g[i].n_outs; j++, k++) {
				ffu__sb_append(sb, k ? ", " : "");
				output_shape(sb, &g[i].v[g[i].outs[j]]);
			}
		ffu__sb_append(sb, ") tuple(");
		for (int i = 0, k = 0; i < n; i++)
			for (int j = 0; j < g[i].n_outs; j++, k++)
				ffu__sb_printf(sb, "%s%%%s", k ? ", " : "", g[i].v[g[i].outs[j]].name);
		ffu__sb_append(sb, ")\n}\n");
	}
	ffu_status st = ffu__sb_status(&body, e);
	if (st == FFU_STATUS_OK)
		st = ffu__sb_status(sb, e);
	ffu__sb_free(&body);
	free(g);
	free(prefix);
	return st;
}

ffu_status ffu_gen_program(ffu_strbuf *sb, uint64_t seed, const ffu_gen_opts *o, ffu_error *e)
{
	int out_first[2];
	return ffu_gen_batch(sb, &seed, 1, o, out_first, e);
}
