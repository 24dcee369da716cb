/*
 * Wake-up chains: a launcher that waits is charged to what the thread it
 * waits on was doing, followed through that thread's own waits (wPerf,
 * OSDI'18; offwaketime).  The rule is in diag/README.md, "Attribution of
 * foreign timelines", 3.
 *
 * At an instant t inside a LOCK_WAIT span w of lane X, the thread X waits
 * on (its blocker) is the lane with a LOCK_HOLD of w's lock covering t
 * (mutex holds, the GIL's holds), else w's holder (the lock's owner, or
 * the waker that ended the wait).  If the blocker is itself inside a
 * LOCK_WAIT at t, the walk goes on from that wait, at most GS_CHAIN_MAX
 * hops and never through a lane twice; the last thread's own state at t
 * names the activity.  The cause comes from what the launcher's first wait
 * was for (args wait=lock|event|gil; LOCK_WAITs without it are locks) and
 * that activity:
 *   - gil: gil_wait, whatever the holder does;
 *   - activity malloc_trim / memory_release: lock_wait/malloc_trim,
 *     lock_wait/memory_release, whatever the hops (glibc's malloc_trim
 *     holds the arena locks; a chain that ends in a trim is the daemon's
 *     lock held across malloc_trim however many threads relay it);
 *   - a lock: lock_wait/<cuda_sync | host_compute | blocked | other>;
 *   - an event (a condvar, a semaphore, a futex used as a flag or counter,
 *     an off-CPU stretch): wakeup/<host_compute | cuda_sync | blocked>, and
 *     blocked_futex when no waker is known at all (waiting for work);
 *     but an event wait whose chain ends in a trim or a memory release is
 *     a lock's wait (a tokio mutex: the finalizer task holding it sleeps,
 *     frees, trims, and its release wakes the waiter's runtime thread) from
 *     the wait's start, or from the trimming thread's last wake by another
 *     thread before the trim when that is later: lock_wait/<activity>
 *     before and after the trim too (lock_part_start).
 * A piece ends wherever any hop's holder or state changes.  Its detail (the
 * chain in words) and its stacks (the launcher's at its wait, the chain
 * end's at its trim or at its wake) go with it.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher_int.h"

enum { USE_LOCK, USE_EVENT, USE_GIL };

static int use_of(const gs_span *w)
{
    char v[16];
    if (!gs_ln_arg_str(w->args, "wait", v, sizeof v))
        return USE_LOCK;
    return !strcmp(v, "gil") ? USE_GIL : !strcmp(v, "event") ? USE_EVENT : USE_LOCK;
}

static gs_cause lock_cause(int code)
{
    switch (code) {
    case ST_TRIM: return GS_CAUSE_LOCK_WAIT_TRIM;
    case ST_MEMREL: return GS_CAUSE_LOCK_WAIT_MEMREL;
    case ST_CUDA_SYNC: return GS_CAUSE_LOCK_WAIT_SYNC;
    case ST_COMPUTE:
    case ST_H2D_PAGEABLE: return GS_CAUSE_LOCK_WAIT_COMPUTE;
    case ST_LOCK_WAIT:
    case ST_FUTEX:
    case ST_IO:
    case ST_SLEEP:
    case ST_RUNNABLE: return GS_CAUSE_LOCK_WAIT_BLOCKED;
    default: return GS_CAUSE_LOCK_WAIT_OTHER;
    }
}

static gs_cause event_cause(int code)
{
    switch (code) {
    case ST_TRIM: return GS_CAUSE_LOCK_WAIT_TRIM;
    case ST_MEMREL: return GS_CAUSE_LOCK_WAIT_MEMREL;
    case ST_CUDA_SYNC: return GS_CAUSE_WAKEUP_SYNC;
    case ST_COMPUTE:
    case ST_H2D_PAGEABLE: return GS_CAUSE_WAKEUP_COMPUTE;
    case ST_LOCK_WAIT:
    case ST_FUTEX:
    case ST_IO:
    case ST_SLEEP:
    case ST_RUNNABLE: return GS_CAUSE_WAKEUP_BLOCKED;
    default: return GS_CAUSE_BLOCKED_FUTEX;
    }
}

static const char *activity(const gs_launcher *L, const lseg *s)
{
    if (!s)
        return "in no known state";
    switch (s->code) {
    case ST_TRIM: return "inside malloc_trim";
    case ST_MEMREL: return "returning memory to the kernel (madvise/munmap)";
    case ST_CUDA_SYNC: return "in a CUDA synchronize call";
    case ST_H2D_PAGEABLE: return "copying from pageable memory";
    case ST_LOCK_WAIT: return "itself waiting (the chain is cut at 8 hops)";
    case ST_FUTEX: return "blocked in a futex";
    case ST_IO: return "waiting for I/O";
    case ST_SLEEP: return "sleeping";
    case ST_RUNNABLE: return "runnable, waiting for a CPU";
    case ST_COMPUTE:
        return s->span >= 0 ? L->sp[s->span].name : "running host code";
    default: return "in no known state";
    }
}

static int32_t stack_arg(const gs_span *s, const char *key)
{
    int64_t v;
    return s && gs_ln_arg_i64(s->args, key, &v) && v > 0 && v < INT32_MAX ? (int32_t)v : 0;
}

/* One walk from (self, wait) at t: fills the piece (cause, holder, end,
 * stacks, detail); 0 when out of memory. */
static int walk(gs_launcher *L, int32_t self, int32_t wait0, int use, int probe, int64_t t,
                int64_t q, gs_gap_piece *pc)
{
    int32_t lanes[GS_CHAIN_MAX + 2], waits[GS_CHAIN_MAX + 1];
    int hops = 0;
    int64_t e = q;
    const lseg *end = NULL;
    int32_t last = -1;
    int open = 0;   /* the walk ended at a wait with no holder, or a cycle */
    char text[1024];
    size_t tl = 0;
    lanes[0] = self;
    waits[0] = wait0;
    for (;;) {
        const gs_span *w = &L->sp[waits[hops]];
        int64_t next_hold;
        const hold *h =
            gs_ln_hold_at(L, L->info[lanes[hops]]->process, w->name, t, &next_hold);
        int32_t b;
        if (h) {
            b = h->lane;
            if (h->end < e)
                e = h->end;
        } else {
            b = w->holder;
            if (next_hold < e)
                e = next_hold;
        }
        if (w->end_ns < e)
            e = w->end_ns;
        int seen = 0;
        for (int k = 0; k <= hops; k++)
            seen |= lanes[k] == b;
        const char *verb = use_of(w) == USE_GIL ? "GIL held by"
                           : h || use_of(w) == USE_LOCK ? "held by" : "woken by";
        int n = snprintf(text + tl, sizeof text - tl, "%s%s waits on %s -> ",
                         hops ? ", " : "", L->info[lanes[hops]]->name, w->name);
        tl += n > 0 && (size_t)n < sizeof text - tl ? (size_t)n : 0;
        if (b < 0 || (size_t)b >= L->n_lanes || seen || L->info[b]->role == GS_ROLE_DEVICE) {
            n = snprintf(text + tl, sizeof text - tl, "%s",
                         seen ? "a cycle of waits" : "no holder or waker known");
            tl += n > 0 && (size_t)n < sizeof text - tl ? (size_t)n : 0;
            open = 1;
            break;
        }
        if (!gs_ln_build_lane(L, b))
            return 0;
        int64_t nx;
        const lseg *bs = gs_ln_state_at(&L->st[b], t, &nx);
        if (bs && bs->t1 < e)
            e = bs->t1;
        if (!bs && nx < e)
            e = nx;
        last = b;
        n = snprintf(text + tl, sizeof text - tl, "%s %s", verb, L->info[b]->name);
        tl += n > 0 && (size_t)n < sizeof text - tl ? (size_t)n : 0;
        if (bs && bs->code == ST_LOCK_WAIT && hops + 1 < GS_CHAIN_MAX) {
            lanes[++hops] = b;
            waits[hops] = bs->span;
            continue;
        }
        end = bs;
        n = snprintf(text + tl, sizeof text - tl, " %s", activity(L, bs));
        tl += n > 0 && (size_t)n < sizeof text - tl ? (size_t)n : 0;
        break;
    }
    int code = open ? -1 : end ? end->code : ST_NONE;
    if (probe) {   /* only the activity at the chain's end and its thread matter */
        pc->start_ns = t;
        pc->end_ns = e > t ? e : q;
        pc->cause = code == ST_TRIM || code == ST_MEMREL ? GS_CAUSE_LOCK_WAIT_TRIM
                                                          : GS_CAUSE_OTHER;
        pc->holder = last;
        return 1;
    }
    gs_cause c;
    if (use == USE_GIL)
        c = GS_CAUSE_GIL_WAIT;
    else if (code < 0 && hops == 0)
        c = use == USE_LOCK ? GS_CAUSE_LOCK_WAIT_OTHER : GS_CAUSE_BLOCKED_FUTEX;
    else if (code < 0)   /* a later hop's wait has no waker: that thread is blocked */
        c = use == USE_LOCK ? GS_CAUSE_LOCK_WAIT_BLOCKED : GS_CAUSE_WAKEUP_BLOCKED;
    else
        c = use == USE_LOCK ? lock_cause(code) : event_cause(code);
    /* A lock's wait that no thread blocked on as a lock (an async lock:
     * its waiter parked as a task, the thread woken through the runtime)
     * says so in the user's words before the hops. */
    char said[sizeof text + 64];
    const char *dt = text;
    if (use == USE_LOCK && use_of(&L->sp[wait0]) != USE_LOCK) {
        snprintf(said, sizeof said, "waited for a lock, through %d wake-up%s: %s", hops + 1,
                 hops ? "s" : "", text);
        dt = said;
    }
    int32_t det = gs_ln_intern(L, c, dt);
    if (det == -2)
        return 0;
    const gs_span *lw = &L->sp[waits[hops]];
    int32_t ws = end && (end->code == ST_TRIM || end->code == ST_MEMREL) && end->span >= 0
                     ? stack_arg(&L->sp[end->span], "stack")
                     : 0;
    if (!ws && last >= 0 && !open)
        ws = stack_arg(lw, "wstack");
    *pc = (gs_gap_piece){t, e > t ? e : q, c, self, last, det, stack_arg(&L->sp[wait0], "stack"), ws};
    return 1;
}

/* Where wait `wait` of lane self starts being a lock's wait (INT64_MAX:
 * nowhere).  The last instant of it at which its chain ends in a trim or a
 * memory release, on thread T, makes it one (diag/README.md, "Wake-up
 * chains"); the lock's part starts at the wait's start or, when later, at
 * the last wake of T by another thread before that trim (the waiter's
 * other dependency: the task T runs was woken then, and only then went on
 * to the lock).  -1 when out of memory. */
static int64_t lock_part_start(gs_launcher *L, int32_t self, int32_t wait)
{
    const gs_span *w = &L->sp[wait];
    int64_t trim_at = -1;
    int32_t T = -1;
    for (int64_t t = w->start_ns; t < w->end_ns;) {
        gs_gap_piece pc;
        if (!walk(L, self, wait, USE_EVENT, 1, t, w->end_ns, &pc))
            return -1;
        if (pc.cause == GS_CAUSE_LOCK_WAIT_TRIM) {
            trim_at = pc.start_ns;
            T = pc.holder;
        }
        t = pc.end_ns;
    }
    if (trim_at < 0 || T < 0)
        return INT64_MAX;
    const lstate *S = &L->st[T];   /* built by the walk that reached T */
    int64_t nx, from = w->start_ns;
    const lseg *g = gs_ln_state_at(S, trim_at, &nx);
    size_t k = g ? (size_t)(g - S->v) : 0;
    if (!g)   /* the first segment starting after trim_at */
        while (k < S->n && S->v[k].t0 <= trim_at)
            k++;
    while (k-- > 0 && S->v[k].t1 > w->start_ns) {
        const lseg *v = &S->v[k];
        if (v->code != ST_LOCK_WAIT || v->span < 0)
            continue;
        const gs_span *tw = &L->sp[v->span];
        if (tw->end_ns <= trim_at && tw->holder >= 0 && tw->holder != T) {
            if (tw->end_ns > from)
                from = tw->end_ns;
            break;
        }
    }
    return from;
}

int gs_ln_chain_pieces(gs_launcher *L, int32_t self, int32_t wait, int64_t p, int64_t q,
                       gs_gap_piece **pieces, size_t *n, size_t *cap)
{
    int use = use_of(&L->sp[wait]);
    int64_t lock_from = INT64_MAX;
    if (use == USE_EVENT) {
        /* An event wait whose chain ends in a trim is, from where the
         * trimming thread last took up the waiter's cause, the lock held
         * across malloc_trim relayed as a wake-up (a tokio mutex: the
         * releasing task wakes the waiter's runtime thread): that part of
         * it is the lock's, what its holder did before the trim too. */
        if (L->lock_part_wait != wait) {
            lock_from = lock_part_start(L, self, wait);
            if (lock_from < 0)
                return 0;
            L->lock_part_wait = wait;
            L->lock_part_from = lock_from;
        }
        lock_from = L->lock_part_from;
    }
    int64_t t = p;
    while (t < q) {
        gs_gap_piece pc;
        int lock = t >= lock_from;
        int64_t e = !lock && lock_from < q ? lock_from : q;
        if (!walk(L, self, wait, lock ? USE_LOCK : use, 0, t, e, &pc))
            return 0;
        if (!gs_attrib_push_piece(pieces, n, cap, pc))
            return 0;
        t = pc.end_ns;
    }
    return 1;
}
