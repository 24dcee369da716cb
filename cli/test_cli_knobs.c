/*
 * The GPU tuning knobs at the front doors ($GS_BIN): every knob and its
 * environment variable are listed by `gapscope run --help` (as [gpu] keys)
 * and `gapscope cuda-bench --help` (as flags); a bad value, on the command
 * line or in the environment, exits 2 naming it; a sweep of cuda-bench
 * (--variants, --h2d, --sets) refuses an environment override of the knob
 * it sets, and --sets refuses knobs read once and malformed sets.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../prover/cuda/knobs.h"
#include "../test/test.h"

GS_TEST(cli_knobs_listed_in_help)
{
    static char out[65536];
    char cmd[1024], flag[64];
    GS_TEST_NEED_BIN();
    snprintf(cmd, sizeof cmd, "%s run --help 2>&1", gs_test_bin());
    GS_REQUIRE(gs_test_run(cmd, out, sizeof out) == 0);
    const char *gpu = strstr(out, "\n[gpu]");
    GS_REQUIRE(gpu != NULL);
    for (int k = 0; k < GS_CU_KNOB_COUNT; k++) {
        const gs_cu_knob_def *d = gs_cu_knob_def_of((gs_cu_knob_id)k);
        GS_CHECK_MSG(strstr(gpu, d->key) && strstr(gpu, d->env), "run --help: %s / %s", d->key, d->env);
    }
    snprintf(cmd, sizeof cmd, "%s cuda-bench --help 2>&1", gs_test_bin());
    GS_REQUIRE(gs_test_run(cmd, out, sizeof out) == 0);
    for (int k = 0; k < GS_CU_KNOB_COUNT; k++) {
        const gs_cu_knob_def *d = gs_cu_knob_def_of((gs_cu_knob_id)k);
        snprintf(flag, sizeof flag, "--%s ", d->key);
        for (char *c = flag; *c; c++)
            *c = *c == '_' ? '-' : *c;
        GS_CHECK_MSG(strstr(out, flag) && strstr(out, d->env), "cuda-bench --help: %s/ %s", flag, d->env);
    }
}

GS_TEST(cli_knobs_bad_values_exit_2)
{
    static const struct { const char *args, *want; } cases[] = {
        /* a knob flag out of range, and one without its value */
        {"cuda-bench --ntt 10 --ntt-tile 13", "--ntt-tile 13: expected an integer in [9, 12]"},
        {"cuda-bench --ntt 10 --msm-s1", "usage: gapscope cuda-bench"},
        {"cuda-bench --stream-order newer", "expected one of new|old"},
        /* the environment, checked before any device work */
        {"env GS_CU_MSM_C=3 %s cuda-bench --ntt 10", "GS_CU_MSM_C=3: expected auto or an integer in [4, 24]"},
        {"env GS_CU_PRIO=x %s run scenarios/demo.ini --dry-run", "environment GS_CU_PRIO"},
        /* a sweep that an override would void */
        {"env GS_CU_FV=7 %s cuda-bench --msm 12 --variants 0/1,7/3", "unset GS_CU_FV"},
        {"env GS_CU_COPY_THREADS=4 %s cuda-bench --h2d 20", "unset GS_CU_COPY_THREADS"},
        {"cuda-bench --msm 12 --variants 7/0", "usage: gapscope cuda-bench"},
        {"run scenarios/demo.ini --dry-run --set gpu.msm_fv=256", "msm_fv: expected an integer in [0, 255]"},
        /* --sets: a bad value, an unknown knob, one read once, an empty set,
         * and a knob the environment would override */
        {"cuda-bench --msm 12 --sets 'default;msm_ba=2'", "set 2: msm_ba=2: expected an integer in [0, 1]"},
        {"cuda-bench --msm 12 --sets 'msm_bb=1'", "set 1: no knob 'msm_bb'"},
        {"cuda-bench --prove 12 --sets 'default;key_copies=4'", "key_copies is read once"},
        {"cuda-bench --msm 12 --sets 'default;;msm_ba=1'", "set 2 is empty"},
        {"cuda-bench --msm 12 --sets 'msm_glv'", "expected KEY=VALUE"},
        {"env GS_CU_MSM_BA=1 %s cuda-bench --msm 12 --sets 'default;msm_ba=0'", "unset GS_CU_MSM_BA"},
    };
    static char out[16384];
    char cmd[2048];
    GS_TEST_NEED_BIN();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (!strncmp(cases[i].args, "env ", 4)) {
            char fmt[1024];
            snprintf(fmt, sizeof fmt, "%s 2>&1", cases[i].args);
            snprintf(cmd, sizeof cmd, fmt, gs_test_bin());
        } else {
            snprintf(cmd, sizeof cmd, "%s %s 2>&1", gs_test_bin(), cases[i].args);
        }
        int rc = gs_test_run(cmd, out, sizeof out);
        GS_CHECK_MSG(rc == 2 && strstr(out, cases[i].want), "%s: exit %d, output: %.300s", cases[i].args, rc, out);
    }
}

/* The line of text that starts with start (its newline included), or "". */
static void line_of(char *dst, size_t cap, const char *text, const char *start)
{
    const char *p = strstr(text, start);
    dst[0] = 0;
    if (p)
        snprintf(dst, cap, "%.*s", (int)strcspn(p + 1, "\n") + 1, p);
}

/* Settings in effect: a [gpu] value from the command line and one from the
 * environment, with their origins, in the dry run's dump. */
GS_TEST(cli_knobs_dry_run_shows_origin)
{
    static char out[65536];
    char cmd[1024];
    GS_TEST_NEED_BIN();
    snprintf(cmd, sizeof cmd, "env GS_CU_NTT_COLS=2 %s run scenarios/demo.ini --dry-run --set gpu.ntt_mul=generic 2>&1",
             gs_test_bin());
    GS_REQUIRE(gs_test_run(cmd, out, sizeof out) == 0);
    GS_CHECK(strstr(out, "[gpu]") != NULL);
    char m[256], c[256];
    line_of(m, sizeof m, out, "\nntt_mul ");
    line_of(c, sizeof c, out, "\nntt_cols ");
    GS_CHECK_MSG(strstr(m, "= generic") && strstr(m, "; --set"), "%s", m);
    GS_CHECK_MSG(strstr(c, "= 2") && strstr(c, "; environment GS_CU_NTT_COLS"), "%s", c);
}
