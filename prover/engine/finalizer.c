/*
 * Finalizers: the second half of every partition, and the tracker's main
 * customer.
 *
 * Threads.  With cfg.finalizer_threads = 0 (production's shape) the GPU
 * worker spawns one thread per proved partition (the spawn is the
 * `handoff` cost); finished threads are joined by later hand-offs and at
 * destroy, and their lanes ("finalizer/<i>") are recycled so a lane never
 * has two writers.  With N > 0 a fixed pool of N threads pops fin_q.
 * With trim = background one more thread ("background/trim") runs
 * malloc_trim(0) whenever finalizers ask for it (requests coalesce).
 *
 * Per partition, in production's order:
 *   prove_finish    the CPU G2 MSM and epilogue (backend; already done by
 *                   the GPU worker when cfg.finish_in_worker)
 *   buffer_release  copy the public inputs, free w, a, b, c (+ dealloc
 *                   injection; real malloc_trim mode frees the partition's
 *                   working set here, inj:malloc_trim phase=release, and
 *                   churns the fragmented heap, phase=fragment)
 *   tracker lock    LOCK_WAIT (holder recorded), then under LOCK_HOLD:
 *     process_result  store the partition proof (or the failure)
 *     inj:tracker_hold
 *     malloc_trim     (policy under_lock)
 *     assemble        on the last partition: the job's proof bytes
 *     verify          (policy under_lock) every partition proof
 *   then malloc_trim / verify when the policy is after_unlock; a verify
 *   after unlock publishes the job under the lock again ("publish").
 *
 * Lock order: tracker.mu -> bg.mu (the background request); fin.mu is a leaf.
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/pool.h"
#include "../../common/clock.h"
#include "engine_int.h"

void gs_trim_step(struct gs_engine *e, gs_tl_lane *lane, const gs_job_rec *j, int32_t part)
{
    gs_err err;
    gs_err_clear(&err);
    const gs_injection *in = &e->cfg.inj[GS_INJ_MALLOC_TRIM];
    int64_t t0 = gs_now_ns(), c0 = gs_task_cpu_ns();
    int released = 0;
    if (e->cfg.work) {
        (void)e->cfg.work->run(e->cfg.work, GS_WORK_MALLOC_TRIM, j ? &j->spec : NULL, part,
                               &err);
    } else {
        released = malloc_trim(0);
    }
    if (!in->real)
        (void)gs_inject(e, GS_INJ_MALLOC_TRIM, lane, j, part, "mode=synthetic", &err);
    char args[64];
    snprintf(args, sizeof args, "released=%d;heap=%s", released,
             e->frag_on ? "fragmented" : "process");
    gs_tl_span_cpu(lane, GS_SPAN_STEP, gs_vocab_name(GS_V_MALLOC_TRIM), j ? gs_jid(j) : -1, part,
                   t0, gs_now_ns(),
                   0, args, gs_task_cpu_ns() - c0);
}

static void real_trim_churn(struct gs_engine *e, gs_tl_lane *lane, const gs_part *p)
{
    const gs_injection *in = &e->cfg.inj[GS_INJ_MALLOC_TRIM];
    double unused;
    if (!e->frag_on || e->cfg.trim == GS_TRIM_OFF ||
        !gs_injection_draw(in, GS_INJ_MALLOC_TRIM, p->job->spec.id, (int32_t)p->index, &unused))
        return;
    int64_t t0 = gs_now_ns();
    uint64_t freed = gs_heapfrag_churn(&e->frag);
    if (freed == UINT64_MAX)
        return;
    char args[128];
    snprintf(args, sizeof args, "mode=real;phase=fragment;frag_bytes=%llu;freed=%llu",
             (unsigned long long)e->frag.bytes, (unsigned long long)freed);
    gs_tl_span(lane, GS_SPAN_INJECTED, "inj:malloc_trim", gs_jid(p->job), (int32_t)p->index,
               t0, gs_now_ns(), GS_SPAN_F_INJECTED, args);
}

void gs_part_finish(struct gs_engine *e, gs_part *p, gs_tl_lane *lane)
{
    gs_backend *be = e->be[p->dev];
    gs_stage_list sl;
    sl.n = 0;
    gs_err_clear(&p->finish_err);
    int64_t t0 = gs_now_ns(), c0 = gs_task_cpu_ns();
    gs_pool_peak_reset();
    p->finish_status = be->ops->prove_finish(be, p->st, &p->proof, &sl, &p->finish_err);
    p->st = NULL;
    p->finished = 1;
    char args[48];
    snprintf(args, sizeof args, "pool_peak=%u", gs_pool_peak_helpers() + 1);
    gs_tl_span_cpu(lane, GS_SPAN_STEP, gs_vocab_name(GS_V_PROVE_FINISH), gs_jid(p->job),
                   (int32_t)p->index, t0,
                   gs_now_ns(), p->finish_status == GS_OK ? 0 : GS_SPAN_F_FAILED, args,
                   gs_task_cpu_ns() - c0);
    gs_emit_stages(e, p->dev, lane, p, &sl);
}

/* Verify step of job j (span "verify" with the verify injection nested). */
static gs_status verify_step(struct gs_engine *e, gs_tl_lane *lane, gs_job_rec *j, gs_err *err)
{
    int64_t t0 = gs_now_ns(), c0 = gs_task_cpu_ns();
    gs_status s = e->cfg.work ? e->cfg.work->run(e->cfg.work, GS_WORK_VERIFY, &j->spec, -1, err)
                              : gs_job_verify(j, err);
    if (s == GS_OK)
        s = gs_inject(e, GS_INJ_VERIFY, lane, j, -1, NULL, err);
    gs_tl_span_cpu(lane, GS_SPAN_STEP, gs_vocab_name(GS_V_VERIFY), gs_jid(j), -1, t0, gs_now_ns(),
                   s == GS_OK ? 0 : GS_SPAN_F_FAILED, s == GS_OK ? "ok=1" : "ok=0",
                   gs_task_cpu_ns() - c0);
    j->verified = s == GS_OK ? 1 : (s == GS_ERR_VERIFY ? -1 : 0);
    if (e->cfg.work && s == GS_OK)
        j->verified = 0; /* modelled: nothing was checked */
    return s;
}

/* Caller holds tracker.mu.  Stores p's proof and public inputs in its job. */
static gs_status store_result(gs_job_rec *j, gs_part *p, gs_err *err)
{
    uint32_t np = p->n_pub;
    if (!j->publics) {
        j->publics = calloc((size_t)j->spec.partitions * (np ? np : 1), sizeof *j->publics);
        if (!j->publics)
            return GS_ERR(err, GS_ERR_NOMEM, "tracker", "no memory for public inputs");
    }
    j->key = p->key;
    j->proofs[p->index] = p->proof;
    if (np)
        memcpy(j->publics + (size_t)p->index * np, p->pub, np * sizeof *p->pub);
    if (!j->have[p->index]) {
        j->have[p->index] = 1;
        j->stored++;
    }
    return GS_OK;
}

static void finalize(struct gs_engine *e, gs_part *p, gs_tl_lane *lane)
{
    gs_job_rec *j = p->job;
    int32_t jid = gs_jid(j), part = (int32_t)p->index;
    gs_err err;
    gs_err_clear(&err);

    if (!p->finished)
        gs_part_finish(e, p, lane);
    gs_status s = p->finish_status;
    if (s != GS_OK)
        err = p->finish_err;

    int64_t t0 = gs_now_ns(), c0 = gs_task_cpu_ns();
    if (p->has_as) {
        p->n_pub = p->key->n_public;
        p->pub = malloc((p->n_pub ? p->n_pub : 1) * sizeof *p->pub);
        if (!p->pub) {
            if (s == GS_OK)
                s = GS_ERR(&err, GS_ERR_NOMEM, "finalizer", "no memory for public inputs");
        } else if (p->n_pub) {
            memcpy(p->pub, p->as.w + 1, p->n_pub * sizeof *p->pub);
        }
        gs_part_release_as(e, p);
    }
    if (p->ws.n) {
        int64_t w0 = gs_now_ns();
        uint64_t freed = gs_workset_free(&p->ws);
        char args[96];
        snprintf(args, sizeof args, "mode=real;phase=release;freed=%llu", (unsigned long long)freed);
        gs_tl_span(lane, GS_SPAN_INJECTED, "inj:malloc_trim", jid, part, w0, gs_now_ns(),
                   GS_SPAN_F_INJECTED, args);
    }
    if (e->cfg.work && s == GS_OK)
        s = e->cfg.work->run(e->cfg.work, GS_WORK_BUFFER_RELEASE, &j->spec, part, &err);
    gs_status si = gs_inject(e, GS_INJ_DEALLOC, lane, j, part, NULL, &err);
    if (s == GS_OK)
        s = si;
    gs_tl_span_cpu(lane, GS_SPAN_STEP, gs_vocab_name(GS_V_BUFFER_RELEASE), jid, part, t0,
                   gs_now_ns(), 0, NULL,
                   gs_task_cpu_ns() - c0);
    real_trim_churn(e, lane, p);

    int finishing = 0;
    gs_tracker_lock(&e->tr, lane, jid, part);
    t0 = gs_now_ns();
    c0 = gs_task_cpu_ns();
    if (s == GS_OK && !atomic_load(&j->failed))
        s = store_result(j, p, &err);
    if (s == GS_OK && e->cfg.work)
        s = e->cfg.work->run(e->cfg.work, GS_WORK_PROCESS_RESULT, &j->spec, part, &err);
    if (s != GS_OK)
        gs_tracker_fail_locked(e, j, s, err.msg);
    gs_tl_span_cpu(lane, GS_SPAN_STEP, gs_vocab_name(GS_V_PROCESS_RESULT), jid, part, t0, gs_now_ns(),
                   s == GS_OK ? 0 : GS_SPAN_F_FAILED, NULL, gs_task_cpu_ns() - c0);
    s = gs_inject(e, GS_INJ_TRACKER_HOLD, lane, j, part, NULL, &err);
    if (s != GS_OK)
        gs_tracker_fail_locked(e, j, s, err.msg);
    if (e->cfg.trim == GS_TRIM_UNDER_LOCK)
        gs_trim_step(e, lane, j, part);
    if (j->stored == j->spec.partitions && !atomic_load(&j->failed)) {
        t0 = gs_now_ns();
        c0 = gs_task_cpu_ns();
        if (e->cfg.work) {
            /* Modelled: the proof bytes stay zero (no proofs exist). */
            if (!j->assembled)
                j->assembled = calloc(j->spec.partitions, GS_PROOF_BYTES);
            (void)e->cfg.work->run(e->cfg.work, GS_WORK_ASSEMBLE, &j->spec, -1, &err);
        } else {
            gs_job_assemble(j);
        }
        gs_tl_span_cpu(lane, GS_SPAN_STEP, gs_vocab_name(GS_V_ASSEMBLE), jid, -1, t0, gs_now_ns(), 0, NULL,
                       gs_task_cpu_ns() - c0);
        if (!j->assembled) {
            gs_tracker_fail_locked(e, j, GS_ERR_NOMEM, "assemble: no memory for the proof");
        } else if (e->cfg.verify == GS_VERIFY_UNDER_LOCK) {
            s = verify_step(e, lane, j, &err);
            if (s != GS_OK)
                gs_tracker_fail_locked(e, j, s, err.msg);
        } else if (e->cfg.verify == GS_VERIFY_AFTER_UNLOCK) {
            finishing = j->finishing = 1;
        }
    }
    gs_tracker_settle_locked(e, j);
    if (e->cfg.trim == GS_TRIM_BACKGROUND) {
        pthread_mutex_lock(&e->bg_mu);
        e->bg_pending++;
        gs_vt_cond_signal(&e->bg_cv);
        pthread_mutex_unlock(&e->bg_mu);
    }
    gs_tracker_unlock(&e->tr, lane, jid, part, gs_vocab_name(GS_V_PROCESS_RESULT));

    if (e->cfg.trim == GS_TRIM_AFTER_UNLOCK)
        gs_trim_step(e, lane, j, part);
    if (finishing) {
        /* j->finishing keeps the job unpublished; nobody else touches its
         * proofs now (every partition is settled). */
        gs_err_clear(&err);
        s = verify_step(e, lane, j, &err);
        gs_tracker_lock(&e->tr, lane, jid, -1);
        if (s != GS_OK)
            gs_tracker_fail_locked(e, j, s, err.msg);
        j->finishing = 0;
        gs_tracker_publish_locked(e, j);
        gs_tracker_unlock(&e->tr, lane, jid, -1, "publish");
    }
    gs_part_free(e, p);
}

void *gs_fin_pool_main(void *arg)
{
    gs_worker *w = arg;
    gs_vt_enter();
    for (;;) {
        int64_t t0, t1;
        gs_part *p = gs_pq_pop(&w->e->fin_q, w->lane, &t0, &t1);
        if (!p)
            break;
        finalize(w->e, p, w->lane);
    }
    gs_vt_exit();
    return NULL;
}

typedef struct fin_arg {
    struct gs_engine *e;
    gs_part *p;
    gs_tl_lane *lane;
} fin_arg;

static void *fin_thread_main(void *arg)
{
    fin_arg a = *(fin_arg *)arg;
    free(arg);
    gs_vt_enter();
    finalize(a.e, a.p, a.lane);
    gs_fin_thread *self = malloc(sizeof *self);
    pthread_mutex_lock(&a.e->fin_mu);
    if (a.e->n_fin_free < a.e->cap_fin_free)
        a.e->fin_free[a.e->n_fin_free++] = a.lane;
    if (self) {
        self->th = pthread_self();
        self->next = a.e->fin_done;
        a.e->fin_done = self;
    } else {
        pthread_detach(pthread_self());
    }
    if (--a.e->fin_live == 0)
        pthread_cond_broadcast(&a.e->fin_cv);
    pthread_mutex_unlock(&a.e->fin_mu);
    gs_vt_exit();
    return NULL;
}

/* Joins the per-partition threads that have exited. */
void gs_fin_reap(struct gs_engine *e)
{
    pthread_mutex_lock(&e->fin_mu);
    gs_fin_thread *d = e->fin_done;
    e->fin_done = NULL;
    pthread_mutex_unlock(&e->fin_mu);
    while (d) {
        gs_fin_thread *next = d->next;
        pthread_join(d->th, NULL);
        free(d);
        d = next;
    }
}

gs_status gs_fin_handoff(struct gs_engine *e, gs_part *p, gs_err *err)
{
    int64_t t0, t1;
    if (e->n_fin_pool > 0) {
        if (!gs_pq_push(&e->fin_q, p, NULL, &t0, &t1))
            return GS_ERR(err, GS_ERR_CANCELLED, "handoff", "finalizer queue closed");
        return GS_OK;
    }
    gs_fin_reap(e);
    fin_arg *a = malloc(sizeof *a);
    if (!a)
        return GS_ERR(err, GS_ERR_NOMEM, "handoff", "no memory for a finalizer");
    a->e = e;
    a->p = p;
    pthread_mutex_lock(&e->fin_mu);
    if (e->n_fin_free > 0) {
        a->lane = e->fin_free[--e->n_fin_free];
    } else {
        char name[32];
        snprintf(name, sizeof name, "finalizer/%d", e->n_fin_lanes++);
        a->lane = e->tl ? gs_tl_lane_open(e->tl, name, GS_ROLE_FINALIZER,
                                          e->n_dev == 1 ? 0 : -1, -1) : NULL;
        if (e->n_fin_lanes > e->cap_fin_free) {
            int cap = 2 * e->n_fin_lanes;
            gs_tl_lane **f = realloc(e->fin_free, (size_t)cap * sizeof *f);
            if (f) {
                e->fin_free = f;
                e->cap_fin_free = cap;
            }
        }
    }
    e->fin_live++;
    pthread_mutex_unlock(&e->fin_mu);
    pthread_t th;
    gs_vt_spawn();
    if (pthread_create(&th, NULL, fin_thread_main, a) != 0) {
        gs_vt_spawn_failed();
        pthread_mutex_lock(&e->fin_mu);
        if (e->n_fin_free < e->cap_fin_free)
            e->fin_free[e->n_fin_free++] = a->lane;
        if (--e->fin_live == 0)
            pthread_cond_broadcast(&e->fin_cv);
        pthread_mutex_unlock(&e->fin_mu);
        free(a);
        return GS_ERR(err, GS_ERR_INTERNAL, "handoff", "cannot start a finalizer thread");
    }
    return GS_OK;
}

void *gs_bg_trim_main(void *arg)
{
    struct gs_engine *e = arg;
    int32_t round = 0;
    gs_vt_enter();
    pthread_mutex_lock(&e->bg_mu);
    for (;;) {
        while (!e->bg_pending && !e->bg_stop)
            gs_vt_cond_wait(&e->bg_cv, &e->bg_mu);
        if (!e->bg_pending)
            break;
        e->bg_pending = 0;
        pthread_mutex_unlock(&e->bg_mu);
        gs_trim_step(e, e->bg_lane, NULL, round++);
        pthread_mutex_lock(&e->bg_mu);
    }
    pthread_mutex_unlock(&e->bg_mu);
    gs_vt_exit();
    return NULL;
}
