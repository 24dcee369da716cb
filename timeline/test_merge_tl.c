/* Clock anchors and merged timelines (tl_merge.h): what a merge keeps,
 * renumbers and remaps; the process lines of spans.csv round-trip and a
 * bad one is named by line. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../test/test.h"
#include "tl_merge.h"

GS_TEST(timeline_clock_anchor_read)
{
    gs_clock_anchor a;
    gs_clock_anchor_read(&a);
    GS_CHECK(a.uncertainty_ns >= 0 && a.uncertainty_ns < 1000000);
    GS_CHECK(llabs(a.realtime_ns / 1000000000LL - (long long)time(NULL)) <= 2);
    GS_CHECK(llabs(a.monotonic_ns - gs_real_now_ns()) < 1000000000LL);
    GS_CHECK(a.synced >= -1 && a.synced <= 1);
    gs_timeline *tl;
    GS_REQUIRE(gs_timeline_create(&tl) == GS_OK);
    gs_clock_anchor b;
    GS_CHECK(!gs_timeline_get_anchor(tl, &b));
    gs_timeline_set_anchor(tl, &a);
    GS_CHECK(gs_timeline_get_anchor(tl, &b) && b.monotonic_ns == a.monotonic_ns &&
             b.realtime_ns == a.realtime_ns && b.maxerror_us == a.maxerror_us &&
             !strcmp(b.boot_id, a.boot_id));
    gs_timeline_destroy(tl);
}

static gs_timeline *capture(int devices, int64_t t0)
{
    gs_timeline *tl;
    if (gs_timeline_create(&tl) != GS_OK)
        return NULL;
    gs_timeline_meta_set(tl, "backend", "cpu");
    gs_timeline_meta_set(tl, "device.3.name", "third");
    gs_tl_lane *th = gs_tl_lane_open(tl, "thread/7", GS_ROLE_THREAD, -1, -1);
    gs_tl_lane *w = gs_tl_lane_open(tl, "gpu_worker/x", GS_ROLE_GPU_WORKER, -1, -1);
    for (int d = 0; d < devices; d++) {
        char nm[32], args[64];
        snprintf(nm, sizeof nm, "gpu%d/stream0", 3 + d);
        gs_tl_lane *dl = gs_tl_lane_open(tl, nm, GS_ROLE_DEVICE, 3 + d, 0);
        snprintf(args, sizeof args, "corr=5;launch_lane=%d;xlaunch_lane=0", (int)gs_tl_lane_id(th));
        gs_tl_span(dl, GS_SPAN_KERNEL, "k", -1, -1, t0 + 100, t0 + 200, 0, args);
    }
    gs_tl_lock_wait(w, "tracker", gs_tl_lane_id(th), 1, 0, t0, t0 + 50);
    return tl;
}

GS_TEST(timeline_merge_renumbers_and_remaps)
{
    gs_tl_merge_in in[2] = {{capture(1, 1000), "a", 0}, {capture(2, 5000), "b", -4000}};
    GS_REQUIRE(in[0].tl && in[1].tl);
    gs_timeline *m;
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(gs_timeline_merge(&m, in, 2, &err) == GS_OK);
    GS_CHECK_EQ_INT(gs_timeline_lane_count(m), 3 + 4);
    const gs_lane_info *L = gs_timeline_lane(m, 5);   /* b's first device lane */
    GS_CHECK(!strcmp(L->name, "b:gpu3/stream0") && L->device == 1 && L->process == 1);
    GS_CHECK(gs_timeline_lane(m, 2)->device == 0 && gs_timeline_lane(m, 6)->device == 2);
    GS_CHECK(gs_timeline_lane(m, 4)->device == -1 && gs_timeline_lane(m, 4)->process == 1);
    GS_CHECK(!strcmp(gs_timeline_meta_get(m, "process.1.backend"), "cpu"));
    GS_CHECK(!strcmp(gs_timeline_meta_get(m, "device.1.name"), "third"));
    GS_CHECK(!strcmp(gs_timeline_meta_get(m, "process.1.devices"), "3=1,4=2"));
    size_t n;
    const gs_span *sp = gs_timeline_spans(m, &n);
    GS_CHECK_EQ_INT(n, 5);
    for (size_t i = 0; i < n; i++) {
        int b = gs_timeline_lane(m, sp[i].lane)->process == 1;
        GS_CHECK(sp[i].start_ns == (sp[i].kind == GS_SPAN_KERNEL ? 1100 : 1000));
        if (sp[i].kind == GS_SPAN_LOCK_WAIT)
            GS_CHECK_EQ_INT(sp[i].holder, b ? 3 : 0);
        if (sp[i].kind == GS_SPAN_KERNEL) {
            char want[64];
            snprintf(want, sizeof want, "corr=5;launch_lane=%d;xlaunch_lane=0", b ? 3 : 0);
            GS_CHECK_MSG(!strcmp(sp[i].args, want), "%s", sp[i].args);
        }
    }
    /* Processes survive spans.csv. */
    char p[600];
    snprintf(p, sizeof p, "%s/m.csv", gs_test_tmpdir());
    GS_CHECK_OK(gs_timeline_write_csv(m, p, &err));
    gs_timeline *back;
    GS_REQUIRE(gs_timeline_read_csv(&back, p, &err) == GS_OK);
    for (int32_t l = 0; l < 7; l++)
        GS_CHECK_EQ_INT(gs_timeline_lane(back, l)->process, gs_timeline_lane(m, l)->process);
    gs_timeline_destroy(back);
    /* A process line for an undeclared lane is an error naming the line. */
    GS_REQUIRE(gs_test_write_text(p, "# gapscope timeline v1\n# lane 0,thread,-1,-1,t\n# process 1,2\n"
                                     "start_ns,end_ns,lane,kind,name,job,part,flags,holder,value,args\n"));
    GS_CHECK(gs_timeline_read_csv(&back, p, &err) == GS_ERR_FORMAT && strstr(err.msg, ":3:"));
    /* An offset pushing a span past the time limit is refused. */
    in[1].offset_ns = GS_TL_TIME_LIMIT_NS;
    gs_timeline *bad = NULL;
    gs_err_clear(&err);
    GS_CHECK(gs_timeline_merge(&bad, in, 2, &err) == GS_ERR_RANGE && !bad);
    gs_timeline_destroy(m);
    gs_timeline_destroy(in[0].tl);
    gs_timeline_destroy(in[1].tl);
}

GS_TEST(timeline_align_rules)
{
    gs_timeline *a, *b;
    GS_REQUIRE(gs_timeline_create(&a) == GS_OK && gs_timeline_create(&b) == GS_OK);
    gs_tl_align al;
    GS_CHECK(!gs_timeline_align(&al, a, b) && strstr(al.how, "no clock anchor"));
    gs_clock_anchor x = {1000, 5000000, 10, 50, 1, "h1"}, y = {9000, 5002000, 20, 70, 1, "h2"};
    gs_timeline_set_anchor(a, &x);
    gs_timeline_set_anchor(b, &y);
    GS_CHECK(gs_timeline_align(&al, a, b) && al.offset_ns == (5002000 - 9000) - (5000000 - 1000) &&
             al.error_ns == 10 + 20 + (50 + 70) * 1000);
    y.synced = 0;
    gs_timeline_set_anchor(b, &y);
    GS_CHECK(gs_timeline_align(&al, a, b) && al.error_ns == -1);
    snprintf(y.boot_id, sizeof y.boot_id, "h1");
    gs_timeline_set_anchor(b, &y);
    GS_CHECK(gs_timeline_align(&al, a, b) && al.offset_ns == 0 && al.error_ns == 0);
    gs_timeline_destroy(a);
    gs_timeline_destroy(b);
}
