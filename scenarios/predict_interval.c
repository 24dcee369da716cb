/*
 * The interval of a prediction (contract in predict.h, method in
 * model/MODEL.md, "Uncertainty"): what `gapscope predict` prints as
 * "util X% [lo, hi]", writes as prediction.* metadata (summary.json, the
 * report) and what a gate on a prediction checks.
 *
 * Sources, each a run of the same (changed) scenario in a scratch
 * directory that is removed afterwards:
 *   repeats     every other capture of the same setting given
 *               (`predict CAPTURE CAPTURE2 ...`), predicted on its own
 *               model: the run-to-run spread the captures show;
 *   replicates  R runs on the first capture's model with draws
 *               (gs_model_replicate): each partition's costs drawn from
 *               the captured instances, the synthesis threads' speeds
 *               drawn from the captured threads' (unequal cores: a run
 *               with few threads may land on slow ones), and one host
 *               speed per run (sd: the repeats' spread of synthesis
 *               demand when given, else GS_PREDICT_HOST_SD);
 *   residual    the model's reproduction error on the first capture
 *               (|predicted - captured| with no change; a run of its
 *               own when the scenario was changed, which also gives the
 *               changes' effect on the model: prediction.effect), or
 *               with repeats the largest over every capture given (each
 *               reproduced on its own model: one capture's error is one
 *               draw of the model's).
 *   moving profile  when the machine profile was measured on a moving
 *               host (drift >= GS_PREDICT_PROFILE_MOVING), one run on the
 *               first capture's model with ideal sharing in place of the
 *               profile's contention curves (prediction.ideal), and two
 *               more at the replicates' slowest and fastest host speeds.
 * lo = min(point, repeats, replicates, ideal runs) - residual,
 * hi = max(point, repeats, replicates, ideal runs) + residual, within [0, 1]: about a
 * 90% interval, the replicates' extremes being the host's 5th and 95th
 * percentile speeds.
 * The point is the first capture's prediction, or the mean over the
 * repeats' when there are several (a prediction is judged against the
 * mean of repeats).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/outfile.h"
#include "../timeline/timeline.h"
#include "predict.h"

/* One run of s on m into a scratch directory: its util summary. */
static gs_status scratch_run(const gs_scenario *s, gs_model *m, const char *tmp, int k, gs_util_summary *out,
                             gs_err *err)
{
    char dir[GS_SCN_PATH_MAX];
    snprintf(dir, sizeof dir, "%s/run-%d", tmp, k);
    gs_run_opts ro = {.out_dir = dir, .quiet = 1, .no_charts = 1, .no_trace = 1, .model = m};
    gs_run_result r;
    gs_status st = gs_scn_run(s, &ro, &r, err);
    if (st == GS_OK)
        gs_util_summary_of_run(out, &r);
    gs_remove_tree(dir);
    return st;
}

/* Capture c predicted on its model m with no change (run k of the scratch
 * directory): its utilization in *util. */
static gs_status reproduce(const gs_capture *c, gs_model *m, const char *tmp, int k, double *util, gs_err *err)
{
    gs_scenario *s0 = NULL;
    char tr[GS_SCN_PATH_MAX] = "";
    gs_util_summary u;
    gs_status st = gs_predict_scenario(&s0, c, m, NULL, 0, tr, sizeof tr, 1, err);
    if (st == GS_OK && (st = scratch_run(s0, m, tmp, k, &u, err)) == GS_OK)
        *util = u.util;
    if (tr[0])
        unlink(tr);
    gs_scenario_destroy(s0);
    return st;
}

/* Mean synthesis demand per partition of model m (core-seconds). */
static double synth_mean(const gs_model *m)
{
    int si = gs_model_find(m, gs_vocab_name(GS_V_SYNTH), GS_WHERE_CPU);
    if (si < 0)
        return 0;
    double s = 0, x;
    int n = 0;
    gs_err e;
    for (int j = 0; j < 64; j++)
        for (int p = 0; p < 16; p++)
            if (gs_model_cost(m, si, -1, 0, j, p, (uint64_t)(j * 16 + p), &x, &e) == GS_OK) {
                s += x;
                n++;
            }
    return n ? s / n : 0;
}

gs_status gs_predict_interval(gs_prediction *out, const gs_predict_opts *o, gs_model *m, const gs_scenario *s,
                              const gs_util_summary *point, gs_err *err)
{
    char tmp[GS_SCN_PATH_MAX];
    const char *td = getenv("TMPDIR");
    snprintf(tmp, sizeof tmp, "%s/gapscope-interval-XXXXXX", td && *td ? td : "/tmp");
    if (!mkdtemp(tmp))
        return gs_err_set(err, GS_ERR_IO, "predict", tmp, "cannot create a scratch directory");
    gs_status st = GS_OK;
    int k = 0;
    memset(out, 0, sizeof *out);
    out->profile_drift = -1;
    out->profile_level = NAN;
    out->point = point->util;
    snprintf(out->cause, sizeof out->cause, "%s", point->cause);
    out->share = point->share;
    /* The captured runs: util of each, synthesis demand of each model. */
    double cap[GS_PREDICT_MAX_CAPTURES], dem[GS_PREDICT_MAX_CAPTURES], pred[GS_PREDICT_MAX_CAPTURES],
        res[GS_PREDICT_MAX_CAPTURES];
    int nc = 1 + o->n_repeats;
    gs_util_summary u;
    gs_capture c;
    if ((st = gs_capture_resolve(&c, o->capture, err)) != GS_OK || (st = gs_util_summary_of(&u, c.spans, err)) != GS_OK)
        goto out;
    cap[0] = u.util;
    dem[0] = synth_mean(m);
    pred[0] = point->util;
    for (int j = 1; j < nc && st == GS_OK; j++) {
        gs_model *mj = NULL;
        gs_scenario *sj = NULL;
        char tmp_tr[GS_SCN_PATH_MAX] = "", prof[GS_SCN_PATH_MAX];
        if ((st = gs_capture_resolve(&c, o->repeats[j - 1], err)) != GS_OK ||
            (st = gs_util_summary_of(&u, c.spans, err)) != GS_OK)
            break;
        cap[j] = u.util;
        gs_predict_profile_path(prof, sizeof prof, o, &c);
        if (!prof[0]) {
            /* The same machine: the first capture's profile. */
            gs_capture c0;
            if (gs_capture_resolve(&c0, o->capture, err) == GS_OK)
                gs_predict_profile_path(prof, sizeof prof, o, &c0);
        }
        if ((st = gs_model_load_profiled(&mj, c.spans, prof[0] ? prof : NULL, err)) == GS_OK && o->borrow) {
            gs_capture b;
            if ((st = gs_capture_resolve(&b, o->borrow, err)) == GS_OK)
                st = gs_model_borrow(mj, b.spans, err);
        }
        if (st == GS_OK)
            st = gs_predict_scenario(&sj, &c, mj, o->sets, o->n_sets, tmp_tr, sizeof tmp_tr, 1, err);
        if (st == GS_OK) {
            dem[j] = synth_mean(mj);
            st = scratch_run(sj, mj, tmp, k++, &u, err);
            pred[j] = u.util;
        }
        if (tmp_tr[0])
            unlink(tmp_tr);
        /* Its reproduction (unchanged: the changed run is one already). */
        double r = st == GS_OK ? pred[j] : cap[j];
        if (st == GS_OK && o->n_sets > 0)
            st = reproduce(&c, mj, tmp, k++, &r, err);
        res[j] = fabs(r - cap[j]);
        gs_scenario_destroy(sj);
        gs_model_destroy(mj);
    }
    if (st != GS_OK)
        goto out;
    out->n_captures = nc;
    double cm = 0, pm = 0, dm = 0, dv = 0;
    for (int j = 0; j < nc; j++) {
        cm += cap[j] / nc;
        pm += pred[j] / nc;
        dm += dem[j] / nc;
    }
    for (int j = 0; j < nc; j++)
        dv += (dem[j] - dm) * (dem[j] - dm);
    out->captured = cm;
    for (int j = 0; j < nc; j++)
        out->captured_sd += (cap[j] - cm) * (cap[j] - cm) / (nc > 1 ? nc - 1 : 1);
    out->captured_sd = sqrt(out->captured_sd);
    out->point = pm;
    /* The documented spread (4 degrees of freedom) pooled with the
     * repeats' (nc - 1). */
    double s2 = GS_PREDICT_HOST_SD * GS_PREDICT_HOST_SD * 4;
    if (nc > 1 && dm > 0)
        s2 += dv / (dm * dm);
    out->host_sd = sqrt(s2 / (4 + nc - 1)) * sqrt(1.0 + 1.0 / nc);
    /* Reproduction residual of the first capture. */
    if (o->n_sets == 0) {
        out->residual = fabs(point->util - cap[0]);
    } else {
        if ((st = gs_capture_resolve(&c, o->capture, err)) != GS_OK ||
            (st = reproduce(&c, m, tmp, k++, &out->unchanged, err)) != GS_OK)
            goto out;
        out->residual = fabs(out->unchanged - cap[0]);
        out->has_effect = 1;
        out->effect = point->util - out->unchanged;
    }
    /* One capture's reproduction error is one draw of the model's: with
     * repeats, the largest over every capture given. */
    for (int j = 1; j < nc; j++)
        out->residual = res[j] > out->residual ? res[j] : out->residual;
    /* Replicates. */
    int threads[GS_MODEL_SPEED_CLASSES] = {0};
    threads[GS_SPEED_SYNTH] = s->engine.synth_threads;
    int same_cause = 0;
    for (int r = 0; r < o->reps && r < GS_PREDICT_MAX_REPS && st == GS_OK; r++) {
        gs_model_replicate(m, (uint64_t)r + 1, (uint64_t)o->reps, threads, out->host_sd);
        st = scratch_run(s, m, tmp, k++, &u, err);
        out->rep[out->n_rep++] = u.util;
        same_cause += !strcmp(u.cause, point->cause);
    }
    gs_model_replicate(m, 0, 0, NULL, 0);
    if (st != GS_OK)
        goto out;
    out->cause_agree = out->n_rep ? (double)same_cause / out->n_rep : 1;
    /* A profile measured on a moving host: the same run with ideal sharing
     * in its curves' place. */
    out->profile_drift = gs_model_profile_drift(m);
    out->profile_level = gs_model_profile_level(m);
    double ideal_lo = 0, ideal_hi = 0;
    if (out->profile_drift >= GS_PREDICT_PROFILE_MOVING && gs_model_profile_curves(m, 0) > 0) {
        st = scratch_run(s, m, tmp, k++, &u, err);
        out->ideal = ideal_lo = ideal_hi = u.util;
        /* And at the replicates' slowest and fastest host speeds: which
         * curves hold and how fast the host runs are two uncertainties,
         * crossed at their extremes as the profile's curves are by the
         * replicates. */
        for (int e = 0; e < 2 && st == GS_OK && o->reps >= 2; e++) {
            gs_model_replicate(m, e ? (uint64_t)o->reps : 1, (uint64_t)o->reps, threads, out->host_sd);
            st = scratch_run(s, m, tmp, k++, &u, err);
            ideal_lo = u.util < ideal_lo ? u.util : ideal_lo;
            ideal_hi = u.util > ideal_hi ? u.util : ideal_hi;
        }
        gs_model_replicate(m, 0, 0, NULL, 0);
        gs_model_profile_curves(m, 1);
        if (st != GS_OK)
            goto out;
        out->has_ideal = 1;
    }
    double lo = out->point, hi = out->point;
    if (out->has_ideal) {
        lo = ideal_lo < lo ? ideal_lo : lo;
        hi = ideal_hi > hi ? ideal_hi : hi;
    }
    for (int j = 0; j < nc; j++) {
        lo = pred[j] < lo ? pred[j] : lo;
        hi = pred[j] > hi ? pred[j] : hi;
    }
    for (int r = 0; r < out->n_rep; r++) {
        lo = out->rep[r] < lo ? out->rep[r] : lo;
        hi = out->rep[r] > hi ? out->rep[r] : hi;
    }
    out->lo = lo - out->residual < 0 ? 0 : lo - out->residual;
    out->hi = hi + out->residual > 1 ? 1 : hi + out->residual;
out:
    gs_remove_tree(tmp);
    return st;
}

void gs_prediction_change_text(char *out, size_t cap, const gs_prediction *p)
{
    if (!p->has_effect)
        snprintf(out, cap, "%s", "");
    else if (fabs(p->effect) < GS_PREDICT_NO_EFFECT)
        snprintf(out, cap,
                 "%+.1f points on the capture's model (%.1f%% unchanged): nothing in the modelled run "
                 "waits on what the --set changes, so the prediction is the capture's own; a run of it "
                 "differs by the host's run-to-run speed (the interval)",
                 100 * p->effect, 100 * p->unchanged);
    else
        snprintf(out, cap, "%+.1f points on the capture's model (%.1f%% unchanged)", 100 * p->effect,
                 100 * p->unchanged);
}

void gs_prediction_level_text(char *out, size_t cap, const gs_prediction *p)
{
    if (!isfinite(p->profile_level) || fabs(p->profile_level) <= GS_MODEL_PROFILE_LEVEL)
        snprintf(out, cap, "%s", "");
    else
        snprintf(out, cap,
                 "the capture's synthesis used %.0f%% %s CPU per partition than the machine profile at the same "
                 "threads: the host's speed moved between calibrate and the capture, and a change of thread "
                 "counts carries that (calibrate beside the capture; repeats of the base narrow it)",
                 100 * fabs(p->profile_level), p->profile_level > 0 ? "more" : "less");
}

gs_status gs_prediction_write_meta(const gs_prediction *p, const char *spans_csv, gs_err *err)
{
    gs_timeline *tl = NULL;
    gs_status st = gs_timeline_read_csv(&tl, spans_csv, err);
    if (st != GS_OK)
        return st;
    char b[64], reps[GS_PREDICT_MAX_REPS * 12 + 8] = "";
    size_t n = 0;
    for (int i = 0; i < p->n_rep && n < sizeof reps - 12; i++)
        n += (size_t)snprintf(reps + n, sizeof reps - n, "%s%.4f", i ? "," : "", p->rep[i]);
    static const char *const keys[] = {"prediction.util", "prediction.util_lo", "prediction.util_hi",
                                       "prediction.residual", "prediction.host_sd", "prediction.captured",
                                       "prediction.captured_sd", "prediction.cause_agree"};
    const double v[] = {p->point, p->lo, p->hi, p->residual, p->host_sd, p->captured, p->captured_sd,
                        p->cause_agree};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        snprintf(b, sizeof b, "%.6f", v[i]);
        gs_timeline_meta_set(tl, keys[i], b);
    }
    if (p->has_ideal) {
        snprintf(b, sizeof b, "%.6f", p->ideal);
        gs_timeline_meta_set(tl, "prediction.ideal", b);
    }
    if (isfinite(p->profile_level)) {
        snprintf(b, sizeof b, "%.6f", p->profile_level);
        gs_timeline_meta_set(tl, "prediction.profile_level", b);
        char said[400];
        gs_prediction_level_text(said, sizeof said, p);
        if (said[0])
            gs_timeline_meta_set(tl, "prediction.profile_moved", said);
    }
    if (p->has_effect) {
        snprintf(b, sizeof b, "%.6f", p->unchanged);
        gs_timeline_meta_set(tl, "prediction.unchanged", b);
        snprintf(b, sizeof b, "%.6f", p->effect);
        gs_timeline_meta_set(tl, "prediction.effect", b);
        char said[400];
        gs_prediction_change_text(said, sizeof said, p);
        gs_timeline_meta_set(tl, "prediction.change", said);
    }
    snprintf(b, sizeof b, "%d", p->n_captures);
    gs_timeline_meta_set(tl, "prediction.captures", b);
    gs_timeline_meta_set(tl, "prediction.replicates", reps);
    st = gs_timeline_write_csv(tl, spans_csv, err);
    gs_timeline_destroy(tl);
    return st;
}
