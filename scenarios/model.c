/*
 * Fitting device-stage durations from a captured timeline (contract and
 * method in model.h).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../diag/timeline.h"
#include "model.h"
#include "run.h"

#define MAX_STAGES 24
#define MAX_SIZES 16
#define MAX_JOBS 4096

/* Canonical device order of the stages a prove runs. */
static const char *const stage_order[] = {"h2d", "intt", "coset", "ntt", "msm_h", "batch_add", "msm_l",
                                          "msm_a", "msm_b1", "msm_b2", "d2h"};

typedef struct {
    uint32_t log_n;
    double *per_part;   /* total stage seconds per captured partition */
    size_t n, cap;
    double median;
} size_pts;

typedef struct {
    char name[32];
    int pageable;       /* h2d from pageable memory */
    size_pts sz[MAX_SIZES];
    int n_sz;
    double a, b;        /* log2(t) = a + b * log_n, when n_sz >= 2 */
    int rank;
} stage_fit;

struct gs_model {
    stage_fit st[MAX_STAGES];
    int n;
    char source[320];
};

static int cmp_d(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

static int rank_of(const char *name)
{
    for (size_t i = 0; i < sizeof stage_order / sizeof stage_order[0]; i++)
        if (!strcmp(name, stage_order[i]))
            return (int)i;
    return 100;
}

static stage_fit *stage_get(gs_model *m, const char *name, int pageable)
{
    for (int i = 0; i < m->n; i++)
        if (!strcmp(m->st[i].name, name) && m->st[i].pageable == pageable)
            return &m->st[i];
    if (m->n == MAX_STAGES)
        return NULL;
    stage_fit *s = &m->st[m->n++];
    snprintf(s->name, sizeof s->name, "%s", name);
    s->pageable = pageable;
    s->rank = rank_of(name);
    return s;
}

static uint32_t args_uint(const char *args, const char *key)
{
    const char *p = args ? strstr(args, key) : NULL;
    return p ? (uint32_t)strtoul(p + strlen(key), NULL, 10) : 0;
}

/* Per (stage, job, part) totals are accumulated in a small open table. */
typedef struct {
    int stage, job, part;
    uint32_t log_n;
    double s;
} acc;

gs_status gs_model_load(gs_model **out, const char *spans_csv, gs_err *err)
{
    *out = NULL;
    gs_timeline *tl = NULL;
    acc *accs = NULL;
    uint32_t *job_log = calloc(MAX_JOBS, sizeof *job_log);
    gs_model *m = calloc(1, sizeof *m);
    gs_status st = GS_OK;
    if (!m || !job_log) {
        st = GS_ERR(err, GS_ERR_NOMEM, "model", "out of memory");
        goto fail;
    }
    if ((st = gs_timeline_read_csv(&tl, spans_csv, err)) != GS_OK)
        goto fail;
    const char *meta_log = gs_timeline_meta_get(tl, "model.log_n");
    uint32_t default_log = meta_log ? (uint32_t)strtoul(meta_log, NULL, 10) : 0;
    const char *dev = gs_timeline_meta_get(tl, "device.0.name");
    snprintf(m->source, sizeof m->source, "%.120s via %.180s", dev ? dev : "captured device", spans_csv);
    size_t n, n_acc = 0;
    const gs_span *sp = gs_timeline_spans(tl, &n);
    accs = calloc(n ? n : 1, sizeof *accs);
    if (!accs) {
        st = GS_ERR(err, GS_ERR_NOMEM, "model", "out of memory");
        goto fail;
    }
    /* The driver's submit marks carry each job's size. */
    for (size_t i = 0; i < n; i++)
        if (sp[i].kind == GS_SPAN_MARK && !strcmp(sp[i].name, "submit") && sp[i].job >= 0 && sp[i].job < MAX_JOBS)
            job_log[sp[i].job] = args_uint(sp[i].args, "log_constraints=");
    for (size_t i = 0; i < n; i++) {
        if (sp[i].kind != GS_SPAN_KERNEL && sp[i].kind != GS_SPAN_COPY)
            continue;
        const gs_lane_info *li = gs_timeline_lane(tl, sp[i].lane);
        if (!li || li->role != GS_ROLE_DEVICE)
            continue;
        uint32_t log = args_uint(sp[i].args, "log_n=");
        if (!log && sp[i].job >= 0 && sp[i].job < MAX_JOBS)
            log = job_log[sp[i].job];
        if (!log)
            log = default_log;
        if (!log)
            continue;
        int pageable = sp[i].args && strstr(sp[i].args, "pageable=1");
        stage_fit *sf = stage_get(m, sp[i].name, pageable && !strcmp(sp[i].name, "h2d"));
        if (!sf)
            continue;
        int si = (int)(sf - m->st);
        /* Newest entries first: a partition's stages come close together. */
        size_t k = n_acc;
        while (k > 0 && !(accs[k - 1].stage == si && accs[k - 1].job == sp[i].job && accs[k - 1].part == sp[i].part))
            k--;
        if (k == 0) {
            k = n_acc;
            accs[n_acc++] = (acc){si, sp[i].job, sp[i].part, log, 0.0};
        } else
            k--;
        accs[k].s += (double)(sp[i].end_ns - sp[i].start_ns) * 1e-9;
    }
    for (size_t k = 0; k < n_acc; k++) {
        stage_fit *sf = &m->st[accs[k].stage];
        int j = 0;
        while (j < sf->n_sz && sf->sz[j].log_n != accs[k].log_n)
            j++;
        if (j == MAX_SIZES)
            continue;
        if (j == sf->n_sz)
            sf->sz[sf->n_sz++].log_n = accs[k].log_n;
        size_pts *p = &sf->sz[j];
        if (p->n == p->cap) {
            p->cap = p->cap ? p->cap * 2 : 16;
            double *np = realloc(p->per_part, p->cap * sizeof *np);
            if (!np) {
                st = GS_ERR(err, GS_ERR_NOMEM, "model", "out of memory");
                goto fail;
            }
            p->per_part = np;
        }
        p->per_part[p->n++] = accs[k].s;
    }
    if (m->n == 0 || n_acc == 0) {
        st = gs_err_set(err, GS_ERR_FORMAT, "model", spans_csv,
                        "no device spans with a known size (need args log_n=, jobs.csv beside it, or meta model.log_n)");
        goto fail;
    }
    for (int i = 0; i < m->n; i++) {
        stage_fit *sf = &m->st[i];
        double x[MAX_SIZES] = {0}, y[MAX_SIZES] = {0};
        for (int j = 0; j < sf->n_sz; j++) {
            size_pts *p = &sf->sz[j];
            qsort(p->per_part, p->n, sizeof *p->per_part, cmp_d);
            p->median = p->n % 2 ? p->per_part[p->n / 2] : 0.5 * (p->per_part[p->n / 2 - 1] + p->per_part[p->n / 2]);
            x[j] = sf->sz[j].log_n;
            y[j] = log2(p->median > 0 ? p->median : 1e-9);
        }
        sf->b = 1.0; /* one size: linear in 2^log_n */
        sf->a = y[0] - x[0];
        if (sf->n_sz >= 2) {
            double mx = 0, my = 0, sxx = 0, sxy = 0;
            for (int j = 0; j < sf->n_sz; j++) {
                mx += x[j];
                my += y[j];
            }
            mx /= sf->n_sz;
            my /= sf->n_sz;
            for (int j = 0; j < sf->n_sz; j++) {
                sxx += (x[j] - mx) * (x[j] - mx);
                sxy += (x[j] - mx) * (y[j] - my);
            }
            sf->b = sxy / sxx;
            sf->a = my - sf->b * mx;
        }
    }
    /* Device order: canonical stages first, then the others by name. */
    for (int i = 1; i < m->n; i++)
        for (int j = i; j > 0 && (m->st[j].rank < m->st[j - 1].rank ||
                                  (m->st[j].rank == m->st[j - 1].rank && strcmp(m->st[j].name, m->st[j - 1].name) < 0));
             j--) {
            stage_fit t = m->st[j];
            m->st[j] = m->st[j - 1];
            m->st[j - 1] = t;
        }
    free(accs);
    free(job_log);
    gs_timeline_destroy(tl);
    *out = m;
    return GS_OK;
fail:
    free(accs);
    free(job_log);
    gs_timeline_destroy(tl);
    gs_model_destroy(m);
    return st;
}

void gs_model_destroy(gs_model *m)
{
    if (!m)
        return;
    for (int i = 0; i < m->n; i++)
        for (int j = 0; j < m->st[i].n_sz; j++)
            free(m->st[i].sz[j].per_part);
    free(m);
}

static double fit_at(const stage_fit *sf, uint32_t log_n)
{
    for (int j = 0; j < sf->n_sz; j++)
        if (sf->sz[j].log_n == log_n)
            return sf->sz[j].median;
    return exp2(sf->a + sf->b * (double)log_n);
}

double gs_model_stage_s(const gs_model *m, const char *stage, uint32_t log_n, int pageable)
{
    const stage_fit *pinned = NULL, *pg = NULL;
    for (int i = 0; i < m->n; i++)
        if (!strcmp(m->st[i].name, stage)) {
            if (m->st[i].pageable)
                pg = &m->st[i];
            else
                pinned = &m->st[i];
        }
    if (pageable && pg)
        return fit_at(pg, log_n);
    if (!pinned)
        return pg ? fit_at(pg, log_n) / (pageable ? 1.0 : GS_MODEL_PAGEABLE_FACTOR) : -1.0;
    double t = fit_at(pinned, log_n);
    return pageable && !strcmp(stage, "h2d") ? t * GS_MODEL_PAGEABLE_FACTOR : t;
}

int gs_model_stage_count(const gs_model *m)
{
    int n = 0;
    for (int i = 0; i < m->n; i++)
        n += !m->st[i].pageable;
    return n;
}

const char *gs_model_stage_name(const gs_model *m, int i)
{
    for (int k = 0; k < m->n; k++)
        if (!m->st[k].pageable && i-- == 0)
            return m->st[k].name;
    return NULL;
}

const char *gs_model_source(const gs_model *m) { return m->source; }
