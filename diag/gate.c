/* Gate checks, paired comparison and their outputs (gate.h); limits are in gate_limits.c. */
#define _POSIX_C_SOURCE 200809L
#include "gate.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "../common/json.h"
#include "../common/outfile.h"
#include "../common/stats.h"

void gs_gate_result_init(gs_gate_result *res, const char *mode)
{
    memset(res, 0, sizeof *res);
    res->pass = 1;
    snprintf(res->mode, sizeof res->mode, "%s", mode);
}

void gs_gate_result_free(gs_gate_result *res)
{
    free(res->checks);
    res->checks = NULL;
    res->n = res->cap = 0;
}

static gs_status add(gs_gate_result *res, const char *name, const char *op, double value,
                     double limit, const char *unit, const char *detail)
{
    if (!gs_grow(&res->checks, &res->cap, res->n, sizeof *res->checks, 16))
        return GS_ERR_NOMEM;
    gs_gate_check *c = &res->checks[res->n++];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", name);
    snprintf(c->op, sizeof c->op, "%s", op);
    snprintf(c->unit, sizeof c->unit, "%s", unit);
    snprintf(c->detail, sizeof c->detail, "%s", detail);
    c->value = value;
    c->limit = limit;
    c->pass = !strcmp(op, ">=") ? value >= limit : value <= limit;
    if (isnan(value))
        c->pass = 0;
    res->pass &= c->pass;
    return GS_OK;
}

gs_status gs_gate_evaluate(gs_gate_result *res, const gs_run *r, const gs_gate_limits *l)
{
    const gs_analysis *a = r->an;
    char name[128];
    gs_status st = GS_OK;
    size_t devs_with_ops = 0;
    for (size_t i = 0; i < a->n_dev && st == GS_OK; i++) {
        const gs_device_analysis *d = &a->dev[i];
        if (!d->n_ops)
            continue;
        devs_with_ops++;
        if (!isnan(l->min_util) && st == GS_OK) {
            snprintf(name, sizeof name, "util gpu%d", (int)d->device);
            /* A prediction (gapscope predict) passes only when its
             * interval does: the value checked is the interval's low end
             * (the point less the distance to it). */
            const char *pu = gs_timeline_meta_get(r->tl, "prediction.util"),
                       *plo = gs_timeline_meta_get(r->tl, "prediction.util_lo");
            if (pu && plo && atof(pu) >= atof(plo)) {
                char det[200];
                snprintf(det, sizeof det, "predicted %.2f%%, interval low end (prediction.util_lo, "
                                          "%.2f points below the point)", 100 * d->util,
                         100 * (atof(pu) - atof(plo)));
                st = add(res, name, ">=", d->util - (atof(pu) - atof(plo)), l->min_util, "", det);
            } else {
                st = add(res, name, ">=", d->util, l->min_util, "",
                         "kernels or copies busy / span (first to last device operation)");
            }
        }
        if (!isnan(l->min_util_kernels_only) && st == GS_OK) {
            snprintf(name, sizeof name, "util_kernels_only gpu%d", (int)d->device);
            st = add(res, name, ">=", d->util_kernels_only, l->min_util_kernels_only, "",
                     "kernels busy / span");
        }
        if (!isnan(l->max_gap_p99_ms) && st == GS_OK) {
            char det[160];
            snprintf(name, sizeof name, "gap_p99 gpu%d", (int)d->device);
            snprintf(det, sizeof det, "nearest-rank p99 of %zu idle gaps inside the span%s",
                     d->gap_stats.count,
                     d->gap_stats.count < 100 ? "; with < 100 gaps it is the longest gap" : "");
            st = add(res, name, "<=", d->gap_stats.p99_ms, l->max_gap_p99_ms, "ms", det);
        }
        if (!isnan(l->max_gap_max_ms) && st == GS_OK) {
            snprintf(name, sizeof name, "gap_max gpu%d", (int)d->device);
            st = add(res, name, "<=", d->gap_stats.max_ms, l->max_gap_max_ms, "ms",
                     "longest idle gap inside the span");
        }
    }
    if (!devs_with_ops && st == GS_OK)
        st = add(res, "device operations", ">=", 0, 1, "", "the timeline has no device operation");
    for (int k = 0; k < l->n_cause && st == GS_OK; k++) {
        double idle = gs_analysis_cause_idle(a, l->cause[k].cause);
        snprintf(name, sizeof name, "cause_share %s", l->cause[k].cause);
        st = add(res, name, "<=", a->span_s > 0 ? idle / a->span_s : 0, l->cause[k].max_share, "",
                 "idle seconds attributed to the cause (group) / summed device span");
    }
    /* A foreign timeline (attach, import) has no jobs of gapscope's engine:
     * the failed-jobs check does not apply to it (an engine run without
     * job results still fails the check). */
    int foreign = r->tl && gs_timeline_foreign_source(r->tl);
    if (l->max_failed_jobs >= 0 && st == GS_OK && !(foreign && r->jobs.failed < 0))
        st = add(res, "failed jobs", "<=",
                 r->jobs.failed < 0 ? NAN : (double)(r->jobs.failed + r->jobs.pending),
                 (double)l->max_failed_jobs, "",
                 r->jobs.failed < 0 ? "no job results recorded" : "failed + never finished jobs");
    return st;
}

static double run_util(const gs_run *r)
{
    return r->an->span_s > 0 ? r->an->busy_s / r->an->span_s : 0;
}

/* A run's probe: the mean of its before and after values (one when the
 * other is missing), with its version and threads; 0 when it has none. */
static int run_probe(const gs_run *r, double *v, long *version, long *threads)
{
    if (!r->tl) return 0;
    const char *ver = gs_timeline_meta_get(r->tl, "host.probe.version");
    const char *thr = gs_timeline_meta_get(r->tl, "host.probe.threads");
    const char *when[2] = { "host.probe.before_msteps", "host.probe.after_msteps" };
    double sum = 0;
    int n = 0;
    if (!ver || !thr) return 0;
    for (int i = 0; i < 2; i++) {
        const char *t = gs_timeline_meta_get(r->tl, when[i]);
        char *end;
        double x = t ? strtod(t, &end) : 0;
        if (t && end != t && *end == 0 && x > 0 && isfinite(x)) {
            sum += x;
            n++;
        }
    }
    if (n == 0) return 0;
    *v = sum / n;
    *version = strtol(ver, NULL, 10);
    *threads = strtol(thr, NULL, 10);
    return 1;
}

/* The paired gate's host note (gate.h: host_*). */
static void host_speed(gs_gate_result *res, const gs_run *const *base, size_t nb,
                       const gs_run *const *head, size_t nh, double *b, double *h)
{
    long v0 = -1, t0 = -1;
    res->host_probe = 0;
    res->host_differs = 0;
    res->host_base = res->host_head = res->host_ratio = res->host_p = NAN;
    for (size_t i = 0; i < nb + nh; i++) {
        const gs_run *r = i < nb ? base[i] : head[i - nb];
        double v;
        long ver, thr;
        if (!run_probe(r, &v, &ver, &thr)) {
            snprintf(res->host_note, sizeof res->host_note,
                     "host speed: not compared (%.300s has no host probe: a capture older than the probe, an "
                     "attach or import capture, or a modelled run)", r->dir[0] ? r->dir : "a run");
            return;
        }
        if (i == 0) {
            v0 = ver;
            t0 = thr;
        } else if (ver != v0 || thr != t0) {
            snprintf(res->host_note, sizeof res->host_note,
                     "host speed: not compared (probe version %ld on %ld threads in %.300s, %ld on %ld in the "
                     "first run)", ver, thr, r->dir[0] ? r->dir : "a run", v0, t0);
            return;
        }
        if (i < nb) b[i] = v;
        else h[i - nb] = v;
    }
    double u, mb = gs_median_sort(b, nb), mh = gs_median_sort(h, nh);
    res->host_probe = 1;
    res->host_base = mb;
    res->host_head = mh;
    res->host_ratio = mb > 0 ? mh / mb : NAN;
    /* One-sided in the direction seen (a note, not a test of a hypothesis). */
    res->host_p = mh < mb ? gs_mann_whitney_less(b, nb, h, nh, &u) : gs_mann_whitney_less(h, nh, b, nb, &u);
    res->host_differs = fabs(res->host_ratio - 1) > GS_GATE_HOST_TOL;
    snprintf(res->host_note, sizeof res->host_note,
             "host speed (probe v%ld, %ld threads, median of each side): base %.1f, head %.1f Msteps/s, "
             "head/base %.3f, one-sided Mann-Whitney p = %.3g%s", v0, t0, mb, mh, res->host_ratio, res->host_p,
             res->host_differs ? "; the hosts differ by more than 15%: a util difference may be the host's, "
                                 "not the code's (rerun both on one host: gate --slurm interleaves them)"
                               : "");
}

gs_status gs_gate_paired(gs_gate_result *res, const gs_run *const *base, size_t nb,
                         const gs_run *const *head, size_t nh, const gs_gate_limits *l)
{
    double *b = malloc((nb + 1) * sizeof *b), *h = malloc((nh + 1) * sizeof *h);
    gs_status st = GS_OK;
    char detail[256];
    if (!b || !h) {
        st = GS_ERR_NOMEM;
        goto done;
    }
    for (int metric = 0; metric < 2 && st == GS_OK; metric++) {
        /* Oriented so that smaller is worse: util, and minus the gap p99. */
        for (size_t i = 0; i < nb; i++)
            b[i] = metric == 0 ? run_util(base[i]) : -base[i]->an->gap_stats.p99_ms;
        for (size_t i = 0; i < nh; i++)
            h[i] = metric == 0 ? run_util(head[i]) : -head[i]->an->gap_stats.p99_ms;
        double u;
        double p = gs_mann_whitney_less(b, nb, h, nh, &u);
        double mb = gs_median_sort(b, nb), mh = gs_median_sort(h, nh);
        double delta = mb - mh;   /* regression amount: util drop, or gap p99 increase */
        double floor_v = metric == 0 ? l->min_util_drop : l->min_gap_p99_increase_ms;
        int regress = p < l->alpha && delta >= floor_v;
        const char *why = regress ? "regression: "
                          : delta >= floor_v ? "not significant (p >= alpha): "
                          : p < l->alpha ? "below the practical floor: " : "";
        snprintf(detail, sizeof detail,
                 "%smedian base %.4g, head %.4g; Mann-Whitney U = %.1f, one-sided p = %.4g "
                 "(alpha %.3g); fails only when significant and >= the floor; n = %zu + %zu",
                 why, metric == 0 ? mb : -mb, metric == 0 ? mh : -mh, u, p, l->alpha, nb, nh);
        st = add(res, metric == 0 ? "paired util drop (base - head)"
                                  : "paired gap_p99 increase (head - base)",
                 "<=", delta, floor_v, metric == 0 ? "" : "ms", detail);
        if (st == GS_OK) {
            res->checks[res->n - 1].pass = !regress;
            res->pass = 1;
            for (size_t k = 0; k < res->n; k++)
                res->pass &= res->checks[k].pass;
        }
    }
    if (st == GS_OK)
        host_speed(res, base, nb, head, nh, b, h);
done:
    free(b);
    free(h);
    return st;
}

static void xml_esc(FILE *f, const char *s)
{
    for (; *s; s++)
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default:
            if ((unsigned char)*s >= 0x20 || *s == '\t' || *s == '\n')
                fputc(*s, f);
        }
}

static void check_line(char *buf, size_t n, const gs_gate_check *c)
{
    snprintf(buf, n, "%s %s = %.6g%s %s %.6g%s", c->pass ? "PASS" : "FAIL", c->name, c->value,
             c->unit, c->op, c->limit, c->unit);
}

void gs_gate_print(const gs_gate_result *res, FILE *f)
{
    char line[512];
    for (size_t i = 0; i < res->n; i++) {
        check_line(line, sizeof line, &res->checks[i]);
        fprintf(f, "%s   (%s)\n", line, res->checks[i].detail);
    }
    if (res->host_note[0])
        fprintf(f, "note: %s\n", res->host_note);
    size_t failed = 0;
    for (size_t i = 0; i < res->n; i++)
        failed += !res->checks[i].pass;
    fprintf(f, "gate %s: %zu checks, %zu failed\n", res->pass ? "PASSED" : "FAILED", res->n, failed);
}

gs_status gs_gate_write_junit(const gs_gate_result *res, const char *path, gs_err *err)
{
    gs_outfile o;
    gs_status st = gs_out_open(&o, path, err);
    if (st != GS_OK)
        return st;
    size_t failed = 0;
    for (size_t i = 0; i < res->n; i++)
        failed += !res->checks[i].pass;
    fprintf(o.f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                 "<testsuites name=\"gapscope gate\" tests=\"%zu\" failures=\"%zu\">\n"
                 "<testsuite name=\"gapscope.gate.%s\" tests=\"%zu\" failures=\"%zu\" errors=\"0\">\n",
            res->n, failed, res->mode, res->n, failed);
    char line[512];
    for (size_t i = 0; i < res->n; i++) {
        const gs_gate_check *c = &res->checks[i];
        check_line(line, sizeof line, c);
        fputs("  <testcase classname=\"gapscope.gate\" name=\"", o.f);
        xml_esc(o.f, c->name);
        fputs("\">", o.f);
        if (!c->pass) {
            fputs("<failure message=\"", o.f);
            xml_esc(o.f, line);
            fputs("\">", o.f);
            xml_esc(o.f, c->detail);
            fputs("</failure>", o.f);
        }
        fputs("<system-out>", o.f);
        xml_esc(o.f, line);
        fputs(" (", o.f);
        xml_esc(o.f, c->detail);
        fputs(")</system-out></testcase>\n", o.f);
    }
    if (res->host_note[0]) {
        fputs("  <system-out>", o.f);
        xml_esc(o.f, res->host_note);
        fputs("</system-out>\n", o.f);
    }
    fputs("</testsuite>\n</testsuites>\n", o.f);
    return gs_out_close(&o, 1, err);
}

/* ,"key":value of gate.json. */
static void put_str(FILE *f, const char *key, const char *v)
{
    fprintf(f, ",\"%s\":", key);
    gs_json_str(f, v);
}
static void put_num(FILE *f, const char *key, double v)
{
    fprintf(f, ",\"%s\":", key);
    gs_json_num(f, v);
}

gs_status gs_gate_write_json(const gs_gate_result *res, const char *path, gs_err *err)
{
    gs_outfile o;
    gs_status st = gs_out_open(&o, path, err);
    if (st != GS_OK)
        return st;
    fprintf(o.f, "{\"schema\":\"gapscope.gate/1\",\"mode\":\"%s\",\"pass\":%s,\"checks\":[",
            res->mode, res->pass ? "true" : "false");
    for (size_t i = 0; i < res->n; i++) {
        const gs_gate_check *c = &res->checks[i];
        fputs(i ? ",\n{\"name\":" : "\n{\"name\":", o.f);
        gs_json_str(o.f, c->name);
        put_str(o.f, "op", c->op);
        put_num(o.f, "value", c->value);
        put_num(o.f, "limit", c->limit);
        put_str(o.f, "unit", c->unit);
        fprintf(o.f, ",\"pass\":%s", c->pass ? "true" : "false");
        put_str(o.f, "detail", c->detail);
        fputc('}', o.f);
    }
    fputc(']', o.f);
    if (!strcmp(res->mode, "paired")) {
        fprintf(o.f, ",\n\"host_speed\":{\"compared\":%s", res->host_probe ? "true" : "false");
        if (res->host_probe) {
            const struct { const char *key; double v; } nums[] = {
                { "base_msteps", res->host_base }, { "head_msteps", res->host_head },
                { "head_over_base", res->host_ratio }, { "p", res->host_p } };
            for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) put_num(o.f, nums[i].key, nums[i].v);
            fprintf(o.f, ",\"differs\":%s", res->host_differs ? "true" : "false");
        }
        put_str(o.f, "note", res->host_note);
        fputc('}', o.f);
    }
    fputs("}\n", o.f);
    return gs_out_close(&o, 1, err);
}
