/*
 * cond_handoff: a launcher that waits on a condition variable for work a
 * producer computes (the starved-queue shape: nobody holds a lock, the
 * launcher waits for a signal).  It knows nothing of gapscope.
 *
 *   cond_handoff ITERS WORK_MS
 *
 * Thread "worker" (the launcher) asks for an item and waits for it with
 * pthread_cond_wait; thread "producer" computes WORK_MS of host code, then
 * signals.  Ground truth on stdout (CLOCK_MONOTONIC ns): "launcher=TID",
 * "producer=TID", "cond=0xADDR", one "gap START END" per item (the
 * worker's wait), "work START END" per item (the producer's computation),
 * "wait_ns=TOTAL".
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "foreign.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int ready;
static atomic_int want;    /* item the worker asks for, + 1 */
static int iters, work_ms;

static void *producer(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "producer");
    printf("producer=%ld\n", (long)syscall(SYS_gettid));
    volatile uint64_t x = 1;
    for (int it = 0; it < iters; it++) {
        await_phase(&want, it + 1);
        int64_t a = now_ns();
        while (now_ns() - a < (int64_t)work_ms * 1000000)
            for (int k = 0; k < 1000; k++)
                x = x * 6364136223846793005ull + 1442695040888963407ull;
        int64_t b = now_ns();
        pthread_mutex_lock(&mu);
        ready = 1;
        pthread_cond_signal(&cv);
        pthread_mutex_unlock(&mu);
        printf("work %lld %lld\n", (long long)a, (long long)b);
    }
    return NULL;
}

static void *worker(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "worker");
    printf("launcher=%ld\ncond=%p\n", (long)syscall(SYS_gettid), (void *)&cv);
    int64_t total = 0;
    for (int it = 0; it < iters; it++) {
        int64_t a = now_ns();
        pthread_mutex_lock(&mu);
        atomic_store(&want, it + 1);
        cond_take(&cv, &mu, &ready);
        pthread_mutex_unlock(&mu);
        int64_t b = now_ns();
        gap_line(a, b, &total);
        usleep(2000);   /* "launches" between items */
    }
    printf("wait_ns=%lld\n", (long long)total);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 3 || (iters = atoi(argv[1])) <= 0 || (work_ms = atoi(argv[2])) <= 0) {
        fprintf(stderr, "usage: cond_handoff ITERS WORK_MS\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    pthread_t p, w;
    pthread_create(&p, NULL, producer, NULL);
    pthread_create(&w, NULL, worker, NULL);
    pthread_join(w, NULL);
    pthread_join(p, NULL);
    return 0;
}
