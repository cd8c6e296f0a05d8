/*
 * cl/point.cl: device arithmetic of one curve's points (a row of fields/curves.def), the
 * building blocks of the msm kernels: affine bases added into xyzz buckets, or into affine
 * ones in batches that share an inversion, buckets added and doubled. Owned by the curves
 * engineer; instantiated by src/codegen/field_cl.c (ffu__cl_emit_curve) after the
 * coordinate field's template, which defines before this text
 *   FP   the curve's name (bn254_g1): its types and functions are FFU_FN(xyzz), ...
 *   FB   the coordinate field's instance (bn254_bf): FFU_BFN(add), _sub, _mul, _sqr, _eq,
 *        _from_u32, _one_m, _inv, _load, _store, _to_mont, _from_mont
 *   FS   the scalar field's instance (bn254_sf): FFU_SFN(t), _bit; FS_BITS its modulus's bits
 * Coordinates are held in FB's device Montgomery form; y^2 = x^3 + b with a = 0 (every row
 * of curves.def), so b never enters these formulas.
 *
 * Formulas: the Explicit-Formulas Database's xyzz coordinates for a = 0
 * (hyperelliptic.org/EFD, g1p/auto-shortw-xyzz): dbl-2008-s-1, madd-2008-s (an affine
 * operand), add-2008-s, with the cases they leave out decided first: an operand at
 * infinity, P + P (doubling), P + (-P) (infinity). The host reference (fields/point.c)
 * computes in jacobian coordinates with other formulas, so a device test against it checks
 * these formulas, not a copy of them. Infinity: affine (0, 0), xyzz ZZ = 0 (made as
 * (1, 1, 0, 0)), as ZKX stores them.
 */

#define FB_t FFU_BFN(t)
#define FFU_SFN(name) FFU_CAT(FFU_CAT(FS, _), name)

/*
 * The additions and the doubling are called, not inlined: each is a dozen 256-bit products,
 * and the msm's nine kernels call them from a dozen places; inlined, PoCL spent about 80 s
 * of CPU building one msm program, called about 17 s. (Mesa's Rusticl inlines every call
 * whatever this says: about 80 s there.)
 */
#ifndef FFU_POINT_OP
#define FFU_POINT_OP static __attribute__((noinline))
#endif

typedef struct {
	FB_t x, y;
} FFU_FN(aff);

typedef struct {
	FB_t x, y, zz, zzz;
} FFU_FN(xyzz);

FFU_INLINE int FFU_FN(fb_is_zero_)(FB_t a)
{
	return FFU_BFN(eq)(a, FFU_BFN(from_u32)(0u));
}

FFU_INLINE FFU_FN(xyzz) FFU_FN(xyzz_zero)(void)
{
	FFU_FN(xyzz) r;
	r.x = r.y = FFU_BFN(one_m)();
	r.zz = r.zzz = FFU_BFN(from_u32)(0u);
	return r;
}

FFU_INLINE int FFU_FN(xyzz_is_zero)(FFU_FN(xyzz) p)
{
	return FFU_FN(fb_is_zero_)(p.zz);
}

FFU_INLINE int FFU_FN(aff_is_zero)(FFU_FN(aff) q)
{
	return FFU_FN(fb_is_zero_)(q.x) && FFU_FN(fb_is_zero_)(q.y);
}

FFU_INLINE FFU_FN(xyzz) FFU_FN(xyzz_from_aff)(FFU_FN(aff) q)
{
	if (FFU_FN(aff_is_zero)(q))
		return FFU_FN(xyzz_zero)();
	FFU_FN(xyzz) r;
	r.x = q.x;
	r.y = q.y;
	r.zz = r.zzz = FFU_BFN(one_m)();
	return r;
}

FFU_INLINE FFU_FN(xyzz) FFU_FN(xyzz_neg)(FFU_FN(xyzz) p)
{
	p.y = FFU_BFN(sub)(FFU_BFN(from_u32)(0u), p.y);
	return p;
}

/* dbl-2008-s-1: U = 2Y, V = U^2, W = U V, S = X V, M = 3 X^2, X3 = M^2 - 2S,
   Y3 = M (S - X3) - W Y, ZZ3 = V ZZ, ZZZ3 = W ZZZ. Y = 0 has no point on these curves of
   odd order; it gives ZZ3 = 0, infinity, which is 2P there all the same. */
FFU_POINT_OP FFU_FN(xyzz) FFU_FN(xyzz_dbl)(FFU_FN(xyzz) p)
{
	if (FFU_FN(xyzz_is_zero)(p))
		return p;
	FB_t u = FFU_BFN(add)(p.y, p.y);
	FB_t v = FFU_BFN(sqr)(u);
	FB_t w = FFU_BFN(mul)(u, v);
	FB_t s = FFU_BFN(mul)(p.x, v);
	FB_t x2 = FFU_BFN(sqr)(p.x);
	FB_t m = FFU_BFN(add)(FFU_BFN(add)(x2, x2), x2);
	FFU_FN(xyzz) r;
	r.x = FFU_BFN(sub)(FFU_BFN(sqr)(m), FFU_BFN(add)(s, s));
	r.y = FFU_BFN(sub)(FFU_BFN(mul)(m, FFU_BFN(sub)(s, r.x)), FFU_BFN(mul)(w, p.y));
	r.zz = FFU_BFN(mul)(v, p.zz);
	r.zzz = FFU_BFN(mul)(w, p.zzz);
	return r;
}

/*
 * The common tail of add-2008-s and madd-2008-s: the sum of two points given as U1, S1 (the
 * first one scaled to the second's Z: X1 ZZ2, Y1 ZZZ2), zz = ZZ1 ZZ2, zzz = ZZZ1 ZZZ2 and
 * their differences P = U2 - U1, R = S2 - S1: PP = P^2, PPP = P PP, Q = U1 PP,
 * X3 = R^2 - PPP - 2Q, Y3 = R (Q - X3) - S1 PPP, ZZ3 = zz PP, ZZZ3 = zzz PPP. With the
 * doubling through the same products: where P = R = 0 the points are equal, and
 * dbl-2008-s-1 of (U1, S1, zz, zzz), the same point (ZZ^3 = ZZZ^2 holds for every xyzz
 * point), is this tail with P = 2 S1 and R = 3 U1^2 and X3 without its - PPP. One straight
 * line of products instead of a second formula called for P = Q: for drivers that inline
 * every call, whose build time grows faster than the code (Mesa's NIR under Rusticl: a
 * BN254 G2 kernel of one general addition built in 40 s this way, 56 s with the doubling
 * called, cold, on 2 cores).
 */
FFU_INLINE FFU_FN(xyzz) FFU_FN(sum_)(FB_t u1, FB_t s1, FB_t zz, FB_t zzz, FB_t pp_, FB_t r_)
{
	const int dbl = FFU_FN(fb_is_zero_)(pp_) && FFU_FN(fb_is_zero_)(r_);
	if (FFU_FN(fb_is_zero_)(pp_) && !dbl)
		return FFU_FN(xyzz_zero)(); /* p + (-p) */
	if (dbl) {
		FB_t x2 = FFU_BFN(sqr)(u1);
		pp_ = FFU_BFN(add)(s1, s1);
		r_ = FFU_BFN(add)(FFU_BFN(add)(x2, x2), x2);
	}
	FB_t pp = FFU_BFN(sqr)(pp_);
	FB_t ppp = FFU_BFN(mul)(pp_, pp);
	FB_t qq = FFU_BFN(mul)(u1, pp);
	FB_t x3 = FFU_BFN(sub)(FFU_BFN(sqr)(r_), FFU_BFN(add)(qq, qq));
	FFU_FN(xyzz) o;
	o.x = dbl ? x3 : FFU_BFN(sub)(x3, ppp);
	o.y = FFU_BFN(sub)(FFU_BFN(mul)(r_, FFU_BFN(sub)(qq, o.x)), FFU_BFN(mul)(s1, ppp));
	o.zz = FFU_BFN(mul)(zz, pp);
	o.zzz = FFU_BFN(mul)(zzz, ppp);
	return o;
}

/* madd-2008-s: p + q with q affine (ZZ2 = ZZZ2 = 1): U1 = X1, S1 = Y1, U2 = X2 ZZ1,
   S2 = Y2 ZZZ1, then sum_. */
FFU_POINT_OP FFU_FN(xyzz) FFU_FN(xyzz_madd)(FFU_FN(xyzz) p, FFU_FN(aff) q)
{
	if (FFU_FN(aff_is_zero)(q))
		return p;
	if (FFU_FN(xyzz_is_zero)(p))
		return FFU_FN(xyzz_from_aff)(q);
	FB_t u2 = FFU_BFN(mul)(q.x, p.zz);
	FB_t s2 = FFU_BFN(mul)(q.y, p.zzz);
	return FFU_FN(sum_)(p.x, p.y, p.zz, p.zzz, FFU_BFN(sub)(u2, p.x), FFU_BFN(sub)(s2, p.y));
}

/* add-2008-s: p + q for any two points: U1 = X1 ZZ2, U2 = X2 ZZ1, S1 = Y1 ZZZ2,
   S2 = Y2 ZZZ1, then sum_ (15 products in one line; the doubling's 9 are not called). */
FFU_POINT_OP FFU_FN(xyzz) FFU_FN(xyzz_add)(FFU_FN(xyzz) p, FFU_FN(xyzz) q)
{
	if (FFU_FN(xyzz_is_zero)(p))
		return q;
	if (FFU_FN(xyzz_is_zero)(q))
		return p;
	FB_t u1 = FFU_BFN(mul)(p.x, q.zz);
	FB_t u2 = FFU_BFN(mul)(q.x, p.zz);
	FB_t s1 = FFU_BFN(mul)(p.y, q.zzz);
	FB_t s2 = FFU_BFN(mul)(q.y, p.zzz);
	return FFU_FN(sum_)(u1, s1, FFU_BFN(mul)(p.zz, q.zz), FFU_BFN(mul)(p.zzz, q.zzz), FFU_BFN(sub)(u2, u1),
			    FFU_BFN(sub)(s2, s1));
}

/* Point i of a buffer of canonical storage coordinates, into and out of the device form;
   the _m twins read and write the device form as it is (the coordinates of a _mont type
   whose R is the device's, and the msm's working memory). */
FFU_INLINE FFU_FN(aff) FFU_FN(aff_load_m)(__global const uint *buf, size_t i)
{
	FFU_FN(aff) q;
	q.x = FFU_BFN(load)(buf, 2 * i);
	q.y = FFU_BFN(load)(buf, 2 * i + 1);
	return q;
}

FFU_INLINE FFU_FN(aff) FFU_FN(aff_load)(__global const uint *buf, size_t i)
{
	FFU_FN(aff) q = FFU_FN(aff_load_m)(buf, i);
	q.x = FFU_BFN(to_mont)(q.x);
	q.y = FFU_BFN(to_mont)(q.y);
	return q;
}

FFU_INLINE void FFU_FN(aff_store_m)(__global uint *buf, size_t i, FFU_FN(aff) q)
{
	FFU_BFN(store)(buf, 2 * i, q.x);
	FFU_BFN(store)(buf, 2 * i + 1, q.y);
}

/*
 * Affine additions that share one inversion (Montgomery's trick), for the msm's
 * batch-affine bucket step (codegen/msm.c): aff_den decides a + q (its kind) and gives the
 * denominator its slope needs, aff_fin completes it from that denominator's inverse.
 * An affine addition is 2M + 1S past the inversion, 3M more as its share of a batched one,
 * where a mixed xyzz addition (madd-2008-s) is 8M + 2S. The kinds, in that order: keep a
 * (q at infinity), take q (a at infinity), infinity (a = -q, or a doubling of y = 0, which
 * no point of these odd-order curves has), then the two that invert: P + Q, den = xq - xa,
 * slope (yq - ya) / den; P + P, den = 2y, slope 3x^2 / den. A kind below FFU_AFF_ADD has no
 * denominator, so a zero never enters the batch's product.
 */
#ifndef FFU_AFF_ADD
#define FFU_AFF_KEEP 0
#define FFU_AFF_COPY 1
#define FFU_AFF_ZERO 2
#define FFU_AFF_ADD 3
#define FFU_AFF_DBL 4
#endif

typedef struct {
	int kind;
	FB_t den;
} FFU_FN(aff_step);

FFU_POINT_OP FFU_FN(aff_step) FFU_FN(aff_den)(FFU_FN(aff) a, FFU_FN(aff) q)
{
	FFU_FN(aff_step) r;
	r.den = FFU_BFN(sub)(q.x, a.x);
	if (FFU_FN(aff_is_zero)(q))
		r.kind = FFU_AFF_KEEP;
	else if (FFU_FN(aff_is_zero)(a))
		r.kind = FFU_AFF_COPY;
	else if (!FFU_FN(fb_is_zero_)(r.den))
		r.kind = FFU_AFF_ADD;
	else if (!FFU_BFN(eq)(q.y, a.y) || FFU_FN(fb_is_zero_)(a.y))
		r.kind = FFU_AFF_ZERO;
	else
		r.kind = FFU_AFF_DBL;
	if (r.kind == FFU_AFF_DBL)
		r.den = FFU_BFN(add)(a.y, a.y);
	return r;
}

/* x3 = s^2 - xa - xq, y3 = s (xa - x3) - ya with s the slope (q = a when doubling) */
FFU_POINT_OP FFU_FN(aff) FFU_FN(aff_fin)(FFU_FN(aff) a, FFU_FN(aff) q, int kind, FB_t inv)
{
	if (kind == FFU_AFF_KEEP)
		return a;
	if (kind == FFU_AFF_COPY)
		return q;
	if (kind == FFU_AFF_ZERO) {
		a.x = a.y = FFU_BFN(from_u32)(0u);
		return a;
	}
	FB_t num;
	if (kind == FFU_AFF_ADD) {
		num = FFU_BFN(sub)(q.y, a.y);
	} else {
		FB_t x2 = FFU_BFN(sqr)(a.x);
		num = FFU_BFN(add)(FFU_BFN(add)(x2, x2), x2);
	}
	FB_t sl = FFU_BFN(mul)(num, inv);
	FFU_FN(aff) r;
	r.x = FFU_BFN(sub)(FFU_BFN(sub)(FFU_BFN(sqr)(sl), a.x), q.x);
	r.y = FFU_BFN(sub)(FFU_BFN(mul)(sl, FFU_BFN(sub)(a.x, r.x)), a.y);
	return r;
}

FFU_INLINE FFU_FN(xyzz) FFU_FN(xyzz_load_m)(__global const uint *buf, size_t i)
{
	FFU_FN(xyzz) p;
	p.x = FFU_BFN(load)(buf, 4 * i);
	p.y = FFU_BFN(load)(buf, 4 * i + 1);
	p.zz = FFU_BFN(load)(buf, 4 * i + 2);
	p.zzz = FFU_BFN(load)(buf, 4 * i + 3);
	return p;
}

FFU_INLINE FFU_FN(xyzz) FFU_FN(xyzz_load)(__global const uint *buf, size_t i)
{
	FFU_FN(xyzz) p = FFU_FN(xyzz_load_m)(buf, i);
	p.x = FFU_BFN(to_mont)(p.x);
	p.y = FFU_BFN(to_mont)(p.y);
	p.zz = FFU_BFN(to_mont)(p.zz);
	p.zzz = FFU_BFN(to_mont)(p.zzz);
	return p;
}

FFU_INLINE void FFU_FN(xyzz_store_m)(__global uint *buf, size_t i, FFU_FN(xyzz) p)
{
	FFU_BFN(store)(buf, 4 * i, p.x);
	FFU_BFN(store)(buf, 4 * i + 1, p.y);
	FFU_BFN(store)(buf, 4 * i + 2, p.zz);
	FFU_BFN(store)(buf, 4 * i + 3, p.zzz);
}

FFU_INLINE void FFU_FN(xyzz_store)(__global uint *buf, size_t i, FFU_FN(xyzz) p)
{
	p.x = FFU_BFN(from_mont)(p.x);
	p.y = FFU_BFN(from_mont)(p.y);
	p.zz = FFU_BFN(from_mont)(p.zz);
	p.zzz = FFU_BFN(from_mont)(p.zzz);
	FFU_FN(xyzz_store_m)(buf, i, p);
}

/* A jacobian point (X, Y, Z), x = X / Z^2, y = Y / Z^3, as xyzz: ZZ = Z^2, ZZZ = Z^3 (Z = 0,
   infinity, gives ZZ = 0). */
FFU_INLINE FFU_FN(xyzz) FFU_FN(xyzz_from_jac)(FB_t x, FB_t y, FB_t z)
{
	FFU_FN(xyzz) p;
	p.x = x;
	p.y = y;
	p.zz = FFU_BFN(sqr)(z);
	p.zzz = FFU_BFN(mul)(p.zz, z);
	return p;
}

/*
 * The element-wise kernels' point values (src/codegen/kgen_point.c): every point value of
 * a kernel is held as xyzz in the device form, whatever its declared kind; a point is
 * loaded from its kind's storage and stored into its result kind's by the functions below.
 */
FFU_INLINE FFU_FN(xyzz) FFU_FN(xyzz_of)(FB_t x, FB_t y, FB_t zz, FB_t zzz)
{
	FFU_FN(xyzz) p;
	p.x = x;
	p.y = y;
	p.zz = zz;
	p.zzz = zzz;
	return p;
}

/* Point i of a buffer of jacobian points (canonical coordinates; _m: the device form). */
FFU_INLINE FFU_FN(xyzz) FFU_FN(jac_load_m)(__global const uint *buf, size_t i)
{
	return FFU_FN(xyzz_from_jac)(FFU_BFN(load)(buf, 3 * i), FFU_BFN(load)(buf, 3 * i + 1),
				     FFU_BFN(load)(buf, 3 * i + 2));
}

FFU_INLINE FFU_FN(xyzz) FFU_FN(jac_load)(__global const uint *buf, size_t i)
{
	return FFU_FN(xyzz_from_jac)(FFU_BFN(to_mont)(FFU_BFN(load)(buf, 3 * i)),
				     FFU_BFN(to_mont)(FFU_BFN(load)(buf, 3 * i + 1)),
				     FFU_BFN(to_mont)(FFU_BFN(load)(buf, 3 * i + 2)));
}

/* The same group element: both at infinity, or X1 ZZ2 = X2 ZZ1 and Y1 ZZZ2 = Y2 ZZZ1
   (x = X / ZZ, y = Y / ZZZ). */
FFU_INLINE int FFU_FN(xyzz_eq)(FFU_FN(xyzz) p, FFU_FN(xyzz) q)
{
	const int zp = FFU_FN(xyzz_is_zero)(p), zq = FFU_FN(xyzz_is_zero)(q);
	if (zp || zq)
		return zp && zq;
	return FFU_BFN(eq)(FFU_BFN(mul)(p.x, q.zz), FFU_BFN(mul)(q.x, p.zz)) &&
	       FFU_BFN(eq)(FFU_BFN(mul)(p.y, q.zzz), FFU_BFN(mul)(q.y, p.zzz));
}

/* p + q where q has ZZ = ZZZ = 1 or is at infinity (a point read from an affine type):
   the mixed formula, 8M + 3S against add-2008-s's 12M + 2S. */
FFU_INLINE FFU_FN(xyzz) FFU_FN(xyzz_add_z1)(FFU_FN(xyzz) p, FFU_FN(xyzz) q)
{
	if (FFU_FN(xyzz_is_zero)(q))
		return p;
	FFU_FN(aff) a;
	a.x = q.x;
	a.y = q.y;
	return FFU_FN(xyzz_madd)(p, a);
}

/* s P, s canonical, by double-and-add from its top bit (the host's is right-to-left in
   jacobian coordinates, fields/point.c: a device test against it checks this one); z1: P
   is as xyzz_add_z1 takes it, so each addition is the mixed one. */
FFU_POINT_OP FFU_FN(xyzz) FFU_FN(xyzz_mul_)(FFU_SFN(t) s, FFU_FN(xyzz) p, int z1)
{
	FFU_FN(xyzz) acc = FFU_FN(xyzz_zero)();
	for (int k = FS_BITS - 1; k >= 0; k--) {
		acc = FFU_FN(xyzz_dbl)(acc);
		if (FFU_SFN(bit)(s, (uint)k))
			acc = z1 ? FFU_FN(xyzz_add_z1)(acc, p) : FFU_FN(xyzz_add)(acc, p);
	}
	return acc;
}

FFU_INLINE FFU_FN(xyzz) FFU_FN(xyzz_mul)(FFU_SFN(t) s, FFU_FN(xyzz) p)
{
	return FFU_FN(xyzz_mul_)(s, p, 0);
}

FFU_INLINE FFU_FN(xyzz) FFU_FN(xyzz_mul_z1)(FFU_SFN(t) s, FFU_FN(xyzz) p)
{
	return FFU_FN(xyzz_mul_)(s, p, 1);
}

/* Coordinate k of a buffer: c in the device form as it is (m) or canonical. */
FFU_INLINE void FFU_FN(put_)(__global uint *buf, size_t k, FB_t c, int m)
{
	FFU_BFN(store)(buf, k, m ? c : FFU_BFN(from_mont)(c));
}

/*
 * p stored as point i of an affine, jacobian or xyzz buffer, coordinates in the device form
 * (m: a _mont type) or canonical; infinity as ZKX writes it: affine (0, 0), jacobian
 * (1, 1, 0), xyzz (1, 1, 0, 0). Affine is normalised by one inversion; jacobian and xyzz
 * are not (no inversion): xyzz as held, jacobian with Z = ZZ ZZZ, so X = x Z^2 =
 * X ZZ ZZZ^2 and Y = y Z^3 = Y ZZ^3 ZZZ^2 (6 products). A result therefore has one of its
 * many representatives; compare them as group elements.
 */
FFU_INLINE void FFU_FN(out_aff)(__global uint *buf, size_t i, FFU_FN(xyzz) p, int m)
{
	FB_t x = FFU_BFN(from_u32)(0u), y = x;
	if (!FFU_FN(xyzz_is_zero)(p)) {
		const FB_t t = FFU_BFN(inv)(FFU_BFN(mul)(p.zz, p.zzz));
		x = FFU_BFN(mul)(p.x, FFU_BFN(mul)(p.zzz, t));
		y = FFU_BFN(mul)(p.y, FFU_BFN(mul)(p.zz, t));
	}
	FFU_FN(put_)(buf, 2 * i, x, m);
	FFU_FN(put_)(buf, 2 * i + 1, y, m);
}

FFU_INLINE void FFU_FN(out_jac)(__global uint *buf, size_t i, FFU_FN(xyzz) p, int m)
{
	FB_t x = FFU_BFN(one_m)(), y = x, z = FFU_BFN(from_u32)(0u);
	if (!FFU_FN(xyzz_is_zero)(p)) {
		z = FFU_BFN(mul)(p.zz, p.zzz);
		const FB_t b = FFU_BFN(mul)(p.zzz, z);
		x = FFU_BFN(mul)(p.x, b);
		y = FFU_BFN(mul)(FFU_BFN(mul)(p.y, FFU_BFN(sqr)(p.zz)), b);
	}
	FFU_FN(put_)(buf, 3 * i, x, m);
	FFU_FN(put_)(buf, 3 * i + 1, y, m);
	FFU_FN(put_)(buf, 3 * i + 2, z, m);
}

FFU_INLINE void FFU_FN(out_xyzz)(__global uint *buf, size_t i, FFU_FN(xyzz) p, int m)
{
	if (FFU_FN(xyzz_is_zero)(p))
		p = FFU_FN(xyzz_zero)();
	FFU_FN(put_)(buf, 4 * i, p.x, m);
	FFU_FN(put_)(buf, 4 * i + 1, p.y, m);
	FFU_FN(put_)(buf, 4 * i + 2, p.zz, m);
	FFU_FN(put_)(buf, 4 * i + 3, p.zzz, m);
}

#undef FFU_SFN
#undef FB_t
