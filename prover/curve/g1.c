/*
 * G1 = E(Fp): y^2 = x^3 + 4, the r-torsion of BLS12-381 over the base field.
 * Instantiates the group-law templates over Fp and adds what is specific to
 * G1: the generator's coordinates and the endomorphism phi.
 */
#include "curve_internal.h"

static const gs_fp ec_b = {GS_CC_B};
static const gs_fp ec_b3 = {GS_CC_B3};
static const gs_fp g1_beta = {GS_CC_BETA};

#define EC_GROUP g1
#define EC_FIELD fp
#include "ec_params.inc"
#include "ec_jacobian.inc"
#include "ec_mul.inc"
#include "ec_xyzz.inc"
#include "ec_subgroup_batch.inc"

/* Generator from draft-irtf-cfrg-pairing-friendly-curves, section 4.2.1. */
void gs_g1_affine_generator(gs_g1_affine *out)
{
    static const gs_fp gx = {GS_CC_G1_X}, gy = {GS_CC_G1_Y};
    out->x = gx;
    out->y = gy;
    out->inf = 0;
}

/* phi(X : Y : Z) = (beta X : Y : Z) in Jacobian coordinates. */
void gs_g1_phi(gs_g1 *out, const gs_g1 *a)
{
    gs_fp_mul(&out->X, &a->X, &g1_beta);
    out->Y = a->Y;
    out->Z = a->Z;
}
