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

#define GS_SCN_MAX_CAUSES 16

#include <stddef.h>
#include <stdint.h>

#include "../prover/common/status.h"
#include "scenario.h"
#include "trace.h"

/* ---- SHA-256 (FIPS 180-4), for the build fingerprint ---- */
typedef struct gs_sha256 {
    uint32_t h[8];
    uint64_t len;
    uint8_t buf[64];
    size_t n;
} gs_sha256;
void gs_sha256_init(gs_sha256 *c);
void gs_sha256_update(gs_sha256 *c, const void *data, size_t n);
void gs_sha256_final(uint8_t out[32], gs_sha256 *c);
void gs_sha256_hex(char out[65], const uint8_t digest[32]);
gs_status gs_sha256_file(char out[65], const char *path, gs_err *err);

/* ---- build and host fingerprint (timeline metadata keys, diag/SPANS.md) ---- */
typedef struct gs_fingerprint {
    char version[32];        /* gapscope.version */
    char git_rev[64];        /* build.git_rev: compile-time GS_GIT_REV, else `git rev-parse`, else "unknown" */
    char binary_sha256[65];  /* build.binary_sha256 of /proc/self/exe */
    char cpu[128];           /* host.cpu */
    int threads;             /* host.threads */
} gs_fingerprint;
void gs_fingerprint_get(gs_fingerprint *fp);

/* mkdir -p. */
gs_status gs_mkdir_p(const char *dir, gs_err *err);

/* ---- run ---- */
typedef struct gs_run_opts {
    const char *out_dir;     /* NULL: runs/<scenario>-<UTC time> */
    int quiet;               /* no progress lines */
    int no_report;           /* skip diag's analysis and report */
    int no_charts;           /* analysis and summary.json only (sweeps) */
    const char *record_path; /* also write the processed arrivals as a trace */
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
    /* A capture instead of a scenario: every run is a prediction of the
     * capture's scenario on its model (predict.h), fitted once. */
    const char *predict;
} gs_sweep_opts;
gs_status gs_scn_sweep(const gs_sweep_opts *o, gs_err *err);

/* Ordinary least squares y = a + b x with the 95% interval of b
 * (Student t with n-2 degrees of freedom).  Returns 0 when n < 3 or x is constant. */
int gs_ols_slope(double *slope, double *ci95, double *intercept, const double *x, const double *y, size_t n);

#endif
