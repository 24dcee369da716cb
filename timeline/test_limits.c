/*
 * The model's ranges (timeline/limits.h): the checks themselves, spans.csv
 * refusing what it cannot hold, and the writers refusing to write a
 * timeline their readers would refuse (issue 35).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../test/test.h"
#include "timeline.h"

GS_TEST(limits_ranges_and_arithmetic)
{
    GS_CHECK(gs_tl_in_range(GS_TLV_TIME, GS_TL_TIME_LIMIT_NS));
    GS_CHECK(!gs_tl_in_range(GS_TLV_TIME, GS_TL_TIME_LIMIT_NS + 1));
    GS_CHECK(!gs_tl_in_range(GS_TLV_TIME, INT64_MIN));
    GS_CHECK(gs_tl_in_range(GS_TLV_DEVICE, 4095) && !gs_tl_in_range(GS_TLV_DEVICE, 4096));
    GS_CHECK(gs_tl_in_range(GS_TLV_PART, -1) && !gs_tl_in_range(GS_TLV_PART, -5));
    GS_CHECK(!gs_tl_in_range(GS_TLV_PART, INT64_C(5000000000)));
    GS_CHECK(!gs_tl_in_range(GS_TLV_FLAGS, 70000) && gs_tl_in_range(GS_TLV_FLAGS, 65535));
    GS_CHECK(!gs_tl_in_range(GS_TLV_STREAM, INT64_C(2147483648)));
    int64_t t = 7;
    GS_CHECK(!gs_tl_time_add(&t, INT64_MAX, 1) && t == 7);   /* overflow */
    GS_CHECK(!gs_tl_time_add(&t, GS_TL_TIME_LIMIT_NS, 1) && t == 7);   /* out of range */
    GS_CHECK(gs_tl_time_add(&t, GS_TL_TIME_LIMIT_NS, -1) && t == GS_TL_TIME_LIMIT_NS - 1);
    GS_CHECK(!gs_tl_sub(&t, INT64_MAX, -1));
    GS_CHECK(gs_tl_sub(&t, GS_TL_TIME_LIMIT_NS, -GS_TL_TIME_LIMIT_NS) &&
             t == 2 * GS_TL_TIME_LIMIT_NS);
    gs_err err;
    gs_err_clear(&err);
    GS_CHECK(gs_tl_check(&err, "x", "f:3", GS_TLV_PART, 5000000000LL) == GS_ERR_FORMAT);
    GS_CHECK_MSG(strstr(err.msg, "x @ f:3") && strstr(err.msg, "partition 5000000000") &&
                 strstr(err.msg, "-1..2147483647"), "%s", err.msg);
    GS_CHECK(!gs_tl_value_ok(NAN) && !gs_tl_value_ok(INFINITY) && gs_tl_value_ok(-1e300));
}

static gs_status read_text(gs_timeline **tl, const char *text, gs_err *err)
{
    char path[700];
    snprintf(path, sizeof path, "%s/l.csv", gs_test_tmpdir());
    if (!gs_test_write_text(path, text))
        return GS_ERR_IO;
    gs_err_clear(err);
    return gs_timeline_read_csv(tl, path, err);
}

#define HDR "start_ns,end_ns,lane,kind,name,job,part,flags,holder,value,args\n"
#define LANES "# lane 0,driver,-1,-1,driver\n# lane 1,device,0,0,gpu0/stream0\n"

GS_TEST(limits_spans_csv_refuses_what_it_cannot_hold)
{
    static const struct {
        const char *text, *needle;
    } bad[] = {
        /* issue 35: a part of 5000000000 must not become 705032704, flags
         * 70000 not 4464 (a spans.csv could not even carry them) */
        {LANES HDR "1,2,1,kernel,k,1,5000000000,0,-1,0,\n", "partition 5000000000"},
        {LANES HDR "1,2,1,kernel,k,1,0,70000,-1,0,\n", "flags 70000"},
        {LANES HDR "1,2,1,kernel,k,-5,0,0,-1,0,\n", "job -5"},
        {"# lane 0,device,4096,0,gpu4096/stream0\n" HDR, "device 4096"},
        {"# lane 0,device,-1,0,gpu/stream0\n" HDR, "device >= 0"},
        {"# lane 0,device,0,2147483648,gpu0/stream\n" HDR, "stream 2147483648"},
        {LANES HDR "1,2,0,counter,depth,-1,-1,0,-1,3,\n", "counter"},
        {LANES HDR "1,1,0,counter,depth,4,-1,0,-1,3,\n", "counter"},
        {LANES HDR "1,1,0,counter,depth,-1,-1,0,-1,nan,\n", "finite"},
        {LANES HDR "1,1,0,counter,depth,-1,-1,0,-1,inf,\n", "finite"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gs_timeline *tl = NULL;
        gs_err err;
        GS_CHECK_EQ_INT(read_text(&tl, bad[i].text, &err), GS_ERR_FORMAT);
        GS_CHECK(tl == NULL);
        GS_CHECK_MSG(strstr(err.msg, "l.csv:") && strstr(err.msg, bad[i].needle), "case %zu: %s", i,
                     err.msg);
    }
    /* The edges themselves read. */
    gs_timeline *tl = NULL;
    gs_err err;
    GS_REQUIRE(read_text(&tl, "# lane 0,device,4095,2147483647,g\n" HDR
                              "-4611686018427387903,4611686018427387903,0,kernel,k,2147483647,"
                              "2147483647,65527,-1,0,\n", &err) == GS_OK);
    gs_timeline_destroy(tl);
}

GS_TEST(limits_writers_refuse_what_no_reader_takes)
{
    gs_timeline *tl;
    GS_REQUIRE(gs_timeline_create(&tl) == GS_OK);
    gs_tl_lane *d = gs_tl_lane_open(tl, "gpu0/stream0", GS_ROLE_DEVICE, 0, 0);
    gs_tl_span(d, GS_SPAN_KERNEL, "k", 1, 0, 10, 20, 0, NULL);
    gs_tl_span(d, GS_SPAN_KERNEL, "far", 1, 0, 10, INT64_MAX, 0, NULL);
    char csv[700], json[700];
    snprintf(csv, sizeof csv, "%s/w.csv", gs_test_tmpdir());
    snprintf(json, sizeof json, "%s/w.json", gs_test_tmpdir());
    gs_err err;
    gs_err_clear(&err);
    GS_CHECK_EQ_INT(gs_timeline_write_csv(tl, csv, &err), GS_ERR_RANGE);
    GS_CHECK_MSG(strstr(err.msg, "far") && strstr(err.msg, "w.csv"), "%s", err.msg);
    gs_err_clear(&err);
    GS_CHECK_EQ_INT(gs_timeline_write_chrome(tl, json, &err), GS_ERR_RANGE);
    GS_CHECK(access(csv, F_OK) != 0 && access(json, F_OK) != 0);
    gs_timeline_destroy(tl);
    /* A device lane without a device. */
    GS_REQUIRE(gs_timeline_create(&tl) == GS_OK);
    gs_tl_lane_open(tl, "gpu?/stream0", GS_ROLE_DEVICE, -1, 0);
    gs_err_clear(&err);
    GS_CHECK_EQ_INT(gs_timeline_write_csv(tl, csv, &err), GS_ERR_RANGE);
    GS_CHECK(access(csv, F_OK) != 0);
    gs_timeline_destroy(tl);
}
