/* gs_render (render.h): which steps run for which options, the charts
 * note, and a bad input told apart from a failed output. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/outfile.h"
#include "../test/test.h"
#include "render.h"
#include "test_report_util.h"

#define MS 1000000LL

/* A device with four kernels and three gaps, a worker launching them. */
static int write_spans(const char *dir)
{
    gs_timeline *tl;
    if (gs_timeline_create(&tl) != GS_OK)
        return 0;
    gs_tl_lane *dev = gs_tl_lane_open(tl, "cpu0/stream0", GS_ROLE_DEVICE, 0, 0);
    gs_tl_lane *w = gs_tl_lane_open(tl, "gpu_worker/0.0", GS_ROLE_GPU_WORKER, 0, -1);
    for (int i = 0; i < 4; i++) {
        int64_t t = (10 + 40 * i) * MS;
        gs_tl_span(w, GS_SPAN_STEP, "prove_start", i, 0, t - 2 * MS, t + 20 * MS, 0, NULL);
        gs_tl_span(dev, GS_SPAN_KERNEL, "msm", i, 0, t, t + 20 * MS, 0, NULL);
    }
    int ok = tr_write_spans(tl, dir);
    gs_timeline_destroy(tl);
    return ok;
}

static int has(const char *dir, const char *name)
{
    char p[700];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return access(p, F_OK) == 0;
}

/* Whether DIR/report.md holds both texts (b may be NULL); says why not. */
static int report_says(const char *dir, const char *a, const char *b)
{
    char p[700], *md = NULL;
    size_t n;
    gs_err err;
    gs_err_clear(&err);
    snprintf(p, sizeof p, "%s/report.md", dir);
    if (gs_read_file(&md, &n, p, &err) != GS_OK) {
        gs_test_fail(__FILE__, __LINE__, "%s", err.msg);
        return 0;
    }
    int ok = strstr(md, a) && (!b || strstr(md, b));
    if (!ok)
        gs_test_fail(__FILE__, __LINE__, "report.md lacks '%s' or '%s':\n%s", a, b ? b : "", md);
    free(md);
    return ok;
}

/* 1 when report.md names the run directory dir (as given, or as Markdown
 * escapes it): what a run directory holds names no machine path. */
static int report_names_dir(const char *dir)
{
    char p[700], esc[1400], *md = NULL;
    size_t n, k = 0;
    gs_err err;
    gs_err_clear(&err);
    snprintf(p, sizeof p, "%s/report.md", dir);
    if (gs_read_file(&md, &n, p, &err) != GS_OK)
        return 0;
    for (const char *c = dir; *c && k + 2 < sizeof esc; c++) {
        if (*c == '_')
            esc[k++] = '\\';
        esc[k++] = *c;
    }
    esc[k] = '\0';
    int named = strstr(md, dir) || strstr(md, esc);
    free(md);
    return named;
}

static gs_render_opts quiet_opts(void)
{
    gs_render_opts o;
    gs_render_opts_defaults(&o);
    o.quiet = 1;
    return o;
}

GS_TEST(report_render_steps)
{
    const char *dir = gs_test_tmpdir();
    GS_REQUIRE(write_spans(dir));
    gs_render_opts o = quiet_opts();
    gs_render_result res;
    gs_err err;
    gs_err_clear(&err);
    /* Summary only: what a sweep's runs and --no-report ask for. */
    GS_CHECK_OK(gs_render(&res, dir, &o, &err));
    GS_CHECK(res.loaded && has(dir, "summary.json") && !has(dir, "data") &&
             !has(dir, "timeline.json") && !has(dir, "report.md"));
    GS_CHECK_MSG(res.run.an && res.run.an->dev[0].n_gaps == 3, "gaps: %zu",
                 res.run.an ? res.run.an->dev[0].n_gaps : 0);
    GS_CHECK(strstr(res.verdict, "idle") != NULL);
    gs_render_result_free(&res);
    /* Data: data/ and the timeline.json the directory lacked. */
    o.data = 1;
    GS_CHECK_OK(gs_render(&res, dir, &o, &err));
    GS_CHECK(has(dir, "data/gaps.dat") && has(dir, "timeline.json") && !has(dir, "report.md"));
    gs_render_result_free(&res);
    /* The report without charts says so; --top reaches it. */
    o.report = 1;
    o.report_opts.top_gaps = 1;
    GS_CHECK_OK(gs_render(&res, dir, &o, &err));
    GS_CHECK_EQ_INT(res.charts_drawn, 0);
    report_says(dir, "Charts were not drawn (--no-charts).", NULL);
    GS_CHECK(has(dir, "report.html"));
    gs_render_result_free(&res);
}

GS_TEST(report_render_without_gnuplot)
{
    const char *dir = gs_test_tmpdir();
    GS_REQUIRE(write_spans(dir));
    gs_render_opts o = quiet_opts();
    o.charts = o.report = 1;
    char *path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
    setenv("PATH", "/nonexistent", 1);
    gs_render_result res;
    gs_err err;
    gs_err_clear(&err);
    gs_status st = gs_render(&res, dir, &o, &err);
    if (path) {
        setenv("PATH", path, 1);
        free(path);
    }
    /* Not an error: the report is written and says why it has no charts. */
    GS_CHECK_OK(st);
    GS_CHECK_EQ_INT(res.charts_drawn, 0);
    report_says(dir, "Charts were not drawn: ", "gnuplot not found");
    report_says(dir, "Source timeline: spans.csv in this run directory.", NULL);
    GS_CHECK_MSG(dir[0] != '/' || !report_names_dir(dir), "report.md names %s", dir);
    gs_render_result_free(&res);
}

GS_TEST(report_render_input_or_output_failure)
{
    const char *dir = gs_test_tmpdir();
    gs_render_opts o = quiet_opts();
    gs_render_result res;
    gs_err err;
    char p[700];
    /* No run there: not loaded. */
    gs_err_clear(&err);
    snprintf(p, sizeof p, "%s/none", dir);
    GS_CHECK(gs_render(&res, p, &o, &err) == GS_ERR_IO);
    GS_CHECK(!res.loaded && strstr(err.msg, "none"));
    gs_render_result_free(&res);
    /* A spans.csv that is not one: not loaded, the file named. */
    snprintf(p, sizeof p, "%s/bad", dir);
    GS_REQUIRE(mkdir(p, 0777) == 0);
    snprintf(p, sizeof p, "%s/bad/spans.csv", dir);
    GS_REQUIRE(gs_test_write_text(p, "not,a,timeline\n1,2\n"));
    gs_err_clear(&err);
    snprintf(p, sizeof p, "%s/bad", dir);
    GS_CHECK(gs_render(&res, p, &o, &err) != GS_OK);
    GS_CHECK_MSG(!res.loaded && strstr(err.msg, "spans.csv"), "%s", err.msg);
    gs_render_result_free(&res);
    /* A run read, its summary.json not writable: loaded, then failed. */
    snprintf(p, sizeof p, "%s/ro", dir);
    GS_REQUIRE(mkdir(p, 0777) == 0 && write_spans(p));
    snprintf(p, sizeof p, "%s/ro/summary.json", dir);
    GS_REQUIRE(mkdir(p, 0777) == 0);
    gs_err_clear(&err);
    snprintf(p, sizeof p, "%s/ro", dir);
    GS_CHECK(gs_render(&res, p, &o, &err) != GS_OK);
    GS_CHECK_MSG(res.loaded && strstr(err.msg, "summary.json"), "%s", err.msg);
    gs_render_result_free(&res);
}
