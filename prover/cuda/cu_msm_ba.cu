/*
 * G1 bucket accumulation, level 1, with batch-affine additions
 * (GS_CU_FV bit CU_FV_BA; the alternative to k_accum_flat of cu_msm.cu,
 * with exactly its contract: chunk t = entries [t S1, (t+1) S1) of the
 * sorted array, one XYZZ partial per bucket segment the chunk meets, at
 * part[coff[k] + t - bstart[k] / S1], infinity for a segment whose points
 * are all skipped or at infinity; digit-0 keys get nothing).
 *
 * Why: a mixed XYZZ addition costs 8M + 2S; an affine addition with the
 * inversion shared (Montgomery's trick) costs 3M for the trick plus 2M + 1S
 * for the addition, plus the shared inversion.  Sums inside a chunk are
 * formed as a tree, level by level:
 *
 *  - Items: the live entries of the chunk (digit != 0, scalar not skipped),
 *    each at its position s in [0, 64) of the chunk; a position is either
 *    still the original point (vals gives index and sign) or holds a sum in
 *    the lane's scratch slot s / 2.
 *  - A level pairs consecutive live items of the same key (a run keeps at
 *    most one item unpaired per level, so from level 1 on every pair holds
 *    at least one scratch item, and its sum goes back into that slot; at
 *    level 0 a pair (s, s') gets slot s / 2, distinct because s + 1 cannot
 *    start another pair).  Forward pass: each pair's denominator d (x2 - x1,
 *    or 2 y for a doubling, 1 for the cases needing no division) into a
 *    running product, prefixes kept; one inversion per warp and level
 *    (warp_inv: the 32 lanes' products by shuffle scans, one Fermat
 *    inversion, each lane's share back); backward pass: each pair's 1/d
 *    from the prefixes, then the affine sum.
 *  - Levels go on while the warp has at least BA_MIN_PAIRS pairs (so the
 *    inversion, ~500 multiplications, stays spread thin); what is left of
 *    each run is summed with madd into the partial.
 *
 * Scratch (device, per resident lane, lane-strided so a warp's accesses to
 * the same slot are contiguous): 32 affine slots and 32 prefixes.  The grid
 * is persistent (sm_count * BA_BLOCKS blocks); warps take groups of 32
 * chunks in turn, so the warp-wide steps see uniform control flow.
 */
#include "cu_internal.cuh"

#define BA_S1 64 /* MSM_S1 of cu_msm.cu: the flat partials' chunk */
#define BA_PAIRS (BA_S1 / 2)
#define BA_BLOCKS 3
#define BA_MIN_PAIRS 96

typedef cu_fe<cu_cfgv<cu_fp_cfg, CU_FV_SQR>> FS;
typedef cu_aff<FS> BA;
typedef cu_xyzz<FS> BX;

CU_DEV void shfl_up(FS &r, const FS &a, unsigned o)
{
#pragma unroll
    for (int i = 0; i < FS::cfg::N; i++) r.l[i] = __shfl_up_sync(0xffffffffu, a.l[i], o);
}

CU_DEV void shfl_down(FS &r, const FS &a, unsigned o)
{
#pragma unroll
    for (int i = 0; i < FS::cfg::N; i++) r.l[i] = __shfl_down_sync(0xffffffffu, a.l[i], o);
}

CU_DEV void shfl_idx(FS &r, const FS &a, int lane)
{
#pragma unroll
    for (int i = 0; i < FS::cfg::N; i++) r.l[i] = __shfl_sync(0xffffffffu, a.l[i], lane);
}

/* r = a^(p-2) (Fermat), squarings by fe_sqr; a != 0. */
static __device__ __noinline__ void ba_inv(FS &r, const FS &a)
{
    FS acc = a;
    bool started = false;
    for (int i = FS::cfg::N - 1; i >= 0; i--) {
        uint32_t e = FS::cfg::p(i) - (i == 0 ? 2u : 0u);
        for (int b = 31; b >= 0; b--) {
            if (started) fe_sqr(acc, acc);
            if ((e >> b) & 1) {
                if (started) fe_mul(acc, acc, a);
                started = true;
            }
        }
    }
    r = acc;
}

/* inv = x^-1 for every lane's x (all nonzero), one inversion per warp:
 * inclusive prefix and suffix products by shuffles, then
 * x^-1 = (prefix before) (suffix after) / (product of all).  Every lane of
 * the warp must call it. */
CU_DEV void warp_inv(FS &inv, const FS &x)
{
    const unsigned lane = threadIdx.x & 31;
    FS pre = x, suf = x, t;
#pragma unroll 1
    for (unsigned o = 1; o < 32; o <<= 1) {
        shfl_up(t, pre, o);
        if (lane >= o) fe_mul(pre, pre, t);
        shfl_down(t, suf, o);
        if (lane + o < 32) fe_mul(suf, suf, t);
    }
    FS before, after, total, ti;
    shfl_up(before, pre, 1);
    if (lane == 0) fe_one(before);
    shfl_down(after, suf, 1);
    if (lane == 31) fe_one(after);
    shfl_idx(total, pre, 31);
    ba_inv(ti, total);
    fe_mul(inv, ti, before);
    fe_mul(inv, inv, after);
}

/* A pair's case and denominator: 0 = distinct x (d = x2 - x1), 1 = the
 * same point (d = 2 y), 2 = one of them at infinity (d = 1, the sum is the
 * other), 3 = opposite points (d = 1, the sum is infinity). */
CU_DEV int pair_case(FS &d, const BA &p, const BA &q)
{
    if (aff_is_inf(p) || aff_is_inf(q)) {
        fe_one(d);
        return 2;
    }
    if (fe_eq(p.x, q.x)) {
        if (fe_eq(p.y, q.y) && !fe_is_zero(p.y)) {
            fe_dbl(d, p.y);
            return 1;
        }
        fe_one(d);
        return 3;
    }
    fe_sub(d, q.x, p.x);
    return 0;
}

/* r = p + q given id = 1/d of pair_case. */
CU_DEV void pair_sum(BA &r, const BA &p, const BA &q, const FS &id, int cs)
{
    if (cs == 3) {
        fe_zero(r.x);
        fe_zero(r.y);
        return;
    }
    if (cs == 2) {
        r = aff_is_inf(p) ? q : p;
        return;
    }
    FS l, t;
    if (cs == 0) {
        fe_sub(t, q.y, p.y);
    } else {
        fe_sqr(l, p.x);
        fe_dbl(t, l);
        fe_add(t, t, l);
    }
    fe_mul(l, t, id);
    fe_sqr(t, l);
    fe_sub(t, t, p.x);
    fe_sub(r.x, t, q.x);
    fe_sub(t, p.x, r.x);
    fe_mul(t, l, t);
    fe_sub(r.y, t, p.y);
}

struct ba_lane {
    const uint32_t *vals;
    const BA *pts;
    size_t stride;
    uint32_t skip, e0;
    unsigned jshift;
    BA *scr;      /* slot i of this lane: scr[i * nl] */
    FS *pre;      /* prefix j: pre[j * nl] */
    size_t nl;
    uint64_t insc; /* positions whose item is in scratch */

    CU_DEV const BA *point_of(uint32_t v) const
    {
        uint32_t iv = v & 0x7fffffffu;
        uint32_t i = iv & ((1u << jshift) - 1), j = iv >> jshift;
        if (i < skip) return NULL;
        return pts + (size_t)j * stride + (i - skip);
    }
    CU_DEV void load(BA &p, unsigned s) const
    {
        if ((insc >> s) & 1) {
            aff_load(p, &scr[(size_t)(s >> 1) * nl]);
            return;
        }
        uint32_t v = vals[e0 + s];
        aff_load(p, point_of(v));
        if (v >> 31) fe_neg(p.y, p.y);
    }
};

__global__ void __launch_bounds__(128, BA_BLOCKS)
    k_accum_ba(BX *part, const uint32_t *coff, const uint32_t *bstart, const uint32_t *keys,
               const uint32_t *vals, uint32_t ntot, unsigned c, const BA *pts, size_t stride,
               uint32_t skip, unsigned jshift, BA *scr, FS *pre)
{
    const uint32_t gid = blockIdx.x * blockDim.x + threadIdx.x;
    const uint32_t lane = threadIdx.x & 31;
    const size_t nl = (size_t)gridDim.x * blockDim.x;
    const uint32_t nwarps = (uint32_t)(nl >> 5);
    const uint32_t nchunks = (ntot + BA_S1 - 1) / BA_S1;
    const uint32_t dmask = (1u << c) - 1;
    ba_lane L;
    L.vals = vals;
    L.pts = pts;
    L.stride = stride;
    L.skip = skip;
    L.jshift = jshift;
    L.scr = scr + gid;
    L.pre = pre + gid;
    L.nl = nl;
    uint16_t prs[BA_PAIRS];

    for (uint32_t w = gid >> 5; (size_t)w * 32 < nchunks; w += nwarps) {
        const uint32_t t = w * 32 + lane;
        const uint32_t e0 = t * BA_S1;
        const uint32_t len = t < nchunks ? min((uint32_t)BA_S1, ntot - e0) : 0;
        const uint32_t *kc = keys + e0;
        L.e0 = e0;
        L.insc = 0;
        uint64_t live = 0;
        for (uint32_t s = 0; s < len; s++)
            if ((kc[s] & dmask) != 0 && L.point_of(vals[e0 + s])) live |= 1ull << s;

        for (int lvl = 0; lvl < 6; lvl++) {
            uint32_t np = 0;
            for (uint64_t m = live; m;) {
                unsigned s = __ffsll((long long)m) - 1;
                m &= m - 1;
                if (!m) break;
                unsigned s2 = __ffsll((long long)m) - 1;
                if (kc[s] == kc[s2]) {
                    prs[np++] = (uint16_t)(s | s2 << 8);
                    m &= m - 1;
                }
            }
            if (__reduce_add_sync(0xffffffffu, np) < BA_MIN_PAIRS) break;
            FS acc, d;
            fe_one(acc);
            for (uint32_t j = 0; j < np; j++) {
                BA p, q;
                L.load(p, prs[j] & 255);
                L.load(q, prs[j] >> 8);
                (void)pair_case(d, p, q);
                fe_store(&L.pre[(size_t)j * nl], acc);
                fe_mul(acc, acc, d);
            }
            FS inv;
            warp_inv(inv, acc);
            for (int j = (int)np - 1; j >= 0; j--) {
                unsigned s = prs[j] & 255, s2 = prs[j] >> 8;
                BA p, q, r;
                L.load(p, s);
                L.load(q, s2);
                int cs = pair_case(d, p, q);
                FS id, pj;
                fe_load(pj, &L.pre[(size_t)j * nl]);
                fe_mul(id, inv, pj);
                fe_mul(inv, inv, d);
                pair_sum(r, p, q, id, cs);
                /* The sum stays at a position already in scratch (s first). */
                unsigned keep = ((L.insc >> s) & 1) || !((L.insc >> s2) & 1) ? s : s2;
                unsigned kill = keep == s ? s2 : s;
                BA *dst = &L.scr[(size_t)(keep >> 1) * nl];
                fe_store(&dst->x, r.x);
                fe_store(&dst->y, r.y);
                live &= ~(1ull << kill);
                L.insc |= 1ull << keep;
            }
        }

        /* What is left of each run, by madd into its partial. */
        for (uint32_t s = 0; s < len;) {
            uint32_t k = kc[s], s1 = s + 1;
            while (s1 < len && kc[s1] == k) s1++;
            if (k & dmask) {
                BX a;
                xyzz_set_inf(a);
                uint64_t hi = s1 >= 64 ? ~0ull : (1ull << s1) - 1;
                for (uint64_t m = live & hi & ~((1ull << s) - 1); m; m &= m - 1) {
                    BA p;
                    L.load(p, __ffsll((long long)m) - 1);
                    if (!aff_is_inf(p)) xyzz_add_aff<FS, true>(a, p, false);
                }
                xyzz_store(&part[coff[k] + t - bstart[k] / BA_S1], a);
            }
            s = s1;
        }
    }
}

extern "C" size_t cu_msm_ba_lanes(const gs_cu_dev *d) { return (size_t)d->sm_count * BA_BLOCKS * 128; }

gs_status cu_msm_ba_g1(gs_cu_dev *d, const fv_flat_args *a, int *used, gs_err *err)
{
    *used = 0;
    const size_t nl = cu_msm_ba_lanes(d);
    const size_t need = nl * BA_PAIRS * (sizeof(BA) + sizeof(FS));
    if (need > d->msm.ba_bytes) {
        cudaStreamSynchronize(d->streams[0]);
        cudaStreamSynchronize(d->streams[1]);
        cudaFree(d->msm.ba_base);
        d->msm.ba_base = NULL;
        d->msm.ba_bytes = 0;
        if (cudaMalloc(&d->msm.ba_base, need) != cudaSuccess) {
            (void)cudaGetLastError(); /* no room: the caller takes the madd kernel */
            d->msm.ba_base = NULL;
            return GS_OK;
        }
        d->msm.ba_bytes = need;
    }
    BA *scr = (BA *)d->msm.ba_base;
    FS *pre = (FS *)(scr + nl * BA_PAIRS);
    k_accum_ba<<<(unsigned)(nl / 128), 128, 0, d->stream>>>(
        (BX *)a->part, a->coff, a->bstart, a->keys, a->vals, a->ntot, a->c, (const BA *)a->pts,
        a->stride, a->skip, a->jshift, scr, pre);
    CU_LAUNCHED("k_accum_ba");
    *used = 1;
    return GS_OK;
}
