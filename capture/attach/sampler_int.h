/*
 * Internals of the /proc sampler shared by sampler.c (thread states) and
 * sampler_mem.c (memory release).  Not a public interface.
 */
#ifndef GS_ATTACH_SAMPLER_INT_H
#define GS_ATTACH_SAMPLER_INT_H

#include <stdint.h>
#include <sys/types.h>

/* A thread's part in its process's current streak. */
typedef struct gs_memrel_task {
    unsigned gen;
    int hits;                /* samples running during the streak */
    int sys;                 /* samples blocked in madvise/munmap during it */
    uint64_t cpu0, cpu;      /* utime + stime (ticks) at its first hit, at its last */
} gs_memrel_task;

/* A watched process's resident set and its current release streak. */
typedef struct gs_memrel_proc {
    pid_t pid;
    int fd;                  /* /proc/PID/statm, -1 when closed */
    long rss;                /* pages at the last round, -1 unknown */
    int on;                  /* inside a streak of falling RSS */
    unsigned gen;            /* streak number (tasks remember the one they joined) */
    int64_t t0, t_drop;      /* streak start, last round it fell */
    int64_t t_last;          /* the previous round */
    uint64_t best_run;       /* the best thread's run time (schedstat ns), 0 unknown */
    uint64_t run_at_drop;    /* ... at the last fall */
    long rss0, rss_min;      /* pages at the start, lowest seen */
    pid_t best_tid;          /* the thread with the best claim so far (0 none) */
    gs_memrel_task best;
} gs_memrel_proc;

/* Opens statm (fd -1 on failure). */
void gs_memrel_proc_init(gs_memrel_proc *p, pid_t pid);
void gs_memrel_proc_close(gs_memrel_proc *p);
/* Reads the RSS at now and advances the streak; returns 1 when a streak
 * ended this round (or the process is gone) having released at least
 * GS_MEMREL_MIN_KB over at least GS_MEMREL_MIN_NS: its fields and
 * best_tid describe it, and the caller writes a J record. */
int gs_memrel_round(gs_memrel_proc *p, int64_t now);
/* Ends an open streak when sampling stops; 1 as gs_memrel_round. */
int gs_memrel_finish(gs_memrel_proc *p);
/* Counts a sample of thread tid of p (running: state R; in_memsys: blocked
 * in madvise or munmap; cpu: its utime + stime; run_ns: its schedstat run
 * time, 0 unknown), keeping p's best claim. */
void gs_memrel_task_sample(gs_memrel_task *t, gs_memrel_proc *p, pid_t tid, int running,
                           int in_memsys, uint64_t cpu, uint64_t run_ns);
/* Orders two threads' claims to a streak: > 0 when a releases rather than b. */
int gs_memrel_task_cmp(const gs_memrel_task *a, const gs_memrel_task *b);

/* A streak counts when the RSS fell at least this much over it. */
#define GS_MEMREL_MIN_KB 8192
/* ... and lasted at least this long. */
#define GS_MEMREL_MIN_NS 3000000
/* A streak ends when the RSS has not fallen while its thread ran this much
 * CPU time (on a busy machine a release pauses while its thread waits for
 * a CPU; it is not over) ... */
#define GS_MEMREL_QUIET_RUN_NS 20000000
/* ... and at least this long; or, without schedstat, after this long. */
#define GS_MEMREL_QUIET_MIN_NS 5000000
#define GS_MEMREL_QUIET_NS 60000000
/* A streak ends anyway after this long without a fall. */
#define GS_MEMREL_QUIET_MAX_NS 1000000000

#endif
