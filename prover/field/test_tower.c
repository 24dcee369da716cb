/*
 * Fp2, Fp6, Fp12 tests: each multiplication against the schoolbook formula
 * one level down, field axioms on random elements, inverses, square roots of
 * squares and Euler's criterion, and every Frobenius map against a^(p^k)
 * computed with pow (the tables come from gen/frobenius.py; pow does not
 * use them).
 */
#include "field.h"

#include <string.h>

#include "../../test/test.h"

static int iters(int full) { return gs_test_quick() ? full / 10 : full; }

/* e = p^k as little-endian limbs; returns the limb count (<= 6k). */
static size_t p_power(uint64_t *e, unsigned k)
{
    size_t n = 1;
    memset(e, 0, 8 * 6 * 12);
    e[0] = 1;
    for (unsigned i = 0; i < k; i++) {
        uint64_t r[6 * 12 + 6] = {0};
        for (size_t a = 0; a < n; a++) {
            unsigned __int128 c = 0;
            for (size_t b = 0; b < 6; b++) {
                c += (unsigned __int128)e[a] * GS_FP_MODULUS.l[b] + r[a + b];
                r[a + b] = (uint64_t)c;
                c >>= 64;
            }
            r[a + 6] = (uint64_t)c;
        }
        n += 6;
        while (n > 1 && r[n - 1] == 0) n--;
        memcpy(e, r, n * 8);
    }
    return n;
}

/* (a0 b0 - a1 b1) + (a0 b1 + a1 b0) u, by Fp multiplications. */
static void fp2_mul_schoolbook(gs_fp2 *out, const gs_fp2 *a, const gs_fp2 *b)
{
    gs_fp x, y, c0;
    gs_fp_mul(&x, &a->c0, &b->c0);
    gs_fp_mul(&y, &a->c1, &b->c1);
    gs_fp_sub(&c0, &x, &y);
    gs_fp_mul(&x, &a->c0, &b->c1);
    gs_fp_mul(&y, &a->c1, &b->c0);
    gs_fp_add(&out->c1, &x, &y);
    out->c0 = c0;
}

GS_TEST(field_fp2_arith)
{
    gs_rng *rng = gs_test_rng();
    gs_fp2 a, b, c, t1, t2, t3, one, nr;
    gs_fp2_one(&one);
    nr = one;
    gs_fp_one(&nr.c1); /* xi = 1 + u */
    for (int i = 0; i < iters(3000); i++) {
        gs_fp2_random(&a, rng);
        gs_fp2_random(&b, rng);
        gs_fp2_random(&c, rng);
        fp2_mul_schoolbook(&t2, &a, &b);
        gs_fp2_mul(&t1, &a, &b);
        GS_CHECK(gs_fp2_eq(&t1, &t2));
        gs_fp2_mul(&t1, &b, &a);
        GS_CHECK(gs_fp2_eq(&t1, &t2));
        /* distributivity, associativity */
        gs_fp2_add(&t1, &a, &b);
        gs_fp2_mul(&t1, &t1, &c);
        gs_fp2_mul(&t2, &a, &c);
        gs_fp2_mul(&t3, &b, &c);
        gs_fp2_add(&t2, &t2, &t3);
        GS_CHECK(gs_fp2_eq(&t1, &t2));
        gs_fp2_mul(&t1, &a, &b);
        gs_fp2_mul(&t1, &t1, &c);
        gs_fp2_mul(&t2, &b, &c);
        gs_fp2_mul(&t2, &a, &t2);
        GS_CHECK(gs_fp2_eq(&t1, &t2));
        /* sqr, dbl, neg, sub, mul_nr, mul_fp, inverse */
        gs_fp2_sqr(&t1, &a);
        gs_fp2_mul(&t2, &a, &a);
        GS_CHECK(gs_fp2_eq(&t1, &t2));
        gs_fp2_dbl(&t1, &a);
        gs_fp2_add(&t2, &a, &a);
        GS_CHECK(gs_fp2_eq(&t1, &t2));
        gs_fp2_neg(&t1, &a);
        gs_fp2_add(&t1, &t1, &a);
        GS_CHECK(gs_fp2_is_zero(&t1));
        gs_fp2_sub(&t1, &a, &b);
        gs_fp2_add(&t1, &t1, &b);
        GS_CHECK(gs_fp2_eq(&t1, &a));
        gs_fp2_mul_nr(&t1, &a);
        gs_fp2_mul(&t2, &a, &nr);
        GS_CHECK(gs_fp2_eq(&t1, &t2));
        gs_fp2_mul_fp(&t1, &a, &b.c0);
        t3 = b;
        gs_fp_zero(&t3.c1);
        gs_fp2_mul(&t2, &a, &t3);
        GS_CHECK(gs_fp2_eq(&t1, &t2));
        gs_fp2_inv(&t1, &a);
        gs_fp2_mul(&t1, &t1, &a);
        GS_CHECK(gs_fp2_eq(&t1, &one));
        /* sqrt of a square, and the sign flips under negation */
        gs_fp2_sqr(&t1, &a);
        GS_REQUIRE(gs_fp2_sqrt(&t2, &t1));
        gs_fp2_neg(&t3, &a);
        GS_CHECK(gs_fp2_eq(&t2, &a) || gs_fp2_eq(&t2, &t3));
        GS_CHECK(gs_fp2_is_lexlargest(&a) != gs_fp2_is_lexlargest(&t3));
    }
    /* Edge components (the lazy product's borrow and bound cases: a0 b0 <
     * a1 b1, sums near 2p, zeros) against the schoolbook formula. */
    gs_fp edge[7];
    gs_fp_zero(&edge[0]);
    gs_fp_one(&edge[1]);
    gs_fp_neg(&edge[2], &edge[1]);                 /* p - 1 */
    gs_fp_add(&edge[3], &edge[1], &edge[1]);
    gs_fp_neg(&edge[3], &edge[3]);                 /* p - 2 */
    memset(&edge[4], 0, sizeof edge[4]);
    edge[4].l[0] = 1;                              /* raw limbs 1 */
    memcpy(edge[5].l, GS_FP_MODULUS.l, sizeof edge[5].l);
    edge[5].l[0] -= 1;                             /* raw p - 1 */
    gs_fp_random(&edge[6], rng);
    int edge_ok = 1;
    for (int i0 = 0; i0 < 7; i0++)
        for (int i1 = 0; i1 < 7; i1++)
            for (int j0 = 0; j0 < 7; j0++)
                for (int j1 = 0; j1 < 7; j1++) {
                    a.c0 = edge[i0];
                    a.c1 = edge[i1];
                    b.c0 = edge[j0];
                    b.c1 = edge[j1];
                    fp2_mul_schoolbook(&t2, &a, &b);
                    gs_fp2_mul(&t1, &a, &b);
                    edge_ok &= gs_fp2_eq(&t1, &t2) && !memcmp(&t1, &t2, sizeof t1);
                    t1 = a;
                    gs_fp2_mul(&t1, &t1, &b);              /* out aliasing a */
                    edge_ok &= !memcmp(&t1, &t2, sizeof t1);
                    t1 = b;
                    gs_fp2_mul(&t1, &a, &t1);              /* out aliasing b */
                    edge_ok &= !memcmp(&t1, &t2, sizeof t1);
                }
    GS_CHECK(edge_ok);
    gs_fp2_zero(&a);
    gs_fp2_inv(&t1, &a);
    GS_CHECK(gs_fp2_is_zero(&t1));
    GS_CHECK(gs_fp2_sqrt(&t1, &a) && gs_fp2_is_zero(&t1));
    /* u^2 = -1: sqrt(-1) = +-u */
    gs_fp2_neg(&a, &one);
    GS_REQUIRE(gs_fp2_sqrt(&t1, &a));
    GS_CHECK(gs_fp_is_zero(&t1.c0));
    gs_fp2_sqr(&t2, &t1);
    GS_CHECK(gs_fp2_eq(&t2, &a));
    /* xi is not a square in Fp2 (the tower needs it to be a non-residue) */
    GS_CHECK(!gs_fp2_sqrt(&t1, &nr));
    /* Zcash sign: c1 decides unless it is zero */
    gs_fp2_one(&a);
    GS_CHECK(!gs_fp2_is_lexlargest(&a));
    gs_fp2_neg(&a, &a);
    GS_CHECK(gs_fp2_is_lexlargest(&a));
    gs_fp_one(&a.c1);
    GS_CHECK(!gs_fp2_is_lexlargest(&a));
}

/* Euler: a is a square iff a^((p^2-1)/2) == 1; sqrt must agree. */
GS_TEST(field_fp2_sqrt_euler)
{
    gs_rng *rng = gs_test_rng();
    uint64_t e[6 * 12];
    size_t n = p_power(e, 2);
    /* (p^2 - 1) / 2: p^2 is odd */
    e[0] -= 1;
    for (size_t i = 0; i < n; i++) e[i] = (e[i] >> 1) | (i + 1 < n ? e[i + 1] << 63 : 0);
    int squares = 0, total = iters(200);
    for (int i = 0; i < total; i++) {
        gs_fp2 a, r, t, one;
        gs_fp2_random(&a, rng);
        gs_fp2_one(&one);
        gs_fp2_pow(&t, &a, e, n);
        int is_sq = gs_fp2_eq(&t, &one);
        int got = gs_fp2_sqrt(&r, &a);
        GS_CHECK(got == is_sq);
        if (got) {
            gs_fp2_sqr(&t, &r);
            GS_CHECK(gs_fp2_eq(&t, &a));
        }
        squares += got;
    }
    GS_CHECK(squares > total / 4 && squares < 3 * total / 4);
}

static void fp6_schoolbook(gs_fp6 *out, const gs_fp6 *a, const gs_fp6 *b)
{
    const gs_fp2 *x[3] = {&a->c0, &a->c1, &a->c2}, *y[3] = {&b->c0, &b->c1, &b->c2};
    gs_fp2 r[5], t;
    for (int i = 0; i < 5; i++) gs_fp2_zero(&r[i]);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            gs_fp2_mul(&t, x[i], y[j]);
            gs_fp2_add(&r[i + j], &r[i + j], &t);
        }
    /* v^3 = xi, v^4 = xi v */
    gs_fp2_mul_nr(&t, &r[3]);
    gs_fp2_add(&out->c0, &r[0], &t);
    gs_fp2_mul_nr(&t, &r[4]);
    gs_fp2_add(&out->c1, &r[1], &t);
    out->c2 = r[2];
}

GS_TEST(field_fp6_arith)
{
    gs_rng *rng = gs_test_rng();
    gs_fp6 a, b, c, t1, t2, t3, one, v;
    gs_fp6_one(&one);
    gs_fp6_zero(&v);
    gs_fp2_one(&v.c1);
    for (int i = 0; i < iters(1000); i++) {
        gs_fp6_random(&a, rng);
        gs_fp6_random(&b, rng);
        gs_fp6_random(&c, rng);
        gs_fp6_mul(&t1, &a, &b);
        fp6_schoolbook(&t2, &a, &b);
        GS_CHECK(gs_fp6_eq(&t1, &t2));
        gs_fp6_sqr(&t1, &a);
        fp6_schoolbook(&t2, &a, &a);
        GS_CHECK(gs_fp6_eq(&t1, &t2));
        gs_fp6_mul_by_v(&t1, &a);
        gs_fp6_mul(&t2, &a, &v);
        GS_CHECK(gs_fp6_eq(&t1, &t2));
        gs_fp6_add(&t1, &a, &b);
        gs_fp6_mul(&t1, &t1, &c);
        gs_fp6_mul(&t2, &a, &c);
        gs_fp6_mul(&t3, &b, &c);
        gs_fp6_add(&t2, &t2, &t3);
        GS_CHECK(gs_fp6_eq(&t1, &t2));
        gs_fp6_sub(&t1, &t1, &t3);
        gs_fp6_mul(&t3, &a, &c);
        GS_CHECK(gs_fp6_eq(&t1, &t3));
        gs_fp6_neg(&t1, &a);
        gs_fp6_add(&t1, &t1, &a);
        gs_fp6_zero(&t2);
        GS_CHECK(gs_fp6_eq(&t1, &t2));
        gs_fp6_inv(&t1, &a);
        gs_fp6_mul(&t1, &t1, &a);
        GS_CHECK(gs_fp6_eq(&t1, &one));
    }
}

GS_TEST(field_fp12_arith)
{
    gs_rng *rng = gs_test_rng();
    gs_fp12 a, b, c, t1, t2, t3, one;
    gs_fp12_one(&one);
    GS_CHECK(gs_fp12_is_one(&one));
    for (int i = 0; i < iters(300); i++) {
        gs_fp12_random(&a, rng);
        gs_fp12_random(&b, rng);
        gs_fp12_random(&c, rng);
        /* schoolbook: (a0 b0 + v a1 b1) + (a0 b1 + a1 b0) w */
        gs_fp6 x, y;
        gs_fp6_mul(&x, &a.c0, &b.c0);
        gs_fp6_mul(&y, &a.c1, &b.c1);
        gs_fp6_mul_by_v(&y, &y);
        gs_fp6_add(&t2.c0, &x, &y);
        gs_fp6_mul(&x, &a.c0, &b.c1);
        gs_fp6_mul(&y, &a.c1, &b.c0);
        gs_fp6_add(&t2.c1, &x, &y);
        gs_fp12_mul(&t1, &a, &b);
        GS_CHECK(gs_fp12_eq(&t1, &t2));
        gs_fp12_sqr(&t1, &a);
        gs_fp12_mul(&t2, &a, &a);
        GS_CHECK(gs_fp12_eq(&t1, &t2));
        gs_fp12_mul(&t1, &a, &b);
        gs_fp12_mul(&t1, &t1, &c);
        gs_fp12_mul(&t2, &b, &c);
        gs_fp12_mul(&t2, &a, &t2);
        GS_CHECK(gs_fp12_eq(&t1, &t2));
        gs_fp12_add(&t1, &a, &b);
        gs_fp12_sub(&t1, &t1, &b);
        GS_CHECK(gs_fp12_eq(&t1, &a));
        gs_fp12_inv(&t1, &a);
        gs_fp12_mul(&t1, &t1, &a);
        GS_CHECK(gs_fp12_is_one(&t1));
        gs_fp12_conj(&t1, &a);
        gs_fp12_frobenius(&t2, &a, 6);
        GS_CHECK(gs_fp12_eq(&t1, &t2));
        /* a^5 by pow */
        uint64_t five = 5;
        gs_fp12_pow(&t1, &a, &five, 1);
        gs_fp12_sqr(&t3, &a);
        gs_fp12_sqr(&t3, &t3);
        gs_fp12_mul(&t3, &t3, &a);
        GS_CHECK(gs_fp12_eq(&t1, &t3));
    }
}

/* frobenius(a, k) == a^(p^k) for Fp2, Fp6 (k = 1..5) and Fp12 (k = 1..11). */
GS_TEST(field_frobenius_vs_pow)
{
    gs_rng *rng = gs_test_rng();
    uint64_t e[6 * 12];
    int reps = gs_test_quick() ? 1 : 2;
    for (int rep = 0; rep < reps; rep++) {
        gs_fp12 a, f, pw;
        gs_fp2 x, fx, px;
        gs_fp12_random(&a, rng);
        gs_fp2_random(&x, rng);
        size_t n = p_power(e, 1);
        gs_fp2_pow(&px, &x, e, n);
        gs_fp2_frobenius(&fx, &x);
        GS_CHECK(gs_fp2_eq(&fx, &px));
        for (unsigned k = 1; k <= 11; k++) {
            n = p_power(e, k);
            gs_fp12_pow(&pw, &a, e, n);
            gs_fp12_frobenius(&f, &a, k);
            GS_CHECK_MSG(gs_fp12_eq(&f, &pw), "Fp12 frobenius k=%u", k);
            if (k <= 5) {
                /* Fp6 inside Fp12 (c1 = 0) */
                gs_fp12 b = a, pb;
                gs_fp6 fb;
                gs_fp6_zero(&b.c1);
                gs_fp12_pow(&pb, &b, e, n);
                gs_fp6_frobenius(&fb, &b.c0, k);
                GS_CHECK_MSG(gs_fp6_eq(&fb, &pb.c0), "Fp6 frobenius k=%u", k);
            }
        }
        gs_fp12_frobenius(&f, &a, 12);
        GS_CHECK(gs_fp12_eq(&f, &a));
    }
}

/* Cyclotomic squaring equals squaring on f^((p^6-1)(p^2+1)) and differs on
 * a random element (so the test can tell the two apart). */
GS_TEST(field_fp12_cyclotomic_sqr)
{
    gs_rng *rng = gs_test_rng();
    for (int i = 0; i < iters(100); i++) {
        gs_fp12 f, g, t, s1, s2;
        gs_fp12_random(&f, rng);
        gs_fp12_cyclotomic_sqr(&s1, &f);
        gs_fp12_sqr(&s2, &f);
        GS_CHECK(!gs_fp12_eq(&s1, &s2));
        /* easy part: g = f^(p^6 - 1) = conj(f) / f, then g^(p^2 + 1) */
        gs_fp12_inv(&t, &f);
        gs_fp12_conj(&g, &f);
        gs_fp12_mul(&g, &g, &t);
        gs_fp12_frobenius(&t, &g, 2);
        gs_fp12_mul(&g, &g, &t);
        gs_fp12_cyclotomic_sqr(&s1, &g);
        gs_fp12_sqr(&s2, &g);
        GS_CHECK(gs_fp12_eq(&s1, &s2));
        gs_fp12_cyclotomic_sqr(&s1, &s1);
        gs_fp12_cyclotomic_sqr(&s1, &s1);
        gs_fp12_sqr(&s2, &s2);
        gs_fp12_sqr(&s2, &s2);
        GS_CHECK(gs_fp12_eq(&s1, &s2));
    }
}
