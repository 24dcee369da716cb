/*
 * Wake-up edges, steps 6 and 7 of convert_wake.c's list: scheduler edges
 * (sched.rec) and the emission of waits, GIL holds, memory releases and
 * the metadata that names the mechanism.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wake_int.h"

static int cmp_wk(const void *pa, const void *pb)
{
    const gs_aw_wk *a = pa, *b = pb;
    if (a->wakee != b->wakee)
        return a->wakee < b->wakee ? -1 : 1;
    return (a->t > b->t) - (a->t < b->t);
}

static int cmp_sw(const void *pa, const void *pb)
{
    const gs_aw_sw *a = pa, *b = pb;
    if (a->prev != b->prev)
        return a->prev < b->prev ? -1 : 1;
    return (a->t > b->t) - (a->t < b->t);
}

/* Index of the first element with key (k, >= t) in an array sorted by
 * (key, t); key/t read through the accessors. */
#define LOWER(arr, n, kfield, kval, tval, out)                                              \
    do {                                                                                    \
        size_t lo_ = 0, hi_ = (n);                                                          \
        while (lo_ < hi_) {                                                                 \
            size_t m_ = (lo_ + hi_) / 2;                                                    \
            if ((arr)[m_].kfield < (kval) || ((arr)[m_].kfield == (kval) && (arr)[m_].t < (tval))) \
                lo_ = m_ + 1;                                                               \
            else                                                                            \
                hi_ = m_;                                                                   \
        }                                                                                   \
        (out) = lo_;                                                                        \
    } while (0)

typedef struct prun {
    uint32_t tid;
    int64_t s, e;
    const char *detail;
} prun;

static int cmp_prun(const void *pa, const void *pb)
{
    const prun *a = pa, *b = pb;
    if (a->tid != b->tid)
        return a->tid < b->tid ? -1 : 1;
    return (a->s > b->s) - (a->s < b->s);
}

/* The sampler's detail for tid at t ("-" when none). */
static const char *detail_at(const prun *p, size_t n, uint32_t tid, int64_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t m = (lo + hi) / 2;
        if (p[m].tid < tid || (p[m].tid == tid && p[m].s <= t))
            lo = m + 1;
        else
            hi = m;
    }
    if (lo && p[lo - 1].tid == tid && p[lo - 1].e > t && p[lo - 1].detail)
        return p[lo - 1].detail;
    return "-";
}

static int cmp_u32(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    return (a > b) - (a < b);
}

/* The threads of the watched processes: named by the sampler (C records),
 * or seen waiting or waking; sorted, unique. */
typedef struct tidset {
    uint32_t *v;
    size_t n;
} tidset;

static int tidset_build(tidset *s, const gs_attach_raw *c)
{
    const struct gs_attach_wraw *w = c->w;
    s->v = malloc((c->comms.n + w->waits.n + w->wakes.n + 1) * sizeof *s->v);
    s->n = 0;
    if (!s->v)
        return 0;
    for (size_t i = 0; i < c->comms.n; i++)
        s->v[s->n++] = c->comms.v[i].tid;
    for (size_t i = 0; i < w->waits.n; i++)
        s->v[s->n++] = w->waits.v[i].tid;
    for (size_t i = 0; i < w->wakes.n; i++)
        s->v[s->n++] = w->wakes.v[i].tid;
    qsort(s->v, s->n, sizeof *s->v, cmp_u32);
    size_t u = 0;
    for (size_t i = 0; i < s->n; i++)
        if (!u || s->v[u - 1] != s->v[i])
            s->v[u++] = s->v[i];
    s->n = u;
    return 1;
}

static int known(const tidset *s, uint32_t tid)
{
    return bsearch(&tid, s->v, s->n, sizeof tid, cmp_u32) != NULL;
}

/* Step 6. */
static int sched_edges(gs_attach_raw *c, struct gs_attach_wraw *w)
{
    if (!w->wks.n)
        return 1;
    qsort(w->wks.v, w->wks.n, sizeof *w->wks.v, cmp_wk);
    gs_aw_qsort(w->sws.v, w->sws.n, sizeof *w->sws.v, cmp_sw);
    tidset ts;
    if (!tidset_build(&ts, c))
        return 0;
    for (size_t i = 0; i < w->waits.n; i++) {
        gs_aw_wait *v = &w->waits.v[i];
        size_t k;
        LOWER(w->wks.v, w->wks.n, wakee, v->tid, v->e + 1, k);
        if (!k || w->wks.v[k - 1].wakee != v->tid || w->wks.v[k - 1].t < v->s)
            continue;
        const gs_aw_wk *x = &w->wks.v[k - 1];
        if (x->irq || x->waker == v->tid || !known(&ts, x->waker)) {
            v->waker = 0;   /* a timer, or a thread outside the program */
        } else {
            if (v->waker != x->waker)
                v->wstack = 0;
            v->waker = x->waker;
        }
        v->wake_t = x->t;
        v->wmech = GS_AM_SCHED;
    }
    /* Off-CPU stretches no wait explains. */
    prun *pr = malloc((c->host.n + 1) * sizeof *pr);
    if (!pr) {
        free(ts.v);
        return 0;
    }
    size_t np = 0;
    for (size_t i = 0; i < c->host.n; i++)
        if (c->host.v[i].kind == 'P')
            pr[np++] = (prun){c->host.v[i].tid, c->host.v[i].s, c->host.v[i].e, c->host.v[i].detail};
    qsort(pr, np, sizeof *pr, cmp_prun);
    size_t n0 = w->waits.n;
    for (size_t i = 0; i < w->wks.n; i++) {
        const gs_aw_wk *x = &w->wks.v[i];
        if (x->irq || x->waker == x->wakee)
            continue;
        size_t k;
        LOWER(w->sws.v, w->sws.n, prev, x->wakee, x->t, k);
        if (!k || w->sws.v[k - 1].prev != x->wakee || w->sws.v[k - 1].state == 0)
            continue;
        int64_t out = w->sws.v[k - 1].t;
        if (i && w->wks.v[i - 1].wakee == x->wakee && w->wks.v[i - 1].t > out)
            continue;   /* an earlier waking ended this stretch */
        if (x->t - out < OFFCPU_MIN_NS || gs_aw_covered(w, n0, x->wakee, out, x->t) ||
            !known(&ts, x->waker) || !known(&ts, x->wakee))
            continue;
        const char *d = detail_at(pr, np, x->wakee, out + (x->t - out) / 2);
        unsigned long long addr = 0;
        int futex = sscanf(d, "futex@%llx", &addr) == 1;
        gs_aw_wait v = {out, x->t, x->t, 0, 0, -1, x->wakee, x->waker, addr, 0, 0, -1,
                        (uint8_t)(futex ? GS_AW_FUTEX : GS_AW_OFFCPU), GS_AM_SCHED, GS_AM_SCHED,
                        GS_AU_EVENT, futex ? NULL : d};
        /* The process of a sched-only wait: that of a wait of the same thread, else 0. */
        size_t j = gs_aw_first_of(w, n0, x->wakee);
        if (j < n0 && w->waits.v[j].tid == x->wakee)
            v.pid = w->waits.v[j].pid;
        if (futex)
            v.use = gs_aw_use(w, &v);
        GS_ATTACH_PUSH(c, w->waits, v);
    }
    free(pr);
    free(ts.v);
    return !c->oom;
}

/* ---- step 7 ----------------------------------------------------------------------- */

static const char *const mech_names[] = {"interpose", "sampler", "sched"};
static const char *const use_names[] = {"lock", "event", "gil"};

static void emit_wait(gs_attach_raw *c, const gs_aw_wait *v,
                      gs_tl_lane *(*lane_of)(void *, uint32_t), void *ctx)
{
    char name[96], args[320];
    if (v->kind == GS_AW_OFFCPU)
        snprintf(name, sizeof name, "offcpu:%.60s", v->detail ? v->detail : "-");
    else
        snprintf(name, sizeof name, "%s:0x%" PRIx64, gs_aw_kind_names[v->kind], v->addr);
    int n = snprintf(args, sizeof args, "wait=%s;mech=%s;addr=0x%" PRIx64 ";result=%d",
                     use_names[v->use], mech_names[v->mech], v->addr, (int)v->result);
    if (v->wake_t >= 0)
        n += snprintf(args + n, sizeof args - (size_t)n, ";edge=%s;wake_ns=%" PRId64,
                      v->wmech == GS_AM_SCHED ? "sched" : "address", v->wake_t);
    if (v->waker)
        n += snprintf(args + n, sizeof args - (size_t)n, ";waker_tid=%u", v->waker);
    if (v->stack)
        n += snprintf(args + n, sizeof args - (size_t)n, ";stack=%u", v->stack);
    if (v->wstack && v->waker)
        snprintf(args + n, sizeof args - (size_t)n, ";wstack=%u", v->wstack);
    gs_tl_lane *h = v->waker ? lane_of(ctx, v->waker) : NULL;
    gs_tl_wait(lane_of(ctx, v->tid), name, h ? gs_tl_lane_id(h) : -1, v->s, v->e, args);
    c->st.waits_paired += v->waker != 0;
}

/* The GIL's holds, from its releases: a release by X at t ends X's hold,
 * which began at the previous release or at X's last GIL wait's end,
 * whichever is later. */
static void gil_holds(const struct gs_attach_wraw *w, gs_tl_lane *(*lane_of)(void *, uint32_t),
                      void *ctx)
{
    for (size_t i = 0; i < w->wakes.n; i++) {
        const gs_aw_wake *k = &w->wakes.v[i];
        if (k->kind != GS_AW_GIL)
            continue;
        int64_t start = -1;
        if (i && w->wakes.v[i - 1].kind == GS_AW_GIL && w->wakes.v[i - 1].pid == k->pid &&
            w->wakes.v[i - 1].addr == k->addr)
            start = w->wakes.v[i - 1].t;
        for (size_t j = gs_aw_first_of(w, w->waits.n, k->tid); j < w->waits.n && w->waits.v[j].tid == k->tid;
             j++) {
            const gs_aw_wait *v = &w->waits.v[j];
            if (v->kind == GS_AW_GIL && v->addr == k->addr && v->e <= k->t && v->e > start)
                start = v->e;
        }
        if (start < 0 || start >= k->t)
            continue;
        char name[64];
        snprintf(name, sizeof name, "gil:0x%" PRIx64, k->addr);
        gs_tl_span(lane_of(ctx, k->tid), GS_SPAN_LOCK_HOLD, name, -1, -1, start, k->t, 0,
                   "from=releases");
    }
}

/* Memory releases not inside a seen malloc_trim of the same thread. */
static void mem_releases(gs_attach_raw *c, const struct gs_attach_wraw *w,
                         gs_tl_lane *(*lane_of)(void *, uint32_t), void *ctx)
{
    for (size_t i = 0; i < w->mems.n; i++) {
        const gs_aw_mem *m = &w->mems.v[i];
        int64_t in_trim = 0;
        for (size_t j = 0; j < c->host.n; j++) {
            const gs_attach_hrec *h = &c->host.v[j];
            if (h->kind == 'T' && h->tid == m->tid && h->e > m->s && h->s < m->e)
                in_trim += (h->e < m->e ? h->e : m->e) - (h->s > m->s ? h->s : m->s);
        }
        if (2 * in_trim >= m->e - m->s && m->e > m->s)
            continue;   /* the call was seen: the span is malloc_trim */
        char args[96];
        snprintf(args, sizeof args, "rss_drop_kb=%ld;blocked_samples=%ld;from=sampler", m->kb,
                 m->sys);
        gs_tl_span(lane_of(ctx, m->tid), GS_SPAN_STEP, gs_vocab_name(GS_V_MEMORY_RELEASE), -1, -1, m->s, m->e, 0,
                   args);
    }
}

static void meta_l(gs_timeline *tl, const char *k, long v)
{
    char b[32];
    snprintf(b, sizeof b, "%ld", v);
    gs_timeline_meta_set(tl, k, b);
}

gs_status gs_attach_wake_emit(gs_timeline *tl, gs_attach_raw *c,
                              gs_tl_lane *(*lane_of)(void *ctx, uint32_t tid), void *ctx,
                              gs_err *err)
{
    struct gs_attach_wraw *w = c->w;
    if (!w)
        return GS_OK;
    if (!gs_aw_prepare(c, w) || !sched_edges(c, w))
        return GS_ERR(err, GS_ERR_NOMEM, "attach", "out of memory pairing waits and wakes");
    long sched_edges_n = 0;
    c->st.waits = 0;
    for (size_t i = 0; i < w->waits.n; i++) {
        const gs_aw_wait *v = &w->waits.v[i];
        if (v->e - v->s < WAIT_MIN_NS)
            continue;
        sched_edges_n += v->wmech == GS_AM_SCHED && v->waker;
        c->st.waits++;
        emit_wait(c, v, lane_of, ctx);
    }
    gs_aw_sort_waits(w);
    gil_holds(w, lane_of, ctx);
    mem_releases(c, w, lane_of, ctx);
    for (size_t i = 0; i < w->n_gstack; i++) {
        char k[32];
        snprintf(k, sizeof k, "stack.%zu", i + 1);
        gs_timeline_meta_set(tl, k, w->gstack[i]);
    }
    const char *mech = w->mech[0] ? w->mech : "interposition";
    snprintf(c->st.wake_mech, sizeof c->st.wake_mech, "%s", mech);
    gs_timeline_meta_set(tl, "attach.wake", mech);
    if (w->why[0])
        gs_timeline_meta_set(tl, "attach.wake.probe", w->why);
    meta_l(tl, "attach.waits", c->st.waits);
    meta_l(tl, "attach.wakes", c->st.wakes);
    meta_l(tl, "attach.waits_paired", c->st.waits_paired);
    meta_l(tl, "attach.wake_edges_sched", sched_edges_n);
    meta_l(tl, "attach.sched_events", c->st.sched_events);
    meta_l(tl, "attach.sched_lost", c->st.sched_lost);
    meta_l(tl, "attach.mem_releases", c->st.mem_releases);
    meta_l(tl, "attach.stacks", (long)w->n_gstack);
    return GS_OK;
}
