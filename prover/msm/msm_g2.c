/* Pippenger MSM on G2: the shared template (msm_impl.h) over Fp2 points. */
#include "msm_internal.h"

#define MSM_AFF gs_g2_affine
#define MSM_JAC gs_g2
#define MSM_XYZZ gs_g2_xyzz
#define MSM_G(name) gs_g2_##name
#define MSM_FE gs_fp2
#define MSM_FE_(op) gs_fp2_##op
#define MSM_FE_SUB gs_fp2_sub_inline
#define MSM_FE_ADD gs_fp2_add_inline
#define MSM_FE_IS_ZERO gs_fp2_is_zero_inline
#define MSM_BATCH_INV gs_fp2_batch_inv_nonzero_var
#define MSM_FN gs_msm_g2
#define MSM_FN_CFG gs_msm_g2_cfg
#define MSM_FN_SUM gs_msm_g2_sum
#define MSM_IN gs_msm_g2_in
#include "msm_impl.h"
