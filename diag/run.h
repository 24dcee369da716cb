/*
 * A loaded run: its directory, timeline, analysis and job statistics.
 * Everything `gapscope analyze/report/gate` shows comes from here, and
 * all of it is recomputed from the saved files (no re-run).
 *
 * gs_run_load accepts a run directory (reads DIR/spans.csv and, when
 * present, DIR/jobs.csv) or a spans.csv path (the run directory is then its
 * folder).  Outputs go to the run directory.
 *
 * Ownership: gs_run_load fills caller storage; gs_run_free releases it.
 */
#ifndef GS_RUN_H
#define GS_RUN_H

#include "../common/paths.h" /* gs_path_join, for the files of a run directory */
#include "analysis.h"
#include "fleet.h"
#include "jobs.h"

typedef struct gs_run {
    char dir[2048];            /* run directory (outputs go here) */
    char spans[2048];          /* the spans.csv that was read */
    gs_timeline *tl;
    gs_analysis *an;
    gs_fleet *fleet;           /* two devices or more: the fleet view (fleet.h); else NULL */
    gs_job_stats jobs;
    gs_job_record *job_records;
    size_t n_jobs;
} gs_run;

gs_status gs_run_load(gs_run *r, const char *dir_or_csv, const gs_analysis_config *cfg,
                      gs_err *err);
void gs_run_free(gs_run *r);
/* gs_run_load's first step: r's dir and spans from dir_or_csv (r zeroed
 * first, nothing read), with gs_run_load's errors for a target that is
 * neither; a command learns here where its outputs will go before
 * gs_run_load or gs_render writes any. */
gs_status gs_run_locate(gs_run *r, const char *dir_or_csv, gs_err *err);

/* Writes DIR/summary.json (schema: diag/README.md, "summary.json"). */
gs_status gs_summary_write(const gs_run *r, const char *path, gs_err *err);

/* The entries of a run directory that `analyze` and `report` write
 * (summary.json, data, charts, report.md, report.html, timeline.json),
 * NULL-terminated: what a failed command removes (common/outdir.h). */
extern const char *const gs_run_outputs[];

#endif
