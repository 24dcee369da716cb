/*
 * gs_pool: worker threads that help whichever parallel-for call is oldest.
 *
 * Design.  A call to gs_pool_for builds a job on its own stack, appends it to
 * the pool's FIFO of open jobs and wakes the workers.  Chunks are claimed
 * with an atomic fetch-add on job->next, so the caller and any number of
 * helpers share one job without a lock per chunk.  A worker that finds the
 * head job exhausted unlinks it and looks at the next one.
 *
 * Completion.  The job lives on the caller's stack, so the caller may return
 * only when no helper still points at it.  When the caller runs out of
 * chunks it unlinks the job (no new helper can join after that) and waits
 * until job->helpers drops to 0.  Every chunk handed out was run either by
 * the caller or by a helper that has since left, so all work is done.  The
 * helpers' decrement and the caller's read both happen under pool->mu, which
 * also publishes the helpers' writes to the caller.
 *
 * CPU accounting.  A helper reads its thread CPU clock around the chunks it
 * runs for a job and adds the difference to job->helper_cpu under pool->mu;
 * the caller, once no helper is left, adds the job's total to its own
 * thread-local sum (gs_task_cpu_ns), so CPU consumed on a caller's behalf
 * is known per call without a global counter.
 *
 * Lock order: pool->mu is the only lock.  fn never runs under it.
 */
#define _GNU_SOURCE
#include "pool.h"
#include "clock.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct pool_job {
    gs_pool_fn fn;
    void *ctx;
    size_t n_items, chunk, n_chunks;
    atomic_size_t next;            /* next chunk to claim */
    /* Protected by pool->mu: */
    unsigned helpers;              /* workers currently inside this job */
    unsigned next_slot;            /* last slot handed to a helper */
    unsigned peak;                 /* most helpers inside at once */
    int64_t helper_cpu;            /* CPU ns the helpers spent on it */
    int linked;                    /* still in the pool's queue */
    struct pool_job *qnext, *qprev;
} pool_job;

struct gs_pool {
    unsigned width;
    unsigned n_workers;
    pthread_t *workers;
    pthread_mutex_t mu;
    pthread_cond_t work_cv;        /* signalled when a job is queued or on stop */
    pthread_cond_t done_cv;        /* signalled when a job's last helper leaves */
    /* Protected by mu: */
    pool_job *head, *tail;
    int stop;
};

/* The calling thread's CPU accounting (pool.h). */
static _Thread_local int64_t tls_helper_cpu;
static _Thread_local unsigned tls_peak;

/* Caller holds pool->mu. */
static void unlink_job(gs_pool *p, pool_job *j)
{
    if (!j->linked)
        return;
    if (j->qprev)
        j->qprev->qnext = j->qnext;
    else
        p->head = j->qnext;
    if (j->qnext)
        j->qnext->qprev = j->qprev;
    else
        p->tail = j->qprev;
    j->qnext = j->qprev = NULL;
    j->linked = 0;
}

/* Claims and runs chunks until the job has none left. */
static void run_chunks(pool_job *j, unsigned slot)
{
    for (;;) {
        size_t c = atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed);
        if (c >= j->n_chunks)
            return;
        size_t begin = c * j->chunk;
        size_t end = begin + j->chunk;
        if (end > j->n_items)
            end = j->n_items;
        j->fn(j->ctx, begin, end, slot);
    }
}

static void *worker_main(void *arg)
{
    gs_pool *p = arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->stop && !p->head)
            pthread_cond_wait(&p->work_cv, &p->mu);
        if (p->stop)
            break;
        pool_job *j = p->head;
        if (atomic_load_explicit(&j->next, memory_order_relaxed) >= j->n_chunks) {
            unlink_job(p, j);
            continue;
        }
        j->helpers++;
        if (j->helpers > j->peak)
            j->peak = j->helpers;
        unsigned slot = ++j->next_slot;
        pthread_mutex_unlock(&p->mu);

        int64_t c0 = gs_thread_cpu_ns();
        run_chunks(j, slot);
        int64_t c1 = gs_thread_cpu_ns();

        pthread_mutex_lock(&p->mu);
        j->helper_cpu += c1 - c0;
        unlink_job(p, j);
        if (--j->helpers == 0)
            pthread_cond_broadcast(&p->done_cv);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

gs_status gs_pool_create(gs_pool **out, unsigned n_threads, gs_err *err)
{
    *out = NULL;
    if (n_threads == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        n_threads = n > 0 ? (unsigned)n : 1;
    }
    if (n_threads > 4096)
        n_threads = 4096;
    gs_pool *p = calloc(1, sizeof *p);
    if (!p) {
        if (err)
            GS_ERR(err, GS_ERR_NOMEM, "pool", "allocating the pool");
        return GS_ERR_NOMEM;
    }
    p->width = n_threads;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work_cv, NULL);
    pthread_cond_init(&p->done_cv, NULL);
    if (n_threads > 1) {
        p->workers = calloc(n_threads - 1, sizeof *p->workers);
        if (!p->workers) {
            gs_pool_destroy(p);
            if (err)
                GS_ERR(err, GS_ERR_NOMEM, "pool", "allocating %u thread handles", n_threads - 1);
            return GS_ERR_NOMEM;
        }
        for (unsigned i = 0; i < n_threads - 1; i++) {
            int rc = pthread_create(&p->workers[i], NULL, worker_main, p);
            if (rc != 0) {
                gs_pool_destroy(p);
                if (err)
                    GS_ERR(err, GS_ERR_INTERNAL, "pool", "pthread_create: %s", strerror(rc));
                return GS_ERR_INTERNAL;
            }
            p->n_workers++;
        }
    }
    *out = p;
    return GS_OK;
}

void gs_pool_destroy(gs_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->work_cv);
    pthread_mutex_unlock(&p->mu);
    for (unsigned i = 0; i < p->n_workers; i++)
        pthread_join(p->workers[i], NULL);
    pthread_cond_destroy(&p->done_cv);
    pthread_cond_destroy(&p->work_cv);
    pthread_mutex_destroy(&p->mu);
    free(p->workers);
    free(p);
}

unsigned gs_pool_width(const gs_pool *p)
{
    return p ? p->width : 1;
}

void gs_pool_for(gs_pool *p, size_t n_items, size_t chunk, gs_pool_fn fn, void *ctx)
{
    if (n_items == 0)
        return;
    unsigned width = gs_pool_width(p);
    if (chunk == 0) {
        size_t target = (size_t)width * 4;
        chunk = (n_items + target - 1) / target;
    }
    pool_job j;
    memset(&j, 0, sizeof j);
    j.fn = fn;
    j.ctx = ctx;
    j.n_items = n_items;
    j.chunk = chunk;
    j.n_chunks = n_items / chunk + (n_items % chunk != 0);
    atomic_init(&j.next, 0);

    if (width == 1 || j.n_chunks == 1) {
        run_chunks(&j, 0);
        return;
    }

    pthread_mutex_lock(&p->mu);
    j.linked = 1;
    j.qprev = p->tail;
    if (p->tail)
        p->tail->qnext = &j;
    else
        p->head = &j;
    p->tail = &j;
    pthread_cond_broadcast(&p->work_cv);
    pthread_mutex_unlock(&p->mu);

    run_chunks(&j, 0);

    pthread_mutex_lock(&p->mu);
    unlink_job(p, &j);
    while (j.helpers > 0)
        pthread_cond_wait(&p->done_cv, &p->mu);
    pthread_mutex_unlock(&p->mu);
    tls_helper_cpu += j.helper_cpu;
    if (j.peak > tls_peak)
        tls_peak = j.peak;
}

int64_t gs_pool_helper_cpu_ns(void) { return tls_helper_cpu; }

int64_t gs_task_cpu_ns(void) { return gs_thread_cpu_ns() + tls_helper_cpu; }

unsigned gs_pool_peak_helpers(void) { return tls_peak; }

void gs_pool_peak_reset(void) { tls_peak = 0; }
