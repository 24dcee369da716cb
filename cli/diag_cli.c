/*
 * What the diagnosis commands share (diag_cli.h): the analysis options
 * every one of them takes, and rendering a run with its failures turned
 * into messages and exit codes (a failure leaving the run's previous
 * outputs as they were).  `report` and `import` end the same way:
 * gs_diag_report.
 */
#define _POSIX_C_SOURCE 200809L
#include "diag_cli.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/outdir.h"
#include "cli_util.h"

void gs_diag_opts_init(gs_diag_opts *o)
{
    memset(o, 0, sizeof *o);
    gs_analysis_config_defaults(&o->cfg);
    o->cfg.progress = isatty(2);
}

/* A number >= 0 (> 0 when positive), else "bad value for OPT". */
static int number(double *v, int positive, const char *val, const gs_cli_opt *opt, const char *cmd)
{
    char *e;
    *v = strtod(val, &e);
    if (*e || !(*v >= 0) || (positive && !(*v > 0))) {
        fprintf(stderr, "gapscope %s: bad value for %s\n", cmd, opt->name);
        return 0;
    }
    return 1;
}

static int set_micro(void *field, const char *val, const gs_cli_opt *opt, const char *cmd)
{
    double v;
    if (!number(&v, 0, val, opt, cmd))
        return 0;
    ((gs_analysis_config *)field)->micro_threshold_s = v * 1e-3;
    return 1;
}

static int set_bin(void *field, const char *val, const gs_cli_opt *opt, const char *cmd)
{
    return number(&((gs_analysis_config *)field)->bin_s, 1, val, opt, cmd);
}

static int set_quiet(void *field, const char *val, const gs_cli_opt *opt, const char *cmd)
{
    (void)val, (void)opt, (void)cmd;
    gs_diag_opts *o = field;
    o->quiet = 1;
    o->cfg.progress = 0;
    return 1;
}

const gs_cli_opt gs_diag_cli_opts[] = {
    GS_CLI_FN("--micro-ms", NULL, "X", "micro/macro gap threshold in ms (default 1)", set_micro,
              gs_diag_opts, cfg),
    GS_CLI_FN("--bin-s", NULL, "X", "utilization-over-time bin in seconds (default 0.2)", set_bin,
              gs_diag_opts, cfg),
    GS_CLI_STR("--plots", NULL, "DIR", "gnuplot templates (default: found next to the binary)",
               gs_diag_opts, plots),
    {"--quiet", NULL, NULL, "no progress lines", set_quiet, 0, 0, NULL, NULL}, /* the whole struct */
    GS_CLI_END};

void gs_diag_render_opts(gs_render_opts *ro, const gs_diag_opts *o, const char *tag)
{
    gs_render_opts_defaults(ro);
    ro->cfg = &o->cfg;
    ro->plots_dir = o->plots;
    ro->tag = tag;
    ro->quiet = o->quiet;
    ro->data = 1;
}

int gs_diag_render(gs_render_result *res, const char *target, const gs_render_opts *ro,
                   const char *cmd)
{
    gs_err err;
    gs_err_clear(&err);
    /* A failed command leaves the run's previous outputs as they were
     * (common/outdir.h).  A target that is no run is left to gs_render,
     * which refuses it before writing anything. */
    gs_run where;
    gs_outdir od;
    int bracket = gs_run_locate(&where, target, &err) == GS_OK;
    if (bracket && gs_outdir_begin(&od, where.dir, gs_run_outputs, &err) != GS_OK) {
        memset(res, 0, sizeof *res);
        fprintf(stderr, "gapscope %s: %s\n", cmd, err.msg);
        return GS_EXIT_INTERNAL;
    }
    gs_err_clear(&err);
    int rc = GS_EXIT_OK;
    if (gs_render(res, target, ro, &err) != GS_OK) {
        fprintf(stderr, "gapscope %s: %s\n", cmd, err.msg);
        rc = res->loaded || err.status == GS_ERR_NOMEM ? GS_EXIT_INTERNAL : GS_EXIT_USAGE;
    }
    return bracket ? gs_outdir_end(&od, rc) : rc;
}

int gs_diag_report(const char *target, const gs_diag_opts *o, const gs_report_opts *rep,
                   int charts)
{
    gs_render_opts ro;
    gs_diag_render_opts(&ro, o, "report");
    ro.steps = 1;
    ro.charts = charts;
    ro.report = 1;
    ro.report_opts = *rep;
    gs_render_result res;
    int rc = gs_diag_render(&res, target, &ro, "report");
    if (rc == GS_EXIT_OK)
        printf("%s\n%s/report.html\n%s/report.md\n", res.verdict, res.run.dir, res.run.dir);
    gs_render_result_free(&res);
    return rc;
}
