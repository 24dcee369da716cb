/*
 * The host staging before a prove's first copy under the host's load
 * (model/model_staging.c), on issue 31's fresh H200 captures
 * (traces/h200-r3): with 12 synthesis threads the witness staging took
 * 4.5-8.4 ms where 6 threads left it 1.1-1.9 ms, and that time is the
 * GPU's idle between proves.  The 12-thread capture tells how it slows;
 * predicting 6 threads from it gives the short staging back, and its own
 * reproduction stays within a point; from the 6-thread base, where the
 * capture cannot tell, 12 threads lengthen it by processor sharing and,
 * the GPU worker spinning there, one scheduler slice (the prior of
 * model_staging.c), to about what the 12-thread runs captured.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../test/test.h"
#include "predict.h"

static const char *root(void) { return getenv("GS_SRC_ROOT") ? getenv("GS_SRC_ROOT") : "."; }

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median ms from each prove_start to its h2d_w (the staging), over the
 * proves whose staging ran beside at least min_synth synthesis steps
 * (-1: all). */
static double staging_ms(const char *spans_csv, int min_synth)
{
    gs_timeline *tl = NULL;
    gs_err err;
    if (gs_timeline_read_csv(&tl, spans_csv, &err) != GS_OK)
        return -1;
    size_t n, k = 0;
    const gs_span *sp = gs_timeline_spans(tl, &n);
    double v[256];
    for (size_t i = 0; i < n && k < 256; i++) {
        if (strcmp(sp[i].name, "prove_start") || sp[i].kind != GS_SPAN_STEP)
            continue;
        int64_t h = -1;
        for (size_t j = 0; j < n && h < 0; j++)
            if (sp[j].job == sp[i].job && sp[j].part == sp[i].part && !strcmp(sp[j].name, "h2d_w"))
                h = sp[j].start_ns;
        int syn = 0;
        for (size_t j = 0; h >= 0 && j < n; j++)
            syn += !strcmp(sp[j].name, "synth") && sp[j].start_ns <= h && sp[j].end_ns >= sp[i].start_ns;
        if (h >= 0 && syn >= min_synth)
            v[k++] = (double)(h - sp[i].start_ns) * 1e-6;
    }
    gs_timeline_destroy(tl);
    qsort(v, k, sizeof *v, cmp_d);
    return k ? v[k / 2] : -1;
}

static int predict_to(const char *capture, const char *set, const char *sub, gs_run_result *r)
{
    char cap[600], dir[600];
    snprintf(cap, sizeof cap, "%s/%s", root(), capture);
    snprintf(dir, sizeof dir, "%s/%s", gs_test_tmpdir(), sub);
    const char *sets[1] = {set};
    gs_predict_opts o = {.capture = cap, .sets = sets, .n_sets = set ? 1 : 0,
                         .run = {.out_dir = dir, .quiet = 1, .no_charts = 1}};
    gs_err err;
    gs_err_clear(&err);
    gs_status st = gs_scn_predict(&o, r, &err);
    GS_CHECK_MSG(st == GS_OK, "%s %s: %s", capture, set ? set : "", err.msg);
    return st == GS_OK;
}

GS_TEST(predict_staging_slows_with_the_hosts_load)
{
    char path[700];
    gs_err err;
    gs_err_clear(&err);
    /* The 12-thread capture tells the curve: beyond the cores, a copy
     * waits (its speed at 22 runnable threads well under its share). */
    snprintf(path, sizeof path, "%s/traces/h200-r3/changes/synth12/spans.csv", root());
    gs_model *m = NULL;
    GS_REQUIRE(gs_model_load(&m, path, &err) == GS_OK);
    double s22 = gs_model_speed(m, GS_SPEED_STAGING, 22), s16 = gs_model_speed(m, GS_SPEED_STAGING, 16);
    gs_model_destroy(m);
    GS_CHECK_MSG(s16 == 1 && s22 < 0.5, "staging speed at 16: %.3f, at 22: %.3f", s16, s22);
    double cap12 = staging_ms(path, 12);
    gs_run_result r;
    gs_util_summary u;
    /* Its reproduction, the staging included. */
    if (!predict_to("traces/h200-r3/changes/synth12", NULL, "stg-repro", &r))
        return;
    gs_util_summary_of_run(&u, &r);
    gs_util_summary c;
    GS_REQUIRE(gs_util_summary_of(&c, path, &err) == GS_OK);
    GS_CHECK_MSG(fabs(u.util - c.util) < 0.01, "reproduction %.4f, captured %.4f", u.util, c.util);
    /* Six threads from it: the staging as short as the 6-thread runs'. */
    if (!predict_to("traces/h200-r3/changes/synth12", "engine.synth_threads=6", "stg-6", &r))
        return;
    snprintf(path, sizeof path, "%s/spans.csv", r.dir);
    double p6 = staging_ms(path, 6);
    snprintf(path, sizeof path, "%s/traces/h200-r3/base/base-1/spans.csv", root());
    double base = staging_ms(path, -1);
    GS_CHECK_MSG(cap12 > 4 && p6 > 0 && p6 < 1.5 * base, "staging beside 12 threads %.2f ms captured; predicted "
                 "beside 6: %.2f ms (the 6-thread base: %.2f ms)", cap12, p6, base);
    /* From the base (the capture cannot tell, no profile's staging):
     * processor sharing, 8 copy threads among 22 on 16 cores, and the
     * scheduler's slice (3 ms on 16 CPUs): near the captured. */
    if (!predict_to("traces/h200-r3/base/base-1", "engine.synth_threads=12", "stg-12", &r))
        return;
    snprintf(path, sizeof path, "%s/spans.csv", r.dir);
    double p12 = staging_ms(path, 12);
    GS_CHECK_MSG(p12 > base + 3 && p12 > 0.6 * cap12 && p12 < 1.4 * cap12,
                 "from the base, beside 12 threads: %.2f ms (base %.2f ms, captured %.2f ms)", p12, base, cap12);
    if (gs_test_verbose())
        printf("  staging: captured beside 12 threads %.2f ms; from it beside 6 %.2f ms (base %.2f); from the base "
               "beside 12 %.2f ms\n", cap12, p6, base, p12);
}

/* The slice prior is taken only where nothing measured it: not when the
 * capture's copies ran on both sides of the cores (its beta has it), nor
 * with a profile whose copy's caller spun (staging_spin_ms), nor on a CPU
 * backend's capture (no staging); and it is the kernel's default for the
 * captured CPUs. */
GS_TEST(predict_staging_slice_only_where_unmeasured)
{
    char cap[600], prof[600], spun[700];
    gs_err err;
    gs_err_clear(&err);
    snprintf(cap, sizeof cap, "%s/traces/h200-r3/base/base-1/spans.csv", root());
    gs_model *m = NULL;
    GS_REQUIRE(gs_model_load(&m, cap, &err) == GS_OK);
    double s0 = gs_model_staging_slice_s(m);
    int noted = strstr(gs_model_notes(m), "scheduler slice") != NULL;
    gs_model_destroy(m);
    GS_CHECK_MSG(fabs(s0 - 3e-3) < 1e-9 && noted, "base (16 CPUs): slice %.6f s, noted %d", s0, noted);
    /* Its 12-thread run measured the copies beyond the cores. */
    snprintf(cap, sizeof cap, "%s/traces/h200-r3/changes/synth12/spans.csv", root());
    GS_REQUIRE(gs_model_load(&m, cap, &err) == GS_OK);
    double s12 = gs_model_staging_slice_s(m);
    gs_model_destroy(m);
    GS_CHECK_MSG(s12 == 0, "synth12 capture: slice %.6f s", s12);
    /* A profile whose copy's caller slept keeps the prior; one whose
     * caller spun replaces it. */
    snprintf(cap, sizeof cap, "%s/traces/h200-r3/base/base-1/spans.csv", root());
    snprintf(prof, sizeof prof, "%s/traces/h100-r3s6-issue31/profile-end.json", root());
    GS_REQUIRE(gs_model_load_profiled(&m, cap, prof, &err) == GS_OK);
    double sp = gs_model_staging_slice_s(m);
    gs_model_destroy(m);
    GS_CHECK_MSG(sp > 0, "sleeping caller's profile: slice %.6f s", sp);
    FILE *in = fopen(prof, "r");
    snprintf(spun, sizeof spun, "%s/profile-spun.json", gs_test_tmpdir());
    FILE *out = fopen(spun, "w");
    GS_REQUIRE(in && out);
    int c, done = 0;
    while ((c = fgetc(in)) != EOF) {
        fputc(c, out);
        if (c == '{' && !done) {
            fputs("\"staging_spin_ms\":50,", out);
            done = 1;
        }
    }
    fclose(in);
    fclose(out);
    GS_REQUIRE(gs_model_load_profiled(&m, cap, spun, &err) == GS_OK);
    double ss = gs_model_staging_slice_s(m);
    gs_model_destroy(m);
    GS_CHECK_MSG(ss == 0, "spinning caller's profile: slice %.6f s", ss);
    /* The same capture said to be the CPU backend's. */
    snprintf(spun, sizeof spun, "%s/cpu-backend.spans.csv", gs_test_tmpdir());
    in = fopen(cap, "r");
    out = fopen(spun, "w");
    GS_REQUIRE(in && out);
    char line[4096];
    while (fgets(line, sizeof line, in))
        fputs(strcmp(line, "# meta backend=cuda\n") ? line : "# meta backend=cpu\n", out);
    fclose(in);
    fclose(out);
    GS_REQUIRE(gs_model_load(&m, spun, &err) == GS_OK);
    double sc = gs_model_staging_slice_s(m);
    gs_model_destroy(m);
    GS_CHECK_MSG(sc == 0, "CPU backend: slice %.6f s", sc);
}
