/* Loading a run directory or a spans.csv (run.h). */
#define _POSIX_C_SOURCE 200809L
#include "run.h"

#include "../common/clock.h"
#include "../common/paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

gs_status gs_run_locate(gs_run *r, const char *arg, gs_err *err)
{
    struct stat sb;
    memset(r, 0, sizeof *r);
    if (stat(arg, &sb) != 0)
        return gs_err_set(err, GS_ERR_IO, "run", arg, "no such run directory or spans.csv");
    if (S_ISDIR(sb.st_mode)) {
        snprintf(r->dir, sizeof r->dir, "%s", arg);
        if (!gs_path_join(r->spans, sizeof r->spans, arg, "spans.csv"))
            return gs_err_set(err, GS_ERR_ARG, "run", arg, "path too long");
        if (stat(r->spans, &sb) != 0)
            return gs_err_set(err, GS_ERR_IO, "run", arg,
                              "no spans.csv in this directory (is it a run directory?)");
    } else {
        snprintf(r->spans, sizeof r->spans, "%s", arg);
        const char *slash = strrchr(arg, '/');
        if (slash)
            snprintf(r->dir, sizeof r->dir, "%.*s", (int)(slash - arg), arg);
        else
            snprintf(r->dir, sizeof r->dir, ".");
        if (!r->dir[0])
            snprintf(r->dir, sizeof r->dir, "/");
    }
    return GS_OK;
}

gs_status gs_run_load(gs_run *r, const char *arg, const gs_analysis_config *cfg, gs_err *err)
{
    struct stat sb;
    gs_status st = gs_run_locate(r, arg, err);
    if (st != GS_OK)
        return st;
    if (cfg && cfg->progress)
        fprintf(stderr, "analyze: reading %s\n", r->spans);
    int64_t t0 = gs_now_ns();
    if ((st = gs_timeline_read_csv(&r->tl, r->spans, err)) != GS_OK)
        goto fail;
    size_t n;
    gs_timeline_spans(r->tl, &n);
    int64_t t1 = gs_now_ns();
    if (cfg && cfg->progress)
        fprintf(stderr, "analyze: %zu spans on %zu lanes read and sorted in %.2f s\n", n,
                gs_timeline_lane_count(r->tl), (double)(t1 - t0) * 1e-9);
    if ((st = gs_analyze(&r->an, r->tl, cfg, err)) != GS_OK)
        goto fail;
    if ((st = gs_fleet_analyze(&r->fleet, r->an, err)) != GS_OK)
        goto fail;
    if (cfg && cfg->progress)
        fprintf(stderr, "analyze: %zu gaps on %zu devices analysed in %.2f s\n",
                r->an->gap_stats.count, r->an->n_dev, (double)(gs_now_ns() - t1) * 1e-9);
    char jobs[2100];
    if (gs_path_join(jobs, sizeof jobs, r->dir, "jobs.csv") && stat(jobs, &sb) == 0) {
        if ((st = gs_jobs_read_csv(&r->job_records, &r->n_jobs, jobs, err)) != GS_OK)
            goto fail;
        gs_job_stats_from_records(&r->jobs, r->job_records, r->n_jobs);
    } else {
        gs_job_stats_from_timeline(&r->jobs, r->tl);
    }
    return GS_OK;
fail:
    gs_run_free(r);
    return st;
}

void gs_run_free(gs_run *r)
{
    gs_fleet_destroy(r->fleet);
    gs_analysis_destroy(r->an);
    gs_timeline_destroy(r->tl);
    free(r->job_records);
    r->an = NULL;
    r->fleet = NULL;
    r->tl = NULL;
    r->job_records = NULL;
}

const char *const gs_run_outputs[] = {"summary.json", "data", "charts", "report.md",
                                      "report.html", "timeline.json",
                                      "timeline.perfetto-trace", NULL};
