/*
 * gapscope predict CAPTURE --what-if EDIT [--what-if EDIT]... [--out DIR]
 *                  [--no-report] [--quiet]
 *
 * What-ifs on a timeline gapscope did not produce (attach, import): the
 * capture's dependency graph replayed with the edits (model/graph.h,
 * MODEL.md "What-ifs on foreign timelines").  Prints the predicted GPU
 * utilization and wall time against the capture's, the interval (the
 * unedited replay's error on the capture), and the critical path; writes
 * the replayed timeline as a run directory (spans.csv, summary.json,
 * report) that diag reads like any capture.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../model/graph.h"
#include "../scenarios/predict.h"
#include "cli_run.h"

#define MAX_EDITS 32

static void usage(FILE *f)
{
    fprintf(f, "usage: gapscope predict CAPTURE --what-if EDIT [--what-if EDIT]... [--out DIR] [--no-report]\n"
               "Replays a foreign capture (attach, import) with edits on its dependency graph (launch ->\n"
               "kernel, sync -> host continuation, lock release or wake-up -> waiter); every gap the\n"
               "edges do not explain stays as captured.  EDIT:\n"
               "  remove:NAME          spans named NAME (NAME* a prefix) take no time: \"this stall is gone\";\n"
               "                       remove:state:sleep takes that sampled state out of the gaps\n"
               "  scale:NAME=F         spans named NAME last F times as long\n"
               "  stream:LANE=F        device lane LANE (e.g. gpu0/stream7) runs F times faster (1.5 or 1.5x)\n"
               "  unlock:LOCK:NAME     lock LOCK (a name prefix, mutex:0x...) is never held across NAME\n"
               "  threads:PREFIX=+N    N more threads like the lanes PREFIX* (their steps as one pool)\n"
               "Prints predicted util and wall time, the interval (the unedited replay's error on the\n"
               "capture) and the critical path.  Method: model/MODEL.md.\n");
}

int gs_cli_whatif(int argc, char **argv)
{
    gs_whatif w[MAX_EDITS];
    int nw = 0, quiet = 0, no_report = 0;
    const char *capture = NULL, *out_dir = NULL;
    gs_err err;
    gs_err_clear(&err);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (!strcmp(a, "--what-if") && more) {
            if (!strcmp(argv[i + 1], "help")) {
                usage(stdout);
                return 0;
            }
            if (nw == MAX_EDITS || gs_whatif_parse(&w[nw], argv[++i], &err) != GS_OK) {
                fprintf(stderr, "gapscope predict: %s\n", nw == MAX_EDITS ? "too many --what-if edits" : err.msg);
                return 2;
            }
            nw++;
        } else if (!strcmp(a, "--out") && more)
            out_dir = argv[++i];
        else if (!strcmp(a, "--no-report"))
            no_report = 1;
        else if (!strcmp(a, "--quiet") || !strcmp(a, "-q"))
            quiet = 1;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (a[0] != '-' && !capture)
            capture = a;
        else {
            fprintf(stderr, "gapscope predict: '%s' does not go with --what-if (--what-if help)\n", a);
            return 2;
        }
    }
    if (!capture || !nw) {
        usage(stderr);
        return 2;
    }
    char dir[GS_SCN_PATH_MAX];
    if (!out_dir) {
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        snprintf(dir, sizeof dir, "runs/whatif-%04d%02d%02d-%02d%02d%02d", tm.tm_year + 1900, tm.tm_mon + 1,
                 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
        out_dir = dir;
    }
    gs_capture c;
    gs_timeline *tl = NULL, *rt = NULL;
    gs_graph *g = NULL;
    gs_whatif_result r, r0;
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
    double resid = fabs(r0.util - r0.captured_util);
    if (st == GS_OK) {
        char b[64];
        snprintf(b, sizeof b, "%.6f", r.util);
        gs_timeline_meta_set(rt, "prediction.util", b);
        snprintf(b, sizeof b, "%.6f", r.util - resid > 0 ? r.util - resid : 0);
        gs_timeline_meta_set(rt, "prediction.util_lo", b);
        snprintf(b, sizeof b, "%.6f", r.util + resid < 1 ? r.util + resid : 1);
        gs_timeline_meta_set(rt, "prediction.util_hi", b);
        snprintf(b, sizeof b, "%.6f", resid);
        gs_timeline_meta_set(rt, "prediction.residual", b);
        gs_timeline_meta_set(rt, "whatif.capture", c.spans);
        snprintf(res.dir, sizeof res.dir, "%s", out_dir);
        char path[GS_SCN_PATH_MAX + 16];
        snprintf(path, sizeof path, "%s/spans.csv", out_dir);
        if ((st = gs_mkdir_p(out_dir, &err)) == GS_OK && (st = gs_timeline_write_csv(rt, path, &err)) == GS_OK)
            st = gs_scn_report(&res, quiet, !no_report, &err);
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
           100 * r.util, 100 * (r.util - resid > 0 ? r.util - resid : 0), 100 * (r.util + resid < 1 ? r.util + resid : 1),
           r.span_s, r.wall_s, (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
    printf("captured:  GPU util %.1f%% over %.3f s, wall %.3f s (the unedited replay: %.1f%%, residual %.2f points)\n",
           100 * r.captured_util, r.captured_span_s, r.captured_wall_s, 100 * r0.util, 100 * resid);
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
