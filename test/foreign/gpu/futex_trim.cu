/*
 * futex_trim: a GPU worker whose tracker lock is a raw futex (as Rust's
 * std::sync::Mutex, parking_lot and tokio's parking are: no pthread call),
 * held by a finalizer thread across malloc_trim(0) on a fragmented heap.
 * Issue 30's first row: attach said blocked_futex 97%, queue_empty, no
 * holder; the truth is a lock wait whose holder is inside malloc_trim.
 *
 *   futex_trim [--cpu-only] [--iters N] [--kernel-ms K] [--frag-mib M]
 *
 * Threads:
 *   main "gpu-worker"  per iteration: launch a K ms kernel,
 *                      cudaDeviceSynchronize (the GPU is idle from here),
 *                      take the tracker lock (status check / mark busy: the
 *                      wait is timed), release it, next iteration;
 *   "finalizer"        dirties the fragmented heap's free half (outside the
 *                      lock), takes the lock, and once the worker waits for
 *                      it (the lock word says so: while the kernel runs,
 *                      the finalizer just holds it), calls malloc_trim(0)
 *                      holding it (timed), releases it.  So each of the
 *                      worker's waits is one trim (+ <= 50 us of polling),
 *                      whatever the trim, kernel and dirtying times; when
 *                      dirtying outlasts a kernel the worker finds the lock
 *                      free for that iteration (no wait, nothing idle).
 * Ground truth (stdout, last line): GROUND_TRUTH {"program":"futex_trim",
 * "wait_s": the worker's total time inside lock() (the GPU's idle time
 * between kernels, less a few microseconds per iteration), "trim_s": the
 * finalizer's total malloc_trim time, "gpu_idle_host_s": the worker's time
 * from each synchronize's return to its next launch, "iters", tids, and
 * "expect_family":"tracker_lock", "expect_holder":"malloc_trim"}.
 */
#include <linux/futex.h>
#include <malloc.h>
#include <pthread.h>
#include <sys/syscall.h>

#include "gpu_common.cuh"

static int lock_word;   /* 0 free, 1 locked, 2 locked with waiters */
static int stop;
static double trim_s;
static long trim_tid;
static int n_trims;
static frag heap;

/* Drepper's futex mutex ("Futexes are tricky", mutex 2), as Rust's std
 * Mutex does it: FUTEX_WAIT/FUTEX_WAKE through syscall(). */
static void lock(void)
{
    int c = 0;
    if (__atomic_compare_exchange_n(&lock_word, &c, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        return;
    if (c != 2)
        c = __atomic_exchange_n(&lock_word, 2, __ATOMIC_ACQUIRE);
    while (c != 0) {
        syscall(SYS_futex, &lock_word, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
        c = __atomic_exchange_n(&lock_word, 2, __ATOMIC_ACQUIRE);
    }
}

static void unlock(void)
{
    if (__atomic_exchange_n(&lock_word, 0, __ATOMIC_RELEASE) == 2)
        syscall(SYS_futex, &lock_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static int load(int *v) { return __atomic_load_n(v, __ATOMIC_ACQUIRE); }

static void *finalizer(void *arg)
{
    (void)arg;
    struct timespec poll = {0, 50000};
    pthread_setname_np(pthread_self(), "finalizer");
    trim_tid = (long)syscall(SYS_gettid);
    while (!load(&stop)) {
        frag_dirty(&heap);
        lock();
        while (load(&lock_word) != 2 && !load(&stop))
            nanosleep(&poll, NULL);
        if (load(&lock_word) == 2) {
            int64_t a = now_ns();
            malloc_trim(0);
            int64_t b = now_ns();
            trim_s += (double)(b - a) * 1e-9;
            n_trims++;
        }
        unlock();
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int cpu = opt_flag(argc, argv, "--cpu-only");
    int iters = (int)opt_num(argc, argv, "--iters", 60);
    double kernel_ms = opt_num(argc, argv, "--kernel-ms", 40);
    double mib = opt_num(argc, argv, "--frag-mib", 256);
    pthread_setname_np(pthread_self(), "gpu-worker");
    gpu_init(cpu);
    frag_init(&heap, mib);
    pthread_t th;
    if (pthread_create(&th, NULL, finalizer, NULL)) {
        fprintf(stderr, "futex_trim: pthread_create failed\n");
        return 1;
    }
    double wait_s = 0, idle_s = 0;
    int64_t t_sync = 0, t0 = now_ns();
    for (int i = 1; i <= iters; i++) {
        int64_t t_launch = now_ns();
        if (t_sync)
            idle_s += (double)(t_launch - t_sync) * 1e-9;
        gpu_work(kernel_ms, cpu);
        gpu_sync(cpu);
        t_sync = now_ns();
        lock();
        wait_s += (double)(now_ns() - t_sync) * 1e-9;
        unlock();
    }
    int64_t t1 = now_ns();
    __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
    pthread_join(th, NULL);
    printf("futex_trim: %d iterations in %.2f s: worker waited %.3f s for the lock, "
           "finalizer trimmed %.3f s in %d trims\n", iters, (double)(t1 - t0) * 1e-9, wait_s,
           trim_s, n_trims);
    gt_begin("futex_trim", cpu);
    gt_int("iters", iters);
    gt_num("wait_s", wait_s);
    gt_num("trim_s", trim_s);
    gt_int("trims", n_trims);
    gt_num("gpu_idle_host_s", idle_s);
    gt_num("wall_s", (double)(t1 - t0) * 1e-9);
    gt_int("launcher_tid", (long long)syscall(SYS_gettid));
    gt_int("holder_tid", trim_tid);
    gt_str("expect_family", "tracker_lock");
    gt_str("expect_holder", "malloc_trim");
    gt_end();
    return 0;
}
