/*
 * Prove/verify tests: random circuits end to end, every rejection class,
 * the backend's stage reports, and the zero-blinding proof against a naive
 * independent prover.
 */
#include "test_g16_util.h"

#include <pthread.h>

#include "backend.h"

typedef struct {
    gs_r1cs r;
    gs_scalar *w;
    gs_pk pk;
    gs_vk vk;
    gs_assignment as;
} inst;

static int inst_make(inst *x, uint32_t n_cons, uint32_t n_wires, uint32_t n_pub,
                     uint64_t seed)
{
    gs_err e;
    gs_err_clear(&e);
    memset(x, 0, sizeof *x);
    if (!tg_random_r1cs(&x->r, &x->w, n_cons, n_wires, n_pub, 1, gs_test_rng()))
        return 0;
    if (gs_groth16_setup_seeded(&x->pk, &x->vk, &x->r, seed, NULL, &e) != GS_OK ||
        gs_assignment_from_witness(&x->as, &x->pk, x->w, n_wires, &e) != GS_OK) {
        gs_test_fail(__FILE__, __LINE__, "instance: %s", e.msg);
        return 0;
    }
    return 1;
}

static void inst_free(inst *x)
{
    gs_assignment_free(&x->as);
    gs_pk_free(&x->pk);
    gs_vk_free(&x->vk);
    gs_r1cs_free(&x->r);
    free(x->w);
}

static void random_rs(gs_scalar *r, gs_scalar *s)
{
    gs_fr t;
    gs_fr_random(&t, gs_test_rng());
    gs_fr_to_scalar(r, &t);
    gs_fr_random(&t, gs_test_rng());
    gs_fr_to_scalar(s, &t);
}

GS_TEST(groth16_prove_verify_random_circuits)
{
    static const uint32_t shapes[][3] = {   /* constraints, wires, public */
        { 1, 3, 1 }, { 7, 9, 0 }, { 12, 10, 3 }, { 33, 40, 2 }, { 100, 80, 5 },
        { 2, 20, 1 }, { 3, 40, 2 },   /* wires > 2 domains: the CPU backend's r w scratch */
    };
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        inst x;
        GS_REQUIRE(inst_make(&x, shapes[k][0], shapes[k][1], shapes[k][2], 100 + k));
        gs_scalar r, s;
        random_rs(&r, &s);
        gs_proof p;
        gs_err e;
        gs_err_clear(&e);
        GS_CHECK_OK(gs_groth16_prove(&p, &x.pk, &x.as, &r, &s, (int)(1 + k % 2), &e));
        gs_err_clear(&e);
        gs_status v = gs_groth16_verify(&x.vk, x.w + 1, x.vk.n_public, &p, &e);
        GS_CHECK_MSG(v == GS_OK, "shape %zu: %s", k, e.msg);
        inst_free(&x);
    }
}

GS_TEST(groth16_rejections)
{
    inst x, y;
    GS_REQUIRE(inst_make(&x, 20, 18, 2, 7));
    GS_REQUIRE(inst_make(&y, 20, 18, 2, 8));   /* another circuit, another key */
    gs_scalar r, s;
    random_rs(&r, &s);
    gs_proof p, q;
    gs_err e;
    gs_err_clear(&e);
    GS_REQUIRE(gs_groth16_prove(&p, &x.pk, &x.as, &r, &s, 1, &e) == GS_OK);
    const gs_scalar *pub = x.w + 1;
    GS_REQUIRE(gs_groth16_verify(&x.vk, pub, 2, &p, &e) == GS_OK);

    /* Tampered proof: each point moved by a generator multiple. */
    gs_g1 g, t;
    gs_g1_generator(&g);
    for (int which = 0; which < 3; which++) {
        q = p;
        if (which == 0) {
            gs_g1_from_affine(&t, &q.a);
            gs_g1_add(&t, &t, &g);
            gs_g1_to_affine(&q.a, &t);
        } else if (which == 1) {
            gs_g2 g2, t2;
            gs_g2_generator(&g2);
            gs_g2_from_affine(&t2, &q.b);
            gs_g2_add(&t2, &t2, &g2);
            gs_g2_to_affine(&q.b, &t2);
        } else {
            gs_g1_from_affine(&t, &q.c);
            gs_g1_add(&t, &t, &g);
            gs_g1_to_affine(&q.c, &t);
        }
        gs_err_clear(&e);
        GS_CHECK_EQ_INT(gs_groth16_verify(&x.vk, pub, 2, &q, &e), GS_ERR_VERIFY);
    }
    /* Swapped A and C (both valid G1 points). */
    q = p;
    q.a = p.c;
    q.c = p.a;
    gs_err_clear(&e);
    GS_CHECK_EQ_INT(gs_groth16_verify(&x.vk, pub, 2, &q, &e), GS_ERR_VERIFY);

    /* Tampered public input. */
    gs_scalar bad[2] = { pub[0], pub[1] };
    bad[1].l[0] ^= 1;
    gs_err_clear(&e);
    GS_CHECK_EQ_INT(gs_groth16_verify(&x.vk, bad, 2, &p, &e), GS_ERR_VERIFY);
    /* Out of range (r itself) and the wrong count. */
    bad[1] = pub[1];
    memcpy(bad[0].l, GS_FR_MODULUS.l, sizeof bad[0].l);
    gs_err_clear(&e);
    GS_CHECK_EQ_INT(gs_groth16_verify(&x.vk, bad, 2, &p, &e), GS_ERR_RANGE);
    gs_err_clear(&e);
    GS_CHECK_EQ_INT(gs_groth16_verify(&x.vk, pub, 1, &p, &e), GS_ERR_MISMATCH);

    /* Another circuit's verifying key. */
    gs_err_clear(&e);
    GS_CHECK_EQ_INT(gs_groth16_verify(&y.vk, pub, 2, &p, &e), GS_ERR_VERIFY);
    /* And the other circuit's honest proof checks under its own key only. */
    gs_err_clear(&e);
    GS_REQUIRE(gs_groth16_prove(&q, &y.pk, &y.as, &r, &s, 1, &e) == GS_OK);
    GS_CHECK_OK(gs_groth16_verify(&y.vk, y.w + 1, 2, &q, &e));
    gs_err_clear(&e);
    GS_CHECK_EQ_INT(gs_groth16_verify(&x.vk, y.w + 1, 2, &q, &e), GS_ERR_VERIFY);

    /* A point off the curve. */
    q = p;
    gs_fp one;
    gs_fp_one(&one);
    gs_fp_add(&q.c.y, &q.c.y, &one);
    gs_err_clear(&e);
    GS_CHECK_EQ_INT(gs_groth16_verify(&x.vk, pub, 2, &q, &e), GS_ERR_POINT);

    /* A wrong witness still "proves" (snarkjs 7.2) but does not verify. */
    gs_assignment bad_as;
    x.w[5].l[0] ^= 2;
    gs_err_clear(&e);
    GS_REQUIRE(gs_assignment_from_witness(&bad_as, &x.pk, x.w, 18, &e) == GS_OK);
    GS_REQUIRE(gs_groth16_prove(&q, &x.pk, &bad_as, &r, &s, 1, &e) == GS_OK);
    GS_CHECK_EQ_INT(gs_groth16_verify(&x.vk, pub, 2, &q, &e), GS_ERR_VERIFY);
    gs_assignment_free(&bad_as);
    inst_free(&x);
    inst_free(&y);
}

/*
 * The naive independent prover with r = s = 0: direct sums for A, B2, C;
 * H from coefficients by schoolbook interpolation, multiplication and
 * division by Z = X^n - 1, evaluated as -2 h(x) at the odd 2n-th roots.
 */
static void naive_prove(gs_proof *out, const inst *x)
{
    const gs_pk *pk = &x->pk;
    const gs_r1cs *r = &x->r;
    uint32_t n = pk->domain_size, log = pk->log_domain, np = pk->n_public, nv = pk->n_vars;
    gs_fr *va = calloc(n, sizeof *va), *vb = calloc(n, sizeof *vb), *vc = calloc(n, sizeof *vc);
    gs_fr *h = calloc(n, sizeof *h);
    gs_scalar *hs = calloc(n, sizeof *hs);
    /* QAP values from the R1CS itself (C from the C matrix, not a*b). */
    for (uint32_t i = 0; i < r->n_constraints; i++) {
        gs_lc_eval(&va[i], r->a_terms + r->a_start[i], r->a_start[i + 1] - r->a_start[i], x->w);
        gs_lc_eval(&vb[i], r->b_terms + r->b_start[i], r->b_start[i + 1] - r->b_start[i], x->w);
        gs_lc_eval(&vc[i], r->c_terms + r->c_start[i], r->c_start[i + 1] - r->c_start[i], x->w);
    }
    for (uint32_t j = 0; j <= np; j++)
        gs_fr_from_scalar(&va[r->n_constraints + j], &x->w[j]);
    GS_CHECK_MSG(tg_naive_quotient(h, va, vb, vc, log), "A*B - C not divisible by Z");
    /* Scalars -2 h(w_2n^(2j+1)). */
    gs_fr g, x2, mtwo;
    gs_fr_root_of_unity(&g, log + 1);
    gs_fr_set_u64(&mtwo, 2);
    gs_fr_neg(&mtwo, &mtwo);
    for (uint32_t j = 0; j < n; j++) {
        uint64_t e = 2 * (uint64_t)j + 1;
        gs_fr_pow(&x2, &g, &e, 1);
        gs_fr acc;
        gs_fr_zero(&acc);
        for (uint32_t k = n; k-- > 0;) {
            gs_fr_mul(&acc, &acc, &x2);
            gs_fr_add(&acc, &acc, &h[k]);
        }
        gs_fr_mul(&acc, &acc, &mtwo);
        gs_fr_to_scalar(&hs[j], &acc);
    }
    gs_g1 a, c, hh;
    /* Direct sums. */
    gs_g1_affine_generator(&out->a);   /* overwritten below */
    {
        gs_g1 t1;
        gs_g1_set_inf(&a);
        for (uint32_t j = 0; j < nv; j++) {
            gs_g1 p;
            gs_g1_from_affine(&p, &pk->a[j]);
            gs_g1_mul_var(&t1, &p, &x->w[j]);
            gs_g1_add(&a, &a, &t1);
        }
        gs_g1_add_affine(&a, &a, &pk->alpha1);
        gs_g1_set_inf(&c);
        for (uint32_t j = np + 1; j < nv; j++) {
            gs_g1 p;
            gs_g1_from_affine(&p, &pk->c[j - np - 1]);
            gs_g1_mul_var(&t1, &p, &x->w[j]);
            gs_g1_add(&c, &c, &t1);
        }
        gs_g1_set_inf(&hh);
        for (uint32_t j = 0; j < n; j++) {
            gs_g1 p;
            gs_g1_from_affine(&p, &pk->h[j]);
            gs_g1_mul_var(&t1, &p, &hs[j]);
            gs_g1_add(&hh, &hh, &t1);
        }
        gs_g1_add(&c, &c, &hh);
    }
    gs_g2 b, t2;
    gs_g2_set_inf(&b);
    for (uint32_t j = 0; j < nv; j++) {
        gs_g2 p;
        gs_g2_from_affine(&p, &pk->b2[j]);
        gs_g2_mul_var(&t2, &p, &x->w[j]);
        gs_g2_add(&b, &b, &t2);
    }
    gs_g2_add_affine(&b, &b, &pk->beta2);
    gs_g1_to_affine(&out->a, &a);
    gs_g2_to_affine(&out->b, &b);
    gs_g1_to_affine(&out->c, &c);
    free(va); free(vb); free(vc); free(h); free(hs);
}

GS_TEST(groth16_zero_blinding_equals_naive)
{
    static const uint32_t shapes[][3] = { { 5, 8, 2 }, { 13, 12, 1 } };
    for (size_t k = 0; k < 2; k++) {
        inst x;
        GS_REQUIRE(inst_make(&x, shapes[k][0], shapes[k][1], shapes[k][2], 42 + k));
        gs_scalar zero = { { 0 } };
        gs_proof p1, p2, pn;
        gs_err e;
        gs_err_clear(&e);
        GS_REQUIRE(gs_groth16_prove(&p1, &x.pk, &x.as, &zero, &zero, 1, &e) == GS_OK);
        GS_REQUIRE(gs_groth16_prove(&p2, &x.pk, &x.as, &zero, &zero, 2, &e) == GS_OK);
        naive_prove(&pn, &x);
        GS_CHECK(gs_g1_affine_eq(&p1.a, &p2.a) && gs_g2_affine_eq(&p1.b, &p2.b) &&
                 gs_g1_affine_eq(&p1.c, &p2.c));
        GS_CHECK(gs_g1_affine_eq(&p1.a, &pn.a));
        GS_CHECK(gs_g2_affine_eq(&p1.b, &pn.b));
        GS_CHECK(gs_g1_affine_eq(&p1.c, &pn.c));
        GS_CHECK_OK(gs_groth16_verify(&x.vk, x.w + 1, x.vk.n_public, &pn, &e));
        inst_free(&x);
    }
}

GS_TEST(groth16_backend_stages_and_abort)
{
    inst x;
    GS_REQUIRE(inst_make(&x, 30, 25, 2, 9));
    gs_backend *be;
    gs_err e;
    gs_err_clear(&e);
    GS_REQUIRE(gs_backend_cpu_create(&be, 2, &e) == GS_OK);
    GS_CHECK(strcmp(be->ops->name, "cpu") == 0);
    GS_CHECK(strlen(be->ops->describe(be)) > 0);
    GS_CHECK_OK(be->ops->load_pk(be, &x.pk, &e));
    gs_scalar r, s;
    random_rs(&r, &s);
    gs_prove_opts opts = {.pageable = 0, .threads = 2, .g2_on_device = 0};
    gs_stage_list sl = { 0 };
    gs_prove_state *st = NULL;
    GS_REQUIRE(be->ops->prove_start(be, &x.pk, &x.as, &r, &s, &opts, &st, &sl, &e) == GS_OK);
    /* The assignment may go away once start has returned. */
    gs_assignment_free(&x.as);
    gs_proof p;
    GS_REQUIRE(be->ops->prove_finish(be, st, &p, &sl, &e) == GS_OK);
    GS_CHECK_OK(gs_groth16_verify(&x.vk, x.w + 1, 2, &p, &e));
    static const char *want[] = { "device_mutex_wait", "host_prep", "intt", "coset", "ntt",
                                  "msm_c", "msm_a", "msm_b2", "epilogue" };
    GS_CHECK_EQ_INT(sl.n, 9);
    for (int i = 0; i < sl.n && i < 9; i++) {
        GS_CHECK_MSG(strcmp(sl.s[i].name, want[i]) == 0, "stage %d is %s", i, sl.s[i].name);
        GS_CHECK(sl.s[i].end_ns >= sl.s[i].start_ns);
        if (i > 0)
            GS_CHECK(sl.s[i].start_ns >= sl.s[i - 1].start_ns);
        int dev = !strcmp(want[i], "intt") || !strcmp(want[i], "coset") ||
                  !strcmp(want[i], "ntt") || !strncmp(want[i], "msm_", 4);
        if (!strcmp(want[i], "msm_b2"))
            dev = 0;
        GS_CHECK_EQ_INT(sl.s[i].kind, dev ? GS_STAGE_KERNEL : GS_STAGE_HOST);
        GS_CHECK_EQ_INT(sl.s[i].device, dev ? 0 : -1);
    }
    /* Start, then abort: no leak, no proof (checked under ASan builds). */
    GS_REQUIRE(gs_assignment_from_witness(&x.as, &x.pk, x.w, 25, &e) == GS_OK);
    GS_REQUIRE(be->ops->prove_start(be, &x.pk, &x.as, &r, &s, &opts, &st, NULL, &e) == GS_OK);
    be->ops->prove_abort(be, st);
    /* A mismatched assignment is refused. */
    x.as.domain_size /= 2;
    gs_err_clear(&e);
    GS_CHECK_EQ_INT(be->ops->prove_start(be, &x.pk, &x.as, &r, &s, &opts, &st, NULL, &e),
                    GS_ERR_MISMATCH);
    x.as.domain_size *= 2;
    /* A blinding r not below the group order is refused (the CPU backend
     * folds r into msm_c's scalars). */
    gs_scalar big;
    memset(&big, 0xff, sizeof big);
    gs_err_clear(&e);
    GS_CHECK_EQ_INT(be->ops->prove_start(be, &x.pk, &x.as, &big, &s, &opts, &st, NULL, &e),
                    GS_ERR_ARG);
    be->ops->destroy(be);
    inst_free(&x);
}

/* opts.consume: the CPU prover works in the caller's assignment (a, b, c
 * overwritten, w read until finish) and makes the same proof as with its
 * own copies; shapes where r w fits in b and where it does not (domain 16
 * and 20 wires: it would fit in b and c together, as with the copies; and
 * 40 wires). */
GS_TEST(groth16_cpu_consume_same_proof)
{
    static const uint32_t shapes[][3] = { { 30, 25, 2 }, { 10, 20, 2 }, { 3, 40, 2 } };
    gs_backend *be;
    gs_err e;
    gs_err_clear(&e);
    GS_REQUIRE(gs_backend_cpu_create(&be, 2, &e) == GS_OK);
    for (size_t k = 0; k < 3; k++) {
        inst x;
        GS_REQUIRE(inst_make(&x, shapes[k][0], shapes[k][1], shapes[k][2], 70 + k));
        GS_CHECK_OK(be->ops->load_pk(be, &x.pk, &e));
        gs_scalar r, s;
        random_rs(&r, &s);
        gs_proof p[2];
        size_t n = x.as.domain_size;
        gs_fr *a0 = malloc(n * sizeof *a0);
        GS_REQUIRE(a0 != NULL);
        memcpy(a0, x.as.a, n * sizeof *a0);
        for (int consume = 0; consume < 2; consume++) {
            gs_prove_opts opts = {.threads = 2, .consume = consume};
            gs_prove_state *st = NULL;
            GS_REQUIRE(be->ops->prove_start(be, &x.pk, &x.as, &r, &s, &opts, &st, NULL, &e) ==
                       GS_OK);
            GS_REQUIRE(be->ops->prove_finish(be, st, &p[consume], NULL, &e) == GS_OK);
            /* Without consume the assignment is left as it was. */
            GS_CHECK_EQ_INT(!memcmp(a0, x.as.a, n * sizeof *a0), !consume);
        }
        GS_CHECK(gs_g1_affine_eq(&p[0].a, &p[1].a) && gs_g2_affine_eq(&p[0].b, &p[1].b) &&
                 gs_g1_affine_eq(&p[0].c, &p[1].c));
        GS_CHECK_OK(gs_groth16_verify(&x.vk, x.w + 1, x.vk.n_public, &p[1], &e));
        free(a0);
        inst_free(&x);
    }
    be->ops->destroy(be);
}

GS_TEST(groth16_random_rs_differ)
{
    gs_scalar r1, s1, r2, s2;
    gs_err e;
    gs_err_clear(&e);
    GS_REQUIRE(gs_groth16_random_rs(&r1, &s1, &e) == GS_OK);
    GS_REQUIRE(gs_groth16_random_rs(&r2, &s2, &e) == GS_OK);
    GS_CHECK(memcmp(&r1, &r2, sizeof r1) != 0 && memcmp(&r1, &s1, sizeof r1) != 0);
    gs_fr t;
    GS_CHECK(gs_fr_from_scalar(&t, &r1) && gs_fr_from_scalar(&t, &s2));
}

/* backend.h's thread-safety contract: several workers share one backend;
 * prove_start serializes internally and prove_finish may overlap a start. */
typedef struct {
    gs_backend *be;
    const inst *x;
    int ok;
} worker_arg;

static void *worker(void *p)
{
    worker_arg *a = p;
    for (int it = 0; it < 3; it++) {
        gs_err e;
        gs_err_clear(&e);
        gs_scalar r, s;
        gs_fr t;
        gs_rng rng;
        gs_rng_seed(&rng, (uint64_t)(uintptr_t)p + (uint64_t)it);
        gs_fr_random(&t, &rng);
        gs_fr_to_scalar(&r, &t);
        gs_fr_random(&t, &rng);
        gs_fr_to_scalar(&s, &t);
        gs_prove_state *st;
        gs_stage_list sl = { 0 };
        gs_proof pr;
        if (a->be->ops->prove_start(a->be, &a->x->pk, &a->x->as, &r, &s, NULL, &st, &sl, &e) ||
            a->be->ops->prove_finish(a->be, st, &pr, &sl, &e) ||
            gs_groth16_verify(&a->x->vk, a->x->w + 1, a->x->vk.n_public, &pr, &e))
            return NULL;
        a->ok++;
    }
    return NULL;
}

GS_TEST(groth16_backend_shared_by_threads)
{
    inst x;
    GS_REQUIRE(inst_make(&x, 40, 30, 2, 13));
    gs_backend *be;
    gs_err e;
    gs_err_clear(&e);
    GS_REQUIRE(gs_backend_cpu_create(&be, 2, &e) == GS_OK);
    pthread_t th[3];
    worker_arg args[3];
    for (int i = 0; i < 3; i++) {
        args[i] = (worker_arg){ be, &x, 0 };
        GS_REQUIRE(pthread_create(&th[i], NULL, worker, &args[i]) == 0);
    }
    for (int i = 0; i < 3; i++) {
        pthread_join(th[i], NULL);
        GS_CHECK_EQ_INT(args[i].ok, 3);
    }
    be->ops->destroy(be);
    inst_free(&x);
}
