/*
 * Test helpers for scenarios/ (included by its test files only): load and
 * validate a scenario file; parse, validate and run a scenario given as
 * text.
 */
#ifndef GS_TEST_SCN_UTIL_H
#define GS_TEST_SCN_UTIL_H

#include <stdio.h>

#include "../test/test.h"
#include "run.h"
#include "scenario.h"

/* Loads the scenario file at path, and validates it when validate is set:
 * the status, with *s (NULL when loading failed) and err as the calls left
 * them.  The caller destroys *s. */
static inline gs_status ts_load(gs_scenario **s, const char *path, int validate, gs_err *err)
{
    *s = NULL;
    gs_err_clear(err);
    gs_status st = gs_scenario_load(s, path, err);
    if (st == GS_OK && validate)
        st = gs_scenario_validate(*s, err);
    return st;
}

/* *s = a new scenario parsed from text (named name in messages), err
 * cleared first.  Returns 1; otherwise fails the test with the error and
 * returns 0 with *s NULL. */
static inline int ts_parse(gs_scenario **s, const char *text, const char *name, gs_err *err)
{
    gs_err_clear(err);
    gs_status st = gs_scenario_new(s, err);
    if (st == GS_OK && (st = gs_scenario_parse_text(*s, text, name, err)) != GS_OK) {
        gs_scenario_destroy(*s);
        *s = NULL;
    }
    if (st != GS_OK) gs_test_fail(__FILE__, __LINE__, "%s: %s", name, err->msg);
    return st == GS_OK;
}

/* Runs `text` (named `name` in messages) quietly into <test tmpdir>/<sub>,
 * written to dir.  Returns 1 when it ran; otherwise fails the test with
 * the error and returns 0. */
static inline int ts_run_text(const char *text, const char *name, const char *sub, int no_report,
                              gs_run_result *r, char *dir, size_t dir_cap)
{
    gs_scenario *s = NULL;
    gs_err err;
    gs_err_clear(&err);
    snprintf(dir, dir_cap, "%s/%s", gs_test_tmpdir(), sub);
    gs_status st = gs_scenario_new(&s, &err);
    if (st == GS_OK) st = gs_scenario_parse_text(s, text, name, &err);
    if (st == GS_OK) st = gs_scenario_validate(s, &err);
    if (st == GS_OK) {
        gs_run_opts o = {.out_dir = dir, .quiet = 1, .no_report = no_report};
        st = gs_scn_run(s, &o, r, &err);
    }
    gs_scenario_destroy(s);
    if (st != GS_OK) gs_test_fail(__FILE__, __LINE__, "%s: %s", name, err.msg);
    return st == GS_OK;
}

#endif
