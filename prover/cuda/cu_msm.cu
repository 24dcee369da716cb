/*
 * Multi-scalar multiplication on the device, G1 and G2 from one source
 * (the point kernels are templates over the coordinate field F = cu_fp or
 * cu_fp2, cu_ec.cuh): Pippenger's bucket method with signed-digit windows,
 * split into a scalar preparation that several MSMs over the same scalars
 * share (gs_cu_msm_prepare) and the per-point-set work
 * (gs_cu_msm_g1_prepared / _g2_prepared).
 *
 * Preparation (scalars only, the same for both curves):
 *  0. classify: 0s are dropped, the indices of 1s listed (their points are
 *     summed straight, step 6), the indices of the rest ("big") compacted
 *     (a flag pass, one 64-bit exclusive scan carrying both counts, a
 *     scatter); the host reads the two counts.
 *  1. digits: big scalar i gives, per window w of c bits, a signed digit
 *     d in [-2^(c-1), 2^(c-1)] (a digit above 2^(c-1) becomes d - 2^c and
 *     carries one into the next window); entry (key = g << c | |d|,
 *     value = sign << 31 | j << jshift | i) with window w = g t + j: the t
 *     windows of group g share buckets, window j of a group reading the
 *     precomputed copy j of the points (2^(j c) P; t = 1: no copies, one
 *     group per window).  One extra window takes the last carry when the
 *     top window has c bits.  GLV (the knob msm_glv; G1, no copies): each
 *     big scalar splits into two 128-bit halves (prover/curve/glv.h), both
 *     cut into the same windows; a window's entries of both halves share
 *     its buckets, the second half's read phi(P) and are subtracted.
 *  2. sort: CUB radix sort of each group's entries on the c digit bits, so
 *     every bucket's entries are contiguous; a boundary pass writes each
 *     key's [start, end).
 *  3. level offsets: the sorted entries are cut into chunks of S1 (level
 *     1: a bucket gets one partial per chunk its entries meet), then
 *     chunks of S2 partials per level until every bucket has one; the host
 *     reads the largest level-1 count, so exactly the levels needed are
 *     prepared (offsets by exclusive scans).
 * Per point set:
 *  4. accumulate: one thread per S1 entries sums its points into an XYZZ
 *     partial per bucket segment (madd; every thread the same number of
 *     entries, whatever the bucket sizes), then each later level sums S2
 *     partials (add).  Skewed scalar sets (many equal digits) thus stay
 *     balanced.  (GS_CU_MSM_FLAT=0: level 1 cut per bucket instead, one
 *     thread per chunk of at most S1 entries of one bucket.  The knob
 *     msm_ba: G1's level 1 adds each chunk's same-bucket entry pairs in
 *     affine first, cu_msm_ba.cu, the same partials out.  The knob
 *     msm_bat: G1's level 1 by a tree of affine rounds, each bucket's run
 *     halved per round, cu_msm_ba.cu; prepare computes the rounds' offsets
 *     and level 1's partials are the last round's, one per bucket unless
 *     the bucket outgrew the rounds.)
 *  5. bucket reduction: group sum = sum_b b * B_b.  Thread (g, j) takes
 *     buckets [jL + 1, (j+1)L], computes the running sums
 *     R = sum B_b, T = sum (b - jL) B_b, and returns T + jL * R; groups of
 *     these are summed on the device down to GS_CU_MSM_PARTS per group.
 *  6. the points of the 1-scalars: chunks of S1 summed per thread, then
 *     runs of S2 until one point, added to group 0's first part.
 *  7. the per-group parts go to a pinned result slot; the host adds them
 *     and combines groups by Horner's rule with t c doublings
 *     (gs_cu_msm_g1_result / gs_cu_msm_g2_result).
 * Bucket 0 (digit 0) is skipped; points at infinity (x = y = 0) are
 * skipped when accumulated; entries of scalars below `skip` are ignored
 * (an MSM over a suffix of the prepared scalars).
 *
 * Precomputed copies (gs_cu_g1_precompute, gs_cu_g2_precompute): copy
 * j = 2^(j c) P by c doublings per copy in XYZZ, converted to affine with
 * one Fermat inversion per point (Montgomery's trick over its t - 1
 * copies; G2's Fp2 inverse is one Fp inversion, cu_fp2.cuh).
 */
#include <stdlib.h>
#include <string.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include "../curve/glv.h"
#include "cu_msm.cuh"

#define MSM_S1 64
#define MSM_S2 16
#define MSM_SEG 32

typedef cu_msm_plan msm_plan;

static unsigned ilog2_ceil(size_t n)
{
    unsigned k = 0;
    while (((size_t)1 << k) < n) k++;
    return k;
}

/* Signed c-bit windows of a `bits`-bit scalar: one more when the top
 * window is a full c bits (its digit may carry). */
static unsigned windows_bits(unsigned c, unsigned bits)
{
    unsigned nwin = (bits + c - 1) / c;
    if (bits - (nwin - 1) * c == c) nwin++;
    return nwin;
}

static unsigned windows_of(unsigned c) { return windows_bits(c, 255); }

/* The automatic window without copies.  Measured on the H200
 * (bench/RESULTS.md window sweep): c = 16 for 2^21..2^25 (2^22: 63 ms vs
 * 87 ms at c = 15; 2^24: 206 ms vs 289 ms at c = 17), 18 from 2^26 (761 ms
 * vs 783 ms at 16, 796 ms at 19).  Widths that divide 255 (5, 15, 17) cost
 * a whole extra window for the last carry, so the small-n formula steps
 * over them.  n is rounded to the nearer power of two (a witness of
 * 2^20 + 1% wires is a 2^20 case, not a 2^21 one). */
/* The automatic window of a plan without copies.  G1 from 2^24 points:
 * c = 20 (13 windows; the knob msm_win = new, the default), measured on
 * the H100 on 2026-12-06 with the flat level 1 and product scanning
 * (bench/RESULTS.md, "Issue 33 levers measured on an H100"): 2^24 125.0 ms
 * at c = 16 -> 120.4, 2^26 463.2 at c = 18 -> 418.5 (c = 22: 165.8 /
 * 440.7).  Below 2^24, G2 at every size and msm_win = old: the table of
 * 2026-12-02 (per-bucket level 1), 16 up to 2^25, 18 from 2^26. */
static unsigned auto_window(size_t n, int g2)
{
    unsigned lg = ilog2_ceil(n + n / 2) - 1; /* round(log2 n) for n >= 2 */
    if (n < 2) lg = 0;
    if (!g2 && lg >= 24 && gs_cu_knob_is(GS_CU_K_MSM_WIN, "new")) return 20;
    if (lg >= 26) return 18;
    if (lg >= 21) return 16;
    int c = (int)lg - 8;
    c = c < 6 ? 6 : c;
    if (255 % c == 0) c++;
    return (unsigned)c;
}

/* Level 1's chunk: MSM_S1 entries, 128 from 2^29 entries on (2^26 points x
 * 11-13 windows: half the partial sums for level N, with millions of
 * threads still); with batch-affine pairs (ba) MSM_S1_BA, whose one
 * inversion per chunk must be shared by hundreds of pairs.  The knob
 * msm_s1 (GS_CU_MSM_S1, 32..4096, a power of two) for A/B runs. */
#define MSM_S1_BA 1024
static unsigned level1_chunk_log(uint64_t ntot, int ba)
{
    unsigned lg = 0;
    int k = gs_cu_knob(GS_CU_K_MSM_S1);
    unsigned v = k != GS_CU_AUTO ? (unsigned)k : 0;
    if (!(v >= 32 && v <= 4096 && (v & (v - 1)) == 0))
        v = ba ? MSM_S1_BA : ntot >= (1ull << 29) ? 128 : MSM_S1;
    while ((1u << lg) < v) lg++;
    return lg;
}

static double msm_cost(size_t n, unsigned c, unsigned t, int glv);

/* The bucket reduction's segment: MSM_SEG buckets per thread, or the knob
 * msm_seg (16..1024, a power of two).  A thread's running sums cost two
 * additions per bucket, its closing jL * R a double-and-add of up to c - 1
 * bits (~1.5 (c - 1) additions) per segment: ~0.9 additions per bucket at
 * 32 and c = 20, ~0.45 at 64, ~0.22 at 128, with fewer threads (13 x 2^19
 * buckets / 128 = 53K, one wave of 3 blocks of 128 per SM on 132 SMs). */
static uint32_t seg_len(void)
{
    int v = gs_cu_knob(GS_CU_K_MSM_SEG);
    return v >= 16 && v <= 1024 && (v & (v - 1)) == 0 ? (uint32_t)v : MSM_SEG;
}

/* The window of a GLV plan (no copies): the modelled cheapest from 6 to 22
 * bits for 2n entries of 128-bit halves (msm_cost), e.g. c = 19 (7 windows)
 * at 2^24 and 22 (6 windows) at 2^26.  The knob msm_c forces one. */
static unsigned glv_window(size_t n)
{
    int forced = gs_cu_knob(GS_CU_K_MSM_C);
    if (forced != GS_CU_AUTO) return (unsigned)forced;
    unsigned best_c = 6;
    double best = -1;
    for (unsigned c = 6; c <= 22; c++) {
        if ((uint64_t)n * 2 * windows_bits(c, 128) >= (1ull << 31)) continue;
        double cost = msm_cost(n, c, 1, 1);
        if (best < 0 || cost < best) {
            best = cost;
            best_c = c;
        }
    }
    return best_c;
}

/* The knobs msm_glv and msm_ba for a G1 plan (G2 never: its point type has
 * no phi here, and its level 1 is another kernel). */
static int glv_on(int g2) { return !g2 && gs_cu_knob(GS_CU_K_MSM_GLV) == 1; }
static int ba_on(int g2) { return !g2 && gs_cu_knob(GS_CU_K_MSM_BA) == 1; }
static int bat_on(int g2) { return !g2 && gs_cu_knob(GS_CU_K_MSM_BAT) >= 1; }

/* The plan of an MSM of n scalars (window: 0 automatic, or the knob
 * msm_c where set; t copies).  With
 * the knob msm_glv, a G1 plan without copies over at most 2^27 points (the
 * index below jshift = 27) splits its scalars: 128-bit halves, window
 * glv_window(n) whatever `window` says. */
static int plan_msm(msm_plan *p, size_t n, int window, unsigned t, int g2)
{
    memset(p, 0, sizeof *p);
    p->n = n;
    p->glv = t == 1 && glv_on(g2) && n <= ((size_t)1 << 27);
    int forced = gs_cu_knob(GS_CU_K_MSM_C);
    int c = window > 0 ? window : forced != GS_CU_AUTO ? forced : (int)auto_window(n, g2);
    if (p->glv) c = (int)glv_window(n);
    if (c < 4 || c > 24) return 0;
    p->c = (unsigned)c;
    p->nwin = windows_bits(p->c, p->glv ? 128 : 255);
    if (p->nwin > GS_CU_MSM_MAXWIN) return 0;
    if (t < 1 || t > 16) return 0;
    p->t = t > p->nwin ? p->nwin : t;
    if (p->t > 1 && n > ((size_t)1 << 27)) return 0; /* index bits below jshift */
    p->jshift = p->t > 1 || p->glv ? 27 : 31;
    p->ngrp = (p->nwin + p->t - 1) / p->t;
    p->ntot_max = (uint64_t)n * p->nwin << p->glv;
    if (p->ntot_max >= (1ull << 31)) return 0;
    p->B = 1u << (p->c - 1);
    p->K = p->ngrp << p->c;
    p->s1log = level1_chunk_log(p->ntot_max, ba_on(g2));
    /* Partials: level 1 makes at most one per chunk plus one per key whose
     * entries start inside a chunk, and a group's keys are its digits 0 ..
     * B (K = ngrp 2^c counts twice that); each later level at most its
     * input / S2 plus one per key.  (The bound was ngrp 2^c per term before
     * 2026-12-06: 2.6 GB more scratch for c = 20 at 2^26 without copies.) */
    uint32_t nkeys = p->ngrp * (p->B + 1);
    p->t1max = (uint32_t)(p->ntot_max >> p->s1log) + nkeys + 2;
    p->t2max = p->t1max / MSM_S2 + nkeys + 1;
    p->L = p->B < seg_len() ? p->B : seg_len();
    p->T = p->B / p->L;
    /* Levels a bucket of t * n entries could need (flat chunks: one more
     * partial when its entries start inside a chunk). */
    uint64_t bound = ((((uint64_t)p->t * n << p->glv) + (1u << p->s1log) - 1) >> p->s1log) + 1;
    p->maxlvl = 0;
    while (bound > 1) {
        bound = (bound + MSM_S2 - 1) / MSM_S2;
        p->maxlvl++;
    }
    if (p->maxlvl > GS_CU_MSM_MAXLVL) return 0;
    p->psz = g2 ? sizeof(cu_g2_xyzz) : sizeof(cu_g1_xyzz);
    p->bat = bat_on(g2);
    if (p->bat) {
        /* Level 1's partials after the rounds, ntot / 2^rounds + a key
         * each at most, must fit t1max (ntot / 2^s1log + a key each): so
         * the cap on rounds, GS_CU_MSM_BATR, may not be below s1log. */
        if (p->s1log > GS_CU_MSM_BATR) p->bat = 0;
        /* A round runs over a slab of bslab groups at once (a round of
         * one group at a time left most of the GPU waiting on a few
         * blocks' inversions once the lists were short: 2026-12-07);
         * the slab's lists, 100 bytes an item, at most 16 GiB unless
         * msm_bat_g says how many groups. */
        const uint64_t grp = (uint64_t)p->t * n << p->glv;
        const uint64_t items[2] = { grp / 2 + p->B + 2, grp / 4 + p->B + 2 }; /* a group's, per list */
        const uint64_t per = (items[0] + items[1]) * 100;
        int g = gs_cu_knob(GS_CU_K_MSM_BAT_G);
        if (g != GS_CU_AUTO) {
            p->bslab = (unsigned)g < p->ngrp ? (unsigned)g : p->ngrp;
        } else {
            uint64_t fit = ((uint64_t)16 << 30) / (per ? per : 1);
            if (fit < 1) fit = 1;
            unsigned slabs = (unsigned)((p->ngrp + fit - 1) / fit);
            p->bslab = (p->ngrp + slabs - 1) / slabs;
        }
        p->blist[0] = p->bslab * items[0];
        p->blist[1] = p->bslab * items[1];
    }
    return 1;
}

/* Step 0: flags packed as big | one << 32, for one 64-bit scan. */
__global__ void k_classify(uint64_t *flags, const uint32_t *scalars, uint32_t n)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const uint4 *v = reinterpret_cast<const uint4 *>(scalars + 8 * (size_t)i);
    uint4 lo = v[0], hi = v[1];
    uint32_t upper = lo.y | lo.z | lo.w | hi.x | hi.y | hi.z | hi.w;
    uint64_t one = upper == 0 && lo.x == 1, big = upper != 0 || lo.x > 1;
    flags[i] = big | one << 32;
}

/* Scatters the indices by the exclusive scan of the flags; thread n - 1
 * also writes the two totals. */
__global__ void k_compact(uint32_t *big, uint32_t *one, uint32_t *counts, const uint64_t *flags,
                          const uint64_t *scan, uint32_t n)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint64_t f = flags[i], s = scan[i];
    if (f & 1) big[(uint32_t)s] = i;
    if (f >> 32) one[(uint32_t)(s >> 32)] = i;
    if (i == n - 1) {
        counts[0] = (uint32_t)s + (uint32_t)(f & 1);
        counts[1] = (uint32_t)(s >> 32) + (uint32_t)(f >> 32);
    }
}

/* A signed c-bit digit of v (`limbs` 32-bit limbs) at window w, with the
 * carry of the windows below: d in [0, 2^(c-1)], *neg when it stands for
 * d - 2^c (and carries one into the next window). */
CU_DEV uint32_t signed_digit(const uint32_t *v, int limbs, unsigned w, unsigned c, uint32_t &carry,
                             uint32_t &neg)
{
    const uint32_t mask = (1u << c) - 1, half = 1u << (c - 1);
    unsigned off = w * c, limb = off >> 5, sh = off & 31;
    uint32_t bits = 0;
    if ((int)limb < limbs) {
        bits = v[limb] >> sh;
        if (sh + c > 32 && (int)limb + 1 < limbs) bits |= v[limb + 1] << (32 - sh);
        bits &= mask;
    }
    uint32_t d = bits + carry;
    neg = 0;
    carry = 0;
    if (d > half) {
        d = (1u << c) - d;
        neg = 1;
        carry = 1;
    }
    return d;
}

__global__ void k_digits(uint32_t *keys, uint32_t *vals, const uint32_t *scalars,
                         const uint32_t *idx, uint32_t m, unsigned c, unsigned nwin, unsigned t,
                         unsigned jshift)
{
    uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= m) return;
    uint32_t i = idx[k];
    uint32_t s[8];
    const uint4 *v = reinterpret_cast<const uint4 *>(scalars + 8 * (size_t)i);
    uint4 lo = v[0], hi = v[1];
    s[0] = lo.x; s[1] = lo.y; s[2] = lo.z; s[3] = lo.w;
    s[4] = hi.x; s[5] = hi.y; s[6] = hi.z; s[7] = hi.w;
    uint32_t carry = 0, neg;
    for (unsigned w = 0; w < nwin; w++) {
        uint32_t d = signed_digit(s, 8, w, c, carry, neg);
        unsigned g = w / t, j = w - g * t;
        size_t e = (size_t)w * m + k;
        keys[e] = (g << c) | d;
        vals[e] = i | (j << jshift) | (neg << 31);
    }
}

/* Step 1 with GLV (t = 1, group = window): big scalar k = k1 + k2 X^2
 * (glv.h); window w of half h is entry (2 w + h) m + k, key w << c | |d|,
 * value i | h << jshift | (sign ^ h) << 31 ([k]P = [k1]P - [k2]phi(P):
 * the second half's digits are subtracted). */
__global__ void k_digits_glv(uint32_t *keys, uint32_t *vals, const uint32_t *scalars,
                             const uint32_t *idx, uint32_t m, unsigned c, unsigned nwin,
                             unsigned jshift)
{
    uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= m) return;
    uint32_t i = idx[k];
    uint32_t s[8], half[2][4];
    const uint4 *v = reinterpret_cast<const uint4 *>(scalars + 8 * (size_t)i);
    uint4 lo = v[0], hi = v[1];
    s[0] = lo.x; s[1] = lo.y; s[2] = lo.z; s[3] = lo.w;
    s[4] = hi.x; s[5] = hi.y; s[6] = hi.z; s[7] = hi.w;
    gs_glv_split(half[0], half[1], s);
    for (uint32_t h = 0; h < 2; h++) {
        uint32_t carry = 0, neg;
        for (unsigned w = 0; w < nwin; w++) {
            uint32_t d = signed_digit(half[h], 4, w, c, carry, neg);
            size_t e = (size_t)(2 * w + h) * m + k;
            keys[e] = (w << c) | d;
            vals[e] = i | (h << jshift) | ((neg ^ h) << 31);
        }
    }
}

__global__ void k_bounds(const uint32_t *keys, uint32_t ntot, uint32_t *bstart, uint32_t *bend)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= ntot) return;
    uint32_t k = keys[i];
    if (i == 0 || keys[i - 1] != k) bstart[k] = i;
    if (i == ntot - 1 || keys[i + 1] != k) bend[k] = i + 1;
}

/* Level-1 chunk counts; bucket 0 of every group (digit 0) is empty. */
__global__ void k_chunks1(uint32_t *chunks, const uint32_t *bstart, const uint32_t *bend,
                          uint32_t K, unsigned c, unsigned s1log)
{
    uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k > K) return;
    uint32_t cnt = (k == K || (k & ((1u << c) - 1)) == 0) ? 0 : bend[k] - bstart[k];
    chunks[k] = (cnt + (1u << s1log) - 1) >> s1log;
}

/* Level-1 partial counts of the flat accumulation: key k gets one partial
 * per S1-entry chunk (S1 = 2^s1log) of the whole entry array its entries meet. */
__global__ void k_chunks_flat(uint32_t *chunks, const uint32_t *bstart, const uint32_t *bend,
                              uint32_t K, unsigned c, unsigned s1log)
{
    uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k > K) return;
    uint32_t b = bstart[k], e = bend[k];
    chunks[k] = (k == K || (k & ((1u << c) - 1)) == 0 || e == b) ? 0 : ((e - 1) >> s1log) - (b >> s1log) + 1;
}

/* Later levels: a key's items are the partials coff[k] .. coff[k+1]. */
__global__ void k_chunksN(uint32_t *chunks, const uint32_t *coff, uint32_t K)
{
    uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k > K) return;
    uint32_t cnt = k == K ? 0 : coff[k + 1] - coff[k];
    chunks[k] = (cnt + MSM_S2 - 1) / MSM_S2;
}

/* Level 1 per bucket (msm_flat = 0): thread t sums one chunk of at most
 * S1 entries of one bucket. */
template <class F>
__global__ void __launch_bounds__(128) k_accum1(cu_xyzz<F> *part, const uint32_t *coff, uint32_t K,
                                                const uint32_t *bstart, const uint32_t *bend,
                                                const uint32_t *vals, const cu_aff<F> *pts,
                                                size_t stride, uint32_t skip, unsigned jshift,
                                                unsigned s1log, bool glv)
{
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= coff[K]) return;
    uint32_t k = find_key(coff, K, t);
    uint32_t e = bstart[k] + ((t - coff[k]) << s1log);
    uint32_t end = min(e + (1u << s1log), bend[k]);
    cu_xyzz<F> acc;
    xyzz_set_inf(acc);
    for (; e < end; e++) {
        uint32_t v = vals[e];
        cu_aff<F> p;
        if (entry_get(p, pts, v, stride, skip, jshift, glv) && !aff_is_inf(p))
            xyzz_add_aff<F>(acc, p, (v >> 31) != 0);
    }
    xyzz_store(&part[t], acc);
}

/* One bucket addition of level 1: acc += +-p (madd-2008-s), with the
 * variant's doubling inlined (INL), lazy reduction (LAZY, Fp only:
 * acc in [0, 2p) until xyzz_reduce) and the multiplications out of line
 * by value (CALL: with LAZY cu_ops_lazy_call, Fp, or cu_ops_lazy_call_mix
 * where the variant has CU_FV_FMIX; without, cu_ops_fp2_call, Fp2). */
template <class F, bool INL, bool LAZY, bool CALL = false>
CU_DEV void madd_v(cu_xyzz<F> &acc, const cu_aff<F> &p, bool neg)
{
    if constexpr (LAZY && CALL) {
        if constexpr ((F::cfg::VAR & CU_FV_FMIX) != 0)
            xyzz_add_aff_lz<INL, typename F::cfg, cu_ops_lazy_call_mix>(acc, p, neg);
        else
            xyzz_add_aff_lz<INL, typename F::cfg, cu_ops_lazy_call>(acc, p, neg);
    } else if constexpr (LAZY) xyzz_add_aff_lz<INL>(acc, p, neg);
    else if constexpr (CALL) xyzz_add_aff_ops<F, INL, cu_ops_fp2_call>(acc, p, neg);
    else xyzz_add_aff<F, INL>(acc, p, neg);
}

template <class F, bool LAZY> CU_DEV void store_v(cu_xyzz<F> *dst, cu_xyzz<F> &acc)
{
    if constexpr (LAZY) xyzz_reduce(acc);
    xyzz_store(dst, acc);
}

/* Level 1, flat: thread t sums entries [t S1, (t+1) S1) of the sorted
 * array whatever the buckets, one partial per bucket segment it meets
 * (partial coff[k] + t - bstart[k] / S1), so every thread does S1 entries
 * (per-bucket chunks leave a short last chunk per bucket: with small
 * buckets, wide windows, most threads of a warp wait for its longest).
 * Variants (template, chosen at run time by GS_CU_FV, see fv_launch_flat):
 * INL / LAZY as in madd_v, MINB the blocks per SM asked of ptxas; GLV: the
 * entries of a GLV plan (phi applied to the second half's points; a
 * separate instantiation, so the other kernels stay as they were). */
template <class F, bool INL, bool LAZY, int MINB, bool CALL = false, bool GLV = false>
__global__ void __launch_bounds__(128, MINB)
    k_accum_flat(cu_xyzz<F> *part, const uint32_t *coff, const uint32_t *bstart,
                 const uint32_t *keys, const uint32_t *vals, uint32_t ntot, unsigned c,
                 const cu_aff<F> *pts, size_t stride, uint32_t skip, unsigned jshift, unsigned s1log)
{
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t e = t << s1log;
    if (e >= ntot) return;
    uint32_t end = min(e + (1u << s1log), ntot);
    const uint32_t dmask = (1u << c) - 1;
    uint32_t cur = keys[e];
    cu_xyzz<F> acc;
    xyzz_set_inf(acc);
    for (; e < end; e++) {
        uint32_t k = keys[e];
        if (k != cur) {
            if (cur & dmask) store_v<F, LAZY>(&part[coff[cur] + t - (bstart[cur] >> s1log)], acc);
            xyzz_set_inf(acc);
            cur = k;
        }
        if ((k & dmask) == 0) continue;
        uint32_t v = vals[e];
        cu_aff<F> p;
        if (entry_get(p, pts, v, stride, skip, jshift, GLV) && !aff_is_inf(p))
            madd_v<F, INL, LAZY, CALL>(acc, p, (v >> 31) != 0);
    }
    if (cur & dmask) store_v<F, LAZY>(&part[coff[cur] + t - (bstart[cur] >> s1log)], acc);
}

/* The G1 flat level 1 for variant bits FV (CU_FV_*) and MINB. */
struct fv_flat_args {
    void *part;
    const uint32_t *coff, *bstart, *keys, *vals;
    uint32_t ntot;
    unsigned c;
    const void *pts;
    size_t stride;
    uint32_t skip;
    unsigned jshift, s1log;
    bool glv;
};

template <int FV, int MINB, bool GLV = false>
static void fv_flat(unsigned blocks, cudaStream_t s, const fv_flat_args &a)
{
    typedef cu_fe<cu_cfgv<cu_fp_cfg, FV & (CU_FV_SQR | CU_FV_KMUL | CU_FV_FMUL | CU_FV_FMIX)>> FF;
    k_accum_flat<FF, (FV & CU_FV_INL) != 0, (FV & CU_FV_LAZY) != 0, MINB, (FV & CU_FV_CALL) != 0, GLV>
        <<<blocks, 128, 0, s>>>(
        (cu_xyzz<FF> *)a.part, a.coff, a.bstart, a.keys, a.vals, a.ntot, a.c,
        (const cu_aff<FF> *)a.pts, a.stride, a.skip, a.jshift, a.s1log);
}

/* 0 when the pair was not instantiated. */
static int fv_launch_flat(int fv, int minb, unsigned blocks, cudaStream_t s, const fv_flat_args &a)
{
#define FV_CASE(FV, MINB)                                        \
    if (fv == (FV) && minb == (MINB)) {                          \
        fv_flat<FV, MINB>(blocks, s, a);                         \
        return 1;                                                \
    }
    /* Only the CALL family since 2026-12-04 (sixth session): each variant
     * kernel inlines a whole bucket addition, and with the product-scanning
     * multiplication the older ones (FV 0-7 at MINB 1, 3, 4) tripled the
     * module's compile time; commit f51b6fd has them.  A GLV plan's entries
     * take FV 23 / MINB 3's GLV instantiation whatever FV / MINB say. */
    if (a.glv) {
        fv_flat<23, 3, true>(blocks, s, a);
        return 1;
    }
    /* The knob msm_kmul: the same kernels with the Karatsuba multiplication
     * (CU_FV_KMUL in the field variant), built for MINB 2 and 3. */
    if (gs_cu_knob(GS_CU_K_MSM_KMUL)) fv |= CU_FV_KMUL;
    /* The knob msm_fmul: 1 the lazy multiplications on the FP64 pipe
     * (CU_FV_FMUL), 2 each independent pair split between the pipes
     * (CU_FV_FMIX); MINB 2 and 3, without msm_kmul. */
    int fm = gs_cu_knob(GS_CU_K_MSM_FMUL);
    if (fm == 1) fv |= CU_FV_FMUL;
    else if (fm == 2) fv |= CU_FV_FMIX;
    FV_CASE(23, 2) FV_CASE(23, 3) FV_CASE(23, 4)
    FV_CASE(23 | CU_FV_KMUL, 2) FV_CASE(23 | CU_FV_KMUL, 3)
    FV_CASE(23 | CU_FV_FMUL, 2) FV_CASE(23 | CU_FV_FMUL, 3)
    FV_CASE(23 | CU_FV_FMIX, 2) FV_CASE(23 | CU_FV_FMIX, 3)
#undef FV_CASE
    return 0;
}

/* The knob msm_flat = 0 (GS_CU_MSM_FLAT=0): the per-bucket chunks of
 * k_accum1 instead of the flat accumulation (for A/B measurements). */
static int accum_flat(void)
{
    return gs_cu_knob(GS_CU_K_MSM_FLAT) != 0;
}

template <class F, int NM>
__global__ void __launch_bounds__(128) k_accumN(cu_xyzz<F> *out, const uint32_t *coff_new,
                                                const cu_xyzz<F> *in, const uint32_t *coff_old,
                                                uint32_t K)
{
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= coff_new[K]) return;
    uint32_t k = find_key(coff_new, K, t);
    uint32_t e = coff_old[k] + (t - coff_new[k]) * MSM_S2;
    uint32_t end = min(e + MSM_S2, coff_old[k + 1]);
    cu_xyzz<F> acc, q;
    xyzz_load(acc, &in[e]);
    for (e++; e < end; e++) {
        xyzz_load(q, &in[e]);
        xyzz_add_n<F, NM>(acc, q);
    }
    xyzz_store(&out[t], acc);
}

/* Thread (g, j): buckets jL+1 .. (j+1)L of group g -> T + jL * R.  NM:
 * the point additions out of line (0), or inlined with their
 * multiplications out of line (2, CU_FV_NCALL; xyzz_add_n). */
template <class F, int NM>
__global__ void __launch_bounds__(128) k_reduce(cu_xyzz<F> *seg, const cu_xyzz<F> *part,
                                                const uint32_t *coff, unsigned c, uint32_t ngrp,
                                                uint32_t L, uint32_t T)
{
    uint32_t id = blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= ngrp * T) return;
    uint32_t w = id / T, j = id % T;
    cu_xyzz<F> R, S, q;
    xyzz_set_inf(R);
    xyzz_set_inf(S);
    for (uint32_t b = (j + 1) * L; b > j * L; b--) {
        uint32_t k = (w << c) | b;
        if (coff[k + 1] - coff[k] == 1) {
            xyzz_load(q, &part[coff[k]]);
            xyzz_add_n<F, NM>(R, q);
        }
        xyzz_add_n<F, NM>(S, R);
    }
    /* S += (jL) * R, double-and-add from the top bit. */
    uint32_t mult = j * L;
    if (mult) {
        xyzz_set_inf(q);
        for (int bit = 31 - __clz(mult); bit >= 0; bit--) {
            xyzz_dbl_n<F, NM>(q, q);
            if ((mult >> bit) & 1) xyzz_add_n<F, NM>(q, R);
        }
        xyzz_add_n<F, NM>(S, q);
    }
    xyzz_store(&seg[id], S);
}

template <class F>
__global__ void k_sum_groups(cu_xyzz<F> *out, const cu_xyzz<F> *in, uint32_t groups, uint32_t G)
{
    uint32_t g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= groups) return;
    cu_xyzz<F> acc, q;
    xyzz_load(acc, &in[(size_t)g * G]);
    for (uint32_t i = 1; i < G; i++) {
        xyzz_load(q, &in[(size_t)g * G + i]);
        xyzz_add(acc, q);
    }
    xyzz_store(&out[g], acc);
}

/* Step 6: thread t sums the points of list entries [t S1, (t+1) S1). */
template <class F>
__global__ void __launch_bounds__(128) k_sum_list(cu_xyzz<F> *out, const uint32_t *idx, uint32_t m,
                                                  const cu_aff<F> *pts, uint32_t skip)
{
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t e = t * MSM_S1;
    if (e >= m) return;
    uint32_t end = min(e + MSM_S1, m);
    cu_xyzz<F> acc;
    xyzz_set_inf(acc);
    for (; e < end; e++) {
        uint32_t i = idx[e];
        if (i < skip) continue;
        cu_aff<F> p;
        aff_load(p, &pts[i - skip]);
        if (!aff_is_inf(p)) xyzz_add_aff(acc, p, false);
    }
    xyzz_store(&out[t], acc);
}

/* out[g] = in[g G] + ... + in[min((g+1) G, m) - 1]. */
template <class F>
__global__ void k_sum_runs(cu_xyzz<F> *out, const cu_xyzz<F> *in, uint32_t m, uint32_t G)
{
    uint32_t g = blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t e = g * G;
    if (e >= m) return;
    uint32_t end = min(e + G, m);
    cu_xyzz<F> acc, q;
    xyzz_load(acc, &in[e]);
    for (e++; e < end; e++) {
        xyzz_load(q, &in[e]);
        xyzz_add(acc, q);
    }
    xyzz_store(&out[g], acc);
}

/* *dst += *src (one thread). */
template <class F> __global__ void k_add_into(cu_xyzz<F> *dst, const cu_xyzz<F> *src)
{
    cu_xyzz<F> acc, q;
    xyzz_load(acc, dst);
    xyzz_load(q, src);
    xyzz_add(acc, q);
    xyzz_store(dst, acc);
}

template <class F> __global__ void k_set_inf(cu_xyzz<F> *dst, uint32_t m)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m) return;
    cu_xyzz<F> z;
    xyzz_set_inf(z);
    xyzz_store(&dst[i], z);
}

static unsigned nblk(size_t n, unsigned t) { return (unsigned)((n + t - 1) / t); }

/* Carves the scratch region; returns the bytes needed when base is NULL. */
struct msm_bufs {
    uint32_t *idx_big, *idx_one, *keys[2], *vals[2], *bstart, *bend, *chunks, *counts;
    uint32_t *coff[GS_CU_MSM_MAXLVL + 1];
    char *part[2], *seg[2];
    uint32_t *boff[GS_CU_MSM_BATR + 1]; /* msm_bat: round r's offsets (r < its rounds) */
    char *blist[2];
    uint32_t *bkey[2];
};

static size_t carve(msm_bufs *b, char *base, const msm_plan *p)
{
    size_t off = 0, psz = p->psz;
#define CARVE(ptr, type, count)                                   \
    do {                                                          \
        (ptr) = (type *)(base ? base + off : NULL);               \
        off += (((size_t)(count) * sizeof(type)) + 255) & ~(size_t)255; \
    } while (0)
    CARVE(b->idx_big, uint32_t, p->n);
    CARVE(b->idx_one, uint32_t, p->n);
    /* keys[0] and keys[1] double as the classification's 64-bit flags and
     * scan (n * 8 bytes each <= n * nwin * 4: nwin >= 11 for c <= 24). */
    for (int i = 0; i < 2; i++) {
        CARVE(b->keys[i], uint32_t, p->ntot_max > 2 * p->n ? p->ntot_max : 2 * p->n);
        CARVE(b->vals[i], uint32_t, p->ntot_max);
    }
    CARVE(b->bstart, uint32_t, p->K);
    CARVE(b->bend, uint32_t, p->K);
    CARVE(b->chunks, uint32_t, p->K + 1);
    CARVE(b->counts, uint32_t, 16);
    for (int l = 0; l <= GS_CU_MSM_MAXLVL; l++) {
        if (l <= p->maxlvl) CARVE(b->coff[l], uint32_t, p->K + 1);
        else b->coff[l] = NULL;
    }
    CARVE(b->part[0], char, p->t1max * psz);
    CARVE(b->part[1], char, p->t2max * psz);
    CARVE(b->seg[0], char, (size_t)p->ngrp * p->T * psz);
    CARVE(b->seg[1], char, (size_t)p->ngrp * p->T * psz);
    for (int r = 0; r <= GS_CU_MSM_BATR; r++) {
        if (p->bat && r >= 1 && r < GS_CU_MSM_BATR) CARVE(b->boff[r], uint32_t, p->K + 1);
        else b->boff[r] = NULL;
    }
    for (int i = 0; i < 2; i++) {
        if (p->bat) {
            CARVE(b->blist[i], char, p->blist[i] * 96);
            CARVE(b->bkey[i], uint32_t, p->blist[i]);
        } else {
            b->blist[i] = NULL;
            b->bkey[i] = NULL;
        }
    }
#undef CARVE
    return off;
}

static size_t cub_bytes_for(const msm_plan *p, cudaStream_t s)
{
    size_t sort = 0, scan = 0, scan64 = 0, red = 0;
    cub::DoubleBuffer<uint32_t> dk(NULL, NULL), dv(NULL, NULL);
    size_t seg = (size_t)p->t * p->n << p->glv;
    (void)cub::DeviceRadixSort::SortPairs(NULL, sort, dk, dv, (int)(seg ? seg : 1), 0, (int)p->c, s);
    (void)cub::DeviceScan::ExclusiveSum(NULL, scan, (uint32_t *)NULL, (uint32_t *)NULL,
                                        (int)(p->K + 1), s);
    (void)cub::DeviceScan::ExclusiveSum(NULL, scan64, (uint64_t *)NULL, (uint64_t *)NULL,
                                        (int)(p->n ? p->n : 1), s);
    (void)cub::DeviceReduce::Max(NULL, red, (uint32_t *)NULL, (uint32_t *)NULL, (int)(p->K + 1), s);
    size_t m = sort;
    if (scan > m) m = scan;
    if (scan64 > m) m = scan64;
    if (red > m) m = red;
    return m;
}

extern "C" size_t gs_cu_msm_scratch_bytes(size_t n, unsigned c, unsigned t, int g2)
{
    msm_plan p;
    msm_bufs b;
    if (!plan_msm(&p, n, (int)c, t, g2)) return 0;
    return carve(&b, NULL, &p) + cub_bytes_for(&p, 0);
}

static gs_status ensure_scratch(gs_cu_dev *d, const msm_plan *p, msm_bufs *b, gs_err *err)
{
    size_t need = carve(b, NULL, p);
    size_t cub_need = cub_bytes_for(p, d->stream);
    CU_TRY(cudaGetLastError());
    if (need > d->msm.bytes || cub_need > d->msm.cub_bytes) {
        /* Work queued on either stream may still use the old regions. */
        for (int i = 0; i < 2; i++) CU_TRY(cudaStreamSynchronize(d->streams[i]));
    }
    if (need > d->msm.bytes) {
        cudaError_t e = cu_region_renew(&d->msm.base, &d->msm.bytes, need);
        if (e != cudaSuccess)
            return GS_ERR(err, GS_ERR_NOMEM, "msm", "scratch of %zu MiB for n = %zu: %s",
                          need >> 20, p->n, cudaGetErrorString(e));
    }
    if (cub_need > d->msm.cub_bytes) CU_TRY(cu_region_renew(&d->msm.cub_temp, &d->msm.cub_bytes, cub_need));
    carve(b, (char *)d->msm.base, p);
    return GS_OK;
}

/* Reads `count` words of device `src` into d->cnt_host (waits). */
static gs_status read_counts(gs_cu_dev *d, const uint32_t *src, size_t count, gs_err *err)
{
    CU_TRY(cudaMemcpyAsync(d->cnt_host, src, count * sizeof(uint32_t), cudaMemcpyDeviceToHost,
                           d->stream));
    CU_TRY(cudaStreamSynchronize(d->stream));
    CU_TRY(cudaGetLastError());
    return GS_OK;
}

extern "C" gs_status gs_cu_msm_prepare(gs_cu_dev *d, const gs_scalar *scalars, size_t n,
                                       int window, unsigned t, int g2, uint32_t *n_big,
                                       uint32_t *n_one, gs_err *err)
{
    gs_status st;
    msm_plan p;
    msm_bufs b;
    cudaStream_t s = d->stream;
    cu_msm_prep *pr = &d->prep;
    pr->valid = 0;
    if (n_big) *n_big = 0;
    if (n_one) *n_one = 0;
    if (window <= 0 && t > 1)
        return GS_ERR(err, GS_ERR_ARG, "msm", "precomputed copies (t = %u) need an explicit window", t);
    if (!plan_msm(&p, n ? n : 1, window, t, g2))
        return GS_ERR(err, GS_ERR_RANGE, "msm", "n = %zu with window %d and %u copies is out of range",
                      n, window, t);
    CU_TRY(cudaSetDevice(d->device));
    pr->p = p;
    pr->n_big = pr->n_one = 0;
    pr->levels = 0;
    pr->bat_rounds = 0;
    pr->sel = 0;
    if (n == 0) {
        pr->p.n = 0;
        pr->valid = 1;
        return GS_OK;
    }
    if ((st = ensure_scratch(d, &p, &b, err)) != GS_OK) return st;

    /* 0. classify and compact. */
    uint64_t *flags = (uint64_t *)b.keys[0], *scan = (uint64_t *)b.keys[1];
    k_classify<<<nblk(n, 256), 256, 0, s>>>(flags, (const uint32_t *)scalars, (uint32_t)n);
    CU_LAUNCHED("k_classify");
    size_t tb = d->msm.cub_bytes;
    CU_TRY(cub::DeviceScan::ExclusiveSum(d->msm.cub_temp, tb, flags, scan, (int)n, s));
    k_compact<<<nblk(n, 256), 256, 0, s>>>(b.idx_big, b.idx_one, b.counts, flags, scan, (uint32_t)n);
    CU_LAUNCHED("k_compact");
    if ((st = read_counts(d, b.counts, 2, err)) != GS_OK) return st;
    uint32_t nb = d->cnt_host[0], no = d->cnt_host[1];
    if ((uint64_t)nb + no > n)
        return GS_ERR(err, GS_ERR_INTERNAL, "msm", "classification counts %u + %u > n = %zu", nb, no, n);
    pr->n_big = nb;
    pr->n_one = no;
    if (n_big) *n_big = nb;
    if (n_one) *n_one = no;

    if (nb > 0) {
        /* 1. digits, 2. per-group sort on the c digit bits.  Groups have
         * t * nb entries (2 nb with GLV's halves; the last may have fewer
         * windows); a group whose sort ends in the other half of the double
         * buffer is copied back. */
        uint32_t ntot = nb * p.nwin << p.glv;
        if (p.glv)
            k_digits_glv<<<nblk(nb, 256), 256, 0, s>>>(b.keys[0], b.vals[0], (const uint32_t *)scalars,
                                                       b.idx_big, nb, p.c, p.nwin, p.jshift);
        else
            k_digits<<<nblk(nb, 256), 256, 0, s>>>(b.keys[0], b.vals[0], (const uint32_t *)scalars,
                                                   b.idx_big, nb, p.c, p.nwin, p.t, p.jshift);
        CU_LAUNCHED("k_digits");
        int sel = -1;
        for (unsigned g = 0; g < p.ngrp; g++) {
            unsigned w0 = g * p.t, w1 = w0 + p.t < p.nwin ? w0 + p.t : p.nwin;
            size_t o = (size_t)w0 * nb << p.glv, len = (size_t)(w1 - w0) * nb << p.glv;
            cub::DoubleBuffer<uint32_t> wk(b.keys[0] + o, b.keys[1] + o),
                wv(b.vals[0] + o, b.vals[1] + o);
            tb = d->msm.cub_bytes;
            CU_TRY(cub::DeviceRadixSort::SortPairs(d->msm.cub_temp, tb, wk, wv, (int)len, 0,
                                                   (int)p.c, s));
            if (sel < 0) sel = wk.selector;
            if (wk.selector != sel) {
                CU_TRY(cudaMemcpyAsync(b.keys[sel] + o, wk.Current(), len * 4,
                                       cudaMemcpyDeviceToDevice, s));
                CU_TRY(cudaMemcpyAsync(b.vals[sel] + o, wv.Current(), len * 4,
                                       cudaMemcpyDeviceToDevice, s));
            }
        }
        pr->sel = sel;
        CU_TRY(cudaMemsetAsync(b.bstart, 0, sizeof(uint32_t) * p.K, s));
        CU_TRY(cudaMemsetAsync(b.bend, 0, sizeof(uint32_t) * p.K, s));
        k_bounds<<<nblk(ntot, 256), 256, 0, s>>>(b.keys[sel], ntot, b.bstart, b.bend);
        CU_LAUNCHED("k_bounds");

        /* 3. level offsets: level 1 from the bucket sizes, then as many
         * levels as the largest bucket needs.  msm_bat: the tree's rounds
         * first (ceil log2 of the largest bucket, 1 .. GS_CU_MSM_BATR),
         * round r's offsets the scan of ceil(m / 2^r), level 1 the last
         * round's. */
        pr->flat = accum_flat();
        pr->ba = pr->flat && ba_on(g2) && !p.bat;
        pr->bat_rounds = 0;
        uint64_t bound;
        if (p.bat) {
            /* The largest bucket sets the rounds; level 1's largest count
             * is then ceil(it / 2^R), no second reduction needed. */
            k_chunks1<<<nblk(p.K + 1, 256), 256, 0, s>>>(b.chunks, b.bstart, b.bend, p.K, p.c, 0);
            CU_LAUNCHED("k_chunks1");
            tb = d->msm.cub_bytes;
            CU_TRY(cub::DeviceReduce::Max(d->msm.cub_temp, tb, b.chunks, b.counts + 2, (int)(p.K + 1), s));
            if ((st = read_counts(d, b.counts + 2, 1, err)) != GS_OK) return st;
            const uint64_t most = d->cnt_host[0];
            int R = 1;
            while (R < GS_CU_MSM_BATR && ((uint64_t)1 << R) < most) R++;
            pr->bat_rounds = R;
            for (int r = 1; r <= R; r++) {
                k_chunks1<<<nblk(p.K + 1, 256), 256, 0, s>>>(b.chunks, b.bstart, b.bend, p.K, p.c, (unsigned)r);
                CU_LAUNCHED("k_chunks1");
                tb = d->msm.cub_bytes;
                CU_TRY(cub::DeviceScan::ExclusiveSum(d->msm.cub_temp, tb, b.chunks, r < R ? b.boff[r] : b.coff[0],
                                                     (int)(p.K + 1), s));
            }
            bound = (most + ((uint64_t)1 << R) - 1) >> R;
        } else {
            if (pr->flat)
                k_chunks_flat<<<nblk(p.K + 1, 256), 256, 0, s>>>(b.chunks, b.bstart, b.bend, p.K, p.c, p.s1log);
            else
                k_chunks1<<<nblk(p.K + 1, 256), 256, 0, s>>>(b.chunks, b.bstart, b.bend, p.K, p.c, p.s1log);
            CU_LAUNCHED("k_chunks1");
            tb = d->msm.cub_bytes;
            CU_TRY(cub::DeviceReduce::Max(d->msm.cub_temp, tb, b.chunks, b.counts + 2, (int)(p.K + 1), s));
            tb = d->msm.cub_bytes;
            CU_TRY(cub::DeviceScan::ExclusiveSum(d->msm.cub_temp, tb, b.chunks, b.coff[0],
                                                 (int)(p.K + 1), s));
            if ((st = read_counts(d, b.counts + 2, 1, err)) != GS_OK) return st;
            bound = d->cnt_host[0];
        }
        int levels = 0;
        while (bound > 1) {
            bound = (bound + MSM_S2 - 1) / MSM_S2;
            levels++;
        }
        if (levels > p.maxlvl)
            return GS_ERR(err, GS_ERR_INTERNAL, "msm", "%d accumulation levels > %d", levels, p.maxlvl);
        for (int l = 1; l <= levels; l++) {
            k_chunksN<<<nblk(p.K + 1, 256), 256, 0, s>>>(b.chunks, b.coff[l - 1], p.K);
            CU_LAUNCHED("k_chunksN");
            tb = d->msm.cub_bytes;
            CU_TRY(cub::DeviceScan::ExclusiveSum(d->msm.cub_temp, tb, b.chunks, b.coff[l],
                                                 (int)(p.K + 1), s));
        }
        pr->levels = levels;
    }
    pr->valid = 1;
    return GS_OK;
}

/* One point set over the prepared scalars: F = cu_fp (G1) or cu_fp2 (G2). */
template <class F>
static gs_status msm_prepared(gs_cu_dev *d, int slot, const void *pts_v, size_t stride, size_t skip,
                              gs_err *err)
{
    typedef cu_xyzz<F> X;
    const int g2 = sizeof(F) == sizeof(cu_fp2);
    const cu_aff<F> *pts = (const cu_aff<F> *)pts_v;
    cu_msm_prep *pr = &d->prep;
    const msm_plan &p = pr->p;
    msm_bufs b;
    cudaStream_t s = d->stream;
    if (slot < 0 || slot >= GS_CU_MSM_SLOTS)
        return GS_ERR(err, GS_ERR_ARG, "msm", "result slot %d", slot);
    if (!pr->valid) return GS_ERR(err, GS_ERR_STATE, "msm", "no prepared scalars");
    if (p.psz != sizeof(X))
        return GS_ERR(err, GS_ERR_STATE, "msm", "scalars prepared for G%d, not G%d", g2 ? 1 : 2,
                      g2 ? 2 : 1);
    if (p.n == 0 || pr->n_big + pr->n_one == 0) {
        d->res_g2[slot] = g2;
        d->res_nwin[slot] = 0;
        d->res_parts[slot] = 0;
        return GS_OK;
    }
    if (skip > p.n || (p.t > 1 && stride < p.n - skip) || skip >= (1u << p.jshift))
        return GS_ERR(err, GS_ERR_ARG, "msm", "skip %zu / stride %zu for %zu scalars", skip, stride, p.n);
    CU_TRY(cudaSetDevice(d->device));
    carve(&b, (char *)d->msm.base, &p);

    int sc = 0;
    uint32_t per = 1;
    /* G1: level N and the bucket reduction with their additions' multiplications
     * out of line (CU_FV_NCALL), else the additions out of line (the inlined
     * CU_FV_INLN kernels were retired with FV 0-7, see fv_launch_flat). */
    const int nm = g2 ? 0 : (cu_fv_bits() & CU_FV_NCALL) ? 2 : 0;
    /* LAUNCH(NM) for the nm in force; G2 instantiates only NM 0 (nm is 0 there,
     * and NM 2's out-of-line bodies take an Fp element). */
#define BY_NM(LAUNCH)                     \
    do {                                  \
        if constexpr (!g2) {              \
            if (nm == 2) LAUNCH(2);       \
            else LAUNCH(0);               \
        } else {                          \
            LAUNCH(0);                    \
        }                                 \
    } while (0)
    if (pr->n_big > 0) {
        /* 4. accumulation, level 1 from the sorted entries, then the levels. */
        const bool glv = p.glv != 0;
        if (pr->flat || pr->bat_rounds > 0) {
            uint32_t ntot = pr->n_big * p.nwin << p.glv;
            unsigned nb1 = nblk((ntot + (1u << p.s1log) - 1) >> p.s1log, 128);
            if constexpr (sizeof(F) == sizeof(cu_fp2)) {
                /* CU_FV_G2CALL: the Fp2 multiplications by value, the doubling inlined. */
                auto k = (cu_fv_bits() & CU_FV_G2CALL) ? k_accum_flat<F, true, false, 1, true>
                                                       : k_accum_flat<F, false, false, 1>;
                k<<<nb1, 128, 0, s>>>((X *)b.part[0], b.coff[0], b.bstart, b.keys[pr->sel],
                                      b.vals[pr->sel], ntot, p.c, pts, stride, (uint32_t)skip,
                                      p.jshift, p.s1log);
            } else if (pr->bat_rounds > 0) {
                cu_msm_bat_in in;
                memset(&in, 0, sizeof in);
                in.keys = b.keys[pr->sel];
                in.vals = b.vals[pr->sel];
                in.bstart = b.bstart;
                in.bend = b.bend;
                in.nb = pr->n_big;
                in.pts = pts;
                in.stride = stride;
                in.skip = (uint32_t)skip;
                in.rounds = pr->bat_rounds;
                for (int r = 1; r < pr->bat_rounds; r++) in.off[r] = b.boff[r];
                in.off[pr->bat_rounds] = b.coff[0];
                for (int i = 0; i < 2; i++) {
                    in.list[i] = b.blist[i];
                    in.lkey[i] = b.bkey[i];
                }
                in.part = b.part[0];
                gs_status st = cu_msm_bat_launch(d, p, in, err);
                if (st != GS_OK) return st;
            } else if (pr->ba) {
                gs_status st = cu_msm_ba_launch(d, p, b.part[0], b.coff[0], b.bstart, b.keys[pr->sel],
                                                b.vals[pr->sel], ntot, pts, stride, (uint32_t)skip, err);
                if (st != GS_OK) return st;
            } else {
                fv_flat_args a = { b.part[0], b.coff[0], b.bstart, b.keys[pr->sel], b.vals[pr->sel],
                                   ntot, p.c, pts, stride, (uint32_t)skip, p.jshift, p.s1log, glv };
                if (!fv_launch_flat(cu_fv_bits() & (7 | CU_FV_CALL), cu_msm_minb(), nb1, s, a))
                    return GS_ERR(err, GS_ERR_ARG, "msm", "GS_CU_FV = %d / GS_CU_MSM_MINB = %d / msm_kmul = %d / "
                                  "msm_fmul = %d: no such variant", cu_fv_bits(), cu_msm_minb(),
                                  gs_cu_knob(GS_CU_K_MSM_KMUL), gs_cu_knob(GS_CU_K_MSM_FMUL));
            }
        } else {
            k_accum1<F><<<nblk(p.t1max, 128), 128, 0, s>>>((X *)b.part[0], b.coff[0], p.K, b.bstart,
                                                           b.bend, b.vals[pr->sel], pts, stride,
                                                           (uint32_t)skip, p.jshift, p.s1log, glv);
        }
        CU_LAUNCHED("k_accum1");
        int cur = 0;
        for (int l = 1; l <= pr->levels; l++) {
            uint32_t cap = cur == 0 ? p.t2max : p.t1max;
#define ACCUMN(NM_)                                                                             \
    k_accumN<F, NM_><<<nblk(cap, 128), 128, 0, s>>>((X *)b.part[cur ^ 1], b.coff[l],            \
                                                    (const X *)b.part[cur], b.coff[l - 1], p.K)
            BY_NM(ACCUMN);
#undef ACCUMN
            CU_LAUNCHED("k_accumN");
            cur ^= 1;
        }
        /* 5. bucket reduction, then runs down to at most GS_CU_MSM_PARTS per group. */
#define REDUCE(NM_)                                                                          \
    k_reduce<F, NM_><<<nblk((size_t)p.ngrp * p.T, 128), 128, 0, s>>>(                        \
        (X *)b.seg[0], (const X *)b.part[cur], b.coff[pr->levels], p.c, p.ngrp, p.L, p.T)
        BY_NM(REDUCE);
#undef REDUCE
#undef BY_NM
        CU_LAUNCHED("k_reduce");
        per = p.T;
        while (per > GS_CU_MSM_PARTS) {
            uint32_t G = per >= GS_CU_MSM_PARTS * GS_CU_MSM_PARTS ? GS_CU_MSM_PARTS : per / GS_CU_MSM_PARTS;
            uint32_t groups = p.ngrp * (per / G);
            k_sum_groups<F><<<nblk(groups, 128), 128, 0, s>>>((X *)b.seg[sc ^ 1],
                                                              (const X *)b.seg[sc], groups, G);
            CU_LAUNCHED("k_sum_groups");
            sc ^= 1;
            per /= G;
        }
    } else {
        k_set_inf<F><<<nblk(p.ngrp, 128), 128, 0, s>>>((X *)b.seg[0], p.ngrp);
        CU_LAUNCHED("k_set_inf");
    }
    if (pr->n_one > 0) {
        /* 6. the points of the 1-scalars, into group 0's first part (the
         * bucket buffers are free again: stream order). */
        uint32_t m = (pr->n_one + MSM_S1 - 1) / MSM_S1;
        k_sum_list<F><<<nblk(m, 128), 128, 0, s>>>((X *)b.part[0], b.idx_one, pr->n_one, pts,
                                                   (uint32_t)skip);
        CU_LAUNCHED("k_sum_list");
        int cur = 0;
        while (m > 1) {
            uint32_t m2 = (m + MSM_S2 - 1) / MSM_S2;
            k_sum_runs<F><<<nblk(m2, 128), 128, 0, s>>>((X *)b.part[cur ^ 1], (const X *)b.part[cur],
                                                        m, MSM_S2);
            CU_LAUNCHED("k_sum_runs");
            cur ^= 1;
            m = m2;
        }
        k_add_into<F><<<1, 1, 0, s>>>((X *)b.seg[sc], (const X *)b.part[cur]);
        CU_LAUNCHED("k_add_into");
    }
    size_t cnt = (size_t)p.ngrp * per;
    static_assert(GS_CU_SLOT_POINTS * sizeof(X) <= GS_CU_SLOT_BYTES, "result slot too small");
    CU_TRY(cudaMemcpyAsync(d->res_dev + (size_t)slot * GS_CU_SLOT_BYTES, b.seg[sc],
                           cnt * sizeof(X), cudaMemcpyDeviceToDevice, s));
    d->res_g2[slot] = g2;
    d->res_nwin[slot] = (int)p.ngrp;
    d->res_c[slot] = (int)(p.c * p.t);
    d->res_parts[slot] = (int)per;
    return GS_OK;
}

extern "C" gs_status gs_cu_msm_g1_prepared(gs_cu_dev *d, int slot, const void *pts, size_t stride,
                                           size_t skip, gs_err *err)
{
    return msm_prepared<cu_fp>(d, slot, pts, stride, skip, err);
}

extern "C" gs_status gs_cu_msm_g2_prepared(gs_cu_dev *d, int slot, const void *pts, size_t stride,
                                           size_t skip, gs_err *err)
{
    return msm_prepared<cu_fp2>(d, slot, pts, stride, skip, err);
}

extern "C" gs_status gs_cu_msm_g1(gs_cu_dev *d, int slot, const void *pts, const gs_scalar *scalars,
                                  size_t n, int window, gs_err *err)
{
    gs_status st;
    if (slot < 0 || slot >= GS_CU_MSM_SLOTS)
        return GS_ERR(err, GS_ERR_ARG, "msm", "result slot %d", slot);
    if ((st = gs_cu_msm_prepare(d, scalars, n, window, 1, 0, NULL, NULL, err)) != GS_OK) return st;
    return msm_prepared<cu_fp>(d, slot, pts, n, 0, err);
}

extern "C" gs_status gs_cu_msm_g2(gs_cu_dev *d, int slot, const void *pts, const gs_scalar *scalars,
                                  size_t n, int window, gs_err *err)
{
    gs_status st;
    if (slot < 0 || slot >= GS_CU_MSM_SLOTS)
        return GS_ERR(err, GS_ERR_ARG, "msm", "result slot %d", slot);
    if ((st = gs_cu_msm_prepare(d, scalars, n, window, 1, 1, NULL, NULL, err)) != GS_OK) return st;
    return msm_prepared<cu_fp2>(d, slot, pts, n, 0, err);
}

/* ---- window plans and precomputed copies ---------------------------------- */

/* A knob's value, or dflt where it is auto. */
static unsigned knob_or(gs_cu_knob_id k, unsigned dflt)
{
    int v = gs_cu_knob(k);
    return v == GS_CU_AUTO ? dflt : (unsigned)v;
}

/*
 * With copies, the cost model in madd-equivalents: n * nwin accumulations
 * plus, per group, 2 * 2^(c-1) bucket additions (an XYZZ add is ~1.4
 * madds) and the jL multiplications of the reduction (~4.3 in all), plus
 * the sort's passes (about 1/16 of a madd per entry and 8-bit pass).
 * Windows wider than GS_CU_MSM_CMAX are not considered; its default is
 * 20: on the H200 (bench/RESULTS.md, copies sweep at 2^24) c = 22 and 24
 * ran slower than 20 although they take fewer madds.  From 2^26 points, for
 * a caller that asks (wide: cuda-bench's standalone MSM; not the prove's
 * planner, whose plans were measured at 20) it is 22 with 8 copies or more
 * and 24 with 11 or more (one bucket set for the 11 windows); measured at
 * 2^26 with CU_FV_NCALL: c = 24 / 16 copies
 * 419.9 ms, c = 22 / 12 copies 427.4; before it, c = 22 with 8 / 12 / 16
 * copies 450 / 436 / 436 ms against 463 / - / 459 at c = 20, and with 4
 * copies 467 against 464, so not there.  For every caller it is 22 from
 * just over 2^23 to 2^25 points with 6 copies or more: the 2^24 prove
 * (plans H c = 22 t = 6, witness c = 22 t = 12) took 473.8 ms against
 * 483.6 at 20 on the H200 and 491.7 against 501.1 on an H100 (two pairs),
 * and 16 copies of 2^24 points 99.1 / 99.9 ms against 102.0 / 102.8
 * (bench/RESULTS.md, round 3 sessions 3 and 14).  Without copies the
 * measured automatic window wins.  glv: 2n entries of 128-bit halves (glv_window).
 */
static double msm_cost(size_t n, unsigned c, unsigned t, int glv)
{
    unsigned nwin = windows_bits(c, glv ? 128 : 255);
    if (t > nwin) t = nwin;
    unsigned ngrp = (nwin + t - 1) / t;
    double passes = (c + 7) / 8;
    return (double)(n << (glv ? 1 : 0)) * nwin * (1.0 + passes / 16.0) +
           4.3 * ngrp * (double)(1u << (c - 1));
}

extern "C" double gs_cu_msm_pick(size_t n, unsigned max_copies, int wide, unsigned *c, unsigned *t)
{
    unsigned bc = auto_window(n, 0), bt = 1;
    if (max_copies > 1 && n >= 2 && n <= ((size_t)1 << 27)) {
        double best = -1;
        unsigned cdef = 20;
        if (wide && n >= ((size_t)1 << 26)) cdef = max_copies >= 11 ? 24 : max_copies >= 8 ? 22 : 20;
        else if (n > ((size_t)1 << 23) && n <= ((size_t)1 << 25) && max_copies >= 6) cdef = 22;
        unsigned cmax = knob_or(GS_CU_K_MSM_CMAX, cdef);
        if (cmax > 24) cmax = 24;
        for (unsigned cc = 12; cc <= cmax; cc++) {
            unsigned nwin = windows_of(cc);
            unsigned tt = max_copies < nwin ? max_copies : nwin;
            if (tt > 16) tt = 16;
            if ((uint64_t)n * nwin >= (1ull << 31)) continue;
            double cost = msm_cost(n, cc, tt, 0);
            if (best < 0 || cost < best) {
                best = cost;
                bc = cc;
                bt = tt;
            }
        }
    }
    bc = knob_or(GS_CU_K_MSM_C, bc);
    bt = knob_or(GS_CU_K_MSM_T, bt);
    if (bt > max_copies) bt = max_copies ? max_copies : 1;
    if (bc < 4 || bc > 24) bc = auto_window(n, 0);
    *c = bc;
    *t = bt;
    return msm_cost(n, bc, bt, 0);
}

/* Batch [off, off + cnt) of the points: copies 1 .. t-1 (see the file comment).
 * tmp: (t-1) * cnt XYZZ points, pref: (t-1) * cnt prefix products. */
template <class F>
__global__ void __launch_bounds__(128) k_precompute(cu_aff<F> *pts, size_t stride, size_t off,
                                                    uint32_t cnt, unsigned c, unsigned t,
                                                    cu_xyzz<F> *tmp, F *pref)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= cnt) return;
    size_t k = off + i;
    cu_aff<F> p;
    aff_load(p, &pts[k]);
    if (aff_is_inf(p)) {
        cu_aff<F> z;
        fe_zero(z.x);
        fe_zero(z.y);
        for (unsigned j = 1; j < t; j++) {
            fe_store(&pts[j * stride + k].x, z.x);
            fe_store(&pts[j * stride + k].y, z.y);
        }
        return;
    }
    cu_xyzz<F> acc;
    acc.X = p.x;
    acc.Y = p.y;
    fe_one(acc.ZZ);
    fe_one(acc.ZZZ);
    F prod, m;
    fe_one(prod);
    for (unsigned j = 1; j < t; j++) {
        for (unsigned b = 0; b < c; b++) xyzz_dbl(acc, acc);
        /* Odd curve order: a doubling never reaches infinity, so ZZ != 0. */
        xyzz_store(&tmp[(size_t)(j - 1) * cnt + i], acc);
        fe_mul(m, acc.ZZ, acc.ZZZ);
        fe_mul(prod, prod, m);
        fe_store(&pref[(size_t)(j - 1) * cnt + i], prod);
    }
    F inv, invj, zi, zzi;
    fe_inv(inv, prod); /* 1 / (m_1 ... m_(t-1)) */
    for (unsigned j = t - 1; j >= 1; j--) {
        xyzz_load(acc, &tmp[(size_t)(j - 1) * cnt + i]);
        if (j > 1) {
            F pj;
            fe_load(pj, &pref[(size_t)(j - 2) * cnt + i]);
            fe_mul(invj, inv, pj); /* 1 / m_j */
        } else {
            invj = inv;
        }
        fe_mul(m, acc.ZZ, acc.ZZZ);
        fe_mul(inv, inv, m);       /* 1 / (m_1 ... m_(j-1)) */
        fe_mul(zi, invj, acc.ZZZ); /* 1 / ZZ */
        fe_mul(zzi, invj, acc.ZZ); /* 1 / ZZZ */
        cu_aff<F> q;
        fe_mul(q.x, acc.X, zi);
        fe_mul(q.y, acc.Y, zzi);
        fe_store(&pts[j * stride + k].x, q.x);
        fe_store(&pts[j * stride + k].y, q.y);
    }
}

template <class F>
static gs_status precompute(gs_cu_dev *d, void *pts, size_t n, size_t stride, unsigned c, unsigned t,
                            gs_err *err)
{
    if (t <= 1 || n == 0) return GS_OK;
    if (t > 16 || c < 1 || c > 24 || stride < n)
        return GS_ERR(err, GS_ERR_ARG, "precompute", "t = %u, c = %u, stride %zu for %zu points",
                      t, c, stride, n);
    CU_TRY(cudaSetDevice(d->device));
    /* Batches of at most ~1.5 GiB of temporaries. */
    size_t per = (sizeof(cu_xyzz<F>) + sizeof(F)) * (t - 1);
    size_t cnt = ((size_t)3 << 29) / per;
    if (cnt > n) cnt = n;
    if (cnt > ((size_t)1 << 24)) cnt = (size_t)1 << 24;
    void *tmp = NULL;
    cudaError_t e = cudaMalloc(&tmp, cnt * per);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return GS_ERR(err, GS_ERR_NOMEM, "precompute", "%zu MiB of temporaries: %s",
                      (cnt * per) >> 20, cudaGetErrorString(e));
    }
    gs_status st = GS_OK;
    cu_xyzz<F> *xt = (cu_xyzz<F> *)tmp;
    F *pref = (F *)((char *)tmp + cnt * sizeof(cu_xyzz<F>) * (t - 1));
    for (size_t off = 0; off < n; off += cnt) {
        uint32_t m = (uint32_t)(n - off < cnt ? n - off : cnt);
        k_precompute<F><<<nblk(m, 128), 128, 0, d->stream>>>((cu_aff<F> *)pts, stride, off, m, c, t,
                                                             xt, pref);
        e = cudaGetLastError();
        if (e != cudaSuccess) break;
    }
    if (e == cudaSuccess) e = cudaStreamSynchronize(d->stream);
    if (e != cudaSuccess)
        st = GS_ERR(err, GS_ERR_CUDA, "precompute", "%s", cudaGetErrorString(e));
    cudaFree(tmp);
    return st;
}

extern "C" gs_status gs_cu_g1_precompute(gs_cu_dev *d, void *pts, size_t n, size_t stride,
                                         unsigned c, unsigned t, gs_err *err)
{
    return precompute<cu_fp>(d, pts, n, stride, c, t, err);
}

extern "C" gs_status gs_cu_g2_precompute(gs_cu_dev *d, void *pts, size_t n, size_t stride,
                                         unsigned c, unsigned t, gs_err *err)
{
    return precompute<cu_fp2>(d, pts, n, stride, c, t, err);
}

static size_t slot_point_size(const gs_cu_dev *d, int slot)
{
    return d->res_g2[slot] ? sizeof(cu_g2_xyzz) : sizeof(cu_g1_xyzz);
}

extern "C" gs_status gs_cu_msm_fetch(gs_cu_dev *d, int slot, gs_err *err)
{
    if (slot < 0 || slot >= GS_CU_MSM_SLOTS)
        return GS_ERR(err, GS_ERR_ARG, "msm", "result slot %d", slot);
    size_t off = (size_t)slot * GS_CU_SLOT_BYTES;
    size_t cnt = (size_t)d->res_nwin[slot] * d->res_parts[slot];
    if (cnt == 0) return GS_OK;
    CU_TRY(cudaSetDevice(d->device));
    CU_TRY(cudaMemcpyAsync(d->res_host + off, d->res_dev + off, cnt * slot_point_size(d, slot),
                           cudaMemcpyDeviceToHost, d->stream));
    return GS_OK;
}

/*
 * The host side of a result, per curve: H names the parts type and the
 * curve layer's Jacobian functions (curve.h), so take and combine are
 * written once.
 */
struct host_g1 {
    typedef gs_cu_msm_parts parts;
    typedef gs_g1 jac;
    typedef gs_g1_xyzz xyzz;
    typedef cu_g1_xyzz dev;
    static const int g2 = 0;
    static void set_inf(jac *o) { gs_g1_set_inf(o); }
    static int is_inf(const jac *a) { return gs_g1_is_inf(a); }
    static void dbl(jac *o, const jac *a) { gs_g1_dbl(o, a); }
    static void add(jac *o, const jac *a, const jac *b) { gs_g1_add(o, a, b); }
    static void from_xyzz(jac *o, const xyzz *a) { gs_g1_xyzz_to_jacobian(o, a); }
};
struct host_g2 {
    typedef gs_cu_msm_g2_parts parts;
    typedef gs_g2 jac;
    typedef gs_g2_xyzz xyzz;
    typedef cu_g2_xyzz dev;
    static const int g2 = 1;
    static void set_inf(jac *o) { gs_g2_set_inf(o); }
    static int is_inf(const jac *a) { return gs_g2_is_inf(a); }
    static void dbl(jac *o, const jac *a) { gs_g2_dbl(o, a); }
    static void add(jac *o, const jac *a, const jac *b) { gs_g2_add(o, a, b); }
    static void from_xyzz(jac *o, const xyzz *a) { gs_g2_xyzz_to_jacobian(o, a); }
};

template <class H>
static gs_status parts_take(gs_cu_dev *d, int slot, typename H::parts *out, gs_err *err)
{
    typedef typename H::xyzz X;
    static_assert(sizeof(X) == sizeof(typename H::dev), "XYZZ layouts differ");
    memset(out, 0, sizeof *out);
    if (slot < 0 || slot >= GS_CU_MSM_SLOTS)
        return GS_ERR(err, GS_ERR_ARG, "msm", "result slot %d", slot);
    if (d->res_g2[slot] != H::g2)
        return GS_ERR(err, GS_ERR_ARG, "msm", "result slot %d holds a G%d result, not G%d", slot,
                      d->res_g2[slot] ? 2 : 1, H::g2 ? 2 : 1);
    size_t cnt = (size_t)d->res_nwin[slot] * d->res_parts[slot];
    out->nwin = d->res_nwin[slot];
    out->per = d->res_parts[slot];
    out->c = d->res_c[slot];
    if (cnt == 0) return GS_OK;
    out->p = (X *)malloc(cnt * sizeof(X));
    if (!out->p) return GS_ERR(err, GS_ERR_NOMEM, "msm", "%zu window parts", cnt);
    memcpy(out->p, d->res_host + (size_t)slot * GS_CU_SLOT_BYTES, cnt * sizeof(X));
    return GS_OK;
}

template <class H> static void parts_combine(typename H::jac *out, const typename H::parts *mp)
{
    H::set_inf(out);
    for (int w = mp->nwin - 1; w >= 0; w--) {
        for (int i = 0; i < mp->c && !H::is_inf(out); i++) H::dbl(out, out);
        for (int i = 0; i < mp->per; i++) {
            typename H::jac j;
            H::from_xyzz(&j, &mp->p[(size_t)w * mp->per + i]);
            H::add(out, out, &j);
        }
    }
}

template <class H>
static gs_status parts_result(gs_cu_dev *d, int slot, typename H::jac *out, gs_err *err)
{
    typename H::parts mp;
    gs_status st = parts_take<H>(d, slot, &mp, err);
    if (st != GS_OK) return st;
    parts_combine<H>(out, &mp);
    free(mp.p);
    return GS_OK;
}

extern "C" gs_status gs_cu_msm_parts_take(gs_cu_dev *d, int slot, gs_cu_msm_parts *out,
                                          gs_err *err)
{
    return parts_take<host_g1>(d, slot, out, err);
}

extern "C" gs_status gs_cu_msm_g2_parts_take(gs_cu_dev *d, int slot, gs_cu_msm_g2_parts *out,
                                             gs_err *err)
{
    return parts_take<host_g2>(d, slot, out, err);
}

extern "C" void gs_cu_msm_parts_combine(gs_g1 *out, const gs_cu_msm_parts *mp)
{
    parts_combine<host_g1>(out, mp);
}

extern "C" void gs_cu_msm_g2_parts_combine(gs_g2 *out, const gs_cu_msm_g2_parts *mp)
{
    parts_combine<host_g2>(out, mp);
}

extern "C" void gs_cu_msm_parts_free(gs_cu_msm_parts *mp)
{
    free(mp->p);
    mp->p = NULL;
}

extern "C" void gs_cu_msm_g2_parts_free(gs_cu_msm_g2_parts *mp)
{
    free(mp->p);
    mp->p = NULL;
}

extern "C" gs_status gs_cu_msm_g1_result(gs_cu_dev *d, int slot, gs_g1 *out, gs_err *err)
{
    return parts_result<host_g1>(d, slot, out, err);
}

extern "C" gs_status gs_cu_msm_g2_result(gs_cu_dev *d, int slot, gs_g2 *out, gs_err *err)
{
    return parts_result<host_g2>(d, slot, out, err);
}
