/*
 * Test helpers for prover/groth16 (included by its test files and the
 * circuits layer's): random blinding, prove-and-verify, random satisfiable
 * R1CS instances with a known witness.
 */
#ifndef GS_TEST_G16_UTIL_H
#define GS_TEST_G16_UTIL_H

#include <stdlib.h>
#include <string.h>

#include "../../test/test.h"
#include "groth16.h"

/* A random scalar below r (a plain integer, as the prover's blinding). */
static inline void tg_random_scalar(gs_scalar *out, gs_rng *rng)
{
    gs_fr t;
    gs_fr_random(&t, rng);
    gs_fr_to_scalar(out, &t);
}

/* *p = a proof of as under pk with random blinding r, s (drawn in that
 * order from the test's generator) on 2 threads, checked against vk and
 * the instance's public inputs.  1 when it proves and verifies; otherwise
 * the test fails with the error. */
static inline int tg_prove_verify(gs_proof *p, const gs_pk *pk, const gs_vk *vk,
                                  const gs_assignment *as, gs_err *e)
{
    gs_scalar r, s;
    tg_random_scalar(&r, gs_test_rng());
    tg_random_scalar(&s, gs_test_rng());
    gs_err_clear(e);
    gs_status st = gs_groth16_prove(p, pk, as, &r, &s, 2, e);
    if (st == GS_OK)
        st = gs_groth16_verify(vk, as->w + 1, vk->n_public, p, e);
    if (st != GS_OK)
        gs_test_fail(__FILE__, __LINE__, "prove and verify: %s", e->msg);
    return st == GS_OK;
}

/* A random LC of up to max_terms terms over wires [0, n_wires) (repeats allowed). */
static inline uint32_t tg_random_lc(gs_lc_term *t, uint32_t max_terms, uint32_t n_wires,
                                    gs_rng *rng)
{
    uint32_t n = 1 + (uint32_t)gs_rng_below(rng, max_terms);
    for (uint32_t k = 0; k < n; k++) {
        t[k].wire = (uint32_t)gs_rng_below(rng, n_wires);
        gs_fr_random(&t[k].coeff, rng);
    }
    return n;
}

/*
 * Random R1CS with n_cons constraints over n_wires wires (n_pub public),
 * satisfied by *w_out (plain, allocated).  Values are random; each
 * constraint draws random A and B, and a C whose last term is solved for so
 * that <A,w><B,w> = <C,w>.  Wires in [n_wires - n_unused, n_wires) occur
 * nowhere (infinity points in the key).
 */
static inline int tg_random_r1cs(gs_r1cs *r, gs_scalar **w_out, uint32_t n_cons,
                                 uint32_t n_wires, uint32_t n_pub, uint32_t n_unused,
                                 gs_rng *rng)
{
    enum { MAXT = 4 };
    memset(r, 0, sizeof *r);
    uint32_t used = n_wires - n_unused;
    gs_fr *wm = malloc(n_wires * sizeof *wm);
    *w_out = malloc(n_wires * sizeof **w_out);
    r->a_start = calloc(n_cons + 1, sizeof(uint64_t));
    r->b_start = calloc(n_cons + 1, sizeof(uint64_t));
    r->c_start = calloc(n_cons + 1, sizeof(uint64_t));
    r->a_terms = malloc((size_t)n_cons * MAXT * sizeof(gs_lc_term) + 1);
    r->b_terms = malloc((size_t)n_cons * MAXT * sizeof(gs_lc_term) + 1);
    r->c_terms = malloc((size_t)n_cons * MAXT * sizeof(gs_lc_term) + 1);
    if (!wm || !*w_out || !r->a_start || !r->b_start || !r->c_start || !r->a_terms ||
        !r->b_terms || !r->c_terms) {
        free(wm);
        return 0;
    }
    gs_fr_one(&wm[0]);
    for (uint32_t j = 1; j < n_wires; j++)
        do
            gs_fr_random(&wm[j], rng);
        while (gs_fr_is_zero(&wm[j]));
    r->n_wires = n_wires;
    r->n_pub_in = n_pub;
    r->n_constraints = n_cons;
    uint64_t na = 0, nb = 0, nc = 0;
    for (uint32_t i = 0; i < n_cons; i++) {
        na += tg_random_lc(r->a_terms + na, MAXT, used, rng);
        nb += tg_random_lc(r->b_terms + nb, MAXT, used, rng);
        uint32_t m = tg_random_lc(r->c_terms + nc, MAXT, used, rng);
        r->a_start[i + 1] = na;
        r->b_start[i + 1] = nb;
        gs_lc_term *ct = r->c_terms + nc;
        /* Solve the last C coefficient: k = (ab - rest) / w[last]. */
        gs_fr a, b, ab, rest, t;
        gs_fr_zero(&a);
        gs_fr_zero(&b);
        gs_fr_zero(&rest);
        for (uint64_t k = r->a_start[i]; k < na; k++) {
            gs_fr_mul(&t, &r->a_terms[k].coeff, &wm[r->a_terms[k].wire]);
            gs_fr_add(&a, &a, &t);
        }
        for (uint64_t k = r->b_start[i]; k < nb; k++) {
            gs_fr_mul(&t, &r->b_terms[k].coeff, &wm[r->b_terms[k].wire]);
            gs_fr_add(&b, &b, &t);
        }
        gs_fr_mul(&ab, &a, &b);
        for (uint32_t k = 0; k + 1 < m; k++)
            if (ct[k].wire == ct[m - 1].wire)
                ct[k].wire = 0;   /* keep the solved wire's term unique */
        for (uint32_t k = 0; k + 1 < m; k++) {
            gs_fr_mul(&t, &ct[k].coeff, &wm[ct[k].wire]);
            gs_fr_add(&rest, &rest, &t);
        }
        gs_fr_sub(&t, &ab, &rest);
        gs_fr inv;
        gs_fr_inv(&inv, &wm[ct[m - 1].wire]);
        gs_fr_mul(&ct[m - 1].coeff, &t, &inv);
        nc += m;
        r->c_start[i + 1] = nc;
    }
    for (uint32_t j = 0; j < n_wires; j++)
        gs_fr_to_scalar(&(*w_out)[j], &wm[j]);
    free(wm);
    return 1;
}

/* coef[k] = (1/n) sum_j v[j] w_n^(-jk): schoolbook interpolation on <w_n>. */
static inline void tg_naive_interpolate(gs_fr *coef, const gs_fr *v, uint32_t log)
{
    uint32_t n = 1u << log;
    gs_fr w, winv, ninv, t;
    gs_fr_root_of_unity(&w, log);
    gs_fr_inv(&winv, &w);
    gs_fr_set_u64(&ninv, n);
    gs_fr_inv(&ninv, &ninv);
    for (uint32_t k = 0; k < n; k++) {
        gs_fr acc, step, pw;
        uint64_t e = k;
        gs_fr_pow(&step, &winv, &e, 1);
        gs_fr_zero(&acc);
        gs_fr_one(&pw);
        for (uint32_t j = 0; j < n; j++) {
            gs_fr_mul(&t, &v[j], &pw);
            gs_fr_add(&acc, &acc, &t);
            gs_fr_mul(&pw, &pw, &step);
        }
        gs_fr_mul(&coef[k], &acc, &ninv);
    }
}

/*
 * The oracle: quotient h (n coefficients) of A*B - C by X^n - 1, from the
 * values a, b, c on <w_n>; returns 1 when the remainder is zero.
 */
static inline int tg_naive_quotient(gs_fr *h, const gs_fr *a, const gs_fr *b, const gs_fr *c,
                                    uint32_t log)
{
    uint32_t n = 1u << log;
    gs_fr *ca = calloc(n, sizeof *ca), *cb = calloc(n, sizeof *cb), *cc = calloc(n, sizeof *cc);
    gs_fr *prod = calloc(2 * (size_t)n, sizeof *prod), t;
    tg_naive_interpolate(ca, a, log);
    tg_naive_interpolate(cb, b, log);
    tg_naive_interpolate(cc, c, log);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < n; j++) {
            gs_fr_mul(&t, &ca[i], &cb[j]);
            gs_fr_add(&prod[i + j], &prod[i + j], &t);
        }
    for (uint32_t i = 0; i < n; i++)
        gs_fr_sub(&prod[i], &prod[i], &cc[i]);
    /* Long division by X^n - 1, highest term first: X^k = X^(k-n) (X^n - 1) + X^(k-n). */
    for (uint32_t k = 2 * n - 1; k >= n; k--) {
        h[k - n] = prod[k];
        gs_fr_add(&prod[k - n], &prod[k - n], &prod[k]);
        gs_fr_zero(&prod[k]);
    }
    int zero_rem = 1;
    for (uint32_t i = 0; i < n; i++)
        zero_rem &= gs_fr_is_zero(&prod[i]);
    free(ca);
    free(cb);
    free(cc);
    free(prod);
    return zero_rem;
}

#endif
