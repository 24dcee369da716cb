/* Driver pieces: least squares and a tiny end-to-end run (SHA-256: common/test_sha256.c). */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../diag/jobs.h"
#include "../test/test.h"
#include "run.h"
#include "test_scn_util.h"

GS_TEST(run_ols_slope)
{
    /* y = 2 + 3x exactly: slope 3, zero interval. */
    double x[] = {0, 1, 2, 3, 4}, y[5];
    for (int i = 0; i < 5; i++)
        y[i] = 2 + 3 * x[i];
    double b, ci, a;
    GS_REQUIRE(gs_ols_slope(&b, &ci, &a, x, y, 5));
    GS_CHECK(fabs(b - 3) < 1e-12 && fabs(a - 2) < 1e-12 && ci < 1e-9);
    /* Hand-computed: x 1..4, y 1,3,2,4 -> b = 0.8, a = 0.5, SSE = 1.8,
     * se = sqrt(0.9 / 5), ci = t(0.975, 2) * se = 4.303 * 0.42426 = 1.8256. */
    double x2[] = {1, 2, 3, 4}, y2[] = {1, 3, 2, 4};
    GS_REQUIRE(gs_ols_slope(&b, &ci, &a, x2, y2, 4));
    GS_CHECK(fabs(b - 0.8) < 1e-12 && fabs(a - 0.5) < 1e-12);
    GS_CHECK_MSG(fabs(ci - 1.8256) < 1e-3, "ci %g", ci);
    double xc[] = {1, 1, 1};
    GS_CHECK(!gs_ols_slope(&b, &ci, &a, xc, y2, 3)); /* constant x */
    GS_CHECK(!gs_ols_slope(&b, &ci, &a, x2, y2, 2));
}

static int file_nonempty(const char *dir, const char *name)
{
    char p[1200];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "r");
    if (!f)
        return 0;
    int c = fgetc(f);
    fclose(f);
    return c != EOF;
}

/* A tiny real run (CPU backend, 2^9 constraints, 3 jobs): the run directory
 * has its files, every job completes and verifies, and an injected tracker
 * hold shows up in the timeline with the drawn delays. */
GS_TEST(run_end_to_end_tiny)
{
    const char *text =
        "[engine]\nsynth_threads = 1\ngpu_workers = 1\nprove_threads = 1\nseed = 5\ntrim = under_lock\n"
        "[jobs]\nkinds = circuit:1\ncount = 3\ninterarrival = fixed:5ms\nsize_map = circuit:9\nreplay = timed\n"
        "[inject.tracker_hold]\ndist = fixed:3ms\n";
    gs_err err;
    gs_err_clear(&err);
    char dir[600];
    gs_run_result r;
    GS_REQUIRE(ts_run_text(text, "tiny.ini", "run", 0, &r, dir, sizeof dir));
    GS_CHECK_EQ_INT(r.arrivals, 3);
    GS_CHECK_EQ_INT(r.completed, 3);
    GS_CHECK_EQ_INT(r.failed, 0);
    GS_CHECK_EQ_INT(r.verified, 3);
    GS_CHECK(r.drained);
    const char *files[] = {"scenario.ini", "arrivals.jsonl", "jobs.csv", "spans.csv", "timeline.json", "summary.json"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        GS_CHECK_MSG(file_nonempty(dir, files[i]), "%s missing or empty", files[i]);
    GS_CHECK(r.analyzed && r.gpu_span_s > 0);
    /* jobs.csv: latency counted from the intended arrival. */
    char p[1200];
    snprintf(p, sizeof p, "%s/jobs.csv", dir);
    gs_job_record *jobs = NULL;
    size_t n = 0;
    GS_REQUIRE(gs_jobs_read_csv(&jobs, &n, p, &err) == GS_OK);
    GS_CHECK_EQ_INT(n, 3);
    for (size_t i = 0; i < n; i++) {
        GS_CHECK(!strcmp(jobs[i].status, "ok"));
        GS_CHECK(jobs[i].intended_ns > 0 && jobs[i].submitted_ns >= jobs[i].intended_ns);
        GS_CHECK(jobs[i].done_ns > jobs[i].submitted_ns);
    }
    if (n == 3) /* timed replay: 5 ms apart */
        GS_CHECK(llabs(jobs[2].intended_ns - jobs[0].intended_ns - 10000000) < 1000);
    int64_t sub[3] = {0, 0, 0};
    for (size_t i = 0; i < n && i < 3; i++)
        sub[i] = jobs[i].submitted_ns - jobs[0].submitted_ns;
    free(jobs);
    /* scenario.ini reloads, and record writes the processed arrivals. */
    gs_scenario *t = NULL;
    snprintf(p, sizeof p, "%s/scenario.ini", dir);
    GS_CHECK_OK(gs_scenario_load(&t, p, &err));
    if (t)
        GS_CHECK(t->engine.inj[GS_INJ_TRACKER_HOLD].enabled && t->size_map[GS_KIND_CIRCUIT] == 9);
    gs_scenario_destroy(t);
    snprintf(p, sizeof p, "%s/recorded.jsonl", gs_test_tmpdir());
    GS_CHECK_OK(gs_scn_record_from_run(dir, p, &err));
    gs_trace tr;
    GS_REQUIRE(gs_trace_read(&tr, p, &err) == GS_OK);
    /* The actual submission times, first = 0: a loaded machine may submit
     * the first job late and the others on time (issue 16: "> 5 ms" failed
     * 3 of 20 runs), so compare with jobs.csv rather than the intended 10 ms. */
    GS_CHECK(tr.n == 3 && tr.a[0].t_ns == 0);
    for (size_t i = 1; i < tr.n && i < 3; i++)
        GS_CHECK_MSG(llabs(tr.a[i].t_ns - sub[i]) < 1000000 && tr.a[i].t_ns >= tr.a[i - 1].t_ns,
                     "arrival %zu recorded at %lld ns, submitted at +%lld ns", i, (long long)tr.a[i].t_ns,
                     (long long)sub[i]);
    gs_trace_free(&tr);
}

/* Reads a whole small file into buf (NUL-terminated); 1 when it could. */
static int slurp(char *buf, size_t cap, const char *dir, const char *name)
{
    char p[1200];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = '\0';
    fclose(f);
    return 1;
}

/* A run records no absolute path (issue 29: captures are committed under
 * traces/): given an absolute scenario path, an absolute trace and an
 * absolute --out, the timeline's scenario.path is relative to the working
 * directory, scenario.jobs.trace relative to the run directory, the dumped
 * scenario.ini holds no absolute path and still reloads (its trace found
 * from the run directory), and summary.json's source is "spans.csv". */
GS_TEST(run_records_relative_paths)
{
    gs_err err;
    gs_err_clear(&err);
    char trace[700], ini[700], dir[700], p[1200], cwd[600];
    GS_REQUIRE(getcwd(cwd, sizeof cwd) != NULL);
    snprintf(trace, sizeof trace, "%s/mix.jsonl", gs_test_tmpdir());
    snprintf(ini, sizeof ini, "%s/rel.ini", gs_test_tmpdir());
    snprintf(dir, sizeof dir, "%s/out/run1", gs_test_tmpdir());
    GS_REQUIRE(trace[0] == '/' && ini[0] == '/' && dir[0] == '/');
    gs_trace tr = {0};
    for (int i = 0; i < 2; i++) {
        gs_arrival a = {.t_ns = i * 2000000, .id = (uint64_t)i + 1, .kind = GS_KIND_CIRCUIT, .partitions = 1};
        GS_REQUIRE(gs_trace_push(&tr, &a) == GS_OK);
    }
    GS_REQUIRE(gs_trace_write(&tr, trace, "ms", &err) == GS_OK);
    gs_trace_free(&tr);
    FILE *f = fopen(ini, "w");
    GS_REQUIRE(f != NULL);
    fprintf(f, "[engine]\nsynth_threads = 1\nprove_threads = 1\nseed = 3\n"
               "[jobs]\ntrace = %s\nsize_map = circuit:9\nreplay = afap\n", trace);
    fclose(f);
    gs_scenario *s = NULL;
    GS_REQUIRE(gs_scenario_load(&s, ini, &err) == GS_OK);
    gs_run_opts o = {.out_dir = dir, .quiet = 1, .no_report = 1};
    gs_run_result r;
    gs_status st = gs_scn_run(s, &o, &r, &err);
    gs_scenario_destroy(s);
    GS_CHECK_MSG(st == GS_OK, "%s", err.msg);
    if (st != GS_OK)
        return;
    GS_CHECK_EQ_INT(r.completed, 2);

    gs_timeline *tl = NULL;
    snprintf(p, sizeof p, "%s/spans.csv", dir);
    GS_REQUIRE(gs_timeline_read_csv(&tl, p, &err) == GS_OK);
    const char *sp = gs_timeline_meta_get(tl, "scenario.path");
    const char *tp = gs_timeline_meta_get(tl, "scenario.jobs.trace");
    GS_CHECK_MSG(sp && sp[0] != '/', "scenario.path %s", sp ? sp : "(none)");
    GS_CHECK_MSG(tp && !strcmp(tp, "../../mix.jsonl"), "scenario.jobs.trace %s", tp ? tp : "(none)");
    /* scenario.path resolves from the working directory to the scenario. */
    if (sp) {
        snprintf(p, sizeof p, "%s/%s", cwd, sp);
        GS_CHECK_MSG(access(p, R_OK) == 0, "%s does not lead to the scenario", sp);
    }
    gs_timeline_destroy(tl);

    static char text[16384];
    GS_REQUIRE(slurp(text, sizeof text, dir, "scenario.ini"));
    GS_CHECK_MSG(!strstr(text, "= /") && !strstr(text, "; /") && !strstr(text, ": /"),
                 "absolute path in scenario.ini:\n%s", text);
    GS_CHECK_MSG(strstr(text, "../../mix.jsonl") != NULL, "trace not relative:\n%s", text);
    gs_scenario *t = NULL;
    snprintf(p, sizeof p, "%s/scenario.ini", dir);
    GS_CHECK_OK(gs_scenario_load(&t, p, &err));
    if (t)
        GS_CHECK_OK(gs_scenario_validate(t, &err));   /* the trace opens from the run directory */
    gs_scenario_destroy(t);

    GS_REQUIRE(slurp(text, sizeof text, dir, "summary.json"));
    GS_CHECK_MSG(strstr(text, "\"source\":\"spans.csv\"") != NULL, "summary source: %.300s", text);
}
