/*
 * The Fp (BLS12-381, 381 bits) Montgomery multiplication on the FP64 pipe
 * (the knob msm_fmul: the G1 level-1 madd's lazy multiplications; included
 * by cu_field.cuh, and by test_field_f64.c on the host).
 *
 * Contract: gs_f48_mont_mul(r, a, b) writes r = (a b + M p) / 2^384 for
 * the unique M < 2^384 with a b + M p = 0 mod 2^384, for a, b < 2^384
 * whose result is < 2^384, as twelve little-endian 32-bit words.  That is
 * exactly what fe_mul_lz (cu_field.cuh, product scanning on 32-bit words,
 * R = 2^384 as well) returns for the same words: M is unique, so the word
 * form's M (twelve digits of 2^32) and this one's (eight digits of 2^48)
 * are the same number, and the output words are bit for bit the same.  So
 * the lazy bounds carry over: a, b < 2p gives r < 1.41 p < 2p.  No final
 * subtraction.  Arithmetic only: no memory but the arguments, no failure.
 *
 * Representation inside: each operand cut into 8 limbs of 48 bits (the
 * 384 bits of the words), each limb an exact double (< 2^48 < 2^53).
 *
 * Exact products by fused multiply-add (the technique of Emmart, Zheng and
 * Weems, "Faster modular exponentiation using double precision floating
 * point arithmetic on the GPU", ARITH 2018, section III; written here from
 * its facts).  For limbs x, y < 2^48 (x y < 2^96):
 *   h = fma_rz(x, y, 2^100): x y + 2^100 lies in [2^100, 2^101), where a
 *       double's ulp is 2^48; rounding toward zero keeps
 *       h = 2^100 + floor(x y / 2^48) 2^48 exactly.
 *   l = fma_rn(x, y, (2^100 + 2^52) - h): the addend is
 *       2^52 - floor(x y / 2^48) 2^48, exact (a multiple of 2^48 below
 *       2^96 in magnitude), and x y plus it is (x y mod 2^48) + 2^52, an
 *       integer in [2^52, 2^53): exact whatever the rounding.
 * So bits(h) = bits(2^100) + hi and bits(l) = bits(2^52) + lo (both
 * constants' bit patterns are 0 mod 2^48): the two 48-bit halves sit in
 * the low bits of the doubles' bit patterns, and the columns add those
 * patterns as 64-bit integers.  Each column starts at minus the pattern
 * constants it will receive (known per column), so once all its terms are
 * in it holds the true sum (all arithmetic mod 2^64; a column's true sum
 * is below 32 x 2^48 + a carry < 2^54).  This is the form of the fifth
 * session's bench/cuda/fp64_mul.cu ("FP64, product scanning"), checked
 * there bit for bit against fe_mul_lz on 2^20 pairs on an H200.
 *
 * Reduction by product scanning in 48-bit digits: column k (k = 0..15)
 * takes its a_i b_j (i + j = k) and its m_i p_j for the m_i already known
 * (i < k); for k < 8, m_k = (c_k mod 2^48) (-p^-1) mod 2^48 (one 64-bit
 * integer multiply), whose m_k p_0 would clear the column's low 48 bits:
 * its low half is never formed (it is 2^48 - (c_k mod 2^48) unless that
 * is 0), so the column's carry is c_k >> 48 plus one when c_k's low 48 bits
 * are not zero, and its high half joins column k + 1 directly.  For
 * k >= 8, c_k mod 2^48 is digit k - 8 of the result.
 *
 * Count per multiplication: 64 a b products + 63 m p products (m_k p_0's
 * low half skipped: 8 FMAs fewer), 3 FP64 instructions each (2 DFMA + the
 * DADD forming l's addend) less the 8 skipped = 2 x 128 - 8 + 127 = 375
 * DFMA/DADD, and 16 conversions of a limb to a double (the 2^52 bit
 * pattern, then a DADD); on the integer side the 64-bit column adds (two
 * per product), the 8 m_k (a 48 x 48 -> 48-bit product: IMAD), the word
 * cuts.
 *
 * Host form (the test, prover/cuda/test_field_f64.c): the same code with
 * the rounding of each fused multiply-add emulated exactly in 128-bit
 * integers (gs_f48_fma_host: the operands here are integer-valued doubles,
 * so x y + z is an exact 128-bit integer, rounded to 53 significant bits
 * toward zero or to nearest even), not the C library's fma() under
 * fesetround: that would depend on the compiler keeping the calls inside
 * the rounding mode.  The test checks the emulation against fma() under
 * fesetround(FE_TOWARDZERO) / FE_TONEAREST as well.
 *
 * Valid C (for the tests) and CUDA C++ (cu_field.cuh): no templates.
 */
#ifndef GS_CU_FIELD_F64_H
#define GS_CU_FIELD_F64_H

#include <stdint.h>
#ifndef __CUDA_ARCH__
#include <string.h>
#endif

#if defined(__CUDACC__)
#define GS_F48_HD static __host__ __device__ __forceinline__
#else
#define GS_F48_HD static inline
#endif
/* Unrolled on the device (every index then a constant); the host's
 * compilers would warn about the pragma. */
#if defined(__CUDA_ARCH__)
#define GS_F48_UNROLL _Pragma("unroll")
#else
#define GS_F48_UNROLL
#endif

#define GS_F48_M48 0xffffffffffffull
#define GS_F48_K52 0x4330000000000000ull  /* bits of 2^52 */
#define GS_F48_K100 0x4630000000000000ull /* bits of 2^100 */
#define GS_F48_C52 4503599627370496.0                     /* 2^52 */
#define GS_F48_C100 1267650600228229401496703205376.0     /* 2^100 */
#define GS_F48_C100_52 1267650600228233905096330575872.0  /* 2^100 + 2^52 */
#define GS_F48_PINV 0xfffcfffcfffdull                     /* -p^-1 mod 2^48 */

/* p in 48-bit limbs, little-endian (0xffffffffaaab, 0xb153ffffb9fe,
 * 0xf6241eabfffe, 0x6730d2a0f6b0, 0x4b84f38512bf, 0x434bacd76477,
 * 0xe69a4b1ba7b6, 0x1a0111ea397f; the test checks them against p's words).
 * On the device from the constant bank: a DFMA reads it there directly,
 * where an immediate double takes two moves into registers at every use. */
#define GS_F48_P_INIT                                                                  \
    {                                                                                  \
        281474976688811.0, 194974335351294.0, 270634993844222.0, 113459389855408.0,    \
        83034393350847.0, 73992301405303.0, 253550359455670.0, 28591897852287.0        \
    }
#if defined(__CUDACC__)
static __constant__ double gs_f48_pc[8] = GS_F48_P_INIT;
#endif
GS_F48_HD double gs_f48_p(int j)
{
#ifdef __CUDA_ARCH__
    return gs_f48_pc[j];
#else
    static const double ph[8] = GS_F48_P_INIT;
    return ph[j];
#endif
}

/* Number of (i, j), 0 <= i, j < 8, with i + j = k. */
GS_F48_HD int gs_f48_cnt(int k)
{
    return (k < 0 || k > 14) ? 0 : (k < 8 ? k + 1 : 15 - k);
}

#ifndef __CUDA_ARCH__
/* fma(x, y, z) rounded toward zero (rz) or to nearest even, exactly, for
 * integer-valued x, y, z with |x y| and |z| below 2^125 (all this file's
 * operands are). */
GS_F48_HD double gs_f48_fma_host(double x, double y, double z, int rz)
{
    __int128 s = (__int128)x * (__int128)y + (__int128)z;
    int neg = s < 0;
    unsigned __int128 m = neg ? (unsigned __int128)(-s) : (unsigned __int128)s;
    int len = 0;
    for (unsigned __int128 t = m; t; t >>= 1) len++;
    if (len > 53) {
        int sh = len - 53;
        unsigned __int128 q = m >> sh, rem = m & (((unsigned __int128)1 << sh) - 1);
        unsigned __int128 half = (unsigned __int128)1 << (sh - 1);
        if (!rz && (rem > half || (rem == half && (q & 1)))) q++; /* q may reach 2^53: still exact */
        m = q << sh;
    }
    double d = (double)m; /* at most 54 significant bits with the low one 0: exact */
    return neg ? -d : d;
}
#endif

GS_F48_HD double gs_f48_fma_rz(double x, double y, double z)
{
#ifdef __CUDA_ARCH__
    return __fma_rz(x, y, z);
#else
    return gs_f48_fma_host(x, y, z, 1);
#endif
}

GS_F48_HD double gs_f48_fma_rn(double x, double y, double z)
{
#ifdef __CUDA_ARCH__
    return __fma_rn(x, y, z);
#else
    return gs_f48_fma_host(x, y, z, 0);
#endif
}

/* The bit pattern of d, as an integer. */
GS_F48_HD uint64_t gs_f48_bits(double d)
{
#ifdef __CUDA_ARCH__
    return (uint64_t)__double_as_longlong(d);
#else
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
#endif
}

/* A 48-bit integer (lo the low 32 bits, hi16 the next 16) as a double:
 * put in the mantissa of 2^52, then 2^52 subtracted (exact). */
GS_F48_HD double gs_f48_limb(uint32_t lo, uint32_t hi16)
{
#ifdef __CUDA_ARCH__
    return __dsub_rn(__hiloint2double((int)(0x43300000u | hi16), (int)lo), GS_F48_C52);
#else
    return (double)(((uint64_t)hi16 << 32) | lo);
#endif
}

/* Twelve 32-bit words -> eight 48-bit limbs as doubles. */
GS_F48_HD void gs_f48_split(double d[8], const uint32_t w[12])
{
    GS_F48_UNROLL
    for (int k = 0; k < 4; k++) {
        d[2 * k] = gs_f48_limb(w[3 * k], w[3 * k + 1] & 0xffffu);
        d[2 * k + 1] = gs_f48_limb((w[3 * k + 1] >> 16) | (w[3 * k + 2] << 16), w[3 * k + 2] >> 16);
    }
}

/* Adds x y's low half into the column lo and its high half into hi (bit
 * patterns, see the file comment). */
GS_F48_HD void gs_f48_mac(uint64_t *lo, uint64_t *hi, double x, double y)
{
    double h = gs_f48_fma_rz(x, y, GS_F48_C100);
    double l = gs_f48_fma_rn(x, y, GS_F48_C100_52 - h);
    *lo += gs_f48_bits(l);
    *hi += gs_f48_bits(h);
}

/* Minus the pattern constants column k receives: cnt(k) low halves of
 * a b, cnt(k - 1) high halves; of m p, cnt(k) low halves less m_k p_0's
 * for k < 8, cnt(k - 1) high halves. */
GS_F48_HD uint64_t gs_f48_offset(int k)
{
    int lo = 2 * gs_f48_cnt(k) - (k <= 7 ? 1 : 0), hi = 2 * gs_f48_cnt(k - 1);
    return 0ull - (uint64_t)lo * GS_F48_K52 - (uint64_t)hi * GS_F48_K100;
}

/* r = (a b + M p) / 2^384, see the contract above; r may alias a or b. */
GS_F48_HD void gs_f48_mont_mul(uint32_t r[12], const uint32_t aw[12], const uint32_t bw[12])
{
    double a[8], b[8], m[8];
    uint64_t cur, nxt, carry = 0, L[8];
    gs_f48_split(a, aw);
    gs_f48_split(b, bw);
    nxt = gs_f48_offset(0);
    GS_F48_UNROLL
    for (int k = 0; k < 16; k++) {
        cur = nxt + carry;
        nxt = gs_f48_offset(k + 1);
        GS_F48_UNROLL
        for (int i = 0; i < 8; i++) {
            int j = k - i;
            if (j >= 0 && j < 8) gs_f48_mac(&cur, &nxt, a[i], b[j]);
        }
        GS_F48_UNROLL
        for (int i = 0; i < 8; i++) {
            int j = k - i;
            if (i < k && j >= 0 && j < 8) gs_f48_mac(&cur, &nxt, m[i], gs_f48_p(j));
        }
        if (k < 8) {
            uint64_t mk = (cur * GS_F48_PINV) & GS_F48_M48;
            m[k] = gs_f48_limb((uint32_t)mk, (uint32_t)(mk >> 32));
            carry = (cur >> 48) + ((cur & GS_F48_M48) != 0);
            nxt += gs_f48_bits(gs_f48_fma_rz(m[k], gs_f48_p(0), GS_F48_C100));
        } else {
            L[k - 8] = cur & GS_F48_M48;
            carry = cur >> 48;
        }
    }
    GS_F48_UNROLL
    for (int k = 0; k < 4; k++) {
        r[3 * k] = (uint32_t)L[2 * k];
        r[3 * k + 1] = (uint32_t)(L[2 * k] >> 32) | ((uint32_t)L[2 * k + 1] << 16);
        r[3 * k + 2] = (uint32_t)(L[2 * k + 1] >> 16);
    }
}

#endif
