/*
 * Fp2 = Fp[u]/(u^2 + 1), elements c0 + c1 u (field.h has the contract).
 * Multiplication is Karatsuba with three Fp multiplications, squaring the
 * "complex" method with two (Devegili, O hEigeartaigh, Scott, Dahab,
 * "Multiplication and Squaring on Pairing-Friendly Fields", eprint
 * 2006/471, sections 3 and 3.1).
 */
#include "field.h"

#include "consts.h"
#include "fp_inline.h"
#include "limbs.h"

static const uint64_t P_M3_DIV4[GS_FP_LIMBS] = GS_FPC_P_M3_DIV4;
static const uint64_t P_M1_DIV2[GS_FP_LIMBS] = GS_FPC_P_M1_DIV2;

void gs_fp2_zero(gs_fp2 *out) { memset(out, 0, sizeof *out); }

void gs_fp2_one(gs_fp2 *out)
{
    gs_fp_one(&out->c0);
    gs_fp_zero(&out->c1);
}

int gs_fp2_is_zero(const gs_fp2 *a) { return gs_fp_is_zero(&a->c0) & gs_fp_is_zero(&a->c1); }

int gs_fp2_eq(const gs_fp2 *a, const gs_fp2 *b)
{
    return gs_fp_eq(&a->c0, &b->c0) & gs_fp_eq(&a->c1, &b->c1);
}

void gs_fp2_add(gs_fp2 *out, const gs_fp2 *a, const gs_fp2 *b)
{
    fp2_add(out, a, b);
}

void gs_fp2_sub(gs_fp2 *out, const gs_fp2 *a, const gs_fp2 *b)
{
    fp2_sub(out, a, b);
}

void gs_fp2_neg(gs_fp2 *out, const gs_fp2 *a)
{
    gs_fp_neg(&out->c0, &a->c0);
    gs_fp_neg(&out->c1, &a->c1);
}

void gs_fp2_dbl(gs_fp2 *out, const gs_fp2 *a)
{
    fp2_dbl(out, a);
}

/* (a0 + a1 u)(b0 + b1 u) = (a0 b0 - a1 b1) + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) u */
void gs_fp2_mul(gs_fp2 *out, const gs_fp2 *a, const gs_fp2 *b)
{
    fp2_mul(out, a, b);
}

/* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u */
void gs_fp2_sqr(gs_fp2 *out, const gs_fp2 *a)
{
    fp2_sqr(out, a);
}

void gs_fp2_mul_fp(gs_fp2 *out, const gs_fp2 *a, const gs_fp *b)
{
    fp_mul(&out->c0, &a->c0, b);
    fp_mul(&out->c1, &a->c1, b);
}

/* (a0 + a1 u)(1 + u) = (a0 - a1) + (a0 + a1) u */
void gs_fp2_mul_nr(gs_fp2 *out, const gs_fp2 *a)
{
    fp2_mul_nr(out, a);
}

void gs_fp2_conj(gs_fp2 *out, const gs_fp2 *a)
{
    out->c0 = a->c0;
    gs_fp_neg(&out->c1, &a->c1);
}

void gs_fp2_frobenius(gs_fp2 *out, const gs_fp2 *a) { gs_fp2_conj(out, a); }

/* 1 / (a0 + a1 u) = (a0 - a1 u) / (a0^2 + a1^2); 0 maps to 0. */
void gs_fp2_inv(gs_fp2 *out, const gs_fp2 *a)
{
    gs_fp t0, t1;
    fp2_norm(&t0, a);
    gs_fp_inv(&t0, &t0);
    gs_fp_mul(&out->c0, &a->c0, &t0);
    gs_fp_mul(&t1, &a->c1, &t0);
    gs_fp_neg(&out->c1, &t1);
}

/*
 * 1/(a0 + a1 u) = (a0 - a1 u) / N with N = a0^2 + a1^2 in Fp (u^2 = -1), the
 * norms inverted together by Montgomery's trick: per element 2S + 5M in Fp
 * instead of 9M for the trick over Fp2.  scratch[i].c0 holds N_i,
 * scratch[i].c1 the product N_0 ... N_(i-1).
 */
void gs_fp2_batch_inv_nonzero_var(gs_fp2 *a, gs_fp2 *scratch, size_t n)
{
    gs_fp acc, inv, ninv;
    if (n == 0)
        return;
    gs_fp_one(&acc);
    for (size_t i = 0; i < n; i++) {
        fp2_norm(&scratch[i].c0, &a[i]);
        if (i == 0) {
            acc = scratch[0].c0;
        } else {
            scratch[i].c1 = acc;
            gs_fp_mul(&acc, &acc, &scratch[i].c0);
        }
    }
    gs_fp_inv_var(&inv, &acc);
    for (size_t i = n; i-- > 0;) {
        if (i > 0) {
            gs_fp_mul(&ninv, &inv, &scratch[i].c1);
            gs_fp_mul(&inv, &inv, &scratch[i].c0);
        } else {
            ninv = inv;
        }
        gs_fp_mul(&a[i].c0, &a[i].c0, &ninv);
        gs_fp_neg(&ninv, &ninv);
        gs_fp_mul(&a[i].c1, &a[i].c1, &ninv);
    }
}

/*
 * Fixed 4-bit window, left to right (Handbook of Applied Cryptography,
 * algorithm 14.82): 15 table multiplications, then per nibble 4 squarings
 * and at most one multiplication.  Leading zero nibbles are skipped.
 * Branches and table indices depend on the exponent only (public).
 */
void gs_fp2_pow(gs_fp2 *out, const gs_fp2 *a, const uint64_t *e, size_t n)
{
    gs_fp2 tbl[16], acc;
    int started = 0;
    gs_fp2_one(&tbl[0]);
    tbl[1] = *a;
    for (int i = 2; i < 16; i++) fp2_mul(&tbl[i], &tbl[i - 1], a);
    acc = tbl[0];
    for (size_t i = n; i-- > 0;) {
        for (int nib = 15; nib >= 0; nib--) {
            unsigned d = (unsigned)(e[i] >> (4 * nib)) & 15;
            if (started) {
                fp2_sqr(&acc, &acc);
                fp2_sqr(&acc, &acc);
                fp2_sqr(&acc, &acc);
                fp2_sqr(&acc, &acc);
                if (d) fp2_mul(&acc, &acc, &tbl[d]);
            } else if (d) {
                acc = tbl[d];
                started = 1;
            }
        }
    }
    *out = acc;
}

/*
 * Square root for q = p = 3 mod 4: Adj and Rodriguez-Henriquez, "Square
 * root computation over even extension fields", eprint 2012/685,
 * algorithm 9.  The result is checked by squaring, so a non-square (or a
 * failure of the algorithm) returns 0 with out untouched.
 */
int gs_fp2_sqrt(gs_fp2 *out, const gs_fp2 *a)
{
    gs_fp2 a1, alpha, a0, x0, x, t, minus_one;
    gs_fp2_one(&minus_one);
    gs_fp2_neg(&minus_one, &minus_one);

    gs_fp2_pow(&a1, a, P_M3_DIV4, GS_FP_LIMBS);     /* a1 = a^((p-3)/4) */
    gs_fp2_sqr(&alpha, &a1);
    gs_fp2_mul(&alpha, &alpha, a);                  /* alpha = a1^2 a */
    gs_fp2_conj(&a0, &alpha);
    gs_fp2_mul(&a0, &a0, &alpha);                   /* a0 = alpha^(p+1) */
    if (gs_fp2_eq(&a0, &minus_one)) return 0;
    gs_fp2_mul(&x0, &a1, a);                        /* x0 = a1 a */
    if (gs_fp2_eq(&alpha, &minus_one)) {
        /* x = u x0 */
        gs_fp_neg(&x.c0, &x0.c1);
        x.c1 = x0.c0;
    } else {
        gs_fp2 b;
        gs_fp2_one(&b);
        gs_fp2_add(&b, &b, &alpha);
        gs_fp2_pow(&b, &b, P_M1_DIV2, GS_FP_LIMBS); /* b = (1 + alpha)^((p-1)/2) */
        gs_fp2_mul(&x, &b, &x0);
    }
    gs_fp2_sqr(&t, &x);
    if (!gs_fp2_eq(&t, a)) return 0;
    *out = x;
    return 1;
}

int gs_fp2_is_lexlargest(const gs_fp2 *a)
{
    if (!gs_fp_is_zero(&a->c1)) return gs_fp_is_lexlargest(&a->c1);
    return gs_fp_is_lexlargest(&a->c0);
}

void gs_fp2_random(gs_fp2 *out, gs_rng *rng)
{
    gs_fp_random(&out->c0, rng);
    gs_fp_random(&out->c1, rng);
}
