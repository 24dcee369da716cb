/*
 * gapscope merge DIR... --out DIR: run directories of several processes
 * or hosts as one run with the fleet view (diag/merge.h, diag/fleet.h),
 * then summary.json, data, charts and the report as `gapscope report`
 * writes them.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/units.h"
#include "../diag/merge.h"
#include "cli.h"
#include "cli_util.h"
#include "diag_cli.h"

typedef struct {
    gs_diag_opts d;
    gs_report_opts ro;
    const char *out;
    int no_report, no_charts, same_clock;
    gs_cli_list dirs, offsets, labels;
} merge_args;

static const gs_cli_opt merge_opts[] = {
    GS_CLI_STR("--out", "-o", "DIR", "the merged run directory (required)", merge_args, out),
    GS_CLI_FLAG("--same-clock", NULL,
                "captures without a clock anchor (imports, older runs) share the first one's\n"
                "clock (one host's CLOCK_MONOTONIC, or one profiler's clock)",
                merge_args, same_clock),
    GS_CLI_LIST("--offset", "K=DUR",
                "add DUR (e.g. -1.5ms) to the K-th directory's times (1 = the second),\n"
                "instead of aligning it (repeatable)",
                merge_args, offsets),
    GS_CLI_LIST("--label", "K=NAME", "name of the K-th directory's process (0 = the first;\n"
                                     "default its directory name)", merge_args, labels),
    GS_CLI_FLAG("--no-report", NULL, "stop after spans.csv, jobs.csv and summary.json", merge_args,
                no_report),
    GS_CLI_FLAG("--no-charts", NULL, "do not run gnuplot", merge_args, no_charts),
    GS_CLI_GROUP(gs_diag_cli_opts, merge_args, d),
    GS_CLI_END};

static const gs_cli_spec merge_spec = {
    .cmd = "merge",
    .usage = "usage: gapscope merge DIR DIR... --out DIR [options]\n"
             "  Joins run directories of several processes or hosts (gapscope run, attach,\n"
             "  import) into one: every capture on the first one's clock (same host and\n"
             "  boot: offset 0; else from the clock anchors each capture recorded, with the\n"
             "  error bound printed), lanes and devices renumbered, each capture a process.\n"
             "  Analyses every device and reports the fleet view: per-device util, the\n"
             "  slowest device and why, idle that lines up across devices (a shared host\n"
             "  cause) against idle that does not.\n",
    .notes = "exit: 0 merged, 2 unreadable input, bad usage or captures that cannot be\n"
             "      aligned (the message says what would do), 3 internal failure\n",
    .opts = merge_opts,
    GS_CLI_ARGS(merge_args, dirs, 2, GS_MERGE_MAX),
};

/* "K=VALUE" -> k (< n) and VALUE; 0 with a message when malformed. */
static int indexed(const char *arg, size_t n, size_t *k, const char **val, const char *opt)
{
    char *e;
    long v = strtol(arg, &e, 10);
    if (e == arg || *e != '=' || v < 0 || (size_t)v >= n) {
        fprintf(stderr, "gapscope merge: %s wants K=VALUE with K in 0..%zu, got '%s'\n", opt,
                n - 1, arg);
        return 0;
    }
    *k = (size_t)v;
    *val = e + 1;
    return 1;
}

static int build_opts(gs_merge_opts *mo, const merge_args *a)
{
    memset(mo, 0, sizeof *mo);
    mo->n = (size_t)a->dirs.n;
    mo->same_clock = a->same_clock;
    for (size_t k = 0; k < mo->n; k++)
        mo->dirs[k] = a->dirs.v[k];
    for (int i = 0; i < a->labels.n; i++) {
        size_t k;
        const char *v;
        if (!indexed(a->labels.v[i], mo->n, &k, &v, "--label"))
            return 0;
        mo->labels[k] = v;
    }
    for (int i = 0; i < a->offsets.n; i++) {
        size_t k;
        const char *v;
        int neg = 0;
        int64_t ns;
        if (!indexed(a->offsets.v[i], mo->n, &k, &v, "--offset"))
            return 0;
        if (*v == '-' || *v == '+')
            neg = *v++ == '-';
        if (!gs_parse_duration_ns(&ns, v)) {
            fprintf(stderr, "gapscope merge: --offset %s: a duration with a unit (ns us ms s)\n",
                    a->offsets.v[i]);
            return 0;
        }
        mo->has_offset[k] = 1;
        mo->offsets[k] = neg ? -ns : ns;
    }
    return 1;
}

static int merge_main(int argc, char **argv)
{
    merge_args a = {.out = NULL};
    gs_diag_opts_init(&a.d);
    gs_report_opts_defaults(&a.ro);
    int rc = gs_cli_parse(&merge_spec, &a, argc, argv, NULL);
    if (rc != GS_CLI_GO)
        return rc;
    gs_merge_opts mo;
    if (!a.out) {
        fprintf(stderr, "gapscope merge: --out DIR is required\n");
        return gs_cli_usage_error(&merge_spec);
    }
    if (!build_opts(&mo, &a))
        return GS_EXIT_USAGE;
    gs_merge_result mr;
    gs_err err;
    gs_err_clear(&err);
    gs_status st = gs_run_merge(&mr, a.out, &mo, &err);
    if (st != GS_OK) {
        fprintf(stderr, "gapscope merge: %s\n", err.msg);
        return st == GS_ERR_NOMEM || st == GS_ERR_INTERNAL ? GS_EXIT_INTERNAL : GS_EXIT_USAGE;
    }
    if (!a.d.quiet) {
        for (size_t k = 1; k < mo.n; k++)
            fprintf(stderr, "merge: %s: offset %+.6f ms onto %s's clock: %s\n", mr.label[k],
                    mr.align[k].offset_ns * 1e-6, mr.label[0], mr.align[k].how);
        if (mr.error_ns >= 0)
            fprintf(stderr, "merge: clock error bound %.3f ms\n", mr.error_ns * 1e-6);
        else
            fprintf(stderr, "merge: clock error bound unknown\n");
        fprintf(stderr, "merge: %zu spans on %zu lanes -> %s\n", mr.spans, mr.lanes, a.out);
    }
    gs_render_opts ro;
    gs_diag_render_opts(&ro, &a.d, "merge");
    ro.charts = !a.no_report && !a.no_charts;
    ro.report = !a.no_report;
    ro.report_opts = a.ro;
    gs_render_result res;
    rc = gs_diag_render(&res, a.out, &ro, "merge");
    if (rc == GS_EXIT_OK) {
        char v[1024];
        if (res.run.fleet) {
            gs_fleet_verdict(v, sizeof v, res.run.fleet);
            printf("%s\n", v);
        }
        printf("%s\n", res.verdict);
        if (!a.no_report)
            printf("%s/report.html\n", res.run.dir);
    }
    gs_render_result_free(&res);
    return rc;
}

GS_CLI_COMMAND(merge, "merge", "join run directories of several processes or hosts (fleet view)",
               merge_main)
