/*
 * Wake-up chains in the launcher rule (attrib_chain.c) on hand-built
 * foreign timelines: a kernel [0, 10) ms, an idle gap [10, 110) ms and the
 * kernel that ends it [110, 120) ms, launched by thread L; threads A..J
 * hold locks, wake L or each other.  Each test checks the idle
 * milliseconds per cause, and where it matters the pieces' holder, detail
 * and stacks.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../test/test.h"
#include "../timeline/tl_merge.h"
#include "analysis.h"
#include "test_diag_util.h"

typedef struct fx {
    gs_timeline *tl;
    gs_tl_lane *dev, *L, *t[10];
} fx;

static int fx_init(fx *f)
{
    if (gs_timeline_create(&f->tl) != GS_OK)
        return 0;
    f->dev = gs_tl_lane_open(f->tl, "gpu0/stream7", GS_ROLE_DEVICE, 0, 7);
    f->L = gs_tl_lane_open(f->tl, "thread/100 launcher", GS_ROLE_THREAD, -1, -1);
    for (int i = 0; i < 10; i++) {
        char nm[32];
        snprintf(nm, sizeof nm, "thread/%d t%c", 101 + i, 'A' + i);
        f->t[i] = gs_tl_lane_open(f->tl, nm, GS_ROLE_THREAD, -1, -1);
    }
    td_kernels(f->dev, "k", f->L, NULL);
    return 1;
}

static int32_t id(gs_tl_lane *l)
{
    return gs_tl_lane_id(l);
}

static void wait(gs_tl_lane *l, const char *name, gs_tl_lane *holder, int64_t a, int64_t b,
                 const char *args)
{
    gs_tl_wait(l, name, holder ? id(holder) : -1, a * MS, b * MS, args);
}

static const char *detail_of(const gs_analysis *a, gs_cause c)
{
    for (size_t i = 0; i < a->n_details; i++)
        if (a->details[i].cause == c)
            return a->details[i].detail;
    return "";
}

GS_TEST(diag_chain_three_hops_to_a_trim)
{
    /* L waits on a condvar (event) woken by A; A was parked on a futex
     * (event) until B woke it; B ran malloc_trim [0, 100), then A ran. */
    fx f;
    GS_REQUIRE(fx_init(&f));
    gs_tl_lane *A = f.t[0], *B = f.t[1];
    wait(f.L, "cond:0x10", A, 10, 110, "wait=event;mech=interpose;stack=3");
    wait(A, "futex:0x20", B, 0, 100, "wait=event;mech=interpose;wstack=4");
    td_step(B, "malloc_trim", 0, 100, "stack=5");
    td_step(A, "state:running", 100, 110, NULL);
    gs_timeline_meta_set(f.tl, "stack.3", "main;blocking_pool;wait");
    gs_timeline_meta_set(f.tl, "stack.5", "main;finalize;malloc_trim");
    gs_analysis *a = td_analyse(f.tl);
    GS_REQUIRE(a);
    NEAR_MS(a, GS_CAUSE_LOCK_WAIT_TRIM, 90);
    /* A's run after the trim is in the same wait of L: the trim makes the
     * whole wait the lock held across it (attrib_chain.c). */
    NEAR_MS(a, GS_CAUSE_LOCK_WAIT_COMPUTE, 10);
    NEAR_MS(a, GS_CAUSE_WAKEUP_COMPUTE, 0);
    GS_CHECK_EQ_INT(a->verdict, GS_CAUSE_LOCK_WAIT_TRIM);
    GS_CHECK(!strcmp(gs_cause_family(GS_CAUSE_LOCK_WAIT_TRIM), "tracker_lock"));
    const char *d = detail_of(a, GS_CAUSE_LOCK_WAIT_TRIM);
    GS_CHECK_MSG(!strcmp(d, "waited for a lock, through 2 wake-ups: "
                            "thread/100 launcher waits on cond:0x10 -> woken by thread/101 tA, "
                            "thread/101 tA waits on futex:0x20 -> woken by thread/102 tB inside "
                            "malloc_trim"),
                 "%s", d);
    const gs_device_analysis *v = &a->dev[0];
    GS_REQUIRE(v->n_pieces == 2);
    GS_CHECK_EQ_INT(v->pieces[0].holder, id(B));
    GS_CHECK_EQ_INT(v->pieces[0].stack, 3);
    GS_CHECK_EQ_INT(v->pieces[0].wstack, 5);   /* the trim's own stack */
    GS_CHECK_EQ_INT(v->pieces[1].holder, id(A));
    /* Stacks at the top cause, with their frames. */
    GS_REQUIRE(a->n_stacks >= 1);
    GS_CHECK(a->stacks[0].cause == GS_CAUSE_LOCK_WAIT_TRIM && fabs(a->stacks[0].idle_s - 0.09) < 1e-9);
    GS_CHECK(!strcmp(a->stacks[0].launcher, "main;blocking_pool;wait"));
    GS_CHECK(!strcmp(a->stacks[0].waker, "main;finalize;malloc_trim"));
    char verdict[1024];
    gs_analysis_verdict(verdict, sizeof verdict, a);
    GS_CHECK_MSG(strstr(verdict, "Chain (90.0 ms): waited for a lock, through 2 wake-ups: "
                                  "thread/100 launcher waits on cond:0x10") != NULL,
                 "%s", verdict);
    td_free(a, f.tl);
}

GS_TEST(diag_chain_event_wait_with_a_trim_is_the_lock)
{
    /* The tokio daemon's shape: L (a blocking-pool thread) waits on an
     * event [10, 60) woken by A, a runtime thread that runs the finalizer
     * holding the tokio mutex: parked on its timer [10, 20) (no waker), host
     * code [20, 30) (the buffers freed), malloc_trim [30, 55), then it polls
     * the GPU task and wakes L.  The whole wait is the lock: every piece is
     * lock_wait/..., family tracker_lock.  Then [60, 110) an event wait
     * woken by B, which only computes: a producer, wakeup/host_compute,
     * though A trims again during it (A is not on its chain). */
    fx f;
    GS_REQUIRE(fx_init(&f));
    gs_tl_lane *A = f.t[0], *B = f.t[1];
    wait(f.L, "futex:0x10", A, 10, 60, "wait=event");
    wait(A, "futex:0x20", NULL, 10, 20, "wait=event");
    td_step(A, "state:running", 20, 30, NULL);
    td_step(A, "malloc_trim", 30, 55, NULL);
    td_step(A, "state:running", 55, 60, NULL);
    wait(f.L, "futex:0x10", B, 60, 110, "wait=event");
    td_step(B, "state:running", 0, 200, NULL);
    td_step(A, "malloc_trim", 70, 90, NULL);
    gs_analysis *a = td_analyse(f.tl);
    GS_REQUIRE(a);
    NEAR_MS(a, GS_CAUSE_LOCK_WAIT_BLOCKED, 10);
    NEAR_MS(a, GS_CAUSE_LOCK_WAIT_COMPUTE, 10 + 5);
    NEAR_MS(a, GS_CAUSE_LOCK_WAIT_TRIM, 25);
    NEAR_MS(a, GS_CAUSE_WAKEUP_BLOCKED, 0);
    NEAR_MS(a, GS_CAUSE_WAKEUP_COMPUTE, 50);
    double fam = 0;
    for (int c = 0; c < GS_CAUSE_COUNT; c++)
        if (!strcmp(gs_cause_family((gs_cause)c), "tracker_lock"))
            fam += a->cause_s[c];
    GS_CHECK_MSG(fabs(fam * 1e3 - 50) < 1e-6, "tracker_lock %.6f ms, want 50", fam * 1e3);
    GS_CHECK_MSG(strstr(detail_of(a, GS_CAUSE_LOCK_WAIT_COMPUTE), "woken by thread/101 tA") != NULL,
                 "%s", detail_of(a, GS_CAUSE_LOCK_WAIT_COMPUTE));
    td_free(a, f.tl);
}

GS_TEST(diag_chain_lock_part_starts_at_the_trimmers_last_wake)
{
    /* L (a pool thread) waits on an event [10, 110) woken by A, a runtime
     * thread.  Until 60 A sleeps, woken at 60 by C, which computes [10, 60)
     * (the previous job: L waits for it, not for a lock); then A runs
     * [60, 70), trims [70, 100) holding the lock, runs [100, 110) and wakes
     * L.  The lock's part is [60, 110): 30 ms lock_wait/malloc_trim and
     * 20 ms lock_wait/host_compute; [10, 60) stays the wake-up chain: A's
     * timer sleep (wakeup/blocked), then C computing (wakeup/host_compute). */
    fx f;
    GS_REQUIRE(fx_init(&f));
    gs_tl_lane *A = f.t[0], *C = f.t[2];
    wait(f.L, "futex:0x10", A, 10, 110, "wait=event");
    wait(A, "futex:0x20", NULL, 10, 30, "wait=event");   /* its timer: no waker */
    wait(A, "futex:0x20", C, 30, 60, "wait=event");
    td_step(C, "state:running", 10, 60, NULL);
    td_step(A, "state:running", 60, 70, NULL);
    td_step(A, "malloc_trim", 70, 100, NULL);
    td_step(A, "state:running", 100, 110, NULL);
    gs_analysis *a = td_analyse(f.tl);
    GS_REQUIRE(a);
    NEAR_MS(a, GS_CAUSE_WAKEUP_BLOCKED, 20);
    NEAR_MS(a, GS_CAUSE_WAKEUP_COMPUTE, 30);
    NEAR_MS(a, GS_CAUSE_LOCK_WAIT_TRIM, 30);
    NEAR_MS(a, GS_CAUSE_LOCK_WAIT_COMPUTE, 20);
    NEAR_MS(a, GS_CAUSE_LOCK_WAIT_BLOCKED, 0);
    td_free(a, f.tl);
}

GS_TEST(diag_chain_lock_event_gil_and_no_waker)
{
    /* [10, 30) a futex lock whose holder A computes; [30, 50) an event
     * whose waker A computes; [50, 70) an event with no waker; [70, 110)
     * the GIL: held by B until 90 (LOCK_HOLD from its releases), then by A;
     * the wait's own holder (A, the last releaser) is not what decides. */
    fx f;
    GS_REQUIRE(fx_init(&f));
    gs_tl_lane *A = f.t[0], *B = f.t[1];
    wait(f.L, "futex:0x1", A, 10, 30, "wait=lock");
    wait(f.L, "futex:0x2", A, 30, 50, "wait=event");
    wait(f.L, "cond:0x3", NULL, 50, 70, "wait=event");
    wait(f.L, "gil:0x4", A, 70, 110, "wait=gil");
    gs_tl_span(B, GS_SPAN_LOCK_HOLD, "gil:0x4", -1, -1, 60 * MS, 90 * MS, 0, "from=releases");
    gs_tl_span(A, GS_SPAN_LOCK_HOLD, "gil:0x4", -1, -1, 90 * MS, 110 * MS, 0, "from=releases");
    td_step(A, "state:running", 0, 200, NULL);
    td_step(B, "state:running", 0, 200, NULL);
    gs_analysis *a = td_analyse(f.tl);
    GS_REQUIRE(a);
    NEAR_MS(a, GS_CAUSE_LOCK_WAIT_COMPUTE, 20);
    NEAR_MS(a, GS_CAUSE_WAKEUP_COMPUTE, 20);
    NEAR_MS(a, GS_CAUSE_BLOCKED_FUTEX, 20);
    NEAR_MS(a, GS_CAUSE_GIL_WAIT, 40);
    GS_CHECK(!strcmp(gs_cause_family(GS_CAUSE_WAKEUP_COMPUTE), "queue_empty"));
    GS_CHECK(!strcmp(gs_cause_family(GS_CAUSE_GIL_WAIT), "gil_wait"));
    const gs_device_analysis *v = &a->dev[0];
    int32_t gil_holders[2] = {-9, -9};
    int k = 0;
    for (size_t p = 0; p < v->n_pieces; p++)
        if (v->pieces[p].cause == GS_CAUSE_GIL_WAIT && k < 2)
            gil_holders[k++] = v->pieces[p].holder;
    GS_CHECK(gil_holders[0] == id(B) && gil_holders[1] == id(A));
    GS_CHECK_MSG(strstr(detail_of(a, GS_CAUSE_GIL_WAIT), "waits on gil:0x4 -> GIL held by thread/102 tB") != NULL,
                 "%s", detail_of(a, GS_CAUSE_GIL_WAIT));
    GS_CHECK(strstr(detail_of(a, GS_CAUSE_BLOCKED_FUTEX), "no holder or waker known") != NULL);
    td_free(a, f.tl);
}

GS_TEST(diag_chain_cycles_depth_and_memory_release)
{
    /* [10, 40) L waits a lock held by A, which waits a lock held by L: a
     * cycle.  [40, 80) a chain through all ten threads: the walk stops
     * after GS_CHAIN_MAX hops at a thread still waiting.  [80, 100) an
     * event woken by B, which returns memory to the kernel.  [100, 110) L
     * itself returns memory. */
    fx f;
    GS_REQUIRE(fx_init(&f));
    wait(f.L, "futex:0x1", f.t[0], 10, 40, NULL);
    wait(f.t[0], "futex:0x9", f.L, 0, 40, NULL);
    wait(f.L, "futex:0x2", f.t[1], 40, 80, NULL);
    for (int i = 1; i < 9; i++)
        wait(f.t[i], "futex:0x3", f.t[i + 1], 40, 80, NULL);
    td_step(f.t[9], "malloc_trim", 0, 200, NULL);
    wait(f.L, "futex:0x4", f.t[1], 80, 100, "wait=event");
    td_step(f.t[1], "memory_release", 80, 100, "rss_drop_kb=100000");
    td_step(f.L, "memory_release", 100, 110, NULL);
    gs_analysis *a = td_analyse(f.tl);
    GS_REQUIRE(a);
    if (gs_test_verbose())
        for (size_t i = 0; i < a->n_details; i++)
            printf("%.1f %s %s\n", a->details[i].idle_s * 1e3, gs_cause_name(a->details[i].cause),
                   a->details[i].detail);
    NEAR_MS(a, GS_CAUSE_LOCK_WAIT_BLOCKED, 30 + 40);
    NEAR_MS(a, GS_CAUSE_LOCK_WAIT_TRIM, 0);   /* beyond the bound */
    NEAR_MS(a, GS_CAUSE_LOCK_WAIT_MEMREL, 20);
    NEAR_MS(a, GS_CAUSE_MEMORY_RELEASE, 10);
    GS_CHECK(!strcmp(gs_cause_family(GS_CAUSE_MEMORY_RELEASE), "malloc_trim"));
    int cycle = 0, deep = 0;
    for (size_t i = 0; i < a->n_details; i++) {
        cycle |= strstr(a->details[i].detail, "a cycle of waits") != NULL;
        deep |= strstr(a->details[i].detail, "itself waiting") != NULL;
    }
    GS_CHECK(cycle && deep);
    td_free(a, f.tl);
}

GS_TEST(diag_chain_merged_processes_stay_apart)
{
    /* Two captures merged (timeline/tl_merge.h): each the three-hop chain of
     * diag_chain_three_hops_to_a_trim with its own stack ids' frames (the
     * second's futex at 0x30); the second also has a LOCK_HOLD of 0x20, the
     * first's futex address, on a computing thread (another program).  Each device's chain stays in
     * its process (the hold is not the first's holder) and its stacks are
     * its own capture's (process.<k>.stack.<id>). */
    fx f[2];
    static const char *const frames[2][2] = {{"a;wait", "a;trim"}, {"b;wait", "b;trim"}};
    for (int k = 0; k < 2; k++) {
        GS_REQUIRE(fx_init(&f[k]));
        gs_tl_lane *A = f[k].t[0], *B = f[k].t[1];
        wait(f[k].L, "cond:0x10", A, 10, 110, "wait=event;stack=3");
        wait(A, k ? "futex:0x30" : "futex:0x20", B, 0, 100, "wait=event");
        td_step(B, "malloc_trim", 0, 100, "stack=5");
        td_step(A, "state:running", 100, 110, NULL);
        gs_timeline_meta_set(f[k].tl, "stack.3", frames[k][0]);
        gs_timeline_meta_set(f[k].tl, "stack.5", frames[k][1]);
    }
    gs_tl_span(f[1].t[2], GS_SPAN_LOCK_HOLD, "futex:0x20", -1, -1, 0, 100 * MS, 0, NULL);
    td_step(f[1].t[2], "state:running", 0, 100, NULL);
    gs_tl_merge_in in[2] = {{f[0].tl, "a", 0}, {f[1].tl, "b", 0}};
    gs_timeline *m = NULL;
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(gs_timeline_merge(&m, in, 2, &err) == GS_OK);
    gs_analysis *a = NULL;
    GS_REQUIRE(gs_analyze(&a, m, NULL, &err) == GS_OK);
    GS_REQUIRE(a->n_dev == 2);
    for (int d = 0; d < 2; d++) {
        const gs_device_analysis *v = &a->dev[d];
        GS_CHECK_MSG(fabs(v->cause_s[GS_CAUSE_LOCK_WAIT_TRIM] * 1e3 - 90) < 1e-6,
                     "device %d: lock_wait/malloc_trim %.3f ms", d,
                     v->cause_s[GS_CAUSE_LOCK_WAIT_TRIM] * 1e3);
    }
    GS_REQUIRE(a->n_stacks >= 2);
    for (int k = 0; k < 2; k++) {
        int found = 0;
        for (size_t i = 0; i < a->n_stacks; i++)
            found |= !strcmp(a->stacks[i].launcher, frames[k][0]) &&
                     !strcmp(a->stacks[i].waker, frames[k][1]);
        GS_CHECK_MSG(found, "capture %d's stacks not found (first: %s / %s)", k,
                     a->stacks[0].launcher, a->stacks[0].waker);
    }
    td_free(a, m);
    gs_timeline_destroy(f[0].tl);
    gs_timeline_destroy(f[1].tl);
}
