/*
 * The model backend (contract in model.h): a prove in modelled time, on
 * the virtual clock (common/clock.h), from a model fitted on a
 * capture.  No arithmetic runs and no proof exists (the engine's modelled
 * work, engine.h, never verifies).
 *
 * prove_start: take the device mutex (a wrapped mutex: its wait is the
 * stage device_mutex_wait, plus the captured hand-off latency when it was
 * contended: stage device_mutex_handoff), upload B2 on the device's first prove with the
 * G2 MSM on the device (fixed stage load_b2, when captured), the host
 * staging of the first copy as CPU work of the copy's threads at their
 * fair share of the modelled CPU, then the wait for cores beyond it (the
 * staging class's slowdown at the threads that ran beside it, and the
 * scheduler's slice when they outnumber the cores: delays,
 * model_staging.c), then each device stage in device order for its
 * modelled time (a virtual sleep: the device is not the CPU), then the
 * fixed host part of a prove; while
 * the stages run the worker counts as gs_model_device_spin() of a busy
 * thread on the modelled CPU (rounded: a worker that spun at least half
 * its time counts as one thread; load: it takes a core from the share,
 * not a place on the contention curves, pshare.h).  Stages are reported with
 * GS_STAGE_F_MODELLED at their virtual times.
 * prove_finish: the CPU G2 MSM (unless it ran on the device) as CPU work
 * on this device's pool, then the epilogue as one thread of CPU work;
 * both reported as host stages.  With the G2 MSM on the CPU, prove_start
 * copies the witness for it (gs_model_state_copy_s): CPU work of the
 * worker, and at least the profile's busy copy time
 * (gs_model_state_copy_busy_s, at the synthesis threads busy when it
 * starts) while one of prove_finish's MSMs runs on the host (any
 * device's).
 *
 * Lock order: impl->mu (the device mutex) only.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/clock.h"
#include "../timeline/vocab.h"
#include "model.h"

typedef struct {
    const gs_model *m;
    int shift, pool;
    uint64_t seed;
    pthread_mutex_t mu;
    int b2_loaded;          /* under mu */
    char desc[480];
} model_impl;

/* CPU G2 MSMs running in prove_finish on this host, every device's (the
 * witness copy's page faults meet them all).  One count for the process:
 * the virtual clock that model runs need is the process's own, one run at
 * a time (common/clock.h), and every increment is paired with its
 * decrement. */
static atomic_int host_msm_b2;

struct gs_prove_state {
    int64_t job;
    int32_t part;
    int kind;
    uint32_t log;
    int g2_dev;
};

static void push(gs_stage_list *l, const char *name, gs_stage_kind kind, int dev, int stream, int64_t t0,
                 int64_t t1, uint16_t flags)
{
    if (!l || l->n >= GS_STAGE_MAX)
        return;
    l->s[l->n++] = (gs_stage){.name = name, .kind = kind, .device = dev, .stream = stream,
                              .start_ns = t0, .end_ns = t1, .flags = flags};
}

static const char *model_describe(gs_backend *be) { return ((model_impl *)be->impl)->desc; }

static gs_status model_load_pk(gs_backend *be, const gs_pk *pk, gs_err *err)
{
    (void)be;
    (void)pk;
    (void)err;
    return GS_OK;
}

static int64_t ns_of(double s) { return s > 0 ? (int64_t)(s * 1e9 + 0.5) : 0; }

/* Fixed or device time of stage si for st: a virtual sleep. */
static gs_status timed(model_impl *im, int si, const gs_prove_state *st, double factor, gs_err *err)
{
    double s;
    gs_status rc = gs_model_cost(im->m, si, st->kind, st->log, st->job, st->part, im->seed, &s, err);
    if (rc == GS_OK)
        gs_vt_sleep(ns_of(s * factor));
    return rc;
}

static gs_status model_prove_start(gs_backend *be, const gs_pk *pk, const gs_assignment *as,
                                   const gs_scalar *r, const gs_scalar *s, const gs_prove_opts *opts,
                                   gs_prove_state **out, gs_stage_list *stages, gs_err *err)
{
    model_impl *im = be->impl;
    (void)as;
    (void)r;
    (void)s;
    int dev = be->device < 0 ? 0 : be->device;
    gs_prove_state *st = calloc(1, sizeof *st);
    if (!st)
        return GS_ERR(err, GS_ERR_NOMEM, "model backend", "out of memory");
    int log = (int)pk->log_domain + im->shift;
    st->log = (uint32_t)(log < 1 ? 1 : log);
    st->kind = opts ? opts->kind : -1;
    st->job = opts ? opts->job_id : -1;
    st->part = opts ? opts->part : -1;
    st->g2_dev = opts && opts->g2_on_device;
    int pageable = opts && opts->pageable;
    gs_status rc = GS_OK;

    int64_t w0 = gs_now_ns();
    if (gs_vt_mutex_lock(&im->mu)) {
        /* A contended hand-off: the waiter wakes the captured latency
         * after the holder lets go (part of the wait). */
        int hs = gs_model_find(im->m, "device_mutex_handoff", GS_WHERE_FIXED);
        if (hs >= 0)
            rc = timed(im, hs, st, 1.0, err);
    }
    int64_t t = gs_now_ns();
    if (t > w0)
        push(stages, gs_vocab_name(GS_V_DEVICE_MUTEX_WAIT), GS_STAGE_HOST, -1, 0, w0, t, 0);
    if (st->g2_dev && !im->b2_loaded) {
        im->b2_loaded = 1;
        int si = gs_model_find(im->m, gs_vocab_name(GS_V_LOAD_B2), GS_WHERE_FIXED);
        if (si >= 0 && (rc = timed(im, si, st, 1.0, err)) == GS_OK) {
            push(stages, gs_vocab_name(GS_V_LOAD_B2), GS_STAGE_HOST, -1, 0, t, gs_now_ns(), GS_STAGE_F_MODELLED);
            t = gs_now_ns();
        }
    }
    gs_model_plan plan;
    gs_model_prove_q q = {.kind = st->kind, .log = st->log, .job = st->job, .part = st->part,
                          .seed = im->seed, .g2_on_device = st->g2_dev,
                          .staging = pageable ? GS_MODEL_STAGING_PAGEABLE
                                     : opts && opts->direct ? GS_MODEL_STAGING_DIRECT
                                                            : GS_MODEL_STAGING_PINNED};
    if (rc == GS_OK)
        rc = gs_model_prove_plan(&plan, im->m, &q, err);
    if (rc == GS_OK && plan.staging_s > 0) {
        /* Its fair share of the modelled CPU, then the wait for cores
         * beyond it (the staging class's slowdown at the runnable threads
         * it ran with: a delay, not CPU). */
        double T;
        gs_vt_cpu_runnable(ns_of(plan.staging_s * plan.staging_threads), plan.staging_threads, -1, -1, &T);
        double g = T > 0 ? 1.0 / gs_model_speed(im->m, GS_SPEED_STAGING, T) : 1.0;
        if (g > 1)
            gs_vt_sleep((int64_t)((double)(gs_now_ns() - t) * (g - 1)));
        /* A copy beyond the cores: one scheduler slice more
         * (model_staging.c). */
        if (T > gs_model_cores(im->m) && gs_model_staging_slice_s(im->m) > 0)
            gs_vt_sleep(ns_of(gs_model_staging_slice_s(im->m)));
        t = gs_now_ns();
    }
    if (rc == GS_OK) {
        /* The device stages, with the worker spinning while they run; then
         * the prove's host tail. */
        int spin = gs_model_device_spin(im->m) >= 0.5;
        /* With the G2 MSM on the CPU, the worker copies the witness for
         * it once the witness MSMs (msm_l, msm_a, msm_b1) are done, while
         * the device works on (gs_model_state_copy_s; the CUDA backend's
         * device_part): CPU work of its thread, the device's time
         * elapsing meanwhile. */
        int64_t left = ns_of(plan.device_end), c0 = gs_now_ns();
        double wc = st->g2_dev ? 0 : gs_model_state_copy_s(im->m, st->kind, st->log);
        if (wc > 0) {
            if (spin)
                gs_vt_load(1);
            gs_vt_sleep(ns_of(plan.witness_end));
            if (spin)
                gs_vt_load(-1);
            int64_t w0 = gs_now_ns();
            gs_vt_cpu_class(ns_of(wc), 1, -1, GS_SPEED_OTHER);
            /* Beside a CPU G2 MSM of the host's finalizers the copy
             * lasts what calibrate measured there (wall), when that is
             * longer than its share of the modelled CPU gave it. */
            double busy = atomic_load(&host_msm_b2) > 0
                              ? gs_model_state_copy_busy_s(im->m, st->kind, st->log, gs_model_synth_busy())
                              : 0;
            int64_t more = ns_of(busy) - (gs_now_ns() - w0);
            if (more > 0)
                gs_vt_sleep(more);
            left -= gs_now_ns() - c0;
            if (left < 0)
                left = 0;
        }
        if (spin)
            gs_vt_load(1);
        gs_vt_sleep(left);
        if (spin)
            gs_vt_load(-1);
        gs_vt_sleep(ns_of(plan.total) - ns_of(plan.device_end));
        for (int i = 0; i < plan.n; i++) {
            gs_model_where w;
            const char *name = gs_model_stage_at(im->m, plan.stage[i], &w);
            int copy = gs_vocab_is(name, GS_V_H2D) || gs_vocab_is(name, GS_V_H2D_W) || gs_vocab_is(name, GS_V_D2H);
            push(stages, name, copy ? GS_STAGE_COPY : GS_STAGE_KERNEL, dev, plan.stream[i],
                 t + ns_of(plan.t0[i]), t + ns_of(plan.t1[i]),
                 (uint16_t)(GS_STAGE_F_MODELLED | (plan.pageable[i] ? GS_STAGE_F_PAGEABLE : 0)));
        }
    }
    gs_vt_mutex_unlock(&im->mu);
    if (rc != GS_OK) {
        free(st);
        return rc;
    }
    *out = st;
    return GS_OK;
}

/* CPU work of stage si for st (threads from the model; the pool's for the G2 MSM). */
static gs_status cpu(model_impl *im, int si, const gs_prove_state *st, gs_err *err)
{
    double s;
    gs_status rc = gs_model_cost(im->m, si, st->kind, st->log, st->job, st->part, im->seed, &s, err);
    if (rc != GS_OK)
        return rc;
    int pool;
    int threads = gs_model_stage_threads(im->m, si, &pool);
    gs_vt_cpu_class(ns_of(s), threads, pool ? im->pool : -1, gs_model_stage_class(im->m, si));
    return GS_OK;
}

static gs_status model_prove_finish(gs_backend *be, gs_prove_state *st, gs_proof *out,
                                    gs_stage_list *stages, gs_err *err)
{
    model_impl *im = be->impl;
    gs_status rc = GS_OK;
    if (!st)
        return GS_ERR(err, GS_ERR_STATE, "model backend", "finish without a started proof");
    memset(out, 0, sizeof *out);
    int64_t t0 = gs_now_ns();
    if (!st->g2_dev) {
        int si = gs_model_find(im->m, gs_vocab_name(GS_V_MSM_B2), GS_WHERE_CPU);
        if (si < 0)
            rc = GS_ERR(err, GS_ERR_UNSUPPORTED, "model backend",
                        "the G2 MSM on the CPU is not in the model (%s ran it on the device)",
                        gs_model_source(im->m));
        else {
            atomic_fetch_add(&host_msm_b2, 1);
            rc = cpu(im, si, st, err);
            atomic_fetch_sub(&host_msm_b2, 1);
            if (rc == GS_OK)
                push(stages, gs_vocab_name(GS_V_MSM_B2), GS_STAGE_HOST, -1, 0, t0, gs_now_ns(),
                     GS_STAGE_F_MODELLED);
        }
    }
    int ep = gs_model_find(im->m, gs_vocab_name(GS_V_EPILOGUE), GS_WHERE_CPU);
    if (rc == GS_OK && ep >= 0) {
        int64_t t1 = gs_now_ns();
        if ((rc = cpu(im, ep, st, err)) == GS_OK)
            push(stages, gs_vocab_name(GS_V_EPILOGUE), GS_STAGE_HOST, -1, 0, t1, gs_now_ns(),
                 GS_STAGE_F_MODELLED);
    }
    free(st);
    return rc;
}

static void model_prove_abort(gs_backend *be, gs_prove_state *st)
{
    (void)be;
    free(st);
}

static void model_destroy(gs_backend *be)
{
    if (!be)
        return;
    model_impl *im = be->impl;
    if (im) {
        pthread_mutex_destroy(&im->mu);
        free(im);
    }
    free(be);
}

static const gs_backend_ops model_ops = {
    .name = "model",
    /* A modelled GPU: the B G2 MSM on the device when asked (and
     * captured); heap assignments (nothing is pinned in modelled time). */
    .caps = { .kind = GS_BE_KIND_MODEL, .g2_on_device = 1 },
    .describe = model_describe,
    .load_pk = model_load_pk,
    .prove_start = model_prove_start,
    .prove_finish = model_prove_finish,
    .prove_abort = model_prove_abort,
    .destroy = model_destroy,
};

gs_status gs_backend_model_create(gs_backend **out, const gs_model *m, int device,
                                  int size_shift, int pool, uint64_t seed, gs_err *err)
{
    *out = NULL;
    gs_backend *be = calloc(1, sizeof *be);
    model_impl *im = calloc(1, sizeof *im);
    if (!be || !im) {
        free(be);
        free(im);
        return GS_ERR(err, GS_ERR_NOMEM, "model backend", "out of memory");
    }
    be->ops = &model_ops;
    be->device = device;
    be->impl = im;
    im->m = m;
    im->shift = size_shift;
    im->pool = pool;
    im->seed = seed;
    pthread_mutex_init(&im->mu, NULL);
    snprintf(im->desc, sizeof im->desc, "model device %d (modelled from %s, size shift %+d)", device,
             gs_model_source(m), size_shift);
    *out = be;
    return GS_OK;
}
