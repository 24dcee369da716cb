/*
 * chain3: the async-runtime shape in threads (tokio's): the thread that
 * launches waits on a condition variable (spawn_blocking's pool), woken by
 * a runtime worker that was itself parked (a futex parker, as Rust's
 * std::thread::park) until a finalizer, after its malloc_trim (reached
 * through dlsym), released the async lock and unparked it.  Three threads,
 * none of which blocks on the lock itself.  It knows nothing of gapscope.
 *
 *   chain3 ITERS
 *
 * Ground truth on stdout (CLOCK_MONOTONIC ns): "launcher=TID",
 * "runtime=TID", "finalizer=TID", one "gap START END" per iteration (the
 * launcher's wait), "trim START END" per trim, "wait_ns=TOTAL".
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <linux/futex.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "foreign.h"

/* Rust std's futex parker: EMPTY 0, NOTIFIED 1, PARKED -1. */
static atomic_int parker;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int ready, iters;
static atomic_int phase;   /* iteration whose trim runs, + 1; negative: consumed */
static int (*trim_fn)(size_t);

static void park(void)
{
    if (atomic_fetch_sub(&parker, 1) == 1)
        return;   /* NOTIFIED -> EMPTY */
    for (;;) {
        syscall(SYS_futex, &parker, FUTEX_WAIT_PRIVATE, -1, NULL, NULL, 0);
        int one = 1;
        if (atomic_compare_exchange_strong(&parker, &one, 0))
            return;
    }
}

static void unpark(void)
{
    if (atomic_exchange(&parker, 1) == -1)
        syscall(SYS_futex, &parker, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void *runtime(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "rt-worker");
    printf("runtime=%ld\n", (long)syscall(SYS_gettid));
    for (int it = 0; it < iters; it++) {
        park();                 /* the GPU task waits for the lock: the worker sleeps */
        pthread_mutex_lock(&mu);   /* the task got the lock: spawn_blocking */
        ready = 1;
        pthread_cond_signal(&cv);
        pthread_mutex_unlock(&mu);
    }
    return NULL;
}

static void *finalizer(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "finalizer");
    printf("finalizer=%ld\n", (long)syscall(SYS_gettid));
    enum { N = 48000 };
    void **p = calloc(N, sizeof *p);
    for (int it = 0; it < iters && p; it++) {
        fragment(p, N);
        atomic_store(&phase, it + 1);
        usleep(2000);           /* the launcher starts waiting */
        int64_t a = now_ns();
        trim_fn(0);             /* holding the async lock */
        int64_t b = now_ns();
        unpark();               /* the lock's release wakes the waiting task */
        printf("trim %lld %lld\n", (long long)a, (long long)b);
        for (size_t i = 1; i < N; i += 2)
            free(p[i]);
        await_phase(&phase, -(it + 1));
    }
    free(p);
    return NULL;
}

static void *blocking(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "blocking-0");
    printf("launcher=%ld\n", (long)syscall(SYS_gettid));
    int64_t total = 0;
    for (int it = 0; it < iters; it++) {
        await_phase(&phase, it + 1);
        int64_t a = now_ns();
        pthread_mutex_lock(&mu);
        cond_take(&cv, &mu, &ready);
        pthread_mutex_unlock(&mu);
        int64_t b = now_ns();
        gap_line(a, b, &total);
        atomic_store(&phase, -(it + 1));
    }
    printf("wait_ns=%lld\n", (long long)total);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 2 || (iters = atoi(argv[1])) <= 0) {
        fprintf(stderr, "usage: chain3 ITERS\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    void *h = dlopen("libc.so.6", RTLD_NOW);
    trim_fn = h ? (int (*)(size_t))dlsym(h, "malloc_trim") : NULL;
    if (!trim_fn)
        return 1;
    pthread_t r, f, b;
    pthread_create(&r, NULL, runtime, NULL);
    pthread_create(&f, NULL, finalizer, NULL);
    pthread_create(&b, NULL, blocking, NULL);
    pthread_join(b, NULL);
    pthread_join(f, NULL);
    pthread_join(r, NULL);
    return 0;
}
