/* Pippenger MSM on G2: the shared template (msm_impl.h) over Fp2 points. */
#include "msm_internal.h"

#define MSM_AFF gs_g2_affine
#define MSM_JAC gs_g2
#define MSM_XYZZ gs_g2_xyzz
#define MSM_G(name) gs_g2_##name
#define MSM_FE gs_fp2
#define MSM_FE_(op) gs_fp2_##op
#define MSM_FE_SUB gs_msm_fp2_sub
#define MSM_BATCH_INV fp2_batch_inv

/*
 * den[i] = 1/den[i] for nonzero den[0..m) in Fp2: 1/(a0 + a1 u) =
 * (a0 - a1 u) / N with N = a0^2 + a1^2 in Fp (u^2 = -1), and the norms are
 * inverted together by Montgomery's trick (Math. Comp. 1987, section
 * 10.3.1): per element 2S + 5M in Fp instead of 9M for the trick over Fp2.
 * scratch[i].c0 holds N_i, scratch[i].c1 the product N_0 ... N_(i-1).
 */
static void fp2_batch_inv(gs_fp2 *den, gs_fp2 *scratch, size_t m)
{
    gs_fp acc, inv, t, ninv;
    gs_fp_one(&acc);
    for (size_t i = 0; i < m; i++) {
        gs_fp_sqr(&scratch[i].c0, &den[i].c0);
        gs_fp_sqr(&t, &den[i].c1);
        gs_fp_add(&scratch[i].c0, &scratch[i].c0, &t);
        if (i == 0) {
            acc = scratch[0].c0;
        } else {
            scratch[i].c1 = acc;
            gs_fp_mul(&acc, &acc, &scratch[i].c0);
        }
    }
    gs_fp_inv_var(&inv, &acc);
    for (size_t i = m; i-- > 0;) {
        if (i > 0) {
            gs_fp_mul(&ninv, &inv, &scratch[i].c1);
            gs_fp_mul(&inv, &inv, &scratch[i].c0);
        } else {
            ninv = inv;
        }
        gs_fp_mul(&den[i].c0, &den[i].c0, &ninv);
        gs_fp_neg(&ninv, &ninv);
        gs_fp_mul(&den[i].c1, &den[i].c1, &ninv);
    }
}

#define MSM_FN gs_msm_g2
#define MSM_FN_CFG gs_msm_g2_cfg
#include "msm_impl.h"
