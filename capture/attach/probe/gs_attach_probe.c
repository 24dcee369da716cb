/*
 * gs-attach-probe: a small program the attach tests run under
 * `gapscope attach` (it knows nothing of gapscope).  It prints what it did
 * (thread ids, the mutex address) on stdout so a test can check that the
 * capture names exactly those threads and that lock.
 *
 *   gs-attach-probe contend MS   thread "holder" locks a pthread mutex and
 *                                sleeps MS ms holding it; thread "waiter"
 *                                blocks on it; then main fragments the heap
 *                                and calls malloc_trim(0); with NVTX headers
 *                                the waiter's wait is inside the NVTX range
 *                                "probe_wait".
 *   gs-attach-probe block MS     thread "futexer" waits MS ms in FUTEX_WAIT,
 *                                thread "sleeper" in nanosleep, thread
 *                                "spinner" spins, all at once.
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifdef GS_HAVE_NVTX
#include <nvtx3/nvToolsExt.h>
#endif

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static volatile int holding, stop_spin;
static int ms;

static long tid(void)
{
    return (long)syscall(SYS_gettid);
}

static void sleep_ms(int m)
{
    struct timespec ts = {m / 1000, (long)(m % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static void *holder(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "holder");
    pthread_mutex_lock(&mu);
    printf("holder=%ld\n", tid());
    fflush(stdout);
    __atomic_store_n(&holding, 1, __ATOMIC_SEQ_CST);
    sleep_ms(ms);
    pthread_mutex_unlock(&mu);
    return NULL;
}

static void *waiter(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "waiter");
    while (!__atomic_load_n(&holding, __ATOMIC_SEQ_CST))
        sleep_ms(1);
    printf("waiter=%ld\n", tid());
    fflush(stdout);
#ifdef GS_HAVE_NVTX
    nvtxRangePushA("probe_wait");
#endif
    pthread_mutex_lock(&mu);
    pthread_mutex_unlock(&mu);
#ifdef GS_HAVE_NVTX
    nvtxRangePop();
#endif
    return NULL;
}

static uint32_t futex_word;

static void *futexer(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "futexer");
    printf("futexer=%ld\n", tid());
    fflush(stdout);
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    syscall(SYS_futex, &futex_word, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
    return NULL;
}

static void *sleeper(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "sleeper");
    printf("sleeper=%ld\n", tid());
    fflush(stdout);
    sleep_ms(ms);
    return NULL;
}

static void *spinner(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "spinner");
    printf("spinner=%ld\n", tid());
    fflush(stdout);
    volatile uint64_t x = 0;
    while (!__atomic_load_n(&stop_spin, __ATOMIC_SEQ_CST))
        x++;
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 3 || (ms = atoi(argv[2])) <= 0) {
        fprintf(stderr, "usage: gs-attach-probe contend|block MS\n");
        return 2;
    }
    pthread_t a, b, c;
    if (!strcmp(argv[1], "contend")) {
        printf("mutex=%p\n", (void *)&mu);
        pthread_create(&a, NULL, holder, NULL);
        pthread_create(&b, NULL, waiter, NULL);
        pthread_join(a, NULL);
        pthread_join(b, NULL);
        /* Fragment the heap so malloc_trim has work: free every other block. */
        enum { N = 20000 };
        static void *blk[N];
        for (int i = 0; i < N; i++)
            blk[i] = malloc(4096);
        for (int i = 0; i < N; i += 2)
            free(blk[i]);
        printf("trimmer=%ld\n", tid());
        fflush(stdout);
        malloc_trim(0);
        for (int i = 1; i < N; i += 2)
            free(blk[i]);
        return 0;
    }
    if (!strcmp(argv[1], "block")) {
        pthread_create(&a, NULL, futexer, NULL);
        pthread_create(&b, NULL, sleeper, NULL);
        pthread_create(&c, NULL, spinner, NULL);
        pthread_join(a, NULL);
        pthread_join(b, NULL);
        __atomic_store_n(&stop_spin, 1, __ATOMIC_SEQ_CST);
        pthread_join(c, NULL);
        return 0;
    }
    fprintf(stderr, "gs-attach-probe: unknown mode %s\n", argv[1]);
    return 2;
}
