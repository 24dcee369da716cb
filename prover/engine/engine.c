/*
 * The engine object: creation (queues, tracker, key cache, lanes and
 * threads), job submission, drain, cancel and destruction.
 *
 * Threads started here: synth/<i> (synth.c), gpu_worker/<dev>.<i>
 * (worker.c), finalizer/<i> when pooled (finalizer.c), background/trim
 * with trim = background.  The caller's threads run submit, drain and
 * cancel; any number of them may submit at once.
 *
 * Submission takes the tracker lock once to give the job its sequence
 * number (the second key of every queue's order) and to count it, marks
 * `job_queued` on the engine's driver lane ("driver/engine"; the caller's
 * own driver lane marks `submit`), and queues its partitions for synthesis;
 * it never blocks on proving.  Cancel bumps the engine's epoch: every
 * partition of a job submitted before it that has not reached mark_busy
 * is dropped with GS_ERR_CANCELLED (queued ones at once, others when a
 * thread next looks at them); running partitions finish.  Destroy cancels,
 * then closes the queues stage by stage (synthesis, GPU, finalizers) and
 * joins every thread, so every job is published before memory is freed.
 *
 * Lock order: see engine_int.h.  The driver lane is written under drv_mu.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../common/clock.h"
#include "engine_int.h"

void gs_drv_counter(struct gs_engine *e, const char *name, int64_t t, double v)
{
    if (!e->drv_lane)
        return;
    pthread_mutex_lock(&e->drv_mu);
    gs_tl_counter(e->drv_lane, name, t, v);
    pthread_mutex_unlock(&e->drv_mu);
}

static void gpu_depth(struct gs_engine *e, int64_t t, size_t depth)
{
    gs_drv_counter(e, gs_vocab_name(GS_V_GPU_QUEUE_DEPTH), t, (double)depth);
}

static gs_status start_thread(gs_worker *w, void *(*fn)(void *), gs_err *err)
{
    gs_vt_spawn();
    if (pthread_create(&w->th, NULL, fn, w) != 0) {
        gs_vt_spawn_failed();
        return GS_ERR(err, GS_ERR_INTERNAL, "engine", "cannot start a thread");
    }
    w->started = 1;
    return GS_OK;
}

static gs_tl_lane *lane(struct gs_engine *e, const char *name, gs_role role, int dev)
{
    return e->tl ? gs_tl_lane_open(e->tl, name, role, dev, -1) : NULL;
}

gs_status gs_engine_create(gs_engine **out, const gs_engine_config *cfg,
                           gs_backend **backends, int n_devices,
                           gs_timeline *tl, gs_err *err)
{
    char name[48];
    *out = NULL;
    gs_status s = gs_engine_config_check(cfg, backends, n_devices, err);
    if (s != GS_OK)
        return s;
    gs_engine *e = calloc(1, sizeof *e);
    if (!e)
        return GS_ERR(err, GS_ERR_NOMEM, "engine", "no memory for the engine");
    e->cfg = *cfg;
    if ((s = gs_engine_config_copy_samples(&e->cfg, err)) != GS_OK) {
        free(e);
        return s;
    }
    e->be = backends;
    e->n_dev = n_devices;
    /* The staging pool's buffers: the backend's own host memory when it has
     * some (page-locked with the CUDA backend), heap buffers otherwise. */
    const gs_backend_caps *caps = n_devices > 0 ? &backends[0]->ops->caps : NULL;
    e->pool_locked = caps && caps->assignment_alloc && caps->assignment_free;
    e->pool_alloc = e->pool_locked ? caps->assignment_alloc : gs_assignment_alloc;
    e->pool_free = e->pool_locked ? caps->assignment_free : gs_assignment_free;
    e->tl = tl;
    pthread_mutex_init(&e->drv_mu, NULL);
    pthread_mutex_init(&e->fin_mu, NULL);
    pthread_cond_init(&e->fin_cv, NULL);
    pthread_mutex_init(&e->bg_mu, NULL);
    pthread_cond_init(&e->bg_cv, NULL);
    pthread_mutex_init(&e->pin_mu, NULL);
    pthread_cond_init(&e->pin_cv, NULL);
    atomic_init(&e->epoch, 1);
    atomic_init(&e->stopping, 0);
    atomic_init(&e->synth_busy, 0);
    gs_keys_init(&e->keys, backends, n_devices);
    e->keys.h_conv = cfg->h_conv;
    e->keys.work = cfg->work;
    if (gs_tracker_init(&e->tr) != GS_OK ||
        gs_pq_init(&e->synth_q, "synth_queue", 0, e, NULL) != GS_OK ||
        gs_pq_init(&e->gpu_q, "gpu_queue", (size_t)cfg->queue_depth, e, gpu_depth) != GS_OK ||
        gs_pq_init(&e->fin_q, "fin_queue", 0, e, NULL) != GS_OK) {
        s = GS_ERR(err, GS_ERR_NOMEM, "engine", "no memory for queues");
        goto fail;
    }
    e->dl = calloc((size_t)n_devices, sizeof *e->dl);
    e->synth = calloc((size_t)cfg->synth_threads, sizeof *e->synth);
    e->workers = calloc((size_t)(n_devices * cfg->gpu_workers_per_device), sizeof *e->workers);
    e->fin_pool = cfg->finalizer_threads
        ? calloc((size_t)cfg->finalizer_threads, sizeof *e->fin_pool) : NULL;
    if (!e->dl || !e->synth || !e->workers || (cfg->finalizer_threads && !e->fin_pool)) {
        s = GS_ERR(err, GS_ERR_NOMEM, "engine", "no memory for threads");
        goto fail;
    }
    if (cfg->direct) {
        /* The pool's size (gs_engine_config.pin_pool) and its free list. */
        e->pin_cap = cfg->pin_pool > 0 ? cfg->pin_pool
                                       : cfg->synth_threads + 2 * cfg->gpu_workers_per_device * n_devices + 2;
        e->pin_free = calloc((size_t)e->pin_cap, sizeof *e->pin_free);
        if (!e->pin_free) {
            s = GS_ERR(err, GS_ERR_NOMEM, "engine", "no memory for a pool of %d buffers", e->pin_cap);
            goto fail;
        }
    }
    for (int d = 0; d < n_devices; d++) {
        pthread_mutex_init(&e->dl[d].mu, NULL);
        snprintf(e->dl[d].prefix, sizeof e->dl[d].prefix, "%s",
                 backends[d]->ops->caps.kind == GS_BE_KIND_HOST ? "cpu" : "gpu");
    }
    const gs_injection *trim = &cfg->inj[GS_INJ_MALLOC_TRIM];
    if (trim->enabled && trim->real && trim->frag_bytes > 0 && !cfg->work) {
        s = gs_heapfrag_init(&e->frag, trim->frag_bytes, trim->seed, err);
        if (s != GS_OK)
            goto fail;
        e->frag_on = 1;
    }

    gs_engine_write_meta(&e->cfg, backends, n_devices, tl);
    if (tl) {
        e->drv_lane = gs_tl_lane_open(tl, "driver/engine", GS_ROLE_DRIVER, -1, -1);
        gs_drv_counter(e, gs_vocab_name(GS_V_GPU_QUEUE_DEPTH), gs_now_ns(), 0);
        gs_drv_counter(e, gs_vocab_name(GS_V_SYNTH_BUSY), gs_now_ns(), 0);
    }

    for (int i = 0; i < cfg->synth_threads; i++) {
        gs_worker *w = &e->synth[i];
        w->e = e;
        w->dev = -1;
        w->idx = i;
        snprintf(name, sizeof name, "synth/%d", i);
        w->lane = lane(e, name, GS_ROLE_SYNTH, -1);
        e->n_synth = i + 1;
        if ((s = start_thread(w, gs_synth_main, err)) != GS_OK)
            goto fail;
    }
    for (int d = 0; d < n_devices; d++)
        for (int i = 0; i < cfg->gpu_workers_per_device; i++) {
            gs_worker *w = &e->workers[e->n_workers];
            w->e = e;
            w->dev = d;
            w->idx = i;
            snprintf(name, sizeof name, "gpu_worker/%d.%d", d, i);
            w->lane = lane(e, name, GS_ROLE_GPU_WORKER, d);
            e->n_workers++;
            if ((s = start_thread(w, gs_worker_main, err)) != GS_OK)
                goto fail;
        }
    for (int i = 0; i < cfg->finalizer_threads; i++) {
        gs_worker *w = &e->fin_pool[i];
        w->e = e;
        w->dev = -1;
        w->idx = i;
        snprintf(name, sizeof name, "finalizer/%d", i);
        w->lane = lane(e, name, GS_ROLE_FINALIZER, n_devices == 1 ? 0 : -1);
        e->n_fin_pool = i + 1;
        if ((s = start_thread(w, gs_fin_pool_main, err)) != GS_OK)
            goto fail;
    }
    if (cfg->trim == GS_TRIM_BACKGROUND) {
        e->bg_lane = lane(e, "background/trim", GS_ROLE_BACKGROUND, -1);
        gs_vt_spawn();
        if (pthread_create(&e->bg_th, NULL, gs_bg_trim_main, e) != 0) {
            gs_vt_spawn_failed();
            s = GS_ERR(err, GS_ERR_INTERNAL, "engine", "cannot start the trim thread");
            goto fail;
        }
        e->bg_started = 1;
    }
    *out = e;
    return GS_OK;
fail:
    gs_engine_destroy(e);
    return s;
}

gs_status gs_engine_submit(gs_engine *e, const gs_job_spec *job, gs_err *err)
{
    if (!e || !job || (unsigned)job->kind >= GS_KIND_COUNT)
        return GS_ERR(err, GS_ERR_ARG, "submit", "bad job (kind %d)", job ? (int)job->kind : -1);
    if (atomic_load(&e->stopping))
        return GS_ERR(err, GS_ERR_STATE, "submit", "engine is shutting down");
    gs_job_rec *j = calloc(1, sizeof *j);
    if (!j)
        return GS_ERR(err, GS_ERR_NOMEM, "submit", "no memory for job %llu",
                      (unsigned long long)job->id);
    j->spec = *job;
    if (!j->spec.partitions)
        j->spec.partitions = gs_job_kind_partitions(job->kind);
    if (!j->spec.log_constraints)
        j->spec.log_constraints = 10;
    if (j->spec.partitions > 4096) {
        free(j);
        return GS_ERR(err, GS_ERR_RANGE, "submit", "job %llu: %u partitions (at most 4096)",
                      (unsigned long long)job->id, job->partitions);
    }
    uint32_t n = j->spec.partitions;
    j->proofs = calloc(n, sizeof *j->proofs);
    j->have = calloc(n, 1);
    gs_part **parts = calloc(n, sizeof *parts);
    int ok = j->proofs && j->have && parts;
    for (uint32_t i = 0; ok && i < n; i++)
        ok = (parts[i] = calloc(1, sizeof **parts)) != NULL;
    if (!ok) {
        for (uint32_t i = 0; parts && i < n; i++)
            free(parts[i]);
        free(parts);
        free(j->proofs);
        free(j->have);
        free(j);
        return GS_ERR(err, GS_ERR_NOMEM, "submit", "no memory for job %llu",
                      (unsigned long long)job->id);
    }
    atomic_init(&j->failed, 0);
    j->epoch = atomic_load(&e->epoch);
    j->submitted_ns = gs_now_ns();

    gs_tracker_lock(&e->tr, NULL, gs_jid(j), -1);
    j->seq = e->tr.next_seq++;
    j->next = e->tr.jobs;
    e->tr.jobs = j;
    e->tr.submitted++;
    gs_tracker_unlock(&e->tr, NULL, gs_jid(j), -1, gs_vocab_name(GS_V_SUBMIT));

    if (e->drv_lane) {
        char args[96];
        snprintf(args, sizeof args, "kind=%s;partitions=%u;priority=%d;log_constraints=%u",
                 gs_job_kind_name(j->spec.kind), n, j->spec.priority, j->spec.log_constraints);
        pthread_mutex_lock(&e->drv_mu);
        gs_tl_span(e->drv_lane, GS_SPAN_MARK, gs_vocab_name(GS_V_JOB_QUEUED), gs_jid(j), -1, j->submitted_ns,
                   j->submitted_ns, 0, args);
        pthread_mutex_unlock(&e->drv_mu);
    }
    for (uint32_t i = 0; i < n; i++) {
        gs_part *p = parts[i];
        int64_t t0, t1;
        p->job = j;
        p->index = i;
        p->prio = j->spec.priority;
        p->seq = j->seq;
        p->dev = 0;
        if (!gs_pq_push(&e->synth_q, p, NULL, &t0, &t1))
            gs_part_drop(e, p, NULL, GS_ERR_CANCELLED, "engine shut down before synthesis");
    }
    free(parts);
    return GS_OK;
}

/* Drain under a virtual clock: waiting on done_cv would re-take the
 * tracker mutex outside the clock's accounting, so poll it every
 * GS_ENG_VT_POLL_NS of virtual time instead (an idle poll: a run where
 * nothing else can happen is reported stalled). */
#define GS_ENG_VT_POLL_NS 2000000
static gs_status drain_virtual(gs_engine *e, int64_t deadline)
{
    for (;;) {
        gs_vt_mutex_lock(&e->tr.mu);
        int done = e->tr.published >= e->tr.submitted;
        gs_vt_mutex_unlock(&e->tr.mu);
        if (done)
            return GS_OK;
        if ((deadline && gs_now_ns() >= deadline) || gs_vt_stalled() || !gs_vt_on())
            return GS_ERR_STATE;
        gs_vt_sleep_idle(GS_ENG_VT_POLL_NS);
    }
}

gs_status gs_engine_drain(gs_engine *e, int64_t timeout_ns)
{
    int64_t deadline = timeout_ns > 0 ? gs_now_ns() + timeout_ns : 0;
    gs_status s = GS_OK;
    if (gs_vt_on() && gs_vt_participant())
        return drain_virtual(e, deadline);
    pthread_mutex_lock(&e->tr.mu);
    while (e->tr.published < e->tr.submitted) {
        if (!deadline) {
            pthread_cond_wait(&e->tr.done_cv, &e->tr.mu);
            continue;
        }
        int64_t left = deadline - gs_now_ns();
        if (left <= 0) {
            s = GS_ERR_STATE;
            break;
        }
        /* done_cv uses CLOCK_REALTIME: wait at most 50 ms at a time and
         * re-check the monotonic deadline, so clock jumps cannot hang us. */
        if (left > 50000000)
            left = 50000000;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += left % 1000000000;
        ts.tv_sec += left / 1000000000 + ts.tv_nsec / 1000000000;
        ts.tv_nsec %= 1000000000;
        pthread_cond_timedwait(&e->tr.done_cv, &e->tr.mu, &ts);
    }
    pthread_mutex_unlock(&e->tr.mu);
    return s;
}

static void drop_all(struct gs_engine *e, gs_pq *q, uint64_t epoch, const char *msg)
{
    gs_part **taken;
    size_t n = gs_pq_take_cancelled(q, epoch, &taken);
    for (size_t i = 0; i < n; i++)
        gs_part_drop(e, taken[i], NULL, GS_ERR_CANCELLED, msg);
    free(taken);
}

void gs_engine_cancel(gs_engine *e)
{
    if (!e)
        return;
    uint64_t epoch = atomic_fetch_add(&e->epoch, 1) + 1;
    drop_all(e, &e->synth_q, epoch, "cancelled before synthesis");
    drop_all(e, &e->gpu_q, epoch, "cancelled before proving");
}

gs_status gs_engine_cancel_job(gs_engine *e, uint64_t id, const char *why, gs_err *err)
{
    gs_job_rec *j;
    int live = 0;
    gs_tracker_lock(&e->tr, NULL, -1, -1);
    /* Newest first: a job being cancelled is usually a recent one. */
    for (j = e->tr.jobs; j && j->spec.id != id; j = j->next)
        ;
    if (j) {
        /* Published once every partition settled and no verify is running. */
        live = j->settled < j->spec.partitions || j->finishing;
        if (live && !atomic_load(&j->failed)) {
            char msg[160];
            snprintf(msg, sizeof msg, "cancelled: %s", why && *why ? why : "by the caller");
            gs_tracker_fail_locked(e, j, GS_ERR_CANCELLED, msg);
        }
    }
    gs_tracker_unlock(&e->tr, NULL, -1, -1, "cancel");
    if (e->drv_lane) {
        int64_t t = gs_now_ns();
        pthread_mutex_lock(&e->drv_mu);
        gs_tl_span(e->drv_lane, GS_SPAN_MARK, gs_vocab_name(GS_V_JOB_CANCEL), (int32_t)id, -1, t, t, 0,
                   live ? "in_flight=1" : "in_flight=0");
        pthread_mutex_unlock(&e->drv_mu);
    }
    if (!live)
        return GS_ERR(err, GS_ERR_STATE, "cancel", "job %llu is not in flight (%s)",
                      (unsigned long long)id, j ? "already finished" : "unknown id");
    return GS_OK;
}

const gs_job_result *gs_engine_results(gs_engine *e, size_t *n)
{
    gs_vt_mutex_lock(&e->tr.mu);
    const gs_job_result *r = e->tr.results;
    *n = e->tr.n_results;
    gs_vt_mutex_unlock(&e->tr.mu);
    return r;
}

static void join_all(gs_worker *w, int n)
{
    for (int i = 0; i < n; i++)
        if (w[i].started)
            pthread_join(w[i].th, NULL);
}

void gs_engine_destroy(gs_engine *e)
{
    if (!e)
        return;
    atomic_store(&e->stopping, 1);
    pthread_mutex_lock(&e->pin_mu);       /* synthesis waiting for a buffer */
    gs_vt_cond_broadcast(&e->pin_cv);
    pthread_mutex_unlock(&e->pin_mu);
    if (e->synth_q.heap && e->gpu_q.heap)
        gs_engine_cancel(e);
    /* Stage by stage: nothing can feed a stage once its producers are joined. */
    if (e->synth_q.heap)
        gs_pq_close(&e->synth_q);
    if (e->synth)
        join_all(e->synth, e->n_synth);
    if (e->gpu_q.heap)
        gs_pq_close(&e->gpu_q);
    if (e->workers)
        join_all(e->workers, e->n_workers);
    if (e->fin_q.heap)
        gs_pq_close(&e->fin_q);
    if (e->fin_pool)
        join_all(e->fin_pool, e->n_fin_pool);
    pthread_mutex_lock(&e->fin_mu);
    while (e->fin_live > 0)
        pthread_cond_wait(&e->fin_cv, &e->fin_mu);
    pthread_mutex_unlock(&e->fin_mu);
    gs_fin_reap(e);
    if (e->bg_started) {
        pthread_mutex_lock(&e->bg_mu);
        e->bg_stop = 1;
        pthread_cond_signal(&e->bg_cv);
        pthread_mutex_unlock(&e->bg_mu);
        pthread_join(e->bg_th, NULL);
    }
    gs_pq_deinit(&e->synth_q);
    gs_pq_deinit(&e->gpu_q);
    gs_pq_deinit(&e->fin_q);
    gs_pin_pool_drain(e);
    if (e->frag_on)
        gs_heapfrag_deinit(&e->frag);
    gs_keys_deinit(&e->keys);
    gs_tracker_deinit(&e->tr);
    if (e->dl)
        for (int d = 0; d < e->n_dev; d++)
            pthread_mutex_destroy(&e->dl[d].mu);
    free(e->dl);
    free(e->synth);
    free(e->workers);
    free(e->fin_pool);
    free(e->fin_free);
    for (int i = 0; i < GS_INJ_COUNT; i++)
        free(e->cfg.inj[i].dist.samples);
    pthread_cond_destroy(&e->bg_cv);
    pthread_mutex_destroy(&e->bg_mu);
    pthread_cond_destroy(&e->pin_cv);
    pthread_mutex_destroy(&e->pin_mu);
    pthread_cond_destroy(&e->fin_cv);
    pthread_mutex_destroy(&e->fin_mu);
    pthread_mutex_destroy(&e->drv_mu);
    free(e);
}
