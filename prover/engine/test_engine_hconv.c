/*
 * The engine's H convention (cfg.h_conv): the keys it sets up carry it, and
 * their proofs verify against the verifying key rebuilt independently (the
 * convention never changes the vk).  An out-of-range convention is refused.
 */
#include "engine_test.h"

GS_TEST(engine_classic_keys_prove_and_verify)
{
    gs_engine_config cfg;
    et_config(&cfg);
    cfg.h_conv = GS_H_CLASSIC;
    et_run r;
    if (!et_start(&r, &cfg, 1))
        goto done;
    GS_REQUIRE(et_submit(r.e, GS_KIND_POREP_C2, 7, 2));
    GS_CHECK_OK(gs_engine_drain(r.e, ET_DRAIN_NS));
    size_t n;
    int count;
    const gs_job_result *res = gs_engine_results(r.e, &n);
    const gs_job_result *x = et_find(res, n, 7, &count);
    GS_REQUIRE(x && count == 1);
    GS_CHECK_MSG(x->status == GS_OK, "job: %s", x->error);
    GS_CHECK_EQ_INT(x->verified, 1);
    GS_CHECK(et_verify_independent(x));
    /* Drained: the key list is quiescent. */
    GS_REQUIRE(r.e->keys.head != NULL);
    GS_CHECK_EQ_INT(r.e->keys.head->pk.h_conv, GS_H_CLASSIC);
done:
    et_free(&r);
}

GS_TEST(engine_h_convention_out_of_range_refused)
{
    gs_engine_config cfg;
    et_config(&cfg);
    cfg.h_conv = GS_H_CONV_COUNT;
    gs_backend *be = NULL;
    gs_engine *e = NULL;
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(gs_backend_cpu_create(&be, 1, &err) == GS_OK);
    GS_CHECK_EQ_INT(gs_engine_create(&e, &cfg, &be, 1, NULL, &err), GS_ERR_RANGE);
    GS_CHECK(e == NULL && strstr(err.msg, "H convention"));
    be->ops->destroy(be);
}
