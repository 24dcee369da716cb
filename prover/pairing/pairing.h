/*
 * Optimal ate pairing on BLS12-381: e: G1 x G2 -> GT (a subgroup of Fp12*).
 * Miller loop over |x| = 0xd201000000010000 (x negative), then the final
 * exponentiation.  Infinity inputs give 1.
 * Inputs must be on their curves and in their subgroups (caller checks).
 *
 * GT convention: gs_final_exp raises to 3 (p^12 - 1)/r (the x-chain of
 * eprint 2020/875), so gs_pairing returns the cube of the textbook
 * f^((p^12-1)/r).  This is the value zkcrypto/bls12_381 and blst return
 * (e(G1, G2) equals their published GT generator); it is bilinear and
 * non-degenerate like the textbook one.  Compare GT values only with values
 * computed in the same convention; product checks (== 1) are unaffected.
 *
 * Thread safety: pure functions of their inputs; no allocation, no state.
 * Timing depends only on n and on which inputs are infinity.
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
