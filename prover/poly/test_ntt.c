/* NTT tests: naive DFT, round trips, cosets, snarkjs's roots. */
#include "poly.h"

#include <stdlib.h>
#include <string.h>

#include "../../test/test.h"

static gs_fr *rand_vec(size_t n)
{
    gs_fr *v = malloc((n ? n : 1) * sizeof *v);
    if (v)
        for (size_t i = 0; i < n; i++)
            gs_fr_random(&v[i], gs_test_rng());
    return v;
}

/* p(x) by Horner. */
static void horner(gs_fr *out, const gs_fr *c, size_t n, const gs_fr *x)
{
    gs_fr acc;
    gs_fr_zero(&acc);
    for (size_t k = n; k-- > 0;) {
        gs_fr_mul(&acc, &acc, x);
        gs_fr_add(&acc, &acc, &c[k]);
    }
    *out = acc;
}

/* out[j] = p(start step^j) for j < n, p the n coefficients c. */
static void eval_geometric(gs_fr *out, const gs_fr *c, size_t n, const gs_fr *start,
                           const gs_fr *step)
{
    gs_fr pt = *start;
    for (size_t j = 0; j < n; j++) {
        horner(&out[j], c, n, &pt);
        gs_fr_mul(&pt, &pt, step);
    }
}

/* out[j] = scale * sum_k a[k] w^(jk), O(n^2). */
static void naive_dft(gs_fr *out, const gs_fr *a, size_t n, const gs_fr *w, const gs_fr *scale)
{
    gs_fr one;
    gs_fr_one(&one);
    eval_geometric(out, a, n, &one, w);
    for (size_t j = 0; j < n; j++)
        gs_fr_mul(&out[j], &out[j], scale);
}

/* One size of the per-size tests: a domain of 2^k and three random
 * vectors of its size (a the input, x and want scratch). */
typedef struct {
    gs_domain *d;
    size_t n;
    gs_fr *a, *x, *want;
} sized;

static int sized_init(sized *t, unsigned k, gs_pool *pool)
{
    t->n = (size_t)1 << k;
    if (gs_domain_create(&t->d, k, pool, NULL) != GS_OK)
        return 0;
    t->a = rand_vec(t->n);
    t->x = rand_vec(t->n);
    t->want = rand_vec(t->n);
    return t->a && t->x && t->want;
}

static void sized_free(sized *t)
{
    free(t->a);
    free(t->x);
    free(t->want);
    gs_domain_destroy(t->d);
}

static int vec_eq(const gs_fr *a, const gs_fr *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!gs_fr_eq(&a[i], &b[i]))
            return 0;
    return 1;
}

static int fr_from_hex(gs_fr *out, const char *hex)
{
    uint8_t be[32] = {0};
    size_t len = strlen(hex);
    if (len > 64)
        return 0;
    for (size_t i = 0; i < len; i++) {
        char ch = hex[len - 1 - i];
        unsigned v = ch <= '9' ? (unsigned)(ch - '0') : (unsigned)((ch | 0x20) - 'a' + 10);
        be[31 - i / 2] |= (uint8_t)(v << (4 * (i % 2)));
    }
    return gs_fr_from_bytes_be(out, be);
}

GS_TEST(poly_roots_match_snarkjs)
{
    /* SNARKJS-FORMATS.md 7.1: w_(2^11) and w_(2^17) for BLS12-381. */
    gs_fr w11, w17, n_inv_check, one, minus_one;
    GS_REQUIRE(fr_from_hex(&w11, "43527a8bca252472eb674a1a620890d7a534af14b61e0abe74a1f6718c130477"));
    GS_REQUIRE(fr_from_hex(&w17, "05deb333f8727901ebe905bd4fb9ac5c77d85a937ff858ec10251f7d8831e03e"));
    gs_domain *d11, *d16;
    GS_REQUIRE(gs_domain_create(&d11, 11, NULL, NULL) == GS_OK);
    GS_REQUIRE(gs_domain_create(&d16, 16, NULL, NULL) == GS_OK);
    GS_CHECK(gs_fr_eq(gs_domain_root(d11), &w11));
    GS_CHECK(gs_fr_eq(gs_domain_odd_shift(d16), &w17));
    /* w_n^(n/2) = -1, w * w^-1 = 1, n * (1/n) = 1, g^2 = w. */
    gs_fr_one(&one);
    gs_fr_neg(&minus_one, &one);
    uint64_t e = 1024;
    gs_fr t;
    gs_fr_pow(&t, gs_domain_root(d11), &e, 1);
    GS_CHECK(gs_fr_eq(&t, &minus_one));
    gs_fr_mul(&t, gs_domain_root(d11), gs_domain_root_inv(d11));
    GS_CHECK(gs_fr_eq(&t, &one));
    gs_fr_set_u64(&n_inv_check, 2048);
    gs_fr_mul(&t, &n_inv_check, gs_domain_size_inv(d11));
    GS_CHECK(gs_fr_eq(&t, &one));
    gs_fr_sqr(&t, gs_domain_odd_shift(d11));
    GS_CHECK(gs_fr_eq(&t, gs_domain_root(d11)));
    GS_CHECK_EQ_INT(gs_domain_size(d11), 2048);
    GS_CHECK_EQ_INT(gs_domain_log(d16), 16);
    gs_domain_destroy(d11);
    gs_domain_destroy(d16);
}

GS_TEST(poly_domain_rejects_bad_size)
{
    gs_domain *d = (gs_domain *)&d;
    gs_err err;
    gs_err_clear(&err);
    GS_CHECK(gs_domain_create(&d, GS_DOMAIN_MAX_LOG + 1, NULL, &err) == GS_ERR_ARG);
    GS_CHECK(d == NULL);
    GS_CHECK(strstr(err.msg, "exceeds") != NULL);
}

/* Forward and inverse transforms against the O(n^2) definition, n = 2^0 .. 2^10. */
GS_TEST(poly_ntt_equals_naive_dft)
{
    gs_pool *pool;
    GS_REQUIRE(gs_pool_create(&pool, 2, NULL) == GS_OK);
    for (unsigned k = 0; k <= 10; k++) {
        sized t;
        GS_REQUIRE(sized_init(&t, k, pool));
        gs_fr one;
        gs_fr_one(&one);

        memcpy(t.x, t.a, t.n * sizeof *t.x);
        gs_domain_ntt(t.d, t.x, k % 2 ? pool : NULL);
        naive_dft(t.want, t.a, t.n, gs_domain_root(t.d), &one);
        GS_CHECK_MSG(vec_eq(t.x, t.want, t.n), "ntt != dft at 2^%u", k);

        memcpy(t.x, t.a, t.n * sizeof *t.x);
        gs_domain_intt(t.d, t.x, k % 2 ? NULL : pool);
        naive_dft(t.want, t.a, t.n, gs_domain_root_inv(t.d), gs_domain_size_inv(t.d));
        GS_CHECK_MSG(vec_eq(t.x, t.want, t.n), "intt != inverse dft at 2^%u", k);
        sized_free(&t);
    }
    gs_pool_destroy(pool);
}

/* The unit vector e_1 goes to the powers of w: checks order and root at once. */
GS_TEST(poly_ntt_of_x_is_powers_of_w)
{
    unsigned k = 14;
    size_t n = (size_t)1 << k;
    gs_domain *d;
    GS_REQUIRE(gs_domain_create(&d, k, NULL, NULL) == GS_OK);
    gs_fr *a = calloc(n, sizeof *a);
    GS_REQUIRE(a);
    gs_fr_one(&a[1]);
    gs_domain_ntt(d, a, NULL);
    gs_fr x;
    gs_fr_one(&x);
    int ok = 1;
    for (size_t j = 0; j < n; j++) {
        if (!gs_fr_eq(&a[j], &x))
            ok = 0;
        gs_fr_mul(&x, &x, gs_domain_root(d));
    }
    GS_CHECK(ok);
    free(a);
    gs_domain_destroy(d);
}

/* intt(ntt(a)) = a up to 2^20 (2^16 quick); threaded equals serial. */
GS_TEST(poly_ntt_round_trip)
{
    gs_pool *pool;
    GS_REQUIRE(gs_pool_create(&pool, 2, NULL) == GS_OK);
    unsigned max_k = gs_test_quick() ? 16 : 20;
    for (unsigned k = 11; k <= max_k; k++) {
        size_t n = (size_t)1 << k;
        gs_domain *d;
        GS_REQUIRE(gs_domain_create(&d, k, pool, NULL) == GS_OK);
        gs_fr *a = rand_vec(n), *x = malloc(n * sizeof *x);
        GS_REQUIRE(a && x);
        memcpy(x, a, n * sizeof *x);
        gs_domain_ntt(d, x, pool);
        GS_CHECK_MSG(!vec_eq(x, a, n), "ntt left 2^%u unchanged", k);
        if (k == 13 || k == 16) {
            gs_fr *y = malloc(n * sizeof *y);
            GS_REQUIRE(y);
            memcpy(y, a, n * sizeof *y);
            gs_domain_ntt(d, y, NULL);
            GS_CHECK_MSG(vec_eq(x, y, n), "threaded ntt != serial at 2^%u", k);
            free(y);
        }
        gs_domain_intt(d, x, pool);
        GS_CHECK_MSG(vec_eq(x, a, n), "intt(ntt(a)) != a at 2^%u", k);
        free(a);
        free(x);
        gs_domain_destroy(d);
    }
    gs_pool_destroy(pool);
}

GS_TEST(poly_coset_matches_evaluation)
{
    gs_pool *pool;
    GS_REQUIRE(gs_pool_create(&pool, 2, NULL) == GS_OK);
    for (unsigned k = 0; k <= 8; k++) {
        sized t;
        GS_REQUIRE(sized_init(&t, k, pool));
        size_t n = t.n;
        gs_fr g, one;

        /* Arbitrary coset: values at g w^j, then back (t.a: the coefficients). */
        gs_fr_random(&g, gs_test_rng());
        memcpy(t.x, t.a, n * sizeof *t.x);
        gs_domain_coset_ntt(t.d, t.x, &g, pool);
        eval_geometric(t.want, t.a, n, &g, gs_domain_root(t.d));
        GS_CHECK_MSG(vec_eq(t.x, t.want, n), "coset ntt at 2^%u", k);
        gs_domain_coset_intt(t.d, t.x, &g, pool);
        GS_CHECK_MSG(vec_eq(t.x, t.a, n), "coset intt at 2^%u", k);

        /* snarkjs's odd coset: values on <w_n> -> values at w_(2n)^(2j+1). */
        gs_fr_one(&one);
        eval_geometric(t.x, t.a, n, &one, gs_domain_root(t.d));
        gs_domain_to_odd_coset(t.d, t.x, k % 2 ? pool : NULL);
        gs_fr w2n, w2n_sq;
        gs_fr_root_of_unity(&w2n, k + 1);
        gs_fr_sqr(&w2n_sq, &w2n);
        eval_geometric(t.want, t.a, n, &w2n, &w2n_sq);
        GS_CHECK_MSG(vec_eq(t.x, t.want, n), "odd coset at 2^%u", k);
        sized_free(&t);
    }
    gs_pool_destroy(pool);
}

GS_TEST(poly_mul_powers)
{
    gs_pool *pool;
    GS_REQUIRE(gs_pool_create(&pool, 2, NULL) == GS_OK);
    size_t n = 20000;
    gs_fr *a = rand_vec(n), *x = malloc(n * sizeof *x);
    GS_REQUIRE(a && x);
    memcpy(x, a, n * sizeof *x);
    gs_fr g, gi, want;
    gs_fr_random(&g, gs_test_rng());
    gs_poly_mul_powers(x, n, &g, pool);
    gs_fr_one(&gi);
    int ok = 1;
    for (size_t i = 0; i < n; i++) {
        gs_fr_mul(&want, &a[i], &gi);
        if (!gs_fr_eq(&want, &x[i]))
            ok = 0;
        gs_fr_mul(&gi, &gi, &g);
    }
    GS_CHECK(ok);
    free(a);
    free(x);
    gs_pool_destroy(pool);
}

/* Beyond the naive range (2^10 < n, so the stages outside the cache block
 * run): spot-check outputs of ntt and of the odd-coset step against Horner
 * evaluation at w^j and w_(2n)^(2j+1). */
GS_TEST(poly_ntt_spot_checks_large)
{
    gs_pool *pool;
    GS_REQUIRE(gs_pool_create(&pool, 2, NULL) == GS_OK);
    const unsigned ks[] = {11, 12, 13, 14, 15, 17};
    for (size_t t = 0; t < sizeof ks / sizeof *ks; t++) {
        unsigned k = ks[t];
        size_t n = (size_t)1 << k;
        gs_domain *d;
        GS_REQUIRE(gs_domain_create(&d, k, pool, NULL) == GS_OK);
        gs_fr *coef = rand_vec(n), *x = malloc(n * sizeof *x);
        GS_REQUIRE(coef && x);
        memcpy(x, coef, n * sizeof *x);
        gs_domain_ntt(d, x, pool);
        int ok = 1;
        for (int s = 0; s < 12; s++) {
            uint64_t j = s == 0 ? 0 : s == 1 ? 1 : s == 2 ? n - 1 : s == 3 ? n / 2 + 1
                                                             : gs_rng_below(gs_test_rng(), n);
            gs_fr pt, want;
            gs_fr_pow(&pt, gs_domain_root(d), &j, 1);
            horner(&want, coef, n, &pt);
            if (!gs_fr_eq(&want, &x[j]))
                ok = 0;
        }
        GS_CHECK_MSG(ok, "ntt spot check at 2^%u", k);

        /* Odd coset from values: x holds the values of coef on <w_n>. */
        gs_domain_to_odd_coset(d, x, pool);
        ok = 1;
        for (int s = 0; s < 6; s++) {
            uint64_t j = s == 0 ? 0 : s == 1 ? n - 1 : gs_rng_below(gs_test_rng(), n);
            uint64_t e = 2 * j + 1;
            gs_fr pt, want;
            gs_fr_pow(&pt, gs_domain_odd_shift(d), &e, 1);
            horner(&want, coef, n, &pt);
            if (!gs_fr_eq(&want, &x[j]))
                ok = 0;
        }
        GS_CHECK_MSG(ok, "odd coset spot check at 2^%u", k);
        free(coef);
        free(x);
        gs_domain_destroy(d);
    }
    gs_pool_destroy(pool);
}
