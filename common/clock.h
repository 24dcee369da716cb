/*
 * The clock: the one interface for time in gapscope, real and virtual.
 *
 * Every timeline, timeout and modelled delay reads gs_now_ns() and waits
 * with gs_sleep_ns(); captures record gs_thread_cpu_ns() beside wall time
 * (timeline/SPANS.md).  These read the operating system's clocks, except
 * while a virtual clock runs (below): then they are virtual time, a
 * participant's sleep is modelled time and its CPU time the modelled CPU
 * it has consumed.  gs_real_* read the operating system whatever runs.
 *
 * Files: clock.c the operating system's clocks (it calls nothing else
 * here); vclock.c the virtual clock, and the three calls above, which read
 * its state (it sleeps outside the clock through clock.c); vclock_wait.c
 * its wrapped conditions and mutexes (state shared through vclock_int.h);
 * pshare.c the processor-sharing rule of the modelled CPU.  Calls run one
 * way only: vclock.c, vclock_wait.c -> clock.c, pshare.c.
 *
 * gs_vt: a virtual clock with a modelled CPU, so the real engine (its
 * threads, queues, locks and policies) can run a whole capture's worth of
 * work in modelled time, far faster than real time and independent of how
 * loaded the machine running it is (gapscope predict, backend = model).
 *
 * Model.  While the clock is on, gs_now_ns() returns virtual time and
 * time only moves when every participating thread waits: in a modelled
 * sleep (gs_vt_sleep: device work, injected delays), in modelled CPU work
 * (gs_vt_cpu), or blocked in one of the wrapped waits below.  Real code
 * between waits takes no virtual time.  A discrete-event simulation driven
 * by real threads: the engine's own synchronization decides what runs
 * next, exactly as in a real run.
 *
 * Determinism: one participant at a time.  Participants run one at a
 * time, each until it waits or exits (it "holds the turn"); the turn then
 * goes to the first ready participant, and virtual time moves to the next
 * event (the earliest sleep end or CPU-work completion) only when nobody
 * is ready.  Participants become ready in a fixed order: those whose work
 * ends at the same virtual instant in the order they started it; the one
 * a signal or an unlock wakes is the first that blocked on that object
 * (a broadcast: all, in that order); a spawned thread in spawn order.  So
 * the interleaving of the real code, who takes a contended lock first and
 * every span are a function of the inputs alone, not of the host's
 * scheduling or load: the same run gives the same result to the
 * nanosecond.  The price is that participants never run in parallel in
 * real time (their real code is short: the work is modelled).
 *
 * CPU.  Modelled CPU work is processor sharing on `cores` modelled cores,
 * the rule of pshare.h: with T runnable threads of CPU work, each advances
 * at min(1, cores / T) of a core; a task with `threads` > 1 counts for that
 * many threads (pool tasks: their own thread plus the pool's helpers,
 * oldest task first).  gs_vt_load adds threads that use CPU without
 * progress of their own (a thread spinning on a device).  Contention
 * (cfg.speed, optional; pshare.h's extension): a task of speed class cls
 * (gs_vt_cpu_class) progresses speed(cls, T) times its share: the measured
 * slowdown of a stage as concurrency grows (model/model_speed.c).  Its
 * core_ns is work at speed 1; the CPU it consumes (gs_vt_thread_cpu_ns) is
 * its share's.
 *
 * Waits.  Every wait of a participant that can last across virtual time
 * must be one of the calls below: modelled work, or a wrapped condition
 * or mutex (queue conditions, the tracker lock, the device mutex, key
 * creation), so the clock knows the participant waits and who it waits
 * for.  Mutexes held only around real code may stay plain: a participant
 * never gives the turn up holding one.  Rules this asks of callers while
 * the clock runs: a participant does not wait in modelled time (sleep,
 * CPU, a wrapped wait) while holding a plain mutex another participant
 * takes; the mutex given to gs_vt_cond_wait is a plain one; a participant
 * joins only threads that have already left the clock (gs_vt_exit); a
 * condition waited on with gs_vt_cond_wait is signalled with
 * gs_vt_cond_signal/broadcast.  Creators register a thread before
 * pthread_create (gs_vt_spawn, which waits until the previously spawned
 * thread entered, so registration order is spawn order); the thread enters
 * with gs_vt_enter (waiting for its turn) and leaves with gs_vt_exit.
 * Threads outside the clock run freely and are not made repeatable.
 *
 * Lifecycle: gs_vt_start (the caller becomes a participant, holding the
 * turn) -> the run -> gs_vt_stop (every wait passes at once, threads run
 * in parallel again and the clock freezes: shutdown, joins) -> gs_vt_end
 * (gs_now_ns is real time again; every participant thread has ended).
 * One clock per process.  Every function is a plain pass-through (pthread
 * call, real sleep) while the clock is off, and for threads that are not
 * participants.
 *
 * Lock order: a caller's mutex (queue, keys, ...) -> the clock's lock.
 * The wrapped mutex functions take the clock's lock first and only
 * trylock/unlock the wrapped mutex under it, which never blocks (a wrapped
 * mutex held by a thread outside the clock is waited for outside it).
 */
#ifndef GS_CLOCK_H
#define GS_CLOCK_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "pshare.h"
#include "status.h"

/* ---- time, as every caller reads it ------------------------------------ */

/* CLOCK_MONOTONIC in nanoseconds: the time base of every timeline.  While
 * a virtual clock runs it is the virtual time instead. */
int64_t gs_now_ns(void);
/* Sleeps ns nanoseconds (restarting after signals); a participant of a
 * running virtual clock sleeps ns of virtual time. */
void gs_sleep_ns(int64_t ns);
/* CPU time the calling thread has used (CLOCK_THREAD_CPUTIME_ID), in
 * nanoseconds.  For a participant of a virtual clock: the modelled CPU it
 * has consumed. */
int64_t gs_thread_cpu_ns(void);

/* The operating system's clocks, whether or not a virtual clock runs. */
int64_t gs_real_now_ns(void);
void gs_real_sleep_ns(int64_t ns);
int64_t gs_real_thread_cpu_ns(void);

/* ---- an anchor: this host's clocks read together ------------------------ */

/* Captures record one at their start (timeline/README.md, "Clock
 * anchors") so captures of several processes or hosts can be put on one
 * clock (gapscope merge).  Read from the operating system's clocks always,
 * virtual clock or not. */
typedef struct gs_clock_anchor {
    int64_t monotonic_ns;      /* CLOCK_MONOTONIC: the midpoint of the two reads around realtime */
    int64_t realtime_ns;       /* CLOCK_REALTIME (ns since the Unix epoch), read between them */
    int64_t uncertainty_ns;    /* half the time between the two monotonic reads */
    int64_t maxerror_us;       /* adjtimex(2) maxerror: realtime's error bound against UTC; -1 unknown */
    int synced;                /* 1 the kernel's clock is synchronized, 0 it is not (TIME_ERROR), -1 unknown */
    char boot_id[40];          /* /proc/sys/kernel/random/boot_id ("" unknown): one CLOCK_MONOTONIC per boot */
} gs_clock_anchor;

/* Reads the anchor: the tightest of a few monotonic/realtime/monotonic
 * triples, the kernel's synchronization state and the boot id. */
void gs_clock_anchor_read(gs_clock_anchor *a);

/* ---- the virtual clock --------------------------------------------------- */

#define GS_VT_MAX_POOLS GS_PSHARE_MAX_POOLS

typedef struct gs_vt_cfg {
    int cores;                      /* modelled CPU cores, >= 1 */
    int n_pools;                    /* pools 0..n_pools-1 */
    int pool_width[GS_VT_MAX_POOLS];/* each pool's width (helpers = width - 1) */
    /* Called under the clock's lock whenever the modelled CPU's busy cores
     * change (t: virtual ns, busy: cores in use, 0..cores); may be NULL. */
    void (*on_cpu)(void *ctx, int64_t t, double busy);
    void *on_cpu_ctx;
    /* Speed of class cls (>= 0) with T runnable threads, > 0; NULL: 1. */
    gs_pshare_speed_fn speed;
    void *speed_ctx;
} gs_vt_cfg;

/* Turns the clock on at virtual time t0_ns; the calling thread becomes a
 * participant.  GS_ERR_STATE if a clock is already on. */
gs_status gs_vt_start(const gs_vt_cfg *cfg, int64_t t0_ns, gs_err *err);
/* Releases every wait (threads in modelled work return at once) and
 * freezes virtual time; wrappers pass through from now on. */
void gs_vt_stop(void);
/* Clock off: gs_now_ns() is real time again. */
void gs_vt_end(void);
/* 1 while the clock runs (between start and stop). */
int gs_vt_on(void);
/* 1 between start and end (gs_now_ns reads the virtual clock). */
int gs_vt_virtual(void);
int64_t gs_vt_now(void);
/* 1 once every participant waited with nothing left to happen but idle
 * polls (a deadlock in the modelled run). */
int gs_vt_stalled(void);

/* Thread lifecycle (no-ops when the clock is off). */
void gs_vt_spawn(void);          /* before pthread_create of a participant (waits for the last one's enter) */
void gs_vt_spawn_failed(void);   /* that pthread_create failed */
void gs_vt_enter(void);          /* first thing in the new thread; returns on its turn */
void gs_vt_exit(void);           /* last thing in it */

/* Modelled work by the calling participant. */
void gs_vt_sleep(int64_t ns);
/* A poll interval that is not work: when only such sleeps are pending and
 * nothing runs, the run has stalled (gs_vt_stalled). */
void gs_vt_sleep_idle(int64_t ns);
/* core_ns of CPU work with up to `threads` threads, on pool `pool` (-1:
 * no pool: the task's threads are its own). */
void gs_vt_cpu(int64_t core_ns, int threads, int pool);
/* The same for a task of speed class cls (-1: none, speed 1). */
void gs_vt_cpu_class(int64_t core_ns, int threads, int pool, int cls);
/* The same, and the runnable threads (load and the task's own included)
 * averaged over its run in *runnable when not NULL (0 when it took no
 * virtual time or the clock is off). */
void gs_vt_cpu_runnable(int64_t core_ns, int threads, int pool, int cls, double *runnable);
/* Threads using CPU without progress (delta +1 / -1). */
void gs_vt_load(int delta);
/* Modelled CPU ns the calling participant has consumed (0 for others). */
int64_t gs_vt_thread_cpu_ns(void);
/* 1 when the calling thread takes part in the clock. */
int gs_vt_participant(void);

/* Wrapped waits: the pthread call when off.  For a participant: the
 * waiters of one object wake first blocked, first woken (Determinism). */
int gs_vt_cond_wait(pthread_cond_t *cv, pthread_mutex_t *mu);
void gs_vt_cond_signal(pthread_cond_t *cv);
void gs_vt_cond_broadcast(pthread_cond_t *cv);
/* Returns 1 when it had to wait for the mutex, 0 when it was free. */
int gs_vt_mutex_lock(pthread_mutex_t *mu);
void gs_vt_mutex_unlock(pthread_mutex_t *mu);

#endif
