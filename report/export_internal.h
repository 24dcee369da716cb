/*
 * Shared by the SQLite export's files (export_sqlite.c: the database, the
 * schema, the timeline's tables; export_analysis.c: the analysis's and the
 * jobs' tables).  Internal to report/; only with libsqlite3.
 */
#ifndef GS_REPORT_EXPORT_INTERNAL_H
#define GS_REPORT_EXPORT_INTERNAL_H

#if GS_HAVE_SQLITE
#include <sqlite3.h>

#include "export.h"

typedef struct gs_xdb {
    sqlite3 *db;
    const char *path;          /* the final path, for messages */
    gs_err *err;
} gs_xdb;

/* Runs SQL (several statements); sets err naming the path and SQLite's
 * message on failure.  Returns 1 on success. */
int gs_xdb_exec(gs_xdb *x, const char *sql);
/* Prepares one statement; NULL (err set) on failure. */
sqlite3_stmt *gs_xdb_prepare(gs_xdb *x, const char *sql);
/* Steps a bound insert and resets it for the next row.  Returns 1 on success. */
int gs_xdb_row(gs_xdb *x, sqlite3_stmt *st);
/* Binds v, or NULL when v equals none. */
void gs_xdb_bind_i64(sqlite3_stmt *st, int col, int64_t v, int64_t none);

/* export_analysis.c: devices, gaps, gap_pieces, causes, jobs (after the
 * timeline's tables: jobs without jobs.csv come from the spans' marks). */
int gs_xdb_analysis(gs_xdb *x, const gs_run *r);

#endif
#endif
