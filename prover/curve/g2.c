/*
 * G2 = the r-torsion of E'(Fp2): y^2 = x^3 + 4(u + 1), the M-type sextic
 * twist of BLS12-381.  Instantiates the group-law templates over Fp2 and
 * adds the generator's coordinates and the untwist-Frobenius-twist map psi.
 */
#include "curve_internal.h"

static const gs_fp2 ec_b = {{GS_CC_B}, {GS_CC_B}};
static const gs_fp2 ec_b3 = {{GS_CC_B3}, {GS_CC_B3}};
static const gs_fp2 g2_psi_x = {{GS_CC_PSI_X0}, {GS_CC_PSI_X1}};
static const gs_fp2 g2_psi_y = {{GS_CC_PSI_Y0}, {GS_CC_PSI_Y1}};

#define EC_GROUP g2
#define EC_FIELD fp2
#include "ec_params.inc"
#include "ec_jacobian.inc"
#include "ec_mul.inc"
#include "ec_xyzz.inc"
#include "ec_subgroup_batch.inc"

/* Generator from draft-irtf-cfrg-pairing-friendly-curves, section 4.2.1. */
void gs_g2_affine_generator(gs_g2_affine *out)
{
    static const gs_fp2 gx = {{GS_CC_G2_X0}, {GS_CC_G2_X1}};
    static const gs_fp2 gy = {{GS_CC_G2_Y0}, {GS_CC_G2_Y1}};
    out->x = gx;
    out->y = gy;
    out->inf = 0;
}

/*
 * psi(x, y) = (conj(x) xi^-((p-1)/3), conj(y) xi^-((p-1)/2)) (Galbraith-Scott,
 * "Exponentiation in pairing-friendly groups using homomorphisms", 2008).
 * Conjugation is a field automorphism, so in Jacobian coordinates it maps
 * (X : Y : Z) to (conj(X) cx : conj(Y) cy : conj(Z)).
 */
void gs_g2_psi(gs_g2 *out, const gs_g2 *a)
{
    gs_fp2_conj(&out->X, &a->X);
    gs_fp2_mul(&out->X, &out->X, &g2_psi_x);
    gs_fp2_conj(&out->Y, &a->Y);
    gs_fp2_mul(&out->Y, &out->Y, &g2_psi_y);
    gs_fp2_conj(&out->Z, &a->Z);
}
