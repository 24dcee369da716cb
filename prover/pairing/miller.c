/*
 * Miller loop of the optimal ate pairing on BLS12-381.
 *
 * f_{|x|,Q}(P) over the bits of |x| = 0xd201000000010000 (63 doubling steps,
 * 5 addition steps), then conjugated because x < 0 (1/f and conj(f) differ
 * by a factor in Fp6 that the final exponentiation kills).
 *
 * Q stays on the twist E'(Fp2): y^2 = x^3 + b', b' = 4(u+1) = 4 xi, in
 * homogeneous projective coordinates (x = X/Z, y = Y/Z).  E' is an M-type
 * twist: psi(x', y') = (x'/w^2, y'/w^3) maps it to E(Fp12), so the line
 * through psi(T) with slope l'/w, evaluated at P = (xP, yP) and scaled by
 * w^3 (in Fp4, killed by the final exponentiation), is
 *
 *     (l' xT - yT)  +  (-l' xP) w^2  +  yP w^3,
 *
 * i.e. a sparse Fp12 element with Fp2 coefficients in slots c0.c0, c0.c1
 * and c1.c1 (w^2 = v, w^3 = v w).  Each coefficient is further scaled by an
 * Fp2 factor to clear denominators.  Point formulas: Costello, Lange,
 * Naehrig, "Faster pairing computations on curves with high-degree twists"
 * (eprint 2009/615) and Aranha et al. (eprint 2010/526, section 4),
 * re-derived for the scalings below.  test_pairing.c checks the loop against
 * a textbook affine Miller loop on E(Fp12) (after exact exponentiation).
 *
 * Multi-pairing: the pairs share the squarings of f; they are processed in
 * chunks of GS_MILLER_CHUNK so that nothing is allocated.
 */
#include "pairing.h"

#define GS_MILLER_CHUNK 16

typedef struct { gs_fp2 X, Y, Z; } g2_proj;
/* Line coefficients: c0 at 1, c1 at v (= w^2), c4 at v w (= w^3). */
typedef struct { gs_fp2 c0, c1, c4; } line;
/* P prepared: -xP and yP. */
typedef struct { gs_fp nx, y; } g1_prep;

/* x12 of an Fp2 element (adds only). */
static void fp2_mul12(gs_fp2 *out, const gs_fp2 *a)
{
    gs_fp2 a4;
    gs_fp2_dbl(&a4, a);
    gs_fp2_dbl(&a4, &a4);
    gs_fp2_dbl(out, &a4);
    gs_fp2_add(out, out, &a4);
}

/*
 * Tangent at T, T <- 2T.  With A = Y^2, B = 3b' Z^2:
 *   line (scaled by 2YZ):  c0 = A - B,  c1 = -3 X^2 xP,  c4 = 2 Y Z yP
 *   2T (scaled by 4):      X3 = 2XY (A - 3B),  Y3 = (A + 3B)^2 - 12 B^2,
 *                          Z3 = 8 A Y Z
 * (from x3 = l'^2 - 2x, y3 = l'(x - x3) - y and X^3 = Y^2 Z - b' Z^3).
 */
static void line_dbl(line *l, g2_proj *t, const g1_prep *p)
{
    gs_fp2 xx, a, b, b3, xy, yz, s;
    gs_fp2_sqr(&xx, &t->X);
    gs_fp2_sqr(&a, &t->Y);
    gs_fp2_sqr(&b, &t->Z);
    gs_fp2_mul_nr(&b, &b);
    fp2_mul12(&b, &b);                      /* 3 b' Z^2 = 12 xi Z^2 */
    gs_fp2_dbl(&b3, &b);
    gs_fp2_add(&b3, &b3, &b);               /* 3B */
    gs_fp2_mul(&xy, &t->X, &t->Y);
    gs_fp2_mul(&yz, &t->Y, &t->Z);

    gs_fp2_sub(&l->c0, &a, &b);
    gs_fp2_dbl(&s, &xx);
    gs_fp2_add(&s, &s, &xx);
    gs_fp2_mul_fp(&l->c1, &s, &p->nx);
    gs_fp2_dbl(&s, &yz);
    gs_fp2_mul_fp(&l->c4, &s, &p->y);

    gs_fp2_sub(&s, &a, &b3);
    gs_fp2_mul(&t->X, &xy, &s);
    gs_fp2_dbl(&t->X, &t->X);
    gs_fp2_mul(&t->Z, &a, &yz);
    gs_fp2_dbl(&t->Z, &t->Z);
    gs_fp2_dbl(&t->Z, &t->Z);
    gs_fp2_dbl(&t->Z, &t->Z);
    gs_fp2_add(&s, &a, &b3);
    gs_fp2_sqr(&s, &s);
    gs_fp2_sqr(&b, &b);
    fp2_mul12(&b, &b);
    gs_fp2_sub(&t->Y, &s, &b);
}

/*
 * Chord through T and Q (affine), T <- T + Q.  With th = Y - yQ Z,
 * la = X - xQ Z (slope th/la):
 *   line (scaled by la):  c0 = th xQ - la yQ,  c1 = -th xP,  c4 = la yP
 *   T + Q:  C = th^2, D = la^2, E = la D, F = Z C, G = X D, H = E + F - 2G,
 *           X3 = la H,  Y3 = th (G - H) - Y E,  Z3 = Z E.
 */
static void line_add(line *l, g2_proj *t, const gs_g2_affine *q, const g1_prep *p)
{
    gs_fp2 th, la, c, d, e, f, g, h, s;
    gs_fp2_mul(&s, &q->y, &t->Z);
    gs_fp2_sub(&th, &t->Y, &s);
    gs_fp2_mul(&s, &q->x, &t->Z);
    gs_fp2_sub(&la, &t->X, &s);

    gs_fp2_mul(&l->c0, &th, &q->x);
    gs_fp2_mul(&s, &la, &q->y);
    gs_fp2_sub(&l->c0, &l->c0, &s);
    gs_fp2_mul_fp(&l->c1, &th, &p->nx);
    gs_fp2_mul_fp(&l->c4, &la, &p->y);

    gs_fp2_sqr(&c, &th);
    gs_fp2_sqr(&d, &la);
    gs_fp2_mul(&e, &la, &d);
    gs_fp2_mul(&f, &t->Z, &c);
    gs_fp2_mul(&g, &t->X, &d);
    gs_fp2_add(&h, &e, &f);
    gs_fp2_sub(&h, &h, &g);
    gs_fp2_sub(&h, &h, &g);
    gs_fp2_mul(&t->X, &la, &h);
    gs_fp2_sub(&s, &g, &h);
    gs_fp2_mul(&s, &th, &s);
    gs_fp2_mul(&f, &t->Y, &e);
    gs_fp2_sub(&t->Y, &s, &f);
    gs_fp2_mul(&t->Z, &t->Z, &e);
}

/* (c0 + c1 v + c2 v^2)(a0 + a1 v), Karatsuba: 5 Fp2 multiplications. */
static void fp6_mul_by_01(gs_fp6 *out, const gs_fp6 *f, const gs_fp2 *a0, const gs_fp2 *a1)
{
    gs_fp2 t0, t1, s, u, r0, r1, r2;
    gs_fp2_mul(&t0, &f->c0, a0);
    gs_fp2_mul(&t1, &f->c1, a1);
    gs_fp2_add(&s, &f->c1, &f->c2);          /* xi (c2 a1) + c0 a0 */
    gs_fp2_mul(&s, &s, a1);
    gs_fp2_sub(&s, &s, &t1);
    gs_fp2_mul_nr(&s, &s);
    gs_fp2_add(&r0, &s, &t0);
    gs_fp2_add(&s, a0, a1);                  /* c0 a1 + c1 a0 */
    gs_fp2_add(&u, &f->c0, &f->c1);
    gs_fp2_mul(&s, &s, &u);
    gs_fp2_sub(&s, &s, &t0);
    gs_fp2_sub(&r1, &s, &t1);
    gs_fp2_add(&s, &f->c0, &f->c2);          /* c2 a0 + c1 a1 */
    gs_fp2_mul(&s, &s, a0);
    gs_fp2_sub(&s, &s, &t0);
    gs_fp2_add(&r2, &s, &t1);
    out->c0 = r0;
    out->c1 = r1;
    out->c2 = r2;
}

/* (c0 + c1 v + c2 v^2)(b1 v) = xi c2 b1 + c0 b1 v + c1 b1 v^2. */
static void fp6_mul_by_1(gs_fp6 *out, const gs_fp6 *f, const gs_fp2 *b1)
{
    gs_fp2 r0;
    gs_fp2_mul(&r0, &f->c2, b1);
    gs_fp2_mul_nr(&r0, &r0);
    gs_fp2_mul(&out->c2, &f->c1, b1);
    gs_fp2_mul(&out->c1, &f->c0, b1);
    out->c0 = r0;
}

/* f *= (c0 + c1 v) + (c4 v) w, Karatsuba over Fp6: 13 Fp2 multiplications. */
static void fp12_mul_by_line(gs_fp12 *f, const line *l)
{
    gs_fp6 aa, bb, s;
    gs_fp2 t;
    fp6_mul_by_01(&aa, &f->c0, &l->c0, &l->c1);
    fp6_mul_by_1(&bb, &f->c1, &l->c4);
    gs_fp6_add(&s, &f->c0, &f->c1);
    gs_fp2_add(&t, &l->c1, &l->c4);
    fp6_mul_by_01(&s, &s, &l->c0, &t);
    gs_fp6_sub(&s, &s, &aa);
    gs_fp6_sub(&f->c1, &s, &bb);
    gs_fp6_mul_by_v(&bb, &bb);
    gs_fp6_add(&f->c0, &aa, &bb);
}

/* One chunk of at most GS_MILLER_CHUNK pairs (infinity already dropped). */
static void miller_chunk(gs_fp12 *g, const g1_prep *pp, const gs_g2_affine *const *qq, size_t n)
{
    g2_proj t[GS_MILLER_CHUNK];
    line l;
    for (size_t k = 0; k < n; k++) {
        t[k].X = qq[k]->x;
        t[k].Y = qq[k]->y;
        gs_fp2_one(&t[k].Z);
    }
    gs_fp12_one(g);
    const uint64_t x = 0xd201000000010000ull;
    for (int i = 62; i >= 0; i--) {
        if (i != 62)
            gs_fp12_sqr(g, g);
        for (size_t k = 0; k < n; k++) {
            line_dbl(&l, &t[k], &pp[k]);
            fp12_mul_by_line(g, &l);
        }
        if ((x >> i) & 1) {
            for (size_t k = 0; k < n; k++) {
                line_add(&l, &t[k], qq[k], &pp[k]);
                fp12_mul_by_line(g, &l);
            }
        }
    }
}

void gs_miller_loop_multi(gs_fp12 *out, const gs_g1_affine *p, const gs_g2_affine *q, size_t n)
{
    g1_prep pp[GS_MILLER_CHUNK];
    const gs_g2_affine *qq[GS_MILLER_CHUNK];
    gs_fp12 f, g;
    size_t m = 0;
    gs_fp12_one(&f);
    for (size_t i = 0; i <= n; i++) {
        if (i < n && !p[i].inf && !q[i].inf) {
            gs_fp_neg(&pp[m].nx, &p[i].x);
            pp[m].y = p[i].y;
            qq[m++] = &q[i];
        }
        if (m == GS_MILLER_CHUNK || (i == n && m > 0)) {
            miller_chunk(&g, pp, qq, m);
            gs_fp12_mul(&f, &f, &g);
            m = 0;
        }
    }
    gs_fp12_conj(out, &f);                  /* x < 0 */
}

void gs_miller_loop(gs_fp12 *out, const gs_g1_affine *p, const gs_g2_affine *q)
{
    gs_miller_loop_multi(out, p, q, 1);
}
