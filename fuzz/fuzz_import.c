/*
 * libFuzzer target: the importers of `gapscope import` (capture/import:
 * Chrome/Kineto/Perfetto JSON, Nsight Systems SQLite, the production
 * daemon's log), through their in-memory entry point gs_import_bytes, then
 * the analysis and a spans.csv round trip of what was imported.
 *
 * The first input byte picks the format (low two bits: auto, chrome, nsys,
 * daemon-log), the rest is the file.  Invariant: the import returns; a
 * failure names the input ("mem") and a position (mem:<line> or
 * mem+<offset>, or "mem table T row N" for SQLite); a success gives a
 * timeline that passes the round-trip oracle (fz_oracle.c: spans.csv and
 * timeline.json back field for field, summary.json back as analysed) and
 * that analysis accepts (no GS_ERR_RANGE: importers refuse values outside
 * timeline/limits.h).  A JSON input is imported twice, by the Chrome
 * importer's field scan and by its tree reader alone
 * (GS_IMPORT_JSON_TREE): the same status and message, the same records
 * used, ignored and skipped (reasons, counts and first places), and the
 * same timeline.
 */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../capture/import/import.h"
#include "../timeline/timeline.h"
#include "fz.h"

static int names_mem(const char *msg)
{
    for (const char *p = strstr(msg, "mem"); p; p = strstr(p + 1, "mem"))
        if ((p[3] == ':' || p[3] == '+' || p[3] == '@') && p[4] >= '0' && p[4] <= '9')
            return 1;
    const char *row = strstr(msg, "mem table ");
    if (row && (row = strstr(row, " row ")) && row[5] >= '0' && row[5] <= '9')
        return 1;
    return 0;
}

/* The import of data by the tree reader alone against the field scan's
 * (st, err, rep, tl). */
static void same_as_tree(const uint8_t *data, size_t size, gs_import_format fmt, gs_status st,
                         const gs_err *err, const gs_import_report *rep, gs_timeline *tl)
{
    gs_timeline *t2 = NULL;
    if (gs_timeline_create(&t2) != GS_OK)
        return;
    gs_import_report r2;
    gs_import_report_init(&r2);
    gs_err e2;
    gs_err_clear(&e2);
    setenv("GS_IMPORT_JSON_TREE", "1", 1);
    gs_status s2 = gs_import_bytes(t2, &r2, data, size, "mem", fmt, NULL, &e2);
    unsetenv("GS_IMPORT_JSON_TREE");
    if (s2 != st || strcmp(e2.msg, err->msg))
        fz_fail("field scan: status %d (%s), tree reader: %d (%s)", (int)st, err->msg, (int)s2,
                e2.msg);
    if (r2.used != rep->used || r2.ignored != rep->ignored || r2.n_skipped != rep->n_skipped)
        fz_fail("field scan: %llu used %llu ignored %zu skip reasons, tree reader: %llu %llu %zu",
                (unsigned long long)rep->used, (unsigned long long)rep->ignored, rep->n_skipped,
                (unsigned long long)r2.used, (unsigned long long)r2.ignored, r2.n_skipped);
    for (size_t i = 0; i < rep->n_skipped; i++)
        if (strcmp(r2.skipped[i].reason, rep->skipped[i].reason) ||
            strcmp(r2.skipped[i].first, rep->skipped[i].first) ||
            r2.skipped[i].count != rep->skipped[i].count)
            fz_fail("skip %zu: field scan '%s' x%llu at %s, tree reader '%s' x%llu at %s", i,
                    rep->skipped[i].reason, (unsigned long long)rep->skipped[i].count,
                    rep->skipped[i].first, r2.skipped[i].reason,
                    (unsigned long long)r2.skipped[i].count, r2.skipped[i].first);
    if (st == GS_OK)
        fz_same_timeline(tl, t2, "field scan against tree reader");
    gs_timeline_destroy(t2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    static const gs_import_format fmts[] = {GS_IMPORT_AUTO, GS_IMPORT_CHROME, GS_IMPORT_NSYS,
                                            GS_IMPORT_DAEMON_LOG};
    gs_import_format fmt = fmts[data[0] & 3];
    gs_timeline *tl = NULL;
    if (gs_timeline_create(&tl) != GS_OK)
        return 0;
    gs_import_report rep;
    gs_import_report_init(&rep);
    gs_err err;
    gs_err_clear(&err);
    gs_status st = gs_import_bytes(tl, &rep, data + 1, size - 1, "mem", fmt, NULL, &err);
    gs_import_format used = fmt == GS_IMPORT_AUTO ? gs_import_sniff(data + 1, size - 1) : fmt;
    if (used == GS_IMPORT_CHROME)
        same_as_tree(data + 1, size - 1, fmt, st, &err, &rep, tl);
    if (st != GS_OK) {
        if (st == GS_OK || (unsigned)st >= GS_STATUS_COUNT || err.status != st || !err.msg[0])
            fz_fail("import returned %d with error record %d (%s)", (int)st, (int)err.status,
                    err.msg);
        /* Unsupported (a build without libsqlite3) and out of memory carry
         * no position; every other failure points into the input. */
        if (st != GS_ERR_UNSUPPORTED && st != GS_ERR_NOMEM && !names_mem(err.msg))
            fz_fail("import error names no position in mem: %s", err.msg);
        gs_timeline_destroy(tl);
        return 0;
    }
    /* What an importer accepted, gapscope writes and reads back. */
    fz_round_trip(tl);
    fz_analysis_outputs(tl);
    gs_timeline_destroy(tl);
    static const char *const left[] = {NULL};
    fz_expect_files(left);
    return 0;
}
