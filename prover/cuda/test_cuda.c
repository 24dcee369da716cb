/*
 * CUDA backend tests: the device against the CPU layers (the oracle) on
 * seeded random inputs.  Fp, Fr and Fp2 ops (with edge values), NTT
 * forward and inverse at sizes that exercise every kernel path, the H
 * scalars, G1 and G2 MSM at several sizes with edge scalars, points at
 * infinity and skewed digit distributions, and full proofs through the
 * backend interface (G2 MSM on the CPU and on the device) that verify and
 * equal the CPU backend's proofs for the same r, s.
 *
 * Without a device (or a CUDA build) every test prints "skipped: no CUDA
 * device"; with GS_REQUIRE_GPU=1 (make test-gpu) that is a failure instead.
 * The oracles and helpers shared with test_cuda_levers.c (issue 33's
 * knobs) are declared in test_cuda_util.h.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../test/test.h"
#include "../groth16/backend.h"
#include "../groth16/g16_internal.h"
#include "../groth16/test_g16_util.h"
#include "../msm/msm.h"
#include "cuda.h"
#include "cuda_dev.h"
#include "test_cuda_util.h"

/* test_cuda_util.h */
int tcu_need_device(void)
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

gs_cu_dev *tcu_open_dev(void)
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

/*
 * One field's host oracle for the element-wise differential test, built by
 * FIELD_ORACLE from the field's gs_<f>_* functions.  The first EDGES pairs
 * are edge values: (0, 0), (1, -1), (-1, -1), (0, -1); Fp2 adds (u, u),
 * whose product is -1, and (-1 - u, u).
 */
#define EDGES 6
typedef struct {
    const char *name;
    size_t size;
    void (*random)(void *out, gs_rng *rng);
    void (*edges)(void *a, void *b);
    void (*op)(void *out, const void *a, const void *b, int op);
    int (*eq)(const void *a, const void *b);
    gs_status (*batch)(gs_cu_dev *d, void *out, const void *a, const void *b, size_t n,
                       gs_cu_op op, gs_err *err);
} field_oracle;

#define FIELD_ORACLE(f, T, NAME)                                                       \
    static void f##_o_random(void *o, gs_rng *r) { gs_##f##_random((T *)o, r); }      \
    static void f##_o_edges(void *va, void *vb)                                       \
    {                                                                                 \
        T *a = va, *b = vb;                                                           \
        gs_##f##_zero(&a[0]); gs_##f##_zero(&b[0]);                                   \
        gs_##f##_one(&a[1]); gs_##f##_neg(&b[1], &a[1]);                              \
        gs_##f##_neg(&a[2], &a[1]); gs_##f##_neg(&b[2], &a[1]);                       \
        gs_##f##_zero(&a[3]); gs_##f##_neg(&b[3], &a[1]);                             \
    }                                                                                 \
    static void f##_o_op(void *o, const void *a, const void *b, int op)               \
    {                                                                                 \
        if (op == GS_CU_OP_ADD) gs_##f##_add(o, a, b);                                \
        else if (op == GS_CU_OP_SUB) gs_##f##_sub(o, a, b);                           \
        else if (op == GS_CU_OP_MUL) gs_##f##_mul(o, a, b);                           \
        else gs_##f##_sqr(o, a);                                                      \
    }                                                                                 \
    static int f##_o_eq(const void *a, const void *b) { return gs_##f##_eq(a, b); }   \
    static gs_status f##_o_batch(gs_cu_dev *d, void *o, const void *a, const void *b, \
                                 size_t n, gs_cu_op op, gs_err *err)                  \
    {                                                                                 \
        return gs_cu_##f##_batch(d, o, a, b, n, op, err);                             \
    }                                                                                 \
    static const field_oracle f##_oracle = { NAME, sizeof(T), f##_o_random, f##_o_edges, \
                                             f##_o_op, f##_o_eq, f##_o_batch };

FIELD_ORACLE(fp, gs_fp, "Fp")
FIELD_ORACLE(fr, gs_fr, "Fr")
FIELD_ORACLE(fp2, gs_fp2, "Fp2")

static void field_vs_cpu(const field_oracle *f, void (*more_edges)(void *a, void *b))
{
    if (!tcu_need_device()) return;
    gs_cu_dev *d = tcu_open_dev();
    if (!d) return;
    gs_err e;
    size_t n = gs_test_quick() ? 4096 : 65536, sz = f->size;
    char *a = malloc(n * sz), *b = malloc(n * sz), *r = malloc(n * sz), *want = malloc(sz);
    if (!a || !b || !r || !want) {
        gs_test_fail(__FILE__, __LINE__, "%s: out of memory", f->name);
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        f->random(a + i * sz, gs_test_rng());
        f->random(b + i * sz, gs_test_rng());
    }
    f->edges(a, b);
    if (more_edges) more_edges(a, b);
    for (int op = 0; op < GS_CU_OP_COUNT; op++) {
        memset(r, 0xa5, n * sz);
        CU_OK(f->batch(d, r, a, b, n, (gs_cu_op)op, &e));
        size_t bad = 0, bad_edge = 0;
        for (size_t i = 0; i < n; i++) {
            f->op(want, a + i * sz, b + i * sz, op);
            int differs = !f->eq(want, r + i * sz);
            bad += differs;
            bad_edge += differs && i < EDGES;
        }
        GS_CHECK_MSG(bad == 0, "%s op %d: %zu of %zu differ from the CPU (%zu of the %d edges)",
                     f->name, op, bad, n, bad_edge, EDGES);
    }
done:
    free(a); free(b); free(r); free(want);
    gs_cu_dev_destroy(d);
}

/* Fp2 edges 4, 5: (u, u) and (-1 - u, u). */
static void fp2_more_edges(void *va, void *vb)
{
    gs_fp2 *a = va, *b = vb;
    gs_fp2_zero(&a[4]);
    gs_fp_one(&a[4].c1);
    b[4] = a[4];
    gs_fp2_one(&a[5]);
    gs_fp2_add(&a[5], &a[5], &a[4]);
    gs_fp2_neg(&a[5], &a[5]);
    b[5] = a[4];
}

/* Fp edges by raw limbs (any value below p is some element in Montgomery
 * form), at the top of the range the device code must handle: p - 1, p - 2,
 * 2^380, 2^352 - 1, raw 1; with GS_CU_FV's lazy bit the device lifts them
 * to x + p, up to 2p - 1 (cu_fieldops.cu). */
static void fp_more_edges(void *va, void *vb)
{
    gs_fp *a = va, *b = vb, pm1 = GS_FP_MODULUS, pm2 = GS_FP_MODULUS, t380, low, one;
    pm1.l[0] -= 1;
    pm2.l[0] -= 2;
    memset(&t380, 0, sizeof t380);
    t380.l[5] = 1ull << 60;
    memset(&low, 0, sizeof low);
    for (int i = 0; i < 5; i++) low.l[i] = ~0ull;
    low.l[5] = 0xffffffffull;
    memset(&one, 0, sizeof one);
    one.l[0] = 1;
    a[6] = pm1; b[6] = pm1;
    a[7] = pm1; b[7] = one;
    a[8] = t380; b[8] = t380;
    a[9] = pm2; b[9] = t380;
    a[10] = low; b[10] = pm1;
    a[11] = one; b[11] = pm2;
    a[12] = pm1; b[12] = low;
    a[13] = t380; b[13] = pm1;
}

GS_TEST(cuda_field_fp_ops) { field_vs_cpu(&fp_oracle, fp_more_edges); }
GS_TEST(cuda_field_fr_ops) { field_vs_cpu(&fr_oracle, NULL); }
GS_TEST(cuda_field_fp2_ops) { field_vs_cpu(&fp2_oracle, fp2_more_edges); }

/* The device NTT reads GS_CU_NTT per call: var 0 runs the implementation
 * the environment selects, 1 the other one (old / new); -1 restores. */
static char ntt_env_saved[64];
static int ntt_env_had = -1;

static const char *variant_name(int var)
{
    const char *v = ntt_env_had == 1 ? ntt_env_saved : NULL;
    int is_new = !(v && strcmp(v, "old") == 0); /* the default is new */
    return (var == 0) == is_new ? "new" : "old";
}

static void ntt_variant(int var)
{
    if (ntt_env_had < 0) {
        const char *v = getenv("GS_CU_NTT");
        ntt_env_had = v != NULL;
        if (v) snprintf(ntt_env_saved, sizeof ntt_env_saved, "%s", v);
    }
    if (var < 0) {
        if (ntt_env_had) setenv("GS_CU_NTT", ntt_env_saved, 1); else unsetenv("GS_CU_NTT");
        ntt_env_had = -1;
        return;
    }
    setenv("GS_CU_NTT", variant_name(var), 1);
}

/* Every size from 2^1 to 2^20 (2^15 quick), then 2^22, both directions:
 * every kernel path of either variant (GS_CU_NTT: the one-block transform
 * up to 2^11, the first pass's palindromic and paired middle fields, one
 * to three later passes with uneven stage counts, three from 2^22 in the
 * default tuning; the old bit reversal, shared-memory stages, radix-4 and
 * radix-2 passes).  Edge inputs: all zero, all r - 1, one nonzero element. */
GS_TEST(cuda_ntt_vs_cpu)
{
    if (!tcu_need_device()) return;
    gs_cu_dev *d = tcu_open_dev();
    if (!d) return;
    gs_err e;
    unsigned lmax = gs_test_quick() ? 15 : 22;
    size_t nmax = (size_t)1 << lmax;
    gs_fr *x = malloc(nmax * sizeof *x), *y = malloc(nmax * sizeof *y), *dx = NULL;
    gs_domain *dom = NULL;
    GS_REQUIRE(x && y);
    CU_OK(gs_cu_ntt_prepare(d, lmax, &e));
    CU_OK(gs_cu_alloc(d, (void **)&dx, nmax * sizeof *dx, &e));
    for (int var = 0; var < 2; var++)
    for (unsigned lg = 1; lg <= lmax; lg += lg < 20 ? 1 : 2) {
        ntt_variant(var);
        size_t n = (size_t)1 << lg;
        CU_OK(gs_domain_create(&dom, lg, NULL, &e));
        for (int inv = 0; inv < 2; inv++) {
            for (size_t i = 0; i < n; i++) gs_fr_random(&x[i], gs_test_rng());
            /* Edge inputs at a few sizes: 0s, r - 1s, a single 1 at index n - 1. */
            if (lg % 5 == 2) {
                int kind = (lg / 5 + inv) % 3;
                for (size_t i = 0; i < n; i++) {
                    if (kind == 0) gs_fr_zero(&x[i]);
                    else if (kind == 1) { gs_fr_one(&x[i]); gs_fr_neg(&x[i], &x[i]); }
                    else if (i + 1 < n) gs_fr_zero(&x[i]);
                    else gs_fr_one(&x[i]);
                }
            }
            CU_OK(gs_cu_upload(d, dx, x, n * sizeof *x, 0, &e));
            CU_OK(gs_cu_ntt(d, dx, lg, inv, &e));
            memset(y, 0x33, n * sizeof *y);
            CU_OK(gs_cu_download(d, y, dx, n * sizeof *y, &e));
            if (inv) gs_domain_intt(dom, x, NULL); else gs_domain_ntt(dom, x, NULL);
            size_t bad = 0;
            for (size_t i = 0; i < n; i++) bad += !gs_fr_eq(&x[i], &y[i]);
            GS_CHECK_MSG(bad == 0, "%s %s NTT 2^%u: %zu of %zu differ", variant_name(var),
                         inv ? "inverse" : "forward", lg, bad, n);
        }
        gs_domain_destroy(dom);
        dom = NULL;
    }
done:
    ntt_variant(-1);
    gs_domain_destroy(dom);
    gs_cu_free(d, dx);
    free(x); free(y);
    gs_cu_dev_destroy(d);
}

/* H scalars on the device equal the CPU's, on satisfied and unsatisfied
 * rows, in either convention (groth16.h).  The classic H is checked with a
 * twiddle table of exactly 2^log_n (all it needs) at the largest size, and
 * a smaller table must be refused, not overrun. */
static void h_scalars_vs_cpu(int classic)
{
    if (!tcu_need_device()) return;
    gs_cu_dev *d = tcu_open_dev();
    if (!d) return;
    gs_err e;
    static const unsigned logs[] = { 1, 2, 4, 11, 12, 13, 14, 17 };
    gs_fr *abc = NULL, *dabc = NULL;
    gs_scalar *got = NULL;
    gs_domain *dom = NULL;
    size_t nmax = (size_t)1 << 17;
    abc = malloc(3 * nmax * sizeof *abc);
    got = malloc(nmax * sizeof *got);
    GS_REQUIRE(abc && got);
    CU_OK(gs_cu_ntt_prepare(d, classic ? 17 : 18, &e));
    CU_OK(gs_cu_alloc(d, (void **)&dabc, 3 * nmax * sizeof *dabc, &e));
    for (int var = 0; var < 2; var++)
    for (size_t li = 0; li < sizeof logs / sizeof logs[0]; li++) {
        unsigned lg = logs[li];
        size_t n = (size_t)1 << lg;
        gs_fr *a = abc, *b = abc + n, *c = abc + 2 * n;
        ntt_variant(var);
        for (size_t i = 0; i < n; i++) {
            gs_fr_random(&a[i], gs_test_rng());
            gs_fr_random(&b[i], gs_test_rng());
            /* c = a*b on most rows (a satisfied QAP), random on a few. */
            if (i % 7) gs_fr_mul(&c[i], &a[i], &b[i]); else gs_fr_random(&c[i], gs_test_rng());
        }
        CU_OK(gs_cu_upload(d, dabc, abc, 3 * n * sizeof *abc, 0, &e));
        if (classic)
            CU_OK(gs_cu_h_scalars_classic(d, (gs_scalar *)dabc, dabc, dabc + n, dabc + 2 * n, lg, &e));
        else
            CU_OK(gs_cu_h_scalars(d, (gs_scalar *)dabc, dabc, dabc + n, dabc + 2 * n, lg, &e));
        CU_OK(gs_cu_download(d, got, dabc, n * sizeof *got, &e));
        CU_OK(gs_domain_create(&dom, lg, NULL, &e));
        gs_g16_h_intt(dom, a, b, c, NULL);
        if (classic) {
            gs_g16_h_coset_classic(dom, a, b, c, NULL);
            gs_g16_h_ntt_join_classic((gs_scalar *)a, dom, a, b, c, NULL);
        } else {
            gs_g16_h_coset(dom, a, b, c, NULL);
            gs_g16_h_ntt_join((gs_scalar *)a, dom, a, b, c, NULL);
        }
        size_t bad = 0;
        for (size_t i = 0; i < n; i++) bad += memcmp(&((gs_scalar *)a)[i], &got[i], sizeof *got) != 0;
        GS_CHECK_MSG(bad == 0, "%s H scalars 2^%u (%s NTT): %zu of %zu differ",
                     classic ? "classic" : "snarkjs", lg, variant_name(var), bad, n);
        gs_domain_destroy(dom);
        dom = NULL;
    }
    if (classic) {
        gs_err_clear(&e);
        GS_CHECK_EQ_INT(gs_cu_h_scalars_classic(d, (gs_scalar *)dabc, dabc, dabc + 2, dabc + 4, 18, &e),
                        GS_ERR_STATE);
    }
done:
    ntt_variant(-1);
    gs_domain_destroy(dom);
    gs_cu_free(d, dabc);
    free(abc); free(got);
    gs_cu_dev_destroy(d);
}

GS_TEST(cuda_h_scalars_vs_cpu) { h_scalars_vs_cpu(0); }
GS_TEST(cuda_h_scalars_classic_vs_cpu) { h_scalars_vs_cpu(1); }

/* test_cuda_util.h (the kinds) */
void tcu_make_scalars(gs_scalar *sc, size_t n, int kind)
{
    gs_fr f;
    for (size_t i = 0; i < n; i++) {
        gs_fr_random(&f, gs_test_rng());
        gs_fr_to_scalar(&sc[i], &f);
        if (kind >= 4 && (kind != 7 || gs_rng_below(gs_test_rng(), 10) != 0)) {
            memset(&sc[i], 0, sizeof sc[i]);
            sc[i].l[0] = kind == 5 ? 0 : kind == 6 ? 1 : gs_rng_below(gs_test_rng(), 2);
        } else if (kind == 2) {
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

#define MSM_ORACLE(g, NAME, DEV_SIZE, UPLOAD, OTHER_TAKE)                                  \
    static void g##_o_points(void *out, size_t n, size_t distinct)                        \
    {                                                                                     \
        gs_##g##_affine *pts = out;                                                       \
        gs_##g *jac = malloc(distinct * sizeof *jac), gen, acc;                           \
        if (!jac) return;                                                                 \
        gs_##g##_generator(&gen);                                                         \
        acc = gen;                                                                        \
        for (size_t i = 0; i < distinct; i++) {                                           \
            jac[i] = acc;                                                                 \
            gs_##g##_add(&acc, &acc, &gen);                                               \
            gs_##g##_dbl(&acc, &acc);                                                     \
        }                                                                                 \
        gs_##g##_batch_to_affine(pts, jac, distinct);                                     \
        for (size_t i = distinct; i < n; i++) pts[i] = pts[i % distinct];                 \
        free(jac);                                                                        \
    }                                                                                     \
    static void g##_o_set_inf(void *pts, size_t i)                                        \
    {                                                                                     \
        gs_##g##_affine_set_inf(&((gs_##g##_affine *)pts)[i]);                            \
    }                                                                                     \
    static int g##_o_same(gs_cu_dev *d, int slot, const gs_scalar *sc, const void *pts,   \
                          size_t n, gs_err *err)                                          \
    {                                                                                     \
        gs_##g got, want;                                                                 \
        if (gs_cu_msm_##g##_result(d, slot, &got, err) != GS_OK) return -1;               \
        if (gs_msm_##g(&want, pts, sc, n, NULL) != GS_OK) {                               \
            GS_ERR(err, GS_ERR_NOMEM, "test", "CPU MSM of %zu points", n);               \
            return -1;                                                                    \
        }                                                                                 \
        return gs_##g##_eq(&got, &want);                                                  \
    }                                                                                     \
    const tcu_msm_oracle tcu_##g##_oracle = { NAME, sizeof(gs_##g##_affine), DEV_SIZE,       \
                                           g##_o_points, g##_o_set_inf, UPLOAD,           \
                                           gs_cu_msm_##g, g##_o_same, OTHER_TAKE };

static gs_status g1_upload(gs_cu_dev *d, void *dst, const void *pts, size_t n, gs_err *err)
{
    return gs_cu_g1_upload(d, dst, pts, n, err);
}

static gs_status g2_upload(gs_cu_dev *d, void *dst, const void *pts, size_t n, gs_err *err)
{
    return gs_cu_g2_upload(d, dst, pts, NULL, n, err);
}

static gs_status g1_take(gs_cu_dev *d, int slot, gs_err *err)
{
    gs_cu_msm_parts mp;
    gs_status st = gs_cu_msm_parts_take(d, slot, &mp, err);
    gs_cu_msm_parts_free(&mp);
    return st;
}

static gs_status g2_take(gs_cu_dev *d, int slot, gs_err *err)
{
    gs_cu_msm_g2_parts mp;
    gs_status st = gs_cu_msm_g2_parts_take(d, slot, &mp, err);
    gs_cu_msm_g2_parts_free(&mp);
    return st;
}

MSM_ORACLE(g1, "G1", 96, g1_upload, g2_take)
MSM_ORACLE(g2, "G2", 192, g2_upload, g1_take)


/* test_cuda_util.h */
void tcu_msm_vs_cpu(const tcu_msm_oracle *o, const tcu_msm_case *cases, size_t ncases, size_t distinct,
                       const size_t *inf_at, size_t ninf, size_t quick_max)
{
    if (!tcu_need_device()) return;
    gs_cu_dev *d = tcu_open_dev();
    if (!d) return;
    gs_err e;
    size_t nmax = 1;
    for (size_t k = 0; k < ncases; k++) nmax = cases[k].n > nmax ? cases[k].n : nmax;
    void *pts = malloc(nmax * o->aff_size), *dp = NULL;
    gs_scalar *sc = malloc(nmax * sizeof *sc), *ds = NULL;
    int slot = 0, ran = 0;
    if (!pts || !sc) {
        gs_test_fail(__FILE__, __LINE__, "%s: out of memory", o->name);
        goto done;
    }
    o->make_points(pts, nmax, distinct < nmax ? distinct : nmax);
    for (size_t i = 0; i < ninf; i++)
        if (inf_at[i] < nmax) o->set_inf(pts, inf_at[i]);
    CU_OK(gs_cu_alloc(d, &dp, nmax * o->dev_size, &e));
    CU_OK(gs_cu_alloc(d, (void **)&ds, nmax * sizeof *ds, &e));
    CU_OK(o->upload(d, dp, pts, nmax, &e));
    for (size_t k = 0; k < ncases; k++) {
        size_t n = cases[k].n;
        if (gs_test_quick() && n > quick_max) continue;
        slot = (int)(k % GS_CU_MSM_SLOTS);
        tcu_make_scalars(sc, n, cases[k].kind);
        CU_OK(gs_cu_upload(d, ds, sc, n * sizeof *sc, 0, &e));
        CU_OK(o->msm(d, slot, dp, ds, n, cases[k].window, &e));
        CU_OK(gs_cu_msm_fetch(d, slot, &e));
        CU_OK(gs_cu_sync(d, &e));
        gs_err_clear(&e);
        int same = o->same_as_cpu(d, slot, sc, pts, n, &e);
        GS_CHECK_MSG(same == 1, "%s MSM n = %zu kind %d window %d differs from the CPU%s%s",
                     o->name, n, cases[k].kind, cases[k].window, same < 0 ? ": " : "", e.msg);
        ran++;
    }
    GS_CHECK(ran > 0);
    /* A slot holding this curve's result is refused as the other curve's. */
    gs_err_clear(&e);
    GS_CHECK_EQ_INT(o->other_take(d, slot, &e), GS_ERR_ARG);
done:
    gs_cu_free(d, dp);
    gs_cu_free(d, ds);
    free(pts); free(sc);
    gs_cu_dev_destroy(d);
}

/* Also 2^16 points of which only 61 are distinct: long runs of equal
 * points in every bucket, so the accumulation meets P + P and P + (-P)
 * (equal digits of opposite sign) all the time. */
GS_TEST(cuda_msm_vs_cpu)
{
    static const tcu_msm_case cases[] = {
        { 1, 0, 0 }, { 2, 1, 0 }, { 3, 2, 0 }, { 100, 1, 0 }, { 1000, 0, 0 }, { 1000, 1, 4 },
        { 5000, 2, 0 }, { 5000, 3, 8 }, { 20000, 1, 0 }, { 20000, 0, 13 }, { 1 << 17, 0, 0 },
        { 1 << 17, 3, 16 },
    };
    static const tcu_msm_case few[] = { { 1 << 16, 0, 10 }, { 1 << 16, 3, 0 }, { 1 << 16, 2, 0 } };
    static const size_t inf_at[] = { 7, 4000 };
    tcu_msm_vs_cpu(&tcu_g1_oracle, cases, sizeof cases / sizeof cases[0], 4093, inf_at, 2, 20000);
    tcu_msm_vs_cpu(&tcu_g1_oracle, few, sizeof few / sizeof few[0], 61, inf_at, 2, 1 << 16);
}

/* G2: n = 0 (infinity), 1, 2 (one point at infinity), 3, 64, 1000, 2^12,
 * 2^15; random, edge (0, 1, r-1, powers of two), all-equal and {0, 1, 2}
 * scalars; automatic and explicit windows; and 2^14 points of which 61 are
 * distinct (P + P and P - P in the buckets).  Both bodies of G2's bucket
 * addition: the variant bits in force, then with GS_CU_FV_G2CALL flipped. */
GS_TEST(cuda_msm_g2_vs_cpu)
{
    static const tcu_msm_case cases[] = {
        { 0, 0, 0 }, { 1, 0, 0 }, { 1, 1, 0 }, { 2, 0, 0 }, { 2, 1, 5 }, { 3, 2, 0 },
        { 3, 1, 0 }, { 64, 1, 0 }, { 64, 0, 4 }, { 1000, 0, 0 }, { 1000, 1, 0 },
        { 1000, 2, 7 }, { 4096, 0, 0 }, { 4096, 3, 0 }, { 4096, 1, 12 }, { 1 << 15, 0, 0 },
        { 1 << 15, 1, 0 }, { 1 << 15, 2, 16 },
    };
    static const tcu_msm_case few[] = { { 1 << 14, 0, 8 }, { 1 << 14, 3, 0 } };
    static const size_t inf_at[] = { 1, 700, 3001, 20000 };
    const char *env = getenv("GS_CU_FV");
    char saved[32] = "";
    if (env) snprintf(saved, sizeof saved, "%s", env);
    for (int flip = 0; flip < 2; flip++) {
        if (flip) {
            char bits[16];
            snprintf(bits, sizeof bits, "%d", gs_cu_fv_bits() ^ GS_CU_FV_G2CALL);
            setenv("GS_CU_FV", bits, 1);
        }
        tcu_msm_vs_cpu(&tcu_g2_oracle, cases, sizeof cases / sizeof cases[0], 1021, inf_at, 4, 4096);
        tcu_msm_vs_cpu(&tcu_g2_oracle, few, sizeof few / sizeof few[0], 61, inf_at, 4, 1 << 14);
    }
    if (env) setenv("GS_CU_FV", saved, 1); else unsetenv("GS_CU_FV");
}

/*
 * The shared preparation with precomputed copies: one gs_cu_msm_prepare,
 * then two G1 point sets (A-like and a second set) over the same scalars,
 * with skip 0 and skip 3 (an MSM over a suffix, as L), for window plans
 * with t = 1 (no copies), t < nwin (several groups) and t = nwin (one set
 * of buckets, also at c = 22 and 24: the plans of 2^26 points with 8 / 11
 * or more copies; and c = 22 with 6, the 2^24 prove's H plan); every
 * scalar kind, points at infinity.  Each result equals the CPU MSM of the
 * suffix.  G2 over the same API (t = 1, skip) too, and with copies.
 */
GS_TEST(cuda_msm_prepared_vs_cpu)
{
    if (!tcu_need_device()) return;
    gs_cu_dev *d = tcu_open_dev();
    if (!d) return;
    gs_err e;
    size_t nmax = gs_test_quick() ? 3000 : 20000, distinct = 1021;
    gs_g1_affine *p1 = malloc(nmax * sizeof *p1), *p2 = malloc(nmax * sizeof *p2);
    gs_g2_affine *q = malloc(4096 * sizeof *q);
    gs_scalar *sc = malloc(nmax * sizeof *sc), *ds = NULL;
    void *d1 = NULL, *d2 = NULL, *dq = NULL, *dq2 = NULL;
    gs_g1 got, want;
    gs_g2 got2, want2;
    if (!p1 || !p2 || !q || !sc) {
        gs_test_fail(__FILE__, __LINE__, "out of memory");
        goto done;
    }
    g1_o_points(p1, nmax, distinct);
    for (size_t i = 0; i < nmax; i++) p2[i] = p1[(i * 7 + 3) % nmax];
    gs_g1_affine_set_inf(&p1[5]);
    gs_g1_affine_set_inf(&p2[nmax - 1]);
    g2_o_points(q, 4096, 509);
    gs_g2_affine_set_inf(&q[9]);
    static const struct { unsigned c, t; } plans[] = { { 13, 1 }, { 9, 4 }, { 12, 16 }, { 6, 16 }, { 22, 12 }, { 22, 6 }, { 24, 11 } };
    CU_OK(gs_cu_alloc(d, (void **)&ds, nmax * sizeof *ds, &e));
    CU_OK(gs_cu_alloc(d, &dq, 4096 * 192, &e));
    CU_OK(gs_cu_g2_upload(d, dq, q, NULL, 4096, &e));
    for (size_t pl = 0; pl < sizeof plans / sizeof plans[0]; pl++) {
        unsigned c = plans[pl].c, t = plans[pl].t;
        for (int skip = 0; skip <= 3; skip += 3) {
            size_t np = nmax - (size_t)skip;
            gs_cu_free(d, d1);
            gs_cu_free(d, d2);
            d1 = d2 = NULL;
            CU_OK(gs_cu_alloc(d, &d1, (size_t)t * np * 96, &e));
            CU_OK(gs_cu_alloc(d, &d2, (size_t)t * np * 96, &e));
            CU_OK(gs_cu_g1_upload(d, d1, p1, np, &e));
            CU_OK(gs_cu_g1_upload(d, d2, p2, np, &e));
            CU_OK(gs_cu_g1_precompute(d, d1, np, np, c, t, &e));
            CU_OK(gs_cu_g1_precompute(d, d2, np, np, c, t, &e));
            for (int kind = 0; kind <= 7; kind++) {
                size_t n = kind == 2 ? nmax / 2 + skip : nmax;
                if (gs_test_quick() && kind % 2 == 1 && pl > 1) continue;
                tcu_make_scalars(sc, n, kind);
                uint32_t nb = 0, no = 0;
                CU_OK(gs_cu_upload(d, ds, sc, n * sizeof *sc, 0, &e));
                CU_OK(gs_cu_msm_prepare(d, ds, n, (int)c, t, 0, &nb, &no, &e));
                GS_CHECK(nb + no <= n);
                if (kind == 5) GS_CHECK(nb == 0 && no == 0);
                if (kind == 6) GS_CHECK(nb == 0 && no == n);
                if (kind == 4) GS_CHECK(nb == 0 && no > n / 4);
                CU_OK(gs_cu_msm_g1_prepared(d, 0, d1, np, (size_t)skip, &e));
                CU_OK(gs_cu_msm_g1_prepared(d, 1, d2, np, (size_t)skip, &e));
                for (int set = 0; set < 2; set++) {
                    CU_OK(gs_cu_msm_fetch(d, set, &e));
                    CU_OK(gs_cu_sync(d, &e));
                    CU_OK(gs_cu_msm_g1_result(d, set, &got, &e));
                    GS_REQUIRE(gs_msm_g1(&want, set ? p2 : p1, sc + skip, n - (size_t)skip, NULL) == GS_OK);
                    GS_CHECK_MSG(gs_g1_eq(&got, &want), "prepared G1 MSM: c %u t %u skip %d "
                                 "kind %d set %d n %zu differs from the CPU", c, t, skip, kind, set, n);
                }
            }
        }
    }
    /* G2 over the same API: t = 1 (automatic window, no copies), then with
     * precomputed copies (gs_cu_g2_precompute; B2's plans in the prove):
     * t < nwin (two groups), t = nwin (one set of buckets, c = 20 t = 13:
     * the plan of 2^20 B2 points); skip 0 and 5, random and 0/1-heavy
     * scalars. */
    static const struct { unsigned c, t; } plans2[] = { { 0, 1 }, { 9, 4 }, { 12, 16 }, { 20, 13 } };
    for (size_t pl = 0; pl < sizeof plans2 / sizeof plans2[0]; pl++) {
        unsigned c = plans2[pl].c, t = plans2[pl].t;
        gs_cu_free(d, dq2);
        dq2 = NULL;
        if (t > 1) {
            CU_OK(gs_cu_alloc(d, &dq2, (size_t)t * 4096 * 192, &e));
            CU_OK(gs_cu_g2_upload(d, dq2, q, NULL, 4096, &e));
            CU_OK(gs_cu_g2_precompute(d, dq2, 4096, 4096, c, t, &e));
        }
        for (int kind = 0; kind <= 7; kind += 7) {
            for (int skip = 0; skip <= 5; skip += 5) {
                size_t n = 4096 + (size_t)skip;
                if (n > nmax) n = nmax;
                tcu_make_scalars(sc, n, kind);
                CU_OK(gs_cu_upload(d, ds, sc, n * sizeof *sc, 0, &e));
                CU_OK(gs_cu_msm_prepare(d, ds, n, (int)c, t, 1, NULL, NULL, &e));
                if (t == 1) {
                    /* G1 on a G2 preparation is refused. */
                    gs_err_clear(&e);
                    GS_CHECK_EQ_INT(gs_cu_msm_g1_prepared(d, 0, d1, n, 0, &e), GS_ERR_STATE);
                }
                CU_OK(gs_cu_msm_g2_prepared(d, 2, t > 1 ? dq2 : dq, 4096, (size_t)skip, &e));
                CU_OK(gs_cu_msm_fetch(d, 2, &e));
                CU_OK(gs_cu_sync(d, &e));
                CU_OK(gs_cu_msm_g2_result(d, 2, &got2, &e));
                GS_REQUIRE(gs_msm_g2(&want2, q, sc + skip, n - (size_t)skip, NULL) == GS_OK);
                GS_CHECK_MSG(gs_g2_eq(&got2, &want2), "prepared G2 MSM c %u t %u kind %d skip %d differs",
                             c, t, kind, skip);
            }
        }
    }
    /* Bad arguments: copies without a window; a stride below the points. */
    gs_err_clear(&e);
    GS_CHECK_EQ_INT(gs_cu_msm_prepare(d, ds, 100, 0, 4, 0, NULL, NULL, &e), GS_ERR_ARG);
    CU_OK(gs_cu_msm_prepare(d, ds, 100, 10, 4, 0, NULL, NULL, &e));
    gs_err_clear(&e);
    GS_CHECK_EQ_INT(gs_cu_msm_g1_prepared(d, 0, d1, 50, 0, &e), GS_ERR_ARG);
done:
    gs_cu_free(d, d1);
    gs_cu_free(d, d2);
    gs_cu_free(d, dq);
    gs_cu_free(d, dq2);
    gs_cu_free(d, ds);
    free(p1); free(p2); free(q); free(sc);
    gs_cu_dev_destroy(d);
}

/* test_cuda_util.h */
gs_status tcu_key_make(tcu_key *k, gs_err *e)
{
    memset(k, 0, sizeof *k);
    uint32_t n_cons = gs_test_quick() ? 300 : 3000, n_wires = n_cons / 2 + 10;
    k->n_pub = 3;
    if (!tg_random_r1cs(&k->r1cs, &k->w, n_cons, n_wires, k->n_pub, 2, gs_test_rng()))
        return GS_ERR(e, GS_ERR_NOMEM, "test", "random R1CS of %u constraints", n_cons);
    gs_status st = gs_groth16_setup_seeded(&k->pk, &k->vk, &k->r1cs, gs_test_seed(), NULL, e);
    if (st == GS_OK) st = gs_assignment_from_witness(&k->as, &k->pk, k->w, n_wires, e);
    return st;
}

void tcu_key_free(tcu_key *k)
{
    gs_assignment_free(&k->as);
    gs_pk_free(&k->pk);
    gs_vk_free(&k->vk);
    gs_r1cs_free(&k->r1cs);
    free(k->w);
    memset(k, 0, sizeof *k);
}

/* test_cuda_util.h */
void tcu_random_rs(gs_scalar *r, gs_scalar *s)
{
    gs_fr f;
    gs_fr_random(&f, gs_test_rng()); gs_fr_to_scalar(r, &f);
    gs_fr_random(&f, gs_test_rng()); gs_fr_to_scalar(s, &f);
}

/* test_cuda_util.h */
int tcu_prove_pair(gs_backend *gpu, gs_backend *cpu, const gs_pk *pk, const gs_assignment *as,
                      const gs_scalar *r, const gs_scalar *s, const gs_prove_opts *opts,
                      gs_proof *pg, gs_stage_list *sg, gs_err *e)
{
    gs_prove_opts copts = *opts;
    gs_stage_list sc = { 0 };
    gs_prove_state *st_g = NULL, *st_c = NULL;
    gs_proof pc;
    copts.g2_on_device = 0;
    if (gpu->ops->prove_start(gpu, pk, as, r, s, opts, &st_g, sg, e) != GS_OK ||
        gpu->ops->prove_finish(gpu, st_g, pg, sg, e) != GS_OK ||
        cpu->ops->prove_start(cpu, pk, as, r, s, &copts, &st_c, &sc, e) != GS_OK ||
        cpu->ops->prove_finish(cpu, st_c, &pc, &sc, e) != GS_OK)
        return -1;
    return gs_g1_affine_eq(&pg->a, &pc.a) && gs_g2_affine_eq(&pg->b, &pc.b) &&
           gs_g1_affine_eq(&pg->c, &pc.c);
}

/* as's contents in page-locked buffers: kind 1, page-aligned heap copies
 * registered (gs_cuda_assignment_pin); kind 2, gs_cuda_assignment_alloc.
 * Undone by pinned_release with the same kind. */
static gs_status pinned_copy(gs_assignment *out, const gs_assignment *as, int kind, gs_err *e)
{
    size_t nw = (size_t)as->n_vars * sizeof(gs_scalar), nd = (size_t)as->domain_size * sizeof(gs_fr);
    gs_status st;
    memset(out, 0, sizeof *out);
    if (kind == 2) {
        if ((st = gs_cuda_assignment_alloc(out, as->n_vars, as->domain_size, e)) != GS_OK) return st;
    } else {
        void *p[4] = { NULL, NULL, NULL, NULL };
        size_t len[4] = { nw, nd, nd, nd };
        for (int i = 0; i < 4; i++)
            if (posix_memalign(&p[i], 4096, (len[i] + 4095) & ~(size_t)4095) != 0) {
                for (int k = 0; k < 4; k++) free(p[k]);
                return GS_ERR(e, GS_ERR_NOMEM, "test", "page-aligned assignment");
            }
        out->w = p[0];
        out->a = p[1];
        out->b = p[2];
        out->c = p[3];
        out->n_vars = as->n_vars;
        out->domain_size = as->domain_size;
    }
    memcpy(out->w, as->w, nw);
    memcpy(out->a, as->a, nd);
    memcpy(out->b, as->b, nd);
    memcpy(out->c, as->c, nd);
    if (kind == 1 && (st = gs_cuda_assignment_pin(out, e)) != GS_OK) {
        gs_assignment_free(out);
        return st;
    }
    return GS_OK;
}

static void pinned_release(gs_assignment *out, int kind)
{
    if (kind == 2) {
        gs_cuda_assignment_free(out);
    } else {
        gs_cuda_assignment_unpin(out);
        gs_assignment_free(out);
    }
}

/* Full proofs through the backend: equal to the CPU backend's for the same
 * r, s (and r = s = 0), and verifying; with the G2 MSM on the CPU and on the
 * device (B2 uploaded on first use), in an order that switches back and
 * forth.  Then a key whose B2 has holes in the middle (every third point at
 * infinity, a copy at another address so it is loaded anew): the device's
 * compaction and gather must give the CPU's proof for that key too (which
 * no longer verifies; the key is not a real one). */
GS_TEST(cuda_prove_vs_cpu)
{
    if (!tcu_need_device()) return;
    gs_err e;
    gs_r1cs r1cs;
    gs_scalar *w = NULL;
    gs_pk pk, holed;
    gs_vk vk;
    gs_assignment as;
    gs_backend *gpu = NULL, *cpu = NULL;
    gs_g2_affine *b2h = NULL;
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
    /* pin: the assignment page-locked (single DMAs, the H chain queued
     * before the witness preparation): 1 registered copies
     * (gs_cuda_assignment_pin), 2 gs_cuda_assignment_alloc; old:
     * GS_CU_ORDER=old (the stream plan before the pipelining). */
    static const struct { int g2, pageable, random, pin, old; } rounds[] = {
        { 0, 0, 0, 0, 0 }, { 0, 0, 1, 0, 0 }, { 0, 1, 1, 0, 0 }, { 1, 0, 0, 0, 0 },
        { 1, 0, 1, 0, 0 }, { 1, 1, 1, 0, 0 }, { 0, 0, 1, 0, 0 }, { 1, 0, 1, 0, 0 },
        { 1, 0, 1, 1, 0 }, { 0, 0, 1, 2, 0 }, { 1, 1, 1, 1, 0 }, { 1, 0, 1, 0, 1 },
        { 1, 0, 1, 2, 1 }, { 0, 0, 1, 1, 1 }, { 1, 0, 1, 2, 0 },
    };
    for (int round = 0; round < (int)(sizeof rounds / sizeof rounds[0]); round++) {
        gs_scalar r, s;
        int g2 = rounds[round].g2, old = rounds[round].old, pin = rounds[round].pin;
        memset(&r, 0, sizeof r);
        memset(&s, 0, sizeof s);
        if (rounds[round].random)
            tcu_random_rs(&r, &s);
        gs_prove_opts opts = { .pageable = rounds[round].pageable, .threads = 0,
                               .g2_on_device = g2 };
        gs_stage_list sg = { 0 };
        gs_proof pg;
        gs_err_clear(&e);
        gs_assignment pas;
        if (pin) CU_OK(pinned_copy(&pas, &as, pin, &e));
        if (old) setenv("GS_CU_ORDER", "old", 1);
        int same = tcu_prove_pair(gpu, cpu, &pk, pin ? &pas : &as, &r, &s, &opts, &pg, &sg, &e);
        if (old) unsetenv("GS_CU_ORDER");
        if (pin) pinned_release(&pas, pin);
        GS_CHECK_MSG(same == 1, "round %d (G2 on %s%s%s): GPU proof differs from CPU proof%s%s",
                     round, g2 ? "device" : "CPU", pin ? ", pinned" : "", old ? ", old order" : "",
                     same < 0 ? ": " : "", e.msg);
        if (same < 0) goto done;
        gs_err_clear(&e);
        GS_CHECK_MSG(gs_groth16_verify(&vk, w + 1, n_pub, &pg, &e) == GS_OK,
                     "round %d: GPU proof does not verify: %s", round, e.msg);
        /* Stages: the device ones in the backend's order, on the host
         * clock; stream 0 (witness, MSMs) and stream 1 (a/b/c, NTT) each
         * non-decreasing, msm_h after both; msm_b2 a device kernel stage
         * right after msm_b1 (GS_CU_ORDER=old: after msm_h), or a host
         * stage after d2h. */
        static const char *cpu_g2[] = { "device_mutex_wait", "h2d_w", "prep_w", "msm_l", "msm_a",
                                        "msm_b1", "h2d", "ntt", "msm_h", "d2h", "msm_b2",
                                        "epilogue" };
        static const char *dev_g2[] = { "device_mutex_wait", "h2d_w", "prep_w", "msm_l", "msm_a",
                                        "msm_b1", "msm_b2", "h2d", "ntt", "msm_h", "d2h",
                                        "epilogue" };
        static const char *dev_g2_old[] = { "device_mutex_wait", "h2d_w", "prep_w", "msm_l",
                                            "msm_a", "msm_b1", "h2d", "ntt", "msm_h", "msm_b2",
                                            "d2h", "epilogue" };
        const char **names = !g2 ? cpu_g2 : old ? dev_g2_old : dev_g2;
        int last_dev = g2 ? 10 : 9;
        /* The first proof with the G2 MSM on the device uploads B2 first
         * (stage load_b2, right after the mutex wait): drop it from sg. */
        int loads = sg.n > 1 && strcmp(sg.s[1].name, "load_b2") == 0;
        GS_CHECK_MSG(loads == (round == 3), "round %d: load_b2 stage %s", round,
                     loads ? "present" : "missing");
        if (loads) {
            GS_CHECK(sg.s[1].kind == GS_STAGE_HOST && sg.s[1].end_ns >= sg.s[1].start_ns);
            memmove(&sg.s[1], &sg.s[2], (size_t)(sg.n - 2) * sizeof sg.s[0]);
            sg.n--;
        }
        GS_CHECK_EQ_INT(sg.n, 12);
        int64_t prev_end[2] = { 0, 0 };
        int i_h2dw = -1, i_h2d = -1, i_ntt = -1, i_l = -1, i_b2 = -1;
        for (int i = 0; i < sg.n && i < 12; i++) {
            GS_CHECK_MSG(strcmp(sg.s[i].name, names[i]) == 0, "round %d: stage %d is %s, not %s",
                         round, i, sg.s[i].name, names[i]);
            GS_CHECK(sg.s[i].end_ns >= sg.s[i].start_ns);
            if (!strcmp(names[i], "h2d_w")) i_h2dw = i;
            if (!strcmp(names[i], "h2d")) i_h2d = i;
            if (!strcmp(names[i], "ntt")) i_ntt = i;
            if (!strcmp(names[i], "msm_l")) i_l = i;
            if (!strcmp(names[i], "msm_b2")) i_b2 = i;
            if (i < 1 || i > last_dev) continue;
            int k = (!strcmp(names[i], "h2d") || !strcmp(names[i], "ntt")) ? 1 : 0;
            GS_CHECK_EQ_INT(sg.s[i].stream, k);
            GS_CHECK_MSG(sg.s[i].start_ns >= prev_end[k] - 20000, "round %d: %s starts before "
                         "the stage before it on stream %d ends", round, sg.s[i].name, k);
            prev_end[k] = sg.s[i].end_ns;
            if (strcmp(names[i], "msm_h") == 0) /* after the H scalars of stream 1 */
                GS_CHECK(sg.s[i].start_ns >= prev_end[1] - 20000);
        }
        if (i_h2dw < 0 || i_h2d < 0 || i_ntt < 0 || i_l < 0 || i_b2 < 0) continue;
        /* Pinned, new order: a/b/c's DMA right behind the witness's. */
        if (pin && !old && !rounds[round].pageable)
            GS_CHECK_MSG(sg.s[i_h2d].start_ns >= sg.s[i_h2dw].end_ns - 20000,
                         "round %d: h2d starts before h2d_w ends", round);
        GS_CHECK_EQ_INT(!!(sg.s[i_h2dw].flags & GS_STAGE_F_PAGEABLE), rounds[round].pageable);
        GS_CHECK_EQ_INT(!!(sg.s[i_h2d].flags & GS_STAGE_F_PAGEABLE), rounds[round].pageable);
        GS_CHECK(sg.s[i_h2dw].kind == GS_STAGE_COPY && sg.s[i_h2d].kind == GS_STAGE_COPY);
        GS_CHECK(sg.s[i_l].kind == GS_STAGE_KERNEL && sg.s[i_ntt].kind == GS_STAGE_KERNEL);
        GS_CHECK(sg.s[i_l].device == 0 && sg.s[0].device == -1);
        if (sg.n == 12) {
            GS_CHECK_EQ_INT(sg.s[i_b2].kind, g2 ? GS_STAGE_KERNEL : GS_STAGE_HOST);
            GS_CHECK_EQ_INT(sg.s[i_b2].device, g2 ? 0 : -1);
        }
    }
    /* The holed key. */
    holed = pk;
    b2h = malloc((size_t)pk.n_vars * sizeof *b2h);
    GS_REQUIRE(b2h);
    size_t live = 0;
    for (uint32_t i = 0; i < pk.n_vars; i++) {
        b2h[i] = pk.b2[i];
        if (i % 3 == 1) gs_g2_affine_set_inf(&b2h[i]);
        live += !b2h[i].inf;
    }
    GS_CHECK(live > 10 && live < pk.n_vars / 2 + pk.n_vars / 4);
    holed.b2 = b2h;
    for (int g2 = 1; g2 >= 0; g2--) {
        gs_scalar r, s;
        tcu_random_rs(&r, &s);
        gs_prove_opts opts = { .pageable = 0, .threads = 0, .g2_on_device = g2 };
        gs_stage_list sg = { 0 };
        gs_proof pg;
        gs_err_clear(&e);
        int same = tcu_prove_pair(gpu, cpu, &holed, &as, &r, &s, &opts, &pg, &sg, &e);
        GS_CHECK_MSG(same == 1, "holed B2 (G2 on %s): GPU proof differs from CPU proof%s%s",
                     g2 ? "device" : "CPU", same < 0 ? ": " : "", e.msg);
    }
    /* A witness of mostly 0s and 1s (the path that drops 0s and sums the
     * points of 1s without buckets; inconsistent with a, b, c, so the proof
     * does not verify, but both backends compute the same), on this backend
     * (precomputed copies: the key is small, so memory allows them) and on a
     * fresh one with the copies off (GS_CU_COPIES=1). */
    for (uint32_t i = n_pub + 1; i < as.n_vars; i++)
        if (i % 4 != 0) {
            memset(&as.w[i], 0, sizeof as.w[i]);
            as.w[i].l[0] = (i % 4) & 1;
        }
    for (int copies = 0; copies < 2; copies++) {
        gs_scalar r, s;
        if (copies) {
            gpu->ops->destroy(gpu);
            gpu = NULL;
            setenv("GS_CU_COPIES", "1", 1);
            gs_status cst = gs_backend_cuda_create(&gpu, 0, &e);
            if (cst == GS_OK) cst = gpu->ops->load_pk(gpu, &pk, &e);
            unsetenv("GS_CU_COPIES");
            CU_OK(cst);
        }
        tcu_random_rs(&r, &s);
        for (int g2 = 0; g2 < 2; g2++) {
            gs_prove_opts opts = { .pageable = 0, .threads = 0, .g2_on_device = g2 };
            gs_stage_list sg = { 0 };
            gs_proof pg;
            gs_err_clear(&e);
            int same = tcu_prove_pair(gpu, cpu, &pk, &as, &r, &s, &opts, &pg, &sg, &e);
            GS_CHECK_MSG(same == 1, "0/1 witness (copies %s, G2 on %s): GPU proof differs from "
                         "CPU proof%s%s", copies ? "off" : "on", g2 ? "device" : "CPU",
                         same < 0 ? ": " : "", e.msg);
        }
    }
done:
    if (gpu) gpu->ops->destroy(gpu);
    if (cpu) cpu->ops->destroy(cpu);
    free(b2h);
    gs_assignment_free(&as);
    gs_pk_free(&pk);
    gs_vk_free(&vk);
    gs_r1cs_free(&r1cs);
    free(w);
}

#else /* !GS_HAVE_CUDA */

/* The GPU tests exist in every build, so CI shows them skipped. */
GS_TEST(cuda_field_fp_ops) { tcu_need_device(); }
GS_TEST(cuda_field_fr_ops) { tcu_need_device(); }
GS_TEST(cuda_field_fp2_ops) { tcu_need_device(); }
GS_TEST(cuda_ntt_vs_cpu) { tcu_need_device(); }
GS_TEST(cuda_h_scalars_vs_cpu) { tcu_need_device(); }
GS_TEST(cuda_msm_vs_cpu) { tcu_need_device(); }
GS_TEST(cuda_msm_g2_vs_cpu) { tcu_need_device(); }
GS_TEST(cuda_msm_prepared_vs_cpu) { tcu_need_device(); }
GS_TEST(cuda_prove_vs_cpu) { tcu_need_device(); }

#endif

/* ---- The classic H convention (groth16.h) --------------------------------- */

#ifdef GS_HAVE_CUDA

/* The 192-byte compressed proof A | B | C; 1 on success. */
static int classic_proof_bytes(uint8_t out[192], const gs_proof *p)
{
    return gs_g1_compress(out, &p->a) == GS_OK && gs_g2_compress(out + 48, &p->b) == GS_OK &&
           gs_g1_compress(out + 144, &p->c) == GS_OK;
}

/* A classic-key proof from the CUDA backend equals the CPU backend's byte
 * for byte at fixed r, s (and r = s = 0), verifies, and equals the proof of
 * the snarkjs key from the same trapdoors. */
GS_TEST(cuda_prove_classic_vs_cpu)
{
    if (!tcu_need_device()) return;
    gs_err e;
    gs_r1cs r1cs;
    gs_scalar *w = NULL;
    gs_pk pk, pks;
    gs_vk vk, vks;
    gs_assignment as;
    gs_backend *gpu = NULL, *cpu = NULL;
    memset(&pk, 0, sizeof pk);
    memset(&pks, 0, sizeof pks);
    memset(&vk, 0, sizeof vk);
    memset(&vks, 0, sizeof vks);
    memset(&as, 0, sizeof as);
    uint32_t n_cons = gs_test_quick() ? 300 : 3000, n_wires = n_cons / 2 + 10, n_pub = 3;
    GS_REQUIRE(tg_random_r1cs(&r1cs, &w, n_cons, n_wires, n_pub, 2, gs_test_rng()));
    CU_OK(gs_groth16_setup_seeded_conv(&pk, &vk, &r1cs, gs_test_seed(), GS_H_CLASSIC, NULL, &e));
    CU_OK(gs_groth16_setup_seeded(&pks, &vks, &r1cs, gs_test_seed(), NULL, &e));
    CU_OK(gs_assignment_from_witness(&as, &pk, w, n_wires, &e));
    CU_OK(gs_backend_cuda_create(&gpu, 0, &e));
    CU_OK(gs_backend_cpu_create(&cpu, 2, &e));
    CU_OK(gpu->ops->load_pk(gpu, &pk, &e));
    /* Rounds 0, 1: G2 MSM on the CPU; 2, 3: on the device.  Odd rounds blind. */
    for (int round = 0; round < 4; round++) {
        gs_scalar r, s;
        memset(&r, 0, sizeof r);
        memset(&s, 0, sizeof s);
        if (round & 1) {
            r.l[0] = 0x1234567;
            r.l[2] = 0xabcdef;
            s.l[0] = 0x7654321;
            s.l[3] = 0x1fedcba;
        }
        gs_prove_opts opts = { .pageable = 0, .threads = 0, .g2_on_device = round >= 2 };
        gs_stage_list sg = { 0 }, sc = { 0 };
        gs_prove_state *st_g = NULL, *st_c = NULL;
        gs_proof pg, pc, ps;
        CU_OK(gpu->ops->prove_start(gpu, &pk, &as, &r, &s, &opts, &st_g, &sg, &e));
        CU_OK(gpu->ops->prove_finish(gpu, st_g, &pg, &sg, &e));
        CU_OK(cpu->ops->prove_start(cpu, &pk, &as, &r, &s, &opts, &st_c, &sc, &e));
        CU_OK(cpu->ops->prove_finish(cpu, st_c, &pc, &sc, &e));
        CU_OK(gs_groth16_prove(&ps, &pks, &as, &r, &s, 2, &e));
        uint8_t bg[192], bc[192];
        GS_CHECK(classic_proof_bytes(bg, &pg) && classic_proof_bytes(bc, &pc));
        GS_CHECK_MSG(memcmp(bg, bc, sizeof bg) == 0,
                     "round %d: classic GPU proof differs from the CPU proof", round);
        GS_CHECK_MSG(gs_g1_affine_eq(&pg.c, &ps.c), "round %d: classic proof differs from the "
                     "snarkjs key's", round);
        gs_err_clear(&e);
        GS_CHECK_MSG(gs_groth16_verify(&vk, w + 1, n_pub, &pg, &e) == GS_OK,
                     "round %d: classic GPU proof does not verify: %s", round, e.msg);
        int ntt = 0, b2_kernel = 0;
        for (int i = 0; i < sg.n; i++) {
            ntt += strcmp(sg.s[i].name, "ntt") == 0;
            b2_kernel += strcmp(sg.s[i].name, "msm_b2") == 0 && sg.s[i].kind == GS_STAGE_KERNEL;
        }
        GS_CHECK_EQ_INT(ntt, 1);
        GS_CHECK_EQ_INT(b2_kernel, round >= 2);
        GS_CHECK_EQ_INT(sg.n, round == 2 ? 13 : 12);   /* round 2 uploads B2 (load_b2) */
    }
done:
    if (gpu) gpu->ops->destroy(gpu);
    if (cpu) cpu->ops->destroy(cpu);
    gs_assignment_free(&as);
    gs_pk_free(&pk);
    gs_pk_free(&pks);
    gs_vk_free(&vk);
    gs_vk_free(&vks);
    gs_r1cs_free(&r1cs);
    free(w);
}

#else /* !GS_HAVE_CUDA */

GS_TEST(cuda_h_scalars_classic_vs_cpu) { tcu_need_device(); }
GS_TEST(cuda_prove_classic_vs_cpu) { tcu_need_device(); }

#endif
