/*
 * Drivers: run a scenario through the real engine and leave a run
 * directory; sweep a scenario over values of its keys; record what a run
 * processed as a trace.
 *
 * A run: backends (cpu | cuda | model | auto) -> timeline -> engine ->
 * replay of the job mix (timed | afap | scaled; every job carries its
 * intended arrival, so latency counts from it) -> drain -> the run
 * directory:
 *
 *   scenario.ini    the settings in effect (reloadable)
 *   arrivals.jsonl  the job mix replayed (trace format, traces/README.md)
 *   jobs.csv        per-job results (columns: scenarios/README.md)
 *   spans.csv       the timeline, loss-free (diag/README.md)
 *   timeline.json   Chrome trace for Perfetto
 *   summary.json, report.html, report.md, charts   (diag's analysis/report)
 *
 * Thread safety: one run at a time per process (the engine's threads are
 * the only concurrency).  Progress lines go to stderr unless quiet.
 */
#ifndef GS_SCN_RUN_H
#define GS_SCN_RUN_H

#define GS_SCN_MAX_CAUSES 32

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/sha256.h" /* gs_sha256_file, for the build fingerprint */
#include "../common/outdir.h"
#include "../common/status.h"
#include "scenario.h"
#include "trace.h"

/* ---- build and host fingerprint (timeline metadata keys, timeline/SPANS.md) ---- */
typedef struct gs_fingerprint {
    char version[32];        /* gapscope.version */
    char git_rev[64];        /* build.git_rev: compile-time GS_GIT_REV, else `git rev-parse`, else "unknown" */
    char binary_sha256[65];  /* build.binary_sha256 of /proc/self/exe */
    char cpu[128];           /* host.cpu */
    int threads;             /* host.threads */
} gs_fingerprint;
void gs_fingerprint_get(gs_fingerprint *fp);

/* mkdir -p: gs_mkdir_p (common/outdir.h). */

/* ---- clean stops (interrupt.c) ---- */
/* The first SIGINT/SIGTERM received since gs_scn_interrupt_install (0:
 * none).  A second one exits the process at once with 128 + signo. */
extern volatile sig_atomic_t gs_scn_interrupt_sig;
void gs_scn_interrupt_install(void);
void gs_scn_interrupt_restore(void);
/* "SIGINT", "SIGTERM", "signal" ("" for 0). */
const char *gs_scn_signal_name(int sig);

/* ---- run ---- */
/* Grace for running partitions after a stop request before the run
 * directory is written anyway (unfinished jobs stay "pending"). */
#define GS_SCN_STOP_GRACE_NS (10LL * 1000000000LL)

typedef struct gs_run_opts {
    const char *out_dir;     /* NULL: runs/<scenario>-<UTC time> */
    int quiet;               /* no progress lines */
    int no_report;           /* skip the rendering (report, charts, data/); the
                                analysis still runs and writes summary.json */
    int no_charts;           /* analysis and summary.json only (sweeps) */
    const char *record_path; /* also write the processed arrivals as a trace */
    /* Polled at least every 50 ms when not NULL: a nonzero value (a signal
     * number, gs_scn_interrupt_sig) stops the run cleanly: no more
     * submissions, queued work cancelled, running partitions given
     * GS_SCN_STOP_GRACE_NS, then the run directory is written with
     * run.interrupted in its metadata and the cancelled jobs' errors
     * prefixed "interrupted (SIG...)". */
    const volatile sig_atomic_t *stop;
    /* backend = model: the fitted model to use (borrowed), NULL: fit the
     * scenario's model_timeline.  A model run is a prediction: the real
     * engine on the virtual clock with modelled work (predict.c). */
    struct gs_model *model;
} gs_run_opts;

typedef struct gs_run_result {
    char dir[GS_SCN_PATH_MAX];
    size_t arrivals, submitted, completed, failed, verified, verify_failed;
    double wall_s;
    int drained;             /* 0: drain timed out (jobs cancelled) */
    /* From diag's analysis when it ran (analyzed = 1). */
    int analyzed;
    double gpu_idle_s, gpu_span_s, gpu_util;
    double cause_idle_s[GS_SCN_MAX_CAUSES];   /* diag's GS_CAUSE_TABLE order */
    char verdict[512];
    int interrupted;         /* the signal that stopped the run (0: ran to the end) */
    size_t cancel_requests;  /* [jobs] cancel_probability: cancellations requested */
    size_t cancelled;        /* jobs that ended GS_ERR_CANCELLED */
} gs_run_result;

/* Runs s (validated) and writes the run directory. */
gs_status gs_scn_run(const gs_scenario *s, const gs_run_opts *o, gs_run_result *res, gs_err *err);

/* Runs diag's analysis on the finished run directory res->dir, fills res's
 * analysis fields and writes summary.json; with charts also the data
 * files, the charts and report.md/report.html (report.c). */
gs_status gs_scn_report(gs_run_result *res, int quiet, int charts, gs_err *err);

/* Writes the arrivals a run processed (jobs.csv of RUN_DIR: actual
 * submission times, first = 0) as a trace. */
gs_status gs_scn_record_from_run(const char *run_dir, const char *trace_path, gs_err *err);

/* ---- run check (runcheck.c): every job ended once, no partition proved twice ---- */
typedef struct gs_run_check {
    size_t submitted, completed, failed, cancelled, pending;
    size_t partitions_proved;   /* prove_start steps */
    size_t cancel_requests;     /* job_cancel marks */
} gs_run_check;
/* Checks run directory dir (spans.csv and jobs.csv): each submitted job has
 * one jobs.csv row and one job_done mark with the same status and is not
 * pending; each (job, partition) is proved and stored at most once, and
 * exactly once for a completed job.  GS_ERR_VERIFY names the first job
 * that breaks it; the counts are filled as far as the check got. */
gs_status gs_scn_check_run(const char *dir, gs_run_check *c, gs_err *err);

/* ---- sweep (sweep.c) ---- */
typedef struct gs_sweep_opts {
    const char *scenario;        /* scenario file */
    const char *const *sets;     /* --set section.key=value, applied to every run */
    int n_sets;
    const char *const *vary;     /* KEY=v1,v2,... (1..4 of them) */
    int n_vary;
    int reps;                    /* repetitions per point, and baseline runs */
    uint64_t seed;               /* order of the runs */
    const char *out_dir;
    int quiet;
    const volatile sig_atomic_t *stop;  /* as gs_run_opts.stop: the sweep ends
                                           after the interrupted run, tables of
                                           the runs done so far */
    /* A capture instead of a scenario: every run is a prediction of the
     * capture's scenario on its model (predict.h), fitted once. */
    const char *predict;
} gs_sweep_opts;
gs_status gs_scn_sweep(const gs_sweep_opts *o, gs_err *err);

/* Ordinary least squares y = a + b x with the 95% interval of b
 * (Student t with n-2 degrees of freedom).  Returns 0 when n < 3 or x is constant. */
int gs_ols_slope(double *slope, double *ci95, double *intercept, const double *x, const double *y, size_t n);

#endif
