/*
 * After a run: the run directory rendered (report/render.h: the analysis
 * recomputed from the saved spans.csv and jobs.csv, summary.json and, with
 * charts, data/, charts/ and report.md/report.html), and the analysis's
 * numbers copied into the run result: the figures a sweep tabulates come
 * from here.
 */
#include "../report/render.h"
#include "run.h"

_Static_assert(GS_CAUSE_COUNT <= GS_SCN_MAX_CAUSES, "run result cause array too small");

gs_status gs_scn_report(gs_run_result *res, int quiet, int charts, gs_err *err)
{
    gs_render_opts o;
    gs_render_opts_defaults(&o);
    o.quiet = quiet;
    o.charts = o.report = charts;
    o.verdict = 1;
    gs_render_result rr;
    gs_status st = gs_render(&rr, res->dir, &o, err);
    if (rr.loaded) {
        const gs_analysis *a = rr.run.an;
        res->analyzed = 1;
        res->gpu_idle_s = a->idle_s;
        res->gpu_span_s = a->span_s;
        res->gpu_util = a->span_s > 0 ? a->busy_s / a->span_s : 0.0;
        for (int c = 0; c < GS_CAUSE_COUNT; c++)
            res->cause_idle_s[c] = a->cause_s[c];
        gs_analysis_verdict(res->verdict, sizeof res->verdict, a);
    }
    gs_render_result_free(&rr);
    return st;
}
