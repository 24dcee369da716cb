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
    unsigned c;          /* window bits (the widest windows) */
    unsigned n_windows;  /* ceil((bits + 1) / c): ceil(257 / c) for 256-bit scalars */
    unsigned n_wide;     /* windows 0 .. n_wide - 1 have c bits, the others c - 1 */
    size_t n_parts;      /* point ranges per window */
    size_t part_len;     /* points per range (the last may be shorter) */
    size_t n_tasks;      /* n_windows * n_parts */
    size_t batch;        /* batch-affine batch size; 0 = XYZZ buckets */
    size_t batch_narrow; /* the same for the (c - 1)-bit windows */
} msm_plan;

/* bits: every scalar is below 2^bits (0 .. 256; 255 for reduced scalars:
 * one window fewer than 256 for c = 16). */
void gs_msm_plan(msm_plan *p, size_t n, unsigned width, unsigned bits, const gs_msm_cfg *cfg);

/* The bit length of the largest of n scalars (0 when all are zero). */
static inline unsigned gs_msm_scalar_bits(const gs_scalar *k, size_t n)
{
    uint64_t top[GS_FR_LIMBS] = {0};
    for (size_t i = 0; i < n; i++)
        for (int l = 0; l < GS_FR_LIMBS; l++)
            top[l] |= k[i].l[l];
    for (int l = GS_FR_LIMBS; l-- > 0;)
        if (top[l])
            return (unsigned)(64 * l + 64 - __builtin_clzll(top[l]));
    return 0;
}

/* Hash of a scalar for the equal-scalar tables (msm_group.h, msm_repeats.c). */
static inline uint64_t gs_msm_scalar_hash(const gs_scalar *k)
{
    uint64_t h = k->l[0] ^ (k->l[1] * 0x9e3779b97f4a7c15ull) ^ (k->l[2] * 0xc2b2ae3d27d4eb4full) ^
                 (k->l[3] * 0x165667b19e3779f9ull);
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 32);
}

/* Window j covers scalar bits [msm_win_pos(j), msm_win_pos(j) + msm_win_bits(j)). */
static inline unsigned msm_win_bits(const msm_plan *p, unsigned j)
{
    return j < p->n_wide ? p->c : p->c - 1;
}

static inline unsigned msm_win_pos(const msm_plan *p, unsigned j)
{
    return j < p->n_wide ? j * p->c : p->n_wide * p->c + (j - p->n_wide) * (p->c - 1);
}

/* Batch-affine buckets from this window size up; batch size for window c
 * (0 = XYZZ buckets). */
#define MSM_AFF_MIN_WINDOW 9
#define MSM_AFF_MAX_BATCH 2048
size_t gs_msm_batch_for(unsigned c);

/*
 * Signed digit of the c-bit window at bit pos (Booth recoding; e.g. the
 * "signed window" of blst's ec_mult.h and of Pippenger MSM implementations):
 *   d = b[pos .. pos+c-2] + b[pos-1] - 2^(c-1) b[pos+c-1],   b[-1] = 0,
 * so d is in [-2^(c-1), 2^(c-1)].  For windows that tile the bits (each
 * starts where the one below ends, widths may differ) the top bit of one
 * window, subtracted there, comes back as b[pos-1] of the next, so
 * sum_j d_j 2^(pos_j) = k whenever the top window's highest bit is 0
 * (total width >= 257 ensures it for 256 bits, >= 256 for k < 2^255).
 */
static inline int64_t gs_msm_digit_at(const gs_scalar *k, unsigned pos, unsigned c)
{
    /* w holds c + 1 bits: bit 0 = b[pos-1], bits 1..c = b[pos .. pos+c-1]. */
    uint64_t w;
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

/* Digit j of equal c-bit windows. */
static inline int64_t gs_msm_digit(const gs_scalar *k, unsigned j, unsigned c)
{
    return gs_msm_digit_at(k, j * c, c);
}

/* A window's digits read `ahead` points early, so that the bucket a point
 * will update can be prefetched: ring[i % ahead] holds point i's digit
 * until it is taken.  Init fills points 0 .. ahead - 1; take returns point
 * i's digit and puts point i + ahead's in its place (*early; 0 past n). */
static inline void gs_msm_ring_init(int64_t *ring, size_t ahead, const gs_scalar *sc, size_t n,
                                    unsigned pos, unsigned bits)
{
    for (size_t a = 0; a < ahead; a++)
        ring[a] = a < n ? gs_msm_digit_at(&sc[a], pos, bits) : 0;
}

static inline int64_t gs_msm_ring_take(int64_t *ring, size_t ahead, const gs_scalar *sc,
                                       size_t i, size_t n, unsigned pos, unsigned bits,
                                       int64_t *early)
{
    int64_t d = ring[i % ahead];
    *early = 0;
    if (i + ahead < n) {
        *early = gs_msm_digit_at(&sc[i + ahead], pos, bits);
        ring[i % ahead] = *early;
    }
    return d;
}

/* The bucket of a nonzero signed digit: |d| - 1. */
static inline size_t gs_msm_bucket(int64_t d)
{
    return (size_t)(d > 0 ? d : -d) - 1;
}

#endif
