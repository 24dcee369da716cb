/*
 * A run as a SQLite database (`gapscope export --sqlite RUN_DIR run.db`),
 * in the spirit of Nsight Systems' export: one table per object (meta,
 * processes, devices, streams, threads, spans, gaps, gap_pieces, causes,
 * jobs, partitions) and views for the usual questions (lanes, gap_causes:
 * the gaps with their cause and holder, stage_time: device time per
 * stage).  Schema, views and queries to start from: docs/sql.md.
 *
 * Everything comes from the loaded run (diag/run.h): every span of its
 * timeline (so the database holds the loss-free timeline, as spans.csv
 * does) and its analysis (every gap and piece, not only the top ones the
 * charts keep).  The file is written to "<path>.tmp.<pid>" and renamed
 * onto path when complete: a failed export never leaves a partial file.
 *
 * Built without libsqlite3 (HAVE_SQLITE=0), gs_export_sqlite returns
 * GS_ERR_UNSUPPORTED with a message saying how to get it.
 */
#ifndef GS_EXPORT_H
#define GS_EXPORT_H

#include "../diag/run.h"

/* Schema version, also in the database's meta table (key export.schema). */
#define GS_EXPORT_SCHEMA "gapscope.sqlite/1"

/* 1 when this build can write SQLite databases. */
int gs_export_sqlite_available(void);

/* Writes the database of r to path (replacing it).  GS_ERR_IO naming the
 * path (and SQLite's message) when writing fails. */
gs_status gs_export_sqlite(const gs_run *r, const char *path, gs_err *err);

#endif
