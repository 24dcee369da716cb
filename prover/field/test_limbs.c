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
