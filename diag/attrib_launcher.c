/*
 * The launcher rule: attribution of foreign timelines (attach, import),
 * whose devices no GPU worker lane serves.  The rules are in timeline/SPANS.md
 * ("Foreign timelines") and diag/README.md ("Attribution of foreign
 * timelines"); in short:
 *
 *   For each instant t of an idle gap on device d, the device operation that
 *   ENDS the gap (the first one in span order starting at the gap's end that
 *   has a launcher) names a host lane, its launcher: the lane `launch_lane`
 *   in its args names, else the lane holding a `cuda:*` / `cuda_sync:*` STEP
 *   with the same `corr`.  The cause is that lane's state at t, by
 *   precedence: LOCK_WAIT > malloc_trim > memory_release > a CUDA call of a
 *   pageable copy > cuda_sync:* > state:futex > state:io > state:sleep >
 *   state:runnable > running / nvtx / any other STEP > nothing known.
 *
 * A lane's state is precomputed, on first use, as piecewise-constant
 * segments (a sweep over the boundaries of its spans, which need not nest:
 * /proc state samples overlap interposed spans freely).  A wait (LOCK_WAIT)
 * is resolved per instant through the thread it waits on, and recursively
 * through that thread's own waits (attrib_chain.c).
 *
 * Processes (a merged timeline): correlation ids, launch_lane and lock
 * holds relate lanes of one process only (ckey, hold_at), so two captured
 * programs with the same correlation ids or mutex addresses stay apart.
 *
 * Borrows the timeline's sorted spans and lane table.  Not thread safe.
 */
#define _POSIX_C_SOURCE 200809L
#include "../common/grow.h"
#include "../common/imap.h"
#include "attrib.h"
#include "launcher_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- small helpers ------------------------------------------------------------ */

/* k -> v unless k is there (the first wins).  The maps are sized for
 * every key up front; INT64_MIN, no correlation id a capture holds, is left
 * out. */
static void corr_note(gs_imap *m, int64_t k, int64_t v)
{
    if (k != INT64_MIN)
        (void)gs_imap_add(m, k, v);
}

/* The integer value of `key` in "k=v;k=v" args; 0 when absent or not an
 * integer. */
int gs_ln_arg_i64(const char *args, const char *key, int64_t *out)
{
    size_t kl = strlen(key);
    for (const char *p = args; p && *p;) {
        if (!strncmp(p, key, kl) && p[kl] == '=') {
            char *e;
            long long v = strtoll(p + kl + 1, &e, 10);
            if (e == p + kl + 1 || (*e && *e != ';'))
                return 0;
            *out = v;
            return 1;
        }
        p = strchr(p, ';');
        if (p)
            p++;
    }
    return 0;
}

int gs_ln_arg_str(const char *args, const char *key, char *out, size_t n)
{
    size_t kl = strlen(key);
    for (const char *p = args; p && *p;) {
        if (!strncmp(p, key, kl) && p[kl] == '=') {
            const char *v = p + kl + 1;
            size_t l = strcspn(v, ";");
            snprintf(out, n, "%.*s", (int)l, v);
            return 1;
        }
        p = strchr(p, ';');
        if (p)
            p++;
    }
    return 0;
}

static int is_cuda_call(const gs_span *s)
{
    return s->kind == GS_SPAN_STEP &&
           (!strncmp(s->name, "cuda:", 5) || !strncmp(s->name, "cuda_sync:", 10));
}

static int is_host_state_span(const gs_span *s)
{
    return (s->kind == GS_SPAN_STEP || s->kind == GS_SPAN_INJECTED ||
            s->kind == GS_SPAN_LOCK_WAIT) && s->end_ns > s->start_ns;
}

/* ---- construction --------------------------------------------------------------- */

static int cmp_devop(const void *pa, const void *pb)
{
    const devop *a = pa, *b = pb;
    if (a->device != b->device)
        return a->device < b->device ? -1 : 1;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    return (a->span > b->span) - (a->span < b->span);
}

/* A correlation id within its process (process 0: the id itself). */
static int64_t ckey(int32_t proc, int64_t corr)
{
    return proc ? (int64_t)((uint64_t)corr ^ ((uint64_t)(uint32_t)proc << 44)) : corr;
}

static int cmp_hold(const void *pa, const void *pb)
{
    const hold *a = pa, *b = pb;
    if (a->proc != b->proc)
        return a->proc < b->proc ? -1 : 1;
    int c = strcmp(a->lock, b->lock);
    if (c)
        return c;
    return (a->start > b->start) - (a->start < b->start);
}

gs_launcher *gs_launcher_create(const gs_span *sp, size_t n_sp, const gs_lane_info *const *info,
                                size_t n_lanes)
{
    gs_launcher *L = calloc(1, sizeof *L);
    if (!L)
        return NULL;
    L->sp = sp;
    L->n_sp = n_sp;
    L->info = info;
    L->n_lanes = n_lanes;
    L->lock_part_wait = -1;
    L->st = calloc(n_lanes + 1, sizeof *L->st);
    L->ops = malloc((n_sp + 1) * sizeof *L->ops);
    L->holds = malloc((n_sp + 1) * sizeof *L->holds);
    size_t n_calls = 0, n_copies = 0;
    for (size_t i = 0; i < n_sp; i++) {
        n_calls += is_cuda_call(&sp[i]);
        n_copies += sp[i].kind == GS_SPAN_COPY;
    }
    if (!L->st || !L->ops || !L->holds || !gs_imap_init(&L->corr_lane, n_calls) ||
        !gs_imap_init(&L->pageable, n_copies))
        goto fail;
    for (size_t i = 0; i < n_sp; i++) {
        const gs_span *s = &sp[i];
        const gs_lane_info *li = info[s->lane];
        int64_t corr;
        if (li->role == GS_ROLE_DEVICE && (s->kind == GS_SPAN_KERNEL || s->kind == GS_SPAN_COPY)) {
            L->ops[L->n_ops++] = (devop){li->device, s->start_ns, (uint32_t)i};
            if (s->kind == GS_SPAN_COPY && strstr(s->args, "pageable=1") &&
                gs_ln_arg_i64(s->args, "corr", &corr))
                corr_note(&L->pageable, ckey(li->process, corr), 1);
        } else if (is_cuda_call(s) && gs_ln_arg_i64(s->args, "corr", &corr)) {
            corr_note(&L->corr_lane, ckey(li->process, corr), s->lane);
        } else if (s->kind == GS_SPAN_LOCK_HOLD && s->end_ns > s->start_ns) {
            L->holds[L->n_holds++] = (hold){s->name, s->start_ns, s->end_ns, s->lane, li->process};
        }
    }
    L->by_lane = malloc((n_sp + 1) * sizeof *L->by_lane);
    L->lane_off = calloc(n_lanes + 2, sizeof *L->lane_off);
    if (!L->by_lane || !L->lane_off)
        goto fail;
    for (size_t i = 0; i < n_sp; i++)
        if (is_host_state_span(&sp[i]))
            L->lane_off[sp[i].lane + 2]++;
    for (size_t l = 2; l <= n_lanes + 1; l++)
        L->lane_off[l] += L->lane_off[l - 1];
    for (size_t i = 0; i < n_sp; i++)
        if (is_host_state_span(&sp[i]))
            L->by_lane[L->lane_off[sp[i].lane + 1]++] = (uint32_t)i;
    qsort(L->ops, L->n_ops, sizeof *L->ops, cmp_devop);
    qsort(L->holds, L->n_holds, sizeof *L->holds, cmp_hold);
    L->launcher = malloc((L->n_ops + 1) * sizeof *L->launcher);
    if (!L->launcher)
        goto fail;
    for (size_t i = 0; i < L->n_ops; i++)
        L->launcher[i] = -2;
    return L;
fail:
    gs_launcher_destroy(L);
    return NULL;
}

void gs_launcher_destroy(gs_launcher *L)
{
    if (!L)
        return;
    if (L->st)
        for (size_t l = 0; l < L->n_lanes; l++)
            free(L->st[l].v);
    free(L->st);
    free(L->by_lane);
    free(L->lane_off);
    free(L->ops);
    free(L->launcher);
    free(L->holds);
    gs_imap_free(&L->corr_lane);
    gs_imap_free(&L->pageable);
    for (size_t i = 0; i < L->n_det; i++)
        free(L->det[i].text);
    free(L->det);
    free(L);
}

size_t gs_launcher_detail_count(const gs_launcher *L) { return L->n_det; }

const char *gs_launcher_detail(const gs_launcher *L, size_t i, gs_cause *cause)
{
    if (i >= L->n_det)
        return NULL;
    if (cause)
        *cause = L->det[i].cause;
    return L->det[i].text;
}

/* Index of (cause, text) in the detail table, added when new; -2 on OOM. */
int32_t gs_ln_intern(gs_launcher *L, gs_cause cause, const char *text)
{
    for (size_t i = 0; i < L->n_det; i++)
        if (L->det[i].cause == cause && !strcmp(L->det[i].text, text))
            return (int32_t)i;
    if (!gs_grow(&L->det, &L->cap_det, L->n_det, sizeof *L->det, 16))
        return -2;
    char *t = strdup(text);
    if (!t)
        return -2;
    L->det[L->n_det] = (detail){cause, t};
    return (int32_t)L->n_det++;
}

/* ---- lane state ------------------------------------------------------------------- */

static int seg_push(lstate *S, int64_t t0, int64_t t1, int code, int32_t span)
{
    if (t1 <= t0)
        return 1;
    if (S->n && S->v[S->n - 1].t1 == t0 && S->v[S->n - 1].code == code &&
        S->v[S->n - 1].span == span) {
        S->v[S->n - 1].t1 = t1;
        return 1;
    }
    if (!gs_grow(&S->v, &S->cap, S->n, sizeof *S->v, 64))
        return 0;
    S->v[S->n++] = (lseg){t0, t1, code, span};
    return 1;
}

/* The state code of a set of spans active at once (the precedence table). */
static int classify(const gs_launcher *L, const uint32_t *act, size_t n, int32_t *span)
{
    int32_t wait = -1, nvtx = -1, trim = -1, memrel = -1;
    int pageable = 0, sync = 0, futex = 0, io = 0, sleep_ = 0, runnable = 0,
        compute = 0;
    for (size_t k = 0; k < n; k++) {
        const gs_span *s = &L->sp[act[k]];
        const char *nm = s->name;
        if (s->kind == GS_SPAN_LOCK_WAIT) {
            if (wait < 0 || s->start_ns >= L->sp[wait].start_ns)
                wait = (int32_t)act[k];
            continue;
        }
        if (gs_vocab_is(nm, GS_V_MALLOC_TRIM) || !strcmp(nm, "inj:malloc_trim")) {
            trim = (int32_t)act[k];
            continue;
        }
        if (gs_vocab_is(nm, GS_V_MEMORY_RELEASE)) {
            memrel = (int32_t)act[k];
            continue;
        }
        if (!strncmp(nm, "state:", 6)) {
            const char *x = nm + 6;
            futex |= !strcmp(x, "futex");
            io |= !strcmp(x, "io");
            sleep_ |= !strcmp(x, "sleep");
            runnable |= !strcmp(x, "runnable");
            compute |= !strcmp(x, "running");
            continue;
        }
        if (is_cuda_call(s)) {
            int64_t corr, v;
            if (gs_ln_arg_i64(s->args, "corr", &corr) &&
                gs_imap_get(&L->pageable, ckey(L->info[s->lane]->process, corr), &v))
                pageable = 1;
            sync |= !strncmp(nm, "cuda_sync:", 10);
        }
        if (!strncmp(nm, "nvtx:", 5) && (nvtx < 0 || s->start_ns >= L->sp[nvtx].start_ns))
            nvtx = (int32_t)act[k];
        compute = 1;
    }
    *span = -1;
    if (wait >= 0) {
        *span = wait;
        return ST_LOCK_WAIT;
    }
    if (trim >= 0) {
        *span = trim;
        return ST_TRIM;
    }
    if (memrel >= 0) {
        *span = memrel;
        return ST_MEMREL;
    }
    if (pageable)
        return ST_H2D_PAGEABLE;
    if (sync)
        return ST_CUDA_SYNC;
    if (futex)
        return ST_FUTEX;
    if (io)
        return ST_IO;
    if (sleep_)
        return ST_SLEEP;
    if (runnable)
        return ST_RUNNABLE;
    if (compute) {
        *span = nvtx;
        return ST_COMPUTE;
    }
    return ST_NONE;
}

typedef struct edge {
    int64_t t;
    int open;        /* 1 start, 0 end */
    uint32_t span;
} edge;

static int cmp_edge(const void *pa, const void *pb)
{
    const edge *a = pa, *b = pb;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    return a->open - b->open;   /* ends first */
}

int gs_ln_build_lane(gs_launcher *L, int32_t lane)
{
    lstate *S = &L->st[lane];
    if (S->built)
        return 1;
    const uint32_t *mine = L->by_lane + L->lane_off[lane];
    size_t m = L->lane_off[lane + 1] - L->lane_off[lane];
    edge *e = malloc((2 * m + 1) * sizeof *e);
    uint32_t *act = malloc((m + 1) * sizeof *act);
    int ok = e && act;
    size_t ne = 0, na = 0;
    for (size_t k = 0; ok && k < m; k++) {
        e[ne++] = (edge){L->sp[mine[k]].start_ns, 1, mine[k]};
        e[ne++] = (edge){L->sp[mine[k]].end_ns, 0, mine[k]};
    }
    if (ok)
        qsort(e, ne, sizeof *e, cmp_edge);
    for (size_t i = 0; ok && i < ne;) {
        int64_t t = e[i].t;
        for (; i < ne && e[i].t == t; i++) {
            if (e[i].open) {
                act[na++] = e[i].span;
            } else {
                for (size_t k = 0; k < na; k++)
                    if (act[k] == e[i].span) {
                        act[k] = act[--na];
                        break;
                    }
            }
        }
        if (i < ne && na) {
            int32_t span;
            int code = classify(L, act, na, &span);
            ok = seg_push(S, t, e[i].t, code, span);
        }
    }
    free(e);
    free(act);
    S->built = ok;
    return ok;
}

/* The segment of lane state covering t, or NULL; *next = the start of the
 * next segment after t (INT64_MAX when none). */
const lseg *gs_ln_state_at(const lstate *S, int64_t t, int64_t *next)
{
    size_t lo = 0, hi = S->n;   /* first segment with t0 > t */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (S->v[mid].t0 <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    *next = lo < S->n ? S->v[lo].t0 : INT64_MAX;
    if (lo == 0 || S->v[lo - 1].t1 <= t)
        return NULL;
    return &S->v[lo - 1];
}

/* ---- per gap ------------------------------------------------------------------------ */

static int32_t launcher_of(gs_launcher *L, size_t op)
{
    if (L->launcher[op] != -2)
        return L->launcher[op];
    const gs_span *s = &L->sp[L->ops[op].span];
    int32_t proc = L->info[s->lane]->process;
    int64_t v;
    int32_t lane = -1;
    if (gs_ln_arg_i64(s->args, "launch_lane", &v) && v >= 0 && (size_t)v < L->n_lanes &&
        L->info[v]->role != GS_ROLE_DEVICE && L->info[v]->process == proc)
        lane = (int32_t)v;
    else if (gs_ln_arg_i64(s->args, "corr", &v) && gs_imap_get(&L->corr_lane, ckey(proc, v), &v))
        lane = (int32_t)v;
    L->launcher[op] = lane;
    return lane;
}

/* The LOCK_HOLD of `lock` in process proc covering t, or NULL; *next =
 * start of the next hold of that lock after t (INT64_MAX when none). */
const hold *gs_ln_hold_at(const gs_launcher *L, int32_t proc, const char *lock, int64_t t,
                          int64_t *next)
{
    size_t lo = 0, hi = L->n_holds;   /* first hold > (proc, lock, t) */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const hold *h = &L->holds[mid];
        int c = h->proc != proc ? (h->proc < proc ? -1 : 1) : strcmp(h->lock, lock);
        if (c < 0 || (c == 0 && h->start <= t))
            lo = mid + 1;
        else
            hi = mid;
    }
    *next = lo < L->n_holds && L->holds[lo].proc == proc && !strcmp(L->holds[lo].lock, lock)
                ? L->holds[lo].start
                : INT64_MAX;
    /* Holds of one lock do not overlap; look back a few for safety. */
    for (size_t k = lo; k > 0 && lo - k < 8; k--) {
        const hold *h = &L->holds[k - 1];
        if (h->proc != proc || strcmp(h->lock, lock))
            break;
        if (h->end > t)
            return h;
    }
    return NULL;
}

static gs_cause own_cause(int code)
{
    switch (code) {
    case ST_TRIM: return GS_CAUSE_MALLOC_TRIM;
    case ST_MEMREL: return GS_CAUSE_MEMORY_RELEASE;
    case ST_H2D_PAGEABLE: return GS_CAUSE_H2D_PAGEABLE;
    case ST_CUDA_SYNC: return GS_CAUSE_CUDA_SYNC;
    case ST_FUTEX: return GS_CAUSE_BLOCKED_FUTEX;
    case ST_IO: return GS_CAUSE_IO;
    case ST_SLEEP: return GS_CAUSE_SLEEP;
    case ST_RUNNABLE: return GS_CAUSE_CPU_STARVED;
    case ST_COMPUTE: return GS_CAUSE_HOST_COMPUTE;
    default: return GS_CAUSE_OTHER;
    }
}

int gs_launcher_gap(gs_launcher *L, int32_t device, int64_t a, int64_t b,
                    gs_gap_piece **pieces, size_t *n, size_t *cap)
{
    /* The operations of `device` starting at b: the first with a launcher. */
    size_t lo = 0, hi = L->n_ops;
    devop key = {device, b, 0};
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (cmp_devop(&L->ops[mid], &key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    int32_t lane = -1;
    for (size_t i = lo; i < L->n_ops && L->ops[i].device == device && L->ops[i].start == b; i++)
        if ((lane = launcher_of(L, i)) >= 0)
            break;
    if (lane < 0)
        return gs_attrib_push_piece(pieces, n, cap, (gs_gap_piece){a, b, GS_CAUSE_OTHER, -1, -1, -1, 0, 0});
    if (!gs_ln_build_lane(L, lane))
        return 0;
    const lstate *S = &L->st[lane];
    int64_t t = a;
    while (t < b) {
        int64_t nx, e = b;
        const lseg *s = gs_ln_state_at(S, t, &nx);
        if (!s) {
            if (nx < e)
                e = nx;
            if (!gs_attrib_push_piece(pieces, n, cap, (gs_gap_piece){t, e, GS_CAUSE_OTHER, lane, -1, -1, 0, 0}))
                return 0;
            t = e;
            continue;
        }
        if (s->t1 < e)
            e = s->t1;
        if (s->code == ST_LOCK_WAIT) {
            if (!gs_ln_chain_pieces(L, lane, s->span, t, e, pieces, n, cap))
                return 0;
        } else {
            gs_cause c = own_cause(s->code);
            int32_t det = -1;
            if (s->code == ST_COMPUTE && s->span >= 0 &&
                (det = gs_ln_intern(L, c, L->sp[s->span].name)) == -2)
                return 0;
            if (!gs_attrib_push_piece(pieces, n, cap, (gs_gap_piece){t, e, c, lane, -1, det, 0, 0}))
                return 0;
        }
        t = e;
    }
    return 1;
}
