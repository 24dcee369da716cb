/*
 * Shared by the plot data writers (datafiles.c, data_timeline.c; internal
 * to report/): a data file under RUN/data/, written atomically.
 */
#ifndef GS_REPORT_DATA_INTERNAL_H
#define GS_REPORT_DATA_INTERNAL_H

#include "../common/outfile.h"
#include "../diag/run.h"

/* Pixel columns of the timeline chart (its width in plots/timeline.gp,
 * given to it as plot_columns in meta.gp): the resolution its rows are
 * reduced to (pixels.h). */
#define GS_PLOT_COLUMNS 1400

typedef struct gs_dfile {
    gs_outfile o;
    char path[2300];
} gs_dfile;

/* Opens RUN/data/<name> for writing (creating data/). */
gs_status gs_dfile_open(gs_dfile *d, const gs_run *r, const char *name, gs_err *err);
/* Closes (commit 1: renamed into place) unless already closed. */
gs_status gs_dfile_close(gs_dfile *d, int commit, gs_err *err);

/* Seconds since the timeline's first span. */
static inline double gs_data_sec(const gs_analysis *a, int64_t t)
{
    return (double)(t - a->t0_ns) * 1e-9;
}

/* The timeline chart's files: lanes.dat, lanes.gp, meta.gp,
 * timeline_spans.dat, timeline_gaps.dat and their zoom versions. */
gs_status gs_data_timeline_write(const gs_run *r, gs_err *err);

#endif
