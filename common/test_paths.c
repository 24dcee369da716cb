/* Paths (paths.h): mkdir -p, joins, names resolved against a file's
 * directory; lexical absolute and relative paths: normalisation, every
 * relation of path to base, relative arguments against the working
 * directory, and overflow. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../test/test.h"
#include "paths.h"

static int is_dir(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

GS_TEST(paths_mkdir_p)
{
    char d[700], file[760], below[800];
    snprintf(d, sizeof d, "%s/paths/a/b/c", gs_test_tmpdir());
    gs_err err;
    gs_err_clear(&err);
    GS_CHECK(gs_mkdir_p(d, &err) == GS_OK && is_dir(d));
    GS_CHECK(gs_mkdir_p(d, &err) == GS_OK); /* exists: fine */
    GS_CHECK(gs_mkdir_p_mode(d, 0700) == 0);
    /* A file in the way: the message names the directory that could not be made. */
    snprintf(file, sizeof file, "%s/paths/a/f", gs_test_tmpdir());
    FILE *f = fopen(file, "w");
    GS_REQUIRE(f);
    fclose(f);
    snprintf(below, sizeof below, "%s/x/y", file);
    GS_CHECK(gs_mkdir_p_mode(below, 0755) == -1 && errno == ENOTDIR);
    GS_CHECK(gs_mkdir_p(below, &err) == GS_ERR_IO);
    char want[800];
    snprintf(want, sizeof want, "run @ %s/x: mkdir: ", file);
    GS_CHECK_MSG(strstr(err.msg, want) != NULL, "%s", err.msg);
}

GS_TEST(paths_join_and_resolve)
{
    char b[16];
    GS_CHECK(gs_path_join(b, sizeof b, "run", "spans.csv") && !strcmp(b, "run/spans.csv"));
    GS_CHECK(gs_path_join(b, sizeof b, "run/", "x") && !strcmp(b, "run/x"));
    GS_CHECK(gs_path_join(b, sizeof b, "", "x") && !strcmp(b, "x"));
    GS_CHECK(!gs_path_join(b, sizeof b, "a-long-directory", "x"));
    GS_CHECK(gs_path_resolve(b, sizeof b, "scn", "t.jsonl") && !strcmp(b, "scn/t.jsonl"));
    GS_CHECK(gs_path_resolve(b, sizeof b, "scn", "/abs") && !strcmp(b, "/abs"));
    GS_CHECK(gs_path_resolve(b, sizeof b, "", "rel") && !strcmp(b, "rel"));
    GS_CHECK(gs_path_resolve(b, sizeof b, NULL, "rel") && !strcmp(b, "rel"));
    GS_CHECK(gs_path_resolve(b, sizeof b, "scn", "") && !strcmp(b, ""));
    GS_CHECK(!gs_path_resolve(b, sizeof b, "scenarios", "a-long-name"));
}

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
