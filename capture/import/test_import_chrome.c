/*
 * Chrome / Kineto / Perfetto JSON importer tests.  The Kineto fixture
 * (test/fixtures/import/kineto-small.json) has a hand-derived answer: device
 * span [3, 1000) us, busy 362 us, and its idle time by launcher state
 * (the fixture's events are laid out for it):
 *   [5, 50)    ended by the pageable H2D copy: main in nothing until 10
 *              (inside ProfilerStep#1: host_compute 5), then in its
 *              cudaMemcpyAsync (h2d_pageable 40)
 *   [90, 120)  ended by gemm: ProfilerStep/aten::mm/launch (host_compute 30)
 *   [300, 520) ended by the fill kernel: cudaStreamSynchronize [310, 500)
 *              (cuda_sync 190), host code around it (host_compute 30)
 *   [600, 910) ended by the memset: a Python sleep inside ProfilerStep#1
 *              (host_compute 310)
 *   [920, 950) ended by backward_kernel, linked only by its ac2g flow to
 *              thread 102: its launch call (host_compute 10), nothing (other 20)
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>

#include "../../timeline/timeline.h"
#include "imp_internal.h"
#include "test_import_util.h"

#define KINETO "test/fixtures/import/kineto-small.json"

GS_TEST(import_chrome_kineto_fixture)
{
    gs_timeline *tl;
    gs_import_report rep;
    gs_err err;
    GS_REQUIRE(imp_test_load(&tl, &rep, KINETO, GS_IMPORT_AUTO, 0, &err) == GS_OK);
    GS_CHECK(!strcmp(gs_timeline_meta_get(tl, "source"), "import:chrome"));
    gs_analysis *a = imp_test_analyse(tl);
    GS_REQUIRE(a && a->n_dev == 1);
    const gs_device_analysis *d = &a->dev[0];
    GS_CHECK(d->rule == GS_RULE_LAUNCHER);
    GS_CHECK_EQ_INT(d->n_ops, 6);
    GS_CHECK(fabs(d->span_s - 997e-6) < 1e-12 && fabs(d->busy_s - 362e-6) < 1e-12);
    GS_CHECK(fabs(d->util - 362.0 / 997.0) < 1e-12);
    IMP_NEAR_US(a, "host_compute", 385);
    IMP_NEAR_US(a, "cuda_sync", 190);
    IMP_NEAR_US(a, "h2d_pageable", 40);
    IMP_NEAR_US(a, "other", 20);
    GS_CHECK(a->verdict == GS_CAUSE_HOST_COMPUTE);
    /* The innermost NVTX range (record_function) as the detail. */
    GS_REQUIRE(a->n_details == 1);
    GS_CHECK(!strcmp(a->details[0].detail, "nvtx:ProfilerStep#1"));
    GS_CHECK(fabs(a->details[0].idle_s - 375e-6) < 1e-12);
    /* Names: demangled kernel names shortened; copies by kind. */
    GS_CHECK(imp_test_span(tl, "gemm_kernel") != NULL);
    GS_CHECK(imp_test_span(tl, "at::native::vectorized_elementwise_kernel") != NULL);
    const gs_span *h2d = imp_test_span(tl, "h2d");
    GS_REQUIRE(h2d);
    GS_CHECK(strstr(h2d->args, "pageable=1") && strstr(h2d->args, "bytes=4194304"));
    GS_CHECK(imp_test_span(tl, "cuda_sync:cudaStreamSynchronize") != NULL);
    GS_CHECK(imp_test_span(tl, "cpu_op:aten::mm") != NULL);
    GS_CHECK(imp_test_span(tl, "py:<built-in function sleep>") != NULL);
    /* ts relative to baseTimeNanoseconds, exact to the ns. */
    const gs_span *w = imp_test_span(tl, "warmup_kernel");
    GS_REQUIRE(w);
    GS_CHECK(w->start_ns == 1700000000000003000LL && w->end_ns == 1700000000000005000LL);
    /* The flow-only kernel's launcher is thread 102. */
    const gs_span *bk = imp_test_span(tl, "backward_kernel");
    GS_REQUIRE(bk);
    const gs_lane_info *t102 = NULL;
    for (size_t i = 0; i < gs_timeline_lane_count(tl); i++)
        if (strstr(gs_timeline_lane(tl, (int32_t)i)->name, "thread/102"))
            t102 = gs_timeline_lane(tl, (int32_t)i);
    GS_REQUIRE(t102 && t102->role == GS_ROLE_THREAD);
    char want[32];
    snprintf(want, sizeof want, "launch_lane=%d", (int)t102->id);
    GS_CHECK(strstr(bk->args, want) != NULL);
    GS_CHECK(!strcmp(t102->name, "thread/102 pt_autograd_0"));
    /* The kernel without dur is skipped (counted, with its line); the
     * device-side sync record, GPU annotation and trace spans ignored. */
    GS_CHECK_EQ_INT(gs_import_skipped_total(&rep), 1);
    GS_CHECK_EQ_INT(imp_test_skipped(&rep, "complete event without numeric ts"), 1);
    GS_CHECK(strstr(rep.skipped[0].first, "kineto-small.json:") != NULL);
    GS_CHECK(imp_test_span(tl, "broken_kernel") == NULL);
    GS_CHECK(imp_test_span(tl, "Stream Sync") == NULL);
    gs_analysis_destroy(a);
    gs_timeline_destroy(tl);
}

GS_TEST(import_chrome_truncated_file)
{
    /* A profiler killed mid-write: the file ends inside the sleep event.
     * Everything before imports; the cut is reported. */
    char *buf;
    size_t len;
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(gs_read_file(&buf, &len, KINETO, &err) == GS_OK);
    const char *cut = strstr(buf, "\"<built-in function sleep>\"");
    GS_REQUIRE(cut);
    gs_timeline *tl;
    gs_import_report rep;
    GS_REQUIRE(imp_test_load(&tl, &rep, KINETO, GS_IMPORT_CHROME, (size_t)(cut - buf), &err) ==
               GS_OK);
    free(buf);
    GS_CHECK(imp_test_skipped(&rep, "truncated event") == 1);
    GS_CHECK(imp_test_span(tl, "gemm_kernel") != NULL);
    GS_CHECK(imp_test_span(tl, "at::native::vectorized_elementwise_kernel") != NULL);
    GS_CHECK(imp_test_span(tl, "memset") == NULL);
    gs_analysis *a = imp_test_analyse(tl);
    GS_REQUIRE(a && a->n_dev == 1);
    GS_CHECK(fabs(a->dev[0].busy_s - 302e-6) < 1e-12);   /* 2 + 40 + 180 + 80 */
    gs_analysis_destroy(a);
    gs_timeline_destroy(tl);
}

static gs_status load_text(gs_timeline **tl, gs_import_report *rep, const char *text, gs_err *err)
{
    return imp_test_load_text(tl, rep, text, "t.json", GS_IMPORT_CHROME, err);
}

GS_TEST(import_chrome_malformed_input)
{
    gs_timeline *tl;
    gs_import_report rep;
    gs_err err;
    /* Not JSON at all: the error names the file and line. */
    GS_CHECK(load_text(&tl, &rep, "\n\nnot json", &err) == GS_ERR_FORMAT);
    GS_CHECK(strstr(err.msg, "t.json:3") != NULL);
    gs_timeline_destroy(tl);
    GS_CHECK(load_text(&tl, &rep, "{\"displayTimeUnit\": \"ms\"}", &err) == GS_ERR_FORMAT);
    GS_CHECK(strstr(err.msg, "traceEvents") != NULL);
    gs_timeline_destroy(tl);
    /* Bare array form with B/E pairs (Perfetto JSON), a malformed event and
     * an unmatched E: what can be read imports. */
    const char *arr =
        "[{\"ph\":\"B\",\"name\":\"load\",\"pid\":1,\"tid\":2,\"ts\":10},\n"
        " {\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":3,\"ts\":12,\"dur\":5,"
        "\"args\":{\"device\":0,\"stream\":3}},\n"
        " {\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k2\",\"pid\":0,\"tid\":3,\"ts\":30,\"dur\":5,"
        "\"args\":{\"device\":0,\"stream\":3}},\n"
        " {\"ph\":\"X\" \"name\":1},\n"
        " {\"ph\":\"E\",\"pid\":1,\"tid\":2,\"ts\":25},\n"
        " {\"ph\":\"E\",\"pid\":9,\"tid\":9,\"ts\":26}\n"
        "]";
    GS_REQUIRE(load_text(&tl, &rep, arr, &err) == GS_OK);
    const gs_span *ld = imp_test_span(tl, "load");
    GS_REQUIRE(ld);
    GS_CHECK(ld->start_ns == 10000 && ld->end_ns == 25000 && ld->kind == GS_SPAN_STEP);
    GS_CHECK(imp_test_skipped(&rep, "malformed event") == 1);
    GS_CHECK(imp_test_skipped(&rep, "E event without a matching B") == 1);
    GS_CHECK(strstr(rep.skipped[0].first, "t.json:4") != NULL);
    GS_CHECK_EQ_INT(rep.used, 3);
    gs_timeline_destroy(tl);
    /* A device track written as "stream 9" (a string tid). */
    GS_REQUIRE(load_text(&tl, &rep, "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\","
                                    "\"name\":\"k\",\"pid\":0,\"tid\":\"stream 9\",\"ts\":1,"
                                    "\"dur\":2}]}", &err) == GS_OK);
    GS_CHECK(gs_timeline_lane_count(tl) == 1 &&
             !strcmp(gs_timeline_lane(tl, 0)->name, "gpu0/stream9"));
    gs_timeline_destroy(tl);
    /* A number with more than 3 decimals or an exponent still reads. */
    GS_REQUIRE(load_text(&tl, &rep, "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":"
                                    "\"k\",\"pid\":0,\"tid\":1,\"ts\":1.5e3,\"dur\":0.0004}]}",
                         &err) == GS_OK);
    const gs_span *k = imp_test_span(tl, "k");
    GS_REQUIRE(k);
    GS_CHECK(k->start_ns == 1500000 && k->end_ns == 1500000);
    gs_timeline_destroy(tl);
}

GS_TEST(import_chrome_own_timeline_round_trip)
{
    /* gapscope's timeline.json of the H200 capture maps back to the same
     * lanes and spans, and the same analysis. */
    gs_timeline *orig, *back;
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(gs_timeline_read_csv(&orig, "traces/h200-backlog-g2dev.spans.csv", &err) == GS_OK);
    char path[1024];
    snprintf(path, sizeof path, "%s/timeline.json", gs_test_tmpdir());
    GS_REQUIRE(gs_timeline_write_chrome(orig, path, &err) == GS_OK);
    gs_import_report rep;
    GS_REQUIRE(imp_test_load(&back, &rep, path, GS_IMPORT_AUTO, 0, &err) == GS_OK);
    GS_CHECK_EQ_INT(gs_import_skipped_total(&rep), 0);
    GS_REQUIRE(gs_timeline_lane_count(back) == gs_timeline_lane_count(orig));
    for (size_t i = 0; i < gs_timeline_lane_count(orig); i++) {
        const gs_lane_info *x = gs_timeline_lane(orig, (int32_t)i), *y = gs_timeline_lane(back, (int32_t)i);
        GS_CHECK(!strcmp(x->name, y->name) && x->role == y->role && x->stream == y->stream);
    }
    size_t n1, n2;
    const gs_span *s1 = gs_timeline_spans(orig, &n1), *s2 = gs_timeline_spans(back, &n2);
    GS_REQUIRE(n1 == n2);
    size_t bad = 0;
    for (size_t i = 0; i < n1; i++)
        bad += s1[i].start_ns != s2[i].start_ns || s1[i].end_ns != s2[i].end_ns ||
               s1[i].kind != s2[i].kind || strcmp(s1[i].name, s2[i].name) ||
               s1[i].job != s2[i].job || s1[i].part != s2[i].part || s1[i].flags != s2[i].flags ||
               s1[i].holder != s2[i].holder || strcmp(s1[i].args, s2[i].args) ||
               s1[i].lane != s2[i].lane;
    GS_CHECK_EQ_INT(bad, 0);
    gs_analysis *a = imp_test_analyse(orig), *b = imp_test_analyse(back);
    GS_REQUIRE(a && b);
    GS_CHECK(a->busy_s == b->busy_s && a->span_s == b->span_s && a->verdict == b->verdict);
    for (int c = 0; c < GS_CAUSE_COUNT; c++)
        GS_CHECK(a->cause_s[c] == b->cause_s[c]);
    GS_CHECK(!strcmp(gs_timeline_meta_get(back, "backend"), "cuda"));
    gs_analysis_destroy(a);
    gs_analysis_destroy(b);
    gs_timeline_destroy(orig);
    gs_timeline_destroy(back);
}

GS_TEST(import_sniff_and_names)
{
    GS_CHECK(gs_import_sniff((const uint8_t *)"  \n{\"traceEvents\":[]}", 19) == GS_IMPORT_CHROME);
    GS_CHECK(gs_import_sniff((const uint8_t *)"SQLite format 3\0xxxx", 20) == GS_IMPORT_NSYS);
    const char *log = "starting\nTIMELINE,5,GPU_START,1,worker=0\n";
    GS_CHECK(gs_import_sniff((const uint8_t *)log, strlen(log)) == GS_IMPORT_DAEMON_LOG);
    GS_CHECK(gs_import_sniff((const uint8_t *)"hello", 5) == GS_IMPORT_AUTO);
    gs_import_format f;
    GS_CHECK(gs_import_format_from_name(&f, "daemon-log") && f == GS_IMPORT_DAEMON_LOG);
    GS_CHECK(gs_import_format_from_name(&f, "nsys") && f == GS_IMPORT_NSYS);
    GS_CHECK(!gs_import_format_from_name(&f, "xml"));
    /* Unknown bytes: an error naming the file and byte offset 0. */
    gs_timeline *tl;
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(gs_timeline_create(&tl) == GS_OK);
    GS_CHECK(gs_import_bytes(tl, NULL, (const uint8_t *)"hello", 5, "x.bin", GS_IMPORT_AUTO, NULL,
                             &err) == GS_ERR_FORMAT);
    GS_CHECK(strstr(err.msg, "x.bin+0") != NULL);
    gs_timeline_destroy(tl);
    /* Kernel names. */
    char b[128];
    imp_kernel_name(b, sizeof b, "void at::native::(anonymous namespace)::k<4, F<float> >(int, F<float>)");
    GS_CHECK_MSG(!strcmp(b, "at::native::(anonymous namespace)::k"), "%s", b);
    imp_kernel_name(b, sizeof b, "_Z10gemm_kernelPfS_i");
    GS_CHECK(!strcmp(b, "_Z10gemm_kernelPfS_i"));
    imp_kernel_name(b, sizeof b, "");
    GS_CHECK(!strcmp(b, "kernel"));
    int64_t ns;
    GS_CHECK(imp_us_to_ns("12.345", &ns) && ns == 12345);
    GS_CHECK(imp_us_to_ns("1700000000000003.5", &ns) && ns == 1700000000000003500LL);
    GS_CHECK(!imp_us_to_ns("abc", &ns) && !imp_us_to_ns("1.2.3", &ns));
}

/* Streamed from the file (gs_import_file) with windows from 16 bytes up
 * (window NULL: from memory), by the field scan: every event crosses
 * refills; the status, message, spans, lanes, meta and skips (reasons,
 * counts, first lines) must be those of the tree reader alone
 * (GS_IMPORT_JSON_TREE) importing from memory. */
static int same_import(const char *path, const char *window)
{
    gs_err ea, eb;
    gs_err_clear(&ea);
    gs_err_clear(&eb);
    char *buf;
    size_t len;
    if (gs_read_file(&buf, &len, path, &ea) != GS_OK)
        return 0;
    gs_timeline *a = NULL, *b = NULL;
    gs_import_report ra, rb;
    gs_import_report_init(&ra);
    gs_import_report_init(&rb);
    int ok = gs_timeline_create(&a) == GS_OK && gs_timeline_create(&b) == GS_OK;
    setenv("GS_IMPORT_JSON_TREE", "1", 1);
    gs_status sa = ok ? gs_import_bytes(a, &ra, (const uint8_t *)buf, len, path, GS_IMPORT_CHROME,
                                        NULL, &ea) : GS_ERR_NOMEM;
    unsetenv("GS_IMPORT_JSON_TREE");
    if (window)
        setenv("GS_IMPORT_WINDOW", window, 1);
    gs_status sb = !ok ? GS_ERR_NOMEM
                 : window ? gs_import_file(b, &rb, path, GS_IMPORT_CHROME, NULL, &eb)
                 : gs_import_bytes(b, &rb, (const uint8_t *)buf, len, path, GS_IMPORT_CHROME, NULL,
                                   &eb);
    unsetenv("GS_IMPORT_WINDOW");
    ok = ok && imp_test_same(sa, &ea, a, &ra, sb, &eb, b, &rb);
    gs_timeline_destroy(a);
    gs_timeline_destroy(b);
    free(buf);
    return ok;
}

GS_TEST(import_chrome_streamed_equals_memory)
{
    static const char *const windows[] = {"16", "100", "4096"};
    char trunc[600];
    snprintf(trunc, sizeof trunc, "%s/cut.json", gs_test_tmpdir());
    FILE *f = fopen(trunc, "w");
    GS_REQUIRE(f);
    /* a cut file: events before the cut, a B without E, a malformed event */
    fputs("{\"traceEvents\": [\n {\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1,"
          "\"tid\":2,\"ts\":1.5,\"dur\":2},\n {\"ph\":\"B\",\"name\":\"b\",\"pid\":1,\"tid\":2,"
          "\"ts\":4},\n [1,2],\n {\"ph\":\"X\",\"name\":\"cut\",\"pid\":1,\"tid\":2,\"ts\":9,", f);
    fclose(f);
    const char *files[] = {KINETO, "traces/torch-stall/torch-sleep-profile.json", trunc};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        for (size_t k = 0; k < sizeof windows / sizeof windows[0]; k++)
            GS_CHECK_MSG(same_import(files[i], windows[k]), "%s with a %s-byte window", files[i],
                         windows[k]);
}

/* The field scan (imp_scan.c) reads what the tree reader reads, and leaves
 * it what it cannot read the same way: escapes, duplicate members, args
 * that are not an object, numbers and literals of every form, malformed
 * and truncated events, gapscope's own timeline.json. */
GS_TEST(import_chrome_scan_equals_tree)
{
    static const char *const texts[] = {
        "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\\u0041\\n\",\"pid\":0,"
        "\"tid\":7,\"ts\":1.5,\"dur\":2},{\"ph\":\"X\",\"ph\":\"B\",\"cat\":\"cpu_op\","
        "\"name\":\"dup\",\"pid\":1,\"tid\":2,\"ts\":3,\"dur\":1,\"dur\":\"x\"},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":0,\"tid\":7,\"ts\":4,"
        "\"dur\":1,\"args\":[1],\"args\":{\"device\":3}},{\"ph\":\"X\",\"cat\":\"gpu_memcpy\","
        "\"name\":\"Memcpy HtoD (Pageable -> Device)\",\"pid\":0,\"tid\":\"stream 8\","
        "\"ts\":-0.0,\"dur\":1e2,\"args\":{\"bytes\":\"64\",\"correlation\":5,\"x\":[[{}],"
        "true,false,null,-1.5E-3],\"device\":0,\"device\":9}}]}",
        "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":01,\"ts\":1,\"dur\":1},\n"
        " {\"ph\":\"X\",\"name\":\"b\",\"pid\":+1,\"tid\":1,\"ts\":1,\"dur\":1},\n"
        " {\"ph\":\"X\",\"name\":\"c\\tq\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,},\n"
        " {\"ph\":\"X\",\"name\":\"raw\ttab and a longer name past sixteen\",\"pid\":1,\"tid\":1,"
        "\"ts\":1,\"dur\":1},\n"
        " {\"ph\":\"X\",\"name\":\"d\",\"pid\":tru,\"tid\":1,\"ts\":1.,\"dur\":1},\n"
        " {\"ph\":\"X\",\"name\":\"e\",\"pid\":1,\"tid\":99999999999999999999,\"ts\":2,"
        "\"dur\":1},\n {\"ph\":\"B\",\"name\":\"f\",\"pid\":1,\"tid\":1,\"ts\":2},\n"
        " {\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":\"5\"},{\"ph\":\"E\",\"pid\":1,\"tid\":1,"
        "\"ts\":6}, 7, {\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,"
        "\"args\":{\"name\":\"thread 1 (main)\"}},\n {\"ph\":\"X\",\"cat\":\"cuda_runtime\","
        "\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":7,\"dur\":1,\"args\":"
        "{\"correlation\":\"12\"}},{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"g\",\"pid\":0,"
        "\"tid\":3,\"ts\":9,\"dur\":1,\"args\":{\"correlation\":12}},{\"ph\":\"X\",\"name\":\"h\","
        "\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":1,\"args\":{\"a\":{\"b\":{\"c\":[[[[[[[[[[[[[[[["
        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
        "]]]]]]]]]]]]]]]]]]]]]]]]]]}}}},\n {\"ph\":\"X\",\"name\":\"cut\",\"pid\":1,\"tid\":1,\"ts",
        /* pass 1's cut (imp_cut.c): events past 64 bytes with brackets and escaped
         * quotes in strings, a category in another case or escaped, words as keys */
        "{\"traceEvents\":[\n {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": 5,"
        " \"args\": {\"name\": \"thread 5 (a \\\"quoted\\\" [worker] {x})\"}},\n"
        " {\"ph\": \"X\", \"cat\": \"Cuda_Runtime\", \"name\": \"cudaLaunchKernel ] } [ {\", \"pid\": 1,"
        " \"tid\": 5, \"ts\": 1, \"dur\": 1, \"args\": {\"correlation\": 7}},\n"
        " {\"ph\": \"X\", \"cat\": \"cuda_r\\u0075ntime\", \"name\": \"escaped category, long enough"
        " to cross a block\", \"pid\": 1, \"tid\": 6, \"ts\": 2, \"dur\": 1, \"args\": {\"correlation\": 8}},\n"
        " {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"\\\\\", \"runtime\": [\"driver\", {\"x\": \"]\"}],"
        " \"pid\": 1, \"tid\": 7, \"ts\": 3, \"dur\": 1},\n"
        " {\"ph\": \"s\", \"cat\": \"AC2G\", \"id\": 9, \"pid\": 1, \"tid\": 7, \"ts\": 3, \"name\": \"f\"},\n"
        " {\"ph\": \"f\", \"cat\": \"ac2g\", \"id\": 9, \"pid\": 0, \"tid\": 3, \"ts\": 4, \"bp\": \"e\"},\n"
        " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k7\", \"pid\": 0, \"tid\": 3, \"ts\": 4,"
        " \"dur\": 1, \"args\": {\"correlation\": 7}},\n"
        " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k8\", \"pid\": 0, \"tid\": 3, \"ts\": 6,"
        " \"dur\": 1, \"args\": {\"correlation\": 8}},\n"
        " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k9\", \"pid\": 0, \"tid\": 3, \"ts\": 4,"
        " \"dur\": 1}\n]}",
    };
    char path[600], own[600];
    snprintf(path, sizeof path, "%s/scan.json", gs_test_tmpdir());
    snprintf(own, sizeof own, "%s/own.json", gs_test_tmpdir());
    gs_timeline *tl;
    gs_err err;
    GS_REQUIRE(gs_timeline_read_csv(&tl, "traces/h200-backlog-g2dev.spans.csv", &err) == GS_OK);
    GS_REQUIRE(gs_timeline_write_chrome(tl, own, &err) == GS_OK);
    gs_timeline_destroy(tl);
    const char *files[] = {path, KINETO, "traces/torch-stall/torch-sleep-profile.json", own};
    for (size_t t = 0; t < sizeof texts / sizeof texts[0]; t++) {
        GS_REQUIRE(gs_test_write_text(path, texts[t]));
        GS_CHECK_MSG(same_import(path, NULL), "text %zu from memory", t);
        GS_CHECK_MSG(same_import(path, "16"), "text %zu with a 16-byte window", t);
    }
    for (size_t i = 1; i < sizeof files / sizeof files[0]; i++)
        GS_CHECK_MSG(same_import(files[i], NULL), "%s", files[i]);
}
