/*
 * Groth16 verification with one multi-pairing (SNARKJS-FORMATS 9):
 *
 *   e(-pi_a, pi_b) e(cpub, gamma_2) e(pi_c, delta_2) e(alpha_1, beta_2) == 1,
 *   cpub = IC_0 + sum_i pub_i IC_(i+1).
 *
 * Stricter than snarkjs in two ways, both harmless for honest proofs: the
 * number of public inputs must equal the key's, and the proof points must
 * lie in the prime-order subgroups (snarkjs checks only the curve equation,
 * which on BLS12-381 admits small-order components).  The verifying key is
 * trusted (its reader checks it).
 */
#include <stdlib.h>

#include "../msm/msm.h"
#include "../pairing/pairing.h"
#include "groth16.h"

gs_status gs_groth16_verify(const gs_vk *vk, const gs_scalar *pub, size_t n_pub,
                            const gs_proof *proof, gs_err *err)
{
    if (n_pub != vk->n_public)
        return GS_ERR(err, GS_ERR_MISMATCH, "public inputs",
                      "%zu values, verifying key expects %u", n_pub, vk->n_public);
    gs_fr tmp;
    for (size_t i = 0; i < n_pub; i++)
        if (!gs_fr_from_scalar(&tmp, &pub[i]))
            return GS_ERR(err, GS_ERR_RANGE, "public inputs", "value %zu is >= r", i);
    if (!gs_g1_affine_is_on_curve(&proof->a) || !gs_g1_affine_in_subgroup(&proof->a))
        return GS_ERR(err, GS_ERR_POINT, "proof", "pi_a is not a point of G1");
    if (!gs_g2_affine_is_on_curve(&proof->b) || !gs_g2_affine_in_subgroup(&proof->b))
        return GS_ERR(err, GS_ERR_POINT, "proof", "pi_b is not a point of G2");
    if (!gs_g1_affine_is_on_curve(&proof->c) || !gs_g1_affine_in_subgroup(&proof->c))
        return GS_ERR(err, GS_ERR_POINT, "proof", "pi_c is not a point of G1");

    /* cpub = IC_0 + sum_i pub_i IC_(i+1): one MSM (PoSt-shaped circuits have
     * hundreds of public inputs). */
    gs_g1 cpub;
    if (gs_msm_g1(&cpub, vk->ic + 1, pub, n_pub, NULL) != GS_OK)
        return GS_ERR(err, GS_ERR_NOMEM, "verify", "MSM scratch for %zu inputs", n_pub);
    gs_g1_add_affine(&cpub, &cpub, &vk->ic[0]);
    gs_g1_affine p[4];
    gs_g2_affine q[4];
    gs_g1_affine_neg(&p[0], &proof->a);
    q[0] = proof->b;
    gs_g1_to_affine(&p[1], &cpub);
    q[1] = vk->gamma2;
    p[2] = proof->c;
    q[2] = vk->delta2;
    p[3] = vk->alpha1;
    q[3] = vk->beta2;
    if (!gs_pairing_product_is_one(p, q, 4))
        return GS_ERR(err, GS_ERR_VERIFY, "proof", "pairing check failed");
    return GS_OK;
}
