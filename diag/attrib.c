/*
 * Gap attribution: why was the device idle at instant t?
 *
 * A lane's state at t is the innermost span covering t (what the thread is
 * doing right now) and the outermost one (which step of its loop it is
 * in).  For a gap on device d we look at every GPU worker lane of d (and at
 * workers with device -1, which serve every device):
 *
 *   1. Precedence: the worker closest to launching device work decides.
 *      Rank by the worker-loop step it is in (outermost span), in loop
 *      order: handoff 0 = prove_finish 0 < queue_wait 1 < status_check 2 < fail_check 3 <
 *      mark_busy 4 < host_prep 5 < h2d_stage 6 < device_mutex wait 7 <
 *      prove_start 8; a worker in no span ranks -1.  Ties: the worker whose
 *      step started first (it has waited longest), then the lower lane id.
 *      handoff ranks lowest because a worker in hand-off must still pop the
 *      queue before it can launch anything; so does prove_finish, which a
 *      worker runs only when the scenario puts the CPU G2 MSM in its loop
 *      (engine finish = worker).
 *   2. Cause of the deciding worker: its innermost span mapped by name
 *      (table in map_span), else its outermost span, else "other".
 *   3. A tracker lock wait becomes tracker_lock/<activity>, the activity
 *      being the innermost span, at each instant, of the lane holding the
 *      tracker (the LOCK_HOLD "tracker" covering t, else the wait's
 *      recorded holder): malloc_trim, verify (also their inj: forms),
 *      injected (any other injected span), other.
 *
 * Breakpoints: a gap is cut at every worker segment boundary and every
 * tracker hold boundary inside it; a tracker piece is cut again at the
 * holder's segment boundaries.  Adjacent pieces with one cause merge.
 *
 * A device no GPU worker serves (a foreign timeline: attach, import) goes
 * to the launcher rule instead (attrib_launcher.c), built on first use.
 *
 * Processes (a merged timeline, gs_lane_info.process): a device's workers,
 * its device -1 workers and the tracker holds that explain a wait are
 * those of the device's own process; another process's tracker is another
 * lock.
 */
#define _POSIX_C_SOURCE 200809L
#include "../common/grow.h"
#include "../common/stats.h"
#include "attrib.h"

#include <stdlib.h>
#include <string.h>

typedef struct seg {
    int64_t t0, t1;
    uint32_t inner, outer;   /* indices into the sorted spans */
} seg;

typedef struct lane_segs {
    seg *v;
    size_t n, cap;
} lane_segs;

struct gs_attrib {
    const gs_span *sp;
    size_t n_sp;
    size_t n_lanes;
    const gs_lane_info **info;
    lane_segs *segs;         /* per lane (empty for device lanes) */
    gs_interval *holds;      /* tracker LOCK_HOLD spans, sorted by (process, start) */
    int32_t *hold_lane;
    size_t n_holds;
    size_t *proc_holds;      /* process p's holds: [proc_holds[p], proc_holds[p + 1]) */
    int32_t n_proc;
    int32_t cache_dev, cache_proc;   /* the last device asked for, and its process */
    int64_t *bp;             /* scratch breakpoints */
    size_t n_bp, cap_bp;
    gs_launcher *launcher;   /* the launcher rule, built on first use */
};

static const struct {
    gs_vocab name;
    int rank;
} step_ranks[] = {
    {GS_V_HANDOFF, 0},    {GS_V_PROVE_FINISH, 0}, {GS_V_QUEUE_WAIT, 1}, {GS_V_STATUS_CHECK, 2},
    {GS_V_FAIL_CHECK, 3}, {GS_V_MARK_BUSY, 4},    {GS_V_HOST_PREP, 5},
    {GS_V_H2D_STAGE, 6},  {GS_V_DEVICE_MUTEX, 7}, {GS_V_DEVICE_MUTEX_WAIT, 7},
    {GS_V_PROVE_START, 8},
};

int gs_attrib_step_rank(const char *name)
{
    for (size_t i = 0; i < sizeof step_ranks / sizeof step_ranks[0]; i++)
        if (gs_vocab_is(name, step_ranks[i].name))
            return step_ranks[i].rank;
    return -1;
}

#define CAUSE_TRACKER (-2)   /* tracker wait: resolve by the holder */

/* Cause of one worker span, -1 when the span does not say. */
static int map_span(const gs_span *s)
{
    const char *n = s->name;
    switch (s->kind) {
    case GS_SPAN_LOCK_WAIT:
        if (gs_vocab_is(n, GS_V_TRACKER))
            return CAUSE_TRACKER;
        if (gs_vocab_is(n, GS_V_DEVICE_MUTEX) || gs_vocab_is(n, GS_V_DEVICE_MUTEX_WAIT))
            return GS_CAUSE_DEVICE_MUTEX;
        return -1;
    case GS_SPAN_INJECTED:
        if (!strncmp(n, "inj:", 4))
            n += 4;
        if (!strcmp(n, "host_prep"))
            return GS_CAUSE_HOST_PREP;
        if (!strcmp(n, "h2d"))
            return GS_CAUSE_H2D_PAGEABLE;
        if (!strcmp(n, "handoff"))
            return GS_CAUSE_HANDOFF;
        return -1;
    case GS_SPAN_STEP:
        if (gs_vocab_is(n, GS_V_QUEUE_WAIT))
            return GS_CAUSE_QUEUE_EMPTY;
        if (gs_vocab_is(n, GS_V_HOST_PREP))
            return GS_CAUSE_HOST_PREP;
        if (gs_vocab_is(n, GS_V_H2D_STAGE))
            return strstr(s->args, "pageable=1") ? GS_CAUSE_H2D_PAGEABLE : GS_CAUSE_H2D_PINNED;
        if (gs_vocab_is(n, GS_V_HANDOFF))
            return GS_CAUSE_HANDOFF;
        if (gs_vocab_is(n, GS_V_PROVE_START))
            return GS_CAUSE_BACKEND_HOST;
        if (gs_vocab_is(n, GS_V_PROVE_FINISH))
            return GS_CAUSE_FINISH_IN_WORKER;
        if (gs_vocab_is(n, GS_V_DEVICE_MUTEX_WAIT))
            return GS_CAUSE_DEVICE_MUTEX;
        return -1;
    default:
        return -1;
    }
}

static gs_cause holder_activity(const gs_span *s)
{
    const char *n = s->name;
    int injected = s->kind == GS_SPAN_INJECTED || (s->flags & GS_SPAN_F_INJECTED);
    if (!strncmp(n, "inj:", 4)) {
        n += 4;
        injected = 1;
    }
    if (gs_vocab_is(n, GS_V_MALLOC_TRIM))
        return GS_CAUSE_TRACKER_TRIM;
    if (gs_vocab_is(n, GS_V_VERIFY))
        return GS_CAUSE_TRACKER_VERIFY;
    return injected ? GS_CAUSE_TRACKER_INJECTED : GS_CAUSE_TRACKER_OTHER;
}

/* ---- segmentation --------------------------------------------------------- */

static const gs_span *g_sp;   /* for the qsort comparator only */

static int cmp_nest(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    const gs_span *x = &g_sp[a], *y = &g_sp[b];
    if (x->start_ns != y->start_ns)
        return x->start_ns < y->start_ns ? -1 : 1;
    if (x->end_ns != y->end_ns)
        return x->end_ns > y->end_ns ? -1 : 1;   /* parents first */
    /* Equal extent: spans are appended when they end, so the child was
     * appended first; the later one is the parent and goes first. */
    return (a < b) - (a > b);
}

static int emit(lane_segs *L, int64_t t0, int64_t t1, uint32_t inner, uint32_t outer)
{
    if (t1 <= t0)
        return 1;
    if (L->n && L->v[L->n - 1].t1 == t0 && L->v[L->n - 1].inner == inner &&
        L->v[L->n - 1].outer == outer) {
        L->v[L->n - 1].t1 = t1;
        return 1;
    }
    if (!gs_grow(&L->v, &L->cap, L->n, sizeof *L->v, 64))
        return 0;
    L->v[L->n++] = (seg){t0, t1, inner, outer};
    return 1;
}

static int segment_lane(lane_segs *L, const gs_span *sp, uint32_t *idx, size_t n)
{
    g_sp = sp;
    qsort(idx, n, sizeof *idx, cmp_nest);
    uint32_t *stack = malloc((n ? n : 1) * sizeof *stack);
    if (!stack)
        return 0;
    size_t depth = 0;
    int64_t cur = n ? sp[idx[0]].start_ns : 0;
    int ok = 1;
    for (size_t i = 0; i <= n && ok; i++) {
        int64_t next = i < n ? sp[idx[i]].start_ns : INT64_MAX;
        while (depth && sp[stack[depth - 1]].end_ns <= next && ok) {
            int64_t e = sp[stack[depth - 1]].end_ns;
            ok = emit(L, cur, e, stack[depth - 1], stack[0]);
            if (e > cur)
                cur = e;
            depth--;
        }
        if (i == n)
            break;
        if (depth)
            ok = ok && emit(L, cur, next, stack[depth - 1], stack[0]);
        cur = next;
        stack[depth++] = idx[i];
    }
    free(stack);
    return ok;
}

static const seg *state_at(const lane_segs *L, int64_t t)
{
    size_t lo = 0, hi = L->n;   /* first segment with t0 > t */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (L->v[mid].t0 <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || L->v[lo - 1].t1 <= t)
        return NULL;
    return &L->v[lo - 1];
}

/* Orders the tracker holds (collected in start order) by process, keeping
 * start order within each, and indexes each process's range. */
static int sort_holds(gs_attrib *at)
{
    at->cache_dev = INT32_MIN;
    at->n_proc = 1;
    for (size_t l = 0; l < at->n_lanes; l++)
        if (at->info[l]->process >= at->n_proc)
            at->n_proc = at->info[l]->process + 1;
    at->proc_holds = calloc((size_t)at->n_proc + 1, sizeof *at->proc_holds);
    if (!at->proc_holds)
        return 0;
    for (size_t h = 0; h < at->n_holds; h++)
        at->proc_holds[at->info[at->hold_lane[h]]->process + 1]++;
    for (int32_t p = 0; p < at->n_proc; p++)
        at->proc_holds[p + 1] += at->proc_holds[p];
    if (at->n_proc == 1)
        return 1;
    gs_interval *iv = malloc((at->n_holds + 1) * sizeof *iv);
    int32_t *ln = malloc((at->n_holds + 1) * sizeof *ln);
    size_t *fill = malloc((size_t)at->n_proc * sizeof *fill);
    if (!iv || !ln || !fill) {
        free(iv);
        free(ln);
        free(fill);
        return 0;
    }
    memcpy(fill, at->proc_holds, (size_t)at->n_proc * sizeof *fill);
    for (size_t h = 0; h < at->n_holds; h++) {
        size_t k = fill[at->info[at->hold_lane[h]]->process]++;
        iv[k] = at->holds[h];
        ln[k] = at->hold_lane[h];
    }
    free(at->holds);
    free(at->hold_lane);
    free(fill);
    at->holds = iv;
    at->hold_lane = ln;
    return 1;
}

gs_status gs_attrib_create(gs_attrib **out, gs_timeline *tl, gs_err *err)
{
    gs_attrib *at = calloc(1, sizeof *at);
    uint32_t *idx = NULL;
    size_t *cnt = NULL, *off = NULL;
    *out = NULL;
    if (!at)
        goto nomem;
    at->sp = gs_timeline_spans(tl, &at->n_sp);
    at->n_lanes = gs_timeline_lane_count(tl);
    at->info = calloc(at->n_lanes + 1, sizeof *at->info);
    at->segs = calloc(at->n_lanes + 1, sizeof *at->segs);
    cnt = calloc(at->n_lanes + 1, sizeof *cnt);
    off = calloc(at->n_lanes + 1, sizeof *off);
    idx = malloc((at->n_sp + 1) * sizeof *idx);
    at->holds = malloc((at->n_sp + 1) * sizeof *at->holds);
    at->hold_lane = malloc((at->n_sp + 1) * sizeof *at->hold_lane);
    if (!at->info || !at->segs || !cnt || !off || !idx || !at->holds || !at->hold_lane)
        goto nomem;
    for (size_t l = 0; l < at->n_lanes; l++)
        at->info[l] = gs_timeline_lane(tl, (int32_t)l);
    /* Bucket the spans that make up lane state by lane (counting sort). */
    for (size_t i = 0; i < at->n_sp; i++) {
        const gs_span *s = &at->sp[i];
        if (s->kind == GS_SPAN_LOCK_HOLD && gs_vocab_is(s->name, GS_V_TRACKER) && s->end_ns > s->start_ns) {
            at->holds[at->n_holds] = (gs_interval){s->start_ns, s->end_ns};
            at->hold_lane[at->n_holds++] = s->lane;
        }
        if (s->kind == GS_SPAN_COUNTER || s->kind == GS_SPAN_MARK || s->end_ns <= s->start_ns ||
            at->info[s->lane]->role == GS_ROLE_DEVICE)
            continue;
        cnt[s->lane]++;
    }
    if (!sort_holds(at))
        goto nomem;
    for (size_t l = 1; l <= at->n_lanes; l++)
        off[l] = off[l - 1] + cnt[l - 1];
    memset(cnt, 0, (at->n_lanes + 1) * sizeof *cnt);
    for (size_t i = 0; i < at->n_sp; i++) {
        const gs_span *s = &at->sp[i];
        if (s->kind == GS_SPAN_COUNTER || s->kind == GS_SPAN_MARK || s->end_ns <= s->start_ns ||
            at->info[s->lane]->role == GS_ROLE_DEVICE)
            continue;
        idx[off[s->lane] + cnt[s->lane]++] = (uint32_t)i;
    }
    for (size_t l = 0; l < at->n_lanes; l++)
        if (!segment_lane(&at->segs[l], at->sp, idx + off[l], cnt[l]))
            goto nomem;
    free(idx);
    free(cnt);
    free(off);
    *out = at;
    return GS_OK;
nomem:
    free(idx);
    free(cnt);
    free(off);
    gs_attrib_destroy(at);
    return gs_err_set(err, GS_ERR_NOMEM, "analysis", "attribution", "out of memory");
}

void gs_attrib_destroy(gs_attrib *at)
{
    if (!at)
        return;
    if (at->segs)
        for (size_t l = 0; l < at->n_lanes; l++)
            free(at->segs[l].v);
    free(at->segs);
    free((void *)at->info);
    free(at->holds);
    free(at->hold_lane);
    free(at->proc_holds);
    free(at->bp);
    gs_launcher_destroy(at->launcher);
    free(at);
}

/* ---- per-gap attribution ----------------------------------------------------- */

static int bp_add(gs_attrib *at, int64_t t)
{
    if (!gs_grow(&at->bp, &at->cap_bp, at->n_bp, sizeof *at->bp, 64))
        return 0;
    at->bp[at->n_bp++] = t;
    return 1;
}

int gs_attrib_push_piece(gs_gap_piece **v, size_t *n, size_t *cap, gs_gap_piece p)
{
    if (p.end_ns <= p.start_ns)
        return 1;
    if (*n && (*v)[*n - 1].end_ns == p.start_ns && (*v)[*n - 1].cause == p.cause &&
        (*v)[*n - 1].detail == p.detail && (*v)[*n - 1].stack == p.stack &&
        (*v)[*n - 1].wstack == p.wstack) {
        (*v)[*n - 1].end_ns = p.end_ns;
        return 1;
    }
    if (!gs_grow(v, cap, *n, sizeof **v, 256))
        return 0;
    (*v)[(*n)++] = p;
    return 1;
}

/* The process of a device: that of its lanes (0 when it has none). */
static int32_t device_process(gs_attrib *at, int32_t device)
{
    if (at->cache_dev == device)
        return at->cache_proc;
    int32_t p = 0;
    for (size_t l = 0; l < at->n_lanes; l++)
        if (at->info[l]->role == GS_ROLE_DEVICE && at->info[l]->device == device) {
            p = at->info[l]->process;
            break;
        }
    at->cache_dev = device;
    at->cache_proc = p;
    return p;
}

static int is_worker_of(const gs_lane_info *L, int32_t device, int32_t proc)
{
    return L->role == GS_ROLE_GPU_WORKER &&
           (L->device == device || (L->device < 0 && L->process == proc));
}

/* First and end index of process proc's tracker holds. */
static void proc_range(const gs_attrib *at, int32_t proc, size_t *lo, size_t *hi)
{
    if (proc < 0 || proc >= at->n_proc) {
        *lo = *hi = 0;
        return;
    }
    *lo = at->proc_holds[proc];
    *hi = at->proc_holds[proc + 1];
}

/* Process proc's tracker hold covering t, or -1. */
static long hold_at(const gs_attrib *at, int32_t proc, int64_t t)
{
    size_t first, lo, hi;
    proc_range(at, proc, &first, &hi);
    lo = first;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (at->holds[mid].start_ns <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* Holds of one mutex do not overlap; scan back a little for safety. */
    for (size_t k = lo; k > first && lo - k < 8; k--)
        if (at->holds[k - 1].end_ns > t)
            return (long)(k - 1);
    return -1;
}

gs_attrib_rule gs_attrib_rule_of(gs_attrib *at, int32_t device)
{
    int32_t proc = device_process(at, device);
    for (size_t l = 0; l < at->n_lanes; l++)
        if (is_worker_of(at->info[l], device, proc))
            return GS_RULE_ENGINE;
    return GS_RULE_LAUNCHER;
}

size_t gs_attrib_detail_count(const gs_attrib *at)
{
    return at->launcher ? gs_launcher_detail_count(at->launcher) : 0;
}

const char *gs_attrib_detail(const gs_attrib *at, size_t i, gs_cause *cause)
{
    return at->launcher ? gs_launcher_detail(at->launcher, i, cause) : NULL;
}

int gs_attrib_gap(gs_attrib *at, int32_t device, int64_t a, int64_t b,
                  gs_gap_piece **pieces, size_t *n, size_t *cap)
{
    if (gs_attrib_rule_of(at, device) == GS_RULE_LAUNCHER) {
        if (!at->launcher &&
            !(at->launcher = gs_launcher_create(at->sp, at->n_sp, at->info, at->n_lanes)))
            return 0;
        return gs_launcher_gap(at->launcher, device, a, b, pieces, n, cap);
    }
    int32_t proc = device_process(at, device);
    at->n_bp = 0;
    if (!bp_add(at, a) || !bp_add(at, b))
        return 0;
    for (size_t l = 0; l < at->n_lanes; l++) {
        if (!is_worker_of(at->info[l], device, proc))
            continue;
        const lane_segs *L = &at->segs[l];
        size_t i = 0, up = L->n;   /* first segment ending after a */
        while (i < up) {
            size_t mid = (i + up) / 2;
            if (L->v[mid].t1 <= a)
                i = mid + 1;
            else
                up = mid;
        }
        for (; i < L->n && L->v[i].t0 < b; i++) {
            if (L->v[i].t0 > a && !bp_add(at, L->v[i].t0))
                return 0;
            if (L->v[i].t1 < b && L->v[i].t1 > a && !bp_add(at, L->v[i].t1))
                return 0;
        }
    }
    long h0 = hold_at(at, proc, a);
    size_t h, h_end;
    proc_range(at, proc, &h, &h_end);
    if (h0 >= 0) {
        h = (size_t)h0;
    } else {   /* first hold starting after a */
        size_t up = h_end;
        while (h < up) {
            size_t mid = (h + up) / 2;
            if (at->holds[mid].start_ns <= a)
                h = mid + 1;
            else
                up = mid;
        }
    }
    for (; h < h_end; h++) {
        if (at->holds[h].start_ns >= b)
            break;
        if (at->holds[h].start_ns > a && !bp_add(at, at->holds[h].start_ns))
            return 0;
        if (at->holds[h].end_ns > a && at->holds[h].end_ns < b && !bp_add(at, at->holds[h].end_ns))
            return 0;
    }
    qsort(at->bp, at->n_bp, sizeof *at->bp, gs_cmp_i64);
    for (size_t k = 0; k + 1 < at->n_bp; k++) {
        int64_t p = at->bp[k], q = at->bp[k + 1];
        if (q <= p)
            continue;
        /* 1. the deciding worker at p */
        int best_rank = -2;
        int64_t best_start = 0;
        int32_t best = -1;
        const seg *bs = NULL;
        for (size_t l = 0; l < at->n_lanes; l++) {
            if (!is_worker_of(at->info[l], device, proc))
                continue;
            const seg *s = state_at(&at->segs[l], p);
            int rank = -1;
            int64_t st = INT64_MAX;
            if (s) {
                rank = gs_attrib_step_rank(at->sp[s->outer].name);
                if (rank < 0)
                    rank = gs_attrib_step_rank(at->sp[s->inner].name);
                if (rank < 0)
                    rank = 0;
                st = at->sp[s->outer].start_ns;
            }
            if (rank > best_rank || (rank == best_rank && st < best_start)) {
                best_rank = rank;
                best_start = st;
                best = (int32_t)l;
                bs = s;
            }
        }
        /* 2. its cause */
        int c = -1;
        const gs_span *wait = NULL;
        if (bs) {
            c = map_span(&at->sp[bs->inner]);
            wait = &at->sp[bs->inner];
            if (c == -1) {
                c = map_span(&at->sp[bs->outer]);
                wait = &at->sp[bs->outer];
            }
        }
        if (c != CAUSE_TRACKER) {
            gs_gap_piece pc = {p, q, c < 0 ? GS_CAUSE_OTHER : (gs_cause)c, bs ? best : -1, -1, -1, 0, 0};
            if (!gs_attrib_push_piece(pieces, n, cap, pc))
                return 0;
            continue;
        }
        /* 3. tracker wait: the holder's activity, cut at its boundaries */
        long hi = hold_at(at, proc, p);
        int32_t holder = hi >= 0 ? at->hold_lane[hi] : wait->holder;
        if (holder < 0 || (size_t)holder >= at->n_lanes) {
            if (!gs_attrib_push_piece(pieces, n, cap, (gs_gap_piece){p, q, GS_CAUSE_TRACKER_OTHER, best, -1, -1, 0, 0}))
                return 0;
            continue;
        }
        const lane_segs *H = &at->segs[holder];
        int64_t t = p;
        while (t < q) {
            const seg *hs = state_at(H, t);
            int64_t e = q;
            gs_cause hc = GS_CAUSE_TRACKER_OTHER;
            if (hs) {
                hc = holder_activity(&at->sp[hs->inner]);
                if (hs->t1 < e)
                    e = hs->t1;
            } else {
                /* Not in a span: up to the holder's next segment. */
                size_t lo = 0, up = H->n;
                while (lo < up) {
                    size_t mid = (lo + up) / 2;
                    if (H->v[mid].t0 <= t)
                        lo = mid + 1;
                    else
                        up = mid;
                }
                if (lo < H->n && H->v[lo].t0 < e)
                    e = H->v[lo].t0;
            }
            if (!gs_attrib_push_piece(pieces, n, cap, (gs_gap_piece){t, e, hc, best, holder, -1, 0, 0}))
                return 0;
            t = e;
        }
    }
    return 1;
}
