/*
 * The command lines of `gapscope predict` and `gapscope model fit`
 * (cli/cmd_predict.c and cli/cmd_model.c are thin wrappers).
 *
 *   predict CAPTURE [--set S.K=V]... [--out DIR] [--no-report] [--quiet]
 *   model fit CAPTURE [-o model.json]
 *
 * Exit codes (cli.h): 0 ok, 1 some job failed, 2 bad usage or input
 * (a capture the model cannot answer included), 3 internal.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../scenarios/predict.h"
#include "cli_run.h"

typedef struct {
    gs_predict_opts po;
    gs_cli_list sets, capture;
} predict_args;

static const gs_cli_opt predict_opts[] = {
    GS_CLI_LIST("--set", "SECTION.KEY=VAL",
                "change the scenario (repeatable), e.g. --set engine.synth_threads=12",
                predict_args, sets),
    GS_CLI_STR("--borrow", NULL, "CAPTURE2",
               "take the stages CAPTURE lacks from CAPTURE2 (e.g. the CPU G2 MSM\n"
               "of a capture that ran it on the CPU, for --set engine.g2=cpu)",
               predict_args, po.borrow),
    GS_CLI_STR("--out", NULL, "DIR", "run directory (default runs/predict-<capture>-<UTC time>)",
               predict_args, po.run.out_dir),
    GS_CLI_FLAG("--no-report", NULL, "summary.json only (no charts or report)", predict_args,
                po.run.no_charts),
    GS_CLI_FLAG("--quiet", "-q", "no progress lines", predict_args, po.run.quiet),
    GS_CLI_END};

static const gs_cli_spec predict_spec = {
    .cmd = "predict",
    .usage = "usage: gapscope predict CAPTURE [--set SECTION.KEY=VAL]... [options]\n"
             "Runs the scenario a capture ran (its scenario.ini and arrivals.jsonl), changed by\n"
             "the overrides, on the model fitted from the capture: the real engine (threads,\n"
             "queues, tracker lock, policies) with every unit of work replaced by its modelled\n"
             "time, on a virtual clock and a modelled CPU of the captured core count.  Writes an\n"
             "ordinary run directory; every span is flagged modelled.  CAPTURE: a run directory,\n"
             "a spans.csv, or X.spans.csv with a directory X/ beside it.  Method: model/MODEL.md.\n\n",
    .opts = predict_opts,
    GS_CLI_ARGS(predict_args, capture, 1, 1),
    .bad = "unexpected argument '%s' (--help for usage)",
    .no_usage = GS_CLI_USAGE_OPT | GS_CLI_USAGE_ARG,
};

static int exit_code(gs_status st)
{
    return st == GS_ERR_FORMAT || st == GS_ERR_ARG || st == GS_ERR_IO || st == GS_ERR_UNSUPPORTED ||
                   st == GS_ERR_RANGE
               ? 2
               : 3;
}

int gs_scn_cmd_predict(int argc, char **argv)
{
    predict_args a = {.sets.n = 0};
    int rc = gs_cli_parse(&predict_spec, &a, argc, argv, NULL);
    if (rc != GS_CLI_GO)
        return rc;
    const char *capture = a.capture.v[0];
    int nsets = a.sets.n;
    gs_predict_opts po = a.po;
    char out[GS_SCN_PATH_MAX];
    if (!po.run.out_dir) {
        const char *base = strrchr(capture, '/');
        base = base && base[1] ? base + 1 : capture;
        char name[128];
        snprintf(name, sizeof name, "%.100s", base);
        char *dot = strstr(name, ".spans.csv");
        if (dot)
            *dot = '\0';
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        snprintf(out, sizeof out, "runs/predict-%s-%04d%02d%02d-%02d%02d%02d", name, tm.tm_year + 1900,
                 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
        po.run.out_dir = out;
    }
    po.capture = capture;
    po.sets = a.sets.v;
    po.n_sets = nsets;
    gs_err err;
    gs_err_clear(&err);
    gs_run_result res;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    gs_status st = gs_scn_predict(&po, &res, &err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (st != GS_OK) {
        fprintf(stderr, "gapscope predict: %s\n", err.msg);
        return exit_code(st);
    }
    double real = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    if (res.analyzed) {
        gs_util_summary p, c;
        gs_util_summary_of_run(&p, &res);
        printf("predicted: GPU util %.1f%%, top cause %s %.0f%% of %.3f s idle; %zu jobs in %.1f s "
               "modelled (%.2f s real)\n", 100 * p.util, p.cause, 100 * p.share, p.idle_s, res.completed,
               res.wall_s, real);
        gs_capture cap;
        if (gs_capture_resolve(&cap, capture, &err) == GS_OK && gs_util_summary_of(&c, cap.spans, &err) == GS_OK)
            printf("captured:  GPU util %.1f%%, top cause %s %.0f%% of %.3f s idle%s\n", 100 * c.util, c.cause,
                   100 * c.share, c.idle_s, nsets ? " (before the --set changes)" : "");
    }
    char report[GS_SCN_PATH_MAX + 32];
    snprintf(report, sizeof report, "%s/report.html", res.dir);
    if (access(report, R_OK) == 0)
        printf("report: %s\n", report);
    else
        printf("run directory: %s\n", res.dir);
    if (res.verdict[0])
        printf("%s\n", res.verdict);
    return res.failed || !res.drained ? 1 : 0;
}

typedef struct {
    gs_cli_list capture;
    const char *out;
} model_args;

static const gs_cli_opt model_opts[] = {
    GS_CLI_STR("--out", "-o", "model.json", "also write the model as JSON (format: model/MODEL.md)",
               model_args, out),
    GS_CLI_END};

static const gs_cli_spec model_spec = {
    .cmd = "model fit",
    .usage = "usage: gapscope model fit CAPTURE [-o model.json]\n"
             "Fits the machine model of a capture (a run directory or a spans.csv) and prints,\n"
             "per stage and size: instances, median, p10, p90, spread and fit errors; the\n"
             "machine (cores, devices) and what the fit assumed.\n",
    .opts = model_opts,
    GS_CLI_ARGS(model_args, capture, 1, 1),
    .bad = "unexpected argument '%s'",
    .no_usage = GS_CLI_USAGE_OPT | GS_CLI_USAGE_ARG,
};

int gs_scn_cmd_model(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        gs_cli_help(&model_spec, stdout);
        return 0;
    }
    if (argc < 2 || strcmp(argv[1], "fit"))
        return gs_cli_usage_error(&model_spec);
    model_args a = {.out = NULL};
    int rc = gs_cli_parse(&model_spec, &a, argc - 1, argv + 1, NULL);
    if (rc != GS_CLI_GO)
        return rc;
    const char *capture = a.capture.v[0], *out = a.out;
    gs_err err;
    gs_err_clear(&err);
    gs_capture c;
    gs_model *m = NULL;
    gs_status st = gs_capture_resolve(&c, capture, &err);
    if (st == GS_OK)
        st = gs_model_load(&m, c.spans, &err);
    if (st == GS_OK) {
        gs_model_print(m, stdout);
        if (out) {
            st = gs_model_write_json(m, out, &err);
            if (st == GS_OK)
                printf("wrote %s\n", out);
        }
    }
    gs_model_destroy(m);
    if (st != GS_OK) {
        fprintf(stderr, "gapscope model fit: %s\n", err.msg);
        return exit_code(st);
    }
    return 0;
}
