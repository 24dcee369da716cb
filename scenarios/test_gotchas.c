/*
 * Scenario gotchas an outside user ran into (issue 16, part 5): the
 * trim/verify defaults are the production daemon's and say so, the real
 * malloc_trim mode rejects keys it would silently ignore (with file:line),
 * and --no-report still writes summary.json.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../test/test.h"
#include "scn_internal.h"
#include "test_scn_util.h"

/* A minimal scenario gets trim = verify = under_lock (DOMAIN.md: both run
 * under the tracker lock in production's finalizer) and a note saying so;
 * a scenario that sets them gets no note. */
GS_TEST(gotcha_defaults_are_production_and_noted)
{
    gs_scenario *s;
    gs_err err;
    GS_REQUIRE(ts_parse(&s, "[jobs]\ncount = 2\n", "min.ini", &err));
    GS_CHECK_OK(gs_scenario_validate(s, &err));
    GS_CHECK(s->engine.trim == GS_TRIM_UNDER_LOCK);
    GS_CHECK(s->engine.verify == GS_VERIFY_UNDER_LOCK);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    GS_REQUIRE(f);
    int n = gs_scenario_note_defaults(s, f, "x: ");
    fclose(f);
    GS_CHECK_EQ_INT(n, 2);
    GS_CHECK_MSG(buf && strstr(buf, "x: note: engine.trim = under_lock by default") &&
                     strstr(buf, "engine.verify = under_lock") && strstr(buf, "production daemon"),
                 "notes: %s", buf ? buf : "");
    free(buf);
    gs_scenario_destroy(s);

    GS_REQUIRE(ts_parse(&s, "[engine]\ntrim = off\nverify = under_lock\n", "set.ini", &err));
    buf = NULL;
    f = open_memstream(&buf, &len);
    GS_REQUIRE(f);
    GS_CHECK_EQ_INT(gs_scenario_note_defaults(s, f, NULL), 0);
    fclose(f);
    free(buf);
    gs_scenario_destroy(s);

    /* run --help says so. */
    const char *bin = getenv("GS_BIN");
    if (bin && access(bin, X_OK) == 0) {
        char cmd[1024], out[65536];
        snprintf(cmd, sizeof cmd, "%s run --help", bin);
        GS_CHECK_EQ_INT(gs_test_run(cmd, out, sizeof out), 0);
        GS_CHECK_MSG(strstr(out, "Defaults follow the production daemon") &&
                         strstr(out, "trim = under_lock") && strstr(out, "summary.json"),
                     "run --help lacks the defaults / --no-report lines");
    }
}

/* [inject.malloc_trim] mode = real: a delay distribution is rejected (the
 * real trim is the delay), frag = 0 without a working set is rejected,
 * frag/work_per_constraint without mode = real are rejected; each error
 * names the file and line of the key at fault (or --set). */
GS_TEST(gotcha_real_trim_mode_rejects_ignored_keys)
{
    static const struct {
        const char *text, *where, *word;   /* where NULL: accepted */
    } cases[] = {
        {"[inject.malloc_trim]\nmode = real\nfrag = 8MiB\ndist = fixed:50ms\n", "t.ini:4", "no effect with mode = real"},
        {"[inject.malloc_trim]\nmode = real\nfrag = 8MiB\ndist = lognormal:median=80ms,sigma=0.5\n", "t.ini:4", "dist"},
        {"[inject.malloc_trim]\nmode = real\n", "t.ini:2", "needs frag"},
        {"[inject.malloc_trim]\nfrag = 0\nmode = real\n", "t.ini:3", "needs frag"},
        {"[inject.malloc_trim]\ndist = fixed:5ms\nfrag = 8MiB\n", "t.ini:3", "only with mode = real"},
        {"[inject.malloc_trim]\ndist = fixed:5ms\nwork_per_constraint = 1KiB\n", "t.ini:3", "work_per_constraint"},
        {"[global]\ndist = fixed:7ms\n[inject.malloc_trim]\nmode = real\nfrag = 8MiB\n", "t.ini:2", "no effect"},
        /* Accepted. */
        {"[inject.malloc_trim]\nmode = real\nfrag = 8MiB\n", NULL, NULL},
        {"[inject.malloc_trim]\nmode = real\nwork_per_constraint = 1KiB\n", NULL, NULL},
        {"[inject.malloc_trim]\nmode = real\nfrag = 8MiB\ndist = fixed:0ms\n", NULL, NULL},
        {"[inject.malloc_trim]\ndist = fixed:5ms\n", NULL, NULL},
        {"[inject.malloc_trim]\nenabled = no\nmode = real\n", NULL, NULL},
    };
    char path[600];
    snprintf(path, sizeof path, "%s/t.ini", gs_test_tmpdir());
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        GS_REQUIRE(gs_test_write_text(path, cases[i].text));
        gs_scenario *s;
        gs_err err;
        gs_status st = ts_load(&s, path, 1, &err);
        if (!cases[i].where) {
            GS_CHECK_MSG(st == GS_OK, "case %zu rejected: %s", i, err.msg);
        } else {
            GS_CHECK_MSG(st != GS_OK, "case %zu accepted", i);
            GS_CHECK_MSG(strstr(err.msg, cases[i].where) != NULL, "case %zu: '%s' lacks %s", i, err.msg,
                         cases[i].where);
            GS_CHECK_MSG(strstr(err.msg, cases[i].word) != NULL, "case %zu: '%s' lacks '%s'", i, err.msg,
                         cases[i].word);
        }
        gs_scenario_destroy(s);
    }
    /* Through --set, whatever the order of the keys: checked once all apply. */
    GS_REQUIRE(gs_test_write_text(path, "[inject.malloc_trim]\ndist = fixed:5ms\n"));
    gs_scenario *s = NULL;
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(gs_scenario_load(&s, path, &err) == GS_OK);
    const char *sets[] = {"inject.malloc_trim.mode=real", "inject.malloc_trim.frag=8MiB"};
    GS_CHECK(gs_scenario_apply_cli(s, NULL, sets, 2, &err) != GS_OK);
    GS_CHECK_MSG(strstr(err.msg, "t.ini:2") && strstr(err.msg, "no effect"), "%s", err.msg);
    gs_scenario_destroy(s);
    GS_REQUIRE(gs_scenario_load(&s, path, &err) == GS_OK);
    gs_err_clear(&err);
    const char *sets2[] = {"inject.malloc_trim.mode=real", "inject.malloc_trim.frag=8MiB",
                           "inject.malloc_trim.dist=fixed:0ms"};
    GS_CHECK_OK(gs_scenario_apply_cli(s, NULL, sets2, 3, &err));
    GS_CHECK(s->engine.inj[GS_INJ_MALLOC_TRIM].real && s->engine.inj[GS_INJ_MALLOC_TRIM].frag_bytes == 8u << 20);
    gs_scenario_destroy(s);
}

/* --no-report skips the rendering only: summary.json is written (and the
 * run result carries the analysis), report.md/.html and charts are not. */
GS_TEST(gotcha_no_report_still_writes_summary)
{
    const char *text = "[engine]\nsynth_threads = 1\nprove_threads = 1\ntrim = off\nverify = after_unlock\n"
                       "[jobs]\nkinds = circuit:1\ncount = 2\ninterarrival = fixed:1ms\nsize_map = circuit:9\n"
                       "replay = afap\n";
    char dir[600];
    gs_run_result r;
    GS_REQUIRE(ts_run_text(text, "noreport.ini", "nr", 1, &r, dir, sizeof dir));
    GS_CHECK_EQ_INT(r.completed, 2);
    GS_CHECK(r.analyzed && r.gpu_span_s > 0);
    GS_CHECK(gs_test_exists(dir, "summary.json"));
    GS_CHECK(gs_test_exists(dir, "spans.csv") && gs_test_exists(dir, "jobs.csv"));
    GS_CHECK(!gs_test_exists(dir, "report.md") && !gs_test_exists(dir, "report.html") && !gs_test_exists(dir, "charts"));
}
