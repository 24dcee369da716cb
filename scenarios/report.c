/*
 * After a run: the run directory rendered (report/render.h: the analysis
 * recomputed from the saved spans.csv and jobs.csv, summary.json and, with
 * charts, data/, charts/ and report.md/report.html), and the analysis's
 * numbers copied into the run result: the figures a sweep tabulates come
 * from here.  The same figures of a run directory left by another process
 * (a sweep's Slurm tasks): gs_scn_result_load, with the run's hardware
 * (gs_scn_hw_class) for comparing like with like.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../report/render.h"
#include "run.h"

_Static_assert(GS_CAUSE_COUNT <= GS_SCN_MAX_CAUSES, "run result cause array too small");

/* The analysis's figures a sweep tabulates. */
static void copy_analysis(gs_run_result *res, const gs_analysis *a)
{
    res->analyzed = 1;
    res->gpu_idle_s = a->idle_s;
    res->gpu_span_s = a->span_s;
    res->gpu_util = a->span_s > 0 ? a->busy_s / a->span_s : 0.0;
    for (int c = 0; c < GS_CAUSE_COUNT; c++)
        res->cause_idle_s[c] = a->cause_s[c];
    gs_analysis_verdict(res->verdict, sizeof res->verdict, a);
}

gs_status gs_scn_report(gs_run_result *res, int quiet, int charts, gs_err *err)
{
    gs_render_opts o;
    gs_render_opts_defaults(&o);
    o.quiet = quiet;
    o.charts = o.report = charts;
    o.verdict = 1;
    gs_render_result rr;
    gs_status st = gs_render(&rr, res->dir, &o, err);
    if (rr.loaded)
        copy_analysis(res, rr.run.an);
    gs_render_result_free(&rr);
    return st;
}

void gs_scn_hw_class(char *out, size_t cap, const gs_timeline *tl)
{
    size_t n = 0;
    out[0] = '\0';
    for (int d = 0; d < 64; d++) {
        char key[32];
        snprintf(key, sizeof key, "device.%d.name", d);
        const char *v = gs_timeline_meta_get(tl, key);
        if (!v)
            break;
        n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "%s%s", d ? " + " : "", v);
        if (n >= cap)
            return;
    }
    const char *cpu = gs_timeline_meta_get(tl, "host.cpu");
    snprintf(out + n, cap - n, "%s%s", n ? " / " : "", cpu ? cpu : "unknown CPU");
}

/* A count of the timeline's metadata (0 when absent or not a number). */
static int64_t meta_i64(const gs_timeline *tl, const char *key)
{
    const char *v = gs_timeline_meta_get(tl, key);
    return v ? strtoll(v, NULL, 10) : 0;
}

gs_status gs_scn_result_load(gs_run_result *res, const char *dir, char *hw, size_t hw_cap, gs_err *err)
{
    memset(res, 0, sizeof *res);
    snprintf(res->dir, sizeof res->dir, "%s", dir);
    gs_render_opts o;
    gs_render_opts_defaults(&o);
    o.quiet = 1;
    gs_render_result rr;
    gs_status st = gs_render(&rr, dir, &o, err);
    if (rr.loaded) {
        const gs_run *r = &rr.run;
        copy_analysis(res, r->an);
        res->arrivals = r->n_jobs;
        for (size_t i = 0; i < r->n_jobs; i++) {
            const gs_job_record *j = &r->job_records[i];
            res->submitted += j->submitted_ns >= 0;
            res->completed += !strcmp(j->status, "ok");
            res->failed += strcmp(j->status, "ok") && strcmp(j->status, "pending");
            res->verified += j->verified == 1;
            res->verify_failed += j->verified == -1;
            res->cancelled += !strcmp(j->status, "GS_ERR_CANCELLED");
        }
        res->wall_s = (double)(meta_i64(r->tl, "run.end_ns") - meta_i64(r->tl, "run.start_ns")) * 1e-9;
        const char *v = gs_timeline_meta_get(r->tl, "run.drained");
        res->drained = !v || strcmp(v, "0");
        v = gs_timeline_meta_get(r->tl, "run.interrupted");
        res->interrupted = !v ? 0 : !strcmp(v, "SIGINT") ? SIGINT : SIGTERM;
        if (hw)
            gs_scn_hw_class(hw, hw_cap, r->tl);
    }
    gs_render_result_free(&rr);
    return st;
}
