/*
 * Internal to prover/msm: the plan of one MSM (window size, task split) and
 * the signed-digit recoding, shared by the G1 and G2 instantiations.
 */
#ifndef GS_MSM_INTERNAL_H
#define GS_MSM_INTERNAL_H

#include "msm.h"

#include <stdint.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

typedef struct msm_plan {
    unsigned c;          /* window bits */
    unsigned n_windows;  /* ceil(257 / c): covers any 256-bit scalar */
    size_t n_parts;      /* point ranges per window */
    size_t part_len;     /* points per range (the last may be shorter) */
    size_t n_tasks;      /* n_windows * n_parts */
    size_t batch;        /* batch-affine batch size; 0 = XYZZ buckets */
} msm_plan;

void gs_msm_plan(msm_plan *p, size_t n, unsigned width, const gs_msm_cfg *cfg);

/* Batch-affine buckets from this window size up; batch size for window c
 * (0 = XYZZ buckets). */
#define MSM_AFF_MIN_WINDOW 9
#define MSM_AFF_MAX_BATCH 512
size_t gs_msm_batch_for(unsigned c);

/*
 * Signed digit of window j (Booth recoding; e.g. the "signed window" of
 * blst's ec_mult.h and of Pippenger MSM implementations):
 *   d_j = b[jc .. jc+c-2] + b[jc-1] - 2^(c-1) b[jc+c-1],   b[-1] = 0,
 * so d_j is in [-2^(c-1), 2^(c-1)] and sum_j d_j 2^(jc) = k whenever the top
 * window's highest bit is 0 (n_windows * c >= 257 ensures it for 256 bits).
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
    uint64_t r[GS_FP_LIMBS];
#if defined(__x86_64__)
    unsigned long long t;
    unsigned char c = 0;
    for (int i = 0; i < GS_FP_LIMBS; i++) {
        c = _subborrow_u64(c, a->l[i], b->l[i], &t);
        r[i] = t;
    }
    uint64_t mask = (uint64_t)0 - c;
    c = 0;
    for (int i = 0; i < GS_FP_LIMBS; i++) {
        c = _addcarry_u64(c, r[i], GS_FP_MODULUS.l[i] & mask, &t);
        out->l[i] = t;
    }
#else
    uint64_t borrow = 0, carry = 0;
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
