/* The run/replay/record/sweep commands through the binary ($GS_BIN): exit
 * codes, error messages naming file:line, --dry-run, --help. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../test/test.h"

GS_TEST(cli_scn_errors_and_dry_run)
{
    GS_TEST_NEED_BIN();
    const char *b = gs_test_bin();
    const char *d = gs_test_tmpdir();
    char cmd[2048], out[16384], path[700];
    snprintf(path, sizeof path, "%s/bad.ini", d);
    GS_REQUIRE(gs_test_write_text(path, "[engine]\nsynth_threads = 2\n\n[jobs]\nreplay = sometimes\n"));
    snprintf(cmd, sizeof cmd, "%s run %s --out %s/never", b, path, d);
    GS_CHECK_EQ_INT(gs_test_sh(out, sizeof out, cmd), 2);
    GS_CHECK_MSG(strstr(out, "bad.ini:5") && strstr(out, "timed|afap|scaled"), "%s", out);
    snprintf(cmd, sizeof cmd, "%s/never", d);
    GS_CHECK(access(cmd, F_OK) != 0); /* nothing written on bad input */
    /* A malformed trace: the line number. */
    snprintf(path, sizeof path, "%s/bad.jsonl", d);
    GS_REQUIRE(gs_test_write_text(path, "{\"format\":\"gapscope-trace\",\"version\":1,\"time_unit\":\"s\"}\n"
                                        "{\"t\":1,\"id\":1,\"kind\":\"porep_c2\"}\n"
                                        "{\"t\":2,\"id\":2,\"kind\":\"porep_c3\"}\n"));
    snprintf(cmd, sizeof cmd, "%s replay %s --dry-run", b, path);
    GS_CHECK_EQ_INT(gs_test_sh(out, sizeof out, cmd), 2);
    GS_CHECK_MSG(strstr(out, "bad.jsonl:3") != NULL, "%s", out);
    /* --set with an unknown key names --set. */
    snprintf(cmd, sizeof cmd, "%s run %s --set engine.nope=1 --dry-run", b, path);
    snprintf(path, sizeof path, "%s/ok.ini", d);
    GS_REQUIRE(gs_test_write_text(path, "[engine]\nsynth_threads = 2\n"));
    snprintf(cmd, sizeof cmd, "%s run %s --set engine.nope=1 --dry-run", b, path);
    GS_CHECK_EQ_INT(gs_test_sh(out, sizeof out, cmd), 2);
    GS_CHECK_MSG(strstr(out, "--set") && strstr(out, "unknown key 'nope'"), "%s", out);
    /* --dry-run prints the settings in effect with their origins. */
    snprintf(cmd, sizeof cmd, "%s run scenarios/demo-fixed.ini --dry-run --seed 9", b);
    if (access("scenarios/demo-fixed.ini", R_OK) == 0) {
        GS_CHECK_EQ_INT(gs_test_sh(out, sizeof out, cmd), 0);
        GS_CHECK_MSG(strstr(out, "trim") && strstr(out, "= off") && strstr(out, "demo-fixed.ini:") &&
                         strstr(out, "= 9 ") && strstr(out, "job mix: 6 arrivals"), "%s", out);
    }
    snprintf(cmd, sizeof cmd, "%s run --help", b);
    GS_CHECK_EQ_INT(gs_test_sh(out, sizeof out, cmd), 0);
    GS_CHECK(strstr(out, "[inject.<point>]") && strstr(out, "queue_depth"));
    snprintf(cmd, sizeof cmd, "%s sweep", b);
    GS_CHECK_EQ_INT(gs_test_sh(out, sizeof out, cmd), 2);
}
