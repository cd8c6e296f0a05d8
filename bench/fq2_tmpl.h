/*
 * bench/fq2_tmpl.h: Fq2 = Fq[u]/(u^2 + 1) for the MSM baselines (bench/baseline_msm.c),
 * written once over a base field's functions; baseline_msm.c includes it once per quadratic
 * extension of its table (BN254's and BLS12-381's, both with u^2 = -1), having defined
 *   E2              the extension's type and function prefix (fq2: fq2_mul, ...)
 *   B               the base field's type and function prefix (fq: fq_mul, fq_add, fq_sub,
 *                   fq_is_zero, fq_load, fq_store, fq_inv), elements in Montgomery form
 *   B_BYTES         a base coefficient's canonical bytes (32, 48)
 * An element is c0 + c1 u, each coefficient in Montgomery form; its bytes are c0's then c1's.
 */
#define E2F_(p, n) p##_##n
#define E2F(p, n) E2F_(p, n)

typedef struct E2 {
	B c0, c1;
} E2;

/* (a0 + a1 u)(b0 + b1 u) = a0 b0 - a1 b1 + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) u; r may
   alias a or b */
FFU_BASE_INLINE void E2F(E2, mul)(E2 *r, const E2 *a, const E2 *b)
{
	B t0, t1, sa, sb, m;
	E2F(B, mul)(&t0, &a->c0, &b->c0);
	E2F(B, mul)(&t1, &a->c1, &b->c1);
	E2F(B, add)(&sa, &a->c0, &a->c1);
	E2F(B, add)(&sb, &b->c0, &b->c1);
	E2F(B, mul)(&m, &sa, &sb);
	E2F(B, sub)(&m, &m, &t0);
	E2F(B, sub)(&r->c1, &m, &t1);
	E2F(B, sub)(&r->c0, &t0, &t1);
}

FFU_BASE_INLINE void E2F(E2, add)(E2 *r, const E2 *a, const E2 *b)
{
	E2F(B, add)(&r->c0, &a->c0, &b->c0);
	E2F(B, add)(&r->c1, &a->c1, &b->c1);
}

FFU_BASE_INLINE void E2F(E2, sub)(E2 *r, const E2 *a, const E2 *b)
{
	E2F(B, sub)(&r->c0, &a->c0, &b->c0);
	E2F(B, sub)(&r->c1, &a->c1, &b->c1);
}

FFU_BASE_INLINE bool E2F(E2, is_zero)(const E2 *a)
{
	return E2F(B, is_zero)(&a->c0) && E2F(B, is_zero)(&a->c1);
}

FFU_BASE_INLINE void E2F(E2, load)(E2 *r, const unsigned char *s)
{
	E2F(B, load)(&r->c0, s);
	E2F(B, load)(&r->c1, s + B_BYTES);
}

FFU_BASE_INLINE void E2F(E2, store)(unsigned char *s, const E2 *a)
{
	E2F(B, store)(s, &a->c0);
	E2F(B, store)(s + B_BYTES, &a->c1);
}

/* (a0 + a1 u)^-1 = (a0 - a1 u) / (a0^2 + a1^2), the norm in Fq; a != 0 */
FFU_BASE_INLINE void E2F(E2, inv)(E2 *r, const E2 *a)
{
	static const B zero;
	B n, t;
	E2F(B, mul)(&n, &a->c0, &a->c0);
	E2F(B, mul)(&t, &a->c1, &a->c1);
	E2F(B, add)(&n, &n, &t);
	E2F(B, inv)(&n, &n);
	E2F(B, mul)(&t, &a->c1, &n);
	E2F(B, mul)(&r->c0, &a->c0, &n);
	E2F(B, sub)(&r->c1, &zero, &t);
}

#undef E2F
#undef E2F_
