/*
 * The synthesis pool: cfg.synth_threads threads that turn pending
 * partitions into synthesized ones.
 *
 * Each thread pops the most urgent pending partition from synth_q
 * (priority, job sequence, partition index), skips it if its job was
 * cancelled or has already failed, fetches the job's circuit and keys (the
 * first partition of a new size creates them), runs the real circuit
 * synthesis (gs_circuit_synthesize: witness, QAP vectors a, b, c, real
 * allocations) with a seed derived from (cfg.seed, job id, partition),
 * allocates the partition's working set when the real malloc_trim mode asks
 * for one (heapfrag.c), adds the `synth` injection, and pushes the result into the bounded GPU queue,
 * blocking while the queue is full (span `queue_full_wait`).  While busy it
 * counts itself in the driver lane's `synth_busy` counter.
 *
 * Also here: the partition clean-up helpers shared by every stage
 * (gs_part_free, gs_part_drop), since a partition can be dropped at any
 * stage (synthesis, GPU worker, shutdown).
 *
 * Threads: synth threads only touch the partition they popped; the
 * tracker lock is taken only to settle a dropped partition.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/pool.h"
#include "../../common/clock.h"
#include "engine_int.h"

void gs_part_free(struct gs_engine *e, gs_part *p)
{
    if (!p)
        return;
    if (p->st) {
        gs_backend *be = e->be[p->dev >= 0 && p->dev < e->n_dev ? p->dev : 0];
        be->ops->prove_abort(be, p->st);
        p->st = NULL;
    }
    gs_part_release_as(e, p);
    gs_workset_free(&p->ws);
    free(p->pub);
    free(p);
}

void gs_part_drop(struct gs_engine *e, gs_part *p, gs_tl_lane *lane, gs_status s,
                  const char *msg)
{
    gs_job_rec *j = p->job;
    int32_t part = (int32_t)p->index;
    gs_part_free(e, p);
    gs_tracker_lock(&e->tr, lane, gs_jid(j), part);
    if (s != GS_OK)
        gs_tracker_fail_locked(e, j, s, msg);
    gs_tracker_settle_locked(e, j);
    gs_tracker_unlock(&e->tr, lane, gs_jid(j), part, s == GS_OK ? "skip" : "fail");
}

void gs_part_release_as(struct gs_engine *e, gs_part *p)
{
    if (!p->has_as)
        return;
    p->has_as = 0;
    if (!p->pooled) {
        gs_assignment_free(&p->as);
        return;
    }
    p->pooled = 0;
    pthread_mutex_lock(&e->pin_mu);
    e->pin_free[e->n_pin_free++] = p->as;   /* n_pin_free < n_pinned <= pin_cap */
    gs_vt_cond_broadcast(&e->pin_cv);
    pthread_mutex_unlock(&e->pin_mu);
    memset(&p->as, 0, sizeof p->as);
}

void gs_pin_pool_drain(struct gs_engine *e)
{
    for (int i = 0; i < e->n_pin_free; i++)
        e->pool_free(&e->pin_free[i]);
    free(e->pin_free);
    e->pin_free = NULL;
    e->n_pin_free = 0;
}

/* Caller holds pin_mu: index of a free buffer of pk's sizes (same = 1) or
 * of another size (same = 0), -1 if none. */
static int pin_find_locked(const struct gs_engine *e, const gs_pk *pk, int same)
{
    for (int i = e->n_pin_free - 1; i >= 0; i--)
        if ((e->pin_free[i].n_vars == pk->n_vars && e->pin_free[i].domain_size == pk->domain_size) ==
            same)
            return i;
    return -1;
}

/* Caller holds pin_mu, which it gives up meanwhile: fills the pool with n
 * buffers of pk's sizes (one goes to p), after freeing victim
 * if it is set (a free buffer of another size, already counted out).  One
 * span `pin` on lane for the whole fill.  The buffers are published only
 * when all are allocated: page-locked allocations stall the driver, so they
 * should all happen before the device has work (the pool is filled when
 * the first partition of a size needs a buffer). */
static gs_status pin_fill_locked(struct gs_engine *e, gs_tl_lane *lane, gs_part *p, int n,
                                 gs_assignment *victim, gs_err *err)
{
    const gs_pk *pk = &p->key->pk;
    e->pin_filling = 1;
    e->n_pinned += n;
    pthread_mutex_unlock(&e->pin_mu);
    if (victim)
        e->pool_free(victim);
    gs_assignment *got = calloc((size_t)n, sizeof *got);
    int k = 0;
    gs_status s = got ? GS_OK : GS_ERR(err, GS_ERR_NOMEM, "engine", "pin pool of %d", n);
    int64_t t0 = gs_now_ns(), c0 = gs_task_cpu_ns();
    gs_err e2;
    for (; got && k < n; k++) {
        gs_err_clear(&e2);
        if (e->cfg.work) {
            /* Modelled: the buffer's time, no memory (an empty assignment). */
            s = e->cfg.work->run(e->cfg.work, GS_WORK_PIN, &p->job->spec, (int32_t)p->index,
                                 k == 0 ? err : &e2);
            got[k].n_vars = pk->n_vars;
            got[k].domain_size = pk->domain_size;
        } else {
            s = e->pool_alloc(&got[k], pk->n_vars, pk->domain_size, k == 0 ? err : &e2);
        }
        if (s != GS_OK)
            break;   /* a smaller pool than asked for, or (k == 0) none */
    }
    if (lane) {
        char args[128];
        snprintf(args, sizeof args, "bytes=%llu;buffers=%d;asked=%d;pagelocked=%d",
                 (unsigned long long)(((uint64_t)pk->n_vars + 3 * (uint64_t)pk->domain_size) * 32 *
                                      (uint64_t)k), k, n, e->pool_locked);
        gs_tl_span_cpu(lane, GS_SPAN_STEP, gs_vocab_name(GS_V_PIN), gs_jid(p->job),
                       (int32_t)p->index, t0, gs_now_ns(),
                       k ? 0 : GS_SPAN_F_FAILED, args, gs_task_cpu_ns() - c0);
    }
    pthread_mutex_lock(&e->pin_mu);
    e->n_pinned -= n - k;
    for (int i = 1; i < k; i++)
        e->pin_free[e->n_pin_free++] = got[i];
    e->pin_filling = 0;
    gs_vt_cond_broadcast(&e->pin_cv);
    if (k == 0) {
        free(got);
        return s;
    }
    p->as = got[0];
    p->has_as = p->pooled = 1;
    free(got);
    return GS_OK;
}

/* staging = direct: p gets an assignment of the key's sizes from the pool
 * (page-locked with the CUDA backend).  The first partition of a size fills
 * the pool (pin_fill_locked, up to pin_cap buffers); when every buffer is
 * in use synthesis waits for one to come back (span pin_wait:
 * back-pressure from the device side); a partition of a new size once the
 * pool is full replaces a free buffer of another size.  GS_ERR_CANCELLED when the engine stops meanwhile. */
static gs_status pin_take(struct gs_engine *e, gs_tl_lane *lane, gs_part *p, gs_err *err)
{
    const gs_pk *pk = &p->key->pk;
    int64_t w0 = 0;
    gs_status s = GS_OK;
    pthread_mutex_lock(&e->pin_mu);
    for (;;) {
        int i = pin_find_locked(e, pk, 1);
        if (i >= 0) {
            p->as = e->pin_free[i];
            e->pin_free[i] = e->pin_free[--e->n_pin_free];
            p->has_as = p->pooled = 1;
            break;
        }
        if (atomic_load(&e->stopping)) {
            s = GS_ERR(err, GS_ERR_CANCELLED, "engine", "stopping while waiting for a pool buffer");
            break;
        }
        if (!e->pin_filling && e->n_pinned < e->pin_cap) {
            s = pin_fill_locked(e, lane, p, e->pin_cap - e->n_pinned, NULL, err);
            break;
        }
        if (!e->pin_filling && (i = pin_find_locked(e, pk, 0)) >= 0) {
            gs_assignment victim = e->pin_free[i];
            e->pin_free[i] = e->pin_free[--e->n_pin_free];
            e->n_pinned--;
            s = pin_fill_locked(e, lane, p, 1, &victim, err);
            break;
        }
        if (!w0)
            w0 = gs_now_ns();
        gs_vt_cond_wait(&e->pin_cv, &e->pin_mu);
    }
    pthread_mutex_unlock(&e->pin_mu);
    if (w0 && lane)
        gs_tl_span(lane, GS_SPAN_STEP, gs_vocab_name(GS_V_PIN_WAIT), gs_jid(p->job),
                   (int32_t)p->index, w0, gs_now_ns(),
                   s == GS_OK ? 0 : GS_SPAN_F_FAILED, NULL);
    return s;
}

/* malloc_trim real mode with a working set: p's working set, allocated by
 * this (synthesis) thread inside an INJECTED inj:malloc_trim span
 * (phase=alloc) on lane.  Never fails: a short allocation is recorded. */
static void workset_alloc(struct gs_engine *e, gs_tl_lane *lane, gs_part *p)
{
    const gs_injection *in = &e->cfg.inj[GS_INJ_MALLOC_TRIM];
    gs_job_rec *j = p->job;
    double unused;
    if (!in->enabled || !in->real || in->work_per_constraint == 0 ||
        !gs_injection_draw(in, GS_INJ_MALLOC_TRIM, j->spec.id, (int32_t)p->index, &unused))
        return;
    uint64_t want = in->work_per_constraint << j->spec.log_constraints;
    int64_t t0 = gs_now_ns();
    uint64_t got = gs_workset_alloc(&p->ws, want,
                                    gs_eng_mix(gs_eng_mix(in->seed, j->spec.id), p->index));
    if (lane) {
        char args[128];
        snprintf(args, sizeof args, "mode=real;phase=alloc;bytes=%llu;want=%llu",
                 (unsigned long long)got, (unsigned long long)want);
        gs_tl_span(lane, GS_SPAN_INJECTED, "inj:malloc_trim", gs_jid(j), (int32_t)p->index, t0,
                   gs_now_ns(), GS_SPAN_F_INJECTED, args);
    }
}

static void synth_busy(struct gs_engine *e, int delta)
{
    int v = atomic_fetch_add(&e->synth_busy, delta) + delta;
    gs_drv_counter(e, gs_vocab_name(GS_V_SYNTH_BUSY), gs_now_ns(), v);
}

/* Synthesizes p; returns the status (detail in err). */
static gs_status synth_one(struct gs_engine *e, gs_worker *w, gs_part *p, gs_err *err)
{
    gs_job_rec *j = p->job;
    int32_t part = (int32_t)p->index;
    int64_t k0 = gs_now_ns(), kc0 = gs_task_cpu_ns();
    gs_status s = gs_keys_get(&e->keys, j->spec.kind, j->spec.log_constraints, &p->key, err);
    int64_t k1 = gs_now_ns();
    if (k1 - k0 > 1000000)
        gs_tl_span_cpu(w->lane, GS_SPAN_STEP, gs_vocab_name(GS_V_SETUP), gs_jid(j), part, k0, k1,
                       s == GS_OK ? 0 : GS_SPAN_F_FAILED, NULL, gs_task_cpu_ns() - kc0);
    if (s != GS_OK)
        return s;

    uint64_t seed = gs_eng_mix(gs_eng_mix(e->cfg.seed, j->spec.id), p->index);
    if (e->cfg.direct && (s = pin_take(e, w->lane, p, err)) != GS_OK)
        return s;
    synth_busy(e, 1);
    int cpu0 = sched_getcpu();
    int64_t t0 = gs_now_ns(), c0 = gs_task_cpu_ns();
    if (e->cfg.work)
        s = e->cfg.work->run(e->cfg.work, GS_WORK_SYNTH, &j->spec, part, err);
    else if ((s = p->pooled ? gs_circuit_synthesize_into(p->key->circuit, &p->key->pk, seed, &p->as, err)
                            : gs_circuit_synthesize(p->key->circuit, &p->key->pk, seed, &p->as, err)) ==
             GS_OK) {
        p->has_as = 1;
        workset_alloc(e, w->lane, p);
    }
    if (s == GS_OK)
        s = gs_inject(e, GS_INJ_SYNTH, w->lane, j, part, NULL, err);
    int64_t t1 = gs_now_ns(), c1 = gs_task_cpu_ns();
    int cpu1 = sched_getcpu();
    synth_busy(e, -1);
    if (w->lane) {
        /* cpu, cpu_end: the vCPU a real synthesis started and ended on
         * (the model's placement, MODEL.md 4: vCPUs of one host differ). */
        char args[128];
        int n = snprintf(args, sizeof args, "log=%u;domain=%u;seed=%llu", j->spec.log_constraints,
                         p->has_as ? p->as.domain_size : 0, (unsigned long long)seed);
        if (!e->cfg.work)   /* a modelled step ran on no vCPU of its own */
            snprintf(args + n, sizeof args - (size_t)n, ";cpu=%d;cpu_end=%d", cpu0, cpu1);
        gs_tl_span_cpu(w->lane, GS_SPAN_STEP, gs_vocab_name(GS_V_SYNTH), gs_jid(j), part, t0, t1,
                       s == GS_OK ? 0 : GS_SPAN_F_FAILED, args, c1 - c0);
    }
    return s;
}

void *gs_synth_main(void *arg)
{
    gs_worker *w = arg;
    struct gs_engine *e = w->e;
    gs_vt_enter();
    for (;;) {
        int64_t t0, t1;
        gs_part *p = gs_pq_pop(&e->synth_q, w->lane, &t0, &t1);
        if (!p)
            break;
        gs_job_rec *j = p->job;
        if (j->epoch < atomic_load(&e->epoch)) {
            gs_part_drop(e, p, w->lane, GS_ERR_CANCELLED, "cancelled before synthesis");
            continue;
        }
        if (atomic_load(&j->failed)) {
            gs_part_drop(e, p, w->lane, GS_OK, NULL);
            continue;
        }
        gs_err err;
        gs_err_clear(&err);
        gs_status s = synth_one(e, w, p, &err);
        if (s != GS_OK) {
            gs_part_drop(e, p, w->lane, s, err.msg);
            continue;
        }
        int32_t part = (int32_t)p->index;
        if (!gs_pq_push(&e->gpu_q, p, w->lane, &t0, &t1)) {
            gs_part_drop(e, p, w->lane, GS_ERR_CANCELLED, "engine shut down");
            continue;
        }
        /* p may already be gone (popped by a worker): use the saved ids. */
        if (t1 > t0)
            gs_tl_span(w->lane, GS_SPAN_STEP, gs_vocab_name(GS_V_QUEUE_FULL_WAIT), gs_jid(j), part, t0, t1, 0,
                       NULL);
    }
    gs_vt_exit();
    return NULL;
}
