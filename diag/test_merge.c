/*
 * Several captures in one run (diag/merge.h, diag/fleet.h,
 * timeline/tl_merge.h): clocks aligned from the anchors, each device's
 * figures those of its own capture, a planted shared stall found as idle
 * that lines up, independent idle not, and captures that cannot be
 * aligned refused.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../test/test.h"
#include "merge.h"
#include "run.h"

#define MS 1000000LL

/* A foreign capture taken on a host whose CLOCK_MONOTONIC reads `mono`
 * when its wall clock reads `real`: a launcher thread issuing 5 ms kernels
 * after host work of 0.5-3 ms (its own, random), and, when stall_at >= 0,
 * a 200 ms wait in I/O at wall time stall_at (ns since the epoch) before
 * the next kernel.  Times are written in the capture's own clock. */
typedef struct {
    int64_t mono, real;        /* the anchor */
    const char *boot;
    uint64_t seed;
    int64_t wall0, stall_at;   /* first event and stall, wall clock */
    int engine;                /* engine-shaped: a GPU worker with device -1 and a tracker */
} capture;

static int write_capture(const char *dir, const capture *c)
{
    gs_timeline *tl;
    if (gs_timeline_create(&tl) != GS_OK)
        return 0;
    gs_clock_anchor an = {c->mono, c->real, 40, 100, 1, ""};
    snprintf(an.boot_id, sizeof an.boot_id, "%s", c->boot);
    gs_timeline_set_anchor(tl, &an);
    gs_tl_lane *dev = gs_tl_lane_open(tl, "gpu0/stream7", GS_ROLE_DEVICE, 0, 7);
    gs_tl_lane *th = gs_tl_lane_open(tl, "thread/100 main", GS_ROLE_THREAD, -1, -1);
    gs_tl_lane *w = NULL, *fin = NULL;
    if (c->engine) {
        w = gs_tl_lane_open(tl, "gpu_worker/0.0", GS_ROLE_GPU_WORKER, -1, -1);
        fin = gs_tl_lane_open(tl, "finalizer/0", GS_ROLE_FINALIZER, 0, -1);
    }
    gs_rng rng;
    gs_rng_seed(&rng, c->seed);
    int64_t to_mono = c->mono - c->real;   /* wall -> this capture's clock */
    int64_t t = c->wall0 + to_mono, stall = c->stall_at >= 0 ? c->stall_at + to_mono : -1;
    char args[96];
    for (int i = 0; i < 1500; i++) {
        int64_t gap = 500000 + (int64_t)(gs_rng_u64(&rng) % 2500000);
        int stalled = stall >= 0 && t <= stall && stall < t + gap + 5 * MS;
        if (stalled) {   /* the shared host stall: both programs wait for I/O */
            gs_tl_span(th, GS_SPAN_STEP, "state:io", -1, -1, t, stall + 200 * MS, 0, "wchan=x");
            gap = stall + 200 * MS - t + 100000;
            stall = -1;
        } else {
            gs_tl_span(th, GS_SPAN_STEP, "cpu_op:prep", -1, -1, t, t + gap - 60000, 0, NULL);
        }
        snprintf(args, sizeof args, "corr=%d", i + 1);   /* the same ids in every capture */
        gs_tl_span(th, GS_SPAN_STEP, "cuda:cudaLaunchKernel", -1, -1, t + gap - 50000,
                   t + gap - 10000, 0, args);
        gs_tl_span(dev, GS_SPAN_KERNEL, "k", -1, -1, t + gap, t + gap + 5 * MS, 0, args);
        if (w) {   /* the worker waits on its tracker while the finalizer holds it */
            gs_tl_lock_wait(w, "tracker", gs_tl_lane_id(fin), i, 0, t, t + gap);
            gs_tl_span(fin, GS_SPAN_LOCK_HOLD, "tracker", i, 0, t - 1000, t + gap, 0, NULL);
            gs_tl_span(fin, GS_SPAN_STEP, "malloc_trim", i, 0, t, t + gap, 0, NULL);
            gs_tl_span(w, GS_SPAN_STEP, "prove_start", i, 0, t + gap, t + gap + 5 * MS, 0, NULL);
        }
        t += gap + 5 * MS;
    }
    char p[700];
    gs_err err;
    gs_err_clear(&err);
    mkdir(dir, 0777);
    snprintf(p, sizeof p, "%s/spans.csv", dir);
    int ok = gs_timeline_write_csv(tl, p, &err) == GS_OK;
    gs_timeline_destroy(tl);
    return ok;
}

/* Merges a and b into dir/m and loads every run. */
static int merge2(const char *dir, const capture *a, const capture *b, gs_run *ra, gs_run *rb,
                  gs_run *rm, gs_merge_result *mr)
{
    gs_merge_opts o;
    memset(&o, 0, sizeof o);
    char da[600], db[600], dm[600];
    snprintf(da, sizeof da, "%s/a", dir);
    snprintf(db, sizeof db, "%s/b", dir);
    snprintf(dm, sizeof dm, "%s/m", dir);
    o.dirs[0] = da;
    o.dirs[1] = db;
    o.n = 2;
    gs_err err;
    gs_err_clear(&err);
    if (!write_capture(da, a) || !write_capture(db, b) ||
        gs_run_merge(mr, dm, &o, &err) != GS_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 0;
    }
    return gs_run_load(ra, da, NULL, &err) == GS_OK && gs_run_load(rb, db, NULL, &err) == GS_OK &&
           gs_run_load(rm, dm, NULL, &err) == GS_OK;
}

/* Each merged device has its own capture's util and causes. */
static void same_as_alone(const gs_run *rm, const gs_run *const alone[2])
{
    GS_REQUIRE(rm->an->n_dev == 2);
    for (int k = 0; k < 2; k++) {
        const gs_device_analysis *m = &rm->an->dev[k], *o = &alone[k]->an->dev[0];
        GS_CHECK_EQ_INT(m->device, k);
        GS_CHECK_EQ_INT(m->process, k);
        GS_CHECK_MSG(fabs(m->util - o->util) < 1e-12, "device %d util %.6f alone %.6f", k, m->util,
                     o->util);
        for (int c = 0; c < GS_CAUSE_COUNT; c++)
            GS_CHECK_MSG(fabs(m->cause_s[c] - o->cause_s[c]) < 1e-9, "device %d %s: %.6f alone %.6f",
                         k, gs_cause_name((gs_cause)c), m->cause_s[c], o->cause_s[c]);
        GS_CHECK(fabs(m->idle_during_trim_s - o->idle_during_trim_s) < 1e-9);
    }
}

GS_TEST(merge_finds_shared_stall)
{
    const char *dir = gs_test_tmpdir();
    const int64_t wall = 1700000000LL * 1000000000LL;
    /* Two hosts: different monotonic clocks, anchors 3 ms apart. */
    capture a = {5 * 1000 * MS, wall, "boot-a", 11, wall + 10 * MS, wall + 4000 * MS, 0};
    capture b = {77 * 1000 * MS, wall + 3 * MS, "boot-b", 12, wall + 12 * MS, wall + 4000 * MS, 0};
    gs_run ra, rb, rm;
    gs_merge_result mr;
    GS_REQUIRE(merge2(dir, &a, &b, &ra, &rb, &rm, &mr));
    /* b's times map onto a's clock by the anchors; the bound is the reads
     * and the two hosts' realtime bounds. */
    GS_CHECK_EQ_INT(mr.align[1].offset_ns, (b.real - b.mono) - (a.real - a.mono));
    GS_CHECK_EQ_INT(mr.error_ns, 40 + 40 + 2 * 100 * 1000);
    const gs_run *alone[2] = {&ra, &rb};
    same_as_alone(&rm, alone);
    const gs_fleet *f = rm.fleet;
    GS_REQUIRE(f && f->n_dev == 2);
    /* The stall is found: one shared stretch, where it was planted, both
     * devices' cause io; the rest of the idle is each device's own. */
    GS_CHECK_MSG(f->n_shared == 1, "%zu shared stretches (chance max %.3f ms)", f->n_shared,
                 f->chance_max_ms);
    GS_REQUIRE(f->n_top >= 1);
    int64_t at = a.stall_at - a.real + a.mono;
    GS_CHECK_MSG(llabs(f->top[0].start_ns - at) < 8 * MS && f->top[0].end_ns - f->top[0].start_ns > 190 * MS,
                 "stretch at %+.3f ms of the stall, %.3f ms long", (f->top[0].start_ns - at) * 1e-6,
                 (f->top[0].end_ns - f->top[0].start_ns) * 1e-6);
    GS_CHECK(f->top[0].cause[0] == GS_CAUSE_IO && f->top[0].cause[1] == GS_CAUSE_IO);
    for (int k = 0; k < 2; k++) {
        GS_CHECK(f->dev[k].own_top == GS_CAUSE_HOST_COMPUTE);
        GS_CHECK(fabs(f->dev[k].own_s - (f->dev[k].idle_s - f->shared_s)) < 1e-9);
        GS_CHECK(f->dev[k].own_cause_s[GS_CAUSE_IO] < 0.02);
    }
    char v[1024];
    gs_fleet_verdict(v, sizeof v, f);
    GS_CHECK_MSG(strstr(v, "shared host cause") != NULL, "%s", v);
    gs_run_free(&ra);
    gs_run_free(&rb);
    gs_run_free(&rm);
}

/* Without a shared stall, independent idle does not line up beyond chance;
 * engine-shaped captures (a GPU worker serving device -1, a tracker each)
 * keep their attribution inside their process. */
GS_TEST(merge_independent_idle_not_shared)
{
    const char *dir = gs_test_tmpdir();
    const int64_t wall = 1700000000LL * 1000000000LL;
    capture a = {9 * MS, wall, "same-boot", 21, wall + 10 * MS, -1, 1};
    capture b = {9 * MS, wall, "same-boot", 22, wall + 11 * MS, -1, 1};
    gs_run ra, rb, rm;
    gs_merge_result mr;
    GS_REQUIRE(merge2(dir, &a, &b, &ra, &rb, &rm, &mr));
    GS_CHECK(mr.align[1].offset_ns == 0 && mr.error_ns == 0 && strstr(mr.align[1].how, "same host"));
    const gs_run *alone[2] = {&ra, &rb};
    same_as_alone(&rm, alone);
    GS_CHECK(rm.an->dev[0].cause_s[GS_CAUSE_TRACKER_TRIM] > 0.5);
    const gs_fleet *f = rm.fleet;
    GS_REQUIRE(f);
    GS_CHECK_MSG(f->n_shared == 0 && f->aligned_s > 0, "%zu shared, aligned %.3f s", f->n_shared,
                 f->aligned_s);
    gs_run_free(&ra);
    gs_run_free(&rb);
    gs_run_free(&rm);
}

/* Captures without anchors: refused with a message saying what would do;
 * accepted with same_clock. */
GS_TEST(merge_unanchored_needs_same_clock)
{
    const char *dir = gs_test_tmpdir();
    char da[600], db[600], dm[600];
    snprintf(da, sizeof da, "%s/a", dir);
    snprintf(db, sizeof db, "%s/b", dir);
    snprintf(dm, sizeof dm, "%s/m", dir);
    for (int k = 0; k < 2; k++) {
        gs_timeline *tl;
        GS_REQUIRE(gs_timeline_create(&tl) == GS_OK);
        gs_tl_lane *d = gs_tl_lane_open(tl, "gpu0/stream0", GS_ROLE_DEVICE, 0, 0);
        gs_tl_span(d, GS_SPAN_KERNEL, "k", -1, -1, 0, 10 * MS, 0, NULL);
        gs_tl_span(d, GS_SPAN_KERNEL, "k", -1, -1, 20 * MS, 30 * MS, 0, NULL);
        char p[700];
        gs_err err;
        gs_err_clear(&err);
        mkdir(k ? db : da, 0777);
        snprintf(p, sizeof p, "%s/spans.csv", k ? db : da);
        GS_CHECK_OK(gs_timeline_write_csv(tl, p, &err));
        gs_timeline_destroy(tl);
    }
    gs_merge_opts o;
    memset(&o, 0, sizeof o);
    o.dirs[0] = da;
    o.dirs[1] = db;
    o.n = 2;
    gs_merge_result mr;
    gs_err err;
    gs_err_clear(&err);
    GS_CHECK(gs_run_merge(&mr, dm, &o, &err) == GS_ERR_ARG && strstr(err.msg, "--same-clock") &&
             strstr(err.msg, db));
    o.same_clock = 1;
    gs_err_clear(&err);
    GS_CHECK_OK(gs_run_merge(&mr, dm, &o, &err));
    GS_CHECK(mr.error_ns == -1 && !strcmp(mr.label[0], "a") && !strcmp(mr.label[1], "b"));
    gs_run r;
    GS_REQUIRE(gs_run_load(&r, dm, NULL, &err) == GS_OK);
    GS_CHECK(r.an->n_dev == 2 && r.fleet && r.fleet->n_shared == 1);   /* identical: aligned */
    gs_run_free(&r);
}
