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

static int cmp_launch(const void *pa, const void *pb)
{
    const src_rec *a = pa, *b = pb;
    if (a->dev != b->dev)
        return a->dev < b->dev ? -1 : 1;
    if (a->job != b->job)
        return a->job < b->job ? -1 : 1;
    if (a->part != b->part)
        return a->part < b->part ? -1 : 1;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    return (a->span > b->span) - (a->span < b->span);
}

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
    count[slot]++;
    return 1;
}

static int is_device_op(const gs_span *s)
{
    return s->kind == GS_SPAN_KERNEL || s->kind == GS_SPAN_COPY;
}

gs_status gs_tl_flows_build(gs_tl_flows *f, gs_timeline *tl, const gs_span *sp, size_t n)
{
    memset(f, 0, sizeof *f);
    size_t nl = 0, nh = 0;
    for (size_t i = 0; i < n; i++) {
        const gs_lane_info *L = gs_timeline_lane(tl, sp[i].lane);
        if (L->role == GS_ROLE_GPU_WORKER && sp[i].job >= 0 && gs_vocab_is(sp[i].name, GS_V_PROVE_START))
            nl++;
        else if (sp[i].kind == GS_SPAN_LOCK_HOLD)
            nh++;
    }
    src_rec *ls = malloc((nl + 1) * sizeof *ls);
    src_rec *rel = malloc((nh + 1) * sizeof *rel), *acq = malloc((nh + 1) * sizeof *acq);
    size_t *count = calloc(nl + nh + 1, sizeof *count);
    fl_acc acc = {f, NULL, 0};
    gs_status st = GS_ERR_NOMEM;
    if (!ls || !rel || !acq || !count)
        goto done;
    nl = nh = 0;
    for (size_t i = 0; i < n; i++) {
        const gs_lane_info *L = gs_timeline_lane(tl, sp[i].lane);
        if (L->role == GS_ROLE_GPU_WORKER && sp[i].job >= 0 && gs_vocab_is(sp[i].name, GS_V_PROVE_START))
            ls[nl++] = (src_rec){L->device, sp[i].job, sp[i].part, L->id, sp[i].start_ns, NULL, i};
        else if (sp[i].kind == GS_SPAN_LOCK_HOLD) {
            rel[nh] = (src_rec){-1, -1, -1, sp[i].lane, sp[i].end_ns, sp[i].name, i};
            acq[nh] = rel[nh];
            acq[nh++].t = sp[i].start_ns;
        }
    }
    qsort(ls, nl, sizeof *ls, cmp_launch);
    qsort(rel, nh, sizeof *rel, cmp_hold);
    qsort(acq, nh, sizeof *acq, cmp_hold);
    /* Pass 1: each destination's source (a slot: launch k, or hold nl + k). */
    for (size_t i = 0; i < n; i++) {
        const gs_span *s = &sp[i];
        const gs_lane_info *L = gs_timeline_lane(tl, s->lane);
        if (L->role == GS_ROLE_DEVICE && s->job >= 0 && is_device_op(s)) {
            src_rec key = {L->device, s->job, s->part, 0, s->start_ns, NULL, (size_t)-1};
            size_t k = last_le(ls, nl, &key, cmp_launch);
            if (k < nl && ls[k].dev == key.dev && ls[k].job == key.job && ls[k].part == key.part &&
                !add_flow(&acc, i, ls[k].span, GS_TL_FLOW_LAUNCH, k, count))
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
            if (!add_flow(&acc, acq[a].span, rel[k].span, GS_TL_FLOW_LOCK, nl + k, count))
                goto done;
        }
    }
    /* Pass 2: ids, contiguous per source (count[] becomes the next id). */
    f->out = malloc((nl + nh + 1) * sizeof *f->out);
    if (!f->out)
        goto done;
    uint64_t next = 1;
    for (size_t k = 0; k < nl + nh; k++) {
        if (!count[k])
            continue;
        size_t span = k < nl ? ls[k].span : rel[k - nl].span;
        f->out[f->n_out++] = (gs_tl_flow_out){span, next, (uint32_t)count[k]};
        size_t c = count[k];
        count[k] = next;
        next += c;
    }
    for (size_t j = 0; j < f->n; j++)
        f->in[j].id = count[acc.slot[j]]++;
    qsort(f->out, f->n_out, sizeof *f->out, cmp_out);
    /* Lock destinations (acquires) come later than their waits: sort by
     * destination when any is out of order. */
    for (size_t j = 1; j < f->n; j++)
        if (f->in[j].dst < f->in[j - 1].dst) {
            qsort(f->in, f->n, sizeof *f->in, gs_tl_flow_in_cmp);
            break;
        }
    st = GS_OK;
done:
    free(ls);
    free(rel);
    free(acq);
    free(count);
    free(acc.slot);
    if (st != GS_OK)
        gs_tl_flows_free(f);
    return st;
}

int gs_tl_flow_in_cmp(const void *pa, const void *pb)
{
    const gs_tl_flow_in *a = pa, *b = pb;
    return (a->dst > b->dst) - (a->dst < b->dst);
}

void gs_tl_flows_free(gs_tl_flows *f)
{
    free(f->in);
    free(f->out);
    memset(f, 0, sizeof *f);
}

const gs_tl_flow_in *gs_tl_flow_into(const gs_tl_flows *f, size_t span)
{
    size_t lo = 0, hi = f->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->in[mid].dst < span)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < f->n && f->in[lo].dst == span ? &f->in[lo] : NULL;
}

uint32_t gs_tl_flows_from(const gs_tl_flows *f, size_t span, uint64_t *first)
{
    size_t lo = 0, hi = f->n_out;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->out[mid].src < span)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < f->n_out && f->out[lo].src == span) {
        *first = f->out[lo].first;
        return f->out[lo].count;
    }
    return 0;
}
