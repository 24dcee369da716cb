/*
 * The classic H convention (groth16.h): its H scalars against an
 * independent oracle (schoolbook interpolation, multiplication and long
 * division by Z = X^n - 1), its setup points against their formula, and
 * classic-key proofs: they verify, tampering is caught, and they equal the
 * snarkjs-key proofs from the same trapdoors (the H MSM is the same group
 * element in both conventions).
 */
#include "test_g16_util.h"

#include "backend.h"
#include "g16_internal.h"

GS_TEST(groth16_classic_convention_names)
{
    gs_h_convention c = GS_H_CLASSIC;
    GS_CHECK(strcmp(gs_h_convention_name(GS_H_SNARKJS), "snarkjs") == 0);
    GS_CHECK(strcmp(gs_h_convention_name(GS_H_CLASSIC), "classic") == 0);
    GS_CHECK(gs_h_convention_name(GS_H_CONV_COUNT) == NULL);
    GS_CHECK(gs_h_convention_from_name(&c, "snarkjs") && c == GS_H_SNARKJS);
    GS_CHECK(gs_h_convention_from_name(&c, "classic") && c == GS_H_CLASSIC);
    GS_CHECK(!gs_h_convention_from_name(&c, "bellman") && c == GS_H_CLASSIC);
    GS_CHECK_EQ_INT(GS_H_SNARKJS, 0);   /* zeroed keys are snarkjs keys */
}

/* The coset shift is a quadratic non-residue: g^((r-1)/2) = -1, so no
 * power-of-two root of unity equals it and g^n != 1 for every domain. */
GS_TEST(groth16_classic_shift_is_nonresidue)
{
    uint64_t e[GS_FR_LIMBS];
    memcpy(e, GS_FR_MODULUS.l, sizeof e);
    e[0] -= 1;   /* r is odd: no borrow */
    for (int i = 0; i < GS_FR_LIMBS; i++)
        e[i] = (e[i] >> 1) | (i + 1 < GS_FR_LIMBS ? e[i + 1] << 63 : 0);
    gs_fr g, t, minus_one;
    gs_fr_set_u64(&g, GS_FR_GENERATOR);
    gs_fr_pow(&t, &g, e, GS_FR_LIMBS);
    gs_fr_one(&minus_one);
    gs_fr_neg(&minus_one, &minus_one);
    GS_CHECK(gs_fr_eq(&t, &minus_one));
}

GS_TEST(groth16_classic_h_equals_long_division)
{
    static const uint32_t logs[] = { 1, 2, 3, 5, 7 };
    gs_pool *pool = NULL;
    gs_err e;
    gs_err_clear(&e);
    GS_REQUIRE(gs_pool_create(&pool, 2, &e) == GS_OK);
    for (size_t li = 0; li < sizeof logs / sizeof logs[0]; li++) {
        uint32_t log = logs[li], n = 1u << log;
        gs_fr *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
        gs_fr *a0 = malloc(n * sizeof *a0), *b0 = malloc(n * sizeof *b0), *c0 = malloc(n * sizeof *c0);
        gs_fr *h = calloc(n, sizeof *h);
        GS_REQUIRE(a && b && c && a0 && b0 && c0 && h);
        /* A satisfied QAP: random A, B values on the domain, C = A B there;
         * a few rows zero in all three (padding rows of a real circuit). */
        for (uint32_t i = 0; i < n; i++) {
            gs_fr_random(&a0[i], gs_test_rng());
            gs_fr_random(&b0[i], gs_test_rng());
            if (n > 4 && i % 5 == 4) {
                gs_fr_zero(&a0[i]);
                gs_fr_zero(&b0[i]);
            }
            gs_fr_mul(&c0[i], &a0[i], &b0[i]);
        }
        memcpy(a, a0, n * sizeof *a);
        memcpy(b, b0, n * sizeof *b);
        memcpy(c, c0, n * sizeof *c);
        gs_domain *d = NULL;
        GS_REQUIRE(gs_domain_create(&d, log, NULL, &e) == GS_OK);
        gs_pool *p = li % 2 ? pool : NULL;
        gs_g16_h_intt(d, a, b, c, p);
        gs_g16_h_coset_classic(d, a, b, c, p);
        gs_scalar *out = (gs_scalar *)a;
        gs_g16_h_ntt_join_classic(out, d, a, b, c, p);

        GS_CHECK_MSG(tg_naive_quotient(h, a0, b0, c0, log), "2^%u: A*B - C not divisible by Z", log);
        GS_CHECK_MSG(gs_fr_is_zero(&h[n - 1]), "2^%u: quotient of degree n - 1", log);
        size_t bad = 0;
        for (uint32_t k = 0; k < n; k++) {
            gs_scalar want;
            gs_fr_to_scalar(&want, &h[k]);
            bad += memcmp(&want, &out[k], sizeof want) != 0;
        }
        GS_CHECK_MSG(bad == 0, "2^%u: %zu of %u classic H scalars differ from the quotient", log,
                     bad, n);

        /* The oracle itself notices an unsatisfied row. */
        gs_fr one;
        gs_fr_one(&one);
        gs_fr_add(&c0[0], &c0[0], &one);
        GS_CHECK_MSG(!tg_naive_quotient(h, a0, b0, c0, log), "2^%u: oracle missed a remainder", log);
        gs_domain_destroy(d);
        free(a); free(b); free(c); free(a0); free(b0); free(c0); free(h);
    }
    gs_pool_destroy(pool);
}

/* A random instance (r, w) with its keys under both conventions: ps, vs
 * snarkjs's, pc, vc classic. */
typedef struct {
    gs_r1cs r;
    gs_scalar *w;
    gs_pk ps, pc;
    gs_vk vs, vc;
} conv_keys;

static void conv_keys_free(conv_keys *x)
{
    gs_pk_free(&x->ps);
    gs_pk_free(&x->pc);
    gs_vk_free(&x->vs);
    gs_vk_free(&x->vc);
    gs_r1cs_free(&x->r);
    free(x->w);
}

/* k G1 (k Montgomery) equals the affine point p. */
static int g1_is(const gs_g1_affine *p, const gs_fr *k)
{
    gs_g1 g, t;
    gs_g1_affine ta;
    gs_scalar s;
    gs_g1_generator(&g);
    gs_fr_to_scalar(&s, k);
    gs_g1_mul_var(&t, &g, &s);
    gs_g1_to_affine(&ta, &t);
    return gs_g1_affine_eq(&ta, p);
}

GS_TEST(groth16_classic_setup_points)
{
    gs_rng *rng = gs_test_rng();
    conv_keys x;
    GS_REQUIRE(tg_random_r1cs(&x.r, &x.w, 9, 11, 2, 1, rng));
    uint32_t log = gs_groth16_log_domain(9, 2), n = 1u << log, nv = 11, np = 2;
    gs_toxic tox;
    gs_toxic_draw(&tox, rng, log);
    gs_err e;
    gs_err_clear(&e);
    GS_REQUIRE(gs_groth16_setup(&x.ps, &x.vs, &x.r, &tox, NULL, &e) == GS_OK);
    GS_REQUIRE(gs_groth16_setup_conv(&x.pc, &x.vc, &x.r, &tox, GS_H_CLASSIC, NULL, &e) == GS_OK);
    GS_CHECK_EQ_INT(x.ps.h_conv, GS_H_SNARKJS);
    GS_CHECK_EQ_INT(x.pc.h_conv, GS_H_CLASSIC);
    GS_CHECK_EQ_INT(x.pc.domain_size, n);
    /* Everything but H is the snarkjs key's. */
    GS_CHECK(gs_g1_affine_eq(&x.ps.alpha1, &x.pc.alpha1) &&
             gs_g1_affine_eq(&x.ps.beta1, &x.pc.beta1) &&
             gs_g1_affine_eq(&x.ps.delta1, &x.pc.delta1) &&
             gs_g2_affine_eq(&x.ps.beta2, &x.pc.beta2) &&
             gs_g2_affine_eq(&x.ps.gamma2, &x.pc.gamma2) &&
             gs_g2_affine_eq(&x.ps.delta2, &x.pc.delta2));
    for (uint32_t j = 0; j < nv; j++)
        GS_CHECK(gs_g1_affine_eq(&x.ps.a[j], &x.pc.a[j]) &&
                 gs_g1_affine_eq(&x.ps.b1[j], &x.pc.b1[j]) &&
                 gs_g2_affine_eq(&x.ps.b2[j], &x.pc.b2[j]));
    for (uint32_t j = 0; j < nv - np - 1; j++)
        GS_CHECK(gs_g1_affine_eq(&x.ps.c[j], &x.pc.c[j]));
    for (uint32_t j = 0; j <= np; j++)
        GS_CHECK(gs_g1_affine_eq(&x.vs.ic[j], &x.vc.ic[j]));
    GS_CHECK(gs_g1_affine_eq(&x.vs.alpha1, &x.vc.alpha1) &&
             gs_g2_affine_eq(&x.vs.delta2, &x.vc.delta2));
    GS_CHECK_EQ_INT(x.ps.n_coefs, x.pc.n_coefs);
    for (size_t i = 0; i < x.ps.n_coefs && i < x.pc.n_coefs; i++)   /* field by field: padding */
        GS_CHECK(x.ps.coefs[i].matrix == x.pc.coefs[i].matrix &&
                 x.ps.coefs[i].row == x.pc.coefs[i].row &&
                 x.ps.coefs[i].wire == x.pc.coefs[i].wire &&
                 gs_fr_eq(&x.ps.coefs[i].value, &x.pc.coefs[i].value));
    /* h[i] = tau^i Z(tau) / delta. */
    gs_fr k, one, dinv;
    uint64_t en = n;
    gs_fr_one(&one);
    gs_fr_inv(&dinv, &tox.delta);
    gs_fr_pow(&k, &tox.tau, &en, 1);
    gs_fr_sub(&k, &k, &one);
    gs_fr_mul(&k, &k, &dinv);
    for (uint32_t i = 0; i < n; i++) {
        GS_CHECK_MSG(g1_is(&x.pc.h[i], &k), "classic h[%u]", i);
        gs_fr_mul(&k, &k, &tox.tau);
    }
    GS_CHECK(!gs_g1_affine_eq(&x.ps.h[0], &x.pc.h[0]));
    /* A convention out of range is refused. */
    gs_pk px;
    gs_vk vx;
    gs_err_clear(&e);
    GS_CHECK_EQ_INT(gs_groth16_setup_conv(&px, &vx, &x.r, &tox, GS_H_CONV_COUNT, NULL, &e),
                    GS_ERR_ARG);
    conv_keys_free(&x);
}

/*
 * Classic-key proofs through the CPU backend: they verify under the vk,
 * tampering is caught, the stage names are the snarkjs key's, and for the
 * same r, s (random, and zero) the proof equals the snarkjs key's proof.
 */
GS_TEST(groth16_classic_prove_verify)
{
    static const uint32_t shapes[][3] = { { 1, 3, 1 }, { 12, 10, 3 }, { 40, 30, 2 } };
    gs_backend *be = NULL;
    gs_err e;
    gs_err_clear(&e);
    GS_REQUIRE(gs_backend_cpu_create(&be, 2, &e) == GS_OK);
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        uint32_t nc = shapes[k][0], nw = shapes[k][1], np = shapes[k][2];
        conv_keys x;
        gs_assignment as;
        GS_REQUIRE(tg_random_r1cs(&x.r, &x.w, nc, nw, np, 1, gs_test_rng()));
        GS_REQUIRE(gs_groth16_setup_seeded(&x.ps, &x.vs, &x.r, 200 + k, NULL, &e) == GS_OK);
        GS_REQUIRE(gs_groth16_setup_seeded_conv(&x.pc, &x.vc, &x.r, 200 + k, GS_H_CLASSIC, NULL,
                                                &e) == GS_OK);
        GS_REQUIRE(gs_assignment_from_witness(&as, &x.pc, x.w, nw, &e) == GS_OK);
        for (int round = 0; round < 2; round++) {
            gs_scalar rr, ss;
            memset(&rr, 0, sizeof rr);
            memset(&ss, 0, sizeof ss);
            if (round) {
                tg_random_scalar(&rr, gs_test_rng());
                tg_random_scalar(&ss, gs_test_rng());
            }
            gs_proof p1, p2;
            gs_stage_list sl = { 0 };
            gs_prove_state *st = NULL;
            gs_err_clear(&e);
            GS_REQUIRE(be->ops->prove_start(be, &x.pc, &as, &rr, &ss, NULL, &st, &sl, &e) == GS_OK);
            GS_REQUIRE(be->ops->prove_finish(be, st, &p1, &sl, &e) == GS_OK);
            GS_REQUIRE(gs_groth16_prove(&p2, &x.ps, &as, &rr, &ss, 1, &e) == GS_OK);
            GS_CHECK_MSG(gs_g1_affine_eq(&p1.a, &p2.a) && gs_g2_affine_eq(&p1.b, &p2.b) &&
                         gs_g1_affine_eq(&p1.c, &p2.c),
                         "shape %zu round %d: classic proof differs from the snarkjs key's", k,
                         round);
            GS_CHECK_MSG(gs_groth16_verify(&x.vc, x.w + 1, np, &p1, &e) == GS_OK, "shape %zu: %s",
                         k, e.msg);
            static const char *want[] = { "device_mutex_wait", "host_prep", "intt", "coset",
                                          "ntt", "msm_c", "msm_a", "msm_b2", "epilogue" };
            GS_CHECK_EQ_INT(sl.n, 9);
            for (int i = 0; i < sl.n && i < 9; i++)
                GS_CHECK_MSG(strcmp(sl.s[i].name, want[i]) == 0, "stage %d is %s", i,
                             sl.s[i].name);
            /* Tampered C. */
            gs_g1 g, t;
            gs_g1_generator(&g);
            gs_g1_from_affine(&t, &p1.c);
            gs_g1_add(&t, &t, &g);
            gs_g1_to_affine(&p1.c, &t);
            gs_err_clear(&e);
            GS_CHECK_EQ_INT(gs_groth16_verify(&x.vc, x.w + 1, np, &p1, &e), GS_ERR_VERIFY);
        }
        /* A classic key's H scalars under the snarkjs prover (a key mislabelled)
         * give a proof that does not verify: the convention matters. */
        gs_scalar rr = { { 3 } }, ss = { { 5 } };
        gs_proof bad;
        x.pc.h_conv = GS_H_SNARKJS;
        GS_REQUIRE(gs_groth16_prove(&bad, &x.pc, &as, &rr, &ss, 1, &e) == GS_OK);
        gs_err_clear(&e);
        GS_CHECK_EQ_INT(gs_groth16_verify(&x.vc, x.w + 1, np, &bad, &e), GS_ERR_VERIFY);
        x.pc.h_conv = GS_H_CONV_COUNT;
        gs_err_clear(&e);
        GS_CHECK_EQ_INT(gs_groth16_prove(&bad, &x.pc, &as, &rr, &ss, 1, &e), GS_ERR_FORMAT);
        gs_assignment_free(&as);
        conv_keys_free(&x);
    }
    be->ops->destroy(be);
}
