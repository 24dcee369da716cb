/*
 * Internal to prover/msm: the plan of one MSM (window size, task split) and
 * the signed-digit recoding, shared by the G1 and G2 instantiations.
 */
#ifndef GS_MSM_INTERNAL_H
#define GS_MSM_INTERNAL_H

#include "msm.h"

#include <stdint.h>

typedef struct msm_plan {
    unsigned c;          /* window bits */
    unsigned n_windows;  /* ceil(257 / c), or ceil(256 / c) if all scalars < 2^255 */
    size_t n_parts;      /* point ranges per window */
    size_t part_len;     /* points per range (the last may be shorter) */
    size_t n_tasks;      /* n_windows * n_parts */
    size_t batch;        /* batch-affine batch size; 0 = XYZZ buckets */
} msm_plan;

/* below_2_255: every scalar is below 2^255 (one window fewer for c = 16). */
void gs_msm_plan(msm_plan *p, size_t n, unsigned width, int below_2_255, const gs_msm_cfg *cfg);

/* Batch-affine buckets from this window size up; batch size for window c
 * (0 = XYZZ buckets). */
#define MSM_AFF_MIN_WINDOW 9
#define MSM_AFF_MAX_BATCH 2048
size_t gs_msm_batch_for(unsigned c);

/*
 * Signed digit of window j (Booth recoding; e.g. the "signed window" of
 * blst's ec_mult.h and of Pippenger MSM implementations):
 *   d_j = b[jc .. jc+c-2] + b[jc-1] - 2^(c-1) b[jc+c-1],   b[-1] = 0,
 * so d_j is in [-2^(c-1), 2^(c-1)] and sum_j d_j 2^(jc) = k whenever the top
 * window's highest bit is 0 (n_windows * c >= 257 ensures it for 256 bits,
 * n_windows * c >= 256 for k < 2^255).
 */
static inline int64_t gs_msm_digit(const gs_scalar *k, unsigned j, unsigned c)
{
    /* w holds c + 1 bits: bit 0 = b[jc-1], bits 1..c = b[jc .. jc+c-1]. */
    uint64_t w;
    unsigned pos = j * c;
    if (pos == 0) {
        w = (k->l[0] << 1) & ((2ull << c) - 1);
    } else {
        unsigned start = pos - 1, limb = start / 64, off = start % 64;
        if (limb >= GS_FR_LIMBS)
            return 0;
        w = k->l[limb] >> off;
        if (off + c + 1 > 64 && limb + 1 < GS_FR_LIMBS)
            w |= k->l[limb + 1] << (64 - off);
        w &= (2ull << c) - 1;
    }
    int64_t low = (int64_t)((w >> 1) & ((1ull << (c - 1)) - 1));
    int64_t top = (int64_t)((w >> c) & 1);
    return low + (int64_t)(w & 1) - (top << (c - 1));
}

/*
 * out = a - b mod p for reduced a, b: the same function as gs_fp_sub, inlined
 * into the batch-affine loops (a call per subtraction cost ~14% of an MSM).
 * One borrow chain, then p added back under a mask.
 */
static inline void gs_msm_fp_sub(gs_fp *out, const gs_fp *a, const gs_fp *b)
{
#if defined(__x86_64__) && !defined(GS_NO_ASM)
    /* Inline assembly: from intrinsics GCC breaks the carry chains (setb). */
    uint64_t r0 = a->l[0], r1 = a->l[1], r2 = a->l[2], r3 = a->l[3], r4 = a->l[4], r5 = a->l[5], m;
    __asm__("subq %[b0], %[r0]\n\t"
            "sbbq %[b1], %[r1]\n\t"
            "sbbq %[b2], %[r2]\n\t"
            "sbbq %[b3], %[r3]\n\t"
            "sbbq %[b4], %[r4]\n\t"
            "sbbq %[b5], %[r5]\n\t"
            "sbbq %[m], %[m]"
            : [r0] "+r"(r0), [r1] "+r"(r1), [r2] "+r"(r2), [r3] "+r"(r3), [r4] "+r"(r4),
              [r5] "+r"(r5), [m] "=&r"(m)
            : [b0] "m"(b->l[0]), [b1] "m"(b->l[1]), [b2] "m"(b->l[2]), [b3] "m"(b->l[3]),
              [b4] "m"(b->l[4]), [b5] "m"(b->l[5])
            : "cc");
    uint64_t p0 = GS_FP_MODULUS.l[0] & m, p1 = GS_FP_MODULUS.l[1] & m, p2 = GS_FP_MODULUS.l[2] & m,
             p3 = GS_FP_MODULUS.l[3] & m, p4 = GS_FP_MODULUS.l[4] & m, p5 = GS_FP_MODULUS.l[5] & m;
    __asm__("addq %[p0], %[r0]\n\t"
            "adcq %[p1], %[r1]\n\t"
            "adcq %[p2], %[r2]\n\t"
            "adcq %[p3], %[r3]\n\t"
            "adcq %[p4], %[r4]\n\t"
            "adcq %[p5], %[r5]"
            : [r0] "+r"(r0), [r1] "+r"(r1), [r2] "+r"(r2), [r3] "+r"(r3), [r4] "+r"(r4),
              [r5] "+r"(r5)
            : [p0] "rm"(p0), [p1] "rm"(p1), [p2] "rm"(p2), [p3] "rm"(p3), [p4] "rm"(p4),
              [p5] "rm"(p5)
            : "cc");
    out->l[0] = r0;
    out->l[1] = r1;
    out->l[2] = r2;
    out->l[3] = r3;
    out->l[4] = r4;
    out->l[5] = r5;
#else
    uint64_t r[GS_FP_LIMBS], borrow = 0, carry = 0;
    for (int i = 0; i < GS_FP_LIMBS; i++) {
        unsigned __int128 d = (unsigned __int128)a->l[i] - b->l[i] - borrow;
        r[i] = (uint64_t)d;
        borrow = (uint64_t)(d >> 64) & 1;
    }
    uint64_t mask = (uint64_t)0 - borrow;
    for (int i = 0; i < GS_FP_LIMBS; i++) {
        unsigned __int128 s = (unsigned __int128)r[i] + (GS_FP_MODULUS.l[i] & mask) + carry;
        out->l[i] = (uint64_t)s;
        carry = (uint64_t)(s >> 64);
    }
#endif
}

static inline void gs_msm_fp2_sub(gs_fp2 *out, const gs_fp2 *a, const gs_fp2 *b)
{
    gs_msm_fp_sub(&out->c0, &a->c0, &b->c0);
    gs_msm_fp_sub(&out->c1, &a->c1, &b->c1);
}

#endif
