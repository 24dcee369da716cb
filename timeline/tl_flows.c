/*
 * Flows between spans, for the trace writers (timeline.json and
 * timeline.perfetto-trace draw the same arrows; tl_internal.h has the
 * contract).
 *
 *   launch  a GPU worker's prove_start span -> each device span (KERNEL or
 *           COPY) of the same device, job and partition, from the launch
 *           that started last at or before the device span;
 *   lock    a lock wait with a known holder: the holder's LOCK_HOLD of the
 *           same lock that ended last within the wait (the release) -> the
 *           waiter's LOCK_HOLD of that lock starting when the wait ended
 *           (the acquire, at most GS_TL_ACQUIRE_NS later).
 *
 * Ids are given per source, contiguously (a Perfetto slice lists the ids
 * leaving it when it begins), by counting flows per source first.  Memory:
 * the launch and hold tables and one record per flow, no copy of spans.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "tl_internal.h"

#define GS_TL_ACQUIRE_NS 1000000

typedef struct {
    int32_t dev, job, part, lane;
    int64_t t;               /* launch: start; hold: end (release) or start (acquire) */
    const char *name;        /* holds: the lock */
    size_t span;
} src_rec;

static int cmp_hold(const void *pa, const void *pb)
{
    const src_rec *a = pa, *b = pb;
    if (a->lane != b->lane)
        return a->lane < b->lane ? -1 : 1;
    int c = strcmp(a->name, b->name);
    if (c)
        return c;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    return (a->span > b->span) - (a->span < b->span);
}

/* Index of the last record <= key in v[0..n) under cmp, or n when none. */
static size_t last_le(const src_rec *v, size_t n, const src_rec *key,
                      int (*cmp)(const void *, const void *))
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp(&v[mid], key) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? lo - 1 : n;
}

static int cmp_out(const void *pa, const void *pb)
{
    const gs_tl_flow_out *a = pa, *b = pb;
    return (a->src > b->src) - (a->src < b->src);
}

/* The flows found so far and each one's source slot. */
typedef struct {
    gs_tl_flows *f;
    size_t *slot;
    size_t cap;
} fl_acc;

static int add_flow(fl_acc *a, size_t dst, size_t src, uint8_t kind, size_t slot, size_t *count)
{
    gs_tl_flows *f = a->f;
    if (f->n == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 1024;
        gs_tl_flow_in *ni = realloc(f->in, cap * sizeof *ni);
        if (ni)
            f->in = ni;
        size_t *ns = ni ? realloc(a->slot, cap * sizeof *ns) : NULL;
        if (!ns)
            return 0;
        a->slot = ns;
        a->cap = cap;
    }
    f->in[f->n] = (gs_tl_flow_in){dst, src, 0, kind};
    a->slot[f->n++] = slot;
    if (count)
        count[slot]++;
    return 1;
}

static int is_device_op(const gs_span *s)
{
    return s->kind == GS_SPAN_KERNEL || s->kind == GS_SPAN_COPY;
}

/* Launches by (device, job, partition): the latest seen so far, as the
 * spans are walked in start order (open addressing, grown at half full). */
typedef struct {
    src_rec *v;              /* the launch table, in span order */
    size_t *slot, cap;       /* slot + 1 of the latest launch per key; 0 = empty */
} launch_map;

static uint64_t key_hash(int32_t dev, int32_t job, int32_t part)
{
    uint64_t h = (uint64_t)(uint32_t)dev * 0x9e3779b97f4a7c15ull;
    h ^= (uint64_t)(uint32_t)job * 0xc2b2ae3d27d4eb4full;
    h ^= (uint64_t)(uint32_t)part * 0x165667b19e3779f9ull;
    return h ^ (h >> 29);
}

static size_t *lm_find(launch_map *m, int32_t dev, int32_t job, int32_t part)
{
    size_t j = (size_t)key_hash(dev, job, part) & (m->cap - 1);
    while (m->slot[j]) {
        const src_rec *r = &m->v[m->slot[j] - 1];
        if (r->dev == dev && r->job == job && r->part == part)
            break;
        j = (j + 1) & (m->cap - 1);
    }
    return &m->slot[j];
}

static int is_launch(gs_timeline *tl, const gs_span *s)
{
    if (s->kind != GS_SPAN_STEP || s->job < 0)
        return 0;
    const gs_lane_info *L = gs_timeline_lane(tl, s->lane);
    return L->role == GS_ROLE_GPU_WORKER && s->job >= 0 && gs_vocab_is(s->name, GS_V_PROVE_START);
}

static int cmp_in(const void *pa, const void *pb)
{
    const gs_tl_flow_in *a = pa, *b = pb;
    return (a->dst > b->dst) - (a->dst < b->dst);
}

/* Merges two runs sorted by key into dst (n1 + n2 records of size sz). */
static void merge_runs(void *dst, const void *r1, size_t n1, const void *r2, size_t n2, size_t sz,
                       int (*cmp)(const void *, const void *))
{
    const char *a = r1, *b = r2;
    char *o = dst;
    while (n1 || n2) {
        const char **take = !n2 || (n1 && cmp(a, b) <= 0) ? &a : &b;
        memcpy(o, *take, sz);
        o += sz;
        *take += sz;
        if (take == &a)
            n1--;
        else
            n2--;
    }
}

gs_status gs_tl_flows_build(gs_tl_flows *f, gs_timeline *tl, const gs_span *sp, size_t n)
{
    memset(f, 0, sizeof *f);
    size_t nl = 0, nh = 0, nd = 0, nw = 0;
    for (size_t i = 0; i < n; i++) {
        if (is_launch(tl, &sp[i]))
            nl++;
        else if (sp[i].kind == GS_SPAN_LOCK_HOLD)
            nh++;
        else if (sp[i].kind == GS_SPAN_LOCK_WAIT && sp[i].holder >= 0)
            nw++;
        else if (is_device_op(&sp[i]) && sp[i].job >= 0)
            nd++;
    }
    launch_map lm = {malloc((nl + 1) * sizeof(src_rec)), NULL, 64};
    while (lm.cap < 2 * nl)
        lm.cap *= 2;
    lm.slot = calloc(lm.cap, sizeof *lm.slot);
    src_rec *rel = malloc((nh + 1) * sizeof *rel), *acq = malloc((nh + 1) * sizeof *acq);
    size_t *count = calloc(nl + nh + 1, sizeof *count);
    /* Sized for every candidate up front: no growth, and the lock flows
     * are merged into the launch flows' array in place. */
    fl_acc acc = {f, malloc((nd + 1) * sizeof *acc.slot), nd + 1}, lk = {NULL, NULL, 0};
    f->in = malloc((nd + nw + 1) * sizeof *f->in);
    gs_tl_flows lockf = {0};
    lk.f = &lockf;
    gs_tl_flow_out *hout = NULL;
    gs_status st = GS_ERR_NOMEM;
    if (!lm.v || !lm.slot || !rel || !acq || !count || !acc.slot || !f->in)
        goto done;
    nh = 0;
    for (size_t i = 0; i < n; i++)
        if (sp[i].kind == GS_SPAN_LOCK_HOLD) {
            rel[nh] = (src_rec){-1, -1, -1, sp[i].lane, sp[i].end_ns, sp[i].name, i};
            acq[nh] = rel[nh];
            acq[nh++].t = sp[i].start_ns;
        }
    qsort(rel, nh, sizeof *rel, cmp_hold);
    qsort(acq, nh, sizeof *acq, cmp_hold);
    /* Pass 1: each destination's source (a slot: launch k in span order, or
     * hold nl + k).  A group of one start registers its launches first: a
     * launch at t serves device spans at t. */
    nl = 0;
    for (size_t g = 0, h; g < n; g = h) {
        for (h = g; h < n && sp[h].start_ns == sp[g].start_ns; h++)
            if (is_launch(tl, &sp[h])) {
                const gs_lane_info *L = gs_timeline_lane(tl, sp[h].lane);
                lm.v[nl] = (src_rec){L->device, sp[h].job, sp[h].part, L->id, sp[h].start_ns, NULL, h};
                *lm_find(&lm, L->device, sp[h].job, sp[h].part) = ++nl;
            }
        for (size_t i = g; i < h; i++) {
            const gs_span *s = &sp[i];
            const gs_lane_info *L = gs_timeline_lane(tl, s->lane);
            if (L->role == GS_ROLE_DEVICE && s->job >= 0 && is_device_op(s)) {
                size_t k = *lm_find(&lm, L->device, s->job, s->part);
                if (k && !add_flow(&acc, i, lm.v[k - 1].span, GS_TL_FLOW_LAUNCH, k - 1, count))
                    goto done;
            } else if (s->kind == GS_SPAN_LOCK_WAIT && s->holder >= 0) {
                /* release: the holder's last hold of this lock ending within the wait */
                src_rec key = {-1, -1, -1, s->holder, s->end_ns, s->name, (size_t)-1};
                size_t k = last_le(rel, nh, &key, cmp_hold);
                if (k == nh || rel[k].lane != s->holder || strcmp(rel[k].name, s->name) ||
                    rel[k].t < s->start_ns)
                    continue;
                /* acquire: the waiter's first hold of it starting at or after the wait's end */
                src_rec akey = {-1, -1, -1, s->lane, s->end_ns, s->name, 0};
                size_t a = last_le(acq, nh, &akey, cmp_hold);
                a = a == nh ? 0 : a + 1;
                while (a < nh && acq[a].lane == s->lane && !strcmp(acq[a].name, s->name) &&
                       acq[a].t < s->end_ns)
                    a++;
                if (a == nh || acq[a].lane != s->lane || strcmp(acq[a].name, s->name) ||
                    acq[a].t - s->end_ns > GS_TL_ACQUIRE_NS)
                    continue;
                if (!add_flow(&lk, acq[a].span, rel[k].span, GS_TL_FLOW_LOCK, (size_t)-1, NULL))
                    goto done;
                lk.slot[lockf.n - 1] = k;   /* the hold, numbered after the launches below */
            }
        }
        if ((nl + 1) * 2 > lm.cap) {   /* keep the map at most half full */
            size_t *ns = calloc(lm.cap * 2, sizeof *ns);
            if (!ns)
                goto done;
            free(lm.slot);
            lm.slot = ns;
            lm.cap *= 2;
            for (size_t k = 0; k < nl; k++)
                *lm_find(&lm, lm.v[k].dev, lm.v[k].job, lm.v[k].part) = k + 1;
        }
    }
    for (size_t j = 0; j < lockf.n; j++)
        count[nl + lk.slot[j]]++;
    /* Pass 2: ids, contiguous per source (count[] becomes the next id);
     * launches are in span order already, holds are sorted, then merged. */
    f->out = malloc((nl + nh + 1) * sizeof *f->out);
    hout = malloc((nh + 1) * sizeof *hout);
    if (!f->out || !hout)
        goto done;
    size_t n_h = 0;
    uint64_t next = 1;
    for (size_t k = 0; k < nl + nh; k++) {
        if (!count[k])
            continue;
        size_t span = k < nl ? lm.v[k].span : rel[k - nl].span, c = count[k];
        gs_tl_flow_out o = {span, next, (uint32_t)c};
        if (k < nl)
            f->out[f->n_out++] = o;
        else
            hout[n_h++] = o;
        count[k] = next;
        next += c;
    }
    for (size_t j = 0; j < f->n; j++)
        f->in[j].id = count[acc.slot[j]]++;
    for (size_t j = 0; j < lockf.n; j++)
        lockf.in[j].id = count[nl + lk.slot[j]]++;
    qsort(hout, n_h, sizeof *hout, cmp_out);
    gs_tl_flow_out *launch_out = f->out;
    f->out = malloc((f->n_out + n_h + 1) * sizeof *f->out);
    if (!f->out) {
        f->out = launch_out;
        goto done;
    }
    merge_runs(f->out, launch_out, f->n_out, hout, n_h, sizeof *f->out, cmp_out);
    f->n_out += n_h;
    free(launch_out);
    /* Lock destinations (acquires) come after their waits: sorted, then
     * merged from the back into the room left after the launch flows. */
    if (lockf.n)
        qsort(lockf.in, lockf.n, sizeof *lockf.in, cmp_in);
    for (size_t i = f->n, j = lockf.n, k = f->n + lockf.n; j > 0; k--) {
        if (i > 0 && f->in[i - 1].dst > lockf.in[j - 1].dst)
            f->in[k - 1] = f->in[--i];
        else
            f->in[k - 1] = lockf.in[--j];
    }
    f->n += lockf.n;
    st = GS_OK;
done:
    free(lm.v);
    free(lm.slot);
    free(rel);
    free(acq);
    free(count);
    free(hout);
    free(acc.slot);
    free(lk.slot);
    free(lockf.in);
    if (st != GS_OK)
        gs_tl_flows_free(f);
    return st;
}

void gs_tl_flows_free(gs_tl_flows *f)
{
    free(f->in);
    free(f->out);
    memset(f, 0, sizeof *f);
}

const gs_tl_flow_in *gs_tl_flow_into(const gs_tl_flows *f, size_t *cur, size_t g, size_t span)
{
    while (*cur < f->n && f->in[*cur].dst < g)
        ++*cur;
    for (size_t k = *cur; k < f->n && f->in[k].dst <= span; k++)
        if (f->in[k].dst == span)
            return &f->in[k];
    return NULL;
}

uint32_t gs_tl_flows_from(const gs_tl_flows *f, size_t *cur, size_t g, size_t span, uint64_t *first)
{
    while (*cur < f->n_out && f->out[*cur].src < g)
        ++*cur;
    for (size_t k = *cur; k < f->n_out && f->out[k].src <= span; k++)
        if (f->out[k].src == span) {
            *first = f->out[k].first;
            return f->out[k].count;
        }
    return 0;
}
