/*
 * Engine tests of issue 16: per-job cancellation (gs_engine_cancel_job)
 * and the real malloc_trim mode's per-partition working set.
 */
#include <stdlib.h>

#include "engine_test.h"

/* Cancelling one job of three ends it once with GS_ERR_CANCELLED and the
 * reason; the others complete and verify; a finished or unknown job cannot
 * be cancelled (GS_ERR_STATE) and keeps its result; the timeline has one
 * job_cancel mark per request. */
GS_TEST(engine_cancel_job_ends_that_job_once)
{
    gs_engine_config cfg;
    et_config(&cfg);
    cfg.synth_threads = 1;
    /* Slow synthesis: job 2's four partitions cannot all be proved before
     * the cancel arrives (80 ms of injected synthesis at the least). */
    cfg.inj[GS_INJ_SYNTH].enabled = 1;
    cfg.inj[GS_INJ_SYNTH].probability = 1.0;
    cfg.inj[GS_INJ_SYNTH].dist.a = 0.02;
    et_run r;
    if (!et_start(&r, &cfg, 0))
        goto done;
    et_submit(r.e, GS_KIND_POREP_C2, 1, 2);
    et_submit(r.e, GS_KIND_POREP_C2, 2, 4);
    et_submit(r.e, GS_KIND_WINNING_POST, 3, 1);
    gs_err err;
    gs_err_clear(&err);
    GS_CHECK_OK(gs_engine_cancel_job(r.e, 2, "test", &err));
    gs_err_clear(&err);
    GS_CHECK_EQ_INT(gs_engine_cancel_job(r.e, 77, "test", &err), GS_ERR_STATE);
    GS_CHECK(strstr(err.msg, "unknown") != NULL);
    GS_CHECK_OK(gs_engine_drain(r.e, ET_DRAIN_NS));
    gs_err_clear(&err);
    GS_CHECK_EQ_INT(gs_engine_cancel_job(r.e, 1, "late", &err), GS_ERR_STATE);
    GS_CHECK(strstr(err.msg, "already finished") != NULL);
    size_t n;
    const gs_job_result *res = gs_engine_results(r.e, &n);
    GS_CHECK_EQ_INT(n, 3);
    for (uint64_t id = 1; id <= 3; id++) {
        int count;
        const gs_job_result *x = et_find(res, n, id, &count);
        GS_REQUIRE(x && count == 1);
        if (id == 2) {
            GS_CHECK_EQ_INT(x->status, GS_ERR_CANCELLED);
            GS_CHECK_MSG(strstr(x->error, "cancelled: test") != NULL, "error: %s", x->error);
            GS_CHECK(x->proof == NULL);
        } else {
            GS_CHECK_MSG(x->status == GS_OK, "job %llu: %s", (unsigned long long)id, x->error);
            GS_CHECK(x->verified == 1 && et_verify_independent(x));
        }
    }
    et_stop(&r);
    const gs_span *s = gs_timeline_spans(r.tl, &n);
    int marks = 0, in_flight = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i].kind == GS_SPAN_MARK && !strcmp(s[i].name, "job_cancel")) {
            marks++;
            in_flight += strstr(s[i].args, "in_flight=1") != NULL;
        }
    GS_CHECK_EQ_INT(marks, 3);
    GS_CHECK_EQ_INT(in_flight, 1);
done:
    et_free(&r);
}

/* Real malloc_trim mode with a working set: every partition allocates
 * work_per_constraint << log bytes on its synthesis lane (inj:malloc_trim
 * phase=alloc) and frees exactly that in buffer_release (phase=release),
 * before the trim; a dropped partition frees it too (no leak under
 * valgrind/ASan). */
GS_TEST(engine_real_trim_working_set_per_partition)
{
    gs_engine_config cfg;
    et_config(&cfg);
    cfg.inj[GS_INJ_MALLOC_TRIM] = (gs_injection){.enabled = 1, .probability = 1.0, .seed = 5, .real = 1,
                                                 .work_per_constraint = 1024};
    et_run r;
    if (!et_start(&r, &cfg, 0))
        goto done;
    et_one_verified(&r, GS_KIND_POREP_C2, 8, 3);
    et_stop(&r);
    size_t n;
    const gs_span *s = gs_timeline_spans(r.tl, &n);
    uint64_t want = 1024ull << ET_LOG, alloc[3] = {0}, freed[3] = {0};
    int allocs = 0, releases = 0, trims = 0;
    for (size_t i = 0; i < n; i++) {
        const gs_lane_info *l = et_lane(r.tl, s[i].lane);
        if (s[i].kind == GS_SPAN_STEP && !strcmp(s[i].name, "malloc_trim"))
            trims++;
        if (s[i].kind != GS_SPAN_INJECTED || strcmp(s[i].name, "inj:malloc_trim") || s[i].part < 0 ||
            s[i].part > 2)
            continue;
        GS_CHECK(s[i].flags & GS_SPAN_F_INJECTED);
        const char *b;
        if (strstr(s[i].args, "phase=alloc")) {
            allocs++;
            GS_CHECK(l && l->role == GS_ROLE_SYNTH);
            GS_REQUIRE((b = strstr(s[i].args, "bytes=")) != NULL);
            alloc[s[i].part] = strtoull(b + 6, NULL, 10);
            GS_CHECK(alloc[s[i].part] >= want && alloc[s[i].part] < want + (64u << 10));
        } else if (strstr(s[i].args, "phase=release")) {
            releases++;
            GS_CHECK(l && l->role == GS_ROLE_FINALIZER);
            GS_REQUIRE((b = strstr(s[i].args, "freed=")) != NULL);
            freed[s[i].part] = strtoull(b + 6, NULL, 10);
        }
    }
    GS_CHECK_EQ_INT(allocs, 3);
    GS_CHECK_EQ_INT(releases, 3);
    GS_CHECK_EQ_INT(trims, 3);
    for (int p = 0; p < 3; p++)
        GS_CHECK_MSG(alloc[p] == freed[p], "partition %d: allocated %llu, freed %llu", p,
                     (unsigned long long)alloc[p], (unsigned long long)freed[p]);
    et_free(&r);

    /* Dropped partitions (an injected host_prep failure in the GPU worker)
     * free theirs: no leak under valgrind or LeakSanitizer. */
    et_config(&cfg);
    cfg.inj[GS_INJ_MALLOC_TRIM] = (gs_injection){.enabled = 1, .probability = 1.0, .seed = 5, .real = 1,
                                                 .work_per_constraint = 1024};
    cfg.inj[GS_INJ_HOST_PREP] = (gs_injection){.enabled = 1, .probability = 1.0, .seed = 6, .fail = 1};
    if (!et_start(&r, &cfg, 1))
        goto done;
    et_submit(r.e, GS_KIND_POREP_C2, 9, 2);
    GS_CHECK_OK(gs_engine_drain(r.e, ET_DRAIN_NS));
    const gs_job_result *res = gs_engine_results(r.e, &n);
    GS_CHECK(n == 1 && res[0].status == GS_ERR_INJECTED);
done:
    et_free(&r);
}
