/*
 * Rendering a run directory (render.h): load -> summary.json -> data/ ->
 * charts -> report.md/html -> verdict lines.  Called by scenarios/report.c
 * (after `gapscope run` and every run a driver makes) and by the report,
 * analyze and import commands in cli/.
 */
#define _POSIX_C_SOURCE 200809L
#include "render.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "charts.h"
#include "datafiles.h"

void gs_render_opts_defaults(gs_render_opts *o)
{
    memset(o, 0, sizeof *o);
    gs_report_opts_defaults(&o->report_opts);
}

/* A line on stderr: "TAG: " before progress, "gapscope TAG: " before a
 * warning ("gapscope: " for both without a tag). */
static void say(const gs_render_opts *o, int warning, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void say(const gs_render_opts *o, int warning, const char *fmt, ...)
{
    va_list ap;
    if (o->tag)
        fprintf(stderr, "%s%s: ", warning ? "gapscope " : "", o->tag);
    else
        fputs("gapscope: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* Step 3: summary.json's companions, data/ and the trace file (timeline.json
 * or timeline.perfetto-trace, timeline.h) when the directory has neither. */
static gs_status write_data(const gs_run *r, gs_err *err)
{
    char path[2300], pf[2300];
    gs_status st = gs_plot_data_write(r, err);
    if (st != GS_OK)
        return st;
    if (!gs_path_join(path, sizeof path, r->dir, GS_TRACE_CHROME_FILE) ||
        !gs_path_join(pf, sizeof pf, r->dir, GS_TRACE_PERFETTO_FILE) || access(path, F_OK) == 0 ||
        access(pf, F_OK) == 0)
        return GS_OK;
    return gs_timeline_write_traces(r->tl, r->dir, GS_TRACE_AUTO, NULL, err);
}

/* Step 4: the charts; returns the note the report carries (NULL: none). */
static const char *draw_charts(gs_render_result *res, const gs_render_opts *o, char *note,
                               size_t cap)
{
    if (!o->charts)
        return o->report ? "Charts were not drawn (--no-charts)." : NULL;
    if (!o->quiet)
        say(o, 0, "drawing charts (gnuplot)");
    gs_err cerr;
    gs_err_clear(&cerr);
    if (gs_charts_render(res->run.dir, o->plots_dir, &res->charts_drawn, &cerr) == GS_OK)
        return NULL;
    say(o, 1, "%s", cerr.msg);
    if (res->charts_drawn > 0)
        return NULL;
    /* The report is read where the run directory travels: its note drops
     * the error's location (this directory, as the command named it). */
    char where[4200];
    snprintf(where, sizeof where, "charts @ %s: ", res->run.dir);
    const char *why = strncmp(cerr.msg, where, strlen(where)) ? cerr.msg : cerr.msg + strlen(where);
    snprintf(note, cap, "Charts were not drawn: %s", why);
    return note;
}

gs_status gs_render(gs_render_result *res, const char *target, const gs_render_opts *o,
                    gs_err *err)
{
    memset(res, 0, sizeof *res);
    gs_analysis_config cfg;
    if (o->cfg) {
        cfg = *o->cfg;
    } else {
        gs_analysis_config_defaults(&cfg);
        cfg.progress = !o->quiet;
    }
    if (o->steps && !o->quiet)
        say(o, 0, "analysing %s", target);
    gs_status st = gs_run_load(&res->run, target, &cfg, err);
    if (st != GS_OK)
        return st;
    res->loaded = 1;
    const gs_run *r = &res->run;
    gs_analysis_verdict(res->verdict, sizeof res->verdict, r->an);
    char path[2300];
    if (!gs_path_join(path, sizeof path, r->dir, "summary.json"))
        return gs_err_set(err, GS_ERR_ARG, "render", r->dir, "path too long");
    if ((st = gs_summary_write(r, path, err)) != GS_OK)
        return st;
    if ((o->data || o->charts || o->report) && (st = write_data(r, err)) != GS_OK)
        return st;
    char note[GS_ERR_MSG_MAX + 64];
    gs_report_opts ro = o->report_opts;
    ro.charts_note = draw_charts(res, o, note, sizeof note);
    if (o->report) {
        if (o->steps && !o->quiet)
            say(o, 0, "writing report.md and report.html");
        if ((st = gs_report_write(r, &ro, err)) != GS_OK)
            return st;
    }
    if (o->verdict && !o->quiet) {
        const gs_analysis *a = r->an;
        say(o, 0, "GPU busy %.1f%% of %.2f s (kernels or copies busy / span), idle %.2f s",
            100.0 * (a->span_s > 0 ? a->busy_s / a->span_s : 0.0), a->span_s, a->idle_s);
        say(o, 0, "verdict: %s", res->verdict);
    }
    return GS_OK;
}

void gs_render_result_free(gs_render_result *res)
{
    gs_run_free(&res->run);
    res->loaded = 0;
}
