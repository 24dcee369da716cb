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
 *   spans.csv       the timeline, loss-free (timeline/README.md)
 *   timeline.json   Chrome trace for Perfetto
 *   summary.json, report.html, report.md, charts   (diag's analysis, report's rendering)
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

#include "../common/paths.h"  /* gs_mkdir_p, for the drivers and their callers */
#include "../common/sha256.h" /* gs_sha256_file, for the build fingerprint */
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
    int no_trace;            /* spans.csv without timeline.json (a scratch run
                                that only its analysis reads) */
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
/* out = "runs/<name>-<UTC time YYYYMMDD-HHMMSS>": the default run directory
 * of run, import, predict and what-if. */
void gs_scn_default_run_dir(char *out, size_t cap, const char *name);

gs_status gs_scn_run(const gs_scenario *s, const gs_run_opts *o, gs_run_result *res, gs_err *err);

/* Runs diag's analysis on the finished run directory res->dir, fills res's
 * analysis fields and writes summary.json; with charts also the data
 * files, the charts and report.md/report.html (report.c). */
gs_status gs_scn_report(gs_run_result *res, int quiet, int charts, gs_err *err);

/* Fills res from a finished run directory dir (one another process ran: a
 * Slurm task) as gs_scn_run would have: job counts from jobs.csv, wall
 * time, drain and interruption from the timeline's metadata, the analysis
 * recomputed (summary.json rewritten, nothing rendered).  hw (may be NULL)
 * gets gs_scn_hw_class of the run. */
gs_status gs_scn_result_load(gs_run_result *res, const char *dir, char *hw, size_t hw_cap, gs_err *err);
/* The hardware a run ran on, from its timeline metadata: the device names
 * joined by " + ", then " / " and host.cpu ("NVIDIA H100 80GB HBM3 / Intel
 * Xeon ...").  Runs are compared like with like when these are equal. */
struct gs_timeline;
void gs_scn_hw_class(char *out, size_t cap, const struct gs_timeline *tl);

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
    /* one_task: run only run `task` of the order (0-based: what a Slurm
     * array task does, OUT/run-NNN), and write no tables. */
    int one_task, task;
} gs_sweep_opts;
gs_status gs_scn_sweep(const gs_sweep_opts *o, gs_err *err);

/* The plan of a sweep: its varied keys and the shuffled order of its runs
 * (every point x rep plus the baseline reps), as gs_scn_sweep runs them.
 * Drivers that run the runs elsewhere (slurm_sweep.c) build the same plan,
 * run each run as `gapscope sweep ... --task I`, and write the same tables
 * from the results.  The plan borrows o's strings; it owns the model of a
 * --predict sweep (fitted once). */
typedef struct gs_sweep_plan gs_sweep_plan;
gs_status gs_sweep_plan_create(gs_sweep_plan **out, const gs_sweep_opts *o, gs_err *err);
void gs_sweep_plan_destroy(gs_sweep_plan *p);
int gs_sweep_plan_total(const gs_sweep_plan *p);
/* Run i's point (index into the product of the --vary values, -1 for a
 * baseline run) and repetition. */
void gs_sweep_plan_slot(const gs_sweep_plan *p, int i, int *point, int *rep);
/* The validated scenario of run i (destroy it; with a capture, a temporary
 * scenario file is named in tmp: unlink it after the run). */
gs_status gs_sweep_plan_scenario(const gs_sweep_plan *p, int i, gs_scenario **out, char *tmp, size_t tmp_cap,
                                 gs_err *err);
/* Writes OUT's tables and chart (sweep.csv, sensitivity.csv, sweep.dat,
 * sweep_causes.dat, charts/sweep.*) from the results of runs 0..total-1.
 * ran (NULL: every run ran) marks the runs with results: the others are
 * listed in sweep.csv with empty figures and their verdict (what happened
 * instead) and kept out of the other tables, as are rows not analyzed. */
gs_status gs_sweep_plan_tables(const gs_sweep_plan *p, const gs_run_result *rows, const unsigned char *ran,
                               int total, gs_err *err);

/* Ordinary least squares y = a + b x with the 95% interval of b
 * (Student t with n-2 degrees of freedom).  Returns 0 when n < 3 or x is constant. */
int gs_ols_slope(double *slope, double *ci95, double *intercept, const double *x, const double *y, size_t n);

#endif
