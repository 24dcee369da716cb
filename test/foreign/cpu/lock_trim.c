/*
 * lock_trim: a raw-futex lock held across malloc_trim(0), the shape of a
 * Rust prover's tracker (std::sync::Mutex and parking_lot are futexes
 * driven through libc's syscall()).  It knows nothing of gapscope.
 *
 *   lock_trim direct|dlsym ITERS
 *   lock_trim madvise ITERS MIB
 *
 * Thread "finalizer" fragments a heap, takes the lock and calls
 * malloc_trim(0) holding it, ITERS times; thread "worker" (the launcher:
 * its next step would launch GPU work) asks for the lock while the trim
 * runs.  dlsym: malloc_trim is reached through dlsym(dlopen("libc.so.6"))
 * as Python's ctypes and crates binding libc at run time do, so LD_PRELOAD
 * cannot see it.  madvise: no malloc_trim at all; holding the lock, the
 * finalizer returns MIB MiB it touched to the kernel 1 MiB per
 * madvise(MADV_DONTNEED) (an allocator's purge no interposer sees).
 *
 * Ground truth on stdout (CLOCK_MONOTONIC ns): "launcher=TID",
 * "holder=TID", "lock=0xADDR", one "gap START END" per iteration (the
 * worker's lock call: START just before, END just after it got the lock),
 * "trim START END" per trim or "release START END" per release, and
 * "wait_ns=TOTAL".
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
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "foreign.h"

static atomic_int lock_word;   /* 0 free, 1 locked, 2 locked with waiters */
static atomic_int phase;       /* iteration the finalizer holds the lock in, + 1 */
static int iters;
static size_t release_bytes;   /* madvise mode: bytes released per iteration, else 0 */
static int (*trim_fn)(size_t);

/* madvise mode's holder: touch, lock, release 1 MiB per call. */
static void *purger(void)
{
    char *m = mmap(NULL, release_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        exit(1);
    for (int it = 0; it < iters; it++) {
        memset(m, it + 1, release_bytes);
        futex_lock(&lock_word);
        atomic_store(&phase, it + 1);
        usleep(3000);   /* the worker starts waiting */
        int64_t a = now_ns();
        for (size_t off = 0; off < release_bytes; off += 1 << 20)
            madvise(m + off, 1 << 20, MADV_DONTNEED);
        int64_t b = now_ns();
        futex_unlock(&lock_word);
        printf("release %lld %lld\n", (long long)a, (long long)b);
        await_phase(&phase, -(it + 1));
    }
    munmap(m, release_bytes);
    return NULL;
}

static void *finalizer(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "finalizer");
    printf("holder=%ld\n", (long)syscall(SYS_gettid));
    if (release_bytes)
        return purger();
    enum { N = 48000 };
    void **p = calloc(N, sizeof *p);
    for (int it = 0; it < iters && p; it++) {
        fragment(p, N);
        futex_lock(&lock_word);
        atomic_store(&phase, it + 1);
        int64_t a = now_ns();
        trim_fn(0);
        int64_t b = now_ns();
        futex_unlock(&lock_word);
        printf("trim %lld %lld\n", (long long)a, (long long)b);
        for (size_t i = 1; i < N; i += 2)
            free(p[i]);
        await_phase(&phase, -(it + 1));   /* the worker took its turn */
    }
    free(p);
    return NULL;
}

static void *worker(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "worker");
    printf("launcher=%ld\nlock=%p\n", (long)syscall(SYS_gettid), (void *)&lock_word);
    int64_t total = 0;
    for (int it = 0; it < iters; it++) {
        await_phase(&phase, it + 1);
        int64_t a = now_ns();
        futex_lock(&lock_word);
        int64_t b = now_ns();
        futex_unlock(&lock_word);
        gap_line(a, b, &total);
        atomic_store(&phase, -(it + 1));
    }
    printf("wait_ns=%lld\n", (long long)total);
    return NULL;
}

int main(int argc, char **argv)
{
    int madv = argc == 4 && !strcmp(argv[1], "madvise");
    if ((argc != 3 && !madv) ||
        (strcmp(argv[1], "direct") && strcmp(argv[1], "dlsym") && !madv) ||
        (iters = atoi(argv[2])) <= 0 || (madv && atoi(argv[3]) <= 0)) {
        fprintf(stderr, "usage: lock_trim direct|dlsym ITERS | lock_trim madvise ITERS MIB\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (madv)
        release_bytes = (size_t)atoi(argv[3]) << 20;
    trim_fn = malloc_trim;
    if (!strcmp(argv[1], "dlsym")) {
        void *h = dlopen("libc.so.6", RTLD_NOW);
        trim_fn = h ? (int (*)(size_t))dlsym(h, "malloc_trim") : NULL;
        if (!trim_fn) {
            fprintf(stderr, "lock_trim: no malloc_trim in libc.so.6\n");
            return 1;
        }
    }
    pthread_t f, w;
    pthread_create(&f, NULL, finalizer, NULL);
    pthread_create(&w, NULL, worker, NULL);
    pthread_join(w, NULL);
    pthread_join(f, NULL);
    return 0;
}
