/*
 * wait_pingpong: the wait-heavy program of the attach overhead benchmark
 * (bench/RESULTS.md, "attach: interposed waits and wakes").  Two threads
 * hand a token back and forth N times, every hand-off a real block and
 * wake: "futex" through libc's syscall() (what Rust's std and parking_lot
 * do), "cond" through a pthread condition variable.  Each round trip is
 * two waits and two wakes.  Prints the round trips per second.  Two
 * single-thread modes time one call without the scheduler in the way:
 * "record" (FUTEX_WAIT_BITSET with an absolute deadline already past:
 * returns ETIMEDOUT at once, and attach records every one as a B record) and "pass" (FUTEX_WAKE
 * with nobody waiting: attach forwards it and records nothing).
 *
 *   wait_pingpong futex|cond|record|pass N
 *
 * Build: make BUILD=build-cpu build-cpu/bench-tools/wait_pingpong
 * Run:   hyperfine 'B/bench-tools/wait_pingpong futex 200000' \
 *          'B/gapscope attach --quiet --no-report --hz 0 --out /tmp/pp -- B/bench-tools/wait_pingpong futex 200000'
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static atomic_int turn;   /* whose turn: 0 or 1 */
static long rounds;
static int use_cond;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

static void wait_turn(int me)
{
    if (use_cond) {
        pthread_mutex_lock(&mu);
        while (atomic_load(&turn) != me)
            pthread_cond_wait(&cv, &mu);
        pthread_mutex_unlock(&mu);
        return;
    }
    int t;
    while ((t = atomic_load(&turn)) != me)
        syscall(SYS_futex, &turn, FUTEX_WAIT_PRIVATE, t, NULL, NULL, 0);
}

static void give_turn(int other)
{
    if (use_cond) {
        pthread_mutex_lock(&mu);
        atomic_store(&turn, other);
        pthread_cond_signal(&cv);
        pthread_mutex_unlock(&mu);
        return;
    }
    atomic_store(&turn, other);
    syscall(SYS_futex, &turn, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void *player(void *arg)
{
    int me = (int)(long)arg;
    for (long i = 0; i < rounds; i++) {
        wait_turn(me);
        give_turn(1 - me);
    }
    return NULL;
}

static double secs(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) * 1e-9;
}

/* One thread, n futex calls that return at once. */
static int single(const char *mode, long n)
{
    struct timespec past = {0, 1}, a, b, ca, cb;
    int wait = !strcmp(mode, "record");
    clock_gettime(CLOCK_MONOTONIC, &a);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ca);
    for (long i = 0; i < n; i++) {
        if (wait)
            syscall(SYS_futex, &turn, FUTEX_WAIT_BITSET_PRIVATE, 0, &past, NULL,
                    FUTEX_BITSET_MATCH_ANY);
        else
            syscall(SYS_futex, &turn, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    }
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cb);
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("%s: %ld calls: %.0f ns/call wall, %.0f ns/call CPU\n", mode, n, secs(&a, &b) * 1e9 / n,
           secs(&ca, &cb) * 1e9 / n);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "futex") && strcmp(argv[1], "cond") &&
                      strcmp(argv[1], "record") && strcmp(argv[1], "pass")) ||
        (rounds = atol(argv[2])) <= 0) {
        fprintf(stderr, "usage: wait_pingpong futex|cond|record|pass N\n");
        return 2;
    }
    if (!strcmp(argv[1], "record") || !strcmp(argv[1], "pass"))
        return single(argv[1], rounds);
    use_cond = !strcmp(argv[1], "cond");
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    pthread_t t0, t1;
    pthread_create(&t0, NULL, player, (void *)0L);
    pthread_create(&t1, NULL, player, (void *)1L);
    pthread_join(t0, NULL);
    pthread_join(t1, NULL);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double s = secs(&a, &b);
    printf("%s: %ld round trips in %.3f s: %.0f round trips/s\n", argv[1], rounds, s, rounds / s);
    return 0;
}
