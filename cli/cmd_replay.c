/* gapscope replay: see cli/cli_run.c for the options. */
#include "cli_run.h"
#include "cli.h"

static int replay_main(int argc, char **argv) { return gs_scn_cmd_run(argc, argv, "replay"); }

GS_CLI_COMMAND(replay, "replay", "replay a job-mix trace through the engine", replay_main)
