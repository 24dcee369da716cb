/*
 * Level 1 of a G1 MSM by batch-affine pairs (the knob msm_ba; launched by
 * cu_msm.cu's msm_prepared in place of the flat kernel, contract in
 * cu_msm.cuh).
 *
 * Why: level 1 is ~88% of an MSM and runs at the multiply pipe's rate
 * (bench/RESULTS.md); each sorted entry costs one mixed XYZZ addition,
 * 8M + 2S (~9.7 multiplications).  Two entries of the same bucket can be
 * added in affine coordinates first, (x_b - x_a)^-1 shared with every other
 * pair of the chunk by Montgomery's trick (3M per pair, plus one Fermat
 * inversion, ~540 multiplications, per chunk), then the sum goes into the
 * bucket by one mixed addition: per pair 1 + 2 (trick) + 3M + 1S (the affine
 * addition) + 8M + 2S = 13M + 3S (~15.5) instead of 16M + 4S (~19.3), -20%
 * before the inversion's share (~1 per pair with 1024-entry chunks) and
 * the prefix products' memory traffic (48 bytes written and read per pair).
 * The earlier batch-affine kernel (commit 98f6c27, 7.4x slower) inverted
 * once per warp and tree level: every lane paid the whole inversion for
 * 32 pairs or fewer.  Here each thread inverts once for its own chunk of
 * hundreds of pairs, so the inversion is a few percent.
 *
 * Per chunk of S = 2^s1log sorted entries (a persistent grid: thread tid
 * takes chunks tid, tid + nthr, ...):
 *  1. forward over the S/2 pair slots (entries e0 + 2i, e0 + 2i + 1): a
 *     slot is live when both entries are in the same bucket (nonzero
 *     digit) and neither scalar is skipped.  A live pair's denominator:
 *     x_b - x_a (ADD), or 2 y_a when the two points are equal (DBL); none
 *     when one is at infinity (ONE) or they are opposite (INF).  The
 *     product of the denominators before slot i goes to the thread's
 *     scratch column (pref[i nthr + tid], one Fp, lazy).
 *  2. one inversion of the whole product (Fermat, lazy multiplications out
 *     of line).
 *  3. backward over the slots: a live pair's inverse denominator is
 *     inv * pref[i], then inv *= d_i; its affine sum (reduced) goes into
 *     its bucket's XYZZ partial by one mixed addition; the entries of a
 *     slot that is not live go in one by one, as the flat kernel adds them.
 *     Partials are stored as the flat kernel stores them (one per bucket
 *     segment of the chunk, at coff[k] + chunk - bstart[k] / S), so level N
 *     and the reduction are unchanged.
 * Points are reduced affine (x = y = 0: infinity), phi applied for GLV's
 * second half (cu_msm.cuh); the affine formulas are the textbook ones
 * (lambda = (y_b - y_a) / (x_b - x_a), or 3 x^2 / 2y for a doubling;
 * x3 = lambda^2 - x_a - x_b, y3 = lambda (x_a - x3) - y_a).
 */
#include "cu_msm.cuh"

/* The field of the flat kernel's default variant (FV 23: the dedicated
 * squaring; lazy multiplications out of line). */
typedef cu_fe<cu_cfgv<cu_fp_cfg, CU_FV_SQR>> FF;
typedef cu_aff<FF> AFF;
typedef cu_ops_lazy_call OPS;

enum { PAIR_ADD, PAIR_DBL, PAIR_INF, PAIR_ONE };

/* The entries and points a chunk reads. */
struct ba_in {
    const uint32_t *keys, *vals;
    const AFF *pts;
    size_t stride;
    uint32_t skip, dmask;
    unsigned jshift;
    bool glv;
};

/* Slot (e, e + 1) of a chunk ending at `end`: 1 when live (same bucket,
 * nonzero digit, neither scalar skipped), with the bucket key, the point
 * addresses, phi flags and signs. */
struct ba_pair {
    uint32_t key;
    const AFF *pa, *pb;
    bool phia, phib, nega, negb;
};
static __device__ __forceinline__ bool pair_live(ba_pair &q, const ba_in &in, uint32_t e, uint32_t end)
{
    if (e + 1 >= end) return false;
    q.key = in.keys[e];
    if (in.keys[e + 1] != q.key || (q.key & in.dmask) == 0) return false;
    uint32_t va = in.vals[e], vb = in.vals[e + 1];
    q.nega = (va >> 31) != 0;
    q.negb = (vb >> 31) != 0;
    q.pa = entry_point(in.pts, va, in.stride, in.skip, in.jshift, in.glv, q.phia);
    q.pb = entry_point(in.pts, vb, in.stride, in.skip, in.jshift, in.glv, q.phib);
    return q.pa && q.pb;
}

/* The signed y of a pair's point. */
static __device__ __forceinline__ void load_y(FF &y, const AFF *p, bool neg)
{
    fe_load(y, &p->y);
    if (neg) fe_neg(y, y);
}

/* The case of a live pair and, for ADD and DBL, its denominator (reduced
 * x's and signed y's; ya, yb are read only when the x's leave the case
 * open, so pass 1 loads them only then). */
static __device__ __forceinline__ bool pair_needs_y(const FF &xa, const FF &xb)
{
    return fe_is_zero(xa) || fe_is_zero(xb) || fe_eq(xa, xb);
}
static __device__ __forceinline__ int pair_case(FF &den, const FF &xa, const FF &xb, const FF &ya,
                                                const FF &yb, bool need_y)
{
    if (need_y) {
        if ((fe_is_zero(xa) && fe_is_zero(ya)) || (fe_is_zero(xb) && fe_is_zero(yb))) return PAIR_ONE;
        if (fe_eq(xa, xb)) {
            if (!fe_eq(ya, yb)) return PAIR_INF;
            fe_add(den, ya, ya);
            return PAIR_DBL;
        }
    }
    OPS::sub(den, xb, xa);
    return PAIR_ADD;
}

/* The affine sum of a live pair (reduced x's, signed y's) given the
 * inverse of its denominator: a + b (ADD), or 2a (dbl); reduced. */
static __device__ __noinline__ AFF pair_sum(AFF a, AFF b, FF invi, bool dbl)
{
    FF lam, t;
    AFF s;
    if (!dbl) {
        OPS::sub(t, b.y, a.y);
    } else {
        FF u;
        OPS::sqr(u, a.x);
        fe_reduce(u, u);
        fe_add(t, u, u);
        fe_add(t, t, u);
    }
    OPS::mul(lam, t, invi);
    OPS::sqr(t, lam);
    OPS::sub(t, t, a.x);
    OPS::sub(s.x, t, b.x); /* b.x = a.x for dbl */
    OPS::sub(t, a.x, s.x);
    OPS::mul(t, lam, t);
    OPS::sub(s.y, t, a.y);
    fe_reduce(s.x, s.x);
    fe_reduce(s.y, s.y);
    return s;
}

/* a^(p-2) = a^-1 for a in [0, 2p), nonzero mod p; result in [0, 2p). */
static __device__ __noinline__ FF inv_lz(FF a)
{
    FF acc = a;
    bool started = false;
    for (int i = FF::cfg::N - 1; i >= 0; i--) {
        uint32_t e = FF::cfg::p(i) - (i == 0 ? 2u : 0u); /* p is odd and > 2: no borrow */
        for (int b = 31; b >= 0; b--) {
            if (started) OPS::sqr(acc, acc);
            if ((e >> b) & 1) {
                if (started) OPS::mul(acc, acc, a);
                started = true;
            }
        }
    }
    return acc;
}

/* The thread's bucket accumulator in shared memory, 16-byte word w of
 * thread t at acc[w][t] (a warp's accesses fall in distinct banks): out of
 * the registers while a pair is summed, in them only for the bucket
 * addition (with it there, the kernel needed more than the 168 registers
 * of 3 blocks per SM, and spilled). */
typedef uint4 ba_acc[12][128];
static __device__ __forceinline__ void acc_get(cu_xyzz<FF> &a, const ba_acc &sh)
{
    FF *f[4] = { &a.X, &a.Y, &a.ZZ, &a.ZZZ };
#pragma unroll
    for (int w = 0; w < 12; w++) {
        uint4 v = sh[w][threadIdx.x];
        uint32_t *l = &f[w / 3]->l[4 * (w % 3)];
        l[0] = v.x; l[1] = v.y; l[2] = v.z; l[3] = v.w;
    }
}
static __device__ __forceinline__ void acc_put(ba_acc &sh, const cu_xyzz<FF> &a)
{
    const FF *f[4] = { &a.X, &a.Y, &a.ZZ, &a.ZZZ };
#pragma unroll
    for (int w = 0; w < 12; w++) {
        const uint32_t *l = &f[w / 3]->l[4 * (w % 3)];
        sh[w][threadIdx.x] = make_uint4(l[0], l[1], l[2], l[3]);
    }
}

/* Stores the accumulator as key cur's partial of chunk ch (reduced). */
static __device__ __forceinline__ void acc_flush(const ba_acc &sh, uint32_t cur, cu_xyzz<FF> *part,
                                                 const uint32_t *coff, const uint32_t *bstart, uint32_t ch,
                                                 unsigned s1log)
{
    cu_xyzz<FF> acc;
    acc_get(acc, sh);
    xyzz_reduce(acc);
    xyzz_store(&part[coff[cur] + ch - (bstart[cur] >> s1log)], acc);
}

/* One item into the bucket partials (the flat kernel's step): a new key
 * stores the previous key's partial; digit-0 keys, items without a point
 * (has = false: a skipped scalar, a pair summing to infinity) and points
 * at infinity add nothing. */
static __device__ __forceinline__ void add_item(ba_acc &sh, uint32_t &cur, uint32_t key, bool has,
                                                const AFF &p, bool neg, cu_xyzz<FF> *part,
                                                const uint32_t *coff, const uint32_t *bstart,
                                                uint32_t ch, unsigned s1log, uint32_t dmask)
{
    cu_xyzz<FF> acc;
    if (key != cur) {
        if (cur & dmask) acc_flush(sh, cur, part, coff, bstart, ch, s1log);
        xyzz_set_inf(acc);
        acc_put(sh, acc);
        cur = key;
    }
    if ((key & dmask) == 0 || !has || aff_is_inf(p)) return;
    acc_get(acc, sh);
    xyzz_add_aff_lz<true, FF::cfg, OPS>(acc, p, neg);
    acc_put(sh, acc);
}

template <int MINB>
__global__ void __launch_bounds__(128, MINB)
    k_accum_ba(cu_xyzz<FF> *part, const uint32_t *coff, const uint32_t *bstart, ba_in in, uint32_t ntot,
               unsigned s1log, uint32_t nchunks, FF *pref)
{
    const uint32_t nthr = gridDim.x * blockDim.x, tid = blockIdx.x * blockDim.x + threadIdx.x;
    const int npair = 1 << (s1log - 1);
    /* The running inverse lives in shared memory (one slot per thread), out
     * of the registers the bucket addition needs. */
    __shared__ FF inv_sh[128];
    __shared__ ba_acc acc_sh;
    FF *inv_p = &inv_sh[threadIdx.x];
    for (uint32_t ch = tid; ch < nchunks; ch += nthr) {
        const uint32_t e0 = ch << s1log, end = min(e0 + (1u << s1log), ntot);
        /* 1. exclusive prefix products of the live pairs' denominators. */
        FF prod;
        fe_one(prod);
        bool any = false;
        for (int i = 0; i < npair; i++) {
            ba_pair q;
            if (!pair_live(q, in, e0 + 2 * i, end)) continue;
            AFF a, b;
            fe_load(a.x, &q.pa->x);
            fe_load(b.x, &q.pb->x);
            if (q.phia) glv_phi_x(a.x);
            if (q.phib) glv_phi_x(b.x);
            bool need_y = pair_needs_y(a.x, b.x);
            if (need_y) {
                load_y(a.y, q.pa, q.nega);
                load_y(b.y, q.pb, q.negb);
            }
            FF den;
            int cs = pair_case(den, a.x, b.x, a.y, b.y, need_y);
            if (cs != PAIR_ADD && cs != PAIR_DBL) continue;
            fe_store(&pref[(size_t)i * nthr + tid], prod);
            OPS::mul(prod, prod, den);
            any = true;
        }
        /* 2. one inversion for the chunk. */
        if (any) fe_store(inv_p, inv_lz(prod));
        /* 3. backwards: pair sums, and every item into its bucket. */
        uint32_t cur = in.keys[end - 1];
        {
            cu_xyzz<FF> inf;
            xyzz_set_inf(inf);
            acc_put(acc_sh, inf);
        }
        /* Item k = 1, 0 of slot i: its two entries, or (k = 0) the live
         * pair's sum; one call site of the bucket addition. */
        for (int it = 2 * npair - 1; it >= 0; it--) {
            const int i = it >> 1, k = it & 1;
            const uint32_t e = e0 + 2 * i;
            if (e + k >= end) continue;
            ba_pair q;
            const bool live = pair_live(q, in, e, end);
            if (live && k == 1) continue;
            uint32_t key;
            bool has, neg;
            AFF p;
            if (!live) {
                uint32_t v = in.vals[e + k];
                has = entry_get(p, in.pts, v, in.stride, in.skip, in.jshift, in.glv);
                key = in.keys[e + k];
                neg = (v >> 31) != 0;
            } else {
                AFF a, b;
                entry_aff(a, q.pa, q.phia);
                entry_aff(b, q.pb, q.phib);
                if (q.nega) fe_neg(a.y, a.y);
                if (q.negb) fe_neg(b.y, b.y);
                FF den;
                int cs = pair_case(den, a.x, b.x, a.y, b.y, pair_needs_y(a.x, b.x));
                if (cs == PAIR_ONE) {
                    p = aff_is_inf(a) ? b : a;
                } else if (cs != PAIR_INF) {
                    FF excl, invi, inv;
                    fe_load(excl, &pref[(size_t)i * nthr + tid]);
                    fe_load(inv, inv_p);
                    OPS::mul(invi, inv, excl); /* 1 / den */
                    OPS::mul(inv, inv, den);   /* 1 / (product of the denominators before i) */
                    fe_store(inv_p, inv);
                    p = pair_sum(a, b, invi, cs == PAIR_DBL);
                }
                key = q.key;
                has = cs != PAIR_INF;
                neg = false;
            }
            add_item(acc_sh, cur, key, has, p, neg, part, coff, bstart, ch, s1log, in.dmask);
        }
        if (cur & in.dmask) acc_flush(acc_sh, cur, part, coff, bstart, ch, s1log);
    }
}

/* Resident blocks per SM of the kernel for MINB (0 when the query fails). */
template <int MINB> static int ba_blocks_per_sm()
{
    int nb = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, k_accum_ba<MINB>, 128, 0) != cudaSuccess) {
        (void)cudaGetLastError();
        nb = 0;
    }
    return nb;
}

gs_status cu_msm_ba_launch(gs_cu_dev *d, const cu_msm_plan &p, void *part, const uint32_t *coff,
                           const uint32_t *bstart, const uint32_t *keys, const uint32_t *vals,
                           uint32_t ntot, const void *pts, size_t stride, uint32_t skip, gs_err *err)
{
    if (ntot == 0) return GS_OK;
    /* The blocks per SM asked of ptxas: the knob msm_minb, 2 or 3 (built). */
    const int minb = cu_msm_minb() == 2 ? 2 : 3;
    int per_sm = minb == 2 ? ba_blocks_per_sm<2>() : ba_blocks_per_sm<3>();
    if (per_sm < 1) per_sm = minb;
    const uint32_t nchunks = (uint32_t)(((uint64_t)ntot + (1u << p.s1log) - 1) >> p.s1log);
    uint64_t blocks = ((uint64_t)nchunks + 127) / 128, cap = (uint64_t)per_sm * d->sm_count;
    if (blocks > cap) blocks = cap;
    const size_t nthr = (size_t)blocks * 128;
    const size_t need = (nthr << (p.s1log - 1)) * sizeof(FF);
    if (need > d->msm.ba_bytes) {
        /* Work queued on either stream may still use the old region. */
        for (int i = 0; i < 2; i++) CU_TRY(cudaStreamSynchronize(d->streams[i]));
        cudaError_t e = cu_region_renew(&d->msm.ba, &d->msm.ba_bytes, need);
        if (e != cudaSuccess)
            return GS_ERR(err, GS_ERR_NOMEM, "msm", "batch-affine scratch of %zu MiB (%zu threads x %u "
                          "pairs): %s", need >> 20, nthr, 1u << (p.s1log - 1), cudaGetErrorString(e));
    }
    ba_in in = { keys, vals, (const AFF *)pts, stride, skip, (1u << p.c) - 1, p.jshift, p.glv != 0 };
    if (minb == 2)
        k_accum_ba<2><<<(unsigned)blocks, 128, 0, d->stream>>>((cu_xyzz<FF> *)part, coff, bstart, in, ntot,
                                                               p.s1log, nchunks, (FF *)d->msm.ba);
    else
        k_accum_ba<3><<<(unsigned)blocks, 128, 0, d->stream>>>((cu_xyzz<FF> *)part, coff, bstart, in, ntot,
                                                               p.s1log, nchunks, (FF *)d->msm.ba);
    CU_LAUNCHED("k_accum_ba");
    return GS_OK;
}
