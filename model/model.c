/*
 * Fitting the machine model from a captured timeline (contract in model.h,
 * method in MODEL.md).
 *
 * One pass over the spans collects instances:
 *   - device spans (KERNEL/COPY on device lanes) add up per (stage, job,
 *     partition); a pageable h2d is its own stage;
 *   - engine STEP spans by name (the table below) are cpu or fixed work;
 *     nested injected spans (a scenario's delays) are taken out of a
 *     step's wall time; the CPU G2 MSM (host stage msm_b2) takes its CPU
 *     from the enclosing prove_finish less the epilogue; prove_start's
 *     wall time less its device stages, mutex wait and B2 upload is the
 *     fixed host part of a prove ("prove_host"), and its CPU over its wall
 *     time is how much a GPU worker spins while its device works;
 *   - a contended device mutex (LOCK_WAIT device_mutex) gives the hand-off
 *     latency "device_mutex_handoff": from the end of the holder's
 *     prove_start (another worker of the device; it released the mutex
 *     just before) to the end of the wait: the waiter's wake-up;
 *   - tracker LOCK_HOLD spans are kept as emergent stages ("hold:<what>"):
 *     printed for comparison, never used to predict (a prediction's holds
 *     come from the modelled steps under the lock).
 * Each instance needs its job's kind and size: the driver's `submit` marks
 * (or the engine's `job_queued`), a device span's args "log_n=N", or the
 * timeline meta "model.log_n".
 *
 * CPU demand without cpu_ns: processor sharing (common/pshare.h) run
 * backwards.  Between two consecutive span boundaries the set of running
 * CPU instances is fixed; pool instances get their helpers oldest first;
 * with T threads on C cores each thread ran at min(1, C/T), so an instance with k threads
 * received k * min(1, C/T) core-seconds per second.  Its demand is that,
 * summed over its span.  The predictor applies the same rule forwards, so
 * an inferred capture reproduces its own contention by construction; with
 * measured cpu_ns the ratio inferred/measured is the fit error of the CPU
 * model itself (printed as ps_err).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "../common/outfile.h"
#include "../timeline/timeline.h"
#include "../prover/engine/engine.h"
#include "../common/stats.h"
#include "model_int.h"

static const char *const where_names[] = {"device", "cpu", "fixed"};
_Static_assert(sizeof where_names / sizeof where_names[0] == GS_WHERE_COUNT, "where names");

const char *gs_model_where_name(gs_model_where w)
{
    return (unsigned)w < GS_WHERE_COUNT ? where_names[w] : NULL;
}

/* Canonical device order of the stages a prove runs. */
static const gs_vocab dev_order[] = {GS_V_H2D,   GS_V_INTT,  GS_V_COSET, GS_V_NTT,
                                     GS_V_MSM_H, GS_V_BATCH_ADD, GS_V_MSM_C, GS_V_MSM_L,
                                     GS_V_MSM_A, GS_V_MSM_B1, GS_V_MSM_B2, GS_V_D2H};

/* Engine steps the model knows: where they run and whether the step is per job. */
static const struct {
    gs_vocab name;
    gs_model_where where;
    int per_job;
} steps[] = {
    {GS_V_SETUP, GS_WHERE_FIXED, 0},        {GS_V_SYNTH, GS_WHERE_CPU, 0},
    {GS_V_HOST_PREP, GS_WHERE_CPU, 0},      {GS_V_HANDOFF, GS_WHERE_CPU, 0},
    {GS_V_MSM_B2, GS_WHERE_CPU, 0},         {GS_V_EPILOGUE, GS_WHERE_CPU, 0},
    {GS_V_BUFFER_RELEASE, GS_WHERE_CPU, 0}, {GS_V_PROCESS_RESULT, GS_WHERE_CPU, 0},
    {GS_V_MALLOC_TRIM, GS_WHERE_CPU, 0},    {GS_V_ASSEMBLE, GS_WHERE_CPU, 1},
    {GS_V_VERIFY, GS_WHERE_CPU, 1},         {GS_V_LOAD_B2, GS_WHERE_FIXED, 0},
    {GS_V_PIN, GS_WHERE_FIXED, 0},
};

const char *gs_mi_arg_str(const char *args, const char *key, char *buf, size_t cap)
{
    const char *p = args;
    size_t kl = strlen(key);
    while (p && *p) {
        if (!strncmp(p, key, kl) && p[kl] == '=') {
            p += kl + 1;
            size_t n = strcspn(p, ";");
            if (n >= cap)
                n = cap - 1;
            memcpy(buf, p, n);
            buf[n] = '\0';
            return buf;
        }
        p = strchr(p, ';');
        if (p)
            p++;
    }
    return NULL;
}

uint32_t gs_mi_arg_uint(const char *args, const char *key)
{
    char b[32];
    return gs_mi_arg_str(args, key, b, sizeof b) ? (uint32_t)strtoul(b, NULL, 10) : 0;
}

static int rank_of(const char *name)
{
    for (size_t i = 0; i < sizeof dev_order / sizeof dev_order[0]; i++)
        if (gs_vocab_is(name, dev_order[i]))
            return (int)i;
    return 100;
}

stage *gs_mi_stage_get(gs_model *m, const char *name, gs_model_where where, int pageable)
{
    for (int i = 0; i < m->n; i++)
        if (!strcmp(m->st[i].name, name) && m->st[i].where == where && m->st[i].pageable == pageable)
            return &m->st[i];
    if (m->n == MAX_STAGES)
        return NULL;
    stage *s = &m->st[m->n++];
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", name);
    s->where = where;
    s->pageable = pageable;
    s->threads = 1;
    s->pool = 0;
    s->ps_err = -1;
    s->rank = rank_of(name);
    s->speed_class = gs_mi_speed_class(name);
    return s;
}

inst *gs_mi_inst_add(stage *s, int kind, uint32_t log, int64_t job, int32_t part)
{
    int i = 0;
    while (i < s->n_pt && !(s->pt[i].kind == kind && s->pt[i].log == log))
        i++;
    if (i == MAX_POINTS)
        return NULL;
    if (i == s->n_pt) {
        memset(&s->pt[i], 0, sizeof s->pt[i]);
        s->pt[i].kind = kind;
        s->pt[i].log = log;
        s->n_pt++;
    }
    point *p = &s->pt[i];
    inst *have = gs_mi_inst_find(p, job, part);
    if (have)
        return have;
    int keyed = job >= 0 && job <= INT32_MAX;
    int64_t k = keyed ? gs_mi_job_part_key((int32_t)job, part) : 0;
    if (!gs_grow(&p->in, &p->cap, p->n, sizeof *p->in, 16) ||
        (keyed && !p->ix.cap && !gs_imap_init(&p->ix, 0)) || (keyed && !gs_imap_put(&p->ix, k, (int64_t)p->n)))
        return NULL;
    inst *x = &p->in[p->n++];
    *x = (inst){.job = job, .part = part, .act = -1};
    return x;
}

static int act_add(fitctx *c, const gs_span *s, double threads, int pool)
{
    if (!gs_grow(&c->acts, &c->cap_acts, c->n_acts, sizeof *c->acts, 256))
        return -1;
    act *a = &c->acts[c->n_acts];
    *a = (act){.t0 = s->start_ns, .t1 = s->end_ns, .threads = threads, .pool = pool,
               .measured = (s->flags & GS_SPAN_F_CPU) != 0, .cpu = (double)s->cpu_ns * 1e-9,
               .cls = gs_mi_speed_class(s->name), .lane = s->lane, .vcpu0 = -1, .vcpu1 = -1};
    char b[24];
    if (a->cls == GS_SPEED_SYNTH && gs_mi_arg_str(s->args, "cpu", b, sizeof b)) {
        a->vcpu0 = atoi(b);
        a->vcpu1 = gs_mi_arg_str(s->args, "cpu_end", b, sizeof b) ? atoi(b) : a->vcpu0;
    }
    return (int)c->n_acts++;
}

/* Size of the job of span s: (kind, log); log 0 when unknown. */
static void size_of(fitctx *c, const gs_span *s, int *kind, uint32_t *log, uint32_t *parts)
{
    job_rec *j = s->job >= 0 ? gs_mi_job_find(c, s->job) : NULL;
    *kind = j ? j->kind : -1;
    *log = gs_mi_arg_uint(s->args, "log_n");
    if (!*log && j)
        *log = j->log;
    if (!*log)
        *log = c->default_log;
    *parts = j && j->parts ? j->parts : 1;
}

/* Seconds of INJECTED spans on lane inside [t0, t1] (a step's injected part). */
static double injected_inside(const gs_span *sp, size_t n, size_t at, int32_t lane)
{
    double s = 0;
    for (size_t i = at; i < n && sp[i].start_ns <= sp[at].end_ns; i++)
        if (i != at && sp[i].lane == lane && sp[i].kind == GS_SPAN_INJECTED &&
            sp[i].end_ns <= sp[at].end_ns)
            s += (double)(sp[i].end_ns - sp[i].start_ns) * 1e-9;
    return s;
}

void gs_mi_note(gs_model *m, const char *fmt, const char *a, const char *b)
{
    size_t n = strlen(m->notes);
    snprintf(m->notes + n, sizeof m->notes - n, fmt, a, b);
}

static void meta_copy(gs_model *m, gs_timeline *tl)
{
    for (size_t i = 0; i < gs_timeline_meta_count(tl) && m->n_meta < MAX_META; i++) {
        const char *k, *v;
        gs_timeline_meta_at(tl, i, &k, &v);
        m->meta_k[m->n_meta] = strdup(k);
        m->meta_v[m->n_meta] = strdup(v);
        if (m->meta_k[m->n_meta] && m->meta_v[m->n_meta])
            m->n_meta++;
        else {
            free(m->meta_k[m->n_meta]);
            free(m->meta_v[m->n_meta]);
        }
    }
}

const char *gs_model_meta(const gs_model *m, const char *key)
{
    for (int i = m->n_meta; i-- > 0;)
        if (!strcmp(m->meta_k[i], key))
            return m->meta_v[i];
    return NULL;
}

double gs_mi_pct(const double *v, size_t n, double q)
{
    if (!n)
        return 0;
    double x = q * (double)(n - 1);
    size_t i = (size_t)x;
    double f = x - (double)i;
    return i + 1 < n ? v[i] * (1 - f) + v[i + 1] * f : v[i];
}

/* Medians, percentiles and the size fit of every stage. */
static int summarize(gs_model *m, fitctx *c)
{
    for (int i = 0; i < m->n; i++) {
        stage *s = &m->st[i];
        double rel[4096];
        size_t n_rel = 0;
        for (int j = 0; j < s->n_pt; j++) {
            point *p = &s->pt[j];
            for (size_t k = 0; k < p->n; k++) {
                inst *x = &p->in[k];
                if (x->act >= 0) {
                    act *a = &c->acts[x->act];
                    if (a->measured) {
                        s->n_measured++;
                        if (a->cpu > 0 && n_rel < 4096)
                            rel[n_rel++] = fabs(a->inferred / a->cpu - 1.0);
                    } else {
                        x->v = a->inferred * x->v; /* x->v held the per-job divisor */
                        s->n_inferred++;
                    }
                    /* Solo-speed work: the demand times the speed the
                     * span ran at (gs_mi_infer_cpu's second sweep; the speed at
                     * its mean T where the sweep has no share). */
                    double secs = (double)(a->t1 - a->t0) * 1e-9;
                    x->v *= a->wsh > 0 ? a->wsp / a->wsh
                                       : 1.0 / gs_mi_slowdown(m, a->cls, secs > 0 ? a->tload / secs : 1);
                    /* And at the host's mean vCPU, where the map says. */
                    x->v *= gs_mi_placement(m, a);
                }
            }
            p->sorted = malloc((p->n ? p->n : 1) * sizeof *p->sorted);
            double *w = malloc((p->n ? p->n : 1) * sizeof *w);
            if (!p->sorted || !w) {
                free(w);
                return 0;
            }
            for (size_t k = 0; k < p->n; k++) {
                p->sorted[k] = p->in[k].v;
                w[k] = p->in[k].wall;
            }
            qsort(p->sorted, p->n, sizeof *p->sorted, gs_cmp_double);
            qsort(w, p->n, sizeof *w, gs_cmp_double);
            p->median = gs_mi_pct(p->sorted, p->n, 0.5);
            p->p10 = gs_mi_pct(p->sorted, p->n, 0.1);
            p->p90 = gs_mi_pct(p->sorted, p->n, 0.9);
            p->wall_median = gs_mi_pct(w, p->n, 0.5);
            free(w);
        }
        if (n_rel) {
            qsort(rel, n_rel, sizeof *rel, gs_cmp_double);
            s->ps_err = gs_mi_pct(rel, n_rel, 0.5);
        }
        /* Size fit over the distinct sizes (medians, all kinds). */
        double x[MAX_POINTS], y[MAX_POINTS];
        int nx = 0;
        for (int j = 0; j < s->n_pt; j++) {
            if (!s->pt[j].log || s->pt[j].median <= 0)
                continue;
            int dup = 0;
            for (int k = 0; k < nx; k++)
                dup |= x[k] == s->pt[j].log;
            if (dup)
                continue;
            x[nx] = s->pt[j].log;
            y[nx++] = log2(s->pt[j].median);
        }
        s->b = 1.0;
        s->a = nx ? y[0] - x[0] : 0;
        s->fit_err = 0;
        if (nx >= 2) {
            double mx = 0, my = 0, sxx = 0, sxy = 0;
            for (int k = 0; k < nx; k++) {
                mx += x[k];
                my += y[k];
            }
            mx /= nx;
            my /= nx;
            for (int k = 0; k < nx; k++) {
                sxx += (x[k] - mx) * (x[k] - mx);
                sxy += (x[k] - mx) * (y[k] - my);
            }
            s->b = sxy / sxx;
            s->a = my - s->b * mx;
            double ss = 0;
            for (int k = 0; k < nx; k++) {
                double r = y[k] - (s->a + s->b * x[k]);
                ss += r * r;
            }
            s->fit_err = exp2(sqrt(ss / nx)) - 1.0;
            s->has_fit = 1;
        }
    }
    return 1;
}

/* Stages by place (device, cpu, fixed); device stages in device order,
 * then the others by name. */
static void sort_stages(gs_model *m)
{
    for (int i = 1; i < m->n; i++)
        for (int j = i; j > 0; j--) {
            stage *p = &m->st[j - 1], *q = &m->st[j];
            int sw = p->where != q->where ? p->where > q->where
                     : q->rank != p->rank  ? q->rank < p->rank
                                           : strcmp(q->name, p->name) < 0;
            if (!sw)
                break;
            stage t = *p;
            *p = *q;
            *q = t;
        }
}

void gs_mi_size_note(gs_model *m, int kind, uint32_t log, uint64_t n_vars, uint64_t domain)
{
    size_rec *z = (size_rec *)gs_mi_size_find(m, kind, log);
    if (!z) {
        if (m->n_sizes == MAX_SIZES)
            return;
        z = &m->sizes[m->n_sizes++];
        *z = (size_rec){.kind = kind, .log = log};
    }
    if (n_vars)
        z->n_vars = n_vars;
    if (domain)
        z->domain = domain;
}

const size_rec *gs_mi_size_find(const gs_model *m, int kind, uint32_t log)
{
    for (int i = 0; i < m->n_sizes; i++)
        if (m->sizes[i].kind == kind && m->sizes[i].log == log)
            return &m->sizes[i];
    for (int i = 0; i < m->n_sizes; i++)
        if (m->sizes[i].log == log)
            return &m->sizes[i];
    return NULL;
}

gs_status gs_model_load(gs_model **out, const char *spans_csv, gs_err *err)
{
    return gs_model_load_profiled(out, spans_csv, NULL, err);
}

gs_status gs_model_load_profiled(gs_model **out, const char *spans_csv, const char *profile, gs_err *err)
{
    *out = NULL;
    gs_timeline *tl = NULL;
    fitctx c = {0};
    gs_model *m = calloc(1, sizeof *m);
    gs_status st = GS_OK;
    if (!m)
        return GS_ERR(err, GS_ERR_NOMEM, "model", "out of memory");
    c.m = m;
    if ((st = gs_timeline_read_csv(&tl, spans_csv, err)) != GS_OK)
        goto fail;
    meta_copy(m, tl);
    const char *stg = gs_timeline_meta_get(tl, "scenario.engine.staging");
    for (int k = 0; stg && k < GS_MODEL_STAGING_COUNT; k++)
        if (!strcmp(stg, gs_model_staging_name(k)))
            m->staging = k;
    const char *ct = gs_timeline_meta_get(tl, "scenario.gpu.copy_threads");
    m->copy_threads = ct ? atoi(ct) : 0;
    const char *ml = gs_timeline_meta_get(tl, "model.log_n");
    c.default_log = ml ? (uint32_t)strtoul(ml, NULL, 10) : 0;
    const char *dev = gs_timeline_meta_get(tl, "device.0.name");
    snprintf(m->source, sizeof m->source, "%.160s via %.220s", dev ? dev : "captured device", spans_csv);
    const char *cores = gs_timeline_meta_get(tl, "host.cores");
    if (!cores) {
        cores = gs_timeline_meta_get(tl, "host.threads");
        if (cores)
            gs_mi_note(m, "%s%s", "Cores: the capture has no host.cores; host.threads (online CPUs) taken instead.\n", "");
    }
    m->cores = cores ? atoi(cores) : 0;
    if (m->cores < 1) {
        m->cores = 1;
        gs_mi_note(m, "%s%s", "Cores: the capture names no core count; 1 assumed.\n", "");
    }
    for (int k = 0; k < GS_MODEL_SPEED_CLASSES; k++)
        m->scale[k] = 1.0;
    if (profile && *profile && (st = gs_mi_profile_apply(m, profile, err)) != GS_OK)
        goto fail;
    size_t n;
    const gs_span *sp = gs_timeline_spans(tl, &n);
    if (!gs_imap_init(&c.job_ix, 0) || !gs_imap_init(&c.tail_ix[0], 0) || !gs_imap_init(&c.tail_ix[1], 0) ||
        !gs_imap_init(&c.tail_ix[2], 0) || !gs_mi_tails_index(&c, sp, n)) {
        st = GS_ERR(err, GS_ERR_NOMEM, "model", "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < n; i++)
        if (sp[i].kind == GS_SPAN_MARK && (gs_vocab_is(sp[i].name, GS_V_SUBMIT) || gs_vocab_is(sp[i].name, GS_V_JOB_QUEUED)))
            if (!gs_mi_job_note(&c, &sp[i])) {
                st = GS_ERR(err, GS_ERR_NOMEM, "model", "out of memory");
                goto fail;
            }
    int devmask = 0, n_dev_inst = 0;
    double spin_num = 0, spin_den = 0;
    for (size_t i = 0; i < n; i++) {
        const gs_span *s = &sp[i];
        const gs_lane_info *li = gs_timeline_lane(tl, s->lane);
        if (!li)
            continue;
        int kind;
        uint32_t log, parts;
        size_of(&c, s, &kind, &log, &parts);
        if ((s->kind == GS_SPAN_KERNEL || s->kind == GS_SPAN_COPY) && li->role == GS_ROLE_DEVICE) {
            if (!log)
                continue;
            int pg = (gs_vocab_is(s->name, GS_V_H2D) || gs_vocab_is(s->name, GS_V_H2D_W)) && s->args && strstr(s->args, "pageable=1");
            stage *sg = gs_mi_stage_get(m, s->name, GS_WHERE_DEVICE, pg);
            inst *x = sg ? gs_mi_inst_add(sg, kind, log, s->job, s->part) : NULL;
            if (!x) {
                st = GS_ERR(err, GS_ERR_NOMEM, "model", "too many stages or sizes in %s", spans_csv);
                goto fail;
            }
            x->v += (double)(s->end_ns - s->start_ns) * 1e-9;
            x->wall = x->v;
            if (li->device >= 0 && li->device < 30)
                devmask |= 1 << li->device;
            n_dev_inst++;
            continue;
        }
        if (s->kind == GS_SPAN_LOCK_WAIT && gs_vocab_is(s->name, GS_V_DEVICE_MUTEX) && s->end_ns > s->start_ns) {
            int64_t rel = gs_mi_handoff_release(&c, tl, sp, n, s, li->device);
            if (rel == -2) {
                st = GS_ERR(err, GS_ERR_NOMEM, "model", "out of memory");
                goto fail;
            }
            stage *sg = rel >= 0 ? gs_mi_stage_get(m, "device_mutex_handoff", GS_WHERE_FIXED, 0) : NULL;
            inst *x = sg ? gs_mi_inst_add(sg, kind, log, s->job, s->part) : NULL;
            if (x)
                x->v = x->wall = (double)(s->end_ns - rel) * 1e-9;
            continue;
        }
        if (s->kind == GS_SPAN_LOCK_HOLD && gs_vocab_is(s->name, GS_V_TRACKER)) {
            char what[40], name[48];
            snprintf(name, sizeof name, "hold:%s", gs_mi_arg_str(s->args, "what", what, sizeof what) ? what : "?");
            /* Every hold is its own instance (one partition may hold the
             * lock several times for the same reason). */
            stage *sg = gs_mi_stage_get(m, name, GS_WHERE_FIXED, 0);
            inst *x = sg ? gs_mi_inst_add(sg, kind, log, -1 - (int64_t)i, s->part) : NULL;
            if (sg)
                sg->emergent = 1;
            if (x)
                x->v = x->wall = (double)(s->end_ns - s->start_ns) * 1e-9;
            continue;
        }
        if (s->kind != GS_SPAN_STEP || (s->flags & GS_SPAN_F_FAILED))
            continue;
        if (gs_vocab_is(s->name, GS_V_PROVE_START)) {
            /* The device schedule and host tail of a prove, and the
             * worker's spin. */
            if (!gs_mi_sched_fit(&c, tl, sp, n, i, kind, log)) {
                st = GS_ERR(err, GS_ERR_NOMEM, "model", "too many stages or sizes in %s", spans_csv);
                goto fail;
            }
            if (s->flags & GS_SPAN_F_CPU) {
                spin_num += (double)s->cpu_ns * 1e-9;
                spin_den += (double)(s->end_ns - s->start_ns) * 1e-9;
            }
            continue;
        }
        if (s->job >= 0 && log && (gs_vocab_is(s->name, GS_V_HOST_PREP) || gs_vocab_is(s->name, GS_V_SYNTH)))
            gs_mi_size_note(m, kind, log, gs_mi_arg_uint(s->args, "n"), gs_mi_arg_uint(s->args, "domain"));
        int t = -1;
        for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++)
            if (gs_vocab_is(s->name, steps[k].name))
                t = (int)k;
        if (t < 0)
            continue;
        int g2cpu = gs_vocab_is(s->name, GS_V_MSM_B2);
        stage *sg = gs_mi_stage_get(m, s->name, steps[t].where, 0);
        if (!sg) {
            st = GS_ERR(err, GS_ERR_NOMEM, "model", "too many stages in %s", spans_csv);
            goto fail;
        }
        sg->per_job = steps[t].per_job;
        if (g2cpu) {
            sg->threads = m->cores;
            sg->pool = 1;
        }
        /* A setup is per size; background trims (no job) are size-free. */
        inst *x = gs_mi_inst_add(sg, kind, s->job >= 0 ? log : 0, s->job, s->part);
        if (!x) {
            st = GS_ERR(err, GS_ERR_NOMEM, "model", "too many sizes in %s", spans_csv);
            goto fail;
        }
        if (s->job < 0)
            x->job = -1 - (int64_t)i; /* keep every background instance */
        double wall = (double)(s->end_ns - s->start_ns) * 1e-9 - injected_inside(sp, n, i, s->lane);
        if (wall < 0)
            wall = 0;
        x->wall = wall;
        double div = sg->per_job ? (double)parts : 1.0;
        if (steps[t].where == GS_WHERE_FIXED) {
            /* A pool fill (pin) is per buffer. */
            uint32_t nb = gs_vocab_is(s->name, GS_V_PIN) ? gs_mi_arg_uint(s->args, "buffers") : 1;
            x->v = wall / (nb ? nb : 1);
            continue;
        }
        gs_span a = *s;
        /* The host-stage spans of a prove carry no CPU of their own: the
         * CPU G2 MSM takes prove_finish's less the epilogue's wall time;
         * the epilogue its wall time, or prove_finish's CPU without a CPU
         * G2 MSM. */
        if (g2cpu || gs_vocab_is(s->name, GS_V_EPILOGUE)) {
            const gs_span *pf = gs_mi_tail_find(&c, sp, 0, s->job, s->part);
            const gs_span *ep = gs_mi_tail_find(&c, sp, 1, s->job, s->part);
            const gs_span *b2 = gs_mi_tail_find(&c, sp, 2, s->job, s->part);
            a.flags &= (uint16_t)~GS_SPAN_F_CPU;
            if (pf && (pf->flags & GS_SPAN_F_CPU)) {
                double epw = ep ? (double)(ep->end_ns - ep->start_ns) * 1e-9 : 0;
                double cpu = g2cpu ? (double)pf->cpu_ns * 1e-9 - epw
                                   : (b2 ? epw : (double)pf->cpu_ns * 1e-9);
                a.flags |= GS_SPAN_F_CPU;
                a.cpu_ns = (int64_t)((cpu > 0 ? cpu : 0) * 1e9);
            }
        }
        int ai = act_add(&c, &a, sg->threads, sg->pool);
        if (ai < 0) {
            st = GS_ERR(err, GS_ERR_NOMEM, "model", "out of memory");
            goto fail;
        }
        c.acts[ai].stage = (int)(sg - m->st);
        x->act = ai;
        if (a.flags & GS_SPAN_F_CPU)
            x->v = c.acts[ai].cpu / div;
        else
            x->v = 1.0 / div; /* scaled by the inferred demand in summarize() */
    }
    if (n_dev_inst == 0) {
        /* A foreign capture (attach, import) has no engine stages to fit:
         * its what-ifs replay the timeline itself. */
        const char *src = gs_timeline_foreign_source(tl);
        if (src)
            st = gs_err_set(err, GS_ERR_UNSUPPORTED, "model", spans_csv,
                            "a capture of a program gapscope did not run (source=%s) has no engine settings to "
                            "change: predict it with --what-if EDIT (gapscope predict --what-if help lists the edits)",
                            src);
        else
            st = gs_err_set(err, GS_ERR_FORMAT, "model", spans_csv,
                            "no device spans with a known size (need args log_n=, submit marks, or meta "
                            "model.log_n)");
        goto fail;
    }
    for (int d = 0; d < 30; d++)
        m->devices += (devmask >> d) & 1;
    m->spin = spin_den > 0 ? spin_num / spin_den : 0;
    if (m->spin > 1)
        m->spin = 1;
    m->spin_fit = m->spin;
    if (!gs_mi_infer_cpu(&c, m->cores, NULL)) {
        st = GS_ERR(err, GS_ERR_NOMEM, "model", "out of memory");
        goto fail;
    }
    gs_mi_speed_fit(&c);
    if (!gs_mi_infer_cpu(&c, m->cores, m)) {
        st = GS_ERR(err, GS_ERR_NOMEM, "model", "out of memory");
        goto fail;
    }
    if (!gs_mi_staging_fit(&c, sp, n) || !summarize(m, &c)) {
        st = GS_ERR(err, GS_ERR_NOMEM, "model", "out of memory");
        goto fail;
    }
    if (m->profile[0] && m->prof_data.n_cpus >= 2 && !gs_mi_map_steady(&m->prof_data)) {
        char a[160];
        snprintf(a, sizeof a, "two lone passes differ %.0f%% on average, the vCPUs %.0f%%",
                 100 * m->prof_data.cpu_drift, 100 * gs_profile_cpu_spread(&m->prof_data, 0));
        gs_mi_note(m, "Placement: the profile's vCPU map is not steady (%s): what it shows is the host's load "
                      "moving while it was measured, not vCPUs that differ, so synthesis keeps the capture's own "
                      "placement%s.\n", a, "");
    }
    if (m->placed > 0) {
        char f[160];
        snprintf(f, sizeof f, "%d synthesis steps say their vCPU; on the profile's vCPU map they ran at %.3f",
                 m->placed, m->place_f);
        gs_mi_note(m, "Placement: %s of a thread on a vCPU drawn at random: their demand is put at the host's "
                      "mean vCPU (a fresh run places its threads anew) and the interval draws vCPUs from the "
                      "map%s.\n",
                   f, "");
    }
    int inferred = 0;
    for (int i = 0; i < m->n; i++)
        inferred += m->st[i].n_inferred;
    m->cpu_measured = inferred == 0;
    if (!gs_mi_profile_lend(m)) {
        st = GS_ERR(err, GS_ERR_NOMEM, "model", "out of memory");
        goto fail;
    }
    if (inferred) {
        char k[32];
        snprintf(k, sizeof k, "%d", inferred);
        gs_mi_note(m, "CPU demand: %s CPU step(s) carry no measured CPU time (a capture from before cpu_ns); "
                "their demand is inferred by processor sharing on %s cores from the captured spans "
                "(MODEL.md): the model reproduces the captured contention by construction.\n", k,
             gs_model_meta(m, "host.cores") ? gs_model_meta(m, "host.cores") : gs_model_meta(m, "host.threads"));
    }
    gs_mi_profile_level(m, &c);
    if (m->spin == 0 && !m->cpu_measured)
        gs_mi_note(m, "%s%s", "GPU workers: no CPU time of prove_start captured; a worker waiting on its device "
                        "is assumed to use no CPU.\n", "");
    sort_stages(m);
    gs_mi_fitctx_free(&c);
    gs_timeline_destroy(tl);
    *out = m;
    return GS_OK;
fail:
    gs_mi_fitctx_free(&c);
    gs_timeline_destroy(tl);
    gs_model_destroy(m);
    return st;
}

gs_status gs_model_borrow(gs_model *m, const char *other_csv, gs_err *err)
{
    gs_model *o = NULL;
    gs_status st = gs_model_load(&o, other_csv, err);
    if (st != GS_OK)
        return st;
    for (int i = 0; i < o->n; i++) {
        stage *s = &o->st[i];
        int have = -1;
        for (int j = 0; j < m->n && have < 0; j++)
            if (m->st[j].where == s->where && m->st[j].pageable == s->pageable && !strcmp(m->st[j].name, s->name))
                have = j;
        /* A stage the profile lent gives way to one a capture measured. */
        if ((have >= 0 && !m->st[have].lent) || s->emergent || !s->n_pt)
            continue;
        if (have < 0 && m->n == MAX_STAGES) {
            st = GS_ERR(err, GS_ERR_RANGE, "model", "too many stages borrowing from %s", other_csv);
            break;
        }
        char what[80];
        snprintf(what, sizeof what, "%s (%s)", s->name, where_names[s->where]);
        if (have >= 0)
            gs_mi_profile_unlend(m, have);
        /* The points' arrays move to m. */
        m->st[have >= 0 ? have : m->n++] = *s;
        s->n_pt = 0;
        gs_mi_note(m, have >= 0 ? "Stage %s borrowed from the capture %s (in place of the machine profile's).\n"
                                : "Stage %s borrowed from the capture %s.\n",
                   what, other_csv);
    }
    gs_model_destroy(o);
    sort_stages(m);
    return st;
}

