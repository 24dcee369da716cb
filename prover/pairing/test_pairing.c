/*
 * Pairing tests.
 *   - known answer: e(G1, G2) equals the GT generator published by
 *     zkcrypto/bls12_381 (src/pairings.rs, Gt::generator; the same limbs are
 *     in neo-project's port, GtConstants.cs), Montgomery limbs, R = 2^384;
 *   - an independent slow path: a textbook Miller loop in affine
 *     coordinates on E(Fp12) with the untwisted Q and full Fp12 arithmetic,
 *     then f^((p^12-1)/r) by plain pow (exponent from GMP); our pairing must
 *     be its cube (see final_exp.c);
 *   - bilinearity on random scalars, non-degeneracy, order r, infinity;
 *   - the multi Miller loop against single loops, across chunk boundaries,
 *     and the product check on relations that hold and that do not.
 */
#include "pairing.h"

#include <string.h>

#include "../../test/test.h"
#include "../curve/curve_consts.h"

#ifdef GS_HAVE_GMP
#include <gmp.h>
#endif

static int iters(int full) { return gs_test_quick() ? 1 : full; }

static void rand_fr(gs_fr *f, gs_scalar *k, gs_rng *rng)
{
    gs_fr_random(f, rng);
    gs_fr_to_scalar(k, f);
}

static void g1_mul(gs_g1_affine *out, const gs_scalar *k)
{
    gs_g1 g;
    gs_g1_generator(&g);
    gs_g1_mul_var(&g, &g, k);
    gs_g1_to_affine(out, &g);
}

static void g2_mul(gs_g2_affine *out, const gs_scalar *k)
{
    gs_g2 g;
    gs_g2_generator(&g);
    gs_g2_mul_var(&g, &g, k);
    gs_g2_to_affine(out, &g);
}

/* zkcrypto bls12_381 Gt::generator() = pairing(G1 generator, G2 generator):
 * c0.c0.c0, c0.c0.c1, c0.c1.c0, ..., c1.c2.c1, each 6 Montgomery limbs. */
static const uint64_t GT_GEN[72] = {
    0x1972e433a01f85c5ull, 0x97d32b76fd772538ull, 0xc8ce546fc96bcdf9ull, 0xcef63e7366d40614ull, 0xa611342781843780ull, 0x13f3448a3fc6d825ull,
    0xd26331b02e9d6995ull, 0x9d68a482f7797e7dull, 0x9c9b29248d39ea92ull, 0xf4801ca2e13107aaull, 0xa16c0732bdbcb066ull, 0x083ca4afba360478ull,
    0x59e261db0916b641ull, 0x2716b6f4b23e960dull, 0xc8e55b10a0bd9c45ull, 0x0bdb0bd99c4deda8ull, 0x8cf89ebf57fdaac5ull, 0x12d6b7929e777a5eull,
    0x5fc85188b0e15f35ull, 0x34a06e3a8f096365ull, 0xdb3126a6e02ad62cull, 0xfc6f5aa97d9a990bull, 0xa12f55f5eb89c210ull, 0x1723703a926f8889ull,
    0x93588f2971828778ull, 0x43f65b8611ab7585ull, 0x3183aaf5ec279fdfull, 0xfa73d7e18ac99df6ull, 0x64e176a6a64c99b0ull, 0x179fa78c58388f1full,
    0x672a0a11ca2aef12ull, 0x0d11b9b52aa3f16bull, 0xa44412d0699d056eull, 0xc01d0177221a5ba5ull, 0x66e0cede6c735529ull, 0x05f5a71e9fddc339ull,
    0xd30a88a1b062c679ull, 0x5ac56a5d35fc8304ull, 0xd0c834a6a81f290dull, 0xcd5430c2da3707c7ull, 0xf0c27ff780500af0ull, 0x09245da6e2d72eaeull,
    0x9f2e0676791b5156ull, 0xe2d1c8234918fe13ull, 0x4c9e459f3c561bf4ull, 0xa3e85e53b9d3e3c1ull, 0x820a121e21a70020ull, 0x15af618341c59accull,
    0x7c95658c24993ab1ull, 0x73eb38721ca886b9ull, 0x5256d749477434bcull, 0x8ba41902ea504a8bull, 0x04a3d3f80c86ce6dull, 0x18a64a87fb686eaaull,
    0xbb83e71bb920cf26ull, 0x2a5277ac92a73945ull, 0xfc0ee59f94f046a0ull, 0x7158cdf3786058f7ull, 0x7cc1061b82f945f6ull, 0x03f847aa9fdbe567ull,
    0x8078dba56134e657ull, 0x1cd7ec9a43998a6eull, 0xb1aa599a1a993766ull, 0xc9a0f62f0842ee44ull, 0x8e159be3b605dffaull, 0x0c86ba0d4af13fc2ull,
    0xe80ff2a06a52ffb1ull, 0x7694ca48721a906cull, 0x7583183e03b08514ull, 0xf567afdd40cee4e2ull, 0x9a6d96d2e526a5fcull, 0x197e9f49861f2242ull,
};

GS_TEST(pairing_known_answer)
{
    gs_g1_affine p;
    gs_g2_affine q;
    gs_fp12 e, want;
    GS_REQUIRE(sizeof want == sizeof GT_GEN);
    memcpy(&want, GT_GEN, sizeof want);
    gs_g1_affine_generator(&p);
    gs_g2_affine_generator(&q);
    gs_pairing(&e, &p, &q);
    GS_CHECK(gs_fp12_eq(&e, &want));
    GS_CHECK(!gs_fp12_is_one(&e));                 /* non-degenerate */
}

#ifdef GS_HAVE_GMP
/* (p^12 - 1)/r as little-endian limbs; returns the count. */
static size_t final_exponent(uint64_t *e, size_t cap)
{
    mpz_t p, r, t;
    size_t n = 0;
    mpz_init_set_str(p, "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab", 16);
    mpz_init_set_str(r, "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001", 16);
    mpz_init(t);
    mpz_pow_ui(t, p, 12);
    mpz_sub_ui(t, t, 1);
    if (mpz_divisible_p(t, r) && mpz_sizeinbase(t, 2) <= cap * 64) {
        mpz_divexact(t, t, r);
        mpz_export(e, &n, -1, 8, 0, 0, t);
    }
    mpz_clears(p, r, t, NULL);
    return n;
}

/* Affine points of E(Fp12); the slope of the tangent or chord through a, b. */
typedef struct { gs_fp12 x, y; } pt12;

static void slope(gs_fp12 *l, const pt12 *a, const pt12 *b)
{
    gs_fp12 num, den;
    if (gs_fp12_eq(&a->x, &b->x)) {                  /* tangent: 3x^2 / 2y */
        gs_fp12_sqr(&num, &a->x);
        gs_fp12_add(&den, &num, &num);
        gs_fp12_add(&num, &den, &num);
        gs_fp12_add(&den, &a->y, &a->y);
    } else {
        gs_fp12_sub(&num, &b->y, &a->y);
        gs_fp12_sub(&den, &b->x, &a->x);
    }
    gs_fp12_inv(&den, &den);
    gs_fp12_mul(l, &num, &den);
}

/* line through a (slope l) at p: (yP - ya) - l (xP - xa); then a <- a + b. */
static void step(gs_fp12 *f, pt12 *a, const pt12 *b, const pt12 *p)
{
    gs_fp12 l, t, u;
    slope(&l, a, b);
    gs_fp12_sub(&t, &p->y, &a->y);
    gs_fp12_sub(&u, &p->x, &a->x);
    gs_fp12_mul(&u, &l, &u);
    gs_fp12_sub(&t, &t, &u);
    gs_fp12_mul(f, f, &t);
    gs_fp12_sqr(&t, &l);                             /* x3 = l^2 - xa - xb */
    gs_fp12_sub(&t, &t, &a->x);
    gs_fp12_sub(&t, &t, &b->x);
    gs_fp12_sub(&u, &a->x, &t);                      /* y3 = l (xa - x3) - ya */
    gs_fp12_mul(&u, &l, &u);
    gs_fp12_sub(&a->y, &u, &a->y);
    a->x = t;
}

/* Textbook Miller loop f_{x,Q}(P) with Q untwisted: (x/w^2, y/w^3), i.e.
 * x xi^-1 w^4 and y xi^-1 w^3. */
static void slow_miller(gs_fp12 *f, const gs_g1_affine *p, const gs_g2_affine *q)
{
    pt12 pp, qq, t;
    gs_fp2 xi, xinv;
    memset(&pp, 0, sizeof pp);
    memset(&qq, 0, sizeof qq);
    pp.x.c0.c0.c0 = p->x;
    pp.y.c0.c0.c0 = p->y;
    gs_fp2_one(&xi);
    gs_fp_one(&xi.c1);
    gs_fp2_inv(&xinv, &xi);
    gs_fp2_mul(&qq.x.c0.c2, &q->x, &xinv);           /* w^4 = v^2 */
    gs_fp2_mul(&qq.y.c1.c1, &q->y, &xinv);           /* w^3 = v w */
    t = qq;
    gs_fp12_one(f);
    for (int i = 62; i >= 0; i--) {
        gs_fp12_sqr(f, f);
        step(f, &t, &t, &pp);
        if ((GS_CC_X_ABS >> i) & 1)
            step(f, &t, &qq, &pp);
    }
    gs_fp12_inv(f, f);                               /* x < 0 */
}
#endif

GS_TEST(pairing_vs_slow_path)
{
#ifdef GS_HAVE_GMP
    static uint64_t e[80];
    size_t n = final_exponent(e, 80);
    GS_REQUIRE(n > 60);
    gs_rng *rng = gs_test_rng();
    for (int i = 0; i < iters(2); i++) {
        gs_g1_affine p;
        gs_g2_affine q;
        gs_fp12 f, slow, fast, cube;
        if (i == 0) {
            gs_g1_affine_generator(&p);
            gs_g2_affine_generator(&q);
        } else {
            gs_fr a;
            gs_scalar k;
            rand_fr(&a, &k, rng);
            g1_mul(&p, &k);
            rand_fr(&a, &k, rng);
            g2_mul(&q, &k);
        }
        slow_miller(&f, &p, &q);
        gs_fp12_pow(&slow, &f, e, n);
        gs_fp12_sqr(&cube, &slow);
        gs_fp12_mul(&cube, &cube, &slow);
        gs_pairing(&fast, &p, &q);
        GS_CHECK(gs_fp12_eq(&fast, &cube));
        /* our Miller loop, exact exponent: same value as the slow path */
        gs_miller_loop(&f, &p, &q);
        gs_fp12_pow(&fast, &f, e, n);
        GS_CHECK(gs_fp12_eq(&fast, &slow));
        /* the final exponentiation agrees with pow on an arbitrary element */
        gs_fp12_random(&f, rng);
        gs_final_exp(&fast, &f);
        gs_fp12_pow(&slow, &f, e, n);
        gs_fp12_sqr(&cube, &slow);
        gs_fp12_mul(&cube, &cube, &slow);
        GS_CHECK(gs_fp12_eq(&fast, &cube));
    }
#else
    gs_test_skip("built without GMP: no exponent oracle");
#endif
}

GS_TEST(pairing_bilinear)
{
    gs_rng *rng = gs_test_rng();
    gs_g1_affine g1, ap, tp;
    gs_g2_affine g2, bq, tq;
    gs_fp12 base, lhs, rhs;
    gs_g1_affine_generator(&g1);
    gs_g2_affine_generator(&g2);
    gs_pairing(&base, &g1, &g2);
    for (int i = 0; i < iters(4); i++) {
        gs_fr a, b, ab;
        gs_scalar ka, kb, kab;
        rand_fr(&a, &ka, rng);
        rand_fr(&b, &kb, rng);
        g1_mul(&ap, &ka);
        g2_mul(&bq, &kb);
        gs_pairing(&lhs, &ap, &bq);
        gs_fr_mul(&ab, &a, &b);
        gs_fr_to_scalar(&kab, &ab);
        gs_fp12_pow(&rhs, &base, kab.l, 4);
        GS_CHECK(gs_fp12_eq(&lhs, &rhs));           /* e(aP, bQ) = e(P, Q)^(ab) */
        /* e(abP, Q) = e(P, abQ) = the same */
        g1_mul(&tp, &kab);
        gs_pairing(&rhs, &tp, &g2);
        GS_CHECK(gs_fp12_eq(&lhs, &rhs));
        g2_mul(&tq, &kab);
        gs_pairing(&rhs, &g1, &tq);
        GS_CHECK(gs_fp12_eq(&lhs, &rhs));
        /* e(P1 + P2, Q) = e(P1, Q) e(P2, Q) */
        gs_g1 s;
        gs_g1_affine sa;
        gs_g1_from_affine(&s, &ap);
        gs_g1_add_affine(&s, &s, &tp);
        gs_g1_to_affine(&sa, &s);
        gs_pairing(&lhs, &sa, &bq);
        gs_pairing(&rhs, &ap, &bq);
        gs_fp12 t;
        gs_pairing(&t, &tp, &bq);
        gs_fp12_mul(&rhs, &rhs, &t);
        GS_CHECK(gs_fp12_eq(&lhs, &rhs));
    }
}

GS_TEST(pairing_order_and_infinity)
{
    static const uint64_t r[4] = GS_CC_R;
    gs_g1_affine p, pinf;
    gs_g2_affine q, qinf;
    gs_fp12 e, t, one;
    gs_g1_affine_generator(&p);
    gs_g2_affine_generator(&q);
    gs_pairing(&e, &p, &q);
    GS_CHECK(!gs_fp12_is_one(&e));
    gs_fp12_pow(&t, &e, r, 4);
    GS_CHECK(gs_fp12_is_one(&t));                   /* e lies in GT of order r */
    gs_fp12_one(&one);
    gs_g1_affine_set_inf(&pinf);
    gs_g2_affine_set_inf(&qinf);
    gs_pairing(&t, &pinf, &q);
    GS_CHECK(gs_fp12_eq(&t, &one));
    gs_pairing(&t, &p, &qinf);
    GS_CHECK(gs_fp12_eq(&t, &one));
    /* e(-P, Q) = e(P, Q)^-1 = conj(e(P, Q)) */
    gs_g1_affine np;
    gs_g1_affine_neg(&np, &p);
    gs_pairing(&t, &np, &q);
    gs_fp12_mul(&t, &t, &e);
    GS_CHECK(gs_fp12_is_one(&t));
}

GS_TEST(pairing_multi_and_product)
{
    gs_rng *rng = gs_test_rng();
    enum { N = 37 };                                /* > 2 chunks of 16 */
    gs_g1_affine p[N];
    gs_g2_affine q[N];
    gs_fr sum, a, b, ab;
    gs_scalar ka, kb;
    /* pairs (a_i G1, b_i G2); pair 7 has P = inf and pair 20 Q = inf, so
     * they contribute 1 and stay out of sum = sum a_i b_i */
    gs_fr_zero(&sum);
    for (int i = 0; i < N - 1; i++) {
        rand_fr(&a, &ka, rng);
        rand_fr(&b, &kb, rng);
        g1_mul(&p[i], &ka);
        g2_mul(&q[i], &kb);
        if (i == 7) {
            gs_g1_affine_set_inf(&p[i]);
        } else if (i == 20) {
            gs_g2_affine_set_inf(&q[i]);
        } else {
            gs_fr_mul(&ab, &a, &b);
            gs_fr_add(&sum, &sum, &ab);
        }
    }
    /* last pair: e(-sum G1, G2) cancels the rest */
    gs_scalar ks;
    gs_fr_neg(&sum, &sum);
    gs_fr_to_scalar(&ks, &sum);
    g1_mul(&p[N - 1], &ks);
    gs_g2_affine_generator(&q[N - 1]);
    GS_CHECK(gs_pairing_product_is_one(p, q, N));

    /* the multi loop equals the product of single loops, exactly */
    gs_fp12 multi, prod, f;
    gs_miller_loop_multi(&multi, p, q, N);
    gs_fp12_one(&prod);
    for (int i = 0; i < N; i++) {
        gs_miller_loop(&f, &p[i], &q[i]);
        gs_fp12_mul(&prod, &prod, &f);
    }
    GS_CHECK(gs_fp12_eq(&multi, &prod));

    /* break the relation: swap in another point, drop a pair, double one */
    gs_g1_affine keep = p[3];
    gs_g1_affine_generator(&p[3]);
    GS_CHECK(!gs_pairing_product_is_one(p, q, N));
    p[3] = keep;
    GS_CHECK(!gs_pairing_product_is_one(p, q, N - 1));
    GS_CHECK(gs_pairing_product_is_one(p, q, N));
    gs_g1 d;
    gs_g1_from_affine(&d, &p[N - 1]);
    gs_g1_dbl(&d, &d);
    gs_g1_to_affine(&p[N - 1], &d);
    GS_CHECK(!gs_pairing_product_is_one(p, q, N));
    /* empty product is one */
    GS_CHECK(gs_pairing_product_is_one(p, q, 0));
    /* e(aP, Q) e(-P, aQ) == 1, the Groth16-shaped check */
    gs_g1_affine pp[2];
    gs_g2_affine qq[2];
    rand_fr(&a, &ka, rng);
    g1_mul(&pp[0], &ka);
    gs_g2_affine_generator(&qq[0]);
    gs_g1_affine_generator(&pp[1]);
    gs_g1_affine_neg(&pp[1], &pp[1]);
    g2_mul(&qq[1], &ka);
    GS_CHECK(gs_pairing_product_is_one(pp, qq, 2));
}
