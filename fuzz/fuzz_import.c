/*
 * libFuzzer target: the importers of `gapscope import` (capture/import:
 * Chrome/Kineto/Perfetto JSON, Nsight Systems SQLite, the production
 * daemon's log), through their in-memory entry point gs_import_bytes, then
 * the analysis and a spans.csv round trip of what was imported.
 *
 * The first input byte picks the format (low two bits: auto, chrome, nsys,
 * daemon-log), the rest is the file.  Invariant: the import returns; a
 * failure names the input ("mem") and a position (mem:<line> or
 * mem+<offset>); a success gives a timeline that analysis accepts or
 * refuses with a named error, and that spans.csv writes and reads back
 * with the same number of spans.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "../capture/import/import.h"
#include "../diag/analysis.h"
#include "../timeline/timeline.h"
#include "fz.h"

static int names_mem(const char *msg)
{
    for (const char *p = strstr(msg, "mem"); p; p = strstr(p + 1, "mem"))
        if ((p[3] == ':' || p[3] == '+' || p[3] == '@') && p[4] >= '0' && p[4] <= '9')
            return 1;
    return 0;
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
    size_t n = 0;
    gs_timeline_spans(tl, &n);
    gs_analysis_config cfg;
    gs_analysis_config_defaults(&cfg);
    gs_analysis *an = NULL;
    gs_err_clear(&err);
    st = gs_analyze(&an, tl, &cfg, &err);
    if (st != GS_OK && (!err.msg[0] || err.status != st))
        fz_fail("analysis of an import failed without a message (%d)", (int)st);
    gs_analysis_destroy(an);

    const char *csv = fz_path("imp.spans.csv");
    gs_err_clear(&err);
    if (gs_timeline_write_csv(tl, csv, &err) != GS_OK)
        fz_fail("spans.csv of an import cannot be written: %s", err.msg);
    gs_timeline *back = NULL;
    if (gs_timeline_read_csv(&back, csv, &err) != GS_OK)
        fz_fail("spans.csv of an import does not read back: %s", err.msg);
    size_t m = 0;
    gs_timeline_spans(back, &m);
    if (m != n)
        fz_fail("spans.csv round trip: %zu spans became %zu", n, m);
    gs_timeline_destroy(back);
    gs_timeline_destroy(tl);
    static const char *const left[] = {"imp.spans.csv", NULL};
    fz_expect_files(left);
    return 0;
}
