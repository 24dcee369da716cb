/*
 * Processor sharing: the rule of the modelled CPU, written once.  The
 * virtual clock runs it forwards (vclock.c: how fast each task's CPU work
 * advances); the model's fit runs it backwards (model/model.c: how much CPU
 * a captured step must have used to take the time it took).
 *
 * The rule.  Tasks are offered in the order they started.  A task asks for
 * `threads` threads.  A task without a pool runs all of them; a task on a
 * pool runs its own thread plus helpers from the pool's width - 1 workers,
 * handed out oldest task first, at most threads - 1 each (as gs_pool's
 * workers help the oldest call).  With T granted threads in all (plus
 * `load`: threads that use CPU without progress of their own) on C cores,
 * every thread runs at min(1, C / T) of a core, so a task with k granted
 * threads advances at k * min(1, C / T) core-seconds per second.
 *
 * Contention, the rule's one extension.  On a real host a core-second buys
 * less work when many threads run (memory bandwidth, SMT siblings, clocks
 * under all-core load).  A task of speed class cls >= 0 progresses
 * speed(cls, W) times its share, W the runnable threads that do work of
 * their own (the tasks', load excluded: a thread that spins on its device
 * holds a core but not the memory bandwidth and caches that contention
 * is made of, and the fit, which runs the rule backwards over a capture's
 * steps, never sees such a thread); the CPU a task consumes is still its
 * share, k * min(1, C / T), T with the load.  Without a
 * speed function, or for cls < 0, speed is 1 and progress is the share.
 * The model fits speed per class (model/model_speed.c).
 *
 * Use: gs_pshare_init, gs_pshare_add for every task in start order (it
 * returns the task's granted threads), then gs_pshare_rate for the
 * per-thread rate, gs_pshare_progress for a task's work per second,
 * gs_pshare_runnable for T and gs_pshare_busy for the cores in use.
 * Pure: a gs_pshare lives on the caller's stack; no locks, no allocation.
 */
#ifndef GS_PSHARE_H
#define GS_PSHARE_H

#define GS_PSHARE_MAX_POOLS 16

typedef struct gs_pshare {
    int cores;                        /* C, >= 1 */
    double threads;                   /* T so far (load included) */
    double load;                      /* the load's part of T */
    double left[GS_PSHARE_MAX_POOLS]; /* helpers each pool has still to hand out */
} gs_pshare;

/* Starts a round on `cores` cores with n_pools pools of the given widths
 * (pools past GS_PSHARE_MAX_POOLS are ignored) and `load` busy threads. */
void gs_pshare_init(gs_pshare *s, int cores, const int *pool_width, int n_pools, double load);
/* Offers the next task (in start order): threads asked, pool (< 0 or out
 * of range: none).  Returns the threads it is granted. */
double gs_pshare_add(gs_pshare *s, double threads, int pool);
/* Core-seconds per second of each granted thread: min(1, cores / T). */
double gs_pshare_rate(const gs_pshare *s);
/* Cores in use: min(T, cores). */
double gs_pshare_busy(const gs_pshare *s);
/* T: the threads granted so far, load included. */
double gs_pshare_runnable(const gs_pshare *s);

/* Speed of class cls (>= 0) with `runnable` threads: work per core-second
 * relative to one thread alone, > 0. */
typedef double (*gs_pshare_speed_fn)(void *ctx, int cls, double runnable);
/* Work per second of a task granted `granted` threads, of speed class cls:
 * granted * gs_pshare_rate * speed(ctx, cls, T - load); speed NULL or cls < 0:
 * speed 1.  Call after every task is added. */
double gs_pshare_progress(const gs_pshare *s, double granted, gs_pshare_speed_fn speed, void *ctx, int cls);

#endif
