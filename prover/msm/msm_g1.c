/* Pippenger MSM on G1: the shared template (msm_impl.h) over Fp points. */
#include "msm_internal.h"

#define MSM_AFF gs_g1_affine
#define MSM_JAC gs_g1
#define MSM_XYZZ gs_g1_xyzz
#define MSM_G(name) gs_g1_##name
#define MSM_FE gs_fp
#define MSM_FE_(op) gs_fp_##op
#define MSM_BATCH_INV gs_fp_batch_inv_nonzero_var
#define MSM_FE_SUB gs_fp_sub_inline
#define MSM_FE_ADD gs_fp_add_inline
#define MSM_FE_IS_ZERO gs_fp_is_zero_inline
#define MSM_FN gs_msm_g1
#define MSM_FN_CFG gs_msm_g1_cfg
#define MSM_FN_SUM gs_msm_g1_sum
#define MSM_IN gs_msm_g1_in
#include "msm_impl.h"
