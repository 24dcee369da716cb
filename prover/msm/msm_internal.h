/*
 * Internal to prover/msm: the plan of one MSM (window size, task split) and
 * the signed-digit recoding, shared by the G1 and G2 instantiations.
 */
#ifndef GS_MSM_INTERNAL_H
#define GS_MSM_INTERNAL_H

#include "msm.h"
#include "../field/field_inline.h"

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

#endif
