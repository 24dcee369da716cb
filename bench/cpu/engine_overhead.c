/*
 * Timeline-capture overhead of the engine: the same run with capture on
 * (a gs_timeline) and off (tl = NULL), alternated, median wall time of
 * each.  A standalone measurement program (bench/cpu/), built by
 * `make bench-tools` as build/bench-tools/engine_overhead:
 *
 *   build/bench-tools/engine_overhead [rounds=7] [jobs=8] [log=9] [trim policy=under_lock]
 *
 * Each round creates a backend and an engine, warms the key cache with one
 * job (not timed), then times submit -> drain of `jobs` PoRep jobs of 3
 * partitions each, capture on, off, and off again (the A/A noise floor).
 * Prints one line per round, the medians of wall and CPU time, and the
 * capture's own cost (ns per appended span x spans).  On a shared machine
 * the wall medians move by a few percent from round to round; the
 * instruction count is the steadier witness: under valgrind --tool=callgrind
 * the same run with capture on executes ~600 more instructions per span
 * (0.005% of the run at 2^9).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "../../common/clock.h"
#include "../../prover/engine/engine.h"

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec * 1e-6;
}

static gs_trim_policy trim_policy = GS_TRIM_UNDER_LOCK;

static double one_run(int capture, int jobs, uint32_t log, size_t *spans, double *cpu)
{
    gs_err err;
    gs_err_clear(&err);
    gs_backend *be = NULL;
    gs_timeline *tl = NULL;
    gs_engine *e = NULL;
    gs_engine_config cfg;
    gs_engine_config_defaults(&cfg);
    cfg.synth_threads = 2;
    cfg.prove_threads = 1;
    cfg.trim = trim_policy;
    double wall = -1;
    if (gs_backend_cpu_create(&be, 1, &err) != GS_OK)
        goto done;
    if (capture && gs_timeline_create(&tl) != GS_OK)
        goto done;
    if (gs_engine_create(&e, &cfg, &be, 1, tl, &err) != GS_OK)
        goto done;
    gs_job_spec j = {.id = 1, .kind = GS_KIND_POREP_C2, .partitions = 1, .priority = 2,
                     .log_constraints = log};
    if (gs_engine_submit(e, &j, &err) != GS_OK || gs_engine_drain(e, 0) != GS_OK)
        goto done;
    int64_t t0 = gs_now_ns();
    double c0 = cpu_s();
    for (int i = 0; i < jobs; i++) {
        j.id = (uint64_t)(100 + i);
        j.partitions = 3;
        if (gs_engine_submit(e, &j, &err) != GS_OK)
            goto done;
    }
    if (gs_engine_drain(e, 0) != GS_OK)
        goto done;
    wall = (gs_now_ns() - t0) / 1e9;
    *cpu = cpu_s() - c0;
    size_t n;
    const gs_job_result *r = gs_engine_results(e, &n);
    for (size_t i = 0; i < n; i++)
        if (r[i].status != GS_OK || r[i].verified != 1) {
            fprintf(stderr, "job %llu: %s\n", (unsigned long long)r[i].id, r[i].error);
            wall = -1;
        }
done:
    if (err.msg[0])
        fprintf(stderr, "overhead: %s\n", err.msg);
    gs_engine_destroy(e);
    *spans = 0;
    if (tl)
        gs_timeline_spans(tl, spans);
    gs_timeline_destroy(tl);
    if (be)
        be->ops->destroy(be);
    return wall;
}

/* Cost of one span append (ns), on a lane of a scratch timeline. */
static double span_cost_ns(void)
{
    gs_timeline *tl;
    if (gs_timeline_create(&tl) != GS_OK)
        return -1;
    gs_tl_lane *l = gs_tl_lane_open(tl, "bench", GS_ROLE_OTHER, -1, -1);
    enum { N = 200000 };
    int64_t t0 = gs_now_ns();
    for (int i = 0; i < N; i++) {
        int64_t t = gs_now_ns();
        gs_tl_span(l, GS_SPAN_STEP, "fail_check", i, 0, t, t + 1, 0, NULL);
    }
    double c = (double)(gs_now_ns() - t0) / N;
    gs_timeline_destroy(tl);
    return c;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 7;
    int jobs = argc > 2 ? atoi(argv[2]) : 8;
    uint32_t log = argc > 3 ? (uint32_t)atoi(argv[3]) : 9;
    for (int t = 0; argc > 4 && t < GS_TRIM_COUNT; t++)
        if (strcmp(argv[4], gs_trim_policy_name((gs_trim_policy)t)) == 0)
            trim_policy = (gs_trim_policy)t;
    if (rounds < 1 || rounds > 100 || jobs < 1)
        return 2;
    double *on = calloc((size_t)rounds, sizeof *on), *off = calloc((size_t)rounds, sizeof *off);
    double *con = calloc((size_t)rounds, sizeof *con), *coff = calloc((size_t)rounds, sizeof *coff);
    double *aa = calloc((size_t)rounds, sizeof *aa), caa;
    size_t spans = 0, none;
    if (!on || !off || !con || !coff || !aa)
        return 1;
    for (int i = 0; i < rounds; i++) {
        /* Alternate which goes first so drift hits both alike. */
        if (i % 2) {
            off[i] = one_run(0, jobs, log, &none, &coff[i]);
            on[i] = one_run(1, jobs, log, &spans, &con[i]);
        } else {
            on[i] = one_run(1, jobs, log, &spans, &con[i]);
            off[i] = one_run(0, jobs, log, &none, &coff[i]);
        }
        /* A second capture-off run: the A/A noise floor of this machine. */
        aa[i] = one_run(0, jobs, log, &none, &caa);
        if (on[i] < 0 || off[i] < 0 || aa[i] < 0)
            return 1;
        printf("round %d: on %.4f s wall %.4f s cpu (%zu spans), off %.4f s wall %.4f s cpu, "
               "off again %.4f s wall\n", i, on[i], con[i], spans, off[i], coff[i], aa[i]);
    }
    qsort(on, (size_t)rounds, sizeof *on, cmp_d);
    qsort(off, (size_t)rounds, sizeof *off, cmp_d);
    qsort(aa, (size_t)rounds, sizeof *aa, cmp_d);
    printf("noise floor (off vs off again): median %.4f s vs %.4f s, %+.2f%%\n", off[rounds / 2],
           aa[rounds / 2], 100.0 * (aa[rounds / 2] - off[rounds / 2]) / off[rounds / 2]);
    qsort(con, (size_t)rounds, sizeof *con, cmp_d);
    qsort(coff, (size_t)rounds, sizeof *coff, cmp_d);
    double mon = on[rounds / 2], moff = off[rounds / 2];
    printf("median cpu: on %.4f s, off %.4f s, %+.2f%%\n", con[rounds / 2], coff[rounds / 2],
           100.0 * (con[rounds / 2] - coff[rounds / 2]) / coff[rounds / 2]);
    printf("median: on %.4f s, off %.4f s, overhead %+.2f%% (%d jobs x 3 partitions, 2^%u)\n",
           mon, moff, 100.0 * (mon - moff) / moff, jobs, log);
    /* The wall-time difference is within the noise of a shared machine;
     * the capture's own cost is spans x cost per span (clock read included). */
    double c = span_cost_ns();
    printf("capture cost: %.0f ns per span x %zu spans = %.3f ms = %.4f%% of the run\n", c,
           spans, c * (double)spans / 1e6, 100.0 * c * (double)spans / 1e9 / mon);
    free(on);
    free(off);
    free(con);
    free(coff);
    free(aa);
    return 0;
}
