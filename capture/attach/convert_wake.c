/*
 * Wake-up edges: raw waits and wakes -> LOCK_WAIT spans whose holder is
 * the waker (timeline/SPANS.md, "Foreign timelines", "Waits and their
 * wakers").  Called from convert.c's build once the thread lanes exist.
 *
 * Steps:
 *   1. stacks: per-file ids -> global ids (sorted frame strings), meta
 *      stack.<id>;
 *   2. consecutive GIL waits of a thread (CPython waits in 5 ms slices)
 *      merge into one wait when less than 2 ms apart;
 *   3. futex words are classed lock or event by the words their wakes left
 *      (majority of 0 = a lock's release; else an event's counter/flag);
 *   4. a futex wait the sampler saw (P detail futex@ADDR) with no
 *      interposed wait of that thread over it becomes a wait (mech=sampler);
 *   5. address pairing: each wait that ended woken takes the latest wake of
 *      the same (process, address) by another thread inside it (within one
 *      sampling period after a sampled wait's end); a futex wake serves as
 *      many waits as it woke, a broadcast any number;
 *   6. scheduler edges, when sched.rec has them, replace the pairing: the
 *      last sched_waking of the waiter inside the wait names the waker (an
 *      interrupt-context waking: a timer, no thread); an off-CPU stretch of
 *      at least 50 us that no wait covers becomes a wait (mech=sched);
 *   7. emission: the waits (at least 10 us), the GIL holds synthesized from
 *      the GIL's releases, memory-release spans not covered by a seen
 *      malloc_trim, and the metadata naming the mechanism.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/stats.h"
#include "wake_int.h"

#define GIL_MERGE_NS 2000000
#define SAMPLER_SLACK_NS 2000000

static int cmp_stack(const void *pa, const void *pb)
{
    const gs_aw_stack *a = pa, *b = pb;
    if (a->file != b->file)
        return a->file < b->file ? -1 : 1;
    return (a->id > b->id) - (a->id < b->id);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static uint32_t gid_of(const struct gs_attach_wraw *w, int32_t file, uint32_t id)
{
    if (!id || !w->stacks.n)
        return 0;
    gs_aw_stack key = {file, id, 0, NULL};
    const gs_aw_stack *s = bsearch(&key, w->stacks.v, w->stacks.n, sizeof key, cmp_stack);
    return s ? s->gid : 0;
}

/* Step 1, idempotent. */
static int resolve_stacks(struct gs_attach_wraw *w)
{
    if (w->gstack || !w->stacks.n)
        return 1;
    qsort(w->stacks.v, w->stacks.n, sizeof *w->stacks.v, cmp_stack);
    const char **u = malloc(w->stacks.n * sizeof *u);
    if (!u)
        return 0;
    for (size_t i = 0; i < w->stacks.n; i++)
        u[i] = w->stacks.v[i].frames;
    qsort(u, w->stacks.n, sizeof *u, cmp_str);
    size_t n = 0;
    for (size_t i = 0; i < w->stacks.n; i++)
        if (!n || u[n - 1] != u[i])   /* interned: equal strings, equal pointers */
            u[n++] = u[i];
    for (size_t i = 0; i < w->stacks.n; i++) {
        const char **p = bsearch(&w->stacks.v[i].frames, u, n, sizeof *u, cmp_str);
        w->stacks.v[i].gid = p ? (uint32_t)(p - u) + 1 : 0;
    }
    w->gstack = u;
    w->n_gstack = n;
    for (size_t i = 0; i < w->astacks.n; i++)
        w->astacks.v[i].gid = gid_of(w, w->astacks.v[i].file, w->astacks.v[i].id);
    return 1;
}

const char *gs_attach_trim_args(const gs_attach_raw *c, const gs_attach_hrec *h, char *buf,
                                size_t n)
{
    struct gs_attach_wraw *w = c->w;
    buf[0] = '\0';
    if (!w || !resolve_stacks(w))
        return buf;
    for (size_t i = 0; i < w->astacks.n; i++)
        if (w->astacks.v[i].tid == h->tid && w->astacks.v[i].t == h->e && w->astacks.v[i].gid) {
            snprintf(buf, n, "stack=%u", w->astacks.v[i].gid);
            break;
        }
    return buf;
}

size_t gs_attach_wake_ntids(const gs_attach_raw *c)
{
    const struct gs_attach_wraw *w = c->w;
    return w ? 2 * w->waits.n + w->wakes.n + w->mems.n + 2 * w->wks.n : 0;
}

void gs_attach_wake_tids(const gs_attach_raw *c, uint32_t *tids, size_t *n)
{
    const struct gs_attach_wraw *w = c->w;
    if (!w)
        return;
    for (size_t i = 0; i < w->waits.n; i++)
        tids[(*n)++] = w->waits.v[i].tid;
    for (size_t i = 0; i < w->wakes.n; i++)
        tids[(*n)++] = w->wakes.v[i].tid;
    for (size_t i = 0; i < w->mems.n; i++)
        tids[(*n)++] = w->mems.v[i].tid;
    for (size_t i = 0; i < w->wks.n; i++)
        if (!w->wks.v[i].irq) {
            tids[(*n)++] = w->wks.v[i].wakee;
            tids[(*n)++] = w->wks.v[i].waker;
        }
}

/* ---- steps 2-4 ----------------------------------------------------------------------- */

static int cmp_wait(const void *pa, const void *pb)
{
    const gs_aw_wait *a = pa, *b = pb;
    if (a->tid != b->tid)
        return a->tid < b->tid ? -1 : 1;
    return (a->s > b->s) - (a->s < b->s);
}

static void merge_gil(struct gs_attach_wraw *w)
{
    size_t k = 0;
    for (size_t i = 0; i < w->waits.n; i++) {
        gs_aw_wait *v = &w->waits.v[i];
        gs_aw_wait *p = k ? &w->waits.v[k - 1] : NULL;
        if (p && v->kind == GS_AW_GIL && p->kind == GS_AW_GIL && p->tid == v->tid &&
            p->addr == v->addr && v->s - p->e < GIL_MERGE_NS) {
            p->e = v->e;
            p->result = v->result;
            if (!p->stack) {
                p->stack = v->stack;
                p->file = v->file;
            }
            continue;
        }
        w->waits.v[k++] = *v;
    }
    w->waits.n = k;
}

static int cmp_wake(const void *pa, const void *pb)
{
    const gs_aw_wake *a = pa, *b = pb;
    if (a->pid != b->pid)
        return a->pid < b->pid ? -1 : 1;
    if (a->addr != b->addr)
        return a->addr < b->addr ? -1 : 1;
    return (a->t > b->t) - (a->t < b->t);
}

/* First wake of (pid, addr) in the sorted wakes. */
static size_t wake_lower(const struct gs_attach_wraw *w, int32_t pid, uint64_t addr)
{
    size_t lo = 0, hi = w->wakes.n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const gs_aw_wake *x = &w->wakes.v[mid];
        if (x->pid < pid || (x->pid == pid && x->addr < addr))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Step 3: each run of wakes of one (pid, addr) gets GS_AU_LOCK when most
 * of them left the word 0, else GS_AU_EVENT (wakes sorted). */
static void class_words(struct gs_attach_wraw *w)
{
    for (size_t i = 0; i < w->wakes.n;) {
        size_t j = i;
        long zero = 0, other = 0;
        for (; j < w->wakes.n && w->wakes.v[j].pid == w->wakes.v[i].pid &&
               w->wakes.v[j].addr == w->wakes.v[i].addr;
             j++) {
            zero += w->wakes.v[j].word == 0;
            other += w->wakes.v[j].word > 0;
        }
        for (size_t k = i; k < j; k++)
            w->wakes.v[k].use = zero > other ? GS_AU_LOCK : GS_AU_EVENT;
        i = j;
    }
}

static uint8_t futex_use(const struct gs_attach_wraw *w, int32_t pid, uint64_t addr)
{
    size_t i = wake_lower(w, pid, addr);
    return i < w->wakes.n && w->wakes.v[i].pid == pid && w->wakes.v[i].addr == addr
               ? w->wakes.v[i].use
               : GS_AU_EVENT;
}

static uint8_t use_of(const struct gs_attach_wraw *w, const gs_aw_wait *v)
{
    switch (v->kind) {
    case GS_AW_GIL: return GS_AU_GIL;
    case GS_AW_RWLOCK: return GS_AU_LOCK;
    case GS_AW_FUTEX: return futex_use(w, v->pid, v->addr);
    default: return GS_AU_EVENT;
    }
}

/* 1 when tid has a wait overlapping [s, e) among the first n (sorted) waits. */
static int covered(const gs_aw_wait *v, size_t n, uint32_t tid, int64_t s, int64_t e)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (v[mid].tid < tid || (v[mid].tid == tid && v[mid].s < e))
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i > 0 && v[i - 1].tid == tid; i--)
        if (v[i - 1].e > s)
            return 1;
        else if (lo - i > 64)
            break;
    return 0;
}

static void sampler_waits(gs_attach_raw *c, struct gs_attach_wraw *w)
{
    size_t n0 = w->waits.n;
    for (size_t i = 0; i < c->host.n; i++) {
        const gs_attach_hrec *h = &c->host.v[i];
        unsigned long long addr;
        if (h->kind != 'P' || !h->detail || sscanf(h->detail, "futex@%llx", &addr) != 1 ||
            covered(w->waits.v, n0, h->tid, h->s, h->e))
            continue;
        gs_aw_wait v = {h->s, h->e, -1, h->pid, 0, -1, h->tid, 0, addr, 0, 0, -1,
                        GS_AW_FUTEX, GS_AM_SAMPLER, 0, 0, NULL};
        GS_ATTACH_PUSH(c, w->waits, v);
    }
}

/* ---- step 5 ----------------------------------------------------------------------- */

static int pair_by_address(struct gs_attach_wraw *w)
{
    gs_time_ix *ord = malloc((w->waits.n + 1) * sizeof *ord);
    if (!ord)
        return 0;
    for (size_t i = 0; i < w->wakes.n; i++) {
        int32_t k = w->wakes.v[i].woken;
        w->wakes.v[i].cap = k > 0 ? k : k == -2 ? INT32_MAX : 1;
    }
    for (size_t i = 0; i < w->waits.n; i++)
        ord[i] = (gs_time_ix){w->waits.v[i].e, i};
    qsort(ord, w->waits.n, sizeof *ord, gs_cmp_time_ix);
    for (size_t j = 0; j < w->waits.n; j++) {
        gs_aw_wait *v = &w->waits.v[ord[j].i];
        if (v->result != 0 || v->kind == GS_AW_OFFCPU)
            continue;
        int64_t hi = v->e + (v->mech == GS_AM_SAMPLER ? SAMPLER_SLACK_NS : 0);
        size_t lo = wake_lower(w, v->pid, v->addr), i = lo, top = w->wakes.n;
        while (i < top) {   /* first wake of the address after hi */
            size_t mid = (i + top) / 2;
            const gs_aw_wake *x = &w->wakes.v[mid];
            if (x->pid == v->pid && x->addr == v->addr && x->t <= hi)
                i = mid + 1;
            else
                top = mid;
        }
        for (; i > lo; i--) {
            gs_aw_wake *k = &w->wakes.v[i - 1];
            if (k->t < v->s)
                break;
            if (k->tid == v->tid || k->cap <= 0)
                continue;
            k->cap--;
            v->waker = k->tid;
            v->wake_t = k->t;
            v->wstack = k->stack;
            v->wfile = k->file;
            v->wmech = GS_AM_INTERPOSE;
            break;
        }
    }
    free(ord);
    return 1;
}

/* Steps 1-5 (the header comment); 0 when out of memory. */
int gs_aw_prepare(gs_attach_raw *c, struct gs_attach_wraw *w)
{
    if (!resolve_stacks(w))
        return 0;
    for (size_t i = 0; i < w->waits.n; i++)
        w->waits.v[i].stack = gid_of(w, w->waits.v[i].file, w->waits.v[i].stack);
    for (size_t i = 0; i < w->wakes.n; i++)
        w->wakes.v[i].stack = gid_of(w, w->wakes.v[i].file, w->wakes.v[i].stack);
    gs_aw_qsort(w->waits.v, w->waits.n, sizeof *w->waits.v, cmp_wait);
    merge_gil(w);
    gs_aw_qsort(w->wakes.v, w->wakes.n, sizeof *w->wakes.v, cmp_wake);
    class_words(w);
    sampler_waits(c, w);
    if (c->oom)
        return 0;
    gs_aw_qsort(w->waits.v, w->waits.n, sizeof *w->waits.v, cmp_wait);
    for (size_t i = 0; i < w->waits.n; i++)
        w->waits.v[i].use = use_of(w, &w->waits.v[i]);
    return pair_by_address(w);
}

size_t gs_aw_first_of(const struct gs_attach_wraw *w, size_t n, uint32_t tid)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (w->waits.v[mid].tid < tid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void gs_aw_qsort(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n > 1)
        qsort(v, n, size, cmp);
}

void gs_aw_sort_waits(struct gs_attach_wraw *w)
{
    gs_aw_qsort(w->waits.v, w->waits.n, sizeof *w->waits.v, cmp_wait);
}

int gs_aw_covered(const struct gs_attach_wraw *w, size_t n, uint32_t tid, int64_t s, int64_t e)
{
    return covered(w->waits.v, n, tid, s, e);
}

uint8_t gs_aw_use(const struct gs_attach_wraw *w, const gs_aw_wait *v)
{
    return use_of(w, v);
}
