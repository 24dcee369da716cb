/*
 * A prediction's interval (predict_interval.c) and what reads it: the
 * interval holds the point and the capture it reproduces; repeats of one
 * setting give its run-to-run spread and the mean as the point; the
 * interval lands in the run's metadata (summary.json, the report) and a
 * gate on the prediction checks its low end; the CLI prints it, and the
 * what-if command line runs on an attach capture.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../diag/gate.h"
#include "../diag/run.h"
#include "../report/report.h"
#include "../test/test.h"
#include "predict.h"

static const char *root(void) { return getenv("GS_SRC_ROOT") ? getenv("GS_SRC_ROOT") : "."; }

static int predict_iv(const char *const *caps, int n, const char *set, const char *sub, gs_prediction *pr,
                      gs_run_result *r)
{
    char cap[GS_PREDICT_MAX_CAPTURES][600], dir[600];
    const char *rep[GS_PREDICT_MAX_CAPTURES];
    for (int i = 0; i < n; i++) {
        snprintf(cap[i], sizeof cap[i], "%s/%s", root(), caps[i]);
        rep[i] = cap[i];
    }
    snprintf(dir, sizeof dir, "%s/%s", gs_test_tmpdir(), sub);
    const char *sets[1] = {set};
    gs_predict_opts o = {.capture = cap[0], .repeats = rep + 1, .n_repeats = n - 1, .sets = sets,
                         .n_sets = set ? 1 : 0, .reps = 4, .interval = pr,
                         .run = {.out_dir = dir, .quiet = 1, .no_charts = 1}};
    gs_err err;
    gs_err_clear(&err);
    gs_status st = gs_scn_predict(&o, r, &err);
    GS_CHECK_MSG(st == GS_OK, "%s: %s", caps[0], err.msg);
    return st == GS_OK;
}

GS_TEST(predict_interval_holds_the_point_and_the_reproduction)
{
    static const char *const base[] = {"traces/h200-g2dev"};
    gs_prediction p;
    gs_run_result r;
    if (!predict_iv(base, 1, NULL, "iv-repro", &p, &r))
        return;
    GS_CHECK_MSG(p.lo <= p.point && p.point <= p.hi && p.lo < p.hi, "[%.3f, %.3f] around %.3f", p.lo, p.hi,
                 p.point);
    GS_CHECK_MSG(p.captured >= p.lo && p.captured <= p.hi, "captured %.3f outside [%.3f, %.3f]", p.captured, p.lo,
                 p.hi);
    GS_CHECK_EQ_INT(p.n_rep, 4);
    GS_CHECK(p.residual < 0.01 && p.n_captures == 1 && fabs(p.host_sd - GS_PREDICT_HOST_SD * sqrt(2.0)) < 1e-9);
    GS_CHECK(p.rep[0] < p.rep[3]); /* the host's 5th percentile first, its 95th last */
    /* Synthesis threads 6 -> 12: the change captured on the same H200. */
    gs_util_summary m;
    char path[600];
    snprintf(path, sizeof path, "%s/traces/h200-g2dev-synth12/spans.csv", root());
    gs_err err;
    GS_REQUIRE(gs_util_summary_of(&m, path, &err) == GS_OK);
    if (!predict_iv(base, 1, "engine.synth_threads=12", "iv-s12", &p, &r))
        return;
    GS_CHECK_MSG(m.util >= p.lo && m.util <= p.hi, "measured %.3f outside [%.3f, %.3f]", m.util, p.lo, p.hi);
    /* The interval is in the run's metadata, for summary.json and the report. */
    char sp[700];
    snprintf(sp, sizeof sp, "%s/spans.csv", r.dir);
    gs_timeline *tl = NULL;
    GS_REQUIRE(gs_timeline_read_csv(&tl, sp, &err) == GS_OK);
    const char *lo = gs_timeline_meta_get(tl, "prediction.util_lo"), *reps = gs_timeline_meta_get(tl, "prediction.replicates");
    GS_CHECK(lo && fabs(atof(lo) - p.lo) < 1e-5 && reps && strchr(reps, ','));
    gs_timeline_destroy(tl);
}

/* Three captures of one setting (6 synthesis threads, G2 on the device;
 * the trim and GPU-worker captures differ elsewhere, but not in what
 * limits them): the point is their predictions' mean, the captured util
 * their mean with its spread, the host spread from their synthesis. */
GS_TEST(predict_interval_from_repeats)
{
    static const char *const caps[] = {"traces/h200-g2dev", "traces/h200-g2dev-trimoff", "traces/h200-g2dev-synth12"};
    gs_prediction p;
    gs_run_result r;
    if (!predict_iv(caps, 3, NULL, "iv-rep", &p, &r))
        return;
    GS_CHECK_EQ_INT(p.n_captures, 3);
    GS_CHECK_MSG(p.captured_sd > 0 && p.captured > 0.96 && p.captured < 0.975, "captured %.4f sd %.4f", p.captured,
                 p.captured_sd);
    GS_CHECK_MSG(p.host_sd > 0 && p.host_sd != GS_PREDICT_HOST_SD * sqrt(4.0 / 3), "host spread %.4f", p.host_sd);
    GS_CHECK(p.lo <= p.point && p.point <= p.hi);
}

/* A capture without arrivals.jsonl: every run of the interval rebuilds
 * the arrivals from the submit marks into its own file (one shared file
 * was removed by the reproduction run under the replicates' feet). */
GS_TEST(predict_interval_rebuilt_arrivals)
{
    static const char *const base[] = {"traces/h200-backlog-prep-inline.spans.csv"};
    gs_prediction p;
    gs_run_result r;
    if (!predict_iv(base, 1, "engine.prep=ahead", "iv-marks", &p, &r))
        return;
    GS_CHECK(p.n_rep == 4 && p.lo <= p.point && p.point <= p.hi && p.residual < 0.01);
}

/* A gate's min_util on a prediction checks the interval's low end. */
GS_TEST(predict_interval_gate_checks_the_low_end)
{
    static const char *const base[] = {"traces/h200-g2dev"};
    gs_prediction p;
    gs_run_result r;
    if (!predict_iv(base, 1, "engine.synth_threads=4", "iv-gate", &p, &r))
        return;
    GS_REQUIRE(p.lo < p.point - 0.01);
    gs_analysis_config cfg;
    gs_analysis_config_defaults(&cfg);
    gs_run run;
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(gs_run_load(&run, r.dir, &cfg, &err) == GS_OK);
    for (int k = 0; k < 2; k++) {
        gs_gate_limits l;
        gs_gate_limits_init(&l);
        /* Between the low end and the point: fails; below the low end: passes. */
        l.min_util = k == 0 ? (p.lo + p.point) / 2 : p.lo - 0.01;
        gs_gate_result g;
        gs_gate_result_init(&g, "single");
        GS_REQUIRE(gs_gate_evaluate(&g, &run, &l) == GS_OK);
        GS_CHECK_MSG(g.pass == k, "min_util %.3f with [%.3f, %.3f]: pass %d", l.min_util, p.lo, p.hi, g.pass);
        gs_gate_result_free(&g);
    }
    gs_run_free(&run);
}

static int run_cli(const char *args, const char *out)
{
    const char *bin = getenv("GS_BIN");
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s %s > '%s' 2>&1", bin, args, out);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int file_has(const char *path, const char *what)
{
    FILE *f = fopen(path, "r");
    char line[1024];
    int found = 0;
    while (f && !found && fgets(line, sizeof line, f))
        found = strstr(line, what) != NULL;
    if (f)
        fclose(f);
    return found;
}

GS_TEST(predict_cli_interval_and_whatif)
{
    const char *bin = getenv("GS_BIN");
    if (!bin || access(bin, X_OK) != 0) {
        gs_test_skip("GS_BIN (the gapscope binary) not built: the command line is not checked");
        return;
    }
    char args[2400], out[600];
    snprintf(out, sizeof out, "%s/cli.txt", gs_test_tmpdir());
    snprintf(args, sizeof args, "predict '%s/traces/h200-g2dev' --reps 2 --no-report --quiet --out '%s/cli-p'",
             root(), gs_test_tmpdir());
    GS_CHECK_EQ_INT(run_cli(args, out), 0);
    GS_CHECK(file_has(out, "predicted: GPU util 96.8% [") && file_has(out, "interval:"));
    /* No machine profile beside it: said, with the command that makes one. */
    GS_CHECK(file_has(out, "profile:   none beside the capture") &&
             file_has(out, "gapscope calibrate --capture ") && file_has(out, "traces/h200-g2dev\n"));
    snprintf(args, sizeof args, "predict '%s/traces/h200-r3/base/base-1' --reps 0 --no-report --quiet --out '%s/cli-q'",
             root(), gs_test_tmpdir());
    GS_CHECK_EQ_INT(run_cli(args, out), 0);
    GS_CHECK(file_has(out, "profile:   ") && file_has(out, "base-1/machine-profile.json (calibrate on ") &&
             !file_has(out, "none beside"));
    /* One capture: the run directory's verdict as it is. */
    GS_CHECK(file_has(out, "The GPU sat idle") && !file_has(out, "pools all"));
    /* With a repeat the prediction pools both models, and the verdict
     * line says its run directory is the first capture's model run. */
    snprintf(args, sizeof args,
             "predict '%s/traces/h200-r3/base/base-1' '%s/traces/h200-r3/base/base-2' --reps 0 --no-report --quiet "
             "--out '%s/cli-q2'", root(), root(), gs_test_tmpdir());
    GS_CHECK_EQ_INT(run_cli(args, out), 0);
    GS_CHECK(file_has(out, "(mean of 2, sd ") &&
             file_has(out, "the run directory is the first capture's model run; the prediction above pools all 2: "
                           "The GPU sat idle"));
    snprintf(args, sizeof args,
             "predict '%s/traces/attach-h200/2026-12-04/torch-trim-400' --what-if remove:malloc_trim --no-report "
             "--quiet --out '%s/cli-w'", root(), gs_test_tmpdir());
    GS_CHECK_EQ_INT(run_cli(args, out), 0);
    GS_CHECK(file_has(out, "critical path") && file_has(out, "predicted: GPU util 67."));
    snprintf(args, sizeof args, "predict '%s/traces/attach-h200/2026-12-04/torch-trim-400' --what-if bogus:x",
             root());
    GS_CHECK_EQ_INT(run_cli(args, out), 2);
    /* Without --what-if a foreign capture is sent to it, not told it lacks sizes. */
    snprintf(args, sizeof args, "predict '%s/traces/attach-h200/2026-12-04/torch-trim-400' --out '%s/cli-f'", root(),
             gs_test_tmpdir());
    GS_CHECK_EQ_INT(run_cli(args, out), 2);
    GS_CHECK(file_has(out, "source=attach") && file_has(out, "--what-if EDIT") && !file_has(out, "known size"));
    /* An engine capture has no launch edges: refused with the reason. */
    snprintf(args, sizeof args, "predict '%s/traces/h200-g2dev' --what-if remove:malloc_trim --out '%s/cli-x'",
             root(), gs_test_tmpdir());
    GS_CHECK_EQ_INT(run_cli(args, out), 2);
    GS_CHECK(file_has(out, "launching call"));
    snprintf(args, sizeof args, "predict '%s/traces/h200-g2dev' --reps 99", root());
    GS_CHECK_EQ_INT(run_cli(args, out), 2);
}

/* A change the modelled run does not feel says so: on the H200 r3 base
 * (6 synthesis threads, queue_empty) a queue depth of 4 and direct
 * staging bind nothing, and the prediction is the capture's own
 * utilization with an effect of 0; 12 synthesis threads move it by tens of
 * points.  The effect lands in the run's metadata. */
GS_TEST(predict_interval_says_when_a_change_moves_nothing)
{
    static const char *const base[] = {"traces/h200-r3/base/base-1"};
    gs_prediction p;
    gs_run_result r;
    if (!predict_iv(base, 1, "engine.queue_depth=4", "iv-qd4", &p, &r))
        return;
    GS_CHECK(p.has_effect);
    GS_CHECK_MSG(fabs(p.effect) < GS_PREDICT_NO_EFFECT, "queue_depth 4: effect %+.4f", p.effect);
    GS_CHECK_MSG(fabs(p.unchanged - p.point) < GS_PREDICT_NO_EFFECT && fabs(p.unchanged - p.captured) < 0.03,
                 "unchanged %.3f, point %.3f, captured %.3f", p.unchanged, p.point, p.captured);
    char sp[700];
    snprintf(sp, sizeof sp, "%s/spans.csv", r.dir);
    gs_timeline *tl = NULL;
    gs_err err;
    GS_REQUIRE(gs_timeline_read_csv(&tl, sp, &err) == GS_OK);
    const char *e = gs_timeline_meta_get(tl, "prediction.effect"), *u = gs_timeline_meta_get(tl, "prediction.unchanged");
    GS_CHECK(e && fabs(atof(e) - p.effect) < 1e-5 && u && fabs(atof(u) - p.unchanged) < 1e-5);
    gs_timeline_destroy(tl);
    /* The report says it in words, beside the interval. */
    gs_run run;
    GS_REQUIRE(gs_run_load(&run, r.dir, NULL, &err) == GS_OK);
    gs_report_opts ro;
    gs_report_opts_defaults(&ro);
    ro.charts_note = "not drawn in this test";
    GS_CHECK(gs_report_write(&run, &ro, &err) == GS_OK);
    gs_run_free(&run);
    snprintf(sp, sizeof sp, "%s/report.md", r.dir);
    GS_CHECK_MSG(file_has(sp, "nothing in the modelled run waits on what the --set changes"), "%s", sp);
    /* Direct staging from a pinned capture: the staging gaps go, nothing
     * else the run waits on; synthesis into the pool's buffers is the
     * capture's, and model.assumed says so (MODEL.md 7.3). */
    if (!predict_iv(base, 1, "engine.staging=direct", "iv-direct", &p, &r))
        return;
    GS_CHECK_MSG(p.has_effect && fabs(p.effect) < GS_PREDICT_NO_EFFECT, "direct: effect %+.4f", p.effect);
    snprintf(sp, sizeof sp, "%s/spans.csv", r.dir);
    GS_REQUIRE(gs_timeline_read_csv(&tl, sp, &err) == GS_OK);
    const char *as = gs_timeline_meta_get(tl, "model.assumed");
    GS_CHECK_MSG(as && strstr(as, "Synthesis into the direct pool"), "model.assumed: %s", as ? as : "(none)");
    gs_timeline_destroy(tl);
    if (!predict_iv(base, 1, "engine.synth_threads=12", "iv-s12-effect", &p, &r))
        return;
    GS_CHECK_MSG(p.has_effect && p.effect > 0.2, "synth_threads 12: effect %+.3f", p.effect);
    /* No change, no effect to state. */
    if (!predict_iv(base, 1, NULL, "iv-none", &p, &r))
        return;
    GS_CHECK(!p.has_effect);
}

/* A machine profile measured on a moving host: a profile whose synthesis
 * slows to 0.6 of one thread's speed from 8 threads (as the H200 set of
 * round 3 session 17 measured, where its captures showed no such drop),
 * with a vCPU map whose lone passes differed 20%: traces/h200-r3's
 * base-1 at 12 synthesis threads keeps its point, and its interval spans
 * the same run with ideal sharing in the curve's place (prediction.ideal,
 * the higher utilization); with passes 2% apart, no such run.  With the
 * passes 2% apart but the profile's CPU per partition a third above the
 * capture's at its 6 threads (the host moved between calibrate and the
 * capture, gs_model_profile_level), no such run either (the level is
 * said, prediction.profile_level, not spanned).  A rule that ignored the
 * drift, or an ideal run left out of the bounds, fails it.  The capture's synthesis took 0.827 s per partition (median) at
 * ~5.9 runnable threads: cpu_s x 0.75 puts the profile there. */
static int profile_with_drift(const char *out, double drift, double cpu)
{
    FILE *g = fopen(out, "w");
    if (!g)
        return 0;
    fprintf(g, "{\"format\":\"gapscope-profile\",\"version\":1,\"host\":{\"cpu\":\"x\",\"cores\":16},\"log\":20,"
               "\"copy_gbps\":6,\"pin_gbps\":0,\"classes\":{\"synth\":{\"threads\":[1,2,4,6,8,12,16],"
               "\"speed\":[1,1,1,0.9,0.6,0.6,0.6],\"cpu_s\":[%g,%g,%g,%g,%g,%g,%g],\"lane_cv\":0.1}},"
               "\"cpus\":{\"solo\":[", cpu, cpu, cpu, 1.1 * cpu, 1.6 * cpu, 1.6 * cpu, 1.6 * cpu);
    for (int a = 0; a < 2; a++) {
        for (int c = 0; c < 16; c++)
            fprintf(g, "%s%g", c ? "," : "", c % 2 ? 1.05 : 0.95);
        fprintf(g, a ? "],\"drift\":%g}}\n" : "],\"loaded\":[", drift);
    }
    return fclose(g) == 0;
}

GS_TEST(predict_interval_spans_ideal_sharing_for_a_moving_profile)
{
    char cap[600], prof[600], dir[600];
    snprintf(cap, sizeof cap, "%s/traces/h200-r3/base/base-1", root());
    snprintf(prof, sizeof prof, "%s/moving.json", gs_test_tmpdir());
    const char *sets[1] = {"engine.synth_threads=12"};
    gs_prediction p[3];
    gs_run_result r;
    static const double drift[3] = {0.20, 0.02, 0.02}, cpu[3] = {0.75, 0.75, 1.0};
    for (int i = 0; i < 3; i++) {
        GS_REQUIRE(profile_with_drift(prof, drift[i], cpu[i]));
        snprintf(dir, sizeof dir, "%s/iv-moving-%d", gs_test_tmpdir(), i);
        gs_predict_opts o = {.capture = cap, .profile = prof, .sets = sets, .n_sets = 1, .reps = 2,
                             .interval = &p[i], .run = {.out_dir = dir, .quiet = 1, .no_charts = 1}};
        gs_err err;
        gs_err_clear(&err);
        gs_status st = gs_scn_predict(&o, &r, &err);
        GS_CHECK_MSG(st == GS_OK, "%s", err.msg);
        if (st != GS_OK)
            return;
        GS_CHECK(fabs(p[i].profile_drift - drift[i]) < 1e-9);
    }
    GS_CHECK_MSG(p[0].has_ideal && !p[1].has_ideal && !p[2].has_ideal, "ideal runs %d %d %d", p[0].has_ideal,
                 p[1].has_ideal, p[2].has_ideal);
    GS_CHECK_MSG(fabs(p[1].profile_level) < 0.05 && p[2].profile_level < -0.2 && p[2].profile_level > -0.3,
                 "levels %.3f %.3f", p[1].profile_level, p[2].profile_level);
    GS_CHECK_MSG(fabs(p[0].point - p[1].point) < 1e-9, "point %.4f against %.4f", p[0].point, p[1].point);
    GS_CHECK_MSG(p[0].ideal > p[0].point + 0.02, "ideal %.4f, point %.4f", p[0].ideal, p[0].point);
    GS_CHECK_MSG(p[0].lo <= p[0].ideal && p[0].ideal <= p[0].hi, "ideal %.4f outside [%.4f, %.4f]", p[0].ideal,
                 p[0].lo, p[0].hi);
    /* The ideal run in the run's metadata. */
    char sp[700];
    snprintf(sp, sizeof sp, "%s/iv-moving-0/spans.csv", gs_test_tmpdir());
    gs_timeline *tl = NULL;
    gs_err err;
    GS_REQUIRE(gs_timeline_read_csv(&tl, sp, &err) == GS_OK);
    const char *v = gs_timeline_meta_get(tl, "prediction.ideal");
    GS_CHECK(v && fabs(atof(v) - p[0].ideal) < 1e-5);
    gs_timeline_destroy(tl);
    /* And the level, where the interval's runs are. */
    snprintf(sp, sizeof sp, "%s/iv-moving-2/spans.csv", gs_test_tmpdir());
    GS_REQUIRE(gs_timeline_read_csv(&tl, sp, &err) == GS_OK);
    v = gs_timeline_meta_get(tl, "prediction.profile_level");
    GS_CHECK_MSG(v && fabs(atof(v) - p[2].profile_level) < 1e-5, "prediction.profile_level %s", v ? v : "(none)");
    GS_CHECK(gs_timeline_meta_get(tl, "prediction.profile_moved") != NULL);
    gs_timeline_destroy(tl);
    /* ... which the report's summary says; within the level, nothing. */
    for (int i = 1; i < 3; i++) {
        snprintf(dir, sizeof dir, "%s/iv-moving-%d", gs_test_tmpdir(), i);
        gs_run run;
        GS_REQUIRE(gs_run_load(&run, dir, NULL, &err) == GS_OK);
        gs_report_opts ro;
        gs_report_opts_defaults(&ro);
        ro.charts_note = "not drawn in this test";
        GS_CHECK(gs_report_write(&run, &ro, &err) == GS_OK);
        gs_run_free(&run);
        snprintf(sp, sizeof sp, "%s/report.md", dir);
        GS_CHECK_MSG(file_has(sp, "Host speed against the machine profile: the capture's synthesis used") == (i == 2), "%s", sp);
    }
}
