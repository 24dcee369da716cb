/*
 * Scheduler tracepoints, collection: per-CPU rings of sched_switch and
 * sched_waking samples, drained by one reader thread into sched.rec (the
 * design and the record format are in sched.c).
 *
 * Which events are kept: the watched processes are the program and every
 * process that writes a p<pid>-*.rec file (looked for every 100 ms, as the
 * sampler does); a thread is "ours" once it was seen running in one of
 * them (a sample's pid is its tgid).  Kept: switches whose previous task
 * is ours or whose next task is ours; wakings whose wakee or waker is
 * ours.  Everything else (other programs on the machine) is dropped in
 * the reader, so sched.rec stays the size of the program's own activity.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../../common/grow.h"
#include "../../common/rng.h"
#include "attach.h"
#include "sched_int.h"

#define RING_PAGES 64

typedef struct ring {
    int fd_sw, fd_wk;
    uint8_t *base;
    size_t page, size;
} ring;

struct gs_sched {
    gs_sched_layout L;
    ring *r;
    int n_r;
    pthread_t th;
    atomic_int stop;
    FILE *out;
    char path[1200], raw_dir[1024];
    pid_t *pids;
    size_t n_pids, cap_pids;
    uint32_t *tids;            /* open-addressed set of our threads (0 = empty) */
    size_t cap_tids, n_tids;
    long events, lost;
    int oom;
};

static int has_pid(const gs_sched *s, uint32_t pid)
{
    for (size_t i = 0; i < s->n_pids; i++)
        if ((uint32_t)s->pids[i] == pid)
            return 1;
    return 0;
}

static void add_pid(gs_sched *s, pid_t pid)
{
    if (has_pid(s, (uint32_t)pid))
        return;
    if (!gs_grow(&s->pids, &s->cap_pids, s->n_pids, sizeof *s->pids, 8)) {
        s->oom = 1;
        return;
    }
    s->pids[s->n_pids++] = pid;
}

static size_t tid_slot(const gs_sched *s, uint32_t tid)
{
    size_t j = (size_t)(tid * 2654435761u) & (s->cap_tids - 1);
    while (s->tids[j] && s->tids[j] != tid)
        j = (j + 1) & (s->cap_tids - 1);
    return j;
}

static int is_ours(const gs_sched *s, uint32_t tid)
{
    return tid && s->tids[tid_slot(s, tid)] == tid;
}

static void add_tid(gs_sched *s, uint32_t tid)
{
    if (!tid || is_ours(s, tid))
        return;
    if (2 * (s->n_tids + 1) > s->cap_tids) {
        size_t nc = 2 * s->cap_tids;
        uint32_t *old = s->tids, oc = (uint32_t)s->cap_tids;
        uint32_t *t = calloc(nc, sizeof *t);
        if (!t) {
            s->oom = 1;
            return;
        }
        s->tids = t;
        s->cap_tids = nc;
        for (uint32_t i = 0; i < oc; i++)
            if (old[i])
                s->tids[tid_slot(s, old[i])] = old[i];
        free(old);
    }
    s->tids[tid_slot(s, tid)] = tid;
    s->n_tids++;
}

static void scan_pids(gs_sched *s)
{
    DIR *d = opendir(s->raw_dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        int pid;
        if (sscanf(e->d_name, "p%d-", &pid) == 1 && pid > 0)
            add_pid(s, (pid_t)pid);
    }
    closedir(d);
}

static uint32_t rd32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* One PERF_RECORD_SAMPLE: pid tid | time | cpu res | raw size | raw. */
static void sample(gs_sched *s, const uint8_t *p, size_t n)
{
    if (n < 28)
        return;
    uint32_t pid = rd32(p), tid = rd32(p + 4), cpu = rd32(p + 16), rsz = rd32(p + 24);
    uint64_t t;
    memcpy(&t, p + 8, 8);
    const uint8_t *raw = p + 28;
    if (rsz > n - 28 || rsz < 8)
        return;
    uint16_t type;
    memcpy(&type, raw, 2);
    int mine = has_pid(s, pid);
    if (mine)
        add_tid(s, tid);
    const gs_sched_layout *L = &s->L;
    if (type == L->switch_id) {
        if ((size_t)L->next_pid_off + 4 > rsz || (size_t)L->prev_state_off + 8 > rsz + 4)
            return;
        uint32_t prev = rd32(raw + L->prev_pid_off), next = rd32(raw + L->next_pid_off);
        int64_t state = 0;
        if (L->prev_state_size == 8 && (size_t)L->prev_state_off + 8 <= rsz)
            memcpy(&state, raw + L->prev_state_off, 8);
        else
            state = (int32_t)rd32(raw + L->prev_state_off);
        if (!(mine || is_ours(s, prev) || is_ours(s, next)))
            return;
        fprintf(s->out, "s %llu %u %u %lld %u\n", (unsigned long long)t, cpu, prev,
                (long long)state, next);
        s->events++;
    } else if (type == L->waking_id) {
        if ((size_t)L->wake_pid_off + 4 > rsz || (size_t)L->flags_off >= rsz)
            return;
        uint32_t wakee = rd32(raw + L->wake_pid_off);
        int irq = (raw[L->flags_off] & GS_SCHED_IRQ_FLAGS) != 0;
        if (!(is_ours(s, wakee) || (mine && !irq)))
            return;
        fprintf(s->out, "w %llu %u %u %d\n", (unsigned long long)t, tid, wakee, irq);
        s->events++;
    }
}

static void drain(gs_sched *s, ring *r)
{
    struct perf_event_mmap_page *mp = (struct perf_event_mmap_page *)r->base;
    uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE), tail = mp->data_tail;
    const uint8_t *data = r->base + r->page;
    uint8_t rec[1024];
    while (tail < head) {
        struct perf_event_header h;
        for (size_t i = 0; i < sizeof h; i++)
            ((uint8_t *)&h)[i] = data[(tail + i) % r->size];
        if (h.size < sizeof h || tail + h.size > head)
            break;
        size_t len = h.size <= sizeof rec ? h.size : sizeof rec;
        for (size_t i = 0; i < len; i++)
            rec[i] = data[(tail + i) % r->size];
        if (h.type == PERF_RECORD_SAMPLE)
            sample(s, rec + sizeof h, len - sizeof h);
        else if (h.type == PERF_RECORD_LOST && len >= sizeof h + 16) {
            uint64_t lost;
            memcpy(&lost, rec + sizeof h + 8, 8);
            s->lost += (long)lost;
        }
        tail += h.size;
    }
    __atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
}

static void *reader(void *arg)
{
    gs_sched *s = arg;
    long rounds = 0;
    for (;;) {
        int last = atomic_load(&s->stop);
        if (rounds++ % 20 == 0)
            scan_pids(s);
        for (int i = 0; i < s->n_r; i++)
            drain(s, &s->r[i]);
        if (last)
            break;
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

static void close_ring(ring *r)
{
    if (r->base)
        munmap(r->base, r->page * (RING_PAGES + 1));
    if (r->fd_wk >= 0)
        close(r->fd_wk);
    if (r->fd_sw >= 0)
        close(r->fd_sw);
    r->base = NULL;
    r->fd_sw = r->fd_wk = -1;
}

static void close_rings(gs_sched *s)
{
    for (int i = 0; i < s->n_r; i++)
        close_ring(&s->r[i]);
    free(s->r);
    s->r = NULL;
}

static void free_sched(gs_sched *s)
{
    close_rings(s);
    if (s->out)
        fclose(s->out);
    free(s->pids);
    free(s->tids);
    free(s);
}

static int open_ring(gs_sched *s, ring *r, int cpu, unsigned sw, unsigned wk)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_TRACEPOINT;
    a.sample_period = 1;
    a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW;
    a.use_clockid = 1;
    a.clockid = CLOCK_MONOTONIC;
    a.disabled = 1;
    a.config = sw;
    r->fd_sw = (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
    a.config = wk;
    r->fd_wk = r->fd_sw < 0 ? -1
                            : (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
    if (r->fd_sw < 0 || r->fd_wk < 0)
        return 0;
    r->page = (size_t)sysconf(_SC_PAGESIZE);
    r->size = r->page * RING_PAGES;
    void *m = mmap(NULL, r->page * (RING_PAGES + 1), PROT_READ | PROT_WRITE, MAP_SHARED, r->fd_sw, 0);
    if (m == MAP_FAILED)
        return 0;
    r->base = m;
    (void)s;
    return ioctl(r->fd_wk, PERF_EVENT_IOC_SET_OUTPUT, r->fd_sw) == 0;
}

gs_status gs_sched_start(gs_sched **out, pid_t pid, const char *raw_dir, gs_err *err)
{
    *out = NULL;
    gs_sched *s = calloc(1, sizeof *s);
    if (!s)
        return GS_ERR(err, GS_ERR_NOMEM, "sched", "out of memory");
    char why[256];
    if (!gs_sched_layout_get(&s->L, why, sizeof why)) {
        free(s);
        return GS_ERR(err, GS_ERR_IO, "sched", "%s", why);
    }
    snprintf(s->raw_dir, sizeof s->raw_dir, "%s", raw_dir);
    snprintf(s->path, sizeof s->path, "%s/sched.rec", raw_dir);
    s->cap_tids = 1024;
    s->tids = calloc(s->cap_tids, sizeof *s->tids);
    int ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);
    s->r = calloc((size_t)(ncpu > 0 ? ncpu : 1), sizeof *s->r);
    if (!s->tids || !s->r) {
        free_sched(s);
        return GS_ERR(err, GS_ERR_NOMEM, "sched", "out of memory");
    }
    add_pid(s, pid);
    add_tid(s, (uint32_t)pid);
    for (int c = 0; c < ncpu; c++) {
        ring *r = &s->r[s->n_r];
        r->fd_sw = r->fd_wk = -1;
        r->base = NULL;
        if (open_ring(s, r, c, s->L.switch_id, s->L.waking_id)) {
            s->n_r++;
            continue;
        }
        int e = errno;
        close_ring(r);
        if (e == ENODEV)   /* an offline CPU */
            continue;
        free_sched(s);
        return GS_ERR(err, GS_ERR_IO, "sched", "perf_event_open on CPU %d: %s", c, strerror(e));
    }
    s->out = fopen(s->path, "w");
    if (!s->out) {
        free_sched(s);
        return gs_err_set(err, GS_ERR_IO, "sched", s->path, "%s", strerror(errno));
    }
    setvbuf(s->out, NULL, _IOFBF, 1 << 20);
    fprintf(s->out, "Z gsched 1 sched_tracepoints\ni sched_switch + %s via perf_event_open on %d CPUs\n",
            s->L.waking_name, s->n_r);
    for (int i = 0; i < s->n_r; i++) {
        ioctl(s->r[i].fd_sw, PERF_EVENT_IOC_ENABLE, 0);
        ioctl(s->r[i].fd_wk, PERF_EVENT_IOC_ENABLE, 0);
    }
    if (pthread_create(&s->th, NULL, reader, s) != 0) {
        free_sched(s);
        return GS_ERR(err, GS_ERR_INTERNAL, "sched", "pthread_create failed");
    }
    *out = s;
    return GS_OK;
}

gs_status gs_sched_stop(gs_sched *s, long *events, long *lost, gs_err *err)
{
    atomic_store(&s->stop, 1);
    pthread_join(s->th, NULL);
    for (int i = 0; i < s->n_r; i++) {
        ioctl(s->r[i].fd_sw, PERF_EVENT_IOC_DISABLE, 0);
        ioctl(s->r[i].fd_wk, PERF_EVENT_IOC_DISABLE, 0);
    }
    if (s->lost)
        fprintf(s->out, "l %ld\n", s->lost);
    if (events)
        *events = s->events;
    if (lost)
        *lost = s->lost;
    int bad = ferror(s->out) || s->oom;
    gs_status st = GS_OK;
    if (fclose(s->out) != 0 || bad)
        st = gs_err_set(err, GS_ERR_IO, "sched", s->path, "cannot write the scheduler events");
    s->out = NULL;
    free_sched(s);
    return st;
}

gs_status gs_sched_write_none(const char *raw_dir, const char *why, gs_err *err)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/sched.rec", raw_dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return gs_err_set(err, GS_ERR_IO, "sched", path, "%s", strerror(errno));
    char clean[512];
    size_t k = 0;
    for (; why && why[k] && k + 1 < sizeof clean; k++)
        clean[k] = (unsigned char)why[k] < 0x20 ? ' ' : why[k];
    clean[k] = '\0';
    fprintf(f, "Z gsched 1 interposition\ni %s\n", clean);
    if (fclose(f) != 0)
        return gs_err_set(err, GS_ERR_IO, "sched", path, "cannot write");
    return GS_OK;
}
