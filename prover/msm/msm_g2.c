/* Pippenger MSM on G2: the shared template (msm_impl.h) over Fp2 points. */
#include "msm_internal.h"

#define MSM_AFF gs_g2_affine
#define MSM_JAC gs_g2
#define MSM_XYZZ gs_g2_xyzz
#define MSM_G(name) gs_g2_##name
#define MSM_FE gs_fp2
#define MSM_FE_(op) gs_fp2_##op
#define MSM_FE_INV fp2_inv_var
#define MSM_FE_SUB gs_msm_fp2_sub

/* 1/(a0 + a1 u) = (a0 - a1 u) / (a0^2 + a1^2) (u^2 = -1), variable time. */
static void fp2_inv_var(gs_fp2 *out, const gs_fp2 *a)
{
    gs_fp t0, t1;
    gs_fp_sqr(&t0, &a->c0);
    gs_fp_sqr(&t1, &a->c1);
    gs_fp_add(&t0, &t0, &t1);
    gs_fp_inv_var(&t0, &t0);
    gs_fp_mul(&out->c0, &a->c0, &t0);
    gs_fp_mul(&t1, &a->c1, &t0);
    gs_fp_neg(&out->c1, &t1);
}
#define MSM_FN gs_msm_g2
#define MSM_FN_CFG gs_msm_g2_cfg
#include "msm_impl.h"
