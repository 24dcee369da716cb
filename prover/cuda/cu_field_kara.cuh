/*
 * The Fp Montgomery multiplication with one level of Karatsuba on the
 * product half (the knob msm_kmul: the G1 level-1 madd's eight
 * multiplications; included by cu_field.cuh, internal to prover/cuda).
 *
 * fe_mul_ps interleaves the product a b and the reduction M p column by
 * column: 144 + 144 32 x 32-bit products, each one IMAD.WIDE on the
 * multiply pipe, which bounds the G1 bucket accumulation (bench/RESULTS.md,
 * "the accumulation pass, prepared").  Here the product is formed first,
 * with a = a1 2^192 + a0, b = b1 2^192 + b0 (six-word halves):
 *   a b = a1 b1 2^384 + (sa sb - a0 b0 - a1 b1) 2^192 + a0 b0,
 *   sa = a0 + a1 = alpha 2^192 + sa', sb likewise (alpha, beta the carries),
 *   sa sb = sa' sb' + (alpha sb' + beta sa') 2^192 + alpha beta 2^384,
 * three 6 x 6 products (108 instead of 144), then the 24-word T = a b is
 * reduced by product scanning (kr_col: column K of T + M p, m_K from its
 * low word for K < 12): 252 products in all, against ~110 more additions
 * and subtractions (PTX: add/sub 288 -> 399) on the ALU pipe.  The column sums of T + M p are those of fe_mul_ps, so
 * M is the same and so is the result (t = (a b + M p) / R): every bound of
 * fe_mul_ps / fe_mul_lz holds (a, b < 2p: t < 1.41 p).
 *
 * The functions are __host__ __device__ (the carry primitives km_* have a
 * host form) so the algorithm is checked on the host as well; the device
 * takes the PTX forms.  Fp only (the halves are 6 words).
 */
#ifndef GS_CU_FIELD_KARA_CUH
#define GS_CU_FIELD_KARA_CUH

#include <stdint.h>

#define KM_HD __host__ __device__ __forceinline__

/* (c0, c1, c2) += x y. */
KM_HD void km_mac3(uint32_t &c0, uint32_t &c1, uint32_t &c2, uint32_t x, uint32_t y)
{
#ifdef __CUDA_ARCH__
    asm("mad.lo.cc.u32 %0, %3, %4, %0;\n\t"
        "madc.hi.cc.u32 %1, %3, %4, %1;\n\t"
        "addc.u32 %2, %2, 0;"
        : "+r"(c0), "+r"(c1), "+r"(c2)
        : "r"(x), "r"(y));
#else
    uint64_t p = (uint64_t)x * y, lo = (uint64_t)c0 + (uint32_t)p;
    uint64_t hi = (uint64_t)c1 + (p >> 32) + (lo >> 32);
    c0 = (uint32_t)lo;
    c1 = (uint32_t)hi;
    c2 += (uint32_t)(hi >> 32);
#endif
}

/* (c0, c1, c2) += x (additions only, no multiply). */
KM_HD void km_add3(uint32_t &c0, uint32_t &c1, uint32_t &c2, uint32_t x)
{
#ifdef __CUDA_ARCH__
    asm("add.cc.u32 %0, %0, %3;\n\t"
        "addc.cc.u32 %1, %1, 0;\n\t"
        "addc.u32 %2, %2, 0;"
        : "+r"(c0), "+r"(c1), "+r"(c2)
        : "r"(x));
#else
    uint64_t lo = (uint64_t)c0 + x, hi = (uint64_t)c1 + (lo >> 32);
    c0 = (uint32_t)lo;
    c1 = (uint32_t)hi;
    c2 += (uint32_t)(hi >> 32);
#endif
}

/* r[0..n-1] = x + y (+ the carry out in *carry; PTX: one chain). */
template <int NW> KM_HD void km_add(uint32_t *r, const uint32_t *x, const uint32_t *y, uint32_t &carry)
{
#ifdef __CUDA_ARCH__
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r[0]) : "r"(x[0]), "r"(y[0]));
#pragma unroll
    for (int i = 1; i < NW; i++)
        asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r[i]) : "r"(x[i]), "r"(y[i]));
    asm volatile("addc.u32 %0, 0, 0;" : "=r"(carry));
#else
    uint64_t c = 0;
    for (int i = 0; i < NW; i++) {
        c += (uint64_t)x[i] + y[i];
        r[i] = (uint32_t)c;
        c >>= 32;
    }
    carry = (uint32_t)c;
#endif
}

/* x[0..NW-1] += y[0..NW-1]; the carry is dropped (the caller's bound). */
template <int NW> KM_HD void km_add_to(uint32_t *x, const uint32_t *y)
{
    uint32_t c;
    km_add<NW>(x, x, y, c);
    (void)c;
}

/* x[0..NW-1] -= y[0..NW-1]; the borrow is dropped (the caller's bound). */
template <int NW> KM_HD void km_sub_from(uint32_t *x, const uint32_t *y)
{
#ifdef __CUDA_ARCH__
    asm volatile("sub.cc.u32 %0, %0, %1;" : "+r"(x[0]) : "r"(y[0]));
#pragma unroll
    for (int i = 1; i < NW - 1; i++) asm volatile("subc.cc.u32 %0, %0, %1;" : "+r"(x[i]) : "r"(y[i]));
    asm volatile("subc.u32 %0, %0, %1;" : "+r"(x[NW - 1]) : "r"(y[NW - 1]));
#else
    uint64_t b = 0;
    for (int i = 0; i < NW; i++) {
        uint64_t d = (uint64_t)x[i] - y[i] - b;
        x[i] = (uint32_t)d;
        b = (d >> 32) & 1;
    }
#endif
}

/* Column K of x y (NW-word x, y, no reduction) into out[K]. */
template <int NW, int K>
KM_HD void km_col(uint32_t &c0, uint32_t &c1, uint32_t &c2, const uint32_t *x, const uint32_t *y, uint32_t *out)
{
    constexpr int LO = K < NW ? 0 : K - NW + 1, HI = K < NW ? K : NW - 1;
#pragma unroll
    for (int i = LO; i <= HI; i++) km_mac3(c0, c1, c2, x[i], y[K - i]);
    out[K] = c0;
    c0 = c1;
    c1 = c2;
    c2 = 0;
}

template <int NW, int K>
KM_HD void km_cols(uint32_t &c0, uint32_t &c1, uint32_t &c2, const uint32_t *x, const uint32_t *y, uint32_t *out)
{
    if constexpr (K < 2 * NW - 1) {
        km_col<NW, K>(c0, c1, c2, x, y, out);
        km_cols<NW, K + 1>(c0, c1, c2, x, y, out);
    }
}

/* out[0..2NW-1] = x y (product scanning). */
template <int NW> KM_HD void km_mul(uint32_t *out, const uint32_t *x, const uint32_t *y)
{
    uint32_t c0 = 0, c1 = 0, c2 = 0;
    km_cols<NW, 0>(c0, c1, c2, x, y, out);
    out[2 * NW - 1] = c0;
}

/* Column K of T + M p (C's N words, T 2N words): for K < N, m[K] makes the
 * column's low word 0; from K = N on, the column's low word is out[K - N]. */
template <class C, int K>
KM_HD void kr_col(uint32_t &c0, uint32_t &c1, uint32_t &c2, const uint32_t *T, uint32_t *m, uint32_t *out)
{
    constexpr int N = C::N, LO = K < N ? 0 : K - N + 1, HM = K < N ? K - 1 : N - 1;
    km_add3(c0, c1, c2, T[K]);
#pragma unroll
    for (int i = LO; i <= HM; i++) km_mac3(c0, c1, c2, m[i], C::p(K - i));
    if constexpr (K < N) {
        m[K] = c0 * C::N0;
        km_mac3(c0, c1, c2, m[K], C::p(0)); /* c0 = 0 now */
    } else {
        out[K - N] = c0;
    }
    c0 = c1;
    c1 = c2;
    c2 = 0;
}

template <class C, int K>
KM_HD void kr_cols(uint32_t &c0, uint32_t &c1, uint32_t &c2, const uint32_t *T, uint32_t *m, uint32_t *out)
{
    if constexpr (K < 2 * C::N) {
        kr_col<C, K>(c0, c1, c2, T, m, out);
        kr_cols<C, K + 1>(c0, c1, c2, T, m, out);
    }
}

/*
 * t[0..N] = a b R^-1 (before any final subtraction; t[N] = 0 for a, b < 2p)
 * by Karatsuba + the separate reduction above.  Bounds of the middle term:
 * sa' sb' + (alpha sb' + beta sa') 2^192 + alpha beta 2^384 = sa sb < 2^386
 * (13 words), and sa sb - a0 b0 - a1 b1 = a0 b1 + a1 b0 >= 0, < 2^385;
 * T = a b < 2^768 (24 words), so the 13-word add into T[6..18] and its
 * carry through T[23] never leave T.
 */
template <class C> KM_HD void km_mont_kara(uint32_t *t, const uint32_t *a, const uint32_t *b)
{
    static_assert(C::N == 12, "Karatsuba halves are Fp's six words");
    constexpr int N = 12, H = 6;
    uint32_t T[2 * N], mid[2 * H + 1];
    {
        /* The middle product first, so sa and sb die before T is formed. */
        uint32_t sa[H], sb[H], alpha, beta;
        km_add<H>(sa, a, a + H, alpha);
        km_add<H>(sb, b, b + H, beta);
        km_mul<H>(mid, sa, sb);
        mid[2 * H] = alpha & beta;
        uint32_t ma = 0u - alpha, mb = 0u - beta, x[H + 1], y[H + 1];
#pragma unroll
        for (int i = 0; i < H; i++) {
            x[i] = sb[i] & ma;
            y[i] = sa[i] & mb;
        }
        x[H] = y[H] = 0;
        km_add_to<H + 1>(mid + H, x);
        km_add_to<H + 1>(mid + H, y);
    }
    km_mul<H>(T, a, b);
    km_mul<H>(T + N, a + H, b + H);
    {
        uint32_t lo[2 * H + 1], hi[2 * H + 1];
#pragma unroll
        for (int i = 0; i < 2 * H; i++) {
            lo[i] = T[i];
            hi[i] = T[N + i];
        }
        lo[2 * H] = hi[2 * H] = 0;
        km_sub_from<2 * H + 1>(mid, lo);
        km_sub_from<2 * H + 1>(mid, hi);
    }
    {
        /* T[6..23] += mid[0..12] (zero-extended to 18 words). */
        uint32_t ext[2 * N - H];
#pragma unroll
        for (int i = 0; i < 2 * N - H; i++) ext[i] = i <= 2 * H ? mid[i] : 0u;
        km_add_to<2 * N - H>(T + H, ext);
    }
    uint32_t m[N], c0 = 0, c1 = 0, c2 = 0;
    kr_cols<C, 0>(c0, c1, c2, T, m, t);
    t[N] = c0; /* 0: the result is below 2p < 2^(32N) */
}

#endif
