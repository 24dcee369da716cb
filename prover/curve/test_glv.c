/* The GLV split of glv.h (the CUDA MSM's msm_glv runs the same function on
 * the device): its constants against |x| and 2^384 by exact integer
 * arithmetic (glv.h's gs_glv_mul), k = k1 + k2 X^2 with both halves below
 * 2^128 on edge and random scalars, and [k]P = [k1]P - [k2]phi(P) on
 * random points (the curve layer's arithmetic: independent of glv.h). */
#include "curve_internal.h"

#include <string.h>

#include "../../test/test.h"
#include "glv.h"

/* -1, 0, 1 as a <, =, > b (n limbs each). */
static int cmp_limbs(const uint32_t *a, const uint32_t *b, int n)
{
    for (int i = n - 1; i >= 0; i--)
        if (a[i] != b[i]) return a[i] > b[i] ? 1 : -1;
    return 0;
}

static void scalar_limbs(uint32_t out[8], const gs_scalar *s)
{
    for (int i = 0; i < 4; i++) {
        out[2 * i] = (uint32_t)s->l[i];
        out[2 * i + 1] = (uint32_t)(s->l[i] >> 32);
    }
}

static void limbs_scalar(gs_scalar *out, const uint32_t *v, int n)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < n; i++) out->l[i / 2] |= (uint64_t)v[i] << (32 * (i % 2));
}

/* D = X^2 and M = floor(2^384 / D): M D <= 2^384 < (M + 1) D. */
GS_TEST(curve_glv_constants)
{
    const uint32_t d[4] = GS_CC_GLV_D, m[9] = GS_CC_GLV_M;
    const uint32_t x[2] = { (uint32_t)GS_CC_X_ABS, (uint32_t)(GS_CC_X_ABS >> 32) };
    uint32_t x2[4], md[13], m1[9], m1d[13], two384[13] = { 0 };
    gs_glv_mul(x2, x, 2, x, 2);
    GS_CHECK(cmp_limbs(x2, d, 4) == 0);
    two384[12] = 1;
    gs_glv_mul(md, m, 9, d, 4);
    GS_CHECK(cmp_limbs(md, two384, 13) <= 0);
    memcpy(m1, m, sizeof m1);
    for (int i = 0; i < 9 && ++m1[i] == 0; i++) continue;
    gs_glv_mul(m1d, m1, 9, d, 4);
    GS_CHECK(cmp_limbs(m1d, two384, 13) > 0);
}

/* k = k1 + k2 D with k1 < D and k2 < 2^128 (k2 < D for k < r). */
static void check_split(const uint32_t k[8], int below_r)
{
    const uint32_t d[4] = GS_CC_GLV_D;
    uint32_t k1[4], k2[4], back[8];
    gs_glv_split(k1, k2, k);
    GS_CHECK(cmp_limbs(k1, d, 4) < 0);
    if (below_r) GS_CHECK(cmp_limbs(k2, d, 4) < 0);
    gs_glv_mul(back, k2, 4, d, 4);
    uint64_t carry = 0;
    for (int i = 0; i < 8; i++) {
        uint64_t t = (uint64_t)back[i] + (i < 4 ? k1[i] : 0) + carry;
        back[i] = (uint32_t)t;
        carry = t >> 32;
    }
    GS_CHECK_MSG(carry == 0 && cmp_limbs(back, k, 8) == 0, "k1 + k2 X^2 != k (k top limb %08x)", k[7]);
}

/* k += sign * a (8 limbs, a of n limbs), modulo 2^256. */
static void add_limbs(uint32_t k[8], const uint32_t *a, int n, int sign)
{
    uint64_t c = 0;
    for (int i = 0; i < 8; i++) {
        uint64_t ai = i < n ? a[i] : 0;
        uint64_t t = sign > 0 ? (uint64_t)k[i] + ai + c : (uint64_t)k[i] - ai - c;
        k[i] = (uint32_t)t;
        c = sign > 0 ? t >> 32 : (t >> 32) & 1;
    }
}

GS_TEST(curve_glv_split)
{
    const uint32_t d[4] = GS_CC_GLV_D, one[1] = { 1 };
    const uint64_t r64[4] = GS_CC_R;
    uint32_t k[8];
    gs_scalar s;
    /* Edges: 0, 1, D - 1, D, D + 1, 2 D - 1, 2^128 - 1, 2^128, r - D, r - 1
     * (k2 < D), and 2^255 - 1 (the largest the split takes). */
    for (int e = 0; e < 11; e++) {
        memset(k, 0, sizeof k);
        if (e >= 2 && e <= 5) add_limbs(k, d, 4, 1);
        if (e == 5) add_limbs(k, d, 4, 1);
        if (e == 6 || e == 7) k[4] = 1;
        if (e == 8 || e == 9) {
            memcpy(&s.l, r64, sizeof s.l);
            scalar_limbs(k, &s);
        }
        if (e == 8) add_limbs(k, d, 4, -1);
        if (e == 1 || e == 4) add_limbs(k, one, 1, 1);
        if (e == 2 || e == 5 || e == 6 || e == 9) add_limbs(k, one, 1, -1);
        if (e == 10) {
            memset(k, 0xff, sizeof k);
            k[7] = 0x7fffffffu;
        }
        check_split(k, e != 10);
    }
    for (int i = 0; i < 20000; i++) {
        gs_fr f;
        gs_fr_random(&f, gs_test_rng());
        gs_fr_to_scalar(&s, &f);
        scalar_limbs(k, &s);
        check_split(k, 1);
        for (int j = 0; j < 8; j++) k[j] = (uint32_t)gs_rng_u64(gs_test_rng());
        k[7] &= 0x7fffffffu;
        check_split(k, 0);
    }
}

/* [k]P = [k1]P - [k2]phi(P) for random P in G1 and random k < r. */
GS_TEST(curve_glv_endomorphism)
{
    for (int i = 0; i < 16; i++) {
        gs_fr f;
        gs_scalar a, k, s1, s2;
        uint32_t kl[8], k1[4], k2[4];
        gs_g1 g, p, ph, want, got, t;
        gs_fr_random(&f, gs_test_rng());
        gs_fr_to_scalar(&a, &f);
        gs_fr_random(&f, gs_test_rng());
        gs_fr_to_scalar(&k, &f);
        gs_g1_generator(&g);
        gs_g1_mul_var(&p, &g, &a);
        scalar_limbs(kl, &k);
        gs_glv_split(k1, k2, kl);
        limbs_scalar(&s1, k1, 4);
        limbs_scalar(&s2, k2, 4);
        gs_g1_mul_var(&want, &p, &k);
        gs_g1_phi(&ph, &p);
        gs_g1_mul_var(&got, &p, &s1);
        gs_g1_mul_var(&t, &ph, &s2);
        gs_g1_neg(&t, &t);
        gs_g1_add(&got, &got, &t);
        GS_CHECK(gs_g1_eq(&got, &want));
    }
}
