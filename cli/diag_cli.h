/* Shared options and rendering of the diagnosis commands (cmd_analyze.c,
 * cmd_report.c, cmd_import.c, cmd_gate.c; diag_cli.c). */
#ifndef GS_DIAG_CLI_H
#define GS_DIAG_CLI_H

#include "../report/render.h"
#include "cli_opts.h"

typedef struct gs_diag_opts {
    gs_analysis_config cfg;
    const char *plots;
    int quiet;
} gs_diag_opts;

void gs_diag_opts_init(gs_diag_opts *o);
/* --micro-ms, --bin-s, --plots, --quiet: a group over a gs_diag_opts
 * (GS_CLI_GROUP); --quiet also turns the analysis's progress off. */
extern const gs_cli_opt gs_diag_cli_opts[];

/* gs_render's options for a diagnosis command (tag: see render.h). */
void gs_diag_render_opts(gs_render_opts *ro, const gs_diag_opts *o, const char *tag);
/* gs_render, with a failure printed as "gapscope CMD: ..."; returns 0, or
 * the exit code (2 unreadable input, 3 a failed output or out of memory).
 * The outputs are bracketed (common/outdir.h, diag/run.h gs_run_outputs):
 * after a failure the run directory holds what it held before.
 * res must be freed with gs_render_result_free either way. */
int gs_diag_render(gs_render_result *res, const char *target, const gs_render_opts *ro,
                   const char *cmd);
/* What `gapscope report TARGET` does after its options: everything
 * rendered (charts unless !charts), then the verdict and the report's
 * paths on stdout.  Returns the exit code. */
int gs_diag_report(const char *target, const gs_diag_opts *o, const gs_report_opts *ro,
                   int charts);
#endif
