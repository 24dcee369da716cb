/* summary.json (schema "gapscope.summary/1", documented in diag/README.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/json.h"
#include "../common/outfile.h"
#include "../common/paths.h"
#include "run.h"

static void key(FILE *f, int *first, const char *k)
{
    fputs(*first ? "" : ",", f);
    *first = 0;
    gs_json_str(f, k);
    fputc(':', f);
}

static void num(FILE *f, int *first, const char *k, double v)
{
    key(f, first, k);
    gs_json_num(f, v);
}

static void count(FILE *f, int *first, const char *k, long v)
{
    key(f, first, k);
    if (v < 0)
        fputs("null", f);
    else
        fprintf(f, "%ld", v);
}

/* The keys mean, p50, p90, p99 and max, each ending in _<unit>, of v in
 * that order. */
static void spread(FILE *f, int *first, const char *unit, const double v[5])
{
    static const char *const names[5] = {"mean", "p50", "p90", "p99", "max"};
    for (int i = 0; i < 5; i++) {
        char k[16];
        snprintf(k, sizeof k, "%s_%s", names[i], unit);
        num(f, first, k, v[i]);
    }
}

static void gap_stats(FILE *f, const gs_gap_stats *g)
{
    int first = 1;
    fputc('{', f);
    count(f, &first, "count", (long)g->count);
    num(f, &first, "total_s", g->total_s);
    spread(f, &first, "ms",
           (const double[5]){g->mean_ms, g->p50_ms, g->p90_ms, g->p99_ms, g->max_ms});
    fprintf(f, ",\"micro\":{\"count\":%zu,\"total_s\":", g->micro_count);
    gs_json_num(f, g->micro_total_s);
    fprintf(f, "},\"macro\":{\"count\":%zu,\"total_s\":", g->macro_count);
    gs_json_num(f, g->macro_total_s);
    fputs("}}", f);
}

/* Causes with idle > 0, sorted by idle descending (ties: table order). */
static void causes(FILE *f, const double *cause_s, double idle_s)
{
    int order[GS_CAUSE_COUNT], n = 0;
    for (int c = 0; c < GS_CAUSE_COUNT; c++)
        if (cause_s[c] > 0)
            order[n++] = c;
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && cause_s[order[j]] > cause_s[order[j - 1]]; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    fputc('[', f);
    for (int i = 0; i < n; i++) {
        fprintf(f, "%s{\"cause\":", i ? "," : "");
        gs_json_str(f, gs_cause_name((gs_cause)order[i]));
        fputs(",\"family\":", f);
        gs_json_str(f, gs_cause_family((gs_cause)order[i]));
        fputs(",\"idle_s\":", f);
        gs_json_num(f, cause_s[order[i]]);
        fputs(",\"share\":", f);
        gs_json_num(f, idle_s > 0 ? cause_s[order[i]] / idle_s : 0);
        fputc('}', f);
    }
    fputc(']', f);
}

/* Families with idle > 0 (gs_cause_family), sorted by idle descending;
 * returns the top family ("" when there is no idle time). */
static const char *families(FILE *f, const double *cause_s, double idle_s)
{
    const char *name[GS_CAUSE_COUNT];
    double t[GS_CAUSE_COUNT];
    int n = 0;
    for (int c = 0; c < GS_CAUSE_COUNT; c++) {
        if (!(cause_s[c] > 0))
            continue;
        const char *fam = gs_cause_family((gs_cause)c);
        int k = 0;
        while (k < n && strcmp(name[k], fam))
            k++;
        if (k == n) {
            name[n] = fam;
            t[n++] = 0;
        }
        t[k] += cause_s[c];
    }
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && t[j] > t[j - 1]; j--) {
            double x = t[j];
            const char *y = name[j];
            t[j] = t[j - 1];
            name[j] = name[j - 1];
            t[j - 1] = x;
            name[j - 1] = y;
        }
    fputc('[', f);
    for (int i = 0; i < n; i++) {
        fprintf(f, "%s{\"family\":", i ? "," : "");
        gs_json_str(f, name[i]);
        fputs(",\"idle_s\":", f);
        gs_json_num(f, t[i]);
        fputs(",\"share\":", f);
        gs_json_num(f, idle_s > 0 ? t[i] / idle_s : 0);
        fputc('}', f);
    }
    fputc(']', f);
    return n ? name[0] : "";
}

static void json_name_or_null(FILE *f, const char *s)
{
    if (s)
        gs_json_str(f, s);
    else
        fputs("null", f);
}

/* The kernel-level view (kernels busy / span; its gaps attributed, pageable
 * copies as h2d_pageable), beside the kernels-or-copies one. */
static void kernel_view(FILE *f, const gs_analysis *a)
{
    fputs(",\n\"kernel_view\":{\"util_kernels_only\":", f);
    gs_json_num(f, a->span_s > 0 ? a->kernel_s / a->span_s : 0);
    fputs(",\"idle_s\":", f);
    gs_json_num(f, a->kidle_s);
    fputs(",\"causes\":", f);
    causes(f, a->kcause_s, a->kidle_s);
    fputs(",\"families\":", f);
    const char *top_family = families(f, a->kcause_s, a->kidle_s);
    int idle = a->kidle_s > 0;
    fputs(",\"verdict\":{\"cause\":", f);
    json_name_or_null(f, idle ? gs_cause_name(a->kverdict) : NULL);
    fputs(",\"family\":", f);
    json_name_or_null(f, idle ? gs_cause_family(a->kverdict) : NULL);
    fputs(",\"top_family\":", f);
    json_name_or_null(f, top_family[0] ? top_family : NULL);
    fputs(",\"share\":", f);
    gs_json_num(f, a->kverdict_share);
    fputs(",\"idle_s\":", f);
    gs_json_num(f, idle ? a->kcause_s[a->kverdict] : 0);
    fputs("}}", f);
}

/* (cause, detail) pairs of the launcher rule, by idle descending, at most 20. */
static void cause_details(FILE *f, const gs_analysis *a)
{
    size_t n = a->n_details, *ord = malloc((n + 1) * sizeof *ord);
    fputc('[', f);
    if (!ord) {
        fputc(']', f);
        return;
    }
    for (size_t i = 0; i < n; i++)
        ord[i] = i;
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && a->details[ord[j]].idle_s > a->details[ord[j - 1]].idle_s; j--) {
            size_t x = ord[j];
            ord[j] = ord[j - 1];
            ord[j - 1] = x;
        }
    for (size_t i = 0; i < n && i < 20; i++) {
        const gs_cause_detail *d = &a->details[ord[i]];
        fprintf(f, "%s{\"cause\":", i ? "," : "");
        gs_json_str(f, gs_cause_name(d->cause));
        fputs(",\"detail\":", f);
        gs_json_str(f, d->detail);
        fputs(",\"idle_s\":", f);
        gs_json_num(f, d->idle_s);
        fputc('}', f);
    }
    fputc(']', f);
    free(ord);
}

static void str_or_null(FILE *f, int *first, const char *k, const char *v)
{
    key(f, first, k);
    if (v && *v)
        gs_json_str(f, v);
    else
        fputs("null", f);
}

static long meta_long(const gs_timeline *tl, const char *k)
{
    const char *v = gs_timeline_meta_get(tl, k);
    return v && *v ? atol(v) : -1;
}

/* How wake-up edges were found (attach), and the user stacks at the top causes. */
static void wake_and_stacks(FILE *f, const gs_run *r)
{
    const gs_analysis *a = r->an;
    int first = 1;
    fputs(",\n\"wake_edges\":{", f);
    str_or_null(f, &first, "mechanism", a->wake_mech);
    str_or_null(f, &first, "probe", gs_timeline_meta_get(r->tl, "attach.wake.probe"));
    count(f, &first, "waits", meta_long(r->tl, "attach.waits"));
    count(f, &first, "with_waker", meta_long(r->tl, "attach.waits_paired"));
    count(f, &first, "from_scheduler", meta_long(r->tl, "attach.wake_edges_sched"));
    count(f, &first, "memory_releases", meta_long(r->tl, "attach.mem_releases"));
    fputs("},\n\"stacks\":[", f);
    for (size_t i = 0; i < a->n_stacks; i++) {
        const gs_stack_stat *s = &a->stacks[i];
        int sf = 1;
        fputs(i ? ",{" : "{", f);
        str_or_null(f, &sf, "cause", gs_cause_name(s->cause));
        str_or_null(f, &sf, "family", gs_cause_family(s->cause));
        num(f, &sf, "idle_s", s->idle_s);
        str_or_null(f, &sf, "launcher_stack", s->launcher);
        str_or_null(f, &sf, "waker_stack", s->waker);
        fputc('}', f);
    }
    fputc(']', f);
}

gs_status gs_summary_write(const gs_run *r, const char *path, gs_err *err)
{
    const gs_analysis *a = r->an;
    gs_outfile o;
    gs_status st = gs_out_open(&o, path, err);
    if (st != GS_OK)
        return st;
    FILE *f = o.f;
    int first = 1;
    fputs("{\n", f);
    key(f, &first, "schema");
    gs_json_str(f, "gapscope.summary/1");
    /* The timeline relative to the summary's directory ("spans.csv" in a
     * run directory): never an absolute path of the writing machine. */
    char dir[4096], src[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    gs_path_rel(src, sizeof src, r->spans, slash ? (dir[0] ? dir : "/") : ".");
    fputs(",\n\"source\":", f);
    gs_json_str(f, src);
    fputs(",\n\"metric_definitions\":{"
          "\"span_s\":\"first device operation start to last device operation end, per device\","
          "\"busy_s\":\"length of the union of kernel and copy spans over all streams of the device\","
          "\"kernel_busy_s\":\"length of the union of kernel spans over all streams\","
          "\"copy_busy_s\":\"length of the union of copy spans over all streams\","
          "\"util\":\"busy_s / span_s (kernels or copies busy / span)\","
          "\"util_kernels_only\":\"kernel_busy_s / span_s (kernels busy / span)\","
          "\"gaps\":\"maximal intervals inside the span covered by no device operation; "
          "percentiles are nearest-rank\","
          "\"causes\":\"idle seconds attributed from the GPU workers' state (diag/README.md)\"}", f);
    fprintf(f, ",\n\"config\":{\"micro_threshold_ms\":");
    gs_json_num(f, a->cfg.micro_threshold_s * 1e3);
    fputs(",\"bin_s\":", f);
    gs_json_num(f, a->cfg.bin_s);
    fputs("},\n\"devices\":[", f);
    int merged = gs_timeline_meta_get(r->tl, "merge.processes") != NULL;
    for (size_t i = 0; i < a->n_dev; i++) {
        const gs_device_analysis *d = &a->dev[i];
        int df = 1;
        fputs(i ? ",\n{" : "\n{", f);
        count(f, &df, "device", d->device);
        if (merged)
            count(f, &df, "process", d->process);
        key(f, &df, "name");
        gs_json_str(f, d->name);
        count(f, &df, "ops", (long)d->n_ops);
        num(f, &df, "span_s", d->span_s);
        num(f, &df, "busy_s", d->busy_s);
        num(f, &df, "kernel_busy_s", d->kernel_s);
        num(f, &df, "copy_busy_s", d->copy_s);
        num(f, &df, "util", d->util);
        num(f, &df, "util_kernels_only", d->util_kernels_only);
        num(f, &df, "idle_s", d->idle_s);
        num(f, &df, "idle_during_malloc_trim_s", d->idle_during_trim_s);
        key(f, &df, "attribution");
        gs_json_str(f, d->rule == GS_RULE_LAUNCHER ? "launcher" : "engine");
        key(f, &df, "gaps");
        gap_stats(f, &d->gap_stats);
        key(f, &df, "causes");
        causes(f, d->cause_s, d->idle_s);
        fprintf(f, ",\"kernel_view\":{\"gaps\":%zu,\"idle_s\":", d->n_kgaps);
        gs_json_num(f, d->kidle_s);
        fputs(",\"causes\":", f);
        causes(f, d->kcause_s, d->kidle_s);
        fputs("}}", f);
    }
    fputs("],\n", f);
    first = 1;
    double kernel = 0;
    for (size_t i = 0; i < a->n_dev; i++)
        kernel += a->dev[i].kernel_s;
    num(f, &first, "util", a->span_s > 0 ? a->busy_s / a->span_s : 0);
    num(f, &first, "util_kernels_only", a->span_s > 0 ? kernel / a->span_s : 0);
    num(f, &first, "span_s", a->span_s);
    num(f, &first, "busy_s", a->busy_s);
    num(f, &first, "idle_s", a->idle_s);
    num(f, &first, "idle_during_malloc_trim_s", a->idle_during_trim_s);
    if (a->worker_call_s > 0) {
        fputs(",\"gpu_worker_calls\":{", f);
        int f2 = 1;
        num(f, &f2, "wall_s", a->worker_call_s);
        num(f, &f2, "cpu_s", a->worker_call_cpu_s);
        num(f, &f2, "spin", a->worker_call_cpu_s / a->worker_call_s);
        fputc('}', f);
    }
    fputs(",\n", f);
    first = 1;
    key(f, &first, "gaps");
    gap_stats(f, &a->gap_stats);
    fputs(",\n\"causes\":", f);
    causes(f, a->cause_s, a->idle_s);
    fputs(",\n\"families\":", f);
    const char *top_family = families(f, a->cause_s, a->idle_s);
    kernel_view(f, a);
    fputs(",\n\"cause_details\":", f);
    cause_details(f, a);
    wake_and_stacks(f, r);
    fputs(",\n\"jobs\":{\"source\":", f);
    gs_json_str(f, r->jobs.source);
    first = 0;
    count(f, &first, "submitted", r->jobs.submitted);
    count(f, &first, "completed", r->jobs.completed);
    count(f, &first, "failed", r->jobs.failed);
    count(f, &first, "verified", r->jobs.verified);
    count(f, &first, "pending", r->jobs.pending);
    fputs("},\n\"latency\":{", f);
    for (size_t k = 0; k < r->jobs.n_kinds; k++) {
        const gs_kind_latency *L = &r->jobs.kinds[k];
        int lf = 1;
        fputs(k ? "," : "", f);
        gs_json_str(f, L->kind);
        fputs(":{", f);
        count(f, &lf, "count", (long)L->count);
        spread(f, &lf, "s",
               (const double[5]){L->mean_s, L->p50_s, L->p90_s, L->p99_s, L->max_s});
        fputc('}', f);
    }
    fprintf(f, "},\n\"injected\":{\"spans\":%zu,\"total_s\":", a->injected_spans);
    gs_json_num(f, a->injected_s);
    fprintf(f, "},\n\"dropped_spans\":%llu,\n\"meta\":{", (unsigned long long)a->dropped_spans);
    for (size_t i = 0; i < gs_timeline_meta_count(r->tl); i++) {
        const char *k, *v;
        gs_timeline_meta_at(r->tl, i, &k, &v);
        fputs(i ? "," : "", f);
        gs_json_str(f, k);
        fputc(':', f);
        gs_json_str(f, v);
    }
    fputc('}', f);
    if (r->fleet) {
        fputs(",\n\"fleet\":", f);
        gs_fleet_write_json(f, r->fleet, r->tl, a->t0_ns);
    }
    char sentence[1024];
    gs_analysis_verdict(sentence, sizeof sentence, a);
    fputs(",\n\"verdict\":{\"cause\":", f);
    if (a->idle_s > 0)
        gs_json_str(f, gs_cause_name(a->verdict));
    else
        fputs("null", f);
    fputs(",\"family\":", f);
    if (a->idle_s > 0)
        gs_json_str(f, gs_cause_family(a->verdict));
    else
        fputs("null", f);
    fputs(",\"top_family\":", f);
    if (top_family[0])
        gs_json_str(f, top_family);
    else
        fputs("null", f);
    fputs(",\"share\":", f);
    gs_json_num(f, a->verdict_share);
    fputs(",\"idle_s\":", f);
    gs_json_num(f, a->idle_s > 0 ? a->cause_s[a->verdict] : 0);
    fputs(",\"sentence\":", f);
    gs_json_str(f, sentence);
    const gs_cause_detail *ch = a->idle_s > 0 ? gs_analysis_top_chain(a) : NULL;
    fputs(",\"chain\":", f);
    if (ch)
        gs_json_str(f, ch->detail);
    else
        fputs("null", f);
    fputs("}\n}\n", f);
    return gs_out_close(&o, 1, err);
}
