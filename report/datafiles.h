/*
 * The plot data files of a run directory (datafiles.c): DIR/data/<name>.dat,
 * what the gnuplot templates (charts.h) draw.  Columns: report/README.md,
 * "Data files".  Each file is written atomically (common/outfile.h).
 */
#ifndef GS_REPORT_DATAFILES_H
#define GS_REPORT_DATAFILES_H

#include "../diag/run.h"

/* Writes the plot data files into DIR/data/.  util_bins.dat has at most
 * GS_UTIL_BINS_MAX bins per device: a longer span widens the bin (and says
 * so in the file). */
#define GS_UTIL_BINS_MAX 100000
gs_status gs_plot_data_write(const gs_run *r, gs_err *err);

#endif
