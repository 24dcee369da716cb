/* Analysis tests on hand-built timelines with known answers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../test/test.h"
#include "analysis.h"
#include "test_diag_util.h"
#include "../timeline/tl_internal.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)

static const gs_device_analysis *dev_of(const gs_analysis *a, int32_t d)
{
    for (size_t i = 0; i < a->n_dev; i++)
        if (a->dev[i].device == d)
            return &a->dev[i];
    return NULL;
}

GS_TEST(diag_analysis_unions_and_gaps)
{
    gs_timeline *tl;
    GS_REQUIRE(gs_timeline_create(&tl) == GS_OK);
    gs_tl_lane *s0 = gs_tl_lane_open(tl, "gpu0/stream0", GS_ROLE_DEVICE, 0, 0);
    gs_tl_lane *s1 = gs_tl_lane_open(tl, "gpu0/stream1", GS_ROLE_DEVICE, 0, 1);
    gs_tl_lane *drv = gs_tl_lane_open(tl, "driver", GS_ROLE_DRIVER, -1, -1);
    gs_tl_span(s0, GS_SPAN_KERNEL, "ntt", 0, 0, 0, 100 * MS, 0, NULL);
    gs_tl_span(s0, GS_SPAN_KERNEL, "msm_h", 0, 0, 150 * MS, 300 * MS, 0, NULL);
    gs_tl_span(s1, GS_SPAN_KERNEL, "intt", 0, 0, 50 * MS, 120 * MS, 0, NULL);
    gs_tl_span(s1, GS_SPAN_KERNEL, "msm_l", 0, 0, 400 * MS, 500 * MS, 0, NULL);
    gs_tl_span(s0, GS_SPAN_COPY, "d2h", 0, 0, 300 * MS, 350 * MS, 0, NULL);
    gs_tl_span(s1, GS_SPAN_COPY, "h2d", 0, 0, 90 * MS, 110 * MS, 0, NULL);
    /* Host spans outside the device span do not widen it. */
    gs_tl_span(drv, GS_SPAN_STEP, "setup", -1, -1, -50 * MS, 600 * MS, 0, NULL);
    gs_analysis *a = td_analyse(tl);
    GS_REQUIRE(a);
    GS_REQUIRE(a->n_dev == 1);
    const gs_device_analysis *d = &a->dev[0];
    GS_CHECK_EQ_INT(d->n_ops, 6);
    GS_CHECK(NEAR(d->span_s, 0.5));
    GS_CHECK(NEAR(d->busy_s, 0.42));
    GS_CHECK(NEAR(d->kernel_s, 0.37));
    GS_CHECK(NEAR(d->copy_s, 0.07));
    GS_CHECK(NEAR(d->util, 0.84));
    GS_CHECK(NEAR(d->util_kernels_only, 0.74));
    GS_REQUIRE(d->n_gaps == 2);
    GS_CHECK(d->gaps[0].start_ns == 120 * MS && d->gaps[0].end_ns == 150 * MS);
    GS_CHECK(d->gaps[1].start_ns == 350 * MS && d->gaps[1].end_ns == 400 * MS);
    GS_CHECK_EQ_INT(d->gap_stats.count, 2);
    GS_CHECK(NEAR(d->gap_stats.total_s, 0.08));
    GS_CHECK(NEAR(d->gap_stats.max_ms, 50));
    GS_CHECK(NEAR(d->gap_stats.p50_ms, 30));
    GS_CHECK(NEAR(d->idle_s + d->busy_s, d->span_s));
    /* No GPU workers: all idle is "other". */
    GS_CHECK(NEAR(d->cause_s[GS_CAUSE_OTHER], 0.08));
    GS_CHECK(a->verdict == GS_CAUSE_OTHER && NEAR(a->verdict_share, 1.0));
    td_free(a, tl);
}

GS_TEST(diag_analysis_percentiles)
{
    double v[100];
    for (int i = 0; i < 100; i++)
        v[i] = i + 1;
    GS_CHECK(gs_percentile(v, 100, 50) == 50);
    GS_CHECK(gs_percentile(v, 100, 90) == 90);
    GS_CHECK(gs_percentile(v, 100, 99) == 99);
    GS_CHECK(gs_percentile(v, 100, 100) == 100);
    GS_CHECK(gs_percentile(v, 10, 50) == 5);
    GS_CHECK(gs_percentile(v, 10, 90) == 9);
    GS_CHECK(gs_percentile(v, 10, 99) == 10);
    GS_CHECK(gs_percentile(v, 1, 1) == 1);
    GS_CHECK(gs_percentile(v, 0, 50) == 0);
    /* Gap statistics from shuffled lengths 1..10 ms, micro threshold 5.5 ms. */
    double len[10] = {0.007, 0.001, 0.010, 0.003, 0.002, 0.009, 0.004, 0.006, 0.005, 0.008};
    gs_gap_stats st;
    gs_gap_stats_compute(&st, len, 10, 0.0055);
    GS_CHECK_EQ_INT(st.count, 10);
    GS_CHECK(NEAR(st.p50_ms, 5) && NEAR(st.p90_ms, 9) && NEAR(st.p99_ms, 10) && NEAR(st.max_ms, 10));
    GS_CHECK(NEAR(st.total_s, 0.055) && NEAR(st.mean_ms, 5.5));
    GS_CHECK_EQ_INT(st.micro_count, 5);
    GS_CHECK_EQ_INT(st.macro_count, 5);
    GS_CHECK(NEAR(st.micro_total_s, 0.015) && NEAR(st.macro_total_s, 0.040));
}

/* Cause seconds of device d (ms). */
static double cause_ms(const gs_device_analysis *d, gs_cause c)
{
    return d->cause_s[c] * 1e3;
}

GS_TEST(diag_analysis_cause_changes_mid_gap)
{
    gs_tl_lane *s0, *w;
    gs_timeline *tl = td_engine(&s0, &w);
    GS_REQUIRE(tl);
    gs_tl_lane *fin = gs_tl_lane_open(tl, "finalizer/0", GS_ROLE_FINALIZER, 0, -1);
    gs_tl_span(s0, GS_SPAN_KERNEL, "msm_h", 1, 0, 0, 10 * MS, 0, NULL);
    gs_tl_span(s0, GS_SPAN_KERNEL, "ntt", 1, 1, 110 * MS, 120 * MS, 0, NULL);
    /* The worker: queue empty, then blocked on the tracker in fail_check. */
    gs_tl_span(w, GS_SPAN_STEP, "queue_wait", -1, -1, 5 * MS, 40 * MS, 0, NULL);
    gs_tl_lock_wait(w, "tracker", gs_tl_lane_id(fin), 1, 1, 40 * MS, 100 * MS);
    gs_tl_span(w, GS_SPAN_LOCK_HOLD, "tracker", 1, 1, 100 * MS, 105 * MS, 0, NULL);
    gs_tl_span(w, GS_SPAN_STEP, "fail_check", 1, 1, 40 * MS, 108 * MS, 0, NULL);
    gs_tl_span(w, GS_SPAN_STEP, "mark_busy", 1, 1, 108 * MS, 110 * MS, 0, NULL);
    gs_tl_span(w, GS_SPAN_STEP, "prove_start", 1, 1, 110 * MS, 125 * MS, 0, NULL);
    /* The finalizer holds the tracker for process_result, malloc_trim, verify. */
    gs_tl_span(fin, GS_SPAN_STEP, "process_result", 1, 0, 30 * MS, 50 * MS, 0, NULL);
    gs_tl_span(fin, GS_SPAN_STEP, "malloc_trim", 1, 0, 50 * MS, 85 * MS, 0, NULL);
    gs_tl_span(fin, GS_SPAN_STEP, "verify", 1, 0, 85 * MS, 95 * MS, 0, NULL);
    gs_tl_span(fin, GS_SPAN_LOCK_HOLD, "tracker", 1, 0, 30 * MS, 100 * MS, 0, "result");
    gs_analysis *a = td_analyse(tl);
    GS_REQUIRE(a);
    const gs_device_analysis *d = dev_of(a, 0);
    GS_REQUIRE(d && d->n_gaps == 1);
    GS_CHECK(NEAR(cause_ms(d, GS_CAUSE_QUEUE_EMPTY), 30));
    GS_CHECK(NEAR(cause_ms(d, GS_CAUSE_TRACKER_OTHER), 15));
    GS_CHECK(NEAR(cause_ms(d, GS_CAUSE_TRACKER_TRIM), 35));
    GS_CHECK(NEAR(cause_ms(d, GS_CAUSE_TRACKER_VERIFY), 10));
    GS_CHECK(NEAR(cause_ms(d, GS_CAUSE_OTHER), 10));
    double sum = 0;
    for (int c = 0; c < GS_CAUSE_COUNT; c++)
        sum += d->cause_s[c];
    GS_CHECK(NEAR(sum, d->idle_s) && NEAR(d->idle_s, 0.1));
    /* Pieces in time order: queue, tracker/other, trim, verify, tracker/other, other. */
    static const gs_cause want[] = {GS_CAUSE_QUEUE_EMPTY, GS_CAUSE_TRACKER_OTHER,
                                    GS_CAUSE_TRACKER_TRIM, GS_CAUSE_TRACKER_VERIFY,
                                    GS_CAUSE_TRACKER_OTHER, GS_CAUSE_OTHER};
    GS_REQUIRE(d->n_pieces == 6);
    for (int i = 0; i < 6; i++) {
        GS_CHECK_MSG(d->pieces[i].cause == want[i], "piece %d is %s", i,
                     gs_cause_name(d->pieces[i].cause));
        if (i)
            GS_CHECK(d->pieces[i].start_ns == d->pieces[i - 1].end_ns);
    }
    GS_CHECK(d->pieces[2].holder == gs_tl_lane_id(fin) && d->pieces[2].worker == gs_tl_lane_id(w));
    GS_CHECK(d->gaps[0].cause == GS_CAUSE_TRACKER_TRIM);
    GS_CHECK(NEAR(d->idle_during_trim_s, 0.035) && NEAR(a->idle_during_trim_s, 0.035));
    GS_CHECK(a->verdict == GS_CAUSE_TRACKER_TRIM && NEAR(a->verdict_share, 0.35));
    GS_CHECK(NEAR(gs_analysis_cause_idle(a, "tracker_lock"), 0.060));
    GS_CHECK(NEAR(gs_analysis_cause_idle(a, "tracker_lock/verify"), 0.010));
    GS_CHECK(NEAR(gs_analysis_cause_idle(a, "tracker"), 0.0));
    char v[512];
    gs_analysis_verdict(v, sizeof v, a);
    GS_CHECK(strstr(v, "tracker_lock/malloc_trim") && strstr(v, "35%"));
    td_free(a, tl);
}

GS_TEST(diag_analysis_precedence)
{
    gs_timeline *tl;
    GS_REQUIRE(gs_timeline_create(&tl) == GS_OK);
    gs_tl_lane *g0 = gs_tl_lane_open(tl, "gpu0/stream0", GS_ROLE_DEVICE, 0, 0);
    gs_tl_lane *g1 = gs_tl_lane_open(tl, "gpu1/stream0", GS_ROLE_DEVICE, 1, 0);
    gs_tl_lane *w1 = gs_tl_lane_open(tl, "gpu_worker/0.0", GS_ROLE_GPU_WORKER, 0, -1);
    gs_tl_lane *w2 = gs_tl_lane_open(tl, "gpu_worker/0.1", GS_ROLE_GPU_WORKER, 0, -1);
    gs_tl_lane *w3 = gs_tl_lane_open(tl, "gpu_worker/1.0", GS_ROLE_GPU_WORKER, 1, -1);
    gs_tl_lane *fin = gs_tl_lane_open(tl, "finalizer/0", GS_ROLE_FINALIZER, 0, -1);
    gs_tl_span(g0, GS_SPAN_KERNEL, "ntt", 1, 0, 0, 10 * MS, 0, NULL);
    gs_tl_span(g0, GS_SPAN_KERNEL, "ntt", 1, 1, 110 * MS, 120 * MS, 0, NULL);
    /* w1: hand-off, then an empty queue.  w2: empty queue, host prep, tracker. */
    gs_tl_span(w1, GS_SPAN_STEP, "handoff", 1, 0, 10 * MS, 30 * MS, 0, NULL);
    gs_tl_span(w1, GS_SPAN_STEP, "queue_wait", -1, -1, 30 * MS, 110 * MS, 0, NULL);
    gs_tl_span(w2, GS_SPAN_STEP, "queue_wait", -1, -1, 0, 60 * MS, 0, NULL);
    gs_tl_span(w2, GS_SPAN_STEP, "host_prep", 1, 1, 60 * MS, 90 * MS, 0, NULL);
    gs_tl_lock_wait(w2, "tracker", -1, 1, 1, 90 * MS, 110 * MS);
    gs_tl_span(w2, GS_SPAN_STEP, "fail_check", 1, 1, 90 * MS, 110 * MS, 0, NULL);
    gs_tl_span(fin, GS_SPAN_INJECTED, "inj:tracker_hold", 1, 0, 85 * MS, 120 * MS,
               GS_SPAN_F_INJECTED, "dist=fixed;delay_ms=35");
    gs_tl_span(fin, GS_SPAN_LOCK_HOLD, "tracker", 1, 0, 85 * MS, 120 * MS, 0, NULL);
    /* Device 1: its own worker; device 0's workers must not leak into it. */
    gs_tl_span(g1, GS_SPAN_KERNEL, "ntt", 2, 0, 0, 10 * MS, 0, NULL);
    gs_tl_span(g1, GS_SPAN_KERNEL, "ntt", 2, 1, 40 * MS, 50 * MS, 0, NULL);
    gs_tl_span(w3, GS_SPAN_STEP, "handoff", 2, 0, 5 * MS, 25 * MS, 0, NULL);
    gs_analysis *a = td_analyse(tl);
    GS_REQUIRE(a);
    GS_REQUIRE(a->n_dev == 2);
    const gs_device_analysis *d0 = dev_of(a, 0), *d1 = dev_of(a, 1);
    GS_REQUIRE(d0 && d1);
    /* handoff (rank 0) loses to queue_wait (rank 1): queue_empty for 10..60. */
    GS_CHECK(NEAR(cause_ms(d0, GS_CAUSE_QUEUE_EMPTY), 50));
    GS_CHECK(NEAR(cause_ms(d0, GS_CAUSE_HANDOFF), 0));
    /* host_prep (5) beats queue_wait (1). */
    GS_CHECK(NEAR(cause_ms(d0, GS_CAUSE_HOST_PREP), 30));
    /* fail_check (3) beats queue_wait; the holder (found from the hold span,
     * the wait has holder -1) runs an injected delay. */
    GS_CHECK(NEAR(cause_ms(d0, GS_CAUSE_TRACKER_INJECTED), 20));
    GS_CHECK(NEAR(cause_ms(d1, GS_CAUSE_HANDOFF), 15));
    GS_CHECK(NEAR(cause_ms(d1, GS_CAUSE_OTHER), 15));
    GS_CHECK(NEAR(cause_ms(d1, GS_CAUSE_QUEUE_EMPTY), 0));
    GS_CHECK(NEAR(a->idle_s, 0.13));
    GS_CHECK(a->verdict == GS_CAUSE_QUEUE_EMPTY);
    GS_CHECK_EQ_INT(a->injected_spans, 1);
    td_free(a, tl);
}

/* The CPU G2 MSM run by the GPU worker itself (engine finish = worker): the
 * worker's prove_finish is the cause; a second worker waiting on an empty queue
 * outranks it (it is closer to launching device work). */
GS_TEST(diag_analysis_finish_in_worker)
{
    gs_tl_lane *g0, *w1;
    gs_timeline *tl = td_engine(&g0, &w1);
    GS_REQUIRE(tl);
    gs_tl_lane *w2 = gs_tl_lane_open(tl, "gpu_worker/0.1", GS_ROLE_GPU_WORKER, 0, -1);
    gs_tl_span(g0, GS_SPAN_KERNEL, "msm_b1", 1, 0, 0, 10 * MS, 0, NULL);
    gs_tl_span(g0, GS_SPAN_KERNEL, "ntt", 1, 1, 90 * MS, 100 * MS, 0, NULL);
    gs_tl_span(w1, GS_SPAN_STEP, "prove_start", 1, 0, 0, 10 * MS, 0, NULL);
    gs_tl_span(w1, GS_SPAN_STEP, "prove_finish", 1, 0, 10 * MS, 70 * MS, 0, NULL);
    gs_tl_span(w1, GS_SPAN_STEP, "status_check", 1, 1, 70 * MS, 75 * MS, 0, NULL);
    gs_tl_span(w1, GS_SPAN_STEP, "host_prep", 1, 1, 75 * MS, 90 * MS, 0, NULL);
    gs_tl_span(w2, GS_SPAN_STEP, "queue_wait", -1, -1, 50 * MS, 100 * MS, 0, NULL);
    gs_analysis *a = td_analyse(tl);
    GS_REQUIRE(a);
    const gs_device_analysis *d = dev_of(a, 0);
    GS_REQUIRE(d && d->n_gaps == 1);
    GS_CHECK(NEAR(cause_ms(d, GS_CAUSE_FINISH_IN_WORKER), 40));   /* 10..50 */
    GS_CHECK(NEAR(cause_ms(d, GS_CAUSE_QUEUE_EMPTY), 20));        /* 50..70 */
    GS_CHECK(NEAR(cause_ms(d, GS_CAUSE_HOST_PREP), 15));          /* 75..90 */
    GS_CHECK(a->verdict == GS_CAUSE_FINISH_IN_WORKER);
    td_free(a, tl);
}

/* Random device spans and worker states against a brute-force per-ns scan. */
GS_TEST(diag_analysis_random_vs_bruteforce)
{
    enum { T = 2000 };
    int rounds = gs_test_quick() ? 20 : 100;
    gs_rng *r = gs_test_rng();
    static const char *steps[] = {"queue_wait", "host_prep", "handoff", "prove_start", "fail_check"};
    for (int round = 0; round < rounds; round++) {
        gs_timeline *tl;
        GS_REQUIRE(gs_timeline_create(&tl) == GS_OK);
        gs_tl_lane *st[3];
        for (int i = 0; i < 3; i++)
            st[i] = gs_tl_lane_open(tl, "gpu0/s", GS_ROLE_DEVICE, 0, i);
        gs_tl_lane *w = gs_tl_lane_open(tl, "gpu_worker/0.0", GS_ROLE_GPU_WORKER, 0, -1);
        static unsigned char kern[T], copy[T];
        memset(kern, 0, sizeof kern);
        memset(copy, 0, sizeof copy);
        int nspans = 1 + (int)gs_rng_below(r, 12);
        for (int i = 0; i < nspans; i++) {
            int64_t a = (int64_t)gs_rng_below(r, T - 1);
            int64_t b = a + 1 + (int64_t)gs_rng_below(r, (uint64_t)(T - a < 300 ? T - a : 300));
            int is_copy = gs_rng_below(r, 3) == 0;
            gs_tl_span(st[gs_rng_below(r, 3)], is_copy ? GS_SPAN_COPY : GS_SPAN_KERNEL, "k", 0, 0,
                       a, b, 0, NULL);
            for (int64_t t = a; t < b; t++)
                (is_copy ? copy : kern)[t] = 1;
        }
        /* Worker: back-to-back top-level steps of random lengths. */
        for (int64_t t = 0; t < T;) {
            int64_t len = 1 + (int64_t)gs_rng_below(r, 200);
            gs_tl_span(w, GS_SPAN_STEP, steps[gs_rng_below(r, 5)], 0, 0, t, t + len, 0, NULL);
            t += len + (int64_t)gs_rng_below(r, 3);
        }
        gs_analysis *a = td_analyse(tl);
        GS_REQUIRE(a);
        int64_t first = -1, last = -1, busy = 0, kb = 0, cb = 0;
        for (int64_t t = 0; t < T; t++)
            if (kern[t] || copy[t]) {
                if (first < 0)
                    first = t;
                last = t + 1;
            }
        for (int64_t t = first; t < last; t++) {
            busy += kern[t] || copy[t];
            kb += kern[t];
            cb += copy[t];
        }
        const gs_device_analysis *d = dev_of(a, 0);
        GS_REQUIRE(d);
        GS_CHECK(llround(d->span_s * 1e9) == last - first);
        GS_CHECK(llround(d->busy_s * 1e9) == busy);
        GS_CHECK(llround(d->kernel_s * 1e9) == kb);
        GS_CHECK(llround(d->copy_s * 1e9) == cb);
        GS_CHECK(llround(d->idle_s * 1e9) == (last - first) - busy);
        double sum = 0;
        for (int c = 0; c < GS_CAUSE_COUNT; c++)
            sum += d->cause_s[c];
        GS_CHECK(llround(sum * 1e9) == (last - first) - busy);
        /* Pieces tile the gaps exactly. */
        for (size_t g = 0; g < d->n_gaps; g++) {
            const gs_gap *gp = &d->gaps[g];
            GS_CHECK(gp->n_pieces >= 1);
            GS_CHECK(d->pieces[gp->first_piece].start_ns == gp->start_ns);
            GS_CHECK(d->pieces[gp->first_piece + gp->n_pieces - 1].end_ns == gp->end_ns);
            GS_CHECK(!kern[gp->start_ns] && !copy[gp->start_ns] && (kern[gp->end_ns] || copy[gp->end_ns]));
        }
        td_free(a, tl);
        if (gs_test_failures())
            break;
    }
}

/* ---- degenerate timelines (issue 16: a device lane without operations left
 * the span at INT64_MAX/INT64_MIN and span_end - span_start overflowed). ---- */

static gs_analysis *analyze_ok(gs_timeline *tl)
{
    gs_analysis *a = NULL;
    gs_err err;
    gs_err_clear(&err);
    gs_status st = gs_analyze(&a, tl, NULL, &err);
    GS_CHECK_MSG(st == GS_OK, "gs_analyze: %s", err.msg);
    return a;
}

/* The exact spans.csv that triggered the overflow (a run stopped before its
 * first kernel: a device lane, a worker waiting on its queue, no device
 * operation); also fuzz/regress/spans/empty-device-lane.csv. */
GS_TEST(diag_analysis_device_lane_without_ops)
{
    char path[600];
    snprintf(path, sizeof path, "%s/spans.csv", gs_test_tmpdir());
    GS_REQUIRE(gs_test_write_text(path, "# gapscope timeline v1\n"
                                        "# lane 0,device,0,0,gpu0/stream0\n"
                                        "# lane 1,gpu_worker,0,-1,gpu_worker/0.0\n"
                                        "start_ns,end_ns,lane,kind,name,job,part,flags,holder,value,args\n"
                                        "0,100,1,step,queue_wait,-1,-1,0,-1,0,\n"));
    gs_timeline *tl;
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(gs_timeline_read_csv(&tl, path, &err) == GS_OK);
    /* A second device with real work: the empty one must add nothing. */
    gs_tl_lane *d1 = gs_tl_lane_open(tl, "gpu1/stream0", GS_ROLE_DEVICE, 1, 0);
    gs_tl_span(d1, GS_SPAN_KERNEL, "ntt", 0, 0, 10 * MS, 20 * MS, 0, NULL);
    gs_tl_span(d1, GS_SPAN_KERNEL, "msm", 0, 0, 30 * MS, 40 * MS, 0, NULL);
    gs_analysis *a = analyze_ok(tl);
    GS_REQUIRE(a && a->n_dev == 2);
    const gs_device_analysis *e = dev_of(a, 0), *d = dev_of(a, 1);
    GS_REQUIRE(e && d);
    GS_CHECK_EQ_INT(e->n_ops, 0);
    GS_CHECK(e->span_start_ns == 0 && e->span_end_ns == 0);
    GS_CHECK(e->span_s == 0 && e->busy_s == 0 && e->util == 0 && e->n_gaps == 0);
    GS_CHECK(NEAR(d->span_s, 0.030) && NEAR(d->busy_s, 0.020));
    GS_CHECK(NEAR(a->span_s, 0.030) && NEAR(a->idle_s, 0.010));
    td_free(a, tl);

    /* The file alone: nothing to analyse, said in words. */
    GS_REQUIRE(gs_timeline_read_csv(&tl, path, &err) == GS_OK);
    a = analyze_ok(tl);
    GS_REQUIRE(a && a->n_dev == 1);
    char v[512];
    gs_analysis_verdict(v, sizeof v, a);
    GS_CHECK_MSG(strstr(v, "No device operations") != NULL, "verdict: %s", v);
    td_free(a, tl);
}

GS_TEST(diag_analysis_device_lane_with_only_counters)
{
    gs_timeline *tl;
    GS_REQUIRE(gs_timeline_create(&tl) == GS_OK);
    gs_tl_lane *s0 = gs_tl_lane_open(tl, "gpu0/stream0", GS_ROLE_DEVICE, 0, 0);
    gs_tl_counter(s0, "mem_used", 5 * MS, 1e9);
    gs_tl_counter(s0, "mem_used", 9 * MS, 2e9);
    gs_tl_span(s0, GS_SPAN_MARK, "sync", -1, -1, 7 * MS, 7 * MS, 0, NULL);
    gs_analysis *a = analyze_ok(tl);
    GS_REQUIRE(a && a->n_dev == 1);
    GS_CHECK_EQ_INT(a->dev[0].n_ops, 0);
    GS_CHECK(a->dev[0].span_s == 0 && a->dev[0].n_gaps == 0 && a->span_s == 0);
    td_free(a, tl);
}

GS_TEST(diag_analysis_zero_length_and_inverted_ops)
{
    /* Zero-length operations only: a span of zero, no gaps, util 0, and a
     * verdict that says so instead of "never went idle (100%)". */
    gs_timeline *tl;
    GS_REQUIRE(gs_timeline_create(&tl) == GS_OK);
    gs_tl_lane *s0 = gs_tl_lane_open(tl, "gpu0/stream0", GS_ROLE_DEVICE, 0, 0);
    gs_tl_span(s0, GS_SPAN_KERNEL, "k", 0, 0, 5 * MS, 5 * MS, 0, NULL);
    gs_tl_span(s0, GS_SPAN_COPY, "h2d", 0, 0, 5 * MS, 5 * MS, 0, NULL);
    gs_analysis *a = analyze_ok(tl);
    GS_REQUIRE(a && a->n_dev == 1);
    const gs_device_analysis *d = &a->dev[0];
    GS_CHECK_EQ_INT(d->n_ops, 2);
    GS_CHECK(d->span_s == 0 && d->busy_s == 0 && d->util == 0 && d->n_gaps == 0);
    char v[512];
    gs_analysis_verdict(v, sizeof v, a);
    GS_CHECK_MSG(strstr(v, "zero length") != NULL, "verdict: %s", v);
    td_free(a, tl);

    /* An inverted operation (end < start: gs_tl_span clamps it and the CSV
     * reader refuses it, so only a raw append, as an importer might do, gets
     * one in) neither widens nor inverts the span. */
    GS_REQUIRE(gs_timeline_create(&tl) == GS_OK);
    s0 = gs_tl_lane_open(tl, "gpu0/stream0", GS_ROLE_DEVICE, 0, 0);
    gs_span bad = {.start_ns = 90 * MS, .end_ns = 1 * MS, .holder = -1, .job = 0, .part = 0,
                   .kind = GS_SPAN_KERNEL, .name = "bad", .args = ""};
    gs_tl_append_raw(s0, &bad);
    a = analyze_ok(tl);
    GS_REQUIRE(a && a->n_dev == 1);
    GS_CHECK(a->dev[0].span_s == 0 && a->dev[0].n_gaps == 0 && a->idle_s == 0);
    gs_analysis_destroy(a);
    gs_tl_span(s0, GS_SPAN_KERNEL, "k", 0, 0, 10 * MS, 20 * MS, 0, NULL);
    gs_tl_span(s0, GS_SPAN_KERNEL, "k", 0, 0, 30 * MS, 40 * MS, 0, NULL);
    a = analyze_ok(tl);
    GS_REQUIRE(a && a->n_dev == 1);
    d = &a->dev[0];
    GS_CHECK(d->span_start_ns == 10 * MS && d->span_end_ns == 40 * MS);
    GS_CHECK(NEAR(d->span_s, 0.030) && NEAR(d->busy_s, 0.020) && NEAR(d->idle_s, 0.010));
    GS_CHECK(d->n_gaps == 1 && d->gaps[0].start_ns == 20 * MS && d->gaps[0].end_ns == 30 * MS);
    td_free(a, tl);
}

GS_TEST(diag_analysis_single_span)
{
    gs_timeline *tl;
    GS_REQUIRE(gs_timeline_create(&tl) == GS_OK);
    gs_tl_lane *s0 = gs_tl_lane_open(tl, "gpu0/stream0", GS_ROLE_DEVICE, 0, 0);
    gs_tl_span(s0, GS_SPAN_KERNEL, "msm", 0, 0, -3 * MS, 7 * MS, 0, NULL);
    gs_analysis *a = analyze_ok(tl);
    GS_REQUIRE(a && a->n_dev == 1);
    const gs_device_analysis *d = &a->dev[0];
    GS_CHECK(NEAR(d->span_s, 0.010) && NEAR(d->util, 1.0) && d->n_gaps == 0);
    GS_CHECK(a->idle_s == 0 && a->gap_stats.count == 0 && a->gap_stats.p99_ms == 0);
    char v[512];
    gs_analysis_verdict(v, sizeof v, a);
    GS_CHECK_MSG(strstr(v, "never went idle") != NULL, "verdict: %s", v);
    td_free(a, tl);
}

/* Appended out of order and overlapping on one lane (only a hand-made or
 * imported timeline looks like this): the same answer as a clean capture. */
GS_TEST(diag_analysis_unsorted_overlapping_spans)
{
    gs_tl_lane *s0, *w;
    gs_timeline *tl = td_engine(&s0, &w);
    GS_REQUIRE(tl);
    gs_tl_span(s0, GS_SPAN_KERNEL, "c", 0, 0, 80 * MS, 100 * MS, 0, NULL);
    gs_tl_span(s0, GS_SPAN_KERNEL, "a", 0, 0, 0, 30 * MS, 0, NULL);
    gs_tl_span(s0, GS_SPAN_KERNEL, "b", 0, 0, 20 * MS, 50 * MS, 0, NULL);   /* overlaps a */
    gs_tl_span(s0, GS_SPAN_COPY, "d", 0, 0, 25 * MS, 45 * MS, 0, NULL);     /* inside a U b */
    /* Worker steps that overlap without nesting, out of order. */
    gs_tl_span(w, GS_SPAN_STEP, "host_prep", 0, 0, 60 * MS, 90 * MS, 0, NULL);
    gs_tl_span(w, GS_SPAN_STEP, "queue_wait", -1, -1, 40 * MS, 70 * MS, 0, NULL);
    gs_analysis *a = analyze_ok(tl);
    GS_REQUIRE(a && a->n_dev == 1);
    const gs_device_analysis *d = &a->dev[0];
    GS_CHECK_EQ_INT(d->n_ops, 4);
    GS_CHECK(NEAR(d->span_s, 0.100) && NEAR(d->busy_s, 0.070) && NEAR(d->idle_s, 0.030));
    GS_REQUIRE(d->n_gaps == 1);
    GS_CHECK(d->gaps[0].start_ns == 50 * MS && d->gaps[0].end_ns == 80 * MS);
    double sum = 0;
    for (int c = 0; c < GS_CAUSE_COUNT; c++)
        sum += d->cause_s[c];
    GS_CHECK(NEAR(sum, 0.030));
    for (size_t k = 1; k < d->n_pieces; k++)
        GS_CHECK(d->pieces[k].start_ns >= d->pieces[k - 1].end_ns);
    td_free(a, tl);
}

GS_TEST(diag_analysis_refuses_out_of_range_times)
{
    gs_timeline *tl;
    GS_REQUIRE(gs_timeline_create(&tl) == GS_OK);
    gs_tl_lane *s0 = gs_tl_lane_open(tl, "gpu0/stream0", GS_ROLE_DEVICE, 0, 0);
    gs_tl_span(s0, GS_SPAN_KERNEL, "k", 0, 0, GS_TL_TIME_LIMIT_NS - 10, GS_TL_TIME_LIMIT_NS, 0, NULL);
    gs_tl_span(s0, GS_SPAN_KERNEL, "k", 0, 0, -GS_TL_TIME_LIMIT_NS, -GS_TL_TIME_LIMIT_NS + 10, 0,
               NULL);
    /* At the limits: accepted, and the span (2^63 - 2 ns) is exact. */
    gs_analysis *a = analyze_ok(tl);
    GS_REQUIRE(a && a->n_dev == 1);
    GS_CHECK(a->dev[0].span_end_ns - a->dev[0].span_start_ns == 2 * GS_TL_TIME_LIMIT_NS);
    GS_CHECK(a->dev[0].n_gaps == 1);
    gs_analysis_destroy(a);
    gs_tl_span(s0, GS_SPAN_KERNEL, "far", 0, 0, INT64_MIN, INT64_MAX, 0, NULL);
    gs_err err;
    gs_err_clear(&err);
    a = NULL;
    GS_CHECK(gs_analyze(&a, tl, NULL, &err) == GS_ERR_RANGE);
    GS_CHECK(a == NULL);
    GS_CHECK_MSG(strstr(err.msg, "span 'far'") != NULL, "message: %s", err.msg);
    gs_timeline_destroy(tl);
}

/* The worker-spin note: a CUDA run whose GPU worker's device calls ran on
 * a CPU for most of their wall gets it (with the numbers: two calls of
 * 80 ms, 72 ms of CPU each: 90%); one that slept through them (8 ms of
 * CPU each) does not, nor a CPU-backend run, whose prove_start is the
 * proof itself. */
static gs_analysis *spin_run(const char *backend, int64_t cpu_ms)
{
    gs_tl_lane *dev, *w;
    gs_timeline *tl = td_engine(&dev, &w);
    if (!tl)
        return NULL;
    if (backend)
        gs_timeline_meta_set(tl, "backend", backend);
    for (int k = 0; k < 2; k++) {
        int64_t t = k * 100 * MS;
        gs_tl_span_cpu(w, GS_SPAN_STEP, "prove_start", k, 0, t, t + 80 * MS, 0, NULL, cpu_ms * MS);
        gs_tl_span(dev, GS_SPAN_KERNEL, "msm_a", k, 0, t + 2 * MS, t + 78 * MS, 0, NULL);
    }
    gs_analysis *a = td_analyse(tl);
    gs_timeline_destroy(tl);
    return a;
}

GS_TEST(diag_analysis_worker_spin_note)
{
    char buf[1024];
    gs_analysis *a = spin_run("cuda", 72);
    GS_REQUIRE(a);
    int on = gs_analysis_spin_note(buf, sizeof buf, a);
    GS_CHECK_MSG(on && strstr(buf, "90% of their device calls' 0.16 s") && strstr(buf, "0.14 core-seconds") &&
                     strstr(buf, "gpu.host_sync = block") && strstr(buf, "synth_beside_spin times synthesis beside one busy loop"),
                 "spinning worker: %d '%s' (wall %.3f cpu %.3f)", on, buf, a->worker_call_s, a->worker_call_cpu_s);
    gs_analysis_destroy(a);
    a = spin_run("cuda", 8);
    GS_REQUIRE(a);
    on = gs_analysis_spin_note(buf, sizeof buf, a);
    GS_CHECK_MSG(!on && !buf[0] && fabs(a->worker_call_cpu_s - 0.016) < 1e-9, "sleeping worker: %d '%s'", on, buf);
    gs_analysis_destroy(a);
    a = spin_run("cpu", 80);
    GS_REQUIRE(a);
    GS_CHECK_MSG(!gs_analysis_spin_note(buf, sizeof buf, a) && a->worker_call_s == 0, "CPU backend: '%s'", buf);
    gs_analysis_destroy(a);
}
