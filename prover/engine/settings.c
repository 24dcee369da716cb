/*
 * The engine's settings table (settings.h): defaults, values set from text
 * as a scenario writes them, and the range checks of gs_engine_create.
 * Every default of gs_engine_config that a scenario can set is the text in
 * its row, parsed the way a scenario's value is (common/ini.h's typed
 * values), so the engine and `gapscope run` start from the same settings.
 *
 * No threads, no state.
 */
#include <string.h>

#include "../../common/ini.h"
#include "engine_int.h"

static const gs_engine_setting_def settings[] = {
#define GS_X(id, k, t, d, lo, hi, ch, h) {k, GS_SETTING_##t, d, lo, hi, ch, h},
    GS_ENGINE_SETTINGS(GS_X)
#undef GS_X
};
_Static_assert(sizeof settings / sizeof settings[0] == GS_ESET_COUNT, "settings table out of step");

const gs_engine_setting_def *gs_engine_setting_get(gs_engine_setting s)
{
    return (unsigned)s < GS_ESET_COUNT ? &settings[s] : NULL;
}

int gs_engine_config_set(gs_engine_config *cfg, gs_engine_setting s, const char *text)
{
    const gs_engine_setting_def *d = gs_engine_setting_get(s);
    long long v = 0;
    uint64_t u = 0;
    int ci = 0;
    if (!d)
        return 0;
    switch (d->type) {
    case GS_SETTING_INT:
        if (!gs_ini_int(&v, text, d->lo, d->hi))
            return 0;
        break;
    case GS_SETTING_U64:
        if (!gs_ini_u64(&u, text))
            return 0;
        break;
    case GS_SETTING_ENUM:
        if (!gs_ini_choice(&ci, d->choices, text))
            return 0;
        break;
    default:
        return 0;
    }
    switch (s) {
    case GS_ESET_SYNTH_THREADS: cfg->synth_threads = (int)v; break;
    case GS_ESET_GPU_WORKERS: cfg->gpu_workers_per_device = (int)v; break;
    case GS_ESET_FINALIZER_THREADS: cfg->finalizer_threads = (int)v; break;
    case GS_ESET_QUEUE_DEPTH: cfg->queue_depth = (int)v; break;
    case GS_ESET_PROVE_THREADS: cfg->prove_threads = (int)v; break;
    case GS_ESET_TRIM: cfg->trim = (gs_trim_policy)ci; break;
    case GS_ESET_VERIFY: cfg->verify = (gs_verify_policy)ci; break;
    case GS_ESET_STAGING: cfg->pageable = ci == 1; cfg->direct = ci == 2; break;
    case GS_ESET_PIN_POOL: cfg->pin_pool = (int)v; break;
    case GS_ESET_G2: cfg->g2_on_device = ci == 1; break;
    case GS_ESET_FINISH: cfg->finish_in_worker = ci == 1; break;
    case GS_ESET_PREP: cfg->prep_ahead = ci == 1; break;
    case GS_ESET_H_CONVENTION: cfg->h_conv = (gs_h_convention)ci; break;
    case GS_ESET_SEED: cfg->seed = u; break;
    default: return 0;
    }
    return 1;
}

/* The value of an INT setting in cfg (-1 for other settings). */
static long long int_value(const gs_engine_config *cfg, gs_engine_setting s)
{
    switch (s) {
    case GS_ESET_SYNTH_THREADS: return cfg->synth_threads;
    case GS_ESET_GPU_WORKERS: return cfg->gpu_workers_per_device;
    case GS_ESET_FINALIZER_THREADS: return cfg->finalizer_threads;
    case GS_ESET_QUEUE_DEPTH: return cfg->queue_depth;
    case GS_ESET_PROVE_THREADS: return cfg->prove_threads;
    case GS_ESET_PIN_POOL: return cfg->pin_pool;
    default: return -1;
    }
}

gs_status gs_engine_settings_check(const gs_engine_config *cfg, gs_err *err)
{
    for (int s = 0; s < GS_ESET_COUNT; s++) {
        const gs_engine_setting_def *d = &settings[s];
        if (d->type != GS_SETTING_INT)
            continue;
        long long v = int_value(cfg, (gs_engine_setting)s);
        if (v < (long long)d->lo || v > (long long)d->hi)
            return GS_ERR(err, GS_ERR_RANGE, "engine", "%s %lld not in %g..%g", d->key, v, d->lo, d->hi);
    }
    return GS_OK;
}

void gs_engine_config_defaults(gs_engine_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    for (int s = 0; s < GS_ESET_COUNT; s++)
        gs_engine_config_set(cfg, (gs_engine_setting)s, settings[s].def);
    for (int i = 0; i < GS_INJ_COUNT; i++) {
        cfg->inj[i].dist.kind = GS_DIST_FIXED;
        cfg->inj[i].probability = 1.0;
        cfg->inj[i].seed = gs_injection_seed_auto(cfg->seed, (gs_inj_point)i);
    }
}
