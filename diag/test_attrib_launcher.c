/*
 * The launcher rule (attrib_launcher.c) on hand-built foreign timelines:
 * one device stream, a launcher thread and a second thread (a lock holder).
 * A kernel [0, 10) ms, an idle gap [10, 110) ms, and the kernel that ends
 * the gap [110, 120) ms, launched by the launcher thread.  Each test puts
 * spans on the threads and checks the idle milliseconds per cause.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "../test/test.h"
#include "analysis.h"
#include "test_diag_util.h"

typedef struct fixture {
    gs_timeline *tl;
    gs_tl_lane *dev, *launcher, *holder;
} fixture;

/* The base timeline; `launch_args` are the args of the gap-ending kernel
 * (NULL: launch_lane = the launcher thread). */
static int fixture_init(fixture *f, const char *launch_args)
{
    if (gs_timeline_create(&f->tl) != GS_OK)
        return 0;
    f->dev = gs_tl_lane_open(f->tl, "gpu0/stream7", GS_ROLE_DEVICE, 0, 7);
    f->launcher = gs_tl_lane_open(f->tl, "thread/101 main", GS_ROLE_THREAD, -1, -1);
    f->holder = gs_tl_lane_open(f->tl, "thread/102 worker", GS_ROLE_THREAD, -1, -1);
    td_kernels(f->dev, "gemm", f->launcher, launch_args);
    return f->dev && f->launcher && f->holder;
}

/* Every idle instant has one cause: the causes sum to the 100 ms gap. */
static void check_total(const gs_analysis *a)
{
    double t = 0;
    for (int c = 0; c < GS_CAUSE_COUNT; c++)
        t += a->cause_s[c];
    GS_CHECK(fabs(t - 0.1) < 1e-9);
    GS_CHECK(a->n_dev == 1 && a->dev[0].rule == GS_RULE_LAUNCHER);
}

GS_TEST(diag_launcher_no_launcher_is_other)
{
    fixture f;
    GS_REQUIRE(fixture_init(&f, "corr=99"));   /* no cuda:* call with corr 99 */
    td_step(f.launcher, "state:futex", 0, 200, NULL);
    gs_analysis *a = td_analyse(f.tl);
    GS_REQUIRE(a);
    check_total(a);
    NEAR_MS(a, GS_CAUSE_OTHER, 100);
    GS_CHECK(a->dev[0].pieces[0].worker == -1);
    td_free(a, f.tl);
}

GS_TEST(diag_launcher_state_precedence)
{
    /* Over the gap the launcher is, in 10 ms slices: nothing, running,
     * runnable, sleep, io, futex, futex+io+sleep+runnable+running (futex
     * wins), a cuda_sync call with a futex state (sync wins), malloc_trim
     * with running (trim wins), nothing. */
    fixture f;
    GS_REQUIRE(fixture_init(&f, NULL));
    gs_tl_lane *L = f.launcher;
    td_step(L, "state:running", 20, 30, NULL);
    td_step(L, "state:runnable", 30, 40, NULL);
    td_step(L, "state:sleep", 40, 50, NULL);
    td_step(L, "state:io", 50, 60, NULL);
    td_step(L, "state:futex", 60, 80, NULL);
    td_step(L, "state:io", 70, 80, NULL);
    td_step(L, "state:sleep", 70, 80, NULL);
    td_step(L, "state:runnable", 70, 80, NULL);
    td_step(L, "state:running", 70, 80, NULL);
    td_step(L, "cuda_sync:cudaStreamSynchronize", 80, 90, "corr=5");
    td_step(L, "state:futex", 80, 90, NULL);
    td_step(L, "state:running", 90, 100, NULL);
    td_step(L, "malloc_trim", 90, 100, NULL);
    gs_analysis *a = td_analyse(f.tl);
    GS_REQUIRE(a);
    check_total(a);
    NEAR_MS(a, GS_CAUSE_OTHER, 20);   /* [10, 20) and [100, 110) */
    NEAR_MS(a, GS_CAUSE_HOST_COMPUTE, 10);
    NEAR_MS(a, GS_CAUSE_CPU_STARVED, 10);
    NEAR_MS(a, GS_CAUSE_SLEEP, 10);
    NEAR_MS(a, GS_CAUSE_IO, 10);
    NEAR_MS(a, GS_CAUSE_BLOCKED_FUTEX, 20);
    NEAR_MS(a, GS_CAUSE_CUDA_SYNC, 10);
    NEAR_MS(a, GS_CAUSE_MALLOC_TRIM, 10);
    /* Families: futex and sleep are the engine's queue_empty. */
    GS_CHECK(fabs(gs_analysis_cause_idle(a, "queue_empty") - 0.030) < 1e-9);
    GS_CHECK(fabs(gs_analysis_cause_idle(a, "host_prep") - 0.010) < 1e-9);
    GS_CHECK(fabs(gs_analysis_cause_idle(a, "backend_host") - 0.010) < 1e-9);
    GS_CHECK(!strcmp(gs_cause_family(GS_CAUSE_BLOCKED_FUTEX), "queue_empty"));
    GS_CHECK(!strcmp(gs_cause_family(GS_CAUSE_LOCK_WAIT_TRIM), "tracker_lock"));
    GS_CHECK(!strcmp(gs_cause_family(GS_CAUSE_TRACKER_VERIFY), "tracker_lock"));
    GS_CHECK(!strcmp(gs_cause_family(GS_CAUSE_HANDOFF), "handoff"));
    /* Each piece names the launcher lane as its deciding lane. */
    for (size_t p = 0; p < a->dev[0].n_pieces; p++)
        GS_CHECK(a->dev[0].pieces[p].worker == gs_tl_lane_id(f.launcher) ||
                 a->dev[0].pieces[p].cause == GS_CAUSE_OTHER);
    td_free(a, f.tl);
}

GS_TEST(diag_launcher_lock_wait_by_holder_activity)
{
    /* The launcher waits for mutex:0xabc over [10, 110).  The holder holds
     * it over [0, 60) (LOCK_HOLD, covering) running malloc_trim [10, 30),
     * cudaDeviceSynchronize [30, 40), host code [40, 50) and a futex
     * [50, 60).  From 60 on no hold covers the wait: its recorded holder
     * (the holder lane) is in no state over [60, 80) and sampled running
     * over [80, 110). */
    fixture f;
    GS_REQUIRE(fixture_init(&f, NULL));
    int32_t H = gs_tl_lane_id(f.holder);
    gs_tl_lock_wait(f.launcher, "mutex:0xabc", H, -1, -1, 10 * MS, 110 * MS);
    gs_tl_span(f.holder, GS_SPAN_LOCK_HOLD, "mutex:0xabc", -1, -1, 0, 60 * MS, 0, NULL);
    td_step(f.holder, "malloc_trim", 10, 30, NULL);
    td_step(f.holder, "cuda_sync:cudaDeviceSynchronize", 30, 40, NULL);
    td_step(f.holder, "nvtx:prep", 40, 50, NULL);
    td_step(f.holder, "state:futex", 50, 60, NULL);
    td_step(f.holder, "state:running", 80, 110, NULL);
    /* The launcher's own state under the wait does not matter. */
    td_step(f.launcher, "state:futex", 10, 110, NULL);
    gs_analysis *a = td_analyse(f.tl);
    GS_REQUIRE(a);
    check_total(a);
    NEAR_MS(a, GS_CAUSE_LOCK_WAIT_TRIM, 20);
    NEAR_MS(a, GS_CAUSE_LOCK_WAIT_SYNC, 10);
    NEAR_MS(a, GS_CAUSE_LOCK_WAIT_COMPUTE, 10 + 30);
    NEAR_MS(a, GS_CAUSE_LOCK_WAIT_BLOCKED, 10);
    NEAR_MS(a, GS_CAUSE_LOCK_WAIT_OTHER, 20);
    NEAR_MS(a, GS_CAUSE_BLOCKED_FUTEX, 0);
    GS_CHECK(fabs(gs_analysis_cause_idle(a, "tracker_lock") - 0.1) < 1e-9);
    GS_CHECK(fabs(gs_analysis_cause_idle(a, "lock_wait") - 0.1) < 1e-9);
    for (size_t p = 0; p < a->dev[0].n_pieces; p++)
        GS_CHECK(a->dev[0].pieces[p].holder == H);
    td_free(a, f.tl);
}

GS_TEST(diag_launcher_lock_wait_holder_unknown)
{
    /* A wait with no holder recorded and no LOCK_HOLD, and a wait whose
     * LOCK_HOLD is of another lock: both lock_wait/other. */
    fixture f;
    GS_REQUIRE(fixture_init(&f, NULL));
    gs_tl_lock_wait(f.launcher, "mutex:?", -1, -1, -1, 10 * MS, 60 * MS);
    gs_tl_lock_wait(f.launcher, "mutex:0x1", -1, -1, -1, 60 * MS, 110 * MS);
    gs_tl_span(f.holder, GS_SPAN_LOCK_HOLD, "mutex:0x2", -1, -1, 0, 200 * MS, 0, NULL);
    td_step(f.holder, "malloc_trim", 0, 200, NULL);
    gs_analysis *a = td_analyse(f.tl);
    GS_REQUIRE(a);
    check_total(a);
    NEAR_MS(a, GS_CAUSE_LOCK_WAIT_OTHER, 100);
    td_free(a, f.tl);
}

GS_TEST(diag_launcher_pageable_copy_and_corr_fallback)
{
    /* No launch_lane: the launcher is found through corr=2 on its cuda:*
     * call.  The call at [30, 60) is a blocking cudaMemcpy of a pageable
     * H2D copy (corr 3), which beats its cuda_sync: name: h2d_pageable, the
     * engine's cause.  [60, 110) the launcher is inside its
     * cudaLaunchKernel call (corr 2): host code. */
    fixture f;
    GS_REQUIRE(fixture_init(&f, "corr=2"));
    gs_tl_span(f.dev, GS_SPAN_COPY, "h2d", -1, -1, 200 * MS, 210 * MS, 0, "bytes=1024;pageable=1;corr=3");
    td_step(f.launcher, "cuda_sync:cudaMemcpy", 30, 60, "corr=3");
    td_step(f.launcher, "state:io", 30, 60, NULL);   /* pageable beats the sampled state too */
    td_step(f.launcher, "cuda:cudaLaunchKernel", 60, 110, "corr=2");
    gs_analysis *a = td_analyse(f.tl);
    GS_REQUIRE(a);
    /* The copy at 200 ms widens the span: a second gap [120, 200) ended by
     * a copy whose launcher (corr 3) is known: nothing on it then: other. */
    GS_REQUIRE(a->n_dev == 1 && a->dev[0].rule == GS_RULE_LAUNCHER);
    NEAR_MS(a, GS_CAUSE_H2D_PAGEABLE, 30);
    NEAR_MS(a, GS_CAUSE_HOST_COMPUTE, 50);
    NEAR_MS(a, GS_CAUSE_OTHER, 20 + 80);
    td_free(a, f.tl);
}

GS_TEST(diag_launcher_nvtx_detail)
{
    /* Host code inside NVTX ranges: host_compute with the innermost range
     * as detail; the analysis lists (cause, detail, idle). */
    fixture f;
    GS_REQUIRE(fixture_init(&f, NULL));
    td_step(f.launcher, "nvtx:step", 10, 110, NULL);
    td_step(f.launcher, "nvtx:tokenize", 20, 50, NULL);
    td_step(f.launcher, "state:running", 10, 110, NULL);
    gs_analysis *a = td_analyse(f.tl);
    GS_REQUIRE(a);
    check_total(a);
    NEAR_MS(a, GS_CAUSE_HOST_COMPUTE, 100);
    GS_REQUIRE(a->n_details == 2);
    for (size_t i = 0; i < a->n_details; i++) {
        GS_CHECK(a->details[i].cause == GS_CAUSE_HOST_COMPUTE);
        double want = !strcmp(a->details[i].detail, "nvtx:tokenize") ? 0.030 : 0.070;
        GS_CHECK(!strcmp(a->details[i].detail, "nvtx:tokenize") ||
                 !strcmp(a->details[i].detail, "nvtx:step"));
        GS_CHECK(fabs(a->details[i].idle_s - want) < 1e-9);
    }
    td_free(a, f.tl);
}

GS_TEST(diag_launcher_engine_timelines_keep_engine_rule)
{
    /* The same launcher spans next to a GPU worker of device 0: the
     * engine's rule decides (queue_wait -> queue_empty), not the launcher. */
    fixture f;
    GS_REQUIRE(fixture_init(&f, NULL));
    gs_tl_lane *w = gs_tl_lane_open(f.tl, "gpu_worker/0.0", GS_ROLE_GPU_WORKER, 0, -1);
    td_step(w, "queue_wait", 5, 115, NULL);
    td_step(f.launcher, "malloc_trim", 10, 110, NULL);
    gs_analysis *a = td_analyse(f.tl);
    GS_REQUIRE(a);
    GS_CHECK(a->dev[0].rule == GS_RULE_ENGINE);
    NEAR_MS(a, GS_CAUSE_QUEUE_EMPTY, 100);
    NEAR_MS(a, GS_CAUSE_MALLOC_TRIM, 0);
    GS_CHECK(a->n_details == 0);
    td_free(a, f.tl);
}

/* The H200 captures of 2026-12-04 (traces/attach-h200/2026-12-04, README
 * there): the engine's own timeline (sc-nat1) and attach's of the same
 * process (sc-att1), and the PyTorch script's malloc_trim stall. */
static gs_analysis *analyze_file(const char *path, gs_timeline **tl)
{
    gs_err err;
    gs_err_clear(&err);
    gs_analysis *a = NULL;
    gs_analysis_config cfg;
    gs_analysis_config_defaults(&cfg);
    if (gs_timeline_read_csv(tl, path, &err) != GS_OK) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        return NULL;
    }
    if (gs_analyze(&a, *tl, &cfg, &err) != GS_OK)
        return NULL;
    return a;
}

/* Busy time of the device kernels and copies inside [w0, w1). */
static int64_t device_busy_in(gs_timeline *tl, int64_t w0, int64_t w1, int64_t *first, int64_t *last)
{
    size_t n, k = 0;
    const gs_span *sp = gs_timeline_spans(tl, &n);
    gs_interval *iv = calloc(n ? n : 1, sizeof *iv);
    *first = INT64_MAX;
    *last = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        const gs_lane_info *li = gs_timeline_lane(tl, sp[i].lane);
        if (!li || li->role != GS_ROLE_DEVICE || (sp[i].kind != GS_SPAN_KERNEL && sp[i].kind != GS_SPAN_COPY))
            continue;
        if (sp[i].start_ns < *first) *first = sp[i].start_ns;
        if (sp[i].end_ns > *last) *last = sp[i].end_ns;
        iv[k].start_ns = sp[i].start_ns;
        iv[k++].end_ns = sp[i].end_ns;
    }
    k = gs_interval_union(iv, k);
    int64_t busy = gs_interval_overlap(iv, k, w0, w1);
    free(iv);
    return busy;
}

GS_TEST(diag_launcher_h200_captures_2026_12_04)
{
    const char *dir = "traces/attach-h200/2026-12-04";
    char p1[256], p2[256];
    gs_timeline *nt = NULL, *at = NULL;
    snprintf(p1, sizeof p1, "%s/sc-nat1/spans.csv", dir);
    snprintf(p2, sizeof p2, "%s/sc-att1/spans.csv", dir);
    gs_analysis *na = analyze_file(p1, &nt), *aa = analyze_file(p2, &at);
    GS_REQUIRE(na && aa);
    /* Same verdict family: the GPU worker waiting on an empty GPU queue
     * (engine rule: queue_empty; launcher rule: blocked in a futex). */
    GS_CHECK_MSG(gs_analysis_cause_idle(na, "queue_empty") > 0.75 * na->idle_s, "native queue_empty %.3f of %.3f s",
                 gs_analysis_cause_idle(na, "queue_empty"), na->idle_s);
    GS_CHECK_MSG(gs_analysis_cause_idle(aa, "queue_empty") > 0.75 * aa->idle_s, "attach queue_empty %.3f of %.3f s",
                 gs_analysis_cause_idle(aa, "queue_empty"), aa->idle_s);
    /* Util over the native timeline's device window: within 1 point. */
    int64_t f0, l0, f1, l1;
    int64_t nb = device_busy_in(nt, INT64_MIN / 2, INT64_MAX / 2, &f0, &l0);
    GS_REQUIRE(l0 > f0);
    int64_t ab = device_busy_in(at, f0, l0, &f1, &l1);
    double nu = (double)nb / (double)(l0 - f0), au = (double)ab / (double)(l0 - f0);
    GS_CHECK_MSG(na->n_dev == 1 && fabs(nu - na->dev[0].util) < 1e-6, "native util %.5f vs analysis %.5f", nu, na->dev[0].util);
    GS_CHECK_MSG(fabs(au - nu) <= 0.01, "native %.4f, attach in its window %.4f", nu, au);
    /* Attach also saw the key upload before the engine's first partition. */
    GS_CHECK(f1 < f0 - 1000000000LL);
    gs_analysis_destroy(na);
    td_free(aa, nt);
    gs_timeline_destroy(at);
    static const char *trims[] = {"torch-trim-400", "torch-trim-1600"};
    for (int i = 0; i < 2; i++) {
        gs_timeline *tl = NULL;
        snprintf(p1, sizeof p1, "%s/%s/spans.csv", dir, trims[i]);
        gs_analysis *a = analyze_file(p1, &tl);
        GS_REQUIRE(a);
        GS_CHECK_MSG(!strcmp(gs_cause_family(a->verdict), "malloc_trim") && a->verdict_share > 0.6,
                     "%s: verdict %s, %.2f", trims[i], gs_cause_name(a->verdict), a->verdict_share);
        td_free(a, tl);
    }
}
