/*
 * Issue 33's levers on the device, every knob setting against the CPU
 * layers (test_cuda_util.h's oracles) on seeded random inputs:
 *   msm_glv  G1 MSMs with the scalars split by the endomorphism, at the
 *            planned window and at forced ones (msm_c 4 .. 22), through
 *            gs_cu_msm_g1 and the shared preparation with a skip (L's
 *            suffix); plans with copies and G2 MSMs must ignore it;
 *   msm_ba   level 1 by batch-affine pairs, chunks of 32 .. 1024 entries,
 *            both register budgets (msm_minb 2, 3), copies (one and several
 *            bucket sets), 61 distinct points (P + P and P - P pairs),
 *            points at infinity; and with GLV plans (the combination);
 *   msm_bat  level 1 by the batch-affine tree, 8 .. 64 items per thread,
 *            the three inversions (divsteps, binary Euclid, Fermat), the
 *            round in one kernel and in three (3), slabs of groups and one
 *            group, the cases of msm_ba (all-equal scalars: one bucket of
 *            every entry, past the tree's cap of rounds into the XYZZ
 *            levels), forced windows up to 20, with GLV plans;
 *   h_first  the witness MSMs after the H chain;
 *   msm_seg  the bucket reduction's segment (16 .. 1024 buckets per
 *            thread, also past the bucket count), at the planned windows
 *            and at forced ones up to 20 (the automatic window of G1
 *            plans without copies from 2^24 points, msm_win = new), G1
 *            and G2, copies and skips;
 *   msm_kmul level 1's multiplications by Karatsuba (cu_field_kara.cuh),
 *            msm_minb 2 and 3, forced windows up to 20, copies and skips;
 *            GLV plans and G2 (which keep their kernels) with it on;
 *   msm_fmul level 1's multiplications on the FP64 pipe (cu_field_f64.h),
 *            all of them (1) or one of each pair (2), msm_minb 2 and 3,
 *            the same cases as msm_kmul;
 * scalars random, edge (0, 1, r - 1, powers of two), all equal, {0, 1, 2},
 * 0/1 only and 90% 0/1.  Then whole proofs under each lever's settings,
 * with the G2 MSM on the CPU and on the device, on a key with precomputed
 * copies and on one without (where GLV applies): equal to the CPU
 * backend's proofs and verifying.  One test per lever and combination
 * (cuda_msm_glv / _ba / _combo (both) / _seg / _kmul / _fmul, cuda_prove_h_first / _ba /
 * _glv / _combo / _seg / _kmul / _fmul, each _vs_cpu), which scripts/gpu-issue33.sh runs in separate processes:
 * a lever that faults the device leaves the others' verdicts standing.
 *
 * Settings go through gs_cu_knob_set (the configured values); a knob's
 * environment variable, if set, overrides them, so the tests then check
 * that setting throughout.  Every test puts the knobs back.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "../../test/test.h"
#include "../msm/msm.h"
#include "cuda.h"
#include "knobs.h"
#include "test_cuda_util.h"

#ifdef GS_HAVE_CUDA

/* The G1 cases of cuda_msm_vs_cpu (windows: plain plans; GLV plans take
 * their own unless msm_c forces one). */
static const tcu_msm_case g1_cases[] = {
    { 1, 0, 0 }, { 2, 1, 0 }, { 3, 2, 0 }, { 100, 1, 0 }, { 1000, 0, 0 }, { 1000, 1, 4 },
    { 5000, 2, 0 }, { 5000, 3, 8 }, { 5000, 7, 0 }, { 20000, 1, 0 }, { 20000, 0, 13 },
    { 20000, 4, 0 },
};
static const tcu_msm_case g1_big[] = { { 1 << 17, 0, 0 }, { 1 << 17, 7, 16 } };
static const tcu_msm_case few_cases[] = { { 1 << 16, 0, 10 }, { 1 << 16, 3, 0 }, { 1 << 16, 2, 0 } };
static const tcu_msm_case few_light[] = { { 1 << 13, 0, 10 }, { 1 << 13, 3, 0 } };
static const size_t inf_at[] = { 7, 4000 };
#define NCASES(a) (sizeof a / sizeof a[0])

/* Random-point MSMs (4093 distinct points, two at infinity) and the 61
 * distinct points case, under the knobs in force; light: up to 20,000
 * points (the CPU oracle's MSMs of 2^16 and 2^17 take seconds). */
static void g1_all(int light)
{
    tcu_msm_vs_cpu(&tcu_g1_oracle, g1_cases, NCASES(g1_cases), 4093, inf_at, 2, 20000);
    if (light) {
        tcu_msm_vs_cpu(&tcu_g1_oracle, few_light, NCASES(few_light), 61, inf_at, 2, 1 << 13);
        return;
    }
    tcu_msm_vs_cpu(&tcu_g1_oracle, g1_big, NCASES(g1_big), 4093, inf_at, 2, 1 << 17);
    tcu_msm_vs_cpu(&tcu_g1_oracle, few_cases, NCASES(few_cases), 61, inf_at, 2, 1 << 16);
}

/*
 * The shared preparation: one gs_cu_msm_prepare over n scalars of `kind`
 * with window c and t copies, then the MSM over the suffix from `skip`
 * (copies precomputed for c, t), compared with the CPU MSM of the suffix.
 */
static void prepared_case(gs_cu_dev *d, const gs_g1_affine *pts, size_t n, unsigned c, unsigned t, int skip,
                          int kind)
{
    gs_err e;
    size_t np = n - (size_t)skip;
    gs_scalar *sc = malloc(n * sizeof *sc), *ds = NULL;
    void *dp = NULL;
    gs_g1 got, want;
    GS_REQUIRE(sc);
    tcu_make_scalars(sc, n, kind);
    CU_OK(gs_cu_alloc(d, (void **)&ds, n * sizeof *ds, &e));
    CU_OK(gs_cu_alloc(d, &dp, (size_t)t * np * 96, &e));
    CU_OK(gs_cu_g1_upload(d, dp, pts, np, &e));
    CU_OK(gs_cu_g1_precompute(d, dp, np, np, c, t, &e));
    CU_OK(gs_cu_upload(d, ds, sc, n * sizeof *sc, 0, &e));
    CU_OK(gs_cu_msm_prepare(d, ds, n, (int)c, t, 0, NULL, NULL, &e));
    CU_OK(gs_cu_msm_g1_prepared(d, 0, dp, np, (size_t)skip, &e));
    CU_OK(gs_cu_msm_fetch(d, 0, &e));
    CU_OK(gs_cu_sync(d, &e));
    CU_OK(gs_cu_msm_g1_result(d, 0, &got, &e));
    GS_REQUIRE(gs_msm_g1(&want, pts, sc + skip, np, NULL) == GS_OK);
    GS_CHECK_MSG(gs_g1_eq(&got, &want), "prepared G1 MSM (glv %d, ba %d, s1 %d, minb %d): n %zu c %u t %u "
                 "skip %d kind %d differs from the CPU", gs_cu_knob(GS_CU_K_MSM_GLV), gs_cu_knob(GS_CU_K_MSM_BA),
                 gs_cu_knob(GS_CU_K_MSM_S1), gs_cu_knob(GS_CU_K_MSM_MINB), n, c, t, skip, kind);
done:
    gs_cu_free(d, dp);
    gs_cu_free(d, ds);
    free(sc);
}

/* Prepared MSMs: no copies with skips (GLV applies), copies in several
 * groups and in one (GLV does not), every scalar kind at least once. */
static void prepared_all(void)
{
    size_t n = gs_test_quick() ? 3000 : 20000;
    gs_g1_affine *pts = malloc(n * sizeof *pts);
    gs_cu_dev *d = tcu_open_dev();
    if (!pts || !d) {
        gs_test_fail(__FILE__, __LINE__, "points or device");
        goto out;
    }
    tcu_g1_oracle.make_points(pts, n, 1021);
    gs_g1_affine_set_inf(&pts[5]);
    for (int kind = 0; kind <= 7; kind++) prepared_case(d, pts, n, 13, 1, kind % 2 ? 3 : 0, kind);
    prepared_case(d, pts, n, 9, 4, 3, 1);
    prepared_case(d, pts, n, 12, 16, 0, 0);
    prepared_case(d, pts, n, 22, 12, 3, 7);
out:
    free(pts);
    gs_cu_dev_destroy(d);
}

/* Sets knob k for a test; knob_back restores what it was. */
static int knob_put(gs_cu_knob_id k, int v)
{
    int was = gs_cu_knob(k);
    gs_cu_knob_set(k, v);
    return was;
}

GS_TEST(cuda_msm_glv_vs_cpu)
{
    if (!tcu_need_device()) return;
    static const int windows[] = { 4, 6, 8, 13, 16, 17, 19, 22 };
    static const tcu_msm_case forced[] = { { 1000, 1, 0 }, { 5000, 2, 0 }, { 20000, 0, 0 }, { 20000, 7, 0 } };
    static const tcu_msm_case g2_cases[] = { { 1000, 1, 0 }, { 4096, 0, 7 } };
    int glv = knob_put(GS_CU_K_MSM_GLV, 1), c = gs_cu_knob(GS_CU_K_MSM_C);
    g1_all(0);
    for (size_t w = 0; w < NCASES(windows); w++) {
        if (gs_test_quick() && w % 3 != 0) continue;
        gs_cu_knob_set(GS_CU_K_MSM_C, windows[w]);
        tcu_msm_vs_cpu(&tcu_g1_oracle, forced, NCASES(forced), 4093, inf_at, 2, 20000);
    }
    gs_cu_knob_set(GS_CU_K_MSM_C, c);
    prepared_all();
    tcu_msm_vs_cpu(&tcu_g2_oracle, g2_cases, NCASES(g2_cases), 1021, inf_at, 2, 4096);
    gs_cu_knob_set(GS_CU_K_MSM_GLV, glv);
}

/* Batch-affine level 1 (glv: with GLV plans too): chunks of 32, 256 and
 * 1024 entries at both register budgets, then the planned chunk (msm_s1
 * auto: 1024) on the large cases. */
static void ba_vs_cpu(int glv)
{
    static const int chunks[] = { 32, 256, 1024 };
    int ba = knob_put(GS_CU_K_MSM_BA, 1), g = knob_put(GS_CU_K_MSM_GLV, glv);
    int s1 = gs_cu_knob(GS_CU_K_MSM_S1), minb = gs_cu_knob(GS_CU_K_MSM_MINB);
    for (size_t ci = 0; ci < NCASES(chunks); ci++)
        for (int mb = 2; mb <= 3; mb++) {
            if (gs_test_quick() && mb == 2 && ci != 2) continue;
            gs_cu_knob_set(GS_CU_K_MSM_S1, chunks[ci]);
            gs_cu_knob_set(GS_CU_K_MSM_MINB, mb);
            g1_all(1);
            if (mb == 3) prepared_all();
        }
    gs_cu_knob_set(GS_CU_K_MSM_S1, GS_CU_AUTO);
    gs_cu_knob_set(GS_CU_K_MSM_MINB, minb);
    g1_all(glv);
    gs_cu_knob_set(GS_CU_K_MSM_S1, s1);
    gs_cu_knob_set(GS_CU_K_MSM_GLV, g);
    gs_cu_knob_set(GS_CU_K_MSM_BA, ba);
}

GS_TEST(cuda_msm_ba_vs_cpu)
{
    if (tcu_need_device()) ba_vs_cpu(0);
}

GS_TEST(cuda_msm_combo_vs_cpu)
{
    if (tcu_need_device()) ba_vs_cpu(1);
}

/* The batch-affine tree: 8, 16, 32 and 64 items per thread on the light
 * cases, the prepared MSMs (copies, skips) and forced windows up to 20;
 * then at the default items per thread the large cases, Fermat's and the
 * binary Euclid's inversions, a group per launch, GLV plans; then the
 * split round (msm_bat 3) at every items-per-thread. */
GS_TEST(cuda_msm_bat_vs_cpu)
{
    if (!tcu_need_device()) return;
    static const int per[] = { 8, 16, 32, 64 };
    static const tcu_msm_case forced[] = { { 20000, 0, 20 }, { 20000, 2, 16 }, { 5000, 7, 6 } };
    int bat = knob_put(GS_CU_K_MSM_BAT, 1), bs = gs_cu_knob(GS_CU_K_MSM_BAT_S);
    for (size_t i = 0; i < NCASES(per); i++) {
        gs_cu_knob_set(GS_CU_K_MSM_BAT_S, per[i]);
        g1_all(1);
        prepared_all();
        tcu_msm_vs_cpu(&tcu_g1_oracle, forced, NCASES(forced), 4093, inf_at, 2, 20000);
    }
    gs_cu_knob_set(GS_CU_K_MSM_BAT_S, bs);
    g1_all(0);
    gs_cu_knob_set(GS_CU_K_MSM_BAT, 2); /* Fermat's inversion */
    g1_all(1);
    gs_cu_knob_set(GS_CU_K_MSM_BAT, 1);
    int inv = knob_put(GS_CU_K_MSM_BAT_INV, 1); /* the binary extended Euclid */
    g1_all(1);
    gs_cu_knob_set(GS_CU_K_MSM_BAT_INV, inv);
    gs_cu_knob_set(GS_CU_K_MSM_BAT_G, 1); /* a group per launch */
    g1_all(1);
    prepared_all();
    gs_cu_knob_set(GS_CU_K_MSM_BAT_G, GS_CU_AUTO);
    int g = knob_put(GS_CU_K_MSM_GLV, 1);
    g1_all(1);
    prepared_all();
    gs_cu_knob_set(GS_CU_K_MSM_GLV, g);
    gs_cu_knob_set(GS_CU_K_MSM_BAT, 3); /* the round in three kernels */
    for (size_t i = 0; i < NCASES(per); i++) {
        gs_cu_knob_set(GS_CU_K_MSM_BAT_S, per[i]);
        g1_all(1);
        prepared_all();
    }
    gs_cu_knob_set(GS_CU_K_MSM_BAT_S, bs);
    gs_cu_knob_set(GS_CU_K_MSM_BAT, bat);
}

/* The bucket reduction's segments, each on the light G1 cases, forced
 * windows up to 20 and G2; the prepared MSMs (copies, skips) at two. */
GS_TEST(cuda_msm_seg_vs_cpu)
{
    if (!tcu_need_device()) return;
    static const int segs[] = { 16, 64, 128, 1024 };
    static const tcu_msm_case forced[] = { { 20000, 0, 20 }, { 20000, 7, 18 }, { 5000, 1, 6 } };
    static const tcu_msm_case g2_cases[] = { { 1000, 1, 0 }, { 4096, 0, 7 }, { 4096, 2, 16 } };
    int seg = gs_cu_knob(GS_CU_K_MSM_SEG);
    for (size_t i = 0; i < NCASES(segs); i++) {
        if (gs_test_quick() && i % 2 == 0) continue;
        gs_cu_knob_set(GS_CU_K_MSM_SEG, segs[i]);
        g1_all(1);
        tcu_msm_vs_cpu(&tcu_g1_oracle, forced, NCASES(forced), 4093, inf_at, 2, 20000);
        tcu_msm_vs_cpu(&tcu_g2_oracle, g2_cases, NCASES(g2_cases), 1021, inf_at, 2, 4096);
        if (segs[i] == 64 || segs[i] == 1024) prepared_all();
    }
    gs_cu_knob_set(GS_CU_K_MSM_SEG, seg);
}

/* A level-1 multiplication lever, knob k at each of vals[0..nv), at both
 * register budgets built (msm_minb 3, 2): the G1 cases (61 distinct
 * points: P + P, P - P; in full for the first value at MINB 3, --quick's
 * subset for the others), forced windows up to 20, prepared MSMs (copies,
 * skips) at MINB 3; then, the last value still on, the GLV plans and G2,
 * which keep their kernels. */
static void lever_msm_vs_cpu(gs_cu_knob_id k, const int *vals, int nv)
{
    static const tcu_msm_case forced[] = { { 20000, 0, 20 }, { 20000, 7, 16 }, { 5000, 1, 6 } };
    static const tcu_msm_case g2_cases[] = { { 1000, 1, 0 }, { 4096, 0, 7 } };
    int was = gs_cu_knob(k), minb = gs_cu_knob(GS_CU_K_MSM_MINB);
    for (int i = 0; i < nv; i++) {
        gs_cu_knob_set(k, vals[i]);
        for (int mb = 3; mb >= 2; mb--) {
            gs_cu_knob_set(GS_CU_K_MSM_MINB, mb);
            g1_all(mb == 2 || i > 0 || gs_test_quick());
            tcu_msm_vs_cpu(&tcu_g1_oracle, forced, NCASES(forced), 4093, inf_at, 2, 20000);
            if (mb == 3) prepared_all();
        }
        gs_cu_knob_set(GS_CU_K_MSM_MINB, minb);
    }
    int glv = knob_put(GS_CU_K_MSM_GLV, 1);
    g1_all(1);
    gs_cu_knob_set(GS_CU_K_MSM_GLV, glv);
    tcu_msm_vs_cpu(&tcu_g2_oracle, g2_cases, NCASES(g2_cases), 1021, inf_at, 2, 4096);
    gs_cu_knob_set(k, was);
}

/* Karatsuba multiplications in level 1 (msm_kmul 1). */
GS_TEST(cuda_msm_kmul_vs_cpu)
{
    if (!tcu_need_device()) return;
    static const int on[] = { 1 };
    lever_msm_vs_cpu(GS_CU_K_MSM_KMUL, on, 1);
}

/* The FP64-pipe multiplications in level 1 (msm_fmul 1: all eight lazy
 * ones; 2: one of each independent pair). */
GS_TEST(cuda_msm_fmul_vs_cpu)
{
    if (!tcu_need_device()) return;
    static const int vals[] = { 1, 2 };
    lever_msm_vs_cpu(GS_CU_K_MSM_FMUL, vals, 2);
}

/* The levers' settings for whole proofs, by the test that runs them
 * (lever: 0 h_first, 1 msm_ba, 2 msm_glv, 3 both, 4 msm_seg and msm_win,
 * 5 msm_kmul, 6 msm_fmul, 7 msm_bat):
 * knob ids and values (-1 ends). */
static const struct {
    int lever;
    const char *name;
    int k[3], v[3];
} prove_sets[] = {
    { 0, "h_first", { GS_CU_K_H_FIRST, -1 }, { 1 } },
    { 1, "msm_ba", { GS_CU_K_MSM_BA, -1 }, { 1 } },
    { 1, "msm_ba, 256-entry chunks, msm_minb 2", { GS_CU_K_MSM_BA, GS_CU_K_MSM_S1, GS_CU_K_MSM_MINB },
      { 1, 256, 2 } },
    { 2, "msm_glv", { GS_CU_K_MSM_GLV, -1 }, { 1 } },
    { 3, "msm_glv + msm_ba", { GS_CU_K_MSM_GLV, GS_CU_K_MSM_BA, -1 }, { 1, 1 } },
    { 4, "msm_seg 128", { GS_CU_K_MSM_SEG, -1 }, { 128 } },
    { 4, "msm_seg 16, msm_win old", { GS_CU_K_MSM_SEG, GS_CU_K_MSM_WIN, -1 }, { 16, 1 } },
    { 4, "msm_c 20 (the prove's plans without copies take it per proof)", { GS_CU_K_MSM_C, -1 }, { 20 } },
    { 5, "msm_kmul", { GS_CU_K_MSM_KMUL, -1 }, { 1 } },
    { 5, "msm_kmul, msm_minb 2", { GS_CU_K_MSM_KMUL, GS_CU_K_MSM_MINB, -1 }, { 1, 2 } },
    { 6, "msm_fmul 1", { GS_CU_K_MSM_FMUL, -1 }, { 1 } },
    { 6, "msm_fmul 1, msm_minb 2", { GS_CU_K_MSM_FMUL, GS_CU_K_MSM_MINB, -1 }, { 1, 2 } },
    { 6, "msm_fmul 2", { GS_CU_K_MSM_FMUL, -1 }, { 2 } },
    { 6, "msm_fmul 2, msm_minb 2", { GS_CU_K_MSM_FMUL, GS_CU_K_MSM_MINB, -1 }, { 2, 2 } },
    { 7, "msm_bat", { GS_CU_K_MSM_BAT, -1 }, { 1 } },
    { 7, "msm_bat, 8 items per thread, msm_glv", { GS_CU_K_MSM_BAT, GS_CU_K_MSM_BAT_S, GS_CU_K_MSM_GLV },
      { 1, 8, 1 } },
    { 7, "msm_bat 3 (the split round)", { GS_CU_K_MSM_BAT, -1 }, { 3 } },
};

/* Witness kinds beyond the consistent one: 1 edge values (0, 1, r - 1 every
 * fifth wire), 2 90% 0/1; neither verifies, both must equal the CPU. */
static void witness_kind(gs_assignment *as, const gs_scalar *w, uint32_t n_pub, int kind)
{
    memcpy(as->w, w, (size_t)as->n_vars * sizeof *w);
    if (kind == 0) return;
    for (uint32_t i = n_pub + 1; i < as->n_vars; i++) {
        gs_scalar *x = &as->w[i];
        if (kind == 1 && i % 5 < 3) {
            memset(x, 0, sizeof *x);
            if (i % 5 == 1) x->l[0] = 1;
            if (i % 5 == 2) {
                memcpy(x, &GS_FR_MODULUS, sizeof *x);
                x->l[0] -= 1;
            }
        } else if (kind == 2 && gs_rng_below(gs_test_rng(), 10) != 0) {
            memset(x, 0, sizeof *x);
            x->l[0] = gs_rng_below(gs_test_rng(), 2);
        }
    }
}

/* msm_l starts after the H chain's ntt ends (h_first's promise). */
static void check_h_first(const gs_stage_list *sg, const char *what)
{
    int64_t ntt_end = -1, l_start = -1;
    for (int i = 0; i < sg->n; i++) {
        if (!strcmp(sg->s[i].name, "ntt")) ntt_end = sg->s[i].end_ns;
        if (!strcmp(sg->s[i].name, "msm_l")) l_start = sg->s[i].start_ns;
    }
    GS_CHECK_MSG(ntt_end >= 0 && l_start >= ntt_end - 20000, "%s: msm_l starts %lld ns before ntt ends", what,
                 (long long)(ntt_end - l_start));
}

/* The sets of one lever, whole proofs against the CPU backend. */
static void prove_lever_vs_cpu(int lever)
{
    gs_err e;
    tcu_key key;
    gs_backend *gpu = NULL, *cpu = NULL;
    int saved[GS_CU_KNOB_COUNT];
    for (int k = 0; k < GS_CU_KNOB_COUNT; k++) saved[k] = gs_cu_knob((gs_cu_knob_id)k);
    CU_OK(tcu_key_make(&key, &e));
    CU_OK(gs_backend_cpu_create(&cpu, 2, &e));
    /* copies 0: the key with precomputed copies (plain plans); 1: without
     * (key_copies = 1, read at load_pk: the plans GLV takes). */
    for (int nocopies = 0; nocopies < 2; nocopies++) {
        gs_cu_knob_set(GS_CU_K_KEY_COPIES, nocopies ? 1 : saved[GS_CU_K_KEY_COPIES]);
        CU_OK(gs_backend_cuda_create(&gpu, 0, &e));
        CU_OK(gpu->ops->load_pk(gpu, &key.pk, &e));
        /* Per set: the consistent witness with the G2 MSM on the CPU and on
         * the device, the edge witness (device), the 0/1 one (CPU). */
        for (size_t si = 0; si < NCASES(prove_sets); si++)
            for (int kind = 0; kind < 3; kind++)
                for (int g2 = 0; g2 < 2; g2++) {
                    if (prove_sets[si].lever != lever || (kind == 1 && !g2) || (kind == 2 && g2)) continue;
                    if (gs_test_quick() && kind != 0) continue;
                    for (int j = 0; j < 3 && prove_sets[si].k[j] >= 0; j++)
                        gs_cu_knob_set((gs_cu_knob_id)prove_sets[si].k[j], prove_sets[si].v[j]);
                    witness_kind(&key.as, key.w, key.n_pub, kind);
                    gs_scalar r, s;
                    tcu_random_rs(&r, &s);
                    gs_prove_opts opts = { .pageable = 0, .threads = 0, .g2_on_device = g2 };
                    gs_stage_list sg = { 0 };
                    gs_proof pg;
                    gs_err_clear(&e);
                    int same = tcu_prove_pair(gpu, cpu, &key.pk, &key.as, &r, &s, &opts, &pg, &sg, &e);
                    for (int k = 0; k < GS_CU_KNOB_COUNT; k++)
                        if (k != GS_CU_K_KEY_COPIES) gs_cu_knob_set((gs_cu_knob_id)k, saved[k]);
                    char what[160];
                    snprintf(what, sizeof what, "%s, witness kind %d, G2 on %s, copies %s", prove_sets[si].name,
                             kind, g2 ? "device" : "CPU", nocopies ? "off" : "on");
                    GS_CHECK_MSG(same == 1, "%s: GPU proof differs from CPU proof%s%s", what,
                                 same < 0 ? ": " : "", e.msg);
                    if (same < 0) goto done;
                    if (kind == 0) {
                        gs_err_clear(&e);
                        GS_CHECK_MSG(gs_groth16_verify(&key.vk, key.w + 1, key.n_pub, &pg, &e) == GS_OK,
                                     "%s: GPU proof does not verify: %s", what, e.msg);
                    }
                    if (prove_sets[si].k[0] == GS_CU_K_H_FIRST) check_h_first(&sg, what);
                }
        gpu->ops->destroy(gpu);
        gpu = NULL;
    }
done:
    for (int k = 0; k < GS_CU_KNOB_COUNT; k++) gs_cu_knob_set((gs_cu_knob_id)k, saved[k]);
    if (gpu) gpu->ops->destroy(gpu);
    if (cpu) cpu->ops->destroy(cpu);
    tcu_key_free(&key);
}

GS_TEST(cuda_prove_h_first_vs_cpu)
{
    if (tcu_need_device()) prove_lever_vs_cpu(0);
}

GS_TEST(cuda_prove_ba_vs_cpu)
{
    if (tcu_need_device()) prove_lever_vs_cpu(1);
}

GS_TEST(cuda_prove_glv_vs_cpu)
{
    if (tcu_need_device()) prove_lever_vs_cpu(2);
}

GS_TEST(cuda_prove_combo_vs_cpu)
{
    if (tcu_need_device()) prove_lever_vs_cpu(3);
}

GS_TEST(cuda_prove_seg_vs_cpu)
{
    if (tcu_need_device()) prove_lever_vs_cpu(4);
}

GS_TEST(cuda_prove_kmul_vs_cpu)
{
    if (tcu_need_device()) prove_lever_vs_cpu(5);
}

GS_TEST(cuda_prove_fmul_vs_cpu)
{
    if (tcu_need_device()) prove_lever_vs_cpu(6);
}

GS_TEST(cuda_prove_bat_vs_cpu)
{
    if (tcu_need_device()) prove_lever_vs_cpu(7);
}

#else /* !GS_HAVE_CUDA */

GS_TEST(cuda_msm_glv_vs_cpu) { tcu_need_device(); }
GS_TEST(cuda_msm_ba_vs_cpu) { tcu_need_device(); }
GS_TEST(cuda_msm_combo_vs_cpu) { tcu_need_device(); }
GS_TEST(cuda_prove_h_first_vs_cpu) { tcu_need_device(); }
GS_TEST(cuda_prove_ba_vs_cpu) { tcu_need_device(); }
GS_TEST(cuda_prove_glv_vs_cpu) { tcu_need_device(); }
GS_TEST(cuda_prove_combo_vs_cpu) { tcu_need_device(); }
GS_TEST(cuda_msm_seg_vs_cpu) { tcu_need_device(); }
GS_TEST(cuda_prove_seg_vs_cpu) { tcu_need_device(); }
GS_TEST(cuda_msm_kmul_vs_cpu) { tcu_need_device(); }
GS_TEST(cuda_prove_kmul_vs_cpu) { tcu_need_device(); }
GS_TEST(cuda_msm_fmul_vs_cpu) { tcu_need_device(); }
GS_TEST(cuda_prove_fmul_vs_cpu) { tcu_need_device(); }
GS_TEST(cuda_msm_bat_vs_cpu) { tcu_need_device(); }
GS_TEST(cuda_prove_bat_vs_cpu) { tcu_need_device(); }

#endif
