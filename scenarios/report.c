/*
 * After a run: diag's analysis and report of the saved run directory, the
 * same steps as `gapscope report RUN_DIR` (gs_run_load re-reads spans.csv
 * and jobs.csv, so the figures are those anyone recomputes later from the
 * same files): summary.json, data/ files, charts/ (gnuplot; skipped with a
 * note when it is missing), report.md and report.html.  The numbers a
 * sweep tabulates come from here too.
 */
#include <stdio.h>
#include <string.h>

#include "../report/charts.h"
#include "../report/report.h"
#include "../diag/run.h"
#include "run.h"

_Static_assert(GS_CAUSE_COUNT <= GS_SCN_MAX_CAUSES, "run result cause array too small");

gs_status gs_scn_report(gs_run_result *res, int quiet, int charts, gs_err *err)
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
    for (int c = 0; c < GS_CAUSE_COUNT; c++)
        res->cause_idle_s[c] = a->cause_s[c];
    gs_analysis_verdict(res->verdict, sizeof res->verdict, a);
    char path[GS_SCN_PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/summary.json", res->dir);
    if ((st = gs_summary_write(&r, path, err)) != GS_OK)
        goto done;
    if (charts) {
        if ((st = gs_plot_data_write(&r, err)) != GS_OK)
            goto done;
        gs_report_opts ro;
        gs_report_opts_defaults(&ro);
        char note[GS_ERR_MSG_MAX + 64];
        int n_ok = 0;
        gs_err cerr;
        gs_err_clear(&cerr);
        if (!quiet)
            fprintf(stderr, "gapscope: drawing charts (gnuplot)\n");
        if (gs_charts_render(res->dir, NULL, &n_ok, &cerr) != GS_OK) {
            if (!quiet)
                fprintf(stderr, "gapscope: %s\n", cerr.msg);
            if (n_ok == 0) {
                snprintf(note, sizeof note, "Charts were not drawn: %s", cerr.msg);
                ro.charts_note = note;
            }
        }
        if ((st = gs_report_write(&r, &ro, err)) != GS_OK)
            goto done;
    }
    if (!quiet)
        fprintf(stderr, "gapscope: GPU busy %.1f%% of %.2f s (kernels or copies busy / span), idle %.2f s\n"
                        "gapscope: verdict: %s\n",
                100.0 * res->gpu_util, a->span_s, a->idle_s, res->verdict);
done:
    gs_run_free(&r);
    return st;
}
