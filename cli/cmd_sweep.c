/* gapscope sweep: see scenarios/sweep.c and cli/cli_sweep.c. */
#include "cli_run.h"
#include "cli.h"

static int sweep_main(int argc, char **argv) { return gs_scn_cmd_sweep(argc, argv); }

GS_CLI_COMMAND(sweep, "sweep", "run a scenario over values of its keys; GPU idle sensitivity", sweep_main)
