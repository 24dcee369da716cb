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
        while ((u[0] & 1) == 0) {
            lb_shr1(u, 0, n);
            if (x1[0] & 1) {
                uint64_t c = lb_add(x1, x1, m, n);
                lb_shr1(x1, c, n);
            } else {
                lb_shr1(x1, 0, n);
            }
        }
        while ((v[0] & 1) == 0) {
            lb_shr1(v, 0, n);
            if (x2[0] & 1) {
                uint64_t c = lb_add(x2, x2, m, n);
                lb_shr1(x2, c, n);
            } else {
                lb_shr1(x2, 0, n);
            }
        }
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
