/* Lexical absolute and relative paths (path.h): normalisation, every
 * relation of path to base, relative arguments against the working
 * directory, and overflow. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../test/test.h"
#include "paths.h"

GS_TEST(common_path_abs)
{
    struct { const char *in, *out; } v[] = {
        {"/", "/"},        {"/a/b/../c", "/a/c"}, {"//a//./b/", "/a/b"},
        {"/..", "/"},      {"/a/../../b", "/b"},  {"/a/b/..", "/a"},
    };
    char out[64];
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        GS_CHECK_EQ_INT(gs_path_abs(out, sizeof out, v[i].in), 0);
        GS_CHECK_MSG(!strcmp(out, v[i].out), "%s -> %s, expected %s", v[i].in, out, v[i].out);
    }
    char cwd[PATH_MAX], want[PATH_MAX + 8];
    GS_REQUIRE(getcwd(cwd, sizeof cwd) != NULL);
    char big[PATH_MAX + 8];
    GS_CHECK_EQ_INT(gs_path_abs(big, sizeof big, "x/./y/.."), 0);
    snprintf(want, sizeof want, "%s/x", strcmp(cwd, "/") ? cwd : "");
    GS_CHECK_MSG(!strcmp(big, want), "relative: %s, expected %s", big, want);
    GS_CHECK_EQ_INT(gs_path_abs(out, 4, "/abcdef"), -1);
    GS_CHECK(out[0] == '\0');
}

GS_TEST(common_path_rel)
{
    struct { const char *path, *base, *out; } v[] = {
        {"/r/traces/x.jsonl", "/r/traces/run1", "../x.jsonl"},
        {"/r/traces/run1/spans.csv", "/r/traces/run1", "spans.csv"},
        {"/r/traces/run1", "/r/traces/run1/", "."},
        {"/a/bc", "/a/b", "../bc"},                 /* a prefix that is not a component */
        {"/", "/a/b", "../.."},
        {"/a", "/", "a"},
        {"/x/y/z", "/p/q", "../../x/y/z"},
        {"/a/./b/../c", "//a", "c"},
        {"", "/a", ""},
    };
    char out[64];
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        GS_CHECK_EQ_INT(gs_path_rel(out, sizeof out, v[i].path, v[i].base), 0);
        GS_CHECK_MSG(!strcmp(out, v[i].out), "%s from %s -> %s, expected %s", v[i].path, v[i].base, out,
                     v[i].out);
    }
    /* Relative arguments are relative to the working directory. */
    char cwd[PATH_MAX], abs[PATH_MAX + 16];
    GS_REQUIRE(getcwd(cwd, sizeof cwd) != NULL);
    snprintf(abs, sizeof abs, "%s/traces/x.jsonl", strcmp(cwd, "/") ? cwd : "");
    GS_CHECK_EQ_INT(gs_path_rel(out, sizeof out, abs, "runs/demo"), 0);
    GS_CHECK_MSG(!strcmp(out, "../../traces/x.jsonl"), "got %s", out);
    GS_CHECK_EQ_INT(gs_path_rel(out, sizeof out, "scenarios/demo.ini", cwd), 0);
    GS_CHECK_MSG(!strcmp(out, "scenarios/demo.ini"), "got %s", out);
    /* Too long: -1 and the path unchanged (truncated to the buffer). */
    char small[8];
    GS_CHECK_EQ_INT(gs_path_rel(small, sizeof small, "/x/y/z", "/p/q"), -1);
    GS_CHECK_MSG(!strcmp(small, "/x/y/z"), "got %s", small);
}
