/* Output directories a failed command leaves as they were (common/outdir.h). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../test/test.h"
#include "outdir.h"

static void put(const char *dir, const char *name, const char *text)
{
    char p[2400];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    GS_REQUIRE(gs_test_write_text(p, text));
}

/* The first line of dir/name ("" when missing). */
static const char *get(const char *dir, const char *name)
{
    static char buf[256];
    char p[2400];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    buf[0] = '\0';
    FILE *f = fopen(p, "r");
    if (f) {
        if (!fgets(buf, sizeof buf, f))
            buf[0] = '\0';
        fclose(f);
    }
    return buf;
}

/* Number of entries in dir (without . and ..). */
static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d)
        closedir(d);
    return n;
}

static const char *const names[] = {"summary.json", "data", "run-*", NULL};

GS_TEST(outdir_new_directory_removed_on_abort)
{
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/new/deeper/run", gs_test_tmpdir());
    gs_outdir d;
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(gs_outdir_begin(&d, dir, names, &err) == GS_OK);
    GS_CHECK(d.created);
    put(dir, "summary.json", "new");
    put(dir, "other.txt", "x");
    GS_CHECK_EQ_INT(gs_outdir_end(&d, 3), 3);
    GS_CHECK(access(dir, F_OK) != 0);
    /* Committed, it stays with everything in it. */
    GS_REQUIRE(gs_outdir_begin(&d, dir, names, &err) == GS_OK);
    put(dir, "summary.json", "new");
    gs_outdir_commit(&d);
    GS_CHECK(!strcmp(get(dir, "summary.json"), "new") && entries(dir) == 1);
    /* A file where the directory should be: an error, nothing touched. */
    char file[1200];
    snprintf(file, sizeof file, "%s/summary.json", dir);
    gs_err_clear(&err);
    GS_CHECK_EQ_INT(gs_outdir_begin(&d, file, names, &err), GS_ERR_IO);
    GS_CHECK(strstr(err.msg, "not a directory") != NULL);
}

GS_TEST(outdir_existing_directory_restored_on_abort)
{
    char dir[1100], sub[1200];
    snprintf(dir, sizeof dir, "%s/old", gs_test_tmpdir());
    snprintf(sub, sizeof sub, "%s/data", dir);
    GS_REQUIRE(mkdir(dir, 0777) == 0 && mkdir(sub, 0777) == 0);
    put(dir, "summary.json", "old");
    put(dir, "spans.csv", "input");   /* not a name the command writes */
    put(sub, "a.dat", "old a");
    gs_outdir d;
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(gs_outdir_begin(&d, dir, names, &err) == GS_OK);
    GS_CHECK(!d.created);
    /* The command rewrites summary.json (by rename, as outfile.c does), a
     * data file in place (as gnuplot does), adds run-001/ and a data file. */
    put(dir, "summary.json.tmp", "new");
    char a[1300], b[1300];
    snprintf(a, sizeof a, "%s/summary.json.tmp", dir);
    snprintf(b, sizeof b, "%s/summary.json", dir);
    GS_REQUIRE(rename(a, b) == 0);
    put(sub, "a.dat", "new a");
    put(sub, "b.dat", "new b");
    snprintf(a, sizeof a, "%s/run-001", dir);
    GS_REQUIRE(mkdir(a, 0777) == 0);
    put(a, "spans.csv", "x");
    gs_outdir_abort(&d);
    GS_CHECK(!strcmp(get(dir, "summary.json"), "old"));
    GS_CHECK(!strcmp(get(sub, "a.dat"), "old a"));
    GS_CHECK(!gs_test_exists(sub, "b.dat") && !gs_test_exists(dir, "run-001"));
    GS_CHECK(!strcmp(get(dir, "spans.csv"), "input"));
    GS_CHECK_EQ_INT(entries(dir), 3);   /* summary.json, spans.csv, data: no .gs-keep left */
    /* Committed: the new outputs stay, the copies go. */
    GS_REQUIRE(gs_outdir_begin(&d, dir, names, &err) == GS_OK);
    put(dir, "summary.json", "newer");
    gs_outdir_commit(&d);
    GS_CHECK(!strcmp(get(dir, "summary.json"), "newer"));
    GS_CHECK_EQ_INT(entries(dir), 3);
}
