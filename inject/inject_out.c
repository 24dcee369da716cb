/*
 * libgsattach.so: initialisation and the raw record writer (see inject.h).
 *
 * Threads: any thread of the program may append (interposers, NVTX
 * callbacks, CUPTI's buffer-completed callback on CUPTI's thread, the
 * flusher thread).  One spin lock (g_lock) guards g_buf/g_len/g_first_ns
 * and the file descriptor; it is held only for a memcpy or a write(), never
 * across a call that could take it again.  A signal handler only try-locks.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "inject.h"

#define BUF_CAP (256u << 10)
#define LINE_MAX_ 2048
#define AGE_FLUSH_NS 100000000ull

static atomic_flag g_lock = ATOMIC_FLAG_INIT;
static char g_buf[BUF_CAP];
static size_t g_len;
static uint64_t g_first_ns;      /* time of the oldest unwritten line */
static int g_fd = -1;
static int g_inited;
static char g_dir[1024];
static unsigned g_flush_ms = 500;
static volatile uint64_t *g_ctl;  /* mmap of DIR/ctl: [0] = flush generation */
static void (*g_cupti_flush)(void);
static atomic_int g_exiting;
/* The audit copy (libgsaudit.so, gsi_init_audit): its own file, opened at
 * its first record; its libc's fork handlers never run, so a changed pid is
 * noticed at the next record. */
static int g_audit;
static pid_t g_pid;
static void open_output(void);
/* Set while this thread appends: a signal handler that runs an interposed
 * call in the middle of an append drops its record instead of spinning on
 * the lock its own thread holds. */
static __thread volatile sig_atomic_t t_busy;

uint64_t gsi_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static __thread uint32_t t_tid;

uint32_t gsi_tid(void)
{
    if (!t_tid)
        t_tid = (uint32_t)syscall(SYS_gettid);
    return t_tid;
}

static void lock(void)
{
    unsigned spins = 0;
    while (atomic_flag_test_and_set_explicit(&g_lock, memory_order_acquire))
        if (++spins > 64) {
            struct timespec ts = {0, 20000};
            nanosleep(&ts, NULL);
        }
}

static void unlock(void)
{
    atomic_flag_clear_explicit(&g_lock, memory_order_release);
}

/* Caller holds g_lock. */
static void write_out_locked(void)
{
    size_t off = 0;
    while (off < g_len && g_fd >= 0) {
        ssize_t w = write(g_fd, g_buf + off, g_len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;   /* disk full or closed: drop, never block the program */
        off += (size_t)w;
    }
    g_len = 0;
    g_first_ns = 0;
}

void gsi_flush(void)
{
    if (g_fd < 0 || t_busy)
        return;
    lock();
    write_out_locked();
    unlock();
}

void gsi_clean(char *out, size_t n, const char *s)
{
    size_t i = 0;
    if (!n)
        return;
    for (; s && s[i] && i + 1 < n; i++)
        out[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? ' ' : s[i];
    out[i] = '\0';
}

/* Audit copy: opens the file at the first record, and again in a forked
 * child (whose buffer still holds the parent's lines). */
static void audit_open(void)
{
    pid_t p = getpid();
    if (g_fd >= 0 && p == g_pid)
        return;
    lock();
    if (g_fd < 0 || p != g_pid) {
        if (g_fd >= 0)
            close(g_fd);
        g_fd = -1;
        g_len = 0;
        g_first_ns = 0;
        t_tid = 0;
        g_pid = p;
        unlock();
        gsi_stack_fork_child();
        open_output();
        return;
    }
    unlock();
}

void gsi_emit(const char *fmt, ...)
{
    if (g_audit && g_dir[0])
        audit_open();
    if (g_fd < 0 || t_busy)
        return;
    t_busy = 1;
    char line[LINE_MAX_];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0) {
        t_busy = 0;
        return;
    }
    if ((size_t)n > sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    uint64_t now = gsi_now();
    lock();
    if (g_len + (size_t)n > BUF_CAP)
        write_out_locked();
    memcpy(g_buf + g_len, line, (size_t)n);
    g_len += (size_t)n;
    if (!g_first_ns)
        g_first_ns = now;
    if (g_len > BUF_CAP / 2 || now - g_first_ns > AGE_FLUSH_NS)
        write_out_locked();
    unlock();
    t_busy = 0;
}

int gsi_busy(void)
{
    return t_busy;
}

int gsi_enabled(void)
{
    return g_fd >= 0;
}

int gsi_active(void)
{
    return g_dir[0] != '\0';
}

/* Defaults for the parts one of the two libraries lacks (libgsaudit.so has
 * no interposed waits; libgsattach.so is not the audit copy). */
__attribute__((weak)) int gsi_is_audit_copy(void)
{
    return 0;
}

__attribute__((weak)) void gsi_wait_fork_child(void)
{
}

unsigned gsi_flush_ms(void)
{
    return g_flush_ms;
}

uint64_t gsi_flush_request(void)
{
    return g_ctl ? g_ctl[0] : 0;
}

static void open_output(void)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/p%d-%llu%s.rec", g_dir, (int)getpid(),
             (unsigned long long)gsi_now(), g_audit ? "-audit" : "");
    g_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (g_fd < 0)
        return;
    /* The executable's name only: the raw records travel with the capture
     * and hold no absolute path of the machine they were taken on. */
    char exe[1024], cexe[1024];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[k > 0 ? k : 0] = '\0';
    const char *base = strrchr(exe, '/');
    gsi_clean(cexe, sizeof cexe, base ? base + 1 : exe);
    int audit = g_audit;
    g_audit = 0;   /* no re-entry into audit_open from the header line */
    gsi_emit("H gsattach 1 %d %d %llu %s", (int)getpid(), (int)getppid(),
             (unsigned long long)gsi_now(), cexe);
    gsi_flush();
    g_audit = audit;
}

static void at_fork_child(void)
{
    /* The parent still holds (and will write) its pending lines. */
    atomic_flag_clear(&g_lock);
    t_busy = 0;
    gsi_wait_fork_child();
    gsi_stack_fork_child();
    g_len = 0;
    g_first_ns = 0;
    t_tid = 0;
    if (g_fd >= 0) {
        close(g_fd);
        g_fd = -1;
        open_output();
    }
    g_cupti_flush = NULL;   /* CUDA does not survive fork; a child that execs re-injects */
}

static void at_exit_flush(void)
{
    atomic_store(&g_exiting, 1);
    if (g_fd >= 0) {
        gsi_emit("E %llu exit", (unsigned long long)gsi_now());
        gsi_flush();
    }
}

__attribute__((destructor)) static void at_unload(void)
{
    if (!atomic_load(&g_exiting))
        gsi_flush();
}

/* Fatal signals: write what is buffered (if the lock is free), then die of
 * the signal as the program would have.  CUPTI is not called here (not
 * async-signal-safe): device records since the last periodic flush are
 * lost, at most GS_ATTACH_FLUSH_MS of them. */
static void on_fatal(int sig)
{
    if (g_fd >= 0 && !atomic_flag_test_and_set(&g_lock)) {
        char line[64];
        int n = snprintf(line, sizeof line, "E %llu signal %d\n",
                         (unsigned long long)gsi_now(), sig);
        if (n > 0 && g_len + (size_t)n <= BUF_CAP) {
            memcpy(g_buf + g_len, line, (size_t)n);
            g_len += (size_t)n;
        }
        write_out_locked();
        atomic_flag_clear(&g_lock);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Registered when CUPTI is ready (at cuInit, after the CUDA runtime's own
 * exit handler), so it runs before the runtime tears its contexts down. */
static void at_exit_cupti(void)
{
    if (g_cupti_flush)
        g_cupti_flush();
    gsi_flush();
}

void gsi_on_cupti_ready(void (*cupti_flush)(void))
{
    g_cupti_flush = cupti_flush;
    atexit(at_exit_cupti);
    static const int fatal[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL};
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++) {
        struct sigaction old;
        if (sigaction(fatal[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL &&
            !(old.sa_flags & SA_SIGINFO)) {
            struct sigaction sa;
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = on_fatal;
            sigemptyset(&sa.sa_mask);
            sa.sa_flags = SA_RESETHAND;
            sigaction(fatal[i], &sa, NULL);
        }
    }
}

static void map_ctl(void)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/ctl", g_dir);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    void *p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (p != MAP_FAILED)
        g_ctl = p;
}

static int read_env(void)
{
    const char *d = getenv("GS_ATTACH_DIR");
    if (!d || !*d || strlen(d) >= sizeof g_dir)
        return 0;
    strcpy(g_dir, d);
    const char *f = getenv("GS_ATTACH_FLUSH_MS");
    if (f && atoi(f) >= 10 && atoi(f) <= 60000)
        g_flush_ms = (unsigned)atoi(f);
    return 1;
}

void gsi_init_audit(void)
{
    g_audit = 1;
    if (read_env())
        atexit(at_exit_flush);
}

void gsi_init(void)
{
    static atomic_int once;
    int expect = 0;
    if (g_audit || !atomic_compare_exchange_strong(&once, &expect, 1))
        return;
    if (!read_env())
        return;
    open_output();
    if (g_fd < 0)
        return;
    gsi_stack_init();
    map_ctl();
    pthread_atfork(NULL, NULL, at_fork_child);
    atexit(at_exit_flush);
    g_inited = 1;
}

__attribute__((constructor)) static void at_load(void)
{
    if (!gsi_is_audit_copy())
        gsi_init();
}
