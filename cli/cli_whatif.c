/*
 * gapscope predict CAPTURE --what-if EDIT [--what-if EDIT]... [--out DIR]
 *                  [--no-report] [--quiet]
 * (the command line and its help: predict's option table, cli_predict.c)
 *
 * What-ifs on a timeline gapscope did not produce (attach, import): the
 * capture's dependency graph replayed with the edits (model/graph.h,
 * MODEL.md "What-ifs on foreign timelines").  Prints the predicted GPU
 * utilization and wall time against the capture's, the interval (replays
 * with the host at its 5th and 95th percentile run-to-run speed, widened
 * by the unedited replay's error on the capture), what the removed steps
 * left behind, and the critical path; writes
 * the replayed timeline as a run directory (spans.csv, summary.json,
 * report) that diag reads like any capture; a failure leaves none of it
 * (or --out as it was).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/outdir.h"
#include "../model/graph.h"
#include "../scenarios/predict.h"
#include "cli_run.h"

#define MAX_EDITS 32

int gs_cli_whatif(const gs_cli_whatif_args *a)
{
    gs_whatif w[MAX_EDITS];
    int nw = 0, quiet = a->quiet, no_report = a->no_report;
    const char *capture = a->capture, *out_dir = a->out_dir;
    gs_err err;
    gs_err_clear(&err);
    for (; nw < a->n_edits; nw++)
        if (nw == MAX_EDITS || gs_whatif_parse(&w[nw], a->edits[nw], &err) != GS_OK) {
            fprintf(stderr, "gapscope predict: %s\n", nw == MAX_EDITS ? "too many --what-if edits" : err.msg);
            return 2;
        }
    char dir[GS_SCN_PATH_MAX];
    if (!out_dir) {
        gs_scn_default_run_dir(dir, sizeof dir, "whatif");
        out_dir = dir;
    }
    gs_capture c;
    gs_timeline *tl = NULL, *rt = NULL;
    gs_graph *g = NULL;
    gs_whatif_result r, r0, rl, rh;
    gs_run_result res;
    memset(&res, 0, sizeof res);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    gs_status st = gs_capture_resolve(&c, capture, &err);
    if (st == GS_OK)
        st = gs_timeline_read_csv(&tl, c.spans, &err);
    if (st == GS_OK)
        st = gs_graph_build(&g, tl, &err);
    if (st == GS_OK)
        st = gs_whatif_run(&r0, NULL, g, NULL, 0, &err);
    if (st == GS_OK)
        st = gs_whatif_run(&r, &rt, g, w, nw, &err);
    /* The interval: the same edits on a host at its 5th and 95th
     * percentile speed, the run-to-run spread engine predictions draw
     * (GS_PREDICT_HOST_SD; sqrt(2): the capture is one draw of it too),
     * widened by the unedited replay's error. */
    double host_sd = GS_PREDICT_HOST_SD * sqrt(2.0), z = 1.6449;
    if (st == GS_OK)
        st = gs_whatif_run_host(&rl, NULL, g, w, nw, 1 - z * host_sd, &err);
    if (st == GS_OK)
        st = gs_whatif_run_host(&rh, NULL, g, w, nw, 1 + z * host_sd, &err);
    double resid = fabs(r0.util - r0.captured_util), lo = r.util, hi = r.util;
    if (st == GS_OK) {
        lo = fmin(lo, fmin(rl.util, rh.util)) - resid;
        hi = fmax(hi, fmax(rl.util, rh.util)) + resid;
        lo = lo > 0 ? lo : 0;
        hi = hi < 1 ? hi : 1;
        char b[64];
        snprintf(b, sizeof b, "%.6f", r.util);
        gs_timeline_meta_set(rt, "prediction.util", b);
        snprintf(b, sizeof b, "%.6f", lo);
        gs_timeline_meta_set(rt, "prediction.util_lo", b);
        snprintf(b, sizeof b, "%.6f", hi);
        gs_timeline_meta_set(rt, "prediction.util_hi", b);
        snprintf(b, sizeof b, "%.6f", resid);
        gs_timeline_meta_set(rt, "prediction.residual", b);
        snprintf(b, sizeof b, "%.6f", host_sd);
        gs_timeline_meta_set(rt, "prediction.host_sd", b);
        gs_timeline_meta_set(rt, "whatif.capture", c.spans);
        snprintf(res.dir, sizeof res.dir, "%s", out_dir);
        char path[GS_SCN_PATH_MAX + 16];
        snprintf(path, sizeof path, "%s/spans.csv", out_dir);
        /* A failed what-if leaves no run directory, or --out as it was
         * (common/outdir.h). */
        static const char *const outputs[] = {"spans.csv", "timeline.json",
                                              "timeline.perfetto-trace", "summary.json", "data",
                                              "charts", "report.md", "report.html", NULL};
        gs_outdir od;
        if ((st = gs_outdir_begin(&od, out_dir, outputs, &err)) == GS_OK) {
            if ((st = gs_timeline_write_csv(rt, path, &err)) == GS_OK)
                st = gs_scn_report(&res, quiet, !no_report, &err);
            gs_outdir_end(&od, st != GS_OK);
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (st != GS_OK) {
        fprintf(stderr, "gapscope predict: %s\n", err.msg);
        gs_timeline_destroy(rt);
        gs_graph_destroy(g);
        gs_timeline_destroy(tl);
        return st == GS_ERR_NOMEM || st == GS_ERR_INTERNAL ? 3 : 2;
    }
    printf("graph: %zu nodes, %zu launch, %zu sync and %zu wake-up edges; %zu nodes edited\n", g->nn, g->n_launch,
           g->n_sync, g->n_wake, r.n_edited);
    printf("predicted: GPU util %.1f%% [%.1f, %.1f] over %.3f s of device span, wall %.3f s (%.2f s real)\n",
           100 * r.util, 100 * lo, 100 * hi, r.span_s, r.wall_s,
           (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
    printf("interval:  the host %.0f%% slower and faster (its run-to-run spread): %.1f%% and %.1f%%, widened by the "
           "residual\n", 100 * z * host_sd, 100 * rl.util, 100 * rh.util);
    printf("captured:  GPU util %.1f%% over %.3f s, wall %.3f s (the unedited replay: %.1f%%, residual %.2f points)\n",
           100 * r.captured_util, r.captured_span_s, r.captured_wall_s, 100 * r0.util, 100 * resid);
    if (r.n_after)
        printf("after the removed steps: %zu of %zu runs of host steps (up to the next sync or wait) timed as the "
               "same steps ran where no removed step preceded them%s\n",
               r.n_after_ref, r.n_after, r.n_after_ref ? "" : " (none in the capture: kept as captured)");
    printf("critical path to the last device operation (%.3f s):\n", r.path_s);
    for (int i = 0; i < r.n_path && i < 8; i++)
        printf("  %5.1f%%  %8.3f s  %s\n", r.path_s > 0 ? 100 * r.path[i].s / r.path_s : 0, r.path[i].s, r.path[i].what);
    if (res.verdict[0])
        printf("%s\n", res.verdict);
    printf("run directory: %s\n", out_dir);
    gs_timeline_destroy(rt);
    gs_graph_destroy(g);
    gs_timeline_destroy(tl);
    return 0;
}
