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

#include "../common/bigmem.h"
#include "../common/grow.h"
#include "tl_internal.h"

#define GS_TL_ACQUIRE_NS 1000000

typedef struct {
    int32_t dev, job, part, lane;
    int64_t t;               /* launch: start; hold: end (release) or start (acquire) */
    uint32_t name;           /* holds: the lock's rank among the lock names (lock_ranks) */
    size_t span;
} src_rec;

static int cmp_hold(const void *pa, const void *pb)
{
    const src_rec *a = pa, *b = pb;
    if (a->lane != b->lane)
        return a->lane < b->lane ? -1 : 1;
    if (a->name != b->name)
        return a->name < b->name ? -1 : 1;
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

/* Lock names as ranks in strcmp order (equal names, equal ranks), so holds
 * sort and are found by integer compares in the order names would give:
 * ids from a string map (1..n in order of first sight), rank[id]. */
typedef struct {
    gs_strmap *m;
    const char **name;       /* by id - 1 */
    uint32_t *rank;          /* by id */
    size_t cap;
} lock_ranks;

/* The id of a lock name (0: out of memory); with add 0, a name no hold has
 * gets an id above those of the holds' names. */
static uint64_t lock_id(lock_ranks *r, const char *name)
{
    int added;
    const char *stored;
    uint64_t id = gs_strmap_get(r->m, name, 1, &added, &stored);
    if (!added || !id)
        return id;
    if (!gs_grow(&r->name, &r->cap, id - 1, sizeof *r->name, 16))
        return 0;
    r->name[id - 1] = stored;
    return id;
}

static int cmp_name(const void *pa, const void *pb)
{
    return strcmp(*(const char *const *)pa, *(const char *const *)pb);
}

/* rank[id] for the ids given so far; 0 when out of memory. */
static int lock_rank(lock_ranks *r)
{
    size_t n = r->m->n;
    const char **sorted = malloc((n + 1) * sizeof *sorted);
    r->rank = malloc((n + 1) * sizeof *r->rank);
    if (!sorted || !r->rank) {
        free(sorted);
        return 0;
    }
    if (n)
        memcpy(sorted, r->name, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, cmp_name);
    for (size_t i = 0; i < n; i++) {
        /* equal contents share an id, so each name is found once */
        uint64_t id = gs_strmap_get(r->m, sorted[i], 0, &(int){0}, &(const char *){NULL});
        r->rank[id] = (uint32_t)i;
    }
    free(sorted);
    return 1;
}

static int cmp_out(const void *pa, const void *pb)
{
    const gs_tl_flow_out *a = pa, *b = pb;
    return (a->src > b->src) - (a->src < b->src);
}

/* Appends a flow to f->in (cap: its room); id holds the source's slot
 * until ids are given. */
static int add_flow(gs_tl_flows *f, size_t *cap, size_t dst, size_t src, uint8_t kind, size_t slot)
{
    if (!gs_grow(&f->in, cap, f->n, sizeof *f->in, 1024))
        return 0;
    f->in[f->n++] = (gs_tl_flow_in){dst, src, slot, kind};
    return 1;
}

static int is_device_op(const gs_span *s)
{
    return s->kind == GS_SPAN_KERNEL || s->kind == GS_SPAN_COPY;
}

/* Launches by (device, job, partition): the latest seen so far, as the
 * spans are walked in start order (open addressing, grown at half full),
 * with a small direct-mapped cache of keys met lately in front (a run's
 * table outgrows the CPU caches; the device spans of one partition come
 * close together in time). */
#define LM_HITS 256
typedef struct {
    int32_t dev, job, part;
    size_t k;                /* slot + 1 of the latest launch; 0 = empty */
} lm_hit;
typedef struct {
    src_rec *v;              /* the launch table, in span order */
    size_t *slot, cap;       /* slot + 1 of the latest launch per key; 0 = empty */
    lm_hit hit[LM_HITS];
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

static lm_hit *lm_hit_of(launch_map *m, int32_t dev, int32_t job, int32_t part)
{
    return &m->hit[(key_hash(dev, job, part) >> 40) & (LM_HITS - 1)];
}

/* The latest launch of a key (slot + 1), 0 when none. */
static size_t lm_get(launch_map *m, int32_t dev, int32_t job, int32_t part)
{
    lm_hit *h = lm_hit_of(m, dev, job, part);
    if (h->k && h->dev == dev && h->job == job && h->part == part)
        return h->k;
    size_t k = *lm_find(m, dev, job, part);
    if (k)
        *h = (lm_hit){dev, job, part, k};
    return k;
}

static void lm_set(launch_map *m, int32_t dev, int32_t job, int32_t part, size_t k)
{
    *lm_find(m, dev, job, part) = k;
    *lm_hit_of(m, dev, job, part) = (lm_hit){dev, job, part, k};
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

/* The holds sorted by (lane, lock, t, span) into out, from v in span
 * order: a counting sort by (lane, lock) keeps span order inside each
 * bucket, where t is start (acquires: in order already) or end (releases:
 * in order unless holds of one lane and lock overlap; such a bucket is
 * sorted).  qsort when there are too many buckets to count.  0 when out of
 * memory. */
static int sort_holds(src_rec *out, const src_rec *v, size_t nh, size_t n_lanes, size_t n_names)
{
    if (!nh)
        return 1;
    size_t nb = n_lanes * n_names;
    if (n_names && nb / n_names != n_lanes)
        nb = SIZE_MAX;
    if (nb > 4 * nh + 4096) {
        memcpy(out, v, nh * sizeof *out);
        qsort(out, nh, sizeof *out, cmp_hold);
        return 1;
    }
    size_t *at = calloc(nb + 1, sizeof *at);
    if (!at)
        return 0;
    for (size_t k = 0; k < nh; k++)
        at[(size_t)v[k].lane * n_names + v[k].name + 1]++;
    for (size_t b = 0; b < nb; b++)
        at[b + 1] += at[b];
    for (size_t k = 0; k < nh; k++)
        out[at[(size_t)v[k].lane * n_names + v[k].name]++] = v[k];
    /* at[b] is now where bucket b ends */
    for (size_t b = 0, lo = 0; b < nb; lo = at[b++])
        for (size_t k = lo + 1; k < at[b]; k++)
            if (cmp_hold(&out[k - 1], &out[k]) > 0) {
                qsort(out + lo, at[b] - lo, sizeof *out, cmp_hold);
                break;
            }
    free(at);
    return 1;
}

/* The lock flow of the wait s, if any: the holder's release ending
 * within the wait -> the waiter's acquire.  rel and acq: the holds sorted
 * by (lane, lock, end) and (lane, lock, start).  -1: out of memory. */
static int lock_flow(gs_tl_flows *lockf, size_t *cap, lock_ranks *lr, size_t n_names,
                     const src_rec *rel, const src_rec *acq, size_t nh, const gs_span *s)
{
    uint64_t id = lock_id(lr, s->name);
    if (!id)
        return -1;
    if (id > n_names)
        return 0;   /* no hold of this lock */
    uint32_t rank = lr->rank[id];
    /* release: the holder's last hold of this lock ending within the wait */
    src_rec key = {-1, -1, -1, s->holder, s->end_ns, rank, (size_t)-1};
    size_t k = last_le(rel, nh, &key, cmp_hold);
    if (k == nh || rel[k].lane != s->holder || rel[k].name != rank || rel[k].t < s->start_ns)
        return 0;
    /* acquire: the waiter's first hold of it starting at or after the wait's end */
    src_rec akey = {-1, -1, -1, s->lane, s->end_ns, rank, 0};
    size_t a = last_le(acq, nh, &akey, cmp_hold);
    a = a == nh ? 0 : a + 1;
    while (a < nh && acq[a].lane == s->lane && acq[a].name == rank && acq[a].t < s->end_ns)
        a++;
    if (a == nh || acq[a].lane != s->lane || acq[a].name != rank ||
        acq[a].t - s->end_ns > GS_TL_ACQUIRE_NS)
        return 0;
    return add_flow(lockf, cap, acq[a].span, rel[k].span, GS_TL_FLOW_LOCK, k) ? 1 : -1;
}

/*
 * One walk over the spans (they are the largest thing in memory: walked
 * once, not once per kind of record): launches into the launch map, each
 * device span's launch flow, the holds and the waits.  Then the waits'
 * lock flows against the sorted holds, the ids and the tables' order.
 */
gs_status gs_tl_flows_build(gs_tl_flows *f, gs_timeline *tl, const gs_span *sp, size_t n)
{
    memset(f, 0, sizeof *f);
    launch_map lm = {.cap = 64};
    size_t cap_l = 0, nl = 0, cap_h = 0, nh = 0, cap_w = 0, nw = 0, cap_in = 0, cap_lk = 0;
    src_rec *rel = NULL, *acq = NULL;
    size_t *waits = NULL, *cnt_l = NULL, *cnt_h = NULL;
    gs_tl_flows lockf = {0};
    gs_tl_flow_out *hout = NULL;
    lock_ranks lr = {calloc(1, sizeof *lr.m), NULL, NULL, 0};
    gs_status st = GS_ERR_NOMEM;
    lm.slot = calloc(lm.cap, sizeof *lm.slot);
    if (!lm.slot || !lr.m)
        goto done;
    /* A group of one start registers its launches first: a launch at t
     * serves device spans at t. */
    for (size_t g = 0, h; g < n; g = h) {
        for (h = g; h < n && sp[h].start_ns == sp[g].start_ns; h++)
            if (is_launch(tl, &sp[h])) {
                const gs_lane_info *L = gs_timeline_lane(tl, sp[h].lane);
                if (!gs_grow(&lm.v, &cap_l, nl, sizeof *lm.v, 1024))
                    goto done;
                lm.v[nl] = (src_rec){L->device, sp[h].job, sp[h].part, L->id, sp[h].start_ns, 0, h};
                lm_set(&lm, L->device, sp[h].job, sp[h].part, ++nl);
            }
        for (size_t i = g; i < h; i++) {
            const gs_span *s = &sp[i];
            if (s->kind == GS_SPAN_LOCK_HOLD) {
                uint64_t id = lock_id(&lr, s->name);
                if (!id || !gs_grow(&rel, &cap_h, nh, sizeof *rel, 1024))
                    goto done;
                rel[nh++] = (src_rec){-1, -1, -1, s->lane, s->end_ns, (uint32_t)id, i};
            } else if (s->kind == GS_SPAN_LOCK_WAIT && s->holder >= 0) {
                if (!gs_grow(&waits, &cap_w, nw, sizeof *waits, 1024))
                    goto done;
                waits[nw++] = i;
            } else if (s->job >= 0 && is_device_op(s)) {
                const gs_lane_info *L = gs_timeline_lane(tl, s->lane);
                size_t k = L->role == GS_ROLE_DEVICE ? lm_get(&lm, L->device, s->job, s->part) : 0;
                if (k && !add_flow(f, &cap_in, i, lm.v[k - 1].span, GS_TL_FLOW_LAUNCH, k - 1))
                    goto done;
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
    /* The holds by (lane, lock, end) for releases and (lane, lock, start)
     * for acquires, then each wait's lock flow, in span order. */
    size_t n_names = lr.m->n, n_lanes = gs_timeline_lane_count(tl);
    src_rec *held = rel;   /* in span order */
    rel = gs_big_alloc((nh + 1) * sizeof *rel);   /* huge pages from 2 MiB on (bigmem.h) */
    acq = gs_big_alloc((nh + 1) * sizeof *acq);
    cnt_l = gs_big_calloc(nl + 1, sizeof *cnt_l);
    cnt_h = gs_big_calloc(nh + 1, sizeof *cnt_h);
    int ok = rel && acq && cnt_l && cnt_h && lock_rank(&lr);
    for (size_t k = 0; ok && k < nh; k++)
        held[k].name = lr.rank[held[k].name];
    ok = ok && sort_holds(rel, held, nh, n_lanes, n_names);   /* t: end */
    for (size_t k = 0; ok && k < nh; k++)
        held[k].t = sp[held[k].span].start_ns;
    ok = ok && sort_holds(acq, held, nh, n_lanes, n_names);   /* t: start */
    free(held);
    if (!ok)
        goto done;
    for (size_t j = 0; j < nw; j++)
        if (lock_flow(&lockf, &cap_lk, &lr, n_names, rel, acq, nh, &sp[waits[j]]) < 0)
            goto done;
    /* Ids, contiguous per source (cnt_* become the next id): launches in
     * span order, then holds in their sorted order; the tables by span. */
    for (size_t j = 0; j < f->n; j++)
        cnt_l[f->in[j].id]++;
    for (size_t j = 0; j < lockf.n; j++)
        cnt_h[lockf.in[j].id]++;
    f->out = gs_big_alloc((nl + nh + 1) * sizeof *f->out);
    hout = gs_big_alloc((nh + 1) * sizeof *hout);
    if (!f->out || !hout)
        goto done;
    size_t n_h = 0;
    uint64_t next = 1;
    for (size_t k = 0; k < nl + nh; k++) {
        size_t *c = k < nl ? &cnt_l[k] : &cnt_h[k - nl];
        if (!*c)
            continue;
        gs_tl_flow_out o = {k < nl ? lm.v[k].span : rel[k - nl].span, next, (uint32_t)*c};
        if (k < nl)
            f->out[f->n_out++] = o;
        else
            hout[n_h++] = o;
        next += *c;
        *c = o.first;
    }
    for (size_t j = 0; j < f->n; j++)
        f->in[j].id = cnt_l[f->in[j].id]++;
    for (size_t j = 0; j < lockf.n; j++)
        lockf.in[j].id = cnt_h[lockf.in[j].id]++;
    qsort(hout, n_h, sizeof *hout, cmp_out);
    gs_tl_flow_out *launch_out = f->out;
    f->out = gs_big_alloc((f->n_out + n_h + 1) * sizeof *f->out);
    if (!f->out) {
        f->out = launch_out;
        goto done;
    }
    merge_runs(f->out, launch_out, f->n_out, hout, n_h, sizeof *f->out, cmp_out);
    f->n_out += n_h;
    free(launch_out);
    /* Lock destinations (acquires) come after their waits: sorted, then
     * merged from the back into room after the launch flows. */
    if (lockf.n) {
        qsort(lockf.in, lockf.n, sizeof *lockf.in, cmp_in);
        gs_tl_flow_in *ni = realloc(f->in, (f->n + lockf.n) * sizeof *ni);
        if (!ni)
            goto done;
        f->in = ni;
    }
    for (size_t i = f->n, j = lockf.n, k = f->n + lockf.n; j > 0; k--) {
        if (i > 0 && f->in[i - 1].dst > lockf.in[j - 1].dst)
            f->in[k - 1] = f->in[--i];
        else
            f->in[k - 1] = lockf.in[--j];
    }
    f->n += lockf.n;
    st = GS_OK;
done:
    if (lr.m)
        gs_strmap_free(lr.m);
    free(lr.m);
    free(lr.name);
    free(lr.rank);
    free(lm.v);
    free(lm.slot);
    free(rel);
    free(acq);
    free(waits);
    free(cnt_l);
    free(cnt_h);
    free(hout);
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
