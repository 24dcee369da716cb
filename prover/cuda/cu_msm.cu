/*
 * Multi-scalar multiplication on the device, G1 and G2 from one source
 * (the point kernels are templates over the coordinate field F = cu_fp or
 * cu_fp2, cu_ec.cuh): Pippenger's bucket method with signed-digit windows.
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
 *     and combines windows by Horner's rule (gs_cu_msm_g1_result /
 *     gs_cu_msm_g2_result).
 * Steps 1 and 2 see only scalars and are the same for both curves.
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

template <class F>
__global__ void __launch_bounds__(128) k_accum1(cu_xyzz<F> *part, const uint32_t *coff, uint32_t K,
                                                const uint32_t *bstart, const uint32_t *bend,
                                                const uint32_t *vals, const cu_aff<F> *pts)
{
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= coff[K]) return;
    uint32_t k = find_key(coff, K, t);
    uint32_t e = bstart[k] + (t - coff[k]) * MSM_S1;
    uint32_t end = min(e + MSM_S1, bend[k]);
    cu_xyzz<F> acc;
    xyzz_set_inf(acc);
    for (; e < end; e++) {
        uint32_t v = vals[e];
        cu_aff<F> p;
        aff_load(p, &pts[v & 0x7fffffffu]);
        if (!aff_is_inf(p)) xyzz_add_aff(acc, p, (v >> 31) != 0);
    }
    xyzz_store(&part[t], acc);
}

template <class F>
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
        xyzz_add(acc, q);
    }
    xyzz_store(&out[t], acc);
}

/* Thread (w, j): buckets jL+1 .. (j+1)L of window w -> T + jL * R. */
template <class F>
__global__ void __launch_bounds__(128) k_reduce(cu_xyzz<F> *seg, const cu_xyzz<F> *part,
                                                const uint32_t *coff, unsigned c, uint32_t nwin,
                                                uint32_t L, uint32_t T)
{
    uint32_t id = blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= nwin * T) return;
    uint32_t w = id / T, j = id % T;
    cu_xyzz<F> R, S, q;
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

static unsigned nblk(size_t n, unsigned t) { return (unsigned)((n + t - 1) / t); }

/* Carves the scratch region; returns the bytes needed when base is NULL.
 * part and seg hold XYZZ points of psz bytes (the curve's). */
struct msm_bufs {
    uint32_t *keys[2], *vals[2], *bstart, *bend, *chunks, *coff[2];
    char *part[2], *seg[2];
};

static size_t carve(msm_bufs *b, char *base, const msm_plan *p, size_t psz)
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
    CARVE(b->part[0], char, p->t1max * psz);
    CARVE(b->part[1], char, p->t2max * psz);
    CARVE(b->seg[0], char, (size_t)p->nwin * p->T * psz);
    CARVE(b->seg[1], char, (size_t)p->nwin * p->T * psz);
#undef CARVE
    return off;
}

static gs_status ensure_scratch(gs_cu_dev *d, const msm_plan *p, size_t psz, msm_bufs *b,
                                gs_err *err)
{
    size_t need = carve(b, NULL, p, psz);
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
    carve(b, (char *)d->msm.base, p, psz);
    return GS_OK;
}

/* The MSM of either curve: F = cu_fp (G1) or cu_fp2 (G2). */
template <class F>
static gs_status msm_run(gs_cu_dev *d, int slot, const void *pts, const gs_scalar *scalars,
                         size_t n, int window, gs_err *err)
{
    typedef cu_xyzz<F> X;
    const int g2 = sizeof(F) == sizeof(cu_fp2);
    gs_status st;
    msm_plan p;
    msm_bufs b;
    cudaStream_t s = d->stream;
    if (slot < 0 || slot >= GS_CU_MSM_SLOTS)
        return GS_ERR(err, GS_ERR_ARG, "msm", "result slot %d", slot);
    if (n == 0) {
        d->res_g2[slot] = g2;
        d->res_nwin[slot] = 0;
        d->res_parts[slot] = 0;
        return GS_OK;
    }
    if (!plan_msm(&p, n, window))
        return GS_ERR(err, GS_ERR_RANGE, "msm", "n = %zu with window %d is out of range", n, window);
    CU_TRY(cudaSetDevice(d->device));
    if ((st = ensure_scratch(d, &p, sizeof(X), &b, err)) != GS_OK) return st;

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
    k_accum1<F><<<nblk(p.t1max, 128), 128, 0, s>>>((X *)b.part[0], b.coff[0], p.K, b.bstart,
                                                   b.bend, dv.Current(), (const cu_aff<F> *)pts);
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
        k_accumN<F><<<nblk(cap, 128), 128, 0, s>>>((X *)b.part[cur ^ 1], b.coff[cur ^ 1],
                                                   (const X *)b.part[cur], b.coff[cur], p.K);
        CU_LAUNCHED("k_accumN");
        cur ^= 1;
        bound = (bound + MSM_S2 - 1) / MSM_S2;
    }

    /* Bucket reduction, then groups down to at most GS_CU_MSM_PARTS per window. */
    k_reduce<F><<<nblk((size_t)p.nwin * p.T, 128), 128, 0, s>>>((X *)b.seg[0],
                                                                (const X *)b.part[cur], b.coff[cur],
                                                                p.c, p.nwin, p.L, p.T);
    CU_LAUNCHED("k_reduce");
    int sc = 0;
    uint32_t per = p.T;
    while (per > GS_CU_MSM_PARTS) {
        uint32_t G = per >= GS_CU_MSM_PARTS * GS_CU_MSM_PARTS ? GS_CU_MSM_PARTS : per / GS_CU_MSM_PARTS;
        uint32_t groups = p.nwin * (per / G);
        k_sum_groups<F><<<nblk(groups, 128), 128, 0, s>>>((X *)b.seg[sc ^ 1],
                                                          (const X *)b.seg[sc], groups, G);
        CU_LAUNCHED("k_sum_groups");
        sc ^= 1;
        per /= G;
    }
    size_t cnt = (size_t)p.nwin * per;
    static_assert(GS_CU_SLOT_POINTS * sizeof(X) <= GS_CU_SLOT_BYTES, "result slot too small");
    CU_TRY(cudaMemcpyAsync(d->res_dev + (size_t)slot * GS_CU_SLOT_BYTES, b.seg[sc],
                           cnt * sizeof(X), cudaMemcpyDeviceToDevice, s));
    d->res_g2[slot] = g2;
    d->res_nwin[slot] = (int)p.nwin;
    d->res_c[slot] = (int)p.c;
    d->res_parts[slot] = (int)per;
    return GS_OK;
}

extern "C" gs_status gs_cu_msm_g1(gs_cu_dev *d, int slot, const void *pts, const gs_scalar *scalars,
                                  size_t n, int window, gs_err *err)
{
    return msm_run<cu_fp>(d, slot, pts, scalars, n, window, err);
}

extern "C" gs_status gs_cu_msm_g2(gs_cu_dev *d, int slot, const void *pts, const gs_scalar *scalars,
                                  size_t n, int window, gs_err *err)
{
    return msm_run<cu_fp2>(d, slot, pts, scalars, n, window, err);
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
