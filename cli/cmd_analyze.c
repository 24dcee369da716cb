/* gapscope analyze RUN_DIR|spans.csv: summary.json, plot data files, verdict. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../report/charts.h"
#include "../diag/run.h"
#include "../common/outdir.h"
#include "cli.h"
#include "diag_cli.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gapscope analyze RUN_DIR|spans.csv [options]\n"
            "  Reads the run's spans.csv (and jobs.csv when present), writes\n"
            "  summary.json, data/*.dat (plot data) and timeline.json (if missing)\n"
            "  into the run directory and prints the verdict.\n"
            "options:\n"
            "  --micro-ms X   micro/macro gap threshold in ms (default 1)\n"
            "  --bin-s X      utilization-over-time bin in seconds (default 0.2)\n"
            "  --charts       also draw the charts (gnuplot) into charts/\n"
            "  --plots DIR    gnuplot templates (default: found next to the binary)\n"
            "  --quiet        no progress, verdict only\n");
}

int gs_diag_parse_common(int argc, char **argv, int *i, gs_diag_opts *o)
{
    const char *a = argv[*i];
    if (!strcmp(a, "--micro-ms") && *i + 1 < argc) {
        char *e;
        double v = strtod(argv[++*i], &e);
        if (*e || !(v >= 0))
            return -1;
        o->cfg.micro_threshold_s = v * 1e-3;
        return 1;
    }
    if (!strcmp(a, "--bin-s") && *i + 1 < argc) {
        char *e;
        double v = strtod(argv[++*i], &e);
        if (*e || !(v > 0))
            return -1;
        o->cfg.bin_s = v;
        return 1;
    }
    if (!strcmp(a, "--plots") && *i + 1 < argc) {
        o->plots = argv[++*i];
        return 1;
    }
    if (!strcmp(a, "--quiet")) {
        o->quiet = 1;
        return 1;
    }
    return 0;
}

void gs_diag_opts_init(gs_diag_opts *o)
{
    memset(o, 0, sizeof *o);
    gs_analysis_config_defaults(&o->cfg);
    o->cfg.progress = isatty(2);
}

int gs_diag_write_outputs(gs_run *r, const gs_diag_opts *o)
{
    char path[2300];
    gs_err err;
    gs_err_clear(&err);
    if (!gs_path_join(path, sizeof path, r->dir, "summary.json") ||
        gs_summary_write(r, path, &err) != GS_OK || gs_plot_data_write(r, &err) != GS_OK) {
        fprintf(stderr, "gapscope: %s\n", err.msg[0] ? err.msg : "path too long");
        return 3;
    }
    if (gs_path_join(path, sizeof path, r->dir, "timeline.json") && access(path, F_OK) != 0 &&
        gs_timeline_write_chrome(r->tl, path, &err) != GS_OK) {
        fprintf(stderr, "gapscope: %s\n", err.msg);
        return 3;
    }
    (void)o;
    return 0;
}

void gs_diag_print_table(FILE *f, const gs_run *r)
{
    const gs_analysis *a = r->an;
    fprintf(f, "%-6s %10s %10s %8s %10s %8s %9s %9s %9s\n", "device", "span_s", "busy_s", "util",
            "util_kern", "gaps", "p50_ms", "p99_ms", "max_ms");
    for (size_t i = 0; i < a->n_dev; i++) {
        const gs_device_analysis *d = &a->dev[i];
        fprintf(f, "%-6d %10.3f %10.3f %7.1f%% %9.1f%% %8zu %9.3f %9.3f %9.3f\n", (int)d->device,
                d->span_s, d->busy_s, 100 * d->util, 100 * d->util_kernels_only, d->gap_stats.count,
                d->gap_stats.p50_ms, d->gap_stats.p99_ms, d->gap_stats.max_ms);
    }
    fprintf(f, "util = |kernels U copies| / span; util_kern = |kernels| / span "
               "(span = first to last device operation)\n");
    if (a->idle_s > 0) {
        fprintf(f, "idle by cause:\n");
        for (int pass = 0; pass < GS_CAUSE_COUNT; pass++) {
            /* the cause of rank `pass` in descending idle order */
            int best = -1;
            for (int c = 0; c < GS_CAUSE_COUNT; c++) {
                    if (a->cause_s[c] <= 0)
                    continue;
                int rank = 0;
                for (int o = 0; o < GS_CAUSE_COUNT; o++)
                    rank += a->cause_s[o] > a->cause_s[c] || (a->cause_s[o] == a->cause_s[c] && o < c);
                if (rank == pass)
                    best = c;
            }
            if (best < 0)
                break;
            fprintf(f, "  %-26s %10.3f s %6.1f%%\n", gs_cause_name((gs_cause)best), a->cause_s[best],
                    100 * a->cause_s[best] / a->idle_s);
        }
    }
    if (r->jobs.submitted >= 0)
        fprintf(f, "jobs (%s): %ld submitted, %ld completed, %ld failed, %ld verified\n",
                r->jobs.source, r->jobs.submitted, r->jobs.completed, r->jobs.failed,
                r->jobs.verified);
}

static int analyze_main(int argc, char **argv)
{
    gs_diag_opts o;
    gs_diag_opts_init(&o);
    const char *target = NULL;
    int charts = 0;
    for (int i = 1; i < argc; i++) {
        int k = gs_diag_parse_common(argc, argv, &i, &o);
        if (k < 0) {
            fprintf(stderr, "gapscope analyze: bad value for %s\n", argv[i - 1]);
            return 2;
        }
        if (k)
            continue;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(argv[i], "--charts"))
            charts = 1;
        else if (argv[i][0] == '-' || target) {
            usage(stderr);
            return 2;
        } else
            target = argv[i];
    }
    if (!target) {
        usage(stderr);
        return 2;
    }
    if (o.quiet)
        o.cfg.progress = 0;
    gs_run r;
    gs_err err;
    gs_err_clear(&err);
    if (gs_run_load(&r, target, &o.cfg, &err) != GS_OK) {
        fprintf(stderr, "gapscope analyze: %s\n", err.msg);
        return err.status == GS_ERR_NOMEM ? 3 : 2;
    }
    gs_outdir od;   /* a failed analyze leaves the run's previous outputs as they were */
    if (gs_outdir_begin(&od, r.dir, gs_run_outputs, &err) != GS_OK) {
        fprintf(stderr, "gapscope analyze: %s\n", err.msg);
        gs_run_free(&r);
        return 3;
    }
    int rc = gs_diag_write_outputs(&r, &o);
    if (rc == 0 && charts) {
        int n_ok;
        gs_err_clear(&err);
        if (gs_charts_render(r.dir, o.plots, &n_ok, &err) != GS_OK)
            fprintf(stderr, "gapscope analyze: %s\n", err.msg);
    }
    if (rc == 0) {
        if (!o.quiet)
            gs_diag_print_table(stdout, &r);
        char v[1024];
        gs_analysis_verdict(v, sizeof v, r.an);
        printf("%s\n", v);
        if (!o.quiet)
            printf("wrote %s/summary.json and %s/data/\n", r.dir, r.dir);
    }
    gs_run_free(&r);
    return gs_outdir_end(&od, rc);
}

GS_CLI_COMMAND(analyze, "analyze", "find and attribute GPU idle gaps of a run (summary.json)",
               analyze_main)
