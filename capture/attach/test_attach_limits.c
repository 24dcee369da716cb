/*
 * Attach raw records at the edges of what the timeline holds (issue 35):
 * offsets and times that overflowed (UBSan) or that the converter accepted
 * and its own spans.csv reader then refused, ids narrowed to 32 bits, and
 * a folder without API records (qsort of a NULL array).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../test/test.h"
#include "attach.h"

static gs_status convert_text(gs_timeline **tl, gs_attach_stats *stats, const char *text,
                              gs_err *err)
{
    char dir[1100], path[1200], cmd[2400], out[64];
    snprintf(dir, sizeof dir, "%s/raw", gs_test_tmpdir());
    snprintf(cmd, sizeof cmd, "rm -rf %s && mkdir -p %s", dir, dir);
    gs_test_run(cmd, out, sizeof out);
    snprintf(path, sizeof path, "%s/p5-0.rec", dir);
    if (!gs_test_write_text(path, text))
        return GS_ERR_IO;
    gs_err_clear(err);
    *tl = NULL;
    return gs_attach_convert(tl, stats, dir, NULL, err);
}

#define HDR "H gsattach 1 5 4 0 x\n"

GS_TEST(attach_limits_refused_with_file_and_line)
{
    static const struct {
        const char *text, *needle;
    } bad[] = {
        /* UBSan: INT64_MAX + a raw time at the add in rawread.c */
        {HDR "O 9223372036854775807\nK 10 20 0 0 0 1 k\n", "offset 9223372036854775807"},
        {HDR "O -9223372036854775807\nK 10 20 0 0 0 1 k\n", "outside +-(2^62 - 1)"},
        /* an end time the spans.csv reader refused after conversion */
        {HDR "K 9223372036854775000 9223372036854775807 0 0 0 1 k\n", "outside +-(2^62 - 1)"},
        {HDR "R 9223372036854775807 9223372036854775807 3 4 5 cudaFree\n", "outside +-(2^62 - 1)"},
        {HDR "W 4611686018427387904 4611686018427387905 3 0x1 0\n", "outside +-(2^62 - 1)"},
        /* ids narrowed to 32 bits (and a device the model cannot hold) */
        {HDR "K 10 20 2147483648 0 0 1 k\n", "device 2147483648"},
        {HDR "K 10 20 0 0 4294967296 1 k\n", "stream 4294967296"},
        {HDR "K 10 20 0 0 0 4294967296 k\n", "correlation id 4294967296"},
        {HDR "M 10 20 0 0 0 1 0 300 1 1 8\n", "copy kind 300"},
        {HDR "M 10 20 0 0 0 1 4294967296 1 1 1 8\n", "runtime correlation id 4294967296"},
        {HDR "M 10 20 0 0 0 1 0 1 1 1 9223372036854775808\n", "bytes 9223372036854775808"},
        {HDR "M 10 20 0 0 2147483648 1 0 1 1 1 8\n", "stream 2147483648"},
        {HDR "S 10 20 4096 0 0 1 8 1\n", "device 4096"},
        {HDR "S 10 20 0 0 0 1 9223372036854775808 1\n", "bytes 9223372036854775808"},
        {HDR "R 10 20 4294967296 4 5 cudaFree\n", "thread id 4294967296"},
        {"H gsattach 1 4294967296 4 0 x\n", "pid 4294967296"},
        {HDR "X 1 9223372036854775807\nX 1 1\n", "dropped count"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gs_timeline *tl;
        gs_err err;
        GS_CHECK_EQ_INT(convert_text(&tl, NULL, bad[i].text, &err), GS_ERR_FORMAT);
        GS_CHECK(tl == NULL);
        GS_CHECK_MSG(strstr(err.msg, "p5-0.rec:") && strstr(err.msg, bad[i].needle), "case %zu: %s",
                     i, err.msg);
        gs_timeline_destroy(tl);
    }
}

GS_TEST(attach_limits_edges_that_convert)
{
    gs_timeline *tl;
    gs_attach_stats st;
    gs_err err;
    /* No API records at all (qsort(NULL, 0) before), and an API call whose
     * end is 2^63 (e - s overflowed in convert.c): dropped as untimed. */
    GS_REQUIRE(convert_text(&tl, &st, HDR "K 10 20 4095 0 2147483647 4294967295 k\n"
                                      "R 1 9223372036854775808 3 4 5 cudaFree\n",
                            &err) == GS_OK);
    GS_CHECK_EQ_INT(st.untimed, 1);
    GS_CHECK_EQ_INT(st.api_calls, 0);
    size_t n;
    const gs_span *sp = gs_timeline_spans(tl, &n);
    GS_REQUIRE(n == 1);
    const gs_lane_info *L = gs_timeline_lane(tl, sp[0].lane);
    GS_CHECK(L->device == 4095 && L->stream == 2147483647);
    GS_CHECK(strstr(sp[0].args, "corr=4294967295") != NULL);
    /* What converted writes and reads back. */
    char path[1200];
    snprintf(path, sizeof path, "%s/edges.csv", gs_test_tmpdir());
    GS_REQUIRE(gs_timeline_write_csv(tl, path, &err) == GS_OK);
    gs_timeline *back = NULL;
    GS_CHECK(gs_timeline_read_csv(&back, path, &err) == GS_OK);
    gs_timeline_destroy(back);
    gs_timeline_destroy(tl);
    /* An offset that brings a CUPTI time into range is fine. */
    GS_REQUIRE(convert_text(&tl, &st, HDR "O -9000000000000000000\n"
                                      "K 9000000000000000010 9000000000000000020 0 0 0 1 k\n",
                            &err) == GS_OK);
    sp = gs_timeline_spans(tl, &n);
    GS_REQUIRE(n == 1);
    GS_CHECK(sp[0].start_ns == 10 && sp[0].end_ns == 20);
    gs_timeline_destroy(tl);
}

GS_TEST(attach_limits_cli_leaves_no_partial_run)
{
    const char *b = getenv("GS_BIN");
    if (!b || !*b) {
        gs_test_skip("GS_BIN not set (run through make test)");
        return;
    }
    char raw[1100], path[1200], cmd[2600], out[2048];
    snprintf(raw, sizeof raw, "%s/run/attach-raw", gs_test_tmpdir());
    snprintf(cmd, sizeof cmd, "mkdir -p %s", raw);
    gs_test_run(cmd, out, sizeof out);
    snprintf(path, sizeof path, "%s/p7-1.rec", raw);
    GS_REQUIRE(gs_test_write_text(path, "H gsattach 1 7 1 0 x\nK 10 20 0 0 0 1 k\n"
                                        "K 9223372036854775000 9223372036854775807 0 0 0 2 k\n"));
    snprintf(cmd, sizeof cmd, "%s attach --convert %s/run 2>&1; echo rc=$?; ls -A %s/run", b,
             gs_test_tmpdir(), gs_test_tmpdir());
    gs_test_run(cmd, out, sizeof out);
    /* exit 2 naming the record; the run directory holds only the capture */
    GS_CHECK_MSG(strstr(out, "p7-1.rec:3") && strstr(out, "rc=2\nattach-raw\n") &&
                     !strstr(out, "spans.csv") && !strstr(out, "timeline.json"),
                 "%s", out);
}
