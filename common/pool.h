/*
 * gs_pool: a small pthreads thread pool with one primitive, a blocking
 * parallel-for.  Used by the NTT, the MSM and the Groth16 prover.
 *
 * Model.  A pool of width W owns W - 1 worker threads; the thread that calls
 * gs_pool_for is the W-th participant.  A call publishes a job (range
 * [0, n_items) cut into chunks of `chunk` items), wakes the workers, works on
 * chunks itself, and returns once every chunk has run and no worker still
 * references the job.  Chunks are handed out in increasing order from an
 * atomic counter; which thread runs which chunk is not deterministic.
 *
 * Concurrency.  gs_pool_for may be called from several threads at once on
 * the same pool (the engine runs several provers concurrently): the jobs are
 * queued, idle workers help the oldest unfinished job first, and every
 * caller always makes progress on its own job, so no call waits for another
 * call's work.  Calls may nest (fn may itself call gs_pool_for on the same
 * pool): the nested caller works on its own job, so this cannot deadlock.
 *
 * Slots.  fn receives a slot number, unique among the threads running chunks
 * of the same call at the same time and below gs_pool_width(pool): the caller
 * is slot 0, helpers get 1, 2, ... in joining order.  Use it to index
 * per-thread scratch (MSM bucket arrays) sized gs_pool_width(pool).
 *
 * A NULL pool is valid everywhere and means "run serially in the caller"
 * (width 1, slot 0).
 *
 * Ownership: gs_pool_create allocates; gs_pool_destroy joins the workers and
 * frees.  Destroying a pool while a gs_pool_for on it is running is a bug.
 */
#ifndef GS_POOL_H
#define GS_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

typedef struct gs_pool gs_pool;

/* fn(ctx, begin, end, slot): process items [begin, end). */
typedef void (*gs_pool_fn)(void *ctx, size_t begin, size_t end, unsigned slot);

/*
 * Creates a pool of width n_threads (n_threads - 1 workers are started);
 * 0 means one per online CPU.  Width 1 starts no thread.  Returns
 * GS_ERR_NOMEM or GS_ERR_INTERNAL (thread creation failed) with detail in
 * err (may be NULL); *out is NULL on failure.
 */
gs_status gs_pool_create(gs_pool **out, unsigned n_threads, gs_err *err);
void gs_pool_destroy(gs_pool *pool);

/* The number of threads that can work on one call (>= 1; 1 for NULL). */
unsigned gs_pool_width(const gs_pool *pool);

/*
 * Runs fn over [0, n_items) in chunks of `chunk` items (0 picks a chunk that
 * gives each participant a few chunks) and returns when all have run.
 * n_items == 0 returns at once without calling fn.  Thread safe.
 */
void gs_pool_for(gs_pool *pool, size_t n_items, size_t chunk, gs_pool_fn fn, void *ctx);

#ifndef __cplusplus   /* C11 atomics; the CUDA sources include this header too */
#include <stdatomic.h>
/* *m = min(*m, v), lock-free: the lowest failing item of a gs_pool_for,
 * whichever thread finds it, so the error names the same item as a serial
 * pass would. */
static inline void gs_atomic_min_size(_Atomic size_t *m, size_t v)
{
    size_t cur = atomic_load(m);
    while (v < cur && !atomic_compare_exchange_weak(m, &cur, v))
        ;
}
#endif

/*
 * CPU accounting.  Each gs_pool_for call measures the CPU time its helper
 * threads spent on its chunks (their CLOCK_THREAD_CPUTIME_ID over the
 * chunks they ran) and, when the call returns, adds it to a per-thread
 * total of the calling thread.  gs_task_cpu_ns() is the calling thread's
 * own CPU time plus that total: the difference of two readings around a
 * step is the CPU the step consumed across every pool thread that worked
 * for it (core-seconds, what a model of the machine needs).  Readings are
 * per thread and never decrease.
 */
int64_t gs_pool_helper_cpu_ns(void);
int64_t gs_task_cpu_ns(void);
/* The most helper threads that worked on one call at the same time, over
 * the calling thread's calls since the last reset (0: none helped). */
unsigned gs_pool_peak_helpers(void);
void gs_pool_peak_reset(void);

#endif
