/*
 * Inversion modulo the BLS12-381 base prime p by divsteps (Bernstein and
 * Yang, "Fast constant-time gcd computation and modular inversion", TCHES
 * 2019), in its variable-time form: batches of 29 divsteps decided on the
 * low word alone, each batch's 2x2 transition matrix then applied to the
 * whole numbers.  Plain integers on 32-bit little-endian limbs, so the same
 * function runs on the host (tests: test_field.c) and in CUDA kernels
 * (prover/cuda/cu_msm_ba.cu's batch-affine tree, where one thread's
 * inversion is what a block, or a round, waits on: its latency is the
 * point, ~28 batches of short dependent steps (27.7 on average, 29 at most
 * over 20,000 random inputs) instead of the binary Euclid's ~1500 passes
 * over 12 words).
 *
 * The divstep on (delta, f, g), f odd:
 *   delta > 0 and g odd:  (1 - delta, g, (g - f) / 2)
 *   g odd:                (1 + delta, f, (g + f) / 2)
 *   g even:               (1 + delta, f, g / 2)
 * from (1, p, a) reaches g = 0 with f = +-gcd(p, a) = +-1.  After i steps
 * 2^i (f_i, g_i) = M (f_0, g_0) with M = [[u, v], [q, r]],
 * |u| + |v| <= 2^i and |q| + |r| <= 2^i, and step i needs only bit 0 of
 * g_i, which the low 32 - i bits of f_0 and g_0 (carried along) determine.
 * So a batch runs 29 steps on the low words (a run of even steps at once,
 * by g's trailing zeros: 6.4 -> 4.8 us an inversion on the workstation's
 * CPU, round 3 session 17; 79 -> 77-78 us of one H100 thread, session 18,
 * where applying M bounds it), builds M in int32, and
 * applies it: f, g <- M (f, g) / 2^29 exactly, and the cofactors d, e
 * (f = d a, g = e a mod p; d = 0, e = 1 at the start) <- M (d, e) / 2^29
 * mod p, the division by adding the multiple m p (m < 2^29) that clears
 * the low 29 bits (m = -S p^-1 mod 2^29, p^-1 from the Montgomery
 * constant).  With |d|, |e| < p the new ones are below 2p and one
 * conditional add or subtract of p brings them back under p.  At the end
 * a^-1 = f d (f = +-1).  29 rather than 30 keeps every limb sum of
 * M's products and m p_i under 2^62 in an int64.
 *
 * f, g, d, e are two's complement on 12 limbs (|value| < 2^383).  Input: a
 * < 2^383 (so a lazily reduced value below 2p is fine).  Returns 1 and
 * a^-1 mod p in [0, p), or 0 (out zeroed) when a = 0 mod p.  Not constant
 * time: for data that is not secret (the MSM's bucket sums are public).
 */
#ifndef GS_FIELD_FP_DIVSTEPS_H
#define GS_FIELD_FP_DIVSTEPS_H

#include <stdint.h>

#include "consts.h"

#ifdef __CUDACC__
#define GS_DS_FN static inline __host__ __device__
#else
#define GS_DS_FN static inline
#endif

#define GS_DS_N 29   /* divsteps per batch */
#define GS_DS_MAXB 64 /* batches at most (1856 divsteps; Bernstein-Yang's bound for 381 bits is 1102) */

/* Trailing zeros of x != 0. */
GS_DS_FN int gs_ds_ctz(uint32_t x)
{
#ifdef __CUDA_ARCH__
    return __ffs((int)x) - 1;
#else
    return __builtin_ctz(x);
#endif
}

/* Limb i of p (32-bit). */
GS_DS_FN uint32_t gs_ds_p(int i)
{
    const uint64_t p64[6] = GS_FPC_P;
    return (uint32_t)(p64[i >> 1] >> (32 * (i & 1)));
}

/* Limb i of a 12-limb two's complement number as a signed 64-bit value
 * (limbs below the top are unsigned; the top carries the sign). */
GS_DS_FN int64_t gs_ds_limb(const uint32_t *x, int i)
{
    return i == 11 ? (int64_t)(int32_t)x[i] : (int64_t)x[i];
}

/* out = (u x + v y) / 2^N.  modp 0: exact (the low N bits of u x + v y
 * are 0; f and g).  modp 1: mod p, by adding the m p (m < 2^N) that clears
 * the low N bits, |out| < 2p from |x|, |y| < p (d and e). */
GS_DS_FN void gs_ds_apply(uint32_t *out, const uint32_t *x, const uint32_t *y, int32_t u, int32_t v, int modp)
{
    const uint64_t n064 = GS_FPC_N0; /* -p^-1 mod 2^64 */
    const uint32_t mask = (1u << GS_DS_N) - 1;
    int64_t c = (int64_t)u * gs_ds_limb(x, 0) + (int64_t)v * gs_ds_limb(y, 0);
    const uint32_t m = modp ? ((uint32_t)c * (uint32_t)n064) & mask : 0;
    uint32_t lo = 0;
    for (int i = 0; i < 12; i++) {
        if (i > 0) c += (int64_t)u * gs_ds_limb(x, i) + (int64_t)v * gs_ds_limb(y, i);
        c += (int64_t)((uint64_t)m * gs_ds_p(i));
        uint32_t w = (uint32_t)c;
        c >>= 32; /* arithmetic: the sign goes on up */
        if (i > 0) out[i - 1] = (lo >> GS_DS_N) | (w << (32 - GS_DS_N));
        lo = w;
    }
    out[11] = (lo >> GS_DS_N) | ((uint32_t)c << (32 - GS_DS_N));
}

/* x += s p (s = 1 or -1), modulo 2^384. */
GS_DS_FN void gs_ds_add_p(uint32_t *x, int s)
{
    int64_t c = 0;
    for (int i = 0; i < 12; i++) {
        c += (int64_t)x[i] + s * (int64_t)gs_ds_p(i);
        x[i] = (uint32_t)c;
        c >>= 32;
    }
}

/* x +- p into (-p, p) from (-2p, 2p): + p when negative, - p otherwise. */
GS_DS_FN void gs_ds_fold(uint32_t *x) { gs_ds_add_p(x, (int32_t)x[11] < 0 ? 1 : -1); }

GS_DS_FN int gs_ds_is_zero(const uint32_t *x)
{
    uint32_t acc = 0;
    for (int i = 0; i < 12; i++) acc |= x[i];
    return acc == 0;
}

/* out = a^-1 mod p in [0, p); 1, or 0 (out = 0) when a = 0 mod p. */
GS_DS_FN int gs_fp_inv_divsteps(uint32_t out[12], const uint32_t a[12])
{
    uint32_t f[12], g[12], d[12], e[12], t[12];
    for (int i = 0; i < 12; i++) {
        f[i] = gs_ds_p(i);
        g[i] = a[i];
        d[i] = 0;
        e[i] = 0;
    }
    e[0] = 1;
    int delta = 1;
    for (int b = 0; b < GS_DS_MAXB && !gs_ds_is_zero(g); b++) {
        uint32_t fl = f[0], gl = g[0];
        int32_t u = 1, v = 0, q = 0, r = 1;
        for (int i = 0; i < GS_DS_N;) {
            /* The even steps at once: g's trailing zeros, at most the steps left
             * (the bit at N - i stops the count; it is valid: N - i < 32 - i). */
            const int z = gs_ds_ctz(gl | (1u << (GS_DS_N - i)));
            gl >>= z;
            u *= 1 << z;
            v *= 1 << z;
            delta += z;
            i += z;
            if (i == GS_DS_N) break;
            /* g odd. */
            if (delta > 0) {
                /* (f, g) <- (g, g - f); (u, v) <- (q, r), (q, r) <- (q - u, r - v) */
                const uint32_t tf = fl;
                const int32_t tu = u, tv = v;
                delta = -delta;
                fl = gl;
                gl -= tf;
                u = q;
                v = r;
                q -= tu;
                r -= tv;
            } else {
                gl += fl;
                q += u;
                r += v;
            }
            delta++;
            gl >>= 1;
            u *= 2;
            v *= 2;
            i++;
        }
        gs_ds_apply(t, f, g, u, v, 0);
        gs_ds_apply(g, f, g, q, r, 0);
        for (int i = 0; i < 12; i++) f[i] = t[i];
        gs_ds_apply(t, d, e, u, v, 1);
        gs_ds_apply(e, d, e, q, r, 1);
        gs_ds_fold(e);
        gs_ds_fold(t);
        for (int i = 0; i < 12; i++) d[i] = t[i];
    }
    /* f = +-1 when a was invertible (and g reached 0). */
    int one = gs_ds_is_zero(g) && f[0] == 1, mone = gs_ds_is_zero(g) && f[0] == 0xffffffffu;
    for (int i = 1; i < 12; i++) {
        one = one && f[i] == 0;
        mone = mone && f[i] == 0xffffffffu;
    }
    if (!one && !mone) {
        for (int i = 0; i < 12; i++) out[i] = 0;
        return 0;
    }
    /* out = f d mod p, d in (-p, p). */
    if (mone) {
        int64_t c = 0;
        for (int i = 0; i < 12; i++) {
            c += -(int64_t)d[i];
            d[i] = (uint32_t)c;
            c >>= 32;
        }
    }
    if ((int32_t)d[11] < 0) gs_ds_add_p(d, 1);
    for (int i = 0; i < 12; i++) out[i] = d[i];
    return 1;
}

#endif
