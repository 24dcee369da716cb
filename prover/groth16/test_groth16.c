/*
 * Groth16 tests: Lagrange identities, setup against a naive evaluation of
 * the QAP at tau, assignment vs the R1CS, prove -> verify on random
 * circuits, rejections (tampered proof, tampered public input, another
 * circuit's key, bad points, out-of-range inputs), and an exact comparison
 * of the zero-blinding proof with a naive independent prover (direct sums,
 * schoolbook A*B - C = h*Z, then -2h on the odd coset, SNARKJS-FORMATS 7.3).
 */
#include "test_g16_util.h"

#include "g16_internal.h"

#include "backend.h"

/* ---- naive helpers -------------------------------------------------------- */

/* L_i^(n)(x) by the product formula prod_{k != i} (x - w^k) / (w^i - w^k). */
static void naive_lagrange(gs_fr *out, uint32_t log_n, uint32_t i, const gs_fr *x)
{
    uint32_t n = 1u << log_n;
    gs_fr w, wi, wk, num, den, t;
    gs_fr_root_of_unity(&w, log_n);
    uint64_t e = i;
    gs_fr_pow(&wi, &w, &e, 1);
    gs_fr_one(&num);
    gs_fr_one(&den);
    gs_fr_one(&wk);
    for (uint32_t k = 0; k < n; k++, gs_fr_mul(&wk, &wk, &w)) {
        if (k == i)
            continue;
        gs_fr_sub(&t, x, &wk);
        gs_fr_mul(&num, &num, &t);
        gs_fr_sub(&t, &wi, &wk);
        gs_fr_mul(&den, &den, &t);
    }
    gs_fr_inv(&den, &den);
    gs_fr_mul(out, &num, &den);
}

static int g1_aff_is(const gs_g1_affine *a, const gs_fr *k)
{
    gs_g1 g, e;
    gs_scalar s;
    gs_g1_generator(&g);
    gs_fr_to_scalar(&s, k);
    gs_g1_mul_var(&e, &g, &s);
    gs_g1_affine ea;
    gs_g1_to_affine(&ea, &e);
    return gs_g1_affine_eq(a, &ea);
}

/* ---- tests ------------------------------------------------------------------ */

GS_TEST(groth16_lagrange_identities)
{
    gs_rng *rng = gs_test_rng();
    for (uint32_t log = 0; log <= 6; log++) {
        uint32_t n = 1u << log;
        gs_fr x, l[64], sum, sumx, w, wi, t, naive;
        gs_fr_random(&x, rng);
        gs_lagrange_eval(l, log, &x, NULL);
        gs_fr_root_of_unity(&w, log);
        gs_fr_zero(&sum);
        gs_fr_zero(&sumx);
        gs_fr_one(&wi);
        for (uint32_t i = 0; i < n; i++) {
            gs_fr_add(&sum, &sum, &l[i]);
            gs_fr_mul(&t, &l[i], &wi);
            gs_fr_add(&sumx, &sumx, &t);
            gs_fr_mul(&wi, &wi, &w);
        }
        GS_CHECK(gs_fr_is_one(&sum));                    /* sum L_i = 1 */
        if (n > 1)
            GS_CHECK(gs_fr_eq(&sumx, &x));               /* sum L_i w^i = X */
        uint32_t i = (uint32_t)gs_rng_below(rng, n);
        naive_lagrange(&naive, log, i, &x);
        GS_CHECK(gs_fr_eq(&naive, &l[i]));
    }
}

GS_TEST(groth16_domain_rule)
{
    GS_CHECK_EQ_INT(gs_groth16_log_domain(1, 1), 2);     /* 2 -> 4 */
    GS_CHECK_EQ_INT(gs_groth16_log_domain(3, 0), 2);
    GS_CHECK_EQ_INT(gs_groth16_log_domain(3, 1), 3);     /* 4 -> 8: strictly greater */
    GS_CHECK_EQ_INT(gs_groth16_log_domain(65535, 1), 17);
    GS_CHECK_EQ_INT(gs_groth16_log_domain(65534, 1), 16);
}

GS_TEST(groth16_r1cs_check)
{
    gs_r1cs r;
    gs_scalar *w;
    gs_err e;
    GS_REQUIRE(tg_random_r1cs(&r, &w, 40, 30, 3, 2, gs_test_rng()));
    gs_err_clear(&e);
    GS_CHECK_OK(gs_r1cs_validate(&r, &e));
    GS_CHECK_OK(gs_r1cs_check(&r, w, 30, NULL, &e));
    w[7].l[0] ^= 1;
    gs_err_clear(&e);
    GS_CHECK_EQ_INT(gs_r1cs_check(&r, w, 30, NULL, &e), GS_ERR_UNSAT);
    GS_CHECK(strstr(e.msg, "constraint") != NULL);
    w[7].l[0] ^= 1;
    gs_err_clear(&e);
    GS_CHECK_EQ_INT(gs_r1cs_check(&r, w, 29, NULL, &e), GS_ERR_MISMATCH);
    r.a_terms[3].wire = 99;
    gs_err_clear(&e);
    GS_CHECK_EQ_INT(gs_r1cs_validate(&r, &e), GS_ERR_FORMAT);
    gs_r1cs_free(&r);
    free(w);
}

/* Setup against the naive QAP at tau, for every point family. */
GS_TEST(groth16_setup_matches_naive)
{
    gs_rng *rng = gs_test_rng();
    gs_r1cs r;
    gs_scalar *w;
    GS_REQUIRE(tg_random_r1cs(&r, &w, 6, 9, 2, 1, rng));
    uint32_t np = 2, nv = 9, log = gs_groth16_log_domain(6, np), n = 1u << log;
    gs_toxic tox;
    gs_toxic_draw(&tox, rng, log);
    gs_pk pk;
    gs_vk vk;
    gs_err e;
    gs_err_clear(&e);
    GS_REQUIRE(gs_groth16_setup(&pk, &vk, &r, &tox, NULL, &e) == GS_OK);
    GS_CHECK_EQ_INT(pk.domain_size, n);
    GS_CHECK_EQ_INT(pk.n_coefs, r.a_start[6] + r.b_start[6] + np + 1);

    gs_fr u[9], v[9], c[9], lag[16], t;
    memset(u, 0, sizeof u);
    memset(v, 0, sizeof v);
    memset(c, 0, sizeof c);
    for (uint32_t i = 0; i < n; i++)
        naive_lagrange(&lag[i], log, i, &tox.tau);
    for (uint32_t i = 0; i < 6; i++) {
        for (uint64_t k = r.a_start[i]; k < r.a_start[i + 1]; k++) {
            gs_fr_mul(&t, &r.a_terms[k].coeff, &lag[i]);
            gs_fr_add(&u[r.a_terms[k].wire], &u[r.a_terms[k].wire], &t);
        }
        for (uint64_t k = r.b_start[i]; k < r.b_start[i + 1]; k++) {
            gs_fr_mul(&t, &r.b_terms[k].coeff, &lag[i]);
            gs_fr_add(&v[r.b_terms[k].wire], &v[r.b_terms[k].wire], &t);
        }
        for (uint64_t k = r.c_start[i]; k < r.c_start[i + 1]; k++) {
            gs_fr_mul(&t, &r.c_terms[k].coeff, &lag[i]);
            gs_fr_add(&c[r.c_terms[k].wire], &c[r.c_terms[k].wire], &t);
        }
    }
    for (uint32_t j = 0; j <= np; j++)
        gs_fr_add(&u[j], &u[j], &lag[6 + j]);
    gs_fr dinv;
    gs_fr_inv(&dinv, &tox.delta);
    for (uint32_t j = 0; j < nv; j++) {
        GS_CHECK(g1_aff_is(&pk.a[j], &u[j]));
        GS_CHECK(g1_aff_is(&pk.b1[j], &v[j]));
        gs_fr k, t2;
        gs_fr_mul(&k, &tox.beta, &u[j]);
        gs_fr_mul(&t2, &tox.alpha, &v[j]);
        gs_fr_add(&k, &k, &t2);
        gs_fr_add(&k, &k, &c[j]);
        if (j <= np)
            GS_CHECK(g1_aff_is(&pk.ic[j], &k));
        else {
            gs_fr_mul(&k, &k, &dinv);
            GS_CHECK(g1_aff_is(&pk.c[j - np - 1], &k));
        }
    }
    GS_CHECK(pk.a[nv - 1].inf);   /* the unused wire */
    /* B2 = v_j G2 for one wire. */
    gs_g2 g2, e2;
    gs_scalar s;
    gs_g2_generator(&g2);
    gs_fr_to_scalar(&s, &v[1]);
    gs_g2_mul_var(&e2, &g2, &s);
    gs_g2_affine e2a;
    gs_g2_to_affine(&e2a, &e2);
    GS_CHECK(gs_g2_affine_eq(&pk.b2[1], &e2a));
    for (uint32_t k = 0; k < n; k++) {
        gs_fr l2;
        naive_lagrange(&l2, log + 1, 2 * k + 1, &tox.tau);
        gs_fr_mul(&l2, &l2, &dinv);
        GS_CHECK(g1_aff_is(&pk.h[k], &l2));
    }
    GS_CHECK(g1_aff_is(&pk.alpha1, &tox.alpha));
    GS_CHECK(g1_aff_is(&pk.delta1, &tox.delta));
    gs_pk_free(&pk);
    gs_vk_free(&vk);
    gs_r1cs_free(&r);
    free(w);
}

GS_TEST(groth16_assignment_matches_r1cs)
{
    gs_rng *rng = gs_test_rng();
    gs_r1cs r;
    gs_scalar *w;
    GS_REQUIRE(tg_random_r1cs(&r, &w, 20, 16, 3, 0, rng));
    gs_pk pk;
    gs_vk vk;
    gs_assignment as;
    gs_err e;
    gs_err_clear(&e);
    GS_REQUIRE(gs_groth16_setup_seeded(&pk, &vk, &r, 5, NULL, &e) == GS_OK);
    GS_REQUIRE(gs_assignment_from_witness(&as, &pk, w, 16, &e) == GS_OK);
    for (uint32_t i = 0; i < pk.domain_size; i++) {
        gs_fr a, b, c, ab, wi;
        gs_fr_zero(&a);
        gs_fr_zero(&b);
        gs_fr_zero(&c);
        if (i < 20) {
            gs_lc_eval(&a, r.a_terms + r.a_start[i], r.a_start[i + 1] - r.a_start[i], w);
            gs_lc_eval(&b, r.b_terms + r.b_start[i], r.b_start[i + 1] - r.b_start[i], w);
            gs_lc_eval(&c, r.c_terms + r.c_start[i], r.c_start[i + 1] - r.c_start[i], w);
        } else if (i <= 20 + 3) {
            gs_fr_from_scalar(&wi, &w[i - 20]);
            a = wi;
        }
        gs_fr_mul(&ab, &a, &b);
        GS_CHECK(gs_fr_eq(&as.a[i], &a));
        GS_CHECK(gs_fr_eq(&as.b[i], &b));
        GS_CHECK(gs_fr_eq(&as.c[i], &c));
        GS_CHECK(gs_fr_eq(&as.c[i], &ab));
    }
    /* On a pool of 1-5 threads (row parts 1-4): the same vectors, the same
     * errors (the lowest bad wire, the lowest bad coefficient). */
    for (unsigned th = 1; th <= 5; th++) {
        gs_pool *pool;
        GS_REQUIRE(gs_pool_create(&pool, th, NULL) == GS_OK);
        gs_assignment ap;
        GS_REQUIRE(gs_assignment_from_witness_pool(&ap, &pk, w, 16, pool, &e) == GS_OK);
        GS_CHECK(!memcmp(ap.a, as.a, pk.domain_size * sizeof *as.a) &&
                 !memcmp(ap.b, as.b, pk.domain_size * sizeof *as.b) &&
                 !memcmp(ap.c, as.c, pk.domain_size * sizeof *as.c) &&
                 !memcmp(ap.w, as.w, 16 * sizeof *as.w));
        gs_assignment_free(&ap);
        gs_scalar keep5 = w[5], keep9 = w[9];
        memset(&w[9], 0xff, sizeof w[9]);
        memset(&w[5], 0xff, sizeof w[5]);
        gs_err_clear(&e);
        GS_CHECK_EQ_INT(gs_assignment_from_witness_pool(&ap, &pk, w, 16, pool, &e), GS_ERR_RANGE);
        GS_CHECK_MSG(strstr(e.msg, "wire 5 ") != NULL, "%s", e.msg);
        w[5] = keep5;
        w[9] = keep9;
        if (pk.n_coefs > 7) {
            uint32_t r3 = pk.coefs[3].row, r7 = pk.coefs[7].wire;
            pk.coefs[7].wire = pk.n_vars;
            pk.coefs[3].row = pk.domain_size + 1;
            gs_err_clear(&e);
            GS_CHECK_EQ_INT(gs_assignment_from_witness_pool(&ap, &pk, w, 16, pool, &e),
                            GS_ERR_FORMAT);
            GS_CHECK_MSG(strstr(e.msg, "coefficient 3:") != NULL, "%s", e.msg);
            pk.coefs[3].row = r3;
            pk.coefs[7].wire = r7;
        }
        gs_pool_destroy(pool);
    }
    gs_assignment_free(&as);
    gs_err_clear(&e);
    GS_CHECK_EQ_INT(gs_assignment_from_witness(&as, &pk, w, 15, &e), GS_ERR_MISMATCH);
    gs_pk_free(&pk);
    gs_vk_free(&vk);
    gs_r1cs_free(&r);
    free(w);
}

/* Fixed-base combs of every window size setup uses, against double-and-add,
 * on random and edge scalars (0, 1, r - 1, powers of two at window edges). */
GS_TEST(groth16_fixed_base_vs_mul)
{
    enum { N = 40 };
    gs_fr k[N];
    gs_rng *rng = gs_test_rng();
    gs_fr_zero(&k[0]);
    gs_fr_one(&k[1]);
    gs_fr_neg(&k[2], &k[1]);                 /* r - 1 */
    for (int i = 3; i < 12; i++) {           /* 2^(i*23) */
        gs_fr two;
        gs_fr_set_u64(&two, 2);
        uint64_t e = (uint64_t)i * 23;
        gs_fr_pow(&k[i], &two, &e, 1);
    }
    for (int i = 12; i < N; i++)
        gs_fr_random(&k[i], rng);
    static const unsigned ws[] = { 4, 8, 10, 12 };
    gs_g1 g1, e1;
    gs_g2 g2, e2;
    gs_g1_generator(&g1);
    gs_g2_generator(&g2);
    gs_pool *pool = NULL;
    gs_err e;
    gs_err_clear(&e);
    GS_REQUIRE(gs_pool_create(&pool, 2, &e) == GS_OK);
    for (size_t wi = 0; wi < sizeof ws / sizeof ws[0]; wi++) {
        if (gs_test_quick() && ws[wi] > 10)
            continue;
        gs_fb_g1 t1;
        gs_fb_g2 t2;
        GS_REQUIRE(gs_fb_g1_init(&t1, &g1, ws[wi], pool, &e) == GS_OK);
        GS_REQUIRE(gs_fb_g2_init(&t2, &g2, ws[wi], pool, &e) == GS_OK);
        gs_g1_affine o1[N];
        gs_g2_affine o2[N];
        GS_REQUIRE(gs_fb_g1_mul_many(o1, &t1, k, N, pool, &e) == GS_OK);
        GS_REQUIRE(gs_fb_g2_mul_many(o2, &t2, k, N, pool, &e) == GS_OK);
        for (int i = 0; i < N; i++) {
            gs_scalar s;
            gs_fr_to_scalar(&s, &k[i]);
            gs_g1_mul_var(&e1, &g1, &s);
            gs_g2_mul_var(&e2, &g2, &s);
            gs_g1_affine a1;
            gs_g2_affine a2;
            gs_g1_to_affine(&a1, &e1);
            gs_g2_to_affine(&a2, &e2);
            GS_CHECK_MSG(gs_g1_affine_eq(&o1[i], &a1), "G1 w=%u scalar %d", ws[wi], i);
            GS_CHECK_MSG(gs_g2_affine_eq(&o2[i], &a2), "G2 w=%u scalar %d", ws[wi], i);
        }
        GS_CHECK(o1[0].inf && o2[0].inf);
        gs_fb_g1_free(&t1);
        gs_fb_g2_free(&t2);
    }
    gs_pool_destroy(pool);
}
