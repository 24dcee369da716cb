/* Command-line entry points of the scenario drivers (used by cli/cmd_*.c). */
#ifndef GS_SCN_CLI_RUN_H
#define GS_SCN_CLI_RUN_H

/* cmd: "run", "replay" or "record"; argv[0] is the command name.  Returns the exit code. */
int gs_scn_cmd_run(int argc, char **argv, const char *cmd);
/* gapscope sweep. */
int gs_scn_cmd_sweep(int argc, char **argv);
/* gapscope predict, gapscope model (cli_predict.c). */
int gs_scn_cmd_predict(int argc, char **argv);
int gs_scn_cmd_model(int argc, char **argv);
/* gapscope predict CAPTURE --what-if ... (cli_whatif.c). */
int gs_cli_whatif(int argc, char **argv);

#endif
