/*
 * The command lines of `gapscope predict` and `gapscope model fit`
 * (cli/cmd_predict.c and cli/cmd_model.c are thin wrappers).
 *
 *   predict CAPTURE [CAPTURE2...] [--set S.K=V]... [--profile P] [--reps N]
 *           [--borrow C] [--out DIR] [--no-report] [--quiet]
 *   predict CAPTURE --what-if EDIT... [--out DIR] [--no-report] [--quiet]
 *           (a foreign timeline: the run in cli_whatif.c)
 *   model fit CAPTURE [-o model.json]
 *
 * Exit codes (cli.h): 0 ok, 1 some job failed, 2 bad usage or input
 * (a capture the model cannot answer included), 3 internal.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../scenarios/predict.h"
#include "cli_run.h"

#define STR_(x) #x
#define STR(x) STR_(x)
#define REPS_UNSET UINT64_MAX

typedef struct {
    gs_predict_opts po;
    gs_cli_list sets, capture, whatif;
    uint64_t reps;                  /* REPS_UNSET: not given */
} predict_args;

/* The options of both forms: where the run goes and what is printed. */
static const gs_cli_opt output_opts[] = {
    GS_CLI_STR("--out", NULL, "DIR", "run directory (default runs/predict-<capture>-<UTC time>,\n"
               "runs/whatif-<UTC time> with --what-if)", predict_args, po.run.out_dir),
    GS_CLI_FLAG("--no-report", NULL, "summary.json only (no charts or report)", predict_args,
                po.run.no_charts),
    GS_CLI_FLAG("--quiet", "-q", "no progress lines", predict_args, po.run.quiet),
    GS_CLI_END};

static const gs_cli_opt whatif_opt[] = {
    GS_CLI_LIST("--what-if", "EDIT",
                "a what-if on a foreign timeline (attach, import; repeatable):\n"
                "gapscope predict --what-if help lists the edits",
                predict_args, whatif),
    GS_CLI_END};

static const gs_cli_opt predict_opts[] = {
    GS_CLI_LIST("--set", "SECTION.KEY=VAL",
                "change the scenario (repeatable), e.g. --set engine.synth_threads=12",
                predict_args, sets),
    GS_CLI_STR("--profile", NULL, "FILE",
               "machine profile (gapscope calibrate; default\n"
               "CAPTURE_DIR/machine-profile.json when there is one)",
               predict_args, po.profile),
    GS_CLI_UINT("--reps", "N", GS_PREDICT_MAX_REPS,
                "replicates of the interval (default " STR(GS_PREDICT_REPS)
                "; 0: repeats and residual only)",
                predict_args, reps),
    GS_CLI_STR("--borrow", NULL, "CAPTURE2",
               "take the stages CAPTURE lacks from CAPTURE2 (e.g. the CPU G2 MSM\n"
               "of a capture that ran it on the CPU, for --set engine.g2=cpu; it\n"
               "replaces the one a machine profile lends)",
               predict_args, po.borrow),
    GS_CLI_INCLUDE(whatif_opt),
    GS_CLI_INCLUDE(output_opts),
    GS_CLI_END};

/* The machine profile a prediction used, or that it had none: beyond the
 * thread counts a capture shows, host contention then is ideal sharing,
 * the optimistic side (model/MODEL.md 4). */
static void print_profile(const gs_predict_opts *po, const gs_capture *cap)
{
    char path[GS_SCN_PATH_MAX];
    gs_predict_profile_path(path, sizeof path, po, cap);
    gs_profile p;
    gs_err e;
    gs_err_clear(&e);
    if (!path[0]) {
        /* calibrate --capture DIR writes DIR/machine-profile.json: the
         * folder of the capture's spans, where predict looks. */
        char dir[GS_SCN_PATH_MAX];
        gs_predict_capture_dir(dir, sizeof dir, cap);
        printf("profile:   none beside the capture: host contention beyond the thread counts it shows is ideal "
               "sharing (optimistic); on the machine that captured it, once: gapscope calibrate --capture %s\n",
               dir);
    }
    else if (gs_profile_read(&p, path, &e) == GS_OK)
        printf("profile:   %s (calibrate on %s, %d cores, build %s)\n", path, p.host_cpu[0] ? p.host_cpu : "an unnamed CPU",
               p.cores, p.build[0] ? p.build : "unknown");
    else
        printf("profile:   %s\n", path);
}

static const gs_cli_spec predict_spec = {
    .cmd = "predict",
    .usage = "usage: gapscope predict CAPTURE [CAPTURE2...] [--set SECTION.KEY=VAL]... [options]\n"
             "       gapscope predict CAPTURE --what-if EDIT [--what-if EDIT]... (attach/import captures)\n"
             "Runs the scenario a capture ran (its scenario.ini and arrivals.jsonl), changed by\n"
             "the overrides, on the model fitted from the capture: the real engine (threads,\n"
             "queues, tracker lock, policies) with every unit of work replaced by its modelled\n"
             "time, on a virtual clock and a modelled CPU of the captured core count.  Writes an\n"
             "ordinary run directory; every span is flagged modelled.  CAPTURE: a run directory,\n"
             "a spans.csv, or X.spans.csv with a directory X/ beside it (X/ names it too).\n"
             "Method: model/MODEL.md.\n"
             "Several captures of one setting (repeats) give the run-to-run spread; the prediction is\n"
             "their mean.  Every prediction carries an interval: the repeats, replicates drawn from\n"
             "the capture (partition costs, the threads' speeds, the host's), the model's\n"
             "reproduction error and, when the machine profile was measured on a moving host,\n"
             "the run with ideal sharing in place of its curves; summary.json and the report\n"
             "carry it (prediction.*).\n\n",
    .opts = predict_opts,
    GS_CLI_ARGS(predict_args, capture, 0, GS_PREDICT_MAX_CAPTURES), /* 1..: checked after --what-if help */
    .bad = "unexpected argument '%s' (--help for usage)",
    .no_usage = GS_CLI_USAGE_OPT | GS_CLI_USAGE_ARG,
};

static const gs_cli_opt whatif_opts[] = {
    GS_CLI_INCLUDE(whatif_opt),
    GS_CLI_INCLUDE(output_opts),
    GS_CLI_END};

/* The --what-if form's help (gapscope predict --what-if help). */
static const gs_cli_spec whatif_spec = {
    .cmd = "predict",
    .usage = "usage: gapscope predict CAPTURE --what-if EDIT [--what-if EDIT]... [options]\n"
             "Replays a foreign capture (attach, import) with edits on its dependency graph (launch ->\n"
             "kernel, sync -> host continuation, lock release or wake-up -> waiter); every gap the\n"
             "edges do not explain stays as captured.  EDIT:\n"
             "  remove:NAME          spans named NAME (NAME* a prefix) take no time: \"this stall is gone\";\n"
             "                       the host steps after each, up to the next sync or wait, take the\n"
             "                       times of the same steps where it did not precede them (when the\n"
             "                       capture has such a run); remove:state:sleep takes that sampled\n"
             "                       state out of the gaps and out of the calls it was sampled inside\n"
             "                       (remove:state:io: a library load no longer reads from disk)\n"
             "  scale:NAME=F         spans named NAME last F times as long\n"
             "  stream:LANE=F        device lane LANE (e.g. gpu0/stream7) runs F times faster (1.5 or 1.5x)\n"
             "  unlock:LOCK:NAME     lock LOCK (a name prefix, mutex:0x...) is never held across NAME\n"
             "  threads:PREFIX=+N    N more threads like the lanes PREFIX* (their steps as one pool)\n"
             "Prints predicted util and wall time, the interval (the same edits on a host at its 5th and\n"
             "95th percentile run-to-run speed, widened by the unedited replay's error on the capture)\n"
             "and the critical path.  Method: model/MODEL.md.\n\n",
    .opts = whatif_opts,
};

static int exit_code(gs_status st)
{
    return st == GS_ERR_FORMAT || st == GS_ERR_ARG || st == GS_ERR_IO || st == GS_ERR_UNSUPPORTED ||
                   st == GS_ERR_RANGE
               ? 2
               : 3;
}

/* The --what-if form: one capture, the edits and the output options only. */
static int whatif(const predict_args *a)
{
    const char *extra = a->sets.n ? "--set" : a->po.profile ? "--profile" : a->reps != REPS_UNSET ? "--reps"
                        : a->po.borrow ? "--borrow" : a->capture.n > 1 ? a->capture.v[1] : NULL;
    if (extra) {
        fprintf(stderr, "gapscope predict: '%s' does not go with --what-if (--what-if help)\n", extra);
        return 2;
    }
    gs_cli_whatif_args w = {.capture = a->capture.v[0], .edits = a->whatif.v, .n_edits = a->whatif.n,
                            .out_dir = a->po.run.out_dir, .no_report = a->po.run.no_charts,
                            .quiet = a->po.run.quiet};
    return gs_cli_whatif(&w);
}

int gs_scn_cmd_predict(int argc, char **argv)
{
    predict_args a = {.reps = REPS_UNSET};
    int rc = gs_cli_parse(&predict_spec, &a, argc, argv, NULL);
    if (rc != GS_CLI_GO)
        return rc;
    for (int i = 0; i < a.whatif.n; i++)
        if (!strcmp(a.whatif.v[i], "help")) {
            gs_cli_help(&whatif_spec, stdout);
            return 0;
        }
    if (!a.capture.n)
        return gs_cli_usage_error(a.whatif.n ? &whatif_spec : &predict_spec);
    if (a.whatif.n)
        return whatif(&a);
    const char *capture = a.capture.v[0];
    int nsets = a.sets.n;
    gs_predict_opts po = a.po;
    gs_prediction pred;
    po.reps = a.reps == REPS_UNSET ? GS_PREDICT_REPS : (int)a.reps;
    char out[GS_SCN_PATH_MAX];
    if (!po.run.out_dir) {
        const char *base = strrchr(capture, '/');
        base = base && base[1] ? base + 1 : capture;
        char name[128];
        snprintf(name, sizeof name, "%.100s", base);
        char *dot = strstr(name, ".spans.csv");
        if (dot)
            *dot = '\0';
        char pname[140];
        snprintf(pname, sizeof pname, "predict-%s", name);
        gs_scn_default_run_dir(out, sizeof out, pname);
        po.run.out_dir = out;
    }
    po.capture = capture;
    po.repeats = a.capture.v + 1;
    po.n_repeats = a.capture.n - 1;
    po.sets = a.sets.v;
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
        if (pred.has_ideal)
            printf("           the machine profile was measured on a moving host (its vCPU passes differ %.0f%%): "
                   "with ideal sharing in place of its contention curves %.1f%%, inside the interval\n",
                   100 * pred.profile_drift, 100 * pred.ideal);
        char moved[400];
        gs_prediction_level_text(moved, sizeof moved, &pred);
        if (moved[0])
            printf("           %s\n", moved);
        gs_capture cap;
        int have_cap = gs_capture_resolve(&cap, capture, &err) == GS_OK;
        if (have_cap)
            print_profile(&po, &cap);
        if (have_cap && gs_util_summary_of(&c, cap.spans, &err) == GS_OK) {
            if (pred.n_captures > 1)
                printf("captured:  GPU util %.1f%% (mean of %d, sd %.1f)%s\n", 100 * pred.captured,
                       pred.n_captures, 100 * pred.captured_sd, nsets ? " (before the --set changes)" : "");
            else
                printf("captured:  GPU util %.1f%%, top cause %s %.0f%% of %.3f s idle%s\n", 100 * c.util,
                       c.cause, 100 * c.share, c.idle_s, nsets ? " (before the --set changes)" : "");
        }
        if (pred.has_effect) {
            char said[400];
            gs_prediction_change_text(said, sizeof said, &pred);
            printf("change:    %s\n", said);
        }
    }
    char report[GS_SCN_PATH_MAX + 32];
    snprintf(report, sizeof report, "%s/report.html", res.dir);
    if (access(report, R_OK) == 0)
        printf("report: %s\n", report);
    else
        printf("run directory: %s\n", res.dir);
    /* With repeats the prediction pools every capture's model; the run
     * directory (and so its verdict) is the first capture's model run. */
    if (res.verdict[0] && res.analyzed && pred.n_captures > 1)
        printf("the run directory is the first capture's model run; the prediction above pools all %d: %s\n",
               pred.n_captures, res.verdict);
    else if (res.verdict[0])
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
