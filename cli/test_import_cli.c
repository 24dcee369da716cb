/*
 * End-to-end tests of `gapscope import` and `gapscope record --from-log`
 * ($GS_BIN, set by make test): a run directory from each importer's
 * fixture, exit 2 with no output on unreadable input, and a daemon log's
 * job mix as a trace that the trace reader accepts.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/json.h"
#include "../scenarios/trace.h"
#include "../test/test.h"

/* summary.json's top-level util and verdict cause of a run directory. */
static int summary(const char *dir, double *util, char *cause, size_t n)
{
    char p[2048];
    snprintf(p, sizeof p, "%s/summary.json", dir);
    gs_json *j;
    gs_err err;
    gs_err_clear(&err);
    if (gs_json_parse_file(&j, p, &err) != GS_OK)
        return 0;
    const gs_json *u = gs_json_get(j, "util"), *v = gs_json_get(gs_json_get(j, "verdict"), "cause");
    int ok = u && u->type == GS_JSON_NUMBER && v && v->type == GS_JSON_STRING;
    if (ok) {
        *util = u->number;
        snprintf(cause, n, "%s", v->text);
    }
    gs_json_free(j);
    return ok;
}

GS_TEST(cli_import_each_format)
{
    GS_TEST_NEED_BIN();
    static const struct {
        const char *file, *cause;
        double util;
    } cases[] = {
        {"test/fixtures/import/kineto-small.json", "host_compute", 362.0 / 997.0},
        {"test/fixtures/import/nsys-small.sqlite", "sleep", 167.0 / 607.0},
        {"test/fixtures/import/demo-trim.daemon.log", "tracker_lock/malloc_trim", -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char dir[1024], cmd[4096], out[8192], cause[64];
        double util;
        snprintf(dir, sizeof dir, "%s/run%zu", gs_test_tmpdir(), i);
        snprintf(cmd, sizeof cmd, "%s import %s --out %s --no-charts --quiet 2>&1", gs_test_bin(),
                 cases[i].file, dir);
        int rc = gs_test_run(cmd, out, sizeof out);
        if (rc != 0 && strstr(out, "without libsqlite3")) {
            gs_test_skip("built without libsqlite3");
            continue;
        }
        GS_CHECK_MSG(rc == 0, "%s: exit %d: %s", cases[i].file, rc, out);
        GS_CHECK(gs_test_exists(dir, "spans.csv") && gs_test_exists(dir, "timeline.json") &&
                 gs_test_exists(dir, "summary.json") && gs_test_exists(dir, "report.md") &&
                 gs_test_exists(dir, "report.html") && gs_test_exists(dir, "data/gap_pieces.dat"));
        GS_REQUIRE(summary(dir, &util, cause, sizeof cause));
        GS_CHECK_MSG(!strcmp(cause, cases[i].cause), "%s: %s", cases[i].file, cause);
        if (cases[i].util >= 0)
            GS_CHECK(fabs(util - cases[i].util) < 1e-9);
        /* The run directory re-analyses like any other. */
        snprintf(cmd, sizeof cmd, "%s analyze %s --quiet >/dev/null 2>&1", gs_test_bin(), dir);
        GS_CHECK(gs_test_run(cmd, out, sizeof out) == 0);
        if (i == 1) {
            /* The gate's tracker_lock limit takes the foreign lock waits by
             * family: lock_wait/other 50 us of the 607 us span. */
            snprintf(cmd, sizeof cmd, "%s gate %s --thresholds ci/thresholds.ini 2>&1", gs_test_bin(), dir);
            gs_test_run(cmd, out, sizeof out);
            GS_CHECK_MSG(strstr(out, "FAIL cause_share tracker_lock = 0.0823") != NULL, "%s", out);
            /* A foreign timeline has no engine jobs: no failed-jobs check. */
            GS_CHECK_MSG(strstr(out, "failed jobs") == NULL, "%s", out);
        }
    }
}

GS_TEST(cli_import_bad_input_exits_2_without_output)
{
    GS_TEST_NEED_BIN();
    const char *d = gs_test_tmpdir();
    char bad[1024], dir[1024], cmd[4096], out[8192];
    snprintf(bad, sizeof bad, "%s/bad.json", d);
    GS_REQUIRE(gs_test_write_text(bad, "{\"traceEvents\": [\n  {\"ph\": \"X\",, }\n"));
    /* An unknown format, JSON with no usable event, a missing file. */
    const char *inputs[] = {"test/fixtures/chain.r1cs", bad, "no/such/file.json"};
    const char *want[] = {"unknown format", "no usable record", "no/such/file.json"};
    for (int i = 0; i < 3; i++) {
        snprintf(dir, sizeof dir, "%s/out%d", d, i);
        snprintf(cmd, sizeof cmd, "%s import %s --out %s --quiet 2>&1", gs_test_bin(), inputs[i], dir);
        GS_CHECK_EQ_INT(gs_test_run(cmd, out, sizeof out), 2);
        GS_CHECK_MSG(strstr(out, want[i]) != NULL, "%s", out);
        GS_CHECK(!gs_test_exists(dir, "spans.csv"));
    }
    /* The malformed event is reported with its line. */
    snprintf(cmd, sizeof cmd, "%s import %s --out %s/x --quiet 2>&1", gs_test_bin(), bad, d);
    gs_test_run(cmd, out, sizeof out);
    GS_CHECK_MSG(strstr(out, "bad.json:2") != NULL, "%s", out);
    snprintf(cmd, sizeof cmd, "%s import --format xml x 2>&1", gs_test_bin());
    GS_CHECK_EQ_INT(gs_test_run(cmd, out, sizeof out), 2);
}

GS_TEST(cli_record_from_daemon_log)
{
    GS_TEST_NEED_BIN();
    char trace[1024], cmd[4096], out[8192];
    snprintf(trace, sizeof trace, "%s/mix.jsonl", gs_test_tmpdir());
    snprintf(cmd, sizeof cmd,
             "%s record --from-log test/fixtures/import/h200-backlog.daemon.log -o %s --quiet 2>&1",
             gs_test_bin(), trace);
    GS_REQUIRE(gs_test_run(cmd, out, sizeof out) == 0);
    gs_trace t;
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(gs_trace_read(&t, trace, &err) == GS_OK);
    /* The capture's 3 PoRep C2 jobs of 10 partitions, in arrival order. */
    GS_REQUIRE(t.n == 3);
    for (size_t i = 0; i < t.n; i++) {
        GS_CHECK(t.a[i].kind == GS_KIND_POREP_C2 && t.a[i].partitions == 10);
        GS_CHECK(t.a[i].id == i + 1 && t.a[i].size_class == 27);
    }
    GS_CHECK(t.a[0].t_ns == 0 && t.a[2].t_ns >= t.a[1].t_ns);
    gs_trace_free(&t);
    /* A log with no job events: exit 2. */
    snprintf(cmd, sizeof cmd, "%s record --from-log test/fixtures/chain.circom -o %s/y.jsonl 2>&1",
             gs_test_bin(), gs_test_tmpdir());
    GS_CHECK_EQ_INT(gs_test_run(cmd, out, sizeof out), 2);
}

/* The PyTorch stall script on the H200 (traces/attach-h200/final/README.md):
 * its torch.profiler export over the whole job, imported, gives the device
 * util of the attach capture of the same script within 1 point and the same
 * device operations; attach names each stall (sleep, a pthread mutex held
 * by another thread) as the top cause (family). */
GS_TEST(cli_import_torch_profile_matches_attach)
{
    GS_TEST_NEED_BIN();
    const char *d = gs_test_tmpdir();
    char dir[1024], cmd[4096], out[8192], cause[64], cause_a[64];
    double util_i = -1, util_a = -1;
    snprintf(dir, sizeof dir, "%s/imported", d);
    snprintf(cmd, sizeof cmd, "%s import traces/torch-stall/torch-sleep-profile.json --out %s "
             "--no-charts --quiet 2>&1", gs_test_bin(), dir);
    int rc = gs_test_run(cmd, out, sizeof out);
    GS_CHECK_MSG(rc == 0, "%s", out);
    GS_REQUIRE(rc == 0 && summary(dir, &util_i, cause, sizeof cause));
    static const struct {
        const char *mode, *cause;
    } runs[] = {{"sleep", "sleep"}, {"pmutex", "lock_wait/blocked"}};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        /* analyze writes beside spans.csv: work on a copy. */
        snprintf(cmd, sizeof cmd, "mkdir -p %s/%s && cp traces/attach-h200/final/torch-%s/spans.csv "
                 "%s/%s/ && %s analyze %s/%s --quiet >/dev/null 2>&1",
                 d, runs[i].mode, runs[i].mode, d, runs[i].mode, gs_test_bin(), d, runs[i].mode);
        GS_REQUIRE(gs_test_run(cmd, out, sizeof out) == 0);
        snprintf(dir, sizeof dir, "%s/%s", d, runs[i].mode);
        double u;
        GS_REQUIRE(summary(dir, &u, cause_a, sizeof cause_a));
        GS_CHECK_MSG(!strcmp(cause_a, runs[i].cause), "torch %s: attach verdict %s", runs[i].mode,
                     cause_a);
        if (i == 0)
            util_a = u;
    }
    GS_CHECK_MSG(fabs(util_i - util_a) <= 0.01, "imported torch.profiler util %.4f vs attach %.4f",
                 util_i, util_a);
}
