/*
 * engine.prep = ahead (cfg.prep_ahead): each GPU worker's host steps
 * (status_check .. host_prep) run on its prep thread's lane, overlapping
 * the worker's prove_start of the previous partition; jobs still complete
 * and verify, and nothing of the host steps is left on the worker lane.
 * The inline loop (the default) keeps them on the worker lane, where they
 * cannot overlap its own prove_start.
 */
#include <stdlib.h>

#include "engine_test.h"

/* The engine's host_prep step (args zeros=..;ones=..), not the CPU
 * backend's own "host_prep" stage inside prove_start. */
static int engine_step(const gs_span *s, const char *name)
{
    if (strcmp(s->name, name) != 0)
        return 0;
    return strcmp(name, "host_prep") != 0 || (s->args && strstr(s->args, "zeros=") != NULL);
}

/* Step spans named `name` of job `job` on the gpu_worker lanes: the prep
 * lanes (".../prep") when prep_lane, else the worker lanes. */
static int count_on(gs_timeline *tl, const char *name, int prep_lane, int32_t job)
{
    size_t n;
    const gs_span *s = gs_timeline_spans(tl, &n);
    int got = 0;
    for (size_t i = 0; i < n; i++) {
        const gs_lane_info *l = et_lane(tl, s[i].lane);
        if (!l || l->role != GS_ROLE_GPU_WORKER || s[i].kind != GS_SPAN_STEP || s[i].job != job ||
            !engine_step(&s[i], name))
            continue;
        got += (strstr(l->name, "/prep") != NULL) == prep_lane;
    }
    return got;
}

/* Pairs (host_prep of one partition, prove_start of another) that overlap in time. */
static int overlaps(gs_timeline *tl)
{
    size_t n;
    const gs_span *s = gs_timeline_spans(tl, &n);
    int got = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i].kind != GS_SPAN_STEP || !engine_step(&s[i], "host_prep"))
            continue;
        for (size_t k = 0; k < n; k++)
            if (s[k].kind == GS_SPAN_STEP && strcmp(s[k].name, "prove_start") == 0 &&
                s[k].part != s[i].part && s[i].start_ns < s[k].end_ns &&
                s[k].start_ns < s[i].end_ns)
                got++;
    }
    return got;
}

static void run_prep(int ahead)
{
    enum { PARTS = 6 };
    gs_engine_config cfg;
    et_config(&cfg);
    cfg.prep_ahead = ahead;
    cfg.queue_depth = 8;
    /* A labelled injected delay makes host_prep long enough to see. */
    cfg.inj[GS_INJ_HOST_PREP] = (gs_injection){.enabled = 1, .dist = {GS_DIST_FIXED, 0.03, 0, 0, 0},
                                               .probability = 1.0, .seed = 3};
    et_run r;
    if (!et_start(&r, &cfg, 0))
        goto done;
    et_submit(r.e, GS_KIND_POREP_C2, 7, PARTS);
    GS_CHECK_OK(gs_engine_drain(r.e, ET_DRAIN_NS));
    size_t n;
    const gs_job_result *res = gs_engine_results(r.e, &n);
    int count;
    const gs_job_result *x = et_find(res, n, 7, &count);
    GS_REQUIRE(x && count == 1);
    GS_CHECK_EQ_INT(x->status, GS_OK);
    GS_CHECK(et_verify_independent(x));
    et_stop(&r);
    /* Host steps on the prep lane (ahead) or the worker lane (inline). */
    static const char *host[] = {"status_check", "fail_check", "mark_busy", "host_prep"};
    for (size_t k = 0; k < sizeof host / sizeof host[0]; k++) {
        GS_CHECK_MSG(count_on(r.tl, host[k], ahead, 7) == PARTS, "%s: %d on the %s lane", host[k],
                     count_on(r.tl, host[k], ahead, 7), ahead ? "prep" : "worker");
        GS_CHECK_EQ_INT(count_on(r.tl, host[k], !ahead, 7), 0);
    }
    GS_CHECK_EQ_INT(count_on(r.tl, "prove_start", 0, 7), PARTS);
    GS_CHECK_EQ_INT(count_on(r.tl, "prove_start", 1, 7), 0);
    GS_CHECK_EQ_INT(count_on(r.tl, "handoff", 0, 7), PARTS);
    int ov = overlaps(r.tl);
    if (ahead)
        GS_CHECK_MSG(ov >= 1, "no host_prep overlapped another partition's prove_start");
    else
        GS_CHECK_EQ_INT(ov, 0);
done:
    et_free(&r);
}

GS_TEST(engine_prep_ahead_overlaps_device_work) { run_prep(1); }
GS_TEST(engine_prep_inline_stays_on_worker_lane) { run_prep(0); }
