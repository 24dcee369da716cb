/*
 * Engine vocabulary: the name tables of job kinds, policies, injection
 * points and distributions (kept in step with their enums by static
 * asserts), the settings written to the timeline's metadata
 * (scenario.engine.*, scenario.engine.inject.<point>), and the checks and
 * copies gs_engine_create makes of a configuration (defaults and ranges of
 * the settings: settings.c).
 *
 * No threads, no state: every function here is pure or writes only what it
 * is given.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_int.h"

static const struct {
    const char *name;
    uint32_t partitions;
    int priority;
} kinds[] = {
#define GS_X(e, n, p, pr) {n, p, pr},
    GS_JOB_KIND_TABLE(GS_X)
#undef GS_X
};
_Static_assert(sizeof kinds / sizeof kinds[0] == GS_KIND_COUNT, "kind table out of step");

static const char *const inj_names[] = {GS_INJ_TABLE(GS_XT_COL2)};
_Static_assert(sizeof inj_names / sizeof inj_names[0] == GS_INJ_COUNT, "inj table out of step");

static const gs_vocab work_steps[] = {GS_WORK_TABLE(GS_XT_COL2)};
_Static_assert(sizeof work_steps / sizeof work_steps[0] == GS_WORK_COUNT, "work table out of step");

const char *gs_work_unit_name(gs_work_unit u)
{
    return (unsigned)u < GS_WORK_COUNT ? gs_vocab_name(work_steps[u]) : NULL;
}

static const char *const trim_names[] = {"under_lock", "after_unlock", "background", "off"};
_Static_assert(sizeof trim_names / sizeof trim_names[0] == GS_TRIM_COUNT, "trim names");
static const char *const verify_names[] = {"under_lock", "after_unlock", "off"};
_Static_assert(sizeof verify_names / sizeof verify_names[0] == GS_VERIFY_COUNT, "verify names");
static const char *const dist_names[] = {"fixed", "uniform", "lognormal", "empirical"};
_Static_assert(sizeof dist_names / sizeof dist_names[0] == GS_DIST_COUNT, "dist names");

const char *gs_job_kind_name(gs_job_kind k)
{
    return (unsigned)k < GS_KIND_COUNT ? kinds[k].name : NULL;
}

int gs_job_kind_from_name(gs_job_kind *out, const char *name)
{
    for (int i = 0; name && i < GS_KIND_COUNT; i++)
        if (strcmp(kinds[i].name, name) == 0) {
            *out = (gs_job_kind)i;
            return 1;
        }
    return 0;
}

uint32_t gs_job_kind_partitions(gs_job_kind k)
{
    return (unsigned)k < GS_KIND_COUNT ? kinds[k].partitions : 1;
}

int gs_job_kind_priority(gs_job_kind k)
{
    return (unsigned)k < GS_KIND_COUNT ? kinds[k].priority : 2;
}

GS_XT_DEFINE_NAMES(gs_inj_point, gs_inj_point, inj_names, GS_INJ_COUNT)

const char *gs_trim_policy_name(gs_trim_policy p)
{
    return (unsigned)p < GS_TRIM_COUNT ? trim_names[p] : NULL;
}

const char *gs_verify_policy_name(gs_verify_policy p)
{
    return (unsigned)p < GS_VERIFY_COUNT ? verify_names[p] : NULL;
}

const char *gs_dist_kind_name(gs_dist_kind k)
{
    return (unsigned)k < GS_DIST_COUNT ? dist_names[k] : NULL;
}

void gs_dist_args(char *buf, size_t len, const gs_dist *d)
{
    switch (d->kind) {
    case GS_DIST_FIXED:
        snprintf(buf, len, "dist=fixed;a=%.9g", d->a);
        break;
    case GS_DIST_UNIFORM:
        snprintf(buf, len, "dist=uniform;a=%.9g;b=%.9g", d->a, d->b);
        break;
    case GS_DIST_LOGNORMAL:
        snprintf(buf, len, "dist=lognormal;median=%.9g;sigma=%.9g", d->a, d->b);
        break;
    case GS_DIST_EMPIRICAL:
        snprintf(buf, len, "dist=empirical;n=%zu", d->n_samples);
        break;
    default:
        snprintf(buf, len, "dist=?");
        break;
    }
}

double gs_dist_sample(const gs_dist *d, gs_rng *r)
{
    switch (d->kind) {
    case GS_DIST_FIXED:
        return d->a;
    case GS_DIST_UNIFORM:
        return d->a + (d->b - d->a) * gs_rng_unit(r);
    case GS_DIST_LOGNORMAL:
        return d->a * exp(d->b * gs_rng_normal(r));
    case GS_DIST_EMPIRICAL:
        return d->n_samples ? d->samples[gs_rng_below(r, d->n_samples)] : 0.0;
    default:
        return 0.0;
    }
}

double gs_dist_mean(const gs_dist *d)
{
    switch (d->kind) {
    case GS_DIST_FIXED:
        return d->a;
    case GS_DIST_UNIFORM:
        return 0.5 * (d->a + d->b);
    case GS_DIST_LOGNORMAL: /* E[X] = median * exp(sigma^2 / 2) */
        return d->a * exp(0.5 * d->b * d->b);
    case GS_DIST_EMPIRICAL: {
        double s = 0;
        for (size_t i = 0; i < d->n_samples; i++)
            s += d->samples[i];
        return d->n_samples ? s / (double)d->n_samples : 0.0;
    }
    default:
        return 0.0;
    }
}

gs_status gs_engine_config_copy_samples(gs_engine_config *cfg, gs_err *err)
{
    for (int i = 0; i < GS_INJ_COUNT; i++) {
        gs_dist *d = &cfg->inj[i].dist;
        if (d->kind != GS_DIST_EMPIRICAL || !d->n_samples) {
            d->samples = NULL;
            d->n_samples = d->kind == GS_DIST_EMPIRICAL ? 0 : d->n_samples;
            continue;
        }
        double *s = malloc(d->n_samples * sizeof *s);
        if (!s) {
            for (int k = 0; k < i; k++)
                free(cfg->inj[k].dist.samples);
            for (int k = i; k < GS_INJ_COUNT; k++)
                cfg->inj[k].dist.samples = NULL;
            return GS_ERR(err, GS_ERR_NOMEM, "engine", "no memory for empirical samples");
        }
        memcpy(s, d->samples, d->n_samples * sizeof *s);
        d->samples = s;
    }
    return GS_OK;
}

gs_status gs_engine_config_check(const gs_engine_config *c, gs_backend **be, int n_dev,
                                gs_err *err)
{
    if (!c || !be || n_dev < 1)
        return GS_ERR(err, GS_ERR_ARG, "engine", "need a config and at least one backend");
    for (int i = 0; i < n_dev; i++)
        if (!be[i] || !be[i]->ops)
            return GS_ERR(err, GS_ERR_ARG, "engine", "backend %d is NULL", i);
    gs_status st = gs_engine_settings_check(c, err); /* the ranges of settings.h */
    if (st != GS_OK)
        return st;
    if ((unsigned)c->trim >= GS_TRIM_COUNT || (unsigned)c->verify >= GS_VERIFY_COUNT)
        return GS_ERR(err, GS_ERR_RANGE, "engine", "unknown trim or verify policy");
    /* staging = direct: a pool of synthesis buffers from the backend's host
     * memory (gs_backend_caps: page-locked with the CUDA backend), heap
     * buffers with the CPU one (reused, no allocation per partition); the
     * model backend takes it as pinned staging (nothing is synthesized or
     * pinned in modelled time).  One kind of pool per engine: every backend
     * of one kind, with one allocator. */
    if (c->direct && c->pageable)
        return GS_ERR(err, GS_ERR_ARG, "engine", "staging: direct and pageable at once");
    if (c->direct)
        for (int i = 1; i < n_dev; i++)
            if (be[i]->ops->caps.kind != be[0]->ops->caps.kind ||
                be[i]->ops->caps.assignment_alloc != be[0]->ops->caps.assignment_alloc ||
                be[i]->ops->caps.assignment_free != be[0]->ops->caps.assignment_free)
                return GS_ERR(err, GS_ERR_ARG, "engine", "staging = direct needs one backend kind "
                              "(one pool); backend %d is %s, backend 0 %s", i,
                              be[i]->ops->name ? be[i]->ops->name : "unnamed",
                              be[0]->ops->name ? be[0]->ops->name : "unnamed");
    if ((unsigned)c->h_conv >= GS_H_CONV_COUNT)
        return GS_ERR(err, GS_ERR_RANGE, "engine", "unknown H convention %d", (int)c->h_conv);
    for (int i = 0; i < GS_INJ_COUNT; i++) {
        const gs_injection *in = &c->inj[i];
        if (!in->enabled)
            continue;
        if ((unsigned)in->dist.kind >= GS_DIST_COUNT || !(in->probability >= 0.0) ||
            in->probability > 1.0)
            return GS_ERR(err, GS_ERR_RANGE, "engine", "injection %s: bad distribution or probability",
                          gs_inj_point_name((gs_inj_point)i));
        if (in->dist.kind == GS_DIST_EMPIRICAL && (!in->dist.samples || !in->dist.n_samples))
            return GS_ERR(err, GS_ERR_ARG, "engine", "injection %s: empirical without samples",
                          gs_inj_point_name((gs_inj_point)i));
    }
    return GS_OK;
}

static void meta_int(gs_timeline *tl, const char *key, long long v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", v);
    gs_timeline_meta_set(tl, key, buf);
}

/* Writes the settings in effect, backend and device names to tl's metadata. */
void gs_engine_write_meta(const gs_engine_config *cfg, gs_backend **be, int n_dev,
                          gs_timeline *tl)
{
    char key[96], val[256];
    if (!tl)
        return;
    if (n_dev > 0 && be[0]->ops->name) {
        gs_timeline_meta_set(tl, "backend", be[0]->ops->name);
        const char *d = be[0]->ops->describe ? be[0]->ops->describe(be[0]) : NULL;
        gs_timeline_meta_set(tl, "backend.description", d ? d : be[0]->ops->name);
    }
    for (int i = 0; i < n_dev; i++) {
        const char *d = be[i]->ops->describe ? be[i]->ops->describe(be[i]) : NULL;
        snprintf(key, sizeof key, "device.%d.name", i);
        gs_timeline_meta_set(tl, key, d ? d : be[i]->ops->name);
        snprintf(key, sizeof key, "device.%d.backend", i);
        gs_timeline_meta_set(tl, key, be[i]->ops->name);
    }
    meta_int(tl, "scenario.engine.devices", n_dev);
    meta_int(tl, "scenario.engine.synth_threads", cfg->synth_threads);
    meta_int(tl, "scenario.engine.gpu_workers", cfg->gpu_workers_per_device);
    meta_int(tl, "scenario.engine.finalizer_threads", cfg->finalizer_threads);
    meta_int(tl, "scenario.engine.queue_depth", cfg->queue_depth);
    meta_int(tl, "scenario.engine.prove_threads", cfg->prove_threads);
    gs_timeline_meta_set(tl, "scenario.engine.trim", gs_trim_policy_name(cfg->trim));
    gs_timeline_meta_set(tl, "scenario.engine.verify", gs_verify_policy_name(cfg->verify));
    gs_timeline_meta_set(tl, "scenario.engine.staging",
                         cfg->pageable ? "pageable" : cfg->direct ? "direct" : "pinned");
    if (cfg->direct)
        meta_int(tl, "scenario.engine.pin_pool", cfg->pin_pool);
    meta_int(tl, "scenario.engine.finish_in_worker", cfg->finish_in_worker);
    gs_timeline_meta_set(tl, "scenario.engine.g2", cfg->g2_on_device ? "device" : "cpu");
    gs_timeline_meta_set(tl, "scenario.engine.prep", cfg->prep_ahead ? "ahead" : "inline");
    gs_timeline_meta_set(tl, "scenario.engine.h_convention", gs_h_convention_name(cfg->h_conv));
    snprintf(val, sizeof val, "%llu", (unsigned long long)cfg->seed);
    gs_timeline_meta_set(tl, "scenario.engine.seed", val);
    for (int i = 0; i < GS_INJ_COUNT; i++) {
        const gs_injection *in = &cfg->inj[i];
        if (!in->enabled)
            continue;
        gs_dist_args(val, sizeof val, &in->dist);
        size_t n = strlen(val);
        snprintf(val + n, sizeof val - n, ";probability=%.6g;seed=%llu;mode=%s%s",
                 in->probability, (unsigned long long)in->seed,
                 in->real ? "real" : "synthetic", in->fail ? ";fail=1" : "");
        if (in->real) {
            n = strlen(val);
            snprintf(val + n, sizeof val - n, ";frag_bytes=%llu",
                     (unsigned long long)in->frag_bytes);
            if (in->work_per_constraint) {
                n = strlen(val);
                snprintf(val + n, sizeof val - n, ";work_per_constraint=%llu",
                         (unsigned long long)in->work_per_constraint);
            }
        }
        snprintf(key, sizeof key, "scenario.engine.inject.%s", inj_names[i]);
        gs_timeline_meta_set(tl, key, val);
    }
}
