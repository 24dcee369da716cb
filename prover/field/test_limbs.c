/*
 * The portable limb code (limbs.h) against the public functions, which take
 * the generated assembly on x86-64 with BMI2/ADX: both paths stay tested on
 * every machine, whichever one the build selects.
 */
#include "field.h"

#include "../../test/test.h"
#include "consts.h"
#include "limbs.h"

GS_TEST(field_portable_limbs_match)
{
    static const uint64_t P6[6] = GS_FPC_P, P4[4] = GS_FRC_P;
    gs_rng *rng = gs_test_rng();
    int n = gs_test_quick() ? 2000 : 20000;
    for (int i = 0; i < n; i++) {
        gs_fp a, b, want;
        gs_fr x, y, wx;
        uint64_t got[6];
        gs_fp_random(&a, rng);
        gs_fp_random(&b, rng);
        gs_fr_random(&x, rng);
        gs_fr_random(&y, rng);
        if (i == 0) gs_fp_zero(&a), gs_fr_zero(&x);

        gs_fp_mul(&want, &a, &b);
        lb_mont_mul(got, a.l, b.l, P6, GS_FPC_N0, 6);
        GS_CHECK(lb_eq(got, want.l, 6));
        gs_fp_add(&want, &a, &b);
        lb_mod_add(got, a.l, b.l, P6, 6);
        GS_CHECK(lb_eq(got, want.l, 6));
        gs_fp_sub(&want, &a, &b);
        lb_mod_sub(got, a.l, b.l, P6, 6);
        GS_CHECK(lb_eq(got, want.l, 6));
        gs_fp_neg(&want, &a);
        lb_mod_neg(got, a.l, P6, 6);
        GS_CHECK(lb_eq(got, want.l, 6));

        gs_fr_mul(&wx, &x, &y);
        lb_mont_mul(got, x.l, y.l, P4, GS_FRC_N0, 4);
        GS_CHECK(lb_eq(got, wx.l, 4));
        gs_fr_add(&wx, &x, &y);
        lb_mod_add(got, x.l, y.l, P4, 4);
        GS_CHECK(lb_eq(got, wx.l, 4));
        gs_fr_sub(&wx, &x, &y);
        lb_mod_sub(got, x.l, y.l, P4, 4);
        GS_CHECK(lb_eq(got, wx.l, 4));
        gs_fr_neg(&wx, &x);
        lb_mod_neg(got, x.l, P4, 4);
        GS_CHECK(lb_eq(got, wx.l, 4));
    }
}

/* Pornin's inverse (limbs.h) equals the bit-by-bit one, and never needs the
 * fallback, on random values and on edge values: 1, 2, m - 1, m - 2, powers
 * of 2, one-limb values, and values close to m. */
GS_TEST(field_inv_pornin_matches_binary)
{
    static const uint64_t P6[6] = GS_FPC_P, P4[4] = GS_FRC_P;
    gs_rng *rng = gs_test_rng();
    int n = gs_test_quick() ? 500 : 5000;
    int ok = 1, done = 1;
    for (int i = 0; i < n; i++) {
        for (int w = 0; w < 2; w++) {
            int nl = w ? 4 : 6;
            const uint64_t *m = w ? P4 : P6;
            uint64_t n0 = w ? GS_FRC_N0 : GS_FPC_N0;
            uint64_t a[6] = {0}, want[6], got[6];
            switch (i % 8) {
            case 0: a[0] = 1 + (uint64_t)(i / 8); break;
            case 1: a[(i / 8) % nl] = 1ull << ((i / 8) % 64); break;
            case 2: memcpy(a, m, (size_t)nl * 8); a[0] -= 1 + (uint64_t)(i / 8) % 1000; break;
            case 3: a[0] = gs_rng_u64(rng); a[1] = gs_rng_u64(rng) >> (i % 64); break;
            default:
                for (int k = 0; k < nl; k++)
                    a[k] = gs_rng_u64(rng);
                a[nl - 1] >>= 3 + (i % 5);          /* below m */
                if (lb_is_zero(a, nl))
                    a[0] = 1;
            }
            lb_inv_plain_var(want, a, m, nl);
            if (!lb_inv_pornin_var(got, a, m, n0, nl))
                done = 0;
            else if (!lb_eq(got, want, nl))
                ok = 0;
        }
    }
    GS_CHECK(done);
    GS_CHECK(ok);
}
