/*
 * Helpers of the diagnosis tests on hand-built timelines: the analysis of
 * a timeline (test_analysis.c, test_kernel_view.c, test_attrib_*.c); the
 * launcher-rule tests' foreign timeline (test_attrib_launcher.c,
 * test_attrib_chain.c): one device stream with a kernel [0, 10) ms, an
 * idle gap [10, 110) ms and the kernel that ends it [110, 120) ms,
 * launched by one of the test's threads; steps in milliseconds; the idle
 * milliseconds of a cause; an engine timeline's first device and worker
 * lanes; freeing an analysis with its timeline.
 */
#ifndef GS_TEST_DIAG_UTIL_H
#define GS_TEST_DIAG_UTIL_H

#include <math.h>
#include <stdio.h>

#include "../test/test.h"
#include "analysis.h"

#define MS 1000000LL

/* The two kernels (named name) on dev; launch_args are the gap-ending
 * kernel's args (NULL: corr=2, launched by launcher). */
static inline void td_kernels(gs_tl_lane *dev, const char *name, gs_tl_lane *launcher,
                              const char *launch_args)
{
    char args[128];
    if (!launch_args) {
        snprintf(args, sizeof args, "corr=2;launch_lane=%d", (int)gs_tl_lane_id(launcher));
        launch_args = args;
    }
    gs_tl_span(dev, GS_SPAN_KERNEL, name, -1, -1, 0, 10 * MS, 0, "corr=1");
    gs_tl_span(dev, GS_SPAN_KERNEL, name, -1, -1, 110 * MS, 120 * MS, 0, launch_args);
}

static inline void td_step(gs_tl_lane *l, const char *name, int64_t a_ms, int64_t b_ms,
                           const char *args)
{
    gs_tl_span(l, GS_SPAN_STEP, name, -1, -1, a_ms * MS, b_ms * MS, 0, args);
}

/* The analysis of tl (NULL when it failed, or tl is NULL). */
static inline gs_analysis *td_analyse(gs_timeline *tl)
{
    gs_analysis *a = NULL;
    gs_err err;
    gs_err_clear(&err);
    return tl && gs_analyze(&a, tl, NULL, &err) == GS_OK ? a : NULL;
}

/* A new timeline holding the engine's first device stream, gpu0/stream0
 * (*dev), and its first GPU worker, gpu_worker/0.0 (*w); NULL when out of
 * memory. */
static inline gs_timeline *td_engine(gs_tl_lane **dev, gs_tl_lane **w)
{
    gs_timeline *tl;
    if (gs_timeline_create(&tl) != GS_OK)
        return NULL;
    *dev = gs_tl_lane_open(tl, "gpu0/stream0", GS_ROLE_DEVICE, 0, 0);
    *w = gs_tl_lane_open(tl, "gpu_worker/0.0", GS_ROLE_GPU_WORKER, 0, -1);
    if (!*dev || !*w) {
        gs_timeline_destroy(tl);
        return NULL;
    }
    return tl;
}

/* Frees an analysis and the timeline it was made from (either may be NULL). */
static inline void td_free(gs_analysis *a, gs_timeline *tl)
{
    gs_analysis_destroy(a);
    gs_timeline_destroy(tl);
}

static inline double td_ms(const gs_analysis *a, gs_cause c)
{
    return a->cause_s[c] * 1e3;
}
#define NEAR_MS(a, c, v) GS_CHECK_MSG(fabs(td_ms(a, c) - (v)) < 1e-6, "%s: %.6f ms, want %.6f", \
                                      gs_cause_name(c), td_ms(a, c), (double)(v))

#endif
