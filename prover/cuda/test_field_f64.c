/*
 * The FP64-pipe Fp multiplication (cu_field_f64.h, the knob msm_fmul) on
 * the host, no GPU: the same code the device runs, with each fused
 * multiply-add's rounding emulated exactly (gs_f48_fma_host), against
 *   - the word Montgomery multiplication fe_mul_lz computes (CIOS on
 *     32-bit words without the final subtraction, written out below:
 *     (a b + M p) / 2^384 with the same unique M), bit for bit;
 *   - the CPU field (prover/field's gs_fp_mul, 64-bit limbs, R = 2^384 too)
 *     after reducing inputs and result mod p;
 *   - the lazy bound r < 2p for a, b < 2p.
 * Inputs: the edges 0, 1, p - 1, p, p + 1, 2p - 1, 2^381 - 1, R mod p,
 * halves of all ones (the low six words; every word below 2p's top), every
 * pair of them, and seeded random pairs below 2p (uniform words, and limbs
 * drawn from {0, all ones, random} to hit the carries).  And the emulation
 * itself against the C library's fma() under fesetround.
 */
#define _GNU_SOURCE
#include <fenv.h>
#include <math.h>
#include <string.h>

#include "../../test/test.h"
#include "../field/field.h"
#include "cu_field_f64.h"

static const uint32_t P32[12] = {0xffffaaabu, 0xb9feffffu, 0xb153ffffu, 0x1eabfffeu, 0xf6b0f624u, 0x6730d2a0u,
                                 0xf38512bfu, 0x64774b84u, 0x434bacd7u, 0x4b1ba7b6u, 0x397fe69au, 0x1a0111eau};
#define N0_32 0xfffcfffdu /* -p^-1 mod 2^32 */
#define TOP2P 0x340223d4u /* 2p's top word, rounded up: words[11] < it keeps a < 2p */

/* r = (a b + M p) / 2^384 by CIOS on 32-bit words, no final subtraction
 * (the value fe_mul_cios / fe_mul_ps / fe_mul_lz return). */
static void mont_words(uint32_t r[12], const uint32_t a[12], const uint32_t b[12])
{
    uint32_t t[14] = {0};
    for (int i = 0; i < 12; i++) {
        uint64_t c = 0;
        for (int j = 0; j < 12; j++) {
            uint64_t s = (uint64_t)a[j] * b[i] + t[j] + c;
            t[j] = (uint32_t)s;
            c = s >> 32;
        }
        uint64_t s = (uint64_t)t[12] + c;
        t[12] = (uint32_t)s;
        t[13] = (uint32_t)(s >> 32);
        uint32_t m = t[0] * N0_32;
        c = ((uint64_t)m * P32[0] + t[0]) >> 32;
        for (int j = 1; j < 12; j++) {
            s = (uint64_t)m * P32[j] + t[j] + c;
            t[j - 1] = (uint32_t)s;
            c = s >> 32;
        }
        s = (uint64_t)t[12] + c;
        t[11] = (uint32_t)s;
        t[12] = t[13] + (uint32_t)(s >> 32);
    }
    GS_CHECK(t[12] == 0);
    memcpy(r, t, 48);
}

/* a >= b as 12-word integers. */
static int geq(const uint32_t a[12], const uint32_t b[12])
{
    for (int i = 11; i >= 0; i--)
        if (a[i] != b[i]) return a[i] > b[i];
    return 1;
}

/* r = a - b (12 words, a >= b). */
static void sub12(uint32_t r[12], const uint32_t a[12], const uint32_t b[12])
{
    uint64_t br = 0;
    for (int i = 0; i < 12; i++) {
        uint64_t d = (uint64_t)a[i] - b[i] - br;
        r[i] = (uint32_t)d;
        br = (d >> 32) & 1;
    }
}

/* a mod p for a < 4p (by subtraction), as a gs_fp's limbs (the raw Montgomery form). */
static void to_fp(gs_fp *f, const uint32_t a[12])
{
    uint32_t t[12];
    memcpy(t, a, sizeof t);
    while (geq(t, P32)) sub12(t, t, P32);
    for (int i = 0; i < 6; i++) f->l[i] = t[2 * i] | (uint64_t)t[2 * i + 1] << 32;
}

/* 2p as words. */
static void two_p(uint32_t r[12])
{
    uint32_t c = 0;
    for (int i = 0; i < 12; i++) {
        r[i] = (P32[i] << 1) | c;
        c = P32[i] >> 31;
    }
}

/* One pair: f64 vs words (bit for bit), the lazy bound (lazy_in: a, b <
 * 2p, so r < 2p), and r = a b R^-1 mod p by the CPU field.  Inputs below
 * 2^382 (< 2.5p): to_fp reduces them and r (< 2^380 + p) by subtraction.
 * Returns 1 when all agree. */
static int check_pair(const uint32_t a[12], const uint32_t b[12], int lazy_in)
{
    uint32_t rf[12], rw[12], p2[12];
    gs_f48_mont_mul(rf, a, b);
    mont_words(rw, a, b);
    int ok = memcmp(rf, rw, sizeof rf) == 0;
    two_p(p2);
    if (lazy_in && geq(rf, p2)) ok = 0;
    gs_fp fa, fb, fr, fo;
    to_fp(&fa, a);
    to_fp(&fb, b);
    gs_fp_mul(&fr, &fa, &fb);
    to_fp(&fo, rf);
    return ok && memcmp(&fo, &fr, sizeof fo) == 0;
}

static void edge(uint32_t w[12], int e)
{
    memset(w, 0, 48);
    switch (e) {
    case 0: break;                                   /* 0 */
    case 1: w[0] = 1; break;                         /* 1 */
    case 2: memcpy(w, P32, 48); w[0] -= 1; break;    /* p - 1 */
    case 3: memcpy(w, P32, 48); break;               /* p */
    case 4: memcpy(w, P32, 48); w[0] += 1; break;    /* p + 1 */
    case 5: two_p(w); w[0] -= 1; break;              /* 2p - 1 (2p is even: no borrow) */
    case 6: for (int i = 0; i < 11; i++) w[i] = 0xffffffffu; w[11] = 0x1fffffffu; break; /* 2^381 - 1 */
    case 7: for (int i = 0; i < 6; i++) w[i] = 0xffffffffu; break;                        /* low half */
    case 8: for (int i = 6; i < 11; i++) w[i] = 0xffffffffu; w[11] = TOP2P - 1; break;   /* high half */
    case 9: for (int i = 0; i < 11; i++) w[i] = 0xffffffffu; w[11] = TOP2P - 1; break;   /* all ones < 2p */
    default: { /* R mod p (Montgomery 1) */
        static const uint32_t one[12] = {0x0002fffdu, 0x76090000u, 0xc40c0002u, 0xebf4000bu, 0x53c758bau,
                                         0x5f489857u, 0x70525745u, 0x77ce5853u, 0xa256ec6du, 0x5c071a97u,
                                         0xfa80e493u, 0x15f65ec3u};
        memcpy(w, one, 48);
    }
    }
}
#define NEDGES 11

/* Random a < 2p: uniform words (kind 0), or 48-bit limbs each 0, all
 * ones or random (kind 1). */
static void rand_lazy(uint32_t w[12], gs_rng *rng, int kind)
{
    if (kind == 0) {
        for (int i = 0; i < 12; i++) w[i] = (uint32_t)gs_rng_u64(rng);
    } else {
        uint64_t l[8];
        for (int k = 0; k < 8; k++) {
            uint64_t s = gs_rng_below(rng, 3);
            l[k] = s == 0 ? 0 : s == 1 ? GS_F48_M48 : gs_rng_u64(rng) & GS_F48_M48;
        }
        for (int k = 0; k < 4; k++) {
            w[3 * k] = (uint32_t)l[2 * k];
            w[3 * k + 1] = (uint32_t)(l[2 * k] >> 32) | (uint32_t)(l[2 * k + 1] << 16);
            w[3 * k + 2] = (uint32_t)(l[2 * k + 1] >> 16);
        }
    }
    if (w[11] >= TOP2P) w[11] %= TOP2P;
}

GS_TEST(field_f64_fma_emulation)
{
    /* The host form's rounding against fma() in the two modes the
     * multiplication uses, on its operand shapes (48-bit limbs, the
     * constants 2^100 and (2^100 + 2^52) - h). */
    gs_rng *rng = gs_test_rng();
    int n = gs_test_quick() ? 2000 : 20000, bad = 0, differ = 0;
    int old = fegetround();
    for (int i = 0; i < n; i++) {
        volatile double x = (double)(gs_rng_u64(rng) & GS_F48_M48), y = (double)(gs_rng_u64(rng) & GS_F48_M48);
        if (i < 4) x = i < 2 ? 281474976710655.0 : 0.0; /* 2^48 - 1, 0 */
        volatile double z = GS_F48_C100;
        fesetround(FE_TOWARDZERO);
        volatile double h = fma(x, y, z);
        fesetround(FE_TONEAREST);
        volatile double hn = fma(x, y, z);
        volatile double w = GS_F48_C100_52 - h;
        volatile double l = fma(x, y, w);
        if (h != gs_f48_fma_host(x, y, z, 1) || hn != gs_f48_fma_host(x, y, z, 0) ||
            l != gs_f48_fma_host(x, y, w, 0) || l != gs_f48_fma_host(x, y, w, 1))
            bad++;
        if (h != hn) differ++;
        /* The halves' patterns: h - 2^100 = floor(x y / 2^48) 2^48, l - 2^52 = x y mod 2^48. */
        unsigned __int128 xy = (unsigned __int128)(uint64_t)x * (uint64_t)y;
        if ((gs_f48_bits(h) - GS_F48_K100) != (uint64_t)(xy >> 48) ||
            (gs_f48_bits(l) - GS_F48_K52) != (uint64_t)(xy & GS_F48_M48))
            bad++;
    }
    fesetround(old);
    GS_CHECK_MSG(bad == 0, "%d of %d emulated FMAs differ from fma() / the exact halves", bad, n);
    GS_CHECK_MSG(differ > n / 4, "round toward zero and to nearest differed only %d times of %d", differ, n);
}

GS_TEST(field_f64_mont_vs_words)
{
    gs_rng *rng = gs_test_rng();
    uint32_t a[12], b[12];
    int bad = 0, pairs = 0;
    /* The header's constants: p's 48-bit limbs and -p^-1 mod 2^48. */
    double pd[8];
    gs_f48_split(pd, P32);
    for (int j = 0; j < 8; j++) GS_CHECK_MSG(pd[j] == gs_f48_p(j), "p limb %d", j);
    GS_CHECK(((((uint64_t)pd[0] * GS_F48_PINV) + 1) & GS_F48_M48) == 0);
    for (int e = 0; e < NEDGES; e++)
        for (int f = 0; f < NEDGES; f++) {
            edge(a, e);
            edge(b, f);
            pairs++;
            if (!check_pair(a, b, 1)) {
                if (bad++ < 3) gs_test_fail(__FILE__, __LINE__, "edges %d x %d differ", e, f);
            }
        }
    int n = gs_test_quick() ? 8000 : 40000;
    for (int i = 0; i < n; i++) {
        rand_lazy(a, rng, i & 1);
        if (i % 3 == 2) edge(b, (int)gs_rng_below(rng, NEDGES));
        else rand_lazy(b, rng, (i >> 1) & 1);
        pairs++;
        if (!check_pair(a, b, 1)) {
            if (bad++ < 3) gs_test_fail(__FILE__, __LINE__, "random pair %d differs", i);
        }
    }
    /* Beyond the lazy range (a, b < 2^382, the word form's result still
     * below 2^384): the same words all the same. */
    for (int i = 0; i < n / 8; i++) {
        for (int k = 0; k < 12; k++) {
            a[k] = (uint32_t)gs_rng_u64(rng);
            b[k] = (uint32_t)gs_rng_u64(rng);
        }
        a[11] &= 0x3fffffffu;
        b[11] &= 0x3fffffffu;
        pairs++;
        if (!check_pair(a, b, 0)) {
            if (bad++ < 3) gs_test_fail(__FILE__, __LINE__, "wide pair %d differs", i);
        }
    }
    GS_CHECK_MSG(bad == 0, "%d of %d pairs differ", bad, pairs);
    if (gs_test_verbose()) printf("  field_f64: %d pairs, %d differ\n", pairs, bad);
}
