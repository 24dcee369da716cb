/*
 * Charts: runs gnuplot on the templates in plots/ over a run's data files
 * (datafiles.h: gs_plot_data_write), writing DIR/charts/<name>.png and <name>.svg.
 *
 * Templates are found in, first match wins: plots_dir (if not NULL),
 * $GAPSCOPE_PLOTS, <dir of the gapscope binary>/../plots,
 * <dir of the binary>/../../plots, ./plots.
 * When gnuplot is not on PATH the charts are skipped: gs_charts_render
 * returns GS_ERR_UNSUPPORTED with a message saying so (callers print it and
 * go on; nothing crashes).  gnuplot's own messages go to DIR/charts/gnuplot.log.
 *
 * Not thread safe (uses the process's cwd-independent paths only, but
 * forks).
 */
#ifndef GS_CHARTS_H
#define GS_CHARTS_H

#include <stddef.h>

#include "../common/status.h"

/* 1 when a gnuplot executable is on PATH. */
int gs_gnuplot_available(void);
/* Finds the plots directory (see above); 0 when none has common.gp. */
int gs_plots_dir(char *buf, size_t n, const char *plots_dir);

/* Renders every chart whose data exists in DIR/data; *n_ok receives the
 * number of charts drawn. */
gs_status gs_charts_render(const char *run_dir, const char *plots_dir, int *n_ok, gs_err *err);

/* Renders the sweep chart from DIR/sweep.dat (format: report/README.md,
 * "sweep.dat") into DIR/charts/sweep.png/.svg. */
gs_status gs_sweep_chart(const char *dir, const char *plots_dir, gs_err *err);

#endif
