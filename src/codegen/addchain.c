/*
 * codegen/addchain.c: addition chains for constant exponents (see addchain.h).
 *
 * The search for a shortest star chain deepens the length one step at a time. Sums with
 * the last element are tried largest first (the doubling first), and the tree is cut by
 * upper bounds on what a node can still reach: t 2^r with r steps left (the first sum
 * below e / 2^r ends the loop), tighter bounds when a product must still come (reachable),
 * and the one bits: a product at most adds its operands' one bits, so a chain whose
 * elements have at most b of them needs ceil(log2(popcount(e) / b)) more products. The
 * last two steps are solved directly (bisection, two indices) instead of searched, which
 * is where most nodes were. Among chains of the shortest length it keeps one with the
 * fewest non-square products (a square is cheaper on every device template); the search
 * stops when one reaches the floor ceil(log2(popcount(e))). The worst e below 2^10 (607)
 * takes about 5 10^4 nodes, under a millisecond; a node budget far above that guards
 * against a change of FFU_ADDCHAIN_OPTIMAL_BELOW making code generation slow (past it,
 * the sliding windows' chain is used).
 *
 * The same search, asked to also hold a set of values, builds the sliding windows' tables
 * when that is shorter than the full odd table (a small budget, then the full table).
 */
#include "codegen/addchain.h"

#include <limits.h>
#include <stdbool.h>
#include <string.h>

/* Steps a searched chain may have: the binary method's for e < 2^16 (shifts stay in 64 bits). */
enum { SEARCH_MAX = 2 * 16 };
_Static_assert(FFU_ADDCHAIN_OPTIMAL_BELOW <= 1u << 16, "the search's bounds shift e's size by up to SEARCH_MAX");
_Static_assert(FFU_ADDCHAIN_MAX_WINDOW <= 6, "window values are tracked as bits of a uint64_t");
/* Nodes one exponent's search may visit (the worst e below 2^10 visits about 5 10^4). */
enum { SEARCH_BUDGET = 1000000 };
/* Nodes a window table's search may visit before the plain table is used. */
enum { TABLE_BUDGET = 2000 };
/* Steps a window chain may need while it is built: table 2^(w-1), <= 63 squares, <= 63 products. */
enum { WORK_MAX = (1 << (FFU_ADDCHAIN_MAX_WINDOW - 1)) + 2 * 64 };

static int bit_length(uint64_t e)
{
	return 64 - __builtin_clzll(e);
}

int ffu__addchain_binary_len(uint64_t e)
{
	return bit_length(e) - 1 + __builtin_popcountll(e) - 1;
}

/* ---- shortest star chains by iterative deepening ---- */

typedef struct search {
	uint64_t e;
	int len;                      /* steps of the chains looked for in this round */
	int min_mults;                /* no chain for e has fewer non-square steps */
	int ctz;                      /* trailing zero bits of e */
	uint64_t v[SEARCH_MAX + 1];   /* v[0] = 1, v[k] = v[k-1] + v[from[k]] */
	uint8_t from[SEARCH_MAX + 1];
	uint8_t ones[SEARCH_MAX + 1]; /* most one bits among v[0..k] */
	int ones_e;                   /* one bits of e */
	int need[65];                 /* products still needed when the chain has n one bits */
	uint8_t best[SEARCH_MAX + 1]; /* from[] of the best chain of this length */
	int best_mults;               /* its non-square steps; INT_MAX while none */
	long nodes, budget;
	/* window tables: values below 64 the chain must also hold (bit d: d), and those it does */
	uint64_t targets;
	uint64_t have[SEARCH_MAX + 1];
} search;

static uint64_t bit(uint64_t x)
{
	return x < 64 ? 1ull << x : 0;
}

/* Targets v[0..k] plus these values lack. */
static int missing(const search *s, int k, uint64_t plus)
{
	return s->targets ? __builtin_popcountll(s->targets & ~s->have[k] & ~plus) : 0;
}

static void record(search *s, int mults)
{
	if (mults < s->best_mults) {
		s->best_mults = mults;
		memcpy(s->best, s->from, sizeof s->best);
	}
}

/*
 * Can a chain whose last two elements are prev < v reach e in r more steps of which at
 * least q >= 1 are products (not doublings)? Say the last product is step m of the r,
 * then c = r - m <= ctz(e) doublings. A product is at most the sum of the two largest
 * elements, and with w the elements from w[0] = v (w[-1] = prev), each at most twice the
 * previous one: w[m] <= w[m-1] + w[m-2] <= 3 w[m-2]. So with q = 1, e <= 3 v 2^(r-2) when
 * m >= 2, or e <= (v + prev) 2^(r-1) when m = 1. With q = 2 (the other product at m'):
 * m' = m-1 gives w[m] <= 2 w[m-2] + w[m-3] <= 5 w[m-3], so e <= 5 v 2^(r-3), or
 * (2 v + prev) 2^(r-2) for m = 2; m' <= m-2 gives e <= 9 v 2^(r-4), or 3 (v + prev) 2^(r-3)
 * for m' = 1. For odd e, q = 1 cuts the plain bound v 2^r to 3/4 at every node (Thurber's
 * bound for odd exponents), q = 2 to about 5/8.
 */
static bool reachable(const search *s, uint64_t v, uint64_t prev, int r, int q)
{
	uint64_t e = s->e;
	if (q <= 1) {
		if (r >= 2 && (3 * v) << (r - 2) >= e)
			return true;
		return r - 1 <= s->ctz && (v + prev) << (r - 1) >= e;
	}
	if (r < 2)
		return false;
	if (r >= 3 && ((5 * v) << (r - 3) >= e || (3 * (v + prev)) << (r - 3) >= e))
		return true;
	return r - 2 <= s->ctz && (2 * v + prev) << (r - 2) >= e;
}

/* The index of value x in v[0..k], -1 if absent (v is increasing). */
static int find(const search *s, int k, uint64_t x)
{
	int lo = 0, hi = k;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (s->v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return s->v[lo] == x ? lo : -1;
}

/* One step left (k = len - 1, v[k] < e): e = v[k] + v[j]. */
static void last_step(search *s, int k, int mults)
{
	int j = find(s, k, s->e - s->v[k]);
	if (j < 0 || missing(s, k, bit(s->e)))
		return;
	s->v[k + 1] = s->e;
	s->from[k + 1] = (uint8_t)j;
	record(s, mults + (j != k));
}

/*
 * Two steps left (k = len - 2): t = v[k] + v[j], then e = 2t or e = t + v[p]. The latter
 * needs t >= e - v[k] (v[p] <= v[k]), so only the few j with v[j] >= e - 2 v[k] are tried,
 * largest first, while e - t rises through v with a second index.
 */
static void last_two(search *s, int k, int mults)
{
	uint64_t e = s->e, vk = s->v[k];
	s->v[k + 2] = e;
	if (!(e & 1) && e / 2 > vk && !missing(s, k, bit(e) | bit(e / 2))) {
		int j = find(s, k, e / 2 - vk);
		if (j >= 0) {
			s->v[k + 1] = e / 2;
			s->from[k + 1] = (uint8_t)j;
			s->from[k + 2] = (uint8_t)(k + 1);
			record(s, mults + (j != k));
		}
	}
	int p = 0;
	for (int j = k; j >= 0 && s->best_mults > s->min_mults; j--) {
		uint64_t t = vk + s->v[j];
		if (t >= e)
			continue;
		if (t < e - vk)
			break;
		if (missing(s, k, bit(e) | bit(t)))
			continue;
		uint64_t want = e - t;
		while (p <= k && s->v[p] < want)
			p++;
		if (p <= k && s->v[p] == want) {
			s->v[k + 1] = t;
			s->from[k + 1] = (uint8_t)j;
			s->from[k + 2] = (uint8_t)p;
			record(s, mults + (j != k) + 1);
		}
	}
}

/*
 * v[0..k] is a chain below e with r = len - k steps left. Children t = v[k] + v[j] come
 * largest first, and each is tested here rather than in a call: a child that cannot
 * reach e (t 2^(r-1) < e ends the loop: every later t is smaller), one that needs a product
 * and cannot afford it or cannot reach e with one (reachable), one whose one bits cannot
 * grow to e's with the products it may still spend.
 */
static void dfs(search *s, int k, int mults)
{
	if (++s->nodes > s->budget)
		return;
	int r = s->len - k;
	if (r == 1) {
		last_step(s, k, mults);
		return;
	}
	if (r == 2) {
		last_two(s, k, mults);
		return;
	}
	/* can a child below the reachable bound still double its way to e? */
	bool pure_below = (s->e & ((1ull << (r - 1)) - 1)) == 0;
	for (int j = k; j >= 0 && s->best_mults > s->min_mults; j--) {
		uint64_t t = s->v[k] + s->v[j];
		if (t >= s->e)
			continue; /* e itself: shorter rounds would have found it */
		if ((t << (r - 1)) < s->e)
			break; /* smaller j, smaller t */
		int m = mults + (j != k);
		if (m >= s->best_mults)
			break; /* every later j is a product too */
		if ((t << (r - 1)) != s->e && !reachable(s, t, s->v[k], r - 1, 1)) {
			if (pure_below)
				continue;
			break; /* the bound falls with t */
		}
		int o = __builtin_popcountll(t);
		o = o > s->ones[k] ? o : s->ones[k];
		int q = s->need[o]; /* products the child must still make */
		if ((t << (r - 1)) != s->e &&
		    (q > r - 1 || m + (q ? q : 1) >= s->best_mults || (q > 1 && !reachable(s, t, s->v[k], r - 1, q))))
			continue;
		if (s->targets) {
			s->have[k + 1] = s->have[k] | bit(t);
			if (missing(s, k + 1, bit(s->e)) > r - 2)
				continue; /* each step but the last adds at most one */
		}
		s->ones[k + 1] = (uint8_t)o;
		s->v[k + 1] = t;
		s->from[k + 1] = (uint8_t)j;
		dfs(s, k + 1, m);
	}
}

/*
 * A shortest star chain for 1 < e < FFU_ADDCHAIN_OPTIMAL_BELOW that also holds every
 * value d < 64 with bit d of targets set; its length, -1 past the node budget.
 */
static int shortest_chain(ffu_addchain_step *out, uint64_t e, uint64_t targets, long budget, int max_len)
{
	search s;
	memset(&s, 0, sizeof s);
	s.e = e;
	s.budget = budget;
	s.targets = targets & ~bit(1);
	s.have[0] = bit(1);
	s.v[0] = 1;
	s.ctz = __builtin_ctzll(e);
	s.ones[0] = 1;
	s.ones_e = __builtin_popcountll(e);
	for (int n = 1; n <= 64; n++)
		while (n << s.need[n] < s.ones_e)
			s.need[n]++;
	s.min_mults = s.need[1];
	/* l(e) >= log2(e); the binary method (a star chain) ends the loop at the latest */
	for (s.len = bit_length(e) - 1; s.len <= max_len; s.len++) {
		s.best_mults = INT_MAX;
		dfs(&s, 0, 0);
		if (s.best_mults != INT_MAX)
			break;
		if (s.nodes > budget)
			return -1;
	}
	if (s.best_mults == INT_MAX)
		return -1;
	for (int k = 1; k <= s.len; k++) {
		int j = s.best[k];
		out[k - 1] = j == k - 1 ? (ffu_addchain_step){FFU_ADDCHAIN_SQR, (uint8_t)j, (uint8_t)j}
					: (ffu_addchain_step){FFU_ADDCHAIN_MUL, (uint8_t)(k - 1), (uint8_t)j};
	}
	return s.len;
}

/* ---- sliding windows ---- */

typedef struct chain {
	ffu_addchain_step st[WORK_MAX];
	uint64_t val[WORK_MAX + 1]; /* exponent of each element; all <= e */
	int n, mults;
	bool overflow;
} chain;

/* Appends a step, or returns the element that already has its value. */
static int push(chain *c, int op, int a, int b)
{
	uint64_t v = c->val[a] + c->val[b];
	for (int i = c->n; i >= 0; i--)
		if (c->val[i] == v)
			return i;
	if (c->n >= WORK_MAX) { /* cannot happen (see WORK_MAX); keeps the chain honest if it did */
		c->overflow = true;
		return 0;
	}
	c->st[c->n] = (ffu_addchain_step){(uint8_t)op, (uint8_t)a, (uint8_t)b};
	c->val[++c->n] = v;
	c->mults += op == FFU_ADDCHAIN_MUL;
	return c->n;
}

static void window_chain(chain *c, uint64_t e, int w)
{
	c->n = c->mults = 0;
	c->overflow = false;
	c->val[0] = 1;
	/* windows from the top: each starts and ends on a one bit, at most w bits wide */
	int lo[64], nw = 0;
	unsigned d[64], dmax = 1;
	for (int i = bit_length(e) - 1; i >= 0;) {
		if (!((e >> i) & 1)) {
			i--;
			continue;
		}
		int l = i - w + 1 < 0 ? 0 : i - w + 1;
		while (!((e >> l) & 1))
			l++;
		d[nw] = (unsigned)((e >> l) & ((1ull << (i - l + 1)) - 1));
		dmax = d[nw] > dmax ? d[nw] : dmax;
		lo[nw++] = l;
		i = l - 1;
	}
	/* the table: the odd powers x, x^3, ..., x^dmax, each the previous times x^2, or when
	   shorter, a shortest star chain for dmax through every window value (x^31 alone
	   costs 7 steps, not 16) */
	int odd[1 << (FFU_ADDCHAIN_MAX_WINDOW - 1)];
	odd[0] = 0;
	uint64_t used = 0;
	for (int k = 0; k < nw; k++)
		used |= 1ull << d[k];
	int full = dmax >= 3 ? (int)(dmax + 1) / 2 : 0;
	ffu_addchain_step tab[SEARCH_MAX];
	int nt = full > 2 ? shortest_chain(tab, dmax, used, TABLE_BUDGET, full - 1) : -1;
	if (nt >= 0) {
		for (int k = 0; k < nt; k++)
			push(c, tab[k].op, tab[k].a, tab[k].b);
		for (int i = 0; i <= c->n; i++)
			if (c->val[i] & 1)
				odd[c->val[i] >> 1] = i;
	} else if (dmax >= 3) {
		int x2 = push(c, FFU_ADDCHAIN_SQR, 0, 0);
		for (unsigned k = 1; 2 * k + 1 <= dmax; k++)
			odd[k] = push(c, FFU_ADDCHAIN_MUL, odd[k - 1], x2);
	}
	int acc = odd[d[0] >> 1];
	for (int k = 1; k <= nw; k++) {
		for (int s = lo[k - 1] - (k < nw ? lo[k] : 0); s > 0; s--)
			acc = push(c, FFU_ADDCHAIN_SQR, acc, acc);
		if (k < nw)
			acc = push(c, FFU_ADDCHAIN_MUL, acc, odd[d[k] >> 1]);
	}
}

ffu_status ffu__addchain_build(ffu_addchain_step steps[FFU_ADDCHAIN_MAX_STEPS], int *n_steps, uint64_t e,
			       int max_window)
{
	*n_steps = 0;
	if (e == 0 || max_window < 1 || max_window > FFU_ADDCHAIN_MAX_WINDOW)
		return FFU_STATUS_EINVAL;
	if (e == 1)
		return FFU_STATUS_OK;
	if (e < FFU_ADDCHAIN_OPTIMAL_BELOW) {
		int n = shortest_chain(steps, e, 0, SEARCH_BUDGET, SEARCH_MAX);
		if (n >= 0) {
			*n_steps = n;
			return FFU_STATUS_OK;
		}
	}
	chain best, cur;
	best.n = best.mults = INT_MAX;
	for (int w = 1; w <= max_window; w++) {
		window_chain(&cur, e, w);
		if (cur.overflow || cur.n > FFU_ADDCHAIN_MAX_STEPS)
			continue;
		if (cur.n < best.n || (cur.n == best.n && cur.mults < best.mults))
			best = cur;
	}
	/* w = 1 is the binary method, at most FFU_ADDCHAIN_MAX_STEPS steps */
	memcpy(steps, best.st, (size_t)best.n * sizeof *steps);
	*n_steps = best.n;
	return FFU_STATUS_OK;
}
