/*
 * Scheduler tracepoints: exact waker -> wakee edges for any primitive
 * (futex, condvar, pipe, epoll), written to attach-raw/sched.rec.
 *
 * Probe (gs_sched_probe).  The ids and field layouts of sched:sched_switch
 * and sched:sched_waking (sched_wakeup where a kernel lacks it) come from
 * tracefs: /sys/kernel/tracing or /sys/kernel/debug/tracing when mounted,
 * else a throwaway child that unshares its mount namespace, mounts tracefs
 * privately (CAP_SYS_ADMIN) and hands the two format files back through a
 * pipe (the ids are global; nothing is mounted where anyone else sees it).
 * Then one event is opened system wide on CPU 0 (CAP_PERFMON or
 * CAP_SYS_ADMIN, or perf_event_paranoid <= -1): usable when that works.
 *
 * Collection (gs_sched_start .. gs_sched_stop).  Both events on every CPU,
 * system wide, each CPU's two events writing into one ring buffer
 * (PERF_EVENT_IOC_SET_OUTPUT), times on CLOCK_MONOTONIC (use_clockid).  A
 * reader thread drains the rings every 5 ms and keeps what concerns the
 * watched processes (the program and every process that writes a
 * p<pid>-*.rec file): a switch whose previous task is one of their threads,
 * or whose next task is a thread seen in one; a waking whose wakee is such
 * a thread or whose waker is.  Records, appended to sched.rec:
 *   Z gsched 1 MECH             header (MECH: sched_tracepoints or interposition)
 *   i TEXT                      the probe's answer (why this mechanism)
 *   s T CPU PREV PREV_STATE NEXT   a context switch (PREV_STATE 0: preempted)
 *   w T WAKER WAKEE IRQ         a wake-up issued; IRQ 1: from interrupt
 *                               context (a timer, a device), WAKER is then
 *                               whichever task the interrupt hit
 *   l LOST                      events the kernel dropped (a ring was full)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../common/rng.h"
#include "attach.h"
#include "sched_int.h"

#define RING_PAGES 64
#define FMT_MAX 8192

static long perf_open(struct perf_event_attr *a, int cpu)
{
    return syscall(SYS_perf_event_open, a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static void attr_for(struct perf_event_attr *a, unsigned id)
{
    memset(a, 0, sizeof *a);
    a->size = sizeof *a;
    a->type = PERF_TYPE_TRACEPOINT;
    a->config = id;
    a->sample_period = 1;
    a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW;
    a->use_clockid = 1;
    a->clockid = CLOCK_MONOTONIC;
    a->disabled = 1;
    a->watermark = 1;
    a->wakeup_watermark = RING_PAGES * 4096 / 2;
}

static int slurp(const char *path, char *buf, size_t n)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    size_t k = 0;
    ssize_t r;
    while (k + 1 < n && (r = read(fd, buf + k, n - 1 - k)) > 0)
        k += (size_t)r;
    close(fd);
    buf[k] = '\0';
    return k > 0;
}

/* Both format files from a tracefs root: 1 when found. */
static int read_formats(const char *root, char *sw, char *wk, char *wk_name)
{
    char p[256];
    snprintf(p, sizeof p, "%s/events/sched/sched_switch/format", root);
    if (!slurp(p, sw, FMT_MAX))
        return 0;
    static const char *const names[] = {"sched_waking", "sched_wakeup"};
    for (int i = 0; i < 2; i++) {
        snprintf(p, sizeof p, "%s/events/sched/%s/format", root, names[i]);
        if (slurp(p, wk, FMT_MAX)) {
            strcpy(wk_name, names[i]);
            return 1;
        }
    }
    return 0;
}

/* The private mount in a throwaway child; 1 when the formats came back. */
static int read_formats_private(char *sw, char *wk, char *wk_name, char *why, size_t n)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0)
        return 0;
    pid_t c = fork();
    if (c < 0) {
        close(p[0]);
        close(p[1]);
        return 0;
    }
    if (c == 0) {
        close(p[0]);
        static char s1[FMT_MAX], s2[FMT_MAX], nm[16];
        char msg[160];
        int ok = 0;
        if (unshare(CLONE_NEWNS) != 0)
            snprintf(msg, sizeof msg, "no tracefs mounted; private mount refused (unshare: %s)", strerror(errno));
        else if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
                 mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) != 0)
            snprintf(msg, sizeof msg, "no tracefs mounted; private mount refused (mount: %s)", strerror(errno));
        else if (!(ok = read_formats("/sys/kernel/tracing", s1, s2, nm)))
            snprintf(msg, sizeof msg, "tracefs has no sched_switch/sched_waking events");
        if (ok) {
            dprintf(p[1], "OK %s\n%s\n@@@@\n%s", nm, s1, s2);
        } else {
            dprintf(p[1], "NO %s", msg);
        }
        _exit(0);
    }
    close(p[1]);
    static char buf[3 * FMT_MAX];
    size_t k = 0;
    ssize_t r;
    while (k + 1 < sizeof buf && ((r = read(p[0], buf + k, sizeof buf - 1 - k)) > 0 ||
                                  (r < 0 && errno == EINTR)))
        if (r > 0)
            k += (size_t)r;
    buf[k] = '\0';
    close(p[0]);
    while (waitpid(c, NULL, 0) < 0 && errno == EINTR)
        ;
    if (strncmp(buf, "OK ", 3)) {
        snprintf(why, n, "%s", k > 3 ? buf + 3 : "no tracefs mounted; private mount failed");
        return 0;
    }
    char *nl = strchr(buf, '\n'), *sep = strstr(buf, "\n@@@@\n");
    if (!nl || !sep || sep < nl)
        return 0;
    snprintf(wk_name, 16, "%.*s", (int)(nl - buf - 3), buf + 3);
    snprintf(sw, FMT_MAX, "%.*s", (int)(sep - nl - 1), nl + 1);
    snprintf(wk, FMT_MAX, "%s", sep + 6);
    return 1;
}

int gs_sched_layout_get(gs_sched_layout *L, char *why, size_t n)
{
    static char sw[FMT_MAX], wk[FMT_MAX];
    char nm[16] = "";
    const char *how = "tracefs";
    memset(L, 0, sizeof *L);
    if (!read_formats("/sys/kernel/tracing", sw, wk, nm) &&
        !read_formats("/sys/kernel/debug/tracing", sw, wk, nm)) {
        if (!read_formats_private(sw, wk, nm, why, n))
            return 0;
        how = "tracefs (private mount)";
    }
    int sz;
    if (!gs_sched_format_id(sw, &L->switch_id) || !gs_sched_format_id(wk, &L->waking_id) ||
        !gs_sched_format_field(sw, "prev_pid", &L->prev_pid_off, &sz) || sz != 4 ||
        !gs_sched_format_field(sw, "prev_state", &L->prev_state_off, &L->prev_state_size) ||
        !gs_sched_format_field(sw, "next_pid", &L->next_pid_off, &sz) || sz != 4 ||
        !gs_sched_format_field(wk, "pid", &L->wake_pid_off, &sz) || sz != 4 ||
        !gs_sched_format_field(sw, "common_flags", &L->flags_off, &sz) || sz != 1) {
        snprintf(why, n, "unexpected sched_switch/%s format", nm);
        return 0;
    }
    snprintf(L->waking_name, sizeof L->waking_name, "%s", nm);
    snprintf(why, n, "%s", how);
    return 1;
}

int gs_sched_probe(char *why, size_t n)
{
    gs_sched_layout L;
    char how[128];
    if (!gs_sched_layout_get(&L, why, n))
        return 0;
    snprintf(how, sizeof how, "%s", why);
    struct perf_event_attr a;
    attr_for(&a, L.switch_id);
    long fd = perf_open(&a, 0);
    if (fd < 0) {
        int e = errno;
        char par[16] = "?";
        slurp("/proc/sys/kernel/perf_event_paranoid", par, sizeof par);
        par[strcspn(par, "\n")] = '\0';
        snprintf(why, n, "perf_event_open of sched_switch refused (%s; perf_event_paranoid=%s, "
                         "needs CAP_PERFMON)", strerror(e), par);
        return 0;
    }
    close((int)fd);
    snprintf(why, n, "sched_switch + %s via perf_event_open, ids from %s", L.waking_name, how);
    return 1;
}

/* ---- format files ------------------------------------------------------------------ */

int gs_sched_format_id(const char *fmt, unsigned *id)
{
    const char *p = strstr(fmt, "\nID: ");
    if (!p && !strncmp(fmt, "ID: ", 4))
        p = fmt - 1;
    if (!p)
        return 0;
    char *e;
    unsigned long v = strtoul(p + 5, &e, 10);
    if (e == p + 5 || v == 0 || v > 0xffff)
        return 0;
    *id = (unsigned)v;
    return 1;
}

int gs_sched_format_field(const char *fmt, const char *name, int *off, int *size)
{
    size_t nl = strlen(name);
    for (const char *p = strstr(fmt, "field:"); p; p = strstr(p + 6, "field:")) {
        const char *semi = strchr(p, ';');
        const char *eol = strchr(p, '\n');
        if (!semi || (eol && eol < semi))
            continue;
        /* "field:<type> <name>;" or "field:<type> <name>[N];" */
        const char *q = semi;
        if (q > p && q[-1] == ']')
            while (q > p && *q != '[')
                q--;
        if ((size_t)(q - p) < nl + 1 || strncmp(q - nl, name, nl) || (q[-(long)nl - 1] != ' '))
            continue;
        const char *o = strstr(semi, "offset:"), *s = strstr(semi, "size:");
        if (!o || !s || (eol && (o > eol || s > eol)))
            return 0;
        *off = atoi(o + 7);
        *size = atoi(s + 5);
        return *off >= 0 && *size > 0;
    }
    return 0;
}
