/*
 * Squaring in the cyclotomic subgroup of Fp12 (Granger and Scott, "Faster
 * Squaring in the Cyclotomic Subgroup of Sixth Degree Extensions", eprint
 * 2009/565, section 3.2).
 *
 * With s = w^3 (s^2 = w^6 = v^3 = xi), Fp12 = Fp4[w]/(w^3 - s) where
 * Fp4 = Fp2[s]/(s^2 - xi).  Writing c0 = g0 + g1 v + g2 v^2 and
 * c1 = h0 + h1 v + h2 v^2 (v = w^2):
 *     a = A + B w + C w^2,  A = g0 + h1 s,  B = h0 + g2 s,  C = g1 + h2 s.
 * For a in the cyclotomic subgroup the paper gives
 *     a^2 = (3 A^2 - 2 conj(A)) + (3 s C^2 + 2 conj(B)) w + (3 B^2 - 2 conj(C)) w^2,
 * conj(x + y s) = x - y s, costing three Fp4 squarings.
 */
#include "field.h"

#include "fp_inline.h"

/* (x + y s)^2 = (x^2 + xi y^2) + ((x + y)^2 - x^2 - y^2) s */
static void fp4_sqr(gs_fp2 *r0, gs_fp2 *r1, const gs_fp2 *x, const gs_fp2 *y)
{
    gs_fp2 t0, t1, t;
    fp2_sqr(&t0, x);
    fp2_sqr(&t1, y);
    fp2_add(&t, x, y);
    fp2_sqr(&t, &t);
    fp2_sub(&t, &t, &t0);
    fp2_sub(r1, &t, &t1);
    fp2_mul_nr(&t1, &t1);
    fp2_add(r0, &t0, &t1);
}

/* out = 3 t - 2 a  (= 2 (t - a) + t) */
static void three_minus_two(gs_fp2 *out, const gs_fp2 *t, const gs_fp2 *a)
{
    gs_fp2 d;
    fp2_sub(&d, t, a);
    fp2_dbl(&d, &d);
    fp2_add(out, &d, t);
}

/* out = 3 t + 2 a */
static void three_plus_two(gs_fp2 *out, const gs_fp2 *t, const gs_fp2 *a)
{
    gs_fp2 d;
    fp2_add(&d, t, a);
    fp2_dbl(&d, &d);
    fp2_add(out, &d, t);
}

void gs_fp12_cyclotomic_sqr(gs_fp12 *out, const gs_fp12 *a)
{
    gs_fp2 a0, a1, b0, b1, c0, c1;
    /* A^2, B^2, C^2 as (x, y) pairs */
    fp4_sqr(&a0, &a1, &a->c0.c0, &a->c1.c1);
    fp4_sqr(&b0, &b1, &a->c1.c0, &a->c0.c2);
    fp4_sqr(&c0, &c1, &a->c0.c1, &a->c1.c2);

    gs_fp12 r;
    /* A' = 3 A^2 - 2 conj(A) */
    three_minus_two(&r.c0.c0, &a0, &a->c0.c0);
    three_plus_two(&r.c1.c1, &a1, &a->c1.c1);
    /* C' = 3 B^2 - 2 conj(C) */
    three_minus_two(&r.c0.c1, &b0, &a->c0.c1);
    three_plus_two(&r.c1.c2, &b1, &a->c1.c2);
    /* B' = 3 s C^2 + 2 conj(B), s (x + y s) = xi y + x s */
    fp2_mul_nr(&c1, &c1);
    three_plus_two(&r.c1.c0, &c1, &a->c1.c0);
    three_minus_two(&r.c0.c2, &c0, &a->c0.c2);
    *out = r;
}
