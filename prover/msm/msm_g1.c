/* Pippenger MSM on G1: the shared template (msm_impl.h) over Fp points. */
#include "msm_internal.h"

#define MSM_AFF gs_g1_affine
#define MSM_JAC gs_g1
#define MSM_XYZZ gs_g1_xyzz
#define MSM_G(name) gs_g1_##name
#define MSM_FE gs_fp
#define MSM_FE_(op) gs_fp_##op
#define MSM_BATCH_INV fp_batch_inv

/* den[i] = 1/den[i] for nonzero den[0..m) by Montgomery's trick (Math. Comp.
 * 1987, section 10.3.1): 3(m-1) multiplications and one inversion. */
static void fp_batch_inv(gs_fp *den, gs_fp *pre, size_t m)
{
    gs_fp acc = den[0], inv, t;
    for (size_t i = 1; i < m; i++) {
        pre[i] = acc;                          /* den[0] ... den[i-1] */
        gs_fp_mul(&acc, &acc, &den[i]);
    }
    gs_fp_inv_var(&inv, &acc);
    for (size_t i = m; i-- > 1;) {
        gs_fp_mul(&t, &inv, &pre[i]);
        gs_fp_mul(&inv, &inv, &den[i]);
        den[i] = t;
    }
    den[0] = inv;
}
#define MSM_FE_SUB gs_msm_fp_sub
#define MSM_FN gs_msm_g1
#define MSM_FN_CFG gs_msm_g1_cfg
#include "msm_impl.h"
