/*
 * tools/gen/gen.c: the random program generator (see gen.h). Only valid programs come out:
 * the point is differential testing of fusion and codegen against the interpreter, not
 * the parser's error paths (the fuzzers cover those).
 *
 * Ownership: the generator keeps nothing between calls; names live in fixed arrays here.
 */
#include "gen.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "fields/field.h"

enum { MAX_VALS = 64 };

typedef struct gen {
	ffu_strbuf *sb;
	uint64_t rng;
	const ffu_field *f;
	long long n;
	int counter;
	char vec[MAX_VALS][16], sca[MAX_VALS][16]; /* names of vector and scalar values so far */
	int n_vec, n_sca;
} gen;

static unsigned pick(gen *g, unsigned n)
{
	return (unsigned)(ffu__rand_next(&g->rng) % n);
}

/* A constant's text: 0, 1 and p-1 often (the edges of every reduction), else random. */
static void constant_text(gen *g, char *buf)
{
	unsigned char v[FFU_FIELD_MAX_BYTES], one[FFU_FIELD_MAX_BYTES];
	ffu__fp_set_u64(g->f, one, 1);
	switch (pick(g, 4)) {
	case 0:
		ffu__fp_set_u64(g->f, v, 0);
		break;
	case 1:
		memcpy(v, one, sizeof v);
		break;
	case 2:
		ffu__fp_neg(g->f, v, one, NULL);
		break;
	default:
		ffu__fp_random(g->f, v, &g->rng);
		break;
	}
	ffu__fp_format(g->f, buf, v);
}

/* Half the time the newest value (long chains), else any (shared subexpressions). */
static const char *operand(gen *g, bool vector)
{
	int n = vector ? g->n_vec : g->n_sca;
	int i = pick(g, 2) ? n - 1 : (int)pick(g, (unsigned)n);
	return vector ? g->vec[i] : g->sca[i];
}

/* One element-wise op on vectors or scalars; the result joins the pool. */
static void op(gen *g, bool vector)
{
	static const char *const ops[] = {"add", "subtract", "multiply", "multiply", "negate"};
	const char *o = ops[pick(g, sizeof ops / sizeof ops[0])];
	char (*pool)[16] = vector ? g->vec : g->sca;
	int *count = vector ? &g->n_vec : &g->n_sca;
	char name[16], shape[32];

	if (*count == MAX_VALS)
		return;
	snprintf(name, sizeof name, "%c%d", vector ? 'v' : 's', g->counter++);
	if (vector)
		snprintf(shape, sizeof shape, "%s[%lld]", g->f->name, g->n);
	else
		snprintf(shape, sizeof shape, "%s[]", g->f->name);
	const char *a = operand(g, vector);
	if (strcmp(o, "negate") == 0) {
		ffu__sb_printf(g->sb, "  %%%s = %s %s(%%%s)\n", name, shape, o, a);
	} else {
		const char *b = operand(g, vector);
		ffu__sb_printf(g->sb, "  %%%s = %s %s(%%%s, %%%s)\n", name, shape, o, a, b);
	}
	memcpy(pool[(*count)++], name, sizeof name);
}

ffu_status ffu_gen_program(ffu_strbuf *sb, uint64_t seed, ffu_error *e)
{
	static const long long lengths[] = {1, 2, 3, 7, 64, 100, 257, 1000, 4099};
	gen g = {.sb = sb, .rng = seed * 0x9e3779b97f4a7c15ull + 1};
	char num[96];
	int param = 0;

	/* bn254 programs compile and run slower: one in three */
	g.f = ffu__field_get(pick(&g, 3) == 0 ? FFU_FIELD_BN254_SF : FFU_FIELD_BABYBEAR);
	g.n = lengths[pick(&g, sizeof lengths / sizeof lengths[0])];
	const char *t = g.f->name;

	ffu__sb_printf(sb, "HloModule soak_%llu\n\nENTRY %%main {\n", (unsigned long long)seed);
	int nv = 1 + (int)pick(&g, 3), ns = (int)pick(&g, 3), nc = (int)pick(&g, 3);
	for (int i = 0; i < nv; i++) {
		snprintf(g.vec[g.n_vec], sizeof g.vec[0], "p%d", param);
		ffu__sb_printf(sb, "  %%%s = %s[%lld] parameter(%d)\n", g.vec[g.n_vec++], t, g.n, param);
		param++;
	}
	for (int i = 0; i < ns; i++) {
		snprintf(g.sca[g.n_sca], sizeof g.sca[0], "p%d", param);
		ffu__sb_printf(sb, "  %%%s = %s[] parameter(%d)\n", g.sca[g.n_sca++], t, param);
		param++;
	}
	for (int i = 0; i < nc; i++) {
		constant_text(&g, num);
		snprintf(g.sca[g.n_sca], sizeof g.sca[0], "c%d", i);
		ffu__sb_printf(sb, "  %%%s = %s[] constant(%s)\n", g.sca[g.n_sca++], t, num);
	}
	/* a scalar subchain before the broadcasts: a kernel of its own feeding the vector one */
	if (g.n_sca && pick(&g, 2))
		for (int k = 1 + (int)pick(&g, 3); k > 0; k--)
			op(&g, false);
	for (int i = 0, n_sca = g.n_sca; i < n_sca; i++) {
		if (pick(&g, 3) == 0)
			continue;
		char name[16];
		snprintf(name, sizeof name, "b%d", g.counter++);
		ffu__sb_printf(sb, "  %%%s = %s[%lld] broadcast(%%%s), dimensions={}\n", name, t, g.n, g.sca[i]);
		memcpy(g.vec[g.n_vec++], name, sizeof name);
	}
	for (int k = 2 + (int)pick(&g, 14); k > 0; k--)
		op(&g, true);

	/* outputs: the newest value, then maybe more (a parameter, a repeat, a scalar) */
	int no = 1 + (int)pick(&g, 3);
	if (no == 1) {
		ffu__sb_printf(sb, "  ROOT %%out = %s[%lld] negate(%%%s)\n}\n", t, g.n, g.vec[g.n_vec - 1]);
	} else {
		const char *names[3];
		bool scalar[3] = {false};
		names[0] = g.vec[g.n_vec - 1];
		for (int i = 1; i < no; i++) {
			scalar[i] = g.n_sca && pick(&g, 4) == 0;
			names[i] = scalar[i] ? g.sca[pick(&g, (unsigned)g.n_sca)] : g.vec[pick(&g, (unsigned)g.n_vec)];
		}
		ffu__sb_append(sb, "  ROOT %out = (");
		for (int i = 0; i < no; i++) {
			if (scalar[i])
				ffu__sb_printf(sb, "%s%s[]", i ? ", " : "", t);
			else
				ffu__sb_printf(sb, "%s%s[%lld]", i ? ", " : "", t, g.n);
		}
		ffu__sb_append(sb, ") tuple(");
		for (int i = 0; i < no; i++)
			ffu__sb_printf(sb, "%s%%%s", i ? ", " : "", names[i]);
		ffu__sb_append(sb, ")\n}\n");
	}
	return ffu__sb_status(sb, e);
}
