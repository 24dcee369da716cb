/*
 * `gapscope export --sqlite` (export.h): every span of a run is in the
 * database exactly, the gaps' causes add up to the analysis's, the
 * documented queries of docs/sql.md ("How to query") run on it, and the
 * file is written atomically.  Read back with the sqlite3 C API.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../test/test.h"
#include "../common/outfile.h"
#include "export.h"
#include "test_report_util.h"

#if GS_HAVE_SQLITE
#include <sqlite3.h>

#define MS 1000000LL

/* An engine-shaped run (a GPU worker waiting on the tracker while a
 * finalizer trims under it), a foreign device (launcher rule), CPU times,
 * quoted args, and jobs.csv: every column of the tables gets a value. */
static int write_run(const char *dir)
{
    gs_timeline *tl;
    if (gs_timeline_create(&tl) != GS_OK)
        return 0;
    gs_timeline_meta_set(tl, "device.0.name", "test \"GPU\", 0");
    gs_tl_lane *dev = gs_tl_lane_open(tl, "gpu0/stream0", GS_ROLE_DEVICE, 0, 0);
    gs_tl_lane *w = gs_tl_lane_open(tl, "gpu_worker/0.0", GS_ROLE_GPU_WORKER, 0, -1);
    gs_tl_lane *fin = gs_tl_lane_open(tl, "finalizer/0", GS_ROLE_FINALIZER, 0, -1);
    gs_tl_lane *drv = gs_tl_lane_open(tl, "driver", GS_ROLE_DRIVER, -1, -1);
    gs_tl_lane *fdev = gs_tl_lane_open(tl, "gpu1/stream7", GS_ROLE_DEVICE, 1, 7);
    gs_tl_lane *th = gs_tl_lane_open(tl, "thread/42 python", GS_ROLE_THREAD, -1, -1);
    int64_t t = 10 * MS;
    for (int i = 0; i < 8; i++) {
        gs_tl_span(drv, GS_SPAN_MARK, "submit", i, -1, t - MS, t - MS, 0, "kind=circuit");
        gs_tl_lock_wait(w, "tracker", 2, i, 0, t, t + 5 * MS);
        gs_tl_span(w, GS_SPAN_STEP, "fail_check", i, 0, t, t + 6 * MS, 0, NULL);
        gs_tl_span(fin, GS_SPAN_STEP, "malloc_trim", i, 0, t - MS, t + 5 * MS, 0, "bytes=1,2");
        gs_tl_span(fin, GS_SPAN_LOCK_HOLD, "tracker", i, 0, t - 2 * MS, t + 5 * MS, 0, "what=x");
        gs_tl_span_cpu(w, GS_SPAN_STEP, "prove_start", i, 0, t + 6 * MS, t + 30 * MS, 0, NULL,
                       3 * MS);
        gs_tl_span(dev, GS_SPAN_COPY, "h2d", i, 0, t + 7 * MS, t + 9 * MS, 0, "bytes=4096;pageable=0");
        gs_tl_span(dev, GS_SPAN_KERNEL, "msm", i, 0, t + 9 * MS, t + 30 * MS, 0, NULL);
        gs_tl_counter(drv, "gpu_queue_depth", t, i * 0.5);
        char args[64];
        snprintf(args, sizeof args, "corr=%d", 100 + i);
        gs_tl_span(th, GS_SPAN_STEP, "state:futex", -1, -1, t, t + 10 * MS, 0, NULL);
        gs_tl_span(th, GS_SPAN_STEP, "cuda:cudaLaunchKernel", -1, -1, t + 10 * MS, t + 11 * MS, 0, args);
        snprintf(args, sizeof args, "corr=%d;launch_lane=%d", 100 + i, (int)gs_tl_lane_id(th));
        gs_tl_span(fdev, GS_SPAN_KERNEL, "void k<float>(\"x\")", -1, -1, t + 11 * MS, t + 20 * MS,
                   0, args);
        gs_tl_span(drv, GS_SPAN_MARK, "job_done", i, -1, t + 31 * MS, t + 31 * MS, 0,
                   "status=ok;verified=1");
        t += 31 * MS;
    }
    int ok = tr_write_spans(tl, dir);
    gs_timeline_destroy(tl);
    return ok;
}

static int64_t one_i64(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    int64_t v = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static const char *col_text(sqlite3_stmt *st, int c)
{
    const unsigned char *s = sqlite3_column_text(st, c);
    return s ? (const char *)s : "";
}

static int64_t col_i64(sqlite3_stmt *st, int c, int64_t none)
{
    return sqlite3_column_type(st, c) == SQLITE_NULL ? none : sqlite3_column_int64(st, c);
}

/* Every span, field by field, in the timeline's order. */
static void check_spans(sqlite3 *db, const gs_run *r)
{
    size_t n;
    const gs_span *sp = gs_timeline_spans(r->tl, &n);
    GS_CHECK_EQ_INT(one_i64(db, "SELECT count(*) FROM spans"), n);
    sqlite3_stmt *st;
    GS_REQUIRE(sqlite3_prepare_v2(db, "SELECT start_ns, end_ns, dur_ns, lane, kind, name, job, part, "
                                      "flags, holder, value, args, cpu_ns FROM spans ORDER BY id",
                                  -1, &st, NULL) == SQLITE_OK);
    size_t i = 0, bad = 0;
    for (; sqlite3_step(st) == SQLITE_ROW && i < n; i++) {
        const gs_span *s = &sp[i];
        int same = col_i64(st, 0, -9) == s->start_ns && col_i64(st, 1, -9) == s->end_ns &&
                   col_i64(st, 2, -9) == s->end_ns - s->start_ns && col_i64(st, 3, -9) == s->lane &&
                   !strcmp(col_text(st, 4), gs_span_kind_name((gs_span_kind)s->kind)) &&
                   !strcmp(col_text(st, 5), s->name) && col_i64(st, 6, -1) == s->job &&
                   col_i64(st, 7, -1) == s->part && col_i64(st, 8, -9) == s->flags &&
                   col_i64(st, 9, -1) == s->holder && sqlite3_column_double(st, 10) == s->value &&
                   !strcmp(col_text(st, 11), s->args) &&
                   col_i64(st, 12, 0) == ((s->flags & GS_SPAN_F_CPU) ? s->cpu_ns : 0);
        if (!same && bad++ < 3)
            gs_test_fail(__FILE__, __LINE__, "span %zu (%s on lane %d) differs", i, s->name,
                         (int)s->lane);
    }
    GS_CHECK_EQ_INT(i, n);
    sqlite3_finalize(st);
}

/* The documented queries: every ```sql block of docs/sql.md's "How to
 * query" section runs and returns rows. */
static void check_documented(sqlite3 *db)
{
    char *doc = NULL;
    size_t len;
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(gs_read_file(&doc, &len, "docs/sql.md", &err) == GS_OK);
    char *p = strstr(doc, "## How to query");
    GS_REQUIRE(p);
    int n = 0;
    while ((p = strstr(p, "```sql\n"))) {
        p += 7;
        char *e = strstr(p, "```");
        GS_REQUIRE(e);
        *e = '\0';
        sqlite3_stmt *st;
        int rc = sqlite3_prepare_v2(db, p, -1, &st, NULL);
        GS_CHECK_MSG(rc == SQLITE_OK, "query %d: %s", n + 1, sqlite3_errmsg(db));
        int rows = 0;
        if (rc == SQLITE_OK)
            while ((rc = sqlite3_step(st)) == SQLITE_ROW)
                rows++;
        GS_CHECK_MSG(rc == SQLITE_DONE && rows > 0, "query %d: %d rows, %s", n + 1, rows,
                     sqlite3_errmsg(db));
        sqlite3_finalize(st);
        n++;
        p = e + 3;
    }
    GS_CHECK_EQ_INT(n, 5);
    free(doc);
}

GS_TEST(report_export_sqlite_roundtrip)
{
    const char *dir = gs_test_tmpdir();
    GS_REQUIRE(write_run(dir));
    gs_run r;
    gs_err err;
    gs_err_clear(&err);
    GS_REQUIRE(gs_run_load(&r, dir, NULL, &err) == GS_OK);
    char db_path[700];
    snprintf(db_path, sizeof db_path, "%s/run.db", dir);
    FILE *f = fopen(db_path, "w");   /* an old file is replaced */
    GS_REQUIRE(f);
    fputs("not a database", f);
    fclose(f);
    GS_CHECK_OK(gs_export_sqlite(&r, db_path, &err));
    sqlite3 *db;
    GS_REQUIRE(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
    check_spans(db, &r);
    const gs_analysis *a = r.an;
    GS_CHECK_EQ_INT(one_i64(db, "SELECT count(*) FROM lanes"), gs_timeline_lane_count(r.tl));
    GS_CHECK_EQ_INT(one_i64(db, "SELECT count(*) FROM devices"), a->n_dev);
    GS_CHECK_EQ_INT(one_i64(db, "SELECT count(*) FROM gaps"), a->gap_stats.count);
    /* Both rules are in it: the engine's tracker waits and the launcher's. */
    GS_CHECK(one_i64(db, "SELECT count(*) FROM devices WHERE attribution = 'launcher'") == 1);
    GS_CHECK(one_i64(db, "SELECT count(*) FROM gap_causes WHERE cause = 'tracker_lock/malloc_trim' "
                         "AND holder_name = 'finalizer/0'") > 0);
    /* Idle by cause from the pieces is the analysis's, to the nanosecond. */
    for (int c = 0; c < GS_CAUSE_COUNT; c++) {
        char q[256];
        snprintf(q, sizeof q, "SELECT coalesce(sum(dur_ns), 0) FROM gap_pieces WHERE cause = '%s'",
                 gs_cause_name((gs_cause)c));
        GS_CHECK_MSG(fabs((double)one_i64(db, q) - a->cause_s[c] * 1e9) < 16, "%s: %lld ns vs %.9f s",
                     gs_cause_name((gs_cause)c), (long long)one_i64(db, q), a->cause_s[c]);
    }
    /* Jobs from the marks (no jobs.csv), partitions from the spans. */
    GS_CHECK_EQ_INT(one_i64(db, "SELECT count(*) FROM jobs WHERE status = 'ok' AND verified = 1 "
                                "AND latency_ns = 32000000"), 8);
    GS_CHECK_EQ_INT(one_i64(db, "SELECT count(*) FROM partitions WHERE device_ns = 23000000"), 8);
    GS_CHECK_EQ_INT(one_i64(db, "SELECT count(*) FROM meta WHERE key = 'export.schema' AND value = '"
                                GS_EXPORT_SCHEMA "'"), 1);
    check_documented(db);
    sqlite3_close(db);
    /* A path that cannot be written: an error naming it, no file left. */
    char bad[760];
    snprintf(bad, sizeof bad, "%s/no/such/dir/run.db", dir);
    gs_err_clear(&err);
    GS_CHECK(gs_export_sqlite(&r, bad, &err) == GS_ERR_IO && strstr(err.msg, bad));
    gs_run_free(&r);
}

/* The command: --sqlite is required, a run that cannot be read is exit 2,
 * a good one writes the database. */
GS_TEST(report_export_cli)
{
    const char *bin = getenv("GS_BIN");
    if (!bin || access(bin, X_OK) != 0) {
        gs_test_skip("GS_BIN not set (run through make test)");
        return;
    }
    const char *dir = gs_test_tmpdir();
    GS_REQUIRE(write_run(dir));
    char cmd[2400], out[256];
    snprintf(cmd, sizeof cmd, "%s export %s %s/a.db 2>/dev/null", bin, dir, dir);
    GS_CHECK_EQ_INT(gs_test_run(cmd, out, sizeof out), 2);
    snprintf(cmd, sizeof cmd, "%s export --sqlite %s/missing %s/a.db 2>/dev/null", bin, dir, dir);
    GS_CHECK_EQ_INT(gs_test_run(cmd, out, sizeof out), 2);
    snprintf(cmd, sizeof cmd, "%s export --sqlite %s %s/a.db --quiet && test -s %s/a.db", bin, dir,
             dir, dir);
    GS_CHECK_EQ_INT(gs_test_run(cmd, out, sizeof out), 0);
}

#endif
