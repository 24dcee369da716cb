/* gapscope analyze RUN_DIR|spans.csv: summary.json, plot data files, verdict. */
#include <stdio.h>

#include "cli.h"
#include "diag_cli.h"

typedef struct {
    gs_diag_opts d;
    int charts;
    gs_cli_list target;
} analyze_args;

static const gs_cli_opt analyze_opts[] = {
    GS_CLI_GROUP(gs_diag_cli_opts, analyze_args, d),
    GS_CLI_FLAG("--charts", NULL, "also draw the charts (gnuplot) into charts/", analyze_args, charts),
    GS_CLI_END};

static const gs_cli_spec analyze_spec = {
    .cmd = "analyze",
    .usage = "usage: gapscope analyze RUN_DIR|spans.csv [options]\n"
             "  Reads the run's spans.csv (and jobs.csv when present), writes\n"
             "  summary.json, data/*.dat (plot data) and timeline.json, or above 1M spans\n"
             "  timeline.perfetto-trace (when the directory has neither)\n"
             "  into the run directory and prints the verdict (--quiet: the verdict only).\n",
    .opts = analyze_opts,
    GS_CLI_ARGS(analyze_args, target, 1, 1),
};

/* Causes with idle > 0, by idle descending (ties: table order). */
static void print_causes(FILE *f, const double *cause_s, double idle_s)
{
    for (int pass = 0; pass < GS_CAUSE_COUNT; pass++) {
        /* the cause of rank `pass` in descending idle order */
        int best = -1;
        for (int c = 0; c < GS_CAUSE_COUNT; c++) {
            if (cause_s[c] <= 0)
                continue;
            int rank = 0;
            for (int o = 0; o < GS_CAUSE_COUNT; o++)
                rank += cause_s[o] > cause_s[c] || (cause_s[o] == cause_s[c] && o < c);
            if (rank == pass)
                best = c;
        }
        if (best < 0)
            break;
        fprintf(f, "  %-26s %10.3f s %6.1f%%\n", gs_cause_name((gs_cause)best), cause_s[best],
                100 * cause_s[best] / idle_s);
    }
}

/* A short per-device table and the top causes. */
static void print_table(FILE *f, const gs_run *r)
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
        print_causes(f, a->cause_s, a->idle_s);
    }
    /* The kernel-level view, when copies running alone make it differ. */
    if (a->kidle_s > a->idle_s + 1e-9) {
        fprintf(f, "kernels idle by cause (kernel-level view: %.3f s, copies alone count as idle):\n",
                a->kidle_s);
        print_causes(f, a->kcause_s, a->kidle_s);
    }
    char spin[1024];
    if (gs_analysis_spin_note(spin, sizeof spin, a))
        fprintf(f, "%s\n", spin);
    if (r->jobs.submitted >= 0)
        fprintf(f, "jobs (%s): %ld submitted, %ld completed, %ld failed, %ld verified\n",
                r->jobs.source, r->jobs.submitted, r->jobs.completed, r->jobs.failed,
                r->jobs.verified);
}

static int analyze_main(int argc, char **argv)
{
    analyze_args a = {.charts = 0, .target.n = 0};
    gs_diag_opts_init(&a.d);
    int rc = gs_cli_parse(&analyze_spec, &a, argc, argv, NULL);
    if (rc != GS_CLI_GO)
        return rc;
    gs_render_opts ro;
    gs_diag_render_opts(&ro, &a.d, "analyze");
    ro.charts = a.charts;
    gs_render_result res;
    rc = gs_diag_render(&res, a.target.v[0], &ro, "analyze");
    if (rc == 0) {
        if (!a.d.quiet)
            print_table(stdout, &res.run);
        printf("%s\n", res.verdict);
        if (!a.d.quiet)
            printf("wrote %s/summary.json and %s/data/\n", res.run.dir, res.run.dir);
    }
    gs_render_result_free(&res);
    return rc;
}

GS_CLI_COMMAND(analyze, "analyze", "find and attribute GPU idle gaps of a run (summary.json)",
               analyze_main)
