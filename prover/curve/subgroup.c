/*
 * Prime-order subgroup membership for G1 and G2 with endomorphisms
 * (M. Scott, "A note on group membership tests for G1, G2 and GT on BLS
 * pairing-friendly curves", eprint 2021/1130):
 *
 *   G1: P in G1  iff  phi(P) == [-x^2] P,  phi(x, y) = (beta x, y)
 *   G2: P in G2  iff  psi(P) == [x] P
 *
 * Each costs one or two multiplications by the 64-bit |x| (sparse: 5
 * additions) instead of a 255-bit multiplication by r.  The tests check both
 * against the r P == infinity oracle on points inside and outside the
 * subgroups.  Inputs are affine and must be on their curve (decoders check
 * that first); infinity is in both subgroups.  Variable time (points are
 * public).
 */
#include "curve_internal.h"

int gs_g1_affine_in_subgroup(const gs_g1_affine *a)
{
    gs_g1 p, lhs, rhs;
    if (a->inf)
        return 1;
    gs_g1_from_affine(&p, a);
    gs_g1_phi(&lhs, &p);
    gs_g1_mul_x_abs(&rhs, &p);
    gs_g1_mul_x_abs(&rhs, &rhs);                 /* [x^2] P */
    gs_g1_neg(&rhs, &rhs);
    return gs_g1_eq(&lhs, &rhs);
}

int gs_g2_affine_in_subgroup(const gs_g2_affine *a)
{
    gs_g2 p, lhs, rhs;
    if (a->inf)
        return 1;
    gs_g2_from_affine(&p, a);
    gs_g2_psi(&lhs, &p);
    gs_g2_mul_x_abs(&rhs, &p);
    gs_g2_neg(&rhs, &rhs);                       /* x < 0 */
    return gs_g2_eq(&lhs, &rhs);
}
