/*
 * Engine on the CUDA backend (runs under `make test-gpu`: the name holds
 * "cuda"; skipped without a device, failed under GS_REQUIRE_GPU=1).  The
 * same pipeline as the CPU tests: jobs complete, proofs verify against an
 * independently rebuilt key, device stages land on gpu0/stream* lanes.
 * The engine itself never names the CUDA backend: this test creates one
 * (cuda is a test-only layer of the engine's, tdeps_engine).
 */
#include <stdlib.h>

#include "../cuda/cuda.h"
#include "engine_test.h"

GS_TEST(engine_cuda_backend_end_to_end)
{
    if (gs_cuda_device_count() <= 0) {
        const char *req = getenv("GS_REQUIRE_GPU");
        if (req && strcmp(req, "1") == 0)
            gs_test_fail(__FILE__, __LINE__, "GS_REQUIRE_GPU=1 but no CUDA device");
        else
            gs_test_skip("no CUDA device");
        return;
    }
    gs_err err;
    gs_err_clear(&err);
    gs_backend *be = NULL;
    gs_timeline *tl = NULL;
    gs_engine *e = NULL;
    GS_REQUIRE(gs_backend_cuda_create(&be, 0, &err) == GS_OK);
    GS_REQUIRE(gs_timeline_create(&tl) == GS_OK);
    gs_engine_config cfg;
    et_config(&cfg);
    cfg.gpu_workers_per_device = 2;
    cfg.inj[GS_INJ_TRACKER_HOLD] = (gs_injection){.enabled = 1, .dist = {GS_DIST_FIXED, 0.02, 0, 0, 0},
                                                  .probability = 1.0, .seed = 5};
    if (gs_engine_create(&e, &cfg, &be, 1, tl, &err) != GS_OK) {
        gs_test_fail(__FILE__, __LINE__, "engine: %s", err.msg);
        goto done;
    }
    /* Two kinds (two keys: the backend swaps the resident key), first one
     * after the other, then interleaved. */
    et_submit(e, GS_KIND_POREP_C2, 1, 4);
    GS_CHECK_OK(gs_engine_drain(e, ET_DRAIN_NS));
    et_submit(e, GS_KIND_WINNING_POST, 2, 1);
    GS_CHECK_OK(gs_engine_drain(e, ET_DRAIN_NS));
    et_submit(e, GS_KIND_POREP_C2, 3, 2);
    et_submit(e, GS_KIND_WINNING_POST, 4, 1);
    GS_CHECK_OK(gs_engine_drain(e, ET_DRAIN_NS));
    size_t n;
    const gs_job_result *r = gs_engine_results(e, &n);
    GS_CHECK_EQ_INT(n, 4);
    for (size_t i = 0; i < n; i++) {
        GS_CHECK_MSG(r[i].status == GS_OK, "job %llu: %s", (unsigned long long)r[i].id, r[i].error);
        GS_CHECK_EQ_INT(r[i].verified, 1);
        GS_CHECK(et_verify_independent(&r[i]));
    }
    gs_engine_destroy(e);
    e = NULL;
    const gs_span *s = gs_timeline_spans(tl, &n);
    int gpu_spans = 0;
    for (size_t i = 0; i < n; i++) {
        const gs_lane_info *l = et_lane(tl, s[i].lane);
        if (l && l->role == GS_ROLE_DEVICE) {
            gpu_spans++;
            GS_CHECK(strncmp(l->name, "gpu0/stream", 11) == 0);
            GS_CHECK(s[i].start_ns <= s[i].end_ns);
        }
    }
    GS_CHECK(gpu_spans >= 5 * 4);
    /* staging = direct: synthesis into page-locked pool buffers: the first
     * partition fills the pool (pin_pool = 3: one `pin` span, 3 buffers),
     * later ones reuse them or wait (pin_wait); a job of another size
     * replaces free buffers one at a time.  Proofs verify. */
    gs_timeline_destroy(tl);
    tl = NULL;
    GS_REQUIRE(gs_timeline_create(&tl) == GS_OK);
    et_config(&cfg);
    cfg.direct = 1;
    cfg.synth_threads = 2;
    cfg.queue_depth = 1;
    cfg.pin_pool = 3;
    if (gs_engine_create(&e, &cfg, &be, 1, tl, &err) != GS_OK) {
        gs_test_fail(__FILE__, __LINE__, "engine (direct): %s", err.msg);
        goto done;
    }
    et_direct_pool_jobs(e);
    gs_engine_destroy(e);
    e = NULL;
    et_direct_pool_spans(tl, 1);
done:
    gs_engine_destroy(e);
    gs_timeline_destroy(tl);
    if (be)
        be->ops->destroy(be);
}
