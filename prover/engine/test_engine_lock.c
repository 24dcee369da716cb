/*
 * Engine tests: the tracker lock as the timeline shows it, and the queue
 * order.
 */
#include <stdlib.h>

#include "../../common/clock.h"
#include "engine_test.h"

#define SYNTH_S 0.25

/* Runs one 4-partition PoRep job and returns the GPU worker's tracker
 * waits; holder_ok counts waits whose holder lane is a finalizer. */
static int lock_run(gs_trim_policy trim, double hold_s, int64_t *total, int64_t *max,
                    int64_t *by_fin, int *saw_hold_span)
{
    gs_engine_config cfg;
    et_config(&cfg);
    cfg.trim = trim;
    cfg.queue_depth = 4;
    /* One synthesis thread, each partition delayed SYNTH_S: the worker asks
     * for the lock once per partition, SYNTH_S apart (see the test). */
    cfg.synth_threads = 1;
    cfg.inj[GS_INJ_SYNTH].enabled = 1;
    cfg.inj[GS_INJ_SYNTH].dist.kind = GS_DIST_FIXED;
    cfg.inj[GS_INJ_SYNTH].dist.a = SYNTH_S;
    cfg.inj[GS_INJ_SYNTH].probability = 1.0;
    if (hold_s > 0) {
        cfg.inj[GS_INJ_TRACKER_HOLD].enabled = 1;
        cfg.inj[GS_INJ_TRACKER_HOLD].dist.kind = GS_DIST_FIXED;
        cfg.inj[GS_INJ_TRACKER_HOLD].dist.a = hold_s;
        cfg.inj[GS_INJ_TRACKER_HOLD].probability = 1.0;
    }
    et_run r;
    int ok = 0;
    if (!et_start(&r, &cfg, 0))
        goto done;
    if (!et_submit(r.e, GS_KIND_POREP_C2, 7, 4))
        goto done;
    GS_CHECK_OK(gs_engine_drain(r.e, ET_DRAIN_NS));
    size_t n;
    const gs_job_result *res = gs_engine_results(r.e, &n);
    GS_CHECK_EQ_INT(n, 1);
    if (n == 1) {
        GS_CHECK_EQ_INT(res[0].status, GS_OK);
        GS_CHECK_EQ_INT(res[0].verified, 1);
    }
    et_stop(&r);
    et_worker_waits(r.tl, total, max, by_fin);
    size_t ns;
    const gs_span *s = gs_timeline_spans(r.tl, &ns);
    *saw_hold_span = 0;
    for (size_t i = 0; i < ns; i++) {
        if (s[i].kind == GS_SPAN_INJECTED && strcmp(s[i].name, "inj:tracker_hold") == 0) {
            const gs_lane_info *l = et_lane(r.tl, s[i].lane);
            GS_CHECK(l && l->role == GS_ROLE_FINALIZER);
            GS_CHECK(s[i].end_ns - s[i].start_ns >= (int64_t)(hold_s * 1e9 * 0.9));
            GS_CHECK(s[i].flags & GS_SPAN_F_INJECTED);
            GS_CHECK(strstr(s[i].args, "dist=fixed") && strstr(s[i].args, "delay_s="));
            ++*saw_hold_span;
        }
    }
    ok = 1;
done:
    et_free(&r);
    return ok;
}

GS_TEST(engine_tracker_hold_visible_with_finalizer_holder)
{
    int64_t total, max, by_fin, total2, max2, by_fin2;
    int holds, holds2;
    /* Phase-free by construction (issue 16: with an 80 ms hold and no
     * synthesis delay only 3 of 20 runs passed on a loaded 2-core machine,
     * because whether the worker asks while a finalizer holds the lock
     * depended on the G2 MSM's speed).  Partitions reach the worker every
     * D = SYNTH_S; finalizer 0 holds the lock over [D + x, D + x + hold]
     * (x = prove + G2 MSM + scheduling); the worker's first request after
     * D + x comes at most D later, so it waits at least hold - D = 0.35 s
     * >= hold / 2 whenever x < 2D (0.5 s; x is 0.06-0.25 s loaded) and the
     * prove is shorter than D. */
    const double hold = 0.6;
    GS_REQUIRE(lock_run(GS_TRIM_UNDER_LOCK, hold, &total, &max, &by_fin, &holds));
    if (gs_test_verbose())
        printf("    hold: waits total %.1f ms, max %.1f ms, finalizer-held %.1f ms\n",
               total / 1e6, max / 1e6, by_fin / 1e6);
    /* One injected hold per partition, on a finalizer lane. */
    GS_CHECK_EQ_INT(holds, 4);
    /* The GPU worker visibly waited for a finalizer holding the tracker. */
    GS_CHECK(max >= (int64_t)(hold * 1e9 / 2));
    GS_CHECK(by_fin >= (int64_t)(hold * 1e9 / 2));

    GS_REQUIRE(lock_run(GS_TRIM_OFF, 0.0, &total2, &max2, &by_fin2, &holds2));
    if (gs_test_verbose())
        printf("    off:  waits total %.1f ms, max %.1f ms, finalizer-held %.1f ms\n",
               total2 / 1e6, max2 / 1e6, by_fin2 / 1e6);
    GS_CHECK_EQ_INT(holds2, 0);
    /* Without the hold and with malloc_trim off the waits shrink away. */
    GS_CHECK(total2 * 4 < total);
    GS_CHECK(by_fin2 * 4 < by_fin);
}

/* Steps every partition goes through appear on the right lanes, and the
 * metadata describes the run. */
GS_TEST(engine_timeline_steps_and_metadata)
{
    gs_engine_config cfg;
    et_config(&cfg);
    et_run r;
    if (!et_start(&r, &cfg, 0))
        goto done;
    et_submit(r.e, GS_KIND_SNAP_DEALS, 11, 2);
    GS_CHECK_OK(gs_engine_drain(r.e, ET_DRAIN_NS));
    et_stop(&r);
    static const struct { const char *name; gs_role role; int want; } steps[] = {
        {"synth", GS_ROLE_SYNTH, 2},         {"status_check", GS_ROLE_GPU_WORKER, 2},
        {"fail_check", GS_ROLE_GPU_WORKER, 2}, {"mark_busy", GS_ROLE_GPU_WORKER, 2},
        {"host_prep", GS_ROLE_GPU_WORKER, 2}, {"prove_start", GS_ROLE_GPU_WORKER, 2},
        {"handoff", GS_ROLE_GPU_WORKER, 2},   {"prove_finish", GS_ROLE_FINALIZER, 2},
        {"buffer_release", GS_ROLE_FINALIZER, 2}, {"process_result", GS_ROLE_FINALIZER, 2},
        {"malloc_trim", GS_ROLE_FINALIZER, 2}, {"assemble", GS_ROLE_FINALIZER, 1},
        {"verify", GS_ROLE_FINALIZER, 1},
    };
    size_t n;
    const gs_span *s = gs_timeline_spans(r.tl, &n);
    int device_spans = 0, counters = 0, done_marks = 0, queued_marks = 0;
    for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
        int got = 0;
        for (size_t i = 0; i < n; i++) {
            const gs_lane_info *l = et_lane(r.tl, s[i].lane);
            if (s[i].kind == GS_SPAN_STEP && strcmp(s[i].name, steps[k].name) == 0 && l &&
                l->role == steps[k].role && s[i].job == 11)
                got++;
        }
        GS_CHECK_MSG(got >= steps[k].want, "step %s: %d spans, want %d", steps[k].name, got,
                     steps[k].want);
    }
    for (size_t i = 0; i < n; i++) {
        const gs_lane_info *l = et_lane(r.tl, s[i].lane);
        GS_CHECK(s[i].end_ns >= s[i].start_ns);
        if (l && l->role == GS_ROLE_DEVICE && s[i].kind == GS_SPAN_KERNEL) {
            device_spans++;
            GS_CHECK(strncmp(l->name, "cpu0/stream", 11) == 0);
        }
        if (s[i].kind == GS_SPAN_COUNTER && strcmp(s[i].name, "gpu_queue_depth") == 0) {
            counters++;
            GS_CHECK(l && l->role == GS_ROLE_DRIVER);
            GS_CHECK(s[i].value >= 0 && s[i].value <= cfg.queue_depth);
        }
        if (s[i].kind == GS_SPAN_MARK && strcmp(s[i].name, "job_done") == 0) {
            done_marks++;
            GS_CHECK(s[i].job == 11 && strstr(s[i].args, "status=ok;verified=1") != NULL);
        }
        queued_marks += s[i].kind == GS_SPAN_MARK && strcmp(s[i].name, "job_queued") == 0;
    }
    GS_CHECK(device_spans >= 2 * 4);   /* intt/coset/ntt/msm per partition */
    GS_CHECK(counters >= 4);           /* 2 pushes and 2 pops at least */
    GS_CHECK_EQ_INT(done_marks, 1);
    GS_CHECK_EQ_INT(queued_marks, 1);
    GS_CHECK(gs_timeline_meta_get(r.tl, "backend") &&
             strcmp(gs_timeline_meta_get(r.tl, "backend"), "cpu") == 0);
    GS_CHECK(gs_timeline_meta_get(r.tl, "device.0.name") != NULL);
    GS_CHECK(gs_timeline_meta_get(r.tl, "scenario.engine.trim") &&
             strcmp(gs_timeline_meta_get(r.tl, "scenario.engine.trim"), "under_lock") == 0);
    GS_CHECK(gs_timeline_meta_get(r.tl, "scenario.engine.queue_depth") &&
             strcmp(gs_timeline_meta_get(r.tl, "scenario.engine.queue_depth"), "4") == 0);
done:
    et_free(&r);
}

/* The queue order is (priority, job sequence, partition index), whatever
 * the push order. */
GS_TEST(engine_queue_priority_order)
{
    gs_pq q;
    GS_REQUIRE(gs_pq_init(&q, "test_queue", 0, NULL, NULL) == GS_OK);
    enum { N = 60 };
    gs_part parts[N];
    gs_job_rec jobs[3];
    memset(jobs, 0, sizeof jobs);
    for (int i = 0; i < N; i++) {
        memset(&parts[i], 0, sizeof parts[i]);
        parts[i].job = &jobs[i % 3];
        parts[i].prio = i % 3 == 2 ? 0 : 2;    /* job 2 is urgent */
        parts[i].seq = (uint64_t)(i % 3);
        parts[i].index = (uint32_t)(i / 3);
    }
    /* Push in a shuffled order. */
    gs_rng *rng = gs_test_rng();
    int order[N];
    for (int i = 0; i < N; i++)
        order[i] = i;
    for (int i = N - 1; i > 0; i--) {
        int k = (int)gs_rng_below(rng, (uint64_t)i + 1), t = order[i];
        order[i] = order[k];
        order[k] = t;
    }
    int64_t t0, t1;
    for (int i = 0; i < N; i++)
        GS_CHECK(gs_pq_push(&q, &parts[order[i]], NULL, &t0, &t1));
    const gs_part *prev = NULL;
    for (int i = 0; i < N; i++) {
        gs_part *p = gs_pq_pop(&q, NULL, &t0, &t1);
        GS_REQUIRE(p);
        if (i < N / 3)
            GS_CHECK(p->prio == 0);
        if (prev) {
            int ordered = prev->prio < p->prio ||
                          (prev->prio == p->prio && (prev->seq < p->seq ||
                                                     (prev->seq == p->seq && prev->index < p->index)));
            GS_CHECK(ordered);
        }
        prev = p;
    }
    gs_pq_close(&q);
    GS_CHECK(gs_pq_pop(&q, NULL, &t0, &t1) == NULL);
    gs_pq_deinit(&q);
}

/* 1 when span s lies inside a LOCK_HOLD "tracker" span of its own lane. */
static int under_tracker(const gs_span *all, size_t n, const gs_span *s)
{
    for (size_t i = 0; i < n; i++)
        if (all[i].kind == GS_SPAN_LOCK_HOLD && all[i].lane == s->lane &&
            strcmp(all[i].name, "tracker") == 0 && all[i].start_ns <= s->start_ns &&
            s->end_ns <= all[i].end_ns)
            return 1;
    return 0;
}

/* The policies move malloc_trim and verify out of the tracker lock (or to
 * the background thread), and proofs still verify. */
static void policy_run(gs_trim_policy trim, gs_verify_policy verify)
{
    gs_engine_config cfg;
    et_config(&cfg);
    cfg.trim = trim;
    cfg.verify = verify;
    et_run r;
    if (!et_start(&r, &cfg, 0))
        goto done;
    et_submit(r.e, GS_KIND_POREP_C2, 21, 3);
    et_submit(r.e, GS_KIND_WINNING_POST, 22, 1);
    GS_CHECK_OK(gs_engine_drain(r.e, ET_DRAIN_NS));
    size_t n;
    const gs_job_result *res = gs_engine_results(r.e, &n);
    GS_CHECK_EQ_INT(n, 2);
    for (size_t i = 0; i < n; i++) {
        GS_CHECK_EQ_INT(res[i].status, GS_OK);
        GS_CHECK_EQ_INT(res[i].verified, verify == GS_VERIFY_OFF ? 0 : 1);
        if (verify == GS_VERIFY_OFF)
            GS_CHECK(et_verify_independent(&res[i]));
    }
    et_stop(&r);
    const gs_span *s = gs_timeline_spans(r.tl, &n);
    int trims = 0, trims_locked = 0, trims_bg = 0, verifies = 0, verifies_locked = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i].kind != GS_SPAN_STEP)
            continue;
        const gs_lane_info *l = et_lane(r.tl, s[i].lane);
        if (strcmp(s[i].name, "malloc_trim") == 0) {
            trims++;
            trims_locked += under_tracker(s, n, &s[i]);
            trims_bg += l && l->role == GS_ROLE_BACKGROUND;
        } else if (strcmp(s[i].name, "verify") == 0) {
            verifies++;
            verifies_locked += under_tracker(s, n, &s[i]);
        }
    }
    switch (trim) {
    case GS_TRIM_UNDER_LOCK:
        GS_CHECK(trims == 4 && trims_locked == 4);
        break;
    case GS_TRIM_AFTER_UNLOCK:
        GS_CHECK(trims == 4 && trims_locked == 0);
        break;
    case GS_TRIM_BACKGROUND:
        GS_CHECK(trims >= 1 && trims <= 4 && trims_bg == trims && trims_locked == 0);
        break;
    default:
        GS_CHECK_EQ_INT(trims, 0);
        break;
    }
    if (verify == GS_VERIFY_OFF)
        GS_CHECK_EQ_INT(verifies, 0);
    else
        GS_CHECK(verifies == 2 && verifies_locked == (verify == GS_VERIFY_UNDER_LOCK ? 2 : 0));
done:
    et_free(&r);
}

GS_TEST(engine_policies_move_work_out_of_the_lock)
{
    policy_run(GS_TRIM_AFTER_UNLOCK, GS_VERIFY_AFTER_UNLOCK);
    policy_run(GS_TRIM_BACKGROUND, GS_VERIFY_OFF);
    policy_run(GS_TRIM_UNDER_LOCK, GS_VERIFY_UNDER_LOCK);
    policy_run(GS_TRIM_OFF, GS_VERIFY_AFTER_UNLOCK);
}

/* End to end: partitions are proved in (priority, job sequence, partition)
 * order: an urgent job overtakes the queued partitions of an older one, and
 * a job's partitions go in index order. */
GS_TEST(engine_schedules_by_priority_then_age)
{
    gs_engine_config cfg;
    et_config(&cfg);
    cfg.synth_threads = 1;
    cfg.queue_depth = 8;
    et_run r;
    if (!et_start(&r, &cfg, 0))
        goto done;
    et_submit(r.e, GS_KIND_POREP_C2, 1, 6);        /* priority 2 */
    et_submit(r.e, GS_KIND_SNAP_DEALS, 2, 2);      /* priority 2, younger */
    et_submit(r.e, GS_KIND_WINNING_POST, 3, 1);    /* priority 0 */
    GS_CHECK_OK(gs_engine_drain(r.e, ET_DRAIN_NS));
    et_stop(&r);
    size_t n;
    const gs_span *s = gs_timeline_spans(r.tl, &n);
    int order[16], k = 0, parts[16];
    for (size_t i = 0; i < n && k < 16; i++)
        if (s[i].kind == GS_SPAN_STEP && strcmp(s[i].name, "prove_start") == 0) {
            order[k] = s[i].job;
            parts[k++] = s[i].part;
        }
    GS_REQUIRE(k == 9);
    /* The urgent job went within the first two proofs (one PoRep partition
     * may have been synthesized before it arrived). */
    GS_CHECK(order[0] == 3 || order[1] == 3);
    /* Job 1 entirely before job 2, each in partition order. */
    int last1 = -1, first2 = 99, prev1 = -1, prev2 = -1;
    for (int i = 0; i < k; i++) {
        if (order[i] == 1) {
            last1 = i;
            GS_CHECK(parts[i] == prev1 + 1);
            prev1 = parts[i];
        } else if (order[i] == 2) {
            if (i < first2)
                first2 = i;
            GS_CHECK(parts[i] == prev2 + 1);
            prev2 = parts[i];
        }
    }
    GS_CHECK(last1 < first2);
done:
    et_free(&r);
}

/* finish_in_worker: the G2 MSM moves into the GPU worker's loop. */
GS_TEST(engine_finish_in_worker)
{
    gs_engine_config cfg;
    et_config(&cfg);
    cfg.finish_in_worker = 1;
    et_run r;
    if (!et_start(&r, &cfg, 0))
        goto done;
    const gs_job_result *res = et_one_verified(&r, GS_KIND_POREP_C2, 31, 3);
    GS_CHECK(res && et_verify_independent(res));
    et_stop(&r);
    size_t n;
    const gs_span *s = gs_timeline_spans(r.tl, &n);
    int on_worker = 0, on_fin = 0, b2_on_worker = 0;
    for (size_t i = 0; i < n; i++) {
        const gs_lane_info *l = et_lane(r.tl, s[i].lane);
        if (!l || s[i].kind != GS_SPAN_STEP)
            continue;
        if (strcmp(s[i].name, "prove_finish") == 0) {
            on_worker += l->role == GS_ROLE_GPU_WORKER;
            on_fin += l->role == GS_ROLE_FINALIZER;
        }
        b2_on_worker += strcmp(s[i].name, "msm_b2") == 0 && l->role == GS_ROLE_GPU_WORKER;
    }
    GS_CHECK_EQ_INT(on_worker, 3);
    GS_CHECK_EQ_INT(on_fin, 0);
    GS_CHECK_EQ_INT(b2_on_worker, 3);   /* the CPU backend's G2 MSM host stage */
done:
    et_free(&r);
}

typedef struct pusher {
    gs_pq *q;
    gs_part *p;
    gs_tl_lane *lane;
    atomic_int started;
} pusher;

static void *push_main(void *arg)
{
    pusher *a = arg;
    int64_t t0, t1;
    atomic_store(&a->started, 1);
    gs_pq_push(a->q, a->p, a->lane, &t0, &t1);
    return NULL;
}

/* A contended queue lock shows as a LOCK_WAIT named after the queue, with
 * the holder's lane. */
GS_TEST(engine_queue_lock_wait_names_holder)
{
    gs_timeline *tl;
    GS_REQUIRE(gs_timeline_create(&tl) == GS_OK);
    gs_tl_lane *holder = gs_tl_lane_open(tl, "holder", GS_ROLE_OTHER, -1, -1);
    gs_tl_lane *waiter = gs_tl_lane_open(tl, "waiter", GS_ROLE_OTHER, -1, -1);
    gs_pq q;
    GS_REQUIRE(gs_pq_init(&q, "gpu_queue", 4, NULL, NULL) == GS_OK);
    gs_job_rec job;
    memset(&job, 0, sizeof job);
    gs_part parts[5];
    memset(parts, 0, sizeof parts);
    int waited = 0;
    /* Each attempt: hold the lock as `holder`, let a pusher block on it. */
    for (int attempt = 0; attempt < 5 && !waited; attempt++) {
        parts[attempt].job = &job;
        parts[attempt].index = (uint32_t)attempt;
        pusher a = {.q = &q, .p = &parts[attempt], .lane = waiter};
        atomic_init(&a.started, 0);
        pthread_mutex_lock(&q.mu);
        atomic_store(&q.holder, gs_tl_lane_id(holder));
        pthread_t th;
        GS_REQUIRE(pthread_create(&th, NULL, push_main, &a) == 0);
        for (int i = 0; i < 1000 && !atomic_load(&a.started); i++)
            gs_sleep_ns(1000000);
        gs_sleep_ns(20000000 * (attempt + 1));
        atomic_store(&q.holder, -1);
        pthread_mutex_unlock(&q.mu);
        pthread_join(th, NULL);
        size_t n;
        const gs_span *s = gs_timeline_spans(tl, &n);
        for (size_t i = 0; i < n; i++)
            if (s[i].kind == GS_SPAN_LOCK_WAIT && strcmp(s[i].name, "gpu_queue") == 0) {
                GS_CHECK_EQ_INT(s[i].holder, gs_tl_lane_id(holder));
                GS_CHECK_EQ_INT(s[i].lane, gs_tl_lane_id(waiter));
                waited = 1;
            }
    }
    GS_CHECK(waited);
    gs_pq_close(&q);
    gs_pq_deinit(&q);
    gs_timeline_destroy(tl);
}
