/*
 * Queries of a fitted model (contract in model.h): the stages, a
 * partition's cost (captured instance, seeded draw or size fit), the
 * device order, and the device-only interface of the first model device.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model_int.h"

void gs_model_destroy(gs_model *m)
{
    if (!m)
        return;
    for (int i = 0; i < m->n; i++)
        for (int j = 0; j < m->st[i].n_pt; j++) {
            free(m->st[i].pt[j].in);
            gs_imap_free(&m->st[i].pt[j].ix);
            free(m->st[i].pt[j].sorted);
        }
    for (int i = 0; i < m->n_meta; i++) {
        free(m->meta_k[i]);
        free(m->meta_v[i]);
    }
    free(m);
}

static const char *const staging_names[] = {"pinned", "pageable", "direct"};
_Static_assert(sizeof staging_names / sizeof staging_names[0] == GS_MODEL_STAGING_COUNT, "staging names");

const char *gs_model_staging_name(int staging)
{
    return (unsigned)staging < GS_MODEL_STAGING_COUNT ? staging_names[staging] : "?";
}

int gs_model_staging(const gs_model *m) { return m->staging; }
int gs_model_cores(const gs_model *m) { return m->cores; }
int gs_model_devices(const gs_model *m) { return m->devices; }
const char *gs_model_source(const gs_model *m) { return m->source; }
int gs_model_cpu_measured(const gs_model *m) { return m->cpu_measured; }
const char *gs_model_notes(const gs_model *m) { return m->notes; }
double gs_model_device_spin(const gs_model *m) { return m->spin; }
void gs_model_set_worker_sleeps(gs_model *m, int sleeps)
{
    /* A capture whose workers slept fitted the asleep worker's CPU already
     * (prove_start's 10-15% of its wall in traces/h100-r3s10-issue31). */
    const char *had = gs_model_meta(m, "scenario.gpu.host_sync");
    m->spin = sleeps && !(had && !strcmp(had, "block")) ? 0 : m->spin_fit;
}
int gs_model_n_stages(const gs_model *m) { return m->n; }

const char *gs_model_stage_at(const gs_model *m, int i, gs_model_where *where)
{
    if (i < 0 || i >= m->n)
        return NULL;
    if (where)
        *where = m->st[i].where;
    return m->st[i].name;
}

int gs_model_find(const gs_model *m, const char *name, gs_model_where where)
{
    for (int i = 0; i < m->n; i++)
        if (m->st[i].where == where && !m->st[i].pageable && !m->st[i].emergent &&
            !strcmp(m->st[i].name, name) && m->st[i].n_pt > 0)
            return i;
    return -1;
}

int gs_model_stage_class(const gs_model *m, int stage)
{
    return stage >= 0 && stage < m->n && m->st[stage].where == GS_WHERE_CPU ? m->st[stage].speed_class : -1;
}

int gs_model_stage_threads(const gs_model *m, int stage, int *pool)
{
    if (stage < 0 || stage >= m->n) {
        if (pool)
            *pool = 0;
        return 1;
    }
    if (pool)
        *pool = m->st[stage].pool;
    return m->st[stage].threads;
}

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

gs_status gs_model_cost(const gs_model *m, int si, int kind, uint32_t log, int64_t job,
                        int32_t part, uint64_t seed, double *out, gs_err *err)
{
    *out = 0;
    if (si < 0 || si >= m->n)
        return GS_ERR(err, GS_ERR_ARG, "model", "stage %d out of range", si);
    const stage *s = &m->st[si];
    const point *best = NULL;
    /* Exact (kind, size); then the size with any kind; then size-free. */
    for (int j = 0; j < s->n_pt && !best; j++)
        if (s->pt[j].kind == kind && s->pt[j].log == log && s->pt[j].n)
            best = &s->pt[j];
    for (int j = 0; j < s->n_pt && !best; j++)
        if (s->pt[j].log == log && s->pt[j].n)
            best = &s->pt[j];
    for (int j = 0; j < s->n_pt && !best; j++)
        if (s->pt[j].log == 0 && s->pt[j].n)
            best = &s->pt[j];
    /* A size-free query (a background trim): any captured size. */
    for (int j = 0; j < s->n_pt && !best && log == 0; j++)
        if (s->pt[j].n)
            best = &s->pt[j];
    double scale = 1.0;
    if (!best) {
        int dist = 1 << 30;
        for (int j = 0; j < s->n_pt; j++) {
            int d = abs((int)s->pt[j].log - (int)log);
            if (s->pt[j].n && d < dist) {
                dist = d;
                best = &s->pt[j];
            }
        }
        if (!best)
            return GS_ERR(err, GS_ERR_UNSUPPORTED, "model", "stage %s has no captured instance", s->name);
        if (dist > GS_MODEL_MAX_EXTRAP)
            return GS_ERR(err, GS_ERR_UNSUPPORTED, "model",
                          "stage %s at 2^%u: the capture has it only at 2^%u, more than %d sizes away "
                          "(the fit supports 2^%u..2^%u)", s->name, log, best->log, GS_MODEL_MAX_EXTRAP,
                          best->log > GS_MODEL_MAX_EXTRAP ? best->log - GS_MODEL_MAX_EXTRAP : 0,
                          best->log + GS_MODEL_MAX_EXTRAP);
        scale = exp2(s->b * ((double)log - (double)best->log));
    }
    if (s->where == GS_WHERE_CPU)
        scale *= m->scale[s->speed_class];
    const inst *x = job >= 0 && !m->draw ? gs_mi_inst_find(best, job, part) : NULL;
    if (x) {
        *out = x->v * scale;
        return GS_OK;
    }
    uint64_t h = mix64(mix64(mix64(seed ^ (uint64_t)si * 0x9e3779b97f4a7c15ULL) ^ (uint64_t)job) ^
                       (uint64_t)(int64_t)part);
    *out = best->sorted[h % best->n] * scale;
    return GS_OK;
}

int gs_model_device_order(const gs_model *m, int g2_on_device, int *idx, int cap)
{
    int k = 0;
    for (int i = 0; i < m->n && k < cap; i++) {
        const stage *s = &m->st[i];
        if (s->where != GS_WHERE_DEVICE || s->pageable || !s->n_pt)
            continue;
        if (gs_vocab_is(s->name, GS_V_MSM_B2) && !g2_on_device)
            continue;
        idx[k++] = i;
    }
    return k;
}

/* ---- the device-only interface ------------------------------------------- */

static const stage *dev_stage(const gs_model *m, const char *name, int pageable)
{
    for (int i = 0; i < m->n; i++)
        if (m->st[i].where == GS_WHERE_DEVICE && m->st[i].pageable == pageable &&
            !strcmp(m->st[i].name, name))
            return &m->st[i];
    return NULL;
}

static double fit_at(const stage *s, uint32_t log_n)
{
    for (int j = 0; j < s->n_pt; j++)
        if (s->pt[j].log == log_n)
            return s->pt[j].median;
    return exp2(s->a + s->b * (double)log_n);
}

double gs_model_stage_s(const gs_model *m, const char *stage_name, uint32_t log_n, int pageable)
{
    const stage *pinned = dev_stage(m, stage_name, 0), *pg = dev_stage(m, stage_name, 1);
    if (pageable && pg)
        return fit_at(pg, log_n);
    if (!pinned)
        return pg ? fit_at(pg, log_n) / (pageable ? 1.0 : GS_MODEL_PAGEABLE_FACTOR) : -1.0;
    double t = fit_at(pinned, log_n);
    return pageable && gs_vocab_is(stage_name, GS_V_H2D) ? t * GS_MODEL_PAGEABLE_FACTOR : t;
}

int gs_model_stage_count(const gs_model *m)
{
    int n = 0;
    for (int i = 0; i < m->n; i++)
        n += m->st[i].where == GS_WHERE_DEVICE && !m->st[i].pageable;
    return n;
}

const char *gs_model_stage_name(const gs_model *m, int i)
{
    for (int k = 0; k < m->n; k++)
        if (m->st[k].where == GS_WHERE_DEVICE && !m->st[k].pageable && i-- == 0)
            return m->st[k].name;
    return NULL;
}
