/*
 * What the CPU-only foreign programs share (each is still one standalone
 * program that knows nothing of gapscope): the clock their ground truth is
 * printed in, and a raw futex mutex as Rust's std::sync::Mutex and glibc's
 * low-level lock build it (Drepper, "Futexes are tricky", mutex 2: 0 free,
 * 1 locked, 2 locked with waiters), driven through libc's syscall(); a
 * condition variable's hand-off; the ground-truth lines of the launcher's
 * waits.
 */
#ifndef GS_FOREIGN_CPU_H
#define GS_FOREIGN_CPU_H

#include <linux/futex.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* CLOCK_MONOTONIC in ns, the time base of gapscope's timelines. */
static inline int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline void futex_lock(atomic_int *w)
{
    int c = 0;
    if (atomic_compare_exchange_strong(w, &c, 1))
        return;
    if (c != 2)
        c = atomic_exchange(w, 2);
    while (c != 0) {
        syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
        c = atomic_exchange(w, 2);
    }
}

static inline void futex_unlock(atomic_int *w)
{
    if (atomic_exchange(w, 0) == 2)
        syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* With mu held: waits on cv until *ready, and takes it (*ready = 0). */
static inline void cond_take(pthread_cond_t *cv, pthread_mutex_t *mu, int *ready)
{
    while (!*ready)
        pthread_cond_wait(cv, mu);
    *ready = 0;
}

/* One wait of the launcher, [a, b) ns: its "gap A B" ground-truth line,
 * and its length added to *total (the "wait_ns=" line at the end). */
static inline void gap_line(int64_t a, int64_t b, int64_t *total)
{
    printf("gap %lld %lld\n", (long long)a, (long long)b);
    *total += b - a;
}

/* Waits (polling) until *phase == want: the programs' turn-taking. */
static inline void await_phase(atomic_int *phase, int want)
{
    while (atomic_load(phase) != want)
        usleep(100);
}

/* Fills p[0..n) with blocks of 4096..4480 bytes and frees every other
 * one: a heap malloc_trim must walk and madvise page by page. */
static inline void fragment(void **p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        p[i] = malloc(4096 + 64 * (i % 7));
        if (p[i])
            memset(p[i], 1, 64);
    }
    for (size_t i = 0; i < n; i += 2) {
        free(p[i]);
        p[i] = NULL;
    }
}

#endif
