/*
 * Internal to prover/groth16: fixed-base multiplication tables (setup) and
 * the prover's building blocks shared by the CPU backend, the one-shot
 * prover and the CUDA backend (prover/cuda uses the H-step helpers and the
 * epilogue): keep these signatures stable.
 */
#ifndef GS_G16_INTERNAL_H
#define GS_G16_INTERNAL_H

#include "../poly/poly.h"
#include "groth16.h"

/*
 * Fixed-base comb: tab[i * (2^wbits - 1) + d - 1] = d * 2^(wbits*i) * base
 * (affine), for windows i < nwin = ceil(255 / wbits) and digits d >= 1.
 * k * base is then one mixed addition per non-zero window digit.
 * Variable time (the scalars are setup trapdoor products: setup is INSECURE
 * by contract anyway).
 */
typedef struct { unsigned wbits, nwin; gs_g1_affine *tab; } gs_fb_g1;
typedef struct { unsigned wbits, nwin; gs_g2_affine *tab; } gs_fb_g2;

gs_status gs_fb_g1_init(gs_fb_g1 *t, const gs_g1 *base, unsigned wbits, gs_pool *pool,
                        gs_err *err);
gs_status gs_fb_g2_init(gs_fb_g2 *t, const gs_g2 *base, unsigned wbits, gs_pool *pool,
                        gs_err *err);
void gs_fb_g1_free(gs_fb_g1 *t);
void gs_fb_g2_free(gs_fb_g2 *t);
/* out[i] = k[i] * base (k Montgomery), affine; k[i] = 0 gives infinity.
 * GS_ERR_NOMEM when the per-thread scratch cannot be allocated. */
gs_status gs_fb_g1_mul_many(gs_g1_affine *out, const gs_fb_g1 *t, const gs_fr *k, size_t n,
                            gs_pool *pool, gs_err *err);
gs_status gs_fb_g2_mul_many(gs_g2_affine *out, const gs_fb_g2 *t, const gs_fr *k, size_t n,
                            gs_pool *pool, gs_err *err);

/*
 * H scalars (SNARKJS-FORMATS 7.3), in three steps so each can be timed:
 * a, b, c (values on <w_n>, Montgomery, n = gs_domain_size(d)) -> intt ->
 * coefficient k times w_(2n)^k -> ntt (values on the odd coset), then
 * out[j] = plain(a'[j] b'[j] - c'[j]).  a, b, c are overwritten; out may
 * alias a.
 */
void gs_g16_h_intt(const gs_domain *d, gs_fr *a, gs_fr *b, gs_fr *c, gs_pool *pool);
void gs_g16_h_coset(const gs_domain *d, gs_fr *a, gs_fr *b, gs_fr *c, gs_pool *pool);
void gs_g16_h_ntt_join(gs_scalar *out, const gs_domain *d, gs_fr *a, gs_fr *b, gs_fr *c,
                       gs_pool *pool);

/*
 * H scalars of the classic convention (groth16.h), in the same three steps
 * (gs_g16_h_intt is shared): coefficient k times g^k with g =
 * GS_FR_GENERATOR -> ntt (values on the coset g<w_n>), then
 * p[j] = (a'[j] b'[j] - c'[j]) (g^n - 1)^-1, coset intt of p with g, and
 * out[k] = plain(p_k), the coefficients of (A B - C)/Z (out[n-1] = 0 when
 * A B - C vanishes on <w_n>).  a, b, c are overwritten; out may alias a.
 */
void gs_g16_h_coset_classic(const gs_domain *d, gs_fr *a, gs_fr *b, gs_fr *c, gs_pool *pool);
void gs_g16_h_ntt_join_classic(gs_scalar *out, const gs_domain *d, gs_fr *a, gs_fr *b,
                               gs_fr *c, gs_pool *pool);

/* The results of the G1 half of a proof (projective). */
typedef struct {
    gs_g1 h, l, a, b1;
} gs_g16_g1_part;

/*
 * SNARKJS-FORMATS 7.4 epilogue: from the MSM results and r, s (plain) to
 * the affine proof.
 */
void gs_g16_epilogue(gs_proof *out, const gs_pk *pk, const gs_g16_g1_part *g1,
                     const gs_g2 *b2_msm, const gs_scalar *r, const gs_scalar *s);

#endif
