/*
 * The portable limb code (limbs.h) against the public functions, which take
 * the generated assembly on x86-64 with BMI2/ADX: both paths stay tested on
 * every machine, whichever one the build selects.
 */
#include "field.h"

#include "../../test/test.h"
#include "consts.h"
#include "limbs.h"

/* One field's public mul, add, sub and neg against the portable limb code
 * on *a and *b: F is fp or fr, N its limb count, M its modulus and N0
 * -M^-1 mod 2^64. */
#define CHECK_FIELD(F, N, M, N0, a, b)                \
    do {                                             \
        gs_##F want_;                                \
        uint64_t got_[N];                            \
        gs_##F##_mul(&want_, a, b);                  \
        lb_mont_mul(got_, (a)->l, (b)->l, M, N0, N); \
        GS_CHECK(lb_eq(got_, want_.l, N));           \
        gs_##F##_add(&want_, a, b);                  \
        lb_mod_add(got_, (a)->l, (b)->l, M, N);      \
        GS_CHECK(lb_eq(got_, want_.l, N));           \
        gs_##F##_sub(&want_, a, b);                  \
        lb_mod_sub(got_, (a)->l, (b)->l, M, N);      \
        GS_CHECK(lb_eq(got_, want_.l, N));           \
        gs_##F##_neg(&want_, a);                     \
        lb_mod_neg(got_, (a)->l, M, N);              \
        GS_CHECK(lb_eq(got_, want_.l, N));           \
    } while (0)

GS_TEST(field_portable_limbs_match)
{
    static const uint64_t P6[6] = GS_FPC_P, P4[4] = GS_FRC_P;
    gs_rng *rng = gs_test_rng();
    int n = gs_test_quick() ? 2000 : 20000;
    for (int i = 0; i < n; i++) {
        gs_fp a, b;
        gs_fr x, y;
        gs_fp_random(&a, rng);
        gs_fp_random(&b, rng);
        gs_fr_random(&x, rng);
        gs_fr_random(&y, rng);
        if (i == 0) gs_fp_zero(&a), gs_fr_zero(&x);
        CHECK_FIELD(fp, 6, P6, GS_FPC_N0, &a, &b);
        CHECK_FIELD(fr, 4, P4, GS_FRC_N0, &x, &y);
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
