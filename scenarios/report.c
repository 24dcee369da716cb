/*
 * After a run: diag's analysis and report of the saved run directory
 * (gs_run_load re-reads spans.csv and jobs.csv, so the figures are those
 * anyone recomputes later from the same files).  The numbers a sweep
 * tabulates come from here.
 */
#include <stdio.h>
#include <string.h>

#include "../diag/run.h"
#include "run.h"

gs_status gs_scn_report(gs_run_result *res, int quiet, gs_err *err)
{
    gs_analysis_config cfg;
    gs_analysis_config_defaults(&cfg);
    cfg.progress = !quiet;
    gs_run r;
    memset(&r, 0, sizeof r);
    gs_status st = gs_run_load(&r, res->dir, &cfg, err);
    if (st != GS_OK)
        return st;
    const gs_analysis *a = r.an;
    res->analyzed = 1;
    res->gpu_idle_s = a->idle_s;
    res->gpu_span_s = a->span_s;
    res->gpu_util = a->span_s > 0 ? a->busy_s / a->span_s : 0.0;
    gs_analysis_verdict(res->verdict, sizeof res->verdict, a);
    char path[GS_SCN_PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/summary.json", res->dir);
    st = gs_summary_write(&r, path, err);
    if (st == GS_OK && !quiet)
        fprintf(stderr, "gapscope: GPU busy %.1f%% of %.2f s (kernels or copies busy / span), idle %.2f s\n"
                        "gapscope: verdict: %s\n",
                100.0 * res->gpu_util, a->span_s, a->idle_s, res->verdict);
    gs_run_free(&r);
    return st;
}
