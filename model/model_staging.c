/*
 * The host staging before a prove's first device copy, as CPU work of the
 * backend's copy threads (contract in model_int.h; method in MODEL.md,
 * "A prove's device schedule" and "Host contention").
 *
 * Under staging = pinned the GPU worker copies the witness into the
 * backend's pinned buffer before the first DMA (h2d_w): copy_threads
 * threads (scenario.gpu.copy_threads, 8 by default; one for a copy under
 * 4 MiB), forked and joined per copy.  A fixed time would not slow with
 * the host's load, and the timelines show it does: in
 * traces/h200-r3/changes/synth12 the gap before h2d_w is 1.2-1.4 ms when
 * at most 6 synthesis threads ran beside it and 4.5-8.4 ms with 9-12
 * (its base, 6 threads: 1.1-1.9 ms), and that gap is the GPU's idle time
 * between proves.  So the model runs it as CPU work on the modelled CPU
 * (model_backend.c), processor sharing with the other threads, then
 * waits g(T) - 1 times as long again without CPU (the fork-join copy's
 * threads waiting for cores: a delay, not work), g the slowdown of the
 * speed class "staging" at the runnable threads T it ran with.
 *
 * Fit.  Each captured staging gap [t0, t1] has T, the runnable threads
 * over it: the CPU steps running beside it (the processor-sharing
 * inference's acts, their threads), the other GPU workers spinning on
 * their devices, and its own copy threads.  Its value becomes the wall
 * time it would have taken uncontended: wall x min(1, C / T) / g(T),
 * with g the class's slowdown beyond fair sharing, so a prediction at the
 * captured T gives the captured gap back and one at another T moves.
 * g(T) = 1 + beta max(0, T - C) / C: nothing below the cores, then a
 * fork-join copy waits for cores the other threads hold beyond its share
 * (the scheduler's slices: the join waits for its last thread).  The
 * capture tells beta when 4 or more staging gaps ran at T <= C and 4 or
 * more at T >= C + 2 (least squares on log wall x share over a grid);
 * else a machine profile's table (gapscope calibrate: the copy timed
 * beside 0..2C synthesis threads); else beta = 0, ideal sharing (said in
 * the notes).
 *
 * The slice.  The GPU worker stages the next witness after a prove it
 * waited out (spinning: cudaDeviceScheduleAuto with fewer contexts than
 * CPUs; or asleep: host_sync = block).  Its copy, when it starts with more
 * runnable threads than cores, waits about one scheduler slice for its
 * threads' cores: the captured head before h2d_w is a step, ~1.3-1.45 ms
 * up to 6 busy synthesis threads and ~5.5 ms from 7 on the 16-CPU H100
 * and H200 hosts, 5.6 ms with the worker spinning and 5.2 with it asleep
 * (traces/h100-r3s10-issue31; bench/RESULTS.md, "the staging head"),
 * where the slope above stays near 1 until well past the cores.  A
 * capture with copies on both sides of the cores has it in beta; a
 * machine profile whose copy's caller spun (staging_spin_ms > 0) has it
 * in its table.  Otherwise the model adds Linux's default base slice for
 * the captured CPUs (0.75 ms x (1 + log2 min(C, 8)): 3 ms at C >= 8;
 * kernel/sched/fair.c) to such a copy of a CUDA capture, and says so in
 * the notes (a prior, not measured on the machine).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_int.h"
#include "../common/stats.h"

/* Bytes at or above which the backend splits a staging copy over its
 * threads (prover/cuda/cu_ctx.cu, par_memcpy). */
#define PAR_COPY_MIN ((double)(4u << 20))
#define MIN_SIDE 4

int gs_mi_staging_threads(const gs_model *m, double bytes)
{
    int k = m->copy_threads > 0 ? m->copy_threads : GS_MODEL_COPY_THREADS;
    return bytes >= PAR_COPY_MIN ? k : 1;
}

/* Runnable threads beside [a, b]: the acts' threads and the spinning
 * GPU workers other than lane, averaged over the interval. */
static double beside(const fitctx *c, const gs_span *sp, size_t n, int32_t lane, int64_t a, int64_t b)
{
    if (b <= a)
        b = a + 1;
    double sum = 0, len = (double)(b - a);
    for (size_t i = 0; i < c->n_acts; i++) {
        const act *x = &c->acts[i];
        int64_t lo = x->t0 > a ? x->t0 : a, hi = x->t1 < b ? x->t1 : b;
        if (hi > lo)
            sum += x->threads * (double)(hi - lo) / len;
    }
    if (c->m->spin >= 0.5)
        for (size_t i = 0; i < n; i++) {
            const gs_span *s = &sp[i];
            int64_t lo = s->start_ns > a ? s->start_ns : a, hi = s->end_ns < b ? s->end_ns : b;
            if (s->lane != lane && s->kind == GS_SPAN_STEP && hi > lo && gs_vocab_is(s->name, GS_V_PROVE_START))
                sum += (double)(hi - lo) / len;
        }
    return sum;
}

static double rss(const double *t, const double *y, int n, double beta, double cores)
{
    double mean = 0, ss = 0;
    for (int i = 0; i < n; i++)
        mean += (y[i] - log1p(beta * (t[i] > cores ? t[i] - cores : 0) / cores)) / n;
    for (int i = 0; i < n; i++) {
        double r = y[i] - log1p(beta * (t[i] > cores ? t[i] - cores : 0) / cores) - mean;
        ss += r * r;
    }
    return ss;
}

/* The slice prior (above); after the fit, and with no staging captured. */
static void slice_prior(gs_model *m)
{
    const speed_curve *s = &m->speed[GS_SPEED_STAGING];
    int cores = m->cores > 0 ? m->cores : 1;
    const char *be = gs_model_meta(m, "backend");
    m->slice_s = 0;
    /* The CUDA backend's staging only (the CPU backend stages nothing). */
    if (!be || strcmp(be, "cuda") || s->source == GS_SPEED_SRC_CAPTURE ||
        (s->source == GS_SPEED_SRC_PROFILE && m->prof_data.staging_spin_ms > 0))
        return;
    int k = cores < 8 ? cores : 8, lg = 0;
    while (k >>= 1)
        lg++;
    m->slice_s = 0.75e-3 * (1 + lg);
    char a[320];
    snprintf(a, sizeof a, "%s; so a copy that starts with more runnable threads than the %d cores waits one "
             "scheduler slice more: Linux's default base slice, 0.75 ms x (1 + log2 min(%d, 8)) = %.2f ms",
             s->source == GS_SPEED_SRC_PROFILE ? "the machine profile timed its copy from a caller that slept"
                                               : "neither the capture nor a machine profile times such a copy",
             cores, cores, 1e3 * m->slice_s);
    gs_mi_note(m, "Staging beyond the cores: %s (a prior, not measured here; the step captured on 16-CPU H100 "
                  "and H200 hosts is ~4 ms, with the GPU worker spinning or asleep; %s).\n",
               a, "GS_CALIBRATE_STAGING_SPIN_MS=50 gapscope calibrate times it on this machine");
}

double gs_model_staging_slice_s(const gs_model *m) { return m->slice_s; }

int gs_mi_staging_fit(fitctx *c, const gs_span *sp, size_t n)
{
    gs_model *m = c->m;
    double cores = m->cores > 0 ? m->cores : 1;
    size_t cap = 0;
    for (int i = 0; i < m->n; i++)
        for (int j = 0; m->st[i].staging && j < m->st[i].n_pt; j++)
            cap += m->st[i].pt[j].n;
    if (!cap) {
        slice_prior(m);
        return 1;
    }
    double *t = malloc(cap * sizeof *t), *y = malloc(cap * sizeof *y), *ts = malloc(cap * sizeof *ts);
    int nn = 0, under = 0, over = 0;
    if (!t || !y || !ts) {
        free(t);
        free(y);
        free(ts);
        return 0;
    }
    /* T of every instance (kept in wall's place until normalized). */
    for (int i = 0; i < m->n; i++)
        for (int j = 0; m->st[i].staging && j < m->st[i].n_pt; j++) {
            point *p = &m->st[i].pt[j];
            const size_rec *z = gs_mi_size_find(m, p->kind, p->log);
            double bytes = 32.0 * (z && z->n_vars ? (double)z->n_vars : exp2((double)p->log));
            for (size_t k = 0; k < p->n; k++) {
                inst *x = &p->in[k];
                x->tload = beside(c, sp, n, x->lane, x->t0, x->t1) + gs_mi_staging_threads(m, bytes);
                if (x->v <= 0)
                    continue;
                t[nn] = ts[nn] = x->tload;
                y[nn] = log(x->v * fmin(1.0, cores / x->tload));
                under += x->tload <= cores;
                over += x->tload >= cores + 2;
                nn++;
            }
        }
    speed_curve *s = &m->speed[GS_SPEED_STAGING];
    if (nn) {
        qsort(ts, (size_t)nn, sizeof *ts, gs_cmp_double);
        s->t_lo = gs_mi_pct(ts, (size_t)nn, 0.1);
        s->t_hi = gs_mi_pct(ts, (size_t)nn, 0.9);
    }
    if (under >= MIN_SIDE && over >= MIN_SIDE) {
        double best = INFINITY, beta = 0;
        for (int g = 0; g <= 3000; g++)
            if (rss(t, y, nn, g / 100.0, cores) < best) {
                best = rss(t, y, nn, g / 100.0, cores);
                beta = g / 100.0;
            }
        s->source = GS_SPEED_SRC_CAPTURE;
        s->beta = beta;
        s->beta_se = INFINITY;
    } else if (s->source != GS_SPEED_SRC_PROFILE && nn) {
        char what[160];
        snprintf(what, sizeof what, "%d of %d staging copies ran with more runnable threads than cores", over, nn);
        gs_mi_note(m, "Contention of staging (%s): the capture cannot tell how a copy slows beyond its share "
                      "and %s: ideal sharing.\n",
                   what, m->profile[0] ? "the machine profile does not time it" : "no machine profile was given");
    }
    /* Uncontended wall: what the capture's would have been alone. */
    for (int i = 0; i < m->n; i++)
        for (int j = 0; m->st[i].staging && j < m->st[i].n_pt; j++)
            for (size_t k = 0; k < m->st[i].pt[j].n; k++) {
                inst *x = &m->st[i].pt[j].in[k];
                x->v *= fmin(1.0, cores / x->tload) / gs_mi_slowdown(m, GS_SPEED_STAGING, x->tload);
            }
    free(t);
    free(y);
    free(ts);
    slice_prior(m);
    return 1;
}
