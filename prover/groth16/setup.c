/*
 * INSECURE setup from known trapdoors (tests, native circuits): the keys
 * snarkjs's `groth16 setup` + contributions would produce for the same R1CS
 * and the same tau, alpha, beta, delta (SNARKJS-FORMATS 6.2-6.5):
 *
 *   QAP rows: the constraints, then one row per public wire i = 0..nPublic
 *   with A = w_i (B = C = 0); n = smallest power of two > nCons + nPublic;
 *   u_j(tau) = sum_row A[row][j] L_row(tau), v_j from B, w_j from C;
 *   A_j = u_j G1, B1_j = v_j G1, B2_j = v_j G2,
 *   IC_j  = (beta u_j + alpha v_j + w_j) G1          for j <= nPublic (gamma = 1),
 *   C_j   = (beta u_j + alpha v_j + w_j)/delta G1    for j >  nPublic,
 *   H_k   = L_(2k+1)^(2n)(tau)/delta G1,  k < n      (odd-coset Lagrange points),
 *           or tau^k Z(tau)/delta G1 for a classic key (groth16.h).
 *
 * The Lagrange values come from gs_lagrange_eval (closed form, batch
 * inversion) and the points from fixed-base combs, so setup costs a few
 * dozen mixed additions per point.
 */
#include <stdlib.h>
#include <string.h>

#include "g16_internal.h"

void gs_toxic_draw(gs_toxic *out, gs_rng *rng, uint32_t log_domain)
{
    gs_fr *v[4] = { &out->tau, &out->alpha, &out->beta, &out->delta };
    for (int i = 0; i < 4; i++)
        do
            gs_fr_random(v[i], rng);
        while (gs_fr_is_zero(v[i]));
    /* tau must avoid the 2n-th roots of unity (n = 2^log_domain). */
    for (;;) {
        gs_fr t = out->tau;
        for (uint32_t k = 0; k <= log_domain; k++)
            gs_fr_sqr(&t, &t);
        if (!gs_fr_is_one(&t))
            break;
        gs_fr_random(&out->tau, rng);
    }
}

static int toxic_ok(const gs_toxic *t, uint32_t log_domain)
{
    if (gs_fr_is_zero(&t->alpha) || gs_fr_is_zero(&t->beta) || gs_fr_is_zero(&t->delta))
        return 0;
    gs_fr x = t->tau;
    for (uint32_t k = 0; k <= log_domain; k++)
        gs_fr_sqr(&x, &x);
    return !gs_fr_is_one(&x);
}

/* acc[term.wire] += term.coeff * lag for every term of rows [0, n_rows). */
static void accumulate(gs_fr *acc, const uint64_t *start, const gs_lc_term *terms,
                       uint32_t n_rows, const gs_fr *lag)
{
    for (uint32_t i = 0; i < n_rows; i++)
        for (uint64_t k = start[i]; k < start[i + 1]; k++) {
            gs_fr t;
            gs_fr_mul(&t, &terms[k].coeff, &lag[i]);
            gs_fr_add(&acc[terms[k].wire], &acc[terms[k].wire], &t);
        }
}

static gs_status build_coefs(gs_pk *pk, const gs_r1cs *r, gs_err *err)
{
    uint32_t np = pk->n_public;
    size_t n = (size_t)r->a_start[r->n_constraints] + r->b_start[r->n_constraints] + np + 1;
    pk->coefs = malloc(n * sizeof *pk->coefs);
    if (!pk->coefs)
        return GS_ERR(err, GS_ERR_NOMEM, "setup", "%zu coefficients", n);
    size_t m = 0;
    for (uint32_t i = 0; i < r->n_constraints; i++) {
        for (uint64_t k = r->a_start[i]; k < r->a_start[i + 1]; k++)
            pk->coefs[m++] = (struct gs_coef){ 0, i, r->a_terms[k].wire, r->a_terms[k].coeff };
        for (uint64_t k = r->b_start[i]; k < r->b_start[i + 1]; k++)
            pk->coefs[m++] = (struct gs_coef){ 1, i, r->b_terms[k].wire, r->b_terms[k].coeff };
    }
    for (uint32_t j = 0; j <= np; j++) {
        pk->coefs[m] = (struct gs_coef){ 0, r->n_constraints + j, j, { { 0 } } };
        gs_fr_one(&pk->coefs[m++].value);
    }
    pk->n_coefs = m;
    return GS_OK;
}

gs_status gs_groth16_setup(gs_pk *pk, gs_vk *vk, const gs_r1cs *r1cs,
                           const gs_toxic *tox, gs_pool *pool, gs_err *err)
{
    return gs_groth16_setup_conv(pk, vk, r1cs, tox, GS_H_SNARKJS, pool, err);
}

gs_status gs_groth16_setup_conv(gs_pk *pk, gs_vk *vk, const gs_r1cs *r1cs,
                                const gs_toxic *tox, gs_h_convention conv, gs_pool *pool,
                                gs_err *err)
{
    memset(pk, 0, sizeof *pk);
    memset(vk, 0, sizeof *vk);
    gs_fr *lag = NULL, *lag2 = NULL, *u = NULL, *v = NULL, *w = NULL, *sc = NULL;
    gs_fb_g1 fb1 = { 0 };
    gs_fb_g2 fb2 = { 0 };
    if ((unsigned)conv >= GS_H_CONV_COUNT)
        return GS_ERR(err, GS_ERR_ARG, "setup", "H convention %d out of range", (int)conv);
    gs_status st = gs_r1cs_validate(r1cs, err);
    if (st != GS_OK)
        return st;
    uint32_t np = gs_r1cs_n_public(r1cs), nv = r1cs->n_wires;
    uint32_t log = gs_groth16_log_domain(r1cs->n_constraints, np);
    if (log == 0)
        return GS_ERR(err, GS_ERR_RANGE, "setup", "%u constraints + %u public need a domain "
                      "beyond 2^28", r1cs->n_constraints, np);
    if (!toxic_ok(tox, log))
        return GS_ERR(err, GS_ERR_ARG, "setup", "trapdoor: zero alpha/beta/delta or tau a "
                      "2^%u-th root of unity", log + 1);
    size_t n = (size_t)1 << log;
    pk->n_vars = nv;
    pk->n_public = np;
    pk->domain_size = (uint32_t)n;
    pk->log_domain = log;
    pk->h_conv = conv;

    lag = malloc(n * sizeof *lag);
    lag2 = conv == GS_H_SNARKJS ? malloc(2 * n * sizeof *lag2) : NULL;
    u = calloc(nv, sizeof *u);
    v = calloc(nv, sizeof *v);
    w = calloc(nv, sizeof *w);
    sc = malloc((nv > n ? nv : n) * sizeof *sc);
    pk->ic = malloc(((size_t)np + 1) * sizeof *pk->ic);
    pk->a = malloc((size_t)nv * sizeof *pk->a);
    pk->b1 = malloc((size_t)nv * sizeof *pk->b1);
    pk->b2 = malloc((size_t)nv * sizeof *pk->b2);
    pk->c = malloc(((size_t)nv - np - 1 + 1) * sizeof *pk->c);
    pk->h = malloc(n * sizeof *pk->h);
    if (!lag || (conv == GS_H_SNARKJS && !lag2) || !u || !v || !w || !sc || !pk->ic || !pk->a || !pk->b1 || !pk->b2 ||
        !pk->c || !pk->h) {
        st = GS_ERR(err, GS_ERR_NOMEM, "setup", "keys for %u wires, domain 2^%u", nv, log);
        goto fail;
    }

    /* QAP polynomials at tau. */
    gs_lagrange_eval(lag, log, &tox->tau, pool);
    accumulate(u, r1cs->a_start, r1cs->a_terms, r1cs->n_constraints, lag);
    accumulate(v, r1cs->b_start, r1cs->b_terms, r1cs->n_constraints, lag);
    accumulate(w, r1cs->c_start, r1cs->c_terms, r1cs->n_constraints, lag);
    for (uint32_t j = 0; j <= np; j++)   /* public-input rows */
        gs_fr_add(&u[j], &u[j], &lag[r1cs->n_constraints + j]);

    /* Comb window: a table of ceil(255/w) (2^w - 1) points per group costs
     * about that many additions to build and saves additions on every
     * point (255/w each); wider windows pay off as the key grows. */
    size_t n_points = 4 * (size_t)nv + n;
    unsigned wbits = n_points > (1u << 19) ? 12 : n_points > (1u << 15) ? 10
                   : n_points > 2048 ? 8 : 4;
    gs_g1 g1;
    gs_g2 g2;
    gs_g1_generator(&g1);
    gs_g2_generator(&g2);
    if ((st = gs_fb_g1_init(&fb1, &g1, wbits, pool, err)) != GS_OK ||
        (st = gs_fb_g2_init(&fb2, &g2, wbits, pool, err)) != GS_OK)
        goto fail;

    if ((st = gs_fb_g1_mul_many(pk->a, &fb1, u, nv, pool, err)) != GS_OK ||
        (st = gs_fb_g1_mul_many(pk->b1, &fb1, v, nv, pool, err)) != GS_OK ||
        (st = gs_fb_g2_mul_many(pk->b2, &fb2, v, nv, pool, err)) != GS_OK)
        goto fail;

    gs_fr dinv;
    gs_fr_inv(&dinv, &tox->delta);
    for (uint32_t j = 0; j < nv; j++) {
        gs_fr t1, t2;
        gs_fr_mul(&t1, &tox->beta, &u[j]);
        gs_fr_mul(&t2, &tox->alpha, &v[j]);
        gs_fr_add(&t1, &t1, &t2);
        gs_fr_add(&sc[j], &t1, &w[j]);
        if (j > np)
            gs_fr_mul(&sc[j], &sc[j], &dinv);
    }
    if ((st = gs_fb_g1_mul_many(pk->ic, &fb1, sc, (size_t)np + 1, pool, err)) != GS_OK ||
        (st = gs_fb_g1_mul_many(pk->c, &fb1, sc + np + 1, (size_t)nv - np - 1, pool,
                                err)) != GS_OK)
        goto fail;

    if (conv == GS_H_SNARKJS) {
        /* H: odd-indexed Lagrange values of the 2n-domain, over delta. */
        gs_lagrange_eval(lag2, log + 1, &tox->tau, pool);
        for (size_t k = 0; k < n; k++)
            gs_fr_mul(&sc[k], &lag2[2 * k + 1], &dinv);
    } else {
        /* Classic H: tau^k Z(tau) / delta with Z(tau) = tau^n - 1 (nonzero:
         * tau is no 2n-th root of unity). */
        gs_fr one;
        uint64_t e = n;
        gs_fr_one(&one);
        gs_fr_pow(&sc[0], &tox->tau, &e, 1);
        gs_fr_sub(&sc[0], &sc[0], &one);
        gs_fr_mul(&sc[0], &sc[0], &dinv);
        for (size_t k = 1; k < n; k++)
            gs_fr_mul(&sc[k], &sc[k - 1], &tox->tau);
    }
    if ((st = gs_fb_g1_mul_many(pk->h, &fb1, sc, n, pool, err)) != GS_OK)
        goto fail;

    /* Header points. */
    gs_fr hdr1[3] = { tox->alpha, tox->beta, tox->delta };
    gs_g1_affine p1[3];
    if ((st = gs_fb_g1_mul_many(p1, &fb1, hdr1, 3, pool, err)) != GS_OK)
        goto fail;
    pk->alpha1 = p1[0];
    pk->beta1 = p1[1];
    pk->delta1 = p1[2];
    gs_fr hdr2[2] = { tox->beta, tox->delta };
    gs_g2_affine p2[2];
    if ((st = gs_fb_g2_mul_many(p2, &fb2, hdr2, 2, pool, err)) != GS_OK)
        goto fail;
    pk->beta2 = p2[0];
    pk->delta2 = p2[1];
    gs_g2_affine_generator(&pk->gamma2);

    if ((st = build_coefs(pk, r1cs, err)) != GS_OK ||
        (st = gs_vk_from_pk(vk, pk, err)) != GS_OK)
        goto fail;
    st = GS_OK;
    goto done;
fail:
    gs_pk_free(pk);
    gs_vk_free(vk);
done:
    gs_fb_g1_free(&fb1);
    gs_fb_g2_free(&fb2);
    free(lag);
    free(lag2);
    free(u);
    free(v);
    free(w);
    free(sc);
    return st;
}

gs_status gs_groth16_setup_seeded(gs_pk *pk, gs_vk *vk, const gs_r1cs *r1cs,
                                  uint64_t seed, gs_pool *pool, gs_err *err)
{
    return gs_groth16_setup_seeded_conv(pk, vk, r1cs, seed, GS_H_SNARKJS, pool, err);
}

gs_status gs_groth16_setup_seeded_conv(gs_pk *pk, gs_vk *vk, const gs_r1cs *r1cs,
                                       uint64_t seed, gs_h_convention conv, gs_pool *pool,
                                       gs_err *err)
{
    gs_rng rng;
    gs_rng_seed(&rng, seed);
    gs_toxic tox;
    uint32_t log = gs_groth16_log_domain(r1cs->n_constraints, gs_r1cs_n_public(r1cs));
    gs_toxic_draw(&tox, &rng, log);
    gs_status st = gs_groth16_setup_conv(pk, vk, r1cs, &tox, conv, pool, err);
    memset(&tox, 0, sizeof tox);
    return st;
}
