/*
 * Gap analysis and attribution of a timeline (the definitions are in
 * diag/README.md, "Metrics"; every output names them the same way).
 *
 * Per device (all lanes of role device with the same device id):
 *   span      = [first device operation start, last device operation end]
 *   busy      = |union of KERNEL and COPY spans over all streams|
 *   kernel    = |union of KERNEL spans|,  copy = |union of COPY spans|
 *   util                = busy / span     ("kernels or copies busy / span")
 *   util_kernels_only   = kernel / span   ("kernels busy / span")
 *   idle gaps = the maximal intervals inside the span covered by no device
 *               operation (their lengths sum to span - busy).
 * Gap percentiles use the nearest-rank definition: pX = the smallest gap
 * length g such that at least X% of gaps are <= g.
 *
 * Attribution: every instant of every gap gets one cause from the state of
 * that device's GPU worker lanes at that instant (precedence and mapping:
 * diag/README.md, "Attribution"), so a gap is split into pieces when the
 * cause changes inside it.  Per-cause idle seconds sum to the idle total.
 *
 * Ownership: gs_analyze allocates a gs_analysis that the caller frees with
 * gs_analysis_destroy; it copies everything it needs, so the timeline may
 * be destroyed first.  Not thread safe per object; reads the timeline only
 * after capture has stopped.
 */
#ifndef GS_ANALYSIS_H
#define GS_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "../timeline/timeline.h"

/* Causes.  X(enum, name, short description) */
#define GS_CAUSE_TABLE(X)                                                                    \
    X(GS_CAUSE_QUEUE_EMPTY, "queue_empty", "GPU worker waiting on an empty GPU queue (synthesis starvation)") \
    X(GS_CAUSE_TRACKER_TRIM, "tracker_lock/malloc_trim", "waiting for the tracker lock while its holder runs malloc_trim") \
    X(GS_CAUSE_TRACKER_VERIFY, "tracker_lock/verify", "waiting for the tracker lock while its holder verifies a proof") \
    X(GS_CAUSE_TRACKER_INJECTED, "tracker_lock/injected", "waiting for the tracker lock while its holder runs an injected delay") \
    X(GS_CAUSE_TRACKER_OTHER, "tracker_lock/other", "waiting for the tracker lock (holder doing other work)") \
    X(GS_CAUSE_DEVICE_MUTEX, "device_mutex", "waiting for the per-GPU device mutex") \
    X(GS_CAUSE_HOST_PREP, "host_prep", "CPU preparation before device work") \
    X(GS_CAUSE_H2D_PAGEABLE, "h2d_pageable", "host-side staging of pageable (unpinned) host-to-device copies") \
    X(GS_CAUSE_H2D_PINNED, "h2d_pinned", "host-side staging of pinned host-to-device copies") \
    X(GS_CAUSE_HANDOFF, "handoff", "handing the prove state to the finalizer") \
    X(GS_CAUSE_BACKEND_HOST, "backend_host", "inside prove_start with the device idle (host work in the backend call)") \
    X(GS_CAUSE_FINISH_IN_WORKER, "finish_in_worker", "the GPU worker runs prove_finish (the CPU G2 MSM) in its own loop") \
    X(GS_CAUSE_OTHER, "other", "no GPU worker state explains it")                                   \
    X(GS_CAUSE_LOCK_WAIT_TRIM, "lock_wait/malloc_trim", "the launching thread waits for a lock whose holder runs malloc_trim") \
    X(GS_CAUSE_LOCK_WAIT_SYNC, "lock_wait/cuda_sync", "the launching thread waits for a lock whose holder waits in a CUDA synchronize call") \
    X(GS_CAUSE_LOCK_WAIT_COMPUTE, "lock_wait/host_compute", "the launching thread waits for a lock whose holder runs host code") \
    X(GS_CAUSE_LOCK_WAIT_BLOCKED, "lock_wait/blocked", "the launching thread waits for a lock whose holder is itself blocked") \
    X(GS_CAUSE_LOCK_WAIT_OTHER, "lock_wait/other", "the launching thread waits for a lock (holder unknown or in no known state)") \
    X(GS_CAUSE_MALLOC_TRIM, "malloc_trim", "the launching thread runs malloc_trim") \
    X(GS_CAUSE_CUDA_SYNC, "cuda_sync", "the launching thread waits in a CUDA synchronize call") \
    X(GS_CAUSE_BLOCKED_FUTEX, "blocked_futex", "the launching thread is blocked in a futex, no lock holder known (waiting for work)") \
    X(GS_CAUSE_IO, "io", "the launching thread waits for I/O") \
    X(GS_CAUSE_SLEEP, "sleep", "the launching thread sleeps") \
    X(GS_CAUSE_CPU_STARVED, "cpu_starved", "the launching thread is runnable but not running") \
    X(GS_CAUSE_HOST_COMPUTE, "host_compute", "the launching thread runs host code") \
    X(GS_CAUSE_LOCK_WAIT_MEMREL, "lock_wait/memory_release", "the launching thread waits on a thread (lock holder or end of its wake-up chain) returning memory to the kernel, no malloc_trim call seen") \
    X(GS_CAUSE_MEMORY_RELEASE, "memory_release", "the launching thread returns memory to the kernel (madvise/munmap), no malloc_trim call seen") \
    X(GS_CAUSE_GIL_WAIT, "gil_wait", "the launching thread waits for CPython's GIL, held by other threads") \
    X(GS_CAUSE_WAKEUP_COMPUTE, "wakeup/host_compute", "the launching thread waits for another thread's signal (work, an event); the end of its wake-up chain runs host code") \
    X(GS_CAUSE_WAKEUP_SYNC, "wakeup/cuda_sync", "the launching thread waits for another thread's signal; the end of its wake-up chain waits in a CUDA synchronize call") \
    X(GS_CAUSE_WAKEUP_BLOCKED, "wakeup/blocked", "the launching thread waits for another thread's signal; the end of its wake-up chain is itself blocked (I/O, sleep, a wait with no waker known)")
typedef enum { GS_CAUSE_TABLE(GS_XT_ID) GS_CAUSE_COUNT } gs_cause;
const char *gs_cause_name(gs_cause c);
const char *gs_cause_description(gs_cause c);
int gs_cause_from_name(gs_cause *out, const char *name);
/* 1 when name equals the cause, its group ("tracker_lock" matches every
 * "tracker_lock/..." cause) or its family (below). */
int gs_cause_matches(gs_cause c, const char *name_or_group);
/* The cause's family, shared by the engine's causes and those of foreign
 * timelines (timeline/SPANS.md, "Foreign timelines"): an engine cause's family
 * is its group ("tracker_lock" for "tracker_lock/...", else its own name);
 * a foreign cause belongs to the engine family that means the same
 * ("lock_wait/..." -> "tracker_lock", "blocked_futex" -> "queue_empty",
 * "host_compute" -> "host_prep", ...). */
const char *gs_cause_family(gs_cause c);

typedef struct gs_analysis_config {
    double micro_threshold_s;  /* gaps shorter are "micro", default 0.001 */
    double bin_s;              /* utilization-over-time bin, default 0.2 */
    int progress;              /* print progress to stderr on long analyses */
} gs_analysis_config;
void gs_analysis_config_defaults(gs_analysis_config *cfg);

typedef struct gs_interval {
    int64_t start_ns, end_ns;
} gs_interval;

/* A constant-cause piece of a gap. */
typedef struct gs_gap_piece {
    int64_t start_ns, end_ns;
    gs_cause cause;
    int32_t worker;            /* deciding GPU worker lane, -1 none */
    int32_t holder;            /* tracker_lock and lock_wait causes: holder lane; a wake-up
                                  chain: the lane at its end; else -1 */
    int32_t detail;            /* index into gs_analysis.details, -1 none (launcher rule) */
    /* Launcher rule, waits: the launcher's stack at its wait and the stack of
     * what the chain's end was doing (its malloc_trim, or its wake), as
     * timeline stack ids (meta stack.<id>); 0 none. */
    int32_t stack, wstack;
} gs_gap_piece;

/* Which rule attributed a device's gaps (diag/README.md): the engine's
 * GPU-worker rule, or the launcher rule of foreign timelines. */
typedef enum { GS_RULE_ENGINE, GS_RULE_LAUNCHER } gs_attrib_rule;

/* A cause with a detail (the innermost NVTX range of a host_compute
 * piece), and the idle seconds attributed to the pair over all devices. */
typedef struct gs_cause_detail {
    gs_cause cause;
    char *detail;
    double idle_s;
} gs_cause_detail;

/* A pair of user stacks at a cause (the launcher's wait, the chain end's
 * activity) and the idle seconds charged while they held. */
typedef struct gs_stack_stat {
    gs_cause cause;
    char *launcher, *waker;    /* folded frames, root first; "" unknown */
    double idle_s;
} gs_stack_stat;

typedef struct gs_gap {
    int64_t start_ns, end_ns;
    size_t first_piece, n_pieces;   /* into the device's pieces */
    gs_cause cause;                 /* the cause with the most time in this gap */
} gs_gap;

typedef struct gs_gap_stats {
    size_t count;
    double total_s, mean_ms, p50_ms, p90_ms, p99_ms, max_ms;
    size_t micro_count, macro_count;
    double micro_total_s, macro_total_s;
} gs_gap_stats;

typedef struct gs_device_analysis {
    int32_t device;
    int32_t process;           /* gs_lane_info.process of its lanes (0 unless merged) */
    char name[128];            /* meta device.<i>.name, or "" */
    size_t n_ops;              /* device operations (KERNEL + COPY spans) */
    int64_t span_start_ns, span_end_ns;
    double span_s, busy_s, kernel_s, copy_s, util, util_kernels_only;
    gs_interval *busy, *kernel, *copy;     /* the unions, sorted, disjoint */
    size_t n_busy, n_kernel, n_copy;
    gs_gap *gaps;
    size_t n_gaps;
    gs_gap_piece *pieces;
    size_t n_pieces;
    gs_gap_stats gap_stats;
    double cause_s[GS_CAUSE_COUNT];
    double idle_s;
    /* Idle seconds during which malloc_trim runs on any thread (whatever the
     * cause): glibc's malloc_trim(0) holds the arena locks, so every
     * allocation elsewhere waits, even with trim = background. */
    double idle_during_trim_s;
    gs_attrib_rule rule;       /* how this device's gaps were attributed */
    /* The kernel-level view (diag/README.md, "Kernel-level view"): the gaps
     * of the kernel union inside the span (they sum to span - kernel), each
     * attributed as an idle gap ending at its next kernel is, except where a
     * pageable copy (COPY with pageable=1) runs: kernels idle waiting for a
     * staged copy, h2d_pageable.  Per-cause seconds sum to kidle_s. */
    gs_gap_piece *kpieces;
    size_t n_kpieces, n_kgaps;
    double kcause_s[GS_CAUSE_COUNT];
    double kidle_s;
} gs_device_analysis;

typedef struct gs_analysis {
    gs_analysis_config cfg;
    int64_t t0_ns, t1_ns;      /* first span start / last span end of the timeline */
    gs_device_analysis *dev;   /* sorted by device id */
    size_t n_dev;
    double cause_s[GS_CAUSE_COUNT];   /* summed over devices */
    double idle_s, span_s, busy_s;    /* summed over devices */
    gs_gap_stats gap_stats;           /* all devices' gaps together */
    /* The kernel-level view summed over devices (see gs_device_analysis). */
    double kcause_s[GS_CAUSE_COUNT];
    double kidle_s, kernel_s;
    gs_cause kverdict;         /* its top cause (GS_CAUSE_OTHER when no kernel idle) */
    double kverdict_share;
    size_t injected_spans;
    double injected_s;
    double idle_during_trim_s;        /* summed over devices (see above) */
    /* The GPU workers' device calls (prove_start steps of gpu_worker lanes
     * that carry their CPU time): wall and CPU seconds, summed.  CPU near
     * the wall is a worker spinning while its device works (the CUDA
     * runtime's default wait with fewer contexts than CPUs), a core the
     * host's other threads do not get (diag/README.md, "Worker spin").
     * CUDA backend runs only (meta backend = cuda): on the CPU backend
     * prove_start's CPU is the proof itself. */
    double worker_call_s, worker_call_cpu_s;
    uint64_t dropped_spans;
    gs_cause verdict;          /* top cause (GS_CAUSE_OTHER when no idle) */
    double verdict_share;      /* its share of idle time, 0..1 */
    gs_cause_detail *details;  /* (cause, detail) pairs of launcher-rule pieces */
    size_t n_details;
    gs_stack_stat *stacks;     /* the top GS_TOP_STACKS stack pairs by idle time */
    size_t n_stacks;
    char wake_mech[32];        /* meta attach.wake: how wake-up edges were found, "" none */
} gs_analysis;
#define GS_TOP_STACKS 5

gs_status gs_analyze(gs_analysis **out, gs_timeline *tl, const gs_analysis_config *cfg,
                     gs_err *err);
void gs_analysis_destroy(gs_analysis *a);

/* The worker-spin note (diag/README.md, "Worker spin"): fills buf and
 * returns 1 when the GPU workers' device calls ran on a CPU for at least
 * half their wall time, else returns 0 (buf "").  The note takes up to
 * ~700 bytes: give it 1024. */
int gs_analysis_spin_note(char *buf, size_t n, const gs_analysis *a);
#define GS_SPIN_NOTE_MIN 0.5

/* Idle seconds of the causes matching name_or_group (gs_cause_matches). */
double gs_analysis_cause_idle(const gs_analysis *a, const char *name_or_group);
/* The verdict in one sentence (always NUL-terminated); when the top cause
 * came from a wake-up chain, the chain with the most idle time follows. */
void gs_analysis_verdict(char *buf, size_t n, const gs_analysis *a);
/* The wake-up chain (a detail naming "X waits on ...") of the verdict cause
 * with the most idle time, or NULL. */
const gs_cause_detail *gs_analysis_top_chain(const gs_analysis *a);

/* ---- helpers (intervals.c), exposed for tests and the gate ---- */

/* Sorts iv and merges overlapping or touching intervals in place; returns
 * the new count.  Empty intervals (end <= start) are dropped. */
size_t gs_interval_union(gs_interval *iv, size_t n);
/* The union of each group's intervals (group[i] in 0 .. n_groups - 1):
 * iv is reordered so that group g's union is iv[first[2g] ..
 * first[2g] + first[2g + 1]).  Returns first (2 * n_groups entries,
 * malloc'd, the caller frees it), NULL when out of memory. */
size_t *gs_interval_union_groups(gs_interval *iv, const int32_t *group, size_t n, int32_t n_groups);
/* Total length in ns of disjoint intervals. */
int64_t gs_interval_total(const gs_interval *iv, size_t n);
/* Length of the overlap of disjoint sorted intervals with [a, b). */
int64_t gs_interval_overlap(const gs_interval *iv, size_t n, int64_t a, int64_t b);
/* Nearest-rank percentile of sorted values (p in 0..100); 0 when n == 0. */
double gs_percentile(const double *sorted, size_t n, double p);
/* Fills st from gap lengths in seconds (sorted ascending on return). */
void gs_gap_stats_compute(gs_gap_stats *st, double *len_s, size_t n, double micro_s);

#endif
