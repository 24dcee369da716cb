/*
 * lock_trim: a raw-futex lock held across malloc_trim(0), the shape of a
 * Rust prover's tracker (std::sync::Mutex and parking_lot are futexes
 * driven through libc's syscall()).  It knows nothing of gapscope.
 *
 *   lock_trim direct|dlsym ITERS
 *
 * Thread "finalizer" fragments a heap, takes the lock and calls
 * malloc_trim(0) holding it, ITERS times; thread "worker" (the launcher:
 * its next step would launch GPU work) asks for the lock while the trim
 * runs.  dlsym: malloc_trim is reached through dlsym(dlopen("libc.so.6"))
 * as Python's ctypes and crates binding libc at run time do, so LD_PRELOAD
 * cannot see it.
 *
 * Ground truth on stdout (CLOCK_MONOTONIC ns): "launcher=TID",
 * "holder=TID", "lock=0xADDR", one "gap START END" per iteration (the
 * worker's lock call: START just before, END just after it got the lock),
 * "trim START END" per trim, and "wait_ns=TOTAL".
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

static atomic_int lock_word;   /* 0 free, 1 locked, 2 locked with waiters */
static atomic_int phase;       /* iteration the finalizer holds the lock in, + 1 */
static int iters, use_dlsym;
static int (*trim_fn)(size_t);

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Drepper's futex mutex ("Futexes are tricky", mutex 2). */
static void lock(void)
{
    int c = 0;
    if (atomic_compare_exchange_strong(&lock_word, &c, 1))
        return;
    if (c != 2)
        c = atomic_exchange(&lock_word, 2);
    while (c != 0) {
        syscall(SYS_futex, &lock_word, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
        c = atomic_exchange(&lock_word, 2);
    }
}

static void unlock(void)
{
    if (atomic_exchange(&lock_word, 0) == 2)
        syscall(SYS_futex, &lock_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void fragment(void **p, size_t n)
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

static void *finalizer(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "finalizer");
    printf("holder=%ld\n", (long)syscall(SYS_gettid));
    enum { N = 48000 };
    void **p = calloc(N, sizeof *p);
    for (int it = 0; it < iters && p; it++) {
        fragment(p, N);
        lock();
        atomic_store(&phase, it + 1);
        int64_t a = now_ns();
        trim_fn(0);
        int64_t b = now_ns();
        unlock();
        printf("trim %lld %lld\n", (long long)a, (long long)b);
        for (size_t i = 1; i < N; i += 2)
            free(p[i]);
        while (atomic_load(&phase) != -(it + 1))   /* the worker took its turn */
            usleep(200);
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
        while (atomic_load(&phase) != it + 1)
            usleep(100);
        int64_t a = now_ns();
        lock();
        int64_t b = now_ns();
        unlock();
        printf("gap %lld %lld\n", (long long)a, (long long)b);
        total += b - a;
        atomic_store(&phase, -(it + 1));
    }
    printf("wait_ns=%lld\n", (long long)total);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "direct") && strcmp(argv[1], "dlsym")) ||
        (iters = atoi(argv[2])) <= 0) {
        fprintf(stderr, "usage: lock_trim direct|dlsym ITERS\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    use_dlsym = !strcmp(argv[1], "dlsym");
    trim_fn = malloc_trim;
    if (use_dlsym) {
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
