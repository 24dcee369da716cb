/*
 * Timeline benchmarks: the cost of capturing one span on the hot path (and of a
 * switched-off lane), and the analysis of a large timeline (issue 8: 10 million spans).
 */
#include <stdio.h>

#include "../diag/analysis.h"
#include "../common/rng.h"
#include "gsbench.h"

static void bm_capture_span(gs_bench_state *st)
{
    gs_timeline *tl;
    if (gs_timeline_create(&tl) != GS_OK) {
        gs_bench_skip_with_error(st, "timeline");
        return;
    }
    gs_tl_lane *lane = gs_tl_lane_open(tl, "gpu_worker/0.0", GS_ROLE_GPU_WORKER, 0, -1);
    int64_t t = 0;
    while (gs_bench_keep_running(st)) {
        gs_tl_span(lane, GS_SPAN_STEP, "prove_start", 1, 2, t, t + 100, 0, NULL);
        t += 200;
    }
    gs_bench_set_items_processed(st, gs_bench_iterations(st));
    gs_timeline_destroy(tl);
}
GS_BENCHMARK(bm_capture_span, "timeline/capture_span", NULL)

static void bm_capture_span_args(gs_bench_state *st)
{
    gs_timeline *tl;
    if (gs_timeline_create(&tl) != GS_OK) {
        gs_bench_skip_with_error(st, "timeline");
        return;
    }
    gs_tl_lane *lane = gs_tl_lane_open(tl, "finalizer/0", GS_ROLE_FINALIZER, 0, -1);
    int64_t t = 0;
    while (gs_bench_keep_running(st)) {
        gs_tl_span(lane, GS_SPAN_INJECTED, "inj:malloc_trim", 1, 2, t, t + 100,
                   GS_SPAN_F_INJECTED, "dist=lognormal;median_ms=80;sigma=0.5;drawn_ms=73.1");
        t += 200;
    }
    gs_bench_set_items_processed(st, gs_bench_iterations(st));
    gs_timeline_destroy(tl);
}
GS_BENCHMARK(bm_capture_span_args, "timeline/capture_span_with_args", NULL)

static void bm_capture_off(gs_bench_state *st)
{
    int64_t t = 0;
    while (gs_bench_keep_running(st)) {
        gs_tl_span(NULL, GS_SPAN_STEP, "prove_start", 1, 2, t, t + 100, 0, NULL);
        t += 200;
    }
    gs_bench_do_not_optimize(&t);
    gs_bench_set_items_processed(st, gs_bench_iterations(st));
}
GS_BENCHMARK(bm_capture_off, "timeline/capture_span_lane_off", NULL)

/* A synthetic run: one device with two streams, two GPU workers, a finalizer
 * holding the tracker lock, spans in the engine's vocabulary (SPANS.md). */
static gs_timeline *synthetic(size_t n_spans)
{
    gs_timeline *tl;
    if (gs_timeline_create(&tl) != GS_OK)
        return NULL;
    gs_tl_lane *dev[2] = {gs_tl_lane_open(tl, "gpu0/stream0", GS_ROLE_DEVICE, 0, 0),
                          gs_tl_lane_open(tl, "gpu0/stream1", GS_ROLE_DEVICE, 0, 1)};
    gs_tl_lane *wk[2] = {gs_tl_lane_open(tl, "gpu_worker/0.0", GS_ROLE_GPU_WORKER, 0, -1),
                         gs_tl_lane_open(tl, "gpu_worker/0.1", GS_ROLE_GPU_WORKER, 0, -1)};
    gs_tl_lane *fin = gs_tl_lane_open(tl, "finalizer/0", GS_ROLE_FINALIZER, 0, -1);
    gs_rng rng;
    gs_rng_seed(&rng, 99);
    int64_t t = 1000000;
    size_t made = 0;
    for (int32_t part = 0; made < n_spans; part++) {
        int w = part & 1;
        int64_t wait = (int64_t)gs_rng_below(&rng, 200000);
        gs_tl_lock_wait(wk[w], "tracker", gs_tl_lane_id(fin), 1, part, t, t + wait);
        gs_tl_span(fin, GS_SPAN_LOCK_HOLD, "tracker", 1, part - 1, t - 1000, t + wait, 0, NULL);
        gs_tl_span(fin, GS_SPAN_STEP, "malloc_trim", 1, part - 1, t, t + wait, 0, NULL);
        t += wait;
        gs_tl_span(wk[w], GS_SPAN_STEP, "prove_start", 1, part, t, t + 600000, 0, NULL);
        made += 4;
        static const char *const stages[] = {"h2d", "ntt", "msm_h", "msm_l", "msm_a", "msm_b1", "d2h"};
        for (int s = 0; s < 7; s++) {
            int64_t d = 50000 + (int64_t)gs_rng_below(&rng, 100000);
            gs_tl_span(dev[s & 1], s == 0 || s == 6 ? GS_SPAN_COPY : GS_SPAN_KERNEL, stages[s], 1,
                       part, t, t + d, 0, NULL);
            t += d;
            made++;
        }
    }
    return tl;
}

static void bm_analyze(gs_bench_state *st)
{
    size_t n = (size_t)gs_bench_arg(st, 0);
    gs_timeline *tl = synthetic(n);
    if (!tl) {
        gs_bench_skip_with_error(st, "timeline");
        return;
    }
    size_t got;
    gs_timeline_spans(tl, &got);
    gs_analysis_config cfg;
    gs_analysis_config_defaults(&cfg);
    while (gs_bench_keep_running(st)) {
        gs_analysis *a;
        if (gs_analyze(&a, tl, &cfg, NULL) != GS_OK) {
            gs_bench_skip_with_error(st, "analyze failed");
            break;
        }
        gs_analysis_destroy(a);
    }
    gs_bench_set_items_processed(st, gs_bench_iterations(st) * (int64_t)got);
    gs_timeline_destroy(tl);
}
static void analyze_args(gs_bench_reg *r)
{
    gs_bench_arg_add(r, 1000000);
    gs_bench_arg_add(r, 10000000);
    gs_bench_iterations_fixed(r, 2);
    gs_bench_ms_wall(r, 0);
}
GS_BENCHMARK(bm_analyze, "diag/analyze_spans", analyze_args)
