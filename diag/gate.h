/*
 * The utilization gate (`gapscope gate`): threshold checks on one run, or
 * a paired comparison of base and head runs, with JUnit XML and JSON
 * output.  Semantics and file formats: diag/README.md, "Gate".
 *
 * Single run: every device must satisfy min_util, min_util_kernels_only,
 * max_gap_p99, max_gap_max; the run must satisfy each max_cause_share
 * (idle seconds of the cause or cause group / summed device span) and
 * max_failed_jobs.  Unset limits (NaN, or -1 for counts) are not checked.
 *
 * Paired: util (kernels or copies busy / span, summed over devices) and the
 * gap p99 of N base and M head runs are compared with a one-sided
 * Mann-Whitney U test; a check fails only when the regression is both
 * significant (p < alpha) and practically large (median difference beyond
 * the floor).
 *
 * Ownership: gs_gate_result owns its checks (gs_gate_result_free).
 */
#ifndef GS_GATE_H
#define GS_GATE_H

#include <stddef.h>
#include <stdio.h>

#include "run.h"

#define GS_GATE_MAX_CAUSES 16

typedef struct gs_gate_limits {
    double min_util, min_util_kernels_only;     /* fractions 0..1 */
    double max_gap_p99_ms, max_gap_max_ms;
    struct {
        char cause[64];                          /* cause or group ("tracker_lock") */
        double max_share;                        /* of the summed device span */
    } cause[GS_GATE_MAX_CAUSES];
    int n_cause;
    long max_failed_jobs;
    /* paired mode */
    double alpha;                                /* default 0.05 */
    double min_util_drop;                        /* practical floor, default 0.02 */
    double min_gap_p99_increase_ms;              /* practical floor, default 5 */
} gs_gate_limits;

/* All unset, paired defaults set. */
void gs_gate_limits_init(gs_gate_limits *l);
/* Sets one limit by name ("min_util", "max_gap_p99", "max_cause_share",
 * "tracker_lock" inside [cause_share], ...).  Durations take a unit
 * (50ms, 1.5s, 200us; a bare number means ms).  Returns GS_ERR_ARG with a
 * message naming where (file:line or the option). */
gs_status gs_gate_limits_set(gs_gate_limits *l, const char *section, const char *key,
                             const char *value, const char *where, gs_err *err);
/* Reads an INI file of limits ([gate], [cause_share], [paired]). */
gs_status gs_gate_limits_load(gs_gate_limits *l, const char *path, gs_err *err);

typedef struct gs_gate_check {
    char name[128];            /* "util gpu0", "cause_share tracker_lock" */
    char op[4];                /* ">=" or "<=" */
    double value, limit;
    char unit[16];
    char detail[256];          /* how the value was computed */
    int pass;
} gs_gate_check;

typedef struct gs_gate_result {
    gs_gate_check *checks;
    size_t n, cap;
    int pass;                  /* all checks passed */
    char mode[16];             /* "single" or "paired" */
    /* Paired: the hosts' speed by the probe each run recorded
     * (common/hostprobe.h; meta host.probe.*): the median of each run's
     * before/after mean over base and head, head / base, the one-sided
     * Mann-Whitney p in the direction seen, and differs = 1 when head and
     * base are more than GS_GATE_HOST_TOL apart.  A note, never a failed
     * check: it says whether a util difference may be the host's.
     * host_probe = 0 when some run has no probe (older captures, predicted
     * runs) or the runs' probe versions or thread counts differ. */
    int host_probe, host_differs;
    double host_base, host_head, host_ratio, host_p;
    char host_note[512];
} gs_gate_result;

/* Relative host-speed difference above which a paired gate notes it. */
#define GS_GATE_HOST_TOL 0.15

void gs_gate_result_init(gs_gate_result *res, const char *mode);
void gs_gate_result_free(gs_gate_result *res);

gs_status gs_gate_evaluate(gs_gate_result *res, const gs_run *r, const gs_gate_limits *l);
/* Paired comparison of loaded runs (base[0..nb), head[0..nh)). */
gs_status gs_gate_paired(gs_gate_result *res, const gs_run *const *base, size_t nb,
                         const gs_run *const *head, size_t nh, const gs_gate_limits *l);

gs_status gs_gate_write_junit(const gs_gate_result *res, const char *path, gs_err *err);
gs_status gs_gate_write_json(const gs_gate_result *res, const char *path, gs_err *err);
/* "PASS util gpu0 = 0.953 >= 0.900" lines. */
void gs_gate_print(const gs_gate_result *res, FILE *f);

/* One-sided Mann-Whitney U test that y tends to be smaller than x
 * (Mann & Whitney 1947).  Returns the p-value; *u gets U of y (the number
 * of (x, y) pairs with y > x, ties counting 1/2).  Exact distribution when
 * there are no ties and nx + ny <= 60, else the normal approximation with
 * tie correction and continuity correction. */
double gs_mann_whitney_less(const double *x, size_t nx, const double *y, size_t ny, double *u);

#endif
