/*
 * The settings table (settings.h): every row's default is a value of its
 * own type, gs_engine_config_set refuses what a scenario would refuse and
 * stores what it accepts, and gs_engine_create checks the table's ranges.
 */
#include <stdio.h>
#include <string.h>

#include "engine_test.h"

GS_TEST(engine_settings_table)
{
    gs_engine_config a, b;
    gs_engine_config_defaults(&a);
    for (int s = 0; s < GS_ESET_COUNT; s++) {
        const gs_engine_setting_def *d = gs_engine_setting_get((gs_engine_setting)s);
        GS_REQUIRE(d && d->key && d->def && d->help);
        GS_CHECK_MSG((d->type == GS_SETTING_ENUM) == (d->choices != NULL), "%s", d->key);
        /* Setting the default again changes nothing. */
        b = a;
        GS_CHECK_MSG(gs_engine_config_set(&b, (gs_engine_setting)s, d->def) && !memcmp(&a, &b, sizeof a),
                     "%s = %s", d->key, d->def);
        if (d->type == GS_SETTING_INT) {
            char t[32];
            snprintf(t, sizeof t, "%lld", (long long)d->hi + 1);
            GS_CHECK_MSG(!gs_engine_config_set(&b, (gs_engine_setting)s, t) && !memcmp(&a, &b, sizeof a),
                         "%s = %s accepted", d->key, t);
        }
        GS_CHECK(!gs_engine_config_set(&b, (gs_engine_setting)s, "nonsense"));
    }
    GS_CHECK(gs_engine_setting_get(GS_ESET_COUNT) == NULL);
    /* Values land in their fields. */
    GS_CHECK(gs_engine_config_set(&b, GS_ESET_STAGING, "direct") && b.direct && !b.pageable);
    GS_CHECK(gs_engine_config_set(&b, GS_ESET_TRIM, "background") && b.trim == GS_TRIM_BACKGROUND);
    GS_CHECK(gs_engine_config_set(&b, GS_ESET_SEED, "0x10") && b.seed == 16);
    GS_CHECK(gs_engine_config_set(&b, GS_ESET_PROVE_THREADS, "3") && b.prove_threads == 3);
    GS_CHECK_EQ_INT(a.prove_threads, 0); /* all cores, as `gapscope run` always had it */
    GS_CHECK(a.inj[GS_INJ_SYNTH].seed == gs_injection_seed_auto(a.seed, GS_INJ_SYNTH));
}

/* The choices of the enum rows are the engine's name tables, in order. */
GS_TEST(engine_settings_choices_match_name_tables)
{
    char t[256], v[256], h[256];
    t[0] = v[0] = h[0] = '\0';
    for (int i = 0; i < GS_TRIM_COUNT; i++)
        snprintf(t + strlen(t), sizeof t - strlen(t), "%s%s", i ? "|" : "", gs_trim_policy_name((gs_trim_policy)i));
    for (int i = 0; i < GS_VERIFY_COUNT; i++)
        snprintf(v + strlen(v), sizeof v - strlen(v), "%s%s", i ? "|" : "", gs_verify_policy_name((gs_verify_policy)i));
    for (int i = 0; i < GS_H_CONV_COUNT; i++)
        snprintf(h + strlen(h), sizeof h - strlen(h), "%s%s", i ? "|" : "", gs_h_convention_name((gs_h_convention)i));
    GS_CHECK_MSG(!strcmp(gs_engine_setting_get(GS_ESET_TRIM)->choices, t), "%s", t);
    GS_CHECK_MSG(!strcmp(gs_engine_setting_get(GS_ESET_VERIFY)->choices, v), "%s", v);
    GS_CHECK_MSG(!strcmp(gs_engine_setting_get(GS_ESET_H_CONVENTION)->choices, h), "%s", h);
}

GS_TEST(engine_settings_ranges_checked_at_create)
{
    gs_backend *be;
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(gs_backend_cpu_create(&be, 1, &err) == GS_OK);
    gs_engine_config cfg;
    et_config(&cfg);
    cfg.gpu_workers_per_device = 17;
    gs_engine *e = NULL;
    GS_CHECK_EQ_INT(gs_engine_create(&e, &cfg, &be, 1, NULL, &err), GS_ERR_RANGE);
    GS_CHECK_MSG(strstr(err.msg, "gpu_workers 17 not in 1..16") != NULL, "%s", err.msg);
    et_config(&cfg);
    cfg.prove_threads = -1;
    gs_err_clear(&err);
    GS_CHECK_EQ_INT(gs_engine_create(&e, &cfg, &be, 1, NULL, &err), GS_ERR_RANGE);
    GS_CHECK_MSG(strstr(err.msg, "prove_threads -1 not in 0..256") != NULL, "%s", err.msg);
    GS_CHECK(e == NULL);
    be->ops->destroy(be);
}
