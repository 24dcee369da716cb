/* Command-line entry points of the scenario drivers (used by cli/cmd_*.c). */
#ifndef GS_SCN_CLI_RUN_H
#define GS_SCN_CLI_RUN_H

#include "cli_opts.h"

/* The options of run, replay and record (cli_run.c). */
typedef struct gs_run_args {
    const char *out, *seed, *record;
    gs_cli_list sets;
    int quiet, dry, no_report;
    gs_cli_list pos;
    const char *from_log;      /* record only: --from-log LOG */
} gs_run_args;

/* cmd: "run", "replay" or "record"; argv[0] is the command name.  Returns
 * GS_CLI_GO (a filled) or the exit code (--help, a bad argument). */
int gs_scn_run_parse(gs_run_args *a, int argc, char **argv, const char *cmd);
/* Runs what a asks for (a from gs_scn_run_parse with the same cmd; a's
 * from_log is not looked at).  Returns the exit code. */
int gs_scn_run_with(const gs_run_args *a, const char *cmd);
/* Both.  Returns the exit code. */
int gs_scn_cmd_run(int argc, char **argv, const char *cmd);
/* gapscope sweep. */
int gs_scn_cmd_sweep(int argc, char **argv);
/* gapscope predict, gapscope model (cli_predict.c). */
int gs_scn_cmd_predict(int argc, char **argv);
int gs_scn_cmd_model(int argc, char **argv);
/* gapscope predict CAPTURE --what-if ... (cli_whatif.c): the options as
 * predict's table parsed them (cli_predict.c).  Returns the exit code. */
typedef struct gs_cli_whatif_args {
    const char *capture;
    const char *const *edits;
    int n_edits;
    const char *out_dir;        /* NULL: runs/whatif-<UTC time> */
    int no_report, quiet;
} gs_cli_whatif_args;
int gs_cli_whatif(const gs_cli_whatif_args *a);

#endif
