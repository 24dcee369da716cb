/*
 * A modelled run is repeatable: the same capture and settings give the
 * same spans every time, whatever the host's scheduling (common/clock.h,
 * "Determinism"; model/MODEL.md).  The case that broke it: threads the
 * virtual clock woke at one instant ran in parallel and took the engine's
 * tracker mutex in the host's order, so with the tracker held 200 ms per
 * partition (an injection) the predicted utilization of traces/h200-r3's
 * base-1 moved between 37.9% and 41.6% from run to run.
 *
 * Expected: every run's spans.csv equal to the first's (times taken from
 * the run's start: the virtual clock starts at the host's clock), its
 * utilization and idle time equal to the digit.
 * Buggy: different tracker lock orders, different spans and utilization.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../test/test.h"
#include "predict.h"

static const char *root(void) { return getenv("GS_SRC_ROOT") ? getenv("GS_SRC_ROOT") : "."; }

/* The spans of dir/spans.csv, times relative to the meta run.start_ns, as
 * one malloc'd text (comments and the header left out); NULL on error. */
static char *spans_from_start(const char *dir, int *lock_waits)
{
    char path[700], line[4096];
    snprintf(path, sizeof path, "%s/spans.csv", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t len = 0, cap = 1 << 16;
    char *out = malloc(cap);
    int64_t t0 = 0;
    *lock_waits = 0;
    while (out && fgets(line, sizeof line, f)) {
        if (!strncmp(line, "# meta run.start_ns=", 20))
            t0 = strtoll(line + 20, NULL, 10);
        if (line[0] == '#' || !strncmp(line, "start_ns,", 9))
            continue;
        char *p = line, *q;
        int64_t a = strtoll(p, &q, 10);
        int64_t b = strtoll(q + 1, &p, 10);
        *lock_waits += strstr(p, ",lock_wait,tracker,") != NULL;
        size_t need = len + strlen(p) + 64;
        if (need > cap) {
            char *g = realloc(out, cap = 2 * need);
            if (!g) {
                free(out);
                out = NULL;
                break;
            }
            out = g;
        }
        len += (size_t)sprintf(out + len, "%" PRId64 ",%" PRId64 "%s", a - t0, b - t0, p);
    }
    fclose(f);
    return out;
}

GS_TEST(predict_repeats_exactly_under_lock_contention)
{
    char cap[600], dir[600];
    snprintf(cap, sizeof cap, "%s/traces/h200-r3/base/base-1", root());
    const char *sets[2] = {"inject.tracker_hold.enabled=yes", "inject.tracker_hold.dist=fixed:200ms"};
    char *first = NULL;
    gs_util_summary u0 = {0};
    for (int i = 0; i < 4; i++) {
        snprintf(dir, sizeof dir, "%s/repeat-%d", gs_test_tmpdir(), i);
        gs_predict_opts o = {.capture = cap, .sets = sets, .n_sets = 2,
                             .run = {.out_dir = dir, .quiet = 1, .no_charts = 1}};
        gs_run_result r;
        gs_err err;
        gs_err_clear(&err);
        gs_status st = gs_scn_predict(&o, &r, &err);
        GS_CHECK_MSG(st == GS_OK, "predict %s: %s", cap, err.msg);
        if (st != GS_OK)
            break;
        gs_util_summary u;
        gs_util_summary_of_run(&u, &r);
        int waits = 0;
        char *spans = spans_from_start(dir, &waits);
        GS_CHECK_MSG(spans != NULL, "cannot read %s/spans.csv", dir);
        if (!spans)
            break;
        if (i == 0) {
            /* The scenario does contend: finalizers and the prep thread
             * queue on the held tracker lock. */
            GS_CHECK_MSG(waits >= 10, "only %d tracker lock waits", waits);
            first = spans;
            u0 = u;
            continue;
        }
        GS_CHECK_MSG(u.util == u0.util && u.idle_s == u0.idle_s,
                     "run %d: util %.4f%% idle %.6f s, run 0: %.4f%% %.6f s", i, 100 * u.util, u.idle_s,
                     100 * u0.util, u0.idle_s);
        if (strcmp(spans, first) != 0) {
            size_t k = 0;
            while (spans[k] && spans[k] == first[k])
                k++;
            size_t ln = 1;
            for (size_t j = 0; j < k; j++)
                ln += first[j] == '\n';
            gs_test_fail(__FILE__, __LINE__, "run %d: spans differ from run 0's from span %zu on", i, ln);
        }
        free(spans);
    }
    free(first);
}
