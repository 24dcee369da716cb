/*
 * The scenario key engine.h_convention: parsed and validated through the
 * option table, and a tiny real run whose keys are classic-convention keys
 * (groth16.h) proves and self-verifies every job.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../test/test.h"
#include "run.h"
#include "test_scn_util.h"

GS_TEST(scenario_h_convention_key)
{
    gs_scenario *s;
    gs_err err;
    GS_REQUIRE(ts_parse(&s, "[engine]\nseed = 3\n", "d.ini", &err));
    GS_CHECK_EQ_INT(s->engine.h_conv, GS_H_SNARKJS);   /* the default */
    GS_CHECK_OK(gs_scenario_set(s, "engine.h_convention=classic", "--set", &err));
    GS_CHECK_EQ_INT(s->engine.h_conv, GS_H_CLASSIC);
    GS_CHECK_OK(gs_scenario_set(s, "engine.h_convention=snarkjs", "--set", &err));
    GS_CHECK_EQ_INT(s->engine.h_conv, GS_H_SNARKJS);
    gs_err_clear(&err);
    GS_CHECK(gs_scenario_set(s, "engine.h_convention=bellman", "--set", &err) != GS_OK);
    GS_CHECK_MSG(strstr(err.msg, "snarkjs|classic") != NULL, "message: %s", err.msg);
    gs_scenario_destroy(s);
}

GS_TEST(scenario_classic_keys_run_and_verify)
{
    const char *text =
        "[engine]\nsynth_threads = 1\ngpu_workers = 1\nprove_threads = 1\nseed = 5\n"
        "h_convention = classic\n"
        "[jobs]\nkinds = circuit:1\ncount = 1\ninterarrival = fixed:1ms\nsize_map = circuit:9\n"
        "replay = afap\n";
    char dir[600];
    gs_run_result r;
    GS_REQUIRE(ts_run_text(text, "classic.ini", "run", 0, &r, dir, sizeof dir));
    GS_CHECK_EQ_INT(r.completed, 1);
    GS_CHECK_EQ_INT(r.failed, 0);
    GS_CHECK_EQ_INT(r.verified, 1);
    /* The convention is in the run's settings dump. */
    char p[1200], line[512];
    int seen = 0;
    snprintf(p, sizeof p, "%s/scenario.ini", dir);
    FILE *f = fopen(p, "r");
    GS_REQUIRE(f != NULL);
    while (fgets(line, sizeof line, f))
        seen |= strstr(line, "h_convention") && strstr(line, "classic");
    fclose(f);
    GS_CHECK(seen);
}
