/*
 * Building the dependency graph of a captured timeline (contract and
 * edges in graph.h).
 *
 * One pass sorts each lane's spans into leaves (the nodes) and
 * containers (a span holding another of its lane: nvtx ranges, lock
 * holds); state samples are nodes only on lanes with no other span.
 * Nodes are ordered by captured start.  Launch edges come from corr= ids
 * (a hash from corr to the host call carrying it), else the launch_lane's
 * last node begun by then; sync edges from each stream's operations
 * ordered by launch; wake edges from the holder lane's nodes ordered by
 * end.  Each node's gap is its captured start less the latest of its
 * predecessors' captured ready times.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "../common/imap.h"
#include "graph.h"

#define EPS_NS 50000

static int64_t arg_i64(const char *args, const char *key)
{
    size_t kl = strlen(key);
    for (const char *p = args; p && *p;) {
        if (!strncmp(p, key, kl) && p[kl] == '=')
            return strtoll(p + kl + 1, NULL, 10);
        p = strchr(p, ';');
        if (p)
            p++;
    }
    return -1;
}

static int is_state(const gs_span *s) { return s->kind == GS_SPAN_STEP && !strncmp(s->name, "state:", 6); }

static int lane_is_device(gs_timeline *tl, int32_t lane)
{
    const gs_lane_info *li = gs_timeline_lane(tl, lane);
    return li && li->role == GS_ROLE_DEVICE;
}

/* Spans of lane l (indices into sp) in start order; containers marked. */
typedef struct lanev {
    size_t *ix;
    size_t n, cap;
    int has_steps;      /* any non-state leaf */
} lanev;

static int push(lanev *v, size_t i)
{
    if (!gs_grow(&v->ix, &v->cap, v->n, sizeof *v->ix, 64))
        return 0;
    v->ix[v->n++] = i;
    return 1;
}

/* The host call of correlation id corr, -1 when none. */
static int64_t corr_find(const gs_imap *h, int64_t corr)
{
    int64_t node;
    return gs_imap_get(h, corr, &node) ? node : -1;
}

static int cmp_node(const void *a, const void *b)
{
    const gs_gnode *x = a, *y = b;
    if (x->s != y->s)
        return x->s < y->s ? -1 : 1;
    if (x->e != y->e)
        return x->e < y->e ? -1 : 1;
    return x->lane - y->lane;
}

void gs_graph_destroy(gs_graph *g)
{
    if (!g)
        return;
    free(g->n);
    free(g->box);
    free(g->box_first);
    free(g->box_last);
    free(g);
}

/* How many nodes of list idx (node indices, ordered by key: start, or
 * end with by_end) have key <= t: the position of the first after t. */
static size_t count_at(const gs_gnode *n, const int64_t *idx, size_t m, int64_t t, int by_end)
{
    size_t lo = 0, hi = m;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int64_t k = by_end ? n[idx[mid]].e : n[idx[mid]].s;
        if (k <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The last node of list idx (node indices, ordered by key) with key <= t. */
static int64_t last_at(const gs_gnode *n, const int64_t *idx, size_t m, int64_t t, int by_end)
{
    size_t k = count_at(n, idx, m, t, by_end);
    return k ? idx[k - 1] : -1;
}

#define NO_LAUNCHES                                                                                     \
    "the timeline has no device operation linked to a launching call (corr= or launch_lane=): "        \
    "a what-if needs an attach or import capture with launches"

gs_status gs_graph_build(gs_graph **out, gs_timeline *tl, gs_err *err)
{
    *out = NULL;
    size_t ns;
    const gs_span *sp = gs_timeline_spans(tl, &ns);
    size_t nl = gs_timeline_lane_count(tl);
    /* Refused before anything is built when no device operation names its
     * launch (an engine capture: its stages carry neither). */
    int linked = 0;
    for (size_t i = 0; i < ns && !linked; i++)
        linked = sp[i].lane >= 0 && (size_t)sp[i].lane < nl && lane_is_device(tl, sp[i].lane) &&
                 (sp[i].kind == GS_SPAN_KERNEL || sp[i].kind == GS_SPAN_COPY) &&
                 (arg_i64(sp[i].args, "corr") >= 0 || arg_i64(sp[i].args, "launch_lane") >= 0);
    if (!linked)
        return GS_ERR(err, GS_ERR_FORMAT, "graph", NO_LAUNCHES);
    gs_graph *g = calloc(1, sizeof *g);
    lanev *lv = calloc(nl ? nl : 1, sizeof *lv);
    char *leaf = calloc(ns ? ns : 1, 1);
    int64_t **per = calloc(nl ? nl : 1, sizeof *per);
    size_t *per_n = calloc(nl ? nl : 1, sizeof *per_n);
    gs_imap h = {0};   /* corr -> host call */
    gs_status st = GS_OK;
    if (!g || !lv || !leaf || !per || !per_n)
        goto nomem;
    g->tl = tl;
    for (size_t i = 0; i < ns; i++) {
        const gs_span *s = &sp[i];
        if (s->lane < 0 || (size_t)s->lane >= nl || s->end_ns < s->start_ns)
            continue;
        int dev = lane_is_device(tl, s->lane);
        if (dev ? (s->kind == GS_SPAN_KERNEL || s->kind == GS_SPAN_COPY)
                : (s->kind == GS_SPAN_STEP || s->kind == GS_SPAN_LOCK_WAIT || s->kind == GS_SPAN_LOCK_HOLD))
            if (!push(&lv[s->lane], i))
                goto nomem;
    }
    /* Leaves: a host span holding no other span of its lane (state samples
     * overlap the rest and never contain or count as contained). */
    size_t nnode = 0, nbox = 0;
    for (size_t l = 0; l < nl; l++) {
        lanev *v = &lv[l];
        int dev = lane_is_device(tl, (int32_t)l);
        for (size_t a = 0; a < v->n; a++) {
            const gs_span *s = &sp[v->ix[a]];
            if (dev) {
                leaf[v->ix[a]] = 1;
                continue;
            }
            if (is_state(s))
                continue;
            int holds = s->kind == GS_SPAN_LOCK_HOLD;
            for (size_t b = a + 1; !holds && b < v->n && sp[v->ix[b]].start_ns < s->end_ns; b++) {
                const gs_span *t = &sp[v->ix[b]];
                holds = !is_state(t) && t->end_ns <= s->end_ns && t->kind != GS_SPAN_LOCK_HOLD;
            }
            leaf[v->ix[a]] = holds ? 2 : 1;
            v->has_steps |= !holds;
        }
        for (size_t a = 0; !dev && !v->has_steps && a < v->n; a++)
            if (is_state(&sp[v->ix[a]]))
                leaf[v->ix[a]] = 1;
        for (size_t a = 0; a < v->n; a++) {
            nnode += leaf[v->ix[a]] == 1;
            nbox += leaf[v->ix[a]] == 2;
        }
    }
    g->n = calloc(nnode ? nnode : 1, sizeof *g->n);
    g->box = calloc(nbox ? nbox : 1, sizeof *g->box);
    g->box_first = calloc(nbox ? nbox : 1, sizeof *g->box_first);
    g->box_last = calloc(nbox ? nbox : 1, sizeof *g->box_last);
    if (!g->n || !g->box || !g->box_first || !g->box_last)
        goto nomem;
    for (size_t i = 0; i < ns; i++) {
        const gs_span *s = &sp[i];
        if (leaf[i] == 2) {
            g->box[g->nbox++] = s;
            continue;
        }
        if (leaf[i] != 1)
            continue;
        gs_gnode *x = &g->n[g->nn++];
        *x = (gs_gnode){.lane = s->lane, .sp = s, .s = s->start_ns, .e = s->end_ns, .chain = -1, .launch = -1,
                        .waker = -1};
        x->kind = lane_is_device(tl, s->lane) ? GS_GN_DEVICE
                  : s->kind == GS_SPAN_LOCK_WAIT ? GS_GN_WAIT
                  : !strncmp(s->name, "cuda_sync:", 10) ? GS_GN_SYNC
                                                         : GS_GN_HOST;
    }
    qsort(g->n, g->nn, sizeof *g->n, cmp_node);
    /* Per lane: node indices in start order; chain edges. */
    for (size_t i = 0; i < g->nn; i++)
        per_n[g->n[i].lane]++;
    for (size_t l = 0; l < nl; l++)
        if (per_n[l] && !(per[l] = malloc(per_n[l] * sizeof **per)))
            goto nomem;
    memset(per_n, 0, nl * sizeof *per_n);
    for (size_t i = 0; i < g->nn; i++) {
        int32_t l = g->n[i].lane;
        g->n[i].chain = per_n[l] ? per[l][per_n[l] - 1] : -1;
        per[l][per_n[l]++] = (int64_t)i;
    }
    /* corr -> host call. */
    if (!gs_imap_init(&h, g->nn))
        goto nomem;
    for (size_t i = 0; i < g->nn; i++) {
        int64_t c = g->n[i].kind != GS_GN_DEVICE ? arg_i64(g->n[i].sp->args, "corr") : -1;
        if (c >= 0)
            (void)gs_imap_add(&h, c, (int64_t)i);   /* sized for every node: cannot fail */
    }
    for (size_t i = 0; i < g->nn; i++) {
        gs_gnode *x = &g->n[i];
        if (x->kind != GS_GN_DEVICE)
            continue;
        int64_t c = arg_i64(x->sp->args, "corr"), ll = arg_i64(x->sp->args, "launch_lane");
        if (c >= 0)
            x->launch = corr_find(&h, c);
        if (x->launch < 0 && ll >= 0 && (size_t)ll < nl && per_n[ll])
            x->launch = last_at(g->n, per[ll], per_n[ll], x->s, 0);
        if (x->launch >= 0 && g->n[x->launch].s > x->s)
            x->launch = -1; /* clock skew: a launch after its operation */
        g->n_launch += x->launch >= 0;
    }
    /* Syncs: per device lane, the last operation launched (else begun)
     * before the sync began that ended before it returned. */
    for (size_t i = 0; i < g->nn; i++) {
        gs_gnode *x = &g->n[i];
        if (x->kind != GS_GN_SYNC)
            continue;
        for (size_t l = 0; l < nl && x->n_await < GS_GN_MAX_AWAIT; l++) {
            if (!per_n[l] || !lane_is_device(tl, (int32_t)l))
                continue;
            int64_t best = -1;
            for (size_t q = per_n[l]; q-- > 0;) {
                const gs_gnode *o = &g->n[per[l][q]];
                int64_t born = o->launch >= 0 ? g->n[o->launch].s : o->s;
                if (o->s > x->e)
                    continue;
                if (born < x->s && o->e <= x->e + EPS_NS) {
                    best = per[l][q];
                    break;
                }
                if (o->e < x->s - 1000000000LL)
                    break; /* a second before: nothing older can be the last */
            }
            if (best >= 0)
                x->await[x->n_await++] = best;
        }
        g->n_sync += x->n_await > 0;
    }
    /* Wakes: the holder's (waker's) last node that ended before the wait did. */
    for (size_t i = 0; i < g->nn; i++) {
        gs_gnode *x = &g->n[i];
        int32_t hl = x->sp->holder;
        if (x->kind != GS_GN_WAIT || hl < 0 || (size_t)hl >= nl || !per_n[hl] || hl == x->lane)
            continue;
        /* The holder's nodes ordered by end: a lane's leaves do not overlap,
         * so their start order is their end order. */
        int64_t k = last_at(g->n, per[hl], per_n[hl], x->e + EPS_NS, 1);
        if (k >= 0 && g->n[k].e >= x->s - EPS_NS) {
            x->waker = k;
            g->n_wake++;
        }
    }
    /* Gaps: captured start less the latest predecessor's ready time. */
    int64_t t0 = g->nn ? g->n[0].s : 0;
    for (size_t i = 0; i < g->nn; i++) {
        gs_gnode *x = &g->n[i];
        int64_t ready = t0;
        if (x->chain >= 0 && g->n[x->chain].e > ready)
            ready = g->n[x->chain].e;
        if (x->launch >= 0 && g->n[x->launch].s > ready)
            ready = g->n[x->launch].s;
        x->gap = x->s > ready ? x->s - ready : 0;
    }
    /* Containers: the first and last node of their lane inside them. */
    for (size_t b = 0; b < g->nbox; b++) {
        const gs_span *s = g->box[b];
        int32_t l = s->lane;
        g->box_first[b] = g->box_last[b] = -1;
        /* From the lane's first node starting inside the box to its last:
         * a node starting after the box's end cannot end inside it. */
        for (size_t q = count_at(g->n, per[l], per_n[l], s->start_ns - 1, 0);
             q < per_n[l] && g->n[per[l][q]].s <= s->end_ns; q++) {
            const gs_gnode *o = &g->n[per[l][q]];
            if (o->e <= s->end_ns) {
                if (g->box_first[b] < 0)
                    g->box_first[b] = per[l][q];
                g->box_last[b] = per[l][q];
            }
        }
    }
    goto done;
nomem:
    st = GS_ERR(err, GS_ERR_NOMEM, "graph", "out of memory for %zu spans", ns);
done:
    for (size_t l = 0; lv && l < nl; l++)
        free(lv[l].ix);
    for (size_t l = 0; per && l < nl; l++)
        free(per[l]);
    free(per);
    free(per_n);
    free(lv);
    free(leaf);
    gs_imap_free(&h);
    if (st != GS_OK) {
        gs_graph_destroy(g);
        return st;
    }
    if (g->nn == 0 || !g->n_launch) {
        gs_graph_destroy(g);
        return GS_ERR(err, GS_ERR_FORMAT, "graph", NO_LAUNCHES);
    }
    *out = g;
    return GS_OK;
}
