/*
 * The GPU tuning knobs (knobs.h), on any machine: the table (every default
 * parses and equals the value the kernels had before the table, keys and
 * environment names unique), parsing and formatting, and the precedence of
 * the value in effect (environment over configured over default), with an
 * invalid environment value ignored by the kernels and reported by
 * gs_cu_knobs_env_check.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "../../test/test.h"
#include "knobs.h"

/* The values the kernels used before the table (getenv defaults in
 * cu_ntt.cu, cu_msm.cu, cu_fieldops.cu, cu_ctx.cu, backend_cuda.c). */
static const struct { gs_cu_knob_id k; int v; } was[] = {
    {GS_CU_K_NTT_IMPL, 0},           /* not "old" */
    {GS_CU_K_NTT_MUL, 0},            /* fr_mul_fast, not "generic" */
    {GS_CU_K_NTT_TILE, 11},
    {GS_CU_K_NTT_COLS, 3},
    {GS_CU_K_NTT_THREADS, 128},
    {GS_CU_K_NTT_R4, GS_CU_AUTO},    /* r4 = 2: every size but 2^22 */
    {GS_CU_K_NTT_ORDER, 1},
    {GS_CU_K_MSM_FV, 127},           /* CU_FV_DEFAULT */
    {GS_CU_K_MSM_MINB, 3},
    {GS_CU_K_MSM_S1, GS_CU_AUTO},    /* 128 from 2^29 entries, else MSM_S1 */
    {GS_CU_K_MSM_FLAT, 1},
    {GS_CU_K_MSM_CMAX, GS_CU_AUTO},  /* 20, 22 over 2^23..2^25 with 6+ copies, 22 / 24 wide */
    {GS_CU_K_MSM_C, GS_CU_AUTO},
    {GS_CU_K_MSM_WIN, 0},            /* issue 33 (2026-12-06): c = 20 from 2^24 without copies */
    {GS_CU_K_MSM_SEG, 32},           /* MSM_SEG */
    {GS_CU_K_MSM_T, GS_CU_AUTO},
    {GS_CU_K_MSM_GLV, 0},            /* issue 33: off until measured */
    {GS_CU_K_MSM_BA, 0},
    {GS_CU_K_MSM_BAT, 0},            /* issue 33: off until measured */
    {GS_CU_K_MSM_BAT_S, 32},
    {GS_CU_K_MSM_BAT_G, GS_CU_AUTO}, /* as many as 16 GiB of lists hold */
    {GS_CU_K_MSM_BAT_INV, 0},        /* divsteps (round 3 session 17) */
    {GS_CU_K_MSM_KMUL, 0},           /* issue 33: off until measured */
    {GS_CU_K_MSM_FMUL, 0},           /* issue 33: off until measured */
    {GS_CU_K_KEY_COPIES, 16},
    {GS_CU_K_B2_COPIES, 16},         /* issue 33 (round 3 session 15): B2 with copies */
    {GS_CU_K_STREAM_ORDER, 0},       /* not "old" */
    {GS_CU_K_H_FIRST, 0},            /* the witness MSMs beside the H chain */
    {GS_CU_K_STREAM_PRIO, 1},        /* highest */
    {GS_CU_K_COPY_THREADS, 8},       /* PAR_COPY_DEFAULT */
    {GS_CU_K_HOST_SYNC, 0},          /* auto: the runtime's spin-while-cores-spare */
};

GS_TEST(cuda_knobs_table_defaults)
{
    GS_CHECK_EQ_INT((int)(sizeof was / sizeof was[0]), GS_CU_KNOB_COUNT);
    for (size_t i = 0; i < sizeof was / sizeof was[0]; i++) {
        const gs_cu_knob_def *d = gs_cu_knob_def_of(was[i].k);
        int v = -2;
        GS_CHECK_MSG(gs_cu_knob_parse(was[i].k, d->def, &v), "%s: default '%s' does not parse", d->key, d->def);
        GS_CHECK_MSG(v == was[i].v && gs_cu_knob_default(was[i].k) == was[i].v, "%s: default %d, was %d",
                     d->key, v, was[i].v);
    }
    for (int a = 0; a < GS_CU_KNOB_COUNT; a++) {
        const gs_cu_knob_def *d = gs_cu_knob_def_of((gs_cu_knob_id)a);
        GS_CHECK_MSG(!strncmp(d->env, "GS_CU_", 6) && d->help && d->help[0] && d->lo <= d->hi, "%s", d->key);
        GS_CHECK_EQ_INT(gs_cu_knob_find(d->key), a);
        for (int b = a + 1; b < GS_CU_KNOB_COUNT; b++) {
            GS_CHECK(strcmp(d->key, gs_cu_knob_def_of((gs_cu_knob_id)b)->key) != 0);
            GS_CHECK(strcmp(d->env, gs_cu_knob_def_of((gs_cu_knob_id)b)->env) != 0);
        }
    }
}

GS_TEST(cuda_knobs_parse_and_format)
{
    int v;
    char t[32];
    GS_CHECK(gs_cu_knob_parse(GS_CU_K_NTT_TILE, "9", &v) && v == 9);
    GS_CHECK(!gs_cu_knob_parse(GS_CU_K_NTT_TILE, "13", &v));
    GS_CHECK(!gs_cu_knob_parse(GS_CU_K_NTT_TILE, "11x", &v));
    GS_CHECK(!gs_cu_knob_parse(GS_CU_K_NTT_TILE, "", &v));
    GS_CHECK(!gs_cu_knob_parse(GS_CU_K_NTT_TILE, "-10", &v));
    GS_CHECK(!gs_cu_knob_parse(GS_CU_K_NTT_TILE, "auto", &v));
    GS_CHECK(gs_cu_knob_parse(GS_CU_K_MSM_FV, "0x20", &v) && v == 32);
    GS_CHECK(gs_cu_knob_parse(GS_CU_K_NTT_THREADS, "256", &v) && v == 256);
    GS_CHECK(!gs_cu_knob_parse(GS_CU_K_NTT_THREADS, "192", &v));         /* not a power of two */
    GS_CHECK(gs_cu_knob_parse(GS_CU_K_MSM_S1, "auto", &v) && v == GS_CU_AUTO);
    GS_CHECK(!gs_cu_knob_parse(GS_CU_K_MSM_S1, "96", &v));
    GS_CHECK(gs_cu_knob_parse(GS_CU_K_STREAM_ORDER, "old", &v) && v == 1);
    GS_CHECK(!gs_cu_knob_parse(GS_CU_K_STREAM_ORDER, "1", &v));
    GS_CHECK(!gs_cu_knob_parse(GS_CU_K_STREAM_ORDER, "ol", &v));
    gs_cu_knob_format(GS_CU_K_NTT_MUL, 1, t, sizeof t);
    GS_CHECK(!strcmp(t, "generic"));
    gs_cu_knob_format(GS_CU_K_MSM_C, GS_CU_AUTO, t, sizeof t);
    GS_CHECK(!strcmp(t, "auto"));
    gs_cu_knob_format(GS_CU_K_MSM_C, 18, t, sizeof t);
    GS_CHECK(!strcmp(t, "18"));
    GS_CHECK_EQ_INT(gs_cu_knob_find("copy-threads"), GS_CU_K_COPY_THREADS);
    GS_CHECK_EQ_INT(gs_cu_knob_find("copy_thread"), -1);
    gs_cu_knob_expects(GS_CU_K_MSM_S1, t, sizeof t);
    GS_CHECK(strstr(t, "auto") && strstr(t, "power of two"));
}

/* Environment over configured over default; an invalid environment value
 * counts as unset for the kernels and is an error for env_check. */
GS_TEST(cuda_knobs_precedence)
{
    const char *env = gs_cu_knob_def_of(GS_CU_K_NTT_TILE)->env;
    const char *saved = getenv(env);
    char keep[64] = "";
    if (saved)
        snprintf(keep, sizeof keep, "%s", saved);
    gs_err e;
    gs_err_clear(&e);
    unsetenv(env);
    gs_cu_knobs_reset();
    GS_CHECK_EQ_INT(gs_cu_knob(GS_CU_K_NTT_TILE), 11);
    gs_cu_knob_set(GS_CU_K_NTT_TILE, 10);
    GS_CHECK_EQ_INT(gs_cu_knob(GS_CU_K_NTT_TILE), 10);
    setenv(env, "12", 1);
    GS_CHECK_EQ_INT(gs_cu_knob(GS_CU_K_NTT_TILE), 12);
    GS_CHECK(gs_cu_knob_env(GS_CU_K_NTT_TILE, NULL));
    GS_CHECK_OK(gs_cu_knobs_env_check(&e));
    setenv(env, "15", 1);
    GS_CHECK_EQ_INT(gs_cu_knob(GS_CU_K_NTT_TILE), 10);
    GS_CHECK_EQ_INT(gs_cu_knobs_env_check(&e), GS_ERR_FORMAT);
    GS_CHECK(strstr(e.msg, "GS_CU_NTT_TILE=15") && strstr(e.msg, "[9, 12]"));
    unsetenv(env);
    gs_cu_knobs_reset();
    GS_CHECK_EQ_INT(gs_cu_knob(GS_CU_K_NTT_TILE), 11);
    if (saved)
        setenv(env, keep, 1);
    const char *oenv = gs_cu_knob_def_of(GS_CU_K_STREAM_ORDER)->env, *osaved = getenv(oenv);
    char okeep[64] = "";
    if (osaved)
        snprintf(okeep, sizeof okeep, "%s", osaved);
    setenv(oenv, "old", 1);
    GS_CHECK(gs_cu_knob_is(GS_CU_K_STREAM_ORDER, "old") && !gs_cu_knob_is(GS_CU_K_STREAM_ORDER, "new"));
    unsetenv(oenv);
    GS_CHECK(gs_cu_knob_is(GS_CU_K_STREAM_ORDER, "new"));
    if (osaved)
        setenv(oenv, okeep, 1);
}
