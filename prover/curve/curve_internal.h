/*
 * Internal to the curve layer (and its tests): helpers shared by the
 * group files, and the macro contract of the formula templates.
 *
 * The group law is written once, in ec_jacobian.inc (affine/Jacobian),
 * ec_xyzz.inc (XYZZ) and ec_mul.inc (scalar multiplication), and
 * instantiated for G1 over Fp (g1.c) and G2 over Fp2 (g2.c).
 * The templates expect these macros, which ec_params.inc defines from
 * EC_GROUP (g1, g2) and EC_FIELD (fp, fp2):
 *   FE       the coordinate field type (gs_fp or gs_fp2)
 *   FE_(op)  its operations: FE_(mul) -> gs_fp_mul, ...
 *   PT, AFF, XYZZ   the Jacobian, affine and XYZZ point types
 *   EC_(n)   the group prefix: EC_(add) -> gs_g1_add, ...
 * and the instantiating file defines the static constants ec_b (curve b)
 * and ec_b3 (3b) of type FE, and EC_(affine_generator).
 */
#ifndef GS_CURVE_INTERNAL_H
#define GS_CURVE_INTERNAL_H

#include "curve.h"
#include "curve_consts.h"

/* [k]a for any plain integer k of n little-endian limbs (variable time,
 * double-and-add).  Used for cofactors and for r as a test oracle. */
void gs_g1_mul_limbs_var(gs_g1 *out, const gs_g1 *a, const uint64_t *k, size_t n);
void gs_g2_mul_limbs_var(gs_g2 *out, const gs_g2 *a, const uint64_t *k, size_t n);

/* [|x|]a with |x| = 0xd201000000010000 (variable time; x is public). */
void gs_g1_mul_x_abs(gs_g1 *out, const gs_g1 *a);
void gs_g2_mul_x_abs(gs_g2 *out, const gs_g2 *a);

/* phi(x, y) = (beta x, y) on G1, with phi(P) = [-x^2]P on the subgroup. */
void gs_g1_phi(gs_g1 *out, const gs_g1 *a);
/* psi = untwist, Frobenius, twist on E'(Fp2); psi(P) = [x]P on G2. */
void gs_g2_psi(gs_g2 *out, const gs_g2 *a);

/* Constant-time conditional move of n 64-bit words: dst = src if flag. */
static inline void gs_ct_cmov_words(uint64_t *dst, const uint64_t *src, size_t n, uint64_t flag)
{
    uint64_t mask = (uint64_t)0 - (flag & 1);
    for (size_t i = 0; i < n; i++)
        dst[i] ^= (dst[i] ^ src[i]) & mask;
}

#endif
