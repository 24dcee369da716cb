/* Paths (paths.h): mkdir -p, joins, names resolved against a file's directory. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

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
