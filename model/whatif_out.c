/*
 * A replay's results (contract in graph.h, internals in whatif_int.h):
 * device utilization from the union of operation intervals, the critical
 * path by contributor, and the replayed timeline that diag analyzes like
 * any capture.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "whatif_int.h"

const char *gs_wi_lane_name(const gs_graph *g, int32_t l)
{
    const gs_lane_info *li = gs_timeline_lane(g->tl, l);
    return li && li->name ? li->name : "?";
}

typedef struct iv {
    int64_t a, b;
} iv;

static int cmp_iv(const void *x, const void *y)
{
    const iv *p = x, *q = y;
    return p->a < q->a ? -1 : p->a > q->a;
}

void gs_wi_util(const rctx *c, int replayed, int dev, double *util, double *span_s, double *busy_s)
{
    const gs_graph *g = c->g;
    *util = *span_s = *busy_s = 0;
    iv *v = malloc((g->nn ? g->nn : 1) * sizeof *v);
    size_t n = 0;
    if (!v)
        return;
    for (size_t i = 0; i < g->nn; i++) {
        const gs_gnode *x = &g->n[i];
        if (x->kind != GS_GN_DEVICE || gs_timeline_lane(g->tl, x->lane)->device != dev)
            continue;
        v[n++] = replayed ? (iv){c->ns[i], c->ne[i]} : (iv){x->s, x->e};
    }
    qsort(v, n, sizeof *v, cmp_iv);
    int64_t busy = 0, cur_a = 0, cur_b = INT64_MIN, first = n ? v[0].a : 0, last = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        if (v[i].b > last)
            last = v[i].b;
        if (v[i].a > cur_b) {
            if (cur_b > INT64_MIN)
                busy += cur_b - cur_a;
            cur_a = v[i].a;
            cur_b = v[i].b;
        } else if (v[i].b > cur_b) {
            cur_b = v[i].b;
        }
    }
    if (n)
        busy += cur_b - cur_a;
    free(v);
    if (!n || last <= first)
        return;
    *busy_s = (double)busy * 1e-9;
    *span_s = (double)(last - first) * 1e-9;
    *util = *busy_s / *span_s;
}

/* Contributors of the critical path, summed by name. */
static void add(gs_whatif_result *r, const char *what, int64_t ns)
{
    if (ns <= 0)
        return;
    r->path_s += (double)ns * 1e-9;
    for (int i = 0; i < r->n_path; i++)
        if (!strcmp(r->path[i].what, what)) {
            r->path[i].s += (double)ns * 1e-9;
            return;
        }
    if (r->n_path == GS_WHATIF_PATH_MAX) {
        /* Full: the smallest gives way when this one outweighs it. */
        int m = 0;
        for (int i = 1; i < r->n_path; i++)
            m = r->path[i].s < r->path[m].s ? i : m;
        if (r->path[m].s >= (double)ns * 1e-9)
            return;
        r->n_path--;
        r->path[m] = r->path[r->n_path];
    }
    snprintf(r->path[r->n_path].what, sizeof r->path[r->n_path].what, "%s", what);
    r->path[r->n_path++].s = (double)ns * 1e-9;
}

static void node_what(const rctx *c, int64_t i, char *buf, size_t cap)
{
    const gs_gnode *x = &c->g->n[i];
    if (x->kind == GS_GN_DEVICE)
        snprintf(buf, cap, "%s on %s", x->sp->kind == GS_SPAN_COPY ? "copies" : "kernels",
                 gs_wi_lane_name(c->g, x->lane));
    else if (!strncmp(x->sp->name, "cuda:", 5))
        snprintf(buf, cap, "CUDA API calls (%s)", gs_wi_lane_name(c->g, x->lane));
    else
        snprintf(buf, cap, "%s (%s)", x->sp->name, gs_wi_lane_name(c->g, x->lane));
}

/* The part of [a, b] at or after lo. */
static int64_t after(int64_t a, int64_t b, int64_t lo)
{
    a = a > lo ? a : lo;
    return b > a ? b - a : 0;
}

void gs_wi_path(const rctx *c, gs_whatif_result *res)
{
    const gs_graph *g = c->g;
    int64_t i = -1, lo = INT64_MAX;
    for (size_t k = 0; k < g->nn; k++)
        if (g->n[k].kind == GS_GN_DEVICE) {
            if (i < 0 || c->ne[k] > c->ne[i])
                i = (int64_t)k;
            lo = c->ns[k] < lo ? c->ns[k] : lo;
        }
    char what[160];
    /* At most one step per node and phase: the walk always moves back. */
    for (size_t steps = 0; i >= 0 && steps < 4 * g->nn + 4 && c->ne[i] > lo; steps++) {
        const gs_gnode *x = &g->n[i];
        int64_t dur = c->ne[i] - c->ns[i];
        /* The end: the release it waited for, or its own duration. */
        int64_t rel = -1, by = -1;
        if (x->kind == GS_GN_SYNC)
            for (int k = 0; k < x->n_await; k++)
                if (c->ne[x->await[k]] > rel)
                    rel = c->ne[x->await[k]], by = x->await[k];
        if (x->kind == GS_GN_WAIT && c->waker[i] >= 0)
            rel = c->ne[c->waker[i]], by = c->waker[i];
        if (by >= 0 && rel > c->ns[i] && c->f[i] > 0) {
            snprintf(what, sizeof what, "%s wake-up (%s)", x->kind == GS_GN_SYNC ? "sync" : "lock",
                     gs_wi_lane_name(g, x->lane));
            add(res, what, after(rel, c->ne[i], lo));
            i = by;
            continue;
        }
        node_what(c, i, what, sizeof what);
        add(res, what, after(c->ns[i], c->ns[i] + dur, lo));
        /* The start: the binding predecessor and the gap after it. */
        int64_t ce = x->chain >= 0 ? c->ne[x->chain] : INT64_MIN;
        int64_t ls = x->launch >= 0 ? c->ns[x->launch] : INT64_MIN;
        if (x->kind == GS_GN_DEVICE)
            snprintf(what, sizeof what, "launch latency and stream waits (%s)", gs_wi_lane_name(g, x->lane));
        else
            snprintf(what, sizeof what, "host between steps (%s)", gs_wi_lane_name(g, x->lane));
        add(res, what, after(c->ns[i] - c->gap[i], c->ns[i], lo));
        if (ce == INT64_MIN && ls == INT64_MIN)
            break;
        if (ls > ce) {
            /* Through the launch's start: the call's own predecessor. */
            int64_t L = x->launch;
            snprintf(what, sizeof what, "host between steps (%s)", gs_wi_lane_name(g, g->n[L].lane));
            add(res, what, after(c->ns[L] - c->gap[L], c->ns[L], lo));
            i = g->n[L].chain;
        } else {
            i = x->chain;
        }
    }
    /* Largest first. */
    for (int a = 1; a < res->n_path; a++)
        for (int b = a; b > 0 && res->path[b].s > res->path[b - 1].s; b--) {
            gs_whatif_path t = res->path[b];
            res->path[b] = res->path[b - 1];
            res->path[b - 1] = t;
        }
}

/* One captured time t of a lane to its replayed time: inside a node,
 * in proportion to the node's replayed duration; in the gap after it, in
 * proportion to the replayed gap to the next; before the first or after
 * the last, shifted with it.  ix: the lane's nodes by captured start. */
static int64_t map_time(const rctx *c, const int64_t *ix, size_t n, int64_t t)
{
    const gs_gnode *nd = c->g->n;
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (nd[ix[mid]].s <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return c->ns[ix[0]] - (nd[ix[0]].s - t);
    int64_t k = ix[lo - 1];
    if (t <= nd[k].e)
        return nd[k].e > nd[k].s
                   ? c->ns[k] + (int64_t)((double)(t - nd[k].s) * (double)(c->ne[k] - c->ns[k]) /
                                          (double)(nd[k].e - nd[k].s))
                   : c->ns[k];
    if (lo == n)
        return c->ne[k] + (t - nd[k].e);
    int64_t j = ix[lo], cg = nd[j].s - nd[k].e, rg = c->ns[j] - c->ne[k];
    if (cg <= 0 || rg <= 0)
        return c->ne[k];
    return c->ne[k] + (int64_t)((double)(t - nd[k].e) * (double)rg / (double)cg);
}

/* The sampled thread states (state:running, state:futex...) of lanes
 * whose steps are nodes: not nodes themselves (graph.c), they are carried
 * into the replayed timeline with both ends mapped through their lane's
 * nodes (map_time), so that diag attributes the replayed gaps from the
 * same evidence as the capture's (a gap the thread spent running is
 * host compute).  A state the edits removed (remove:state:X), one squeezed
 * to nothing, and the lanes whose nodes moved to a pool's lanes are left
 * out.  Returns 0 when out of memory. */
static int carry_states(const rctx *c, gs_tl_lane **lanes, size_t nl, const gs_whatif *w, int nw)
{
    const gs_graph *g = c->g;
    size_t ns;
    const gs_span *sp = gs_timeline_spans(g->tl, &ns);
    size_t *cnt = calloc(nl + 1, sizeof *cnt), *at = calloc(nl + 1, sizeof *at);
    char *skip = calloc(nl + 1, 1);
    int64_t *ix = malloc((g->nn ? g->nn : 1) * sizeof *ix);
    int ok = cnt && at && skip && ix;
    for (size_t i = 0; ok && i < g->nn; i++) {
        const gs_gnode *x = &g->n[i];
        if (x->lane < 0 || (size_t)x->lane >= nl)
            continue;
        cnt[x->lane]++;
        if ((c->vl && c->vl[i] >= 0) || !strncmp(x->sp->name, "state:", 6))
            skip[x->lane] = 1;   /* moved to a pool, or a lane of states only (they are nodes) */
    }
    for (size_t l = 0; ok && l < nl; l++)
        at[l + 1] = at[l] + cnt[l];
    for (size_t l = 0; ok && l <= nl; l++)
        cnt[l] = 0;
    for (size_t i = 0; ok && i < g->nn; i++)   /* graph order is captured-start order */
        if (g->n[i].lane >= 0 && (size_t)g->n[i].lane < nl)
            ix[at[g->n[i].lane] + cnt[g->n[i].lane]++] = (int64_t)i;
    for (size_t i = 0; ok && i < ns; i++) {
        const gs_span *s = &sp[i];
        if (s->kind != GS_SPAN_STEP || strncmp(s->name, "state:", 6) || s->lane < 0 || (size_t)s->lane >= nl ||
            skip[s->lane] || !cnt[s->lane] || s->end_ns <= s->start_ns)
            continue;
        int gone = 0;
        for (int e = 0; e < nw && !gone; e++)
            gone = w[e].kind == GS_WI_REMOVE && gs_wi_match(w[e].what, s->name);
        const int64_t *lix = ix + at[s->lane];
        int64_t a = map_time(c, lix, cnt[s->lane], s->start_ns), b = map_time(c, lix, cnt[s->lane], s->end_ns);
        if (!gone && b > a)
            gs_tl_span(lanes[s->lane], GS_SPAN_STEP, s->name, s->job, s->part, a, b,
                       (uint16_t)(s->flags | GS_SPAN_F_MODELLED), s->args);
    }
    free(cnt);
    free(at);
    free(skip);
    free(ix);
    return ok;
}

gs_status gs_wi_timeline(gs_timeline **out, const rctx *c, const gs_whatif *w, int nw, gs_err *err)
{
    const gs_graph *g = c->g;
    gs_timeline *tl = NULL;
    gs_status st = gs_timeline_create(&tl);
    if (st != GS_OK)
        return GS_ERR(err, st, "what-if", "out of memory for the replayed timeline");
    for (size_t i = 0; i < gs_timeline_meta_count(g->tl); i++) {
        const char *k, *v;
        gs_timeline_meta_at(g->tl, i, &k, &v);
        gs_timeline_meta_set(tl, k, v);
    }
    char edits[1024] = "";
    size_t n = 0;
    for (int e = 0; e < nw && n < sizeof edits - 300; e++)
        n += (size_t)snprintf(edits + n, sizeof edits - n, "%s%s", e ? " " : "", w[e].text);
    gs_timeline_meta_set(tl, "whatif.edits", edits);
    gs_timeline_meta_set(tl, "run.clock", "replayed");
    size_t nl = gs_timeline_lane_count(g->tl);
    gs_tl_lane **lanes = calloc(nl + (size_t)c->n_pool + 1, sizeof *lanes);
    if (!lanes) {
        gs_timeline_destroy(tl);
        return GS_ERR(err, GS_ERR_NOMEM, "what-if", "out of memory for the replayed timeline");
    }
    for (size_t l = 0; l < nl; l++) {
        const gs_lane_info *li = gs_timeline_lane(g->tl, (int32_t)l);
        lanes[l] = gs_tl_lane_open(tl, li->name, li->role, li->device, li->stream);
    }
    /* A pool's added lanes. */
    for (int v = 0; v < c->n_pool; v++)
        if (c->pool_lanes[v] < 0) {
            char name[160];
            const gs_lane_info *li = gs_timeline_lane(g->tl, c->pool_lanes[0]);
            snprintf(name, sizeof name, "%s+%d", c->pool_prefix, v);
            lanes[nl + (size_t)v] = gs_tl_lane_open(tl, name, li->role, li->device, li->stream);
        }
    for (size_t i = 0; i < g->nn; i++) {
        const gs_gnode *x = &g->n[i];
        gs_tl_lane *ln = lanes[x->lane];
        if (c->vl && c->vl[i] >= 0)
            ln = c->pool_lanes[c->vl[i]] >= 0 ? lanes[c->pool_lanes[c->vl[i]]] : lanes[nl + (size_t)c->vl[i]];
        if (x->sp->kind == GS_SPAN_LOCK_WAIT)
            gs_tl_lock_wait(ln, x->sp->name, x->sp->holder, x->sp->job, x->sp->part, c->ns[i], c->ne[i]);
        else
            gs_tl_span(ln, (gs_span_kind)x->sp->kind, x->sp->name, x->sp->job, x->sp->part, c->ns[i], c->ne[i],
                       (uint16_t)(x->sp->flags | GS_SPAN_F_MODELLED), x->sp->args);
    }
    for (size_t b = 0; b < g->nbox; b++) {
        const gs_span *s = g->box[b];
        if (g->box_first[b] < 0)
            continue;
        gs_tl_span(lanes[s->lane], (gs_span_kind)s->kind, s->name, s->job, s->part, c->ns[g->box_first[b]],
                   c->ne[g->box_last[b]], (uint16_t)(s->flags | GS_SPAN_F_MODELLED), s->args);
    }
    int carried = carry_states(c, lanes, nl, w, nw);
    free(lanes);
    if (!carried) {
        gs_timeline_destroy(tl);
        return GS_ERR(err, GS_ERR_NOMEM, "what-if", "out of memory for the replayed timeline's thread states");
    }
    *out = tl;
    return GS_OK;
}
