/*
 * The /proc sampler's memory-release detector: a thread that returns
 * memory to the kernel (malloc_trim's madvise(MADV_DONTNEED) walk, munmap
 * storms, an allocator's purge) when no malloc_trim call was seen.
 *
 * /proc/TID/syscall names the system call only of a thread that is not
 * running (a running thread reads "running"), so a release running on its
 * CPU is seen by its effect: the process's resident set (/proc/PID/statm)
 * falls round after round.  A streak is a run of rounds in which it fell
 * (from the round before the first fall: the release began after it),
 * ended when the thread charged with it has run GS_MEMREL_QUIET_RUN_NS of
 * CPU time without a fall (the kernel batches its RSS counters, so single
 * rounds may show no change, and on a busy machine the thread may simply
 * wait for a CPU; without schedstat: GS_MEMREL_QUIET_NS of wall time); a
 * streak that released
 * at least GS_MEMREL_MIN_KB over at least GS_MEMREL_MIN_NS (a single
 * munmap of a buffer is over at once and keeps no one waiting; the
 * process's teardown neither) is charged to the thread of the process that
 * was seen blocked in madvise/munmap most often during it, else running
 * most often, then the one whose CPU time grew most.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "sampler_int.h"

void gs_memrel_proc_init(gs_memrel_proc *p, pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/statm", (int)pid);
    p->pid = pid;
    p->fd = open(path, O_RDONLY | O_CLOEXEC);
    p->rss = -1;
    p->on = 0;
    p->gen = 0;
    p->t_last = 0;
    p->best_run = p->run_at_drop = 0;
    p->best_tid = 0;
}

void gs_memrel_proc_close(gs_memrel_proc *p)
{
    if (p->fd >= 0)
        close(p->fd);
    p->fd = -1;
}

/* The streak is over: 1 when it counts. */
static int end_streak(gs_memrel_proc *p)
{
    long page_kb = sysconf(_SC_PAGESIZE) / 1024;
    int was = p->on;
    p->on = 0;
    return was && p->best_tid && (p->rss0 - p->rss_min) * page_kb >= GS_MEMREL_MIN_KB &&
           p->t_drop - p->t0 >= GS_MEMREL_MIN_NS;
}

int gs_memrel_finish(gs_memrel_proc *p)
{
    return end_streak(p);
}

int gs_memrel_round(gs_memrel_proc *p, int64_t now)
{
    char buf[128];
    if (p->fd < 0)
        return 0;
    ssize_t k = pread(p->fd, buf, sizeof buf - 1, 0);
    long size, rss;
    if (k <= 0) {   /* the process is gone */
        gs_memrel_proc_close(p);
        return end_streak(p);
    }
    buf[k] = '\0';
    if (sscanf(buf, "%ld %ld", &size, &rss) != 2)
        return 0;
    int fell = p->rss >= 0 && rss < p->rss - 16;   /* more than 16 pages */
    int ended = 0;
    if (fell) {
        if (!p->on) {
            p->on = 1;
            p->gen++;
            p->t0 = p->t_last > 0 ? p->t_last : now;   /* it began after the last round */
            p->rss0 = p->rss;
            p->rss_min = rss;
            p->best_tid = 0;
            p->best_run = 0;
        }
        p->t_drop = now;
        p->run_at_drop = p->best_run;
    }
    if (p->on && rss < p->rss_min)
        p->rss_min = rss;
    int64_t quiet = now - p->t_drop;
    int over = p->best_run ? p->best_run - p->run_at_drop >= GS_MEMREL_QUIET_RUN_NS &&
                                 quiet > GS_MEMREL_QUIET_MIN_NS
                           : quiet > GS_MEMREL_QUIET_NS;
    if (p->on && !fell && (over || quiet > GS_MEMREL_QUIET_MAX_NS))
        ended = end_streak(p);
    p->rss = rss;
    p->t_last = now;
    return ended;
}

void gs_memrel_task_sample(gs_memrel_task *t, gs_memrel_proc *p, pid_t tid, int running,
                           int in_memsys, uint64_t cpu, uint64_t run_ns)
{
    if (!p->on || !(running || in_memsys))
        return;
    if (t->gen != p->gen) {
        t->gen = p->gen;
        t->hits = t->sys = 0;
        t->cpu0 = cpu;
    }
    t->hits += running;
    t->sys += in_memsys;
    t->cpu = cpu;
    if (p->best_tid == tid || !p->best_tid || gs_memrel_task_cmp(t, &p->best) > 0) {
        if (p->best_tid != tid)   /* a new claimant: count its run time from here */
            p->run_at_drop = run_ns;
        p->best_tid = tid;
        p->best = *t;
        p->best_run = run_ns;
    }
}

int gs_memrel_task_cmp(const gs_memrel_task *a, const gs_memrel_task *b)
{
    if (a->sys != b->sys)
        return a->sys > b->sys ? 1 : -1;
    if (a->hits != b->hits)
        return a->hits > b->hits ? 1 : -1;
    uint64_t da = a->cpu - a->cpu0, db = b->cpu - b->cpu0;
    return (da > db) - (da < db);
}
