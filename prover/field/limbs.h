/*
 * Internal to prover/field: multi-precision helpers on little-endian 64-bit
 * limbs, written once for any limb count N and instantiated by fp.c (N = 6)
 * and fr.c (N = 4).  Every function is static inline and N is a compile-time
 * constant at each call site, so the compiler fully unrolls the loops
 * (GS_UNROLL) and Fp/Fr get fixed-size straight-line code.
 *
 * Montgomery multiplication is CIOS (Koc, Acar, Kaliski, "Analyzing and
 * comparing Montgomery multiplication algorithms", IEEE Micro 1996, section
 * 5).  Both moduli leave at least one spare bit in the top limb, so a CIOS
 * result is < 2m and one conditional subtraction reduces it.
 *
 * Functions without _var do not branch on limb values (masks only).
 * Not part of the public contract: include only from the .c files of prover/field.
 */
#ifndef GS_FIELD_LIMBS_H
#define GS_FIELD_LIMBS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define GS_UNROLL _Pragma("GCC unroll 8")

/*
 * VERIFY builds (make VERIFY=1) check the representation invariant: every
 * element handed to or returned by the arithmetic is below its modulus.
 */
#ifdef GS_VERIFY
#include <stdio.h>
#include <stdlib.h>
#define GS_VERIFY_REDUCED(x, m, n)                                               \
    do {                                                                         \
        if (!lb_lt((x), (m), (n))) {                                             \
            fprintf(stderr, "field: unreduced element @ %s:%d\n", __FILE__, __LINE__); \
            abort();                                                             \
        }                                                                        \
    } while (0)
#else
#define GS_VERIFY_REDUCED(x, m, n) ((void)0)
#endif
#define GS_LB_MAX 8

typedef unsigned __int128 gs_u128;

#if defined(__x86_64__)
#include <immintrin.h>
/* (carry, sum) = a + b + carry_in; carry is 0 or 1 (compiles to adc). */
static inline uint64_t lb_adc(uint64_t a, uint64_t b, uint64_t *carry)
{
    unsigned long long r;
    *carry = _addcarry_u64((unsigned char)*carry, a, b, &r);
    return (uint64_t)r;
}

/* (borrow, diff) = a - b - borrow_in; borrow is 0 or 1 (compiles to sbb). */
static inline uint64_t lb_sbb(uint64_t a, uint64_t b, uint64_t *borrow)
{
    unsigned long long r;
    *borrow = _subborrow_u64((unsigned char)*borrow, a, b, &r);
    return (uint64_t)r;
}
#else
/* (carry, sum) = a + b + carry_in; carry is 0 or 1. */
static inline uint64_t lb_adc(uint64_t a, uint64_t b, uint64_t *carry)
{
    gs_u128 t = (gs_u128)a + b + *carry;
    *carry = (uint64_t)(t >> 64);
    return (uint64_t)t;
}

/* (borrow, diff) = a - b - borrow_in; borrow is 0 or 1. */
static inline uint64_t lb_sbb(uint64_t a, uint64_t b, uint64_t *borrow)
{
    gs_u128 t = (gs_u128)a - b - *borrow;
    *borrow = (uint64_t)(t >> 64) & 1;
    return (uint64_t)t;
}
#endif

/* out = a + b; returns the carry. */
static inline uint64_t lb_add(uint64_t *out, const uint64_t *a, const uint64_t *b, int n)
{
    uint64_t c = 0;
    GS_UNROLL for (int i = 0; i < n; i++) out[i] = lb_adc(a[i], b[i], &c);
    return c;
}

/* out = a - b; returns the borrow. */
static inline uint64_t lb_sub(uint64_t *out, const uint64_t *a, const uint64_t *b, int n)
{
    uint64_t c = 0;
    GS_UNROLL for (int i = 0; i < n; i++) out[i] = lb_sbb(a[i], b[i], &c);
    return c;
}

/* out = mask ? a : b, mask all-ones or zero. */
static inline void lb_select(uint64_t *out, uint64_t mask, const uint64_t *a,
                             const uint64_t *b, int n)
{
    GS_UNROLL for (int i = 0; i < n; i++) out[i] = (a[i] & mask) | (b[i] & ~mask);
}

/* 1 if a < m (a plain integer compared with the modulus). */
static inline int lb_lt(const uint64_t *a, const uint64_t *m, int n)
{
    uint64_t t[GS_LB_MAX];
    return (int)lb_sub(t, a, m, n);
}

static inline int lb_is_zero(const uint64_t *a, int n)
{
    uint64_t acc = 0;
    GS_UNROLL for (int i = 0; i < n; i++) acc |= a[i];
    return (int)(((acc | (0 - acc)) >> 63) ^ 1);
}

static inline int lb_eq(const uint64_t *a, const uint64_t *b, int n)
{
    uint64_t acc = 0;
    GS_UNROLL for (int i = 0; i < n; i++) acc |= a[i] ^ b[i];
    return (int)(((acc | (0 - acc)) >> 63) ^ 1);
}

/* out = a + b mod m, a, b < m, m with a spare top bit. */
static inline void lb_mod_add(uint64_t *out, const uint64_t *a, const uint64_t *b,
                              const uint64_t *m, int n)
{
    uint64_t s[GS_LB_MAX], d[GS_LB_MAX];
    lb_add(s, a, b, n);
    uint64_t borrow = lb_sub(d, s, m, n);
    lb_select(out, 0 - borrow, s, d, n);
}

/* out = a - b mod m. */
static inline void lb_mod_sub(uint64_t *out, const uint64_t *a, const uint64_t *b,
                              const uint64_t *m, int n)
{
    uint64_t d[GS_LB_MAX], mm[GS_LB_MAX];
    uint64_t borrow = lb_sub(d, a, b, n);
    uint64_t mask = 0 - borrow;
    GS_UNROLL for (int i = 0; i < n; i++) mm[i] = m[i] & mask;
    lb_add(out, d, mm, n);
}

/* out = -a mod m (0 stays 0). */
static inline void lb_mod_neg(uint64_t *out, const uint64_t *a, const uint64_t *m, int n)
{
    uint64_t d[GS_LB_MAX];
    uint64_t nz = (uint64_t)0 - (uint64_t)(1 - lb_is_zero(a, n));
    lb_sub(d, m, a, n);
    GS_UNROLL for (int i = 0; i < n; i++) out[i] = d[i] & nz;
}

/*
 * out = a * b * 2^(-64n) mod m (CIOS).  Requires a * b < 2^(64n) * m, true
 * for reduced inputs; also used with a < 2^(64n), b < m (wide reduction).
 */
static inline void lb_mont_mul(uint64_t *out, const uint64_t *a, const uint64_t *b,
                               const uint64_t *m, uint64_t n0, int n)
{
    uint64_t t[GS_LB_MAX + 2] = {0};
    GS_UNROLL for (int i = 0; i < n; i++) {
        uint64_t c = 0;
        GS_UNROLL for (int j = 0; j < n; j++) {
            gs_u128 x = (gs_u128)a[j] * b[i] + t[j] + c;
            t[j] = (uint64_t)x;
            c = (uint64_t)(x >> 64);
        }
        gs_u128 x = (gs_u128)t[n] + c;
        t[n] = (uint64_t)x;
        t[n + 1] = (uint64_t)(x >> 64);

        uint64_t q = t[0] * n0;
        x = (gs_u128)q * m[0] + t[0];
        c = (uint64_t)(x >> 64);
        GS_UNROLL for (int j = 1; j < n; j++) {
            x = (gs_u128)q * m[j] + t[j] + c;
            t[j - 1] = (uint64_t)x;
            c = (uint64_t)(x >> 64);
        }
        x = (gs_u128)t[n] + c;
        t[n - 1] = (uint64_t)x;
        t[n] = t[n + 1] + (uint64_t)(x >> 64);
    }
    /* t < 2m < 2^(64n) (m has a spare bit), so t[n] = 0: subtract m once
     * unless that borrows. */
    uint64_t d[GS_LB_MAX];
    uint64_t borrow = lb_sub(d, t, m, n);
    lb_select(out, 0 - borrow, t, d, n);
}

/* Plain little-endian limbs <-> bytes. */
static inline void lb_to_bytes_le(uint8_t *out, const uint64_t *a, int n)
{
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 8; k++) out[8 * i + k] = (uint8_t)(a[i] >> (8 * k));
}

static inline void lb_from_bytes_le(uint64_t *out, const uint8_t *in, int n)
{
    for (int i = 0; i < n; i++) {
        uint64_t v = 0;
        for (int k = 7; k >= 0; k--) v = (v << 8) | in[8 * i + k];
        out[i] = v;
    }
}

static inline void lb_reverse_bytes(uint8_t *out, const uint8_t *in, size_t len)
{
    uint8_t tmp[GS_LB_MAX * 8];
    memcpy(tmp, in, len);
    for (size_t i = 0; i < len; i++) out[i] = tmp[len - 1 - i];
}

/* Shift right by one bit, with the bit `top` shifted into the top limb. */
static inline void lb_shr1(uint64_t *a, uint64_t top, int n)
{
    for (int i = 0; i < n - 1; i++) a[i] = (a[i] >> 1) | (a[i + 1] << 63);
    a[n - 1] = (a[n - 1] >> 1) | (top << 63);
}

/* 1 if a >= b (variable time). */
static inline int lb_geq_var(const uint64_t *a, const uint64_t *b, int n)
{
    for (int i = n - 1; i >= 0; i--) {
        if (a[i] != b[i]) return a[i] > b[i];
    }
    return 1;
}

static inline int lb_is_one_var(const uint64_t *a, int n)
{
    if (a[0] != 1) return 0;
    for (int i = 1; i < n; i++)
        if (a[i]) return 0;
    return 1;
}

/* One step of lb_inv_plain_var: while u is even, u = u / 2 and
 * x = x / 2 mod m (x + m when x is odd, so the sum is even). */
static inline void lb_inv_halve_var(uint64_t *u, uint64_t *x, const uint64_t *m, int n)
{
    while ((u[0] & 1) == 0) {
        lb_shr1(u, 0, n);
        if (x[0] & 1) {
            uint64_t c = lb_add(x, x, m, n);
            lb_shr1(x, c, n);
        } else {
            lb_shr1(x, 0, n);
        }
    }
}

/*
 * out = a^-1 mod m for plain a (0 < a < m, m odd prime), by the binary
 * extended Euclidean algorithm (Menezes et al., Handbook of Applied
 * Cryptography, algorithm 14.61 in its "u, v, x1, x2" form; variable time).
 * Requires 2m < 2^(64n).  out = 0 when a = 0.
 */
static inline void lb_inv_plain_var(uint64_t *out, const uint64_t *a, const uint64_t *m, int n)
{
    uint64_t u[GS_LB_MAX], v[GS_LB_MAX], x1[GS_LB_MAX] = {0}, x2[GS_LB_MAX] = {0};
    if (lb_is_zero(a, n)) {
        memset(out, 0, (size_t)n * 8);
        return;
    }
    memcpy(u, a, (size_t)n * 8);
    memcpy(v, m, (size_t)n * 8);
    x1[0] = 1;
    while (!lb_is_one_var(u, n) && !lb_is_one_var(v, n)) {
        lb_inv_halve_var(u, x1, m, n);
        lb_inv_halve_var(v, x2, m, n);
        if (lb_geq_var(u, v, n)) {
            lb_sub(u, u, v, n);
            lb_mod_sub(x1, x1, x2, m, n);
        } else {
            lb_sub(v, v, u, n);
            lb_mod_sub(x2, x2, x1, m, n);
        }
    }
    memcpy(out, lb_is_one_var(u, n) ? x1 : x2, (size_t)n * 8);
}

/*
 * The same inverse, about 2.7x faster at N = 6 (field/fp_inv_var 6.5 ->
 * 2.4 us on the 2-core EPYC of bench/RESULTS.md): Pornin's optimized binary GCD (T. Pornin,
 * "Optimized Binary GCD for Modular Inversion", eprint 2020/972, algorithm
 * 2), variable time.  a, b start as the input and m (b stays odd), u, v as
 * 1, 0, with u y = a and v y = b (mod m) throughout.  Each round runs
 * LB_INV_K binary-GCD steps (b odd: if a is odd, swap so that a >= b and
 * subtract; then halve a) on 64-bit stand-ins for a and b, their low
 * LB_INV_K bits and the top 64 - LB_INV_K bits at their common length (the
 * exact values once both fit a word); the steps are recorded as a matrix
 * (f0 g0; f1 g1) and applied once to the full a, b, which it leaves
 * divisible by 2^LB_INV_K, and to u, v with a Montgomery division by
 * 2^LB_INV_K (so the invariants keep no extra power of 2).  When a = 0,
 * b = gcd = 1 and v = y^-1.  The stand-ins may pick a step that the full
 * numbers would not; a then comes out negative and is negated with its row
 * (the paper's bound on the rounds still holds).  Returns 0, leaving out
 * unset, if a bound checked here fails (never seen; the caller falls back
 * to lb_inv_plain_var).  a < m nonzero, m odd, n0 = -m^-1 mod 2^64.
 */
#define LB_INV_K 31

/* t[0 .. n] = f a + g b, two's complement; |f|, |g| <= 2^33. */
static inline void lb_lincomb_var(uint64_t *t, const uint64_t *a, const uint64_t *b, int64_t f,
                                  int64_t g, int n)
{
    __int128 c = 0;
    GS_UNROLL
    for (int i = 0; i < n; i++) {
        c += (__int128)f * (__int128)a[i] + (__int128)g * (__int128)b[i];
        t[i] = (uint64_t)c;
        c >>= 64;
    }
    t[n] = (uint64_t)c;
}

/* t[0 .. n] >>= k, arithmetic, 0 < k < 64. */
static inline void lb_sar_var(uint64_t *t, unsigned k, int n)
{
    GS_UNROLL
    for (int i = 0; i < n; i++)
        t[i] = (t[i] >> k) | (t[i + 1] << (64 - k));
    t[n] = (uint64_t)((int64_t)t[n] >> k);
}

/* t[0 .. n] = -t[0 .. n] if negative; returns 1 if it was. */
static inline int lb_abs_var(uint64_t *t, int n)
{
    if (!(t[n] >> 63))
        return 0;
    uint64_t c = 1;
    for (int i = 0; i <= n; i++) {
        t[i] = ~t[i] + c;
        c = c && t[i] == 0;
    }
    return 1;
}

/* out = (f u + g v) / 2^LB_INV_K mod m, for u, v < m. */
static inline void lb_inv_mont_lincomb_var(uint64_t *out, const uint64_t *u, const uint64_t *v,
                                           int64_t f, int64_t g, const uint64_t *m, uint64_t n0,
                                           int n)
{
    uint64_t t[GS_LB_MAX + 1];
    lb_lincomb_var(t, u, v, f, g, n);
    uint64_t q = (t[0] * n0) & ((1ull << LB_INV_K) - 1);  /* t + q m = 0 mod 2^K */
    gs_u128 c = 0;
    for (int i = 0; i < n; i++) {
        c += (gs_u128)q * m[i] + t[i];
        t[i] = (uint64_t)c;
        c >>= 64;
    }
    t[n] += (uint64_t)c;
    lb_sar_var(t, LB_INV_K, n);                           /* |t| < 5m */
    while (t[n] >> 63) {
        uint64_t k = 0;
        for (int i = 0; i < n; i++)
            t[i] = lb_adc(t[i], m[i], &k);
        t[n] += k;
    }
    while (t[n] || lb_geq_var(t, m, n)) {
        uint64_t k = 0;
        for (int i = 0; i < n; i++)
            t[i] = lb_sbb(t[i], m[i], &k);
        t[n] -= k;
    }
    memcpy(out, t, (size_t)n * 8);
}

static inline int lb_inv_pornin_var(uint64_t *out, const uint64_t *y, const uint64_t *m,
                                    uint64_t n0, int n)
{
    uint64_t a[GS_LB_MAX + 1], b[GS_LB_MAX + 1], u[GS_LB_MAX], v[GS_LB_MAX];
    uint64_t ta[GS_LB_MAX + 1], tb[GS_LB_MAX + 1];
    const uint64_t low = (1ull << LB_INV_K) - 1;
    memcpy(a, y, (size_t)n * 8);
    memcpy(b, m, (size_t)n * 8);
    memset(u, 0, (size_t)n * 8);
    memset(v, 0, (size_t)n * 8);
    u[0] = 1;
    /* The paper's bound: 2 len(m) - 1 steps in all; twice that here. */
    int rounds = 2 * (2 * 64 * n / LB_INV_K + 1);
    for (int r = 0; r < rounds; r++) {
        if (lb_is_zero(a, n)) {
            if (!lb_is_one_var(b, n))
                return 0;
            memcpy(out, v, (size_t)n * 8);
            return 1;
        }
        int top = n - 1;
        while (top > 0 && (a[top] | b[top]) == 0)
            top--;
        uint64_t xa = a[0], xb = b[0];
        if (top > 0) {
            int lz = __builtin_clzll(a[top] | b[top]);
            uint64_t ha = a[top] << lz, hb = b[top] << lz;
            if (lz) {
                ha |= a[top - 1] >> (64 - lz);
                hb |= b[top - 1] >> (64 - lz);
            }
            xa = (ha & ~low) | (a[0] & low);
            xb = (hb & ~low) | (b[0] & low);
        }
        uint64_t f0 = 1, g0 = 0, f1 = 0, g1 = 1;          /* int64 bit patterns */
        for (int i = 0; i < LB_INV_K; i++) {
            uint64_t odd = 0 - (xa & 1);
            uint64_t sw = odd & (0 - (uint64_t)(xa < xb));
            uint64_t d = (xa ^ xb) & sw;
            xa ^= d;
            xb ^= d;
            d = (f0 ^ f1) & sw;
            f0 ^= d;
            f1 ^= d;
            d = (g0 ^ g1) & sw;
            g0 ^= d;
            g1 ^= d;
            xa -= xb & odd;
            f0 -= f1 & odd;
            g0 -= g1 & odd;
            xa >>= 1;
            f1 += f1;
            g1 += g1;
        }
        int64_t F0 = (int64_t)f0, G0 = (int64_t)g0, F1 = (int64_t)f1, G1 = (int64_t)g1;
        lb_lincomb_var(ta, a, b, F0, G0, n);
        lb_lincomb_var(tb, a, b, F1, G1, n);
        lb_sar_var(ta, LB_INV_K, n);
        lb_sar_var(tb, LB_INV_K, n);
        if (lb_abs_var(ta, n)) {
            F0 = -F0;
            G0 = -G0;
        }
        if (lb_abs_var(tb, n)) {
            F1 = -F1;
            G1 = -G1;
        }
        if (ta[n] || tb[n] || !(tb[0] & 1))
            return 0;
        memcpy(a, ta, (size_t)n * 8);
        memcpy(b, tb, (size_t)n * 8);
        uint64_t nu[GS_LB_MAX];
        lb_inv_mont_lincomb_var(nu, u, v, F0, G0, m, n0, n);
        lb_inv_mont_lincomb_var(v, u, v, F1, G1, m, n0, n);
        memcpy(u, nu, (size_t)n * 8);
    }
    return 0;
}

/*
 * Decimal text of a plain n-limb integer: repeated division by 10^19.
 * Writes at most len bytes including the terminator (truncating, still
 * terminated, if len is too small; callers size buf per field.h).
 */
static inline void lb_to_dec(char *buf, size_t len, const uint64_t *a, int n)
{
    uint64_t x[GS_LB_MAX];
    char tmp[GS_LB_MAX * 20 + 2];
    size_t pos = sizeof tmp;
    const uint64_t base = 10000000000000000000ULL;
    if (len == 0) return;
    memcpy(x, a, (size_t)n * 8);
    tmp[--pos] = 0;
    do {
        uint64_t rem = 0;
        for (int i = n - 1; i >= 0; i--) {
            gs_u128 cur = ((gs_u128)rem << 64) | x[i];
            x[i] = (uint64_t)(cur / base);
            rem = (uint64_t)(cur % base);
        }
        int zero = lb_is_zero(x, n);
        for (int k = 0; k < 19; k++) {
            tmp[--pos] = (char)('0' + rem % 10);
            rem /= 10;
            if (zero && rem == 0) break;
        }
        if (zero) break;
    } while (1);
    size_t dl = sizeof tmp - 1 - pos;
    if (dl > len - 1) dl = len - 1;
    memcpy(buf, tmp + pos, dl);
    buf[dl] = 0;
}

/*
 * Parses a non-empty string of ASCII decimal digits (no sign, no spaces;
 * leading zeros allowed) into n plain limbs.  Returns 0 if malformed or if
 * the value does not fit n limbs.
 */
static inline int lb_from_dec(uint64_t *out, const char *s, int n)
{
    uint64_t x[GS_LB_MAX] = {0};
    if (!s || !*s) return 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return 0;
        uint64_t c = (uint64_t)(*s - '0');
        for (int i = 0; i < n; i++) {
            gs_u128 cur = (gs_u128)x[i] * 10 + c;
            x[i] = (uint64_t)cur;
            c = (uint64_t)(cur >> 64);
        }
        if (c) return 0;
    }
    memcpy(out, x, (size_t)n * 8);
    return 1;
}

#endif
