/*
 * Internal to the MSM's .cu files (cu_msm.cu, cu_msm_ba.cu): the sorted
 * entries' decoding shared by the level-1 kernels, and the batch-affine
 * level 1's launch.
 *
 * An entry value is sign << 31 | j << jshift | i: scalar index i, and j
 * the precomputed copy (2^(j c) P_i) its window reads, or, with GLV (the
 * plan's glv, no copies), the half: j = 1 reads phi(P_i) = (beta x, y)
 * (prover/curve/glv.h; the sign already holds the minus of k2's half).
 */
#ifndef GS_CU_MSM_CUH
#define GS_CU_MSM_CUH

#include "../curve/curve_consts.h"
#include "cu_internal.cuh"

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

/* Where entry value v's point lives, or NULL for a skipped scalar; *phi:
 * the point is to be read as phi(P) (GLV's second half). */
template <class F>
CU_DEV const cu_aff<F> *entry_point(const cu_aff<F> *pts, uint32_t v, size_t stride, uint32_t skip,
                                    unsigned jshift, bool glv, bool &phi)
{
    uint32_t iv = v & 0x7fffffffu;
    uint32_t i = iv & ((1u << jshift) - 1), j = iv >> jshift;
    phi = glv && j != 0;
    if (i < skip) return NULL;
    return pts + (size_t)(glv ? 0 : j) * stride + (i - skip);
}

/* x = beta x, reduced (phi on G1; the point at infinity stays x = y = 0).
 * The multiplication is the level-1 kernels' own out-of-line lazy body. */
template <class C> CU_DEV void glv_phi_x(cu_fe<C> &x)
{
    static_assert(C::N == 12, "phi is G1's");
    const uint64_t b64[6] = GS_CC_BETA;
    cu_fe<C> beta;
#pragma unroll
    for (int i = 0; i < 6; i++) {
        beta.l[2 * i] = (uint32_t)b64[i];
        beta.l[2 * i + 1] = (uint32_t)(b64[i] >> 32);
    }
    x = fe_mul_byval<C, true>(x, beta);
    fe_reduce(x, x);
}
/* G2 has no GLV plan (never called). */
CU_DEV void glv_phi_x(cu_fp2 &) {}

/* The entry's point: loaded from pp, phi applied where the entry asks. */
template <class F> CU_DEV void entry_aff(cu_aff<F> &p, const cu_aff<F> *pp, bool phi)
{
    aff_load(p, pp);
    if (phi) glv_phi_x(p.x);
}

/* Entry value v's point into p (phi applied where the entry asks); false
 * for a skipped scalar (p untouched). */
template <class F>
CU_DEV bool entry_get(cu_aff<F> &p, const cu_aff<F> *pts, uint32_t v, size_t stride, uint32_t skip,
                      unsigned jshift, bool glv)
{
    bool phi;
    const cu_aff<F> *pp = entry_point(pts, v, stride, skip, jshift, glv, phi);
    if (!pp) return false;
    entry_aff(p, pp, phi);
    return true;
}

/* Replaces the device region *buf (*bytes long) by one of `need` bytes,
 * its contents dropped; the caller has synchronised every stream that may
 * still use it.  On failure the CUDA error (cleared), *buf NULL, *bytes 0. */
static inline cudaError_t cu_region_renew(void **buf, size_t *bytes, size_t need)
{
    cudaFree(*buf);
    *buf = NULL;
    *bytes = 0;
    cudaError_t e = cudaMalloc(buf, need);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        *buf = NULL;
        return e;
    }
    *bytes = need;
    return cudaSuccess;
}

/* Level 1 of a G1 MSM by batch-affine pairs (the knob msm_ba, cu_msm_ba.cu):
 * the same partial sums as k_accum_flat (one per bucket segment of each
 * 2^p.s1log-entry chunk, at coff[k] + chunk - bstart[k] / 2^s1log) from the
 * ntot sorted entries; enqueued on d->stream.  Grows d->msm's batch-affine
 * scratch on first use (the streams synchronised first). */
gs_status cu_msm_ba_launch(gs_cu_dev *d, const cu_msm_plan &p, void *part, const uint32_t *coff,
                           const uint32_t *bstart, const uint32_t *keys, const uint32_t *vals,
                           uint32_t ntot, const void *pts, size_t stride, uint32_t skip, gs_err *err);


/* The batch-affine tree's inputs (the knob msm_bat, cu_msm_ba.cu): the
 * prepared entries (nb big scalars; keys, vals sorted per group, runs
 * [bstart[k], bend[k])), the points, and the rounds' offsets off[1 ..
 * rounds] (off[rounds] = coff[0], level 1's partial offsets), two list
 * buffers (96-byte affine points) with their keys, and the XYZZ partials
 * the last round writes (part, at off[rounds][k] + ...). */
struct cu_msm_bat_in {
    const uint32_t *keys, *vals, *bstart, *bend;
    uint32_t nb;
    const void *pts;
    size_t stride;
    uint32_t skip;
    int rounds;
    const uint32_t *off[GS_CU_MSM_BATR + 1];
    void *list[2];
    uint32_t *lkey[2];
    void *part;
};
/* Enqueues the rounds of every group on d->stream. */
gs_status cu_msm_bat_launch(gs_cu_dev *d, const cu_msm_plan &p, const cu_msm_bat_in &in, gs_err *err);
#endif
