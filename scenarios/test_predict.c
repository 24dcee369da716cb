/*
 * Predictions against H200 captures committed in traces/ (issue 12):
 *
 *   reproduction  every capture, predicted with no change on its own
 *                 model, lands within 3 points of its captured GPU
 *                 utilization, with the same top idle cause and that
 *                 cause's share within 10 points;
 *   what-if       the model of ONE capture (traces/h200-g2dev) predicts
 *                 configurations it never ran, each captured for real on
 *                 the same H200 with the same build: within 5 points and
 *                 the same top cause (bench/RESULTS.md has the table);
 *   speed         a 30-partition 2^20 capture predicts in under 10 s;
 *   bad input     a configuration the capture cannot answer is refused
 *                 before any file is written, naming what is missing.
 *
 * The oracle is the captured timeline itself, analysed by diag exactly as
 * any run is.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../common/outfile.h"
#include "../common/paths.h"
#include "../test/test.h"
#include "predict.h"

static const char *root(void)
{
    return getenv("GS_SRC_ROOT") ? getenv("GS_SRC_ROOT") : ".";
}

/* Predicts capture (with one --set and a capture lending missing stages,
 * both may be NULL) into <tmp>/<sub>. */
static int predict_b(const char *capture, const char *set, const char *borrow, const char *sub,
                     gs_util_summary *out, double *real_s)
{
    char cap[600], dir[600], lend[600];
    snprintf(cap, sizeof cap, "%s/%s", root(), capture);
    snprintf(dir, sizeof dir, "%s/%s", gs_test_tmpdir(), sub);
    snprintf(lend, sizeof lend, "%s/%s", root(), borrow ? borrow : "");
    const char *sets[1] = {set};
    gs_predict_opts o = {.capture = cap, .borrow = borrow ? lend : NULL, .sets = sets,
                         .n_sets = set ? 1 : 0, .run = {.out_dir = dir, .quiet = 1, .no_charts = 1}};
    gs_run_result r;
    gs_err err;
    gs_err_clear(&err);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    gs_status st = gs_scn_predict(&o, &r, &err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (real_s)
        *real_s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    if (st != GS_OK) {
        gs_test_fail(__FILE__, __LINE__, "predict %s %s: %s", capture, set ? set : "", err.msg);
        return 0;
    }
    GS_CHECK_MSG(r.completed == r.arrivals && r.failed == 0, "%s: %zu of %zu jobs completed", capture,
                 r.completed, r.arrivals);
    gs_util_summary_of_run(out, &r);
    return 1;
}

static int predict(const char *capture, const char *set, const char *sub, gs_util_summary *out,
                   double *real_s)
{
    return predict_b(capture, set, NULL, sub, out, real_s);
}

static int captured(const char *capture, gs_util_summary *out)
{
    char cap[600];
    snprintf(cap, sizeof cap, "%s/%s", root(), capture);
    gs_capture c;
    gs_err err;
    gs_err_clear(&err);
    gs_status st = gs_capture_resolve(&c, cap, &err);
    if (st == GS_OK)
        st = gs_util_summary_of(out, c.spans, &err);
    if (st != GS_OK)
        gs_test_fail(__FILE__, __LINE__, "%s: %s", capture, err.msg);
    return st == GS_OK;
}

static const char *const captures[] = {
    "traces/h200-backlog.spans.csv",      /* before cpu_ns: demand inferred */
    "traces/h200-backlog-g2dev.spans.csv",
    "traces/h200-g2cpu",                  /* with cpu_ns: demand measured */
    "traces/h200-g2dev",
    "traces/h200-g2dev-synth4",
    "traces/h200-g2dev-synth12",
    "traces/h200-g2dev-gpuw2",
    "traces/h200-g2dev-trimoff",
    /* Two device streams, prep = ahead (issue 31): the device schedule and
     * the prep thread modelled. */
    "traces/h200-backlog-prep-inline.spans.csv",
    "traces/h200-backlog-prep-ahead.spans.csv",
    "traces/h200-backlog-prep-ahead-s12",
    "traces/h200-backlog-s12-pinned",
    "traces/h200-backlog-s12-direct",
    "traces/h200-backlog-s12-direct-ps",
    "traces/h200-backlog-s16-direct-ps",
};

GS_TEST(predict_reproduces_captures)
{
    for (size_t i = 0; i < sizeof captures / sizeof captures[0]; i++) {
        gs_util_summary c, p;
        char sub[32];
        snprintf(sub, sizeof sub, "repro-%zu", i);
        if (!captured(captures[i], &c) || !predict(captures[i], NULL, sub, &p, NULL))
            continue;
        if (gs_test_verbose())
            printf("  %-38s captured %5.1f%% %s %3.0f%%  predicted %5.1f%% %s %3.0f%%\n", captures[i],
                   100 * c.util, c.cause, 100 * c.share, 100 * p.util, p.cause, 100 * p.share);
        GS_CHECK_MSG(fabs(p.util - c.util) <= 0.03, "%s: util predicted %.1f%%, captured %.1f%%", captures[i],
                     100 * p.util, 100 * c.util);
        GS_CHECK_MSG(!strcmp(p.cause, c.cause), "%s: top cause predicted %s, captured %s", captures[i],
                     p.cause, c.cause);
        GS_CHECK_MSG(fabs(p.share - c.share) <= 0.10, "%s: %s share predicted %.0f%%, captured %.0f%%",
                     captures[i], c.cause, 100 * p.share, 100 * c.share);
    }
}

/* cap (a capture with its machine profile beside it) predicted with no
 * change: within 1 point of its captured utilization, the same top cause. */
static void reproduces_within_a_point(const char *cap, const char *sub)
{
    gs_util_summary c, p;
    if (!captured(cap, &c) || !predict(cap, NULL, sub, &p, NULL))
        return;
    GS_CHECK_MSG(fabs(p.util - c.util) <= 0.01, "%s: util predicted %.1f%%, captured %.1f%%", cap, 100 * p.util,
                 100 * c.util);
    GS_CHECK_MSG(!strcmp(p.cause, c.cause), "%s: top cause predicted %s, captured %s", cap, p.cause, c.cause);
}

/* Base-1 of the H200 set of round 3 session 17 (6 synthesis threads, the
 * GPU worker spinning through each prove) with the machine profile beside
 * it, whose synthesis curve steps from 0.83 at 6 threads to 0.61 at 8.
 * The fit prices each synthesis step at the runnable threads of the
 * capture's steps (6: it never sees the spin); the replay must read the
 * curve at the same count, not at 7 while a prove runs (pshare.h): read
 * one thread higher it synthesized 3.8% slower and reproduced 42.1%
 * against 44.0% captured; read as the fit does, 43.9%. */
GS_TEST(predict_reproduces_beside_a_spinning_worker_on_a_stepped_curve)
{
    reproduces_within_a_point("traces/h200-r3s17-base1", "repro-s17");
}

/* synth12 of the same set with base-1's profile beside it (12 threads:
 * the third round holds 6 partitions, so steps that met 12 runnable
 * threads for part of their span and 6 for the rest).  The fit stores each
 * step's demand at the speed it ran at, the share-weighted mean of the
 * curve over the threads it met, as the replay integrates it; at the
 * speed of its mean T (the curve bends between 6 and 8) it reproduced
 * 82.8% against 85.8% captured; now 85.4%. */
GS_TEST(predict_reproduces_steps_that_met_several_thread_counts)
{
    reproduces_within_a_point("traces/h200-r3s17-synth12", "repro-s17-s12");
}

/* Fitted on traces/h200-g2dev (6 synthesis threads, one GPU worker, trim
 * under the lock), each change captured on the same H200, same build. */
static const struct {
    const char *set, *measured;
} changes[] = {
    {"engine.synth_threads=12", "traces/h200-g2dev-synth12"},
    {"engine.gpu_workers=2", "traces/h200-g2dev-gpuw2"},
    {"engine.trim=off", "traces/h200-g2dev-trimoff"},
};

/* Issue 31's settings, each pair captured with one build on the H200:
 * the prep thread, synthesis threads under prep = ahead, the staging
 * pool (top cause not compared: 0.1% of the span is idle there), and
 * synthesis threads with the direct pool. */
static const struct {
    const char *from, *set, *measured;
    int cause;
} pairs[] = {
    {"traces/h200-backlog-prep-inline.spans.csv", "engine.prep=ahead", "traces/h200-backlog-prep-ahead.spans.csv", 1},
    {"traces/h200-backlog-prep-ahead.spans.csv", "engine.prep=inline", "traces/h200-backlog-prep-inline.spans.csv", 1},
    {"traces/h200-backlog-prep-ahead.spans.csv", "engine.synth_threads=12", "traces/h200-backlog-prep-ahead-s12", 1},
    {"traces/h200-backlog-s12-pinned", "engine.staging=direct", "traces/h200-backlog-s12-direct", 0},
    {"traces/h200-backlog-s12-direct-ps", "engine.synth_threads=16", "traces/h200-backlog-s16-direct-ps", 1},
};

GS_TEST(predict_issue31_settings)
{
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        gs_util_summary m, p;
        char sub[32];
        snprintf(sub, sizeof sub, "pair-%zu", i);
        if (!captured(pairs[i].measured, &m) || !predict(pairs[i].from, pairs[i].set, sub, &p, NULL))
            continue;
        if (gs_test_verbose())
            printf("  %-44s %-24s measured %5.1f%% %s  predicted %5.1f%% %s\n", pairs[i].from, pairs[i].set,
                   100 * m.util, m.cause, 100 * p.util, p.cause);
        GS_CHECK_MSG(fabs(p.util - m.util) <= 0.05, "%s from %s: predicted %.1f%%, measured %.1f%%", pairs[i].set,
                     pairs[i].from, 100 * p.util, 100 * m.util);
        GS_CHECK_MSG(!pairs[i].cause || !strcmp(p.cause, m.cause), "%s: top cause predicted %s, measured %s",
                     pairs[i].set, p.cause, m.cause);
    }
}

GS_TEST(predict_changes_the_capture_never_saw)
{
    for (size_t i = 0; i < sizeof changes / sizeof changes[0]; i++) {
        gs_util_summary m, p;
        char sub[32];
        snprintf(sub, sizeof sub, "whatif-%zu", i);
        if (!captured(changes[i].measured, &m) || !predict("traces/h200-g2dev", changes[i].set, sub, &p, NULL))
            continue;
        if (gs_test_verbose())
            printf("  %-26s measured %5.1f%% %s  predicted %5.1f%% %s\n", changes[i].set, 100 * m.util, m.cause,
                   100 * p.util, p.cause);
        GS_CHECK_MSG(fabs(p.util - m.util) <= 0.05, "%s: predicted %.1f%%, measured %.1f%%", changes[i].set,
                     100 * p.util, 100 * m.util);
        GS_CHECK_MSG(!strcmp(p.cause, m.cause), "%s: top cause predicted %s, measured %s", changes[i].set,
                     p.cause, m.cause);
    }
}

/* Moving the G2 MSM between CPU and device needs the one stage the
 * capture never ran (the other placement's msm_b2), lent by the other
 * capture; everything else (synthesis, the other device stages, the
 * engine) comes from the fitted capture, and the contention that starves
 * synthesis (or its absence) emerges in the prediction. */
GS_TEST(predict_g2_placement_with_a_borrowed_stage)
{
    static const struct {
        const char *from, *set, *lend, *measured;
    } c[] = {{"traces/h200-g2dev", "engine.g2=cpu", "traces/h200-g2cpu", "traces/h200-g2cpu"},
             {"traces/h200-g2cpu", "engine.g2=device", "traces/h200-g2dev", "traces/h200-g2dev"}};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        gs_util_summary m, p;
        char sub[32];
        snprintf(sub, sizeof sub, "g2move-%zu", i);
        if (!captured(c[i].measured, &m) || !predict_b(c[i].from, c[i].set, c[i].lend, sub, &p, NULL))
            continue;
        if (gs_test_verbose())
            printf("  %s %-18s measured %5.1f%% %s  predicted %5.1f%% %s\n", c[i].from, c[i].set, 100 * m.util,
                   m.cause, 100 * p.util, p.cause);
        GS_CHECK_MSG(fabs(p.util - m.util) <= 0.05, "%s from %s: predicted %.1f%%, measured %.1f%%", c[i].set,
                     c[i].from, 100 * p.util, 100 * m.util);
        GS_CHECK_MSG(!strcmp(p.cause, m.cause), "%s: top cause predicted %s, measured %s", c[i].set, p.cause,
                     m.cause);
    }
}

/* synth_threads 6 -> 4 is the change the model gets wrong (RESULTS.md):
 * synthesis is the bottleneck there, and the captured run synthesized
 * each partition ~30% slower than the run the model was fitted on (same
 * partitions, same build, the host's speed differing between the runs).
 * The test pins the explanation: with the synthesis demand of the
 * measured run's own capture the prediction lands within 5 points. */
GS_TEST(predict_synth4_miss_is_the_hosts_speed)
{
    gs_util_summary m, from_base, own;
    if (!captured("traces/h200-g2dev-synth4", &m) ||
        !predict("traces/h200-g2dev", "engine.synth_threads=4", "synth4-base", &from_base, NULL) ||
        !predict("traces/h200-g2dev-synth4", NULL, "synth4-own", &own, NULL))
        return;
    GS_CHECK_MSG(!strcmp(from_base.cause, m.cause), "top cause predicted %s, measured %s", from_base.cause,
                 m.cause);
    GS_CHECK_MSG(from_base.util > m.util + 0.05, "the documented miss changed: predicted %.1f%%, measured %.1f%%",
                 100 * from_base.util, 100 * m.util);
    GS_CHECK_MSG(fabs(own.util - m.util) <= 0.05, "own model: %.1f%%, measured %.1f%%", 100 * own.util,
                 100 * m.util);
    char a[600], b[600];
    snprintf(a, sizeof a, "%s/traces/h200-g2dev/spans.csv", root());
    snprintf(b, sizeof b, "%s/traces/h200-g2dev-synth4/spans.csv", root());
    gs_model *ma = NULL, *mb = NULL;
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(gs_model_load(&ma, a, &err) == GS_OK && gs_model_load(&mb, b, &err) == GS_OK);
    /* Mean synthesis demand over the same 30 partitions in both captures. */
    double da = 0, db = 0, x;
    int sa = gs_model_find(ma, "synth", GS_WHERE_CPU), sb = gs_model_find(mb, "synth", GS_WHERE_CPU);
    for (int j = 1; j <= 3; j++)
        for (int k = 0; k < 10; k++) {
            GS_CHECK(gs_model_cost(ma, sa, 3, 20, j, k, 0, &x, &err) == GS_OK);
            da += x / 30;
            GS_CHECK(gs_model_cost(mb, sb, 3, 20, j, k, 0, &x, &err) == GS_OK);
            db += x / 30;
        }
    GS_CHECK_MSG(db > 1.2 * da, "synthesis per partition: %.3f cs in the base run, %.3f cs in the synth4 run",
                 da, db);
    if (gs_test_verbose())
        printf("  synth4: predicted %.1f%%, measured %.1f%%, own model %.1f%%; synth %.3f vs %.3f cs\n",
               100 * from_base.util, 100 * m.util, 100 * own.util, da, db);
    gs_model_destroy(ma);
    gs_model_destroy(mb);
}

/* Issue 31's fresh H200 captures (traces/h200-r3): two GPU workers, prep
 * inline and queue depth 4 change nothing the synthesis-bound base is
 * bound by (the process's CPU during synthesis 6.0-6.2 cores in all of
 * them, the GPU queue never deeper than 2), so each predicts its base's
 * utilization; the captured runs follow their host's synthesis speed
 * (MODEL.md 7.2).  From base-2 and base-3, taken after the calibration
 * as the changes were, each lands within 3 points, same cause (from
 * base-1, the call's first and fastest run, 10-15 points above). */
GS_TEST(predict_issue31_settings_follow_the_base_run)
{
    static const char *const base[] = {"traces/h200-r3/base/base-2", "traces/h200-r3/base/base-3"};
    static const struct {
        const char *set, *measured;
    } c[] = {{"engine.gpu_workers=2", "traces/h200-r3/changes/gpuw2"},
             {"engine.prep=inline", "traces/h200-r3/changes/prep-inline"},
             {"engine.queue_depth=4", "traces/h200-r3/changes/qd4"}};
    for (size_t b = 0; b < 2; b++) {
        gs_util_summary own;
        if (!captured(base[b], &own))
            continue;
        for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
            gs_util_summary m, p;
            char sub[32];
            snprintf(sub, sizeof sub, "r3-%zu-%zu", b, i);
            if (!captured(c[i].measured, &m) || !predict(base[b], c[i].set, sub, &p, NULL))
                continue;
            if (gs_test_verbose())
                printf("  %-28s %-22s base %5.1f%%  predicted %5.1f%% %s  measured %5.1f%% %s\n", base[b],
                       c[i].set, 100 * own.util, 100 * p.util, p.cause, 100 * m.util, m.cause);
            GS_CHECK_MSG(fabs(p.util - own.util) <= 0.01, "%s from %s: %.1f%%, the base %.1f%%", c[i].set, base[b],
                         100 * p.util, 100 * own.util);
            GS_CHECK_MSG(fabs(p.util - m.util) <= 0.03 && !strcmp(p.cause, m.cause),
                         "%s from %s: predicted %.1f%% %s, measured %.1f%% %s", c[i].set, base[b], 100 * p.util,
                         p.cause, 100 * m.util, m.cause);
        }
    }
}

GS_TEST(predict_speed_30_partitions_2p20)
{
    gs_util_summary p;
    double real = 0;
    if (!predict("traces/h200-g2cpu", NULL, "speed", &p, &real))
        return;
    GS_CHECK_MSG(real < 10.0, "prediction of a 30-partition 2^20 capture took %.2f s", real);
    if (gs_test_verbose())
        printf("  predicted traces/h200-g2cpu (22 s captured) in %.2f s\n", real);
}

static int exists(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0;
}

/* Refused before any file is written, naming what the capture lacks. */
static void refused(const char *capture, const char *set, const char *want, const char *sub)
{
    char cap[600], dir[600];
    if (capture[0] == '/')
        snprintf(cap, sizeof cap, "%s", capture);
    else
        snprintf(cap, sizeof cap, "%s/%s", root(), capture);
    snprintf(dir, sizeof dir, "%s/%s", gs_test_tmpdir(), sub);
    /* set: one or more overrides separated by '|'. */
    char buf[600];
    const char *sets[4];
    int ns = 0;
    snprintf(buf, sizeof buf, "%s", set ? set : "");
    for (char *t = strtok(buf, "|"); t && ns < 4; t = strtok(NULL, "|"))
        sets[ns++] = t;
    gs_predict_opts o = {.capture = cap, .sets = sets, .n_sets = ns,
                         .run = {.out_dir = dir, .quiet = 1, .no_charts = 1}};
    gs_run_result r;
    gs_err err;
    gs_err_clear(&err);
    gs_status st = gs_scn_predict(&o, &r, &err);
    GS_CHECK_MSG(st == GS_ERR_UNSUPPORTED || st == GS_ERR_FORMAT, "%s %s: status %s (%s)", capture,
                 set ? set : "", gs_status_name(st), err.msg);
    GS_CHECK_MSG(strstr(err.msg, want) != NULL, "%s %s: message '%s' lacks '%s'", capture, set ? set : "",
                 err.msg, want);
    GS_CHECK_MSG(!exists(dir), "%s: a refused prediction left %s", capture, dir);
}

/* A directory X whose spans are X.spans.csv beside it (the older captures
 * in traces/) is the capture X.spans.csv, with X/'s scenario; with or
 * without a trailing slash; a directory with neither says so. */
GS_TEST(predict_capture_dir_with_its_spans_beside)
{
    static const char *const forms[] = {"traces/h200-backlog-prep-inline", "traces/h200-backlog-prep-inline/"};
    for (size_t i = 0; i < 2; i++) {
        char p[700];
        snprintf(p, sizeof p, "%s/%s", root(), forms[i]);
        gs_capture c;
        gs_err err;
        gs_err_clear(&err);
        GS_REQUIRE(gs_capture_resolve(&c, p, &err) == GS_OK);
        size_t n = strlen(c.spans), m = strlen(c.scenario);
        const char *want_s = "traces/h200-backlog-prep-inline.spans.csv";
        const char *want_i = "traces/h200-backlog-prep-inline/scenario.ini";
        GS_CHECK_MSG(n >= strlen(want_s) && !strcmp(c.spans + n - strlen(want_s), want_s), "%s: spans %s",
                     forms[i], c.spans);
        GS_CHECK_MSG(m >= strlen(want_i) && !strcmp(c.scenario + m - strlen(want_i), want_i), "%s: scenario %s",
                     forms[i], c.scenario);
    }
    char p[700];
    snprintf(p, sizeof p, "%s/traces/gen", root());
    gs_capture c;
    gs_err err;
    gs_err_clear(&err);
    GS_CHECK(gs_capture_resolve(&c, p, &err) == GS_ERR_IO);
    GS_CHECK_MSG(strstr(err.msg, "no spans.csv in this directory (nor a ") != NULL, "%s", err.msg);
}

GS_TEST(predict_refuses_what_the_capture_cannot_answer)
{
    /* The G2 MSM moved to a place the capture never ran it. */
    refused("traces/h200-g2cpu", "engine.g2=device", "msm_b2", "bad-g2dev");
    refused("traces/h200-g2dev", "engine.g2=cpu", "msm_b2", "bad-g2cpu");
    /* ... saying what would make it possible. */
    refused("traces/h200-g2cpu", "engine.g2=device", "lend it with --borrow CAPTURE2", "bad-g2dev-fix");
    refused("traces/h200-g2dev", "engine.g2=cpu", "gapscope calibrate times the CPU G2 MSM", "bad-g2cpu-fix");
    /* 2^24 is 4 sizes from the captured 2^20 (the fit allows 2). */
    refused("traces/h200-g2dev", "jobs.size_map=porep_c2:24", "2^24", "bad-size");
    /* A device-only sample has no synthesis to model. */
    refused("traces/model-sample.spans.csv", NULL, "synth", "bad-sample");
    /* A real trim on a fragmented heap the capture never ran. */
    refused("traces/h200-g2dev", "inject.malloc_trim.mode=real|inject.malloc_trim.frag=64MiB", "fragmented heap",
            "bad-realtrim");
    /* Pinned staging from a direct capture needs the host's copy rate. */
    refused("traces/h200-backlog-s12-direct", "engine.staging=pinned", "machine profile", "bad-staging");
    /* A [gpu] knob the capture did not run: the kernels' or the backend's
     * host threads' times under it are not in the capture (it was ignored
     * before, predicting the captured knob under the new name). */
    refused("traces/h200-g2dev", "gpu.msm_c=22", "gpu.msm_c = 22: the capture ran auto", "bad-knob");
    /* A wait no capture ran (yield); block is modelled (below). */
    refused("traces/h200-g2dev", "gpu.host_sync=yield", "--set gpu.host_sync=yield", "bad-sync");
}

/* host_sync = block from a capture whose worker spun is modelled (the
 * worker no busy thread while its device works, said in model.assumed);
 * the reverse is refused, naming what a capture asleep cannot tell. */
static const char *spans_of(const char *dir)
{
    static char p[700];
    snprintf(p, sizeof p, "%s/spans.csv", dir);
    return p;
}

GS_TEST(predict_host_sync_block_from_a_spinning_capture)
{
    char cap[600], spans[700];
    snprintf(cap, sizeof cap, "%s/traces/h200-g2dev", root());
    gs_util_summary u;
    gs_err err;
    gs_err_clear(&err);
    if (!predict("traces/h200-g2dev", "gpu.host_sync=block", "sync-block", &u, NULL))
        return;
    snprintf(spans, sizeof spans, "%s/sync-block/spans.csv", gs_test_tmpdir());
    gs_timeline *tl = NULL;
    GS_REQUIRE(gs_timeline_read_csv(&tl, spans, &err) == GS_OK);
    const char *as = gs_timeline_meta_get(tl, "model.assumed");
    GS_CHECK_MSG(as && strstr(as, "GPU workers asleep"), "model.assumed: %s", as ? as : "(none)");
    gs_timeline_destroy(tl);
    /* The model's worker: asleep, then the fitted spin again. */
    gs_model *m = NULL;
    GS_REQUIRE(gs_model_load(&m, spans_of(cap), &err) == GS_OK);
    double fit = gs_model_device_spin(m);
    gs_model_set_worker_sleeps(m, 1);
    double asleep = gs_model_device_spin(m);
    gs_model_set_worker_sleeps(m, 0);
    GS_CHECK_MSG(fit > 0.9 && asleep == 0 && gs_model_device_spin(m) == fit, "spin %.3f, asleep %.3f, back %.3f",
                 fit, asleep, gs_model_device_spin(m));
    gs_model_destroy(m);
    /* The same capture said to have slept: spinning is refused. */
    char d2[600], line[8192];
    snprintf(d2, sizeof d2, "%s/asleep", gs_test_tmpdir());
    GS_REQUIRE(gs_mkdir_p(d2, &err) == GS_OK);
    const char *files[] = {"arrivals.jsonl", "scenario.ini", "spans.csv"};
    for (int i = 0; i < 3; i++) {
        char a[700], b[700];
        snprintf(a, sizeof a, "%s/%s", cap, files[i]);
        snprintf(b, sizeof b, "%s/%s", d2, files[i]);
        FILE *in = fopen(a, "r"), *out = fopen(b, "w");
        GS_REQUIRE(in && out);
        int first = 1;
        while (fgets(line, sizeof line, in)) {
            fputs(line, out);
            if (i == 2 && first)
                fputs("# meta scenario.gpu.host_sync=block\n", out);
            first = 0;
        }
        fclose(in);
        fclose(out);
    }
    refused(d2, NULL, "slowed synthesis", "bad-spin");   /* d2: absolute (the test's tmpdir) */
    /* Block from that capture: its fitted worker CPU is an asleep worker's
     * and stays (it was zeroed before). */
    snprintf(spans, sizeof spans, "%s/spans.csv", d2);
    GS_REQUIRE(gs_model_load(&m, spans, &err) == GS_OK);
    fit = gs_model_device_spin(m);
    gs_model_set_worker_sleeps(m, 1);
    GS_CHECK_MSG(fit > 0 && gs_model_device_spin(m) == fit, "a block capture's spin %.3f, asleep %.3f", fit,
                 gs_model_device_spin(m));
    gs_model_destroy(m);
}

/* gapscope sweep --predict: every run a prediction of the capture's
 * scenario; synthesis threads move the predicted utilization the way the
 * single predictions do (4 threads starve the GPU, 6 do not). */
GS_TEST(predict_sweep)
{
    char cap[600], out[600];
    snprintf(cap, sizeof cap, "%s/traces/h200-g2dev", root());
    snprintf(out, sizeof out, "%s/sweep", gs_test_tmpdir());
    const char *vary[1] = {"engine.synth_threads=4,6"};
    gs_sweep_opts o = {.vary = vary, .n_vary = 1, .reps = 1, .seed = 1, .out_dir = out, .quiet = 1,
                       .predict = cap, .scenario = cap};
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(gs_scn_sweep(&o, &err) == GS_OK);
    char path[700];
    snprintf(path, sizeof path, "%s/sweep.csv", out);
    FILE *f = fopen(path, "r");
    GS_REQUIRE(f);
    char line[2048];
    double u4 = -1, u6 = -1;
    int rows = 0;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "run,", 4))
            continue;
        rows++;
        /* run,point,rep,baseline,"value",x,wall_s,jobs,completed,failed,span,idle,util,... */
        double x, util;
        char *p = line;
        for (int k = 0; k < 5 && p; k++)
            p = strchr(p + 1, ',');
        if (!p || sscanf(p + 1, "%lf", &x) != 1)
            continue;
        for (int k = 0; k < 7 && p; k++)
            p = strchr(p + 1, ',');
        if (!p || sscanf(p + 1, "%lf", &util) != 1)
            continue;
        if (x == 4)
            u4 = util;
        if (x == 6)
            u6 = util;
    }
    fclose(f);
    GS_CHECK_EQ_INT(rows, 3); /* two points and the baseline */
    GS_CHECK_MSG(u4 > 0 && u6 > u4 + 0.1, "util at 4 threads %.3f, at 6 %.3f", u4, u6);
}

static int cmp_d(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* Median wall time (ms) of a run directory's prove_start steps (read
 * with the timeline's own CSV reader). */
static double prove_start_ms(const char *dir)
{
    char path[700];
    snprintf(path, sizeof path, "%s/spans.csv", dir);
    gs_timeline *tl = NULL;
    gs_err err;
    if (gs_timeline_read_csv(&tl, path, &err) != GS_OK)
        return -1;
    size_t n, k = 0;
    const gs_span *sp = gs_timeline_spans(tl, &n);
    double v[4096];
    for (size_t i = 0; i < n && k < 4096; i++)
        if (sp[i].kind == GS_SPAN_STEP && !strcmp(sp[i].name, "prove_start"))
            v[k++] = (double)(sp[i].end_ns - sp[i].start_ns) * 1e-6;
    gs_timeline_destroy(tl);
    qsort(v, k, sizeof v[0], cmp_d);
    return k ? v[k / 2] : -1;
}

/* engine.g2 = cpu with 12 synthesis threads predicted from capture cap
 * (under the root) with profile prof (NULL: the capture's own) into dir;
 * 0 (after a failed check) when it fails. */
static int g2cpu_s12(const char *cap, const char *prof, const char *dir)
{
    const char *sets[2] = {"engine.g2=cpu", "engine.synth_threads=12"};
    char capture[600];
    snprintf(capture, sizeof capture, "%s/%s", root(), cap);
    gs_predict_opts o = {.capture = capture, .profile = prof, .sets = sets, .n_sets = 2,
                         .run = {.out_dir = dir, .quiet = 1, .no_charts = 1}};
    gs_run_result r;
    gs_err err;
    gs_err_clear(&err);
    gs_status st = gs_scn_predict(&o, &r, &err);
    GS_CHECK_MSG(st == GS_OK, "%s", err.msg);
    return st == GS_OK;
}

/* g2cpu_s12 twice, with profs[i] into dirs[i]. */
static int g2cpu_s12_pair(const char *cap, const char *const profs[2], const char *const dirs[2])
{
    return g2cpu_s12(cap, profs[0], dirs[0]) && g2cpu_s12(cap, profs[1], dirs[1]);
}

/* engine.g2 = cpu from a G2-on-device capture (traces/h100-r3s4-g2cpu,
 * its calibrate beside base-1: the witness copy into fresh memory at
 * 1.02 GB/s, 33 ms for 2^20 wires): the CUDA backend copies the witness
 * for the CPU G2 MSM on the worker while the device works, which the
 * capture's prove_host never held; it starts once the witness MSMs are
 * done.  With 12 synthesis threads it outlasts the device part:
 * prove_start longer than without the profile's rate by half the copy's
 * time at least, and no longer than the captured runs' (157 ms; the model
 * 134 with it, 64 without). */
GS_TEST(predict_g2cpu_runs_the_witness_copy_beside_the_device)
{
    const char *cap = "traces/h100-r3s4-g2cpu/base-1";
    char prof[600], noprof[600], with[600], without[600];
    snprintf(prof, sizeof prof, "%s/%s/machine-profile.json", root(), cap);
    snprintf(noprof, sizeof noprof, "%s/noscp.json", gs_test_tmpdir());
    /* The rate's field and its value cut out. */
    char field[64], *text = NULL;
    size_t len;
    gs_err err;
    GS_REQUIRE(gs_read_file(&text, &len, prof, &err) == GS_OK);
    const char *v = strstr(text, ",\"state_copy_gbps\":");
    size_t n = v ? strcspn(v + 1, ",}") + 1 : 0;
    if (v && n < sizeof field)
        snprintf(field, sizeof field, "%.*s", (int)n, v);
    free(text);
    GS_REQUIRE(v && n < sizeof field);
    GS_REQUIRE(gs_test_copy_edit(prof, noprof, field, ""));
    snprintf(with, sizeof with, "%s/scp-with", gs_test_tmpdir());
    snprintf(without, sizeof without, "%s/scp-without", gs_test_tmpdir());
    const char *profs[2] = {NULL, noprof}, *dirs[2] = {with, without};
    if (!g2cpu_s12_pair(cap, profs, dirs))
        return;
    double a = prove_start_ms(with), b = prove_start_ms(without);
    char cap12[600];
    snprintf(cap12, sizeof cap12, "%s/traces/h100-r3s4-g2cpu/g2cpu-s12", root());
    double c = prove_start_ms(cap12);
    if (gs_test_verbose())
        printf("  prove_start: %.1f ms with the copy, %.1f without, captured %.1f\n", a, b, c);
    GS_CHECK_MSG(a > b + 0.5 * 32.0 * (1 << 20) / 1.022e9 * 1e3 && a < c, "prove_start %.1f ms with the copy, %.1f "
                 "without, captured %.1f", a, b, c);
}

/* The witness copy beside a running CPU G2 MSM (calibrate's
 * state_copy_busy_gbps): on the H100 VMs of round 3 session 6 it ran at
 * 0.6-0.85 GB/s in g2cpu captures against 9.8 GB/s alone.  The same
 * g2cpu-s12 prediction as above from traces/h100-r3s4-g2cpu (alone 1.02
 * GB/s: 33 ms of CPU, about 70 at its share of the loaded host) with a
 * busy rate of 0.2 GB/s added to its profile: every prove_start that
 * copies beside an MSM (all but the first: the backlog keeps the
 * finalizers busy) lasts 33.6 MB / 0.2 GB/s = 168 ms after the witness
 * MSMs (~17-47 ms in), against ~130 in all; a rate ignored leaves it as
 * it was.  (A busy rate the shared CPU already exceeds changes nothing:
 * the copy lasts the longer of the two.) */
GS_TEST(predict_g2cpu_copies_the_witness_slower_beside_the_msm)
{
    const char *cap = "traces/h100-r3s4-g2cpu/base-1";
    char prof[600], busy[600], d0[600], d1[600];
    snprintf(prof, sizeof prof, "%s/%s/machine-profile.json", root(), cap);
    snprintf(busy, sizeof busy, "%s/busy.json", gs_test_tmpdir());
    GS_REQUIRE(gs_test_copy_edit(prof, busy, ",\"state_copy_gbps\":",
                                 ",\"state_copy_busy_gbps\":0.2,\"state_copy_gbps\":"));
    snprintf(d0, sizeof d0, "%s/busy-without", gs_test_tmpdir());
    snprintf(d1, sizeof d1, "%s/busy-with", gs_test_tmpdir());
    const char *profs[2] = {NULL, busy}, *dirs[2] = {d0, d1};
    if (!g2cpu_s12_pair(cap, profs, dirs))
        return;
    double a = prove_start_ms(d0), b = prove_start_ms(d1);
    if (gs_test_verbose())
        printf("  prove_start: %.1f ms with the alone rate, %.1f with the busy one\n", a, b);
    GS_CHECK_MSG(a > 0 && b > a + 40, "prove_start %.1f ms alone, %.1f busy", a, b);
}

/* The witness copy beside the MSMs and B busy synthesis threads
 * (calibrate's state_copy_synth rows), at the synthesis threads busy when
 * it starts.  The same g2cpu-s12 prediction (traces/h100-r3s4-g2cpu,
 * whose profile copies alone at 1.02 GB/s: 33 ms of CPU, about 70 at its
 * share of the loaded host, so a busy rate binds only above that) with a
 * busy rate of 1.95 GB/s alone (a: 17 ms, does not bind), with rows that
 * say the same at every B (b: 0 and 64 threads both 1.95; as a, to the
 * microsecond), and with rows slowing it beside synthesis (c: 0.3 GB/s
 * beside 6 threads, 0.2 beside 12: 112 and 168 ms; on the H100 VMs of
 * round 3 session 6 the engine's copies beside 6 and 12 threads took
 * 2.3x and 3.2x what calibrate timed beside the MSMs alone): the copies
 * run while synthesis works through the backlog, so prove_start's median
 * grows by several tens of ms. */
GS_TEST(predict_g2cpu_witness_copy_slows_with_busy_synthesis)
{
    const char *cap = "traces/h100-r3s4-g2cpu/base-1";
    static const char *const rows[3] = {"", ",\"state_copy_synth\":{\"synth\":[0,64],\"gbps\":[1.95,1.95]}",
                                        ",\"state_copy_synth\":{\"synth\":[0,6,12],\"gbps\":[1.95,0.3,0.2]}"};
    char prof[600], pr[3][600], dir[3][600];
    double ms[3];
    snprintf(prof, sizeof prof, "%s/%s/machine-profile.json", root(), cap);
    for (int i = 0; i < 3; i++) {
        char with[300];
        snprintf(with, sizeof with, ",\"state_copy_busy_gbps\":1.95%s,\"state_copy_gbps\":", rows[i]);
        snprintf(pr[i], sizeof pr[i], "%s/scs-%d.json", gs_test_tmpdir(), i);
        GS_REQUIRE(gs_test_copy_edit(prof, pr[i], ",\"state_copy_gbps\":", with));
        snprintf(dir[i], sizeof dir[i], "%s/scs-%d", gs_test_tmpdir(), i);
        if (!g2cpu_s12(cap, pr[i], dir[i]))
            return;
        ms[i] = prove_start_ms(dir[i]);
    }
    if (gs_test_verbose())
        printf("  prove_start: %.1f ms busy rate alone, %.1f flat rows, %.1f slowing rows\n", ms[0], ms[1], ms[2]);
    GS_CHECK_MSG(ms[0] > 0 && fabs(ms[1] - ms[0]) < 1e-3 && ms[2] > ms[0] + 30,
                 "prove_start %.1f ms busy alone, %.1f flat rows, %.1f slowing rows", ms[0], ms[1], ms[2]);
}
