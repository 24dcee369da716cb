/*
 * Optimal ate pairing on BLS12-381: e: G1 x G2 -> GT (a subgroup of Fp12*).
 * Miller loop over |x| = 0xd201000000010000 (x negative), then the final
 * exponentiation (p^12 - 1)/r.  Infinity inputs give 1.
 * Inputs must be on their curves and in their subgroups (caller checks).
 */
#ifndef GS_PAIRING_H
#define GS_PAIRING_H

#include <stddef.h>

#include "../curve/curve.h"

void gs_miller_loop(gs_fp12 *out, const gs_g1_affine *p, const gs_g2_affine *q);
/* Product of n Miller loops (shared squarings). */
void gs_miller_loop_multi(gs_fp12 *out, const gs_g1_affine *p, const gs_g2_affine *q, size_t n);
void gs_final_exp(gs_fp12 *out, const gs_fp12 *f);
void gs_pairing(gs_fp12 *out, const gs_g1_affine *p, const gs_g2_affine *q);
/* 1 if prod_i e(p[i], q[i]) == 1 (one multi Miller loop, one final exp). */
int gs_pairing_product_is_one(const gs_g1_affine *p, const gs_g2_affine *q, size_t n);

#endif
