/*
 * The pairing and the product check Groth16 verification uses:
 * one multi Miller loop (shared squarings) and one final exponentiation.
 */
#include "pairing.h"

void gs_pairing(gs_fp12 *out, const gs_g1_affine *p, const gs_g2_affine *q)
{
    gs_fp12 f;
    gs_miller_loop(&f, p, q);
    gs_final_exp(out, &f);
}

int gs_pairing_product_is_one(const gs_g1_affine *p, const gs_g2_affine *q, size_t n)
{
    gs_fp12 f, e;
    gs_miller_loop_multi(&f, p, q, n);
    gs_final_exp(&e, &f);
    return gs_fp12_is_one(&e);
}
