/*
 * Engine tests: injection draws (pure, reproducible, distribution shapes),
 * the same injected spans in two runs with the same seeds, and the real
 * malloc_trim mode on a fragmented heap.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "engine_test.h"

GS_TEST(engine_injection_draws_are_pure_and_shaped)
{
    gs_injection in;
    memset(&in, 0, sizeof in);
    in.enabled = 1;
    in.probability = 1.0;
    in.seed = gs_rng_u64(gs_test_rng());
    double d1, d2;
    /* Disabled never fires. */
    in.enabled = 0;
    GS_CHECK(!gs_injection_draw(&in, GS_INJ_SYNTH, 1, 0, &d1) && d1 == 0.0);
    in.enabled = 1;
    /* Fixed. */
    in.dist.kind = GS_DIST_FIXED;
    in.dist.a = 0.25;
    GS_CHECK(gs_injection_draw(&in, GS_INJ_SYNTH, 1, 0, &d1) && d1 == 0.25);
    /* Uniform: in range, reproducible per (point, job, part), varying across. */
    in.dist.kind = GS_DIST_UNIFORM;
    in.dist.a = 0.01;
    in.dist.b = 0.03;
    double sum = 0;
    int distinct = 0;
    for (int i = 0; i < 2000; i++) {
        GS_REQUIRE(gs_injection_draw(&in, GS_INJ_HOST_PREP, (uint64_t)i, i % 7, &d1));
        GS_REQUIRE(gs_injection_draw(&in, GS_INJ_HOST_PREP, (uint64_t)i, i % 7, &d2));
        GS_CHECK(d1 == d2 && d1 >= 0.01 && d1 <= 0.03);
        double d3;
        gs_injection_draw(&in, GS_INJ_HANDOFF, (uint64_t)i, i % 7, &d3);
        distinct += d3 != d1;
        sum += d1;
    }
    GS_CHECK(fabs(sum / 2000 - 0.02) < 0.001);
    GS_CHECK(distinct > 1990);
    /* Lognormal: the sample median is near the median parameter. */
    in.dist.kind = GS_DIST_LOGNORMAL;
    in.dist.a = 0.08;
    in.dist.b = 0.5;
    int below = 0;
    for (int i = 0; i < 4000; i++) {
        gs_injection_draw(&in, GS_INJ_MALLOC_TRIM, (uint64_t)i, 0, &d1);
        GS_CHECK(d1 > 0);
        below += d1 < 0.08;
    }
    GS_CHECK(below > 1800 && below < 2200);
    /* Empirical: only the given samples. */
    double samples[3] = {0.1, 0.2, 0.7};
    in.dist.kind = GS_DIST_EMPIRICAL;
    in.dist.samples = samples;
    in.dist.n_samples = 3;
    int seen[3] = {0, 0, 0};
    for (int i = 0; i < 300; i++) {
        gs_injection_draw(&in, GS_INJ_VERIFY, (uint64_t)i, -1, &d1);
        for (int k = 0; k < 3; k++)
            seen[k] += d1 == samples[k];
    }
    GS_CHECK(seen[0] + seen[1] + seen[2] == 300 && seen[0] > 50 && seen[1] > 50 && seen[2] > 50);
    /* Probability. */
    in.dist.kind = GS_DIST_FIXED;
    in.probability = 0.3;
    int fired = 0;
    for (int i = 0; i < 5000; i++)
        fired += gs_injection_draw(&in, GS_INJ_DEALLOC, (uint64_t)i, 1, &d1);
    GS_CHECK(fired > 1300 && fired < 1700);
    /* Another seed draws differently. */
    gs_injection in2 = in;
    in2.seed = in.seed + 1;
    int differ = 0;
    for (int i = 0; i < 200; i++)
        differ += gs_injection_draw(&in, GS_INJ_DEALLOC, (uint64_t)i, 1, &d1) !=
                  gs_injection_draw(&in2, GS_INJ_DEALLOC, (uint64_t)i, 1, &d2);
    GS_CHECK(differ > 40);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One run's injected spans as sorted "name|job|part|args" lines. */
static char **inj_lines(const gs_engine_config *cfg, size_t *count)
{
    et_run r;
    char **lines = NULL;
    *count = 0;
    if (!et_start(&r, cfg, 0))
        goto done;
    et_submit(r.e, GS_KIND_POREP_C2, 41, 4);
    et_submit(r.e, GS_KIND_WINDOW_POST, 42, 1);
    et_submit(r.e, GS_KIND_SNAP_DEALS, 43, 3);
    GS_CHECK_OK(gs_engine_drain(r.e, ET_DRAIN_NS));
    et_stop(&r);
    size_t n;
    const gs_span *s = gs_timeline_spans(r.tl, &n);
    lines = calloc(n + 1, sizeof *lines);
    for (size_t i = 0; lines && i < n; i++) {
        if (s[i].kind != GS_SPAN_INJECTED)
            continue;
        GS_CHECK(s[i].flags & GS_SPAN_F_INJECTED);
        char buf[512];
        snprintf(buf, sizeof buf, "%s|%d|%d|%s", s[i].name, s[i].job, s[i].part, s[i].args);
        lines[(*count)++] = strdup(buf);
    }
    if (lines)
        qsort(lines, *count, sizeof *lines, cmp_str);
done:
    et_free(&r);
    return lines;
}

static void free_lines(char **l, size_t n)
{
    for (size_t i = 0; l && i < n; i++)
        free(l[i]);
    free(l);
}

GS_TEST(engine_injection_same_seed_same_spans)
{
    gs_engine_config cfg;
    et_config(&cfg);
    cfg.synth_threads = 2;
    cfg.gpu_workers_per_device = 2;
    gs_injection *in = cfg.inj;
    in[GS_INJ_SYNTH] = (gs_injection){.enabled = 1, .dist = {GS_DIST_UNIFORM, 0.0, 0.004, 0, 0},
                                      .probability = 0.6, .seed = 11};
    in[GS_INJ_HOST_PREP] = (gs_injection){.enabled = 1, .dist = {GS_DIST_LOGNORMAL, 0.001, 0.5, 0, 0},
                                          .probability = 0.5, .seed = 12};
    in[GS_INJ_TRACKER_HOLD] = (gs_injection){.enabled = 1, .dist = {GS_DIST_FIXED, 0.002, 0, 0, 0},
                                             .probability = 0.5, .seed = 13};
    in[GS_INJ_HANDOFF] = (gs_injection){.enabled = 1, .dist = {GS_DIST_UNIFORM, 0.0, 0.002, 0, 0},
                                        .probability = 1.0, .seed = 14};
    in[GS_INJ_VERIFY] = (gs_injection){.enabled = 1, .dist = {GS_DIST_FIXED, 0.001, 0, 0, 0},
                                       .probability = 1.0, .seed = 15};
    size_t n1, n2, n3;
    char **a = inj_lines(&cfg, &n1);
    char **b = inj_lines(&cfg, &n2);
    GS_REQUIRE(a && b);
    GS_CHECK(n1 >= 8);
    GS_CHECK_EQ_INT(n1, n2);
    for (size_t i = 0; i < n1 && i < n2; i++)
        GS_CHECK_MSG(strcmp(a[i], b[i]) == 0, "run 1: %s\n    run 2: %s", a[i], b[i]);
    /* Verify fires once per job (part -1), handoff once per partition. */
    size_t verify = 0, handoff = 0;
    for (size_t i = 0; i < n1; i++) {
        verify += strncmp(a[i], "inj:verify|", 11) == 0;
        handoff += strncmp(a[i], "inj:handoff|", 12) == 0;
    }
    GS_CHECK_EQ_INT(verify, 3);
    GS_CHECK_EQ_INT(handoff, 8);
    /* Other seeds, other draws. */
    for (int i = 0; i < GS_INJ_COUNT; i++)
        cfg.inj[i].seed += 100;
    char **c = inj_lines(&cfg, &n3);
    GS_REQUIRE(c);
    int same = n3 == n1;
    for (size_t i = 0; same && i < n1; i++)
        same = strcmp(a[i], c[i]) == 0;
    GS_CHECK(!same);
    free_lines(a, n1);
    free_lines(b, n2);
    free_lines(c, n3);
}

GS_TEST(engine_malloc_trim_real_mode_on_fragmented_heap)
{
    gs_engine_config cfg;
    et_config(&cfg);
    cfg.inj[GS_INJ_MALLOC_TRIM] = (gs_injection){.enabled = 1, .probability = 1.0, .seed = 3,
                                                 .real = 1, .frag_bytes = 16u << 20};
    /* One pooled finalizer: two concurrent churn rounds would skip one
     * (heapfrag.c), and the count below is exact. */
    cfg.finalizer_threads = 1;
    et_run r;
    if (!et_start(&r, &cfg, 0))
        goto done;
    et_one_verified(&r, GS_KIND_POREP_C2, 5, 2);
    et_stop(&r);
    size_t n;
    const gs_span *s = gs_timeline_spans(r.tl, &n);
    int churn = 0, trims = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i].kind == GS_SPAN_INJECTED && strcmp(s[i].name, "inj:malloc_trim") == 0) {
            churn++;
            GS_CHECK(strstr(s[i].args, "mode=real") && strstr(s[i].args, "phase=fragment"));
            const char *f = strstr(s[i].args, "freed=");
            GS_CHECK(f && strtoull(f + 6, NULL, 10) > 0);
        }
        if (s[i].kind == GS_SPAN_STEP && strcmp(s[i].name, "malloc_trim") == 0) {
            trims++;
            GS_CHECK(strstr(s[i].args, "heap=fragmented") != NULL);
        }
    }
    GS_CHECK_EQ_INT(churn, 2);
    GS_CHECK_EQ_INT(trims, 2);
done:
    et_free(&r);
}

/* Every point fires where engine.h says: its inj:<point> span lies inside
 * the step it delays, on the lane of the role that runs that step. */
GS_TEST(engine_injections_nest_in_their_steps)
{
    static const struct {
        gs_inj_point p;
        const char *step;       /* enclosing span name */
        gs_span_kind kind;      /* enclosing span kind */
        gs_role role;
        int per_job;            /* fires once per job instead of per partition */
    } where[] = {
        {GS_INJ_TRACKER_HOLD, "tracker", GS_SPAN_LOCK_HOLD, GS_ROLE_FINALIZER, 0},
        {GS_INJ_MALLOC_TRIM, "malloc_trim", GS_SPAN_STEP, GS_ROLE_FINALIZER, 0},
        {GS_INJ_SYNTH, "synth", GS_SPAN_STEP, GS_ROLE_SYNTH, 0},
        {GS_INJ_H2D, "h2d_stage", GS_SPAN_STEP, GS_ROLE_GPU_WORKER, 0},
        {GS_INJ_HOST_PREP, "host_prep", GS_SPAN_STEP, GS_ROLE_GPU_WORKER, 0},
        {GS_INJ_HANDOFF, "handoff", GS_SPAN_STEP, GS_ROLE_GPU_WORKER, 0},
        {GS_INJ_DEALLOC, "buffer_release", GS_SPAN_STEP, GS_ROLE_FINALIZER, 0},
        {GS_INJ_VERIFY, "verify", GS_SPAN_STEP, GS_ROLE_FINALIZER, 1},
    };
    _Static_assert(sizeof where / sizeof where[0] == GS_INJ_COUNT, "every point");
    gs_engine_config cfg;
    et_config(&cfg);
    for (int i = 0; i < GS_INJ_COUNT; i++)
        cfg.inj[i] = (gs_injection){.enabled = 1, .dist = {GS_DIST_FIXED, 0.002, 0, 0, 0},
                                    .probability = 1.0, .seed = (uint64_t)i};
    et_run r;
    if (!et_start(&r, &cfg, 0))
        goto done;
    et_submit(r.e, GS_KIND_POREP_C2, 61, 2);
    et_submit(r.e, GS_KIND_WINDOW_POST, 62, 1);
    GS_CHECK_OK(gs_engine_drain(r.e, ET_DRAIN_NS));
    size_t n;
    const gs_job_result *res = gs_engine_results(r.e, &n);
    for (size_t i = 0; i < n; i++)
        GS_CHECK(res[i].status == GS_OK && res[i].verified == 1);
    et_stop(&r);
    const gs_span *s = gs_timeline_spans(r.tl, &n);
    for (int k = 0; k < GS_INJ_COUNT; k++) {
        char name[32];
        snprintf(name, sizeof name, "inj:%s", gs_inj_point_name(where[k].p));
        int fired = 0, nested = 0;
        for (size_t i = 0; i < n; i++) {
            if (s[i].kind != GS_SPAN_INJECTED || strcmp(s[i].name, name) != 0)
                continue;
            fired++;
            GS_CHECK(s[i].end_ns - s[i].start_ns >= 1500000);
            GS_CHECK(strstr(s[i].args, "dist=fixed;a=0.002") && strstr(s[i].args, "delay_s=0.002"));
            for (size_t o = 0; o < n; o++) {
                const gs_lane_info *l = et_lane(r.tl, s[o].lane);
                if (s[o].lane == s[i].lane && s[o].kind == where[k].kind &&
                    strcmp(s[o].name, where[k].step) == 0 && l && l->role == where[k].role &&
                    s[o].start_ns <= s[i].start_ns && s[i].end_ns <= s[o].end_ns) {
                    nested++;
                    break;
                }
            }
        }
        GS_CHECK_MSG(fired == (where[k].per_job ? 2 : 3), "%s fired %d times", name, fired);
        GS_CHECK_MSG(nested == fired, "%s: %d of %d inside %s", name, nested, fired, where[k].step);
    }
    /* The h2d stage made a real pageable copy of a, b, c. */
    for (size_t i = 0; i < n; i++)
        if (s[i].kind == GS_SPAN_STEP && strcmp(s[i].name, "h2d_stage") == 0) {
            const char *b = strstr(s[i].args, "bytes=");
            GS_CHECK(strstr(s[i].args, "pageable=1") && b && strtoull(b + 6, NULL, 10) >= 3 * 512 * 32);
        }
done:
    et_free(&r);
}
