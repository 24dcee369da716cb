/*
 * The virtual clock and modelled CPU (contract and model in clock.h), and
 * the time every caller reads: gs_now_ns, gs_sleep_ns and gs_thread_cpu_ns
 * consult the clock's state here first and fall through to the operating
 * system's clocks (clock.c) when no virtual clock concerns the caller.
 * The wrapped conditions and mutexes are in vclock_wait.c; the state both
 * files share, in vclock_int.h.
 *
 * State.  One process-wide clock: its lock vt.mu guards the participants
 * (one vt_part each, made in registration order), the turn (vt.run: the
 * one participant allowed to run), the ready queue, the list of waiters
 * (each a struct on its waiting thread's stack: a timer with a wake time,
 * or CPU work with the core-ns it still needs) and the per-object queues
 * of wrapped conditions and mutexes (a small table keyed by the object's
 * address).  The virtual time itself is an atomic so gs_now_ns() reads it
 * without the lock.
 *
 * The turn.  Exactly one participant runs at a time: the one holding the
 * turn.  It keeps it until it waits (modelled work, a wrapped wait) or
 * exits; then hand_on() gives the turn to the first participant of the
 * ready queue, and only when that queue is empty does advance() move
 * virtual time.  A participant enters the ready queue when its modelled
 * work ends (advance, in waiter order), when a signal, broadcast or unlock
 * picks it (first blocked, first picked), or when it was spawned (spawn
 * order).  Every choice is a fixed function of what the participants did
 * before, never of how the operating system scheduled them, so a run is
 * repeatable to the nanosecond: the same inputs give the same interleaving
 * of the real code, the same lock order and the same spans (model/MODEL.md,
 * "Determinism").
 *
 * Advancing.  advance() runs, under vt.mu, when the turn is given up and
 * nobody is ready.  Each step: processor-sharing rates of the CPU waiters
 * (pshare.h, offered in start order: the waiter list stays in start order
 * because removal keeps order), the next event (earliest timer, or the CPU
 * waiter that finishes first at its rate), progress of every CPU waiter
 * over the step, then every waiter whose event has come is marked done and
 * queued ready, in list order.  It loops until someone is ready.  Rounding:
 * a CPU finish time is rounded up to the next nanosecond, so the waiter
 * that set the step is always done.
 */
#define _GNU_SOURCE
#include "grow.h"
#include "vclock_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define vt gs_vti /* this file's name for the clock's state (vclock_int.h) */

vt_state gs_vti = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
atomic_int gs_vti_state;

static atomic_llong g_now;
static atomic_uint g_gen;
static _Thread_local unsigned tls_gen;
static _Thread_local int64_t tls_cpu;
static _Thread_local vt_part *tls_me;

static int on_locked(void) { return atomic_load(&gs_vti_state) == VT_ON; }

int gs_vt_on(void) { return atomic_load_explicit(&gs_vti_state, memory_order_acquire) == VT_ON; }

int gs_vt_virtual(void) { return atomic_load_explicit(&gs_vti_state, memory_order_acquire) != VT_OFF; }

int64_t gs_vt_now(void) { return (int64_t)atomic_load_explicit(&g_now, memory_order_acquire); }

int gs_vt_participant(void)
{
    return tls_gen != 0 && tls_gen == atomic_load_explicit(&g_gen, memory_order_relaxed) &&
           gs_vt_virtual();
}

vt_part *gs_vti_self(void) { return gs_vt_participant() ? tls_me : NULL; }

int gs_vt_stalled(void)
{
    pthread_mutex_lock(&vt.mu);
    int s = vt.stalled;
    pthread_mutex_unlock(&vt.mu);
    return s;
}

int64_t gs_vt_thread_cpu_ns(void) { return gs_vt_participant() ? tls_cpu : 0; }

/* ---- the time every caller reads (clock.h) ------------------------------ */

int64_t gs_now_ns(void) { return gs_vt_virtual() ? gs_vt_now() : gs_real_now_ns(); }

int64_t gs_thread_cpu_ns(void) { return gs_vt_participant() ? tls_cpu : gs_real_thread_cpu_ns(); }

/* ---- advancing ---------------------------------------------------------- */

/* Caller holds vt.mu.  Sets th, occ and rate of every CPU waiter (the
 * rule and its contention extension: pshare.h); returns the busy cores. */
static double rates(void)
{
    gs_pshare ps;
    gs_pshare_init(&ps, vt.cfg.cores, vt.cfg.pool_width, vt.cfg.n_pools, vt.load);
    for (size_t i = 0; i < vt.n; i++)
        if (vt.w[i]->kind == W_CPU)
            vt.w[i]->th = gs_pshare_add(&ps, vt.w[i]->threads, vt.w[i]->pool);
    double share = gs_pshare_rate(&ps);
    vt.runnable = gs_pshare_runnable(&ps);
    for (size_t i = 0; i < vt.n; i++)
        if (vt.w[i]->kind == W_CPU) {
            vt.w[i]->occ = vt.w[i]->th * share;
            vt.w[i]->rate = gs_pshare_progress(&ps, vt.w[i]->th, vt.cfg.speed, vt.cfg.speed_ctx, vt.w[i]->cls);
        }
    return gs_pshare_busy(&ps);
}

static void report_busy(double busy)
{
    if (busy != vt.last_busy && vt.cfg.on_cpu)
        vt.cfg.on_cpu(vt.cfg.on_cpu_ctx, gs_vt_now(), busy);
    vt.last_busy = busy;
}

/* Caller holds vt.mu; nobody holds the turn and nobody is ready. */
static void advance(void)
{
    while (!vt.ready.head && on_locked()) {
        if (vt.n == 0) {
            vt.stalled = 1;
            report_busy(0);
            return;
        }
        report_busy(rates());
        int64_t now = gs_vt_now(), next = INT64_MAX;
        int only_idle = 1;
        for (size_t i = 0; i < vt.n; i++) {
            vt_waiter *w = vt.w[i];
            int64_t t = w->wake;
            if (w->kind == W_CPU)
                t = w->rem <= 0 ? now : now + (int64_t)ceil(w->rem / w->rate);
            if (t < next)
                next = t;
            only_idle &= w->idle;
        }
        vt.stalled = only_idle;
        if (next < now)
            next = now;
        double dt = (double)(next - now);
        for (size_t i = 0; i < vt.n; i++)
            if (vt.w[i]->kind == W_CPU) {
                vt.w[i]->used += vt.w[i]->occ * dt;
                vt.w[i]->rem -= vt.w[i]->rate * dt;
                vt.w[i]->tsum += vt.runnable * dt;
                vt.w[i]->tdur += dt;
            }
        atomic_store_explicit(&g_now, next, memory_order_release);
        size_t k = 0;
        for (size_t i = 0; i < vt.n; i++) {
            vt_waiter *w = vt.w[i];
            int done = w->kind == W_TIMER ? w->wake <= next : w->rem <= 0.5 * w->rate + 1e-9;
            if (done) {
                w->done = 1;
                gs_vti_push(&vt.ready, w->p);
            } else {
                vt.w[k++] = w;
            }
        }
        vt.n = k;
    }
}

/* ---- the turn ------------------------------------------------------------ */

/* Caller holds vt.mu.  When nobody holds the turn: gives it to the first
 * ready participant, advancing virtual time first if nobody is ready. */
static void hand_on(void)
{
    if (vt.run || !on_locked())
        return;
    if (!vt.ready.head)
        advance();
    vt_part *p = gs_vti_pop(&vt.ready);
    if (p) {
        vt.run = p;
        pthread_cond_signal(&p->cv);
    }
}

void gs_vti_ready(vt_part *p)
{
    gs_vti_push(&vt.ready, p);
    hand_on();
}

void gs_vti_block(vt_part *me)
{
    if (vt.run == me) {
        vt.run = NULL;
        hand_on();
    }
    while (vt.run != me && on_locked())
        pthread_cond_wait(&me->cv, &vt.mu);
}

/* ---- lifecycle ---------------------------------------------------------- */

/* Caller holds vt.mu: a new participant, last in registration order. */
static vt_part *part_new(void)
{
    vt_part *p = calloc(1, sizeof *p);
    if (!p)
        abort(); /* cannot model without memory for a participant */
    pthread_cond_init(&p->cv, NULL);
    p->id = ++vt.n_parts;
    p->all = vt.all;
    vt.all = p;
    return p;
}

gs_status gs_vt_start(const gs_vt_cfg *cfg, int64_t t0_ns, gs_err *err)
{
    if (!cfg || cfg->cores < 1 || cfg->n_pools < 0 || cfg->n_pools > GS_VT_MAX_POOLS)
        return GS_ERR(err, GS_ERR_ARG, "vclock", "need >= 1 core and at most %d pools",
                      GS_VT_MAX_POOLS);
    pthread_mutex_lock(&vt.mu);
    if (atomic_load(&gs_vti_state) != VT_OFF) {
        pthread_mutex_unlock(&vt.mu);
        return GS_ERR(err, GS_ERR_STATE, "vclock", "a virtual clock is already running");
    }
    vt.cfg = *cfg;
    vt.ready = (vt_queue){0};
    vt.pending = NULL;
    vt.all = NULL;
    vt.n_parts = 0;
    vt.load = 0;
    vt.n = 0;
    vt.stalled = 0;
    vt.last_busy = 0;
    memset(vt.recs, 0, sizeof vt.recs);
    vt.run = tls_me = part_new();
    atomic_store(&g_now, t0_ns);
    tls_gen = atomic_fetch_add(&g_gen, 1) + 1;
    tls_cpu = 0;
    atomic_store_explicit(&gs_vti_state, VT_ON, memory_order_release);
    pthread_mutex_unlock(&vt.mu);
    return GS_OK;
}

void gs_vt_stop(void)
{
    pthread_mutex_lock(&vt.mu);
    if (on_locked()) {
        atomic_store(&gs_vti_state, VT_STOPPED);
        report_busy(0);
        for (size_t i = 0; i < vt.n; i++)
            vt.w[i]->done = 1;
        vt.n = 0;
        vt.run = NULL;
        for (vt_part *p = vt.all; p; p = p->all)
            pthread_cond_broadcast(&p->cv);
        pthread_cond_broadcast(&vt.cv);
    }
    pthread_mutex_unlock(&vt.mu);
}

void gs_vt_end(void)
{
    gs_vt_stop();
    pthread_mutex_lock(&vt.mu);
    atomic_store(&gs_vti_state, VT_OFF);
    free(vt.w);
    vt.w = NULL;
    vt.n = vt.cap = 0;
    while (vt.all) {
        vt_part *p = vt.all;
        vt.all = p->all;
        pthread_cond_destroy(&p->cv);
        free(p);
    }
    vt.ready = (vt_queue){0};
    vt.pending = NULL;
    pthread_mutex_unlock(&vt.mu);
    tls_gen = 0;
    tls_me = NULL;
}

void gs_vt_spawn(void)
{
    if (!gs_vt_on() || !gs_vt_participant())
        return;
    pthread_mutex_lock(&vt.mu);
    /* One spawn pending at a time, so each thread claims the participant
     * made for it (spawn order is registration order). */
    while (vt.pending && on_locked())
        pthread_cond_wait(&vt.cv, &vt.mu);
    if (on_locked()) {
        vt.pending = part_new();
        gs_vti_push(&vt.ready, vt.pending);
    }
    pthread_mutex_unlock(&vt.mu);
}

void gs_vt_spawn_failed(void)
{
    if (!gs_vt_on() || !gs_vt_participant())
        return;
    pthread_mutex_lock(&vt.mu);
    if (on_locked() && vt.pending) {
        gs_vti_remove(&vt.ready, vt.pending);
        vt.pending = NULL;
        pthread_cond_broadcast(&vt.cv);
    }
    pthread_mutex_unlock(&vt.mu);
}

void gs_vt_enter(void)
{
    if (!gs_vt_on())
        return;
    pthread_mutex_lock(&vt.mu);
    if (on_locked() && vt.pending) {
        vt_part *me = vt.pending;
        vt.pending = NULL;
        pthread_cond_broadcast(&vt.cv);
        tls_gen = atomic_load(&g_gen);
        tls_cpu = 0;
        tls_me = me;
        while (vt.run != me && on_locked())
            pthread_cond_wait(&me->cv, &vt.mu);
    }
    pthread_mutex_unlock(&vt.mu);
}

void gs_vt_exit(void)
{
    if (!gs_vt_participant())
        return;
    pthread_mutex_lock(&vt.mu);
    if (on_locked()) {
        if (vt.run == tls_me) {
            vt.run = NULL;
            hand_on();
        } else {
            gs_vti_remove(&vt.ready, tls_me);
        }
    }
    pthread_mutex_unlock(&vt.mu);
    tls_gen = 0;
    tls_me = NULL;
}

/* ---- modelled work ------------------------------------------------------ */

/* Waits until w is done (or the clock stops).  Caller holds vt.mu and the
 * turn, the clock is on; w is filled in. */
static void wait_on(vt_waiter *w)
{
    if (!gs_grow(&vt.w, &vt.cap, vt.n, sizeof *vt.w, 64))
        abort(); /* cannot model without memory for a pointer list */
    w->p = tls_me;
    vt.w[vt.n++] = w;
    gs_vti_block(tls_me);
}

static void sleep_common(int64_t ns, int idle)
{
    if (!gs_vt_participant()) {
        gs_real_sleep_ns(ns); /* real time for threads outside the clock */
        return;
    }
    if (ns <= 0)
        return;
    pthread_mutex_lock(&vt.mu);
    if (on_locked()) {
        vt_waiter w = {.kind = W_TIMER, .idle = idle, .wake = gs_vt_now() + ns, .pool = -1};
        wait_on(&w);
    }
    pthread_mutex_unlock(&vt.mu);
}

void gs_vt_sleep(int64_t ns) { sleep_common(ns, 0); }

void gs_sleep_ns(int64_t ns)
{
    if (ns > 0)
        sleep_common(ns, 0);
}

void gs_vt_sleep_idle(int64_t ns) { sleep_common(ns, 1); }

void gs_vt_cpu(int64_t core_ns, int threads, int pool) { gs_vt_cpu_class(core_ns, threads, pool, -1); }

void gs_vt_cpu_class(int64_t core_ns, int threads, int pool, int cls)
{
    gs_vt_cpu_runnable(core_ns, threads, pool, cls, NULL);
}

void gs_vt_cpu_runnable(int64_t core_ns, int threads, int pool, int cls, double *runnable)
{
    if (runnable)
        *runnable = 0;
    if (!gs_vt_participant() || core_ns <= 0)
        return;
    pthread_mutex_lock(&vt.mu);
    int64_t used = core_ns;
    if (on_locked()) {
        vt_waiter w = {.kind = W_CPU, .rem = (double)core_ns, .threads = threads < 1 ? 1 : threads,
                       .pool = pool < vt.cfg.n_pools ? pool : -1, .cls = cls};
        wait_on(&w);
        used = (int64_t)llround(w.used);
        if (runnable && w.tdur > 0)
            *runnable = w.tsum / w.tdur;
    }
    tls_cpu += used;
    pthread_mutex_unlock(&vt.mu);
}

void gs_vt_load(int delta)
{
    if (!gs_vt_on())
        return;
    pthread_mutex_lock(&vt.mu);
    vt.load += delta;
    if (vt.load < 0)
        vt.load = 0;
    pthread_mutex_unlock(&vt.mu);
}
