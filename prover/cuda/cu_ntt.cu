/*
 * Radix-2 NTT over Fr on the device, natural order in and out, and the H
 * scalars of snarkjs's prover (SNARKJS-FORMATS.md 7.1 and 7.3) and of the
 * classic convention (groth16.h).
 *
 * Two implementations of the same decimation in time: the pass-fused one
 * (the default since the H200 run of 2026-12-04: 2^24 6.00 -> 5.01 ms,
 * 2^27 53.7 -> 44.1 ms; described before k_ntt_small below) and the
 * original (GS_CU_NTT=old).  Layout of a transform of size
 * n = 2^L in the original:
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
#include <stdlib.h>
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

/*
 * The pass-fused NTT (the default; GS_CU_NTT=old selects the kernels
 * above).  Same decimation in time and twiddles, fewer trips through
 * global memory: 2^L elements in 1 + ceil((L - 5) / KMAX) passes instead
 * of 1 + 1 + ceil((L - 10) / 2).
 *
 * n <= 2^11: one block (k_ntt_small) loads x[rev(i)] into shared memory,
 * runs all L stages there and stores.
 *
 * n >= 2^12, first pass (k_ntt_first): the index is split into fields
 * (A, B, C) of 5, L - 10 and 5 bits; bit reversal maps (A, B, C) to
 * (rev C, rev B, rev A), so the 2^11 elements with middle field B or
 * rev B form a set closed under the permutation.  One block loads that
 * set, rows of 32 contiguous elements, and permutes it in shared memory.
 * Output positions that differ only in their low 5 bits (rev A) are one
 * group of stages 0..4, so the block runs those 5 stages before writing
 * back (in place: the block writes exactly what it read).  Blocks whose B
 * exceeds rev B exit; their set is their partner's.
 *
 * Later passes (k_ntt_pass): stages s .. s + k - 1 combine elements
 * hi 2^(s+k) + a 2^s + lo, a < 2^k; a block takes 2^t consecutive lo
 * (coalesced rows of 2^t elements) and all a, 2^(k+t) elements in shared
 * memory, and the global twiddles tw[2^(s+u) + j' 2^s + lo] of its stages
 * (contiguous in lo).  KMAX = tile_log - t (defaults 11 and 3, so 8).
 *
 * Shared memory holds an element as two 16-byte halves in two planes
 * (half h of element i at plane h, index i), so 8 consecutive elements are
 * 8 different 16-byte bank groups.  Butterflies are handed to threads
 * with the column (or group) fastest and the twiddle index j' slowest, so
 * a warp shares j' (one twiddle row; in the first pass one broadcast
 * twiddle, and a warp-uniform skip of the multiplication when j' = 0).
 */
#define NTT_SMALL_LOG 11
#define NTT_FIRST_BITS 5

CU_DEV void sh_ld(cu_fr &r, const uint4 *sh, uint32_t i, uint32_t plane)
{
    uint4 a = sh[i], b = sh[plane + i];
    r.l[0] = a.x; r.l[1] = a.y; r.l[2] = a.z; r.l[3] = a.w;
    r.l[4] = b.x; r.l[5] = b.y; r.l[6] = b.z; r.l[7] = b.w;
}

CU_DEV void sh_st(uint4 *sh, uint32_t i, uint32_t plane, const cu_fr &v)
{
    sh[i] = make_uint4(v.l[0], v.l[1], v.l[2], v.l[3]);
    sh[plane + i] = make_uint4(v.l[4], v.l[5], v.l[6], v.l[7]);
}

/* Twiddle load through the read-only path. */
CU_DEV void ld_tw(cu_fr &r, const cu_fr *p)
{
    const uint4 *v = reinterpret_cast<const uint4 *>(p);
    uint4 a = __ldg(v), b = __ldg(v + 1);
    r.l[0] = a.x; r.l[1] = a.y; r.l[2] = a.z; r.l[3] = a.w;
    r.l[4] = b.x; r.l[5] = b.y; r.l[6] = b.z; r.l[7] = b.w;
}

/*
 * r = a b R^-1 mod r_Fr, the result of fe_mul, by fe_mul_ps's product
 * scanning with the reduction specialised to the modulus's low words
 * p0 = 1, p1 = 2^32 - 1 (so N0 = -1): in column k, m_k = -x for the
 * column's low word x, and x + m_k p0 = x - x clears it with a carry of
 * (x != 0), no multiply; m_k p1 = m_k 2^32 - m_k is the word pair
 * (x, x ? ~x : 0) added into column k + 1, no multiply.  Of the 64 m_i p_j
 * products only the 48 with j >= 2 are multiplied (as in the CIOS form
 * this replaced, which saved the same products).
 */
template <int K>
CU_DEV void fr_fast_col(uint32_t &c0, uint32_t &c1, uint32_t &c2, const uint32_t *a, const uint32_t *b,
                        uint32_t *m, uint32_t *t)
{
    constexpr int N = 8, LO = K < N ? 0 : K - N + 1, HI = K < N ? K : N - 1;
#pragma unroll
    for (int i = LO; i <= HI; i++) mac3(c0, c1, c2, a[i], b[K - i]);
    /* m_i p_(K-i) with K - i >= 2 */
#pragma unroll
    for (int i = LO; i <= K - 2 && i <= HI; i++) mac3(c0, c1, c2, m[i], cu_fr_cfg::p(K - i));
    /* m_(K-1) p_1 = (x, x ? ~x : 0), x = -m_(K-1) */
    if constexpr (K >= 1 && K - 1 <= N - 1) {
        uint32_t x = 0u - m[K - 1], h = x ? ~x : 0u;
        asm("add.cc.u32 %0, %0, %3;\n\t"
            "addc.cc.u32 %1, %1, %4;\n\t"
            "addc.u32 %2, %2, 0;"
            : "+r"(c0), "+r"(c1), "+r"(c2)
            : "r"(x), "r"(h));
    }
    if constexpr (K < N) {
        uint32_t x = c0;
        m[K] = 0u - x;
        /* x + m_K p_0 = x + (2^32 - x) for x != 0: c0 = 0, carry x != 0 */
        asm("add.cc.u32 %0, %0, %3;\n\t"
            "addc.cc.u32 %1, %1, 0;\n\t"
            "addc.u32 %2, %2, 0;"
            : "+r"(c0), "+r"(c1), "+r"(c2)
            : "r"(m[K]));
    } else {
        t[K - N] = c0;
    }
    c0 = c1;
    c1 = c2;
    c2 = 0;
}

template <int K>
CU_DEV void fr_fast_cols(uint32_t &c0, uint32_t &c1, uint32_t &c2, const uint32_t *a, const uint32_t *b,
                         uint32_t *m, uint32_t *t)
{
    if constexpr (K < 15) {
        fr_fast_col<K>(c0, c1, c2, a, b, m, t);
        fr_fast_cols<K + 1>(c0, c1, c2, a, b, m, t);
    }
}

CU_DEV void fr_mul_fast(cu_fr &r, const cu_fr &a, const cu_fr &b)
{
    uint32_t m[8], t[9], c0 = 0, c1 = 0, c2 = 0;
    fr_fast_cols<0>(c0, c1, c2, a.l, b.l, m, t);
    t[7] = c0;
    t[8] = c1; /* 0 */
    fe_final_sub<cu_fr_cfg>(r, t);
}

/* The NTT's multiplication: fr_mul_fast (F) or fe_mul. */
template <bool F> CU_DEV void nmul(cu_fr &r, const cu_fr &a, const cu_fr &b)
{
    if (F) fr_mul_fast(r, a, b); else fe_mul(r, a, b);
}

/* Butterfly of stage m as bfly, skipping the multiplication by 1 (j = 0)
 * in both directions. */
template <bool INV, bool F>
CU_DEV void bfly2(cu_fr &u, cu_fr &v, const cu_fr *tw, uint32_t m, uint32_t j)
{
    cu_fr t, w;
    if (j == 0) {
        t = v;
        fe_sub(v, u, t);
        fe_add(u, u, t);
    } else if (!INV) {
        ld_tw(w, &tw[m + j]);
        nmul<F>(t, v, w);
        fe_sub(v, u, t);
        fe_add(u, u, t);
    } else {
        ld_tw(w, &tw[2 * m - j]);
        nmul<F>(t, v, w);
        fe_add(v, u, t);
        fe_sub(u, u, t);
    }
}

/* The twiddle of a butterfly of stage m with j > 0: w_(2m)^j forward,
 * -w_(2m)^-j = tw[2m - j] inverse (bfly_w then adds instead of subtracting). */
template <bool INV>
CU_DEV void tw_get(cu_fr &w, const cu_fr *tw, uint32_t m, uint32_t j)
{
    ld_tw(w, INV ? &tw[2 * m - j] : &tw[m + j]);
}

/* bfly2 with its twiddle given (one: the twiddle is 1, w unused). */
template <bool INV, bool F>
CU_DEV void bfly_w(cu_fr &u, cu_fr &v, const cu_fr &w, bool one)
{
    cu_fr t;
    if (one) {
        t = v;
        fe_sub(v, u, t);
        fe_add(u, u, t);
        return;
    }
    nmul<F>(t, v, w);
    if (!INV) {
        fe_sub(v, u, t);
        fe_add(u, u, t);
    } else {
        fe_add(v, u, t);
        fe_sub(u, u, t);
    }
}

/* mode 0: nothing; 1: v *= c; 2: v *= tw[n + idx] * c (idx: natural index). */
template <bool F>
CU_DEV void ntt_scale(cu_fr &v, int mode, const cu_fr &c, const cu_fr *tw, uint32_t n, uint32_t idx)
{
    if (mode == 1) {
        nmul<F>(v, v, c);
    } else if (mode == 2) {
        cu_fr f;
        ld_tw(f, &tw[n + idx]);
        nmul<F>(f, f, c);
        nmul<F>(v, v, f);
    }
}

/* Whole transform of 2^L <= 2^NTT_SMALL_LOG elements in one block. */
template <bool INV, bool F>
__global__ void __launch_bounds__(256) k_ntt_small(cu_fr *x, unsigned L, int mode, cu_fr c,
                                                   const cu_fr *tw)
{
    extern __shared__ uint4 shv[];
    uint32_t n = 1u << L, half = n >> 1;
    for (uint32_t i = threadIdx.x; i < n; i += blockDim.x) {
        uint32_t j = __brev(i) >> (32 - L);
        cu_fr v;
        fe_load(v, &x[j]);
        ntt_scale<F>(v, mode, c, tw, n, j);
        sh_st(shv, i, n, v);
    }
    __syncthreads();
    for (unsigned s = 0; s < L; s++) {
        uint32_t m = 1u << s;
        for (uint32_t p = threadIdx.x; p < half; p += blockDim.x) {
            uint32_t j = p & (m - 1), i = ((p >> s) << (s + 1)) | j;
            cu_fr u, v;
            sh_ld(u, shv, i, n);
            sh_ld(v, shv, i + m, n);
            bfly2<INV, F>(u, v, tw, m, j);
            sh_st(shv, i, n, u);
            sh_st(shv, i + m, n, v);
        }
        __syncthreads();
    }
    for (uint32_t i = threadIdx.x; i < n; i += blockDim.x) {
        cu_fr v;
        sh_ld(v, shv, i, n);
        fe_store(&x[i], v);
    }
}

/*
 * Bit reversal and stages 0..4 of 2^L >= 2^12 elements (see above); one
 * block per middle field B, 2^11 elements (two tiles of 32 x 32) in
 * shared memory.  Tile tau reads middle Bt (B, then rev B); its element
 * (A, Bt, C) sits in group C at position a = rev A, stored at
 * C 32 + (a ^ (C mod 8)) (the XOR keeps the column-wise load and the
 * group-wise butterflies free of bank conflicts).
 */
template <bool INV, bool F>
__global__ void __launch_bounds__(256) k_ntt_first(cu_fr *x, unsigned L, int mode, cu_fr c,
                                                   const cu_fr *tw)
{
    extern __shared__ uint4 shv[];
    const uint32_t PLANE = 2048;
    unsigned M = L - 2 * NTT_FIRST_BITS;
    uint32_t B = blockIdx.x, RB = __brev(B) >> (32 - M);
    if (RB < B) return;
    uint32_t nt = RB == B ? 1024 : 2048;
    uint32_t n = 1u << L, row = 1u << (L - NTT_FIRST_BITS);
    /* Four loads in flight per thread before their stores (blockDim 256). */
    for (uint32_t e0 = threadIdx.x; e0 < nt; e0 += 1024) {
        cu_fr v[4];
#pragma unroll
        for (int r = 0; r < 4; r++) {
            uint32_t e = e0 + r * 256, tau = e >> 10, C = e & 31, A = (e >> 5) & 31;
            fe_load(v[r], &x[A * row + ((tau ? RB : B) << 5) + C]);
        }
#pragma unroll
        for (int r = 0; r < 4; r++) {
            uint32_t e = e0 + r * 256, tau = e >> 10, C = e & 31, A = (e >> 5) & 31;
            uint32_t a = __brev(A) >> 27;
            ntt_scale<F>(v[r], mode, c, tw, n, A * row + ((tau ? RB : B) << 5) + C);
            sh_st(shv, (tau << 10) + (C << 5) + (a ^ (C & 7)), PLANE, v[r]);
        }
    }
    __syncthreads();
#pragma unroll 1
    for (unsigned u = 0; u < NTT_FIRST_BITS; u++) {
        for (uint32_t b = threadIdx.x; b < nt / 2; b += blockDim.x) {
            uint32_t tau = b >> 9, C = b & 31, rest = (b >> 5) & 15;
            uint32_t jp = rest >> (4 - u), gg = rest & ((1u << (4 - u)) - 1);
            uint32_t a0 = (gg << (u + 1)) | jp, a1 = a0 + (1u << u);
            uint32_t base = (tau << 10) + (C << 5), sw = C & 7;
            cu_fr p, q;
            sh_ld(p, shv, base + (a0 ^ sw), PLANE);
            sh_ld(q, shv, base + (a1 ^ sw), PLANE);
            bfly2<INV, F>(p, q, tw, 1u << u, jp);
            sh_st(shv, base + (a0 ^ sw), PLANE, p);
            sh_st(shv, base + (a1 ^ sw), PLANE, q);
        }
        __syncthreads();
    }
    for (uint32_t e = threadIdx.x; e < nt; e += blockDim.x) {
        uint32_t tau = e >> 10, a = e & 31, X = (e >> 5) & 31;
        uint32_t C = __brev(X) >> 27;
        uint32_t idx = X * row + ((tau ? B : RB) << 5) + a;
        cu_fr v;
        sh_ld(v, shv, (tau << 10) + (C << 5) + (a ^ (C & 7)), PLANE);
        fe_store(&x[idx], v);
    }
}

/*
 * Shared-memory slot of element e of a pass with 2^t < 8 columns: bits
 * t..2 of e XORed with the XOR of the (3 - t)-bit windows of e >> 3 (a
 * bijection: the XOR depends only on bits 3 and up).  Threads of a
 * butterfly phase touch rows a0 = gg 2^(u+1) + j' for 8 / 2^t consecutive
 * gg; folding the windows maps those to distinct bank groups, where the
 * plain index would put them all in one.  t >= 3: e itself.
 */
CU_DEV uint32_t slot(uint32_t e, unsigned t)
{
    if (t >= 3) return e;
    uint32_t a = e >> 3, f;
    if (t == 2) {
        f = __popc(a) & 1;
    } else {
        a ^= a >> 8;
        a ^= a >> 4;
        a ^= a >> 2;
        f = t == 1 ? (a & 3) : ((e >> 3) ^ (e >> 6) ^ (e >> 9) ^ (e >> 12)) & 7;
    }
    return e ^ (f << t);
}

/* Stages s .. s + k - 1 (s >= t); block = 2^t consecutive lo x 2^k rows. */
template <bool INV, bool F, bool R4, int NT>
__global__ void __launch_bounds__(NT, NT >= 512 ? 1 : 768 / NT)
    k_ntt_pass(cu_fr *x, unsigned s, unsigned k, unsigned t, unsigned lh, const cu_fr *tw)
{
    extern __shared__ uint4 shv[];
    const uint32_t C = 1u << t, E = 1u << (k + t);
    uint32_t bid = blockIdx.x, hi, lo0;
    if (lh != 32) {
        /* 2^lh groups hi fastest: blocks running together share their
         * column slab's twiddles (in L2). */
        hi = bid & ((1u << lh) - 1);
        lo0 = (bid >> lh) << t;
    } else {
        hi = bid >> (s - t);
        lo0 = (bid & ((1u << (s - t)) - 1)) << t;
    }
    cu_fr *base = x + ((size_t)hi << (s + k)) + lo0;
    /* Four loads in flight per thread before their stores. */
    for (uint32_t e0 = threadIdx.x; e0 < E; e0 += 4 * NT) {
        cu_fr v[4];
#pragma unroll
        for (int r = 0; r < 4; r++) {
            uint32_t e = e0 + r * NT;
            if (e < E) fe_load(v[r], &base[((size_t)(e >> t) << s) + (e & (C - 1))]);
        }
#pragma unroll
        for (int r = 0; r < 4; r++) {
            uint32_t e = e0 + r * NT;
            if (e < E) sh_st(shv, slot(e, t), E, v[r]);
        }
    }
    __syncthreads();
#pragma unroll 1
    for (unsigned u = 0; u < k; u++) {
        uint32_t m = 1u << (s + u), sh = k - 1 - u;
        if (R4 && u + 1 < k) {
            /* Stages u and u + 1 on 4 rows a0 + {0, 1, 2, 3} 2^u (see k_ntt_radix4). */
            sh--;
            for (uint32_t q = threadIdx.x; q < E / 4; q += NT) {
                uint32_t c = q & (C - 1), rest = q >> t;
                uint32_t jp = rest >> sh, gg = rest & ((1u << sh) - 1);
                uint32_t i0 = (((gg << (u + 2)) | jp) << t) | c, dd = 1u << (u + t);
                uint32_t j = (jp << s) + lo0 + c;
                cu_fr p0, p1, p2, p3, w;
                sh_ld(p0, shv, slot(i0, t), E);
                sh_ld(p1, shv, slot(i0 + dd, t), E);
                sh_ld(p2, shv, slot(i0 + 2 * dd, t), E);
                sh_ld(p3, shv, slot(i0 + 3 * dd, t), E);
                if (j == 0) {
                    bfly_w<INV, F>(p0, p1, w, true);
                    bfly_w<INV, F>(p2, p3, w, true);
                    bfly_w<INV, F>(p0, p2, w, true);
                } else {
                    tw_get<INV>(w, tw, m, j);
                    bfly_w<INV, F>(p0, p1, w, false);
                    bfly_w<INV, F>(p2, p3, w, false);
                    tw_get<INV>(w, tw, 2 * m, j);
                    bfly_w<INV, F>(p0, p2, w, false);
                }
                tw_get<INV>(w, tw, 2 * m, j + m);
                bfly_w<INV, F>(p1, p3, w, false);
                sh_st(shv, slot(i0, t), E, p0);
                sh_st(shv, slot(i0 + dd, t), E, p1);
                sh_st(shv, slot(i0 + 2 * dd, t), E, p2);
                sh_st(shv, slot(i0 + 3 * dd, t), E, p3);
            }
            __syncthreads();
            u++;
            continue;
        }
        for (uint32_t b = threadIdx.x; b < E / 2; b += NT) {
            uint32_t c = b & (C - 1), rest = b >> t;
            uint32_t jp = rest >> sh, gg = rest & ((1u << sh) - 1);
            uint32_t a0 = (gg << (u + 1)) | jp;
            uint32_t i0 = (a0 << t) | c, i1 = i0 + (1u << (u + t));
            cu_fr p, q;
            sh_ld(p, shv, slot(i0, t), E);
            sh_ld(q, shv, slot(i1, t), E);
            bfly2<INV, F>(p, q, tw, m, (jp << s) + lo0 + c);
            sh_st(shv, slot(i0, t), E, p);
            sh_st(shv, slot(i1, t), E, q);
        }
        __syncthreads();
    }
    for (uint32_t e = threadIdx.x; e < E; e += NT) {
        cu_fr v;
        sh_ld(v, shv, slot(e, t), E);
        fe_store(&base[((size_t)(e >> t) << s) + (e & (C - 1))], v);
    }
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

/* The NTT's variant and tuning, the knobs ntt_* of knobs.h (read per
 * call), named here by their environment variables: GS_CU_NTT=old
 * selects the bit reversal + radix-4 kernels (otherwise the pass-fused
 * ones); for the
 * pass-fused one GS_CU_NTT_TILE (log of a pass's elements, 9..12,
 * default 11), GS_CU_NTT_COLS (log of its contiguous columns, 1..5,
 * default 3), GS_CU_NTT_THREADS (64, 128, 256 or 512; default 128: with
 * three 64 KB blocks per SM, 128 threads each beat 256 at every size on
 * the H200, 2^24 4.75 vs 5.00 ms, 2^22 1.14 vs 1.25, 2^27 42.8 vs 43.3;
 * 64 fell behind from 2^25), GS_CU_NTT_MUL (generic: fe_mul instead of
 * fr_mul_fast) and GS_CU_NTT_R4 (1: the later passes take two stages per
 * trip through shared memory; 0: one; default: two at every size but
 * 2^22.  With 128 threads on the H200 two measured 9.74 vs 9.85 ms at
 * 2^25, 42.8 vs 44.3 at 2^27, 4.73 vs 4.75 at 2^24, 2.30 vs 2.30 at
 * 2^23, and 1.19 vs 1.14 at 2^22; on an H100 (bench/RESULTS.md, round 3
 * sessions 12 and 14, twice each) 0.315 vs 0.349 at 2^20, 0.625 vs 0.676
 * at 2^21, 2.195 vs 2.256 at 2^23, 4.51 vs 4.65 at 2^24, 9.32 vs 9.63 at
 * 2^25, 41.0 vs 43.1 at 2^27, and 1.143 vs 1.120, then 1.131 vs 1.135, at
 * 2^22: no gain there on either card),
 * GS_CU_NTT_ORDER (1, default: a pass's blocks run group-fastest, sharing
 * twiddles; 0: column-slab fastest).  Sweep: bench/RESULTS.md. */
struct ntt_cfg {
    bool old, fast, hi_fast;
    unsigned r4; /* 0 off, 1 on, 2 every size but 2^22 (launch_pass) */
    unsigned tile_log, cols_log, threads;
};

/* The knobs (knobs.h) of the names above, read at every NTT. */
static ntt_cfg ntt_config(void)
{
    ntt_cfg c;
    int r4 = gs_cu_knob(GS_CU_K_NTT_R4);
    c.old = gs_cu_knob_is(GS_CU_K_NTT_IMPL, "old");
    c.fast = !gs_cu_knob_is(GS_CU_K_NTT_MUL, "generic");
    c.r4 = r4 == GS_CU_AUTO ? 2 : (unsigned)r4;
    c.hi_fast = gs_cu_knob(GS_CU_K_NTT_ORDER) == 1;
    c.tile_log = (unsigned)gs_cu_knob(GS_CU_K_NTT_TILE);
    c.cols_log = (unsigned)gs_cu_knob(GS_CU_K_NTT_COLS);
    c.threads = (unsigned)gs_cu_knob(GS_CU_K_NTT_THREADS);
    if (c.threads != 64 && c.threads != 256 && c.threads != 512) c.threads = 128;
    if (c.cols_log + 2 > c.tile_log) c.cols_log = c.tile_log - 2;
    return c;
}

template <bool INV, bool F, bool R4, int NT>
static gs_status launch_pass1(gs_cu_dev *d, cu_fr *x, unsigned L, unsigned s, unsigned k,
                              unsigned t, bool hi_fast, gs_err *err)
{
    size_t smem = ((size_t)1 << (k + t)) * sizeof(cu_fr);
    CU_TRY(cudaFuncSetAttribute(k_ntt_pass<INV, F, R4, NT>,
                                cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    unsigned lh = hi_fast ? L - s - k : 32;
    k_ntt_pass<INV, F, R4, NT><<<1u << (L - k - t), NT, smem, d->stream>>>(x, s, k, t, lh, d->tw);
    CU_LAUNCHED("k_ntt_pass");
    return GS_OK;
}

template <bool INV, bool F, int NT>
static gs_status launch_pass(gs_cu_dev *d, cu_fr *x, unsigned L, unsigned s, unsigned k,
                             unsigned t, const ntt_cfg *cfg, gs_err *err)
{
    if (cfg->r4 == 1 || (cfg->r4 == 2 && L != 22))
        return launch_pass1<INV, F, true, NT>(d, x, L, s, k, t, cfg->hi_fast, err);
    return launch_pass1<INV, F, false, NT>(d, x, L, s, k, t, cfg->hi_fast, err);
}

/* The pass-fused transform (see above), scaling on load as k_bitrev's mode
 * (c may be NULL for mode 0).  Requires L >= 1. */
template <bool INV, bool F>
static gs_status ntt_fused(gs_cu_dev *d, cu_fr *x, unsigned L, int mode, const gs_fr *c,
                           const ntt_cfg *cfg, gs_err *err)
{
    cu_fr cc;
    if (c) memcpy(&cc, c, sizeof cc); else memset(&cc, 0, sizeof cc);
    if (L <= NTT_SMALL_LOG) {
        size_t smem = ((size_t)1 << L) * sizeof(cu_fr);
        unsigned thr = L >= 9 ? 256 : (1u << (L - 1) < 32 ? 32 : 1u << (L - 1));
        CU_TRY(cudaFuncSetAttribute(k_ntt_small<INV, F>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    (int)smem));
        k_ntt_small<INV, F><<<1, thr, smem, d->stream>>>(x, L, mode, cc, d->tw);
        CU_LAUNCHED("k_ntt_small");
        return GS_OK;
    }
    size_t smem = (size_t)2048 * sizeof(cu_fr);
    CU_TRY(cudaFuncSetAttribute(k_ntt_first<INV, F>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)smem));
    k_ntt_first<INV, F><<<1u << (L - 2 * NTT_FIRST_BITS), 256, smem, d->stream>>>(x, L, mode, cc,
                                                                              d->tw);
    CU_LAUNCHED("k_ntt_first");
    unsigned s = NTT_FIRST_BITS, t = cfg->cols_log, kmax = cfg->tile_log - cfg->cols_log;
    unsigned left = L - s, passes = (left + kmax - 1) / kmax;
    for (unsigned p = 0; p < passes; p++) {
        unsigned k = left / (passes - p) + (left % (passes - p) != 0);
        gs_status st;
        if (cfg->threads == 64) st = launch_pass<INV, F, 64>(d, x, L, s, k, t, cfg, err);
        else if (cfg->threads == 128) st = launch_pass<INV, F, 128>(d, x, L, s, k, t, cfg, err);
        else if (cfg->threads == 512) st = launch_pass<INV, F, 512>(d, x, L, s, k, t, cfg, err);
        else st = launch_pass<INV, F, 256>(d, x, L, s, k, t, cfg, err);
        if (st != GS_OK) return st;
        s += k;
        left -= k;
    }
    return GS_OK;
}

/* One transform in natural order: the permutation scaled as k_bitrev's
 * mode, then the stages, by the variant GS_CU_NTT selects. */
template <bool INV>
static gs_status ntt_run(gs_cu_dev *d, cu_fr *x, unsigned log_n, int mode, const gs_fr *c,
                         gs_err *err)
{
    ntt_cfg cfg = ntt_config();
    if (!cfg.old && cfg.fast) return ntt_fused<INV, true>(d, x, log_n, mode, c, &cfg, err);
    if (!cfg.old) return ntt_fused<INV, false>(d, x, log_n, mode, c, &cfg, err);
    gs_status st = bitrev(d, x, log_n, mode, c, err);
    if (st != GS_OK) return st;
    return dit<INV>(d, x, log_n, err);
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
    if (log_n == 0) return GS_OK;
    if (!d->tw || d->tw_log < log_n)
        return GS_ERR(err, GS_ERR_STATE, "ntt", "twiddles cover 2^%u, transform is 2^%u",
                      d->tw ? d->tw_log : 0, log_n);
    CU_TRY(cudaSetDevice(d->device));
    cu_fr *dx = (cu_fr *)x;
    if (inverse) {
        gs_fr ninv;
        fr_inv_n(&ninv, log_n);
        return ntt_run<true>(d, dx, log_n, 1, &ninv, err);
    }
    return ntt_run<false>(d, dx, log_n, 0, NULL, err);
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
        if ((st = ntt_run<true>(d, v[k], log_n, 0, NULL, err)) != GS_OK) return st;
        if ((st = ntt_run<false>(d, v[k], log_n, 2, &ninv, err)) != GS_OK) return st;
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
        if ((st = ntt_run<true>(d, v[k], log_n, 0, NULL, err)) != GS_OK) return st;
        if ((st = scale_pow(d, v[k], log_n, &g, &ninv, false, err)) != GS_OK) return st;
        if ((st = ntt_run<false>(d, v[k], log_n, 0, NULL, err)) != GS_OK) return st;
    }
    size_t n = (size_t)1 << log_n;
    cu_fr *p = (cu_fr *)out;
    k_h_combine<false><<<blocks_for(n, 256), 256, 0, d->stream>>>(p, v[0], v[1], v[2], (uint32_t)n);
    CU_LAUNCHED("k_h_combine");
    /* Coset iNTT of a'b' - c' with 1/Z folded in: iNTT without its 1/n, then
     * coefficient i times zinv / n * g^-i, out of Montgomery. */
    gs_fr_mul(&zinv, &zinv, &ninv);
    if ((st = ntt_run<true>(d, p, log_n, 0, NULL, err)) != GS_OK) return st;
    return scale_pow(d, p, log_n, &ginv, &zinv, true, err);
}
