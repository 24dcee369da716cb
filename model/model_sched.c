/*
 * A prove's device schedule (contract in model.h: gs_model_prove_plan):
 * fitted from each captured prove_start, replayed for every modelled one.
 *
 * Fit.  Inside one prove_start the backend's device stages run on one or
 * more streams (the CUDA backend: the witness MSMs on stream 0, the H2D
 * of a, b, c and the NTTs on stream 1 beside them).  Per partition the
 * stages (spans of one name added up) are taken in start order from the
 * base (the prove's start after the device mutex and the B2 upload).
 * Each stage waits for its stream's previous stage and, when it started
 * after one of another stream ended (within 50 us), for that one too
 * (its dependency: a stream wait, or the host that launched it after a
 * sync).  What is left between the later of those ends and its start is
 * the stage's gap, a fixed stage "gap:<stage>" per partition: the host
 * staging a copy (the pinned staging of the witness before h2d_w), a
 * launch, a host sync.  After the last stage, prove_start's tail
 * (window sums combined, state copied) is the fixed stage prove_host.
 *
 * Replay.  The stages of the prove (gs_model_device_order) in the order
 * of their mean offset: each starts at the later of its stream's
 * previous end and its dependency's end (when that stage runs too), plus
 * its gap; it lasts its modelled time.  So a capture replays its own
 * overlap and host gaps exactly, and a stage made longer or shorter moves
 * what waits for it.
 *
 * Staging.  A gap before a host-to-device copy (h2d*) is the host's
 * staging of that copy when the capture ran staging = pinned.  The one
 * before the prove's first stage (the witness, h2d_w) is not in the
 * plan's times: the model backend runs it first as CPU work of the
 * copy's threads (plan.staging_s, model_staging.c), so it slows with the
 * host's load; later ones are fixed times.  Predicting
 * direct or pageable from such a capture drops it to a launch
 * (GS_MODEL_LAUNCH_S); predicting pinned from a direct or pageable
 * capture adds the copy's bytes (witness: n_vars x 32, a/b/c: 3 x domain
 * x 32) at the host's copy bandwidth, which only a machine profile knows
 * (refused without one).  Pageable copies last the pinned time times the
 * captured pageable/pinned ratio, else GS_MODEL_PAGEABLE_FACTOR.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model_int.h"

#define DEP_EPS_NS 50000
#define MAX_DS 32

typedef struct dspan {
    const char *name;
    int pageable, stream;
    int64_t t0;
    double dur;     /* seconds, the stage's spans added up */
} dspan;

static int64_t eff_end(const dspan *d) { return d->t0 + (int64_t)llround(d->dur * 1e9); }

static int is_copy_in(const char *name) { return gs_vocab_is(name, GS_V_H2D) || gs_vocab_is(name, GS_V_H2D_W); }

int gs_mi_sched_fit(fitctx *c, gs_timeline *tl, const gs_span *sp, size_t n, size_t i, int kind,
                    uint32_t log)
{
    gs_model *m = c->m;
    const gs_span *ps = &sp[i];
    int64_t base = ps->start_ns;
    dspan d[MAX_DS];
    int nd = 0;
    for (size_t k = i + 1; k < n && sp[k].start_ns <= ps->end_ns; k++) {
        const gs_span *s = &sp[k];
        if (s->job != ps->job || s->part != ps->part)
            continue;
        if (s->lane == ps->lane && s->end_ns <= ps->end_ns &&
            ((s->kind == GS_SPAN_LOCK_WAIT && gs_vocab_is(s->name, GS_V_DEVICE_MUTEX)) ||
             (s->kind == GS_SPAN_STEP && gs_vocab_is(s->name, GS_V_LOAD_B2)))) {
            if (s->end_ns > base)
                base = s->end_ns;
            continue;
        }
        const gs_lane_info *li = gs_timeline_lane(tl, s->lane);
        if (!li || li->role != GS_ROLE_DEVICE || (s->kind != GS_SPAN_KERNEL && s->kind != GS_SPAN_COPY))
            continue;
        int j = 0;
        while (j < nd && strcmp(d[j].name, s->name))
            j++;
        if (j == nd) {
            if (nd == MAX_DS)
                continue;
            d[nd++] = (dspan){.name = s->name, .stream = li->stream < 0 ? 0 : li->stream,
                              .t0 = s->start_ns,
                              .pageable = is_copy_in(s->name) && s->args && strstr(s->args, "pageable=1")};
        }
        d[j].dur += (double)(s->end_ns - s->start_ns) * 1e-9;
    }
    /* In start order (insertion sort: a handful of stages). */
    for (int a = 1; a < nd; a++)
        for (int b = a; b > 0 && d[b].t0 < d[b - 1].t0; b--) {
            dspan t = d[b];
            d[b] = d[b - 1];
            d[b - 1] = t;
        }
    int64_t last = base;
    for (int j = 0; j < nd; j++) {
        int64_t pe = base, de = -1;
        int dep = -1;
        for (int q = 0; q < j; q++) {
            int64_t e = eff_end(&d[q]);
            if (d[q].stream == d[j].stream) {
                if (e > pe)
                    pe = e;
            } else if (e <= d[j].t0 + DEP_EPS_NS && e > de) {
                de = e;
                dep = q;
            }
        }
        if (de <= pe)
            dep = -1;
        int64_t ref = dep >= 0 ? de : pe;
        double gap = d[j].t0 > ref ? (double)(d[j].t0 - ref) * 1e-9 : 0;
        stage *sg = gs_mi_stage_get(m, d[j].name, GS_WHERE_DEVICE, d[j].pageable);
        if (!sg)
            return 0;
        sg->stream = d[j].stream;
        sg->off_sum += (double)(d[j].t0 - base) * 1e-9;
        sg->off_n++;
        /* The dependency most partitions showed (a majority vote kept as
         * a running count: Boyer-Moore). */
        const char *dn = dep >= 0 ? d[dep].name : "";
        if (sg->dep_n == 0) {
            snprintf(sg->dep, sizeof sg->dep, "%s", dn);
            sg->dep_n = 1;
        } else {
            sg->dep_n += !strcmp(sg->dep, dn) ? 1 : -1;
        }
        char gname[48];
        snprintf(gname, sizeof gname, "gap:%s", d[j].name);
        stage *gs = gs_mi_stage_get(m, gname, GS_WHERE_FIXED, 0);
        inst *x = gs ? gs_mi_inst_add(gs, kind, log, ps->job, ps->part) : NULL;
        if (!x)
            return 0;
        x->v = x->wall = gap;
        /* The pinned staging before the prove's first copy: CPU work of
         * the copy's threads (model_staging.c). */
        if (j == 0 && is_copy_in(d[j].name) && !d[j].pageable && m->staging == GS_MODEL_STAGING_PINNED) {
            gs->staging = 1;
            x->lane = ps->lane;
            x->t0 = ref;
            x->t1 = d[j].t0;
        }
        if (eff_end(&d[j]) > last)
            last = eff_end(&d[j]);
    }
    stage *sg = gs_mi_stage_get(m, "prove_host", GS_WHERE_FIXED, 0);
    inst *x = sg ? gs_mi_inst_add(sg, kind, log, ps->job, ps->part) : NULL;
    if (!x)
        return 0;
    x->v = x->wall = ps->end_ns > last ? (double)(ps->end_ns - last) * 1e-9 : 0;
    return 1;
}

/* ---- replay ---------------------------------------------------------------- */

typedef struct pst {
    int si;          /* device stage index (the flavour used) */
    int pg_cap;      /* the stage was captured pageable */
    double off;
} pst;

static double off_of(const gs_model *m, int si)
{
    const stage *s = &m->st[si];
    return s->off_n ? s->off_sum / s->off_n : 1e3 + s->rank;
}

/* Ratio of a pageable copy to the pinned one for stage name. */
static double pageable_ratio(const gs_model *m, const char *name, uint32_t log)
{
    double pg = gs_model_stage_s(m, name, log, 1), pn = gs_model_stage_s(m, name, log, 0);
    int have_pg = 0, have_pn = 0;
    for (int i = 0; i < m->n; i++)
        if (m->st[i].where == GS_WHERE_DEVICE && !strcmp(m->st[i].name, name) && m->st[i].n_pt) {
            have_pg |= m->st[i].pageable;
            have_pn |= !m->st[i].pageable;
        }
    return have_pg && have_pn && pg > 0 && pn > 0 ? pg / pn : GS_MODEL_PAGEABLE_FACTOR;
}

/* Bytes the host stages for copy stage name at (kind, log). */
static double copy_bytes(const gs_model *m, gs_vocab name, int kind, uint32_t log)
{
    const size_rec *z = gs_mi_size_find(m, kind, log);
    double dom = z && z->domain ? (double)z->domain : exp2((double)log);
    double nv = z && z->n_vars ? (double)z->n_vars : dom;
    return 32.0 * (name == GS_V_H2D_W ? nv : 3.0 * dom);
}

double gs_model_pin_bytes(const gs_model *m, int kind, uint32_t log)
{
    return copy_bytes(m, GS_V_H2D_W, kind, log) + copy_bytes(m, GS_V_H2D, kind, log);
}

/* The witness copy at gbps, when the capture ran the G2 MSM on the
 * device and its profile timed the copy alone; else 0. */
static double state_copy_at(const gs_model *m, int kind, uint32_t log, double gbps)
{
    const char *g2 = gs_model_meta(m, "scenario.engine.g2");
    if (!g2 || strcmp(g2, "device") || !m->profile[0] || !(m->prof_data.state_copy_gbps > 0) || !(gbps > 0))
        return 0;
    return copy_bytes(m, GS_V_H2D_W, kind, log) / (gbps * 1e9);
}

double gs_model_state_copy_s(const gs_model *m, int kind, uint32_t log)
{
    return state_copy_at(m, kind, log, m->prof_data.state_copy_gbps);
}

double gs_model_state_copy_busy_s(const gs_model *m, int kind, uint32_t log, double synth)
{
    const gs_profile *p = &m->prof_data;
    double g = p->state_copy_busy_gbps;
    if (p->scs_n > 0) {
        /* Seconds per byte interpolated between the rows (a copy's time
         * adds up; its rate does not). */
        int i = 1;
        while (i < p->scs_n && synth > p->scs_synth[i])
            i++;
        if (synth <= p->scs_synth[0] || p->scs_n == 1)
            g = p->scs_gbps[0];
        else if (i == p->scs_n)
            g = p->scs_gbps[p->scs_n - 1];
        else {
            double f = (synth - p->scs_synth[i - 1]) / (p->scs_synth[i] - p->scs_synth[i - 1]);
            g = 1.0 / ((1 - f) / p->scs_gbps[i - 1] + f / p->scs_gbps[i]);
        }
    }
    return state_copy_at(m, kind, log, g);
}

double gs_model_pin_gbps(const gs_model *m) { return m->pin_gbps > 0 ? m->pin_gbps : GS_MODEL_PIN_GBPS; }

gs_status gs_model_prove_plan(gs_model_plan *out, const gs_model *m, const gs_model_prove_q *q,
                              gs_err *err)
{
    memset(out, 0, sizeof *out);
    pst p[GS_MODEL_PLAN_MAX];
    int np = 0;
    int want_pg = q->staging == GS_MODEL_STAGING_PAGEABLE;
    /* One flavour per stage name: the pageable one when copies are
     * pageable and it was captured, else the pinned one, else whichever. */
    for (int i = 0; i < m->n && np < GS_MODEL_PLAN_MAX; i++) {
        const stage *s = &m->st[i];
        if (s->where != GS_WHERE_DEVICE || !s->n_pt)
            continue;
        if (gs_vocab_is(s->name, GS_V_MSM_B2) && !q->g2_on_device)
            continue;
        int k = 0;
        while (k < np && strcmp(m->st[p[k].si].name, s->name))
            k++;
        if (k < np) {
            if (s->pageable == want_pg)
                p[k].si = i, p[k].pg_cap = s->pageable;
            continue;
        }
        p[np++] = (pst){.si = i, .pg_cap = s->pageable, .off = off_of(m, i)};
    }
    for (int a = 1; a < np; a++)
        for (int b = a; b > 0 && p[b].off < p[b - 1].off; b--) {
            pst t = p[b];
            p[b] = p[b - 1];
            p[b - 1] = t;
        }
    int from = m->staging, to = q->staging;
    double last = 0;
    for (int j = 0; j < np; j++) {
        const stage *s = &m->st[p[j].si];
        double dur, gap = 0;
        gs_status st = gs_model_cost(m, p[j].si, q->kind, q->log, q->job, q->part, q->seed, &dur, err);
        if (st != GS_OK)
            return st;
        char gname[48];
        snprintf(gname, sizeof gname, "gap:%s", s->name);
        int gi = gs_model_find(m, gname, GS_WHERE_FIXED);
        if (gi >= 0 && (st = gs_model_cost(m, gi, q->kind, q->log, q->job, q->part, q->seed, &gap, err)) != GS_OK)
            return st;
        if (is_copy_in(s->name)) {
            if (p[j].pg_cap && !want_pg)
                dur /= pageable_ratio(m, s->name, q->log);
            else if (!p[j].pg_cap && want_pg)
                dur *= pageable_ratio(m, s->name, q->log);
            gs_vocab cv = gs_vocab_is(s->name, GS_V_H2D_W) ? GS_V_H2D_W : GS_V_H2D;
            double bytes = copy_bytes(m, cv, q->kind, q->log);
            if (from == GS_MODEL_STAGING_PINNED && to != GS_MODEL_STAGING_PINNED) {
                if (gap > GS_MODEL_LAUNCH_S)
                    gap = GS_MODEL_LAUNCH_S;
            } else if (j == 0 && to == GS_MODEL_STAGING_PINNED && (from != GS_MODEL_STAGING_PINNED || (gi >= 0 && m->st[gi].staging))) {
                /* The staging before the first copy: the caller's CPU work. */
                if (from != GS_MODEL_STAGING_PINNED && m->copy_gbps <= 0)
                    return GS_ERR(err, GS_ERR_UNSUPPORTED, "model",
                                  "staging = pinned from a capture that ran staging = %s needs the host's copy "
                                  "bandwidth into pinned buffers (stage %s): give a machine profile "
                                  "(gapscope calibrate, --profile) or predict from a capture with staging = pinned",
                                  gs_model_staging_name(from), s->name);
                out->staging_s = (from == GS_MODEL_STAGING_PINNED ? gap : bytes / (m->copy_gbps * 1e9)) *
                                 m->scale[GS_SPEED_STAGING];
                out->staging_threads = gs_mi_staging_threads(m, bytes);
                if (from == GS_MODEL_STAGING_PINNED)
                    gap = 0;
            } else if (from != GS_MODEL_STAGING_PINNED && to == GS_MODEL_STAGING_PINNED) {
                if (m->copy_gbps <= 0)
                    return GS_ERR(err, GS_ERR_UNSUPPORTED, "model",
                                  "staging = pinned from a capture that ran staging = %s needs the host's copy "
                                  "bandwidth into pinned buffers (stage %s): give a machine profile "
                                  "(gapscope calibrate, --profile) or predict from a capture with staging = pinned",
                                  gs_model_staging_name(from), s->name);
                gap += bytes / (m->copy_gbps * 1e9);
            }
        }
        int sp = s->stream < 0 || s->stream >= GS_MODEL_MAX_STREAMS ? 0 : s->stream;
        if (q->stream_speed[sp] > 0)
            dur /= q->stream_speed[sp];
        double ref = 0;
        for (int k = 0; k < j; k++) {
            const stage *o = &m->st[out->stage[k]];
            if ((out->stream[k] == s->stream || (s->dep[0] && !strcmp(o->name, s->dep))) && out->t1[k] > ref)
                ref = out->t1[k];
        }
        out->stage[j] = p[j].si;
        out->stream[j] = s->stream;
        out->pageable[j] = is_copy_in(s->name) && want_pg;
        out->t0[j] = ref + gap;
        out->t1[j] = out->t0[j] + dur;
        if (out->t1[j] > last)
            last = out->t1[j];
        if ((gs_vocab_is(s->name, GS_V_MSM_L) || gs_vocab_is(s->name, GS_V_MSM_A) ||
             gs_vocab_is(s->name, GS_V_MSM_B1)) && out->t1[j] > out->witness_end)
            out->witness_end = out->t1[j];
        out->n = j + 1;
    }
    out->device_end = last;
    int ph = gs_model_find(m, "prove_host", GS_WHERE_FIXED);
    double tail = 0;
    if (ph >= 0) {
        gs_status st = gs_model_cost(m, ph, q->kind, q->log, q->job, q->part, q->seed, &tail, err);
        if (st != GS_OK)
            return st;
    }
    out->total = last + tail;
    return GS_OK;
}
