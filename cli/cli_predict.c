/*
 * The command lines of `gapscope predict` and `gapscope model fit`
 * (cli/cmd_predict.c and cli/cmd_model.c are thin wrappers).
 *
 *   predict CAPTURE [CAPTURE2...] [--set S.K=V]... [--profile P] [--reps N]
 *           [--borrow C] [--out DIR] [--no-report] [--quiet]
 *   predict ATTACH_DIR --what-if EDIT... (a foreign timeline: cli_whatif.c)
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

#include "cli_run.h"
#include "../scenarios/predict.h"

#define MAX_SETS 64

static void predict_usage(FILE *f)
{
    fprintf(f, "usage: gapscope predict CAPTURE [CAPTURE2...] [--set SECTION.KEY=VAL]... [options]\n"
               "       gapscope predict CAPTURE --what-if EDIT [--what-if EDIT]... (attach/import captures)\n"
               "Runs the scenario a capture ran (its scenario.ini and arrivals.jsonl), changed by\n"
               "the overrides, on the model fitted from the capture: the real engine (threads,\n"
               "queues, tracker lock, policies) with every unit of work replaced by its modelled\n"
               "time, on a virtual clock and a modelled CPU of the captured core count.  Writes an\n"
               "ordinary run directory; every span is flagged modelled.  CAPTURE: a run directory,\n"
               "a spans.csv, or X.spans.csv with a directory X/ beside it.  Method: model/MODEL.md.\n"
               "Several captures of one setting (repeats) give the run-to-run spread; the prediction is\n"
               "their mean.  Every prediction carries an interval: the repeats, replicates drawn from\n"
               "the capture (partition costs, the threads' speeds, the host's) and the model's\n"
               "reproduction error; summary.json and the report carry it (prediction.*).\n\n"
               "options:\n"
               "  --set SECTION.KEY=VAL  change the scenario (repeatable), e.g. --set engine.synth_threads=12\n"
               "  --profile FILE         machine profile (gapscope calibrate; default CAPTURE_DIR/machine-profile.json)\n"
               "  --reps N               replicates of the interval (default 6; 0: repeats and residual only)\n"
               "  --what-if EDIT         a what-if on a foreign timeline (gapscope predict --what-if help)\n"
               "  --borrow CAPTURE2      take the stages CAPTURE lacks from CAPTURE2 (e.g. the CPU G2 MSM\n"
               "                         of a capture that ran it on the CPU, for --set engine.g2=cpu)\n"
               "  --out DIR              run directory (default runs/predict-<capture>-<UTC time>)\n"
               "  --no-report            summary.json only (no charts or report)\n"
               "  --quiet                no progress lines\n");
}

static int exit_code(gs_status st)
{
    return st == GS_ERR_FORMAT || st == GS_ERR_ARG || st == GS_ERR_IO || st == GS_ERR_UNSUPPORTED ||
                   st == GS_ERR_RANGE
               ? 2
               : 3;
}

int gs_scn_cmd_predict(int argc, char **argv)
{
    const char *sets[MAX_SETS], *capture = NULL, *repeats[GS_PREDICT_MAX_CAPTURES];
    int nsets = 0, nrep = 0;
    gs_predict_opts po = {.reps = GS_PREDICT_REPS};
    gs_prediction pred;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--what-if"))
            return gs_cli_whatif(argc, argv);
    char out[GS_SCN_PATH_MAX];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            predict_usage(stdout);
            return 0;
        } else if (!strcmp(a, "--set") && more && nsets < MAX_SETS)
            sets[nsets++] = argv[++i];
        else if (!strcmp(a, "--out") && more)
            po.run.out_dir = argv[++i];
        else if (!strcmp(a, "--borrow") && more)
            po.borrow = argv[++i];
        else if (!strcmp(a, "--profile") && more)
            po.profile = argv[++i];
        else if (!strcmp(a, "--reps") && more) {
            char *end;
            long r = strtol(argv[++i], &end, 10);
            if (*end || r < 0 || r > GS_PREDICT_MAX_REPS) {
                fprintf(stderr, "gapscope predict: --reps takes 0..%d, not '%s'\n", GS_PREDICT_MAX_REPS, argv[i]);
                return 2;
            }
            po.reps = (int)r;
        }
        else if (!strcmp(a, "--no-report"))
            po.run.no_charts = 1;
        else if (!strcmp(a, "--quiet") || !strcmp(a, "-q"))
            po.run.quiet = 1;
        else if (a[0] != '-' && !capture)
            capture = a;
        else if (a[0] != '-' && nrep < GS_PREDICT_MAX_CAPTURES - 1)
            repeats[nrep++] = a;
        else {
            fprintf(stderr, "gapscope predict: unexpected argument '%s' (--help for usage)\n", a);
            return 2;
        }
    }
    if (!capture) {
        predict_usage(stderr);
        return 2;
    }
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
    po.repeats = repeats;
    po.n_repeats = nrep;
    po.sets = sets;
    po.n_sets = nsets;
    po.interval = &pred;
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
        printf("predicted: GPU util %.1f%% [%.1f, %.1f], top cause %s %.0f%% of %.3f s idle; %zu jobs in %.1f s "
               "modelled (%.2f s real)\n", 100 * pred.point, 100 * pred.lo, 100 * pred.hi, p.cause, 100 * p.share,
               p.idle_s, res.completed, res.wall_s, real);
        printf("interval:  %d capture%s, %d replicates (top cause %s in %.0f%%), host spread %.0f%%, "
               "reproduction residual %.1f points\n", pred.n_captures, pred.n_captures == 1 ? "" : "s",
               pred.n_rep, p.cause, 100 * pred.cause_agree, 100 * pred.host_sd, 100 * pred.residual);
        gs_capture cap;
        if (gs_capture_resolve(&cap, capture, &err) == GS_OK && gs_util_summary_of(&c, cap.spans, &err) == GS_OK) {
            if (pred.n_captures > 1)
                printf("captured:  GPU util %.1f%% (mean of %d, sd %.1f)%s\n", 100 * pred.captured,
                       pred.n_captures, 100 * pred.captured_sd, nsets ? " (before the --set changes)" : "");
            else
                printf("captured:  GPU util %.1f%%, top cause %s %.0f%% of %.3f s idle%s\n", 100 * c.util,
                       c.cause, 100 * c.share, c.idle_s, nsets ? " (before the --set changes)" : "");
        }
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

static void model_usage(FILE *f)
{
    fprintf(f, "usage: gapscope model fit CAPTURE [-o model.json]\n"
               "Fits the machine model of a capture (a run directory or a spans.csv) and prints,\n"
               "per stage and size: instances, median, p10, p90, spread and fit errors; the\n"
               "machine (cores, devices) and what the fit assumed.  -o writes the model as JSON\n"
               "(format: model/MODEL.md).\n");
}

int gs_scn_cmd_model(int argc, char **argv)
{
    const char *capture = NULL, *out = NULL;
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        model_usage(stdout);
        return 0;
    }
    if (argc < 2 || strcmp(argv[1], "fit")) {
        model_usage(stderr);
        return 2;
    }
    for (int i = 2; i < argc; i++) {
        if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--out")) && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            model_usage(stdout);
            return 0;
        } else if (argv[i][0] != '-' && !capture)
            capture = argv[i];
        else {
            fprintf(stderr, "gapscope model fit: unexpected argument '%s'\n", argv[i]);
            return 2;
        }
    }
    if (!capture) {
        model_usage(stderr);
        return 2;
    }
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
