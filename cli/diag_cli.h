/* Shared option handling and printing of the diagnosis commands
 * (cmd_analyze.c, cmd_report.c, cmd_gate.c). */
#ifndef GS_DIAG_CLI_H
#define GS_DIAG_CLI_H

#include <stdio.h>

#include "../diag/run.h"

typedef struct gs_diag_opts {
    gs_analysis_config cfg;
    const char *plots;
    int quiet;
} gs_diag_opts;

void gs_diag_opts_init(gs_diag_opts *o);
/* Parses --micro-ms, --bin-s, --plots, --quiet at argv[*i]: 1 consumed,
 * 0 not an option of these, -1 bad value. */
int gs_diag_parse_common(int argc, char **argv, int *i, gs_diag_opts *o);
/* summary.json, data/, timeline.json when missing; returns an exit code. */
int gs_diag_write_outputs(gs_run *r, const gs_diag_opts *o);
/* What `gapscope report TARGET` does after its options: analyse, write
 * summary.json/data/timeline.json, draw charts (unless !charts), write
 * report.md/report.html, print the verdict.  Returns the exit code. */
struct gs_report_opts;
int gs_diag_report(const char *target, const gs_diag_opts *o, struct gs_report_opts *ro,
                   int charts);
/* A short per-device table and the top causes. */
void gs_diag_print_table(FILE *f, const gs_run *r);

#endif
