/*
 * Engine tests: job accounting under concurrent arrivals, partition
 * failures, cancellation and shutdown with work in flight.
 */
#include <pthread.h>
#include <stdlib.h>

#include "../../common/clock.h"
#include "engine_test.h"

typedef struct submitter {
    gs_engine *e;
    int base;               /* ids base .. base + n - 1 */
    int n;
    int failures;
} submitter;

static const gs_job_kind mix[] = {GS_KIND_WINNING_POST, GS_KIND_POREP_C2, GS_KIND_WINDOW_POST,
                                   GS_KIND_SNAP_DEALS};

static uint32_t parts_of(gs_job_kind k)
{
    return k == GS_KIND_POREP_C2 ? 3 : k == GS_KIND_SNAP_DEALS ? 2 : 1;
}

static void *submit_main(void *arg)
{
    submitter *s = arg;
    for (int i = 0; i < s->n; i++) {
        gs_err err;
        gs_err_clear(&err);
        uint64_t id = (uint64_t)(s->base + i);
        gs_job_kind k = mix[id % 4];
        gs_job_spec j = et_job(id, k, parts_of(k));
        if (gs_engine_submit(s->e, &j, &err) != GS_OK)
            s->failures++;
    }
    return NULL;
}

static void arrivals_run(const gs_engine_config *cfgp)
{
    gs_engine_config cfg = *cfgp;
    et_run r;
    enum { THREADS = 3, PER = 4 };
    if (!et_start(&r, &cfg, 0))
        goto done;
    /* Two monolithic jobs queued at once, before the submitters start. */
    et_submit(r.e, GS_KIND_WINNING_POST, 1000, 0);
    et_submit(r.e, GS_KIND_WINNING_POST, 1001, 0);
    pthread_t th[THREADS];
    submitter sub[THREADS];
    for (int t = 0; t < THREADS; t++) {
        sub[t] = (submitter){.e = r.e, .base = 100 * (t + 1), .n = PER};
        GS_REQUIRE(pthread_create(&th[t], NULL, submit_main, &sub[t]) == 0);
    }
    for (int t = 0; t < THREADS; t++) {
        pthread_join(th[t], NULL);
        GS_CHECK_EQ_INT(sub[t].failures, 0);
    }
    GS_CHECK_OK(gs_engine_drain(r.e, ET_DRAIN_NS));
    size_t n;
    const gs_job_result *res = gs_engine_results(r.e, &n);
    GS_CHECK_EQ_INT(n, THREADS * PER + 2);
    uint64_t ids[THREADS * PER + 2];
    int k = 0;
    ids[k++] = 1000;
    ids[k++] = 1001;
    for (int t = 0; t < THREADS; t++)
        for (int i = 0; i < PER; i++)
            ids[k++] = (uint64_t)(100 * (t + 1) + i);
    for (int i = 0; i < k; i++) {
        int count;
        const gs_job_result *x = et_find(res, n, ids[i], &count);
        GS_CHECK_MSG(count == 1, "job %llu published %d times", (unsigned long long)ids[i], count);
        if (!x)
            continue;
        GS_CHECK_MSG(x->status == GS_OK, "job %llu: %s", (unsigned long long)ids[i], x->error);
        GS_CHECK_EQ_INT(x->verified, 1);
        GS_CHECK(x->done_ns >= x->submitted_ns);
        GS_CHECK_EQ_INT(x->partitions, ids[i] >= 1000 ? 1 : parts_of(mix[ids[i] % 4]));
    }
    /* Completed proofs verify against independently rebuilt keys: one job
     * of each kind (the keys differ per kind). */
    for (int kk = 0; kk < 4; kk++) {
        int count;
        const gs_job_result *x = et_find(res, n, (uint64_t)(100 + kk), &count);
        GS_CHECK(x && x->status == GS_OK && et_verify_independent(x));
    }
    /* The monolithic jobs went through as one partition each. */
    {
        int count;
        const gs_job_result *x = et_find(res, n, 1000, &count);
        GS_CHECK(x && x->proof_len == GS_PROOF_BYTES && et_verify_independent(x));
    }
done:
    et_free(&r);
}

GS_TEST(engine_concurrent_arrivals_complete_once_and_verify)
{
    gs_engine_config cfg;
    et_config(&cfg);
    cfg.queue_depth = 3;
    arrivals_run(&cfg);
    if (gs_test_quick())
        return;
    /* The other shapes: two workers, a finalizer pool, work after unlock. */
    et_config(&cfg);
    cfg.queue_depth = 2;
    cfg.gpu_workers_per_device = 2;
    cfg.finalizer_threads = 2;
    cfg.trim = GS_TRIM_AFTER_UNLOCK;
    cfg.verify = GS_VERIFY_AFTER_UNLOCK;
    arrivals_run(&cfg);
}

/* Picks a synth-failure seed for which some of `jobs` x `parts` partitions
 * fail and some jobs are left whole; fills fail[job]. */
static uint64_t pick_seed(gs_injection *in, int jobs, int parts, int *fail)
{
    for (uint64_t seed = 1; seed < 1000; seed++) {
        in->seed = seed;
        int nf = 0;
        for (int j = 0; j < jobs; j++) {
            fail[j] = 0;
            for (int p = 0; p < parts; p++) {
                double d;
                fail[j] |= gs_injection_draw(in, GS_INJ_SYNTH, (uint64_t)(500 + j), p, &d);
            }
            nf += fail[j];
        }
        if (nf >= 1 && nf <= jobs - 2)
            return seed;
    }
    return 0;
}

GS_TEST(engine_partition_failure_fails_only_its_job)
{
    enum { JOBS = 5, PARTS = 3 };
    gs_engine_config cfg;
    et_config(&cfg);
    gs_injection *in = &cfg.inj[GS_INJ_SYNTH];
    in->enabled = 1;
    in->dist.kind = GS_DIST_FIXED;
    in->dist.a = 0.0;
    in->probability = 0.12;
    in->fail = 1;
    int fail[JOBS];
    GS_REQUIRE(pick_seed(in, JOBS, PARTS, fail) != 0);
    et_run r;
    if (!et_start(&r, &cfg, 0))
        goto done;
    for (int j = 0; j < JOBS; j++)
        et_submit(r.e, GS_KIND_POREP_C2, (uint64_t)(500 + j), PARTS);
    GS_CHECK_OK(gs_engine_drain(r.e, ET_DRAIN_NS));
    size_t n;
    const gs_job_result *res = gs_engine_results(r.e, &n);
    GS_CHECK_EQ_INT(n, JOBS);
    for (int j = 0; j < JOBS; j++) {
        int count;
        const gs_job_result *x = et_find(res, n, (uint64_t)(500 + j), &count);
        GS_REQUIRE(x && count == 1);
        if (fail[j]) {
            GS_CHECK_EQ_INT(x->status, GS_ERR_INJECTED);
            GS_CHECK(strstr(x->error, "synth") != NULL);
            GS_CHECK(x->proof == NULL && x->verified == 0);
        } else {
            GS_CHECK_MSG(x->status == GS_OK, "job %d: %s", j, x->error);
            GS_CHECK_EQ_INT(x->verified, 1);
            GS_CHECK(et_verify_independent(x));
        }
    }
done:
    et_free(&r);
}

/* A circuit size that cannot be built fails its jobs with the reason;
 * other sizes go on. */
GS_TEST(engine_bad_size_fails_with_reason)
{
    gs_engine_config cfg;
    et_config(&cfg);
    et_run r;
    if (!et_start(&r, &cfg, 0))
        goto done;
    gs_err err;
    gs_err_clear(&err);
    gs_job_spec bad = et_job(1, GS_KIND_WINDOW_POST, 1);
    bad.log_constraints = 1;
    GS_CHECK_OK(gs_engine_submit(r.e, &bad, &err));
    et_submit(r.e, GS_KIND_WINDOW_POST, 2, 1);
    GS_CHECK_OK(gs_engine_drain(r.e, ET_DRAIN_NS));
    size_t n;
    const gs_job_result *res = gs_engine_results(r.e, &n);
    int c1, c2;
    const gs_job_result *x1 = et_find(res, n, 1, &c1), *x2 = et_find(res, n, 2, &c2);
    GS_REQUIRE(x1 && x2 && c1 == 1 && c2 == 1);
    GS_CHECK(x1->status != GS_OK && x1->error[0] != '\0');
    GS_CHECK(x2->status == GS_OK && x2->verified == 1);
done:
    et_free(&r);
}

GS_TEST(engine_cancel_drains_cleanly)
{
    gs_engine_config cfg;
    et_config(&cfg);
    cfg.synth_threads = 1;
    cfg.queue_depth = 1;
    /* Slow synthesis keeps work queued when cancel comes. */
    cfg.inj[GS_INJ_SYNTH].enabled = 1;
    cfg.inj[GS_INJ_SYNTH].dist.a = 0.02;
    et_run r;
    enum { JOBS = 6 };
    if (!et_start(&r, &cfg, 0))
        goto done;
    for (int j = 0; j < JOBS; j++)
        et_submit(r.e, GS_KIND_POREP_C2, (uint64_t)(j + 1), 4);
    gs_engine_cancel(r.e);
    GS_CHECK_OK(gs_engine_drain(r.e, ET_DRAIN_NS));
    size_t n;
    const gs_job_result *res = gs_engine_results(r.e, &n);
    GS_CHECK_EQ_INT(n, JOBS);
    int cancelled = 0;
    for (int j = 0; j < JOBS; j++) {
        int count;
        const gs_job_result *x = et_find(res, n, (uint64_t)(j + 1), &count);
        GS_REQUIRE(x && count == 1);
        GS_CHECK(x->status == GS_OK || x->status == GS_ERR_CANCELLED);
        if (x->status == GS_ERR_CANCELLED) {
            cancelled++;
            GS_CHECK(strstr(x->error, "cancel") != NULL);
        } else {
            GS_CHECK_EQ_INT(x->verified, 1);
        }
    }
    GS_CHECK(cancelled >= JOBS - 1);
    /* The engine still works after a cancel. */
    et_submit(r.e, GS_KIND_WINNING_POST, 99, 1);
    GS_CHECK_OK(gs_engine_drain(r.e, ET_DRAIN_NS));
    res = gs_engine_results(r.e, &n);
    int count;
    const gs_job_result *x = et_find(res, n, 99, &count);
    GS_CHECK(x && count == 1 && x->status == GS_OK && x->verified == 1);
done:
    et_free(&r);
}

/* Destroys the engine with work still there: cancelled work is dropped,
 * not proved, so destroy is quick. */
static void stop_quickly(et_run *r)
{
    int64_t t0 = gs_now_ns();
    et_stop(r);
    GS_CHECK(gs_now_ns() - t0 < 30LL * 1000000000LL);
}

/* Destroy with work queued and in flight: returns, frees everything
 * (valgrind-clean), and a drain with a short timeout reports it. */
GS_TEST(engine_destroy_with_work_in_flight)
{
    gs_engine_config cfg;
    et_config(&cfg);
    cfg.queue_depth = 2;
    cfg.finalizer_threads = 1;
    cfg.trim = GS_TRIM_BACKGROUND;
    cfg.inj[GS_INJ_SYNTH].enabled = 1;
    cfg.inj[GS_INJ_SYNTH].dist.a = 0.01;
    et_run r;
    if (!et_start(&r, &cfg, 0))
        goto done;
    for (int j = 0; j < 4; j++)
        et_submit(r.e, GS_KIND_SNAP_DEALS, (uint64_t)(j + 1), 4);
    /* Not everything can be done within 1 ms. */
    GS_CHECK_EQ_INT(gs_engine_drain(r.e, 1000000), GS_ERR_STATE);
    stop_quickly(&r);
done:
    et_free(&r);
}

/* staging = direct with the CPU backend: synthesis writes into reused heap
 * buffers from the engine's pool (engine.pin_pool; page-locked with CUDA,
 * test_engine_cuda.c).  The first partition fills the pool (one `pin` span
 * of 3 buffers), the others reuse them or wait (pin_wait), a job of another
 * size replaces free buffers one at a time; proofs verify. */
GS_TEST(engine_direct_pool_fills_once_and_reuses)
{
    gs_engine_config cfg;
    et_config(&cfg);
    cfg.direct = 1;
    cfg.synth_threads = 2;
    cfg.queue_depth = 1;
    cfg.pin_pool = 3;
    et_run r;
    if (!et_start(&r, &cfg, 0))
        goto done;
    et_direct_pool_jobs(r.e);
    et_stop(&r);
    et_direct_pool_spans(r.tl, 0);
done:
    et_free(&r);
}

/* A pool of one buffer and three synthesis threads: two of them wait for
 * it (pin_wait) when destroy cancels the job; destroy wakes them and
 * returns. */
GS_TEST(engine_direct_pool_destroy_wakes_waiters)
{
    gs_engine_config cfg;
    et_config(&cfg);
    cfg.direct = 1;
    cfg.synth_threads = 3;
    cfg.pin_pool = 1;
    cfg.inj[GS_INJ_SYNTH].enabled = 1;
    cfg.inj[GS_INJ_SYNTH].dist.a = 0.05;   /* each synthesis holds the buffer 50 ms */
    et_run r;
    if (!et_start(&r, &cfg, 0))
        goto done;
    /* The key and the pool first, then 8 partitions for one buffer. */
    et_submit(r.e, GS_KIND_POREP_C2, 1, 1);
    GS_CHECK_OK(gs_engine_drain(r.e, ET_DRAIN_NS));
    et_submit(r.e, GS_KIND_POREP_C2, 2, 8);
    GS_CHECK_EQ_INT(gs_engine_drain(r.e, 150000000), GS_ERR_STATE);
    stop_quickly(&r);
    size_t n;
    const gs_span *s = gs_timeline_spans(r.tl, &n);
    int waits = 0;
    for (size_t i = 0; i < n; i++)
        waits += strcmp(s[i].name, "pin_wait") == 0;
    GS_CHECK_MSG(waits >= 1, "%d pin_wait spans", waits);
done:
    et_free(&r);
}

/* Bad configurations are refused with a reason naming the setting; the
 * engine keeps its own copy of empirical samples. */
GS_TEST(engine_config_rejected_with_reason)
{
    gs_err err;
    gs_backend *be = NULL;
    gs_engine *e = NULL;
    gs_err_clear(&err);
    GS_REQUIRE(gs_backend_cpu_create(&be, 1, &err) == GS_OK);
    gs_engine_config cfg;
    et_config(&cfg);
    cfg.queue_depth = 0;
    GS_CHECK_EQ_INT(gs_engine_create(&e, &cfg, &be, 1, NULL, &err), GS_ERR_RANGE);
    GS_CHECK(e == NULL && strstr(err.msg, "queue_depth") != NULL);
    et_config(&cfg);
    cfg.inj[GS_INJ_DEALLOC].enabled = 1;
    cfg.inj[GS_INJ_DEALLOC].dist.kind = GS_DIST_EMPIRICAL;
    gs_err_clear(&err);
    GS_CHECK_EQ_INT(gs_engine_create(&e, &cfg, &be, 1, NULL, &err), GS_ERR_ARG);
    GS_CHECK(strstr(err.msg, "dealloc") != NULL);
    et_config(&cfg);
    cfg.inj[GS_INJ_VERIFY].enabled = 1;
    cfg.inj[GS_INJ_VERIFY].probability = 1.5;
    gs_err_clear(&err);
    GS_CHECK_EQ_INT(gs_engine_create(&e, &cfg, &be, 1, NULL, &err), GS_ERR_RANGE);
    gs_err_clear(&err);
    GS_CHECK_EQ_INT(gs_engine_create(&e, &cfg, NULL, 0, NULL, &err), GS_ERR_ARG);
    /* staging = direct: not with pageable, a pool of 0..4096. */
    et_config(&cfg);
    cfg.direct = 1;
    cfg.pageable = 1;
    gs_err_clear(&err);
    GS_CHECK_EQ_INT(gs_engine_create(&e, &cfg, &be, 1, NULL, &err), GS_ERR_ARG);
    GS_CHECK(e == NULL && strstr(err.msg, "direct") != NULL && strstr(err.msg, "pageable") != NULL);
    cfg.pageable = 0;
    cfg.pin_pool = -1;
    gs_err_clear(&err);
    GS_CHECK_EQ_INT(gs_engine_create(&e, &cfg, &be, 1, NULL, &err), GS_ERR_RANGE);
    GS_CHECK(e == NULL && strstr(err.msg, "pin_pool") != NULL);
    /* Empirical samples: the caller's array may go away after create. */
    et_config(&cfg);
    double *samples = malloc(2 * sizeof *samples);
    GS_REQUIRE(samples);
    samples[0] = 0.001;
    samples[1] = 0.002;
    cfg.inj[GS_INJ_HANDOFF] = (gs_injection){.enabled = 1, .probability = 1.0, .seed = 9,
                                             .dist = {GS_DIST_EMPIRICAL, 0, 0, samples, 2}};
    gs_err_clear(&err);
    GS_CHECK_OK(gs_engine_create(&e, &cfg, &be, 1, NULL, &err));
    free(samples);
    if (e) {
        et_submit(e, GS_KIND_WINDOW_POST, 3, 1);
        GS_CHECK_OK(gs_engine_drain(e, ET_DRAIN_NS));
        size_t n;
        const gs_job_result *r = gs_engine_results(e, &n);
        GS_CHECK(n == 1 && r[0].status == GS_OK && r[0].verified == 1);
        gs_engine_destroy(e);
    }
    /* Unknown names. */
    gs_job_kind k;
    gs_inj_point p;
    GS_CHECK(gs_job_kind_from_name(&k, "porep_c2") && k == GS_KIND_POREP_C2);
    GS_CHECK(!gs_job_kind_from_name(&k, "porep"));
    GS_CHECK(gs_inj_point_from_name(&p, "tracker_hold") && p == GS_INJ_TRACKER_HOLD);
    GS_CHECK(!gs_inj_point_from_name(&p, "nope"));
    GS_CHECK(gs_job_kind_partitions(GS_KIND_SNAP_DEALS) == 16 && gs_job_kind_partitions(GS_KIND_POREP_C2) == 10);
    be->ops->destroy(be);
}
