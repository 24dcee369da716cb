/*
 * Helper of the report tests (test_report.c, test_export.c,
 * test_render.c): a hand-built timeline written as a run directory's
 * spans.csv.
 */
#ifndef GS_TEST_REPORT_UTIL_H
#define GS_TEST_REPORT_UTIL_H

#include <stdio.h>

#include "../timeline/timeline.h"

/* Writes tl as DIR/spans.csv (tl stays the caller's); 1 on success. */
static inline int tr_write_spans(gs_timeline *tl, const char *dir)
{
    char p[700];
    gs_err err;
    gs_err_clear(&err);
    snprintf(p, sizeof p, "%s/spans.csv", dir);
    return gs_timeline_write_csv(tl, p, &err) == GS_OK;
}

#endif
