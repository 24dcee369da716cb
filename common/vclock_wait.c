/*
 * The virtual clock's wrapped conditions and mutexes (contract in clock.h,
 * shared state in vclock_int.h), and the queues of participants they and
 * vclock.c use.
 *
 * A participant that waits on a wrapped object is put on the object's
 * queue (a record keyed by the object's address, table in gs_vti.recs) and
 * gives the turn up; a signal, broadcast or unlock takes the first (every,
 * first) participant off that queue and queues it ready.  So which thread
 * a signal wakes, and which waiter gets a mutex, is the order they blocked
 * in, not the operating system's choice.
 *
 * Conditions.  A participant never blocks in pthread_cond_wait: it queues
 * on the condition, unlocks the caller's mutex, waits for the turn and
 * re-locks the mutex once it has it.  Nobody else runs between the queueing
 * and the unlock (the caller holds the turn), so no signal is lost.
 * pthread_cond_signal/broadcast are still called, for threads outside the
 * clock (and for every thread once it stops).
 *
 * Mutexes.  Taken with trylock while holding the turn.  When it is held by
 * another participant (which waits in modelled time, holding it), the
 * caller queues on it; an unlock hands the turn-order on to the first in
 * the queue, which tries again when its turn comes (and queues again,
 * first, if a running thread took the mutex meanwhile).  A mutex held by a
 * thread outside the clock is waited for in real time: that thread is not
 * waiting for the clock.
 *
 * Lock order: the caller's mutex -> gs_vti.mu; under gs_vti.mu the wrapped
 * mutex is only trylocked or unlocked, which never blocks.
 */
#include "vclock_int.h"

#include <stdlib.h>

#define vt gs_vti /* this file's name for the clock's state (vclock_int.h) */

static int on_locked(void) { return atomic_load(&gs_vti_state) == VT_ON; }

/* ---- queues of participants --------------------------------------------- */

void gs_vti_push(vt_queue *q, vt_part *p)
{
    p->next = NULL;
    if (q->tail)
        q->tail->next = p;
    else
        q->head = p;
    q->tail = p;
}

void gs_vti_push_front(vt_queue *q, vt_part *p)
{
    p->next = q->head;
    q->head = p;
    if (!q->tail)
        q->tail = p;
}

vt_part *gs_vti_pop(vt_queue *q)
{
    vt_part *p = q->head;
    if (p) {
        q->head = p->next;
        if (!q->head)
            q->tail = NULL;
        p->next = NULL;
    }
    return p;
}

int gs_vti_remove(vt_queue *q, vt_part *p)
{
    for (vt_part *prev = NULL, *c = q->head; c; prev = c, c = c->next) {
        if (c != p)
            continue;
        if (prev)
            prev->next = c->next;
        else
            q->head = c->next;
        if (q->tail == c)
            q->tail = prev;
        c->next = NULL;
        return 1;
    }
    return 0;
}

/* ---- records ------------------------------------------------------------- */

vt_rec *gs_vti_rec(const void *key, int create)
{
    size_t h = ((uintptr_t)key >> 4) * 0x9e3779b97f4a7c15ULL % VT_REC_MAX;
    for (size_t i = 0; i < VT_REC_MAX; i++) {
        vt_rec *r = &vt.recs[(h + i) % VT_REC_MAX];
        if (r->key == key)
            return r;
        if (!r->key) {
            if (!create)
                return NULL;
            r->key = key;
            return r;
        }
    }
    abort(); /* more than VT_REC_MAX wrapped objects: a bug in the caller */
}

/* The calling participant while the clock runs, else NULL. */
static vt_part *me_if_on(void) { return gs_vt_on() ? gs_vti_self() : NULL; }

/* ---- conditions ---------------------------------------------------------- */

int gs_vt_cond_wait(pthread_cond_t *cv, pthread_mutex_t *mu)
{
    vt_part *me = me_if_on();
    if (!me)
        return pthread_cond_wait(cv, mu);
    pthread_mutex_lock(&vt.mu);
    if (!on_locked()) {
        pthread_mutex_unlock(&vt.mu);
        return pthread_cond_wait(cv, mu);
    }
    vt_rec *r = gs_vti_rec(cv, 1);
    gs_vti_push(&r->q, me);
    pthread_mutex_unlock(mu);
    gs_vti_block(me);
    gs_vti_remove(&r->q, me); /* still queued: the clock stopped (a spurious wake-up) */
    pthread_mutex_unlock(&vt.mu);
    pthread_mutex_lock(mu);
    return 0;
}

/* The first (all: every) participant waiting on key becomes ready. */
static void wake(const void *key, int all)
{
    pthread_mutex_lock(&vt.mu);
    if (on_locked()) {
        vt_rec *r = gs_vti_rec(key, 0);
        vt_part *p;
        while (r && (p = gs_vti_pop(&r->q))) {
            gs_vti_ready(p);
            if (!all)
                break;
        }
    }
    pthread_mutex_unlock(&vt.mu);
}

void gs_vt_cond_signal(pthread_cond_t *cv)
{
    if (gs_vt_on())
        wake(cv, 0);
    pthread_cond_signal(cv);
}

void gs_vt_cond_broadcast(pthread_cond_t *cv)
{
    if (gs_vt_on())
        wake(cv, 1);
    pthread_cond_broadcast(cv);
}

/* ---- mutexes ------------------------------------------------------------- */

int gs_vt_mutex_lock(pthread_mutex_t *mu)
{
    vt_part *me = me_if_on();
    if (!me) {
        pthread_mutex_lock(mu);
        return 0;
    }
    int waited = 0;
    pthread_mutex_lock(&vt.mu);
    while (on_locked()) {
        vt_rec *r = gs_vti_rec(mu, 1);
        if (pthread_mutex_trylock(mu) == 0) {
            r->holder = me;
            pthread_mutex_unlock(&vt.mu);
            return waited;
        }
        if (!r->holder) {
            waited = 1;
            break; /* held outside the clock: wait for it in real time */
        }
        if (waited)
            gs_vti_push_front(&r->q, me); /* woken, but a running thread took it first */
        else
            gs_vti_push(&r->q, me);
        waited = 1;
        gs_vti_block(me);
        gs_vti_remove(&r->q, me);
    }
    pthread_mutex_unlock(&vt.mu);
    pthread_mutex_lock(mu);
    pthread_mutex_lock(&vt.mu);
    if (on_locked())
        gs_vti_rec(mu, 1)->holder = me;
    pthread_mutex_unlock(&vt.mu);
    return waited;
}

void gs_vt_mutex_unlock(pthread_mutex_t *mu)
{
    vt_part *me = me_if_on();
    if (!me) {
        pthread_mutex_unlock(mu);
        return;
    }
    pthread_mutex_lock(&vt.mu);
    if (on_locked()) {
        vt_rec *r = gs_vti_rec(mu, 0);
        if (r) {
            r->holder = NULL;
            vt_part *p = gs_vti_pop(&r->q);
            if (p)
                gs_vti_ready(p);
        }
    }
    pthread_mutex_unlock(mu);
    pthread_mutex_unlock(&vt.mu);
}
