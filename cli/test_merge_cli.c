/*
 * End-to-end tests of `gapscope merge` ($GS_BIN, set by make test): two
 * engine runs on the CPU backend started together merge on one clock
 * (same host and boot: offset 0), each device's util is its own run's,
 * the report has the fleet view; bad usage and captures that cannot be
 * aligned exit 2 with a message that says what would do.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/json.h"
#include "../common/outfile.h"
#include "../test/test.h"

static const char *bin(void)
{
    const char *b = getenv("GS_BIN");
    return b && access(b, X_OK) == 0 ? b : NULL;
}

/* summary.json of dir, parsed (NULL when unreadable). */
static gs_json *summary(const char *dir)
{
    char p[2048];
    snprintf(p, sizeof p, "%s/summary.json", dir);
    gs_json *j = NULL;
    gs_err err;
    gs_err_clear(&err);
    return gs_json_parse_file(&j, p, &err) == GS_OK ? j : NULL;
}

static double device_util(const gs_json *s, size_t i)
{
    const gs_json *u = gs_json_get(gs_json_at(gs_json_get(s, "devices"), i), "util");
    return u && u->type == GS_JSON_NUMBER ? u->number : -1;
}

GS_TEST(cli_merge_two_engine_runs)
{
    if (!bin()) {
        gs_test_skip("GS_BIN not set (run through make test)");
        return;
    }
    const char *d = gs_test_tmpdir();
    char ini[1024], cmd[8192], out[16384];
    snprintf(ini, sizeof ini, "%s/tiny.ini", d);
    GS_REQUIRE(gs_test_write_text(
        ini, "[engine]\nsynth_threads = 1\ngpu_workers = 1\nprove_threads = 1\nseed = 5\n"
             "trim = under_lock\nverify = after_unlock\n"
             "[jobs]\nkinds = circuit:1\ncount = 4\ninterarrival = fixed:5ms\nsize_map = circuit:9\n"
             "replay = timed\n[inject.tracker_hold]\ndist = fixed:20ms\n"));
    /* Two processes started together. */
    snprintf(cmd, sizeof cmd,
             "%s run %s --out %s/a --quiet --no-report >%s/a.log 2>&1 & "
             "%s run %s --out %s/b --quiet --no-report --seed 6 >%s/b.log 2>&1; wait",
             bin(), ini, d, d, bin(), ini, d, d);
    GS_REQUIRE(gs_test_run(cmd, out, sizeof out) == 0);
    snprintf(cmd, sizeof cmd, "%s merge %s/a %s/b --out %s/m --no-charts 2>&1", bin(), d, d, d);
    int rc = gs_test_run(cmd, out, sizeof out);
    GS_REQUIRE(rc == 0);
    GS_CHECK_MSG(strstr(out, "same host and boot") && strstr(out, "clock error bound 0.000 ms"),
                 "%s", out);
    GS_CHECK_MSG(strstr(out, "The slowest device is") != NULL, "%s", out);
    char da[1100], db[1100], dm[1100];
    snprintf(da, sizeof da, "%s/a", d);
    snprintf(db, sizeof db, "%s/b", d);
    snprintf(dm, sizeof dm, "%s/m", d);
    gs_json *sa = summary(da), *sb = summary(db), *sm = summary(dm);
    GS_REQUIRE(sa && sb && sm);
    /* Each device's util within 1 point of its own run's (it is the same). */
    double ua = device_util(sa, 0), ub = device_util(sb, 0);
    GS_CHECK_MSG(ua > 0 && fabs(device_util(sm, 0) - ua) < 0.01, "a: %.4f merged %.4f", ua,
                 device_util(sm, 0));
    GS_CHECK_MSG(ub > 0 && fabs(device_util(sm, 1) - ub) < 0.01, "b: %.4f merged %.4f", ub,
                 device_util(sm, 1));
    const gs_json *fl = gs_json_get(sm, "fleet");
    GS_CHECK(fl && gs_json_get(fl, "per_device") && gs_json_get(fl, "verdict"));
    /* Jobs of both: 8 submitted. */
    const gs_json *sub = gs_json_get(gs_json_get(sm, "jobs"), "submitted");
    GS_CHECK(sub && sub->type == GS_JSON_NUMBER && sub->number == 8);
    gs_json_free(sa);
    gs_json_free(sb);
    gs_json_free(sm);
    char rp[1200];
    snprintf(rp, sizeof rp, "%s/report.md", dm);
    char *md = NULL;
    size_t len;
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(gs_read_file(&md, &len, rp, &err) == GS_OK);
    GS_CHECK(strstr(md, "## Fleet") && strstr(md, "| 1 | b |"));
    free(md);
}

GS_TEST(cli_merge_usage_and_unaligned)
{
    if (!bin()) {
        gs_test_skip("GS_BIN not set (run through make test)");
        return;
    }
    const char *d = gs_test_tmpdir();
    char cmd[8192], out[8192];
    /* No --out; one directory; a bad --offset. */
    snprintf(cmd, sizeof cmd, "%s merge x y 2>&1", bin());
    GS_CHECK_EQ_INT(gs_test_run(cmd, out, sizeof out), 2);
    snprintf(cmd, sizeof cmd, "%s merge x --out %s/m 2>&1", bin(), d);
    GS_CHECK_EQ_INT(gs_test_run(cmd, out, sizeof out), 2);
    snprintf(cmd, sizeof cmd, "%s merge x y --out %s/m --offset 1=5 2>&1", bin(), d);
    GS_CHECK_EQ_INT(gs_test_run(cmd, out, sizeof out), 2);
    /* Two imports (no clock anchor): refused, then merged with --same-clock. */
    snprintf(cmd, sizeof cmd,
             "%s import test/fixtures/import/kineto-small.json --out %s/i1 --no-report --quiet && "
             "%s import test/fixtures/import/kineto-small.json --out %s/i2 --no-report --quiet",
             bin(), d, bin(), d);
    GS_REQUIRE(gs_test_run(cmd, out, sizeof out) == 0);
    snprintf(cmd, sizeof cmd, "%s merge %s/i1 %s/i2 --out %s/m --no-report 2>&1", bin(), d, d, d);
    GS_CHECK_EQ_INT(gs_test_run(cmd, out, sizeof out), 2);
    GS_CHECK_MSG(strstr(out, "--same-clock") && strstr(out, "i2"), "%s", out);
    snprintf(cmd, sizeof cmd,
             "%s merge %s/i1 %s/i2 --out %s/m --no-report --same-clock --label 0=left --micro-ms 0.01 2>&1",
             bin(),
             d, d, d);
    GS_CHECK_EQ_INT(gs_test_run(cmd, out, sizeof out), 0);
    GS_CHECK_MSG(strstr(out, "clock error bound unknown") != NULL, "%s", out);
    /* Identical captures on one clock: all their idle lines up. */
    GS_CHECK_MSG(strstr(out, "Idle lines up across all 2 devices") != NULL, "%s", out);
}
