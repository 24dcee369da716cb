/*
 * Encoding tests: the published compressed encodings of the generators
 * (Zcash serialization; e.g. cosmwasm-core BLS12_381_G1_GENERATOR and
 * BLS12_381_G2_GENERATOR_COMPRESSED), round trips of random points and of
 * infinity, and one malformed input per rejection class, each checked for
 * its status, a message, and an untouched output.
 */
#include "curve_internal.h"

#include <string.h>

#include "../../test/test.h"

static const char G1_COMPRESSED[] =
    "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb";
static const char G1_UNCOMPRESSED[] =
    "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"
    "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1";
static const char G2_COMPRESSED[] =
    "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
    "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8";
static const char P_HEX[] =
    "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab";

#define GS_STR_(x) #x
#define GS_STR(x) GS_STR_(x)

static void unhex(uint8_t *out, const char *hex)
{
    for (size_t i = 0; hex[2 * i]; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        out[i] = (uint8_t)v;
    }
}

/* Runs one decoder on a malformed input and checks status, message and that
 * the output was not written. */
#define EXPECT_REJECT(decode, type, buf, status, needle)                         \
    do {                                                                        \
        type out_;                                                              \
        gs_err e_ = {0};                                                        \
        memset(&out_, 0xa5, sizeof out_);                                       \
        gs_status s_ = decode(&out_, buf, &e_);                                 \
        GS_CHECK_MSG(s_ == (status), "%s: status %s, want %s (%s)", GS_STR(decode),    \
                     gs_status_name(s_), gs_status_name(status), e_.msg);       \
        GS_CHECK_MSG(strstr(e_.msg, needle) != NULL, "%s: message '%s' lacks '%s'", \
                     GS_STR(decode), e_.msg, needle);                                  \
        uint8_t *o_ = (uint8_t *)&out_;                                         \
        int untouched_ = 1;                                                     \
        for (size_t i_ = 0; i_ < sizeof out_; i_++) untouched_ &= o_[i_] == 0xa5; \
        GS_CHECK_MSG(untouched_, "%s wrote its output on failure", GS_STR(decode));    \
        GS_CHECK(decode(&out_, buf, NULL) == (status)); /* NULL err allowed */  \
    } while (0)

#define TE_BYTES 48
#define EC_GROUP g1
#define EC_FIELD fp
#include "ec_params.inc"
#include "test_encode.inc"
#undef TE_BYTES
#undef EC_GROUP
#undef EC_FIELD
#define TE_BYTES 96
#define EC_GROUP g2
#define EC_FIELD fp2
#include "ec_params.inc"
#include "test_encode.inc"

GS_TEST(curve_encode_generators_published)
{
    uint8_t want[192], got[192];
    gs_g1_affine g1, d1;
    gs_g2_affine g2, d2;
    gs_err err = {0};
    gs_g1_affine_generator(&g1);
    gs_g2_affine_generator(&g2);

    unhex(want, G1_COMPRESSED);
    GS_CHECK_OK(gs_g1_compress(got, &g1));
    GS_CHECK(memcmp(got, want, 48) == 0);
    GS_CHECK_OK(gs_g1_decompress(&d1, want, &err));
    GS_CHECK(gs_g1_affine_eq(&d1, &g1));

    unhex(want, G1_UNCOMPRESSED);
    GS_CHECK_OK(gs_g1_serialize(got, &g1));
    GS_CHECK(memcmp(got, want, 96) == 0);
    GS_CHECK_OK(gs_g1_deserialize(&d1, want, &err));
    GS_CHECK(gs_g1_affine_eq(&d1, &g1));

    unhex(want, G2_COMPRESSED);
    GS_CHECK_OK(gs_g2_compress(got, &g2));
    GS_CHECK(memcmp(got, want, 96) == 0);
    GS_CHECK_OK(gs_g2_decompress(&d2, want, &err));
    GS_CHECK(gs_g2_affine_eq(&d2, &g2));
    GS_CHECK_EQ_INT(err.status, GS_OK);
}

GS_TEST(curve_encode_round_trip)
{
    gs_rng *rng = gs_test_rng();
    uint8_t c1[48], u1[96], c2[96], u2[192], cn[96];
    gs_err err = {0};
    int signs1 = 0, signs2 = 0;
    int n = gs_test_quick() ? 10 : 50;
    for (int i = 0; i < n; i++) {
        gs_g1_affine p, q, np;
        gs_g2_affine r, s, nr;
        rand_g1(&p, rng);
        rand_g2(&r, rng);
        gs_g1_compress(c1, &p);
        gs_g1_serialize(u1, &p);
        GS_CHECK_OK(gs_g1_decompress(&q, c1, &err));
        GS_CHECK(gs_g1_affine_eq(&p, &q));
        GS_CHECK_OK(gs_g1_deserialize(&q, u1, &err));
        GS_CHECK(gs_g1_affine_eq(&p, &q));
        /* -P differs only in the sign bit */
        gs_g1_affine_neg(&np, &p);
        gs_g1_compress(cn, &np);
        GS_CHECK_EQ_INT(cn[0] ^ c1[0], 0x20);
        GS_CHECK(memcmp(cn + 1, c1 + 1, 47) == 0);
        signs1 += (c1[0] & 0x20) != 0;

        gs_g2_compress(c2, &r);
        gs_g2_serialize(u2, &r);
        GS_CHECK_OK(gs_g2_decompress(&s, c2, &err));
        GS_CHECK(gs_g2_affine_eq(&r, &s));
        GS_CHECK_OK(gs_g2_deserialize(&s, u2, &err));
        GS_CHECK(gs_g2_affine_eq(&r, &s));
        gs_g2_affine_neg(&nr, &r);
        gs_g2_compress(cn, &nr);
        GS_CHECK_EQ_INT(cn[0] ^ c2[0], 0x20);
        signs2 += (c2[0] & 0x20) != 0;
    }
    /* both signs occur (probability of failure 2^-n) */
    GS_CHECK(signs1 > 0 && signs1 < n);
    GS_CHECK(signs2 > 0 && signs2 < n);
    GS_CHECK_EQ_INT(err.status, GS_OK);
}

GS_TEST(curve_encode_infinity)
{
    uint8_t b[192];
    gs_g1_affine i1, d1;
    gs_g2_affine i2, d2;
    gs_err err = {0};
    gs_g1_affine_set_inf(&i1);
    gs_g2_affine_set_inf(&i2);
    gs_g1_compress(b, &i1);
    GS_CHECK_EQ_INT(b[0], 0xc0);
    for (int i = 1; i < 48; i++) GS_CHECK_EQ_INT(b[i], 0);
    GS_CHECK_OK(gs_g1_decompress(&d1, b, &err));
    GS_CHECK(d1.inf);
    gs_g1_serialize(b, &i1);
    GS_CHECK_EQ_INT(b[0], 0x40);
    for (int i = 1; i < 96; i++) GS_CHECK_EQ_INT(b[i], 0);
    GS_CHECK_OK(gs_g1_deserialize(&d1, b, &err));
    GS_CHECK(d1.inf);
    gs_g2_compress(b, &i2);
    GS_CHECK_EQ_INT(b[0], 0xc0);
    GS_CHECK_OK(gs_g2_decompress(&d2, b, &err));
    GS_CHECK(d2.inf);
    gs_g2_serialize(b, &i2);
    GS_CHECK_EQ_INT(b[0], 0x40);
    GS_CHECK_OK(gs_g2_deserialize(&d2, b, &err));
    GS_CHECK(d2.inf);
}

GS_TEST(curve_encode_reject_g1)
{
    gs_rng *rng = gs_test_rng();
    uint8_t c[48], u[96], t[96];
    gs_g1_affine g, bad;
    gs_g1_affine_generator(&g);
    gs_g1_compress(c, &g);
    gs_g1_serialize(u, &g);

    /* flags */
    reject_flags_g1(c, u);
    memset(t, 0, 96); t[0] = 0xc1;
    EXPECT_REJECT(gs_g1_decompress, gs_g1_affine, t, GS_ERR_FORMAT, "byte 0");
    memset(t, 0, 96); t[0] = 0x40; t[60] = 9;
    EXPECT_REJECT(gs_g1_deserialize, gs_g1_affine, t, GS_ERR_FORMAT, "byte 60");

    /* ranges: x == p, x all ones, y == p */
    unhex(t, P_HEX); t[0] |= 0x80;
    EXPECT_REJECT(gs_g1_decompress, gs_g1_affine, t, GS_ERR_RANGE, "bytes 0..47");
    memset(t, 0xff, 48); t[0] = 0x9f;
    EXPECT_REJECT(gs_g1_decompress, gs_g1_affine, t, GS_ERR_RANGE, "x is not below");
    memcpy(t, u, 96); unhex(t + 48, P_HEX);
    EXPECT_REJECT(gs_g1_deserialize, gs_g1_affine, t, GS_ERR_RANGE, "bytes 48..95");

    /* not on the curve: x with x^3 + 4 a non-square; (x, y + 1) */
    gs_fp x, rhs, y, four = {GS_CC_B};
    for (uint64_t v = 1;; v++) {
        gs_fp_set_u64(&x, v);
        gs_fp_sqr(&rhs, &x);
        gs_fp_mul(&rhs, &rhs, &x);
        gs_fp_add(&rhs, &rhs, &four);
        if (!gs_fp_sqrt(&y, &rhs))
            break;
    }
    gs_fp_to_bytes_be(t, &x); t[0] |= 0x80;
    EXPECT_REJECT(gs_g1_decompress, gs_g1_affine, t, GS_ERR_POINT, "not the x-coordinate");
    bad = g;
    gs_fp one;
    gs_fp_one(&one);
    gs_fp_add(&bad.y, &bad.y, &one);
    gs_fp_to_bytes_be(t, &bad.x);
    gs_fp_to_bytes_be(t + 48, &bad.y);
    EXPECT_REJECT(gs_g1_deserialize, gs_g1_affine, t, GS_ERR_POINT, "not on the curve");

    /* on the curve, outside the subgroup */
    reject_outside_subgroup_g1(rng, &four);
}

GS_TEST(curve_encode_reject_g2)
{
    gs_rng *rng = gs_test_rng();
    uint8_t c[96], u[192], t[192];
    gs_g2_affine g, bad;
    gs_g2_affine_generator(&g);
    gs_g2_compress(c, &g);
    gs_g2_serialize(u, &g);

    reject_flags_g2(c, u);

    /* x.c1 == p (first half), x.c0 == p (second half), y.c0 == p */
    memcpy(t, c, 96); unhex(t, P_HEX); t[0] |= 0x80;
    EXPECT_REJECT(gs_g2_decompress, gs_g2_affine, t, GS_ERR_RANGE, "x.c1");
    memcpy(t, c, 96); unhex(t + 48, P_HEX);
    EXPECT_REJECT(gs_g2_decompress, gs_g2_affine, t, GS_ERR_RANGE, "bytes 48..95");
    memcpy(t, u, 192); unhex(t + 144, P_HEX);
    EXPECT_REJECT(gs_g2_deserialize, gs_g2_affine, t, GS_ERR_RANGE, "y.c0");

    /* not on the curve */
    gs_fp2 rhs, y, b2 = {{GS_CC_B}, {GS_CC_B}};
    gs_fp2_zero(&bad.x);
    for (uint64_t v = 1;; v++) {
        gs_fp_set_u64(&bad.x.c0, v);
        gs_fp2_sqr(&rhs, &bad.x);
        gs_fp2_mul(&rhs, &rhs, &bad.x);
        gs_fp2_add(&rhs, &rhs, &b2);
        if (!gs_fp2_sqrt(&y, &rhs))
            break;
    }
    bad.inf = 0;
    gs_fp2_one(&bad.y);
    gs_g2_compress(t, &bad);
    EXPECT_REJECT(gs_g2_decompress, gs_g2_affine, t, GS_ERR_POINT, "not the x-coordinate");
    gs_g2_serialize(t, &bad);
    EXPECT_REJECT(gs_g2_deserialize, gs_g2_affine, t, GS_ERR_POINT, "not on the curve");

    /* outside the subgroup */
    reject_outside_subgroup_g2(rng, &b2);
}
