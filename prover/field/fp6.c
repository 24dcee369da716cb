/*
 * Fp6 = Fp2[v]/(v^3 - xi), xi = u + 1, elements c0 + c1 v + c2 v^2.
 * Multiplication is Karatsuba (6 Fp2 multiplications) and squaring is
 * Chung-Hasan SQR2, both from Devegili, O hEigeartaigh, Scott, Dahab,
 * "Multiplication and Squaring on Pairing-Friendly Fields", eprint
 * 2006/471, sections 4 and 4.2.
 */
#include "field.h"

#include <string.h>

#include "fp_inline.h"
#include "tower.h"

void gs_fp6_zero(gs_fp6 *out) { memset(out, 0, sizeof *out); }

void gs_fp6_one(gs_fp6 *out)
{
    gs_fp2_one(&out->c0);
    gs_fp2_zero(&out->c1);
    gs_fp2_zero(&out->c2);
}

int gs_fp6_eq(const gs_fp6 *a, const gs_fp6 *b)
{
    return gs_fp2_eq(&a->c0, &b->c0) & gs_fp2_eq(&a->c1, &b->c1) & gs_fp2_eq(&a->c2, &b->c2);
}

void gs_fp6_add(gs_fp6 *out, const gs_fp6 *a, const gs_fp6 *b)
{
    fp2_add(&out->c0, &a->c0, &b->c0);
    fp2_add(&out->c1, &a->c1, &b->c1);
    fp2_add(&out->c2, &a->c2, &b->c2);
}

void gs_fp6_sub(gs_fp6 *out, const gs_fp6 *a, const gs_fp6 *b)
{
    fp2_sub(&out->c0, &a->c0, &b->c0);
    fp2_sub(&out->c1, &a->c1, &b->c1);
    fp2_sub(&out->c2, &a->c2, &b->c2);
}

void gs_fp6_neg(gs_fp6 *out, const gs_fp6 *a)
{
    gs_fp2_neg(&out->c0, &a->c0);
    gs_fp2_neg(&out->c1, &a->c1);
    gs_fp2_neg(&out->c2, &a->c2);
}

/*
 * v0 = a0 b0, v1 = a1 b1, v2 = a2 b2
 * c0 = v0 + xi ((a1 + a2)(b1 + b2) - v1 - v2)
 * c1 = (a0 + a1)(b0 + b1) - v0 - v1 + xi v2
 * c2 = (a0 + a2)(b0 + b2) - v0 - v2 + v1
 */
void gs_fp6_mul(gs_fp6 *out, const gs_fp6 *a, const gs_fp6 *b)
{
    gs_fp2 v0, v1, v2, s, t, c0, c1, c2;
    fp2_mul(&v0, &a->c0, &b->c0);
    fp2_mul(&v1, &a->c1, &b->c1);
    fp2_mul(&v2, &a->c2, &b->c2);

    fp2_add(&s, &a->c1, &a->c2);
    fp2_add(&t, &b->c1, &b->c2);
    fp2_mul(&s, &s, &t);
    fp2_sub(&s, &s, &v1);
    fp2_sub(&s, &s, &v2);
    fp2_mul_nr(&s, &s);
    fp2_add(&c0, &s, &v0);

    fp2_add(&s, &a->c0, &a->c1);
    fp2_add(&t, &b->c0, &b->c1);
    fp2_mul(&s, &s, &t);
    fp2_sub(&s, &s, &v0);
    fp2_sub(&s, &s, &v1);
    fp2_mul_nr(&t, &v2);
    fp2_add(&c1, &s, &t);

    fp2_add(&s, &a->c0, &a->c2);
    fp2_add(&t, &b->c0, &b->c2);
    fp2_mul(&s, &s, &t);
    fp2_sub(&s, &s, &v0);
    fp2_sub(&s, &s, &v2);
    fp2_add(&c2, &s, &v1);

    out->c0 = c0;
    out->c1 = c1;
    out->c2 = c2;
}

/*
 * CH-SQR2: s0 = a0^2, s1 = 2 a0 a1, s2 = (a0 - a1 + a2)^2, s3 = 2 a1 a2,
 * s4 = a2^2; c0 = s0 + xi s3, c1 = s1 + xi s4, c2 = s1 + s2 + s3 - s0 - s4.
 */
void gs_fp6_sqr(gs_fp6 *out, const gs_fp6 *a)
{
    gs_fp2 s0, s1, s2, s3, s4, t;
    fp2_sqr(&s0, &a->c0);
    fp2_mul(&s1, &a->c0, &a->c1);
    fp2_dbl(&s1, &s1);
    fp2_sub(&s2, &a->c0, &a->c1);
    fp2_add(&s2, &s2, &a->c2);
    fp2_sqr(&s2, &s2);
    fp2_mul(&s3, &a->c1, &a->c2);
    fp2_dbl(&s3, &s3);
    fp2_sqr(&s4, &a->c2);

    fp2_mul_nr(&t, &s3);
    fp2_add(&out->c0, &s0, &t);
    fp2_add(&t, &s1, &s2);
    fp2_add(&t, &t, &s3);
    fp2_sub(&t, &t, &s0);
    fp2_sub(&out->c2, &t, &s4);
    fp2_mul_nr(&t, &s4);
    fp2_add(&out->c1, &s1, &t);
}

/* (a0 + a1 v + a2 v^2) v = xi a2 + a0 v + a1 v^2 */
void gs_fp6_mul_by_v(gs_fp6 *out, const gs_fp6 *a)
{
    gs_fp2 t;
    fp2_mul_nr(&t, &a->c2);
    out->c2 = a->c1;
    out->c1 = a->c0;
    out->c0 = t;
}

/*
 * Inverse via the norm to Fp2 (e.g. Beuchat et al., "High-Speed Software
 * Implementation of the Optimal Ate Pairing over Barreto-Naehrig Curves",
 * eprint 2010/354, algorithm 17):
 * t0 = a0^2 - xi a1 a2, t1 = xi a2^2 - a0 a1, t2 = a1^2 - a0 a2,
 * d = a0 t0 + xi (a2 t1 + a1 t2), a^-1 = (t0 + t1 v + t2 v^2) / d.
 */
void gs_fp6_inv(gs_fp6 *out, const gs_fp6 *a)
{
    gs_fp2 t0, t1, t2, d, s;
    fp2_sqr(&t0, &a->c0);
    fp2_mul(&s, &a->c1, &a->c2);
    fp2_mul_nr(&s, &s);
    fp2_sub(&t0, &t0, &s);

    fp2_sqr(&t1, &a->c2);
    fp2_mul_nr(&t1, &t1);
    fp2_mul(&s, &a->c0, &a->c1);
    fp2_sub(&t1, &t1, &s);

    fp2_sqr(&t2, &a->c1);
    fp2_mul(&s, &a->c0, &a->c2);
    fp2_sub(&t2, &t2, &s);

    fp2_mul(&d, &a->c2, &t1);
    fp2_mul(&s, &a->c1, &t2);
    fp2_add(&d, &d, &s);
    fp2_mul_nr(&d, &d);
    fp2_mul(&s, &a->c0, &t0);
    fp2_add(&d, &d, &s);
    gs_fp2_inv(&d, &d);

    fp2_mul(&out->c0, &t0, &d);
    fp2_mul(&out->c1, &t1, &d);
    fp2_mul(&out->c2, &t2, &d);
}

/* a^(p^k) = conj^k(c0) + conj^k(c1) c1[k] v + conj^k(c2) c2[k] v^2; k mod 6. */
void gs_fp6_frobenius(gs_fp6 *out, const gs_fp6 *a, unsigned k)
{
    gs_fp2 c0 = a->c0, c1 = a->c1, c2 = a->c2;
    k %= 6;
    if (k & 1) {
        gs_fp2_conj(&c0, &c0);
        gs_fp2_conj(&c1, &c1);
        gs_fp2_conj(&c2, &c2);
    }
    fp2_mul(&out->c1, &c1, &gs_frob6_c1[k]);
    fp2_mul(&out->c2, &c2, &gs_frob6_c2[k]);
    out->c0 = c0;
}

void gs_fp6_random(gs_fp6 *out, gs_rng *rng)
{
    gs_fp2_random(&out->c0, rng);
    gs_fp2_random(&out->c1, rng);
    gs_fp2_random(&out->c2, rng);
}
