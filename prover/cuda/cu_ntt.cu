/*
 * Radix-2 NTT over Fr on the device, natural order in and out, and the H
 * scalars of snarkjs's prover (SNARKJS-FORMATS.md 7.1 and 7.3) and of the
 * classic convention (groth16.h).
 *
 * Layout of a transform of size n = 2^L (decimation in time):
 *   bit-reversal permutation (optionally scaling each element first);
 *   stages m = 1, 2, ..., 2^(K-1) inside shared memory, one block per
 *   2^K contiguous elements (K = min(L, 10));
 *   the remaining stages two at a time (radix-4 passes over global
 *   memory), a last radix-2 pass when L - K is odd.
 * Butterfly of stage m on (x[i], x[i+m]), j = i mod m:
 *   forward: t = w_(2m)^j x[i+m]; (x[i], x[i+m]) <- (x[i] + t, x[i] - t);
 *   inverse uses w_(2m)^-j = -w_(2m)^(m-j) (j > 0), i.e. t = tw[2m-j] x[i+m]
 *   and (x[i] - t, x[i] + t).
 * Twiddles: one table tw[m + j] = w_(2m)^j for every power of two m below
 * the table size, so each stage reads a contiguous slice; entry m + j is
 * the product of the roots w_(2m / 2^b) over the set bits b of j.  Since
 * w_(2n)^k = tw[n + k], the coset factors of the H computation come from
 * the same table (it must hold 2n entries).
 *
 * The classic H convention's coset shift g = 7 is no root of unity, so its
 * factors g^k come from k_scale_pow instead: thread t of T scales the
 * elements t, t + T, t + 2T, ... (coalesced), starting from c g^t (one
 * product per set bit of t, from the table g^(2^b) passed by value) and
 * stepping by g^T; about two multiplications per element.
 */
#include <string.h>

#include "cu_internal.cuh"

#define NTT_SMEM_LOG 10

struct cu_roots {
    cu_fr r[GS_FR_TWO_ADICITY + 1];
};

__global__ void k_tw_gen(cu_fr *tw, uint32_t size, cu_roots roots)
{
    uint32_t idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= size) return;
    cu_fr acc;
    fe_one(acc);
    if (idx > 0) {
        uint32_t lg = 31 - __clz(idx); /* m = 2^lg */
        uint32_t j = idx - (1u << lg);
        for (uint32_t b = 0; j; b++, j >>= 1)
            if (j & 1) fe_mul(acc, acc, roots.r[lg + 1 - b]);
    }
    fe_store(&tw[idx], acc);
}

/* Butterfly of stage m (see the file comment). */
template <bool INV>
CU_DEV void bfly(cu_fr &u, cu_fr &v, const cu_fr *tw, uint32_t m, uint32_t j)
{
    cu_fr t, w;
    if (!INV) {
        fe_load(w, &tw[m + j]);
        fe_mul(t, v, w);
        fe_sub(v, u, t);
        fe_add(u, u, t);
    } else if (j == 0) {
        t = v;
        fe_sub(v, u, t);
        fe_add(u, u, t);
    } else {
        fe_load(w, &tw[2 * m - j]);
        fe_mul(t, v, w);
        fe_add(v, u, t);
        fe_sub(u, u, t);
    }
}

/* mode 0: permute only; 1: scale by c; 2: scale element k by tw[n + k] * c. */
__global__ void k_bitrev(cu_fr *x, unsigned log_n, int mode, cu_fr c, const cu_fr *tw)
{
    uint32_t n = 1u << log_n;
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t j = __brev(i) >> (32 - log_n);
    if (j < i) return;
    cu_fr xi, xj, f;
    fe_load(xi, &x[i]);
    if (mode == 1) {
        fe_mul(xi, xi, c);
    } else if (mode == 2) {
        fe_load(f, &tw[n + i]);
        fe_mul(f, f, c);
        fe_mul(xi, xi, f);
    }
    if (j == i) {
        if (mode) fe_store(&x[i], xi);
        return;
    }
    fe_load(xj, &x[j]);
    if (mode == 1) {
        fe_mul(xj, xj, c);
    } else if (mode == 2) {
        fe_load(f, &tw[n + j]);
        fe_mul(f, f, c);
        fe_mul(xj, xj, f);
    }
    fe_store(&x[i], xj);
    fe_store(&x[j], xi);
}

/* Stages 0..K-1 on blocks of 2^K contiguous elements; blockDim = 2^(K-1). */
template <bool INV>
__global__ void k_ntt_smem(cu_fr *x, unsigned K, const cu_fr *tw)
{
    extern __shared__ cu_fr sh[];
    uint32_t p = threadIdx.x, half = 1u << (K - 1);
    cu_fr *blk = x + ((size_t)blockIdx.x << K);
    cu_fr u, v;
    fe_load(u, &blk[p]);
    fe_load(v, &blk[p + half]);
    sh[p] = u;
    sh[p + half] = v;
    __syncthreads();
    for (unsigned s = 0; s < K; s++) {
        uint32_t m = 1u << s, j = p & (m - 1);
        uint32_t i = ((p >> s) << (s + 1)) | j;
        u = sh[i];
        v = sh[i + m];
        bfly<INV>(u, v, tw, m, j);
        sh[i] = u;
        sh[i + m] = v;
        __syncthreads();
    }
    fe_store(&blk[p], sh[p]);
    fe_store(&blk[p + half], sh[p + half]);
}

template <bool INV>
__global__ void k_ntt_radix2(cu_fr *x, unsigned log_n, unsigned s, const cu_fr *tw)
{
    uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= (1u << (log_n - 1))) return;
    uint32_t m = 1u << s, j = p & (m - 1);
    uint32_t i = ((p >> s) << (s + 1)) | j;
    cu_fr u, v;
    fe_load(u, &x[i]);
    fe_load(v, &x[i + m]);
    bfly<INV>(u, v, tw, m, j);
    fe_store(&x[i], u);
    fe_store(&x[i + m], v);
}

/* Stages s and s + 1 in one pass: 4 elements at stride m = 2^s. */
template <bool INV>
__global__ void k_ntt_radix4(cu_fr *x, unsigned log_n, unsigned s, const cu_fr *tw)
{
    uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= (1u << (log_n - 2))) return;
    uint32_t m = 1u << s, j = p & (m - 1);
    uint32_t i = ((p >> s) << (s + 2)) | j;
    cu_fr a0, a1, a2, a3;
    fe_load(a0, &x[i]);
    fe_load(a1, &x[i + m]);
    fe_load(a2, &x[i + 2 * m]);
    fe_load(a3, &x[i + 3 * m]);
    bfly<INV>(a0, a1, tw, m, j);
    bfly<INV>(a2, a3, tw, m, j);
    bfly<INV>(a0, a2, tw, 2 * m, j);
    bfly<INV>(a1, a3, tw, 2 * m, j + m);
    fe_store(&x[i], a0);
    fe_store(&x[i + m], a1);
    fe_store(&x[i + 2 * m], a2);
    fe_store(&x[i + 3 * m], a3);
}

/* out[i] = a[i] * b[i] - c[i], converted to a plain scalar (PLAIN) or kept
 * Montgomery. */
template <bool PLAIN>
__global__ void k_h_combine(cu_fr *out, const cu_fr *a, const cu_fr *b, const cu_fr *c, uint32_t n)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    cu_fr x, y, z;
    fe_load(x, &a[i]);
    fe_load(y, &b[i]);
    fe_load(z, &c[i]);
    fe_mul(x, x, y);
    fe_sub(x, x, z);
    if (PLAIN) fe_from_mont(x, x);
    fe_store(&out[i], x);
}

/* g^(2^b), b < 32: the powers k_scale_pow builds g^t from. */
struct cu_pow_tab {
    cu_fr p[32];
};

/*
 * x[i] <- x[i] * c * g^i for i < n (in place), with tab.p[b] = g^(2^b) and
 * step = g^T for T = gridDim.x * blockDim.x threads (a power of two
 * dividing n).  PLAIN: also convert out of Montgomery (the H scalars).
 */
template <bool PLAIN>
__global__ void k_scale_pow(cu_fr *x, uint32_t n, cu_fr c, cu_fr step, cu_pow_tab tab)
{
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t T = gridDim.x * blockDim.x;
    if (t >= n) return;
    cu_fr f = c, v;
    for (uint32_t b = 0, e = t; e; b++, e >>= 1)
        if (e & 1) fe_mul(f, f, tab.p[b]);
    for (uint32_t i = t; i < n; i += T) {
        fe_load(v, &x[i]);
        fe_mul(v, v, f);
        if (PLAIN) fe_from_mont(v, v);
        fe_store(&x[i], v);
        fe_mul(f, f, step);
    }
}

static unsigned blocks_for(size_t n, unsigned t) { return (unsigned)((n + t - 1) / t); }

extern "C" gs_status gs_cu_ntt_prepare(gs_cu_dev *d, unsigned log_table, gs_err *err)
{
    if (log_table > GS_FR_TWO_ADICITY)
        return GS_ERR(err, GS_ERR_RANGE, "ntt", "table 2^%u exceeds the 2-adicity", log_table);
    if (d->tw && d->tw_log >= log_table) return GS_OK;
    CU_TRY(cudaSetDevice(d->device));
    CU_TRY(cudaStreamSynchronize(d->stream));
    cudaFree(d->tw);
    d->tw = NULL;
    d->tw_log = 0;
    uint32_t size = 1u << log_table;
    CU_TRY(cudaMalloc(&d->tw, (size_t)size * sizeof(cu_fr)));
    cu_roots roots;
    for (unsigned k = 0; k <= GS_FR_TWO_ADICITY; k++) {
        gs_fr w;
        gs_fr_root_of_unity(&w, k);
        memcpy(&roots.r[k], &w, sizeof w);
    }
    k_tw_gen<<<blocks_for(size, 256), 256, 0, d->stream>>>(d->tw, size, roots);
    CU_LAUNCHED("k_tw_gen");
    d->tw_log = log_table;
    return GS_OK;
}

template <bool INV>
static gs_status dit(gs_cu_dev *d, cu_fr *x, unsigned log_n, gs_err *err)
{
    unsigned K = log_n < NTT_SMEM_LOG ? log_n : NTT_SMEM_LOG;
    size_t n = (size_t)1 << log_n;
    if (K == 0) return GS_OK;
    k_ntt_smem<INV><<<(unsigned)(n >> K), 1u << (K - 1), (1u << K) * sizeof(cu_fr), d->stream>>>(
        x, K, d->tw);
    CU_LAUNCHED("k_ntt_smem");
    unsigned s = K;
    for (; s + 1 < log_n; s += 2) {
        k_ntt_radix4<INV><<<blocks_for(n / 4, 256), 256, 0, d->stream>>>(x, log_n, s, d->tw);
        CU_LAUNCHED("k_ntt_radix4");
    }
    if (s < log_n) {
        k_ntt_radix2<INV><<<blocks_for(n / 2, 256), 256, 0, d->stream>>>(x, log_n, s, d->tw);
        CU_LAUNCHED("k_ntt_radix2");
    }
    return GS_OK;
}

/* Requires log_n >= 1 (callers handle the size-1 transform). */
static gs_status bitrev(gs_cu_dev *d, cu_fr *x, unsigned log_n, int mode, const gs_fr *c,
                        gs_err *err)
{
    cu_fr cc;
    if (c) memcpy(&cc, c, sizeof cc); else memset(&cc, 0, sizeof cc);
    k_bitrev<<<blocks_for((size_t)1 << log_n, 256), 256, 0, d->stream>>>(x, log_n, mode, cc, d->tw);
    CU_LAUNCHED("k_bitrev");
    return GS_OK;
}

static void fr_inv_n(gs_fr *out, unsigned log_n)
{
    gs_fr two;
    gs_fr_set_u64(&two, 2);
    gs_fr_inv(&two, &two);
    gs_fr_one(out);
    for (unsigned i = 0; i < log_n; i++) gs_fr_mul(out, out, &two);
}

extern "C" gs_status gs_cu_ntt(gs_cu_dev *d, gs_fr *x, unsigned log_n, int inverse, gs_err *err)
{
    gs_status st;
    if (log_n == 0) return GS_OK;
    if (!d->tw || d->tw_log < log_n)
        return GS_ERR(err, GS_ERR_STATE, "ntt", "twiddles cover 2^%u, transform is 2^%u",
                      d->tw ? d->tw_log : 0, log_n);
    CU_TRY(cudaSetDevice(d->device));
    cu_fr *dx = (cu_fr *)x;
    if (inverse) {
        gs_fr ninv;
        fr_inv_n(&ninv, log_n);
        if ((st = bitrev(d, dx, log_n, 1, &ninv, err)) != GS_OK) return st;
        return dit<true>(d, dx, log_n, err);
    }
    if ((st = bitrev(d, dx, log_n, 0, NULL, err)) != GS_OK) return st;
    return dit<false>(d, dx, log_n, err);
}

extern "C" gs_status gs_cu_h_scalars(gs_cu_dev *d, gs_scalar *out, gs_fr *a, gs_fr *b, gs_fr *c,
                                     unsigned log_n, gs_err *err)
{
    gs_status st;
    gs_fr ninv;
    cu_fr *v[3] = {(cu_fr *)a, (cu_fr *)b, (cu_fr *)c};
    if (log_n == 0 || log_n >= GS_FR_TWO_ADICITY)
        return GS_ERR(err, GS_ERR_RANGE, "ntt", "H domain 2^%u outside 2^1..2^31", log_n);
    if (!d->tw || d->tw_log < log_n + 1)
        return GS_ERR(err, GS_ERR_STATE, "ntt", "twiddles cover 2^%u, H of 2^%u needs 2^%u",
                      d->tw ? d->tw_log : 0, log_n, log_n + 1);
    CU_TRY(cudaSetDevice(d->device));
    fr_inv_n(&ninv, log_n);
    for (int k = 0; k < 3; k++) {
        /* iNTT without its 1/n, then one pass scaling coefficient i by
         * w_(2n)^i / n while permuting for the forward transform. */
        if ((st = bitrev(d, v[k], log_n, 0, NULL, err)) != GS_OK) return st;
        if ((st = dit<true>(d, v[k], log_n, err)) != GS_OK) return st;
        if ((st = bitrev(d, v[k], log_n, 2, &ninv, err)) != GS_OK) return st;
        if ((st = dit<false>(d, v[k], log_n, err)) != GS_OK) return st;
    }
    size_t n = (size_t)1 << log_n;
    k_h_combine<true><<<blocks_for(n, 256), 256, 0, d->stream>>>((cu_fr *)out, v[0], v[1], v[2],
                                                                (uint32_t)n);
    CU_LAUNCHED("k_h_combine");
    return GS_OK;
}

/* Enqueues x[i] *= c * g^i (PLAIN: then out of Montgomery), i < 2^log_n. */
static gs_status scale_pow(gs_cu_dev *d, cu_fr *x, unsigned log_n, const gs_fr *g, const gs_fr *c,
                           bool plain, gs_err *err)
{
    /* 16 elements per thread from 2^4 up; T = n / 16 threads. */
    unsigned log_t = log_n > 4 ? log_n - 4 : 0;
    uint32_t n = 1u << log_n, T = 1u << log_t;
    unsigned threads = T < 256 ? T : 256;
    cu_pow_tab tab;
    gs_fr p = *g;
    for (unsigned b = 0; b < 32; b++) {
        memcpy(&tab.p[b], &p, sizeof p);
        gs_fr_sqr(&p, &p);
    }
    cu_fr cc;
    memcpy(&cc, c, sizeof cc);
    if (plain)
        k_scale_pow<true><<<T / threads, threads, 0, d->stream>>>(x, n, cc, tab.p[log_t], tab);
    else
        k_scale_pow<false><<<T / threads, threads, 0, d->stream>>>(x, n, cc, tab.p[log_t], tab);
    CU_LAUNCHED("k_scale_pow");
    return GS_OK;
}

extern "C" gs_status gs_cu_h_scalars_classic(gs_cu_dev *d, gs_scalar *out, gs_fr *a, gs_fr *b,
                                             gs_fr *c, unsigned log_n, gs_err *err)
{
    gs_status st;
    gs_fr ninv, g, ginv, zinv, one;
    cu_fr *v[3] = {(cu_fr *)a, (cu_fr *)b, (cu_fr *)c};
    if (log_n == 0 || log_n >= GS_FR_TWO_ADICITY)
        return GS_ERR(err, GS_ERR_RANGE, "ntt", "H domain 2^%u outside 2^1..2^31", log_n);
    if (!d->tw || d->tw_log < log_n)
        return GS_ERR(err, GS_ERR_STATE, "ntt", "twiddles cover 2^%u, classic H of 2^%u needs 2^%u",
                      d->tw ? d->tw_log : 0, log_n, log_n);
    CU_TRY(cudaSetDevice(d->device));
    fr_inv_n(&ninv, log_n);
    /* g = 7, Z = g^n - 1 on the whole coset g<w_n>: zinv = (g^n - 1)^-1. */
    gs_fr_set_u64(&g, GS_FR_GENERATOR);
    gs_fr_inv(&ginv, &g);
    gs_fr_one(&one);
    zinv = g;
    for (unsigned i = 0; i < log_n; i++) gs_fr_sqr(&zinv, &zinv);
    gs_fr_sub(&zinv, &zinv, &one);
    gs_fr_inv(&zinv, &zinv);
    for (int k = 0; k < 3; k++) {
        /* iNTT without its 1/n; coefficient i times g^i / n; NTT: values on g<w_n>. */
        if ((st = bitrev(d, v[k], log_n, 0, NULL, err)) != GS_OK) return st;
        if ((st = dit<true>(d, v[k], log_n, err)) != GS_OK) return st;
        if ((st = scale_pow(d, v[k], log_n, &g, &ninv, false, err)) != GS_OK) return st;
        if ((st = bitrev(d, v[k], log_n, 0, NULL, err)) != GS_OK) return st;
        if ((st = dit<false>(d, v[k], log_n, err)) != GS_OK) return st;
    }
    size_t n = (size_t)1 << log_n;
    cu_fr *p = (cu_fr *)out;
    k_h_combine<false><<<blocks_for(n, 256), 256, 0, d->stream>>>(p, v[0], v[1], v[2], (uint32_t)n);
    CU_LAUNCHED("k_h_combine");
    /* Coset iNTT of a'b' - c' with 1/Z folded in: iNTT without its 1/n, then
     * coefficient i times zinv / n * g^-i, out of Montgomery. */
    gs_fr_mul(&zinv, &zinv, &ninv);
    if ((st = bitrev(d, p, log_n, 0, NULL, err)) != GS_OK) return st;
    if ((st = dit<true>(d, p, log_n, err)) != GS_OK) return st;
    return scale_pow(d, p, log_n, &ginv, &zinv, true, err);
}
