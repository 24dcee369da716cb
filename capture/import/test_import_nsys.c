/*
 * Nsight Systems SQLite importer tests on the fixture built by
 * traces/gen/nsys_fixture.py (its docstring derives the answer: span 607 us,
 * busy 167 us, idle 440 us by launcher state).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>

#include "test_import_util.h"

#define NSYS "test/fixtures/import/nsys-small.sqlite"

/* 1 (the test skipped) when the build has no SQLite importer. */
static int skip_without_sqlite(void)
{
    gs_timeline *tl;
    gs_err err;
    gs_err_clear(&err);
    if (gs_timeline_create(&tl) != GS_OK)
        return 0;
    gs_status st = gs_import_nsys(tl, NULL, (const uint8_t *)"", 0, "probe", &err);
    gs_timeline_destroy(tl);
    if (st != GS_ERR_UNSUPPORTED)
        return 0;
    gs_test_skip("built without libsqlite3");
    return 1;
}

GS_TEST(import_nsys_fixture)
{
    if (skip_without_sqlite())
        return;
    gs_timeline *tl;
    gs_import_report rep;
    gs_err err;
    GS_REQUIRE(imp_test_load(&tl, &rep, NSYS, GS_IMPORT_AUTO, 0, &err) == GS_OK);
    GS_CHECK(!strcmp(gs_timeline_meta_get(tl, "source"), "import:nsys"));
    GS_CHECK(!strcmp(gs_timeline_meta_get(tl, "device.0.name"), "NVIDIA H200"));
    gs_analysis *a = imp_test_analyse(tl);
    GS_REQUIRE(a && a->n_dev == 1);
    const gs_device_analysis *d = &a->dev[0];
    GS_CHECK(d->rule == GS_RULE_LAUNCHER && d->n_ops == 4);
    GS_CHECK(fabs(d->util - 167.0 / 607.0) < 1e-12);
    IMP_NEAR_US(a, "h2d_pageable", 90);
    IMP_NEAR_US(a, "host_compute", 47);
    IMP_NEAR_US(a, "lock_wait/other", 50);
    IMP_NEAR_US(a, "blocked_futex", 30);
    IMP_NEAR_US(a, "sleep", 100);
    IMP_NEAR_US(a, "io", 50);
    IMP_NEAR_US(a, "cuda_sync", 30);
    IMP_NEAR_US(a, "other", 43);
    GS_CHECK(a->verdict == GS_CAUSE_SLEEP);
    /* Thread names through globalTid with high bits; API names without the
     * _vNNNN suffix; the blocking cudaMemcpy as a sync call; the demangled
     * kernel name shortened. */
    int main_ok = 0, worker_ok = 0;
    for (size_t i = 0; i < gs_timeline_lane_count(tl); i++) {
        main_ok |= !strcmp(gs_timeline_lane(tl, (int32_t)i)->name, "thread/777 python");
        worker_ok |= !strcmp(gs_timeline_lane(tl, (int32_t)i)->name, "thread/778 worker");
    }
    GS_CHECK(main_ok && worker_ok);
    GS_CHECK(imp_test_span(tl, "cuda_sync:cudaMemcpy") != NULL);
    GS_CHECK(imp_test_span(tl, "cuda:cudaLaunchKernel") != NULL);
    GS_CHECK(imp_test_span(tl, "reduce_kernel") != NULL);
    GS_CHECK(imp_test_span(tl, "nvtx:prep") != NULL);
    const gs_span *lw = imp_test_span(tl, "mutex:?");
    GS_CHECK(lw && lw->kind == GS_SPAN_LOCK_WAIT && lw->holder == -1);
    GS_CHECK_EQ_INT(imp_test_skipped(&rep, "row whose end precedes its start"), 1);
    GS_CHECK(rep.ignored >= 1);   /* the NVTX mark */
    gs_analysis_destroy(a);
    gs_timeline_destroy(tl);
}

GS_TEST(import_nsys_bad_input)
{
    if (skip_without_sqlite())
        return;
    gs_timeline *tl;
    gs_import_report rep;
    gs_err err;
    /* Not SQLite: named with byte offset 0. */
    GS_CHECK(imp_test_load(&tl, &rep, "test/fixtures/import/kineto-small.json", GS_IMPORT_NSYS, 0,
                           &err) == GS_ERR_FORMAT);
    GS_CHECK(strstr(err.msg, "kineto-small.json+0") && strstr(err.msg, "SQLite"));
    gs_timeline_destroy(tl);
    /* A truncated database: an error or a partial import, never a crash;
     * every prefix length through the header and first pages. */
    char *buf;
    size_t len;
    gs_err_clear(&err);
    GS_REQUIRE(gs_read_file(&buf, &len, NSYS, &err) == GS_OK);
    for (size_t cut = 0; cut < len; cut += cut < 200 ? 37 : 1531) {
        GS_REQUIRE(gs_timeline_create(&tl) == GS_OK);
        gs_import_report_init(&rep);
        gs_err_clear(&err);
        gs_status st = gs_import_nsys(tl, &rep, (const uint8_t *)buf, cut, "cut.sqlite", &err);
        GS_CHECK(st == GS_OK || st == GS_ERR_FORMAT);
        if (st != GS_OK)
            GS_CHECK(strstr(err.msg, "cut.sqlite") != NULL);
        gs_timeline_destroy(tl);
    }
    /* Corrupt pages: flip bytes past the header. */
    for (size_t i = 4096; i < len; i += 997)
        buf[i] ^= 0x5a;
    GS_REQUIRE(gs_timeline_create(&tl) == GS_OK);
    gs_import_report_init(&rep);
    gs_err_clear(&err);
    gs_status st = gs_import_nsys(tl, &rep, (const uint8_t *)buf, len, "flip.sqlite", &err);
    GS_CHECK(st == GS_OK || st == GS_ERR_FORMAT);
    gs_timeline_destroy(tl);
    free(buf);
}
