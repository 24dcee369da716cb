/*
 * The engine reads backend capabilities (gs_backend_caps), never a
 * backend's name.  The real CPU backend is given other capabilities (a
 * copy of its ops with a GPU kind and its own staging allocator, its name
 * still "cpu"): the engine's device lanes follow the kind, the
 * staging = direct pool takes its buffers from that allocator (and frees
 * them there), and a direct pool over backends of two kinds is refused.
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "engine_test.h"

static atomic_int n_alloc, n_free;

static gs_status counting_alloc(gs_assignment *as, uint32_t n_vars, uint32_t domain_size, gs_err *err)
{
    gs_status st = gs_assignment_alloc(as, n_vars, domain_size, err);
    if (st == GS_OK)
        atomic_fetch_add(&n_alloc, 1);
    return st;
}

static void counting_free(gs_assignment *as)
{
    if (as->w)
        atomic_fetch_add(&n_free, 1);
    gs_assignment_free(as);
}

/* be's ops with GPU capabilities and the counting allocator (into *ops). */
static void as_gpu(gs_backend *be, gs_backend_ops *ops)
{
    *ops = *be->ops;
    ops->caps.kind = GS_BE_KIND_GPU;
    ops->caps.assignment_alloc = counting_alloc;
    ops->caps.assignment_free = counting_free;
    be->ops = ops;
}

static int has_lane(gs_timeline *tl, const char *name)
{
    for (size_t i = 0; i < gs_timeline_lane_count(tl); i++)
        if (!strcmp(gs_timeline_lane(tl, (int32_t)i)->name, name))
            return 1;
    return 0;
}

GS_TEST(engine_caps_choose_lanes_and_pool)
{
    gs_engine_config cfg;
    et_config(&cfg);
    cfg.direct = 1;
    cfg.synth_threads = 2;
    cfg.queue_depth = 1;
    cfg.pin_pool = 3;
    gs_err err;
    gs_err_clear(&err);
    gs_backend_ops ops;
    et_run r;
    memset(&r, 0, sizeof r);
    atomic_store(&n_alloc, 0);
    atomic_store(&n_free, 0);
    GS_REQUIRE(gs_backend_cpu_create(&r.be, 1, &err) == GS_OK);
    GS_REQUIRE(gs_timeline_create(&r.tl) == GS_OK);
    const gs_backend_ops *cpu_ops = r.be->ops;
    as_gpu(r.be, &ops);
    if (gs_engine_create(&r.e, &cfg, &r.be, 1, r.tl, &err) != GS_OK) {
        gs_test_fail(__FILE__, __LINE__, "engine: %s", err.msg);
        goto done;
    }
    et_direct_pool_jobs(r.e);
    et_stop(&r);
    /* The pool came from the backend's allocator (pin spans say page-locked)
     * and went back to it; the device lanes are a GPU's. */
    et_direct_pool_spans(r.tl, 1);
    GS_CHECK_MSG(atomic_load(&n_alloc) >= 4 && atomic_load(&n_alloc) == atomic_load(&n_free),
                 "%d assignments from the backend's allocator, %d freed", atomic_load(&n_alloc),
                 atomic_load(&n_free));
    GS_CHECK(has_lane(r.tl, "gpu0/stream0"));
    GS_CHECK(!has_lane(r.tl, "cpu0/stream0"));
    GS_CHECK(!strcmp(gs_timeline_meta_get(r.tl, "backend"), "cpu")); /* the name stays a label */
done:
    if (r.be)
        r.be->ops = cpu_ops;
    et_free(&r);
}

/* The same CPU backend as it is: heap buffers (not from the counting
 * allocator) and cpu lanes. */
GS_TEST(engine_caps_host_kind_keeps_cpu_lanes)
{
    gs_engine_config cfg;
    et_config(&cfg);
    cfg.direct = 1;
    cfg.pin_pool = 2;
    et_run r;
    atomic_store(&n_alloc, 0);
    if (!et_start(&r, &cfg, 0))
        goto done;
    et_submit(r.e, GS_KIND_POREP_C2, 1, 2);
    GS_CHECK_OK(gs_engine_drain(r.e, ET_DRAIN_NS));
    et_stop(&r);
    GS_CHECK_EQ_INT(atomic_load(&n_alloc), 0);
    GS_CHECK(has_lane(r.tl, "cpu0/stream0"));
    GS_CHECK(!has_lane(r.tl, "gpu0/stream0"));
done:
    et_free(&r);
}

/* One pool per engine: staging = direct over backends of two kinds (one
 * with its own allocator) is refused, naming both; without direct the
 * same pair is accepted. */
GS_TEST(engine_caps_direct_needs_one_kind)
{
    gs_engine_config cfg;
    et_config(&cfg);
    cfg.direct = 1;
    gs_err err;
    gs_err_clear(&err);
    gs_backend *be[2] = {NULL, NULL};
    gs_backend_ops ops;
    GS_REQUIRE(gs_backend_cpu_create(&be[0], 1, &err) == GS_OK);
    GS_REQUIRE(gs_backend_cpu_create(&be[1], 1, &err) == GS_OK);
    const gs_backend_ops *cpu_ops = be[1]->ops;
    as_gpu(be[1], &ops);
    GS_CHECK_EQ_INT(gs_engine_config_check(&cfg, be, 2, &err), GS_ERR_ARG);
    GS_CHECK(strstr(err.msg, "one backend kind") != NULL);
    gs_err_clear(&err);
    cfg.direct = 0;
    GS_CHECK_OK(gs_engine_config_check(&cfg, be, 2, &err));
    be[1]->ops = cpu_ops;
    be[0]->ops->destroy(be[0]);
    be[1]->ops->destroy(be[1]);
}
