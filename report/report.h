/*
 * The run report: DIR/report.md and one self-contained DIR/report.html
 * (charts embedded as base64 PNG), rendered from a loaded run (run.h) and
 * the charts already drawn in DIR/charts (charts.h).  Re-rendering needs no
 * re-run: everything comes from spans.csv, jobs.csv and the charts.
 *
 * Sections: verdict, summary table with the metric definitions, idle by
 * cause, the fleet view (two devices or more), jobs and latency, charts, the top gaps with their causes and the
 * spans around them, injected delays, scenario and environment (timeline
 * metadata), how to open timeline.json in Perfetto.
 */
#ifndef GS_REPORT_H
#define GS_REPORT_H

#include "../diag/run.h"

typedef struct gs_report_opts {
    int top_gaps;              /* gaps listed in detail, default 10 */
    int spans_per_gap;         /* host spans shown around each, default 14 */
    const char *charts_note;   /* why charts are missing (NULL when drawn) */
} gs_report_opts;

void gs_report_opts_defaults(gs_report_opts *o);
gs_status gs_report_write(const gs_run *r, const gs_report_opts *o, gs_err *err);

#endif
