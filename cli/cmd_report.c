/* gapscope report RUN_DIR: report.md + self-contained report.html. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../report/charts.h"
#include "../report/report.h"
#include "../common/outdir.h"
#include "cli.h"
#include "diag_cli.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gapscope report RUN_DIR|spans.csv [options]\n"
            "  Re-analyses the saved run (no re-run), refreshes summary.json and data/,\n"
            "  draws the charts with gnuplot (skipped with a note when gnuplot is\n"
            "  missing) and writes report.md and a self-contained report.html.\n"
            "options:\n"
            "  --top N        gaps listed in detail (default 10)\n"
            "  --no-charts    do not run gnuplot\n"
            "  --micro-ms X   micro/macro gap threshold in ms (default 1)\n"
            "  --bin-s X      utilization-over-time bin in seconds (default 0.2)\n"
            "  --plots DIR    gnuplot templates (default: found next to the binary)\n"
            "  --quiet        no progress lines\n");
}

static int report_main(int argc, char **argv)
{
    gs_diag_opts o;
    gs_diag_opts_init(&o);
    gs_report_opts ro;
    gs_report_opts_defaults(&ro);
    const char *target = NULL;
    int charts = 1;
    for (int i = 1; i < argc; i++) {
        int k = gs_diag_parse_common(argc, argv, &i, &o);
        if (k < 0) {
            fprintf(stderr, "gapscope report: bad value for %s\n", argv[i - 1]);
            return 2;
        }
        if (k)
            continue;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(argv[i], "--no-charts")) {
            charts = 0;
        } else if (!strcmp(argv[i], "--top") && i + 1 < argc) {
            char *e;
            long v = strtol(argv[++i], &e, 10);
            if (*e || v < 0 || v > 10000) {
                fprintf(stderr, "gapscope report: --top wants 0..10000\n");
                return 2;
            }
            ro.top_gaps = (int)v;
        } else if (argv[i][0] == '-' || target) {
            usage(stderr);
            return 2;
        } else {
            target = argv[i];
        }
    }
    if (!target) {
        usage(stderr);
        return 2;
    }
    if (o.quiet)
        o.cfg.progress = 0;
    return gs_diag_report(target, &o, &ro, charts);
}

int gs_diag_report(const char *target, const gs_diag_opts *o, gs_report_opts *ro, int charts)
{
    gs_run r;
    gs_err err;
    gs_err_clear(&err);
    if (!o->quiet)
        fprintf(stderr, "report: analysing %s\n", target);
    if (gs_run_load(&r, target, &o->cfg, &err) != GS_OK) {
        fprintf(stderr, "gapscope report: %s\n", err.msg);
        return err.status == GS_ERR_NOMEM ? 3 : 2;
    }
    gs_outdir od;   /* a failed report leaves the run's previous outputs as they were */
    if (gs_outdir_begin(&od, r.dir, gs_run_outputs, &err) != GS_OK) {
        fprintf(stderr, "gapscope report: %s\n", err.msg);
        gs_run_free(&r);
        return 3;
    }
    int rc = gs_diag_write_outputs(&r, o);
    char note[700];
    if (rc == 0 && charts) {
        int n_ok = 0;
        if (!o->quiet)
            fprintf(stderr, "report: drawing charts (gnuplot)\n");
        gs_err_clear(&err);
        if (gs_charts_render(r.dir, o->plots, &n_ok, &err) != GS_OK) {
            fprintf(stderr, "gapscope report: %s\n", err.msg);
            if (n_ok == 0) {
                snprintf(note, sizeof note, "Charts were not drawn: %s", err.msg);
                ro->charts_note = note;
            }
        }
    } else if (!charts) {
        ro->charts_note = "Charts were not drawn (--no-charts).";
    }
    if (rc == 0) {
        if (!o->quiet)
            fprintf(stderr, "report: writing report.md and report.html\n");
        gs_err_clear(&err);
        if (gs_report_write(&r, ro, &err) != GS_OK) {
            fprintf(stderr, "gapscope report: %s\n", err.msg);
            rc = 3;
        } else {
            char v[1024];
            gs_analysis_verdict(v, sizeof v, r.an);
            printf("%s\n%s/report.html\n%s/report.md\n", v, r.dir, r.dir);
        }
    }
    ro->charts_note = NULL;   /* it may point at note, which goes out of scope */
    gs_run_free(&r);
    return gs_outdir_end(&od, rc);
}

GS_CLI_COMMAND(report, "report", "render report.html/report.md (charts embedded) of a run",
               report_main)
