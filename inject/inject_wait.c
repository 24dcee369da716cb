/*
 * libgsattach.so: interposed waits and wakes (B and U records,
 * capture/attach/attach.h), so that a wait and the wake that ended it pair
 * up by address into waiter -> waker in the converter.
 *
 * What user space blocks in, beside the pthread mutexes of inject_host.c:
 *   - the libc syscall() wrapper with SYS_futex: Rust's std::sync::Mutex,
 *     Condvar and thread parking, parking_lot and tokio's parkers all call
 *     it.  Wait operations (WAIT, WAIT_BITSET, LOCK_PI, LOCK_PI2,
 *     WAIT_REQUEUE_PI) that blocked are written as B records; wake
 *     operations that woke at least one thread as U records with the futex
 *     word read right after the wake (a lock's release leaves it 0, an
 *     event's counter or flag does not: the converter tells locks from
 *     events by it).  Futex calls glibc makes internally do not pass
 *     through syscall() and are seen by the /proc sampler instead.
 *   - pthread_cond_wait/timedwait/clockwait, signal/broadcast;
 *   - pthread_rwlock_rdlock/wrlock (and timed/clock forms), unlock;
 *   - sem_wait/timedwait/clockwait, sem_post.
 * Lock-like calls try first (trylock, sem_trywait) and time only a call
 * that must block.  A wake of a cond, rwlock or semaphore is written only
 * while some thread is inside an interposed wait on an address of the
 * same slot of a small table of waiting counts (false positives cost a
 * record, never a missed wake of a waiter we timed).
 *
 * CPython's GIL: a condition-variable wait whose caller lies in an object
 * named *python* (libpython3.x.so or a python executable) and whose
 * condvar lies inside the exported object _PyRuntime (its extent from
 * dladdr1 with RTLD_DL_SYMENT) is a GIL wait (kind "gil"), as are the
 * signals on that condvar (the GIL's releases).  Both answers are cached
 * (by caller address, and _PyRuntime's range once found): no Python-level
 * hook is used.
 *
 * Every wrapper restores errno, forwards when the library is off, and
 * records nothing while its own thread is inside the writer (a signal
 * handler interrupting an append).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <linux/futex.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "inject.h"

enum { K_FUTEX, K_COND, K_GIL, K_RWLOCK, K_SEM };
static const char *const kind_name[] = {"futex", "cond", "gil", "rwlock", "sem"};

/* ---- real functions ----------------------------------------------------------- */

#define REAL(type, name, ...)                                                         \
    static type(*real_##name)(__VA_ARGS__);                                           \
    static type(*get_##name(void))(__VA_ARGS__)                                       \
    {                                                                                 \
        if (!__atomic_load_n(&real_##name, __ATOMIC_ACQUIRE))                         \
            __atomic_store_n(&real_##name, (type(*)(__VA_ARGS__))dlsym(RTLD_NEXT, #name), \
                             __ATOMIC_RELEASE);                                       \
        return real_##name;                                                           \
    }

REAL(long, syscall, long, ...)
REAL(int, pthread_cond_wait, pthread_cond_t *, pthread_mutex_t *)
REAL(int, pthread_cond_timedwait, pthread_cond_t *, pthread_mutex_t *, const struct timespec *)
REAL(int, pthread_cond_clockwait, pthread_cond_t *, pthread_mutex_t *, clockid_t,
     const struct timespec *)
REAL(int, pthread_cond_signal, pthread_cond_t *)
REAL(int, pthread_cond_broadcast, pthread_cond_t *)
REAL(int, pthread_rwlock_rdlock, pthread_rwlock_t *)
REAL(int, pthread_rwlock_wrlock, pthread_rwlock_t *)
REAL(int, pthread_rwlock_tryrdlock, pthread_rwlock_t *)
REAL(int, pthread_rwlock_trywrlock, pthread_rwlock_t *)
REAL(int, pthread_rwlock_timedrdlock, pthread_rwlock_t *, const struct timespec *)
REAL(int, pthread_rwlock_timedwrlock, pthread_rwlock_t *, const struct timespec *)
REAL(int, pthread_rwlock_clockrdlock, pthread_rwlock_t *, clockid_t, const struct timespec *)
REAL(int, pthread_rwlock_clockwrlock, pthread_rwlock_t *, clockid_t, const struct timespec *)
REAL(int, pthread_rwlock_unlock, pthread_rwlock_t *)
REAL(int, sem_wait, sem_t *)
REAL(int, sem_trywait, sem_t *)
REAL(int, sem_timedwait, sem_t *, const struct timespec *)
REAL(int, sem_clockwait, sem_t *, clockid_t, const struct timespec *)
REAL(int, sem_post, sem_t *)

/* ---- waiting counts and records ----------------------------------------------- */

#define WAITERS 4096
static atomic_uint g_waiting[WAITERS];

static size_t slot(const void *a)
{
    uint64_t x = (uint64_t)(uintptr_t)a * 0x9e3779b97f4a7c15ull;
    return (size_t)(x >> 52) & (WAITERS - 1);
}

void gsi_wait_fork_child(void)
{
    for (size_t i = 0; i < WAITERS; i++)
        atomic_store_explicit(&g_waiting[i], 0, memory_order_relaxed);
}

static int recording(void)
{
    return gsi_enabled() && !gsi_busy();
}

static void wait_begin(const void *a)
{
    atomic_fetch_add_explicit(&g_waiting[slot(a)], 1, memory_order_relaxed);
}

static void wait_end(const void *a)
{
    atomic_fetch_sub_explicit(&g_waiting[slot(a)], 1, memory_order_relaxed);
}

static int has_waiters(const void *a)
{
    return atomic_load_explicit(&g_waiting[slot(a)], memory_order_relaxed) != 0;
}

static void emit_wait(int kind, const void *a, uint64_t t0, uint64_t t1, int result)
{
    uint32_t st = t1 - t0 >= gsi_stack_min_ns() ? gsi_stack_id() : 0;
    gsi_emit("B %llu %llu %u %s 0x%lx %d %u", (unsigned long long)t0, (unsigned long long)t1,
             gsi_tid(), kind_name[kind], (unsigned long)(uintptr_t)a, result, st);
}

/* Wake stacks: at most one per thread every 10 ms. */
static __thread uint64_t t_wake_stack_ns;

static void emit_wake(int kind, const void *a, uint64_t t, long woken, long long word)
{
    uint32_t st = 0;
    /* No stack for sem_post: it is async-signal-safe, so a signal handler
     * may call it, and backtrace is not (the unwinder takes the loader's
     * lock, which the interrupted code may hold). */
    if (kind != K_SEM && t - t_wake_stack_ns >= 10000000ull) {
        st = gsi_stack_id();
        t_wake_stack_ns = t;
    }
    gsi_emit("U %llu %u %s 0x%lx %ld %lld %u", (unsigned long long)t, gsi_tid(), kind_name[kind],
             (unsigned long)(uintptr_t)a, woken, word, st);
}

/* ---- CPython's GIL -------------------------------------------------------------- */

#define CALLERS 256
static struct {
    uintptr_t pc;
    int py;
} g_callers[CALLERS];
static uintptr_t g_pyrt_lo, g_pyrt_hi;   /* _PyRuntime, once found */

static int caller_in_python(void *caller)
{
    uintptr_t pc = (uintptr_t)caller;
    size_t i = (size_t)((pc * 0x9e3779b97f4a7c15ull) >> 56) & (CALLERS - 1);
    if (__atomic_load_n(&g_callers[i].pc, __ATOMIC_ACQUIRE) == pc)
        return g_callers[i].py;
    Dl_info di;
    int py = 0;
    if (dladdr((void *)(pc - 1), &di) && di.dli_fname) {
        const char *b = strrchr(di.dli_fname, '/');
        py = strstr(b ? b + 1 : di.dli_fname, "python") != NULL;
    }
    g_callers[i].py = py;
    __atomic_store_n(&g_callers[i].pc, pc, __ATOMIC_RELEASE);
    return py;
}

static int in_pyruntime(const void *c)
{
    uintptr_t a = (uintptr_t)c;
    if (g_pyrt_hi)
        return a >= g_pyrt_lo && a < g_pyrt_hi;
    Dl_info di;
    const ElfW(Sym) *sym = NULL;
    if (dladdr1(c, &di, (void **)&sym, RTLD_DL_SYMENT) && di.dli_sname && sym &&
        !strcmp(di.dli_sname, "_PyRuntime") && a - (uintptr_t)di.dli_saddr < sym->st_size) {
        g_pyrt_lo = (uintptr_t)di.dli_saddr;
        __atomic_store_n(&g_pyrt_hi, g_pyrt_lo + sym->st_size, __ATOMIC_RELEASE);
        return 1;
    }
    return 0;
}

static int cond_kind(const void *c, void *caller)
{
    return caller_in_python(caller) && in_pyruntime(c) ? K_GIL : K_COND;
}

/* ---- futex through syscall() ----------------------------------------------------- */

static int futex_is_wait(int cmd)
{
    return cmd == FUTEX_WAIT || cmd == FUTEX_WAIT_BITSET || cmd == FUTEX_LOCK_PI ||
#ifdef FUTEX_LOCK_PI2
           cmd == FUTEX_LOCK_PI2 ||
#endif
           cmd == FUTEX_WAIT_REQUEUE_PI;
}

static int futex_is_wake(int cmd)
{
    return cmd == FUTEX_WAKE || cmd == FUTEX_WAKE_BITSET || cmd == FUTEX_WAKE_OP ||
           cmd == FUTEX_REQUEUE || cmd == FUTEX_CMP_REQUEUE || cmd == FUTEX_UNLOCK_PI ||
           cmd == FUTEX_CMP_REQUEUE_PI;
}

GSI_EXPORT long syscall(long nr, ...)
{
    va_list ap;
    va_start(ap, nr);
    long a1 = va_arg(ap, long), a2 = va_arg(ap, long), a3 = va_arg(ap, long),
         a4 = va_arg(ap, long), a5 = va_arg(ap, long), a6 = va_arg(ap, long);
    va_end(ap);
    long (*f)(long, ...) = get_syscall();
    if (!f) {
        errno = ENOSYS;
        return -1;
    }
    if (nr != SYS_futex || !recording())
        return f(nr, a1, a2, a3, a4, a5, a6);
    int cmd = (int)a2 & FUTEX_CMD_MASK;
    const void *uaddr = (const void *)a1;
    if (futex_is_wait(cmd)) {
        wait_begin(uaddr);
        uint64_t t0 = gsi_now();
        long r = f(nr, a1, a2, a3, a4, a5, a6);
        int e = errno;
        uint64_t t1 = gsi_now();
        wait_end(uaddr);
        /* EAGAIN: the word had changed, the thread never slept. */
        if (r == 0 || e != EAGAIN)
            emit_wait(K_FUTEX, uaddr, t0, t1, r == 0 ? 0 : e);
        errno = e;
        return r;
    }
    if (futex_is_wake(cmd)) {
        uint64_t t = gsi_now();
        long r = f(nr, a1, a2, a3, a4, a5, a6);
        int e = errno;
        /* A woken waiter had the word mapped and readable: read it now. */
        if (r > 0)
            emit_wake(K_FUTEX, uaddr, t, r, (long long)*(volatile uint32_t *)uaddr);
        else if (cmd == FUTEX_UNLOCK_PI && r == 0 && has_waiters(uaddr))
            emit_wake(K_FUTEX, uaddr, t, -1, -1);
        errno = e;
        return r;
    }
    return f(nr, a1, a2, a3, a4, a5, a6);
}

/* ---- condition variables --------------------------------------------------------- */

#define TIMED_WAIT(kind, obj, call)               \
    do {                                          \
        wait_begin(obj);                          \
        uint64_t t0_ = gsi_now();                 \
        r = (call);                               \
        uint64_t t1_ = gsi_now();                 \
        wait_end(obj);                            \
        emit_wait(kind, obj, t0_, t1_, r);        \
    } while (0)

GSI_EXPORT int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
    int (*f)(pthread_cond_t *, pthread_mutex_t *) = get_pthread_cond_wait();
    if (!recording())
        return f(c, m);
    int e = errno, r;
    TIMED_WAIT(cond_kind(c, __builtin_return_address(0)), c, f(c, m));
    errno = e;
    return r;
}

GSI_EXPORT int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
                                      const struct timespec *ts)
{
    int (*f)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *) =
        get_pthread_cond_timedwait();
    if (!recording())
        return f(c, m, ts);
    int e = errno, r;
    TIMED_WAIT(cond_kind(c, __builtin_return_address(0)), c, f(c, m, ts));
    errno = e;
    return r;
}

GSI_EXPORT int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clk,
                                      const struct timespec *ts)
{
    int (*f)(pthread_cond_t *, pthread_mutex_t *, clockid_t, const struct timespec *) =
        get_pthread_cond_clockwait();
    if (!f)
        return ENOSYS;
    if (!recording())
        return f(c, m, clk, ts);
    int e = errno, r;
    TIMED_WAIT(cond_kind(c, __builtin_return_address(0)), c, f(c, m, clk, ts));
    errno = e;
    return r;
}

static int cond_wake(pthread_cond_t *c, int (*f)(pthread_cond_t *), int bcast)
{
    if (!recording() || !has_waiters(c))
        return f(c);
    int e = errno;
    uint64_t t = gsi_now();
    int r = f(c);
    int kind = g_pyrt_hi && (uintptr_t)c >= g_pyrt_lo && (uintptr_t)c < g_pyrt_hi ? K_GIL : K_COND;
    emit_wake(kind, c, t, bcast ? -2 : -1, -1);
    errno = e;
    return r;
}

GSI_EXPORT int pthread_cond_signal(pthread_cond_t *c)
{
    return cond_wake(c, get_pthread_cond_signal(), 0);
}

GSI_EXPORT int pthread_cond_broadcast(pthread_cond_t *c)
{
    return cond_wake(c, get_pthread_cond_broadcast(), 1);
}

/* ---- rwlocks ------------------------------------------------------------------------ */

/* Tries first; times only a call that must block. */
#define LOCK_SLOW(kind, obj, trycall, call)           \
    do {                                              \
        if (!recording())                             \
            return (call);                            \
        int e_ = errno, r;                            \
        r = (trycall);                                \
        if (r == EBUSY)                               \
            TIMED_WAIT(kind, obj, call);              \
        errno = e_;                                   \
        return r;                                     \
    } while (0)

GSI_EXPORT int pthread_rwlock_rdlock(pthread_rwlock_t *l)
{
    LOCK_SLOW(K_RWLOCK, l, get_pthread_rwlock_tryrdlock()(l), get_pthread_rwlock_rdlock()(l));
}

GSI_EXPORT int pthread_rwlock_wrlock(pthread_rwlock_t *l)
{
    LOCK_SLOW(K_RWLOCK, l, get_pthread_rwlock_trywrlock()(l), get_pthread_rwlock_wrlock()(l));
}

GSI_EXPORT int pthread_rwlock_timedrdlock(pthread_rwlock_t *l, const struct timespec *ts)
{
    LOCK_SLOW(K_RWLOCK, l, get_pthread_rwlock_tryrdlock()(l),
              get_pthread_rwlock_timedrdlock()(l, ts));
}

GSI_EXPORT int pthread_rwlock_timedwrlock(pthread_rwlock_t *l, const struct timespec *ts)
{
    LOCK_SLOW(K_RWLOCK, l, get_pthread_rwlock_trywrlock()(l),
              get_pthread_rwlock_timedwrlock()(l, ts));
}

GSI_EXPORT int pthread_rwlock_clockrdlock(pthread_rwlock_t *l, clockid_t clk,
                                          const struct timespec *ts)
{
    if (!get_pthread_rwlock_clockrdlock())
        return ENOSYS;
    LOCK_SLOW(K_RWLOCK, l, get_pthread_rwlock_tryrdlock()(l), real_pthread_rwlock_clockrdlock(l, clk, ts));
}

GSI_EXPORT int pthread_rwlock_clockwrlock(pthread_rwlock_t *l, clockid_t clk,
                                          const struct timespec *ts)
{
    if (!get_pthread_rwlock_clockwrlock())
        return ENOSYS;
    LOCK_SLOW(K_RWLOCK, l, get_pthread_rwlock_trywrlock()(l), real_pthread_rwlock_clockwrlock(l, clk, ts));
}

GSI_EXPORT int pthread_rwlock_unlock(pthread_rwlock_t *l)
{
    int (*f)(pthread_rwlock_t *) = get_pthread_rwlock_unlock();
    if (!recording() || !has_waiters(l))
        return f(l);
    int e = errno;
    uint64_t t = gsi_now();
    int r = f(l);
    emit_wake(K_RWLOCK, l, t, -1, -1);
    errno = e;
    return r;
}

/* ---- semaphores (their calls return -1 and set errno) ------------------------------ */

#define SEM_SLOW(obj, call)                                        \
    do {                                                           \
        if (!recording())                                          \
            return (call);                                         \
        int e_ = errno;                                            \
        if (get_sem_trywait()(obj) == 0) {                         \
            errno = e_;                                            \
            return 0;                                              \
        }                                                          \
        wait_begin(obj);                                           \
        uint64_t t0_ = gsi_now();                                  \
        int r_ = (call);                                           \
        int ee_ = errno;                                           \
        uint64_t t1_ = gsi_now();                                  \
        wait_end(obj);                                             \
        emit_wait(K_SEM, obj, t0_, t1_, r_ == 0 ? 0 : ee_);        \
        errno = r_ == 0 ? e_ : ee_;                                \
        return r_;                                                 \
    } while (0)

GSI_EXPORT int sem_wait(sem_t *s)
{
    SEM_SLOW(s, get_sem_wait()(s));
}

GSI_EXPORT int sem_timedwait(sem_t *s, const struct timespec *ts)
{
    SEM_SLOW(s, get_sem_timedwait()(s, ts));
}

GSI_EXPORT int sem_clockwait(sem_t *s, clockid_t clk, const struct timespec *ts)
{
    if (!get_sem_clockwait()) {
        errno = ENOSYS;
        return -1;
    }
    SEM_SLOW(s, real_sem_clockwait(s, clk, ts));
}

GSI_EXPORT int sem_post(sem_t *s)
{
    int (*f)(sem_t *) = get_sem_post();
    if (!recording() || !has_waiters(s))
        return f(s);
    int e = errno;
    uint64_t t = gsi_now();
    int r = f(s);
    int ee = errno;
    emit_wake(K_SEM, s, t, -1, -1);
    errno = r == 0 ? e : ee;
    return r;
}
