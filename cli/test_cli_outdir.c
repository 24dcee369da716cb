/*
 * A command that fails leaves no partial run directory (issue 35), end to
 * end through $GS_BIN: import of a value outside timeline/limits.h, a
 * report that cannot be written into an existing run, gate --out to a
 * directory that does not exist yet, a what-if whose outputs cannot all
 * be written.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../test/test.h"

static const char *first_line(const char *path)
{
    static char buf[256];
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (f) {
        if (!fgets(buf, sizeof buf, f))
            buf[0] = '\0';
        fclose(f);
    }
    return buf;
}

#define TRACE(stream)                                                                         \
    "{\"traceEvents\":[\n"                                                                    \
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":0,\"tid\":7,\"ts\":10,\"dur\":5,"  \
    "\"args\":{\"device\":0,\"stream\":7}},\n"                                                \
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"b\",\"pid\":0,\"tid\":7,\"ts\":20,\"dur\":5,"  \
    "\"args\":{\"device\":0,\"stream\":" stream "}}]}\n"

/* Imports a good two-kernel trace into dir = <tmpdir>/sub (GS_BIN import
 * ... opts). */
static void import_ok(char *dir, size_t dir_cap, const char *sub, const char *opts)
{
    char in[1024], cmd[4096], out[4096];
    snprintf(dir, dir_cap, "%s/%s", gs_test_tmpdir(), sub);
    snprintf(in, sizeof in, "%s/ok.json", gs_test_tmpdir());
    GS_REQUIRE(gs_test_write_text(in, TRACE("8")));
    snprintf(cmd, sizeof cmd, "%s import %s --out %s %s --quiet 2>&1", gs_test_bin(), in, dir, opts);
    GS_REQUIRE(gs_test_run(cmd, out, sizeof out) == 0);
}

GS_TEST(cli_outdir_import_out_of_range)
{
    GS_TEST_NEED_BIN();
    const char *d = gs_test_tmpdir();
    char in[1024], dir[1024], cmd[4096], out[4096], p[1200];
    snprintf(in, sizeof in, "%s/big.json", d);
    GS_REQUIRE(gs_test_write_text(in, TRACE("2147483648")));
    /* A new directory: none is left (the report step used to fail on
     * gapscope's own spans.csv and leave spans.csv and timeline.json). */
    snprintf(dir, sizeof dir, "%s/new", d);
    snprintf(cmd, sizeof cmd, "%s import %s --out %s --no-charts 2>&1", gs_test_bin(), in, dir);
    GS_CHECK_EQ_INT(gs_test_run(cmd, out, sizeof out), 2);
    GS_CHECK_MSG(strstr(out, "big.json:3") && strstr(out, "stream 2147483648"), "%s", out);
    GS_CHECK(access(dir, F_OK) != 0);
    /* An existing run directory: its previous outputs stay as they were. */
    import_ok(dir, sizeof dir, "old", "--no-charts");
    snprintf(p, sizeof p, "%s/spans.csv", dir);
    char before[256];
    snprintf(before, sizeof before, "%s", first_line(p));
    snprintf(p, sizeof p, "%s/report.md", dir);
    GS_REQUIRE(unlink(p) == 0);
    snprintf(in, sizeof in, "%s/big.json", d);
    snprintf(cmd, sizeof cmd, "%s import %s --out %s --no-charts 2>&1; ls -A %s", gs_test_bin(), in, dir,
             dir);
    gs_test_run(cmd, out, sizeof out);
    GS_CHECK_MSG(!strstr(out, "report.md") && !strstr(out, ".gs-keep"), "%s", out);
    snprintf(p, sizeof p, "%s/spans.csv", dir);
    GS_CHECK(!strcmp(first_line(p), before));
}

GS_TEST(cli_outdir_report_failure_keeps_previous)
{
    GS_TEST_NEED_BIN();
    char dir[1024], cmd[4096], out[4096], p[1200];
    import_ok(dir, sizeof dir, "run", "--no-charts");
    /* summary.json from before; report.html cannot be replaced (a
     * directory stands there), so the report fails after writing the rest. */
    snprintf(p, sizeof p, "%s/summary.json", dir);
    GS_REQUIRE(gs_test_write_text(p, "previous\n"));
    snprintf(p, sizeof p, "%s/report.html", dir);
    GS_REQUIRE(unlink(p) == 0 && mkdir(p, 0777) == 0);
    snprintf(cmd, sizeof cmd, "%s report %s --no-charts --quiet 2>&1", gs_test_bin(), dir);
    GS_CHECK_EQ_INT(gs_test_run(cmd, out, sizeof out), 3);
    snprintf(p, sizeof p, "%s/summary.json", dir);
    GS_CHECK(!strcmp(first_line(p), "previous\n"));
    snprintf(cmd, sizeof cmd, "ls -A %s", dir);
    gs_test_run(cmd, out, sizeof out);
    GS_CHECK_MSG(!strstr(out, ".gs-keep") && !strstr(out, ".tmp"), "%s", out);
}

GS_TEST(cli_outdir_gate_out_created)
{
    GS_TEST_NEED_BIN();
    const char *d = gs_test_tmpdir();
    char dir[1024], cmd[4096], out[4096], p[1200];
    import_ok(dir, sizeof dir, "run", "--no-report");
    /* Issue 35: "gate PASSED", then exit 3 on a missing --out directory. */
    snprintf(cmd, sizeof cmd, "%s gate %s --min-util 0.1 --out %s/ci/gate --quiet 2>&1", gs_test_bin(), dir,
             d);
    GS_CHECK_EQ_INT(gs_test_run(cmd, out, sizeof out), 0);
    snprintf(p, sizeof p, "%s/ci/gate/gate.json", d);
    GS_CHECK(access(p, F_OK) == 0);
    snprintf(p, sizeof p, "%s/ci/gate/gate.junit.xml", d);
    GS_CHECK(access(p, F_OK) == 0);
}

GS_TEST(cli_outdir_whatif_failure_keeps_previous)
{
    GS_TEST_NEED_BIN();
    const char *root = getenv("GS_SRC_ROOT") ? getenv("GS_SRC_ROOT") : ".";
    const char *d = gs_test_tmpdir();
    char dir[1024], cmd[4096], out[4096], p[1200];
    /* An existing --out whose summary.json cannot be replaced (a directory
     * stands there): predict --what-if fails after writing spans.csv, and
     * the directory is left as it was. */
    snprintf(dir, sizeof dir, "%s/whatif", d);
    snprintf(p, sizeof p, "%s/summary.json", dir);
    GS_REQUIRE(mkdir(dir, 0777) == 0 && mkdir(p, 0777) == 0);
    snprintf(p, sizeof p, "%s/summary.json/mine", dir);
    GS_REQUIRE(gs_test_write_text(p, "previous\n"));
    snprintf(cmd, sizeof cmd,
             "%s predict '%s/traces/attach-h200/2026-12-04/torch-trim-400' --what-if "
             "remove:malloc_trim --no-report --quiet --out %s 2>&1",
             gs_test_bin(), root, dir);
    GS_CHECK(gs_test_run(cmd, out, sizeof out) != 0);
    GS_CHECK(!strcmp(first_line(p), "previous\n"));
    snprintf(p, sizeof p, "%s/spans.csv", dir);
    GS_CHECK_MSG(access(p, F_OK) != 0, "spans.csv left behind");
    snprintf(cmd, sizeof cmd, "ls -A %s", dir);
    gs_test_run(cmd, out, sizeof out);
    GS_CHECK_MSG(!strcmp(out, "summary.json\n"), "%s", out);
}
