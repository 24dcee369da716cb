/*
 * gs_pq: a blocking priority queue of partitions, used three times by the
 * engine: pending partitions waiting for synthesis (unbounded), synthesized
 * partitions waiting for a GPU worker (bounded: synthesis blocks when it is
 * full, which is what bounds the memory of synthesized partitions), and
 * proved partitions waiting for a pooled finalizer.
 *
 * Ordering: a binary min-heap on (priority, job sequence, partition index),
 * so the most urgent job goes first and, within a priority, the oldest
 * job's partitions go in index order (production's ordered queue: random
 * interleaving across jobs makes all of them finish late).  The key is
 * unique per partition, so the order is total and deterministic.
 *
 * Threads: any number of pushers and poppers.  One mutex per queue, two
 * condition variables (not_empty, not_full).  The lock is instrumented
 * like the tracker's, but only when contended (a failed trylock): a
 * LOCK_WAIT named after the queue, with the lane that held it; the holder
 * field is cleared while a holder sleeps on a condition variable.  After each change the depth
 * callback runs under the queue lock (so counter samples are in order);
 * it may take the driver-lane mutex, a leaf lock.  Close wakes everyone:
 * pushes fail, pops drain what is left and then return NULL.  Waits and
 * wake-ups go through the virtual clock's wrappers (clock.h), plain
 * pthread calls unless a modelled run is on.
 */
#include <stdlib.h>
#include <string.h>

#include "../../common/grow.h"
#include "../../common/clock.h"
#include "engine_int.h"

static int before(const gs_part *a, const gs_part *b)
{
    if (a->prio != b->prio)
        return a->prio < b->prio;
    if (a->seq != b->seq)
        return a->seq < b->seq;
    return a->index < b->index;
}

static void sift_up(gs_part **h, size_t i)
{
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!before(h[i], h[parent]))
            break;
        gs_part *t = h[i];
        h[i] = h[parent];
        h[parent] = t;
        i = parent;
    }
}

static void sift_down(gs_part **h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && before(h[l], h[m]))
            m = l;
        if (r < n && before(h[r], h[m]))
            m = r;
        if (m == i)
            return;
        gs_part *t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

/* Takes q->mu; a contended acquire becomes a LOCK_WAIT span on lane. */
static void pq_lock(gs_pq *q, gs_tl_lane *lane)
{
    if (!lane) {
        pthread_mutex_lock(&q->mu);
        return;
    }
    if (pthread_mutex_trylock(&q->mu) != 0) {
        int64_t t0 = gs_now_ns();
        int32_t holder = atomic_load_explicit(&q->holder, memory_order_acquire);
        pthread_mutex_lock(&q->mu);
        gs_tl_lock_wait(lane, q->name, holder, -1, -1, t0, gs_now_ns());
    }
    atomic_store_explicit(&q->holder, gs_tl_lane_id(lane), memory_order_release);
}

static void pq_unlock(gs_pq *q)
{
    atomic_store_explicit(&q->holder, -1, memory_order_release);
    pthread_mutex_unlock(&q->mu);
}

/* pthread_cond_wait releasing q->mu: the holder field follows. */
static void pq_wait(gs_pq *q, pthread_cond_t *cv, gs_tl_lane *lane)
{
    atomic_store_explicit(&q->holder, -1, memory_order_release);
    gs_vt_cond_wait(cv, &q->mu);
    if (lane)
        atomic_store_explicit(&q->holder, gs_tl_lane_id(lane), memory_order_release);
}

gs_status gs_pq_init(gs_pq *q, const char *name, size_t bound, struct gs_engine *e,
                     gs_pq_depth_fn on_depth)
{
    memset(q, 0, sizeof *q);
    atomic_init(&q->holder, -1);
    q->name = name;
    q->bound = bound;
    q->cap = bound ? bound : 16;
    q->heap = malloc(q->cap * sizeof *q->heap);
    if (!q->heap)
        return GS_ERR_NOMEM;
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->not_empty, NULL);
    pthread_cond_init(&q->not_full, NULL);
    q->e = e;
    q->on_depth = on_depth;
    return GS_OK;
}

void gs_pq_deinit(gs_pq *q)
{
    if (!q->heap)
        return;
    free(q->heap);
    pthread_cond_destroy(&q->not_full);
    pthread_cond_destroy(&q->not_empty);
    pthread_mutex_destroy(&q->mu);
    memset(q, 0, sizeof *q);
}

int gs_pq_push(gs_pq *q, gs_part *p, gs_tl_lane *lane, int64_t *t0, int64_t *t1)
{
    pq_lock(q, lane);
    *t0 = *t1 = 0;
    if (q->bound && q->n >= q->bound && !q->closed) {
        *t0 = gs_now_ns();
        while (q->n >= q->bound && !q->closed)
            pq_wait(q, &q->not_full, lane);
        *t1 = gs_now_ns();
    }
    if (q->closed) {
        pq_unlock(q);
        return 0;
    }
    if (!gs_grow(&q->heap, &q->cap, q->n, sizeof *q->heap, 16)) {
        pq_unlock(q);
        return 0;
    }
    q->heap[q->n] = p;
    sift_up(q->heap, q->n++);
    if (q->on_depth)
        q->on_depth(q->e, gs_now_ns(), q->n);
    gs_vt_cond_signal(&q->not_empty);
    pq_unlock(q);
    return 1;
}

gs_part *gs_pq_pop(gs_pq *q, gs_tl_lane *lane, int64_t *t0, int64_t *t1)
{
    gs_part *p = NULL;
    pq_lock(q, lane);
    *t0 = *t1 = 0;
    if (q->n == 0 && !q->closed) {
        *t0 = gs_now_ns();
        while (q->n == 0 && !q->closed)
            pq_wait(q, &q->not_empty, lane);
        *t1 = gs_now_ns();
    }
    if (q->n > 0) {
        p = q->heap[0];
        q->heap[0] = q->heap[--q->n];
        sift_down(q->heap, q->n, 0);
        if (q->on_depth)
            q->on_depth(q->e, gs_now_ns(), q->n);
        gs_vt_cond_signal(&q->not_full);
    }
    pq_unlock(q);
    return p;
}

size_t gs_pq_take_cancelled(gs_pq *q, uint64_t epoch, gs_part ***out)
{
    size_t k = 0;
    *out = NULL;
    pthread_mutex_lock(&q->mu);
    gs_part **taken = q->n ? malloc(q->n * sizeof *taken) : NULL;
    if (taken) {
        size_t keep = 0;
        for (size_t i = 0; i < q->n; i++) {
            if (q->heap[i]->job->epoch < epoch)
                taken[k++] = q->heap[i];
            else
                q->heap[keep++] = q->heap[i];
        }
        q->n = keep;
        /* Rebuild the heap over the kept items (Floyd). */
        for (size_t i = keep / 2; i-- > 0;)
            sift_down(q->heap, keep, i);
        if (k && q->on_depth)
            q->on_depth(q->e, gs_now_ns(), q->n);
        if (k)
            gs_vt_cond_broadcast(&q->not_full);
    }
    pthread_mutex_unlock(&q->mu);
    if (!k) {
        free(taken);
        taken = NULL;
    }
    *out = taken;
    return k;
}

void gs_pq_close(gs_pq *q)
{
    pthread_mutex_lock(&q->mu);
    q->closed = 1;
    gs_vt_cond_broadcast(&q->not_empty);
    gs_vt_cond_broadcast(&q->not_full);
    pthread_mutex_unlock(&q->mu);
}
