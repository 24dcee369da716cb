/*
 * The virtual clock and modelled CPU (contract and model in clock.h), and
 * the time every caller reads: gs_now_ns, gs_sleep_ns and gs_thread_cpu_ns
 * consult the clock's state here first and fall through to the operating
 * system's clocks (clock.c) when no virtual clock concerns the caller.
 *
 * State.  One process-wide clock: its lock vt.mu guards the participant
 * count, the list of waiters (each a struct on its waiting thread's stack:
 * a timer with a wake time, or CPU work with the core-ns it still needs),
 * and the per-object credits of wrapped conditions and mutexes (a small
 * table keyed by the object's address: nb = registered waiters not yet
 * credited, cr = credits not yet taken).  The virtual time itself is an
 * atomic so gs_now_ns() reads it without the lock.
 *
 * Advancing.  advance() runs, under vt.mu, in the thread that made the
 * participant count drop to 0.  Each step: processor-sharing rates of the
 * CPU waiters (pshare.h, offered in start order: the waiter list stays in
 * start order because removal keeps order), the next event (earliest
 * timer, or the CPU waiter that finishes first at its rate), progress of
 * every CPU waiter over the step, then every waiter whose event has come is
 * marked done and counted running again, and vt.cv is broadcast.  It loops
 * until some thread is running.  Rounding: a CPU finish time is rounded up
 * to the next nanosecond, so the waiter that set the step is always done.
 */
#define _GNU_SOURCE
#include "grow.h"
#include "clock.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum { VT_OFF, VT_ON, VT_STOPPED };
enum { W_TIMER, W_CPU };

typedef struct waiter {
    int kind;
    int idle;              /* timer that is a poll, not work */
    int64_t wake;          /* timer */
    double rem;            /* CPU: core-ns left */
    int threads, pool;     /* CPU: most threads, pool (-1 none) */
    int cls;               /* CPU: speed class (-1 none) */
    double th, rate, occ;  /* CPU: threads, rate and cores occupied this step */
    double used;           /* CPU: core-ns consumed (its share, whatever its speed) */
    double tsum, tdur;     /* CPU: runnable threads x ns over its run, and the ns */
    int done;
} waiter;

#define REC_MAX 256
typedef struct rec {
    const void *key;
    int nb, cr;
} rec;

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    gs_vt_cfg cfg;
    int active;            /* participants running (counted) */
    int pending_spawn;     /* counted threads that have not entered yet */
    int load;              /* gs_vt_load threads */
    waiter **w;
    size_t n, cap;
    rec recs[REC_MAX];
    int stalled;
    double last_busy;
    double runnable;       /* T of the last rates() */
} vt = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static atomic_int g_state;
static atomic_llong g_now;
static atomic_uint g_gen;
static _Thread_local unsigned tls_gen;
static _Thread_local int64_t tls_cpu;

int gs_vt_on(void) { return atomic_load_explicit(&g_state, memory_order_acquire) == VT_ON; }

int gs_vt_virtual(void) { return atomic_load_explicit(&g_state, memory_order_acquire) != VT_OFF; }

int64_t gs_vt_now(void) { return (int64_t)atomic_load_explicit(&g_now, memory_order_acquire); }

int gs_vt_participant(void)
{
    return tls_gen != 0 && tls_gen == atomic_load_explicit(&g_gen, memory_order_relaxed) &&
           gs_vt_virtual();
}

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

/* ---- credits ------------------------------------------------------------ */

/* Caller holds vt.mu. */
static rec *rec_of(const void *key, int create)
{
    size_t h = ((uintptr_t)key >> 4) * 0x9e3779b97f4a7c15ULL % REC_MAX;
    for (size_t i = 0; i < REC_MAX; i++) {
        rec *r = &vt.recs[(h + i) % REC_MAX];
        if (r->key == key)
            return r;
        if (!r->key) {
            if (!create)
                return NULL;
            r->key = key;
            return r;
        }
    }
    abort(); /* more than REC_MAX wrapped objects: a bug in the caller */
}

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

/* Caller holds vt.mu and has just stopped counting itself. */
static void advance(void)
{
    while (vt.active == 0 && atomic_load(&g_state) == VT_ON) {
        if (vt.n == 0) {
            vt.stalled = 1;
            report_busy(0);
            return;
        }
        report_busy(rates());
        int64_t now = gs_vt_now(), next = INT64_MAX;
        int only_idle = 1;
        for (size_t i = 0; i < vt.n; i++) {
            waiter *w = vt.w[i];
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
        int woke = 0;
        for (size_t i = 0; i < vt.n; i++) {
            waiter *w = vt.w[i];
            int done = w->kind == W_TIMER ? w->wake <= next : w->rem <= 0.5 * w->rate + 1e-9;
            if (done) {
                w->done = 1;
                vt.active++;
                woke++;
            } else {
                vt.w[k++] = w;
            }
        }
        vt.n = k;
        if (woke)
            pthread_cond_broadcast(&vt.cv);
    }
}

/* Caller holds vt.mu: the calling participant stops running. */
static void stop_running(void)
{
    vt.active--;
    if (vt.active == 0)
        advance();
}

static void start_running(void) { vt.active++; }

/* ---- lifecycle ---------------------------------------------------------- */

gs_status gs_vt_start(const gs_vt_cfg *cfg, int64_t t0_ns, gs_err *err)
{
    if (!cfg || cfg->cores < 1 || cfg->n_pools < 0 || cfg->n_pools > GS_VT_MAX_POOLS)
        return GS_ERR(err, GS_ERR_ARG, "vclock", "need >= 1 core and at most %d pools",
                      GS_VT_MAX_POOLS);
    pthread_mutex_lock(&vt.mu);
    if (atomic_load(&g_state) != VT_OFF) {
        pthread_mutex_unlock(&vt.mu);
        return GS_ERR(err, GS_ERR_STATE, "vclock", "a virtual clock is already running");
    }
    vt.cfg = *cfg;
    vt.active = 1;
    vt.pending_spawn = 0;
    vt.load = 0;
    vt.n = 0;
    vt.stalled = 0;
    vt.last_busy = 0;
    memset(vt.recs, 0, sizeof vt.recs);
    atomic_store(&g_now, t0_ns);
    tls_gen = atomic_fetch_add(&g_gen, 1) + 1;
    tls_cpu = 0;
    atomic_store_explicit(&g_state, VT_ON, memory_order_release);
    pthread_mutex_unlock(&vt.mu);
    return GS_OK;
}

void gs_vt_stop(void)
{
    pthread_mutex_lock(&vt.mu);
    if (atomic_load(&g_state) == VT_ON) {
        atomic_store(&g_state, VT_STOPPED);
        report_busy(0);
        for (size_t i = 0; i < vt.n; i++)
            vt.w[i]->done = 1;
        vt.n = 0;
        pthread_cond_broadcast(&vt.cv);
    }
    pthread_mutex_unlock(&vt.mu);
}

void gs_vt_end(void)
{
    gs_vt_stop();
    pthread_mutex_lock(&vt.mu);
    atomic_store(&g_state, VT_OFF);
    free(vt.w);
    vt.w = NULL;
    vt.n = vt.cap = 0;
    pthread_mutex_unlock(&vt.mu);
    tls_gen = 0;
}

void gs_vt_spawn(void)
{
    if (!gs_vt_on() || !gs_vt_participant())
        return;
    pthread_mutex_lock(&vt.mu);
    if (atomic_load(&g_state) == VT_ON) {
        vt.active++;
        vt.pending_spawn++;
    }
    pthread_mutex_unlock(&vt.mu);
}

void gs_vt_spawn_failed(void)
{
    if (!gs_vt_on() || !gs_vt_participant())
        return;
    pthread_mutex_lock(&vt.mu);
    if (atomic_load(&g_state) == VT_ON && vt.pending_spawn > 0) {
        vt.pending_spawn--;
        stop_running();
    }
    pthread_mutex_unlock(&vt.mu);
}

void gs_vt_enter(void)
{
    if (!gs_vt_on())
        return;
    pthread_mutex_lock(&vt.mu);
    if (atomic_load(&g_state) == VT_ON && vt.pending_spawn > 0) {
        vt.pending_spawn--;
        tls_gen = atomic_load(&g_gen);
        tls_cpu = 0;
    }
    pthread_mutex_unlock(&vt.mu);
}

void gs_vt_exit(void)
{
    if (!gs_vt_participant())
        return;
    pthread_mutex_lock(&vt.mu);
    if (atomic_load(&g_state) == VT_ON)
        stop_running();
    pthread_mutex_unlock(&vt.mu);
    tls_gen = 0;
}

/* ---- modelled work ------------------------------------------------------ */

/* Waits until w is done (or the clock stops).  Caller holds vt.mu and is
 * counted running; w is filled in. */
static void wait_on(waiter *w)
{
    if (!gs_grow(&vt.w, &vt.cap, vt.n, sizeof *vt.w, 64))
        abort(); /* cannot model without memory for a pointer list */
    vt.w[vt.n++] = w;
    stop_running();
    while (!w->done && atomic_load(&g_state) == VT_ON)
        pthread_cond_wait(&vt.cv, &vt.mu);
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
    if (atomic_load(&g_state) == VT_ON) {
        waiter w = {.kind = W_TIMER, .idle = idle, .wake = gs_vt_now() + ns, .pool = -1};
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
    if (atomic_load(&g_state) == VT_ON) {
        waiter w = {.kind = W_CPU, .rem = (double)core_ns, .threads = threads < 1 ? 1 : threads,
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

/* ---- wrapped waits ------------------------------------------------------ */

/* Caller holds vt.mu and the clock is on.  A thread about to block on key
 * (a condition or a mutex) stops counting as running. */
static void block_on(const void *key)
{
    rec_of(key, 1)->nb++;
    stop_running();
}

/* Caller holds vt.mu and the clock is on.  A thread that blocked on key is
 * back: it uses up a credit (a signal or an unlock counted it as running
 * already), or else leaves the blocked count and runs again. */
static void back_from(const void *key)
{
    rec *r = rec_of(key, 1);
    if (r->cr > 0) {
        r->cr--;
    } else {
        r->nb--;
        start_running();
    }
}

int gs_vt_cond_wait(pthread_cond_t *cv, pthread_mutex_t *mu)
{
    if (!gs_vt_on() || !gs_vt_participant())
        return pthread_cond_wait(cv, mu);
    pthread_mutex_lock(&vt.mu);
    int counted = atomic_load(&g_state) == VT_ON;
    if (counted)
        block_on(cv);
    pthread_mutex_unlock(&vt.mu);
    int rc = pthread_cond_wait(cv, mu);
    pthread_mutex_lock(&vt.mu);
    if (counted && atomic_load(&g_state) == VT_ON)
        back_from(cv);
    pthread_mutex_unlock(&vt.mu);
    return rc;
}

static void credit(const void *key, int all)
{
    pthread_mutex_lock(&vt.mu);
    if (atomic_load(&g_state) == VT_ON) {
        rec *r = rec_of(key, 0);
        if (r && r->nb > 0) {
            int k = all ? r->nb : 1;
            r->nb -= k;
            r->cr += k;
            vt.active += k;
        }
    }
    pthread_mutex_unlock(&vt.mu);
}

void gs_vt_cond_signal(pthread_cond_t *cv)
{
    if (gs_vt_on())
        credit(cv, 0);
    pthread_cond_signal(cv);
}

void gs_vt_cond_broadcast(pthread_cond_t *cv)
{
    if (gs_vt_on())
        credit(cv, 1);
    pthread_cond_broadcast(cv);
}

int gs_vt_mutex_lock(pthread_mutex_t *mu)
{
    if (!gs_vt_on() || !gs_vt_participant()) {
        pthread_mutex_lock(mu);
        return 0;
    }
    pthread_mutex_lock(&vt.mu);
    if (atomic_load(&g_state) != VT_ON) {
        pthread_mutex_unlock(&vt.mu);
        pthread_mutex_lock(mu);
        return 0;
    }
    if (pthread_mutex_trylock(mu) == 0) {
        /* Taken while a credited waiter is still blocked: that waiter
         * waits again, so it no longer counts as running. */
        rec *r = rec_of(mu, 0);
        if (r && r->cr > 0) {
            r->cr--;
            r->nb++;
            vt.active--; /* never 0 here: this thread still runs */
        }
        pthread_mutex_unlock(&vt.mu);
        return 0;
    }
    block_on(mu);
    pthread_mutex_unlock(&vt.mu);
    pthread_mutex_lock(mu);
    pthread_mutex_lock(&vt.mu);
    if (atomic_load(&g_state) == VT_ON)
        back_from(mu);
    pthread_mutex_unlock(&vt.mu);
    return 1;
}

void gs_vt_mutex_unlock(pthread_mutex_t *mu)
{
    if (!gs_vt_on() || !gs_vt_participant()) {
        pthread_mutex_unlock(mu);
        return;
    }
    pthread_mutex_lock(&vt.mu);
    if (atomic_load(&g_state) == VT_ON) {
        rec *r = rec_of(mu, 0);
        if (r && r->nb > 0) {
            r->nb--;
            r->cr++;
            vt.active++;
        }
    }
    pthread_mutex_unlock(mu);
    pthread_mutex_unlock(&vt.mu);
}
