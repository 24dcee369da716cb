/*
 * stress: programs that are hard on an interposer, for the "attach never
 * harms the program it watches" tests.  Each mode prints a deterministic
 * transcript and ends with a deterministic exit code; the tests compare
 * both with and without `gapscope attach`.
 *
 *   stress fork N      N fork+exec of /bin/sh (exit 3 each) and posix_spawn
 *                      of /bin/true; exit 0
 *   stress threads N   N short-lived threads (in waves of 64), each taking a
 *                      contended mutex, signalling a condvar, posting and
 *                      waiting a semaphore, waking a raw futex; exit 0
 *   stress signals     the program's own SIGINT/SIGTERM/SIGCHLD handlers
 *                      (SIGCHLD's posts a semaphore from the handler) while
 *                      a thread waits on a condvar with a timeout; exit 42
 *   stress crash       prints, then dereferences NULL (SIGSEGV)
 *   stress abort       prints, then abort() (SIGABRT)
 *   stress exit        prints with write(2) then _exit(5) (stdio unflushed
 *                      on purpose: lost with or without attach)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static sem_t sem;
static atomic_int word, done_count;
static long counter;

static int do_fork(int n)
{
    int ok = 0;
    for (int i = 0; i < n; i++) {
        pid_t p = fork();
        if (p == 0) {
            char arg[32];
            snprintf(arg, sizeof arg, "%d", i);
            execl("/bin/sh", "sh", "-c", "exit 3", arg, (char *)NULL);
            _exit(127);
        }
        int st = 0;
        if (p > 0 && waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 3)
            ok++;
        pid_t q;
        char *argv[] = {"true", NULL};
        if (posix_spawn(&q, "/bin/true", NULL, NULL, argv, environ) == 0 &&
            waitpid(q, &st, 0) == q && WIFEXITED(st) && WEXITSTATUS(st) == 0)
            ok++;
    }
    printf("fork: %d of %d children as expected\n", ok, 2 * n);
    return 0;
}

static void *short_thread(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&mu);
    counter++;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
    sem_post(&sem);
    sem_wait(&sem);
    atomic_fetch_add(&word, 1);
    syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    atomic_fetch_add(&done_count, 1);
    return NULL;
}

static int do_threads(int n)
{
    sem_init(&sem, 0, 0);
    for (int i = 0; i < n; i += 64) {
        pthread_t t[64];
        int k = n - i < 64 ? n - i : 64, made = 0;
        for (int j = 0; j < k; j++)
            made += pthread_create(&t[j], NULL, short_thread, NULL) == 0 ? 1 : 0;
        for (int j = 0; j < made; j++)
            pthread_join(t[j], NULL);
    }
    printf("threads: %d ran, counter %ld\n", atomic_load(&done_count), counter);
    return 0;
}

static volatile sig_atomic_t got_int, got_term, got_chld;

static void on_sig(int sig)
{
    static const char msg[] = "handler\n";
    if (sig == SIGINT)
        got_int++;
    else if (sig == SIGTERM)
        got_term++;
    else if (sig == SIGCHLD) {
        got_chld++;
        sem_post(&sem);   /* async-signal-safe, and interposed */
    }
    if (write(1, msg, sizeof msg - 1) < 0)
        _exit(99);
}

static void *timed_waiter(void *arg)
{
    (void)arg;
    struct timespec ts;
    pthread_mutex_lock(&mu);
    for (int i = 0; i < 20; i++) {
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 5000000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&cv, &mu, &ts);
    }
    pthread_mutex_unlock(&mu);
    return NULL;
}

static int do_signals(void)
{
    sem_init(&sem, 0, 0);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sig;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGCHLD, &sa, NULL);
    pthread_t t;
    pthread_create(&t, NULL, timed_waiter, NULL);
    raise(SIGINT);
    kill(getpid(), SIGTERM);
    for (int i = 0; i < 5; i++) {
        pid_t p = fork();
        if (p == 0)
            _exit(7);
        while (sem_wait(&sem) != 0 && errno == EINTR)
            ;
        int st;
        while (waitpid(p, &st, 0) < 0 && errno == EINTR)
            ;
    }
    pthread_join(t, NULL);
    printf("signals: int %d term %d chld %d\n", (int)got_int, (int)got_term, (int)got_chld);
    return 42;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *m = argc > 1 ? argv[1] : "";
    int n = argc > 2 ? atoi(argv[2]) : 0;
    if (!strcmp(m, "fork") && n > 0)
        return do_fork(n);
    if (!strcmp(m, "threads") && n > 0)
        return do_threads(n);
    if (!strcmp(m, "signals"))
        return do_signals();
    if (!strcmp(m, "crash")) {
        printf("about to crash\n");
        volatile int *p = NULL;
        *p = 1;
        return 0;
    }
    if (!strcmp(m, "abort")) {
        printf("about to abort\n");
        abort();
    }
    if (!strcmp(m, "exit")) {
        static const char msg[] = "bye\n";
        printf("lost in the stdio buffer");   /* no newline: still buffered at _exit */
        if (write(1, msg, sizeof msg - 1) < 0)
            return 1;
        _exit(5);
    }
    fprintf(stderr, "usage: stress fork N | threads N | signals | crash | abort | exit\n");
    return 2;
}
