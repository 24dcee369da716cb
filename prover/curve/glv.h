/*
 * GLV split of a G1 scalar for BLS12-381 (Gallant, Lambert, Vanstone,
 * CRYPTO 2001): phi(x, y) = (beta x, y) (curve_consts.h's GS_CC_BETA) acts
 * on G1 as [-X^2] with X = |x| = 0xd201000000010000, and
 * r = X^4 - X^2 + 1 (so -X^2 is a cube root of unity mod r).  Every
 * 0 <= k < 2^255 splits as
 *
 *     k = k1 + k2 X^2,  k1 = k mod X^2 < X^2 < 2^128,  k2 = floor(k / X^2) < 2^128,
 *
 * so [k]P = [k1]P - [k2]phi(P): two 128-bit scalars over P and phi(P)
 * instead of one of 255 bits (for k < r, k2 <= X^2 - 1).  Both halves are
 * nonnegative; the minus sign goes to phi(P)'s digits.
 *
 * The division is Barrett's with m = floor(2^384 / X^2) (GS_CC_GLV_M,
 * 257 bits): q = floor(k m / 2^384) is floor(k / X^2) or one less for
 * every k < 2^256 (the error is below k / 2^384 < 2^-128), so one
 * conditional subtraction finishes it.  Plain integer arithmetic on 32-bit
 * little-endian limbs, so the same function runs on the host (tests:
 * test_glv.c) and in the CUDA kernels (prover/cuda/cu_msm.cu includes this
 * header; GS_GLV_FN is __host__ __device__ there).  Constant time apart
 * from the final correction; arithmetic only, no failure paths.
 */
#ifndef GS_CURVE_GLV_H
#define GS_CURVE_GLV_H

#include <stdint.h>

#include "curve_consts.h"

#ifdef __CUDACC__
#define GS_GLV_FN static inline __host__ __device__
#else
#define GS_GLV_FN static inline
#endif

/* out (na + nb limbs) = a b, schoolbook on 32-bit limbs. */
GS_GLV_FN void gs_glv_mul(uint32_t *out, const uint32_t *a, int na, const uint32_t *b, int nb)
{
    for (int i = 0; i < na + nb; i++) out[i] = 0;
    for (int i = 0; i < na; i++) {
        uint64_t carry = 0;
        for (int j = 0; j < nb; j++) {
            uint64_t t = (uint64_t)a[i] * b[j] + out[i + j] + carry;
            out[i + j] = (uint32_t)t;
            carry = t >> 32;
        }
        out[i + nb] = (uint32_t)carry;
    }
}

/* k (8 limbs, k < 2^255) -> k1 = k mod X^2, k2 = floor(k / X^2) (4 limbs each). */
GS_GLV_FN void gs_glv_split(uint32_t k1[4], uint32_t k2[4], const uint32_t k[8])
{
    const uint32_t m[9] = GS_CC_GLV_M, d[4] = GS_CC_GLV_D;
    uint32_t p[17], qd[8], rem[5];
    /* p = k m; q = p >> 384 (limbs 12..15; limb 16 is 0 for k < 2^255). */
    gs_glv_mul(p, k, 8, m, 9);
    for (int i = 0; i < 4; i++) k2[i] = p[12 + i];
    /* rem = k - q d, in [0, 2 d): five limbs hold it. */
    gs_glv_mul(qd, k2, 4, d, 4);
    uint64_t borrow = 0;
    for (int i = 0; i < 5; i++) {
        uint64_t t = (uint64_t)k[i] - qd[i] - borrow;
        rem[i] = (uint32_t)t;
        borrow = (t >> 32) & 1;
    }
    /* rem >= d: one more (rem[4] != 0, or the low four limbs compare). */
    int ge = rem[4] != 0;
    if (!ge) {
        ge = 1;
        for (int i = 3; i >= 0; i--)
            if (rem[i] != d[i]) {
                ge = rem[i] > d[i];
                break;
            }
    }
    if (ge) {
        borrow = 0;
        for (int i = 0; i < 4; i++) {
            uint64_t t = (uint64_t)rem[i] - d[i] - borrow;
            rem[i] = (uint32_t)t;
            borrow = (t >> 32) & 1;
        }
        uint64_t carry = 1;
        for (int i = 0; i < 4; i++) {
            uint64_t t = (uint64_t)k2[i] + carry;
            k2[i] = (uint32_t)t;
            carry = t >> 32;
        }
    }
    for (int i = 0; i < 4; i++) k1[i] = rem[i];
}

#endif
