/*
 * libFuzzer target: the gate's thresholds file (diag/gate_limits.c, what
 * `gapscope gate --thresholds FILE` reads), then the gate on a fixed run
 * (fuzz/seeds/cpu-run.spans.csv), single and paired (the run against
 * itself).  Invariant: a refused file names path:line; an accepted one
 * evaluates without error, and gate.json, read back with the JSON reader,
 * holds every check as evaluated (name, op, value and limit to the 10
 * digits written, pass) and the verdict; gate.junit.xml is written; no
 * "*.tmp.*" is left.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/json.h"
#include "../diag/gate.h"
#include "fz.h"

#define RUN "fuzz/seeds/cpu-run.spans.csv"

static gs_run run;

static void init(void)
{
    static int done;
    if (done)
        return;
    gs_analysis_config cfg;
    gs_analysis_config_defaults(&cfg);
    gs_err err;
    gs_err_clear(&err);
    if (gs_run_load(&run, RUN, &cfg, &err) != GS_OK)
        fz_fail("the fixed run does not load (run from the repository root): %s", err.msg);
    done = 1;
}

/* gate.json at path against res. */
static void same_result(const gs_gate_result *res, const char *path)
{
    gs_json *j = NULL;
    gs_err err;
    gs_err_clear(&err);
    if (gs_json_parse_file(&j, path, &err) != GS_OK)
        fz_fail("gate.json does not parse: %s", err.msg);
    const gs_json *pass = gs_json_get(j, "pass"), *mode = gs_json_get(j, "mode"),
                  *checks = gs_json_get(j, "checks");
    if (!pass || pass->type != GS_JSON_BOOL || pass->boolean != res->pass)
        fz_fail("gate.json: pass is not %d", res->pass);
    if (!mode || mode->type != GS_JSON_STRING || strcmp(mode->text, res->mode))
        fz_fail("gate.json: mode is not %s", res->mode);
    if (!checks || checks->type != GS_JSON_ARRAY || checks->n != res->n)
        fz_fail("gate.json: checks is not an array of %zu", res->n);
    for (size_t i = 0; i < res->n; i++) {
        const gs_gate_check *c = &res->checks[i];
        const gs_json *o = gs_json_at(checks, i);
        const gs_json *name = gs_json_get(o, "name"), *op = gs_json_get(o, "op"),
                      *p = gs_json_get(o, "pass");
        if (!name || name->type != GS_JSON_STRING || !fz_json_same(c->name, name->text))
            fz_fail("gate.json: checks[%zu].name is not '%s'", i, c->name);
        if (!op || op->type != GS_JSON_STRING || strcmp(op->text, c->op))
            fz_fail("gate.json: checks[%zu].op is not '%s'", i, c->op);
        if (!p || p->type != GS_JSON_BOOL || p->boolean != c->pass)
            fz_fail("gate.json: checks[%zu].pass is not %d", i, c->pass);
        char where[64];
        snprintf(where, sizeof where, "gate.json checks[%zu]", i);
        fz_json_num(o, "value", c->value, where);
        fz_json_num(o, "limit", c->limit, where);
    }
    gs_json_free(j);
}

static void write_and_check(const gs_gate_result *res)
{
    char json[800], xml[800];
    snprintf(json, sizeof json, "%s", fz_path("gate.json"));
    snprintf(xml, sizeof xml, "%s", fz_path("gate.junit.xml"));
    gs_err err;
    gs_err_clear(&err);
    if (gs_gate_write_json(res, json, &err) != GS_OK || gs_gate_write_junit(res, xml, &err) != GS_OK)
        fz_fail("gate outputs: %s", err.msg);
    same_result(res, json);
    unlink(json);
    unlink(xml);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    init();
    char path[800];
    snprintf(path, sizeof path, "%s", fz_write("thresholds.ini", data, size));
    gs_gate_limits lim;
    gs_gate_limits_init(&lim);
    gs_err err;
    gs_err_clear(&err);
    gs_status st = gs_gate_limits_load(&lim, path, &err);
    if (st != GS_OK) {
        fz_check_error(st, &err, path, 1);
        return 0;
    }
    gs_gate_result res;
    gs_gate_result_init(&res, "single");
    if (gs_gate_evaluate(&res, &run, &lim) != GS_OK)
        fz_fail("gs_gate_evaluate failed on accepted limits");
    write_and_check(&res);
    gs_gate_result_free(&res);
    const gs_run *one[1] = {&run};
    gs_gate_result_init(&res, "paired");
    if (gs_gate_paired(&res, one, 1, one, 1, &lim) != GS_OK)
        fz_fail("gs_gate_paired failed on accepted limits");
    write_and_check(&res);
    gs_gate_result_free(&res);
    static const char *const left[] = {"thresholds.ini", NULL};
    fz_expect_files(left);
    return 0;
}
