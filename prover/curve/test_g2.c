/* G2 tests: published generator, group law, scalar multiplication, XYZZ,
 * batch normalization and the psi subgroup check (template test_group.inc). */
#include "curve_internal.h"

#include <string.h>

#include "../../test/test.h"

static const gs_fp2 ec_b = {{GS_CC_B}, {GS_CC_B}};
#define T_H GS_CC_H2
/* h2 / 13^2: [r][h2 / 13^2] takes a curve point to the 13-part of the
 * cofactor group (order 13, 169 or 1). */
#define T_H_SMALL {0x3336b3150941cfddULL, 0xedf4046db800a837ULL, \
                   0x45e0aef29c5e8629ULL, 0x5a5b213dcb710859ULL, \
                   0x81be2a9b0c648304ULL, 0x60a5f9bdc250555dULL, \
                   0xd5a3c5663541d68bULL, 0x0008d5fc7522f6c4ULL}

#define EC_GROUP g2
#define EC_FIELD fp2
#include "ec_params.inc"
#include "test_group.inc"

static int fp_hex_eq(const gs_fp *a, const char *want)
{
    uint8_t b[48];
    char hex[97];
    gs_fp_to_bytes_be(b, a);
    for (int i = 0; i < 48; i++) snprintf(hex + 2 * i, 3, "%02x", b[i]);
    return strcmp(hex, want) == 0;
}

/* Published generator (draft-irtf-cfrg-pairing-friendly-curves-11, 4.2.1). */
GS_TEST(curve_g2_generator_published)
{
    gs_g2_affine g;
    gs_g2_affine_generator(&g);
    GS_CHECK(fp_hex_eq(&g.x.c0, "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"));
    GS_CHECK(fp_hex_eq(&g.x.c1, "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"));
    GS_CHECK(fp_hex_eq(&g.y.c0, "0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801"));
    GS_CHECK(fp_hex_eq(&g.y.c1, "0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be"));
}

/* psi(G) == [x] G (x < 0), psi^2(P) - [t]psi(P) + [p]P == 0 reduces on G2 to
 * psi^2(G) == [x^2] G; and psi is a group homomorphism. */
GS_TEST(curve_g2_psi)
{
    gs_rng *rng = gs_test_rng();
    gs_g2 g, l, r, p, q, t;
    gs_g2_generator(&g);
    gs_g2_psi(&l, &g);
    gs_g2_mul_x_abs(&r, &g);
    gs_g2_neg(&r, &r);
    GS_CHECK(gs_g2_eq(&l, &r));
    gs_g2_psi(&l, &l);
    gs_g2_mul_x_abs(&r, &g);
    gs_g2_mul_x_abs(&r, &r);
    GS_CHECK(gs_g2_eq(&l, &r));
    rand_point(&p, rng);
    rand_point(&q, rng);
    gs_g2_add(&t, &p, &q);
    gs_g2_psi(&l, &t);
    gs_g2_psi(&p, &p);
    gs_g2_psi(&q, &q);
    gs_g2_add(&r, &p, &q);
    GS_CHECK(gs_g2_eq(&l, &r));
}
