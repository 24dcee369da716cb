/*
 * The /proc sampler: what each thread of the attached program is doing,
 * without its cooperation (Rust and tokio locks never call pthread, so a
 * futex wait is seen only here).
 *
 * One thread in gapscope.  Every 1/hz s it reads, for every task of the
 * watched processes, /proc/PID/task/TID/stat (state letter, comm); for a
 * task in R, schedstat (run and run-queue wait time); for a task in S or
 * D, syscall (the blocking system call and its first argument), falling
 * back to wchan where syscall cannot be read.  File descriptors stay open
 * and are re-read with pread, so a sample costs a few microseconds per
 * thread.  Task lists are re-read every 20 ms (every round in the first
 * 100 ms); the watched processes are
 * the program and every process that opened a p<pid>-*.rec file in the raw
 * directory (children that loaded the library).
 *
 * Linux's R state does not split running from runnable: a task in R whose
 * run-queue wait grew more than its run time since its previous sample is
 * called runnable, else running (with no schedstat: running).
 *
 * Consecutive equal samples (state and detail) merge into one run; a run
 * ends halfway between its last sample and the first sample that differs.
 * A futex wait's detail names its word (futex@0xADDR).  Each round also
 * reads every watched process's resident set for the memory-release
 * detector (sampler_mem.c: J records).  Runs are written to
 * raw_dir/sampler.rec when the sampler stops.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../../common/clock.h"
#include "../../common/grow.h"
#include "attach.h"
#include "sampler_int.h"

static const char *const tstate_names[] = {GS_TSTATE_TABLE(GS_XT_COL2)};
_Static_assert(sizeof tstate_names / sizeof tstate_names[0] == GS_TS_COUNT, "tstate table");

const char *gs_tstate_name(gs_tstate s)
{
    return (unsigned)s < GS_TS_COUNT ? tstate_names[s] : "other";
}

/* Blocking system calls by class (numbers of the build architecture). */
static const struct {
    long nr;
    const char *name;
    gs_tstate st;
} sys_tab[] = {
    {SYS_futex, "futex", GS_TS_FUTEX},
#ifdef SYS_futex_waitv
    {SYS_futex_waitv, "futex_waitv", GS_TS_FUTEX},
#endif
#ifdef SYS_nanosleep
    {SYS_nanosleep, "nanosleep", GS_TS_SLEEP},
#endif
    {SYS_clock_nanosleep, "clock_nanosleep", GS_TS_SLEEP},
#ifdef SYS_pause
    {SYS_pause, "pause", GS_TS_SLEEP},
#endif
    {SYS_rt_sigsuspend, "rt_sigsuspend", GS_TS_SLEEP},
    {SYS_rt_sigtimedwait, "rt_sigtimedwait", GS_TS_SLEEP},
    {SYS_wait4, "wait4", GS_TS_SLEEP},
    {SYS_waitid, "waitid", GS_TS_SLEEP},
#ifdef SYS_select
    {SYS_select, "select", GS_TS_IO},
#endif
    {SYS_pselect6, "pselect6", GS_TS_IO},
#ifdef SYS_poll
    {SYS_poll, "poll", GS_TS_IO},
#endif
    {SYS_ppoll, "ppoll", GS_TS_IO},
#ifdef SYS_epoll_wait
    {SYS_epoll_wait, "epoll_wait", GS_TS_IO},
#endif
    {SYS_epoll_pwait, "epoll_pwait", GS_TS_IO},
#ifdef SYS_epoll_pwait2
    {SYS_epoll_pwait2, "epoll_pwait2", GS_TS_IO},
#endif
    {SYS_read, "read", GS_TS_IO},
    {SYS_write, "write", GS_TS_IO},
    {SYS_pread64, "pread64", GS_TS_IO},
    {SYS_pwrite64, "pwrite64", GS_TS_IO},
    {SYS_readv, "readv", GS_TS_IO},
    {SYS_writev, "writev", GS_TS_IO},
    {SYS_recvfrom, "recvfrom", GS_TS_IO},
    {SYS_recvmsg, "recvmsg", GS_TS_IO},
    {SYS_sendto, "sendto", GS_TS_IO},
    {SYS_sendmsg, "sendmsg", GS_TS_IO},
    {SYS_accept4, "accept4", GS_TS_IO},
    {SYS_connect, "connect", GS_TS_IO},
    {SYS_openat, "openat", GS_TS_IO},
    {SYS_fsync, "fsync", GS_TS_IO},
    {SYS_fdatasync, "fdatasync", GS_TS_IO},
    {SYS_ioctl, "ioctl", GS_TS_IO},
#ifdef SYS_io_uring_enter
    {SYS_io_uring_enter, "io_uring_enter", GS_TS_IO},
#endif
    {SYS_io_getevents, "io_getevents", GS_TS_IO},
    {SYS_msync, "msync", GS_TS_IO},
    /* Blocked while returning memory (waiting for the mm lock): the
     * memory-release detector counts these (sampler_mem.c). */
    {SYS_madvise, "madvise", GS_TS_OTHER},
    {SYS_munmap, "munmap", GS_TS_OTHER},
};

gs_tstate gs_tstate_classify(char st, long sysno, uint64_t arg0, const char *wchan,
                             int64_t ran_ns, int64_t waited_ns, char *detail, size_t n)
{
    if (n)
        detail[0] = '\0';
    switch (st) {
    case 'R':
        return ran_ns >= 0 && waited_ns > ran_ns ? GS_TS_RUNNABLE : GS_TS_RUNNING;
    case 'T':
    case 't':
        return GS_TS_STOPPED;
    case 'S':
    case 'D':
    case 'I':
        break;
    default:
        return GS_TS_OTHER;
    }
    if (sysno >= 0) {
        for (size_t i = 0; i < sizeof sys_tab / sizeof sys_tab[0]; i++)
            if (sys_tab[i].nr == sysno) {
                snprintf(detail, n, "%s", sys_tab[i].name);
                gs_tstate s = sys_tab[i].st;
                /* select/pselect6 with no descriptors is a sleep (older
                 * Pythons' time.sleep). */
                if (s == GS_TS_IO && arg0 == 0 &&
                    (!strcmp(sys_tab[i].name, "select") || !strcmp(sys_tab[i].name, "pselect6")))
                    s = GS_TS_SLEEP;
                return st == 'D' && s != GS_TS_FUTEX ? GS_TS_IO : s;
            }
        snprintf(detail, n, "sys%ld", sysno);
        return st == 'D' ? GS_TS_IO : GS_TS_OTHER;
    }
    if (wchan && *wchan && strcmp(wchan, "0")) {
        snprintf(detail, n, "%s", wchan);
        if (strstr(wchan, "futex"))
            return GS_TS_FUTEX;
        if (strstr(wchan, "nanosleep") || strstr(wchan, "hrtimer") || strstr(wchan, "do_wait") ||
            strstr(wchan, "sigsuspend"))
            return GS_TS_SLEEP;
        if (strstr(wchan, "poll") || strstr(wchan, "select") || strstr(wchan, "pipe") ||
            strstr(wchan, "wait_woken") || strstr(wchan, "sk_wait") || strstr(wchan, "io_") ||
            strstr(wchan, "blk") || strstr(wchan, "read") || strstr(wchan, "write"))
            return GS_TS_IO;
    }
    return st == 'D' ? GS_TS_IO : GS_TS_OTHER;
}

typedef struct task {
    pid_t pid, tid;
    int fd_stat, fd_sched, fd_sys, fd_wchan;
    int seen;                 /* rescan generation it was last listed in */
    int have_run;
    gs_tstate state;
    char detail[40];
    char comm[64];
    int64_t t_start, t_last;
    uint64_t run_ns, wait_ns;
    int have_sched;
    size_t proc;              /* index of its process in pids/procs */
    gs_memrel_task mr;
} task;

struct gs_sampler {
    pthread_t th;
    atomic_int stop;
    pid_t root;
    char raw_dir[1024];
    double hz;
    task *t;
    size_t n, cap;
    pid_t *pids;
    gs_memrel_proc *procs;    /* parallel to pids */
    size_t n_pids, cap_pids, cap_procs;
    char *out;
    size_t out_len, out_cap;
    int oom;
    long rounds;
    int64_t cpu_ns;
    int64_t t0;
};

static void out_printf(gs_sampler *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out_printf(gs_sampler *s, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (k < 0)
        return;
    if ((size_t)k >= sizeof line)
        k = (int)sizeof line - 1;
    if (!gs_grow_to(&s->out, &s->out_cap, s->out_len + (size_t)k + 1, 1, 1 << 16)) {
        s->oom = 1;
        return;
    }
    memcpy(s->out + s->out_len, line, (size_t)k);
    s->out_len += (size_t)k;
}

static int open_task_file(pid_t pid, pid_t tid, const char *what)
{
    char path[96];
    snprintf(path, sizeof path, "/proc/%d/task/%d/%s", (int)pid, (int)tid, what);
    return open(path, O_RDONLY | O_CLOEXEC);
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

static void end_run(gs_sampler *s, task *k, int64_t end)
{
    if (k->have_run && end > k->t_start)
        out_printf(s, "P %lld %lld %d %d %s %s\n", (long long)k->t_start, (long long)end,
                   (int)k->pid, (int)k->tid, gs_tstate_name(k->state),
                   k->detail[0] ? k->detail : "-");
    k->have_run = 0;
}

static void drop_task(gs_sampler *s, size_t i)
{
    task *k = &s->t[i];
    end_run(s, k, k->t_last);
    close_fd(&k->fd_stat);
    close_fd(&k->fd_sched);
    close_fd(&k->fd_sys);
    close_fd(&k->fd_wchan);
    s->t[i] = s->t[--s->n];
}

static void add_pid(gs_sampler *s, pid_t pid)
{
    for (size_t i = 0; i < s->n_pids; i++)
        if (s->pids[i] == pid)
            return;
    if (!gs_grow(&s->pids, &s->cap_pids, s->n_pids, sizeof *s->pids, 8) ||
        !gs_grow(&s->procs, &s->cap_procs, s->n_pids, sizeof *s->procs, 8))
        return;
    gs_memrel_proc_init(&s->procs[s->n_pids], pid);
    s->pids[s->n_pids++] = pid;
}

static void rescan(gs_sampler *s, int gen)
{
    DIR *d = opendir(s->raw_dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            int pid;
            if (sscanf(e->d_name, "p%d-", &pid) == 1 && pid > 0)
                add_pid(s, (pid_t)pid);
        }
        closedir(d);
    }
    for (size_t p = 0; p < s->n_pids; p++) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/task", (int)s->pids[p]);
        DIR *td = opendir(path);
        if (!td)
            continue;
        struct dirent *e;
        while ((e = readdir(td))) {
            int tid = atoi(e->d_name);
            if (tid <= 0)
                continue;
            size_t i = 0;
            while (i < s->n && s->t[i].tid != tid)
                i++;
            if (i < s->n) {
                s->t[i].seen = gen;
                continue;
            }
            if (!gs_grow(&s->t, &s->cap, s->n, sizeof *s->t, 64))
                break;
            task *k = &s->t[s->n];
            memset(k, 0, sizeof *k);
            k->pid = s->pids[p];
            k->proc = p;
            k->tid = tid;
            k->seen = gen;
            k->fd_stat = open_task_file(k->pid, tid, "stat");
            if (k->fd_stat < 0)
                continue;
            k->fd_sched = open_task_file(k->pid, tid, "schedstat");
            k->fd_sys = open_task_file(k->pid, tid, "syscall");
            k->fd_wchan = k->fd_sys < 0 ? open_task_file(k->pid, tid, "wchan") : -1;
            s->n++;
        }
        closedir(td);
    }
    /* Tasks no longer listed have exited (their last run ends at their last sample). */
    for (size_t i = 0; i < s->n;)
        if (s->t[i].seen != gen)
            drop_task(s, i);
        else
            i++;
}

static ssize_t pread_str(int fd, char *buf, size_t n)
{
    if (fd < 0)
        return -1;
    ssize_t k = pread(fd, buf, n - 1, 0);
    buf[k > 0 ? k : 0] = '\0';
    return k;
}

/* One sample of task k at time now; 0 when the task is gone. */
static int sample_task(gs_sampler *s, task *k, int64_t now)
{
    char buf[1024];
    if (pread_str(k->fd_stat, buf, sizeof buf) <= 0)
        return 0;
    char *lp = strchr(buf, '('), *rp = strrchr(buf, ')');
    if (!lp || !rp || rp < lp || rp[1] != ' ')
        return 0;
    char st = rp[2];
    if (st == 'Z' || st == 'X' || st == 'x')
        return 0;
    unsigned long utime = 0, stime = 0;
    if (sscanf(rp + 3, " %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime, &stime) != 2)
        utime = stime = 0;
    size_t cl = (size_t)(rp - lp - 1);
    if (cl >= sizeof k->comm)
        cl = sizeof k->comm - 1;
    char comm[64];
    memcpy(comm, lp + 1, cl);
    comm[cl] = '\0';
    for (char *c = comm; *c; c++)
        if ((unsigned char)*c < 0x20)
            *c = ' ';
    if (strcmp(comm, k->comm)) {
        snprintf(k->comm, sizeof k->comm, "%s", comm);
        out_printf(s, "C %d %d %s\n", (int)k->pid, (int)k->tid, k->comm);
    }
    int64_t ran = -1, waited = -1;
    long sysno = -1;
    uint64_t arg0 = 0, arg1 = 0;
    char wchan[64] = "";
    if (st == 'R') {
        unsigned long long r, w;
        if (pread_str(k->fd_sched, buf, sizeof buf) > 0 && sscanf(buf, "%llu %llu", &r, &w) == 2) {
            if (k->have_sched) {
                ran = (int64_t)(r - k->run_ns);
                waited = (int64_t)(w - k->wait_ns);
            }
            k->run_ns = r;
            k->wait_ns = w;
            k->have_sched = 1;
        }
    } else if (st == 'S' || st == 'D' || st == 'I') {
        if (pread_str(k->fd_sys, buf, sizeof buf) > 0) {
            unsigned long long a0 = 0, a1 = 0;
            long nr;
            if (sscanf(buf, "%ld 0x%llx 0x%llx", &nr, &a0, &a1) >= 1 && nr >= 0) {
                sysno = nr;
                arg0 = a0;
                arg1 = a1;
            }
        } else if (pread_str(k->fd_wchan, wchan, sizeof wchan) < 0) {
            wchan[0] = '\0';
        }
        k->have_sched = 0;   /* deltas are taken over R samples only */
    }
    char detail[40];
    gs_tstate ts = gs_tstate_classify(st, sysno, arg0, wchan, ran, waited, detail, sizeof detail);
    /* A futex wait names its word (the converter pairs it with a wake of
     * the same address): FUTEX_WAIT, LOCK_PI, WAIT_BITSET, WAIT_REQUEUE_PI,
     * LOCK_PI2. */
    unsigned op = (unsigned)arg1 & 127u;
    if (ts == GS_TS_FUTEX && sysno == SYS_futex && arg0 &&
        (op == 0 || op == 6 || op == 9 || op == 11 || op == 13))
        snprintf(detail, sizeof detail, "futex@0x%llx", (unsigned long long)arg0);
    if (k->proc < s->n_pids)
        gs_memrel_task_sample(&k->mr, &s->procs[k->proc], k->tid, st == 'R',
                              sysno == SYS_madvise || sysno == SYS_munmap, utime + stime,
                              k->run_ns);
    if (!k->have_run) {
        k->have_run = 1;
        k->state = ts;
        snprintf(k->detail, sizeof k->detail, "%s", detail);
        k->t_start = now;
    } else if (ts != k->state || strcmp(detail, k->detail)) {
        int64_t mid = k->t_last + (now - k->t_last) / 2;
        end_run(s, k, mid);
        k->have_run = 1;
        k->state = ts;
        snprintf(k->detail, sizeof k->detail, "%s", detail);
        k->t_start = mid;
    }
    k->t_last = now;
    return 1;
}

/* The memory-release detector's round: a streak that just ended is
 * charged to the thread with the best claim (sampler_mem.c) as a J record;
 * at the end (finish) open streaks are closed too. */
static void release_round(gs_sampler *s, int64_t now, int finish)
{
    for (size_t p = 0; p < s->n_pids; p++) {
        gs_memrel_proc *pr = &s->procs[p];
        if (finish ? gs_memrel_finish(pr) : gs_memrel_round(pr, now))
            out_printf(s, "J %lld %lld %d %d %ld %d\n", (long long)pr->t0, (long long)pr->t_drop,
                       (int)pr->pid, (int)pr->best_tid,
                       (pr->rss0 - pr->rss_min) * (sysconf(_SC_PAGESIZE) / 1024), pr->best.sys);
    }
}

static void *sampler_main(void *arg)
{
    gs_sampler *s = arg;
    int64_t period = (int64_t)(1e9 / s->hz);
    if (period < 100000)
        period = 100000;
    int64_t rescan_every = 20000000 / period;
    if (rescan_every < 1)
        rescan_every = 1;
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    int gen = 0;
    while (!atomic_load(&s->stop)) {
        /* New threads are looked for every 20 ms, and every round during the
         * program's first 100 ms (when it starts its threads). */
        if (s->rounds % rescan_every == 0 || gs_now_ns() - s->t0 < 100000000)
            rescan(s, ++gen);
        int64_t now = gs_now_ns();
        release_round(s, now, 0);
        for (size_t i = 0; i < s->n;) {
            if (!sample_task(s, &s->t[i], now))
                drop_task(s, i);
            else
                i++;
        }
        s->rounds++;
        int64_t nn = (int64_t)next.tv_sec * 1000000000 + next.tv_nsec + period;
        int64_t cur = gs_now_ns();
        if (nn < cur)   /* fell behind: skip the missed rounds */
            nn = cur + period / 4;
        next.tv_sec = nn / 1000000000;
        next.tv_nsec = nn % 1000000000;
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
            ;
    }
    /* Close every run at its last sample, and open memory releases. */
    for (size_t i = 0; i < s->n; i++)
        end_run(s, &s->t[i], s->t[i].t_last);
    release_round(s, 0, 1);
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) == 0)
        s->cpu_ns = ((int64_t)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000 +
                    ((int64_t)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
    return NULL;
}

/* Everything s holds (its thread is not running), and s itself. */
static void free_sampler(gs_sampler *s)
{
    for (size_t p = 0; p < s->n_pids; p++)
        gs_memrel_proc_close(&s->procs[p]);
    free(s->t);
    free(s->pids);
    free(s->procs);
    free(s->out);
    free(s);
}

gs_status gs_sampler_start(gs_sampler **out, pid_t pid, const char *raw_dir, double hz,
                           gs_err *err)
{
    *out = NULL;
    if (!(hz > 0 && hz <= 20000))
        return GS_ERR(err, GS_ERR_ARG, "sampler", "rate %g Hz outside (0, 20000]", hz);
    gs_sampler *s = calloc(1, sizeof *s);
    if (!s)
        return GS_ERR(err, GS_ERR_NOMEM, "sampler", "out of memory");
    s->root = pid;
    s->hz = hz;
    s->t0 = gs_now_ns();
    snprintf(s->raw_dir, sizeof s->raw_dir, "%s", raw_dir);
    add_pid(s, pid);
    out_printf(s, "G %lld %g\n", (long long)gs_now_ns(), hz);
    if (pthread_create(&s->th, NULL, sampler_main, s) != 0) {
        free_sampler(s);
        return GS_ERR(err, GS_ERR_INTERNAL, "sampler", "pthread_create failed");
    }
    *out = s;
    return GS_OK;
}

gs_status gs_sampler_stop(gs_sampler *s, long *rounds_out, int64_t *cost_ns_out, gs_err *err)
{
    atomic_store(&s->stop, 1);
    pthread_join(s->th, NULL);
    for (size_t i = 0; i < s->n; i++) {
        close_fd(&s->t[i].fd_stat);
        close_fd(&s->t[i].fd_sched);
        close_fd(&s->t[i].fd_sys);
        close_fd(&s->t[i].fd_wchan);
    }
    if (rounds_out)
        *rounds_out = s->rounds;
    if (cost_ns_out)
        *cost_ns_out = s->cpu_ns;
    gs_status st = GS_OK;
    char path[1200], tmp[1210];
    snprintf(path, sizeof path, "%s/sampler.rec", s->raw_dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    if (s->oom) {
        st = GS_ERR(err, GS_ERR_NOMEM, "sampler", "out of memory keeping thread states");
    } else {
        FILE *f = fopen(tmp, "w");
        int ok = f && fwrite(s->out, 1, s->out_len, f) == s->out_len;
        if (f && fclose(f) != 0)
            ok = 0;
        if (!ok || rename(tmp, path) != 0) {
            st = GS_ERR(err, GS_ERR_IO, "sampler", "cannot write %s", path);
            remove(tmp);
        }
    }
    free_sampler(s);
    return st;
}
