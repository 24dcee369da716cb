/* The scenario library loads; a scenario run twice draws the same arrivals
 * and injections; a tiny sweep writes its tables. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../timeline/timeline.h"
#include "../test/test.h"
#include "run.h"
#include "test_scn_util.h"

static const char *root(void) { return getenv("GS_SRC_ROOT") ? getenv("GS_SRC_ROOT") : "."; }

GS_TEST(library_scenarios_load)
{
    char dir[600];
    snprintf(dir, sizeof dir, "%s/scenarios", root());
    DIR *d = opendir(dir);
    if (!d) {
        gs_test_skip("%s not found (run from the repository root)", dir);
        return;
    }
    int n = 0, have_demo = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".ini"))
            continue;
        char path[1200];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        gs_scenario *s;
        gs_err err;
        gs_status st = ts_load(&s, path, 1, &err);
        GS_CHECK_MSG(st == GS_OK, "%s: %s", e->d_name, err.msg);
        /* Every library file says what it reproduces in its opening comment. */
        FILE *f = fopen(path, "r");
        char line[256] = "";
        if (f) {
            if (!fgets(line, sizeof line, f))
                line[0] = '\0';
            fclose(f);
        }
        GS_CHECK_MSG(line[0] == ';' && strstr(line, e->d_name), "%s does not open with a comment naming it", e->d_name);
        /* Regression scenarios (a fixed bug) open with Expected: and Buggy: lines. */
        if (!strncmp(e->d_name, "regress-", 8) || !strcmp(e->d_name, "demo-fixed.ini")) {
            char head[2048] = "";
            f = fopen(path, "r");
            size_t got = f ? fread(head, 1, sizeof head - 1, f) : 0;
            head[got] = '\0';
            if (f)
                fclose(f);
            char *ex = strstr(head, "; Expected:"), *bug = strstr(head, "; Buggy:"), *sect = strchr(head, '[');
            GS_CHECK_MSG(ex && bug && (!sect || (ex < sect && bug < sect)), "%s lacks opening Expected:/Buggy: lines",
                         e->d_name);
        }
        if (st == GS_OK && s->description[0] == '\0')
            GS_CHECK_MSG(0, "%s has no [global] description", e->d_name);
        if (!strcmp(e->d_name, "demo.ini")) {
            have_demo = 1;
            GS_CHECK(s && s->backend == GS_BACKEND_CPU && s->engine.trim == GS_TRIM_UNDER_LOCK);
            GS_CHECK(s && s->engine.inj[GS_INJ_MALLOC_TRIM].enabled && s->engine.inj[GS_INJ_MALLOC_TRIM].real);
        }
        if (!strcmp(e->d_name, "demo-fixed.ini"))
            GS_CHECK(s && s->engine.trim == GS_TRIM_OFF && s->engine.inj[GS_INJ_MALLOC_TRIM].real);
        if (!strcmp(e->d_name, "demo-trim-background.ini"))
            GS_CHECK(s && s->engine.trim == GS_TRIM_BACKGROUND && s->engine.inj[GS_INJ_MALLOC_TRIM].real);
        gs_scenario_destroy(s);
        n++;
    }
    closedir(d);
    GS_CHECK(have_demo);
    GS_CHECK_MSG(n >= 8, "only %d scenarios", n);
}

/* Injected delays drawn in a run, keyed "job/part/point=delay", sorted. */
static int collect_draws(char ***out, const char *run_dir)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/spans.csv", run_dir);
    gs_timeline *tl = NULL;
    gs_err err;
    gs_err_clear(&err);
    if (gs_timeline_read_csv(&tl, path, &err) != GS_OK)
        return -1;
    size_t n;
    const gs_span *sp = gs_timeline_spans(tl, &n);
    char **keys = calloc(n + 1, sizeof *keys);
    int k = 0;
    for (size_t i = 0; keys && i < n; i++) {
        if (sp[i].kind != GS_SPAN_INJECTED)
            continue;
        const char *d = strstr(sp[i].args, "delay_s=");
        char buf[160];
        snprintf(buf, sizeof buf, "%d/%d/%s=%.40s", sp[i].job, sp[i].part, sp[i].name, d ? d + 8 : "?");
        keys[k++] = strdup(buf);
    }
    gs_timeline_destroy(tl);
    qsort(keys, (size_t)k, sizeof *keys, (int (*)(const void *, const void *))strcmp);
    *out = keys;
    return k;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

GS_TEST(library_same_seed_same_draws)
{
    const char *text =
        "[engine]\nsynth_threads = 2\nprove_threads = 1\nseed = 11\ntrim = after_unlock\nverify = after_unlock\n"
        "[jobs]\nkinds = porep_c2:1,window_post:1\npartitions = porep_c2:2\ncount = 3\n"
        "interarrival = uniform:1ms,9ms\nsize_map = porep_c2:9,window_post:9\nreplay = afap\n"
        "[inject.tracker_hold]\ndist = uniform:1ms,4ms\nprobability = 0.7\n"
        "[inject.handoff]\ndist = lognormal:median=2ms,sigma=0.5\n";
    char *draws[2][64];
    int nd[2];
    char *arr[2] = {NULL, NULL};
    for (int run = 0; run < 2; run++) {
        char dir[600], sub[16];
        snprintf(sub, sizeof sub, "run%d", run);
        gs_run_result r;
        GS_REQUIRE(ts_run_text(text, "det.ini", sub, 1, &r, dir, sizeof dir));
        GS_CHECK_EQ_INT(r.completed, 3);
        char **keys = NULL;
        nd[run] = collect_draws(&keys, dir);
        GS_REQUIRE(nd[run] > 0 && nd[run] <= 64);
        memcpy(draws[run], keys, (size_t)nd[run] * sizeof *keys);
        free(keys);
        char p[700];
        snprintf(p, sizeof p, "%s/arrivals.jsonl", dir);
        FILE *f = fopen(p, "r");
        GS_REQUIRE(f);
        size_t len = 0;
        arr[run] = NULL;
        FILE *m = open_memstream(&arr[run], &len);
        int c;
        while ((c = fgetc(f)) != EOF)
            fputc(c, m);
        fclose(f);
        fclose(m);
    }
    GS_CHECK(arr[0] && arr[1] && !strcmp(arr[0], arr[1]));
    GS_CHECK_EQ_INT(nd[0], nd[1]);
    qsort(draws[0], (size_t)nd[0], sizeof(char *), cmp_str);
    qsort(draws[1], (size_t)nd[1], sizeof(char *), cmp_str);
    for (int i = 0; i < nd[0] && i < nd[1]; i++)
        GS_CHECK_MSG(!strcmp(draws[0][i], draws[1][i]), "draw %d: %s vs %s", i, draws[0][i], draws[1][i]);
    /* Not a constant: the uniform and lognormal draws differ between occurrences. */
    int distinct = 0;
    for (int i = 1; i < nd[0]; i++)
        distinct += strcmp(strchr(draws[0][i], '='), strchr(draws[0][i - 1], '=')) != 0;
    GS_CHECK(distinct > 0);
    for (int run = 0; run < 2; run++) {
        for (int i = 0; i < nd[run]; i++)
            free(draws[run][i]);
        free(arr[run]);
    }
}

GS_TEST(library_tiny_sweep)
{
    const char *dir = gs_test_tmpdir();
    char scn[600], out[600];
    snprintf(scn, sizeof scn, "%s/sw.ini", dir);
    snprintf(out, sizeof out, "%s/sweep", dir);
    GS_REQUIRE(gs_test_write_text(scn, "; sw.ini\n[engine]\nsynth_threads = 1\nprove_threads = 1\ntrim = off\n"
                                       "verify = after_unlock\n[jobs]\nkinds = circuit:1\ncount = 2\n"
                                       "interarrival = fixed:1ms\nsize_map = circuit:9\nreplay = afap\n"));
    const char *vary[] = {"inject.tracker_hold=0ms,20ms"};
    gs_sweep_opts o = {.scenario = scn, .vary = vary, .n_vary = 1, .reps = 1, .seed = 3, .out_dir = out, .quiet = 1};
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(gs_scn_sweep(&o, &err) == GS_OK || (gs_test_fail(__FILE__, __LINE__, "%s", err.msg), 0));
    char p[700], line[1024];
    snprintf(p, sizeof p, "%s/sweep.csv", out);
    FILE *f = fopen(p, "r");
    GS_REQUIRE(f);
    int rows = 0, baseline = 0;
    while (fgets(line, sizeof line, f))
        if (rows++ > 0) {
            int run, point, rep, base;
            if (sscanf(line, "%d,%d,%d,%d", &run, &point, &rep, &base) == 4)
                baseline += base;
        }
    fclose(f);
    GS_CHECK_EQ_INT(rows, 4); /* header + 2 points + 1 baseline */
    GS_CHECK_EQ_INT(baseline, 1);
    snprintf(p, sizeof p, "%s/sweep.dat", out);
    f = fopen(p, "r");
    GS_REQUIRE(f);
    GS_CHECK(fgets(line, sizeof line, f) && !strncmp(line, "# suspect inject.tracker_hold", 29));
    fclose(f);
    snprintf(p, sizeof p, "%s/sensitivity.csv", out);
    f = fopen(p, "r");
    GS_REQUIRE(f);
    GS_CHECK(fgets(line, sizeof line, f) && fgets(line, sizeof line, f) && !strncmp(line, "inject.tracker_hold,3,", 22));
    fclose(f);
}
