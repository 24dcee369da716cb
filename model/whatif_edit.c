/*
 * Applying what-if edits to a graph and running the replay (contract in
 * graph.h: gs_whatif_run; method in MODEL.md): remove/scale/stream set a
 * node's duration factor, remove:state:* shortens the gaps and host calls
 * that sampled state covered, unlock re-points a wait's release to where the holder
 * begins the named step, threads list-schedules a pool's steps; then the
 * removed steps' knock-on (whatif_after.c) and the host's speed (the
 * interval's replays) act on host steps and gaps.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "whatif_int.h"

/* Nodes in (lane, start) order, for per-lane searches. */
static int64_t *by_lane(const gs_graph *g)
{
    int64_t *ix = malloc((g->nn ? g->nn : 1) * sizeof *ix);
    if (!ix)
        return NULL;
    size_t nl = gs_timeline_lane_count(g->tl), *cnt = calloc(nl + 1, sizeof *cnt);
    if (!cnt) {
        free(ix);
        return NULL;
    }
    for (size_t i = 0; i < g->nn; i++)
        cnt[g->n[i].lane + 1]++;
    for (size_t l = 1; l <= nl; l++)
        cnt[l] += cnt[l - 1];
    for (size_t i = 0; i < g->nn; i++)
        ix[cnt[g->n[i].lane]++] = (int64_t)i;
    free(cnt);
    return ix;
}

/* remove:state:X: the sampled state X no longer fills the gaps it covered,
 * nor the host calls it was sampled inside (a call that blocked in it:
 * cuLibraryLoadData reading a library from disk in state io); a call
 * wholly inside keeps a millionth of its time, so it does not count as a
 * removed step (whose knock-on whatif_after.c times). */
static size_t remove_state(rctx *c, const char *pat, const int64_t *ix)
{
    const gs_graph *g = c->g;
    size_t ns, hit = 0;
    const gs_span *sp = gs_timeline_spans(g->tl, &ns);
    for (size_t k = 0; k < ns; k++) {
        const gs_span *s = &sp[k];
        if (s->kind != GS_SPAN_STEP || !gs_wi_match(pat, s->name))
            continue;
        /* The lane's nodes: a binary search for the first starting at or
         * after the state began. */
        size_t lo = 0, hi = g->nn;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            const gs_gnode *m = &g->n[ix[mid]];
            if (m->lane < s->lane || (m->lane == s->lane && m->s < s->start_ns))
                lo = mid + 1;
            else
                hi = mid;
        }
        /* The lane's node before: a call the state began inside. */
        if (lo > 0 && g->n[ix[lo - 1]].lane == s->lane)
            lo--;
        for (size_t q = lo; q < g->nn && g->n[ix[q]].lane == s->lane; q++) {
            const gs_gnode *x = &g->n[ix[q]];
            int64_t a = x->s - x->gap, b = x->s;
            int64_t o = (b < s->end_ns ? b : s->end_ns) - (a > s->start_ns ? a : s->start_ns);
            if (o > 0 && c->gap[ix[q]] > 0) {
                c->gap[ix[q]] -= o < c->gap[ix[q]] ? o : c->gap[ix[q]];
                hit++;
            }
            int64_t in = (x->e < s->end_ns ? x->e : s->end_ns) - (x->s > s->start_ns ? x->s : s->start_ns);
            if (x->kind == GS_GN_HOST && in > 0 && x->e > x->s && c->f[ix[q]] > 0) {
                double keep = 1.0 - (double)in / (double)(x->e - x->s);
                c->f[ix[q]] *= keep > 1e-6 ? keep : 1e-6;
                hit++;
            }
            if (x->s - x->gap > s->end_ns)
                break;
        }
    }
    return hit;
}

/* unlock:LOCK:NAME: a waiter released by a holder inside NAME under LOCK
 * is released when the holder begins NAME. */
static size_t unlock(rctx *c, const gs_whatif *w)
{
    const gs_graph *g = c->g;
    size_t hit = 0;
    for (size_t i = 0; i < g->nn; i++) {
        const gs_gnode *x = &g->n[i];
        int64_t k = x->waker;
        if (x->kind != GS_GN_WAIT || k < 0 || strncmp(x->sp->name, w->what, strlen(w->what)))
            continue;
        for (size_t b = 0; b < g->nbox; b++) {
            const gs_span *h = g->box[b];
            if (h->kind != GS_SPAN_LOCK_HOLD || h->lane != g->n[k].lane || strcmp(h->name, x->sp->name) ||
                g->box_first[b] < 0 || g->n[k].e < h->start_ns || g->n[k].s > h->end_ns)
                continue;
            for (int64_t j = g->box_first[b]; j >= 0 && j <= g->box_last[b]; j++)
                if (g->n[j].lane == h->lane && gs_wi_match(w->inner, g->n[j].sp->name)) {
                    c->waker[i] = g->n[j].chain >= 0 ? g->n[j].chain : k;
                    hit++;
                    break;
                }
            break;
        }
    }
    return hit;
}

/* threads:PREFIX=+N: the host steps of lanes PREFIX* become one pool's
 * items, list-scheduled in release order onto the captured lanes plus N.
 * An item released when it started if its lane had been idle for a
 * millisecond or more before it, else (queued behind its lane's previous
 * item) when that one started. */
static size_t pool(rctx *c, const gs_whatif *w)
{
    const gs_graph *g = c->g;
    size_t nl = gs_timeline_lane_count(g->tl), ni = 0;
    c->n_pool = 0;
    snprintf(c->pool_prefix, sizeof c->pool_prefix, "%s", w->what);
    for (size_t l = 0; l < nl && c->n_pool < 256; l++)
        if (!strncmp(gs_wi_lane_name(g, (int32_t)l), w->what, strlen(w->what)) &&
            gs_timeline_lane(g->tl, (int32_t)l)->role != GS_ROLE_DEVICE)
            c->pool_lanes[c->n_pool++] = (int32_t)l;
    int k = c->n_pool, add = (int)w->factor;
    if (!k || k + add > 256)
        return 0;
    for (int v = k; v < k + add; v++)
        c->pool_lanes[c->n_pool++] = -1;
    int64_t fr[256];
    for (int v = 0; v < k + add; v++)
        fr[v] = c->t0;
    for (size_t i = 0; i < g->nn; i++) {
        const gs_gnode *x = &g->n[i];
        int in = 0;
        for (int v = 0; v < k && !in; v++)
            in = x->lane == c->pool_lanes[v];
        if (!in || x->kind != GS_GN_HOST)
            continue;
        int64_t rel = x->gap >= 1000000 || x->chain < 0 ? x->s : g->n[x->chain].s;
        int best = 0;
        for (int v = 1; v < k + add; v++)
            best = fr[v] < fr[best] ? v : best;
        c->ns[i] = rel > fr[best] ? rel : fr[best];
        c->ne[i] = c->ns[i] + (int64_t)llround((double)(x->e - x->s) * c->f[i]);
        c->lvl[i] = 2;
        c->vl[i] = best;
        fr[best] = c->ne[i];
        ni++;
    }
    return ni;
}

gs_status gs_whatif_run(gs_whatif_result *res, gs_timeline **out, const gs_graph *g, const gs_whatif *w, int nw,
                        gs_err *err)
{
    return gs_whatif_run_host(res, out, g, w, nw, 1.0, err);
}

gs_status gs_whatif_run_host(gs_whatif_result *res, gs_timeline **out, const gs_graph *g, const gs_whatif *w,
                             int nw, double host, gs_err *err)
{
    memset(res, 0, sizeof *res);
    if (out)
        *out = NULL;
    size_t nn = g->nn;
    rctx c = {.g = g, .t0 = nn ? g->n[0].s : 0};
    gs_status st = GS_OK;
    int64_t *ix = NULL;
    c.f = malloc(nn * sizeof *c.f);
    c.gap = malloc(nn * sizeof *c.gap);
    c.waker = malloc(nn * sizeof *c.waker);
    c.ns = malloc(nn * sizeof *c.ns);
    c.ne = malloc(nn * sizeof *c.ne);
    c.vl = malloc(nn * sizeof *c.vl);
    c.lvl = calloc(nn, 1);
    c.on = calloc(nn, 1);
    if (!c.f || !c.gap || !c.waker || !c.ns || !c.ne || !c.vl || !c.lvl || !c.on || !(ix = by_lane(g))) {
        st = GS_ERR(err, GS_ERR_NOMEM, "what-if", "out of memory for %zu nodes", nn);
        goto out;
    }
    for (size_t i = 0; i < nn; i++) {
        c.f[i] = 1;
        c.gap[i] = g->n[i].gap;
        c.waker[i] = g->n[i].waker;
        c.vl[i] = -1;
    }
    for (int e = 0; e < nw; e++) {
        size_t hit = 0;
        for (size_t i = 0; i < nn && w[e].kind != GS_WI_UNLOCK && w[e].kind != GS_WI_THREADS; i++) {
            const gs_gnode *x = &g->n[i];
            if (w[e].kind == GS_WI_STREAM ? x->kind == GS_GN_DEVICE && !strcmp(gs_wi_lane_name(g, x->lane), w[e].what)
                                          : gs_wi_match(w[e].what, x->sp->name)) {
                c.f[i] = w[e].kind == GS_WI_REMOVE ? 0 : w[e].kind == GS_WI_SCALE ? c.f[i] * w[e].factor
                                                                                  : c.f[i] / w[e].factor;
                hit++;
            }
        }
        if (w[e].kind == GS_WI_REMOVE && !strncmp(w[e].what, "state:", 6))
            hit += remove_state(&c, w[e].what, ix);
        if (w[e].kind == GS_WI_UNLOCK)
            hit = unlock(&c, &w[e]);
        if (w[e].kind == GS_WI_THREADS) {
            if (c.n_pool) {
                st = GS_ERR(err, GS_ERR_ARG, "what-if", "one threads: edit at a time");
                goto out;
            }
            hit = pool(&c, &w[e]);
        }
        if (!hit) {
            st = GS_ERR(err, GS_ERR_ARG, "what-if", "%s matches nothing in the capture (%s)", w[e].text,
                        w[e].kind == GS_WI_STREAM ? "no device lane of that name"
                        : w[e].kind == GS_WI_UNLOCK ? "no wait on that lock released from inside that step"
                        : w[e].kind == GS_WI_THREADS ? "no host lane of that prefix with steps"
                                                     : "no span of that name");
            goto out;
        }
        res->n_edited += hit;
    }
    /* The removed steps' knock-on, then the host's speed. */
    int removes = 0;
    for (int e = 0; e < nw; e++)
        removes |= w[e].kind == GS_WI_REMOVE;
    if (removes)
        res->n_after_ref = gs_wi_after(&c, ix, &res->n_after);
    if (!(host > 0))
        host = 1;
    for (size_t i = 0; i < nn && host != 1; i++)
        if (g->n[i].kind != GS_GN_DEVICE) {
            c.f[i] /= host;
            c.gap[i] = (int64_t)llround((double)c.gap[i] / host);
        }
    if (!gs_wi_replay(&c)) {
        st = GS_ERR(err, GS_ERR_NOMEM, "what-if", "out of memory replaying %zu nodes", nn);
        goto out;
    }
    int dev = 0;
    for (size_t i = 0; i < nn; i++)
        if (g->n[i].kind == GS_GN_DEVICE) {
            dev = gs_timeline_lane(g->tl, g->n[i].lane)->device;
            break;
        }
    gs_wi_util(&c, 1, dev, &res->util, &res->span_s, &res->busy_s);
    gs_wi_util(&c, 0, dev, &res->captured_util, &res->captured_span_s, &(double){0});
    /* Wall time of the device work and the lanes that launch it (other
     * threads replay as captured). */
    char *launcher = calloc(gs_timeline_lane_count(g->tl) + 1, 1);
    if (!launcher) {
        st = GS_ERR(err, GS_ERR_NOMEM, "what-if", "out of memory");
        goto out;
    }
    for (size_t i = 0; i < nn; i++)
        if (g->n[i].kind == GS_GN_DEVICE) {
            launcher[g->n[i].lane] = 1;
            if (g->n[i].launch >= 0)
                launcher[g->n[g->n[i].launch].lane] = 1;
        }
    int64_t lo = INT64_MAX, hi = INT64_MIN, clo = INT64_MAX, chi = INT64_MIN;
    for (size_t i = 0; i < nn; i++) {
        if (!launcher[g->n[i].lane])
            continue;
        lo = c.ns[i] < lo ? c.ns[i] : lo;
        hi = c.ne[i] > hi ? c.ne[i] : hi;
        clo = g->n[i].s < clo ? g->n[i].s : clo;
        chi = g->n[i].e > chi ? g->n[i].e : chi;
    }
    free(launcher);
    res->wall_s = nn ? (double)(hi - lo) * 1e-9 : 0;
    res->captured_wall_s = nn ? (double)(chi - clo) * 1e-9 : 0;
    gs_wi_path(&c, res);
    if (out)
        st = gs_wi_timeline(out, &c, w, nw, err);
out:
    free(ix);
    free(c.f);
    free(c.gap);
    free(c.waker);
    free(c.ns);
    free(c.ne);
    free(c.vl);
    free(c.lvl);
    free(c.on);
    return st;
}
