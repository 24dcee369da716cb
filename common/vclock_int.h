/*
 * The virtual clock's state, shared by its two files: vclock.c (time, the
 * turn, advancing, lifecycle, modelled work) and vclock_wait.c (the
 * wrapped conditions and mutexes).  Not part of the clock's interface:
 * only these two files include it (clock.h is the contract).
 *
 * Every field of gs_vti is guarded by gs_vti.mu unless said otherwise.
 */
#ifndef GS_VCLOCK_INT_H
#define GS_VCLOCK_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "clock.h"

enum { VT_OFF, VT_ON, VT_STOPPED };
enum { W_TIMER, W_CPU };

/* A participant: one per thread taking part in the clock, made by
 * gs_vt_start (its caller) or gs_vt_spawn (claimed by gs_vt_enter), freed
 * by gs_vt_end.  At any moment it is in exactly one place: holding the
 * turn (gs_vti.run), in the ready queue, in one waiter (timer or CPU work), in
 * one object's queue (a wrapped condition or mutex), or gone (exited). */
typedef struct vt_part {
    pthread_cond_t cv;       /* signalled when it is given the turn */
    unsigned id;             /* registration order, from 1 (the starter) */
    struct vt_part *next;    /* link of the queue it is in (ready or an object's) */
    struct vt_part *all;     /* every participant of this clock, for stop and end */
} vt_part;

/* A FIFO of participants linked through next. */
typedef struct vt_queue {
    vt_part *head, *tail;
} vt_queue;

typedef struct vt_waiter {
    int kind;
    int idle;              /* timer that is a poll, not work */
    int64_t wake;          /* timer */
    double rem;            /* CPU: core-ns left */
    int threads, pool;     /* CPU: most threads, pool (-1 none) */
    int cls;               /* CPU: speed class (-1 none) */
    double th, rate, occ;  /* CPU: threads, rate and cores occupied this step */
    double used;           /* CPU: core-ns consumed (its share, whatever its speed) */
    double tsum, tdur;     /* CPU: runnable threads x ns over its run, and the ns */
    vt_part *p;            /* the participant waiting */
    int done;
} vt_waiter;

/* A wrapped condition or mutex, keyed by its address: the participants
 * blocked on it in the order they blocked, and (a mutex) the participant
 * holding it through gs_vt_mutex_lock (NULL: free, or held by a thread
 * outside the clock). */
#define VT_REC_MAX 256
typedef struct vt_rec {
    const void *key;
    vt_queue q;
    vt_part *holder;
} vt_rec;

typedef struct vt_state {
    pthread_mutex_t mu;
    pthread_cond_t cv;       /* spawn/enter hand-over (.pending) */
    gs_vt_cfg cfg;
    vt_part *run;            /* the participant holding the turn; NULL: none */
    vt_queue ready;          /* runnable participants waiting for the turn */
    vt_part *pending;        /* spawned, not entered yet (at most one) */
    vt_part *all;            /* every participant made since start */
    unsigned n_parts;
    int load;                /* gs_vt_load threads */
    vt_waiter **w;           /* timers and CPU work, in start order */
    size_t n, cap;
    vt_rec recs[VT_REC_MAX];
    int stalled;
    double last_busy;
    double runnable;         /* T of the last rates() */
} vt_state;

extern vt_state gs_vti;          /* the clock (one per process) */
extern atomic_int gs_vti_state;  /* VT_OFF / VT_ON / VT_STOPPED; read without the lock */

/* The calling thread's participant (NULL when it is none). */
vt_part *gs_vti_self(void);
/* Caller holds gs_vti.mu.  p becomes runnable: the end of the ready queue; if
 * nobody holds the turn (a wake from outside the clock) it is handed on. */
void gs_vti_ready(vt_part *p);
/* Caller holds gs_vti.mu, the clock is on and me holds the turn, already
 * queued where it waits (a waiter or an object's queue): gives the turn up
 * and waits until it is given back or the clock stops. */
void gs_vti_block(vt_part *me);
/* Caller holds gs_vti.mu.  The record of key (created when create; NULL when
 * absent and !create). */
vt_rec *gs_vti_rec(const void *key, int create);

void gs_vti_push(vt_queue *q, vt_part *p);
void gs_vti_push_front(vt_queue *q, vt_part *p);
vt_part *gs_vti_pop(vt_queue *q);
/* Removes p if it is in q; 1 when it was. */
int gs_vti_remove(vt_queue *q, vt_part *p);

#endif
