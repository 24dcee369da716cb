/*
 * What-ifs on a foreign timeline's dependency graph (contract in graph.h,
 * method in MODEL.md): the edits, the replay, and the critical path.
 *
 * Replay.  Every node gets a new start and end:
 *   start = (the later of its chain predecessor's new end and, for a
 *           device operation, its launch's new start; the first
 *           captured node's start for a root) + its captured gap
 *           (less any removed state it covered);
 *   end   = start + its captured duration x its edit factor (a device
 *           operation on a sped-up stream divided by the speed); a sync
 *           or wait that waited in the capture ends its captured
 *           latency after the new end of what it waited for (or at once
 *           when removed), one that did not wait keeps its duration.
 * Starts need ends of earlier nodes and ends need starts, so the two are
 * resolved on demand with an explicit stack (no recursion; a dependency
 * cycle, impossible in a causal capture, falls back to the captured
 * time).
 *
 * Critical path: from the last device operation's end, each node's end
 * is traced to what set it (its own duration, or the sync/wake it
 * waited for) and each start to its binding predecessor and gap, summed
 * by contributor.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "whatif_int.h"

static const char *const kinds[] = {"remove", "scale", "stream", "unlock", "threads"};
_Static_assert(sizeof kinds / sizeof kinds[0] == GS_WI_COUNT, "what-if kinds");

gs_status gs_whatif_parse(gs_whatif *w, const char *text, gs_err *err)
{
    memset(w, 0, sizeof *w);
    w->factor = 1;
    snprintf(w->text, sizeof w->text, "%s", text);
    const char *colon = strchr(text, ':');
    int k = 0;
    while (colon && k < GS_WI_COUNT && (strlen(kinds[k]) != (size_t)(colon - text) || strncmp(text, kinds[k], (size_t)(colon - text))))
        k++;
    if (!colon || k == GS_WI_COUNT || !colon[1])
        return GS_ERR(err, GS_ERR_ARG, "what-if",
                      "'%s': expected remove:NAME, scale:NAME=F, stream:LANE=F, unlock:LOCK:NAME or threads:PREFIX=+N",
                      text);
    w->kind = (gs_wi_kind)k;
    const char *body = colon + 1;
    if (w->kind == GS_WI_REMOVE) {
        snprintf(w->what, sizeof w->what, "%s", body);
        w->factor = 0;
        return GS_OK;
    }
    if (w->kind == GS_WI_UNLOCK) {
        const char *c2 = strrchr(body, ':');
        if (!c2 || c2 == body || !c2[1])
            return GS_ERR(err, GS_ERR_ARG, "what-if", "'%s': expected unlock:LOCK:NAME", text);
        snprintf(w->what, sizeof w->what, "%.*s", (int)(c2 - body), body);
        snprintf(w->inner, sizeof w->inner, "%s", c2 + 1);
        return GS_OK;
    }
    const char *eq = strrchr(body, '=');
    char *end = NULL;
    double f = eq ? strtod(eq + 1 + (eq[1] == '+'), &end) : NAN;
    if (end && (*end == 'x' || *end == 'X'))
        end++;
    if (!eq || eq == body || !end || *end || !(f > 0) || !isfinite(f) ||
        (w->kind == GS_WI_THREADS && (eq[1] != '+' || f != floor(f) || f > 256)))
        return GS_ERR(err, GS_ERR_ARG, "what-if", "'%s': expected %s", text,
                      w->kind == GS_WI_THREADS ? "threads:PREFIX=+N (N a whole number 1..256)"
                                               : "NAME=F with a factor F > 0 (1.5 or 1.5x)");
    snprintf(w->what, sizeof w->what, "%.*s", (int)(eq - body), body);
    w->factor = f;
    return GS_OK;
}

/* NAME, or a prefix when the pattern ends in '*'. */
static int match(const char *pat, const char *name)
{
    size_t n = strlen(pat);
    return n && pat[n - 1] == '*' ? !strncmp(pat, name, n - 1) : !strcmp(pat, name);
}

/* Computes what the node needs once its dependencies are known. */
static void compute(rctx *c, int64_t i, int want)
{
    const gs_gnode *x = &c->g->n[i];
    if (want == 1) {
        /* A dependency left unknown (a cycle) counts at its captured time. */
        int64_t ready = c->t0;
        if (x->chain >= 0) {
            int64_t t = c->lvl[x->chain] >= 2 ? c->ne[x->chain] : c->g->n[x->chain].e;
            ready = t > ready ? t : ready;
        }
        if (x->launch >= 0) {
            int64_t t = c->lvl[x->launch] >= 1 ? c->ns[x->launch] : c->g->n[x->launch].s;
            ready = t > ready ? t : ready;
        }
        c->ns[i] = ready + c->gap[i];
        c->lvl[i] = 1;
        return;
    }
    int64_t dur = x->e - x->s, end = c->ns[i] + (int64_t)llround((double)dur * c->f[i]);
    int64_t rel0 = -1, rel = -1;
    if (x->kind == GS_GN_SYNC) {
        for (int k = 0; k < x->n_await; k++) {
            int64_t a = x->await[k];
            if (c->g->n[a].e > rel0)
                rel0 = c->g->n[a].e;
            int64_t t = c->lvl[a] >= 2 ? c->ne[a] : c->g->n[a].e;
            if (t > rel)
                rel = t;
        }
    } else if (x->kind == GS_GN_WAIT && c->waker[i] >= 0) {
        rel0 = c->g->n[x->waker >= 0 ? x->waker : c->waker[i]].e;
        rel = c->lvl[c->waker[i]] >= 2 ? c->ne[c->waker[i]] : c->g->n[c->waker[i]].e;
    }
    if (rel0 >= 0 && rel >= 0 && c->f[i] > 0) {
        int waited = rel0 > x->s;
        int64_t lag = x->e > rel0 ? x->e - rel0 : 0;
        int64_t base = waited ? 0 : dur;
        end = c->ns[i] + base > rel + lag ? c->ns[i] + base : rel + lag;
    }
    c->ne[i] = end;
    c->lvl[i] = 2;
}

int gs_wi_replay(rctx *c)
{
    size_t nn = c->g->nn;
    typedef struct { int64_t i; int want; } frame;
    frame *stk = malloc((2 * nn + 2) * sizeof *stk);
    if (!stk)
        return 0;
    for (size_t root = 0; root < nn; root++) {
        if (c->lvl[root] >= 2)
            continue;
        size_t top = 0;
        stk[top++] = (frame){(int64_t)root, 2};
        c->on[root] |= 2;
        while (top) {
            frame *f = &stk[top - 1];
            int64_t i = f->i;
            const gs_gnode *x = &c->g->n[i];
            if (c->lvl[i] >= f->want) {
                c->on[i] &= (char)~f->want;
                top--;
                continue;
            }
            int64_t dep[GS_GN_MAX_AWAIT + 3];
            int dw[GS_GN_MAX_AWAIT + 3], nd = 0;
            if (f->want == 1) {
                dep[nd] = x->chain, dw[nd++] = 2;
                dep[nd] = x->launch, dw[nd++] = 1;
            } else {
                dep[nd] = i, dw[nd++] = 1;
                for (int k = 0; x->kind == GS_GN_SYNC && k < x->n_await; k++)
                    dep[nd] = x->await[k], dw[nd++] = 2;
                if (x->kind == GS_GN_WAIT)
                    dep[nd] = c->waker[i], dw[nd++] = 2;
            }
            int pushed = 0;
            for (int k = 0; k < nd && !pushed; k++) {
                int64_t d = dep[k];
                if (d < 0 || c->lvl[d] >= dw[k] || (c->on[d] & dw[k]))
                    continue; /* known, or on the stack (a cycle): use what is known */
                c->on[d] |= (char)dw[k];
                stk[top++] = (frame){d, dw[k]};
                pushed = 1;
            }
            if (!pushed) {
                compute(c, i, f->want);
                c->on[i] &= (char)~f->want;
                top--;
            }
        }
    }
    free(stk);
    return 1;
}

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

/* remove:state:X: the sampled state X no longer fills the gaps it covered. */
static size_t remove_state(rctx *c, const char *pat, const int64_t *ix)
{
    const gs_graph *g = c->g;
    size_t ns, hit = 0;
    const gs_span *sp = gs_timeline_spans(g->tl, &ns);
    for (size_t k = 0; k < ns; k++) {
        const gs_span *s = &sp[k];
        if (s->kind != GS_SPAN_STEP || !match(pat, s->name))
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
        for (size_t q = lo; q < g->nn && g->n[ix[q]].lane == s->lane; q++) {
            const gs_gnode *x = &g->n[ix[q]];
            int64_t a = x->s - x->gap, b = x->s;
            int64_t o = (b < s->end_ns ? b : s->end_ns) - (a > s->start_ns ? a : s->start_ns);
            if (o > 0 && c->gap[ix[q]] > 0) {
                c->gap[ix[q]] -= o < c->gap[ix[q]] ? o : c->gap[ix[q]];
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
                if (g->n[j].lane == h->lane && match(w->inner, g->n[j].sp->name)) {
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
                                          : match(w[e].what, x->sp->name)) {
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
