/*
 * tests/test_addchain.c: the addition chains of codegen/addchain.c, which the code
 * generator unrolls for power by a constant exponent. Host only, no device.
 *  - every chain is checked by evaluating it on exponents (element values as integers in
 *    unsigned __int128, a square doubles, a product adds): every step reads earlier
 *    elements only, squares are squares, the last element is exactly e, no element
 *    overflows 64 bits, and the length never exceeds the binary method's; for every e in
 *    1..65535, thousands of random 64-bit e (fixed seed) and edge values, with every
 *    window cap;
 *  - below FFU_ADDCHAIN_OPTIMAL_BELOW the length is l(e), the shortest possible: against
 *    OEIS A003313 (the first 100 terms and known values such as l(191) = 11, the first
 *    e needing 11 steps), against plain exhaustive searches written here (star chains for
 *    every e, which also give the fewest products, and general chains up to 256), and
 *    against relations every l obeys;
 *  - the multiplications saved against the binary method on the exponents a prover uses
 *    (p - 2 for inversion, S-box exponents) are printed, not asserted.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "codegen/addchain.h"
#include "field.h"

typedef struct shape {
	int len, sqr, mul;
} shape;

/* Builds and checks the chain for e with window cap w; returns its shape. */
static shape check(uint64_t e, int w)
{
	ffu_addchain_step st[FFU_ADDCHAIN_MAX_STEPS + 1];
	memset(st, 0xa5, sizeof st);
	int n = -1;
	cr_assert_eq(ffu__addchain_build(st, &n, e, w), FFU_STATUS_OK, "e=%llu w=%d", (unsigned long long)e, w);
	cr_assert(n >= 0 && n <= FFU_ADDCHAIN_MAX_STEPS, "e=%llu: %d steps", (unsigned long long)e, n);
	/* the caller's buffer holds FFU_ADDCHAIN_MAX_STEPS steps: nothing written past them */
	const unsigned char *past = (const unsigned char *)&st[FFU_ADDCHAIN_MAX_STEPS];
	for (size_t i = 0; i < sizeof st[0]; i++)
		cr_assert_eq(past[i], 0xa5, "e=%llu: wrote past the buffer", (unsigned long long)e);
	unsigned __int128 val[FFU_ADDCHAIN_MAX_STEPS + 1];
	val[0] = 1;
	shape s = {n, 0, 0};
	for (int k = 0; k < n; k++) {
		int a = st[k].a, b = st[k].b;
		cr_assert(a <= k && b <= k, "e=%llu step %d reads elements %d, %d", (unsigned long long)e, k, a, b);
		if (st[k].op == FFU_ADDCHAIN_SQR) {
			cr_assert_eq(a, b, "e=%llu step %d: a square of two elements", (unsigned long long)e, k);
			s.sqr++;
		} else {
			cr_assert_eq(st[k].op, FFU_ADDCHAIN_MUL, "e=%llu step %d: op %d", (unsigned long long)e, k, st[k].op);
			cr_assert_neq(a, b, "e=%llu step %d: a square marked as a product", (unsigned long long)e, k);
			s.mul++;
		}
		val[k + 1] = val[a] + val[b];
		cr_assert(val[k + 1] <= UINT64_MAX, "e=%llu step %d overflows", (unsigned long long)e, k);
	}
	cr_assert(val[n] == e, "e=%llu w=%d: the chain computes x^%llu", (unsigned long long)e, w,
		  (unsigned long long)val[n]);
	int bin = ffu__addchain_binary_len(e);
	cr_assert_leq(n, bin, "e=%llu w=%d: %d steps, binary %d", (unsigned long long)e, w, n, bin);
	return s;
}

static int bits(uint64_t e)
{
	return 64 - __builtin_clzll(e);
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

Test(addchain, binary_len)
{
	cr_assert_eq(ffu__addchain_binary_len(1), 0);
	cr_assert_eq(ffu__addchain_binary_len(2), 1);
	cr_assert_eq(ffu__addchain_binary_len(3), 2);
	cr_assert_eq(ffu__addchain_binary_len(15), 6);
	cr_assert_eq(ffu__addchain_binary_len(1ull << 63), 63);
	cr_assert_eq(ffu__addchain_binary_len(UINT64_MAX), 126);
}

Test(addchain, bad_arguments)
{
	ffu_addchain_step st[FFU_ADDCHAIN_MAX_STEPS];
	int n = 7;
	cr_assert_eq(ffu__addchain_build(st, &n, 0, 4), FFU_STATUS_EINVAL);
	cr_assert_eq(n, 0);
	n = 7;
	cr_assert_eq(ffu__addchain_build(st, &n, 5000, 0), FFU_STATUS_EINVAL);
	cr_assert_eq(n, 0);
	cr_assert_eq(ffu__addchain_build(st, &n, 5000, FFU_ADDCHAIN_MAX_WINDOW + 1), FFU_STATUS_EINVAL);
	cr_assert_eq(ffu__addchain_build(st, &n, 1, 4), FFU_STATUS_OK);
	cr_assert_eq(n, 0, "x^1 is x: no step");
	cr_assert_eq(ffu__addchain_build(st, &n, 2, 4), FFU_STATUS_OK);
	cr_assert(n == 1 && st[0].op == FFU_ADDCHAIN_SQR && st[0].a == 0);
}

/* Every 16-bit exponent, with every window cap. */
Test(addchain, all_16_bit, .timeout = 120)
{
	for (int w = 1; w <= FFU_ADDCHAIN_MAX_WINDOW; w++)
		for (uint64_t e = 1; e < 65536; e++)
			check(e, w);
}

/* Random exponents of every bit length; a larger window cap never gives a longer chain. */
Test(addchain, random_64_bit, .timeout = 120)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < 4000; i++) {
		uint64_t e = xorshift(&seed);
		if (i % 2)
			e >>= xorshift(&seed) % 64;
		if (e == 0)
			e = 1;
		int prev = INT32_MAX;
		for (int w = 1; w <= FFU_ADDCHAIN_MAX_WINDOW; w++) {
			shape s = check(e, w);
			cr_assert_leq(s.len, prev, "e=%llu: cap %d gives %d steps, cap %d gave %d", (unsigned long long)e, w,
				      s.len, w - 1, prev);
			prev = s.len;
		}
		if (e >= FFU_ADDCHAIN_OPTIMAL_BELOW)
			cr_assert_eq(check(e, 1).len, ffu__addchain_binary_len(e), "cap 1 is the binary method");
	}
}

/* The exponents the fields use: p - 2 (inversion), p - 1, (p - 1) / 2, and bit patterns. */
Test(addchain, edge_values)
{
	static const uint64_t edges[] = {1,
					 2,
					 3,
					 FFU_ADDCHAIN_OPTIMAL_BELOW - 1,
					 FFU_ADDCHAIN_OPTIMAL_BELOW,
					 FFU_ADDCHAIN_OPTIMAL_BELOW + 1,
					 0xffffffffull,
					 0x100000000ull,
					 0x100000001ull,
					 0x5555555555555555ull,
					 0xaaaaaaaaaaaaaaaaull,
					 1ull << 62,
					 (1ull << 63) - 1,
					 1ull << 63,
					 (1ull << 63) + 1,
					 UINT64_MAX - 1,
					 UINT64_MAX};
	for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
		for (int w = 1; w <= FFU_ADDCHAIN_MAX_WINDOW; w++)
			check(edges[i], w);
	for (int id = 0; id < FFU_FIELD_COUNT; id++) {
		const ffu_field *f = ffu__field_get((ffu_field_id)id);
		if (f->bits > 64)
			continue;
		uint64_t p = f->p[0];
		for (int w = 1; w <= FFU_ADDCHAIN_MAX_WINDOW; w++) {
			check(p - 2, w);
			check(p - 1, w);
			check((p - 1) / 2, w);
		}
	}
	/* a power of two is all squares, two one bits one product */
	for (int k = 0; k < 64; k++) {
		shape s = check(1ull << k, 5);
		cr_assert(s.len == k && s.mul == 0, "2^%d: %d steps, %d products", k, s.len, s.mul);
		for (int j = 0; j < k; j++) {
			s = check((1ull << k) | (1ull << j), 5);
			cr_assert(s.len == k + 1 && s.mul == 1, "2^%d + 2^%d: %d steps, %d products", k, j, s.len, s.mul);
		}
	}
}

/* OEIS A003313, l(n) for n = 1..100. */
static const unsigned char a003313[100] = {
	0, 1, 2, 2, 3, 3, 4, 3, 4, 4, 5, 4, 5, 5, 5, 4, 5, 5, 6, 5, 6, 6, 6, 5, 6, 6, 6, 6, 7, 6, 7, 5, 6, 6,
	7, 6, 7, 7, 7, 6, 7, 7, 7, 7, 7, 7, 8, 6, 7, 7, 7, 7, 8, 7, 8, 7, 8, 8, 8, 7, 8, 8, 8, 6, 7, 7, 8, 7,
	8, 8, 9, 7, 8, 8, 8, 8, 8, 8, 9, 7, 8, 8, 8, 8, 8, 8, 9, 8, 9, 8, 9, 8, 9, 9, 9, 7, 8, 8, 8, 8};

Test(addchain, optimal_known_values)
{
	for (int n = 1; n <= 100; n++)
		cr_assert_eq(check((uint64_t)n, 5).len, a003313[n - 1], "l(%d)", n);
	/* l(2^k - 1) = k - 1 + l(k) (true for every k tried); 191, 379, 607 are the first
	   exponents needing 11, 12, 13 steps (OEIS A003064), 1087 the first needing 14;
	   l(382) = l(191), the smallest n with l(2n) = l(n) */
	static const struct {
		uint64_t e;
		int l;
	} known[] = {{15, 5},    {23, 6},   {31, 7},   {63, 8},   {127, 10}, {191, 11},
		     {255, 10},  {379, 12}, {382, 11}, {511, 12}, {607, 13}, {1023, 13}};
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		cr_assert_eq(check(known[i].e, 5).len, known[i].l, "l(%llu)", (unsigned long long)known[i].e);
	for (uint64_t e = 1; e < FFU_ADDCHAIN_OPTIMAL_BELOW; e++) {
		int l = check(e, 5).len;
		int most = e < 191 ? 10 : e < 379 ? 11 : e < 607 ? 12 : 13;
		cr_assert_leq(l, most, "l(%llu) = %d: below the first exponent needing %d", (unsigned long long)e, l,
			      most + 1);
	}
}

/*
 * Relations of l that any non-shortest chain would likely break somewhere in the range:
 * l(n + 1) <= l(n) + 1, l(2n) <= l(n) + 1, l(mn) <= l(m) + l(n).
 */
Test(addchain, optimal_relations)
{
	enum { N = FFU_ADDCHAIN_OPTIMAL_BELOW };
	static int l[N];
	for (int n = 1; n < N; n++)
		l[n] = check((uint64_t)n, 4).len;
	for (int n = 1; n + 1 < N; n++)
		cr_assert_leq(l[n + 1], l[n] + 1, "l(%d) = %d, l(%d) = %d", n + 1, l[n + 1], n, l[n]);
	for (int m = 2; m < N; m++)
		for (int n = m; (long)m * n < N; n++)
			cr_assert_leq(l[m * n], l[m] + l[n], "l(%d*%d) = %d > %d + %d", m, n, l[m * n], l[m], l[n]);
	/* among the shortest chains, one with fewest products: at least ceil(log2 v(e)) */
	for (int n = 1; n < N; n++) {
		shape s = check((uint64_t)n, 4);
		int need = 0;
		while ((1 << need) < __builtin_popcount((unsigned)n))
			need++;
		cr_assert_geq(s.mul, need, "%d: %d products", n, s.mul);
	}
	cr_assert_eq(check(7, 4).mul, 2);
	cr_assert_eq(check(15, 4).mul, 2, "1 2 3 6 12 15 or 1 2 4 5 10 15: two products");
	cr_assert_eq(check(255, 4).mul, 3);
}

/* ---- an independent search over general chains (any two earlier elements) ---- */

static bool general_dfs(uint64_t *v, int k, int len, uint64_t e)
{
	if (v[k] == e)
		return true;
	if (k == len)
		return false;
	int r = len - k;
	uint64_t tried[64 * 64 / 2 + 64];
	int nt = 0;
	for (int i = k; i >= 0; i--) {
		for (int j = i; j >= 0; j--) {
			uint64_t t = v[i] + v[j];
			if (t <= v[k] || (t << (r - 1)) < e)
				break; /* smaller j, smaller t */
			if (t > e)
				continue;
			bool seen = false;
			for (int q = 0; q < nt && !seen; q++)
				seen = tried[q] == t;
			if (seen)
				continue;
			tried[nt++] = t;
			v[k + 1] = t;
			if (general_dfs(v, k + 1, len, e))
				return true;
		}
	}
	return false;
}

static int general_l(uint64_t e)
{
	uint64_t v[64] = {1};
	int len = 0;
	while (!general_dfs(v, 0, len, e))
		len++;
	return len;
}

/* Fewest products (non-doubling steps) among the star chains of len steps for e. */
static int star_min_mults(uint64_t *v, int k, int len, uint64_t e, int mults, int best)
{
	if (v[k] == e)
		return mults < best ? mults : best;
	if (k == len || mults >= best)
		return best;
	for (int j = k; j >= 0; j--) {
		uint64_t t = v[k] + v[j];
		if ((t << (len - k - 1)) < e)
			break;
		if (t > e)
			continue;
		v[k + 1] = t;
		best = star_min_mults(v, k + 1, len, e, mults + (j != k), best);
	}
	return best;
}

/*
 * Below FFU_ADDCHAIN_OPTIMAL_BELOW: the length and the products equal what a plain
 * exhaustive search over star chains finds (no bound but t 2^r >= e), and up to 256 (and
 * the first exponents needing 12 and 13 steps) the length equals the general chains' l(e).
 */
Test(addchain, optimal_against_exhaustive_search, .timeout = 120)
{
	for (uint64_t e = 1; e < FFU_ADDCHAIN_OPTIMAL_BELOW; e++) {
		shape s = check(e, 5);
		uint64_t v[64] = {1};
		int len = 0, mul = 64;
		while ((mul = star_min_mults(v, 0, len, e, 0, 64)) == 64)
			len++;
		cr_assert_eq(s.len, len, "%llu: %d steps, the shortest star chain has %d", (unsigned long long)e, s.len, len);
		cr_assert_eq(s.mul, mul, "%llu: %d products, a shortest star chain has %d", (unsigned long long)e, s.mul, mul);
		if (e <= 256)
			cr_assert_eq(s.len, general_l(e), "l(%llu)", (unsigned long long)e);
	}
	static const uint64_t hard[] = {379, 607, 1023};
	for (size_t i = 0; i < sizeof hard / sizeof hard[0]; i++)
		cr_assert_eq(check(hard[i], 5).len, general_l(hard[i]), "l(%llu)", (unsigned long long)hard[i]);
}

/* ---- what the chains save (printed) ---- */

static void report(const char *what, uint64_t e, int w)
{
	shape s = check(e, w);
	int bsq = bits(e) - 1, bmul = __builtin_popcountll(e) - 1;
	fprintf(stderr,
		"addchain: %-24s e=%-20llu w<=%d: %3d steps (%2d sqr + %2d mul), binary %3d (%2d + %2d): "
		"%2d steps, %2d mul saved\n",
		what, (unsigned long long)e, w, s.len, s.sqr, s.mul, bsq + bmul, bsq, bmul, bsq + bmul - s.len,
		bmul - s.mul);
}

Test(addchain, savings_report)
{
	for (int id = 0; id < FFU_FIELD_COUNT; id++) {
		const ffu_field *f = ffu__field_get((ffu_field_id)id);
		char what[64];
		snprintf(what, sizeof what, "%s p-2", f->name);
		if (f->bits <= 64)
			report(what, f->p[0] - 2, f->storage_bytes >= 16 ? 4 : 5);
	}
	static const uint64_t sbox[] = {3, 5, 7, 11, 17};
	for (size_t i = 0; i < sizeof sbox / sizeof sbox[0]; i++)
		report("S-box", sbox[i], 5);
	report("2^32 - 1", 0xffffffffull, 5);
	report("2^64 - 1", UINT64_MAX, 5);
	report("2^64 - 1, 256-bit cap", UINT64_MAX, 4);
	/* Goldilocks' inverse S-box x^(1/7): 7 d = 1 mod p - 1 */
	report("goldilocks 1/7", 10540996611094048183ull, 5);
}
