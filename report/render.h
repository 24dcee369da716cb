/*
 * Rendering a run directory, written once.  Every command that leaves or
 * re-reads a run directory (`gapscope run`, `replay`, `predict`, `attach`,
 * `import`, `report`, `analyze`, the runs of a sweep) ends with the same
 * steps, in this order:
 *
 *   1. load (diag/run.h): spans.csv (and jobs.csv) re-read, the analysis
 *      recomputed, so the figures are those anyone gets later from the
 *      same files;
 *   2. summary.json;
 *   3. data/ (plot data, diag/run.h) and timeline.json when the directory
 *      has none, if data, charts or report is asked for;
 *   4. charts/ with gnuplot (charts.h), if charts: when gnuplot or the
 *      templates are missing a warning goes to stderr and, when no chart
 *      was drawn, the report says why;
 *   5. report.md and report.html (report.h), if report;
 *   6. with verdict: "GPU busy ..." and "verdict: ..." lines on stderr.
 *
 * Messages name the caller through tag: progress lines "TAG: ..." and
 * warnings "gapscope TAG: ..." (tag NULL: "gapscope: ..." for both).
 * Progress lines ("drawing charts", the verdict lines and, with steps,
 * "analysing TARGET" and "writing report.md and report.html") are left out
 * when quiet; warnings are not; the analysis's own follow cfg->progress
 * (without cfg: unless quiet).  Nothing is printed on stdout, and errors
 * are returned, not printed.
 *
 * Ownership: gs_render fills caller storage; the result holds the loaded
 * run until gs_render_result_free (also after a failure).  Not thread safe
 * (charts fork gnuplot).
 */
#ifndef GS_RENDER_H
#define GS_RENDER_H

#include "../diag/run.h"
#include "report.h"

typedef struct gs_render_opts {
    const gs_analysis_config *cfg;  /* NULL: defaults, with progress unless quiet */
    const char *plots_dir;          /* gnuplot templates; NULL: found as charts.h says */
    const char *tag;                /* names the caller in messages (see above) */
    int quiet;                      /* no progress lines */
    int steps;                      /* announce loading and the report too */
    int data;                       /* data/ and timeline.json (also implied below) */
    int charts;                     /* charts/ with gnuplot */
    int report;                     /* report.md and report.html */
    int verdict;                    /* the busy and verdict lines on stderr */
    gs_report_opts report_opts;     /* its charts_note is set here, not by the caller */
} gs_render_opts;

/* Everything off, report_opts at their defaults. */
void gs_render_opts_defaults(gs_render_opts *o);

typedef struct gs_render_result {
    gs_run run;                     /* the loaded run: directory, timeline, analysis, jobs */
    int loaded;                     /* 1 once step 1 succeeded: a later failure is an output one */
    int charts_drawn;               /* charts drawn by step 4 */
    char verdict[1024];             /* gs_analysis_verdict of the run ("" until loaded) */
} gs_render_result;

/* Runs the steps above on target, a run directory or a spans.csv.  On
 * failure the steps after the failing one are skipped and err says why;
 * res->loaded tells a bad input (0) from a failed output (1). */
gs_status gs_render(gs_render_result *res, const char *target, const gs_render_opts *o,
                    gs_err *err);
void gs_render_result_free(gs_render_result *res);

#endif
