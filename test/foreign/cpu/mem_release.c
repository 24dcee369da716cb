/*
 * mem_release: a raw-futex lock held while memory goes back to the kernel
 * by madvise(MADV_DONTNEED) in a loop (an allocator's purge, a trim no
 * interposer sees): no malloc_trim call anywhere.  It knows nothing of
 * gapscope.
 *
 *   mem_release ITERS MIB
 *
 * Thread "purger" touches MIB MiB, takes the lock and releases them 1 MiB
 * per madvise call; thread "worker" (the launcher) asks for the lock
 * meanwhile.  Ground truth on stdout (CLOCK_MONOTONIC ns):
 * "launcher=TID", "holder=TID", one "gap START END" per iteration,
 * "release START END" per release, "wait_ns=TOTAL".
 */
#define _GNU_SOURCE
#include <linux/futex.h>
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

static atomic_int lock_word, phase;
static int iters;
static size_t bytes;

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

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

static void *purger(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "purger");
    printf("holder=%ld\n", (long)syscall(SYS_gettid));
    char *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        exit(1);
    for (int it = 0; it < iters; it++) {
        memset(m, it + 1, bytes);
        lock();
        atomic_store(&phase, it + 1);
        usleep(3000);   /* the worker starts waiting */
        int64_t a = now_ns();
        for (size_t off = 0; off < bytes; off += 1 << 20)
            madvise(m + off, 1 << 20, MADV_DONTNEED);
        int64_t b = now_ns();
        unlock();
        printf("release %lld %lld\n", (long long)a, (long long)b);
        while (atomic_load(&phase) != -(it + 1))
            usleep(200);
    }
    munmap(m, bytes);
    return NULL;
}

static void *worker(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "worker");
    printf("launcher=%ld\n", (long)syscall(SYS_gettid));
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
    int mib;
    if (argc != 3 || (iters = atoi(argv[1])) <= 0 || (mib = atoi(argv[2])) <= 0) {
        fprintf(stderr, "usage: mem_release ITERS MIB\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    bytes = (size_t)mib << 20;
    pthread_t p, w;
    pthread_create(&p, NULL, purger, NULL);
    pthread_create(&w, NULL, worker, NULL);
    pthread_join(w, NULL);
    pthread_join(p, NULL);
    return 0;
}
