/*
 * The model backend (contract in model.h): real proofs from an inner CPU
 * backend, device time from the model.
 *
 * prove_start: wait for the device mutex (reported as device_mutex_wait),
 * run the inner CPU prove_start (the real arithmetic of the small circuit),
 * then keep the device held until the modelled stages would have finished
 * (stages laid end to end from the moment the device was taken).  If the
 * real arithmetic takes longer than the model, the device is held for the
 * real time and the modelled spans end early: the report then shows idle
 * "device" time that a real GPU would not have, so keep real circuits small
 * and model_size_shift large.
 *
 * Lock order: impl->mu (the device mutex) only.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../prover/common/rng.h"
#include "model.h"

typedef struct {
    const gs_model *m;
    gs_backend *cpu;
    int shift;
    pthread_mutex_t mu;
    char desc[400];
} model_impl;

static void push(gs_stage_list *l, const char *name, gs_stage_kind kind, int dev, int64_t t0, int64_t t1,
                 uint16_t flags)
{
    if (!l || l->n >= GS_STAGE_MAX)
        return;
    l->s[l->n++] = (gs_stage){.name = name, .kind = kind, .device = dev, .stream = 0,
                              .start_ns = t0, .end_ns = t1, .flags = flags};
}

static const char *model_describe(gs_backend *be) { return ((model_impl *)be->impl)->desc; }

static gs_status model_load_pk(gs_backend *be, const gs_pk *pk, gs_err *err)
{
    model_impl *im = be->impl;
    return im->cpu->ops->load_pk(im->cpu, pk, err);
}

static gs_status model_prove_start(gs_backend *be, const gs_pk *pk, const gs_assignment *as,
                                   const gs_scalar *r, const gs_scalar *s, const gs_prove_opts *opts,
                                   gs_prove_state **st, gs_stage_list *stages, gs_err *err)
{
    model_impl *im = be->impl;
    int dev = be->device;
    int pageable = opts && opts->pageable;
    int64_t w0 = gs_now_ns();
    pthread_mutex_lock(&im->mu);
    int64_t t = gs_now_ns();
    if (t > w0)
        push(stages, "device_mutex_wait", GS_STAGE_HOST, -1, w0, t, 0);
    gs_stage_list inner; /* the CPU's own stages are replaced by the model's */
    inner.n = 0;
    gs_status rc = im->cpu->ops->prove_start(im->cpu, pk, as, r, s, opts, st, &inner, err);
    if (rc != GS_OK) {
        pthread_mutex_unlock(&im->mu);
        return rc;
    }
    int log = (int)pk->log_domain + im->shift;
    if (log < 1)
        log = 1;
    int n = gs_model_stage_count(im->m);
    for (int i = 0; i < n; i++) {
        const char *name = gs_model_stage_name(im->m, i);
        int pg = pageable && !strcmp(name, "h2d");
        double d = gs_model_stage_s(im->m, name, (uint32_t)log, pg);
        if (d <= 0)
            continue;
        int64_t t1 = t + (int64_t)(d * 1e9);
        int copy = !strcmp(name, "h2d") || !strcmp(name, "d2h");
        push(stages, name, copy ? GS_STAGE_COPY : GS_STAGE_KERNEL, dev < 0 ? 0 : dev, t, t1,
             (uint16_t)(GS_STAGE_F_MODELLED | (pg ? GS_STAGE_F_PAGEABLE : 0)));
        t = t1;
    }
    int64_t now = gs_now_ns();
    if (now < t)
        gs_sleep_ns(t - now);
    pthread_mutex_unlock(&im->mu);
    return GS_OK;
}

static gs_status model_prove_finish(gs_backend *be, gs_prove_state *st, gs_proof *out,
                                    gs_stage_list *stages, gs_err *err)
{
    model_impl *im = be->impl;
    gs_stage_list inner;
    inner.n = 0;
    gs_status rc = im->cpu->ops->prove_finish(im->cpu, st, out, &inner, err);
    /* Host stages (G2 MSM, epilogue) ran for real: pass them through. */
    for (int i = 0; i < inner.n; i++) {
        gs_stage x = inner.s[i];
        if (x.kind != GS_STAGE_HOST)
            x.kind = GS_STAGE_HOST, x.device = -1;
        if (stages && stages->n < GS_STAGE_MAX)
            stages->s[stages->n++] = x;
    }
    return rc;
}

static void model_prove_abort(gs_backend *be, gs_prove_state *st)
{
    model_impl *im = be->impl;
    im->cpu->ops->prove_abort(im->cpu, st);
}

static void model_destroy(gs_backend *be)
{
    if (!be)
        return;
    model_impl *im = be->impl;
    if (im) {
        if (im->cpu)
            im->cpu->ops->destroy(im->cpu);
        pthread_mutex_destroy(&im->mu);
        free(im);
    }
    free(be);
}

static const gs_backend_ops model_ops = {
    .name = "model",
    .describe = model_describe,
    .load_pk = model_load_pk,
    .prove_start = model_prove_start,
    .prove_finish = model_prove_finish,
    .prove_abort = model_prove_abort,
    .destroy = model_destroy,
};

gs_status gs_backend_model_create(gs_backend **out, const gs_model *m, int device,
                                  int size_shift, int cpu_threads, gs_err *err)
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
    pthread_mutex_init(&im->mu, NULL);
    snprintf(im->desc, sizeof im->desc, "model device %d (modelled from %s, size shift %+d)", device,
             gs_model_source(m), size_shift);
    gs_status rc = gs_backend_cpu_create(&im->cpu, cpu_threads, err);
    if (rc != GS_OK) {
        model_destroy(be);
        return rc;
    }
    *out = be;
    return GS_OK;
}
