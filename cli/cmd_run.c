/* gapscope run: see cli/cli_run.c for the options. */
#include "cli_run.h"
#include "cli.h"

static int run_main(int argc, char **argv) { return gs_scn_cmd_run(argc, argv, "run"); }

GS_CLI_COMMAND(run, "run", "run a scenario through the engine and write its report", run_main)
