/*
 * The job tracker: every job's state, under ONE mutex, as in production
 * daemons.  The GPU workers take it twice per partition (fail check, mark
 * busy); the finalizers take it to store a partition's result and, by
 * policy, call malloc_trim(0) and verify the assembled proof while holding
 * it.  That contention is what gapscope exists to measure, so the lock is
 * instrumented: gs_tracker_lock records a LOCK_WAIT span naming the lane
 * that held the lock when the wait began (kept in `holder`, written by the
 * holder right after it acquires and cleared right before it releases), and
 * gs_tracker_unlock a LOCK_HOLD span saying what was done under it.
 *
 * Accounting: every partition of a job is settled exactly once (proved and
 * stored, failed, or skipped because its job had already failed or was
 * cancelled).  A job is published (its gs_job_result appended, drain woken)
 * when all its partitions are settled and no verification of it is still
 * running outside the lock; so no job is lost or published twice, and no
 * partition of a published job is still in flight.
 *
 * Threads: any engine thread.  Lock order: tracker.mu before bg.mu.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/grow.h"
#include "../../common/clock.h"
#include "engine_int.h"

gs_status gs_tracker_init(gs_tracker *t)
{
    memset(t, 0, sizeof *t);
    if (pthread_mutex_init(&t->mu, NULL) != 0)
        return GS_ERR_INTERNAL;
    pthread_cond_init(&t->done_cv, NULL);
    atomic_init(&t->holder, -1);
    return GS_OK;
}

void gs_tracker_deinit(gs_tracker *t)
{
    gs_job_rec *j = t->jobs;
    while (j) {
        gs_job_rec *next = j->next;
        free(j->proofs);
        free(j->have);
        free(j->publics);
        free(j->assembled);
        free(j);
        j = next;
    }
    free(t->results);
    pthread_cond_destroy(&t->done_cv);
    pthread_mutex_destroy(&t->mu);
    memset(t, 0, sizeof *t);
}

void gs_tracker_lock(gs_tracker *t, gs_tl_lane *lane, int32_t job, int32_t part)
{
    int64_t t0 = gs_now_ns();
    int32_t holder = -1;
    if (gs_vt_on() && gs_vt_participant()) {
        /* Modelled run: the clock's mutex wrapper counts the wait. */
        holder = atomic_load_explicit(&t->holder, memory_order_acquire);
        if (!gs_vt_mutex_lock(&t->mu))
            holder = -1;
        if (!lane) {
            t->hold_start = gs_now_ns();
            return;
        }
        goto locked;
    }
    if (!lane) {
        /* Capture off: a plain lock, nothing to learn about the holder. */
        pthread_mutex_lock(&t->mu);
        t->hold_start = gs_now_ns();
        return;
    }
    if (pthread_mutex_trylock(&t->mu) != 0) {
        /* The holder publishes its lane id right after acquiring: retry a
         * few times to read it rather than report "unknown" (only while
         * the holder is between its acquire and that store). */
        holder = atomic_load_explicit(&t->holder, memory_order_acquire);
        for (int i = 0; holder < 0 && i < 64; i++) {
            if (pthread_mutex_trylock(&t->mu) == 0)
                goto locked;
            sched_yield();
            holder = atomic_load_explicit(&t->holder, memory_order_acquire);
        }
        pthread_mutex_lock(&t->mu);
    }
locked:;
    int64_t t1 = gs_now_ns();
    gs_tl_lock_wait(lane, gs_vocab_name(GS_V_TRACKER), holder, job, part, t0, t1);
    atomic_store_explicit(&t->holder, lane ? gs_tl_lane_id(lane) : -1, memory_order_release);
    t->hold_start = t1;
}

void gs_tracker_unlock(gs_tracker *t, gs_tl_lane *lane, int32_t job, int32_t part,
                       const char *what)
{
    int64_t t0 = t->hold_start;
    int64_t t1 = gs_now_ns();
    atomic_store_explicit(&t->holder, -1, memory_order_release);
    gs_vt_mutex_unlock(&t->mu);
    if (lane) {
        char args[64];
        snprintf(args, sizeof args, "what=%s", what ? what : "");
        gs_tl_span(lane, GS_SPAN_LOCK_HOLD, gs_vocab_name(GS_V_TRACKER), job, part, t0, t1, 0, args);
    }
}

void gs_tracker_fail_locked(struct gs_engine *e, gs_job_rec *j, gs_status s, const char *msg)
{
    (void)e;
    if (j->err.status == GS_OK) {
        j->err.status = s == GS_OK ? GS_ERR_INTERNAL : s;
        snprintf(j->err.msg, sizeof j->err.msg, "%s", msg && *msg ? msg : gs_status_message(s));
    }
    atomic_store(&j->failed, 1);
}

void gs_tracker_settle_locked(struct gs_engine *e, gs_job_rec *j)
{
    j->settled++;
    if (j->settled == j->spec.partitions && !j->finishing)
        gs_tracker_publish_locked(e, j);
}

void gs_tracker_publish_locked(struct gs_engine *e, gs_job_rec *j)
{
    gs_tracker *t = &e->tr;
    if (!gs_grow(&t->results, &t->cap_results, t->n_results, sizeof *t->results, 16)) {
        /* Cannot record it: count it anyway so drain cannot hang. */
        t->published++;
        pthread_cond_broadcast(&t->done_cv);
        return;
    }
    gs_job_result *r = &t->results[t->n_results++];
    memset(r, 0, sizeof *r);
    r->id = j->spec.id;
    r->kind = j->spec.kind;
    r->partitions = j->spec.partitions;
    r->status = j->err.status;
    r->verified = j->verified;
    r->intended_ns = j->spec.intended_ns;
    r->submitted_ns = j->submitted_ns;
    r->done_ns = gs_now_ns();
    r->log_constraints = j->spec.log_constraints;
    snprintf(r->error, sizeof r->error, "%s", j->err.msg);
    if (r->status == GS_OK) {
        r->proof = j->assembled;
        r->proof_len = j->assembled ? (size_t)j->spec.partitions * GS_PROOF_BYTES : 0;
        r->publics = j->publics;
        r->n_public = j->key ? j->key->n_public : 0;
    }
    t->published++;
    if (e->drv_lane) {
        /* tracker.mu -> drv_mu (a leaf). */
        char args[160];
        snprintf(args, sizeof args, "status=%s;verified=%d;kind=%s;partitions=%u;latency_ns=%lld",
                 r->status == GS_OK ? "ok" : gs_status_name(r->status), r->verified,
                 gs_job_kind_name(r->kind), r->partitions,
                 (long long)(r->done_ns - (r->intended_ns ? r->intended_ns : r->submitted_ns)));
        pthread_mutex_lock(&e->drv_mu);
        gs_tl_span(e->drv_lane, GS_SPAN_MARK, gs_vocab_name(GS_V_JOB_DONE), gs_jid(j), -1,
                   r->done_ns, r->done_ns,
                   r->status == GS_OK ? 0 : GS_SPAN_F_FAILED, args);
        pthread_mutex_unlock(&e->drv_mu);
    }
    pthread_cond_broadcast(&t->done_cv);
}

void gs_job_assemble(gs_job_rec *j)
{
    uint32_t n = j->spec.partitions;
    if (!j->assembled)
        j->assembled = malloc((size_t)n * GS_PROOF_BYTES);
    if (!j->assembled)
        return;
    for (uint32_t i = 0; i < n; i++) {
        uint8_t *o = j->assembled + (size_t)i * GS_PROOF_BYTES;
        gs_g1_compress(o, &j->proofs[i].a);
        gs_g2_compress(o + 48, &j->proofs[i].b);
        gs_g1_compress(o + 144, &j->proofs[i].c);
    }
}

gs_status gs_job_verify(gs_job_rec *j, gs_err *err)
{
    uint32_t np = j->key->n_public;
    for (uint32_t i = 0; i < j->spec.partitions; i++) {
        gs_err e1;
        gs_err_clear(&e1);
        gs_status s = gs_groth16_verify(&j->key->vk, j->publics + (size_t)i * np, np,
                                        &j->proofs[i], &e1);
        if (s != GS_OK)
            return GS_ERR(err, GS_ERR_VERIFY, "verify",
                          "job %llu partition %u: %s", (unsigned long long)j->spec.id, i,
                          e1.msg[0] ? e1.msg : gs_status_message(s));
    }
    return GS_OK;
}
