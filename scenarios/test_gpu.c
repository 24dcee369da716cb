/*
 * The [gpu] section: the CUDA backend's knobs (prover/cuda/knobs.h) as
 * scenario keys.  Values parse by the knob table (bad ones name file:line),
 * a knob's environment variable overrides the scenario (origin
 * "environment ..."), the dump reloads, and a run records every knob in
 * effect as scenario.gpu.* metadata and leaves the knob store at its
 * defaults afterwards.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../test/test.h"
#include "../timeline/timeline.h"
#include "scenario.h"
#include "test_scn_util.h"

GS_TEST(scenario_gpu_section)
{
    gs_scenario *s = NULL;
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(getenv("GS_CU_NTT_TILE") == NULL && getenv("GS_CU_FV") == NULL);
    GS_REQUIRE(gs_scenario_new(&s, &err) == GS_OK);
    for (int k = 0; k < GS_CU_KNOB_COUNT; k++)
        GS_CHECK_EQ_INT(s->gpu[k], gs_cu_knob_default((gs_cu_knob_id)k));
    GS_CHECK_OK(gs_scenario_parse_text(s, "[gpu]\nntt_tile = 10\nmsm_fv = 0x7\nstream_order = old\n", "g.ini", &err));
    GS_CHECK_EQ_INT(s->gpu[GS_CU_K_NTT_TILE], 10);
    GS_CHECK_EQ_INT(s->gpu[GS_CU_K_MSM_FV], 7);
    GS_CHECK_EQ_INT(s->gpu[GS_CU_K_STREAM_ORDER], 1);
    GS_CHECK(!strcmp(gs_scenario_setting_value(s, "gpu.ntt_tile"), "10"));
    GS_CHECK(!strcmp(gs_scenario_setting_origin(s, "gpu.ntt_tile"), "g.ini:2"));
    GS_CHECK(!strcmp(gs_scenario_setting_origin(s, "gpu.msm_c"), "default"));
    /* The environment over the file. */
    setenv("GS_CU_NTT_TILE", "12", 1);
    GS_CHECK_OK(gs_scenario_validate(s, &err));
    GS_CHECK_EQ_INT(s->gpu[GS_CU_K_NTT_TILE], 12);
    GS_CHECK(!strcmp(gs_scenario_setting_origin(s, "gpu.ntt_tile"), "environment GS_CU_NTT_TILE"));
    setenv("GS_CU_NTT_TILE", "8", 1);
    GS_CHECK_EQ_INT(gs_scenario_validate(s, &err), GS_ERR_RANGE);
    GS_CHECK(strstr(err.msg, "environment GS_CU_NTT_TILE") && strstr(err.msg, "[9, 12]"));
    unsetenv("GS_CU_NTT_TILE");
    gs_scenario_destroy(s);
    /* Bad values and keys name the file and line. */
    static const struct { const char *text, *want; } bad[] = {
        {"[gpu]\n\nntt_threads = 96\n", "b.ini:3"},
        {"[gpu]\nmsm_s1 = 100\n", "power of two"},
        {"[gpu]\nntt_impl = newer\n", "one of new|old"},
        {"[gpu]\nntt_tiles = 10\n", "unknown key 'ntt_tiles' in [gpu]"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gs_err_clear(&err);
        GS_REQUIRE(gs_scenario_new(&s, &err) == GS_OK);
        GS_CHECK_MSG(gs_scenario_parse_text(s, bad[i].text, "b.ini", &err) != GS_OK && strstr(err.msg, bad[i].want),
                     "%s: %s", bad[i].text, err.msg);
        gs_scenario_destroy(s);
    }
}

/* A tiny CPU run with [gpu] keys: scenario.gpu.* in the capture's metadata
 * (every knob), the dump reloads to the same values, the knob store is back
 * at its defaults after the run. */
GS_TEST(scenario_gpu_knobs_in_metadata)
{
    const char *text =
        "[engine]\nsynth_threads = 1\nprove_threads = 1\nseed = 3\ntrim = under_lock\nverify = under_lock\n"
        "[jobs]\nkinds = circuit:1\ncount = 1\ninterarrival = fixed:1ms\nsize_map = circuit:9\n"
        "[gpu]\nntt_cols = 2\nmsm_t = 4\n";
    char dir[600], p[1200];
    gs_run_result r;
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(getenv("GS_CU_NTT_COLS") == NULL && getenv("GS_CU_MSM_T") == NULL);
    GS_REQUIRE(ts_run_text(text, "gpu.ini", "gpu", 1, &r, dir, sizeof dir));
    GS_CHECK_EQ_INT(gs_cu_knob(GS_CU_K_NTT_COLS), 3);
    GS_CHECK_EQ_INT(gs_cu_knob(GS_CU_K_MSM_T), GS_CU_AUTO);
    snprintf(p, sizeof p, "%s/spans.csv", dir);
    gs_timeline *tl = NULL;
    GS_REQUIRE(gs_timeline_read_csv(&tl, p, &err) == GS_OK);
    for (int k = 0; k < GS_CU_KNOB_COUNT; k++) {
        char key[96];
        snprintf(key, sizeof key, "scenario.gpu.%s", gs_cu_knob_def_of((gs_cu_knob_id)k)->key);
        GS_CHECK_MSG(gs_timeline_meta_get(tl, key) != NULL, "%s missing", key);
    }
    GS_CHECK(!strcmp(gs_timeline_meta_get(tl, "scenario.gpu.ntt_cols"), "2"));
    GS_CHECK(!strcmp(gs_timeline_meta_get(tl, "scenario.gpu.msm_t"), "4"));
    GS_CHECK(!strcmp(gs_timeline_meta_get(tl, "scenario.gpu.ntt_tile"), "11"));
    gs_timeline_destroy(tl);
    gs_scenario *s = NULL;
    snprintf(p, sizeof p, "%s/scenario.ini", dir);
    GS_REQUIRE(gs_scenario_load(&s, p, &err) == GS_OK);
    GS_CHECK_EQ_INT(s->gpu[GS_CU_K_NTT_COLS], 2);
    GS_CHECK_EQ_INT(s->gpu[GS_CU_K_MSM_T], 4);
    GS_CHECK_EQ_INT(s->gpu[GS_CU_K_NTT_TILE], 11);
    gs_scenario_destroy(s);
}
