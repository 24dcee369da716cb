/* End-to-end tests of a saved run: summary.json, data files, charts,
 * report (with a headless-Chromium render when available), and the gate
 * (library and `gapscope gate` exit codes). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../test/test.h"
#include "charts.h"
#include "datafiles.h"
#include "../diag/gate.h"
#include "../common/outfile.h"
#include "report.h"
#include "test_report_util.h"
#include "../diag/run.h"
#include "../test/jsoncheck.h"

#define MS 1000000LL

/*
 * A pipeline-shaped run: one device, one GPU worker, a finalizer per
 * partition holding the tracker for `trim_ms` of malloc_trim.  The worker
 * waits on the tracker in fail_check while the finalizer trims, so the
 * device idles for about trim_ms per partition, attributed to
 * tracker_lock/malloc_trim.
 */
static gs_timeline *pipeline(int parts, double trim_ms)
{
    gs_timeline *tl;
    if (gs_timeline_create(&tl) != GS_OK)
        return NULL;
    gs_timeline_meta_set(tl, "build.git_rev", "0123abc");
    gs_timeline_meta_set(tl, "build.binary_sha256", "ffee");
    gs_timeline_meta_set(tl, "backend", "cpu");
    gs_timeline_meta_set(tl, "device.0.name", "test device <0>");
    gs_timeline_meta_set(tl, "host.cpu", "Test CPU");
    gs_timeline_meta_set(tl, "host.threads", "2");
    gs_tl_lane *dev = gs_tl_lane_open(tl, "cpu0/stream0", GS_ROLE_DEVICE, 0, 0);
    gs_tl_lane *w = gs_tl_lane_open(tl, "gpu_worker/0.0", GS_ROLE_GPU_WORKER, 0, -1);
    gs_tl_lane *drv = gs_tl_lane_open(tl, "driver", GS_ROLE_DRIVER, -1, -1);
    gs_tl_lane *fin[2] = {gs_tl_lane_open(tl, "finalizer/0", GS_ROLE_FINALIZER, 0, -1),
                          gs_tl_lane_open(tl, "finalizer/1", GS_ROLE_FINALIZER, 0, -1)};
    int64_t t = 10 * MS, trim = (int64_t)(trim_ms * MS), lock_free = 0;
    for (int i = 0; i < parts; i++) {
        gs_tl_span(drv, GS_SPAN_MARK, "submit", i, -1, t - 5 * MS, t - 5 * MS, 0, "kind=circuit");
        /* fail_check: wait until the previous finalizer releases the tracker. */
        int64_t got = lock_free > t ? lock_free : t + 50000;
        gs_tl_lock_wait(w, "tracker", -1, i, 0, t, got);
        gs_tl_span(w, GS_SPAN_LOCK_HOLD, "tracker", i, 0, got, got + 100000, 0, "what=fail_check");
        gs_tl_span(w, GS_SPAN_STEP, "fail_check", i, 0, t, got + 100000, 0, NULL);
        int64_t p = got + 100000;
        gs_tl_span(w, GS_SPAN_STEP, "host_prep", i, 0, p, p + 2 * MS, 0, NULL);
        gs_tl_span(dev, GS_SPAN_COPY, "h2d", i, 0, p + 2 * MS, p + 3 * MS, 0, NULL);
        gs_tl_span(dev, GS_SPAN_KERNEL, "ntt", i, 0, p + 3 * MS, p + 20 * MS, 0, NULL);
        gs_tl_span(dev, GS_SPAN_KERNEL, "msm_h", i, 0, p + 20 * MS, p + 52 * MS, 0, NULL);
        gs_tl_span(w, GS_SPAN_STEP, "prove_start", i, 0, p + 2 * MS, p + 52 * MS, 0, NULL);
        gs_tl_span(w, GS_SPAN_STEP, "handoff", i, 0, p + 52 * MS, p + 53 * MS, 0, NULL);
        /* The finalizer: tracker held for malloc_trim. */
        gs_tl_lane *f = fin[i % 2];
        int64_t h = p + 53 * MS;
        gs_tl_span(f, GS_SPAN_STEP, "malloc_trim", i, 0, h + 100000, h + trim - 100000, 0, NULL);
        gs_tl_span(f, GS_SPAN_LOCK_HOLD, "tracker", i, 0, h, h + trim, 0, "what=process_result");
        lock_free = h + trim;
        t = p + 53 * MS + 200000;
    }
    return tl;
}

static int write_run(const char *dir, int parts, double trim_ms, int failed)
{
    gs_timeline *tl = pipeline(parts, trim_ms);
    if (!tl)
        return 0;
    int ok = tr_write_spans(tl, dir);
    gs_job_record jobs[3];
    memset(jobs, 0, sizeof jobs);
    for (int i = 0; i < 3; i++) {
        jobs[i].id = (uint64_t)i;
        snprintf(jobs[i].kind, sizeof jobs[i].kind, "%s", i == 2 ? "porep_c2" : "circuit");
        snprintf(jobs[i].status, sizeof jobs[i].status, "%s", i < 3 - failed ? "ok" : "GS_ERR_INJECTED");
        jobs[i].partitions = 1;
        jobs[i].verified = i < 3 - failed;
        jobs[i].intended_ns = 1000;
        jobs[i].submitted_ns = 2000;
        jobs[i].done_ns = 1000 + (i + 1) * 1000000000LL;
    }
    snprintf(jobs[2].error, sizeof jobs[2].error, "inj @ x:1: \"boom\", failed");
    char p[700];
    gs_err err;
    gs_err_clear(&err);
    snprintf(p, sizeof p, "%s/jobs.csv", dir);
    ok = ok && gs_jobs_write_csv(p, jobs, 3, &err) == GS_OK;
    gs_timeline_destroy(tl);
    return ok;
}

static char *slurp(const char *dir, const char *name)
{
    char p[700];
    char *buf = NULL;
    size_t n;
    gs_err err;
    gs_err_clear(&err);
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return gs_read_file(&buf, &n, p, &err) == GS_OK ? buf : NULL;
}

GS_TEST(diag_report_summary_and_data)
{
    const char *dir = gs_test_tmpdir();
    GS_REQUIRE(write_run(dir, 6, 30, 1));
    gs_run r;
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(gs_run_load(&r, dir, NULL, &err) == GS_OK);
    /* The malloc_trim holds decide the verdict: 5 waits of ~trim each. */
    GS_CHECK(r.an->verdict == GS_CAUSE_TRACKER_TRIM);
    double trim_idle = r.an->cause_s[GS_CAUSE_TRACKER_TRIM];
    GS_CHECK_MSG(fabs(trim_idle - 5 * 0.0298) < 0.005, "trim idle %.4f s", trim_idle);
    GS_CHECK(r.jobs.submitted == 3 && r.jobs.completed == 2 && r.jobs.failed == 1 &&
             r.jobs.verified == 2);
    GS_CHECK(r.jobs.n_kinds == 2 && r.jobs.kinds[0].count == 2 &&
             fabs(r.jobs.kinds[0].p50_s - 1.0) < 1e-6 && fabs(r.jobs.kinds[0].max_s - 2.0) < 1e-6);
    char path[700];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    GS_CHECK_OK(gs_summary_write(&r, path, &err));
    GS_CHECK_OK(gs_plot_data_write(&r, &err));
    char *s = slurp(dir, "summary.json");
    GS_REQUIRE(s);
    GS_CHECK(json_valid(s));
    static const char *const keys[] = {"\"util\":", "\"util_kernels_only\":", "\"span_s\":",
                                       "\"busy_s\":", "\"count\":", "\"total_s\":", "\"p50_ms\":",
                                       "\"p90_ms\":", "\"p99_ms\":", "\"max_ms\":", "\"causes\":",
                                       "\"cause\":\"tracker_lock/malloc_trim\"", "\"share\":",
                                       "\"submitted\":3", "\"completed\":2", "\"failed\":1",
                                       "\"verified\":2", "\"latency\":{\"circuit\"", "\"verdict\":"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        GS_CHECK_MSG(strstr(s, keys[i]) != NULL, "summary.json lacks %s", keys[i]);
    free(s);
    static const char *const files[] = {"data/gaps.dat", "data/gap_pieces.dat", "data/gap_cdf.dat",
                                        "data/gap_hist.dat", "data/causes.dat", "data/util_bins.dat",
                                        "data/lanes.dat", "data/timeline_spans.dat", "data/meta.gp",
                                        "data/lanes.gp"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char *d = slurp(dir, files[i]);
        GS_CHECK_MSG(d && strlen(d) > 10, "%s missing or empty", files[i]);
        free(d);
    }
    /* gaps.dat has one row per gap. */
    char *g = slurp(dir, "data/gaps.dat");
    int rows = 0;
    for (char *p = g; p && (p = strchr(p, '\n')); p++)
        rows++;
    GS_CHECK_EQ_INT(rows - 1, r.an->dev[0].n_gaps);
    free(g);
    /* A small run is drawn exactly (report/README.md): one row of
     * timeline_spans.dat per drawn span (a tracker hold twice: its lane and
     * the tracker row), each of coverage 1. */
    size_t n, want = 0;
    const gs_span *sp = gs_timeline_spans(r.tl, &n);
    for (size_t i = 0; i < n; i++) {
        gs_role role = gs_timeline_lane(r.tl, sp[i].lane)->role;
        if (sp[i].kind == GS_SPAN_MARK || sp[i].kind == GS_SPAN_COUNTER || role == GS_ROLE_DRIVER)
            continue;
        want += 1 + (sp[i].kind == GS_SPAN_LOCK_HOLD && !strcmp(sp[i].name, "tracker"));
    }
    char *t = slurp(dir, "data/timeline_spans.dat");
    GS_REQUIRE(t);
    size_t got = 0, exact = 0;
    for (char *p = t, *nl; *p; p = nl ? nl + 1 : p + strlen(p)) {
        nl = strchr(p, '\n');
        if (*p == '#' || *p == '\n')
            continue;
        double f[6];
        got++;
        exact += sscanf(p, "%lf %lf %lf %lf %lf %lf", &f[0], &f[1], &f[2], &f[3], &f[4], &f[5]) == 6 &&
                 f[5] == 1.0;
    }
    GS_CHECK_MSG(got == want && exact == want, "%zu rows, %zu exact, %zu spans", got, exact, want);
    free(t);
    gs_run_free(&r);
}

GS_TEST(diag_report_html_renders)
{
    const char *dir = gs_test_tmpdir();
    GS_REQUIRE(write_run(dir, 5, 20, 0));
    gs_run r;
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(gs_run_load(&r, dir, NULL, &err) == GS_OK);
    GS_CHECK_OK(gs_plot_data_write(&r, &err));
    gs_report_opts ro;
    gs_report_opts_defaults(&ro);
    int charts = 0, n_ok = 0;
    char plots[4096];
    if (!gs_gnuplot_available() || !gs_plots_dir(plots, sizeof plots, "plots")) {
        gs_test_skip("gnuplot or plots/ not found: report checked without charts");
        ro.charts_note = "no gnuplot";
    } else {
        gs_status st = gs_charts_render(dir, plots, &n_ok, &err);
        GS_CHECK_MSG(st == GS_OK && n_ok == 5, "charts: %d drawn, %s", n_ok, err.msg);
        charts = 1;
    }
    GS_CHECK_OK(gs_report_write(&r, &ro, &err));
    char *html = slurp(dir, "report.html"), *md = slurp(dir, "report.md");
    GS_REQUIRE(html && md);
    GS_CHECK(strstr(html, "tracker_lock/malloc_trim") && strstr(md, "tracker\\_lock/malloc\\_trim"));
    GS_CHECK(strstr(html, "ui.perfetto.dev") && strstr(html, "0123abc") && strstr(html, "Test CPU"));
    GS_CHECK(strstr(html, "test device &lt;0&gt;") != NULL);   /* escaped */
    GS_CHECK(!strstr(html, "src=\"http") && !strstr(html, "href=\"http"));   /* offline */
    if (charts) {
        int imgs = 0;
        for (const char *p = html; (p = strstr(p, "src=\"data:image/png;base64,")); p++)
            imgs++;
        GS_CHECK_EQ_INT(imgs, 5);
        GS_CHECK(strstr(md, "](charts/timeline.png)") != NULL);
    }
    free(html);
    free(md);
    gs_run_free(&r);
    if (access("/usr/bin/chromium", X_OK) != 0) {
        gs_test_skip("/usr/bin/chromium not found: headless render not checked");
        return;
    }
    char cmd[2400], shot[700];
    snprintf(shot, sizeof shot, "%s/report.png", dir);
    snprintf(cmd, sizeof cmd,
             "/usr/bin/chromium --headless --no-sandbox --disable-gpu --hide-scrollbars "
             "--window-size=1280,2400 --screenshot='%s' 'file://%s/report.html' > '%s/chromium.log' 2>&1",
             shot, dir, dir);
    GS_CHECK_EQ_INT(system(cmd), 0);
    char *png = slurp(dir, "report.png");
    GS_CHECK(png && !memcmp(png, "\x89PNG", 4));
    free(png);
    char *log = slurp(dir, "chromium.log");
    GS_CHECK_MSG(!log || !strstr(log, "Uncaught"), "chromium log: %s", log ? log : "");
    free(log);
}

GS_TEST(diag_gate_checks_and_paired)
{
    gs_timeline *tl = pipeline(6, 30);
    GS_REQUIRE(tl);
    gs_run r;
    memset(&r, 0, sizeof r);
    r.tl = tl;
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(gs_analyze(&r.an, tl, NULL, &err) == GS_OK);
    gs_job_stats_from_timeline(&r.jobs, tl);
    double util = r.an->dev[0].util;
    GS_CHECK(util > 0.5 && util < 0.9);
    gs_gate_limits l;
    gs_gate_limits_init(&l);
    GS_CHECK_OK(gs_gate_limits_set(&l, NULL, "min_util", "0.5", "t", &err));
    GS_CHECK_OK(gs_gate_limits_set(&l, NULL, "max_gap_p99", "1s", "t", &err));
    GS_CHECK(l.max_gap_p99_ms == 1000);
    gs_gate_result res;
    gs_gate_result_init(&res, "single");
    GS_CHECK_OK(gs_gate_evaluate(&res, &r, &l));
    GS_CHECK(res.pass && res.n == 2);
    gs_gate_result_free(&res);
    /* Tighten: util and the tracker_lock group fail, the gap limit holds. */
    GS_CHECK_OK(gs_gate_limits_set(&l, NULL, "min_util", "0.95", "t", &err));
    GS_CHECK_OK(gs_gate_limits_set(&l, NULL, "max_cause_share", "tracker_lock=0.05", "t", &err));
    gs_gate_result_init(&res, "single");
    GS_CHECK_OK(gs_gate_evaluate(&res, &r, &l));
    GS_CHECK(!res.pass && res.n == 3);
    GS_CHECK(!res.checks[0].pass && res.checks[1].pass && !res.checks[2].pass);
    GS_CHECK(!strcmp(res.checks[2].name, "cause_share tracker_lock"));
    GS_CHECK(fabs(res.checks[2].value - gs_analysis_cause_idle(r.an, "tracker_lock") / r.an->span_s) < 1e-9);
    GS_CHECK(gs_analysis_cause_idle(r.an, "tracker_lock") > r.an->cause_s[GS_CAUSE_TRACKER_TRIM]);
    gs_gate_result_free(&res);
    /* Bad limits name their source. */
    gs_err_clear(&err);
    GS_CHECK(gs_gate_limits_set(&l, NULL, "max_cause_share", "nosuch=0.1", "--x", &err) == GS_ERR_ARG);
    GS_CHECK(strstr(err.msg, "nosuch") && strstr(err.msg, "--x"));
    gs_err_clear(&err);
    GS_CHECK(gs_gate_limits_set(&l, NULL, "max_gap_p99", "5 parsecs", "--y", &err) == GS_ERR_ARG);
    char ini[700];
    snprintf(ini, sizeof ini, "%s/t.ini", gs_test_tmpdir());
    GS_REQUIRE(gs_test_write_text(
        ini, "[gate]\nmin_util = 0.8  # comment\n\n[cause_share]\nqueue_empty = 0.2\nbogus = 1\n"));
    gs_err_clear(&err);
    GS_CHECK(gs_gate_limits_load(&l, ini, &err) == GS_ERR_FORMAT);
    char where[800];
    snprintf(where, sizeof where, "%s:6", ini);
    GS_CHECK_MSG(strstr(err.msg, where) != NULL, "%s", err.msg);
    GS_CHECK(l.min_util == 0.8);
    /* Paired: head runs with longer trims (lower util) against base runs. */
    enum { N = 5 };
    gs_run base[N], head[N];
    const gs_run *pb[N], *ph[N];
    for (int i = 0; i < N; i++) {
        gs_timeline *tb = pipeline(6, 2 + i * 0.1), *th = pipeline(6, 30 + i);
        memset(&base[i], 0, sizeof base[i]);
        memset(&head[i], 0, sizeof head[i]);
        GS_REQUIRE(tb && th && gs_analyze(&base[i].an, tb, NULL, &err) == GS_OK &&
                   gs_analyze(&head[i].an, th, NULL, &err) == GS_OK);
        gs_timeline_destroy(tb);
        gs_timeline_destroy(th);
        pb[i] = &base[i];
        ph[i] = &head[i];
    }
    gs_gate_limits_init(&l);
    gs_gate_result_init(&res, "paired");
    GS_CHECK_OK(gs_gate_paired(&res, pb, N, ph, N, &l));
    GS_CHECK(!res.pass && !res.checks[0].pass && !res.checks[1].pass);
    gs_gate_result_free(&res);
    /* The same runs the other way round are an improvement: pass. */
    gs_gate_result_init(&res, "paired");
    GS_CHECK_OK(gs_gate_paired(&res, ph, N, pb, N, &l));
    GS_CHECK(res.pass);
    gs_gate_result_free(&res);
    /* Significant but below the practical floor: pass. */
    l.min_util_drop = 0.9;
    l.min_gap_p99_increase_ms = 1000;
    gs_gate_result_init(&res, "paired");
    GS_CHECK_OK(gs_gate_paired(&res, pb, N, ph, N, &l));
    GS_CHECK(res.pass);
    gs_gate_result_free(&res);
    /* Large but not significant (2 runs each: smallest p is 1/6): pass. */
    gs_gate_limits_init(&l);
    gs_gate_result_init(&res, "paired");
    GS_CHECK_OK(gs_gate_paired(&res, pb, 2, ph, 2, &l));
    GS_CHECK(res.pass);
    gs_gate_result_free(&res);
    for (int i = 0; i < N; i++) {
        gs_analysis_destroy(base[i].an);
        gs_analysis_destroy(head[i].an);
    }
    gs_analysis_destroy(r.an);
    gs_timeline_destroy(tl);
}

/* The paired gate's host note: runs whose probes (meta host.probe.*) say
 * the head ran on a 40% slower host get a note (differs, ratio, p) and no
 * failed check of its own; equal hosts none; a run without a probe, or
 * probes of another version or thread count, leave the hosts uncompared;
 * gate.json carries host_speed. */
GS_TEST(diag_gate_host_speed)
{
    enum { N = 5 };
    gs_run base[N], head[N];
    const gs_run *pb[N], *ph[N];
    gs_err err;
    gs_err_clear(&err);
    for (int i = 0; i < N; i++) {
        memset(&base[i], 0, sizeof base[i]);
        memset(&head[i], 0, sizeof head[i]);
        base[i].tl = pipeline(6, 2);
        head[i].tl = pipeline(6, 2);
        GS_REQUIRE(base[i].tl && head[i].tl && gs_analyze(&base[i].an, base[i].tl, NULL, &err) == GS_OK &&
                   gs_analyze(&head[i].an, head[i].tl, NULL, &err) == GS_OK);
        char v[32];
        for (int side = 0; side < 2; side++) {
            gs_timeline *t = side ? head[i].tl : base[i].tl;
            gs_timeline_meta_set(t, "host.probe.version", "1");
            gs_timeline_meta_set(t, "host.probe.threads", "6");
            snprintf(v, sizeof v, "%.1f", (side ? 120.0 : 200.0) + i);
            gs_timeline_meta_set(t, "host.probe.before_msteps", v);
            snprintf(v, sizeof v, "%.1f", (side ? 124.0 : 204.0) + i);
            gs_timeline_meta_set(t, "host.probe.after_msteps", v);
        }
        pb[i] = &base[i];
        ph[i] = &head[i];
    }
    gs_gate_limits l;
    gs_gate_limits_init(&l);
    gs_gate_result res;
    gs_gate_result_init(&res, "paired");
    GS_CHECK_OK(gs_gate_paired(&res, pb, N, ph, N, &l));
    GS_CHECK(res.pass && res.n == 2);
    GS_CHECK(res.host_probe && res.host_differs);
    GS_CHECK_MSG(fabs(res.host_base - 204) < 1e-9 && fabs(res.host_head - 124) < 1e-9, "%g %g", res.host_base,
                 res.host_head);
    GS_CHECK(fabs(res.host_ratio - 124.0 / 204) < 1e-9 && res.host_p < 0.01);
    GS_CHECK_MSG(strstr(res.host_note, "differ by more than 15%"), "%s", res.host_note);
    char json[700];
    snprintf(json, sizeof json, "%s/gate-host.json", gs_test_tmpdir());
    GS_CHECK_OK(gs_gate_write_json(&res, json, &err));
    char *text = slurp(gs_test_tmpdir(), "gate-host.json");
    GS_CHECK(text && strstr(text, "\"host_speed\":{\"compared\":true") && strstr(text, "\"differs\":true"));
    free(text);
    gs_gate_result_free(&res);
    /* The same hosts: compared, no difference noted. */
    gs_gate_result_init(&res, "paired");
    GS_CHECK_OK(gs_gate_paired(&res, pb, N, pb, N, &l));
    GS_CHECK(res.host_probe && !res.host_differs && fabs(res.host_ratio - 1) < 1e-12);
    GS_CHECK(!strstr(res.host_note, "differ by"));
    gs_gate_result_free(&res);
    /* Another thread count in one run: not compared. */
    gs_timeline_meta_set(head[2].tl, "host.probe.threads", "4");
    gs_gate_result_init(&res, "paired");
    GS_CHECK_OK(gs_gate_paired(&res, pb, N, ph, N, &l));
    GS_CHECK(!res.host_probe && !res.host_differs && strstr(res.host_note, "not compared"));
    gs_gate_result_free(&res);
    /* A run without a probe (an older capture): not compared. */
    gs_timeline_meta_set(head[2].tl, "host.probe.threads", "6");
    gs_run bare;
    memset(&bare, 0, sizeof bare);
    bare.tl = pipeline(6, 2);
    GS_REQUIRE(bare.tl && gs_analyze(&bare.an, bare.tl, NULL, &err) == GS_OK);
    pb[0] = &bare;
    gs_gate_result_init(&res, "paired");
    GS_CHECK_OK(gs_gate_paired(&res, pb, N, ph, N, &l));
    GS_CHECK(!res.host_probe && strstr(res.host_note, "no host probe"));
    gs_gate_result_free(&res);
    gs_analysis_destroy(bare.an);
    gs_timeline_destroy(bare.tl);
    for (int i = 0; i < N; i++) {
        gs_analysis_destroy(base[i].an);
        gs_analysis_destroy(head[i].an);
        gs_timeline_destroy(base[i].tl);
        gs_timeline_destroy(head[i].tl);
    }
}

GS_TEST(diag_mann_whitney)
{
    double x[] = {1, 2, 3}, y_lo[] = {0, 0.5, 0.7}, y_hi[] = {4, 5, 6}, u;
    GS_CHECK(fabs(gs_mann_whitney_less(x, 3, y_lo, 3, &u) - 1.0 / 20) < 1e-12 && u == 0);
    GS_CHECK(fabs(gs_mann_whitney_less(x, 3, y_hi, 3, &u) - 1.0) < 1e-12 && u == 9);
    /* y = {0.5, 2.5, 10}: U = 0 + 2 + 3 = 5; the null counts of U = 0..9 for
     * m = n = 3 are 1,1,2,3,3,3,3,2,1,1, so P(U <= 5) = 13/20. */
    double y_mid[] = {0.5, 2.5, 10};
    GS_CHECK(fabs(gs_mann_whitney_less(x, 3, y_mid, 3, &u) - 13.0 / 20) < 1e-12 && u == 5);
    /* With ties: the normal approximation against the full permutation
     * distribution of the same data (C(8,4) = 70 splits). */
    double all[8] = {1, 2, 2, 3, 3, 3, 4, 5};
    double xs[4] = {2, 3, 4, 5}, ys[4] = {1, 2, 3, 3};
    double p = gs_mann_whitney_less(xs, 4, ys, 4, &u);
    GS_CHECK(u == 3.5);
    int le = 0, tot = 0;
    for (int mask = 0; mask < 256; mask++) {
        if (__builtin_popcount((unsigned)mask) != 4)
            continue;
        double uu = 0;
        for (int i = 0; i < 8; i++)
            for (int j = 0; j < 8; j++)
                if ((mask >> i & 1) && !(mask >> j & 1))
                    uu += all[i] > all[j] ? 1 : all[i] == all[j] ? 0.5 : 0;
        tot++;
        le += uu <= u + 1e-9;
    }
    GS_CHECK_EQ_INT(tot, 70);
    GS_CHECK_MSG(fabs(p - (double)le / tot) < 0.04, "normal %.4f vs permutation %.4f", p,
                 (double)le / tot);
    /* Large samples without ties: exact and normal agree. */
    double a[25], b[25];
    gs_rng *r = gs_test_rng();
    for (int i = 0; i < 25; i++) {
        a[i] = gs_rng_unit(r) + 0.2;
        b[i] = gs_rng_unit(r);
    }
    double pe = gs_mann_whitney_less(a, 25, b, 25, &u);
    double mn = 625, sd = sqrt(625.0 * 51 / 12);
    double pn = 0.5 * erfc(-((u - mn / 2 + 0.5) / sd) / sqrt(2.0));
    GS_CHECK_MSG(fabs(pe - pn) < 0.01, "exact %.4f normal %.4f", pe, pn);
}

static int run_cli(const char *args)
{
    const char *bin = getenv("GS_BIN");
    char cmd[2400];
    snprintf(cmd, sizeof cmd, "%s %s > /dev/null 2>&1", bin, args);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

GS_TEST(diag_gate_cli_exit_codes)
{
    const char *bin = getenv("GS_BIN");
    if (!bin || access(bin, X_OK) != 0) {
        gs_test_skip("GS_BIN (the gapscope binary) not built: CLI exit codes not checked");
        return;
    }
    if (run_cli("gate --help") != 0 || run_cli("analyze --help") != 0 ||
        run_cli("report --help") != 0) {
        gs_test_skip("%s predates gate/analyze/report (stale binary): rebuild it", bin);
        return;
    }
    const char *dir = gs_test_tmpdir();
    GS_REQUIRE(write_run(dir, 6, 30, 0));
    char a[1600], empty[700];
    snprintf(empty, sizeof empty, "%s/none.ini", dir);
    GS_REQUIRE(gs_test_write_text(empty, "# no limits: only the command line's\n"));
    snprintf(a, sizeof a, "gate '%s' --thresholds '%s' --min-util 0.5 --max-gap-p99 100ms --quiet",
             dir, empty);
    GS_CHECK_EQ_INT(run_cli(a), 0);
    snprintf(a, sizeof a, "gate '%s' --thresholds '%s' --min-util 0.99 --quiet", dir, empty);
    GS_CHECK_EQ_INT(run_cli(a), 1);
    snprintf(a, sizeof a, "gate '%s' --max-cause-share tracker_lock=0.01 --min-util 0.1 --quiet", dir);
    GS_CHECK_EQ_INT(run_cli(a), 1);
    snprintf(a, sizeof a, "gate '%s' --min-util 2 --quiet", dir);
    GS_CHECK_EQ_INT(run_cli(a), 2);
    snprintf(a, sizeof a, "gate '%s/nonexistent' --quiet", dir);
    GS_CHECK_EQ_INT(run_cli(a), 2);
    char *j = slurp(dir, "gate.json"), *x = slurp(dir, "gate.junit.xml");
    GS_CHECK(j && json_valid(j) && strstr(j, "\"pass\":false"));
    GS_CHECK(x && strstr(x, "<failure") && strstr(x, "cause_share tracker_lock"));
    free(j);
    free(x);
    snprintf(a, sizeof a, "analyze '%s' --quiet", dir);
    GS_CHECK_EQ_INT(run_cli(a), 0);
    snprintf(a, sizeof a, "analyze '%s/spans.csv' --quiet", dir);
    GS_CHECK_EQ_INT(run_cli(a), 0);
    snprintf(a, sizeof a, "report '%s' --quiet --no-charts", dir);
    GS_CHECK_EQ_INT(run_cli(a), 0);
    char *s = slurp(dir, "timeline.json");
    GS_CHECK(s && json_valid(s));
    free(s);
}

GS_TEST(diag_sweep_chart)
{
    char plots[4096];
    if (!gs_gnuplot_available() || !gs_plots_dir(plots, sizeof plots, "plots")) {
        gs_test_skip("gnuplot or plots/ not found: sweep chart not drawn");
        return;
    }
    const char *dir = gs_test_tmpdir();
    char p[700];
    snprintf(p, sizeof p, "%s/sweep.dat", dir);
    FILE *f = fopen(p, "w");
    GS_REQUIRE(f);
    fputs("# suspect tracker_hold\n# x idle_mean_s idle_min_s idle_max_s util_mean n label\n"
          "0 0.1 0.09 0.12 0.95 3 \"baseline\"\n0.05 1.2 1.1 1.3 0.6 3 \"50ms\"\n\n\n"
          "# suspect malloc_trim\n0 0.1 0.09 0.12 0.95 3 \"baseline\"\n0.05 0.8 0.7 0.9 0.7 3 \"50ms\"\n",
          f);
    fclose(f);
    gs_err err;
    gs_err_clear(&err);
    GS_CHECK_OK(gs_sweep_chart(dir, plots, &err));
    char *png = slurp(dir, "charts/sweep.png"), *svg = slurp(dir, "charts/sweep.svg");
    GS_CHECK(png && !memcmp(png, "\x89PNG", 4));
    GS_CHECK(svg && strstr(svg, "<svg") && strstr(svg, "tracker_hold") && strstr(svg, "malloc_trim"));
    free(png);
    free(svg);
    /* A missing sweep.dat is an error naming the file, not a crash. */
    gs_err_clear(&err);
    snprintf(p, sizeof p, "%s/nodir", dir);
    GS_CHECK(gs_sweep_chart(p, plots, &err) != GS_OK && strstr(err.msg, "sweep.dat"));
}

/* A span of 30 days writes at most GS_UTIL_BINS_MAX utilization bins (a
 * 9-day fuzzed spans.csv once wrote 130 MB of 0.2 s bins, and a 100-year
 * one would not have finished). */
GS_TEST(diag_report_util_bins_bounded)
{
    const char *dir = gs_test_tmpdir();
    gs_run r;
    memset(&r, 0, sizeof r);
    snprintf(r.dir, sizeof r.dir, "%s", dir);
    GS_REQUIRE(gs_timeline_create(&r.tl) == GS_OK);
    gs_tl_lane *s0 = gs_tl_lane_open(r.tl, "gpu0/stream0", GS_ROLE_DEVICE, 0, 0);
    const int64_t day = 86400LL * 1000000000LL;
    gs_tl_span(s0, GS_SPAN_KERNEL, "ntt", 0, 0, 0, day, 0, NULL);
    gs_tl_span(s0, GS_SPAN_KERNEL, "msm", 0, 0, 29 * day, 30 * day, 0, NULL);
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(gs_analyze(&r.an, r.tl, NULL, &err) == GS_OK);
    GS_CHECK_OK(gs_plot_data_write(&r, &err));
    char *u = slurp(dir, "data/util_bins.dat");
    GS_REQUIRE(u);
    long rows = 0, full = 0;
    for (char *p = u, *nl; *p; p = nl ? nl + 1 : p + strlen(p)) {
        nl = strchr(p, '\n');
        if (*p == '#' || *p == '\n')
            continue;
        char *e;
        strtod(p, &e);   /* t_s */
        double x = strtod(e, &e);
        rows++;
        full += x == 1.0;
    }
    GS_CHECK_MSG(rows > GS_UTIL_BINS_MAX / 2 && rows <= GS_UTIL_BINS_MAX, "%ld bins", rows);
    /* 2 busy days of 30: the busy bins are about 1/15 of them. */
    GS_CHECK_MSG(labs(full * 15 - rows) < rows / 100, "%ld of %ld bins busy", full, rows);
    GS_CHECK(strstr(u, "bin widened from 0.200 s") != NULL);
    free(u);
    gs_run_free(&r);
}

/* jobs.csv problems are named path:line; a NUL byte is one (the lines after
 * it were once dropped without a word). */
GS_TEST(diag_jobs_csv_malformed)
{
    static const char hdr[] = "# gapscope jobs v1\n"
                              "id,kind,partitions,status,verified,intended_ns,submitted_ns,done_ns,error\n";
    static const char ok[] = "1,porep_c2,2,ok,1,10,20,30,\n";
    struct { const char *body; size_t len; int line; const char *word; } cases[] = {
        {"2,porep_c2,2,ok,1,10,20\n", 0, 4, "9 fields"},
        {"2,porep_c2,2,ok,2,10,20,30,\n", 0, 4, "verified"},
        {"2,porep_c2,2,ok,1,10,-5,30,\n", 0, 4, "times >= -1"},
        {"2,porep_c2,2,ok,1,10,20,30,\"unterminated\n", 0, 4, "9 fields"},
        {"2,po\0rep,2,ok,1,10,20,30,\n3,porep_c2,2,ok,1,10,20,30,\n", 54, 4, "NUL byte"},
    };
    char path[600];
    snprintf(path, sizeof path, "%s/jobs.csv", gs_test_tmpdir());
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        FILE *f = fopen(path, "wb");
        GS_REQUIRE(f);
        fputs(hdr, f);
        fputs(ok, f);
        fwrite(cases[i].body, 1, cases[i].len ? cases[i].len : strlen(cases[i].body), f);
        fclose(f);
        gs_job_record *v = (gs_job_record *)1;
        size_t n = 7;
        gs_err err;
        gs_err_clear(&err);
        GS_CHECK_MSG(gs_jobs_read_csv(&v, &n, path, &err) == GS_ERR_FORMAT, "case %zu accepted", i);
        GS_CHECK(v == NULL && n == 0);
        char where[700];
        snprintf(where, sizeof where, "%s:%d:", path, cases[i].line);
        GS_CHECK_MSG(strstr(err.msg, where) && strstr(err.msg, cases[i].word), "case %zu: '%s'", i,
                     err.msg);
    }
}
