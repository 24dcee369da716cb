/*
 * The fit's working state (fitctx, model_int.h): its indexes and the
 * processor-sharing sweep over its CPU activities.  model.c's
 * gs_model_load_profiled fills a fitctx in one pass over the spans and
 * calls these; model_sched.c adds instances through gs_mi_inst_add.
 *
 * Every lookup here is a map (common/imap.h) or a binary search over a
 * sorted index, built once: a capture of thousands of jobs fits in time
 * linear in its spans (bench/RESULTS.md, "The model's fit is linear in the
 * capture's length"), where a scan per span had made it quadratic.
 */
#include <stdlib.h>

#include "../common/grow.h"
#include "../common/pshare.h"
#include "../common/stats.h"
#include "../prover/engine/engine.h"
#include "model_int.h"

job_rec *gs_mi_job_find(fitctx *c, int64_t id)
{
    int64_t i;
    return gs_imap_get(&c->job_ix, id, &i) ? &c->jobs[i] : NULL;
}

int gs_mi_job_note(fitctx *c, const gs_span *s)
{
    if (s->job < 0 || gs_mi_job_find(c, s->job))
        return 1;
    if (!gs_grow(&c->jobs, &c->cap_jobs, c->n_jobs, sizeof *c->jobs, 64) ||
        !gs_imap_put(&c->job_ix, s->job, (int64_t)c->n_jobs))
        return 0;
    char kb[32];
    gs_job_kind k;
    job_rec *j = &c->jobs[c->n_jobs++];
    j->id = s->job;
    j->kind = gs_mi_arg_str(s->args, "kind", kb, sizeof kb) && gs_job_kind_from_name(&k, kb) ? (int)k : -1;
    j->log = gs_mi_arg_uint(s->args, "log_constraints");
    j->parts = gs_mi_arg_uint(s->args, "partitions");
    return 1;
}

inst *gs_mi_inst_find(const point *p, int64_t job, int32_t part)
{
    if (job < 0)
        return NULL; /* the background instances are each their own */
    int64_t at;
    /* A span's job is an int32_t; a point filled by the fit has them in ix. */
    if (job <= INT32_MAX && p->ix.cap)
        return gs_imap_get(&p->ix, gs_mi_job_part_key((int32_t)job, part), &at) ? &p->in[at] : NULL;
    for (size_t q = p->n; q-- > 0;)
        if (p->in[q].job == job && p->in[q].part == part)
            return &p->in[q];
    return NULL;
}

/* The three steps of a prove's host tail that the CPU G2 MSM and the
 * epilogue are priced from, in tail_ix's order. */
static const gs_vocab tail_steps[3] = {GS_V_PROVE_FINISH, GS_V_EPILOGUE, GS_V_MSM_B2};

/* Indexes each (job, part)'s first tail step of each kind: one pass, where
 * a search per step over every span made the fit quadratic in the capture's
 * length.  0 when out of memory. */
int gs_mi_tails_index(fitctx *c, const gs_span *sp, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (int k = 0; sp[i].kind == GS_SPAN_STEP && k < 3; k++)
            if (gs_vocab_is(sp[i].name, tail_steps[k]) &&
                !gs_imap_add(&c->tail_ix[k], gs_mi_job_part_key(sp[i].job, sp[i].part), (int64_t)i))
                return 0;
    return 1;
}

/* The (job, part)'s first step named tail_steps[k], or NULL. */
const gs_span *gs_mi_tail_find(const fitctx *c, const gs_span *sp, int k, int32_t job, int32_t part)
{
    int64_t i;
    return gs_imap_get(&c->tail_ix[k], gs_mi_job_part_key(job, part), &i) ? &sp[i] : NULL;
}

/* Sorts k[0..n) by time (ties in capture order) and writes its indices,
 * in that order, to out.  The pairs carry the keys, so no qsort context
 * lives outside the call (the fit stays reentrant). */
static void sort_keyed(gs_time_ix *k, size_t n, size_t *out)
{
    qsort(k, n, sizeof *k, gs_cmp_time_ix);
    for (size_t q = 0; q < n; q++)
        out[q] = k[q].i;
}

/* Processor sharing backwards: fills acts[].inferred (core-seconds) and
 * tload; with m (its speed curves fitted), acts[].wsh and wsp instead, for
 * the speed each act ran at: its share-weighted mean of gs_model_speed over
 * the runnable threads it met, which is what the replay's rule integrates
 * (pshare.h): the curve at the mean T is not the mean of the curve where
 * it bends (a synthesis step that met 12 threads half its span and 6 the
 * other half).  The first call sorts the sweep's events into c->ev_t and
 * c->ev_order; the second reuses them. */
int gs_mi_infer_cpu(fitctx *c, int cores, const gs_model *m)
{
    size_t n = c->n_acts, nt = 2 * n;
    if (!n)
        return 1;
    if (!c->ev_t) {
        int64_t *t = malloc(nt * sizeof *t);
        size_t *order = malloc(2 * n * sizeof *order); /* the acts by start, then the sweep's live ones */
        gs_time_ix *k = malloc(n * sizeof *k);
        if (!t || !order || !k) {
            free(t);
            free(order);
            free(k);
            return 0;
        }
        for (size_t i = 0; i < n; i++) {
            t[2 * i] = c->acts[i].t0;
            t[2 * i + 1] = c->acts[i].t1;
            k[i] = (gs_time_ix){c->acts[i].t0, i};
        }
        /* Activities by start time (the pool's oldest-first order). */
        sort_keyed(k, n, order);
        free(k);
        qsort(t, nt, sizeof *t, gs_cmp_i64);
        c->ev_t = t;
        c->ev_order = order;
    }
    const int64_t *t = c->ev_t;
    const size_t *order = c->ev_order;
    /* The acts running through [a, b) are those started by a and ending
     * after it (an end is an event, so ending after a is ending at b or
     * later), kept in start order as they come: the sweep walks only them,
     * not every act started so far. */
    size_t *live = c->ev_order + n, n_live = 0, next = 0;
    const int width[1] = {cores}; /* one pool: the prove pool, as wide as the machine */
    for (size_t k = 0; k + 1 < nt; k++) {
        int64_t a = t[k], b = t[k + 1];
        if (b <= a)
            continue;
        size_t keep = 0;
        for (size_t q = 0; q < n_live; q++)
            if (c->acts[live[q]].t1 > a)
                live[keep++] = live[q];
        n_live = keep;
        for (; next < n && c->acts[order[next]].t0 <= a; next++)
            if (c->acts[order[next]].t1 > a)
                live[n_live++] = order[next];
        gs_pshare ps;
        gs_pshare_init(&ps, cores, width, 1, 0);
        for (size_t q = 0; q < n_live; q++) {
            act *x = &c->acts[live[q]];
            x->th = gs_pshare_add(&ps, x->threads, x->pool ? 0 : -1);
        }
        double share = gs_pshare_rate(&ps), T = gs_pshare_runnable(&ps), dt = (double)(b - a) * 1e-9;
        for (size_t q = 0; q < n_live; q++) {
            act *x = &c->acts[live[q]];
            if (!m) {
                x->inferred += x->th * share * dt;
                x->tload += T * dt;
            } else {
                x->wsh += x->th * share * dt;
                x->wsp += x->th * share * dt * gs_model_speed(m, x->cls, T);
            }
        }
    }
    return 1;
}

/* When the device mutex that w waited on was released: the latest end,
 * inside w, of another GPU worker's prove_start on the same device; -1
 * when none, -2 when out of memory.  A binary search over the prove_start
 * steps by end time, where a scan of every span before w's end made the
 * fit quadratic in the capture's length. */
int64_t gs_mi_handoff_release(fitctx *c, const gs_timeline *tl, const gs_span *sp, size_t n,
                               const gs_span *w, int device)
{
    if (!c->ps_ix) {
        gs_time_ix *k = malloc((n ? n : 1) * sizeof *k);
        c->ps_ix = malloc((n ? n : 1) * sizeof *c->ps_ix);
        if (!k || !c->ps_ix) {
            free(k);
            return -2;
        }
        for (size_t q = 0; q < n; q++) {
            const gs_lane_info *lk = gs_timeline_lane(tl, sp[q].lane);
            if (sp[q].kind == GS_SPAN_STEP && lk && lk->role == GS_ROLE_GPU_WORKER &&
                gs_vocab_is(sp[q].name, GS_V_PROVE_START))
                k[c->n_ps++] = (gs_time_ix){sp[q].end_ns, q};
        }
        sort_keyed(k, c->n_ps, c->ps_ix);
        free(k);
    }
    size_t lo = 0, hi = c->n_ps;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sp[c->ps_ix[mid]].end_ns < w->start_ns)
            lo = mid + 1;
        else
            hi = mid;
    }
    int64_t rel = -1;
    for (size_t q = lo; q < c->n_ps && sp[c->ps_ix[q]].end_ns <= w->end_ns; q++) {
        const gs_span *p = &sp[c->ps_ix[q]];
        if (p->lane != w->lane && p->start_ns < w->end_ns && gs_timeline_lane(tl, p->lane)->device == device &&
            p->end_ns > rel)
            rel = p->end_ns;
    }
    return rel;
}

void gs_mi_fitctx_free(fitctx *c)
{
    free(c->jobs);
    free(c->acts);
    free(c->ev_t);
    free(c->ev_order);
    free(c->ps_ix);
    gs_imap_free(&c->job_ix);
    for (int k = 0; k < 3; k++)
        gs_imap_free(&c->tail_ix[k]);
}
