/*
 * G1 multi-scalar multiplication on the device: Pippenger's bucket method
 * with signed-digit windows.
 *
 *  1. digits: scalar i gives, per window w of c bits, a signed digit
 *     d in [-2^(c-1), 2^(c-1)] (a digit above 2^(c-1) becomes d - 2^c and
 *     carries one into the next window); entry (key = w << c | |d|,
 *     value = i | sign << 31).  One extra window takes the last carry when
 *     the top window has c bits.
 *  2. sort: CUB radix sort of each window's entries on the c digit bits,
 *     so every bucket's points are contiguous; a boundary pass writes each
 *     key's [start, end).
 *  3. accumulate: buckets are cut into chunks of at most S1 entries, one
 *     thread per chunk summing its points into an XYZZ partial (madd);
 *     then, while some bucket still has several partials, chunks of S2
 *     partials are summed again (add).  Skewed scalar sets (many equal
 *     digits, e.g. witnesses full of 0/1) thus stay balanced.
 *  4. bucket reduction: window sum = sum_b b * B_b.  Thread (w, j) takes
 *     buckets [jL + 1, (j+1)L], computes the running sums
 *     R = sum B_b, T = sum (b - jL) B_b, and returns T + jL * R; groups of
 *     these are summed on the device down to GS_CU_MSM_PARTS per window.
 *  5. the per-window parts go to a pinned result slot; the host adds them
 *     and combines windows by Horner's rule (gs_cu_msm_g1_result).
 * Bucket 0 (digit 0) is skipped; points at infinity (x = y = 0) are
 * skipped when accumulated.
 */
#include <stdlib.h>
#include <string.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "cu_internal.cuh"

#define MSM_S1 64
#define MSM_S2 16
#define MSM_SEG 32

struct msm_plan {
    size_t n;
    unsigned c, nwin;
    uint32_t B, K;                /* buckets per window (|d| max), key space */
    uint32_t ntot;                /* n * nwin entries */
    uint32_t t1max, t2max;        /* chunk bounds of level 1 and later levels */
    uint32_t L, T;                /* reduction segment length, segments per window */
};

static unsigned ilog2_ceil(size_t n)
{
    unsigned k = 0;
    while (((size_t)1 << k) < n) k++;
    return k;
}

static int plan_msm(msm_plan *p, size_t n, int window)
{
    memset(p, 0, sizeof *p);
    p->n = n;
    int c = window;
    if (c <= 0) {
        /* Measured on the H200 (bench/RESULTS.md window sweep): c = 16 for
         * 2^21..2^25 (2^22: 63 ms vs 87 ms at c = 15; 2^24: 206 ms vs 289 ms
         * at c = 17), 18 from 2^26 (761 ms vs 783 ms at 16, 796 ms at 19).
         * Widths that divide 255 (5, 15, 17) cost a whole extra window for
         * the last carry, so the small-n formula steps over them. */
        unsigned lg = ilog2_ceil(n);
        if (lg >= 26) c = 18;
        else if (lg >= 21) c = 16;
        else {
            c = (int)lg - 8;
            c = c < 6 ? 6 : c;
            if (255 % c == 0) c++;
        }
    }
    if (c < 4 || c > 24) return 0;
    p->c = (unsigned)c;
    p->nwin = (255 + p->c - 1) / p->c;
    if (255 - (p->nwin - 1) * p->c == p->c) p->nwin++;
    if (p->nwin > GS_CU_MSM_MAXWIN) return 0;
    if ((uint64_t)n * p->nwin >= (1ull << 31)) return 0;
    p->B = 1u << (p->c - 1);
    p->K = p->nwin << p->c;
    p->ntot = (uint32_t)(n * p->nwin);
    p->t1max = p->ntot / MSM_S1 + p->K + 1;
    p->t2max = p->t1max / MSM_S2 + p->K + 1;
    p->L = p->B < MSM_SEG ? p->B : MSM_SEG;
    p->T = p->B / p->L;
    return 1;
}

__global__ void k_digits(uint32_t *keys, uint32_t *vals, const uint32_t *scalars, uint32_t n,
                         unsigned c, unsigned nwin)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t s[8];
    const uint4 *v = reinterpret_cast<const uint4 *>(scalars + 8 * (size_t)i);
    uint4 lo = v[0], hi = v[1];
    s[0] = lo.x; s[1] = lo.y; s[2] = lo.z; s[3] = lo.w;
    s[4] = hi.x; s[5] = hi.y; s[6] = hi.z; s[7] = hi.w;
    const uint32_t mask = (1u << c) - 1, half = 1u << (c - 1);
    uint32_t carry = 0;
    for (unsigned w = 0; w < nwin; w++) {
        unsigned off = w * c, limb = off >> 5, sh = off & 31;
        uint32_t bits = 0;
        if (limb < 8) {
            bits = s[limb] >> sh;
            if (sh + c > 32 && limb + 1 < 8) bits |= s[limb + 1] << (32 - sh);
            bits &= mask;
        }
        uint32_t d = bits + carry, neg = 0;
        if (d > half) {
            d = (1u << c) - d;
            neg = 1;
            carry = 1;
        } else {
            carry = 0;
        }
        size_t e = (size_t)w * n + i;
        keys[e] = (w << c) | d;
        vals[e] = i | (neg << 31);
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

/* Level-1 chunk counts; bucket 0 of every window (digit 0) is empty. */
__global__ void k_chunks1(uint32_t *chunks, const uint32_t *bstart, const uint32_t *bend,
                          uint32_t K, unsigned c)
{
    uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k > K) return;
    uint32_t cnt = (k == K || (k & ((1u << c) - 1)) == 0) ? 0 : bend[k] - bstart[k];
    chunks[k] = (cnt + MSM_S1 - 1) / MSM_S1;
}

/* Later levels: a key's items are the partials coff[k] .. coff[k+1]. */
__global__ void k_chunksN(uint32_t *chunks, const uint32_t *coff, uint32_t K)
{
    uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k > K) return;
    uint32_t cnt = k == K ? 0 : coff[k + 1] - coff[k];
    chunks[k] = (cnt + MSM_S2 - 1) / MSM_S2;
}

/* Largest k with coff[k] <= t (coff nondecreasing, coff[0] = 0 <= t < coff[K]). */
CU_DEV uint32_t find_key(const uint32_t *coff, uint32_t K, uint32_t t)
{
    uint32_t lo = 0, hi = K; /* invariant: coff[lo] <= t < coff[hi] */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (coff[mid] <= t) lo = mid; else hi = mid;
    }
    return lo;
}

__global__ void __launch_bounds__(128) k_accum1(cu_g1_xyzz *part, const uint32_t *coff, uint32_t K,
                                                const uint32_t *bstart, const uint32_t *bend,
                                                const uint32_t *vals, const cu_g1_aff *pts)
{
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= coff[K]) return;
    uint32_t k = find_key(coff, K, t);
    uint32_t e = bstart[k] + (t - coff[k]) * MSM_S1;
    uint32_t end = min(e + MSM_S1, bend[k]);
    cu_g1_xyzz acc;
    xyzz_set_inf(acc);
    for (; e < end; e++) {
        uint32_t v = vals[e];
        cu_g1_aff p;
        aff_load(p, &pts[v & 0x7fffffffu]);
        if (!aff_is_inf(p)) xyzz_add_aff(acc, p, (v >> 31) != 0);
    }
    xyzz_store(&part[t], acc);
}

__global__ void __launch_bounds__(128) k_accumN(cu_g1_xyzz *out, const uint32_t *coff_new,
                                                const cu_g1_xyzz *in, const uint32_t *coff_old,
                                                uint32_t K)
{
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= coff_new[K]) return;
    uint32_t k = find_key(coff_new, K, t);
    uint32_t e = coff_old[k] + (t - coff_new[k]) * MSM_S2;
    uint32_t end = min(e + MSM_S2, coff_old[k + 1]);
    cu_g1_xyzz acc, q;
    xyzz_load(acc, &in[e]);
    for (e++; e < end; e++) {
        xyzz_load(q, &in[e]);
        xyzz_add(acc, q);
    }
    xyzz_store(&out[t], acc);
}

/* Thread (w, j): buckets jL+1 .. (j+1)L of window w -> T + jL * R. */
__global__ void __launch_bounds__(128) k_reduce(cu_g1_xyzz *seg, const cu_g1_xyzz *part,
                                                const uint32_t *coff, unsigned c, uint32_t nwin,
                                                uint32_t L, uint32_t T)
{
    uint32_t id = blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= nwin * T) return;
    uint32_t w = id / T, j = id % T;
    cu_g1_xyzz R, S, q;
    xyzz_set_inf(R);
    xyzz_set_inf(S);
    for (uint32_t b = (j + 1) * L; b > j * L; b--) {
        uint32_t k = (w << c) | b;
        if (coff[k + 1] - coff[k] == 1) {
            xyzz_load(q, &part[coff[k]]);
            xyzz_add(R, q);
        }
        xyzz_add(S, R);
    }
    /* S += (jL) * R, double-and-add from the top bit. */
    uint32_t mult = j * L;
    if (mult) {
        xyzz_set_inf(q);
        for (int bit = 31 - __clz(mult); bit >= 0; bit--) {
            xyzz_dbl(q, q);
            if ((mult >> bit) & 1) xyzz_add(q, R);
        }
        xyzz_add(S, q);
    }
    xyzz_store(&seg[id], S);
}

__global__ void k_sum_groups(cu_g1_xyzz *out, const cu_g1_xyzz *in, uint32_t groups, uint32_t G)
{
    uint32_t g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= groups) return;
    cu_g1_xyzz acc, q;
    xyzz_load(acc, &in[(size_t)g * G]);
    for (uint32_t i = 1; i < G; i++) {
        xyzz_load(q, &in[(size_t)g * G + i]);
        xyzz_add(acc, q);
    }
    xyzz_store(&out[g], acc);
}

static unsigned nblk(size_t n, unsigned t) { return (unsigned)((n + t - 1) / t); }

/* Carves the scratch region; returns the bytes needed when base is NULL. */
struct msm_bufs {
    uint32_t *keys[2], *vals[2], *bstart, *bend, *chunks, *coff[2];
    cu_g1_xyzz *part[2], *seg[2];
};

static size_t carve(msm_bufs *b, char *base, const msm_plan *p)
{
    size_t off = 0;
#define CARVE(ptr, type, count)                                   \
    do {                                                          \
        (ptr) = (type *)(base ? base + off : NULL);               \
        off += (((size_t)(count) * sizeof(type)) + 255) & ~(size_t)255; \
    } while (0)
    for (int i = 0; i < 2; i++) {
        CARVE(b->keys[i], uint32_t, p->ntot);
        CARVE(b->vals[i], uint32_t, p->ntot);
    }
    CARVE(b->bstart, uint32_t, p->K);
    CARVE(b->bend, uint32_t, p->K);
    CARVE(b->chunks, uint32_t, p->K + 1);
    CARVE(b->coff[0], uint32_t, p->K + 1);
    CARVE(b->coff[1], uint32_t, p->K + 1);
    CARVE(b->part[0], cu_g1_xyzz, p->t1max);
    CARVE(b->part[1], cu_g1_xyzz, p->t2max);
    CARVE(b->seg[0], cu_g1_xyzz, (size_t)p->nwin * p->T);
    CARVE(b->seg[1], cu_g1_xyzz, (size_t)p->nwin * p->T);
#undef CARVE
    return off;
}

static gs_status ensure_scratch(gs_cu_dev *d, const msm_plan *p, msm_bufs *b, gs_err *err)
{
    size_t need = carve(b, NULL, p);
    size_t cub_sort = 0, cub_scan = 0;
    cub::DoubleBuffer<uint32_t> dk(NULL, NULL), dv(NULL, NULL);
    CU_TRY(cub::DeviceRadixSort::SortPairs(NULL, cub_sort, dk, dv, (int)p->n, 0,
                                           (int)p->c, d->stream));
    CU_TRY(cub::DeviceScan::ExclusiveSum(NULL, cub_scan, (uint32_t *)NULL, (uint32_t *)NULL,
                                         (int)(p->K + 1), d->stream));
    size_t cub_need = cub_sort > cub_scan ? cub_sort : cub_scan;
    if (need > d->msm.bytes || cub_need > d->msm.cub_bytes) {
        CU_TRY(cudaStreamSynchronize(d->stream));
    }
    if (need > d->msm.bytes) {
        cudaFree(d->msm.base);
        d->msm.base = NULL;
        d->msm.bytes = 0;
        cudaError_t e = cudaMalloc(&d->msm.base, need);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            d->msm.base = NULL;
            return GS_ERR(err, GS_ERR_NOMEM, "msm", "scratch of %zu MiB for n = %zu: %s",
                          need >> 20, p->n, cudaGetErrorString(e));
        }
        d->msm.bytes = need;
    }
    if (cub_need > d->msm.cub_bytes) {
        cudaFree(d->msm.cub_temp);
        d->msm.cub_temp = NULL;
        d->msm.cub_bytes = 0;
        CU_TRY(cudaMalloc(&d->msm.cub_temp, cub_need));
        d->msm.cub_bytes = cub_need;
    }
    carve(b, (char *)d->msm.base, p);
    return GS_OK;
}

extern "C" gs_status gs_cu_msm_g1(gs_cu_dev *d, int slot, const void *pts, const gs_scalar *scalars,
                                  size_t n, int window, gs_err *err)
{
    gs_status st;
    msm_plan p;
    msm_bufs b;
    cudaStream_t s = d->stream;
    if (slot < 0 || slot >= GS_CU_MSM_SLOTS)
        return GS_ERR(err, GS_ERR_ARG, "msm", "result slot %d", slot);
    if (n == 0) {
        d->res_nwin[slot] = 0;
        d->res_parts[slot] = 0;
        return GS_OK;
    }
    if (!plan_msm(&p, n, window))
        return GS_ERR(err, GS_ERR_RANGE, "msm", "n = %zu with window %d is out of range", n, window);
    CU_TRY(cudaSetDevice(d->device));
    if ((st = ensure_scratch(d, &p, &b, err)) != GS_OK) return st;

    k_digits<<<nblk(n, 256), 256, 0, s>>>(b.keys[0], b.vals[0], (const uint32_t *)scalars,
                                          (uint32_t)n, p.c, p.nwin);
    CU_LAUNCHED("k_digits");
    /* The entries are window-major, so each window's n entries are sorted
     * on their c digit bits alone (2 radix passes for c <= 16 where the
     * whole key would take 3); every window makes the same passes, so all
     * end in the same half of the double buffer. */
    int sel = 0;
    size_t tb;
    for (unsigned w = 0; w < p.nwin; w++) {
        size_t o = (size_t)w * n;
        cub::DoubleBuffer<uint32_t> wk(b.keys[0] + o, b.keys[1] + o), wv(b.vals[0] + o, b.vals[1] + o);
        tb = d->msm.cub_bytes;
        CU_TRY(cub::DeviceRadixSort::SortPairs(d->msm.cub_temp, tb, wk, wv, (int)n, 0, (int)p.c, s));
        sel = wk.selector;
    }
    cub::DoubleBuffer<uint32_t> dk(b.keys[sel], b.keys[sel ^ 1]), dv(b.vals[sel], b.vals[sel ^ 1]);
    CU_TRY(cudaMemsetAsync(b.bstart, 0, sizeof(uint32_t) * p.K, s));
    CU_TRY(cudaMemsetAsync(b.bend, 0, sizeof(uint32_t) * p.K, s));
    k_bounds<<<nblk(p.ntot, 256), 256, 0, s>>>(dk.Current(), p.ntot, b.bstart, b.bend);
    CU_LAUNCHED("k_bounds");

    /* Level 1: chunks of sorted entries. */
    k_chunks1<<<nblk(p.K + 1, 256), 256, 0, s>>>(b.chunks, b.bstart, b.bend, p.K, p.c);
    CU_LAUNCHED("k_chunks1");
    tb = d->msm.cub_bytes;
    CU_TRY(cub::DeviceScan::ExclusiveSum(d->msm.cub_temp, tb, b.chunks, b.coff[0], (int)(p.K + 1), s));
    k_accum1<<<nblk(p.t1max, 128), 128, 0, s>>>(b.part[0], b.coff[0], p.K, b.bstart, b.bend,
                                                dv.Current(), (const cu_g1_aff *)pts);
    CU_LAUNCHED("k_accum1");

    /* Later levels until every bucket has at most one partial. */
    int cur = 0;
    size_t bound = (n + MSM_S1 - 1) / MSM_S1;
    while (bound > 1) {
        k_chunksN<<<nblk(p.K + 1, 256), 256, 0, s>>>(b.chunks, b.coff[cur], p.K);
        CU_LAUNCHED("k_chunksN");
        tb = d->msm.cub_bytes;
        CU_TRY(cub::DeviceScan::ExclusiveSum(d->msm.cub_temp, tb, b.chunks, b.coff[cur ^ 1],
                                             (int)(p.K + 1), s));
        uint32_t cap = cur == 0 ? p.t2max : p.t1max;
        k_accumN<<<nblk(cap, 128), 128, 0, s>>>(b.part[cur ^ 1], b.coff[cur ^ 1], b.part[cur],
                                                b.coff[cur], p.K);
        CU_LAUNCHED("k_accumN");
        cur ^= 1;
        bound = (bound + MSM_S2 - 1) / MSM_S2;
    }

    /* Bucket reduction, then groups down to at most GS_CU_MSM_PARTS per window. */
    k_reduce<<<nblk((size_t)p.nwin * p.T, 128), 128, 0, s>>>(b.seg[0], b.part[cur], b.coff[cur],
                                                             p.c, p.nwin, p.L, p.T);
    CU_LAUNCHED("k_reduce");
    int sc = 0;
    uint32_t per = p.T;
    while (per > GS_CU_MSM_PARTS) {
        uint32_t G = per >= GS_CU_MSM_PARTS * GS_CU_MSM_PARTS ? GS_CU_MSM_PARTS : per / GS_CU_MSM_PARTS;
        uint32_t groups = p.nwin * (per / G);
        k_sum_groups<<<nblk(groups, 128), 128, 0, s>>>(b.seg[sc ^ 1], b.seg[sc], groups, G);
        CU_LAUNCHED("k_sum_groups");
        sc ^= 1;
        per /= G;
    }
    size_t cnt = (size_t)p.nwin * per;
    CU_TRY(cudaMemcpyAsync(d->res_dev + (size_t)slot * GS_CU_SLOT_POINTS, b.seg[sc],
                           cnt * sizeof(cu_g1_xyzz), cudaMemcpyDeviceToDevice, s));
    d->res_nwin[slot] = (int)p.nwin;
    d->res_c[slot] = (int)p.c;
    d->res_parts[slot] = (int)per;
    return GS_OK;
}

extern "C" gs_status gs_cu_msm_fetch(gs_cu_dev *d, int slot, gs_err *err)
{
    if (slot < 0 || slot >= GS_CU_MSM_SLOTS)
        return GS_ERR(err, GS_ERR_ARG, "msm", "result slot %d", slot);
    size_t off = (size_t)slot * GS_CU_SLOT_POINTS;
    size_t cnt = (size_t)d->res_nwin[slot] * d->res_parts[slot];
    if (cnt == 0) return GS_OK;
    CU_TRY(cudaSetDevice(d->device));
    CU_TRY(cudaMemcpyAsync(d->res_host + off, d->res_dev + off, cnt * sizeof(cu_g1_xyzz),
                           cudaMemcpyDeviceToHost, d->stream));
    return GS_OK;
}

extern "C" gs_status gs_cu_msm_parts_take(gs_cu_dev *d, int slot, gs_cu_msm_parts *out,
                                          gs_err *err)
{
    static_assert(sizeof(gs_g1_xyzz) == sizeof(cu_g1_xyzz), "XYZZ layouts differ");
    memset(out, 0, sizeof *out);
    if (slot < 0 || slot >= GS_CU_MSM_SLOTS)
        return GS_ERR(err, GS_ERR_ARG, "msm", "result slot %d", slot);
    size_t cnt = (size_t)d->res_nwin[slot] * d->res_parts[slot];
    out->nwin = d->res_nwin[slot];
    out->per = d->res_parts[slot];
    out->c = d->res_c[slot];
    if (cnt == 0) return GS_OK;
    out->p = (gs_g1_xyzz *)malloc(cnt * sizeof(gs_g1_xyzz));
    if (!out->p) return GS_ERR(err, GS_ERR_NOMEM, "msm", "%zu window parts", cnt);
    memcpy(out->p, d->res_host + (size_t)slot * GS_CU_SLOT_POINTS, cnt * sizeof(gs_g1_xyzz));
    return GS_OK;
}

extern "C" void gs_cu_msm_parts_combine(gs_g1 *out, const gs_cu_msm_parts *mp)
{
    gs_g1_set_inf(out);
    for (int w = mp->nwin - 1; w >= 0; w--) {
        for (int i = 0; i < mp->c && !gs_g1_is_inf(out); i++) gs_g1_dbl(out, out);
        for (int i = 0; i < mp->per; i++) {
            const gs_g1_xyzz *q = &mp->p[(size_t)w * mp->per + i];
            if (gs_fp_is_zero(&q->ZZ)) continue;
            gs_g1 j;
            gs_g1_xyzz_to_jacobian(&j, q);
            gs_g1_add(out, out, &j);
        }
    }
}

extern "C" void gs_cu_msm_parts_free(gs_cu_msm_parts *mp)
{
    free(mp->p);
    mp->p = NULL;
}

extern "C" gs_status gs_cu_msm_g1_result(gs_cu_dev *d, int slot, gs_g1 *out, gs_err *err)
{
    gs_cu_msm_parts mp;
    gs_status st = gs_cu_msm_parts_take(d, slot, &mp, err);
    if (st != GS_OK) return st;
    gs_cu_msm_parts_combine(out, &mp);
    gs_cu_msm_parts_free(&mp);
    return GS_OK;
}
