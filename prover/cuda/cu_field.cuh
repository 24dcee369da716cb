/*
 * Device arithmetic for the BLS12-381 fields Fp (381 bits) and Fr (255
 * bits): little-endian 32-bit limbs, Montgomery form with the same R as the
 * host (R = 2^384 for Fp, 2^256 for Fr; field.h), so a gs_fp / gs_fr on the
 * host and a cu_fp / cu_fr on the device are the same bytes.  Every value
 * passed in or out is fully reduced, except for the lazy "_lz" functions
 * (values in [0, 2p), Fp only, see there).  Internal to prover/cuda (.cu
 * files).
 *
 * Multiplication is product scanning (fe_mul_ps, the default since
 * 2026-12-04: each column's products add into one three-word accumulator,
 * see there); the CIOS form below (Koc, Acar, Kaliski, IEEE Micro 1996,
 * section 5; fe_mul_cios, kept for A/B builds and `cuda-bench --field`)
 * works on 32-bit words.  Each row adds the 64-bit products a[j]*b[i] in two
 * carry chains, even j then odd j: the products of even j occupy word
 * pairs (j, j+1) that do not overlap, so one PTX chain
 *   mad.lo.cc / madc.hi.cc / madc.lo.cc / ...
 * adds them all with a single carry flag; likewise the odd j (shifted by
 * one word) and the reduction m*p.  Both moduli leave a spare top bit, so
 * the CIOS result is < 2p and one conditional subtraction reduces it.
 *
 * In the CIOS form the carry flag lives between consecutive asm statements
 * of one unrolled chain; nothing else is placed inside a chain (the
 * product-scanning form keeps each carry inside one asm statement).  Every chain statement is
 * `asm volatile`: the compiler cannot see the carry flag, and would
 * otherwise drop a statement whose register result is dead (the first
 * mad.lo.cc of each reduction row, whose word is shifted out) together
 * with the carry it produces, or move statements across each other.
 */
#ifndef GS_CU_FIELD_CUH
#define GS_CU_FIELD_CUH

#include <stdint.h>

#define CU_DEV __device__ __forceinline__

#include "cu_field_kara.cuh"
#include "cu_field_f64.h"

/* Field descriptors: limb count, -p^-1 mod 2^32, p and R mod p by limb. */
/* Variant bits of a field configuration (cu_fe<C> with C::VAR), for A/B
 * runs on the device (GS_CU_FV, cu_msm.cu): CU_FV_SQR = fe_sqr by the
 * dedicated squaring (fe_sqr_ps) instead of fe_mul(a, a). */
#define CU_FV_SQR 2
/* CU_FV_KMUL = fe_mul_lz by Karatsuba (fe_mul_kara; Fp only; set by the
 * knob msm_kmul for G1's level 1, not by GS_CU_FV). */
#define CU_FV_KMUL 128
/* CU_FV_FMUL = fe_mul_lz on the FP64 pipe (fe_mul_f64, cu_field_f64.h;
 * Fp only; the knob msm_fmul = 1 for G1's level 1).  CU_FV_FMIX = the
 * madd's independent pairs of lazy multiplications as one call, one on
 * the integer pipe and one on the FP64 pipe (cu_ec.cuh's
 * cu_ops_lazy_call_mix; the knob msm_fmul = 2); fe_mul_lz alone stays
 * product scanning.  Neither is a GS_CU_FV bit. */
#define CU_FV_FMUL 256
#define CU_FV_FMIX 512

struct cu_fp_cfg {
    static constexpr int N = 12;
    static constexpr int VAR = 0;
    static constexpr uint32_t N0 = 0xfffcfffdu;
    static CU_DEV uint32_t p(int i)
    {
        switch (i) {
        case 0: return 0xffffaaabu; case 1: return 0xb9feffffu;
        case 2: return 0xb153ffffu; case 3: return 0x1eabfffeu;
        case 4: return 0xf6b0f624u; case 5: return 0x6730d2a0u;
        case 6: return 0xf38512bfu; case 7: return 0x64774b84u;
        case 8: return 0x434bacd7u; case 9: return 0x4b1ba7b6u;
        case 10: return 0x397fe69au; default: return 0x1a0111eau;
        }
    }
    static CU_DEV uint32_t one(int i)
    {
        switch (i) {
        case 0: return 0x0002fffdu; case 1: return 0x76090000u;
        case 2: return 0xc40c0002u; case 3: return 0xebf4000bu;
        case 4: return 0x53c758bau; case 5: return 0x5f489857u;
        case 6: return 0x70525745u; case 7: return 0x77ce5853u;
        case 8: return 0xa256ec6du; case 9: return 0x5c071a97u;
        case 10: return 0xfa80e493u; default: return 0x15f65ec3u;
        }
    }
};

struct cu_fr_cfg {
    static constexpr int N = 8;
    static constexpr int VAR = 0;
    static constexpr uint32_t N0 = 0xffffffffu;
    static CU_DEV uint32_t p(int i)
    {
        switch (i) {
        case 0: return 0x00000001u; case 1: return 0xffffffffu;
        case 2: return 0xfffe5bfeu; case 3: return 0x53bda402u;
        case 4: return 0x09a1d805u; case 5: return 0x3339d808u;
        case 6: return 0x299d7d48u; default: return 0x73eda753u;
        }
    }
    static CU_DEV uint32_t one(int i)
    {
        switch (i) {
        case 0: return 0xfffffffeu; case 1: return 0x00000001u;
        case 2: return 0x00034802u; case 3: return 0x5884b7fau;
        case 4: return 0xecbc4ff5u; case 5: return 0x998c4fefu;
        case 6: return 0xacc5056fu; default: return 0x1824b159u;
        }
    }
};

/* The same field as B with variant bits V: a distinct element type of the
 * same layout, so one module holds kernels of several variants. */
template <class B, int V> struct cu_cfgv : B {
    static constexpr int VAR = V;
};

template <class C> struct cu_fe {
    typedef C cfg;
    uint32_t l[C::N];
};
typedef cu_fe<cu_fp_cfg> cu_fp;
typedef cu_fe<cu_fr_cfg> cu_fr;

template <class C> CU_DEV void fe_zero(cu_fe<C> &r)
{
#pragma unroll
    for (int i = 0; i < C::N; i++) r.l[i] = 0;
}

template <class C> CU_DEV void fe_one(cu_fe<C> &r)
{
#pragma unroll
    for (int i = 0; i < C::N; i++) r.l[i] = C::one(i);
}

template <class C> CU_DEV bool fe_is_zero(const cu_fe<C> &a)
{
    uint32_t acc = 0;
#pragma unroll
    for (int i = 0; i < C::N; i++) acc |= a.l[i];
    return acc == 0;
}

template <class C> CU_DEV bool fe_eq(const cu_fe<C> &a, const cu_fe<C> &b)
{
    uint32_t acc = 0;
#pragma unroll
    for (int i = 0; i < C::N; i++) acc |= a.l[i] ^ b.l[i];
    return acc == 0;
}

/* r = a + b mod p. */
template <class C> CU_DEV void fe_add(cu_fe<C> &r, const cu_fe<C> &a, const cu_fe<C> &b)
{
    constexpr int N = C::N;
    uint32_t s[N], d[N], mask;
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(s[0]) : "r"(a.l[0]), "r"(b.l[0]));
#pragma unroll
    for (int i = 1; i < N; i++)
        asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(s[i]) : "r"(a.l[i]), "r"(b.l[i]));
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(d[0]) : "r"(s[0]), "r"(C::p(0)));
#pragma unroll
    for (int i = 1; i < N; i++)
        asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(d[i]) : "r"(s[i]), "r"(C::p(i)));
    asm volatile("subc.u32 %0, 0, 0;" : "=r"(mask));
    /* mask = all ones when s < p: keep s. */
#pragma unroll
    for (int i = 0; i < N; i++) r.l[i] = (s[i] & mask) | (d[i] & ~mask);
}

/* r = a - b mod p. */
template <class C> CU_DEV void fe_sub(cu_fe<C> &r, const cu_fe<C> &a, const cu_fe<C> &b)
{
    constexpr int N = C::N;
    uint32_t d[N], mask;
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(d[0]) : "r"(a.l[0]), "r"(b.l[0]));
#pragma unroll
    for (int i = 1; i < N; i++)
        asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(d[i]) : "r"(a.l[i]), "r"(b.l[i]));
    asm volatile("subc.u32 %0, 0, 0;" : "=r"(mask));
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r.l[0]) : "r"(d[0]), "r"(C::p(0) & mask));
#pragma unroll
    for (int i = 1; i < N; i++)
        asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r.l[i]) : "r"(d[i]), "r"(C::p(i) & mask));
}

template <class C> CU_DEV void fe_dbl(cu_fe<C> &r, const cu_fe<C> &a) { fe_add(r, a, a); }

/* r = -a mod p (0 stays 0). */
template <class C> CU_DEV void fe_neg(cu_fe<C> &r, const cu_fe<C> &a)
{
    cu_fe<C> z;
    fe_zero(z);
    fe_sub(r, z, a);
}

/*
 * t[0..N+1] += a[0..N-1] * b, with t[N+1] absorbing the final carry.
 * Two chains: even j into words (j, j+1), odd j into words (j, j+1).
 */
template <int N> CU_DEV void mac_row(uint32_t *t, const uint32_t *a, uint32_t b)
{
    asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[0]) : "r"(a[0]), "r"(b));
    asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[1]) : "r"(a[0]), "r"(b));
#pragma unroll
    for (int j = 2; j < N; j += 2) {
        asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[j]) : "r"(a[j]), "r"(b));
        asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[j + 1]) : "r"(a[j]), "r"(b));
    }
    asm volatile("addc.cc.u32 %0, %0, 0;" : "+r"(t[N]));
    asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N + 1]));

    asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[1]) : "r"(a[1]), "r"(b));
    asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[2]) : "r"(a[1]), "r"(b));
#pragma unroll
    for (int j = 3; j < N; j += 2) {
        asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[j]) : "r"(a[j]), "r"(b));
        asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[j + 1]) : "r"(a[j]), "r"(b));
    }
    asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N + 1]));
}

/* r = t - p if t >= p, else t, for t[0..N] < 2p (t[N] the top word). */
template <class C> CU_DEV void fe_final_sub(cu_fe<C> &r, const uint32_t *t)
{
    constexpr int N = C::N;
    uint32_t d[N], mask;
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(d[0]) : "r"(t[0]), "r"(C::p(0)));
#pragma unroll
    for (int i = 1; i < N; i++)
        asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(d[i]) : "r"(t[i]), "r"(C::p(i)));
    asm volatile("subc.u32 %0, %1, 0;" : "=r"(mask) : "r"(t[N]));
    /* t < 2p < 2^(32N): t[N] = 0, mask = all ones iff t < p. */
#pragma unroll
    for (int i = 0; i < N; i++) r.l[i] = (t[i] & mask) | (d[i] & ~mask);
}

/* r = a * b * R^-1 mod p (CIOS, see the file comment).  FULL = false
 * skips the final conditional subtraction: r < 2p whenever a b < 4p^2
 * (proof at fe_mul_lz). */
template <class C, bool FULL>
CU_DEV void fe_mul_cios(cu_fe<C> &r, const cu_fe<C> &a, const cu_fe<C> &b)
{
    constexpr int N = C::N;
    uint32_t t[N + 2], pm[N];
#pragma unroll
    for (int i = 0; i < N; i++) pm[i] = C::p(i);
#pragma unroll
    for (int i = 0; i < N + 2; i++) t[i] = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
        mac_row<N>(t, a.l, b.l[i]);
        uint32_t m = t[0] * C::N0;
        mac_row<N>(t, pm, m);
        /* t[0] is now 0: shift down one word. */
#pragma unroll
        for (int j = 0; j < N + 1; j++) t[j] = t[j + 1];
        t[N + 1] = 0;
    }
    if constexpr (FULL) {
        fe_final_sub<C>(r, t);
    } else {
#pragma unroll
        for (int i = 0; i < N; i++) r.l[i] = t[i];
    }
}

/* (c0, c1, c2) += x y: one carry chain inside one statement. */
CU_DEV void mac3(uint32_t &c0, uint32_t &c1, uint32_t &c2, uint32_t x, uint32_t y)
{
    asm("mad.lo.cc.u32 %0, %3, %4, %0;\n\t"
        "madc.hi.cc.u32 %1, %3, %4, %1;\n\t"
        "addc.u32 %2, %2, 0;"
        : "+r"(c0), "+r"(c1), "+r"(c2)
        : "r"(x), "r"(y));
}

/*
 * fe_mul_ps (after the column templates): the same Montgomery product by
 * product scanning (the column-wise interleaving of Koc, Acar, Kaliski's
 * FIPS): column k of a b + M p, i.e.
 * every a_i b_j and m_i p_j with i + j = k, accumulates in three words
 * (c0, c1, c2); for k < N, m_k = c0 (-p^-1) mod 2^32 and m_k p_0 clear c0;
 * for k >= N, c0 is word k - N of the result; then the three words shift
 * down by one.  Same value as fe_mul_cios (t = (a b + M p) / R with the
 * same M, so the same bounds and lazy results), but every product adds
 * into the pair (c0, c1), which ptxas keeps in an aligned register pair
 * for IMAD.WIDE: CIOS's two interleaved chains per row land their 64-bit
 * products on word pairs that start at even and at odd words, and the
 * shift of t after every row, so its SASS spends ~380 of its ~740
 * instructions on moves (131 of them IMAD.MOV on the multiply pipe, H200
 * SASS of the G1 madd, bench/RESULTS.md).  Column sums stay below
 * 2N 2^64: c2 < 2^32.
 */
/* Column K of fe_ps (a template per column, so every loop bound is a
 * constant and the whole product unrolls).  SQR (b = a): the off-diagonal
 * products a_i a_(K-i), i < K - i, summed apart in (d0, d1, d2) from zero
 * and doubled before they join the column (at most N/2 of them: d < 2^67
 * before the doubling), then the square a_(K/2)^2 for even K. */
template <class C, int K, bool SQR>
CU_DEV void ps_col(uint32_t &c0, uint32_t &c1, uint32_t &c2, const uint32_t *a, const uint32_t *b,
                   uint32_t *m, uint32_t *t)
{
    constexpr int N = C::N, LO = K < N ? 0 : K - N + 1, HI = K < N ? K : N - 1;
    constexpr int HM = K < N ? K - 1 : HI; /* m_i p_(K-i) for the m already known */
    if constexpr (!SQR) {
#pragma unroll
        for (int i = LO; i <= HI; i++) mac3(c0, c1, c2, a[i], b[K - i]);
    } else {
        if constexpr (2 * LO < K) {
            uint32_t d0 = 0, d1 = 0, d2 = 0;
#pragma unroll
            for (int i = LO; 2 * i < K; i++) mac3(d0, d1, d2, a[i], a[K - i]);
            d2 = __funnelshift_l(d1, d2, 1);
            d1 = __funnelshift_l(d0, d1, 1);
            d0 <<= 1;
            asm("add.cc.u32 %0, %0, %3;\n\t"
                "addc.cc.u32 %1, %1, %4;\n\t"
                "addc.u32 %2, %2, %5;"
                : "+r"(c0), "+r"(c1), "+r"(c2)
                : "r"(d0), "r"(d1), "r"(d2));
        }
        if constexpr (K % 2 == 0) mac3(c0, c1, c2, a[K / 2], a[K / 2]); /* LO <= K/2 <= HI */
    }
#pragma unroll
    for (int i = LO; i <= HM; i++) mac3(c0, c1, c2, m[i], C::p(K - i));
    if constexpr (K < N) {
        m[K] = c0 * C::N0;
        mac3(c0, c1, c2, m[K], C::p(0)); /* c0 = 0 now */
    } else {
        t[K - N] = c0;
    }
    c0 = c1;
    c1 = c2;
    c2 = 0;
}

template <class C, int K, bool SQR>
CU_DEV void ps_cols(uint32_t &c0, uint32_t &c1, uint32_t &c2, const uint32_t *a, const uint32_t *b,
                    uint32_t *m, uint32_t *t)
{
    if constexpr (K < 2 * C::N - 1) {
        ps_col<C, K, SQR>(c0, c1, c2, a, b, m, t);
        ps_cols<C, K + 1, SQR>(c0, c1, c2, a, b, m, t);
    }
}

/* r = a b R^-1 (SQR: a^2, b unused) by the columns above. */
template <class C, bool FULL, bool SQR>
CU_DEV void fe_ps(cu_fe<C> &r, const cu_fe<C> &a, const cu_fe<C> &b)
{
    constexpr int N = C::N;
    uint32_t m[N], t[N + 1], c0 = 0, c1 = 0, c2 = 0;
    ps_cols<C, 0, SQR>(c0, c1, c2, a.l, b.l, m, t);
    t[N - 1] = c0;
    t[N] = c1; /* 0: the result is below 2p < 2^(32N) */
    if constexpr (FULL) {
        fe_final_sub<C>(r, t);
    } else {
#pragma unroll
        for (int i = 0; i < N; i++) r.l[i] = t[i];
    }
}

template <class C, bool FULL>
CU_DEV void fe_mul_ps(cu_fe<C> &r, const cu_fe<C> &a, const cu_fe<C> &b)
{
    fe_ps<C, FULL, false>(r, a, b);
}

/* r = a b R^-1 by Karatsuba + a separate reduction (cu_field_kara.cuh;
 * Fp only, the same value as fe_mul_ps). */
template <class C, bool FULL>
CU_DEV void fe_mul_kara(cu_fe<C> &r, const cu_fe<C> &a, const cu_fe<C> &b)
{
    uint32_t t[C::N + 1];
    km_mont_kara<C>(t, a.l, b.l);
    if constexpr (FULL) {
        fe_final_sub<C>(r, t);
    } else {
#pragma unroll
        for (int i = 0; i < C::N; i++) r.l[i] = t[i];
    }
}

/* r = a b R^-1 on the FP64 pipe (cu_field_f64.h: Fp only, lazy, the same
 * words as fe_mul_ps without the final subtraction). */
template <class C> CU_DEV void fe_mul_f64(cu_fe<C> &r, const cu_fe<C> &a, const cu_fe<C> &b)
{
    static_assert(C::N == 12, "the FP64 multiplication is Fp's");
    gs_f48_mont_mul(r.l, a.l, b.l);
}

/* The multiplication every fe_mul / fe_mul_lz uses: product scanning
 * (GS_CU_MUL_CIOS=1 at build time: CIOS, for A/B builds), or for fe_mul_lz
 * Karatsuba where the configuration's variant has CU_FV_KMUL (the knob
 * msm_kmul), on the FP64 pipe where it has CU_FV_FMUL (msm_fmul = 1):
 * the madd's hot multiplications; fe_mul, e.g. in the inlined
 * rare doubling, stays product scanning: with Karatsuba there too the
 * level-1 kernel spilled, 168 registers + 24 bytes of spills + a 216-byte
 * frame, against 168 + a 152-byte frame without spills). */
template <class C, bool FULL>
CU_DEV void fe_mul_impl(cu_fe<C> &r, const cu_fe<C> &a, const cu_fe<C> &b)
{
#if defined(GS_CU_MUL_CIOS) && GS_CU_MUL_CIOS
    fe_mul_cios<C, FULL>(r, a, b);
#else
    if constexpr ((C::VAR & CU_FV_KMUL) != 0 && !FULL) fe_mul_kara<C, FULL>(r, a, b);
    else if constexpr ((C::VAR & CU_FV_FMUL) != 0 && !FULL) fe_mul_f64<C>(r, a, b);
    else fe_mul_ps<C, FULL>(r, a, b);
#endif
}

template <class C> CU_DEV void fe_mul(cu_fe<C> &r, const cu_fe<C> &a, const cu_fe<C> &b)
{
    fe_mul_impl<C, true>(r, a, b);
}

/*
 * r = a^2 R^-1 mod p by a dedicated squaring: fe_mul_ps's columns with each
 * off-diagonal product a_i a_j (i < j) formed once and doubled, and the N
 * squares a_i^2 (ps_col with SQR): N(N-1)/2 + N products instead of N^2 for the
 * product half (Fp: 78 instead of 144; the reduction's 144 unchanged).
 * The value is fe_mul_ps(a, a)'s: t = (a^2 + M p) / R with the same M, so
 * the same bounds (for a < 2p, Fp: t < 1.41 p; proof at fe_mul_lz).  FULL
 * reduces to [0, p); FULL = false leaves [0, 2p) (Fp only).
 */
template <class C, bool FULL> CU_DEV void fe_sqr_ps(cu_fe<C> &r, const cu_fe<C> &a)
{
    fe_ps<C, FULL, true>(r, a, a);
}

template <class C> CU_DEV void fe_sqr(cu_fe<C> &r, const cu_fe<C> &a)
{
    if constexpr ((C::VAR & CU_FV_SQR) != 0) fe_sqr_ps<C, true>(r, a);
    else fe_mul(r, a, a);
}

/*
 * Lazy reduction ("_lz"), for the MSM's mixed addition: values in [0, 2p)
 * instead of [0, p).
 *
 * fe_mul_lz: r = a b R^-1 mod p in [0, 2p) for a, b < 2p.  CIOS computes
 * t = (a b + M p) / R with M < R, so t < a b / R + p < (4p/R) p + p; for
 * Fp, p < 0x1a0111eb * 2^352 gives 4p/R < 4 * 0x1a0111eb / 2^32 < 0.41,
 * so t < 1.41 p < 2p without the final subtraction (and t < 2^382: the
 * N + 2 words of the CIOS rows hold every intermediate, as for inputs
 * below R).  Fp only (Fr's 4p/R > 1).
 * fe_sqr_lz: the same for a^2, a < 2p (fe_sqr_ps's bound, or fe_mul_lz).
 * fe_sub_lz: r = a - b mod p in [0, 2p) for a, b in [0, 2p): a - b lies in
 * (-2p, 2p); 2p is added when it is negative.
 * fe_reduce: r = a mod p in [0, p) for a in [0, 2p).
 * fe_is_zero_lz: a = 0 mod p for a in [0, 2p), i.e. a = 0 or a = p.
 */
template <class C> CU_DEV void fe_mul_lz(cu_fe<C> &r, const cu_fe<C> &a, const cu_fe<C> &b)
{
    static_assert(C::N == 12, "lazy reduction is proven for Fp only");
    fe_mul_impl<C, false>(r, a, b);
}

template <class C> CU_DEV void fe_sqr_lz(cu_fe<C> &r, const cu_fe<C> &a)
{
    static_assert(C::N == 12, "lazy reduction is proven for Fp only");
    if constexpr ((C::VAR & CU_FV_SQR) != 0) fe_sqr_ps<C, false>(r, a);
    else fe_mul_impl<C, false>(r, a, a);
}

template <class C> CU_DEV uint32_t fe_p2(int i)
{
    return (C::p(i) << 1) | (i > 0 ? C::p(i - 1) >> 31 : 0u);
}

template <class C> CU_DEV void fe_sub_lz(cu_fe<C> &r, const cu_fe<C> &a, const cu_fe<C> &b)
{
    constexpr int N = C::N;
    uint32_t d[N], mask;
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(d[0]) : "r"(a.l[0]), "r"(b.l[0]));
#pragma unroll
    for (int i = 1; i < N; i++)
        asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(d[i]) : "r"(a.l[i]), "r"(b.l[i]));
    asm volatile("subc.u32 %0, 0, 0;" : "=r"(mask));
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r.l[0]) : "r"(d[0]), "r"(fe_p2<C>(0) & mask));
#pragma unroll
    for (int i = 1; i < N; i++)
        asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r.l[i]) : "r"(d[i]), "r"(fe_p2<C>(i) & mask));
}

template <class C> CU_DEV void fe_reduce(cu_fe<C> &r, const cu_fe<C> &a)
{
    uint32_t t[C::N + 1];
#pragma unroll
    for (int i = 0; i < C::N; i++) t[i] = a.l[i];
    t[C::N] = 0;
    fe_final_sub<C>(r, t);
}

template <class C> CU_DEV bool fe_is_zero_lz(const cu_fe<C> &a)
{
    uint32_t z = 0, e = 0;
#pragma unroll
    for (int i = 0; i < C::N; i++) {
        z |= a.l[i];
        e |= a.l[i] ^ C::p(i);
    }
    return z == 0 || e == 0;
}

/* r = a^(p-2) = a^-1 mod p (Fermat; 0 stays 0), Montgomery in and out.
 * About log2(p) squarings and half as many multiplications: for one-time
 * work (the MSM's precomputed points), not inner loops. */
template <class C> CU_DEV void fe_inv(cu_fe<C> &r, const cu_fe<C> &a)
{
    cu_fe<C> acc;
    fe_one(acc);
    bool started = false;
    for (int i = C::N - 1; i >= 0; i--) {
        uint32_t e = C::p(i) - (i == 0 ? 2u : 0u); /* p is odd and > 2: no borrow */
        for (int b = 31; b >= 0; b--) {
            if (started) fe_mul(acc, acc, acc);
            if ((e >> b) & 1) {
                if (started) fe_mul(acc, acc, a);
                else acc = a;
                started = true;
            }
        }
    }
    r = acc;
}

/* Montgomery -> plain (multiply by 1). */
template <class C> CU_DEV void fe_from_mont(cu_fe<C> &r, const cu_fe<C> &a)
{
    cu_fe<C> one;
    fe_zero(one);
    one.l[0] = 1;
    fe_mul(r, a, one);
}

/* Loads and stores through 16-byte vectors (both sizes are multiples of 16). */
template <class C> CU_DEV void fe_load(cu_fe<C> &r, const cu_fe<C> *p)
{
    const uint4 *v = reinterpret_cast<const uint4 *>(p);
#pragma unroll
    for (int i = 0; i < C::N / 4; i++) {
        uint4 x = v[i];
        r.l[4 * i] = x.x; r.l[4 * i + 1] = x.y; r.l[4 * i + 2] = x.z; r.l[4 * i + 3] = x.w;
    }
}

template <class C> CU_DEV void fe_store(cu_fe<C> *p, const cu_fe<C> &a)
{
    uint4 *v = reinterpret_cast<uint4 *>(p);
#pragma unroll
    for (int i = 0; i < C::N / 4; i++)
        v[i] = make_uint4(a.l[4 * i], a.l[4 * i + 1], a.l[4 * i + 2], a.l[4 * i + 3]);
}

#endif
