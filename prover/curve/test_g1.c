/* G1 tests: published generator, group law, scalar multiplication, XYZZ,
 * batch normalization and the phi subgroup check (template test_group.inc). */
#include "curve_internal.h"

#include <string.h>

#include "../../test/test.h"

static const gs_fp ec_b = {GS_CC_B};
#define T_H GS_CC_H1
/* h1 / 3: [r][h1 / 3] takes a curve point to the 3-torsion (order 3 or 1). */
#define T_H_SMALL {0x2eaae38e55558e39ULL, 0x13242eaac71ca072ULL}

#define EC_GROUP g1
#define EC_FIELD fp
#include "ec_params.inc"
#include "test_group.inc"

/* Published generator (draft-irtf-cfrg-pairing-friendly-curves-11, 4.2.1),
 * compared through the byte encoding, independently of curve_consts.h. */
GS_TEST(curve_g1_generator_published)
{
    static const char *x = "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb";
    static const char *y = "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1";
    gs_g1_affine g;
    uint8_t b[48];
    char hex[97];
    gs_g1_affine_generator(&g);
    gs_fp_to_bytes_be(b, &g.x);
    for (int i = 0; i < 48; i++) snprintf(hex + 2 * i, 3, "%02x", b[i]);
    GS_CHECK(strcmp(hex, x) == 0);
    gs_fp_to_bytes_be(b, &g.y);
    for (int i = 0; i < 48; i++) snprintf(hex + 2 * i, 3, "%02x", b[i]);
    GS_CHECK(strcmp(hex, y) == 0);
}

/* phi(G) == [-x^2] G and beta^3 == 1, beta != 1. */
GS_TEST(curve_g1_endomorphism)
{
    gs_g1 g, l, r;
    gs_fp beta = {GS_CC_BETA}, t, one;
    gs_g1_generator(&g);
    gs_g1_phi(&l, &g);
    gs_g1_mul_x_abs(&r, &g);
    gs_g1_mul_x_abs(&r, &r);
    gs_g1_neg(&r, &r);
    GS_CHECK(gs_g1_eq(&l, &r));
    gs_fp_sqr(&t, &beta);
    gs_fp_mul(&t, &t, &beta);
    gs_fp_one(&one);
    GS_CHECK(gs_fp_eq(&t, &one));
    GS_CHECK(!gs_fp_eq(&beta, &one));
}
