/* report.md + report.html of a run (report.h). */
#define _POSIX_C_SOURCE 200809L
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/paths.h"
#include "doc.h"
#include "report_fleet.h"
#include "report_int.h"

void gs_report_opts_defaults(gs_report_opts *o)
{
    o->top_gaps = 10;
    o->spans_per_gap = 14;
    o->charts_note = NULL;
}

#define F(buf, ...) (snprintf(buf, sizeof buf, __VA_ARGS__), buf)

static void summary_section(gs_doc *d, const gs_run *r)
{
    const gs_analysis *a = r->an;
    static const char *const h[] = {"device", "name", "util", "util_kernels_only", "span_s",
                                    "busy_s", "kernel_busy_s", "copy_busy_s", "idle_s", "gaps",
                                    "p50_ms", "p90_ms", "p99_ms", "max_ms", "micro / macro"};
    gs_doc_h(d, 2, "Summary");
    const char *clock = gs_timeline_meta_get(r->tl, "run.clock");
    if (clock && !strcmp(clock, "replayed")) {
        /* A what-if (gapscope predict --what-if): the capture's graph replayed. */
        const char *cap = gs_timeline_meta_get(r->tl, "whatif.capture");
        const char *ed = gs_timeline_meta_get(r->tl, "whatif.edits");
        const char *lo = gs_timeline_meta_get(r->tl, "prediction.util_lo"),
                   *hi = gs_timeline_meta_get(r->tl, "prediction.util_hi");
        gs_doc_pf(d, "Predicted, not measured: the dependency graph of the capture %s replayed with the "
                     "edits %s (model/MODEL.md, \"What-ifs on foreign timelines\"); interval [%.1f%%, %.1f%%] "
                     "from the unedited replay's error.",
                  cap ? cap : "?", ed ? ed : "?", lo ? 100 * atof(lo) : 0, hi ? 100 * atof(hi) : 0);
    }
    if (clock && !strcmp(clock, "virtual")) {
        /* A prediction (gapscope predict, backend = model): say what from. */
        const char *cap = gs_timeline_meta_get(r->tl, "model.capture");
        const char *rev = gs_timeline_meta_get(r->tl, "model.build.git_rev");
        const char *cpu = gs_timeline_meta_get(r->tl, "model.host.cpu");
        const char *cores = gs_timeline_meta_get(r->tl, "model.cores");
        const char *dem = gs_timeline_meta_get(r->tl, "model.cpu_demand");
        gs_doc_pf(d, "Predicted, not measured: the engine ran on a model fitted from the capture %s "
                     "(build %s, host %s, %s cores, CPU demand %s) on a virtual clock; every span is "
                     "modelled. What the model assumed is under model.assumed in the settings below.",
                  cap ? cap : "?", rev ? rev : "unknown", cpu ? cpu : "unknown", cores ? cores : "?",
                  dem ? dem : "?");
        const char *u = gs_timeline_meta_get(r->tl, "prediction.util"),
                   *lo = gs_timeline_meta_get(r->tl, "prediction.util_lo"),
                   *hi = gs_timeline_meta_get(r->tl, "prediction.util_hi"),
                   *nc = gs_timeline_meta_get(r->tl, "prediction.captures");
        if (u && lo && hi)
            gs_doc_pf(d, "Predicted GPU util %.1f%%, interval [%.1f%%, %.1f%%] (about 90%%: %s capture(s) of the "
                         "setting, replicates drawn from the capture, the reproduction residual; "
                         "model/MODEL.md, \"Uncertainty\"). A gate on this run checks the interval's low end.",
                      100 * atof(u), 100 * atof(lo), 100 * atof(hi), nc ? nc : "1");
        const char *ch = gs_timeline_meta_get(r->tl, "prediction.change");
        if (ch && ch[0])   /* what the --set changes did on the capture's own model */
            gs_doc_pf(d, "The change: %s.", ch);
        const char *mv = gs_timeline_meta_get(r->tl, "prediction.profile_moved");
        if (mv && mv[0])   /* the host's speed in the capture against the machine profile's */
            gs_doc_pf(d, "Host speed against the machine profile: %s.", mv);
    }
    gs_doc_table(d, 15, h);
    for (size_t i = 0; i < a->n_dev; i++) {
        const gs_device_analysis *v = &a->dev[i];
        char c[15][64];
        const char *cells[15];
        F(c[0], "%d", (int)v->device);
        c[1][0] = '\0';
        F(c[2], "%.2f%%", 100 * v->util);
        F(c[3], "%.2f%%", 100 * v->util_kernels_only);
        F(c[4], "%.3f", v->span_s);
        F(c[5], "%.3f", v->busy_s);
        F(c[6], "%.3f", v->kernel_s);
        F(c[7], "%.3f", v->copy_s);
        F(c[8], "%.3f", v->idle_s);
        F(c[9], "%zu", v->gap_stats.count);
        F(c[10], "%.3f", v->gap_stats.p50_ms);
        F(c[11], "%.3f", v->gap_stats.p90_ms);
        F(c[12], "%.3f", v->gap_stats.p99_ms);
        F(c[13], "%.3f", v->gap_stats.max_ms);
        F(c[14], "%zu (%.3f s) / %zu (%.3f s)", v->gap_stats.micro_count,
          v->gap_stats.micro_total_s, v->gap_stats.macro_count, v->gap_stats.macro_total_s);
        for (int k = 0; k < 15; k++)
            cells[k] = c[k];
        cells[1] = v->name[0] ? v->name : "-";
        gs_doc_row(d, cells);
    }
    gs_doc_table_end(d);
    gs_doc_h(d, 3, "Metric definitions");
    gs_doc_list_item(d, "span_s: from the start of the device's first operation (kernel or copy) "
                        "to the end of its last one.");
    gs_doc_list_item(d, "busy_s: length of the union of all kernel and copy spans over all "
                        "streams of the device (overlaps counted once).");
    gs_doc_list_item(d, "util = busy_s / span_s (kernels or copies busy / span).  "
                        "util_kernels_only = |union of kernel spans| / span_s.  Not the "
                        "coarse any-kernel sampling of nvidia-smi.");
    gs_doc_list_item(d, "Idle gaps: the maximal intervals inside the span covered by no device "
                        "operation; they sum to span_s - busy_s.  Percentiles are nearest-rank.");
    char buf[256];
    gs_doc_list_item(d, F(buf, "micro / macro: gaps shorter / not shorter than %.3f ms.",
                          a->cfg.micro_threshold_s * 1e3));
    gs_doc_list_item(d, "Causes: each instant of a gap is attributed from the state of the "
                        "device's GPU workers (the worker closest to launching device work "
                        "decides; a tracker-lock wait is split by what the lock holder is "
                        "doing); see diag/README.md.");
    int launcher = 0;
    for (size_t i = 0; i < a->n_dev; i++)
        launcher |= a->dev[i].rule == GS_RULE_LAUNCHER;
    if (launcher)
        gs_doc_list_item(d, "Devices without GPU worker lanes (a timeline of another program: "
                            "attach, import) are attributed by the launcher rule instead: the "
                            "state of the thread that launched the operation ending each gap; "
                            "see diag/README.md, \"Attribution of foreign timelines\".");
    gs_report_wake_note(d, r);
    gs_doc_list_end(d);
}

/* Idle time by cause in both views, side by side, as production teams read
 * them: the GPU idle (no kernel and no copy: util) and the kernels idle
 * (no kernel: util_kernels_only, where a pageable copy filling the gap is
 * h2d_pageable).  Rows by idle in the first view, then in the second. */
static void causes_section(gs_doc *d, const gs_run *r)
{
    const gs_analysis *a = r->an;
    static const char *const h[] = {"cause", "GPU idle s (no kernel, no copy)", "share",
                                    "kernels idle s (no kernel)", "share", "meaning"};
    gs_doc_h(d, 2, "Idle time by cause");
    if (a->idle_s <= 0 && a->kidle_s <= 0) {
        gs_doc_p(d, NULL, "No idle time inside the device span.");
        return;
    }
    gs_doc_pf(d, "Two views of the same span: the GPU idle (neither kernels nor copies: util "
                 "%.1f%%) and the kernels idle (util_kernels_only %.1f%%; copies running alone "
                 "count as idle, a pageable host-to-device copy as h2d_pageable, the rest as an "
                 "idle gap would).  Top cause: %s (%.0f%%) and %s (%.0f%%).",
              a->span_s > 0 ? 100 * a->busy_s / a->span_s : 0.0,
              a->span_s > 0 ? 100 * a->kernel_s / a->span_s : 0.0,
              a->idle_s > 0 ? gs_cause_name(a->verdict) : "none", 100 * a->verdict_share,
              a->kidle_s > 0 ? gs_cause_name(a->kverdict) : "none", 100 * a->kverdict_share);
    gs_doc_table(d, 6, h);
    int used[GS_CAUSE_COUNT] = {0};
    for (;;) {
        int best = -1;
        for (int c = 0; c < GS_CAUSE_COUNT; c++) {
            if (used[c] || !(a->cause_s[c] > 0 || a->kcause_s[c] > 0))
                continue;
            if (best < 0 || a->cause_s[c] > a->cause_s[best] ||
                (a->cause_s[c] == a->cause_s[best] && a->kcause_s[c] > a->kcause_s[best]))
                best = c;
        }
        if (best < 0)
            break;
        used[best] = 1;
        char s1[32], s2[32], s3[32], s4[32];
        const char *cells[6] = {
            gs_cause_name((gs_cause)best), F(s1, "%.4f", a->cause_s[best]),
            F(s2, "%.1f%%", a->idle_s > 0 ? 100 * a->cause_s[best] / a->idle_s : 0.0),
            F(s3, "%.4f", a->kcause_s[best]),
            F(s4, "%.1f%%", a->kidle_s > 0 ? 100 * a->kcause_s[best] / a->kidle_s : 0.0),
            gs_cause_description((gs_cause)best)};
        gs_doc_row(d, cells);
    }
    gs_doc_table_end(d);
    if (a->idle_during_trim_s > 0)
        gs_doc_pf(d, "%.3f s of the idle time (%.1f%%) overlaps a malloc_trim(0) running on some "
                     "thread, whatever the cause above.  glibc's malloc_trim holds the malloc arena "
                     "locks while it trims, so allocations on other threads (hand-off, staging, "
                     "synthesis) wait for it even when it runs outside the tracker lock.",
                  a->idle_during_trim_s, 100 * a->idle_during_trim_s / a->idle_s);
    char spin[1024];
    if (gs_analysis_spin_note(spin, sizeof spin, a))
        gs_doc_p(d, NULL, spin);
}

static void jobs_section(gs_doc *d, const gs_run *r)
{
    const gs_job_stats *j = &r->jobs;
    gs_doc_h(d, 2, "Jobs");
    if (j->submitted < 0) {
        gs_doc_p(d, NULL, "No job results (no jobs.csv and no submit marks in the timeline).");
        return;
    }
    gs_doc_pf(d, "Source: %s.  Submitted %ld, completed %ld, failed %ld, verified %ld, "
                 "never finished %ld.", j->source, j->submitted, j->completed, j->failed,
              j->verified, j->pending);
    if (!j->n_kinds)
        return;
    static const char *const h[] = {"kind", "completed", "mean_s", "p50_s", "p90_s", "p99_s",
                                    "max_s"};
    gs_doc_table(d, 7, h);
    for (size_t k = 0; k < j->n_kinds; k++) {
        const gs_kind_latency *L = &j->kinds[k];
        char c[7][32];
        const char *cells[7] = {L->kind, F(c[1], "%zu", L->count), F(c[2], "%.3f", L->mean_s),
                                F(c[3], "%.3f", L->p50_s), F(c[4], "%.3f", L->p90_s),
                                F(c[5], "%.3f", L->p99_s), F(c[6], "%.3f", L->max_s)};
        gs_doc_row(d, cells);
    }
    gs_doc_table_end(d);
    gs_doc_p(d, NULL, "Latency = completion time - intended arrival (submission time when the "
                      "intended arrival is unknown), completed jobs only.");
}

static void charts_section(gs_doc *d, const gs_run *r, const gs_report_opts *o)
{
    static const char *const names[][2] = {
        {"timeline", "Timeline: device streams, tracker lock, GPU workers, finalizers, "
                     "synthesis threads; idle gaps shaded by cause"},
        {"timeline_zoom", "Timeline around the longest idle gap"},
        {"util", "Utilization over time (bins; kernels-or-copies busy / bin, kernels only dashed)"},
        {"gap_cdf", "Idle gap length CDF"},
        {"causes", "GPU idle seconds by cause"},
    };
    gs_doc_h(d, 2, "Charts");
    if (o->charts_note) {
        gs_doc_p(d, NULL, o->charts_note);
        return;
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char abs[2300], rel[128];
        snprintf(rel, sizeof rel, "charts/%s.png", names[i][0]);
        gs_path_join(abs, sizeof abs, r->dir, rel);
        gs_doc_img(d, abs, rel, names[i][1]);
    }
    gs_doc_p(d, NULL, "SVG versions are next to the PNGs in charts/; the templates are "
                      "plots/*.gp and the data they draw is in data/ (columns in report/README.md).");
}

typedef struct {
    size_t dev, gap;
    int64_t len;
} gap_ref;

static int cmp_gap(const void *pa, const void *pb)
{
    const gap_ref *a = pa, *b = pb;
    return (a->len < b->len) - (a->len > b->len);
}

static int64_t overlap(int64_t a0, int64_t a1, int64_t b0, int64_t b1)
{
    int64_t s = a0 > b0 ? a0 : b0, e = a1 < b1 ? a1 : b1;
    return e > s ? e - s : 0;
}

static void gap_detail(gs_doc *d, const gs_run *r, const gs_device_analysis *v, const gs_gap *g,
                       int rank, const gs_report_opts *o)
{
    const gs_analysis *a = r->an;
    char buf[512];
    double len_ms = (double)(g->end_ns - g->start_ns) * 1e-6;
    gs_doc_h(d, 3, F(buf, "#%d: device %d, %.3f ms at t = %.6f s", rank, (int)v->device, len_ms,
                     (double)(g->start_ns - a->t0_ns) * 1e-9));
    double per[GS_CAUSE_COUNT] = {0};
    for (size_t k = g->first_piece; k < g->first_piece + g->n_pieces; k++)
        per[v->pieces[k].cause] += (double)(v->pieces[k].end_ns - v->pieces[k].start_ns) * 1e-6;
    char causes[1024] = "";
    for (int c = 0; c < GS_CAUSE_COUNT; c++)
        if (per[c] > 0) {
            size_t l = strlen(causes);
            snprintf(causes + l, sizeof causes - l, "%s%s %.3f ms (%.0f%%)", l ? ", " : "",
                     gs_cause_name((gs_cause)c), per[c], 100 * per[c] / len_ms);
        }
    gs_doc_pf(d, "Causes: %s.  Pieces: %zu.", causes, g->n_pieces);
    gs_report_gap_chain(d, r, v, g);
    /* Host spans of this device's workers, finalizers and background lanes that
     * overlap the gap: the longest overlaps, shown in time order. */
    size_t n;
    const gs_span *sp = gs_timeline_spans(r->tl, &n);
    size_t cap = (size_t)o->spans_per_gap, m = 0;
    const gs_span **pick = calloc(cap + 1, sizeof *pick);
    if (!pick)
        return;
    for (size_t i = 0; i < n && sp[i].start_ns < g->end_ns; i++) {
        const gs_lane_info *L = gs_timeline_lane(r->tl, sp[i].lane);
        int host = L->role == GS_ROLE_GPU_WORKER || L->role == GS_ROLE_FINALIZER ||
                   L->role == GS_ROLE_BACKGROUND || L->role == GS_ROLE_THREAD;
        if (!host || (L->device >= 0 && L->device != v->device) || sp[i].kind == GS_SPAN_COUNTER ||
            sp[i].kind == GS_SPAN_MARK)
            continue;
        int64_t ov = overlap(sp[i].start_ns, sp[i].end_ns, g->start_ns, g->end_ns);
        if (!ov)
            continue;
        if (m < cap) {
            pick[m++] = &sp[i];
            continue;
        }
        size_t worst = 0;
        for (size_t k = 1; k < m; k++)
            if (overlap(pick[k]->start_ns, pick[k]->end_ns, g->start_ns, g->end_ns) <
                overlap(pick[worst]->start_ns, pick[worst]->end_ns, g->start_ns, g->end_ns))
                worst = k;
        if (overlap(pick[worst]->start_ns, pick[worst]->end_ns, g->start_ns, g->end_ns) < ov) {
            memmove(&pick[worst], &pick[worst + 1], (m - worst - 1) * sizeof *pick);
            pick[m - 1] = &sp[i];
        }
    }
    static const char *const h[] = {"lane", "span", "job/part", "start_ms", "end_ms",
                                    "in gap ms", "args"};
    gs_doc_table(d, 7, h);
    for (size_t k = 0; k < m; k++) {
        const gs_span *s = pick[k];
        char c[7][160];
        const char *cells[7] = {
            gs_timeline_lane(r->tl, s->lane)->name,
            F(c[1], "%s %s", gs_span_kind_name((gs_span_kind)s->kind), s->name),
            F(c[2], "%d/%d", (int)s->job, (int)s->part),
            F(c[3], "%+.3f", (double)(s->start_ns - g->start_ns) * 1e-6),
            F(c[4], "%+.3f", (double)(s->end_ns - g->start_ns) * 1e-6),
            F(c[5], "%.3f", (double)overlap(s->start_ns, s->end_ns, g->start_ns, g->end_ns) * 1e-6),
            s->args};
        gs_doc_row(d, cells);
    }
    gs_doc_table_end(d);
    if (!m)
        gs_doc_p(d, NULL, "No host span of this device's workers or finalizers overlaps it.");
    free(pick);
}

static void gaps_section(gs_doc *d, const gs_run *r, const gs_report_opts *o)
{
    const gs_analysis *a = r->an;
    size_t total = 0;
    for (size_t i = 0; i < a->n_dev; i++)
        total += a->dev[i].n_gaps;
    gs_doc_h(d, 2, "Top gaps");
    if (!total) {
        gs_doc_p(d, NULL, "No idle gaps.");
        return;
    }
    gap_ref *v = malloc(total * sizeof *v);
    if (!v)
        return;
    size_t k = 0;
    for (size_t i = 0; i < a->n_dev; i++)
        for (size_t g = 0; g < a->dev[i].n_gaps; g++)
            v[k++] = (gap_ref){i, g, a->dev[i].gaps[g].end_ns - a->dev[i].gaps[g].start_ns};
    qsort(v, total, sizeof *v, cmp_gap);
    gs_doc_pf(d, "The %d longest of %zu gaps.  Times in ms relative to the gap's start; "
                 "t is seconds since the first span of the timeline.",
              (int)(total < (size_t)o->top_gaps ? total : (size_t)o->top_gaps), total);
    for (size_t i = 0; i < total && i < (size_t)o->top_gaps; i++)
        gap_detail(d, r, &a->dev[v[i].dev], &a->dev[v[i].dev].gaps[v[i].gap], (int)i + 1, o);
    free(v);
}

static void env_section(gs_doc *d, const gs_run *r)
{
    static const char *const keys[] = {"gapscope.version", "build.git_rev", "build.binary_sha256",
                                       "backend", "backend.description", "host.cpu",
                                       "host.threads", "scenario.path", "scenario.description",
                                       "scenario.seed"};
    static const char *const h[] = {"key", "value"};
    gs_doc_h(d, 2, "Scenario and environment");
    gs_doc_table(d, 2, h);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const char *v = gs_timeline_meta_get(r->tl, keys[i]);
        const char *cells[2] = {keys[i], v ? v : "(not recorded)"};
        gs_doc_row(d, cells);
    }
    /* Where the run recorded them: the host-speed probe before and after
     * (common/hostprobe.h; a paired gate compares hosts by it) and the
     * process's peak memory. */
    static const char *const opt[] = {"host.probe.threads", "host.probe.before_msteps", "host.probe.after_msteps",
                                      "run.peak_rss_kib"};
    for (size_t i = 0; i < sizeof opt / sizeof opt[0]; i++) {
        const char *v = gs_timeline_meta_get(r->tl, opt[i]);
        const char *cells[2] = {opt[i], v};
        if (v)
            gs_doc_row(d, cells);
    }
    for (size_t i = 0; i < gs_timeline_meta_count(r->tl); i++) {
        const char *k, *v;
        gs_timeline_meta_at(r->tl, i, &k, &v);
        if (!strncmp(k, "device.", 7)) {
            const char *cells[2] = {k, v};
            gs_doc_row(d, cells);
        }
    }
    gs_doc_table_end(d);
    gs_doc_h(d, 3, "All recorded settings");
    gs_doc_table(d, 2, h);
    for (size_t i = 0; i < gs_timeline_meta_count(r->tl); i++) {
        const char *cells[2];
        gs_timeline_meta_at(r->tl, i, &cells[0], &cells[1]);
        gs_doc_row(d, cells);
    }
    gs_doc_table_end(d);
}

gs_status gs_report_write(const gs_run *r, const gs_report_opts *o, gs_err *err)
{
    gs_report_opts def;
    if (!o) {
        gs_report_opts_defaults(&def);
        o = &def;
    }
    char md[2300], html[2300], title[2300], v[1024];
    gs_path_join(md, sizeof md, r->dir, "report.md");
    gs_path_join(html, sizeof html, r->dir, "report.html");
    const char *label = strrchr(r->dir, '/');
    snprintf(title, sizeof title, "gapscope report: %s", label && label[1] ? label + 1 : r->dir);
    gs_doc d;
    gs_status st = gs_doc_open(&d, md, html, title, err);
    if (st != GS_OK)
        return st;
    gs_analysis_verdict(v, sizeof v, r->an);
    gs_doc_p(&d, "Verdict:", v);
    /* A run stopped by SIGINT/SIGTERM (scenarios/interrupt.c): say so first. */
    const char *intr = gs_timeline_meta_get(r->tl, "run.interrupted");
    if (intr && *intr) {
        char note[256];
        snprintf(note, sizeof note, "the run was stopped by %.32s; the figures cover it up to the stop, "
                                    "its queued jobs were cancelled and jobs.csv marks them.", intr);
        gs_doc_p(&d, "Interrupted:", note);
    }
    summary_section(&d, r);
    causes_section(&d, r);
    gs_report_wake_sections(&d, r);
    gs_report_fleet(&d, r);
    jobs_section(&d, r);
    charts_section(&d, r, o);
    gaps_section(&d, r, o);
    gs_doc_h(&d, 2, "Injected delays");
    gs_doc_pf(&d, "%zu injected spans, %.3f s in total (labelled inj:<point> in the timeline; "
                  "their idle effect shows under the causes above).",
              r->an->injected_spans, r->an->injected_s);
    if (r->an->dropped_spans)
        gs_doc_pf(&d, "Warning: %llu spans were dropped during capture (out of memory); "
                      "figures may be incomplete.", (unsigned long long)r->an->dropped_spans);
    env_section(&d, r);
    gs_doc_h(&d, 2, "Open the timeline in Perfetto");
    gs_doc_list_item(&d, "Go to https://ui.perfetto.dev (or chrome://tracing) in Chrome or Firefox.");
    char tf[2300], item[400];
    int proto = gs_path_join(tf, sizeof tf, r->dir, GS_TRACE_PERFETTO_FILE) && access(tf, F_OK) == 0;
    snprintf(item, sizeof item, "Choose \"Open trace file\" and pick %s from this run directory; "
                                "the file is processed in the browser and not uploaded.",
             proto ? GS_TRACE_PERFETTO_FILE : GS_TRACE_CHROME_FILE);
    gs_doc_list_item(&d, item);
    gs_doc_list_item(&d, "Process \"host\" holds one track per thread (GPU workers, finalizers, "
                         "synthesis); \"GPU n\" one track per device stream.  Arrows (flows) join "
                         "each prove_start to its device work.  Press W/S to zoom, A/D to pan.");
    gs_doc_list_end(&d);
    /* Paths in what a run directory holds are relative (traces/README.md):
     * the timeline to this directory; the directory to where the command
     * ran when it lies below it, else by its name from the folder holding
     * it (a path climbing out would spell the machine's folders). */
    char spans_rel[4096], dir_rel[4096];
    gs_path_rel(spans_rel, sizeof spans_rel, r->spans, r->dir);
    gs_path_rel(dir_rel, sizeof dir_rel, r->dir, ".");
    int below = dir_rel[0] != '/' && strncmp(dir_rel, "..", 2) != 0;
    gs_doc_pf(&d, "Source timeline: %s in this run directory.  Re-render with `gapscope report %s`%s "
                  "(no re-run needed).",
              spans_rel, below ? dir_rel : label && label[1] ? label + 1 : r->dir,
              below ? "" : " from the folder that holds this run directory");
    return gs_doc_close(&d, 1, err);
}
