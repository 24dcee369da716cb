/*
 * G1 = E(Fp): y^2 = x^3 + 4, the r-torsion of BLS12-381 over the base field.
 * Instantiates the group-law templates over Fp and adds what is specific to
 * G1: the generator, [|x|] and the endomorphism phi.
 */
#include "curve_internal.h"

static const gs_fp ec_b = {GS_CC_B};
static const gs_fp ec_b3 = {GS_CC_B3};
static const gs_fp g1_beta = {GS_CC_BETA};

#define FE gs_fp
#define FE_(op) gs_fp_##op
#define PT gs_g1
#define AFF gs_g1_affine
#define XYZZ gs_g1_xyzz
#define EC_(n) gs_g1_##n
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

void gs_g1_generator(gs_g1 *out)
{
    gs_g1_affine g;
    gs_g1_affine_generator(&g);
    gs_g1_from_affine(out, &g);
}

void gs_g1_mul_x_abs(gs_g1 *out, const gs_g1 *a)
{
    const uint64_t x = GS_CC_X_ABS;
    gs_g1_mul_limbs_var(out, a, &x, 1);
}

/* phi(X : Y : Z) = (beta X : Y : Z) in Jacobian coordinates. */
void gs_g1_phi(gs_g1 *out, const gs_g1 *a)
{
    gs_fp_mul(&out->X, &a->X, &g1_beta);
    out->Y = a->Y;
    out->Z = a->Z;
}
