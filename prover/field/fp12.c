/*
 * Fp12 = Fp6[w]/(w^2 - v), elements c0 + c1 w.  Karatsuba multiplication
 * (3 Fp6 multiplications) and complex squaring (2), eprint 2006/471
 * sections 3 and 3.1 with the non-residue v (gs_fp6_mul_by_v).
 */
#include "field.h"

#include <string.h>

#include "fp_inline.h"
#include "tower.h"

void gs_fp12_zero(gs_fp12 *out) { memset(out, 0, sizeof *out); }

void gs_fp12_one(gs_fp12 *out)
{
    gs_fp6_one(&out->c0);
    gs_fp6_zero(&out->c1);
}

int gs_fp12_is_one(const gs_fp12 *a)
{
    gs_fp12 one;
    gs_fp12_one(&one);
    return gs_fp12_eq(a, &one);
}

int gs_fp12_eq(const gs_fp12 *a, const gs_fp12 *b)
{
    return gs_fp6_eq(&a->c0, &b->c0) & gs_fp6_eq(&a->c1, &b->c1);
}

void gs_fp12_add(gs_fp12 *out, const gs_fp12 *a, const gs_fp12 *b)
{
    gs_fp6_add(&out->c0, &a->c0, &b->c0);
    gs_fp6_add(&out->c1, &a->c1, &b->c1);
}

void gs_fp12_sub(gs_fp12 *out, const gs_fp12 *a, const gs_fp12 *b)
{
    gs_fp6_sub(&out->c0, &a->c0, &b->c0);
    gs_fp6_sub(&out->c1, &a->c1, &b->c1);
}

/* c0 = a0 b0 + v a1 b1, c1 = (a0 + a1)(b0 + b1) - a0 b0 - a1 b1 */
void gs_fp12_mul(gs_fp12 *out, const gs_fp12 *a, const gs_fp12 *b)
{
    gs_fp6 t0, t1, s, t;
    gs_fp6_mul(&t0, &a->c0, &b->c0);
    gs_fp6_mul(&t1, &a->c1, &b->c1);
    gs_fp6_add(&s, &a->c0, &a->c1);
    gs_fp6_add(&t, &b->c0, &b->c1);
    gs_fp6_mul(&s, &s, &t);
    gs_fp6_sub(&s, &s, &t0);
    gs_fp6_sub(&out->c1, &s, &t1);
    gs_fp6_mul_by_v(&t1, &t1);
    gs_fp6_add(&out->c0, &t0, &t1);
}

/* t = a0 a1; c0 = (a0 + a1)(a0 + v a1) - t - v t, c1 = 2 t */
void gs_fp12_sqr(gs_fp12 *out, const gs_fp12 *a)
{
    gs_fp6 t, s, u, vt;
    gs_fp6_mul(&t, &a->c0, &a->c1);
    gs_fp6_add(&s, &a->c0, &a->c1);
    gs_fp6_mul_by_v(&u, &a->c1);
    gs_fp6_add(&u, &u, &a->c0);
    gs_fp6_mul(&s, &s, &u);
    gs_fp6_sub(&s, &s, &t);
    gs_fp6_mul_by_v(&vt, &t);
    gs_fp6_sub(&out->c0, &s, &vt);
    gs_fp6_add(&out->c1, &t, &t);
}

/* 1 / (a0 + a1 w) = (a0 - a1 w) / (a0^2 - v a1^2) */
void gs_fp12_inv(gs_fp12 *out, const gs_fp12 *a)
{
    gs_fp6 t0, t1;
    gs_fp6_sqr(&t0, &a->c0);
    gs_fp6_sqr(&t1, &a->c1);
    gs_fp6_mul_by_v(&t1, &t1);
    gs_fp6_sub(&t0, &t0, &t1);
    gs_fp6_inv(&t0, &t0);
    gs_fp6_mul(&out->c0, &a->c0, &t0);
    gs_fp6_mul(&t1, &a->c1, &t0);
    gs_fp6_neg(&out->c1, &t1);
}

void gs_fp12_conj(gs_fp12 *out, const gs_fp12 *a)
{
    out->c0 = a->c0;
    gs_fp6_neg(&out->c1, &a->c1);
}

/* a^(p^k) = frob6(c0, k) + frob6(c1, k) * xi^((p^k-1)/6) w; k mod 12. */
void gs_fp12_frobenius(gs_fp12 *out, const gs_fp12 *a, unsigned k)
{
    gs_fp6 c1;
    k %= 12;
    gs_fp6_frobenius(&out->c0, &a->c0, k);
    gs_fp6_frobenius(&c1, &a->c1, k);
    fp2_mul(&out->c1.c0, &c1.c0, &gs_frob12_c[k]);
    fp2_mul(&out->c1.c1, &c1.c1, &gs_frob12_c[k]);
    fp2_mul(&out->c1.c2, &c1.c2, &gs_frob12_c[k]);
}

/*
 * Fixed 4-bit window, left to right (Handbook of Applied Cryptography,
 * algorithm 14.82): 15 table multiplications, then per nibble 4 squarings
 * and at most one multiplication.  Leading zero nibbles are skipped.
 * Branches and table indices depend on the exponent only (public).
 */
void gs_fp12_pow(gs_fp12 *out, const gs_fp12 *a, const uint64_t *e, size_t n)
{
    gs_fp12 tbl[16], acc;
    int started = 0;
    gs_fp12_one(&tbl[0]);
    tbl[1] = *a;
    for (int i = 2; i < 16; i++) gs_fp12_mul(&tbl[i], &tbl[i - 1], a);
    acc = tbl[0];
    for (size_t i = n; i-- > 0;) {
        for (int nib = 15; nib >= 0; nib--) {
            unsigned d = (unsigned)(e[i] >> (4 * nib)) & 15;
            if (started) {
                gs_fp12_sqr(&acc, &acc);
                gs_fp12_sqr(&acc, &acc);
                gs_fp12_sqr(&acc, &acc);
                gs_fp12_sqr(&acc, &acc);
                if (d) gs_fp12_mul(&acc, &acc, &tbl[d]);
            } else if (d) {
                acc = tbl[d];
                started = 1;
            }
        }
    }
    *out = acc;
}

void gs_fp12_random(gs_fp12 *out, gs_rng *rng)
{
    gs_fp6_random(&out->c0, rng);
    gs_fp6_random(&out->c1, rng);
}
