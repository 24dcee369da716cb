/*
 * Level 1 of a G1 MSM by batch-affine pairs (the knob msm_ba; launched by
 * cu_msm.cu's msm_prepared in place of the flat kernel, contract in
 * cu_msm.cuh).
 *
 * Why: level 1 is ~88% of an MSM and runs at the multiply pipe's rate
 * (bench/RESULTS.md); each sorted entry costs one mixed XYZZ addition,
 * 8M + 2S (~9.7 multiplications).  Two entries of the same bucket can be
 * added in affine coordinates first, (x_b - x_a)^-1 shared with every other
 * pair of the chunk by Montgomery's trick (3M per pair, plus one
 * inversion per chunk, by divsteps since round 3 session 17, Fermat's
 * ~540 multiplications before), then the sum goes into the
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
 *  2. one inversion of the whole product (divsteps, inv_ds; Fermat's
 *     until round 3 session 17).
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
#include <string.h>

#include "cu_msm.cuh"
#include "../field/fp_divsteps.h"

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

/* The same inverse, (aR)^-1 R^2 = a^-1 R in Montgomery form for aR in
 * [0, 2p) nonzero mod p, by the binary extended Euclid: u = aR, v = p,
 * x1 = 1, x2 = 0 with x1 aR = u and x2 aR = v (mod p); halve the even one
 * (its x halved mod p: (x + p) / 2 when odd), subtract the smaller from the
 * larger, until u or v is 1; then one Montgomery multiplication by
 * R^3 mod p.  ~760 halvings and ~760 subtractions of 12 words: a tenth of
 * the instructions of inv_lz's ~570 dependent multiplications, which is
 * what one thread of a block waits on (k_bat_round).  Result reduced. */
static __device__ __forceinline__ void shr1(FF &x, uint32_t top)
{
#pragma unroll
    for (int i = 0; i < 11; i++) x.l[i] = (x.l[i] >> 1) | (x.l[i + 1] << 31);
    x.l[11] = (x.l[11] >> 1) | (top << 31);
}
static __device__ __forceinline__ void half_mod(FF &x)
{
    if ((x.l[0] & 1) == 0) {
        shr1(x, 0);
        return;
    }
    uint64_t c = 0;
#pragma unroll
    for (int i = 0; i < 12; i++) {
        c += (uint64_t)x.l[i] + FF::cfg::p(i);
        x.l[i] = (uint32_t)c;
        c >>= 32;
    }
    shr1(x, (uint32_t)c);
}
static __device__ __forceinline__ bool is_one(const FF &x)
{
    uint32_t acc = x.l[0] ^ 1;
#pragma unroll
    for (int i = 1; i < 12; i++) acc |= x.l[i];
    return acc == 0;
}
/* x R^2 mod p (reduced) for x < 2p: (aR)^-1 -> a^-1 R, by one Montgomery
 * multiplication by R^3 mod p (R = 2^384; consts.h's GS_FPC_R3). */
static __device__ __forceinline__ FF to_mont2(FF x)
{
    const uint64_t r3w[6] = GS_FPC_R3;
    FF r3;
#pragma unroll
    for (int i = 0; i < 12; i++) r3.l[i] = (uint32_t)(r3w[i >> 1] >> (32 * (i & 1)));
    OPS::mul(x, x, r3);
    fe_reduce(x, x);
    return x;
}
static __device__ __noinline__ FF inv_bin(FF a)
{
    FF u, v, x1, x2;
    fe_reduce(u, a);
#pragma unroll
    for (int i = 0; i < 12; i++) {
        v.l[i] = FF::cfg::p(i);
        x1.l[i] = 0;
        x2.l[i] = 0;
    }
    x1.l[0] = 1;
    if (fe_is_zero(u)) return u; /* no inverse (never asked): no endless halving of 0 */
    while (!is_one(u) && !is_one(v)) {
        while ((u.l[0] & 1) == 0) {
            shr1(u, 0);
            half_mod(x1);
        }
        while ((v.l[0] & 1) == 0) {
            shr1(v, 0);
            half_mod(x2);
        }
        /* d = u - v; u >= v when it does not borrow. */
        FF d;
        int64_t b = 0;
#pragma unroll
        for (int i = 0; i < 12; i++) {
            b += (int64_t)u.l[i] - v.l[i];
            d.l[i] = (uint32_t)b;
            b >>= 32;
        }
        if (b == 0) {
            u = d;
            fe_sub(x1, x1, x2);
        } else {
            uint64_t c = 1; /* v - u = ~d + 1 */
#pragma unroll
            for (int i = 0; i < 12; i++) {
                c += (uint32_t)~d.l[i];
                v.l[i] = (uint32_t)c;
                c >>= 32;
            }
            fe_sub(x2, x2, x1);
        }
    }
    return to_mont2(is_one(u) ? x1 : x2);
}

/* The same inverse by divsteps (prover/field/fp_divsteps.h: ~28 batches
 * of 29 steps on the low word, each batch's matrix applied to the whole
 * numbers; ~78 us of one thread against inv_bin's ~509 on an H100,
 * Nsight Compute, round 3 session 18: taking the even steps at once saved
 * ~1 us there; that latency is what a block or a round waits on).  Result
 * reduced. */
static __device__ __noinline__ FF inv_ds(FF a)
{
    FF u, r;
    fe_reduce(u, a);
    gs_fp_inv_divsteps(r.l, u.l); /* 0 for 0 (never asked) */
    return to_mont2(r);
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
        /* 2. one inversion for the chunk (divsteps; Fermat's, ~570
         * multiplications, until round 3 session 17). */
        if (any) fe_store(inv_p, inv_ds(prod));
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

/*
 * ---- The batch-affine tree (the knob msm_bat; docs/gpu.md) ----------------
 *
 * Level 1 without XYZZ additions: each bucket's run of sorted entries is
 * halved in affine coordinates, round after round, until one point per
 * bucket is left (or prepare's cap on rounds, after which the XYZZ levels
 * sum what remains).  Round r reads the list of round r (round 0: the sorted
 * entries themselves, through entry_point, with sign, copy, phi and skip)
 * and writes the list of round r + 1: in a key's run of m items, item 2j is
 * added to item 2j + 1 (the pair), an odd last item is copied.  Key k's run
 * in list r is [off_r[k], off_r[k + 1]) with off_r the exclusive scan of
 * ceil(m0 / 2^r) (prepare: m0 the bucket's entries, 0 for digit 0), so the
 * item from the pair led by run index l goes to off_(r+1)[k] + l / 2.  Lists
 * are one group's (positions less off_r[group's first key]); the last
 * round writes XYZZ partials at off_R[k] (= coff[0]) for level N and the
 * bucket reduction.
 *
 * One inversion per block: a thread takes 2^SLOG consecutive items and the
 * pairs they lead (Montgomery's trick over its own denominators, prefix
 * products in local memory), the block's 128 thread products go up a
 * product tree in shared memory, thread 0 inverts the root, and the
 * inverses come down the tree (inv(L) = inv(LR) R, inv(R) = inv(LR) L):
 * per pair ~1 multiplication forward, 2 backward and 3 for the affine sum,
 * plus one inversion per block (divsteps, inv_ds: ~80 us of one thread,
 * Nsight Compute 2026-12-07; the binary Euclid before it ~500 us).  Cases
 * per pair as in k_accum_ba (pair_case): an item at infinity or skipped
 * (x = y = 0) passes the other one through, opposite points give infinity
 * (0, 0), equal ones double.
 */
struct bat_args {
    /* round 0: the group's sorted entries [e0, e0 + n0) */
    const uint32_t *keys, *vals, *bstart, *bend;
    const AFF *pts;
    size_t stride;
    uint32_t skip, e0, n0;
    unsigned jshift;
    bool glv;
    /* later rounds: the group's list and its keys */
    const AFF *lin;
    const uint32_t *lkin, *off_in;
    /* out: the next list, or (last round) the XYZZ partials */
    AFF *lout;
    uint32_t *lkout;
    const uint32_t *off_out;
    cu_xyzz<FF> *part;
    uint32_t kbeg, kend, dmask;
    int inv; /* the block's inversion: BAT_INV_DS (divsteps), BAT_INV_BIN (msm_bat_inv = 1), or
              * BAT_INV_FERMAT (msm_bat = 2; A/B) */
};

enum { BAT_INV_DS, BAT_INV_BIN, BAT_INV_FERMAT };
static __device__ __forceinline__ FF bat_inv(FF x, int how)
{
    return how == BAT_INV_FERMAT ? inv_lz(x) : how == BAT_INV_BIN ? inv_bin(x) : inv_ds(x);
}

/* Item p of the round's input: its key, run index l and run length m;
 * false for an item of a digit-0 key (round 0; no output). */
template <bool R0>
static __device__ __forceinline__ bool bat_item(const bat_args &a, uint32_t p, uint32_t base_in, uint32_t &key,
                                                uint32_t &l, uint32_t &m)
{
    if constexpr (R0) {
        uint32_t e = a.e0 + p;
        key = a.keys[e];
        if ((key & a.dmask) == 0) return false;
        uint32_t st = a.bstart[key];
        m = a.bend[key] - st;
        l = e - st;
    } else {
        key = a.lkin[p];
        uint32_t st = a.off_in[key];
        m = a.off_in[key + 1] - st;
        l = p - (st - base_in);
    }
    return true;
}

/* Round 0's item p: where its point lives (NULL: a skipped scalar), phi
 * and its sign. */
static __device__ __forceinline__ const AFF *bat_entry(const bat_args &a, uint32_t p, bool &phi, bool &neg)
{
    uint32_t v = a.vals[a.e0 + p];
    neg = (v >> 31) != 0;
    return entry_point(a.pts, v, a.stride, a.skip, a.jshift, a.glv, phi);
}

/* Item p's point, reduced and signed; (0, 0) for a skipped scalar.  X_ONLY:
 * x alone (y left untouched). */
template <bool R0, bool X_ONLY = false>
static __device__ __forceinline__ void bat_point(AFF &q, const bat_args &a, uint32_t p)
{
    if constexpr (R0) {
        bool phi, neg;
        const AFF *pp = bat_entry(a, p, phi, neg);
        if (!pp) {
            fe_zero(q.x);
            fe_zero(q.y);
            return;
        }
        fe_load(q.x, &pp->x);
        if (phi) glv_phi_x(q.x);
        if (!X_ONLY) load_y(q.y, pp, neg);
    } else {
        fe_load(q.x, &a.lin[p].x);
        if (!X_ONLY) fe_load(q.y, &a.lin[p].y);
    }
}
template <bool R0> static __device__ __forceinline__ void bat_y(AFF &q, const bat_args &a, uint32_t p)
{
    if constexpr (R0) {
        bool phi, neg;
        const AFF *pp = bat_entry(a, p, phi, neg);
        if (!pp) fe_zero(q.y);
        else load_y(q.y, pp, neg);
    } else {
        fe_load(q.y, &a.lin[p].y);
    }
}

template <bool LAST>
static __device__ __forceinline__ void bat_out(const bat_args &a, uint32_t key, uint32_t l, uint32_t base_out,
                                               const AFF &s)
{
    if constexpr (LAST) {
        cu_xyzz<FF> x;
        if (aff_is_inf(s)) {
            xyzz_set_inf(x);
        } else {
            x.X = s.x;
            x.Y = s.y;
            fe_one(x.ZZ);
            fe_one(x.ZZZ);
        }
        xyzz_store(&a.part[a.off_out[key] + (l >> 1)], x);
    } else {
        uint32_t o = a.off_out[key] - base_out + (l >> 1);
        fe_store(&a.lout[o].x, s.x);
        fe_store(&a.lout[o].y, s.y);
        a.lkout[o] = key;
    }
}

/* The items of [p0, p1) that lead (a pair, or a run's odd last item), as
 * offsets from p0 in order; returns their count.  Both passes go over
 * this list, so every lane of a warp takes one each trip (walking the
 * items, the lanes whose item followed its leader sat out each pair's
 * multiplications: 16 of 32 lanes busy, Nsight Compute 2026-12-07). */
template <int SLOG, bool R0>
static __device__ __forceinline__ int bat_leads(const bat_args &a, uint32_t p0, uint32_t p1, uint32_t base_in,
                                                uint8_t (&lead)[1 << SLOG])
{
    int nl = 0;
    for (uint32_t p = p0; p < p1; p++) {
        uint32_t key, l, m;
        if (bat_item<R0>(a, p, base_in, key, l, m) && !(l & 1)) lead[nl++] = (uint8_t)(p - p0);
    }
    return nl;
}

/* Forward over the leading items: the denominators of the pairs this
 * thread leads, their exclusive prefix products handed to put(j, product)
 * in order; returns the pairs' count, prod their product. */
template <int SLOG, bool R0, class PUT>
static __device__ __forceinline__ int bat_fwd(const bat_args &a, uint32_t p0, const uint8_t (&lead)[1 << SLOG],
                                              int nl, uint32_t base_in, FF &prod, PUT put)
{
    int np = 0;
    fe_one(prod);
    for (int j = 0; j < nl; j++) {
        const uint32_t p = p0 + lead[j];
        uint32_t key, l, m;
        bat_item<R0>(a, p, base_in, key, l, m);
        if (l + 1 >= m) continue;
        AFF x, y;
        bat_point<R0, true>(x, a, p);
        bat_point<R0, true>(y, a, p + 1);
        bool need_y = pair_needs_y(x.x, y.x);
        if (need_y) {
            bat_y<R0>(x, a, p);
            bat_y<R0>(y, a, p + 1);
        }
        FF den;
        int cs = pair_case(den, x.x, y.x, x.y, y.y, need_y);
        if (cs != PAIR_ADD && cs != PAIR_DBL) continue;
        put(np++, prod);
        OPS::mul(prod, prod, den);
    }
    return np;
}

/* Backward over the same leading items, last first: each pair's sum
 * (inverse denominator from inv, the inverse of all np denominators, and
 * get(j), the prefix product before pair j), and the runs' odd last items,
 * into the next list. */
template <int SLOG, bool R0, bool LAST, class GET>
static __device__ __forceinline__ void bat_bwd(const bat_args &a, uint32_t p0, const uint8_t (&lead)[1 << SLOG],
                                               int nl, uint32_t base_in, uint32_t base_out, FF inv, int np,
                                               GET get)
{
    for (int j = nl; j-- > 0;) {
        const uint32_t p = p0 + lead[j];
        uint32_t key, l, m;
        bat_item<R0>(a, p, base_in, key, l, m);
        AFF x, s;
        bat_point<R0>(x, a, p);
        if (l + 1 >= m) {
            bat_out<LAST>(a, key, l, base_out, x);
            continue;
        }
        AFF y;
        bat_point<R0>(y, a, p + 1);
        FF den;
        int cs = pair_case(den, x.x, y.x, x.y, y.y, pair_needs_y(x.x, y.x));
        if (cs == PAIR_ONE) {
            s = aff_is_inf(x) ? y : x;
        } else if (cs == PAIR_INF) {
            fe_zero(s.x);
            fe_zero(s.y);
        } else {
            FF invd;
            OPS::mul(invd, inv, get(--np));
            OPS::mul(inv, inv, den);
            s = pair_sum(x, y, invd, cs == PAIR_DBL);
        }
        bat_out<LAST>(a, key, l, base_out, s);
    }
}

/* The block's product tree over tr[128 + t] (128 threads): up leaves the
 * root in tr[1]; down, with tr[1] replaced by its inverse, leaves each
 * leaf's inverse in tr[128 + t].  Both end synchronised. */
static __device__ __forceinline__ void tree_up(FF *tr, int t)
{
    for (int h = 64; h >= 1; h >>= 1) {
        __syncthreads();
        if (t < h) OPS::mul(tr[h + t], tr[2 * (h + t)], tr[2 * (h + t) + 1]);
    }
    __syncthreads();
}
static __device__ __forceinline__ void tree_down(FF *tr, int t)
{
    for (int h = 1; h < 128; h <<= 1) {
        __syncthreads();
        if (t < h) {
            const int i = h + t;
            FF inv = tr[i], lo = tr[2 * i], hi = tr[2 * i + 1];
            OPS::mul(tr[2 * i], inv, hi);
            OPS::mul(tr[2 * i + 1], inv, lo);
        }
    }
    __syncthreads();
}

/* The round's bounds for this thread. */
template <int SLOG, bool R0, bool LAST>
static __device__ __forceinline__ void bat_bounds(const bat_args &a, uint32_t &base_in, uint32_t &base_out,
                                                  uint32_t &p0, uint32_t &p1)
{
    base_in = R0 ? 0 : a.off_in[a.kbeg];
    const uint32_t cnt = R0 ? a.n0 : a.off_in[a.kend] - base_in;
    base_out = LAST ? 0 : a.off_out[a.kbeg];
    p0 = (blockIdx.x * blockDim.x + threadIdx.x) << SLOG;
    p1 = min(p0 + (1u << SLOG), cnt);
}

/* One round in one kernel (msm_bat 1, 2): thread 0 inverts the block's
 * product while the block waits. */
template <int SLOG, bool R0, bool LAST>
__global__ void __launch_bounds__(128) k_bat_round(bat_args a)
{
    __shared__ FF tr[256];
    uint32_t base_in, base_out, p0, p1;
    bat_bounds<SLOG, R0, LAST>(a, base_in, base_out, p0, p1);
    FF pref[1 << (SLOG - 1)];
    FF prod;
    uint8_t lead[1 << SLOG];
    const int nl = bat_leads<SLOG, R0>(a, p0, p1, base_in, lead);
    int np = bat_fwd<SLOG, R0>(a, p0, lead, nl, base_in, prod, [&](int j, const FF &v) { pref[j] = v; });
    const int t = threadIdx.x;
    tr[128 + t] = prod;
    tree_up(tr, t);
    if (t == 0) tr[1] = bat_inv(tr[1], a.inv);
    tree_down(tr, t);
    bat_bwd<SLOG, R0, LAST>(a, p0, lead, nl, base_in, base_out, tr[128 + t], np, [&](int j) { return pref[j]; });
}

/* One round in three kernels (msm_bat 3): the forward pass stores its
 * prefix products (pg, column j * nthr + thread), the thread's product
 * (tp) and pair count (tn) and the block's root (br); k_bat_inv inverts
 * every block's root, one thread each, so no block waits on one thread;
 * the backward pass rebuilds the block's tree from tp, puts the root's
 * inverse in and goes down it. */
struct bat_split {
    FF *pg, *tp, *br;
    uint32_t *tn;
    uint32_t nthr;
};
template <int SLOG, bool R0>
__global__ void __launch_bounds__(128) k_bat_fwd(bat_args a, bat_split sp)
{
    __shared__ FF tr[256];
    uint32_t base_in, base_out, p0, p1;
    bat_bounds<SLOG, R0, true>(a, base_in, base_out, p0, p1);
    const uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
    FF prod;
    uint8_t lead[1 << SLOG];
    const int nl = bat_leads<SLOG, R0>(a, p0, p1, base_in, lead);
    int np = bat_fwd<SLOG, R0>(a, p0, lead, nl, base_in, prod,
                               [&](int j, const FF &v) { fe_store(&sp.pg[(size_t)j * sp.nthr + tid], v); });
    fe_store(&sp.tp[tid], prod);
    sp.tn[tid] = (uint32_t)np;
    const int t = threadIdx.x;
    tr[128 + t] = prod;
    tree_up(tr, t);
    if (t == 0) fe_store(&sp.br[blockIdx.x], tr[1]);
}
__global__ void k_bat_inv(FF *br, uint32_t nb, int inv)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nb) return;
    FF v;
    fe_load(v, &br[i]);
    fe_store(&br[i], bat_inv(v, inv));
}
template <int SLOG, bool R0, bool LAST>
__global__ void __launch_bounds__(128) k_bat_bwd(bat_args a, bat_split sp)
{
    __shared__ FF tr[256];
    uint32_t base_in, base_out, p0, p1;
    bat_bounds<SLOG, R0, LAST>(a, base_in, base_out, p0, p1);
    const uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
    const int t = threadIdx.x;
    fe_load(tr[128 + t], &sp.tp[tid]);
    tree_up(tr, t);
    if (t == 0) fe_load(tr[1], &sp.br[blockIdx.x]);
    tree_down(tr, t);
    uint8_t lead[1 << SLOG];
    const int nl = bat_leads<SLOG, R0>(a, p0, p1, base_in, lead);
    bat_bwd<SLOG, R0, LAST>(a, p0, lead, nl, base_in, base_out, tr[128 + t], (int)sp.tn[tid], [&](int j) {
        FF v;
        fe_load(v, &sp.pg[(size_t)j * sp.nthr + tid]);
        return v;
    });
}

template <int SLOG>
static void bat_launch(unsigned blocks, cudaStream_t s, const bat_args &a, bool r0, bool last,
                       const bat_split *sp)
{
    if (sp) {
        if (r0) k_bat_fwd<SLOG, true><<<blocks, 128, 0, s>>>(a, *sp);
        else k_bat_fwd<SLOG, false><<<blocks, 128, 0, s>>>(a, *sp);
        k_bat_inv<<<(blocks + 127) / 128, 128, 0, s>>>(sp->br, blocks, a.inv);
        if (r0 && last) k_bat_bwd<SLOG, true, true><<<blocks, 128, 0, s>>>(a, *sp);
        else if (r0) k_bat_bwd<SLOG, true, false><<<blocks, 128, 0, s>>>(a, *sp);
        else if (last) k_bat_bwd<SLOG, false, true><<<blocks, 128, 0, s>>>(a, *sp);
        else k_bat_bwd<SLOG, false, false><<<blocks, 128, 0, s>>>(a, *sp);
        return;
    }
    if (r0 && last) k_bat_round<SLOG, true, true><<<blocks, 128, 0, s>>>(a);
    else if (r0) k_bat_round<SLOG, true, false><<<blocks, 128, 0, s>>>(a);
    else if (last) k_bat_round<SLOG, false, true><<<blocks, 128, 0, s>>>(a);
    else k_bat_round<SLOG, false, false><<<blocks, 128, 0, s>>>(a);
}

gs_status cu_msm_bat_launch(gs_cu_dev *d, const cu_msm_plan &p, const cu_msm_bat_in &in, gs_err *err)
{
    /* msm_bat_s: a power of two, 8 .. 64 (knobs.h). */
    const int v = gs_cu_knob(GS_CU_K_MSM_BAT_S);
    int slog = 3;
    while (slog < 6 && (1 << slog) < v) slog++;
    /* msm_bat 3: the split round's scratch (d->msm.ba, grown as needed):
     * prefix products of up to 2^(slog-1) pairs per thread, the threads'
     * products and counts, the blocks' roots, for the largest round. */
    const bool split = gs_cu_knob(GS_CU_K_MSM_BAT) == 3;
    bat_split sp;
    memset(&sp, 0, sizeof sp);
    if (split) {
        /* The first slab has the most entries (the others as many groups
         * or fewer, the last group the fewest windows). */
        const unsigned w1 = p.bslab * p.t < p.nwin ? p.bslab * p.t : p.nwin;
        const uint64_t most = (uint64_t)w1 * in.nb << p.glv;
        const uint64_t thr = ((most + (1u << slog) - 1) >> slog) + 128, blk = thr / 128 + 1;
        const size_t need = (size_t)(thr << (slog - 1)) * sizeof(FF) + thr * (sizeof(FF) + 4) + blk * sizeof(FF) + 1024;
        if (need > d->msm.ba_bytes) {
            for (int i = 0; i < 2; i++) CU_TRY(cudaStreamSynchronize(d->streams[i]));
            cudaError_t e = cu_region_renew(&d->msm.ba, &d->msm.ba_bytes, need);
            if (e != cudaSuccess)
                return GS_ERR(err, GS_ERR_NOMEM, "msm", "batch-affine tree scratch of %zu MiB: %s", need >> 20,
                              cudaGetErrorString(e));
        }
        char *base = (char *)d->msm.ba;
        sp.pg = (FF *)base;
        base += (size_t)(thr << (slog - 1)) * sizeof(FF);
        sp.tp = (FF *)base;
        base += thr * sizeof(FF);
        sp.br = (FF *)base;
        base += blk * sizeof(FF);
        sp.tn = (uint32_t *)base;
    }
    for (unsigned g = 0; g < p.ngrp; g += p.bslab) {
        /* A slab: groups g .. g1 - 1, their entries contiguous. */
        const unsigned g1 = g + p.bslab < p.ngrp ? g + p.bslab : p.ngrp;
        const uint32_t nk = (g1 - g) * (p.B + 1);
        unsigned w0 = g * p.t, w1 = g1 * p.t < p.nwin ? g1 * p.t : p.nwin;
        bat_args a;
        memset(&a, 0, sizeof a);
        a.keys = in.keys;
        a.vals = in.vals;
        a.bstart = in.bstart;
        a.bend = in.bend;
        a.pts = (const AFF *)in.pts;
        a.stride = in.stride;
        a.skip = in.skip;
        a.e0 = (uint32_t)((size_t)w0 * in.nb << p.glv);
        a.n0 = (uint32_t)((size_t)(w1 - w0) * in.nb << p.glv);
        a.jshift = p.jshift;
        a.glv = p.glv != 0;
        a.kbeg = g << p.c;
        a.kend = g1 << p.c;
        a.dmask = (1u << p.c) - 1;
        a.part = (cu_xyzz<FF> *)in.part;
        a.inv = gs_cu_knob(GS_CU_K_MSM_BAT) == 2 ? BAT_INV_FERMAT
                : gs_cu_knob(GS_CU_K_MSM_BAT_INV) == 1 ? BAT_INV_BIN : BAT_INV_DS;
        if (a.n0 == 0) continue;
        for (int r = 0; r < in.rounds; r++) {
            const bool r0 = r == 0, last = r == in.rounds - 1;
            a.off_in = r0 ? NULL : in.off[r];
            a.lin = r0 ? NULL : (const AFF *)in.list[(r - 1) & 1];
            a.lkin = r0 ? NULL : in.lkey[(r - 1) & 1];
            a.off_out = in.off[r + 1];
            a.lout = (AFF *)in.list[r & 1];
            a.lkout = in.lkey[r & 1];
            uint64_t items = r0 ? a.n0 : ((uint64_t)a.n0 >> r) + (nk < a.n0 ? nk : a.n0) + 1;
            if (items > a.n0) items = a.n0;
            uint64_t thr = (items + (1u << slog) - 1) >> slog;
            unsigned blocks = (unsigned)((thr + 127) / 128);
            sp.nthr = blocks * 128;
            const bat_split *spp = split ? &sp : NULL;
            if (slog == 3) bat_launch<3>(blocks, d->stream, a, r0, last, spp);
            else if (slog == 5) bat_launch<5>(blocks, d->stream, a, r0, last, spp);
            else if (slog == 6) bat_launch<6>(blocks, d->stream, a, r0, last, spp);
            else bat_launch<4>(blocks, d->stream, a, r0, last, spp);
            CU_LAUNCHED("k_bat_round");
        }
    }
    return GS_OK;
}
