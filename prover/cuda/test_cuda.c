/*
 * CUDA backend tests: the device against the CPU layers (the oracle) on
 * seeded random inputs.  Field ops (with edge values), NTT forward and
 * inverse at sizes that exercise every kernel path, the H scalars, G1 MSM
 * at several sizes with edge scalars and skewed digit distributions, and
 * full proofs through the backend interface that verify and equal the CPU
 * backend's proofs for the same r, s.
 *
 * Without a device (or a CUDA build) every test prints "skipped: no CUDA
 * device"; with GS_REQUIRE_GPU=1 (make test-gpu) that is a failure instead.
 */
#include <stdlib.h>
#include <string.h>

#include "../../test/test.h"
#include "../groth16/backend.h"
#include "../groth16/g16_internal.h"
#include "../groth16/test_g16_util.h"
#include "../msm/msm.h"
#include "cuda_dev.h"

/* 1 if a device is there; otherwise skips (or fails under GS_REQUIRE_GPU=1). */
static int need_device(void)
{
    if (gs_cuda_device_count() > 0) return 1;
    const char *req = getenv("GS_REQUIRE_GPU");
    if (req && strcmp(req, "1") == 0)
        gs_test_fail(__FILE__, __LINE__, "GS_REQUIRE_GPU=1 but no CUDA device is visible%s",
#ifdef GS_HAVE_CUDA
                     ""
#else
                     " (built without CUDA)"
#endif
        );
    else
        gs_test_skip("no CUDA device");
    return 0;
}

GS_TEST(cuda_backend_create_status)
{
    gs_backend *be = NULL;
    gs_err e;
    gs_err_clear(&e);
    int n = gs_cuda_device_count();
    gs_status st = gs_backend_cuda_create(&be, n, &e); /* one past the last device */
#ifdef GS_HAVE_CUDA
    GS_CHECK_EQ_INT(st, GS_ERR_NODEV);
#else
    GS_CHECK_EQ_INT(n, 0);
    GS_CHECK_EQ_INT(st, GS_ERR_UNSUPPORTED);
#endif
    GS_CHECK(be == NULL);
    GS_CHECK(strstr(e.msg, "device") != NULL);
}

#ifdef GS_HAVE_CUDA

static gs_cu_dev *open_dev(void)
{
    gs_cu_dev *d = NULL;
    gs_err e;
    gs_err_clear(&e);
    if (gs_cu_dev_create(&d, 0, &e) != GS_OK) {
        gs_test_fail(__FILE__, __LINE__, "device 0: %s", e.msg);
        return NULL;
    }
    return d;
}

#define CU_OK(x)                                                              \
    do {                                                                      \
        gs_err_clear(&e);                                                     \
        if ((x) != GS_OK) {                                                   \
            gs_test_fail(__FILE__, __LINE__, "%s: %s", #x, e.msg);            \
            goto done;                                                        \
        }                                                                     \
    } while (0)

GS_TEST(cuda_field_fp_ops)
{
    if (!need_device()) return;
    gs_cu_dev *d = open_dev();
    if (!d) return;
    gs_err e;
    size_t n = gs_test_quick() ? 4096 : 65536;
    gs_fp *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *r = malloc(n * sizeof *r);
    GS_REQUIRE(a && b && r);
    for (size_t i = 0; i < n; i++) {
        gs_fp_random(&a[i], gs_test_rng());
        gs_fp_random(&b[i], gs_test_rng());
    }
    /* Edge values: 0, 1, -1 against each other. */
    gs_fp_zero(&a[0]); gs_fp_zero(&b[0]);
    gs_fp_one(&a[1]); gs_fp_neg(&b[1], &a[1]);
    gs_fp_neg(&a[2], &a[1]); gs_fp_neg(&b[2], &a[1]);
    gs_fp_zero(&a[3]); gs_fp_neg(&b[3], &a[1]);
    for (int op = 0; op < GS_CU_OP_COUNT; op++) {
        memset(r, 0xa5, n * sizeof *r);
        CU_OK(gs_cu_fp_batch(d, r, a, b, n, (gs_cu_op)op, &e));
        size_t bad = 0;
        for (size_t i = 0; i < n; i++) {
            gs_fp want;
            if (op == GS_CU_OP_ADD) gs_fp_add(&want, &a[i], &b[i]);
            else if (op == GS_CU_OP_SUB) gs_fp_sub(&want, &a[i], &b[i]);
            else if (op == GS_CU_OP_MUL) gs_fp_mul(&want, &a[i], &b[i]);
            else gs_fp_sqr(&want, &a[i]);
            bad += !gs_fp_eq(&want, &r[i]);
        }
        GS_CHECK_MSG(bad == 0, "Fp op %d: %zu of %zu differ from the CPU", op, bad, n);
    }
done:
    free(a); free(b); free(r);
    gs_cu_dev_destroy(d);
}

GS_TEST(cuda_field_fr_ops)
{
    if (!need_device()) return;
    gs_cu_dev *d = open_dev();
    if (!d) return;
    gs_err e;
    size_t n = gs_test_quick() ? 4096 : 65536;
    gs_fr *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *r = malloc(n * sizeof *r);
    GS_REQUIRE(a && b && r);
    for (size_t i = 0; i < n; i++) {
        gs_fr_random(&a[i], gs_test_rng());
        gs_fr_random(&b[i], gs_test_rng());
    }
    gs_fr_zero(&a[0]); gs_fr_zero(&b[0]);
    gs_fr_one(&a[1]); gs_fr_neg(&b[1], &a[1]);
    gs_fr_neg(&a[2], &a[1]); gs_fr_neg(&b[2], &a[1]);
    for (int op = 0; op < GS_CU_OP_COUNT; op++) {
        memset(r, 0x5a, n * sizeof *r);
        CU_OK(gs_cu_fr_batch(d, r, a, b, n, (gs_cu_op)op, &e));
        size_t bad = 0;
        for (size_t i = 0; i < n; i++) {
            gs_fr want;
            if (op == GS_CU_OP_ADD) gs_fr_add(&want, &a[i], &b[i]);
            else if (op == GS_CU_OP_SUB) gs_fr_sub(&want, &a[i], &b[i]);
            else if (op == GS_CU_OP_MUL) gs_fr_mul(&want, &a[i], &b[i]);
            else gs_fr_sqr(&want, &a[i]);
            bad += !gs_fr_eq(&want, &r[i]);
        }
        GS_CHECK_MSG(bad == 0, "Fr op %d: %zu of %zu differ from the CPU", op, bad, n);
    }
done:
    free(a); free(b); free(r);
    gs_cu_dev_destroy(d);
}

/* Sizes: inside one shared-memory block, + one radix-2 pass, + radix-4
 * passes, + radix-4 and radix-2. */
GS_TEST(cuda_ntt_vs_cpu)
{
    if (!need_device()) return;
    gs_cu_dev *d = open_dev();
    if (!d) return;
    gs_err e;
    static const unsigned logs[] = { 1, 3, 10, 11, 12, 15, 18 };
    size_t nmax = (size_t)1 << 18;
    gs_fr *x = malloc(nmax * sizeof *x), *y = malloc(nmax * sizeof *y), *dx = NULL;
    gs_domain *dom = NULL;
    GS_REQUIRE(x && y);
    CU_OK(gs_cu_ntt_prepare(d, 18, &e));
    CU_OK(gs_cu_alloc(d, (void **)&dx, nmax * sizeof *dx, &e));
    for (size_t li = 0; li < sizeof logs / sizeof logs[0]; li++) {
        unsigned lg = logs[li];
        if (gs_test_quick() && lg > 15) break;
        size_t n = (size_t)1 << lg;
        CU_OK(gs_domain_create(&dom, lg, NULL, &e));
        for (int inv = 0; inv < 2; inv++) {
            for (size_t i = 0; i < n; i++) gs_fr_random(&x[i], gs_test_rng());
            CU_OK(gs_cu_upload(d, dx, x, n * sizeof *x, 0, &e));
            CU_OK(gs_cu_ntt(d, dx, lg, inv, &e));
            memset(y, 0x33, n * sizeof *y);
            CU_OK(gs_cu_download(d, y, dx, n * sizeof *y, &e));
            if (inv) gs_domain_intt(dom, x, NULL); else gs_domain_ntt(dom, x, NULL);
            size_t bad = 0;
            for (size_t i = 0; i < n; i++) bad += !gs_fr_eq(&x[i], &y[i]);
            GS_CHECK_MSG(bad == 0, "%s NTT 2^%u: %zu of %zu differ", inv ? "inverse" : "forward",
                         lg, bad, n);
        }
        gs_domain_destroy(dom);
        dom = NULL;
    }
done:
    gs_domain_destroy(dom);
    gs_cu_free(d, dx);
    free(x); free(y);
    gs_cu_dev_destroy(d);
}

GS_TEST(cuda_h_scalars_vs_cpu)
{
    if (!need_device()) return;
    gs_cu_dev *d = open_dev();
    if (!d) return;
    gs_err e;
    static const unsigned logs[] = { 1, 4, 11, 14 };
    gs_fr *abc = NULL, *dabc = NULL;
    gs_scalar *got = NULL;
    gs_domain *dom = NULL;
    size_t nmax = (size_t)1 << 14;
    abc = malloc(3 * nmax * sizeof *abc);
    got = malloc(nmax * sizeof *got);
    GS_REQUIRE(abc && got);
    CU_OK(gs_cu_ntt_prepare(d, 15, &e));
    CU_OK(gs_cu_alloc(d, (void **)&dabc, 3 * nmax * sizeof *dabc, &e));
    for (size_t li = 0; li < sizeof logs / sizeof logs[0]; li++) {
        unsigned lg = logs[li];
        size_t n = (size_t)1 << lg;
        gs_fr *a = abc, *b = abc + n, *c = abc + 2 * n;
        for (size_t i = 0; i < n; i++) {
            gs_fr_random(&a[i], gs_test_rng());
            gs_fr_random(&b[i], gs_test_rng());
            /* c = a*b on most rows (a satisfied QAP), random on a few. */
            if (i % 7) gs_fr_mul(&c[i], &a[i], &b[i]); else gs_fr_random(&c[i], gs_test_rng());
        }
        CU_OK(gs_cu_upload(d, dabc, abc, 3 * n * sizeof *abc, 0, &e));
        CU_OK(gs_cu_h_scalars(d, (gs_scalar *)dabc, dabc, dabc + n, dabc + 2 * n, lg, &e));
        CU_OK(gs_cu_download(d, got, dabc, n * sizeof *got, &e));
        CU_OK(gs_domain_create(&dom, lg, NULL, &e));
        gs_g16_h_intt(dom, a, b, c, NULL);
        gs_g16_h_coset(dom, a, b, c, NULL);
        gs_g16_h_ntt_join((gs_scalar *)a, dom, a, b, c, NULL);
        size_t bad = 0;
        for (size_t i = 0; i < n; i++) bad += memcmp(&((gs_scalar *)a)[i], &got[i], sizeof *got) != 0;
        GS_CHECK_MSG(bad == 0, "H scalars 2^%u: %zu of %zu differ", lg, bad, n);
        gs_domain_destroy(dom);
        dom = NULL;
    }
done:
    gs_domain_destroy(dom);
    gs_cu_free(d, dabc);
    free(abc); free(got);
    gs_cu_dev_destroy(d);
}

/* n distinct-ish points: multiples k*G for small k (cheap), some infinity. */
static void make_points(gs_g1_affine *pts, size_t n, size_t distinct)
{
    gs_g1 g, acc;
    gs_g1_generator(&g);
    gs_g1 *jac = malloc(distinct * sizeof *jac);
    acc = g;
    for (size_t i = 0; i < distinct; i++) {
        jac[i] = acc;
        gs_g1_add(&acc, &acc, &g);
        gs_g1_dbl(&acc, &acc);
    }
    gs_g1_batch_to_affine(pts, jac, distinct);
    for (size_t i = distinct; i < n; i++) pts[i] = pts[i % distinct];
    free(jac);
}

/* kind 0: random; 1: edge scalars mixed in; 2: all equal (one bucket); 3: small values. */
static void make_scalars(gs_scalar *sc, size_t n, int kind)
{
    gs_fr f;
    for (size_t i = 0; i < n; i++) {
        gs_fr_random(&f, gs_test_rng());
        gs_fr_to_scalar(&sc[i], &f);
        if (kind == 2) {
            sc[i] = sc[0];
        } else if (kind == 3) {
            memset(&sc[i], 0, sizeof sc[i]);
            sc[i].l[0] = gs_rng_below(gs_test_rng(), 3);
        } else if (kind == 1) {
            switch (i % 6) {
            case 0: memset(&sc[i], 0, sizeof sc[i]); break;
            case 1: memset(&sc[i], 0, sizeof sc[i]); sc[i].l[0] = 1; break;
            case 2: /* r - 1 */
                memcpy(&sc[i], &GS_FR_MODULUS, sizeof sc[i]); sc[i].l[0] -= 1; break;
            case 3: memset(&sc[i], 0, sizeof sc[i]); sc[i].l[i % 4] = 1ull << (i % 63); break;
            default: break;
            }
        }
    }
}

GS_TEST(cuda_msm_vs_cpu)
{
    if (!need_device()) return;
    gs_cu_dev *d = open_dev();
    if (!d) return;
    gs_err e;
    static const struct { size_t n; int kind; int window; } cases[] = {
        { 1, 0, 0 }, { 2, 1, 0 }, { 3, 2, 0 }, { 100, 1, 0 }, { 1000, 0, 0 }, { 1000, 1, 4 },
        { 5000, 2, 0 }, { 5000, 3, 8 }, { 20000, 1, 0 }, { 20000, 0, 13 }, { 1 << 17, 0, 0 },
        { 1 << 17, 3, 16 },
    };
    size_t nmax = (size_t)1 << 17;
    gs_g1_affine *pts = malloc(nmax * sizeof *pts);
    gs_scalar *sc = malloc(nmax * sizeof *sc);
    void *dp = NULL;
    gs_scalar *ds = NULL;
    GS_REQUIRE(pts && sc);
    make_points(pts, nmax, 4093);
    pts[7].inf = 1;
    pts[4000].inf = 1;
    CU_OK(gs_cu_alloc(d, &dp, nmax * 96, &e));
    CU_OK(gs_cu_alloc(d, (void **)&ds, nmax * sizeof *ds, &e));
    CU_OK(gs_cu_g1_upload(d, dp, pts, nmax, &e));
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        size_t n = cases[k].n;
        if (gs_test_quick() && n > 20000) continue;
        make_scalars(sc, n, cases[k].kind);
        CU_OK(gs_cu_upload(d, ds, sc, n * sizeof *sc, 0, &e));
        CU_OK(gs_cu_msm_g1(d, (int)(k % GS_CU_MSM_SLOTS), dp, ds, n, cases[k].window, &e));
        CU_OK(gs_cu_msm_fetch(d, (int)(k % GS_CU_MSM_SLOTS), &e));
        CU_OK(gs_cu_sync(d, &e));
        gs_g1 got, want;
        CU_OK(gs_cu_msm_g1_result(d, (int)(k % GS_CU_MSM_SLOTS), &got, &e));
        GS_CHECK_OK(gs_msm_g1(&want, pts, sc, n, NULL));
        GS_CHECK_MSG(gs_g1_eq(&got, &want), "MSM n = %zu kind %d window %d differs from the CPU",
                     n, cases[k].kind, cases[k].window);
    }
done:
    gs_cu_free(d, dp);
    gs_cu_free(d, ds);
    free(pts); free(sc);
    gs_cu_dev_destroy(d);
}

/* Full proofs through the backend: equal to the CPU backend's for the same
 * r, s (and r = s = 0), and verifying. */
GS_TEST(cuda_prove_vs_cpu)
{
    if (!need_device()) return;
    gs_err e;
    gs_r1cs r1cs;
    gs_scalar *w = NULL;
    gs_pk pk;
    gs_vk vk;
    gs_assignment as;
    gs_backend *gpu = NULL, *cpu = NULL;
    memset(&pk, 0, sizeof pk);
    memset(&vk, 0, sizeof vk);
    memset(&as, 0, sizeof as);
    uint32_t n_cons = gs_test_quick() ? 300 : 3000, n_wires = n_cons / 2 + 10, n_pub = 3;
    GS_REQUIRE(tg_random_r1cs(&r1cs, &w, n_cons, n_wires, n_pub, 2, gs_test_rng()));
    CU_OK(gs_groth16_setup_seeded(&pk, &vk, &r1cs, gs_test_seed(), NULL, &e));
    CU_OK(gs_assignment_from_witness(&as, &pk, w, n_wires, &e));
    CU_OK(gs_backend_cuda_create(&gpu, 0, &e));
    CU_OK(gs_backend_cpu_create(&cpu, 2, &e));
    CU_OK(gpu->ops->load_pk(gpu, &pk, &e));
    for (int round = 0; round < 3; round++) {
        gs_scalar r, s;
        gs_fr f;
        memset(&r, 0, sizeof r);
        memset(&s, 0, sizeof s);
        if (round > 0) {
            gs_fr_random(&f, gs_test_rng()); gs_fr_to_scalar(&r, &f);
            gs_fr_random(&f, gs_test_rng()); gs_fr_to_scalar(&s, &f);
        }
        gs_prove_opts opts = { .pageable = round == 2, .threads = 0, .g2_on_device = 0 };
        gs_stage_list sg = { 0 }, sc = { 0 };
        gs_prove_state *st_g = NULL, *st_c = NULL;
        gs_proof pg, pc;
        CU_OK(gpu->ops->prove_start(gpu, &pk, &as, &r, &s, &opts, &st_g, &sg, &e));
        CU_OK(gpu->ops->prove_finish(gpu, st_g, &pg, &sg, &e));
        CU_OK(cpu->ops->prove_start(cpu, &pk, &as, &r, &s, &opts, &st_c, &sc, &e));
        CU_OK(cpu->ops->prove_finish(cpu, st_c, &pc, &sc, &e));
        GS_CHECK_MSG(gs_g1_affine_eq(&pg.a, &pc.a) && gs_g2_affine_eq(&pg.b, &pc.b) &&
                     gs_g1_affine_eq(&pg.c, &pc.c), "round %d: GPU proof differs from CPU proof",
                     round);
        gs_err_clear(&e);
        GS_CHECK_MSG(gs_groth16_verify(&vk, w + 1, n_pub, &pg, &e) == GS_OK,
                     "round %d: GPU proof does not verify: %s", round, e.msg);
        /* Stages: the device ones in order, on the host clock, non-decreasing. */
        static const char *names[] = { "device_mutex_wait", "h2d", "ntt", "msm_h", "msm_l",
                                       "msm_a", "msm_b1", "d2h", "msm_b2", "epilogue" };
        GS_CHECK_EQ_INT(sg.n, 10);
        for (int i = 0; i < sg.n && i < 10; i++) {
            GS_CHECK_MSG(strcmp(sg.s[i].name, names[i]) == 0, "stage %d is %s", i, sg.s[i].name);
            GS_CHECK(sg.s[i].end_ns >= sg.s[i].start_ns);
            if (i > 1 && i < 8) GS_CHECK(sg.s[i].start_ns >= sg.s[i - 1].end_ns - 20000);
        }
        GS_CHECK_EQ_INT(!!(sg.s[1].flags & GS_STAGE_F_PAGEABLE), round == 2);
        GS_CHECK(sg.s[1].kind == GS_STAGE_COPY && sg.s[3].kind == GS_STAGE_KERNEL);
        GS_CHECK(sg.s[3].device == 0 && sg.s[0].device == -1);
    }
    /* The G2-on-device switch is refused explicitly, not ignored. */
    {
        gs_scalar z;
        memset(&z, 0, sizeof z);
        gs_prove_opts o2 = { .pageable = 0, .threads = 0, .g2_on_device = 1 };
        gs_prove_state *st2 = NULL;
        gs_err_clear(&e);
        GS_CHECK_EQ_INT(gpu->ops->prove_start(gpu, &pk, &as, &z, &z, &o2, &st2, NULL, &e),
                        GS_ERR_UNSUPPORTED);
        GS_CHECK(st2 == NULL);
    }
done:
    if (gpu) gpu->ops->destroy(gpu);
    if (cpu) cpu->ops->destroy(cpu);
    gs_assignment_free(&as);
    gs_pk_free(&pk);
    gs_vk_free(&vk);
    gs_r1cs_free(&r1cs);
    free(w);
}

#else /* !GS_HAVE_CUDA */

/* The GPU tests exist in every build, so CI shows them skipped. */
GS_TEST(cuda_field_fp_ops) { need_device(); }
GS_TEST(cuda_field_fr_ops) { need_device(); }
GS_TEST(cuda_ntt_vs_cpu) { need_device(); }
GS_TEST(cuda_h_scalars_vs_cpu) { need_device(); }
GS_TEST(cuda_msm_vs_cpu) { need_device(); }
GS_TEST(cuda_prove_vs_cpu) { need_device(); }

#endif
