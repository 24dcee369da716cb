/*
 * The kernel-level view (analysis.h, diag/README.md "Kernel-level view"):
 * gaps of the kernel union, pageable copies in them as h2d_pageable, the
 * rest attributed as idle gaps are, beside the kernels-or-copies view.
 *
 * One device stream, one launcher thread (foreign timeline, launcher rule):
 *   kernel [0, 10) ms, pageable H2D copy [10, 50), kernel [50, 60),
 *   pinned H2D copy [60, 70), kernel [70, 80), nothing [80, 100),
 *   kernel [100, 110).
 * The launcher sleeps over [0, 200) except inside its cudaMemcpyAsync of
 * the copy [5, 10) (it returned before the copy ran), so:
 *   kernels-or-copies view: idle [80, 100) = 20 ms, sleep;
 *   kernel view: idle [10, 50) + [60, 70) + [80, 100) = 70 ms:
 *     h2d_pageable 40 (the pageable copy, whatever the launcher does), sleep
 *     30 (the pinned copy's stretch takes the launcher's state, as a gap
 *     would).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../test/test.h"
#include "analysis.h"
#include "test_diag_util.h"


static gs_timeline *timeline(int pageable)
{
    gs_timeline *tl;
    if (gs_timeline_create(&tl) != GS_OK)
        return NULL;
    gs_tl_lane *dev = gs_tl_lane_open(tl, "gpu0/stream7", GS_ROLE_DEVICE, 0, 7);
    gs_tl_lane *th = gs_tl_lane_open(tl, "thread/101 main", GS_ROLE_THREAD, -1, -1);
    if (!dev || !th) {
        gs_timeline_destroy(tl);
        return NULL;
    }
    char a[5][96];
    for (int i = 0; i < 5; i++)
        snprintf(a[i], sizeof a[i], "corr=%d;launch_lane=%d", i + 1, (int)gs_tl_lane_id(th));
    char pg[128];
    snprintf(pg, sizeof pg, "bytes=67108864;pageable=%d;corr=10;launch_lane=%d", pageable,
             (int)gs_tl_lane_id(th));
    gs_tl_span(dev, GS_SPAN_KERNEL, "k", -1, -1, 0, 10 * MS, 0, a[0]);
    gs_tl_span(dev, GS_SPAN_COPY, "h2d", -1, -1, 10 * MS, 50 * MS, 0, pg);
    gs_tl_span(dev, GS_SPAN_KERNEL, "k", -1, -1, 50 * MS, 60 * MS, 0, a[1]);
    gs_tl_span(dev, GS_SPAN_COPY, "h2d", -1, -1, 60 * MS, 70 * MS, 0, "bytes=1;pageable=0");
    gs_tl_span(dev, GS_SPAN_KERNEL, "k", -1, -1, 70 * MS, 80 * MS, 0, a[2]);
    gs_tl_span(dev, GS_SPAN_KERNEL, "k", -1, -1, 100 * MS, 110 * MS, 0, a[3]);
    gs_tl_span(th, GS_SPAN_STEP, "state:sleep", -1, -1, 0, 5 * MS, 0, NULL);
    gs_tl_span(th, GS_SPAN_STEP, "cuda:cudaMemcpyAsync", -1, -1, 5 * MS, 10 * MS, 0, "corr=10");
    gs_tl_span(th, GS_SPAN_STEP, "state:sleep", -1, -1, 10 * MS, 200 * MS, 0, NULL);
    return tl;
}

static double ms(const double *cause_s, gs_cause c) { return cause_s[c] * 1e3; }

GS_TEST(diag_kernel_view_pageable_copy_is_h2d_pageable)
{
    gs_timeline *tl = timeline(1);
    gs_analysis *a = td_analyse(tl);
    GS_REQUIRE(a);
    const gs_device_analysis *d = &a->dev[0];
    /* Kernels-or-copies busy: one 20 ms gap, the launcher asleep. */
    GS_CHECK(fabs(d->idle_s - 0.020) < 1e-9 && d->n_gaps == 1);
    GS_CHECK(fabs(ms(a->cause_s, GS_CAUSE_SLEEP) - 20) < 1e-6);
    GS_CHECK(fabs(d->util - 0.9 / 1.1) < 1e-9);
    /* Kernels only: 70 ms in 3 gaps; the pageable copy's 40 ms are h2d_pageable. */
    GS_CHECK(d->n_kgaps == 3);
    GS_CHECK(fabs(d->kidle_s - 0.070) < 1e-9 && fabs(a->kidle_s - 0.070) < 1e-9);
    GS_CHECK(fabs(d->kidle_s - (d->span_s - d->kernel_s)) < 1e-9);
    GS_CHECK_MSG(fabs(ms(d->kcause_s, GS_CAUSE_H2D_PAGEABLE) - 40) < 1e-6, "h2d_pageable %.3f ms",
                 ms(d->kcause_s, GS_CAUSE_H2D_PAGEABLE));
    GS_CHECK(fabs(ms(d->kcause_s, GS_CAUSE_SLEEP) - 30) < 1e-6);
    double t = 0;
    for (int c = 0; c < GS_CAUSE_COUNT; c++)
        t += d->kcause_s[c];
    GS_CHECK(fabs(t - d->kidle_s) < 1e-9);
    GS_CHECK(a->kverdict == GS_CAUSE_H2D_PAGEABLE && fabs(a->kverdict_share - 40.0 / 70) < 1e-9);
    /* Pieces are ordered, disjoint and inside kernel gaps. */
    for (size_t k = 0; k < d->n_kpieces; k++) {
        GS_CHECK(d->kpieces[k].end_ns > d->kpieces[k].start_ns);
        GS_CHECK(k == 0 || d->kpieces[k].start_ns >= d->kpieces[k - 1].end_ns);
        GS_CHECK(gs_interval_overlap(d->kernel, d->n_kernel, d->kpieces[k].start_ns,
                                     d->kpieces[k].end_ns) == 0);
    }
    td_free(a, tl);
}

GS_TEST(diag_kernel_view_pinned_copy_takes_the_launcher_state)
{
    gs_timeline *tl = timeline(0);
    gs_analysis *a = td_analyse(tl);
    GS_REQUIRE(a);
    const gs_device_analysis *d = &a->dev[0];
    /* No pageable copy: every kernel gap takes the launcher's state. */
    GS_CHECK(ms(d->kcause_s, GS_CAUSE_H2D_PAGEABLE) == 0);
    GS_CHECK(fabs(ms(d->kcause_s, GS_CAUSE_SLEEP) - 70) < 1e-6);
    GS_CHECK(a->kverdict == GS_CAUSE_SLEEP);
    td_free(a, tl);
}

GS_TEST(diag_kernel_view_engine_timeline)
{
    /* An engine timeline (GPU worker lane): the kernel gap filled by a
     * pageable copy is h2d_pageable, the pinned copy's stretch takes the
     * worker's state (prove_start: backend_host), the idle gap queue_empty. */
    gs_tl_lane *dev, *w;
    gs_timeline *tl = td_engine(&dev, &w);
    GS_REQUIRE(tl);
    gs_tl_span(dev, GS_SPAN_KERNEL, "ntt", 1, 0, 0, 10 * MS, 0, NULL);
    gs_tl_span(dev, GS_SPAN_COPY, "h2d", 1, 0, 10 * MS, 50 * MS, 0, "pageable=1");
    gs_tl_span(dev, GS_SPAN_KERNEL, "msm", 1, 0, 50 * MS, 60 * MS, 0, NULL);
    gs_tl_span(dev, GS_SPAN_COPY, "d2h", 1, 0, 60 * MS, 70 * MS, 0, NULL);
    gs_tl_span(dev, GS_SPAN_KERNEL, "ntt", 1, 1, 90 * MS, 100 * MS, 0, NULL);
    gs_tl_span(w, GS_SPAN_STEP, "prove_start", 1, 0, 0, 70 * MS, 0, NULL);
    gs_tl_span(w, GS_SPAN_STEP, "queue_wait", -1, -1, 70 * MS, 90 * MS, 0, NULL);
    gs_analysis *a = td_analyse(tl);
    GS_REQUIRE(a);
    GS_CHECK(fabs(ms(a->cause_s, GS_CAUSE_QUEUE_EMPTY) - 20) < 1e-6 && fabs(a->idle_s - 0.02) < 1e-9);
    GS_CHECK(fabs(ms(a->kcause_s, GS_CAUSE_H2D_PAGEABLE) - 40) < 1e-6);
    GS_CHECK(fabs(ms(a->kcause_s, GS_CAUSE_BACKEND_HOST) - 10) < 1e-6);
    GS_CHECK(fabs(ms(a->kcause_s, GS_CAUSE_QUEUE_EMPTY) - 20) < 1e-6);
    GS_CHECK(a->verdict == GS_CAUSE_QUEUE_EMPTY && a->kverdict == GS_CAUSE_H2D_PAGEABLE);
    td_free(a, tl);
}
