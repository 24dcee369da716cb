/*
 * gs_analyze: per-device busy unions, idle gaps, their statistics and
 * attribution (definitions in analysis.h and diag/README.md, "Metrics").
 */
#define _POSIX_C_SOURCE 200809L
#include "analysis.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attrib.h"

void gs_analysis_config_defaults(gs_analysis_config *cfg)
{
    cfg->micro_threshold_s = 0.001;
    cfg->bin_s = 0.2;
    cfg->progress = 0;
}

void gs_analysis_destroy(gs_analysis *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->n_dev; i++) {
        gs_device_analysis *d = &a->dev[i];
        free(d->busy);
        free(d->kernel);
        free(d->copy);
        free(d->gaps);
        free(d->pieces);
        free(d->kpieces);
    }
    free(a->dev);
    for (size_t i = 0; i < a->n_details; i++)
        free(a->details[i].detail);
    free(a->details);
    for (size_t i = 0; i < a->n_stacks; i++) {
        free(a->stacks[i].launcher);
        free(a->stacks[i].waker);
    }
    free(a->stacks);
    free(a);
}

double gs_analysis_cause_idle(const gs_analysis *a, const char *name)
{
    double t = 0;
    for (int c = 0; c < GS_CAUSE_COUNT; c++)
        if (gs_cause_matches((gs_cause)c, name))
            t += a->cause_s[c];
    return t;
}

static int cmp_i32(const void *pa, const void *pb)
{
    int32_t x = *(const int32_t *)pa, y = *(const int32_t *)pb;
    return (x > y) - (x < y);
}

/* Unions and gaps of one device. */
static int device_unions(gs_device_analysis *d, gs_timeline *tl, const gs_span *sp, size_t n)
{
    size_t nk = 0, nc = 0;
    for (size_t i = 0; i < n; i++) {
        const gs_lane_info *L = gs_timeline_lane(tl, sp[i].lane);
        if (L->role != GS_ROLE_DEVICE || L->device != d->device)
            continue;
        d->process = L->process;
        if (sp[i].kind == GS_SPAN_KERNEL)
            nk++;
        else if (sp[i].kind == GS_SPAN_COPY)
            nc++;
    }
    d->kernel = malloc((nk + 1) * sizeof *d->kernel);
    d->copy = malloc((nc + 1) * sizeof *d->copy);
    d->busy = malloc((nk + nc + 1) * sizeof *d->busy);
    if (!d->kernel || !d->copy || !d->busy)
        return 0;
    /* The span is taken over well-formed operations only (end >= start); a
     * device lane without one (a run stopped before its first kernel, a lane
     * of counters) has an empty span [0, 0] and no gaps. */
    int have_span = 0;
    d->span_start_ns = d->span_end_ns = 0;
    for (size_t i = 0; i < n; i++) {
        const gs_lane_info *L = gs_timeline_lane(tl, sp[i].lane);
        if (L->role != GS_ROLE_DEVICE || L->device != d->device ||
            (sp[i].kind != GS_SPAN_KERNEL && sp[i].kind != GS_SPAN_COPY))
            continue;
        gs_interval iv = {sp[i].start_ns, sp[i].end_ns};
        if (sp[i].kind == GS_SPAN_KERNEL)
            d->kernel[d->n_kernel++] = iv;
        else
            d->copy[d->n_copy++] = iv;
        d->busy[d->n_busy++] = iv;
        if (iv.end_ns < iv.start_ns)
            continue;
        if (!have_span || iv.start_ns < d->span_start_ns)
            d->span_start_ns = iv.start_ns;
        if (!have_span || iv.end_ns > d->span_end_ns)
            d->span_end_ns = iv.end_ns;
        have_span = 1;
    }
    d->n_ops = d->n_busy;
    if (!d->n_ops)   /* a device lane without operations: an empty span, not INT64_MIN - MAX */
        d->span_start_ns = d->span_end_ns = 0;
    d->n_kernel = gs_interval_union(d->kernel, d->n_kernel);
    d->n_copy = gs_interval_union(d->copy, d->n_copy);
    d->n_busy = gs_interval_union(d->busy, d->n_busy);
    d->span_s = (double)(d->span_end_ns - d->span_start_ns) * 1e-9;
    d->busy_s = (double)gs_interval_total(d->busy, d->n_busy) * 1e-9;
    d->kernel_s = (double)gs_interval_total(d->kernel, d->n_kernel) * 1e-9;
    d->copy_s = (double)gs_interval_total(d->copy, d->n_copy) * 1e-9;
    d->util = d->span_s > 0 ? d->busy_s / d->span_s : 0;
    d->util_kernels_only = d->span_s > 0 ? d->kernel_s / d->span_s : 0;
    /* Gaps: the complement of busy inside the span. */
    d->gaps = malloc((d->n_busy + 1) * sizeof *d->gaps);
    if (!d->gaps)
        return 0;
    int64_t cur = d->span_start_ns;
    for (size_t i = 0; i < d->n_busy; i++) {
        if (d->busy[i].start_ns > cur)
            d->gaps[d->n_gaps++] = (gs_gap){.start_ns = cur, .end_ns = d->busy[i].start_ns};
        if (d->busy[i].end_ns > cur)
            cur = d->busy[i].end_ns;
    }
    return 1;
}

static void progress(const gs_analysis_config *cfg, const char *what, size_t i, size_t n,
                     int *last)
{
    if (!cfg->progress || n < 2000)
        return;
    int pct = (int)(100.0 * (double)i / (double)n);
    if (pct / 10 != *last / 10 || i == n) {
        fprintf(stderr, "\ranalyze: %s %3d%%", what, pct);
        if (i == n)
            fputc('\n', stderr);
        *last = pct;
    }
}

static int attribute_device(gs_device_analysis *d, gs_attrib *at, const gs_analysis_config *cfg)
{
    size_t cap = 0;
    int last = -10;
    for (size_t g = 0; g < d->n_gaps; g++) {
        gs_gap *gp = &d->gaps[g];
        gp->first_piece = d->n_pieces;
        if (!gs_attrib_gap(at, d->device, gp->start_ns, gp->end_ns, &d->pieces, &d->n_pieces, &cap))
            return 0;
        gp->n_pieces = d->n_pieces - gp->first_piece;
        double per[GS_CAUSE_COUNT] = {0};
        for (size_t k = gp->first_piece; k < d->n_pieces; k++) {
            double len = (double)(d->pieces[k].end_ns - d->pieces[k].start_ns) * 1e-9;
            per[d->pieces[k].cause] += len;
            d->cause_s[d->pieces[k].cause] += len;
        }
        gp->cause = GS_CAUSE_OTHER;
        double best = -1;
        for (int c = 0; c < GS_CAUSE_COUNT; c++)
            if (per[c] > best) {
                best = per[c];
                gp->cause = (gs_cause)c;
            }
        progress(cfg, "attributing gaps", g + 1, d->n_gaps, &last);
    }
    return 1;
}

/* The kernel-level view of one device (analysis.h): each gap of the kernel
 * union inside the span is attributed as an idle gap (gs_attrib_gap: the
 * kernel ending it names the launcher), then cut where a pageable copy runs,
 * which takes h2d_pageable. */
static int kernel_view(gs_device_analysis *d, gs_attrib *at, gs_timeline *tl, const gs_span *sp,
                       size_t n)
{
    size_t np = 0, nt = 0, cap_t = 0, cap = 0;
    gs_gap_piece *tmp = NULL;
    gs_interval *pg = malloc((n + 1) * sizeof *pg);
    if (!pg)
        return 0;
    for (size_t i = 0; i < n; i++) {
        const gs_lane_info *L = gs_timeline_lane(tl, sp[i].lane);
        if (L->role == GS_ROLE_DEVICE && L->device == d->device && sp[i].kind == GS_SPAN_COPY &&
            strstr(sp[i].args, "pageable=1"))
            pg[np++] = (gs_interval){sp[i].start_ns, sp[i].end_ns};
    }
    np = gs_interval_union(pg, np);
    size_t j = 0;   /* first pageable copy ending after the current piece's start */
    int64_t cur = d->span_start_ns;
    for (size_t i = 0; i <= d->n_kernel; i++) {
        int64_t b = i < d->n_kernel ? d->kernel[i].start_ns : d->span_end_ns;
        if (b > cur) {
            d->n_kgaps++;
            d->kidle_s += (double)(b - cur) * 1e-9;
            nt = 0;
            if (!gs_attrib_gap(at, d->device, cur, b, &tmp, &nt, &cap_t))
                goto nomem;
            for (size_t k = 0; k < nt; k++) {
                gs_gap_piece p = tmp[k];
                while (j < np && pg[j].end_ns <= p.start_ns)
                    j++;
                for (size_t c = j; c < np && pg[c].start_ns < p.end_ns; c++) {
                    gs_gap_piece before = p, copy = p;
                    before.end_ns = pg[c].start_ns;
                    copy.start_ns = pg[c].start_ns > p.start_ns ? pg[c].start_ns : p.start_ns;
                    copy.end_ns = pg[c].end_ns < p.end_ns ? pg[c].end_ns : p.end_ns;
                    copy.cause = GS_CAUSE_H2D_PAGEABLE;
                    copy.worker = copy.holder = copy.detail = -1;
                    if (!gs_attrib_push_piece(&d->kpieces, &d->n_kpieces, &cap, before) ||
                        !gs_attrib_push_piece(&d->kpieces, &d->n_kpieces, &cap, copy))
                        goto nomem;
                    p.start_ns = copy.end_ns;
                }
                if (!gs_attrib_push_piece(&d->kpieces, &d->n_kpieces, &cap, p))
                    goto nomem;
            }
        }
        if (i < d->n_kernel && d->kernel[i].end_ns > cur)
            cur = d->kernel[i].end_ns;
    }
    for (size_t k = 0; k < d->n_kpieces; k++)
        d->kcause_s[d->kpieces[k].cause] +=
            (double)(d->kpieces[k].end_ns - d->kpieces[k].start_ns) * 1e-9;
    free(tmp);
    free(pg);
    return 1;
nomem:
    free(tmp);
    free(pg);
    return 0;
}

/* The cause with the most seconds and its share of total (GS_CAUSE_OTHER, 0
 * when nothing). */
static gs_cause top_cause(const double *cause_s, double total, double *share)
{
    gs_cause v = GS_CAUSE_OTHER;
    double best = 0;
    for (int c = 0; c < GS_CAUSE_COUNT; c++)
        if (cause_s[c] > best) {
            best = cause_s[c];
            v = (gs_cause)c;
        }
    *share = total > 0 ? best / total : 0;
    return v;
}

/* The malloc_trim spans (real or injected) of each process, as one union
 * per process; *first as gs_interval_union_groups gives it. */
static gs_interval *trim_unions(gs_timeline *tl, const gs_span *sp, size_t n, size_t **first)
{
    int32_t n_proc = 1;
    for (size_t l = 0; l < gs_timeline_lane_count(tl); l++)
        if (gs_timeline_lane(tl, (int32_t)l)->process >= n_proc)
            n_proc = gs_timeline_lane(tl, (int32_t)l)->process + 1;
    gs_interval *iv = malloc((n + 1) * sizeof *iv);
    int32_t *proc = malloc((n + 1) * sizeof *proc);
    size_t m = 0;
    if (iv && proc)
        for (size_t i = 0; i < n; i++)
            if ((sp[i].kind == GS_SPAN_STEP || sp[i].kind == GS_SPAN_INJECTED) &&
                (gs_vocab_is(sp[i].name, GS_V_MALLOC_TRIM) || !strcmp(sp[i].name, "inj:malloc_trim"))) {
                proc[m] = gs_timeline_lane(tl, sp[i].lane)->process;
                iv[m++] = (gs_interval){sp[i].start_ns, sp[i].end_ns};
            }
    *first = iv && proc ? gs_interval_union_groups(iv, proc, m, n_proc) : NULL;
    free(proc);
    if (!*first) {
        free(iv);
        return NULL;
    }
    return iv;
}

gs_status gs_analyze(gs_analysis **out, gs_timeline *tl, const gs_analysis_config *cfg,
                     gs_err *err)
{
    gs_analysis_config defcfg;
    gs_attrib *at = NULL;
    int32_t *devs = NULL;
    double *lens = NULL;
    gs_interval *trims = NULL;
    size_t *trim_first = NULL;
    gs_status st = GS_OK;
    *out = NULL;
    if (!cfg) {
        gs_analysis_config_defaults(&defcfg);
        cfg = &defcfg;
    }
    gs_analysis *a = calloc(1, sizeof *a);
    if (!a)
        goto nomem;
    a->cfg = *cfg;
    size_t n;
    const gs_span *sp = gs_timeline_spans(tl, &n);
    if (!sp && n == 0 && gs_timeline_lane_count(tl) == 0)
        n = 0;
    a->dropped_spans = gs_timeline_dropped(tl);
    /* Bounded timestamps keep every difference and union length below
     * INT64_MAX (a spans.csv reader refuses them first, naming the line). */
    for (size_t i = 0; i < n; i++)
        if (sp[i].start_ns < -GS_TL_TIME_LIMIT_NS || sp[i].start_ns > GS_TL_TIME_LIMIT_NS ||
            sp[i].end_ns < -GS_TL_TIME_LIMIT_NS || sp[i].end_ns > GS_TL_TIME_LIMIT_NS) {
            char where[160];
            snprintf(where, sizeof where, "span '%s' on lane %d", sp[i].name, (int)sp[i].lane);
            st = gs_err_set(err, GS_ERR_RANGE, "analysis", where,
                            "timestamp %lld..%lld ns outside +-%lld ns",
                            (long long)sp[i].start_ns, (long long)sp[i].end_ns,
                            (long long)GS_TL_TIME_LIMIT_NS);
            goto fail;
        }
    a->t0_ns = n ? sp[0].start_ns : 0;
    a->t1_ns = a->t0_ns;
    const char *be = gs_timeline_meta_get(tl, "backend");
    int cuda = be && !strcmp(be, "cuda");
    for (size_t i = 0; i < n; i++) {
        if (sp[i].end_ns > a->t1_ns)
            a->t1_ns = sp[i].end_ns;
        if (cuda && sp[i].kind == GS_SPAN_STEP && (sp[i].flags & GS_SPAN_F_CPU) && sp[i].end_ns > sp[i].start_ns &&
            gs_vocab_is(sp[i].name, GS_V_PROVE_START) &&
            gs_timeline_lane(tl, sp[i].lane)->role == GS_ROLE_GPU_WORKER) {
            a->worker_call_s += (double)(sp[i].end_ns - sp[i].start_ns) * 1e-9;
            a->worker_call_cpu_s += (double)sp[i].cpu_ns * 1e-9;
        }
        if (sp[i].kind == GS_SPAN_INJECTED && sp[i].end_ns > sp[i].start_ns) {
            a->injected_spans++;
            a->injected_s += (double)(sp[i].end_ns - sp[i].start_ns) * 1e-9;
        }
    }
    /* Every malloc_trim (real or injected) on any lane of a process, as one
     * union per process (another process's trim holds other arenas). */
    if (!(trims = trim_unions(tl, sp, n, &trim_first)))
        goto nomem;
    /* Devices: distinct device ids of device lanes that carry operations. */
    size_t nl = gs_timeline_lane_count(tl), nd = 0;
    devs = malloc((nl + 1) * sizeof *devs);
    if (!devs)
        goto nomem;
    for (size_t l = 0; l < nl; l++) {
        const gs_lane_info *L = gs_timeline_lane(tl, (int32_t)l);
        int dup = 0;
        for (size_t k = 0; k < nd; k++)
            dup |= devs[k] == L->device;
        if (L->role == GS_ROLE_DEVICE && !dup)
            devs[nd++] = L->device;
    }
    qsort(devs, nd, sizeof *devs, cmp_i32);
    a->dev = calloc(nd + 1, sizeof *a->dev);
    if (!a->dev)
        goto nomem;
    if ((st = gs_attrib_create(&at, tl, err)) != GS_OK)
        goto fail;
    size_t total_gaps = 0;
    for (size_t k = 0; k < nd; k++) {
        gs_device_analysis *d = &a->dev[a->n_dev];
        d->device = devs[k];
        if (!device_unions(d, tl, sp, n))
            goto nomem;
        a->n_dev++;
        if (d->n_ops == 0)   /* a device lane without operations: span [0, 0] */
            continue;
        char key[64];
        snprintf(key, sizeof key, "device.%d.name", (int)d->device);
        const char *nm = gs_timeline_meta_get(tl, key);
        snprintf(d->name, sizeof d->name, "%s", nm ? nm : "");
        d->rule = gs_attrib_rule_of(at, d->device);
        if (!attribute_device(d, at, cfg) || !kernel_view(d, at, tl, sp, n))
            goto nomem;
        total_gaps += d->n_gaps;
    }
    lens = malloc((total_gaps + 1) * sizeof *lens);
    if (!lens)
        goto nomem;
    size_t m = 0;
    for (size_t k = 0; k < a->n_dev; k++) {
        gs_device_analysis *d = &a->dev[k];
        size_t m0 = m;
        for (size_t g = 0; g < d->n_gaps; g++)
            lens[m++] = (double)(d->gaps[g].end_ns - d->gaps[g].start_ns) * 1e-9;
        gs_gap_stats_compute(&d->gap_stats, lens + m0, d->n_gaps, cfg->micro_threshold_s);
        d->idle_s = d->gap_stats.total_s;
        for (size_t g = 0; g < d->n_gaps; g++)
            d->idle_during_trim_s +=
                (double)gs_interval_overlap(trims + trim_first[2 * d->process],
                                            trim_first[2 * d->process + 1], d->gaps[g].start_ns,
                                            d->gaps[g].end_ns) * 1e-9;
        a->idle_during_trim_s += d->idle_during_trim_s;
        a->idle_s += d->idle_s;
        a->span_s += d->span_s;
        a->busy_s += d->busy_s;
        a->kidle_s += d->kidle_s;
        a->kernel_s += d->kernel_s;
        for (int c = 0; c < GS_CAUSE_COUNT; c++) {
            a->cause_s[c] += d->cause_s[c];
            a->kcause_s[c] += d->kcause_s[c];
        }
    }
    gs_gap_stats_compute(&a->gap_stats, lens, m, cfg->micro_threshold_s);
    /* Details of launcher-rule pieces (NVTX ranges), with their idle time. */
    size_t nd_det = gs_attrib_detail_count(at);
    if (nd_det) {
        a->details = calloc(nd_det, sizeof *a->details);
        if (!a->details)
            goto nomem;
        for (size_t i = 0; i < nd_det; i++) {
            const char *t = gs_attrib_detail(at, i, &a->details[i].cause);
            if (!(a->details[i].detail = strdup(t ? t : "")))
                goto nomem;
            a->n_details++;
        }
        for (size_t k = 0; k < a->n_dev; k++)
            for (size_t p = 0; p < a->dev[k].n_pieces; p++) {
                const gs_gap_piece *pc = &a->dev[k].pieces[p];
                if (pc->detail >= 0 && (size_t)pc->detail < a->n_details)
                    a->details[pc->detail].idle_s += (double)(pc->end_ns - pc->start_ns) * 1e-9;
            }
    }
    if (!gs_diag_stacks(a, tl))
        goto nomem;
    const char *mech = gs_timeline_meta_get(tl, "attach.wake");
    snprintf(a->wake_mech, sizeof a->wake_mech, "%s", mech ? mech : "");
    a->verdict = GS_CAUSE_OTHER;
    double best = 0;
    for (int c = 0; c < GS_CAUSE_COUNT; c++)
        if (a->cause_s[c] > best) {
            best = a->cause_s[c];
            a->verdict = (gs_cause)c;
        }
    a->verdict_share = a->idle_s > 0 ? best / a->idle_s : 0;
    a->kverdict = top_cause(a->kcause_s, a->kidle_s, &a->kverdict_share);
    *out = a;
    a = NULL;
fail:
    free(trims);
    free(trim_first);
    free(lens);
    free(devs);
    gs_attrib_destroy(at);
    gs_analysis_destroy(a);
    return st;
nomem:
    st = gs_err_set(err, GS_ERR_NOMEM, "analysis", "gs_analyze", "out of memory");
    goto fail;
}

const gs_cause_detail *gs_analysis_top_chain(const gs_analysis *a)
{
    const gs_cause_detail *best = NULL;
    for (size_t i = 0; i < a->n_details; i++) {
        const gs_cause_detail *d = &a->details[i];
        if (d->cause == a->verdict && strstr(d->detail, " waits on ") &&
            (!best || d->idle_s > best->idle_s))
            best = d;
    }
    return best;
}

static void fmt_dur(char *b, size_t n, double s)
{
    if (s >= 1)
        snprintf(b, n, "%.2f s", s);
    else if (s >= 1e-3)
        snprintf(b, n, "%.1f ms", s * 1e3);
    else
        snprintf(b, n, "%.1f us", s * 1e6);
}

void gs_analysis_verdict(char *buf, size_t n, const gs_analysis *a)
{
    char idle[32], span[32], top[32];
    size_t ops = 0;
    for (size_t i = 0; i < a->n_dev; i++)
        ops += a->dev[i].n_ops;
    if (ops == 0) {
        snprintf(buf, n, "No device operations in the timeline: nothing to analyse "
                         "(was the run captured with a device or CPU backend?).");
        return;
    }
    if (a->span_s <= 0) {
        snprintf(buf, n, "%zu device operations, all of zero length: no device span to "
                         "analyse (a capture stopped right after its first kernel?).", ops);
        return;
    }
    fmt_dur(idle, sizeof idle, a->idle_s);
    fmt_dur(span, sizeof span, a->span_s);
    fmt_dur(top, sizeof top, a->cause_s[a->verdict]);
    const char *who = a->n_dev == 1 ? "The GPU" : "The GPUs";
    if (a->idle_s <= 0) {
        snprintf(buf, n, "%s never went idle over its %s span (util = kernels-or-copies "
                         "busy / span = 100%%).", who, span);
        return;
    }
    int k = snprintf(buf, n, "%s sat idle %s of %s (util %.1f%%, kernels-or-copies busy / span) "
                             "in %zu gaps; the top cause is %s with %.0f%% of the idle time (%s).",
                     who, idle, span, a->span_s > 0 ? 100.0 * a->busy_s / a->span_s : 0.0,
                     a->gap_stats.count, gs_cause_name(a->verdict), 100.0 * a->verdict_share, top);
    const gs_cause_detail *ch = gs_analysis_top_chain(a);
    if (ch && k > 0 && (size_t)k < n) {
        char d[32];
        fmt_dur(d, sizeof d, ch->idle_s);
        snprintf(buf + k, n - (size_t)k, " Chain (%s): %s.", d, ch->detail);
    }
}

int gs_analysis_spin_note(char *buf, size_t n, const gs_analysis *a)
{
    if (n)
        buf[0] = 0;
    if (!(a->worker_call_s > 0) || a->worker_call_cpu_s < GS_SPIN_NOTE_MIN * a->worker_call_s)
        return 0;
    double span_s = 0;   /* the longest device span */
    for (size_t i = 0; i < a->n_dev; i++)
        if (a->dev[i].span_s > span_s)
            span_s = a->dev[i].span_s;
    snprintf(buf, n,
             "The GPU workers spin while their devices work: %.0f%% of their device calls' %.2f s (prove_start) "
             "ran on a CPU, %.2f core-seconds, %.2f cores over the device span's %.2f s.  A blocking wait "
             "(cudaDeviceScheduleBlockingSync; gapscope: gpu.host_sync = block) hands that core to the host's "
             "other threads.  What that is worth depends on the host: with 12 synthesis threads on 16-vCPU H100 "
             "VMs it raised util from 85.0%% to 95.7%% where synthesis slowed as threads were added, and changed "
             "nothing (97.3%% both) on a steady one (traces/h100-r3s10-issue31, h100-r3s11-issue31).  gapscope "
             "calibrate's synth_beside_spin times synthesis beside one busy loop on the host; it read 0.88-1.11 "
             "on hosts where the spin cost nothing and has not yet run on one where it did.",
             100 * a->worker_call_cpu_s / a->worker_call_s, a->worker_call_s, a->worker_call_cpu_s,
             span_s > 0 ? a->worker_call_cpu_s / span_s : 0.0, span_s);
    return 1;
}
