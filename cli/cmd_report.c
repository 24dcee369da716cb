/* gapscope report RUN_DIR: report.md + self-contained report.html. */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "diag_cli.h"

typedef struct {
    gs_diag_opts d;
    gs_report_opts ro;
    int no_charts;
    gs_cli_list target;
} report_args;

static int set_top(void *field, const char *val, const gs_cli_opt *opt, const char *cmd)
{
    (void)opt, (void)cmd;
    char *e;
    long v = strtol(val, &e, 10);
    if (*e || v < 0 || v > 10000) {
        fprintf(stderr, "gapscope report: --top wants 0..10000\n");
        return 0;
    }
    *(int *)field = (int)v;
    return 1;
}

static const gs_cli_opt report_opts[] = {
    GS_CLI_FN("--top", NULL, "N", "gaps listed in detail (default 10)", set_top, report_args,
              ro.top_gaps),
    GS_CLI_FLAG("--no-charts", NULL, "do not run gnuplot", report_args, no_charts),
    GS_CLI_GROUP(gs_diag_cli_opts, report_args, d),
    GS_CLI_END};

static const gs_cli_spec report_spec = {
    .cmd = "report",
    .usage = "usage: gapscope report RUN_DIR|spans.csv [options]\n"
             "  Re-analyses the saved run (no re-run), refreshes summary.json and data/,\n"
             "  draws the charts with gnuplot (skipped with a note when gnuplot is\n"
             "  missing) and writes report.md and a self-contained report.html.\n",
    .opts = report_opts,
    GS_CLI_ARGS(report_args, target, 1, 1),
};

static int report_main(int argc, char **argv)
{
    report_args a = {.no_charts = 0};
    gs_diag_opts_init(&a.d);
    gs_report_opts_defaults(&a.ro);
    int rc = gs_cli_parse(&report_spec, &a, argc, argv, NULL);
    if (rc != GS_CLI_GO)
        return rc;
    return gs_diag_report(a.target.v[0], &a.d, &a.ro, !a.no_charts);
}

GS_CLI_COMMAND(report, "report", "render report.html/report.md (charts embedded) of a run",
               report_main)
