/*
 * Input generators for benchmarks at sizes where building inputs on the
 * host would cost more than the measurement: random scalars and Fr
 * elements drawn on the device (a per-element splitmix64 stream), and a
 * point array filled by replicating a smaller uploaded set.  MSM and NTT
 * cost does not depend on which valid points and scalars are used, so
 * these give representative timings; correctness is covered by the tests.
 */
#include "cu_internal.cuh"

CU_DEV uint64_t splitmix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Uniform-ish below r: 255 random bits, minus r once if >= r (r > 2^254). */
__global__ void k_fill_below_r(cu_fr *out, size_t n, uint64_t seed)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    cu_fr x, y;
    for (int k = 0; k < 4; k++) {
        uint64_t v = splitmix(seed ^ (i * 4 + k) * 0xd1342543de82ef95ull);
        x.l[2 * k] = (uint32_t)v;
        x.l[2 * k + 1] = (uint32_t)(v >> 32);
    }
    x.l[7] &= 0x7fffffffu;
    uint32_t mask;
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(y.l[0]) : "r"(x.l[0]), "r"(cu_fr_cfg::p(0)));
#pragma unroll
    for (int k = 1; k < 8; k++)
        asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(y.l[k]) : "r"(x.l[k]), "r"(cu_fr_cfg::p(k)));
    asm volatile("subc.u32 %0, 0, 0;" : "=r"(mask));
#pragma unroll
    for (int k = 0; k < 8; k++) x.l[k] = (x.l[k] & mask) | (y.l[k] & ~mask);
    fe_store(&out[i], x);
}

extern "C" gs_status gs_cu_fill_random(gs_cu_dev *d, void *dst, size_t n, uint64_t seed, gs_err *err)
{
    CU_TRY(cudaSetDevice(d->device));
    k_fill_below_r<<<(unsigned)((n + 255) / 256), 256, 0, d->stream>>>((cu_fr *)dst, n, seed);
    CU_LAUNCHED("k_fill_below_r");
    return GS_OK;
}

/* Doubles the filled prefix of an array of elem-byte items until n are set. */
static gs_status replicate(gs_cu_dev *d, char *p, size_t elem, size_t n, size_t have, gs_err *err)
{
    CU_TRY(cudaSetDevice(d->device));
    while (have < n) {
        size_t len = have < n - have ? have : n - have;
        CU_TRY(cudaMemcpyAsync(p + have * elem, p, len * elem, cudaMemcpyDeviceToDevice,
                               d->stream));
        have += len;
    }
    return GS_OK;
}

extern "C" gs_status gs_cu_g1_replicate(gs_cu_dev *d, void *pts, size_t n, size_t have, gs_err *err)
{
    return replicate(d, (char *)pts, sizeof(cu_g1_aff), n, have, err);
}

extern "C" gs_status gs_cu_g2_replicate(gs_cu_dev *d, void *pts, size_t n, size_t have, gs_err *err)
{
    return replicate(d, (char *)pts, sizeof(cu_g2_aff), n, have, err);
}
