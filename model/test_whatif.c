/*
 * What-ifs on foreign timelines (graph.c, whatif.c): a hand-made timeline
 * whose every replayed time is worked out below, the edits' errors, and
 * the H200 PyTorch captures with a known host stall
 * (traces/attach-h200): an unedited replay is the capture, and "the stall
 * is gone" predicts the same stall-free utilization whatever the stall
 * was (malloc_trim on a 400 MiB heap, on 1600 MiB, a sleep).
 *
 * The hand-made program (ms from 0), three iterations of:
 *   launcher (lane 0): cuda:cudaLaunchKernel [t, t+0.1] (corr k), then
 *     cuda_sync:cudaDeviceSynchronize [t+0.2, kernel end + 0.1] = [.., tr],
 *     then malloc_trim [tr, tr+1], then a LOCK_WAIT on mutex:0xa until
 *     lane 1 releases it: [tr+1, tr+5.05];
 *   device (lane 2): the kernel [t+0.5, t+10.5];
 *   holder (lane 1): woken by the launcher's sync (a wake-up recorded as
 *     a LOCK_WAIT cond:go, holder = lane 0, ending at tr), then under
 *     LOCK_HOLD mutex:0xa: work [tr, tr+2] and malloc_trim [tr+2, tr+5];
 *     the launcher's wait ends 0.05 after it.
 * The period is 10.6 + 5.05 = 15.65 ms; the device span runs from the
 * first kernel's start (0.5) to the last's end (2 x 15.65 + 10.5).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../test/test.h"
#include "../timeline/timeline.h"
#include "graph.h"

#define MS 1000000LL

static const char *root(void) { return getenv("GS_SRC_ROOT") ? getenv("GS_SRC_ROOT") : "."; }

/* Iteration starts and the device work, built as described above. */
static gs_timeline *program(void)
{
    gs_timeline *tl = NULL;
    if (gs_timeline_create(&tl) != GS_OK)
        return NULL;
    gs_tl_lane *l0 = gs_tl_lane_open(tl, "thread/1 prog", GS_ROLE_THREAD, -1, -1);
    gs_tl_lane *l1 = gs_tl_lane_open(tl, "thread/2 prog", GS_ROLE_THREAD, -1, -1);
    gs_tl_lane *d = gs_tl_lane_open(tl, "gpu0/stream7", GS_ROLE_DEVICE, 0, 7);
    int64_t t = 0, held = 0;
    char args[64];
    for (int k = 0; k < 3; k++) {
        snprintf(args, sizeof args, "corr=%d", 10 + k);
        gs_tl_span(l0, GS_SPAN_STEP, "cuda:cudaLaunchKernel", -1, -1, t, t + MS / 10, 0, args);
        snprintf(args, sizeof args, "corr=%d;launch_lane=0", 10 + k);
        int64_t ks = t + MS / 2, ke = ks + 10 * MS, tr = ke + MS / 10;
        gs_tl_span(d, GS_SPAN_KERNEL, "matmul", -1, -1, ks, ke, 0, args);
        gs_tl_span(l0, GS_SPAN_STEP, "cuda_sync:cudaDeviceSynchronize", -1, -1, t + MS / 5, tr, 0, NULL);
        gs_tl_span(l0, GS_SPAN_STEP, "malloc_trim", -1, -1, tr, tr + MS, 0, NULL);
        gs_tl_lock_wait(l1, "cond:go", 0, -1, -1, held, tr);
        gs_tl_span(l1, GS_SPAN_LOCK_HOLD, "mutex:0xa", -1, -1, tr, tr + 5 * MS, 0, NULL);
        gs_tl_span(l1, GS_SPAN_STEP, "work", -1, -1, tr, tr + 2 * MS, 0, NULL);
        gs_tl_span(l1, GS_SPAN_STEP, "malloc_trim", -1, -1, tr + 2 * MS, tr + 5 * MS, 0, NULL);
        held = tr + 5 * MS;
        gs_tl_lock_wait(l0, "mutex:0xa", 1, -1, -1, tr + MS, tr + 5 * MS + MS / 20);
        t = tr + 5 * MS + MS / 20;
    }
    return tl;
}

static int run(const char *const *edits, int n, gs_whatif_result *r)
{
    gs_timeline *tl = program();
    gs_graph *g = NULL;
    gs_whatif w[4];
    gs_err err;
    gs_err_clear(&err);
    int ok = tl && gs_graph_build(&g, tl, &err) == GS_OK;
    for (int i = 0; ok && i < n; i++)
        ok = gs_whatif_parse(&w[i], edits[i], &err) == GS_OK;
    ok = ok && gs_whatif_run(r, NULL, g, w, n, &err) == GS_OK;
    GS_CHECK_MSG(ok, "%s", err.msg);
    if (ok && !n)
        GS_CHECK_EQ_INT((int)g->n_launch, 3);
    gs_graph_destroy(g);
    gs_timeline_destroy(tl);
    return ok;
}

static int near(double a, double b) { return fabs(a - b) < 1e-6; }

GS_TEST(whatif_replays_the_dependency_graph)
{
    gs_whatif_result r;
    /* Unedited: the capture: span 2 x 15.65 + 10.5 - 0.5 = 41.3 ms, 30 busy. */
    if (!run(NULL, 0, &r))
        return;
    GS_CHECK_MSG(near(r.span_s, 0.0413) && near(r.util, r.captured_util), "span %.6f util %.4f captured %.4f",
                 r.span_s, r.util, r.captured_util);
    /* The lock no longer held across the holder's trim: released when its
     * work ends (tr + 2), the wait ends 0.05 later: period 10.6 + 2.05,
     * span 2 x 12.65 + 10 = 35.3. */
    const char *un[] = {"unlock:mutex:0xa:malloc_trim"};
    if (!run(un, 1, &r))
        return;
    GS_CHECK_MSG(near(r.span_s, 0.0353), "unlock: span %.6f", r.span_s);
    /* Every trim gone: the same release at tr + 2 sets the period. */
    const char *rm[] = {"remove:malloc_trim"};
    if (!run(rm, 1, &r))
        return;
    GS_CHECK_MSG(near(r.span_s, 0.0353), "trims removed: span %.6f", r.span_s);
    /* The lock wait gone: period 10.6 + 1 (the launcher's trim), span
     * 2 x 11.6 + 10 = 33.2. */
    const char *nw[] = {"remove:mutex:0xa"};
    if (!run(nw, 1, &r))
        return;
    GS_CHECK_MSG(near(r.span_s, 0.0332), "wait removed: span %.6f", r.span_s);
    /* The stream twice as fast: kernels 5 ms; the holder, woken by the
     * sync, releases 5 ms after it: period 5.6 + 5.05 = 10.65, span
     * 2 x 10.65 + 5 = 26.3, busy 15. */
    const char *fast[] = {"stream:gpu0/stream7=2x"};
    if (!run(fast, 1, &r))
        return;
    GS_CHECK_MSG(near(r.span_s, 0.0263) && near(r.busy_s, 0.015), "2x stream: span %.6f busy %.6f", r.span_s,
                 r.busy_s);
    GS_CHECK(r.n_path > 0 && r.path_s > 0);
}

GS_TEST(whatif_edits_are_checked)
{
    gs_whatif w;
    gs_err err;
    static const char *const bad[] = {"remove:", "speed:x=2", "scale:trim", "scale:trim=0", "stream:gpu0=fast",
                                      "unlock:mutex", "threads:synth=2", "threads:synth=+1.5", "nothing"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gs_err_clear(&err);
        GS_CHECK_MSG(gs_whatif_parse(&w, bad[i], &err) == GS_ERR_ARG, "'%s' accepted", bad[i]);
    }
    GS_REQUIRE(gs_whatif_parse(&w, "threads:thread/2=+2", &err) == GS_OK);
    GS_CHECK(w.kind == GS_WI_THREADS && w.factor == 2 && !strcmp(w.what, "thread/2"));
    /* An edit that matches nothing is refused, naming it. */
    gs_timeline *tl = program();
    gs_graph *g = NULL;
    gs_whatif_result r;
    GS_REQUIRE(tl && gs_graph_build(&g, tl, &err) == GS_OK);
    GS_REQUIRE(gs_whatif_parse(&w, "remove:no_such_step", &err) == GS_OK);
    gs_err_clear(&err);
    GS_CHECK(gs_whatif_run(&r, NULL, g, &w, 1, &err) == GS_ERR_ARG && strstr(err.msg, "no_such_step"));
    gs_graph_destroy(g);
    gs_timeline_destroy(tl);
}

/* The H200 PyTorch program stalled on the host three ways (the same
 * script; attach captures): gone, each stall leaves the same program. */
GS_TEST(whatif_stall_gone_on_h200_torch_captures)
{
    static const struct {
        const char *dir, *edit;
    } c[] = {{"traces/attach-h200/2026-12-04/torch-trim-400", "remove:malloc_trim"},
             {"traces/attach-h200/2026-12-04/torch-trim-1600", "remove:malloc_trim"},
             {"traces/attach-h200/final/torch-sleep", "remove:state:sleep"},
             {"traces/attach-h200/final/torch-pmutex", "remove:mutex:*"}};
    double u[4];
    for (size_t i = 0; i < 4; i++) {
        char path[600];
        snprintf(path, sizeof path, "%s/%s/spans.csv", root(), c[i].dir);
        gs_timeline *tl = NULL;
        gs_graph *g = NULL;
        gs_whatif w;
        gs_whatif_result r0, r;
        gs_err err;
        gs_err_clear(&err);
        GS_REQUIRE(gs_timeline_read_csv(&tl, path, &err) == GS_OK);
        GS_REQUIRE(gs_graph_build(&g, tl, &err) == GS_OK);
        GS_REQUIRE(gs_whatif_run(&r0, NULL, g, NULL, 0, &err) == GS_OK);
        GS_CHECK_MSG(fabs(r0.util - r0.captured_util) < 1e-4, "%s: unedited %.4f, captured %.4f", c[i].dir, r0.util,
                     r0.captured_util);
        GS_REQUIRE(gs_whatif_parse(&w, c[i].edit, &err) == GS_OK);
        GS_REQUIRE(gs_whatif_run(&r, NULL, g, &w, 1, &err) == GS_OK);
        u[i] = r.util;
        GS_CHECK_MSG(r.util > r0.util + 0.25, "%s: %s predicts %.1f%% from %.1f%%", c[i].dir, c[i].edit, 100 * r.util,
                     100 * r0.util);
        if (gs_test_verbose())
            printf("  %-46s %-20s captured %5.1f%% -> %5.1f%%\n", c[i].dir, c[i].edit, 100 * r0.util, 100 * r.util);
        gs_graph_destroy(g);
        gs_timeline_destroy(tl);
    }
    for (size_t i = 1; i < 4; i++)
        GS_CHECK_MSG(fabs(u[i] - u[0]) <= 0.05, "stall-free util %.1f%% vs %.1f%%", 100 * u[i], 100 * u[0]);
}

/* threads: two worker lanes each run four 10 ms items back to back; the
 * launcher waits for each of worker 0's items (a wake-up recorded as a
 * LOCK_WAIT, holder = worker 0) and then runs a 1 ms kernel.  Captured:
 * kernels after 10, 20, 30, 40 ms.  With two more workers: an item queued
 * behind its lane's previous one counts as released when that one
 * started (0, 0, 10, 20 ms for each lane's four), so worker 0's items end
 * at 10, 10, 20, 30 ms and the last kernel starts 10 ms sooner. */
GS_TEST(whatif_more_threads_drain_a_pool)
{
    gs_timeline *tl = NULL;
    GS_REQUIRE(gs_timeline_create(&tl) == GS_OK);
    gs_tl_lane *w0 = gs_tl_lane_open(tl, "worker/0", GS_ROLE_THREAD, -1, -1);
    gs_tl_lane *w1 = gs_tl_lane_open(tl, "worker/1", GS_ROLE_THREAD, -1, -1);
    gs_tl_lane *l = gs_tl_lane_open(tl, "thread/9 main", GS_ROLE_THREAD, -1, -1);
    gs_tl_lane *d = gs_tl_lane_open(tl, "gpu0/stream0", GS_ROLE_DEVICE, 0, 0);
    int64_t t = 0;
    for (int k = 0; k < 4; k++) {
        gs_tl_span(w0, GS_SPAN_STEP, "item", -1, -1, 10 * k * MS, 10 * (k + 1) * MS, 0, NULL);
        gs_tl_span(w1, GS_SPAN_STEP, "item", -1, -1, 10 * k * MS, 10 * (k + 1) * MS, 0, NULL);
        int64_t done = 10 * (k + 1) * MS;
        gs_tl_lock_wait(l, "cond:item", 0, -1, -1, t, done);
        char a[48];
        snprintf(a, sizeof a, "corr=%d", k + 1);
        gs_tl_span(l, GS_SPAN_STEP, "cuda:cudaLaunchKernel", -1, -1, done, done + MS / 10, 0, a);
        snprintf(a, sizeof a, "corr=%d;launch_lane=2", k + 1);
        gs_tl_span(d, GS_SPAN_KERNEL, "k", -1, -1, done + MS / 10, done + MS + MS / 10, 0, a);
        gs_tl_span(l, GS_SPAN_STEP, "cuda_sync:cudaStreamSynchronize", -1, -1, done + MS / 10, done + MS + MS / 5,
                   0, NULL);
        t = done + MS + MS / 5;
    }
    gs_graph *g = NULL;
    gs_whatif w;
    gs_whatif_result r0, r;
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(gs_graph_build(&g, tl, &err) == GS_OK);
    GS_REQUIRE(gs_whatif_parse(&w, "threads:worker/=+2", &err) == GS_OK);
    GS_REQUIRE(gs_whatif_run(&r0, NULL, g, NULL, 0, &err) == GS_OK);
    GS_REQUIRE(gs_whatif_run(&r, NULL, g, &w, 1, &err) == GS_OK);
    /* Captured span: 10.1 .. 41.1; with four workers 10.1 .. 31.1. */
    GS_CHECK_MSG(near(r0.span_s, 0.031), "captured span %.6f", r0.span_s);
    GS_CHECK_MSG(near(r.span_s, 0.021), "four workers: span %.6f", r.span_s);
    gs_graph_destroy(g);
    gs_timeline_destroy(tl);
}

/* tl replayed with one edit (NULL: none) into r and, when out is not
 * NULL, the replayed timeline; 0 after a failed check. */
static int replay_edit(gs_timeline *tl, const char *edit, gs_whatif_result *r, gs_timeline **out)
{
    gs_graph *g = NULL;
    gs_whatif w;
    gs_err err;
    gs_err_clear(&err);
    int ok = gs_graph_build(&g, tl, &err) == GS_OK && (!edit || gs_whatif_parse(&w, edit, &err) == GS_OK) &&
             gs_whatif_run(r, out, g, &w, edit ? 1 : 0, &err) == GS_OK;
    GS_CHECK_MSG(ok, "%s: %s", edit ? edit : "no edit", err.msg);
    gs_graph_destroy(g);
    return ok;
}

/* remove:state:X inside a call: the launcher's library load [0.2, 10.2]
 * ms was sampled in state io over [2.2, 8.2] (reading it from disk), its
 * first kernel [0.5, 1.5] launched before it, the second launched after
 * it [10.2, 10.3] and run [10.7, 15.7].  Without the io the load takes
 * 4 ms, the second kernel runs [4.7, 9.7]: span 9.2 ms instead of 15.2.
 * Sampled over the whole load, the load takes (a millionth of) nothing,
 * the second launch begins at 0.2 and its kernel, 0.5 after the later of
 * that and the first kernel's end (as captured), runs [2.0, 7.0]: span
 * 6.5, and no removed step's knock-on is timed. */
static int io_replay(int64_t io0, int64_t io1, gs_whatif_result *r)
{
    gs_timeline *tl = NULL;
    if (gs_timeline_create(&tl) != GS_OK)
        return 0;
    gs_tl_lane *l = gs_tl_lane_open(tl, "thread/1 prog", GS_ROLE_THREAD, -1, -1);
    gs_tl_lane *d = gs_tl_lane_open(tl, "gpu0/stream7", GS_ROLE_DEVICE, 0, 7);
    gs_tl_span(l, GS_SPAN_STEP, "cuda:cudaLaunchKernel", -1, -1, 0, MS / 10, 0, "corr=1");
    gs_tl_span(d, GS_SPAN_KERNEL, "a", -1, -1, MS / 2, MS + MS / 2, 0, "corr=1;launch_lane=0");
    gs_tl_span(l, GS_SPAN_STEP, "cuda:cuLibraryLoadData", -1, -1, MS / 5, 10 * MS + MS / 5, 0, NULL);
    gs_tl_span(l, GS_SPAN_STEP, "state:io", -1, -1, io0, io1, 0, NULL);
    gs_tl_span(l, GS_SPAN_STEP, "cuda:cudaLaunchKernel", -1, -1, 10 * MS + MS / 5, 10 * MS + 3 * MS / 10, 0,
               "corr=2");
    gs_tl_span(d, GS_SPAN_KERNEL, "b", -1, -1, 10 * MS + 7 * MS / 10, 15 * MS + 7 * MS / 10, 0,
               "corr=2;launch_lane=0");
    int ok = replay_edit(tl, "remove:state:io", r, NULL);
    gs_timeline_destroy(tl);
    return ok;
}

GS_TEST(whatif_removed_state_shortens_the_call_it_blocked_in)
{
    gs_whatif_result r;
    if (!io_replay(2 * MS + MS / 5, 8 * MS + MS / 5, &r))
        return;
    GS_CHECK_MSG(near(r.captured_span_s, 0.0152) && near(r.span_s, 0.0092), "captured span %.6f, io gone %.6f",
                 r.captured_span_s, r.span_s);
    GS_CHECK_MSG(r.n_after == 0, "a shortened call is not a removed step: %zu windows after", r.n_after);
    if (!io_replay(MS / 5, 10 * MS + MS / 5, &r))
        return;
    GS_CHECK_MSG(fabs(r.span_s - 0.0065) < 1e-5 && r.n_after == 0, "load wholly in io: span %.6f, %zu windows",
                 r.span_s, r.n_after);
}

/* The replayed timeline keeps the sampled thread states (whatif_out.c,
 * carry_states), so diag attributes its gaps as it does the capture's: on
 * a launcher (ms) that launches a [0, 0.1] (kernel [0.5, 1.5]), works
 * [2, 4] and launches b [6, 6.1] (kernel [6.5, 7.5]), sampled running
 * over [1.9, 6]: unedited the state is as captured; without the work the
 * second launch begins at 2 + its captured 2 ms gap = 4, and the state,
 * its start in the gap before the work (kept) and its end at that
 * launch's start, runs [1.9, 4]; remove:state:running leaves it out. */
static int state_replay(const char *edit, int64_t *a, int64_t *b)
{
    gs_timeline *tl = NULL, *out = NULL;
    if (gs_timeline_create(&tl) != GS_OK)
        return 0;
    gs_tl_lane *l = gs_tl_lane_open(tl, "thread/1 prog", GS_ROLE_THREAD, -1, -1);
    gs_tl_lane *d = gs_tl_lane_open(tl, "gpu0/stream7", GS_ROLE_DEVICE, 0, 7);
    gs_tl_span(l, GS_SPAN_STEP, "cuda:cudaLaunchKernel", -1, -1, 0, MS / 10, 0, "corr=1");
    gs_tl_span(d, GS_SPAN_KERNEL, "a", -1, -1, MS / 2, MS + MS / 2, 0, "corr=1;launch_lane=0");
    gs_tl_span(l, GS_SPAN_STEP, "state:running", -1, -1, 19 * MS / 10, 6 * MS, 0, NULL);
    gs_tl_span(l, GS_SPAN_STEP, "work", -1, -1, 2 * MS, 4 * MS, 0, NULL);
    gs_tl_span(l, GS_SPAN_STEP, "cuda:cudaLaunchKernel", -1, -1, 6 * MS, 6 * MS + MS / 10, 0, "corr=2");
    gs_tl_span(d, GS_SPAN_KERNEL, "b", -1, -1, 6 * MS + MS / 2, 7 * MS + MS / 2, 0, "corr=2;launch_lane=0");
    gs_whatif_result r;
    int ok = replay_edit(tl, edit, &r, &out);
    int found = 0;
    size_t n = 0;
    const gs_span *sp = ok ? gs_timeline_spans(out, &n) : NULL;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(sp[i].name, "state:running")) {
            found++;
            *a = sp[i].start_ns;
            *b = sp[i].end_ns;
            GS_CHECK_MSG(sp[i].lane == 0 && (sp[i].flags & GS_SPAN_F_MODELLED), "state on lane %d, flags %u",
                         (int)sp[i].lane, (unsigned)sp[i].flags);
        }
    gs_timeline_destroy(out);
    gs_timeline_destroy(tl);
    return ok ? found : -1;
}

GS_TEST(whatif_replayed_timeline_keeps_thread_states)
{
    int64_t a = 0, b = 0;
    GS_CHECK_EQ_INT(state_replay(NULL, &a, &b), 1);
    GS_CHECK_MSG(llabs(a - 19 * MS / 10) <= 1000 && llabs(b - 6 * MS) <= 1000, "unedited: [%lld, %lld] ns",
                 (long long)a, (long long)b);
    GS_CHECK_EQ_INT(state_replay("remove:work", &a, &b), 1);
    GS_CHECK_MSG(llabs(a - 19 * MS / 10) <= 1000 && llabs(b - 4 * MS) <= 1000, "work gone: [%lld, %lld] ns",
                 (long long)a, (long long)b);
    GS_CHECK_EQ_INT(state_replay("remove:state:running", &a, &b), 0);
}
