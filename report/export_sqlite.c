/*
 * `gapscope export --sqlite` (export.h): the database file, its schema and
 * views, and the timeline's tables (meta, processes, streams, threads,
 * spans, partitions).  The analysis's tables are export_analysis.c's.  The
 * schema is documented in docs/sql.md; keep the two in step.
 *
 * Writing: one transaction into "<path>.tmp.<pid>" with journaling and
 * syncs off (the file is nothing until renamed), indexes built after the
 * rows, then the rename.  About 1 s per million spans.
 */
#define _POSIX_C_SOURCE 200809L
#include "export.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export_internal.h"

#if GS_HAVE_SQLITE

static const char schema_sql[] =
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);\n"
    "CREATE TABLE processes (id INTEGER PRIMARY KEY, label TEXT);\n"
    "CREATE TABLE devices (id INTEGER PRIMARY KEY, process INTEGER, name TEXT, ops INTEGER,\n"
    "  span_start_ns INTEGER, span_end_ns INTEGER, span_s REAL, busy_s REAL, kernel_busy_s REAL,\n"
    "  copy_busy_s REAL, util REAL, util_kernels_only REAL, idle_s REAL, gaps INTEGER,\n"
    "  idle_during_malloc_trim_s REAL, attribution TEXT, top_cause TEXT);\n"
    "CREATE TABLE streams (lane INTEGER PRIMARY KEY, device INTEGER, stream INTEGER,\n"
    "  process INTEGER, name TEXT);\n"
    "CREATE TABLE threads (lane INTEGER PRIMARY KEY, role TEXT, device INTEGER,\n"
    "  process INTEGER, name TEXT);\n"
    "CREATE TABLE spans (id INTEGER PRIMARY KEY, start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,\n"
    "  dur_ns INTEGER NOT NULL, lane INTEGER NOT NULL, kind TEXT NOT NULL, name TEXT NOT NULL,\n"
    "  job INTEGER, part INTEGER, flags INTEGER NOT NULL, holder INTEGER, value REAL,\n"
    "  args TEXT NOT NULL, cpu_ns INTEGER);\n"
    "CREATE TABLE gaps (id INTEGER PRIMARY KEY, device INTEGER NOT NULL, idx INTEGER NOT NULL,\n"
    "  start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL, dur_ns INTEGER NOT NULL, cause TEXT);\n"
    "CREATE TABLE gap_pieces (id INTEGER PRIMARY KEY, gap INTEGER NOT NULL, device INTEGER NOT NULL,\n"
    "  start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL, dur_ns INTEGER NOT NULL,\n"
    "  cause TEXT NOT NULL, worker INTEGER, holder INTEGER, detail TEXT);\n"
    "CREATE TABLE causes (name TEXT PRIMARY KEY, idx INTEGER, family TEXT, description TEXT,\n"
    "  idle_s REAL, share REAL, kernel_idle_s REAL);\n"
    "CREATE TABLE jobs (process INTEGER, id INTEGER, kind TEXT, partitions INTEGER, status TEXT,\n"
    "  verified INTEGER, intended_ns INTEGER, submitted_ns INTEGER, done_ns INTEGER,\n"
    "  latency_ns INTEGER, error TEXT, PRIMARY KEY (process, id));\n"
    "CREATE TABLE partitions (process INTEGER, job INTEGER, part INTEGER, first_ns INTEGER,\n"
    "  last_ns INTEGER, spans INTEGER, device_ns INTEGER, kernel_ns INTEGER, copy_ns INTEGER,\n"
    "  host_ns INTEGER, PRIMARY KEY (process, job, part));\n";

/* After the rows: derived tables, indexes, views. */
static const char finish_sql[] =
    "INSERT INTO partitions SELECT l.process, s.job, s.part, min(s.start_ns), max(s.end_ns),\n"
    "  count(*), sum(CASE WHEN s.kind IN ('kernel','copy') THEN s.dur_ns ELSE 0 END),\n"
    "  sum(CASE WHEN s.kind = 'kernel' THEN s.dur_ns ELSE 0 END),\n"
    "  sum(CASE WHEN s.kind = 'copy' THEN s.dur_ns ELSE 0 END),\n"
    "  sum(CASE WHEN s.kind = 'step' AND l.role <> 'device' THEN s.dur_ns ELSE 0 END)\n"
    "  FROM spans s JOIN lanes l ON l.lane = s.lane\n"
    "  WHERE s.job >= 0 AND s.part >= 0 AND s.kind NOT IN ('mark','counter')\n"
    "  GROUP BY l.process, s.job, s.part;\n"
    "CREATE INDEX spans_lane_start ON spans (lane, start_ns);\n"
    "CREATE INDEX spans_start ON spans (start_ns);\n"
    "CREATE INDEX gaps_device_start ON gaps (device, start_ns);\n"
    "CREATE INDEX gap_pieces_gap ON gap_pieces (gap);\n"
    "CREATE VIEW gap_causes AS SELECT p.id AS piece, g.id AS gap, g.device, g.idx,\n"
    "  p.start_ns, p.end_ns, p.dur_ns, p.cause, c.family, p.worker, w.name AS worker_name,\n"
    "  p.holder, h.name AS holder_name, p.detail, g.dur_ns AS gap_dur_ns, g.cause AS gap_cause\n"
    "  FROM gap_pieces p JOIN gaps g ON g.id = p.gap JOIN causes c ON c.name = p.cause\n"
    "  LEFT JOIN lanes w ON w.lane = p.worker LEFT JOIN lanes h ON h.lane = p.holder;\n"
    "CREATE VIEW stage_time AS SELECT st.device, s.kind, s.name AS stage, count(*) AS ops,\n"
    "  sum(s.dur_ns) AS total_ns, avg(s.dur_ns) AS mean_ns, min(s.dur_ns) AS min_ns,\n"
    "  max(s.dur_ns) AS max_ns FROM spans s JOIN streams st ON st.lane = s.lane\n"
    "  WHERE s.kind IN ('kernel','copy') GROUP BY st.device, s.kind, s.name;\n";

/* The lanes view comes first: partitions need it. */
static const char lanes_sql[] =
    "CREATE VIEW lanes AS SELECT lane, 'device' AS role, device, stream, process, name\n"
    "  FROM streams UNION ALL SELECT lane, role, device, -1, process, name FROM threads;\n";

int gs_xdb_exec(gs_xdb *x, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(x->db, sql, NULL, NULL, &msg) == SQLITE_OK)
        return 1;
    gs_err_set(x->err, GS_ERR_IO, "export sqlite", x->path, "%s", msg ? msg : sqlite3_errmsg(x->db));
    sqlite3_free(msg);
    return 0;
}

sqlite3_stmt *gs_xdb_prepare(gs_xdb *x, const char *sql)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(x->db, sql, -1, &st, NULL) != SQLITE_OK) {
        gs_err_set(x->err, GS_ERR_IO, "export sqlite", x->path, "%s", sqlite3_errmsg(x->db));
        sqlite3_finalize(st);
        return NULL;
    }
    return st;
}

int gs_xdb_row(gs_xdb *x, sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc == SQLITE_DONE)
        return 1;
    gs_err_set(x->err, GS_ERR_IO, "export sqlite", x->path, "%s", sqlite3_errmsg(x->db));
    return 0;
}

void gs_xdb_bind_i64(sqlite3_stmt *st, int col, int64_t v, int64_t none)
{
    if (v == none)
        sqlite3_bind_null(st, col);
    else
        sqlite3_bind_int64(st, col, v);
}

static int put_meta(gs_xdb *x, const gs_run *r)
{
    sqlite3_stmt *st = gs_xdb_prepare(x, "INSERT OR REPLACE INTO meta VALUES (?, ?)");
    if (!st)
        return 0;
    char t0[32];
    snprintf(t0, sizeof t0, "%lld", (long long)r->an->t0_ns);
    const char *own[][2] = {{"export.schema", GS_EXPORT_SCHEMA}, {"export.t0_ns", t0},
                            {"export.source", r->spans}};
    int ok = 1;
    for (size_t i = 0; ok && i < gs_timeline_meta_count(r->tl); i++) {
        const char *k, *v;
        gs_timeline_meta_at(r->tl, i, &k, &v);
        sqlite3_bind_text(st, 1, k, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, v, -1, SQLITE_STATIC);
        ok = gs_xdb_row(x, st);
    }
    for (size_t i = 0; ok && i < sizeof own / sizeof own[0]; i++) {
        sqlite3_bind_text(st, 1, own[i][0], -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, own[i][1], -1, SQLITE_STATIC);
        ok = gs_xdb_row(x, st);
    }
    sqlite3_finalize(st);
    return ok;
}

/* processes (labels from meta process.<k>.label; one unnamed process when
 * the run is not merged), streams and threads. */
static int put_lanes(gs_xdb *x, const gs_run *r)
{
    sqlite3_stmt *pr = gs_xdb_prepare(x, "INSERT INTO processes VALUES (?, ?)");
    sqlite3_stmt *sm = gs_xdb_prepare(x, "INSERT INTO streams VALUES (?, ?, ?, ?, ?)");
    sqlite3_stmt *th = gs_xdb_prepare(x, "INSERT INTO threads VALUES (?, ?, ?, ?, ?)");
    int ok = pr && sm && th;
    int32_t n_proc = 1;
    size_t nl = gs_timeline_lane_count(r->tl);
    for (size_t l = 0; l < nl; l++)
        if (gs_timeline_lane(r->tl, (int32_t)l)->process >= n_proc)
            n_proc = gs_timeline_lane(r->tl, (int32_t)l)->process + 1;
    for (int32_t p = 0; ok && p < n_proc; p++) {
        char key[64];
        snprintf(key, sizeof key, "process.%d.label", (int)p);
        const char *label = gs_timeline_meta_get(r->tl, key);
        sqlite3_bind_int(pr, 1, p);
        if (label)
            sqlite3_bind_text(pr, 2, label, -1, SQLITE_STATIC);
        ok = gs_xdb_row(x, pr);
    }
    for (size_t l = 0; ok && l < nl; l++) {
        const gs_lane_info *L = gs_timeline_lane(r->tl, (int32_t)l);
        sqlite3_stmt *st = L->role == GS_ROLE_DEVICE ? sm : th;
        sqlite3_bind_int(st, 1, L->id);
        if (L->role == GS_ROLE_DEVICE) {
            sqlite3_bind_int(st, 2, L->device);
            sqlite3_bind_int(st, 3, L->stream);
        } else {
            sqlite3_bind_text(st, 2, gs_role_name(L->role), -1, SQLITE_STATIC);
            gs_xdb_bind_i64(st, 3, L->device, -1);
        }
        sqlite3_bind_int(st, 4, L->process);
        sqlite3_bind_text(st, 5, L->name, -1, SQLITE_STATIC);
        ok = gs_xdb_row(x, st);
    }
    sqlite3_finalize(pr);
    sqlite3_finalize(sm);
    sqlite3_finalize(th);
    return ok;
}

/* Every span, in the timeline's order (id 1, 2, ... = spans.csv's rows). */
static int put_spans(gs_xdb *x, const gs_run *r)
{
    sqlite3_stmt *st = gs_xdb_prepare(
        x, "INSERT INTO spans VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (!st)
        return 0;
    size_t n;
    const gs_span *sp = gs_timeline_spans(r->tl, &n);
    int ok = 1;
    for (size_t i = 0; ok && i < n; i++) {
        const gs_span *s = &sp[i];
        sqlite3_bind_int64(st, 1, (int64_t)i + 1);
        sqlite3_bind_int64(st, 2, s->start_ns);
        sqlite3_bind_int64(st, 3, s->end_ns);
        sqlite3_bind_int64(st, 4, s->end_ns - s->start_ns);
        sqlite3_bind_int(st, 5, s->lane);
        sqlite3_bind_text(st, 6, gs_span_kind_name((gs_span_kind)s->kind), -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 7, s->name, -1, SQLITE_STATIC);
        gs_xdb_bind_i64(st, 8, s->job, -1);
        gs_xdb_bind_i64(st, 9, s->part, -1);
        sqlite3_bind_int(st, 10, s->flags);
        gs_xdb_bind_i64(st, 11, s->holder, -1);
        sqlite3_bind_double(st, 12, s->value);
        sqlite3_bind_text(st, 13, s->args, -1, SQLITE_STATIC);
        if (s->flags & GS_SPAN_F_CPU)
            sqlite3_bind_int64(st, 14, s->cpu_ns);
        ok = gs_xdb_row(x, st);
    }
    sqlite3_finalize(st);
    return ok;
}

int gs_export_sqlite_available(void)
{
    return 1;
}

gs_status gs_export_sqlite(const gs_run *r, const char *path, gs_err *err)
{
    char tmp[4200];
    int k = snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    if (k < 0 || (size_t)k >= sizeof tmp)
        return gs_err_set(err, GS_ERR_ARG, "export sqlite", path, "path too long");
    unlink(tmp);
    gs_xdb x = {NULL, path, err};
    int ok = sqlite3_open_v2(tmp, &x.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) ==
             SQLITE_OK;
    if (!ok)
        gs_err_set(err, GS_ERR_IO, "export sqlite", path, "cannot create %s: %s", tmp,
                   x.db ? sqlite3_errmsg(x.db) : "out of memory");
    ok = ok && gs_xdb_exec(&x, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;"
                               "BEGIN;") &&
         gs_xdb_exec(&x, schema_sql) && gs_xdb_exec(&x, lanes_sql) && put_meta(&x, r) &&
         put_lanes(&x, r) && put_spans(&x, r) && gs_xdb_analysis(&x, r) &&
         gs_xdb_exec(&x, finish_sql) && gs_xdb_exec(&x, "COMMIT;");
    if (x.db && sqlite3_close(x.db) != SQLITE_OK && ok) {
        gs_err_set(err, GS_ERR_IO, "export sqlite", path, "closing: %s", sqlite3_errmsg(x.db));
        ok = 0;
    }
    if (ok && rename(tmp, path) != 0) {
        gs_err_set(err, GS_ERR_IO, "export sqlite", path, "cannot rename %s onto it", tmp);
        ok = 0;
    }
    if (!ok)
        unlink(tmp);
    return ok ? GS_OK : (err && err->status != GS_OK ? err->status : GS_ERR_IO);
}

#else /* !GS_HAVE_SQLITE */

int gs_export_sqlite_available(void)
{
    return 0;
}

gs_status gs_export_sqlite(const gs_run *r, const char *path, gs_err *err)
{
    (void)r;
    return gs_err_set(err, GS_ERR_UNSUPPORTED, "export sqlite", path,
                      "this gapscope was built without libsqlite3 (install libsqlite3-dev, "
                      "e.g. apt-get install libsqlite3-dev, and rebuild)");
}

#endif
