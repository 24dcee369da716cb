/*
 * `gapscope sweep`: one scenario at every combination of the --vary values,
 * each `reps` times, plus `reps` baseline runs, all in one randomized,
 * interleaved order (Coz-style: slow drifts of the machine spread over every
 * point instead of biasing the last ones).  A baseline run has every varied
 * injection off and every other varied key as the scenario writes it.
 *
 *   --vary inject.tracker_hold=0ms,20ms,50ms   delay of a point (fixed:D; 0 = off)
 *   --vary engine.synth_threads=2,4,6          any key; values split at ','
 *   --vary inject.h2d.dist=uniform:1ms,2ms|fixed:5ms   split at '|' when present
 *
 * With a capture (--predict CAPTURE) every run is a prediction: the
 * capture's own scenario on its fitted model (predict.h), the --set and
 * --vary values applied on top; the model is fitted once for all runs.
 *
 * Outputs in OUT: run-NNN/ (each a run directory with summary.json),
 * sweep.csv (one row per run; columns in scenarios/README.md), sweep.dat
 * and sweep_causes.dat (report/README.md formats), charts/sweep.png/.svg
 * (plots/sweep.gp), and the sensitivity (least-squares slope of GPU idle
 * seconds per unit of each varied key, 95% interval) in sensitivity.csv
 * and on stderr.  A stop (SIGINT/SIGTERM, o->stop) ends the sweep after the
 * interrupted run, with the tables of the runs that ran to their end.
 *
 * The plan (the varied keys and the run order) and the tables are apart
 * from the loop (gs_sweep_plan_*, run.h) so that a driver running the runs
 * elsewhere (slurm_sweep.c: one Slurm array task per run, each
 * `gapscope sweep ... --task I`) builds the same runs and writes the same
 * tables; o->one_task runs one run of the order and writes no tables.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../diag/analysis.h"
#include "../report/charts.h"
#include "../common/outdir.h"
#include "../common/outfile.h"
#include "predict.h"
#include "run.h"
#include "scn_internal.h"

#define MAX_VARY 4
#define MAX_VALUES 32

typedef struct {
    char key[96];            /* as given */
    char set_key[112];       /* section.key actually set */
    int inject_delay;        /* key was inject.<point>: values are delays */
    char point[32];
    char *values[MAX_VALUES];
    int n;
} vary;

typedef struct {
    int point;               /* index into the product, -1 = baseline */
    int rep;
} slot;

/* The index of key k's value at sweep point p >= 0: the points count
 * through the values of the keys as a mixed-radix number, key 0 fastest. */
static int value_index(const vary *vs, int k, int p)
{
    for (int q = 0; q < k; q++)
        p /= vs[q].n;
    return p % vs[k].n;
}

static const char *value_at(const vary *vs, int k, int p) { return vs[k].values[value_index(vs, k, p)]; }

/* Opens dir/name as an atomic output file. */
static gs_status open_in(gs_outfile *of, const char *dir, const char *name, gs_err *err)
{
    char path[GS_SCN_PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return gs_out_open(of, path, err);
}

/* Numeric value of a setting text for regression (seconds for durations). */
static double numeric(const char *v)
{
    int64_t ns;
    uint64_t b;
    gs_dist d;
    char *end;
    if (gs_parse_duration_ns(&ns, v))
        return (double)ns * 1e-9;
    double x = strtod(v, &end);
    if (end != v && !*end)
        return x;
    if (gs_parse_size_bytes(&b, v))
        return (double)b;
    gs_err e;
    gs_err_clear(&e);
    if (gs_parse_dist(&d, v, NULL, "sweep", &e) == GS_OK) {
        x = gs_dist_mean(&d);
        free(d.samples);
        return x;
    }
    return NAN;
}

static gs_status parse_vary(vary *v, const char *arg, gs_err *err)
{
    memset(v, 0, sizeof *v);
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || !eq[1])
        return GS_ERR(err, GS_ERR_ARG, "sweep", "--vary expects KEY=v1,v2,..., got '%s'", arg);
    snprintf(v->key, sizeof v->key, "%.*s", (int)(eq - arg), arg);
    int dots = 0;
    for (const char *p = v->key; *p; p++)
        dots += *p == '.';
    if (!strncmp(v->key, "inject.", 7) && dots == 1) {
        v->inject_delay = 1;
        snprintf(v->point, sizeof v->point, "%s", v->key + 7);
        snprintf(v->set_key, sizeof v->set_key, "%s.dist", v->key);
    } else
        snprintf(v->set_key, sizeof v->set_key, "%s", v->key);
    char sep = strchr(eq + 1, '|') ? '|' : ',';
    char *copy = strdup(eq + 1);
    if (!copy)
        return GS_ERR(err, GS_ERR_NOMEM, "sweep", "out of memory");
    char *save = NULL, seps[2] = {sep, 0};
    for (char *tok = strtok_r(copy, seps, &save); tok; tok = strtok_r(NULL, seps, &save)) {
        if (v->n == MAX_VALUES) {
            free(copy);
            return GS_ERR(err, GS_ERR_RANGE, "sweep", "at most %d values per --vary", MAX_VALUES);
        }
        v->values[v->n++] = strdup(tok);
    }
    free(copy);
    if (v->n == 0)
        return GS_ERR(err, GS_ERR_ARG, "sweep", "--vary %s has no values", v->key);
    return GS_OK;
}

/* Applies value `val` of vary v to scenario s. */
static gs_status apply_value(gs_scenario *s, const vary *v, const char *val, gs_err *err)
{
    char buf[700];
    if (v->inject_delay) {
        int64_t ns;
        if (!gs_parse_duration_ns(&ns, val))
            return GS_ERR(err, GS_ERR_ARG, "sweep", "--vary %s: '%s' is not a duration", v->key, val);
        if (ns == 0)
            snprintf(buf, sizeof buf, "inject.%s.enabled=no", v->point);
        else {
            snprintf(buf, sizeof buf, "inject.%s.dist=fixed:%s", v->point, val);
            gs_status st = gs_scenario_set(s, buf, "--vary", err);
            if (st != GS_OK)
                return st;
            snprintf(buf, sizeof buf, "inject.%s.enabled=yes", v->point);
        }
    } else
        snprintf(buf, sizeof buf, "%s=%s", v->set_key, val);
    return gs_scenario_set(s, buf, "--vary", err);
}

static void free_vary(vary *v)
{
    for (int i = 0; i < v->n; i++)
        free(v->values[i]);
}

struct gs_sweep_plan {
    gs_sweep_opts o;         /* as given (pointers borrowed) */
    vary vs[MAX_VARY];
    int nv, points, total;
    slot *order;
    gs_capture cap;
    gs_model *model;         /* --predict: fitted once */
};

void gs_sweep_plan_destroy(gs_sweep_plan *p)
{
    if (!p)
        return;
    gs_model_destroy(p->model);
    for (int i = 0; i < p->nv; i++)
        free_vary(&p->vs[i]);
    free(p->order);
    free(p);
}

gs_status gs_sweep_plan_create(gs_sweep_plan **out, const gs_sweep_opts *o, gs_err *err)
{
    *out = NULL;
    if (o->n_vary < 1 || o->n_vary > MAX_VARY)
        return GS_ERR(err, GS_ERR_ARG, "sweep", "give 1 to %d --vary options", MAX_VARY);
    gs_sweep_plan *p = calloc(1, sizeof *p);
    if (!p)
        return GS_ERR(err, GS_ERR_NOMEM, "sweep", "out of memory");
    p->o = *o;
    gs_status st = GS_OK;
    vary *vs = p->vs;
    for (; p->nv < o->n_vary; p->nv++)
        if ((st = parse_vary(&vs[p->nv], o->vary[p->nv], err)) != GS_OK) {
            p->nv++;
            goto fail;
        }
    int points = 1;
    for (int i = 0; i < p->nv; i++)
        points *= vs[i].n;
    int reps = o->reps > 0 ? o->reps : 1;
    int total = (points + 1) * reps;
    slot *order = p->order = calloc((size_t)total, sizeof *order);
    if (!order) {
        st = GS_ERR(err, GS_ERR_NOMEM, "sweep", "out of memory");
        goto fail;
    }
    p->points = points;
    p->total = total;
    for (int q = -1, k = 0; q < points; q++)
        for (int r = 0; r < reps; r++)
            order[k++] = (slot){q, r};
    gs_rng rng; /* Fisher-Yates shuffle: randomized interleaved order */
    gs_rng_seed(&rng, o->seed ^ 0x7377656570ULL);
    for (int i = total - 1; i > 0; i--) {
        int j = (int)gs_rng_below(&rng, (uint64_t)i + 1);
        slot t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    if (o->predict && ((st = gs_capture_resolve(&p->cap, o->predict, err)) != GS_OK ||
                       (st = gs_model_load(&p->model, p->cap.spans, err)) != GS_OK))
        goto fail;
    *out = p;
    return GS_OK;
fail:
    gs_sweep_plan_destroy(p);
    return st;
}

int gs_sweep_plan_total(const gs_sweep_plan *p)
{
    return p->total;
}

void gs_sweep_plan_slot(const gs_sweep_plan *p, int i, int *point, int *rep)
{
    *point = p->order[i].point;
    *rep = p->order[i].rep;
}

gs_status gs_sweep_plan_scenario(const gs_sweep_plan *p, int i, gs_scenario **out, char *tmp, size_t tmp_cap,
                                 gs_err *err)
{
    const gs_sweep_opts *o = &p->o;
    const vary *vs = p->vs;
    int nv = p->nv;
    gs_scenario *s = NULL;
    gs_status st;
    *out = NULL;
    tmp[0] = '\0';
    if (p->model)
        st = gs_predict_scenario(&s, &p->cap, p->model, o->sets, o->n_sets, tmp, tmp_cap, 1, err);
    else if ((st = gs_scenario_load(&s, o->scenario, err)) == GS_OK)
        st = gs_scenario_set_all(s, o->sets, o->n_sets, "--set", err);
    int pt = p->order[i].point;
    for (int k = 0; k < nv && st == GS_OK; k++) {
        if (pt < 0) { /* baseline: varied injections off */
            if (vs[k].inject_delay)
                st = apply_value(s, &vs[k], "0ms", err);
            continue;
        }
        st = apply_value(s, &vs[k], value_at(vs, k, pt), err);
    }
    if (st == GS_OK)
        st = gs_scenario_validate(s, err);
    if (st != GS_OK) {
        gs_scenario_destroy(s);
        if (tmp[0])
            unlink(tmp);
        return st;
    }
    *out = s;
    return GS_OK;
}

gs_status gs_scn_sweep(const gs_sweep_opts *o, gs_err *err)
{
    gs_sweep_plan *plan = NULL;
    gs_run_result *rows = NULL;
    /* What a sweep writes into OUT (a failed sweep leaves none of it). */
    static const char *const outputs[] = {"run-*", "sweep.csv", "sensitivity.csv", "sweep.dat",
                                          "sweep_causes.dat", "charts", NULL};
    gs_outdir od;
    int od_open = 0;
    gs_status st = gs_sweep_plan_create(&plan, o, err);
    if (st != GS_OK)
        return st;
    int total = plan->total;
    const slot *order = plan->order;
    if (o->one_task && (o->task < 0 || o->task >= total)) {
        st = GS_ERR(err, GS_ERR_RANGE, "sweep", "--task %d: the sweep has runs 0 to %d", o->task, total - 1);
        goto done;
    }
    rows = calloc((size_t)total, sizeof *rows);
    if (!rows) {
        st = GS_ERR(err, GS_ERR_NOMEM, "sweep", "out of memory");
        goto done;
    }
    /* A failed sweep leaves OUT as it was (common/outdir.h); a stopped one
     * keeps the runs it finished.  One task of a Slurm array (one_task)
     * shares OUT with the array's other tasks, running at the same time:
     * only its own run directory is bracketed (gs_scn_run does that). */
    if (o->one_task)
        st = gs_mkdir_p(o->out_dir, err);
    else if ((st = gs_outdir_begin(&od, o->out_dir, outputs, err)) == GS_OK)
        od_open = 1;
    if (st != GS_OK)
        goto done;
    for (int i = 0; i < total; i++) {
        if (o->one_task && i != o->task)
            continue;
        gs_scenario *s = NULL;
        char tmp[GS_SCN_PATH_MAX] = "";
        int p = order[i].point;
        if ((st = gs_sweep_plan_scenario(plan, i, &s, tmp, sizeof tmp, err)) != GS_OK)
            goto done;
        char dir[GS_SCN_PATH_MAX];
        snprintf(dir, sizeof dir, "%.480s/run-%03d", o->out_dir, i);
        gs_run_opts ro = {.out_dir = dir, .quiet = 1, .no_charts = 1, .stop = o->stop, .model = plan->model};
        if (!o->quiet)
            fprintf(stderr, "gapscope sweep: run %d/%d (%s rep %d)\n", i + 1, total,
                    p < 0 ? "baseline" : "point", order[i].rep);
        st = gs_scn_run(s, &ro, &rows[i], err);
        if (tmp[0])
            unlink(tmp);
        gs_scenario_destroy(s);
        if (st != GS_OK)
            goto done;
        if (!o->quiet)
            fprintf(stderr, "gapscope sweep:   GPU idle %.3f s, busy %.1f%%, %zu/%zu jobs ok\n", rows[i].gpu_idle_s,
                    100 * rows[i].gpu_util, rows[i].completed, rows[i].arrivals);
        if (o->stop && *o->stop) {
            /* Stopped: the tables cover the runs that ran to their end; the
             * interrupted one keeps its run directory (marked so) but its
             * truncated figures stay out. */
            int full = rows[i].interrupted ? i : i + 1;
            if (!o->quiet && !o->one_task)
                fprintf(stderr, "gapscope sweep: stopped during run %d of %d; tables of the %d complete run%s\n",
                        i + 1, total, full, full == 1 ? "" : "s");
            total = full;
            break;
        }
    }
    if (!o->one_task) /* one_task: one run of the sweep (a Slurm array task): no tables */
        st = gs_sweep_plan_tables(plan, rows, NULL, total, err);
done:
    if (od_open)
        gs_outdir_end(&od, st != GS_OK);
    gs_sweep_plan_destroy(plan);
    free(rows);
    return st;
}

gs_status gs_sweep_plan_tables(const gs_sweep_plan *plan, const gs_run_result *rows, const unsigned char *ran,
                               int total, gs_err *err)
{
    const gs_sweep_opts *o = &plan->o;
    const vary *vs = plan->vs;
    const slot *order = plan->order;
    int nv = plan->nv, points = plan->points;
    gs_status st = GS_OK;
    {
        /* sweep.csv */
        gs_outfile of;
        if ((st = open_in(&of, o->out_dir, "sweep.csv", err)) != GS_OK)
            goto done;
        fprintf(of.f, "run,point,rep,baseline");
        for (int k = 0; k < nv; k++)
            fprintf(of.f, ",%s,%s_x", vs[k].key, vs[k].key);
        fprintf(of.f, ",wall_s,jobs,completed,failed,gpu_span_s,gpu_idle_s,gpu_util,verdict,dir\n");
        for (int i = 0; i < total; i++) {
            int p = order[i].point;
            fprintf(of.f, "%d,%d,%d,%d", i, p, order[i].rep, p < 0);
            for (int k = 0; k < nv; k++) {
                const char *val = p < 0 ? (vs[k].inject_delay ? "0ms" : "(scenario)") : value_at(vs, k, p);
                fprintf(of.f, ",\"%s\",%.9g", val, numeric(val));
            }
            char verdict[256];
            snprintf(verdict, sizeof verdict, "%s", rows[i].verdict);
            for (char *c = verdict; *c; c++)
                if (*c == '"')
                    *c = '\'';
            if (ran && !ran[i]) { /* listed, with what happened instead of figures */
                fprintf(of.f, ",,,,,,,,\"%s\",%s\n", verdict, rows[i].dir);
                continue;
            }
            fprintf(of.f, ",%.3f,%zu,%zu,%zu,%.6f,%.6f,%.6f,\"%s\",%s\n", rows[i].wall_s, rows[i].arrivals,
                    rows[i].completed, rows[i].failed, rows[i].gpu_span_s, rows[i].gpu_idle_s, rows[i].gpu_util,
                    verdict, rows[i].dir);
        }
        if ((st = gs_out_close(&of, 1, err)) != GS_OK)
            goto done;
    }
    /* Sensitivity and the per-point chart data of the first varied key. */
    {
        gs_outfile of;
        if ((st = open_in(&of, o->out_dir, "sensitivity.csv", err)) != GS_OK)
            goto done;
        fprintf(of.f, "key,n,slope_idle_s_per_unit,ci95,intercept_s\n");
        double *x = calloc((size_t)total, sizeof *x), *y = calloc((size_t)total, sizeof *y);
        for (int k = 0; x && y && k < nv; k++) {
            size_t n = 0;
            for (int i = 0; i < total; i++) {
                int p = order[i].point;
                const char *val = p < 0 ? (vs[k].inject_delay ? "0ms" : NULL) : value_at(vs, k, p);
                double xv = val ? numeric(val) : NAN;
                if (!isfinite(xv) || !rows[i].analyzed)
                    continue;
                x[n] = xv;
                y[n++] = rows[i].gpu_idle_s;
            }
            double b, ci, a;
            if (gs_ols_slope(&b, &ci, &a, x, y, n)) {
                fprintf(of.f, "%s,%zu,%.6g,%.6g,%.6g\n", vs[k].key, n, b, ci, a);
                if (!o->quiet)
                    fprintf(stderr, "gapscope sweep: sensitivity of GPU idle to %s: %.3f s per unit (95%% CI +-%.3f), "
                                    "n = %zu\n", vs[k].key, b, ci, n);
            } else
                fprintf(of.f, "%s,%zu,,,\n", vs[k].key, n);
        }
        free(x);
        free(y);
        if ((st = gs_out_close(&of, 1, err)) != GS_OK)
            goto done;
        if ((st = open_in(&of, o->out_dir, "sweep.dat", err)) != GS_OK)
            goto done;
        /* report/README.md "sweep.dat": a block per varied key ("suspect"),
         * x idle_mean_s idle_lo_s idle_hi_s util_mean n "label"; lo/hi are
         * the min/max over the repetitions; the baseline is x = 0 for delays. */
        for (int k = 0; k < nv; k++) {
            if (k)
                fprintf(of.f, "\n\n");
            fprintf(of.f, "# suspect %s\n", vs[k].key);
            for (int v = -1; v < vs[k].n; v++) {
                double sum = 0, mn = INFINITY, mx = -INFINITY, us = 0;
                int n = 0;
                for (int i = 0; i < total; i++) {
                    int p = order[i].point;
                    int match = v < 0 ? p < 0 : p >= 0 && value_index(vs, k, p) == v;
                    if (!match || !rows[i].analyzed)
                        continue;
                    sum += rows[i].gpu_idle_s;
                    us += rows[i].gpu_util;
                    mn = fmin(mn, rows[i].gpu_idle_s);
                    mx = fmax(mx, rows[i].gpu_idle_s);
                    n++;
                }
                const char *label = v < 0 ? "baseline" : vs[k].values[v];
                double xv = v < 0 ? (vs[k].inject_delay ? 0.0 : NAN) : numeric(label);
                if (n && isfinite(xv))
                    fprintf(of.f, "%.9g %.6f %.6f %.6f %.6f %d \"%s\"\n", xv, sum / n, mn, mx, us / n, n, label);
            }
        }
        if ((st = gs_out_close(&of, 1, err)) != GS_OK)
            goto done;
        /* sweep_causes.dat: idle by cause per sweep point (mean over reps). */
        if ((st = open_in(&of, o->out_dir, "sweep_causes.dat", err)) != GS_OK)
            goto done;
        fprintf(of.f, "label");
        for (int c = 0; c < GS_CAUSE_COUNT; c++)
            fprintf(of.f, " %s", gs_cause_name((gs_cause)c));
        fprintf(of.f, "\n");
        for (int p = -1; p < points; p++) {
            double cs[GS_SCN_MAX_CAUSES] = {0};
            int n = 0;
            for (int i = 0; i < total; i++)
                if (order[i].point == p && rows[i].analyzed) {
                    for (int c = 0; c < GS_CAUSE_COUNT; c++)
                        cs[c] += rows[i].cause_idle_s[c];
                    n++;
                }
            if (!n)
                continue;
            char label[256] = "baseline";
            if (p >= 0) {
                label[0] = '\0';
                for (int k = 0; k < nv; k++) {
                    const char *name = vs[k].inject_delay ? vs[k].point : vs[k].key;
                    snprintf(label + strlen(label), sizeof label - strlen(label), "%s%.60s@%.60s", k ? "," : "", name,
                             value_at(vs, k, p));
                }
            }
            for (char *c = label; *c; c++)
                if (*c == ' ' || *c == '"')
                    *c = '_';
            fprintf(of.f, "%s", label);
            for (int c = 0; c < GS_CAUSE_COUNT; c++)
                fprintf(of.f, " %.6f", cs[c] / n);
            fprintf(of.f, "\n");
        }
        if ((st = gs_out_close(&of, 1, err)) != GS_OK)
            goto done;
    }
    {
        gs_err cerr;
        gs_err_clear(&cerr);
        if (gs_sweep_chart(o->out_dir, NULL, &cerr) != GS_OK && !o->quiet)
            fprintf(stderr, "gapscope sweep: chart not drawn: %s\n", cerr.msg);
    }
done:
    return st;
}
