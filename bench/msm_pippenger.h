/*
 * bench/msm_pippenger.h: the C baseline's Pippenger bucket method over one curve's points,
 * written once over an abstract coordinate field; bench/baseline_msm.c includes it once per
 * curve of its table (BN254 G1 over Fq, G2 over Fq2, BLS12-381 G1 over its Fq), having defined
 *   P(name)         the instance's names (g1_name), so that the instances share a file
 *   FE              the coordinate type: a struct held in Montgomery form
 *   FE_MUL(r, a, b), FE_ADD(r, a, b), FE_SUB(r, a, b)   pointers; r may alias a or b
 *   FE_IS_ZERO(a)   a == 0 (the Montgomery form of 0 is 0)
 *   FE_ONE          the Montgomery one, a const FE
 *   FE_LOAD(r, s)   r = the canonical little-endian bytes s, into Montgomery form
 *   FE_STORE(s, a)  the canonical bytes of a into s (sizeof(FE) bytes)
 *   FE_INV(r, a)    r = a^-1 for a != 0
 * and SCALAR_BITS (the scalars: canonical 32-byte little-endian integers below 2^SCALAR_BITS).
 * It defines P(run)(in, out, c): the workload's inputs (scalars, affine bases with the
 * coordinates' canonical bytes, infinity (0, 0)) to the canonical affine sum, in ms.
 *
 * The algorithm:
 * - Signed-digit windows of c bits: s = sum_j d_j 2^(cj) with d_j in (-2^(c-1), 2^(c-1)]
 *   (a digit above 2^(c-1) becomes d - 2^c and carries one into the next window), so a
 *   window needs 2^(c-1) buckets, not 2^c - 1: a negative digit adds -P = (x, -y) to
 *   bucket |d|. With floor(SCALAR_BITS / c) + 1 windows the top one never carries out.
 * - Buckets in XYZZ coordinates (x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2), the affine bases added
 *   with mixed additions (EFD madd-2008-s); ZZ = 0 is the point at infinity.
 * - Per window, the running-sum reduction: walking the buckets from the top, running +=
 *   B_b, sum += running gives sum_b b B_b (EFD add-2008-s).
 * - The windows combined from the top by c doublings (EFD dbl-2008-s-1) and an addition.
 * - One inversion for the affine result.
 * The special cases of the xyzz formulas are decided first: an empty bucket takes the
 * base as (x, y, 1, 1); U2 = U1 with S2 = S1 is a doubling, with S2 != S1 (P + (-P)) the
 * point at infinity; infinity bases and zero digits add nothing. The formulas hold over any
 * field (a = 0), so G2's instance is G1's text over Fq2.
 *
 * Threads: the windows are independent, so they go to the OpenMP threads as they come
 * free (dynamic schedule), each thread with its own buckets; the digits and the bases'
 * Montgomery form are computed first, shared by the threads. The window count is
 * SCALAR_BITS / c + 1 (20 to 27 here), so two threads stay busy to within one window. The
 * time runs from the moment every thread runs to the end, as ffu__bench_over_threads times.
 */

typedef struct P(affine) {
	FE x, y;
} P(affine);
typedef struct P(xyzz) {
	FE x, y, zz, zzz;
} P(xyzz);

FFU_BASE_INLINE void P(xyzz_set_inf)(P(xyzz) *r)
{
	memset(r, 0, sizeof *r);
}

FFU_BASE_INLINE bool P(xyzz_is_inf)(const P(xyzz) *p)
{
	return FE_IS_ZERO(&p->zz);
}

/*
 * The point operations are functions of their own, each compiled per ISA (FFU_BASE_CLONES),
 * the field arithmetic inlined into them: inlined all into the bucket loop, they made one
 * function with a 45 KiB stack frame that spilled everything (G1, 2^12 points: 212 ms on one
 * thread; out of line: see docs/benchmarks.md).
 */

/* r = 2 (x, y), an affine point not at infinity (EFD mdbl-2008-s-1, a = 0) */
FFU_BASE_CLONES static void P(xyzz_double_affine)(P(xyzz) *r, const FE *x, const FE *y)
{
	FE u, v, w, s, m, t;
	FE_ADD(&u, y, y);   /* U = 2Y */
	FE_MUL(&v, &u, &u); /* V = U^2 */
	FE_MUL(&w, &u, &v); /* W = U V */
	FE_MUL(&s, x, &v);  /* S = X V */
	FE_MUL(&m, x, x);
	FE_ADD(&t, &m, &m);
	FE_ADD(&m, &t, &m); /* M = 3 X^2 */
	FE_MUL(&t, &m, &m);
	FE_SUB(&t, &t, &s);
	FE_SUB(&r->x, &t, &s); /* X3 = M^2 - 2S */
	FE_SUB(&t, &s, &r->x);
	FE_MUL(&t, &m, &t);
	FE_MUL(&u, &w, y);
	FE_SUB(&r->y, &t, &u); /* Y3 = M (S - X3) - W Y */
	r->zz = v;
	r->zzz = w;
}

/* r = 2p in place (EFD dbl-2008-s-1, a = 0); infinity stays infinity (ZZ3 = V ZZ1 = 0) */
FFU_BASE_CLONES static void P(xyzz_double)(P(xyzz) *p)
{
	FE u, v, w, s, m, t, x3;
	FE_ADD(&u, &p->y, &p->y);
	FE_MUL(&v, &u, &u);
	FE_MUL(&w, &u, &v);
	FE_MUL(&s, &p->x, &v);
	FE_MUL(&m, &p->x, &p->x);
	FE_ADD(&t, &m, &m);
	FE_ADD(&m, &t, &m);
	FE_MUL(&t, &m, &m);
	FE_SUB(&t, &t, &s);
	FE_SUB(&x3, &t, &s);
	FE_SUB(&t, &s, &x3);
	FE_MUL(&t, &m, &t);
	FE_MUL(&u, &w, &p->y);
	FE_SUB(&p->y, &t, &u);
	p->x = x3;
	FE_MUL(&p->zz, &p->zz, &v);
	FE_MUL(&p->zzz, &p->zzz, &w);
}

/* The x and y of a sum, shared by madd-2008-s and add-2008-s: X3 = R^2 - PPP - 2Q,
 * Y3 = R (Q - X3) - S1 PPP (S1 = Y1 for madd); s1 may be &a->y */
FFU_BASE_INLINE void P(xyzz_sum_xy)(P(xyzz) *a, const FE *r, const FE *ppp, const FE *q, const FE *s1)
{
	FE x3, t, u;
	FE_MUL(&t, r, r);
	FE_SUB(&t, &t, ppp);
	FE_SUB(&t, &t, q);
	FE_SUB(&x3, &t, q);
	FE_SUB(&t, q, &x3);
	FE_MUL(&t, r, &t);
	FE_MUL(&u, s1, ppp);
	FE_SUB(&a->y, &t, &u);
	a->x = x3;
}

/* b += (x, y), an affine point not at infinity (EFD madd-2008-s) */
FFU_BASE_CLONES static void P(xyzz_add_affine)(P(xyzz) *b, const FE *x, const FE *y)
{
	if (P(xyzz_is_inf)(b)) {
		b->x = *x;
		b->y = *y;
		b->zz = FE_ONE;
		b->zzz = FE_ONE;
		return;
	}
	FE p, r, pp, ppp, q;
	FE_MUL(&p, x, &b->zz);
	FE_SUB(&p, &p, &b->x); /* P = X2 ZZ1 - X1 */
	FE_MUL(&r, y, &b->zzz);
	FE_SUB(&r, &r, &b->y); /* R = Y2 ZZZ1 - Y1 */
	if (FE_IS_ZERO(&p)) {
		if (FE_IS_ZERO(&r))
			P(xyzz_double_affine)(b, x, y); /* the same point */
		else
			P(xyzz_set_inf)(b); /* its negation */
		return;
	}
	FE_MUL(&pp, &p, &p);
	FE_MUL(&ppp, &p, &pp);
	FE_MUL(&q, &b->x, &pp);
	P(xyzz_sum_xy)(b, &r, &ppp, &q, &b->y);
	FE_MUL(&b->zz, &b->zz, &pp);
	FE_MUL(&b->zzz, &b->zzz, &ppp);
}

/* a += b, both xyzz (EFD add-2008-s) */
FFU_BASE_CLONES static void P(xyzz_add)(P(xyzz) *a, const P(xyzz) *b)
{
	if (P(xyzz_is_inf)(b))
		return;
	if (P(xyzz_is_inf)(a)) {
		*a = *b;
		return;
	}
	FE u1, s1, p, r, pp, ppp, q;
	FE_MUL(&u1, &a->x, &b->zz);
	FE_MUL(&p, &b->x, &a->zz);
	FE_SUB(&p, &p, &u1); /* P = U2 - U1 */
	FE_MUL(&s1, &a->y, &b->zzz);
	FE_MUL(&r, &b->y, &a->zzz);
	FE_SUB(&r, &r, &s1); /* R = S2 - S1 */
	if (FE_IS_ZERO(&p)) {
		if (FE_IS_ZERO(&r))
			P(xyzz_double)(a);
		else
			P(xyzz_set_inf)(a);
		return;
	}
	FE_MUL(&pp, &p, &p);
	FE_MUL(&ppp, &p, &pp);
	FE_MUL(&q, &u1, &pp);
	P(xyzz_sum_xy)(a, &r, &ppp, &q, &s1);
	FE_MUL(&a->zz, &a->zz, &b->zz);
	FE_MUL(&a->zz, &a->zz, &pp);
	FE_MUL(&a->zzz, &a->zzz, &b->zzz);
	FE_MUL(&a->zzz, &a->zzz, &ppp);
}

/* One window's sum_d d (sum of the points whose digit is +-d), buckets[0 .. 2^(c-1)) */
FFU_BASE_CLONES static void P(msm_window)(P(xyzz) *sum, P(xyzz) *buckets, const int32_t *digits,
					 const P(affine) *bases, int64_t n, int c)
{
	static const FE zero;
	int32_t nb = INT32_C(1) << (c - 1);
	for (int32_t b = 0; b < nb; b++)
		P(xyzz_set_inf)(&buckets[b]);
	for (int64_t i = 0; i < n; i++) {
		int32_t d = digits[i];
		if (d == 0)
			continue;
		const P(affine) *p = &bases[i];
		if (FE_IS_ZERO(&p->x) && FE_IS_ZERO(&p->y))
			continue; /* infinity */
		if (d > 0) {
			P(xyzz_add_affine)(&buckets[d - 1], &p->x, &p->y);
		} else {
			FE ny;
			FE_SUB(&ny, &zero, &p->y);
			P(xyzz_add_affine)(&buckets[-d - 1], &p->x, &ny);
		}
	}
	P(xyzz) run;
	P(xyzz_set_inf)(&run);
	P(xyzz_set_inf)(sum);
	for (int32_t b = nb - 1; b >= 0; b--) {
		P(xyzz_add)(&run, &buckets[b]);
		P(xyzz_add)(sum, &run);
	}
}

/* The bases in Montgomery form, points [lo, hi); infinity (0, 0) stays (0, 0) */
FFU_BASE_CLONES static void P(to_mont)(P(affine) *dst, const unsigned char *src, int64_t lo, int64_t hi)
{
	for (int64_t i = lo; i < hi; i++) {
		FE_LOAD(&dst[i].x, src + 2 * sizeof(FE) * (size_t)i);
		FE_LOAD(&dst[i].y, src + 2 * sizeof(FE) * (size_t)i + sizeof(FE));
	}
}

/* The windows' sums combined from the top (c doublings and an addition each), then the
 * affine point in canonical bytes: x = X / ZZ, y = Y / ZZZ with one inversion of ZZ ZZZ. */
FFU_BASE_CLONES static void P(finish)(unsigned char *out, const P(xyzz) *win, int nw, int c)
{
	P(xyzz) acc = win[nw - 1];
	for (int w = nw - 2; w >= 0; w--) {
		for (int j = 0; j < c; j++)
			P(xyzz_double)(&acc);
		P(xyzz_add)(&acc, &win[w]);
	}
	if (P(xyzz_is_inf)(&acc)) {
		memset(out, 0, 2 * sizeof(FE));
		return;
	}
	FE t, inv, izz, izzz, x, y;
	FE_MUL(&t, &acc.zz, &acc.zzz);
	FE_INV(&inv, &t); /* 1 / (ZZ ZZZ) */
	FE_MUL(&izz, &inv, &acc.zzz);
	FE_MUL(&izzz, &inv, &acc.zz);
	FE_MUL(&x, &acc.x, &izz);
	FE_MUL(&y, &acc.y, &izzz);
	FE_STORE(out, &x);
	FE_STORE(out + sizeof(FE), &y);
}

static double P(run)(const ffu_bench_array *in, ffu_bench_array *out, int c)
{
	int64_t n = in[0].count;
	if (c <= 0)
		c = ffu__bench_msm_window(n, sizeof(P(xyzz)));
	int nw = SCALAR_BITS / c + 1;
	const unsigned char *scalars = in[0].data, *bases = in[1].data;
	P(affine) *mb = malloc(sizeof *mb * (size_t)(n ? n : 1));
	int32_t *digits = malloc(sizeof *digits * (size_t)(n ? n : 1) * (size_t)nw);
	P(xyzz) *win = malloc(sizeof *win * (size_t)nw);
	int threads = omp_get_max_threads();
	P(xyzz) *buckets = malloc(sizeof *buckets * ((size_t)1 << (c - 1)) * (size_t)threads);
	double start = 0, end = 0;
	bool ok = mb && digits && win && buckets;
	if (ok) {
#pragma omp parallel
		{
#pragma omp single
			start = omp_get_wtime();
#pragma omp for schedule(static)
			for (int64_t i = 0; i < n; i++)
				signed_digits(digits + i, n, scalars + 32 * i, c, nw);
#pragma omp for schedule(dynamic)
			for (int64_t b = 0; b < (n + 1023) / 1024; b++)
				P(to_mont)(mb, bases, b * 1024, (b + 1) * 1024 < n ? (b + 1) * 1024 : n);
			P(xyzz) *own = buckets + ((size_t)1 << (c - 1)) * (size_t)omp_get_thread_num();
#pragma omp for schedule(dynamic, 1)
			for (int w = 0; w < nw; w++)
				P(msm_window)(&win[w], own, digits + (int64_t)w * n, mb, n, c);
#pragma omp master
			{
				P(finish)(out[0].data, win, nw, c);
				end = omp_get_wtime();
			}
		}
	}
	free(mb);
	free(digits);
	free(win);
	free(buckets);
	return ok ? (end - start) * 1e3 : -1;
}
