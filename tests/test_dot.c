/*
 * tests/test_dot.c: the `dot` op on the host (the devices: test_dot_device.c).
 *  - the interpreter against sums computed with GMP from the stored integers (a _mont
 *    value's integer times R^-1, an extension's coefficients multiplied in F_p[u]/(u^d - W)
 *    here, not by fields/), for every kind of dot (vector, matrix-vector, vector-matrix,
 *    matrix-matrix, transposed, batched, two contracting dimensions, outer product, empty
 *    contraction, CSR times vector and matrix) on a 31-bit prime, Goldilocks, BN254 (256
 *    bits), their _mont twins and three extensions; the CSR operand decoded here from
 *    ZKX's bytes;
 *  - text: the printer's canonical form, ZKX's sparse dot without dimension numbers, CSE
 *    telling dots apart by their dimension numbers;
 *  - value files of a CSR parameter: dense text (fewer non-zeros than NNZ stored as
 *    zeros, more refused at the line), .bin CSR bytes checked;
 *  - the builder: ffu_build_dot and ffu_build_parameter_csr print as text does; errors
 *    name the call;
 *  - ffu__csr_random: valid matrices, distinct positions.
 * The verifier's messages are in the bad corpus (tests/bad/dot_*.hlo, csr_*.hlo).
 */
#include <criterion/criterion.h>
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fieldfuse/builder.h"
#include "hlo/hlo.h"
#include "interp/interp.h"
#include "ir/value.h"
#include "passes/passes.h"
#include "support.h"

static ffu_module *parse(const char *text)
{
	ffu_error e = {0};
	ffu_module *m = NULL;
	cr_assert_eq(ffu__hlo_parse(&m, text, strlen(text), "dot", &e), FFU_STATUS_OK, "%s\n%s", e.message, text);
	return m;
}

static char *print(const ffu_module *m)
{
	ffu_strbuf sb = {0};
	ffu_error e = {0};
	cr_assert_eq(ffu__hlo_print(&sb, m, &e), FFU_STATUS_OK, "%s", e.message);
	char *t = strdup(ffu__sb_cstr(&sb));
	ffu__sb_free(&sb);
	return t;
}

/* text with every "T" that stands alone before '[' replaced by type. */
static char *with_type(const char *text, const char *type)
{
	size_t n = strlen(text), tl = strlen(type);
	char *out = malloc(n * (tl + 1) + 1), *w = out;
	cr_assert(out);
	for (size_t i = 0; i < n; i++) {
		if (text[i] == 'T' && text[i + 1] == '[' && (i == 0 || text[i - 1] == ' ')) {
			memcpy(w, type, tl);
			w += tl;
		} else {
			*w++ = text[i];
		}
	}
	*w = '\0';
	return out;
}

static uint32_t u32_at(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* ---- the GMP oracle ---- */

/* A field's arithmetic from its table entry only: p, degree, W, the _mont radix. */
typedef struct gf {
	mpz_t p, w, rinv, r;
	int d;
	size_t cb;
	bool mont;
} gf;

static void gf_init(gf *g, const ffu_field *f)
{
	mpz_inits(g->p, g->w, g->rinv, g->r, NULL);
	mpz_set_str(g->p, f->modulus_hex, 16);
	g->d = f->degree;
	mpz_set_si(g->w, f->nonresidue);
	mpz_mod(g->w, g->w, g->p);
	g->cb = f->storage_bytes / (size_t)f->degree;
	g->mont = ffu__field_is_mont(f);
	mpz_set_ui(g->r, 1);
	mpz_mul_2exp(g->r, g->r, (mp_bitcnt_t)(g->mont ? f->mont_radix_bits : 0));
	mpz_mod(g->r, g->r, g->p);
	mpz_invert(g->rinv, g->r, g->p);
}

static void gf_clear(gf *g)
{
	mpz_clears(g->p, g->w, g->rinv, g->r, NULL);
}

/* An element's canonical coefficients from its stored bytes. */
static void gf_get(const gf *g, mpz_t *c, const unsigned char *b)
{
	for (int k = 0; k < g->d; k++) {
		mpz_import(c[k], g->cb, -1, 1, 0, 0, b + (size_t)k * g->cb);
		mpz_mul(c[k], c[k], g->rinv);
		mpz_mod(c[k], c[k], g->p);
	}
}

static void gf_put(const gf *g, unsigned char *b, mpz_t *c)
{
	memset(b, 0, g->cb * (size_t)g->d);
	for (int k = 0; k < g->d; k++) {
		mpz_mul(c[k], c[k], g->r);
		mpz_mod(c[k], c[k], g->p);
		size_t cnt = 0;
		mpz_export(b + (size_t)k * g->cb, &cnt, -1, 1, 0, 0, c[k]);
	}
}

/* acc += a * b in F_p[u]/(u^d - W) (unreduced). */
static void gf_addmul(const gf *g, mpz_t *acc, mpz_t *a, mpz_t *b, mpz_t t)
{
	for (int i = 0; i < g->d; i++)
		for (int j = 0; j < g->d; j++) {
			mpz_mul(t, a[i], b[j]);
			if (i + j >= g->d)
				mpz_mul(t, t, g->w);
			mpz_add(acc[(i + j) % g->d], acc[(i + j) % g->d], t);
		}
}

/* x's stored elements as a dense row-major array of d coefficients each (a CSR matrix's
   entries added into their positions, decoded here from ZKX's layout). */
static mpz_t *dense_of(const gf *g, const ffu_value *x)
{
	const ffu_shape *s = &x->shape;
	int64_t n = ffu__shape_count(s);
	size_t eb = g->cb * (size_t)g->d;
	mpz_t *v = malloc(sizeof *v * (size_t)(n * g->d + 1));
	cr_assert(v);
	for (int64_t k = 0; k < n * g->d; k++)
		mpz_init(v[k]);
	if (!s->csr) {
		for (int64_t k = 0; k < n; k++)
			gf_get(g, v + k * g->d, x->data + (size_t)k * eb);
		return v;
	}
	int64_t m = s->dims[0], cols = s->dims[1];
	const unsigned char *col = x->data + 4 * (m + 1), *val = col + 4 * s->nnz;
	mpz_t *c = malloc(sizeof *c * (size_t)g->d);
	for (int k = 0; k < g->d; k++)
		mpz_init(c[k]);
	for (int64_t r = 0; r < m; r++)
		for (uint32_t e = u32_at(x->data + 4 * r); e < u32_at(x->data + 4 * (r + 1)); e++) {
			uint32_t cc = u32_at(col + 4 * (size_t)e);
			cr_assert_lt(cc, (uint32_t)cols);
			gf_get(g, c, val + (size_t)e * eb);
			for (int k = 0; k < g->d; k++)
				mpz_add(v[(r * cols + cc) * g->d + k], v[(r * cols + cc) * g->d + k], c[k]);
		}
	for (int k = 0; k < g->d; k++)
		mpz_clear(c[k]);
	free(c);
	return v;
}

static int64_t ravel(const ffu_shape *s, const int64_t *c)
{
	int64_t i = 0;
	for (int d = 0; d < s->rank; d++)
		i = i * s->dims[d] + c[d];
	return i;
}

/* XLA's dot_general written out again: result coordinates are (batch, lhs free, rhs free). */
static void oracle(const ffu_inst *dot, const ffu_value *x, const ffu_value *y, unsigned char *want)
{
	const ffu_field *f = ffu__shape_field(&dot->shape);
	gf g;
	gf_init(&g, f);
	mpz_t *xv = dense_of(&g, x), *yv = dense_of(&g, y), acc[4], t;
	for (int k = 0; k < 4; k++)
		mpz_init(acc[k]);
	mpz_init(t);
	const ffu_dot_attrs *a = &dot->dot;
	const ffu_shape *xs = &x->shape, *ys = &y->shape, *rs = &dot->shape;
	int lfree[4], rfree[4], nl = 0, nr = 0;
	for (int side = 0; side < 2; side++)
		for (int d = 0; d < (side ? ys->rank : xs->rank); d++) {
			bool used = false;
			for (int k = 0; k < a->n_batch; k++)
				used |= (side ? a->rhs_batch[k] : a->lhs_batch[k]) == d;
			for (int k = 0; k < a->n_contract; k++)
				used |= (side ? a->rhs_contract[k] : a->lhs_contract[k]) == d;
			if (!used) {
				if (side)
					rfree[nr++] = d;
				else
					lfree[nl++] = d;
			}
		}
	int64_t total = ffu__shape_count(rs), ksize = 1;
	for (int k = 0; k < a->n_contract; k++)
		ksize *= xs->dims[a->lhs_contract[k]];
	for (int64_t i = 0; i < total; i++) {
		int64_t rc[4] = {0}, xc[4] = {0}, yc[4] = {0}, rest = i;
		for (int d = rs->rank - 1; d >= 0; d--) {
			rc[d] = rest % rs->dims[d];
			rest /= rs->dims[d];
		}
		int r = 0;
		for (int k = 0; k < a->n_batch; k++, r++)
			xc[a->lhs_batch[k]] = yc[a->rhs_batch[k]] = rc[r];
		for (int k = 0; k < nl; k++, r++)
			xc[lfree[k]] = rc[r];
		for (int k = 0; k < nr; k++, r++)
			yc[rfree[k]] = rc[r];
		for (int k = 0; k < g.d; k++)
			mpz_set_ui(acc[k], 0);
		for (int64_t kk = 0; kk < ksize; kk++) {
			int64_t q = kk;
			for (int c = a->n_contract - 1; c >= 0; c--) {
				xc[a->lhs_contract[c]] = yc[a->rhs_contract[c]] = q % xs->dims[a->lhs_contract[c]];
				q /= xs->dims[a->lhs_contract[c]];
			}
			gf_addmul(&g, acc, xv + ravel(xs, xc) * g.d, yv + ravel(ys, yc) * g.d, t);
		}
		for (int k = 0; k < g.d; k++)
			mpz_mod(acc[k], acc[k], g.p);
		gf_put(&g, want + (size_t)i * f->storage_bytes, acc);
	}
	for (int64_t k = 0; k < ffu__shape_count(xs) * g.d; k++)
		mpz_clear(xv[k]);
	for (int64_t k = 0; k < ffu__shape_count(ys) * g.d; k++)
		mpz_clear(yv[k]);
	free(xv);
	free(yv);
	for (int k = 0; k < 4; k++)
		mpz_clear(acc[k]);
	mpz_clear(t);
	gf_clear(&g);
}

/* Every kind of dot, T the element type; the result of the last instruction is the dot. */
static const char *const shapes[] = {
	"ENTRY %m {\n %x = T[5] parameter(0)\n %y = T[5] parameter(1)\n"
	" ROOT %d = T[] dot(%x, %y), lhs_contracting_dims={0}, rhs_contracting_dims={0}\n}\n",
	"ENTRY %m {\n %x = T[3,4] parameter(0)\n %y = T[4] parameter(1)\n"
	" ROOT %d = T[3] dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n",
	"ENTRY %m {\n %x = T[4] parameter(0)\n %y = T[4,3] parameter(1)\n"
	" ROOT %d = T[3] dot(%x, %y), lhs_contracting_dims={0}, rhs_contracting_dims={0}\n}\n",
	"ENTRY %m {\n %x = T[2,3] parameter(0)\n %y = T[3,4] parameter(1)\n"
	" ROOT %d = T[2,4] dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n",
	"ENTRY %m {\n %x = T[3,2] parameter(0)\n %y = T[4,3] parameter(1)\n"
	" ROOT %d = T[2,4] dot(%x, %y), lhs_contracting_dims={0}, rhs_contracting_dims={1}\n}\n",
	"ENTRY %m {\n %x = T[2,3,4] parameter(0)\n %y = T[2,4,5] parameter(1)\n"
	" ROOT %d = T[2,3,5] dot(%x, %y), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, "
	"rhs_contracting_dims={1}\n}\n",
	"ENTRY %m {\n %x = T[3,2,4] parameter(0)\n %y = T[4,2,3] parameter(1)\n"
	" ROOT %d = T[2] dot(%x, %y), lhs_batch_dims={1}, rhs_batch_dims={1}, lhs_contracting_dims={0,2}, "
	"rhs_contracting_dims={2,0}\n}\n",
	"ENTRY %m {\n %x = T[2,3,4] parameter(0)\n %y = T[4,3] parameter(1)\n"
	" ROOT %d = T[2] dot(%x, %y), lhs_contracting_dims={1,2}, rhs_contracting_dims={1,0}\n}\n",
	"ENTRY %m {\n %x = T[3] parameter(0)\n %y = T[2] parameter(1)\n ROOT %d = T[3,2] dot(%x, %y)\n}\n",
	"ENTRY %m {\n %x = T[3,0] parameter(0)\n %y = T[0] parameter(1)\n"
	" ROOT %d = T[3] dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n",
	"ENTRY %m {\n %x = T[4] parameter(0)\n %y = T[4] parameter(1)\n"
	" ROOT %d = T[4] dot(%x, %y), lhs_batch_dims={0}, rhs_batch_dims={0}\n}\n",
	"ENTRY %m {\n %x = T[4,3]{1,0:D(D, C) NNZ(5)} parameter(0)\n %y = T[3] parameter(1)\n"
	" ROOT %d = T[4] dot(%x, %y)\n}\n",
	"ENTRY %m {\n %x = T[5,4]{1,0:D(D, C) NNZ(7)} parameter(0)\n %y = T[2,4] parameter(1)\n"
	" ROOT %d = T[5,2] dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={1}\n}\n",
	"ENTRY %m {\n %x = T[3,2]{1,0:D(D, C) NNZ(0)} parameter(0)\n %y = T[2] parameter(1)\n"
	" ROOT %d = T[3] dot(%x, %y)\n}\n",
	"ENTRY %m {\n %x = T[2,3]{1,0:D(D, C) NNZ(6)} parameter(0)\n %y = T[3,2] parameter(1)\n"
	" ROOT %d = T[2,2] dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n",
};

static const char *const types[] = {"babybear",      "goldilocks",     "bn254_sf",   "babybear_mont",
				    "bn254_sf_mont", "goldilocks_mont", "babybearx4", "babybearx4_mont",
				    "goldilocksx3",  "mersenne31x2"};

Test(dot, interpreter_matches_gmp)
{
	for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++)
		for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
			char *text = with_type(shapes[si], types[ti]);
			ffu_module *m = parse(text);
			ffu_value in[2] = {0}, *out = NULL;
			int n_out = 0;
			ffu_error e = {0};
			uint64_t seed = 1000 * ti + si;
			for (int j = 0; j < 2; j++) {
				cr_assert_eq(ffu__value_alloc(&in[j], &m->entry->params[j]->shape, &e), FFU_STATUS_OK, "%s", e.message);
				ffu__value_random(&in[j], &seed);
			}
			cr_assert_eq(ffu__interp_run(m, in, 2, &out, &n_out, &e), FFU_STATUS_OK, "%s", e.message);
			unsigned char *want = calloc(out[0].bytes + 1, 1);
			cr_assert(want);
			oracle(m->entry->root, &in[0], &in[1], want);
			size_t eb = ffu__shape_elem_bytes(&out[0].shape);
			for (size_t i = 0; i < out[0].bytes; i += eb)
				cr_assert(memcmp(out[0].data + i, want + i, eb) == 0, "%s: element %zu differs from GMP's sum\n%s",
					  types[ti], i / eb, text);
			free(want);
			ffu__values_free(out, n_out);
			ffu__value_free(&in[0]);
			ffu__value_free(&in[1]);
			ffu__module_free(m);
			free(text);
		}
}

/* A known answer by hand: ZKX's CSR layout, decoded by the interpreter. */
Test(dot, csr_known_answer)
{
	ffu_module *m = parse("ENTRY %m {\n %x = babybear[3,4]{1,0:D(D, C) NNZ(3)} parameter(0)\n"
			      " %y = babybear[4] parameter(1)\n ROOT %d = babybear[3] dot(%x, %y)\n}\n");
	/* [[0 2 0 3], [0 0 0 0], [5 0 0 0]], row 0's columns unsorted (ZKX does not sort them) */
	static const uint32_t words[] = {0, 2, 2, 3, /* columns */ 3, 1, 0, /* values */ 3, 2, 5};
	ffu_value in[2] = {0}, *out = NULL;
	int n_out = 0;
	ffu_error e = {0};
	cr_assert_eq(ffu__value_alloc(&in[0], &m->entry->params[0]->shape, &e), FFU_STATUS_OK);
	cr_assert_eq(ffu__value_alloc(&in[1], &m->entry->params[1]->shape, &e), FFU_STATUS_OK);
	cr_assert_eq(in[0].bytes, sizeof words);
	for (size_t k = 0; k < sizeof words / 4; k++)
		for (int b = 0; b < 4; b++)
			in[0].data[4 * k + (size_t)b] = (unsigned char)(words[k] >> (8 * b));
	char why[320];
	cr_assert(ffu__csr_check(&in[0].shape, in[0].data, in[0].bytes, why, sizeof why), "%s", why);
	for (int k = 0; k < 4; k++)
		in[1].data[4 * k] = (unsigned char)(10 + k); /* y = 10, 11, 12, 13 */
	cr_assert_eq(ffu__interp_run(m, in, 2, &out, &n_out, &e), FFU_STATUS_OK, "%s", e.message);
	const uint32_t want[3] = {2 * 11 + 3 * 13, 0, 5 * 10};
	for (int k = 0; k < 3; k++)
		cr_expect_eq(u32_at(out[0].data + 4 * k), want[k], "row %d", k);
	ffu__values_free(out, n_out);
	ffu__value_free(&in[0]);
	ffu__value_free(&in[1]);
	ffu__module_free(m);
}

/* ---- text ---- */

Test(dot, printer_and_zkx_default)
{
	/* ZKX's sparse dot without dimension numbers prints with them; the layout stays */
	ffu_module *m = parse("ENTRY %main {\n  %x = babybear[4, 3]{1,0:D(D, C) NNZ(8)} parameter(0)\n"
			      "  %y = babybear[3] parameter(1)\n  ROOT %ret = babybear[4] dot(%x, %y)\n}\n");
	char *t = print(m);
	cr_expect(strstr(t, "%x = babybear[4,3]{1,0:D(D, C) NNZ(8)} parameter(0)\n"), "%s", t);
	cr_expect(strstr(t, "babybear[4] dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"), "%s", t);
	ffu_module *m2 = parse(t);
	char *t2 = print(m2);
	cr_expect_str_eq(t2, t);
	free(t);
	free(t2);
	ffu__module_free(m);
	ffu__module_free(m2);
	/* every list written back; an outer product's empty contracting lists too */
	static const char *const round[] = {
		"lhs_batch_dims={1}, rhs_batch_dims={1}, lhs_contracting_dims={0,2}, rhs_contracting_dims={2,0}\n",
		"T[3,2] dot(%x, %y), lhs_contracting_dims={}, rhs_contracting_dims={}\n",
	};
	for (int k = 0; k < 2; k++) {
		char *text = with_type(shapes[k ? 8 : 6], "koalabear");
		m = parse(text);
		t = print(m);
		char *want = with_type(round[k], "koalabear");
		cr_expect(strstr(t, want), "missing %s in\n%s", want, t);
		m2 = parse(t);
		t2 = print(m2);
		cr_expect_str_eq(t2, t);
		free(want);
		free(t);
		free(t2);
		free(text);
		ffu__module_free(m);
		ffu__module_free(m2);
	}
}

/* CSE merges equal dots only: the same operands contracted otherwise stay apart. */
Test(dot, cse)
{
	ffu_module *m = parse("HloModule c\nENTRY %m {\n %x = babybear[3,3] parameter(0)\n %y = babybear[3,3] parameter(1)\n"
			      " %a = babybear[3,3] dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
			      " %b = babybear[3,3] dot(%x, %y), lhs_contracting_dims={0}, rhs_contracting_dims={0}\n"
			      " %c = babybear[3,3] dot(%x, %y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
			      " ROOT %t = (babybear[3,3], babybear[3,3], babybear[3,3]) tuple(%a, %b, %c)\n}\n");
	ffu_error e = {0};
	cr_assert_eq(ffu__pass_cse(m, NULL, &e), FFU_STATUS_OK, "%s", e.message);
	int dots = 0;
	for (int i = 0; i < m->entry->n_insts; i++)
		dots += m->entry->insts[i]->op == FFU_OP_DOT;
	cr_expect_eq(dots, 2, "a and c merge, b stays");
	const ffu_inst *t = m->entry->root;
	cr_expect(t->operands[0] == t->operands[2] && t->operands[0] != t->operands[1]);
	ffu__module_free(m);
}

/* ---- value files ---- */

static char *write_tmp(const char *dir, const char *name, const void *data, size_t n)
{
	char *path = malloc(strlen(dir) + strlen(name) + 2);
	cr_assert(path);
	sprintf(path, "%s/%s", dir, name);
	FILE *fp = fopen(path, "wb");
	cr_assert(fp);
	cr_assert_eq(fwrite(data, 1, n, fp), n);
	fclose(fp);
	return path;
}

Test(dot, csr_value_files)
{
	char dir[] = "/tmp/ffu_dot_XXXXXX";
	cr_assert(mkdtemp(dir));
	ffu_module *m = parse("ENTRY %m {\n %x = goldilocks[3,3]{1,0:D(D, C) NNZ(4)} parameter(0)\n"
			      " %y = goldilocks[3] parameter(1)\n ROOT %d = goldilocks[3] dot(%x, %y)\n}\n");
	const ffu_shape *s = &m->entry->params[0]->shape;
	ffu_value v = {0};
	ffu_error e = {0};
	/* 3 non-zeros: the first zero (row 0, column 1) is stored as the 4th entry */
	const char *three = "# a comment\n5\n0\n7\n\n0\n0\n0\n0\n9\n0\n";
	char *p = write_tmp(dir, "three.txt", three, strlen(three));
	cr_assert_eq(ffu__values_read(&v, p, s, &e), FFU_STATUS_OK, "%s", e.message);
	static const uint32_t rows[] = {0, 3, 3, 4}, cols[] = {0, 1, 2, 1};
	static const uint64_t vals[] = {5, 0, 7, 9};
	for (int k = 0; k < 4; k++) {
		cr_expect_eq(u32_at(v.data + 4 * k), rows[k], "row_ptrs[%d]", k);
		cr_expect_eq(u32_at(v.data + 16 + 4 * k), cols[k], "col_indices[%d]", k);
		uint64_t x = (uint64_t)u32_at(v.data + 32 + 8 * k) | (uint64_t)u32_at(v.data + 36 + 8 * k) << 32;
		cr_expect_eq(x, vals[k], "values[%d]", k);
	}
	/* the same bytes as a .bin file read back; then damaged ones refused */
	char *pb = write_tmp(dir, "ok.bin", v.data, v.bytes);
	ffu_value w = {0};
	cr_assert_eq(ffu__values_read(&w, pb, s, &e), FFU_STATUS_OK, "%s", e.message);
	cr_expect(w.bytes == v.bytes && memcmp(w.data, v.data, v.bytes) == 0);
	ffu__value_free(&w);
	static const struct {
		size_t at;
		uint32_t word;
		const char *msg;
	} damage[] = {
		{4, 4, "row_ptrs[1] is 4"},          /* past NNZ... and row 2 would go back */
		{8, 1, "row_ptrs[2] is 1"},          /* going back */
		{0, 1, "row_ptrs[0] is 1, not 0"},
		{12, 3, "row_ptrs[3] is 3; the last row pointer is NNZ (4)"},
		{20, 3, "col_indices[1] is 3; the matrix has 3 columns"},
		{36, 0xffffffffu, "values[0] is not a valid goldilocks value"},
	};
	for (size_t k = 0; k < sizeof damage / sizeof damage[0]; k++) {
		unsigned char bad[64];
		memcpy(bad, v.data, v.bytes);
		for (int b = 0; b < 4; b++)
			bad[damage[k].at + (size_t)b] = (unsigned char)(damage[k].word >> (8 * b));
		if (damage[k].at == 36) /* values[0]'s high word all ones and its low word too: >= p */
			memset(bad + 32, 0xff, 8);
		char *pk = write_tmp(dir, "bad.bin", bad, v.bytes);
		cr_expect_eq(ffu__values_read(&w, pk, s, &e), FFU_STATUS_EPARSE, "damage %zu", k);
		cr_expect(e.message && strstr(e.message, damage[k].msg), "damage %zu: %s", k, e.message);
		free(pk);
	}
	char *ps = write_tmp(dir, "short.bin", v.data, v.bytes - 1);
	cr_expect_eq(ffu__values_read(&w, ps, s, &e), FFU_STATUS_EPARSE);
	cr_expect(strstr(e.message, "row_ptrs u32[4], col_indices u32[4], values of 8 bytes"), "%s", e.message);
	/* five non-zeros for NNZ(4): refused at the fifth, with its line */
	const char *five = "5\n0\n7\n1\n0\n0\n# gap\n0\n2\n9\n";
	char *p5 = write_tmp(dir, "five.txt", five, strlen(five));
	cr_expect_eq(ffu__values_read(&w, p5, s, &e), FFU_STATUS_EPARSE);
	cr_expect_eq(e.line, 10, "the fifth non-zero is on line 10, not %d", e.line);
	cr_expect(strstr(e.message, "more non-zero elements than its layout's NNZ(4): the 5th is this one, row 2, column 2"),
		  "%s", e.message);
	ffu__value_free(&v);
	ffu_error_clear(&e);
	free(p);
	free(pb);
	free(ps);
	free(p5);
	ffu__module_free(m);
	ffu_test_remove_tree(dir);
}

/* Random CSR matrices: valid, NNZ distinct positions, both drawing methods (sparse, dense). */
Test(dot, csr_random)
{
	static const int64_t cases[][3] = {{1, 1, 1}, {4, 3, 8}, {5, 7, 3}, {6, 6, 36}, {9, 2, 10}, {100, 100, 700},
					   {3, 5, 0}, {0, 4, 0}, {50, 1, 49}};
	uint64_t seed = 5;
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		ffu_shape s = {.type = FFU_TYPE_BN254_SF, .rank = 2, .dims = {cases[c][0], cases[c][1]}, .csr = true,
			       .nnz = cases[c][2]};
		ffu_value v = {0};
		ffu_error e = {0};
		cr_assert_eq(ffu__value_alloc(&v, &s, &e), FFU_STATUS_OK, "%s", e.message);
		for (int rep = 0; rep < 5; rep++) {
			ffu__value_random(&v, &seed);
			char why[320];
			cr_assert(ffu__csr_check(&s, v.data, v.bytes, why, sizeof why), "case %zu: %s", c, why);
			int64_t m = s.dims[0], n = s.dims[1];
			char *seen = calloc((size_t)(m * n) + 1, 1);
			for (int64_t r = 0; r < m; r++)
				for (uint32_t e2 = u32_at(v.data + 4 * r); e2 < u32_at(v.data + 4 * (r + 1)); e2++) {
					uint32_t col = u32_at(v.data + 4 * (m + 1) + 4 * e2);
					cr_assert(!seen[r * n + col], "case %zu: position (%lld, %u) stored twice", c, (long long)r, col);
					seen[r * n + col] = 1;
				}
			free(seen);
		}
		ffu__value_free(&v);
	}
}

/* ---- builder ---- */

Test(dot, builder)
{
	ffu_builder *b = NULL;
	ffu_error e = {0};
	cr_assert_eq(ffu_builder_create(&b, "built", &e), FFU_STATUS_OK);
	const int64_t xd[3] = {2, 3, 4}, yd[3] = {2, 4, 5}, vd[1] = {3};
	const int64_t lc[1] = {2}, rc[1] = {1}, bt[1] = {0}, one[1] = {1}, zero[1] = {0};
	ffu_node x = ffu_build_parameter(b, "x", "babybearx4", 3, xd);
	ffu_node y = ffu_build_parameter(b, "y", "babybearx4", 3, yd);
	ffu_node s = ffu_build_parameter_csr(b, "s", "babybearx4", 6, 3, 5);
	ffu_node v = ffu_build_parameter(b, "v", "babybearx4", 1, vd);
	ffu_node d = ffu_build_dot(b, x, y, lc, rc, 1, bt, bt, 1);
	ffu_node c = ffu_build_dot(b, s, v, one, zero, 1, NULL, NULL, 0);
	ffu_node o = ffu_build_dot(b, v, v, NULL, NULL, 0, NULL, NULL, 0);
	ffu_node t = ffu_build_tuple(b, (ffu_node[]){d, c, o}, 3);
	cr_assert_eq(ffu_builder_status(b, &e), FFU_STATUS_OK, "%s", e.message);
	ffu_array_info info;
	cr_assert_eq(ffu_builder_shape(b, d, &info), FFU_STATUS_OK);
	cr_expect(info.rank == 3 && info.dims[0] == 2 && info.dims[1] == 3 && info.dims[2] == 5);
	ffu_program *p = NULL;
	cr_assert_eq(ffu_builder_finish(b, t, &p, &e), FFU_STATUS_OK, "%s", e.message);
	ffu_array_info in2;
	cr_assert_eq(ffu_program_input(p, 2, &in2), FFU_STATUS_OK);
	cr_expect_eq(in2.nnz, 5);
	cr_expect_eq(in2.bytes, 4 * 7 + 4 * 5 + 16 * 5, "ZKX's CSR bytes: %zu", in2.bytes);
	cr_assert_eq(ffu_program_input(p, 0, &in2), FFU_STATUS_OK);
	cr_expect_eq(in2.nnz, -1);
	char *text = NULL;
	cr_assert_eq(ffu_program_print(&text, p, &e), FFU_STATUS_OK, "%s", e.message);
	static const char *const want[] = {
		"%s = babybearx4[6,3]{1,0:D(D, C) NNZ(5)} parameter(2)\n",
		"babybearx4[2,3,5] dot(%x, %y), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, "
		"rhs_contracting_dims={1}\n",
		"babybearx4[6] dot(%s, %v), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n",
		"babybearx4[3,3] dot(%v, %v), lhs_contracting_dims={}, rhs_contracting_dims={}\n",
	};
	ffu_test_expect_in(text, want, sizeof want / sizeof want[0]);
	free(text);
	ffu_program_destroy(&p);
	ffu_builder_destroy(&b);

	static const struct {
		int what;
		const char *msg;
	} bad[] = {
		{0, "ffu_build_dot: '%dot."},
		{0, "contracting dimension pair 0: lhs dimension 0 has size 3, rhs dimension 0 has size 4"},
		{1, "ffu_build_dot: lhs_contracting must list 0..4 dimensions (n = 1, list NULL)"},
		{2, "operand 1 ('%m') is the CSR sparse matrix babybear[2,2]{1,0:D(D, C) NNZ(1)}: only the lhs of a dot"},
		{3, "ffu_build_parameter_csr: '%m' (parameter): babybear[2,2]{1,0:D(D, C) NNZ(5)}: NNZ must lie in 0..rows x columns"},
		{4, "the CSR lhs '%m' (babybear[2,2]{1,0:D(D, C) NNZ(1)}) contracts its columns"},
		{5, "ffu_build_add: '%add.0' (add): operand 0 ('%m') is the CSR sparse matrix"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cr_assert_eq(ffu_builder_create(&b, "bad", &e), FFU_STATUS_OK);
		const int64_t d3[1] = {3}, d4[1] = {4};
		ffu_node a3 = ffu_build_parameter(b, "a", "babybear", 1, d3);
		ffu_node a4 = ffu_build_parameter(b, "b", "babybear", 1, d4);
		ffu_node v2 = ffu_build_parameter(b, "v", "babybear", 1, (const int64_t[]){2});
		switch (bad[i].what) {
		case 0: ffu_build_dot(b, a3, a4, zero, zero, 1, NULL, NULL, 0); break;
		case 1: ffu_build_dot(b, a3, a3, NULL, zero, 1, NULL, NULL, 0); break;
		case 2: ffu_build_dot(b, v2, ffu_build_parameter_csr(b, "m", "babybear", 2, 2, 1), zero, zero, 1, NULL, NULL, 0); break;
		case 3: ffu_build_parameter_csr(b, "m", "babybear", 2, 2, 5); break;
		case 4: ffu_build_dot(b, ffu_build_parameter_csr(b, "m", "babybear", 2, 2, 1), v2, zero, zero, 1, NULL, NULL, 0); break;
		default: {
			ffu_node m = ffu_build_parameter_csr(b, "m", "babybear", 2, 2, 1);
			ffu_build_add(b, m, m);
			break;
		}
		}
		ffu_status st = ffu_builder_status(b, &e);
		cr_expect(st != FFU_STATUS_OK && strstr(e.message, bad[i].msg), "case %zu: %s", i, e.message);
		ffu_builder_destroy(&b);
	}
	ffu_error_clear(&e);
}
