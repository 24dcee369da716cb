/*
 * The engine's modelled work (gs_work_model, engine.h) on a fitted model:
 * each unit the engine would do for real becomes its modelled cost on the
 * virtual clock: CPU stages as CPU work (processor sharing on the modelled
 * cores, clock.h), fixed stages (key setup) as sleeps.  Sizes: the job's
 * log_constraints plus the scenario's model_size_shift.  Per-job units
 * (assemble, verify) cost their per-partition value times the job's
 * partitions.
 *
 * Units the capture lacks: synth and host_prep always, malloc_trim and
 * verify when their policy is not off, are required (gs_model_work_check
 * names the missing stage before a run starts); setup, handoff,
 * buffer_release, process_result and assemble cost nothing when absent
 * (short steps; a capture without them is a device-only sample), and the
 * check says so in its notes.
 *
 * Threads: run() is called from every engine thread; it reads the model
 * only.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/clock.h"
#include "model_work.h"

/* Synthesis threads in modelled CPU work now: one count for the process,
 * as the virtual clock is (one model run at a time; model_backend.c's
 * MSM count likewise), every increment paired with its decrement. */
static atomic_int synth_busy;

int gs_model_synth_busy(void) { return atomic_load(&synth_busy); }

typedef struct work_impl {
    gs_work_model wm;
    const gs_model *m;
    int shift;
    uint64_t seed;
    double synth_scale;   /* the config's staging against the capture's (gs_model_synth_staging_scale) */
    int stage[GS_WORK_COUNT];
} work_impl;

static gs_model_where unit_where(gs_work_unit u)
{
    return u == GS_WORK_SETUP || u == GS_WORK_PIN ? GS_WHERE_FIXED : GS_WHERE_CPU;
}

static gs_status work_run(gs_work_model *wm, gs_work_unit u, const gs_job_spec *job, int32_t part,
                          gs_err *err)
{
    work_impl *w = wm->ctx;
    int si = (unsigned)u < GS_WORK_COUNT ? w->stage[u] : -1;
    uint32_t log = job ? job->log_constraints + (uint32_t)w->shift : 0;
    if (si < 0 && u == GS_WORK_PIN) {
        /* Not captured: the buffer's bytes at the profile's (or the
         * documented) page-locking rate. */
        gs_vt_sleep((int64_t)(gs_model_pin_bytes(w->m, job ? (int)job->kind : -1, log) /
                              gs_model_pin_gbps(w->m)));
        return GS_OK;
    }
    if (si < 0)
        return GS_OK; /* optional and absent: checked before the run */
    int kind = job ? (int)job->kind : -1;
    double s;
    gs_status rc = gs_model_cost(w->m, si, kind, log, job ? (int64_t)job->id : -1, part, w->seed, &s,
                                 err);
    if (rc != GS_OK)
        return rc;
    if (job && (u == GS_WORK_ASSEMBLE || u == GS_WORK_VERIFY))
        s *= job->partitions ? job->partitions : 1;
    if (u == GS_WORK_SYNTH)
        s *= w->synth_scale;
    int64_t ns = s > 0 ? (int64_t)(s * 1e9 + 0.5) : 0;
    if (unit_where(u) == GS_WHERE_FIXED) {
        gs_vt_sleep(ns);
    } else {
        int pool;
        int threads = gs_model_stage_threads(w->m, si, &pool), cls = gs_model_stage_class(w->m, si);
        if (cls == GS_SPEED_SYNTH)
            atomic_fetch_add(&synth_busy, threads);
        gs_vt_cpu_class(ns, threads, -1, cls);
        if (cls == GS_SPEED_SYNTH)
            atomic_fetch_sub(&synth_busy, threads);
    }
    return GS_OK;
}

gs_status gs_model_work_create(gs_work_model **out, const gs_model *m, const gs_engine_config *cfg,
                               int size_shift, uint64_t seed, gs_err *err)
{
    *out = NULL;
    work_impl *w = calloc(1, sizeof *w);
    if (!w)
        return GS_ERR(err, GS_ERR_NOMEM, "model", "out of memory");
    w->m = m;
    w->shift = size_shift;
    w->seed = seed;
    w->synth_scale = cfg ? gs_model_synth_staging_scale(m, cfg->direct, cfg->synth_threads, NULL) : 1;
    for (int u = 0; u < GS_WORK_COUNT; u++)
        w->stage[u] = gs_model_find(m, gs_work_unit_name((gs_work_unit)u), unit_where((gs_work_unit)u));
    w->wm.run = work_run;
    w->wm.ctx = w;
    *out = &w->wm;
    return GS_OK;
}

void gs_model_work_destroy(gs_work_model *wm)
{
    if (wm)
        free(wm->ctx);
}

/* One required stage at one size: present and within the fit's range.
 * fix (may be NULL): what would lend a missing stage, said after the
 * refusal. */
static gs_status need(const gs_model *m, const char *capture, const char *name, gs_model_where where,
                      const char *why, const char *fix, int kind, uint32_t log, gs_err *err)
{
    int si = gs_model_find(m, name, where);
    if (si < 0)
        return GS_ERR(err, GS_ERR_UNSUPPORTED, "predict",
                      "%s needs stage %s (%s), which capture %s lacks%s%s", why, name,
                      gs_model_where_name(where), capture, fix ? "; " : "", fix ? fix : "");
    double s;
    gs_err e2;
    gs_err_clear(&e2);
    if (gs_model_cost(m, si, kind, log, -1, -1, 0, &s, &e2) != GS_OK)
        return GS_ERR(err, GS_ERR_UNSUPPORTED, "predict", "%s: %s (capture %s)", why, e2.msg, capture);
    return GS_OK;
}

/* need() for an engine step or backend stage of the span vocabulary. */
static gs_status need_v(const gs_model *m, const char *capture, gs_vocab v, gs_model_where where,
                        const char *why, const char *fix, int kind, uint32_t log, gs_err *err)
{
    return need(m, capture, gs_vocab_name(v), where, why, fix, kind, log, err);
}

gs_status gs_model_work_check(const gs_model *m, const char *capture, const gs_engine_config *cfg,
                              const int *kinds, const uint32_t *logs, int n_sizes, char *notes,
                              size_t cap, gs_err *err)
{
    gs_status st = GS_OK;
    if (notes && cap)
        notes[0] = '\0';
    int idx[32];
    if (gs_model_device_order(m, cfg->g2_on_device, idx, 32) == 0)
        return GS_ERR(err, GS_ERR_UNSUPPORTED, "predict", "capture %s has no device stage", capture);
    for (int i = 0; i < n_sizes; i++) {
        int k = kinds[i];
        uint32_t l = logs[i];
        if ((st = need_v(m, capture, GS_V_SYNTH, GS_WHERE_CPU, "synthesis", NULL, k, l, err)) != GS_OK ||
            (st = need_v(m, capture, GS_V_HOST_PREP, GS_WHERE_CPU, "the GPU worker's host prep", NULL, k, l, err)) != GS_OK)
            return st;
        for (int d = 0; d < gs_model_device_order(m, cfg->g2_on_device, idx, 32); d++) {
            gs_model_where w;
            const char *name = gs_model_stage_at(m, idx[d], &w);
            if ((st = need(m, capture, name, GS_WHERE_DEVICE, "the prove", NULL, k, l, err)) != GS_OK)
                return st;
        }
        /* The prove's device schedule at this size and staging. */
        gs_model_plan plan;
        gs_model_prove_q q = {.kind = k, .log = l, .job = -1, .part = -1, .g2_on_device = cfg->g2_on_device,
                              .staging = cfg->pageable ? GS_MODEL_STAGING_PAGEABLE
                                         : cfg->direct ? GS_MODEL_STAGING_DIRECT
                                                       : GS_MODEL_STAGING_PINNED};
        gs_err e2;
        gs_err_clear(&e2);
        if (gs_model_prove_plan(&plan, m, &q, &e2) != GS_OK)
            return GS_ERR(err, GS_ERR_UNSUPPORTED, "predict", "%s (capture %s)", e2.msg, capture);
        if (cfg->g2_on_device && gs_model_find(m, gs_vocab_name(GS_V_MSM_B2), GS_WHERE_DEVICE) < 0)
            return GS_ERR(err, GS_ERR_UNSUPPORTED, "predict",
                          "engine.g2 = device needs the device stage msm_b2, which capture %s lacks "
                          "(it ran the G2 MSM on the CPU); lend it with --borrow CAPTURE2, a capture of the "
                          "same device that ran engine.g2 = device", capture);
        if (!cfg->g2_on_device &&
            (st = need_v(m, capture, GS_V_MSM_B2, GS_WHERE_CPU, "engine.g2 = cpu (the CPU G2 MSM)",
                         "lend it with --borrow CAPTURE2 (a capture of this host that ran engine.g2 = cpu) or "
                         "with a machine profile of this host (gapscope calibrate times the CPU G2 MSM; "
                         "--profile FILE, or machine-profile.json beside the capture)",
                         k, l, err)) != GS_OK)
            return st;
        if (cfg->trim != GS_TRIM_OFF &&
            (st = need_v(m, capture, GS_V_MALLOC_TRIM, GS_WHERE_CPU, "engine.trim (malloc_trim)", NULL, k, l, err)) != GS_OK)
            return st;
        if (cfg->verify != GS_VERIFY_OFF &&
            (st = need_v(m, capture, GS_V_VERIFY, GS_WHERE_CPU, "engine.verify", NULL, k, l, err)) != GS_OK)
            return st;
    }
    /* A real malloc_trim on a fragmented heap costs what that heap makes it
     * cost: only a capture that ran it can say. */
    const gs_injection *rt = &cfg->inj[GS_INJ_MALLOC_TRIM];
    const char *cap_mode = gs_model_meta(m, "scenario.inject.malloc_trim.mode");
    if (rt->enabled && rt->real && !(cap_mode && !strcmp(cap_mode, "real")))
        return GS_ERR(err, GS_ERR_UNSUPPORTED, "predict",
                      "[inject.malloc_trim] mode = real: a trim on a fragmented heap costs what the heap makes it "
                      "cost, and capture %s ran none; capture the scenario with mode = real (the same frag), or "
                      "predict mode = synthetic with the delay measured there", capture);
    const struct {
        const char *name;
        gs_model_where where;
    } optional[] = {{gs_vocab_name(GS_V_SETUP), GS_WHERE_FIXED},
                    {gs_vocab_name(GS_V_HANDOFF), GS_WHERE_CPU},
                    {gs_vocab_name(GS_V_BUFFER_RELEASE), GS_WHERE_CPU},
                    {gs_vocab_name(GS_V_PROCESS_RESULT), GS_WHERE_CPU},
                    {gs_vocab_name(GS_V_ASSEMBLE), GS_WHERE_CPU},
                    {gs_vocab_name(GS_V_EPILOGUE), GS_WHERE_CPU},
                    {"prove_host", GS_WHERE_FIXED}}; /* the model's own (model.c) */
    if (cfg->direct && gs_model_find(m, gs_vocab_name(GS_V_PIN), GS_WHERE_FIXED) < 0 && notes) {
        size_t n = strlen(notes);
        snprintf(notes + n, cap - n, "Stage pin (staging = direct: a pool buffer made page-locked) is not in the "
                 "capture: %.2f GB/s assumed (%s).\n", gs_model_pin_gbps(m),
                 gs_model_pin_gbps(m) == GS_MODEL_PIN_GBPS ? "the H200 capture h200-backlog-s12-direct"
                                                           : "the machine profile");
    }
    /* Synthesis itself under another staging: the same witness run, its
     * outputs written into a reused pool buffer instead of fresh memory
     * (prover/circuits/synth.c), or back.  The machine profile's
     * synth_reused row times the two (calibrate); without it the capture's
     * synthesis is kept (H200 r3: 1.07 cs per partition after the pool
     * filled, as its base seeds; H100 r3s3: 1.17 against 0.94-1.05; steady
     * H100 hosts r3s11 b and r3s12 d: 3-5% less than their bases; the row
     * on r3s12 e predicted direct's +1.5 points to 0.0, MODEL.md 7.7). */
    const char *cst = gs_model_meta(m, "scenario.engine.staging");
    if (notes && cst && !strcmp(cst, "direct") != (cfg->direct != 0)) {
        int measured;
        double f = gs_model_synth_staging_scale(m, cfg->direct, cfg->synth_threads, &measured);
        size_t n = strlen(notes);
        if (measured)
            snprintf(notes + n, cap - n, "Synthesis %s costs %.3fx the capture's CPU (the machine profile's "
                     "synth_reused at the nearest count to %d threads).\n",
                     cfg->direct ? "into the direct pool's reused buffers" : "into fresh memory (not the direct pool)",
                     f, cfg->synth_threads);
        else
            snprintf(notes + n, cap - n, "Synthesis %s is costed as the capture's (no synth_reused row in a "
                     "machine profile: gapscope calibrate times it).\n",
                     cfg->direct ? "into the direct pool's reused buffers" : "into fresh memory (not the direct pool)");
    }
    const char *g2 = gs_model_meta(m, "scenario.engine.g2");
    if (!cfg->g2_on_device && g2 && !strcmp(g2, "device") && notes) {
        size_t n = strlen(notes);
        double s = n_sizes > 0 ? gs_model_state_copy_s(m, kinds[0], logs[0]) : 0;
        if (s > 0)
            snprintf(notes + n, cap - n, "engine.g2 = cpu from a capture with the G2 MSM on the device: the backend's "
                     "copy of the witness for it (one thread, fresh memory, while the device works) is %.1f ms of "
                     "CPU at the profile's rate.\n", 1e3 * s);
        else
            snprintf(notes + n, cap - n, "engine.g2 = cpu from a capture with the G2 MSM on the device: the backend's "
                     "copy of the witness for it (one thread, while the device works) is not modelled: no machine "
                     "profile timed it (gapscope calibrate).\n");
    }
    for (size_t i = 0; notes && i < sizeof optional / sizeof optional[0]; i++)
        if (gs_model_find(m, optional[i].name, optional[i].where) < 0) {
            size_t n = strlen(notes);
            snprintf(notes + n, cap - n, "Stage %s is not in the capture: modelled as taking no time.\n",
                     optional[i].name);
        }
    return GS_OK;
}
