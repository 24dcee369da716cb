/*
 * GPU workers: cfg.gpu_workers_per_device threads per device, all popping
 * the one bounded GPU queue, each driving its device's backend.
 *
 * Per partition, in production's order (each step a span on the worker's
 * lane, SPANS.md):
 *   queue_wait    blocked on an empty GPU queue (synthesis starvation)
 *   status_check  lock-free: engine stopping, job cancelled or failed
 *   fail_check    tracker lock: has the job failed meanwhile?
 *   mark_busy     tracker lock: the partition is now running
 *   host_prep     classify the witness scalars (0 / 1 / other) + injection
 *   h2d_stage     (h2d injection) a real copy of a, b, c through freshly
 *                 allocated pageable memory, plus the drawn delay
 *   prove_start   the backend's device work; its stage list becomes
 *                 device-lane spans (gpu<d>/stream<s> or cpu<d>/stream0)
 *                 and host-stage spans on this lane
 *   prove_finish  only with cfg.finish_in_worker: the CPU G2 MSM in the
 *                 worker loop (the pre-split daemon shape)
 *   handoff       the prove state goes to a finalizer (+ injection)
 * A partition that fails at any step fails its job (first error kept) and
 * is settled; the worker goes on with the next one.
 *
 * Prep ahead (cfg.prep_ahead): the worker starts a prep thread with its own
 * lane, gpu_worker/<dev>.<i>/prep (role gpu_worker), that pops the GPU
 * queue and runs status_check .. h2d_stage; the prepared partition waits
 * in a one-slot hand-over for the worker (the prep thread pops the next one
 * only once the slot is free again: span ready_wait), whose loop is then queue_wait (for the slot) ->
 * prove_start -> handoff.  So the host prep of partition k+1 runs while the
 * device works on partition k, as a production daemon's prep thread does;
 * a partition marked busy (mark_busy) counts as running, as inline.  Gap
 * attribution (diag/attrib.c) sees both lanes: a device gap while the prep
 * lane is in host_prep is still host_prep.
 *
 * Threads: a worker owns its lane and the partition it popped.  Device
 * lanes are shared by a device's workers and finalizers: written under
 * dl[dev].mu, a leaf lock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/pool.h"
#include "../../common/clock.h"
#include "engine_int.h"

static gs_tl_lane *dev_lane(struct gs_engine *e, int dev, int stream)
{
    gs_devlanes *d = &e->dl[dev];
    if (stream < 0 || stream >= GS_ENG_MAX_STREAMS)
        stream = GS_ENG_MAX_STREAMS - 1;
    if (!d->lane[stream]) {
        char name[48];
        snprintf(name, sizeof name, "%s%d/stream%d", d->prefix, dev, stream);
        d->lane[stream] = gs_tl_lane_open(e->tl, name, GS_ROLE_DEVICE, dev, stream);
    }
    return d->lane[stream];
}

void gs_emit_stages(struct gs_engine *e, int dev, gs_tl_lane *lane, const gs_part *p,
                    const gs_stage_list *sl)
{
    int32_t jid = gs_jid(p->job), part = (int32_t)p->index;
    if (!e->tl || !sl)
        return;
    int locked = 0;
    for (int i = 0; i < sl->n && i < GS_STAGE_MAX; i++) {
        const gs_stage *st = &sl->s[i];
        const char *name = st->name ? st->name : "stage";
        uint16_t fl = (st->flags & GS_STAGE_F_MODELLED) ? GS_SPAN_F_MODELLED : 0;
        if (st->kind == GS_STAGE_HOST) {
            if (gs_vocab_is(name, GS_V_DEVICE_MUTEX_WAIT))
                gs_tl_lock_wait(lane, gs_vocab_name(GS_V_DEVICE_MUTEX), -1, jid, part, st->start_ns,
                                st->end_ns);
            else
                gs_tl_span(lane, GS_SPAN_STEP, name, jid, part, st->start_ns, st->end_ns, fl,
                           NULL);
            continue;
        }
        if (!locked) {
            pthread_mutex_lock(&e->dl[dev].mu);
            locked = 1;
        }
        const char *args = (st->flags & GS_STAGE_F_PAGEABLE) ? "pageable=1" : NULL;
        gs_tl_span(dev_lane(e, dev, st->stream),
                   st->kind == GS_STAGE_COPY ? GS_SPAN_COPY : GS_SPAN_KERNEL, name, jid, part,
                   st->start_ns, st->end_ns, fl, args);
    }
    if (locked)
        pthread_mutex_unlock(&e->dl[dev].mu);
}

static void step(gs_tl_lane *lane, const char *name, const gs_part *p, int64_t t0,
                 int failed, const char *args)
{
    gs_tl_span(lane, GS_SPAN_STEP, name, gs_jid(p->job), (int32_t)p->index, t0, gs_now_ns(),
               failed ? GS_SPAN_F_FAILED : 0, args);
}

/* step() with the CPU the step consumed since c0 (gs_task_cpu_ns). */
static void step_cpu(gs_tl_lane *lane, const char *name, const gs_part *p, int64_t t0,
                     int64_t c0, int failed, const char *args)
{
    gs_tl_span_cpu(lane, GS_SPAN_STEP, name, gs_jid(p->job), (int32_t)p->index, t0,
                   gs_now_ns(), failed ? GS_SPAN_F_FAILED : 0, args, gs_task_cpu_ns() - c0);
}

void gs_witness_classify(const gs_assignment *as, uint64_t *zeros, uint64_t *ones)
{
    uint64_t z = 0, o = 0;
    for (uint32_t i = 0; i < as->n_vars; i++) {
        const uint64_t *l = as->w[i].l;
        uint64_t hi = 0;
        for (int k = 1; k < GS_FR_LIMBS; k++)
            hi |= l[k];
        z += (hi | l[0]) == 0;
        o += hi == 0 && l[0] == 1;
    }
    *zeros = z;
    *ones = o;
}

static volatile uint64_t h2d_sink;

/* A real staging copy of a, b, c through fresh pageable memory. */
static int pageable_copy(const gs_assignment *as, uint64_t *bytes)
{
    size_t n = (size_t)as->domain_size * sizeof(gs_fr);
    unsigned char *buf = malloc(3 * n);
    if (!buf)
        return 0;
    memcpy(buf, as->a, n);
    memcpy(buf + n, as->b, n);
    memcpy(buf + 2 * n, as->c, n);
    uint64_t x = 0;
    for (size_t o = 0; o < 3 * n; o += 4096)
        x ^= buf[o];
    h2d_sink = x;
    free(buf);
    *bytes = 3 * n;
    return 1;
}

/* The host steps of one popped partition, status_check .. h2d_stage, on
 * lane (the worker's, or its prep thread's).  Returns 1 with p ready for
 * the device, 0 with p dropped (settled in the tracker). */
static int prep_partition(gs_worker *w, gs_tl_lane *lane, gs_part *p)
{
    struct gs_engine *e = w->e;
    gs_job_rec *j = p->job;
    int32_t jid = gs_jid(j), part = (int32_t)p->index;
    gs_err err;
    gs_err_clear(&err);
    char args[96];

    int64_t t0 = gs_now_ns();
    int cancelled = j->epoch < atomic_load(&e->epoch) || atomic_load(&e->stopping);
    int failed = atomic_load(&j->failed);
    step(lane, gs_vocab_name(GS_V_STATUS_CHECK), p, t0, 0, NULL);
    if (cancelled) {
        gs_part_drop(e, p, lane, GS_ERR_CANCELLED, "cancelled before proving");
        return 0;
    }
    if (failed) {
        gs_part_drop(e, p, lane, GS_OK, NULL);
        return 0;
    }

    t0 = gs_now_ns();
    gs_tracker_lock(&e->tr, lane, jid, part);
    failed = atomic_load(&j->failed);
    gs_tracker_unlock(&e->tr, lane, jid, part, gs_vocab_name(GS_V_FAIL_CHECK));
    step(lane, gs_vocab_name(GS_V_FAIL_CHECK), p, t0, 0, NULL);
    if (failed) {
        gs_part_drop(e, p, lane, GS_OK, NULL);
        return 0;
    }

    t0 = gs_now_ns();
    gs_tracker_lock(&e->tr, lane, jid, part);
    j->busy++;
    p->dev = w->dev;
    gs_tracker_unlock(&e->tr, lane, jid, part, gs_vocab_name(GS_V_MARK_BUSY));
    step(lane, gs_vocab_name(GS_V_MARK_BUSY), p, t0, 0, NULL);

    uint64_t zeros, ones;
    t0 = gs_now_ns();
    int64_t c0 = gs_task_cpu_ns();
    gs_status s = GS_OK;
    zeros = ones = 0;
    if (e->cfg.work)
        s = e->cfg.work->run(e->cfg.work, GS_WORK_HOST_PREP, &j->spec, part, &err);
    else
        gs_witness_classify(&p->as, &zeros, &ones);
    if (s == GS_OK)
        s = gs_inject(e, GS_INJ_HOST_PREP, lane, j, part, NULL, &err);
    snprintf(args, sizeof args, "zeros=%llu;ones=%llu;n=%u", (unsigned long long)zeros,
             (unsigned long long)ones, p->as.n_vars);
    step_cpu(lane, gs_vocab_name(GS_V_HOST_PREP), p, t0, c0, s != GS_OK, args);
    if (s != GS_OK)
        goto fail;

    double h2d_delay;
    if (gs_injection_draw(&e->cfg.inj[GS_INJ_H2D], GS_INJ_H2D, j->spec.id, part, &h2d_delay)) {
        /* Fires for this partition: the copy, then the delay (same draw). */
        uint64_t bytes = 0;
        t0 = gs_now_ns();
        c0 = gs_task_cpu_ns();
        if (!pageable_copy(&p->as, &bytes))
            s = GS_ERR(&err, GS_ERR_NOMEM, "h2d", "no memory for a pageable staging buffer");
        else
            s = gs_inject(e, GS_INJ_H2D, lane, j, part, NULL, &err);
        snprintf(args, sizeof args, "pageable=1;bytes=%llu", (unsigned long long)bytes);
        step_cpu(lane, gs_vocab_name(GS_V_H2D_STAGE), p, t0, c0, s != GS_OK, args);
        if (s != GS_OK)
            goto fail;
    }
    return 1;
fail:
    gs_part_drop(e, p, lane, s, err.msg);
    return 0;
}

/* The device steps of a prepared partition: prove_start (+ prove_finish
 * with finish_in_worker) and the hand-off.  Returns with p handed off, or
 * dropped. */
static void device_partition(gs_worker *w, gs_part *p)
{
    struct gs_engine *e = w->e;
    gs_backend *be = e->be[w->dev];
    gs_job_rec *j = p->job;
    int32_t jid = gs_jid(j), part = (int32_t)p->index;
    gs_err err;
    gs_err_clear(&err);
    char args[96];
    int64_t t0, c0;

    gs_scalar r, sb;
    gs_status s = gs_groth16_random_rs(&r, &sb, &err);
    if (s != GS_OK)
        goto fail;
    gs_prove_opts opts = {.pageable = e->cfg.pageable, .direct = e->cfg.direct, .threads = e->cfg.prove_threads,
                          .g2_on_device = e->cfg.g2_on_device && be->ops->caps.g2_on_device, .kind = (int)j->spec.kind,
                          .job_id = (int64_t)j->spec.id, .part = part};
    gs_stage_list sl;
    sl.n = 0;
    t0 = gs_now_ns();
    c0 = gs_task_cpu_ns();
    s = be->ops->prove_start(be, &p->key->pk, &p->as, &r, &sb, &opts, &p->st, &sl, &err);
    snprintf(args, sizeof args, "backend=%s;dev=%d", be->ops->name, w->dev);
    step_cpu(w->lane, gs_vocab_name(GS_V_PROVE_START), p, t0, c0, s != GS_OK, args);
    gs_emit_stages(e, w->dev, w->lane, p, &sl);
    if (s != GS_OK) {
        p->st = NULL;
        goto fail;
    }

    if (e->cfg.finish_in_worker)
        gs_part_finish(e, p, w->lane);   /* its failure is the finalizer's to record */

    t0 = gs_now_ns();
    c0 = gs_task_cpu_ns();
    s = gs_inject(e, GS_INJ_HANDOFF, w->lane, j, part, NULL, &err);
    if (s == GS_OK && e->cfg.work)
        s = e->cfg.work->run(e->cfg.work, GS_WORK_HANDOFF, &j->spec, part, &err);
    if (s == GS_OK) {
        /* After a successful hand-off p belongs to the finalizer: the span
         * uses the saved ids only. */
        s = gs_fin_handoff(e, p, &err);
        gs_tl_span_cpu(w->lane, GS_SPAN_STEP, gs_vocab_name(GS_V_HANDOFF), jid, part, t0, gs_now_ns(),
                       s == GS_OK ? 0 : GS_SPAN_F_FAILED, NULL, gs_task_cpu_ns() - c0);
        if (s == GS_OK)
            return;
    } else {
        step(w->lane, gs_vocab_name(GS_V_HANDOFF), p, t0, 1, NULL);
    }
fail:
    gs_part_drop(e, p, w->lane, s, err.msg);
}

/* Prep ahead: the one-slot hand-over between a worker and its prep thread. */
typedef struct {
    gs_worker *w;
    gs_tl_lane *lane;          /* the prep thread's */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    gs_part *ready;            /* prepared, not yet taken by the worker */
    int done;                  /* the prep thread saw the queue closed */
} prep_ahead;

static void *prep_main(void *arg)
{
    prep_ahead *pa = arg;
    struct gs_engine *e = pa->w->e;
    gs_vt_enter();
    for (;;) {
        /* One prepared partition at a time: wait until the worker took the
         * last one, so the queue's order still decides what runs next. */
        int64_t t0 = gs_now_ns(), t1;
        pthread_mutex_lock(&pa->mu);
        while (pa->ready)
            gs_vt_cond_wait(&pa->cv, &pa->mu);
        pthread_mutex_unlock(&pa->mu);
        t1 = gs_now_ns();
        if (t1 - t0 > 1000)
            gs_tl_span(pa->lane, GS_SPAN_STEP, gs_vocab_name(GS_V_READY_WAIT), -1, -1, t0, t1, 0, NULL);
        gs_part *p = gs_pq_pop(&e->gpu_q, pa->lane, &t0, &t1);
        if (t1 > t0)
            gs_tl_span(pa->lane, GS_SPAN_STEP, gs_vocab_name(GS_V_QUEUE_WAIT), -1, -1, t0, t1, 0, NULL);
        if (!p)
            break;
        if (!prep_partition(pa->w, pa->lane, p))
            continue;
        pthread_mutex_lock(&pa->mu);
        pa->ready = p;
        gs_vt_cond_broadcast(&pa->cv);
        pthread_mutex_unlock(&pa->mu);
    }
    pthread_mutex_lock(&pa->mu);
    pa->done = 1;
    gs_vt_cond_broadcast(&pa->cv);
    pthread_mutex_unlock(&pa->mu);
    gs_vt_exit();
    return NULL;
}

/* The worker loop with a prep thread; 0 when the thread cannot start (the
 * caller then runs the inline loop). */
static int run_prep_ahead(gs_worker *w)
{
    struct gs_engine *e = w->e;
    prep_ahead pa = {.w = w};
    char name[64];
    snprintf(name, sizeof name, "gpu_worker/%d.%d/prep", w->dev, w->idx);
    pa.lane = e->tl ? gs_tl_lane_open(e->tl, name, GS_ROLE_GPU_WORKER, w->dev, -1) : NULL;
    pthread_mutex_init(&pa.mu, NULL);
    pthread_cond_init(&pa.cv, NULL);
    pthread_t th;
    gs_vt_spawn();
    if (pthread_create(&th, NULL, prep_main, &pa) != 0) {
        gs_vt_spawn_failed();
        pthread_cond_destroy(&pa.cv);
        pthread_mutex_destroy(&pa.mu);
        return 0;
    }
    for (;;) {
        int64_t t0 = gs_now_ns();
        pthread_mutex_lock(&pa.mu);
        while (!pa.ready && !pa.done)
            gs_vt_cond_wait(&pa.cv, &pa.mu);
        gs_part *p = pa.ready;
        pa.ready = NULL;
        gs_vt_cond_broadcast(&pa.cv);
        pthread_mutex_unlock(&pa.mu);
        int64_t t1 = gs_now_ns();
        if (t1 - t0 > 1000)
            gs_tl_span(w->lane, GS_SPAN_STEP, gs_vocab_name(GS_V_QUEUE_WAIT), -1, -1, t0, t1, 0, "prepped=1");
        if (!p)
            break;
        device_partition(w, p);
    }
    pthread_join(th, NULL);
    pthread_cond_destroy(&pa.cv);
    pthread_mutex_destroy(&pa.mu);
    return 1;
}

void *gs_worker_main(void *arg)
{
    gs_worker *w = arg;
    struct gs_engine *e = w->e;
    gs_vt_enter();
    /* Prep ahead runs a second thread per worker (a participant of the
     * virtual clock like every engine thread, its hand-over waits wrapped). */
    if (e->cfg.prep_ahead && run_prep_ahead(w)) {
        gs_vt_exit();
        return NULL;
    }
    for (;;) {
        int64_t t0, t1;
        gs_part *p = gs_pq_pop(&e->gpu_q, w->lane, &t0, &t1);
        if (t1 > t0)
            gs_tl_span(w->lane, GS_SPAN_STEP, gs_vocab_name(GS_V_QUEUE_WAIT), -1, -1, t0, t1, 0, NULL);
        if (!p)
            break;
        if (prep_partition(w, w->lane, p))
            device_partition(w, p);
    }
    gs_vt_exit();
    return NULL;
}
