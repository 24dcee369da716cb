/*
 * The two pieces of a Groth16 proof that do not depend on where the MSMs
 * run: the H scalars (odd-coset evaluation of A*B - C, or for classic keys
 * the coefficients of (A*B - C)/Z) and the blinding epilogue.  Both follow
 * snarkjs exactly (SNARKJS-FORMATS 7.3, 7.4), so a proof with r = s = 0
 * equals snarkjs's zero-blinding proof; a classic key gives the same proof
 * (same H_msm, groth16.h).
 */
#include "g16_internal.h"

typedef struct {
    gs_scalar *out;
    const gs_fr *a, *b, *c;
    gs_fr zinv;          /* classic: (g^n - 1)^-1 */
    gs_fr *p;            /* classic: where (a b - c) zinv goes (Montgomery) */
} join_ctx;

/* t = a'[j] b'[j] - c'[j]; snarkjs: out[j] = t out of Montgomery (qap_joinABC +
 * fromMontgomery); classic (p set): p[j] = t zinv, kept Montgomery. */
static void join_chunk(void *vctx, size_t begin, size_t end, unsigned slot)
{
    (void)slot;
    join_ctx *j = vctx;
    for (size_t i = begin; i < end; i++) {
        gs_fr t;
        gs_fr_mul(&t, &j->a[i], &j->b[i]);
        gs_fr_sub(&t, &t, &j->c[i]);
        if (j->p)
            gs_fr_mul(&j->p[i], &t, &j->zinv);
        else
            gs_fr_to_scalar(&j->out[i], &t);
    }
}

/* out[i] = plain(p[i]); out may alias p. */
static void plain_chunk(void *vctx, size_t begin, size_t end, unsigned slot)
{
    (void)slot;
    join_ctx *j = vctx;
    for (size_t i = begin; i < end; i++) {
        gs_fr t = j->p[i];
        gs_fr_to_scalar(&j->out[i], &t);
    }
}

static void classic_shift(gs_fr *g)
{
    gs_fr_set_u64(g, GS_FR_GENERATOR);
}

void gs_g16_h_intt(const gs_domain *d, gs_fr *a, gs_fr *b, gs_fr *c, gs_pool *pool)
{
    gs_domain_intt(d, a, pool);
    gs_domain_intt(d, b, pool);
    gs_domain_intt(d, c, pool);
}

void gs_g16_h_coset(const gs_domain *d, gs_fr *a, gs_fr *b, gs_fr *c, gs_pool *pool)
{
    /* Coefficient k times w_(2n)^k: p(X) -> p(w_(2n) X). */
    size_t n = gs_domain_size(d);
    const gs_fr *g = gs_domain_odd_shift(d);
    gs_poly_mul_powers(a, n, g, pool);
    gs_poly_mul_powers(b, n, g, pool);
    gs_poly_mul_powers(c, n, g, pool);
}

void gs_g16_h_ntt_join(gs_scalar *out, const gs_domain *d, gs_fr *a, gs_fr *b, gs_fr *c,
                       gs_pool *pool)
{
    gs_domain_ntt(d, a, pool);
    gs_domain_ntt(d, b, pool);
    gs_domain_ntt(d, c, pool);
    join_ctx j = { .out = out, .a = a, .b = b, .c = c };
    gs_pool_for(pool, gs_domain_size(d), 0, join_chunk, &j);
}

void gs_g16_h_coset_classic(const gs_domain *d, gs_fr *a, gs_fr *b, gs_fr *c, gs_pool *pool)
{
    /* Coefficient k times g^k: p(X) -> p(g X), ready for the NTT that
     * evaluates on g<w_n>. */
    size_t n = gs_domain_size(d);
    gs_fr g;
    classic_shift(&g);
    gs_poly_mul_powers(a, n, &g, pool);
    gs_poly_mul_powers(b, n, &g, pool);
    gs_poly_mul_powers(c, n, &g, pool);
}

void gs_g16_h_ntt_join_classic(gs_scalar *out, const gs_domain *d, gs_fr *a, gs_fr *b,
                               gs_fr *c, gs_pool *pool)
{
    size_t n = gs_domain_size(d);
    gs_fr g, one;
    uint64_t e = n;
    gs_domain_ntt(d, a, pool);
    gs_domain_ntt(d, b, pool);
    gs_domain_ntt(d, c, pool);
    /* Z(g w^j) = g^n w^(jn) - 1 = g^n - 1 for every j: one inverse. */
    join_ctx j = { .out = out, .a = a, .b = b, .c = c, .p = a };
    classic_shift(&g);
    gs_fr_one(&one);
    gs_fr_pow(&j.zinv, &g, &e, 1);
    gs_fr_sub(&j.zinv, &j.zinv, &one);
    gs_fr_inv(&j.zinv, &j.zinv);
    gs_pool_for(pool, n, 0, join_chunk, &j);
    /* Values of the quotient on g<w_n> -> its coefficients. */
    gs_domain_coset_intt(d, a, &g, pool);
    gs_pool_for(pool, n, 0, plain_chunk, &j);
}

void gs_g16_epilogue(gs_proof *out, const gs_pk *pk, const gs_g16_g1_part *g1,
                     const gs_g2 *b2_msm, const gs_scalar *r, const gs_scalar *s)
{
    gs_g1 delta1, t, pa, b1, pc;
    gs_g2 delta2, pb, t2;
    gs_g1_from_affine(&delta1, &pk->delta1);
    gs_g2_from_affine(&delta2, &pk->delta2);

    /* pi_a = alpha_1 + A_msm + r delta_1 */
    gs_g1_add_affine(&pa, &g1->a, &pk->alpha1);
    gs_g1_mul(&t, &delta1, r);
    gs_g1_add(&pa, &pa, &t);

    /* pi_b = beta_2 + B2_msm + s delta_2 */
    gs_g2_add_affine(&pb, b2_msm, &pk->beta2);
    gs_g2_mul(&t2, &delta2, s);
    gs_g2_add(&pb, &pb, &t2);

    /* b1 = beta_1 + B1_msm + s delta_1 */
    gs_g1_add_affine(&b1, &g1->b1, &pk->beta1);
    gs_g1_mul(&t, &delta1, s);
    gs_g1_add(&b1, &b1, &t);

    /* pi_c = C_msm + H_msm + s pi_a + r b1 - (r s) delta_1 */
    gs_g1_add(&pc, &g1->l, &g1->h);
    gs_g1_mul(&t, &pa, s);
    gs_g1_add(&pc, &pc, &t);
    gs_g1_mul(&t, &b1, r);
    gs_g1_add(&pc, &pc, &t);
    gs_fr rf, sf;
    gs_scalar rs;
    gs_fr_from_scalar(&rf, r);
    gs_fr_from_scalar(&sf, s);
    gs_fr_mul(&rf, &rf, &sf);
    gs_fr_to_scalar(&rs, &rf);
    gs_g1_mul(&t, &delta1, &rs);
    gs_g1_neg(&t, &t);
    gs_g1_add(&pc, &pc, &t);

    gs_g1_to_affine(&out->a, &pa);
    gs_g2_to_affine(&out->b, &pb);
    gs_g1_to_affine(&out->c, &pc);
}
