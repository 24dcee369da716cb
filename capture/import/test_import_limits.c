/*
 * What the importers accept they can write and read back (issue 35): a
 * value outside timeline/limits.h is an error naming the file and place,
 * never narrowed; gapscope's own timeline.json reads back field for field.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>

#if GS_HAVE_SQLITE
#include <sqlite3.h>
#endif

#include "../../timeline/timeline.h"
#include "test_import_util.h"

static gs_status load_json(gs_timeline **tl, const char *text, gs_err *err)
{
    return imp_test_load_text(tl, NULL, text, "t.json", GS_IMPORT_CHROME, err);
}

/* Each input is refused with GS_ERR_FORMAT naming t.json:<line> and needle. */
static void expect_refused(const char *text, int line, const char *needle)
{
    gs_timeline *tl = NULL;
    gs_err err;
    GS_CHECK_MSG(load_json(&tl, text, &err) == GS_ERR_FORMAT, "accepted: %s", text);
    char where[32];
    snprintf(where, sizeof where, "t.json:%d", line);
    GS_CHECK_MSG(strstr(err.msg, where) && strstr(err.msg, needle), "'%s' lacks %s / %s", err.msg,
                 where, needle);
    gs_timeline_destroy(tl);
}

#define KERNEL_ARGS(a) \
    "{\"traceEvents\":[\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7," \
    "\"ts\":1,\"dur\":2,\"args\":{" a "}}]}"

GS_TEST(import_limits_kineto_streams_and_devices)
{
    /* Issue 35: a stream of 2^31, 1e18 or -7 was cast to 32 bits. */
    expect_refused(KERNEL_ARGS("\"stream\":2147483648"), 2, "stream 2147483648");
    expect_refused(KERNEL_ARGS("\"stream\":1000000000000000000"), 2, "stream 1000000000000000000");
    expect_refused(KERNEL_ARGS("\"stream\":-7"), 2, "stream -7");
    expect_refused(KERNEL_ARGS("\"stream\":99999999999999999999"), 2, "beyond 64 bits");
    expect_refused(KERNEL_ARGS("\"device\":4096"), 2, "device 4096");
    /* Kineto's GPU tid is the stream. */
    expect_refused("{\"traceEvents\":[\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,"
                   "\"tid\":2147483648,\"ts\":1,\"dur\":2}]}",
                   2, "stream 2147483648");
    /* Times: beyond int64 ns, and base + ts beyond the model's range. */
    expect_refused("{\"traceEvents\":[\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,"
                   "\"tid\":1,\"ts\":9999999999999999999,\"dur\":2}]}",
                   2, "time beyond");
    expect_refused("{\"baseTimeNanoseconds\":4611686018427387000,\"traceEvents\":[\n"
                   "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":1,"
                   "\"ts\":1000,\"dur\":2}]}",
                   2, "outside +-(2^62 - 1)");
    expect_refused("{\"baseTimeNanoseconds\":9223372036854775807,\"traceEvents\":[]}", 1,
                   "time 9223372036854775807");
    expect_refused("{\"baseTimeNanoseconds\":1.5e3,\"traceEvents\":[]}", 1, "integer");
    /* Within range: read exactly. */
    gs_timeline *tl = NULL;
    gs_err err;
    GS_REQUIRE(load_json(&tl, KERNEL_ARGS("\"stream\":2147483647,\"device\":4095"), &err) == GS_OK);
    const gs_lane_info *L = gs_timeline_lane(tl, 0);
    GS_CHECK(L && L->stream == 2147483647 && L->device == 4095);
    gs_timeline_destroy(tl);
}

/* gapscope's own timeline.json with one span whose args are given. */
#define OWN(args)                                                                             \
    "{\"traceEvents\":[\n"                                                                    \
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"w\"}},\n" \
    "{\"ph\":\"X\",\"name\":\"s\",\"cat\":\"step\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2,"   \
    "\"args\":{" args "}}\n],\n\"metadata\":{\"generator\":\"gapscope\",\"t0_ns\":5}}"

GS_TEST(import_limits_own_job_part_flags)
{
    /* Issue 35: a part of -5 or a job of 2^31 was written as a lane value
     * that the report step then refused; part 5000000000 became 705032704
     * and flags 70000 became 4464 (exit 0). */
    expect_refused(OWN("\"job\":1,\"part\":-5,\"flags\":0"), 3, "partition -5");
    expect_refused(OWN("\"job\":2147483648,\"part\":0,\"flags\":0"), 3, "job 2147483648");
    expect_refused(OWN("\"job\":1,\"part\":5000000000,\"flags\":0"), 3, "partition 5000000000");
    expect_refused(OWN("\"job\":1,\"part\":0,\"flags\":70000"), 3, "flags 70000");
    expect_refused(OWN("\"job\":1,\"part\":0,\"flags\":0,\"value\":1e999"), 3, "finite");
    expect_refused("{\"traceEvents\":[\n"
                   "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":"
                   "{\"name\":\"g\",\"role\":\"device\",\"device\":0,\"stream\":-7}}\n],\n"
                   "\"metadata\":{\"generator\":\"gapscope\",\"t0_ns\":0}}",
                   2, "stream -7");
    gs_timeline *tl = NULL;
    gs_err err;
    GS_REQUIRE(load_json(&tl, OWN("\"job\":2147483647,\"part\":-1,\"flags\":65535"), &err) == GS_OK);
    const gs_span *s = imp_test_span(tl, "s");
    GS_REQUIRE(s);
    GS_CHECK(s->job == 2147483647 && s->part == -1 && s->flags == 65535 && s->start_ns == 1005);
    gs_timeline_destroy(tl);
}

/* Every field of every span and lane, after timeline.json and back. */
static void same_timeline(gs_timeline *a, gs_timeline *b)
{
    GS_REQUIRE(gs_timeline_lane_count(a) == gs_timeline_lane_count(b));
    for (size_t i = 0; i < gs_timeline_lane_count(a); i++) {
        const gs_lane_info *x = gs_timeline_lane(a, (int32_t)i), *y = gs_timeline_lane(b, (int32_t)i);
        GS_CHECK_MSG(!strcmp(x->name, y->name) && x->role == y->role && x->device == y->device &&
                         x->stream == y->stream,
                     "lane %zu '%s'", i, x->name);
    }
    size_t n, m;
    const gs_span *s = gs_timeline_spans(a, &n), *t = gs_timeline_spans(b, &m);
    GS_REQUIRE(n == m);
    for (size_t i = 0; i < n; i++)
        GS_CHECK_MSG(s[i].start_ns == t[i].start_ns && s[i].end_ns == t[i].end_ns &&
                         s[i].lane == t[i].lane && s[i].kind == t[i].kind &&
                         s[i].job == t[i].job && s[i].part == t[i].part &&
                         s[i].flags == t[i].flags && s[i].holder == t[i].holder &&
                         s[i].value == t[i].value && s[i].cpu_ns == t[i].cpu_ns &&
                         !strcmp(s[i].name, t[i].name) && !strcmp(s[i].args, t[i].args),
                     "span %zu '%s' args '%s' came back as '%s' args '%s' (holder %d/%d, value "
                     "%g/%g)", i, s[i].name, s[i].args, t[i].name, t[i].args, (int)s[i].holder,
                     (int)t[i].holder, s[i].value, t[i].value);
}

GS_TEST(import_limits_own_timeline_every_field)
{
    gs_timeline *tl;
    GS_REQUIRE(gs_timeline_create(&tl) == GS_OK);
    gs_tl_lane *w = gs_tl_lane_open(tl, "gpu_worker/3.0", GS_ROLE_GPU_WORKER, 3, -1);
    gs_tl_lane *x = gs_tl_lane_open(tl, "synth/9 is \"odd\"", GS_ROLE_DRIVER, -1, -1);
    gs_tl_lane *twin = gs_tl_lane_open(tl, "synth/9 is \"odd\"", GS_ROLE_FINALIZER, 2, -1);
    gs_tl_lane *d = gs_tl_lane_open(tl, "gpu7/p2.stream5", GS_ROLE_DEVICE, 7, 5);
    const int64_t far = GS_TL_TIME_LIMIT_NS;
    gs_tl_span(w, GS_SPAN_STEP, "a;b", 2147483647, 0, -far, -far + 1, GS_SPAN_F_FAILED, "x");
    gs_tl_span(w, GS_SPAN_STEP, "args", 1, 2, 10, 20, 0, "job=3;;k=v;");
    gs_tl_span(w, GS_SPAN_STEP, "plain", 1, 2, 10, 21, 0, "k=v;eq=a=b;=empty");
    gs_tl_span_cpu(x, GS_SPAN_STEP, "cpu", -1, -1, 30, 40, 0, "gs_args=1", 12345);
    gs_tl_span(twin, GS_SPAN_MARK, "mark", 5, 6, 50, 50, 0xffff & ~GS_SPAN_F_CPU, "");
    gs_tl_span(twin, GS_SPAN_MARK, "long mark", 5, 6, 50, 60, 0, "");
    gs_tl_counter(x, "depth", 55, 0.1);
    gs_tl_counter(x, "depth", 56, -1e300);
    gs_tl_span(d, GS_SPAN_KERNEL, "k\nnl", 1, 0, 100, far, GS_SPAN_F_MODELLED, "corr=1");
    gs_span full = {.start_ns = 70, .end_ns = 80, .holder = gs_tl_lane_id(twin), .job = 1,
                    .part = 0, .kind = GS_SPAN_LOCK_WAIT, .flags = 0, .value = 2.5,
                    .name = "tracker", .args = "holder=x;value=y"};
    gs_tl_span_full(w, &full);
    gs_span held = full;
    held.kind = GS_SPAN_STEP;
    held.holder = gs_tl_lane_id(x);
    held.name = "step with a holder";
    held.args = "noeq";
    gs_tl_span_full(d, &held);
    gs_timeline_meta_set(tl, "backend", "cpu");
    char path[700];
    snprintf(path, sizeof path, "%s/own.json", gs_test_tmpdir());
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(gs_timeline_write_chrome(tl, path, &err) == GS_OK);
    gs_timeline *back;
    gs_import_report rep;
    GS_REQUIRE(imp_test_load(&back, &rep, path, GS_IMPORT_AUTO, 0, &err) == GS_OK);
    GS_CHECK_EQ_INT(gs_import_skipped_total(&rep), 0);
    same_timeline(tl, back);
    GS_CHECK(!strcmp(gs_timeline_meta_get(back, "backend"), "cpu"));
    gs_timeline_destroy(back);
    gs_timeline_destroy(tl);
}

GS_TEST(import_limits_nsys_stream)
{
#if GS_HAVE_SQLITE
    /* The nsys fixture with one kernel's streamId set to 2^31. */
    char path[700];
    snprintf(path, sizeof path, "%s/big-stream.sqlite", gs_test_tmpdir());
    char *buf;
    size_t len;
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(gs_read_file(&buf, &len, "test/fixtures/import/nsys-small.sqlite", &err) == GS_OK);
    FILE *f = fopen(path, "wb");
    GS_REQUIRE(f && fwrite(buf, 1, len, f) == len);
    fclose(f);
    free(buf);
    sqlite3 *db;
    GS_REQUIRE(sqlite3_open(path, &db) == SQLITE_OK);
    GS_REQUIRE(sqlite3_exec(db, "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET streamId = 2147483648 "
                                "WHERE rowid = 2",
                            NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(db);
    gs_timeline *tl;
    gs_import_report rep;
    GS_CHECK_EQ_INT(imp_test_load(&tl, &rep, path, GS_IMPORT_AUTO, 0, &err), GS_ERR_FORMAT);
    GS_CHECK_MSG(strstr(err.msg, "big-stream.sqlite table CUPTI_ACTIVITY_KIND_KERNEL row 2") &&
                     strstr(err.msg, "stream 2147483648"),
                 "%s", err.msg);
    gs_timeline_destroy(tl);
#else
    gs_test_skip("built without libsqlite3");
#endif
}
